//! RNTuple, ROOT's columnar format (binary format 1.0): schema, column encodings, pages,
//! envelopes and the writer.
//!
//! Writing: describe the fields ([`Field`], [`FieldType`]), open an [`RNTupleWriter`],
//! append entries one at a time ([`Value`]) or many at once ([`ColumnData`]), and close it.

mod builder;
pub mod checksum;
mod cluster;
pub mod column;
pub mod encoding;
mod fill;
pub mod metadata;
pub mod page;
mod parallel;
pub mod read;
pub mod schema;
pub mod serialize;
mod stored_pages;
pub mod writer;

pub use crate::array::{ColumnData, Value};
pub use column::ColumnType;
pub use parallel::{FillContext, ParallelOptions, ParallelWriter};
pub use read::{RNTupleReader, ReadOptions};
pub use schema::{Field, FieldType, Schema};
pub use writer::{RNTupleWriter, WriteOptions, WriteSummary};
