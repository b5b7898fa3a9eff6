//! rootweave: reading and writing CERN ROOT files (RNTuple and TTree) from many threads,
//! into one output file, within a memory budget.
//!
//! What most users want:
//! - read columns: [`rntuple::RNTupleReader`] and [`ttree::TTreeReader`] (one file), or a
//!   [`dataset::Dataset`] of many files, local or remote;
//! - write from one thread: [`rntuple::RNTupleWriter`], [`ttree::TTreeWriter`]; from many
//!   threads into one file: [`rntuple::RNTupleParallelWriter`] and
//!   [`ttree::TTreeParallelWriter`], each handing out fill contexts
//!   ([`rntuple::RNTupleFillContext`], [`ttree::TTreeFillContext`]);
//! - merge files as `hadd` does ([`merge`]), convert between formats ([`convert`]), fill
//!   histograms ([`fill`]), read and write any other object ([`objects`]).
//!
//! Every module, bottom-up; each layer only names the layers below it (see
//! docs/architecture.md, whose table a test checks the code against):
//!
//! - [`error`]: the error type, naming the file, the object and the byte offset.
//! - [`io`]: positional byte access (`ReadAt` / `WriteAt`) on files, memory, HTTP(S) and
//!   XRootD.
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
//! - [`ttree`]: the TTree format (branches and leaves, baskets, writers, reader).
//! - [`tree_layout`]: fields laid out as TTree branches (NanoAOD style), batches split
//!   accordingly, so that one schema and one batch write either format.
//! - [`objects`]: every keyed object by path, histograms read, added and written.
//! - [`dataset`]: reading a large entry range of either format, or a dataset of many
//!   files, in batches of whole clusters, each batch filling the memory of the one before,
//!   and the parallel event loop over them.
//! - [`update`]: adding, replacing and deleting objects of an existing file.
//! - [`merge`]: merging files as `hadd` does (trees fast-cloned, pages copied).
//! - [`fill`]: histograms filled from a dataset, the same bits for any thread count.
//! - [`convert`]: a file's RNTuple or TTree converted into another format.
//! - [`recover`]: a file whose writer was killed made whole again.

#![warn(missing_docs)]

pub mod analysis;
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
pub(crate) mod tree_edit;
pub mod tree_layout;
pub mod ttree;
pub mod update;

pub use error::{Error, Result};

/// The README's Rust examples, compiled as doctests so that they stay true to the API.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
pub use parallel::ReadOptions;
