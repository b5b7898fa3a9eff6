//! A tree's clusters as ROOT records them: clusters of one size are `fAutoFlush` entries
//! each; where sizes change, `fClusterRangeEnd` and `fClusterSize` hold runs of clusters of
//! one size before the last run (ROOT's `TTree::TClusterIterator` reads them so).

/// How the tree object records its clusters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClusterLayout {
    /// Each run but the last: its last entry (inclusive) and its clusters' size.
    pub ranges: Vec<(i64, i64)>,
    /// The size of the clusters of the last run (ROOT's `fAutoFlush`).
    pub auto_flush: i64,
}

/// The layout of clusters ending at `ends` (entry counts, increasing), `entries` entries in
/// all (those past the last end form the last, maybe partial, cluster). None when no
/// cluster has ended yet.
pub(crate) fn cluster_layout(ends: &[u64], entries: u64) -> Option<ClusterLayout> {
    let mut sizes: Vec<u64> = Vec::with_capacity(ends.len() + 1);
    let mut start = 0;
    for &end in ends {
        sizes.push(end - start);
        start = end;
    }
    let tail = entries.saturating_sub(start);
    // Runs of clusters of one size: (last entry + 1, size).
    let mut runs: Vec<(u64, u64)> = Vec::new();
    let mut at = 0;
    for size in sizes {
        at += size;
        match runs.last_mut() {
            Some(run) if run.1 == size => run.0 = at,
            _ => runs.push((at, size)),
        }
    }
    let last = runs.last()?.1;
    if tail > last {
        runs.push((entries, tail));
    }
    let auto_flush = runs.pop().expect("a run").1;
    Some(ClusterLayout {
        ranges: runs
            .into_iter()
            .map(|(end, size)| (end as i64 - 1, size as i64))
            .collect(),
        auto_flush: auto_flush as i64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_of_one_size_need_no_ranges() {
        let l = cluster_layout(&[100, 200, 300], 350).unwrap();
        assert_eq!((l.ranges, l.auto_flush), (vec![], 100));
        assert_eq!(cluster_layout(&[], 50), None);
    }

    #[test]
    fn sizes_that_change_make_ranges() {
        // 100, 150, 150, then a partial 50 (within the last run's size).
        let l = cluster_layout(&[100, 250, 400], 450).unwrap();
        assert_eq!((l.ranges, l.auto_flush), (vec![(99, 100)], 150));
        // A tail larger than the last run's clusters is a run of its own.
        let l = cluster_layout(&[10, 20], 100).unwrap();
        assert_eq!((l.ranges, l.auto_flush), (vec![(19, 10)], 80));
        let l = cluster_layout(&[5, 7, 10, 13], 13).unwrap();
        assert_eq!((l.ranges, l.auto_flush), (vec![(4, 5), (6, 2)], 3));
    }
}
