//! rootweave's side of `bench/cpp_write.py` in Rust: the events the C++ program
//! (`bench/cpp/root_parallel_write.cxx`, modes `rwntuple` / `rwtree`) writes through the C++
//! API, written through the Rust API's parallel writers, with the same fields, the same
//! chunks taken by the same threads from a shared counter, and one fill context per thread.
//!
//! ```text
//! rootweave-bench fill-write ntuple|tree|none entry|value|chunk SCHEMA OUT ENTRIES THREADS
//!                 COMPRESSION BUDGET_MIB
//! ```
//!
//! - SCHEMA: `nanoaod`, `complexclass` (ten `std::vector<Event>` of the classes `Event` and
//!   `Vec3`) or `wide:N`. The values are `rootweave generate`'s (seed 1), made chunk by chunk
//!   by `rootweave-synth` as the CLI makes them; the fields are those the C++ program
//!   declares: nanoaod's `Muon` a `std::vector<MuonRecord>` (a class) in the RNTuple, and
//!   one `std::vector` per Muon member in the TTree (as TBufferMerger's tree has them).
//! - `ntuple`: `RNTupleParallelWriter`; `tree`: `TTreeParallelWriter`, the fields laid out
//!   as branches by `TreeLayout` as the C API lays them out (`std::vector` branches for
//!   vectors of numbers, classes split); `none`: the chunks are made, nothing is written.
//! - `entry`: each entry appended alone, `extend` of a one-entry `ColumnData` batch (its
//!   collections' offsets rebased to 0): what the C API does for every `Fill`; `value`:
//!   each entry as `fill(&[Value])`; `chunk`: each chunk as one batch (`extend`), as
//!   `rootweave generate` writes.
//! - COMPRESSION: ROOT's setting (505 zstd 5, 404 LZ4); BUDGET_MIB: the memory budget.
//!
//! Prints `payload_bytes` (as `bench/parallel_write.py` defines it), `entries`, `seconds`
//! (from creating the writer to closing it, the values made on the writing threads included),
//! `budget_peak_bytes`, `budget_limit_bytes` and `peak_rss_kib`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rootweave::compress::Compression;
use rootweave::rntuple::{
    ColumnData, Field, FieldType, RNTupleFillContext, RNTupleParallelOptions,
    RNTupleParallelWriter, RNTupleWriteOptions, Value,
};
use rootweave::tree_layout::{FieldOptions, TreeLayout};
use rootweave::ttree::{
    TTreeFillContext, TTreeParallelOptions, TTreeParallelWriter, TTreeWriteOptions,
};
use rootweave::{Error, Result};
use rootweave_synth::schemas::{Chunk, Schema};

const SEED: u64 = 1;

/// How entries go to the writer.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Entry,
    Value,
    Chunk,
}

/// The case: which generator makes the chunks, and the fields they are written as.
struct Case {
    schema: Schema,
    tree: bool,
    nanoaod: bool,
}

impl Case {
    fn new(name: &str, tree: bool) -> Result<Self> {
        let schema = match name {
            "complexclass" => Schema::Complex,
            "nanoaod" => Schema::NanoAod,
            _ if name.starts_with("wide:") => name.parse()?,
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "schema {name}: nanoaod, complexclass or wide:N"
                )))
            }
        };
        Ok(Case {
            schema,
            tree,
            nanoaod: name == "nanoaod",
        })
    }

    /// The fields as the C++ program declares them through the C++ API.
    fn fields(&self) -> Vec<Field> {
        if !self.nanoaod {
            // complexclass: std::vector<Event> of classes Event and Vec3 (version 1).
            return self.schema.tree_fields();
        }
        let mut fields = self.schema.fields();
        let muon = fields
            .iter()
            .position(|f| f.name == "Muon")
            .expect("nanoaod has Muon");
        let members = match &fields[muon].ty {
            FieldType::UntypedCollection(record) => record.children(),
            other => panic!("Muon is a {other:?}"),
        };
        if self.tree {
            let vectors = members
                .into_iter()
                .map(|m| Field::new(m.name, FieldType::vector(m.ty)));
            fields.splice(muon..=muon, vectors);
        } else {
            fields[muon] = Field::new(
                "Muon",
                FieldType::vector(FieldType::class("MuonRecord", 1, members)),
            );
        }
        fields
    }

    /// A chunk's batch for [`Case::fields`]: the generator's, with nanoaod's `Muon` split into
    /// one collection per member for the tree.
    fn batch<'a>(&self, generated: &[ColumnData<'a>]) -> Vec<ColumnData<'a>> {
        let mut batch = generated.to_vec();
        if self.nanoaod && self.tree {
            let muon = 7;
            let ColumnData::List { offsets, items } = &generated[muon] else {
                panic!("Muon is not a collection");
            };
            let ColumnData::Record(members) = items.as_ref() else {
                panic!("Muon's items are not records");
            };
            let lists = members.iter().map(|m| ColumnData::list(offsets, m.clone()));
            batch.splice(muon..=muon, lists);
        }
        batch
    }
}

