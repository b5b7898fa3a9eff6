//! `rootweave-testkit`: writes RNTuple files with known values for the interoperability
//! tests, and the values themselves as canonical flat buffers (see `owned.rs`), so that a
//! test can compare what ROOT and uproot read with what was written.

mod owned;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use rootweave::compress::Compression;
use rootweave::rntuple::{Field, FieldType, RNTupleWriteOptions, RNTupleWriter};
use rootweave_synth::nanoaod::{for_each_chunk, nanoaod_fields};
use rootweave_synth::random::Rng;

use owned::{generate, write_expected, Owned};

#[derive(Clone, Copy, ValueEnum)]
enum Scenario {
    /// Every supported field type, random values with extremes.
    AllTypes,
    /// The NanoAOD-like schema of `rootweave generate`.
    Nanoaod,
    /// One `std::uint64_t` field counting entries (cheap data for huge files).
    Counter,
    /// The parallel writer under stress: `--contexts` fill contexts on `--threads` threads
    /// write `--entries` entries (`id`, `x` = id/2, `v` = id%7 ints from id, `s` = `"e<id>"`)
    /// in chunks of random size within `--budget` bytes; `--ordered` writes chunks of 1000
    /// with their index as sequence number; `--panic-context K` makes context K panic after
    /// its first chunk. Prints the budget's peak.
    Parallel,
    /// Two RNTuples in one file: `A` (all types) and `B` (NanoAOD-like), expected values in
    /// the `A` and `B` subfolders of `--expect`.
    TwoNtuples,
    /// Not a file: the bytes of `--input` compressed with `--compression` as a page or a
    /// basket is stored (ROOT compression blocks, or the input itself when it does not
    /// shrink), to compare with what ROOT's own compression makes of the same bytes.
    Compress,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum FillMode {
    /// `extend` with batches of varying size.
    Batch,
    /// `fill` one entry at a time.
    Entry,
    /// Alternate between the two.
    Mixed,
}

/// Writes a test RNTuple called `ntpl` (or `Events` for nanoaod) and its expected values.
#[derive(Parser)]
struct Args {
    scenario: Scenario,
    /// Output ROOT file.
    out: PathBuf,
    /// Directory for the expected values (not written if omitted).
    #[arg(long)]
    expect: Option<PathBuf>,
    #[arg(long, default_value_t = 1000)]
    entries: u64,
    #[arg(long, default_value = "zstd:5")]
    compression: Compression,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, value_enum, default_value_t = FillMode::Mixed)]
    fill: FillMode,
    /// Maximum page size in bytes.
    #[arg(long)]
    page_size: Option<usize>,
    /// Cluster target size in bytes.
    #[arg(long)]
    cluster_size: Option<u64>,
    /// Start a new cluster group after this many clusters.
    #[arg(long)]
    clusters_per_group: Option<u64>,
    /// Threads (parallel scenario).
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Fill contexts (parallel scenario).
    #[arg(long, default_value_t = 2)]
    contexts: usize,
    /// Memory budget in bytes (parallel scenario).
    #[arg(long, default_value_t = 256 << 20)]
    budget: u64,
    /// Ordered mode (parallel scenario).
    #[arg(long)]
    ordered: bool,
    /// A context that panics (parallel scenario).
    #[arg(long)]
    panic_context: Option<usize>,
    /// Write page checksums.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    checksums: bool,
    /// The bytes to compress (compress scenario).
    #[arg(long)]
    input: Option<PathBuf>,
}

