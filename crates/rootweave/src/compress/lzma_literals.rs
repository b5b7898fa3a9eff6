//! LZMA without a match search where matches cannot pay.
//!
//! liblzma at ROOT's levels runs a binary-tree match finder and an optimal parser over
//! every byte, 2-9 MB/s on the byte planes of split pages, and on planes that are noise
//! (low mantissa bytes) or have few values and no structure (float exponents) it ends up
//! coding literals anyway: LZMA's literal coder, an adaptive binary range coder, codes
//! such bytes close to their entropy, and full 8-bit noise is stored as LZMA2 chunks of
//! raw bytes; on runs of one value (zero planes) its match finder crawls (28 MB/s). So the
//! 4 KiB chunks whose matches would not pay (the test shared with zstd and deflate in
//! `noise.rs`, here with LZMA's sequence costs and up to 8 bits of entropy, less the
//! kinds where liblzma's cheap repeated-distance matches do win) and the stretches of
//! runs are written by this module: raw LZMA2 chunks where the chunk's bytes are
//! near-uniform, elsewhere LZMA2 chunks of literals and of matches at distance 1 for runs
//! (`lzma_coder.rs`, tens of MB/s). The other runs are compressed by liblzma's LZMA2
//! encoder as usual, each run a dictionary of its own. Everything is one LZMA2 stream
//! inside one xz stream (`xz.rs`), as ROOT's `R__zipLZMA` writes: ROOT and uproot read it
//! with liblzma.

use super::liblzma_encoder::{encode, Container};
use super::lzma_coder::{
    properties, HeldBack, Model, RangeEncoder, POSITION_BITS, PRESET_CONTEXT_BITS, RUN_MATCH_MAX,
};
use super::noise::{
    byte_counts, chunk_entropy, low_entropy_literals, runs, shannon_entropy, SequenceCost,
};
use super::xz;

/// What an LZMA sequence costs at the least: the match flag, a length and a distance
/// slot with its direct bits for distances of tens of kilobytes; a repeated distance (rep0)
/// needs neither slot nor bits.
const LZMA_SEQUENCES: SequenceCost = SequenceCost {
    new_offset_bits: 26.0,
    repeated_offset_bits: 8.0,
};

/// Inputs shorter than this are left to liblzma whole (a few values, headers).
const SMALLEST_INPUT: usize = 256;

/// Chunks of more than this entropy (bits per byte, over the whole chunk) are stored as
/// raw bytes: the adaptive binary coder spends about 0.09 bits per byte above the entropy
/// on near-uniform bytes (each of the 8 bit probabilities jitters around one half), so it
/// cannot beat 8 bits there. liblzma, too, stores such data raw.
const STORED_ENTROPY: f64 = 7.75;

/// Runs of one byte value at least this long are coded as matches at distance 1 (a
/// shorter run costs less as literals, whose probabilities know the byte already).
const MIN_RUN: usize = 32;

/// Bytes of one value in a row that are coded by us even between structured runs.
const CONSTANT_STRETCH: usize = 64 * 1024;

/// How many bytes at the start of `bytes` equal `value`.
fn run_length(bytes: &[u8], value: u8) -> usize {
    bytes
        .iter()
        .position(|&b| b != value)
        .unwrap_or(bytes.len())
}

/// LZMA2 limits: bytes of a raw chunk, uncompressed and compressed bytes of an LZMA chunk.
const RAW_CHUNK: usize = 1 << 16;
const LZMA_CHUNK_UNCOMPRESSED: usize = 1 << 21;
const LZMA_CHUNK_COMPRESSED: usize = 1 << 16;

