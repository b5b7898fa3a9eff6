//! A branch's batch as the writer takes it: checked against the branch (number type,
//! fixed-size dimensions, the lists of a counted array), and its values converted to the
//! big-endian bytes baskets hold.

use std::ops::Range;

use super::branch::BranchSpec;
use crate::array::{Array, ColumnData, LeafType, Value};
use crate::error::{Error, Result};

/// A branch's batch, checked against its layout.
pub(super) enum Column<'b, 'a> {
    /// Fixed-size entries: the values, flat, `width` per entry.
    Fixed(&'b ColumnData<'a>, usize),
    /// A counted array: each entry's items, and all items flat.
    Counted {
        offsets: &'a [u64],
        items: &'b ColumnData<'a>,
    },
}

impl<'b, 'a> Column<'b, 'a> {
    pub(super) fn of(spec: &BranchSpec, data: &'b ColumnData<'a>) -> Result<Self> {
        let bad = |m: String| Error::InvalidArgument(format!("extend: branch {}: {m}", spec.name));
        let w = spec.width();
        if spec.counter.is_none() {
            let flat = flatten(spec, data)?;
            if flat_len(flat) % w != 0 {
                return Err(bad(format!(
                    "{} values, not entries of {w}",
                    flat_len(flat)
                )));
            }
            return Ok(Column::Fixed(flat, w));
        }
        let ColumnData::List { offsets, items } = data else {
            return Err(bad(format!(
                "a list per entry is needed, not {}",
                data.kind()
            )));
        };
        let items = flatten(spec, items)?;
        let n = flat_len(items);
        let ordered = offsets.first() == Some(&0) && offsets.windows(2).all(|p| p[0] <= p[1]);
        if !ordered || offsets.last().map(|&l| l as usize * w) != Some(n) {
            return Err(bad(format!("offsets that do not cover its {n} values")));
        }
        Ok(Column::Counted { offsets, items })
    }

    pub(super) fn entries(&self) -> usize {
        match self {
            Column::Fixed(flat, width) => flat_len(flat) / width,
            Column::Counted { offsets, .. } => offsets.len() - 1,
        }
    }

    /// Value `i` of an integer batch (a counter's).
    pub(super) fn int(&self, i: usize) -> Option<i64> {
        let Column::Fixed(flat, _) = self else {
            return None;
        };
        Some(match flat {
            ColumnData::Int8(v) => v[i] as i64,
            ColumnData::Int16(v) => v[i] as i64,
            ColumnData::Int32(v) => v[i] as i64,
            ColumnData::Int64(v) => v[i],
            ColumnData::UInt8(v) => v[i] as i64,
            ColumnData::UInt16(v) => v[i] as i64,
            ColumnData::UInt32(v) => v[i] as i64,
            ColumnData::UInt64(v) => i64::try_from(v[i]).ok()?,
            _ => return None,
        })
    }
}

/// Whether branches of `leaf` values can count another branch's items.
pub(super) fn is_count_type(leaf: LeafType) -> bool {
    !matches!(leaf, LeafType::Bool | LeafType::Float32 | LeafType::Float64)
}

/// The values of a branch's batch, checked against its number type: a fixed-size array
/// (or a counted array's items) may come flat or as nested arrays.
fn flatten<'a, 'b>(spec: &BranchSpec, data: &'b ColumnData<'a>) -> Result<&'b ColumnData<'a>> {
    let mut data = data;
    let mut depth = 0;
    while let ColumnData::Array(items) = data {
        if depth == spec.dims.len() {
            break;
        }
        data = items;
        depth += 1;
    }
    let matches = matches!(
        (spec.leaf, data),
        (LeafType::Bool, ColumnData::Bool(_))
            | (LeafType::Int8, ColumnData::Int8(_))
            | (LeafType::Int16, ColumnData::Int16(_))
            | (LeafType::Int32, ColumnData::Int32(_))
            | (LeafType::Int64, ColumnData::Int64(_))
            | (LeafType::UInt8, ColumnData::UInt8(_))
            | (LeafType::UInt16, ColumnData::UInt16(_))
            | (LeafType::UInt32, ColumnData::UInt32(_))
            | (LeafType::UInt64, ColumnData::UInt64(_))
            | (LeafType::Float32, ColumnData::Float32(_))
            | (LeafType::Float64, ColumnData::Float64(_))
    );
    if !matches {
        return Err(Error::InvalidArgument(format!(
            "extend: branch {} holds {:?} values, not {}",
            spec.name,
            spec.leaf,
            data.kind()
        )));
    }
    Ok(data)
}