fn all_types_fields() -> Vec<Field> {
    use FieldType as T;
    let scalars = [
        ("b", T::Bool),
        ("i8", T::Int8),
        ("i16", T::Int16),
        ("i32", T::Int32),
        ("i64", T::Int64),
        ("u8", T::UInt8),
        ("u16", T::UInt16),
        ("u32", T::UInt32),
        ("u64", T::UInt64),
        ("f32", T::Float32),
        ("f64", T::Float64),
        ("s", T::String),
    ];
    let mut fields: Vec<Field> = scalars.into_iter().map(|(n, t)| Field::new(n, t)).collect();
    let tuple = || T::Tuple(vec![T::Int32, T::Float32, T::String]);
    fields.extend([
        Field::new("vf", T::vector(T::Float32)),
        Field::new("vb", T::vector(T::Bool)),
        Field::new("vvi", T::vector(T::vector(T::Int32))),
        Field::new("vvvs", T::vector(T::vector(T::vector(T::Int16)))),
        Field::new("vs", T::vector(T::String)),
        Field::new("vp", T::vector(T::pair(T::Int64, T::Float64))),
        Field::new("vt", T::vector(tuple())),
        Field::new("af", T::array(T::Float32, 3)),
        Field::new("aai", T::array(T::array(T::Int32, 2), 2)),
        Field::new("o", T::optional(T::Int32)),
        Field::new("os", T::optional(T::String)),
        Field::new("p", T::pair(T::Int64, T::Float64)),
        Field::new("t", tuple()),
        Field::new(
            "rec",
            T::untyped_record(vec![
                Field::new("x", T::Float64),
                Field::new("n", T::UInt16),
                Field::new("tags", T::vector(T::String)),
            ]),
        ),
        // A class with a dictionary (the interop test declares `rwtest::Hit` to ROOT).
        Field::new("cls", hit()),
        Field::new("vcls", T::vector(hit())),
        Field::new(
            "coll",
            T::untyped_collection(T::untyped_record(vec![
                Field::new("pt", T::Float32),
                Field::new("q", T::Int8),
                Field::new("ok", T::Bool),
                Field::new("hits", T::vector(T::UInt32)),
            ])),
        ),
    ]);
    fields
}

/// `struct rwtest::Hit { float e; std::int32_t id; std::vector<float> samples; }`, class
/// version 1 (a struct without ClassDef).
fn hit() -> FieldType {
    FieldType::class(
        "rwtest::Hit",
        1,
        vec![
            Field::new("e", FieldType::Float32),
            Field::new("id", FieldType::Int32),
            Field::new("samples", FieldType::vector(FieldType::Float32)),
        ],
    )
}

fn options(args: &Args) -> RNTupleWriteOptions {
    let mut o = RNTupleWriteOptions::default()
        .with_compression(args.compression)
        .with_page_checksums(args.checksums);
    if let Some(p) = args.page_size {
        o.max_page_size = p;
    }
    if let Some(c) = args.cluster_size {
        o.cluster_target_size = c;
    }
    o
}

/// Writes `data` (one owned column per field) with the chosen fill mode.
fn write_owned(args: &Args, fields: Vec<Field>, data: &[Owned], n: usize) -> rootweave::Result<()> {
    let types: Vec<FieldType> = fields.iter().map(|f| f.ty.clone()).collect();
    let mut writer = RNTupleWriter::recreate(&args.out, "ntpl", fields, options(args))?;
    let mut rng = Rng::new(args.seed ^ 0x5eed);
    let mut start = 0usize;
    let mut use_batch = args.fill != FillMode::Entry;
    let mut clusters_before = 0;
    while start < n {
        let step = 1 + rng.below(400) as usize;
        let end = (start + step).min(n);
        if use_batch {
            let batch: Vec<_> = data.iter().map(|d| d.batch(start, end)).collect();
            writer.extend(&batch)?;
        } else {
            for i in start..end {
                let values: Vec<_> = data
                    .iter()
                    .zip(&types)
                    .map(|(d, t)| d.value(i, t))
                    .collect();
                writer.fill(&values)?;
            }
        }
        if args.fill == FillMode::Mixed {
            use_batch = !use_batch;
        }
        maybe_new_group(args, &mut writer, &mut clusters_before)?;
        start = end;
    }
    writer.close()?;
    Ok(())
}

