//! Synthetic events with the columns of the ADL benchmark's CMS open-data file
//! (`Run2012B_SingleMu.root`): MET, jets, muons, electrons, photons, taus, the primary
//! vertex, with realistic multiplicities, and Z bosons decaying to muon or electron pairs
//! (so that the benchmark's dilepton queries select events). As a TTree, collections are
//! NanoAOD's counters and counted arrays (`nJet`, `Jet_pt[nJet]`), as in the file.

use rootweave::rntuple::{ColumnData, Field, FieldType};
use rootweave::Result;

use crate::random::Rng;

/// Events per chunk.
pub const CHUNK_EVENTS: u64 = 10_000;

/// The kinds of a member's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    F32,
    I32,
    Bool,
}

/// The members of each collection, after its name (`Jet` has `Jet_pt`, ...): the four
/// momentum components first.
const COLLECTIONS: [(&str, &[(&str, Kind)]); 5] = [
    (
        "Jet",
        &[
            ("pt", Kind::F32),
            ("eta", Kind::F32),
            ("phi", Kind::F32),
            ("mass", Kind::F32),
            ("puId", Kind::Bool),
            ("btag", Kind::F32),
        ],
    ),
    (
        "Muon",
        &[
            ("pt", Kind::F32),
            ("eta", Kind::F32),
            ("phi", Kind::F32),
            ("mass", Kind::F32),
            ("charge", Kind::I32),
            ("pfRelIso03_all", Kind::F32),
            ("pfRelIso04_all", Kind::F32),
            ("tightId", Kind::Bool),
            ("softId", Kind::Bool),
            ("dxy", Kind::F32),
            ("dxyErr", Kind::F32),
            ("dz", Kind::F32),
            ("dzErr", Kind::F32),
        ],
    ),
    (
        "Electron",
        &[
            ("pt", Kind::F32),
            ("eta", Kind::F32),
            ("phi", Kind::F32),
            ("mass", Kind::F32),
            ("charge", Kind::I32),
            ("pfRelIso03_all", Kind::F32),
            ("dxy", Kind::F32),
            ("dxyErr", Kind::F32),
            ("dz", Kind::F32),
            ("dzErr", Kind::F32),
            ("cutBasedId", Kind::Bool),
        ],
    ),
    (
        "Photon",
        &[
            ("pt", Kind::F32),
            ("eta", Kind::F32),
            ("phi", Kind::F32),
            ("mass", Kind::F32),
            ("charge", Kind::I32),
            ("pfRelIso03_all", Kind::F32),
        ],
    ),
    (
        "Tau",
        &[
            ("pt", Kind::F32),
            ("eta", Kind::F32),
            ("phi", Kind::F32),
            ("mass", Kind::F32),
            ("charge", Kind::I32),
            ("decayMode", Kind::I32),
            ("relIso_all", Kind::F32),
        ],
    ),
];

/// The event-level columns (all `float` but `PV_npvs`, an `int`).
const EVENT_FLOATS: [&str; 6] = ["MET_pt", "MET_phi", "MET_sumet", "PV_x", "PV_y", "PV_z"];

/// The fields of the `adl` schema: `run`, `luminosityBlock`, `event`, the event-level
/// columns, `PV_npvs`, then each collection as a collection of records whose members are
/// named `<collection>_<member>` (`nJet` and `Jet_pt[nJet]` as TTree branches).
pub fn adl_fields() -> Vec<Field> {
    let mut fields = vec![
        Field::new("run", FieldType::UInt32),
        Field::new("luminosityBlock", FieldType::UInt32),
        Field::new("event", FieldType::UInt64),
    ];
    fields.extend(
        EVENT_FLOATS
            .iter()
            .map(|n| Field::new(*n, FieldType::Float32)),
    );
    fields.push(Field::new("PV_npvs", FieldType::Int32));
    for (name, members) in COLLECTIONS {
        let record = members
            .iter()
            .map(|(m, kind)| {
                let ty = match kind {
                    Kind::F32 => FieldType::Float32,
                    Kind::I32 => FieldType::Int32,
                    Kind::Bool => FieldType::Bool,
                };
                Field::new(format!("{name}_{m}"), ty)
            })
            .collect();
        fields.push(Field::new(
            name,
            FieldType::untyped_collection(FieldType::untyped_record(record)),
        ));
    }
    fields
}

/// One collection's items of a chunk: offsets, then per member its values.
#[derive(Debug, Default, Clone, PartialEq)]
struct Items {
    offsets: Vec<u64>,
    floats: Vec<Vec<f32>>,
    ints: Vec<Vec<i32>>,
    bools: Vec<Vec<bool>>,
}

