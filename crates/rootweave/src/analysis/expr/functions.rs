//! The functions of the dialect: C++'s math functions (with `<cmath>`'s overloads: a
//! `float` stays a `float`, an integer becomes a `double`), ROOT's `RVec` functions
//! (reductions, sorting, selections, combinations, angular distances, invariant masses) as
//! `ROOT/RVec.hxx` computes them, and four-vectors (`PtEtaPhiMVector`) with their methods.

use std::borrow::Cow;
use std::sync::Arc;

use super::coordinates::Momentum;
use super::cxx_sort;
use super::cxx_stable_sort::stable_sort;
use super::eval::event_name;
use super::int_type::IntTy;
use super::value::{align, map1, map2, shaped, Lane, Num, Scalar, Shape, Ty, Val};
use crate::analysis::column::{item_events, Column, Text, Values, P4};

/// Every function and method by name, with the numbers of arguments it takes (a method's
/// object counts as its first argument).
const SIGNATURES: &[(&str, &[usize])] = &[
    ("abs", &[1]),
    ("fabs", &[1]),
    ("sqrt", &[1]),
    ("exp", &[1]),
    ("log", &[1]),
    ("log10", &[1]),
    ("log2", &[1]),
    ("sin", &[1]),
    ("cos", &[1]),
    ("tan", &[1]),
    ("asin", &[1]),
    ("acos", &[1]),
    ("atan", &[1]),
    ("sinh", &[1]),
    ("cosh", &[1]),
    ("tanh", &[1]),
    ("floor", &[1]),
    ("ceil", &[1]),
    ("round", &[1]),
    ("trunc", &[1]),
    ("pow", &[2]),
    ("atan2", &[2]),
    ("fmod", &[2]),
    ("hypot", &[2]),
    ("max", &[2]),
    ("min", &[2]),
    ("Pi", &[0]),
    ("Sum", &[1, 2]),
    ("Mean", &[1]),
    ("Max", &[1, 2]),
    ("Min", &[1, 2]),
    ("Abs", &[1]),
    ("StableSort", &[1]),
    ("Argsort>", &[1]),
    ("StableArgsort>", &[1]),
    ("ArgMax", &[1]),
    ("ArgMin", &[1]),
    ("Argsort", &[1]),
    ("StableArgsort", &[1]),
    ("Any", &[1]),
    ("All", &[1]),
    ("size", &[1]),
    ("Take", &[2, 3]),
    ("Reverse", &[1]),
    ("Sort", &[1]),
    ("Nonzero", &[1]),
    ("Enumerate", &[1]),
    ("Where", &[3]),
    ("Concatenate", &[2]),
    ("Combinations", &[2]),
    ("DeltaPhi", &[2]),
    ("DeltaR", &[2, 4]),
    ("DeltaR2", &[2, 4]),
    ("DeltaRapidityPhi", &[2]),
    ("DeltaR2RapidityPhi", &[2]),
    ("InvariantMass", &[2, 4]),
    ("InvariantMass2", &[2]),
    ("CosTheta", &[2]),
    ("Angle", &[2]),
    ("boost", &[2]),
    ("InvariantMasses", &[8]),
    ("PtEtaPhiMVector", &[4, 1]),
    ("Construct<PtEtaPhiMVector>", &[4]),
    (".size", &[1]),
    (".Pt", &[1]),
    (".pt", &[1]),
    (".Eta", &[1]),
    (".eta", &[1]),
    (".Phi", &[1]),
    (".phi", &[1]),
    (".M", &[1]),
    (".mass", &[1]),
    (".E", &[1]),
    (".energy", &[1]),
    (".P", &[1]),
    (".Px", &[1]),
    (".px", &[1]),
    (".Py", &[1]),
    (".py", &[1]),
    (".Pz", &[1]),
    (".pz", &[1]),
    (".Mt", &[1]),
    (".Et", &[1]),
    (".Rapidity", &[1]),
];

/// Checks that a function (or `.method`) exists and takes `args` arguments.
pub fn check(name: &str, args: usize) -> Result<(), String> {
    let what = |n: &str| match n.strip_prefix('.') {
        Some(m) => format!("method {m}()"),
        None => format!("function {n}"),
    };
    if super::casts::cast_of(name).is_some() {
        return match args {
            1 => Ok(()),
            n => Err(format!("a conversion takes 1 argument, not {n}")),
        };
    }
    if super::made_lists::item_of(name).is_some() {
        return match args {
            1 | 2 => Ok(()),
            n => Err(format!("an RVec is made of 1 or 2 arguments, not {n}")),
        };
    }
    let more = super::list_functions::SIGNATURES
        .iter()
        .chain(super::strings::SIGNATURES)
        .find(|(n, _)| *n == name);
    if let Some((_, arity)) = super::tmath::signatures().find(|(n, _)| *n == name) {
        return match args == arity {
            true => Ok(()),
            false => Err(format!(
                "{} takes {arity} arguments, not {args}",
                what(name)
            )),
        };
    }
    if let Some(known) = super::vector_calls::check(name, args) {
        return known;
    }
    match SIGNATURES.iter().find(|(n, _)| *n == name).or(more) {
        None => Err(format!("no {} in the dialect", what(name))),
        Some((_, arities)) if !arities.contains(&args) => Err(format!(
            "{} takes {} arguments, not {}",
            what(name),
            arities
                .iter()
                .map(|a| a.saturating_sub(name.starts_with('.') as usize).to_string())
                .collect::<Vec<_>>()
                .join(" or "),
            args.saturating_sub(name.starts_with('.') as usize)
        )),
        Some(_) => Ok(()),
    }
}

