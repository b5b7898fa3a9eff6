//! Moving user values into column buffers: a tree of field nodes mirrors the schema,
//! checks that the values match it, and appends them to the right columns.
//!
//! Every batch is checked completely before anything is appended, so that a batch that
//! does not match the schema leaves the writer unchanged.

use crate::error::{Error, Result};

use super::page::{ColumnBuffer, PageSealer};
use super::schema::{Field, FieldType};
use crate::array::{ColumnData, Value};

#[cfg(not(target_endian = "little"))]
compile_error!("rootweave's writer copies little-endian memory straight into pages");

/// The scalar types that have one value column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scalar {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float32,
    Float64,
}

/// How one field's values reach its columns.
#[derive(Debug)]
enum Kind {
    Scalar { column: usize, scalar: Scalar },
    String { offsets: usize, chars: usize },
    Collection { offsets: usize, item: Box<Node> },
    Optional { offsets: usize, item: Box<Node> },
    Array { size: usize, item: Box<Node> },
    Record { members: Vec<Node> },
}

/// A field of the schema with the columns it writes to.
#[derive(Debug)]
pub struct Node {
    path: String,
    kind: Kind,
}

/// Number of entries appended per step of a large batch, so that pages are sealed and the
/// cluster-size check runs while a batch is being appended.
const STEP_BYTES: usize = 4 << 20;

impl Node {
    /// Builds the nodes of top-level `fields`, numbering columns in schema order.
    pub fn build_all(fields: &[Field]) -> Vec<Node> {
        let mut next_column = 0;
        fields
            .iter()
            .map(|f| Node::build(&f.name, &f.ty, &mut next_column))
            .collect()
    }

    fn build(path: &str, ty: &FieldType, next_column: &mut usize) -> Node {
        fn take(next_column: &mut usize) -> usize {
            let c = *next_column;
            *next_column += 1;
            c
        }
        let scalar = |s| Kind::Scalar {
            column: 0,
            scalar: s,
        };
        let mut kind = match ty {
            FieldType::Bool => scalar(Scalar::Bool),
            FieldType::Int8 | FieldType::Char => scalar(Scalar::Int8),
            FieldType::Int16 => scalar(Scalar::Int16),
            FieldType::Int32 => scalar(Scalar::Int32),
            FieldType::Int64 => scalar(Scalar::Int64),
            FieldType::UInt8 => scalar(Scalar::UInt8),
            FieldType::UInt16 => scalar(Scalar::UInt16),
            FieldType::UInt32 => scalar(Scalar::UInt32),
            FieldType::UInt64 => scalar(Scalar::UInt64),
            FieldType::Float32 => scalar(Scalar::Float32),
            FieldType::Float64 => scalar(Scalar::Float64),
            FieldType::String => {
                let offsets = take(next_column);
                let chars = take(next_column);
                Kind::String { offsets, chars }
            }
            FieldType::Vector(item)
            | FieldType::RVec(item)
            | FieldType::Collection(_, item)
            | FieldType::UntypedCollection(item) => {
                let offsets = take(next_column);
                let item = Box::new(Node::build(&format!("{path}._0"), item, next_column));
                Kind::Collection { offsets, item }
            }
            FieldType::Optional(item) => {
                let offsets = take(next_column);
                let item = Box::new(Node::build(&format!("{path}._0"), item, next_column));
                Kind::Optional { offsets, item }
            }
            FieldType::Array(item, size) => Kind::Array {
                size: *size,
                item: Box::new(Node::build(&format!("{path}._0"), item, next_column)),
            },
            FieldType::Pair(..) | FieldType::Tuple(_) | FieldType::Record { .. } => Kind::Record {
                members: ty
                    .children()
                    .iter()
                    .map(|c| Node::build(&format!("{path}.{}", c.name), &c.ty, next_column))
                    .collect(),
            },
        };
        if let Kind::Scalar { column, .. } = &mut kind {
            *column = take(next_column);
        }
        Node {
            path: path.to_string(),
            kind,
        }
    }

    fn mismatch(&self, got: &str) -> Error {
        Error::InvalidArgument(format!(
            "field '{}': expected {} values, got {got}",
            self.path,
            self.expected()
        ))
    }

    fn expected(&self) -> String {
        match &self.kind {
            Kind::Scalar { scalar, .. } => format!("{scalar:?}").to_lowercase(),
            Kind::String { .. } => "string".into(),
            Kind::Collection { .. } | Kind::Optional { .. } => "list".into(),
            Kind::Array { size, .. } => format!("array (of {size})"),
            Kind::Record { .. } => "record".into(),
        }
    }

