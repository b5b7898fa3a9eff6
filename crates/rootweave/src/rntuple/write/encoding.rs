//! Page encodings: byte splitting, zigzag, delta and bit packing.
//!
//! The writer keeps column elements as little-endian bytes in memory and encodes a whole
//! page at once. Decoding is the exact inverse; both work on byte slices so that one code
//! path serves every element width.

use crate::rntuple::format::Encoding;

/// Encodes `input` (little-endian elements of `width` bytes, or one byte per boolean for
/// [`Encoding::BitPacked`]) into `out`, whose old contents are replaced.
pub fn encode_page(encoding: Encoding, width: usize, input: &[u8], out: &mut Vec<u8>) {
    let transform = match encoding {
        Encoding::Plain => {
            out.clear();
            out.extend_from_slice(input);
            return;
        }
        Encoding::BitPacked => {
            out.clear();
            pack_bits(input, out);
            return;
        }
        Encoding::Split => Transform::None,
        Encoding::SplitZigzag => Transform::Zigzag,
        Encoding::SplitDelta => Transform::Delta,
    };
    // Whole elements only. Every byte is overwritten: a reused buffer is not cleared first.
    let width = width.max(1);
    let len = input.len() / width * width;
    out.resize(len, 0);
    split_encode(width, transform, &input[..len], out);
}

#[cfg(test)] // the reader decodes; this inverse checks the encoder in tests
/// Decodes a page of `n_elements` elements into little-endian elements of `width` bytes
/// (one byte per boolean for [`Encoding::BitPacked`]), appended to `out`.
/// Returns `None` if `input` is too short.
pub fn decode_page(
    encoding: Encoding,
    width: usize,
    n_elements: usize,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Option<()> {
    let start = out.len();
    match encoding {
        Encoding::BitPacked => {
            if input.len() < n_elements.div_ceil(8) {
                return None;
            }
            out.extend((0..n_elements).map(|i| (input[i / 8] >> (i % 8)) & 1));
            return Some(());
        }
        _ => {
            let len = n_elements.checked_mul(width)?;
            if input.len() < len {
                return None;
            }
            let input = &input[..len];
            match encoding {
                Encoding::Plain => out.extend_from_slice(input),
                _ => unsplit(width, input, out),
            }
        }
    }
    let page = &mut out[start..];
    match encoding {
        Encoding::SplitZigzag => zigzag_decode(width, page),
        Encoding::SplitDelta => delta_decode(width, page),
        _ => {}
    }
    Some(())
}

/// What is done to each element before it is split into byte planes.
#[derive(Clone, Copy)]
enum Transform {
    None,
    /// Zigzag: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
    Zigzag,
    /// Each element minus the one before it (the first minus 0).
    Delta,
}

/// Splits the elements of `input` (after `transform`) into byte planes: byte `b` of
/// element `i` goes to `planes[b * n + i]`. `planes` is as long as `input`.
fn split_encode(width: usize, transform: Transform, input: &[u8], planes: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above), which is all that a function
        // compiled with `target_feature(enable = "avx2")` requires of its caller.
        return unsafe { split_encode_avx2(width, transform, input, planes) };
    }
    split_encode_portable(width, transform, input, planes);
}

/// [`split_encode`] compiled for AVX2: shifts and byte packing on 32-byte vectors.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn split_encode_avx2(width: usize, transform: Transform, input: &[u8], planes: &mut [u8]) {
    split_encode_portable(width, transform, input, planes);
}

/// The splitting itself, inlined into each instruction-set variant.
#[inline(always)]
fn split_encode_portable(width: usize, transform: Transform, input: &[u8], planes: &mut [u8]) {
    macro_rules! words {
        ($t:ty, $signed:ty) => {{
            const SIGN: u32 = <$t>::BITS - 1;
            match transform {
                Transform::None => split_words::<$t>(input, planes, |v| v),
                Transform::Zigzag => split_words::<$t>(input, planes, |v| {
                    let v = v as $signed;
                    ((v << 1) ^ (v >> SIGN)) as $t
                }),
                Transform::Delta => {
                    let mut previous: $t = 0;
                    split_words::<$t>(input, planes, |v| {
                        let d = v.wrapping_sub(previous);
                        previous = v;
                        d
                    })
                }
            }
        }};
    }
    match width {
        2 => words!(u16, i16),
        4 => words!(u32, i32),
        8 => words!(u64, i64),
        _ => {
            // Other widths have no zigzag or delta encodings.
            let n = input.len() / width;
            for (i, element) in input.chunks_exact(width).enumerate() {
                for (b, &byte) in element.iter().enumerate() {
                    planes[b * n + i] = byte;
                }
            }
        }
    }
}

/// An unsigned element of a split column.
trait Word: Copy + Default {
    /// Bytes per element.
    const BYTES: usize;
    /// The element from its little-endian bytes (`bytes` holds exactly `BYTES`).
    fn from_le(bytes: &[u8]) -> Self;
    /// Byte `b` of the element (0: least significant).
    fn byte(self, b: usize) -> u8;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn from_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("one element"))
            }
            #[inline(always)]
            fn byte(self, b: usize) -> u8 {
                (self >> (8 * b)) as u8
            }
        }
    };
}
word!(u16);
word!(u32);
word!(u64);

