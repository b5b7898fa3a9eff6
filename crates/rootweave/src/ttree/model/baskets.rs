//! The basket list of a branch: where each basket of its entries is, on disk or kept in
//! the tree object, and which entries it holds.

use std::collections::BTreeMap;

use super::tree::{BasketInfo, EmbeddedBasket};
use crate::streamer::{Object, Value};

/// The baskets of branch object `o` holding `entries` entries: the first `written` are
/// described by `fBasketSeek`, `fBasketBytes` and `fBasketEntry` (`columns`, in that order);
/// baskets kept in the tree object (`fBaskets`, slot = basket number) stand in for those of
/// them never written (seek 0) and follow the written ones (a file that was not closed).
pub(super) fn basket_list(
    o: &Object,
    entries: u64,
    written: usize,
    columns: [&[i64]; 3],
    file_size: u64,
) -> Result<(Vec<BasketInfo>, Vec<EmbeddedBasket>), String> {
    let [seeks, sizes, firsts] = columns;
    let mut kept = embedded_baskets(o)?;
    let mut baskets: Vec<BasketInfo> = Vec::with_capacity(written + kept.len());
    let mut embedded = Vec::new();
    let mut push = |baskets: &mut Vec<BasketInfo>, mut info: BasketInfo, stored| {
        if let Some(prev) = baskets.last() {
            if prev.end_entry != info.first_entry {
                return Err(format!(
                    "basket {} starts at entry {}, the one before ends at {}",
                    baskets.len(),
                    info.first_entry,
                    prev.end_entry
                ));
            }
        }
        if let Some(stored) = stored {
            info.embedded = Some(embedded.len());
            embedded.push(stored);
        }
        baskets.push(info);
        Ok(())
    };
    for i in 0..written {
        let first = firsts[i];
        let end = if i + 1 < firsts.len() && (i + 1 < written || firsts[i + 1] > first) {
            firsts[i + 1]
        } else {
            entries as i64
        };
        let (seek, bytes) = (seeks[i], sizes[i]);
        if first < 0
            || end < first
            || end as u64 > entries
            || seek < 0
            || bytes < 0
            || seek as u64 + bytes as u64 > file_size
        {
            return Err(format!(
                "basket {i} at {seek} ({bytes} bytes) holds entries {first}..{end} of {entries} (file of {file_size} bytes)"
            ));
        }
        let (first, end) = (first as u64, end as u64);
        let stored = match kept.remove(&i) {
            Some(stored) if seek == 0 => {
                if stored.entries != end - first {
                    return Err(format!(
                        "embedded basket {i} of {} entries stands for entries {first}..{end}",
                        stored.entries
                    ));
                }
                Some(stored)
            }
            _ => None,
        };
        let info = BasketInfo {
            seek: seek as u64,
            bytes: bytes as u32,
            first_entry: first,
            end_entry: end,
            embedded: None,
        };
        push(&mut baskets, info, stored)?;
    }
    let mut next = baskets.last().map_or(0, |b| b.end_entry);
    if written == 0 && firsts.first().is_some_and(|&f| f > 0) {
        next = firsts[0] as u64;
    }
    for stored in kept.into_values() {
        let count = stored.entries;
        if next + count > entries {
            return Err(format!(
                "embedded basket of {count} entries after entry {next} of {entries}"
            ));
        }
        let info = BasketInfo {
            seek: 0,
            bytes: 0,
            first_entry: next,
            end_entry: next + count,
            embedded: None,
        };
        push(&mut baskets, info, Some(stored))?;
        next += count;
    }
    Ok((baskets, embedded))
}

/// The baskets kept in branch object `o` (`fBaskets`), by basket number.
fn embedded_baskets(o: &Object) -> Result<BTreeMap<usize, EmbeddedBasket>, String> {
    let mut out = BTreeMap::new();
    for (slot, b) in o.objects("fBaskets").unwrap_or(&[]).iter().enumerate() {
        let Some(b) = b else { continue };
        let Some(Value::Bytes(data)) = b.get("fData") else {
            continue;
        };
        let count = b.int("fNevBuf").unwrap_or(0).max(0) as u64;
        let keylen = b.int("fKeylen").unwrap_or(0);
        let offsets = match b.ints("fEntryOffset") {
            Some(raw) if !raw.is_empty() => {
                let mut v: Vec<usize> = Vec::with_capacity(raw.len().min(count as usize) + 1);
                for &x in raw.iter().take(count as usize) {
                    let x = x - keylen;
                    if x < 0 || x as usize > data.len() {
                        return Err(format!("embedded basket {slot}: entry offset {x}"));
                    }
                    v.push(x as usize);
                }
                v.push(data.len());
                Some(v)
            }
            _ => None,
        };
        let stored = EmbeddedBasket {
            data: data.clone(),
            offsets,
            entries: count,
        };
        out.insert(slot, stored);
    }
    Ok(out)
}

#[cfg(test)]
#[path = "baskets_tests.rs"]
mod tests;
