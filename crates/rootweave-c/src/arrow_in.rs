//! Batches handed in through the Arrow C Data Interface: a struct array (a record batch)
//! with one child per field of the model, imported and checked against the fields'
//! types, and viewed as the writers' batches. Numbers, string bytes and 64-bit offsets
//! are read where the producer put them; only what Arrow lays out otherwise is made anew
//! (booleans unpacked from bits, 32-bit offsets widened).

use std::borrow::Cow;
use std::ops::Range;

use arrow_array::ffi::from_ffi;
use arrow_buffer::{ArrowNativeType, BooleanBuffer};
use arrow_data::ffi::FFI_ArrowArray;
use arrow_data::ArrayData;
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::DataType;
use rootweave::rntuple::{ColumnData, Field, FieldType};

use crate::status::Failure;

/// Takes a caller's array and schema (the Arrow C Data Interface's move: the caller's
/// structs are marked released) and imports the array, checked in full (offsets within
/// their items, lengths, null counts). Both are released exactly once, when the returned
/// data is dropped or, on failure, before this returns; null pointers are refused after
/// the other argument is taken.
///
/// # Safety
/// Each pointer must be null or point to a struct of the Arrow C Data Interface, released
/// or valid as its specification says (buffers valid for the lengths the array claims).
pub(crate) unsafe fn take(
    array: *mut FFI_ArrowArray,
    schema: *mut FFI_ArrowSchema,
) -> Result<ArrayData, Failure> {
    // SAFETY: non-null pointers point to C Data Interface structs, as the caller promises;
    // `from_raw` moves their contents out and leaves them released.
    let array = (!array.is_null()).then(|| unsafe { FFI_ArrowArray::from_raw(array) });
    // SAFETY: as above.
    let schema = (!schema.is_null()).then(|| unsafe { FFI_ArrowSchema::from_raw(schema) });
    let (Some(array), Some(schema)) = (array, schema) else {
        return Err(Failure::invalid("the Arrow array or schema is null"));
    };
    if array.is_released() {
        return Err(Failure::invalid("the Arrow array is released already"));
    }
    if schema.release().is_none() {
        return Err(Failure::invalid("the Arrow schema is released already"));
    }
    // SAFETY: the array follows the C Data Interface for the schema's type, as the
    // caller promises; it is moved into the data, which releases it when dropped.
    let data = unsafe { from_ffi(array, &schema) }
        .map_err(|e| Failure::invalid(format!("the Arrow array cannot be imported: {e}")))?;
    data.validate_full()
        .map_err(|e| Failure::invalid(format!("the Arrow array is not valid: {e}")))?;
    Ok(data)
}

/// A field's values in a batch: views of the imported buffers, and what had to be made
/// anew (unpacked booleans, widened offsets), kept for the batch's lifetime.
pub(crate) enum Part<'a> {
    /// Numbers borrowed from the array.
    Numbers(ColumnData<'a>),
    /// Booleans unpacked from Arrow's bits.
    Bools(Vec<bool>),
    /// Strings: offsets from 0 (borrowed where Arrow's are 64-bit and start at 0) into
    /// the borrowed bytes they cover.
    Strings {
        offsets: Cow<'a, [u64]>,
        bytes: &'a [u8],
    },
    /// Collections: offsets from 0 (borrowed where Arrow's are 64-bit and start at 0)
    /// into the items they cover.
    List {
        offsets: Cow<'a, [u64]>,
        items: Box<Part<'a>>,
    },
    /// `std::array` items.
    Array(Box<Part<'a>>),
    /// Members of a record, pair or tuple.
    Record(Vec<Part<'a>>),
}

impl Part<'_> {
    /// The values as a writer's batch.
    pub(crate) fn view(&self) -> ColumnData<'_> {
        match self {
            Part::Numbers(data) => data.clone(),
            Part::Bools(values) => ColumnData::Bool(values),
            Part::Strings { offsets, bytes } => ColumnData::StringBytes { offsets, bytes },
            Part::List { offsets, items } => ColumnData::list(offsets, items.view()),
            Part::Array(items) => ColumnData::array(items.view()),
            Part::Record(parts) => ColumnData::Record(parts.iter().map(Part::view).collect()),
        }
    }
}

/// The batch `data` (a struct array with one child per field, in order, named as the
/// fields) as one part per field, each checked against its field's type.
pub(crate) fn parts<'a>(fields: &[Field], data: &'a ArrayData) -> Result<Vec<Part<'a>>, Failure> {
    let DataType::Struct(columns) = data.data_type() else {
        return Err(Failure::invalid(format!(
            "the Arrow array is a {}, not a struct array (a record batch)",
            data.data_type()
        )));
    };
    if columns.len() != fields.len() {
        return Err(Failure::invalid(format!(
            "the Arrow batch has {} columns for a model of {} fields",
            columns.len(),
            fields.len()
        )));
    }
    if data.null_count() > 0 {
        return Err(Failure::invalid(format!(
            "the Arrow batch has {} null entries (rows), which no field takes",
            data.null_count()
        )));
    }
    let mut parts = Vec::with_capacity(fields.len());
    for (k, (field, column)) in fields.iter().zip(columns.iter()).enumerate() {
        if column.name() != &field.name {
            return Err(Failure::invalid(format!(
                "column {k} of the Arrow batch is called '{}', field {k} of the model '{}'",
                column.name(),
                field.name
            )));
        }
        // A struct's offset applies to its children as well.
        let child = &data.child_data()[k];
        parts.push(part(
            child,
            &field.ty,
            data.offset(),
            data.len(),
            &field.name,
        )?);
    }
    Ok(parts)
}

