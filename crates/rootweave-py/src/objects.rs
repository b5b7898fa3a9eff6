//! Keyed objects other than trees: read through the file's StreamerInfo and handed to
//! Python as plain data (the package's `_objects.py` builds its classes from it).

use std::collections::HashMap;
use std::sync::Arc;

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use rootweave::objects::{is_histogram_class, read_object as read, Histogram, Object, Value};

use crate::errors::to_py;
use crate::read::OpenFile;

/// A member that could not be read, with the reason.
#[pyclass(module = "rootweave._rootweave", frozen)]
pub struct Unread {
    /// Why it was not read.
    #[pyo3(get)]
    reason: String,
}

#[pymethods]
impl Unread {
    fn __repr__(&self) -> String {
        format!("<unread: {}>", self.reason)
    }
}

/// The object at `path` (the names of the directories down to it, then its own, each
/// `name` or `name;cycle`) of an open file, as `(class, version, members, histogram)`:
/// members a list of `(name, value)` (numbers, strings, NumPy arrays, nested objects in
/// the same form, lists of them, `None` for null pointers, `Unread` for members that
/// could not be read); `histogram` a dict of the histogram view for histogram classes
/// (see [`histogram`]), else `None`.
#[pyfunction]
pub fn read_object(
    py: Python<'_>,
    file: PyRef<'_, OpenFile>,
    path: Vec<String>,
) -> PyResult<Py<PyAny>> {
    let open = file.file();
    let streamers = file.streamers(py)?;
    let object = py
        .detach(|| {
            let parts: Vec<&str> = path.iter().map(String::as_str).collect();
            let key = rootweave::objects::find_key(&open, &parts)?;
            read(&open, &streamers, &key)
        })
        .map_err(to_py)?;
    Ok(object_to_py(py, &object, &mut Memo::new())?.unbind())
}

/// Objects already converted, by address: an object referenced from several places (a
/// geometry's volumes and nodes) is converted once and shared, as in the file, instead of
/// once per path to it (exponentially many).
type Memo<'py> = HashMap<*const Object, Bound<'py, PyAny>>;

/// A shared object, converted once.
fn shared_to_py<'py>(
    py: Python<'py>,
    o: &Arc<Object>,
    memo: &mut Memo<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(done) = memo.get(&Arc::as_ptr(o)) {
        return Ok(done.clone());
    }
    let converted = object_to_py(py, o, memo)?;
    memo.insert(Arc::as_ptr(o), converted.clone());
    Ok(converted)
}

/// An object as `(class, version, members, histogram)`.
fn object_to_py<'py>(
    py: Python<'py>,
    o: &Object,
    memo: &mut Memo<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let members = PyList::empty(py);
    for (name, value) in &o.members {
        members.append((&**name, value_to_py(py, value, memo)?))?;
    }
    let hist = if is_histogram_class(&o.class) {
        match Histogram::from_object(o) {
            Ok(h) => histogram(py, &h)?.into_any(),
            Err(why) => Unread { reason: why }.into_pyobject(py)?.into_any(),
        }
    } else {
        py.None().into_bound(py)
    };
    Ok(PyTuple::new(
        py,
        [
            o.class.as_str().into_pyobject(py)?.into_any(),
            o.version.into_pyobject(py)?.into_any(),
            members.into_any(),
            hist,
        ],
    )?
    .into_any())
}

