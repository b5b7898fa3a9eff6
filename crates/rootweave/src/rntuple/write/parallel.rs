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

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};

use crate::container::{FileWriter, WriterOptions};
use crate::error::{Error, Result};
use crate::parallel::{FreedMemory, MemoryBudget};

use super::builder::{ClusterBuilder, SealedCluster};
use super::cluster::ClusterPlan;
use super::schema::Field;
use super::stored_pages::StoredPages;
use super::writer::{NtupleSink, WriteOptions, WriteSummary};
use crate::array::{ColumnData, Value};

/// Settings of a [`ParallelRNTupleWriter`]; build them from the default with the `with_`
/// methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ParallelOptions {
    /// Page, cluster and compression settings (as for the sequential writer; the cluster
    /// target is an upper bound: a context commits its cluster at a quarter of its share
    /// of the memory budget already, unless that would give clusters of fewer than two
    /// pages per column; clusters shrink when the budget is tight).
    pub write: WriteOptions,
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
    /// ([`FillContext::extend_sequence`]). Identical pages are then shared within a
    /// cluster only, not with earlier clusters (which of those are written when a cluster
    /// is planned depends on timing), so that the same input gives the same bytes.
    pub ordered: bool,
    /// Ask the allocator to return its free pages to the system each time a 32nd of the
    /// budget was freed (`malloc_trim` with glibc; default false), so that resident memory
    /// follows the budget when producers on several threads each keep an arena. Off by
    /// default because it acts on the whole process's heap.
    pub return_freed_memory: bool,
}

impl Default for ParallelOptions {
    fn default() -> Self {
        ParallelOptions {
            write: WriteOptions::default(),
            memory_budget: 256 << 20,
            ordered: false,
            return_freed_memory: false,
        }
    }
}

