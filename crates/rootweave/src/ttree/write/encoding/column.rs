//! A branch's batch as the writer takes it: checked against the branch (number types,
//! fixed-size dimensions, lists and strings where the branch holds them), and its entries
//! converted to the big-endian bytes baskets hold.

use std::ops::Range;

use crate::array::{ColumnData, LeafType};
use crate::error::{Error, Result};
use crate::streamer::tags::BYTE_COUNT_MASK;
use crate::ttree::write::branches::branch::{BranchKind, BranchSpec, ElementClass, LeafSpec};
use crate::ttree::write::encoding::object_column::PartColumn;

/// The header ROOT streams before a collection object: a byte count, then the version
/// of the collection's streaming (10 for `std::vector` in ROOT 6.40's files).
const COLLECTION_VERSION: u16 = 10;

/// A branch's batch, checked against its layout.
pub(in crate::ttree::write) enum Column<'b, 'a> {
    /// Fixed-size entries: each leaf's values, flat, and its values per entry.
    Fixed(Vec<(&'b ColumnData<'a>, usize)>),
    /// A counted array: each entry's items, all items flat, and values per item.
    Counted {
        offsets: &'a [u64],
        items: &'b ColumnData<'a>,
        width: usize,
    },
    /// A string per entry (a C string or a `std::string`).
    Strings(Strings<'a>),
    /// A `std::vector` of numbers per entry.
    Vector {
        offsets: &'a [u64],
        items: &'b ColumnData<'a>,
    },
    /// A `std::vector<std::vector<T>>` per entry.
    VectorVector {
        offsets: &'a [u64],
        inner: &'a [u64],
        items: &'b ColumnData<'a>,
    },
    /// A `std::vector<std::string>` per entry.
    VectorString {
        offsets: &'a [u64],
        strings: Strings<'a>,
    },
    /// A branch of an object branch's layout (see [`crate::ttree::write::encoding::object_column`]).
    Object(PartColumn<'b, 'a>),
}

/// Strings given either way a batch holds them.
#[derive(Clone, Copy)]
pub(in crate::ttree::write) enum Strings<'a> {
    Owned(&'a [String]),
    Bytes { offsets: &'a [u64], bytes: &'a [u8] },
}

impl<'a> Strings<'a> {
    pub(in crate::ttree::write) fn of(data: &ColumnData<'a>) -> Option<Self> {
        match data {
            ColumnData::Strings(s) => Some(Strings::Owned(s)),
            ColumnData::StringBytes { offsets, bytes } => Some(Strings::Bytes { offsets, bytes }),
            _ => None,
        }
    }

    pub(in crate::ttree::write) fn len(&self) -> usize {
        match self {
            Strings::Owned(s) => s.len(),
            Strings::Bytes { offsets, .. } => offsets.len().saturating_sub(1),
        }
    }

    pub(in crate::ttree::write) fn get(&self, i: usize) -> &'a [u8] {
        match *self {
            Strings::Owned(s) => s[i].as_bytes(),
            Strings::Bytes { offsets, bytes } => {
                &bytes[offsets[i] as usize..offsets[i + 1] as usize]
            }
        }
    }

    /// Bytes of all the strings.
    pub(in crate::ttree::write) fn total_bytes(&self) -> usize {
        match self {
            Strings::Owned(s) => s.iter().map(String::len).sum(),
            Strings::Bytes { bytes, .. } => bytes.len(),
        }
    }

    /// Checks that the offsets are ordered and inside the bytes.
    pub(in crate::ttree::write) fn check(&self) -> bool {
        match self {
            Strings::Bytes { offsets, bytes } => ordered(offsets, bytes.len()),
            _ => true,
        }
    }
}

/// Whether `offsets` start at 0, never decrease and end at `len` (or are empty).
fn ordered(offsets: &[u64], len: usize) -> bool {
    offsets.is_empty() && len == 0
        || offsets.first() == Some(&0)
            && offsets.windows(2).all(|p| p[0] <= p[1])
            && offsets.last() == Some(&(len as u64))
}

