//! What the parallel TTree writer gives the engine: a context's branch fillers as its
//! buffers, and the sink behind the commit point, which records a context's cluster in
//! the tree under its lock (its byte range reserved, its baskets added to every branch's
//! basket arrays), writes the baskets afterwards with positional writes, saves the tree
//! as ROOT's auto-save does, and takes clusters whose bytes could not be written out of
//! the tree again.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};

use super::TTreeParallelOptions;
use crate::compress::Compression;
use crate::container::{DirectoryId, FileWriter};
use crate::error::{Error, Result};
use crate::parallel::engine::contexts::lock;
use crate::parallel::engine::sizing::buffer_size_for_budget;
use crate::parallel::engine::{closed, ClusterSink, ContextBuffers, FillLevel};
use crate::ttree::write::baskets::basket::place_record;
use crate::ttree::write::baskets::filler::{BranchFiller, Sealed};
use crate::ttree::write::branches::shape::TreeShape;
use crate::ttree::write::tree::catalog::{TreeCatalog, TreeObject};

/// A context's open cluster: one filler per branch with its open baskets, and the
/// baskets of the cluster sealed so far.
pub(crate) struct TreeBuffers {
    pub(super) fillers: Vec<BranchFiller>,
    /// Baskets of the open cluster sealed so far (branch, basket), and their bytes in memory.
    sealed: Vec<(usize, Sealed)>,
    sealed_bytes: u64,
    /// Entries of the open cluster, and the fillers' count of entries where it started.
    pub(super) entries: u64,
    cluster_start: u64,
    /// The largest count of each counting branch in the open cluster.
    pub(super) max_counts: Vec<Option<i64>>,
    /// The counts a cluster starts from.
    initial_max_counts: Vec<Option<i64>>,
}

impl TreeBuffers {
    /// Keeps baskets that `fillers[branch]` sealed.
    pub(super) fn keep_sealed(&mut self, branch: usize, baskets: &mut Vec<Sealed>) {
        for basket in baskets.drain(..) {
            self.sealed_bytes += basket.record.capacity() as u64;
            self.sealed.push((branch, basket));
        }
    }
}

impl ContextBuffers for TreeBuffers {
    type Cluster = SealedCluster;

    fn entries(&self) -> u64 {
        self.entries
    }

    /// The sealed baskets, and the open baskets with the room they take once sealed.
    fn held_bytes(&self) -> u64 {
        self.sealed_bytes + self.fillers.iter().map(|f| f.held_bytes()).sum::<u64>()
    }

    fn fill_level(&self) -> FillLevel {
        let pending: u64 = self.fillers.iter().map(|f| f.pending_bytes() as u64).sum();
        FillLevel {
            sealed: self.sealed_bytes,
            pending,
            uncompressed: pending,
        }
    }

    /// Open baskets' buffers are allocated whole at their first entry, and may grow past
    /// it by the step's bytes (entries of varying size, and their offsets); the baskets
    /// sealed in the step take the step's bytes again at worst, and a third time while the
    /// entries are copied beside their offset table to be compressed.
    fn growth_bound(&self, data_bytes: u64) -> u64 {
        let unallocated: u64 = self
            .fillers
            .iter()
            .map(|f| f.unallocated_bytes() as u64)
            .sum();
        unallocated + 3 * data_bytes + 128 * self.fillers.len() as u64
    }

    fn set_buffer_size(&mut self, size: usize) {
        for f in &mut self.fillers {
            f.set_basket_size(size);
        }
    }

    fn release_memory(&mut self) {
        for f in &mut self.fillers {
            f.release_memory();
        }
    }

    /// Baskets are not reused after they are written: what a context gives up before it
    /// waits for budget is its open baskets' buffers.
    fn release_before_waiting(&mut self) {
        self.release_memory();
    }

    fn discard(&mut self) {
        self.sealed.clear();
        self.sealed_bytes = 0;
        for f in &mut self.fillers {
            f.discard();
        }
    }

    /// A cluster with a sequence number counts its baskets' entries from 0, whichever
    /// clusters the context filled before.
    fn start_sequenced_cluster(&mut self) {
        for f in &mut self.fillers {
            f.restart();
        }
        self.cluster_start = 0;
    }
}

/// A cluster sealed by a context, waiting to be recorded and written.
pub(crate) struct SealedCluster {
    entries: u64,
    /// Its baskets: branch, basket (first entry counted from the cluster's first).
    baskets: Vec<(usize, Sealed)>,
    /// Per branch: what the cluster tells the tree object beside its baskets.
    notes: Vec<BranchNote>,
}

/// What a cluster tells the tree object of one branch beside its baskets: the largest
/// count of a counting branch, the filler's basket size, entry-offset table length and
/// longest string.
#[derive(Clone, Copy)]
struct BranchNote {
    max_count: Option<i64>,
    basket_size: usize,
    entry_offset_len: i32,
    longest: usize,
}

