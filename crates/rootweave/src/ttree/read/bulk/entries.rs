//! Entry boundaries of jagged branches: each entry's end as an item index, from the
//! basket's entry-offset table or from `std::vector` headers, checked as it goes.

use super::convert::convert;
use super::plan::VECTOR_HEADER;
use crate::array::buffer::Dst;
use crate::streamer::tags::BYTE_COUNT_MASK;

/// Where a basket's entries lie, for [`item_ends_from_table`].
#[derive(Clone, Copy)]
pub(super) struct EntryBytes {
    /// The key length that the entry-offset table's positions include.
    pub(super) keylen: i64,
    /// The first entry's start and the last entry's end, in the basket's data part.
    pub(super) start: i64,
    pub(super) end: i64,
    /// Bytes per item.
    pub(super) unit: i64,
}

/// Each entry's end as an item index (`base` + items since `bytes.start`) from `table`,
/// big-endian positions of the entries' ends in the basket record, one per entry of
/// `ends`. Returns the last end's byte position and a value that is negative if an entry
/// ends before the one before it or past `bytes.end`, or splits an item. Branch-free and
/// in one pass, so that the compiler vectorises it (a 5M-entry basket set is ~2 ns an
/// entry otherwise).
pub(super) fn item_ends_from_table(
    table: &[u8],
    bytes: EntryBytes,
    base: u64,
    ends: &mut [u64],
) -> (i64, i64) {
    let EntryBytes {
        keylen,
        start,
        end,
        unit,
    } = bytes;
    let (mut previous, mut wrong) = (start, 0i64);
    let positions = table
        .chunks_exact(4)
        .map(|c| i32::from_be_bytes(c.try_into().expect("chunks of 4 bytes")) as i64 - keylen);
    if unit.count_ones() == 1 {
        let shift = unit.trailing_zeros();
        for (o, v) in ends.iter_mut().zip(positions) {
            // Negative when decreasing, past the end or within an item.
            let d = v - start;
            wrong |= (v - previous) | (end - v) | -(d & (unit - 1));
            previous = v;
            // Garbage (never kept) when an entry is out of order: the caller fails then.
            *o = base.wrapping_add((d >> shift) as u64);
        }
    } else {
        for (o, v) in ends.iter_mut().zip(positions) {
            let d = v - start;
            wrong |= (v - previous) | (end - v) | -(d % unit);
            previous = v;
            *o = base.wrapping_add((d / unit) as u64);
        }
    }
    (previous, wrong)
}

/// Each entry's end as an item index (`base` + items since `start`), checking that the
/// entries are whole numbers of `unit`-byte items.
pub(super) fn item_ends(
    entries: &[usize],
    start: usize,
    unit: usize,
    base: u64,
    out: &mut [u64],
) -> std::result::Result<(), String> {
    if entries.len() != out.len() {
        return Err(format!(
            "{} entries where {} were expected",
            entries.len(),
            out.len()
        ));
    }
    // Entries before `start` (out of order) make `ragged` non-zero too.
    let mut ragged = 0usize;
    if unit.is_power_of_two() {
        let shift = unit.trailing_zeros();
        for (o, &e) in out.iter_mut().zip(entries) {
            let d = e.wrapping_sub(start);
            ragged |= (d & (unit - 1)) | usize::from(e < start);
            *o = base.wrapping_add((d >> shift) as u64);
        }
    } else {
        for (o, &e) in out.iter_mut().zip(entries) {
            let d = e.wrapping_sub(start);
            ragged |= (d % unit) | usize::from(e < start);
            *o = base.wrapping_add((d / unit) as u64);
        }
    }
    if ragged != 0 {
        return Err(format!(
            "an entry out of order or not a whole number of {unit}-byte items"
        ));
    }
    Ok(())
}

/// Converts the values of `std::vector` entries (entry `i` spans `o[i]..o[i + 1]` of
/// `data`: a header, then its items of `unit` bytes, values of `size` bytes) into `dst`,
/// and each entry's end as an item index into `ends`.
pub(super) fn vectors(
    data: &[u8],
    o: &[usize],
    unit: usize,
    size: usize,
    base: u64,
    ends: &mut [u64],
    dst: &mut Dst,
) -> std::result::Result<(), String> {
    let mut at = 0usize;
    let mut items = base;
    for (i, (w, end)) in o.windows(2).zip(ends.iter_mut()).enumerate() {
        let entry = data
            .get(w[0]..w[1])
            .filter(|e| e.len() >= VECTOR_HEADER)
            .ok_or_else(|| format!("entry {i} spans bytes {}..{} of {}", w[0], w[1], data.len()))?;
        let count = u32::from_be_bytes([entry[0], entry[1], entry[2], entry[3]]);
        let n = u32::from_be_bytes([entry[6], entry[7], entry[8], entry[9]]) as usize;
        let body = &entry[VECTOR_HEADER..];
        if count & BYTE_COUNT_MASK == 0
            || (count & !BYTE_COUNT_MASK) as usize != entry.len() - 4
            || n.checked_mul(unit) != Some(body.len())
        {
            return Err(format!(
                "entry {i}: a vector header ({count:#x}, {n} items) that does not match its {} bytes",
                entry.len()
            ));
        }
        let values = body.len() / size;
        if at + values > dst.len() {
            return Err(format!(
                "entry {i}: more values than the basket's data length"
            ));
        }
        convert(body, dst, at);
        at += values;
        items += (body.len() / unit) as u64;
        *end = items;
    }
    if at != dst.len() {
        return Err(format!("{at} values where {} were expected", dst.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{item_ends_from_table, EntryBytes};

    /// The table of a basket record whose key is `keylen` bytes: each entry's end as a
    /// big-endian position in the record.
    fn table(ends: &[i64], keylen: i64) -> Vec<u8> {
        ends.iter()
            .flat_map(|&e| ((e + keylen) as i32).to_be_bytes())
            .collect()
    }

    fn item_ends(ends: &[i64], start: i64, end: i64, unit: i64) -> (Vec<u64>, i64, bool) {
        let keylen = 70;
        let mut out = vec![0u64; ends.len()];
        let bytes = EntryBytes {
            keylen,
            start,
            end,
            unit,
        };
        let (last, wrong) = item_ends_from_table(&table(ends, keylen), bytes, 100, &mut out);
        (out, last, wrong < 0)
    }

    #[test]
    fn entry_ends_become_item_indices_from_the_base() {
        // 4-byte items from byte 8 on: entries of 2, 0, 3 and 1 items.
        assert_eq!(
            item_ends(&[16, 16, 28, 32], 8, 32, 4),
            (vec![102, 102, 105, 106], 32, false)
        );
        // 12-byte items (not a power of two): entries of 1, 2 items.
        assert_eq!(item_ends(&[12, 36], 0, 36, 12), (vec![101, 103], 36, false));
        assert_eq!(item_ends(&[], 0, 0, 4), (vec![], 0, false));
    }

    #[test]
    fn bad_entry_ends_are_found() {
        for unit in [4, 12] {
            // Decreasing.
            assert!(item_ends(&[24, 12, 36], 0, 36, unit).2);
            // Past the last entry's end.
            assert!(item_ends(&[12, 48], 0, 36, unit).2);
            // Before the first entry's start.
            assert!(item_ends(&[-12, 36], 0, 36, unit).2);
            // Splitting an item.
            assert!(item_ends(&[12, 14, 36], 0, 36, unit).2);
        }
    }
}
