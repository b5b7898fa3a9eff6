//! How a snapshot lays out its columns, as RDataFrame's `Snapshot` does: a column read from a
//! counted array of the dataset's TTree (NanoAOD's `Jet_pt[nJet]`) comes with its counter
//! (`nJet`, read from the dataset too), written once. In a TTree the array stays a counted
//! array of that counter, which is written where it is asked for before its arrays, else
//! just before the first of them; other lists are `std::vector` branches. An RNTuple has the
//! counter as a field of its own: where it is asked for, else before the first array.

use std::collections::{HashMap, HashSet};

use super::graph::Frame;
use crate::dataset::AnyReader;
use crate::error::Result;
use crate::tree_layout::FieldOptions;
use crate::ttree::Branch;

/// The columns a snapshot writes, in order, and how each (by its written name) is laid out
/// in a TTree.
pub(super) struct SnapshotColumns {
    /// The columns, counters included once.
    pub columns: Vec<String>,
    /// The TTree layout of each column's field, by the name it is written as.
    pub options: HashMap<String, FieldOptions>,
    /// The title of each TTree branch that is an array read as it is from a counted array
    /// of the dataset's TTree: that branch's (NanoAOD's documentation, `"pt"`), as ROOT's
    /// snapshot copies it; by the name it is written as.
    pub titles: HashMap<String, String>,
}

impl Frame {
    /// The columns a snapshot of `columns` (asked for, or all) writes, counters added, and
    /// their TTree layout; `written` gives the name a column is written as; `tree`: for a
    /// TTree, else an RNTuple.
    pub(super) fn snapshot_layout(
        &self,
        columns: Vec<String>,
        written: impl Fn(&str) -> String,
        tree: bool,
    ) -> Result<SnapshotColumns> {
        let reader = self.first_source()?;
        let mut out = SnapshotColumns {
            columns: Vec::with_capacity(columns.len()),
            options: HashMap::new(),
            titles: HashMap::new(),
        };
        // The columns written so far: a counter asked for after its arrays is not again.
        let mut taken: HashSet<String> = HashSet::new();
        let asked: HashSet<String> = match tree {
            true => HashSet::new(),
            false => columns.iter().cloned().collect(),
        };
        for c in columns {
            if taken.contains(&c) {
                continue;
            }
            let counted = reader.as_ref().and_then(|r| self.source_counter(r, &c));
            let options = match counted {
                Some((counter, title)) => {
                    out.titles.insert(written(&c), title);
                    if !asked.contains(&counter) && taken.insert(counter.clone()) {
                        let vector = FieldOptions::default().with_std_vector();
                        out.options.insert(written(&counter), vector);
                        out.columns.push(counter.clone());
                    }
                    FieldOptions::default().with_counter(&counter)
                }
                None => FieldOptions::default().with_std_vector(),
            };
            out.options.insert(written(&c), options);
            taken.insert(c.clone());
            out.columns.push(c);
        }
        Ok(out)
    }

    /// The counter of column `column` here, and the title of the branch it is read from, if
    /// it is read as it is from a counted array of `reader`'s TTree, one value per item, and
    /// its counter, an integer branch, is read as it is too.
    fn source_counter(&self, reader: &AnyReader, column: &str) -> Option<(String, String)> {
        let AnyReader::TTree(tree) = reader else {
            return None;
        };
        let g = self.lock();
        let (None, resolved) = g.resolve(self.node, column) else {
            return None;
        };
        let branch = tree.meta().find(&resolved)?;
        let [leaf] = branch.leaves.as_slice() else {
            return None;
        };
        let counter = leaf.count.as_ref()?;
        if branch.element.is_some() || leaf.len != 1 {
            return None;
        }
        match g.resolve(self.node, counter) {
            (None, name) if &name == counter => {}
            _ => return None,
        }
        counts(tree.meta().find(counter)?).then(|| (counter.clone(), branch.title.clone()))
    }
}

/// Whether a branch can count arrays: one plain leaf of one integer.
fn counts(branch: &Branch) -> bool {
    let [leaf] = branch.leaves.as_slice() else {
        return false;
    };
    let integer = matches!(
        leaf.class.as_str(),
        "TLeafB" | "TLeafS" | "TLeafI" | "TLeafL"
    );
    integer && branch.element.is_none() && leaf.count.is_none() && leaf.len == 1
}