/// Calls function (or `.method`) `name` on evaluated arguments.
pub fn call(name: &str, args: Vec<Val>, events: usize) -> Result<Val, String> {
    check(name, args.len())?;
    let a = &args;
    if let Some(ty) = super::casts::cast_of(name) {
        return super::casts::cast(&a[0], ty, events);
    }
    if let Some(item) = super::made_lists::item_of(name) {
        return super::made_lists::make(a, item, events);
    }
    if let Some(result) = super::tmath::call(name, a, events) {
        return result;
    }
    if let Some(result) = super::strings::call(name, a, events) {
        return result;
    }
    if let Some(result) = super::list_functions::call(name, a, events) {
        return result;
    }
    if let Some(result) = super::vector_calls::call(name, a, events) {
        return result;
    }
    if let Some(result) = super::vector_util::call(name, a, events) {
        return result;
    }
    match name {
        "abs" | "fabs" | "Abs" => math1(&a[0], events, name != "fabs", f32::abs, f64::abs),
        "sqrt" => math1(&a[0], events, false, f32::sqrt, f64::sqrt),
        "exp" => math1(&a[0], events, false, f32::exp, f64::exp),
        "log" => math1(&a[0], events, false, f32::ln, f64::ln),
        "log10" => math1(&a[0], events, false, f32::log10, f64::log10),
        "log2" => math1(&a[0], events, false, f32::log2, f64::log2),
        "sin" => math1(&a[0], events, false, f32::sin, f64::sin),
        "cos" => math1(&a[0], events, false, f32::cos, f64::cos),
        "tan" => math1(&a[0], events, false, f32::tan, f64::tan),
        "asin" => math1(&a[0], events, false, f32::asin, f64::asin),
        "acos" => math1(&a[0], events, false, f32::acos, f64::acos),
        "atan" => math1(&a[0], events, false, f32::atan, f64::atan),
        "sinh" => math1(&a[0], events, false, f32::sinh, f64::sinh),
        "cosh" => math1(&a[0], events, false, f32::cosh, f64::cosh),
        "tanh" => math1(&a[0], events, false, f32::tanh, f64::tanh),
        "floor" => math1(&a[0], events, false, f32::floor, f64::floor),
        "ceil" => math1(&a[0], events, false, f32::ceil, f64::ceil),
        "round" => math1(&a[0], events, false, f32::round, f64::round),
        "trunc" => math1(&a[0], events, false, f32::trunc, f64::trunc),
        "pow" => math2(a, events, f32::powf, f64::powf),
        "atan2" => math2(a, events, f32::atan2, f64::atan2),
        "fmod" => math2(a, events, |x, y| x % y, |x, y| x % y),
        "hypot" => math2(a, events, f32::hypot, f64::hypot),
        "max" => min_max(a, events, Pick::StdMax),
        "min" => min_max(a, events, Pick::StdMin),
        // `TMath::Max(a, b)`: the larger, in the arguments' type.
        "Max" if a.len() == 2 => min_max(a, events, Pick::TMathMax),
        "Min" if a.len() == 2 => min_max(a, events, Pick::TMathMin),
        "Pi" => Ok(Val::Const(Scalar::F64(std::f64::consts::PI))),
        "Sum" if a.len() == 2 => super::list_functions::sum_from(&a[0], &a[1]),
        "Sum" | "Mean" | "Max" | "Min" | "ArgMax" | "ArgMin" | "Any" | "All" | "size" | ".size" => {
            reduce(name.trim_start_matches('.'), &a[0])
        }
        "Argsort" | "StableArgsort" | "Reverse" | "Sort" | "StableSort" | "Nonzero"
        | "Enumerate" | "Argsort>" | "StableArgsort>" => per_list(name, &a[0]),
        "Take" if a.len() == 3 => super::list_functions::take_or(&a[0], &a[1], &a[2]),
        "Take" => take(&a[0], &a[1]),
        "Where" => where_(a, events),
        "Concatenate" => concatenate(&a[0], &a[1]),
        "Combinations" => combinations(&a[0], &a[1]),
        "DeltaPhi" => delta_phi(&a[0], &a[1], events),
        "DeltaR" | "DeltaR2" => delta_r(a, events, name == "DeltaR"),
        "InvariantMass" => invariant_mass(a),
        "InvariantMasses" => invariant_masses(a, events),
        "PtEtaPhiMVector" if a.len() == 1 => {
            match super::vector_calls::four_vector_of(&a[0], events) {
                Some(made) => made,
                None => match &a[0] {
                    Val::Col(Column::Flat(v) | Column::Jagged(_, v))
                        if matches!(**v, Values::P4(_)) =>
                    {
                        Ok(a[0].clone())
                    }
                    other => Err(format!("a PtEtaPhiMVector made of a {}", other.type_name())),
                },
            }
        }
        "PtEtaPhiMVector" | "Construct<PtEtaPhiMVector>" => vector(a, events),
        method => p4_method(method, a, events),
    }
}

/// Lists of a column, or an error naming the function.
pub(super) fn lists<'a>(
    v: &'a Val,
    what: &str,
) -> Result<(&'a Arc<Vec<usize>>, &'a Values), String> {
    match v {
        Val::Col(Column::Jagged(o, values)) => Ok((o, values)),
        other => Err(format!("{what} takes an RVec, not a {}", other.type_name())),
    }
}

/// A one-argument math function: `float` in, `float` out; integers as `double` (`abs` of
/// an integer is an integer, but of a list of integers `double`s, as `RVec`'s).
fn math1(
    x: &Val,
    events: usize,
    int_abs: bool,
    f: fn(f32) -> f32,
    g: fn(f64) -> f64,
) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[x], events)?;
    let values = match lanes[0].ty() {
        Ty::F32 => {
            let v = lanes[0].f32s()?;
            Values::F32(map1(&v, n, f))
        }
        Ty::Int(_) | Ty::Bool if int_abs => {
            // `abs` of the promoted type (an unsigned value is its own absolute value).
            let t = lanes[0].ty().int().promoted();
            let v = lanes[0].ints(t)?;
            let abs = if t.unsigned {
                map1(&v, n, |x| x)
            } else {
                map1(&v, n, |x| t.wrap(x.wrapping_abs()))
            };
            // `RVec`'s `abs` of integers gives `double`s (its `PromoteType`).
            match shape {
                Shape::Jagged(_) => Values::F64(abs.into_iter().map(|x| t.to_f64(x)).collect()),
                Shape::Flat => Values::Int(t, abs),
            }
        }
        _ => {
            let v = lanes[0].f64s()?;
            Values::F64(map1(&v, n, g))
        }
    };
    Ok(shaped(shape, values, x.is_const()))
}

/// A two-argument math function: `float` when both are `float`, else `double`.
fn math2(
    a: &[Val],
    events: usize,
    f: fn(f32, f32) -> f32,
    g: fn(f64, f64) -> f64,
) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[&a[0], &a[1]], events)?;
    let values = if lanes[0].ty() == Ty::F32 && lanes[1].ty() == Ty::F32 {
        let (x, y) = (lanes[0].f32s()?, lanes[1].f32s()?);
        Values::F32(map2(&x, &y, n, f))
    } else {
        let (x, y) = (lanes[0].f64s()?, lanes[1].f64s()?);
        Values::F64(map2(&x, &y, n, g))
    };
    Ok(shaped(shape, values, a[0].is_const() && a[1].is_const()))
}

/// Which of two values `min_max` keeps, with the comparison each C++ function makes: the
/// choices differ where the values do not compare (NaN) and between 0 and -0.
#[derive(Clone, Copy)]
enum Pick {
    /// `std::max(a, b)`: `a < b ? b : a`.
    StdMax,
    /// `std::min(a, b)`: `b < a ? b : a`.
    StdMin,
    /// `TMath::Max(a, b)`: `a >= b ? a : b`.
    TMathMax,
    /// `TMath::Min(a, b)`: `a <= b ? a : b`.
    TMathMin,
}

