//! The parallel TTree writer: any number of fill contexts, on any threads, fill one TTree
//! in one file. Each context fills its own baskets for its own entries and compresses them
//! on its own thread; a commit appends the context's entries to the tree as one cluster,
//! in a short critical section that reserves the cluster's bytes and records its baskets
//! in every branch's basket arrays. The bytes are written afterwards, outside any lock.
//! All buffered data counts against one memory budget (see `backpressure`).
//!
//! Ordered mode: every cluster carries a sequence number and clusters enter the tree in
//! sequence order, so the entries' order does not depend on thread count or timing.

mod backpressure;
mod commit;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use super::options::TTreeWriteOptions;
use super::writer::split_tree_path;
use crate::array::{ColumnData, Value};
use crate::compress::Compression;
use crate::container::{DirectoryId, FileWriter, WriterOptions};
use crate::error::{Error, Result};
use crate::parallel::contexts::{lock, ContextList, Failures};
use crate::parallel::order::SequenceQueue;
use crate::parallel::sizing::first_cluster_share;
use crate::parallel::{FreedMemory, MemoryBudget};
use crate::ttree::write::baskets::filler::{BranchFiller, Sealed};
use crate::ttree::write::branches::branch::BranchSpec;
use crate::ttree::write::branches::shape::TreeShape;
use crate::ttree::write::tree::catalog::TreeCatalog;
use backpressure::{append_batch, stop_filling};
use commit::{commit, record_and_write, Keep};

/// Settings of a [`TTreeParallelWriter`]; build them from the default with the `with_`
/// methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TTreeParallelOptions {
    /// Title, compression, basket size, cluster and save settings (as for the sequential
    /// writer; `auto_flush_bytes` is an upper bound of a cluster's stored bytes: a context
    /// commits its cluster at a quarter of its share of the memory budget already).
    /// Baskets keep their size (`resize_baskets` is not used), as in the trees of
    /// `TBufferMerger`'s workers: ROOT's resizing makes baskets of megabytes, which zstd and
    /// LZ4 compress 1.4 to 1.7 times slower for files about 1% smaller.
    pub write: TTreeWriteOptions,
    /// Bytes that open baskets and sealed-but-unwritten baskets may take in all (default
    /// 256 MiB). Every byte a context's buffers can grow by is reserved before it is
    /// appended; in ordered mode the budget can be overdrawn by one step per waiting
    /// thread. Baskets are made smaller than `write.basket_size` when one basket per branch
    /// for every context at work would take more than half of the budget (a power of two,
    /// down to 4 KiB): a budget must hold, for each context at work, a buffer of 4 KiB per
    /// branch (8 KiB for entries of varying size), or contexts go beyond it by their
    /// buffers.
    pub memory_budget: u64,
    /// Clusters enter the tree in the order of their sequence numbers
    /// ([`TTreeFillContext::extend_sequence`]), and basket sizes do not depend on the number
    /// of contexts, so that the same input gives the same baskets.
    pub ordered: bool,
    /// Ask the allocator to return its free pages to the system each time a 32nd of the
    /// budget was freed (see [`FreedMemory`]; default false, as it acts on the whole
    /// process's heap).
    pub return_freed_memory: bool,
}

impl Default for TTreeParallelOptions {
    fn default() -> Self {
        TTreeParallelOptions {
            write: TTreeWriteOptions::default(),
            memory_budget: 256 << 20,
            ordered: false,
            return_freed_memory: false,
        }
    }
}

impl TTreeParallelOptions {
    /// With the tree's settings.
    pub fn with_write(mut self, write: TTreeWriteOptions) -> Self {
        self.write = write;
        self
    }

    /// With `memory_budget` bytes for buffered baskets.
    pub fn with_memory_budget(mut self, memory_budget: u64) -> Self {
        self.memory_budget = memory_budget;
        self
    }

    /// With clusters in the order of their sequence numbers, or not.
    pub fn with_ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// With the allocator's free pages returned to the system, or not.
    pub fn with_return_freed_memory(mut self, return_freed_memory: bool) -> Self {
        self.return_freed_memory = return_freed_memory;
        self
    }

