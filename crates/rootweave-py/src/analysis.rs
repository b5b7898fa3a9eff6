//! The analysis layer (see `rootweave::analysis`) for Python: a graph handle whose calls
//! build the graph, and booked results whose values run it with the GIL released. The
//! package's `RDataFrame` gives them RDataFrame's names and makes `hist.Hist`s, NumPy and
//! Awkward arrays of the values.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use rootweave::analysis::{ActionSpec, AxisModel, Booked, Frame, Model, ProfileModel, ResultValue};

use crate::errors::to_py;
use crate::layout::to_layout;
use crate::write_objects::{array, required};

/// A node of an analysis graph.
#[pyclass(name = "Frame", module = "rootweave._rootweave", frozen)]
pub struct PyFrame {
    inner: Frame,
}

/// A source of a graph: a file and its object, whole or an entry range of it, or columns
/// held in memory.
#[derive(FromPyObject)]
enum PySource<'py> {
    /// `(path, object name or None)`.
    Whole(String, Option<String>),
    /// `(path, object name or None, start, stop)`; a path of None: entries `start..stop`
    /// of a source without a file (`RDataFrame(n)`).
    Range(Option<String>, Option<String>, u64, u64),
    /// `({name: 1-dimensional NumPy array}, data source name or None, start, stop)`:
    /// entries `start..stop` of columns held in memory (`FromNumpy`'s, or a CSV file's with
    /// the name `RCsv`, which `Describe` tells).
    Memory(Bound<'py, PyDict>, Option<String>, u64, u64),
}

/// The columns of a dict of 1-dimensional NumPy arrays, in memory.
fn memory_columns(d: &Bound<'_, PyDict>) -> PyResult<rootweave::dataset::MemoryColumns> {
    use rootweave::analysis::column::Column;
    let mut columns = Vec::new();
    // NumPy's `int8` is C++'s `signed char` (ROOT's `FromNumpy` columns of them are).
    let mut signed_chars = Vec::new();
    for (name, values) in d.iter() {
        let name: String = name.extract()?;
        let array = match python_strings(&values)? {
            Some(strings) => strings,
            None => {
                let values = python_values(&values).map_err(|e| {
                    PyValueError::new_err(format!("FromNumpy column '{name}': {e}"))
                })?;
                Column::Flat(values.into()).into_array()
            }
        };
        if matches!(array, rootweave::array::Array::Int8(_)) {
            signed_chars.push(name.clone());
        }
        columns.push((name, array));
    }
    let columns = rootweave::dataset::MemoryColumns::new(columns).map_err(to_py)?;
    Ok(columns.with_longs_or_signed_chars(signed_chars))
}

/// The `std::string`s of a NumPy array of `str`s (of dtype `U`, or `object` holding only
/// `str`s) or of a string layout (`{"kind": "string", "offsets", "bytes"}`, as a CSV
/// file's strings are read), or None for an array of another dtype.
fn python_strings(a: &Bound<'_, PyAny>) -> PyResult<Option<rootweave::array::Array>> {
    if let Ok(layout) = a.cast::<PyDict>() {
        let item = |key: &str| {
            layout
                .get_item(key)?
                .ok_or_else(|| PyValueError::new_err(format!("a string layout has no '{key}'")))
        };
        let offsets = item("offsets")?
            .extract::<numpy::PyReadonlyArray1<'_, u64>>()?
            .as_slice()?
            .to_vec();
        let bytes = item("bytes")?
            .extract::<numpy::PyReadonlyArray1<'_, u8>>()?
            .as_slice()?
            .to_vec();
        let ordered = offsets.first() == Some(&0)
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets.last() == Some(&(bytes.len() as u64));
        if !ordered {
            return Err(PyValueError::new_err(
                "a string layout's offsets start at 0, grow and end at its bytes' length",
            ));
        }
        return Ok(Some(rootweave::array::Array::String { offsets, bytes }));
    }
    let kind: String = a.getattr("dtype")?.getattr("kind")?.extract()?;
    if kind != "U" && kind != "O" {
        return Ok(None);
    }
    let strings: Vec<String> = a.call_method0("tolist")?.extract().map_err(|_| {
        PyValueError::new_err("a column of Python objects holds only str (std::string)")
    })?;
    let mut offsets = Vec::with_capacity(strings.len() + 1);
    offsets.push(0u64);
    let mut bytes = Vec::new();
    for s in &strings {
        bytes.extend_from_slice(s.as_bytes());
        offsets.push(bytes.len() as u64);
    }
    Ok(Some(rootweave::array::Array::String { offsets, bytes }))
}

