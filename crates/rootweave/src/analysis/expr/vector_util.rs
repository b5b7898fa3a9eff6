//! `ROOT::Math::VectorUtil`'s functions of two four-vectors (`DeltaR(a, b)`, `DeltaPhi`,
//! `DeltaR2`, `DeltaRapidityPhi`, `DeltaR2RapidityPhi`, `InvariantMass`, `InvariantMass2`),
//! of two vectors' directions (`CosTheta`, `Angle`) and `boost(v, beta)`, the namespace
//! dropped as every namespace is: called with `PtEtaPhiMVector`s instead of numbers, the
//! names mean these functions, computed as they compute them (`DeltaPhi` is `b.Phi() -
//! a.Phi()` brought into (-pi, pi] by one step), also of `PxPyPzEVector`s,
//! `PtEtaPhiEVector`s and `PxPyPzMVector`s (any kind on either side, as the templates take
//! them). ROOT's templates need the vectors' `Scalar`
//! type, which `TLorentzVector` lacks: they are refused for it, as C++ refuses them.

use std::f64::consts::PI;

use super::coordinates::{from_components, momenta, Momentum};
use super::physics_vectors::{VectorClass, Xyzt};
use super::value::{align, shaped, Lane, Ty, Val};
use crate::analysis::column::{Column, Values, P4};

/// `name(a, b)`: `None` unless it is one of these functions called with a vector first.
pub fn call(name: &str, args: &[Val], events: usize) -> Option<Result<Val, String>> {
    let [a, b] = args else {
        return None;
    };
    if matches!(name, "CosTheta" | "Angle" | "boost") {
        return Some(directions(name, a, b, events));
    }
    let f: fn(&Momentum, &Momentum) -> f64 = match name {
        "DeltaPhi" => delta_phi,
        "DeltaR" => |a, b| delta_r2(a, b).sqrt(),
        "DeltaR2" => delta_r2,
        "DeltaRapidityPhi" => |a, b| delta_r2_rapidity(a, b).sqrt(),
        "DeltaR2RapidityPhi" => delta_r2_rapidity,
        "InvariantMass" => invariant_mass,
        "InvariantMass2" => invariant_mass2,
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

/// `InvariantMass2(a, b)`: the square of the sum's mass, from the sums of the Cartesian
/// components.
fn invariant_mass2(a: &Momentum, b: &Momentum) -> f64 {
    let ([ax, ay, az, ae], [bx, by, bz, be]) = (a.components(), b.components());
    let ee = ae + be;
    let xx = ax + bx;
    let yy = ay + by;
    let zz = az + bz;
    ee * ee - xx * xx - yy * yy - zz * zz
}

/// `InvariantMass(a, b)`: from the sums of the Cartesian components, negative for a
/// negative square.
fn invariant_mass(a: &Momentum, b: &Momentum) -> f64 {
    let mm2 = invariant_mass2(a, b);
    if mm2 < 0.0 {
        -(-mm2).sqrt()
    } else {
        mm2.sqrt()
    }
}

/// `CosTheta(a, b)` and `Angle(a, b)` of any two vectors with `X() Y() Z()` (three-vectors,
/// four-vectors' momenta, ROOT's classes too), and `boost(v, beta)` of a four-vector by a
/// vector's `X() Y() Z()`, a four-vector of `v`'s class.
fn directions(name: &str, a: &Val, b: &Val, events: usize) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[a, b], events)?;
    let q = spatial(&lanes[1], n).map_err(|e| format!("{name}: {e}"))?;
    if name == "boost" {
        let class = match lanes[0].ty() {
            Ty::P4 => None,
            Ty::Vector(c) if c.held_four_vector() || c == VectorClass::Lorentz => Some(c),
            other => {
                return Err(format!(
                    "boost of a {}: it boosts four-vectors",
                    super::value::ty_name(other)
                ))
            }
        };
        // A `TLorentzVector`'s components are its own numbers, as another class's are.
        let v: Vec<Xyzt> = momenta(&lanes[0], n)?
            .iter()
            .map(Momentum::components)
            .collect();
        let boosted = v.iter().zip(&q).map(|(v, b)| boosted(v, b));
        let values = match class {
            None => Values::P4(
                boosted
                    .map(|c| c.map_or(P4::new(0.0, 0.0, 0.0, 0.0), P4::with_components))
                    .collect(),
            ),
            Some(c) => Values::Vectors(
                c,
                boosted
                    .map(|b| b.map_or([0.0; 4], |b| from_components(c, b)))
                    .collect(),
            ),
        };
        return Ok(shaped(shape, values, false));
    }
    let p = spatial(&lanes[0], n).map_err(|e| format!("{name}: {e}"))?;
    let values = p.iter().zip(&q).map(|(p, q)| {
        let c = cos_theta(p, q);
        match name {
            "Angle" => c.acos(),
            _ => c,
        }
    });
    Ok(shaped(shape, Values::F64(values.collect()), false))
}

/// The `X() Y() Z()` of `n` vectors of a lane: of any class with them (not `TVector2`).
fn spatial(lane: &Lane, n: usize) -> Result<Vec<[f64; 3]>, String> {
    let ty = lane.ty();
    let has_xyz = matches!(ty, Ty::P4) || matches!(ty, Ty::Vector(c) if c != VectorClass::Vector2);
    if !has_xyz {
        return Err(format!(
            "a {} has no X(), Y() and Z()",
            super::value::ty_name(ty)
        ));
    }
    // Every class's components begin with its `X() Y() Z()` (a four-vector's momentum).
    let xyz = |c: Xyzt| [c[0], c[1], c[2]];
    Ok(momenta(lane, n)?
        .iter()
        .map(|m| xyz(m.components()))
        .collect())
}

/// `CosTheta(a, b)`: the dot product over the product of the lengths (from their squares'
/// product), held within [-1, 1]; 0 if either length is zero.
fn cos_theta(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let a2 = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
    let b2 = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
    let both = a2 * b2;
    if both <= 0.0 {
        return 0.0;
    }
    let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    (dot / both.sqrt()).clamp(-1.0, 1.0)
}

/// `boost(v, b)` of a four-vector's components `v` by velocity `b`: the boosted components,
/// `None` (the null vector) for a speed of `c` or more.
fn boosted(v: &Xyzt, b: &[f64; 3]) -> Option<Xyzt> {
    let [bx, by, bz] = *b;
    let b2 = bx * bx + by * by + bz * bz;
    if b2 >= 1.0 {
        return None;
    }
    let gamma = 1.0 / (1.0 - b2).sqrt();
    let bp = bx * v[0] + by * v[1] + bz * v[2];
    let gamma2 = if b2 > 0.0 { (gamma - 1.0) / b2 } else { 0.0 };
    Some([
        v[0] + gamma2 * bp * bx + gamma * bx * v[3],
        v[1] + gamma2 * bp * by + gamma * by * v[3],
        v[2] + gamma2 * bp * bz + gamma * bz * v[3],
        gamma * (v[3] + bp),
    ])
}
