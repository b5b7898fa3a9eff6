//! LZMA without a match search where matches cannot pay.
//!
//! liblzma at ROOT's levels runs a binary-tree match finder and an optimal parser over
//! every byte, 2-9 MB/s on the byte planes of split pages, and on planes that are noise
//! (low mantissa bytes) or have few values and no structure (float exponents) it ends up
//! coding literals anyway: LZMA's literal coder, an adaptive binary range coder, codes
//! such bytes close to their entropy, and full 8-bit noise is stored as LZMA2 chunks of
//! raw bytes. So the 4 KiB chunks whose matches would not pay (the test shared with zstd
//! and deflate in `noise.rs`, here with LZMA's sequence costs and up to 8 bits of
//! entropy) are written by this module: raw LZMA2 chunks where the chunk's bytes are
//! near-uniform, LZMA2 chunks of literals (our range coder, at memory speed by
//! comparison) elsewhere. The other runs are compressed by liblzma's LZMA2 encoder as
//! usual, each run a dictionary of its own. Everything is one LZMA2 stream inside one xz
//! stream, as ROOT's `R__zipLZMA` writes: ROOT and uproot read it with liblzma.

use super::noise::{byte_counts, low_entropy_literals, runs, shannon_entropy, SequenceCost};

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

/// LZMA's literal context and position bits (lc = 3, lp = 0, pb = 2, every xz preset's),
/// as LZMA2's properties byte: (pb * 5 + lp) * 9 + lc.
const LITERAL_CONTEXT_BITS: u32 = 3;
const POSITION_BITS: u32 = 2;
const PROPERTIES: u8 = ((POSITION_BITS * 5) * 9 + LITERAL_CONTEXT_BITS) as u8;

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
    if input.len() < SMALLEST_INPUT {
        return None;
    }
    let mut literal = low_entropy_literals(input, &LZMA_SEQUENCES, 8.0)?;
    let chunk = super::noise::CHUNK;
    for (flag, bytes) in literal.iter_mut().zip(input.chunks(chunk)) {
        *flag = *flag && literals_beat_lzma_matches(bytes);
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
    let start = out.len();
    xz::stream_header(out);
    let block_start = out.len();
    xz::block_header(dictionary, out);
    let data_start = out.len();
    let mut stream = Lzma2Stream::new(input);
    for run in runs(&literal, input.len()) {
        if run.noise {
            stream.literal_run(run.start, run.end, out);
        } else {
            stream.liblzma_run(level, dictionary, run.start, run.end, out)?;
        }
    }
    out.push(0); // LZMA2's end marker
    let data_len = out.len() - data_start;
    xz::finish_block(block_start, data_len, input, out);
    Some(out.len() - start)
}

/// Whether LZMA's literal coder alone codes `chunk` no larger than liblzma, beyond what
/// the match test sees. Not so for bytes of very low
/// entropy or of only two values: liblzma's cheap repeated-distance matches and matched
/// literals code those 2.5-4.5% smaller than literals, whose bit tree spends about 0.15
/// bits per byte on the bits that never change (measured on 64 KiB of i.i.d. bytes: two
/// values with entropy 0.29-1.0 bits +2.7-4.5%; three values at 0.57 bits +2.5%; three or
/// more values from 0.85 bits on 3-8% smaller).
fn literals_beat_lzma_matches(chunk: &[u8]) -> bool {
    // The whole chunk: a kilobyte's estimate flips around the bound from chunk to chunk.
    let counts = byte_counts(chunk);
    let values = counts.iter().filter(|&&c| c > 0).count();
    values >= 3 && shannon_entropy(&counts, chunk.len()) >= LITERAL_MIN_ENTROPY
}

