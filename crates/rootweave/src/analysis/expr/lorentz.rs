//! Four-vectors as ROOT's `PtEtaPhiMVector` (`LorentzVector<PtEtaPhiM4D<double>>`) computes
//! them, operation for operation, so that sums, masses and transverse momenta have ROOT's
//! bits: a sum goes through Cartesian coordinates (`x = pt cos(phi)`, ...) and back
//! (`pt = sqrt(x^2 + y^2)`, `eta` from `z / pt`, `phi = atan2(y, x)`, `m` signed).
//!
//! Two savings keep the bits: a vector made from its coordinates finds its Cartesian
//! coordinates once (a jet in twenty trijets is converted once, not twenty times), and a
//! sum keeps its Cartesian coordinates and converts each of pt, eta, phi and m only when it
//! is asked for (a pair's `M()` needs one square root, not an `atan2` and a logarithm).
//! [`sums_at`] adds the vectors of one list at several positions at once (the pairs and
//! trijets of `Combinations`) and converts a partial sum once for the neighbours that
//! share it: trijets `(i, j, k)` follow each other with the same pair `(i, j)`.
//!
//! The last conversion of such a sum (a trijet's pair) waits until a value is asked for:
//! [`P4::mass_estimate`] gives its mass without it, with a bound on the distance to ROOT's,
//! so that the trijet of mass closest to a value is found converting the pairs of the few
//! trijets the bounds cannot tell apart (see [`closest_mass`](super::closest_mass)).

use std::cell::Cell;

/// ROOT's `etaMax<double>()`: the pseudorapidity given to vectors along the beam.
const ETA_MAX: f64 = 22756.0;

/// A four-vector in ROOT's `PtEtaPhiMVector` coordinates (`double`). Its values are those
/// ROOT would hold; how it holds them is its own (see the module's documentation).
#[derive(Debug, Clone, Copy)]
pub struct P4 {
    form: Form,
}

#[derive(Debug, Clone, Copy)]
enum Form {
    /// Made from (or converted to) its coordinates, with the Cartesian components ROOT
    /// computes from them (`Px()`, `Py()`, `Pz()`, `E()`).
    Polar {
        pt: f64,
        eta: f64,
        phi: f64,
        m: f64,
        cartesian: [f64; 4],
    },
    /// A sum or a difference: the components ROOT's `SetPxPyPzE` is given, converted
    /// coordinate by coordinate when asked.
    Cartesian([f64; 4]),
    /// The sum `partial + next` where ROOT converts the partial sum to its coordinates
    /// before adding: its components are those of `Cartesian(converted(partial) + next)`,
    /// computed when a value is asked for.
    Deferred { partial: [f64; 4], next: [f64; 4] },
}

impl PartialEq for P4 {
    fn eq(&self, other: &P4) -> bool {
        self.coordinates() == other.coordinates()
    }
}

impl P4 {
    /// A vector from its coordinates; `phi` brought into (-pi, pi] as ROOT's constructor
    /// does. (A negative mass larger than the momentum is left as it is.)
    pub fn new(pt: f64, eta: f64, phi: f64, m: f64) -> P4 {
        polar(pt, eta, restricted_phi(phi), m)
    }

    /// A vector as a file holds one (`fPt`, `fEta`, `fPhi`, `fM` of a stored
    /// `PtEtaPhiMVector`): its coordinates as they are, as ROOT reads them.
    pub fn stored(pt: f64, eta: f64, phi: f64, m: f64) -> P4 {
        polar(pt, eta, phi, m)
    }

    /// `Pt()`.
    pub fn pt(&self) -> f64 {
        match self.form {
            Form::Polar { pt, .. } => pt,
            Form::Cartesian([x, y, ..]) => (x * x + y * y).sqrt(),
            Form::Deferred { partial, next } => {
                // Only the transverse components of the converted partial sum: its `pt`
                // and `phi`, without the `eta` and `m` its other two need.
                let [x, y] = converted_transverse(partial);
                let (x, y) = (x + next[0], y + next[1]);
                (x * x + y * y).sqrt()
            }
        }
    }

    /// `Eta()`.
    pub fn eta(&self) -> f64 {
        match self.form {
            Form::Polar { eta, .. } => eta,
            Form::Cartesian([_, _, z, _]) => eta_from_rho_z(self.pt(), z),
            Form::Deferred { .. } => self.resolved().eta(),
        }
    }