/// Compresses `input` into one xz stream (ROOT's LZMA block data) appended to `out`, with
/// liblzma at xz preset `level` and a dictionary of `dictionary` bytes for the structured
/// runs. None when no chunk is better left to literals (the caller then lets liblzma
/// compress everything) or liblzma failed.
pub(crate) fn compress(
    level: u32,
    dictionary: u32,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Option<usize> {
    let plan = plan_chunks(input)?;
    let start = out.len();
    xz::stream_header(out);
    let block_start = out.len();
    xz::block_header(dictionary, out);
    let data_start = out.len();
    let mut stream = Lzma2Stream::new(input);
    let chunk = super::noise::CHUNK;
    let mut first = 0;
    while first < plan.len() {
        let end = (first..plan.len())
            .find(|&i| plan[i] != plan[first])
            .unwrap_or(plan.len());
        let (from, to) = (first * chunk, (end * chunk).min(input.len()));
        match plan[first] {
            Plan::Raw => stream.raw(from, to, out),
            Plan::Coded => stream.coded(from, to, out),
            Plan::Liblzma => stream.liblzma_run(level, dictionary, from, to, out)?,
        }
        first = end;
    }
    out.push(0); // LZMA2's end marker
    let data_len = out.len() - data_start;
    xz::finish_block(block_start, data_len, input, out);
    Some(out.len() - start)
}

/// Who writes a chunk.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// liblzma, whose matches pay.
    Liblzma,
    /// Our coder: literals, and runs as matches at distance 1.
    Coded,
    /// Raw LZMA2 chunks: near-uniform bytes.
    Raw,
}

/// The plan of every chunk of `input`; None if no chunk is ours (or LZ4's fast pass
/// failed).
fn plan_chunks(input: &[u8]) -> Option<Vec<Plan>> {
    if input.len() < SMALLEST_INPUT {
        return None;
    }
    let chunk = super::noise::CHUNK;
    let entropy = chunk_entropy(input, 8.0);
    let mut literal = low_entropy_literals(input, &entropy, &LZMA_SEQUENCES, 8.0)?;
    // Byte counts of whole chunks (a kilobyte's estimate flips around the bounds below
    // from chunk to chunk): the number of values and the entropy.
    let whole: Vec<(usize, f64)> = input
        .chunks(chunk)
        .map(|bytes| {
            let counts = byte_counts(bytes);
            let values = counts.iter().filter(|&&c| c > 0).count();
            (values, shannon_entropy(&counts, bytes.len()))
        })
        .collect();
    for (flag, &(values, h)) in literal.iter_mut().zip(&whole) {
        *flag = *flag && literals_beat_lzma_matches(values, h);
    }
    // Stretches of chunks of runs of one byte value (zero planes, the top bytes of doubles
    // in [0, 1)): runs, which our coder writes as matches at distance 1 much faster than
    // liblzma's match finder (28 MB/s on zeros). A stretch between two structured runs is
    // taken only when long: cut out of structured data, it would split it into pieces
    // that each start liblzma's model afresh (measured: 100-130 bytes more per piece).
    let run_chunks: Vec<bool> = input.chunks(chunk).map(mostly_runs).collect();
    for run in runs(&run_chunks, input.len())
        .iter()
        .filter(|run| run.noise)
    {
        let (first, end) = (run.start / chunk, run.end.div_ceil(chunk));
        let next_to_literals =
            (first > 0 && literal[first - 1]) || end == literal.len() || literal[end] || first == 0;
        let len = run.end - run.start;
        // (At least a whole chunk: not a block's short last chunk alone.)
        if (next_to_literals && len >= chunk) || len >= CONSTANT_STRETCH {
            literal[first..end].fill(true);
        }
    }
    // A lone chunk between two of ours is ours too, and so is a last chunk after one of
    // ours: where byte planes do not start on a chunk boundary, the chunk that holds the
    // end of one plane and the start of the next is judged by its first kilobyte (noise,
    // say, whose matches would seem to pay) or is neither kind (noise and zeros), and as a
    // piece of its own liblzma would start it afresh (about 100 bytes more each time).
    let chunks = literal.len();
    for i in 1..chunks {
        let next_is_ours = literal.get(i + 1).copied().unwrap_or(true);
        if !literal[i] && literal[i - 1] && next_is_ours {
            literal[i] = true;
        }
    }
    if !literal.contains(&true) {
        return None;
    }
    Some(
        literal
            .iter()
            .zip(&whole)
            .map(|(&ours, &(_, h))| match (ours, h > STORED_ENTROPY) {
                (false, _) => Plan::Liblzma,
                (true, false) => Plan::Coded,
                (true, true) => Plan::Raw,
            })
            .collect(),
    )
}

