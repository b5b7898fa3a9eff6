//! Walking a file's records by their key headers, as they lie one after the other from
//! byte 100, without the keys lists or header a killed writer may not have written. Each
//! record's key header names its own offset; where none does (a range reserved but never
//! written, or a cut), the walk resumes at the next offset where one does; a free gap (a
//! deleted record, its length negated) is stepped over.

pub(crate) use crate::container::header::BEGIN;
use crate::container::KeyInfo;
use crate::error::Result;
use crate::io::ReadAt;

/// Bytes read to decode one key header (names and titles are short).
const HEADER_READ: u64 = 1024;

/// Bytes read at a time while looking for the next record.
const SEARCH_CHUNK: u64 = 1 << 20;

/// The records found by a walk.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    /// Every whole record, in file order.
    pub keys: Vec<KeyInfo>,
    /// The end of the last whole record: bytes after it are not part of any.
    pub end: u64,
    /// Ranges skipped between records (never written, or broken).
    pub gaps: Vec<(u64, u64)>,
}

/// Walks the records of a file of `size` bytes.
pub(crate) fn walk(source: &dyn ReadAt, size: u64) -> Result<Walk> {
    let name = source.name();
    let mut walk = Walk {
        end: BEGIN.min(size),
        ..Walk::default()
    };
    let mut at = BEGIN;
    while at < size {
        match key_at(source, size, at, &name)? {
            Some(key) => {
                at += key.nbytes as u64;
                walk.end = at;
                walk.keys.push(key);
            }
            None => match free_gap(source, size, at, &name)? {
                Some(len) => at += len,
                None => match next_key(source, size, at + 1, &name)? {
                    Some(next) => {
                        walk.gaps.push((at, next));
                        at = next;
                    }
                    None => break,
                },
            },
        }
    }
    Ok(walk)
}

/// The length of the free gap at `at`, if one starts there: a deleted record, whose length
/// ROOT negates, followed by a whole record or the end of the file. Its bytes (a stale
/// record) are not walked, as ROOT does not walk them.
fn free_gap(source: &dyn ReadAt, size: u64, at: u64, name: &str) -> Result<Option<u64>> {
    if size - at < 4 {
        return Ok(None);
    }
    let mut head = [0u8; 4];
    source.read_exact_at(&mut head, at)?;
    let nbytes = i32::from_be_bytes(head);
    if nbytes > -4 {
        return Ok(None);
    }
    let next = at + nbytes.unsigned_abs() as u64;
    let lands = next == size || (next < size && key_at(source, size, next, name)?.is_some());
    Ok(lands.then_some(nbytes.unsigned_abs() as u64))
}

/// The key whose record starts at `at`, if a whole one does.
fn key_at(source: &dyn ReadAt, size: u64, at: u64, name: &str) -> Result<Option<KeyInfo>> {
    let len = HEADER_READ.min(size - at);
    if len < 26 {
        return Ok(None);
    }
    let mut buf = vec![0u8; len as usize];
    source.read_exact_at(&mut buf, at)?;
    if !plausible(&buf, at) {
        return Ok(None);
    }
    let Ok(key) = KeyInfo::from_bytes(&buf, at, name) else {
        return Ok(None);
    };
    let whole =
        key.seek_key == at && (key.keylen as u32) < key.nbytes && at + key.nbytes as u64 <= size;
    Ok(whole.then_some(key))
}

/// The first offset from `from` where a key header names its own offset.
fn next_key(source: &dyn ReadAt, size: u64, from: u64, name: &str) -> Result<Option<u64>> {
    let mut start = from;
    while start + 26 <= size {
        let len = (SEARCH_CHUNK + 26).min(size - start);
        let mut buf = vec![0u8; len as usize];
        source.read_exact_at(&mut buf, start)?;
        for i in 0..(len as usize).saturating_sub(25) {
            let at = start + i as u64;
            if plausible(&buf[i..], at) && key_at(source, size, at, name)?.is_some() {
                return Ok(Some(at));
            }
        }
        start += SEARCH_CHUNK;
    }
    Ok(None)
}

/// A cheap first test of a key header at `at` (`bytes` starts there, at least 26 long): a
/// positive size, a key version of 2 to 4 (1002 to 1004 with 64-bit offsets), and the
/// record's own offset.
fn plausible(bytes: &[u8], at: u64) -> bool {
    let nbytes = i32::from_be_bytes(bytes[0..4].try_into().expect("4"));
    let version = u16::from_be_bytes(bytes[4..6].try_into().expect("2"));
    if nbytes <= 0 {
        return false;
    }
    match version {
        2..=4 => u32::from_be_bytes(bytes[18..22].try_into().expect("4")) as u64 == at,
        1002..=1004 => u64::from_be_bytes(bytes[18..26].try_into().expect("8")) == at,
        _ => false,
    }
}
