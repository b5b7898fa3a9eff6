//! Telling noise from compressible data, chunk by chunk, so that a codec's match search
//! (the slow part of LZ4-HC and deflate) runs only where it can find something.
//!
//! Split pages of floating-point or wide integer values are mostly noise: the low
//! mantissa bytes of a float, the low bytes of a uniformly distributed integer. A chunk
//! is noise when two tests agree: its byte frequencies make a 4-byte match rare within
//! the codec's window, and LZ4's fast compressor, run once over the whole input (at
//! several GB/s), found no match of at least the codec's interesting length in it. The
//! second test catches structure that byte frequencies do not show (a counter's low
//! byte, a repeated sequence of random bytes).

use lz4::block::{compress_bound, compress_to_buffer, CompressionMode};

use std::cell::RefCell;

use super::lz4hc::Sequences;

thread_local! {
    /// LZ4's fast pass output, reused (pages are compressed by the thousand).
    static FAST: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Bytes per chunk classified as noise or compressible.
pub(super) const CHUNK: usize = 4096;

/// A codec's idea of noise.
pub(super) struct NoiseTest {
    /// How far back the codec's matches reach, in bytes.
    pub window: f64,
    /// Expected 4-byte matches per position within the window below which the byte
    /// frequencies say noise.
    pub matches_per_position: f64,
    /// Matches of LZ4's fast pass at least this long make the chunks they touch
    /// compressible (4, LZ4's shortest, counts every match found).
    pub min_match: usize,
}

/// Fills `noise` with one flag per chunk of `input`; None if LZ4's fast pass failed (the
/// caller then compresses the whole input).
pub(super) fn classify(input: &[u8], test: &NoiseTest, noise: &mut Vec<bool>) -> Option<()> {
    let chunks = input.len().div_ceil(CHUNK);
    noise.clear();
    noise.extend(
        input
            .chunks(CHUNK)
            .map(|chunk| matches_are_rare(chunk, test)),
    );
    if !noise.contains(&true) {
        // Nothing to skip: no need to look for matches.
        return Some(());
    }
    // LZ4's fast compressor skips ahead quickly where it finds nothing; where it finds a
    // match, the chunks from the match's source to its end are not noise, so that they
    // are compressed as one run, in which the codec finds the match again.
    FAST.with(|fast| {
        let fast = &mut *fast.borrow_mut();
        let n = lz4_fast_pass(input, fast)?;
        for sequence in Sequences::new(&fast[..n]) {
            let sequence = sequence?;
            // The last sequence has no match (length 0); min_match is at least 4.
            if sequence.match_len >= test.min_match.max(1) {
                let first = sequence.match_start.checked_sub(sequence.offset)? / CHUNK;
                let last = (sequence.match_start + sequence.match_len - 1) / CHUNK;
                for flag in &mut noise[first..=last.min(chunks - 1)] {
                    *flag = false;
                }
            }
        }
        Some(())
    })
}

/// Fills `noise` with one flag per chunk of `input` (chunk `i` is `bounds[i]..bounds[i +
/// 1]`): noise by `test` and of `min_entropy` bits per byte at least, judged from the
/// chunks' sampled `entropy` (`chunk_entropy`; above its bound a collision entropy, which
/// is what the byte-frequency test needs) instead of counting every byte again, and
/// confirmed by LZ4's fast pass over each run of such chunks alone (not over the
/// structured rest of the input, where it is slow and finds matches by the thousand). A
/// match between a noise chunk and a structured chunk elsewhere goes unseen: cheaper than
/// `classify` where a codec's own search is fast enough that `classify` would cost as
/// much as it saves. None if LZ4's fast pass failed.
pub(super) fn sampled_noise(
    input: &[u8],
    bounds: &[usize],
    entropy: &[f64],
    min_entropy: f64,
    test: &NoiseTest,
    noise: &mut Vec<bool>,
) -> Option<()> {
    noise.clear();
    noise.extend(entropy.iter().map(|&h| {
        h > LOW_ENTROPY
            && h >= min_entropy
            && test.window * (-4.0 * h).exp2() < test.matches_per_position
    }));
    let mut from = 0;
    while let Some((first, end)) = next_true_run(noise, from) {
        from = end;
        let start = bounds[first];
        FAST.with(|fast| {
            let fast = &mut *fast.borrow_mut();
            let n = lz4_fast_pass(&input[start..bounds[end]], fast)?;
            for sequence in Sequences::new(&fast[..n]) {
                let sequence = sequence?;
                if sequence.match_len >= test.min_match.max(1) {
                    let source = start + sequence.match_start.checked_sub(sequence.offset)?;
                    let last = start + sequence.match_start + sequence.match_len - 1;
                    let from = chunk_at(bounds, source);
                    let to = chunk_at(bounds, last).min(end - 1);
                    noise[from..=to].fill(false);
                }
            }
            Some(())
        })?;
    }
    Some(())
}

/// The first run of true `flags` from index `from` on: its first and end indices.
fn next_true_run(flags: &[bool], from: usize) -> Option<(usize, usize)> {
    let first = from + flags.get(from..)?.iter().position(|&flag| flag)?;
    let end = first + flags[first..].iter().take_while(|&&flag| flag).count();
    Some((first, end))
}

/// The chunk holding byte `pos` (chunk `i` is `bounds[i]..bounds[i + 1]`; `pos` is before
/// the last bound).
fn chunk_at(bounds: &[usize], pos: usize) -> usize {
    bounds.partition_point(|&bound| bound <= pos) - 1
}

/// The bounds of the chunks of an input of `len` bytes cut every `CHUNK` bytes.
pub(super) fn uniform_bounds(len: usize) -> Vec<usize> {
    let mut bounds: Vec<usize> = (0..len).step_by(CHUNK).collect();
    bounds.push(len);
    bounds
}

/// LZ4's fast compressor over `input` into `fast` (grown as needed); the block's length.
fn lz4_fast_pass(input: &[u8], fast: &mut Vec<u8>) -> Option<usize> {
    fast.resize(compress_bound(input.len()).ok()?, 0);
    compress_to_buffer(input, Some(CompressionMode::DEFAULT), false, fast).ok()
}

/// Whether the byte frequencies of `chunk` make 4-byte matches rare within the window.
fn matches_are_rare(chunk: &[u8], test: &NoiseTest) -> bool {
    if chunk.len() < 2 {
        return false;
    }
    let counts = byte_counts(chunk);
    // Probability that two different positions hold the same byte (unbiased estimate).
    let n = chunk.len() as f64;
    let pairs: f64 = counts
        .iter()
        .map(|&c| c as f64 * (c as f64 - 1.0))
        .sum::<f64>();
    let same_byte = pairs / (n * (n - 1.0));
    test.window * same_byte.powi(4) < test.matches_per_position
}

/// How often each byte value occurs in `chunk`. Four tables filled in turn: a run of one
/// byte value (a plane of zeros, an exponent byte) would otherwise make every increment
/// wait for the previous one.
pub(super) fn byte_counts(chunk: &[u8]) -> [u32; 256] {
    let mut tables = [[0u32; 256]; 4];
    let mut quads = chunk.chunks_exact(4);
    for quad in &mut quads {
        tables[0][quad[0] as usize] += 1;
        tables[1][quad[1] as usize] += 1;
        tables[2][quad[2] as usize] += 1;
        tables[3][quad[3] as usize] += 1;
    }
    for &byte in quads.remainder() {
        tables[0][byte as usize] += 1;
    }
    let mut counts = tables[0];
    for table in &tables[1..] {
        for (count, more) in counts.iter_mut().zip(table) {
            *count += more;
        }
    }
    counts
}

/// What a codec's match (a sequence) costs at the least, in bits: with a new offset, and
/// repeating the previous one.
pub(super) struct SequenceCost {
    /// Bits of a sequence with a new offset.
    pub new_offset_bits: f64,
    /// Bits of a sequence that repeats the previous sequence's offset.
    pub repeated_offset_bits: f64,
}

/// Below this share of a chunk's literal cost, what matches save is not worth a search.
const MATCH_GAIN: f64 = 0.02;

/// Bytes of a chunk whose frequencies estimate its entropy.
const ENTROPY_SAMPLE: usize = 1024;

/// Match gains are valued per kilobyte of a chunk (the sample size).
const SUBCHUNK: usize = ENTROPY_SAMPLE;

/// Chunks of at most this entropy (bits per byte) are where the search of a codec with
/// Huffman-coded literals is slow and its matches cost more than they save (exponent bytes
/// of floats): the `max_entropy` of zstd and deflate.
pub(super) const LOW_ENTROPY: f64 = 4.0;

/// One flag per chunk: whether the chunk is better left to entropy-coded literals than to
/// a match search (a codec's literal-only blocks code it close to its entropy). Candidates
/// are chunks of at most `max_entropy` bits per byte but more than one byte value (a run
/// of one value is a match from end to end); LZ4's fast pass runs over each stretch of
/// candidates, and a candidate stays one if the matches found in it would not pay.
/// `entropy` is `chunk_entropy(input, max_entropy)`. None if that pass failed.
pub(super) fn low_entropy_literals(
    input: &[u8],
    entropy: &[f64],
    cost: &SequenceCost,
    max_entropy: f64,
) -> Option<Vec<bool>> {
    let bounds = uniform_bounds(input.len());
    let mut literal = Vec::new();
    low_entropy_literals_in(input, &bounds, entropy, cost, max_entropy, &mut literal)?;
    Some(literal)
}

/// The scratch of `low_entropy_literals_in`, reused from page to page.
#[derive(Default)]
struct GainScratch {
    /// Where each chunk's kilobytes start in `bits_per_byte`.
    first: Vec<usize>,
    /// Bits per byte of each kilobyte.
    bits_per_byte: Vec<f64>,
    /// What matches save in each chunk, in bits.
    gain: Vec<f64>,
}

thread_local! {
    static GAINS: RefCell<GainScratch> = RefCell::new(GainScratch::default());
}

/// `low_entropy_literals` over chunks of any length (chunk `i` is `bounds[i]..bounds[i +
/// 1]`, of sampled `entropy[i]`), into `literal`.
pub(super) fn low_entropy_literals_in(
    input: &[u8],
    bounds: &[usize],
    entropy: &[f64],
    cost: &SequenceCost,
    max_entropy: f64,
    literal: &mut Vec<bool>,
) -> Option<()> {
    literal.clear();
    literal.extend(entropy.iter().map(|&h| h > 0.0 && h <= max_entropy));
    GAINS.with(|scratch| {
        let scratch = &mut *scratch.borrow_mut();
        let mut from = 0;
        while let Some((first, end)) = next_true_run(literal, from) {
            from = end;
            let stretch = Stretch {
                input,
                bounds: &bounds[first..=end],
                entropy: &entropy[first..end],
            };
            stretch_literals(
                &stretch,
                cost,
                max_entropy,
                scratch,
                &mut literal[first..end],
            )?;
        }
        Some(())
    })
}

/// A stretch of chunks of an input: chunk `i` is `input[bounds[i]..bounds[i + 1]]`, of
/// sampled `entropy[i]`.
struct Stretch<'a> {
    input: &'a [u8],
    bounds: &'a [usize],
    entropy: &'a [f64],
}

