//! One batch as the graph sees it: the events each node keeps (a filter's, a range's), and
//! every column a node needs, computed once per batch: read columns converted when first
//! used, defined columns evaluated for the events of the first node that asks for them
//! (as RDataFrame computes a `Define` only for the events that reach its use), then
//! narrowed to the events of the nodes below that ask.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::column::{ArrayGatherer, Column, Gatherer, Values};
use super::expr::{self, Scope};
use super::graph::{Definition, GraphNode, NodeKind};
use super::special::{self, EventsAt};
use crate::array::Array;

/// What a run needs of the graph, copied out of it once.
pub struct Plan {
    /// The nodes.
    pub nodes: Vec<GraphNode>,
    /// Per node, whether it is a `Range` that counts the events of a node other than the
    /// dataset's (below a `Filter` or another `Range`): its events are counted in dataset
    /// order across chunks and batches, so a run of it reads its batches one at a time.
    pub counted: Vec<bool>,
    /// Typed empty arrays of the dataset's columns that may be missing from a source (see
    /// [`super::missing`]): their values where a source lacks them and no event needs them.
    pub absent: HashMap<String, Array>,
    /// The dataset's columns of C++ `long`s and `signed char`s (see
    /// [`Column::into_long_or_signed_char`]), typed so when read.
    pub longs_or_signed_chars: HashSet<String>,
    /// The dataset's columns of `XYZPoint`s (see [`Column::into_points`]), typed so when read.
    pub points: HashSet<String>,
}

impl Plan {
    /// The plan of a graph's `nodes`.
    pub fn new(nodes: Vec<GraphNode>) -> Plan {
        let mut plan = Plan {
            nodes,
            counted: Vec::new(),
            absent: HashMap::new(),
            longs_or_signed_chars: HashSet::new(),
            points: HashSet::new(),
        };
        plan.counted = (0..plan.nodes.len())
            .map(|n| {
                matches!(plan.nodes[n].kind, NodeKind::Range { .. })
                    && plan.lineage(n).skip(1).any(|p| {
                        matches!(
                            plan.nodes[p].kind,
                            NodeKind::Filter { .. } | NodeKind::Range { .. }
                        )
                    })
            })
            .collect();
        plan
    }

    /// Node `n` and the nodes above it, up to the root.
    pub fn lineage(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(Some(n), |&m| self.nodes[m].parent)
    }

    /// Whether a run must take its batches in dataset order, one at a time.
    pub fn in_order(&self) -> bool {
        self.counted.iter().any(|&c| c)
    }

    /// The defining node of `name` at `node` and the name there.
    pub fn resolve(&self, node: usize, name: &str) -> (Option<usize>, String) {
        super::graph::resolve(&self.nodes, node, name, None)
    }
}

/// The events of a batch a node keeps: all, or these positions (ascending).
type Selection = Option<Arc<Vec<usize>>>;

/// A batch being processed.
pub struct BatchState<'a> {
    plan: &'a Plan,
    arrays: &'a [(String, Array)],
    /// The batch's source.
    pub source: usize,
    /// The dataset-wide number of the batch's first entry.
    pub first_entry: u64,
    /// The number of the chunk's first entry within its source, by which errors name an
    /// entry.
    source_entry: u64,
    /// The slot of the event loop at work (`rdfslot_`).
    slot: usize,
    /// The number of the dataset's first entry (`rdfentry_` of its first entry).
    numbered_from: u64,
    /// The variation computed (`None`: nominal).
    variation: Option<(String, String)>,
    /// Per counted `Range` node (see [`Plan::counted`]), the events that reached the node
    /// above it in the chunks before this one.
    reached: Vec<u64>,
    /// The position in `arrays` of the first event.
    start: usize,
    events: usize,
    selections: Vec<Option<Selection>>,
    inputs: HashMap<String, Column>,
    /// Columns by the node naming them, the node whose events they are for, and name.
    cache: HashMap<(usize, usize, String), Column>,
    /// Narrowings of columns from the events they were computed for (all: `None`) to a
    /// node's, by the two selections (kept alive here, so that their addresses name them):
    /// the positions taken and the gathers sharing them.
    narrowings: Vec<Narrowing>,
    /// Gathers of read columns straight from `arrays` for a node's events, by selection.
    picks: Vec<(Arc<Vec<usize>>, ArrayGatherer<'a>)>,
    /// Each defined column computed so far (by defining node and name): the nodes whose
    /// events it was computed for, and its values for them.
    definitions: HashMap<(usize, String), Vec<(usize, Column)>>,
}

