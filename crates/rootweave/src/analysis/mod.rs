//! The analysis layer: RDataFrame's calls over a dataset (either format, many files), with
//! RDataFrame's names and meanings. A graph of transformations (`Define`, `Filter`,
//! `Range`, `Alias`, `Redefine`, `DefinePerSample`, `DefaultValueFor`) and booked results (histograms,
//! profiles, counts, sums, means, extremes, `Take`, the cut-flow `Report`) is built
//! lazily; running it reads only the columns the graph uses, once, and fills every booked
//! result in the same pass on the reader's threads. Each batch of whole clusters (fixed by
//! the files, never by the threads) fills partial results that are added in dataset order,
//! so the results have the same bits for any number of threads.

mod actions;
mod batch;
mod book;
mod cache;
pub mod column;
pub mod column_type;
pub mod data_range;
mod describe;
pub mod expr;
mod extreme;
mod graph;
mod missing;
mod names;
mod run;
mod save_graph;
mod slot_cells;
mod snapshot;
mod snapshot_classes;
mod snapshot_layout;
pub mod special;
mod varied;

pub use actions::{ActionSpec, AxisModel, ResultValue};
pub use book::{Model, ProfileModel};
pub use describe::Description;
pub use graph::{run_graphs, Booked, ColumnFn, Frame, SampleInfo};
pub use run::{Live, Progress, CHUNK, STEP};
pub use snapshot::{snapshot_all, SnapshotFormat, SnapshotOptions, SnapshotRequest};
