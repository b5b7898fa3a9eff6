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
//!
//! Noise (the low mantissa bytes of floats, the low bytes of uniform integers) goes the
//! same way: libzstd's search finds nothing there and codes literals as a literal block
//! does, at a third of its speed (a `wide` page of 64 KiB: 0.9 GB/s against 2.8 GB/s for
//! its noise planes).

use super::settings::Frames;
use std::cell::RefCell;
use std::ptr::NonNull;

use super::noise::{
    chunk_entropy_into, entropy_class, low_entropy_literals_in, sampled_noise, NoiseTest,
    SequenceCost, CHUNK, LOW_ENTROPY,
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
pub(crate) fn compress(
    level: u32,
    frames_of: Frames,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Option<usize> {
    if input.len() < 2 * CHUNK {
        return None;
    }
    CHUNKS.with(|chunks| {
        let chunks = &mut *chunks.borrow_mut();
        analyse(input, chunks)?;
        frames(chunks);
        let Chunks {
            bounds,
            literal_kinds,
            frames,
            blocks,
            ..
        } = chunks;
        if frames.len() <= 1 && !frames.iter().any(|frame| frame.literal) {
            return None;
        }
        let start = out.len();
        for frame in frames.iter() {
            let bounds = &bounds[frame.first..=frame.end];
            let piece = &input[bounds[0]..bounds[bounds.len() - 1]];
            let written = if frame.literal {
                literal_blocks(bounds, &literal_kinds[frame.first..frame.end], blocks);
                literal_frame(piece, blocks, out)
            } else {
                let at = out.len();
                super::codecs::zstd_compress(level, frames_of, piece, out, at)
                    .map(|n| out.truncate(at + n))
            };
            if written.is_none() {
                out.truncate(start);
                return None;
            }
        }
        Some(out.len() - start)
    })
}

/// A page cut into chunks, what is known of each, and its frames: one per thread, reused
/// from page to page (pages are compressed by the thousand).
#[derive(Default)]
struct Chunks {
    /// Chunk `i` is the bytes `bounds[i]..bounds[i + 1]`.
    bounds: Vec<usize>,
    /// The sampled entropy of each chunk, in bits per byte (`chunk_entropy`).
    entropy: Vec<f64>,
    /// The kind of bytes of each chunk (`smoothed_classes`), where frames are cut.
    kinds: Vec<u8>,
    /// The kind of bytes of each chunk (`block_classes`), where literal blocks are cut.
    literal_kinds: Vec<u8>,
    /// Whether each chunk goes into a frame of literals.
    literal: Vec<bool>,
    /// Whether each chunk is noise (`sampled_noise`).
    noise: Vec<bool>,
    /// The frames (`frames`).
    frames: Vec<Frame>,
    /// The lengths of the blocks of a literal frame (`literal_blocks`).
    blocks: Vec<usize>,
}

thread_local! {
    static CHUNKS: RefCell<Chunks> = RefCell::new(Chunks::default());
}

/// Parts of a page shorter than this are not cut further (a chunk's entropy is estimated
/// from its first kilobyte).
const MIN_PART: usize = 1024;

/// The parts of a page of `len` bytes whose chunks are counted from their own start: its
/// eighths (else quarters, halves) where they divide it. A split page of n values of 2, 4
/// or 8 bytes is byte planes of n bytes each; with chunks counted from the page's start
/// only, a chunk straddles the end of a noise plane and the start of an exponent plane,
/// which is neither noise nor literal-friendly, and went to libzstd as a frame of its own
/// at 76 MB/s (`wide` pages of 64000 bytes at two threads: a third of libzstd's time).
/// Counted from every eighth, chunks start at every plane of 8-byte values, and at every
/// plane and mid-plane of 4- and 2-byte values.
fn parts(len: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let count = [8, 4, 2]
        .into_iter()
        .find(|&count| len % count == 0 && len / count >= MIN_PART)
        .unwrap_or(1);
    let part = len / count;
    (0..count).map(move |i| i * part..(i + 1) * part)
}

/// Cuts `input` into `chunks` (CHUNK bytes from the start of each of its `parts`) and
/// tells which go into literal frames: those of low entropy where matches do not pay
/// (`low_entropy_literals_in`), and noise (`sampled_noise`) in runs of a frame's length at
/// least. None if LZ4's fast pass failed.
fn analyse(input: &[u8], chunks: &mut Chunks) -> Option<()> {
    let Chunks {
        bounds,
        entropy,
        kinds,
        literal_kinds,
        literal,
        noise,
        ..
    } = chunks;
    bounds.clear();
    entropy.clear();
    for part in parts(input.len()) {
        chunk_entropy_into(&input[part.clone()], LOW_ENTROPY, entropy);
        bounds.extend(part.step_by(CHUNK));
    }
    bounds.push(input.len());
    // LZ4's passes run over stretches of chunks across parts: matches from one part to
    // another (a pattern that repeats every part) count.
    low_entropy_literals_in(
        input,
        bounds,
        entropy,
        &ZSTD_SEQUENCES,
        LOW_ENTROPY,
        literal,
    )?;
    // Near-uniform chunks only: a plane of 5-6 bits (the exponent and top mantissa bits of
    // doubles) may pass the noise test in a small page, and in a literal block with the
    // noise before it would be coded with the noise's Huffman code.
    let test = noise_test(input.len());
    sampled_noise(input, bounds, entropy, NOISE_ENTROPY, &test, noise)?;
    for (first, end, is_noise) in flag_runs(noise) {
        // A few noise chunks alone are a plane near the test's bound, whose chunks would
        // flip between frames of two kinds (each frame's code and matches start afresh).
        if is_noise && bounds[end] - bounds[first] >= MIN_FRAME {
            literal[first..end].fill(true);
        }
    }
    smoothed_classes(bounds, entropy, kinds);
    block_classes(bounds, entropy, literal_kinds);
    Some(())
}

/// The runs of equal `flags`: first index, end index and the flag.
fn flag_runs(flags: &[bool]) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let first = i;
        let flag = *flags.get(first)?;
        while i < flags.len() && flags[i] == flag {
            i += 1;
        }
        Some((first, i, flag))
    })
}

