//! ROOT's physics vectors, `TVector2`, `TVector3` and `TLorentzVector` (libPhysics), and the
//! `ROOT::Math` ones held as numbers (`XYZVector`, `PxPyPzEVector`, `PtEtaPhiEVector`,
//! `PxPyPzMVector`: their formulas are [`genvectors`](super::genvectors)' and
//! [`coordinates`](super::coordinates)'), as expressions use them: columns of them (read as
//! the records `{fX, fY}`, `{fX, fY, fZ}` and `{fP: {fX, fY, fZ}, fE}`, and
//! `{fCoordinates: {...}}` of the `ROOT::Math` classes' members), their methods, their
//! operators and their constructors, each computed as the class computes it (operation for
//! operation, so that values have ROOT's bits): `TLorentzVector::Eta()` from `CosTheta()`,
//! `TVector2::Phi()` in [0, 2 pi).
//!
//! A vector is held as its class's numbers: the Cartesian components `[x, y, z, t]` (the
//! ones its class lacks zero), `[pt, eta, phi, e]` for a `PtEtaPhiEVector`, `[x, y, z, m]`
//! for a `PxPyPzMVector`.

use std::f64::consts::PI;

use super::coordinates::{components, from_components, scaled, Momentum};
use super::genvectors as gv;

/// One of ROOT's physics vector classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VectorClass {
    /// `TVector2`: x, y.
    Vector2,
    /// `TVector3`: x, y, z.
    Vector3,
    /// `TLorentzVector`: x, y, z (its `TVector3 fP`) and t (`fE`).
    Lorentz,
    /// `ROOT::Math::XYZVector`: x, y, z.
    Cartesian3,
    /// `ROOT::Math::XYZPoint`: x, y, z of a position (a vertex), which differences of two
    /// make an `XYZVector`.
    CartesianPoint,
    /// `ROOT::Math::PxPyPzEVector` (`XYZTVector`): x, y, z, t.
    CartesianLorentz,
    /// `ROOT::Math::PtEtaPhiEVector`: pt, eta, phi, e.
    PtEtaPhiE,
    /// `ROOT::Math::PxPyPzMVector`: x, y, z, m.
    PxPyPzM,
}

/// A vector's components `[x, y, z, t]`.
pub type Xyzt = [f64; 4];

impl VectorClass {
    /// The class's name, as ROOT spells it.
    pub fn name(self) -> &'static str {
        match self {
            VectorClass::Vector2 => "TVector2",
            VectorClass::Vector3 => "TVector3",
            VectorClass::Lorentz => "TLorentzVector",
            VectorClass::Cartesian3 => "XYZVector",
            VectorClass::CartesianPoint => "XYZPoint",
            VectorClass::CartesianLorentz => "PxPyPzEVector",
            VectorClass::PtEtaPhiE => "PtEtaPhiEVector",
            VectorClass::PxPyPzM => "PxPyPzMVector",
        }
    }

    /// The C++ type, as RDataFrame names a column of the class.
    pub fn type_name(self) -> &'static str {
        match self {
            VectorClass::Cartesian3 => {
                "ROOT::Math::DisplacementVector3D<ROOT::Math::Cartesian3D<double>,ROOT::Math::DefaultCoordinateSystemTag>"
            }
            VectorClass::CartesianPoint => {
                "ROOT::Math::PositionVector3D<ROOT::Math::Cartesian3D<double>,ROOT::Math::DefaultCoordinateSystemTag>"
            }
            VectorClass::CartesianLorentz => "ROOT::Math::LorentzVector<ROOT::Math::PxPyPzE4D<double> >",
            VectorClass::PtEtaPhiE => "ROOT::Math::LorentzVector<ROOT::Math::PtEtaPhiE4D<double> >",
            VectorClass::PxPyPzM => "ROOT::Math::LorentzVector<ROOT::Math::PxPyPzM4D<double> >",
            other => other.name(),
        }
    }

    /// The class a constructor's name makes (namespaces dropped), if it is one of these.
    pub fn of_name(name: &str) -> Option<VectorClass> {
        let name = name
            .strip_prefix("Construct<")
            .and_then(|n| n.strip_suffix('>'))
            .unwrap_or(name);
        match name {
            "XYZTVector" => Some(VectorClass::CartesianLorentz),
            _ => [
                VectorClass::Vector2,
                VectorClass::Vector3,
                VectorClass::Lorentz,
                VectorClass::Cartesian3,
                VectorClass::CartesianPoint,
                VectorClass::CartesianLorentz,
                VectorClass::PtEtaPhiE,
                VectorClass::PxPyPzM,
            ]
            .into_iter()
            .find(|c| c.name() == name),
        }
    }

    /// How many components the class's constructor takes.
    pub fn components(self) -> usize {
        match self {
            VectorClass::Vector2 => 2,
            VectorClass::Vector3 | VectorClass::Cartesian3 | VectorClass::CartesianPoint => 3,
            _ => 4,
        }
    }

    /// Whether the class is one of `ROOT::Math`'s (GenVector's operators: a unary `+`, no
    /// product of two vectors, a division by a number).
    pub fn genvector(self) -> bool {
        matches!(self, VectorClass::Cartesian3 | VectorClass::CartesianPoint)
            || self.held_four_vector()
    }

    /// The class of the other vector of `a.method(b)`: an `XYZPoint`'s `Dot` and `Cross`
    /// take an `XYZVector`, every other class's methods one of its own.
    pub fn argument_class(self) -> VectorClass {
        match self {
            VectorClass::CartesianPoint => VectorClass::Cartesian3,
            other => other,
        }
    }

    /// Whether the class is a `ROOT::Math` four-vector held as its four numbers (every one
    /// but `PtEtaPhiMVector`, which has its own values): its sums, scalings and conversions
    /// are the `coordinates` module's.
    pub fn held_four_vector(self) -> bool {
        matches!(
            self,
            VectorClass::CartesianLorentz | VectorClass::PtEtaPhiE | VectorClass::PxPyPzM
        )
    }
}

