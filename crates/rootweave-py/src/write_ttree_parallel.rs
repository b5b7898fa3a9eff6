//! Writing one TTree from many Python threads: the parallel writer hands out fill
//! contexts, each filling and compressing its own baskets with the GIL released; every
//! lock is taken detached (see [`crate::detached`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rootweave::tree_layout::TreeLayout;
use rootweave::ttree::{
    TTreeFillContext, TTreeParallelOptions, TTreeParallelWriter, TTreeWriteSummary,
};

use crate::detached::{detached_in_drop, with_lock};
use crate::errors::to_py;
use crate::write::OutputFile;
use crate::write_ttree::{extend_tree_slot, tree_layout, write_options};

/// The writer until closed, then what it wrote (or `None` if closing failed).
enum TreeSlot {
    Open(TTreeParallelWriter),
    Closed(Option<TTreeWriteSummary>),
}

/// A TTree written from many Python threads through fill contexts.
#[pyclass(module = "rootweave._rootweave", name = "TTreeParallelWriter")]
pub struct ParallelTreeWriter {
    writer: Mutex<TreeSlot>,
    names: Vec<String>,
    layout: Arc<TreeLayout>,
    /// Kept so that the file outlives the writer.
    _file: Py<OutputFile>,
}

#[pymethods]
impl ParallelTreeWriter {
    /// Starts tree `name` of the given fields in `file` (see `TreeWriter`); buffered
    /// baskets stay within `memory_budget` bytes; with `ordered`, clusters go in by their
    /// sequence numbers (`extend_sequence`).
    #[new]
    #[pyo3(signature = (file, name, schema, compression="zlib:1", title="", basket_size=32000, layouts=None, auto_flush_bytes=30_000_000, auto_save_bytes=300_000_000, memory_budget=256 << 20, ordered=false, split_level=99, split_levels=None))]
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
        memory_budget: u64,
        ordered: bool,
        split_level: i32,
        split_levels: Option<HashMap<String, i32>>,
    ) -> PyResult<Self> {
        let (fields, layout) = tree_layout(schema, layouts, split_level, split_levels)?;
        let write = write_options(
            title,
            compression,
            basket_size,
            auto_flush_bytes,
            auto_save_bytes,
        )?;
        let options = TTreeParallelOptions::default()
            .with_write(write)
            .with_memory_budget(memory_budget)
            .with_ordered(ordered);
        let shared = file.get().shared(py)?;
        let branches = layout.branches().to_vec();
        let writer = py
            .detach(|| TTreeParallelWriter::in_file(shared, &name, branches, options))
            .map_err(to_py)?;
        Ok(ParallelTreeWriter {
            writer: Mutex::new(TreeSlot::Open(writer)),
            names: fields.into_iter().map(|f| f.name).collect(),
            layout: Arc::new(layout),
            _file: file.clone().unbind(),
        })
    }

    /// A new fill context (use one per thread).
    fn context(&self, py: Python<'_>) -> PyResult<TreeContext> {
        let context = with_lock(py, &self.writer, |slot| match slot {
            TreeSlot::Open(w) => Ok(w.context()),
            TreeSlot::Closed(_) => Err(PyValueError::new_err("the tree writer is closed")),
        })?;
        Ok(TreeContext {
            context: Mutex::new(Some(context)),
            names: self.names.clone(),
            layout: self.layout.clone(),
        })
    }

    /// Entries of the tree at its last auto-save (what a reader finds if the process dies).
    #[getter]
    fn saved_entries(&self, py: Python<'_>) -> PyResult<u64> {
        with_lock(py, &self.writer, |slot| match slot {
            TreeSlot::Open(w) => Ok(w.saved_entries()),
            TreeSlot::Closed(_) => Err(PyValueError::new_err("the tree writer is closed")),
        })
    }

    /// Commits what every context holds and writes the tree; returns a summary (the same
    /// one again when called on a closed writer). Contexts still in use by other threads
    /// are closed: their next `extend` raises.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let summary = with_lock(py, &self.writer, |slot| match slot {
            TreeSlot::Closed(Some(summary)) => Ok(summary.clone()),
            TreeSlot::Closed(None) => Err(PyValueError::new_err(
                "the tree writer is closed: closing it failed earlier",
            )),
            TreeSlot::Open(_) => {
                let TreeSlot::Open(writer) = std::mem::replace(slot, TreeSlot::Closed(None)) else {
                    unreachable!("matched as open")
                };
                let summary = writer.close().map_err(to_py)?;
                *slot = TreeSlot::Closed(Some(summary.clone()));
                Ok(summary)
            }
        })?;
        let dict = PyDict::new(py);
        dict.set_item("entries", summary.entries)?;
        dict.set_item("clusters", summary.clusters)?;
        dict.set_item("tot_bytes", summary.tot_bytes)?;
        dict.set_item("zip_bytes", summary.zip_bytes)?;
        Ok(dict)
    }
}