/// The value of an expression that reads no column, in its C++ type, or an error naming
/// the expression.
fn constant_value(expression: &str) -> PyResult<rootweave::analysis::column::Values> {
    let parsed = rootweave::analysis::expr::Expression::parse(expression).map_err(|e| {
        PyValueError::new_err(format!(
            "expression '{expression}' does not parse at position {}: {}",
            e.pos, e.message
        ))
    })?;
    parsed
        .constant_value()
        .map_err(|e| PyValueError::new_err(format!("expression '{expression}': {}", e.message)))
}

/// A source as the dataset layer takes it.
fn source(s: PySource<'_>) -> PyResult<rootweave::dataset::Source> {
    use rootweave::dataset::Source;
    Ok(match s {
        PySource::Memory(columns, source_name, start, stop) => {
            let columns = memory_columns(&columns)?;
            let columns = match source_name {
                Some(name) => columns.with_source_name(&name),
                None => columns,
            };
            Source::in_memory(columns).with_entries(start..stop)
        }
        PySource::Whole(path, object) => Source::new(path, object.as_deref()),
        PySource::Range(None, _, start, stop) => Source::empty(stop).with_entries(start..stop),
        PySource::Range(Some(path), object, start, stop) => {
            Source::new(path, object.as_deref()).with_entries(start..stop)
        }
    })
}

/// A result booked on a graph.
#[pyclass(name = "Booked", module = "rootweave._rootweave", frozen)]
pub struct PyBooked {
    inner: Booked,
}

fn frame(inner: rootweave::Result<Frame>) -> PyResult<PyFrame> {
    inner.map(|inner| PyFrame { inner }).map_err(to_py)
}

fn booked(inner: rootweave::Result<Booked>) -> PyResult<PyBooked> {
    inner.map(|inner| PyBooked { inner }).map_err(to_py)
}

/// An axis from a dict of `bins`, `min`, `max`, or `edges`.
fn axis(d: &Bound<'_, PyDict>) -> PyResult<AxisModel> {
    if let Some(edges) = array(d, "edges")? {
        return Ok(AxisModel::Variable(edges));
    }
    Ok(AxisModel::Regular {
        bins: required(d, "bins")?,
        min: required(d, "min")?,
        max: required(d, "max")?,
    })
}

#[pymethods]
impl PyFrame {
    /// A graph over the `sources` (`(path, object name or None)`, or with the entries
    /// `(start, stop)` read of it; `(None, None, start, stop)`: entries without a file;
    /// `({name: array}, None, start, stop)`: columns in memory), read on `threads` threads
    /// (0: every core); its entries numbered from `first_entry` (`rdfentry_`: where a
    /// partition starts in the dataset); knowing the columns of `schema` if given (the
    /// whole dataset's first source, for a partition of it).
    #[new]
    #[pyo3(signature = (sources, threads=0, first_entry=0, schema=None))]
    fn new(
        sources: Vec<PySource<'_>>,
        threads: usize,
        first_entry: u64,
        schema: Option<PySource<'_>>,
    ) -> PyResult<Self> {
        use rootweave::dataset::{Dataset, Source};
        let sources = sources
            .into_iter()
            .map(source)
            .collect::<PyResult<Vec<Source>>>()?;
        let options = rootweave::ReadOptions::default().with_threads(threads);
        let dataset = Dataset::new(sources, options).map_err(to_py)?;
        let dataset = dataset.with_first_entry(first_entry);
        let inner = match schema {
            Some(schema) => Frame::new(dataset).with_schema(source(schema)?),
            None => Frame::new(dataset),
        };
        Ok(PyFrame { inner })
    }

    /// The `(start, stop)` entry ranges of each source's batches, as a run reads them.
    fn batch_ranges(&self, py: Python<'_>) -> PyResult<Vec<Vec<(u64, u64)>>> {
        let ranges = py.detach(|| self.inner.batch_ranges()).map_err(to_py)?;
        Ok(ranges
            .into_iter()
            .map(|r| r.into_iter().map(|b| (b.start, b.end)).collect())
            .collect())
    }

    /// `Define(name, expression)`.
    fn define(&self, name: &str, expression: &str) -> PyResult<PyFrame> {
        frame(self.inner.define(name, expression))
    }

    /// `Redefine(name, expression)`.
    fn redefine(&self, name: &str, expression: &str) -> PyResult<PyFrame> {
        frame(self.inner.redefine(name, expression))
    }

    /// `DefinePerSample(name, ...)` with the value of each source, in order.
    fn define_per_sample(&self, name: &str, values: Vec<f64>) -> PyResult<PyFrame> {
        frame(
            self.inner
                .define_per_sample(name, |s| values.get(s.index).copied().unwrap_or(f64::NAN)),
        )
    }

