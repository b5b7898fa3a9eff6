//! TKey: the header in front of every record of a ROOT file.

use crate::error::Result;
use crate::streamer::bytes::{tstring_len, BeReader, BeWrite};

/// Pointers at or beyond this offset need the 64-bit ("big") forms of the records.
pub const START_BIG_FILE: u64 = 2_000_000_000;

/// TKey class version of small keys; big keys add 1000.
const KEY_VERSION: u16 = 4;

/// The position in `keys` of object `name`'s key of cycle `cycle`, or of its highest
/// cycle (as readers and `TDirectory::Delete` choose).
pub(crate) fn find_cycle(keys: &[KeyInfo], name: &str, cycle: Option<u16>) -> Option<usize> {
    keys.iter()
        .enumerate()
        .filter(|(_, k)| k.name == name && cycle.is_none_or(|c| k.cycle == c))
        .max_by_key(|(_, k)| k.cycle)
        .map(|(i, _)| i)
}

/// A key header: where a record is, what it holds and how big it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    /// Class of the object (e.g. `ROOT::RNTuple`, `TTree`, `RBlob`).
    pub class_name: String,
    /// Object name.
    pub name: String,
    /// Object title.
    pub title: String,
    /// Cycle number.
    pub cycle: u16,
    /// Bytes on disk: key header and (possibly compressed) payload.
    pub nbytes: u32,
    /// Uncompressed payload size.
    pub objlen: u32,
    /// Size of the key header.
    pub keylen: u16,
    /// Offset of the record (the key header itself).
    pub seek_key: u64,
    /// Offset of the directory that owns the record.
    pub seek_pdir: u64,
    /// Date and time, in ROOT's TDatime encoding.
    pub datime: u32,
    /// Key class version: 4, or 1004 for a big key (64-bit offsets).
    pub version: u16,
}

