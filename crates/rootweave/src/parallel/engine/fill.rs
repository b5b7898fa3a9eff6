//! A fill context of the engine: a producer's handle, which a format's public context
//! wraps. It appends entries in steps, each reserved from the budget first, commits its
//! clusters, and commits what it holds when dropped.

use std::sync::{Arc, Mutex, MutexGuard};

use super::backpressure::{
    after_step, cluster_due, reserve, settle, start_filling, stop_filling, try_reserve,
};
use super::commit::{commit, skip, Keep};
use super::contexts::lock;
use super::order::used;
use super::{closed, ClusterSink, ContextBuffers, ContextState, Engine};
use crate::error::{Error, Result};

/// A producer's handle on the engine. `Send`, so it can move to any thread. Dropping it
/// commits what it holds (unless its thread is panicking: then its unfinished cluster is
/// discarded and the failure reported at close).
pub(crate) struct FillContext<S: ClusterSink> {
    engine: Arc<Engine<S>>,
    state: Arc<Mutex<ContextState<S::Buffers>>>,
}

/// A context in use by its producer: the engine and the context's locked state.
pub(crate) struct Filling<'a, S: ClusterSink> {
    engine: &'a Engine<S>,
    state: MutexGuard<'a, ContextState<S::Buffers>>,
    sequence: Option<u64>,
    pace: Pace,
    /// With [`Pace::NoFlush`]: a step left the cluster at or above its target size.
    cluster_due: bool,
    /// With [`Pace::NoWait`]: the budget had no room, nothing was appended.
    blocked: bool,
}

/// The sequence number steps of staged entries reserve budget as: never the head of the
/// queue, so they wait a moment before they overdraw, as other ordered steps do.
const STAGED: u64 = u64::MAX;

/// How an unsequenced step meets a spent budget and a full cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pace {
    /// Waits for budget; commits the cluster once it reaches its target size.
    Wait,
    /// Waits for budget; leaves the cluster open and tells when it is due (ROOT's
    /// `FillNoFlush`).
    NoFlush,
    /// Never waits: when the budget has no room even after the context committed its own
    /// cluster, appends nothing and tells so (for task schedulers that must not block).
    /// The entries are then appended in one step.
    NoWait,
}

impl<S: ClusterSink> FillContext<S> {
    pub(super) fn new(engine: Arc<Engine<S>>, state: Arc<Mutex<ContextState<S::Buffers>>>) -> Self {
        FillContext { engine, state }
    }

    /// The format's sink.
    pub(crate) fn sink(&self) -> &S {
        &self.engine.sink
    }

    fn open(&self, sequence: Option<u64>) -> Result<Filling<'_, S>> {
        let state = lock(&self.state);
        if state.closed {
            return Err(closed());
        }
        Ok(Filling {
            engine: &self.engine,
            state,
            sequence,
            pace: Pace::Wait,
            cluster_due: false,
            blocked: false,
        })
    }

    /// The context, to append entries without a sequence number; an error if the writer
    /// is ordered or closed.
    pub(crate) fn unordered(&mut self) -> Result<Filling<'_, S>> {
        if self.engine.options.ordered {
            return Err(Error::InvalidArgument(
                "an ordered parallel writer takes batches with a sequence number (extend_sequence)"
                    .into(),
            ));
        }
        self.open(None)
    }

    /// Appends entries with `append` and commits them as the cluster with sequence
    /// number `sequence` (ordered mode); an error if the writer is not ordered, the
    /// number was used, or the context holds entries without a number.
    pub(crate) fn sequenced(
        &mut self,
        sequence: u64,
        append: impl FnOnce(&mut Filling<'_, S>) -> Result<()>,
    ) -> Result<()> {
        if !self.engine.options.ordered {
            return Err(Error::InvalidArgument(
                "extend_sequence needs a writer created with ordered = true".into(),
            ));
        }
        let mut filling = self.open(Some(sequence))?;
        if filling.state.buffers.entries() > 0 {
            return Err(Error::InvalidArgument(
                "extend_sequence: the context holds unsequenced entries".into(),
            ));
        }
        if lock(&filling.engine.order).is_used(sequence) {
            return Err(used(sequence));
        }
        filling.state.buffers.start_sequenced_cluster();
        append(&mut filling)?;
        let engine = filling.engine;
        commit(engine, &mut filling.state, Some(sequence), Keep::Pages)
    }

    /// The context, to append entries one call after another that
    /// [`FillContext::commit_staged`] then commits as one cluster with a sequence number
    /// (ordered mode: the producer fills entry by entry and says which place the cluster
    /// takes). Steps never commit; the filling tells when the cluster reached its target
    /// size ([`Filling::cluster_due`]). An error if the writer is not ordered.
    pub(crate) fn staged(&mut self) -> Result<Filling<'_, S>> {
        if !self.engine.options.ordered {
            return Err(Error::InvalidArgument(
                "staged entries need a writer created with ordered = true".into(),
            ));
        }
        let mut filling = self.open(Some(STAGED))?;
        if filling.state.buffers.entries() == 0 {
            filling.state.buffers.start_sequenced_cluster();
        }
        filling.pace = Pace::NoFlush;
        Ok(filling)
    }

    /// Commits the staged entries as the cluster with sequence number `sequence` (ordered
    /// mode; without entries, the number is declared empty).
    pub(crate) fn commit_staged(&mut self, sequence: u64) -> Result<()> {
        if !self.engine.options.ordered {
            return Err(Error::InvalidArgument(
                "staged entries need a writer created with ordered = true".into(),
            ));
        }
        let mut filling = self.open(Some(sequence))?;
        if lock(&filling.engine.order).is_used(sequence) {
            return Err(used(sequence));
        }
        let engine = filling.engine;
        commit(engine, &mut filling.state, Some(sequence), Keep::Pages)
    }

    /// Declares that sequence number `sequence` will never be committed (ordered mode),
    /// so that the clusters after it need not wait for it.
    pub(crate) fn skip_sequence(&mut self, sequence: u64) -> Result<()> {
        skip(&self.engine, sequence)
    }

    /// Commits the entries appended so far as a cluster.
    pub(crate) fn commit_cluster(&mut self) -> Result<()> {
        let mut filling = self.open(None)?;
        let engine = filling.engine;
        commit(engine, &mut filling.state, None, Keep::All)
    }
}