fn maybe_new_group(
    args: &Args,
    writer: &mut RNTupleWriter,
    clusters_before: &mut u64,
) -> rootweave::Result<()> {
    if let Some(k) = args.clusters_per_group {
        let clusters = writer.committed_clusters();
        if clusters >= *clusters_before + k {
            writer.commit_cluster_group()?;
            *clusters_before = clusters;
        }
    }
    Ok(())
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    match args.scenario {
        Scenario::AllTypes => {
            let fields = all_types_fields();
            let n = args.entries as usize;
            let mut rng = Rng::new(args.seed);
            let data: Vec<Owned> = fields
                .iter()
                .map(|f| generate(&f.ty, n, &mut rng, 0))
                .collect();
            if let Some(dir) = &args.expect {
                let mut buffers = BTreeMap::new();
                for (f, d) in fields.iter().zip(&data) {
                    d.flatten(&f.name, &f.ty, &mut buffers);
                }
                write_expected(dir, args.entries, &buffers)?;
            }
            Ok(write_owned(args, fields, &data, n)?)
        }
        Scenario::Nanoaod => {
            let fields = nanoaod_fields();
            let mut writer =
                RNTupleWriter::recreate(&args.out, "Events", fields.clone(), options(args))?;
            let mut buffers = BTreeMap::new();
            let mut clusters_before = 0;
            for_each_chunk(args.seed, args.entries, |chunk| {
                chunk.with_columns(|columns| writer.extend(columns))?;
                maybe_new_group(args, &mut writer, &mut clusters_before)?;
                if args.expect.is_some() {
                    chunk.with_columns(|columns| {
                        for (f, c) in fields.iter().zip(columns) {
                            owned_from(c, &f.ty).flatten(&f.name, &f.ty, &mut buffers);
                        }
                        Ok(())
                    })?;
                }
                Ok(())
            })?;
            writer.close()?;
            if let Some(dir) = &args.expect {
                write_expected(dir, args.entries, &buffers)?;
            }
            Ok(())
        }
        Scenario::Parallel => parallel(args),
        Scenario::Compress => {
            let input = args
                .input
                .as_ref()
                .ok_or("the compress scenario needs --input")?;
            let bytes = std::fs::read(input)?;
            std::fs::write(
                &args.out,
                rootweave::compress::compress(args.compression, &bytes),
            )?;
            Ok(())
        }
        Scenario::TwoNtuples => {
            use rootweave::container::{FileWriter, WriterOptions};
            use std::sync::Arc;
            let file = Arc::new(FileWriter::create(
                &args.out,
                WriterOptions::default().with_compression(args.compression),
            )?);
            let n = args.entries as usize;
            let mut rng = Rng::new(args.seed);
            let fields = all_types_fields();
            let data: Vec<Owned> = fields
                .iter()
                .map(|f| generate(&f.ty, n, &mut rng, 0))
                .collect();
            let nano =
                rootweave_synth::nanoaod::NanoAodChunk::generate(args.seed, 0, n.min(10_000));
            // Interleave the two writers so that their clusters alternate in the file.
            let mut a = RNTupleWriter::in_file(file.clone(), "A", fields.clone(), options(args))?;
            let mut b = RNTupleWriter::in_file(file.clone(), "B", nanoaod_fields(), options(args))?;
            let half = n / 2;
            a.extend(&data.iter().map(|d| d.batch(0, half)).collect::<Vec<_>>())?;
            a.commit_cluster()?;
            nano.with_columns(|c| b.extend(c))?;
            b.commit_cluster()?;
            a.extend(&data.iter().map(|d| d.batch(half, n)).collect::<Vec<_>>())?;
            a.close()?;
            b.close()?;
            Arc::try_unwrap(file)
                .map_err(|_| "file still shared")?
                .close()?;
            if let Some(dir) = &args.expect {
                let mut buffers = BTreeMap::new();
                for (f, d) in fields.iter().zip(&data) {
                    d.flatten(&f.name, &f.ty, &mut buffers);
                }
                write_expected(&dir.join("A"), args.entries, &buffers)?;
                let mut buffers = BTreeMap::new();
                let nano_fields = nanoaod_fields();
                nano.with_columns(|columns| {
                    for (f, c) in nano_fields.iter().zip(columns) {
                        owned_from(c, &f.ty).flatten(&f.name, &f.ty, &mut buffers);
                    }
                    Ok(())
                })?;
                write_expected(&dir.join("B"), nano.len() as u64, &buffers)?;
            }
            Ok(())
        }
        Scenario::Counter => {
            let fields = vec![Field::new("n", FieldType::UInt64)];
            let mut writer = RNTupleWriter::recreate(&args.out, "ntpl", fields, options(args))?;
            let chunk = 1u64 << 20;
            let mut values = Vec::with_capacity(chunk as usize);
            let mut start = 0;
            while start < args.entries {
                let end = (start + chunk).min(args.entries);
                values.clear();
                values.extend(start..end);
                writer.extend(&[rootweave::rntuple::ColumnData::UInt64(&values)])?;
                start = end;
            }
            writer.close()?;
            Ok(())
        }
    }
}

