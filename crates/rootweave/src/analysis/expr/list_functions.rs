//! More of `ROOT/RVec.hxx`'s functions of lists, computed as the header computes them (in
//! the items' own type, in order): `Product`, `Var`, `StdDev`, `Dot`, `Drop`, `Intersect`,
//! `Range(n)`, `Range(begin, end[, stride])`, `Sum(v, zero)`, `Take(v, i, default)`, and
//! `RVec`'s methods `empty()`, `front()`, `back()` and `at(i)`.

use std::borrow::Cow;
use std::sync::Arc;

use super::eval::event_name;
use super::functions::{items, lists, sums};
use super::int_type::IntTy;
use super::physics_vectors::VectorClass;
use super::value::{align, scalar_f64, Lane, Scalar, Ty, Val};
use crate::analysis::column::{item_events, Column, Values};

/// The most items `Range` or `Take(v, n, default)` makes in one batch (half a GiB of
/// positions): more is an error, not a huge allocation.
const MAX_MADE_ITEMS: usize = 1 << 26;

/// The names and argument counts of the functions and methods here.
pub const SIGNATURES: &[(&str, &[usize])] = &[
    ("Product", &[1]),
    ("Var", &[1]),
    ("StdDev", &[1]),
    ("Dot", &[2]),
    ("Drop", &[2]),
    ("Intersect", &[2]),
    ("Range", &[1, 2, 3]),
    (".empty", &[1]),
    (".front", &[1]),
    (".back", &[1]),
    (".at", &[2]),
];

/// Function (or `.method`) `name` of `args` if it is one of those here; `None` otherwise.
pub fn call(name: &str, args: &[Val], events: usize) -> Option<Result<Val, String>> {
    Some(match name {
        "Product" => product(&args[0]),
        "Var" | "StdDev" => variance(&args[0], name == "StdDev"),
        "Dot" => dot(&args[0], &args[1]),
        "Drop" => drop_items(&args[0], &args[1]),
        "Intersect" => intersect(&args[0], &args[1]),
        "Range" if args.len() == 1 => range(&args[0], events),
        "Range" => range_between(args, events),
        ".empty" => empty(&args[0]),
        ".front" | ".back" => end_item(&args[0], name == ".back"),
        ".at" => super::eval::index(&args[0], &args[1]),
        _ => return None,
    })
}

/// One value per event.
fn flat(values: Values) -> Result<Val, String> {
    Ok(Val::Col(Column::Flat(values.into())))
}

/// `Product(v)`: each list's items multiplied in order from 1, in their own type (for
/// `bool`s, whether all hold).
fn product(v: &Val) -> Result<Val, String> {
    let (offsets, values) = lists(v, "Product")?;
    let events = item_events(offsets);
    let n = offsets.len() - 1;
    match values {
        Values::F32(x) => {
            let mut out = vec![1.0f32; n];
            events.iter().zip(x).for_each(|(&e, &v)| out[e] *= v);
            flat(Values::F32(out))
        }
        Values::F64(x) => {
            let mut out = vec![1.0f64; n];
            events.iter().zip(x).for_each(|(&e, &v)| out[e] *= v);
            flat(Values::F64(out))
        }
        Values::Bool(x) => {
            let mut out = vec![true; n];
            events.iter().zip(x).for_each(|(&e, &v)| out[e] &= v);
            flat(Values::Bool(out))
        }
        Values::P4(_) | Values::Vectors(..) => Err(format!("Product of {}s", values.type_name())),
        ints => {
            let t = Ty::of(ints).int();
            let lane = Lane::Many(Cow::Borrowed(ints));
            let x = lane.ints(t)?;
            let mut out = vec![1i64; n];
            for (k, &e) in events.iter().enumerate() {
                out[e] = t.wrap(out[e].wrapping_mul(x.at(k)));
            }
            flat(Values::Int(t, out))
        }
    }
}

