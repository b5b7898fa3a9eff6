//! Streaming objects the way ROOT's `TBufferFile` does: big-endian numbers, `TString`s,
//! byte counts filled in when a region ends, objects behind pointers with a new-class tag,
//! and references to objects already streamed in the same buffer.

use super::tags::{BYTE_COUNT_MASK, CLASS_MASK, MAP_OFFSET, NEW_CLASS_TAG};

/// A big-endian buffer streaming objects with ROOT's byte counts.
#[derive(Default)]
pub(crate) struct ObjectStream {
    bytes: Vec<u8>,
    counts: Vec<usize>,
    /// Classes tagged by [`ObjectStream::begin_object_in_record`], and where their tags are.
    class_tags: Vec<(String, usize)>,
}

impl ObjectStream {
    /// The bytes streamed so far.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        debug_assert!(self.counts.is_empty(), "a byte count left open");
        self.bytes
    }

    /// Bytes streamed so far.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    pub(crate) fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    pub(crate) fn u16(&mut self, v: u16) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }
    pub(crate) fn i16(&mut self, v: i16) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }
    pub(crate) fn i32(&mut self, v: i32) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }
    pub(crate) fn i64(&mut self, v: i64) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }
    pub(crate) fn f32(&mut self, v: f32) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }
    pub(crate) fn f64(&mut self, v: f64) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }
    pub(crate) fn raw(&mut self, v: &[u8]) {
        self.bytes.extend_from_slice(v);
    }

    /// A `TString`: a length byte (255 and an `i32` for 255 bytes or more), the bytes.
    pub(crate) fn tstring(&mut self, s: &str) {
        if s.len() < 255 {
            self.u8(s.len() as u8);
        } else {
            self.u8(255);
            self.i32(s.len() as i32);
        }
        self.bytes.extend_from_slice(s.as_bytes());
    }

    /// Starts a byte-counted region (the count is filled by `end`).
    pub(crate) fn begin(&mut self) {
        self.counts.push(self.bytes.len());
        self.u32(0);
    }

    /// Ends the innermost byte-counted region.
    pub(crate) fn end(&mut self) {
        let start = self.counts.pop().expect("begin before end");
        let count = (self.bytes.len() - start - 4) as u32 | BYTE_COUNT_MASK;
        self.bytes[start..start + 4].copy_from_slice(&count.to_be_bytes());
    }

    /// Starts a byte-counted region with a version (a class streamed by its layout).
    pub(crate) fn begin_version(&mut self, version: u16) {
        self.begin();
        self.u16(version);
    }

    /// Starts an object written through a pointer: byte count and new-class tag. Returns
    /// where the object starts (its byte count), for references to it.
    pub(crate) fn begin_object(&mut self, class: &str) -> usize {
        let at = self.bytes.len();
        self.begin();
        self.u32(NEW_CLASS_TAG);
        self.bytes.extend_from_slice(class.as_bytes());
        self.u8(0);
        at
    }

    /// Starts an object written through a pointer, as ROOT does in a keyed record whose
    /// payload starts `displacement` bytes in: the first object of a class spells the
    /// class name, later ones refer back to that tag. Returns where the object starts.
    pub(crate) fn begin_object_in_record(&mut self, class: &str, displacement: usize) -> usize {
        let at = self.bytes.len();
        self.begin();
        match self.class_tags.iter().find(|(c, _)| c == class) {
            Some(&(_, tag)) => self.u32(CLASS_MASK | ((tag + displacement) as u32 + MAP_OFFSET)),
            None => {
                self.class_tags.push((class.to_string(), self.bytes.len()));
                self.u32(NEW_CLASS_TAG);
                self.bytes.extend_from_slice(class.as_bytes());
                self.u8(0);
            }
        }
        at
    }

    /// A pointer to an object streamed before at `at` (from [`ObjectStream::begin_object`])
    /// in a buffer whose first byte sits `displacement` bytes into its record (the key
    /// length, for an object of a key): ROOT's reference tag.
    pub(crate) fn reference(&mut self, at: usize, displacement: usize) {
        // ROOT's kMapOffset (2) is added to positions in the record.
        self.u32((at + displacement + 2) as u32);
    }

    /// A null pointer.
    pub(crate) fn null(&mut self) {
        self.u32(0);
    }

    /// The `TObject` part of an object: version 1, unique ID 0, `bits`.
    pub(crate) fn tobject(&mut self, bits: u32) {
        self.u16(1);
        self.u32(0);
        self.u32(bits);
    }

    /// A `TNamed` base: byte count, version 1, the `TObject`, name and title.
    pub(crate) fn tnamed(&mut self, name: &str, title: &str, bits: u32) {
        self.begin();
        self.u16(1);
        self.tobject(bits);
        self.tstring(name);
        self.tstring(title);
        self.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_cover_their_regions() {
        let mut b = ObjectStream::default();
        b.begin_version(3);
        let at = b.begin_object("TX");
        b.end();
        b.reference(at, 10);
        b.end();
        assert_eq!(
            b.into_bytes(),
            [
                0x40, 0, 0, 0x11, 0, 3, 0x40, 0, 0, 7, 0xff, 0xff, 0xff, 0xff, b'T', b'X', 0, 0, 0,
                0, 18
            ]
        );
    }
}
