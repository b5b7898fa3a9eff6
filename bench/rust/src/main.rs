//! rootweave's side of `bench/rntuple_write.py`: writes the same values as ROOT's side
//! (`bench/cpp/root_write.cxx`) and prints the time of the writing alone; and of
//! `bench/rntuple_read.py` (see `read.rs`), `bench/ttree_read.py` (see `ttree.rs`),
//! `bench/analysis.py` (see `analysis.rs`) and `bench/cpp_write.py` (see `fill.rs`).
//!
//! ```text
//! rootweave-bench int32 OUT ENTRIES COMPRESSION
//! rootweave-bench nanoaod OUT DUMP_DIR COMPRESSION
//! rootweave-bench read FILE NTUPLE THREADS VERIFY BUDGET_MIB [FIELD...]
//! rootweave-bench stream FILE NTUPLE THREADS VERIFY BUDGET_MIB STEP [FIELD...]
//! rootweave-bench stream-ahead FILE NTUPLE THREADS VERIFY BUDGET_MIB STEP [FIELD...]
//! rootweave-bench stream-parallel FILE NTUPLE THREADS VERIFY BUDGET_MIB STEP [FIELD...]
//! rootweave-bench pages FILE NTUPLE THREADS [FIELD...]
//! rootweave-bench memcpy THREADS MIB
//! rootweave-bench compress-pages FILE NTUPLE COMPRESSION THREADS (see `codec.rs`)
//! rootweave-bench compress-baskets FILE TREE COMPRESSION (see `ttree.rs`)
//! rootweave-bench ttree-read FILE TREE THREADS BUDGET_MIB [BRANCH...]
//! rootweave-bench ttree-baskets FILE TREE THREADS [BRANCH...]
//! rootweave-bench dataset-batches|dataset-parallel THREADS STEP FIELD FILE...
//! rootweave-bench dataset-read THREADS STEP FIELD,FIELD... FILE...
//! rootweave-bench fill-write ntuple|tree|none entry|value|chunk SCHEMA OUT ENTRIES THREADS COMPRESSION BUDGET_MIB
//! ```

mod analysis;
mod codec;
mod fill;
mod read;
mod ttree;

use std::path::Path;
use std::time::Instant;

use rootweave::compress::Compression;
use rootweave::rntuple::{ColumnData, Field, FieldType, RNTupleWriteOptions, RNTupleWriter};
use rootweave_synth::nanoaod::nanoaod_fields;
use rootweave_synth::random::splitmix64;

fn options(compression: &str) -> RNTupleWriteOptions {
    RNTupleWriteOptions::default().with_compression(
        compression
            .parse::<Compression>()
            .expect("compression setting"),
    )
}

/// One `std::int32_t` field: the top 20 bits of successive splitmix64 draws (seed 1).
fn int32(out: &str, entries: u64, compression: &str) -> rootweave::Result<f64> {
    let fields = vec![Field::new("x", FieldType::Int32)];
    println!("rss_before_kib {}", rss_kib());
    let start = Instant::now();
    let mut writer = RNTupleWriter::recreate(out, "ntpl", fields, options(compression))?;
    let mut state = 1u64;
    let mut chunk = vec![0i32; 1 << 16];
    let mut done = 0;
    while done < entries {
        let n = (entries - done).min(chunk.len() as u64) as usize;
        for v in &mut chunk[..n] {
            *v = (splitmix64(&mut state) >> 44) as i32;
        }
        writer.extend(&[ColumnData::Int32(&chunk[..n])])?;
        done += n as u64;
    }
    writer.close()?;
    Ok(start.elapsed().as_secs_f64())
}

fn load<T: bytemuck_free::Pod>(dir: &Path, path: &str) -> Vec<T> {
    let bytes = std::fs::read(dir.join(format!("{path}.bin")))
        .unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    bytemuck_free::from_bytes(&bytes)
}