impl<'a> BatchState<'a> {
    /// Events `events` of the entries read as `arrays` (a chunk of a batch, so that the
    /// columns computed for it stay small enough for the processor's caches);
    /// `first_entry` is the dataset-wide number of the chunk's first entry.
    pub fn new(
        plan: &'a Plan,
        arrays: &'a [(String, Array)],
        source: usize,
        first_entry: u64,
        events: std::ops::Range<usize>,
    ) -> Self {
        BatchState {
            plan,
            arrays,
            source,
            first_entry,
            source_entry: first_entry,
            slot: 0,
            numbered_from: 0,
            variation: None,
            reached: Vec::new(),
            start: events.start,
            events: events.len(),
            selections: vec![None; plan.nodes.len()],
            inputs: HashMap::new(),
            cache: HashMap::new(),
            narrowings: Vec::new(),
            picks: Vec::new(),
            definitions: HashMap::new(),
        }
    }

    /// The events node `n` keeps.
    pub fn selection(&mut self, n: usize) -> Result<Selection, String> {
        if let Some(s) = &self.selections[n] {
            return Ok(s.clone());
        }
        let node = &self.plan.nodes[n];
        let parent = node.parent;
        let sel = match (&node.kind, parent) {
            (NodeKind::Filter { condition, .. }, Some(p)) => {
                let above = self.selection(p)?;
                let truth = self.definition_at(p, condition)?;
                let keep = as_bools(&truth)?;
                let index: Vec<usize> = match &above {
                    None => (0..keep.len()).filter(|&i| keep[i]).collect(),
                    Some(a) => a
                        .iter()
                        .zip(&keep)
                        .filter(|(_, k)| **k)
                        .map(|(&i, _)| i)
                        .collect(),
                };
                Some(Arc::new(index))
            }
            (NodeKind::Range { begin, end, stride }, Some(p)) => {
                let above = self.selection(p)?;
                let keeps = |e: u64| {
                    e >= *begin && end.is_none_or(|end| e < end) && (e - begin) % stride == 0
                };
                // The events reaching the node above are numbered in dataset order: the
                // dataset's entries, or those counted before this chunk and then in turn.
                Some(Arc::new(if self.plan.counted[n] {
                    let before = self.reached.get(n).copied().unwrap_or(0);
                    let positions: Vec<usize> = match &above {
                        None => (0..self.events).collect(),
                        Some(a) => a.to_vec(),
                    };
                    positions
                        .into_iter()
                        .enumerate()
                        .filter(|&(k, _)| keeps(before + k as u64))
                        .map(|(_, i)| i)
                        .collect()
                } else {
                    let first = self.first_entry;
                    match &above {
                        None => (0..self.events)
                            .filter(|&i| keeps(first + i as u64))
                            .collect(),
                        Some(a) => a
                            .iter()
                            .copied()
                            .filter(|&i| keeps(first + i as u64))
                            .collect(),
                    }
                }))
            }
            (_, Some(p)) => self.selection(p)?,
            (_, None) => None,
        };
        self.selections[n] = Some(sel.clone());
        Ok(sel)
    }

    /// This chunk processed by slot `slot` of the event loop (`rdfslot_`), of a dataset
    /// whose first entry is number `numbered_from` (`rdfentry_`).
    pub fn in_loop(mut self, slot: usize, numbered_from: u64) -> Self {
        self.slot = slot;
        self.numbered_from = numbered_from;
        self
    }