    /// `Phi()`.
    pub fn phi(&self) -> f64 {
        match self.form {
            Form::Polar { phi, .. } => phi,
            Form::Cartesian([x, y, ..]) => {
                if x == 0.0 && y == 0.0 {
                    0.0
                } else {
                    y.atan2(x)
                }
            }
            Form::Deferred { .. } => self.resolved().phi(),
        }
    }

    /// `M()`: negative for a negative squared mass.
    pub fn m(&self) -> f64 {
        match self.form {
            Form::Polar { m, .. } => m,
            Form::Cartesian(c) => mass(c),
            Form::Deferred { .. } => self.resolved().m(),
        }
    }

    /// `(pt, eta, phi, m)`.
    pub fn coordinates(&self) -> [f64; 4] {
        match self.form {
            Form::Polar {
                pt, eta, phi, m, ..
            } => [pt, eta, phi, m],
            Form::Cartesian([_, _, z, _]) => {
                let pt = self.pt();
                [pt, eta_from_rho_z(pt, z), self.phi(), self.m()]
            }
            Form::Deferred { .. } => self.resolved().coordinates(),
        }
    }

    /// The vector as ROOT holds it after a sum: converted to its coordinates, with the
    /// Cartesian components computed from them again.
    fn as_polar(&self) -> P4 {
        match self.form {
            Form::Polar { .. } => *self,
            Form::Deferred { .. } => self.resolved().as_polar(),
            Form::Cartesian(_) => {
                let [pt, eta, phi, m] = self.coordinates();
                polar(pt, eta, phi, m)
            }
        }
    }

    /// The vector with a deferred conversion done: a plain sum.
    fn resolved(&self) -> P4 {
        match self.form {
            Form::Deferred { partial, next } => {
                let c = converted(partial);
                P4 {
                    form: Form::Cartesian([
                        c[0] + next[0],
                        c[1] + next[1],
                        c[2] + next[2],
                        c[3] + next[3],
                    ]),
                }
            }
            _ => *self,
        }
    }

    /// `M()` without the conversion a deferred sum waits for, and a bound on its distance
    /// from `M()`: `(m, b)` with `|M() - m| <= b`. Exactly `(M(), 0)` for a vector without
    /// a deferred conversion, or one whose bound could not be trusted (components not
    /// finite or so large that their squares could overflow, along the beam, or with an
    /// energy small against its momentum). So `M()` is finite where the bound is not 0.
    ///
    /// Where the guards hold, the conversion of the partial sum (`x, y, z, t` to `pt, eta,
    /// phi, m` and back) moves each component by less than 50 units in the last place of
    /// `a`, the sum of the magnitudes of both vectors' components (a few ulps, times `1 +
    /// |eta|` with `|eta| < 15`). The squared masses with and without it, each rounded, then
    /// differ by less than `4e-12 a^2` (the components moving by up to 4500 ulps of `a`,
    /// the roundings of the sums and squares included), and the masses by that over the
    /// square root of the squared mass, or by its square root near zero.
    pub fn mass_estimate(&self) -> (f64, f64) {
        let Form::Deferred { partial, next } = self.form else {
            return (self.m(), 0.0);
        };
        let [x, y, z, t] = partial;
        let size = x.abs() + y.abs() + z.abs() + t.abs();
        let a = size + next[0].abs() + next[1].abs() + next[2].abs() + next[3].abs();
        let rho2 = x * x + y * y;
        if !(a < 1e150 && rho2 > 0.0 && z * z <= 1e12 * rho2 && t >= 0.3 * size) {
            return (self.m(), 0.0);
        }
        let sum = [x + next[0], y + next[1], z + next[2], t + next[3]];
        let mm = squared_mass(sum);
        let spread = 4e-12 * a * a;
        let m = signed_root(mm);
        let bound = if mm.abs() > spread {
            spread / mm.abs().sqrt()
        } else {
            (2.0 * spread).sqrt()
        };
        (m, bound + 4.0 * f64::EPSILON * (m.abs() + bound))
    }

    /// `(Px(), Py(), Pz(), E())` as ROOT computes them from the coordinates. Inlined: a
    /// vector made from its coordinates (every jet of every trijet) only reads them.
    #[inline]
    fn cartesian(&self) -> [f64; 4] {
        match self.form {
            Form::Polar { cartesian, .. } => cartesian,
            Form::Cartesian(_) | Form::Deferred { .. } => self.converted_cartesian(),
        }
    }