impl Pick {
    /// Whether the function gives its second argument `b` rather than its first `a`.
    fn second<T: PartialOrd>(self, a: T, b: T) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
        match self {
            Pick::StdMax => a < b,
            Pick::StdMin => b < a,
            // Not `a >= b`: `a` less than `b`, or the two not ordered.
            Pick::TMathMax => !matches!(a.partial_cmp(&b), Some(Greater | Equal)),
            Pick::TMathMin => !matches!(a.partial_cmp(&b), Some(Less | Equal)),
        }
    }
}

fn min_max(a: &[Val], events: usize, pick: Pick) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[&a[0], &a[1]], events)?;
    /// The kept value at each position, the values compared by `key`.
    fn chosen<T: Copy, K: PartialOrd>(
        pick: Pick,
        x: &Num<'_, T>,
        y: &Num<'_, T>,
        n: usize,
        key: impl Fn(T) -> K,
    ) -> Vec<T> {
        (0..n)
            .map(|i| {
                let (a, b) = (x.at(i), y.at(i));
                if pick.second(key(a), key(b)) {
                    b
                } else {
                    a
                }
            })
            .collect()
    }
    let values = match Ty::common(lanes[0].ty(), lanes[1].ty()) {
        Ty::Int(t) => {
            let (x, y) = (lanes[0].ints(t)?, lanes[1].ints(t)?);
            // A 64-bit unsigned value is held in an `i64`'s bits.
            let unsigned = t.is_u64();
            let key = |v: i64| {
                if unsigned {
                    v as u64 as i128
                } else {
                    v as i128
                }
            };
            Values::Int(t, chosen(pick, &x, &y, n, key))
        }
        Ty::F32 => {
            let (x, y) = (lanes[0].f32s()?, lanes[1].f32s()?);
            Values::F32(chosen(pick, &x, &y, n, |v| v))
        }
        _ => {
            let (x, y) = (lanes[0].f64s()?, lanes[1].f64s()?);
            Values::F64(chosen(pick, &x, &y, n, |v| v))
        }
    };
    Ok(shaped(shape, values, a[0].is_const() && a[1].is_const()))
}

/// Per-event reductions of lists (`v.size()` also of a list of combinations).
fn reduce(name: &str, v: &Val) -> Result<Val, String> {
    if let (Val::Col(Column::Tuple(parts)), "size") = (v, name) {
        return reduce(name, &Val::Col(parts[0].clone()));
    }
    let (offsets, values) = lists(v, name)?;
    let spans = || offsets.windows(2).map(|w| w[0]..w[1]);
    let empty = |e: usize| format!("{name} of an empty RVec ({})", event_name(e));
    let lane = Lane::Many(Cow::Borrowed(values));
    let out = match name {
        "size" => Values::Int(IntTy::SIZE, spans().map(|r| r.len() as i64).collect()),
        "Any" | "All" => {
            let b = lane.bools()?;
            let b = items(&b);
            Values::Bool(if name == "Any" {
                sums(b, offsets, false, |a, v| a || v)
            } else {
                sums(b, offsets, true, |a, v| a && v)
            })
        }
        "Sum" | "Mean" => {
            let sums = match Ty::of(values) {
                Ty::F32 => {
                    let x = lane.f32s()?;
                    let x = items(&x);
                    let s = sums(x, offsets, 0.0f32, |a, v| a + v);
                    if name == "Sum" {
                        return Ok(Val::Col(Column::Flat(Values::F32(s).into())));
                    }
                    s.into_iter().map(|s| s as f64).collect::<Vec<f64>>()
                }
                Ty::F64 => {
                    let x = lane.f64s()?;
                    let x = items(&x);
                    sums(x, offsets, 0.0f64, |a, v| a + v)
                }
                Ty::P4 => {
                    // ROOT's `Sum`: `std::accumulate` from a zero vector, adding one by one.
                    let (Values::P4(v), "Sum") = (values, name) else {
                        return Err(format!("{name} of four-vectors"));
                    };
                    let zero = super::lorentz::P4::new(0.0, 0.0, 0.0, 0.0);
                    let s = sums(v, offsets, zero, |a, b| a.add(&b));
                    return Ok(Val::Col(Column::Flat(Values::P4(s).into())));
                }
                ty => {
                    // `Sum` of integers is of their own type (wrapping as `std::accumulate`
                    // into a `T` does), of `bool`s a `std::size_t` count; `Mean` divides it.
                    let t = match (ty, values) {
                        (_, Values::Bool(_)) => IntTy::SIZE,
                        (ty, _) => ty.int(),
                    };
                    let x = lane.ints(t)?;
                    let x = items(&x);
                    let mut s = sums(x, offsets, 0i64, i64::wrapping_add);
                    s.iter_mut().for_each(|v| *v = t.wrap(*v));
                    if name == "Sum" {
                        return Ok(Val::Col(Column::Flat(Values::Int(t, s).into())));
                    }
                    s.into_iter().map(|s| t.to_f64(s)).collect()
                }
            };
            if name == "Sum" {
                Values::F64(sums)
            } else {
                Values::F64(
                    sums.iter()
                        .zip(spans())
                        .map(|(s, r)| {
                            if r.is_empty() {
                                0.0
                            } else {
                                s / r.len() as f64
                            }
                        })
                        .collect(),
                )
            }
        }
        _ => {
            // Max, Min, ArgMax, ArgMin: the first extreme item (NaN compares as C++'s `<`).
            let keys = OrderKeys::of(values).ok_or_else(|| format!("{name} of four-vectors"))?;
            let max = name.ends_with("Max");
            let arg = name.starts_with("Arg");
            let index = match (&keys, max) {
                (OrderKeys::Float(x), true) => extremes(offsets, arg, |i, j| x[i] < x[j]),
                (OrderKeys::Float(x), false) => extremes(offsets, arg, |i, j| x[j] < x[i]),
                (_, true) => extremes(offsets, arg, |i, j| keys.less(i, j)),
                (_, false) => extremes(offsets, arg, |i, j| keys.less(j, i)),
            }
            .map_err(empty)?;
            if arg {
                Values::Int(
                    IntTy::SIZE,
                    index
                        .iter()
                        .zip(offsets.iter())
                        .map(|(&i, &o)| (i - o) as i64)
                        .collect(),
                )
            } else {
                values.gather(&index)
            }
        }
    };
    Ok(Val::Col(Column::Flat(out.into())))
}

/// The position of each list's first item that no later item is `better` than (`better(i,
/// j)`: item `j` beats item `i`), as `std::max_element` finds it. An empty list gives its
/// start where `arg` (`ArgMax` of an empty list is 0), and otherwise the error of the list's
/// event (its `Max` has no value).
fn extremes(
    offsets: &[usize],
    arg: bool,
    better: impl Fn(usize, usize) -> bool,
) -> Result<Vec<usize>, usize> {
    let mut index = Vec::with_capacity(offsets.len().saturating_sub(1));
    for (e, w) in offsets.windows(2).enumerate() {
        if w[0] == w[1] && !arg {
            return Err(e);
        }
        let mut best = w[0];
        for i in w[0] + 1..w[1] {
            if better(best, i) {
                best = i;
            }
        }
        index.push(best);
    }
    Ok(index)
}

