//! ROOT's resizing of baskets when a tree's first cluster ends
//! (`TTree::OptimizeBaskets(GetTotBytes(), 1, "")`): each branch's basket size in
//! proportion to the bytes it holds, scaled so that all baskets together take about the
//! tree's bytes so far (at most 100 times the sizes before), in multiples of 512 bytes,
//! with room for a cluster's entry offsets where entries vary in size.

/// A gibibyte, the bound of the resizing.
const GIB: f64 = (1u64 << 30) as f64;

/// One branch as the resizing sees it.
pub(in crate::ttree::write) struct BasketUse {
    /// Its basket size so far.
    pub basket_size: usize,
    /// Bytes of its baskets before compression, key headers included.
    pub tot_bytes: u64,
    /// Entries it holds.
    pub entries: u64,
    /// Whether its entries vary in size (they have an entry-offset table).
    pub varying: bool,
}

/// The new basket size of each branch, or `None` for a tree without bytes.
pub(in crate::ttree::write) fn resized(branches: &[BasketUse]) -> Option<Vec<usize>> {
    let tree_bytes: u64 = branches.iter().map(|b| b.tot_bytes).sum();
    let leaves = branches.len() as u64;
    if leaves == 0 || tree_bytes == 0 {
        return None;
    }
    let average = tree_bytes / leaves;
    let (mut smallest, mut largest, mut factor) = (512.0f64, 256_000.0f64, 1.0f64);
    let mut sizes = vec![0usize; branches.len()];
    // The first pass finds the sizes relative to each other, the second scales them.
    for pass in 0..2 {
        let mut total = 0u64;
        for (b, out) in branches.iter().zip(&mut sizes) {
            let bytes = b.tot_bytes as f64;
            let one_entry = match b.entries {
                0 => average,
                n => 1 + (bytes / n as f64) as u64,
            };
            let mut size = b.basket_size as f64 * (bytes / average as f64) * factor;
            if !(0.0..=largest).contains(&size) {
                size = largest;
            }
            let mut size = size as u64;
            if pass == 1 {
                if b.varying {
                    size += 8 * b.entries;
                }
                size = size - size % 512 + 512;
            }
            size = size.max(one_entry);
            if (size as f64) < smallest {
                size = smallest as u64;
            }
            if size > 10_000_000 {
                size = largest as u64;
            }
            *out = size as usize;
            total += size;
        }
        factor = (tree_bytes as f64 / total.max(1) as f64).min(100.0);
        smallest = (512.0 * factor).clamp(8.0, GIB);
        largest = 256_000.0 * factor;
        if largest > GIB {
            largest = smallest;
        }
    }
    Some(sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn branch(basket_size: usize, tot_bytes: u64, entries: u64, varying: bool) -> BasketUse {
        BasketUse {
            basket_size,
            tot_bytes,
            entries,
            varying,
        }
    }

    #[test]
    fn one_branch_grows_a_hundredfold_as_in_roots_file() {
        // 64M `Int_t` at 505: ROOT 6.40's file has fBasketSize 3,200,512 after the first
        // cluster of about 9.35M entries (37.4 MB before compression).
        let sizes = resized(&[branch(32_000, 37_400_000, 9_350_000, false)]).unwrap();
        assert_eq!(sizes, [3_200_512]);
    }

    #[test]
    fn branches_share_by_their_bytes() {
        // Two branches of 4 and 1 MB: baskets in proportion, scaled to the tree's 5 MB
        // (factor 100 caps them), a counted one with room for its offsets.
        let sizes = resized(&[
            branch(32_000, 4_000_000, 100_000, false),
            branch(32_000, 1_000_000, 100_000, true),
        ])
        .unwrap();
        // Pass one: 32000 * 1.6 and 32000 * 0.4 = 51200 + 12800 = 64000 bytes; factor
        // 5e6 / 64000 = 78.125.
        assert_eq!(sizes[0], 4_000_000 - 4_000_000 % 512 + 512);
        assert_eq!(sizes[1], 1_800_000 - 1_800_000 % 512 + 512);
        assert!(resized(&[]).is_none());
        assert!(resized(&[branch(32_000, 0, 0, false)]).is_none());
    }
}
