//! Columns handed in by address: a caller's values described by `rw_column` (pointers and
//! lengths, shaped as the field's type) become the writers' batches without a copy, after
//! every length and offset is checked against the type.

use std::ffi::c_void;

use rootweave::rntuple::{ColumnData, Field, FieldType};

use crate::status::Failure;

/// Where a column is in the model, written out only when an error names it (a fill must
/// not format strings).
#[derive(Clone, Copy)]
enum Path<'p> {
    /// A top-level field.
    Field(&'p str),
    /// The items of a collection or array.
    Item(&'p Path<'p>),
    /// A named member of a class.
    Member(&'p Path<'p>, &'p str),
    /// A member of a pair or tuple, by position.
    Position(&'p Path<'p>, usize),
}

impl std::fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Path::Field(name) => write!(f, "{name}"),
            Path::Item(parent) => write!(f, "{parent}._0"),
            Path::Member(parent, name) => write!(f, "{parent}.{name}"),
            Path::Position(parent, k) => write!(f, "{parent}._{k}"),
        }
    }
}

/// The number of members of a class, pair or tuple.
fn member_count(ty: &FieldType) -> usize {
    match ty {
        FieldType::Record { fields, .. } => fields.len(),
        FieldType::Pair(..) => 2,
        FieldType::Tuple(items) => items.len(),
        _ => 0,
    }
}

/// Member `k` of a class, pair or tuple, and where it is.
fn member<'t>(ty: &'t FieldType, k: usize, parent: &'t Path<'t>) -> (&'t FieldType, Path<'t>) {
    match ty {
        FieldType::Record { fields, .. } => (&fields[k].ty, Path::Member(parent, &fields[k].name)),
        FieldType::Pair(a, b) => (if k == 0 { a } else { b }, Path::Position(parent, k)),
        FieldType::Tuple(items) => (&items[k], Path::Position(parent, k)),
        _ => unreachable!("only classes, pairs and tuples have members"),
    }
}

/// One field's values for `length` entries, in the columnar layout its type has:
///
/// - a number: `values` points to `length` values of the C++ type (`bool` as bytes 0 or 1);
/// - `std::string`: `offsets` holds `length + 1` positions (from 0) into the characters at
///   `values`;
/// - `std::vector<T>` and `std::optional<T>` (0 or 1 items): `offsets` holds `length + 1`
///   positions into the items, which are `children[0]`;
/// - `std::array<T,N>`: `children[0]` holds the `length * N` items;
/// - a class, `std::pair` or `std::tuple`: `children` holds one column per member, each of
///   `length` entries.
///
/// Unused pointers may be null. The memory is only read during the call that takes it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rw_column {
    /// Leaf values, or the characters of strings.
    pub values: *const c_void,
    /// `length + 1` non-decreasing positions from 0, for strings and collections.
    pub offsets: *const u64,
    /// The number of entries (of items, for a column of items).
    pub length: usize,
    /// The columns of items or members.
    pub children: *const rw_column,
    /// The number of `children`.
    pub n_children: usize,
}

/// The batches of `fields` from one column each, for `entries` entries.
///
/// # Safety
/// `columns` must point to `n` columns whose pointers are valid for the lengths they
/// claim (lengths and offsets are checked against each other and the type, not the
/// memory behind them), and that memory must stay unchanged during `'a`.
pub(crate) unsafe fn batch<'a>(
    fields: &[Field],
    columns: *const rw_column,
    n: usize,
    entries: usize,
) -> Result<Vec<ColumnData<'a>>, Failure> {
    if n != fields.len() {
        return Err(Failure::invalid(format!(
            "{n} columns given for a model of {} fields",
            fields.len()
        )));
    }
    if n > 0 && columns.is_null() {
        return Err(Failure::invalid("the columns are null"));
    }
    (0..n)
        .map(|i| {
            // SAFETY: `columns` holds `n` columns, as the caller promises.
            let column = unsafe { &*columns.add(i) };
            let field = &fields[i];
            // SAFETY: the column's memory is valid as the caller promises.
            unsafe { data(&field.ty, column, entries, &Path::Field(&field.name)) }
        })
        .collect()
}

/// The slice of `len` values of `T` at `ptr`, checked for null and size.
///
/// # Safety
/// `ptr` must be valid for reads of `len` values of `T` during `'a`.
unsafe fn slice<'a, T>(ptr: *const c_void, len: usize, path: &Path) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Failure::invalid(format!(
            "field '{path}': the values are null"
        )));
    }
    if (ptr as usize) % std::mem::align_of::<T>() != 0 {
        return Err(Failure::invalid(format!(
            "field '{path}': the values are not aligned for their type"
        )));
    }
    if len
        .checked_mul(std::mem::size_of::<T>())
        .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(Failure::invalid(format!(
            "field '{path}': {len} values is too many"
        )));
    }
    // SAFETY: non-null, aligned, within isize::MAX bytes, and valid for `len` reads as the
    // caller promises.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<T>(), len) })
}

/// The `entries + 1` offsets of a column, checked to be non-decreasing; returns them and
/// the item count they need.
///
/// # Safety
/// `column.offsets` must be valid for `entries + 1` reads during `'a`.
unsafe fn offsets<'a>(
    column: &rw_column,
    entries: usize,
    path: &Path,
) -> Result<(&'a [u64], usize), Failure> {
    if column.offsets.is_null() {
        return Err(Failure::invalid(format!(
            "field '{path}': the offsets are null"
        )));
    }
    // SAFETY: `entries + 1` offsets, as the caller promises.
    let offsets: &[u64] = unsafe { slice(column.offsets.cast(), entries + 1, path)? };
    if offsets[0] != 0 {
        return Err(Failure::invalid(format!(
            "field '{path}': the first offset is {}, not 0",
            offsets[0]
        )));
    }
    if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0]) {
        return Err(Failure::invalid(format!(
            "field '{path}': offset {} ({}) is below the one before it ({})",
            i + 1,
            offsets[i + 1],
            offsets[i]
        )));
    }
    let end = offsets[entries];
    let end = usize::try_from(end)
        .map_err(|_| Failure::invalid(format!("field '{path}': offset {end} is too large")))?;
    Ok((offsets, end))
}

