//! Page decoding: from a page's (decompressed) bytes to typed values in memory.
//!
//! Each column type of format 1.0 has one decoder; values are converted to the field's
//! in-memory type as they are written into the destination slice. The common cases
//! (same type on storage and in memory, plain or byte-split) are tight loops over the
//! destination without an intermediate buffer.

use crate::rntuple::format::ColumnType;

/// A type that column elements can be decoded into.
pub trait Element: Copy + Default + Send + Sync + 'static {
    /// From a signed integer value.
    fn from_i64(v: i64) -> Self;
    /// From an unsigned integer value.
    fn from_u64(v: u64) -> Self;
    /// From a floating-point value.
    fn from_f64(v: f64) -> Self;
    /// From a single-precision value (exact for `f32` and `f64`).
    fn from_f32(v: f32) -> Self {
        Self::from_f64(v as f64)
    }
    /// From a boolean.
    fn from_bool(v: bool) -> Self {
        Self::from_u64(v as u64)
    }
    /// True if the type is a floating-point type (integer and bit columns cannot be read
    /// into floats, and float columns cannot be read into integers).
    const FLOAT: bool;
}

macro_rules! int_element {
    ($t:ty) => {
        impl Element for $t {
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn from_u64(v: u64) -> Self {
                v as $t
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            const FLOAT: bool = false;
        }
    };
}

int_element!(i8);
int_element!(i16);
int_element!(i32);
int_element!(i64);
int_element!(u8);
int_element!(u16);
int_element!(u32);
int_element!(u64);

impl Element for f32 {
    fn from_i64(v: i64) -> Self {
        v as f32
    }
    fn from_u64(v: u64) -> Self {
        v as f32
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn from_f32(v: f32) -> Self {
        v
    }
    const FLOAT: bool = true;
}

impl Element for f64 {
    fn from_i64(v: i64) -> Self {
        v as f64
    }
    fn from_u64(v: u64) -> Self {
        v as f64
    }
    fn from_f64(v: f64) -> Self {
        v
    }
    const FLOAT: bool = true;
}

impl Element for bool {
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    fn from_u64(v: u64) -> Self {
        v != 0
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn from_bool(v: bool) -> Self {
        v
    }
    const FLOAT: bool = false;
}

/// What a column decodes into: how its stored elements relate to in-memory values.
#[derive(Debug, Clone, Copy)]
pub struct ColumnCodec {
    /// The column type.
    pub ty: ColumnType,
    /// Bits per element on storage (variable for `Real32Trunc` / `Real32Quant`).
    pub bits: u16,
    /// Value range of `Real32Quant`.
    pub range: (f64, f64),
}

impl ColumnCodec {
    /// Bytes a page of `n` elements takes once decompressed.
    pub fn page_bytes(&self, n: usize) -> Option<usize> {
        let bits = (n as u64).checked_mul(self.bits as u64)?;
        usize::try_from(bits.div_ceil(8)).ok()
    }

    /// Checks that values of this column can be read as `T` and that the element width
    /// is valid for the type. Returns a reason if not.
    pub(crate) fn check_target<T: Element>(&self, target: &str) -> Result<(), String> {
        use ColumnType::*;
        let float_column = matches!(
            self.ty,
            Real16
                | Real32
                | Real64
                | SplitReal16
                | SplitReal32
                | SplitReal64
                | Real32Trunc
                | Real32Quant
        );
        if float_column != T::FLOAT {
            return Err(format!(
                "a column of type {:?} cannot be read as {target}",
                self.ty
            ));
        }
        let fixed = self.ty.bits_on_storage();
        let ok = match self.ty {
            Real32Trunc => (10..=31).contains(&self.bits),
            Real32Quant => (1..=32).contains(&self.bits),
            _ => self.bits == fixed,
        };
        if !ok {
            return Err(format!(
                "a {:?} column with {} bits per element is not valid",
                self.ty, self.bits
            ));
        }
        if self.ty == Real32Quant {
            let (min, max) = self.range;
            if !(min.is_finite() && max.is_finite() && min <= max) {
                return Err(format!("Real32Quant range [{min}, {max}] is not valid"));
            }
        }
        Ok(())
    }

    /// Decodes a page of `out.len()` elements from `page` (which must hold at least
    /// [`ColumnCodec::page_bytes`] bytes; the reader checks the target type first).
    /// Index columns are decoded into cluster-relative offsets.
    pub(crate) fn decode<T: Element>(&self, page: &[u8], out: &mut [T]) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above), which is all that a function
            // compiled with `target_feature(enable = "avx2")` requires of its caller.
            return unsafe { self.decode_avx2(page, out) };
        }
        self.decode_portable(page, out);
    }

    /// Decodes a page of an offsets column into `out` with `base` added (wrapping) to
    /// every offset; false if the offsets decrease within the page. Delta-coded columns
    /// sum, check and shift in one pass.
    pub(crate) fn decode_offsets(&self, page: &[u8], out: &mut [u64], base: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above), which is all that a function
            // compiled with `target_feature(enable = "avx2")` requires of its caller.
            return unsafe { self.decode_offsets_avx2(page, out, base) };
        }
        self.decode_offsets_portable(page, out, base)
    }

    /// [`ColumnCodec::decode_offsets`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn decode_offsets_avx2(&self, page: &[u8], out: &mut [u64], base: u64) -> bool {
        self.decode_offsets_portable(page, out, base)
    }

    #[inline(always)]
    fn decode_offsets_portable(&self, page: &[u8], out: &mut [u64], base: u64) -> bool {
        use ColumnType::*;
        match self.ty {
            SplitIndex64 => split_deltas_to_offsets::<8>(page, out, base),
            SplitIndex32 => split_deltas_to_offsets::<4>(page, out, base),
            _ => {
                self.decode_portable(page, out);
                shift_rising(out, base)
            }
        }
    }

    /// [`ColumnCodec::decode`] compiled for AVX2: the byte-plane interleaving and the
    /// conversions run on 32-byte vectors (a baseline x86-64 build has only SSE2's 16).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn decode_avx2<T: Element>(&self, page: &[u8], out: &mut [T]) {
        self.decode_portable(page, out);
    }

    /// The decoding itself, inlined into each instruction-set variant.
    #[inline(always)]
    fn decode_portable<T: Element>(&self, page: &[u8], out: &mut [T]) {
        use ColumnType::*;
        let n = out.len();
        match self.ty {
            Bit if is_same::<T, bool>() => unpack_bools(page, cast_same(out)),
            Bit => {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = T::from_bool((page[i / 8] >> (i % 8)) & 1 != 0);
                }
            }
            Byte | Char | UInt8 => plain::<u8, T>(page, out, |v| T::from_u64(v as u64)),
            Int8 => plain::<i8, T>(page, out, |v| T::from_i64(v as i64)),
            Int16 => plain::<i16, T>(page, out, |v| T::from_i64(v as i64)),
            UInt16 => plain::<u16, T>(page, out, |v| T::from_u64(v as u64)),
            Int32 => plain::<i32, T>(page, out, |v| T::from_i64(v as i64)),
            UInt32 | Index32 => plain::<u32, T>(page, out, |v| T::from_u64(v as u64)),
            Int64 => plain::<i64, T>(page, out, T::from_i64),
            UInt64 | Index64 => plain::<u64, T>(page, out, T::from_u64),
            Real32 => plain::<f32, T>(page, out, T::from_f32),
            Real64 => plain::<f64, T>(page, out, T::from_f64),
            Real16 => {
                for (o, c) in out.iter_mut().zip(page.chunks_exact(2)) {
                    *o = T::from_f32(half_to_f32(u16::from_le_bytes([c[0], c[1]])));
                }
            }
            SplitReal16 => {
                let (lo, hi) = page[..2 * n].split_at(n);
                for ((o, &l), &h) in out.iter_mut().zip(lo).zip(hi) {
                    *o = T::from_f32(half_to_f32(u16::from_le_bytes([l, h])));
                }
            }
            SplitInt16 => split::<u16, T>(page, out, |v| T::from_i64(unzigzag(v as u64))),
            SplitUInt16 => split::<u16, T>(page, out, |v| T::from_u64(v as u64)),
            SplitInt32 => split::<u32, T>(page, out, |v| T::from_i64(unzigzag(v as u64))),
            SplitUInt32 => split::<u32, T>(page, out, |v| T::from_u64(v as u64)),
            SplitInt64 => split::<u64, T>(page, out, |v| T::from_i64(unzigzag(v))),
            SplitUInt64 => split::<u64, T>(page, out, T::from_u64),
            SplitReal32 => split::<u32, T>(page, out, |v| T::from_f32(f32::from_bits(v))),
            SplitReal64 => split::<u64, T>(page, out, |v| T::from_f64(f64::from_bits(v))),
            SplitIndex32 | SplitIndex64 if is_same::<T, u64>() => {
                // Offsets (the usual target): the planes joined in one pass, which the
                // compiler vectorizes, and summed in a second over the values in cache
                // (a running sum inside the joining loop keeps it scalar: 3-4x slower).
                let offsets: &mut [u64] = cast_same(out);
                if self.ty == SplitIndex32 {
                    split::<u32, u64>(page, offsets, |v| v as u64);
                    running_sum(offsets, |sum, v| (sum as u32).wrapping_add(v as u32) as u64);
                } else {
                    split::<u64, u64>(page, offsets, |v| v);
                    running_sum(offsets, u64::wrapping_add);
                }
            }
            SplitIndex32 => {
                let mut sum = 0u32;
                split::<u32, T>(page, out, |v| {
                    sum = sum.wrapping_add(v);
                    T::from_u64(sum as u64)
                })
            }
            SplitIndex64 => {
                let mut sum = 0u64;
                split::<u64, T>(page, out, |v| {
                    sum = sum.wrapping_add(v);
                    T::from_u64(sum)
                })
            }
            Real32Trunc => {
                let bits = self.bits as u32;
                unpack_bits(page, bits, out, |v| {
                    T::from_f32(f32::from_bits((v as u32) << (32 - bits)))
                })
            }
            Real32Quant => {
                let bits = self.bits as u32;
                let (min, max) = self.range;
                let steps = ((1u64 << bits) - 1) as f64;
                let scale = (max - min) / steps;
                unpack_bits(page, bits, out, |v| T::from_f64(min + v as f64 * scale))
            }
            Switch => {
                // Switch columns are decoded by `decode_switch`.
                out.fill(T::default());
            }
        }
    }
}

