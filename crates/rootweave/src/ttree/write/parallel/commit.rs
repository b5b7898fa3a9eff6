//! The commit point: a context's cluster sealed on its own thread, recorded under the
//! tree's lock (its byte range reserved, its baskets added to every branch's basket
//! arrays, no I/O), then written with positional writes outside every lock; ordered
//! mode's queue; auto-saves; and the undoing of clusters whose bytes could not be written.

use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard, RwLockReadGuard};

use super::backpressure::{settle, stop_counting_unused, stop_filling};
use super::{lock, record_error, BranchNote, ContextState, FailedCluster, SealedCluster, Shared};
use crate::container::FileWriter;
use crate::error::{Error, Result};
use crate::parallel::order::SequenceQueue;
use crate::ttree::write::baskets::basket::place_record;
use crate::ttree::write::tree::catalog::{TreeCatalog, TreeObject};

/// What a context keeps after a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keep {
    /// Nothing: the context is closing, or idle and flushed by another thread.
    Nothing,
    /// Its basket buffers, for the entries to come.
    Buffers,
}

/// Seals the context's cluster and commits it (or parks it until its turn, in ordered
/// mode). Sealing happens here, on the producer's thread.
pub(super) fn commit(
    shared: &Shared,
    state: &mut ContextState,
    sequence: Option<u64>,
    keep: Keep,
) -> Result<()> {
    for (k, filler) in state.fillers.iter_mut().enumerate() {
        if let Some(basket) = filler.seal() {
            state.sealed_bytes += basket.record.capacity() as u64;
            state.sealed.push((k, basket));
        }
    }
    if state.entries == 0 {
        if keep == Keep::Nothing {
            stop_filling(shared, state);
        }
        settle(shared, state);
        return match sequence {
            Some(seq) => skip(shared, seq),
            None => Ok(()),
        };
    }
    state.first_cluster_share = 1.0;
    stop_counting_unused(shared);
    let notes = state
        .fillers
        .iter()
        .zip(&state.max_counts)
        .map(|(f, &max_count)| BranchNote {
            max_count,
            basket_size: f.basket_size,
            entry_offset_len: f.entry_offset_len,
            longest: f.longest,
        })
        .collect();
    let mut baskets = std::mem::take(&mut state.sealed);
    for (_, basket) in &mut baskets {
        basket.first_entry -= state.cluster_start;
    }
    let cluster = SealedCluster {
        entries: state.entries,
        baskets,
        notes,
        reserved: state.sealed_bytes.min(state.reserved),
    };
    state.reserved -= cluster.reserved;
    state.sealed_bytes = 0;
    state.cluster_start += state.entries;
    state.entries = 0;
    state.max_counts = shared.shape.initial_max_counts();
    if keep == Keep::Nothing {
        stop_filling(shared, state);
    }
    settle(shared, state);
    match sequence {
        None => record_and_write(shared, vec![cluster]),
        Some(seq) => {
            let mut order = lock(&shared.order);
            match order.park_ready(seq, cluster) {
                Ok(ready) => record_in_order(shared, order, ready),
                Err((e, cluster)) => {
                    shared.budget.release(cluster.reserved);
                    Err(e)
                }
            }
        }
    }
}

/// Declares sequence number `seq` empty, and commits the clusters that were waiting for it.
fn skip(shared: &Shared, seq: u64) -> Result<()> {
    let mut order = lock(&shared.order);
    let ready = order.skip_ready(seq)?;
    record_in_order(shared, order, ready)
}

/// Records the clusters whose turn it is while still holding the order lock (so that
/// they enter the tree in sequence order), then writes them outside it.
pub(super) fn record_in_order(
    shared: &Shared,
    order: MutexGuard<'_, SequenceQueue<SealedCluster>>,
    ready: Vec<SealedCluster>,
) -> Result<()> {
    if ready.is_empty() {
        return Ok(());
    }
    let recorded = record(shared, ready);
    drop(order);
    recorded?.write(shared)
}

/// Records clusters and writes them.
pub(super) fn record_and_write(shared: &Shared, clusters: Vec<SealedCluster>) -> Result<()> {
    record(shared, clusters)?.write(shared)
}

