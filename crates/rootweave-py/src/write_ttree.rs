//! Writing TTrees from Python: fields become branches as uproot writes them (numbers and
//! fixed-size arrays as they are; a list gets a counter branch `n<name>`; a record one
//! branch per member `<name>_<member>`; a list of records, NanoAOD style, one counter and
//! a counted branch per member), filled batch by batch with the GIL released; the
//! writer's lock is taken detached (see [`crate::detached`]).

use std::sync::Mutex;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use rootweave::array::{ColumnData, LeafType};
use rootweave::rntuple::FieldType;
use rootweave::ttree::{BranchSpec, TTreeWriteOptions, TTreeWriter};

use crate::detached::{detached_in_drop, with_lock};
use crate::errors::to_py;
use crate::spec::{column_data, field_type, hold};
use crate::write::{compression, OutputFile};

/// A number type with fixed-size array dimensions around it.
fn shaped(ty: &FieldType) -> Option<(LeafType, Vec<usize>)> {
    let mut dims = Vec::new();
    let mut ty = ty;
    while let FieldType::Array(inner, n) = ty {
        dims.push(*n);
        ty = inner;
    }
    ty.number().map(|leaf| (leaf, dims))
}

/// How a field's batch becomes branch batches.
enum Plan {
    /// One branch (numbers or fixed-size arrays of them).
    Branch,
    /// A list of numbers: its counter (`n<name>`, int32 as uproot writes it), then the
    /// counted branch.
    List,
    /// A list of records, NanoAOD style: one counter (`n<name>`), then one counted branch
    /// per member (`<name>_<member>`).
    Records(usize),
    /// A record: one branch per member (`<name>_<member>`).
    Record(usize),
}

/// The branches for field `name` of type `ty`, and how its batches are split among them.
fn plan(name: &str, ty: &FieldType, counter: &str, out: &mut Vec<BranchSpec>) -> PyResult<Plan> {
    let unsupported = || {
        PyTypeError::new_err(format!(
            "branch '{name}': TTrees hold numbers, fixed-size arrays of them, lists of them, \
             records and lists of records of them so far, not {ty:?}"
        ))
    };
    if let Some((leaf, dims)) = shaped(ty) {
        out.push(BranchSpec::array(name, leaf, &dims));
        return Ok(Plan::Branch);
    }
    let members =
        |fields: &[rootweave::rntuple::Field]| -> PyResult<Vec<(String, LeafType, Vec<usize>)>> {
            fields
                .iter()
                .map(|f| {
                    shaped(&f.ty)
                        .map(|(leaf, dims)| (format!("{name}_{}", f.name), leaf, dims))
                        .ok_or_else(unsupported)
                })
                .collect()
        };
    match ty {
        FieldType::Vector(item) | FieldType::UntypedCollection(item) => {
            if let Some((leaf, dims)) = shaped(item) {
                out.push(BranchSpec::scalar(counter, LeafType::Int32));
                out.push(BranchSpec::counted(name, leaf, counter, &dims));
                return Ok(Plan::List);
            }
            let FieldType::Record { fields, .. } = item.as_ref() else {
                return Err(unsupported());
            };
            let members = members(fields)?;
            out.push(BranchSpec::scalar(counter, LeafType::Int32));
            for (branch, leaf, dims) in &members {
                out.push(BranchSpec::counted(branch, *leaf, counter, dims));
            }
            Ok(Plan::Records(members.len()))
        }
        FieldType::Record { fields, .. } => {
            let members = members(fields)?;
            for (branch, leaf, dims) in &members {
                out.push(BranchSpec::array(branch, *leaf, dims));
            }
            Ok(Plan::Record(members.len()))
        }
        _ => Err(unsupported()),
    }
}

/// The counts of a list batch's entries, as int32 (what its counter branch holds).
fn counts(field: &str, data: &ColumnData) -> PyResult<Vec<i32>> {
    let ColumnData::List { offsets, .. } = data else {
        return Err(PyTypeError::new_err(format!(
            "field '{field}': a list per entry is needed"
        )));
    };
    offsets
        .windows(2)
        .map(|w| i32::try_from(w[1].saturating_sub(w[0])))
        .collect::<Result<_, _>>()
        .map_err(|_| PyValueError::new_err(format!("field '{field}': an entry of over 2^31 items")))
}