/// Decodes a page of switch elements (64-bit index, 32-bit tag) into `index` and `tag`.
pub fn decode_switch(page: &[u8], index: &mut [u64], tag: &mut [u32]) {
    for ((c, i), t) in page
        .chunks_exact(12)
        .zip(index.iter_mut())
        .zip(tag.iter_mut())
    {
        *i = u64::from_le_bytes(c[..8].try_into().expect("8"));
        *t = u32::from_le_bytes(c[8..].try_into().expect("4"));
    }
}

/// A stored element type with a fixed little-endian width.
trait Stored: Copy + bytemuck::Pod {
    const WIDTH: usize;
    fn from_le(bytes: &[u8]) -> Self;
}

macro_rules! stored {
    ($($t:ty),*) => {$(
        impl Stored for $t {
            const WIDTH: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn from_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("width"))
            }
        }
    )*};
}

stored!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// Plain little-endian elements. When the stored type is the target type this is a
/// byte copy.
#[inline]
fn plain<S: Stored, T: Element>(page: &[u8], out: &mut [T], convert: impl Fn(S) -> T) {
    let bytes = &page[..out.len() * S::WIDTH];
    if std::any::TypeId::of::<S>() == std::any::TypeId::of::<T>() && cfg!(target_endian = "little")
    {
        // Same type, same byte order: the page bytes are the values.
        let dst: &mut [S] = cast_same(out);
        bytemuck::cast_slice_mut::<S, u8>(dst).copy_from_slice(bytes);
        return;
    }
    for (o, c) in out.iter_mut().zip(bytes.chunks_exact(S::WIDTH)) {
        *o = convert(S::from_le(c));
    }
}