    /// `DefinePerSample(name, expression)` from the expression of each source, in order,
    /// its sample's values written in: each evaluated once, the column in their C++ type.
    fn define_per_sample_expressions(
        &self,
        name: &str,
        expressions: Vec<String>,
    ) -> PyResult<PyFrame> {
        use rootweave::analysis::column::Values;
        let mut values: Option<Values> = None;
        for text in &expressions {
            let value = constant_value(text)?;
            values = Some(match values {
                None => value,
                Some(so_far) => so_far
                    .append(value)
                    .map_err(|e| PyValueError::new_err(format!("DefinePerSample '{name}': {e}")))?,
            });
        }
        frame(
            self.inner
                .define_per_sample_values(name, values.unwrap_or(Values::F64(Vec::new()))),
        )
    }

    /// `Vary(columns, expression, tags, name)`: `expression` a braced list of the values
    /// (per column, for several).
    fn vary(
        &self,
        columns: Vec<String>,
        expression: &str,
        tags: Vec<String>,
        name: &str,
    ) -> PyResult<PyFrame> {
        let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
        let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
        frame(self.inner.vary_columns(&columns, expression, &tags, name))
    }

    /// `Define(name, callable, columns)` / `Filter(callable, columns, name)` with a Python
    /// function of a batch's columns: `function(layouts)` is called (with the GIL, on the
    /// reader's threads one at a time) with the columns' layouts and returns `(offsets or
    /// None, values)`, NumPy arrays of one value (or one list) per event.
    #[pyo3(signature = (name, columns, function, filter=false))]
    fn define_python(
        &self,
        name: &str,
        columns: Vec<String>,
        function: Py<PyAny>,
        filter: bool,
    ) -> PyResult<PyFrame> {
        let f: rootweave::analysis::ColumnFn = std::sync::Arc::new(move |cols| {
            Python::attach(|py| python_column(py, &function, cols)).map_err(|e| e.to_string())
        });
        let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
        frame(match filter {
            true => self
                .inner
                .filter_with(&cols, f, (!name.is_empty()).then_some(name)),
            false => self.inner.define_with(name, &cols, f),
        })
    }

    /// `DefaultValueFor(column, value)`: the value's `items` as NumPy makes them of
    /// `dtype`, one number, or (`list`) the items of one list.
    fn default_value_for(
        &self,
        py: Python<'_>,
        column: &str,
        items: &Bound<'_, PyAny>,
        dtype: &str,
        list: bool,
    ) -> PyResult<PyFrame> {
        use rootweave::analysis::column::Column;
        use rootweave::array::Array;
        let numbers = py
            .import("numpy")?
            .call_method1("asarray", (items, dtype))?;
        let values = python_values(&numbers)
            .map_err(|e| PyValueError::new_err(format!("DefaultValueFor('{column}'): {e}")))?;
        let items = Column::Flat(values.into()).into_array();
        let value = match list {
            false => items,
            true => Array::List {
                offsets: vec![0, items.len() as u64],
                values: Box::new(items),
            },
        };
        frame(self.inner.default_value_for(column, value))
    }

    /// `FilterAvailable(column)`.
    fn filter_available(&self, column: &str) -> PyResult<PyFrame> {
        frame(self.inner.filter_available(column))
    }

    /// `FilterMissing(column)`.
    fn filter_missing(&self, column: &str) -> PyResult<PyFrame> {
        frame(self.inner.filter_missing(column))
    }

    /// `Cache(columns)`: runs the graph now; a graph over the columns held in memory.
    fn cache(&self, py: Python<'_>, columns: Vec<String>) -> PyResult<PyFrame> {
        let names: Vec<&str> = columns.iter().map(String::as_str).collect();
        frame(py.detach(|| self.inner.cache(&names)))
    }

    /// `Alias(alias, column)`.
    fn alias(&self, alias: &str, column: &str) -> PyResult<PyFrame> {
        frame(self.inner.alias(alias, column))
    }

    /// `Filter(expression, name)`.
    #[pyo3(signature = (expression, name=None))]
    fn filter(&self, expression: &str, name: Option<&str>) -> PyResult<PyFrame> {
        frame(self.inner.filter(expression, name))
    }

    /// `Range(begin, end, stride)`.
    #[pyo3(signature = (begin, end=None, stride=1))]
    fn range(&self, begin: u64, end: Option<u64>, stride: u64) -> PyResult<PyFrame> {
        frame(self.inner.range(begin, end, stride))
    }