/// Chunks of fewer bits per byte than this are not noise to zstd (the low bytes of
/// zigzag-encoded positive integers, all even, are 7 bits).
const NOISE_ENTROPY: f64 = 6.5;

/// libzstd's idea of noise in a frame of `len` bytes: its matches reach back over the
/// whole frame (ROOT's pages are smaller than level 10's window); chunks where 4-byte
/// matches are expected at fewer than one position in 20 and LZ4's fast pass finds no
/// match of 8 bytes or more. There libzstd's search finds nothing that pays (a 5- to
/// 7-byte match in near-uniform bytes saves less than its sequence costs) and it ends up
/// coding the literals with a Huffman code, as a literal block does: 2-3x faster, and the
/// same size within 0.05% on split float pages.
fn noise_test(len: usize) -> NoiseTest {
    NoiseTest {
        window: len as f64,
        matches_per_position: 0.05,
        min_match: 8,
    }
}

/// One zstd frame of a page: chunks `first..end`, of literals only or compressed by
/// libzstd.
struct Frame {
    first: usize,
    end: usize,
    literal: bool,
}

/// libzstd's blocks: 128 KiB, each with one Huffman code for its literals.
const ZSTD_BLOCK: usize = 128 * 1024;

/// Frames shorter than this are not cut off (a frame costs its header, and its matches
/// cannot reach into the frame before).
const MIN_FRAME: usize = 4 * CHUNK;

