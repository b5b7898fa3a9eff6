//! Reuse of result memory from one read to the next.
//!
//! Filling fresh memory costs a page fault and a page of zeros from the kernel the first
//! time each page is written; on a virtual machine that can cost more than decompressing
//! and decoding the values. A read that is given the arrays of an earlier one fills
//! their memory instead.

use super::buffer::{Buffer, LeafType, Target};
use super::Array;

/// Memory of arrays a caller is done with, handed to the next read to fill again (see
/// [`crate::rntuple::RNTupleReader::read_recycling`],
/// [`crate::ttree::TTreeReader::read_recycling`] and [`crate::dataset::Batches`]).
///
/// A read takes, for each buffer it needs, the smallest recycled one of the same element
/// type that is large enough. The readers' `read_recycling` and [`crate::dataset::Batches`]
/// free what a read did not take when it ends, so a recycler holds at most the memory of
/// the arrays given back since the last read.
#[derive(Debug, Default)]
pub struct Recycler {
    pools: Pools,
}

#[derive(Debug, Default)]
struct Pools {
    bool: Vec<Vec<bool>>,
    i8: Vec<Vec<i8>>,
    i16: Vec<Vec<i16>>,
    i32: Vec<Vec<i32>>,
    i64: Vec<Vec<i64>>,
    u8: Vec<Vec<u8>>,
    u16: Vec<Vec<u16>>,
    u32: Vec<Vec<u32>>,
    u64: Vec<Vec<u64>>,
    f32: Vec<Vec<f32>>,
    f64: Vec<Vec<f64>>,
}

/// An element type with a pool of its own.
trait Pooled: Copy + Default {
    fn pool(pools: &mut Pools) -> &mut Vec<Vec<Self>>;
}

macro_rules! pooled {
    ($($t:ident),*) => {$(
        impl Pooled for $t {
            fn pool(pools: &mut Pools) -> &mut Vec<Vec<Self>> {
                &mut pools.$t
            }
        }
    )*};
}