    /// With baskets compressed by `compression`.
    pub fn with_compression(mut self, compression: Compression) -> Self {
        self.write.compression = Some(compression);
        self
    }
}

/// What a closed [`TTreeParallelWriter`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TTreeWriteSummary {
    /// Entries of the tree.
    pub entries: u64,
    /// Its clusters.
    pub clusters: u64,
    /// Bytes of its baskets before compression (key headers included, ROOT's
    /// `fTotBytes`).
    pub tot_bytes: u64,
    /// Bytes of its baskets in the file (ROOT's `fZipBytes`).
    pub zip_bytes: u64,
}

/// The tree's state behind the commit point.
struct TreeState {
    catalog: TreeCatalog,
    /// The file, until the writer is closed.
    file: Option<Arc<FileWriter>>,
    owns_file: bool,
}

/// A cluster sealed by a context, waiting to be recorded and written.
struct SealedCluster {
    entries: u64,
    /// Its baskets: branch, basket (first entry counted from the cluster's first).
    baskets: Vec<(usize, Sealed)>,
    /// Per branch: the largest count of a counting branch, the filler's basket size,
    /// entry-offset table length and longest string.
    notes: Vec<BranchNote>,
    /// Budget held for its baskets until they are written.
    reserved: u64,
}

/// A cluster recorded in the tree whose bytes could not be written: its first entry, its
/// entries, and its baskets' bytes before compression per branch.
struct FailedCluster {
    first: u64,
    entries: u64,
    tot: Vec<(usize, u64)>,
}

/// What a cluster tells the tree object of one branch beside its baskets.
#[derive(Clone, Copy)]
struct BranchNote {
    max_count: Option<i64>,
    basket_size: usize,
    entry_offset_len: i32,
    longest: usize,
}

struct Shared {
    name: String,
    dir: DirectoryId,
    shape: TreeShape,
    options: TTreeParallelOptions,
    compression: Compression,
    datime: u32,
    /// The commit point.
    tree: Mutex<TreeState>,
    /// Stored over uncompressed bytes of the baskets committed so far (`f64` bits), to
    /// estimate the stored size of open baskets.
    ratio: AtomicU64,
    budget: MemoryBudget,
    freed: Option<FreedMemory>,
    order: Mutex<SequenceQueue<SealedCluster>>,
    /// Held (shared) while cluster bytes are being written; auto-saves and `close` take it
    /// exclusively to wait for them.
    writing: RwLock<()>,
    contexts: ContextList<ContextState>,
    contexts_made: AtomicUsize,
    /// Contexts filling (see [`backpressure::basket_size`]).
    filling: AtomicUsize,
    /// Clusters whose bytes could not be written, to be taken out of the tree before it
    /// is saved (see [`commit::undo_failed`]).
    failed: Mutex<Vec<FailedCluster>>,
    failures: Failures,
    closed: AtomicBool,
}

struct ContextState {
    /// One filler per branch, holding the context's open baskets.
    fillers: Vec<BranchFiller>,
    /// Baskets of the open cluster sealed so far, and their bytes in memory.
    sealed: Vec<(usize, Sealed)>,
    sealed_bytes: u64,
    /// Entries of the open cluster, and the fillers' count of entries where it started.
    entries: u64,
    cluster_start: u64,
    /// The largest count of each counting branch in the open cluster.
    max_counts: Vec<Option<i64>>,
    /// Budget bytes this context holds.
    reserved: u64,
    /// The basket size of its fillers.
    basket_size: usize,
    /// True while counted in [`Shared::filling`]; true once it has had an entry.
    filling: bool,
    filled: bool,
    closed: bool,
    /// The part of the cluster target its first cluster takes (see
    /// [`first_cluster_share`]).
    first_cluster_share: f64,
}

