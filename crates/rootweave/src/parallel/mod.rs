//! What the parallel writers share, whatever the format: the memory budget that makes
//! producers wait instead of growing, and the return of freed memory to the system.

mod budget;
mod freed;

pub use budget::MemoryBudget;
pub use freed::FreedMemory;
