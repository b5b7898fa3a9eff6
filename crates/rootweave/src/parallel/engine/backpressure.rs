//! Backpressure: every byte a context buffers is reserved from the budget first; a context
//! that would exceed it commits its own cluster (clusters shrink under memory pressure),
//! then commits idle contexts' clusters, and only then waits. Also the buffer and cluster
//! sizes of the contexts at work.

use std::sync::atomic::Ordering;

use super::commit::{commit, Keep};
use super::contexts::{lock, BUDGET_WAIT};
use super::{ClusterSink, ContextBuffers, ContextState, Engine};
use crate::error::Result;

/// Bytes of bookkeeping a step may need beyond its data (headers, checksums, vector
/// growth).
pub(super) const STEP_OVERHEAD: u64 = 64 << 10;

/// Counts the context among those filling (once), and gives buffers without entries the
/// size for the number of contexts at work.
pub(super) fn start_filling<S: ClusterSink>(
    engine: &Engine<S>,
    state: &mut ContextState<S::Buffers>,
) {
    state.filled = true;
    if !state.filling {
        state.filling = true;
        engine.filling.fetch_add(1, Ordering::Relaxed);
    }
    if state.buffers.entries() == 0 {
        adapt_buffer_size(engine, state);
    }
}

/// Gives buffers without entries the page or basket size for the number of contexts at
/// work (buffers of another size are made again, at the new size, as data arrives).
pub(super) fn adapt_buffer_size<S: ClusterSink>(
    engine: &Engine<S>,
    state: &mut ContextState<S::Buffers>,
) {
    let size = engine
        .sink
        .buffer_size(engine.filling.load(Ordering::Relaxed));
    if size != state.buffer_size {
        state.buffers.set_buffer_size(size);
        state.buffer_size = size;
    }
}

