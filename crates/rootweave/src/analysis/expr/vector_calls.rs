//! Calls on ROOT's physics vectors in expressions: the methods of `TVector2`, `TVector3`,
//! `TLorentzVector`, `XYZVector`, `XYZPoint`, `PxPyPzEVector`, `PtEtaPhiEVector` and
//! `PxPyPzMVector` (`p4.Pt()`, `a.DeltaR(b)`, `p4.Vect()`) and their constructors from numbers
//! (`TLorentzVector(px, py, pz, e)`, `Construct<XYZTVector>(...)`) or, for the
//! `ROOT::Math` four-vectors, from another four-vector, item by item over lists as every
//! method is (a `Map` lambda's parameter is all the items at once). The values are
//! [`physics_vectors`](super::physics_vectors)'.

use super::coordinates::{made, momenta, Momentum};
use super::genvectors as gv;
use super::physics_vectors::{self as pv, MethodResult, VectorClass, Xyzt};
use super::value::{align, map1, map2, shaped, Lane, Scalar, Shape, Ty, Val};
use crate::analysis::column::{Column, Values};

/// Whether `name` (a `.method` or a function) with `args` arguments (a method's object
/// counted) is a method of some physics vector or one of their constructors: `None` if the
/// name is neither, an error if a constructor is given the wrong number of components.
pub fn check(name: &str, args: usize) -> Option<Result<(), String>> {
    if let Some(class) = VectorClass::of_name(name) {
        let converted = args == 1 && class.held_four_vector();
        return Some(match args == class.components() || args == 0 || converted {
            true => Ok(()),
            false => Err(format!(
                "{} takes {} components, not {args}",
                class.name(),
                class.components()
            )),
        });
    }
    let method = name.starts_with('.') && pv::signatures().any(|(n, a)| n == name && a == args);
    method.then_some(Ok(()))
}

/// `name(args)`: `None` unless it is a constructor of a physics vector, or a method called
/// on one.
pub fn call(name: &str, args: &[Val], events: usize) -> Option<Result<Val, String>> {
    if let Some(class) = VectorClass::of_name(name) {
        return Some(construct(class, args, events));
    }
    let method = name.strip_prefix('.')?;
    let class = class_of(args.first()?)?;
    Some(call_method(class, method, args, events))
}

/// The class of a value of physics vectors (or of lists of them).
fn class_of(v: &Val) -> Option<VectorClass> {
    match v {
        Val::Col(Column::Flat(v) | Column::Jagged(_, v)) => match Ty::of(v) {
            Ty::Vector(c) => Some(c),
            _ => None,
        },
        _ => None,
    }
}

/// `TVector2(x, y)`, `TVector3(x, y, z)`, `TLorentzVector(x, y, z, t)`: the components
/// converted to `double`; the null vector without them. A vector of constants is the same
/// vector for every event.
fn construct(class: VectorClass, args: &[Val], events: usize) -> Result<Val, String> {
    if let [from] = args {
        return convert(class, from, events);
    }
    let zeros;
    let args = match args {
        [] => {
            zeros = vec![Val::Const(Scalar::F64(0.0)); class.components()];
            &zeros[..]
        }
        _ => args,
    };
    let parts: Vec<&Val> = args.iter().collect();
    if parts.len() != class.components() {
        return Err(format!(
            "{} takes {} components, not {}",
            class.name(),
            class.components(),
            parts.len()
        ));
    }
    let (shape, n, lanes) = align(&parts, events)?;
    let numbers = lanes
        .iter()
        .map(Lane::f64s)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {e}", class.name()))?;
    let constant = args.iter().all(Val::is_const);
    let n = if constant { events } else { n };
    let values = (0..n)
        .map(|i| {
            let mut v: Xyzt = [0.0; 4];
            for (c, x) in v.iter_mut().zip(&numbers) {
                *c = x.at(if constant { 0 } else { i });
            }
            made(class, v)
        })
        .collect();
    let shape = if constant { Shape::Flat } else { shape };
    Ok(shaped(shape, Values::Vectors(class, values), false))
}

/// `PxPyPzEVector(v)`, `PtEtaPhiEVector(v)` or `PxPyPzMVector(v)` of another `ROOT::Math`
/// four-vector: the values GenVector's constructor from other coordinates takes of it
/// (`Px() Py() Pz() E()`, `Pt() Eta() Phi() E()`, `Px() Py() Pz() M()`).
fn convert(class: VectorClass, from: &Val, events: usize) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[from], events)?;
    let values = match lanes[0].ty() {
        Ty::P4 => {
            let p = lanes[0].p4s()?;
            map1(&p, n, |p| Momentum::Polar(p).converted(class))
        }
        Ty::Vector(c) if c == class => map1(&lanes[0].vectors(c)?, n, |v| v),
        Ty::Vector(c) if c.held_four_vector() => map1(&lanes[0].vectors(c)?, n, |v| {
            Momentum::Held(c, v).converted(class)
        }),
        other => {
            return Err(format!(
                "a {} made of a {}",
                class.name(),
                super::value::ty_name(other)
            ))
        }
    };
    Ok(shaped(shape, Values::Vectors(class, values), false))
}

/// `PtEtaPhiMVector(v)` of another `ROOT::Math` four-vector: its `Pt()`, `Eta()`, `Phi()`
/// and `M()`, as GenVector's constructor from other coordinates takes them (the azimuth
/// brought into (-pi, pi]); `None` for other arguments.
pub fn four_vector_of(from: &Val, events: usize) -> Option<Result<Val, String>> {
    let class = class_of(from).filter(|c| c.held_four_vector())?;
    let made = align(&[from], events).and_then(|(shape, n, lanes)| {
        let v = lanes[0].vectors(class)?;
        let values = map1(&v, n, |v| Momentum::Held(class, v).four_vector());
        Ok(shaped(shape, Values::P4(values), false))
    });
    Some(made)
}