/// A failure naming the field, its type and the Arrow type given.
fn mismatch(path: &str, ty: &FieldType, data: &ArrayData) -> Failure {
    let name = match ty.type_name() {
        name if name.is_empty() => "an untyped record or collection".to_string(),
        name => name,
    };
    Failure::invalid(format!(
        "field '{path}': the Arrow column is {} where the field is {name} (Arrow {})",
        data.data_type(),
        arrow_type(ty)
    ))
}

/// The Arrow types a field of type `ty` takes, for messages.
fn arrow_type(ty: &FieldType) -> String {
    match ty {
        FieldType::Bool => "Boolean".into(),
        FieldType::Int8 | FieldType::Char => "Int8".into(),
        FieldType::Int16 => "Int16".into(),
        FieldType::Int32 => "Int32".into(),
        FieldType::Int64 => "Int64".into(),
        FieldType::UInt8 => "UInt8".into(),
        FieldType::UInt16 => "UInt16".into(),
        FieldType::UInt32 => "UInt32".into(),
        FieldType::UInt64 => "UInt64".into(),
        FieldType::Float32 => "Float32".into(),
        FieldType::Float64 => "Float64".into(),
        FieldType::String => "Utf8, LargeUtf8, Binary or LargeBinary".into(),
        FieldType::Vector(item)
        | FieldType::RVec(item)
        | FieldType::Collection(_, item)
        | FieldType::UntypedCollection(item) => {
            format!("List or LargeList of {}", arrow_type(item))
        }
        FieldType::Optional(item) => format!(
            "List or LargeList of {} with 0 or 1 items per entry",
            arrow_type(item)
        ),
        FieldType::Array(item, n) => format!("FixedSizeList of {n} {}", arrow_type(item)),
        FieldType::Pair(..) | FieldType::Tuple(_) | FieldType::Record { .. } => {
            format!("Struct of {} children", ty.children().len())
        }
    }
}

/// Refuses null entries among entries `start..start + len` of `data`.
fn no_nulls(data: &ArrayData, start: usize, len: usize, path: &str) -> Result<(), Failure> {
    let nulls = data.nulls().map_or(0, |n| n.slice(start, len).null_count());
    if nulls > 0 {
        return Err(Failure::invalid(format!(
            "field '{path}': {nulls} null entries: only a std::optional takes nulls, as a \
             list of 0 or 1 items"
        )));
    }
    Ok(())
}

/// `len` values of type `T` from entry `start` of `data`'s first buffer, borrowed.
fn values<T: ArrowNativeType>(data: &ArrayData, start: usize, len: usize) -> &[T] {
    // `buffer` starts at the array's offset; validation checked the buffer's length.
    &data.buffer::<T>(0)[start..start + len]
}

/// The `len + 1` offsets of entries `start..start + len`, moved to start at 0 (as both
/// writers take them), and the range of items (or bytes) they cover. Arrow's 64-bit
/// offsets are borrowed where they start at 0 (validated non-negative, so they are the
/// same bytes as `u64`); 32-bit ones are widened.
fn offsets<'a>(
    data: &'a ArrayData,
    start: usize,
    len: usize,
    path: &str,
) -> Result<(Cow<'a, [u64]>, Range<usize>), Failure> {
    let from = data.offset() + start;
    let large = matches!(
        data.data_type(),
        DataType::LargeList(_) | DataType::LargeUtf8 | DataType::LargeBinary
    );
    let offsets: Cow<'a, [u64]> = if large {
        Cow::Borrowed(&data.buffers()[0].typed_data::<u64>()[from..=from + len])
    } else {
        let narrow = &data.buffers()[0].typed_data::<i32>()[from..=from + len];
        // Validated non-negative.
        Cow::Owned(narrow.iter().map(|&o| o as u64).collect())
    };
    let (first, last) = (offsets[0], offsets[len]);
    let range = usize::try_from(first)
        .ok()
        .zip(usize::try_from(last).ok())
        .map(|(first, last)| first..last)
        .ok_or_else(|| Failure::invalid(format!("field '{path}': offset {last} is too large")))?;
    if first == 0 {
        return Ok((offsets, range));
    }
    let moved = match offsets {
        Cow::Owned(mut owned) => {
            owned.iter_mut().for_each(|o| *o -= first);
            owned
        }
        Cow::Borrowed(borrowed) => borrowed.iter().map(|o| o - first).collect(),
    };
    Ok((Cow::Owned(moved), range))
}

