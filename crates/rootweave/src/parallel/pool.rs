//! Running a read's work on a reader's thread pool.

use rayon::prelude::*;

use crate::error::Result;

/// Calls `first` on every item of `a`, then `second` on every item of `b` (the items of
/// each list in parallel, in any order) on `pool`; stops at the first error.
///
/// Both lists go to the pool in one hand-over, since each costs thread wake-ups. A pool
/// of one thread is not used at all: the work runs on the caller's thread, since handing
/// it over would cost two thread switches per call while nothing else runs (for reads in
/// batches of a few MiB, those switches took as long as the reading).
pub(crate) fn for_each_in_two_steps<A: Send, B: Send>(
    pool: &rayon::ThreadPool,
    a: Vec<A>,
    first: impl Fn(A) -> Result<()> + Sync + Send,
    b: Vec<B>,
    second: impl Fn(B) -> Result<()> + Sync + Send,
) -> Result<()> {
    if pool.current_num_threads() == 1 {
        a.into_iter().try_for_each(first)?;
        return b.into_iter().try_for_each(second);
    }
    pool.install(|| {
        a.into_par_iter().try_for_each(first)?;
        b.into_par_iter().try_for_each(second)
    })
}

/// The span of one chunk of a read of `stored` bytes: at most `most`, and small enough
/// that every thread gets a few chunks (a small read, such as one batch of a few clusters,
/// would otherwise be a single task on one thread), but not below 64 KiB.
pub fn chunk_size(stored: u64, threads: usize, most: u64) -> u64 {
    (stored / (4 * threads.max(1) as u64)).clamp(64 << 10, most.max(64 << 10))
}
