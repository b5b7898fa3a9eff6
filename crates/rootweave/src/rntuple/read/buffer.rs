//! Decoding RNTuple pages into the typed destinations of the array layer.

use super::decode::{decode_switch, ColumnCodec, Element};
use crate::array::buffer::Dst;
use crate::rntuple::format::ColumnType;

/// A destination that pages of an RNTuple column decode into.
pub trait DecodePage {
    /// True if a page of `codec` holds exactly the destination's bytes (see
    /// [`DecodePage::native_bytes`]).
    fn is_native(&self, codec: &ColumnCodec) -> bool;
    /// The destination's bytes, if a page of `codec` holds exactly these bytes (a plain
    /// little-endian column of the same type), so that it can be decompressed in place.
    fn native_bytes(&mut self, codec: &ColumnCodec) -> Option<&mut [u8]>;
    /// Decodes one uncompressed page of `codec` into the destination.
    fn decode(&mut self, codec: &ColumnCodec, page: &[u8]);
}

impl DecodePage for Dst<'_> {
    fn is_native(&self, codec: &ColumnCodec) -> bool {
        use ColumnType as C;
        cfg!(target_endian = "little")
            && matches!(
                (self, codec.ty),
                (Dst::Int8(_), C::Int8)
                    | (Dst::UInt8(_), C::UInt8 | C::Char | C::Byte)
                    | (Dst::Int16(_), C::Int16)
                    | (Dst::UInt16(_), C::UInt16)
                    | (Dst::Int32(_), C::Int32)
                    | (Dst::UInt32(_), C::UInt32)
                    | (Dst::Int64(_), C::Int64)
                    | (Dst::UInt64(_), C::UInt64 | C::Index64)
                    | (Dst::Float32(_), C::Real32)
                    | (Dst::Float64(_), C::Real64)
            )
    }

    fn native_bytes(&mut self, codec: &ColumnCodec) -> Option<&mut [u8]> {
        use ColumnType as C;
        if cfg!(target_endian = "big") {
            return None;
        }
        match (self, codec.ty) {
            (Dst::Int8(v), C::Int8) => Some(bytemuck::cast_slice_mut(v)),
            (Dst::UInt8(v), C::UInt8 | C::Char | C::Byte) => Some(v),
            (Dst::Int16(v), C::Int16) => Some(bytemuck::cast_slice_mut(v)),
            (Dst::UInt16(v), C::UInt16) => Some(bytemuck::cast_slice_mut(v)),
            (Dst::Int32(v), C::Int32) => Some(bytemuck::cast_slice_mut(v)),
            (Dst::UInt32(v), C::UInt32) => Some(bytemuck::cast_slice_mut(v)),
            (Dst::Int64(v), C::Int64) => Some(bytemuck::cast_slice_mut(v)),
            (Dst::UInt64(v), C::UInt64 | C::Index64) => Some(bytemuck::cast_slice_mut(v)),
            (Dst::Float32(v), C::Real32) => Some(bytemuck::cast_slice_mut(v)),
            (Dst::Float64(v), C::Real64) => Some(bytemuck::cast_slice_mut(v)),
            _ => None,
        }
    }

    fn decode(&mut self, codec: &ColumnCodec, page: &[u8]) {
        fn go<T: Element>(codec: &ColumnCodec, page: &[u8], out: &mut [T]) {
            codec.decode(page, out)
        }
        match self {
            Dst::Bool(v) => go(codec, page, v),
            Dst::Int8(v) => go(codec, page, v),
            Dst::Int16(v) => go(codec, page, v),
            Dst::Int32(v) => go(codec, page, v),
            Dst::Int64(v) => go(codec, page, v),
            Dst::UInt8(v) => go(codec, page, v),
            Dst::UInt16(v) => go(codec, page, v),
            Dst::UInt32(v) => go(codec, page, v),
            Dst::UInt64(v) => go(codec, page, v),
            Dst::Float32(v) => go(codec, page, v),
            Dst::Float64(v) => go(codec, page, v),
            Dst::Switch(i, t) => decode_switch(page, i, t),
        }
    }
}
