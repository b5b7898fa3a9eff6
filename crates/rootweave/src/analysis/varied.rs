//! What a variation changes in a graph: the columns whose values depend on a column it
//! varies (through the definitions that use it, and their users), and the nodes whose
//! events depend on one (below a filter of such a column). The rest a batch computes once,
//! for the nominal results, and shares with the variation's.

use std::collections::HashMap;

use super::graph::{resolve, GraphNode, NodeKind};

/// The answers for one variation, found as they are asked for and kept.
pub struct Affected<'p> {
    nodes: &'p [GraphNode],
    variation: (String, String),
    columns: HashMap<(usize, String), bool>,
    selections: HashMap<usize, bool>,
}

impl<'p> Affected<'p> {
    /// Nothing known yet of `variation` in the graph of `nodes`.
    pub fn new(nodes: &'p [GraphNode], variation: (String, String)) -> Self {
        Affected {
            nodes,
            variation,
            columns: HashMap::new(),
            selections: HashMap::new(),
        }
    }

    /// Whether the values of `name` as node `at` names it differ in the variation: it is
    /// the varied column there, or its definition reads such a column.
    pub fn column(&mut self, at: usize, name: &str) -> bool {
        let key = (at, name.to_string());
        if let Some(&known) = self.columns.get(&key) {
            return known;
        }
        let nodes = self.nodes;
        let (defining, _) = resolve(nodes, at, name, Some(&self.variation));
        let changed = match defining.map(|d| &nodes[d]) {
            None => false,
            Some(node) => match &node.kind {
                NodeKind::Vary { .. } => true,
                NodeKind::Define { definition, .. } => {
                    let parent = node.parent.unwrap_or(0);
                    definition.columns().iter().any(|c| self.column(parent, c))
                }
                _ => false,
            },
        };
        self.columns.insert(key, changed);
        changed
    }

    /// Whether the events node `n` keeps differ in the variation: a filter above it (or
    /// it) reads a column the variation changes.
    pub fn selection(&mut self, n: usize) -> bool {
        if let Some(&known) = self.selections.get(&n) {
            return known;
        }
        let node = &self.nodes[n];
        let changed = match (&node.kind, node.parent) {
            (_, None) => false,
            (NodeKind::Filter { condition, .. }, Some(p)) => {
                condition.columns().iter().any(|c| self.column(p, c)) || self.selection(p)
            }
            (_, Some(p)) => self.selection(p),
        };
        self.selections.insert(n, changed);
        changed
    }
}
