//! `rootweave generate`: a synthetic dataset written as an RNTuple by the parallel writer
//! from several threads (or by the sequential writer), with a progress bar and a summary.

mod ttree;

pub use ttree::{generate_ttree, generate_ttree_sequential};

use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rootweave::array::ColumnData;
use rootweave::compress::Compression;
use rootweave::rntuple::{
    RNTupleFillContext, RNTupleParallelOptions, RNTupleParallelWriter, RNTupleWriteOptions,
    RNTupleWriter,
};
use rootweave::Result;

use rootweave_synth::schemas::Schema;

/// What to generate and how.
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    /// The dataset.
    pub schema: Schema,
    /// Number of entries.
    pub entries: u64,
    /// Compression of pages and metadata.
    pub compression: Compression,
    /// Seed of the generator.
    pub seed: u64,
    /// Producer threads.
    pub threads: usize,
    /// Memory budget of the writer in bytes.
    pub memory_budget: u64,
    /// Clusters (one per chunk) in chunk order, so that the file's contents do not depend
    /// on the thread count.
    pub ordered: bool,
    /// Show a progress bar (only on a terminal).
    pub progress: bool,
    /// TTrees: the split levels of the classes' branches (the `complex` dataset's `e0`,
    /// `e1`, ...: the k-th level for the k-th branch, the last for the branches after it;
    /// empty: ROOT's 99).
    pub split_levels: Vec<i32>,
    /// RNTuples: the `complex` dataset's records as the classes `Event` and `Vec3` (as
    /// TTrees hold them) instead of untyped records.
    pub classes: bool,
    /// TTrees: the `complex` dataset's collections as NanoAOD-style branches (counters and
    /// counted arrays) instead of `std::vector<Event>`.
    pub flat: bool,
}

/// What was written.
#[derive(Debug, Clone)]
pub struct GenerateSummary {
    /// Entries written.
    pub entries: u64,
    /// Clusters written.
    pub clusters: u64,
    /// Stored page bytes.
    pub stored_bytes: u64,
    /// Uncompressed page bytes.
    pub uncompressed_bytes: u64,
    /// Size of the file.
    pub file_bytes: u64,
    /// Wall time.
    pub seconds: f64,
    /// Highest memory the writer's budget accounted (none for the sequential TTree
    /// writer, which has no budget: its memory is its open baskets).
    pub budget_peak: Option<u64>,
    /// Peak resident memory of the process, if known.
    pub peak_rss: Option<u64>,
}

/// A parallel writer as `generate` drives it: fill contexts, one per thread, that take the
/// dataset's chunks (in chunk order when ordered), and what the writer tells on the way
/// and at the end.
pub(crate) trait ParallelOutput {
    /// A fill context.
    type Context: Send;
    /// A new fill context.
    fn context(&self) -> Self::Context;
    /// Appends chunk `index`'s `batch` through `context`: as cluster `index` if `ordered`.
    fn extend(
        &self,
        context: &mut Self::Context,
        index: u64,
        batch: &[ColumnData],
        ordered: bool,
    ) -> Result<()>;
    /// Uncompressed bytes committed so far, and budget bytes in use.
    fn status(&self) -> (u64, u64);
    /// The most bytes the budget accounted.
    fn budget_peak(&self) -> u64;
    /// Closes the writer: entries, clusters, stored and uncompressed bytes.
    fn close(self) -> Result<(u64, u64, u64, u64)>;
}

impl ParallelOutput for RNTupleParallelWriter {
    type Context = RNTupleFillContext;
    fn context(&self) -> RNTupleFillContext {
        RNTupleParallelWriter::context(self)
    }
    fn extend(
        &self,
        context: &mut RNTupleFillContext,
        index: u64,
        batch: &[ColumnData],
        ordered: bool,
    ) -> Result<()> {
        match ordered {
            true => context.extend_sequence(index, batch),
            false => context.extend(batch),
        }
    }
    fn status(&self) -> (u64, u64) {
        (self.committed_bytes().1, self.budget().in_use())
    }
    fn budget_peak(&self) -> u64 {
        self.budget().peak()
    }
    fn close(self) -> Result<(u64, u64, u64, u64)> {
        let s = RNTupleParallelWriter::close(self)?;
        Ok((
            s.entries,
            s.clusters,
            s.stored_page_bytes,
            s.uncompressed_page_bytes,
        ))
    }
}

/// The RNTuple fields of the dataset: the `complex` records as classes if asked.
fn rntuple_fields(options: &GenerateOptions) -> Vec<rootweave::rntuple::Field> {
    match options.classes {
        true => options.schema.tree_fields(),
        false => options.schema.fields(),
    }
}

/// Generates the dataset into `out` as an RNTuple.
pub fn generate(out: &Path, options: &GenerateOptions) -> Result<GenerateSummary> {
    let start = Instant::now();
    let writer = RNTupleParallelWriter::recreate(
        out,
        "Events",
        rntuple_fields(options),
        RNTupleParallelOptions::default()
            .with_write(RNTupleWriteOptions::default().with_compression(options.compression))
            .with_memory_budget(options.memory_budget)
            .with_ordered(options.ordered)
            // A program of its own: resident memory may follow the budget process-wide.
            .with_return_freed_memory(true),
    )?;
    write_parallel(writer, out, options, start)
}