    /// `GetColumnNames()`: the dataset's columns, the defined ones and aliases, sorted.
    fn column_names(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        py.detach(|| self.inner.column_names()).map_err(to_py)
    }

    /// The columns a regular expression of `Snapshot` or `Cache` chooses from, in ROOT's
    /// order: defined, aliases, then the dataset's in its own order.
    fn regex_candidates(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        py.detach(|| self.inner.regex_candidates()).map_err(to_py)
    }

    /// `HasColumn(name)`: read, defined, an alias, or a special column (`rdfentry_`).
    fn has_column(&self, py: Python<'_>, name: &str) -> PyResult<bool> {
        py.detach(|| self.inner.has_column(name)).map_err(to_py)
    }

    /// `GetColumnType(name)`: the column's C++ type as RDataFrame spells it.
    fn column_type(&self, py: Python<'_>, name: &str) -> PyResult<String> {
        py.detach(|| self.inner.column_type(name)).map_err(to_py)
    }

    /// The type the dataset declares for column `name` (a `TString` column, also one defined
    /// as such a column alone or as such columns and literals joined by `+`), found without
    /// evaluating anything; `None` for other defined columns.
    fn declared_type(&self, py: Python<'_>, name: &str) -> PyResult<Option<String>> {
        py.detach(|| self.inner.declared_type(name)).map_err(to_py)
    }

