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

use super::lz4hc::Sequences;

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

/// Fills `noise` with one flag per chunk of `input`, using `fast` as scratch for LZ4's
/// fast pass; None if that pass failed (the caller then compresses the whole input).
pub(super) fn classify(
    input: &[u8],
    test: &NoiseTest,
    noise: &mut Vec<bool>,
    fast: &mut Vec<u8>,
) -> Option<()> {
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
    let bound = compress_bound(input.len()).ok()?;
    fast.resize(bound, 0);
    let n = compress_to_buffer(input, Some(CompressionMode::DEFAULT), false, fast).ok()?;
    for sequence in Sequences::new(&fast[..n]) {
        let sequence = sequence?;
        if sequence.match_len > 0 && sequence.match_len >= test.min_match {
            let first = sequence.match_start.checked_sub(sequence.offset)? / CHUNK;
            let last = (sequence.match_start + sequence.match_len - 1) / CHUNK;
            for flag in &mut noise[first..=last.min(chunks - 1)] {
                *flag = false;
            }
        }
    }
    Some(())
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