/// Byte-split elements: all first bytes, then all second bytes, ... Each width has its
/// own loop over equally long byte planes, which the compiler turns into vector code.
#[inline(always)]
fn split<S: Stored + FromU64, T: Element>(
    page: &[u8],
    out: &mut [T],
    mut convert: impl FnMut(S) -> T,
) {
    let n = out.len();
    let bytes = &page[..n * S::WIDTH];
    match S::WIDTH {
        2 => {
            let (p0, p1) = bytes.split_at(n);
            for ((o, &a), &b) in out.iter_mut().zip(p0).zip(p1) {
                *o = convert(S::from_u64(u16::from_le_bytes([a, b]) as u64));
            }
        }
        4 => {
            let (p0, rest) = bytes.split_at(n);
            let (p1, rest) = rest.split_at(n);
            let (p2, p3) = rest.split_at(n);
            for (((o, &a), &b), (&c, &d)) in out.iter_mut().zip(p0).zip(p1).zip(p2.iter().zip(p3)) {
                *o = convert(S::from_u64(u32::from_le_bytes([a, b, c, d]) as u64));
            }
        }
        _ => {
            let (p0, rest) = bytes.split_at(n);
            let (p1, rest) = rest.split_at(n);
            let (p2, rest) = rest.split_at(n);
            let (p3, rest) = rest.split_at(n);
            let (p4, rest) = rest.split_at(n);
            let (p5, rest) = rest.split_at(n);
            let (p6, p7) = rest.split_at(n);
            let low = p0.iter().zip(p1).zip(p2.iter().zip(p3));
            let high = p4.iter().zip(p5).zip(p6.iter().zip(p7));
            for (o, (((&a, &b), (&c, &d)), ((&e, &f), (&g, &h)))) in
                out.iter_mut().zip(low.zip(high))
            {
                *o = convert(S::from_u64(u64::from_le_bytes([a, b, c, d, e, f, g, h])));
            }
        }
    }
}