/// Judges a stretch of candidate chunks: `literal[i]` stays true where the matches LZ4's
/// fast pass finds in the chunk would save less than `MATCH_GAIN` of its literal cost.
fn stretch_literals(
    stretch: &Stretch,
    cost: &SequenceCost,
    max_entropy: f64,
    scratch: &mut GainScratch,
    literal: &mut [bool],
) -> Option<()> {
    let Stretch {
        input,
        bounds,
        entropy,
    } = *stretch;
    let start = bounds[0];
    let chunks = entropy.len();
    // Literal cost in bits per byte of each kilobyte of each chunk (counted from the
    // chunk's start): the entropy, at least one bit (a Huffman code has no shorter codes).
    // Where the bound goes up to whole bytes (LZMA, slow enough for the counting not to
    // matter), every kilobyte's own: a chunk that starts with the end of a noise plane and
    // goes on with an exponent plane would otherwise value the matches of the exponent
    // plane at 8 bits a byte.
    scratch.first.clear();
    scratch.bits_per_byte.clear();
    for (i, &h) in entropy.iter().enumerate() {
        scratch.first.push(scratch.bits_per_byte.len());
        for sub in input[bounds[i]..bounds[i + 1]].chunks(SUBCHUNK) {
            let bits = if max_entropy > LOW_ENTROPY {
                entropy_bits(sub, max_entropy)
            } else {
                h
            };
            scratch.bits_per_byte.push(bits.max(1.0));
        }
    }
    scratch.gain.clear();
    scratch.gain.resize(chunks, 0.0);
    FAST.with(|fast| {
        let mut fast = fast.borrow_mut();
        let n = lz4_fast_pass(&input[start..bounds[chunks]], &mut fast)?;
        count_match_gain(&fast[..n], cost, bounds, scratch)
    })?;
    for (i, flag) in literal.iter_mut().enumerate() {
        let len = bounds[i + 1] - bounds[i];
        let literal_cost: f64 = (0..len.div_ceil(SUBCHUNK))
            .map(|j| {
                let sub_len = (len - j * SUBCHUNK).min(SUBCHUNK);
                scratch.bits_per_byte[scratch.first[i] + j] * sub_len as f64
            })
            .sum();
        *flag = scratch.gain[i] < MATCH_GAIN * literal_cost;
    }
    Some(())
}

