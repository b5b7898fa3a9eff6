//! zlib that does not search stretches of noise (or of low-entropy bytes where matches
//! cannot pay).
//!
//! Deflate's match search runs at 60-80 MB/s over the noise planes of split pages (the
//! low bytes of floats and of uniformly distributed integers) and finds nothing worth a
//! match there: what shrinks noise is the Huffman coding of its bytes. This compressor
//! classifies the input chunk by chunk (see `noise.rs`), writes the noise as deflate
//! blocks of literals only, each with the Huffman code of its own byte frequencies (or
//! stored, where a code would not be shorter), and hands every compressible run to
//! zlib-rs. The result is one ordinary zlib stream, which any inflate (ROOT's zlib,
//! uproot's) reads.

use std::cell::RefCell;

use flate2::FlushCompress;

use super::deflate_streams::with_stream;

use super::noise::{
    byte_counts, chunk_entropy, classify, low_entropy_literals, runs, NoiseTest, Run, SequenceCost,
    CHUNK, LOW_ENTROPY,
};

/// Deflate's noise: fewer than 0.05 4-byte matches per position expected within its
/// 32 KiB window (uniform 5-bit bytes give 0.03: literals cost 5 bits each there, and
/// any match found costs more than the bytes it replaces), and no match of 8 bytes or
/// more in LZ4's fast pass (a match that long is structure, not chance).
const NOISE: NoiseTest = NoiseTest {
    window: 32768.0,
    matches_per_position: 0.05,
    min_match: 8,
};

/// What a deflate match costs at the least: a length code (7 bits or so) and a distance
/// code (5 bits) with its extra bits (about 12 for a distance anywhere in the window); and
/// much less when records of fixed size repeat the same distance and length, whose codes
/// the block's Huffman code then makes short.
const DEFLATE_MATCHES: SequenceCost = SequenceCost {
    new_offset_bits: 24.0,
    repeated_offset_bits: 8.0,
};

/// Bytes of noise per literal block: each gets the code of its own byte frequencies (and
/// a stored block holds at most 65535 bytes).
const LITERAL_BLOCK: usize = 65535;

/// Longest code deflate allows for literals, and for the code-length alphabet.
const MAX_LITERAL_BITS: u8 = 15;
const MAX_CODE_LENGTH_BITS: u8 = 7;

/// The end-of-block symbol of the literal/length alphabet.
const END_OF_BLOCK: usize = 256;

