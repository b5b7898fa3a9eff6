//! What the parallel writers share, whatever the format: the memory budget that makes
//! producers wait instead of growing.

mod budget;

pub use budget::MemoryBudget;