/// `a.Dot(b)` or `a.DeltaR(b)` (`a.DeltaR(b, useRapidity)`) of the four-vectors of lanes
/// `[a, b, (flag)]`, `n` of each, of any `ROOT::Math` classes (`a`'s named `receiver`);
/// `DeltaR` also of a `TLorentzVector` `b` (its `Eta()`, `Phi()`, `Rapidity()`, all
/// `LorentzVector::DeltaR` asks of it).
fn momentum_pair(receiver: &str, method: &str, lanes: &[Lane], n: usize) -> Result<Values, String> {
    let rapidity = match lanes.get(2) {
        Some(flag) => Some(
            flag.bools()
                .map_err(|e| format!("{method}()'s useRapidity: {e}"))?,
        ),
        None => None,
    };
    let flag = |i: usize| rapidity.as_ref().is_some_and(|r| r.at(i));
    if let (Ty::Vector(VectorClass::Lorentz), "DeltaR") = (lanes[1].ty(), method) {
        let (a, b) = (
            momenta(&lanes[0], n)?,
            lanes[1].vectors(VectorClass::Lorentz)?,
        );
        let values = (0..n).map(|i| {
            let (a, b) = (&a[i], b.at(i));
            let of = |name| pv::number(VectorClass::Lorentz, name, &b);
            let delta = match flag(i) {
                true => a.rapidity() - of("Rapidity"),
                false => a.coordinate("Eta") - of("Eta"),
            };
            gv::delta_r_of(delta, a.coordinate("Phi") - of("Phi"))
        });
        return Ok(Values::F64(values.collect()));
    }
    let b = match lanes[1].ty() {
        Ty::P4 => momenta(&lanes[1], n)?,
        Ty::Vector(c) if c.held_four_vector() => momenta(&lanes[1], n)?,
        other => {
            return Err(format!(
                "{method}() of a {receiver} takes a ROOT::Math four-vector, not a {}",
                super::value::ty_name(other)
            ))
        }
    };
    let a = momenta(&lanes[0], n)?;
    Ok(Values::F64(
        (0..n)
            .map(|i| match method {
                "DeltaR" => gv::delta_r(&a[i], &b[i], flag(i)),
                _ => gv::lorentz_dot(&a[i].components(), &b[i].components()),
            })
            .collect(),
    ))
}

/// `p.method(args[1..])` of `PtEtaPhiMVector`s `args[0]` that `LorentzVector` has beyond the
/// coordinates' own: `Vect()`, `BoostToCM()` (`XYZVector`s), `Dot(b)`, `DeltaR(b)` and
/// `DeltaR(b, useRapidity)` with a four-vector of any `ROOT::Math` class; `None` for other
/// methods.
pub fn p4_call(method: &str, args: &[Val], events: usize) -> Option<Result<Val, String>> {
    let takes = match method {
        ".Vect" | ".BoostToCM" => 1,
        ".Dot" | ".DeltaR" => 2,
        _ => 0,
    };
    if args.len() != takes && !(method == ".DeltaR" && args.len() == 3) {
        return None;
    }
    let method = &method[1..];
    let lanes: Vec<&Val> = args.iter().collect();
    Some(align(&lanes, events).and_then(|(shape, n, lanes)| {
        let values = match method {
            "Dot" | "DeltaR" => momentum_pair("PtEtaPhiMVector", method, &lanes, n)?,
            _ => {
                let a = momenta(&lanes[0], n)?;
                let vectors = a.iter().map(|p| match method {
                    "Vect" => {
                        let [x, y, z, _] = p.components();
                        [x, y, z, 0.0]
                    }
                    _ => gv::boost_to_cm(p),
                });
                Values::Vectors(VectorClass::Cartesian3, vectors.collect())
            }
        };
        Ok(shaped(shape, values, false))
    }))
}

/// `v.method(args[1..])` for a vector (or vectors) `args[0]` of `class`.
fn call_method(
    class: VectorClass,
    method: &str,
    args: &[Val],
    events: usize,
) -> Result<Val, String> {
    let others = args.len() - 1;
    let Some(result) = pv::method_result(class, method, others) else {
        return Err(format!(
            "{} has no method {method}() of {others} arguments",
            class.name()
        ));
    };
    let lanes: Vec<&Val> = args.iter().collect();
    let (shape, n, lanes) = align(&lanes, events)?;
    let a = lanes[0].vectors(class)?;
    let values = match (result, others) {
        (MethodResult::Number, 0) => Values::F64(map1(&a, n, |v| pv::number(class, method, &v))),
        (MethodResult::Number, _) if class.held_four_vector() => {
            momentum_pair(class.name(), method, &lanes, n)?
        }
        (MethodResult::Number, _) => {
            let b = lanes[1]
                .vectors(class.argument_class())
                .map_err(|e| format!("{method}(): {e}"))?;
            Values::F64(map2(&a, &b, n, |a, b| {
                pv::pair_number(class, method, &a, &b)
            }))
        }
        (MethodResult::Vector(to), 0) => {
            Values::Vectors(to, map1(&a, n, |v| pv::vector(class, method, &v, &v)))
        }
        (MethodResult::Vector(to), _) => {
            let b = lanes[1]
                .vectors(class.argument_class())
                .map_err(|e| format!("{method}(): {e}"))?;
            Values::Vectors(
                to,
                map2(&a, &b, n, |a, b| pv::vector(class, method, &a, &b)),
            )
        }
    };
    Ok(shaped(shape, values, false))
}
