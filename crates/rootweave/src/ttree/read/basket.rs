//! TBasket records: the key header, the basket header, the (possibly compressed)
//! payload, and the entry-offset table that follows the data of variable-size entries.

use crate::compress::{declared_len, decompress_into};
use crate::container::KeyInfo;
use crate::error::{Error, Result};
use crate::streamer::bytes::BeReader;

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

/// The checked key and basket headers of a basket record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BasketHeader {
    /// Offset of the record in the file.
    pub seek: u64,
    /// Length of the key header (the payload starts there).
    pub keylen: usize,
    /// Uncompressed payload bytes (data part and entry-offset table).
    pub objlen: usize,
    /// Bytes of the record (key header and stored payload).
    pub nbytes: usize,
    /// Number of entries.
    pub entries: usize,
    /// Bytes of the data part (the rest of the payload is the entry-offset table).
    pub data_len: usize,
}

/// Reads and checks the headers at the start of a basket record (`head` holds at least
/// the key header) of `nbytes` bytes at `seek` that should hold `expected_entries`.
pub fn parse_header(
    head: &[u8],
    seek: u64,
    nbytes: usize,
    file: &str,
    object: &str,
    expected_entries: u64,
) -> Result<BasketHeader> {
    parse_any_header(head, seek, nbytes, file, object, Some(expected_entries))
}

/// As [`parse_header`], for a basket found without its branch's metadata (recovering a
/// file): any number of entries.
pub fn parse_found_header(
    head: &[u8],
    seek: u64,
    nbytes: usize,
    file: &str,
    object: &str,
) -> Result<BasketHeader> {
    parse_any_header(head, seek, nbytes, file, object, None)
}

fn parse_any_header(
    head: &[u8],
    seek: u64,
    nbytes: usize,
    file: &str,
    object: &str,
    expected_entries: Option<u64>,
) -> Result<BasketHeader> {
    let mut r = BeReader::new(head, seek, file, object);
    let key = KeyInfo::decode(&mut r)?;
    let err = |at: u64, m: String| Error::format(file, object, seek + at, m);
    if key.class_name != "TBasket" {
        return Err(err(
            0,
            format!("the record is a {}, not a TBasket", key.class_name),
        ));
    }
    if key.nbytes as usize != nbytes {
        return Err(err(
            0,
            format!(
                "the basket key says {} bytes, the branch says {nbytes}",
                key.nbytes
            ),
        ));
    }
    let _version = r.u16()?;
    let _buffer_size = r.i32()?;
    if r.i32()? < 0 {
        // Baskets of ROOT 6.10 and later: a negative entry size says an I/O bits byte
        // follows (`TBasket::fIOBits`).
        r.u8()?;
    }
    let nev_buf = r.i32()?;
    let last = r.i32()?;
    let _flag = r.u8()?;
    let keylen = key.keylen as i64;
    if r.position() as i64 > keylen || keylen as usize > nbytes {
        return Err(err(
            14,
            format!("key length {keylen} does not fit the basket header and the record"),
        ));
    }
    if nev_buf < 0 || expected_entries.is_some_and(|e| nev_buf as u64 != e) {
        return Err(err(
            r.position() as u64 - 9,
            format!(
                "the basket holds {nev_buf} entries, the branch says {}",
                expected_entries.unwrap_or(0)
            ),
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
    // A compressed payload cannot expand more than its blocks allow (16 MiB per 9-byte
    // block header): this bounds what a corrupt length makes us allocate.
    let stored = nbytes - keylen as usize;
    let most = (stored as u64).div_ceil(9).saturating_mul(16 << 20);
    if objlen as u64 > most.max(stored as u64) {
        return Err(err(
            0,
            format!("{objlen} uncompressed bytes cannot come from {stored} stored bytes"),
        ));
    }
    Ok(BasketHeader {
        seek,
        keylen: keylen as usize,
        objlen: objlen as usize,
        nbytes,
        entries: nev_buf as usize,
        data_len: border as usize,
    })
}

/// The uncompressed payload of a record whose headers are `h`: the stored bytes
/// themselves, or decompressed into `scratch` (grown when needed, reused).
pub fn payload<'a>(
    record: &'a [u8],
    h: &BasketHeader,
    scratch: &'a mut Vec<u8>,
    file: &str,
    object: &str,
) -> Result<&'a [u8]> {
    let stored = &record[h.keylen..h.nbytes];
    if stored.len() == h.objlen {
        return Ok(stored);
    }
    // The blocks' headers must declare the size the key claims before it is allocated.
    let declared =
        declared_len(stored).map_err(|e| e.in_object(file, object, h.seek + h.keylen as u64))?;
    if declared != h.objlen {
        return Err(Error::format(
            file,
            object,
            h.seek + h.keylen as u64,
            format!(
                "the key says {} uncompressed bytes, the compressed blocks {declared}",
                h.objlen
            ),
        ));
    }
    if scratch.len() < h.objlen {
        scratch.resize(h.objlen, 0);
    }
    let out = &mut scratch[..h.objlen];
    decompress_into(stored, out)
        .map_err(|e| e.in_object(file, object, h.seek + h.keylen as u64))?;
    Ok(out)
}

/// Reads the entry-offset table that follows the data part of `raw` (the payload) into
/// `out`: where each entry starts in the data part, plus its end (entries + 1 values).
pub fn entry_offsets(
    raw: &[u8],
    h: &BasketHeader,
    file: &str,
    object: &str,
    out: &mut Vec<usize>,
) -> Result<()> {
    let border = h.data_len;
    let table = &raw[border.min(raw.len())..];
    let mut t = BeReader::new(
        table,
        h.seek + h.keylen as u64 + border as u64,
        file,
        object,
    );
    let count = t.i32()?;
    let n = h.entries;
    if count < 0 || (count as usize) < n || table.len() < 4 + 4 * n {
        return Err(t.error(format!(
            "entry-offset table of {count} values ({} bytes) for {n} entries",
            table.len()
        )));
    }
    out.clear();
    out.reserve(n + 1);
    let mut previous = 0usize;
    for (i, c) in table[4..4 + 4 * n].chunks_exact(4).enumerate() {
        let v = i32::from_be_bytes([c[0], c[1], c[2], c[3]]) as i64 - h.keylen as i64;
        if v < previous as i64 || v as usize > border {
            return Err(Error::format(
                file,
                object,
                h.seek + h.keylen as u64 + border as u64 + 4 + 4 * i as u64,
                format!("entry {i} starts at {v}, outside {previous}..{border}"),
            ));
        }
        previous = v as usize;
        out.push(previous);
    }
    out.push(border);
    Ok(())
}

/// Decodes a basket record (`record` holds its bytes read at `seek`) that should hold
/// `expected_entries` entries.
pub fn decode_basket(
    record: &[u8],
    seek: u64,
    file: &str,
    object: &str,
    expected_entries: u64,
) -> Result<BasketData> {
    let h = parse_header(record, seek, record.len(), file, object, expected_entries)?;
    let mut scratch = Vec::new();
    let raw = payload(record, &h, &mut scratch, file, object)?;
    let offsets = if h.data_len < raw.len() {
        let mut offsets = Vec::new();
        entry_offsets(raw, &h, file, object, &mut offsets)?;
        Some(offsets)
    } else {
        None
    };
    Ok(BasketData {
        data: raw[..h.data_len].to_vec(),
        offsets,
        entries: h.entries,
    })
}
