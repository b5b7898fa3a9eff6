//! A branch's batches turned into the bytes of its entries: columns checked against their
//! branch, single entries, objects of user classes streamed or split into their parts.

pub(crate) mod column;
pub(crate) mod entry;
pub(crate) mod object_column;
pub(crate) mod object_stream;
