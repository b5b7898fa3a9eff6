//! The computation graph: nodes (the dataset, then transformations) and the results booked
//! on them, built lazily through [`Frame`] handles with RDataFrame's calls, and how a name
//! resolves at a node (the nearest `Define`, `Redefine` or `Alias` above it, else a column
//! of the dataset).

use std::sync::{Arc, Mutex};

use super::actions::{ActionSpec, ResultValue};
use super::column::{Column, Values};
use super::expr::Expression;
use crate::dataset::Dataset;
use crate::error::{Error, Result};

/// A Rust function computing a column from columns of a batch (the fastest path: the
/// arrays of the whole batch at once, after the filters above).
pub type ColumnFn = Arc<dyn Fn(&[Column]) -> std::result::Result<Column, String> + Send + Sync>;

/// What a sample (a source of the dataset) is, for `DefinePerSample`.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleInfo {
    /// The source's index in the dataset.
    pub index: usize,
    /// Its path or URL.
    pub path: String,
    /// The tree's or RNTuple's name, if the source names it.
    pub object: Option<String>,
}

/// How a defined column is computed.
#[derive(Clone)]
pub enum Definition {
    /// An expression of the dialect.
    Expression(Expression),
    /// A Rust function of named columns.
    Function(Vec<String>, ColumnFn),
    /// A constant per sample (`DefinePerSample`): one value per source, in its C++ type.
    PerSample(Arc<Values>),
    /// `DefaultValueFor`: `column` as above it where the source has it, else `value` (one
    /// entry, in the column's type) for every event.
    Default {
        /// The column, as named above.
        column: String,
        /// The default: an array of one entry.
        value: Arc<crate::array::Array>,
    },
    /// `FilterAvailable` (`present`) or `FilterMissing`: whether the source of the events
    /// has `column` (a column defined above is always there).
    Available {
        /// The column, as named above.
        column: String,
        /// Whether the events kept are those of sources that have it.
        present: bool,
    },
}

impl Definition {
    /// The columns it reads, as named at its node's parent.
    pub fn columns(&self) -> Vec<String> {
        match self {
            Definition::Expression(e) => e.columns(),
            Definition::Function(columns, _) => columns.clone(),
            Definition::PerSample(_) => Vec::new(),
            Definition::Default { column, .. } | Definition::Available { column, .. } => {
                vec![column.clone()]
            }
        }
    }
}

/// A node of the graph.
#[derive(Clone)]
pub enum NodeKind {
    /// The dataset.
    Root,
    /// `Define` or `Redefine` (`redefine`: the name exists above).
    Define {
        /// The column's name.
        name: String,
        /// Its definition.
        definition: Definition,
    },
    /// `Alias`: `alias` names the column `target`.
    Alias {
        /// The new name.
        alias: String,
        /// The column it names.
        target: String,
    },
    /// `Filter`: keeps the events whose condition holds; named filters appear in `Report`.
    Filter {
        /// The condition.
        condition: Definition,
        /// The name, for the cut flow.
        name: Option<String>,
    },
    /// `Vary`: other values of `columns` (per column, one definition per variation, named
    /// by `tags`) under the variation `name`; the nominal values pass through unchanged.
    Vary {
        /// The columns varied together.
        columns: Vec<String>,
        /// Per column, its value in each variation (computed from the nominal columns).
        variations: Vec<Vec<Definition>>,
        /// The variations' tags (`up`, `down`, ...).
        tags: Vec<String>,
        /// The variation's name (results of it are `name:tag`).
        name: String,
    },
    /// `Range`: the dataset's entries `begin..end`, every `stride`-th.
    Range {
        /// The first entry.
        begin: u64,
        /// One past the last (`None`: to the end).
        end: Option<u64>,
        /// The step.
        stride: u64,
    },
}

/// A node and its parent.
#[derive(Clone)]
pub struct GraphNode {
    /// What it does.
    pub kind: NodeKind,
    /// The node above (`None` for the root).
    pub parent: Option<usize>,
}

