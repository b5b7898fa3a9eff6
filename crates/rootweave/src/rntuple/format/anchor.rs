//! The anchor: the `ROOT::RNTuple` object in the file's directory, pointing at the header
//! and footer envelopes, streamed big-endian with an XXH3 checksum (class version 2).

use super::checksum::xxh3_64;
use super::locations::EnvelopeLocation;
use crate::error::{Error, Result};
use crate::streamer::tags::BYTE_COUNT_MASK;

/// Anchor version written by this library: format 1.0.2.0, as ROOT 6.40 writes. Since
/// 1.0.1.0 the footer ends with a (possibly empty) list of attribute sets, and readers
/// such as uproot choose the footer layout from this version, so the two must agree.
pub const ANCHOR_VERSION: [u16; 4] = [1, 0, 2, 0];

/// The anchor: the `ROOT::RNTuple` object (class version 2) pointing at header and footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    /// Format version: epoch, major, minor, patch.
    pub version: [u16; 4],
    /// Where the header envelope is.
    pub header: EnvelopeLocation,
    /// Where the footer envelope is.
    pub footer: EnvelopeLocation,
    /// Largest key size; larger blobs are split (0: never split).
    pub max_key_size: u64,
}

/// Size of the streamed anchor object.
pub const ANCHOR_SIZE: usize = 78;

impl Anchor {
    /// Decodes the `ROOT::RNTuple` object (big-endian, class version 2, XXH3 checksum).
    pub fn decode(bytes: &[u8], file: &str, object: &str, offset: u64) -> Result<Self> {
        let err = |at: usize, m: String| Error::format(file, object, offset + at as u64, m);
        if bytes.len() < ANCHOR_SIZE {
            return Err(err(
                0,
                format!(
                    "the anchor has {} bytes, {ANCHOR_SIZE} expected",
                    bytes.len()
                ),
            ));
        }
        let class_version = u16::from_be_bytes([bytes[4], bytes[5]]);
        if class_version != 2 {
            return Err(err(
                4,
                format!("anchor class version {class_version}: only the RNTuple 1.x anchor (version 2) is supported"),
            ));
        }
        let u16_at = |i: usize| u16::from_be_bytes([bytes[i], bytes[i + 1]]);
        let u64_at = |i: usize| u64::from_be_bytes(bytes[i..i + 8].try_into().expect("8"));
        let version = [u16_at(6), u16_at(8), u16_at(10), u16_at(12)];
        if version[0] != 1 {
            return Err(err(
                6,
                format!(
                    "RNTuple format epoch {} (version {}.{}.{}.{}): only epoch 1 is supported",
                    version[0], version[0], version[1], version[2], version[3]
                ),
            ));
        }
        let stored = u64_at(70);
        let computed = xxh3_64(&bytes[6..70]);
        if stored != computed {
            return Err(err(70, "anchor checksum mismatch".into()));
        }
        let link = |at: usize| EnvelopeLocation {
            offset: u64_at(at),
            size: u64_at(at + 8),
            uncompressed_len: u64_at(at + 16),
        };
        Ok(Anchor {
            version,
            header: link(14),
            footer: link(38),
            max_key_size: u64_at(62),
        })
    }

    /// Streams the anchor (big-endian, with its XXH3 checksum over the fields).
    pub fn to_bytes(&self) -> [u8; ANCHOR_SIZE] {
        let mut b = Vec::with_capacity(ANCHOR_SIZE);
        // Byte count (version + 64 bytes of fields) with ROOT's byte-count flag.
        b.extend_from_slice(&(BYTE_COUNT_MASK | 66).to_be_bytes());
        b.extend_from_slice(&2u16.to_be_bytes());
        for v in self.version {
            b.extend_from_slice(&v.to_be_bytes());
        }
        for v in [
            self.header.offset,
            self.header.size,
            self.header.uncompressed_len,
            self.footer.offset,
            self.footer.size,
            self.footer.uncompressed_len,
            self.max_key_size,
        ] {
            b.extend_from_slice(&v.to_be_bytes());
        }
        let checksum = xxh3_64(&b[6..]);
        b.extend_from_slice(&checksum.to_be_bytes());
        b.try_into().expect("anchor is 78 bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_matches_root_bytes() {
        // Anchor of an uncompressed ROOT 6.40 file (format notes, section 3.1), with the
        // version set to that file's 1.0.2.0.
        let anchor = Anchor {
            version: ANCHOR_VERSION,
            header: EnvelopeLocation {
                offset: 0x11c,
                size: 0x509,
                uncompressed_len: 0x509,
            },
            footer: EnvelopeLocation {
                offset: 0xaa3,
                size: 0xa0,
                uncompressed_len: 0xa0,
            },
            max_key_size: 0x4000_0000,
        };
        let bytes = anchor.to_bytes();
        assert_eq!(&bytes[..6], &[0x40, 0, 0, 0x42, 0, 2]);
        assert_eq!(&bytes[6..14], &[0, 1, 0, 0, 0, 2, 0, 0]);
        assert_eq!(
            &bytes[70..],
            &[0xd8, 0xb4, 0xf8, 0x77, 0xd2, 0xb0, 0xac, 0xc9]
        );
    }

    #[test]
    fn decode_reads_back_what_to_bytes_writes() {
        let anchor = Anchor {
            version: ANCHOR_VERSION,
            header: EnvelopeLocation {
                offset: 1,
                size: 2,
                uncompressed_len: 3,
            },
            footer: EnvelopeLocation {
                offset: 4,
                size: 5,
                uncompressed_len: 6,
            },
            max_key_size: 7,
        };
        let bytes = anchor.to_bytes();
        assert_eq!(Anchor::decode(&bytes, "f", "anchor", 0).unwrap(), anchor);
        let mut bad = bytes;
        bad[20] ^= 1;
        let err = Anchor::decode(&bad, "f", "anchor", 100)
            .unwrap_err()
            .to_string();
        assert!(err.contains("checksum") && err.contains("170"), "{err}");
    }
}
