//! One parallel-writer engine for every format. Fill contexts, on any threads, buffer and
//! seal their own clusters; the engine keeps every buffered byte inside one memory budget
//! (a context short of budget commits its own cluster, then idle contexts' clusters, and
//! only then waits), puts clusters in sequence order when asked, and commits them: the
//! format's sink records a cluster under its lock (byte ranges reserved, no I/O) and writes
//! its bytes afterwards, outside every lock. A format supplies only what is its own: the
//! buffers of a context ([`ContextBuffers`]: RNTuple pages, TTree baskets) and the sink
//! that records and writes clusters ([`ClusterSink`]).

mod backpressure;
mod commit;
pub(crate) mod contexts;
mod fill;
pub(crate) mod order;
pub(crate) mod sizing;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};

use crate::error::{Error, Result};
use crate::parallel::{FreedMemory, MemoryBudget};
use commit::{commit, record, Keep, Parked};
use contexts::{lock, ContextList, Failures};
use order::SequenceQueue;
use sizing::first_cluster_share;

pub(crate) use fill::{FillContext, Filling, Pace};

/// The buffers of one fill context in one format: the entries of its open cluster, and
/// memory kept for the next ones. The engine reserves budget for every byte they can grow
/// by before data is appended, so each method that sizes them must not under-count.
pub(crate) trait ContextBuffers: Send + 'static {
    /// A sealed cluster, ready to be recorded and written.
    type Cluster: Send;

    /// Entries of the open cluster.
    fn entries(&self) -> u64;

    /// The most bytes the buffers hold once the open cluster is sealed: what the budget
    /// must cover, so that sealing never needs budget and a context can always commit.
    fn held_bytes(&self) -> u64;

    /// How full the open cluster is.
    fn fill_level(&self) -> FillLevel;

    /// The most bytes appending `data_bytes` bytes of entries can add to
    /// [`ContextBuffers::held_bytes`].
    fn growth_bound(&self, data_bytes: u64) -> u64;

    /// Gives the buffers pages (RNTuple) or baskets (TTree) of `size` bytes; called only
    /// while they hold no entries.
    fn set_buffer_size(&mut self, size: usize);

    /// Frees every buffer (they hold no entries).
    fn release_memory(&mut self);

    /// Frees the memory kept for reuse only (the buffers being filled stay).
    fn release_spares(&mut self) {}

    /// Frees what a context short of budget gives up before it waits (after committing).
    fn release_before_waiting(&mut self) {
        self.release_spares();
    }

    /// Drops the open cluster's entries (its producer panicked) and frees the buffers.
    fn discard(&mut self);

    /// Called before a cluster with a sequence number is appended (ordered mode).
    fn start_sequenced_cluster(&mut self) {}

    /// Takes back the memory of a written cluster for the next clusters, up to `limit`
    /// bytes; returns the bytes kept.
    fn recycle(&mut self, cluster: Self::Cluster, limit: u64) -> u64 {
        drop((cluster, limit));
        0
    }
}

/// How full a context's open cluster is, in bytes.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FillLevel {
    /// Sealed (compressed) data.
    pub(crate) sealed: u64,
    /// Data not sealed yet, before compression.
    pub(crate) pending: u64,
    /// All its data before compression.
    pub(crate) uncompressed: u64,
}

/// The cluster type of a sink.
pub(crate) type ClusterOf<S> = <<S as ClusterSink>::Buffers as ContextBuffers>::Cluster;

