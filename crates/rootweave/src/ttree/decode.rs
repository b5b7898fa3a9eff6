//! Interpretations: how the bytes of a branch's entries become an [`Array`]. Baskets
//! hold big-endian values; each interpretation turns a basket's data (and its entry
//! offsets, for variable-size entries) into the arrays of an entry range.

use std::ops::Range;

use crate::array::Array;

/// How a `Double32_t` or `Float16_t` is stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Packed {
    /// As a `float` (Double32 without a range).
    AsFloat,
    /// Exponent byte and `bits`-bit mantissa (3 bytes): no range, or a `[0,0,bits]` range.
    Truncated {
        /// Mantissa bits.
        bits: u32,
    },
    /// An unsigned `bits`-bit integer scaled into `[low, high]` (4 bytes).
    Scaled {
        /// Lower end of the range.
        low: f64,
        /// Upper end of the range.
        high: f64,
        /// Bits of the integer.
        bits: u32,
    },
}

impl Packed {
    /// The packing given by a member's or leaf's title (`[xmin,xmax,nbits]` ranges).
    pub fn from_title(float16: bool, title: &str) -> Packed {
        let range = title
            .find('[')
            .and_then(|a| title[a + 1..].find(']').map(|b| &title[a + 1..a + 1 + b]))
            .filter(|r| r.contains(','));
        let Some(range) = range else {
            return if float16 {
                Packed::Truncated { bits: 12 }
            } else {
                Packed::AsFloat
            };
        };
        let parts: Vec<&str> = range.split(',').map(str::trim).collect();
        let low = parse_number(parts[0]).unwrap_or(0.0);
        let high = parts.get(1).and_then(|p| parse_number(p)).unwrap_or(0.0);
        let bits = parts
            .get(2)
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(32)
            .clamp(2, 32);
        if low == 0.0 && high == 0.0 {
            Packed::Truncated {
                bits: bits.min(if float16 { 16 } else { 23 }).max(2),
            }
        } else {
            Packed::Scaled { low, high, bits }
        }
    }

    /// Bytes of one stored value.
    pub fn bytes(&self) -> usize {
        match self {
            Packed::Truncated { .. } => 3,
            _ => 4,
        }
    }

    /// Unpacks `out.len()` stored values.
    pub fn unpack(&self, bytes: &[u8], out: &mut [f64]) {
        match *self {
            Packed::AsFloat => {
                for (o, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                    *o = f32::from_be_bytes([c[0], c[1], c[2], c[3]]) as f64;
                }
            }
            Packed::Truncated { bits } => {
                for (o, c) in out.iter_mut().zip(bytes.chunks_exact(3)) {
                    let exponent = c[0] as u32;
                    let mantissa = u16::from_be_bytes([c[1], c[2]]) as u32;
                    let mask = (1u32 << (bits + 1)) - 1;
                    let raw = (exponent << 23) | ((mantissa & mask) << (23 - bits.min(23)));
                    let mut v = f32::from_bits(raw);
                    if mantissa & (1 << (bits + 1)) != 0 {
                        v = -v;
                    }
                    *o = v as f64;
                }
            }
            Packed::Scaled { low, high, bits } => {
                let scale = (high - low) / (1u64 << bits) as f64;
                for (o, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                    *o = low + u32::from_be_bytes([c[0], c[1], c[2], c[3]]) as f64 * scale;
                }
            }
        }
    }
}

fn parse_number(text: &str) -> Option<f64> {
    let t = text.trim().to_ascii_lowercase();
    let t = t.replace("tmath::pi()", "pi");
    if let Ok(v) = t.parse() {
        return Some(v);
    }
    let pi = std::f64::consts::PI;
    let (sign, t) = match t.strip_prefix('-') {
        Some(rest) => (-1.0, rest.trim()),
        None => (1.0, t.as_str()),
    };
    let v = if t == "pi" {
        pi
    } else if let Some(k) = t.strip_suffix("*pi") {
        k.trim().parse::<f64>().ok()? * pi
    } else if let Some(k) = t.strip_prefix("pi/") {
        pi / k.trim().parse::<f64>().ok()?
    } else if let Some(k) = t.strip_prefix("2pi") {
        if k.is_empty() {
            2.0 * pi
        } else {
            return None;
        }
    } else {
        return None;
    };
    Some(sign * v)
}

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
        use super::streamers::code as c;
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

