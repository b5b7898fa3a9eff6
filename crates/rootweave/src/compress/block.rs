//! The 9-byte header of a ROOT compression block.

use super::settings::Codec;

/// Size of a block header.
pub const BLOCK_HEADER_SIZE: usize = 9;

/// Largest input of one block (sizes are 24-bit): longer inputs are cut into blocks.
pub const MAX_BLOCK_SIZE: usize = 0xFF_FFFF;

/// A parsed block header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockHeader {
    /// The codec named by the tag.
    pub codec: Codec,
    /// The method byte.
    pub method: u8,
    /// Bytes of codec data after the header.
    pub compressed_size: usize,
    /// Bytes the block decompresses to.
    pub uncompressed_size: usize,
    /// True for the 'CS' blocks of ROOT 3 and 4: raw deflate data, without zlib's header
    /// and Adler-32 checksum (`codec` is then [`Codec::Zlib`]). Read, never written.
    pub raw_deflate: bool,
}

/// The tag and method byte ROOT writes for a codec.
pub(crate) fn tag(codec: Codec) -> [u8; 3] {
    match codec {
        Codec::Zlib => *b"ZL\x08",
        Codec::Lzma => *b"XZ\x00",
        Codec::Lz4 => *b"L4\x01",
        Codec::Zstd => *b"ZS\x01",
        Codec::None => unreachable!("uncompressed data has no blocks"),
    }
}

/// Writes a block header.
pub(crate) fn write_header(codec: Codec, compressed: usize, uncompressed: usize, out: &mut [u8]) {
    out[..3].copy_from_slice(&tag(codec));
    out[3..6].copy_from_slice(&(compressed as u32).to_le_bytes()[..3]);
    out[6..9].copy_from_slice(&(uncompressed as u32).to_le_bytes()[..3]);
}

/// Parses the block header at the start of `bytes`; a bad header is an
/// [`Error::Compression`](crate::error::Error::Compression) at offset 0.
pub fn parse_block_header(bytes: &[u8]) -> crate::error::Result<BlockHeader> {
    header_at(bytes).map_err(|message| crate::error::Error::Compression { offset: 0, message })
}

/// Parses the block header at the start of `bytes`, or says what is wrong with it.
pub(crate) fn header_at(bytes: &[u8]) -> Result<BlockHeader, String> {
    if bytes.len() < BLOCK_HEADER_SIZE {
        return Err(format!(
            "truncated block header ({} of {BLOCK_HEADER_SIZE} bytes)",
            bytes.len()
        ));
    }
    let (codec, raw_deflate) = match &bytes[..2] {
        b"ZL" => (Codec::Zlib, false),
        b"CS" => (Codec::Zlib, true),
        b"XZ" => (Codec::Lzma, false),
        b"L4" => (Codec::Lz4, false),
        b"ZS" => (Codec::Zstd, false),
        other => {
            return Err(format!(
                "unknown compression block tag {:02x} {:02x}",
                other[0], other[1]
            ))
        }
    };
    let size = |b: &[u8]| b[0] as usize | (b[1] as usize) << 8 | (b[2] as usize) << 16;
    Ok(BlockHeader {
        codec,
        method: bytes[2],
        compressed_size: size(&bytes[3..6]),
        uncompressed_size: size(&bytes[6..9]),
        raw_deflate,
    })
}
