//! `rootweave.convert`: one file's RNTuple or TTree into another format, with the
//! interpreter detached.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rootweave::convert::{convert, ConvertOptions, Target};
use rootweave::dataset::Source;

use crate::errors::to_py;

/// Converts `input` (`file.root:name` or `file.root`) into `output` as `to` says (see
/// `rootweave::convert::convert`); returns the summary as a dict.
#[pyfunction]
#[pyo3(signature = (input, output, to, fields=Vec::new(), threads=0, memory_budget=256 << 20, compression=None, name=None, force=false, split_level=None))]
#[allow(clippy::too_many_arguments)]
pub fn convert_file<'py>(
    py: Python<'py>,
    input: String,
    output: PathBuf,
    to: &str,
    fields: Vec<String>,
    threads: usize,
    memory_budget: u64,
    compression: Option<String>,
    name: Option<String>,
    force: bool,
    split_level: Option<i32>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut options = ConvertOptions::new(to.parse::<Target>().map_err(to_py)?);
    options.compression = compression
        .map(|c| c.parse::<rootweave::compress::Compression>())
        .transpose()
        .map_err(to_py)?;
    options.fields = fields;
    options.threads = threads;
    options.memory_budget = memory_budget;
    options.name = name;
    options.force = force;
    options.split_level = split_level;
    let s = py
        .detach(|| convert(&Source::parse(&input), &output, &options))
        .map_err(to_py)?;
    let d = PyDict::new(py);
    d.set_item("entries", s.entries)?;
    d.set_item("fields", s.fields)?;
    d.set_item("skipped", s.skipped)?;
    d.set_item("output_bytes", s.output_bytes)?;
    Ok(d)
}
