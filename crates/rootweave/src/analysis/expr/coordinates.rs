//! The coordinate systems of GenVector's four-vectors held as four numbers: `PxPyPzE4D`
//! (`x, y, z, t`), `PtEtaPhiE4D` (`pt, eta, phi, e`) and `PxPyPzM4D` (`x, y, z, m`), each
//! with its own formulas for what `LorentzVector` asks its coordinates (`Px()`, `E()`,
//! `M()`, `Eta()`, ...), and the vector a sum, a scaling or a conversion leaves in it
//! (GenVector adds Cartesian components and converts the result into the left vector's
//! system). The values have ROOT's bits: the same operations in the same order.

use std::f64::consts::PI;

use super::lorentz::{
    eta_from_rho_z, longitudinal, mass, momentum, restricted_phi, signed_root, signed_square,
    squared_mass, P4,
};
use super::physics_vectors::{et2, VectorClass, Xyzt};
use super::value::{map1, Lane, Ty};

/// A coordinate-level value of a four-vector of `class` (`CartesianLorentz`, `PtEtaPhiE` or
/// `PxPyPzM`) held as `v`. `name` is one of `X Y Z E M2 M P Perp2 Pt Mt2 Mt Et2 Et Phi
/// Theta Eta`; NaN for another.
pub fn coordinate(class: VectorClass, name: &str, v: &Xyzt) -> f64 {
    match class {
        VectorClass::PtEtaPhiE => polar_energy(name, v),
        VectorClass::PxPyPzM => cartesian_mass(name, v),
        _ => cartesian(name, v),
    }
}

/// `PxPyPzE4D`'s values.
fn cartesian(name: &str, v: &Xyzt) -> f64 {
    let [x, y, z, t] = *v;
    match name {
        "X" => x,
        "Y" => y,
        "Z" => z,
        "E" => t,
        "M2" => squared_mass(*v),
        "M" => mass(*v),
        "P" => (x * x + y * y + z * z).sqrt(),
        "Mt2" => t * t - z * z,
        "Mt" => signed_root(t * t - z * z),
        "Et2" => et2(v),
        "Et" => {
            let e = et2(v).sqrt();
            if t < 0.0 {
                -e
            } else {
                e
            }
        }
        _ => cartesian_angles(name, v),
    }
}

/// `PxPyPzM4D`'s values: the energy from the momentum and the mass.
fn cartesian_mass(name: &str, v: &Xyzt) -> f64 {
    let [x, y, z, m] = *v;
    let p2 = x * x + y * y + z * z;
    let e2 = || {
        let e2 = p2 + signed_square(m);
        if e2 > 0.0 {
            e2
        } else {
            0.0
        }
    };
    match name {
        "X" => x,
        "Y" => y,
        "Z" => z,
        "E" => e2().sqrt(),
        "M2" => signed_square(m),
        "M" => m,
        "P" => p2.sqrt(),
        "Mt2" => e2() - z * z,
        "Mt" => signed_root(e2() - z * z),
        "Et2" => {
            let pt2 = x * x + y * y;
            if pt2 == 0.0 {
                0.0
            } else {
                e2() * pt2 / (pt2 + z * z)
            }
        }
        "Et" => cartesian_mass("Et2", v).sqrt(),
        _ => cartesian_angles(name, v),
    }
}

/// `Perp2`, `Pt`, `Phi`, `Theta` and `Eta` of the Cartesian systems' `x, y, z`.
fn cartesian_angles(name: &str, [x, y, z, _]: &Xyzt) -> f64 {
    let pt = || (x * x + y * y).sqrt();
    match name {
        "Perp2" => x * x + y * y,
        "Pt" => pt(),
        "Phi" => {
            if *x == 0.0 && *y == 0.0 {
                0.0
            } else {
                y.atan2(*x)
            }
        }
        "Theta" => {
            if *x == 0.0 && *y == 0.0 && *z == 0.0 {
                0.0
            } else {
                pt().atan2(*z)
            }
        }
        "Eta" => eta_from_rho_z(pt(), *z),
        _ => f64::NAN,
    }
}