/// The order in which a dynamic block lists the code lengths of the code-length alphabet.
const CODE_LENGTH_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// Scratch buffers kept per thread (pages are compressed by the thousand).
#[derive(Default)]
struct Scratch {
    noise: Vec<bool>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Compresses `input` into one zlib stream appended to `out`, compressible runs with
/// zlib-rs at `level`. Returns the stream's length, or None when the input has no noise
/// worth treating apart (the caller then compresses it whole) or a codec call failed.
pub(crate) fn compress(level: u32, input: &[u8], out: &mut Vec<u8>) -> Option<usize> {
    if input.len() < 2 * CHUNK {
        return None;
    }
    SCRATCH.with(|scratch| {
        let scratch = &mut *scratch.borrow_mut();
        classify(input, &NOISE, &mut scratch.noise)?;
        // Low-entropy chunks whose matches would not pay (float exponents) are literals
        // too: Huffman-coded alone they come out smaller than with deflate's matches. They
        // make runs of their own, so that no literal block (one Huffman code) holds both
        // noise and low-entropy bytes.
        let entropy = chunk_entropy(input, LOW_ENTROPY);
        let low_entropy = low_entropy_literals(input, &entropy, &DEFLATE_MATCHES, LOW_ENTROPY)?;
        let runs: Vec<Run> = runs(&low_entropy, input.len())
            .into_iter()
            .flat_map(|run| {
                if run.noise {
                    vec![run]
                } else {
                    let chunks = &scratch.noise[run.start / CHUNK..run.end.div_ceil(CHUNK)];
                    let mut inner = runs(chunks, run.end - run.start);
                    for piece in &mut inner {
                        piece.start += run.start;
                        piece.end += run.start;
                    }
                    inner
                }
            })
            .collect();
        if runs.iter().all(|run| !run.noise) {
            return None;
        }
        let start = out.len();
        let written = write_stream(level, input, &runs, out);
        if written.is_none() {
            out.truncate(start);
        }
        written
    })
}

/// Writes the zlib stream of `input`, cut into `runs`; returns its length.
fn write_stream(level: u32, input: &[u8], runs: &[Run], out: &mut Vec<u8>) -> Option<usize> {
    let start = out.len();
    // zlib header: deflate with a 32 KiB window, no preset dictionary; the check bits
    // make the 16-bit big-endian value a multiple of 31.
    out.extend_from_slice(&[0x78, 0x01]);
    let mut bits = BitWriter::new(out);
    for run in runs {
        let piece = &input[run.start..run.end];
        if run.noise {
            for block in piece.chunks(LITERAL_BLOCK) {
                bits.literal_block(block);
            }
        } else {
            bits.align();
            deflate_run(level, piece, bits.out)?;
        }
    }
    // The final block: an empty block with the fixed code (whose end-of-block code is
    // seven zero bits).
    bits.put(0b011, 3);
    bits.put(0, 7);
    bits.flush();
    out.extend_from_slice(&adler2::adler32_slice(input).to_be_bytes());
    Some(out.len() - start)
}

/// Appends `piece` as raw deflate blocks (no zlib header) that end on a byte boundary
/// without ending the stream (zlib's sync flush).
fn deflate_run(level: u32, piece: &[u8], out: &mut Vec<u8>) -> Option<()> {
    // compress_vec writes into spare capacity only: room for incompressible data and the
    // flush marker, more if that was not enough.
    out.reserve(piece.len() + piece.len() / 1000 + 256);
    with_stream(level, false, |compressor| loop {
        let consumed = compressor.total_in() as usize;
        compressor
            .compress_vec(&piece[consumed..], out, FlushCompress::Sync)
            .ok()?;
        if compressor.total_in() as usize == piece.len() && out.len() < out.capacity() {
            // All input taken, and output stopped short of the room: the flush is done.
            return Some(());
        }
        out.reserve(out.capacity() / 2 + 4096);
    })
}

/// Deflate's bit order: values go in from the least significant bit.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    bits: u64,
    count: u32,
}

impl<'a> BitWriter<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter {
            out,
            bits: 0,
            count: 0,
        }
    }

    /// Writes the `len` low bits of `value` (`len` at most 32).
    fn put(&mut self, value: u32, len: u32) {
        self.bits |= u64::from(value) << self.count;
        self.count += len;
        if self.count >= 32 {
            self.out
                .extend_from_slice(&(self.bits as u32).to_le_bytes());
            self.bits >>= 32;
            self.count -= 32;
        }
    }

    /// Writes out the pending bits, the last byte padded with zeros.
    fn flush(&mut self) {
        while self.count > 0 {
            self.out.push(self.bits as u8);
            self.bits >>= 8;
            self.count = self.count.saturating_sub(8);
        }
        self.bits = 0;
    }

    /// Brings the stream to a byte boundary with an empty stored block, as a sync flush
    /// does (needed before bytes from another deflate compressor).
    fn align(&mut self) {
        self.put(0b000, 3);
        self.flush();
        self.out.extend_from_slice(&[0x00, 0x00, 0xFF, 0xFF]);
    }

    /// One block holding `data` as literals: with the Huffman code of its byte
    /// frequencies, or stored if that is no shorter.
    fn literal_block(&mut self, data: &[u8]) {
        let mut freq = [0u32; END_OF_BLOCK + 1];
        freq[..256].copy_from_slice(&byte_counts(data));
        freq[END_OF_BLOCK] = 1;
        let lengths = code_lengths(&freq, MAX_LITERAL_BITS);
        let header = DynamicHeader::new(&lengths);
        let coded_bits: u64 = freq
            .iter()
            .zip(&lengths)
            .map(|(&f, &l)| u64::from(f) * u64::from(l))
            .sum::<u64>()
            + header.bits();
        // A stored block: 3 header bits, up to 7 bits of padding, 4 bytes of lengths.
        let stored_bits = 8 * data.len() as u64 + 3 + 7 + 32;
        if coded_bits >= stored_bits {
            self.stored_block(data);
            return;
        }
        header.write(self);
        let codes = canonical_codes(&lengths);
        let mut byte_codes = [(0u32, 0u32); 256];
        byte_codes.copy_from_slice(&codes[..256]);
        for &byte in data {
            let (code, len) = byte_codes[byte as usize];
            self.put(code, len);
        }
        let (code, len) = codes[END_OF_BLOCK];
        self.put(code, len);
    }

    /// `data` (at most 65535 bytes) as a stored block.
    fn stored_block(&mut self, data: &[u8]) {
        self.put(0b000, 3);
        self.flush();
        let len = data.len() as u16;
        self.out.extend_from_slice(&len.to_le_bytes());
        self.out.extend_from_slice(&(!len).to_le_bytes());
        self.out.extend_from_slice(data);
    }
}

