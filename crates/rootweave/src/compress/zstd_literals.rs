//! ZSTD without a match search where matches cannot pay.
//!
//! libzstd at ROOT's level 5 (libzstd level 10) spends nearly all its time in the byte
//! planes of split pages that have few distinct values and no structure, such as the
//! exponent bytes of floats (measured: 16-20 MB/s on such a plane), and the matches it
//! finds there make the plane 25-30% larger than its byte-frequency entropy: every match
//! costs more than the literals it replaces. Huffman-coded literals alone, with a code per
//! 16 KiB block, come within a few percent of that entropy, at well over 1 GB/s. So each
//! 4 KiB chunk of low entropy (at most 4 bits per byte, estimated from its first kilobyte)
//! is judged: where the matches that LZ4's fast pass finds there (a cheap stand-in for
//! libzstd's search) would save less than 2% of what its literals cost, the chunk is
//! literal-friendly. Runs of such chunks become zstd frames of literal blocks only (libzstd
//! writes them: `ZSTD_compressSequences` with no matches and a block cut every 16 KiB);
//! other runs are compressed by libzstd as usual, each run a frame of its own. A ROOT block
//! may hold several zstd frames one after the other: ROOT's `ZSTD_decompressDCtx` and
//! uproot's decoder read on to the last.

use std::cell::RefCell;
use std::ptr::NonNull;

use lz4::block::{compress_bound, compress_to_buffer, CompressionMode};

use super::lz4hc::Sequences;
use super::noise::{byte_counts, runs, CHUNK};

/// Literals per zstd block: each block gets the Huffman code of its own bytes, so a block
/// should not span two byte planes of different kinds.
const LITERAL_BLOCK: usize = 16 * 1024;

/// Bits a zstd sequence costs at the least (literal length, match length and offset codes
/// and their extra bits, for the short matches that noise gives)...
const SEQUENCE_BITS: f64 = 24.0;

/// ... and when it repeats the previous sequence's offset (zstd's repeat codes: records of
/// fixed size repeat their offset).
const REPEAT_SEQUENCE_BITS: f64 = 8.0;

/// Below this share of a chunk's literal cost, what matches save is not worth a search.
const MATCH_GAIN: f64 = 0.02;

/// Bytes of a chunk whose frequencies estimate its entropy.
const ENTROPY_SAMPLE: usize = 1024;

/// Chunks of at most this entropy (bits per byte) are where libzstd's search is slow and
/// its matches cost more than they save: they decide that literal frames are written.
const LOW_ENTROPY: f64 = 4.0;

/// Compresses `input` into zstd frames appended to `out` (structured runs at libzstd
/// `level`). Returns their length, or None when no chunk is literal-friendly (the caller
/// then compresses the input as one frame) or a codec call failed.
pub(crate) fn compress(level: u32, input: &[u8], out: &mut Vec<u8>) -> Option<usize> {
    if input.len() < 2 * CHUNK {
        return None;
    }
    let literal = literal_friendly_chunks(input)?;
    if !literal.contains(&true) {
        return None;
    }
    let start = out.len();
    for run in runs(&literal, input.len()) {
        let piece = &input[run.start..run.end];
        let written = if run.noise {
            literal_frame(piece, out)
        } else {
            let at = out.len();
            super::codecs::zstd_compress(level, piece, out, at).map(|n| {
                out.truncate(at + n);
            })
        };
        if written.is_none() {
            out.truncate(start);
            return None;
        }
    }
    Some(out.len() - start)
}

/// One flag per chunk: whether the chunk is left to Huffman-coded literals. Candidates
/// are chunks of low entropy but more than one byte value (a run of one value is a match
/// from end to end); LZ4's fast pass runs over each stretch of candidates, and a candidate
/// stays one if the matches found in it would not pay. None if that pass failed.
fn literal_friendly_chunks(input: &[u8]) -> Option<Vec<bool>> {
    let entropy: Vec<f64> = input.chunks(CHUNK).map(entropy_bits).collect();
    let candidates: Vec<bool> = entropy
        .iter()
        .map(|&h| h > 0.0 && h <= LOW_ENTROPY)
        .collect();
    let mut literal = vec![false; candidates.len()];
    for run in runs(&candidates, input.len())
        .iter()
        .filter(|run| run.noise)
    {
        let first = run.start / CHUNK;
        let chunks = &input[run.start..run.end];
        // Literal cost in bits per byte: the entropy, at least one bit (a Huffman code has
        // no shorter codes).
        let bits_per_byte: Vec<f64> = entropy[first..first + chunks.len().div_ceil(CHUNK)]
            .iter()
            .map(|&h| h.max(1.0))
            .collect();
        let mut gain = vec![0.0f64; bits_per_byte.len()];
        FAST.with(|fast| {
            let mut fast = fast.borrow_mut();
            fast.resize(compress_bound(chunks.len()).ok()?, 0);
            let n = compress_to_buffer(chunks, Some(CompressionMode::DEFAULT), false, &mut fast)
                .ok()?;
            count_match_gain(&fast[..n], &bits_per_byte, &mut gain)
        })?;
        for (i, chunk) in chunks.chunks(CHUNK).enumerate() {
            literal[first + i] = gain[i] < MATCH_GAIN * bits_per_byte[i] * chunk.len() as f64;
        }
    }
    Some(literal)
}

