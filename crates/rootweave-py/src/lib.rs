//! The `rootweave._rootweave` extension module: reading RNTuples and TTrees into NumPy
//! buffers and writing RNTuples from them, with the heavy work done with the GIL released. The
//! Python package `rootweave` (python/rootweave) builds NumPy, Awkward, Arrow and Polars
//! objects on top of it.

mod analysis;
mod arrow;
mod cli;
mod convert;
mod csv;
mod detached;
mod errors;
mod fill;
mod fsspec;
mod layout;
mod memory;
mod merge;
mod objects;
mod read;
mod read_ttree;
mod spec;
mod write;
mod write_objects;
mod write_ttree;
mod write_ttree_parallel;

use pyo3::prelude::*;

/// mimalloc serves the module's allocations: the analysis layer frees a chunk's columns
/// together, and glibc's malloc returned their pages to the system and faulted them in
/// again for every chunk (a sixth of a three-jet combination query's time).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Returns mimalloc's free pages to the system, where the writers would trim glibc's.
fn collect_free_pages() {
    // SAFETY: mi_collect takes no pointers and has no preconditions: it frees the
    // allocator's own caches of blocks no allocation holds.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

#[pymodule]
fn _rootweave(m: &Bound<'_, PyModule>) -> PyResult<()> {
    rootweave::parallel::set_return_free_pages(collect_free_pages);
    analysis::register(m)?;
    m.add_class::<read::OpenFile>()?;
    m.add_class::<read::RNTuple>()?;
    m.add_class::<arrow::ArrowBatch>()?;
    m.add_class::<read_ttree::TTree>()?;
    m.add_class::<write::OutputFile>()?;
    m.add_class::<write::Writer>()?;
    m.add_class::<write_ttree::TreeWriter>()?;
    m.add_class::<write_ttree_parallel::ParallelTreeWriter>()?;
    m.add_class::<write_ttree_parallel::TreeContext>()?;
    m.add_class::<write::RNTupleParallelWriter>()?;
    m.add_class::<write::Context>()?;
    m.add_function(wrap_pyfunction!(read::list_keys, m)?)?;
    m.add_function(wrap_pyfunction!(objects::read_object, m)?)?;
    m.add_function(wrap_pyfunction!(write_objects::write_histogram, m)?)?;
    m.add_function(wrap_pyfunction!(write_objects::write_string, m)?)?;
    m.add_function(wrap_pyfunction!(write_objects::write_graph, m)?)?;
    m.add_function(wrap_pyfunction!(write_objects::write_statistic, m)?)?;
    m.add_function(wrap_pyfunction!(write_objects::copy_object, m)?)?;
    m.add_function(wrap_pyfunction!(fill::fill_histogram, m)?)?;
    m.add_class::<objects::Unread>()?;
    m.add_function(wrap_pyfunction!(merge::merge, m)?)?;
    m.add_function(wrap_pyfunction!(csv::read_csv, m)?)?;
    m.add("CSV_SOURCE_NAME", rootweave::dataset::CSV_SOURCE_NAME)?;
    m.add_function(wrap_pyfunction!(memory::release_memory, m)?)?;
    m.add_function(wrap_pyfunction!(memory::pooled_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(convert::convert_file, m)?)?;
    m.add_function(wrap_pyfunction!(cli::run_cli, m)?)?;
    // The workspace's one version number (the CLI's --version and files' writer string).
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("RootFileError", m.py().get_type::<errors::RootFileError>())?;
    // The classes of tree records, from their one home in the library.
    let tree_classes = pyo3::types::PyTuple::new(m.py(), rootweave::streamer::TREE_CLASSES)?;
    m.add("TREE_CLASSES", tree_classes)?;
    Ok(())
}