    /// This chunk starting at entry `entry` of its source (errors name the entries so).
    pub fn numbered_in_source(mut self, entry: u64) -> Self {
        self.source_entry = entry;
        self
    }

    /// `message` of an expression evaluated over the events of node `n` with the events it
    /// names (the scope's `k`-th) named as entries of the source.
    fn naming_entries(&self, n: usize, message: &str) -> String {
        let selection = self.selections[n].clone().flatten();
        expr::rename_events(message, |k| {
            let position = match &selection {
                Some(s) => *s.get(k)?,
                None => k,
            };
            Some(format!("entry {}", self.source_entry + position as u64))
        })
    }

    /// This chunk after the chunks before it in dataset order, whose events reached the node
    /// above each counted `Range` `reached[range]` times (see [`Plan::counted`]).
    pub fn with_reached(mut self, reached: Vec<u64>) -> Self {
        self.reached = reached;
        self
    }

    /// Takes from `nominal` (this chunk's nominal state, its results' columns computed)
    /// every column, read or defined, and every node's events that this state's variation
    /// does not change (see [`Affected`](super::varied::Affected)), so that only what the
    /// variation changes is computed again.
    pub fn share_from(&mut self, nominal: &BatchState<'a>) {
        let Some(variation) = self.variation.clone() else {
            return;
        };
        let mut affected = super::varied::Affected::new(&self.plan.nodes, variation);
        self.inputs = nominal.inputs.clone();
        for (n, selection) in nominal.selections.iter().enumerate() {
            if selection.is_some() && !affected.selection(n) {
                self.selections[n] = selection.clone();
            }
        }
        for ((at, of, name), column) in &nominal.cache {
            if !affected.column(*at, name) && !affected.selection(*of) {
                self.cache.insert((*at, *of, name.clone()), column.clone());
            }
        }
        for ((d, name), done) in &nominal.definitions {
            if affected.column(*d, name) {
                continue;
            }
            let kept: Vec<(usize, Column)> = done
                .iter()
                .filter(|(m, _)| !affected.selection(*m))
                .cloned()
                .collect();
            if !kept.is_empty() {
                self.definitions.insert((*d, name.clone()), kept);
            }
        }
    }

    /// This batch in `variation` (its columns computed again where the variation changes
    /// them: the state must be fresh).
    pub fn with_variation(mut self, variation: Option<(String, String)>) -> Self {
        self.variation = variation;
        self
    }

    /// Where `name` comes from at `n` in this batch's variation.
    fn resolve(&self, n: usize, name: &str) -> (Option<usize>, String) {
        super::graph::resolve(&self.plan.nodes, n, name, self.variation.as_ref())
    }

    /// The node above `n` (the root for the root).
    pub fn parent(&self, n: usize) -> usize {
        self.plan.nodes[n].parent.unwrap_or(0)
    }

    /// The number of events node `n` keeps.
    pub fn events_at(&mut self, n: usize) -> Result<usize, String> {
        Ok(self.selection(n)?.map_or(self.events, |s| s.len()))
    }

    /// The number of events node `n` keeps among the chunk's first `end` events.
    pub fn events_before(&mut self, n: usize, end: usize) -> Result<usize, String> {
        Ok(match self.selection(n)? {
            None => self.events.min(end),
            Some(s) => s.partition_point(|&i| i < end),
        })
    }

    /// The position in the chunk of the event at which counted `Range` `n` ends (the
    /// event that reaches the node above it as the range's `end`-th), if it is in this
    /// chunk.
    pub fn range_end_at(&mut self, n: usize) -> Result<Option<usize>, String> {
        let NodeKind::Range { end: Some(end), .. } = self.plan.nodes[n].kind else {
            return Ok(None);
        };
        let before = self.reached.get(n).copied().unwrap_or(0);
        let Some(k) = end.checked_sub(1 + before) else {
            return Ok(None);
        };
        let Ok(k) = usize::try_from(k) else {
            return Ok(None);
        };
        Ok(match self.selection(self.parent(n))? {
            None => (k < self.events).then_some(k),
            Some(s) => s.get(k).copied(),
        })
    }

