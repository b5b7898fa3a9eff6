//! What a node of a graph knows of its columns and filters, as RDataFrame tells it:
//! `GetColumnNames`, `GetDefinedColumnNames`, `HasColumn`, `GetFilterNames`, and the type
//! a read column has in the dataset.

use super::graph::{Frame, NodeKind};
use crate::array::{Array, Recycler};
use crate::dataset::BatchSource;
use crate::error::Result;

/// The name `GetFilterNames` gives a filter made without one.
pub(super) const UNNAMED_FILTER: &str = "Unnamed Filter";

/// Which names of the nodes above a node to collect.
enum Named {
    /// Defined columns and aliases.
    Columns,
    /// Defined columns only.
    Defined,
}

impl Frame {
    /// The names of the columns defined (and, with `Named::Columns`, aliased) from this node
    /// up to the root.
    fn names_above(&self, which: Named) -> Vec<String> {
        let g = self.lock();
        let mut out = Vec::new();
        let mut at = Some(self.node);
        while let Some(n) = at {
            match (&g.nodes[n].kind, &which) {
                (NodeKind::Define { name, .. }, _) => out.push(name.clone()),
                (NodeKind::Alias { alias, .. }, Named::Columns) => out.push(alias.clone()),
                _ => {}
            }
            at = g.nodes[n].parent;
        }
        out
    }

    /// `GetColumnNames()`: the dataset's columns as RDataFrame lists them (an RNTuple's
    /// record members by their dotted paths, not the records), those defined above this
    /// node and the aliases made above it, sorted, each once.
    pub fn column_names(&self) -> Result<Vec<String>> {
        let mut names = self.listed_names()?.to_vec();
        names.extend(self.names_above(Named::Columns));
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// The columns a regular expression of `Snapshot` or `Cache` chooses from, in the order
    /// they are written or cached, as ROOT lists them there: the defined columns in the order
    /// they were first defined, the aliases in the order they were made, then the dataset's
    /// columns (as `GetColumnNames` lists them) in the dataset's own order (a tree's branch
    /// order), each once.
    pub fn regex_candidates(&self) -> Result<Vec<String>> {
        let mut aliases = self.names_above(Named::Columns);
        aliases.reverse();
        let mut names = self.defined_column_names();
        let mut seen: std::collections::HashSet<String> = names.iter().cloned().collect();
        for name in aliases
            .into_iter()
            .chain(self.listed_names()?.iter().cloned())
        {
            if seen.insert(name.clone()) {
                names.push(name);
            }
        }
        Ok(names)
    }

    /// `GetDefinedColumnNames()`: the columns defined above this node (`Define`,
    /// `Redefine`, `DefinePerSample`, `DefaultValueFor`, a function's column; not aliases),
    /// in the order they were first defined from the root down, each once, as ROOT lists them.
    pub fn defined_column_names(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        let mut names = self.names_above(Named::Defined);
        names.reverse();
        names.retain(|n| seen.insert(n.clone()));
        names
    }

    /// `HasColumn(name)`: whether `name` is a column here (read, defined, an alias, or a
    /// special column such as `rdfentry_`, or a tree's branch of one leaf as `branch.leaf`,
    /// which `GetColumnNames` does not list).
    pub fn has_column(&self, name: &str) -> Result<bool> {
        if super::special::special(name) || self.column_names()?.iter().any(|c| c == name) {
            return Ok(true);
        }
        Ok(match self.first_source()?.as_deref() {
            Some(crate::dataset::AnyReader::TTree(t)) => {
                t.meta().leaf_names().iter().any(|n| n == name)
            }
            _ => false,
        })
    }

    /// The type column `name` has in the dataset, as an empty array of it, where the column
    /// is read here (not defined above), or is a special one (`rdfentry_` a `ULong64_t`):
    /// RDataFrame's `Take` and `AsNumpy` give such a column's values in its own type (a
    /// `UInt_t` as `unsigned int`), where the layer computes with integers widened. `None`
    /// for other columns.
    pub fn read_type(&self, name: &str) -> Result<Option<Array>> {
        let (defining, resolved) = self.lock().resolve(self.node, name);
        if defining.is_none() && super::special::special(&resolved) {
            return Ok(super::special::EventsAt::default().array(&resolved, 0, None));
        }
        if defining.is_some() || super::special::builtin(&resolved) {
            return Ok(None);
        }
        if !self.input_names()?.contains(&resolved) {
            return Ok(None);
        }
        let Some(reader) = self.first_source()? else {
            return Ok(None);
        };
        let arrays = reader.read_fields_recycling(&[&resolved], 0..0, &mut Recycler::new())?;
        Ok(arrays.into_iter().next().map(|(_, a)| a))
    }

    /// `GetFilterNames()`: the filters above this node, from the root down, those made
    /// without a name as "Unnamed Filter"; at the root, as RDataFrame gives them there,
    /// every filter of the graph in the order they were made.
    pub fn filter_names(&self) -> Vec<String> {
        let g = self.lock();
        let nodes: Vec<usize> = if self.node == 0 {
            (0..g.nodes.len()).collect()
        } else {
            let mut path = Vec::new();
            let mut at = Some(self.node);
            while let Some(n) = at {
                path.push(n);
                at = g.nodes[n].parent;
            }
            path.reverse();
            path
        };
        nodes
            .into_iter()
            .filter_map(|n| match &g.nodes[n].kind {
                NodeKind::Filter { name, condition } => Some(
                    name.clone()
                        .unwrap_or_else(|| super::missing::unnamed_filter(condition).to_string()),
                ),
                _ => None,
            })
            .collect()
    }
}