/// The kind of bytes of each chunk (`entropy_class` of its `entropy`; chunk `i` is
/// `bounds[i]..bounds[i + 1]`), where frames are cut: runs of a kind shorter than a frame
/// join the run before, since a plane whose entropy is near a bound would otherwise flip
/// between two kinds from chunk to chunk.
fn smoothed_classes(bounds: &[usize], entropy: &[f64], kinds: &mut Vec<u8>) {
    smooth_classes(entropy, kinds, |run, _| {
        bounds[run.end] - bounds[run.start] < MIN_FRAME
    });
}

/// The kind of bytes of each chunk, where literal blocks are cut: as `smoothed_classes`
/// (a plane near 7.5 bits would otherwise cut a block wherever its chunks waver, each
/// block paying for its code), except that a run of two chunks or more stays where it or
/// the run before is of low entropy: the exponent plane of a page of 4000 floats is 4000
/// bytes, and coded with the Huffman code of the noise before it, it would take 8 bits a
/// byte instead of 1.5.
fn block_classes(bounds: &[usize], entropy: &[f64], kinds: &mut Vec<u8>) {
    smooth_classes(entropy, kinds, |run, low| {
        if low {
            run.len() < 2
        } else {
            bounds[run.end] - bounds[run.start] < MIN_FRAME
        }
    });
}

/// Fills `kinds` with the `entropy_class` of each chunk's `entropy`, where each run of a
/// kind (but the first) for which `too_short(run, low)` holds joins the run before; `low`
/// tells whether the run or the one before is of low entropy (kind 0).
fn smooth_classes(
    entropy: &[f64],
    kinds: &mut Vec<u8>,
    too_short: impl Fn(std::ops::Range<usize>, bool) -> bool,
) {
    kinds.clear();
    kinds.extend(entropy.iter().map(|&h| entropy_class(h)));
    let mut run_start = 0;
    for i in 1..=kinds.len() {
        if i == kinds.len() || kinds[i] != kinds[run_start] {
            if run_start > 0 {
                let before = kinds[run_start - 1];
                let low = kinds[run_start] == 0 || before == 0;
                if too_short(run_start..i, low) {
                    kinds[run_start..i].fill(before);
                }
            }
            run_start = i;
        }
    }
}

/// The frames of a page (into `chunks.frames`), in order: the runs of literal chunks, and
/// the other runs, cut where the kind of bytes changes if such a change falls inside one
/// of libzstd's 128 KiB blocks.
/// A block whose Huffman code is made for noise and an exponent plane at once codes the
/// exponents at nearly 8 bits: split double pages of 256 KiB, whose byte planes are
/// 32 KiB, came out 2.4% larger than the same values in 1 MiB pages (planes of 128 KiB,
/// one per block), and 3.7% at 128 KiB; cut by kind, they are within 0.1%. Where every
/// change is on a block boundary nothing is cut: a frame more would only cost.
fn frames(chunks: &mut Chunks) {
    let Chunks {
        bounds,
        kinds,
        literal,
        frames,
        ..
    } = chunks;
    let misaligned =
        (1..kinds.len()).any(|i| kinds[i] != kinds[i - 1] && bounds[i] % ZSTD_BLOCK != 0);
    frames.clear();
    for (first, end, is_literal) in flag_runs(literal) {
        if is_literal {
            frames.push(Frame {
                first,
                end,
                literal: true,
            });
            continue;
        }
        let mut from = first;
        for i in first + 1..end {
            if misaligned && kinds[i] != kinds[i - 1] && bounds[i] - bounds[from] >= MIN_FRAME {
                frames.push(Frame {
                    first: from,
                    end: i,
                    literal: false,
                });
                from = i;
            }
        }
        frames.push(Frame {
            first: from,
            end,
            literal: false,
        });
    }
}

