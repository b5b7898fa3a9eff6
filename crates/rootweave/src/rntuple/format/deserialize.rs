//! A bounds-checked little-endian cursor over RNTuple envelopes, with frames.
//!
//! Every read checks the remaining length first; errors name the file, the object and the
//! absolute byte offset where the envelope was read from, so a corrupt envelope never
//! panics or reads past its end.

use super::locations::EnvelopeLocation;
use crate::error::{Error, Result};

/// Where an envelope came from, for error messages.
#[derive(Debug, Clone, Copy)]
pub struct Origin<'a> {
    /// The file name.
    pub file: &'a str,
    /// The object being decoded (e.g. "RNTuple 'Events' header").
    pub object: &'a str,
    /// Absolute file offset of byte 0 of the buffer (of its compressed form when the
    /// envelope was compressed: offsets inside it are then approximate).
    pub base: u64,
}

/// A cursor over a little-endian buffer.
#[derive(Debug, Clone)]
pub struct LeReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Where the current frame ends (reads past it fail).
    end: usize,
    origin: Origin<'a>,
}

/// A frame that has been entered: where it ends and, for lists, how many items it has.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    end: usize,
    outer_end: usize,
    /// Number of items of a list frame (`None` for a record frame).
    pub items: Option<u32>,
}

impl<'a> LeReader<'a> {
    /// A cursor at the start of `bytes`.
    pub fn new(bytes: &'a [u8], origin: Origin<'a>) -> Self {
        LeReader {
            bytes,
            pos: 0,
            end: bytes.len(),
            origin,
        }
    }

    /// An error at the current position.
    pub fn error(&self, message: impl Into<String>) -> Error {
        Error::format(
            self.origin.file,
            self.origin.object,
            self.origin.base + self.pos as u64,
            message,
        )
    }

    /// Bytes left before the end of the current frame.
    pub fn remaining(&self) -> usize {
        self.end - self.pos
    }

