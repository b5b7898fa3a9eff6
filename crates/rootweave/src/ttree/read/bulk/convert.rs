//! Big-endian basket values into their destination slices, and the arrays of finished
//! buffers.

use crate::array::buffer::Dst;
use crate::ttree::read::endian::BigEndian;

/// Big-endian values into a destination slice, from its element `at` on.
pub(super) fn convert(bytes: &[u8], dst: &mut Dst, at: usize) {
    fn go<T: BigEndian>(bytes: &[u8], v: &mut [T], at: usize) {
        T::convert(bytes, &mut v[at..at + bytes.len() / T::SIZE]);
    }
    match dst {
        Dst::Bool(v) => go(bytes, v, at),
        Dst::Int8(v) => go(bytes, v, at),
        Dst::Int16(v) => go(bytes, v, at),
        Dst::Int32(v) => go(bytes, v, at),
        Dst::Int64(v) => go(bytes, v, at),
        Dst::UInt8(v) => go(bytes, v, at),
        Dst::UInt16(v) => go(bytes, v, at),
        Dst::UInt32(v) => go(bytes, v, at),
        Dst::UInt64(v) => go(bytes, v, at),
        Dst::Float32(v) => go(bytes, v, at),
        Dst::Float64(v) => go(bytes, v, at),
        Dst::Switch(..) => unreachable!("no switch columns in TTrees"),
    }
}
