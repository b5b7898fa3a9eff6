//! Writing TTrees from Python: a tree of number branches (scalars and fixed-size arrays)
//! in an output file, filled batch by batch with the GIL released; its lock is taken
//! detached (see [`crate::detached`]).

use std::sync::Mutex;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use rootweave::array::LeafType;
use rootweave::rntuple::FieldType;
use rootweave::ttree::{BranchSpec, TTreeWriteOptions, TTreeWriter};

use crate::detached::{detached_in_drop, with_lock};
use crate::errors::to_py;
use crate::spec::{column_data, field_type, hold};
use crate::write::{compression, OutputFile};

/// The branch for a field of type `ty` (a scalar number or a fixed-size array of them).
fn branch(name: &str, ty: &FieldType) -> PyResult<BranchSpec> {
    let mut dims = Vec::new();
    let mut ty = ty;
    while let FieldType::Array(inner, n) = ty {
        dims.push(*n);
        ty = inner;
    }
    let leaf = match ty {
        FieldType::Bool => LeafType::Bool,
        FieldType::Int8 => LeafType::Int8,
        FieldType::Int16 => LeafType::Int16,
        FieldType::Int32 => LeafType::Int32,
        FieldType::Int64 => LeafType::Int64,
        FieldType::UInt8 => LeafType::UInt8,
        FieldType::UInt16 => LeafType::UInt16,
        FieldType::UInt32 => LeafType::UInt32,
        FieldType::UInt64 => LeafType::UInt64,
        FieldType::Float32 => LeafType::Float32,
        FieldType::Float64 => LeafType::Float64,
        other => {
            return Err(PyTypeError::new_err(format!(
                "branch '{name}': TTrees hold numbers and fixed-size arrays of numbers so far, not {other:?}"
            )))
        }
    };
    Ok(BranchSpec::array(name, leaf, &dims))
}

/// A TTree being written in an output file.
#[pyclass(module = "rootweave._rootweave")]
pub struct TreeWriter {
    /// The writer until closed.
    writer: Mutex<Option<TTreeWriter>>,
    names: Vec<String>,
    /// Kept so that the file outlives the writer.
    _file: Py<OutputFile>,
}

#[pymethods]
impl TreeWriter {
    /// Starts tree `name` of the given branches (`[(name, type tuple), ...]`) in `file`.
    #[new]
    #[pyo3(signature = (file, name, schema, compression="zstd:5", title="", basket_size=32000))]
    fn new(
        py: Python<'_>,
        file: &Bound<'_, OutputFile>,
        name: String,
        schema: &Bound<'_, PyList>,
        compression: &str,
        title: &str,
        basket_size: usize,
    ) -> PyResult<Self> {
        let mut branches = Vec::with_capacity(schema.len());
        for item in schema.iter() {
            let (field, ty): (String, Bound<'_, PyAny>) = item.extract()?;
            branches.push(branch(&field, &field_type(&ty, &field)?)?);
        }
        let names = branches.iter().map(|b| b.name.clone()).collect();
        let options = TTreeWriteOptions::default()
            .with_title(title)
            .with_compression(self::compression(compression)?)
            .with_basket_size(basket_size);
        let shared = file.get().shared(py)?;
        let writer = py
            .detach(|| TTreeWriter::in_file(shared, &name, branches, options))
            .map_err(to_py)?;
        Ok(TreeWriter {
            writer: Mutex::new(Some(writer)),
            names,
            _file: file.clone().unbind(),
        })
    }

    /// Appends a batch (a list of batch tuples, one per branch). The whole batch is
    /// checked before anything is written.
    fn extend(&self, py: Python<'_>, batch: &Bound<'_, PyList>) -> PyResult<()> {
        if batch.len() != self.names.len() {
            return Err(PyValueError::new_err(format!(
                "a batch needs {} branches, got {}",
                self.names.len(),
                batch.len()
            )));
        }
        let held = batch
            .iter()
            .zip(&self.names)
            .map(|(b, name)| hold(&b, name))
            .collect::<PyResult<Vec<_>>>()?;
        let data = held.iter().map(column_data).collect::<PyResult<Vec<_>>>()?;
        with_lock(py, &self.writer, |slot| {
            let writer = slot
                .as_mut()
                .ok_or_else(|| PyValueError::new_err("the tree writer is closed"))?;
            writer.extend(&data).map_err(to_py)
        })
    }

    /// Writes the open baskets and the tree; returns the number of entries. Closing a
    /// closed writer does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<Option<u64>> {
        with_lock(py, &self.writer, |slot| match slot.take() {
            Some(writer) => {
                let entries = writer.entries();
                writer.close().map_err(to_py)?;
                Ok(Some(entries))
            }
            None => Ok(None),
        })
    }
}

/// A writer collected unclosed writes its tree (as the library's writer does when
/// dropped), detached: that writes to the file.
impl Drop for TreeWriter {
    fn drop(&mut self) {
        let slot = self.writer.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(writer) = slot.take() {
            detached_in_drop(move || drop(writer));
        }
    }
}
