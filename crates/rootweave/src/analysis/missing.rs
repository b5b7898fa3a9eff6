//! Columns missing from some sources (RDataFrame's `DefaultValueFor`, `FilterAvailable`,
//! `FilterMissing`): a dataset whose files do not all have the same columns, such as
//! NanoAOD of several years with different triggers. Such a column is read where a source
//! has it; elsewhere a default takes its place, or a filter keeps or drops the source's
//! events. Using it without either in a source that lacks it is an error naming the source.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::batch::Plan;
use super::column::Column;
use super::graph::{invalid, is_identifier, Definition, Frame, NodeKind};
use crate::array::{take, Array};
use crate::dataset::AnyReader;
use crate::error::Result;

impl Frame {
    /// `DefaultValueFor(column, value)`: from here down, `column` is `value` in the events
    /// of sources that lack it, and as read elsewhere. `value` is an array of one entry (a
    /// number, or a list for a column of lists), converted to the column's type where the
    /// dataset's first source has the column (an error if it does not convert exactly);
    /// a column of no source has `value`'s type. Defined above, the column is unchanged.
    pub fn default_value_for(&self, column: &str, value: Array) -> Result<Frame> {
        let what = format!("DefaultValueFor('{column}')");
        if !is_identifier(column) {
            return Err(invalid(format!("{what}: not a valid column name")));
        }
        if value.len() != 1 {
            return Err(invalid(format!(
                "{what}: the default is an array of {} entries, not one",
                value.len()
            )));
        }
        let value = match self.read_type(column)? {
            Some(like) => cast_like(&value, &like).ok_or_else(|| {
                let ty = self.column_type(column).unwrap_or_default();
                invalid(format!(
                    "{what}: the default {value:?} is not a value of the column's type {ty}"
                ))
            })?,
            None => value,
        };
        Ok(self.child(NodeKind::Define {
            name: column.to_string(),
            definition: Definition::Default {
                column: column.to_string(),
                value: Arc::new(value),
            },
        }))
    }

    /// `FilterAvailable(column)`: keeps the events of the sources that have `column` (all,
    /// for a column defined above).
    pub fn filter_available(&self, column: &str) -> Result<Frame> {
        self.availability(column, true)
    }

    /// `FilterMissing(column)`: keeps the events of the sources that lack `column` (none,
    /// for a column defined above).
    pub fn filter_missing(&self, column: &str) -> Result<Frame> {
        self.availability(column, false)
    }

    fn availability(&self, column: &str, present: bool) -> Result<Frame> {
        if !is_identifier(column) {
            return Err(invalid(format!("'{column}' is not a valid column name")));
        }
        Ok(self.child(NodeKind::Filter {
            condition: Definition::Available {
                column: column.to_string(),
                present,
            },
            name: None,
        }))
    }
}

/// How `GetFilterNames` names a filter made without a name: RDataFrame names the filters
/// of missing columns after their calls.
pub fn unnamed_filter(condition: &Definition) -> &'static str {
    match condition {
        Definition::Available { present: true, .. } => "FilterAvailable",
        Definition::Available { present: false, .. } => "FilterMissing",
        _ => super::names::UNNAMED_FILTER,
    }
}

/// The dataset columns of `plan` that may be missing from a source: those a
/// `DefaultValueFor` or a filter of availability names (read where a source has them).
pub fn optional_inputs(plan: &Plan) -> HashSet<String> {
    plan.nodes
        .iter()
        .filter_map(|node| {
            let column = match &node.kind {
                NodeKind::Define {
                    definition: Definition::Default { column, .. },
                    ..
                }
                | NodeKind::Filter {
                    condition: Definition::Available { column, .. },
                    ..
                } => column,
                _ => return None,
            };
            match plan.resolve(node.parent?, column) {
                (None, name) if !super::special::special(&name) => Some(name),
                _ => None,
            }
        })
        .collect()
}

/// Typed empty arrays of the `optional` columns that `first` (the dataset's first
/// source) has: the type a column missing from a source takes where no event needs it.
pub fn absent_types(first: &AnyReader, optional: &[String]) -> Result<HashMap<String, Array>> {
    let names = first.readable_names();
    let present: Vec<&str> = optional
        .iter()
        .filter(|o| names.contains(o))
        .map(String::as_str)
        .collect();
    if present.is_empty() {
        return Ok(HashMap::new());
    }
    let mut recycler = crate::array::Recycler::new();
    use crate::dataset::BatchSource;
    Ok(first
        .read_fields_recycling(&present, 0..0, &mut recycler)?
        .into_iter()
        .collect())
}

/// `value` (one entry) for each of `events` events, as a column.
pub fn repeated(value: &Array, events: usize) -> std::result::Result<Column, String> {
    let array = take(value, &vec![0; events]);
    Column::from_array(&array, 0..events)
        .ok_or_else(|| "a default that is neither a number nor a list of numbers".to_string())
}

/// What `array` holds where a source lacks `column`, told in errors.
pub fn not_in_source(column: &str) -> String {
    format!(
        "column '{column}' is not in this source (DefaultValueFor gives it a value there; \
         FilterAvailable or FilterMissing keeps the events of the sources with or without it)"
    )
}

/// A number of a default, exactly.
#[derive(Clone, Copy)]
enum Number {
    Int(i128),
    Float(f64),
}

