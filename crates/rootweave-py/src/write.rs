//! Writing: an output file, sequential RNTuple writers in it, and the parallel writer
//! whose fill contexts Python threads use at once. Every `extend` encodes and compresses
//! with the GIL released, and every lock is taken detached (see [`crate::detached`]):
//! any method may be called from any thread at any time, and the worst it does is wait
//! for another thread's call on the same object to finish, or raise.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rootweave::compress::Compression;
use rootweave::container::{FileWriter, WriterOptions};
use rootweave::rntuple::{self, Field, RNTupleWriteOptions};

use crate::detached::{detached_in_drop, with_lock};
use crate::errors::to_py;
use crate::spec::{column_data, field_type, hold, Held};

fn fields(schema: &Bound<'_, PyList>) -> PyResult<Vec<Field>> {
    let mut out = Vec::with_capacity(schema.len());
    for item in schema.iter() {
        let (name, ty): (String, Bound<'_, PyAny>) = item.extract()?;
        let ty = field_type(&ty, &name)?;
        out.push(Field::new(name, ty));
    }
    Ok(out)
}

pub(crate) fn compression(text: &str) -> PyResult<Compression> {
    text.parse::<Compression>()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Borrows a batch: one tuple per top-level field, in schema order.
fn hold_batch<'py>(batch: &Bound<'py, PyList>, names: &[String]) -> PyResult<Vec<Held<'py>>> {
    if batch.len() != names.len() {
        return Err(PyValueError::new_err(format!(
            "a batch needs {} fields, got {}",
            names.len(),
            batch.len()
        )));
    }
    batch
        .iter()
        .zip(names)
        .map(|(b, name)| hold(&b, name))
        .collect()
}

/// A writer or fill context behind its lock: open, or closed (with what it wrote, for a
/// writer that closed cleanly).
enum Slot<T> {
    Open(T),
    Closed(Option<rntuple::RNTupleWriteSummary>),
}

impl<T> Slot<T> {
    /// The open writer, or the error a closed one gives.
    fn open(&mut self, what: &str) -> PyResult<&mut T> {
        match self {
            Slot::Open(t) => Ok(t),
            Slot::Closed(_) => Err(PyValueError::new_err(format!("the {what} is closed"))),
        }
    }

    /// Takes the open writer out, leaving the slot closed; `None` if it was closed.
    fn take(&mut self) -> Option<T> {
        match std::mem::replace(self, Slot::Closed(None)) {
            Slot::Open(t) => Some(t),
            closed => {
                *self = closed;
                None
            }
        }
    }
}

/// Borrows `batch`, then hands it to the writer or context in `slot` (checked as a whole
/// there). The slot's lock is held, detached, for the whole batch: batches of threads
/// sharing one writer go in one after another, each whole.
fn extend_slot<T: Send>(
    py: Python<'_>,
    slot: &Mutex<Slot<T>>,
    batch: &Bound<'_, PyList>,
    names: &[String],
    what: &str,
    extend: impl FnOnce(&mut T, &[rntuple::ColumnData]) -> rootweave::Result<()> + Send,
) -> PyResult<()> {
    let held = hold_batch(batch, names)?;
    let data = held.iter().map(column_data).collect::<PyResult<Vec<_>>>()?;
    with_lock(py, slot, |slot| {
        let target = slot.open(what)?;
        extend(target, &data).map_err(to_py)
    })
}

/// Closes the writer in `slot` once; later calls (also racing ones) return the same
/// summary, or raise if the first close failed.
fn close_slot<T: Send>(
    py: Python<'_>,
    slot: &Mutex<Slot<T>>,
    close: impl FnOnce(T) -> rootweave::Result<rntuple::RNTupleWriteSummary> + Send,
) -> PyResult<rntuple::RNTupleWriteSummary> {
    with_lock(py, slot, |slot| match slot {
        Slot::Closed(Some(summary)) => Ok(summary.clone()),
        Slot::Closed(None) => Err(PyValueError::new_err(
            "the writer is closed: closing it failed earlier",
        )),
        Slot::Open(_) => {
            let writer = slot.take().expect("the slot is open");
            let summary = close(writer).map_err(to_py)?;
            *slot = Slot::Closed(Some(summary.clone()));
            Ok(summary)
        }
    })
}