    /// Column `name` for the events of node `n`.
    pub fn column(&mut self, n: usize, name: &str) -> Result<Column, String> {
        self.column_for(n, n, name)
    }

    /// Column `name` as node `at` names it, for the events of node `events_of` (`at` or a
    /// node below it). A defined column is computed for the events of the first node that
    /// asks for it, as RDataFrame computes a `Define` only for the events that reach the
    /// node using it (`Define("lead", "Jet_pt[0]").Filter("nJet > 0")` never indexes an
    /// empty list), and taken from there for the nodes below; a node of another branch
    /// has it computed for its own events.
    fn column_for(&mut self, at: usize, events_of: usize, name: &str) -> Result<Column, String> {
        let key = (at, events_of, name.to_string());
        if let Some(c) = self.cache.get(&key) {
            return Ok(c.clone());
        }
        let (defining, resolved) = self.resolve(at, name);
        let (column, from) = match defining {
            Some(d) => self.defined(d, &resolved, events_of)?,
            None => self.input_for(&resolved, events_of)?,
        };
        let here = self.selection(events_of)?;
        let narrowed = match (&from, &here) {
            (_, None) => column,
            (Some(a), Some(h)) if Arc::ptr_eq(a, h) => column,
            (from, Some(h)) => self.narrow(&column, from, h),
        };
        self.cache.insert(key, narrowed.clone());
        Ok(narrowed)
    }

    /// The values of the column defined at node `d` as `resolved`, for the events of
    /// `events_of` or more, and the events they are for.
    fn defined(
        &mut self,
        d: usize,
        resolved: &str,
        events_of: usize,
    ) -> Result<(Column, Selection), String> {
        let key = (d, resolved.to_string());
        let computed = self.definitions.get(&key).and_then(|done| {
            done.iter()
                .find(|(m, _)| self.is_within(events_of, *m))
                .cloned()
        });
        if let Some((m, c)) = computed {
            return Ok((c, self.selection(m)?));
        }
        let definition = match &self.plan.nodes[d].kind {
            NodeKind::Define { definition, .. } => definition,
            NodeKind::Vary {
                columns,
                variations,
                tags,
                ..
            } => {
                let c = columns.iter().position(|c| c == resolved).unwrap_or(0);
                // `resolve` gives a `Vary` only for a tag it has.
                let tag = self
                    .variation
                    .as_ref()
                    .and_then(|(_, t)| tags.iter().position(|x| x == t));
                &variations[c][tag.unwrap_or(0)]
            }
            _ => unreachable!("resolve gives defining nodes"),
        };
        let parent = self.plan.nodes[d].parent.expect("a Define has a parent");
        let c = self
            .definition_for(parent, events_of, definition)
            .map_err(|e| format!("column '{resolved}': {e}"))?;
        self.definitions
            .entry(key)
            .or_default()
            .push((events_of, c.clone()));
        Ok((c, self.selection(events_of)?))
    }