/// The fields of the parallel scenario.
fn parallel_fields() -> Vec<Field> {
    vec![
        Field::new("id", FieldType::UInt64),
        Field::new("x", FieldType::Float32),
        Field::new("v", FieldType::vector(FieldType::Int32)),
        Field::new("s", FieldType::String),
    ]
}

/// Columns of the parallel scenario for the ids `ids`.
struct ParallelChunk {
    id: Vec<u64>,
    x: Vec<f32>,
    offsets: Vec<u64>,
    v: Vec<i32>,
    s: Vec<String>,
}

impl ParallelChunk {
    fn new(ids: std::ops::Range<u64>) -> Self {
        let mut c = ParallelChunk {
            id: ids.clone().collect(),
            x: Vec::new(),
            offsets: vec![0],
            v: Vec::new(),
            s: Vec::new(),
        };
        for id in ids {
            c.x.push(id as f32 * 0.5);
            for j in 0..id % 7 {
                c.v.push((id + j) as i32);
            }
            c.offsets.push(c.v.len() as u64);
            c.s.push(format!("e{id}"));
        }
        c
    }

    fn batch(&self) -> Vec<rootweave::rntuple::ColumnData<'_>> {
        use rootweave::rntuple::ColumnData as C;
        vec![
            C::UInt64(&self.id),
            C::Float32(&self.x),
            C::list(&self.offsets, C::Int32(&self.v)),
            C::Strings(&self.s),
        ]
    }
}