    /// `SaveGraph(df)`: the whole graph (of the root node) or the branch above this node,
    /// in DOT, as RDataFrame draws it.
    fn save_graph(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| self.inner.save_graph()).map_err(to_py)
    }

    /// `Describe()`: the brief and the full parts of the node's description.
    fn describe(&self, py: Python<'_>) -> PyResult<(String, String)> {
        let d = py.detach(|| self.inner.describe()).map_err(to_py)?;
        Ok((d.brief, d.full))
    }

    /// The NumPy type of a read column's numbers (a list's items), `None` for a defined or
    /// special column, or one that is not numbers: `Take` gives the values in that type.
    fn read_dtype(&self, py: Python<'_>, name: &str) -> PyResult<Option<&'static str>> {
        let array = py.detach(|| self.inner.read_type(name)).map_err(to_py)?;
        Ok(array.as_ref().and_then(number_dtype))
    }

    /// `GetDefinedColumnNames()`.
    fn defined_column_names(&self) -> Vec<String> {
        self.inner.defined_column_names()
    }

    /// `GetFilterNames()`.
    fn filter_names(&self) -> Vec<String> {
        self.inner.filter_names()
    }

    /// `Histo1D/2D/3D`: `axes` are dicts of `bins`, `min`, `max` or `edges`.
    #[pyo3(signature = (name, title, axes, columns, weight=None))]
    fn histo(
        &self,
        name: &str,
        title: &str,
        axes: Vec<Bound<'_, PyDict>>,
        columns: Vec<String>,
        weight: Option<&str>,
    ) -> PyResult<PyBooked> {
        let axes = axes.iter().map(axis).collect::<PyResult<Vec<_>>>()?;
        let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
        let model = Model {
            name: name.into(),
            title: title.into(),
            axes,
        };
        booked(self.inner.histo(model, &cols, weight))
    }

    /// `Profile1D` and `Profile2D`: `axes` one or two dicts as `histo` takes them,
    /// `columns` one per axis and the values averaged; `values` the `(low, high)` of the
    /// values kept, `option` ROOT's option for the errors.
    #[pyo3(signature = (name, title, axes, columns, weight=None, values=None, option=""))]
    #[allow(clippy::too_many_arguments)]
    fn profile(
        &self,
        name: &str,
        title: &str,
        axes: Vec<Bound<'_, PyDict>>,
        columns: Vec<String>,
        weight: Option<&str>,
        values: Option<(f64, f64)>,
        option: &str,
    ) -> PyResult<PyBooked> {
        let model = Model {
            name: name.into(),
            title: title.into(),
            axes: axes.iter().map(axis).collect::<PyResult<Vec<_>>>()?,
        };
        let mut model = ProfileModel::from(model)
            .with_option(option)
            .map_err(to_py)?;
        if let Some((low, high)) = values {
            model = model.with_values(low, high);
        }
        booked(match columns.as_slice() {
            [x, y] => self.inner.profile1d(model, x, y, weight),
            [x, y, z] => self.inner.profile2d(model, [x, y, z], weight),
            _ => Err(rootweave::Error::InvalidArgument(
                "a profile of one or two axes: two or three columns".into(),
            )),
        })
    }

    /// `Count()`.
    fn count(&self) -> PyResult<PyBooked> {
        booked(self.inner.count())
    }

    /// `Sum`, `Mean`, `Min`, `Max`, `StdDev` or `Take` of a column.
    fn reduce(&self, what: &str, column: &str) -> PyResult<PyBooked> {
        booked(match what {
            "Sum" => self.inner.sum(column),
            "Mean" => self.inner.mean(column),
            "Min" => self.inner.min(column),
            "Max" => self.inner.max(column),
            "StdDev" => self.inner.std_dev(column),
            "Take" => self.inner.take(column),
            other => return Err(PyValueError::new_err(format!("no action {other}"))),
        })
    }

    /// `Sum`, `Mean`, `Min`, `Max` or `StdDev` of a column left unfinished: its value is the
    /// partial's numbers (`[sum, carry, n]`, `[n, mean, m2]` for `StdDev`, the running
    /// value's change for `Min` and `Max`), which `merge_parts` adds over consecutive parts
    /// of a dataset (a run on Dask, a partition each).
    fn parts(&self, what: &str, column: &str) -> PyResult<PyBooked> {
        booked(
            self.inner
                .book(ActionSpec::Parts(Box::new(spec(what, column)?))),
        )
    }

    /// `Graph(x, y)`: a `TGraph` of the two columns' values, in entry order.
    fn graph(&self, x: &str, y: &str) -> PyResult<PyBooked> {
        booked(self.inner.graph(x, y))
    }

    /// `GraphAsymmErrors(x, y, exl, exh, eyl, eyh)`: a `TGraphAsymmErrors`.
    #[allow(clippy::too_many_arguments)]
    fn graph_asymm_errors(
        &self,
        x: &str,
        y: &str,
        exl: &str,
        exh: &str,
        eyl: &str,
        eyh: &str,
    ) -> PyResult<PyBooked> {
        booked(self.inner.graph_asymm_errors(x, y, [exl, exh, eyl, eyh]))
    }

    /// `Stats(value, weight)`: a `TStatistic` of a column's values.
    #[pyo3(signature = (value, weight=None))]
    fn stats(&self, value: &str, weight: Option<&str>) -> PyResult<PyBooked> {
        booked(self.inner.stats(value, weight))
    }

    /// `Report()`.
    fn report(&self) -> PyResult<PyBooked> {
        booked(self.inner.report())
    }

    /// `Snapshot(tree, path, columns, options)`: writes the events kept here to `path`
    /// (`format` "ttree" or "rntuple", `compression` as the writers take it), in input
    /// order, with the GIL released; a graph over the written tree. With `update`, the tree
    /// is added to the file at `path` if there is one (replacing one of its name with
    /// `overwrite_if_exists`).
    #[pyo3(signature = (tree, path, columns, format="ttree", compression=None, memory_budget=None,
                        update=false, overwrite_if_exists=false))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments, one by one.
    fn snapshot(
        &self,
        py: Python<'_>,
        tree: &str,
        path: std::path::PathBuf,
        columns: Vec<String>,
        format: &str,
        compression: Option<&str>,
        memory_budget: Option<u64>,
        update: bool,
        overwrite_if_exists: bool,
    ) -> PyResult<PyFrame> {
        let how = SnapshotHow {
            format: format.to_string(),
            compression: compression.map(str::to_string),
            memory_budget,
            update,
            overwrite_if_exists,
        };
        let options = how.options()?;
        let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
        frame(py.detach(|| self.inner.snapshot(tree, &path, &cols, &options)))
    }

    /// Makes runs find their number of batches first (a progress bar's total).
    fn watch(&self) {
        self.inner.watch()
    }

    /// The run in progress: `(batches done, entries read, batches in all or None)`, or None.
    fn progress(&self) -> Option<(usize, u64, Option<usize>)> {
        self.inner
            .progress()
            .map(|p| (p.batches, p.entries, p.total_batches))
    }

    /// How far the last run got when it ended: `(batches, entries, batches in all or None)`,
    /// or None (no run ended, or the last failed).
    fn last_progress(&self) -> Option<(usize, u64, Option<usize>)> {
        self.inner
            .last_progress()
            .map(|p| (p.batches, p.entries, p.total_batches))
    }

    /// How many times the graph ran.
    fn runs(&self) -> usize {
        self.inner.runs()
    }

    /// `GetNSlots()`.
    fn slots(&self) -> usize {
        self.inner.slots()
    }
}

