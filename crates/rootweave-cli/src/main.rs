//! `rootweave`: the command line tool (the commands live in the library, `rootweave_cli::run`).

use std::process::ExitCode;

/// mimalloc serves the many small allocations of reading objects (histograms, tree
/// metadata) faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Returns mimalloc's free pages to the system, where the writers would trim glibc's.
fn collect_free_pages() {
    // SAFETY: mi_collect takes no pointers and has no preconditions: it frees the
    // allocator's own caches of blocks no allocation holds.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

fn main() -> ExitCode {
    rootweave::parallel::set_return_free_pages(collect_free_pages);
    ExitCode::from(rootweave_cli::run(
        std::env::args_os(),
        rootweave_cli::Host::Process,
    ))
}
