//! One entry given as [`Value`]s, checked against its branch and held as a batch of one
//! entry, so that `fill` writes through the same path as `extend`.

use crate::array::{Array, ColumnData, LeafType, Value};
use crate::error::{Error, Result};
use crate::ttree::write::branches::branch::{BranchKind, BranchSpec, ElementClass, LeafSpec};
use crate::ttree::write::branches::class::{ClassSpec, MemberType};

/// The entry `value` of branch `spec` as an array of one entry.
pub(in crate::ttree::write) fn one_entry(spec: &BranchSpec, value: &Value) -> Result<Array> {
    let bad = || {
        Error::InvalidArgument(format!(
            "fill: branch {} does not hold a value like {value:?}",
            spec.name
        ))
    };
    let one = |values: Array, n: usize| Array::List {
        offsets: vec![0, n as u64],
        values: Box::new(values),
    };
    Ok(match &spec.kind {
        BranchKind::Leaves {
            leaves,
            counter: None,
        } if leaves.len() == 1 => leaf_values(&leaves[0], value).ok_or_else(bad)?,
        BranchKind::Leaves {
            leaves,
            counter: None,
        } => {
            let Value::Record(members) = value else {
                return Err(bad());
            };
            if members.len() != leaves.len() {
                return Err(bad());
            }
            let fields = leaves
                .iter()
                .zip(members)
                .map(|(l, v)| Some((l.name.clone(), leaf_values(l, v)?)))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(bad)?;
            Array::Record { len: 1, fields }
        }
        BranchKind::Leaves { leaves, .. } => {
            let items = list(value).ok_or_else(bad)?;
            let n = items.len();
            let mut flat = Vec::new();
            items.iter().for_each(|v| gather(v, &mut flat));
            if flat.len() != n * leaves[0].width() {
                return Err(bad());
            }
            one(numbers(leaves[0].leaf, &flat).ok_or_else(bad)?, n)
        }
        BranchKind::CharStar
        | BranchKind::Element(ElementClass::String | ElementClass::TString) => {
            strings(&[value]).ok_or_else(bad)?
        }
        BranchKind::Element(
            ElementClass::Vector(leaf)
            | ElementClass::LongVector(leaf)
            | ElementClass::Collection(_, leaf, _),
        ) => {
            let items = list(value).ok_or_else(bad)?;
            one(numbers(*leaf, &items).ok_or_else(bad)?, items.len())
        }
        BranchKind::Element(
            ElementClass::VectorVector(leaf) | ElementClass::LongVectorVector(leaf),
        ) => {
            let lists = list(value).ok_or_else(bad)?;
            let mut offsets = vec![0u64];
            let mut flat = Vec::new();
            for l in &lists {
                flat.extend(list(l).ok_or_else(bad)?);
                offsets.push(flat.len() as u64);
            }
            let inner = Array::List {
                offsets,
                values: Box::new(numbers(*leaf, &flat).ok_or_else(bad)?),
            };
            one(inner, lists.len())
        }
        BranchKind::Element(ElementClass::VectorString | ElementClass::StringCollection(_)) => {
            let items = list(value).ok_or_else(bad)?;
            one(strings(&items).ok_or_else(bad)?, items.len())
        }
        BranchKind::Object {
            class,
            vector: false,
            ..
        } => objects(class, &[value]).ok_or_else(bad)?,
        BranchKind::Object { class, .. } => {
            let items = list(value).ok_or_else(bad)?;
            one(objects(class, &items).ok_or_else(bad)?, items.len())
        }
        BranchKind::ClassPart(_) => unreachable!("parts are not given"),
    })
}