fn parallel(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    use rootweave::rntuple::{RNTupleParallelOptions, RNTupleParallelWriter};
    use std::sync::atomic::{AtomicU64, Ordering};
    let options = RNTupleParallelOptions::default()
        .with_write(options(args))
        .with_memory_budget(args.budget)
        .with_ordered(args.ordered);
    let writer = RNTupleParallelWriter::recreate(&args.out, "ntpl", parallel_fields(), options)?;
    let next_id = AtomicU64::new(0);
    let next_chunk = AtomicU64::new(0);
    // With `--panic-context`, the threads that do not hold that context start once it has
    // panicked: otherwise they may write every entry before its thread first runs.
    let panicked = std::sync::atomic::AtomicBool::new(args.panic_context.is_none());
    let total = args.entries;
    let contexts: Vec<_> = (0..args.contexts).map(|_| writer.context()).collect();
    let per_thread = args.contexts.div_ceil(args.threads.max(1));
    std::thread::scope(|scope| {
        let mut contexts = contexts.into_iter().enumerate().collect::<Vec<_>>();
        while !contexts.is_empty() {
            let mine: Vec<_> = contexts.drain(..per_thread.min(contexts.len())).collect();
            let (next_id, next_chunk, panicked) = (&next_id, &next_chunk, &panicked);
            let waits = !mine
                .iter()
                .any(|(index, _)| Some(*index) == args.panic_context);
            scope.spawn(move || {
                while waits && !panicked.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                    let mut mine = mine;
                    let mut rng = Rng::new(args.seed ^ mine[0].0 as u64);
                    let mut turn = 0usize;
                    loop {
                        let k = turn % mine.len();
                        let (index, ctx) = &mut mine[k];
                        turn += 1;
                        if args.ordered {
                            let chunk = next_chunk.fetch_add(1, Ordering::SeqCst);
                            let start = chunk * 1000;
                            if start >= total {
                                break;
                            }
                            let data = ParallelChunk::new(start..(start + 1000).min(total));
                            ctx.extend_sequence(chunk, &data.batch())
                                .expect("extend_sequence");
                        } else {
                            let n = 1 + rng.below(2000);
                            let start = next_id.fetch_add(n, Ordering::SeqCst);
                            if start >= total {
                                break;
                            }
                            let data = ParallelChunk::new(start..(start + n).min(total));
                            ctx.extend(&data.batch()).expect("extend");
                            if Some(*index) == args.panic_context {
                                panicked.store(true, Ordering::SeqCst);
                                panic!("context {index} fails on purpose");
                            }
                        }
                    }
                }));
                drop(run);
                // Never leaves the others waiting, whatever became of the panic context.
                panicked.store(true, Ordering::SeqCst);
            });
        }
    });
    let peak = writer.budget().peak();
    let result = writer.close();
    println!("budget_peak {peak}");
    match result {
        Ok(summary) => println!("entries {} clusters {}", summary.entries, summary.clusters),
        Err(e) => println!("close_error {e}"),
    }
    Ok(())
}

/// An owned copy of a batch whose offsets start at 0 (the nanoaod chunks' batches).
fn owned_from(c: &rootweave::rntuple::ColumnData, ty: &FieldType) -> Owned {
    use rootweave::rntuple::ColumnData as C;
    let child = || ty.children()[0].ty.clone();
    match c {
        C::Bool(v) => Owned::Bool(v.to_vec()),
        C::Int8(v) => Owned::Int8(v.to_vec()),
        C::Int16(v) => Owned::Int16(v.to_vec()),
        C::Int32(v) => Owned::Int32(v.to_vec()),
        C::Int64(v) => Owned::Int64(v.to_vec()),
        C::UInt8(v) => Owned::UInt8(v.to_vec()),
        C::UInt16(v) => Owned::UInt16(v.to_vec()),
        C::UInt32(v) => Owned::UInt32(v.to_vec()),
        C::UInt64(v) => Owned::UInt64(v.to_vec()),
        C::Float32(v) => Owned::Float32(v.to_vec()),
        C::Float64(v) => Owned::Float64(v.to_vec()),
        C::Strings(v) => Owned::Strings(v.to_vec()),
        C::StringBytes { offsets, bytes } => Owned::Strings(
            offsets
                .windows(2)
                .map(|w| String::from_utf8_lossy(&bytes[w[0] as usize..w[1] as usize]).into_owned())
                .collect(),
        ),
        C::List { offsets, items } => {
            assert_eq!(offsets[0], 0, "chunk offsets start at 0");
            Owned::List(offsets.to_vec(), Box::new(owned_from(items, &child())))
        }
        C::Array(items) => {
            let FieldType::Array(_, size) = ty else {
                unreachable!("array batch of a non-array field")
            };
            Owned::Array(*size, Box::new(owned_from(items, &child())))
        }
        C::Record(members) => Owned::Record(
            members
                .iter()
                .zip(ty.children())
                .map(|(m, f)| owned_from(m, &f.ty))
                .collect(),
        ),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rootweave-testkit: {e}");
            ExitCode::FAILURE
        }
    }
}
