//! TBasket records: the key header, the basket header, the (possibly compressed)
//! payload, and the entry-offset table that follows the data of variable-size entries.

use crate::compress::decompress;
use crate::container::bytes::BeReader;
use crate::container::KeyInfo;
use crate::error::{Error, Result};

/// A basket's entries, uncompressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BasketData {
    /// The data part.
    pub data: Vec<u8>,
    /// Where each entry starts in `data`, plus the end (entries + 1 values), when the
    /// basket has an entry-offset table.
    pub offsets: Option<Vec<usize>>,
    /// Number of entries.
    pub entries: usize,
}

/// Decodes a basket record (`record` holds its `expected_bytes` bytes read at `seek`)
/// of branch `branch` that should hold `expected_entries` entries.
pub fn decode_basket(
    record: &[u8],
    seek: u64,
    file: &str,
    object: &str,
    expected_entries: u64,
) -> Result<BasketData> {
    let mut r = BeReader::new(record, seek, file, object);
    let key = KeyInfo::decode(&mut r)?;
    let err = |at: u64, m: String| Error::format(file, object, seek + at, m);
    if key.class_name != "TBasket" {
        return Err(err(
            0,
            format!("the record is a {}, not a TBasket", key.class_name),
        ));
    }
    if key.nbytes as usize != record.len() {
        return Err(err(
            0,
            format!(
                "the basket key says {} bytes, the branch says {}",
                key.nbytes,
                record.len()
            ),
        ));
    }
    let _version = r.u16()?;
    let _buffer_size = r.i32()?;
    let _nev_buf_size = r.i32()?;
    let nev_buf = r.i32()?;
    let last = r.i32()?;
    let _flag = r.u8()?;
    let keylen = key.keylen as i64;
    if r.position() as i64 > keylen {
        return Err(err(
            14,
            format!("key length {keylen} is shorter than the basket header"),
        ));
    }
    if nev_buf < 0 || nev_buf as u64 != expected_entries {
        return Err(err(
            r.position() as u64 - 9,
            format!("the basket holds {nev_buf} entries, the branch says {expected_entries}"),
        ));
    }
    let objlen = key.objlen as i64;
    let border = last as i64 - keylen;
    if border < 0 || border > objlen {
        return Err(err(
            r.position() as u64 - 5,
            format!("data end {last} is outside the basket (key length {keylen}, {objlen} bytes)"),
        ));
    }
    let stored = &record[key.keylen as usize..];
    let raw = if stored.len() as i64 == objlen {
        stored.to_vec()
    } else {
        decompress(stored, objlen as usize)
            .map_err(|e| e.in_object(file, object, seek + keylen as u64))?
    };
    let border = border as usize;
    let offsets = if border < raw.len() {
        let table = &raw[border..];
        let mut t = BeReader::new(table, seek + keylen as u64 + border as u64, file, object);
        let count = t.i32()?;
        let n = nev_buf as usize;
        if count < 0 || (count as usize) < n || table.len() < 4 + 4 * n {
            return Err(t.error(format!(
                "entry-offset table of {count} values ({} bytes) for {n} entries",
                table.len()
            )));
        }
        let mut offsets = Vec::with_capacity(n + 1);
        let mut previous = 0usize;
        for i in 0..n {
            let v = t.i32()? as i64 - keylen;
            if v < previous as i64 || v as usize > border {
                return Err(t.error(format!(
                    "entry {i} starts at {v}, outside {previous}..{border}"
                )));
            }
            previous = v as usize;
            offsets.push(previous);
        }
        offsets.push(border);
        Some(offsets)
    } else {
        None
    };
    let mut data = raw;
    data.truncate(border);
    Ok(BasketData {
        data,
        offsets,
        entries: nev_buf as usize,
    })
}
