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

mod backpressure;
mod commit;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use crate::container::{FileWriter, WriterOptions};
use crate::error::{Error, Result};
use crate::parallel::contexts::{lock, ContextList, Failures};
use crate::parallel::order::SequenceQueue;
use crate::parallel::sizing::first_cluster_share;
use crate::parallel::{FreedMemory, MemoryBudget};

use super::builder::{ClusterBuilder, SealedCluster};
use super::cluster::ClusterPlan;
use super::schema::Field;
use super::stored_pages::StoredPages;
use super::writer::{NtupleSink, RNTupleWriteOptions, RNTupleWriteSummary};
use crate::array::{ColumnData, Value};
use backpressure::{after_append, append_batch, reserve, start_filling, stop_filling};
use commit::{commit, record_cluster, write_parked, Keep};

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

struct Parked {
    cluster: SealedCluster,
    plan: ClusterPlan,
    reserved: u64,
}

struct Shared {
    /// Columns of the RNTuple.
    columns: usize,
    /// Contexts filling: counted from their creation (a context is made to be filled)
    /// until their buffers are freed (closed, or idle and flushed by another thread), or
    /// until another context commits while they have never had an entry (see
    /// [`stop_counting_unused`]), and again from their next entry. Their number sets the
    /// page size of a context that starts a cluster (see [`buffer_size_for_budget`]).
    filling: AtomicUsize,
    sink: Mutex<NtupleSink>,
    /// Pages of the written clusters, which later clusters share instead of storing them
    /// again. None in ordered mode: which clusters are written by the time another one is
    /// planned depends on timing, and ordered files are the same bytes whatever the timing.
    stored_pages: Option<StoredPages>,
    budget: MemoryBudget,
    /// Bytes of written clusters freed, when the caller asked for free pages to be
    /// returned (see [`RNTupleParallelOptions::return_freed_memory`] and [`FreedMemory`]).
    freed: Option<FreedMemory>,
    options: RNTupleParallelOptions,
    order: Mutex<SequenceQueue<Parked>>,
    /// Held (shared) while cluster bytes are being written; `close` takes it exclusively
    /// to wait for them.
    writing: RwLock<()>,
    contexts: ContextList<ContextState>,
    /// Contexts handed out so far.
    contexts_made: AtomicUsize,
    failures: Failures,
    closed: AtomicBool,
}

struct ContextState {
    builder: ClusterBuilder,
    /// Budget bytes this context holds for its builder's buffers.
    reserved: u64,
    /// The page size of the builder's columns.
    page_size: usize,
    /// True while the context is counted in [`Shared::filling`].
    filling: bool,
    /// True once the context has had an entry.
    filled: bool,
    closed: bool,
    /// The part of the cluster target that the context's first cluster takes (1 after
    /// it): see [`first_cluster_share`].
    first_cluster_share: f64,
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
    shared: Arc<Shared>,
}

/// A producer's handle: buffers its own pages and seals its own clusters. `Send`, so it
/// can move to any thread. Dropping it commits what it holds (unless its thread is
/// panicking, in which case its unfinished cluster is discarded).
pub struct RNTupleFillContext {
    shared: Arc<Shared>,
    state: Arc<Mutex<ContextState>>,
}