/// Offsets from per-entry counts.
fn offsets(counts: &[u64]) -> Vec<u64> {
    let mut o = Vec::with_capacity(counts.len() + 1);
    o.push(0);
    let mut end = 0;
    for c in counts {
        end += c;
        o.push(end);
    }
    o
}

/// The NanoAOD-like data from the canonical buffers of `rootweave-testkit --expect`,
/// written in batches of 10,000 events like `rootweave generate` does.
fn nanoaod(out: &str, dir: &Path, compression: &str) -> rootweave::Result<f64> {
    let run: Vec<u32> = load(dir, "run");
    let lumi: Vec<u32> = load(dir, "luminosityBlock");
    let event: Vec<u64> = load(dir, "event");
    let met_pt: Vec<f32> = load(dir, "MET_pt");
    let met_phi: Vec<f32> = load(dir, "MET_phi");
    let gen_weight: Vec<f64> = load(dir, "genWeight");
    let hlt: Vec<bool> = load::<u8>(dir, "HLT_IsoMu24")
        .iter()
        .map(|&b| b != 0)
        .collect();
    let muon = offsets(&load::<u64>(dir, "Muon#counts"));
    let mu_f32: Vec<Vec<f32>> = ["Muon_pt", "Muon_eta", "Muon_phi", "Muon_mass"]
        .iter()
        .map(|m| load(dir, &format!("Muon._0.{m}")))
        .collect();
    let mu_charge: Vec<i32> = load(dir, "Muon._0.Muon_charge");
    let mu_tight: Vec<bool> = load::<u8>(dir, "Muon._0.Muon_tightId")
        .iter()
        .map(|&b| b != 0)
        .collect();
    let jet = offsets(&load::<u64>(dir, "Jet_pt#counts"));
    let jet_pt: Vec<f32> = load(dir, "Jet_pt._0");
    let jet_eta: Vec<f32> = load(dir, "Jet_eta._0");
    let jet_btag: Vec<f32> = load(dir, "Jet_btag._0");
    let ele = offsets(&load::<u64>(dir, "Electron_pt#counts"));
    let ele_pt: Vec<f32> = load(dir, "Electron_pt._0");
    let tracks = offsets(&load::<u64>(dir, "Track_hits#counts"));
    let hit_offsets = offsets(&load::<u64>(dir, "Track_hits._0#counts"));
    let hits: Vec<i32> = load(dir, "Track_hits._0._0");
    let beam: Vec<f32> = load(dir, "beamSpot._0");
    let dataset = offsets(&load::<u64>(dir, "dataset#counts"));
    let dataset_bytes: Vec<u8> = load(dir, "dataset#bytes");

    println!("rss_before_kib {}", rss_kib());
    let start = Instant::now();
    let mut writer =
        RNTupleWriter::recreate(out, "Events", nanoaod_fields(), options(compression))?;
    let n = run.len();
    let step = 10_000;
    let mut s = 0;
    while s < n {
        let e = (s + step).min(n);
        let muons = ColumnData::Record(vec![
            ColumnData::Float32(&mu_f32[0]),
            ColumnData::Float32(&mu_f32[1]),
            ColumnData::Float32(&mu_f32[2]),
            ColumnData::Float32(&mu_f32[3]),
            ColumnData::Int32(&mu_charge),
            ColumnData::Bool(&mu_tight),
        ]);
        let track_items = ColumnData::list(&hit_offsets, ColumnData::Int32(&hits));
        let batch = [
            ColumnData::UInt32(&run[s..e]),
            ColumnData::UInt32(&lumi[s..e]),
            ColumnData::UInt64(&event[s..e]),
            ColumnData::Float32(&met_pt[s..e]),
            ColumnData::Float32(&met_phi[s..e]),
            ColumnData::Float64(&gen_weight[s..e]),
            ColumnData::Bool(&hlt[s..e]),
            ColumnData::list(&muon[s..=e], muons),
            ColumnData::list(&jet[s..=e], ColumnData::Float32(&jet_pt)),
            ColumnData::list(&jet[s..=e], ColumnData::Float32(&jet_eta)),
            ColumnData::list(&jet[s..=e], ColumnData::Float32(&jet_btag)),
            ColumnData::list(&ele[s..=e], ColumnData::Float32(&ele_pt)),
            ColumnData::list(&tracks[s..=e], track_items),
            ColumnData::array(ColumnData::Float32(&beam[3 * s..3 * e])),
            ColumnData::StringBytes {
                offsets: &dataset[s..=e],
                bytes: &dataset_bytes,
            },
        ];
        writer.extend(&batch)?;
        s = e;
    }
    writer.close()?;
    Ok(start.elapsed().as_secs_f64())
}

