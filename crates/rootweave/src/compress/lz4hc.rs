//! LZ4-HC that does not search stretches of noise.
//!
//! Split pages of floating-point or wide integer values are mostly noise: the low
//! mantissa bytes of a float, the low bytes of a uniformly distributed integer. LZ4-HC
//! searches every position of such a stretch for matches and finds none, at about
//! 50 MB/s, while the few compressible byte planes (exponents, high bytes) are all it can
//! shrink. This compressor tells the two apart, chunk by chunk, hands only the
//! compressible runs to LZ4-HC and stores the noise as literals: the result is one
//! ordinary LZ4 block, which any LZ4 decoder (ROOT's, uproot's) reads, of the size
//! LZ4-HC would have written to within a small fraction of a percent, several times
//! faster.
//!
//! A chunk is noise when two tests agree: its byte frequencies make a 4-byte match (the
//! shortest LZ4 has) rare enough within LZ4's 64 KiB window that LZ4-HC would gain
//! nothing from searching it, and LZ4's fast compressor, run once over the whole input,
//! found no match in it. The second test catches structure that byte frequencies do not
//! show (a counter's low byte, a repeated sequence of random bytes).

use std::cell::RefCell;

use lz4::block::compress_bound;

use super::noise::{classify, runs, NoiseTest, CHUNK};

/// What LZ4-HC need not search: a chunk where fewer than 1e-3 4-byte matches per
/// position are expected within LZ4's 64 KiB window, and where LZ4's fast pass found no
/// match (of LZ4's shortest length, 4). Uniform 7-bit bytes give 2.4e-4 (LZ4-HC stores
/// them 0.01% smaller than literals), 6-bit bytes 3.9e-3 (0.2% smaller): they are searched.
const NOISE: NoiseTest = NoiseTest {
    window: 65536.0,
    matches_per_position: 1e-3,
    min_match: 4,
};

/// Smallest length of the last literal run of an LZ4 block (the format's end rule).
const LAST_LITERALS: usize = 5;

/// Scratch buffers kept per thread (pages are compressed by the thousand).
#[derive(Default)]
struct Scratch {
    hc: Vec<u8>,
    noise: Vec<bool>,
    state: HcState,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Compresses `input` as one LZ4 block at LZ4-HC `level`, appended to `out`. Returns the
/// block's length, or None if the codec failed or `input` is empty or all noise (no
/// block can be smaller than such an input: it is stored raw).
pub(crate) fn compress(level: u32, input: &[u8], out: &mut Vec<u8>) -> Option<usize> {
    if input.is_empty() {
        return None;
    }
    SCRATCH.with(|scratch| {
        let scratch = &mut *scratch.borrow_mut();
        if input.len() < 2 * CHUNK {
            return scratch.state.compress(level, input, out);
        }
        if classify(input, &NOISE, &mut scratch.noise).is_none() {
            return scratch.state.compress(level, input, out);
        }
        let runs = runs(&scratch.noise, input.len());
        if runs.iter().all(|run| !run.noise) {
            return scratch.state.compress(level, input, out);
        }
        if runs.iter().all(|run| run.noise) {
            // Literals only: never smaller than the input.
            return None;
        }
        let start = out.len();
        let mut block = BlockWriter {
            input,
            out,
            pending: 0,
        };
        for run in runs.iter().filter(|run| !run.noise) {
            let piece = &input[run.start..run.end];
            scratch.hc.clear();
            scratch.state.compress(level, piece, &mut scratch.hc)?;
            block.append_compressed(run.start, &scratch.hc)?;
        }
        block.finish();
        let written = out.len() - start;
        (written < input.len()).then_some(written)
    })
}

/// liblz4's LZ4-HC entry points that take the caller's state (declared in `lz4hc.h`,
/// part of the static library that the `lz4-sys` crate builds and links).
mod ffi {
    use std::os::raw::{c_char, c_int, c_void};

    // The library these are resolved in.
    use lz4_sys as _;