    /// The position in the buffer.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Takes `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(format!(
                "{n} bytes needed but only {} remain",
                self.remaining()
            )));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    /// Reads a `u16`.
    pub fn u16(&mut self) -> Result<u16> {
        self.array().map(u16::from_le_bytes)
    }

    /// Reads a `u32`.
    pub fn u32(&mut self) -> Result<u32> {
        self.array().map(u32::from_le_bytes)
    }

    /// Reads an `i32`.
    pub fn i32(&mut self) -> Result<i32> {
        self.array().map(i32::from_le_bytes)
    }

    /// Reads a `u64`.
    pub fn u64(&mut self) -> Result<u64> {
        self.array().map(u64::from_le_bytes)
    }

    /// Reads an `i64`.
    pub fn i64(&mut self) -> Result<i64> {
        self.array().map(i64::from_le_bytes)
    }

    /// Reads an `f64`.
    pub fn f64(&mut self) -> Result<f64> {
        self.array().map(f64::from_le_bytes)
    }

    /// Reads a string: `u32` length and UTF-8 bytes.
    pub fn string(&mut self) -> Result<String> {
        let len = self.u32()? as usize;
        let at = self.pos;
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| {
            Error::format(
                self.origin.file,
                self.origin.object,
                self.origin.base + at as u64,
                "string is not UTF-8",
            )
        })
    }

    /// Reads feature flags (continuing while the value is negative) and fails on any bit
    /// this reader does not know (none are defined in format 1.0).
    pub fn feature_flags(&mut self) -> Result<()> {
        loop {
            let flags = self.u64()?;
            if flags & 0x7FFF_FFFF_FFFF_FFFF != 0 {
                return Err(self.error(format!(
                    "unknown feature flags {flags:#x}: written by a newer format version"
                )));
            }
            if (flags as i64) >= 0 {
                return Ok(());
            }
        }
    }

    /// Enters a frame: reads its size (and item count for lists) and limits reads to it.
    pub fn begin_frame(&mut self) -> Result<Frame> {
        let start = self.pos;
        let size = self.i64()?;
        let is_list = size < 0;
        let len = size.unsigned_abs();
        let header = if is_list { 12 } else { 8 };
        if len < header || len > (self.end - start) as u64 {
            self.pos = start;
            return Err(self.error(format!(
                "frame of {len} bytes does not fit in the {} bytes that remain",
                self.end - start
            )));
        }
        let items = if is_list { Some(self.u32()?) } else { None };
        let frame = Frame {
            end: start + len as usize,
            outer_end: self.end,
            items,
        };
        self.end = frame.end;
        Ok(frame)
    }

    /// Enters a list frame and returns its item count, bounded by the bytes it holds (an
    /// item takes at least `min_item_bytes`), so a corrupt count cannot make a caller
    /// allocate more than the envelope justifies.
    pub fn begin_list(&mut self, min_item_bytes: usize) -> Result<(Frame, usize)> {
        let frame = self.begin_frame()?;
        let Some(items) = frame.items else {
            return Err(self.error("a list frame was expected, found a record frame"));
        };
        if (items as usize).saturating_mul(min_item_bytes.max(1)) > self.remaining() {
            return Err(self.error(format!(
                "list of {items} items does not fit in its {} bytes",
                self.remaining()
            )));
        }
        Ok((frame, items as usize))
    }

    /// Enters a record frame.
    pub fn begin_record(&mut self) -> Result<Frame> {
        let frame = self.begin_frame()?;
        if frame.items.is_some() {
            return Err(self.error("a record frame was expected, found a list frame"));
        }
        Ok(frame)
    }

    /// Leaves a frame, skipping what this reader did not read of it (later format
    /// versions may append members).
    pub fn end_frame(&mut self, frame: Frame) {
        self.pos = frame.end;
        self.end = frame.outer_end;
    }

    /// Reads a locator: `(size, offset)` of a byte range in the file.
    pub fn locator(&mut self) -> Result<(u64, u64)> {
        let head = self.i32()?;
        if head >= 0 {
            let offset = self.u64()?;
            return Ok((head as u64, offset));
        }
        // Non-standard locator: the negated head holds the locator's own size (head
        // included) in bits 0-15 and its type in bits 24-30.
        let head = head.unsigned_abs();
        let len = (head & 0xFFFF) as usize;
        let kind = (head >> 24) & 0x7F;
        if kind != 0x01 || len < 20 {
            return Err(self.error(format!("unsupported locator type {kind:#x} ({len} bytes)")));
        }
        let size = self.u64()?;
        let offset = self.u64()?;
        // Skip any payload this reader does not know.
        self.take(len - 20)?;
        Ok((size, offset))
    }

    /// Reads an envelope link: uncompressed length, then a locator.
    pub fn envelope_link(&mut self) -> Result<EnvelopeLocation> {
        let uncompressed_len = self.u64()?;
        let (size, offset) = self.locator()?;
        Ok(EnvelopeLocation {
            uncompressed_len,
            size,
            offset,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rntuple::format::serialize::Serializer;

    fn origin() -> Origin<'static> {
        Origin {
            file: "f",
            object: "o",
            base: 100,
        }
    }

    #[test]
    fn frames_bound_reads_and_skip_unknown_members() {
        let mut s = Serializer::new();
        s.begin_record().u32(7).u32(8).end_frame().u16(9);
        let bytes = s.into_bytes();
        let mut r = LeReader::new(&bytes, origin());
        let f = r.begin_record().unwrap();
        assert_eq!(r.u32().unwrap(), 7);
        r.end_frame(f);
        assert_eq!(r.u16().unwrap(), 9);
        assert!(r.u16().is_err());
    }

    #[test]
    fn corrupt_list_counts_are_refused() {
        let mut s = Serializer::new();
        s.begin_list(1_000_000).end_frame();
        let bytes = s.into_bytes();
        let err = LeReader::new(&bytes, origin()).begin_list(4).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("f: malformed o at byte offset 112"), "{text}");
        assert!(text.contains("1000000 items"), "{text}");
    }

    #[test]
    fn large_locators_round_trip() {
        let mut s = Serializer::new();
        s.locator(3_000_000_000, 5).locator(12, 99);
        let bytes = s.into_bytes();
        let mut r = LeReader::new(&bytes, origin());
        assert_eq!(r.locator().unwrap(), (3_000_000_000, 5));
        assert_eq!(r.locator().unwrap(), (12, 99));
    }
}
