//! The TDirectory record and the keys list of a directory.

use super::key::KeyInfo;
use crate::error::Result;
use crate::streamer::bytes::{BeReader, BeWrite};

/// Size of a directory record (both forms: the small one pads 12 bytes).
pub const DIRECTORY_LEN: usize = 60;

/// A directory record: where its keys list is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directory {
    /// Creation time.
    pub datime_created: u32,
    /// Modification time.
    pub datime_modified: u32,
    /// Size of the keys-list record.
    pub nbytes_keys: u32,
    /// Size of the directory's key (and, for the top directory, the TNamed strings).
    pub nbytes_name: u32,
    /// Offset of the directory's own record.
    pub seek_dir: u64,
    /// Offset of the parent directory (0 for the top directory).
    pub seek_parent: u64,
    /// Offset of the keys-list record.
    pub seek_keys: u64,
    /// The directory's UUID.
    pub uuid: [u8; 16],
}

impl Directory {
    /// Appends the record, with 64-bit offsets if `large`.
    pub fn encode(&self, large: bool, out: &mut Vec<u8>) {
        let start = out.len();
        out.put_u16(if large { 1005 } else { 5 });
        out.put_u32(self.datime_created);
        out.put_u32(self.datime_modified);
        out.put_u32(self.nbytes_keys);
        out.put_u32(self.nbytes_name);
        if large {
            out.put_u64(self.seek_dir);
            out.put_u64(self.seek_parent);
            out.put_u64(self.seek_keys);
        } else {
            out.put_u32(self.seek_dir as u32);
            out.put_u32(self.seek_parent as u32);
            out.put_u32(self.seek_keys as u32);
        }
        out.put_u16(1);
        out.extend_from_slice(&self.uuid);
        out.resize(start + DIRECTORY_LEN, 0);
    }

    /// Decodes a directory record.
    pub fn decode(r: &mut BeReader) -> Result<Self> {
        let version = r.u16()?;
        let datime_created = r.u32()?;
        let datime_modified = r.u32()?;
        let nbytes_keys = r.i32()?;
        let nbytes_name = r.i32()?;
        let (seek_dir, seek_parent, seek_keys) = if version > 1000 {
            (r.i64()?, r.i64()?, r.i64()?)
        } else {
            (r.i32()? as i64, r.i32()? as i64, r.i32()? as i64)
        };
        if nbytes_keys < 0 || nbytes_name < 0 || seek_dir < 0 || seek_parent < 0 || seek_keys < 0 {
            return Err(r.error("directory record has a negative size or offset"));
        }
        let mut uuid = [0u8; 16];
        if version % 1000 > 1 && r.remaining() >= 18 {
            r.u16()?;
            uuid.copy_from_slice(r.take(16)?);
        }
        Ok(Directory {
            datime_created,
            datime_modified,
            nbytes_keys: nbytes_keys as u32,
            nbytes_name: nbytes_name as u32,
            seek_dir: seek_dir as u64,
            seek_parent: seek_parent as u64,
            seek_keys: seek_keys as u64,
            uuid,
        })
    }
}

/// The payload of a keys-list record: the number of keys and a copy of each key header.
pub fn encode_keys_list(keys: &[KeyInfo]) -> Vec<u8> {
    let mut out = Vec::new();
    out.put_u32(keys.len() as u32);
    for k in keys {
        k.encode(&mut out);
    }
    out
}

/// Decodes a keys-list payload (the part after the record's own key header).
pub fn decode_keys_list(r: &mut BeReader) -> Result<Vec<KeyInfo>> {
    let n = r.i32()?;
    // The smallest key header is 26 bytes plus three empty strings.
    if n < 0 || n as usize > r.remaining() / 29 {
        return Err(r.error(format!(
            "keys list claims {n} keys but has room for at most {}",
            r.remaining() / 29
        )));
    }
    (0..n).map(|_| KeyInfo::decode(r)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_records_round_trip_in_60_bytes() {
        let d = Directory {
            datime_created: 1,
            datime_modified: 2,
            nbytes_keys: 53,
            nbytes_name: 66,
            seek_dir: 100,
            seek_parent: 0,
            seek_keys: 2_500_000_000,
            uuid: [3; 16],
        };
        for large in [false, true] {
            let mut b = Vec::new();
            let mut d = d.clone();
            if !large {
                d.seek_keys = 311;
            }
            d.encode(large, &mut b);
            assert_eq!(b.len(), DIRECTORY_LEN);
            let back = Directory::decode(&mut BeReader::new(&b, 0, "f", "dir")).unwrap();
            assert_eq!(back, d);
        }
    }

    #[test]
    fn absurd_key_counts_are_refused() {
        let mut b = Vec::new();
        b.put_u32(1_000_000);
        b.extend_from_slice(&[0; 100]);
        assert!(decode_keys_list(&mut BeReader::new(&b, 0, "f", "keys list")).is_err());
    }
}
