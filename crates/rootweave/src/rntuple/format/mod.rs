//! The RNTuple on-disk model that the reader and the writer share: column types, the
//! checksum, the little-endian building blocks of envelopes (written by `serialize`,
//! read by `deserialize`), the anchor, and the locations of envelopes, pages and clusters.

mod anchor;
pub mod checksum;
mod column;
pub mod deserialize;
mod locations;
pub mod serialize;

pub use anchor::{Anchor, ANCHOR_SIZE, ANCHOR_VERSION};
pub use column::ColumnType;
pub(crate) use column::Encoding;
pub use locations::{ClusterGroupInfo, ClusterInfo, ColumnPages, EnvelopeLocation, PageLocation};
