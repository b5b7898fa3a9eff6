//! `SaveGraph`: a graph, or the branch above one node or result, in Graphviz's DOT language
//! as RDataFrame draws it: the data source, filters and ranges, the columns defined between
//! them (drawn where a filter or a result first sees them), and the booked results (grey,
//! "already run", once computed), with RDataFrame's labels, colours and shapes, so that a
//! drawing of a graph looks as ROOT's of the same graph.

use std::collections::HashMap;

use super::actions::ActionSpec;
use super::graph::{Booked, Frame, Graph, NodeKind};
use crate::dataset::AnyReader;
use crate::error::Result;

impl Frame {
    /// `ROOT::RDF::SaveGraph(df)`: of the dataframe itself (the root node), the whole graph:
    /// every booked result (those not run yet first), then every filter and range, each
    /// with what is above it; of a node below, the branch above it up to its last filter or
    /// range (only the data source for a node with neither above it, as ROOT draws one).
    pub fn save_graph(&self) -> Result<String> {
        let source = self.source_label()?;
        let g = self.lock();
        let mut drawing = Drawing::new(&g, source);
        let leaves = match self.node {
            0 => {
                let (pending, run): (Vec<usize>, Vec<usize>) = (0..g.bookings.len())
                    .filter(|&b| g.bookings[b].drawn)
                    .partition(|&b| g.results[b].is_none());
                let mut leaves: Vec<usize> = pending
                    .into_iter()
                    .chain(run)
                    .map(|b| drawing.action(b))
                    .collect();
                let nodes = &g.nodes;
                let filters =
                    (0..nodes.len()).filter(|&n| matches!(nodes[n].kind, NodeKind::Filter { .. }));
                let ranges =
                    (0..nodes.len()).filter(|&n| matches!(nodes[n].kind, NodeKind::Range { .. }));
                for step in filters.chain(ranges) {
                    leaves.push(drawing.chain(step));
                }
                if leaves.is_empty() {
                    leaves.push(drawing.chain(0));
                }
                leaves
            }
            node => vec![drawing.chain(drawing.step_at(node))],
        };
        Ok(drawing.dot(&leaves))
    }

    /// The data source's label, as RDataFrame names its data sources in a drawing.
    fn source_label(&self) -> Result<String> {
        if self.lock().from_cache {
            return Ok("LazyDS".into());
        }
        Ok(match self.first_source()?.as_deref() {
            None => "Empty source\\nEntries: 0".into(),
            Some(AnyReader::Memory(m)) if m.is_empty() => {
                format!("Empty source\\nEntries: {}", m.entries())
            }
            Some(AnyReader::Memory(m)) => m.source_name().into(),
            Some(AnyReader::RNTuple(_)) => "RNTupleDS".into(),
            Some(AnyReader::TTree(_)) => "TTreeDS".into(),
        })
    }
}

impl Booked {
    /// `ROOT::RDF::SaveGraph(result)`: the branch from the data source to this result.
    pub fn save_graph(&self) -> Result<String> {
        let frame = Frame {
            graph: self.graph.clone(),
            node: 0,
        };
        let source = frame.source_label()?;
        let g = frame.lock();
        let mut drawing = Drawing::new(&g, source);
        let leaf = drawing.action(self.id);
        Ok(drawing.dot(&[leaf]))
    }
}

/// What is drawn: a node of the graph (the source, a filter, a range, a definition) or a
/// booked result.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Item {
    Node(usize),
    Result(usize),
}

/// One drawn box: its label, fill colour and shape, and the box drawn above it.
struct DrawnBox {
    label: String,
    colour: &'static str,
    shape: &'static str,
    above: Option<usize>,
}

/// A drawing being made: boxes numbered in the order RDataFrame numbers them (a step after
/// the steps above it, the definitions it first sees after it, newest first; a result after
/// its step), each item drawn once.
struct Drawing<'a> {
    g: &'a Graph,
    source: String,
    boxes: Vec<DrawnBox>,
    drawn: HashMap<Item, usize>,
}

impl<'a> Drawing<'a> {
    fn new(g: &'a Graph, source: String) -> Self {
        Drawing {
            g,
            source,
            boxes: Vec::new(),
            drawn: HashMap::new(),
        }
    }

    /// The step (the root, a filter or a range) at or above node `n`.
    fn step_at(&self, mut n: usize) -> usize {
        loop {
            match (&self.g.nodes[n].kind, self.g.nodes[n].parent) {
                (NodeKind::Root | NodeKind::Filter { .. } | NodeKind::Range { .. }, _)
                | (_, None) => return n,
                (_, Some(p)) => n = p,
            }
        }
    }

