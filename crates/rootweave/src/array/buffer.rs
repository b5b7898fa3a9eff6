//! Typed column buffers that the readers decode pages and baskets into, and the disjoint
//! mutable slices of them that decoding jobs fill in parallel. Format-neutral: each format
//! decodes its own bytes into a [`Dst`].

use super::Array;

/// The in-memory type of leaf values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeafType {
    /// `bool`
    Bool,
    /// `std::int8_t`, `char`
    Int8,
    /// `std::int16_t`
    Int16,
    /// `std::int32_t`
    Int32,
    /// `std::int64_t`
    Int64,
    /// `std::uint8_t`, `std::byte`
    UInt8,
    /// `std::uint16_t`
    UInt16,
    /// `std::uint32_t`
    UInt32,
    /// `std::uint64_t`
    UInt64,
    /// `float`
    Float32,
    /// `double`
    Float64,
}

impl LeafType {
    /// Bytes of one value.
    pub fn size(self) -> usize {
        match self {
            LeafType::Bool | LeafType::Int8 | LeafType::UInt8 => 1,
            LeafType::Int16 | LeafType::UInt16 => 2,
            LeafType::Int32 | LeafType::UInt32 | LeafType::Float32 => 4,
            LeafType::Int64 | LeafType::UInt64 | LeafType::Float64 => 8,
        }
    }

    /// The leaf type of a normalized C++ type name.
    pub fn from_type_name(name: &str) -> Option<Self> {
        Some(match name {
            "bool" => LeafType::Bool,
            "char" | "std::int8_t" | "signed char" | "int8_t" => LeafType::Int8,
            "std::byte" | "std::uint8_t" | "unsigned char" | "uint8_t" => LeafType::UInt8,
            "std::int16_t" | "short" | "int16_t" => LeafType::Int16,
            "std::uint16_t" | "unsigned short" | "uint16_t" => LeafType::UInt16,
            "std::int32_t" | "int" | "int32_t" => LeafType::Int32,
            "std::uint32_t" | "unsigned int" | "uint32_t" => LeafType::UInt32,
            "std::int64_t" | "long" | "long long" | "int64_t" => LeafType::Int64,
            "std::uint64_t" | "unsigned long" | "unsigned long long" | "uint64_t" => {
                LeafType::UInt64
            }
            "float" | "Float16_t" => LeafType::Float32,
            "double" | "Double32_t" => LeafType::Float64,
            _ => return None,
        })
    }
}

/// What a column slot (of either format) is decoded into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Values of a leaf type (bitsets: `Bool`, characters and streamed bytes: `UInt8`).
    Leaf(LeafType),
    /// Collection offsets (64-bit; the buffer has one leading 0).
    Index,
    /// Variant switch: index and tag.
    Switch,
}

/// The decoded elements of one column slot over a range of clusters.
#[derive(Debug)]
pub enum Buffer {
    /// `bool`
    Bool(Vec<bool>),
    /// `i8`
    Int8(Vec<i8>),
    /// `i16`
    Int16(Vec<i16>),
    /// `i32`
    Int32(Vec<i32>),
    /// `i64`
    Int64(Vec<i64>),
    /// `u8`
    UInt8(Vec<u8>),
    /// `u16`
    UInt16(Vec<u16>),
    /// `u32`
    UInt32(Vec<u32>),
    /// `u64` (also offsets)
    UInt64(Vec<u64>),
    /// `f32`
    Float32(Vec<f32>),
    /// `f64`
    Float64(Vec<f64>),
    /// Switch elements: index and tag.
    Switch(Vec<u64>, Vec<u32>),
}