impl<'b, 'a> Column<'b, 'a> {
    /// Checks `data` against branch `spec`.
    pub(in crate::ttree::write) fn of(spec: &BranchSpec, data: &'b ColumnData<'a>) -> Result<Self> {
        let bad = |m: String| Error::InvalidArgument(format!("extend: branch {}: {m}", spec.name));
        let list = |data: &'b ColumnData<'a>, what: &str| match data {
            ColumnData::List { offsets, items } => Ok((*offsets, items.as_ref())),
            other => Err(bad(format!(
                "{what} per entry is needed, not {}",
                other.kind()
            ))),
        };
        let strings = |data: &'b ColumnData<'a>, n: Option<usize>| {
            let s = Strings::of(data)
                .ok_or_else(|| bad(format!("strings are needed, not {}", data.kind())))?;
            if !s.check() || n.is_some_and(|n| n != s.len()) {
                return Err(bad("string offsets that do not cover its bytes".into()));
            }
            Ok(s)
        };
        let covering = |offsets: &[u64], n: usize| {
            if ordered(offsets, n) {
                Ok(())
            } else {
                Err(bad(format!("offsets that do not cover its {n} items")))
            }
        };
        match &spec.kind {
            BranchKind::Leaves {
                leaves,
                counter: None,
            } => {
                let members: Vec<&'b ColumnData<'a>> = match (leaves.len(), data) {
                    (1, _) => vec![data],
                    (n, ColumnData::Record(m)) if m.len() == n => m.iter().collect(),
                    (n, other) => {
                        return Err(bad(format!(
                            "a record of {n} members is needed for its leaves, not {}",
                            other.kind()
                        )))
                    }
                };
                let mut out = Vec::with_capacity(leaves.len());
                let mut entries = None;
                for (leaf, data) in leaves.iter().zip(members) {
                    let flat = flatten(spec, leaf, data)?;
                    let w = leaf.width();
                    let n = flat_len(flat);
                    if n % w != 0 || entries.is_some_and(|e| e != n / w) {
                        return Err(bad(format!(
                            "leaf {}: {n} values, not {} entries of {w}",
                            leaf.name,
                            entries.unwrap_or(n / w)
                        )));
                    }
                    entries = Some(n / w);
                    out.push((flat, w));
                }
                Ok(Column::Fixed(out))
            }
            BranchKind::Leaves {
                leaves,
                counter: Some(_),
            } => {
                let (offsets, items) = list(data, "a list")?;
                let items = flatten(spec, &leaves[0], items)?;
                let w = leaves[0].width();
                let n = flat_len(items);
                if n % w != 0 {
                    return Err(bad(format!("{n} values, not items of {w}")));
                }
                covering(offsets, n / w)?;
                Ok(Column::Counted {
                    offsets,
                    items,
                    width: w,
                })
            }
            BranchKind::CharStar => {
                let s = strings(data, None)?;
                for i in 0..s.len() {
                    if s.get(i).contains(&0) {
                        return Err(bad(format!("string {i} holds a NUL character")));
                    }
                }
                Ok(Column::Strings(s))
            }
            BranchKind::Element(ElementClass::String | ElementClass::TString) => {
                Ok(Column::Strings(strings(data, None)?))
            }
            BranchKind::Element(
                ElementClass::Vector(leaf)
                | ElementClass::LongVector(leaf)
                | ElementClass::Collection(_, leaf, _),
            ) => {
                let (offsets, items) = list(data, "a list")?;
                let items = numbers(spec, *leaf, items)?;
                covering(offsets, flat_len(items))?;
                Ok(Column::Vector { offsets, items })
            }
            BranchKind::Element(
                ElementClass::VectorVector(leaf) | ElementClass::LongVectorVector(leaf),
            ) => {
                let (offsets, lists) = list(data, "a list of lists")?;
                let (inner, items) = list(lists, "a list of lists")?;
                let items = numbers(spec, *leaf, items)?;
                covering(inner, flat_len(items))?;
                covering(offsets, inner.len().saturating_sub(1))?;
                Ok(Column::VectorVector {
                    offsets,
                    inner,
                    items,
                })
            }
            BranchKind::Element(ElementClass::VectorString | ElementClass::StringCollection(_)) => {
                let (offsets, items) = list(data, "a list of strings")?;
                let strings = strings(items, None)?;
                covering(offsets, strings.len())?;
                Ok(Column::VectorString { offsets, strings })
            }
            BranchKind::Object { .. } | BranchKind::ClassPart(_) => {
                Err(bad("an object branch's batch is split by its layout".into()))
            }
        }
    }

    pub(in crate::ttree::write) fn entries(&self) -> usize {
        match self {
            Column::Fixed(leaves) => leaves
                .first()
                .map_or(0, |(flat, width)| flat_len(flat) / width),
            Column::Strings(s) => s.len(),
            Column::Counted { offsets, .. }
            | Column::Vector { offsets, .. }
            | Column::VectorVector { offsets, .. }
            | Column::VectorString { offsets, .. } => offsets.len().saturating_sub(1),
            Column::Object(part) => part.entries(),
        }
    }