/// Objects of `class`, each a `Value::Record` of its base classes (each a record of that
/// class) then its members, as a record of one array per base and member.
fn objects(class: &ClassSpec, values: &[&Value]) -> Option<Array> {
    let parts = class.bases.len() + class.members.len();
    let records = values
        .iter()
        .map(|v| match v {
            Value::Record(m) if m.len() == parts => Some(m),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let column = |j: usize| records.iter().map(|r| &r[j]).collect::<Vec<&Value>>();
    let mut fields = Vec::with_capacity(parts);
    for (k, base) in class.bases.iter().enumerate() {
        fields.push((format!(":_{k}"), objects(base, &column(k))?));
    }
    for (j, m) in class.members.iter().enumerate() {
        let values = column(class.bases.len() + j);
        fields.push((m.name.clone(), member_values(&m.ty, &values)?));
    }
    Some(Array::Record {
        len: values.len(),
        fields,
    })
}

/// The values of one member in several objects.
fn member_values(ty: &MemberType, values: &[&Value]) -> Option<Array> {
    match ty {
        MemberType::Number(t) => numbers(*t, values),
        MemberType::Array(t, dims) => {
            let width: usize = dims.iter().product();
            let mut flat = Vec::new();
            for v in values {
                let before = flat.len();
                gather(v, &mut flat);
                if flat.len() - before != width {
                    return None;
                }
            }
            numbers(*t, &flat)
        }
        MemberType::String => strings(values),
        MemberType::Vector(t) => lists(values, |flat| numbers(*t, flat)),
        MemberType::Object(c) => objects(c, values),
        MemberType::Objects(c) => lists(values, |flat| objects(c, flat)),
    }
}

/// Several list values as one list array, their items made by `items` from all items.
fn lists(values: &[&Value], items: impl FnOnce(&[&Value]) -> Option<Array>) -> Option<Array> {
    let mut offsets = vec![0u64];
    let mut flat = Vec::new();
    for v in values {
        flat.extend(list(v)?);
        offsets.push(flat.len() as u64);
    }
    Some(Array::List {
        offsets,
        values: Box::new(items(&flat)?),
    })
}

/// The items of a list value.
fn list(v: &Value) -> Option<Vec<&Value>> {
    match v {
        Value::List(items) => Some(items.iter().collect()),
        _ => None,
    }
}

/// A view of an array made by [`one_entry`] as a batch.
pub(in crate::ttree::write) fn as_batch(array: &Array) -> ColumnData<'_> {
    array
        .as_column_data()
        .expect("one_entry makes numbers, strings, lists and records only")
}

/// The values of one entry of `leaf`: a number, or an array's numbers (nested per
/// dimension), all of the leaf's type.
fn leaf_values(leaf: &LeafSpec, value: &Value) -> Option<Array> {
    let mut flat = Vec::new();
    gather(value, &mut flat);
    (flat.len() == leaf.width())
        .then(|| numbers(leaf.leaf, &flat))
        .flatten()
}

/// `values` as an array of numbers of type `leaf`, if they all are.
fn numbers(leaf: LeafType, values: &[&Value]) -> Option<Array> {
    macro_rules! all {
        ($variant:ident) => {
            Array::$variant(
                values
                    .iter()
                    .map(|v| match v {
                        Value::$variant(x) => Some(*x),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?,
            )
        };
    }
    Some(match leaf {
        LeafType::Bool => all!(Bool),
        LeafType::Int8 => all!(Int8),
        LeafType::Int16 => all!(Int16),
        LeafType::Int32 => all!(Int32),
        LeafType::Int64 => all!(Int64),
        LeafType::UInt8 => all!(UInt8),
        LeafType::UInt16 => all!(UInt16),
        LeafType::UInt32 => all!(UInt32),
        LeafType::UInt64 => all!(UInt64),
        LeafType::Float32 => all!(Float32),
        LeafType::Float64 => all!(Float64),
    })
}

/// `values` as an array of strings, if they all are.
fn strings(values: &[&Value]) -> Option<Array> {
    let items = values
        .iter()
        .map(|v| match v {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Array::strings(items))
}

/// The numbers of `value`, depth first.
fn gather<'v>(value: &'v Value, out: &mut Vec<&'v Value>) {
    match value {
        Value::List(items) | Value::Array(items) => items.iter().for_each(|v| gather(v, out)),
        other => out.push(other),
    }
}
