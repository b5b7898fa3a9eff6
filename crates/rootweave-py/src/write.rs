//! Writing: an output file, sequential RNTuple writers in it, and the parallel writer
//! whose fill contexts Python threads use at once. Every `extend` encodes and compresses
//! with the GIL released.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rootweave::compress::Compression;
use rootweave::container::writer::{FileWriter, WriterOptions};
use rootweave::rntuple::{self, Field, WriteOptions};

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

fn compression(text: &str) -> PyResult<Compression> {
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

/// Borrows `batch`, then hands it to the writer or context in `slot` (checked as a whole
/// there) with the GIL released.
fn extend_locked<T: Send>(
    py: Python<'_>,
    slot: &Mutex<Option<T>>,
    batch: &Bound<'_, PyList>,
    names: &[String],
    what: &str,
    extend: impl FnOnce(&mut T, &[rntuple::ColumnData]) -> rootweave::Result<()> + Send,
) -> PyResult<()> {
    let held = hold_batch(batch, names)?;
    let data = held.iter().map(column_data).collect::<PyResult<Vec<_>>>()?;
    let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
    let target = guard
        .as_mut()
        .ok_or_else(|| PyValueError::new_err(format!("the {what} is closed")))?;
    py.detach(|| extend(target, &data)).map_err(to_py)
}

/// A ROOT file being written, holding any number of RNTuples.
#[pyclass(module = "rootweave._rootweave")]
pub struct OutputFile {
    file: Mutex<Option<Arc<FileWriter>>>,
}

#[pymethods]
impl OutputFile {
    /// Creates (or overwrites) the file at `path`.
    #[new]
    #[pyo3(signature = (path, compression="zstd:5"))]
    fn new(py: Python<'_>, path: String, compression: &str) -> PyResult<Self> {
        let options = WriterOptions {
            compression: self::compression(compression)?,
            ..WriterOptions::default()
        };
        let file = py
            .detach(|| FileWriter::create(&path, options))
            .map_err(to_py)?;
        Ok(OutputFile {
            file: Mutex::new(Some(Arc::new(file))),
        })
    }

    /// Writes the directory and closes the file; every RNTuple in it must be closed.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let file = self.file.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(file) = file else {
            return Ok(());
        };
        let file = Arc::try_unwrap(file).map_err(|file| {
            // Put it back: the caller may close the writers and try again.
            *self.file.lock().unwrap_or_else(|e| e.into_inner()) = Some(file);
            PyValueError::new_err("an RNTuple in the file is still open: close it first")
        })?;
        py.detach(|| file.close()).map_err(to_py)?;
        Ok(())
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
            let _ = file.close();
        }
    }
}

impl OutputFile {
    /// The open file, for a new RNTuple in it.
    fn shared(&self) -> PyResult<Arc<FileWriter>> {
        self.file
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| PyValueError::new_err("the file is closed"))
    }
}

fn summary_dict<'py>(py: Python<'py>, s: &rntuple::WriteSummary) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("entries", s.entries)?;
    d.set_item("clusters", s.clusters)?;
    d.set_item("stored_bytes", s.stored_page_bytes)?;
    d.set_item("uncompressed_bytes", s.uncompressed_page_bytes)?;
    Ok(d)
}

/// An RNTuple being written from one thread at a time into an [`OutputFile`].
#[pyclass(module = "rootweave._rootweave")]
pub struct Writer {
    writer: Mutex<Option<rntuple::RNTupleWriter>>,
    names: Vec<String>,
}