/// `PtEtaPhiE4D`'s values: the Cartesian components computed from the coordinates at each
/// call.
fn polar_energy(name: &str, v: &Xyzt) -> f64 {
    let [pt, eta, phi, e] = *v;
    match name {
        "X" => pt * phi.cos(),
        "Y" => pt * phi.sin(),
        "Z" => longitudinal(pt, eta),
        "E" => e,
        "M2" => {
            let p = momentum(pt, eta);
            e * e - p * p
        }
        "M" => signed_root(polar_energy("M2", v)),
        "P" => momentum(pt, eta),
        "Perp2" => pt * pt,
        "Pt" => pt,
        "Mt2" => {
            let pz = longitudinal(pt, eta);
            e * e - pz * pz
        }
        "Mt" => signed_root(polar_energy("Mt2", v)),
        "Et" => e / eta.cosh(),
        "Et2" => {
            let et = e / eta.cosh();
            et * et
        }
        "Phi" => phi,
        "Eta" => eta,
        "Theta" => polar_theta(pt, eta),
        _ => f64::NAN,
    }
}

/// `PtEtaPhiM4D`'s values of a `PtEtaPhiMVector`, as [`coordinate`] names them: `E()` from
/// the momentum and the mass (zero where their squares' sum is negative), `Et2()` as
/// `2 E2 / (cosh(2 eta) + 1)`.
fn polar_mass(name: &str, p: &P4) -> f64 {
    let [pt, eta, _, m] = p.coordinates();
    match name {
        "X" => p.px(),
        "Y" => p.py(),
        "Z" => p.pz(),
        "E" => p.e(),
        "M2" => signed_square(m),
        "M" => m,
        "P" => p.p(),
        "Perp2" => pt * pt,
        "Pt" => pt,
        "Mt2" => signed_square(m) + pt * pt,
        "Mt" => p.mt(),
        "Et2" => {
            let momentum = p.p();
            let e2 = momentum * momentum + signed_square(m);
            let e2 = if e2 > 0.0 { e2 } else { 0.0 };
            2.0 * e2 / ((2.0 * eta).cosh() + 1.0)
        }
        "Et" => p.et(),
        "Phi" => p.phi(),
        "Eta" => eta,
        "Theta" => polar_theta(pt, eta),
        _ => f64::NAN,
    }
}

/// `Theta()` of the polar systems: `2 atan(exp(-eta))`, along the beam without `pt`.
fn polar_theta(pt: f64, eta: f64) -> f64 {
    if pt > 0.0 {
        2.0 * (-eta).exp().atan()
    } else if eta >= 0.0 {
        0.0
    } else {
        PI
    }
}

/// `(Px(), Py(), Pz(), E())` of a vector of `class` held as `v`.
pub fn components(class: VectorClass, v: &Xyzt) -> Xyzt {
    match class {
        VectorClass::PtEtaPhiE | VectorClass::PxPyPzM => {
            ["X", "Y", "Z", "E"].map(|name| coordinate(class, name, v))
        }
        _ => *v,
    }
}

/// The vector of `class` that `SetPxPyPzE` makes of Cartesian components `c` (a sum's or a
/// difference's): `c` converted into the class's coordinates as a `PxPyPzE4D` gives them.
pub fn from_components(class: VectorClass, c: Xyzt) -> Xyzt {
    let of = |name| coordinate(VectorClass::CartesianLorentz, name, &c);
    match class {
        VectorClass::PtEtaPhiE => [of("Pt"), of("Eta"), of("Phi"), c[3]],
        VectorClass::PxPyPzM => [c[0], c[1], c[2], of("M")],
        _ => c,
    }
}

