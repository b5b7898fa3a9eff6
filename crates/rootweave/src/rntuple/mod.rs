//! RNTuple, ROOT's columnar format (binary format 1.0), in three rooms: `format` (the
//! on-disk model reader and writer share), `write` (schema, encodings, pages, clusters,
//! the writers) and `read` (descriptor, page decoding, the reader).
//!
//! Writing: describe the fields ([`Field`], [`FieldType`]), open an [`RNTupleWriter`],
//! append entries one at a time ([`Value`]) or many at once ([`ColumnData`]), and close it.
//! Reading: open an [`RNTupleReader`] and read fields for an entry range.

pub mod format;
pub mod read;
mod write;

pub use crate::array::{ColumnData, Value};
pub use crate::parallel::ReadOptions;
pub use format::ColumnType;
pub use read::RNTupleReader;
pub(crate) use write::{
    serialize_footer, serialize_footer_with_extension, serialize_page_list, write_envelope,
};
pub use write::{
    Field, FieldType, Projection, ProjectionKind, RNTupleFillContext, RNTupleParallelOptions,
    RNTupleParallelWriter, RNTupleWriteOptions, RNTupleWriteSummary, RNTupleWriter, Schema,
};