/// Bytes of bookkeeping a context may need beyond its data (pages' checksums, block
/// headers, vector growth).
const STEP_OVERHEAD: u64 = 64 << 10;

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
        lock(&writer.shared.sink).owns_file = true;
        Ok(writer)
    }

    /// Starts an RNTuple called `name` in an open file.
    pub fn in_file(
        file: Arc<FileWriter>,
        name: &str,
        fields: Vec<Field>,
        options: RNTupleParallelOptions,
    ) -> Result<Self> {
        if options.memory_budget < (1 << 20) {
            return Err(Error::InvalidArgument(
                "the memory budget must be at least 1 MiB".into(),
            ));
        }
        let sink = NtupleSink::new(file, name, fields, options.write.clone())?;
        Ok(RNTupleParallelWriter {
            shared: Arc::new(Shared {
                columns: sink.builder().column_count(),
                filling: AtomicUsize::new(0),
                sink: Mutex::new(sink),
                stored_pages: (!options.ordered).then(StoredPages::new),
                budget: MemoryBudget::new(options.memory_budget),
                freed: options
                    .return_freed_memory
                    .then(|| FreedMemory::new(options.memory_budget / 32)),
                options,
                order: Mutex::new(SequenceQueue::default()),
                writing: RwLock::new(()),
                contexts: ContextList::default(),
                contexts_made: AtomicUsize::new(0),
                failures: Failures::default(),
                closed: AtomicBool::new(false),
            }),
        })
    }

    /// A new fill context. Any number may exist at once, on any threads. Make contexts
    /// when they are about to be filled: the contexts in use share the budget, and a
    /// context counts among them from its creation (contexts made together then size
    /// their pages for all of them from their first entries) until it is dropped, or
    /// until another context commits a cluster while it has never had an entry.
    pub fn context(&self) -> RNTupleFillContext {
        // The builder has the configured page size until the context starts filling (see
        // `start_filling`).
        let builder = lock(&self.shared.sink).builder();
        let page_size = self.shared.options.write.max_page_size;
        let made = self.shared.contexts_made.fetch_add(1, Ordering::Relaxed);
        // Counted at once, not at its first entry: contexts made together (one per
        // thread) start filling a moment apart, and the first would otherwise size its
        // page buffers for itself alone, then drop them all at its first commit for the
        // smaller pages of several contexts (with two `complex` contexts, 80 MiB of fresh
        // memory touched for nothing, a third more page faults than one context has).
        self.shared.filling.fetch_add(1, Ordering::Relaxed);
        let state = Arc::new(Mutex::new(ContextState {
            builder,
            reserved: 0,
            page_size,
            filling: true,
            filled: false,
            closed: false,
            first_cluster_share: first_cluster_share(made),
        }));
        self.shared.contexts.add(&state);
        RNTupleFillContext {
            shared: self.shared.clone(),
            state,
        }
    }

    /// The memory budget (to watch `in_use` and `peak`).
    pub fn budget(&self) -> &MemoryBudget {
        &self.shared.budget
    }

    /// Entries committed so far.
    pub fn committed_entries(&self) -> u64 {
        lock(&self.shared.sink).entries
    }

    /// Checkpoints: the clusters whose bytes are written by now (in entry order, up to the
    /// first one still being written) become readable, as after
    /// [`super::RNTupleWriter::checkpoint`]; entries still in contexts are not included
    /// (commit them first). The writer also checkpoints on its own (see
    /// [`RNTupleWriteOptions::checkpoint_bytes`]).
    pub fn checkpoint(&self) -> Result<()> {
        let shared = &self.shared;
        let _writing = shared.writing.read().unwrap_or_else(|e| e.into_inner());
        let file = lock(&shared.sink).file()?.clone();
        commit::checkpoint(shared, &file, true)
    }

    /// Entries that the last checkpoint made readable.
    pub fn checkpointed_entries(&self) -> u64 {
        lock(&self.shared.sink).ledger.checkpointed_entries()
    }

    /// Bytes of pages committed so far: (stored, uncompressed).
    pub fn committed_bytes(&self) -> (u64, u64) {
        let sink = lock(&self.shared.sink);
        (
            sink.summary.stored_page_bytes,
            sink.summary.uncompressed_page_bytes,
        )
    }

    /// Commits what every context still holds, waits for all writes, and writes the page
    /// list, footer and anchor. The file is complete even if a producer failed; the
    /// failures are then reported as an error after the file is written.
    pub fn close(self) -> Result<RNTupleWriteSummary> {
        let shared = &self.shared;
        shared.closed.store(true, Ordering::SeqCst);
        for state in shared.contexts.alive() {
            let mut state = lock(&state);
            if !state.closed {
                state.closed = true;
                if let Err(e) = commit(shared, &mut state, None, Keep::Nothing) {
                    record(shared, e.to_string());
                }
            }
        }
        // Ordered mode: what is still parked goes in, in order, across any gaps.
        let parked = lock(&shared.order).drain_all();
        for p in parked {
            if let Err(e) = write_parked(shared, p) {
                record(shared, e.to_string());
            }
        }
        drop(shared.writing.write().unwrap_or_else(|e| e.into_inner()));
        let summary = lock(&shared.sink).finish()?;
        let closed = format!("the file was closed with {} entries", summary.entries);
        shared.failures.result(summary, &closed)
    }
}

