//! Writing objects other than trees into an open output file: histograms given as plain
//! data (the package's `_hist_write.py` makes it from hist, boost-histogram and NumPy
//! histograms), graphs of points as `TGraph`, and strings as `TObjString`.

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rootweave::objects::{write_histogram as write, Axis, ErrorMode, Histogram, Profile};

use rootweave::container::{DirectoryId, FileWriter, KeyInfo};

use crate::errors::to_py;
use crate::write::OutputFile;

/// Writes a histogram into directory `directory` (made where missing) of `file`. `spec`
/// holds `class`, `name`, `title`, `axes` (dicts of `name`, `title`, `bins`, `min`, `max`,
/// `edges` or `None`, `labels` or `None`, `can_extend`), `cells` (every cell, flow
/// included, x fastest), `sumw2` or `None`, `profile` (`bin_entries`, `sum_wy2`,
/// `bin_sumw2` or `None`, `error_mode` 0-3) or `None`, and `entries` and `stats` (a dict
/// of the statistics sums), each `None` to compute them from the cells as ROOT's
/// `ResetStats` does.
#[pyfunction]
pub fn write_histogram(
    py: Python<'_>,
    file: PyRef<'_, OutputFile>,
    directory: &str,
    spec: &Bound<'_, PyDict>,
) -> PyResult<()> {
    let mut h = histogram(spec)?;
    let stats: Option<Vec<(String, f64)>> = item(spec, "stats")?;
    let entries: Option<f64> = item(spec, "entries")?;
    match stats {
        Some(stats) => {
            h.stats = stats;
            h.entries = entries.unwrap_or(0.0);
        }
        None => h.reset_statistics(entries),
    }
    write_in(py, &file, directory, |file, dir| write(file, dir, &h))
}

/// Writes `text` as a `TObjString` named `name` into directory `directory` of `file`, as
/// ROOT's `TObjString::Write` does.
#[pyfunction]
pub fn write_string(
    py: Python<'_>,
    file: PyRef<'_, OutputFile>,
    directory: &str,
    name: &str,
    text: &str,
) -> PyResult<()> {
    write_in(py, &file, directory, |file, dir| {
        rootweave::objects::write_string(file, dir, name, text)
    })
}

/// Writes a `TGraph` of points `(x[i], y[i])` named `name` and titled `title` into
/// directory `directory` (made where missing) of `file`; with `errors` (x low, x high, y
/// low, y high) a `TGraphAsymmErrors`.
#[pyfunction]
#[pyo3(signature = (file, directory, name, title, x, y, errors=None))]
#[allow(clippy::too_many_arguments)]
pub fn write_graph(
    py: Python<'_>,
    file: PyRef<'_, OutputFile>,
    directory: &str,
    name: &str,
    title: &str,
    x: PyReadonlyArray1<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    errors: Option<[PyReadonlyArray1<'_, f64>; 4]>,
) -> PyResult<()> {
    let errors = match errors {
        Some([a, b, c, d]) => Some([
            a.as_slice()?.to_vec(),
            b.as_slice()?.to_vec(),
            c.as_slice()?.to_vec(),
            d.as_slice()?.to_vec(),
        ]),
        None => None,
    };
    let graph = rootweave::objects::Graph {
        name: name.into(),
        title: title.into(),
        x: x.as_slice()?.to_vec(),
        y: y.as_slice()?.to_vec(),
        errors,
    };
    write_in(py, &file, directory, |file, dir| {
        rootweave::objects::write_graph(file, dir, &graph)
    })
}

/// Writes a `TStatistic` under the key `name` into directory `directory` of `file`:
/// `members` holds `name`, `n`, `w`, `w2`, `m`, `m2`, `min` and `max`.
#[pyfunction]
pub fn write_statistic(
    py: Python<'_>,
    file: PyRef<'_, OutputFile>,
    directory: &str,
    name: &str,
    members: &Bound<'_, PyDict>,
) -> PyResult<()> {
    let s = statistic(members)?;
    write_in(py, &file, directory, |file, dir| {
        rootweave::objects::write_statistic(file, dir, name, &s)
    })
}

/// A statistic from its members as a dict (`name`, `n`, `w`, `w2`, `m`, `m2`, `min`, `max`).
pub(crate) fn statistic(members: &Bound<'_, PyDict>) -> PyResult<rootweave::objects::Statistic> {
    Ok(rootweave::objects::Statistic {
        name: required(members, "name")?,
        n: required(members, "n")?,
        w: required(members, "w")?,
        w2: required(members, "w2")?,
        m: required(members, "m")?,
        m2: required(members, "m2")?,
        min: required(members, "min")?,
        max: required(members, "max")?,
    })
}

/// Runs `write` on directory `directory` of `file` (made where missing) without the GIL.
fn write_in(
    py: Python<'_>,
    file: &OutputFile,
    directory: &str,
    write: impl FnOnce(&FileWriter, DirectoryId) -> rootweave::Result<KeyInfo> + Send,
) -> PyResult<()> {
    let file = file.shared(py)?;
    py.detach(|| {
        let dir = file.mkdir(directory)?;
        write(&file, dir).map(drop)
    })
    .map_err(to_py)
}

/// The histogram of a spec, statistics aside.
fn histogram(spec: &Bound<'_, PyDict>) -> PyResult<Histogram> {
    let axes = required::<Vec<Bound<'_, PyDict>>>(spec, "axes")?
        .iter()
        .map(axis)
        .collect::<PyResult<Vec<_>>>()?;
    let profile = match item::<Bound<'_, PyDict>>(spec, "profile")? {
        Some(p) => Some(Profile {
            bin_entries: array(&p, "bin_entries")?.ok_or_else(|| missing("bin_entries"))?,
            sum_wy2: array(&p, "sum_wy2")?.ok_or_else(|| missing("sum_wy2"))?,
            bin_sumw2: array(&p, "bin_sumw2")?,
            error_mode: match item::<i32>(&p, "error_mode")?.unwrap_or(0) {
                1 => ErrorMode::Spread,
                2 => ErrorMode::SpreadI,
                3 => ErrorMode::SpreadG,
                _ => ErrorMode::Mean,
            },
            value_min: item::<f64>(&p, "value_min")?.unwrap_or(0.0),
            value_max: item::<f64>(&p, "value_max")?.unwrap_or(0.0),
        }),
        None => None,
    };
    Ok(Histogram {
        class: required(spec, "class")?,
        name: required(spec, "name")?,
        title: item(spec, "title")?.unwrap_or_default(),
        axes,
        content_title: item(spec, "content_title")?.unwrap_or_default(),
        cells: array(spec, "cells")?.ok_or_else(|| missing("cells"))?,
        sumw2: array(spec, "sumw2")?,
        entries: 0.0,
        stats: Vec::new(),
        profile,
    })
}