/// Writes one TTree from many threads. Hand out [`TTreeFillContext`]s with
/// [`TTreeParallelWriter::context`]; close with [`TTreeParallelWriter::close`].
///
/// ```no_run
/// use rootweave::array::ColumnData;
/// use rootweave::ttree::{BranchSpec, TTreeParallelOptions, TTreeParallelWriter};
/// use rootweave::array::LeafType;
/// let branches = vec![BranchSpec::scalar("n", LeafType::Int32)];
/// let writer = TTreeParallelWriter::recreate("out.root", "Events", branches, TTreeParallelOptions::default())?;
/// std::thread::scope(|s| {
///     for t in 0..4 {
///         let mut ctx = writer.context();
///         s.spawn(move || ctx.extend(&[ColumnData::Int32(&[t; 1000])]));
///     }
/// });
/// writer.close()?;
/// # Ok::<(), rootweave::Error>(())
/// ```
pub struct TTreeParallelWriter {
    shared: Arc<Shared>,
}

/// A producer's handle: fills and compresses its own baskets and seals its own clusters.
/// `Send`, so it can move to any thread. Dropping it commits what it holds (unless its
/// thread is panicking: then its unfinished cluster is discarded).
pub struct TTreeFillContext {
    shared: Arc<Shared>,
    state: Arc<Mutex<ContextState>>,
}

impl TTreeParallelWriter {
    /// Creates (or overwrites) the file at `path` holding one tree called `name` (a path
    /// `"dir/sub/name"` puts it in directories).
    pub fn recreate(
        path: impl AsRef<Path>,
        name: &str,
        branches: Vec<BranchSpec>,
        options: TTreeParallelOptions,
    ) -> Result<Self> {
        let compression = options
            .write
            .compression
            .unwrap_or(Compression::ROOT_FILE_DEFAULT);
        let file =
            FileWriter::create(path, WriterOptions::default().with_compression(compression))?;
        let writer = Self::in_file(Arc::new(file), name, branches, options)?;
        lock(&writer.shared.tree).owns_file = true;
        Ok(writer)
    }

    /// Starts a tree called `name` in an open file, which may hold other objects; its
    /// owner closes the file after this writer is closed.
    pub fn in_file(
        file: Arc<FileWriter>,
        name: &str,
        branches: Vec<BranchSpec>,
        options: TTreeParallelOptions,
    ) -> Result<Self> {
        if options.memory_budget < (1 << 20) {
            return Err(Error::InvalidArgument(
                "the memory budget must be at least 1 MiB".into(),
            ));
        }
        if options.write.basket_size == 0 {
            return Err(Error::InvalidArgument("a basket size of 0 bytes".into()));
        }
        let (dir_path, name) = split_tree_path(name)?;
        let shape = TreeShape::new(branches)?;
        let dir = file.mkdir(dir_path)?;
        let compression = options.write.compression.unwrap_or(file.compression());
        let catalog = TreeCatalog::new(&shape, options.write.basket_size);
        let writer = TTreeParallelWriter {
            shared: Arc::new(Shared {
                name: name.to_string(),
                dir,
                datime: file.datime(),
                shape,
                compression,
                tree: Mutex::new(TreeState {
                    catalog,
                    file: Some(file),
                    owns_file: false,
                }),
                ratio: AtomicU64::new(1f64.to_bits()),
                budget: MemoryBudget::new(options.memory_budget),
                freed: options
                    .return_freed_memory
                    .then(|| FreedMemory::new(options.memory_budget / 32)),
                options,
                order: Mutex::new(SequenceQueue::default()),
                writing: RwLock::new(()),
                contexts: ContextList::default(),
                contexts_made: AtomicUsize::new(0),
                filling: AtomicUsize::new(0),
                failed: Mutex::new(Vec::new()),
                failures: Failures::default(),
                closed: AtomicBool::new(false),
            }),
        };
        // Saved at once, empty (as the sequential writer's).
        if writer.shared.options.write.auto_save_bytes != u64::MAX {
            commit::save(&writer.shared)?;
        }
        Ok(writer)
    }