/// The header of a dynamic-Huffman block whose literal/length code has `lengths` (257
/// symbols: the bytes and end-of-block) and which has no distance codes.
struct DynamicHeader {
    /// Run-length coded code lengths: (code-length symbol, extra bits value, extra bits).
    symbols: Vec<(u8, u8, u8)>,
    code_length_lengths: [u8; 19],
    /// How many entries of `CODE_LENGTH_ORDER` are written (at least 4).
    code_length_count: usize,
}

impl DynamicHeader {
    fn new(lengths: &[u8]) -> Self {
        // The literal lengths, then one distance code length of zero ("no distance
        // codes": the block is literals only), run-length coded together.
        let mut all = lengths.to_vec();
        all.push(0);
        let symbols = run_length_code(&all);
        let mut freq = [0u32; 19];
        for &(symbol, _, _) in &symbols {
            freq[symbol as usize] += 1;
        }
        let lengths = code_lengths(&freq, MAX_CODE_LENGTH_BITS);
        let mut code_length_lengths = [0u8; 19];
        code_length_lengths.copy_from_slice(&lengths);
        let code_length_count = CODE_LENGTH_ORDER
            .iter()
            .rposition(|&s| code_length_lengths[s] != 0)
            .map_or(4, |last| (last + 1).max(4));
        DynamicHeader {
            symbols,
            code_length_lengths,
            code_length_count,
        }
    }

    /// The header's length in bits.
    fn bits(&self) -> u64 {
        let fixed = 3 + 5 + 5 + 4 + 3 * self.code_length_count as u64;
        let coded: u64 = self
            .symbols
            .iter()
            .map(|&(s, _, extra)| {
                u64::from(self.code_length_lengths[s as usize]) + u64::from(extra)
            })
            .sum();
        fixed + coded
    }

    fn write(&self, bits: &mut BitWriter<'_>) {
        bits.put(0b100, 3); // not final, dynamic Huffman (type 2)
        bits.put(0, 5); // 257 literal/length codes
        bits.put(0, 5); // 1 distance code
        bits.put(self.code_length_count as u32 - 4, 4);
        for &symbol in &CODE_LENGTH_ORDER[..self.code_length_count] {
            bits.put(u32::from(self.code_length_lengths[symbol]), 3);
        }
        let codes = canonical_codes(&self.code_length_lengths);
        for &(symbol, value, extra) in &self.symbols {
            let (code, len) = codes[symbol as usize];
            bits.put(code, len);
            bits.put(u32::from(value), u32::from(extra));
        }
    }
}

