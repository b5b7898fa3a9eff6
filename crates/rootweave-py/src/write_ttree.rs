//! Writing TTrees from Python: fields become branches as the library's
//! [`TreeLayout`] lays them out (as uproot writes them: a list gets a counter branch
//! `n<name>`, a record one branch per member `<name>_<member>`, a list of records NanoAOD
//! style), filled batch by batch with the GIL released; the writer's lock is taken
//! detached (see [`crate::detached`]).

use std::collections::HashMap;
use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rootweave::array::ColumnData;
use rootweave::rntuple::Field;
use rootweave::tree_layout::{FieldOptions, TreeLayout};
use rootweave::ttree::{TTreeWriteOptions, TTreeWriter};

use crate::detached::{detached_in_drop, with_lock};
use crate::errors::{to_py, to_type_error};
use crate::spec::{column_data, field_type, hold};
use crate::write::{compression, OutputFile};

/// A TTree being written in an output file.
#[pyclass(module = "rootweave._rootweave", name = "TTreeWriter")]
pub struct TreeWriter {
    /// The writer until closed.
    writer: Mutex<Option<TTreeWriter>>,
    names: Vec<String>,
    layout: TreeLayout,
    /// Kept so that the file outlives the writer.
    _file: Py<OutputFile>,
}

#[pymethods]
impl TreeWriter {
    #[new]
    /// Starts tree `name` of the given fields (`[(name, type tuple), ...]`) in `file`;
    /// `layouts` says, per field, its list's counter branch (default `n<field>`) and
    /// whether a list of numbers is a `std::vector`, a string a C string, a record a leaf
    /// list (`{field: (counter, "std_vector" | "c_string" | "leaf_list" | "")}`); named
    /// classes are split to `split_level` (ROOT's default 99) or, for the fields
    /// `split_levels` names, to their own level. A cluster
    /// ends every `auto_flush_bytes` stored bytes, and the tree is saved (readable if the
    /// writer dies later) every `auto_save_bytes`.
    #[pyo3(signature = (file, name, schema, compression="zstd:5", title="", basket_size=32000, layouts=None, auto_flush_bytes=30_000_000, auto_save_bytes=300_000_000, split_level=99, split_levels=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        file: &Bound<'_, OutputFile>,
        name: String,
        schema: &Bound<'_, PyList>,
        compression: &str,
        title: &str,
        basket_size: usize,
        layouts: Option<HashMap<String, (String, String)>>,
        auto_flush_bytes: u64,
        auto_save_bytes: u64,
        split_level: i32,
        split_levels: Option<HashMap<String, i32>>,
    ) -> PyResult<Self> {
        let (fields, layout) = tree_layout(schema, layouts, split_level, split_levels)?;
        let options = write_options(
            title,
            compression,
            basket_size,
            auto_flush_bytes,
            auto_save_bytes,
        )?;
        let shared = file.get().shared(py)?;
        let branches = layout.branches().to_vec();
        let writer = py
            .detach(|| TTreeWriter::in_file(shared, &name, branches, options))
            .map_err(to_py)?;
        Ok(TreeWriter {
            writer: Mutex::new(Some(writer)),
            names: fields.into_iter().map(|f| f.name).collect(),
            layout,
            _file: file.clone().unbind(),
        })
    }

    /// Appends a batch (a list of batch tuples, one per field). The whole batch is
    /// checked before anything is written.
    fn extend(&self, py: Python<'_>, batch: &Bound<'_, PyList>) -> PyResult<()> {
        extend_tree_slot(
            py,
            &self.writer,
            batch,
            &self.names,
            &self.layout,
            "tree writer",
            |w, data| w.extend(data),
        )
    }

    /// Ends the current cluster here: the entries to come start a new one.
    fn end_cluster(&self, py: Python<'_>) -> PyResult<()> {
        with_lock(py, &self.writer, |slot| {
            let writer = slot
                .as_mut()
                .ok_or_else(|| PyValueError::new_err("the tree writer is closed"))?;
            writer.end_cluster().map_err(to_py)
        })
    }

    /// Entries of the tree at its last auto-save (what a reader finds if the process dies).
    #[getter]
    fn saved_entries(&self, py: Python<'_>) -> PyResult<u64> {
        with_lock(py, &self.writer, |slot| {
            let writer = slot
                .as_ref()
                .ok_or_else(|| PyValueError::new_err("the tree writer is closed"))?;
            Ok(writer.saved_entries())
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

/// The fields of a schema (`[(name, type tuple), ...]`) and their branches, laid out as
/// `layouts` says (see [`TreeWriter::new`]).
pub(crate) fn tree_layout(
    schema: &Bound<'_, PyList>,
    layouts: Option<HashMap<String, (String, String)>>,
    split_level: i32,
    split_levels: Option<HashMap<String, i32>>,
) -> PyResult<(Vec<Field>, TreeLayout)> {
    let split_levels = split_levels.unwrap_or_default();
    let mut fields = Vec::with_capacity(schema.len());
    for item in schema.iter() {
        let (field, ty): (String, Bound<'_, PyAny>) = item.extract()?;
        fields.push(Field::new(field.clone(), field_type(&ty, &field)?));
    }
    let layouts = layouts.unwrap_or_default();
    let options = |field: &str| {
        let split = split_levels.get(field).copied().unwrap_or(split_level);
        let mut o = FieldOptions::default().with_split_level(split);
        if let Some((counter, style)) = layouts.get(field) {
            o = o.with_counter(counter);
            o = match style.as_str() {
                "std_vector" => o.with_std_vector(),
                "c_string" => o.with_c_string(),
                "leaf_list" => o.with_leaf_list(),
                _ => o,
            };
        }
        o
    };
    let layout = TreeLayout::new(&fields, options).map_err(to_type_error)?;
    Ok((fields, layout))
}

/// A tree's settings from the writers' arguments.
pub(crate) fn write_options(
    title: &str,
    compression: &str,
    basket_size: usize,
    auto_flush_bytes: u64,
    auto_save_bytes: u64,
) -> PyResult<TTreeWriteOptions> {
    Ok(TTreeWriteOptions::default()
        .with_title(title)
        .with_compression(self::compression(compression)?)
        .with_basket_size(basket_size)
        .with_auto_flush_bytes(auto_flush_bytes)
        .with_auto_save_bytes(auto_save_bytes))
}

/// Borrows a batch (one batch tuple per field) and hands its branch batches to `extend`
/// with the GIL released, holding `slot`'s lock (taken detached).
pub(crate) fn extend_tree_slot<T: Send>(
    py: Python<'_>,
    slot: &Mutex<Option<T>>,
    batch: &Bound<'_, PyList>,
    names: &[String],
    layout: &TreeLayout,
    what: &str,
    extend: impl FnOnce(&mut T, &[ColumnData]) -> rootweave::Result<()> + Send,
) -> PyResult<()> {
    if batch.len() != names.len() {
        return Err(PyValueError::new_err(format!(
            "a batch needs {} fields, got {}",
            names.len(),
            batch.len()
        )));
    }
    let held = batch
        .iter()
        .zip(names)
        .map(|(b, name)| hold(&b, name))
        .collect::<PyResult<Vec<_>>>()?;
    let fields = held.iter().map(column_data).collect::<PyResult<Vec<_>>>()?;
    with_lock(py, slot, |slot| {
        let target = slot
            .as_mut()
            .ok_or_else(|| PyValueError::new_err(format!("the {what} is closed")))?;
        layout
            .with_branch_batches(&fields, |data| extend(target, data))
            .map_err(to_py)
    })
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