/// The vector `class`'s constructor makes of four numbers: a `PtEtaPhiE4D`'s azimuth
/// brought into (-pi, pi], a `PxPyPzM4D`'s negative mass larger than the momentum made
/// `-P()` (GenVector's "closest physical value").
pub fn made(class: VectorClass, v: Xyzt) -> Xyzt {
    let [a, b, c, d] = v;
    match class {
        VectorClass::PtEtaPhiE => [a, b, restricted_phi(c), d],
        VectorClass::PxPyPzM if d < 0.0 => {
            let p2 = a * a + b * b + c * c;
            if p2 - d * d < 0.0 {
                [a, b, c, -p2.sqrt()]
            } else {
                v
            }
        }
        _ => v,
    }
}

/// `v * a` (`operator*`, `/` with `1 / a`, unary `-` with `-1`): the class's `Scale`. A
/// `PtEtaPhiE4D` turns around for a negative factor (`phi` moved by pi, `eta` and `e`
/// negated) and scales `pt` and `e`; the Cartesian systems scale each number (a
/// `PxPyPzM4D`'s mass too, even by a negative factor).
pub fn scaled(class: VectorClass, v: &Xyzt, a: f64) -> Xyzt {
    match class {
        VectorClass::PtEtaPhiE => {
            let [pt, mut eta, mut phi, mut e] = *v;
            let mut a = a;
            if a < 0.0 {
                phi = if phi > 0.0 { phi - PI } else { phi + PI };
                eta = -eta;
                e = -e;
                a = -a;
            }
            [pt * a, eta, phi, e * a]
        }
        _ => v.map(|c| c * a),
    }
}

/// A four-vector of any of ROOT's `ROOT::Math` classes: a `PtEtaPhiMVector` or the
/// numbers of one of the others, each asked for its values as its class computes them.
#[derive(Clone, Copy)]
pub enum Momentum {
    /// A `PtEtaPhiMVector`.
    Polar(P4),
    /// A `PxPyPzEVector`, `PtEtaPhiEVector` or `PxPyPzMVector`.
    Held(VectorClass, Xyzt),
}

impl Momentum {
    /// A coordinate-level value, as [`coordinate`] names them.
    pub fn coordinate(&self, name: &str) -> f64 {
        match self {
            Momentum::Polar(p) => polar_mass(name, p),
            Momentum::Held(class, v) => coordinate(*class, name, v),
        }
    }

    /// `(Px(), Py(), Pz(), E())`.
    pub fn components(&self) -> Xyzt {
        match self {
            Momentum::Polar(p) => [p.px(), p.py(), p.pz(), p.e()],
            Momentum::Held(class, v) => components(*class, v),
        }
    }

    /// `Rapidity()`: `0.5 log((E + Pz) / (E - Pz))`.
    pub fn rapidity(&self) -> f64 {
        match self {
            Momentum::Polar(p) => p.rapidity(),
            _ => {
                let (e, pz) = (self.coordinate("E"), self.coordinate("Z"));
                0.5 * ((e + pz) / (e - pz)).ln()
            }
        }
    }

    /// The vector converted to `class` (GenVector's constructor from other coordinates):
    /// `PxPyPzE4D` takes `X() Y() Z() T()`, `PtEtaPhiE4D` `Pt() Eta() Phi() E()`,
    /// `PxPyPzM4D` `X() Y() Z() M()`.
    pub fn converted(&self, class: VectorClass) -> Xyzt {
        let names = match class {
            VectorClass::PtEtaPhiE => ["Pt", "Eta", "Phi", "E"],
            VectorClass::PxPyPzM => ["X", "Y", "Z", "M"],
            _ => ["X", "Y", "Z", "E"],
        };
        names.map(|name| self.coordinate(name))
    }