/// A cluster recorded in the tree whose bytes could not be written: its first entry, its
/// entries, and its baskets' bytes before compression per branch.
struct FailedCluster {
    first: u64,
    entries: u64,
    tot: Vec<(usize, u64)>,
}

/// The tree's state behind the commit point.
pub(super) struct TreeState {
    pub(super) catalog: TreeCatalog,
    /// The file, until the writer is closed.
    pub(super) file: Option<Arc<FileWriter>>,
    pub(super) owns_file: bool,
}

/// The tree behind a parallel writer's commit point.
pub(super) struct ParallelTree {
    pub(super) name: String,
    pub(super) dir: DirectoryId,
    pub(super) shape: TreeShape,
    pub(super) options: TTreeParallelOptions,
    pub(super) compression: Compression,
    pub(super) datime: u32,
    /// The commit point.
    pub(super) tree: Mutex<TreeState>,
    /// Stored over uncompressed bytes of the baskets committed so far (`f64` bits), to
    /// estimate the stored size of open baskets.
    pub(super) ratio: AtomicU64,
    /// Clusters whose bytes could not be written, to be taken out of the tree before it
    /// is saved (see [`ParallelTree::undo_failed`]).
    failed: Mutex<Vec<FailedCluster>>,
}

/// Clusters recorded in the tree: where each one's bytes go and its first entry.
pub(super) struct Placed {
    clusters: Vec<(SealedCluster, u64, u64)>,
    file: Arc<FileWriter>,
    save_due: bool,
}

impl ClusterSink for ParallelTree {
    type Buffers = TreeBuffers;
    type Recorded = Placed;

    /// Baskets made smaller when one basket per branch for every context at work would
    /// take more than half of the budget (see [`buffer_size_for_budget`]); in ordered
    /// mode regardless of the number of contexts, so that the same input gives the same
    /// baskets.
    fn buffer_size(&self, filling: usize) -> usize {
        let filling = if self.options.ordered { 1 } else { filling };
        buffer_size_for_budget(
            self.options.write.basket_size,
            self.options.memory_budget,
            self.shape.specs.len(),
            filling,
        )
    }

    fn new_buffers(&self, filling: usize) -> (TreeBuffers, usize) {
        let basket_size = self.buffer_size(filling);
        let fillers = self
            .shape
            .specs
            .iter()
            .map(|spec| {
                BranchFiller::new(
                    spec.clone(),
                    &self.name,
                    basket_size,
                    self.compression,
                    self.datime,
                )
            })
            .collect();
        let initial_max_counts = self.shape.initial_max_counts();
        let buffers = TreeBuffers {
            fillers,
            sealed: Vec::new(),
            sealed_bytes: 0,
            entries: 0,
            cluster_start: 0,
            max_counts: initial_max_counts.clone(),
            initial_max_counts,
        };
        (buffers, basket_size)
    }

    fn compression_ratio(&self) -> f64 {
        f64::from_bits(self.ratio.load(Ordering::Relaxed))
    }

    /// At most the tree's `auto_flush_bytes` (ROOT's 30 MB).
    fn cluster_bounds(&self, _basket_size: usize) -> (u64, u64) {
        (self.options.write.auto_flush_bytes, 0)
    }

    fn seal(&self, buffers: &mut TreeBuffers) -> Result<SealedCluster> {
        for (k, filler) in buffers.fillers.iter_mut().enumerate() {
            if let Some(basket) = filler.seal() {
                buffers.sealed_bytes += basket.record.capacity() as u64;
                buffers.sealed.push((k, basket));
            }
        }
        let notes = buffers
            .fillers
            .iter()
            .zip(&buffers.max_counts)
            .map(|(f, &max_count)| BranchNote {
                max_count,
                basket_size: f.basket_size,
                entry_offset_len: f.entry_offset_len,
                longest: f.longest,
            })
            .collect();
        let mut baskets = std::mem::take(&mut buffers.sealed);
        for (_, basket) in &mut baskets {
            basket.first_entry -= buffers.cluster_start;
        }
        let cluster = SealedCluster {
            entries: buffers.entries,
            baskets,
            notes,
        };
        buffers.sealed_bytes = 0;
        buffers.cluster_start += buffers.entries;
        buffers.entries = 0;
        buffers.max_counts.clone_from(&buffers.initial_max_counts);
        Ok(cluster)
    }

