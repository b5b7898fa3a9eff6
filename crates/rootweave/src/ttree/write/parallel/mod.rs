//! The parallel TTree writer: any number of fill contexts, on any threads, fill one TTree
//! in one file. Each context fills its own baskets for its own entries and compresses them
//! on its own thread; a commit appends the context's entries to the tree as one cluster,
//! in a short critical section that reserves the cluster's bytes and records its baskets
//! in every branch's basket arrays. The bytes are written afterwards, outside any lock.
//! All buffered data counts against one memory budget.
//!
//! Ordered mode: every cluster carries a sequence number and clusters enter the tree in
//! sequence order, so the entries' order does not depend on thread count or timing.

//!
//! The budget, backpressure, ordering and commit are the engine's
//! ([`crate::parallel::engine`]); this module gives it the tree's buffers and sink.

mod sink;

use std::path::Path;
use std::sync::Arc;

use super::options::TTreeWriteOptions;
use super::writer::split_tree_path;
use crate::array::{ColumnData, Value};
use crate::compress::Compression;
use crate::container::{FileWriter, WriterOptions};
use crate::error::{Error, Result};
use crate::parallel::engine::contexts::lock;
use crate::parallel::engine::{Engine, EngineOptions, FillContext, Filling, Pace};
use crate::parallel::MemoryBudget;
use crate::ttree::write::branches::branch::BranchSpec;
use crate::ttree::write::branches::shape::TreeShape;
use sink::ParallelTree;

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
    /// budget was freed (see [`crate::parallel::FreedMemory`]; default false, as it acts on the whole
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
    engine: Arc<Engine<ParallelTree>>,
}

/// A producer's handle: fills and compresses its own baskets and seals its own clusters.
/// `Send`, so it can move to any thread. Dropping it commits what it holds (unless its
/// thread is panicking: then its unfinished cluster is discarded).
pub struct TTreeFillContext {
    inner: FillContext<ParallelTree>,
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
        lock(&writer.engine.sink.tree).owns_file = true;
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
        let engine_options = EngineOptions {
            memory_budget: options.memory_budget,
            ordered: options.ordered,
            return_freed_memory: options.return_freed_memory,
        };
        engine_options.check()?;
        if options.write.basket_size == 0 {
            return Err(Error::InvalidArgument("a basket size of 0 bytes".into()));
        }
        let (dir_path, name) = split_tree_path(name)?;
        let shape = TreeShape::new(branches)?;
        let dir = file.mkdir(dir_path)?;
        let compression = options.write.compression.unwrap_or(file.compression());
        let auto_save = options.write.auto_save_bytes != u64::MAX;
        let tree = ParallelTree::new(name.to_string(), dir, shape, options, compression, file);
        let engine = Engine::new(tree, engine_options)?;
        // Saved at once, empty (as the sequential writer's).
        if auto_save {
            engine.sink.save(&engine.writing)?;
        }
        Ok(TTreeParallelWriter { engine })
    }

    /// A new fill context. Any number may exist at once, on any threads. A context counts
    /// among those sharing the budget from its creation until it is dropped.
    pub fn context(&self) -> TTreeFillContext {
        TTreeFillContext {
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
        lock(&self.engine.sink.tree).catalog.entries
    }

    /// Entries of the tree at its last auto-save: what a reader finds in the file if this
    /// process dies before `close`.
    pub fn saved_entries(&self) -> u64 {
        lock(&self.engine.sink.tree).catalog.saved_entries
    }

    /// Bytes of the baskets committed so far: (in the file, before compression).
    pub fn committed_bytes(&self) -> (u64, u64) {
        let tree = lock(&self.engine.sink.tree);
        (tree.catalog.zip_bytes(), tree.catalog.tot_bytes())
    }

    /// Clusters committed so far.
    pub fn committed_clusters(&self) -> u64 {
        lock(&self.engine.sink.tree).catalog.clusters()
    }

    /// Commits what every context still holds, waits for all writes, and writes the tree
    /// object (and closes the file if this writer created it). The file is complete even
    /// if a producer failed; the failures are then reported as an error after the file is
    /// written.
    pub fn close(self) -> Result<TTreeWriteSummary> {
        self.finish()
    }

    fn finish(&self) -> Result<TTreeWriteSummary> {
        let engine = &self.engine;
        engine.close_contexts()?;
        let tree = &engine.sink;
        let mut state = lock(&tree.tree);
        let state = &mut *state;
        let file = ParallelTree::take_file(state)?;
        tree.undo_failed(&mut state.catalog);
        state.catalog.write_tree(&tree.tree_object(), &file)?;
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
        let closed = format!("the tree was closed with {} entries", summary.entries);
        engine.result(summary, &closed)
    }
}

impl Drop for TTreeParallelWriter {
    /// A writer dropped without `close` still commits every context's entries and writes
    /// its tree, as the sequential writer does; errors can only be reported by `close`.
    fn drop(&mut self) {
        if !self.engine.is_closed() {
            let _ = self.finish();
        }
    }
}