/// Whether LZMA's literal coder alone codes a chunk of `values` byte values and entropy
/// `h` no larger than liblzma, beyond what the match test sees. Not so for bytes of very
/// low entropy or of only two values: liblzma's cheap repeated-distance matches and
/// matched literals code those 2.5-4.5% smaller than literals, whose bit tree spends about
/// 0.15 bits per byte on the bits that never change (measured on 64 KiB of i.i.d. bytes:
/// two values with entropy 0.29-1.0 bits +2.7-4.5%; three values at 0.57 bits +2.5%;
/// three or more values from 0.85 bits on 3-8% smaller).
fn literals_beat_lzma_matches(values: usize, h: f64) -> bool {
    values >= 3 && h >= LITERAL_MIN_ENTROPY
}

/// Whether nearly all of `chunk` is runs of one value that we code as matches (a zero
/// plane; a plane of the top bytes of doubles in [0, 1): 0x3F, now and then something
/// else, where taking only chunks of one value would leave liblzma a piece at each odd
/// byte, to start afresh).
fn mostly_runs(chunk: &[u8]) -> bool {
    // A quick bound first (a loop the compiler vectorises; the walk below goes byte by
    // byte through noise): a run of r bytes has r - 1 bytes equal to the one before, and
    // runs longer than MIN_RUN are fewer than len / MIN_RUN, so 99% of the chunk in such
    // runs needs at least 99% less len / MIN_RUN equal neighbours.
    let equal_neighbours = chunk.windows(2).filter(|pair| pair[0] == pair[1]).count();
    if (equal_neighbours + chunk.len() / MIN_RUN + 1) * 100 < chunk.len() * 99 {
        return false;
    }
    let mut in_runs = 0;
    let mut at = 0;
    while at < chunk.len() {
        let run = run_length(&chunk[at..], chunk[at]);
        if run > MIN_RUN {
            in_runs += run;
        }
        at += run;
    }
    in_runs * 100 >= chunk.len() * 99
}

/// Bits per byte below which liblzma's matches beat literals (see above).
const LITERAL_MIN_ENTROPY: f64 = 0.75;

/// What the next LZMA chunk must reset for the decoder to be in step with our model.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reset {
    /// Nothing: the previous chunk was ours and coded with the same model (and the same
    /// literal context bits).
    Nothing,
    /// The state and probabilities.
    State,
    /// State and properties (after a raw chunk that reset the dictionary, after
    /// liblzma's chunks, or for other literal context bits).
    Properties,
    /// Everything: the first chunk of the stream.
    Dictionary,
}

impl Reset {
    /// The control byte's reset bits of an LZMA chunk.
    fn control_bits(self) -> u8 {
        match self {
            Reset::Nothing => 0x80,
            Reset::State => 0xA0,
            Reset::Properties => 0xC0,
            Reset::Dictionary => 0xE0,
        }
    }
}

/// An LZMA2 stream being written over `input`, run after run.
struct Lzma2Stream<'a> {
    input: &'a [u8],
    /// What the next LZMA chunk of ours must reset.
    reset: Reset,
    /// Where the decoder's dictionary last started (positions are counted from there).
    dictionary_start: usize,
    model: Model,
}

impl<'a> Lzma2Stream<'a> {
    fn new(input: &'a [u8]) -> Self {
        Lzma2Stream {
            input,
            reset: Reset::Dictionary,
            dictionary_start: 0,
            model: Model::new(PRESET_CONTEXT_BITS),
        }
    }

    /// Raw chunks for `input[start..end]`.
    fn raw(&mut self, start: usize, end: usize, out: &mut Vec<u8>) {
        for (i, bytes) in self.input[start..end].chunks(RAW_CHUNK).enumerate() {
            if self.reset == Reset::Dictionary {
                // The first chunk of the stream resets the dictionary; the next LZMA
                // chunk must then set the properties.
                out.push(0x01);
                self.reset = Reset::Properties;
                self.dictionary_start = start + i * RAW_CHUNK;
            } else {
                out.push(0x02);
                self.reset = self.reset.max(Reset::State);
            }
            out.extend_from_slice(&((bytes.len() - 1) as u16).to_be_bytes());
            out.extend_from_slice(bytes);
        }
    }

    /// LZMA chunks of literals for `input[start..end]`.
    fn coded(&mut self, start: usize, end: usize, out: &mut Vec<u8>) {
        let mut at = start;
        while at < end {
            at = self.coded_chunk(at, end, out);
        }
    }