/// `Var(v)` (or its square root, `StdDev`): the sums of squares and of the items in the
/// items' type, then `(Σx² - (Σx)²/n) / (n - 1)` in `double`; 0 for fewer than two items.
/// (Sums of `bool`s are `bool`s: whether any item holds.)
fn variance(v: &Val, root: bool) -> Result<Val, String> {
    let (offsets, values) = lists(v, if root { "StdDev" } else { "Var" })?;
    let finish = |squares: f64, squared_sum: f64, n: usize| {
        if n < 2 {
            return 0.0;
        }
        let n = n as f64;
        let var = 1.0 / (n - 1.0) * (squares - squared_sum / n);
        if root {
            var.sqrt()
        } else {
            var
        }
    };
    let spans = offsets.windows(2).map(|w| w[0]..w[1]);
    let out: Vec<f64> = match values {
        Values::F32(x) => spans
            .map(|r| {
                let (mut sq, mut s) = (0.0f32, 0.0f32);
                x[r.clone()].iter().for_each(|&v| {
                    sq += v * v;
                    s += v;
                });
                finish(sq as f64, (s * s) as f64, r.len())
            })
            .collect(),
        Values::F64(x) => spans
            .map(|r| {
                let (mut sq, mut s) = (0.0f64, 0.0f64);
                x[r.clone()].iter().for_each(|&v| {
                    sq += v * v;
                    s += v;
                });
                finish(sq, s * s, r.len())
            })
            .collect(),
        Values::Bool(x) => spans
            .map(|r| {
                let any = x[r.clone()].iter().any(|&v| v) as u8 as f64;
                finish(any, any, r.len())
            })
            .collect(),
        Values::P4(_) | Values::Vectors(..) => {
            return Err(format!("Var of {}s", values.type_name()));
        }
        ints => {
            let t = Ty::of(ints).int();
            let lane = Lane::Many(Cow::Borrowed(ints));
            let x = lane.ints(t)?;
            spans
                .map(|r| {
                    let (mut sq, mut s) = (0i64, 0i64);
                    for k in r.clone() {
                        let v = x.at(k);
                        sq = t.wrap(sq.wrapping_add(v.wrapping_mul(v)));
                        s = t.wrap(s.wrapping_add(v));
                    }
                    let squared = t.wrap(s.wrapping_mul(s));
                    finish(t.to_f64(sq), t.to_f64(squared), r.len())
                })
                .collect()
        }
    };
    flat(Values::F64(out))
}

/// `Dot(a, b)`: the sum of the products of the items at the same positions, from 0, in the
/// type of a product of one of each.
fn dot(a: &Val, b: &Val) -> Result<Val, String> {
    let (oa, va) = lists(a, "Dot")?;
    let (ob, vb) = lists(b, "Dot")?;
    if oa.len() != ob.len()
        || oa
            .windows(2)
            .zip(ob.windows(2))
            .any(|(x, y)| x[1] - x[0] != y[1] - y[0])
    {
        return Err("Cannot compute inner product of vectors of different sizes".into());
    }
    let (la, lb) = (Lane::Many(Cow::Borrowed(va)), Lane::Many(Cow::Borrowed(vb)));
    // Each event's sum from `zero` of `add(sum, x, y)` over the pairs of items, in order.
    fn sums<T: Copy>(
        oa: &[usize],
        ob: &[usize],
        zero: T,
        add: impl Fn(T, usize, usize) -> T,
    ) -> Vec<T> {
        oa.windows(2)
            .zip(ob.windows(2))
            .map(|(p, q)| {
                (p[0]..p[1])
                    .zip(q[0]..q[1])
                    .fold(zero, |s, (i, j)| add(s, i, j))
            })
            .collect()
    }
    let values = match Ty::common(la.ty(), lb.ty()) {
        Ty::P4 | Ty::Vector(_) => return Err("Dot of vectors".into()),
        Ty::F64 => {
            let (x, y) = (la.f64s()?, lb.f64s()?);
            Values::F64(sums(oa, ob, 0.0, |s, i, j| s + x.at(i) * y.at(j)))
        }
        Ty::F32 => {
            let (x, y) = (la.f32s()?, lb.f32s()?);
            Values::F32(sums(oa, ob, 0.0, |s, i, j| s + x.at(i) * y.at(j)))
        }
        ty => {
            let t = ty.int();
            let (x, y) = (la.ints(t)?, lb.ints(t)?);
            Values::Int(
                t,
                sums(oa, ob, 0, |s, i, j| {
                    t.wrap(s.wrapping_add(x.at(i).wrapping_mul(y.at(j))))
                }),
            )
        }
    };
    flat(values)
}

/// The items of each list of `v` whose positions `keep` accepts (given the list's own
/// positions and the event), as a list column of the same type.
fn filtered(offsets: &[usize], values: &Values, mut keep: impl FnMut(usize, usize) -> bool) -> Val {
    let mut out = vec![0usize];
    let mut items = Vec::new();
    for (e, w) in offsets.windows(2).enumerate() {
        items.extend((w[0]..w[1]).filter(|&i| keep(e, i)));
        out.push(items.len());
    }
    Val::Col(Column::Jagged(Arc::new(out), values.gather(&items).into()))
}

