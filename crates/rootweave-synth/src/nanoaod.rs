//! Synthetic NanoAOD-like events for `rootweave generate`.
//!
//! Events are made in chunks of [`CHUNK_EVENTS`]; chunk `k` draws from a generator seeded
//! with the dataset seed and `k`, so the same seed gives the same events whether chunks
//! are made in order, out of order, or on several threads.

use rootweave::rntuple::{ColumnData, Field, FieldType};
use rootweave::Result;

use crate::random::Rng;

/// Events per chunk.
pub const CHUNK_EVENTS: u64 = 10_000;

const MUON_MASS: f32 = 0.105_658_4;
const DATASETS: [&str; 3] = [
    "/TTJets_TuneCUETP8M1_13TeV-madgraphMLM-pythia8/RunIIFall15MiniAODv2/NANOAOD",
    "/DYJetsToLL_M-50_TuneCUETP8M1_13TeV-amcatnloFXFX-pythia8/RunIIFall15/NANOAOD",
    "/SingleMuon/Run2015D-16Dec2015-v1/NANOAOD",
];

/// The schema of the `Events` RNTuple written by `rootweave generate`.
pub fn nanoaod_fields() -> Vec<Field> {
    let f32v = || FieldType::vector(FieldType::Float32);
    vec![
        Field::new("run", FieldType::UInt32),
        Field::new("luminosityBlock", FieldType::UInt32),
        Field::new("event", FieldType::UInt64),
        Field::new("MET_pt", FieldType::Float32),
        Field::new("MET_phi", FieldType::Float32),
        Field::new("genWeight", FieldType::Float64),
        Field::new("HLT_IsoMu24", FieldType::Bool),
        Field::new(
            "Muon",
            FieldType::untyped_collection(FieldType::untyped_record(vec![
                Field::new("Muon_pt", FieldType::Float32),
                Field::new("Muon_eta", FieldType::Float32),
                Field::new("Muon_phi", FieldType::Float32),
                Field::new("Muon_mass", FieldType::Float32),
                Field::new("Muon_charge", FieldType::Int32),
                Field::new("Muon_tightId", FieldType::Bool),
            ])),
        ),
        Field::new("Jet_pt", f32v()),
        Field::new("Jet_eta", f32v()),
        Field::new("Jet_btag", f32v()),
        Field::new("Electron_pt", f32v()),
        Field::new(
            "Track_hits",
            FieldType::vector(FieldType::vector(FieldType::Int32)),
        ),
        Field::new("beamSpot", FieldType::array(FieldType::Float32, 3)),
        Field::new("dataset", FieldType::String),
    ]
}

/// The events of one chunk, column by column.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct NanoAodChunk {
    /// `run`
    pub run: Vec<u32>,
    /// `luminosityBlock`
    pub luminosity_block: Vec<u32>,
    /// `event`
    pub event: Vec<u64>,
    /// `MET_pt`
    pub met_pt: Vec<f32>,
    /// `MET_phi`
    pub met_phi: Vec<f32>,
    /// `genWeight`
    pub gen_weight: Vec<f64>,
    /// `HLT_IsoMu24`
    pub hlt_iso_mu24: Vec<bool>,
    /// Offsets of the muons of each event.
    pub muon_offsets: Vec<u64>,
    /// `Muon.Muon_pt`
    pub muon_pt: Vec<f32>,
    /// `Muon.Muon_eta`
    pub muon_eta: Vec<f32>,
    /// `Muon.Muon_phi`
    pub muon_phi: Vec<f32>,
    /// `Muon.Muon_mass`
    pub muon_mass: Vec<f32>,
    /// `Muon.Muon_charge`
    pub muon_charge: Vec<i32>,
    /// `Muon.Muon_tightId`
    pub muon_tight_id: Vec<bool>,
    /// Offsets of the jets of each event.
    pub jet_offsets: Vec<u64>,
    /// `Jet_pt`
    pub jet_pt: Vec<f32>,
    /// `Jet_eta`
    pub jet_eta: Vec<f32>,
    /// `Jet_btag`
    pub jet_btag: Vec<f32>,
    /// Offsets of the electrons of each event.
    pub electron_offsets: Vec<u64>,
    /// `Electron_pt`
    pub electron_pt: Vec<f32>,
    /// Offsets of the tracks of each event.
    pub track_offsets: Vec<u64>,
    /// Offsets of the hits of each track.
    pub hit_offsets: Vec<u64>,
    /// `Track_hits` values.
    pub hits: Vec<i32>,
    /// `beamSpot`, three values per event.
    pub beam_spot: Vec<f32>,
    /// Offsets of the `dataset` strings.
    pub dataset_offsets: Vec<u64>,
    /// Characters of the `dataset` strings.
    pub dataset_bytes: Vec<u8>,
}