    /// Number of entries that `data` holds for this field (`None` for a record without
    /// members, which has no values to count).
    pub fn entries(&self, data: &ColumnData) -> Result<Option<usize>> {
        let n = match (&self.kind, data) {
            (Kind::Scalar { scalar, .. }, d) => {
                Some(scalar_len(*scalar, d).ok_or_else(|| self.mismatch(d.kind()))?)
            }
            (Kind::String { .. }, ColumnData::Strings(s)) => Some(s.len()),
            (Kind::String { .. }, ColumnData::StringBytes { offsets, .. })
            | (Kind::Collection { .. } | Kind::Optional { .. }, ColumnData::List { offsets, .. }) => {
                Some(offsets.len().checked_sub(1).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "field '{}': an offsets array needs n + 1 elements, got none",
                        self.path
                    ))
                })?)
            }
            (Kind::Array { size, item }, ColumnData::Array(items)) => match item.entries(items)? {
                Some(k) if k % size == 0 => Some(k / size),
                Some(k) => {
                    return Err(Error::InvalidArgument(format!(
                        "field '{}': {k} array items is not a multiple of the array size {size}",
                        self.path
                    )))
                }
                None => None,
            },
            (Kind::Record { members }, ColumnData::Record(parts)) => {
                if parts.len() != members.len() {
                    return Err(Error::InvalidArgument(format!(
                        "field '{}': record has {} members, got {} batches",
                        self.path,
                        members.len(),
                        parts.len()
                    )));
                }
                let mut n = None;
                for (m, d) in members.iter().zip(parts.iter()) {
                    if let Some(k) = m.entries(d)? {
                        if n.is_some_and(|n| n != k) {
                            return Err(Error::InvalidArgument(format!(
                                "field '{}': members have different numbers of entries",
                                self.path
                            )));
                        }
                        n = Some(k);
                    }
                }
                n
            }
            (_, d) => return Err(self.mismatch(d.kind())),
        };
        Ok(n)
    }

    /// Checks that `data` matches this field for entries `start..end`: types, lengths and
    /// offsets (non-decreasing and inside the items).
    pub fn check(&self, data: &ColumnData, start: usize, end: usize) -> Result<()> {
        match (&self.kind, data) {
            (Kind::Scalar { scalar, .. }, d) => {
                let len = scalar_len(*scalar, d).ok_or_else(|| self.mismatch(d.kind()))?;
                self.check_len(len, end)
            }
            (Kind::String { .. }, ColumnData::Strings(s)) => self.check_len(s.len(), end),
            (Kind::String { .. }, ColumnData::StringBytes { offsets, bytes }) => {
                self.check_offsets(offsets, start, end, bytes.len())
            }
            (Kind::Collection { item, .. }, ColumnData::List { offsets, items }) => {
                self.check_list(item, offsets, items, start, end)
            }
            (Kind::Optional { item, .. }, ColumnData::List { offsets, items }) => {
                self.check_list(item, offsets, items, start, end)?;
                if let Some(i) = (start..end).find(|&i| offsets[i + 1] - offsets[i] > 1) {
                    return Err(Error::InvalidArgument(format!(
                        "field '{}': entry {i} has {} items, an optional holds at most 1",
                        self.path,
                        offsets[i + 1] - offsets[i]
                    )));
                }
                Ok(())
            }
            (Kind::Array { size, item }, ColumnData::Array(items)) => {
                item.check(items, start * size, end * size)
            }
            (Kind::Record { members }, ColumnData::Record(parts)) => members
                .iter()
                .zip(parts.iter())
                .try_for_each(|(m, d)| m.check(d, start, end)),
            (_, d) => Err(self.mismatch(d.kind())),
        }
    }

    fn check_len(&self, len: usize, end: usize) -> Result<()> {
        if len < end {
            return Err(Error::InvalidArgument(format!(
                "field '{}': {len} values given, {end} needed",
                self.path
            )));
        }
        Ok(())
    }

    fn check_offsets(&self, offsets: &[u64], start: usize, end: usize, items: usize) -> Result<()> {
        if offsets.len() < end + 1 {
            return Err(Error::InvalidArgument(format!(
                "field '{}': {} offsets given, {} needed",
                self.path,
                offsets.len(),
                end + 1
            )));
        }
        let window = &offsets[start..=end];
        if let Some(i) = window.windows(2).position(|w| w[1] < w[0]) {
            return Err(Error::InvalidArgument(format!(
                "field '{}': offsets decrease at entry {}",
                self.path,
                start + i
            )));
        }
        if window[window.len() - 1] > items as u64 {
            return Err(Error::InvalidArgument(format!(
                "field '{}': offsets reach {} but only {items} items are given",
                self.path,
                window[window.len() - 1]
            )));
        }
        Ok(())
    }

    fn check_list(
        &self,
        item: &Node,
        offsets: &[u64],
        items: &ColumnData,
        start: usize,
        end: usize,
    ) -> Result<()> {
        let available = item.entries(items)?.unwrap_or(usize::MAX);
        self.check_offsets(offsets, start, end, available)?;
        item.check(items, offsets[start] as usize, offsets[end] as usize)
    }

    /// In-memory bytes that entries `start..end` of `data` add to the columns (checked data).
    pub fn bytes(&self, data: &ColumnData, start: usize, end: usize) -> usize {
        let n = end - start;
        match (&self.kind, data) {
            (Kind::Scalar { scalar, .. }, _) => n * scalar_width(*scalar),
            (Kind::String { .. }, ColumnData::Strings(s)) => {
                n * 8 + s[start..end].iter().map(String::len).sum::<usize>()
            }
            (Kind::String { .. }, ColumnData::StringBytes { offsets, .. }) => {
                n * 8 + (offsets[end] - offsets[start]) as usize
            }
            (
                Kind::Collection { item, .. } | Kind::Optional { item, .. },
                ColumnData::List { offsets, items },
            ) => n * 8 + item.bytes(items, offsets[start] as usize, offsets[end] as usize),
            (Kind::Array { size, item }, ColumnData::Array(items)) => {
                item.bytes(items, start * size, end * size)
            }
            (Kind::Record { members }, ColumnData::Record(parts)) => members
                .iter()
                .zip(parts.iter())
                .map(|(m, d)| m.bytes(d, start, end))
                .sum(),
            _ => 0,
        }
    }

    /// Appends entries `start..end` of checked `data` to the columns.
    pub fn append(
        &self,
        data: &ColumnData,
        start: usize,
        end: usize,
        columns: &mut [ColumnBuffer],
        sealer: &mut PageSealer,
    ) {
        match (&self.kind, data) {
            (Kind::Scalar { column, .. }, d) => {
                push_scalars(&mut columns[*column], d, start, end, sealer)
            }
            (Kind::String { offsets, chars }, ColumnData::Strings(s)) => {
                let strings = &s[start..end];
                push_index(
                    &mut columns[*offsets],
                    strings.iter().map(|s| s.len() as u64),
                    sealer,
                );
                for s in strings {
                    columns[*chars].push(s.as_bytes(), sealer);
                }
            }
            (Kind::String { offsets, chars }, ColumnData::StringBytes { offsets: o, bytes }) => {
                push_index(
                    &mut columns[*offsets],
                    o[start..=end].windows(2).map(|w| w[1] - w[0]),
                    sealer,
                );
                columns[*chars].push(&bytes[o[start] as usize..o[end] as usize], sealer);
            }
            (
                Kind::Collection { offsets, item } | Kind::Optional { offsets, item },
                ColumnData::List { offsets: o, items },
            ) => {
                push_index(
                    &mut columns[*offsets],
                    o[start..=end].windows(2).map(|w| w[1] - w[0]),
                    sealer,
                );
                item.append(items, o[start] as usize, o[end] as usize, columns, sealer);
            }
            (Kind::Array { size, item }, ColumnData::Array(items)) => {
                item.append(items, start * size, end * size, columns, sealer)
            }
            (Kind::Record { members }, ColumnData::Record(parts)) => {
                for (m, d) in members.iter().zip(parts.iter()) {
                    m.append(d, start, end, columns, sealer);
                }
            }
            _ => unreachable!("append is only called on checked data"),
        }
    }

    /// Checks one entry's value against this field.
    pub fn check_value(&self, value: &Value) -> Result<()> {
        match (&self.kind, value) {
            (Kind::Scalar { scalar, .. }, v) => {
                if value_scalar(v) == Some(*scalar) {
                    Ok(())
                } else {
                    Err(self.mismatch(value_kind(v)))
                }
            }
            (Kind::String { .. }, Value::String(_)) => Ok(()),
            (Kind::Collection { item, .. }, Value::List(items)) => {
                items.iter().try_for_each(|v| item.check_value(v))
            }
            (Kind::Optional { item, .. }, Value::Optional(v)) => {
                v.as_deref().map_or(Ok(()), |v| item.check_value(v))
            }
            (Kind::Array { size, item }, Value::Array(items)) => {
                if items.len() != *size {
                    return Err(Error::InvalidArgument(format!(
                        "field '{}': array of {size} given {} items",
                        self.path,
                        items.len()
                    )));
                }
                items.iter().try_for_each(|v| item.check_value(v))
            }
            (Kind::Record { members }, Value::Record(parts)) => {
                if parts.len() != members.len() {
                    return Err(Error::InvalidArgument(format!(
                        "field '{}': record has {} members, got {} values",
                        self.path,
                        members.len(),
                        parts.len()
                    )));
                }
                members
                    .iter()
                    .zip(parts)
                    .try_for_each(|(m, v)| m.check_value(v))
            }
            (_, v) => Err(self.mismatch(value_kind(v))),
        }
    }

    /// Appends one checked value.
    pub fn append_value(
        &self,
        value: &Value,
        columns: &mut [ColumnBuffer],
        sealer: &mut PageSealer,
    ) {
        match (&self.kind, value) {
            (Kind::Scalar { column, .. }, v) => {
                let mut bytes = [0u8; 8];
                let len = scalar_value_bytes(v, &mut bytes);
                columns[*column].push(&bytes[..len], sealer);
            }
            (Kind::String { offsets, chars }, Value::String(s)) => {
                push_index(&mut columns[*offsets], [s.len() as u64], sealer);
                columns[*chars].push(s.as_bytes(), sealer);
            }
            (Kind::Collection { offsets, item }, Value::List(items)) => {
                push_index(&mut columns[*offsets], [items.len() as u64], sealer);
                for v in items {
                    item.append_value(v, columns, sealer);
                }
            }
            (Kind::Optional { offsets, item }, Value::Optional(v)) => {
                push_index(&mut columns[*offsets], [v.is_some() as u64], sealer);
                if let Some(v) = v {
                    item.append_value(v, columns, sealer);
                }
            }
            (Kind::Array { item, .. }, Value::Array(items)) => {
                for v in items {
                    item.append_value(v, columns, sealer);
                }
            }
            (Kind::Record { members }, Value::Record(parts)) => {
                for (m, v) in members.iter().zip(parts) {
                    m.append_value(v, columns, sealer);
                }
            }
            _ => unreachable!("append_value is only called on checked values"),
        }
    }
}