/// The writer of either format.
enum Writer {
    Ntuple(RNTupleParallelWriter),
    Tree(TTreeParallelWriter, TreeLayout),
}

/// A fill context of either format.
enum Context<'w> {
    Ntuple(RNTupleFillContext),
    Tree(TTreeFillContext, &'w TreeLayout),
}

impl Context<'_> {
    fn extend(&mut self, batch: &[ColumnData]) -> Result<()> {
        match self {
            Context::Ntuple(c) => c.extend(batch),
            Context::Tree(c, layout) => layout.with_branch_batches(batch, |b| c.extend(b)),
        }
    }

    /// One entry as values: a value per field (for the tree, the layout gives each of
    /// these fields one branch).
    fn fill(&mut self, values: &[Value]) -> Result<()> {
        match self {
            Context::Ntuple(c) => c.fill(values),
            Context::Tree(c, _) => c.fill(values),
        }
    }
}

/// The layout the C API gives a model's fields in a TTree (crates/rootweave-c's
/// `tree_layout`): vectors of numbers as `std::vector` branches, the rest by default.
fn tree_layout(fields: &[Field]) -> Result<TreeLayout> {
    // Found once, as the C API finds them (not per field: 10,000 fields in the wide case).
    let vectors: std::collections::HashSet<&str> = fields
        .iter()
        .filter(|f| matches!(&f.ty, FieldType::Vector(item) if item.number().is_some()))
        .map(|f| f.name.as_str())
        .collect();
    TreeLayout::new(fields, |name| match vectors.contains(name) {
        true => FieldOptions::default().with_std_vector(),
        false => FieldOptions::default(),
    })
}