/// What a method of a vector gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodResult {
    /// A `double`.
    Number,
    /// A vector of this class.
    Vector(VectorClass),
}

/// Methods of no argument but the vector giving a number: `TVector2`'s; those `TVector3`
/// and `TLorentzVector` share (of the spatial part); each one's own.
const NUMBER_METHODS_2: &[&str] = &["X", "Y", "Px", "Py", "Mod", "Mod2", "Phi"];
const SPATIAL_METHODS: &[&str] = &[
    "X",
    "Y",
    "Z",
    "Px",
    "Py",
    "Pz",
    "Perp",
    "Perp2",
    "Pt",
    "Phi",
    "Theta",
    "CosTheta",
    "Eta",
    "PseudoRapidity",
    "Mag",
    "Mag2",
];
const LORENTZ_METHODS: &[&str] = &[
    "T", "E", "Energy", "P", "Rapidity", "M", "M2", "Mt", "Mt2", "Et", "Et2", "Beta", "Gamma",
    "Plus", "Minus",
];

/// Methods of one other vector of the same class, giving a `double`.
const PAIR_METHODS_2: &[&str] = &["DeltaPhi"];
const PAIR_METHODS_3: &[&str] = &[
    "Dot", "Angle", "DeltaPhi", "DeltaR", "DrEtaPhi", "Perp", "Perp2", "Pt",
];
const PAIR_METHODS_4: &[&str] = &["Dot", "DeltaPhi", "DeltaR", "DrEtaPhi", "DrRapidityPhi"];

/// Every method name of any class with its number of arguments (the vector counted), for
/// checking an expression before its columns' types are known.
pub fn signatures() -> impl Iterator<Item = (String, usize)> {
    let ones = NUMBER_METHODS_2
        .iter()
        .chain(SPATIAL_METHODS)
        .chain(LORENTZ_METHODS)
        .chain(["Vect", "Unit", "XYvector", "BoostVector"].iter());
    let twos = PAIR_METHODS_2
        .iter()
        .chain(PAIR_METHODS_3)
        .chain(PAIR_METHODS_4)
        .chain(["Cross"].iter());
    let ones = ones
        .chain(gv::LORENTZ_NUMBERS)
        .chain(gv::SPATIAL_NUMBERS)
        .chain(["BoostToCM", "unit"].iter());
    ones.map(|m| (format!(".{m}"), 1))
        .chain(twos.map(|m| (format!(".{m}"), 2)))
        .chain([(".DeltaR".to_string(), 3)])
}

