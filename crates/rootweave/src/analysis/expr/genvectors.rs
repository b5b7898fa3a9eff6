//! `ROOT::Math`'s four-vectors held as numbers, `PxPyPzEVector` (also named `XYZTVector`:
//! `LorentzVector<PxPyPzE4D<double>>`), `PtEtaPhiEVector` and `PxPyPzMVector`, and the
//! spatial `XYZVector` (`DisplacementVector3D<Cartesian3D<double>>`), as GenVector computes
//! them: their methods, scalings and products operation for operation, so that values have
//! ROOT's bits (each four-vector system's own values are [`coordinates`](super::coordinates)').
//! They differ from `TLorentzVector` and `TVector3` in the details: `M2()` subtracts the
//! components one by one, `Eta()` is `Impl::Eta_FromRhoZ`, a division multiplies by the
//! reciprocal, a `DisplacementVector3D`'s `Phi()` and `Theta()` are `atan2` without a check
//! for the axis.
//!
//! A vector is held as its class's four numbers (`t` zero for `XYZVector`).

use std::f64::consts::PI;

use super::coordinates::Momentum;
use super::lorentz::eta_from_rho_z;
use super::physics_vectors::{scale, VectorClass, Xyzt};

/// `PxPyPzEVector`'s methods of no argument giving a number (upper-case and CLHEP's
/// lower-case names).
pub const LORENTZ_NUMBERS: &[&str] = &[
    "X",
    "Y",
    "Z",
    "T",
    "Px",
    "Py",
    "Pz",
    "E",
    "M2",
    "M",
    "R",
    "P",
    "P2",
    "Perp2",
    "Pt",
    "Rho",
    "Mt2",
    "Mt",
    "Et2",
    "Et",
    "Phi",
    "Theta",
    "Eta",
    "Rapidity",
    "ColinearRapidity",
    "Beta",
    "Gamma",
    "x",
    "y",
    "z",
    "t",
    "px",
    "py",
    "pz",
    "e",
    "r",
    "theta",
    "phi",
    "rho",
    "eta",
    "pt",
    "perp2",
    "mag2",
    "mag",
    "mt",
    "mt2",
    "energy",
    "mass",
    "mass2",
];

/// `XYZVector`'s methods of no argument giving a number.
pub const SPATIAL_NUMBERS: &[&str] = &[
    "X", "Y", "Z", "R", "Theta", "Phi", "Eta", "Rho", "Mag2", "Perp2", "x", "y", "z", "r", "theta",
    "phi", "eta", "rho", "mag2", "perp2",
];

/// `v.name()` of a four-vector of `class` (`PxPyPzEVector`, `PtEtaPhiEVector` or
/// `PxPyPzMVector`) held as `v`, for a name of [`LORENTZ_NUMBERS`]: `LorentzVector`'s own
/// formulas over the values its coordinate system gives.
pub fn lorentz_number(class: VectorClass, name: &str, v: &Xyzt) -> f64 {
    momentum_number(&Momentum::Held(class, *v), name)
}

/// `v.name()` of a four-vector of any `ROOT::Math` class (a `PtEtaPhiMVector` too), for a
/// name of [`LORENTZ_NUMBERS`].
pub fn momentum_number(m: &Momentum, name: &str) -> f64 {
    let of = |name| m.coordinate(name);
    match name {
        "X" | "Px" | "x" | "px" => of("X"),
        "Y" | "Py" | "y" | "py" => of("Y"),
        "Z" | "Pz" | "z" | "pz" => of("Z"),
        "T" | "E" | "t" | "e" | "energy" => of("E"),
        "M2" | "mag2" | "mass2" => of("M2"),
        "M" | "mag" | "mass" => of("M"),
        "R" | "P" | "r" => of("P"),
        "P2" => of("P") * of("P"),
        "Perp2" | "perp2" => of("Perp2"),
        "Pt" | "Rho" | "pt" | "rho" => of("Pt"),
        "Mt2" | "mt2" => of("Mt2"),
        "Mt" | "mt" => of("Mt"),
        "Et2" => of("Et2"),
        "Et" => of("Et"),
        "Phi" | "phi" => of("Phi"),
        "Theta" | "theta" => of("Theta"),
        "Eta" | "eta" => of("Eta"),
        "Rapidity" => m.rapidity(),
        "ColinearRapidity" => {
            let (e, p) = (of("E"), of("P"));
            0.5 * ((e + p) / (e - p)).ln()
        }
        "Beta" => beta(of("P"), of("E")),
        "Gamma" => gamma(of("P"), of("E")),
        _ => f64::NAN,
    }
}

