//! What a tree's branches are: what each holds and how ROOT names and types it, user
//! classes, their split layouts, and a tree's branches checked together.

pub(crate) mod branch;
pub(crate) mod class;
pub(crate) mod shape;
pub(crate) mod split;