/// What `v.name()` gives for a vector of `class` (`args` arguments but the vector), `None`
/// if the class has no such method.
pub fn method_result(class: VectorClass, name: &str, args: usize) -> Option<MethodResult> {
    use VectorClass::*;
    let four = class.held_four_vector();
    match (class, args, name) {
        (_, 0, n) if four && gv::LORENTZ_NUMBERS.contains(&n) => return Some(MethodResult::Number),
        (Cartesian3 | CartesianPoint, 0, n) if gv::SPATIAL_NUMBERS.contains(&n) => {
            return Some(MethodResult::Number)
        }
        (_, 1, "Dot" | "DeltaR") | (_, 2, "DeltaR") if four => return Some(MethodResult::Number),
        (Cartesian3 | CartesianPoint, 1, "Dot") => return Some(MethodResult::Number),
        (CartesianPoint, 1, "Cross") => return Some(MethodResult::Vector(CartesianPoint)),
        (_, 0, "Vect" | "BoostToCM") if four => return Some(MethodResult::Vector(Cartesian3)),
        (Cartesian3, 0, "Unit" | "unit") | (Cartesian3, 1, "Cross") => {
            return Some(MethodResult::Vector(Cartesian3))
        }
        _ if class.genvector() => return None,
        _ => {}
    }
    let (numbers, own, pairs): (&[&str], &[&str], &[&str]) = match class {
        Vector2 => (NUMBER_METHODS_2, &[], PAIR_METHODS_2),
        Vector3 => (SPATIAL_METHODS, &[], PAIR_METHODS_3),
        _ => (SPATIAL_METHODS, LORENTZ_METHODS, PAIR_METHODS_4),
    };
    match (args, class, name) {
        (0, _, n) if numbers.contains(&n) || own.contains(&n) => Some(MethodResult::Number),
        (1, _, n) if pairs.contains(&n) => Some(MethodResult::Number),
        (0, Lorentz, "Vect" | "BoostVector") | (0, Vector3, "Unit") | (1, Vector3, "Cross") => {
            Some(MethodResult::Vector(Vector3))
        }
        (0, Vector3, "XYvector") => Some(MethodResult::Vector(Vector2)),
        _ => None,
    }
}

/// `v.name()` of a method [`method_result`] says gives a number.
pub fn number(class: VectorClass, name: &str, v: &Xyzt) -> f64 {
    let [x, y, z, t] = *v;
    match (class, name) {
        (c, _) if c.held_four_vector() => gv::lorentz_number(c, name, v),
        (VectorClass::Cartesian3 | VectorClass::CartesianPoint, _) => gv::spatial_number(name, v),
        (_, "X" | "Px") => x,
        (_, "Y" | "Py") => y,
        (_, "Z" | "Pz") => z,
        (_, "T" | "E" | "Energy") => t,
        (VectorClass::Vector2, "Mod2") => x * x + y * y,
        (VectorClass::Vector2, "Mod") => (x * x + y * y).sqrt(),
        (VectorClass::Vector2, "Phi") => PI + (-y).atan2(-x),
        (_, "Mag2") if class == VectorClass::Vector3 => mag2(v),
        (_, "Mag") if class == VectorClass::Vector3 => mag2(v).sqrt(),
        (_, "P") => mag2(v).sqrt(),
        (_, "Perp2") => x * x + y * y,
        (_, "Perp" | "Pt") => (x * x + y * y).sqrt(),
        (_, "Phi") => phi(v),
        (_, "Theta") => theta(v),
        (_, "CosTheta") => cos_theta(v),
        (_, "Eta" | "PseudoRapidity") => pseudo_rapidity(v),
        (_, "Rapidity") => rapidity(v),
        (_, "Mag2" | "M2") => t * t - mag2(v),
        (_, "Mag" | "M") => signed_root(t * t - mag2(v)),
        (_, "Mt2") => t * t - z * z,
        (_, "Mt") => signed_root(t * t - z * z),
        (_, "Et2") => et2(v),
        (_, "Et") => {
            let e = et2(v).sqrt();
            if t < 0.0 {
                -e
            } else {
                e
            }
        }
        (_, "Beta") => mag2(v).sqrt() / t,
        (_, "Gamma") => {
            let b = mag2(v).sqrt() / t;
            1.0 / (1.0 - b * b).sqrt()
        }
        (_, "Plus") => t + z,
        (_, "Minus") => t - z,
        _ => f64::NAN,
    }
}

