//! C++'s `std::sort` as the GNU C++ library performs it, so that `Argsort` and `Sort` put
//! equal keys where ROOT's `RVec` functions put them. `std::sort` is not stable: above 16
//! items its partitions move equal keys, and an analysis that takes the first items of an
//! `Argsort` of tied keys sees which ones it moved. The steps: quicksort with the median of
//! three as pivot down to runs of 16 items, heapsort where the partitions nest deeper than
//! twice the list's binary logarithm, then one insertion sort over the whole list.
//!
//! Every loop is bounded by the list, also where C++ relies on sentinels: a comparison that
//! is not a strict weak order (NaN under `<`) gives some order here, never a read past the list.

/// Runs shorter than this are left to the final insertion sort.
const RUN: usize = 16;

/// Sorts `v` as `std::sort(v.begin(), v.end(), less)` does, with the same moves.
pub fn sort<T: Copy>(v: &mut [T], less: &impl Fn(T, T) -> bool) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let depth = 2 * n.ilog2() as usize;
    quicksort(v, depth, less);
    if n > RUN {
        let (head, _) = v.split_at_mut(RUN);
        insertion_sort(head, less);
        for i in RUN..n {
            insert_back(v, i, less);
        }
    } else {
        insertion_sort(v, less);
    }
}

/// Partitions `v` until its runs are at most `RUN` long (the right part first, as the GNU
/// library recurses), heapsorting a run once `depth` partitions have been spent.
fn quicksort<T: Copy>(mut v: &mut [T], mut depth: usize, less: &impl Fn(T, T) -> bool) {
    while v.len() > RUN {
        if depth == 0 {
            heapsort(v, less);
            return;
        }
        depth -= 1;
        let cut = partition(v, less);
        let (left, right) = std::mem::take(&mut v).split_at_mut(cut);
        quicksort(right, depth, less);
        v = left;
    }
}