/// Entries `start..start + len` of `data` (counted from its offset) as a part of a field
/// of type `ty` at `path`.
fn part<'a>(
    data: &'a ArrayData,
    ty: &FieldType,
    start: usize,
    len: usize,
    path: &str,
) -> Result<Part<'a>, Failure> {
    use DataType as D;
    let is_optional = matches!(ty, FieldType::Optional(_));
    if !is_optional {
        no_nulls(data, start, len, path)?;
    }
    Ok(match (ty, data.data_type()) {
        (FieldType::Bool, D::Boolean) => {
            let bits = BooleanBuffer::new(data.buffers()[0].clone(), data.offset() + start, len);
            Part::Bools(bits.iter().collect())
        }
        (FieldType::Int8 | FieldType::Char, D::Int8) => {
            Part::Numbers(ColumnData::Int8(values(data, start, len)))
        }
        (FieldType::Int16, D::Int16) => Part::Numbers(ColumnData::Int16(values(data, start, len))),
        (FieldType::Int32, D::Int32) => Part::Numbers(ColumnData::Int32(values(data, start, len))),
        (FieldType::Int64, D::Int64) => Part::Numbers(ColumnData::Int64(values(data, start, len))),
        (FieldType::UInt8, D::UInt8) => Part::Numbers(ColumnData::UInt8(values(data, start, len))),
        (FieldType::UInt16, D::UInt16) => {
            Part::Numbers(ColumnData::UInt16(values(data, start, len)))
        }
        (FieldType::UInt32, D::UInt32) => {
            Part::Numbers(ColumnData::UInt32(values(data, start, len)))
        }
        (FieldType::UInt64, D::UInt64) => {
            Part::Numbers(ColumnData::UInt64(values(data, start, len)))
        }
        (FieldType::Float32, D::Float32) => {
            Part::Numbers(ColumnData::Float32(values(data, start, len)))
        }
        (FieldType::Float64, D::Float64) => {
            Part::Numbers(ColumnData::Float64(values(data, start, len)))
        }
        (FieldType::String, D::Utf8 | D::Binary | D::LargeUtf8 | D::LargeBinary) => {
            let (offsets, bytes) = offsets(data, start, len, path)?;
            Part::Strings {
                offsets,
                // Offsets point into the whole values buffer (the array's offset moves
                // only the offsets); validation checked they lie within it.
                bytes: &data.buffers()[1].as_slice()[bytes],
            }
        }
        (
            FieldType::Vector(item)
            | FieldType::RVec(item)
            | FieldType::UntypedCollection(item)
            | FieldType::Optional(item),
            D::List(_) | D::LargeList(_),
        ) => {
            let (offsets, items) = offsets(data, start, len, path)?;
            if is_optional {
                // A null entry of an optional is an absent value: it must hold no item.
                if let Some(nulls) = data.nulls() {
                    let full = (0..len)
                        .find(|&i| nulls.is_null(start + i) && offsets[i + 1] != offsets[i]);
                    if let Some(i) = full {
                        return Err(Failure::invalid(format!(
                            "field '{path}': entry {i} is null but holds {} items",
                            offsets[i + 1] - offsets[i]
                        )));
                    }
                }
            }
            let child = &data.child_data()[0];
            let path = format!("{path}._0");
            let items = part(child, item, items.start, items.len(), &path)?;
            Part::List {
                offsets,
                items: Box::new(items),
            }
        }
        (FieldType::Array(item, n), D::FixedSizeList(_, size))
            if usize::try_from(*size).ok() == Some(*n) =>
        {
            let overflow = || Failure::invalid(format!("field '{path}': too many items"));
            let first = (data.offset() + start)
                .checked_mul(*n)
                .ok_or_else(overflow)?;
            let count = len.checked_mul(*n).ok_or_else(overflow)?;
            let child = &data.child_data()[0];
            Part::Array(Box::new(part(
                child,
                item,
                first,
                count,
                &format!("{path}._0"),
            )?))
        }
        (
            FieldType::Pair(..) | FieldType::Tuple(_) | FieldType::Record { .. },
            D::Struct(columns),
        ) if columns.len() == ty.children().len() => {
            let members = ty.children();
            let mut parts = Vec::with_capacity(members.len());
            for (k, (member, column)) in members.iter().zip(columns.iter()).enumerate() {
                // A class's members are matched by name; a pair's or tuple's by position.
                let named = matches!(ty, FieldType::Record { .. });
                if named && column.name() != &member.name {
                    return Err(Failure::invalid(format!(
                        "field '{path}': child {k} of the Arrow struct is called '{}', member \
                         {k} '{}'",
                        column.name(),
                        member.name
                    )));
                }
                let child = &data.child_data()[k];
                let path = format!("{path}.{}", member.name);
                parts.push(part(child, &member.ty, data.offset() + start, len, &path)?);
            }
            Part::Record(parts)
        }
        _ => return Err(mismatch(path, ty, data)),
    })
}
