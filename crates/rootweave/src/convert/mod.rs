//! Converting a file's RNTuple or TTree into another format: TTree to RNTuple laid out as
//! ROOT's RNTupleImporter lays it out, RNTuple to TTree laid out as uproot and NanoAOD lay
//! branches out (an RNTuple the importer made gets NanoAOD's branches back), either to
//! Parquet (feature `parquet`). Batches of whole input clusters
//! are read, converted and compressed on a pool of threads, and enter the output in input
//! order (the ordered parallel writers), so the output is the same whatever the timing;
//! what is read and what waits to be written stay within the memory budget. The output is
//! written under a temporary name and renamed once complete: a failed conversion leaves
//! nothing behind.

mod field_map;
#[cfg(feature = "parquet")]
mod parquet;

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::compress::Compression;
use crate::container::RootFile;
use crate::dataset::{AnyReader, Source};
use crate::error::{Error, Result};
use crate::parallel::ReadOptions;
use crate::rntuple::{RNTupleParallelOptions, RNTupleParallelWriter, RNTupleWriteOptions};
use crate::tree_layout::{FieldOptions, TreeLayout};
use crate::ttree::{TTreeParallelOptions, TTreeParallelWriter, TTreeWriteOptions};

pub use field_map::FieldMap;

/// The format a conversion writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// An RNTuple (from a TTree: laid out as ROOT's RNTupleImporter lays it out).
    RNTuple,
    /// A TTree (fields as branches, as uproot and NanoAOD lay them out).
    TTree,
    /// A Parquet file (needs the `parquet` feature).
    Parquet,
}

impl std::str::FromStr for Target {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "rntuple" => Ok(Target::RNTuple),
            "ttree" => Ok(Target::TTree),
            "parquet" => Ok(Target::Parquet),
            _ => Err(Error::InvalidArgument(format!(
                "unknown target format '{s}': rntuple, ttree or parquet"
            ))),
        }
    }
}

/// A progress callback: entries done and entries in all.
pub type Progress = Arc<dyn Fn(u64, u64) + Send + Sync>;

/// Settings of [`convert`].
#[derive(Clone)]
#[non_exhaustive]
pub struct ConvertOptions {
    /// The output format.
    pub target: Target,
    /// The input fields (TTree branches) to convert; empty: all.
    pub fields: Vec<String>,
    /// Threads reading, converting and compressing (0: all cores).
    pub threads: usize,
    /// Bytes that batches read and clusters waiting to be written may take (default 256
    /// MiB, half for each).
    pub memory_budget: u64,
    /// The output's compression (default: ROOT's for the format, zstd:5 for RNTuples and
    /// zlib:1 for TTrees; zstd:5 for Parquet).
    pub compression: Option<Compression>,
    /// The output object's name (default: the input's).
    pub name: Option<String>,
    /// Overwrite an existing output.
    pub force: bool,
    /// TTree output: the split level of the branches of classes (none: ROOT's default,
    /// 99; 0 streams each entry's object whole).
    pub split_level: Option<i32>,
    /// Called as batches are written.
    pub progress: Option<Progress>,
}

impl std::fmt::Debug for ConvertOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConvertOptions")
            .field("target", &self.target)
            .field("fields", &self.fields)
            .field("threads", &self.threads)
            .field("memory_budget", &self.memory_budget)
            .field("compression", &self.compression)
            .field("name", &self.name)
            .field("force", &self.force)
            .field("split_level", &self.split_level)
            .finish_non_exhaustive()
    }
}

impl ConvertOptions {
    /// Converting to `target` with the defaults.
    pub fn new(target: Target) -> Self {
        ConvertOptions {
            target,
            fields: Vec::new(),
            threads: 0,
            memory_budget: 256 << 20,
            compression: None,
            name: None,
            force: false,
            split_level: None,
            progress: None,
        }
    }
}

/// What a conversion did.
#[derive(Debug, Clone, Default)]
pub struct ConvertSummary {
    /// Entries converted.
    pub entries: u64,
    /// The output's fields (RNTuple), branches (TTree) or columns (Parquet).
    pub fields: Vec<String>,
    /// Input fields left out, each with the reason.
    pub skipped: Vec<(String, String)>,
    /// Size of the output file.
    pub output_bytes: u64,
}