/// A ROOT file being written, holding any number of RNTuples.
#[pyclass(module = "rootweave._rootweave", frozen)]
pub struct OutputFile {
    file: Mutex<Option<Arc<FileWriter>>>,
}

#[pymethods]
impl OutputFile {
    /// Creates (or overwrites) the file at `path` (with fixed dates and UUIDs if
    /// `reproducible`).
    #[new]
    #[pyo3(signature = (path, compression="zstd:5", reproducible=false))]
    fn new(py: Python<'_>, path: String, compression: &str, reproducible: bool) -> PyResult<Self> {
        let options = WriterOptions::default()
            .with_compression(self::compression(compression)?)
            .with_reproducible(reproducible);
        let file = py
            .detach(|| FileWriter::create(&path, options))
            .map_err(to_py)?;
        Ok(OutputFile {
            file: Mutex::new(Some(Arc::new(file))),
        })
    }

    /// Opens the existing ROOT file at `path` to add objects to it and delete some (see
    /// `rootweave::update`); objects get the file's compression unless given their own.
    #[staticmethod]
    fn update(py: Python<'_>, path: String) -> PyResult<Self> {
        let file = py
            .detach(|| rootweave::update::open_for_update(&path))
            .map_err(to_py)?;
        Ok(OutputFile {
            file: Mutex::new(Some(Arc::new(file))),
        })
    }

    /// The file's compression setting, as text (`"zlib:1"`).
    fn compression(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.shared(py)?.compression().to_string())
    }

    /// Every key the file lists now: `(directory path, name, cycle, class name)`.
    fn listing(&self, py: Python<'_>) -> PyResult<Vec<(String, String, u16, String)>> {
        let listed = self.shared(py)?.listing();
        Ok(listed
            .into_iter()
            .map(|(dir, k)| (dir, k.name, k.cycle, k.class_name))
            .collect())
    }

    /// Deletes object `name` (cycle `cycle`, or the highest) of directory `directory`,
    /// as ROOT's `TDirectory::Delete` does; a `KeyError` if there is none.
    #[pyo3(signature = (directory, name, cycle=None))]
    fn delete(
        &self,
        py: Python<'_>,
        directory: &str,
        name: &str,
        cycle: Option<u16>,
    ) -> PyResult<()> {
        let file = self.shared(py)?;
        let dir = file.find_directory(directory).ok_or_else(|| {
            pyo3::exceptions::PyKeyError::new_err(format!(
                "no directory '{directory}' in this file"
            ))
        })?;
        py.detach(|| file.delete(dir, name, cycle))
            .map(drop)
            .map_err(to_py)
    }

    /// Writes the directory and closes the file; every RNTuple in it must be closed.
    /// Closing a closed file does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        with_lock(py, &self.file, |slot| {
            let Some(file) = slot.take() else {
                return Ok(());
            };
            let file = Arc::try_unwrap(file).map_err(|file| {
                // Put it back: the caller may close the writers and try again.
                *slot = Some(file);
                PyValueError::new_err("an RNTuple in the file is still open: close it first")
            })?;
            file.close().map(drop).map_err(to_py)
        })
    }
}

/// A file dropped unclosed (its Python object collected) is closed as ROOT's `TFile`
/// closes in its destructor, when no RNTuple in it is still open; errors cannot be
/// reported from here, `close()` reports them.
impl Drop for OutputFile {
    fn drop(&mut self) {
        let file = self
            .file
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(file) = file.and_then(|f| Arc::try_unwrap(f).ok()) {
            detached_in_drop(move || {
                let _ = file.close();
            });
        }
    }
}

impl OutputFile {
    /// The open file, for a new RNTuple in it.
    pub(crate) fn shared(&self, py: Python<'_>) -> PyResult<Arc<FileWriter>> {
        with_lock(py, &self.file, |slot| {
            slot.clone()
                .ok_or_else(|| PyValueError::new_err("the file is closed"))
        })
    }
}

fn summary_dict<'py>(
    py: Python<'py>,
    s: &rntuple::RNTupleWriteSummary,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("entries", s.entries)?;
    d.set_item("clusters", s.clusters)?;
    d.set_item("stored_bytes", s.stored_page_bytes)?;
    d.set_item("uncompressed_bytes", s.uncompressed_page_bytes)?;
    Ok(d)
}