impl KeyInfo {
    /// A key for `payload_len` stored bytes of a `objlen`-byte object at `seek_key`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        class_name: &str,
        name: &str,
        title: &str,
        cycle: u16,
        seek_key: u64,
        seek_pdir: u64,
        payload_len: u64,
        objlen: u64,
        big: bool,
        datime: u32,
    ) -> Self {
        let keylen = Self::header_len(class_name, name, title, big) as u16;
        KeyInfo {
            class_name: class_name.to_string(),
            name: name.to_string(),
            title: title.to_string(),
            cycle,
            nbytes: (keylen as u64 + payload_len) as u32,
            objlen: objlen as u32,
            keylen,
            seek_key,
            seek_pdir,
            datime,
            version: if big { KEY_VERSION + 1000 } else { KEY_VERSION },
        }
    }

    /// Size of a key header with these strings.
    pub fn header_len(class_name: &str, name: &str, title: &str, big: bool) -> usize {
        (if big { 34 } else { 26 })
            + tstring_len(class_name)
            + tstring_len(name)
            + tstring_len(title)
    }

    /// True if the key uses 64-bit offsets.
    pub fn is_big(&self) -> bool {
        self.version > 1000
    }

    /// True if the payload is compressed (its stored size differs from `objlen`).
    pub fn is_compressed(&self) -> bool {
        self.nbytes as u64 - self.keylen as u64 != self.objlen as u64
    }

    /// Absolute offset of the payload.
    pub fn payload_offset(&self) -> u64 {
        self.seek_key + self.keylen as u64
    }

    /// How errors inside this key's object name it and where their offsets count from:
    /// `object` and the payload's file offset for a payload stored as it is; for a
    /// compressed one, `object` said to be the record decompressed from this key, with
    /// offsets counted from the record's start (they are not file positions).
    pub fn record_label(&self, object: &str) -> (String, u64) {
        if self.is_compressed() {
            let label = format!(
                "{object} (its record decompressed from the key at byte {}; offsets within the record)",
                self.seek_key
            );
            (label, 0)
        } else {
            (object.to_string(), self.payload_offset())
        }
    }

    /// Stored payload size.
    pub fn payload_len(&self) -> u64 {
        (self.nbytes as u64).saturating_sub(self.keylen as u64)
    }

    /// Appends the encoded header.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.put_u32(self.nbytes);
        out.put_u16(self.version);
        out.put_u32(self.objlen);
        out.put_u32(self.datime);
        out.put_u16(self.keylen);
        out.put_u16(self.cycle);
        if self.is_big() {
            out.put_u64(self.seek_key);
            out.put_u64(self.seek_pdir);
        } else {
            out.put_u32(self.seek_key as u32);
            out.put_u32(self.seek_pdir as u32);
        }
        out.put_tstring(&self.class_name);
        out.put_tstring(&self.name);
        out.put_tstring(&self.title);
    }

    /// Decodes the key at the start of `bytes`, read from `offset` of the file named
    /// `file` (for error messages).
    pub fn from_bytes(bytes: &[u8], offset: u64, file: &str) -> Result<Self> {
        Self::decode(&mut BeReader::new(bytes, offset, file, "key"))
    }

    /// Decodes a header and checks its sizes are consistent.
    pub(crate) fn decode(r: &mut BeReader) -> Result<Self> {
        let start = r.position();
        let nbytes = r.i32()?;
        let version = r.u16()?;
        let objlen = r.i32()?;
        let datime = r.u32()?;
        let keylen = r.i16()?;
        let cycle = r.u16()?;
        let big = version > 1000;
        let (seek_key, seek_pdir) = if big {
            (r.i64()?, r.i64()?)
        } else {
            (r.i32()? as i64, r.i32()? as i64)
        };
        let class_name = r.tstring()?;
        let name = r.tstring()?;
        let title = r.tstring()?;
        let read = (r.position() - start) as i64;
        if nbytes < 0 || objlen < 0 || seek_key < 0 || seek_pdir < 0 {
            return Err(r.error(format!(
                "key '{name}' has a negative size or offset (nbytes {nbytes}, objlen {objlen}, seek {seek_key})"
            )));
        }
        // A key length shorter than the header read is accepted, as ROOT does: a keys
        // list may hold a longer header than the key itself (its object still starts
        // `keylen` bytes into the record).
        if keylen < 0 || keylen as i64 > nbytes as i64 {
            return Err(r.error(format!(
                "key '{name}' has key length {keylen} (its header takes {read} bytes) in a {nbytes}-byte record"
            )));
        }
        Ok(KeyInfo {
            class_name,
            name,
            title,
            cycle,
            nbytes: nbytes as u32,
            objlen: objlen as u32,
            keylen: keylen as u16,
            seek_key: seek_key as u64,
            seek_pdir: seek_pdir as u64,
            datime,
            version,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_big_keys_round_trip() {
        for big in [false, true] {
            let key = KeyInfo::new(
                "ROOT::RNTuple",
                "ntpl",
                "",
                1,
                0xb43,
                100,
                78,
                78,
                big,
                0x7eec9773,
            );
            let mut b = Vec::new();
            key.encode(&mut b);
            assert_eq!(b.len(), key.keylen as usize);
            let decoded = KeyInfo::decode(&mut BeReader::new(&b, 0, "f", "k")).unwrap();
            assert_eq!(decoded, key);
        }
    }

    #[test]
    fn anchor_key_matches_root_bytes() {
        // A ROOT 6.40 anchor key (format notes, section 3.1), datime aside.
        let key = KeyInfo::new("ROOT::RNTuple", "ntpl", "", 1, 0xb43, 100, 78, 78, true, 0);
        let mut b = Vec::new();
        key.encode(&mut b);
        assert_eq!(&b[..10], &[0, 0, 0, 0x84, 0x03, 0xec, 0, 0, 0, 0x4e]);
        assert_eq!(&b[14..18], &[0, 0x36, 0, 1]);
    }
}
