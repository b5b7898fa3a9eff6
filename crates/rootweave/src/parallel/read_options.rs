//! The settings of both readers (RNTuple and TTree), and the thread pools they share.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use rayon::ThreadPool;

use crate::error::{Error, Result};

/// How a reader of either format reads: its threads, the bytes it keeps in flight, and
/// whether it verifies checksums. Build it from the default with the `with_` methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Decompression and decoding threads (0: all cores). Readers with the same count
    /// share one pool unless [`ReadOptions::pool`] gives them the caller's.
    pub threads: usize,
    /// Bytes of stored pages or baskets in flight at once (default 256 MiB; at least one
    /// cluster's pages or one basket of the requested columns are always read).
    pub memory_budget: u64,
    /// Verify the checksums the format carries (default true): RNTuple envelope and page
    /// checksums, and the checks of the compression blocks where no page checksum covers
    /// them. TTree baskets, which carry only their blocks' checks, are always verified.
    pub verify_checksums: bool,
    /// The caller's thread pool, used instead of a shared one (`threads` is then ignored).
    pub pool: Option<Arc<ThreadPool>>,
    /// Ask the kernel to back large fresh result arrays with huge pages (default true):
    /// filling fresh memory 4 KiB page by page costs more page faults than the decoding
    /// costs time. The advice covers only the arrays the reader allocates for its results.
    pub huge_pages: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            threads: 0,
            memory_budget: 256 << 20,
            verify_checksums: true,
            pool: None,
            huge_pages: true,
        }
    }
}

impl ReadOptions {
    /// With `threads` decompression threads (0: all cores).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// With `bytes` of stored data in flight at once.
    pub fn with_memory_budget(mut self, bytes: u64) -> Self {
        self.memory_budget = bytes;
        self
    }

    /// Verifying checksums or not.
    pub fn with_verify_checksums(mut self, verify: bool) -> Self {
        self.verify_checksums = verify;
        self
    }

    /// With large fresh result arrays backed by huge pages, or not.
    pub fn with_huge_pages(mut self, huge_pages: bool) -> Self {
        self.huge_pages = huge_pages;
        self
    }

    /// Decompressing and decoding on the caller's pool.
    pub fn with_pool(mut self, pool: Arc<ThreadPool>) -> Self {
        self.pool = Some(pool);
        self
    }

    /// The pool a reader works on: the caller's, or the one shared by every reader with
    /// the same thread count (made when the first of them opens, ended when the last one
    /// is dropped), so that opening many readers does not start threads for each.
    pub(crate) fn thread_pool(&self) -> Result<Arc<ThreadPool>> {
        if let Some(pool) = &self.pool {
            return Ok(pool.clone());
        }
        static SHARED: Mutex<Option<HashMap<usize, Weak<ThreadPool>>>> = Mutex::new(None);
        let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        let pools = shared.get_or_insert_with(HashMap::new);
        if let Some(pool) = pools.get(&self.threads).and_then(Weak::upgrade) {
            return Ok(pool);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads)
            .thread_name(|i| format!("rootweave-read-{i}"))
            .build()
            .map_err(|e| Error::InvalidArgument(format!("thread pool: {e}")))?;
        let pool = Arc::new(pool);
        pools.retain(|_, p| p.strong_count() > 0);
        pools.insert(self.threads, Arc::downgrade(&pool));
        Ok(pool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_with_one_thread_count_share_a_pool_while_one_lives() {
        let two = ReadOptions::default().with_threads(7);
        let a = two.thread_pool().unwrap();
        let b = two.thread_pool().unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.current_num_threads(), 7);
        let three = ReadOptions::default()
            .with_threads(5)
            .thread_pool()
            .unwrap();
        assert!(!Arc::ptr_eq(&a, &three));
        let weak = Arc::downgrade(&a);
        drop((a, b));
        assert!(
            weak.upgrade().is_none(),
            "the pool ends with its last reader"
        );
    }

    #[test]
    fn a_caller_s_pool_is_used_as_it_is() {
        let mine = Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap(),
        );
        let got = ReadOptions::default()
            .with_threads(4)
            .with_pool(mine.clone())
            .thread_pool()
            .unwrap();
        assert!(Arc::ptr_eq(&mine, &got));
    }
}
