//! The `rootweave` command of the Python package: the CLI's own program
//! (`rootweave_cli::run`), run inside the interpreter, so that `pip install rootweave` gives
//! the same tool as `cargo build`.

use std::ffi::OsString;

use pyo3::prelude::*;

/// Runs the command line `argv` (the program's name first) with the GIL released and
/// returns its exit code (0 success, 1 failure, 2 usage error).
#[pyfunction]
pub fn run_cli(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(|| rootweave_cli::run(argv, rootweave_cli::Host::Embedded))
}
