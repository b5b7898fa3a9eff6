//! Four-vector arithmetic as ROOT's `PtEtaPhiMVector` (`LorentzVector<PtEtaPhiM4D<double>>`)
//! does it, operation for operation, so that sums, masses and transverse momenta have
//! ROOT's bits: a sum goes through Cartesian coordinates (`x = pt cos(phi)`, ...) and back
//! (`pt = sqrt(x^2 + y^2)`, `eta` from `z / pt`, `phi = atan2(y, x)`, `m` signed).

use crate::analysis::column::P4;

/// ROOT's `etaMax<double>()`: the pseudorapidity given to vectors along the beam.
const ETA_MAX: f64 = 22756.0;

impl P4 {
    /// A vector from its coordinates; `phi` brought into (-pi, pi] as ROOT's constructor
    /// does. (A negative mass larger than the momentum is left as it is.)
    pub fn new(pt: f64, eta: f64, phi: f64, m: f64) -> P4 {
        let pi = std::f64::consts::PI;
        let phi = if phi <= -pi || phi > pi {
            phi - (phi / (2.0 * pi) + 0.5).floor() * 2.0 * pi
        } else {
            phi
        };
        P4 { pt, eta, phi, m }
    }

    /// `Px()`.
    pub fn px(&self) -> f64 {
        self.pt * self.phi.cos()
    }

    /// `Py()`.
    pub fn py(&self) -> f64 {
        self.pt * self.phi.sin()
    }

    /// `Pz()`.
    pub fn pz(&self) -> f64 {
        if self.pt > 0.0 {
            self.pt * self.eta.sinh()
        } else if self.eta == 0.0 {
            0.0
        } else if self.eta > 0.0 {
            self.eta - ETA_MAX
        } else {
            self.eta + ETA_MAX
        }
    }

    /// `P()`.
    pub fn p(&self) -> f64 {
        if self.pt > 0.0 {
            self.pt * self.eta.cosh()
        } else if self.eta > ETA_MAX {
            self.eta - ETA_MAX
        } else if self.eta < -ETA_MAX {
            -self.eta - ETA_MAX
        } else {
            0.0
        }
    }

    /// `M2()`: the squared mass, negative for a negative mass.
    pub fn m2(&self) -> f64 {
        if self.m >= 0.0 {
            self.m * self.m
        } else {
            -self.m * self.m
        }
    }

    /// `E()`.
    pub fn e(&self) -> f64 {
        let p = self.p();
        let e2 = p * p + self.m2();
        if e2 > 0.0 {
            e2.sqrt()
        } else {
            0.0
        }
    }

    /// `Mt()`: the transverse mass (negative when its square is).
    pub fn mt(&self) -> f64 {
        let mm = self.m2() + self.pt * self.pt;
        if mm >= 0.0 {
            mm.sqrt()
        } else {
            -(-mm).sqrt()
        }
    }

    /// `Et()`.
    pub fn et(&self) -> f64 {
        self.e() / self.eta.cosh()
    }

    /// `Rapidity()`: `0.5 log((E + Pz) / (E - Pz))`.
    pub fn rapidity(&self) -> f64 {
        let (e, pz) = (self.e(), self.pz());
        0.5 * ((e + pz) / (e - pz)).ln()
    }

    /// `a + b`: Cartesian sums, then back to these coordinates.
    pub fn add(&self, other: &P4) -> P4 {
        from_cartesian(
            self.px() + other.px(),
            self.py() + other.py(),
            self.pz() + other.pz(),
            self.e() + other.e(),
        )
    }

    /// `a - b`.
    pub fn sub(&self, other: &P4) -> P4 {
        from_cartesian(
            self.px() - other.px(),
            self.py() - other.py(),
            self.pz() - other.pz(),
            self.e() - other.e(),
        )
    }
}

/// A vector from `(x, y, z, t)`, as `PtEtaPhiM4D::SetPxPyPzE` converts it.
fn from_cartesian(x: f64, y: f64, z: f64, t: f64) -> P4 {
    let pt = (x * x + y * y).sqrt();
    let phi = if x == 0.0 && y == 0.0 {
        0.0
    } else {
        y.atan2(x)
    };
    let mm = t * t - x * x - y * y - z * z;
    let m = if mm >= 0.0 { mm.sqrt() } else { -(-mm).sqrt() };
    P4 {
        pt,
        eta: eta_from_rho_z(pt, z),
        phi,
        m,
    }
}

/// ROOT's `Impl::Eta_FromRhoZ`.
fn eta_from_rho_z(rho: f64, z: f64) -> f64 {
    if rho > 0.0 {
        // (2^-52)^(-1/4): beyond it, the first order of the square root's expansion.
        let big_z_scaled = f64::EPSILON.powf(-0.25);
        let z_scaled = z / rho;
        if z_scaled.abs() < big_z_scaled {
            (z_scaled + (z_scaled * z_scaled + 1.0).sqrt()).ln()
        } else if z > 0.0 {
            (2.0 * z_scaled + 0.5 / z_scaled).ln()
        } else {
            -(-2.0 * z_scaled).ln()
        }
    } else if z == 0.0 {
        0.0
    } else if z > 0.0 {
        z + ETA_MAX
    } else {
        z - ETA_MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sum_has_the_invariant_mass_of_its_parts() {
        // Two massless back-to-back 45 GeV particles: a 90 GeV system at rest.
        let a = P4::new(45.0, 0.0, 0.0, 0.0);
        let b = P4::new(45.0, 0.0, std::f64::consts::PI, 0.0);
        let s = a.add(&b);
        assert!((s.m - 90.0).abs() < 1e-9 && s.pt < 1e-9, "{s:?}");
        // Mass and energy of one vector; phi brought into range.
        let v = P4::new(30.0, 1.2, 7.0, 5.0);
        assert!((v.phi - (7.0 - 2.0 * std::f64::consts::PI)).abs() < 1e-12);
        let e = ((30.0f64 * 1.2f64.cosh()).powi(2) + 25.0).sqrt();
        assert_eq!(v.e(), e);
        // A vector along the beam.
        assert_eq!(from_cartesian(0.0, 0.0, 5.0, 5.0).eta, 5.0 + ETA_MAX);
    }
}