    /// [`P4::cartesian`] of a sum: its coordinates first.
    #[inline(never)]
    fn converted_cartesian(&self) -> [f64; 4] {
        match self.as_polar().form {
            Form::Polar { cartesian, .. } => cartesian,
            Form::Cartesian(_) | Form::Deferred { .. } => unreachable!("converted above"),
        }
    }

    /// `Px()`.
    pub fn px(&self) -> f64 {
        self.cartesian()[0]
    }

    /// `Py()`.
    pub fn py(&self) -> f64 {
        self.cartesian()[1]
    }

    /// `Pz()`.
    pub fn pz(&self) -> f64 {
        self.cartesian()[2]
    }

    /// `E()`.
    pub fn e(&self) -> f64 {
        self.cartesian()[3]
    }

    /// `P()`.
    pub fn p(&self) -> f64 {
        momentum(self.pt(), self.eta())
    }

    /// `Mt()`: the transverse mass (negative when its square is).
    pub fn mt(&self) -> f64 {
        let (pt, m) = (self.pt(), self.m());
        signed_root(signed_square(m) + pt * pt)
    }

    /// `Et()`.
    pub fn et(&self) -> f64 {
        self.e() / self.eta().cosh()
    }

    /// `Rapidity()`: `0.5 log((E + Pz) / (E - Pz))`.
    pub fn rapidity(&self) -> f64 {
        let (e, pz) = (self.e(), self.pz());
        0.5 * ((e + pz) / (e - pz)).ln()
    }

    /// `a + b`: the Cartesian sums, converted when a coordinate is asked for.
    pub fn add(&self, other: &P4) -> P4 {
        let (a, b) = (self.cartesian(), other.cartesian());
        P4 {
            form: Form::Cartesian([a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]),
        }
    }

    /// The vector ROOT's `SetPxPyPzE(x, y, z, t)` makes: `a + b` or `a - b` of a
    /// four-vector of other coordinates, `b`, whose components are `other`.
    pub fn with_components(other: [f64; 4]) -> P4 {
        P4 {
            form: Form::Cartesian(other),
        }
    }

    /// `v * a` (also `a * v`, `v / b` with `a = 1 / b`, `-v` with `a = -1`): GenVector's
    /// `PtEtaPhiM4D::Scale`, which multiplies `pt` and `m` by `|a|` and, for a negative `a`,
    /// turns the vector around first (`eta` negated, `phi` moved by pi).
    pub fn scaled(&self, a: f64) -> P4 {
        let [pt, mut eta, mut phi, m] = self.coordinates();
        let mut a = a;
        if a < 0.0 {
            let pi = std::f64::consts::PI;
            phi = if phi > 0.0 { phi - pi } else { phi + pi };
            eta = -eta;
            a = -a;
        }
        polar(pt * a, eta, phi, m * a)
    }

    /// `a - b`.
    pub fn sub(&self, other: &P4) -> P4 {
        let (a, b) = (self.cartesian(), other.cartesian());
        P4 {
            form: Form::Cartesian([a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]]),
        }
    }
}

/// `vectors[at[0][t]] + vectors[at[1][t]] + ...` for every `t`, added left to right as
/// [`P4::add`] adds them. A partial sum is converted to ROOT's coordinates before the next
/// vector is added: before the last, that conversion is deferred (the sum's values are
/// those of the converted sum); before the others it is remembered by the sum's bits and
/// reused while the sum repeats, which gives the same components.
pub fn sums_at(vectors: &[P4], at: &[Vec<usize>]) -> Vec<P4> {
    let Some((first, rest)) = at.split_first() else {
        return Vec::new();
    };
    let Some((last_step, middle)) = rest.split_last() else {
        return first.iter().map(|&i| vectors[i]).collect();
    };
    let mut seen: Vec<Option<([u64; 4], [f64; 4])>> = vec![None; middle.len()];
    (0..first.len())
        .map(|t| {
            let mut sum = vectors[first[t]].cartesian();
            for (step, positions) in middle.iter().enumerate() {
                let converted = if step == 0 {
                    sum
                } else {
                    let bits = sum.map(f64::to_bits);
                    match seen[step] {
                        Some((bits_seen, components)) if bits_seen == bits => components,
                        _ => {
                            let components = P4 {
                                form: Form::Cartesian(sum),
                            }
                            .cartesian();
                            seen[step] = Some((bits, components));
                            components
                        }
                    }
                };
                let next = vectors[positions[t]].cartesian();
                sum = [
                    converted[0] + next[0],
                    converted[1] + next[1],
                    converted[2] + next[2],
                    converted[3] + next[3],
                ];
            }
            let next = vectors[last_step[t]].cartesian();
            let form = if middle.is_empty() {
                Form::Cartesian([
                    sum[0] + next[0],
                    sum[1] + next[1],
                    sum[2] + next[2],
                    sum[3] + next[3],
                ])
            } else {
                Form::Deferred { partial: sum, next }
            };
            P4 { form }
        })
        .collect()
}