/// The events of one chunk of the `adl` schema.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct AdlChunk {
    run: Vec<u32>,
    lumi: Vec<u32>,
    event: Vec<u64>,
    floats: Vec<Vec<f32>>,
    npvs: Vec<i32>,
    collections: Vec<Items>,
}

/// A particle's momentum, charge and mass.
#[derive(Clone, Copy)]
struct Particle {
    pt: f32,
    eta: f32,
    phi: f32,
    charge: i32,
}

fn phi(rng: &mut Rng) -> f32 {
    ((rng.uniform() * 2.0 - 1.0) * std::f64::consts::PI) as f32
}

fn eta(rng: &mut Rng, width: f64, limit: f64) -> f32 {
    rng.normal(0.0, width).clamp(-limit, limit) as f32
}

/// A number of objects: `weights[k]` is the chance of `k` of them.
fn multiplicity(rng: &mut Rng, weights: &[f64]) -> usize {
    let mut u = rng.uniform();
    for (k, w) in weights.iter().enumerate() {
        if u < *w {
            return k;
        }
        u -= w;
    }
    weights.len()
}

/// Two leptons of opposite charge from a Z boson (its mass drawn around 91.19 GeV): the
/// first drawn, the second's pt solved for the pair's mass (massless approximation).
fn z_pair(rng: &mut Rng, limit: f64) -> [Particle; 2] {
    let mass = rng.normal(91.19, 2.5).max(20.0);
    loop {
        let (pt1, eta1, phi1) = (20.0 + rng.exponential(20.0), eta(rng, 1.2, limit), phi(rng));
        let (eta2, phi2) = (eta(rng, 1.2, limit), phi(rng));
        let shape = (eta1 as f64 - eta2 as f64).cosh() - (phi1 as f64 - phi2 as f64).cos();
        let pt2 = mass * mass / (2.0 * pt1 * shape.max(1e-9));
        if (5.0..500.0).contains(&pt2) {
            let charge = if rng.chance(0.5) { 1 } else { -1 };
            return [
                Particle {
                    pt: pt1 as f32,
                    eta: eta1,
                    phi: phi1,
                    charge,
                },
                Particle {
                    pt: pt2 as f32,
                    eta: eta2,
                    phi: phi2,
                    charge: -charge,
                },
            ];
        }
    }
}