/// `a.name(b)` of a method [`method_result`] says gives a number, for the classes but the
/// `ROOT::Math` four-vectors (whose `Dot` and `DeltaR` take another class too: see
/// `vector_calls`).
pub fn pair_number(class: VectorClass, name: &str, a: &Xyzt, b: &Xyzt) -> f64 {
    match (class, name) {
        (VectorClass::Cartesian3 | VectorClass::CartesianPoint, _) => gv::spatial_dot(a, b),
        (VectorClass::Vector2, _) => phi_mpi_pi(number(class, "Phi", a) - number(class, "Phi", b)),
        (_, "DeltaPhi") => phi_mpi_pi(phi(a) - phi(b)),
        (_, "DeltaR" | "DrEtaPhi") => {
            let deta = pseudo_rapidity(a) - pseudo_rapidity(b);
            let dphi = phi_mpi_pi(phi(a) - phi(b));
            (deta * deta + dphi * dphi).sqrt()
        }
        (_, "DrRapidityPhi") => {
            let drap = rapidity(a) - rapidity(b);
            let dphi = phi_mpi_pi(phi(a) - phi(b));
            (drap * drap + dphi * dphi).sqrt()
        }
        (VectorClass::Lorentz, "Dot") => dot(class, a, b),
        (_, "Dot") => a[0] * b[0] + a[1] * b[1] + a[2] * b[2],
        // `TVector3::Perp2(p)`: the square of the part across `p` (zero at most).
        (_, "Perp2" | "Perp" | "Pt") => {
            let tot = mag2(b);
            let ss = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
            let mut per = mag2(a);
            if tot > 0.0 {
                per -= ss * ss / tot;
            }
            if per < 0.0 {
                per = 0.0;
            }
            match name {
                "Perp2" => per,
                _ => per.sqrt(),
            }
        }
        (_, "Angle") => {
            let both = mag2(a) * mag2(b);
            if both <= 0.0 {
                0.0
            } else {
                let cos = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / both.sqrt();
                cos.clamp(-1.0, 1.0).acos()
            }
        }
        _ => f64::NAN,
    }
}

/// `v.name()` or `a.name(b)` of a method [`method_result`] says gives a vector.
pub fn vector(class: VectorClass, name: &str, a: &Xyzt, b: &Xyzt) -> Xyzt {
    let [x, y, z, _] = *a;
    match name {
        "Vect" if class.held_four_vector() => {
            let [x, y, z, _] = components(class, a);
            [x, y, z, 0.0]
        }
        "Vect" => [x, y, z, 0.0],
        "BoostVector" => {
            let t = a[3];
            [x / t, y / t, z / t, 0.0]
        }
        "BoostToCM" => gv::boost_to_cm(&Momentum::Held(class, *a)),
        "Unit" | "unit" if class.genvector() => gv::unit(a),
        "XYvector" => [x, y, 0.0, 0.0],
        "Unit" => {
            let tot2 = mag2(a);
            let tot = if tot2 > 0.0 { 1.0 / tot2.sqrt() } else { 1.0 };
            [x * tot, y * tot, z * tot, 0.0]
        }
        // Cross
        _ => [
            y * b[2] - b[1] * z,
            z * b[0] - b[2] * x,
            x * b[1] - b[0] * y,
            0.0,
        ],
    }
}

/// `a + b` of two vectors of `class`: a four-vector held as numbers is given the sum of
/// the Cartesian components in its own system, as GenVector's `operator+` gives it.
pub fn add(class: VectorClass, a: &Xyzt, b: &Xyzt) -> Xyzt {
    if class.held_four_vector() {
        let (a, b) = (components(class, a), components(class, b));
        return from_components(class, std::array::from_fn(|k| a[k] + b[k]));
    }
    [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]
}

/// `a - b` of two vectors of `class`, as [`add`] adds them.
pub fn sub(class: VectorClass, a: &Xyzt, b: &Xyzt) -> Xyzt {
    if class.held_four_vector() {
        let (a, b) = (components(class, a), components(class, b));
        return from_components(class, std::array::from_fn(|k| a[k] - b[k]));
    }
    [a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]]
}

/// `-v`: GenVector's four-vectors scaled by -1 (a `PtEtaPhiEVector` turned around).
pub fn neg(class: VectorClass, v: &Xyzt) -> Xyzt {
    if class.held_four_vector() {
        return scaled(class, v, -1.0);
    }
    [-v[0], -v[1], -v[2], -v[3]]
}

/// `v * s` and `s * v` of a vector of `class`: a four-vector held as numbers as its system
/// scales (see [`scaled`]), the others each component times `s`.
pub fn times(class: VectorClass, v: &Xyzt, s: f64) -> Xyzt {
    if class.held_four_vector() {
        return scaled(class, v, s);
    }
    scale(v, s)
}