/// `M()` of Cartesian components: negative for a negative squared mass.
pub(super) fn mass(c: [f64; 4]) -> f64 {
    signed_root(squared_mass(c))
}

/// `M2()` of Cartesian components, as ROOT computes it.
pub(super) fn squared_mass([x, y, z, t]: [f64; 4]) -> f64 {
    t * t - x * x - y * y - z * z
}

/// The square root of `x`'s magnitude, with `x`'s sign: ROOT's mass of a squared mass.
pub(super) fn signed_root(x: f64) -> f64 {
    if x >= 0.0 {
        x.sqrt()
    } else {
        -(-x).sqrt()
    }
}

/// The components of a partial sum after ROOT's conversion to its coordinates and back.
/// The last conversion made on this thread is remembered by the sum's bits: the trijets
/// of one pair follow each other.
fn converted(sum: [f64; 4]) -> [f64; 4] {
    thread_local! {
        static LAST: Cell<Option<([u64; 4], [f64; 4])>> = const { Cell::new(None) };
    }
    let bits = sum.map(f64::to_bits);
    LAST.with(|last| match last.get() {
        Some((seen, components)) if seen == bits => components,
        _ => {
            let components = P4 {
                form: Form::Cartesian(sum),
            }
            .cartesian();
            last.set(Some((bits, components)));
            components
        }
    })
}

/// `[Px(), Py()]` of a partial sum after ROOT's conversion to its coordinates and back:
/// the first two of [`converted`]'s components, with the same bits.
fn converted_transverse([x, y, z, t]: [f64; 4]) -> [f64; 2] {
    let sum = P4 {
        form: Form::Cartesian([x, y, z, t]),
    };
    let (pt, phi) = (sum.pt(), sum.phi());
    [pt * phi.cos(), pt * phi.sin()]
}

/// A vector of these coordinates (`phi` in range) with its Cartesian components.
fn polar(pt: f64, eta: f64, phi: f64, m: f64) -> P4 {
    let pz = longitudinal(pt, eta);
    let p = momentum(pt, eta);
    let e2 = p * p + signed_square(m);
    let e = if e2 > 0.0 { e2.sqrt() } else { 0.0 };
    P4 {
        form: Form::Polar {
            pt,
            eta,
            phi,
            m,
            cartesian: [pt * phi.cos(), pt * phi.sin(), pz, e],
        },
    }
}

/// An azimuth brought into (-pi, pi] as GenVector's polar systems' constructors bring it.
#[inline]
pub(super) fn restricted_phi(phi: f64) -> f64 {
    let pi = std::f64::consts::PI;
    if phi <= -pi || phi > pi {
        phi - (phi / (2.0 * pi) + 0.5).floor() * 2.0 * pi
    } else {
        phi
    }
}

/// `Pz()` of a polar system's `pt` and `eta`: `pt sinh(eta)`, or along the beam, where
/// `pt` is 0, what `eta` holds beyond ROOT's `etaMax`.
#[inline]
pub(super) fn longitudinal(pt: f64, eta: f64) -> f64 {
    if pt > 0.0 {
        pt * eta.sinh()
    } else if eta == 0.0 {
        0.0
    } else if eta > 0.0 {
        eta - ETA_MAX
    } else {
        eta + ETA_MAX
    }
}

/// `P()` of these coordinates.
#[inline]
pub(super) fn momentum(pt: f64, eta: f64) -> f64 {
    if pt > 0.0 {
        pt * eta.cosh()
    } else if eta > ETA_MAX {
        eta - ETA_MAX
    } else if eta < -ETA_MAX {
        -eta - ETA_MAX
    } else {
        0.0
    }
}

/// `M2()` of a mass: negative for a negative mass.
pub(super) fn signed_square(m: f64) -> f64 {
    if m >= 0.0 {
        m * m
    } else {
        -m * m
    }
}

