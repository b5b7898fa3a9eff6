//! Sizing policy of parallel writers: how large a producer's pages (or baskets) and first
//! output unit are, given the memory budget and the producers at work.

/// The page size (RNTuple) or basket size (TTree) of a context that starts a cluster while `filling` contexts (itself
/// included) hold buffers: the configured one, made smaller when their page buffers (one
/// full page per column each) would take more than half of the budget, so that the
/// contexts at work fit in it with their sealed pages (1000 columns, a 256 MiB budget and
/// one context give 128 KiB pages, two contexts 64 KiB). A power of two, so that it
/// changes only when the number of contexts at work doubles or halves; not below 4 KiB.
/// Small pages cost: they compress less well (each starts without context), and slower
/// (zstd picks slower match finders for inputs of 16 KiB or less).
pub(crate) fn buffer_size_for_budget(
    max_page_size: usize,
    budget: u64,
    columns: usize,
    filling: usize,
) -> usize {
    let share = budget / 2 / (columns.max(1) as u64 * filling.max(1) as u64);
    let power_of_two = 1usize << share.max(1).ilog2();
    power_of_two.max(4 << 10).min(max_page_size)
}

/// The part of the cluster target taken by the first cluster of the `made`-th context:
/// 1, 0.69, 0.88, 0.57, ... (one minus half the fractional part of `made` times the
/// golden ratio, which spreads any number of contexts evenly). Contexts that start
/// together and fill at one speed would otherwise commit, and write, at the same moments:
/// buffered writes to one file take its inode lock, and with two contexts writing `single`
/// zstd:5 at once the kernel spent 5% of all CPU time spinning on that lock. With their
/// first clusters of different sizes, their later commits stay apart.
pub(crate) fn first_cluster_share(made: usize) -> f64 {
    const GOLDEN: f64 = 0.618_033_988_749_895;
    1.0 - 0.5 * (made as f64 * GOLDEN).fract()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_shrink_as_producers_share_the_budget() {
        let mib = 1u64 << 20;
        assert_eq!(
            buffer_size_for_budget(1 << 20, 256 * mib, 1000, 1),
            128 << 10
        );
        assert_eq!(
            buffer_size_for_budget(1 << 20, 256 * mib, 1000, 2),
            64 << 10
        );
        assert_eq!(
            buffer_size_for_budget(64 << 10, 256 * mib, 1, 1),
            64 << 10,
            "capped"
        );
        assert_eq!(
            buffer_size_for_budget(1 << 20, mib, 10_000, 8),
            4 << 10,
            "floor"
        );
    }

    #[test]
    fn first_shares_spread_between_one_half_and_one() {
        assert_eq!(first_cluster_share(0), 1.0);
        let shares: Vec<f64> = (0..64).map(first_cluster_share).collect();
        assert!(shares.iter().all(|&s| (0.5..=1.0).contains(&s)));
        let mut sorted = shares.clone();
        sorted.sort_by(f64::total_cmp);
        assert!(
            sorted.windows(2).all(|w| w[1] - w[0] < 0.05),
            "evenly spread"
        );
    }
}
