//! The basic value types stored in baskets, with their sizes, names and big-endian
//! decoding.

use crate::array::Array;
use crate::streamer::Packed;

/// A basic value type as stored in baskets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Prim {
    /// `Bool_t` (1 byte).
    Bool,
    /// `Char_t`.
    I8,
    /// `UChar_t`.
    U8,
    /// `Short_t`.
    I16,
    /// `UShort_t`.
    U16,
    /// `Int_t`.
    I32,
    /// `UInt_t`.
    U32,
    /// `Long64_t`.
    I64,
    /// `ULong64_t`.
    U64,
    /// `Float_t`.
    F32,
    /// `Double_t`.
    F64,
    /// `Double32_t` (read as `double`).
    Double32(Packed),
    /// `Float16_t` (read as `float`).
    Float16(Packed),
}

impl Prim {
    /// Bytes of one stored value.
    pub fn size(&self) -> usize {
        match self {
            Prim::Bool | Prim::I8 | Prim::U8 => 1,
            Prim::I16 | Prim::U16 => 2,
            Prim::I32 | Prim::U32 | Prim::F32 => 4,
            Prim::I64 | Prim::U64 | Prim::F64 => 8,
            Prim::Double32(p) | Prim::Float16(p) => p.bytes(),
        }
    }

    /// A short type name (`int32`, `float64`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Prim::Bool => "bool",
            Prim::I8 => "int8",
            Prim::U8 => "uint8",
            Prim::I16 => "int16",
            Prim::U16 => "uint16",
            Prim::I32 => "int32",
            Prim::U32 => "uint32",
            Prim::I64 => "int64",
            Prim::U64 => "uint64",
            Prim::F32 => "float32",
            Prim::F64 => "float64",
            Prim::Double32(_) => "Double32",
            Prim::Float16(_) => "Float16",
        }
    }

    /// The type of a basic type code of a streamer element (`title` gives ranges).
    pub fn from_code(code: i32, title: &str) -> Option<Prim> {
        use crate::streamer::code as c;
        Some(match code {
            c::BOOL => Prim::Bool,
            c::CHAR | c::LEGACY_CHAR => Prim::I8,
            c::UCHAR => Prim::U8,
            c::SHORT => Prim::I16,
            c::USHORT => Prim::U16,
            c::INT | c::COUNTER => Prim::I32,
            c::UINT | c::BITS => Prim::U32,
            c::LONG | c::LONG64 => Prim::I64,
            c::ULONG | c::ULONG64 => Prim::U64,
            c::FLOAT => Prim::F32,
            c::DOUBLE => Prim::F64,
            c::DOUBLE32 => Prim::Double32(Packed::from_title(false, title)),
            c::FLOAT16 => Prim::Float16(Packed::from_title(true, title)),
            _ => return None,
        })
    }

    /// The type of a C++ type name (`int`, `double`, `unsigned short`, `Float_t`, ...).
    pub fn from_type_name(name: &str) -> Option<Prim> {
        Some(match name.trim() {
            "bool" | "Bool_t" => Prim::Bool,
            "char" | "Char_t" | "signed char" | "int8_t" | "std::int8_t" => Prim::I8,
            "unsigned char" | "UChar_t" | "uint8_t" | "std::uint8_t" => Prim::U8,
            "short" | "Short_t" | "int16_t" | "std::int16_t" => Prim::I16,
            "unsigned short" | "UShort_t" | "uint16_t" | "std::uint16_t" => Prim::U16,
            "int" | "Int_t" | "int32_t" | "std::int32_t" => Prim::I32,
            "unsigned int" | "unsigned" | "UInt_t" | "uint32_t" | "std::uint32_t" => Prim::U32,
            "long" | "Long_t" | "long long" | "Long64_t" | "int64_t" | "std::int64_t" => Prim::I64,
            "unsigned long" | "ULong_t" | "unsigned long long" | "ULong64_t" | "uint64_t"
            | "std::uint64_t" => Prim::U64,
            "float" | "Float_t" => Prim::F32,
            "double" | "Double_t" => Prim::F64,
            "Double32_t" => Prim::Double32(Packed::AsFloat),
            "Float16_t" => Prim::Float16(Packed::Truncated { bits: 12 }),
            _ => return None,
        })
    }

    /// Decodes the big-endian values in `bytes` (a whole number of values).
    pub fn decode(&self, bytes: &[u8]) -> Array {
        fn be<const N: usize, T>(bytes: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
            bytes
                .chunks_exact(N)
                .map(|c| f(c.try_into().expect("chunk")))
                .collect()
        }
        match self {
            Prim::Bool => Array::Bool(bytes.iter().map(|&b| b != 0).collect()),
            Prim::I8 => Array::Int8(bytes.iter().map(|&b| b as i8).collect()),
            Prim::U8 => Array::UInt8(bytes.to_vec()),
            Prim::I16 => Array::Int16(be(bytes, i16::from_be_bytes)),
            Prim::U16 => Array::UInt16(be(bytes, u16::from_be_bytes)),
            Prim::I32 => Array::Int32(be(bytes, i32::from_be_bytes)),
            Prim::U32 => Array::UInt32(be(bytes, u32::from_be_bytes)),
            Prim::I64 => Array::Int64(be(bytes, i64::from_be_bytes)),
            Prim::U64 => Array::UInt64(be(bytes, u64::from_be_bytes)),
            Prim::F32 => Array::Float32(be(bytes, f32::from_be_bytes)),
            Prim::F64 => Array::Float64(be(bytes, f64::from_be_bytes)),
            Prim::Double32(p) => {
                let mut out = vec![0f64; bytes.len() / p.bytes()];
                p.unpack(bytes, &mut out);
                Array::Float64(out)
            }
            Prim::Float16(p) => {
                let mut out = vec![0f64; bytes.len() / p.bytes()];
                p.unpack(bytes, &mut out);
                Array::Float32(out.into_iter().map(|v| v as f32).collect())
            }
        }
    }
}