/// `rootweave-bench fill-write ...` (see the module's documentation).
pub fn fill_write(args: &[String]) -> Result<()> {
    let [format, mode, schema, out, entries, threads, compression, budget_mib] = args else {
        return Err(Error::InvalidArgument(
            "usage: fill-write ntuple|tree|none entry|value|chunk SCHEMA OUT ENTRIES THREADS \
             COMPRESSION BUDGET_MIB"
                .into(),
        ));
    };
    let number = |s: &str, what: &str| {
        s.parse::<u64>()
            .map_err(|_| Error::InvalidArgument(format!("{what}: {s}")))
    };
    let entries = number(entries, "entries")?;
    let threads = number(threads, "threads")?.max(1);
    let budget = number(budget_mib, "budget")? << 20;
    let setting: i32 = compression
        .parse()
        .map_err(|_| Error::InvalidArgument(format!("compression {compression}")))?;
    let compression = Compression::from_root_setting(setting)?;
    let mode = match mode.as_str() {
        "entry" => Mode::Entry,
        "value" => Mode::Value,
        "chunk" => Mode::Chunk,
        other => return Err(Error::InvalidArgument(format!("mode {other}"))),
    };
    let case = Case::new(schema, format == "tree")?;
    let fields = case.fields();

    let start = Instant::now();
    let writer = match format.as_str() {
        "ntuple" => Some(Writer::Ntuple(RNTupleParallelWriter::recreate(
            out,
            "Events",
            fields.clone(),
            RNTupleParallelOptions::default()
                .with_write(RNTupleWriteOptions::default().with_compression(compression))
                .with_memory_budget(budget),
        )?)),
        "tree" => {
            let layout = tree_layout(&fields)?;
            if mode == Mode::Value && layout.branches().len() != fields.len() {
                return Err(Error::InvalidArgument(format!(
                    "{} branches for {} fields: `value` needs a branch per field",
                    layout.branches().len(),
                    fields.len()
                )));
            }
            let options = TTreeParallelOptions::default()
                .with_write(TTreeWriteOptions::default().with_compression(compression))
                .with_memory_budget(budget);
            let writer =
                TTreeParallelWriter::recreate(out, "Events", layout.branches().to_vec(), options)?;
            Some(Writer::Tree(writer, layout))
        }
        "none" => None,
        other => return Err(Error::InvalidArgument(format!("format {other}"))),
    };

    let chunks = case.schema.chunks(entries);
    let next = AtomicU64::new(0);
    let payload = AtomicU64::new(0);
    let written = AtomicU64::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let (case, writer, next, payload, written) =
                    (&case, &writer, &next, &payload, &written);
                s.spawn(move || -> Result<()> {
                    // A fill context per thread, made on it (as the C++ program does).
                    let mut context = writer.as_ref().map(|w| match w {
                        Writer::Ntuple(w) => Context::Ntuple(w.context()),
                        Writer::Tree(w, layout) => Context::Tree(w.context(), layout),
                    });
                    let mut slicer = Slicer::default();
                    let mut spare: Option<Chunk> = None;
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= chunks {
                            break;
                        }
                        let chunk = case
                            .schema
                            .chunk_reusing(SEED, index, entries, spare.take());
                        let n = chunk.len();
                        chunk.with_columns(|generated| {
                            payload.fetch_add(
                                generated.iter().map(|c| payload_of(c, n)).sum(),
                                Ordering::Relaxed,
                            );
                            let batch = case.batch(generated);
                            let Some(context) = context.as_mut() else {
                                return Ok(());
                            };
                            match mode {
                                Mode::Chunk => context.extend(&batch),
                                Mode::Entry => (0..n).try_for_each(|i| {
                                    slicer.with_entry(&batch, n, i, |one| context.extend(one))
                                }),
                                Mode::Value => (0..n).try_for_each(|i| {
                                    let values: Vec<Value> =
                                        batch.iter().map(|c| value(c, n, i)).collect();
                                    context.fill(&values)
                                }),
                            }
                        })?;
                        written.fetch_add(n as u64, Ordering::Relaxed);
                        spare = Some(chunk);
                    }
                    // The context's remaining entries are committed as it goes.
                    drop(context);
                    Ok(())
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().expect("a writing thread panicked"))
    })?;
    let (peak, limit) = match writer {
        Some(Writer::Ntuple(w)) => {
            let budget = (w.budget().peak(), w.budget().limit());
            w.close()?;
            budget
        }
        Some(Writer::Tree(w, _)) => {
            let budget = (w.budget().peak(), w.budget().limit());
            w.close()?;
            budget
        }
        None => (0, 0),
    };
    let seconds = start.elapsed().as_secs_f64();
    println!("payload_bytes {}", payload.load(Ordering::Relaxed));
    println!("entries {}", written.load(Ordering::Relaxed));
    println!("seconds {seconds:.6}");
    println!("budget_peak_bytes {peak}");
    println!("budget_limit_bytes {limit}");
    println!("peak_rss_kib {}", crate::peak_rss_kib());
    Ok(())
}

