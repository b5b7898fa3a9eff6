//! The pages already written to the file, found by their hash and stored length, so that
//! a later cluster can point at an identical page instead of storing it again: constant
//! columns, empty collections' offsets, runs of default values repeat from cluster to
//! cluster, and a writer that makes many small clusters (the parallel writer under a
//! memory budget) would otherwise store them once per cluster.
//!
//! A hash only proposes a page: [`super::cluster::ClusterPlan::share_stored`] reads the
//! proposed page back from the file and compares every byte before sharing it.

use std::collections::HashMap;
use std::sync::Mutex;

/// Pages indexed at most (about 32 bytes each): a file of many more unique pages keeps
/// sharing the first ones, and the index stays a small fixed overhead.
const MOST_PAGES: usize = 1 << 17;

/// Where the pages already in the file are, by (hash, stored length with checksum).
#[derive(Debug, Default)]
pub(crate) struct StoredPages {
    index: Mutex<HashMap<(u64, usize), u64>>,
}

impl StoredPages {
    /// An empty index.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// For each key (`None` for a page not looked up), the offset of a stored page with
    /// that hash and length, if any. One short lock for all of them.
    pub(crate) fn find(
        &self,
        keys: impl Iterator<Item = Option<(u64, usize)>>,
    ) -> Vec<Option<u64>> {
        let index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        keys.map(|key| key.and_then(|key| index.get(&key).copied()))
            .collect()
    }

    /// Records pages whose bytes are now in the file (call after writing them); the first
    /// page of a key stays the one that is shared.
    pub(crate) fn insert(&self, pages: impl IntoIterator<Item = ((u64, usize), u64)>) {
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        for (key, offset) in pages {
            if index.len() >= MOST_PAGES {
                break;
            }
            index.entry(key).or_insert(offset);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_found_by_hash_and_length_and_the_first_one_stays() {
        let stored = StoredPages::new();
        stored.insert([((7, 100), 1000), ((7, 200), 2000), ((9, 100), 3000)]);
        stored.insert([((7, 100), 4000)]);
        let keys = [
            Some((7, 100)),
            None,
            Some((7, 300)),
            Some((9, 100)),
            Some((7, 200)),
        ];
        assert_eq!(
            stored.find(keys.into_iter()),
            [Some(1000), None, None, Some(3000), Some(2000)]
        );
    }

    #[test]
    fn the_index_stops_growing_at_its_limit() {
        let stored = StoredPages::new();
        stored.insert((0..MOST_PAGES as u64 + 10).map(|i| ((i, 8), i)));
        let last = Some((MOST_PAGES as u64 - 1, 8));
        let over = Some((MOST_PAGES as u64, 8));
        assert_eq!(
            stored.find([last, over].into_iter()),
            [Some(MOST_PAGES as u64 - 1), None]
        );
    }
}