/// Stored unsigned words built from bytes.
trait FromU64 {
    fn from_u64(v: u64) -> Self;
}

impl FromU64 for u16 {
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v as u16
    }
}

impl FromU64 for u32 {
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v as u32
    }
}

impl FromU64 for u64 {
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v
    }
}

/// True if `T` and `S` are the same type.
fn is_same<T: 'static, S: 'static>() -> bool {
    std::any::TypeId::of::<T>() == std::any::TypeId::of::<S>()
}

/// Replaces each delta by the running sum of the deltas up to it, `add` adding one to the
/// sum (in the stored width, wrapping as the writer's subtraction did).
#[inline(always)]
fn running_sum(values: &mut [u64], add: impl Fn(u64, u64) -> u64) {
    let mut sum = 0u64;
    for v in values {
        sum = add(sum, *v);
        *v = sum;
    }
}

/// Offsets from byte-split deltas of `W` bytes (the sum wrapping at `W` bytes, as the
/// writer's subtraction did) with `base` added; false if the sum wraps (the offsets
/// decrease). Works in blocks that stay in the first-level cache: the planes are joined
/// into a block of deltas (from the low two planes alone where the others are zero, the
/// common case of counts below 65,536), then summed into the destination, which is
/// written once.
#[inline(always)]
fn split_deltas_to_offsets<const W: usize>(page: &[u8], out: &mut [u64], base: u64) -> bool {
    const BLOCK: usize = 512;
    let n = out.len();
    if n == 0 {
        return true;
    }
    let planes: Vec<&[u8]> = page[..n * W].chunks_exact(n.max(1)).collect();
    let mask = if W == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * W)) - 1
    };
    let mut deltas = [0u64; BLOCK];
    let mut sum = 0u64;
    let mut rising = true;
    for (b, out) in out.chunks_mut(BLOCK).enumerate() {
        let (from, len) = (b * BLOCK, out.len());
        let deltas = &mut deltas[..len];
        let high_zero = planes[2..]
            .iter()
            .all(|p| p[from..from + len].iter().fold(0u8, |a, &v| a | v) == 0);
        let (p0, p1) = (&planes[0][from..from + len], &planes[1][from..from + len]);
        for ((d, &a), &b) in deltas.iter_mut().zip(p0).zip(p1) {
            *d = u64::from(a) | u64::from(b) << 8;
        }
        if !high_zero {
            for (k, p) in planes.iter().enumerate().skip(2) {
                for (d, &v) in deltas.iter_mut().zip(&p[from..from + len]) {
                    *d |= u64::from(v) << (8 * k);
                }
            }
        }
        // Deltas below 2^16 cannot wrap the sum within a block unless it is near the top.
        if high_zero && sum < mask - ((BLOCK as u64) << 16) {
            for (o, &d) in out.iter_mut().zip(deltas.iter()) {
                sum += d;
                *o = sum.wrapping_add(base);
            }
            continue;
        }
        for (o, &d) in out.iter_mut().zip(deltas.iter()) {
            let next = sum.wrapping_add(d) & mask;
            rising &= next >= sum;
            sum = next;
            *o = next.wrapping_add(base);
        }
    }
    rising
}

