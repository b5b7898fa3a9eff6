//! The parallel RNTuple writer: any number of fill contexts, on any threads, fill one
//! RNTuple in one file. Each context encodes, compresses and checksums its own clusters;
//! contexts meet only at the commit point, a short critical section that reserves the
//! cluster's byte range and records it. The bytes are written afterwards, outside any
//! lock. All buffered data counts against one memory budget, reserved before it is
//! buffered; a context that would exceed it first writes its own cluster (so clusters
//! shrink under memory pressure), then waits.
//!
//! Ordered mode: every cluster carries a sequence number (for example the index of the
//! chunk of input it holds) and clusters enter the RNTuple in sequence order, so the
//! entry order does not depend on thread count or timing.
//!
//! The budget, backpressure, ordering and commit are the engine's
//! ([`crate::parallel::engine`]); this module gives it the RNTuple's buffers and sink.

mod sink;

use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::array::{ColumnData, Value};
use crate::container::{FileWriter, WriterOptions};
use crate::error::Result;
use crate::parallel::engine::contexts::lock;
use crate::parallel::engine::{Engine, EngineOptions, FillContext, Pace};
use crate::parallel::MemoryBudget;

use super::schema::Field;
use super::stored_pages::StoredPages;
use super::writer::{NtupleSink, RNTupleWriteOptions, RNTupleWriteSummary};
use sink::ParallelNtuple;

/// Settings of a [`RNTupleParallelWriter`]; build them from the default with the `with_`
/// methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RNTupleParallelOptions {
    /// Page, cluster and compression settings (as for the sequential writer; the cluster
    /// target is an upper bound: a context commits its cluster at a quarter of its share
    /// of the memory budget already, unless that would give clusters of fewer than two
    /// pages per column; clusters shrink when the budget is tight).
    pub write: RNTupleWriteOptions,
    /// Bytes that buffered pages and sealed-but-unwritten clusters may take in all
    /// (default 256 MiB). Every byte a context's buffers can grow by is reserved before it
    /// is appended, so in unordered mode the buffers never hold more; in ordered mode the
    /// budget can be overdrawn by one step per waiting thread (see `extend_sequence`). Pages
    /// are made smaller than `write.max_page_size` when one page per column for every
    /// context that is filling would take more than half of the budget (a power of two,
    /// down to 4 KiB: a budget must hold at least `columns x 8 KiB`, one page buffer and a
    /// sealed page per column, for each context at work).
    pub memory_budget: u64,
    /// Clusters enter the RNTuple in the order of their sequence numbers
    /// ([`RNTupleFillContext::extend_sequence`]). Identical pages are then shared within a
    /// cluster only, not with earlier clusters (which of those are written when a cluster
    /// is planned depends on timing), so that the same input gives the same bytes.
    pub ordered: bool,
    /// Ask the allocator to return its free pages to the system each time a 32nd of the
    /// budget was freed (`malloc_trim` with glibc; default false), so that resident memory
    /// follows the budget when producers on several threads each keep an arena. Off by
    /// default because it acts on the whole process's heap.
    pub return_freed_memory: bool,
}

impl Default for RNTupleParallelOptions {
    fn default() -> Self {
        RNTupleParallelOptions {
            write: RNTupleWriteOptions::default(),
            memory_budget: 256 << 20,
            ordered: false,
            return_freed_memory: false,
        }
    }
}

impl RNTupleParallelOptions {
    /// With page, cluster and compression settings.
    pub fn with_write(mut self, write: RNTupleWriteOptions) -> Self {
        self.write = write;
        self
    }

    /// With `memory_budget` bytes for buffered pages and unwritten clusters.
    pub fn with_memory_budget(mut self, memory_budget: u64) -> Self {
        self.memory_budget = memory_budget;
        self
    }

    /// With clusters in the order of their sequence numbers, or not.
    pub fn with_ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// With the allocator's free pages returned to the system as the budget's memory is
    /// freed, or not.
    pub fn with_return_freed_memory(mut self, return_freed_memory: bool) -> Self {
        self.return_freed_memory = return_freed_memory;
        self
    }

    /// With pages and metadata compressed by `compression`.
    pub fn with_compression(mut self, compression: crate::compress::Compression) -> Self {
        self.write.compression = compression;
        self
    }
}

/// Writes one RNTuple from many threads. Hand out [`RNTupleFillContext`]s with
/// [`RNTupleParallelWriter::context`]; close with [`RNTupleParallelWriter::close`].
///
/// ```no_run
/// use rootweave::rntuple::{ColumnData, Field, FieldType, RNTupleParallelOptions, RNTupleParallelWriter};
/// let fields = vec![Field::new("x", FieldType::Int32)];
/// let writer = RNTupleParallelWriter::recreate("out.root", "Events", fields, RNTupleParallelOptions::default())?;
/// std::thread::scope(|s| {
///     for t in 0..4 {
///         let mut ctx = writer.context();
///         s.spawn(move || ctx.extend(&[ColumnData::Int32(&[t; 1000])]));
///     }
/// });
/// writer.close()?;
/// # Ok::<(), rootweave::Error>(())
/// ```
pub struct RNTupleParallelWriter {
    engine: Arc<Engine<ParallelNtuple>>,
}