fn record(shared: &Shared, message: String) {
    shared.failures.record(message);
}

impl RNTupleFillContext {
    fn state(&self) -> Result<MutexGuard<'_, ContextState>> {
        let state = lock(&self.state);
        if state.closed {
            return Err(Error::InvalidArgument(
                "the parallel writer was closed".into(),
            ));
        }
        Ok(state)
    }

    /// Appends one entry: one value per top-level field, in schema order.
    pub fn fill(&mut self, values: &[Value]) -> Result<()> {
        let shared = self.shared.clone();
        let mut state = self.state()?;
        state.builder.check_values(values)?;
        start_filling(&shared, &mut state);
        reserve(&shared, &mut state, 4096, None)?;
        state.builder.append_values(values);
        after_append(&shared, &mut state)
    }

    /// Appends many entries at once (see [`super::RNTupleWriter::extend`]). Clusters are
    /// committed whenever they reach their target size or the memory budget is tight.
    pub fn extend(&mut self, batch: &[ColumnData]) -> Result<()> {
        if self.shared.options.ordered {
            return Err(Error::InvalidArgument(
                "an ordered parallel writer takes batches with a sequence number (extend_sequence)"
                    .into(),
            ));
        }
        let shared = self.shared.clone();
        let mut state = self.state()?;
        append_batch(&shared, &mut state, batch, None)?;
        Ok(())
    }

    /// Appends a batch and commits it as the cluster with sequence number `sequence`
    /// (ordered mode). Sequence numbers start at 0; each is used once. Sealed clusters wait
    /// (holding their budget) until every smaller sequence number is committed or skipped;
    /// the context holding the next number never waits for budget, and another waits at
    /// most 20 ms before it overdraws, since the next number may belong to a thread that
    /// is waiting itself. Hand out numbers in order (an atomic counter) to keep waits short.
    pub fn extend_sequence(&mut self, sequence: u64, batch: &[ColumnData]) -> Result<()> {
        if !self.shared.options.ordered {
            return Err(Error::InvalidArgument(
                "extend_sequence needs a writer created with ordered = true".into(),
            ));
        }
        let shared = self.shared.clone();
        let mut state = self.state()?;
        if state.builder.entries() > 0 {
            return Err(Error::InvalidArgument(
                "extend_sequence: the context holds unsequenced entries".into(),
            ));
        }
        append_batch(&shared, &mut state, batch, Some(sequence))?;
        commit(&shared, &mut state, Some(sequence), Keep::Pages)
    }

    /// Declares that sequence number `sequence` will never be committed (ordered mode),
    /// so that the clusters after it need not wait for it.
    pub fn skip_sequence(&mut self, sequence: u64) -> Result<()> {
        let shared = self.shared.clone();
        let mut order = lock(&shared.order);
        let ready = order.skip_ready(sequence)?;
        let mut pending = Vec::with_capacity(ready.len());
        for p in ready {
            pending.push(record_cluster(&shared, p)?);
        }
        drop(order);
        for p in pending {
            p.write(&shared)?;
        }
        Ok(())
    }

    /// Commits the entries buffered so far as a cluster.
    pub fn commit_cluster(&mut self) -> Result<()> {
        let shared = self.shared.clone();
        let mut state = self.state()?;
        commit(&shared, &mut state, None, Keep::All)
    }
}

impl Drop for RNTupleFillContext {
    fn drop(&mut self) {
        let mut state = lock(&self.state);
        if state.closed {
            return;
        }
        state.closed = true;
        if std::thread::panicking() {
            // A producer that panics loses its unfinished cluster; what it committed stays.
            state.builder.discard();
            stop_filling(&self.shared, &mut state);
            self.shared.budget.release(state.reserved);
            state.reserved = 0;
            record(&self.shared, "a producer panicked".into());
        } else if let Err(e) = commit(&self.shared, &mut state, None, Keep::Nothing) {
            record(&self.shared, e.to_string());
        }
    }
}
