//! The commit point: a context's cluster sealed on its own thread, recorded by the sink
//! under its lock, written afterwards outside every lock; ordered mode's queue; and the
//! budget a written cluster gives back (or leaves to the context that wrote it, for its
//! next clusters).

use std::sync::RwLockReadGuard;

use super::backpressure::{adapt_buffer_size, fair_share, settle, stop_counting_unused};
use super::contexts::lock;
use super::{ClusterOf, ClusterSink, ContextBuffers, ContextState, Engine};
use crate::error::Result;

/// What a context's buffers keep after a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Nothing: the context is closing, or idle and flushed by another thread.
    Nothing,
    /// The buffers being filled, and of the written cluster's memory what fits in its
    /// fair share of the budget: it goes on filling, but memory is tight, so a context
    /// without entries frees its spares.
    Pages,
    /// As `Pages`, but a context without entries keeps its spares: it goes on filling,
    /// and memory is not tight.
    All,
}

/// A sealed cluster and the budget held for it until it is written.
pub(crate) struct Parked<C> {
    cluster: C,
    reserved: u64,
}

/// Seals the context's cluster and commits it (or parks it until its turn, in ordered
/// mode). The sealing happens here, on the producer's thread. A context without entries
/// commits nothing, but its sequence number, if any, is declared empty.
pub(crate) fn commit<S: ClusterSink>(
    engine: &Engine<S>,
    state: &mut ContextState<S::Buffers>,
    sequence: Option<u64>,
    keep: Keep,
) -> Result<()> {
    if state.buffers.entries() == 0 {
        match keep {
            Keep::Nothing => super::backpressure::stop_filling(engine, state),
            Keep::Pages => state.buffers.release_spares(),
            Keep::All => {}
        }
        settle(engine, state);
        return match sequence {
            Some(seq) => skip(engine, seq),
            None => Ok(()),
        };
    }
    let cluster = engine.sink.seal(&mut state.buffers);
    state.first_cluster_share = 1.0;
    stop_counting_unused(engine);
    if keep == Keep::Nothing {
        super::backpressure::stop_filling(engine, state);
    } else {
        adapt_buffer_size(engine, state);
    }
    // The budget taken for the buffers now covers the sealed cluster until it is
    // written; the buffers keep what they still hold.
    let reserved = state.reserved.saturating_sub(state.buffers.held_bytes());
    state.reserved -= reserved;
    settle(engine, state);
    let parked = Parked {
        cluster: match cluster {
            Ok(cluster) => cluster,
            Err(e) => {
                engine.budget.release(reserved);
                return Err(e);
            }
        },
        reserved,
    };
    let recycle = (keep != Keep::Nothing).then_some(state);
    match sequence {
        None => record(engine, vec![parked])?.write(engine, recycle),
        Some(seq) => {
            let mut order = lock(&engine.order);
            // Whoever completes the run at the head of the queue writes it.
            let ready = match order.park_ready(seq, parked) {
                Ok(ready) => ready,
                Err((e, parked)) => {
                    engine.budget.release(parked.reserved);
                    return Err(e);
                }
            };
            if ready.is_empty() {
                return Ok(());
            }
            // Recorded while the order lock is held, so that the commit order is the
            // sequence order; written after it is released. The clusters this thread
            // writes (its own or others') give their memory to this context.
            let recorded = record(engine, ready);
            drop(order);
            recorded?.write(engine, recycle)
        }
    }
}

/// Declares sequence number `seq` empty, and commits the clusters that were waiting for it.
pub(crate) fn skip<S: ClusterSink>(engine: &Engine<S>, seq: u64) -> Result<()> {
    let mut order = lock(&engine.order);
    let ready = order.skip_ready(seq)?;
    if ready.is_empty() {
        return Ok(());
    }
    let recorded = record(engine, ready);
    drop(order);
    recorded?.write(engine, None)
}

/// Records clusters in the sink (their budget goes back if that fails).
pub(crate) fn record<S: ClusterSink>(
    engine: &Engine<S>,
    parked: Vec<Parked<ClusterOf<S>>>,
) -> Result<Recorded<'_, S>> {
    let (clusters, reserved): (Vec<_>, Vec<_>) =
        parked.into_iter().map(|p| (p.cluster, p.reserved)).unzip();
    match engine.sink.record(clusters, &engine.writing) {
        Ok((recorded, guard)) => Ok(Recorded {
            recorded,
            reserved,
            guard,
        }),
        Err(e) => {
            engine.budget.release(reserved.iter().sum());
            Err(e)
        }
    }
}

/// Clusters recorded in the sink whose bytes are still to be written.
pub(crate) struct Recorded<'a, S: ClusterSink> {
    recorded: S::Recorded,
    /// The budget held for each cluster.
    reserved: Vec<u64>,
    /// Held until the writes are done, so that saves and close wait for them.
    guard: RwLockReadGuard<'a, ()>,
}

impl<S: ClusterSink> Recorded<'_, S> {
    /// Writes the clusters (outside every lock) and gives their budget back, or keeps
    /// their memory for `recycle`'s next clusters up to its fair share of the budget.
    /// Returns the first error; every failure is also recorded for `close`.
    pub(crate) fn write(
        self,
        engine: &Engine<S>,
        mut recycle: Option<&mut ContextState<S::Buffers>>,
    ) -> Result<()> {
        let mut reserved = self.reserved.into_iter();
        let mut first_error = Ok(());
        let after = engine.sink.write(
            self.recorded,
            self.guard,
            &engine.writing,
            &mut |cluster, outcome| {
                let bytes = reserved.next().unwrap_or(0);
                let kept = match recycle.as_deref_mut() {
                    Some(state) => {
                        let limit = fair_share(engine).saturating_sub(state.buffers.held_bytes());
                        let kept = state.buffers.recycle(cluster, limit.min(bytes)).min(bytes);
                        state.reserved += kept;
                        kept
                    }
                    None => {
                        drop(cluster);
                        0
                    }
                };
                if let Some(freed) = &engine.freed {
                    freed.freed(bytes - kept);
                }
                engine.budget.release(bytes - kept);
                if let Err(e) = outcome {
                    engine.failures.record(e.to_string());
                    if first_error.is_ok() {
                        first_error = Err(e);
                    }
                }
            },
        );
        first_error.and(after)
    }
}
