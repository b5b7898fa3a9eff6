//! Reading entries in batches of whole clusters, each batch filling the memory of the one
//! before: from one reader of either format ([`Batches`]), or from a [`Dataset`] of many
//! files, file after file or by a parallel event loop over all of them.

mod any_reader;
mod batches;
mod csv_source;
mod fields;
mod files;
mod in_order;
mod memory_source;

pub use any_reader::{AnyPlan, AnyReader};
pub use batches::{Batch, BatchSource, Batches, OwnedBatch};
pub use csv_source::{parse_csv, read_csv, CsvOptions, CsvTable, CsvType, CSV_SOURCE_NAME};
pub use fields::Fields;
pub use files::{Dataset, DatasetBatch, DatasetBatches, Source, Unit};
pub use in_order::InOrder;
pub use memory_source::{MemoryColumns, MemorySource};
