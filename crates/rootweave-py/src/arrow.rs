//! Arrays handed to Arrow consumers (pyarrow, Polars, ...) through the Arrow C data
//! interface and its PyCapsule protocol (`__arrow_c_array__`): the values' memory is
//! shared with the consumer, not copied, wherever Arrow's layout is ours (numbers, offsets,
//! string bytes). Booleans are packed into bits, optional values spread out with a
//! validity bitmap and variant indices narrowed to 32 bits, as Arrow lays them out.
//!
//! Lists become large lists (64-bit offsets, as ours), strings large strings (large
//! binary where the bytes are not UTF-8), fixed-size arrays fixed-size lists, records
//! structs, optionals nullable values, variants dense unions whose first member, `empty`,
//! of type null, stands for a variant that holds nothing.

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use arrow_data::ffi::FFI_ArrowArray;
use arrow_data::ArrayData;
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{ArrowError, DataType, Field, Fields, UnionFields, UnionMode};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use rootweave::array::Array;
use rootweave::array::Recycler;
use rootweave::dataset::BatchSource;

/// A batch of named arrays as one Arrow struct array (a record batch), exported through
/// the Arrow PyCapsule interface: `pyarrow.record_batch(batch)` takes it without copying.
#[pyclass(module = "rootweave._rootweave", frozen)]
pub struct ArrowBatch {
    data: ArrayData,
}

#[pymethods]
impl ArrowBatch {
    /// The Arrow PyCapsule protocol: `(schema capsule, array capsule)`. A requested
    /// schema other than the batch's own is not supported (consumers then cast).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let schema = FFI_ArrowSchema::try_from(self.data.data_type()).map_err(to_py)?;
        let array = FFI_ArrowArray::new(&self.data);
        // Each capsule owns its struct; a consumer moves the contents out (and marks the
        // struct released), otherwise dropping the capsule releases it.
        let schema = PyCapsule::new_with_value(py, schema, c"arrow_schema")?;
        let array = PyCapsule::new_with_value(py, array, c"arrow_array")?;
        Ok((schema, array))
    }

    /// Number of rows.
    fn __len__(&self) -> usize {
        self.data.len()
    }
}

fn to_py(e: ArrowError) -> PyErr {
    PyValueError::new_err(format!("Arrow export: {e}"))
}

/// Reads `fields` (the reader's default fields if empty) for entries `start..stop` with
/// the GIL released, as one Arrow batch.
pub fn read_batch<R: BatchSource + Sync>(
    py: Python<'_>,
    reader: &R,
    fields: &[String],
    start: u64,
    stop: u64,
) -> PyResult<ArrowBatch> {
    py.detach(|| {
        let names: Vec<&str> = fields.iter().map(String::as_str).collect();
        let columns = reader
            .read_fields_recycling(&names, start..stop, &mut Recycler::new())
            .map_err(crate::errors::to_py)?;
        batch(columns, stop.saturating_sub(start) as usize)
    })
}

/// The batch of `columns` (all of `len` entries) as one struct array.
fn batch(columns: Vec<(String, Array)>, len: usize) -> PyResult<ArrowBatch> {
    let mut fields = Vec::with_capacity(columns.len());
    let mut children = Vec::with_capacity(columns.len());
    for (name, array) in columns {
        let data = to_arrow(array).map_err(to_py)?;
        fields.push(Field::new(
            name,
            data.data_type().clone(),
            data.nulls().is_some(),
        ));
        children.push(data);
    }
    let data = ArrayData::builder(DataType::Struct(Fields::from(fields)))
        .len(len)
        .child_data(children)
        .build()
        .map_err(to_py)?;
    Ok(ArrowBatch { data })
}