/// Entries per append step for a batch of `total_bytes` over `n` entries, with steps of
/// at most `max_step_bytes` (and never more than [`STEP_BYTES`]).
pub fn step_entries(n: usize, total_bytes: usize, max_step_bytes: usize) -> usize {
    let step_bytes = max_step_bytes.clamp(1, STEP_BYTES);
    if total_bytes <= step_bytes {
        n.max(1)
    } else {
        ((n as u128 * step_bytes as u128 / total_bytes as u128) as usize).max(1)
    }
}

/// Appends the cluster-relative end offsets of entries with the given item counts.
fn push_index(
    column: &mut ColumnBuffer,
    counts: impl IntoIterator<Item = u64>,
    sealer: &mut PageSealer,
) {
    const CHUNK: usize = 4096;
    // Left uninitialised: zeroing 32 KiB per call cost more than the rest of a one-entry
    // append of a NanoAOD-like event.
    let mut buf = [std::mem::MaybeUninit::<u64>::uninit(); CHUNK];
    let mut n = 0;
    let mut end = column.index_end;
    for count in counts {
        end += count;
        buf[n].write(end);
        n += 1;
        if n == CHUNK {
            column.index_end = end;
            // SAFETY: the loop wrote `buf[0..n]`.
            column.push(bytemuck::cast_slice(unsafe { written(&buf, n) }), sealer);
            n = 0;
        }
    }
    column.index_end = end;
    if n > 0 {
        // SAFETY: the loop wrote `buf[0..n]`.
        column.push(bytemuck::cast_slice(unsafe { written(&buf, n) }), sealer);
    }
}

