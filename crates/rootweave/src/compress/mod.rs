//! ROOT compression blocks.
//!
//! A compressed ROOT payload (object, basket, RNTuple page or envelope) is a sequence of
//! blocks, each a 9-byte header (2-byte algorithm tag, method byte, 3-byte little-endian
//! compressed size, 3-byte little-endian uncompressed size) followed by the codec's data.
//! A payload whose stored size equals its uncompressed size is raw (not compressed).

mod block;
mod codecs;
mod deflate_noise;
mod deflate_streams;
mod liblzma_encoder;
#[cfg(test)]
mod library_symbols;
mod lz4hc;
mod lzma_coder;
mod lzma_literals;
mod noise;
mod settings;
#[cfg(test)]
mod test_pages;
mod xz;
mod zstd_literals;

pub use block::{parse_block_header, BlockHeader, BLOCK_HEADER_SIZE, MAX_BLOCK_SIZE};
pub use settings::{Codec, Compression, Frames};

use crate::error::{Error, Result};

/// Inputs shorter than this are never compressed (ROOT does the same: a block header
/// and a codec frame cannot make them smaller).
const MIN_COMPRESSIBLE: usize = 16;

/// Compresses `input` into ROOT compression blocks appended to `out`, or appends `input`
/// unchanged when compression is off or would not make it smaller. Returns the number of
/// bytes appended.
pub fn compress_into(compression: Compression, input: &[u8], out: &mut Vec<u8>) -> usize {
    compress_frames_into(compression, Frames::Pages, input, out)
}

/// Compresses `input` as [`compress_into`] does, the codec choosing its parameters for
/// each frame as `frames` says.
pub fn compress_frames_into(
    compression: Compression,
    frames: Frames,
    input: &[u8],
    out: &mut Vec<u8>,
) -> usize {
    let start = out.len();
    if !compression.is_none() && input.len() >= MIN_COMPRESSIBLE {
        let mut all_smaller = true;
        for chunk in input.chunks(MAX_BLOCK_SIZE) {
            if !codecs::compress_block(compression, frames, chunk, out) {
                all_smaller = false;
                break;
            }
        }
        // Readers tell raw payloads by their length: a compressed payload must be shorter.
        if all_smaller && out.len() - start < input.len() {
            return out.len() - start;
        }
        out.truncate(start);
    }
    out.extend_from_slice(input);
    input.len()
}

/// Compresses `input` as [`compress_into`] does, into a new vector.
pub fn compress(compression: Compression, input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    compress_into(compression, input, &mut out);
    out
}

/// The uncompressed size a compressed payload declares: the sum over its chain of blocks,
/// read from their headers alone. Lets a reader check a claimed size before allocating
/// for it; an error if a header is cut or a block runs past the payload.
pub fn declared_len(input: &[u8]) -> Result<usize> {
    let (mut at, mut total) = (0usize, 0usize);
    while at < input.len() {
        let h = block::header_at(&input[at..]).map_err(|message| Error::Compression {
            offset: at as u64,
            message,
        })?;
        at += BLOCK_HEADER_SIZE + h.compressed_size;
        if at > input.len() {
            return Err(Error::Compression {
                offset: at as u64,
                message: format!(
                    "a block of {} bytes runs past the {}-byte payload",
                    h.compressed_size,
                    input.len()
                ),
            });
        }
        total = total.saturating_add(h.uncompressed_size);
    }
    Ok(total)
}

/// Decodes a payload into `out`, whose length is the expected uncompressed size. A payload
/// as long as `out` is raw and copied as it is.
pub fn decompress_into(input: &[u8], out: &mut [u8]) -> Result<()> {
    decompress_into_checked(input, out, true)
}

/// As [`decompress_into`]; with `block_checksums` false the checksums that some codecs
/// store per block (LZ4's xxHash64 of the compressed data) are not verified. For payloads
/// whose bytes a stronger checksum has verified already (an RNTuple page checksum), or
/// when the caller asked not to verify checksums. A corrupt block still gives an error or
/// wrong bytes, never an access outside `input` and `out`.
pub fn decompress_into_checked(input: &[u8], out: &mut [u8], block_checksums: bool) -> Result<()> {
    if input.len() == out.len() {
        out.copy_from_slice(input);
        return Ok(());
    }
    let mut pos = 0usize;
    let mut written = 0usize;
    while pos < input.len() {
        let header = block::header_at(&input[pos..]).map_err(|m| error(pos, m))?;
        let data_start = pos + BLOCK_HEADER_SIZE;
        let data_end = data_start + header.compressed_size;
        if data_end > input.len() {
            return Err(error(
                pos,
                format!(
                    "block of {} compressed bytes runs past the end of the payload ({} bytes)",
                    header.compressed_size,
                    input.len()
                ),
            ));
        }
        let out_end = written + header.uncompressed_size;
        if out_end > out.len() {
            return Err(error(
                pos,
                format!(
                    "blocks decompress to more than the expected {} bytes",
                    out.len()
                ),
            ));
        }
        let (data, block_out) = (&input[data_start..data_end], &mut out[written..out_end]);
        match header.raw_deflate {
            true => codecs::raw_deflate_decompress(data, block_out),
            false => codecs::decompress_block(header.codec, block_checksums, data, block_out),
        }
        .map_err(|m| error(pos, m))?;
        written = out_end;
        pos = data_end;
    }
    if written != out.len() {
        return Err(error(
            pos,
            format!(
                "blocks decompress to {written} bytes, expected {}",
                out.len()
            ),
        ));
    }
    Ok(())
}

/// Largest ratio of uncompressed to compressed block size accepted before decoding; real
/// codecs stay far below it (zstd's best case on constant data is about 1:32000).
const MAX_BLOCK_RATIO: usize = 1 << 16;

/// Decodes a payload into a new vector of `uncompressed_len` bytes. The block headers are
/// checked first, so a corrupt size cannot make it allocate more than the payload justifies.
pub fn decompress(input: &[u8], uncompressed_len: usize) -> Result<Vec<u8>> {
    if input.len() != uncompressed_len {
        check_block_sizes(input, uncompressed_len)?;
    }
    let mut out = vec![0u8; uncompressed_len];
    decompress_into(input, &mut out)?;
    Ok(out)
}

/// Checks that the block headers of `input` add up to `expected` bytes, each within what a
/// codec can produce from its compressed size.
fn check_block_sizes(input: &[u8], expected: usize) -> Result<()> {
    let mut pos = 0usize;
    let mut total = 0usize;
    while pos < input.len() {
        let header = block::header_at(&input[pos..]).map_err(|m| error(pos, m))?;
        if header.uncompressed_size > header.compressed_size.saturating_mul(MAX_BLOCK_RATIO) {
            return Err(error(
                pos,
                format!(
                    "block claims {} bytes from {} compressed bytes",
                    header.uncompressed_size, header.compressed_size
                ),
            ));
        }
        total += header.uncompressed_size;
        pos += BLOCK_HEADER_SIZE + header.compressed_size;
    }
    if total != expected {
        return Err(error(
            0,
            format!("blocks hold {total} bytes, expected {expected}"),
        ));
    }
    Ok(())
}

fn error(offset: usize, message: impl Into<String>) -> Error {
    Error::Compression {
        offset: offset as u64,
        message: message.into(),
    }
}