#[pymethods]
impl Writer {
    /// Starts RNTuple `name` of the given schema (`[(name, type tuple), ...]`) in `file`.
    #[new]
    #[pyo3(signature = (file, name, schema, compression="zstd:5"))]
    fn new(
        py: Python<'_>,
        file: &OutputFile,
        name: String,
        schema: &Bound<'_, PyList>,
        compression: &str,
    ) -> PyResult<Self> {
        let fields = fields(schema)?;
        let names = fields.iter().map(|f| f.name.clone()).collect();
        let options = WriteOptions {
            compression: self::compression(compression)?,
            ..WriteOptions::default()
        };
        let file = file.shared()?;
        let writer = py
            .detach(|| rntuple::RNTupleWriter::in_file(file, &name, fields, options))
            .map_err(to_py)?;
        Ok(Writer {
            writer: Mutex::new(Some(writer)),
            names,
        })
    }

    /// Appends a batch (a list of batch tuples, one per field). The whole batch is
    /// checked before anything is written.
    fn extend(&self, py: Python<'_>, batch: &Bound<'_, PyList>) -> PyResult<()> {
        extend_locked(py, &self.writer, batch, &self.names, "writer", |w, data| {
            w.extend(data)
        })
    }

    /// Writes what is buffered and closes the RNTuple; returns a summary.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let writer = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(writer) = writer else {
            return Err(PyValueError::new_err("the writer is closed"));
        };
        let summary = py.detach(|| writer.close()).map_err(to_py)?;
        summary_dict(py, &summary)
    }
}

/// An RNTuple written from many Python threads through fill contexts.
#[pyclass(module = "rootweave._rootweave")]
pub struct ParallelWriter {
    writer: Mutex<Option<Arc<rntuple::ParallelWriter>>>,
    names: Vec<String>,
}

#[pymethods]
impl ParallelWriter {
    /// Starts RNTuple `name` in `file`; buffered data stays within `memory_budget` bytes.
    #[new]
    #[pyo3(signature = (file, name, schema, compression="zstd:5", memory_budget=256 << 20))]
    fn new(
        py: Python<'_>,
        file: &OutputFile,
        name: String,
        schema: &Bound<'_, PyList>,
        compression: &str,
        memory_budget: u64,
    ) -> PyResult<Self> {
        let fields = fields(schema)?;
        let names = fields.iter().map(|f| f.name.clone()).collect();
        let options = rntuple::ParallelOptions {
            write: WriteOptions {
                compression: self::compression(compression)?,
                ..WriteOptions::default()
            },
            memory_budget,
            ordered: false,
        };
        let file = file.shared()?;
        let writer = py
            .detach(|| rntuple::ParallelWriter::in_file(file, &name, fields, options))
            .map_err(to_py)?;
        Ok(ParallelWriter {
            writer: Mutex::new(Some(Arc::new(writer))),
            names,
        })
    }

    /// A new fill context (use one per thread).
    fn context(&self) -> PyResult<Context> {
        let guard = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let writer = guard
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("the writer is closed"))?;
        Ok(Context {
            context: Mutex::new(Some(writer.context())),
            names: self.names.clone(),
        })
    }

    /// Commits what every context holds and closes the RNTuple; returns a summary.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let writer = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(writer) = writer else {
            return Err(PyValueError::new_err("the writer is closed"));
        };
        let writer = Arc::try_unwrap(writer)
            .map_err(|_| PyValueError::new_err("the writer is still in use"))?;
        let summary = py.detach(|| writer.close()).map_err(to_py)?;
        summary_dict(py, &summary)
    }
}

/// A fill context of a [`ParallelWriter`]: buffers and compresses its own clusters.
#[pyclass(module = "rootweave._rootweave")]
pub struct Context {
    context: Mutex<Option<rntuple::FillContext>>,
    names: Vec<String>,
}

#[pymethods]
impl Context {
    /// Appends a batch, encoding and compressing with the GIL released.
    fn extend(&self, py: Python<'_>, batch: &Bound<'_, PyList>) -> PyResult<()> {
        extend_locked(
            py,
            &self.context,
            batch,
            &self.names,
            "context",
            |c, data| c.extend(data),
        )
    }

    /// Commits what the context holds; it cannot be used afterwards.
    fn close(&self, py: Python<'_>) {
        let context = self
            .context
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        py.detach(move || drop(context));
    }
}