/// The payload of `n` entries of a batch: numbers at their size, the characters of
/// strings, 8 bytes per collection or string of every entry (`bench/parallel_write.py`).
fn payload_of(data: &ColumnData, n: usize) -> u64 {
    let leaf = |len: usize, size: usize| (len * size) as u64;
    match data {
        ColumnData::Bool(v) => leaf(v.len(), 1),
        ColumnData::Int8(v) => leaf(v.len(), 1),
        ColumnData::UInt8(v) => leaf(v.len(), 1),
        ColumnData::Int16(v) => leaf(v.len(), 2),
        ColumnData::UInt16(v) => leaf(v.len(), 2),
        ColumnData::Int32(v) => leaf(v.len(), 4),
        ColumnData::UInt32(v) => leaf(v.len(), 4),
        ColumnData::Float32(v) => leaf(v.len(), 4),
        ColumnData::Int64(v) => leaf(v.len(), 8),
        ColumnData::UInt64(v) => leaf(v.len(), 8),
        ColumnData::Float64(v) => leaf(v.len(), 8),
        ColumnData::Strings(v) => v.iter().map(|s| 8 + s.len() as u64).sum(),
        ColumnData::StringBytes { offsets, .. } => 8 * n as u64 + (offsets[n] - offsets[0]),
        ColumnData::List { offsets, items } => {
            8 * n as u64 + payload_of(items, (offsets[n] - offsets[0]) as usize)
        }
        ColumnData::Array(items) => payload_of(items, leaf_count(items)),
        ColumnData::Record(members) => members.iter().map(|m| payload_of(m, n)).sum(),
    }
}

/// The number of values of a column of numbers (the items of a `std::array`).
fn leaf_count(data: &ColumnData) -> usize {
    match data {
        ColumnData::Bool(v) => v.len(),
        ColumnData::Int8(v) => v.len(),
        ColumnData::UInt8(v) => v.len(),
        ColumnData::Int16(v) => v.len(),
        ColumnData::UInt16(v) => v.len(),
        ColumnData::Int32(v) => v.len(),
        ColumnData::UInt32(v) => v.len(),
        ColumnData::Float32(v) => v.len(),
        ColumnData::Int64(v) => v.len(),
        ColumnData::UInt64(v) => v.len(),
        ColumnData::Float64(v) => v.len(),
        other => panic!("std::array of {other:?}: only arrays of numbers are sliced here"),
    }
}

/// Makes one-entry batches of a chunk's batch: its leaves sliced in place, its offsets
/// rebased to 0 into buffers reused from entry to entry (the C++ API passes offsets
/// `{0, size}` of the entry's own objects).
#[derive(Default)]
struct Slicer {
    offsets: Vec<Vec<u64>>,
}

impl Slicer {
    /// Calls `f` with entry `i` of the `n`-entry `batch` as a one-entry batch.
    fn with_entry<R>(
        &mut self,
        batch: &[ColumnData],
        n: usize,
        i: usize,
        f: impl FnOnce(&[ColumnData]) -> Result<R>,
    ) -> Result<R> {
        let mut k = 0;
        for c in batch {
            self.rebase(c, n, i, i + 1, &mut k);
        }
        let mut k = 0;
        let one: Vec<ColumnData> = batch
            .iter()
            .map(|c| slice(c, n, i, i + 1, &self.offsets, &mut k))
            .collect();
        f(&one)
    }

    /// Collects the rebased offsets of entries `lo..hi` (of `n`) of `data`, in the order
    /// [`slice()`] takes them.
    fn rebase(&mut self, data: &ColumnData, n: usize, lo: usize, hi: usize, k: &mut usize) {
        match data {
            ColumnData::StringBytes { offsets, .. } => self.push(offsets, lo, hi, k),
            ColumnData::List { offsets, items } => {
                self.push(offsets, lo, hi, k);
                let (a, b) = (offsets[lo] as usize, offsets[hi] as usize);
                let total = (offsets[n] - offsets[0]) as usize;
                self.rebase(items, total, a, b, k);
            }
            ColumnData::Record(members) => {
                for m in members {
                    self.rebase(m, n, lo, hi, k);
                }
            }
            _ => {}
        }
    }

    /// Offsets `lo..=hi` less `offsets[lo]` into buffer `k`.
    fn push(&mut self, offsets: &[u64], lo: usize, hi: usize, k: &mut usize) {
        if self.offsets.len() == *k {
            self.offsets.push(Vec::new());
        }
        let out = &mut self.offsets[*k];
        out.clear();
        out.extend(offsets[lo..=hi].iter().map(|o| o - offsets[lo]));
        *k += 1;
    }
}

