//! Writing RNTuples: the schema, typed fill buffers, column encodings, pages, clusters,
//! the metadata envelopes, the sequential writer and the parallel writer.

mod builder;
mod checkpoint;
mod cluster;
pub(crate) mod encoding;
mod fill;
mod metadata;
pub(crate) mod page;
mod parallel;
mod schema;
mod stored_pages;
mod writer;

pub(crate) use metadata::{serialize_footer, serialize_footer_with_extension, serialize_page_list};
pub use parallel::{RNTupleFillContext, RNTupleParallelOptions, RNTupleParallelWriter};
pub use schema::{Field, FieldType, Projection, ProjectionKind, Schema};
pub(crate) use writer::write_envelope;
pub use writer::{RNTupleWriteOptions, RNTupleWriteSummary, RNTupleWriter};