/// The first `n` values of `buf`.
///
/// # Safety
/// The first `n` values of `buf` must have been written.
unsafe fn written(buf: &[std::mem::MaybeUninit<u64>], n: usize) -> &[u64] {
    assert!(n <= buf.len());
    // SAFETY: `MaybeUninit<u64>` has the layout of `u64`, `n` is within the buffer, the
    // first `n` values are initialised (the caller's promise), and the slice borrows
    // `buf`, so nothing writes it meanwhile.
    unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u64>(), n) }
}

fn push_scalars(
    column: &mut ColumnBuffer,
    data: &ColumnData,
    start: usize,
    end: usize,
    sealer: &mut PageSealer,
) {
    match data {
        ColumnData::Bool(v) => {
            for chunk in v[start..end].chunks(4096) {
                let bytes: Vec<u8> = chunk.iter().map(|&b| b as u8).collect();
                column.push(&bytes, sealer);
            }
        }
        ColumnData::Int8(v) => column.push(bytemuck::cast_slice(&v[start..end]), sealer),
        ColumnData::Int16(v) => column.push(bytemuck::cast_slice(&v[start..end]), sealer),
        ColumnData::Int32(v) => column.push(bytemuck::cast_slice(&v[start..end]), sealer),
        ColumnData::Int64(v) => column.push(bytemuck::cast_slice(&v[start..end]), sealer),
        ColumnData::UInt8(v) => column.push(&v[start..end], sealer),
        ColumnData::UInt16(v) => column.push(bytemuck::cast_slice(&v[start..end]), sealer),
        ColumnData::UInt32(v) => column.push(bytemuck::cast_slice(&v[start..end]), sealer),
        ColumnData::UInt64(v) => column.push(bytemuck::cast_slice(&v[start..end]), sealer),
        ColumnData::Float32(v) => column.push(bytemuck::cast_slice(&v[start..end]), sealer),
        ColumnData::Float64(v) => column.push(bytemuck::cast_slice(&v[start..end]), sealer),
        _ => unreachable!("scalar data was checked"),
    }
}