/// A booked result: its node and what it computes.
#[derive(Clone)]
pub struct Booking {
    /// The node whose events it sees.
    pub node: usize,
    /// What it computes.
    pub spec: ActionSpec,
    /// The variation it is computed in (its name and tag), `None`: nominal.
    pub variation: Option<(String, String)>,
    /// Whether `SaveGraph` draws it: all but the second and later variations one
    /// `VariationsFor` books, which RDataFrame draws as one result.
    pub drawn: bool,
}

/// A graph: its dataset, nodes, booked results, and their values once run.
pub struct Graph {
    /// The dataset it runs over (of a graph made by `Cache`, until its first run, a
    /// stand-in of its columns without entries: see [`Graph::cached`]).
    pub dataset: Arc<Dataset>,
    /// Of a graph made by `Cache`, until its first run: how to make its dataset (running
    /// the cached graph if it has not run since the columns were booked).
    pub cached: Option<super::cache::CachedColumns>,
    /// Whether `Cache` made it (its data source is ROOT's `LazyDS`).
    pub from_cache: bool,
    /// The nodes; 0 is the root.
    pub nodes: Vec<GraphNode>,
    /// The booked results, in booking order.
    pub bookings: Vec<Booking>,
    /// The results of the runs so far (`None` for those booked since): each value, or the
    /// message of the error that ended its run (a later run computes only what was booked
    /// after, as ROOT's does).
    pub results: Vec<Option<std::result::Result<ResultValue, String>>>,
    /// How many times the graph has run.
    pub runs: usize,
    /// The dataset's columns, once looked up: every one a graph may read, and those
    /// `GetColumnNames` lists.
    pub inputs: Option<(Names, Names)>,
    /// The dataset's first source, once opened: what the graph asks of the dataset before
    /// a run (its columns, their types) comes from one opening.
    pub first_source: Option<Arc<crate::dataset::AnyReader>>,
    /// The source whose columns the graph knows, if not the dataset's first (see
    /// [`Frame::with_schema`]).
    pub schema: Option<crate::dataset::Source>,
    /// Defined columns over no events (their types, or why they have none yet), by node and
    /// by whether function columns were computed: a chain of definitions is evaluated once,
    /// not once per expression made on it. Cleared when the graph's schema changes.
    pub probed: std::collections::HashMap<(usize, bool), std::result::Result<Column, String>>,
    /// Whether runs find their number of batches first (for a progress bar).
    pub watched: bool,
    /// The run in progress, if any.
    pub live: Option<Arc<super::run::Live>>,
    /// How far the last run that ended got (a progress bar's final state).
    pub last_progress: Option<super::run::Progress>,
}

impl Graph {
    /// Where `name` comes from, seen from `node` (see [`resolve`]).
    pub fn resolve(&self, node: usize, name: &str) -> (Option<usize>, String) {
        resolve(&self.nodes, node, name, None)
    }
}

/// Where `name` comes from, seen from `node` in `variation` (`None`: nominal): the node that
/// defines it (a `Define`, or a `Vary` of the variation's name with its tag; with the name it
/// has there, after aliases), or `None` for a column of the dataset.
pub fn resolve(
    nodes: &[GraphNode],
    node: usize,
    name: &str,
    variation: Option<&(String, String)>,
) -> (Option<usize>, String) {
    let mut name = name.to_string();
    let mut at = Some(node);
    while let Some(n) = at {
        match &nodes[n].kind {
            NodeKind::Define { name: defined, .. } if *defined == name => return (Some(n), name),
            NodeKind::Vary {
                columns,
                name: varied,
                tags,
                ..
            } if columns.contains(&name)
                && variation.is_some_and(|(v, tag)| v == varied && tags.contains(tag)) =>
            {
                return (Some(n), name)
            }
            NodeKind::Alias { alias, target } if *alias == name => name = target.clone(),
            _ => {}
        }
        at = nodes[n].parent;
    }
    (None, name)
}

