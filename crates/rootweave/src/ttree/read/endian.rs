//! Big-endian values to native ones: tight loops over whole runs of values, written so
//! that the compiler turns them into vector byte shuffles (no per-value calls, no
//! bounds checks inside the loop).

/// A value type stored big-endian in baskets.
pub trait BigEndian: Copy {
    /// Bytes of one value.
    const SIZE: usize;
    /// Converts `src` (exactly `dst.len() * SIZE` bytes) into `dst`.
    fn convert(src: &[u8], dst: &mut [Self]);
}

macro_rules! big_endian {
    ($($t:ty),*) => {$(
        impl BigEndian for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn convert(src: &[u8], dst: &mut [Self]) {
                const N: usize = std::mem::size_of::<$t>();
                assert_eq!(src.len(), dst.len() * N, "whole values");
                for (d, c) in dst.iter_mut().zip(src.chunks_exact(N)) {
                    let mut b = [0u8; N];
                    b.copy_from_slice(c);
                    *d = <$t>::from_be_bytes(b);
                }
            }
        }
    )*};
}

big_endian!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

impl BigEndian for bool {
    const SIZE: usize = 1;
    #[inline]
    fn convert(src: &[u8], dst: &mut [Self]) {
        assert_eq!(src.len(), dst.len(), "whole values");
        for (d, &b) in dst.iter_mut().zip(src) {
            *d = b != 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts() {
        let mut i = [0i32; 2];
        i32::convert(&[0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe], &mut i);
        assert_eq!(i, [1, -2]);
        let mut f = [0f64; 1];
        f64::convert(&1.5f64.to_be_bytes(), &mut f);
        assert_eq!(f, [1.5]);
        let mut b = [false; 3];
        bool::convert(&[0, 2, 1], &mut b);
        assert_eq!(b, [false, true, true]);
    }
}
