//! Expressions over ROOT's physics vectors (`TLorentzVector`, `TVector3`, `TVector2`):
//! columns of them, lists of them, their methods, operators and constructors.

use std::collections::HashMap;
use std::sync::Arc;

use super::physics_vectors::{self as pv, VectorClass};
use super::tests::{evaluated, Batch};
use crate::analysis::column::{Column, Values};

/// Two events: muons as `TLorentzVector`s (two, then one), a `TVector3` and a `TVector2`
/// per event.
fn batch() -> Batch {
    let muons = vec![
        [-52.9, -11.7, -8.2, 54.8],
        [37.7, 0.7, -11.3, 39.4],
        [-0.8, -24.4, 20.2, 31.7],
    ];
    let mut m = HashMap::new();
    m.insert(
        "muonp4",
        Column::Jagged(
            Arc::new(vec![0, 2, 3]),
            Values::Vectors(VectorClass::Lorentz, muons).into(),
        ),
    );
    m.insert(
        "vertex",
        Column::Flat(
            Values::Vectors(
                VectorClass::Vector3,
                vec![[0.1, 0.2, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
            )
            .into(),
        ),
    );
    m.insert(
        "MET",
        Column::Flat(
            Values::Vectors(
                VectorClass::Vector2,
                vec![[3.0, -4.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]],
            )
            .into(),
        ),
    );
    m.insert("w", Column::Flat(Values::F32(vec![2.0, 0.5]).into()));
    Batch(m, 2)
}

fn eval(text: &str) -> Result<Column, String> {
    evaluated(text, &mut batch())
}

fn f64s(c: Column) -> Vec<f64> {
    match c.flat() {
        Some(Values::F64(v)) => v.clone(),
        _ => panic!("{c:?}"),
    }
}

const A: [f64; 4] = [-52.9, -11.7, -8.2, 54.8];
const B: [f64; 4] = [37.7, 0.7, -11.3, 39.4];
const C: [f64; 4] = [-0.8, -24.4, 20.2, 31.7];

#[test]
fn methods_of_items_and_sums_of_lorentz_vectors() {
    let lorentz = VectorClass::Lorentz;
    let pt = f64s(eval("muonp4[0].Pt()").unwrap());
    assert_eq!(
        pt,
        [pv::number(lorentz, "Pt", &A), pv::number(lorentz, "Pt", &C)]
    );
    // The pair's mass: components added, then TLorentzVector's M().
    let m = f64s(eval("muonp4.size() >= 2 ? (muonp4[0] + muonp4[1]).M() : -1.0").unwrap());
    assert_eq!(
        m,
        [pv::number(lorentz, "M", &pv::add(lorentz, &A, &B)), -1.0]
    );
    // A method over a list gives a list (Map's lambda over all items at once).
    let etas = eval("Map(muonp4, [](const TLorentzVector &p) { return p.Eta(); })").unwrap();
    let Column::Jagged(offsets, etas) = etas else {
        panic!("a list per event")
    };
    assert_eq!(*offsets, vec![0, 2, 3]);
    let want: Vec<f64> = [A, B, C]
        .iter()
        .map(|v| pv::number(lorentz, "Eta", v))
        .collect();
    assert_eq!(*etas, Values::F64(want));
    let dr = f64s(eval("muonp4[0].DeltaR(muonp4[muonp4.size() - 1])").unwrap());
    assert_eq!(dr, [pv::pair_number(lorentz, "DeltaR", &A, &B), 0.0]);
    // The Minkowski product, scaling by a weight, the spatial part.
    let dot = f64s(eval("muonp4[0] * muonp4[0]").unwrap());
    assert_eq!(dot, [pv::dot(lorentz, &A, &A), pv::dot(lorentz, &C, &C)]);
    let scaled = f64s(eval("(w * muonp4[0]).E() + (muonp4[0] * 2).Pz()").unwrap());
    assert_eq!(scaled, [2.0 * A[3] + 2.0 * A[2], 0.5 * C[3] + 2.0 * C[2]]);
    let p = f64s(eval("muonp4[0].Vect().Mag()").unwrap());
    assert_eq!(
        p,
        [pv::number(lorentz, "P", &A), pv::number(lorentz, "P", &C)]
    );
    let size = eval("Concatenate(muonp4, Reverse(muonp4)).size()").unwrap();
    assert_eq!(size.flat().map(Values::len), Some(2));
}

#[test]
fn vectors_made_from_components_and_other_classes() {
    // Constants make the same vector for every event; no component is the null vector.
    assert_eq!(
        f64s(eval("TVector3(3, 4, 12).Mag()").unwrap()),
        [13.0, 13.0]
    );
    assert_eq!(f64s(eval("TLorentzVector().M()").unwrap()), [0.0, 0.0]);
    let made = f64s(eval("TLorentzVector(1.0, w, 3, 10).M2()").unwrap());
    assert_eq!(
        made,
        [100.0 - (1.0 + 4.0 + 9.0), 100.0 - (1.0 + 0.25 + 9.0)]
    );
    let theta = f64s(eval("vertex.Theta()").unwrap());
    assert_eq!(theta[1], 0.0, "the null vector's theta");
    assert_eq!(theta[0], (0.1f64 * 0.1 + 0.2 * 0.2).sqrt().atan2(3.0));
    // TVector2's Phi is in [0, 2 pi); Mod is its length.
    let phi = f64s(eval("MET.Phi()").unwrap());
    assert!((phi[0] - (2.0 * std::f64::consts::PI - (4.0f64).atan2(3.0))).abs() < 1e-15);
    assert_eq!(f64s(eval("(MET + MET).Mod()").unwrap()), [10.0, 2.0]);
    assert_eq!(
        f64s(eval("(MET / 2).X() + MET * MET").unwrap()),
        [26.5, 1.0]
    );
    let same = eval("vertex == vertex && !(vertex != vertex)").unwrap();
    assert_eq!(same.flat(), Some(&Values::Bool(vec![true, true])));
}

#[test]
fn what_the_classes_lack_is_an_error() {
    for (text, says) in [
        ("vertex.M()", "TVector3 has no method M()"),
        ("MET.Eta()", "TVector2 has no method Eta()"),
        (
            "muonp4[0] + vertex",
            "no operator '+' of TLorentzVector and TVector3",
        ),
        (
            "muonp4[0] + 1.0",
            "no operator '+' of TLorentzVector and double",
        ),
        ("vertex / 2", "no operator '/' of TVector3 and int"),
        (
            "muonp4[0].DeltaR(vertex)",
            "a TVector3 where a TLorentzVector is needed",
        ),
        ("Sum(muonp4) ", "TLorentzVector is not a number"),
        (
            "muonp4[0] > muonp4[0]",
            "no operator '>' of TLorentzVector and TLorentzVector",
        ),
        (
            "muonp4.size() ? muonp4[0] : 1.0",
            "on the two sides of '?:'",
        ),
    ] {
        let e = eval(text).unwrap_err();
        assert!(e.contains(says), "{text}: {e}");
    }
}

#[test]
fn vector_util_of_two_four_vectors_as_root_math_computes_it() {
    use super::lorentz::P4;
    let mut b = batch();
    let p4 = |k: usize| {
        format!(
            "ROOT::Math::PtEtaPhiMVector(muonp4[{k}].Pt(), muonp4[{k}].Eta(), muonp4[{k}].Phi(), 0.105)"
        )
    };
    let text = |f: &str| format!("ROOT::Math::VectorUtil::{f}({}, {})", p4(0), p4(0));
    // One event of two muons: the first with itself, then the pair.
    let (x, y) = (
        P4::new(
            pv::number(VectorClass::Lorentz, "Pt", &A),
            pv::number(VectorClass::Lorentz, "Eta", &A),
            pv::number(VectorClass::Lorentz, "Phi", &A),
            0.105,
        ),
        P4::new(
            pv::number(VectorClass::Lorentz, "Pt", &B),
            pv::number(VectorClass::Lorentz, "Eta", &B),
            pv::number(VectorClass::Lorentz, "Phi", &B),
            0.105,
        ),
    );
    assert_eq!(f64s(evaluated(&text("DeltaR"), &mut b).unwrap())[0], 0.0);
    let pair = |f: &str| {
        let t = format!(
            "muonp4.size() > 1 ? ROOT::Math::VectorUtil::{f}({}, {}) : -1.0",
            p4(0),
            p4(1)
        );
        f64s(evaluated(&t, &mut batch()).unwrap())
    };
    let mut dphi = y.phi() - x.phi();
    if dphi > std::f64::consts::PI {
        dphi -= 2.0 * std::f64::consts::PI;
    } else if dphi <= -std::f64::consts::PI {
        dphi += 2.0 * std::f64::consts::PI;
    }
    assert_eq!(pair("DeltaPhi"), [dphi, -1.0]);
    let deta = y.eta() - x.eta();
    assert_eq!(pair("DeltaR"), [(dphi * dphi + deta * deta).sqrt(), -1.0]);
    let (e, px, py, pz) = (
        x.e() + y.e(),
        x.px() + y.px(),
        x.py() + y.py(),
        x.pz() + y.pz(),
    );
    assert_eq!(
        pair("InvariantMass"),
        [(e * e - px * px - py * py - pz * pz).sqrt(), -1.0]
    );
}

#[test]
fn cartesian_root_math_vectors_compute_as_genvector() {
    let four = VectorClass::CartesianLorentz;
    let made =
        "ROOT::Math::PxPyPzEVector(muonp4[0].Px(), muonp4[0].Py(), muonp4[0].Pz(), muonp4[0].E())";
    // GenVector's M2 subtracts the components one by one; its division multiplies by the
    // reciprocal.
    let m2 = f64s(eval(&format!("{made}.M2()")).unwrap());
    assert_eq!(m2[0], A[3] * A[3] - A[0] * A[0] - A[1] * A[1] - A[2] * A[2]);
    let third = f64s(eval(&format!("({made} / 3.0).Px()")).unwrap());
    assert_eq!(third[0], A[0] * (1.0 / 3.0));
    // The spatial part is an XYZVector; BoostToCM is -Vect() / E().
    let r = f64s(eval(&format!("{made}.Vect().R() + {made}.BoostToCM().X()")).unwrap());
    assert_eq!(r[0], pv::number(four, "P", &A) + (-A[0]) * (1.0 / A[3]));
    // Made of a PtEtaPhiMVector, added to one (the left side's class decides the result's).
    let polar = "ROOT::Math::PtEtaPhiMVector(muonp4[0].Pt(), muonp4[0].Eta(), muonp4[0].Phi(), muonp4[0].M())";
    let xs = f64s(
        eval(&format!(
            "ROOT::Math::XYZTVector({polar}).X() + ({made} + {polar}).T()"
        ))
        .unwrap(),
    );
    let p = super::lorentz::P4::new(
        pv::number(VectorClass::Lorentz, "Pt", &A),
        pv::number(VectorClass::Lorentz, "Eta", &A),
        pv::number(VectorClass::Lorentz, "Phi", &A),
        pv::number(VectorClass::Lorentz, "M", &A),
    );
    assert_eq!(xs[0], p.px() + (A[3] + p.e()));
    let typed = eval(&format!("{polar} + {made}")).unwrap();
    assert!(matches!(typed.flat(), Some(Values::P4(_))), "{typed:?}");
    // Lists of them, made by Construct, taken item by item.
    let list = eval("Construct<ROOT::Math::XYZTVector>(Map(muonp4, [](const TLorentzVector &p) { return p.X(); }), Map(muonp4, [](const TLorentzVector &p) { return p.Y(); }), Map(muonp4, [](const TLorentzVector &p) { return p.Z(); }), Map(muonp4, [](const TLorentzVector &p) { return p.T(); }))").unwrap();
    let Column::Jagged(offsets, items) = list else {
        panic!("a list per event")
    };
    assert_eq!((*offsets).clone(), vec![0, 2, 3]);
    assert_eq!(*items, Values::Vectors(four, vec![A, B, C]));
    // Summed from a zero vector, item by item.
    let sum = "Sum(Construct<ROOT::Math::XYZTVector>(Map(muonp4, [](const TLorentzVector &p) { return p.X(); }), Map(muonp4, [](const TLorentzVector &p) { return p.Y(); }), Map(muonp4, [](const TLorentzVector &p) { return p.Z(); }), Map(muonp4, [](const TLorentzVector &p) { return p.T(); })), ROOT::Math::PxPyPzEVector()).E()";
    assert_eq!(f64s(eval(sum).unwrap()), [0.0 + A[3] + B[3], 0.0 + C[3]]);
    for (text, says) in [
        (
            format!("{made} * {made}"),
            "no operator '*' of PxPyPzEVector",
        ),
        (format!("{made}.Vect().M()"), "XYZVector has no method M()"),
        (
            "ROOT::Math::XYZVector(1.0, 2.0)".to_string(),
            "XYZVector takes 3 components, not 2",
        ),
        (
            format!("{made} + muonp4[0]"),
            "no operator '+' of PxPyPzEVector and TLorentzVector",
        ),
    ] {
        let e = eval(&text).unwrap_err();
        assert!(e.contains(says), "{text}: {e}");
    }
}

#[test]
fn a_pt_eta_phi_m_vector_scales_as_genvector_s_scale() {
    use super::lorentz::P4;
    let polar = "ROOT::Math::PtEtaPhiMVector(muonp4[0].Pt(), muonp4[0].Eta(), muonp4[0].Phi(), muonp4[0].M())";
    let l = VectorClass::Lorentz;
    let [pt, eta, phi, m] = ["Pt", "Eta", "Phi", "M"].map(|k| pv::number(l, k, &A));
    let p = P4::new(pt, eta, phi, m);
    // A negative factor: eta negated, phi moved by pi, pt and m times its magnitude.
    let turned = f64s(eval(&format!("({polar} * -2.0).Phi() + (-{polar}).Eta()")).unwrap());
    let moved = if p.phi() > 0.0 {
        p.phi() - std::f64::consts::PI
    } else {
        p.phi() + std::f64::consts::PI
    };
    assert_eq!(turned[0], moved + -p.eta());
    let scaled = f64s(eval(&format!("(3.0 * {polar}).M() + ({polar} / 4.0).Pt()")).unwrap());
    assert_eq!(scaled[0], p.m() * 3.0 + p.pt() * (1.0 / 4.0));
    let same = eval(&format!(
        "{polar} == {polar} && !({polar} != {polar}) && +{polar} == {polar}"
    ))
    .unwrap();
    assert_eq!(same.flat(), Some(&Values::Bool(vec![true, true])));
    for (text, says) in [
        (format!("{polar} * {polar}"), "four-vectors have no '*'"),
        (
            format!("2.0 / {polar}"),
            "no operator '/' of a number and a four-vector",
        ),
    ] {
        let e = eval(&text).unwrap_err();
        assert!(e.contains(says), "{text}: {e}");
    }
}

#[test]
fn polar_energy_and_mass_four_vectors_convert_sums_into_their_own_coordinates() {
    use super::coordinates::{coordinate, from_components};
    let l = VectorClass::Lorentz;
    let [pt, eta, phi, e] = ["Pt", "Eta", "Phi", "E"].map(|k| pv::number(l, k, &A));
    let polar = "ROOT::Math::PtEtaPhiEVector(muonp4[0].Pt(), muonp4[0].Eta(), muonp4[0].Phi(), muonp4[0].E())";
    let massive =
        "ROOT::Math::PxPyPzMVector(muonp4[0].Px(), muonp4[0].Py(), muonp4[0].Pz(), muonp4[0].M())";
    // A PtEtaPhiEVector's Pz() is pt sinh(eta), its M() from pt cosh(eta) and E.
    let pe = VectorClass::PtEtaPhiE;
    let held = [pt, eta, phi, e];
    let z = f64s(eval(&format!("{polar}.Pz() + {polar}.M()")).unwrap());
    assert_eq!(
        z[0],
        pt * eta.sinh() + coordinate(pe, "M", &held),
        "{held:?}"
    );
    // The sum of two is converted back into pt, eta, phi, E: its Eta() is the converted
    // one's, not one of the Cartesian sum's other formulas.
    let sum = f64s(eval(&format!("({polar} + {polar}).Eta()")).unwrap());
    let c = super::coordinates::components(pe, &held);
    let doubled = from_components(pe, std::array::from_fn(|k| c[k] + c[k]));
    assert_eq!(sum[0], doubled[1]);
    // A PxPyPzMVector's E() comes from its mass; its sum keeps the sum's mass.
    let xm = VectorClass::PxPyPzM;
    let m = pv::number(l, "M", &A);
    let e_of_m = f64s(eval(&format!("{massive}.E()")).unwrap());
    assert_eq!(e_of_m[0], coordinate(xm, "E", &[A[0], A[1], A[2], m]));
    let typed = eval(&format!("{massive} + {polar}")).unwrap();
    assert!(
        matches!(typed.flat(), Some(Values::Vectors(VectorClass::PxPyPzM, _))),
        "{typed:?}"
    );
    // Lists made by Construct, summed from a zero of their class.
    let sum = "Sum(Construct<ROOT::Math::PtEtaPhiEVector>(ROOT::RVecD{10.0, 20.0}, ROOT::RVecD{0.5, -0.5}, ROOT::RVecD{7.0, 0.0}, ROOT::RVecD{30.0, 40.0}), ROOT::Math::PtEtaPhiEVector()).E()";
    assert_eq!(f64s(eval(sum).unwrap()), [70.0, 70.0]);
    let turned = "Construct<ROOT::Math::PtEtaPhiEVector>(ROOT::RVecD{10.0}, ROOT::RVecD{0.5}, ROOT::RVecD{7.0}, ROOT::RVecD{30.0})[0].Phi()";
    assert_eq!(
        f64s(eval(turned).unwrap())[0],
        7.0 - 2.0 * std::f64::consts::PI
    );
    for (text, says) in [
        (
            format!("{polar} * {massive}"),
            "no operator '*' of PtEtaPhiEVector and PxPyPzMVector",
        ),
        (
            format!("{massive}.Dot(muonp4[0])"),
            "Dot() of a PxPyPzMVector takes a ROOT::Math four-vector",
        ),
        (
            "ROOT::Math::PxPyPzMVector(1.0, 2.0)".to_string(),
            "PxPyPzMVector takes 4 components, not 2",
        ),
    ] {
        let e = eval(&text).unwrap_err();
        assert!(e.contains(says), "{text}: {e}");
    }
}

#[test]
fn points_and_vectors_add_and_subtract_as_position_vector_3d() {
    let point = "ROOT::Math::XYZPoint(muonp4[0].X(), muonp4[0].Y(), muonp4[0].Z())";
    let shift = "ROOT::Math::XYZVector(1.0, 2.0, 4.0)";
    // A point moved by a vector is a point; two points' difference is a vector.
    let moved = eval(&format!("{point} + {shift}")).unwrap();
    let Some(Values::Vectors(VectorClass::CartesianPoint, p)) = moved.flat() else {
        panic!("{moved:?}")
    };
    assert_eq!(p[0], [A[0] + 1.0, A[1] + 2.0, A[2] + 4.0, 0.0]);
    let apart = eval(&format!("({point} + {shift}) - {point}")).unwrap();
    assert!(
        matches!(
            apart.flat(),
            Some(Values::Vectors(VectorClass::Cartesian3, _))
        ),
        "{apart:?}"
    );
    let r = f64s(eval(&format!("({shift} + {point}).Rho() + {point}.Dot({shift})")).unwrap());
    let (x, y) = (A[0] + 1.0, A[1] + 2.0);
    assert_eq!(
        r[0],
        (x * x + y * y).sqrt() + (A[0] * 1.0 + A[1] * 2.0 + A[2] * 4.0)
    );
    for (text, says) in [
        (
            format!("{point} + {point}"),
            "no operator '+' of XYZPoint and XYZPoint",
        ),
        (
            format!("{shift} - {point}"),
            "no operator '-' of XYZVector and XYZPoint",
        ),
        (format!("+{point}"), "an XYZPoint has no unary '+'"),
        (format!("{point}.Unit()"), "XYZPoint has no method Unit()"),
    ] {
        let e = eval(&text).unwrap_err();
        assert!(e.contains(says), "{text}: {e}");
    }
}