fn scalar_len(scalar: Scalar, data: &ColumnData) -> Option<usize> {
    Some(match (scalar, data) {
        (Scalar::Bool, ColumnData::Bool(v)) => v.len(),
        (Scalar::Int8, ColumnData::Int8(v)) => v.len(),
        (Scalar::Int16, ColumnData::Int16(v)) => v.len(),
        (Scalar::Int32, ColumnData::Int32(v)) => v.len(),
        (Scalar::Int64, ColumnData::Int64(v)) => v.len(),
        (Scalar::UInt8, ColumnData::UInt8(v)) => v.len(),
        (Scalar::UInt16, ColumnData::UInt16(v)) => v.len(),
        (Scalar::UInt32, ColumnData::UInt32(v)) => v.len(),
        (Scalar::UInt64, ColumnData::UInt64(v)) => v.len(),
        (Scalar::Float32, ColumnData::Float32(v)) => v.len(),
        (Scalar::Float64, ColumnData::Float64(v)) => v.len(),
        _ => return None,
    })
}

fn scalar_width(scalar: Scalar) -> usize {
    match scalar {
        Scalar::Bool | Scalar::Int8 | Scalar::UInt8 => 1,
        Scalar::Int16 | Scalar::UInt16 => 2,
        Scalar::Int32 | Scalar::UInt32 | Scalar::Float32 => 4,
        Scalar::Int64 | Scalar::UInt64 | Scalar::Float64 => 8,
    }
}

fn value_scalar(value: &Value) -> Option<Scalar> {
    Some(match value {
        Value::Bool(_) => Scalar::Bool,
        Value::Int8(_) => Scalar::Int8,
        Value::Int16(_) => Scalar::Int16,
        Value::Int32(_) => Scalar::Int32,
        Value::Int64(_) => Scalar::Int64,
        Value::UInt8(_) => Scalar::UInt8,
        Value::UInt16(_) => Scalar::UInt16,
        Value::UInt32(_) => Scalar::UInt32,
        Value::UInt64(_) => Scalar::UInt64,
        Value::Float32(_) => Scalar::Float32,
        Value::Float64(_) => Scalar::Float64,
        _ => return None,
    })
}

fn value_kind(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "string",
        Value::List(_) => "list",
        Value::Array(_) => "array",
        Value::Optional(_) => "optional",
        Value::Record(_) => "record",
        Value::Variant(_) => "variant",
        _ => "a different scalar type",
    }
}

fn scalar_value_bytes(value: &Value, out: &mut [u8; 8]) -> usize {
    fn put<const N: usize>(out: &mut [u8; 8], bytes: [u8; N]) -> usize {
        out[..N].copy_from_slice(&bytes);
        N
    }
    match value {
        Value::Bool(v) => put(out, [*v as u8]),
        Value::Int8(v) => put(out, v.to_le_bytes()),
        Value::Int16(v) => put(out, v.to_le_bytes()),
        Value::Int32(v) => put(out, v.to_le_bytes()),
        Value::Int64(v) => put(out, v.to_le_bytes()),
        Value::UInt8(v) => put(out, [*v]),
        Value::UInt16(v) => put(out, v.to_le_bytes()),
        Value::UInt32(v) => put(out, v.to_le_bytes()),
        Value::UInt64(v) => put(out, v.to_le_bytes()),
        Value::Float32(v) => put(out, v.to_le_bytes()),
        Value::Float64(v) => put(out, v.to_le_bytes()),
        _ => unreachable!("scalar value was checked"),
    }
}