/// What precedes the values of one entry of a variable-size branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header {
    /// Nothing: the entry is its values (counter-indexed arrays, split collections).
    None,
    /// One byte (a member `T* x //[n]` of a split object).
    Flag,
    /// A byte count, a version and an `i32` length (`std::vector`).
    Vector,
    /// A byte count and a version (an object streamed on its own: a `std::string`
    /// member, the members of a split collection's items that are STL objects).
    Object,
}

/// How a branch's entries are read.
#[derive(Debug, Clone, PartialEq)]
pub enum Interpretation {
    /// A fixed number of values per entry: a scalar (`dims` empty) or a fixed-size
    /// (possibly multi-dimensional) array.
    Fixed {
        /// The value type.
        prim: Prim,
        /// Array dimensions.
        dims: Vec<usize>,
    },
    /// A variable number of items per entry, each item a value or a fixed-size array.
    Jagged {
        /// The value type.
        prim: Prim,
        /// Dimensions of each item.
        inner: Vec<usize>,
        /// What precedes each entry's values.
        header: Header,
    },
    /// One string per entry (`char*`, `std::string`, `TString`), after the header
    /// ([`Header::None`] or [`Header::Object`]).
    Strings(Header),
    /// A member of a split collection's items that is itself variable-size (an STL
    /// sequence or a string): per entry, the header ([`Header::None`] or
    /// [`Header::Object`]) and then one value per item, back to back to the entry's end.
    Members {
        /// The type of each item's value.
        item: Nested,
        /// What precedes the values of an entry.
        header: Header,
    },
    /// A branch that holds no data of its own and stands for its sub-branches (a split
    /// object, base class or STL collection of objects): read as a record of them.
    Group(Vec<String>),
    /// An STL sequence (`std::vector`, `std::set`, `std::list`, ...) of numbers, strings
    /// or nested sequences, streamed whole: a byte count and version, the length, then
    /// the items (nested sequences as a length and their items).
    Sequence(Nested),
    /// Several fixed-size leaves in one branch (a leaf list): a record per entry.
    Record(Vec<(String, Prim, Vec<usize>)>),
    /// An STL map (`std::map`, `std::unordered_map`, ...) streamed whole and memberwise:
    /// a byte count and version, the pair's version (and checksum), the length, then all
    /// keys and then all values. Read as a list of `{first, second}` records per entry.
    Map {
        /// The key type.
        key: Nested,
        /// The value type.
        value: Nested,
        /// Whether the block of keys starts with a byte count and version (STL types).
        key_header: bool,
        /// Whether the block of values does.
        value_header: bool,
    },
}

/// Why an entry's bytes do not decode (the caller adds file, branch and basket).
pub type DecodeError = String;

impl Interpretation {
    /// Bytes per entry, if every entry has the same size.
    pub fn entry_size(&self) -> Option<usize> {
        match self {
            Interpretation::Fixed { prim, dims } => {
                Some(prim.size() * dims.iter().product::<usize>())
            }
            Interpretation::Record(fields) => Some(
                fields
                    .iter()
                    .map(|(_, p, d)| p.size() * d.iter().product::<usize>())
                    .sum(),
            ),
            _ => None,
        }
    }