impl AdlChunk {
    /// Generates chunk `index` of a dataset seeded with `seed`: `n_events` events from
    /// event `index * CHUNK_EVENTS`.
    pub fn generate_into(&mut self, seed: u64, index: u64, n_events: usize) {
        let mut rng = Rng::for_chunk(seed ^ 0xad1, index);
        *self = AdlChunk {
            floats: vec![Vec::with_capacity(n_events); EVENT_FLOATS.len()],
            collections: COLLECTIONS
                .iter()
                .map(|(_, members)| {
                    let count = |k: Kind| members.iter().filter(|(_, m)| *m == k).count();
                    Items {
                        offsets: vec![0],
                        floats: vec![Vec::new(); count(Kind::F32)],
                        ints: vec![Vec::new(); count(Kind::I32)],
                        bools: vec![Vec::new(); count(Kind::Bool)],
                    }
                })
                .collect(),
            ..AdlChunk::default()
        };
        let first = index * CHUNK_EVENTS;
        for e in 0..n_events as u64 {
            self.run.push(194_000 + ((first + e) / 1_000_000) as u32);
            self.lumi.push(1 + ((first + e) / 1000 % 2000) as u32);
            self.event.push(first + e + 1);
            let met = rng.exponential(25.0) as f32;
            for (column, value) in self.floats.iter_mut().zip([
                met,
                phi(&mut rng),
                (200.0 + rng.exponential(300.0)) as f32,
                rng.normal(0.07, 0.01) as f32,
                rng.normal(0.06, 0.01) as f32,
                rng.normal(0.0, 5.0) as f32,
            ]) {
                column.push(value);
            }
            self.npvs.push(1 + rng.below(30) as i32);
            // Z bosons: to muons in 8% of events, to electrons in 5%.
            let z_muons = rng.chance(0.08).then(|| z_pair(&mut rng, 2.4));
            let z_electrons = rng.chance(0.05).then(|| z_pair(&mut rng, 2.5));
            let extra = [
                multiplicity(&mut rng, &[0.10, 0.20, 0.25, 0.20, 0.12, 0.07, 0.03, 0.02]),
                multiplicity(&mut rng, &[0.55, 0.30, 0.10, 0.04]),
                multiplicity(&mut rng, &[0.65, 0.25, 0.07, 0.02]),
                multiplicity(&mut rng, &[0.70, 0.20, 0.07]),
                multiplicity(&mut rng, &[0.80, 0.15]),
            ];
            for (c, ((name, _), n)) in COLLECTIONS.iter().zip(extra).enumerate() {
                let mut particles: Vec<Particle> = match (*name, &z_muons, &z_electrons) {
                    ("Muon", Some(pair), _) | ("Electron", _, Some(pair)) => pair.to_vec(),
                    _ => Vec::new(),
                };
                let (mean_pt, min_pt, limit) = match *name {
                    "Jet" => (30.0, 15.0, 4.7),
                    "Muon" | "Electron" => (15.0, 3.0, 2.5),
                    _ => (15.0, 10.0, 2.5),
                };
                for _ in 0..n {
                    particles.push(Particle {
                        pt: (min_pt + rng.exponential(mean_pt)) as f32,
                        eta: eta(&mut rng, 1.6, limit),
                        phi: phi(&mut rng),
                        charge: if rng.chance(0.5) { 1 } else { -1 },
                    });
                }
                // Highest pt first, as in NanoAOD.
                particles.sort_by(|a, b| b.pt.total_cmp(&a.pt));
                let items = &mut self.collections[c];
                for p in &particles {
                    let mass = match *name {
                        "Jet" => p.pt * (0.05 + 0.15 * rng.uniform() as f32),
                        "Muon" => 0.105_658_4,
                        "Electron" => 0.000_511,
                        "Tau" => 1.777,
                        _ => 0.0,
                    };
                    let mut fk = 0;
                    let mut ik = 0;
                    let mut bk = 0;
                    for (m, kind) in COLLECTIONS[c].1 {
                        match kind {
                            Kind::F32 => {
                                let v = match *m {
                                    "pt" => p.pt,
                                    "eta" => p.eta,
                                    "phi" => p.phi,
                                    "mass" => mass,
                                    "btag" => rng.uniform().powi(3) as f32,
                                    "dxy" | "dz" => rng.normal(0.0, 0.01) as f32,
                                    _ => (rng.exponential(0.1)) as f32,
                                };
                                items.floats[fk].push(v);
                                fk += 1;
                            }
                            Kind::I32 => {
                                let v = match *m {
                                    "charge" if *name != "Photon" => p.charge,
                                    "decayMode" => rng.below(12) as i32,
                                    _ => 0,
                                };
                                items.ints[ik].push(v);
                                ik += 1;
                            }
                            Kind::Bool => {
                                items.bools[bk].push(rng.chance(0.8));
                                bk += 1;
                            }
                        }
                    }
                }
                let end = items.offsets.last().copied().unwrap_or(0) + particles.len() as u64;
                items.offsets.push(end);
            }
        }
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.run.len()
    }

    /// True if the chunk has no events.
    pub fn is_empty(&self) -> bool {
        self.run.is_empty()
    }

    /// Calls `f` with the chunk as one batch per field of [`adl_fields`].
    pub fn with_columns<T>(&self, f: impl FnOnce(&[ColumnData]) -> Result<T>) -> Result<T> {
        let mut columns = vec![
            ColumnData::UInt32(&self.run),
            ColumnData::UInt32(&self.lumi),
            ColumnData::UInt64(&self.event),
        ];
        columns.extend(self.floats.iter().map(|v| ColumnData::Float32(v)));
        columns.push(ColumnData::Int32(&self.npvs));
        for ((_, members), items) in COLLECTIONS.iter().zip(&self.collections) {
            let (mut fk, mut ik, mut bk) = (0, 0, 0);
            let record = members
                .iter()
                .map(|(_, kind)| match kind {
                    Kind::F32 => {
                        fk += 1;
                        ColumnData::Float32(&items.floats[fk - 1])
                    }
                    Kind::I32 => {
                        ik += 1;
                        ColumnData::Int32(&items.ints[ik - 1])
                    }
                    Kind::Bool => {
                        bk += 1;
                        ColumnData::Bool(&items.bools[bk - 1])
                    }
                })
                .collect();
            columns.push(ColumnData::list(&items.offsets, ColumnData::Record(record)));
        }
        f(&columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_repeat_and_hold_z_pairs() {
        let mut a = AdlChunk::default();
        a.generate_into(3, 2, 2000);
        let mut b = AdlChunk::default();
        b.generate_into(3, 2, 2000);
        assert_eq!(a, b);
        assert_eq!(a.event[0], 20_001);
        let muons = &a.collections[1];
        let pairs = muons
            .offsets
            .windows(2)
            .filter(|w| w[1] - w[0] >= 2)
            .count();
        assert!(pairs > 100, "{pairs}");
        let fields = adl_fields();
        a.with_columns(|c| {
            assert_eq!(c.len(), fields.len());
            Ok(())
        })
        .unwrap();
    }
}