/// A writer collected unclosed commits every context's baskets and writes the tree, as
/// the library's sequential writer does when dropped; errors are reported by `close()`.
impl Drop for ParallelTreeWriter {
    fn drop(&mut self) {
        let slot = self.writer.get_mut().unwrap_or_else(|e| e.into_inner());
        if let TreeSlot::Open(_) = slot {
            let TreeSlot::Open(writer) = std::mem::replace(slot, TreeSlot::Closed(None)) else {
                unreachable!("matched as open")
            };
            detached_in_drop(move || {
                let _ = writer.close();
            });
        }
    }
}

/// A fill context of a [`ParallelTreeWriter`]: fills and compresses its own baskets.
/// Meant for one thread; threads that share one take turns, batch by batch.
#[pyclass(module = "rootweave._rootweave", name = "TTreeFillContext")]
pub struct TreeContext {
    context: Mutex<Option<TTreeFillContext>>,
    names: Vec<String>,
    layout: Arc<TreeLayout>,
}

#[pymethods]
impl TreeContext {
    /// Appends a batch, filling and compressing baskets with the GIL released.
    fn extend(&self, py: Python<'_>, batch: &Bound<'_, PyList>) -> PyResult<()> {
        extend_tree_slot(
            py,
            &self.context,
            batch,
            &self.names,
            &self.layout,
            "context",
            |c, data| c.extend(data),
        )
    }

    /// Appends a batch and commits it as cluster `sequence` (ordered writers).
    fn extend_sequence(
        &self,
        py: Python<'_>,
        sequence: u64,
        batch: &Bound<'_, PyList>,
    ) -> PyResult<()> {
        extend_tree_slot(
            py,
            &self.context,
            batch,
            &self.names,
            &self.layout,
            "context",
            |c, data| c.extend_sequence(sequence, data),
        )
    }

    /// Declares that sequence number `sequence` will never come (ordered writers).
    fn skip_sequence(&self, py: Python<'_>, sequence: u64) -> PyResult<()> {
        self.with_context(py, |c| c.skip_sequence(sequence))
    }

    /// Commits the entries filled so far as one cluster.
    fn commit_cluster(&self, py: Python<'_>) -> PyResult<()> {
        self.with_context(py, TTreeFillContext::commit_cluster)
    }

    /// Commits what the context holds; it cannot be used afterwards. Closing a closed
    /// context does nothing.
    fn close(&self, py: Python<'_>) {
        with_lock(py, &self.context, |slot| drop(slot.take()));
    }
}

impl TreeContext {
    /// Runs `f` on the open context, its lock taken detached.
    fn with_context(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut TTreeFillContext) -> rootweave::Result<()> + Send,
    ) -> PyResult<()> {
        with_lock(py, &self.context, |slot| {
            let c = slot
                .as_mut()
                .ok_or_else(|| PyValueError::new_err("the context is closed"))?;
            f(c).map_err(to_py)
        })
    }
}

/// A context collected unclosed commits what it holds, detached (the commit may wait for
/// the memory budget and writes to the file).
impl Drop for TreeContext {
    fn drop(&mut self) {
        let slot = self.context.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(context) = slot.take() {
            detached_in_drop(move || drop(context));
        }
    }
}