    /// Bytes the batch's entries take in baskets, about (strings and collections with
    /// their headers, entries of varying size with their 4-byte place in the basket's
    /// entry-offset table): what a writer reserves memory for.
    pub(in crate::ttree::write) fn bytes(&self) -> usize {
        let offsets = 4 * self.entries();
        match self {
            Column::Fixed(leaves) => leaves.iter().map(|(d, _)| data_bytes(d)).sum(),
            Column::Counted { items, .. } => data_bytes(items) + offsets,
            Column::Strings(s) => s.total_bytes() + 5 * s.len() + offsets,
            Column::Vector { offsets: o, items } => data_bytes(items) + 10 * o.len() + offsets,
            Column::VectorVector {
                offsets: o,
                inner,
                items,
            } => data_bytes(items) + 10 * o.len() + 4 * inner.len() + offsets,
            Column::VectorString {
                offsets: o,
                strings,
            } => strings.total_bytes() + 5 * strings.len() + 10 * o.len() + offsets,
            Column::Object(part) => part.bytes(),
        }
    }

    /// Value `i` of an integer batch (a counter's).
    pub(in crate::ttree::write) fn int(&self, i: usize) -> Option<i64> {
        let leaves = match self {
            Column::Fixed(leaves) => leaves,
            Column::Object(part) => return part.count(i),
            _ => return None,
        };
        Some(match leaves.first()?.0 {
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

    /// Bytes of the longest string of entries `range`, for a branch of strings.
    pub(in crate::ttree::write) fn longest(&self, range: Range<usize>) -> usize {
        match self {
            Column::Strings(s) => range.map(|i| s.get(i).len()).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// Appends fixed-size entries `range`, big-endian: each leaf's values of an entry in
    /// turn (the whole range at once for a single leaf).
    pub(in crate::ttree::write) fn append_fixed(&self, range: Range<usize>, out: &mut Vec<u8>) {
        let Column::Fixed(leaves) = self else {
            return;
        };
        if let [(flat, w)] = leaves[..] {
            append_be(flat, range.start * w..range.end * w, out);
            return;
        }
        for e in range {
            for &(flat, w) in leaves {
                append_be(flat, e * w..(e + 1) * w, out);
            }
        }
    }

    /// Appends entry `e` of a branch of entries of varying size, as ROOT streams it.
    pub(in crate::ttree::write) fn append_entry(&self, e: usize, out: &mut Vec<u8>) -> Result<()> {
        let span = |o: &[u64], i: usize| o[i] as usize..o[i + 1] as usize;
        match self {
            Column::Fixed(_) => self.append_fixed(e..e + 1, out),
            Column::Counted {
                offsets,
                items,
                width,
            } => {
                let r = span(offsets, e);
                append_be(items, r.start * width..r.end * width, out);
            }
            Column::Strings(s) => append_string(s.get(e), out),
            Column::Vector { offsets, items } => {
                let r = span(offsets, e);
                let at = begin_collection(r.len(), out);
                append_be(items, r, out);
                end_collection(at, out)?;
            }
            Column::VectorVector {
                offsets,
                inner,
                items,
            } => {
                let r = span(offsets, e);
                let at = begin_collection(r.len(), out);
                for i in r {
                    let items_range = span(inner, i);
                    out.extend_from_slice(&(items_range.len() as u32).to_be_bytes());
                    append_be(items, items_range, out);
                }
                end_collection(at, out)?;
            }
            Column::VectorString { offsets, strings } => {
                let r = span(offsets, e);
                let at = begin_collection(r.len(), out);
                for i in r {
                    append_string(strings.get(i), out);
                }
                end_collection(at, out)?;
            }
            Column::Object(part) => part.append_entry(e, out)?,
        }
        Ok(())
    }
}

/// Starts a collection of `n` items (byte count to be filled, version, size); returns
/// where its byte count is.
pub(in crate::ttree::write) fn begin_collection(n: usize, out: &mut Vec<u8>) -> usize {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&COLLECTION_VERSION.to_be_bytes());
    out.extend_from_slice(&(n as u32).to_be_bytes());
    at
}

/// Fills the byte count of the collection started at `at`.
pub(in crate::ttree::write) fn end_collection(at: usize, out: &mut [u8]) -> Result<()> {
    let count = out.len() - at - 4;
    if count >= BYTE_COUNT_MASK as usize {
        return Err(Error::InvalidArgument(format!(
            "extend: an entry of {count} bytes (ROOT's byte counts end at 1 GiB)"
        )));
    }
    out[at..at + 4].copy_from_slice(&(count as u32 | BYTE_COUNT_MASK).to_be_bytes());
    Ok(())
}

/// A string as ROOT streams it: its length in one byte (255 and four bytes from 255 on),
/// then its bytes.
pub(in crate::ttree::write) fn append_string(s: &[u8], out: &mut Vec<u8>) {
    if s.len() < 255 {
        out.push(s.len() as u8);
    } else {
        out.push(255);
        out.extend_from_slice(&(s.len() as u32).to_be_bytes());
    }
    out.extend_from_slice(s);
}

/// The values of a leaf's batch, checked against its number type: a fixed-size array
/// (or a counted array's items) may come flat or as nested arrays.
fn flatten<'a, 'b>(
    spec: &BranchSpec,
    leaf: &LeafSpec,
    data: &'b ColumnData<'a>,
) -> Result<&'b ColumnData<'a>> {
    let mut data = data;
    let mut depth = 0;
    while let ColumnData::Array(items) = data {
        if depth == leaf.dims.len() {
            break;
        }
        data = items;
        depth += 1;
    }
    numbers(spec, leaf.leaf, data)
}

/// `data` if it holds numbers of type `leaf`.
fn numbers<'a, 'b>(
    spec: &BranchSpec,
    leaf: LeafType,
    data: &'b ColumnData<'a>,
) -> Result<&'b ColumnData<'a>> {
    numbers_of(leaf, data).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "extend: branch {} holds {:?} values, not {}",
            spec.name,
            leaf,
            data.kind()
        ))
    })
}

