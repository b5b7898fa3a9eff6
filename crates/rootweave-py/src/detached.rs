//! The bindings' one rule for blocking: never wait on a Rust lock while attached to the
//! interpreter.
//!
//! A thread that waits for a mutex while it holds the GIL can deadlock with the mutex's
//! holder, which did its work detached and now waits for the GIL to return to Python.
//! Every lock the bindings take is therefore taken and released inside a detached
//! section (`Python::detach`), through the helpers here; so is every call into the
//! library that may wait (memory-budget waits, commits, file writes).

use std::sync::{Mutex, MutexGuard};

use pyo3::Python;

/// Runs `f` on the value in `slot` with the interpreter detached, holding the lock only
/// inside the detached section.
pub fn with_lock<T, R>(py: Python<'_>, slot: &Mutex<T>, f: impl FnOnce(&mut T) -> R + Send) -> R
where
    T: Send,
    R: Send,
{
    py.detach(|| f(&mut lock(slot)))
}

/// Runs `f` detached from the interpreter, from a `Drop` of a Python object (which runs
/// attached, but has no `Python` token at hand).
pub fn detached_in_drop<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    Python::attach(|py| py.detach(f))
}

/// Locks `slot`, also after a thread panicked while holding it: the values kept behind
/// the bindings' locks stay consistent between statements.
pub fn lock<T>(slot: &Mutex<T>) -> MutexGuard<'_, T> {
    slot.lock().unwrap_or_else(|e| e.into_inner())
}
