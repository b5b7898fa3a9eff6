//! Histograms filled from many files in parallel (see `rootweave::fill`), handed to
//! Python as plain arrays (the package's `histogram` makes a `hist.Hist` of them).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_py;
use crate::write_objects::{array, item, missing, required};

/// Fills a histogram of `fields` (one per axis) from every entry of the `sources`
/// (`(path, object name or None)`), weighted by field `weight`, on `threads` threads (0:
/// every core), the same for any thread count (see `rootweave::fill`). `axes` are dicts of
/// `kind` (`regular`, `variable`, `integer`), `bins`, `min`, `max`, `edges`, `underflow`,
/// `overflow`. Returns `(cells, sumw2 or None, entries, stats)`: every cell with flow
/// cells (x fastest), and the statistics sums as `(name, value)` pairs.
#[pyfunction]
#[pyo3(signature = (sources, fields, weight, axes, threads=0))]
pub fn fill_histogram<'py>(
    py: Python<'py>,
    sources: Vec<(String, Option<String>)>,
    fields: Vec<String>,
    weight: Option<String>,
    axes: Vec<Bound<'py, PyDict>>,
    threads: usize,
) -> PyResult<FilledHistogram<'py>> {
    use rootweave::dataset::{Dataset, Source};
    use rootweave::fill::{fill_histogram as fill, Binning, FillAxis};
    let axes = axes
        .iter()
        .map(|d| {
            let kind: String = required(d, "kind")?;
            let binning = match kind.as_str() {
                "regular" => Binning::Regular {
                    bins: required(d, "bins")?,
                    min: required(d, "min")?,
                    max: required(d, "max")?,
                },
                "variable" => {
                    Binning::Variable(array(d, "edges")?.ok_or_else(|| missing("edges"))?)
                }
                "integer" => Binning::Integer {
                    min: required(d, "min")?,
                    max: required(d, "max")?,
                },
                other => return Err(PyValueError::new_err(format!("no axis kind '{other}'"))),
            };
            Ok(FillAxis {
                binning,
                underflow: item(d, "underflow")?.unwrap_or(true),
                overflow: item(d, "overflow")?.unwrap_or(true),
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let sources = sources
        .into_iter()
        .map(|(path, object)| Source::new(path, object.as_deref()))
        .collect();
    let options = rootweave::ReadOptions::default().with_threads(threads);
    let filled = py
        .detach(|| {
            let dataset = Dataset::new(sources, options)?;
            let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
            fill(&dataset, &fields, weight.as_deref(), &axes)
        })
        .map_err(to_py)?;
    Ok((
        numpy::PyArray1::from_vec(py, filled.cells),
        filled.sumw2.map(|v| numpy::PyArray1::from_vec(py, v)),
        filled.entries,
        filled.stats,
    ))
}

/// What [`fill_histogram`] returns.
type FilledHistogram<'py> = (
    Bound<'py, numpy::PyArray1<f64>>,
    Option<Bound<'py, numpy::PyArray1<f64>>>,
    f64,
    Vec<(String, f64)>,
);