/// Values compared as C++'s `<` compares them: numbers as `double`s (exactly for `float`s
/// and `double`s), integers as integers (64-bit unsigned ones as unsigned).
enum OrderKeys<'a> {
    /// Floating-point numbers and `bool`s.
    Float(Cow<'a, [f64]>),
    /// Signed integers, or unsigned ones of fewer than 64 bits.
    Signed(&'a [i64]),
    /// 64-bit unsigned integers (their bits).
    Unsigned(&'a [i64]),
    /// Strings, by their bytes (as `std::string`'s `<`).
    Text(&'a [Text]),
}

impl<'a> OrderKeys<'a> {
    /// The keys of `values`; `None` for four-vectors.
    fn of(values: &'a Values) -> Option<OrderKeys<'a>> {
        Some(match values {
            Values::Int(t, v) if t.is_u64() => OrderKeys::Unsigned(v),
            Values::Int(_, v) => OrderKeys::Signed(v),
            Values::P4(_) => return None,
            Values::Str(v) => OrderKeys::Text(v),
            other => OrderKeys::Float(Cow::Owned(other.as_f64()?)),
        })
    }

    /// Whether item `i` is less than item `j` (false where either is NaN).
    fn less(&self, i: usize, j: usize) -> bool {
        match self {
            OrderKeys::Float(x) => x[i] < x[j],
            OrderKeys::Signed(x) => x[i] < x[j],
            OrderKeys::Unsigned(x) => (x[i] as u64) < (x[j] as u64),
            OrderKeys::Text(x) => x[i] < x[j],
        }
    }
}

/// Each event's sum of its list of `x` (cut at `offsets`, from 0) by `add` from `zero`, the
/// items added in order as `std::accumulate` adds them, each into its event's sum: one loop
/// over the items instead of a loop per event whose length the processor would have to guess
/// (also `Any` and `All`, with `||` and `&&`).
pub(super) fn sums<T: Copy>(
    x: &[T],
    offsets: &[usize],
    zero: T,
    add: impl Fn(T, T) -> T,
) -> Vec<T> {
    let mut out = vec![zero; offsets.len().saturating_sub(1)];
    for (&e, &v) in item_events(offsets).iter().zip(x) {
        out[e] = add(out[e], v);
    }
    out
}

/// The items of a list column's lane (always one per item).
pub(super) fn items<'a, T: Copy>(x: &'a Num<'_, T>) -> &'a [T] {
    match x {
        Num::Many(v) => v,
        Num::One(_) => unreachable!("a list's values are one per item"),
    }
}

/// Functions from a list to a list per event: sorting, reversing, the non-zero indices.
fn per_list(name: &str, v: &Val) -> Result<Val, String> {
    // `Argsort>`: sorted by the comparator `a > b` (the parser's name for it).
    let descending = name.ends_with('>');
    let name = name.trim_end_matches('>');
    let (offsets, values) = lists(v, name)?;
    if Ty::of(values).is_vector() && !matches!(name, "Reverse" | "Enumerate") {
        return Err(format!("{name} of {}s", values.type_name()));
    }
    if Ty::of(values) == Ty::Str && name == "Nonzero" {
        return Err("Nonzero of strings, which are not conditions".into());
    }
    let keys = OrderKeys::of(values);
    let lane = Lane::Many(Cow::Borrowed(values));
    let nonzero = lane.bools().unwrap_or(Num::One(false));
    let mut index: Vec<usize> = Vec::with_capacity(values.len());
    let mut out = vec![0usize];
    for w in offsets.windows(2) {
        let start = index.len();
        match name {
            "Reverse" => index.extend((w[0]..w[1]).rev()),
            "Nonzero" => index.extend((w[0]..w[1]).filter(|&i| nonzero.at(i))),
            "Enumerate" => index.extend(w[0]..w[1]),
            _ => {
                index.extend(w[0]..w[1]);
                // `Sort` and `Argsort` move equal keys as C++'s `std::sort` does, the stable
                // ones unordered keys (NaN) as `std::stable_sort` does.
                let list = &mut index[start..];
                match (&keys, name.starts_with("Stable"), descending) {
                    (None, _, _) => {}
                    (Some(k), true, false) => stable_sort(list, &|i, j| k.less(i, j)),
                    (Some(k), true, true) => stable_sort(list, &|i, j| k.less(j, i)),
                    (Some(k), false, false) => cxx_sort::sort(list, &|i, j| k.less(i, j)),
                    (Some(k), false, true) => cxx_sort::sort(list, &|i, j| k.less(j, i)),
                }
            }
        }
        out.push(index.len());
    }
    let offsets_out = Arc::new(out);
    Ok(Val::Col(match name {
        "Argsort" | "StableArgsort" | "Nonzero" | "Enumerate" => {
            // Each index counted from its own event's first item (an event's output may
            // hold fewer items than its list: `Nonzero`).
            let local = offsets_out
                .windows(2)
                .zip(offsets.iter())
                .flat_map(|(w, &base)| index[w[0]..w[1]].iter().map(move |&i| (i - base) as i64))
                .collect();
            Column::Jagged(offsets_out, Values::Int(IntTy::SIZE, local).into())
        }
        _ => Column::Jagged(offsets_out, values.gather(&index).into()),
    }))
}

/// `Take(v, indices)` (the items at those indices) or `Take(v, n)` (the first `n`, or the
/// last `-n`).
fn take(v: &Val, which: &Val) -> Result<Val, String> {
    let (offsets, values) = lists(v, "Take")?;
    let mut items = Vec::new();
    let mut out = vec![0usize];
    match which {
        Val::Col(Column::Jagged(io, iv)) => {
            let lane = Lane::Many(Cow::Borrowed(iv));
            let Num::Many(idx) = lane.ints(IntTy::LONG64)? else {
                unreachable!("a lane of many values")
            };
            let items = take_positions(offsets, io, &idx)?;
            // As many items as indices in each event: the indices' offsets, shared (the
            // lists taken with one index then align without comparing their offsets).
            return Ok(Val::Col(Column::Jagged(
                io.clone(),
                values.gather(&items).into(),
            )));
        }
        n => {
            let (_, _, lanes) = align(&[n], offsets.len() - 1)?;
            let n_at = lanes[0].ints(IntTy::LONG64)?;
            for (e, w) in offsets.windows(2).enumerate() {
                let n = n_at.at(if which.is_const() { 0 } else { e });
                let len = w[1] - w[0];
                if n.unsigned_abs() as usize > len {
                    return Err(format!("{} elements requested from Take but input contains only {len} elements ({})", n.unsigned_abs(), event_name(e)));
                }
                if n >= 0 {
                    items.extend(w[0]..w[0] + n as usize);
                } else {
                    items.extend(w[1] - n.unsigned_abs() as usize..w[1]);
                }
                out.push(items.len());
            }
        }
    }
    Ok(Val::Col(Column::Jagged(
        Arc::new(out),
        values.gather(&items).into(),
    )))
}

/// Where `Take(v, indices)` finds its items: for every index of every event (`index_offsets`
/// over `indices`), the position of that item among the values of `v` (`offsets`), or
/// the error naming the first index past its event's list.
pub(super) fn take_positions(
    offsets: &[usize],
    index_offsets: &[usize],
    indices: &[i64],
) -> Result<Vec<usize>, String> {
    if index_offsets.len() != offsets.len() {
        return Err("Take of lists of different events".into());
    }
    // Every index written in place and checked on the way (a negative one is past any end
    // as unsigned); the first bad one is looked for only when there is one.
    let mut items = vec![0usize; indices.len()];
    let mut bad = false;
    for (w, iw) in offsets.windows(2).zip(index_offsets.windows(2)) {
        let (start, len) = (w[0], w[1] - w[0]);
        for (slot, &i) in items[iw[0]..iw[1]].iter_mut().zip(&indices[iw[0]..iw[1]]) {
            bad |= i as u64 >= len as u64;
            *slot = start.wrapping_add(i as usize);
        }
    }
    if bad {
        let (e, i, len) = offsets
            .windows(2)
            .zip(index_offsets.windows(2))
            .enumerate()
            .find_map(|(e, (w, iw))| {
                let len = w[1] - w[0];
                indices[iw[0]..iw[1]]
                    .iter()
                    .find(|&&i| i < 0 || i as usize >= len)
                    .map(|&i| (e, i, len))
            })
            .expect("a bad index was seen");
        return Err(take_out_of_range(i, len, e));
    }
    Ok(items)
}

/// The error of `Take` (or an index of a `Take`) of item `i` of event `e`'s list of `len`.
pub(super) fn take_out_of_range(i: i64, len: usize, e: usize) -> String {
    format!("Take of index {i} from {len} items ({})", event_name(e))
}

/// `x` where `c` holds, else `y`, for the first `n` positions: the lists against a
/// constant (`Where(c, v, 1e300)`) in a loop without a test of the case per item.
fn where_items<T: Copy>(c: &Num<'_, bool>, x: &Num<'_, T>, y: &Num<'_, T>, n: usize) -> Vec<T> {
    match (c, x, y) {
        (Num::Many(c), Num::Many(x), Num::One(y)) => map2(
            &Num::Many(Cow::Borrowed(&c[..n])),
            &Num::Many(Cow::Borrowed(&x[..n])),
            n,
            |c, x| if c { x } else { *y },
        ),
        (Num::Many(c), Num::One(x), Num::Many(y)) => map2(
            &Num::Many(Cow::Borrowed(&c[..n])),
            &Num::Many(Cow::Borrowed(&y[..n])),
            n,
            |c, y| if c { *x } else { y },
        ),
        _ => (0..n)
            .map(|i| if c.at(i) { x.at(i) } else { y.at(i) })
            .collect(),
    }
}

/// `Where(c, a, b)`: item by item, `a` where `c` holds, else `b`.
fn where_(a: &[Val], events: usize) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[&a[0], &a[1], &a[2]], events)?;
    let c = lanes[0].bools()?;
    // A number beside a list is converted to the list's item type (`Where(c, v, 0.)` of
    // floats gives floats); two lists or two numbers meet in their common type.
    let list = |v: &Val| matches!(v, Val::Col(Column::Jagged(..)));
    let ty = match (list(&a[1]), list(&a[2])) {
        (true, false) => lanes[1].ty(),
        (false, true) => lanes[2].ty(),
        _ => Ty::common_type(lanes[1].ty(), lanes[2].ty()),
    };
    let values = match ty {
        Ty::P4 => return Err("Where of four-vectors".into()),
        Ty::Vector(c) => return Err(format!("Where of {}s", c.name())),
        Ty::Str => super::strings::where_texts(&c, &lanes[1], &lanes[2], n)?,
        Ty::F64 => {
            let (x, y) = (lanes[1].f64s()?, lanes[2].f64s()?);
            Values::F64(where_items(&c, &x, &y, n))
        }
        Ty::F32 => {
            let (x, y) = (lanes[1].f32s()?, lanes[2].f32s()?);
            Values::F32(where_items(&c, &x, &y, n))
        }
        Ty::Bool => {
            let (x, y) = (lanes[1].bools()?, lanes[2].bools()?);
            Values::Bool(where_items(&c, &x, &y, n))
        }
        Ty::Int(t) => {
            let (x, y) = (lanes[1].ints(t)?, lanes[2].ints(t)?);
            Values::Int(t, where_items(&c, &x, &y, n))
        }
    };
    Ok(shaped(shape, values, a.iter().all(Val::is_const)))
}

fn concatenate<'a>(a: &'a Val, b: &'a Val) -> Result<Val, String> {
    let (oa, va) = lists(a, "Concatenate")?;
    let (ob, vb) = lists(b, "Concatenate")?;
    if oa.len() != ob.len() {
        return Err("Concatenate of lists of different events".into());
    }
    if Ty::of(va) == Ty::P4 || Ty::of(vb) == Ty::P4 {
        return Err("Concatenate of four-vectors".into());
    }
    fn join<T: Clone>(a: &[T], oa: &[usize], b: &[T], ob: &[usize]) -> Vec<T> {
        let mut out = Vec::with_capacity(a.len() + b.len());
        for (wa, wb) in oa.windows(2).zip(ob.windows(2)) {
            out.extend_from_slice(&a[wa[0]..wa[1]]);
            out.extend_from_slice(&b[wb[0]..wb[1]]);
        }
        out
    }
    let offsets: Vec<usize> = oa.iter().zip(ob.iter()).map(|(x, y)| x + y).collect();
    match (va, vb) {
        (Values::Str(x), Values::Str(y)) => {
            let values = Values::Str(join(x, oa, y, ob));
            return Ok(Val::Col(Column::Jagged(Arc::new(offsets), values.into())));
        }
        (Values::Str(_), _) | (_, Values::Str(_)) => {
            return Err("Concatenate of strings and numbers".into())
        }
        (Values::Vectors(c, x), Values::Vectors(d, y)) if c == d => {
            let values = Values::Vectors(*c, join(x, oa, y, ob));
            return Ok(Val::Col(Column::Jagged(Arc::new(offsets), values.into())));
        }
        (Values::Vectors(..), _) | (_, Values::Vectors(..)) => {
            return Err(format!(
                "Concatenate of {}s and {}s",
                va.type_name(),
                vb.type_name()
            ))
        }
        _ => {}
    }
    // Both lists in their `std::common_type` (converted only where they differ from it).
    let common = Ty::common_type(Ty::of(va), Ty::of(vb));
    let narrow = |v: &Values| matches!(v, Values::IntBool(_));
    let keep_narrow = narrow(va) && narrow(vb);
    let conv = |o: &Arc<Vec<usize>>, v: &'a Values, to: Ty| -> Result<Cow<'a, Values>, String> {
        if Ty::of(v) == to && (keep_narrow || !narrow(v)) {
            return Ok(Cow::Borrowed(v));
        }
        match super::eval::convert(Column::Jagged(o.clone(), v.clone().into()), to)? {
            Column::Jagged(_, v) => Ok(Cow::Owned(Arc::unwrap_or_clone(v))),
            _ => unreachable!("lists stay lists"),
        }
    };
    let (va, vb) = (conv(oa, va, common)?, conv(ob, vb, common)?);
    let values = match (&*va, &*vb) {
        (Values::Bool(x), Values::Bool(y)) => Values::Bool(join(x, oa, y, ob)),
        (Values::Int(t, x), Values::Int(_, y)) => Values::Int(*t, join(x, oa, y, ob)),
        (Values::IntBool(x), Values::IntBool(y)) => Values::IntBool(join(x, oa, y, ob)),
        (Values::F32(x), Values::F32(y)) => Values::F32(join(x, oa, y, ob)),
        (Values::F64(x), Values::F64(y)) => Values::F64(join(x, oa, y, ob)),
        _ => unreachable!("both in the common type"),
    };
    Ok(Val::Col(Column::Jagged(Arc::new(offsets), values.into())))
}

/// `Combinations(v, n)`: the indices of every `n` distinct items of each list, in
/// lexicographic order (as ROOT lists them); `Combinations(v1, v2)`: every pair of an item
/// of `v1` and one of `v2`.
fn combinations(a: &Val, b: &Val) -> Result<Val, String> {
    let (oa, _) = lists(a, "Combinations")?;
    let mut parts: Vec<Vec<i64>>;
    let mut out = Vec::with_capacity(oa.len());
    out.push(0usize);
    // How many combinations a batch may make: more is an error, not a huge allocation.
    let too_many = |total: u128| {
        (total > MAX_COMBINATIONS as u128).then(|| {
            format!("Combinations would make {total} combinations in a batch, more than {MAX_COMBINATIONS}")
        })
    };
    match b {
        Val::Const(Scalar::Int(_, n)) if (1..=8).contains(n) => {
            let n = *n as usize;
            // As ROOT's `Combinations`, which throws for a list shorter than `n`.
            if let Some(w) = oa.windows(2).find(|w| w[1] - w[0] < n) {
                return Err(format!(
                    "Cannot make unique combinations of size {n} from vector of size {}",
                    w[1] - w[0]
                ));
            }
            let total: u128 = oa.windows(2).map(|w| choose((w[1] - w[0]) as u128, n as u128)).sum();
            if let Some(e) = too_many(total) {
                return Err(e);
            }
            parts = (0..n).map(|_| Vec::with_capacity(total as usize)).collect();
            let mut idx = Vec::with_capacity(n);
            for w in oa.windows(2) {
                push_choices(w[1] - w[0], &mut parts, &mut idx);
                out.push(parts[0].len());
            }
        }
        Val::Col(Column::Jagged(ob, _)) => {
            if ob.len() != oa.len() {
                return Err("Combinations of lists of different events".into());
            }
            let total: u128 = oa
                .windows(2)
                .zip(ob.windows(2))
                .map(|(x, y)| ((x[1] - x[0]) * (y[1] - y[0])) as u128)
                .sum();
            if let Some(e) = too_many(total) {
                return Err(e);
            }
            parts = (0..2).map(|_| Vec::with_capacity(total as usize)).collect();
            for (wa, wb) in oa.windows(2).zip(ob.windows(2)) {
                for i in 0..wa[1] - wa[0] {
                    for j in 0..wb[1] - wb[0] {
                        parts[0].push(i as i64);
                        parts[1].push(j as i64);
                    }
                }
                out.push(parts[0].len());
            }
        }
        other => return Err(format!("Combinations takes an RVec and a number of items from 1 to 8 (a literal) or two RVecs, not a {}", other.type_name())),
    }
    let offsets = Arc::new(out);
    Ok(Val::Col(Column::Tuple(
        parts
            .into_iter()
            .map(|p| Column::Jagged(offsets.clone(), Values::Int(IntTy::SIZE, p).into()))
            .collect(),
    )))
}

/// Every choice of `parts.len()` distinct items of a list of `len` (at least that many), in
/// lexicographic order, its indices pushed onto `parts` (one list per position); `idx` is
/// scratch space. Pairs and triples, nearly every use, have loops of their own.
fn push_choices(len: usize, parts: &mut [Vec<i64>], idx: &mut Vec<usize>) {
    match parts {
        [a, b] => {
            for i in 0..len {
                for j in i + 1..len {
                    a.push(i as i64);
                    b.push(j as i64);
                }
            }
        }
        [a, b, c] => {
            for i in 0..len {
                for j in i + 1..len {
                    for k in j + 1..len {
                        a.push(i as i64);
                        b.push(j as i64);
                        c.push(k as i64);
                    }
                }
            }
        }
        _ => {
            let n = parts.len();
            idx.clear();
            idx.extend(0..n);
            loop {
                for (p, &i) in parts.iter_mut().zip(idx.iter()) {
                    p.push(i as i64);
                }
                // The next combination: the last index that can move, moved.
                let Some(k) = (0..n).rev().find(|&k| idx[k] < len - n + k) else {
                    break;
                };
                idx[k] += 1;
                for j in k + 1..n {
                    idx[j] = idx[j - 1] + 1;
                }
            }
        }
    }
}

/// The most combinations `Combinations` makes in one batch (their indices take 8 bytes
/// each per item).
const MAX_COMBINATIONS: usize = 1 << 27;

/// `n` choose `k` (saturating).
fn choose(n: u128, k: u128) -> u128 {
    if k > n {
        return 0;
    }
    if n <= 60 {
        // Exact in 64 bits (every partial product is below 60 C(60, 30) < 2^63), without
        // the 128-bit divisions most lists, of a few items, do not need.
        let (n, k) = (n as u64, k as u64);
        return u128::from((0..k).fold(1u64, |acc, i| acc * (n - i) / (i + 1)));
    }
    (0..k).fold(1u128, |acc, i| acc.saturating_mul(n - i) / (i + 1))
}

/// ROOT's `DeltaPhi(v1, v2)`: `fmod(v2 - v1, 2 pi)` brought into [-pi, pi], computed as
/// the header computes it (the difference in the arguments' type, the rest in `double`,
/// the result in the arguments' type).
fn delta_phi(a: &Val, b: &Val, events: usize) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[a, b], events)?;
    let floats = |t: Ty| matches!(t, Ty::F32 | Ty::F64);
    if !floats(lanes[0].ty()) || !floats(lanes[1].ty()) {
        return Err("DeltaPhi must be called with floating point values".into());
    }
    let values = if Ty::common(lanes[0].ty(), lanes[1].ty()) == Ty::F32 {
        let (x, y) = (lanes[0].f32s()?, lanes[1].f32s()?);
        Values::F32(map2(&x, &y, n, dphi_f32))
    } else {
        let (x, y) = (lanes[0].f64s()?, lanes[1].f64s()?);
        Values::F64(map2(&x, &y, n, dphi_f64))
    };
    Ok(shaped(shape, values, a.is_const() && b.is_const()))
}

