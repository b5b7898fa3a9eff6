//! Result memory reused from one read to the next.
//!
//! Filling fresh memory costs the kernel a page of zeros for every page first written; for
//! a read of every field that is a quarter of its time. The large NumPy buffers of a read
//! are therefore owned by a [`ResultMemory`] object: when NumPy frees the last array on it,
//! its memory goes to this process's pool instead of the allocator, and the next read fills
//! it again (the pattern of `iterate` and of repeated `arrays` calls).
//!
//! The pool holds at most the memory freed since the last read began, and never more than
//! that read returned; a read takes all of it and frees what it did not reuse.
//! `rootweave.release_memory()` frees it at once.

use std::sync::{LazyLock, Mutex};

use numpy::ndarray::ArrayView1;
use numpy::{Element, PyArray1};
use pyo3::prelude::*;
use rootweave::array::{Array, Recycler};

use crate::detached::{detached_in_drop, lock};

/// Buffers smaller than this are left to the allocator, which reuses them cheaply.
const POOLED_BYTES: usize = 1 << 20;

/// The memory given back since the last read, and the most it may hold.
struct Pool {
    recycler: Recycler,
    /// Bytes of large buffers the last read returned: the pool keeps no more.
    limit: usize,
}

static POOL: LazyLock<Mutex<Pool>> = LazyLock::new(|| {
    Mutex::new(Pool {
        recycler: Recycler::new(),
        limit: 0,
    })
});

/// Takes the pooled memory for a read (call detached). What the read does not reuse is
/// freed when the returned recycler is dropped.
pub fn take() -> Recycler {
    std::mem::take(&mut lock(&POOL).recycler)
}

/// Records the large buffers a read returns (call detached): the pool keeps up to as
/// many bytes as they hold.
pub fn set_limit(arrays: &[(String, Array)]) {
    let bytes = arrays.iter().map(|(_, a)| large_bytes(a)).sum();
    lock(&POOL).limit = bytes;
}

/// Bytes of the buffers of `array` that are large enough to be pooled.
fn large_bytes(array: &Array) -> usize {
    fn large<T>(v: &[T]) -> usize {
        let bytes = std::mem::size_of_val(v);
        if pooled(bytes) {
            bytes
        } else {
            0
        }
    }
    match array {
        Array::Bool(v) => large(v),
        Array::Int8(v) => large(v),
        Array::Int16(v) => large(v),
        Array::Int32(v) => large(v),
        Array::Int64(v) => large(v),
        Array::UInt8(v) => large(v),
        Array::UInt16(v) => large(v),
        Array::UInt32(v) => large(v),
        Array::UInt64(v) => large(v),
        Array::Float32(v) => large(v),
        Array::Float64(v) => large(v),
        Array::String { offsets, bytes } => large(offsets) + large(bytes),
        Array::List { offsets, values } | Array::Optional { offsets, values } => {
            large(offsets) + large_bytes(values)
        }
        Array::Fixed { values, .. } => large_bytes(values),
        Array::Record { fields, .. } => fields.iter().map(|(_, a)| large_bytes(a)).sum(),
        Array::Variant {
            tags,
            index,
            alternatives,
        } => large(tags) + large(index) + alternatives.iter().map(large_bytes).sum::<usize>(),
    }
}

/// Bytes of freed results kept for the next read.
#[pyfunction]
pub fn pooled_bytes(py: Python<'_>) -> usize {
    py.detach(|| lock(&POOL).recycler.held_bytes())
}

/// Frees the memory of freed results that rootweave keeps for its next read.
#[pyfunction]
pub fn release_memory(py: Python<'_>) {
    py.detach(|| {
        let held = std::mem::take(&mut lock(&POOL).recycler);
        drop(held);
    })
}

/// Whether a buffer of `bytes` is worth pooling.
pub fn pooled(bytes: usize) -> bool {
    bytes >= POOLED_BYTES
}

/// The owner of one large result buffer, the base object of the NumPy array on it.
#[pyclass(module = "rootweave._rootweave", frozen)]
pub struct ResultMemory {
    array: Mutex<Option<Array>>,
    bytes: usize,
}

impl Drop for ResultMemory {
    fn drop(&mut self) {
        let array = self
            .array
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let bytes = self.bytes;
        if let Some(array) = array {
            // Freed after the lock is released when the pool is full.
            let _freed = detached_in_drop(move || {
                let mut pool = lock(&POOL);
                if pool.recycler.held_bytes() + bytes > pool.limit {
                    return Some(array);
                }
                pool.recycler.recycle(array);
                None
            });
        }
    }
}

/// A NumPy array on `values` without copying them: a large buffer is owned by a
/// [`ResultMemory`] (pooled when freed), a small one by NumPy's own container.
pub fn numpy_array<'py, T>(
    py: Python<'py>,
    values: Vec<T>,
    wrap: fn(Vec<T>) -> Array,
) -> PyResult<Bound<'py, PyAny>>
where
    T: Element,
{
    let bytes = std::mem::size_of_val(values.as_slice());
    if !pooled(bytes) {
        return Ok(PyArray1::from_vec(py, values).into_any());
    }
    let (ptr, len) = (values.as_ptr(), values.len());
    let owner = Bound::new(
        py,
        ResultMemory {
            array: Mutex::new(Some(wrap(values))),
            bytes,
        },
    )?;
    // SAFETY: the view covers the `len` initialised elements of the vector now owned by
    // `owner`. Moving a `Vec` does not move its heap buffer, and the buffer is neither
    // touched nor freed while `owner` lives: it is taken out only in `owner`'s `Drop`,
    // which runs once NumPy has released the array whose base `owner` becomes.
    let view = unsafe { ArrayView1::from_shape_ptr(len, ptr) };
    // SAFETY: `owner` keeps the memory alive and unmoved for the array's whole life (see
    // above), as `borrow_from_array` requires.
    Ok(unsafe { PyArray1::borrow_from_array(&view, owner.into_any()) }.into_any())
}