/// What a format's parallel writer puts behind the commit point: it seals a context's
/// cluster (on the producer's thread), records clusters under its own lock and writes
/// them afterwards.
pub(crate) trait ClusterSink: Send + Sync + Sized + 'static {
    /// A context's buffers.
    type Buffers: ContextBuffers;
    /// Clusters recorded, whose bytes are still to be written.
    type Recorded;

    /// The page or basket size of a context that starts a cluster while `filling`
    /// contexts are at work.
    fn buffer_size(&self, filling: usize) -> usize;

    /// The buffers of a new context, and their page or basket size, with `filling`
    /// contexts at work.
    fn new_buffers(&self, filling: usize) -> (Self::Buffers, usize);

    /// Stored over uncompressed bytes of what was committed so far.
    fn compression_ratio(&self) -> f64;

    /// The stored size at which a cluster is committed at the latest, and the least a
    /// cluster of buffers of `buffer_size` bytes should hold before a context commits it
    /// to stay within its share of the budget.
    fn cluster_bounds(&self, buffer_size: usize) -> (u64, u64);

    /// The uncompressed size at which a cluster is committed whatever its stored size.
    fn max_uncompressed(&self) -> u64 {
        u64::MAX
    }

    /// Seals the open cluster of `buffers` (which hold entries).
    fn seal(&self, buffers: &mut Self::Buffers) -> Result<ClusterOf<Self>>;

    /// The commit point: under the sink's lock, reserves the clusters' byte ranges and
    /// records them, in order; takes a read guard of `writing` before releasing its lock,
    /// so that whoever waits for every write (saves, close) waits for these. No I/O.
    fn record<'w>(
        &self,
        clusters: Vec<ClusterOf<Self>>,
        writing: &'w RwLock<()>,
    ) -> Result<(Self::Recorded, RwLockReadGuard<'w, ()>)>;

    /// Writes recorded clusters (outside every lock), calling `done` with each cluster
    /// and the outcome of its write, in order; `guard` is the read guard that `record`
    /// took, to be dropped once the writes are done, and `writing` its lock. Returns an
    /// error of what follows the writes (a save of the tree).
    fn write(
        &self,
        recorded: Self::Recorded,
        guard: RwLockReadGuard<'_, ()>,
        writing: &RwLock<()>,
        done: &mut dyn FnMut(ClusterOf<Self>, Result<()>),
    ) -> Result<()>;
}

/// The engine's settings, which both formats' parallel options carry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EngineOptions {
    /// Bytes that buffered and sealed-but-unwritten data may take in all.
    pub(crate) memory_budget: u64,
    /// Clusters go in by sequence number.
    pub(crate) ordered: bool,
    /// Free pages are returned to the system as the budget's memory is freed.
    pub(crate) return_freed_memory: bool,
}

impl EngineOptions {
    /// An error if the budget is below 1 MiB.
    pub(crate) fn check(&self) -> Result<()> {
        if self.memory_budget < (1 << 20) {
            return Err(Error::InvalidArgument(
                "the memory budget must be at least 1 MiB".into(),
            ));
        }
        Ok(())
    }
}

/// A parallel writer's state shared by its contexts: the format's sink, the budget, the
/// sequence queue, the contexts handed out and the failures of producers.
pub(crate) struct Engine<S: ClusterSink> {
    /// The format's sink.
    pub(crate) sink: S,
    options: EngineOptions,
    budget: Arc<MemoryBudget>,
    /// Bytes of written clusters freed, when the caller asked for free pages to be
    /// returned to the system.
    freed: Option<FreedMemory>,
    order: Mutex<SequenceQueue<Parked<ClusterOf<S>>>>,
    /// Held (shared) while cluster bytes are being written; saves and `close` take it
    /// exclusively to wait for them.
    pub(crate) writing: RwLock<()>,
    contexts: ContextList<ContextState<S::Buffers>>,
    contexts_made: AtomicUsize,
    /// Contexts filling: counted from their creation (a context is made to be filled)
    /// until their buffers are freed (closed, or idle and flushed by another thread), or
    /// until another context commits while they have never had an entry, and again from
    /// their next entry. Their number sets the buffer size of a context that starts a
    /// cluster and each context's share of the budget.
    filling: AtomicUsize,
    failures: Failures,
    closed: AtomicBool,
}

