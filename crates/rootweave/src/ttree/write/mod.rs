//! Writing TTrees: branches of numbers, strings, vectors and user classes (split as ROOT
//! splits them) filled in batches,
//! their entries gathered into baskets of ROOT's size and written as `TBasket` records, and
//! the `TTree` object (branches, leaves, basket locations) written as the tree's key on
//! close, in the layouts ROOT 6.40 writes.

mod basket;
mod branch;
mod catalog;
mod class;
mod clusters;
mod column;
mod entry;
mod filler;
pub(crate) mod layouts;
mod object_column;
mod object_stream;
mod options;
mod parallel;
mod resize;
mod shape;
mod split;
mod tree_object;
mod writer;

pub(crate) use basket::{basket_record, BasketContent};
pub use branch::BranchSpec;
pub use class::{root_class, ClassSpec, MemberType};
pub(crate) use clusters::cluster_layout;
pub use options::TTreeWriteOptions;
pub use parallel::{
    TTreeFillContext, TTreeParallelOptions, TTreeParallelWriter, TTreeWriteSummary,
};
pub use writer::TTreeWriter;