/// `Drop(v, indices)`: each list without the items at the event's indices (each once, any
/// order; indices past the end drop nothing).
fn drop_items(v: &Val, indices: &Val) -> Result<Val, String> {
    let (offsets, values) = lists(v, "Drop")?;
    let (io, iv) = lists(indices, "Drop")?;
    if io.len() != offsets.len() {
        return Err("Drop of lists of different events".into());
    }
    if matches!(Ty::of(iv), Ty::F32 | Ty::F64 | Ty::P4 | Ty::Vector(_)) {
        return Err("Drop's indices must be integers".into());
    }
    let lane = Lane::Many(Cow::Borrowed(iv));
    let idx = lane.ints(IntTy::SIZE)?;
    Ok(filtered(offsets, values, |e, i| {
        let local = (i - offsets[e]) as u64;
        !(io[e]..io[e + 1]).any(|k| idx.at(k) as u64 == local)
    }))
}

/// `Intersect(a, b)`: the items of each list of `a` that are also in the event's list of
/// `b` (equal as numbers, or strings of the same bytes), in `a`'s order.
fn intersect(a: &Val, b: &Val) -> Result<Val, String> {
    let (oa, va) = lists(a, "Intersect")?;
    let (ob, vb) = lists(b, "Intersect")?;
    if oa.len() != ob.len() {
        return Err("Intersect of lists of different events".into());
    }
    let (la, lb) = (Lane::Many(Cow::Borrowed(va)), Lane::Many(Cow::Borrowed(vb)));
    let found: Vec<bool> = match Ty::common(la.ty(), lb.ty()) {
        Ty::P4 | Ty::Vector(_) => return Err("Intersect of vectors".into()),
        Ty::Str => match (va, vb) {
            (Values::Str(x), Values::Str(y)) => items_in(oa, ob, |i, j| x[i] == y[j]),
            _ => return Err("Intersect of strings and numbers".into()),
        },
        Ty::F32 | Ty::F64 => {
            let (x, y) = (la.f64s()?, lb.f64s()?);
            searched_in(oa, ob, |i| x.at(i), |j| y.at(j))
        }
        ty => {
            let t = ty.int();
            let (x, y) = (la.ints(t)?, lb.ints(t)?);
            items_in(oa, ob, |i, j| x.at(i) == y.at(j))
        }
    };
    Ok(filtered(oa, va, |_, i| found[i]))
}

/// For each item of the lists cut at `oa`, whether `equal` holds for it and an item of its
/// event's list cut at `ob`.
fn items_in(oa: &[usize], ob: &[usize], equal: impl Fn(usize, usize) -> bool) -> Vec<bool> {
    let mut out = vec![false; *oa.last().unwrap_or(&0)];
    for (p, q) in oa.windows(2).zip(ob.windows(2)) {
        for (i, slot) in out[p[0]..p[1]].iter_mut().enumerate() {
            *slot = (q[0]..q[1]).any(|j| equal(p[0] + i, j));
        }
    }
    out
}

/// For each item of the lists cut at `oa`, whether ROOT's `Intersect` finds it in its
/// event's list cut at `ob`: that list sorted by `std::sort`, then searched by the GNU
/// library's `std::binary_search` (its `lower_bound`, then `!(x < *it)`). For numbers in a
/// total order this is membership; a NaN finds whatever the search ends on, as in ROOT.
fn searched_in(
    oa: &[usize],
    ob: &[usize],
    item: impl Fn(usize) -> f64,
    other: impl Fn(usize) -> f64,
) -> Vec<bool> {
    let mut out = vec![false; *oa.last().unwrap_or(&0)];
    let mut sorted = Vec::new();
    for (p, q) in oa.windows(2).zip(ob.windows(2)) {
        sorted.clear();
        sorted.extend((q[0]..q[1]).map(&other));
        super::cxx_sort::sort(&mut sorted, &|a: f64, b: f64| a < b);
        for (i, slot) in out[p[0]..p[1]].iter_mut().enumerate() {
            let x = item(p[0] + i);
            let (mut first, mut len) = (0, sorted.len());
            while len > 0 {
                let half = len / 2;
                if sorted[first + half] < x {
                    first += half + 1;
                    len -= half + 1;
                } else {
                    len = half;
                }
            }
            // `!(x < *it)`: `x` not less than the item, or the two not ordered.
            *slot = first < sorted.len()
                && !matches!(
                    x.partial_cmp(&sorted[first]),
                    Some(std::cmp::Ordering::Less)
                );
        }
    }
    out
}