/// Column names, shared.
pub type Names = Arc<Vec<String>>;

/// A handle on a node of a graph, with RDataFrame's calls: transformations return a new
/// handle; results are booked, and all of them computed together when the first is asked
/// for.
#[derive(Clone)]
pub struct Frame {
    pub(crate) graph: Arc<Mutex<Graph>>,
    pub(crate) node: usize,
}

/// A result booked on a graph: its value once the graph has run (running it, with every
/// result booked so far, if needed).
#[derive(Clone)]
pub struct Booked {
    pub(crate) graph: Arc<Mutex<Graph>>,
    pub(crate) id: usize,
}

pub(crate) fn invalid(message: String) -> Error {
    Error::InvalidArgument(message)
}

/// An expression parsed, or an error naming it and the position.
pub fn expression(text: &str) -> Result<Expression> {
    Expression::parse(text).map_err(|e| {
        invalid(format!(
            "expression '{text}' does not parse at position {}: {}",
            e.pos, e.message
        ))
    })
}

impl Frame {
    /// A graph over `dataset` (RDataFrame's constructor).
    pub fn new(dataset: Dataset) -> Frame {
        Frame {
            graph: Arc::new(Mutex::new(Graph {
                dataset: Arc::new(dataset),
                cached: None,
                from_cache: false,
                nodes: vec![GraphNode {
                    kind: NodeKind::Root,
                    parent: None,
                }],
                bookings: Vec::new(),
                results: Vec::new(),
                runs: 0,
                inputs: None,
                first_source: None,
                schema: None,
                probed: std::collections::HashMap::new(),
                watched: false,
                live: None,
                last_progress: None,
            })),
            node: 0,
        }
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Graph> {
        self.graph.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn child(&self, kind: NodeKind) -> Frame {
        let mut g = self.lock();
        g.nodes.push(GraphNode {
            kind,
            parent: Some(self.node),
        });
        Frame {
            graph: self.graph.clone(),
            node: g.nodes.len() - 1,
        }
    }

    fn defined_above(&self, name: &str) -> bool {
        self.lock().resolve(self.node, name).0.is_some()
    }

    /// The column an `Alias` of this name above this node names, if there is one.
    fn aliased(&self, name: &str) -> Option<String> {
        let g = self.lock();
        std::iter::successors(Some(self.node), |&n| g.nodes[n].parent).find_map(|n| {
            match &g.nodes[n].kind {
                NodeKind::Alias { alias, target } if alias == name => Some(target.clone()),
                _ => None,
            }
        })
    }

    /// An error if `name` is an alias: as RDataFrame, an alias cannot be defined, redefined
    /// or varied (`call` names the call).
    fn not_an_alias(&self, call: &str, name: &str) -> Result<()> {
        match self.aliased(name) {
            Some(target) => Err(invalid(format!(
                "{call}: '{name}' is an alias (of '{target}'); aliases cannot be defined, \
                 redefined or varied"
            ))),
            None => Ok(()),
        }
    }

    /// This graph knowing the columns of `schema` (their names and types) instead of its
    /// dataset's first source's: a graph over a partition of a larger dataset knows the
    /// columns of the whole dataset's first source, as the graph over all of it does, even
    /// where the partition's own first file lacks some (see [`Frame::default_value_for`]).
    pub fn with_schema(self, schema: crate::dataset::Source) -> Frame {
        {
            let mut g = self.lock();
            g.schema = Some(schema);
            g.first_source = None;
            g.inputs = None;
            g.probed.clear();
        }
        self
    }

    /// `Define(name, expression)`: a new column. Defining a name that exists is an error
    /// (use [`Frame::redefine`]).
    pub fn define(&self, name: &str, expr: &str) -> Result<Frame> {
        let e = expression(expr)?;
        self.check_columns(&e.columns(), &format!("expression '{expr}'"))?;
        self.check_types(&e)?;
        self.new_column(name, Definition::Expression(e), false)
    }

    /// `Define(name, f, columns)`: a new column computed by a Rust function of whole
    /// batches of the named columns.
    pub fn define_with(&self, name: &str, columns: &[&str], f: ColumnFn) -> Result<Frame> {
        let columns: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
        self.check_columns(&columns, &format!("Define '{name}'"))?;
        self.new_column(name, Definition::Function(columns, f), false)
    }

    /// `Redefine(name, expression)`: a new value for an existing column, from here down.
    pub fn redefine(&self, name: &str, expr: &str) -> Result<Frame> {
        let e = expression(expr)?;
        self.check_columns(&e.columns(), &format!("expression '{expr}'"))?;
        self.check_types(&e)?;
        self.new_column(name, Definition::Expression(e), true)
    }

    /// `DefinePerSample(name, f)`: a constant per sample (source), computed once per
    /// source before the run (a cross-section weight, a luminosity), as a `double`.
    pub fn define_per_sample(&self, name: &str, f: impl Fn(&SampleInfo) -> f64) -> Result<Frame> {
        let values = {
            let g = self.lock();
            g.dataset
                .sources()
                .iter()
                .enumerate()
                .map(|(index, s)| {
                    f(&SampleInfo {
                        index,
                        path: s.path.display().to_string(),
                        object: s.object.clone(),
                    })
                })
                .collect()
        };
        self.define_per_sample_values(name, Values::F64(values))
    }

    /// `DefinePerSample(name, ...)` from each source's value, in the sources' order, in the
    /// C++ type the values have (ROOT's `rdfsampleinfo_.GetI("n")` makes an `int` column).
    pub fn define_per_sample_values(&self, name: &str, values: Values) -> Result<Frame> {
        let sources = self.lock().dataset.sources().len();
        if values.len() != sources {
            return Err(invalid(format!(
                "DefinePerSample '{name}': {} values for {sources} samples",
                values.len()
            )));
        }
        if matches!(values, Values::P4(_) | Values::Vectors(..)) {
            return Err(invalid(format!(
                "DefinePerSample '{name}': vectors are not a value per sample"
            )));
        }
        self.new_column(name, Definition::PerSample(Arc::new(values)), false)
    }

    fn new_column(&self, name: &str, definition: Definition, redefine: bool) -> Result<Frame> {
        if !is_identifier(name) {
            return Err(invalid(format!("'{name}' is not a valid column name")));
        }
        if super::special::special(name) {
            return Err(invalid(format!(
                "'{name}' is a special column of the event loop and cannot be defined"
            )));
        }
        self.not_an_alias(if redefine { "Redefine" } else { "Define" }, name)?;
        let exists = self.defined_above(name) || self.is_input(name)?;
        match (exists, redefine) {
            (true, false) => {
                return Err(invalid(format!(
                    "Define: column '{name}' already exists (use Redefine)"
                )))
            }
            (false, true) => {
                return Err(invalid(format!(
                    "Redefine: there is no column '{name}' to redefine"
                )))
            }
            _ => {}
        }
        Ok(self.child(NodeKind::Define {
            name: name.to_string(),
            definition,
        }))
    }

    fn is_input(&self, name: &str) -> Result<bool> {
        Ok(self.input_names()?.iter().any(|n| n == name))
    }

    /// Every column of the dataset (its first source's) a graph may read, looked up once
    /// (see [`AnyReader::readable_names`](crate::dataset::AnyReader::readable_names)).
    pub fn input_names(&self) -> Result<Arc<Vec<String>>> {
        Ok(self.dataset_names()?.0)
    }

    /// The dataset's columns as `GetColumnNames` lists them (see
    /// [`AnyReader::column_names`](crate::dataset::AnyReader::column_names)), looked up once.
    pub(crate) fn listed_names(&self) -> Result<Arc<Vec<String>>> {
        Ok(self.dataset_names()?.1)
    }

    /// The readable and the listed columns of the dataset's first source, from one opening.
    fn dataset_names(&self) -> Result<(Names, Names)> {
        if let Some(names) = &self.lock().inputs {
            return Ok(names.clone());
        }
        let names = match self.first_source()? {
            None => (Arc::new(Vec::new()), Arc::new(Vec::new())),
            Some(reader) => (
                Arc::new(reader.readable_names()),
                Arc::new(reader.column_names()),
            ),
        };
        self.lock().inputs = Some(names.clone());
        Ok(names)
    }

    /// The dataset's first source, opened once for the graph (`None` for no sources).
    pub(crate) fn first_source(&self) -> Result<Option<Arc<crate::dataset::AnyReader>>> {
        if let Some(reader) = &self.lock().first_source {
            return Ok(Some(reader.clone()));
        }
        let (dataset, schema) = {
            let g = self.lock();
            (g.dataset.clone(), g.schema.clone())
        };
        let reader = match (schema, dataset.sources().is_empty()) {
            (Some(schema), _) => Arc::new(dataset.open_source(&schema)?),
            (None, true) => return Ok(None),
            (None, false) => Arc::new(dataset.open(0)?),
        };
        self.lock().first_source = Some(reader.clone());
        Ok(Some(reader))
    }

    /// The entry ranges of each source's batches, as a run reads them (opens every source's
    /// metadata): where the partitions of a distributed run can start and end so that they
    /// read, between them, the batches one run reads.
    pub fn batch_ranges(&self) -> Result<Vec<Vec<std::ops::Range<u64>>>> {
        super::cache::fill_cached(&self.graph)?;
        let dataset = self.lock().dataset.clone();
        dataset.batch_ranges(super::run::STEP)
    }

    /// Checks that every column of `columns` is known here (defined above or read), as
    /// RDataFrame checks them when a node is made: `what` names the user of the columns.
    pub(crate) fn check_columns(&self, columns: &[String], what: &str) -> Result<()> {
        let inputs = self.input_names()?;
        for c in columns {
            let known = match self.lock().resolve(self.node, c) {
                (Some(_), _) => true,
                (None, name) => super::special::builtin(&name) || inputs.contains(&name),
            };
            if !known {
                return Err(invalid(format!(
                    "{what}: unknown column '{c}': neither defined above nor in the dataset"
                )));
            }
        }
        Ok(())
    }

    /// `Alias(alias, column)`: another name for a column (an alias of an alias names its
    /// column); the name must be new, as RDataFrame requires.
    pub fn alias(&self, alias: &str, column: &str) -> Result<Frame> {
        if !is_identifier(alias) {
            return Err(invalid(format!("'{alias}' is not a valid column name")));
        }
        self.not_an_alias("Alias", alias)?;
        if self.defined_above(alias) || self.is_input(alias)? {
            return Err(invalid(format!("Alias: column '{alias}' already exists")));
        }
        // An alias of an alias names what that one names.
        let (defined, target) = self.lock().resolve(self.node, column);
        if defined.is_none() && !super::special::special(&target) && !self.is_input(&target)? {
            return Err(invalid(format!("Alias: there is no column '{column}'")));
        }
        Ok(self.child(NodeKind::Alias {
            alias: alias.to_string(),
            target: column.to_string(),
        }))
    }

    /// `Filter(expression, name)`: keeps the events whose condition holds (named filters
    /// are counted in [`Frame::report`]). As in RDataFrame, the condition is a `bool`.
    pub fn filter(&self, expr: &str, name: Option<&str>) -> Result<Frame> {
        let e = expression(expr)?;
        self.check_columns(&e.columns(), &format!("expression '{expr}'"))?;
        if let Some(ty) = self.check_types(&e)?.filter(|t| t != "bool") {
            return Err(invalid(format!(
                "Filter: expression '{expr}' is of type {ty}, not bool"
            )));
        }
        Ok(self.child(NodeKind::Filter {
            condition: Definition::Expression(e),
            name: name.map(str::to_string),
        }))
    }

    /// `Filter(f, columns, name)` with a Rust function returning a boolean per event.
    pub fn filter_with(&self, columns: &[&str], f: ColumnFn, name: Option<&str>) -> Result<Frame> {
        let columns: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
        self.check_columns(&columns, "Filter")?;
        Ok(self.child(NodeKind::Filter {
            condition: Definition::Function(columns, f),
            name: name.map(str::to_string),
        }))
    }

    /// `Range(begin, end, stride)`: of the events reaching this node, numbered in dataset
    /// order from 0 (the dataset's entries, all its files in order, directly on it), those
    /// from `begin` to `end`, every `stride`-th, as RDataFrame's `Range` counts them. Below
    /// a `Filter` or another `Range`, the count runs over chunks and batches, so a run of
    /// the graph takes its batches one at a time, in order (RDataFrame allows such a `Range`
    /// on one thread only); directly on the dataset, batches still run side by side.
    pub fn range(&self, begin: u64, end: Option<u64>, stride: u64) -> Result<Frame> {
        if stride == 0 || end.is_some_and(|e| e < begin) {
            return Err(invalid(format!(
                "Range({begin}, {end:?}, {stride}): the stride must be positive and end >= begin"
            )));
        }
        Ok(self.child(NodeKind::Range { begin, end, stride }))
    }

    /// Books a result on this node.
    pub fn book(&self, spec: ActionSpec) -> Result<Booked> {
        spec.check()?;
        self.check_columns(&spec.columns(), "a result")?;
        let spec = match spec {
            ActionSpec::Take(c) if self.taken_as_read(&c)?.is_some() => ActionSpec::TakeAsRead(c),
            spec => spec,
        };
        if !matches!(spec, ActionSpec::TakeAsRead(_)) {
            let numbers = !matches!(spec, ActionSpec::Take(_));
            self.check_result_columns(&spec.columns(), numbers)?;
        }
        if let ActionSpec::Graph { .. } = &spec {
            let columns = spec.columns();
            let known: Vec<bool> = columns.iter().filter_map(|c| self.holds_lists(c)).collect();
            if known.iter().any(|&l| l != known[0]) {
                return Err(invalid(format!(
                    "a graph of columns {columns:?}: lists and numbers (all or none must be lists)"
                )));
            }
        }
        let mut g = self.lock();
        g.bookings.push(Booking {
            node: self.node,
            spec,
            variation: None,
            drawn: true,
        });
        g.results.push(None);
        Ok(Booked {
            graph: self.graph.clone(),
            id: g.bookings.len() - 1,
        })
    }

    /// `Vary(column, expression, tags, name)`: the values of `column` in each variation of
    /// `name`, given as a braced list of one expression per tag (`"{pt * 0.9, pt * 1.1}"`, or
    /// `ROOT::RVecD{...}`). Results booked below, given to [`Frame::variations_for`], are
    /// computed in every variation in the same pass.
    pub fn vary(&self, column: &str, expr: &str, tags: &[&str], name: &str) -> Result<Frame> {
        self.vary_columns(&[column], expr, tags, name)
    }

    /// `Vary({columns}, expression, tags, name)`: several columns varied together, the
    /// expression a braced list per column of one value per tag (`"{{pt * 0.9, pt * 1.1},
    /// {m * 0.9, m * 1.1}}"`), every value computed from the nominal columns, as RDataFrame
    /// computes them. One column takes the single list [`Frame::vary`] takes.
    pub fn vary_columns(
        &self,
        columns: &[&str],
        expr: &str,
        tags: &[&str],
        name: &str,
    ) -> Result<Frame> {
        let e = expression(expr)?;
        self.check_columns(&e.columns(), &format!("expression '{expr}'"))?;
        for (k, column) in columns.iter().enumerate() {
            if super::special::special(column) {
                return Err(invalid(format!(
                    "Vary: '{column}' is a special column of the event loop and cannot vary"
                )));
            }
            self.not_an_alias("Vary", column)?;
            if !self.defined_above(column) && !self.is_input(column)? {
                return Err(invalid(format!("Vary: there is no column '{column}'")));
            }
            if columns[..k].contains(column) {
                return Err(invalid(format!("Vary: column '{column}' given twice")));
            }
        }
        if columns.is_empty() || tags.is_empty() {
            return Err(invalid("Vary: no column or no tag".into()));
        }
        // A list written twice (`{{x}, {x}}`) is one part shared by both places.
        fn braced(node: &super::expr::Node) -> Option<Vec<super::expr::Node>> {
            match &node.kind {
                super::expr::Kind::Call(f, args) if f == "{}" => Some(args.clone()),
                super::expr::Kind::Shared(_, inner) => braced(inner),
                _ => None,
            }
        }
        let not_braced = || {
            invalid(format!(
                "Vary: expression '{expr}' must be a braced list of the variations' values \
                 (a list of such lists for several columns)"
            ))
        };
        let outer = braced(&e.tree).ok_or_else(not_braced)?;
        let per_column = if columns.len() == 1 {
            vec![outer]
        } else {
            if outer.len() != columns.len() {
                return Err(invalid(format!(
                    "Vary: {} lists of values for {} columns",
                    outer.len(),
                    columns.len()
                )));
            }
            outer
                .iter()
                .map(|list| braced(list).ok_or_else(not_braced))
                .collect::<Result<Vec<_>>>()?
        };
        let mut variations = Vec::with_capacity(columns.len());
        for parts in per_column {
            if parts.len() != tags.len() {
                return Err(invalid(format!(
                    "Vary: {} values for {} tags",
                    parts.len(),
                    tags.len()
                )));
            }
            variations.push(
                parts
                    .into_iter()
                    .map(|tree| {
                        Definition::Expression(super::expr::Expression {
                            text: expr.to_string(),
                            tree,
                        })
                    })
                    .collect(),
            );
        }
        Ok(self.child(NodeKind::Vary {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            variations,
            tags: tags.iter().map(|t| t.to_string()).collect(),
            name: name.to_string(),
        }))
    }

    /// `VariationsFor(result)`: the result in every variation of the `Vary`s above its node
    /// that change it (a column it reads, or a filter above it, depends on a varied column,
    /// as RDataFrame finds them), booked alongside it: `("nominal", result)`, then
    /// `("name:tag", ...)` sorted as RDataFrame sorts them, a histogram, profile or graph in it
    /// named `<its name>_name_tag`. `Vary`s of one name vary together, tag by tag: a tag one
    /// of them lacks leaves its columns nominal there, as in RDataFrame.
    pub fn variations_for(booked: &Booked) -> Result<Vec<(String, Booked)>> {
        let mut g = booked.graph.lock().unwrap_or_else(|p| p.into_inner());
        let base = g.bookings[booked.id].clone();
        let mut found: Vec<(String, String)> = Vec::new();
        let mut at = Some(base.node);
        while let Some(n) = at {
            if let NodeKind::Vary { name, tags, .. } = &g.nodes[n].kind {
                for tag in tags {
                    let variation = (name.clone(), tag.clone());
                    if !found.contains(&variation) {
                        found.push(variation);
                    }
                }
            }
            at = g.nodes[n].parent;
        }
        found.retain(|variation| {
            let mut affected = super::varied::Affected::new(&g.nodes, variation.clone());
            affected.selection(base.node)
                || (base.spec.columns().iter()).any(|c| affected.column(base.node, c))
        });
        found.sort_by_key(|(name, tag)| format!("{name}:{tag}"));
        let mut out = vec![("nominal".to_string(), booked.clone())];
        for (k, (name, tag)) in found.into_iter().enumerate() {
            let key = format!("{name}:{tag}");
            g.bookings.push(Booking {
                node: base.node,
                spec: base.spec.in_variation(&key),
                variation: Some((name, tag)),
                drawn: k == 0,
            });
            g.results.push(None);
            let id = g.bookings.len() - 1;
            let graph = booked.graph.clone();
            out.push((key, Booked { graph, id }));
        }
        Ok(out)
    }

    /// Runs the graph's pending results now, calling `watch` after each batch with the
    /// progress (results merged so far can be looked at from it with [`Booked::so_far`]).
    pub fn run(&self, watch: Option<&(dyn Fn(super::run::Progress) + Sync)>) -> Result<()> {
        super::run::run(&self.graph, watch)
    }

    /// Makes runs of this graph find their number of batches first, so that their progress
    /// says how far they are ([`Frame::progress`]): a progress bar's total.
    pub fn watch(&self) {
        self.lock().watched = true;
    }

    /// The progress of the run in progress, if one is.
    pub fn progress(&self) -> Option<super::run::Progress> {
        let live = self.lock().live.clone();
        live.map(|l| l.progress())
    }

    /// The progress of the last run when it ended (all its batches, for a bar drawn after
    /// a run too short to be seen in progress); `None` before the first run ends, and after
    /// a failed one.
    pub fn last_progress(&self) -> Option<super::run::Progress> {
        self.lock().last_progress
    }

    /// How many times the graph ran (each run computes every result booked before it).
    pub fn runs(&self) -> usize {
        self.lock().runs
    }

    /// `GetNSlots()`: the slots of the event loop (its threads), of which `rdfslot_` names
    /// one.
    pub fn slots(&self) -> usize {
        self.lock().dataset.slots()
    }
}

/// `RunGraphs`: computes the results of every graph `results` belong to (one graph per
/// sample, say) in one loop over all their files; returns how many graphs it ran.
pub fn run_graphs(results: &[&Booked]) -> Result<usize> {
    let graphs: Vec<&Arc<Mutex<Graph>>> = results.iter().map(|b| &b.graph).collect();
    super::run::run_graphs(&graphs)
}

impl Booked {
    /// The result, running the graph (every result booked on it) if needed.
    pub fn value(&self) -> Result<ResultValue> {
        let pending = {
            let g = self.graph.lock().unwrap_or_else(|p| p.into_inner());
            g.results[self.id].is_none()
        };
        if pending {
            super::run::run(&self.graph, None)?;
        }
        let g = self.graph.lock().unwrap_or_else(|p| p.into_inner());
        match g.results[self.id].clone() {
            Some(Ok(value)) => Ok(value),
            Some(Err(message)) => Err(invalid(format!("the run of this result failed: {message}"))),
            None => Err(invalid("the result was not computed".into())),
        }
    }

    /// The result merged so far while the graph runs (the live view: batches added in
    /// dataset order), the result once done, `None` before its run starts.
    pub fn so_far(&self) -> Option<Result<ResultValue>> {
        let (done, live) = {
            let g = self.graph.lock().unwrap_or_else(|p| p.into_inner());
            (g.results[self.id].clone(), g.live.clone())
        };
        match (done, live) {
            (Some(Ok(v)), _) => Some(Ok(v)),
            (Some(Err(message)), _) => Some(Err(invalid(format!(
                "the run of this result failed: {message}"
            )))),
            (None, Some(live)) => live.so_far(self.id),
            (None, None) => None,
        }
    }

    /// Whether the result is there (the graph ran since it was booked, or its run failed).
    pub fn is_ready(&self) -> bool {
        let g = self.graph.lock().unwrap_or_else(|p| p.into_inner());
        g.results[self.id].is_some()
    }
}

/// Whether `name` is a C++ identifier (a column name must be one to be used in
/// expressions).
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