    /// The list sizes of column `name` as node `at` names it, for the events of
    /// `events_of`, found without computing the column where its definition allows (see
    /// [`expr::sizes`]) and it has not been computed for these events already; `None`: the
    /// column is to be computed.
    fn sizes_for(
        &mut self,
        at: usize,
        events_of: usize,
        name: &str,
    ) -> Result<Option<Column>, String> {
        if self.cache.contains_key(&(at, events_of, name.to_string())) {
            return Ok(None);
        }
        let (defining, resolved) = self.resolve(at, name);
        let Some(d) = defining else {
            return self.read_sizes(&resolved, events_of);
        };
        let NodeKind::Define {
            definition: Definition::Expression(e),
            ..
        } = &self.plan.nodes[d].kind
        else {
            return Ok(None);
        };
        let computed = self
            .definitions
            .get(&(d, resolved.clone()))
            .is_some_and(|done| done.iter().any(|(m, _)| self.is_within(events_of, *m)));
        if computed || !expr::sized_without_items(&e.tree) {
            return Ok(None);
        }
        let parent = self.plan.nodes[d].parent.expect("a Define has a parent");
        let mut scope = NodeScope {
            state: self,
            at: parent,
            events_of,
        };
        expr::sizes(&e.tree, &mut scope).map(Some).map_err(|err| {
            format!(
                "column '{resolved}': expression '{}' at position {}: {}",
                e.text,
                err.pos,
                self.naming_entries(events_of, &err.message)
            )
        })
    }

    /// The sizes of the lists of read column `name` for the events of `events_of`, from its
    /// array's offsets (its items are not converted for a size); `None` where the column is
    /// at hand already, or is not lists of numbers (whose error the column gives).
    fn read_sizes(&mut self, name: &str, events_of: usize) -> Result<Option<Column>, String> {
        if self.inputs.contains_key(name) {
            return Ok(None);
        }
        let Ok(Array::List { offsets, values }) = self.array(name) else {
            return Ok(None);
        };
        if !super::column::numbers(values) {
            return Ok(None);
        }
        let cut = &offsets[self.start..=self.start + self.events];
        let size = |e: usize| (cut[e + 1] - cut[e]) as i64;
        let sizes = match self.selection(events_of)? {
            Some(h) => h.iter().map(|&e| size(e)).collect(),
            None => (0..self.events).map(size).collect(),
        };
        Ok(Some(Column::Flat(
            Values::Int(super::expr::IntTy::SIZE, sizes).into(),
        )))
    }

    /// Whether node `n` is node `m` or below it.
    fn is_within(&self, mut n: usize, m: usize) -> bool {
        loop {
            if n == m {
                return true;
            }
            match self.plan.nodes[n].parent {
                Some(p) => n = p,
                None => return false,
            }
        }
    }

    /// Column `name` at node `n` as it is written out: a column of the dataset as read
    /// (its own type, the node's events taken), a defined one as the layer computed it.
    pub fn output_array(&mut self, n: usize, name: &str) -> Result<Array, String> {
        let (defining, resolved) = self.resolve(n, name);
        if defining.is_some() {
            return Ok(self.column(n, name)?.into_array());
        }
        if special::special(&resolved) {
            let here = self.selection(n)?;
            let positions = here.as_deref().map(Vec::as_slice);
            return self
                .special_at()
                .array(&resolved, self.events, positions)
                .ok_or_else(|| format!("no column '{resolved}'"));
        }
        let array = self
            .arrays
            .iter()
            .find(|(a, _)| *a == resolved)
            .map(|(_, a)| a)
            .ok_or_else(|| super::missing::not_in_source(&resolved))?;
        let start = self.start;
        Ok(match self.selection(n)? {
            None if start == 0 && self.events == array.len() => array.clone(),
            None => crate::array::take(array, &(start..start + self.events).collect::<Vec<_>>()),
            Some(index) => {
                crate::array::take(array, &index.iter().map(|i| i + start).collect::<Vec<_>>())
            }
        })
    }

    /// A definition's value over the events of node `n`.
    fn definition_at(&mut self, n: usize, definition: &Definition) -> Result<Column, String> {
        self.definition_for(n, n, definition)
    }