    /// The definitions seen at node `n`, by column name in the order first defined (a
    /// `Redefine` takes its name's place): each name's newest `Define` node.
    fn defined_at(&self, n: usize) -> Vec<(&'a str, usize)> {
        let mut lineage = vec![n];
        while let Some(p) = self.g.nodes[*lineage.last().unwrap_or(&0)].parent {
            lineage.push(p);
        }
        let mut seen: Vec<(&'a str, usize)> = Vec::new();
        for &node in lineage.iter().rev() {
            if let NodeKind::Define { name, .. } = &self.g.nodes[node].kind {
                match seen.iter_mut().find(|(c, _)| c == name) {
                    Some(slot) => slot.1 = node,
                    None => seen.push((name, node)),
                }
            }
        }
        seen
    }

    /// The names a step passes on as already drawn: none from the source, those a filter
    /// sees, and a range's step's (a range draws no definitions of its own).
    fn passed_on(&self, step: usize) -> Vec<&'a str> {
        match &self.g.nodes[step].kind {
            NodeKind::Filter { .. } => self.defined_at(step).into_iter().map(|d| d.0).collect(),
            NodeKind::Range { .. } => match self.g.nodes[step].parent {
                Some(p) => self.passed_on(self.step_at(p)),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    fn add(
        &mut self,
        item: Item,
        label: String,
        colour: &'static str,
        shape: &'static str,
    ) -> usize {
        self.boxes.push(DrawnBox {
            label,
            colour,
            shape,
            above: None,
        });
        let id = self.boxes.len() - 1;
        self.drawn.insert(item, id);
        id
    }

    /// Draws step `step` (and what is above it) once; its box.
    fn chain(&mut self, step: usize) -> usize {
        if let Some(&id) = self.drawn.get(&Item::Node(step)) {
            return id;
        }
        let above = self.g.nodes[step]
            .parent
            .map(|p| self.step_at(p))
            .map(|p| (p, self.chain(p)));
        let node = &self.g.nodes[step];
        let id = match &node.kind {
            NodeKind::Filter { name, .. } => {
                let label = name.clone().unwrap_or_else(|| "Filter".into());
                self.add(Item::Node(step), escaped(&label), "#0f9d58", "hexagon")
            }
            NodeKind::Range { .. } => {
                self.add(Item::Node(step), "Range".into(), "#9574b4", "diamond")
            }
            _ => {
                let label = self.source.clone();
                return self.add(Item::Node(step), label, "#f4b400", "ellipse");
            }
        };
        let Some((p, p_id)) = above else { return id };
        let top = match node.kind {
            NodeKind::Filter { .. } => self.definitions(id, step, p),
            _ => id,
        };
        self.boxes[top].above = Some(p_id);
        id
    }

    /// Draws the definitions node `at` sees that step `step` does not pass on, between them
    /// (below `id`, the box of what is at `at`); the box they end at (`id` if none). A
    /// definition drawn before is linked again, to what is above it here: as in ROOT's
    /// drawing, the last link made of a definition is the one drawn.
    fn definitions(&mut self, id: usize, at: usize, step: usize) -> usize {
        let passed = self.passed_on(step);
        let new: Vec<(&str, usize)> = self
            .defined_at(at)
            .into_iter()
            .filter(|(name, _)| !passed.contains(name))
            .collect();
        let mut below = id;
        for &(name, node) in new.iter().rev() {
            let d = match self.drawn.get(&Item::Node(node)) {
                Some(&d) => d,
                None => self.add(
                    Item::Node(node),
                    format!("Define\\n{}", escaped(name)),
                    "#4285f4",
                    "ellipse",
                ),
            };
            self.boxes[below].above = Some(d);
            below = d;
        }
        below
    }

    /// Draws booked result `b` (and what is above it); its box.
    fn action(&mut self, b: usize) -> usize {
        if let Some(&id) = self.drawn.get(&Item::Result(b)) {
            return id;
        }
        let booking = &self.g.bookings[b];
        let step = self.step_at(booking.node);
        let step_id = self.chain(step);
        let mut label = action_label(&booking.spec);
        if booking.variation.is_some() {
            label = format!("Varied {label}");
        }
        let (colour, label) = match self.g.results[b].is_some() {
            true => ("#e6e5e6", format!("{label}\\n(already run)")),
            false => ("#e47c7e", label),
        };
        let id = self.add(Item::Result(b), label, colour, "box");
        let top = self.definitions(id, booking.node, step);
        self.boxes[top].above = Some(step_id);
        id
    }

    /// The DOT text of the drawing from `leaves` up: each leaf's boxes up to one already
    /// written, labels first, then the edges, as RDataFrame writes them.
    fn dot(&self, leaves: &[usize]) -> String {
        let (mut labels, mut edges) = (String::new(), String::new());
        let mut written = vec![false; self.boxes.len()];
        for &leaf in leaves {
            let mut at = Some(leaf);
            while let Some(id) = at.filter(|&id| !written[id]) {
                let b = &self.boxes[id];
                labels += &format!(
                    "\t{id} [label=\"{}\", style=\"filled\", fillcolor=\"{}\", shape=\"{}\"];\n",
                    b.label, b.colour, b.shape
                );
                if let Some(above) = b.above {
                    edges += &format!("\t{above} -> {id};\n");
                }
                written[id] = true;
                at = b.above;
            }
        }
        format!("digraph {{\n{labels}{edges}}}")
    }
}

/// How RDataFrame labels a result: its class and name for histograms and profiles, its
/// action's name for the others.
fn action_label(spec: &ActionSpec) -> String {
    match spec {
        ActionSpec::Histo { name, axes, .. } => {
            format!("TH{}D\\n{}", axes.len(), escaped(name))
        }
        ActionSpec::Profile { name, axes, .. } => {
            let class = if axes.len() == 2 {
                "TProfile2D"
            } else {
                "TProfile"
            };
            format!("{class}\\n{}", escaped(name))
        }
        ActionSpec::Count => "Count".into(),
        ActionSpec::Sum(_) => "Sum".into(),
        ActionSpec::Mean(_) => "Mean".into(),
        ActionSpec::Min(_) => "Min".into(),
        ActionSpec::Max(_) => "Max".into(),
        ActionSpec::StdDev(_) => "StdDev".into(),
        ActionSpec::Take(_) | ActionSpec::TakeAsRead(_) => "Take".into(),
        ActionSpec::Report => "Report".into(),
        ActionSpec::Stats { .. } => "TStatistic\\n".into(),
        ActionSpec::Graph { errors, .. } if errors.is_empty() => "Graph".into(),
        ActionSpec::Graph { .. } => "GraphAsymmErrors".into(),
        ActionSpec::Parts(of) => action_label(of),
    }
}

/// `text` inside a DOT string: its quotes and backslashes escaped.
fn escaped(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use crate::analysis::Frame;
    use crate::array::Array;
    use crate::dataset::{Dataset, MemoryColumns, Source};
    use crate::parallel::ReadOptions;

    /// A definition is drawn where a filter or a result first sees it, a range draws none of
    /// its own, a run result is grey, and a node below draws the branch to its last filter.
    #[test]
    fn graphs_are_drawn_with_definitions_where_first_seen() {
        let columns = MemoryColumns::new(vec![("x".into(), Array::Float64(vec![1.0, 2.0]))]);
        let source = Source::in_memory(columns.unwrap());
        let df = Frame::new(Dataset::new(vec![source], ReadOptions::default()).unwrap());
        let kept = df
            .define("y", "x * 2")
            .unwrap()
            .filter("y > 2", Some("big"))
            .unwrap();
        let count = kept.define("z", "y").unwrap().count().unwrap();
        count.value().unwrap();
        let below = kept.range(0, Some(1), 1).unwrap();
        below.sum("x").unwrap();
        let box_ = |id: u32, label: &str, colour: &str, shape: &str| {
            format!("\t{id} [label=\"{label}\", style=\"filled\", fillcolor=\"{colour}\", shape=\"{shape}\"];\n")
        };
        let want = [
            box_(4, "Sum", "#e47c7e", "box"),
            box_(3, "Range", "#9574b4", "diamond"),
            box_(1, "big", "#0f9d58", "hexagon"),
            box_(2, "Define\\ny", "#4285f4", "ellipse"),
            box_(0, "RVecDS", "#f4b400", "ellipse"),
            box_(5, "Count\\n(already run)", "#e6e5e6", "box"),
            box_(6, "Define\\nz", "#4285f4", "ellipse"),
        ]
        .concat();
        let edges = "\t3 -> 4;\n\t1 -> 3;\n\t2 -> 1;\n\t0 -> 2;\n\t6 -> 5;\n\t1 -> 6;\n";
        assert_eq!(
            df.save_graph().unwrap(),
            format!("digraph {{\n{want}{edges}}}")
        );
        let branch = below.define("w", "1").unwrap().save_graph().unwrap();
        assert!(
            branch.starts_with("digraph {\n\t3 [label=\"Range\""),
            "{branch}"
        );
        assert_eq!(branch.matches("label=").count(), 4);
    }
}
