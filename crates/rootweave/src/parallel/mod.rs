//! What the parallel writers and readers share, whatever the format: the memory budget
//! that makes producers wait instead of growing, the one parallel-writer engine (fill
//! contexts, backpressure, sequence order, the commit point) that each format's parallel
//! writer drives with its own buffers and sink, the return of freed memory to the system,
//! and the two-step work splitting of the readers' thread pools.

mod budget;
pub(crate) mod engine;
mod freed;
pub(crate) mod pool;
mod read_options;

pub use budget::{MemoryBudget, ReleaseListener};
pub use freed::{set_return_free_pages, FreedMemory};
pub use read_options::ReadOptions;
