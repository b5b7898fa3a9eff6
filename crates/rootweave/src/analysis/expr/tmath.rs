//! ROOT's `TMath` functions as analysts call them (`TMath::Sqrt(x)`, `TMath::Power(x, 2)`):
//! each takes and gives a `Double_t`, so a `float` argument is converted to `double` first and
//! the result is a `double` (where `std::sqrt` of a `float` stays a `float`). `TMath::Abs`,
//! `TMath::Max` and `TMath::Min` keep their arguments' type, as their overloads do.

use super::value::{align, map1, map2, shaped, Val};
use crate::analysis::column::Values;

/// A function of one `double`, by its name without `TMath::`.
type One = (&'static str, fn(f64) -> f64);

/// A function of two `double`s, by name.
type Two = (&'static str, fn(f64, f64) -> f64);

/// The one-argument functions.
const ONE: &[One] = &[
    ("Sqrt", f64::sqrt),
    ("Sq", |x| x * x),
    ("Exp", f64::exp),
    ("Log", f64::ln),
    ("Log10", f64::log10),
    ("Sin", f64::sin),
    ("Cos", f64::cos),
    ("Tan", f64::tan),
    ("ASin", f64::asin),
    ("ACos", f64::acos),
    ("ATan", f64::atan),
    ("SinH", f64::sinh),
    ("CosH", f64::cosh),
    ("TanH", f64::tanh),
    ("Ceil", f64::ceil),
    ("Floor", f64::floor),
];

/// The two-argument functions.
const TWO: &[Two] = &[("ATan2", f64::atan2), ("Power", f64::powf)];

/// The constants (called with no argument).
const CONSTANTS: &[(&str, f64)] = &[
    ("TwoPi", 2.0 * std::f64::consts::PI),
    ("PiOver2", std::f64::consts::FRAC_PI_2),
];

/// The names and argument counts of the functions here (those `call` computes).
pub fn signatures() -> impl Iterator<Item = (&'static str, usize)> {
    ONE.iter()
        .map(|(n, _)| (*n, 1))
        .chain(TWO.iter().map(|(n, _)| (*n, 2)))
        .chain(CONSTANTS.iter().map(|(n, _)| (*n, 0)))
}

/// Whether `name` is a function here that maps numbers to numbers one by one.
pub fn itemwise(name: &str) -> bool {
    ONE.iter().any(|(n, _)| *n == name) || TWO.iter().any(|(n, _)| *n == name)
}

/// `TMath::name(args)` if `name` is one of the functions here; `None` otherwise.
pub fn call(name: &str, args: &[Val], events: usize) -> Option<Result<Val, String>> {
    if let Some((_, value)) = CONSTANTS.iter().find(|(n, _)| *n == name) {
        return Some(Ok(Val::Const(super::value::Scalar::F64(*value))));
    }
    if let Some((_, f)) = ONE.iter().find(|(n, _)| *n == name) {
        return Some(one(&args[0], events, *f));
    }
    let (_, f) = TWO.iter().find(|(n, _)| *n == name)?;
    Some(two(&args[0], &args[1], events, *f))
}

fn one(x: &Val, events: usize, f: fn(f64) -> f64) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[x], events)?;
    let values = Values::F64(map1(&lanes[0].f64s()?, n, f));
    Ok(shaped(shape, values, x.is_const()))
}

fn two(x: &Val, y: &Val, events: usize, f: fn(f64, f64) -> f64) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[x, y], events)?;
    let values = Values::F64(map2(&lanes[0].f64s()?, &lanes[1].f64s()?, n, f));
    Ok(shaped(shape, values, x.is_const() && y.is_const()))
}