/// `Range(n)`: the indices 0 to `n - 1` as an `RVec<std::size_t>`, per event.
fn range(n: &Val, events: usize) -> Result<Val, String> {
    per_event("Range", &[n])?;
    let (_, _, lanes) = align(&[n], events)?;
    if matches!(lanes[0].ty(), Ty::F32 | Ty::F64 | Ty::P4 | Ty::Vector(_)) {
        return Err("Range takes an integer".into());
    }
    let len = lanes[0].ints(IntTy::SIZE)?;
    let mut offsets = vec![0usize];
    let mut total = 0usize;
    for e in 0..events {
        let k = len.at(if n.is_const() { 0 } else { e }) as u64 as usize;
        total = total.saturating_add(k);
        if total > MAX_MADE_ITEMS {
            return Err(format!(
                "Range would make more than {MAX_MADE_ITEMS} items in a batch"
            ));
        }
        offsets.push(total);
    }
    let items: Vec<i64> = offsets
        .windows(2)
        .flat_map(|w| 0..(w[1] - w[0]) as i64)
        .collect();
    Ok(Val::Col(Column::Jagged(
        Arc::new(offsets),
        Values::Int(IntTy::SIZE, items).into(),
    )))
}

/// An error unless every argument of `function` is one value per event (or a constant):
/// C++ takes no `RVec` there.
fn per_event(function: &str, args: &[&Val]) -> Result<(), String> {
    match args
        .iter()
        .any(|a| matches!(a, Val::Col(c) if !matches!(c, Column::Flat(_))))
    {
        true => Err(format!(
            "{function} takes numbers, one per event, not RVecs"
        )),
        false => Ok(()),
    }
}

/// `Range(begin, end[, stride])`: per event the integers from `begin` by `stride` (1 if not
/// given) up to `end` excluded (down to it for a negative stride), as `ROOT::VecOps::Range`
/// makes them: `std::size_t`s from two arguments, `long long`s from three; a zero stride is
/// an error.
fn range_between(args: &[Val], events: usize) -> Result<Val, String> {
    let refs: Vec<&Val> = args.iter().collect();
    per_event("Range", &refs)?;
    let (_, _, lanes) = align(&refs, events)?;
    if lanes
        .iter()
        .any(|l| matches!(l.ty(), Ty::F32 | Ty::F64 | Ty::P4 | Ty::Vector(_)))
    {
        return Err("Range takes integers".into());
    }
    let t = match args.len() {
        2 => IntTy::SIZE,
        _ => IntTy::LONG64,
    };
    let nums = lanes
        .iter()
        .map(|l| l.ints(t))
        .collect::<Result<Vec<_>, _>>()?;
    let at = |k: usize, e: usize| nums[k].at(if args[k].is_const() { 0 } else { e });
    let (mut offsets, mut items) = (vec![0usize], Vec::new());
    for e in 0..events {
        let (begin, end) = (at(0, e), at(1, e));
        let stride = if nums.len() == 3 { at(2, e) } else { 1 };
        if stride == 0 {
            return Err(format!("Range with a stride of 0 ({})", event_name(e)));
        }
        // Unsigned bounds compare as unsigned.
        let before = |x: i64| match (t.unsigned, stride > 0) {
            (true, true) => (x as u64) < end as u64,
            (true, false) => (x as u64) > end as u64,
            (false, true) => x < end,
            (false, false) => x > end,
        };
        let mut x = begin;
        while before(x) {
            if items.len() >= MAX_MADE_ITEMS {
                return Err(format!(
                    "Range would make more than {MAX_MADE_ITEMS} items in a batch"
                ));
            }
            items.push(x);
            match x.checked_add(stride) {
                Some(next) if t.wrap(next) == next => x = next,
                _ => break,
            }
        }
        offsets.push(items.len());
    }
    Ok(Val::Col(Column::Jagged(
        Arc::new(offsets),
        Values::Int(t, items).into(),
    )))
}

/// `Sum(v, zero)` of lists of physics vectors from a vector of their class (a
/// `PxPyPzEVector()` for every event): each event's items added to its zero one by one, as
/// `RVec`'s `Sum` adds them. `None` for other arguments.
fn vector_sums(offsets: &[usize], values: &Values, zero: &Val) -> Option<Values> {
    let (Values::Vectors(class, items), Val::Col(Column::Flat(z))) = (values, zero) else {
        return None;
    };
    let Values::Vectors(zero_class, zeros) = &**z else {
        return None;
    };
    (zero_class == class && zeros.len() + 1 == offsets.len()).then_some(())?;
    let sums = offsets
        .windows(2)
        .zip(zeros)
        .map(|(w, &start)| {
            items[w[0]..w[1]]
                .iter()
                .fold(start, |acc, v| super::physics_vectors::add(*class, &acc, v))
        })
        .collect();
    Some(Values::Vectors(*class, sums))
}