/// `v * s` and `s * v` (each component times `s`; the classes differ in the order of the
/// factors, which a product does not depend on).
pub fn scale(v: &Xyzt, s: f64) -> Xyzt {
    [s * v[0], s * v[1], s * v[2], s * v[3]]
}

/// `v / s` (`TVector2`'s, or a `ROOT::Math` vector's product by the reciprocal).
pub fn divide(class: VectorClass, v: &Xyzt, s: f64) -> Xyzt {
    if class.held_four_vector() {
        return scaled(class, v, 1.0 / s);
    }
    if class.genvector() {
        return gv::divide(v, s);
    }
    [v[0] / s, v[1] / s, v[2] / s, v[3] / s]
}

/// `a * b`: the scalar product (`TLorentzVector`'s Minkowski product `t t' - z z' - y y'
/// - x x'`, in that order).
pub fn dot(class: VectorClass, a: &Xyzt, b: &Xyzt) -> f64 {
    match class {
        VectorClass::Vector2 => a[0] * b[0] + a[1] * b[1],
        VectorClass::Vector3 => a[0] * b[0] + a[1] * b[1] + a[2] * b[2],
        VectorClass::Lorentz => a[3] * b[3] - a[2] * b[2] - a[1] * b[1] - a[0] * b[0],
        VectorClass::Cartesian3 | VectorClass::CartesianPoint => gv::spatial_dot(a, b),
        c => gv::lorentz_dot(&components(c, a), &components(c, b)),
    }
}

/// The spatial part's squared length (`TVector3::Mag2()`).
fn mag2(v: &Xyzt) -> f64 {
    v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
}

/// `TVector3::Phi()`: in [-pi, pi], 0 on the axis.
fn phi(v: &Xyzt) -> f64 {
    if v[0] == 0.0 && v[1] == 0.0 {
        0.0
    } else {
        v[1].atan2(v[0])
    }
}

/// `TVector3::Theta()`.
fn theta(v: &Xyzt) -> f64 {
    if v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0 {
        0.0
    } else {
        (v[0] * v[0] + v[1] * v[1]).sqrt().atan2(v[2])
    }
}

/// `TVector3::CosTheta()`: 1 for the null vector.
fn cos_theta(v: &Xyzt) -> f64 {
    let p = mag2(v).sqrt();
    if p == 0.0 {
        1.0
    } else {
        v[2] / p
    }
}

/// `TVector3::PseudoRapidity()`: from `CosTheta()`; along the axis 0 for the null vector,
/// else +-10e10 (ROOT warns).
fn pseudo_rapidity(v: &Xyzt) -> f64 {
    let c = cos_theta(v);
    if c * c < 1.0 {
        -0.5 * ((1.0 - c) / (1.0 + c)).ln()
    } else if v[2] == 0.0 {
        0.0
    } else if v[2] > 0.0 {
        10e10
    } else {
        -10e10
    }
}

/// `TLorentzVector::Rapidity()`.
fn rapidity(v: &Xyzt) -> f64 {
    0.5 * ((v[3] + v[2]) / (v[3] - v[2])).ln()
}

/// `TLorentzVector::Et2()`.
pub(super) fn et2(v: &Xyzt) -> f64 {
    let pt2 = v[0] * v[0] + v[1] * v[1];
    if pt2 == 0.0 {
        0.0
    } else {
        v[3] * v[3] * pt2 / (pt2 + v[2] * v[2])
    }
}

/// The square root of `mm`, negative for a negative `mm` (`Mag()`, `Mt()`).
fn signed_root(mm: f64) -> f64 {
    if mm < 0.0 {
        -(-mm).sqrt()
    } else {
        mm.sqrt()
    }
}