/// Adds to `gain` (bits, per chunk) what the matches of the LZ4 block `fast` would save
/// over literals coded at `bits_per_byte`, less what their sequences cost. None if the
/// block is malformed.
fn count_match_gain(fast: &[u8], bits_per_byte: &[f64], gain: &mut [f64]) -> Option<()> {
    let mut last_offset = 0;
    for sequence in Sequences::new(fast) {
        let sequence = sequence?;
        if sequence.match_len == 0 {
            continue;
        }
        let cost = if sequence.offset == last_offset {
            REPEAT_SEQUENCE_BITS
        } else {
            SEQUENCE_BITS
        };
        last_offset = sequence.offset;
        // The matched bytes no longer cost literals; the sequence costs its codes.
        let end = sequence.match_start + sequence.match_len;
        let mut at = sequence.match_start;
        while at < end {
            let chunk = at / CHUNK;
            let stop = ((chunk + 1) * CHUNK).min(end);
            gain[chunk] += (stop - at) as f64 * bits_per_byte[chunk];
            at = stop;
        }
        gain[sequence.match_start / CHUNK] -= cost;
    }
    Some(())
}

/// Shannon entropy of the bytes of `chunk`, in bits per byte, estimated from its first
/// kilobyte; above `LOW_ENTROPY` only a lower bound (the collision entropy, which needs no
/// logarithms) when that bound is above it already.
fn entropy_bits(chunk: &[u8]) -> f64 {
    // The first kilobyte tells the kind of a chunk as well as all four do, at a quarter of
    // the counting (which costs as much as libzstd itself on noise).
    let sample = &chunk[..chunk.len().min(ENTROPY_SAMPLE)];
    let counts = byte_counts(sample);
    let n = sample.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    // Collision probability, estimated without bias (pairs of distinct positions).
    let same_byte: f64 = counts
        .iter()
        .map(|&c| f64::from(c) * (f64::from(c) - 1.0))
        .sum::<f64>()
        / (n * (n - 1.0));
    // (No two sampled bytes alike: as much as a byte can hold.)
    let collision_entropy = if same_byte > 0.0 {
        (-same_byte.log2()).min(8.0)
    } else {
        8.0
    };
    if collision_entropy > LOW_ENTROPY {
        return collision_entropy;
    }
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// A libzstd compression context of this thread's own (for the experimental call that
/// the `zstd` crate does not wrap).
struct Context(NonNull<zstd_sys::ZSTD_CCtx>);

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: the pointer came from ZSTD_createCCtx and is freed once, here.
        unsafe { zstd_sys::ZSTD_freeCCtx(self.0.as_ptr()) };
    }
}

