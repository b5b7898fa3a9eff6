//! The TTree model: the file's class layouts (streamer infos), the generic objects read
//! by them, and the tree, branch, leaf and basket metadata built from those objects.
//! It knows how a TTree is described, not how its entries are decoded.

mod baskets;
mod cursor;
mod name;
mod object;
mod packed;
pub(crate) mod restream;
mod streamers;
mod tree;

pub(crate) use cursor::{Cursor, Trace};
pub use name::Name;
pub(crate) use object::ObjectReader;
pub use object::{Object, Value};
pub use packed::Packed;
pub use streamers::StreamerSet;
pub(crate) use streamers::{code, Element, ElementClass, StreamerInfo};
pub use tree::{BasketInfo, Branch, ClusterLayout, ElementInfo, EmbeddedBasket, Leaf, TreeMeta};
