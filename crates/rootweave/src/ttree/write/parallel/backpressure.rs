//! Backpressure: every byte a context buffers is reserved from the budget first; a context
//! that would exceed it commits its own cluster (clusters shrink under memory pressure),
//! then commits idle contexts' clusters, and only then waits. Also the sizes of baskets and
//! clusters for the contexts at work.

use std::sync::atomic::Ordering;

use super::commit::{commit, Keep};
use super::{lock, record_error, ContextState, Shared};
use crate::array::ColumnData;
use crate::error::Result;
use crate::parallel::contexts::BUDGET_WAIT;
use crate::parallel::sizing::buffer_size_for_budget;

/// Bytes of bookkeeping a step may need beyond its data (basket headers, vector growth).
const STEP_OVERHEAD: u64 = 64 << 10;

/// The basket size of a context that starts filling: the configured one, made smaller
/// when one basket per branch for every context at work would take more than half of the
/// budget (see [`buffer_size_for_budget`]). In ordered mode it does not depend on the
/// number of contexts, so that the same input gives the same baskets.
pub(super) fn basket_size(shared: &Shared) -> usize {
    let filling = match shared.options.ordered {
        true => 1,
        false => shared.filling.load(Ordering::Relaxed),
    };
    buffer_size_for_budget(
        shared.options.write.basket_size,
        shared.options.memory_budget,
        shared.shape.specs.len(),
        filling,
    )
}

/// Counts the context among those filling (once); a context that holds nothing takes the
/// basket size for the contexts at work.
pub(super) fn start_filling(shared: &Shared, state: &mut ContextState) {
    state.filled = true;
    if !state.filling {
        state.filling = true;
        shared.filling.fetch_add(1, Ordering::Relaxed);
    }
    if state.entries == 0 {
        let size = basket_size(shared);
        if size != state.basket_size {
            state.basket_size = size;
            for f in &mut state.fillers {
                f.set_basket_size(size);
            }
        }
    }
}