thread_local! {
    static CONTEXT: RefCell<Option<Context>> = const { RefCell::new(None) };
    /// LZ4's fast pass output, reused (pages are compressed by the thousand).
    static FAST: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Appends one zstd frame holding `piece` as literals only, a block every 16 KiB.
fn literal_frame(piece: &[u8], out: &mut Vec<u8>) -> Option<()> {
    use zstd_sys::{ZSTD_ResetDirective as Reset, ZSTD_cParameter as Param};
    // One sequence per block: all of its bytes as literals, no match (a block delimiter).
    let blocks: Vec<zstd_sys::ZSTD_Sequence> = piece
        .chunks(LITERAL_BLOCK)
        .map(|block| zstd_sys::ZSTD_Sequence {
            offset: 0,
            litLength: block.len() as u32,
            matchLength: 0,
            rep: 0,
        })
        .collect();
    CONTEXT.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.is_none() {
            // SAFETY: ZSTD_createCCtx has no preconditions; null (no memory) is checked.
            *cell = Some(Context(NonNull::new(unsafe {
                zstd_sys::ZSTD_createCCtx()
            })?));
        }
        let cctx = cell.as_ref()?.0.as_ptr();
        // ZSTD_c_blockDelimiters (experimental parameter 11) = ZSTD_sf_explicitBlockDelimiters.
        const EXPLICIT_BLOCK_DELIMITERS: i32 = 1;
        // SAFETY: `cctx` is this thread's live context, used by nobody else meanwhile;
        // the calls only set its parameters (errors are returned as codes, checked).
        let set = unsafe {
            zstd_sys::ZSTD_CCtx_reset(cctx, Reset::ZSTD_reset_session_and_parameters);
            [
                // Level 1: literals are Huffman-coded as at any positive level, and the
                // match tables that no match will use are the smallest (a level 10 context
                // clears megabytes of them for every frame).
                zstd_sys::ZSTD_CCtx_setParameter(cctx, Param::ZSTD_c_compressionLevel, 1),
                zstd_sys::ZSTD_CCtx_setParameter(
                    cctx,
                    Param::ZSTD_c_experimentalParam11,
                    EXPLICIT_BLOCK_DELIMITERS,
                ),
            ]
        };
        // SAFETY: ZSTD_isError only inspects the code.
        if set
            .iter()
            .any(|&code| unsafe { zstd_sys::ZSTD_isError(code) } != 0)
        {
            return None;
        }
        // SAFETY: pure function of its argument.
        let bound = unsafe { zstd_sys::ZSTD_compressBound(piece.len()) };
        let at = out.len();
        out.reserve(bound);
        // SAFETY: `out` has `bound` bytes of spare capacity from `at` on, and libzstd writes
        // at most `dstCapacity` (= bound) bytes there; `blocks` and `piece` are valid for
        // their lengths and only read; `cctx` is this thread's context (see above). Their
        // literal lengths add up to `piece.len()`, which libzstd checks.
        let written = unsafe {
            zstd_sys::ZSTD_compressSequences(
                cctx,
                out.as_mut_ptr().add(at).cast(),
                bound,
                blocks.as_ptr(),
                blocks.len(),
                piece.as_ptr().cast(),
                piece.len(),
            )
        };
        // SAFETY: ZSTD_isError only inspects the code.
        if unsafe { zstd_sys::ZSTD_isError(written) } != 0 || written > bound {
            return None;
        }
        // SAFETY: libzstd initialised the `written` bytes after `at` (within the capacity).
        unsafe { out.set_len(at + written) };
        Some(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::test_pages::{split_floats, splitmix};

    fn whole_frame(input: &[u8]) -> usize {
        zstd::bulk::compress(input, 10).unwrap().len()
    }

    fn round_trip(input: &[u8]) -> Option<usize> {
        let mut out = vec![7u8; 5]; // appends after what is there
        let n = compress(10, input, &mut out)?;
        assert_eq!(out.len(), 5 + n);
        // Several frames one after the other decode as one block, as ROOT reads them.
        let back = zstd::bulk::decompress(&out[5..], input.len()).expect("valid frames");
        assert_eq!(back, input);
        Some(n)
    }

    #[test]
    fn split_floats_are_literals_and_smaller_than_one_frame() {
        for n in [1 << 14, 100_000, 1 << 18] {
            let page = split_floats(n, n as u64);
            let ours = round_trip(&page).expect("the exponent plane is literal-friendly");
            let whole = whole_frame(&page);
            assert!(
                (ours as f64) < whole as f64 * 0.995,
                "{n} floats: {ours} bytes against {whole}"
            );
        }
    }

    #[test]
    fn structured_and_mid_entropy_inputs_are_left_to_libzstd() {
        let mut state = 3;
        // 5-bit noise: libzstd's short matches win there (a little).
        let five: Vec<u8> = (0..200_000)
            .map(|_| splitmix(&mut state) as u8 & 31)
            .collect();
        // Records of a counter: low entropy, but matches at a repeated offset.
        let counter: Vec<u8> = (0..40_000u64).flat_map(|i| i.to_le_bytes()).collect();
        // Zeros and text.
        let zeros = vec![0u8; 100_000];
        let text: Vec<u8> = (0..20_000)
            .flat_map(|i| format!("Muon_pt[{}] ", i % 97).into_bytes())
            .collect();
        for input in [five, counter, zeros, text] {
            assert_eq!(compress(10, &input, &mut Vec::new()), None);
        }
        assert_eq!(compress(10, &[1, 2, 3], &mut Vec::new()), None);
    }

    #[test]
    fn literal_and_structured_runs_alternate_in_frames_that_decode() {
        let mut state = 11;
        let mut input = Vec::new();
        for part in 0..5 {
            if part % 2 == 0 {
                // Exponent-like bytes: few values, geometric.
                input.extend(
                    (0..40_000).map(|_| 0x3F - splitmix(&mut state).trailing_zeros().min(6) as u8),
                );
            } else {
                input.extend((0..30_000u32).flat_map(|i| (i / 3).to_le_bytes()));
            }
        }
        let n = round_trip(&input).expect("literal runs");
        assert!(n < whole_frame(&input) * 11 / 10);
    }

    #[test]
    fn entropy_of_known_distributions() {
        assert_eq!(entropy_bits(&[5; 100]), 0.0);
        let two: Vec<u8> = (0..1000).map(|i| (i % 2) as u8).collect();
        assert!((entropy_bits(&two) - 1.0).abs() < 1e-12);
        // Skewed: Shannon 1.75 bits (collision entropy 1.54).
        let skewed: Vec<u8> = (0..4000).map(|i| [0, 0, 0, 0, 1, 1, 2, 3][i % 8]).collect();
        assert!((entropy_bits(&skewed) - 1.75).abs() < 1e-12);
        // Above the low-entropy bound: the collision entropy, here equal to Shannon's.
        let all: Vec<u8> = (0..=255).collect();
        assert!((entropy_bits(&all) - 8.0).abs() < 1e-12);
        let counts = byte_counts(&[1, 2, 2, 3, 3, 3, 3]);
        assert_eq!((counts[1], counts[2], counts[3], counts[0]), (1, 2, 4, 0));
    }
}