fn wrap(r: f64, c: f64) -> f64 {
    if r < -c {
        r + 2.0 * c
    } else if r > c {
        r - 2.0 * c
    } else {
        r
    }
}

fn dphi_f32(v1: f32, v2: f32) -> f32 {
    let c = std::f64::consts::PI as f32 as f64;
    wrap(fmod((v2 - v1) as f64, 2.0 * c), c) as f32
}

fn dphi_f64(v1: f64, v2: f64) -> f64 {
    let c = std::f64::consts::PI;
    wrap(fmod(v2 - v1, 2.0 * c), c)
}

/// C's `fmod(x, y)` for `y > 0`: `x` itself when it is smaller than `y` in magnitude (what
/// `fmod` returns then, exactly, with its sign), which spares the library call for the
/// differences of two angles.
#[inline]
fn fmod(x: f64, y: f64) -> f64 {
    if x.abs() < y {
        x
    } else {
        x % y
    }
}

/// `DeltaR(eta1, eta2, phi1, phi2)` (and its square), in the arguments' common type.
fn delta_r(a: &[Val], events: usize, root: bool) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[&a[0], &a[1], &a[2], &a[3]], events)?;
    let ty = lanes.iter().map(Lane::ty).fold(Ty::F32, Ty::common);
    let values = if ty == Ty::F32 {
        let l: Vec<Num<f32>> = lanes.iter().map(Lane::f32s).collect::<Result<_, _>>()?;
        Values::F32(delta_r_items(&l, n, root))
    } else {
        let l: Vec<Num<f64>> = lanes.iter().map(Lane::f64s).collect::<Result<_, _>>()?;
        Values::F64(delta_r_items(&l, n, root))
    };
    Ok(shaped(shape, values, a.iter().all(Val::is_const)))
}

