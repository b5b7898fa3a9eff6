//! Test inputs shared by the compressors' unit tests: random bytes and split pages, made
//! with splitmix64 so that every run sees the same bytes.

/// The next splitmix64 draw.
pub(super) fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Bytes of `bits` random bits each.
pub(super) fn random_bytes(len: usize, bits: u32, seed: u64) -> Vec<u8> {
    let mut state = seed;
    (0..len)
        .map(|_| (splitmix(&mut state) >> (64 - bits)) as u8)
        .collect()
}

/// `values` of `width` bytes each, byte plane after byte plane (an RNTuple split page).
pub(super) fn split(values: &[u64], width: usize) -> Vec<u8> {
    let n = values.len();
    let mut page = vec![0u8; n * width];
    for (i, v) in values.iter().enumerate() {
        for b in 0..width {
            page[b * n + i] = (v >> (8 * b)) as u8;
        }
    }
    page
}

/// A split page of `n` floats uniform in [0, 1) with 24-bit resolution.
pub(super) fn split_floats(n: usize, seed: u64) -> Vec<u8> {
    let mut state = seed;
    let values: Vec<u64> = (0..n)
        .map(|_| {
            let x = (splitmix(&mut state) >> 40) as f32 / (1u32 << 24) as f32;
            u64::from(x.to_bits())
        })
        .collect();
    split(&values, 4)
}