/// Deflate's run-length coding of code lengths: 16 repeats the previous length 3-6
/// times, 17 and 18 give 3-10 and 11-138 zeros. Returns (symbol, extra value, extra bits).
fn run_length_code(lengths: &[u8]) -> Vec<(u8, u8, u8)> {
    let mut symbols = Vec::new();
    let mut i = 0;
    while i < lengths.len() {
        let length = lengths[i];
        let run = lengths[i..].iter().take_while(|&&l| l == length).count();
        if length == 0 {
            let mut left = run;
            while left >= 11 {
                let n = left.min(138);
                symbols.push((18, (n - 11) as u8, 7));
                left -= n;
            }
            if left >= 3 {
                symbols.push((17, (left - 3) as u8, 3));
                left = 0;
            }
            symbols.extend(std::iter::repeat_n((0, 0, 0), left));
        } else {
            symbols.push((length, 0, 0));
            let mut left = run - 1;
            while left >= 3 {
                let n = left.min(6);
                symbols.push((16, (n - 3) as u8, 2));
                left -= n;
            }
            symbols.extend(std::iter::repeat_n((length, 0, 0), left));
        }
        i += run;
    }
    symbols
}

/// Huffman code lengths for `freq`, none longer than `max_bits`. Symbols of frequency 0
/// get no code; the code is complete (a valid deflate code) as long as two symbols or
/// more occur, and a lone symbol is paired with a second one so that it always is.
fn code_lengths(freq: &[u32], max_bits: u8) -> Vec<u8> {
    let mut freq = freq.to_vec();
    let used = freq.iter().filter(|&&f| f > 0).count();
    if used < 2 {
        // Deflate codes need two symbols: give a second symbol a (never used) code.
        match freq.iter().position(|&f| f > 0) {
            Some(present) => freq[usize::from(present == 0)] = 1,
            None => {
                freq[0] = 1;
                freq[1] = 1;
            }
        }
    }
    loop {
        let lengths = huffman_lengths(&freq);
        if lengths.iter().all(|&l| l <= max_bits) {
            return lengths;
        }
        // Too deep: flatten the distribution and build again (rare: only very skewed
        // frequencies make codes longer than 15 bits, and such data is not noise).
        for f in freq.iter_mut().filter(|f| **f > 0) {
            *f = (*f >> 1).max(1);
        }
    }
}

/// Unrestricted Huffman code lengths (0 for symbols that do not occur).
fn huffman_lengths(freq: &[u32]) -> Vec<u8> {
    // Leaves sorted by frequency, then merged with the two-queue method: internal nodes
    // are made in non-decreasing weight order, so the smallest two are always at the
    // front of one queue or the other.
    let mut leaves: Vec<(u64, usize)> = freq
        .iter()
        .enumerate()
        .filter(|(_, &f)| f > 0)
        .map(|(s, &f)| (u64::from(f), s))
        .collect();
    leaves.sort_unstable();
    let n = leaves.len();
    // Nodes 0..n are the leaves, n.. the internal nodes; parent[i] links them.
    let mut weight: Vec<u64> = leaves.iter().map(|&(w, _)| w).collect();
    let mut parent = vec![usize::MAX; 2 * n - 1];
    let (mut next_leaf, mut next_node) = (0, n);
    let take = |weight: &Vec<u64>, next_leaf: &mut usize, next_node: &mut usize| {
        let node_ready = *next_node < weight.len();
        if *next_leaf < n && (!node_ready || weight[*next_leaf] <= weight[*next_node]) {
            *next_leaf += 1;
            *next_leaf - 1
        } else {
            *next_node += 1;
            *next_node - 1
        }
    };
    for internal in n..2 * n - 1 {
        let a = take(&weight, &mut next_leaf, &mut next_node);
        let b = take(&weight, &mut next_leaf, &mut next_node);
        weight.push(weight[a] + weight[b]);
        parent[a] = internal;
        parent[b] = internal;
    }
    // Depths, from the root (the last node) down: a parent always comes after its children.
    let mut depth = vec![0u8; 2 * n - 1];
    for node in (0..2 * n - 2).rev() {
        depth[node] = depth[parent[node]].saturating_add(1);
    }
    let mut lengths = vec![0u8; freq.len()];
    for (leaf, &(_, symbol)) in leaves.iter().enumerate() {
        lengths[symbol] = depth[leaf];
    }
    lengths
}

