//! Reading TTrees: the tree, branch and leaf metadata read through the file's class
//! layouts (the streamer layer), baskets, and bulk reads of branches into typed arrays.
//!
//! Open a [`TTreeReader`] on a file and a tree name, then [`TTreeReader::read`] the
//! branches you need for an entry range: each comes back as an [`crate::array::Array`]
//! with the same layout the RNTuple reader gives (values contiguous, offsets for jagged
//! data, fixed-size arrays, records for leaf lists).

mod interpretation;
mod model;
mod read;
pub(crate) mod write;

pub use crate::parallel::ReadOptions;
pub use interpretation::{ClassLayout, Header, Interpretation, MemberStep, Nested, Packed, Prim};
pub use model::{BasketInfo, Branch, ClusterLayout, ElementInfo, EmbeddedBasket, Leaf, TreeMeta};
pub(crate) use read::{decode_basket, parse_found_header};
pub use read::{list_trees, TTreeReader, Tree};
pub(crate) use write::{basket_record, cluster_layout, BasketContent};
pub use write::{
    root_class, BranchSpec, ClassSpec, MemberType, TTreeFillContext, TTreeParallelOptions,
    TTreeParallelWriter, TTreeWriteOptions, TTreeWriteSummary, TTreeWriter,
};
