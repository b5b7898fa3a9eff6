//! Writing TTrees: branches of numbers, strings, vectors and user classes (split as ROOT
//! splits them) filled in batches,
//! their entries gathered into baskets of ROOT's size and written as `TBasket` records, and
//! the `TTree` object (branches, leaves, basket locations) written as the tree's key on
//! close, in the layouts ROOT 6.40 writes.

mod baskets;
mod branches;
mod encoding;
mod options;
mod parallel;
mod tree;
mod writer;

pub(crate) use baskets::basket::{basket_record, BasketContent};
pub(crate) use baskets::clusters::cluster_layout;
pub use branches::branch::BranchSpec;
pub use branches::class::{root_class, ClassSpec, MemberType};
pub use options::TTreeWriteOptions;
pub use parallel::{
    TTreeFillContext, TTreeParallelOptions, TTreeParallelWriter, TTreeWriteSummary,
};
pub use writer::TTreeWriter;