/// Entries `lo..hi` (of `n`) of `data`, with the offsets [`Slicer::rebase`] collected.
fn slice<'s>(
    data: &ColumnData<'s>,
    n: usize,
    lo: usize,
    hi: usize,
    rebased: &'s [Vec<u64>],
    k: &mut usize,
) -> ColumnData<'s> {
    match data {
        ColumnData::Bool(v) => ColumnData::Bool(&v[lo..hi]),
        ColumnData::Int8(v) => ColumnData::Int8(&v[lo..hi]),
        ColumnData::UInt8(v) => ColumnData::UInt8(&v[lo..hi]),
        ColumnData::Int16(v) => ColumnData::Int16(&v[lo..hi]),
        ColumnData::UInt16(v) => ColumnData::UInt16(&v[lo..hi]),
        ColumnData::Int32(v) => ColumnData::Int32(&v[lo..hi]),
        ColumnData::UInt32(v) => ColumnData::UInt32(&v[lo..hi]),
        ColumnData::Float32(v) => ColumnData::Float32(&v[lo..hi]),
        ColumnData::Int64(v) => ColumnData::Int64(&v[lo..hi]),
        ColumnData::UInt64(v) => ColumnData::UInt64(&v[lo..hi]),
        ColumnData::Float64(v) => ColumnData::Float64(&v[lo..hi]),
        ColumnData::Strings(v) => ColumnData::Strings(&v[lo..hi]),
        ColumnData::StringBytes { offsets, bytes } => {
            let own = &rebased[*k];
            *k += 1;
            ColumnData::StringBytes {
                offsets: own,
                bytes: &bytes[offsets[lo] as usize..offsets[hi] as usize],
            }
        }
        ColumnData::List { offsets, items } => {
            let own = &rebased[*k];
            *k += 1;
            let (a, b) = (offsets[lo] as usize, offsets[hi] as usize);
            let total = (offsets[n] - offsets[0]) as usize;
            ColumnData::list(own, slice(items, total, a, b, rebased, k))
        }
        ColumnData::Array(items) => {
            let per = leaf_count(items) / n;
            ColumnData::array(slice(items, n * per, lo * per, hi * per, rebased, k))
        }
        ColumnData::Record(members) => ColumnData::Record(
            members
                .iter()
                .map(|m| slice(m, n, lo, hi, rebased, k))
                .collect(),
        ),
    }
}

/// Entry `i` (of `n`) of `data` as a value.
fn value(data: &ColumnData, n: usize, i: usize) -> Value {
    match data {
        ColumnData::Bool(v) => Value::Bool(v[i]),
        ColumnData::Int8(v) => Value::Int8(v[i]),
        ColumnData::UInt8(v) => Value::UInt8(v[i]),
        ColumnData::Int16(v) => Value::Int16(v[i]),
        ColumnData::UInt16(v) => Value::UInt16(v[i]),
        ColumnData::Int32(v) => Value::Int32(v[i]),
        ColumnData::UInt32(v) => Value::UInt32(v[i]),
        ColumnData::Float32(v) => Value::Float32(v[i]),
        ColumnData::Int64(v) => Value::Int64(v[i]),
        ColumnData::UInt64(v) => Value::UInt64(v[i]),
        ColumnData::Float64(v) => Value::Float64(v[i]),
        ColumnData::Strings(v) => Value::String(v[i].clone()),
        ColumnData::StringBytes { offsets, bytes } => Value::String(
            String::from_utf8_lossy(&bytes[offsets[i] as usize..offsets[i + 1] as usize])
                .into_owned(),
        ),
        ColumnData::List { offsets, items } => {
            let total = (offsets[n] - offsets[0]) as usize;
            Value::List(
                (offsets[i] as usize..offsets[i + 1] as usize)
                    .map(|j| value(items, total, j))
                    .collect(),
            )
        }
        ColumnData::Array(items) => {
            let per = leaf_count(items) / n;
            Value::Array(
                (i * per..(i + 1) * per)
                    .map(|j| value(items, n * per, j))
                    .collect(),
            )
        }
        ColumnData::Record(members) => {
            Value::Record(members.iter().map(|m| value(m, n, i)).collect())
        }
    }
}