/// Our array as Arrow array data, consuming it (its buffers move into Arrow's).
fn to_arrow(array: Array) -> Result<ArrayData, ArrowError> {
    let len = array.len();
    let primitive =
        |ty: DataType, buffer: Buffer| ArrayData::builder(ty).len(len).add_buffer(buffer).build();
    match array {
        Array::Bool(v) => primitive(
            DataType::Boolean,
            BooleanBuffer::from_iter(v.iter().copied()).into_inner(),
        ),
        Array::Int8(v) => primitive(DataType::Int8, Buffer::from_vec(v)),
        Array::Int16(v) => primitive(DataType::Int16, Buffer::from_vec(v)),
        Array::Int32(v) => primitive(DataType::Int32, Buffer::from_vec(v)),
        Array::Int64(v) => primitive(DataType::Int64, Buffer::from_vec(v)),
        Array::UInt8(v) => primitive(DataType::UInt8, Buffer::from_vec(v)),
        Array::UInt16(v) => primitive(DataType::UInt16, Buffer::from_vec(v)),
        Array::UInt32(v) => primitive(DataType::UInt32, Buffer::from_vec(v)),
        Array::UInt64(v) => primitive(DataType::UInt64, Buffer::from_vec(v)),
        Array::Float32(v) => primitive(DataType::Float32, Buffer::from_vec(v)),
        Array::Float64(v) => primitive(DataType::Float64, Buffer::from_vec(v)),
        Array::String { offsets, bytes } => {
            // Our offsets are u64 below 2^63: the same bytes as Arrow's i64 offsets.
            let ty = if std::str::from_utf8(&bytes).is_ok() {
                DataType::LargeUtf8
            } else {
                DataType::LargeBinary
            };
            ArrayData::builder(ty)
                .len(len)
                .add_buffer(Buffer::from_vec(offsets))
                .add_buffer(Buffer::from_vec(bytes))
                .build()
        }
        Array::List { offsets, values } => {
            let child = to_arrow(*values)?;
            let item = Field::new("item", child.data_type().clone(), true);
            ArrayData::builder(DataType::LargeList(item.into()))
                .len(len)
                .add_buffer(Buffer::from_vec(offsets))
                .child_data(vec![child])
                .build()
        }
        Array::Optional { offsets, values } => {
            // Arrow keeps a slot for every entry: the present values are spread out to
            // their entries (the absent ones repeat item 0 under a null bit).
            let present: Vec<bool> = offsets.windows(2).map(|w| w[1] > w[0]).collect();
            let at: Vec<usize> = offsets[..len].iter().map(|&o| o as usize).collect();
            let spread = if values.is_empty() {
                zeros_like(&values, len)
            } else {
                take(&values, &at, &present)
            };
            let data = to_arrow(spread)?;
            let nulls = NullBuffer::from(present);
            data.into_builder().nulls(Some(nulls)).build()
        }
        Array::Fixed { size, values } => {
            let child = to_arrow(*values)?;
            let item = Field::new("item", child.data_type().clone(), true);
            ArrayData::builder(DataType::FixedSizeList(item.into(), size as i32))
                .len(len)
                .child_data(vec![child])
                .build()
        }
        Array::Record { len, fields } => {
            let mut arrow_fields = Vec::with_capacity(fields.len());
            let mut children = Vec::with_capacity(fields.len());
            for (name, a) in fields {
                let data = to_arrow(a)?;
                arrow_fields.push(Field::new(name, data.data_type().clone(), true));
                children.push(data);
            }
            ArrayData::builder(DataType::Struct(Fields::from(arrow_fields)))
                .len(len)
                .child_data(children)
                .build()
        }
        Array::Variant {
            tags,
            index,
            alternatives,
        } => {
            let mut fields = vec![Field::new("empty", DataType::Null, true)];
            let mut children = vec![ArrayData::new_null(&DataType::Null, 1)];
            for (k, a) in alternatives.into_iter().enumerate() {
                let data = to_arrow(a)?;
                fields.push(Field::new(format!("_{k}"), data.data_type().clone(), true));
                children.push(data);
            }
            let type_ids: Vec<i8> = tags.iter().map(|&t| t as i8).collect();
            let offsets = tags
                .iter()
                .zip(&index)
                .map(|(&t, &i)| {
                    let i = if t == 0 { 0 } else { i };
                    i32::try_from(i).map_err(|_| {
                        ArrowError::InvalidArgumentError(format!(
                            "variant index {i} is beyond Arrow's 32-bit union offsets"
                        ))
                    })
                })
                .collect::<Result<Vec<i32>, _>>()?;
            let ids: Vec<i8> = (0..fields.len() as i8).collect();
            let union = UnionFields::try_new(ids, fields)?;
            ArrayData::builder(DataType::Union(union, UnionMode::Dense))
                .len(len)
                .add_buffer(Buffer::from_vec(type_ids))
                .add_buffer(Buffer::from_vec(offsets))
                .child_data(children)
                .build()
        }
    }
}

