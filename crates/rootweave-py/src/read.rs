//! Reading: the keys of a file, and an RNTuple's fields into layouts.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyList;
use rootweave::container::RootFile;
use rootweave::rntuple::read::{Descriptor, Role};
use rootweave::rntuple::{RNTupleReader, ReadOptions};
use rootweave::streamer::StreamerSet;

use crate::arrow::{read_batch, ArrowBatch};
use crate::errors::to_py;
use crate::layout::read_layouts;

/// A ROOT file open for reading, shared by the directories and objects read from it, so
/// that a file (a remote one above all: each open costs round trips) is opened once.
#[pyclass(module = "rootweave._rootweave", frozen)]
pub struct OpenFile {
    file: Arc<RootFile>,
    /// The file's class layouts, read when an object first needs them.
    streamers: std::sync::OnceLock<Arc<StreamerSet>>,
}

impl OpenFile {
    fn of(file: RootFile) -> Self {
        OpenFile {
            file: Arc::new(file),
            streamers: std::sync::OnceLock::new(),
        }
    }

    /// The open file.
    pub fn file(&self) -> Arc<RootFile> {
        self.file.clone()
    }

    /// The file's class layouts (its StreamerInfo record), read once.
    pub fn streamers(&self, py: Python<'_>) -> PyResult<Arc<StreamerSet>> {
        if let Some(s) = self.streamers.get() {
            return Ok(s.clone());
        }
        let file = self.file.clone();
        let read = py
            .detach(|| rootweave::container::read_streamers(&file))
            .map_err(to_py)?;
        Ok(self.streamers.get_or_init(|| Arc::new(read)).clone())
    }
}

#[pymethods]
impl OpenFile {
    /// Opens the file at `path` (or URL).
    #[new]
    fn new(py: Python<'_>, path: String) -> PyResult<Self> {
        let file = py.detach(|| RootFile::open(&path)).map_err(to_py)?;
        Ok(OpenFile::of(file))
    }

    /// Opens the file `path` of an fsspec file system `fs`, `size` bytes long, named
    /// `shown` in messages: its reads are `fs.cat_ranges` calls.
    #[staticmethod]
    fn from_fsspec(
        py: Python<'_>,
        fs: Py<PyAny>,
        path: String,
        size: u64,
        shown: String,
    ) -> PyResult<Self> {
        let source = crate::fsspec::FsspecSource::new(fs, path, size, shown);
        let file = py
            .detach(|| {
                let source = rootweave::io::WithEnds::new(source)?;
                RootFile::from_source(Arc::new(source))
            })
            .map_err(to_py)?;
        Ok(OpenFile::of(file))
    }
}

/// A file to read: one already open, or a path to open.
#[derive(FromPyObject)]
pub enum FileOrPath<'py> {
    /// An open file.
    File(PyRef<'py, OpenFile>),
    /// A path or URL.
    Path(String),
}

impl FileOrPath<'_> {
    /// What [`FileOrPath::open`] needs, free of Python references (to run without the GIL).
    pub fn source(&self) -> FileSource {
        match self {
            FileOrPath::File(f) => FileSource::Open(f.file.clone()),
            FileOrPath::Path(p) => FileSource::Path(p.clone()),
        }
    }
}

/// A file already open, or a path to open, outside Python.
pub enum FileSource {
    /// An open file.
    Open(Arc<RootFile>),
    /// A path or URL.
    Path(String),
}

impl FileSource {
    /// The open file.
    pub fn open(self) -> rootweave::error::Result<Arc<RootFile>> {
        match self {
            FileSource::Open(f) => Ok(f),
            FileSource::Path(p) => Ok(Arc::new(RootFile::open(&p)?)),
        }
    }
}

/// `(name, class, cycle)` of every key of the file's top directory, or of the
/// subdirectory `directory` (`"dir/sub"`, cycles allowed: `"dir;1"`).
#[pyfunction]
#[pyo3(signature = (path, directory=String::new()))]
pub fn list_keys(
    py: Python<'_>,
    path: FileOrPath<'_>,
    directory: String,
) -> PyResult<Vec<(String, String, u16)>> {
    let source = path.source();
    let keys = py
        .detach(|| {
            let file = source.open()?;
            if directory.trim_matches('/').is_empty() {
                return Ok(file.keys().to_vec());
            }
            let key = file.get_key(&directory)?;
            file.directory_keys(&key)
        })
        .map_err(to_py)?;
    Ok(keys
        .iter()
        .map(|k| (k.name.clone(), k.class_name.clone(), k.cycle))
        .collect())
}