/// Generates the dataset into `out` as an RNTuple called `Events`, chunk after chunk on
/// one thread, by the sequential writer (clusters sized as ROOT's RNTupleWriter sizes
/// them by default).
pub fn generate_sequential(out: &Path, options: &GenerateOptions) -> Result<GenerateSummary> {
    let start = Instant::now();
    let mut writer = RNTupleWriter::recreate(
        out,
        "Events",
        rntuple_fields(options),
        RNTupleWriteOptions::default().with_compression(options.compression),
    )?;
    each_chunk(options, |batch| writer.extend(batch))?;
    let summary = writer.close()?;
    Ok(GenerateSummary {
        entries: summary.entries,
        clusters: summary.clusters,
        stored_bytes: summary.stored_page_bytes,
        uncompressed_bytes: summary.uncompressed_page_bytes,
        file_bytes: std::fs::metadata(out).map(|m| m.len()).unwrap_or(0),
        seconds: start.elapsed().as_secs_f64(),
        budget_peak: None,
        peak_rss: peak_rss(),
    })
}

/// Hands the dataset's chunks to `extend` one after the other, on this thread (each made
/// in the memory of the one before).
pub(crate) fn each_chunk(
    options: &GenerateOptions,
    mut extend: impl FnMut(&[ColumnData]) -> Result<()>,
) -> Result<()> {
    let mut spare = None;
    for index in 0..options.schema.chunks(options.entries) {
        let chunk =
            options
                .schema
                .chunk_reusing(options.seed, index, options.entries, spare.take());
        chunk.with_columns(&mut extend)?;
        spare = Some(chunk);
    }
    Ok(())
}

/// Fills the dataset through `writer`'s contexts, one per thread, and closes it.
pub(crate) fn write_parallel<W: ParallelOutput + Sync>(
    writer: W,
    out: &Path,
    options: &GenerateOptions,
    start: Instant,
) -> Result<GenerateSummary> {
    // Every context is made before any thread starts, so that each sizes its buffers for
    // all of them from its first entry on.
    let contexts: Vec<_> = (0..options.threads.max(1))
        .map(|_| writer.context())
        .collect();
    let produced = produce(
        contexts,
        options,
        start,
        |ctx, index, batch| writer.extend(ctx, index, batch, options.ordered),
        || writer.status(),
    );
    if let Err(e) = produced {
        let _ = writer.close();
        return Err(e);
    }
    let budget_peak = writer.budget_peak();
    let (entries, clusters, stored_bytes, uncompressed_bytes) = writer.close()?;
    Ok(GenerateSummary {
        entries,
        clusters,
        stored_bytes,
        uncompressed_bytes,
        file_bytes: std::fs::metadata(out).map(|m| m.len()).unwrap_or(0),
        seconds: start.elapsed().as_secs_f64(),
        budget_peak: Some(budget_peak),
        peak_rss: peak_rss(),
    })
}

/// Fills the dataset's chunks through `contexts`, one thread each, chunk `index` by
/// `extend(context, index, batch)`, with a progress bar fed by `status` (uncompressed
/// bytes committed, budget bytes in use); returns the first error.
pub(crate) fn produce<C: Send>(
    contexts: Vec<C>,
    options: &GenerateOptions,
    start: Instant,
    extend: impl Fn(&mut C, u64, &[ColumnData]) -> Result<()> + Sync,
    status: impl Fn() -> (u64, u64),
) -> Result<()> {
    let chunks = options.schema.chunks(options.entries);
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let bar = progress_bar(options);
    let first_error = std::sync::Mutex::new(None);
    let threads = contexts.len() as u64;
    std::thread::scope(|scope| {
        for mut ctx in contexts {
            let (next, done, first_error, extend) = (&next, &done, &first_error, &extend);
            // The memory of the chunk before, filled again.
            let mut spare = None;
            scope.spawn(move || loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= chunks {
                    break;
                }
                let chunk = options.schema.chunk_reusing(
                    options.seed,
                    index,
                    options.entries,
                    spare.take(),
                );
                let result = chunk.with_columns(|batch| extend(&mut ctx, index, batch));
                if let Err(e) = result {
                    first_error
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get_or_insert(e);
                    // Later chunks would wait for this one in ordered mode.
                    next.store(chunks, Ordering::Relaxed);
                    break;
                }
                done.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                spare = Some(chunk);
            });
        }
        if let Some(bar) = &bar {
            while done.load(Ordering::Relaxed) < options.entries
                && next.load(Ordering::Relaxed) < chunks + threads
            {
                let entries = done.load(Ordering::Relaxed);
                let (uncompressed, in_use) = status();
                let seconds = start.elapsed().as_secs_f64().max(1e-9);
                bar.set_position(entries);
                bar.set_message(format!(
                    "{:.0} MB/s, {} MiB buffered",
                    uncompressed as f64 / 1e6 / seconds,
                    in_use >> 20
                ));
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match first_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn progress_bar(options: &GenerateOptions) -> Option<indicatif::ProgressBar> {
    if !options.progress || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(options.entries);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} entries, {per_sec}, {msg} [{elapsed_precise}]",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// Peak resident memory of this process (Linux), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