pooled!(bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

impl Recycler {
    /// An empty recycler.
    pub fn new() -> Self {
        Self::default()
    }

    /// Hands back the memory of an array that is no longer needed.
    pub fn recycle(&mut self, array: Array) {
        match array {
            Array::Bool(v) => self.keep(v),
            Array::Int8(v) => self.keep(v),
            Array::Int16(v) => self.keep(v),
            Array::Int32(v) => self.keep(v),
            Array::Int64(v) => self.keep(v),
            Array::UInt8(v) => self.keep(v),
            Array::UInt16(v) => self.keep(v),
            Array::UInt32(v) => self.keep(v),
            Array::UInt64(v) => self.keep(v),
            Array::Float32(v) => self.keep(v),
            Array::Float64(v) => self.keep(v),
            Array::String { offsets, bytes } => {
                self.keep(offsets);
                self.keep(bytes);
            }
            Array::List { offsets, values } | Array::Optional { offsets, values } => {
                self.keep(offsets);
                self.recycle(*values);
            }
            Array::Fixed { values, .. } => self.recycle(*values),
            Array::Record { fields, .. } => fields.into_iter().for_each(|(_, a)| self.recycle(a)),
            Array::Variant {
                tags,
                index,
                alternatives,
            } => {
                self.keep(tags);
                self.keep(index);
                alternatives.into_iter().for_each(|a| self.recycle(a));
            }
        }
    }

    /// Bytes of memory held.
    pub fn held_bytes(&self) -> usize {
        fn bytes<T>(pool: &[Vec<T>]) -> usize {
            pool.iter()
                .map(|v| v.capacity() * std::mem::size_of::<T>())
                .sum()
        }
        let p = &self.pools;
        bytes(&p.bool)
            + bytes(&p.i8)
            + bytes(&p.i16)
            + bytes(&p.i32)
            + bytes(&p.i64)
            + bytes(&p.u8)
            + bytes(&p.u16)
            + bytes(&p.u32)
            + bytes(&p.u64)
            + bytes(&p.f32)
            + bytes(&p.f64)
    }

    /// Frees what is held.
    pub fn clear(&mut self) {
        self.pools = Pools::default();
    }

    fn keep<T: Pooled>(&mut self, v: Vec<T>) {
        if v.capacity() > 0 {
            T::pool(&mut self.pools).push(v);
        }
    }

    /// A vector of `len` elements: a recycled one (holding stale values) if one is large
    /// enough, else a new zero-filled one. The flag says which.
    fn take<T: Pooled>(&mut self, len: usize) -> (Vec<T>, bool) {
        let pool = T::pool(&mut self.pools);
        let best = pool
            .iter()
            .enumerate()
            .filter(|(_, v)| v.capacity() >= len)
            .min_by_key(|(_, v)| v.capacity())
            .map(|(i, _)| i);
        match best {
            Some(i) => {
                let mut v = pool.swap_remove(i);
                // Within the capacity: no reallocation, and the memory is mapped already
                // up to the length it had.
                v.resize(len, T::default());
                (v, false)
            }
            None => (vec![T::default(); len], true),
        }
    }

    /// A buffer of `len` elements for `target` (offsets get one more). A recycled buffer
    /// holds stale values, which the caller must overwrite or zero (the flag is true for a
    /// new, zero-filled buffer).
    pub(crate) fn buffer(&mut self, target: Target, len: usize) -> (Buffer, bool) {
        use LeafType::*;
        let (buffer, fresh) = match target {
            Target::Index => {
                let (v, fresh) = self.take(len + 1);
                (Buffer::UInt64(v), fresh)
            }
            Target::Switch => {
                let (i, fresh_i) = self.take(len);
                let (t, fresh_t) = self.take(len);
                (Buffer::Switch(i, t), fresh_i && fresh_t)
            }
            Target::Leaf(t) => match t {
                Bool => wrap(self.take(len), Buffer::Bool),
                Int8 => wrap(self.take(len), Buffer::Int8),
                Int16 => wrap(self.take(len), Buffer::Int16),
                Int32 => wrap(self.take(len), Buffer::Int32),
                Int64 => wrap(self.take(len), Buffer::Int64),
                UInt8 => wrap(self.take(len), Buffer::UInt8),
                UInt16 => wrap(self.take(len), Buffer::UInt16),
                UInt32 => wrap(self.take(len), Buffer::UInt32),
                UInt64 => wrap(self.take(len), Buffer::UInt64),
                Float32 => wrap(self.take(len), Buffer::Float32),
                Float64 => wrap(self.take(len), Buffer::Float64),
            },
        };
        (buffer, fresh)
    }
}

fn wrap<T>((v, fresh): (Vec<T>, bool), make: impl Fn(Vec<T>) -> Buffer) -> (Buffer, bool) {
    (make(v), fresh)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_smallest_large_enough_vector_and_frees_the_rest() {
        let mut r = Recycler::new();
        r.recycle(Array::Int32(vec![7; 100]));
        r.recycle(Array::Int32(vec![8; 10]));
        r.recycle(Array::Float64(vec![1.0; 5]));
        let (b, fresh) = r.buffer(Target::Leaf(LeafType::Int32), 8);
        assert!(!fresh);
        let Buffer::Int32(v) = b else { panic!() };
        assert_eq!(v, vec![8; 8]);
        let (b, fresh) = r.buffer(Target::Leaf(LeafType::Int32), 200);
        assert!(fresh);
        assert_eq!(b.len(), 200);
        assert_eq!(r.held_bytes(), 100 * 4 + 5 * 8);
        r.clear();
        assert_eq!(r.held_bytes(), 0);
    }

    #[test]
    fn collections_give_back_offsets_and_items() {
        let mut r = Recycler::new();
        r.recycle(Array::List {
            offsets: vec![0, 2, 3],
            values: Box::new(Array::String {
                offsets: vec![0, 1, 2, 3],
                bytes: b"abc".to_vec(),
            }),
        });
        let (b, fresh) = r.buffer(Target::Index, 3);
        assert!(!fresh);
        assert_eq!(b.len(), 4);
        let (b, fresh) = r.buffer(Target::Leaf(LeafType::UInt8), 2);
        assert!(!fresh);
        assert_eq!(b.len(), 2);
    }
}
