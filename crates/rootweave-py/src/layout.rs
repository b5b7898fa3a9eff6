//! Arrays as nested Python dicts of NumPy arrays ("layouts"), built without copying the
//! values: each `Vec` becomes the buffer of a NumPy array.
//!
//! `{"kind": "float32", "data": ndarray}` for leaves; `{"kind": "list" | "optional",
//! "offsets": uint64 ndarray, "values": layout}`; `{"kind": "string", "offsets", "bytes"}`;
//! `{"kind": "fixed", "size": n, "values": layout}`; `{"kind": "record", "length": n,
//! "fields": [(name, layout), ...]}`; `{"kind": "variant", "tags": uint8 ndarray (0: empty,
//! k: alternative k - 1), "index": uint64 ndarray, "alternatives": [layout, ...]}`.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rootweave::array::Array;
use rootweave::dataset::BatchSource;

use crate::errors::to_py;
use crate::memory::{self, numpy_array};

/// Reads `fields` (the reader's default fields if empty) for entries `start..stop` with
/// the GIL released; returns `[(name, layout), ...]`.
pub fn read_layouts<'py, R: BatchSource + Sync>(
    py: Python<'py>,
    reader: &R,
    fields: &[String],
    start: u64,
    stop: u64,
) -> PyResult<Bound<'py, PyList>> {
    let arrays = py
        .detach(|| {
            let names: Vec<&str> = fields.iter().map(String::as_str).collect();
            // The memory of earlier results NumPy has freed, filled again.
            let mut recycler = memory::take();
            let arrays = reader.read_fields_recycling(&names, start..stop, &mut recycler)?;
            memory::set_limit(&arrays);
            Ok::<_, rootweave::Error>(arrays)
        })
        .map_err(to_py)?;
    let out = PyList::empty(py);
    for (name, array) in arrays {
        out.append((name, to_layout(py, array)?))?;
    }
    Ok(out)
}

/// The layout of `array`, consuming it.
pub fn to_layout<'py>(py: Python<'py>, array: Array) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let kind = array.kind();
    d.set_item("kind", kind)?;
    match array {
        Array::Bool(v) => d.set_item("data", numpy_array(py, v, Array::Bool)?)?,
        Array::Int8(v) => d.set_item("data", numpy_array(py, v, Array::Int8)?)?,
        Array::Int16(v) => d.set_item("data", numpy_array(py, v, Array::Int16)?)?,
        Array::Int32(v) => d.set_item("data", numpy_array(py, v, Array::Int32)?)?,
        Array::Int64(v) => d.set_item("data", numpy_array(py, v, Array::Int64)?)?,
        Array::UInt8(v) => d.set_item("data", numpy_array(py, v, Array::UInt8)?)?,
        Array::UInt16(v) => d.set_item("data", numpy_array(py, v, Array::UInt16)?)?,
        Array::UInt32(v) => d.set_item("data", numpy_array(py, v, Array::UInt32)?)?,
        Array::UInt64(v) => d.set_item("data", numpy_array(py, v, Array::UInt64)?)?,
        Array::Float32(v) => d.set_item("data", numpy_array(py, v, Array::Float32)?)?,
        Array::Float64(v) => d.set_item("data", numpy_array(py, v, Array::Float64)?)?,
        Array::String { offsets, bytes } => {
            d.set_item("offsets", numpy_array(py, offsets, Array::UInt64)?)?;
            d.set_item("bytes", numpy_array(py, bytes, Array::UInt8)?)?;
        }
        Array::List { offsets, values } | Array::Optional { offsets, values } => {
            d.set_item("offsets", numpy_array(py, offsets, Array::UInt64)?)?;
            d.set_item("values", to_layout(py, *values)?)?;
        }
        Array::Fixed { size, values } => {
            d.set_item("size", size)?;
            d.set_item("values", to_layout(py, *values)?)?;
        }
        Array::Record { len, fields } => {
            d.set_item("length", len)?;
            let list = PyList::empty(py);
            for (name, a) in fields {
                list.append((name, to_layout(py, a)?))?;
            }
            d.set_item("fields", list)?;
        }
        Array::Variant {
            tags,
            index,
            alternatives,
        } => {
            d.set_item("tags", numpy_array(py, tags, Array::UInt8)?)?;
            d.set_item("index", numpy_array(py, index, Array::UInt64)?)?;
            let list = PyList::empty(py);
            for a in alternatives {
                list.append(to_layout(py, a)?)?;
            }
            d.set_item("alternatives", list)?;
        }
    }
    Ok(d)
}