/// Converts the RNTuple or TTree of `input` (its entry range only, if it has one) into
/// `output` (see the module's description).
///
/// ```no_run
/// use rootweave::dataset::Source;
/// use rootweave::convert::{convert, ConvertOptions, Target};
/// let input = Source::parse("nano.root:Events");
/// let summary = convert(&input, "nano-rntuple.root".as_ref(), &ConvertOptions::new(Target::RNTuple))?;
/// println!("{} entries", summary.entries);
/// # Ok::<(), rootweave::Error>(())
/// ```
pub fn convert(input: &Source, output: &Path, options: &ConvertOptions) -> Result<ConvertSummary> {
    if options.memory_budget < (4 << 20) {
        return Err(Error::InvalidArgument(
            "the memory budget must be at least 4 MiB".into(),
        ));
    }
    if output.exists() && !options.force {
        return Err(Error::InvalidArgument(format!(
            "{} exists: overwrite it with force",
            output.display()
        )));
    }
    let read = ReadOptions::default()
        .with_threads(options.threads)
        .with_memory_budget(options.memory_budget / 2);
    let file = Arc::new(RootFile::open(&input.path)?);
    if crate::io::same_file(&input.path, output) {
        return Err(Error::InvalidArgument(format!(
            "{}: the output is the input",
            output.display()
        )));
    }
    let reader = AnyReader::open(file.clone(), input.object.as_deref(), read)?;
    let name = options
        .name
        .clone()
        .unwrap_or_else(|| reader.name().to_string());
    let layout = match options.target {
        Target::RNTuple => FieldMap::importer(&reader, &options.fields)?,
        Target::TTree => FieldMap::for_ttree(&reader, &options.fields)?,
        Target::Parquet => FieldMap::plain(&reader, &options.fields)?,
    };
    let temp = crate::io::temporary_path(output);
    let range = input.range_in(reader.entries());
    let written = write(&reader, range, &layout, &temp, &name, options);
    let finished = written.and_then(|summary| {
        if options.force && output.is_file() {
            std::fs::remove_file(output).map_err(|e| io_error(output, e))?;
        }
        std::fs::rename(&temp, output).map_err(|e| io_error(output, e))?;
        Ok(summary)
    });
    match finished {
        Ok(mut summary) => {
            summary.skipped = layout.skipped.clone();
            summary.output_bytes = std::fs::metadata(output).map_or(0, |m| m.len());
            Ok(summary)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// Writes `range` of the reader's entries as `options.target` asks.
fn write(
    reader: &AnyReader,
    range: Range<u64>,
    layout: &FieldMap,
    temp: &Path,
    name: &str,
    options: &ConvertOptions,
) -> Result<ConvertSummary> {
    match options.target {
        Target::RNTuple => to_rntuple(reader, range, layout, temp, name, options),
        Target::TTree => to_ttree(reader, range, layout, temp, name, options),
        #[cfg(feature = "parquet")]
        Target::Parquet => {
            let step = step(reader, options);
            parquet::to_parquet(reader, range, layout, temp, options, step)
        }
        #[cfg(not(feature = "parquet"))]
        Target::Parquet => Err(Error::InvalidArgument(
            "Parquet output needs rootweave's `parquet` feature".into(),
        )),
    }
}

/// Entries per batch: input clusters joined until a batch holds about 1/8 of the budget
/// per thread of stored data (at most 64 MiB), so that each thread's batch read, its
/// arrays and its output cluster fit the budget together.
fn step(reader: &AnyReader, options: &ConvertOptions) -> u64 {
    use crate::dataset::BatchSource;
    let threads = reader.pool().current_num_threads().max(1) as u64;
    let target = (options.memory_budget / (8 * threads)).clamp(1 << 20, 64 << 20);
    let stored = reader.stored_bytes().unwrap_or(0).max(1);
    let entries = reader.entries();
    // Decompressed data is several times the stored size.
    let per_entry = (stored as f64 * 4.0 / entries.max(1) as f64).max(1.0);
    ((target as f64 / per_entry) as u64).max(1)
}

/// Converts every batch of `layout.read` on the reader's pool and hands it to `extend`
/// with the fill context of the pool slot running it (made by `context`, one per slot)
/// and its sequence number (its position in entry order), counting progress. The
/// contexts are dropped (committing what they hold) before returning.
fn write_in_order<C: Send>(
    reader: &AnyReader,
    range: Range<u64>,
    layout: &FieldMap,
    options: &ConvertOptions,
    context: impl Fn() -> C,
    extend: impl Fn(&mut C, u64, &[crate::array::ColumnData]) -> Result<()> + Sync,
) -> Result<u64> {
    let names: Vec<&str> = layout.read.iter().map(String::as_str).collect();
    let total = range.end - range.start;
    let batches = reader.batches(&names, range, step(reader, options))?;
    let contexts: Vec<Mutex<C>> = (0..batches.slots())
        .map(|_| Mutex::new(context()))
        .collect();
    let starts: Vec<u64> = batches.ranges().iter().map(|r| r.start).collect();
    let done = AtomicU64::new(0);
    batches.for_each_parallel(|slot, range: Range<u64>, arrays| {
        let sequence = starts.binary_search(&range.start).unwrap_or(0) as u64;
        let batch = layout.batch(arrays)?;
        let mut context = contexts[slot].lock().unwrap_or_else(|p| p.into_inner());
        extend(&mut context, sequence, &batch)?;
        let n = range.end - range.start;
        let now = done.fetch_add(n, Ordering::Relaxed) + n;
        if let Some(progress) = &options.progress {
            progress(now, total);
        }
        Ok(())
    })?;
    Ok(total)
}

fn to_rntuple(
    reader: &AnyReader,
    range: Range<u64>,
    layout: &FieldMap,
    temp: &Path,
    name: &str,
    options: &ConvertOptions,
) -> Result<ConvertSummary> {
    let write = RNTupleWriteOptions::default()
        .with_compression(
            options
                .compression
                .unwrap_or(Compression::ROOT_RNTUPLE_DEFAULT),
        )
        .with_projections(layout.projections.clone());
    let parallel = RNTupleParallelOptions::default()
        .with_write(write)
        .with_memory_budget(options.memory_budget / 2)
        .with_ordered(true);
    let writer = RNTupleParallelWriter::recreate(temp, name, layout.fields.clone(), parallel)?;
    let entries = write_in_order(
        reader,
        range,
        layout,
        options,
        || writer.context(),
        |context, sequence, batch| context.extend_sequence(sequence, batch),
    );
    let closed = writer.close();
    let entries = entries?;
    closed?;
    let mut fields: Vec<String> = layout.fields.iter().map(|f| f.name.clone()).collect();
    fields.extend(layout.projections.iter().map(|p| p.name.clone()));
    Ok(ConvertSummary {
        entries,
        fields,
        ..ConvertSummary::default()
    })
}

fn to_ttree(
    reader: &AnyReader,
    range: Range<u64>,
    layout: &FieldMap,
    temp: &Path,
    name: &str,
    options: &ConvertOptions,
) -> Result<ConvertSummary> {
    let tree = TreeLayout::new(&layout.fields, |field| {
        let field_options = match layout.counters.iter().find(|(f, _)| f == field) {
            Some((_, counter)) => FieldOptions::default().with_counter(counter),
            None => FieldOptions::default(),
        };
        match options.split_level {
            Some(level) => field_options.with_split_level(level),
            None => field_options,
        }
    })?;
    let write = TTreeWriteOptions {
        compression: Some(
            options
                .compression
                .unwrap_or(Compression::ROOT_FILE_DEFAULT),
        ),
        ..TTreeWriteOptions::default()
    };
    let parallel = TTreeParallelOptions::default()
        .with_write(write)
        .with_memory_budget(options.memory_budget / 2)
        .with_ordered(true);
    let writer = TTreeParallelWriter::recreate(temp, name, tree.branches().to_vec(), parallel)?;
    let entries = write_in_order(
        reader,
        range,
        layout,
        options,
        || writer.context(),
        |context, sequence, batch| {
            tree.with_branch_batches(batch, |branches| {
                context.extend_sequence(sequence, branches)
            })
        },
    );
    let closed = writer.close();
    let entries = entries?;
    closed?;
    Ok(ConvertSummary {
        entries,
        fields: tree
            .branches()
            .iter()
            .map(|b| b.name().to_string())
            .collect(),
        ..ConvertSummary::default()
    })
}

fn io_error(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source,
    }
}