/// `Sum(v, zero)`: each list's items added in order to `zero`, a constant of the items' own
/// type. ROOT 6.40's template takes no other: with a zero of another type C++ converts the
/// list to an `RVec<bool>` for that class's own overload, so the sum is the zero as a
/// `std::size_t` plus the items that are not 0 (`Sum(Jet_pt, 0.)` counts them), as here.
pub fn sum_from(v: &Val, zero: &Val) -> Result<Val, String> {
    let (offsets, values) = lists(v, "Sum")?;
    if let Values::Vectors(VectorClass::CartesianPoint, _) = values {
        return Err("Sum of XYZPoints: GenVector has no sum of two points".into());
    }
    if let Some(sums) = vector_sums(offsets, values, zero) {
        return Ok(Val::Col(Column::Flat(sums.into())));
    }
    let Val::Const(z) = zero else {
        return Err("Sum(v, zero): zero is a constant".into());
    };
    let ty = Ty::of(values);
    if let (Values::Bool(b), Scalar::Bool(_) | Scalar::Int(..)) = (values, z) {
        return sum_of_bools(b, offsets, z);
    }
    if Ty::of_scalar(z) != ty && !matches!(ty, Ty::P4 | Ty::Vector(_)) {
        let size = match *z {
            Scalar::Bool(b) => i64::from(b),
            Scalar::Int(_, z) => z,
            Scalar::F32(_) | Scalar::F64(_) => {
                let x = scalar_f64(z);
                if !(x > -1.0 && x < 18_446_744_073_709_551_616.0) {
                    return Err(format!(
                        "Sum(v, zero): a zero of {x} as the std::size_t of RVec<bool>'s Sum is \
                         undefined in C++"
                    ));
                }
                x.trunc() as u64 as i64
            }
        };
        let lane = Lane::Many(Cow::Borrowed(values));
        let nonzero: Vec<bool> = match values {
            Values::Bool(b) => b.clone(),
            _ => items(&lane.f64s()?).iter().map(|&x| x != 0.0).collect(),
        };
        return sum_of_bools(&nonzero, offsets, &Scalar::Int(IntTy::SIZE, size));
    }
    if Ty::of_scalar(z) != ty || matches!(ty, Ty::Bool | Ty::P4 | Ty::Vector(_)) {
        return Err(format!(
            "Sum(v, zero): zero must be of the items' type {}, not {}",
            values.type_name(),
            super::value::ty_name(Ty::of_scalar(z))
        ));
    }
    let lane = Lane::Many(Cow::Borrowed(values));
    let out = match z {
        Scalar::F32(z) => Values::F32(sums(items(&lane.f32s()?), offsets, *z, |a, b| a + b)),
        Scalar::F64(z) => Values::F64(sums(items(&lane.f64s()?), offsets, *z, |a, b| a + b)),
        Scalar::Int(t, z) => {
            let mut s = sums(items(&lane.ints(*t)?), offsets, *z, i64::wrapping_add);
            s.iter_mut().for_each(|v| *v = t.wrap(*v));
            Values::Int(*t, s)
        }
        Scalar::Bool(_) => unreachable!("refused above"),
    };
    flat(out)
}

/// `Sum(v, zero)` of `bool`s: with a `bool` zero, the template's `bool` (whether `zero` or
/// any item holds); with an integer, `RVec<bool>`'s own overload, the `std::size_t` zero
/// (wrapped as C++ converts it) plus the items that hold.
fn sum_of_bools(b: &[bool], offsets: &[usize], zero: &Scalar) -> Result<Val, String> {
    let spans = offsets.windows(2).map(|w| &b[w[0]..w[1]]);
    match *zero {
        Scalar::Bool(z) => flat(Values::Bool(
            spans.map(|v| z || v.contains(&true)).collect(),
        )),
        Scalar::Int(_, z) => {
            let counts = spans
                .map(|v| IntTy::SIZE.wrap(z.wrapping_add(v.iter().filter(|&&x| x).count() as i64)));
            flat(Values::Int(IntTy::SIZE, counts.collect()))
        }
        _ => unreachable!("a bool or an integer zero"),
    }
}

