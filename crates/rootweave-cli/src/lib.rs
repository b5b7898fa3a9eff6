//! The `rootweave` command line tool's commands ([`commands`], one module per subcommand),
//! the printing of each kind of object they show, and their progress bar. Synthetic data
//! comes from the `rootweave-synth` crate, which the tests and benchmarks share.

mod app;
pub mod commands;
mod progress;
mod show;

pub use app::{run, Host};
pub use show::stdout_error;
