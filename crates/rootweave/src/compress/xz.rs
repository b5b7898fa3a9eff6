//! The xz container around one LZMA2 stream: what ROOT's LZMA blocks hold. Written as
//! liblzma's stream encoder writes it for ROOT (CRC32 check, one block, no sizes in the
//! block header), for LZMA2 data that `lzma_literals.rs` puts together.

const MAGIC: [u8; 6] = [0xFD, b'7', b'z', b'X', b'Z', 0x00];
const FOOTER_MAGIC: [u8; 2] = [b'Y', b'Z'];
/// Stream flags: check type CRC32.
const FLAGS: [u8; 2] = [0x00, 0x01];
const BLOCK_HEADER: usize = 12;
const CHECK: usize = 4;

fn crc32(bytes: &[u8]) -> [u8; 4] {
    crc32fast::hash(bytes).to_le_bytes()
}

pub(super) fn stream_header(out: &mut Vec<u8>) {
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FLAGS);
    out.extend_from_slice(&crc32(&FLAGS));
}

/// A block header for one LZMA2 filter with a dictionary of at least `dictionary` bytes.
pub(super) fn block_header(dictionary: u32, out: &mut Vec<u8>) {
    let header = [
        (BLOCK_HEADER / 4 - 1) as u8,
        0x00, // one filter, no sizes
        0x21, // LZMA2
        0x01, // one byte of properties
        dictionary_byte(dictionary),
        0,
        0,
        0,
    ];
    out.extend_from_slice(&header);
    out.extend_from_slice(&crc32(&header));
}

/// LZMA2's dictionary size code: sizes 2^n and 3 * 2^(n-1) from 4 KiB on, rounded up.
fn dictionary_byte(dictionary: u32) -> u8 {
    (0..40u8)
        .find(|&code| {
            let size = u64::from(2 | (code & 1)) << (code / 2 + 11);
            size >= u64::from(dictionary)
        })
        .unwrap_or(40)
}

/// Pads the block that started at `block_start` (its LZMA2 data `data_len` bytes
/// long), then writes the check of `input`, the index and the stream footer.
pub(super) fn finish_block(block_start: usize, data_len: usize, input: &[u8], out: &mut Vec<u8>) {
    while (out.len() - block_start) % 4 != 0 {
        out.push(0);
    }
    out.extend_from_slice(&crc32(input));
    let index_start = out.len();
    out.push(0x00); // index indicator
    varint(1, out);
    varint((BLOCK_HEADER + data_len + CHECK) as u64, out);
    varint(input.len() as u64, out);
    while (out.len() - index_start) % 4 != 0 {
        out.push(0);
    }
    let index_crc = crc32(&out[index_start..]);
    out.extend_from_slice(&index_crc);
    let backward_size = ((out.len() - index_start) / 4 - 1) as u32;
    let mut tail = [0u8; 6];
    tail[..4].copy_from_slice(&backward_size.to_le_bytes());
    tail[4..].copy_from_slice(&FLAGS);
    out.extend_from_slice(&crc32(&tail));
    out.extend_from_slice(&tail);
    out.extend_from_slice(&FOOTER_MAGIC);
}

/// xz's variable-length integer: 7 bits per byte, low first, high bit = more follow.
fn varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

#[cfg(test)]
mod tests {
    #[test]
    fn dictionary_codes_round_up() {
        use super::dictionary_byte;
        assert_eq!(dictionary_byte(4096), 0);
        assert_eq!(dictionary_byte(6144), 1);
        assert_eq!(dictionary_byte(6145), 2);
        assert_eq!(dictionary_byte(256 << 10), 12);
        assert_eq!(dictionary_byte(8 << 20), 22);
        assert_eq!(dictionary_byte(u32::MAX), 40);
    }
}
