//! The TTree model: the tree, branch, leaf and basket metadata built from the generic
//! objects the streamer layer reads. It knows how a TTree is described, not how its
//! entries are decoded.

mod baskets;
mod tree;

pub use tree::{BasketInfo, Branch, ClusterLayout, ElementInfo, EmbeddedBasket, Leaf, TreeMeta};
