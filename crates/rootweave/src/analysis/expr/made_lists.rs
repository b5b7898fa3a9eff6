//! ROOT's `RVec` constructors as expressions write them: `RVec<T>(v)` (a list's items
//! converted to `T`), `RVec<T>(n)` (`n` items of `T()`, zero) and `RVec<T>(n, value)` (`n`
//! copies of `value` converted to `T`), with `ROOT::VecOps::RVec<T>` or an alias
//! (`ROOT::RVecF`) naming the type. One argument is a list to convert or a size: which, the
//! value tells, as C++'s overloads do.

use std::sync::Arc;

use super::casts::cast;
use super::eval::event_name;
use super::value::{align, ty_name, Num, Ty, Val};
use crate::analysis::column::{Column, Values};

/// The most items the lists made by one call may hold in one batch: a size computed from
/// the data (a negative `int` is a huge `size_t` in C++) is an error, not an allocation.
const MOST_ITEMS: usize = 1 << 31;

/// The name of the call making an `RVec<item>`. Not a name an expression can call (the
/// parser writes it).
pub fn call_name(item: Ty) -> String {
    format!("RVec<{}>()", ty_name(item))
}

/// The item type of a call named `name`, if it makes an `RVec`.
pub fn item_of(name: &str) -> Option<Ty> {
    let inner = name.strip_prefix("RVec<")?.strip_suffix(">()")?;
    super::casts::type_named(&inner.split(' ').collect::<Vec<_>>())
}

/// `RVec<item>(args...)` for `events` events: a list converted, or lists of a size per
/// event, each filled with one value.
pub fn make(args: &[Val], item: Ty, events: usize) -> Result<Val, String> {
    let t = ty_name(item);
    match args {
        [list @ Val::Col(Column::Jagged(..))] => cast(list, item, events),
        [Val::Col(Column::Tuple(_)), ..] => Err(format!(
            "RVec<{t}>(x): x is several lists (Combinations), not one"
        )),
        [count] => filled(count, None, item, events),
        [count, value] => filled(count, Some(value), item, events),
        _ => Err(format!(
            "RVec<{t}> is made of 1 or 2 arguments, not {}",
            args.len()
        )),
    }
}

/// `count` items per event, each `value` (or zero) converted to `item`.
fn filled(count: &Val, value: Option<&Val>, item: Ty, events: usize) -> Result<Val, String> {
    let t = ty_name(item);
    let is_list = |v: &Val| matches!(v, Val::Col(Column::Jagged(..) | Column::Tuple(_)));
    if is_list(count) || value.is_some_and(is_list) {
        return Err(format!(
            "RVec<{t}>(n, value): n and value are one number per event, not lists"
        ));
    }
    let (_, _, lanes) = align(&[count], events)?;
    let sizes = lanes[0].f64s()?;
    let mut offsets = Vec::with_capacity(events + 1);
    offsets.push(0);
    for e in 0..events {
        // C++ converts the size to `size_t`: a fraction is cut off.
        let n = sizes.at(e).trunc();
        if n.is_nan() || n < 0.0 || offsets[e] as f64 + n > MOST_ITEMS as f64 {
            return Err(format!(
                "RVec<{t}>(n): n is {} ({}), not a size (at most {MOST_ITEMS} items a batch)",
                sizes.at(e),
                event_name(e)
            ));
        }
        offsets.push(offsets[e] + n as usize);
    }
    let value = match value {
        Some(v) => cast(v, item, events)?,
        None => Val::Const(super::value::Scalar::Bool(false)),
    };
    let (_, _, lanes) = align(&[&value], events)?;
    let lane = &lanes[0];
    let values = match item {
        Ty::Bool => Values::Bool(repeated(&lane.bools()?, &offsets)),
        Ty::Int(it) => Values::Int(it, repeated(&lane.ints(it)?, &offsets)),
        Ty::F32 => Values::F32(repeated(&lane.f32s()?, &offsets)),
        Ty::F64 => Values::F64(repeated(&lane.f64s()?, &offsets)),
        Ty::P4 | Ty::Vector(_) | Ty::Str => {
            return Err(format!("RVec<{t}>(n): items of numbers only"))
        }
    };
    Ok(Val::Col(Column::Jagged(
        Arc::new(offsets),
        Arc::new(values),
    )))
}

/// Event `e`'s value repeated over its items, `offsets[e]..offsets[e + 1]`, for every event.
fn repeated<T: Copy>(value: &Num<'_, T>, offsets: &[usize]) -> Vec<T> {
    let mut out = Vec::with_capacity(offsets[offsets.len() - 1]);
    for (e, range) in offsets.windows(2).enumerate() {
        out.extend(std::iter::repeat_n(value.at(e), range[1] - range[0]));
    }
    out
}
