//! ROOT's object streaming, below both formats and the objects layer: the big-endian
//! byte conventions (`bytes`), the type-code table (`code`), class layouts
//! ([`StreamerInfo`] of [`Element`]s) as a file's StreamerInfo record describes them and
//! as writers describe their classes, reading streamed objects into generic [`Object`]s
//! through those layouts (`ObjectReader` over a `Cursor`), writing them
//! (`ObjectStream`, the StreamerInfo list), rewriting a streamed object with members
//! replaced (`restream`), and the layouts of ROOT's own classes (`builtin`).
//!
//! It knows how ROOT streams an object, not where objects live in a file.

pub(crate) mod builtin;
pub(crate) mod bytes;
pub mod code;
mod cursor;
mod element;
mod name;
mod object;
mod packed;
pub(crate) mod restream;
mod set;
mod stream;
pub(crate) mod tags;
pub mod type_name;
mod write_info;

pub(crate) use builtin::{attribute_layouts, collection_layouts, rntuple_anchor_info};
pub use builtin::{is_tree_class, TREE_CLASSES};
pub(crate) use cursor::{Cursor, Trace};
pub use element::{Element, ElementClass, StreamerInfo};
pub use name::Name;
pub(crate) use object::ObjectReader;
pub use object::{Object, Value};
pub use packed::Packed;
pub use set::StreamerSet;
pub(crate) use stream::ObjectStream;
pub(crate) use write_info::{extend_streamer_list, streamer_list};