fn value_to_py<'py>(
    py: Python<'py>,
    v: &Value,
    memo: &mut Memo<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py)?.into_any(),
        Value::UInt(u) => u.into_pyobject(py)?.into_any(),
        Value::Float(f) => f.into_pyobject(py)?.into_any(),
        Value::Str(s) => s.into_pyobject(py)?.into_any(),
        Value::Ints(v) => PyArray1::from_slice(py, v).into_any(),
        Value::Floats(v) => PyArray1::from_slice(py, v).into_any(),
        Value::Bytes(b) => pyo3::types::PyBytes::new(py, b).into_any(),
        Value::Object(o) => shared_to_py(py, o, memo)?,
        Value::Objects(list) => {
            let out = PyList::empty(py);
            for item in list {
                match item {
                    Some(o) => out.append(shared_to_py(py, o, memo)?)?,
                    None => out.append(py.None())?,
                }
            }
            out.into_any()
        }
        Value::List(items) => {
            let out = PyList::empty(py);
            for item in items {
                out.append(value_to_py(py, item, memo)?)?;
            }
            out.into_any()
        }
        Value::Map(entries) => {
            // A dict where every key can be one, else a list of (key, value) tuples.
            let pairs = entries
                .iter()
                .map(|(k, v)| Ok((value_to_py(py, k, memo)?, value_to_py(py, v, memo)?)))
                .collect::<PyResult<Vec<_>>>()?;
            let dict = PyDict::new(py);
            let mut hashable = true;
            for (k, v) in &pairs {
                if dict.set_item(k, v).is_err() {
                    hashable = false;
                    break;
                }
            }
            if hashable {
                dict.into_any()
            } else {
                PyList::new(py, pairs)?.into_any()
            }
        }
        Value::Pair(pair) => PyTuple::new(
            py,
            [
                value_to_py(py, &pair.0, memo)?,
                value_to_py(py, &pair.1, memo)?,
            ],
        )?
        .into_any(),
        Value::Unread(why) => Unread {
            reason: why.clone(),
        }
        .into_pyobject(py)?
        .into_any(),
    })
}

/// A histogram's view: class, name, title, axes (name, title, edges as ROOT's
/// `GetBinLowEdge`/`GetBinUpEdge` give them, labels or `None`), and per cell (flow cells
/// included, x fastest) the contents and errors as ROOT's `GetBinContent` and
/// `GetBinError` give them, the variances, the effective entries (`counts`), the stored
/// sums; entries, the statistics sums, and per axis (a profile's values last) the mean
/// and standard deviation as `GetMean` and `GetStdDev` give them.
fn histogram<'py>(py: Python<'py>, h: &Histogram) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("class", &h.class)?;
    d.set_item("name", &h.name)?;
    d.set_item("title", &h.title)?;
    d.set_item("content_title", &h.content_title)?;
    let axes = PyList::empty(py);
    for a in &h.axes {
        let axis = PyDict::new(py);
        axis.set_item("name", &a.name)?;
        axis.set_item("title", &a.title)?;
        axis.set_item("edges", PyArray1::from_vec(py, a.all_edges()))?;
        axis.set_item("labels", a.labels.clone())?;
        axis.set_item("variable", a.edges.is_some())?;
        axis.set_item("can_extend", a.can_extend)?;
        axis.set_item("min", a.min)?;
        axis.set_item("max", a.max)?;
        axes.append(axis)?;
    }
    d.set_item("axes", axes)?;
    let cells = 0..h.cells.len();
    let per_cell = |f: &dyn Fn(usize) -> f64| cells.clone().map(f).collect::<Vec<f64>>();
    d.set_item(
        "values",
        PyArray1::from_vec(py, per_cell(&|c| h.content(c))),
    )?;
    d.set_item("errors", PyArray1::from_vec(py, per_cell(&|c| h.error(c))))?;
    d.set_item(
        "variances",
        PyArray1::from_vec(py, per_cell(&|c| h.variance(c))),
    )?;
    d.set_item(
        "counts",
        PyArray1::from_vec(py, per_cell(&|c| h.effective_entries(c))),
    )?;
    d.set_item("sumw", PyArray1::from_slice(py, &h.cells))?;
    d.set_item(
        "sumw2",
        h.sumw2.as_ref().map(|v| PyArray1::from_slice(py, v)),
    )?;
    d.set_item("profile", h.profile.is_some())?;
    if let Some(p) = &h.profile {
        d.set_item("bin_entries", PyArray1::from_slice(py, &p.bin_entries))?;
        d.set_item("sum_wy2", PyArray1::from_slice(py, &p.sum_wy2))?;
        d.set_item(
            "bin_sumw2",
            p.bin_sumw2.as_ref().map(|v| PyArray1::from_slice(py, v)),
        )?;
        d.set_item("error_mode", p.error_mode as i32)?;
    }
    d.set_item("entries", h.entries)?;
    let stats = PyDict::new(py);
    for (name, v) in &h.stats {
        stats.set_item(name, v)?;
    }
    d.set_item("stats", stats)?;
    let value_axes = h.axes.len() + usize::from(h.profile.is_some());
    d.set_item(
        "mean",
        (0..value_axes).map(|a| h.mean(a)).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "std",
        (0..value_axes).map(|a| h.std_dev(a)).collect::<Vec<_>>(),
    )?;
    d.set_item("effective_entries", h.total_effective_entries())?;
    Ok(d)
}
