//! Counted array members of a split collection's items (`UChar_t* fAllBits //[fNbytes]`
//! of a `TBits` in a `TClonesArray`): the items' arrays lie back to back, each a flag
//! byte and its values, and only the counter member's values (another branch) say where
//! one ends.

use std::ops::Range;

use super::builder::Reader;
use super::decode::{check_offsets, entry_bytes, DecodeError};
use super::Interpretation;
use crate::array::Array;

impl Interpretation {
    /// Decodes entries `range` of a basket of a [`Interpretation::CountedMembers`]
    /// branch: `items[k]` is the number of items of entry `range.start + k`, and
    /// `counts` each of those items' number of values, in order.
    pub(crate) fn decode_counted(
        &self,
        data: &[u8],
        offsets: Option<&[usize]>,
        range: Range<usize>,
        items: &[u64],
        counts: &[u64],
    ) -> Result<Array, DecodeError> {
        let Interpretation::CountedMembers { prim, counter } = self else {
            return Err("not a counted member of a split collection".into());
        };
        let offsets = offsets.ok_or("variable-size entries but the basket has no entry offsets")?;
        check_offsets(offsets, &range)?;
        if items.len() != range.len() {
            return Err(format!(
                "{} entries but the counter '{counter}' has values for {}",
                range.len(),
                items.len()
            ));
        }
        let mut entry_offsets = Vec::with_capacity(items.len() + 1);
        let mut item_offsets = vec![0u64];
        let mut values = Vec::new();
        let mut counts = counts.iter();
        entry_offsets.push(0u64);
        for (i, &n) in range.zip(items) {
            let e = |m: String| format!("entry {i}: {m}");
            let mut r = Reader(entry_bytes(data, offsets, i)?);
            for _ in 0..n {
                let count = *counts
                    .next()
                    .ok_or_else(|| e(format!("more items than the counter '{counter}' has")))?;
                let flag = r.take(1).map_err(e)?[0];
                if flag != 0 {
                    let bytes = usize::try_from(count)
                        .ok()
                        .and_then(|c| c.checked_mul(prim.size()))
                        .ok_or_else(|| e(format!("a count of {count}")))?;
                    values.extend_from_slice(r.take(bytes).map_err(e)?);
                }
                item_offsets.push((values.len() / prim.size()) as u64);
            }
            if !r.0.is_empty() {
                return Err(e(format!(
                    "{} bytes left after the {n} items the counter '{counter}' gives",
                    r.0.len()
                )));
            }
            entry_offsets.push(item_offsets.len() as u64 - 1);
        }
        Ok(Array::List {
            offsets: entry_offsets,
            values: Box::new(Array::List {
                offsets: item_offsets,
                values: Box::new(prim.decode(&values)),
            }),
        })
    }
}
