//! Reading RNTuples: metadata, page decoding and bulk reads into typed arrays.
//!
//! Open an [`RNTupleReader`] on a file and an RNTuple name, then [`RNTupleReader::read`]
//! the fields you need for an entry range: each comes back as an [`crate::array::Array`]
//! (values contiguous, one offsets array per collection level).

pub mod buffer;
pub mod decode;
pub mod descriptor;
pub mod deserialize;
pub mod plan;
pub mod reader;

pub use descriptor::{ClusterInfo, Descriptor, FieldRecord, OpenOptions, Role};
pub use plan::{Kind, LeafType, Node};
pub use reader::{RNTupleReader, ReadOptions};
