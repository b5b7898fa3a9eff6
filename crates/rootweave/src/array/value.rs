//! Values handed to the writer: whole columns at once ([`ColumnData`]) or one entry at a
//! time ([`Value`]).

/// A batch of values for one field, many entries at once, in the columnar layout that
/// Arrow and Awkward use: leaf values contiguous, one offsets array per collection level.
///
/// Offsets follow Arrow's convention: `n + 1` non-decreasing positions for `n` entries,
/// entry `i` covering `offsets[i]..offsets[i+1]` of the items (the first need not be 0).
#[derive(Debug, Clone)]
pub enum ColumnData<'a> {
    /// `bool` values.
    Bool(&'a [bool]),
    /// `std::int8_t` values.
    Int8(&'a [i8]),
    /// `std::int16_t` values.
    Int16(&'a [i16]),
    /// `std::int32_t` values.
    Int32(&'a [i32]),
    /// `std::int64_t` values.
    Int64(&'a [i64]),
    /// `std::uint8_t` values.
    UInt8(&'a [u8]),
    /// `std::uint16_t` values.
    UInt16(&'a [u16]),
    /// `std::uint32_t` values.
    UInt32(&'a [u32]),
    /// `std::uint64_t` values.
    UInt64(&'a [u64]),
    /// `float` values.
    Float32(&'a [f32]),
    /// `double` values.
    Float64(&'a [f64]),
    /// `std::string` values, one Rust string each.
    Strings(&'a [String]),
    /// `std::string` values as offsets into one byte buffer.
    StringBytes {
        /// `n + 1` positions into `bytes`.
        offsets: &'a [u64],
        /// The characters of all strings.
        bytes: &'a [u8],
    },
    /// A collection per entry (`std::vector`, `std::optional` with 0 or 1 items, or an
    /// untyped collection).
    List {
        /// `n + 1` positions into the items.
        offsets: &'a [u64],
        /// The items of all entries.
        items: Box<ColumnData<'a>>,
    },
    /// `std::array<T, N>`: `N` items per entry, contiguous.
    Array(Box<ColumnData<'a>>),
    /// A record, pair or tuple: one batch per member, each with the same number of entries.
    Record(Vec<ColumnData<'a>>),
}

impl<'a> ColumnData<'a> {
    /// A collection batch: entry `i` holds `items[offsets[i]..offsets[i+1]]`.
    pub fn list(offsets: &'a [u64], items: ColumnData<'a>) -> Self {
        ColumnData::List {
            offsets,
            items: Box::new(items),
        }
    }

    /// A `std::array` batch: `N` consecutive items per entry.
    pub fn array(items: ColumnData<'a>) -> Self {
        ColumnData::Array(Box::new(items))
    }

    /// A short name of the variant, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            ColumnData::Bool(_) => "bool",
            ColumnData::Int8(_) => "int8",
            ColumnData::Int16(_) => "int16",
            ColumnData::Int32(_) => "int32",
            ColumnData::Int64(_) => "int64",
            ColumnData::UInt8(_) => "uint8",
            ColumnData::UInt16(_) => "uint16",
            ColumnData::UInt32(_) => "uint32",
            ColumnData::UInt64(_) => "uint64",
            ColumnData::Float32(_) => "float32",
            ColumnData::Float64(_) => "float64",
            ColumnData::Strings(_) | ColumnData::StringBytes { .. } => "string",
            ColumnData::List { .. } => "list",
            ColumnData::Array(_) => "array",
            ColumnData::Record(_) => "record",
        }
    }
}

impl crate::array::Array {
    /// A view of these arrays as a batch for the writers, without copying: lists and
    /// optionals as collections, fixed-size lists as `std::array` items, records member by
    /// member. `None` for a variant, which no batch represents.
    pub fn as_column_data(&self) -> Option<ColumnData<'_>> {
        use crate::array::Array;
        Some(match self {
            Array::Bool(v) => ColumnData::Bool(v),
            Array::Int8(v) => ColumnData::Int8(v),
            Array::Int16(v) => ColumnData::Int16(v),
            Array::Int32(v) => ColumnData::Int32(v),
            Array::Int64(v) => ColumnData::Int64(v),
            Array::UInt8(v) => ColumnData::UInt8(v),
            Array::UInt16(v) => ColumnData::UInt16(v),
            Array::UInt32(v) => ColumnData::UInt32(v),
            Array::UInt64(v) => ColumnData::UInt64(v),
            Array::Float32(v) => ColumnData::Float32(v),
            Array::Float64(v) => ColumnData::Float64(v),
            Array::String { offsets, bytes } => ColumnData::StringBytes { offsets, bytes },
            Array::List { offsets, values } | Array::Optional { offsets, values } => {
                ColumnData::list(offsets, values.as_column_data()?)
            }
            Array::Fixed { values, .. } => ColumnData::array(values.as_column_data()?),
            Array::Record { fields, .. } => ColumnData::Record(
                fields
                    .iter()
                    .map(|(_, a)| a.as_column_data())
                    .collect::<Option<_>>()?,
            ),
            Array::Variant { .. } => return None,
        })
    }
}

/// One value of a field, for filling one entry at a time.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `bool`
    Bool(bool),
    /// `std::int8_t`
    Int8(i8),
    /// `std::int16_t`
    Int16(i16),
    /// `std::int32_t`
    Int32(i32),
    /// `std::int64_t`
    Int64(i64),
    /// `std::uint8_t`
    UInt8(u8),
    /// `std::uint16_t`
    UInt16(u16),
    /// `std::uint32_t`
    UInt32(u32),
    /// `std::uint64_t`
    UInt64(u64),
    /// `float`
    Float32(f32),
    /// `double`
    Float64(f64),
    /// `std::string`
    String(String),
    /// The items of a `std::vector` or untyped collection.
    List(Vec<Value>),
    /// The `N` items of a `std::array<T, N>`.
    Array(Vec<Value>),
    /// A `std::optional`: present or not.
    Optional(Option<Box<Value>>),
    /// The members of a record, pair or tuple, in order.
    Record(Vec<Value>),
    /// A `std::variant`: the position of the held alternative and its value, or `None`
    /// for a variant that holds nothing. Produced by the reader; the writers do not
    /// write variants.
    Variant(Option<(usize, Box<Value>)>),
}
