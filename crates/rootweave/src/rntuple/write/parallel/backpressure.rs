//! Backpressure: every byte a context buffers is reserved from the budget first; a context
//! that would exceed it writes its own cluster (clusters shrink under memory pressure),
//! flushes idle contexts, and only then waits. Also the sizes of pages and clusters for
//! the contexts at work.

use std::sync::atomic::Ordering;

use super::commit::{commit, Keep};
use super::{lock, record, ContextState, Shared, STEP_OVERHEAD};
use crate::array::ColumnData;
use crate::error::Result;
use crate::parallel::contexts::BUDGET_WAIT;
use crate::parallel::sizing::buffer_size_for_budget;

/// Counts the context among those filling (once), and gives its builder the page size
/// for the number of contexts at work if it holds no buffers yet.
pub(super) fn start_filling(shared: &Shared, state: &mut ContextState) {
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
pub(super) fn adapt_page_size(shared: &Shared, state: &mut ContextState) {
    let page_size = buffer_size_for_budget(
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
pub(super) fn stop_filling(shared: &Shared, state: &mut ContextState) {
    state.builder.release_memory();
    if state.filling {
        state.filling = false;
        shared.filling.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Checks and appends a batch step by step, reserving budget before each step.
pub(super) fn append_batch(
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
pub(super) fn reserve(
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
            let head = lock(&shared.order).next() == seq;
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
pub(super) fn for_each_idle_context(shared: &Shared, mut f: impl FnMut(&mut ContextState)) {
    shared.contexts.for_each_idle(|state| {
        if !state.closed {
            f(state);
        }
    });
}

/// Commits the clusters of contexts that are not in use right now (their owners are busy
/// elsewhere), to give their memory back.
pub(super) fn flush_idle_contexts(shared: &Shared) {
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
pub(super) fn stop_counting_unused(shared: &Shared) {
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
pub(super) fn settle(shared: &Shared, state: &mut ContextState) {
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
pub(super) fn after_append(shared: &Shared, state: &mut ContextState) -> Result<()> {
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
pub(super) fn cluster_target(shared: &Shared, state: &ContextState) -> u64 {
    let quarter_share = (fair_share(shared) / 4) as f64 * state.first_cluster_share;
    let two_pages = 2 * shared.columns as u64 * state.page_size as u64;
    shared
        .options
        .write
        .cluster_target_size
        .min((quarter_share as u64).max(two_pages))
}

/// The bytes of budget a context may hold for itself after a commit: an equal share among
/// the contexts filling. Reusing the memory of its written clusters (instead of freeing
/// it and mapping new memory for the next one) spares the page faults and zeroing of
/// fresh memory, which cost as much as a fast codec and, taken by several threads at
/// once, contend in the kernel.
pub(super) fn fair_share(shared: &Shared) -> u64 {
    shared.budget.limit() / shared.filling.load(Ordering::Relaxed).max(1) as u64
}

/// Gives back the budget an empty builder no longer holds.
pub(super) fn give_back_unheld(shared: &Shared, state: &mut ContextState) {
    let held = state.builder.allocated_bytes();
    shared.budget.release(state.reserved.saturating_sub(held));
    state.reserved = held.min(state.reserved);
}
