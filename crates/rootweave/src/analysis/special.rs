//! Names an expression may use that no dataset holds: RDataFrame's special columns
//! `rdfentry_` (the entry's number in the dataset, `ULong64_t`) and `rdfslot_` (the
//! processing slot, `unsigned int`), and the constant `M_PI`.

use super::column::{Column, Values};
use super::expr::IntTy;
use crate::array::Array;

/// The entry's number in the dataset, as RDataFrame numbers a chain's entries whatever the
/// thread count: the entries of the sources before it, then its own from the first read.
pub const ENTRY: &str = "rdfentry_";

/// The slot of the event loop processing the entry (one per thread, from 0).
pub const SLOT: &str = "rdfslot_";

/// Whether `name` is a name of the layer's own, never read from the dataset.
pub fn builtin(name: &str) -> bool {
    matches!(name, ENTRY | SLOT | "M_PI")
}

/// Whether `name` is a special column, computed per event by the event loop.
pub fn special(name: &str) -> bool {
    matches!(name, ENTRY | SLOT)
}

/// Where a batch's events are: the dataset's number of the first, and the slot at work.
#[derive(Debug, Clone, Copy, Default)]
pub struct EventsAt {
    /// The dataset-wide number of the chunk's first entry.
    pub first_entry: u64,
    /// The slot of the event loop.
    pub slot: usize,
}

impl EventsAt {
    /// Special column `name` for the chunk's events at `positions` (all `count` of them:
    /// `None`); `None` for another name.
    pub fn column(&self, name: &str, count: usize, positions: Option<&[usize]>) -> Option<Column> {
        let at = |i: usize| match positions {
            Some(p) => p[i],
            None => i,
        };
        let n = positions.map_or(count, <[usize]>::len);
        let values = match name {
            ENTRY => Values::Int(
                IntTy::ULONG64,
                (0..n)
                    .map(|i| (self.first_entry + at(i) as u64) as i64)
                    .collect(),
            ),
            SLOT => Values::Int(IntTy::UINT, vec![self.slot as i64; n]),
            _ => return None,
        };
        Some(Column::Flat(values.into()))
    }

    /// Special column `name` as written out, with RDataFrame's type (`ULong64_t`,
    /// `unsigned int`).
    pub fn array(&self, name: &str, count: usize, positions: Option<&[usize]>) -> Option<Array> {
        self.column(name, count, positions).map(Column::into_array)
    }
}