/// DeltaR (or its square) of `n` items of eta1, eta2, phi1, phi2 in one float type.
fn delta_r_items<T: Float>(l: &[Num<'_, T>], n: usize, root: bool) -> Vec<T> {
    let item = |eta1: T, eta2: T, phi1: T, phi2: T| {
        let d = T::delta_phi(phi1, phi2);
        let de = eta1 - eta2;
        let r2 = de * de + d * d;
        if root {
            r2.sqrt()
        } else {
            r2
        }
    };
    if let [Num::Many(a), Num::Many(b), Num::Many(c), Num::Many(d)] = l {
        // Every argument a list: one loop over slices, without a test per item.
        let (a, b, c, d) = (&a[..n], &b[..n], &c[..n], &d[..n]);
        return (0..n).map(|i| item(a[i], b[i], c[i], d[i])).collect();
    }
    (0..n)
        .map(|i| item(l[0].at(i), l[1].at(i), l[2].at(i), l[3].at(i)))
        .collect()
}

/// `InvariantMass(pt, eta, phi, m)` of each event's particles, as `RVec.hxx` sums them.
fn invariant_mass(a: &[Val]) -> Result<Val, String> {
    let (offsets, _) = lists(&a[0], "InvariantMass")?;
    let events = offsets.len() - 1;
    let (_, _, lanes) = align(&[&a[0], &a[1], &a[2], &a[3]], events)?;
    let ty = lanes.iter().map(Lane::ty).fold(Ty::F32, Ty::common);
    macro_rules! mass {
        ($t:ty, $get:ident, $variant:ident) => {{
            let l: Vec<Num<$t>> = lanes.iter().map(Lane::$get).collect::<Result<_, _>>()?;
            Values::$variant(
                offsets
                    .windows(2)
                    .map(|w| {
                        let (mut xs, mut ys, mut zs, mut es) =
                            (0.0 as $t, 0.0 as $t, 0.0 as $t, 0.0 as $t);
                        for i in w[0]..w[1] {
                            let (pt, eta, phi, m) =
                                (l[0].at(i), l[1].at(i), l[2].at(i), l[3].at(i));
                            let x = pt * phi.cos();
                            let y = pt * phi.sin();
                            let z = pt * eta.sinh();
                            xs += x;
                            ys += y;
                            zs += z;
                            es += (x * x + y * y + z * z + m * m).sqrt();
                        }
                        (es * es - xs * xs - ys * ys - zs * zs).sqrt()
                    })
                    .collect(),
            )
        }};
    }
    let values = if ty == Ty::F32 {
        mass!(f32, f32s, F32)
    } else {
        mass!(f64, f64s, F64)
    };
    Ok(Val::Col(Column::Flat(values.into())))
}

/// `InvariantMasses(pt1, eta1, phi1, m1, pt2, eta2, phi2, m2)`: item by item, the mass of
/// two particles, as `InvariantMasses_PxPyPzM` computes it.
fn invariant_masses(a: &[Val], events: usize) -> Result<Val, String> {
    let refs: Vec<&Val> = a.iter().collect();
    let (shape, n, lanes) = align(&refs, events)?;
    let ty = lanes.iter().map(Lane::ty).fold(Ty::F32, Ty::common);
    macro_rules! masses {
        ($t:ty, $get:ident, $variant:ident) => {{
            let l: Vec<Num<$t>> = lanes.iter().map(Lane::$get).collect::<Result<_, _>>()?;
            Values::$variant(
                (0..n)
                    .map(|i| {
                        let p = |k: usize| {
                            let (pt, eta, phi) = (l[k].at(i), l[k + 1].at(i), l[k + 2].at(i));
                            (pt * phi.cos(), pt * phi.sin(), pt * eta.sinh())
                        };
                        let (x1, y1, z1) = p(0);
                        let (x2, y2, z2) = p(4);
                        pair_mass(x1, y1, z1, l[3].at(i), x2, y2, z2, l[7].at(i))
                    })
                    .collect(),
            )
        }};
    }
    let values = if ty == Ty::F32 {
        masses!(f32, f32s, F32)
    } else {
        masses!(f64, f64s, F64)
    };
    Ok(shaped(shape, values, false))
}

/// The float types the mass of two particles is computed in.
trait Float:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    const TWO: Self;
    fn sqrt(self) -> Self;
    /// ROOT's `DeltaPhi` in this type (see `dphi_f32`, `dphi_f64`).
    fn delta_phi(v1: Self, v2: Self) -> Self;
    fn cos(self) -> Self;
    fn sin(self) -> Self;
    fn atan2(self, x: Self) -> Self;
}

