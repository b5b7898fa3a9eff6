//! A basket record as ROOT 6.40 writes it: a big key (64-bit offsets) of class `TBasket`
//! named after the branch and titled after the tree, the basket's own header, and the
//! payload compressed with the branch's setting (stored raw when that is not smaller), the
//! codec choosing its parameters for the basket's size as ROOT's does.

use crate::compress::{
    compress_frames_into, Compression, Frames, BLOCK_HEADER_SIZE, MAX_BLOCK_SIZE,
};
use crate::container::KeyInfo;
use crate::streamer::bytes::BeWrite;

/// Bytes of the basket header that follows the key header.
const BASKET_HEADER_LEN: usize = 2 + 4 + 4 + 4 + 4 + 1;
/// The TBasket class version ROOT 6.40 writes.
const BASKET_VERSION: u16 = 3;
/// The directory baskets belong to (the file's top directory).
const TOP_DIRECTORY: u64 = 100;

/// What a basket holds.
pub(crate) struct BasketContent<'a> {
    /// The branch's name.
    pub branch: &'a str,
    /// The tree's name.
    pub tree: &'a str,
    /// The entries' bytes, big-endian, back to back.
    pub data: &'a [u8],
    /// Number of entries.
    pub entries: usize,
    /// Bytes of each entry; for entries of varying size, the entry-offset table's length
    /// hint (ROOT's `fEntryOffsetLen`).
    pub entry_bytes: usize,
    /// Where each entry starts in `data`, for entries of varying size.
    pub offsets: Option<&'a [u32]>,
    /// The branch's basket size (ROOT's `fBufferSize`).
    pub buffer_size: usize,
}

/// The key length of a basket of branch `branch` of tree `tree` (basket header included).
pub(crate) fn basket_key_len(branch: &str, tree: &str) -> usize {
    KeyInfo::header_len("TBasket", branch, tree, true) + BASKET_HEADER_LEN
}

/// The basket's record (key header, basket header, stored payload), and its key length.
/// Its offset in the file is 0 until [`place_record`] sets it: the size is known only once
/// the payload is compressed.
pub(crate) fn basket_record(
    content: &BasketContent,
    datime: u32,
    compression: Compression,
) -> (Vec<u8>, usize) {
    let keylen = basket_key_len(content.branch, content.tree);
    let table_len = content.offsets.map_or(0, |o| 4 * o.len() + 8);
    // Room for what any codec may write (its worst case, or the payload stored raw), so
    // that compressing never grows the record: growing it copied it into fresh memory,
    // 15% of a 1000-branch write's time.
    let most = content.data.len() + table_len;
    let blocks = most / MAX_BLOCK_SIZE + 1;
    let mut record =
        Vec::with_capacity(keylen + most + most / 128 + blocks * (BLOCK_HEADER_SIZE + 512));
    record.resize(keylen, 0);
    // Entries of varying size: the table of where each starts (from the key's start)
    // follows the data, with one more slot, 0, as ROOT writes it.
    let table;
    let payload = match content.offsets {
        Some(offsets) => {
            let mut p = Vec::with_capacity(content.data.len() + 4 * offsets.len() + 8);
            p.extend_from_slice(content.data);
            p.put_u32(offsets.len() as u32 + 1);
            for &o in offsets {
                p.put_u32(o + keylen as u32);
            }
            p.put_u32(0);
            table = p;
            &table[..]
        }
        None => content.data,
    };
    let stored = compress_frames_into(compression, Frames::Sized, payload, &mut record);
    let mut key = KeyInfo::new(
        "TBasket",
        content.branch,
        content.tree,
        0,
        0,
        TOP_DIRECTORY,
        stored as u64,
        payload.len() as u64,
        true,
        datime,
    );
    key.keylen = keylen as u16;
    key.nbytes = (keylen + stored) as u32;
    let mut header = Vec::with_capacity(keylen);
    key.encode(&mut header);
    header.put_u16(BASKET_VERSION);
    header.put_u32(content.buffer_size as u32);
    header.put_u32(content.entry_bytes as u32); // fNevBufSize
    header.put_u32(content.entries as u32); // fNevBuf
    header.put_u32((keylen + content.data.len()) as u32); // fLast
    header.put_u8(0);
    debug_assert_eq!(header.len(), keylen);
    record[..keylen].copy_from_slice(&header);
    // A record held until its cluster is written takes its size, not its worst case (the
    // parallel writer's budget counts it as that).
    record.shrink_to_fit();
    (record, keylen)
}

/// Where a big key header keeps the record's own offset (`fSeekKey`, after `fNbytes`,
/// `fVersion`, `fObjlen`, `fDatime`, `fKeylen` and `fCycle`).
const SEEK_KEY_AT: usize = 4 + 2 + 4 + 4 + 2 + 2;

/// Sets the offset of a record made by [`basket_record`] to `seek`.
pub(crate) fn place_record(record: &mut [u8], seek: u64) {
    record[SEEK_KEY_AT..SEEK_KEY_AT + 8].copy_from_slice(&seek.to_be_bytes());
}
