//! Little-endian building blocks of RNTuple metadata: frames, strings, locators and
//! checksummed envelopes.

use crate::rntuple::format::checksum::xxh3_64;

/// Envelope type identifiers (the low 16 bits of an envelope's preamble).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u16)]
pub enum EnvelopeType {
    /// The header: schema.
    Header = 0x01,
    /// The footer: cluster groups.
    Footer = 0x02,
    /// A page list: page locations of a cluster group.
    PageList = 0x03,
}

/// Appends little-endian values and RNTuple frames to a byte buffer.
#[derive(Debug, Default)]
pub struct Serializer {
    buf: Vec<u8>,
    open_frames: Vec<(usize, bool)>,
}

impl Serializer {
    /// An empty serializer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a `u16`.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends a `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends an `i32`.
    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends a `u64`.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends an `i64`.
    pub fn i64(&mut self, v: i64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends bytes serialized elsewhere (a frame taken whole from another envelope).
    pub fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(bytes);
        self
    }

    /// Appends a string: `u32` length and the UTF-8 bytes.
    pub fn string(&mut self, s: &str) -> &mut Self {
        self.u32(s.len() as u32);
        self.buf.extend_from_slice(s.as_bytes());
        self
    }

    /// Appends a locator for `size` bytes at absolute `offset`: the standard form when the
    /// size fits in 31 bits, otherwise the "large" form (type 0x01, 64-bit size).
    pub fn locator(&mut self, size: u64, offset: u64) -> &mut Self {
        match i32::try_from(size) {
            Ok(size) => {
                self.i32(size).u64(offset);
            }
            Err(_) => {
                // Non-standard locator: the negated i32 of the locator's own size (4 bytes
                // of head and 16 of payload) in bits 0-15 and the locator type (0x01,
                // large) in bits 24-30.
                let header = (0x01 << 24) | 20;
                self.i32(-header).u64(size).u64(offset);
            }
        }
        self
    }

    /// Appends an envelope link: uncompressed length and the locator of the envelope.
    pub fn envelope_link(&mut self, uncompressed_len: u64, size: u64, offset: u64) -> &mut Self {
        self.u64(uncompressed_len).locator(size, offset)
    }

    /// Opens a record frame; close it with [`Serializer::end_frame`].
    pub fn begin_record(&mut self) -> &mut Self {
        self.open_frames.push((self.buf.len(), false));
        self.i64(0)
    }

    /// Opens a list frame of `items` items; close it with [`Serializer::end_frame`].
    pub fn begin_list(&mut self, items: u32) -> &mut Self {
        self.open_frames.push((self.buf.len(), true));
        self.i64(0).u32(items)
    }

    /// Closes the innermost open frame, writing its size (negative for lists).
    pub fn end_frame(&mut self) -> &mut Self {
        let (start, is_list) = self.open_frames.pop().expect("end_frame without a frame");
        let size = (self.buf.len() - start) as i64;
        let stored = if is_list { -size } else { size };
        self.buf[start..start + 8].copy_from_slice(&stored.to_le_bytes());
        self
    }

    /// The bytes written so far.
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Finishes as a plain byte vector (all frames must be closed).
    pub fn into_bytes(self) -> Vec<u8> {
        assert!(self.open_frames.is_empty(), "unclosed frame");
        self.buf
    }

    /// Finishes as an envelope of type `kind`: preamble (type and total length), the
    /// contents, and the XXH3-64 checksum of preamble and contents. Returns the envelope
    /// and its checksum.
    pub fn into_envelope(self, kind: EnvelopeType) -> (Vec<u8>, u64) {
        let body = self.into_bytes();
        let total = (body.len() + 16) as u64;
        let mut envelope = Vec::with_capacity(total as usize);
        envelope.extend_from_slice(&((total << 16) | kind as u64).to_le_bytes());
        envelope.extend_from_slice(&body);
        let checksum = xxh3_64(&envelope);
        envelope.extend_from_slice(&checksum.to_le_bytes());
        (envelope, checksum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_record_their_size() {
        let mut s = Serializer::new();
        s.begin_list(0).end_frame();
        assert_eq!(
            s.bytes(),
            &[0xf4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]
        );
        let mut s = Serializer::new();
        s.begin_record().u32(7).end_frame();
        assert_eq!(&s.bytes()[..8], &12i64.to_le_bytes());
    }

    #[test]
    fn envelope_has_length_type_and_checksum() {
        let mut s = Serializer::new();
        s.u64(0);
        let (env, checksum) = s.into_envelope(EnvelopeType::Footer);
        assert_eq!(env.len(), 24);
        assert_eq!(
            u64::from_le_bytes(env[..8].try_into().unwrap()),
            (24 << 16) | 2
        );
        assert_eq!(checksum, xxh3_64(&env[..16]));
        assert_eq!(&env[16..], &checksum.to_le_bytes());
    }

    #[test]
    fn large_locator_form() {
        let mut s = Serializer::new();
        s.locator(3_000_000_000, 5);
        let b = s.into_bytes();
        assert_eq!(b.len(), 20);
        assert_eq!(i32::from_le_bytes(b[..4].try_into().unwrap()), -0x0100_0014);
    }
}
