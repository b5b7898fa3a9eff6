//! Column types of RNTuple binary format 1.0, by their on-disk identifiers.

/// The on-disk type of a column: how its elements are stored in pages.
///
/// The discriminants are the identifiers written in the header's column records (they differ
/// from ROOT's in-memory enumeration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum ColumnType {
    /// One bit per element, packed least-significant bit first.
    Bit = 0x00,
    /// An opaque byte.
    Byte = 0x01,
    /// A character (the bytes of strings).
    Char = 0x02,
    /// Signed 8-bit integer.
    Int8 = 0x03,
    /// Unsigned 8-bit integer.
    UInt8 = 0x04,
    /// Signed 16-bit integer, little-endian.
    Int16 = 0x05,
    /// Unsigned 16-bit integer, little-endian.
    UInt16 = 0x06,
    /// Signed 32-bit integer, little-endian.
    Int32 = 0x07,
    /// Unsigned 32-bit integer, little-endian.
    UInt32 = 0x08,
    /// Signed 64-bit integer, little-endian.
    Int64 = 0x09,
    /// Unsigned 64-bit integer, little-endian.
    UInt64 = 0x0A,
    /// IEEE half-precision float.
    Real16 = 0x0B,
    /// IEEE single-precision float.
    Real32 = 0x0C,
    /// IEEE double-precision float.
    Real64 = 0x0D,
    /// 32-bit collection offsets (cluster-relative end indices).
    Index32 = 0x0E,
    /// 64-bit collection offsets (cluster-relative end indices).
    Index64 = 0x0F,
    /// Variant switch: 64-bit index and 32-bit tag.
    Switch = 0x10,
    /// Byte-split, zigzag-encoded signed 16-bit integer.
    SplitInt16 = 0x11,
    /// Byte-split unsigned 16-bit integer.
    SplitUInt16 = 0x12,
    /// Byte-split, zigzag-encoded signed 32-bit integer.
    SplitInt32 = 0x13,
    /// Byte-split unsigned 32-bit integer.
    SplitUInt32 = 0x14,
    /// Byte-split, zigzag-encoded signed 64-bit integer.
    SplitInt64 = 0x15,
    /// Byte-split unsigned 64-bit integer.
    SplitUInt64 = 0x16,
    /// Byte-split half-precision float.
    SplitReal16 = 0x17,
    /// Byte-split single-precision float.
    SplitReal32 = 0x18,
    /// Byte-split double-precision float.
    SplitReal64 = 0x19,
    /// Byte-split, delta-encoded 32-bit offsets.
    SplitIndex32 = 0x1A,
    /// Byte-split, delta-encoded 64-bit offsets.
    SplitIndex64 = 0x1B,
    /// A float truncated to its top 10-31 bits.
    Real32Trunc = 0x1C,
    /// A float quantized to 1-32 bits in a value range.
    Real32Quant = 0x1D,
}

impl ColumnType {
    /// The on-disk identifier.
    pub fn id(self) -> u16 {
        self as u16
    }

    /// Bits per element on storage (for the variable-width types, the widest).
    pub fn bits_on_storage(self) -> u16 {
        use ColumnType::*;
        match self {
            Bit => 1,
            Byte | Char | Int8 | UInt8 => 8,
            Int16 | UInt16 | Real16 | SplitInt16 | SplitUInt16 | SplitReal16 => 16,
            Int32 | UInt32 | Real32 | Index32 | SplitInt32 | SplitUInt32 | SplitReal32
            | SplitIndex32 | Real32Trunc | Real32Quant => 32,
            Int64 | UInt64 | Real64 | Index64 | SplitInt64 | SplitUInt64 | SplitReal64
            | SplitIndex64 => 64,
            Switch => 96,
        }
    }

    /// Bytes per element in memory (before encoding); 1 for `Bit` (one `bool` per byte).
    pub fn element_size(self) -> usize {
        match self {
            ColumnType::Bit => 1,
            other => other.bits_on_storage() as usize / 8,
        }
    }

    /// The column type for an identifier, if it is one of format 1.0.
    pub fn from_id(id: u16) -> Option<Self> {
        use ColumnType::*;
        const ALL: [ColumnType; 30] = [
            Bit,
            Byte,
            Char,
            Int8,
            UInt8,
            Int16,
            UInt16,
            Int32,
            UInt32,
            Int64,
            UInt64,
            Real16,
            Real32,
            Real64,
            Index32,
            Index64,
            Switch,
            SplitInt16,
            SplitUInt16,
            SplitInt32,
            SplitUInt32,
            SplitInt64,
            SplitUInt64,
            SplitReal16,
            SplitReal32,
            SplitReal64,
            SplitIndex32,
            SplitIndex64,
            Real32Trunc,
            Real32Quant,
        ];
        ALL.iter().copied().find(|t| t.id() == id)
    }

    /// How elements of this type are transformed between memory and page bytes.
    pub fn encoding(self) -> Encoding {
        use ColumnType::*;
        match self {
            Bit => Encoding::BitPacked,
            SplitInt16 | SplitInt32 | SplitInt64 => Encoding::SplitZigzag,
            SplitUInt16 | SplitUInt32 | SplitUInt64 | SplitReal16 | SplitReal32 | SplitReal64 => {
                Encoding::Split
            }
            SplitIndex32 | SplitIndex64 => Encoding::SplitDelta,
            _ => Encoding::Plain,
        }
    }
}

/// The transformation applied to a page's elements before compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Little-endian elements, as they are.
    Plain,
    /// Bytes of all elements regrouped by significance (all byte 0s, then all byte 1s, ...).
    Split,
    /// Zigzag-encoded, then split.
    SplitZigzag,
    /// Difference to the previous element (the first kept as is), then split.
    SplitDelta,
    /// One bit per element, least-significant bit first.
    BitPacked,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_round_trip() {
        for id in 0..0x1E {
            let t = ColumnType::from_id(id).unwrap();
            assert_eq!(t.id(), id);
        }
        assert_eq!(ColumnType::from_id(0x1E), None);
        assert_eq!(ColumnType::SplitIndex64.bits_on_storage(), 64);
        assert_eq!(ColumnType::Bit.element_size(), 1);
        assert_eq!(ColumnType::Switch.element_size(), 12);
    }
}