macro_rules! float {
    ($t:ty, $dphi:ident) => {
        impl Float for $t {
            fn delta_phi(v1: Self, v2: Self) -> Self {
                $dphi(v1, v2)
            }
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const TWO: Self = 2.0;
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn atan2(self, x: Self) -> Self {
                <$t>::atan2(self, x)
            }
        }
    };
}
float!(f32, dphi_f32);
float!(f64, dphi_f64);

/// `InvariantMasses_PxPyPzM` of `RVec.hxx`: the numerically stable form through the
/// angle between the momenta.
#[allow(clippy::too_many_arguments)]
fn pair_mass<T: Float>(x1: T, y1: T, z1: T, m1: T, x2: T, y2: T, z2: T, m2: T) -> T {
    let p1 = x1 * x1 + y1 * y1 + z1 * z1;
    let p2 = x2 * x2 + y2 * y2 + z2 * z2;
    let signed_root = |m2: T| {
        if m2 >= T::ZERO {
            m2.sqrt()
        } else {
            (-m2).sqrt()
        }
    };
    if p1 <= T::ZERO && p2 <= T::ZERO {
        return m1 + m2;
    }
    if p1 <= T::ZERO {
        let mm = m1 + (m2 * m2 + p2).sqrt();
        return signed_root(mm * mm - p2);
    }
    if p2 <= T::ZERO {
        let mm = m2 + (m1 * m1 + p1).sqrt();
        return signed_root(mm * mm - p1);
    }
    let (m1s, m2s) = (m1 * m1, m2 * m2);
    let (r1, r2) = (m1s / p1, m2s / p2);
    let x = r1 + r2 + r1 * r2;
    // ROOT's Angle(): atan2 of the cross product's norm and the dot product.
    let (cx, cy, cz) = (y1 * z2 - y2 * z1, x2 * z1 - x1 * z2, x1 * y2 - x2 * y1);
    let a = (cx * cx + cy * cy + cz * cz)
        .sqrt()
        .atan2(x1 * x2 + y1 * y2 + z1 * z2);
    let cos_a = a.cos();
    let y = if cos_a >= T::ZERO {
        (x + a.sin() * a.sin()) / ((x + T::ONE).sqrt() + cos_a)
    } else {
        (x + T::ONE).sqrt() - cos_a
    };
    let z = T::TWO * (p1 * p2).sqrt();
    (m1s + m2s + y * z).sqrt()
}

