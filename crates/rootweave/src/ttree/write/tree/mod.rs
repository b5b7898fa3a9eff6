//! The `TTree` object as ROOT streams it, what both writers record of it (the catalog of
//! baskets, clusters and saves), and the class layouts a file of trees carries.

pub(crate) mod catalog;
pub(crate) mod layouts;
pub(crate) mod tree_object;