/// Splits `input` into byte planes, `f` applied to each element first, 32 elements at a
/// time: the block of elements is loaded whole, and each plane's 32 bytes are taken out
/// of it with shifts and stored at once, which the compiler turns into vector shifts and
/// packs (8-10x the speed of gathering one byte at a time).
#[inline(always)]
fn split_words<T: Word>(input: &[u8], planes: &mut [u8], mut f: impl FnMut(T) -> T) {
    const BLOCK: usize = 32;
    let n = input.len() / T::BYTES;
    let blocks = n / BLOCK;
    for (k, elements) in input.chunks_exact(BLOCK * T::BYTES).enumerate() {
        let mut words = [T::default(); BLOCK];
        for (word, bytes) in words.iter_mut().zip(elements.chunks_exact(T::BYTES)) {
            *word = f(T::from_le(bytes));
        }
        for b in 0..T::BYTES {
            let at = b * n + k * BLOCK;
            for (out, word) in planes[at..at + BLOCK].iter_mut().zip(&words) {
                *out = word.byte(b);
            }
        }
    }
    for i in blocks * BLOCK..n {
        let word = f(T::from_le(&input[i * T::BYTES..(i + 1) * T::BYTES]));
        for b in 0..T::BYTES {
            planes[b * n + i] = word.byte(b);
        }
    }
}

#[cfg(test)] // the reader decodes; this inverse checks the encoder in tests
fn unsplit(width: usize, input: &[u8], out: &mut Vec<u8>) {
    let n = input.len() / width;
    let start = out.len();
    out.resize(start + input.len(), 0);
    let dst = &mut out[start..];
    if n == 0 {
        return;
    }
    for (b, plane) in input.chunks_exact(n).enumerate() {
        for (element, &byte) in dst.chunks_exact_mut(width).zip(plane) {
            element[b] = byte;
        }
    }
}

#[cfg(test)]
macro_rules! for_width {
    ($width:expr, $bytes:expr, |$v:ident : $t:ident| $body:expr) => {
        match $width {
            2 => {
                type $t = i16;
                for c in $bytes.chunks_exact_mut(2) {
                    let $v = <$t>::from_le_bytes([c[0], c[1]]);
                    c.copy_from_slice(&($body).to_le_bytes());
                }
            }
            4 => {
                type $t = i32;
                for c in $bytes.chunks_exact_mut(4) {
                    let $v = <$t>::from_le_bytes(c.try_into().expect("chunk of 4"));
                    c.copy_from_slice(&($body).to_le_bytes());
                }
            }
            8 => {
                type $t = i64;
                for c in $bytes.chunks_exact_mut(8) {
                    let $v = <$t>::from_le_bytes(c.try_into().expect("chunk of 8"));
                    c.copy_from_slice(&($body).to_le_bytes());
                }
            }
            _ => {}
        }
    };
}

#[cfg(test)]
// the reader decodes; this inverse checks the encoder in tests
// The element type varies with the width, so some casts are no-ops for one width.
#[allow(clippy::unnecessary_cast)]
fn zigzag_decode(width: usize, bytes: &mut [u8]) {
    let bits = (width * 8) as u32;
    // Logical shift right by one (done on the unsigned pattern) xor the sign of the low bit.
    for_width!(width, bytes, |v: T| {
        let logical = ((v >> 1) & !(1 << (bits - 1))) as T;
        logical ^ -(v & 1)
    });
}

#[cfg(test)]
// the reader decodes; this inverse checks the encoder in tests
// The element type varies with the width, so some casts are no-ops for one width.
#[allow(clippy::unnecessary_cast)]
fn delta_decode(width: usize, bytes: &mut [u8]) {
    let mut running = 0i64;
    for_width!(width, bytes, |v: T| {
        let sum = (running as T).wrapping_add(v);
        running = sum as i64;
        sum
    });
}

