//! LZMA's coding of literals and of matches at the first repeated distance: the binary
//! range encoder, LZMA's state machine and the probabilities of its literal, flag and
//! length coders, exactly as a decoder keeps them (so that its decoding follows ours).
//! `lzma_literals.rs` drives it chunk by chunk.

/// LZMA's position bits (pb = 2, every xz preset's); literal position bits are 0.
pub(super) const POSITION_BITS: u32 = 2;

/// Literal context bits (LZMA's lc) of xz's presets, which every chunk uses.
pub(super) const PRESET_CONTEXT_BITS: u32 = 3;

/// LZMA2's properties byte, (pb * 5 + lp) * 9 + lc, for `context_bits` literal context
/// bits.
pub(super) fn properties(context_bits: u32) -> u8 {
    ((POSITION_BITS * 5) * 9 + context_bits) as u8
}

/// LZMA's binary range encoder (11-bit probabilities adapted by 1/32 of the error, bytes
/// shifted out with LZMA's carry handling).
pub(super) struct RangeEncoder {
    low: u64,
    range: u32,
}

/// The bytes a carry can still change: shifted out of the encoder, not yet written.
pub(super) struct HeldBack {
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
    pub(super) fn new() -> Self {
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
    pub(super) fn finish(mut self, held: &mut HeldBack, out: &mut Vec<u8>) {
        for _ in 0..5 {
            self.low = held.shift_low(self.low, out);
        }
    }
}

impl HeldBack {
    pub(super) fn new() -> Self {
        HeldBack {
            cache: 0,
            pending: 1,
        }
    }

    /// Bytes that `RangeEncoder::finish` would still write at the most.
    pub(super) fn unwritten(&self) -> usize {
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
pub(super) struct Model {
    /// LZMA's state (0..12): what the last symbols were.
    state: usize,
    is_match: [[u16; 1 << POSITION_BITS]; STATES],
    is_rep: [u16; STATES],
    is_rep0: [u16; STATES],
    is_rep0_long: [[u16; 1 << POSITION_BITS]; STATES],
    rep_length: LengthModel,
    /// Per literal context (the top `context_bits` bits of the previous byte): 0x100
    /// probabilities of the plain bit tree, 0x200 of the matched one.
    literal: [[u16; 0x300]; 1 << PRESET_CONTEXT_BITS],
    /// LZMA's lc: 0 or 3.
    context_bits: u32,
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
pub(super) const RUN_MATCH_MAX: usize = 272;

/// LZMA's length coder: 8 short lengths per position state, 8 medium, 256 long.
struct LengthModel {
    choice: u16,
    choice2: u16,
    low: [[u16; 8]; 1 << POSITION_BITS],
    mid: [[u16; 8]; 1 << POSITION_BITS],
    high: [u16; 256],
}

impl Model {
    /// A fresh model (as a state reset leaves the decoder's) with `context_bits` literal
    /// context bits (at most 3).
    pub(super) fn new(context_bits: u32) -> Self {
        debug_assert!(context_bits <= PRESET_CONTEXT_BITS);
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
            literal: [[PROBABILITY_HALF; 0x300]; 1 << PRESET_CONTEXT_BITS],
            context_bits,
        }
    }

    /// The model's literal context bits (LZMA's lc).
    pub(super) fn context_bits(&self) -> u32 {
        self.context_bits
    }

    /// Codes `byte` as a literal at `pos_state` after `previous`.
    #[inline(always)]
    pub(super) fn literal(
        &mut self,
        rc: &mut RangeEncoder,
        byte: u8,
        previous: u8,
        pos_state: usize,
        held: &mut HeldBack,
        out: &mut Vec<u8>,
    ) {
        rc.bit(&mut self.is_match[self.state][pos_state], 0, held, out);
        let probs = &mut self.literal[usize::from(previous) >> (8 - self.context_bits)];
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
    pub(super) fn rep0_match(
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