/// Moves the median of the second, middle and last items to the front as the pivot and
/// partitions the rest around it; returns where the right part begins.
fn partition<T: Copy>(v: &mut [T], less: &impl Fn(T, T) -> bool) -> usize {
    let n = v.len();
    let (a, b, c) = (1, n / 2, n - 1);
    let median = if less(v[a], v[b]) {
        if less(v[b], v[c]) {
            b
        } else if less(v[a], v[c]) {
            c
        } else {
            a
        }
    } else if less(v[a], v[c]) {
        a
    } else if less(v[b], v[c]) {
        c
    } else {
        b
    };
    v.swap(0, median);
    let pivot = v[0];
    let (mut first, mut last) = (1, n);
    loop {
        while first < n && less(v[first], pivot) {
            first += 1;
        }
        last -= 1;
        while last > 0 && less(pivot, v[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        v.swap(first, last);
        first += 1;
    }
}

/// Insertion sort: each item moved to the front when less than the first, else shifted
/// left past the items greater than it.
pub(super) fn insertion_sort<T: Copy>(v: &mut [T], less: &impl Fn(T, T) -> bool) {
    for i in 1..v.len() {
        if less(v[i], v[0]) {
            let item = v[i];
            v.copy_within(0..i, 1);
            v[0] = item;
        } else {
            insert_back(v, i, less);
        }
    }
}

/// Item `i` shifted left past the items before it that are greater.
fn insert_back<T: Copy>(v: &mut [T], mut i: usize, less: &impl Fn(T, T) -> bool) {
    let item = v[i];
    while i > 0 && less(item, v[i - 1]) {
        v[i] = v[i - 1];
        i -= 1;
    }
    v[i] = item;
}

/// Heapsort: a max-heap made from the last parent down, then its top swapped to the end
/// one item at a time.
fn heapsort<T: Copy>(v: &mut [T], less: &impl Fn(T, T) -> bool) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let mut parent = (n - 2) / 2;
    loop {
        let item = v[parent];
        sift(v, parent, item, less);
        if parent == 0 {
            break;
        }
        parent -= 1;
    }
    for end in (1..n).rev() {
        let item = v[end];
        v[end] = v[0];
        sift(&mut v[..end], 0, item, less);
    }
}

/// Places `item` in the heap `v` from the hole at `top`: the hole first sinks to a leaf
/// along the greater children, then `item` rises from there.
fn sift<T: Copy>(v: &mut [T], top: usize, item: T, less: &impl Fn(T, T) -> bool) {
    let n = v.len();
    let (mut hole, mut child) = (top, top);
    while child < (n - 1) / 2 {
        child = 2 * (child + 1);
        if less(v[child], v[child - 1]) {
            child -= 1;
        }
        v[hole] = v[child];
        hole = child;
    }
    if n % 2 == 0 && child == (n - 2) / 2 {
        child = 2 * (child + 1);
        v[hole] = v[child - 1];
        hole = child - 1;
    }
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(v[parent], item) {
            break;
        }
        v[hole] = v[parent];
        hole = parent;
    }
    v[hole] = item;
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A list of `n` small keys with many ties, from a fixed sequence.
    pub(in crate::analysis::expr) fn keys(n: usize, seed: u64, distinct: u64) -> Vec<u64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) % distinct
            })
            .collect()
    }

    /// Forty keys of 0, 1 or 2, and the orders of their indices that the GNU C++ library's
    /// `std::sort` gives by `<` and by `>`, and its `std::make_heap` then `std::sort_heap`
    /// by `<` (printed by a C++ program compiled with g++).
    const KEYS: [u8; 40] = [
        2, 2, 0, 2, 1, 2, 1, 0, 1, 1, 1, 0, 2, 2, 0, 1, 0, 0, 0, 2, 1, 1, 1, 0, 2, 0, 2, 2, 0, 1,
        1, 1, 2, 1, 2, 2, 0, 1, 1, 0,
    ];
    const UP: [usize; 40] = [
        39, 2, 36, 18, 7, 17, 16, 23, 11, 28, 25, 14, 21, 20, 22, 29, 30, 31, 33, 37, 38, 15, 4,
        10, 9, 8, 6, 1, 0, 3, 5, 35, 34, 32, 12, 27, 26, 13, 24, 19,
    ];
    const DOWN: [usize; 40] = [
        1, 0, 19, 24, 26, 27, 13, 12, 32, 34, 35, 5, 3, 33, 31, 30, 29, 37, 22, 38, 20, 4, 6, 15,
        8, 21, 10, 9, 11, 39, 2, 36, 7, 14, 28, 16, 25, 17, 23, 18,
    ];
    const HEAP: [usize; 40] = [
        39, 7, 23, 16, 18, 36, 28, 2, 11, 25, 17, 14, 31, 33, 8, 15, 38, 9, 4, 20, 21, 10, 22, 37,
        6, 29, 30, 32, 34, 3, 35, 1, 19, 24, 5, 12, 26, 0, 13, 27,
    ];

    #[test]
    fn ties_end_where_the_gnu_library_puts_them() {
        let sorted = |less: &dyn Fn(usize, usize) -> bool| {
            let mut index: Vec<usize> = (0..40).collect();
            sort(&mut index, &|i, j| less(i, j));
            index
        };
        assert_eq!(sorted(&|i, j| KEYS[i] < KEYS[j]), UP);
        assert_eq!(sorted(&|i, j| KEYS[i] > KEYS[j]), DOWN);
        let mut index: Vec<usize> = (0..40).collect();
        heapsort(&mut index, &|i, j| KEYS[i] < KEYS[j]);
        assert_eq!(index, HEAP);
        assert_eq!(keys(40, 7, 3), KEYS.map(u64::from));
    }

    #[test]
    fn sorts_every_length_and_keeps_each_index_once() {
        for n in 0..300 {
            for distinct in [1, 3, 1000] {
                let k = keys(n, n as u64 + distinct, distinct);
                let mut index: Vec<usize> = (0..n).collect();
                sort(&mut index, &|i, j| k[i] < k[j]);
                assert!(
                    index.windows(2).all(|w| k[w[0]] <= k[w[1]]),
                    "{n} {distinct}"
                );
                let mut seen = index.clone();
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn short_lists_keep_ties_in_order_and_longer_ones_move_them() {
        // The indices of `n` tied keys sorted here and by a stable sort.
        let both = |n: usize| {
            let k = keys(n, 5, 2);
            let mut index: Vec<usize> = (0..n).collect();
            sort(&mut index, &|i, j| k[i] < k[j]);
            let mut stable: Vec<usize> = (0..n).collect();
            stable.sort_by_key(|&i| k[i]);
            (index, stable)
        };
        // Up to 16 items, only the insertion sort runs: stable.
        let (index, stable) = both(16);
        assert_eq!(index, stable);
        // Above, the partitions reorder equal keys (as std::sort's do).
        let (index, stable) = both(40);
        assert_ne!(index, stable);
    }

    #[test]
    fn heapsort_sorts_and_orders_that_are_not_strict_stay_in_the_list() {
        for n in 0..100 {
            let k = keys(n, 11, 7);
            let mut v = k.clone();
            heapsort(&mut v, &|a, b| a < b);
            let mut want = k.clone();
            want.sort_unstable();
            assert_eq!(v, want);
        }
        // NaN under `<`: some order, every item kept, no read past the list.
        let mut v: Vec<f64> = (0..200)
            .map(|i| {
                if i % 3 == 0 {
                    f64::NAN
                } else {
                    (i % 17) as f64
                }
            })
            .collect();
        sort(&mut v, &|a, b| a < b);
        assert_eq!(v.iter().filter(|x| x.is_nan()).count(), 67);
        // A comparator that is always true.
        let mut v: Vec<u32> = (0..100).collect();
        sort(&mut v, &|_, _| true);
        v.sort_unstable();
        assert_eq!(v, (0..100).collect::<Vec<_>>());
    }
}
