//! The commit point: sealing a context's cluster on its own thread, recording it under
//! the sink's lock (byte ranges reserved, no I/O), writing it afterwards, and ordered
//! mode's queue.

use std::sync::Arc;

use super::backpressure::{
    adapt_page_size, fair_share, give_back_unheld, stop_counting_unused, stop_filling,
};
use super::{lock, record, ContextState, Parked, Shared};
use crate::container::FileWriter;
use crate::error::Result;
use crate::rntuple::format::ClusterInfo;
use crate::rntuple::write::builder::SealedCluster;
use crate::rntuple::write::checkpoint::{write_cluster_record, NtupleOnDisk, Publish};
use crate::rntuple::write::cluster::ClusterPlan;

/// What a context's builder keeps after a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keep {
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
pub(super) fn commit(
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
            // Whoever completes the run at the head of the queue writes it.
            let ready = match order.park_ready(seq, parked) {
                Ok(ready) => ready,
                Err((e, parked)) => {
                    shared.budget.release(parked.reserved);
                    return Err(e);
                }
            };
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
pub(super) fn write_recycling(
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

/// The commit point: under the sink's lock, reserve the byte ranges and record the
/// cluster. No I/O, no compression, no copy happens here.
pub(super) fn record_cluster(shared: &Shared, parked: Parked) -> Result<RecordedCluster<'_>> {
    let mut sink = lock(&shared.sink);
    let (blob_keys, info) = sink.record_cluster(&parked.cluster, &parked.plan)?;
    let file = sink.file()?.clone();
    let ntuple = sink.ledger.ntuple().clone();
    // Taken before the sink's lock is released, so that close waits for this write.
    let writing = shared.writing.read().unwrap_or_else(|e| e.into_inner());
    drop(sink);
    Ok(RecordedCluster {
        parked,
        blob_keys,
        info,
        ntuple,
        file,
        _writing: writing,
    })
}

/// A cluster recorded in the RNTuple whose bytes are being written.
pub(super) struct RecordedCluster<'a> {
    parked: Parked,
    blob_keys: Vec<u64>,
    /// Its page locations, for its cluster record.
    info: Arc<ClusterInfo>,
    ntuple: NtupleOnDisk,
    file: Arc<FileWriter>,
    /// Held until the cluster, its record and any checkpoint it triggers are written.
    _writing: std::sync::RwLockReadGuard<'a, ()>,
}

impl RecordedCluster<'_> {
    /// Writes the cluster's bytes (outside every lock) and gives its budget back.
    pub(super) fn write(self, shared: &Shared) -> Result<()> {
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

    /// Writes the cluster's bytes and its cluster record (outside every lock) and, once
    /// they are in the file, offers its pages to later clusters and checkpoints if one is
    /// due; returns the outcome, the cluster and the budget still taken for it.
    pub(super) fn write_keeping_budget(self, shared: &Shared) -> (Result<()>, SealedCluster, u64) {
        let plan = &self.parked.plan;
        let result = plan
            .write(&self.file, &self.parked.cluster, &self.blob_keys)
            .and_then(|()| write_cluster_record(&self.file, &self.ntuple, &self.info));
        let result = result.and_then(|record| {
            if let Some(stored) = &shared.stored_pages {
                stored.insert(plan.stored_pages(&self.blob_keys));
            }
            let due = lock(&shared.sink)
                .ledger
                .written(self.info.first_entry, record);
            if due {
                checkpoint(shared, &self.file, false)?;
            }
            Ok(())
        });
        (result, self.parked.cluster, self.parked.reserved)
    }
}

/// Checkpoints the clusters written so far. If another thread is writing a group, waits
/// for it first if `wait`, else leaves it to the next cluster's checkpoint. The I/O
/// happens outside the commit lock.
pub(super) fn checkpoint(shared: &Shared, file: &FileWriter, wait: bool) -> Result<()> {
    let work = loop {
        let mut sink = lock(&shared.sink);
        if !wait || !sink.ledger.is_busy() {
            break sink.ledger.take_group(Publish::Checkpoint);
        }
        drop(sink);
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    let Some(work) = work else { return Ok(()) };
    let outcome = work.write(file);
    let mut sink = lock(&shared.sink);
    let result = sink.ledger.finish_group(work, outcome);
    sink.summary.cluster_groups = sink.ledger.groups() as u64;
    result
}

pub(super) fn write_parked(shared: &Shared, parked: Parked) -> Result<()> {
    record_cluster(shared, parked)?.write(shared)
}