impl ParallelOptions {
    /// With page, cluster and compression settings.
    pub fn with_write(mut self, write: WriteOptions) -> Self {
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

/// Clusters waiting for their turn in ordered mode.
#[derive(Default)]
struct OrderState {
    next: u64,
    parked: BTreeMap<u64, Parked>,
    skipped: std::collections::BTreeSet<u64>,
}

/// Removes the clusters that are now at the head of the queue, in order.
fn take_ready(order: &mut OrderState) -> Vec<Parked> {
    let mut ready = Vec::new();
    loop {
        let next = order.next;
        if order.skipped.remove(&next) {
            order.next += 1;
        } else if let Some(p) = order.parked.remove(&next) {
            order.next += 1;
            ready.push(p);
        } else {
            return ready;
        }
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
    /// page size of a context that starts a cluster (see [`page_size_for_budget`]).
    filling: AtomicUsize,
    sink: Mutex<NtupleSink>,
    /// Pages of the written clusters, which later clusters share instead of storing them
    /// again. None in ordered mode: which clusters are written by the time another one is
    /// planned depends on timing, and ordered files are the same bytes whatever the timing.
    stored_pages: Option<StoredPages>,
    budget: MemoryBudget,
    /// Bytes of written clusters freed, when the caller asked for free pages to be
    /// returned (see [`ParallelOptions::return_freed_memory`] and [`FreedMemory`]).
    freed: Option<FreedMemory>,
    options: ParallelOptions,
    order: Mutex<OrderState>,
    /// Held (shared) while cluster bytes are being written; `close` takes it exclusively
    /// to wait for them.
    writing: RwLock<()>,
    contexts: Mutex<Vec<Weak<Mutex<ContextState>>>>,
    /// Contexts handed out so far.
    contexts_made: AtomicUsize,
    errors: Mutex<Vec<String>>,
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

/// Writes one RNTuple from many threads. Hand out [`FillContext`]s with
/// [`ParallelRNTupleWriter::context`]; close with [`ParallelRNTupleWriter::close`].
///
/// ```no_run
/// use rootweave::rntuple::{ColumnData, Field, FieldType, ParallelOptions, ParallelRNTupleWriter};
/// let fields = vec![Field::new("x", FieldType::Int32)];
/// let writer = ParallelRNTupleWriter::recreate("out.root", "Events", fields, ParallelOptions::default())?;
/// std::thread::scope(|s| {
///     for t in 0..4 {
///         let mut ctx = writer.context();
///         s.spawn(move || ctx.extend(&[ColumnData::Int32(&[t; 1000])]));
///     }
/// });
/// writer.close()?;
/// # Ok::<(), rootweave::Error>(())
/// ```
pub struct ParallelRNTupleWriter {
    shared: Arc<Shared>,
}

/// A producer's handle: buffers its own pages and seals its own clusters. `Send`, so it
/// can move to any thread. Dropping it commits what it holds (unless its thread is
/// panicking, in which case its unfinished cluster is discarded).
pub struct FillContext {
    shared: Arc<Shared>,
    state: Arc<Mutex<ContextState>>,
}

/// Bytes of bookkeeping a context may need beyond its data (pages' checksums, block
/// headers, vector growth).
const STEP_OVERHEAD: u64 = 64 << 10;

impl ParallelRNTupleWriter {
    /// Creates (or overwrites) the file at `path` with one RNTuple called `name`.
    pub fn recreate(
        path: impl AsRef<Path>,
        name: &str,
        fields: Vec<Field>,
        options: ParallelOptions,
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
        options: ParallelOptions,
    ) -> Result<Self> {
        if options.memory_budget < (1 << 20) {
            return Err(Error::InvalidArgument(
                "the memory budget must be at least 1 MiB".into(),
            ));
        }
        let sink = NtupleSink::new(file, name, fields, options.write.clone())?;
        Ok(ParallelRNTupleWriter {
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
                order: Mutex::new(OrderState::default()),
                writing: RwLock::new(()),
                contexts: Mutex::new(Vec::new()),
                contexts_made: AtomicUsize::new(0),
                errors: Mutex::new(Vec::new()),
                closed: AtomicBool::new(false),
            }),
        })
    }

    /// A new fill context. Any number may exist at once, on any threads. Make contexts
    /// when they are about to be filled: the contexts in use share the budget, and a
    /// context counts among them from its creation (contexts made together then size
    /// their pages for all of them from their first entries) until it is dropped, or
    /// until another context commits a cluster while it has never had an entry.
    pub fn context(&self) -> FillContext {
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
        let mut contexts = lock(&self.shared.contexts);
        contexts.retain(|c| c.strong_count() > 0);
        contexts.push(Arc::downgrade(&state));
        FillContext {
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
    pub fn close(self) -> Result<WriteSummary> {
        let shared = &self.shared;
        shared.closed.store(true, Ordering::SeqCst);
        let contexts: Vec<_> = lock(&shared.contexts)
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        for state in contexts {
            let mut state = lock(&state);
            if !state.closed {
                state.closed = true;
                if let Err(e) = commit(shared, &mut state, None, Keep::Nothing) {
                    record(shared, e.to_string());
                }
            }
        }
        // Ordered mode: what is still parked goes in, in order, across any gaps.
        let parked = std::mem::take(&mut lock(&shared.order).parked);
        for (_, p) in parked {
            if let Err(e) = write_parked(shared, p) {
                record(shared, e.to_string());
            }
        }
        drop(shared.writing.write().unwrap_or_else(|e| e.into_inner()));
        let summary = lock(&shared.sink).finish()?;
        let errors = lock(&shared.errors).clone();
        if errors.is_empty() {
            Ok(summary)
        } else {
            Err(Error::InvalidArgument(format!(
                "the file was closed with {} entries, but producers failed: {}",
                summary.entries,
                errors.join("; ")
            )))
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn record(shared: &Shared, message: String) {
    lock(&shared.errors).push(message);
}

impl FillContext {
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
        if sequence < order.next || order.parked.contains_key(&sequence) {
            return Err(Error::InvalidArgument(format!(
                "sequence number {sequence} was already used"
            )));
        }
        order.skipped.insert(sequence);
        let ready = take_ready(&mut order);
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

impl Drop for FillContext {
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

/// The page size of a context that starts a cluster while `filling` contexts (itself
/// included) hold buffers: the configured one, made smaller when their page buffers (one
/// full page per column each) would take more than half of the budget, so that the
/// contexts at work fit in it with their sealed pages (1000 columns, a 256 MiB budget and
/// one context give 128 KiB pages, two contexts 64 KiB). A power of two, so that it
/// changes only when the number of contexts at work doubles or halves; not below 4 KiB.
/// Small pages cost: they compress less well (each starts without context), and slower
/// (zstd picks slower match finders for inputs of 16 KiB or less).
fn page_size_for_budget(
    max_page_size: usize,
    budget: u64,
    columns: usize,
    filling: usize,
) -> usize {
    let share = budget / 2 / (columns.max(1) as u64 * filling.max(1) as u64);
    let power_of_two = 1usize << share.max(1).ilog2();
    power_of_two.max(4 << 10).min(max_page_size)
}

/// Counts the context among those filling (once), and gives its builder the page size
/// for the number of contexts at work if it holds no buffers yet.
fn start_filling(shared: &Shared, state: &mut ContextState) {
    state.filled = true;
    if !state.filling {
        state.filling = true;
        shared.filling.fetch_add(1, Ordering::Relaxed);
    }
    if state.builder.entries() == 0 && state.builder.allocated_bytes() == 0 {
        adapt_page_size(shared, state);
    }
}

/// Gives an empty builder the page size for the number of contexts at work, dropping
/// page buffers of another size (they are made again, at the new size, as data arrives).
fn adapt_page_size(shared: &Shared, state: &mut ContextState) {
    let page_size = page_size_for_budget(
        shared.options.write.max_page_size,
        shared.options.memory_budget,
        shared.columns,
        shared.filling.load(Ordering::Relaxed),
    );
    if page_size != state.page_size {
        state.builder.set_max_page_size(page_size);
        state.page_size = page_size;
    }
}

/// Frees an empty builder's buffers and stops counting the context among those filling.
fn stop_filling(shared: &Shared, state: &mut ContextState) {
    state.builder.release_memory();
    if state.filling {
        state.filling = false;
        shared.filling.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Checks and appends a batch step by step, reserving budget before each step.
fn append_batch(
    shared: &Shared,
    state: &mut ContextState,
    batch: &[ColumnData],
    sequence: Option<u64>,
) -> Result<()> {
    let checked = state.builder.check_batch(batch)?;
    start_filling(shared, state);
    // Steps small against the budget, so that many contexts fit in it.
    let max_step = (shared.options.memory_budget / 16).max(64 << 10) as usize;
    let step = state.builder.step(&checked, max_step);
    let per_entry = checked.bytes as u64 / checked.entries.max(1) as u64 + 1;
    let mut start = 0;
    while start < checked.entries {
        let end = (start + step).min(checked.entries);
        reserve(shared, state, per_entry * (end - start) as u64, sequence)?;
        state.builder.append_batch(batch, start, end);
        if sequence.is_none() {
            after_append(shared, state)?;
        } else {
            settle(shared, state);
        }
        start = end;
    }
    Ok(())
}

/// How long a producer waits for budget before it looks again for idle contexts to flush
/// (unordered mode), or before it overdraws (ordered mode, see [`reserve`]).
const BUDGET_WAIT: std::time::Duration = std::time::Duration::from_millis(20);

/// Takes budget for appending `data_bytes` bytes of column data: the worst case of what
/// the builder's buffers can grow by (settling afterwards gives back what they do not
/// really hold), waiting while the budget is spent.
///
/// Unordered mode never overdraws. The context first commits its own cluster, so that
/// it holds nothing but its page buffers and the spare segments of its fair share, and
/// clusters shrink under memory pressure; then it waits. While it waits it commits the
/// clusters of idle contexts (whose owners are busy elsewhere, e.g. many contexts on few
/// threads), so that everything still taken belongs to contexts running on other
/// threads, which give it back when they commit. That cannot deadlock: a running context
/// that cannot get budget commits its own cluster too, and one that holds no entries
/// frees its spare segments. A single step larger than the whole budget (one huge entry)
/// is granted once nothing else is taken.
///
/// Ordered mode parks sealed clusters until their turn, so the context holding the next
/// sequence number overdraws at once (everybody waits for it), and any other context
/// overdraws after waiting [`BUDGET_WAIT`] (the next one may be held by a thread that is
/// waiting itself). The overdraft is at most one step per waiting thread.
fn reserve(
    shared: &Shared,
    state: &mut ContextState,
    data_bytes: u64,
    sequence: Option<u64>,
) -> Result<()> {
    let step_bound = |state: &ContextState| state.builder.growth_bound(data_bytes) + STEP_OVERHEAD;
    let bytes = step_bound(state);
    if shared.budget.try_acquire(bytes) {
        state.reserved += bytes;
        return Ok(());
    }
    let bytes = match sequence {
        // The context commits at once, even under its fair share: waiting for others
        // to commit first would only idle, since a context over its share gives bytes
        // back once its cluster is written, which takes about as long as the wait may
        // last (the ~40 MB cluster of a `complex` context of two), and the waiting
        // context would then commit all the same. Clusters are as many either way.
        None => {
            commit(shared, state, None, Keep::Pages)?;
            // The cluster's segments, kept as spares, may cover much of the step now.
            let mut bytes = step_bound(state);
            if !shared.budget.try_acquire(bytes) {
                // They do not: waiting while holding them could end only by taking bytes
                // beyond the budget (once everything taken is this context's own).
                state.builder.release_sealed_buffers();
                give_back_unheld(shared, state);
                bytes = step_bound(state);
                while !shared
                    .budget
                    .acquire_holding_within(bytes, state.reserved, BUDGET_WAIT)
                {
                    flush_idle_contexts(shared);
                }
            }
            bytes
        }
        Some(seq) => {
            let head = lock(&shared.order).next == seq;
            if head || !shared.budget.acquire_within(bytes, BUDGET_WAIT) {
                shared.budget.force_acquire(bytes);
            }
            bytes
        }
    };
    state.reserved += bytes;
    Ok(())
}

/// Calls `f` with the state of every open context that no thread is using right now
/// (the calling context's own is in use, so it is skipped).
fn for_each_idle_context(shared: &Shared, mut f: impl FnMut(&mut ContextState)) {
    let contexts: Vec<_> = lock(&shared.contexts)
        .iter()
        .filter_map(Weak::upgrade)
        .collect();
    for context in contexts {
        if let Ok(mut state) = context.try_lock() {
            if !state.closed {
                f(&mut state);
            }
        }
    }
}

/// Commits the clusters of contexts that are not in use right now (their owners are busy
/// elsewhere), to give their memory back.
fn flush_idle_contexts(shared: &Shared) {
    for_each_idle_context(shared, |state| {
        // Also contexts without entries: they may keep buffers for their next cluster.
        if state.reserved > 0 {
            if let Err(e) = commit(shared, state, None, Keep::Nothing) {
                record(shared, e.to_string());
            }
        }
    });
}

/// Stops counting among those filling the contexts that were made but have never had an
/// entry, and are not in use right now: made and left aside, they would keep everybody's
/// pages and share of the budget small. Called at every commit; contexts made together
/// for threads that start at once have all had their first entries by then.
fn stop_counting_unused(shared: &Shared) {
    for_each_idle_context(shared, |state| {
        if state.filling && !state.filled {
            stop_filling(shared, state);
        }
    });
}

/// Makes the reservation what the builder's buffers will hold once its cluster is sealed
/// (what they hold now and the sealed copies of the pending elements): the excess of a
/// step's reservation goes back to the budget. Keeping the pending elements' sealed room
/// reserved means that sealing a cluster never needs budget, so a context can always
/// commit to make room. (The reservation covers the worst case, so the builder holding
/// more is not expected; if it happens it is counted all the same, and shows in the
/// budget's peak.)
fn settle(shared: &Shared, state: &mut ContextState) {
    let held = state.builder.bytes_when_sealed();
    if held > state.reserved {
        shared.budget.force_acquire(held - state.reserved);
    } else {
        shared.budget.release(state.reserved - held);
    }
    state.reserved = held;
}

/// After an unordered append: settle the reservation and commit the cluster if it reached
/// its target size.
fn after_append(shared: &Shared, state: &mut ContextState) -> Result<()> {
    settle(shared, state);
    let (sealed, pending, uncompressed) = state.builder.buffered();
    let ratio = lock(&shared.sink).compression_ratio();
    let estimate = sealed as f64 + pending as f64 * ratio;
    let options = &shared.options.write;
    if estimate >= cluster_target(shared, state) as f64
        || uncompressed >= options.max_cluster_uncompressed_size
    {
        commit(shared, state, None, Keep::All)?;
    }
    Ok(())
}

/// The compressed size at which a context commits its cluster: the writer's
/// `cluster_target_size`, but no more than a quarter of the context's [`fair_share`]
/// (for its first cluster, a part of that: [`first_cluster_share`]) unless that would
/// make clusters of fewer than two pages per column. Bytes still held
/// when the producers are done are written at close with nothing left to overlap: with
/// two contexts under 256 MiB, 128 MiB targets left the whole `single` file (168 MB of
/// zlib pages, ~50 ms of writing) to the end, 13% of the run against 7% for one thread.
/// Smaller clusters cost no bytes for pages that repeat: a page equal to one an earlier
/// cluster wrote points at that one (see [`StoredPages`]).
fn cluster_target(shared: &Shared, state: &ContextState) -> u64 {
    let quarter_share = (fair_share(shared) / 4) as f64 * state.first_cluster_share;
    let two_pages = 2 * shared.columns as u64 * state.page_size as u64;
    shared
        .options
        .write
        .cluster_target_size
        .min((quarter_share as u64).max(two_pages))
}

/// The part of the cluster target taken by the first cluster of the `made`-th context:
/// 1, 0.69, 0.88, 0.57, ... (one minus half the fractional part of `made` times the
/// golden ratio, which spreads any number of contexts evenly). Contexts that start
/// together and fill at one speed would otherwise commit, and write, at the same moments:
/// buffered writes to one file take its inode lock, and with two contexts writing `single`
/// zstd:5 at once the kernel spent 5% of all CPU time spinning on that lock. With their
/// first clusters of different sizes, their later commits stay apart.
fn first_cluster_share(made: usize) -> f64 {
    const GOLDEN: f64 = 0.618_033_988_749_895;
    1.0 - 0.5 * (made as f64 * GOLDEN).fract()
}

/// What a context's builder keeps after a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// Nothing: the context is closing, or idle and flushed by another thread.
    Nothing,
    /// Its page buffers, and of the written cluster's buffers what fits in its fair
    /// share of the budget (see [`fair_share`]): it goes on filling, but memory is tight,
    /// so a context without entries frees its spare buffers. (In ordered mode a cluster
    /// is written by whichever context completes the sequence, which keeps its buffers.)
    Pages,
    /// As `Pages`, but a context without entries keeps its spare buffers: it goes on
    /// filling, and memory is not tight.
    All,
}

/// Seals the context's cluster and commits it (or parks it until its turn, in ordered
/// mode). The sealing and planning happen here, on the producer's thread.
fn commit(
    shared: &Shared,
    state: &mut ContextState,
    sequence: Option<u64>,
    keep: Keep,
) -> Result<()> {
    if state.builder.entries() == 0 {
        match keep {
            Keep::Nothing => stop_filling(shared, state),
            Keep::Pages => state.builder.release_sealed_buffers(),
            Keep::All => {}
        }
        give_back_unheld(shared, state);
        return Ok(());
    }
    let cluster = state.builder.seal();
    state.first_cluster_share = 1.0;
    stop_counting_unused(shared);
    if keep == Keep::Nothing {
        stop_filling(shared, state);
    } else {
        adapt_page_size(shared, state);
    }
    let mut plan = ClusterPlan::new(
        &cluster,
        state.builder.checksums(),
        shared.options.write.max_key_size,
    );
    if let Some(stored) = &shared.stored_pages {
        let file = lock(&shared.sink).file()?.clone();
        plan.share_stored(&cluster, stored, &file);
    }
    // The budget taken for the builder now covers the sealed cluster until it is written;
    // the builder's remaining buffers keep what they hold.
    let still_held = state.builder.allocated_bytes();
    let reserved = state.reserved.saturating_sub(still_held);
    state.reserved -= reserved;
    let parked = Parked {
        cluster,
        plan,
        reserved,
    };
    match sequence {
        None if keep != Keep::Nothing => {
            write_recycling(shared, state, record_cluster(shared, parked)?)
        }
        None => write_parked(shared, parked),
        Some(seq) => {
            let mut order = lock(&shared.order);
            if seq < order.next || order.parked.contains_key(&seq) || order.skipped.contains(&seq) {
                shared.budget.release(parked.reserved);
                return Err(Error::InvalidArgument(format!(
                    "sequence number {seq} was already used"
                )));
            }
            order.parked.insert(seq, parked);
            // Whoever completes the run at the head of the queue writes it.
            let ready = take_ready(&mut order);
            // Record in order while still holding the order lock, so that the commit
            // order is the sequence order; write afterwards.
            let mut pending = Vec::with_capacity(ready.len());
            for p in ready {
                pending.push(record_cluster(shared, p)?);
            }
            drop(order);
            // The clusters this thread writes (its own or others') give their buffers to
            // this context, for its next clusters.
            for p in pending {
                write_recycling(shared, state, p)?;
            }
            Ok(())
        }
    }
}

/// Writes a recorded cluster (outside every lock) and keeps its buffers for the
/// context's next clusters, up to the context's fair share of the budget; the budget
/// that covered the cluster now covers the buffers kept, the rest is given back.
fn write_recycling(
    shared: &Shared,
    state: &mut ContextState,
    recorded: RecordedCluster<'_>,
) -> Result<()> {
    let limit = fair_share(shared).saturating_sub(state.builder.allocated_bytes());
    let (result, cluster, reserved) = recorded.write_keeping_budget(shared);
    let kept = state.builder.recycle(cluster, limit.min(reserved));
    state.reserved += kept;
    if let Some(freed) = &shared.freed {
        freed.freed(reserved - kept);
    }
    shared.budget.release(reserved - kept);
    if let Err(e) = &result {
        record(shared, e.to_string());
    }
    result
}

/// The bytes of budget a context may hold for itself after a commit: an equal share among
/// the contexts filling. Reusing the memory of its written clusters (instead of freeing
/// it and mapping new memory for the next one) spares the page faults and zeroing of
/// fresh memory, which cost as much as a fast codec and, taken by several threads at
/// once, contend in the kernel.
fn fair_share(shared: &Shared) -> u64 {
    shared.budget.limit() / shared.filling.load(Ordering::Relaxed).max(1) as u64
}

/// The commit point: under the sink's lock, reserve the byte ranges and record the
/// cluster. No I/O, no compression, no copy happens here.
fn record_cluster(shared: &Shared, parked: Parked) -> Result<RecordedCluster<'_>> {
    let mut sink = lock(&shared.sink);
    let blob_keys = sink.record_cluster(&parked.cluster, &parked.plan)?;
    let file = sink.file()?.clone();
    // Taken before the sink's lock is released, so that close waits for this write.
    let writing = shared.writing.read().unwrap_or_else(|e| e.into_inner());
    drop(sink);
    Ok(RecordedCluster {
        parked,
        blob_keys,
        file,
        _writing: writing,
    })
}

/// A cluster recorded in the RNTuple whose bytes are being written.
struct RecordedCluster<'a> {
    parked: Parked,
    blob_keys: Vec<u64>,
    file: Arc<FileWriter>,
    _writing: std::sync::RwLockReadGuard<'a, ()>,
}

impl RecordedCluster<'_> {
    /// Writes the cluster's bytes (outside every lock) and gives its budget back.
    fn write(self, shared: &Shared) -> Result<()> {
        let (result, cluster, reserved) = self.write_keeping_budget(shared);
        drop(cluster);
        if let Some(freed) = &shared.freed {
            freed.freed(reserved);
        }
        shared.budget.release(reserved);
        if let Err(e) = &result {
            record(shared, e.to_string());
        }
        result
    }

    /// Writes the cluster's bytes (outside every lock) and, once they are in the file,
    /// offers its pages to later clusters; returns the outcome, the cluster and the budget
    /// still taken for it.
    fn write_keeping_budget(self, shared: &Shared) -> (Result<()>, SealedCluster, u64) {
        let plan = &self.parked.plan;
        let result = plan.write(&self.file, &self.parked.cluster, &self.blob_keys);
        if let (Ok(()), Some(stored)) = (&result, &shared.stored_pages) {
            stored.insert(plan.stored_pages(&self.blob_keys));
        }
        (result, self.parked.cluster, self.parked.reserved)
    }
}

/// Gives back the budget an empty builder no longer holds.
fn give_back_unheld(shared: &Shared, state: &mut ContextState) {
    let held = state.builder.allocated_bytes();
    shared.budget.release(state.reserved.saturating_sub(held));
    state.reserved = held.min(state.reserved);
}

fn write_parked(shared: &Shared, parked: Parked) -> Result<()> {
    record_cluster(shared, parked)?.write(shared)
}
