//! Interpretations: how the bytes of a branch's entries become an [`Array`]. Baskets
//! hold big-endian values; each interpretation turns a basket's data (and its entry
//! offsets, for variable-size entries) into the arrays of an entry range.
//!
//! [`choose`] picks a branch's interpretation from the tree model; [`decode`] applies it.

mod builder;
mod choose;
mod compile;
mod counted_members;
mod decode;
mod layout;
mod leaf_list;
#[cfg(test)]
mod pointer_tests;
mod prim;
#[cfg(test)]
mod streamed_tests;

pub use crate::streamer::Packed;
pub(crate) use choose::interpret;
pub(crate) use decode::wrap_fixed;
pub use layout::{ClassLayout, MemberStep, Nested};
pub use leaf_list::{LeafCount, ListLeaf};
pub use prim::Prim;

#[cfg(doc)]
use crate::array::Array;

/// What precedes the values of one entry of a variable-size branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header {
    /// Nothing: the entry is its values (counter-indexed arrays, split collections).
    None,
    /// One byte (a member `T* x //[n]` of a split object).
    Flag,
    /// A byte count, a version and an `i32` length (`std::vector`).
    Vector,
    /// A byte count and a version (an object streamed on its own: a `std::string`
    /// member, the members of a split collection's items that are STL objects).
    Object,
}

/// How a branch's entries are read.
#[derive(Debug, Clone, PartialEq)]
pub enum Interpretation {
    /// A fixed number of values per entry: a scalar (`dims` empty) or a fixed-size
    /// (possibly multi-dimensional) array.
    Fixed {
        /// The value type.
        prim: Prim,
        /// Array dimensions.
        dims: Vec<usize>,
    },
    /// A variable number of items per entry, each item a value or a fixed-size array.
    Jagged {
        /// The value type.
        prim: Prim,
        /// Dimensions of each item.
        inner: Vec<usize>,
        /// What precedes each entry's values.
        header: Header,
    },
    /// One string per entry (`char*`, `std::string`, `TString`), after the header
    /// ([`Header::None`] or [`Header::Object`]).
    Strings(Header),
    /// A member of a split collection's items that is itself variable-size (an STL
    /// sequence or a string): per entry, the header ([`Header::None`] or
    /// [`Header::Object`]) and then one value per item, back to back to the entry's end.
    Members {
        /// The type of each item's value.
        item: Nested,
        /// What precedes the values of an entry.
        header: Header,
    },
    /// A counted array member of a split collection's items (`T* x //[n]`, `n` another
    /// member): per item a flag byte and, unless it is zero, as many values as that
    /// item's `n` says, read from the sibling branch `counter`. Decoded with the
    /// counter's values (`Interpretation::decode_counted`).
    CountedMembers {
        /// The value type.
        prim: Prim,
        /// The sibling branch holding each item's number of values.
        counter: String,
    },
    /// A branch that holds no data of its own and stands for its sub-branches (a split
    /// object, base class or STL collection of objects): read as a record of them.
    Group(Vec<String>),
    /// One streamed value per entry, read by its layout: STL containers of numbers,
    /// strings, objects or nested containers (framed), maps, and whole objects of split
    /// level 0 (their members one after the other), all read by the file's class layouts.
    Streamed(Nested),
    /// Several leaves in one branch (a leaf list, or a class of numbers streamed member
    /// after member): a record per entry, variable-size leaves as lists.
    Record(Vec<ListLeaf>),
}