/// Entries `at[i]` of `array` where `keep[i]`, else entry 0 (which must exist), as a new
/// array of `at.len()` entries.
fn take(array: &Array, at: &[usize], keep: &[bool]) -> Array {
    let pick: Vec<usize> = at
        .iter()
        .zip(keep)
        .map(|(&i, &k)| if k { i } else { 0 })
        .collect();
    fn gather<T: Copy>(v: &[T], pick: &[usize]) -> Vec<T> {
        pick.iter().map(|&i| v[i]).collect()
    }
    fn ranges(offsets: &[u64], pick: &[usize]) -> (Vec<u64>, Vec<usize>) {
        let mut out = Vec::with_capacity(pick.len() + 1);
        let mut items = Vec::new();
        out.push(0u64);
        for &i in pick {
            items.extend(offsets[i] as usize..offsets[i + 1] as usize);
            out.push(items.len() as u64);
        }
        (out, items)
    }
    let all = vec![true; pick.len()];
    match array {
        Array::Bool(v) => Array::Bool(gather(v, &pick)),
        Array::Int8(v) => Array::Int8(gather(v, &pick)),
        Array::Int16(v) => Array::Int16(gather(v, &pick)),
        Array::Int32(v) => Array::Int32(gather(v, &pick)),
        Array::Int64(v) => Array::Int64(gather(v, &pick)),
        Array::UInt8(v) => Array::UInt8(gather(v, &pick)),
        Array::UInt16(v) => Array::UInt16(gather(v, &pick)),
        Array::UInt32(v) => Array::UInt32(gather(v, &pick)),
        Array::UInt64(v) => Array::UInt64(gather(v, &pick)),
        Array::Float32(v) => Array::Float32(gather(v, &pick)),
        Array::Float64(v) => Array::Float64(gather(v, &pick)),
        Array::String { offsets, bytes } => {
            let (offsets, items) = ranges(offsets, &pick);
            Array::String {
                offsets,
                bytes: gather(bytes, &items),
            }
        }
        Array::List { offsets, values } | Array::Optional { offsets, values } => {
            let (new_offsets, items) = ranges(offsets, &pick);
            let keep_items = vec![true; items.len()];
            let values = Box::new(if items.is_empty() {
                zeros_like(values, 0)
            } else {
                take(values, &items, &keep_items)
            });
            if matches!(array, Array::Optional { .. }) {
                Array::Optional {
                    offsets: new_offsets,
                    values,
                }
            } else {
                Array::List {
                    offsets: new_offsets,
                    values,
                }
            }
        }
        Array::Fixed { size, values } => {
            let items: Vec<usize> = pick
                .iter()
                .flat_map(|&i| i * size..(i + 1) * size)
                .collect();
            let keep_items = vec![true; items.len()];
            Array::Fixed {
                size: *size,
                values: Box::new(take(values, &items, &keep_items)),
            }
        }
        Array::Record { fields, .. } => Array::Record {
            len: pick.len(),
            fields: fields
                .iter()
                .map(|(n, a)| (n.clone(), take(a, &pick, &all)))
                .collect(),
        },
        Array::Variant {
            tags,
            index,
            alternatives,
        } => Array::Variant {
            tags: gather(tags, &pick),
            index: gather(index, &pick),
            alternatives: alternatives.clone(),
        },
    }
}

/// An array of the same type as `like` with `len` entries of zeros (empty lists and
/// strings, empty variants).
fn zeros_like(like: &Array, len: usize) -> Array {
    match like {
        Array::Bool(_) => Array::Bool(vec![false; len]),
        Array::Int8(_) => Array::Int8(vec![0; len]),
        Array::Int16(_) => Array::Int16(vec![0; len]),
        Array::Int32(_) => Array::Int32(vec![0; len]),
        Array::Int64(_) => Array::Int64(vec![0; len]),
        Array::UInt8(_) => Array::UInt8(vec![0; len]),
        Array::UInt16(_) => Array::UInt16(vec![0; len]),
        Array::UInt32(_) => Array::UInt32(vec![0; len]),
        Array::UInt64(_) => Array::UInt64(vec![0; len]),
        Array::Float32(_) => Array::Float32(vec![0.0; len]),
        Array::Float64(_) => Array::Float64(vec![0.0; len]),
        Array::String { .. } => Array::String {
            offsets: vec![0; len + 1],
            bytes: Vec::new(),
        },
        Array::List { values, .. } => Array::List {
            offsets: vec![0; len + 1],
            values: Box::new(zeros_like(values, 0)),
        },
        Array::Optional { values, .. } => Array::Optional {
            offsets: vec![0; len + 1],
            values: Box::new(zeros_like(values, 0)),
        },
        Array::Fixed { size, values } => Array::Fixed {
            size: *size,
            values: Box::new(zeros_like(values, len * size)),
        },
        Array::Record { fields, .. } => Array::Record {
            len,
            fields: fields
                .iter()
                .map(|(n, a)| (n.clone(), zeros_like(a, len)))
                .collect(),
        },
        Array::Variant { alternatives, .. } => Array::Variant {
            tags: vec![0; len],
            index: vec![0; len],
            alternatives: alternatives.iter().map(|a| zeros_like(a, 0)).collect(),
        },
    }
}
