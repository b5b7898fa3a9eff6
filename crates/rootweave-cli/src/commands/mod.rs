//! The subcommands of `rootweave`, one module each.

pub mod convert;
pub mod dump;
pub mod generate;
pub mod list;
pub mod merge;
pub mod recover;
