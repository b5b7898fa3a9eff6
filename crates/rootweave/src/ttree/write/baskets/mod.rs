//! Entries gathered into baskets as ROOT's `TBranch::Fill` does, the basket records, the
//! resizing of baskets after the first cluster, and the cluster boundaries.

pub(crate) mod basket;
pub(crate) mod clusters;
pub(crate) mod filler;
pub(crate) mod resize;