/// Adds to `scratch.gain` (bits, per chunk) what the matches of the LZ4 block `fast`
/// (of the bytes from `bounds[0]` on; chunk `i` is `bounds[i]..bounds[i + 1]`) would save
/// over literals coded at the kilobytes' cost in `scratch`, less what their sequences
/// cost. None if the block is malformed.
fn count_match_gain(
    fast: &[u8],
    cost: &SequenceCost,
    bounds: &[usize],
    scratch: &mut GainScratch,
) -> Option<()> {
    let start = bounds[0];
    // Chunk bounds relative to the block's first byte.
    let bound = |chunk: usize| bounds[chunk] - start;
    let mut last_offset = 0;
    // The chunk of the current match's start: matches come in order.
    let mut first_chunk = 0;
    for sequence in Sequences::new(fast) {
        let sequence = sequence?;
        if sequence.match_len == 0 {
            continue;
        }
        let bits = if sequence.offset == last_offset {
            cost.repeated_offset_bits
        } else {
            cost.new_offset_bits
        };
        last_offset = sequence.offset;
        // The matched bytes no longer cost literals; the sequence costs its codes.
        let end = sequence.match_start + sequence.match_len;
        while bound(first_chunk + 1) <= sequence.match_start {
            first_chunk += 1;
        }
        let mut chunk = first_chunk;
        scratch.gain[chunk] -= bits;
        let mut at = sequence.match_start;
        while at < end {
            while bound(chunk + 1) <= at {
                chunk += 1;
            }
            let sub = (at - bound(chunk)) / SUBCHUNK;
            let stop = (bound(chunk) + (sub + 1) * SUBCHUNK)
                .min(bound(chunk + 1))
                .min(end);
            scratch.gain[chunk] +=
                (stop - at) as f64 * scratch.bits_per_byte[scratch.first[chunk] + sub];
            at = stop;
        }
    }
    Some(())
}