#[pymethods]
impl PyBooked {
    /// `VariationsFor(result)`: `("nominal", result)`, then the result in every variation
    /// of every `Vary` above it, `("name:tag", result)`.
    fn variations(&self) -> PyResult<Vec<(String, PyBooked)>> {
        Ok(Frame::variations_for(&self.inner)
            .map_err(to_py)?
            .into_iter()
            .map(|(name, inner)| (name, PyBooked { inner }))
            .collect())
    }

    /// The value, running the graph (with the GIL released) if needed: a histogram as a
    /// dict of its sums, a count, a number, a column's layout, or a report's rows.
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = py.detach(|| self.inner.value()).map_err(to_py)?;
        to_python(py, value)
    }

    /// The value merged so far while the graph runs (as `value` gives it), the value once
    /// done, None before the run starts.
    fn so_far<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inner.so_far() {
            None => Ok(None),
            Some(value) => to_python(py, value.map_err(to_py)?).map(Some),
        }
    }

    /// Whether the value is there.
    fn is_ready(&self) -> bool {
        self.inner.is_ready()
    }

    /// `SaveGraph(result)`: the branch from the data source to this result, in DOT.
    fn save_graph(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| self.inner.save_graph()).map_err(to_py)
    }
}

/// `Sum`, `Mean` or `StdDev` of `column`, by name.
/// The NumPy type name of an array's numbers (a list's items), `None` for other layouts.
fn number_dtype(array: &rootweave::array::Array) -> Option<&'static str> {
    match array {
        rootweave::array::Array::List { values, .. } => number_dtype(values),
        numbers if rootweave::analysis::column::numbers(numbers) => Some(numbers.kind()),
        _ => None,
    }
}

fn spec(what: &str, column: &str) -> PyResult<ActionSpec> {
    let column = column.to_string();
    Ok(match what {
        "Sum" => ActionSpec::Sum(column),
        "Mean" => ActionSpec::Mean(column),
        "Min" => ActionSpec::Min(column),
        "Max" => ActionSpec::Max(column),
        "StdDev" => ActionSpec::StdDev(column),
        other => {
            return Err(PyValueError::new_err(format!(
                "no parts of {other} (Sum, Mean, Min, Max or StdDev)"
            )))
        }
    })
}

/// The value of `Sum`, `Mean`, `Min`, `Max` or `StdDev` (`what`) from the parts (`Frame.parts`'
/// values) of consecutive parts of a dataset, in its order: added as one run adds its
/// batches, so that parts of one batch each give the bits of one run.
#[pyfunction]
fn merge_parts(what: &str, parts: Vec<Vec<f64>>) -> PyResult<f64> {
    match spec(what, "")?.merge_parts(&parts).map_err(to_py)? {
        ResultValue::Number(x) => Ok(x),
        other => Err(PyValueError::new_err(format!(
            "parts merged into {other:?}, not a number"
        ))),
    }
}

/// The statistic of consecutive parts of a dataset (`Stats`' values, in its order), merged
/// as one run merges its batches' (`TStatistic::Merge`'s formula): a Dask run's partitions.
#[pyfunction]
fn merge_statistics<'py>(
    py: Python<'py>,
    parts: Vec<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut total = rootweave::objects::Statistic::default();
    for part in &parts {
        total.merge(&crate::write_objects::statistic(part)?);
    }
    statistic_dict(py, &total)
}

/// Calls a Python function of columns (see `define_python`) and takes its column back.
fn python_column(
    py: Python<'_>,
    function: &Py<PyAny>,
    cols: &[rootweave::analysis::column::Column],
) -> PyResult<rootweave::analysis::column::Column> {
    use rootweave::analysis::column::Column;
    let layouts = PyList::empty(py);
    for c in cols {
        layouts.append(to_layout(py, c.clone().into_array())?)?;
    }
    let out = function.call1(py, (layouts,))?;
    let (offsets, values): (Option<numpy::PyReadonlyArray1<'_, u64>>, Bound<'_, PyAny>) =
        out.extract(py)?;
    let values = python_values(&values)?;
    Ok(match offsets {
        None => Column::Flat(values.into()),
        Some(o) => {
            let o: Vec<usize> = o.as_slice()?.iter().map(|&x| x as usize).collect();
            if o.first() != Some(&0)
                || o.windows(2).any(|w| w[0] > w[1])
                || o.last() != Some(&values.len())
            {
                return Err(PyValueError::new_err(
                    "a function's list offsets do not fit its values",
                ));
            }
            Column::Jagged(std::sync::Arc::new(o), values.into())
        }
    })
}