/// A producer's handle: buffers its own pages and seals its own clusters. `Send`, so it
/// can move to any thread. Dropping it commits what it holds (unless its thread is
/// panicking, in which case its unfinished cluster is discarded).
pub struct RNTupleFillContext {
    inner: FillContext<ParallelNtuple>,
}

impl RNTupleParallelWriter {
    /// Creates (or overwrites) the file at `path` with one RNTuple called `name`.
    pub fn recreate(
        path: impl AsRef<Path>,
        name: &str,
        fields: Vec<Field>,
        options: RNTupleParallelOptions,
    ) -> Result<Self> {
        let file = FileWriter::create(
            path,
            WriterOptions {
                compression: options.write.compression,
                ..WriterOptions::default()
            },
        )?;
        let writer = Self::in_file(Arc::new(file), name, fields, options)?;
        lock(&writer.engine.sink.sink).owns_file = true;
        Ok(writer)
    }

    /// Starts an RNTuple called `name` in an open file.
    pub fn in_file(
        file: Arc<FileWriter>,
        name: &str,
        fields: Vec<Field>,
        options: RNTupleParallelOptions,
    ) -> Result<Self> {
        let engine_options = EngineOptions {
            memory_budget: options.memory_budget,
            ordered: options.ordered,
            return_freed_memory: options.return_freed_memory,
        };
        // Checked before the header is written.
        engine_options.check()?;
        let sink = NtupleSink::new(file, name, fields, options.write.clone())?;
        let engine = Engine::new(
            ParallelNtuple {
                columns: sink.builder().column_count(),
                sink: Mutex::new(sink),
                stored_pages: (!options.ordered).then(StoredPages::new),
                options,
            },
            engine_options,
        )?;
        Ok(RNTupleParallelWriter { engine })
    }

    /// A new fill context. Any number may exist at once, on any threads. Make contexts
    /// when they are about to be filled: the contexts in use share the budget, and a
    /// context counts among them from its creation (contexts made together then size
    /// their pages for all of them from their first entries) until it is dropped, or
    /// until another context commits a cluster while it has never had an entry.
    pub fn context(&self) -> RNTupleFillContext {
        RNTupleFillContext {
            inner: self.engine.context(),
        }
    }

    /// The memory budget (to watch `in_use` and `peak`).
    pub fn budget(&self) -> &MemoryBudget {
        self.engine.budget()
    }

    /// The memory budget as a shared handle that outlives the writer: to wait for bytes
    /// given back ([`MemoryBudget::wait_for_release`]) or be told of them
    /// ([`MemoryBudget::set_release_listener`]) while other threads use the writer.
    pub fn shared_budget(&self) -> Arc<MemoryBudget> {
        self.engine.shared_budget()
    }

    /// Entries committed so far.
    pub fn committed_entries(&self) -> u64 {
        lock(&self.engine.sink.sink).entries
    }

    /// Checkpoints: the clusters whose bytes are written by now (in entry order, up to the
    /// first one still being written) become readable, as after
    /// [`super::RNTupleWriter::checkpoint`]; entries still in contexts are not included
    /// (commit them first). The writer also checkpoints on its own (see
    /// [`RNTupleWriteOptions::checkpoint_bytes`]).
    pub fn checkpoint(&self) -> Result<()> {
        let engine = &self.engine;
        let _writing = engine.writing.read().unwrap_or_else(|e| e.into_inner());
        let file = lock(&engine.sink.sink).file()?.clone();
        engine.sink.checkpoint(&file, true)
    }

    /// Entries that the last checkpoint made readable.
    pub fn checkpointed_entries(&self) -> u64 {
        lock(&self.engine.sink.sink).ledger.checkpointed_entries()
    }

    /// Bytes of pages committed so far: (stored, uncompressed).
    pub fn committed_bytes(&self) -> (u64, u64) {
        let sink = lock(&self.engine.sink.sink);
        (
            sink.summary.stored_page_bytes,
            sink.summary.uncompressed_page_bytes,
        )
    }

    /// Commits what every context still holds, waits for all writes, and writes the page
    /// list, footer and anchor. The file is complete even if a producer failed; the
    /// failures are then reported as an error after the file is written.
    pub fn close(self) -> Result<RNTupleWriteSummary> {
        let engine = &self.engine;
        engine.close_contexts()?;
        let summary = lock(&engine.sink.sink).finish()?;
        let closed = format!("the file was closed with {} entries", summary.entries);
        engine.result(summary, &closed)
    }
}