/// A context's state: the format's buffers and the engine's bookkeeping of them.
pub(crate) struct ContextState<B> {
    /// The format's buffers.
    pub(crate) buffers: B,
    /// Budget bytes this context holds for its buffers.
    reserved: u64,
    /// The page or basket size of its buffers.
    buffer_size: usize,
    /// True while the context is counted in [`Engine::filling`].
    filling: bool,
    /// True once the context has had an entry.
    filled: bool,
    closed: bool,
    /// The part of the cluster target that the context's first cluster takes (1 after
    /// it): see [`first_cluster_share`].
    first_cluster_share: f64,
}

impl<S: ClusterSink> Engine<S> {
    /// An engine for `sink`; an error if the budget is below 1 MiB.
    pub(crate) fn new(sink: S, options: EngineOptions) -> Result<Arc<Self>> {
        options.check()?;
        Ok(Arc::new(Engine {
            sink,
            budget: Arc::new(MemoryBudget::new(options.memory_budget)),
            freed: options
                .return_freed_memory
                .then(|| FreedMemory::new(options.memory_budget / 32)),
            options,
            order: Mutex::new(SequenceQueue::default()),
            writing: RwLock::new(()),
            contexts: ContextList::default(),
            contexts_made: AtomicUsize::new(0),
            filling: AtomicUsize::new(0),
            failures: Failures::default(),
            closed: AtomicBool::new(false),
        }))
    }

    /// The memory budget.
    pub(crate) fn budget(&self) -> &MemoryBudget {
        &self.budget
    }

    /// The memory budget, shared.
    pub(crate) fn shared_budget(&self) -> Arc<MemoryBudget> {
        self.budget.clone()
    }

    /// A new fill context. It counts among those filling from its creation, not from its
    /// first entry: contexts made together (one per thread) start filling a moment apart,
    /// and the first would otherwise size its buffers for itself alone, then drop them
    /// all at its first commit for the smaller ones of several contexts.
    pub(crate) fn context(self: &Arc<Self>) -> FillContext<S> {
        let made = self.contexts_made.fetch_add(1, Ordering::Relaxed);
        let filling = self.filling.fetch_add(1, Ordering::Relaxed) + 1;
        let (buffers, buffer_size) = self.sink.new_buffers(filling);
        let state = Arc::new(Mutex::new(ContextState {
            buffers,
            reserved: 0,
            buffer_size,
            filling: true,
            filled: false,
            closed: self.closed.load(Ordering::SeqCst),
            first_cluster_share: first_cluster_share(made),
        }));
        self.contexts.add(&state);
        FillContext::new(self.clone(), state)
    }

    /// Closes the engine: commits what every context still holds, puts in what is still
    /// parked (in order, across any gaps) and waits for every write. Failures are kept
    /// for [`Engine::result`]; an error only if the engine was closed already.
    pub(crate) fn close_contexts(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::SeqCst) {
            return Err(closed());
        }
        for state in self.contexts.alive() {
            let mut state = lock(&state);
            if !state.closed {
                state.closed = true;
                if let Err(e) = commit(self, &mut state, None, Keep::Nothing) {
                    self.failures.record(e.to_string());
                }
            }
        }
        let parked = lock(&self.order).drain_all();
        if !parked.is_empty() {
            if let Err(e) = record(self, parked).and_then(|r| r.write(self, None)) {
                self.failures.record(e.to_string());
            }
        }
        drop(self.writing.write().unwrap_or_else(|e| e.into_inner()));
        Ok(())
    }

    /// True once [`Engine::close_contexts`] was called.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// `Ok(value)` if no producer failed; else an error saying what was closed and every
    /// failure.
    pub(crate) fn result<T>(&self, value: T, closed: &str) -> Result<T> {
        self.failures.result(value, closed)
    }
}

/// The error of a writer used after it was closed.
pub(crate) fn closed() -> Error {
    Error::InvalidArgument("the parallel writer was closed".into())
}

#[cfg(test)]
mod tests;