fn pack_bits(input: &[u8], out: &mut Vec<u8>) {
    out.resize(input.len().div_ceil(8), 0);
    for (byte, chunk) in out.iter_mut().zip(input.chunks(8)) {
        *byte = chunk
            .iter()
            .enumerate()
            .fold(0u8, |acc, (i, &b)| acc | (((b != 0) as u8) << i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le32(values: &[i32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn split_zigzag_matches_root_bytes() {
        // x = [1, 2, 3] as SplitInt32, verified bytes of a ROOT 6.40 file.
        let mut out = Vec::new();
        encode_page(Encoding::SplitZigzag, 4, &le32(&[1, 2, 3]), &mut out);
        assert_eq!(out, [2, 4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn split_delta_matches_root_bytes() {
        // offsets [0, 1, 3] as SplitIndex64 -> deltas [0, 1, 2], split.
        let input: Vec<u8> = [0u64, 1, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut out = Vec::new();
        encode_page(Encoding::SplitDelta, 8, &input, &mut out);
        let mut expected = vec![0u8, 1, 2];
        expected.extend([0u8; 21]);
        assert_eq!(out, expected);
    }

    #[test]
    fn bits_pack_lsb_first() {
        let mut out = Vec::new();
        encode_page(Encoding::BitPacked, 1, &[0, 1, 0], &mut out);
        assert_eq!(out, [0x02]);
        encode_page(Encoding::BitPacked, 1, &[1; 9], &mut out);
        assert_eq!(out, [0xFF, 0x01]);
    }

    #[test]
    fn split_puts_byte_b_of_element_i_at_b_times_n_plus_i() {
        for width in [1usize, 2, 3, 4, 8] {
            // Not a multiple of the 16-element blocks, to cover the tail.
            let n = 1003;
            let input: Vec<u8> = (0..n * width)
                .map(|i| ((i * 2_654_435_761) >> 7) as u8)
                .collect();
            let mut out = vec![0xEE; n * width];
            split_encode(width, Transform::None, &input, &mut out);
            for i in 0..n {
                for b in 0..width {
                    assert_eq!(out[b * n + i], input[i * width + b], "width {width}");
                }
            }
        }
    }

    #[test]
    fn every_encoding_round_trips() {
        let values: Vec<i64> = vec![0, -1, 1, i64::MIN, i64::MAX, 42, -42, 7];
        for width in [2usize, 4, 8] {
            let input: Vec<u8> = values
                .iter()
                .flat_map(|v| v.to_le_bytes()[..width].to_vec())
                .collect();
            for enc in [
                Encoding::Plain,
                Encoding::Split,
                Encoding::SplitZigzag,
                Encoding::SplitDelta,
            ] {
                let mut encoded = Vec::new();
                encode_page(enc, width, &input, &mut encoded);
                let mut decoded = vec![9u8];
                decode_page(enc, width, values.len(), &encoded, &mut decoded).unwrap();
                assert_eq!(&decoded[1..], &input[..], "{enc:?} width {width}");
            }
        }
        let bools = [1u8, 0, 0, 1, 1, 1, 0, 1, 0, 1];
        let mut encoded = Vec::new();
        encode_page(Encoding::BitPacked, 1, &bools, &mut encoded);
        let mut decoded = Vec::new();
        decode_page(Encoding::BitPacked, 1, bools.len(), &encoded, &mut decoded).unwrap();
        assert_eq!(decoded, bools);
        assert!(decode_page(Encoding::Split, 4, 3, &[0; 11], &mut decoded).is_none());
    }

    #[test]
    fn zigzag_values() {
        let b = le32(&[0, -1, 1, -2, i32::MIN, i32::MAX]);
        let mut planes = vec![0; b.len()];
        split_encode(4, Transform::Zigzag, &b, &mut planes);
        let mut z = Vec::new();
        unsplit(4, &planes, &mut z);
        let z: Vec<u32> = z
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(z, [0, 1, 2, 3, u32::MAX, u32::MAX - 1]);
    }

    /// Zigzag and delta on pages longer than one block of 32 elements (with a tail) give,
    /// plane by plane, the transformed values of a one-element-at-a-time reference, and
    /// decode back to the input; a reused output buffer longer than the page is cut to it.
    #[test]
    fn transforms_over_blocks_match_a_reference_and_round_trip() {
        let n = 1003;
        let values: Vec<i64> = (0..n as i64)
            .map(|i| (i * 2_654_435_761) ^ -(i % 7) << (i % 50))
            .collect();
        for width in [2usize, 4, 8] {
            let bits = 8 * width as u32;
            let input: Vec<u8> = values
                .iter()
                .flat_map(|v| v.to_le_bytes()[..width].to_vec())
                .collect();
            // The elements as signed values of `width` bytes.
            let element = |v: i64| (v << (64 - bits)) >> (64 - bits);
            let mask = |v: i64| (v as u64) & (u64::MAX >> (64 - bits));
            let zigzag: Vec<u64> = values
                .iter()
                .map(|&v| mask((element(v) << 1) ^ (element(v) >> (bits - 1))))
                .collect();
            let delta: Vec<u64> = (0..n)
                .map(|i| {
                    let previous = if i == 0 { 0 } else { element(values[i - 1]) };
                    mask(element(values[i]).wrapping_sub(previous))
                })
                .collect();
            for (enc, expected) in [
                (Encoding::SplitZigzag, zigzag),
                (Encoding::SplitDelta, delta),
            ] {
                let mut encoded = vec![0xAB; 3 * input.len()];
                encode_page(enc, width, &input, &mut encoded);
                assert_eq!(encoded.len(), input.len());
                for (i, want) in expected.iter().enumerate() {
                    let got = (0..width)
                        .fold(0u64, |acc, b| acc | (encoded[b * n + i] as u64) << (8 * b));
                    assert_eq!(got, *want, "{enc:?} width {width} element {i}");
                }
                let mut decoded = Vec::new();
                decode_page(enc, width, n, &encoded, &mut decoded).unwrap();
                assert_eq!(decoded, input, "{enc:?} width {width}");
            }
        }
    }
}
