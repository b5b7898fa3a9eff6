//! `rootweave.merge`: merging files as hadd does, with the interpreter detached.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_py;

/// Merges `inputs` into `output` (see `rootweave::merge::merge`); returns the summary as
/// a dict.
#[pyfunction]
#[pyo3(signature = (output, inputs, force=false, threads=1, skip_bad=false, memory_budget=256 << 20, compression=None, rntuple_union=false))]
#[allow(clippy::too_many_arguments)]
pub fn merge<'py>(
    py: Python<'py>,
    output: PathBuf,
    inputs: Vec<PathBuf>,
    force: bool,
    threads: usize,
    skip_bad: bool,
    memory_budget: u64,
    compression: Option<String>,
    rntuple_union: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let compression = compression
        .map(|c| c.parse::<rootweave::compress::Compression>())
        .transpose()
        .map_err(to_py)?;
    let options = rootweave::merge::MergeOptions {
        force,
        compression,
        threads,
        skip_bad,
        memory_budget,
        rntuple_union,
        ..Default::default()
    };
    let s = py
        .detach(|| rootweave::merge::merge(&output, &inputs, &options))
        .map_err(to_py)?;
    let d = PyDict::new(py);
    d.set_item("inputs", s.inputs)?;
    d.set_item("skipped", s.skipped)?;
    d.set_item("trees", s.trees)?;
    d.set_item("rntuples", s.rntuples)?;
    d.set_item("entries", s.entries)?;
    d.set_item("histograms", s.histograms)?;
    d.set_item("objects_copied", s.objects_copied)?;
    d.set_item("bytes_copied", s.bytes_copied)?;
    d.set_item("bytes_recompressed", s.bytes_recompressed)?;
    d.set_item("output_bytes", s.output_bytes)?;
    d.set_item("notes", s.notes)?;
    Ok(d)
}