/// An RNTuple being written into an [`OutputFile`]. Threads that share it take turns:
/// each `extend` writes its whole batch before the next one starts.
#[pyclass(module = "rootweave._rootweave", name = "RNTupleWriter")]
pub struct Writer {
    writer: Mutex<Slot<rntuple::RNTupleWriter>>,
    names: Vec<String>,
    /// Kept so that the file outlives the writer: collected unclosed, the writer commits
    /// first, and the file then closes (see `OutputFile`'s `Drop`).
    _file: Py<OutputFile>,
}

#[pymethods]
impl Writer {
    /// Starts RNTuple `name` of the given schema (`[(name, type tuple), ...]`) in `file`.
    #[new]
    #[pyo3(signature = (file, name, schema, compression="zstd:5", checkpoint_bytes=100_000_000,
                        checkpoint_clusters=100))]
    fn new(
        py: Python<'_>,
        file: &Bound<'_, OutputFile>,
        name: String,
        schema: &Bound<'_, PyList>,
        compression: &str,
        checkpoint_bytes: u64,
        checkpoint_clusters: u64,
    ) -> PyResult<Self> {
        let fields = fields(schema)?;
        let names = fields.iter().map(|f| f.name.clone()).collect();
        let options = RNTupleWriteOptions::default()
            .with_compression(self::compression(compression)?)
            .with_checkpoints(checkpoint_bytes, checkpoint_clusters);
        let shared = file.get().shared(py)?;
        let writer = py
            .detach(|| rntuple::RNTupleWriter::in_file(shared, &name, fields, options))
            .map_err(to_py)?;
        Ok(Writer {
            writer: Mutex::new(Slot::Open(writer)),
            names,
            _file: file.clone().unbind(),
        })
    }

    /// Appends a batch (a list of batch tuples, one per field). The whole batch is
    /// checked before anything is written.
    fn extend(&self, py: Python<'_>, batch: &Bound<'_, PyList>) -> PyResult<()> {
        extend_slot(py, &self.writer, batch, &self.names, "writer", |w, data| {
            w.extend(data)
        })
    }

    /// Writes the entries appended so far as a cluster.
    fn commit_cluster(&self, py: Python<'_>) -> PyResult<()> {
        with_lock(py, &self.writer, |slot| {
            slot.open("writer")?.commit_cluster().map_err(to_py)
        })
    }

    /// Commits a cluster and checkpoints: every entry so far is then readable from the
    /// file even if the process dies before `close`.
    fn checkpoint(&self, py: Python<'_>) -> PyResult<()> {
        with_lock(py, &self.writer, |slot| {
            slot.open("writer")?.checkpoint().map_err(to_py)
        })
    }

    /// Entries that the last checkpoint made readable.
    #[getter]
    fn checkpointed_entries(&self, py: Python<'_>) -> PyResult<u64> {
        with_lock(py, &self.writer, |slot| {
            Ok(slot.open("writer")?.checkpointed_entries())
        })
    }

    /// Writes what is buffered and closes the RNTuple; returns a summary (the same one
    /// again when called on a closed writer).
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let summary = close_slot(py, &self.writer, |w| w.close())?;
        summary_dict(py, &summary)
    }
}

/// A writer collected unclosed commits what it holds (as the library's writer does when
/// dropped), detached: that writes to the file.
impl Drop for Writer {
    fn drop(&mut self) {
        let slot = self.writer.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(writer) = slot.take() {
            detached_in_drop(move || drop(writer));
        }
    }
}

/// An RNTuple written from many Python threads through fill contexts.
#[pyclass(module = "rootweave._rootweave")]
pub struct RNTupleParallelWriter {
    writer: Mutex<Slot<rntuple::RNTupleParallelWriter>>,
    names: Vec<String>,
    /// Kept so that the file outlives the writer (as for [`Writer`]).
    _file: Py<OutputFile>,
}

