//! Reading RNTuples: metadata, page decoding and bulk reads into typed arrays.
//!
//! Open an [`RNTupleReader`] on a file and an RNTuple name, then [`RNTupleReader::read`]
//! the fields you need for an entry range: each comes back as an [`crate::array::Array`]
//! (values contiguous, one offsets array per collection level). An event loop over a large
//! range reads it in [`crate::dataset::Batches`] of whole clusters
//! ([`RNTupleReader::batches`]), each filling the memory of the one before ([`Recycler`]).

pub mod buffer;
pub mod decode;
pub mod descriptor;
pub mod deserialize;
pub mod plan;
pub mod reader;

pub use crate::array::Recycler;
pub use descriptor::{ClusterInfo, Descriptor, FieldRecord, OpenOptions, Role};
pub use plan::{Kind, Node};
pub use reader::{RNTupleReader, ReadOptions};
