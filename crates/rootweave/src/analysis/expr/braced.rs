//! Braced lists as values: `{a, b}` (an argument such as `Drop(v, {0, 2})`) and typed ones
//! (`ROOT::RVecF{x, 2 * x}`, whose items the parser converts to the named type): per event,
//! a list of the items' values there, in their common type (of one type, that type: a list
//! of `bool`s or `short`s only when every item is one), as C++ builds an `RVec` from an
//! initializer list.

use std::sync::Arc;

use super::value::{align, Ty, Val};
use crate::analysis::column::{Column, Values};

/// Per event, the list of the values `items` take there.
pub fn list(items: &[Val], events: usize) -> Result<Val, String> {
    if items
        .iter()
        .any(|v| matches!(v, Val::Col(c) if !matches!(c, Column::Flat(_))))
    {
        return Err("a braced list's items are numbers or strings, one per event".into());
    }
    let refs: Vec<&Val> = items.iter().collect();
    let (_, _, lanes) = align(&refs, events)?;
    let ty = match lanes.first() {
        None => Ty::Int(super::IntTy::INT),
        // Items of one type keep it (`RVec<short>{a, b}`).
        Some(first) => lanes
            .iter()
            .fold(first.ty(), |a, l| Ty::common_type(a, l.ty())),
    };
    let k = items.len();
    // Item j of event e at e * k + j; a constant item fills its place in every event.
    let place = |e: usize, j: usize| if items[j].is_const() { 0 } else { e };
    macro_rules! interleave {
        ($num:expr, $variant:expr) => {{
            let nums = lanes.iter().map($num).collect::<Result<Vec<_>, String>>()?;
            let all: Vec<_> = (0..events * k)
                .map(|i| nums[i % k].at(place(i / k, i % k)))
                .collect();
            $variant(all)
        }};
    }
    let values = match ty {
        Ty::Bool => interleave!(|l| l.bools(), Values::Bool),
        Ty::F32 => interleave!(|l| l.f32s(), Values::F32),
        Ty::F64 => interleave!(|l| l.f64s(), Values::F64),
        Ty::Int(t) => interleave!(|l| l.ints(t), |v| Values::Int(t, v)),
        Ty::P4 => return Err("a braced list of four-vectors".into()),
        Ty::Vector(c) => return Err(format!("a braced list of {}s", c.name())),
        Ty::Str => {
            let texts = lanes
                .iter()
                .map(|l| super::strings::texts(l, "{}"))
                .collect::<Result<Vec<_>, String>>()
                .map_err(|_| "a braced list of strings and numbers".to_string())?;
            Values::Str(
                (0..events * k)
                    .map(|i| texts[i % k][place(i / k, i % k)].clone())
                    .collect(),
            )
        }
    };
    let offsets: Vec<usize> = (0..=events).map(|e| e * k).collect();
    Ok(Val::Col(Column::Jagged(Arc::new(offsets), values.into())))
}