/// Reading plain-old-data buffers from files without `unsafe`.
mod bytemuck_free {
    /// Fixed-size little-endian values.
    pub trait Pod: Sized {
        /// Size in bytes.
        const SIZE: usize;
        /// Decodes one value.
        fn read(bytes: &[u8]) -> Self;
    }
    macro_rules! pod {
        ($($t:ty),*) => {$(
            impl Pod for $t {
                const SIZE: usize = std::mem::size_of::<$t>();
                fn read(bytes: &[u8]) -> Self {
                    <$t>::from_le_bytes(bytes.try_into().expect("element size"))
                }
            }
        )*};
    }
    pod!(u8, i32, u32, u64, f32, f64);

    /// Decodes a whole buffer.
    pub fn from_bytes<T: Pod>(bytes: &[u8]) -> Vec<T> {
        bytes.chunks_exact(T::SIZE).map(T::read).collect()
    }
}

/// Resident memory of this process in KiB (Linux), to subtract the input data from the peak.
fn rss_kib() -> u64 {
    status_kib("VmRSS:")
}

/// Peak resident memory of this process (KiB). Unlike the parent's `ru_maxrss` of a
/// child, which counts the memory the child had before `exec` (a copy of the parent's),
/// it starts from this program.
fn peak_rss_kib() -> u64 {
    status_kib("VmHWM:")
}

/// A `/proc/self/status` line's value in KiB (0 where there is none).
fn status_kib(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    type Command = fn(&[String]) -> rootweave::Result<()>;
    let reading: Option<Command> = match args.get(1).map(String::as_str) {
        Some("read") => Some(read::read),
        Some("stream") => Some(read::stream),
        Some("stream-ahead") => Some(read::stream_ahead),
        Some("stream-parallel") => Some(read::stream_parallel),
        Some("pages") => Some(read::pages),
        Some("memcpy") => Some(read::memcpy),
        Some("compress-pages") => Some(codec::compress_pages),
        Some("compress-baskets") => Some(ttree::compress_baskets),
        Some("ttree-read") => Some(ttree::read),
        Some("ttree-stream") => Some(ttree::stream),
        Some("ttree-baskets") => Some(ttree::baskets_phases),
        Some("dataset-batches") => Some(analysis::batches),
        Some("dataset-parallel") => Some(analysis::parallel),
        Some("dataset-read") => Some(analysis::read_fields),
        Some("fill-write") => Some(fill::fill_write),
        _ => None,
    };
    if let Some(run) = reading {
        if let Err(e) = run(&args[2..]) {
            eprintln!("rootweave-bench: {e}");
            std::process::exit(1);
        }
        return;
    }
    if args.len() != 5 {
        eprintln!("usage: rootweave-bench int32 OUT ENTRIES COMPRESSION | nanoaod OUT DUMP_DIR COMPRESSION");
        std::process::exit(2);
    }
    let seconds = match args[1].as_str() {
        "int32" => int32(&args[2], args[3].parse().expect("entries"), &args[4]),
        "nanoaod" => nanoaod(&args[2], Path::new(&args[3]), &args[4]),
        other => {
            eprintln!("unknown mode {other}");
            std::process::exit(2);
        }
    };
    match seconds {
        Ok(s) => println!("seconds {s:.6}"),
        Err(e) => {
            eprintln!("rootweave-bench: {e}");
            std::process::exit(1);
        }
    }
}