/// Number of values of a flat batch of numbers.
fn flat_len(data: &ColumnData) -> usize {
    match data {
        ColumnData::Bool(v) => v.len(),
        ColumnData::Int8(v) => v.len(),
        ColumnData::Int16(v) => v.len(),
        ColumnData::Int32(v) => v.len(),
        ColumnData::Int64(v) => v.len(),
        ColumnData::UInt8(v) => v.len(),
        ColumnData::UInt16(v) => v.len(),
        ColumnData::UInt32(v) => v.len(),
        ColumnData::UInt64(v) => v.len(),
        ColumnData::Float32(v) => v.len(),
        ColumnData::Float64(v) => v.len(),
        _ => 0,
    }
}

/// Appends values `range` of a flat batch of numbers, big-endian.
pub(super) fn append_be(data: &ColumnData, range: Range<usize>, out: &mut Vec<u8>) {
    macro_rules! be {
        ($v:expr) => {
            for x in &$v[range] {
                out.extend_from_slice(&x.to_be_bytes());
            }
        };
    }
    match data {
        ColumnData::Bool(v) => out.extend(v[range].iter().map(|&b| b as u8)),
        ColumnData::Int8(v) => be!(v),
        ColumnData::Int16(v) => be!(v),
        ColumnData::Int32(v) => be!(v),
        ColumnData::Int64(v) => be!(v),
        ColumnData::UInt8(v) => out.extend_from_slice(&v[range]),
        ColumnData::UInt16(v) => be!(v),
        ColumnData::UInt32(v) => be!(v),
        ColumnData::UInt64(v) => be!(v),
        ColumnData::Float32(v) => be!(v),
        ColumnData::Float64(v) => be!(v),
        _ => {}
    }
}

/// The numbers of one entry of a branch given as a [`Value`] (a number, or the items of a
/// list or array, nested for fixed-size dimensions), all of `spec`'s number type, and
/// the offsets of its items (for a counted array's list).
pub(super) fn one_entry(spec: &BranchSpec, value: &Value) -> Result<(Array, [u64; 2])> {
    let mut flat = Vec::new();
    gather(value, &mut flat);
    macro_rules! numbers {
        ($variant:ident) => {
            Array::$variant(
                flat.iter()
                    .map(|v| match v {
                        Value::$variant(x) => Some(*x),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "fill: branch {} holds {:?} values",
                            spec.name, spec.leaf
                        ))
                    })?,
            )
        };
    }
    let entry = match spec.leaf {
        LeafType::Bool => numbers!(Bool),
        LeafType::Int8 => numbers!(Int8),
        LeafType::Int16 => numbers!(Int16),
        LeafType::Int32 => numbers!(Int32),
        LeafType::Int64 => numbers!(Int64),
        LeafType::UInt8 => numbers!(UInt8),
        LeafType::UInt16 => numbers!(UInt16),
        LeafType::UInt32 => numbers!(UInt32),
        LeafType::UInt64 => numbers!(UInt64),
        LeafType::Float32 => numbers!(Float32),
        LeafType::Float64 => numbers!(Float64),
    };
    let items = (flat.len() / spec.width().max(1)) as u64;
    Ok((entry, [0, items]))
}

/// An entry made by [`one_entry`] as a batch for `spec` (a list of it for a counted
/// array).
pub(super) fn entry_batch<'a>(
    spec: &BranchSpec,
    entry: &'a Array,
    offsets: &'a [u64; 2],
) -> ColumnData<'a> {
    let values = match entry {
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
        _ => unreachable!("one_entry makes arrays of numbers only"),
    };
    match spec.counter {
        Some(_) => ColumnData::list(offsets, values),
        None => values,
    }
}

/// The numbers of `value`, depth first.
fn gather<'v>(value: &'v Value, out: &mut Vec<&'v Value>) {
    match value {
        Value::List(items) | Value::Array(items) => items.iter().for_each(|v| gather(v, out)),
        other => out.push(other),
    }
}