impl TTreeFillContext {
    /// Appends one entry: a value per branch, in order (see [`super::TTreeWriter::fill`]).
    pub fn fill(&mut self, values: &[Value]) -> Result<()> {
        let entry = self.inner.sink().shape.entry(values)?;
        self.extend(&TreeShape::entry_batch(&entry))
    }

    /// Appends entries: one batch per branch, in order, all with the same number of
    /// entries (see [`super::TTreeWriter::extend`]). The context commits its cluster when
    /// it reaches its target size or the memory budget is tight.
    pub fn extend(&mut self, batch: &[ColumnData]) -> Result<()> {
        let mut filling = self.inner.unordered()?;
        append_batch(&mut filling, batch)
    }

    /// Appends entries as [`TTreeFillContext::extend`] does but leaves the cluster open,
    /// as ROOT's `FillNoFlush`: returns true once the cluster reached its target size, for
    /// the caller to commit it ([`TTreeFillContext::commit_cluster`]) when it chooses. The
    /// budget still holds: a context that would exceed it commits its cluster first.
    pub fn extend_no_flush(&mut self, batch: &[ColumnData]) -> Result<bool> {
        let mut filling = self.inner.unordered()?.with_pace(Pace::NoFlush);
        append_batch(&mut filling, batch)?;
        Ok(filling.cluster_due())
    }

    /// Appends entries as [`TTreeFillContext::extend`] does if the memory budget has room
    /// for them now, else appends nothing and returns false, never waiting (for task
    /// schedulers whose threads must not block: retry once budget is freed, see
    /// [`MemoryBudget::wait_for_release`]). The batch is appended in one step.
    pub fn try_extend(&mut self, batch: &[ColumnData]) -> Result<bool> {
        let mut filling = self.inner.unordered()?.with_pace(Pace::NoWait);
        append_batch(&mut filling, batch)?;
        Ok(!filling.blocked())
    }

    /// Appends a batch and commits it as the cluster with sequence number `sequence`
    /// (ordered mode). Numbers start at 0; each is used once. Sealed clusters wait
    /// (holding their budget) until every smaller number is committed or skipped; the
    /// context holding the next number never waits for budget, and another waits at most
    /// 20 ms before it overdraws. Hand out numbers in order (an atomic counter) to keep
    /// waits short.
    pub fn extend_sequence(&mut self, sequence: u64, batch: &[ColumnData]) -> Result<()> {
        self.inner
            .sequenced(sequence, |filling| append_batch(filling, batch))
    }

    /// Appends entries to the context's staged cluster (ordered mode), which
    /// [`TTreeFillContext::commit_staged`] then commits with the sequence number the caller
    /// chooses: entry-by-entry filling with the cluster order the caller's (ROOT's staged
    /// cluster committing). Returns true once the staged cluster reached its target size.
    pub fn extend_staged(&mut self, batch: &[ColumnData]) -> Result<bool> {
        let mut filling = self.inner.staged()?;
        append_batch(&mut filling, batch)?;
        Ok(filling.cluster_due())
    }

    /// Commits the staged entries as the cluster with sequence number `sequence` (ordered
    /// mode; see [`TTreeFillContext::extend_sequence`] for the order). A context dropped with
    /// staged entries loses them, and closing the writer reports it.
    pub fn commit_staged(&mut self, sequence: u64) -> Result<()> {
        self.inner.commit_staged(sequence)
    }

    /// Declares that sequence number `sequence` will never be committed (ordered mode),
    /// so that the clusters after it need not wait for it.
    pub fn skip_sequence(&mut self, sequence: u64) -> Result<()> {
        self.inner.skip_sequence(sequence)
    }

    /// Commits the entries filled so far as a cluster.
    pub fn commit_cluster(&mut self) -> Result<()> {
        self.inner.commit_cluster()
    }
}

/// Checks a batch, then appends it in steps of about a basket of the widest branch,
/// small against the budget.
fn append_batch(filling: &mut Filling<'_, ParallelTree>, batch: &[ColumnData]) -> Result<()> {
    let shape = &filling.sink().shape;
    let checked = shape.columns(batch)?;
    filling.start();
    let buffers = filling.buffers();
    shape.update_max_counts(&checked, &mut buffers.max_counts);
    let per_entry = (checked.bytes / checked.entries.max(1)) as u64 + 1;
    let max_step_bytes = (filling.memory_budget() / 16).max(64 << 10);
    let step = shape
        .step(filling.buffer_size())
        .min((max_step_bytes / per_entry) as usize)
        .max(1);
    let mut sealed = Vec::new();
    filling.append_steps(checked.entries, step, per_entry, |buffers, start, end| {
        for (k, column) in checked.columns.iter().enumerate() {
            buffers.fillers[k].append(column, start..end, &mut sealed)?;
            buffers.keep_sealed(k, &mut sealed);
        }
        buffers.entries += (end - start) as u64;
        Ok(())
    })
}