/// An open RNTuple.
#[pyclass(module = "rootweave._rootweave", frozen)]
pub struct RNTuple {
    reader: Arc<RNTupleReader>,
}

#[pymethods]
impl RNTuple {
    /// Opens RNTuple `name` in the file at `path` (or the open file `path`).
    #[new]
    #[pyo3(signature = (path, name, threads=0, memory_budget=256 << 20, verify_checksums=true))]
    fn new(
        py: Python<'_>,
        path: FileOrPath<'_>,
        name: String,
        threads: usize,
        memory_budget: u64,
        verify_checksums: bool,
    ) -> PyResult<Self> {
        let source = path.source();
        let reader = py
            .detach(|| {
                let file = source.open()?;
                let options = ReadOptions::default()
                    .with_threads(threads)
                    .with_memory_budget(memory_budget)
                    .with_verify_checksums(verify_checksums);
                RNTupleReader::from_file(file, &name, options)
            })
            .map_err(to_py)?;
        Ok(RNTuple {
            reader: Arc::new(reader),
        })
    }

    /// Number of entries.
    #[getter]
    fn num_entries(&self) -> u64 {
        self.reader.entries()
    }

    /// Names of the top-level fields.
    fn keys(&self) -> Vec<String> {
        self.reader.field_names()
    }

    /// `(path, type, columns)` of every field, depth first.
    fn describe(&self) -> Vec<(String, String, String)> {
        let d: &Descriptor = self.reader.descriptor();
        d.fields
            .iter()
            .map(|f| {
                let columns: Vec<String> = f
                    .columns
                    .iter()
                    .map(|c| {
                        d.columns[c.physical as usize]
                            .ty
                            .map_or_else(|| "?".to_string(), |t| format!("{t:?}"))
                    })
                    .collect();
                (d.field_path(f.id), f.type_name.clone(), columns.join(","))
            })
            .collect()
    }

    /// `(id, parent id, name, type, role, repetitive)` of every field record, in ID order
    /// (a top-level field is its own parent; role `"leaf"`, `"collection"`, `"record"`,
    /// `"variant"` or `"streamer"`; repetitive: a fixed-size array, its item field its
    /// child), for listing fields as uproot lists them.
    fn fields(&self) -> Vec<(u32, u32, String, String, &'static str, bool)> {
        self.reader
            .descriptor()
            .fields
            .iter()
            .map(|f| {
                let role = match f.role {
                    Role::Leaf => "leaf",
                    Role::Collection => "collection",
                    Role::Record => "record",
                    Role::Variant => "variant",
                    Role::Streamer => "streamer",
                };
                let repetitive = f.array_size.is_some();
                (
                    f.id,
                    f.parent,
                    f.name.clone(),
                    f.type_name.clone(),
                    role,
                    repetitive,
                )
            })
            .collect()
    }

    /// Bytes of the stored pages of `fields` (dotted paths; all fields if empty), to size
    /// reading steps (see `RNTupleReader::stored_bytes`).
    #[pyo3(signature = (fields=Vec::new()))]
    fn stored_bytes(&self, py: Python<'_>, fields: Vec<String>) -> PyResult<u64> {
        let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
        py.detach(|| self.reader.stored_bytes(&fields))
            .map_err(to_py)
    }

    /// `(start, stop)` entry ranges of the clusters.
    fn cluster_ranges(&self, py: Python<'_>) -> PyResult<Vec<(u64, u64)>> {
        let ranges = py.detach(|| self.reader.cluster_ranges()).map_err(to_py)?;
        Ok(ranges.into_iter().map(|r| (r.start, r.end)).collect())
    }

    /// Reads `fields` (all top-level fields if empty) for entries `start..stop`, with
    /// the GIL released; returns `[(name, layout), ...]`.
    fn read<'py>(
        &self,
        py: Python<'py>,
        fields: Vec<String>,
        start: u64,
        stop: u64,
    ) -> PyResult<Bound<'py, PyList>> {
        read_layouts(py, self.reader.as_ref(), &fields, start, stop)
    }

    /// As `read`, into one Arrow record batch (an `ArrowBatch`, read by
    /// `pyarrow.record_batch` through the Arrow C data interface).
    fn read_arrow(
        &self,
        py: Python<'_>,
        fields: Vec<String>,
        start: u64,
        stop: u64,
    ) -> PyResult<ArrowBatch> {
        read_batch(py, self.reader.as_ref(), &fields, start, stop)
    }
}
