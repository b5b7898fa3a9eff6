//! Writing RNTuples: the schema, typed fill buffers, column encodings, pages, clusters,
//! the metadata envelopes, the sequential writer and the parallel writer.

mod builder;
mod cluster;
pub(crate) mod encoding;
mod fill;
mod metadata;
pub(crate) mod page;
mod parallel;
mod schema;
mod stored_pages;
mod writer;

pub use parallel::{FillContext, ParallelOptions, ParallelRNTupleWriter};
pub use schema::{Field, FieldType, Schema};
pub use writer::{RNTupleWriter, WriteOptions, WriteSummary};