/// The literal blocks of a frame whose chunks are of `kinds` (chunk `i` is
/// `bounds[i]..bounds[i + 1]`), as block lengths into `blocks`: a block ends where the
/// kind changes, and within `LITERAL_BLOCK` bytes of low entropy (an exponent plane's
/// frequencies drift from plane to plane) or `ZSTD_BLOCK` bytes of the other kinds (a
/// Huffman code of near-uniform bytes gains little from being redone, and costs its table
/// every time).
fn literal_blocks(bounds: &[usize], kinds: &[u8], blocks: &mut Vec<usize>) {
    blocks.clear();
    let mut i = 0;
    while i < kinds.len() {
        let kind = kinds[i];
        let limit = if kind == 0 { LITERAL_BLOCK } else { ZSTD_BLOCK };
        let start = bounds[i];
        let mut end = i + 1;
        while end < kinds.len() && kinds[end] == kind && bounds[end + 1] - start <= limit {
            end += 1;
        }
        blocks.push(bounds[end] - start);
        i = end;
    }
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

/// Appends one zstd frame holding `piece` as literals only, in blocks of these lengths
/// (which add up to the piece's).
fn literal_frame(piece: &[u8], blocks: &[usize], out: &mut Vec<u8>) -> Option<()> {
    use zstd_sys::{ZSTD_ResetDirective as Reset, ZSTD_cParameter as Param};
    // One sequence per block: all of its bytes as literals, no match (a block delimiter).
    let blocks: Vec<zstd_sys::ZSTD_Sequence> = blocks
        .iter()
        .map(|&len| zstd_sys::ZSTD_Sequence {
            offset: 0,
            litLength: len as u32,
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
    use crate::compress::noise::{chunk_entropy, uniform_bounds};
    use crate::compress::test_pages::{split_floats, splitmix};

    fn whole_frame(input: &[u8]) -> usize {
        zstd::bulk::compress(input, 10).unwrap().len()
    }

    fn round_trip(input: &[u8]) -> Option<usize> {
        let mut out = vec![7u8; 5]; // appends after what is there
        let n = compress(10, Frames::Pages, input, &mut out)?;
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
            assert_eq!(compress(10, Frames::Pages, &input, &mut Vec::new()), None);
        }
        assert_eq!(
            compress(10, Frames::Pages, &[1, 2, 3], &mut Vec::new()),
            None
        );
    }

    #[test]
    fn planes_inside_one_zstd_block_get_frames_of_their_own() {
        use crate::compress::test_pages::split;
        // Doubles in [0, 1) in pages of 256 KiB (planes of 32 KiB: noise, a 6-bit plane,
        // a plane of one value): the noise planes are literals, and one frame would give
        // the 6-bit plane and the plane of one value the same Huffman code.
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
        // Planes of 128 KiB start on block boundaries: the noise planes one literal frame,
        // the 6-bit plane and the plane of one value one frame of libzstd's.
        let big = split(&doubles, 8);
        assert_eq!(spans(&big), [(0, 6 << 17, true), (6 << 17, 8 << 17, false)]);
        // (A frame more costs its header: a few bytes.)
        let ours = round_trip(&big).unwrap();
        assert!(ours <= whole + 32, "{ours} against {whole}");
    }

    #[test]
    fn noise_is_literals_unless_it_repeats_or_is_a_few_chunks_alone() {
        use crate::compress::test_pages::random_bytes;
        // Noise: literal blocks, raw where Huffman codes would not pay.
        let noise = random_bytes(64 << 10, 8, 1);
        let n = round_trip(&noise).expect("a literal frame");
        assert!(n <= noise.len() + 64, "{n}");
        // The same noise in a run of 8 KiB repeated: byte frequencies of noise, but long
        // matches that LZ4's fast pass finds, left to libzstd.
        let repeated: Vec<u8> = noise[..8 << 10].repeat(8);
        let entropy = chunk_entropy(&repeated, LOW_ENTROPY);
        assert!(entropy.iter().all(|&h| h > 7.5));
        assert!(!analysed(&repeated).literal.contains(&true));
        assert!(zstd_and_back(&repeated) < 9 << 10);
        // Three chunks of noise amid text stay in the text's frame.
        let text: Vec<u8> = (0..4000)
            .flat_map(|i| format!("Muon_pt[{}] ", i % 97).into_bytes())
            .take(40 << 10)
            .collect();
        let mut mixed = text.clone();
        mixed.splice(16 << 10..16 << 10, noise[..3 * CHUNK].iter().copied());
        let entropy = chunk_entropy(&mixed, LOW_ENTROPY);
        assert!(entropy[4..7].iter().all(|&h| h > 7.5));
        assert!(!analysed(&mixed).literal.contains(&true));
    }

    /// The frames `compress` makes of `input`: byte ranges, and whether of literals.
    fn spans(input: &[u8]) -> Vec<(usize, usize, bool)> {
        let mut chunks = analysed(input);
        frames(&mut chunks);
        chunks
            .frames
            .iter()
            .map(|f| (chunks.bounds[f.first], chunks.bounds[f.end], f.literal))
            .collect()
    }

    /// `input` analysed into chunks of its own.
    fn analysed(input: &[u8]) -> Chunks {
        let mut chunks = Chunks::default();
        analyse(input, &mut chunks).unwrap();
        chunks
    }

    /// `literal_blocks` into a new vector.
    fn blocks_of(bounds: &[usize], kinds: &[u8]) -> Vec<usize> {
        let mut blocks = Vec::new();
        literal_blocks(bounds, kinds, &mut blocks);
        blocks
    }

    #[test]
    fn chunks_start_at_the_planes_of_a_page_of_any_length() {
        // Floats in pages of 16000 values: planes of 16000 bytes, not on 4 KiB bounds. The
        // chunk that would straddle the last noise plane and the exponent plane would go
        // to libzstd alone; chunks counted from each plane make the page one literal frame.
        for n in [16000, 16001, 24000, 65000] {
            let page = split_floats(n, n as u64);
            assert_eq!(spans(&page), [(0, 4 * n, true)], "{n} floats");
            let ours = round_trip(&page).unwrap();
            let whole = whole_frame(&page);
            assert!(ours <= whole, "{n} floats: {ours} bytes against {whole}");
        }
        assert_eq!(
            parts(64000).collect::<Vec<_>>(),
            (0..8).map(|i| i * 8000..(i + 1) * 8000).collect::<Vec<_>>()
        );
        assert_eq!(parts(4 * 1100).count(), 4);
        assert_eq!(parts(2 * 1025).count(), 2);
        assert_eq!(parts(2 * 1001 + 1).count(), 1);
    }

    /// The size of `input` compressed by `compress` or, where it declines, by one frame.
    fn zstd_and_back(input: &[u8]) -> usize {
        round_trip(input).unwrap_or_else(|| whole_frame(input))
    }

    #[test]
    fn literal_blocks_end_at_changes_of_kind_and_at_their_kind_s_length() {
        assert_eq!(
            blocks_of(&uniform_bounds(10 * CHUNK), &[0; 10]),
            [16 << 10, 16 << 10, 8 << 10]
        );
        let kinds = [[1u8; 40], [2; 40]].concat();
        assert_eq!(
            blocks_of(&uniform_bounds(80 * CHUNK - 100), &kinds),
            [128 << 10, 32 << 10, 128 << 10, (32 << 10) - 100]
        );
        assert_eq!(
            blocks_of(&uniform_bounds(6 * CHUNK), &[0, 0, 2, 2, 0, 1]),
            [2 * CHUNK, 2 * CHUNK, CHUNK, CHUNK]
        );
        // Chunks of any length: a block holds whole chunks, within its length.
        let bounds = [100, 4196, 8000, 12096, 16000, 20096, 24000];
        assert_eq!(blocks_of(&bounds, &[0; 6]), [15900, 8000]);
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
