//! Counter-indexed arrays whose baskets lack their entry-offset table (some writers other
//! than ROOT leave it out): where each entry starts is rebuilt from the counter branch's
//! values, as ROOT's own reader does for such branches. Counted array members of a split
//! collection's items are read with their counter member's values per item, always.

use std::collections::HashMap;
use std::ops::Range;

use crate::array::Array;
use crate::ttree::interpretation::{Header, Interpretation};
use crate::ttree::model::BasketInfo;

/// The values of a counter branch for entries `first..first + per_entry.len()`.
#[derive(Debug, Clone)]
pub(super) struct Counts {
    /// The first entry.
    pub first: u64,
    /// Items of each entry.
    pub per_entry: Vec<u64>,
    /// For a counter member of a split collection's items: each item's value.
    pub per_item: Option<ItemCounts>,
}

/// The values of a counter member of a split collection's items (each item's number of
/// values in a counted array member), for the entries of a [`Counts`].
#[derive(Debug, Clone)]
pub(super) struct ItemCounts {
    /// Where each entry's items start in `values` (entries + 1).
    pub starts: Vec<usize>,
    /// Every item's value, entry after entry.
    pub values: Vec<u64>,
}

impl Counts {
    /// The items per entry and every item's value of entries `entries` (global entry
    /// numbers), for decoding a counted member of a split collection.
    pub fn items_of(&self, entries: Range<u64>) -> Result<(&[u64], &[u64]), String> {
        let from = entries.start.checked_sub(self.first).map(|a| a as usize);
        let to = entries.end.checked_sub(self.first).map(|b| b as usize);
        match (from, to, &self.per_item) {
            (Some(a), Some(b), Some(items)) if a <= b && b < items.starts.len() => Ok((
                &self.per_entry[a..b],
                &items.values[items.starts[a]..items.starts[b]],
            )),
            _ => Err(format!(
                "no counter values for entries {}..{}",
                entries.start, entries.end
            )),
        }
    }
}

/// A counter member's values per item (a list per entry) as item counts.
pub(super) fn item_counts_of(first: u64, array: &Array) -> Result<Counts, String> {
    let Array::List { offsets, values } = array else {
        return Err(format!("a counter member of {:?} values", array.kind()));
    };
    let values = counts_of(0, values)?.per_entry;
    let starts: Vec<usize> = offsets.iter().map(|&o| o as usize).collect();
    if starts.last().is_some_and(|&end| end > values.len())
        || starts.windows(2).any(|w| w[0] > w[1])
    {
        return Err("a counter member whose offsets exceed its values".into());
    }
    Ok(Counts {
        first,
        per_entry: starts.windows(2).map(|w| (w[1] - w[0]) as u64).collect(),
        per_item: Some(ItemCounts { starts, values }),
    })
}

/// Counts for the fields of a read (by field index) whose offsets come from counters.
pub(super) type CountsByField = HashMap<usize, Counts>;

/// Bytes of one item of a counter-indexed array read as `interp`, or `None` if the
/// branch is not one (only those can have their entry offsets rebuilt).
pub(super) fn item_bytes(interp: &Interpretation) -> Option<usize> {
    match interp {
        Interpretation::Jagged {
            prim,
            inner,
            header: Header::None,
        } => Some(prim.size() * inner.iter().product::<usize>()),
        _ => None,
    }
}

/// A counter branch's values as item counts (negative counts are an error).
pub(super) fn counts_of(first: u64, array: &Array) -> Result<Counts, String> {
    let per_entry: Option<Vec<u64>> = match array {
        Array::Int8(v) => v.iter().map(|&x| u64::try_from(x).ok()).collect(),
        Array::UInt8(v) => Some(v.iter().map(|&x| x as u64).collect()),
        Array::Int16(v) => v.iter().map(|&x| u64::try_from(x).ok()).collect(),
        Array::UInt16(v) => Some(v.iter().map(|&x| x as u64).collect()),
        Array::Int32(v) => v.iter().map(|&x| u64::try_from(x).ok()).collect(),
        Array::UInt32(v) => Some(v.iter().map(|&x| x as u64).collect()),
        Array::Int64(v) => v.iter().map(|&x| u64::try_from(x).ok()).collect(),
        Array::UInt64(v) => Some(v.clone()),
        other => return Err(format!("a counter of {:?} values", other.kind())),
    };
    let per_entry = per_entry.ok_or("a negative counter value")?;
    Ok(Counts {
        first,
        per_entry,
        per_item: None,
    })
}

/// The entry offsets (entries + 1 byte positions in the data part, `data_len` bytes) of
/// `basket`, from the counts of its entries, each item `item_bytes` long.
pub(super) fn offsets_from_counts(
    counts: &Counts,
    basket: &BasketInfo,
    item_bytes: usize,
    data_len: usize,
) -> Result<Vec<usize>, String> {
    let from = basket.first_entry.checked_sub(counts.first);
    let to = basket.end_entry.checked_sub(counts.first);
    let per_entry = match (from, to) {
        (Some(a), Some(b)) if b as usize <= counts.per_entry.len() => {
            &counts.per_entry[a as usize..b as usize]
        }
        _ => return Err("no counter values for the basket's entries".into()),
    };
    let mut offsets = Vec::with_capacity(per_entry.len() + 1);
    let mut at = 0usize;
    offsets.push(0);
    for &n in per_entry {
        at = (n as usize)
            .checked_mul(item_bytes)
            .and_then(|b| at.checked_add(b))
            .filter(|&end| end <= data_len)
            .ok_or_else(|| {
                format!("the counter claims more than the basket's {data_len} bytes of values")
            })?;
        offsets.push(at);
    }
    if at != data_len {
        return Err(format!(
            "the counter accounts for {at} of the basket's {data_len} bytes of values"
        ));
    }
    Ok(offsets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basket(first: u64, end: u64) -> BasketInfo {
        BasketInfo {
            seek: 100,
            bytes: 10,
            first_entry: first,
            end_entry: end,
            embedded: None,
        }
    }

    #[test]
    fn offsets_follow_the_counts_of_the_baskets_entries() {
        let counts = counts_of(10, &Array::UInt32(vec![1, 0, 2, 3, 1])).unwrap();
        let offsets = offsets_from_counts(&counts, &basket(11, 14), 4, 20).unwrap();
        assert_eq!(offsets, [0, 0, 8, 20]);
    }

    #[test]
    fn counts_that_do_not_fit_the_basket_are_errors() {
        let counts = counts_of(0, &Array::Int32(vec![1, 2])).unwrap();
        let short = offsets_from_counts(&counts, &basket(0, 2), 4, 16).unwrap_err();
        assert!(
            short.contains("accounts for 12 of the basket's 16 bytes"),
            "{short}"
        );
        let long = offsets_from_counts(&counts, &basket(0, 2), 4, 8).unwrap_err();
        assert!(long.contains("more than the basket's 8 bytes"), "{long}");
        let outside = offsets_from_counts(&counts, &basket(1, 3), 4, 8).unwrap_err();
        assert!(outside.contains("no counter values"), "{outside}");
        assert!(counts_of(0, &Array::Int32(vec![-1])).is_err());
        assert!(counts_of(0, &Array::Float32(vec![1.0])).is_err());
    }
}