    /// One LZMA chunk of literals from `start` on (as many as fit); returns where it ended.
    /// (Never inlined: the coding loop is the hot path, and its code should not depend on
    /// what its callers look like; inlined into them it ran 6% slower after an unrelated
    /// change to them.)
    #[inline(never)]
    fn coded_chunk(&mut self, start: usize, end: usize, out: &mut Vec<u8>) -> usize {
        let reset = self.reset;
        if reset >= Reset::State {
            self.model = Model::new(self.model.context_bits());
        }
        if reset == Reset::Dictionary {
            self.dictionary_start = start;
        }
        let header_at = out.len();
        let header_len = if reset >= Reset::Properties { 6 } else { 5 };
        out.resize(header_at + header_len, 0);
        let data_at = out.len();
        let stop = end.min(start + LZMA_CHUNK_UNCOMPRESSED);
        let mut rc = RangeEncoder::new();
        let mut held = HeldBack::new();
        let model = &mut self.model;
        let mut at = start;
        // Room for one more symbol (at most 14 bits of at most 6 bits each) and the final
        // flush.
        const SYMBOL_MAX: usize = 12;
        while at < stop {
            if out.len() - data_at + held.unwritten() + SYMBOL_MAX > LZMA_CHUNK_COMPRESSED {
                break;
            }
            let position = at - self.dictionary_start;
            let pos_state = position & ((1 << POSITION_BITS) - 1);
            let previous = if position == 0 { 0 } else { self.input[at - 1] };
            if position > 0 {
                let run = run_length(&self.input[at..stop.min(at + RUN_MATCH_MAX)], previous);
                if run >= MIN_RUN {
                    model.rep0_match(&mut rc, run, pos_state, &mut held, out);
                    at += run;
                    continue;
                }
            }
            model.literal(&mut rc, self.input[at], previous, pos_state, &mut held, out);
            at += 1;
        }
        rc.finish(&mut held, out);
        let compressed = out.len() - data_at;
        let uncompressed = at - start;
        if compressed >= uncompressed {
            // Not smaller (cannot happen for the bytes sent here, but cheap to guard): the
            // same bytes raw, and the decoder's model is then not ours.
            out.truncate(header_at);
            self.reset = reset;
            self.raw(start, at, out);
            return at;
        }
        let u = uncompressed - 1;
        let c = compressed - 1;
        let header = &mut out[header_at..data_at];
        header[0] = reset.control_bits() | (u >> 16) as u8;
        header[1..3].copy_from_slice(&(u as u16).to_be_bytes());
        header[3..5].copy_from_slice(&(c as u16).to_be_bytes());
        if header_len == 6 {
            header[5] = properties(self.model.context_bits());
        }
        self.reset = Reset::Nothing;
        at
    }