fn uniform_phi(rng: &mut Rng) -> f32 {
    ((rng.uniform() * 2.0 - 1.0) * std::f64::consts::PI) as f32
}

impl NanoAodChunk {
    /// Generates chunk `index` of a dataset seeded with `seed`: events
    /// `index * CHUNK_EVENTS ..` up to `n_events` of them.
    pub fn generate(seed: u64, index: u64, n_events: usize) -> Self {
        let mut chunk = NanoAodChunk::default();
        chunk.generate_into(seed, index, n_events);
        chunk
    }

    /// [`NanoAodChunk::generate`] into the memory of this chunk, whose events are replaced
    /// (a generator that reuses its chunks costs no page faults for new memory).
    pub fn generate_into(&mut self, seed: u64, index: u64, n_events: usize) {
        self.clear();
        let c = self;
        let mut rng = Rng::for_chunk(seed, index);
        let first_event = index * CHUNK_EVENTS;
        for offsets in [
            &mut c.muon_offsets,
            &mut c.jet_offsets,
            &mut c.electron_offsets,
            &mut c.track_offsets,
            &mut c.hit_offsets,
            &mut c.dataset_offsets,
        ] {
            offsets.push(0);
        }
        for i in 0..n_events as u64 {
            let event = first_event + i;
            c.run.push(1 + (event / 1_000_000) as u32);
            c.luminosity_block.push(1 + (event / 2_000) as u32);
            c.event.push(event + 1);
            c.met_pt.push(rng.exponential(30.0) as f32);
            c.met_phi.push(uniform_phi(&mut rng));
            c.gen_weight
                .push(if rng.chance(0.9) { 1.0 } else { -1.0 } * (1.0 + 0.1 * rng.uniform()));
            c.hlt_iso_mu24.push(rng.chance(0.3));

            let n_muons = rng.below(9).min(rng.below(9)) as usize;
            for _ in 0..n_muons {
                c.muon_pt.push((3.0 + rng.exponential(20.0)) as f32);
                c.muon_eta
                    .push(rng.normal(0.0, 1.2).clamp(-2.4, 2.4) as f32);
                c.muon_phi.push(uniform_phi(&mut rng));
                c.muon_mass.push(MUON_MASS);
                c.muon_charge.push(if rng.chance(0.5) { 1 } else { -1 });
                c.muon_tight_id.push(rng.chance(0.7));
            }
            c.muon_offsets.push(c.muon_pt.len() as u64);

            let n_jets = rng.below(9) as usize;
            for _ in 0..n_jets {
                c.jet_pt.push((15.0 + rng.exponential(40.0)) as f32);
                c.jet_eta.push(rng.normal(0.0, 2.0).clamp(-4.7, 4.7) as f32);
                c.jet_btag.push(rng.uniform() as f32);
            }
            c.jet_offsets.push(c.jet_pt.len() as u64);

            let n_electrons = rng.below(4) as usize;
            for _ in 0..n_electrons {
                c.electron_pt.push((5.0 + rng.exponential(15.0)) as f32);
            }
            c.electron_offsets.push(c.electron_pt.len() as u64);

            let n_tracks = rng.below(5);
            for _ in 0..n_tracks {
                let n_hits = rng.below(7);
                for _ in 0..n_hits {
                    c.hits.push(rng.below(1000) as i32);
                }
                c.hit_offsets.push(c.hits.len() as u64);
            }
            c.track_offsets.push(c.hit_offsets.len() as u64 - 1);

            c.beam_spot.extend([
                rng.normal(0.0, 0.002) as f32,
                rng.normal(0.0, 0.002) as f32,
                rng.normal(0.0, 5.0) as f32,
            ]);

            let dataset = DATASETS[(event / 50_000) as usize % DATASETS.len()];
            c.dataset_bytes.extend_from_slice(dataset.as_bytes());
            c.dataset_offsets.push(c.dataset_bytes.len() as u64);
        }
    }