/// Frees an empty context's buffers and stops counting it among those filling.
pub(super) fn stop_filling(shared: &Shared, state: &mut ContextState) {
    for f in &mut state.fillers {
        f.release_memory();
    }
    if state.filling {
        state.filling = false;
        shared.filling.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Checks a batch, then appends it step by step, reserving budget before each step;
/// without a sequence number, commits the cluster whenever it reaches its target.
pub(super) fn append_batch(
    shared: &Shared,
    state: &mut ContextState,
    batch: &[ColumnData],
    sequence: Option<u64>,
) -> Result<()> {
    let checked = shared.shape.columns(batch)?;
    start_filling(shared, state);
    shared
        .shape
        .update_max_counts(&checked, &mut state.max_counts);
    let per_entry = (checked.bytes / checked.entries.max(1)) as u64 + 1;
    // Steps of about a basket of the widest branch, small against the budget.
    let max_step_bytes = (shared.options.memory_budget / 16).max(64 << 10);
    let step = shared
        .shape
        .step(state.basket_size)
        .min((max_step_bytes / per_entry) as usize)
        .max(1);
    let mut sealed = Vec::new();
    let mut start = 0;
    while start < checked.entries {
        let end = (start + step).min(checked.entries);
        reserve(shared, state, per_entry * (end - start) as u64, sequence)?;
        for (k, column) in checked.columns.iter().enumerate() {
            state.fillers[k].append(column, start..end, &mut sealed)?;
            for basket in sealed.drain(..) {
                state.sealed_bytes += basket.record.capacity() as u64;
                state.sealed.push((k, basket));
            }
        }
        state.entries += (end - start) as u64;
        start = end;
        let pending = settle(shared, state);
        if sequence.is_none() && due(shared, state, pending) {
            commit(shared, state, None, Keep::Buffers)?;
        }
    }
    Ok(())
}

/// The most a step of `data_bytes` bytes of entries can grow the context's buffers by.
/// Open baskets' buffers are allocated whole at their first entry, and may grow past it
/// by the step's bytes (entries of varying size, and their offsets); the baskets sealed in
/// the step take the step's bytes again at worst, and a third time while the entries are
/// copied beside their offset table to be compressed.
fn step_bound(shared: &Shared, state: &ContextState, data_bytes: u64) -> u64 {
    let unallocated: u64 = state
        .fillers
        .iter()
        .map(|f| f.unallocated_bytes() as u64)
        .sum();
    let branches = shared.shape.specs.len() as u64;
    unallocated + 3 * data_bytes + 128 * branches + STEP_OVERHEAD
}

/// Takes budget for a step of `data_bytes` bytes of entries (see [`step_bound`]), waiting
/// while the budget is spent.
///
/// Unordered mode never overdraws. The context first commits its own cluster (clusters
/// shrink under memory pressure), then frees its empty buffers and waits; while it waits
/// it commits the clusters of idle contexts (whose owners are busy elsewhere), so that
/// everything still taken belongs to contexts running on other threads, which give it
/// back when they commit. A step larger than the whole budget is granted once nothing
/// else is taken.
///
/// Ordered mode parks sealed clusters until their turn, so the context holding the next
/// sequence number overdraws at once (everybody waits for it), and any other context
/// overdraws after waiting [`BUDGET_WAIT`]: at most one step per waiting thread.
fn reserve(
    shared: &Shared,
    state: &mut ContextState,
    data_bytes: u64,
    sequence: Option<u64>,
) -> Result<()> {
    let mut bytes = step_bound(shared, state, data_bytes);
    if shared.budget.try_acquire(bytes) {
        state.reserved += bytes;
        return Ok(());
    }
    match sequence {
        None => {
            commit(shared, state, None, Keep::Buffers)?;
            if !shared.budget.try_acquire(bytes) {
                for f in &mut state.fillers {
                    f.release_memory();
                }
                settle(shared, state);
                // The buffers freed are allocated again by the step.
                bytes = step_bound(shared, state, data_bytes);
                while !shared
                    .budget
                    .acquire_holding_within(bytes, state.reserved, BUDGET_WAIT)
                {
                    flush_idle_contexts(shared);
                }
            }
        }
        Some(seq) => {
            let head = lock(&shared.order).next() == seq;
            if head || !shared.budget.acquire_within(bytes, BUDGET_WAIT) {
                shared.budget.force_acquire(bytes);
            }
        }
    }
    state.reserved += bytes;
    Ok(())
}

/// Commits the clusters of contexts that are not in use right now, to give their memory
/// back.
pub(super) fn flush_idle_contexts(shared: &Shared) {
    shared.contexts.for_each_idle(|state| {
        if !state.closed && state.reserved > 0 {
            if let Err(e) = commit(shared, state, None, Keep::Nothing) {
                record_error(shared, e.to_string());
            }
        }
    });
}

/// Stops counting among those filling the contexts that were made but have never had an
/// entry and are not in use: made and left aside, they would keep everybody's baskets and
/// share of the budget small.
pub(super) fn stop_counting_unused(shared: &Shared) {
    shared.contexts.for_each_idle(|state| {
        if !state.closed && state.filling && !state.filled {
            stop_filling(shared, state);
        }
    });
}

/// Makes the reservation what the context's buffers hold, counting the room its open
/// baskets take once sealed (so that sealing never needs budget and a context can always
/// commit to make room); returns the bytes of entries in its open baskets.
pub(super) fn settle(shared: &Shared, state: &mut ContextState) -> u64 {
    let (mut held, mut pending) = (state.sealed_bytes, 0u64);
    for f in &state.fillers {
        held += f.held_bytes();
        pending += f.pending_bytes() as u64;
    }
    if held > state.reserved {
        shared.budget.force_acquire(held - state.reserved);
    } else {
        shared.budget.release(state.reserved - held);
    }
    state.reserved = held;
    pending
}

/// Whether the open cluster reached its target: its sealed baskets and its open baskets'
/// bytes at the compression ratio so far, against [`cluster_target`].
fn due(shared: &Shared, state: &ContextState, pending: u64) -> bool {
    let ratio = f64::from_bits(shared.ratio.load(Ordering::Relaxed));
    let estimate = state.sealed_bytes as f64 + pending as f64 * ratio;
    estimate >= cluster_target(shared, state) as f64
}

/// The stored size at which a context commits its cluster: the tree's `auto_flush_bytes`
/// (ROOT's 30 MB), but no more than a quarter of the context's fair share of the budget
/// (for its first cluster, a part of that, so that contexts started together commit at
/// different moments: see [`crate::parallel::sizing::first_cluster_share`]). Committing
/// early lets writing overlap the other contexts' work.
fn cluster_target(shared: &Shared, state: &ContextState) -> u64 {
    let quarter_share = (fair_share(shared) / 4) as f64 * state.first_cluster_share;
    shared
        .options
        .write
        .auto_flush_bytes
        .min(quarter_share as u64)
}

/// An equal share of the budget among the contexts filling.
fn fair_share(shared: &Shared) -> u64 {
    shared.budget.limit() / shared.filling.load(Ordering::Relaxed).max(1) as u64
}
