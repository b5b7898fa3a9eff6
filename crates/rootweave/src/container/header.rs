//! The file header at offset 0, in its small (32-bit) and large (64-bit) forms.

use crate::error::Result;
use crate::streamer::bytes::{BeReader, BeWrite};

/// Offset of the first record.
pub const BEGIN: u64 = 100;

/// The ROOT version this library writes in the header (6.40.00).
pub const ROOT_VERSION: i32 = 64000;

/// The file header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHeader {
    /// ROOT version that wrote the file (without the +1000000 of the large form).
    pub version: i32,
    /// True for the large form (64-bit offsets).
    pub is_large: bool,
    /// Offset of the first record (100).
    pub begin: u64,
    /// End of the used bytes.
    pub end: u64,
    /// Offset of the free-segments record.
    pub seek_free: u64,
    /// Size of the free-segments record.
    pub nbytes_free: u32,
    /// Number of free segments.
    pub nfree: u32,
    /// Size of the TFile key and its name and title: the top directory follows it.
    pub nbytes_name: u32,
    /// Default compression setting of the file.
    pub compression: i32,
    /// Offset of the StreamerInfo record.
    pub seek_info: u64,
    /// Size of the StreamerInfo record.
    pub nbytes_info: u32,
    /// The file's UUID (16 bytes after its version).
    pub uuid: [u8; 16],
}

impl FileHeader {
    /// The encoded header (without the zero padding up to `begin`).
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(75);
        b.extend_from_slice(b"root");
        b.put_u32((self.version + if self.is_large { 1_000_000 } else { 0 }) as u32);
        b.put_u32(self.begin as u32);
        if self.is_large {
            b.put_u64(self.end);
            b.put_u64(self.seek_free);
        } else {
            b.put_u32(self.end as u32);
            b.put_u32(self.seek_free as u32);
        }
        b.put_u32(self.nbytes_free);
        b.put_u32(self.nfree);
        b.put_u32(self.nbytes_name);
        b.put_u8(if self.is_large { 8 } else { 4 });
        b.put_u32(self.compression as u32);
        if self.is_large {
            b.put_u64(self.seek_info);
        } else {
            b.put_u32(self.seek_info as u32);
        }
        b.put_u32(self.nbytes_info);
        b.put_u16(1);
        b.extend_from_slice(&self.uuid);
        b
    }

    /// Decodes a header from the first bytes of a file.
    pub fn decode(r: &mut BeReader) -> Result<Self> {
        let magic = r.take(4)?;
        if magic != b"root" {
            return Err(r.error("not a ROOT file (the first 4 bytes are not 'root')"));
        }
        let raw_version = r.i32()?;
        let is_large = raw_version >= 1_000_000;
        let begin = r.i32()?;
        let (end, seek_free) = if is_large {
            (r.i64()?, r.i64()?)
        } else {
            (r.i32()? as i64, r.i32()? as i64)
        };
        let nbytes_free = r.i32()?;
        let nfree = r.i32()?;
        let nbytes_name = r.i32()?;
        let _units = r.u8()?;
        let compression = r.i32()?;
        let seek_info = if is_large { r.i64()? } else { r.i32()? as i64 };
        let nbytes_info = r.i32()?;
        let _uuid_version = r.u16()?;
        let uuid: [u8; 16] = r.take(16)?.try_into().expect("16 bytes");
        if begin < 0 || end < begin as i64 || seek_free < 0 || seek_info < 0 || nbytes_name < 0 {
            return Err(r.error(format!(
                "inconsistent header: begin {begin}, end {end}, seek free {seek_free}, seek info {seek_info}"
            )));
        }
        Ok(FileHeader {
            version: raw_version % 1_000_000,
            is_large,
            begin: begin as u64,
            end: end as u64,
            seek_free: seek_free as u64,
            nbytes_free: nbytes_free.max(0) as u32,
            nfree: nfree.max(0) as u32,
            nbytes_name: nbytes_name as u32,
            compression,
            seek_info: seek_info as u64,
            nbytes_info: nbytes_info.max(0) as u32,
            uuid,
        })
    }
}

/// ROOT's TDatime encoding of a time given in seconds since 1970 (UTC).
pub fn datime(unix_seconds: u64) -> u32 {
    let days = unix_seconds / 86_400;
    let secs = unix_seconds % 86_400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = (yoe + era * 400 + if month <= 2 { 1 } else { 0 }) as u32;
    let (hour, minute, second) = (
        (secs / 3600) as u32,
        (secs / 60 % 60) as u32,
        (secs % 60) as u32,
    );
    (year.saturating_sub(1995)) << 26 | month << 22 | day << 17 | hour << 12 | minute << 6 | second
}

/// The TDatime of now.
pub fn datime_now() -> u32 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    datime(secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_header_matches_root_empty_file() {
        // ROOT 6.40's empty file (format notes, section 1.2).
        let h = FileHeader {
            version: 64000,
            is_large: false,
            begin: 100,
            end: 423,
            seek_free: 364,
            nbytes_free: 59,
            nfree: 1,
            nbytes_name: 66,
            compression: 101,
            seek_info: 226,
            nbytes_info: 85,
            uuid: [0; 16],
        };
        let b = h.encode();
        assert_eq!(
            &b[..16],
            &[0x72, 0x6f, 0x6f, 0x74, 0, 0, 0xfa, 0, 0, 0, 0, 0x64, 0, 0, 1, 0xa7]
        );
        assert_eq!(
            &b[16..32],
            &[0, 0, 1, 0x6c, 0, 0, 0, 0x3b, 0, 0, 0, 1, 0, 0, 0, 0x42]
        );
        assert_eq!(b.len(), 63);
        let back = FileHeader::decode(&mut BeReader::new(&b, 0, "f", "file header")).unwrap();
        assert_eq!(back, h);
    }

    #[test]
    fn large_header_round_trips() {
        let h = FileHeader {
            version: 64000,
            is_large: true,
            begin: 100,
            end: 3_000_000_000,
            seek_free: 2_999_999_900,
            nbytes_free: 70,
            nfree: 1,
            nbytes_name: 66,
            compression: 505,
            seek_info: 2_999_999_000,
            nbytes_info: 300,
            uuid: [7; 16],
        };
        let b = h.encode();
        assert_eq!(b.len(), 75);
        assert_eq!(&b[4..8], &1_064_000u32.to_be_bytes());
        let back = FileHeader::decode(&mut BeReader::new(&b, 0, "f", "file header")).unwrap();
        assert_eq!(back, h);
    }

    #[test]
    fn datime_encoding() {
        // 2024-03-05 06:07:08 UTC
        let t = datime(1_709_618_828);
        assert_eq!(t >> 26, 2024 - 1995);
        assert_eq!((t >> 22) & 0xf, 3);
        assert_eq!((t >> 17) & 0x1f, 5);
        assert_eq!((t >> 12) & 0x1f, 6);
        assert_eq!((t >> 6) & 0x3f, 7);
        assert_eq!(t & 0x3f, 8);
    }
}
