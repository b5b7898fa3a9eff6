//! Reading a TTree's entries: baskets (key, header, payload, entry offsets), bulk reads
//! of plain-number branches straight into their final arrays, and the public reader.

mod basket;
mod bulk;
mod counted;
mod endian;
mod reader;

pub use reader::{list_trees, read_streamers, TTreeReader, Tree};