    /// Reserves each cluster's byte range and records its baskets and boundary.
    fn record<'w>(
        &self,
        clusters: Vec<SealedCluster>,
        writing: &'w RwLock<()>,
    ) -> Result<(Placed, RwLockReadGuard<'w, ()>)> {
        let mut tree = lock(&self.tree);
        let file = tree.file.clone().ok_or_else(closed)?;
        let auto_save = self.options.write.auto_save_bytes;
        let catalog = &mut tree.catalog;
        let mut placed = Vec::with_capacity(clusters.len());
        let mut save_due = false;
        for cluster in clusters {
            let bytes: u64 = cluster
                .baskets
                .iter()
                .map(|(_, b)| b.record.len() as u64)
                .sum();
            let base = file.allocate(bytes);
            let first = catalog.entries;
            let mut at = base;
            for (k, basket) in &cluster.baskets {
                catalog.record_basket(*k, basket, at, first + basket.first_entry);
                at += basket.record.len() as u64;
            }
            catalog.entries += cluster.entries;
            for (b, note) in catalog.branches.iter_mut().zip(&cluster.notes) {
                b.max_count = b.max_count.max(note.max_count);
                b.basket_size = note.basket_size;
                b.entry_offset_len = note.entry_offset_len;
                b.longest = b.longest.max(note.longest);
            }
            save_due |= catalog.end_cluster(auto_save);
            placed.push((cluster, base, first));
        }
        let ratio = catalog.zip_bytes() as f64 / catalog.tot_bytes().max(1) as f64;
        self.ratio.store(ratio.to_bits(), Ordering::Relaxed);
        let guard = writing.read().unwrap_or_else(|e| e.into_inner());
        drop(tree);
        Ok((
            Placed {
                clusters: placed,
                file,
                save_due,
            },
            guard,
        ))
    }

    /// Writes the baskets; a cluster that cannot be written is taken out of the tree again
    /// before the next save. Saves the tree if a save is due.
    fn write(
        &self,
        placed: Placed,
        guard: RwLockReadGuard<'_, ()>,
        writing: &RwLock<()>,
        done: &mut dyn FnMut(SealedCluster, Result<()>),
    ) -> Result<()> {
        let mut all_written = true;
        for (mut cluster, base, first) in placed.clusters {
            let mut at = base;
            let mut written = Ok(());
            for (_, basket) in &mut cluster.baskets {
                place_record(&mut basket.record, at);
                if written.is_ok() {
                    written = placed.file.write_at(at, &basket.record);
                }
                at += basket.record.len() as u64;
            }
            if written.is_err() {
                // Undone before this write counts as finished, so that no save or close
                // records its baskets.
                let tot = cluster
                    .baskets
                    .iter()
                    .map(|(k, b)| (*k, b.tot_bytes))
                    .collect();
                lock(&self.failed).push(FailedCluster {
                    first,
                    entries: cluster.entries,
                    tot,
                });
                all_written = false;
            }
            done(cluster, written);
        }
        drop(guard);
        if placed.save_due && all_written {
            self.save(writing)?;
        }
        Ok(())
    }
}

impl ParallelTree {
    /// A tree with no entries yet.
    pub(super) fn new(
        name: String,
        dir: DirectoryId,
        shape: TreeShape,
        options: TTreeParallelOptions,
        compression: Compression,
        file: Arc<FileWriter>,
    ) -> Self {
        let catalog = TreeCatalog::new(&shape, options.write.basket_size);
        ParallelTree {
            name,
            dir,
            datime: file.datime(),
            shape,
            options,
            compression,
            tree: Mutex::new(TreeState {
                catalog,
                file: Some(file),
                owns_file: false,
            }),
            ratio: AtomicU64::new(1f64.to_bits()),
            failed: Mutex::new(Vec::new()),
        }
    }

    /// Saves the tree as ROOT's auto-save does, once every recorded cluster is in the
    /// file (`writing` taken exclusively): new commits wait at the tree's lock meanwhile
    /// (auto-saves come every few hundred MB).
    pub(super) fn save(&self, writing: &RwLock<()>) -> Result<()> {
        let mut tree = lock(&self.tree);
        let _all_written = writing.write().unwrap_or_else(|e| e.into_inner());
        let tree = &mut *tree;
        let Some(file) = tree.file.clone() else {
            return Ok(());
        };
        self.undo_failed(&mut tree.catalog);
        tree.catalog.save(&self.tree_object(), &file)
    }

    /// Takes the clusters whose bytes could not be written out of the tree (later clusters
    /// move down), so that the tree records only bytes that are in the file. Called with
    /// every write finished.
    pub(super) fn undo_failed(&self, catalog: &mut TreeCatalog) {
        let mut failed = std::mem::take(&mut *lock(&self.failed));
        // Latest first: removing a cluster moves only the ones after it.
        failed.sort_unstable_by_key(|f| std::cmp::Reverse(f.first));
        for f in failed {
            catalog.remove_cluster(f.first, f.entries, &f.tot);
        }
    }

    /// The tree object's name, directory, branches and settings.
    pub(super) fn tree_object(&self) -> TreeObject<'_> {
        TreeObject {
            name: &self.name,
            dir: self.dir,
            shape: &self.shape,
            options: &self.options.write,
            compression: self.compression,
        }
    }

    /// Takes the file out of the tree's state once every context is committed; an error
    /// if that was done already.
    pub(super) fn take_file(state: &mut TreeState) -> Result<Arc<FileWriter>> {
        state
            .file
            .take()
            .ok_or_else(|| Error::InvalidArgument("the writer was closed".into()))
    }
}