/// `TVector2::Phi_mpi_pi`: `x` brought into [-pi, pi) by steps of 2 pi, as ROOT's loop
/// steps (a NaN or an infinity is returned as it is: ROOT's loop would not end on one).
fn phi_mpi_pi(mut x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    // Differences of angles need a step at most; a value this far out takes the shortcut
    // of a remainder first (a loop of ROOT's would take as many steps as it is wide).
    if x.abs() > 64.0 * PI {
        x %= 2.0 * PI;
    }
    while x >= PI {
        x -= 2.0 * PI;
    }
    while x < -PI {
        x += 2.0 * PI;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lorentz_vector_s_methods_are_the_class_s_formulas() {
        // px, py, pz, E of a muon pair member.
        let v: Xyzt = [
            -52.89945602416992,
            -11.654671669006348,
            -8.16079330444336,
            54.77949905395508,
        ];
        let pt = (v[0] * v[0] + v[1] * v[1]).sqrt();
        assert_eq!(number(VectorClass::Lorentz, "Pt", &v), pt);
        let p = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        let c = v[2] / p;
        assert_eq!(
            number(VectorClass::Lorentz, "Eta", &v),
            -0.5 * ((1.0 - c) / (1.0 + c)).ln()
        );
        let m2 = v[3] * v[3] - (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        assert_eq!(number(VectorClass::Lorentz, "M", &v), m2.sqrt());
        assert_eq!(number(VectorClass::Lorentz, "M2", &v), m2);
        assert_eq!(number(VectorClass::Lorentz, "Phi", &v), v[1].atan2(v[0]));
        // Along the beam: ROOT's +-10e10, 0 for the null vector.
        assert_eq!(
            number(VectorClass::Lorentz, "Eta", &[0.0, 0.0, 3.0, 5.0]),
            1e11
        );
        assert_eq!(
            number(VectorClass::Vector3, "Eta", &[0.0, 0.0, -3.0, 0.0]),
            -1e11
        );
        assert_eq!(number(VectorClass::Vector3, "Eta", &[0.0; 4]), 0.0);
        // A space-like vector's mass is negative.
        assert_eq!(
            number(VectorClass::Lorentz, "M", &[3.0, 0.0, 4.0, 0.0]),
            -5.0
        );
    }

    #[test]
    fn a_vector2_s_phi_is_in_zero_to_two_pi() {
        let phi = number(VectorClass::Vector2, "Phi", &[0.0, -1.0, 0.0, 0.0]);
        assert!((phi - 1.5 * PI).abs() < 1e-15, "{phi}");
        assert_eq!(
            number(VectorClass::Vector2, "Phi", &[1.0, 0.0, 0.0, 0.0]),
            PI + (-0.0f64).atan2(-1.0)
        );
        // DeltaPhi of two such angles is brought into [-pi, pi).
        let d = pair_number(
            VectorClass::Vector2,
            "DeltaPhi",
            &[1.0, -0.1, 0.0, 0.0],
            &[1.0, 0.1, 0.0, 0.0],
        );
        assert!((d + 2.0 * 0.1f64.atan()).abs() < 1e-12, "{d}");
    }

    #[test]
    fn phi_mpi_pi_steps_as_root_s_loop_and_ends_on_any_value() {
        assert_eq!(phi_mpi_pi(PI), PI - 2.0 * PI);
        assert_eq!(phi_mpi_pi(-PI), -PI);
        assert_eq!(phi_mpi_pi(4.0), 4.0 - 2.0 * PI);
        assert_eq!(phi_mpi_pi(-4.0), -4.0 + 2.0 * PI);
        assert!(phi_mpi_pi(f64::NAN).is_nan());
        assert_eq!(phi_mpi_pi(f64::INFINITY), f64::INFINITY);
        let far = phi_mpi_pi(1e300);
        assert!((-PI..PI).contains(&far), "{far}");
    }

    #[test]
    fn the_minkowski_product_and_the_methods_of_a_pair() {
        let (a, b) = ([1.0, 2.0, 3.0, 10.0], [-1.0, 0.5, 2.0, 7.0]);
        assert_eq!(dot(VectorClass::Lorentz, &a, &b), 70.0 - 6.0 - 1.0 + 1.0);
        assert_eq!(dot(VectorClass::Vector3, &a, &b), -1.0 + 1.0 + 6.0);
        assert_eq!(pair_number(VectorClass::Vector3, "Dot", &a, &b), 6.0);
        assert_eq!(pair_number(VectorClass::Lorentz, "Dot", &a, &b), 64.0);
        let angle = pair_number(VectorClass::Vector3, "Angle", &a, &a);
        assert_eq!(angle, 0.0);
        assert_eq!(
            vector(
                VectorClass::Vector3,
                "Cross",
                &[1.0, 0.0, 0.0, 0.0],
                &[0.0, 1.0, 0.0, 0.0]
            ),
            [0.0, 0.0, 1.0, 0.0]
        );
        assert_eq!(method_result(VectorClass::Vector2, "M", 0), None);
        assert_eq!(
            method_result(VectorClass::Lorentz, "Vect", 0),
            Some(MethodResult::Vector(VectorClass::Vector3))
        );
    }
}