    extern "C" {
        pub fn LZ4_sizeofStateHC() -> c_int;
        pub fn LZ4_initStreamHC(buffer: *mut c_void, size: usize) -> *mut c_void;
        pub fn LZ4_compress_HC_extStateHC_fastReset(
            state: *mut c_void,
            src: *const c_char,
            dst: *mut c_char,
            src_size: c_int,
            dst_capacity: c_int,
            level: c_int,
        ) -> c_int;
    }
}

/// An LZ4-HC compression state reused from block to block. `LZ4_compress_HC` allocates
/// and clears a fresh 256 KiB state for every call (an mmap, 64 page faults and an
/// munmap each time); a reused state is reset in a few instructions.
#[derive(Default)]
struct HcState {
    /// The state's memory, in words: liblz4's state holds pointers and wants their
    /// alignment, which `u64` has on every target liblz4 builds for.
    words: Vec<u64>,
    /// Whether `words` holds a state initialised by `LZ4_initStreamHC` and not left
    /// behind by a failed call (liblz4's condition for its fast reset).
    ready: bool,
}

impl HcState {
    /// LZ4-HC of `input` at `level`, appended to `out`.
    fn compress(&mut self, level: u32, input: &[u8], out: &mut Vec<u8>) -> Option<usize> {
        let src_size = i32::try_from(input.len()).ok()?;
        let bound = compress_bound(input.len()).ok()?;
        let dst_capacity = i32::try_from(bound).ok()?;
        if !self.ready {
            // SAFETY: LZ4_sizeofStateHC only returns a constant.
            let size = usize::try_from(unsafe { ffi::LZ4_sizeofStateHC() }).ok()?;
            self.words = vec![0; size.div_ceil(8)];
            // SAFETY: `words` is a live allocation of at least `size` bytes, aligned to 8,
            // borrowed mutably for the call; liblz4 writes only inside `size` bytes and
            // returns null (checked) if the size or alignment do not suit it.
            let state = unsafe { ffi::LZ4_initStreamHC(self.words.as_mut_ptr().cast(), size) };
            if state.is_null() {
                return None;
            }
            self.ready = true;
        }
        let start = out.len();
        out.resize(start + bound, 0);
        let dst = &mut out[start..];
        // SAFETY: the state was initialised above (or before an earlier successful call,
        // which leaves it fit for a fast reset) and is borrowed mutably, so nothing else
        // uses it; `src` is valid for `src_size` bytes and `dst` for `dst_capacity`
        // bytes, both borrowed for the call; liblz4 reads and writes only within them.
        let n = unsafe {
            ffi::LZ4_compress_HC_extStateHC_fastReset(
                self.words.as_mut_ptr().cast(),
                input.as_ptr().cast(),
                dst.as_mut_ptr().cast(),
                src_size,
                dst_capacity,
                level as i32,
            )
        };
        if n <= 0 {
            // A failed call may leave the state unfit for a fast reset.
            self.ready = false;
            out.truncate(start);
            return None;
        }
        out.truncate(start + n as usize);
        Some(n as usize)
    }
}

/// One LZ4 sequence's match (`match_len` 0 for the last sequence, which is literals
/// only); the sequence's literals are the decoded bytes before `match_start`.
pub(super) struct Sequence {
    pub(super) match_start: usize,
    pub(super) offset: usize,
    pub(super) match_len: usize,
}

/// Reads the sequences of an LZ4 block that this process compressed (so well formed; a
/// malformed one ends the iteration with None).
pub(super) struct Sequences<'a> {
    block: &'a [u8],
    pos: usize,
    decoded: usize,
}

impl<'a> Sequences<'a> {
    pub(super) fn new(block: &'a [u8]) -> Self {
        Sequences {
            block,
            pos: 0,
            decoded: 0,
        }
    }

    fn byte(&mut self) -> Option<usize> {
        let byte = *self.block.get(self.pos)?;
        self.pos += 1;
        Some(byte as usize)
    }

    /// A length whose 4-bit start was 15 goes on in bytes until one is below 255.
    fn length(&mut self, nibble: usize) -> Option<usize> {
        let mut len = nibble;
        if nibble == 15 {
            loop {
                let byte = self.byte()?;
                len += byte;
                if byte != 255 {
                    break;
                }
            }
        }
        Some(len)
    }

