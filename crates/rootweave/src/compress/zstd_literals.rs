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

use super::noise::{
    chunk_entropy, entropy_classes, low_entropy_literals, runs, SequenceCost, CHUNK, LOW_ENTROPY,
};

/// Literals per zstd block: each block gets the Huffman code of its own bytes, so a block
/// should not span two byte planes of different kinds.
const LITERAL_BLOCK: usize = 16 * 1024;

/// What a zstd sequence costs at the least: literal length, match length and offset codes
/// and their extra bits for the short matches that noise gives; much less when it repeats
/// the previous sequence's offset (zstd's repeat codes: records of fixed size repeat it).
const ZSTD_SEQUENCES: SequenceCost = SequenceCost {
    new_offset_bits: 24.0,
    repeated_offset_bits: 8.0,
};

/// Compresses `input` into zstd frames appended to `out` (structured runs at libzstd
/// `level`). Returns their length, or None when no chunk is literal-friendly (the caller
/// then compresses the input as one frame) or a codec call failed.
pub(crate) fn compress(level: u32, input: &[u8], out: &mut Vec<u8>) -> Option<usize> {
    if input.len() < 2 * CHUNK {
        return None;
    }
    let entropy = chunk_entropy(input, LOW_ENTROPY);
    let literal = low_entropy_literals(input, &entropy, &ZSTD_SEQUENCES, LOW_ENTROPY)?;
    let frames = frames(input, &entropy, &literal);
    if frames.len() <= 1 && !frames.iter().any(|frame| frame.literal) {
        return None;
    }
    let start = out.len();
    for frame in &frames {
        let piece = &input[frame.start..frame.end];
        let written = if frame.literal {
            literal_frame(piece, out)
        } else {
            let at = out.len();
            super::codecs::zstd_compress(level, piece, out, at).map(|n| out.truncate(at + n))
        };
        if written.is_none() {
            out.truncate(start);
            return None;
        }
    }
    Some(out.len() - start)
}

/// One zstd frame of a page: a byte range, of literals only or compressed by libzstd.
struct Frame {
    start: usize,
    end: usize,
    literal: bool,
}

/// libzstd's blocks: 128 KiB, each with one Huffman code for its literals.
const ZSTD_BLOCK: usize = 128 * 1024;

/// Frames shorter than this are not cut off (a frame costs its header, and its matches
/// cannot reach into the frame before).
const MIN_FRAME: usize = 4 * CHUNK;

/// The frames of `input`, in order: the runs of `literal` chunks, and the other runs, cut
/// where the kind of bytes changes (up to 4, 7.5 and 8 bits of entropy per
/// byte) if such a change falls inside one of libzstd's 128 KiB blocks.
/// A block whose Huffman code is made for noise and an exponent plane at once codes the
/// exponents at nearly 8 bits: split double pages of 256 KiB, whose byte planes are
/// 32 KiB, came out 2.4% larger than the same values in 1 MiB pages (planes of 128 KiB,
/// one per block), and 3.7% at 128 KiB; cut by kind, they are within 0.1%. Where every
/// change is on a block boundary nothing is cut: a frame more would only cost.
fn frames(input: &[u8], entropy: &[f64], literal: &[bool]) -> Vec<Frame> {
    // Runs of a kind shorter than a frame join the run before: a plane whose entropy is
    // near a bound would otherwise flip between two kinds from chunk to chunk.
    let mut kinds = entropy_classes(entropy);
    let mut run_start = 0;
    for i in 1..=kinds.len() {
        if i == kinds.len() || kinds[i] != kinds[run_start] {
            if run_start > 0 && (i - run_start) * CHUNK < MIN_FRAME {
                let before = kinds[run_start - 1];
                kinds[run_start..i].fill(before);
            }
            run_start = i;
        }
    }
    let misaligned = kinds
        .windows(2)
        .enumerate()
        .any(|(i, pair)| pair[0] != pair[1] && ((i + 1) * CHUNK) % ZSTD_BLOCK != 0);
    let mut frames = Vec::new();
    for run in runs(literal, input.len()) {
        if run.noise {
            frames.push(Frame {
                start: run.start,
                end: run.end,
                literal: true,
            });
            continue;
        }
        let mut from = run.start;
        for (i, pair) in kinds[run.start / CHUNK..run.end.div_ceil(CHUNK)]
            .windows(2)
            .enumerate()
        {
            let at = run.start + (i + 1) * CHUNK;
            if misaligned && pair[0] != pair[1] && at - from >= MIN_FRAME {
                frames.push(Frame {
                    start: from,
                    end: at,
                    literal: false,
                });
                from = at;
            }
        }
        frames.push(Frame {
            start: from,
            end: run.end,
            literal: false,
        });
    }
    frames
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
    fn planes_inside_one_zstd_block_get_frames_of_their_own() {
        use crate::compress::test_pages::split;
        // Doubles in [0, 1) in pages of 256 KiB (planes of 32 KiB: noise, a 6-bit plane,
        // a plane of one value): no chunk is literal-friendly, but one frame would give
        // the 6-bit plane the Huffman code of the noise around it.
        let mut state = 5;
        let doubles: Vec<u64> = (0..1 << 17)
            .map(|_| ((splitmix(&mut state) >> 11) as f64 / (1u64 << 53) as f64).to_bits())
            .collect();
        let whole = whole_frame(&split(&doubles, 8));
        let mut pages = 0;
        for page in doubles.chunks(1 << 15) {
            let page = split(page, 8);
            pages += round_trip(&page).expect("several frames");
        }
        assert!(
            (pages as f64) < whole as f64 * 1.005,
            "256 KiB pages {pages} bytes, one 1 MiB page {whole}"
        );
        // Planes of 128 KiB start on block boundaries: one frame, libzstd's own.
        let big = split(&doubles, 8);
        assert_eq!(compress(10, &big, &mut Vec::new()), None);
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
}
