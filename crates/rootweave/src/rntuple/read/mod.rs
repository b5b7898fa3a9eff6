//! Reading RNTuples: metadata, page decoding and bulk reads into typed arrays.
//!
//! Open an [`RNTupleReader`] on a file and an RNTuple name, then [`RNTupleReader::read`]
//! the fields you need for an entry range: each comes back as an [`crate::array::Array`]
//! (values contiguous, one offsets array per collection level). An event loop over a large
//! range reads it in [`Batches`] of whole clusters, each filling the memory of the one
//! before ([`Recycler`]).

pub mod batches;
pub mod buffer;
pub mod decode;
pub mod descriptor;
pub mod deserialize;
pub mod plan;
pub mod reader;
pub mod recycle;

pub use batches::{Batch, Batches};
pub use descriptor::{ClusterInfo, Descriptor, FieldRecord, OpenOptions, Role};
pub use plan::{Kind, LeafType, Node};
pub use reader::{RNTupleReader, ReadOptions};
pub use recycle::Recycler;