    /// A new fill context. Any number may exist at once, on any threads. A context counts
    /// among those sharing the budget from its creation until it is dropped.
    pub fn context(&self) -> TTreeFillContext {
        let shared = &self.shared;
        let made = shared.contexts_made.fetch_add(1, Ordering::Relaxed);
        shared.filling.fetch_add(1, Ordering::Relaxed);
        let basket_size = backpressure::basket_size(shared);
        let fillers = shared
            .shape
            .specs
            .iter()
            .map(|spec| {
                BranchFiller::new(
                    spec.clone(),
                    &shared.name,
                    basket_size,
                    shared.compression,
                    shared.datime,
                )
            })
            .collect();
        let state = Arc::new(Mutex::new(ContextState {
            fillers,
            sealed: Vec::new(),
            sealed_bytes: 0,
            entries: 0,
            cluster_start: 0,
            max_counts: shared.shape.initial_max_counts(),
            reserved: 0,
            basket_size,
            filling: true,
            filled: false,
            closed: shared.closed.load(Ordering::SeqCst),
            first_cluster_share: first_cluster_share(made),
        }));
        shared.contexts.add(&state);
        TTreeFillContext {
            shared: shared.clone(),
            state,
        }
    }

    /// The memory budget (to watch `in_use` and `peak`).
    pub fn budget(&self) -> &MemoryBudget {
        &self.shared.budget
    }

    /// Entries committed so far.
    pub fn committed_entries(&self) -> u64 {
        lock(&self.shared.tree).catalog.entries
    }

    /// Entries of the tree at its last auto-save: what a reader finds in the file if this
    /// process dies before `close`.
    pub fn saved_entries(&self) -> u64 {
        lock(&self.shared.tree).catalog.saved_entries
    }

    /// Bytes of the baskets committed so far: (in the file, before compression).
    pub fn committed_bytes(&self) -> (u64, u64) {
        let tree = lock(&self.shared.tree);
        (tree.catalog.zip_bytes(), tree.catalog.tot_bytes())
    }

    /// Clusters committed so far.
    pub fn committed_clusters(&self) -> u64 {
        lock(&self.shared.tree).catalog.clusters()
    }

    /// Commits what every context still holds, waits for all writes, and writes the tree
    /// object (and closes the file if this writer created it). The file is complete even
    /// if a producer failed; the failures are then reported as an error after the file is
    /// written.
    pub fn close(self) -> Result<TTreeWriteSummary> {
        self.finish()
    }

    fn finish(&self) -> Result<TTreeWriteSummary> {
        let shared = &self.shared;
        if shared.closed.swap(true, Ordering::SeqCst) {
            return Err(Error::InvalidArgument(
                "the parallel writer was closed".into(),
            ));
        }
        for state in shared.contexts.alive() {
            let mut state = lock(&state);
            if !state.closed {
                state.closed = true;
                if let Err(e) = commit(shared, &mut state, None, Keep::Nothing) {
                    record_error(shared, e.to_string());
                }
            }
        }
        // Ordered mode: what is still parked goes in, in order, across any gaps.
        let parked = lock(&shared.order).drain_all();
        if !parked.is_empty() {
            if let Err(e) = record_and_write(shared, parked) {
                record_error(shared, e.to_string());
            }
        }
        drop(shared.writing.write().unwrap_or_else(|e| e.into_inner()));
        let mut tree = lock(&shared.tree);
        let state = &mut *tree;
        let file = state
            .file
            .take()
            .ok_or_else(|| Error::InvalidArgument("the writer was closed".into()))?;
        commit::undo_failed(shared, &mut state.catalog);
        state
            .catalog
            .write_tree(&commit::tree_object(shared), &file)?;
        let catalog = &state.catalog;
        let summary = TTreeWriteSummary {
            entries: catalog.entries,
            clusters: catalog.clusters(),
            tot_bytes: catalog.tot_bytes(),
            zip_bytes: catalog.zip_bytes(),
        };
        if state.owns_file {
            let file = Arc::try_unwrap(file).map_err(|_| {
                Error::InvalidArgument("the file is still shared and cannot be closed".into())
            })?;
            file.close()?;
        }
        drop(tree);
        let closed = format!("the tree was closed with {} entries", summary.entries);
        shared.failures.result(summary, &closed)
    }
}

fn record_error(shared: &Shared, message: String) {
    shared.failures.record(message);
}