/// The `k`-th child of a column.
///
/// # Safety
/// `column.children` must hold `column.n_children` columns.
unsafe fn child<'a>(column: &rw_column, k: usize, path: &Path) -> Result<&'a rw_column, Failure> {
    if k >= column.n_children || column.children.is_null() {
        return Err(Failure::invalid(format!(
            "field '{path}': {} child columns given, {} needed",
            column.n_children,
            k + 1
        )));
    }
    // SAFETY: `k` is below the child count, as checked.
    Ok(unsafe { &*column.children.add(k) })
}

/// A child column checked to have at least `needed` entries.
///
/// # Safety
/// As [`child`].
unsafe fn items<'a>(
    column: &rw_column,
    needed: usize,
    path: &Path,
) -> Result<&'a rw_column, Failure> {
    // SAFETY: as the caller promises.
    let items = unsafe { child(column, 0, path)? };
    if items.length < needed {
        return Err(Failure::invalid(format!(
            "field '{path}': {needed} items needed, the item column has {}",
            items.length
        )));
    }
    Ok(items)
}

/// One column as a batch of a field of type `ty`.
///
/// # Safety
/// As [`batch`].
unsafe fn data<'a>(
    ty: &FieldType,
    column: &rw_column,
    entries: usize,
    path: &Path,
) -> Result<ColumnData<'a>, Failure> {
    if column.length != entries {
        return Err(Failure::invalid(format!(
            "field '{path}': {} entries given where {entries} were expected",
            column.length
        )));
    }
    let values = column.values;
    // SAFETY (all blocks below): pointers valid for the lengths claimed, as the caller
    // promises; lengths checked against each other before use.
    Ok(match ty {
        FieldType::Bool => {
            let bytes: &[u8] = unsafe { slice(values, entries, path)? };
            if let Some(i) = bytes.iter().position(|&b| b > 1) {
                return Err(Failure::invalid(format!(
                    "field '{path}': value {i} is not a bool (byte {})",
                    bytes[i]
                )));
            }
            // SAFETY: every byte is 0 or 1, the two valid bit patterns of `bool`, which has
            // the size and alignment of `u8`.
            ColumnData::Bool(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), entries) })
        }
        FieldType::Int8 | FieldType::Char => {
            ColumnData::Int8(unsafe { slice(values, entries, path)? })
        }
        FieldType::Int16 => ColumnData::Int16(unsafe { slice(values, entries, path)? }),
        FieldType::Int32 => ColumnData::Int32(unsafe { slice(values, entries, path)? }),
        FieldType::Int64 => ColumnData::Int64(unsafe { slice(values, entries, path)? }),
        FieldType::UInt8 => ColumnData::UInt8(unsafe { slice(values, entries, path)? }),
        FieldType::UInt16 => ColumnData::UInt16(unsafe { slice(values, entries, path)? }),
        FieldType::UInt32 => ColumnData::UInt32(unsafe { slice(values, entries, path)? }),
        FieldType::UInt64 => ColumnData::UInt64(unsafe { slice(values, entries, path)? }),
        FieldType::Float32 => ColumnData::Float32(unsafe { slice(values, entries, path)? }),
        FieldType::Float64 => ColumnData::Float64(unsafe { slice(values, entries, path)? }),
        FieldType::String => {
            let (offsets, end) = unsafe { offsets(column, entries, path)? };
            let bytes = unsafe { slice(values, end, path)? };
            ColumnData::StringBytes { offsets, bytes }
        }
        FieldType::Vector(item)
        | FieldType::RVec(item)
        | FieldType::Collection(_, item)
        | FieldType::Optional(item)
        | FieldType::UntypedCollection(item) => {
            let (offsets, end) = unsafe { offsets(column, entries, path)? };
            if matches!(ty, FieldType::Optional(_)) {
                if let Some(i) = offsets.windows(2).position(|w| w[1] - w[0] > 1) {
                    return Err(Failure::invalid(format!(
                        "field '{path}': entry {i} of an optional holds more than one item"
                    )));
                }
            }
            let items = unsafe { items(column, end, path)? };
            let path = Path::Item(path);
            ColumnData::list(offsets, unsafe { data(item, items, items.length, &path)? })
        }
        FieldType::Array(item, n) => {
            let needed = entries
                .checked_mul(*n)
                .ok_or_else(|| Failure::invalid(format!("field '{path}': too many items")))?;
            let items = unsafe { items(column, needed, path)? };
            if items.length != needed {
                return Err(Failure::invalid(format!(
                    "field '{path}': {needed} items needed ({entries} entries of {n}), {} given",
                    items.length
                )));
            }
            let path = Path::Item(path);
            ColumnData::array(unsafe { data(item, items, needed, &path)? })
        }
        FieldType::Pair(..) | FieldType::Tuple(_) | FieldType::Record { .. } => {
            let count = member_count(ty);
            if column.n_children != count {
                return Err(Failure::invalid(format!(
                    "field '{path}': {} member columns given for {count} members",
                    column.n_children,
                )));
            }
            let mut parts = Vec::with_capacity(count);
            for k in 0..count {
                let column = unsafe { child(column, k, path)? };
                let (ty, path) = member(ty, k, path);
                parts.push(unsafe { data(ty, column, entries, &path)? });
            }
            ColumnData::Record(parts)
        }
    })
}