    /// Removes every event, keeping the memory.
    fn clear(&mut self) {
        // Named one by one, so that a new column cannot be forgotten here.
        let NanoAodChunk {
            run,
            luminosity_block,
            event,
            met_pt,
            met_phi,
            gen_weight,
            hlt_iso_mu24,
            muon_offsets,
            muon_pt,
            muon_eta,
            muon_phi,
            muon_mass,
            muon_charge,
            muon_tight_id,
            jet_offsets,
            jet_pt,
            jet_eta,
            jet_btag,
            electron_offsets,
            electron_pt,
            track_offsets,
            hit_offsets,
            hits,
            beam_spot,
            dataset_offsets,
            dataset_bytes,
        } = self;
        run.clear();
        luminosity_block.clear();
        event.clear();
        met_pt.clear();
        met_phi.clear();
        gen_weight.clear();
        hlt_iso_mu24.clear();
        muon_offsets.clear();
        muon_pt.clear();
        muon_eta.clear();
        muon_phi.clear();
        muon_mass.clear();
        muon_charge.clear();
        muon_tight_id.clear();
        jet_offsets.clear();
        jet_pt.clear();
        jet_eta.clear();
        jet_btag.clear();
        electron_offsets.clear();
        electron_pt.clear();
        track_offsets.clear();
        hit_offsets.clear();
        hits.clear();
        beam_spot.clear();
        dataset_offsets.clear();
        dataset_bytes.clear();
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.run.len()
    }

    /// True if the chunk has no events.
    pub fn is_empty(&self) -> bool {
        self.run.is_empty()
    }

    /// Calls `f` with the chunk as one batch per field of [`nanoaod_fields`].
    pub fn with_columns<T>(&self, f: impl FnOnce(&[ColumnData]) -> Result<T>) -> Result<T> {
        let muons = ColumnData::Record(vec![
            ColumnData::Float32(&self.muon_pt),
            ColumnData::Float32(&self.muon_eta),
            ColumnData::Float32(&self.muon_phi),
            ColumnData::Float32(&self.muon_mass),
            ColumnData::Int32(&self.muon_charge),
            ColumnData::Bool(&self.muon_tight_id),
        ]);
        let tracks = ColumnData::list(&self.hit_offsets, ColumnData::Int32(&self.hits));
        let columns = [
            ColumnData::UInt32(&self.run),
            ColumnData::UInt32(&self.luminosity_block),
            ColumnData::UInt64(&self.event),
            ColumnData::Float32(&self.met_pt),
            ColumnData::Float32(&self.met_phi),
            ColumnData::Float64(&self.gen_weight),
            ColumnData::Bool(&self.hlt_iso_mu24),
            ColumnData::list(&self.muon_offsets, muons),
            ColumnData::list(&self.jet_offsets, ColumnData::Float32(&self.jet_pt)),
            ColumnData::list(&self.jet_offsets, ColumnData::Float32(&self.jet_eta)),
            ColumnData::list(&self.jet_offsets, ColumnData::Float32(&self.jet_btag)),
            ColumnData::list(
                &self.electron_offsets,
                ColumnData::Float32(&self.electron_pt),
            ),
            ColumnData::list(&self.track_offsets, tracks),
            ColumnData::array(ColumnData::Float32(&self.beam_spot)),
            ColumnData::StringBytes {
                offsets: &self.dataset_offsets,
                bytes: &self.dataset_bytes,
            },
        ];
        f(&columns)
    }
}

/// Calls `f` with every chunk of an `n_events` dataset seeded with `seed`, in order.
pub fn for_each_chunk(
    seed: u64,
    n_events: u64,
    mut f: impl FnMut(&NanoAodChunk) -> Result<()>,
) -> Result<()> {
    let n_chunks = n_events.div_ceil(CHUNK_EVENTS);
    for index in 0..n_chunks {
        let n = (n_events - index * CHUNK_EVENTS).min(CHUNK_EVENTS) as usize;
        f(&NanoAodChunk::generate(seed, index, n))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_events() {
        let a = NanoAodChunk::generate(7, 3, 100);
        let b = NanoAodChunk::generate(7, 3, 100);
        assert_eq!(a.met_pt, b.met_pt);
        assert_eq!(a.hits, b.hits);
        let c = NanoAodChunk::generate(8, 3, 100);
        assert_ne!(a.met_pt, c.met_pt);
        assert_eq!(a.event[0], 30_001);
    }

    #[test]
    fn multiplicities_are_within_zero_to_eight() {
        let c = NanoAodChunk::generate(1, 0, 5000);
        let counts = |o: &[u64]| o.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>();
        let muons = counts(&c.muon_offsets);
        let jets = counts(&c.jet_offsets);
        assert!(muons.iter().all(|&n| n <= 8) && muons.contains(&0));
        assert!(jets.iter().all(|&n| n <= 8) && jets.contains(&8));
        assert_eq!(c.beam_spot.len(), 3 * c.len());
        assert_eq!(
            *c.track_offsets.last().unwrap() as usize + 1,
            c.hit_offsets.len()
        );
    }
}