/// `PtEtaPhiMVector(pt, eta, phi, m)` (or `Construct<PtEtaPhiMVector>` of lists).
fn vector(a: &[Val], events: usize) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[&a[0], &a[1], &a[2], &a[3]], events)?;
    let l: Vec<Num<f64>> = lanes.iter().map(Lane::f64s).collect::<Result<_, _>>()?;
    let values = (0..n)
        .map(|i| P4::new(l[0].at(i), l[1].at(i), l[2].at(i), l[3].at(i)))
        .collect();
    let shape = if a.iter().all(Val::is_const) {
        Shape::Flat
    } else {
        shape
    };
    Ok(match shape {
        Shape::Flat if n == 1 && events != 1 && a.iter().all(Val::is_const) => {
            return Err("a four-vector of constants".into())
        }
        s => shaped(s, Values::P4(values), false),
    })
}

/// A four-vector's method, item by item.
fn p4_method(name: &str, a: &[Val], events: usize) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[&a[0]], events)?;
    let p = lanes[0]
        .p4s()
        .map_err(|e| format!("{}(): {e}", &name[1..]))?;
    let f: fn(&P4) -> f64 = match name {
        ".Pt" | ".pt" => P4::pt,
        ".Eta" | ".eta" => P4::eta,
        ".Phi" | ".phi" => P4::phi,
        ".M" | ".mass" => P4::m,
        ".E" | ".energy" => P4::e,
        ".P" => P4::p,
        ".Px" | ".px" => P4::px,
        ".Py" | ".py" => P4::py,
        ".Pz" | ".pz" => P4::pz,
        ".Mt" => P4::mt,
        ".Et" => P4::et,
        ".Rapidity" => P4::rapidity,
        other => {
            if let Some(called) = super::vector_calls::p4_call(other, a, events) {
                return called;
            }
            let method = &other[1..];
            if a.len() != 1 || !super::genvectors::LORENTZ_NUMBERS.contains(&method) {
                return Err(format!(
                    "a PtEtaPhiMVector has no method {method}() of {} arguments",
                    a.len() - 1
                ));
            }
            let values = (0..n)
                .map(|i| super::genvectors::momentum_number(&Momentum::Polar(p.at(i)), method));
            return Ok(shaped(shape, Values::F64(values.collect()), false));
        }
    };
    Ok(shaped(
        shape,
        Values::F64((0..n).map(|i| f(&p.at(i))).collect()),
        false,
    ))
}

#[cfg(test)]
mod tests {
    use super::{choose, dphi_f32, dphi_f64, fmod, wrap};

    #[test]
    fn fmod_without_the_call_has_the_call_s_bits() {
        let y = 2.0 * std::f64::consts::PI;
        let mut xs = vec![0.0, -0.0, 1e-310, -1e-310, y, -y, y * 3.5, -y * 7.25, 1e300];
        xs.extend((-2000..2000).map(|i| i as f64 * 0.0071));
        xs.extend([y.next_down(), -y.next_down(), f64::INFINITY, f64::NAN]);
        for x in xs {
            let (fast, call) = (fmod(x, y), x % y);
            assert!(
                fast.to_bits() == call.to_bits() || (fast.is_nan() && call.is_nan()),
                "{x}"
            );
        }
        // DeltaPhi as ROOT writes it, with the library's fmod.
        let c = std::f64::consts::PI;
        for (a, b) in [(3.1f64, -3.1f64), (-2.0, 2.5), (0.5, 0.25), (-3.0, 3.0)] {
            assert_eq!(dphi_f64(a, b), wrap((b - a) % (2.0 * c), c));
            let cf = c as f32 as f64;
            let (af, bf) = (a as f32, b as f32);
            assert_eq!(
                dphi_f32(af, bf),
                wrap(((bf - af) as f64) % (2.0 * cf), cf) as f32
            );
        }
    }

    #[test]
    fn choose_is_pascal_s_triangle_in_both_widths() {
        // Row by row from Pascal's rule, up to and past the 64-bit path's last row.
        let mut row = vec![1u128];
        for n in 1..=70u128 {
            let mut next = vec![1u128; n as usize + 1];
            for k in 1..n as usize {
                next[k] = row[k - 1] + row[k];
            }
            row = next;
            for (k, &c) in row.iter().enumerate() {
                assert_eq!(choose(n, k as u128), c, "{n} choose {k}");
            }
            assert_eq!(choose(n, n + 1), 0);
        }
    }
}
