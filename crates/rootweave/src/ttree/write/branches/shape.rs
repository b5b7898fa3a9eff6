//! A tree's branches as both writers check them: names unique, each counted array's
//! counter an integer branch before it, object branches laid out as their split level
//! says; and a batch of entries checked against them (every branch the same number of
//! entries, counted arrays as long as their counters say).

use std::ops::Range;

use crate::array::{Array, ColumnData, Value};
use crate::error::{Error, Result};
use crate::ttree::write::branches::branch::{BranchKind, BranchSpec};
use crate::ttree::write::branches::split::class_parts;
use crate::ttree::write::encoding::column::Column;
use crate::ttree::write::encoding::entry::{as_batch, one_entry};
use crate::ttree::write::encoding::object_column::ObjectColumn;

/// The branches of a tree and which of them count the items of others.
pub(in crate::ttree::write) struct TreeShape {
    /// The branches as the tree holds them: each branch given, an object branch as the
    /// branches of its layout.
    pub specs: Vec<BranchSpec>,
    /// The branches as given, one batch each.
    pub given: Vec<BranchSpec>,
    /// For each given branch, its branches among `specs`.
    pub parts: Vec<Range<usize>>,
    /// For each branch, the branch counting its items.
    pub counters: Vec<Option<usize>>,
    /// For each branch, whether it counts another's items.
    pub counting: Vec<bool>,
    /// The fewest bytes an entry of the widest branch takes (at least 1), for `step`: found
    /// once, as `step` is asked at every append.
    widest_entry: usize,
}

/// Checks that the tree's branches (`specs`, by `parts` one range per branch given, its
/// first the given branch) have distinct names, but for the sub-branches of two object
/// branches: named after their members, they may share names, as ROOT writes two
/// `ROOT::Math` vectors' `fCoordinates`; within one object branch and against the given
/// branches' names they may not.
fn unique_names(specs: &[BranchSpec], parts: &[Range<usize>]) -> Result<()> {
    let repeated = |name: &str| {
        Err(Error::InvalidArgument(format!(
            "branch name {name:?} is repeated (the sub-branches of an object branch are named \
             after its members unless its name ends with '.')"
        )))
    };
    // Sets, not scans of the names before: trees of 10,000 branches exist.
    let mut given = std::collections::HashSet::with_capacity(parts.len());
    for part in parts {
        if !given.insert(specs[part.start].name.as_str()) {
            return repeated(&specs[part.start].name);
        }
    }
    for part in parts.iter().filter(|p| p.len() > 1) {
        let mut inside = std::collections::HashSet::with_capacity(part.len());
        for b in &specs[part.start + 1..part.end] {
            if given.contains(b.name.as_str()) || !inside.insert(b.name.as_str()) {
                return repeated(&b.name);
            }
        }
    }
    Ok(())
}

impl TreeShape {
    /// Checks the branches: valid, names unique, counters integer branches before the
    /// branches they count; lays out object branches.
    pub fn new(given: Vec<BranchSpec>) -> Result<Self> {
        let mut specs: Vec<BranchSpec> = Vec::new();
        let mut parts = Vec::with_capacity(given.len());
        let mut counters = Vec::new();
        let mut counting = Vec::new();
        for b in &given {
            b.check().map_err(Error::InvalidArgument)?;
            let start = specs.len();
            match &b.kind {
                BranchKind::Object {
                    class,
                    vector,
                    split_level,
                } => {
                    for mut part in class_parts(&b.name, class, *vector, *split_level) {
                        part.parent = part.parent.map(|p| p + start);
                        counters.push(part.counter.map(|c| c + start));
                        counting.push(false);
                        specs.push(BranchSpec {
                            name: part.name.clone(),
                            kind: BranchKind::ClassPart(Box::new(part)),
                            title: None,
                        });
                    }
                    for c in counters[start..].iter().flatten() {
                        counting[*c] = true;
                    }
                }
                _ => {
                    let mut counter = None;
                    if let Some(c) = b.counter() {
                        let k = specs[..start].iter().position(|o| o.name == c);
                        let usable = k.is_some_and(|k| specs[k].counting_leaf().is_some());
                        if !usable {
                            return Err(Error::InvalidArgument(format!(
                                "branch {}: its counter {c} must be an integer branch before it",
                                b.name
                            )));
                        }
                        counter = k;
                        counting[k.expect("checked")] = true;
                    }
                    counters.push(counter);
                    counting.push(false);
                    specs.push(b.clone());
                }
            }
            parts.push(start..specs.len());
        }
        unique_names(&specs, &parts)?;
        let widest_entry = specs
            .iter()
            .map(|s| s.min_entry_bytes())
            .max()
            .unwrap_or(1)
            .max(1);
        Ok(TreeShape {
            specs,
            given,
            parts,
            counters,
            counting,
            widest_entry,
        })
    }

    /// One entry's values as one-entry arrays, one per branch (see
    /// [`crate::ttree::TTreeWriter::fill`]).
    pub fn entry(&self, values: &[Value]) -> Result<Vec<Array>> {
        if values.len() != self.given.len() {
            return Err(Error::InvalidArgument(format!(
                "fill: {} values given for {} branches",
                values.len(),
                self.given.len()
            )));
        }
        self.given
            .iter()
            .zip(values)
            .map(|(spec, v)| one_entry(spec, v))
            .collect()
    }

    /// The batch of one-entry arrays made by [`TreeShape::entry`].
    pub fn entry_batch(entry: &[Array]) -> Vec<ColumnData<'_>> {
        entry.iter().map(as_batch).collect()
    }

    /// Checks a batch (one per given branch) and gives its columns (one per branch of the
    /// tree) and number of entries.
    pub fn columns<'b, 'a>(&self, batch: &'b [ColumnData<'a>]) -> Result<Checked<'b, 'a>> {
        if batch.len() != self.given.len() {
            return Err(Error::InvalidArgument(format!(
                "extend: {} columns given for {} branches",
                batch.len(),
                self.given.len()
            )));
        }
        let mut columns = Vec::with_capacity(self.specs.len());
        let mut entries = None;
        for ((spec, data), parts) in self.given.iter().zip(batch).zip(&self.parts) {
            let n = match &spec.kind {
                BranchKind::Object { class, vector, .. } => {
                    let object = ObjectColumn::of(&spec.name, class, *vector, data)?;
                    let n = object.entries();
                    for part in &self.specs[parts.clone()] {
                        columns.push(object.part(part));
                    }
                    n
                }
                _ => {
                    let column = Column::of(spec, data)?;
                    let n = column.entries();
                    columns.push(column);
                    n
                }
            };
            if entries.is_some_and(|e| e != n) {
                return Err(Error::InvalidArgument(format!(
                    "extend: branch {} gets {n} entries, the branches before it {}",
                    spec.name,
                    entries.unwrap_or(0)
                )));
            }
            entries = Some(n);
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
        (basket_size / self.widest_entry).max(1)
    }
}

/// A batch checked against the branches.
pub(in crate::ttree::write) struct Checked<'b, 'a> {
    pub columns: Vec<Column<'b, 'a>>,
    pub entries: usize,
    /// Bytes of its entries as baskets hold them (about).
    pub bytes: usize,
}
