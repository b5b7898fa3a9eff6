//! Support code of the `rootweave` command line tool: synthetic datasets and the
//! commands' implementations.

pub mod convert;
pub mod datasets;
pub mod dump;
pub mod dump_ttree;
pub mod generate;
pub mod generate_ttree;
pub mod list;
pub mod list_ttree;
pub mod merge;
pub mod objects;
pub mod progress;
pub mod random;
pub mod recover;
pub mod synth;
