//! Reading TTrees: the file's class layouts (streamer infos), the tree, branch and leaf
//! metadata read through them, baskets, and bulk reads of branches into typed arrays.
//!
//! Open a [`TTreeReader`] on a file and a tree name, then [`TTreeReader::read`] the
//! branches you need for an entry range: each comes back as an [`crate::array::Array`]
//! with the same layout the RNTuple reader gives (values contiguous, offsets for jagged
//! data, fixed-size arrays, records for leaf lists).

pub mod basket;
pub mod bulk;
pub mod cursor;
pub mod decode;
pub mod endian;
pub mod interpret;
pub mod object;
pub mod reader;
pub mod streamers;
pub mod tree;

pub use decode::{Interpretation, Prim};
pub use reader::{list_trees, read_streamers, ReadOptions, TTreeReader, Tree};
pub use tree::{Branch, Leaf, TreeMeta};
