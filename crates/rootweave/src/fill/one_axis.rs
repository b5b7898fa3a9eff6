//! The loop of a one-axis fill, for fields of numbers or lists of numbers: values read as
//! stored (no copy into `f64`s), the weight of an entry given to its values in place, the
//! binning chosen once per batch, and the statistics summed in registers. It sums in the
//! same order as the general loop, so both give the same bits.

use super::binning::regular_cell;
use super::{Binning, FillAxis, Partial};
use crate::array::Array;
use crate::error::{Error, Result};

/// A number as the filler sees it.
trait Number: Copy {
    fn value(self) -> f64;
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl Number for $t {
            #[inline]
            fn value(self) -> f64 {
                self as f64
            }
        }
    )*};
}
numbers!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

/// Calls `$body` with `$v` bound to the slice of a numeric array (not `bool`), or
/// evaluates `$other`.
macro_rules! with_numbers {
    ($array:expr, $v:ident => $body:expr, $other:expr) => {
        match $array {
            Array::Float32($v) => $body,
            Array::Float64($v) => $body,
            Array::Int8($v) => $body,
            Array::Int16($v) => $body,
            Array::Int32($v) => $body,
            Array::Int64($v) => $body,
            Array::UInt8($v) => $body,
            Array::UInt16($v) => $body,
            Array::UInt32($v) => $body,
            Array::UInt64($v) => $body,
            _ => $other,
        }
    };
}

fn is_numbers(a: &Array) -> bool {
    with_numbers!(a, _v => true, false)
}

fn to_f64(a: &Array) -> Vec<f64> {
    with_numbers!(a, v => v.iter().map(|x| x.value()).collect(), Vec::new())
}

/// The weights of a batch: one per value, or one per entry (`offsets` says which values
/// are the entry's).
enum Weights<'a> {
    None,
    PerValue(Vec<f64>),
    PerEntry(Vec<f64>, &'a [u64]),
}

/// Fills `partial` with a one-axis batch, if its field and weight have a form this loop
/// takes (numbers, or one list of numbers per entry); `None` leaves it to the general loop.
pub(super) fn fill_one_axis(
    partial: &mut Partial,
    axis: &FillAxis,
    arrays: &[(String, Array)],
    weighted: bool,
) -> Option<Result<()>> {
    let (values, offsets) = match &arrays[0].1 {
        Array::List { offsets, values } if is_numbers(values) => (&**values, Some(&offsets[..])),
        a if is_numbers(a) => (a, None),
        _ => return None,
    };
    let weights = if weighted {
        let (name, w) = &arrays[1];
        let bad = || {
            Some(Err(Error::InvalidArgument(format!(
                "weight '{name}' is neither one value per entry nor one per value filled"
            ))))
        };
        match (w, offsets) {
            (
                Array::List {
                    offsets: wo,
                    values,
                },
                Some(o),
            ) if is_numbers(values) => {
                if wo != o {
                    return bad();
                }
                Weights::PerValue(to_f64(values))
            }
            (w, Some(o)) if is_numbers(w) => {
                if w.len() + 1 != o.len() {
                    return bad();
                }
                Weights::PerEntry(to_f64(w), o)
            }
            (w, None) if is_numbers(w) => {
                if w.len() != values.len() {
                    return bad();
                }
                Weights::PerValue(to_f64(w))
            }
            _ => return None,
        }
    } else {
        Weights::None
    };
    with_numbers!(values, v => {
        by_binning(partial, axis, v, &weights);
        Some(Ok(()))
    }, None)
}

/// Picks the binning once, then runs the loop with it.
fn by_binning<T: Number>(p: &mut Partial, axis: &FillAxis, v: &[T], w: &Weights) {
    let n = axis.bins();
    match &axis.binning {
        Binning::Regular { min, max, .. } => {
            let (min, delta, closed) = (*min, max - min, !axis.overflow);
            run(p, v, w, n, |x| regular_cell(x, min, delta, n, closed))
        }
        _ => run(p, v, w, n, |x| axis.cell(x)),
    }
}

/// The loop over a batch's values and weights: cells, sums of squared weights, and the
/// statistics of values in range (in locals, added to the partial's at the end).
fn run<T: Number>(p: &mut Partial, v: &[T], w: &Weights, n: usize, cell: impl Fn(f64) -> usize) {
    match w {
        Weights::None => sum(p, v.iter().map(|x| (x.value(), 1.0)), n, cell),
        Weights::PerValue(w) => sum(p, v.iter().zip(w).map(|(x, &w)| (x.value(), w)), n, cell),
        Weights::PerEntry(w, offsets) => {
            let pairs = offsets.windows(2).zip(w).flat_map(|(span, &w)| {
                v[span[0] as usize..span[1] as usize]
                    .iter()
                    .map(move |x| (x.value(), w))
            });
            sum(p, pairs, n, cell)
        }
    }
    p.entries += v.len() as f64;
}

#[inline(always)]
fn sum(
    p: &mut Partial,
    pairs: impl Iterator<Item = (f64, f64)>,
    n: usize,
    cell: impl Fn(f64) -> usize,
) {
    let (mut s0, mut s1, mut s2, mut s3) = (0.0, 0.0, 0.0, 0.0);
    let over = n + 1;
    let cells = &mut p.cells[..];
    let mut sumw2 = p.sumw2.as_deref_mut();
    for (x, w) in pairs {
        let c = cell(x);
        cells[c] += w;
        if let Some(s) = sumw2.as_deref_mut() {
            s[c] += w * w;
        }
        if c != 0 && c != over {
            s0 += w;
            s1 += w * w;
            s2 += w * x;
            s3 += w * x * x;
        }
    }
    for (s, add) in p.stats.iter_mut().zip([s0, s1, s2, s3]) {
        *s += add;
    }
}