/// `data` if it holds numbers of type `leaf`.
pub(in crate::ttree::write) fn numbers_of<'a, 'b>(
    leaf: LeafType,
    data: &'b ColumnData<'a>,
) -> Option<&'b ColumnData<'a>> {
    let matches = matches!(
        (leaf, data),
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
    matches.then_some(data)
}

/// Number of values of a flat batch of numbers.
pub(in crate::ttree::write) fn flat_len(data: &ColumnData) -> usize {
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

/// Bytes of a flat batch of numbers.
pub(in crate::ttree::write) fn data_bytes(data: &ColumnData) -> usize {
    let width = match data {
        ColumnData::Bool(_) | ColumnData::Int8(_) | ColumnData::UInt8(_) => 1,
        ColumnData::Int16(_) | ColumnData::UInt16(_) => 2,
        ColumnData::Int32(_) | ColumnData::UInt32(_) | ColumnData::Float32(_) => 4,
        _ => 8,
    };
    flat_len(data) * width
}

/// Appends values `range` of a flat batch of numbers, big-endian.
pub(in crate::ttree::write) fn append_be(
    data: &ColumnData,
    range: Range<usize>,
    out: &mut Vec<u8>,
) {
    match data {
        ColumnData::Bool(v) => out.extend(v[range].iter().map(|&b| b as u8)),
        ColumnData::Int8(v) => extend_be(&v[range], i8::to_be_bytes, out),
        ColumnData::Int16(v) => extend_be(&v[range], i16::to_be_bytes, out),
        ColumnData::Int32(v) => extend_be(&v[range], i32::to_be_bytes, out),
        ColumnData::Int64(v) => extend_be(&v[range], i64::to_be_bytes, out),
        ColumnData::UInt8(v) => out.extend_from_slice(&v[range]),
        ColumnData::UInt16(v) => extend_be(&v[range], u16::to_be_bytes, out),
        ColumnData::UInt32(v) => extend_be(&v[range], u32::to_be_bytes, out),
        ColumnData::UInt64(v) => extend_be(&v[range], u64::to_be_bytes, out),
        ColumnData::Float32(v) => extend_be(&v[range], f32::to_be_bytes, out),
        ColumnData::Float64(v) => extend_be(&v[range], f64::to_be_bytes, out),
        _ => {}
    }
}

/// Appends `values` in the bytes `to_be` gives each: room for all of them first, then one
/// fixed-size copy per value, a loop without capacity checks that compiles to byte shuffles.
fn extend_be<T: Copy, const W: usize>(
    values: &[T],
    to_be: impl Fn(T) -> [u8; W],
    out: &mut Vec<u8>,
) {
    let start = out.len();
    out.resize(start + values.len() * W, 0);
    for (to, &x) in out[start..].chunks_exact_mut(W).zip(values) {
        to.copy_from_slice(&to_be(x));
    }
}
