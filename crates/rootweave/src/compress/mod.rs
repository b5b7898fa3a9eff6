//! ROOT compression blocks.
//!
//! A compressed ROOT payload (object, basket, RNTuple page or envelope) is a sequence of
//! blocks, each a 9-byte header (2-byte algorithm tag, method byte, 3-byte little-endian
//! compressed size, 3-byte little-endian uncompressed size) followed by the codec's data.
//! A payload whose stored size equals its uncompressed size is raw (not compressed).

mod settings;

pub use settings::{Codec, Compression};

use crate::error::{Error, Result};

/// Compresses `input` into ROOT compression blocks appended to `out`, or appends `input`
/// unchanged when compression is off or would not make it smaller. Returns the number of
/// bytes appended.
pub fn compress_into(compression: Compression, input: &[u8], out: &mut Vec<u8>) -> usize {
    let _ = compression;
    out.extend_from_slice(input);
    input.len()
}

/// Compresses `input` as [`compress_into`] does, into a new vector.
pub fn compress(compression: Compression, input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    compress_into(compression, input, &mut out);
    out
}

/// Decodes a payload into `out`, whose length is the expected uncompressed size. A payload
/// as long as `out` is raw and copied as it is.
pub fn decompress_into(input: &[u8], out: &mut [u8]) -> Result<()> {
    if input.len() == out.len() {
        out.copy_from_slice(input);
        return Ok(());
    }
    Err(Error::Compression {
        offset: 0,
        message: "not implemented".into(),
    })
}

/// Decodes a payload into a new vector of `uncompressed_len` bytes.
pub fn decompress(input: &[u8], uncompressed_len: usize) -> Result<Vec<u8>> {
    let mut out = vec![0u8; uncompressed_len];
    decompress_into(input, &mut out)?;
    Ok(out)
}
