//! The Cartesian `ROOT::Math` vectors, `PxPyPzEVector` (also named `XYZTVector`:
//! `LorentzVector<PxPyPzE4D<double>>`) and `XYZVector` (`DisplacementVector3D<Cartesian3D<
//! double>>`), as GenVector computes them: their methods, scalings and products operation
//! for operation, so that values have ROOT's bits. They differ from `TLorentzVector` and
//! `TVector3` in the details: `M2()` subtracts the components one by one, `Eta()` is
//! `Impl::Eta_FromRhoZ`, a division multiplies by the reciprocal, a `DisplacementVector3D`'s
//! `Phi()` and `Theta()` are `atan2` without a check for the axis.
//!
//! A vector is held as its components `[x, y, z, t]` (`t` zero for `XYZVector`).

use std::f64::consts::PI;

use super::lorentz::{eta_from_rho_z, mass, signed_root, squared_mass};
use super::physics_vectors::{et2, scale, Xyzt};

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

/// `v.name()` of a `PxPyPzEVector` (a name of [`LORENTZ_NUMBERS`]).
pub fn lorentz_number(name: &str, v: &Xyzt) -> f64 {
    let [x, y, z, t] = *v;
    match name {
        "X" | "Px" | "x" | "px" => x,
        "Y" | "Py" | "y" | "py" => y,
        "Z" | "Pz" | "z" | "pz" => z,
        "T" | "E" | "t" | "e" | "energy" => t,
        "M2" | "mag2" | "mass2" => squared_mass(*v),
        "M" | "mag" | "mass" => mass(*v),
        "R" | "P" | "r" => p(v),
        "P2" => p(v) * p(v),
        "Perp2" | "perp2" => x * x + y * y,
        "Pt" | "Rho" | "pt" | "rho" => pt(v),
        "Mt2" | "mt2" => t * t - z * z,
        "Mt" | "mt" => signed_root(t * t - z * z),
        "Et2" => et2(v),
        "Et" => {
            let e = et2(v).sqrt();
            if t < 0.0 {
                -e
            } else {
                e
            }
        }
        "Phi" | "phi" => {
            if x == 0.0 && y == 0.0 {
                0.0
            } else {
                y.atan2(x)
            }
        }
        "Theta" | "theta" => {
            if x == 0.0 && y == 0.0 && z == 0.0 {
                0.0
            } else {
                pt(v).atan2(z)
            }
        }
        "Eta" | "eta" => eta_from_rho_z(pt(v), z),
        "Rapidity" => 0.5 * ((t + z) / (t - z)).ln(),
        "ColinearRapidity" => 0.5 * ((t + p(v)) / (t - p(v))).ln(),
        "Beta" => beta(v),
        "Gamma" => gamma(v),
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

/// `a.Dot(b)` of two `PxPyPzEVector`s: `t t' - x x' - y y' - z z'`, in that order.
pub fn lorentz_dot(a: &Xyzt, b: &Xyzt) -> f64 {
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]
}

/// `a.Dot(b)` of two `XYZVector`s.
pub fn spatial_dot(a: &Xyzt, b: &Xyzt) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a.DeltaR(b)` of two `PxPyPzEVector`s: the difference of azimuths brought into
/// (-pi, pi] by a whole number of turns, truncated as C++'s conversion to `int` truncates.
pub fn delta_r(a: &Xyzt, b: &Xyzt) -> f64 {
    let delta = lorentz_number("Eta", a) - lorentz_number("Eta", b);
    let mut dphi = lorentz_number("Phi", a) - lorentz_number("Phi", b);
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

/// `v.BoostToCM()`: `-Vect() / E()`, the null vector when both are zero.
pub fn boost_to_cm(v: &Xyzt) -> Xyzt {
    if v[3] == 0.0 && p(v) == 0.0 {
        return [0.0; 4];
    }
    let back = scale(&[v[0], v[1], v[2], 0.0], -1.0);
    scale(&back, 1.0 / v[3])
}

/// `v / s`: a product by the reciprocal of `s`, as GenVector divides.
pub fn divide(v: &Xyzt, s: f64) -> Xyzt {
    scale(v, 1.0 / s)
}

/// `P()`: the spatial length.
fn p([x, y, z, _]: &Xyzt) -> f64 {
    (x * x + y * y + z * z).sqrt()
}

/// `Pt()`.
fn pt([x, y, ..]: &Xyzt) -> f64 {
    (x * x + y * y).sqrt()
}

/// `Beta()`: `P() / E()`; 0 for the null vector, `1 / E()` (infinite) for a vector of zero
/// energy.
fn beta(v: &Xyzt) -> f64 {
    let p = p(v);
    if v[3] == 0.0 {
        if p * p == 0.0 {
            0.0
        } else {
            1.0 / v[3]
        }
    } else {
        p / v[3]
    }
}

/// `Gamma()`: 1 for the null vector, 0 for a space-like one (and for zero energy).
fn gamma(v: &Xyzt) -> f64 {
    let p = p(v);
    let (v2, t2) = (p * p, v[3] * v[3]);
    if v[3] == 0.0 && v2 == 0.0 {
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

    #[test]
    fn a_cartesian_four_vector_s_methods_are_genvector_s_formulas() {
        let v: Xyzt = [3.0, -4.0, 12.0, 14.0];
        assert_eq!(lorentz_number("Pt", &v), 5.0);
        assert_eq!(lorentz_number("P", &v), 13.0);
        assert_eq!(lorentz_number("M2", &v), 196.0 - 9.0 - 16.0 - 144.0);
        assert_eq!(lorentz_number("M", &v), 27f64.sqrt());
        assert_eq!(lorentz_number("mass", &v), 27f64.sqrt());
        assert_eq!(lorentz_number("Mt", &[0.0, 0.0, 5.0, 3.0]), -4.0);
        assert_eq!(lorentz_number("Eta", &v), eta_from_rho_z(5.0, 12.0));
        assert_eq!(lorentz_number("Phi", &[0.0, 0.0, 1.0, 2.0]), 0.0);
        assert_eq!(lorentz_number("Beta", &[0.0; 4]), 0.0);
        assert_eq!(lorentz_number("Gamma", &[3.0, 0.0, 0.0, 1.0]), 0.0);
        assert_eq!(lorentz_number("Gamma", &[0.0, 0.0, 0.0, 2.0]), 1.0);
        assert_eq!(lorentz_dot(&v, &v), lorentz_number("M2", &v));
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
        assert_eq!(boost_to_cm(&[1.0, 0.0, 0.0, 2.0]), [-0.5, -0.0, -0.0, 0.0]);
        // Azimuths 3 and -3 are 2 pi - 6 apart.
        let a = [3f64.cos(), 3f64.sin(), 0.0, 5.0];
        let b = [(-3f64).cos(), (-3f64).sin(), 0.0, 5.0];
        let d = delta_r(&a, &b);
        assert!((d - (2.0 * PI - 6.0)).abs() < 1e-12, "{d}");
    }
}
