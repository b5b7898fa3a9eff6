//! A tree's branches as both writers check them: names unique, each counted array's
//! counter an integer branch before it; and a batch of entries checked against them (every
//! branch the same number of entries, counted arrays as long as their counters say).

use super::branch::BranchSpec;
use super::column::Column;
use super::entry::{as_batch, one_entry};
use crate::array::{Array, ColumnData, Value};
use crate::error::{Error, Result};

/// The branches of a tree and which of them count the items of others.
pub(super) struct TreeShape {
    pub specs: Vec<BranchSpec>,
    /// For each branch, the branch counting its items.
    pub counters: Vec<Option<usize>>,
    /// For each branch, whether it counts another's items.
    pub counting: Vec<bool>,
}

impl TreeShape {
    /// Checks the branches: valid, names unique, counters integer branches before the
    /// branches they count.
    pub fn new(specs: Vec<BranchSpec>) -> Result<Self> {
        let mut counters = vec![None; specs.len()];
        let mut counting = vec![false; specs.len()];
        for (i, b) in specs.iter().enumerate() {
            b.check().map_err(Error::InvalidArgument)?;
            if specs[..i].iter().any(|o| o.name == b.name) {
                return Err(Error::InvalidArgument(format!(
                    "branch name {:?} is repeated",
                    b.name
                )));
            }
            if let Some(c) = b.counter() {
                let k = specs[..i].iter().position(|o| o.name == c);
                let usable = k.is_some_and(|k| specs[k].counting_leaf().is_some());
                if !usable {
                    return Err(Error::InvalidArgument(format!(
                        "branch {}: its counter {c} must be an integer branch before it",
                        b.name
                    )));
                }
                counters[i] = k;
                counting[k.expect("checked")] = true;
            }
        }
        Ok(TreeShape {
            specs,
            counters,
            counting,
        })
    }

    /// One entry's values as one-entry arrays, one per branch (see
    /// [`super::TTreeWriter::fill`]).
    pub fn entry(&self, values: &[Value]) -> Result<Vec<Array>> {
        if values.len() != self.specs.len() {
            return Err(Error::InvalidArgument(format!(
                "fill: {} values given for {} branches",
                values.len(),
                self.specs.len()
            )));
        }
        self.specs
            .iter()
            .zip(values)
            .map(|(spec, v)| one_entry(spec, v))
            .collect()
    }

    /// The batch of one-entry arrays made by [`TreeShape::entry`].
    pub fn entry_batch(entry: &[Array]) -> Vec<ColumnData<'_>> {
        entry.iter().map(as_batch).collect()
    }

    /// Checks a batch (one per branch) and gives its columns and number of entries.
    pub fn columns<'b, 'a>(&self, batch: &'b [ColumnData<'a>]) -> Result<Checked<'b, 'a>> {
        if batch.len() != self.specs.len() {
            return Err(Error::InvalidArgument(format!(
                "extend: {} columns given for {} branches",
                batch.len(),
                self.specs.len()
            )));
        }
        let mut columns = Vec::with_capacity(batch.len());
        let mut entries = None;
        for (spec, data) in self.specs.iter().zip(batch) {
            let column = Column::of(spec, data)?;
            let n = column.entries();
            if entries.is_some_and(|e| e != n) {
                return Err(Error::InvalidArgument(format!(
                    "extend: branch {} gets {n} entries, the branches before it {}",
                    spec.name,
                    entries.unwrap_or(0)
                )));
            }
            entries = Some(n);
            columns.push(column);
        }
        for (k, column) in columns.iter().enumerate() {
            if let (Some(c), Column::Counted { offsets, .. }) = (self.counters[k], column) {
                let counts = &columns[c];
                let agree = (0..offsets.len() - 1)
                    .all(|e| counts.int(e) == Some((offsets[e + 1] - offsets[e]) as i64));
                if !agree {
                    return Err(Error::InvalidArgument(format!(
                        "extend: the lengths of branch {} differ from the values of its counter {}",
                        self.specs[k].name, self.specs[c].name
                    )));
                }
            }
        }
        let bytes = columns.iter().map(Column::bytes).sum();
        Ok(Checked {
            columns,
            entries: entries.unwrap_or(0),
            bytes,
        })
    }

    /// Raises each counting branch's largest count to the batch's.
    pub fn update_max_counts(&self, checked: &Checked, max_counts: &mut [Option<i64>]) {
        for (column, max) in checked.columns.iter().zip(max_counts) {
            if let Some(max) = max.as_mut() {
                let n = column.entries();
                *max = (0..n).filter_map(|e| column.int(e)).fold(*max, i64::max);
            }
        }
    }

    /// The largest counts before any entry: 0 for counting branches, none for the others.
    pub fn initial_max_counts(&self) -> Vec<Option<i64>> {
        self.counting.iter().map(|&c| c.then_some(0)).collect()
    }

    /// Entries appended at once: about a basket of the widest branch, so that clusters
    /// that end at a byte target end close to it.
    pub fn step(&self, basket_size: usize) -> usize {
        let widest = self.specs.iter().map(|s| s.min_entry_bytes()).max();
        (basket_size / widest.unwrap_or(1).max(1)).max(1)
    }
}

/// A batch checked against the branches.
pub(super) struct Checked<'b, 'a> {
    pub columns: Vec<Column<'b, 'a>>,
    pub entries: usize,
    /// Bytes of its entries as baskets hold them (about).
    pub bytes: usize,
}