/// Shannon entropy of the bytes of `chunk`, in bits per byte, estimated from its first
/// kilobyte; above `bound` only a lower bound (the collision entropy, which needs no
/// logarithms) when that lower bound is above `bound` already.
fn entropy_bits(chunk: &[u8], bound: f64) -> f64 {
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
    if collision_entropy > bound {
        return collision_entropy;
    }
    shannon_entropy(&counts, sample.len())
}

/// Shannon entropy in bits per byte of `len` bytes with these byte `counts`: log2(n) less
/// the mean of c log2(c) over the bytes, the latter from a table for counts up to a chunk
/// (the logarithms cost as much as the counting: ~4% of LZMA's time on wide pages).
pub(super) fn shannon_entropy(counts: &[u32; 256], len: usize) -> f64 {
    if len == 0 {
        return 0.0;
    }
    let n = len as f64;
    let table = count_log_table();
    let sum: f64 = counts
        .iter()
        .filter(|&&c| c > 1)
        .map(|&c| match table.get(c as usize) {
            Some(&value) => value,
            None => f64::from(c) * f64::from(c).log2(),
        })
        .sum();
    (n.log2() - sum / n).max(0.0)
}

/// c log2(c) for c = 0..=CHUNK.
fn count_log_table() -> &'static [f64] {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0..=CHUNK)
            .map(|c| {
                if c < 2 {
                    0.0
                } else {
                    c as f64 * (c as f64).log2()
                }
            })
            .collect()
    })
}