/// Adds `base` to every offset (wrapping) and says whether they never decreased before.
/// Branch-free, so that it runs as vector code.
#[inline(always)]
pub(crate) fn shift_rising(offsets: &mut [u64], base: u64) -> bool {
    let mut rising = true;
    let mut previous = offsets.first().copied().unwrap_or(0);
    for v in offsets.iter_mut() {
        rising &= *v >= previous;
        previous = *v;
        *v = v.wrapping_add(base);
    }
    rising
}

/// Each byte's 8 bits (least significant first) as 8 bytes of 0 or 1, in a little-endian word.
const SPREAD_BITS: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            table[byte] |= (((byte >> bit) & 1) as u64) << (8 * bit);
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// Bits (least significant first) as booleans, eight at a time.
fn unpack_bools(page: &[u8], out: &mut [bool]) {
    let n = out.len();
    // SAFETY: `bool` is one byte, and every byte written below is 0 or 1, the two valid
    // `bool` values; the slice covers exactly `out`'s memory, which is borrowed mutably.
    let bytes: &mut [u8] = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), n) };
    let whole = n / 8;
    for (o, &b) in bytes.chunks_exact_mut(8).zip(&page[..whole]) {
        o.copy_from_slice(&SPREAD_BITS[b as usize].to_le_bytes());
    }
    for (i, o) in bytes.iter_mut().enumerate().skip(whole * 8) {
        *o = (page[i / 8] >> (i % 8)) & 1;
    }
}

/// Reinterprets `&mut [T]` as `&mut [S]` when the two are the same type.
fn cast_same<T: 'static, S: 'static>(out: &mut [T]) -> &mut [S] {
    assert_eq!(std::any::TypeId::of::<S>(), std::any::TypeId::of::<T>());
    // SAFETY: the assertion above proves `S` and `T` are the same type, so the pointer,
    // length, alignment and validity of every element are unchanged.
    unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<S>(), out.len()) }
}

