//! Reading RNTuples: metadata, page decoding and bulk reads into typed arrays.
//!
//! Open an [`RNTupleReader`] on a file and an RNTuple name, then [`RNTupleReader::read`]
//! the fields you need for an entry range: each comes back as an [`crate::array::Array`]
//! (values contiguous, one offsets array per collection level). An event loop over a large
//! range reads it in [`crate::dataset::Batches`] of whole clusters
//! ([`RNTupleReader::batches`]), each filling the memory of the one before
//! ([`crate::array::Recycler`]).

mod buffer;
mod decode;
mod descriptor;
mod plan;
mod reader;

pub use descriptor::{
    envelope_bytes, schema_extension_of, ColumnRecord, ColumnRef, Descriptor, FieldRecord,
    OpenOptions, Role,
};
pub use plan::{Kind, Node};
pub use reader::RNTupleReader;

// Page-level access, for readers of their own (custom I/O, profiling of each phase): the
// pages of a field are in `Descriptor::all_clusters`, a column decodes by its
// `Descriptor::codec`, and a decompressed page goes into an array-layer destination
// through `DecodePage`.
pub use buffer::DecodePage;
pub use decode::ColumnCodec;
