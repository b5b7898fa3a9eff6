//! How many of the previous byte's top bits LZMA's literal coder takes as context (its
//! `lc`), chosen for each stretch of literals that `lzma_literals.rs` codes.
//!
//! Every xz preset uses lc = 3: eight literal coders, picked by the top three bits of the
//! previous byte, which pays on bytes that follow their predecessor (text, and values
//! stored whole, where the byte before a float's exponent byte is its mantissa's). The
//! byte planes of split pages are not such bytes: a plane holds one byte of each value,
//! and its bytes are as independent as the values. There the eight coders learn the same
//! distribution eight times over. Each starts at one half in every node of its bit
//! tree, and a bit that never changes (the low bit of a zigzag plane, the top bits of
//! an exponent plane) costs some 20 bits to learn, per node and coder. On `complex`'s
//! int pages (65536 zigzag ints in [0, 100)) that is 1.8 KB of a 56 KB page, 3%; on its
//! double pages 0.15%. One coder (lc = 0) learns once.
//!
//! The choice is made from byte counts of the stretch: the entropy of its bytes alone
//! and given the previous byte's top three bits. Their difference is what eight coders
//! could gain; even on independent bytes it is positive, by about (k - 1) / (2 ln 2)
//! bits for k more (context, value) pairs than values (the counts' sampling noise),
//! which is subtracted. lc = 3 is taken only where what is left is worth more than the
//! learning it costs.

/// Literal context bits of xz's presets.
pub(super) const PRESET_CONTEXT_BITS: u32 = 3;

/// Bits per literal that the previous byte must save (beyond sampling noise) for the
/// eight coders of lc = 3 to be worth learning. On split planes the saving measures
/// 0.000-0.007 bits per byte; on doubles stored whole, 0.2.
const CONTEXT_GAIN_PER_BYTE: f64 = 0.02;

/// Byte counts of the literals of a stretch, per top three bits of the previous byte.
pub(super) struct LiteralCounts {
    counts: Box<[[u32; 256]; 8]>,
    literals: usize,
}

impl LiteralCounts {
    /// No literals yet.
    pub(super) fn new() -> Self {
        LiteralCounts {
            counts: Box::new([[0; 256]; 8]),
            literals: 0,
        }
    }

    /// Counts the literal `byte` coded after `previous`.
    #[inline]
    pub(super) fn add(&mut self, previous: u8, byte: u8) {
        self.counts[usize::from(previous >> 5)][usize::from(byte)] += 1;
        self.literals += 1;
    }

    /// How many literals were counted.
    pub(super) fn literals(&self) -> usize {
        self.literals
    }

    /// The literal context bits to code these literals with: 3 where the previous byte
    /// tells enough about the next, else 0.
    pub(super) fn context_bits(&self) -> u32 {
        if self.literals == 0 {
            return PRESET_CONTEXT_BITS;
        }
        let mut alone = [0u32; 256];
        let mut given_previous = 0.0;
        let mut pairs = 0usize;
        for counts in self.counts.iter() {
            let n: u32 = counts.iter().sum();
            given_previous += f64::from(n) * super::noise::shannon_entropy(counts, n as usize);
            pairs += counts.iter().filter(|&&c| c > 0).count();
            for (total, &c) in alone.iter_mut().zip(counts.iter()) {
                *total += c;
            }
        }
        let values = alone.iter().filter(|&&c| c > 0).count();
        let n = self.literals as f64;
        let without_context = n * super::noise::shannon_entropy(&alone, self.literals);
        let sampling_noise = (pairs - values) as f64 / (2.0 * std::f64::consts::LN_2);
        let gain = without_context - given_previous - sampling_noise;
        if gain > CONTEXT_GAIN_PER_BYTE * n {
            PRESET_CONTEXT_BITS
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::test_pages::splitmix;

    fn context_bits_of(bytes: &[u8]) -> u32 {
        let mut counts = LiteralCounts::new();
        let mut previous = 0;
        for &b in bytes {
            counts.add(previous, b);
            previous = b;
        }
        counts.context_bits()
    }

    fn doubles(n: usize) -> Vec<f64> {
        let mut state = 3;
        (0..n)
            .map(|_| (splitmix(&mut state) >> 11) as f64 / (1u64 << 53) as f64)
            .collect()
    }

    #[test]
    fn independent_bytes_get_one_coder() {
        let mut state = 8;
        let zigzag_ints: Vec<u8> = (0..65536)
            .map(|_| (splitmix(&mut state) % 100 * 2) as u8)
            .collect();
        assert_eq!(context_bits_of(&zigzag_ints), 0);
        let exponent_plane: Vec<u8> = doubles(32768).iter().map(|d| d.to_le_bytes()[6]).collect();
        assert_eq!(context_bits_of(&exponent_plane), 0);
        let uniform: Vec<u8> = (0..1 << 18).map(|_| splitmix(&mut state) as u8).collect();
        assert_eq!(context_bits_of(&uniform), 0);
    }

    #[test]
    fn bytes_that_follow_their_predecessor_get_the_presets_eight() {
        let whole_doubles: Vec<u8> = doubles(32768)
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect();
        assert_eq!(context_bits_of(&whole_doubles), PRESET_CONTEXT_BITS);
        // A byte drawn near the one before it.
        let mut state = 4;
        let mut walk = vec![128u8];
        for _ in 0..20000 {
            let step = (splitmix(&mut state) % 9) as i32 - 4;
            let last = i32::from(*walk.last().unwrap());
            walk.push((last + step).clamp(0, 255) as u8);
        }
        assert_eq!(context_bits_of(&walk), PRESET_CONTEXT_BITS);
    }

    #[test]
    fn nothing_counted_keeps_the_preset() {
        assert_eq!(LiteralCounts::new().context_bits(), PRESET_CONTEXT_BITS);
    }
}