/// Elements of `bits` bits packed as one little-endian bit stream (least significant
/// bits first).
fn unpack_bits<T>(page: &[u8], bits: u32, out: &mut [T], convert: impl Fn(u64) -> T) {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    for (i, o) in out.iter_mut().enumerate() {
        let bit = i as u64 * bits as u64;
        let byte = (bit / 8) as usize;
        let shift = (bit % 8) as u32;
        let mut word = [0u8; 8];
        let avail = (page.len() - byte).min(8);
        word[..avail].copy_from_slice(&page[byte..byte + avail]);
        let v = (u64::from_le_bytes(word) >> shift) & mask;
        *o = convert(v);
    }
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// IEEE 754 half precision to single precision.
pub fn half_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1F) as u32;
    let mant = (h & 0x3FF) as u32;
    let bits = match (exp, mant) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: normalize.
            let mut e = 127 - 15 + 1;
            let mut m = mant;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | (e << 23) | ((m & 0x3FF) << 13)
        }
        (0x1F, 0) => sign | 0x7F80_0000,
        (0x1F, _) => sign | 0x7FC0_0000 | (mant << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (mant << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rntuple::write::encoding::encode_page;

    fn codec(ty: ColumnType) -> ColumnCodec {
        ColumnCodec {
            ty,
            bits: ty.bits_on_storage(),
            range: (0.0, 0.0),
        }
    }

    #[test]
    fn split_zigzag_delta_round_trip_with_the_writer() {
        let values: Vec<i32> = vec![0, -1, 5, i32::MIN, i32::MAX, 77];
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut page = Vec::new();
        encode_page(ColumnType::SplitInt32.encoding(), 4, &bytes, &mut page);
        let mut out = vec![0i32; values.len()];
        codec(ColumnType::SplitInt32).decode(&page, &mut out);
        assert_eq!(out, values);
        let mut wide = vec![0i64; values.len()];
        codec(ColumnType::SplitInt32).decode(&page, &mut wide);
        assert_eq!(wide, values.iter().map(|&v| v as i64).collect::<Vec<_>>());

        let offsets: Vec<u64> = vec![3, 3, 10, 12];
        let bytes: Vec<u8> = offsets.iter().flat_map(|v| v.to_le_bytes()).collect();
        encode_page(ColumnType::SplitIndex64.encoding(), 8, &bytes, &mut page);
        let mut out = vec![0u64; 4];
        codec(ColumnType::SplitIndex64).decode(&page, &mut out);
        assert_eq!(out, offsets);
    }

    /// `n` words whose every byte varies (a splitmix64-like sequence).
    fn words(n: usize) -> Vec<u64> {
        (1..=n as u64)
            .map(|i| {
                let z = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                (z ^ (z >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
            })
            .collect()
    }

    #[test]
    fn eight_byte_planes_join_in_every_target() {
        // 37 elements: vector loops and their scalar tails both run.
        let values = words(37);
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut page = Vec::new();
        for ty in [ColumnType::SplitUInt64, ColumnType::SplitReal64] {
            encode_page(ty.encoding(), 8, &bytes, &mut page);
            let mut out = vec![0u64; values.len()];
            codec(ColumnType::SplitUInt64).decode(&page, &mut out);
            assert_eq!(out, values, "{ty:?}");
        }
        let mut floats = vec![0f64; values.len()];
        codec(ColumnType::SplitReal64).decode(&page, &mut floats);
        let bits: Vec<u64> = floats.iter().map(|f| f.to_bits()).collect();
        assert_eq!(bits, values);
        let signed: Vec<i64> = values.iter().map(|&v| v as i64).collect();
        let bytes: Vec<u8> = signed.iter().flat_map(|v| v.to_le_bytes()).collect();
        encode_page(ColumnType::SplitInt64.encoding(), 8, &bytes, &mut page);
        let mut out = vec![0i64; values.len()];
        codec(ColumnType::SplitInt64).decode(&page, &mut out);
        assert_eq!(out, signed);
    }

    #[test]
    fn delta_index_pages_sum_alike_into_offsets_and_other_targets() {
        // Offsets read as u64 (joined, then summed) and as i64 (summed while joining)
        // must agree, for both widths, over 1000 growing offsets (with a tail).
        let offsets: Vec<u64> = words(1001)
            .iter()
            .scan(0u64, |sum, w| {
                *sum += w % 10_000_000;
                Some(*sum)
            })
            .collect();
        assert!(offsets.last().copied().unwrap() > u64::from(u32::MAX));
        let mut page = Vec::new();
        let bytes: Vec<u8> = offsets.iter().flat_map(|v| v.to_le_bytes()).collect();
        encode_page(ColumnType::SplitIndex64.encoding(), 8, &bytes, &mut page);
        let mut out = vec![0u64; offsets.len()];
        codec(ColumnType::SplitIndex64).decode(&page, &mut out);
        assert_eq!(out, offsets);
        let mut signed = vec![0i64; offsets.len()];
        codec(ColumnType::SplitIndex64).decode(&page, &mut signed);
        assert!(signed.iter().zip(&offsets).all(|(&s, &o)| s as u64 == o));

        // 32-bit offsets wrap as the writer's 32-bit differences did.
        let small: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
        let bytes: Vec<u8> = small.iter().flat_map(|v| v.to_le_bytes()).collect();
        encode_page(ColumnType::SplitIndex32.encoding(), 4, &bytes, &mut page);
        let mut out = vec![0u64; small.len()];
        codec(ColumnType::SplitIndex32).decode(&page, &mut out);
        assert_eq!(out, small.iter().map(|&v| u64::from(v)).collect::<Vec<_>>());
        let mut signed = vec![0i64; small.len()];
        codec(ColumnType::SplitIndex32).decode(&page, &mut signed);
        assert!(signed.iter().zip(&out).all(|(&s, &o)| s as u64 == o));
    }

    #[test]
    fn offsets_from_split_deltas_equal_the_plain_decoding_plus_the_base() {
        for ty in [ColumnType::SplitIndex64, ColumnType::SplitIndex32] {
            let width = if ty == ColumnType::SplitIndex64 { 8 } else { 4 };
            for n in [0usize, 1, 511, 512, 513, 1500] {
                // Small counts, with a few large ones (high byte planes not zero) in
                // the second block only.
                let values: Vec<u64> = (0..n as u64)
                    .scan(0u64, |sum, i| {
                        *sum += if (600..610).contains(&i) {
                            1 << 31
                        } else {
                            i % 7
                        };
                        Some(
                            *sum & if width == 4 {
                                u32::MAX as u64
                            } else {
                                u64::MAX
                            },
                        )
                    })
                    .collect();
                let bytes: Vec<u8> = values
                    .iter()
                    .flat_map(|v| v.to_le_bytes()[..width].to_vec())
                    .collect();
                let mut page = Vec::new();
                encode_page(ty.encoding(), width, &bytes, &mut page);
                let mut plain = vec![0u64; n];
                codec(ty).decode(&page, &mut plain);
                let mut offsets = vec![0u64; n];
                let rising = codec(ty).decode_offsets(&page, &mut offsets, 1000);
                let expected: Vec<u64> = plain.iter().map(|v| v + 1000).collect();
                assert_eq!(offsets, expected, "{ty:?} n={n}");
                // 32-bit sums wrap once two large deltas pass 2^32: a decrease.
                assert_eq!(rising, width == 8 || n <= 600, "{ty:?} n={n}");
            }
        }
    }

    #[test]
    fn bits_read_as_booleans_eight_at_a_time_equal_bits_read_one_by_one() {
        let page: Vec<u8> = (0..40u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for n in [0, 1, 7, 8, 9, 64, 317, 320] {
            let mut fast = vec![false; n];
            codec(ColumnType::Bit).decode(&page, &mut fast);
            let mut slow = vec![0u8; n];
            codec(ColumnType::Bit).decode(&page, &mut slow);
            let expected: Vec<bool> = (0..n).map(|i| (page[i / 8] >> (i % 8)) & 1 == 1).collect();
            assert_eq!(fast, expected);
            assert!(slow.iter().zip(&expected).all(|(&s, &e)| s == u8::from(e)));
        }
    }

    #[test]
    fn bits_halves_and_truncated_floats() {
        let mut out = vec![false; 10];
        codec(ColumnType::Bit).decode(&[0b1010_0101, 0b10], &mut out);
        assert_eq!(
            out,
            [true, false, true, false, false, true, false, true, false, true]
        );
        assert_eq!(half_to_f32(0x3C00), 1.0);
        assert_eq!(half_to_f32(0xC000), -2.0);
        assert_eq!(half_to_f32(0x0001), 2f32.powi(-24));
        assert!(half_to_f32(0x7E00).is_nan());
        // Two 16-bit truncated floats: the top halves of 1.5 and -2.0.
        let c = ColumnCodec {
            ty: ColumnType::Real32Trunc,
            bits: 16,
            range: (0.0, 0.0),
        };
        let page = [0xC0, 0x3F, 0x00, 0xC0];
        let mut out = vec![0f32; 2];
        c.decode(&page, &mut out);
        assert_eq!(out, [1.5, -2.0]);
    }

    #[test]
    fn quantized_floats_span_their_range() {
        let c = ColumnCodec {
            ty: ColumnType::Real32Quant,
            bits: 4,
            range: (-1.0, 2.0),
        };
        // 0 and 15 (max) packed in one byte.
        let mut out = vec![0f64; 2];
        c.decode(&[0xF0], &mut out);
        assert_eq!(out, [-1.0, 2.0]);
        assert!(c.check_target::<f32>("float").is_ok());
        assert!(c.check_target::<i32>("int").is_err());
    }
}