/// The commit point: under the tree's lock, reserve each cluster's byte range and record
/// its baskets and boundary. No I/O, no compression, no copy happens here.
fn record(shared: &Shared, clusters: Vec<SealedCluster>) -> Result<Recorded<'_>> {
    let mut tree = lock(&shared.tree);
    let Some(file) = tree.file.clone() else {
        for c in &clusters {
            shared.budget.release(c.reserved);
        }
        return Err(Error::InvalidArgument(
            "the parallel writer was closed".into(),
        ));
    };
    let auto_save = shared.options.write.auto_save_bytes;
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
        placed.push(Placed {
            cluster,
            base,
            first,
        });
    }
    let ratio = catalog.zip_bytes() as f64 / catalog.tot_bytes().max(1) as f64;
    shared.ratio.store(ratio.to_bits(), Ordering::Relaxed);
    // Taken before the tree's lock is released, so that saves and close wait for these
    // writes.
    let writing = shared.writing.read().unwrap_or_else(|e| e.into_inner());
    drop(tree);
    Ok(Recorded {
        placed,
        file,
        save_due,
        _writing: writing,
    })
}

/// A cluster recorded in the tree: where its bytes go and its first entry.
struct Placed {
    cluster: SealedCluster,
    base: u64,
    first: u64,
}

/// Clusters recorded in the tree whose bytes are about to be written.
struct Recorded<'a> {
    placed: Vec<Placed>,
    file: Arc<FileWriter>,
    save_due: bool,
    _writing: RwLockReadGuard<'a, ()>,
}

impl Recorded<'_> {
    /// Writes the clusters' bytes (outside every lock) and gives their budget back; a
    /// cluster that cannot be written is taken out of the tree again, and the first
    /// error is returned. Saves the tree if a save is due.
    fn write(self, shared: &Shared) -> Result<()> {
        let mut result = Ok(());
        for Placed {
            mut cluster,
            base,
            first,
        } in self.placed
        {
            let mut at = base;
            let mut written = Ok(());
            for (_, basket) in &mut cluster.baskets {
                place_record(&mut basket.record, at);
                if written.is_ok() {
                    written = self.file.write_at(at, &basket.record);
                }
                at += basket.record.len() as u64;
            }
            if let Err(e) = written {
                // Undone before this write counts as finished, so that no save or close
                // records its baskets.
                let tot = cluster
                    .baskets
                    .iter()
                    .map(|(k, b)| (*k, b.tot_bytes))
                    .collect();
                lock(&shared.failed).push(FailedCluster {
                    first,
                    entries: cluster.entries,
                    tot,
                });
                record_error(shared, e.to_string());
                if result.is_ok() {
                    result = Err(e);
                }
            }
            drop(cluster.baskets);
            if let Some(freed) = &shared.freed {
                freed.freed(cluster.reserved);
            }
            shared.budget.release(cluster.reserved);
        }
        drop(self._writing);
        if self.save_due && result.is_ok() {
            save(shared)?;
        }
        result
    }
}

/// Saves the tree as ROOT's auto-save does, once every recorded cluster is in the file:
/// new commits wait at the tree's lock meanwhile (auto-saves come every few hundred MB).
pub(super) fn save(shared: &Shared) -> Result<()> {
    let mut tree = lock(&shared.tree);
    let _all_written = shared.writing.write().unwrap_or_else(|e| e.into_inner());
    let tree = &mut *tree;
    let Some(file) = tree.file.clone() else {
        return Ok(());
    };
    undo_failed(shared, &mut tree.catalog);
    tree.catalog.save(&tree_object(shared), &file)
}

/// Takes the clusters whose bytes could not be written out of the tree (later clusters
/// move down), so that the tree records only bytes that are in the file. Called with
/// every write finished.
pub(super) fn undo_failed(shared: &Shared, catalog: &mut TreeCatalog) {
    let mut failed = std::mem::take(&mut *lock(&shared.failed));
    // Latest first: removing a cluster moves only the ones after it.
    failed.sort_unstable_by_key(|f| std::cmp::Reverse(f.first));
    for f in failed {
        catalog.remove_cluster(f.first, f.entries, &f.tot);
    }
}

/// The tree object's name, directory, branches and settings.
pub(super) fn tree_object(shared: &Shared) -> TreeObject<'_> {
    TreeObject {
        name: &shared.name,
        dir: shared.dir,
        shape: &shared.shape,
        options: &shared.options.write,
        compression: shared.compression,
    }
}