    /// A definition's value with its columns as node `at` names them, over the events of
    /// node `events_of` (`at` or below it).
    fn definition_for(
        &mut self,
        at: usize,
        events_of: usize,
        definition: &Definition,
    ) -> Result<Column, String> {
        self.selection(events_of)?;
        match definition {
            Definition::Expression(e) => e
                .evaluate(&mut NodeScope {
                    state: self,
                    at,
                    events_of,
                })
                .map_err(|err| {
                    format!(
                        "expression '{}' at position {}: {}",
                        e.text,
                        err.pos,
                        self.naming_entries(events_of, &err.message)
                    )
                }),
            Definition::Function(columns, f) => {
                let cols = columns
                    .iter()
                    .map(|c| self.column_for(at, events_of, c))
                    .collect::<Result<Vec<_>, _>>()?;
                let out = f(&cols)?;
                let events = self.events_at(events_of)?;
                if out.events() != events {
                    return Err(format!(
                        "a function gave {} values for {events} events",
                        out.events()
                    ));
                }
                Ok(out)
            }
            Definition::PerSample(values) => {
                let events = self.events_at(events_of)?;
                Ok(Column::Flat(
                    values.gather(&vec![self.source; events]).into(),
                ))
            }
            Definition::Default { column, value } => match self.available(at, column) {
                true => self.column_for(at, events_of, column),
                false => super::missing::repeated(value, self.events_at(events_of)?),
            },
            Definition::Available { column, present } => {
                let keep = self.available(at, column) == *present;
                let events = self.events_at(events_of)?;
                Ok(Column::Flat(Values::Bool(vec![keep; events]).into()))
            }
        }
    }

    /// Whether column `name`, as node `at` names it, is there for this batch: defined, a
    /// special column, or read from the batch's source.
    fn available(&self, at: usize, name: &str) -> bool {
        let (defining, resolved) = self.resolve(at, name);
        defining.is_some()
            || special::special(&resolved)
            || self.arrays.iter().any(|(n, _)| *n == resolved)
    }

    /// A column of the dataset for the events of node `events_of`, and the events it holds
    /// (`None`: all): taken from the arrays for those events alone until a node asks for
    /// all of them.
    fn input_for(&mut self, name: &str, events_of: usize) -> Result<(Column, Selection), String> {
        let here = self.selection(events_of)?;
        if let Some(c) = self.special(name, here.as_deref().map(Vec::as_slice)) {
            return Ok((c, here));
        }
        let Some(h) = here.filter(|_| !self.inputs.contains_key(name)) else {
            return Ok((self.input(name)?, None));
        };
        if let (true, Some(empty)) = (h.is_empty(), self.plan.absent.get(name)) {
            if self.array(name).is_err() {
                // Missing from this source, and needed by no event.
                let c = Column::from_array(empty, 0..0).ok_or_else(|| not_numbers(name))?;
                return Ok((self.typed(name, c), Some(h)));
            }
        }
        let array = self.array(name)?;
        let k = match self.picks.iter().position(|(s, _)| Arc::ptr_eq(s, &h)) {
            Some(k) => k,
            None => {
                self.picks.push((h.clone(), ArrayGatherer::default()));
                self.picks.len() - 1
            }
        };
        let (start, count) = (self.start, self.events);
        let c = self.picks[k]
            .1
            .gather(array, start, count, &h)
            .ok_or_else(|| not_numbers(name))?;
        Ok((self.typed(name, c), Some(h)))
    }

    /// Column `name` of the dataset, read as `c`, with the C++ type RDataFrame gives it.
    fn typed(&self, name: &str, c: Column) -> Column {
        let c = match self.plan.points.contains(name) {
            true => c.into_points(),
            false => c,
        };
        match self.plan.longs_or_signed_chars.contains(name) {
            true => c.into_long_or_signed_char(),
            false => c,
        }
    }

    /// A column of the dataset for all the batch's events.
    fn input(&mut self, name: &str) -> Result<Column, String> {
        if let Some(c) = self.inputs.get(name) {
            return Ok(c.clone());
        }
        if let Some(c) = self.special(name, None) {
            return Ok(c);
        }
        let array = self.array(name)?;
        let c = Column::from_array(array, self.start..self.start + self.events)
            .ok_or_else(|| not_numbers(name))?;
        let c = self.typed(name, c);
        self.inputs.insert(name.to_string(), c.clone());
        Ok(c)
    }