/// Whether nearly all of `chunk` is runs of one value that we code as matches (a zero
/// plane; a plane of the top bytes of doubles in [0, 1): 0x3F, now and then something
/// else, where taking only chunks of one value would leave liblzma a piece at each odd
/// byte, to start afresh).
fn mostly_runs(chunk: &[u8]) -> bool {
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

/// LZMA's binary range encoder (11-bit probabilities adapted by 1/32 of the error, bytes
/// shifted out with LZMA's carry handling).
struct RangeEncoder {
    low: u64,
    range: u32,
}

/// The bytes a carry can still change: shifted out of the encoder, not yet written.
struct HeldBack {
    /// The byte held back until a carry can no longer change it.
    cache: u8,
    /// The held-back byte plus the 0xFF bytes after it that a carry would also change.
    pending: usize,
}

/// Probabilities are of a zero bit, in units of 1/2048; a fresh one is one half.
const PROBABILITY_ONE: u32 = 1 << 11;
const PROBABILITY_HALF: u16 = 1 << 10;
const ADAPT_SHIFT: u32 = 5;
const RANGE_TOP: u32 = 1 << 24;

impl RangeEncoder {
    fn new() -> Self {
        RangeEncoder {
            low: 0,
            range: u32::MAX,
        }
    }

    /// Codes `bit` (0 or 1) with the probability `probability`, which it then adapts;
    /// bytes shifted out go through `held` to `out`. Without branches on the bit: the bits
    /// of split pages are close to coin flips, and a mispredicted branch per bit would cost
    /// more than the coding. (`held` is apart so that `low` and `range` stay registers.)
    #[inline(always)]
    fn bit(&mut self, probability: &mut u16, bit: u32, held: &mut HeldBack, out: &mut Vec<u8>) {
        let p = u32::from(*probability);
        let bound = (self.range >> 11) * p;
        let one = bit != 0;
        // Selects, which compile to conditional moves.
        self.low += u64::from(if one { bound } else { 0 });
        self.range = if one {
            self.range.wrapping_sub(bound)
        } else {
            bound
        };
        // The decoder's update, exactly: toward 2048 after a zero, toward 0 after a one.
        let after_zero = p + ((PROBABILITY_ONE - p) >> ADAPT_SHIFT);
        let after_one = p - (p >> ADAPT_SHIFT);
        *probability = if one { after_one } else { after_zero } as u16;
        // One shift is enough: the range stays above 2^24 * 31 / 2048 > 2^16 after a bit.
        if self.range < RANGE_TOP {
            self.range <<= 8;
            self.low = held.shift_low(self.low, out);
        }
    }

    /// Writes out what is held back; the decoder then ends with a code of zero.
    fn finish(mut self, held: &mut HeldBack, out: &mut Vec<u8>) {
        for _ in 0..5 {
            self.low = held.shift_low(self.low, out);
        }
    }
}

impl HeldBack {
    fn new() -> Self {
        HeldBack {
            cache: 0,
            pending: 1,
        }
    }

    /// Bytes that `RangeEncoder::finish` would still write at the most.
    fn unwritten(&self) -> usize {
        self.pending + 4
    }

    /// Shifts the top byte out of `low` (33 bits with the carry); returns the new `low`.
    #[inline(never)]
    fn shift_low(&mut self, low: u64, out: &mut Vec<u8>) -> u64 {
        if (low as u32) < 0xFF00_0000 || (low >> 32) != 0 {
            let carry = (low >> 32) as u8;
            out.push(self.cache.wrapping_add(carry));
            for _ in 1..self.pending {
                out.push(0xFFu8.wrapping_add(carry));
            }
            self.pending = 0;
            self.cache = (low >> 24) as u8;
        }
        self.pending += 1;
        (low & 0x00FF_FFFF) << 8
    }
}

/// LZMA's coder state and probabilities for what this module writes: literals and
/// matches at distance 1 (runs of one byte value). The distance is always the decoder's
/// first repeated distance (rep0, which a state reset sets to distance 1 and which we
/// never change), so no distance is ever coded; the state machine, the is-match and
/// is-rep flags, the rep-match length coder and the literal coder (plain, and "matched"
/// right after a match) are LZMA's.
struct Model {
    /// LZMA's state (0..12): what the last symbols were.
    state: usize,
    is_match: [[u16; 1 << POSITION_BITS]; STATES],
    is_rep: [u16; STATES],
    is_rep0: [u16; STATES],
    is_rep0_long: [[u16; 1 << POSITION_BITS]; STATES],
    rep_length: LengthModel,
    /// Per literal context (the top bits of the previous byte): 0x100 probabilities of
    /// the plain bit tree, 0x200 of the matched one.
    literal: [[u16; 0x300]; 1 << LITERAL_CONTEXT_BITS],
}

const STATES: usize = 12;
/// States from this one on follow a match: the next literal is a matched literal.
const FIRST_MATCH_STATE: usize = 7;
/// Matches are 2 to 273 bytes long.
const MATCH_MIN: usize = 2;
/// The longest match for a run: 272 rather than LZMA's 273, a multiple of 4, so that the
/// position state (position mod 4) is the same for every match of a long run, whose
/// probabilities then adapt as one (runs of up to 1 MiB: 7-20% smaller, as small as
/// liblzma's or smaller).
const RUN_MATCH_MAX: usize = 272;

/// LZMA's length coder: 8 short lengths per position state, 8 medium, 256 long.
struct LengthModel {
    choice: u16,
    choice2: u16,
    low: [[u16; 8]; 1 << POSITION_BITS],
    mid: [[u16; 8]; 1 << POSITION_BITS],
    high: [u16; 256],
}

impl Model {
    fn new() -> Self {
        Model {
            state: 0,
            is_match: [[PROBABILITY_HALF; 1 << POSITION_BITS]; STATES],
            is_rep: [PROBABILITY_HALF; STATES],
            is_rep0: [PROBABILITY_HALF; STATES],
            is_rep0_long: [[PROBABILITY_HALF; 1 << POSITION_BITS]; STATES],
            rep_length: LengthModel {
                choice: PROBABILITY_HALF,
                choice2: PROBABILITY_HALF,
                low: [[PROBABILITY_HALF; 8]; 1 << POSITION_BITS],
                mid: [[PROBABILITY_HALF; 8]; 1 << POSITION_BITS],
                high: [PROBABILITY_HALF; 256],
            },
            literal: [[PROBABILITY_HALF; 0x300]; 1 << LITERAL_CONTEXT_BITS],
        }
    }

    /// Codes `byte` as a literal at `pos_state` after `previous`.
    #[inline(always)]
    fn literal(
        &mut self,
        rc: &mut RangeEncoder,
        byte: u8,
        previous: u8,
        pos_state: usize,
        held: &mut HeldBack,
        out: &mut Vec<u8>,
    ) {
        rc.bit(&mut self.is_match[self.state][pos_state], 0, held, out);
        let probs = &mut self.literal[usize::from(previous >> (8 - LITERAL_CONTEXT_BITS))];
        let byte = u32::from(byte);
        if self.state >= FIRST_MATCH_STATE {
            matched_literal(rc, probs, byte, u32::from(previous), held, out);
        } else {
            // (The loop unrolls: eight bits in a row, the hot path of this module.)
            let mut node = 1usize;
            for shift in (0..8).rev() {
                let bit = (byte >> shift) & 1;
                rc.bit(&mut probs[node], bit, held, out);
                node = (node << 1) | bit as usize;
            }
        }
        self.state = match self.state {
            0..=3 => 0,
            4..=9 => self.state - 3,
            _ => self.state - 6,
        };
    }

    /// Codes a match of `length` bytes at the first repeated distance.
    fn rep0_match(
        &mut self,
        rc: &mut RangeEncoder,
        length: usize,
        pos_state: usize,
        held: &mut HeldBack,
        out: &mut Vec<u8>,
    ) {
        let state = self.state;
        rc.bit(&mut self.is_match[state][pos_state], 1, held, out);
        rc.bit(&mut self.is_rep[state], 1, held, out);
        rc.bit(&mut self.is_rep0[state], 0, held, out);
        rc.bit(&mut self.is_rep0_long[state][pos_state], 1, held, out);
        let lengths = &mut self.rep_length;
        let l = (length - MATCH_MIN) as u32;
        if l < 8 {
            rc.bit(&mut lengths.choice, 0, held, out);
            bit_tree(rc, &mut lengths.low[pos_state], 3, l, held, out);
        } else if l < 16 {
            rc.bit(&mut lengths.choice, 1, held, out);
            rc.bit(&mut lengths.choice2, 0, held, out);
            bit_tree(rc, &mut lengths.mid[pos_state], 3, l - 8, held, out);
        } else {
            rc.bit(&mut lengths.choice, 1, held, out);
            rc.bit(&mut lengths.choice2, 1, held, out);
            bit_tree(rc, &mut lengths.high, 8, l - 16, held, out);
        }
        self.state = if state < FIRST_MATCH_STATE { 8 } else { 11 };
    }
}

/// Codes `byte` right after a match: its bits in the context of the byte at the match
/// distance (`match_byte`, here the previous byte) for as long as they agree with it, the
/// rest as a plain literal.
#[inline(never)]
fn matched_literal(
    rc: &mut RangeEncoder,
    probs: &mut [u16; 0x300],
    byte: u32,
    match_byte: u32,
    held: &mut HeldBack,
    out: &mut Vec<u8>,
) {
    let mut node = 1usize;
    let mut shift = 8;
    while shift > 0 {
        shift -= 1;
        let match_bit = (match_byte >> shift) & 1;
        let bit = (byte >> shift) & 1;
        rc.bit(
            &mut probs[((1 + match_bit as usize) << 8) + node],
            bit,
            held,
            out,
        );
        node = (node << 1) | bit as usize;
        if match_bit != bit {
            break;
        }
    }
    while shift > 0 {
        shift -= 1;
        let bit = (byte >> shift) & 1;
        rc.bit(&mut probs[node], bit, held, out);
        node = (node << 1) | bit as usize;
    }
}

/// Codes the low `bits` bits of `value`, high bit first, in the bit tree `probs`.
fn bit_tree(
    rc: &mut RangeEncoder,
    probs: &mut [u16],
    bits: u32,
    value: u32,
    held: &mut HeldBack,
    out: &mut Vec<u8>,
) {
    let mut node = 1usize;
    for shift in (0..bits).rev() {
        let bit = (value >> shift) & 1;
        rc.bit(&mut probs[node], bit, held, out);
        node = (node << 1) | bit as usize;
    }
}

/// What the next LZMA chunk must reset for the decoder to be in step with our model.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reset {
    /// Nothing: the previous chunk was ours and coded with the same model.
    Nothing,
    /// The state and probabilities.
    State,
    /// State and properties (after a raw chunk that reset the dictionary, or after
    /// liblzma's chunks).
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
            model: Model::new(),
        }
    }

    /// Writes `input[start..end]` as literals: raw chunks where the bytes are near-uniform,
    /// LZMA chunks of literals elsewhere.
    fn literal_run(&mut self, start: usize, end: usize, out: &mut Vec<u8>) {
        let chunk = super::noise::CHUNK;
        let mut at = start;
        while at < end {
            // A stretch of chunks of one kind (stored or coded).
            let stored = |from: usize| {
                let bytes = &self.input[from..(from + chunk).min(end)];
                shannon_entropy(&byte_counts(bytes), bytes.len()) > STORED_ENTROPY
            };
            let kind = stored(at);
            let mut stop = (at + chunk).min(end);
            while stop < end && stored(stop) == kind {
                stop = (stop + chunk).min(end);
            }
            if kind {
                self.raw(at, stop, out);
            } else {
                self.coded(at, stop, out);
            }
            at = stop;
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
    fn coded_chunk(&mut self, start: usize, end: usize, out: &mut Vec<u8>) -> usize {
        let reset = self.reset;
        if reset >= Reset::State {
            self.model = Model::new();
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
            header[5] = PROPERTIES;
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
        use liblzma::stream::{Action, Filters, Status, Stream};
        let mut filters = Filters::new();
        filters.lzma2(&super::codecs::lzma_options(level, dictionary)?);
        let mut encoder = Stream::new_raw_encoder(&filters).ok()?;
        let piece = &self.input[start..end];
        let at = out.len();
        // LZMA2 never expands by more than its chunk headers (3 bytes per 64 KiB).
        out.resize(at + piece.len() + piece.len() / 16_384 + 64, 0);
        match encoder.process(piece, &mut out[at..], Action::Finish) {
            Ok(Status::StreamEnd) => {}
            _ => return None,
        }
        // Without liblzma's end marker: the stream goes on.
        let written = usize::try_from(encoder.total_out()).ok()?;
        out.truncate(at + written.checked_sub(1)?);
        self.dictionary_start = start;
        self.reset = Reset::Properties;
        Some(())
    }
}

/// The xz container around one LZMA2 block, as liblzma's stream encoder writes it for
/// ROOT (CRC32 check, no sizes in the block header).
mod xz {
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
    pub(super) fn finish_block(
        block_start: usize,
        data_len: usize,
        input: &[u8],
        out: &mut Vec<u8>,
    ) {
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
        filters.lzma2(&crate::compress::codecs::lzma_options(LEVEL, dictionary(input)).unwrap());
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