    /// `input[start..end]` compressed by liblzma's LZMA2 encoder: its chunks start with a
    /// dictionary reset and set their own properties.
    fn liblzma_run(
        &mut self,
        level: u32,
        dictionary: u32,
        start: usize,
        end: usize,
        out: &mut Vec<u8>,
    ) -> Option<()> {
        let piece = &self.input[start..end];
        let at = out.len();
        // LZMA2 never expands by more than its chunk headers (3 bytes per 64 KiB).
        out.resize(at + piece.len() + piece.len() / 16_384 + 64, 0);
        let written = encode(Container::Raw, level, dictionary, piece, &mut out[at..])?;
        // Without liblzma's end marker: the stream goes on.
        out.truncate(at + written.checked_sub(1)?);
        self.dictionary_start = start;
        self.reset = Reset::Properties;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::test_pages::{random_bytes, split, split_floats, splitmix};

    const LEVEL: u32 = 7;

    fn dictionary(input: &[u8]) -> u32 {
        (input.len() as u32 / 4).max(4096)
    }

    /// liblzma's own xz stream for `input` (what ROOT writes).
    fn liblzma(input: &[u8]) -> Vec<u8> {
        use liblzma::stream::{Action, Check, Filters, Stream};
        let mut filters = Filters::new();
        let mut options = liblzma::stream::LzmaOptions::new_preset(LEVEL).unwrap();
        options.dict_size(dictionary(input));
        filters.lzma2(&options);
        let mut stream = Stream::new_stream_encoder(&filters, Check::Crc32).unwrap();
        let mut out = Vec::with_capacity(input.len() + 1024);
        stream.process_vec(input, &mut out, Action::Finish).unwrap();
        out
    }

    /// Our stream for `input`, checked to decode (with liblzma) to `input`.
    fn round_trip(input: &[u8]) -> Option<Vec<u8>> {
        let mut out = vec![9u8; 3]; // appends after what is there
        let n = compress(LEVEL, dictionary(input), input, &mut out)?;
        assert_eq!(out.len(), 3 + n);
        let xz = out.split_off(3);
        let mut stream = liblzma::stream::Stream::new_stream_decoder(u64::MAX, 0).unwrap();
        let mut back = Vec::with_capacity(input.len());
        let status = stream
            .process_vec(&xz, &mut back, liblzma::stream::Action::Finish)
            .expect("a valid xz stream");
        assert_eq!(status, liblzma::stream::Status::StreamEnd);
        assert_eq!(back.len(), input.len());
        assert!(back == input, "decoded bytes differ");
        Some(xz)
    }

    #[test]
    fn split_pages_are_no_larger_than_liblzmas() {
        let mut state = 5;
        let ints: Vec<u64> = (0..1 << 18).map(|_| splitmix(&mut state) >> 43).collect();
        let small: Vec<u64> = (0..1 << 16).map(|_| splitmix(&mut state) % 100).collect();
        // Zigzag ints in [0, 100) and doubles in [0, 1) (the `complex` schema), in pages
        // whose planes do not start on chunk boundaries.
        let complex_ints: Vec<u64> = (0..30_000)
            .map(|_| splitmix(&mut state) % 100 * 2)
            .collect();
        let doubles: Vec<u64> = (0..30_000)
            .map(|_| ((splitmix(&mut state) >> 11) as f64 / (1u64 << 53) as f64).to_bits())
            .collect();
        for (name, page) in [
            ("floats", split_floats(1 << 18, 1)),
            ("floats 20000", split_floats(20_000, 2)),
            ("floats 3000", split_floats(3_000, 3)),
            ("floats 9000", split_floats(9_000, 4)),
            ("floats 1000", split_floats(1_000, 5)),
            ("floats 616", split_floats(616, 6)),
            ("floats 100", split_floats(100, 7)),
            ("ints", split(&ints, 4)),
            ("small ints", split(&small, 4)),
            ("complex ints", split(&complex_ints, 4)),
            ("complex ints 5000", split(&complex_ints[..5000], 4)),
            ("doubles", split(&doubles, 8)),
        ] {
            let ours = round_trip(&page).expect("literal chunks").len();
            let theirs = liblzma(&page).len();
            assert!(
                ours <= theirs,
                "{name}: {ours} bytes against liblzma's {theirs}"
            );
        }
    }

    #[test]
    fn few_byte_values_go_where_they_are_smaller() {
        // i.i.d. bytes of a few values (weights): liblzma's matches win on two values and
        // on very low entropy, literals on the rest; either way no larger than liblzma.
        let mut state = 99;
        for (weights, ours_expected) in [
            (&[1u64, 1][..], false),
            (&[19, 1], false),
            (&[18, 1, 1], false),
            (&[8, 1, 1], true),
            (&[1, 1, 1, 1], true),
            (&[1, 2, 4, 8, 16], true),
            (&[135, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], true),
            // Nearly constant (top bytes of doubles in [0, 1)): long runs.
            (&[30_000, 1], true),
            (&[3_000, 1, 1], true),
        ] {
            let total: u64 = weights.iter().sum();
            let input: Vec<u8> = (0..1 << 16)
                .map(|_| {
                    let mut draw = splitmix(&mut state) % total;
                    let mut value = 0x3Fu8;
                    for &weight in weights {
                        if draw < weight {
                            break;
                        }
                        draw -= weight;
                        value += 1;
                    }
                    value
                })
                .collect();
            let theirs = liblzma(&input).len();
            match round_trip(&input) {
                Some(ours) => {
                    assert!(ours_expected, "{weights:?}: literals");
                    assert!(
                        ours.len() <= theirs,
                        "{weights:?}: {} against {theirs}",
                        ours.len()
                    );
                }
                None => assert!(!ours_expected, "{weights:?}: left to liblzma"),
            }
        }
    }

    #[test]
    fn noise_and_low_entropy_bytes_alone() {
        // 8-bit noise: raw chunks (3 bytes of header per 64 KiB); 7 and 2 bits: coded
        // literals, at about what liblzma's literal coder spends on them.
        for bits in [8, 7, 2] {
            let input = random_bytes(300_000, bits, u64::from(bits));
            let n = round_trip(&input).expect("literal chunks").len();
            let theirs = liblzma(&input).len();
            assert!(
                n <= theirs,
                "{bits} bits: {n} bytes against liblzma's {theirs}"
            );
            if bits == 8 {
                assert!(n < input.len() + 96);
            }
        }
    }

    #[test]
    fn structure_is_left_to_liblzma() {
        // A counter and text: no chunk for literals.
        let counter: Vec<u8> = (0..40_000u64).flat_map(|i| i.to_le_bytes()).collect();
        let text: Vec<u8> = (0..20_000)
            .flat_map(|i| format!("Muon_pt[{}] ", i % 97).into_bytes())
            .collect();
        for input in [counter, text] {
            assert_eq!(compress(LEVEL, 1 << 16, &input, &mut Vec::new()), None);
        }
        assert_eq!(compress(LEVEL, 4096, &[1, 2, 3], &mut Vec::new()), None);
    }

    #[test]
    fn runs_of_one_value_are_matches() {
        // Zero planes, long runs in low-entropy bytes, a run at the very start, runs
        // across the 2 MiB chunk limit: as small as liblzma's matches make them.
        let mut state = 23;
        let mut runs = Vec::new();
        for i in 0..3000 {
            let value = (splitmix(&mut state) % 4) as u8;
            let len = if i % 10 == 0 { 10_000 } else { 1 + i % 40 };
            runs.extend(std::iter::repeat_n(value, len));
            if i == 1500 {
                runs.extend(vec![9u8; 100_000]);
            }
        }
        let mut zero_plane = random_bytes(1 << 17, 5, 4);
        zero_plane.extend(vec![0u8; 1 << 17]);
        for (name, input) in [
            ("zeros", vec![0u8; 1 << 18]),
            ("1 MiB of sevens", vec![7u8; 1 << 20]),
            ("runs", runs),
            ("5-bit plane and zero plane", zero_plane),
        ] {
            let ours = round_trip(&input).expect("literal chunks").len();
            let theirs = liblzma(&input).len();
            // (The long run in `runs` cuts liblzma's input in two: the second piece starts
            // with a fresh model and no dictionary, 350 bytes more here.)
            let slack = if name == "runs" { 512 } else { 0 };
            assert!(
                ours <= theirs + slack,
                "{name}: {ours} bytes against liblzma's {theirs}"
            );
        }
    }

    #[test]
    fn runs_of_every_kind_alternate_in_one_stream() {
        let mut state = 17;
        let mut input = Vec::new();
        for part in 0..9 {
            match part % 3 {
                0 => input.extend(random_bytes(70_000 + part * 999, 8, part as u64)),
                1 => input.extend(
                    (0..50_000).map(|_| 0x3F - splitmix(&mut state).trailing_zeros().min(6) as u8),
                ),
                _ => input.extend((0..9_000u32).flat_map(|i| (i / 3).to_le_bytes())),
            }
        }
        let ours = round_trip(&input).expect("literal chunks").len();
        assert!(ours <= liblzma(&input).len() * 101 / 100);
        // Starting with a coded run, and with a stored one, both decode.
        round_trip(&input[70_000..]).expect("literal chunks");
        round_trip(&input[..200_000]).expect("literal chunks");
    }

    #[test]
    fn long_coded_runs_take_several_chunks() {
        // 6 MiB of 3-bit bytes: chunks end at 2 MiB uncompressed; 7-bit bytes end at
        // 64 KiB compressed.
        round_trip(&random_bytes(6 << 20, 3, 1)).expect("literal chunks");
        round_trip(&random_bytes(1 << 20, 7, 2)).expect("literal chunks");
        // 3 MiB of one value: matches never cross the 2 MiB chunk limit.
        round_trip(&vec![7u8; 3 << 20]).expect("runs");
    }
}
