//! rootweave: reading and writing CERN ROOT files (RNTuple and TTree) from many threads,
//! into one output file, within a memory budget.
//!
//! The crate is layered bottom-up; each layer only names the layers below it (see
//! docs/architecture.md, whose table a test checks the code against):
//!
//! - [`io`]: positional byte access (`ReadAt` / `WriteAt`) on files and memory.
//! - [`compress`]: ROOT compression blocks (zlib, LZ4, ZSTD, LZMA, none).
//! - [`mod@array`]: columnar values in memory, format-neutral: arrays (values plus
//!   offsets), the values and column slices handed to writers, typed decoding buffers and
//!   the recycler of their memory.
//! - [`streamer`]: ROOT's object streaming: class layouts (StreamerInfo), objects read
//!   and written through them, ROOT's own classes' layouts.
//! - `arrow` (feature `arrow`): arrays as Arrow array data.
//! - [`container`]: the ROOT file itself: header, keys, directories, the StreamerInfo record.
//! - [`parallel`]: what parallel writers and readers share: the memory budget, the return
//!   of freed memory, the readers' work splitting.
//! - [`rntuple`]: the RNTuple columnar format (schema, encodings, pages, envelopes, writers,
//!   reader).
//! - [`ttree`]: the TTree format (streamer infos, branches and leaves, baskets, reader).
//! - [`convert`]: fields laid out as TTree branches (NanoAOD style), batches split
//!   accordingly, so that one schema and one batch write either format.
//! - [`dataset`]: reading a large entry range of either format, or a dataset of many
//!   files, in batches of whole clusters, each batch filling the memory of the one before,
//!   and the parallel event loop over them.

#![warn(missing_docs)]

pub mod array;
#[cfg(feature = "arrow")]
pub mod arrow;
pub mod compress;
pub mod container;
pub mod convert;
pub mod dataset;
pub mod error;
pub mod fill;
pub mod io;
pub mod merge;
pub mod objects;
pub mod parallel;
pub mod recover;
pub mod rntuple;
pub mod streamer;
pub mod transcode;
pub mod ttree;
pub mod update;

pub use error::{Error, Result};

/// The README's Rust examples, compiled as doctests so that they stay true to the API.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
pub use parallel::ReadOptions;
