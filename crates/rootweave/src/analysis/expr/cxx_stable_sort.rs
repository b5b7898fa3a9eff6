//! C++'s `std::stable_sort` as the GNU C++ library performs it when it gets the scratch
//! buffer it asks for (half the list), so that `StableSort` and `StableArgsort` put items
//! where ROOT's `RVec` functions put them also when the keys are not ordered (NaN under
//! `<`), and never fail: a general-purpose sort may stop on a comparison that is not a
//! total order. Any stable sort gives the same result for ordered keys; these steps matter
//! for the others.
//!
//! The steps: each half of the list is sorted on its own (insertion sorts of runs of 7,
//! then merges of runs of doubling length, back and forth between the list and the
//! buffer), then the halves are merged: from the front with the first half in the buffer
//! when they are of one length, from the back with the second half in the buffer when the
//! first is one longer. Every merge takes an item of the left run unless the right run's
//! next item is less.

use super::cxx_sort::insertion_sort;

/// Items sorted by insertion before the first merges.
const RUN: usize = 7;

/// Sorts `v` as `std::stable_sort(v.begin(), v.end(), less)` does, with the same moves.
pub fn stable_sort<T: Copy>(v: &mut [T], less: &impl Fn(T, T) -> bool) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let half = n.div_ceil(2);
    // Scratch of half the list: its contents are overwritten before they are read.
    let mut buffer = v[..half].to_vec();
    let (front, back) = v.split_at_mut(half);
    sort_halving(front, &mut buffer, less);
    sort_halving(back, &mut buffer, less);
    let back_len = n - half;
    if half == back_len {
        buffer.copy_from_slice(&v[..half]);
        merge_front(&buffer, v, less);
    } else {
        buffer[..back_len].copy_from_slice(&v[half..]);
        merge_back(v, half, &buffer[..back_len], less);
    }
}

/// Sorts `v` with `buffer` (at least as long): runs of `RUN` by insertion, then runs
/// merged pairwise into the buffer and back, their length doubling at each pass.
fn sort_halving<T: Copy>(v: &mut [T], buffer: &mut [T], less: &impl Fn(T, T) -> bool) {
    let n = v.len();
    let buffer = &mut buffer[..n];
    for run in v.chunks_mut(RUN) {
        insertion_sort(run, less);
    }
    let mut step = RUN;
    while step < n {
        merge_pass(v, buffer, step, less);
        step *= 2;
        merge_pass(buffer, v, step, less);
        step *= 2;
    }
}

/// Merges the runs of `step` items of `from` pairwise into `to` (a last run shorter than
/// two steps merged as one run of at most `step` and the rest).
fn merge_pass<T: Copy>(from: &[T], to: &mut [T], step: usize, less: &impl Fn(T, T) -> bool) {
    let mut start = 0;
    while from.len() - start >= 2 * step {
        let pair = &from[start..start + 2 * step];
        merge_into(&pair[..step], &pair[step..], &mut to[start..], less);
        start += 2 * step;
    }
    let rest = &from[start..];
    let cut = step.min(rest.len());
    merge_into(&rest[..cut], &rest[cut..], &mut to[start..], less);
}

/// Merges runs `a` and `b` into the front of `out`.
fn merge_into<T: Copy>(a: &[T], b: &[T], out: &mut [T], less: &impl Fn(T, T) -> bool) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if less(b[j], a[i]) {
            out[i + j] = b[j];
            j += 1;
        } else {
            out[i + j] = a[i];
            i += 1;
        }
    }
    out[i + j..a.len() + j].copy_from_slice(&a[i..]);
    let at = a.len() + j;
    out[at..at + b.len() - j].copy_from_slice(&b[j..]);
}

/// Merges `first` (a copy of `v`'s first half) with `v`'s second half into `v`, from the
/// front. An item is written at or before the place of every item still to be read from `v`.
fn merge_front<T: Copy>(first: &[T], v: &mut [T], less: &impl Fn(T, T) -> bool) {
    let (mut i, mut j, mut out) = (0, first.len(), 0);
    while i < first.len() && j < v.len() {
        if less(v[j], first[i]) {
            v[out] = v[j];
            j += 1;
        } else {
            v[out] = first[i];
            i += 1;
        }
        out += 1;
    }
    v[out..out + first.len() - i].copy_from_slice(&first[i..]);
}