    /// Special column `name` (`rdfentry_`, `rdfslot_`) for the events at `positions` (all:
    /// `None`); `None` for a column of the dataset.
    fn special(&self, name: &str, positions: Option<&[usize]>) -> Option<Column> {
        self.special_at().column(name, self.events, positions)
    }

    /// Where the chunk's events are, for its special columns.
    fn special_at(&self) -> EventsAt {
        EventsAt {
            first_entry: self.numbered_from + self.first_entry,
            slot: self.slot,
        }
    }

    /// The array read for column `name`.
    fn array(&self, name: &str) -> Result<&'a Array, String> {
        self.arrays
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, a)| a)
            .ok_or_else(|| super::missing::not_in_source(name))
    }
}

/// How columns computed for the events `from` (all: `None`) are narrowed to the events
/// `to`: the positions taken, and their gathers.
struct Narrowing {
    from: Option<Arc<Vec<usize>>>,
    to: Arc<Vec<usize>>,
    positions: Vec<usize>,
    gatherer: Gatherer,
}

impl BatchState<'_> {
    /// `column`, computed for the events `from`, for the events `to` (a subset of them).
    fn narrow(
        &mut self,
        column: &Column,
        from: &Option<Arc<Vec<usize>>>,
        to: &Arc<Vec<usize>>,
    ) -> Column {
        let same = |a: &Option<Arc<Vec<usize>>>| match (a, from) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        let found = self
            .narrowings
            .iter()
            .position(|n| same(&n.from) && Arc::ptr_eq(&n.to, to));
        let at = found.unwrap_or_else(|| {
            let positions = match from {
                None => to.as_ref().clone(),
                Some(a) => positions(a, to),
            };
            self.narrowings.push(Narrowing {
                from: from.clone(),
                to: to.clone(),
                positions,
                gatherer: Gatherer::default(),
            });
            self.narrowings.len() - 1
        });
        let n = &mut self.narrowings[at];
        n.gatherer.gather(column, &n.positions)
    }
}

/// The error of a column whose layout expressions do not take.
fn not_numbers(name: &str) -> String {
    format!("column '{name}' is not numbers, strings or lists of them, which expressions take")
}

/// The positions in `outer` of the events of `inner` (both ascending, `inner` within
/// `outer`).
fn positions(outer: &[usize], inner: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(inner.len());
    let mut k = 0;
    for &e in inner {
        while outer[k] < e {
            k += 1;
        }
        out.push(k);
    }
    out
}

/// A filter's condition as one boolean per event.
fn as_bools(c: &Column) -> Result<Vec<bool>, String> {
    match c.flat() {
        Some(Values::Bool(v) | Values::IntBool(v)) => Ok(v.clone()),
        Some(Values::Int(_, v)) => Ok(v.iter().map(|&x| x != 0).collect()),
        Some(Values::F32(v)) => Ok(v.iter().map(|&x| x != 0.0).collect()),
        Some(Values::F64(v)) => Ok(v.iter().map(|&x| x != 0.0).collect()),
        _ => Err(format!(
            "a filter needs one boolean per event, not a {}",
            c.type_name()
        )),
    }
}

/// The columns as node `at` names them, for the events of node `events_of`, as an
/// expression sees them.
struct NodeScope<'s, 'a> {
    state: &'s mut BatchState<'a>,
    at: usize,
    events_of: usize,
}

impl Scope for NodeScope<'_, '_> {
    fn column(&mut self, name: &str) -> Result<Column, String> {
        self.state.column_for(self.at, self.events_of, name)
    }

    fn sizes(&mut self, name: &str) -> Result<Option<Column>, String> {
        self.state.sizes_for(self.at, self.events_of, name)
    }

    fn events(&self) -> usize {
        match &self.state.selections[self.events_of] {
            Some(Some(s)) => s.len(),
            _ => self.state.events,
        }
    }
}
