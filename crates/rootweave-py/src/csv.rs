//! CSV files read as RDataFrame's `FromCSV` reads them, into columns for a graph's source
//! in memory.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rootweave::dataset::{read_csv as read_table, CsvOptions, CsvType};

use crate::errors::to_py;
use crate::layout::to_layout;

/// Reads CSV file `path` with `options` (`headers`, `delimiter`, `left_trim`, `right_trim`,
/// `skip_blank_lines`, `skip_first_lines`, `skip_last_lines`, `comment`, `column_names`,
/// `column_types` as `{name: letter}`; those missing keep ROOT's defaults) with the GIL
/// released; returns `([(name, layout), ...], warning or None)`.
#[pyfunction]
pub fn read_csv<'py>(
    py: Python<'py>,
    path: String,
    options: &Bound<'py, PyDict>,
) -> PyResult<(Bound<'py, PyList>, Option<String>)> {
    let options = csv_options(options)?;
    let table = py
        .detach(|| read_table(std::path::Path::new(&path), &options))
        .map_err(to_py)?;
    let out = PyList::empty(py);
    for (name, array) in table.columns {
        out.append((name, to_layout(py, array)?))?;
    }
    Ok((out, table.warning))
}

/// The options of a dict of them.
fn csv_options(d: &Bound<'_, PyDict>) -> PyResult<CsvOptions> {
    let mut o = CsvOptions::default();
    let byte = |key: &str, text: String| match text.as_bytes() {
        [b] => Ok(*b),
        _ => Err(PyValueError::new_err(format!(
            "FromCSV: {key} is one byte, not '{text}'"
        ))),
    };
    for (key, value) in d.iter() {
        let key: String = key.extract()?;
        match key.as_str() {
            "headers" => o.headers = value.extract()?,
            "delimiter" => o.delimiter = byte(&key, value.extract()?)?,
            "left_trim" => o.left_trim = value.extract()?,
            "right_trim" => o.right_trim = value.extract()?,
            "skip_blank_lines" => o.skip_blank_lines = value.extract()?,
            "skip_first_lines" => o.skip_first_lines = value.extract()?,
            "skip_last_lines" => o.skip_last_lines = value.extract()?,
            "comment" => {
                let text: String = value.extract()?;
                o.comment = (text != "\0").then(|| byte(&key, text)).transpose()?;
            }
            "column_names" => o.column_names = value.extract()?,
            "column_types" => {
                let types: Vec<(String, String)> = value.extract()?;
                o.column_types = types
                    .into_iter()
                    .map(|(name, letter)| Ok((name, CsvType::from_letter(&letter)?)))
                    .collect::<rootweave::Result<_>>()
                    .map_err(to_py)?;
            }
            _ => return Err(PyValueError::new_err(format!("FromCSV: no option '{key}'"))),
        }
    }
    Ok(o)
}