    fn next_sequence(&mut self) -> Option<Sequence> {
        let token = self.byte()?;
        let literal_len = self.length(token >> 4)?;
        self.pos = self.pos.checked_add(literal_len)?;
        self.decoded += literal_len;
        if self.pos >= self.block.len() {
            self.pos = self.block.len();
            return Some(Sequence {
                match_start: self.decoded,
                offset: 0,
                match_len: 0,
            });
        }
        let offset = self.byte()? | (self.byte()? << 8);
        let match_len = self.length(token & 15)? + 4;
        let match_start = self.decoded;
        self.decoded += match_len;
        Some(Sequence {
            match_start,
            offset,
            match_len,
        })
    }
}

impl Iterator for Sequences<'_> {
    type Item = Option<Sequence>;

    fn next(&mut self) -> Option<Option<Sequence>> {
        if self.pos >= self.block.len() {
            return None;
        }
        let sequence = self.next_sequence();
        if sequence.is_none() {
            self.pos = self.block.len();
        }
        Some(sequence)
    }
}

/// Writes one LZ4 block from pieces: the matches of independently compressed runs, with
/// everything between them (noise, and the runs' own literals) as literals.
struct BlockWriter<'a> {
    input: &'a [u8],
    out: &'a mut Vec<u8>,
    /// Start of the input bytes not yet written (the literals of the next sequence).
    pending: usize,
}

impl BlockWriter<'_> {
    /// Takes the sequences of `compressed`, an LZ4 block of the input's bytes from
    /// `offset` on. Its matches refer only to its own bytes, which the decoder will have
    /// put at the same distances: they carry over unchanged.
    fn append_compressed(&mut self, offset: usize, compressed: &[u8]) -> Option<()> {
        for sequence in Sequences::new(compressed) {
            let sequence = sequence?;
            if sequence.match_len == 0 {
                // The run's last literals wait for the next match or the block's end.
                break;
            }
            let literals_end = offset + sequence.match_start;
            self.write_sequence(literals_end, sequence.offset, sequence.match_len);
            self.pending = literals_end + sequence.match_len;
        }
        Some(())
    }

    /// Writes the literals from `pending` to `literals_end`, then a match.
    fn write_sequence(&mut self, literals_end: usize, offset: usize, match_len: usize) {
        let literals = &self.input[self.pending..literals_end];
        let literal_nibble = literals.len().min(15);
        let match_nibble = (match_len - 4).min(15);
        self.out.push((literal_nibble << 4 | match_nibble) as u8);
        push_length(self.out, literals.len(), literal_nibble);
        self.out.extend_from_slice(literals);
        self.out.extend_from_slice(&(offset as u16).to_le_bytes());
        push_length(self.out, match_len - 4, match_nibble);
    }

    /// Writes the last sequence: every byte after the last match, as literals.
    fn finish(self) {
        let literals = &self.input[self.pending..];
        // The format wants the block to end in literals; every compressed run ends in at
        // least that many, and a noise run is all literals.
        debug_assert!(literals.len() >= LAST_LITERALS);
        let nibble = literals.len().min(15);
        self.out.push((nibble << 4) as u8);
        push_length(self.out, literals.len(), nibble);
        self.out.extend_from_slice(literals);
    }
}