#[pymethods]
impl RNTupleParallelWriter {
    /// Starts RNTuple `name` in `file`; buffered data stays within `memory_budget` bytes.
    #[new]
    #[pyo3(signature = (file, name, schema, compression="zstd:5", memory_budget=256 << 20,
                        checkpoint_bytes=100_000_000, checkpoint_clusters=100))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        file: &Bound<'_, OutputFile>,
        name: String,
        schema: &Bound<'_, PyList>,
        compression: &str,
        memory_budget: u64,
        checkpoint_bytes: u64,
        checkpoint_clusters: u64,
    ) -> PyResult<Self> {
        let fields = fields(schema)?;
        let names = fields.iter().map(|f| f.name.clone()).collect();
        let write = RNTupleWriteOptions::default()
            .with_compression(self::compression(compression)?)
            .with_checkpoints(checkpoint_bytes, checkpoint_clusters);
        let options = rntuple::RNTupleParallelOptions::default()
            .with_write(write)
            .with_memory_budget(memory_budget)
            .with_ordered(false);
        let shared = file.get().shared(py)?;
        let writer = py
            .detach(|| rntuple::RNTupleParallelWriter::in_file(shared, &name, fields, options))
            .map_err(to_py)?;
        Ok(RNTupleParallelWriter {
            writer: Mutex::new(Slot::Open(writer)),
            names,
            _file: file.clone().unbind(),
        })
    }

    /// A new fill context (use one per thread).
    fn context(&self, py: Python<'_>) -> PyResult<Context> {
        let context = with_lock(py, &self.writer, |slot| {
            slot.open("writer").map(|w| w.context())
        })?;
        Ok(Context {
            context: Mutex::new(Slot::Open(context)),
            names: self.names.clone(),
        })
    }

    /// Checkpoints the clusters written so far (not the entries contexts still hold).
    fn checkpoint(&self, py: Python<'_>) -> PyResult<()> {
        with_lock(py, &self.writer, |slot| {
            slot.open("writer")?.checkpoint().map_err(to_py)
        })
    }

    /// Entries that the last checkpoint made readable.
    #[getter]
    fn checkpointed_entries(&self, py: Python<'_>) -> PyResult<u64> {
        with_lock(py, &self.writer, |slot| {
            Ok(slot.open("writer")?.checkpointed_entries())
        })
    }

    /// Commits what every context holds and closes the RNTuple; returns a summary (the
    /// same one again when called on a closed writer). Contexts still in use by other
    /// threads are closed: their next `extend` raises.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let summary = close_slot(py, &self.writer, |w| w.close())?;
        summary_dict(py, &summary)
    }
}

/// A parallel writer collected unclosed commits every context's data and completes the
/// RNTuple, as a sequential writer does when dropped; errors are reported by `close()`.
impl Drop for RNTupleParallelWriter {
    fn drop(&mut self) {
        let slot = self.writer.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(writer) = slot.take() {
            detached_in_drop(move || {
                let _ = writer.close();
            });
        }
    }
}

/// A fill context of a [`RNTupleParallelWriter`]: buffers and compresses its own clusters.
/// Meant for one thread; threads that share one take turns, batch by batch.
#[pyclass(module = "rootweave._rootweave", name = "RNTupleFillContext")]
pub struct Context {
    context: Mutex<Slot<rntuple::RNTupleFillContext>>,
    names: Vec<String>,
}

#[pymethods]
impl Context {
    /// Appends a batch, encoding and compressing with the GIL released.
    fn extend(&self, py: Python<'_>, batch: &Bound<'_, PyList>) -> PyResult<()> {
        extend_slot(
            py,
            &self.context,
            batch,
            &self.names,
            "context",
            |c, data| c.extend(data),
        )
    }

    /// Commits the entries the context holds as a cluster; the context goes on.
    fn commit_cluster(&self, py: Python<'_>) -> PyResult<()> {
        with_lock(py, &self.context, |slot| {
            slot.open("context")?.commit_cluster().map_err(to_py)
        })
    }

    /// Commits what the context holds; it cannot be used afterwards. Closing a closed
    /// context does nothing.
    fn close(&self, py: Python<'_>) {
        // Dropping the context commits its cluster, which may wait for the budget.
        with_lock(py, &self.context, |slot| drop(slot.take()));
    }
}

/// A context collected unclosed commits what it holds, detached (the commit may wait for
/// the memory budget and writes to the file).
impl Drop for Context {
    fn drop(&mut self) {
        let slot = self.context.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(context) = slot.take() {
            detached_in_drop(move || drop(context));
        }
    }
}