    /// `PtEtaPhiMVector(v)`: `Pt() Eta() Phi() M()`, the azimuth brought into (-pi, pi].
    pub fn four_vector(&self) -> P4 {
        match self {
            Momentum::Polar(p) => *p,
            _ => {
                let [pt, eta, phi, m] = ["Pt", "Eta", "Phi", "M"].map(|n| self.coordinate(n));
                P4::new(pt, eta, phi, m)
            }
        }
    }
}

/// The four-vectors of a lane of `PtEtaPhiMVector`s or of another `ROOT::Math` four-vector
/// class, `n` of them.
pub fn momenta(lane: &Lane, n: usize) -> Result<Vec<Momentum>, String> {
    Ok(match lane.ty() {
        Ty::Vector(c) => map1(&lane.vectors(c)?, n, |v| Momentum::Held(c, v)),
        _ => map1(&lane.p4s()?, n, Momentum::Polar),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_system_computes_its_values_from_its_own_numbers() {
        // (pt, eta, phi, e) and (x, y, z, m) of one vector.
        let pe: Xyzt = [30.0, 0.5, 1.0, 40.0];
        let pz = 30.0 * 0.5f64.sinh();
        assert_eq!(coordinate(VectorClass::PtEtaPhiE, "Z", &pe), pz);
        assert_eq!(
            coordinate(VectorClass::PtEtaPhiE, "Theta", &pe),
            2.0 * (-0.5f64).exp().atan()
        );
        let p = 30.0 * 0.5f64.cosh();
        assert_eq!(
            coordinate(VectorClass::PtEtaPhiE, "M", &pe),
            (1600.0 - p * p).sqrt()
        );
        let xm: Xyzt = [3.0, 4.0, 12.0, 5.0];
        assert_eq!(coordinate(VectorClass::PxPyPzM, "E", &xm), 194f64.sqrt());
        assert_eq!(coordinate(VectorClass::PxPyPzM, "M", &xm), 5.0);
        // A negative mass's square is negative, and an energy squared below zero is zero.
        let tachyon: Xyzt = [3.0, 4.0, 0.0, -6.0];
        assert_eq!(coordinate(VectorClass::PxPyPzM, "M2", &tachyon), -36.0);
        assert_eq!(coordinate(VectorClass::PxPyPzM, "E", &tachyon), 0.0);
        // Its constructor makes such a mass -P().
        assert_eq!(made(VectorClass::PxPyPzM, tachyon), [3.0, 4.0, 0.0, -5.0]);
        assert_eq!(made(VectorClass::PxPyPzM, [3.0, 4.0, 0.0, -4.0])[3], -4.0);
    }

    #[test]
    fn sums_scalings_and_conversions_follow_the_left_vector_s_system() {
        let c: Xyzt = [3.0, 4.0, 0.0, 13.0];
        assert_eq!(
            from_components(VectorClass::PtEtaPhiE, c),
            [5.0, 0.0, 4f64.atan2(3.0), 13.0]
        );
        assert_eq!(
            from_components(VectorClass::PxPyPzM, c),
            [3.0, 4.0, 0.0, 12.0]
        );
        let v: Xyzt = [5.0, 0.7, 1.0, 13.0];
        assert_eq!(
            scaled(VectorClass::PtEtaPhiE, &v, -2.0),
            [10.0, -0.7, 1.0 - PI, -26.0]
        );
        assert_eq!(
            scaled(VectorClass::PxPyPzM, &[1.0, 2.0, 3.0, 4.0], -1.0),
            [-1.0, -2.0, -3.0, -4.0]
        );
        assert_eq!(
            made(VectorClass::PtEtaPhiE, [1.0, 0.0, 4.0, 2.0])[2],
            4.0 - 2.0 * PI
        );
        let m = Momentum::Held(VectorClass::PxPyPzM, [3.0, 4.0, 0.0, 12.0]);
        assert_eq!(
            m.converted(VectorClass::CartesianLorentz),
            [3.0, 4.0, 0.0, 13.0]
        );
        assert_eq!(m.converted(VectorClass::PtEtaPhiE)[0], 5.0);
    }
}
