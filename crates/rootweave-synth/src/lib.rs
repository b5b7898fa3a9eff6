//! Synthetic datasets for `rootweave generate`, the interoperability tests and the
//! benchmarks: events made chunk by chunk from a seed and the chunk's index (in any order,
//! on any thread), so that the same seed gives the same events whatever the number of
//! threads.
//!
//! - [`random`]: the seeded random numbers.
//! - [`nanoaod`]: the NanoAOD-like schema and its chunks.
//! - [`adl`]: the ADL benchmark's columns.
//! - [`schemas`]: every schema `rootweave generate` knows, by name.

#![warn(missing_docs)]

pub mod adl;
pub mod nanoaod;
pub mod random;
pub mod schemas;
