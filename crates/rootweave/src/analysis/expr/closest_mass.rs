//! `ArgMin(abs(v.M() - c))`: the four-vector of a list whose mass is closest to `c` (Q6's
//! trijet closest to the top mass), found without converting every trijet's pair to ROOT's
//! coordinates. Each mass is first estimated with a bound ([`P4::mass_estimate`]); only
//! the vectors whose distance to `c` could be the smallest are given their exact mass, and
//! the first of those with the smallest exact distance is the answer, as `std::min_element`
//! finds it over the exact distances: a vector left out is farther than one kept, for sure.
//! Where one vector alone could be the closest (most events), it is the answer without its
//! exact mass.

use super::eval::{binary, eval, EvalError, Memo, Scope};
use super::functions::call;
use super::int_type::IntTy;
use super::syntax::{BinaryOp, Kind, Node};
use super::value::{Scalar, Val};
use crate::analysis::column::{Column, Values, P4};

/// The parts of `ArgMin(abs(v.M() - c))`: the node of `v.M()`, of `v`, of `v.M() - c`, of
/// `c` and of the `abs` call.
struct Parts<'n> {
    masses: &'n Node,
    list: &'n Node,
    distance: &'n Node,
    target: &'n Node,
    abs: &'n Node,
}

/// `argument` (of `ArgMin`) taken apart, if it is `abs(v.M() - c)` (also `fabs`,
/// `v.mass()`, and an inlined `Map` of `M()`).
fn parts(argument: &Node) -> Option<Parts<'_>> {
    let abs = unshared(argument);
    let Kind::Call(name, args) = &abs.kind else {
        return None;
    };
    if !matches!(name.as_str(), "abs" | "fabs" | "Abs") || args.len() != 1 {
        return None;
    }
    let distance = unshared(&args[0]);
    let Kind::Binary(BinaryOp::Sub, masses, target) = &distance.kind else {
        return None;
    };
    let masses = unshared(masses);
    let Kind::Method(list, method, method_args) = &masses.kind else {
        return None;
    };
    (matches!(method.as_str(), "M" | "mass") && method_args.is_empty()).then_some(Parts {
        masses,
        list,
        distance,
        target,
        abs,
    })
}

fn unshared(node: &Node) -> &Node {
    match &node.kind {
        Kind::Shared(_, part) => unshared(part),
        _ => node,
    }
}

/// The value of `ArgMin(argument)` written at `node`: by mass estimates where `argument` is
/// `abs(v.M() - c)` over four-vectors and a constant number, as written otherwise. The same
/// values and errors either way.
pub fn evaluate(
    node: &Node,
    argument: &Node,
    scope: &mut dyn Scope,
    memo: &mut Memo,
) -> Result<Val, EvalError> {
    let events = scope.events();
    let at = |pos: usize| move |message: String| EvalError { pos, message };
    let Some(p) = parts(argument) else {
        let value = eval(argument, scope, memo)?;
        return call("ArgMin", vec![value], events).map_err(at(node.pos));
    };
    let list = eval(p.list, scope, memo)?;
    let target = eval(p.target, scope, memo)?;
    if let (Val::Col(Column::Jagged(offsets, values)), Some(c)) = (&list, number(&target)) {
        if let Values::P4(vectors) = &**values {
            let mut estimates = Vec::new();
            let index = offsets
                .windows(2)
                .map(|w| closest(&vectors[w[0]..w[1]], c, &mut estimates) as i64)
                .collect();
            return Ok(Val::Col(Column::Flat(
                Values::Int(IntTy::SIZE, index).into(),
            )));
        }
    }
    let masses = call(".M", vec![list], events).map_err(at(p.masses.pos))?;
    let distance = binary(BinaryOp::Sub, &masses, &target, events).map_err(at(p.distance.pos))?;
    let abs = call("abs", vec![distance], events).map_err(at(p.abs.pos))?;
    call("ArgMin", vec![abs], events).map_err(at(node.pos))
}

/// A constant as the `double` it becomes when subtracted from a mass.
fn number(value: &Val) -> Option<f64> {
    match value {
        Val::Const(Scalar::F64(v)) => Some(*v),
        Val::Const(Scalar::F32(v)) => Some(f64::from(*v)),
        Val::Const(Scalar::Int(t, v)) => Some(t.to_f64(*v)),
        _ => None,
    }
}