    /// A short description of the resulting type (`float32`, `var * float32`, ...).
    pub fn describe(&self) -> String {
        let dims = |d: &[usize]| d.iter().map(|n| format!("{n} * ")).collect::<String>();
        match self {
            Interpretation::Fixed { prim, dims: d } => format!("{}{}", dims(d), prim.name()),
            Interpretation::Jagged { prim, inner, .. } => {
                format!("var * {}{}", dims(inner), prim.name())
            }
            Interpretation::Strings(_) => "string".into(),
            Interpretation::Members { item, .. } => format!("var * {}", item.describe()),
            Interpretation::Group(children) => format!("group of {} sub-branches", children.len()),
            Interpretation::Sequence(n) => format!("var * {}", n.describe()),
            Interpretation::Map { key, value, .. } => format!(
                "var * {{first: {}, second: {}}}",
                key.describe(),
                value.describe()
            ),
            Interpretation::Record(fields) => format!(
                "{{{}}}",
                fields
                    .iter()
                    .map(|(n, p, d)| format!("{n}: {}{}", dims(d), p.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// Decodes entries `range` of a basket whose data part is `data` and whose entry
    /// `i` spans `offsets[i]..offsets[i + 1]` of it (variable-size entries only).
    pub fn decode(
        &self,
        data: &[u8],
        offsets: Option<&[usize]>,
        range: Range<usize>,
    ) -> Result<Array, DecodeError> {
        if let Some(size) = self.entry_size() {
            let (from, to) = match (range.start.checked_mul(size), range.end.checked_mul(size)) {
                (Some(from), Some(to)) => (from, to),
                _ => return Err(format!("entries {range:?} of {size} bytes overflow")),
            };
            // A basket that records where entries start must agree that each is `size`
            // bytes (an object streamed with a header per entry would not).
            if let Some(offsets) = offsets.filter(|o| o.len() > range.end) {
                if offsets[range.start] != from || offsets[range.end] != to {
                    return Err(format!(
                        "entries {}..{} span bytes {}..{}, not {size} bytes each",
                        range.start, range.end, offsets[range.start], offsets[range.end]
                    ));
                }
            }
            let bytes = data.get(from..to).ok_or_else(|| {
                format!(
                    "entries {}..{} of {size} bytes need {to} bytes, the basket holds {}",
                    range.start,
                    range.end,
                    data.len()
                )
            })?;
            return Ok(match self {
                Interpretation::Fixed { prim, dims } => wrap_fixed(prim.decode(bytes), dims),
                Interpretation::Record(fields) => {
                    let n = range.len();
                    let mut at = 0usize;
                    let mut out = Vec::with_capacity(fields.len());
                    for (name, prim, dims) in fields {
                        let width = prim.size() * dims.iter().product::<usize>();
                        let mut gathered = Vec::with_capacity(width * n);
                        for e in 0..n {
                            gathered
                                .extend_from_slice(&bytes[e * size + at..e * size + at + width]);
                        }
                        out.push((name.clone(), wrap_fixed(prim.decode(&gathered), dims)));
                        at += width;
                    }
                    Array::Record {
                        len: n,
                        fields: out,
                    }
                }
                _ => unreachable!("fixed-size interpretations"),
            });
        }
        let offsets = offsets.ok_or_else(|| {
            "variable-size entries but the basket has no entry offsets".to_string()
        })?;
        if range.end >= offsets.len() {
            return Err(format!(
                "entry {} but the basket has {} entry offsets",
                range.end,
                offsets.len()
            ));
        }
        let entry = |i: usize| -> Result<&[u8], DecodeError> {
            let (a, b) = (offsets[i], offsets[i + 1]);
            if a > b || b > data.len() {
                return Err(format!(
                    "entry {i} spans bytes {a}..{b} of a {}-byte basket",
                    data.len()
                ));
            }
            Ok(&data[a..b])
        };
        match self {
            Interpretation::Jagged {
                prim,
                inner,
                header,
            } => {
                let item = prim.size() * inner.iter().product::<usize>();
                let mut out_offsets = Vec::with_capacity(range.len() + 1);
                out_offsets.push(0u64);
                let mut total = 0u64;
                let mut values: Vec<u8> = Vec::new();
                let contiguous = *header == Header::None;
                for i in range.clone() {
                    let bytes = entry(i)?;
                    let body = match header {
                        Header::None => bytes,
                        Header::Flag => bytes.get(1..).unwrap_or(&[]),
                        Header::Object => object_header(bytes)?,
                        Header::Vector => {
                            let (n, rest) = vector_header(bytes)?;
                            if n.checked_mul(item) != Some(rest.len()) {
                                return Err(format!(
                                    "entry {i}: a vector of {n} items of {item} bytes in {} bytes",
                                    rest.len()
                                ));
                            }
                            rest
                        }
                    };
                    if item == 0 || body.len() % item != 0 {
                        return Err(format!(
                            "entry {i}: {} bytes are not a whole number of {item}-byte items",
                            body.len()
                        ));
                    }
                    total += (body.len() / item) as u64;
                    out_offsets.push(total);
                    if !contiguous {
                        values.extend_from_slice(body);
                    }
                }
                let values = if contiguous {
                    let (a, b) = (offsets[range.start], offsets[range.end]);
                    prim.decode(&data[a..b])
                } else {
                    prim.decode(&values)
                };
                Ok(Array::List {
                    offsets: out_offsets,
                    values: Box::new(wrap_fixed(values, inner)),
                })
            }
            Interpretation::Strings(header) => {
                let mut offsets_out = vec![0u64];
                let mut bytes_out = Vec::new();
                for i in range {
                    let bytes =
                        strip_header(entry(i)?, *header).map_err(|e| format!("entry {i}: {e}"))?;
                    let mut r = Reader(bytes);
                    let s = r.string().map_err(|e| format!("entry {i}: {e}"))?;
                    bytes_out.extend_from_slice(s);
                    offsets_out.push(bytes_out.len() as u64);
                }
                Ok(Array::String {
                    offsets: offsets_out,
                    bytes: bytes_out,
                })
            }
            Interpretation::Members { item, header } => {
                let mut values = Builder::new(item);
                let mut offsets_out = vec![0u64];
                for i in range {
                    let e = |m: String| format!("entry {i}: {m}");
                    let mut r = Reader(strip_header(entry(i)?, *header).map_err(e)?);
                    // Every value takes at least one byte: the loop ends.
                    while !r.0.is_empty() {
                        values.item(&mut r).map_err(e)?;
                    }
                    offsets_out.push(values.len());
                }
                Ok(Array::List {
                    offsets: offsets_out,
                    values: Box::new(values.finish()),
                })
            }
            Interpretation::Group(_) => {
                Err("a group of sub-branches is read through its sub-branches".into())
            }
            Interpretation::Sequence(item) => {
                let mut top = Builder::new(&Nested::Seq(Box::new(item.clone())));
                for i in range {
                    let (n, rest) =
                        vector_header(entry(i)?).map_err(|e| format!("entry {i}: {e}"))?;
                    let mut r = Reader(rest);
                    top.items(n, &mut r)
                        .map_err(|e| format!("entry {i}: {e}"))?;
                    if !r.0.is_empty() {
                        return Err(format!(
                            "entry {i}: {} bytes left after the items",
                            r.0.len()
                        ));
                    }
                }
                Ok(top.finish())
            }
            Interpretation::Map {
                key,
                value,
                key_header,
                value_header,
            } => {
                let mut offsets = vec![0u64];
                let mut keys = Builder::new(key);
                let mut values = Builder::new(value);
                for i in range {
                    let e = |m: String| format!("entry {i}: {m}");
                    let (n, rest) = map_header(entry(i)?).map_err(e)?;
                    let mut r = Reader(rest);
                    for (builder, header) in
                        [(&mut keys, *key_header), (&mut values, *value_header)]
                    {
                        if header && !(n == 0 && r.0.is_empty()) {
                            block_header(&mut r).map_err(e)?;
                        }
                        // Every item takes at least one byte.
                        if n > r.0.len() {
                            return Err(e(format!("{n} items in {} bytes", r.0.len())));
                        }
                        for _ in 0..n {
                            builder.item(&mut r).map_err(e)?;
                        }
                    }
                    if !r.0.is_empty() {
                        return Err(e(format!("{} bytes left after the map", r.0.len())));
                    }
                    offsets.push(offsets.last().expect("offsets") + n as u64);
                }
                let len = *offsets.last().expect("offsets") as usize;
                Ok(Array::List {
                    offsets,
                    values: Box::new(Array::Record {
                        len,
                        fields: vec![
                            ("first".to_string(), keys.finish()),
                            ("second".to_string(), values.finish()),
                        ],
                    }),
                })
            }
            Interpretation::Fixed { .. } | Interpretation::Record(_) => {
                unreachable!("fixed-size interpretations")
            }
        }
    }
}

/// The items of an STL sequence.
#[derive(Debug, Clone, PartialEq)]
pub enum Nested {
    /// A number.
    Prim(Prim),
    /// A string (`std::string`, `TString`): a length byte (or 255 and an `i32`) and bytes.
    Str,
    /// A nested sequence: an `i32` length and the items.
    Seq(Box<Nested>),
}

impl Nested {
    /// A short description (`int32`, `string`, `var * float64`).
    pub fn describe(&self) -> String {
        match self {
            Nested::Prim(p) => p.name().to_string(),
            Nested::Str => "string".into(),
            Nested::Seq(n) => format!("var * {}", n.describe()),
        }
    }
}

/// Collects the items of nested sequences into arrays.
enum Builder {
    Prim(Prim, Vec<u8>),
    Str(Vec<u64>, Vec<u8>),
    Seq(Vec<u64>, Box<Builder>),
}

impl Builder {
    fn new(n: &Nested) -> Builder {
        match n {
            Nested::Prim(p) => Builder::Prim(*p, Vec::new()),
            Nested::Str => Builder::Str(vec![0], Vec::new()),
            Nested::Seq(inner) => Builder::Seq(vec![0], Box::new(Builder::new(inner))),
        }
    }

    /// Reads one item.
    fn item(&mut self, r: &mut Reader) -> Result<(), DecodeError> {
        match self {
            Builder::Prim(p, bytes) => bytes.extend_from_slice(r.take(p.size())?),
            Builder::Str(offsets, bytes) => {
                bytes.extend_from_slice(r.string()?);
                offsets.push(bytes.len() as u64);
            }
            Builder::Seq(..) => {
                let n = r.count()?;
                self.items(n, r)?;
            }
        }
        Ok(())
    }

    /// Reads a sequence of `n` items (this builder is a [`Builder::Seq`]).
    fn items(&mut self, n: usize, r: &mut Reader) -> Result<(), DecodeError> {
        let Builder::Seq(offsets, inner) = self else {
            return Err("not a sequence".into());
        };
        // Every item takes at least one byte: a corrupt length cannot make us loop long.
        if n > r.0.len() {
            return Err(format!("{n} items in {} bytes", r.0.len()));
        }
        for _ in 0..n {
            inner.item(r)?;
        }
        offsets.push(inner.len());
        Ok(())
    }

    fn len(&self) -> u64 {
        match self {
            Builder::Prim(p, bytes) => (bytes.len() / p.size()) as u64,
            Builder::Str(offsets, _) | Builder::Seq(offsets, _) => offsets.len() as u64 - 1,
        }
    }

    fn finish(self) -> Array {
        match self {
            Builder::Prim(p, bytes) => p.decode(&bytes),
            Builder::Str(offsets, bytes) => Array::String { offsets, bytes },
            Builder::Seq(offsets, inner) => Array::List {
                offsets,
                values: Box::new(inner.finish()),
            },
        }
    }
}

/// The bytes after a byte count and a version that must span all of `bytes`.
fn object_header(bytes: &[u8]) -> Result<&[u8], DecodeError> {
    let mut r = Reader(bytes);
    let count = r.u32()?;
    if count & 0x4000_0000 == 0 {
        return Err(format!("no byte count in front of an object ({count:#x})"));
    }
    let count = (count & !0x4000_0000) as usize;
    if count != bytes.len() - 4 {
        return Err(format!(
            "an object's byte count {count} does not match its {} bytes",
            bytes.len() - 4
        ));
    }
    r.take(2)?;
    Ok(r.0)
}

/// The bytes of an entry after its header ([`Header::None`] or [`Header::Object`]).
fn strip_header(bytes: &[u8], header: Header) -> Result<&[u8], DecodeError> {
    match header {
        Header::None => Ok(bytes),
        Header::Object => object_header(bytes),
        other => Err(format!("a {other:?} header in front of strings")),
    }
}

/// A byte count, a version and an `i32` length in front of a vector's items.
fn vector_header(bytes: &[u8]) -> Result<(usize, &[u8]), DecodeError> {
    let mut r = Reader(object_header(bytes)?);
    let n = r.count()?;
    Ok((n, r.0))
}

/// The header of a map streamed memberwise: a byte count, a version with the memberwise
/// bit, the pair's class version (and its checksum when that version is 0 or 1), and the
/// length. Returns the length and the bytes after the header.
fn map_header(bytes: &[u8]) -> Result<(usize, &[u8]), DecodeError> {
    let mut r = Reader(bytes);
    let count = r.u32()?;
    if count & 0x4000_0000 == 0 {
        return Err(format!("no byte count in front of a map ({count:#x})"));
    }
    let count = (count & !0x4000_0000) as usize;
    if count != bytes.len() - 4 {
        return Err(format!(
            "a map's byte count {count} does not match its {} bytes",
            bytes.len() - 4
        ));
    }
    let version = r.u16()?;
    if version & 0x4000 == 0 {
        return Err(format!(
            "a map streamed pair by pair (version {version:#x}) is not supported"
        ));
    }
    if r.u16()? <= 1 {
        r.take(4)?;
    }
    let n = r.count()?;
    Ok((n, r.0))
}

/// A byte count and version in front of a block of STL objects.
fn block_header(r: &mut Reader) -> Result<(), DecodeError> {
    let count = r.u32()?;
    if count & 0x4000_0000 == 0 {
        return Err(format!("no byte count in front of a block ({count:#x})"));
    }
    let count = (count & !0x4000_0000) as usize;
    if count > r.0.len() {
        return Err(format!(
            "a block's byte count {count} is more than the {} bytes left",
            r.0.len()
        ));
    }
    r.take(2)?;
    Ok(())
}

/// A minimal checked reader over one entry's bytes.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.0.len() {
            return Err(format!(
                "needs {n} bytes, {} left in the entry",
                self.0.len()
            ));
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    fn u16(&mut self) -> Result<u16, DecodeError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, DecodeError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn count(&mut self) -> Result<usize, DecodeError> {
        let n = self.u32()? as i32;
        if n < 0 {
            return Err(format!("negative length {n}"));
        }
        Ok(n as usize)
    }
    fn string(&mut self) -> Result<&'a [u8], DecodeError> {
        let mut n = self.take(1)?[0] as usize;
        if n == 255 {
            n = self.count()?;
        }
        self.take(n)
    }
}

/// Wraps values into nested fixed-size arrays of `dims` (outermost first).
pub fn wrap_fixed(values: Array, dims: &[usize]) -> Array {
    dims.iter().rev().fold(values, |inner, &size| Array::Fixed {
        size,
        values: Box::new(inner),
    })
}

/// Concatenates arrays of the same layout, in order.
pub fn concat(mut parts: Vec<Array>) -> Result<Array, DecodeError> {
    if parts.len() == 1 {
        return Ok(parts.pop().expect("one part"));
    }
    let Some(first) = parts.first() else {
        return Err("nothing to concatenate".into());
    };
    macro_rules! flat {
        ($variant:ident) => {{
            let mut out = Vec::new();
            for p in parts {
                match p {
                    Array::$variant(v) => out.extend(v),
                    other => {
                        return Err(format!(
                            "cannot join {} to {}",
                            other.kind(),
                            stringify!($variant)
                        ))
                    }
                }
            }
            Array::$variant(out)
        }};
    }
    Ok(match first {
        Array::Bool(_) => flat!(Bool),
        Array::Int8(_) => flat!(Int8),
        Array::Int16(_) => flat!(Int16),
        Array::Int32(_) => flat!(Int32),
        Array::Int64(_) => flat!(Int64),
        Array::UInt8(_) => flat!(UInt8),
        Array::UInt16(_) => flat!(UInt16),
        Array::UInt32(_) => flat!(UInt32),
        Array::UInt64(_) => flat!(UInt64),
        Array::Float32(_) => flat!(Float32),
        Array::Float64(_) => flat!(Float64),
        Array::String { .. } => {
            let mut offsets = vec![0u64];
            let mut bytes = Vec::new();
            for p in parts {
                let Array::String {
                    offsets: o,
                    bytes: b,
                } = p
                else {
                    return Err("cannot join strings to another kind".into());
                };
                let base = bytes.len() as u64;
                offsets.extend(o.iter().skip(1).map(|v| v + base));
                bytes.extend(b);
            }
            Array::String { offsets, bytes }
        }
        Array::List { .. } => {
            let mut offsets = vec![0u64];
            let mut values = Vec::new();
            for p in parts {
                let Array::List {
                    offsets: o,
                    values: v,
                } = p
                else {
                    return Err("cannot join lists to another kind".into());
                };
                let base = *offsets.last().expect("offsets");
                offsets.extend(o.iter().skip(1).map(|x| x + base));
                values.push(*v);
            }
            Array::List {
                offsets,
                values: Box::new(concat(values)?),
            }
        }
        Array::Fixed { size, .. } => {
            let size = *size;
            let mut values = Vec::new();
            for p in parts {
                let Array::Fixed { values: v, .. } = p else {
                    return Err("cannot join fixed-size arrays to another kind".into());
                };
                values.push(*v);
            }
            Array::Fixed {
                size,
                values: Box::new(concat(values)?),
            }
        }
        Array::Record { fields, .. } => {
            let names: Vec<String> = fields.iter().map(|(n, _)| n.clone()).collect();
            let mut columns: Vec<Vec<Array>> = vec![Vec::new(); names.len()];
            let mut len = 0;
            for p in parts {
                let Array::Record { len: l, fields } = p else {
                    return Err("cannot join records to another kind".into());
                };
                len += l;
                for (k, (_, a)) in fields.into_iter().enumerate() {
                    columns
                        .get_mut(k)
                        .ok_or("records of different members")?
                        .push(a);
                }
            }
            let fields = names
                .into_iter()
                .zip(columns)
                .map(|(n, c)| Ok((n, concat(c)?)))
                .collect::<Result<Vec<_>, DecodeError>>()?;
            Array::Record { len, fields }
        }
        other => return Err(format!("cannot join {} arrays", other.kind())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_floats() {
        assert_eq!(Packed::from_title(false, "x"), Packed::AsFloat);
        assert_eq!(
            Packed::from_title(false, "energy [0, 100, 10]"),
            Packed::Scaled {
                low: 0.0,
                high: 100.0,
                bits: 10
            }
        );
        assert_eq!(
            Packed::from_title(true, "[0,0,8]"),
            Packed::Truncated { bits: 8 }
        );
        let mut out = [0.0];
        Packed::Scaled {
            low: 0.0,
            high: 100.0,
            bits: 10,
        }
        .unpack(&512u32.to_be_bytes(), &mut out);
        assert_eq!(out[0], 50.0);
        // 1.5f = 0x3FC00000: exponent 127, mantissa 0x400000 -> with 12 bits: 0x800.
        Packed::Truncated { bits: 12 }.unpack(&[127, 0x08, 0x00], &mut out);
        assert_eq!(out[0], 1.5);
        Packed::Truncated { bits: 12 }.unpack(&[127, 0x28, 0x00], &mut out);
        assert_eq!(out[0], -1.5);
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn maps() {
        // map<int,short> {1: 1, 2: 2} and map<string,TString> {"one": "ONE", "two": "TWO"}
        // as ROOT 6 streams them (memberwise).
        let ints = hex("4000001840090000fe3e6d8000000002000000010000000200010002");
        let m = Interpretation::Map {
            key: Nested::Prim(Prim::I32),
            value: Nested::Prim(Prim::I16),
            key_header: false,
            value_header: false,
        };
        let a = m.decode(&ints, Some(&[0, ints.len()]), 0..1).unwrap();
        let Array::List { offsets, values } = a else {
            panic!("a list")
        };
        assert_eq!(offsets, vec![0, 2]);
        assert_eq!(
            *values,
            Array::Record {
                len: 2,
                fields: vec![
                    ("first".into(), Array::Int32(vec![1, 2])),
                    ("second".into(), Array::Int16(vec![1, 2])),
                ]
            }
        );
        let strings =
            hex("40000022400900009cb11ada000000024000000a0009036f6e650374776f034f4e450354574f");
        let m = Interpretation::Map {
            key: Nested::Str,
            value: Nested::Str,
            key_header: true,
            value_header: false,
        };
        let a = m.decode(&strings, Some(&[0, strings.len()]), 0..1).unwrap();
        assert_eq!(a.len(), 1);
        // Truncated or with a wrong byte count: errors, not panics.
        for cut in 0..strings.len() {
            assert!(m.decode(&strings[..cut], Some(&[0, cut]), 0..1).is_err());
        }
    }

    #[test]
    fn jagged_and_strings() {
        let data = [0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3];
        let offsets = [0usize, 0, 4, 12];
        let j = Interpretation::Jagged {
            prim: Prim::I32,
            inner: vec![],
            header: Header::None,
        };
        let a = j.decode(&data, Some(&offsets), 1..3).unwrap();
        assert_eq!(
            a,
            Array::List {
                offsets: vec![0, 1, 3],
                values: Box::new(Array::Int32(vec![1, 2, 3]))
            }
        );
        let s = [2, b'h', b'i', 0];
        let a = Interpretation::Strings(Header::None)
            .decode(&s, Some(&[0, 3, 4]), 0..2)
            .unwrap();
        assert_eq!(
            a,
            Array::String {
                offsets: vec![0, 2, 2],
                bytes: b"hi".to_vec()
            }
        );
        assert!(j.decode(&data, Some(&[0, 13]), 0..1).is_err());
    }

    #[test]
    fn strings_after_an_object_header() {
        // `std::string` members: a byte count (0x40000000 | 6), a version, the string.
        let data = [0x40, 0, 0, 6, 0, 1, 3, b'a', b'b', b'c'];
        let s = Interpretation::Strings(Header::Object);
        let a = s.decode(&data, Some(&[0, 10]), 0..1).unwrap();
        assert_eq!(
            a,
            Array::String {
                offsets: vec![0, 3],
                bytes: b"abc".to_vec()
            }
        );
        // A byte count that disagrees with the entry, or no byte count at all.
        assert!(s.decode(&data[..9], Some(&[0, 9]), 0..1).is_err());
        assert!(Interpretation::Strings(Header::Object)
            .decode(&[3, b'a', b'b', b'c'], Some(&[0, 4]), 0..1)
            .is_err());
    }

    #[test]
    fn members_of_split_collection_items() {
        // Two entries: no items, then two items holding the vectors [7] and [8, 9].
        let mut data = vec![0x40, 0, 0, 2, 0, 10];
        data.extend([0x40, 0, 0, 22, 0, 10]);
        data.extend([0, 0, 0, 1, 0, 0, 0, 7]);
        data.extend([0, 0, 0, 2, 0, 0, 0, 8, 0, 0, 0, 9]);
        let m = Interpretation::Members {
            item: Nested::Seq(Box::new(Nested::Prim(Prim::I32))),
            header: Header::Object,
        };
        let offsets = [0usize, 6, data.len()];
        let a = m.decode(&data, Some(&offsets), 0..2).unwrap();
        assert_eq!(
            a,
            Array::List {
                offsets: vec![0, 0, 2],
                values: Box::new(Array::List {
                    offsets: vec![0, 1, 3],
                    values: Box::new(Array::Int32(vec![7, 8, 9]))
                })
            }
        );
        // A vector claiming more items than the entry holds.
        let mut bad = data.clone();
        bad[15] = 200;
        assert!(m.decode(&bad, Some(&offsets), 0..2).is_err());
        // TString members: strings back to back, no header.
        let t = Interpretation::Members {
            item: Nested::Str,
            header: Header::None,
        };
        let a = t
            .decode(&[1, b'x', 2, b'y', b'z'], Some(&[0, 0, 5]), 0..2)
            .unwrap();
        assert_eq!(a.len(), 2);
    }

    #[test]
    fn fixed_entries_must_agree_with_entry_offsets() {
        let rec = Interpretation::Record(vec![
            ("a".into(), Prim::F32, vec![]),
            ("b".into(), Prim::I16, vec![]),
        ]);
        let data = [0x3f, 0x80, 0, 0, 0, 5, 0x40, 0, 0, 0, 0, 6];
        let a = rec.decode(&data, Some(&[0, 6, 12]), 0..2).unwrap();
        assert_eq!(a.len(), 2);
        // Entries of 6 bytes that the basket says are laid out otherwise (a header per
        // entry): an error, never values read from the wrong bytes.
        assert!(rec.decode(&data, Some(&[0, 4, 12]), 1..2).is_err());
    }
}