/// A NumPy array of booleans, integers or floats as the analysis layer's values.
fn python_values(a: &Bound<'_, PyAny>) -> PyResult<rootweave::analysis::column::Values> {
    use numpy::PyReadonlyArray1 as A;
    use rootweave::analysis::column::Values;
    use rootweave::analysis::expr::IntTy;
    if let Ok(v) = a.extract::<A<'_, f64>>() {
        return Ok(Values::F64(v.as_slice()?.to_vec()));
    }
    if let Ok(v) = a.extract::<A<'_, f32>>() {
        return Ok(Values::F32(v.as_slice()?.to_vec()));
    }
    if let Ok(v) = a.extract::<A<'_, bool>>() {
        return Ok(Values::Bool(v.as_slice()?.to_vec()));
    }
    // Integers keep their width and signedness (an `int64` array is `Long64_t`).
    macro_rules! ints {
        ($($t:ty => $bits:expr, $unsigned:expr);*) => {$(
            if let Ok(v) = a.extract::<A<'_, $t>>() {
                let ty = IntTy::of_width($bits, $unsigned);
                return Ok(Values::Int(ty, v.as_slice()?.iter().map(|&x| x as i64).collect()));
            }
        )*};
    }
    ints!(i64 => 64, false; i32 => 32, false; i16 => 16, false; i8 => 8, false;
          u64 => 64, true; u32 => 32, true; u16 => 16, true; u8 => 8, true);
    Err(PyValueError::new_err(
        "a function must give a 1-dimensional NumPy array of bool, integers, float32 or float64",
    ))
}

/// A result as Python objects: a histogram as a dict of its sums, a graph as a dict of its
/// name, title and points, a count, a number, a column's layout, a report's rows, or a
/// partial's numbers.
fn to_python(py: Python<'_>, value: ResultValue) -> PyResult<Bound<'_, PyAny>> {
    Ok(match value {
        ResultValue::Count(n) => n.into_pyobject(py)?.into_any(),
        ResultValue::Number(x) => x.into_pyobject(py)?.into_any(),
        ResultValue::Column(c) => to_layout(py, c.into_array())?.into_any(),
        ResultValue::Array(a) => to_layout(py, a)?.into_any(),
        ResultValue::Report(rows) => PyList::new(py, rows)?.into_any(),
        ResultValue::Parts(numbers) => PyList::new(py, numbers)?.into_any(),
        ResultValue::Statistic(s) => statistic_dict(py, &s)?.into_any(),
        ResultValue::Graph(g) => {
            let d = PyDict::new(py);
            d.set_item("name", &g.name)?;
            d.set_item("title", &g.title)?;
            d.set_item("x", numpy::PyArray1::from_vec(py, g.x))?;
            d.set_item("y", numpy::PyArray1::from_vec(py, g.y))?;
            let errors = g
                .errors
                .map(|e| e.map(|v| numpy::PyArray1::from_vec(py, v)));
            d.set_item("errors", errors.map(|e| e.to_vec()))?;
            d.into_any()
        }
        ResultValue::Histogram(h) => {
            let d = PyDict::new(py);
            d.set_item("class", &h.class)?;
            d.set_item("name", &h.name)?;
            d.set_item("title", &h.title)?;
            d.set_item("content_title", &h.content_title)?;
            let axes = PyList::empty(py);
            for a in &h.axes {
                let ad = PyDict::new(py);
                ad.set_item("title", &a.title)?;
                ad.set_item("bins", a.bins)?;
                ad.set_item("min", a.min)?;
                ad.set_item("max", a.max)?;
                ad.set_item("edges", a.edges.clone())?;
                axes.append(ad)?;
            }
            d.set_item("axes", axes)?;
            d.set_item("cells", numpy::PyArray1::from_vec(py, h.cells))?;
            d.set_item("sumw2", h.sumw2.map(|v| numpy::PyArray1::from_vec(py, v)))?;
            d.set_item("entries", h.entries)?;
            d.set_item("stats", h.stats)?;
            if let Some(p) = h.profile {
                d.set_item("bin_entries", numpy::PyArray1::from_vec(py, p.bin_entries))?;
                d.set_item("sum_wy2", numpy::PyArray1::from_vec(py, p.sum_wy2))?;
                let bin_sumw2 = p.bin_sumw2.map(|v| numpy::PyArray1::from_vec(py, v));
                d.set_item("bin_sumw2", bin_sumw2)?;
                d.set_item("error_mode", p.error_mode as i32)?;
                d.set_item("value_min", p.value_min)?;
                d.set_item("value_max", p.value_max)?;
            }
            d.into_any()
        }
    })
}

/// A statistic's members as a dict: `name`, `n`, `w`, `w2`, `m`, `m2`, `min`, `max`.
pub(crate) fn statistic_dict<'py>(
    py: Python<'py>,
    s: &rootweave::objects::Statistic,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &s.name)?;
    d.set_item("n", s.n)?;
    for (k, v) in [("w", s.w), ("w2", s.w2), ("m", s.m), ("m2", s.m2)] {
        d.set_item(k, v)?;
    }
    d.set_item("min", s.min)?;
    d.set_item("max", s.max)?;
    Ok(d)
}