/// The bytes after a token that carry a length whose nibble was saturated at 15.
fn push_length(out: &mut Vec<u8>, len: usize, nibble: usize) {
    if nibble < 15 {
        return;
    }
    let mut rest = len - 15;
    while rest >= 255 {
        out.push(255);
        rest -= 255;
    }
    out.push(rest as u8);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::test_pages::{random_bytes, split_floats};
    use lz4::block::{compress_to_buffer, CompressionMode};

    fn decode(block: &[u8], len: usize) -> Vec<u8> {
        let mut decoded = vec![0u8; len];
        let n = lz4::block::decompress_to_buffer(block, Some(len as i32), &mut decoded)
            .expect("a valid LZ4 block");
        assert_eq!(n, len);
        decoded
    }

    /// liblz4's own LZ4-HC at level 4, without any state kept: the reference size.
    fn plain_hc(input: &[u8]) -> usize {
        let mut out = vec![0u8; compress_bound(input.len()).unwrap()];
        compress_to_buffer(
            input,
            Some(CompressionMode::HIGHCOMPRESSION(4)),
            false,
            &mut out,
        )
        .unwrap()
    }

    /// Compresses, checks the block decodes to the input, returns its length.
    fn round_trip(input: &[u8]) -> Option<usize> {
        let mut out = vec![0xAA; 3];
        let n = compress(4, input, &mut out)?;
        assert_eq!(out.len(), 3 + n);
        assert_eq!(out[..3], [0xAA; 3], "bytes before the block are kept");
        assert_eq!(decode(&out[3..], input.len()), input);
        Some(n)
    }

    #[test]
    fn split_floats_decode_exactly_and_are_no_larger_than_lz4_hc() {
        for (n, seed) in [(1 << 18, 1), (3000, 2), (12_345, 3), (65_536, 4)] {
            let page = split_floats(n, seed);
            let ours = round_trip(&page).expect("the exponent plane compresses");
            let hc = plain_hc(&page);
            // Noise stored as literals costs what LZ4-HC's literals cost: equal to within
            // the few random 4-byte matches LZ4-HC finds in noise.
            assert!(
                ours as f64 <= hc as f64 * 1.0005,
                "{n} floats: {ours} bytes against LZ4-HC's {hc}"
            );
        }
    }

    #[test]
    fn the_mantissa_planes_of_split_floats_are_noise_and_the_exponent_plane_is_not() {
        let n = 1 << 16;
        let mut scratch = Scratch::default();
        classify(&split_floats(n, 8), &NOISE, &mut scratch.noise).unwrap();
        let per_plane = n / CHUNK;
        let planes: Vec<&[bool]> = scratch.noise.chunks(per_plane).collect();
        assert_eq!(planes.len(), 4);
        for plane in &planes[..3] {
            assert!(plane.iter().all(|&noise| noise), "{plane:?}");
        }
        assert!(planes[3].iter().all(|&noise| !noise), "{:?}", planes[3]);
    }

    #[test]
    fn noise_between_compressible_runs_keeps_every_match_valid() {
        // Compressible, noise, compressible, noise, compressible: three runs whose
        // matches are stitched into one block with the noise as literals between them.
        // The compressible runs have alphabets of their own (a match across them, which
        // runs compressed apart cannot have, would save nothing).
        let mut input = Vec::new();
        input.extend(random_bytes(20_000, 3, 1).iter().map(|b| b | 0x80));
        input.extend(random_bytes(30_000, 8, 2));
        input.extend(b"abcdefgh".repeat(2_000));
        input.extend(random_bytes(9_000, 8, 3));
        input.extend(random_bytes(10_001, 4, 4).iter().map(|b| b | 0x40));
        let ours = round_trip(&input).unwrap();
        let hc = plain_hc(&input);
        assert!(ours as f64 <= hc as f64 * 1.001, "{ours} against {hc}");
    }

    #[test]
    fn structure_that_byte_frequencies_miss_is_still_compressed() {
        // A counter's low byte: every byte value equally often, yet a repeat every 256
        // bytes; and a random sequence of 5000 bytes repeated: both look like noise to
        // the frequency test, and LZ4's fast pass finds their matches.
        let counter: Vec<u8> = (0..100_000u32).map(|i| i as u8).collect();
        let repeated = random_bytes(5_000, 8, 9).repeat(20);
        for input in [counter, repeated] {
            let ours = round_trip(&input).unwrap();
            let hc = plain_hc(&input);
            assert!(ours as f64 <= hc as f64 * 1.01, "{ours} against {hc}");
            assert!(ours < input.len() / 10);
        }
    }

    #[test]
    fn pure_noise_is_left_uncompressed() {
        assert_eq!(round_trip(&random_bytes(100_000, 8, 5)), None);
        assert_eq!(round_trip(&random_bytes(100_000, 7, 6)), None);
    }

    #[test]
    fn inputs_of_any_length_around_the_chunk_size_decode() {
        for len in [0, 1, 15, 4095, 4096, 8191, 8192, 8193, 12_290, 40_000] {
            let mut input = random_bytes(len / 2, 8, len as u64);
            input.extend(vec![7u8; len - len / 2]);
            round_trip(&input);
        }
    }

    #[test]
    fn long_literal_and_match_lengths_are_encoded_with_extension_bytes() {
        // Long noise (literal lengths over 255 * 15) followed by a long run of one
        // byte (a match far over 15 + 255).
        let mut input = random_bytes(70_000, 8, 11);
        input.extend(vec![0u8; 70_000]);
        input.extend(random_bytes(5_000, 8, 12));
        let ours = round_trip(&input).unwrap();
        assert!(ours < 76_000, "{ours}");
    }
}