impl Drop for TTreeParallelWriter {
    /// A writer dropped without `close` still commits every context's entries and writes
    /// its tree, as the sequential writer does; errors can only be reported by `close`.
    fn drop(&mut self) {
        if !self.shared.closed.load(Ordering::SeqCst) {
            let _ = self.finish();
        }
    }
}

impl TTreeFillContext {
    fn state(&self) -> Result<MutexGuard<'_, ContextState>> {
        let state = lock(&self.state);
        if state.closed {
            return Err(Error::InvalidArgument(
                "the parallel writer was closed".into(),
            ));
        }
        Ok(state)
    }

    /// Appends one entry: a value per branch, in order (see [`super::TTreeWriter::fill`]).
    pub fn fill(&mut self, values: &[Value]) -> Result<()> {
        let entry = self.shared.shape.entry(values)?;
        self.extend(&TreeShape::entry_batch(&entry))
    }

    /// Appends entries: one batch per branch, in order, all with the same number of
    /// entries (see [`super::TTreeWriter::extend`]). The context commits its cluster when
    /// it reaches its target size or the memory budget is tight.
    pub fn extend(&mut self, batch: &[ColumnData]) -> Result<()> {
        if self.shared.options.ordered {
            return Err(Error::InvalidArgument(
                "an ordered parallel writer takes batches with a sequence number (extend_sequence)"
                    .into(),
            ));
        }
        let shared = self.shared.clone();
        let mut state = self.state()?;
        append_batch(&shared, &mut state, batch, None)
    }

    /// Appends a batch and commits it as the cluster with sequence number `sequence`
    /// (ordered mode). Numbers start at 0; each is used once. Sealed clusters wait
    /// (holding their budget) until every smaller number is committed or skipped; the
    /// context holding the next number never waits for budget, and another waits at most
    /// 20 ms before it overdraws. Hand out numbers in order (an atomic counter) to keep
    /// waits short.
    pub fn extend_sequence(&mut self, sequence: u64, batch: &[ColumnData]) -> Result<()> {
        if !self.shared.options.ordered {
            return Err(Error::InvalidArgument(
                "extend_sequence needs a writer created with ordered = true".into(),
            ));
        }
        let shared = self.shared.clone();
        let mut state = self.state()?;
        if state.entries > 0 {
            return Err(Error::InvalidArgument(
                "extend_sequence: the context holds unsequenced entries".into(),
            ));
        }
        if lock(&shared.order).is_used(sequence) {
            return Err(crate::parallel::order::used(sequence));
        }
        for f in &mut state.fillers {
            f.restart();
        }
        state.cluster_start = 0;
        append_batch(&shared, &mut state, batch, Some(sequence))?;
        commit(&shared, &mut state, Some(sequence), Keep::Buffers)
    }

    /// Declares that sequence number `sequence` will never be committed (ordered mode),
    /// so that the clusters after it need not wait for it.
    pub fn skip_sequence(&mut self, sequence: u64) -> Result<()> {
        let shared = self.shared.clone();
        let mut order = lock(&shared.order);
        let ready = order.skip_ready(sequence)?;
        commit::record_in_order(&shared, order, ready)
    }

    /// Commits the entries filled so far as a cluster.
    pub fn commit_cluster(&mut self) -> Result<()> {
        let shared = self.shared.clone();
        let mut state = self.state()?;
        commit(&shared, &mut state, None, Keep::Buffers)
    }
}

impl Drop for TTreeFillContext {
    fn drop(&mut self) {
        let mut state = lock(&self.state);
        if state.closed {
            return;
        }
        state.closed = true;
        if std::thread::panicking() {
            // A producer that panics loses its unfinished cluster; what it committed stays.
            state.sealed.clear();
            state.sealed_bytes = 0;
            for f in &mut state.fillers {
                f.discard();
            }
            stop_filling(&self.shared, &mut state);
            self.shared.budget.release(state.reserved);
            state.reserved = 0;
            record_error(&self.shared, "a producer panicked".into());
        } else if let Err(e) = commit(&self.shared, &mut state, None, Keep::Nothing) {
            record_error(&self.shared, e.to_string());
        }
    }
}
