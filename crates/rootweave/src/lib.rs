//! rootweave: reading and writing CERN ROOT files (RNTuple and TTree) from many threads,
//! into one output file, within a memory budget.
//!
//! The crate is layered bottom-up; each layer only knows the layers below it:
//!
//! - [`io`]: positional byte access (`ReadAt` / `WriteAt`) on files and memory.
//! - [`compress`]: ROOT compression blocks (zlib, LZ4, ZSTD, LZMA, none).
//! - [`container`]: the ROOT file itself: header, keys, directory, streamer infos.
//! - [`parallel`]: what parallel writers share: the memory budget.
//! - [`rntuple`]: the RNTuple columnar format (schema, encodings, pages, envelopes, writers,
//!   reader).
//! - [`ttree`]: the TTree format (streamer infos, branches and leaves, baskets, reader).
//! - [`mod@array`]: columnar results in memory (values plus offsets).
//! - [`recycle`], [`batches`]: reading a large entry range of either format in batches of
//!   whole clusters, each batch filling the memory of the one before.

pub mod array;
pub mod batches;
pub mod compress;
pub mod container;
pub mod error;
pub mod io;
pub mod parallel;
mod pool;
pub mod recycle;
pub mod rntuple;
pub mod ttree;

pub use error::{Error, Result};