/// The entropy of each chunk of `input` in bits per byte, from its first kilobyte (see
/// `entropy_bits`: above `bound`, a lower bound).
pub(super) fn chunk_entropy(input: &[u8], bound: f64) -> Vec<f64> {
    let mut entropy = Vec::new();
    chunk_entropy_into(input, bound, &mut entropy);
    entropy
}

/// Appends `chunk_entropy(input, bound)` to `entropy`.
pub(super) fn chunk_entropy_into(input: &[u8], bound: f64, entropy: &mut Vec<f64>) {
    entropy.extend(input.chunks(CHUNK).map(|chunk| entropy_bits(chunk, bound)));
}

/// The kind of bytes of a chunk of entropy `h` (`chunk_entropy`): 0 up to 4 bits
/// per byte (one value, now and then another, is of this kind whether or not the sample
/// holds the other), 1 up to 7.5 bits, 2 noise.
pub(super) fn entropy_class(h: f64) -> u8 {
    if h <= LOW_ENTROPY {
        0
    } else if h <= 7.5 {
        1
    } else {
        2
    }
}

/// A stretch of chunks of one kind.
pub(super) struct Run {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// Whether the chunks are noise.
    pub noise: bool,
}

/// The runs of equal flags, in byte positions of an input of `len` bytes.
pub(super) fn runs(noise: &[bool], len: usize) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (i, &flag) in noise.iter().enumerate() {
        let end = ((i + 1) * CHUNK).min(len);
        match runs.last_mut() {
            Some(run) if run.noise == flag => run.end = end,
            _ => runs.push(Run {
                start: i * CHUNK,
                end,
                noise: flag,
            }),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_of_known_distributions() {
        assert_eq!(entropy_bits(&[5; 100], LOW_ENTROPY), 0.0);
        let two: Vec<u8> = (0..1000).map(|i| (i % 2) as u8).collect();
        assert!((entropy_bits(&two, LOW_ENTROPY) - 1.0).abs() < 1e-12);
        // Skewed: Shannon 1.75 bits (collision entropy 1.54).
        let skewed: Vec<u8> = (0..4000).map(|i| [0, 0, 0, 0, 1, 1, 2, 3][i % 8]).collect();
        assert!((entropy_bits(&skewed, LOW_ENTROPY) - 1.75).abs() < 1e-12);
        // Above the bound: the collision entropy, here equal to Shannon's.
        let all: Vec<u8> = (0..=255).collect();
        assert!((entropy_bits(&all, LOW_ENTROPY) - 8.0).abs() < 1e-12);
        // 5 bits: Shannon's entropy when the bound is above the collision entropy.
        let five: Vec<u8> = (0..1024)
            .map(|i| [0, 0, 1, 2][i % 4] + 4 * (i / 4 % 8) as u8)
            .collect();
        assert!((entropy_bits(&five, 8.0) - 4.5).abs() < 1e-12);
        // Counts beyond the table, and none.
        let mut big = [0u32; 256];
        big[0] = 6000;
        big[1] = 2000;
        let quarter = -(0.75f64 * 0.75f64.log2() + 0.25 * 0.25f64.log2());
        assert!((shannon_entropy(&big, 8000) - quarter).abs() < 1e-12);
        assert_eq!(shannon_entropy(&[0; 256], 0), 0.0);
        assert!(entropy_bits(&five, LOW_ENTROPY) < 4.5);
        let counts = byte_counts(&[1, 2, 2, 3, 3, 3, 3]);
        assert_eq!((counts[1], counts[2], counts[3], counts[0]), (1, 2, 4, 0));
    }
}