/// The numbers of a flat array of numbers (booleans as 0 and 1).
fn numbers(array: &Array) -> Option<Vec<Number>> {
    fn ints<T: Copy + Into<i128>>(v: &[T]) -> Vec<Number> {
        v.iter().map(|&x| Number::Int(x.into())).collect()
    }
    Some(match array {
        Array::Bool(v) => v.iter().map(|&b| Number::Int(b as i128)).collect(),
        Array::Int8(v) => ints(v),
        Array::Int16(v) => ints(v),
        Array::Int32(v) => ints(v),
        Array::Int64(v) => ints(v),
        Array::UInt8(v) => ints(v),
        Array::UInt16(v) => ints(v),
        Array::UInt32(v) => ints(v),
        Array::UInt64(v) => ints(v),
        Array::Float32(v) => v.iter().map(|&x| Number::Float(x as f64)).collect(),
        Array::Float64(v) => v.iter().map(|&x| Number::Float(x)).collect(),
        _ => return None,
    })
}

/// `numbers` as an array of `like`'s type, if each converts exactly.
fn from_numbers(numbers: &[Number], like: &Array) -> Option<Array> {
    fn int<T: TryFrom<i128>>(n: Number) -> Option<T> {
        match n {
            Number::Int(i) => T::try_from(i).ok(),
            Number::Float(f) if f.fract() == 0.0 && f.abs() < 1e38 => T::try_from(f as i128).ok(),
            Number::Float(_) => None,
        }
    }
    fn all<T>(numbers: &[Number], one: impl Fn(Number) -> Option<T>) -> Option<Vec<T>> {
        numbers.iter().map(|&n| one(n)).collect()
    }
    let f64_of = |n: Number| match n {
        Number::Int(i) => ((i as f64) as i128 == i).then_some(i as f64),
        Number::Float(f) => Some(f),
    };
    Some(match like {
        Array::Bool(_) => Array::Bool(
            all(numbers, |n| int::<u8>(n).filter(|&b| b <= 1))?
                .into_iter()
                .map(|b| b == 1)
                .collect(),
        ),
        Array::Int8(_) => Array::Int8(all(numbers, int)?),
        Array::Int16(_) => Array::Int16(all(numbers, int)?),
        Array::Int32(_) => Array::Int32(all(numbers, int)?),
        Array::Int64(_) => Array::Int64(all(numbers, int)?),
        Array::UInt8(_) => Array::UInt8(all(numbers, int)?),
        Array::UInt16(_) => Array::UInt16(all(numbers, int)?),
        Array::UInt32(_) => Array::UInt32(all(numbers, int)?),
        Array::UInt64(_) => Array::UInt64(all(numbers, int)?),
        Array::Float32(_) => Array::Float32(all(numbers, |n| {
            let f = f64_of(n)?;
            ((f as f32) as f64 == f || f.is_nan()).then_some(f as f32)
        })?),
        Array::Float64(_) => Array::Float64(all(numbers, f64_of)?),
        _ => return None,
    })
}

/// `value` in the type of `like` (an array of the column's type), where every number
/// converts exactly: a number for a column of numbers, a list for a column of lists.
fn cast_like(value: &Array, like: &Array) -> Option<Array> {
    match (value, like) {
        (Array::List { offsets, values }, Array::List { values: items, .. }) => Some(Array::List {
            offsets: offsets.clone(),
            values: Box::new(cast_like(values, items)?),
        }),
        (Array::List { .. }, _) | (_, Array::List { .. }) => None,
        _ => from_numbers(&numbers(value)?, like),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_convert_exactly_or_not_at_all() {
        let int = Array::Int32(Vec::new());
        assert_eq!(
            cast_like(&Array::Int64(vec![-7]), &int),
            Some(Array::Int32(vec![-7]))
        );
        assert_eq!(
            cast_like(&Array::Float64(vec![2.0]), &int),
            Some(Array::Int32(vec![2]))
        );
        assert_eq!(cast_like(&Array::Float64(vec![2.5]), &int), None);
        assert_eq!(cast_like(&Array::Int64(vec![1 << 40]), &int), None);
        let float = Array::Float32(Vec::new());
        assert_eq!(
            cast_like(&Array::Float64(vec![0.5]), &float),
            Some(Array::Float32(vec![0.5]))
        );
        assert_eq!(cast_like(&Array::Float64(vec![0.1]), &float), None);
        assert_eq!(
            cast_like(&Array::Int64(vec![1]), &Array::Bool(Vec::new())),
            Some(Array::Bool(vec![true]))
        );
        let list = |values: Array| Array::List {
            offsets: vec![0, values.len() as u64],
            values: Box::new(values),
        };
        assert_eq!(
            cast_like(
                &list(Array::Int64(vec![1, 2])),
                &list(Array::Float32(Vec::new()))
            ),
            Some(list(Array::Float32(vec![1.0, 2.0])))
        );
        assert_eq!(cast_like(&Array::Int64(vec![1]), &list(float)), None);
    }

    #[test]
    fn a_default_is_repeated_for_every_event() {
        let column = repeated(&Array::Int32(vec![-1]), 3).unwrap();
        assert_eq!(column.into_array(), Array::Int32(vec![-1, -1, -1]));
    }
}