/// `v.name()` of an `XYZVector` (a name of [`SPATIAL_NUMBERS`]).
pub fn spatial_number(name: &str, v: &Xyzt) -> f64 {
    let [x, y, z, _] = *v;
    let rho = || (x * x + y * y).sqrt();
    match name {
        "X" | "x" => x,
        "Y" | "y" => y,
        "Z" | "z" => z,
        "Mag2" | "mag2" => x * x + y * y + z * z,
        "R" | "r" => (x * x + y * y + z * z).sqrt(),
        "Perp2" | "perp2" => x * x + y * y,
        "Rho" | "rho" => rho(),
        "Theta" | "theta" => rho().atan2(z),
        "Phi" | "phi" => y.atan2(x),
        "Eta" | "eta" => eta_from_rho_z(rho(), z),
        _ => f64::NAN,
    }
}

/// `a.Dot(b)` of two four-vectors' `(Px(), Py(), Pz(), E())`: `t t' - x x' - y y' - z z'`,
/// in that order.
pub fn lorentz_dot(a: &Xyzt, b: &Xyzt) -> f64 {
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]
}

/// `a.Dot(b)` of two `XYZVector`s.
pub fn spatial_dot(a: &Xyzt, b: &Xyzt) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a.DeltaR(b, rapidity)` of two four-vectors (of any classes): of their pseudorapidities,
/// or of their rapidities with `rapidity`, and the difference of azimuths brought into
/// (-pi, pi] by a whole number of turns, truncated as C++'s conversion to `int` truncates.
pub fn delta_r(a: &Momentum, b: &Momentum, rapidity: bool) -> f64 {
    let delta = match rapidity {
        true => a.rapidity() - b.rapidity(),
        false => a.coordinate("Eta") - b.coordinate("Eta"),
    };
    delta_r_of(delta, a.coordinate("Phi") - b.coordinate("Phi"))
}

/// `DeltaR` of a difference of (pseudo)rapidities and one of azimuths, as
/// `LorentzVector::DeltaR` brings the latter into (-pi, pi].
pub fn delta_r_of(delta: f64, mut dphi: f64) -> f64 {
    let two_pi = 2.0 * PI;
    if dphi > PI || dphi <= -PI {
        if dphi > 0.0 {
            let n = (dphi / two_pi + 0.5) as i32;
            dphi -= two_pi * f64::from(n);
        } else {
            let n = (0.5 - dphi / two_pi) as i32;
            dphi += two_pi * f64::from(n);
        }
    }
    (delta * delta + dphi * dphi).sqrt()
}

/// `v.Unit()` of an `XYZVector`: the vector as it is when its length is zero, else each
/// component times the reciprocal of the length.
pub fn unit(v: &Xyzt) -> Xyzt {
    let tot = spatial_number("R", v);
    if tot == 0.0 {
        *v
    } else {
        scale(v, 1.0 / tot)
    }
}

/// `v.BoostToCM()` of a four-vector (of any `ROOT::Math` class): `-Vect() / E()`, the null
/// vector when `E()` and `P()` are zero.
pub fn boost_to_cm(v: &Momentum) -> Xyzt {
    let [x, y, z, e] = v.components();
    if e == 0.0 && v.coordinate("P") == 0.0 {
        return [0.0; 4];
    }
    let back = scale(&[x, y, z, 0.0], -1.0);
    scale(&back, 1.0 / e)
}

/// `v / s`: a product by the reciprocal of `s`, as GenVector divides.
pub fn divide(v: &Xyzt, s: f64) -> Xyzt {
    scale(v, 1.0 / s)
}

/// `Beta()` of a vector of momentum `p` and energy `e`: `p / e`; 0 for the null vector,
/// `1 / e` (infinite) for a vector of zero energy.
fn beta(p: f64, e: f64) -> f64 {
    if e == 0.0 {
        if p * p == 0.0 {
            0.0
        } else {
            1.0 / e
        }
    } else {
        p / e
    }
}

/// `Gamma()` of a vector of momentum `p` and energy `e`: 1 for the null vector, 0 for a
/// space-like one (and for zero energy).
fn gamma(p: f64, e: f64) -> f64 {
    let (v2, t2) = (p * p, e * e);
    if e == 0.0 && v2 == 0.0 {
        1.0
    } else if t2 < v2 {
        0.0
    } else {
        1.0 / (1.0 - v2 / t2).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CL: VectorClass = VectorClass::CartesianLorentz;

    #[test]
    fn a_cartesian_four_vector_s_methods_are_genvector_s_formulas() {
        let v: Xyzt = [3.0, -4.0, 12.0, 14.0];
        assert_eq!(lorentz_number(CL, "Pt", &v), 5.0);
        assert_eq!(lorentz_number(CL, "P", &v), 13.0);
        assert_eq!(lorentz_number(CL, "M2", &v), 196.0 - 9.0 - 16.0 - 144.0);
        assert_eq!(lorentz_number(CL, "M", &v), 27f64.sqrt());
        assert_eq!(lorentz_number(CL, "mass", &v), 27f64.sqrt());
        assert_eq!(lorentz_number(CL, "Mt", &[0.0, 0.0, 5.0, 3.0]), -4.0);
        assert_eq!(lorentz_number(CL, "Eta", &v), eta_from_rho_z(5.0, 12.0));
        assert_eq!(lorentz_number(CL, "Phi", &[0.0, 0.0, 1.0, 2.0]), 0.0);
        assert_eq!(lorentz_number(CL, "Beta", &[0.0; 4]), 0.0);
        assert_eq!(lorentz_number(CL, "Gamma", &[3.0, 0.0, 0.0, 1.0]), 0.0);
        assert_eq!(lorentz_number(CL, "Gamma", &[0.0, 0.0, 0.0, 2.0]), 1.0);
        assert_eq!(lorentz_dot(&v, &v), lorentz_number(CL, "M2", &v));
        // A spatial vector's angles are atan2's even on the axis.
        assert_eq!(spatial_number("Phi", &[-0.0, 0.0, 1.0, 0.0]), PI);
        assert_eq!(spatial_number("Theta", &[0.0, 0.0, -0.0, 0.0]), PI);
        assert_eq!(spatial_number("R", &[3.0, 4.0, 12.0, 0.0]), 13.0);
    }

    #[test]
    fn divisions_multiply_by_the_reciprocal_and_delta_r_turns_whole_turns() {
        let v: Xyzt = [1.0, 2.0, 3.0, 4.0];
        let third = 1.0 / 3.0;
        assert_eq!(
            divide(&v, 3.0),
            [third, 2.0 * third, 3.0 * third, 4.0 * third]
        );
        assert_eq!(unit(&[0.0; 4]), [0.0; 4]);
        assert_eq!(
            boost_to_cm(&Momentum::Held(CL, [1.0, 0.0, 0.0, 2.0])),
            [-0.5, -0.0, -0.0, 0.0]
        );
        // Azimuths 3 and -3 are 2 pi - 6 apart.
        let a = [3f64.cos(), 3f64.sin(), 0.0, 5.0];
        let b = [(-3f64).cos(), (-3f64).sin(), 0.0, 5.0];
        let d = delta_r(&Momentum::Held(CL, a), &Momentum::Held(CL, b), false);
        assert!((d - (2.0 * PI - 6.0)).abs() < 1e-12, "{d}");
    }
}