fn axis(d: &Bound<'_, PyDict>) -> PyResult<Axis> {
    Ok(Axis {
        name: required(d, "name")?,
        title: item(d, "title")?.unwrap_or_default(),
        bins: required(d, "bins")?,
        min: required(d, "min")?,
        max: required(d, "max")?,
        edges: array(d, "edges")?,
        labels: item(d, "labels")?,
        can_extend: item(d, "can_extend")?.unwrap_or(false),
        range: None,
    })
}

pub(crate) fn missing(key: &str) -> PyErr {
    PyValueError::new_err(format!("histogram spec without '{key}'"))
}

/// The value at `key`, `None` when absent or `None`.
pub(crate) fn item<'py, T: FromPyObjectOwned<'py>>(
    d: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<Option<T>> {
    match d.get_item(key)? {
        Some(v) if !v.is_none() => Ok(Some(v.extract().map_err(Into::into)?)),
        _ => Ok(None),
    }
}

pub(crate) fn required<'py, T: FromPyObjectOwned<'py>>(
    d: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<T> {
    item(d, key)?.ok_or_else(|| missing(key))
}

/// A float64 NumPy array at `key`.
pub(crate) fn array(d: &Bound<'_, PyDict>, key: &str) -> PyResult<Option<Vec<f64>>> {
    Ok(item::<PyReadonlyArray1<'_, f64>>(d, key)?.map(|a| a.as_array().to_vec()))
}

/// Writes the object at `path` (directory names, then its own name) of the open file
/// `source` into directory `directory` of `file` as `name`, as it is: its payload and the
/// layouts of its classes (see `rootweave::objects::copy_object`).
#[pyfunction]
pub fn copy_object(
    py: Python<'_>,
    file: PyRef<'_, OutputFile>,
    directory: &str,
    name: &str,
    source: PyRef<'_, crate::read::OpenFile>,
    path: Vec<String>,
) -> PyResult<()> {
    let open = source.file();
    let streamers = source.streamers(py)?;
    let file = file.shared(py)?;
    py.detach(|| {
        let parts: Vec<&str> = path.iter().map(String::as_str).collect();
        let key = rootweave::objects::find_key(&open, &parts)?;
        let dir = file.mkdir(directory)?;
        rootweave::objects::copy_object(&open, &streamers, &key, &file, dir, name).map(drop)
    })
    .map_err(to_py)
}
