//! rootweave's C ABI: the parallel RNTuple and TTree writers, bulk reads to Arrow streams,
//! merging and recovery, for C and C++ programs (`include/rootweave.h`, generated from
//! this crate, and the header-only C++17 wrapper `include/rootweave.hpp`).
//!
//! Every function returns an [`status::rw_status`] (or a value that cannot fail), leaves a
//! message for the calling thread on failure (`rw_last_error`) and catches panics. Handles
//! are opaque pointers made and freed by the library; each says which threads may use it.
//! The library keeps no global state.

// The C names of the ABI are the names users see.
#![allow(non_camel_case_types)]

pub mod arrow_in;
pub mod column;
pub mod file;
pub mod fill;
pub mod model;
pub mod read;
pub mod status;
pub mod tools;
mod type_name;
pub mod writer;