/// Frees the buffers of a context without entries and stops counting it among those
/// filling.
pub(super) fn stop_filling<S: ClusterSink>(
    engine: &Engine<S>,
    state: &mut ContextState<S::Buffers>,
) {
    state.buffers.release_memory();
    if state.filling {
        state.filling = false;
        engine.filling.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Takes budget for appending `data_bytes` bytes of entries: the worst case of what the
/// buffers can grow by (settling afterwards gives back what they do not really hold),
/// waiting while the budget is spent.
///
/// Unordered mode never overdraws. The context first commits its own cluster (it then
/// holds nothing but its buffers and the spares of its fair share, and clusters shrink
/// under memory pressure); if the step still does not fit, it frees what it can and
/// waits, committing meanwhile the clusters of idle contexts (whose owners are busy
/// elsewhere, for example many contexts on few threads), so that everything still taken
/// belongs to contexts running on other threads, which give it back when they commit.
/// That cannot deadlock: a running context that cannot get budget commits too. A step
/// larger than the whole budget (one huge entry) is granted once nothing else is taken.
///
/// Ordered mode parks sealed clusters until their turn, so the context holding the next
/// sequence number overdraws at once (everybody waits for it), and any other context
/// overdraws after waiting [`BUDGET_WAIT`] (the next one may be held by a thread that is
/// waiting itself): at most one step per waiting thread.
pub(super) fn reserve<S: ClusterSink>(
    engine: &Engine<S>,
    state: &mut ContextState<S::Buffers>,
    data_bytes: u64,
    sequence: Option<u64>,
) -> Result<()> {
    let bound =
        |state: &ContextState<S::Buffers>| state.buffers.growth_bound(data_bytes) + STEP_OVERHEAD;
    let mut bytes = bound(state);
    if engine.budget.try_acquire(bytes) {
        state.reserved += bytes;
        return Ok(());
    }
    match sequence {
        // The context commits at once, even under its fair share: waiting for others to
        // commit first would only idle, since a context over its share gives bytes back
        // once its cluster is written, which takes about as long as the wait may last.
        None => {
            commit(engine, state, None, Keep::Pages)?;
            // The written cluster's memory, kept as spares, may cover much of the step.
            bytes = bound(state);
            if !engine.budget.try_acquire(bytes) {
                // It does not: waiting while holding it could end only by taking bytes
                // beyond the budget (once everything taken is this context's own).
                state.buffers.release_before_waiting();
                settle(engine, state);
                bytes = bound(state);
                while !engine
                    .budget
                    .acquire_holding_within(bytes, state.reserved, BUDGET_WAIT)
                {
                    flush_idle_contexts(engine);
                }
            }
        }
        Some(seq) => {
            let head = lock(&engine.order).next() == seq;
            if head || !engine.budget.acquire_within(bytes, BUDGET_WAIT) {
                engine.budget.force_acquire(bytes);
            }
        }
    }
    state.reserved += bytes;
    Ok(())
}

/// Makes the reservation what the buffers will hold once their cluster is sealed: the
/// excess of a step's reservation goes back to the budget. (The reservation covers the
/// worst case, so buffers holding more are not expected; if they do, it is counted all
/// the same and shows in the budget's peak.)
pub(super) fn settle<S: ClusterSink>(engine: &Engine<S>, state: &mut ContextState<S::Buffers>) {
    let held = state.buffers.held_bytes();
    if held > state.reserved {
        engine.budget.force_acquire(held - state.reserved);
    } else {
        engine.budget.release(state.reserved - held);
    }
    state.reserved = held;
}

/// After an unordered step: settles the reservation and commits the cluster if it
/// reached its target size.
pub(super) fn after_step<S: ClusterSink>(
    engine: &Engine<S>,
    state: &mut ContextState<S::Buffers>,
) -> Result<()> {
    settle(engine, state);
    if cluster_due(engine, state) {
        commit(engine, state, None, Keep::All)?;
    }
    Ok(())
}

/// Whether the context's cluster reached its target size (stored, as estimated from the
/// sealed bytes and the pending ones at the compression ratio so far) or the format's
/// largest uncompressed cluster.
pub(super) fn cluster_due<S: ClusterSink>(
    engine: &Engine<S>,
    state: &ContextState<S::Buffers>,
) -> bool {
    let level = state.buffers.fill_level();
    let estimate = level.sealed as f64 + level.pending as f64 * engine.sink.compression_ratio();
    estimate >= cluster_target(engine, state) as f64
        || level.uncompressed >= engine.sink.max_uncompressed()
}

/// Takes budget for appending `data_bytes` bytes of entries (unsequenced) without waiting:
/// if the budget has no room, the context commits its own cluster and tries once more.
/// Returns whether it took the bytes.
pub(super) fn try_reserve<S: ClusterSink>(
    engine: &Engine<S>,
    state: &mut ContextState<S::Buffers>,
    data_bytes: u64,
) -> Result<bool> {
    let bound =
        |state: &ContextState<S::Buffers>| state.buffers.growth_bound(data_bytes) + STEP_OVERHEAD;
    let bytes = bound(state);
    if !engine.budget.try_acquire(bytes) {
        if state.buffers.entries() == 0 && engine.budget.in_use() > state.reserved {
            return Ok(false);
        }
        commit(engine, state, None, Keep::Pages)?;
        let bytes = bound(state);
        if !engine.budget.try_acquire(bytes) {
            // A step larger than the whole budget is granted once nothing else is taken
            // (else it could never be).
            if engine.budget.in_use() > state.reserved {
                return Ok(false);
            }
            engine.budget.force_acquire(bytes);
        }
        state.reserved += bytes;
        return Ok(true);
    }
    state.reserved += bytes;
    Ok(true)
}

/// The stored size at which a context commits its cluster: the format's target, but no
/// more than a quarter of the context's [`fair_share`] (for its first cluster, a part of
/// that: see [`super::sizing::first_cluster_share`]) unless that is below the least the
/// format wants in a cluster. Bytes still held when the producers are done are written at
/// close with nothing left to overlap, so committing early lets writing overlap the other
/// contexts' work.
fn cluster_target<S: ClusterSink>(engine: &Engine<S>, state: &ContextState<S::Buffers>) -> u64 {
    let quarter_share = (fair_share(engine) / 4) as f64 * state.first_cluster_share;
    let (largest, least) = engine.sink.cluster_bounds(state.buffer_size);
    largest.min((quarter_share as u64).max(least))
}

/// The bytes of budget a context may hold for itself: an equal share among the contexts
/// filling. Reusing the memory of its written clusters (instead of freeing it and mapping
/// new memory for the next one) spares the page faults and zeroing of fresh memory, which
/// cost as much as a fast codec and, taken by several threads at once, contend in the
/// kernel.
pub(super) fn fair_share<S: ClusterSink>(engine: &Engine<S>) -> u64 {
    engine.budget.limit() / engine.filling.load(Ordering::Relaxed).max(1) as u64
}

/// Commits the clusters of contexts that no thread is using right now (their owners are
/// busy elsewhere), to give their memory back.
pub(super) fn flush_idle_contexts<S: ClusterSink>(engine: &Engine<S>) {
    engine.contexts.for_each_idle(|state| {
        // Also contexts without entries: they may keep buffers for their next cluster.
        if !state.closed && state.reserved > 0 {
            if let Err(e) = commit(engine, state, None, Keep::Nothing) {
                engine.failures.record(e.to_string());
            }
        }
    });
}

/// Stops counting among those filling the contexts that were made but have never had an
/// entry, and are not in use right now: made and left aside, they would keep everybody's
/// buffers and share of the budget small. Called at every commit; contexts made together
/// for threads that start at once have all had their first entries by then.
pub(super) fn stop_counting_unused<S: ClusterSink>(engine: &Engine<S>) {
    engine.contexts.for_each_idle(|state| {
        if !state.closed && state.filling && !state.filled {
            stop_filling(engine, state);
        }
    });
}
