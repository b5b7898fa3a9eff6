//! How a TTree snapshot lays out its columns, as RDataFrame's `Snapshot` does: a column read
//! from a counted array of the dataset's TTree (NanoAOD's `Jet_pt[nJet]`) stays a counted
//! array with its counter branch, of the counter's name and integer type, written once:
//! where it is asked for before its arrays, else just before the first of them. Other lists
//! are `std::vector` branches.

use std::collections::{HashMap, HashSet};

use super::graph::Frame;
use crate::array::LeafType;
use crate::dataset::AnyReader;
use crate::error::Result;
use crate::tree_layout::FieldOptions;
use crate::ttree::Branch;

/// The columns a TTree snapshot writes, in order, and how each (by its written name) is laid
/// out.
pub(super) struct TreeColumns {
    /// The columns, without counters their arrays already write.
    pub columns: Vec<String>,
    /// The layout of each column's field, by the name it is written as.
    pub options: HashMap<String, FieldOptions>,
}

impl Frame {
    /// The layout of `columns` (asked for, or all) in a TTree snapshot; `written` gives the
    /// name a column is written as.
    pub(super) fn tree_columns(
        &self,
        columns: Vec<String>,
        written: impl Fn(&str) -> String,
    ) -> Result<TreeColumns> {
        let reader = self.first_source()?;
        let mut counted = Vec::with_capacity(columns.len());
        for c in &columns {
            counted.push(match &reader {
                Some(r) => self.source_counter(r, c),
                None => None,
            });
        }
        let mut out = TreeColumns {
            columns: Vec::with_capacity(columns.len()),
            options: HashMap::new(),
        };
        // Counters written so far, by the arrays they count or asked for themselves.
        let mut counters: HashSet<&str> = HashSet::new();
        let wanted: HashSet<&str> = counted.iter().flatten().map(|(n, _)| n.as_str()).collect();
        for (c, counter) in columns.iter().zip(&counted) {
            let options = match counter {
                Some((name, leaf)) => {
                    counters.insert(name.as_str());
                    FieldOptions::default()
                        .with_counter(name)
                        .with_counter_type(*leaf)
                }
                // Already written by an array before it.
                None if counters.contains(c.as_str()) => continue,
                None => {
                    if wanted.contains(c.as_str()) {
                        counters.insert(c.as_str());
                    }
                    FieldOptions::default().with_std_vector()
                }
            };
            out.options.insert(written(c), options);
            out.columns.push(c.clone());
        }
        Ok(out)
    }

    /// The counter of column `column` here (its name and type) if it is read as it is from
    /// a counted array of `reader`'s TTree, one value per item, and its counter is read as
    /// it is too.
    fn source_counter(&self, reader: &AnyReader, column: &str) -> Option<(String, LeafType)> {
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
        let leaf = counter_type(tree.meta().find(counter)?)?;
        Some((counter.clone(), leaf))
    }
}

/// The integer type of a branch that can count arrays: one plain leaf of one integer.
fn counter_type(branch: &Branch) -> Option<LeafType> {
    let [leaf] = branch.leaves.as_slice() else {
        return None;
    };
    if branch.element.is_some() || leaf.count.is_some() || leaf.len != 1 {
        return None;
    }
    Some(match (leaf.class.as_str(), leaf.is_unsigned) {
        ("TLeafB", false) => LeafType::Int8,
        ("TLeafB", true) => LeafType::UInt8,
        ("TLeafS", false) => LeafType::Int16,
        ("TLeafS", true) => LeafType::UInt16,
        ("TLeafI", false) => LeafType::Int32,
        ("TLeafI", true) => LeafType::UInt32,
        ("TLeafL", false) => LeafType::Int64,
        ("TLeafL", true) => LeafType::UInt64,
        _ => return None,
    })
}