/// Splits the fields' batches into the branches' batches, following `plans`; `counts`
/// holds each list field's counts (borrowed by its counter's batch).
fn branch_batches<'a>(
    plans: &[Plan],
    fields: &'a [ColumnData<'a>],
    counts: &'a [Option<Vec<i32>>],
) -> PyResult<Vec<ColumnData<'a>>> {
    let mut out = Vec::new();
    for ((plan, data), counts) in plans.iter().zip(fields).zip(counts) {
        match plan {
            Plan::Branch => out.push(data.clone()),
            Plan::List => {
                out.push(ColumnData::Int32(counts.as_deref().unwrap_or(&[])));
                out.push(data.clone());
            }
            Plan::Records(n) => {
                out.push(ColumnData::Int32(counts.as_deref().unwrap_or(&[])));
                let ColumnData::List { offsets, items } = data else {
                    return Err(PyTypeError::new_err(
                        "a list of records per entry is needed",
                    ));
                };
                let ColumnData::Record(members) = items.as_ref() else {
                    return Err(PyTypeError::new_err(
                        "a list of records per entry is needed",
                    ));
                };
                if members.len() != *n {
                    return Err(PyValueError::new_err(
                        "records with another number of members",
                    ));
                }
                for m in members {
                    out.push(ColumnData::list(offsets, m.clone()));
                }
            }
            Plan::Record(n) => {
                let ColumnData::Record(members) = data else {
                    return Err(PyTypeError::new_err("a record per entry is needed"));
                };
                if members.len() != *n {
                    return Err(PyValueError::new_err(
                        "records with another number of members",
                    ));
                }
                out.extend(members.iter().cloned());
            }
        }
    }
    Ok(out)
}

/// A TTree being written in an output file.
#[pyclass(module = "rootweave._rootweave")]
pub struct TreeWriter {
    /// The writer until closed.
    writer: Mutex<Option<TTreeWriter>>,
    names: Vec<String>,
    plans: Vec<Plan>,
    /// Kept so that the file outlives the writer.
    _file: Py<OutputFile>,
}

#[pymethods]
impl TreeWriter {
    #[new]
    /// Starts tree `name` of the given fields (`[(name, type tuple), ...]`) in `file`; a
    /// list field's counter branch is `n<field>`, or the name `counters` gives it.
    #[pyo3(signature = (file, name, schema, compression="zstd:5", title="", basket_size=32000, counters=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        file: &Bound<'_, OutputFile>,
        name: String,
        schema: &Bound<'_, PyList>,
        compression: &str,
        title: &str,
        basket_size: usize,
        counters: Option<std::collections::HashMap<String, String>>,
    ) -> PyResult<Self> {
        let mut branches = Vec::with_capacity(schema.len());
        let mut names = Vec::with_capacity(schema.len());
        let mut plans = Vec::with_capacity(schema.len());
        for item in schema.iter() {
            let (field, ty): (String, Bound<'_, PyAny>) = item.extract()?;
            let counter = counters
                .as_ref()
                .and_then(|c| c.get(&field).cloned())
                .unwrap_or_else(|| format!("n{field}"));
            plans.push(plan(
                &field,
                &field_type(&ty, &field)?,
                &counter,
                &mut branches,
            )?);
            names.push(field);
        }
        let options = TTreeWriteOptions::default()
            .with_title(title)
            .with_compression(self::compression(compression)?)
            .with_basket_size(basket_size);
        let shared = file.get().shared(py)?;
        let writer = py
            .detach(|| TTreeWriter::in_file(shared, &name, branches, options))
            .map_err(to_py)?;
        Ok(TreeWriter {
            writer: Mutex::new(Some(writer)),
            names,
            plans,
            _file: file.clone().unbind(),
        })
    }

    /// Appends a batch (a list of batch tuples, one per branch). The whole batch is
    /// checked before anything is written.
    fn extend(&self, py: Python<'_>, batch: &Bound<'_, PyList>) -> PyResult<()> {
        if batch.len() != self.names.len() {
            return Err(PyValueError::new_err(format!(
                "a batch needs {} branches, got {}",
                self.names.len(),
                batch.len()
            )));
        }
        let held = batch
            .iter()
            .zip(&self.names)
            .map(|(b, name)| hold(&b, name))
            .collect::<PyResult<Vec<_>>>()?;
        let fields = held.iter().map(column_data).collect::<PyResult<Vec<_>>>()?;
        let counts = self
            .plans
            .iter()
            .zip(&fields)
            .zip(&self.names)
            .map(|((plan, data), name)| match plan {
                Plan::List | Plan::Records(_) => counts(name, data).map(Some),
                _ => Ok(None),
            })
            .collect::<PyResult<Vec<_>>>()?;
        let data = branch_batches(&self.plans, &fields, &counts)?;
        with_lock(py, &self.writer, |slot| {
            let writer = slot
                .as_mut()
                .ok_or_else(|| PyValueError::new_err("the tree writer is closed"))?;
            writer.extend(&data).map_err(to_py)
        })
    }

    /// Writes the open baskets and the tree; returns the number of entries. Closing a
    /// closed writer does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<Option<u64>> {
        with_lock(py, &self.writer, |slot| match slot.take() {
            Some(writer) => {
                let entries = writer.entries();
                writer.close().map_err(to_py)?;
                Ok(Some(entries))
            }
            None => Ok(None),
        })
    }
}

/// A writer collected unclosed writes its tree (as the library's writer does when
/// dropped), detached: that writes to the file.
impl Drop for TreeWriter {
    fn drop(&mut self) {
        let slot = self.writer.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(writer) = slot.take() {
            detached_in_drop(move || drop(writer));
        }
    }
}
