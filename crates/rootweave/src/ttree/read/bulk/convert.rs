//! Big-endian basket values into their destination slices, and the arrays of finished
//! buffers.

use crate::array::buffer::{Buffer, Dst};
use crate::array::Array;
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

/// The array of a leaf buffer.
pub(super) fn leaf_array(buffer: Buffer) -> Array {
    match buffer {
        Buffer::Bool(v) => Array::Bool(v),
        Buffer::Int8(v) => Array::Int8(v),
        Buffer::Int16(v) => Array::Int16(v),
        Buffer::Int32(v) => Array::Int32(v),
        Buffer::Int64(v) => Array::Int64(v),
        Buffer::UInt8(v) => Array::UInt8(v),
        Buffer::UInt16(v) => Array::UInt16(v),
        Buffer::UInt32(v) => Array::UInt32(v),
        Buffer::UInt64(v) | Buffer::Switch(v, _) => Array::UInt64(v),
        Buffer::Float32(v) => Array::Float32(v),
        Buffer::Float64(v) => Array::Float64(v),
    }
}