/// ROOT's `Impl::Eta_FromRhoZ`.
pub(super) fn eta_from_rho_z(rho: f64, z: f64) -> f64 {
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
        assert!((s.m() - 90.0).abs() < 1e-9 && s.pt() < 1e-9, "{s:?}");
        // Mass and energy of one vector; phi brought into range.
        let v = P4::new(30.0, 1.2, 7.0, 5.0);
        assert!((v.phi() - (7.0 - 2.0 * std::f64::consts::PI)).abs() < 1e-12);
        let e = ((30.0f64 * 1.2f64.cosh()).powi(2) + 25.0).sqrt();
        assert_eq!(v.e(), e);
        // A vector along the beam.
        let beam = P4 {
            form: Form::Cartesian([0.0, 0.0, 5.0, 5.0]),
        };
        assert_eq!(beam.eta(), 5.0 + ETA_MAX);
    }

    /// The sum as ROOT computes it, written out: every component of both vectors from
    /// their coordinates, the sums converted to all four coordinates at once.
    fn reference_sum(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        let cart = |[pt, eta, phi, m]: [f64; 4]| {
            let p = pt * eta.cosh();
            [
                pt * phi.cos(),
                pt * phi.sin(),
                pt * eta.sinh(),
                (p * p + m * m).sqrt(),
            ]
        };
        let (u, v) = (cart(a), cart(b));
        let (x, y, z, t) = (u[0] + v[0], u[1] + v[1], u[2] + v[2], u[3] + v[3]);
        let pt = (x * x + y * y).sqrt();
        let mm = t * t - x * x - y * y - z * z;
        [
            pt,
            eta_from_rho_z(pt, z),
            y.atan2(x),
            if mm >= 0.0 { mm.sqrt() } else { -(-mm).sqrt() },
        ]
    }

    #[test]
    fn sums_converted_late_have_the_bits_of_sums_converted_at_once() {
        let jets = [
            [41.3, 0.7, 2.9, 6.1],
            [87.0, -1.9, -0.4, 11.2],
            [25.5, 2.4, 1.1, 3.3],
        ];
        let v = |k: usize| P4::new(jets[k][0], jets[k][1], jets[k][2], jets[k][3]);
        let pair = v(0).add(&v(1));
        assert_eq!(pair.coordinates(), reference_sum(jets[0], jets[1]));
        // A sum used in another sum goes through its coordinates first, as ROOT's does.
        let trijet = pair.add(&v(2));
        assert_eq!(
            trijet.coordinates(),
            reference_sum(pair.coordinates(), jets[2])
        );
        assert_eq!(trijet.e(), v(0).add(&v(1)).add(&v(2)).as_polar().e());
    }

    #[test]
    fn sums_at_positions_have_the_bits_of_sums_made_one_by_one() {
        let v = |k: usize| {
            P4::new(
                20.0 + 7.5 * k as f64,
                0.3 * k as f64 - 1.1,
                0.9 * k as f64,
                4.0,
            )
        };
        let jets: Vec<P4> = (0..6).map(v).collect();
        // Trijets in Combinations' order (a pair repeats for every third jet after it), and
        // a pair seen before coming back after another.
        let mut at = vec![Vec::new(), Vec::new(), Vec::new()];
        for i in 0..6 {
            for j in i + 1..6 {
                for k in j + 1..6 {
                    [i, j, k].iter().zip(&mut at).for_each(|(&p, a)| a.push(p));
                }
            }
        }
        [0, 1, 5].iter().zip(&mut at).for_each(|(&p, a)| a.push(p));
        let sums = sums_at(&jets, &at);
        assert_eq!(sums.len(), 21);
        for (t, sum) in sums.iter().enumerate() {
            let one_by_one = jets[at[0][t]].add(&jets[at[1][t]]).add(&jets[at[2][t]]);
            assert_eq!(
                sum.coordinates().map(f64::to_bits),
                one_by_one.coordinates().map(f64::to_bits),
                "trijet {t}"
            );
            assert_eq!(sum.pt().to_bits(), one_by_one.pt().to_bits(), "trijet {t}");
        }
        let pairs = sums_at(&jets, &at[..2]);
        assert_eq!(pairs[7], jets[at[0][7]].add(&jets[at[1][7]]));
        assert_eq!(sums_at(&jets, &at[..1])[3], jets[at[0][3]]);
    }
}
