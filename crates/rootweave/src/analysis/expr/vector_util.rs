//! `ROOT::Math::VectorUtil`'s functions of two four-vectors (`DeltaR(a, b)`, `DeltaPhi`,
//! `DeltaR2`, `DeltaRapidityPhi`, `DeltaR2RapidityPhi`, `InvariantMass`), the namespace
//! dropped as every namespace is: called with `PtEtaPhiMVector`s instead of numbers, the
//! names mean these functions, computed as they compute them (`DeltaPhi` is `b.Phi() -
//! a.Phi()` brought into (-pi, pi] by one step), also of `PxPyPzEVector`s,
//! `PtEtaPhiEVector`s and `PxPyPzMVector`s (any kind on either side, as the templates take
//! them). ROOT's templates need the vectors' `Scalar`
//! type, which `TLorentzVector` lacks: they are refused for it, as C++ refuses them.

use std::f64::consts::PI;

use super::coordinates::{momenta, Momentum};
use super::value::{align, shaped, Ty, Val};
use crate::analysis::column::{Column, Values};

/// `name(a, b)`: `None` unless it is one of these functions called with a vector first.
pub fn call(name: &str, args: &[Val], events: usize) -> Option<Result<Val, String>> {
    let [a, b] = args else {
        return None;
    };
    let f: fn(&Momentum, &Momentum) -> f64 = match name {
        "DeltaPhi" => delta_phi,
        "DeltaR" => |a, b| delta_r2(a, b).sqrt(),
        "DeltaR2" => delta_r2,
        "DeltaRapidityPhi" => |a, b| delta_r2_rapidity(a, b).sqrt(),
        "DeltaR2RapidityPhi" => delta_r2_rapidity,
        "InvariantMass" => invariant_mass,
        _ => return None,
    };
    let four = |t: Option<Ty>| match t {
        Some(Ty::P4) => true,
        Some(Ty::Vector(c)) => c.held_four_vector(),
        _ => false,
    };
    match (type_of(a), type_of(b)) {
        (x, y) if four(x) && four(y) => {}
        (Some(Ty::Vector(c)), _) | (_, Some(Ty::Vector(c))) if !c.genvector() => {
            return Some(Err(format!(
                "ROOT::Math::VectorUtil::{name} of a {}, which has no Scalar type",
                c.name()
            )))
        }
        (Some(Ty::Vector(c)), Some(Ty::Vector(d))) => {
            return Some(Err(format!(
                "ROOT::Math::VectorUtil::{name} of a {} and a {}: four-vectors only",
                c.name(),
                d.name()
            )))
        }
        (Some(_), _) | (_, Some(_)) => {
            return Some(Err(format!(
                "ROOT::Math::VectorUtil::{name} of a four-vector and a number"
            )))
        }
        // Two numbers: `ROOT::VecOps::DeltaPhi` of angles; the others take four-vectors.
        _ if name == "DeltaPhi" => return None,
        _ => {
            return Some(Err(format!(
                "{name} of two arguments takes four-vectors (ROOT::Math::VectorUtil's)"
            )))
        }
    }
    Some(pairwise(f, a, b, events))
}

/// `f` of the four-vectors of `a` and `b` at each position.
fn pairwise(
    f: fn(&Momentum, &Momentum) -> f64,
    a: &Val,
    b: &Val,
    events: usize,
) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[a, b], events)?;
    let (p, q) = (momenta(&lanes[0], n)?, momenta(&lanes[1], n)?);
    let values = Values::F64(p.iter().zip(&q).map(|(p, q)| f(p, q)).collect());
    Ok(shaped(shape, values, false))
}

/// Whether `v` is a column of vectors (or lists of them), and of which type.
fn type_of(v: &Val) -> Option<Ty> {
    match v {
        Val::Col(Column::Flat(v) | Column::Jagged(_, v)) => {
            Some(Ty::of(v)).filter(|t| t.is_vector())
        }
        _ => None,
    }
}

/// `DeltaPhi(a, b)`: `b.Phi() - a.Phi()`, one step of 2 pi into (-pi, pi].
fn delta_phi(a: &Momentum, b: &Momentum) -> f64 {
    let d = b.coordinate("Phi") - a.coordinate("Phi");
    if d > PI {
        d - 2.0 * PI
    } else if d <= -PI {
        d + 2.0 * PI
    } else {
        d
    }
}

/// `DeltaR2(a, b)`: `dphi * dphi + deta * deta`, `deta = b.Eta() - a.Eta()`.
fn delta_r2(a: &Momentum, b: &Momentum) -> f64 {
    let dphi = delta_phi(a, b);
    let deta = b.coordinate("Eta") - a.coordinate("Eta");
    dphi * dphi + deta * deta
}

/// `DeltaR2RapidityPhi(a, b)`: as `DeltaR2` with rapidities.
fn delta_r2_rapidity(a: &Momentum, b: &Momentum) -> f64 {
    let dphi = delta_phi(a, b);
    let drap = b.rapidity() - a.rapidity();
    dphi * dphi + drap * drap
}

/// `InvariantMass(a, b)`: from the sums of the Cartesian components, negative for a
/// negative square.
fn invariant_mass(a: &Momentum, b: &Momentum) -> f64 {
    let ([ax, ay, az, ae], [bx, by, bz, be]) = (a.components(), b.components());
    let ee = ae + be;
    let xx = ax + bx;
    let yy = ay + by;
    let zz = az + bz;
    let mm2 = ee * ee - xx * xx - yy * yy - zz * zz;
    if mm2 < 0.0 {
        -(-mm2).sqrt()
    } else {
        mm2.sqrt()
    }
}