/// Deflate's canonical codes for `lengths`, bit-reversed for writing from the least
/// significant bit: (code, length) per symbol.
fn canonical_codes(lengths: &[u8]) -> Vec<(u32, u32)> {
    let mut count = [0u32; 16];
    for &l in lengths {
        count[l as usize] += 1;
    }
    count[0] = 0;
    let mut next = [0u32; 16];
    let mut code = 0;
    for bits in 1..16 {
        code = (code + count[bits - 1]) << 1;
        next[bits] = code;
    }
    lengths
        .iter()
        .map(|&l| {
            if l == 0 {
                return (0, 0);
            }
            let code = next[l as usize];
            next[l as usize] += 1;
            (code.reverse_bits() >> (32 - u32::from(l)), u32::from(l))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::test_pages::{split, split_floats, splitmix};
    use flate2::{Decompress, FlushDecompress};

    fn inflate(stream: &[u8], len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        let mut d = Decompress::new(true);
        d.decompress(stream, &mut out, FlushDecompress::Finish)
            .expect("a valid zlib stream");
        assert_eq!(d.total_out() as usize, len);
        assert_eq!(
            d.total_in() as usize,
            stream.len(),
            "the stream ends where it says"
        );
        out
    }

    fn plain(input: &[u8]) -> usize {
        let mut c = flate2::Compress::new(flate2::Compression::new(2), true);
        let mut out = Vec::with_capacity(input.len() + 1024);
        c.compress_vec(input, &mut out, FlushCompress::Finish)
            .unwrap();
        out.len()
    }

    fn round_trip(input: &[u8]) -> Option<usize> {
        let mut out = vec![0xAB; 3]; // appends after what is there
        let n = compress(2, input, &mut out)?;
        assert_eq!(&out[..3], &[0xAB; 3]);
        assert_eq!(inflate(&out[3..], input.len()), input);
        Some(n)
    }

    #[test]
    fn split_pages_decode_exactly_and_are_no_larger_than_zlib() {
        for (name, page) in [
            ("floats", split_floats(1 << 16, 3)),
            // Planes of 32 KiB and of 20,000 bytes: literal blocks must not mix planes.
            ("floats", split_floats(1 << 15, 4)),
            ("floats", split_floats(20_000, 5)),
            ("ints", {
                let mut state = 9;
                let v: Vec<u64> = (0..1 << 16)
                    .map(|_| {
                        let x = (splitmix(&mut state) >> 44) as i64; // 20 bits
                        ((x << 1) ^ (x >> 63)) as u64 // zigzag
                    })
                    .collect();
                split(&v, 4)
            }),
        ] {
            let ours = round_trip(&page).expect("split pages have noise planes");
            let zlib = plain(&page);
            assert!(ours <= zlib, "{name}: {ours} bytes against {zlib}");
            if name == "floats" {
                // The exponent plane coded as literals: smaller than with deflate's matches.
                assert!(
                    ours * 100 < zlib * 98,
                    "{name}: {ours} bytes against {zlib}"
                );
            }
        }
    }

    #[test]
    fn structure_that_byte_frequencies_miss_is_still_compressed() {
        // A counter's low bytes (every byte value equally often) and a random block
        // repeated: both look like noise by frequency, both are matches for deflate.
        let counter: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        let mut state = 5;
        let block: Vec<u8> = (0..10_000).map(|_| splitmix(&mut state) as u8).collect();
        let repeated: Vec<u8> = block.iter().cycle().take(100_000).copied().collect();
        for input in [counter, repeated] {
            let n = round_trip(&input).unwrap_or_else(|| plain(&input));
            assert!(n < input.len() / 5, "{n} bytes of {}", input.len());
        }
    }

    #[test]
    fn noise_between_compressible_runs_and_pure_noise_decode() {
        let mut state = 17;
        let mut input = Vec::new();
        for part in 0..5 {
            if part % 2 == 0 {
                input.extend((0..30_000u32).map(|i| (i % 7) as u8 * 3));
            } else {
                input.extend((0..70_001).map(|_| splitmix(&mut state) as u8));
            }
        }
        assert!(round_trip(&input).is_some());
        // Pure 8-bit noise: stored blocks, a few bytes per 64 KiB over the input.
        let noise: Vec<u8> = (0..300_000).map(|_| splitmix(&mut state) as u8).collect();
        let n = round_trip(&noise).unwrap();
        assert!(n <= noise.len() + 64, "{n}");
        // 5-bit noise: coded at its entropy, 5/8 of the input.
        let five: Vec<u8> = (0..300_000)
            .map(|_| splitmix(&mut state) as u8 & 31)
            .collect();
        let n = round_trip(&five).unwrap();
        assert!(n < five.len() * 5 / 8 + 2000, "{n}");
    }

    #[test]
    fn inputs_of_any_length_around_the_chunk_size_decode() {
        let mut state = 1;
        for len in [
            2 * CHUNK - 1,
            2 * CHUNK,
            2 * CHUNK + 1,
            3 * CHUNK + 17,
            LITERAL_BLOCK + 1,
        ] {
            let input: Vec<u8> = (0..len).map(|_| splitmix(&mut state) as u8 >> 1).collect();
            if let Some(n) = round_trip(&input) {
                assert!(n < len + 64);
            }
        }
        assert_eq!(compress(2, &[1, 2, 3], &mut Vec::new()), None);
    }

    /// Kraft's sum of a complete code is exactly 1.
    fn kraft(lengths: &[u8]) -> f64 {
        lengths
            .iter()
            .filter(|&&l| l > 0)
            .map(|&l| 0.5f64.powi(i32::from(l)))
            .sum()
    }

    #[test]
    fn codes_are_complete_and_length_limited() {
        // Fibonacci frequencies make the deepest Huffman trees.
        let mut fib = vec![1u32, 1];
        while fib.len() < 40 {
            let next = fib[fib.len() - 1] + fib[fib.len() - 2];
            fib.push(next);
        }
        for max_bits in [7u8, 15] {
            let lengths = code_lengths(&fib, max_bits);
            assert!(
                lengths.iter().all(|&l| l >= 1 && l <= max_bits),
                "{lengths:?}"
            );
            assert_eq!(kraft(&lengths), 1.0);
        }
        // One symbol, or none, still gives a complete two-symbol code.
        for freq in [vec![0u32, 0, 5, 0], vec![0u32; 4], vec![7u32, 0, 0]] {
            let lengths = code_lengths(&freq, 7);
            assert_eq!(kraft(&lengths), 1.0, "{freq:?} -> {lengths:?}");
        }
        // Canonical codes are prefix-free: distinct after bit reversal back.
        let lengths = code_lengths(&[5, 9, 12, 13, 16, 45, 1, 1], 15);
        let codes = canonical_codes(&lengths);
        for (i, a) in codes.iter().enumerate() {
            for b in &codes[i + 1..] {
                let shorter = a.1.min(b.1);
                let mask = (1u32 << shorter) - 1;
                assert_ne!(a.0 & mask, b.0 & mask, "{a:?} is a prefix of {b:?}");
            }
        }
    }

    #[test]
    fn run_length_coding_expands_to_the_lengths() {
        let lengths: Vec<u8> = [
            vec![0u8; 200],
            vec![8; 9],
            vec![0; 5],
            vec![7; 2],
            vec![0; 2],
        ]
        .concat();
        let mut expanded = Vec::new();
        for (symbol, value, _) in run_length_code(&lengths) {
            match symbol {
                16 => {
                    let last = *expanded.last().unwrap();
                    expanded.extend(std::iter::repeat_n(last, 3 + value as usize));
                }
                17 => expanded.extend(std::iter::repeat_n(0, 3 + value as usize)),
                18 => expanded.extend(std::iter::repeat_n(0, 11 + value as usize)),
                length => expanded.push(length),
            }
        }
        assert_eq!(expanded, lengths);
    }
}