/// How a snapshot is written, as Python gives it: the format ("ttree" or "rntuple"), the
/// compression as the writers take it, the memory budget, "UPDATE" mode and overwriting.
struct SnapshotHow {
    format: String,
    compression: Option<String>,
    memory_budget: Option<u64>,
    update: bool,
    overwrite_if_exists: bool,
}

impl SnapshotHow {
    fn options(&self) -> PyResult<rootweave::analysis::SnapshotOptions> {
        use rootweave::analysis::{SnapshotFormat, SnapshotOptions};
        let format = match self.format.to_ascii_lowercase().as_str() {
            "ttree" => SnapshotFormat::TTree,
            "rntuple" => SnapshotFormat::RNTuple,
            other => {
                return Err(PyValueError::new_err(format!(
                    "no output format '{other}' (ttree or rntuple)"
                )))
            }
        };
        Ok(SnapshotOptions {
            format,
            compression: self
                .compression
                .as_deref()
                .map(crate::write::compression)
                .transpose()?,
            memory_budget: self.memory_budget,
            update: self.update,
            overwrite_if_exists: self.overwrite_if_exists,
        })
    }
}

/// Several snapshots of nodes of one graph written in ONE pass with its pending results
/// (lazy snapshots, as RDataFrame runs them in its next event loop), the GIL released:
/// each request `(frame, tree, path, columns, (format, compression, memory_budget, update,
/// overwrite_if_exists))`; a graph over each written tree, or the first error (then none is
/// written).
#[pyfunction]
#[allow(clippy::type_complexity)] // One tuple per request, as Python passes them.
fn snapshot_all(
    py: Python<'_>,
    requests: Vec<(
        PyRef<'_, PyFrame>,
        String,
        std::path::PathBuf,
        Vec<String>,
        (String, Option<String>, Option<u64>, bool, bool),
    )>,
) -> PyResult<Vec<PyFrame>> {
    let options = requests
        .iter()
        .map(|r| {
            let (format, compression, memory_budget, update, overwrite_if_exists) = r.4.clone();
            SnapshotHow {
                format,
                compression,
                memory_budget,
                update,
                overwrite_if_exists,
            }
            .options()
        })
        .collect::<PyResult<Vec<_>>>()?;
    let columns: Vec<Vec<&str>> = requests
        .iter()
        .map(|r| r.3.iter().map(String::as_str).collect())
        .collect();
    let frames: Vec<Frame> = requests.iter().map(|r| r.0.inner.clone()).collect();
    let places: Vec<(&str, &std::path::Path)> = requests
        .iter()
        .map(|r| (r.1.as_str(), r.2.as_path()))
        .collect();
    let written = py.detach(|| {
        let all: Vec<rootweave::analysis::SnapshotRequest> = places
            .iter()
            .enumerate()
            .map(|(k, (tree, path))| rootweave::analysis::SnapshotRequest {
                frame: &frames[k],
                tree,
                path,
                columns: &columns[k],
                options: &options[k],
            })
            .collect();
        rootweave::analysis::snapshot_all(&all)
    });
    Ok(written
        .map_err(to_py)?
        .into_iter()
        .map(|inner| PyFrame { inner })
        .collect())
}

/// `RunGraphs`: the results of every graph `results` belong to, computed in one loop over
/// all their files (the GIL released); returns how many graphs ran.
#[pyfunction]
fn run_graphs(py: Python<'_>, results: Vec<PyRef<'_, PyBooked>>) -> PyResult<usize> {
    let booked: Vec<Booked> = results.iter().map(|r| r.inner.clone()).collect();
    py.detach(|| rootweave::analysis::run_graphs(&booked.iter().collect::<Vec<_>>()))
        .map_err(to_py)
}

/// Registers the classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyFrame>()?;
    m.add_class::<PyBooked>()?;
    m.add_function(wrap_pyfunction!(run_graphs, m)?)?;
    m.add_function(wrap_pyfunction!(merge_parts, m)?)?;
    m.add_function(wrap_pyfunction!(merge_statistics, m)?)?;
    m.add_function(wrap_pyfunction!(snapshot_all, m)?)?;
    Ok(())
}