impl RNTupleFillContext {
    /// Appends one entry: one value per top-level field, in schema order.
    pub fn fill(&mut self, values: &[Value]) -> Result<()> {
        let mut filling = self.inner.unordered()?;
        filling.buffers().check_values(values)?;
        filling.start();
        filling.append_step(4096, |builder| {
            builder.append_values(values);
            Ok(())
        })
    }

    /// Appends many entries at once (see [`super::RNTupleWriter::extend`]). Clusters are
    /// committed whenever they reach their target size or the memory budget is tight.
    pub fn extend(&mut self, batch: &[ColumnData]) -> Result<()> {
        let mut filling = self.inner.unordered()?;
        append_batch(&mut filling, batch)
    }

    /// Appends entries as [`RNTupleFillContext::extend`] does but leaves the cluster open,
    /// as ROOT's `FillNoFlush`: returns true once the cluster reached its target size, for
    /// the caller to commit it ([`RNTupleFillContext::commit_cluster`]) when it chooses.
    /// The budget still holds: a context that would exceed it commits its cluster first.
    pub fn extend_no_flush(&mut self, batch: &[ColumnData]) -> Result<bool> {
        let mut filling = self.inner.unordered()?.with_pace(Pace::NoFlush);
        append_batch(&mut filling, batch)?;
        Ok(filling.cluster_due())
    }

    /// Appends entries as [`RNTupleFillContext::extend`] does if the memory budget has
    /// room for them now, else appends nothing and returns false, never waiting (for task
    /// schedulers whose threads must not block: retry once budget is freed, see
    /// [`MemoryBudget::wait_for_release`]). The batch is appended in one step.
    pub fn try_extend(&mut self, batch: &[ColumnData]) -> Result<bool> {
        let mut filling = self.inner.unordered()?.with_pace(Pace::NoWait);
        append_batch(&mut filling, batch)?;
        Ok(!filling.blocked())
    }

    /// Appends a batch and commits it as the cluster with sequence number `sequence`
    /// (ordered mode). Sequence numbers start at 0; each is used once. Sealed clusters wait
    /// (holding their budget) until every smaller sequence number is committed or skipped;
    /// the context holding the next number never waits for budget, and another waits at
    /// most 20 ms before it overdraws, since the next number may belong to a thread that
    /// is waiting itself. Hand out numbers in order (an atomic counter) to keep waits short.
    pub fn extend_sequence(&mut self, sequence: u64, batch: &[ColumnData]) -> Result<()> {
        self.inner
            .sequenced(sequence, |filling| append_batch(filling, batch))
    }

    /// Appends entries to the context's staged cluster (ordered mode), which
    /// [`RNTupleFillContext::commit_staged`] then commits with the sequence number the caller
    /// chooses: entry-by-entry filling with the cluster order the caller's (ROOT's staged
    /// cluster committing). Returns true once the staged cluster reached its target size.
    pub fn extend_staged(&mut self, batch: &[ColumnData]) -> Result<bool> {
        let mut filling = self.inner.staged()?;
        append_batch(&mut filling, batch)?;
        Ok(filling.cluster_due())
    }

    /// Commits the staged entries as the cluster with sequence number `sequence` (ordered
    /// mode; see [`RNTupleFillContext::extend_sequence`] for the order). A context dropped with
    /// staged entries loses them, and closing the writer reports it.
    pub fn commit_staged(&mut self, sequence: u64) -> Result<()> {
        self.inner.commit_staged(sequence)
    }

    /// Declares that sequence number `sequence` will never be committed (ordered mode),
    /// so that the clusters after it need not wait for it.
    pub fn skip_sequence(&mut self, sequence: u64) -> Result<()> {
        self.inner.skip_sequence(sequence)
    }

    /// Commits the entries buffered so far as a cluster.
    pub fn commit_cluster(&mut self) -> Result<()> {
        self.inner.commit_cluster()
    }
}

/// Checks a batch and appends it in steps small against the budget, so that many
/// contexts fit in it.
fn append_batch(
    filling: &mut crate::parallel::engine::Filling<'_, ParallelNtuple>,
    batch: &[ColumnData],
) -> Result<()> {
    let checked = filling.buffers().check_batch(batch)?;
    filling.start();
    let max_step = (filling.memory_budget() / 16).max(64 << 10) as usize;
    let step = filling.buffers().step(&checked, max_step);
    let per_entry = checked.bytes as u64 / checked.entries.max(1) as u64 + 1;
    filling.append_steps(checked.entries, step, per_entry, |builder, start, end| {
        builder.append_batch(batch, start, end);
        Ok(())
    })
}
