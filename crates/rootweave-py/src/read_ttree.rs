//! Reading TTrees: a tree's branches into layouts, as for RNTuples.

use std::sync::Arc;

use crate::read::FileOrPath;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rootweave::container::read_streamers;
use rootweave::ttree::{ReadOptions, TTreeReader};

use crate::arrow::{read_batch, ArrowBatch};
use crate::errors::to_py;
use crate::layout::read_layouts;

/// An open TTree.
#[pyclass(module = "rootweave._rootweave", frozen)]
pub struct TTree {
    reader: Arc<TTreeReader>,
}

#[pymethods]
impl TTree {
    /// Opens TTree `name` (`dir/name` for one in a subdirectory) in the file at `path` (or
    /// the open file `path`).
    #[new]
    #[pyo3(signature = (path, name, threads=0))]
    fn new(py: Python<'_>, path: FileOrPath<'_>, name: String, threads: usize) -> PyResult<Self> {
        let source = path.source();
        let reader = py
            .detach(|| {
                let file = source.open()?;
                let streamers = Arc::new(read_streamers(&file)?);
                let options = ReadOptions::default().with_threads(threads);
                TTreeReader::from_file(file, streamers, &name, options)
            })
            .map_err(to_py)?;
        Ok(TTree {
            reader: Arc::new(reader),
        })
    }

    /// Number of entries.
    #[getter]
    fn num_entries(&self) -> u64 {
        self.reader.entries()
    }

    /// Full names of every branch, depth first.
    fn keys(&self) -> Vec<String> {
        self.reader.branch_names()
    }

    /// `(name, type, how it is read)` of every branch, depth first; the last is the reason
    /// for a branch that cannot be read.
    fn describe(&self) -> Vec<(String, String, String)> {
        let meta = self.reader.meta();
        meta.all_branches()
            .into_iter()
            .map(|b| {
                let class = b
                    .element
                    .as_ref()
                    .map_or_else(String::new, |e| e.class_name.clone());
                let how = match self.reader.interpretation(&b.name) {
                    Ok(i) => i.describe(),
                    Err(e) => format!("not readable: {e}"),
                };
                (b.name.clone(), class, how)
            })
            .collect()
    }

    /// Stored (compressed) bytes of the baskets of `fields` (all branches if empty), to
    /// size reading steps (see `TTreeReader::stored_bytes`).
    #[pyo3(signature = (fields=Vec::new()))]
    fn stored_bytes(&self, fields: Vec<String>) -> u64 {
        let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
        self.reader.stored_bytes(&fields)
    }

    /// `(start, stop)` entry ranges of the clusters.
    fn cluster_ranges(&self) -> Vec<(u64, u64)> {
        self.reader
            .cluster_ranges()
            .into_iter()
            .map(|r| (r.start, r.end))
            .collect()
    }

    /// The branches a read of every branch returns (their types can be read).
    fn readable(&self) -> Vec<String> {
        self.reader.default_branches()
    }

    /// The branches a read of every branch leaves out, with the reason:
    /// `[(name, reason), ...]`.
    fn unreadable(&self) -> Vec<(String, String)> {
        self.reader.unreadable_branches()
    }

    /// Reads branches `fields` (every readable branch if empty) for entries
    /// `start..stop`, with the GIL released; returns `[(name, layout), ...]`.
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
