//! What the parallel writers and readers share, whatever the format: the memory budget
//! that makes producers wait instead of growing, the sequence order of output units, the
//! list of fill contexts handed out, the
//! sizing of pages and first units under the budget, the return of freed memory to the
//! system, and the two-step work splitting of the readers' thread pools.

mod budget;
pub(crate) mod contexts;
mod freed;
pub(crate) mod order;
pub(crate) mod pool;
mod read_options;
pub(crate) mod sizing;

pub use budget::MemoryBudget;
pub use freed::{set_return_free_pages, FreedMemory};
pub use read_options::ReadOptions;
