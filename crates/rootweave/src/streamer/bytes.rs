//! Big-endian encoding of the classic ROOT container: a writer that appends values, and a
//! bounds-checked cursor whose errors name the file, the object and the absolute offset.

use crate::error::{Error, Result};

/// Appends big-endian values to a byte vector.
pub trait BeWrite {
    /// Appends a `u8`.
    fn put_u8(&mut self, v: u8);
    /// Appends a big-endian `u16`.
    fn put_u16(&mut self, v: u16);
    /// Appends a big-endian `u32`.
    fn put_u32(&mut self, v: u32);
    /// Appends a big-endian `u64`.
    fn put_u64(&mut self, v: u64);
    /// Appends a ROOT string: one length byte (or 255 and a 32-bit length) and the bytes.
    fn put_tstring(&mut self, s: &str);
}

impl BeWrite for Vec<u8> {
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_be_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_be_bytes());
    }
    fn put_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_be_bytes());
    }
    fn put_tstring(&mut self, s: &str) {
        if s.len() < 255 {
            self.put_u8(s.len() as u8);
        } else {
            self.put_u8(255);
            self.put_u32(s.len() as u32);
        }
        self.extend_from_slice(s.as_bytes());
    }
}

/// Bytes taken by a ROOT string.
pub fn tstring_len(s: &str) -> usize {
    if s.len() < 255 {
        1 + s.len()
    } else {
        5 + s.len()
    }
}

/// A cursor over bytes read from `file` at absolute offset `base`, describing `object`.
#[derive(Debug, Clone)]
pub struct BeReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: u64,
    file: &'a str,
    object: &'a str,
}

impl<'a> BeReader<'a> {
    /// A cursor at the start of `bytes`, which were read at `base` in `file`.
    pub fn new(bytes: &'a [u8], base: u64, file: &'a str, object: &'a str) -> Self {
        BeReader {
            bytes,
            pos: 0,
            base,
            file,
            object,
        }
    }

    /// Current position relative to the start of the bytes.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Absolute file offset of the current position.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// An error about the current position.
    pub fn error(&self, message: impl Into<String>) -> Error {
        Error::format(self.file, self.object, self.offset(), message)
    }

    /// Takes the next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(format!(
                "needs {n} more bytes, only {} are there",
                self.remaining()
            )));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Reads a `u8`.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    /// Reads a big-endian `u16`.
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(
            self.take(2)?.try_into().expect("2 bytes"),
        ))
    }
    /// Reads a big-endian `i16`.
    pub fn i16(&mut self) -> Result<i16> {
        Ok(self.u16()? as i16)
    }
    /// Reads a big-endian `u32`.
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    /// Reads a big-endian `i32`.
    pub fn i32(&mut self) -> Result<i32> {
        Ok(self.u32()? as i32)
    }
    /// Reads a big-endian `u64`.
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_be_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    /// Reads a big-endian `i64`.
    pub fn i64(&mut self) -> Result<i64> {
        Ok(self.u64()? as i64)
    }
    /// Reads a ROOT string (invalid UTF-8 is replaced).
    pub fn tstring(&mut self) -> Result<String> {
        let mut len = self.u8()? as usize;
        if len == 255 {
            len = self.u32()? as usize;
        }
        Ok(String::from_utf8_lossy(self.take(len)?).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_round_trip_and_reads_are_checked() {
        let long = "x".repeat(300);
        let mut b = Vec::new();
        b.put_tstring("abc");
        b.put_tstring(&long);
        b.put_u32(7);
        assert_eq!(b.len(), tstring_len("abc") + tstring_len(&long) + 4);
        let mut r = BeReader::new(&b, 1000, "f.root", "thing");
        assert_eq!(r.tstring().unwrap(), "abc");
        assert_eq!(r.tstring().unwrap(), long);
        assert_eq!(r.u32().unwrap(), 7);
        let err = r.u8().unwrap_err().to_string();
        assert!(
            err.contains("f.root")
                && err.contains("thing")
                && err.contains(&format!("{}", 1000 + b.len()))
        );
    }
}