impl<'a, S: ClusterSink> Filling<'a, S> {
    /// The format's sink.
    pub(crate) fn sink(&self) -> &'a S {
        &self.engine.sink
    }

    /// The context's buffers.
    pub(crate) fn buffers(&mut self) -> &mut S::Buffers {
        &mut self.state.buffers
    }

    /// The page or basket size of the buffers.
    pub(crate) fn buffer_size(&self) -> usize {
        self.state.buffer_size
    }

    /// The engine's memory budget in bytes.
    pub(crate) fn memory_budget(&self) -> u64 {
        self.engine.options.memory_budget
    }

    /// With unsequenced steps paced as `pace` says.
    pub(crate) fn with_pace(mut self, pace: Pace) -> Self {
        self.pace = pace;
        self
    }

    /// Whether a step of [`Pace::NoFlush`] left the cluster due for committing.
    pub(crate) fn cluster_due(&self) -> bool {
        self.cluster_due
    }

    /// Whether a step of [`Pace::NoWait`] found no room in the budget (nothing appended).
    pub(crate) fn blocked(&self) -> bool {
        self.blocked
    }

    /// Marks the context as filling; call once checked entries are about to be appended
    /// (it sets the buffer size that steps are cut by).
    pub(crate) fn start(&mut self) {
        start_filling(self.engine, &mut self.state);
    }

    /// Appends entries `0..entries` in steps of `step` entries of at most
    /// `bytes_per_entry` bytes each: budget is reserved before each step, and without a
    /// sequence number the cluster is committed whenever it reaches its target size.
    pub(crate) fn append_steps(
        &mut self,
        entries: usize,
        step: usize,
        bytes_per_entry: u64,
        mut append: impl FnMut(&mut S::Buffers, usize, usize) -> Result<()>,
    ) -> Result<()> {
        let step = if self.pace == Pace::NoWait && self.sequence.is_none() {
            entries
        } else {
            step
        };
        let mut start = 0;
        while start < entries && !self.blocked {
            let end = (start + step.max(1)).min(entries);
            self.append_step(bytes_per_entry * (end - start) as u64, |b| {
                append(b, start, end)
            })?;
            start = end;
        }
        Ok(())
    }

    /// Appends one step of at most `data_bytes` bytes with `append`, reserving its budget
    /// first (see [`Filling::append_steps`]).
    pub(crate) fn append_step(
        &mut self,
        data_bytes: u64,
        append: impl FnOnce(&mut S::Buffers) -> Result<()>,
    ) -> Result<()> {
        let engine = self.engine;
        let sequence = self.sequence;
        if self.pace == Pace::NoWait && sequence.is_none() {
            if !try_reserve(engine, &mut self.state, data_bytes)? {
                self.blocked = true;
                return Ok(());
            }
        } else {
            reserve(engine, &mut self.state, data_bytes, sequence)?;
        }
        if let Err(e) = append(&mut self.state.buffers) {
            settle(engine, &mut self.state);
            return Err(e);
        }
        match (sequence, self.pace) {
            (None, Pace::NoFlush) => {
                settle(engine, &mut self.state);
                self.cluster_due |= cluster_due(engine, &self.state);
                Ok(())
            }
            (None, _) => after_step(engine, &mut self.state),
            (Some(_), pace) => {
                settle(engine, &mut self.state);
                if pace == Pace::NoFlush {
                    self.cluster_due |= cluster_due(engine, &self.state);
                }
                Ok(())
            }
        }
    }
}

impl<S: ClusterSink> Drop for FillContext<S> {
    fn drop(&mut self) {
        let engine = &self.engine;
        let mut state = lock(&self.state);
        if state.closed {
            return;
        }
        state.closed = true;
        if std::thread::panicking() {
            // A producer that panics loses its unfinished cluster; what it committed stays.
            state.buffers.discard();
            stop_filling(engine, &mut state);
            engine.budget.release(state.reserved);
            state.reserved = 0;
            engine.failures.record("a producer panicked".into());
        } else if engine.options.ordered && state.buffers.entries() > 0 {
            // Staged entries never given their sequence number have no place in the order.
            let entries = state.buffers.entries();
            state.buffers.discard();
            stop_filling(engine, &mut state);
            settle(engine, &mut state);
            engine.failures.record(format!(
                "a fill context was dropped holding {entries} staged entries that were never committed with a sequence number"
            ));
        } else if let Err(e) = commit(engine, &mut state, None, Keep::Nothing) {
            engine.failures.record(e.to_string());
        }
    }
}