/// `Take(v, i, default)` and `Take(v, n, default)`: as `Take(v, i)` and `Take(v, n)`, with
/// `default` (of the items' type, as the template requires) for an index past the end and
/// for the items an `n` beyond the list's size adds (after the list, or before it for a
/// negative `n`), where the two-argument `Take` fails.
pub fn take_or(v: &Val, which: &Val, default: &Val) -> Result<Val, String> {
    let (offsets, values) = lists(v, "Take")?;
    // An `RVec<int>` of comparisons held as `bool`s takes any `int` default: its items as
    // `int`s.
    let widened;
    let values = match values {
        Values::IntBool(b) => {
            widened = Values::Int(IntTy::INT, b.iter().map(|&x| i64::from(x)).collect());
            &widened
        }
        other => other,
    };
    let events = offsets.len() - 1;
    let default_ty = match default {
        Val::Const(s) => Ty::of_scalar(s),
        Val::Col(Column::Flat(d)) => Ty::of(d),
        Val::Col(_) => return Err("Take(v, i, default): default is a list, not a value".into()),
    };
    if default_ty != Ty::of(values) {
        return Err(format!(
            "Take(v, i, default): default must be of the items' type {}, not {}",
            values.type_name(),
            default.type_name()
        ));
    }
    let Column::Flat(defaults) = default.clone().into_column(events) else {
        unreachable!("one value per event")
    };
    // Items past the list's own are the events' defaults, at `values.len() + event`.
    let past = values.len();
    let mut items = Vec::new();
    let mut out = vec![0usize];
    if let Val::Col(Column::Jagged(io, iv)) = which {
        if io.len() != offsets.len() {
            return Err("Take of lists of different events".into());
        }
        let lane = Lane::Many(Cow::Borrowed(iv));
        let indices = lane.ints(IntTy::LONG64)?;
        for (e, (w, iw)) in offsets.windows(2).zip(io.windows(2)).enumerate() {
            let len = w[1] - w[0];
            // A negative index is a huge `std::size_t`, past the end.
            items.extend(
                (iw[0]..iw[1]).map(|k| match usize::try_from(indices.at(k)) {
                    Ok(i) if i < len => w[0] + i,
                    _ => past + e,
                }),
            );
            out.push(items.len());
        }
    } else {
        let (_, _, lanes) = align(&[which], events)?;
        let n_at = lanes[0].ints(IntTy::INT)?;
        for (e, w) in offsets.windows(2).enumerate() {
            let n = n_at.at(if which.is_const() { 0 } else { e });
            let (len, want) = (w[1] - w[0], n.unsigned_abs() as usize);
            if items.len() + want.max(len) > MAX_MADE_ITEMS {
                return Err(format!(
                    "Take would make more than {MAX_MADE_ITEMS} items in a batch"
                ));
            }
            let fill = std::iter::repeat_n(past + e, want.saturating_sub(len));
            match (n >= 0, want <= len) {
                (true, true) => items.extend(w[0]..w[0] + want),
                (false, true) => items.extend(w[1] - want..w[1]),
                (true, false) => {
                    items.extend(w[0]..w[1]);
                    items.extend(fill);
                }
                (false, false) => {
                    items.extend(fill);
                    items.extend(w[0]..w[1]);
                }
            }
            out.push(items.len());
        }
    }
    let all = values.clone().append(Arc::unwrap_or_clone(defaults))?;
    Ok(Val::Col(Column::Jagged(
        Arc::new(out),
        all.gather(&items).into(),
    )))
}

/// `v.empty()`: whether each list has no item.
fn empty(v: &Val) -> Result<Val, String> {
    let (offsets, _) = lists(v, "empty()")?;
    flat(Values::Bool(
        offsets.windows(2).map(|w| w[0] == w[1]).collect(),
    ))
}

/// `v.front()` / `v.back()`: each list's first or last item (an error for an empty list).
fn end_item(v: &Val, back: bool) -> Result<Val, String> {
    let (offsets, values) = lists(v, if back { "back()" } else { "front()" })?;
    let mut items = Vec::with_capacity(offsets.len() - 1);
    for (e, w) in offsets.windows(2).enumerate() {
        if w[0] == w[1] {
            let which = if back { "back" } else { "front" };
            return Err(format!("{which}() of an empty RVec ({})", event_name(e)));
        }
        items.push(if back { w[1] - 1 } else { w[0] });
    }
    flat(values.gather(&items))
}