/// The position of the first vector of `v` whose `|M() - c|` is the smallest (0 for an
/// empty list, as `ArgMin` gives it). `estimates` is room reused from list to list.
fn closest(v: &[P4], c: f64, estimates: &mut Vec<(f64, f64)>) -> usize {
    // `std::min_element` over the exact distances of `indices`: the first smallest (a NaN
    // first is kept), and whether a distance was NaN.
    let first_smallest = |indices: &mut dyn Iterator<Item = usize>| {
        let (mut best, mut nan) = (None, false);
        for i in indices {
            let d = (v[i].m() - c).abs();
            nan |= d.is_nan();
            if best.is_none_or(|(_, smallest)| d < smallest) {
                best = Some((i, d));
            }
        }
        (best.map_or(0, |(i, _)| i), nan)
    };
    let every = || first_smallest(&mut (0..v.len())).0;
    let eps = f64::EPSILON;
    estimates.clear();
    let mut limit = f64::INFINITY;
    for p in v {
        let (m, bound) = p.mass_estimate();
        let d = (m - c).abs();
        let spread = if bound == 0.0 {
            0.0
        } else {
            bound + 4.0 * eps * (m.abs() + c.abs() + bound)
        };
        if !(d + spread).is_finite() {
            // A NaN or an infinity: the exact distances compared as `std::min_element`
            // compares them, every one.
            return every();
        }
        limit = limit.min(d + spread);
        estimates.push((d, spread));
    }
    let mut candidates = estimates
        .iter()
        .enumerate()
        .filter(|(_, (d, spread))| d - spread <= limit)
        .map(|(i, _)| i);
    let first = candidates.next().unwrap_or(0);
    if candidates.clone().next().is_none() {
        // One candidate: every other exact distance exceeds its estimate's limit, which
        // this one's exact distance (finite, as its bound holds) does not.
        return first;
    }
    match first_smallest(&mut std::iter::once(first).chain(candidates)) {
        (i, false) => i,
        (_, true) => every(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::expr::lorentz::sums_at;

    /// The first smallest exact distance, every mass computed.
    fn reference(v: &[P4], c: f64) -> usize {
        let mut best = 0;
        for i in 0..v.len() {
            if (v[i].m() - c).abs() < (v[best].m() - c).abs() {
                best = i;
            }
        }
        best
    }

    #[test]
    fn the_closest_trijet_is_the_one_every_mass_computed_finds() {
        // Jets from a fixed pseudo-random sequence, with repeated jets (ties) and extreme
        // pseudorapidities among them.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut kept = 0;
        for event in 0..3000 {
            let n = 3 + event % 8;
            let mut jets: Vec<P4> = (0..n)
                .map(|_| {
                    let eta = if next() < 0.05 {
                        12.0
                    } else {
                        5.0 * next() - 2.5
                    };
                    P4::new(
                        15.0 + 120.0 * next(),
                        eta,
                        6.0 * next() - 3.0,
                        10.0 * next(),
                    )
                })
                .collect();
            if event % 5 == 0 {
                jets[n - 1] = jets[0];
            }
            let mut at = vec![Vec::new(), Vec::new(), Vec::new()];
            for i in 0..n {
                for j in i + 1..n {
                    for k in j + 1..n {
                        at[0].push(i);
                        at[1].push(j);
                        at[2].push(k);
                    }
                }
            }
            let trijets = sums_at(&jets, &at);
            for c in [172.5, 91.2, 0.0, 1e3] {
                let (fast, slow) = (
                    closest(&trijets, c, &mut Vec::new()),
                    reference(&trijets, c),
                );
                assert_eq!(fast, slow, "event {event}, c {c}");
                kept += usize::from(fast != 0);
            }
        }
        assert!(kept > 1000, "{kept}");
        assert_eq!(closest(&[], 172.5, &mut Vec::new()), 0);
    }

    #[test]
    fn a_bound_holds_for_every_trijet() {
        let jets: Vec<P4> = (0..7)
            .map(|k| {
                let k = k as f64;
                P4::new(20.0 + 13.0 * k, 2.2 - 0.7 * k, 0.9 * k - 2.8, 1.0 + k)
            })
            .collect();
        let at: Vec<Vec<usize>> = vec![vec![0, 1, 2, 3], vec![4, 5, 6, 6], vec![5, 6, 0, 0]];
        for t in sums_at(&jets, &at) {
            let (m, bound) = t.mass_estimate();
            assert!(bound > 0.0 && bound < 1e-6, "{bound}");
            assert!((t.m() - m).abs() <= bound, "{t:?}");
        }
    }
}