/// A mutable slice of a [`Buffer`] that one page is decoded into.
#[derive(Debug)]
pub enum Dst<'a> {
    /// `bool`
    Bool(&'a mut [bool]),
    /// `i8`
    Int8(&'a mut [i8]),
    /// `i16`
    Int16(&'a mut [i16]),
    /// `i32`
    Int32(&'a mut [i32]),
    /// `i64`
    Int64(&'a mut [i64]),
    /// `u8`
    UInt8(&'a mut [u8]),
    /// `u16`
    UInt16(&'a mut [u16]),
    /// `u32`
    UInt32(&'a mut [u32]),
    /// `u64`
    UInt64(&'a mut [u64]),
    /// `f32`
    Float32(&'a mut [f32]),
    /// `f64`
    Float64(&'a mut [f64]),
    /// Switch index and tag.
    Switch(&'a mut [u64], &'a mut [u32]),
}

macro_rules! each_buffer {
    ($value:expr, $v:ident => $body:expr, switch($i:ident, $t:ident) => $sbody:expr) => {
        match $value {
            Buffer::Bool($v) => $body,
            Buffer::Int8($v) => $body,
            Buffer::Int16($v) => $body,
            Buffer::Int32($v) => $body,
            Buffer::Int64($v) => $body,
            Buffer::UInt8($v) => $body,
            Buffer::UInt16($v) => $body,
            Buffer::UInt32($v) => $body,
            Buffer::UInt64($v) => $body,
            Buffer::Float32($v) => $body,
            Buffer::Float64($v) => $body,
            Buffer::Switch($i, $t) => $sbody,
        }
    };
}

impl Buffer {
    /// A zero-filled buffer of `len` elements for `target` (offsets get one more).
    pub fn zeroed(target: Target, len: usize) -> Buffer {
        use LeafType::*;
        match target {
            Target::Index => Buffer::UInt64(vec![0; len + 1]),
            Target::Switch => Buffer::Switch(vec![0; len], vec![0; len]),
            Target::Leaf(t) => match t {
                Bool => Buffer::Bool(vec![false; len]),
                Int8 => Buffer::Int8(vec![0; len]),
                Int16 => Buffer::Int16(vec![0; len]),
                Int32 => Buffer::Int32(vec![0; len]),
                Int64 => Buffer::Int64(vec![0; len]),
                UInt8 => Buffer::UInt8(vec![0; len]),
                UInt16 => Buffer::UInt16(vec![0; len]),
                UInt32 => Buffer::UInt32(vec![0; len]),
                UInt64 => Buffer::UInt64(vec![0; len]),
                Float32 => Buffer::Float32(vec![0.0; len]),
                Float64 => Buffer::Float64(vec![0.0; len]),
            },
        }
    }

    /// Asks the kernel to back a large buffer with huge pages: a fresh buffer is filled
    /// page by page, and with 4 KiB pages the page faults cost more than the decoding.
    /// The advice concerns this buffer's memory only (see `ReadOptions::huge_pages`).
    pub fn prefer_huge_pages(&self) {
        #[cfg(target_os = "linux")]
        {
            fn advise<T>(v: &[T]) {
                const HUGE: usize = 2 << 20;
                let bytes = std::mem::size_of_val(v);
                if bytes < 2 * HUGE {
                    return;
                }
                let start = v.as_ptr() as usize;
                let aligned = start.next_multiple_of(HUGE);
                let len = (start + bytes - aligned) / HUGE * HUGE;
                // SAFETY: [aligned, aligned + len) lies inside the live allocation of `v`
                // and is page-aligned. MADV_HUGEPAGE is advice about how the kernel backs
                // those pages; it never changes their contents or validity, so no Rust
                // invariant depends on whether it succeeds (its result is ignored).
                unsafe {
                    libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
                }
            }
            each_buffer!(self, v => advise(v), switch(i, t) => { advise(i); advise(t) })
        }
    }

    /// Splits the buffer into disjoint slices at the given `(start, len)` ranges (sorted,
    /// non-overlapping); the parts between them are left as they are.
    pub fn split_ranges(&mut self, ranges: &[(usize, usize)]) -> Vec<Dst<'_>> {
        fn cut<'a, T>(mut rest: &'a mut [T], ranges: &[(usize, usize)]) -> Vec<&'a mut [T]> {
            let mut at = 0;
            let mut out = Vec::with_capacity(ranges.len());
            for &(start, len) in ranges {
                let (_, tail) = std::mem::take(&mut rest).split_at_mut(start - at);
                let (part, tail) = tail.split_at_mut(len);
                out.push(part);
                rest = tail;
                at = start + len;
            }
            out
        }
        match self {
            Buffer::Bool(v) => cut(v, ranges).into_iter().map(Dst::Bool).collect(),
            Buffer::Int8(v) => cut(v, ranges).into_iter().map(Dst::Int8).collect(),
            Buffer::Int16(v) => cut(v, ranges).into_iter().map(Dst::Int16).collect(),
            Buffer::Int32(v) => cut(v, ranges).into_iter().map(Dst::Int32).collect(),
            Buffer::Int64(v) => cut(v, ranges).into_iter().map(Dst::Int64).collect(),
            Buffer::UInt8(v) => cut(v, ranges).into_iter().map(Dst::UInt8).collect(),
            Buffer::UInt16(v) => cut(v, ranges).into_iter().map(Dst::UInt16).collect(),
            Buffer::UInt32(v) => cut(v, ranges).into_iter().map(Dst::UInt32).collect(),
            Buffer::UInt64(v) => cut(v, ranges).into_iter().map(Dst::UInt64).collect(),
            Buffer::Float32(v) => cut(v, ranges).into_iter().map(Dst::Float32).collect(),
            Buffer::Float64(v) => cut(v, ranges).into_iter().map(Dst::Float64).collect(),
            Buffer::Switch(i, t) => cut(i, ranges)
                .into_iter()
                .zip(cut(t, ranges))
                .map(|(i, t)| Dst::Switch(i, t))
                .collect(),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        each_buffer!(self, v => v.len(), switch(i, _t) => i.len())
    }

    /// Sets the elements in the given ranges to zero.
    pub fn zero_ranges(&mut self, ranges: &[std::ops::Range<usize>]) {
        fn zero<T: Default + Copy>(v: &mut [T], ranges: &[std::ops::Range<usize>]) {
            for r in ranges {
                v[r.clone()].fill(T::default());
            }
        }
        each_buffer!(self, v => zero(v, ranges), switch(i, t) => { zero(i, ranges); zero(t, ranges) })
    }

    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Dst<'_> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Dst::Bool(v) => v.len(),
            Dst::Int8(v) => v.len(),
            Dst::Int16(v) => v.len(),
            Dst::Int32(v) => v.len(),
            Dst::Int64(v) => v.len(),
            Dst::UInt8(v) => v.len(),
            Dst::UInt16(v) => v.len(),
            Dst::UInt32(v) => v.len(),
            Dst::UInt64(v) => v.len(),
            Dst::Float32(v) => v.len(),
            Dst::Float64(v) => v.len(),
            Dst::Switch(i, _) => i.len(),
        }
    }

    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Copies elements `from..from + self.len()` of `src` (of the same type) into the
    /// destination.
    pub fn copy_from(&mut self, src: &Dst, from: usize) {
        let n = self.len();
        match (self, src) {
            (Dst::Bool(d), Dst::Bool(s)) => d.copy_from_slice(&s[from..from + n]),
            (Dst::Int8(d), Dst::Int8(s)) => d.copy_from_slice(&s[from..from + n]),
            (Dst::Int16(d), Dst::Int16(s)) => d.copy_from_slice(&s[from..from + n]),
            (Dst::Int32(d), Dst::Int32(s)) => d.copy_from_slice(&s[from..from + n]),
            (Dst::Int64(d), Dst::Int64(s)) => d.copy_from_slice(&s[from..from + n]),
            (Dst::UInt8(d), Dst::UInt8(s)) => d.copy_from_slice(&s[from..from + n]),
            (Dst::UInt16(d), Dst::UInt16(s)) => d.copy_from_slice(&s[from..from + n]),
            (Dst::UInt32(d), Dst::UInt32(s)) => d.copy_from_slice(&s[from..from + n]),
            (Dst::UInt64(d), Dst::UInt64(s)) => d.copy_from_slice(&s[from..from + n]),
            (Dst::Float32(d), Dst::Float32(s)) => d.copy_from_slice(&s[from..from + n]),
            (Dst::Float64(d), Dst::Float64(s)) => d.copy_from_slice(&s[from..from + n]),
            (Dst::Switch(di, dt), Dst::Switch(si, st)) => {
                di.copy_from_slice(&si[from..from + n]);
                dt.copy_from_slice(&st[from..from + n]);
            }
            _ => unreachable!("a destination and its scratch have the same type"),
        }
    }
}

impl From<Buffer> for Array {
    /// The array of a filled leaf buffer, its memory moved (a variant switch buffer gives
    /// its indices; readers take its tags apart first).
    fn from(buffer: Buffer) -> Array {
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
}