/// Merges `v[..mid]` with `second` (a copy of `v`'s part after `mid`) into `v`, from the
/// back: the first run's last item goes last when the second run's last is less than it,
/// else the second run's (so equal items keep the first run's first).
fn merge_back<T: Copy>(v: &mut [T], mid: usize, second: &[T], less: &impl Fn(T, T) -> bool) {
    if second.is_empty() {
        return;
    }
    let (mut i, mut j, mut out) = (mid, second.len(), v.len());
    while i > 0 {
        out -= 1;
        if less(second[j - 1], v[i - 1]) {
            v[out] = v[i - 1];
            i -= 1;
        } else {
            v[out] = second[j - 1];
            j -= 1;
            if j == 0 {
                return;
            }
        }
    }
    v[..j].copy_from_slice(&second[..j]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` keys from the sort tests' sequence (seed 3, draws below 20): NaN for every
    /// fourth draw, else the draw's remainder by 5.
    fn keys(n: usize) -> Vec<f64> {
        let draws = super::super::cxx_sort::tests::keys(n, 3, 20);
        let key = |r: u64| if r % 4 == 0 { f64::NAN } else { (r % 5) as f64 };
        draws.into_iter().map(key).collect()
    }

    /// The first 23 and 40 of those keys' indices as the GNU C++ library's
    /// `std::stable_sort` orders them by `<` and by `>` (printed by a C++ program compiled
    /// with g++ 12): the odd length merges its halves from the back, the even one from the
    /// front.
    const UP_23: [usize; 23] = [
        2, 7, 11, 1, 3, 10, 0, 4, 6, 12, 15, 18, 14, 13, 16, 17, 19, 20, 21, 22, 5, 8, 9,
    ];
    const DOWN_23: [usize; 23] = [
        0, 8, 9, 1, 3, 10, 11, 2, 4, 12, 13, 16, 17, 5, 14, 18, 15, 19, 21, 22, 6, 7, 20,
    ];
    const UP_40: [usize; 40] = [
        2, 7, 15, 20, 28, 34, 21, 22, 23, 24, 25, 32, 11, 18, 1, 3, 10, 14, 26, 27, 0, 4, 6, 5, 8,
        9, 12, 13, 16, 17, 19, 29, 30, 31, 33, 35, 36, 37, 38, 39,
    ];
    const DOWN_40: [usize; 40] = [
        0, 8, 9, 16, 17, 29, 30, 31, 33, 39, 1, 3, 10, 14, 26, 27, 37, 11, 18, 21, 22, 23, 24, 25,
        32, 36, 2, 4, 5, 6, 7, 12, 13, 15, 19, 20, 28, 34, 35, 38,
    ];

    #[test]
    fn unordered_keys_end_where_the_gnu_library_puts_them() {
        let sorted = |n: usize, less: &dyn Fn(f64, f64) -> bool| {
            let k = keys(n);
            let mut index: Vec<usize> = (0..n).collect();
            stable_sort(&mut index, &|i, j| less(k[i], k[j]));
            index
        };
        assert_eq!(sorted(23, &|a, b| a < b), UP_23);
        assert_eq!(sorted(23, &|a, b| a > b), DOWN_23);
        assert_eq!(sorted(40, &|a, b| a < b), UP_40);
        assert_eq!(sorted(40, &|a, b| a > b), DOWN_40);
        let printed = "4 3 0 3 nan 3 0 0 4 4 3 2 nan 4 3 0 4 4 2 nan 0 1 1";
        let shown: Vec<String> = keys(23)
            .iter()
            .map(|k| {
                if k.is_nan() {
                    "nan".into()
                } else {
                    k.to_string()
                }
            })
            .collect();
        assert_eq!(shown.join(" "), printed);
    }

    #[test]
    fn lists_with_nan_keep_every_item_at_every_length() {
        // Lengths across the runs of 7 and the merges' cases, with a comparator that is
        // not an order at all too: each index once, never a failure.
        for n in 0..130 {
            let k = keys(n);
            let orders: [&dyn Fn(f64, f64) -> bool; 2] = [&|a, b| a < b, &|_, _| true];
            for less in orders {
                let mut index: Vec<usize> = (0..n).collect();
                stable_sort(&mut index, &|i, j| less(k[i], k[j]));
                index.sort_unstable();
                assert_eq!(index, (0..n).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn ordered_keys_sort_as_any_stable_sort() {
        for n in 0..200 {
            for distinct in [1u64, 3, 1000] {
                let k: Vec<u64> = (0..n as u64)
                    .map(|i| (i * 7919 + n as u64) % distinct)
                    .collect();
                let mut index: Vec<usize> = (0..n).collect();
                stable_sort(&mut index, &|i, j| k[i] < k[j]);
                let mut want: Vec<usize> = (0..n).collect();
                want.sort_by_key(|&i| k[i]);
                assert_eq!(index, want, "{n} {distinct}");
            }
        }
    }
}
