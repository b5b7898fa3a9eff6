//! Reading a TTree's entries: baskets (key, header, payload, entry offsets), bulk reads
//! of plain-number branches straight into their final arrays, and the public reader.

mod basket;
mod bulk;
mod counted;
mod endian;
mod other_files;
mod reader;

pub(crate) use basket::{decode_basket, parse_found_header};
pub use reader::{list_trees, TTreeReader, Tree};
