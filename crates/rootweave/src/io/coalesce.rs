//! Read coalescing: grouping many small byte ranges of a file into few reads.
//!
//! Pages and baskets lie close together on disk; reading each with its own call costs a
//! system call (or a round trip, remotely) per item, while reading one span that covers
//! several, gaps included, costs one. Every reader groups its items here.

use std::ops::Range;

/// The largest gap between two items that one read spans instead of splitting in two:
/// reading 64 KiB more is cheaper than another call.
pub const MAX_GAP: u64 = 64 << 10;

/// Groups items, given in file order with their byte ranges, into reads: an item joins
/// the read before it when it starts at most [`MAX_GAP`] bytes after that read's end and
/// the read's span stays within `max_span` bytes. An item for which `alone` is true (for
/// example a page split over several keys) gets a read of its own. An item that starts
/// before the previous read starts a new read, so unsorted input stays correct, only
/// less coalesced.
pub fn coalesce<T>(
    items: impl IntoIterator<Item = (Range<u64>, T)>,
    max_span: u64,
    alone: impl Fn(&Range<u64>) -> bool,
) -> Vec<(Range<u64>, Vec<T>)> {
    let mut out: Vec<(Range<u64>, Vec<T>)> = Vec::new();
    let mut last_alone = false;
    for (range, item) in items {
        let this_alone = alone(&range);
        match out.last_mut() {
            Some((read, members))
                if !last_alone
                    && !this_alone
                    && range.start >= read.start
                    && range.start <= read.end.saturating_add(MAX_GAP)
                    && range.end.max(read.end) - read.start <= max_span =>
            {
                read.end = read.end.max(range.end);
                members.push(item);
            }
            _ => out.push((range, vec![item])),
        }
        last_alone = this_alone;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(items: &[Range<u64>], max_span: u64) -> Vec<(Range<u64>, Vec<usize>)> {
        coalesce(
            items.iter().cloned().zip(0..),
            max_span,
            |r: &Range<u64>| r.end - r.start > 1 << 20,
        )
    }

    #[test]
    fn neighbours_within_the_gap_share_a_read() {
        let out = reads(&[0..10, 20..30, 30 + MAX_GAP..40 + MAX_GAP], u64::MAX);
        assert_eq!(out, vec![(0..40 + MAX_GAP, vec![0, 1, 2])]);
    }

    #[test]
    fn a_gap_wider_than_the_limit_starts_a_new_read() {
        let out = reads(&[0..10, 11 + MAX_GAP..20 + MAX_GAP], u64::MAX);
        assert_eq!(
            out,
            vec![(0..10, vec![0]), (11 + MAX_GAP..20 + MAX_GAP, vec![1])]
        );
    }

    #[test]
    fn a_read_never_spans_more_than_the_limit() {
        let out = reads(&[0..100, 100..200, 200..300], 200);
        assert_eq!(out, vec![(0..200, vec![0, 1]), (200..300, vec![2])]);
    }

    #[test]
    fn items_marked_alone_get_their_own_read() {
        let big = 10..10 + (2 << 20);
        let out = reads(&[0..10, big.clone(), big.end..big.end + 5], u64::MAX);
        assert_eq!(
            out,
            vec![
                (0..10, vec![0]),
                (big.clone(), vec![1]),
                (big.end..big.end + 5, vec![2])
            ]
        );
    }

    #[test]
    fn overlapping_and_out_of_order_items_stay_covered() {
        let out = reads(&[100..200, 150..160, 0..10], u64::MAX);
        assert_eq!(out, vec![(100..200, vec![0, 1]), (0..10, vec![2])]);
        for (read, members) in &out {
            for &m in members {
                let r = [100..200, 150..160, 0..10][m].clone();
                assert!(read.start <= r.start && r.end <= read.end);
            }
        }
    }
}
