//! Running a graph: the columns its pending results need (and only those) read once, batch
//! by batch on the dataset's threads; every pending result filled from each batch into a
//! partial of its own; partials added in dataset order as soon as all before them are in,
//! so results have the same bits for any thread count and timing.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use super::actions::{fill, ActionSpec, Partial};
use super::batch::{BatchState, Plan};
use super::column::Column;
use super::column_type::{c_string_leaf, reads_long_or_signed_char, reads_points, split_objects};
use super::graph::{Definition, Graph, NodeKind};
use super::slot_cells::SlotCells;
use crate::array::Array;
use crate::dataset::{Fields, InOrder, Unit};
use crate::error::{Error, Result};

/// The entries of each batch: whole clusters of at least this many, fixed so that results
/// never depend on the number of threads.
pub const STEP: u64 = crate::fill::FILL_STEP;

/// How far a run is: batches done of those known so far, and events read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Batches whose partials are in.
    pub batches: usize,
    /// Entries of the dataset read.
    pub entries: u64,
    /// The batches of the whole run, when the graph is watched (found before the run).
    pub total_batches: Option<usize>,
}

/// A run in progress, as others may look at it: its progress and the partials of its
/// results added so far, in dataset order (the live view of a running graph).
pub struct Live {
    ordered: Mutex<InOrder<Vec<Partial>>>,
    /// The cells of unweighted histograms, per slot (the ordered partials hold the rest).
    cells: SlotCells,
    progress: Mutex<Progress>,
    pending: Vec<usize>,
    bookings: Vec<super::graph::Booking>,
    filter_names: Vec<Vec<String>>,
}

impl Live {
    /// The progress so far.
    pub fn progress(&self) -> Progress {
        *self.progress.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Result `id` (a booking of the graph) merged so far, if this run computes it.
    pub fn so_far(&self, id: usize) -> Option<Result<super::actions::ResultValue>> {
        let k = self.pending.iter().position(|&b| b == id)?;
        let spec = &self.bookings[id].spec;
        let mut partial = {
            let ordered = self.ordered.lock().unwrap_or_else(|p| p.into_inner());
            match ordered.so_far() {
                Some(t) => t[k].clone(),
                None => Partial::new(spec, self.filter_names[k].len()),
            }
        };
        if let (true, Some(cells)) = (self.cells.keeps(k), partial.cells_mut()) {
            *cells = self.cells.merged(k);
        }
        Some(partial.finish(spec, &self.filter_names[k]))
    }
}

/// The events of a batch evaluated together: the columns a graph computes for so many
/// events stay in the processor's caches, and their memory is reused from chunk to chunk
/// instead of being mapped afresh for every batch.
pub const CHUNK: usize = 4096;

/// Something done with every batch besides filling results (a snapshot's writing): given
/// the arrays it asks of each chunk of a batch, then the batch's, with the pool slot
/// running it and the batch's place in the dataset's order.
pub trait BatchSink: Sync {
    /// The node whose events it takes, and the columns it needs there.
    fn needs(&self) -> (usize, Vec<String>);
    /// The arrays it takes of one chunk of a batch.
    fn arrays(&self, state: &mut BatchState) -> Result<Vec<Array>>;
    /// Takes batch number `sequence` (in dataset order), its chunks' arrays joined, on
    /// pool slot `slot`.
    fn batch(&self, slot: usize, sequence: u64, arrays: Vec<Array>) -> Result<()>;
}

/// Runs the graph's pending results (those booked since its last run); `watch` is called
/// after each batch with the progress so far.
pub fn run(graph: &Arc<Mutex<Graph>>, watch: Option<&(dyn Fn(Progress) + Sync)>) -> Result<()> {
    run_with(graph, watch, &[])
}

/// [`run`], also handing every batch to each of `sinks` (which run even without pending
/// results): several snapshots and the results in one pass.
pub fn run_with(
    graph: &Arc<Mutex<Graph>>,
    watch: Option<&(dyn Fn(Progress) + Sync)>,
    sinks: &[&dyn BatchSink],
) -> Result<()> {
    super::cache::fill_cached(graph)?;
    let Some(prepared) = Prepared::new(graph, sinks)? else {
        return Ok(());
    };
    let (needed, optional) = prepared.field_names();
    let fields = Fields::exactly(&needed, &optional);
    let consume =
        |slot, unit, arrays: &[(String, Array)]| prepared.consume(slot, unit, arrays, sinks, watch);
    let exhausted = || prepared.exhausted();
    let looped = match prepared.in_order {
        true => prepared
            .dataset
            .for_each_unit_in_order(&exhausted, |_| fields, STEP, consume),
        false => prepared.dataset.for_each_unit_of(|_| fields, STEP, consume),
    };
    prepared.finish(graph, looped)
}

/// Runs the pending results of several graphs (ROOT's `RunGraphs`: one graph per sample)
/// in ONE loop over all their files, on the first graph's threads: each batch is read for
/// the graph whose file it is, and each graph's results are added in its own dataset's
/// order, so they have the bits of running the graphs one by one. Returns how many graphs
/// had results to compute (a graph given twice counts once).
pub fn run_graphs(graphs: &[&Arc<Mutex<Graph>>]) -> Result<usize> {
    let mut unique: Vec<&Arc<Mutex<Graph>>> = Vec::new();
    for g in graphs {
        if !unique.iter().any(|u| Arc::ptr_eq(u, g)) {
            unique.push(g);
        }
    }
    // Cached columns first: their graphs may be among these, and run before being prepared.
    for graph in &unique {
        super::cache::fill_cached(graph)?;
    }
    let mut prepared = Vec::new();
    for graph in unique {
        match Prepared::new(graph, &[]) {
            Ok(Some(p)) => prepared.push((graph, p)),
            Ok(None) => {}
            Err(e) => {
                prepared.into_iter().for_each(|(g, p)| p.abandon(g));
                return Err(e);
            }
        }
    }
    let datasets: Vec<&crate::dataset::Dataset> =
        prepared.iter().map(|(_, p)| &*p.dataset).collect();
    let Some(chained) = crate::dataset::Dataset::chain(&datasets) else {
        return Ok(0);
    };
    // The graph of each source of the chain, and the source's number in that graph.
    let owner: Vec<(usize, usize)> = prepared
        .iter()
        .enumerate()
        .flat_map(|(g, (_, p))| (0..p.dataset.sources().len()).map(move |i| (g, i)))
        .collect();
    let fields: Vec<(Vec<&str>, Vec<&str>)> =
        prepared.iter().map(|(_, p)| p.field_names()).collect();
    let consume = |slot, unit: Unit, arrays: &[(String, Array)]| {
        let (g, own) = owner[unit.source];
        let unit = Unit {
            source: own,
            ..unit
        };
        prepared[g].1.consume(slot, unit, arrays, &[], None)
    };
    let fields_of = |source: usize| {
        let (needed, optional) = &fields[owner[source].0];
        Fields::exactly(needed, optional)
    };
    let looped = match prepared.iter().any(|(_, p)| p.plan.in_order()) {
        true => chained.for_each_unit_in_order(&|| false, fields_of, STEP, consume),
        false => chained.for_each_unit_of(fields_of, STEP, consume),
    };
    let runs = prepared.len();
    match looped {
        Ok(()) => {
            for (graph, p) in prepared {
                p.finish(graph, Ok(()))?;
            }
            Ok(runs)
        }
        Err(e) => {
            // Which graph failed is not known: every graph's results stay to compute.
            prepared.into_iter().for_each(|(g, p)| p.abandon(g));
            Err(e)
        }
    }
}

/// One graph's run, made ready: what it computes, the columns it reads, and the results
/// merged so far. [`run_with`] loops over its dataset; `RunGraphs` over several at once.
pub(crate) struct Prepared {
    plan: Plan,
    bookings: Vec<super::graph::Booking>,
    pending: Vec<usize>,
    /// The graph's dataset.
    pub(crate) dataset: Arc<crate::dataset::Dataset>,
    inputs: Vec<String>,
    /// The columns read where a source has them (see [`super::missing`]).
    optional: Vec<String>,
    /// The dataset-wide number of each source's first entry read (zeros without a `Range`).
    starts: Vec<u64>,
    /// The number within its file of each source's first entry read (zeros without a
    /// `Range`).
    skipped: Vec<u64>,
    /// The dataset-wide number of each source's first batch (for a sink).
    first_batch: Vec<u64>,
    filters: Vec<Vec<usize>>,
    /// The distinct columns results fill from (variation, node, name), found once.
    fill_keys: Vec<FillKey>,
    /// Per pending result, its columns' places in `fill_keys`.
    fills_of: Vec<Vec<usize>>,
    /// Per fill key, whether its column is taken as read (see [`ActionSpec::TakeAsRead`]).
    as_read: Vec<bool>,
    /// Per pending result taking a column as read, that column's type as an empty array:
    /// its value when no batch is run.
    empty_as_read: Vec<Option<Array>>,
    filter_names: Vec<Vec<String>>,
    live: Arc<Live>,
    /// Per counted `Range` node, the events that reached the node above it so far (see
    /// [`Plan::counted`]; the run takes the batches in order then).
    reached: Mutex<Vec<u64>>,
    /// Per consumer of the event loop (pending result, sink, last named filter: see
    /// [`last_named_filters`]), the `Range` nodes with an end above it: when every one has
    /// a range that has ended, the rest of the dataset changes nothing.
    limits: Vec<Vec<usize>>,
    /// Per `Range` node with an end, once known, the dataset entries up to the event that
    /// ends it (a range on the dataset knows it from the start; a counted one when the
    /// chunk holding that event is run).
    ends: Mutex<Vec<Option<u64>>>,
    /// Whether every consumer has a `Range` with an end above it, so that the run may stop
    /// before the end of the dataset.
    stoppable: bool,
    /// The dataset-wide entries taken so far (the run in order).
    entries_done: std::sync::atomic::AtomicU64,
    /// Whether the run takes its batches one at a time, in order: for `Range`s counting a
    /// filter's events, or to stop once every result's `Range` has ended.
    pub(crate) in_order: bool,
}

impl Prepared {
    /// The run of `graph`'s pending results (and of `sinks`); `None` when there is nothing
    /// to compute. Checks that every column it reads is in the dataset.
    pub(crate) fn new(
        graph: &Arc<Mutex<Graph>>,
        sinks: &[&dyn BatchSink],
    ) -> Result<Option<Prepared>> {
        let has_sink = !sinks.is_empty();
        let extra: Vec<(usize, Vec<String>)> = sinks.iter().map(|s| s.needs()).collect();
        let (mut plan, bookings, pending, dataset, watched) = {
            let g = graph.lock().unwrap_or_else(|p| p.into_inner());
            let pending: Vec<usize> = (0..g.bookings.len())
                .filter(|&i| g.results[i].is_none())
                .collect();
            let plan = Plan::new(g.nodes.clone());
            (
                plan,
                g.bookings.clone(),
                pending,
                g.dataset.clone(),
                g.watched,
            )
        };
        if pending.is_empty() && !has_sink {
            return Ok(None);
        }
        let varied_below_count = pending
            .iter()
            .filter(|&&b| bookings[b].variation.is_some())
            .any(|&b| plan.lineage(bookings[b].node).any(|n| plan.counted[n]));
        if varied_below_count {
            return Err(Error::InvalidArgument(
                "VariationsFor below a Range that counts a Filter's or a Range's events: \
                 not supported"
                    .into(),
            ));
        }
        // The event loop's consumers: the results, the sinks, and, when a cut flow counts
        // what the loop takes, the named filters (see `last_named_filters`); each is done
        // once a `Range` above it has ended. Without a `Report`, no count shows whether the
        // loop went on for a named filter, so the run stops as soon as its results are done.
        let sink_nodes: Vec<usize> = extra.iter().map(|(node, _)| *node).collect();
        let consumers: Vec<usize> = pending.iter().map(|&b| bookings[b].node).collect();
        let reported = pending
            .iter()
            .any(|&b| matches!(bookings[b].spec, ActionSpec::Report));
        let last_filters: Vec<usize> = match reported {
            true => last_named_filters(&plan, &consumers).collect(),
            false => Vec::new(),
        };
        let limits: Vec<Vec<usize>> = consumers
            .iter()
            .copied()
            .chain(sink_nodes.iter().copied())
            .chain(last_filters.iter().copied())
            .map(|node| ranges_ending_above(&plan, node))
            .collect();
        let stoppable = limits.iter().all(|l| !l.is_empty());
        // A `Report` of the dataset's node counts every named filter of the graph; a run
        // that may stop early finds where the named filters' ranges end.
        let every_filter = pending.iter().any(|&b| {
            matches!(bookings[b].spec, ActionSpec::Report)
                && reports_every_filter(&plan, bookings[b].node)
        });
        let mut wanted: Vec<(usize, Vec<String>)> = extra;
        let filters_read = match (every_filter, stoppable) {
            (true, _) => report_filters(&plan, 0),
            (false, true) => last_filters,
            (false, false) => Vec::new(),
        };
        // A `Range` counting the events of a branch that no result, sink or read filter hangs
        // below is never evaluated: its count would need columns the run does not read.
        let evaluated: HashSet<usize> = consumers
            .iter()
            .chain(&sink_nodes)
            .chain(&filters_read)
            .flat_map(|&n| plan.lineage(n))
            .collect();
        for (n, counted) in plan.counted.iter_mut().enumerate() {
            *counted &= evaluated.contains(&n);
        }
        wanted.extend(filters_read.into_iter().map(|f| (f, Vec::new())));
        let mut inputs = needed_inputs(&plan, &bookings, &pending, &wanted);
        // `rdfentry_` is not read: it asks for the dataset's numbering of the entries.
        let numbered = inputs.iter().any(|i| i == super::special::ENTRY);
        inputs.retain(|i| i != super::special::ENTRY);
        let first = super::graph::Frame {
            graph: graph.clone(),
            node: 0,
        }
        .first_source()?;
        let names: Vec<String> = first.iter().flat_map(|f| f.readable_names()).collect();
        let may_miss = super::missing::optional_inputs(&plan);
        let known = |i: &String| names.contains(i) || may_miss.contains(i);
        if let Some(missing) = inputs.iter().find(|i| !known(i)) {
            return Err(Error::InvalidArgument(format!(
                "unknown column '{missing}': neither defined nor in the dataset"
            )));
        }
        let c_string = |i: &&String| first.as_ref().is_some_and(|f| c_string_leaf(f, i));
        if let Some(c) = inputs.iter().find(c_string) {
            return Err(Error::InvalidArgument(format!(
                "column '{c}' is a C string leaf ({c}/C), which RDataFrame reads as an \
                 RVec<Char_t> of the leaf's buffer and expressions here do not take"
            )));
        }
        let split = first
            .as_ref()
            .and_then(|f| inputs.iter().find_map(|i| split_objects(f, i)));
        if let Some(why) = split {
            return Err(Error::InvalidArgument(why));
        }
        let optional: Vec<String> = inputs
            .iter()
            .filter(|i| may_miss.contains(*i))
            .cloned()
            .collect();
        inputs.retain(|i| !may_miss.contains(i));
        if let Some(first) = &first {
            plan.absent = super::missing::absent_types(first, &optional)?;
            let all = || inputs.iter().chain(&optional);
            plan.longs_or_signed_chars = all()
                .filter(|i| reads_long_or_signed_char(first, i))
                .cloned()
                .collect();
            plan.points = all().filter(|i| reads_points(first, i)).cloned().collect();
        }
        let needs_entries = numbered
            || plan
                .nodes
                .iter()
                .any(|n| matches!(n.kind, NodeKind::Range { .. }));
        let (starts, skipped): (Vec<u64>, Vec<u64>) = if needs_entries {
            let ranges = dataset.entry_ranges()?;
            let starts = running_sum(ranges.iter().map(|r| r.end - r.start));
            (starts, ranges.iter().map(|r| r.start).collect())
        } else {
            let none = vec![0; dataset.sources().len()];
            (none.clone(), none)
        };
        // Each file's batches (opening every file's metadata first): only for sinks'
        // writer, which needs a batch's place in the whole dataset, or a watched graph's
        // progress bar.
        let counts = match has_sink || watched {
            true => Some(dataset.batch_counts(STEP)?),
            false => None,
        };
        let first_batch = running_sum(counts.iter().flatten().map(|&n| n as u64));
        let total_batches = counts.filter(|_| watched).map(|c| c.iter().sum());
        let filters: Vec<Vec<usize>> = pending
            .iter()
            .map(|&b| report_filters(&plan, bookings[b].node))
            .collect();
        let mut fill_keys: Vec<FillKey> = Vec::new();
        let fills_of: Vec<Vec<usize>> = pending
            .iter()
            .map(|&b| {
                let booking = &bookings[b];
                let columns = match booking.spec {
                    ActionSpec::Count | ActionSpec::Report => Vec::new(),
                    ref spec => spec.columns(),
                };
                columns
                    .into_iter()
                    .map(|c| {
                        let key = (booking.variation.clone(), booking.node, c);
                        match fill_keys.iter().position(|k| *k == key) {
                            Some(i) => i,
                            None => {
                                fill_keys.push(key);
                                fill_keys.len() - 1
                            }
                        }
                    })
                    .collect()
            })
            .collect();
        let mut as_read = vec![false; fill_keys.len()];
        let mut empty_as_read = Vec::with_capacity(pending.len());
        for (k, &b) in pending.iter().enumerate() {
            let empty = match &bookings[b].spec {
                ActionSpec::TakeAsRead(c) => {
                    as_read[fills_of[k][0]] = true;
                    let at = super::graph::Frame {
                        graph: graph.clone(),
                        node: bookings[b].node,
                    };
                    at.read_type(c)?
                }
                _ => None,
            };
            empty_as_read.push(empty);
        }
        let filter_names: Vec<Vec<String>> = filters
            .iter()
            .map(|fs| {
                fs.iter()
                    .map(|&f| match &plan.nodes[f].kind {
                        NodeKind::Filter { name: Some(n), .. } => n.clone(),
                        _ => String::new(),
                    })
                    .collect()
            })
            .collect();
        let live = Arc::new(Live {
            ordered: Mutex::new(InOrder::default()),
            cells: SlotCells::new(pending.iter().map(|&b| &bookings[b].spec), dataset.slots()),
            progress: Mutex::new(Progress {
                total_batches,
                ..Progress::default()
            }),
            pending: pending.clone(),
            bookings: bookings.clone(),
            filter_names: filter_names.clone(),
        });
        {
            let mut g = graph.lock().unwrap_or_else(|p| p.into_inner());
            g.live = Some(live.clone());
            g.last_progress = None;
        }
        let plan_nodes = plan.nodes.len();
        let in_order = plan.in_order() || stoppable;
        let ends = (0..plan_nodes)
            .map(|n| match plan.nodes[n].kind {
                NodeKind::Range { end: Some(end), .. } if !plan.counted[n] || end == 0 => Some(end),
                _ => None,
            })
            .collect();
        Ok(Some(Prepared {
            plan,
            bookings,
            pending,
            dataset,
            inputs,
            optional,
            starts,
            skipped,
            first_batch,
            filters,
            fill_keys,
            fills_of,
            as_read,
            empty_as_read,
            filter_names,
            live,
            reached: Mutex::new(vec![0; plan_nodes]),
            limits,
            ends: Mutex::new(ends),
            stoppable,
            entries_done: std::sync::atomic::AtomicU64::new(0),
            in_order,
        }))
    }

    /// Whether every consumer of the event loop is below a `Range` that has ended, so that
    /// the batches still to come change nothing (the run in order).
    fn exhausted(&self) -> bool {
        let done = self.entries_done.load(std::sync::atomic::Ordering::Relaxed);
        self.loop_end().is_some_and(|end| done >= end)
    }

    /// The dataset entries RDataFrame's event loop takes, once known: it stops after the
    /// entry at which the last of its consumers is done (a consumer is done at the first
    /// of its ranges to end), and its filters count the events up to there only.
    fn loop_end(&self) -> Option<u64> {
        if !self.stoppable {
            return None;
        }
        let ends = self.ends.lock().unwrap_or_else(|p| p.into_inner());
        self.limits
            .iter()
            .map(|ranges| ranges.iter().filter_map(|&r| ends[r]).min())
            .try_fold(0, |last, end| Some(last.max(end?)))
    }

    /// Notes the counted `Range`s ending in this chunk (its first entry `at`; the run in
    /// order), then returns how many of its events the event loop takes before it stops,
    /// if it stops in this chunk or before.
    fn note_ends(
        &self,
        state: &mut BatchState,
        at: u64,
    ) -> std::result::Result<Option<usize>, String> {
        if !self.stoppable {
            return Ok(None);
        }
        let mut ends = self.ends.lock().unwrap_or_else(|p| p.into_inner());
        for &n in self.limits.iter().flatten() {
            if ends[n].is_none() {
                ends[n] = state.range_end_at(n)?.map(|k| at + k as u64 + 1);
            }
        }
        drop(ends);
        Ok(self
            .loop_end()
            .map(|end| end.saturating_sub(at).min(usize::MAX as u64) as usize))
    }

    /// Adds the events of a chunk that reached the node above each counted `Range` (the run
    /// takes chunks in dataset order then).
    fn count_reached(&self, state: &mut BatchState) -> std::result::Result<(), String> {
        let mut reached = self.reached.lock().unwrap_or_else(|p| p.into_inner());
        for n in (0..self.plan.nodes.len()).filter(|&n| self.plan.counted[n]) {
            reached[n] += state.events_at(state.parent(n))? as u64;
        }
        Ok(())
    }

    /// The dataset's columns the run reads (its sink's included): those every source must
    /// have, and those read where a source has them.
    pub(crate) fn field_names(&self) -> (Vec<&str>, Vec<&str>) {
        fn names(v: &[String]) -> Vec<&str> {
            v.iter().map(String::as_str).collect()
        }
        (names(&self.inputs), names(&self.optional))
    }

    /// Fills every pending result's partial from one batch of the dataset (and hands it to
    /// each of `sinks`), chunk by chunk, and adds the partials in dataset order.
    pub(crate) fn consume(
        &self,
        slot: usize,
        unit: Unit,
        arrays: &[(String, Array)],
        sinks: &[&dyn BatchSink],
        watch: Option<&(dyn Fn(Progress) + Sync)>,
    ) -> Result<()> {
        let (plan, bookings, pending) = (&self.plan, &self.bookings, &self.pending);
        if unit.parts == 0 {
            // A source without batches: later batches are not kept waiting for it.
            let mut ordered = self.live.ordered.lock().unwrap_or_else(|p| p.into_inner());
            ordered.put(&unit, None, |t, p| self.add(t, p));
            return Ok(());
        }
        let events = (unit.entries.end - unit.entries.start) as usize;
        let first = self.starts[unit.source] + (unit.entries.start - self.skipped[unit.source]);
        let cells = &self.live.cells;
        let mut partials: Vec<Partial> = pending
            .iter()
            .enumerate()
            .map(|(k, &b)| match cells.keeps(k) {
                true => Partial::kept(&bookings[b].spec),
                false => Partial::new(&bookings[b].spec, self.filters[k].len()),
            })
            .collect();
        // Per sink, the arrays it takes of each chunk.
        let mut written: Vec<Vec<Vec<Array>>> = vec![Vec::new(); sinks.len()];
        // The columns results fill from, by variation, node and name, chunk after chunk:
        // joined, they fill each result from the whole batch at once, so that a histogram
        // stays in the processor's caches while it takes a batch (not a chunk).
        let mut fills: Vec<Vec<Column>> = vec![Vec::new(); self.fill_keys.len()];
        let mut fills_as_read: Vec<Vec<Array>> = vec![Vec::new(); self.fill_keys.len()];
        let wrap = |e: String| {
            let path = self.dataset.sources()[unit.source].shown();
            Error::InvalidArgument(format!("{path}: {e}"))
        };
        let counted = plan.in_order();
        self.entries_done
            .fetch_max(first + events as u64, std::sync::atomic::Ordering::Relaxed);
        for chunk in chunks(events) {
            let at = first + chunk.start as u64;
            let reached = match counted {
                true => self
                    .reached
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone(),
                false => Vec::new(),
            };
            let in_source = unit.entries.start + chunk.start as u64;
            let mut state = BatchState::new(plan, arrays, unit.source, at, chunk.clone())
                .numbered_in_source(in_source)
                .with_reached(reached)
                .in_loop(slot, self.dataset.first_entry());
            let taken_events = self.note_ends(&mut state, at).map_err(wrap)?;
            // The chunk as each variation sees it: what the variation changes computed again,
            // the rest taken from the nominal results' columns, computed first.
            let mut varied: Vec<(Option<(String, String)>, BatchState)> = Vec::new();
            let mut taken = vec![false; self.fill_keys.len()];
            let nominal_first = (0..pending.len())
                .filter(|&k| bookings[pending[k]].variation.is_none())
                .chain((0..pending.len()).filter(|&k| bookings[pending[k]].variation.is_some()));
            for k in nominal_first {
                let booking = &bookings[pending[k]];
                let state = match &booking.variation {
                    None => &mut state,
                    Some(v) => {
                        let at = match varied.iter().position(|(w, _)| w.as_ref() == Some(v)) {
                            Some(i) => i,
                            None => {
                                let mut fresh =
                                    BatchState::new(plan, arrays, unit.source, at, chunk.clone())
                                        .numbered_in_source(in_source)
                                        .with_variation(Some(v.clone()))
                                        .in_loop(slot, self.dataset.first_entry());
                                fresh.share_from(&state);
                                varied.push((Some(v.clone()), fresh));
                                varied.len() - 1
                            }
                        };
                        &mut varied[at].1
                    }
                };
                let (node, spec) = (booking.node, &booking.spec);
                let counting = Counting {
                    filters: &self.filters[k],
                    events: taken_events,
                };
                if count_one(state, node, spec, &counting, &mut partials[k]).map_err(wrap)? {
                    continue;
                }
                for &i in &self.fills_of[k] {
                    if taken[i] {
                        continue;
                    }
                    let name = &self.fill_keys[i].2;
                    match self.as_read[i] {
                        true => {
                            fills_as_read[i].push(state.output_array(node, name).map_err(wrap)?)
                        }
                        false => fills[i].push(state.column(node, name).map_err(wrap)?),
                    }
                    taken[i] = true;
                }
            }
            for (sink, chunks) in sinks.iter().zip(&mut written) {
                chunks.push(sink.arrays(&mut state)?);
            }
            if counted {
                self.count_reached(&mut state).map_err(wrap)?;
            }
        }
        let fills: Vec<Column> = fills
            .into_iter()
            .map(|parts| Column::concat(parts).map_err(wrap))
            .collect::<Result<_>>()?;
        let mut fills_as_read: Vec<Option<Array>> = fills_as_read
            .into_iter()
            .map(|parts| match parts.is_empty() {
                true => Ok(None),
                false => crate::array::concat(parts)
                    .map(Some)
                    .map_err(|e| wrap(e.to_string())),
            })
            .collect::<Result<_>>()?;
        cells.fill_in(slot, &mut partials, |partials| {
            for (k, &b) in pending.iter().enumerate() {
                let booking = &bookings[b];
                if matches!(booking.spec, ActionSpec::Count | ActionSpec::Report) {
                    continue;
                }
                if let Partial::TakenAsRead(parts) = &mut partials[k] {
                    // The batch's values move to the last result taking them (copied for
                    // the others: a column taken twice).
                    let i = self.fills_of[k][0];
                    let taken_later = (k + 1..pending.len()).any(|j| {
                        matches!(bookings[pending[j]].spec, ActionSpec::TakeAsRead(_))
                            && self.fills_of[j][0] == i
                    });
                    parts.extend(match taken_later {
                        true => fills_as_read[i].clone(),
                        false => fills_as_read[i].take(),
                    });
                    continue;
                }
                let cols: Vec<&Column> = self.fills_of[k].iter().map(|&i| &fills[i]).collect();
                fill(&mut partials[k], &booking.spec, &cols).map_err(wrap)?;
            }
            Ok::<(), Error>(())
        })?;
        for (sink, chunks) in sinks.iter().zip(written) {
            let sequence = self.first_batch[unit.source] + unit.part as u64;
            sink.batch(slot, sequence, join_chunks(chunks)?)?;
        }
        self.live
            .ordered
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .put(&unit, Some(partials), |t, p| self.add(t, p));
        let mut p = self.live.progress.lock().unwrap_or_else(|p| p.into_inner());
        p.batches += 1;
        p.entries += events as u64;
        if let Some(watch) = watch {
            watch(*p);
        }
        Ok(())
    }

    /// Adds a batch's partials to those of the batches before it.
    fn add(&self, total: &mut [Partial], partials: Vec<Partial>) {
        for ((t, p), &b) in total.iter_mut().zip(partials).zip(&self.pending) {
            t.add(p, &self.bookings[b].spec);
        }
    }

    /// Ends a run that failed: `graph` has no run in progress any more.
    pub(crate) fn abandon(self, graph: &Arc<Mutex<Graph>>) {
        graph.lock().unwrap_or_else(|p| p.into_inner()).live = None;
    }

    /// Marks the run's results as failed with `error` (its loop's): they are not run again,
    /// so that results booked later run (as in ROOT, where a failed event loop leaves them
    /// done); asked for, they give the error. After a transient error (I/O, a server's)
    /// they stay to compute instead: asking again retries.
    pub(crate) fn fail(self, graph: &Arc<Mutex<Graph>>, error: &crate::Error) {
        if error.is_transient() {
            return self.abandon(graph);
        }
        let mut g = graph.lock().unwrap_or_else(|p| p.into_inner());
        g.live = None;
        for &b in &self.pending {
            g.results[b] = Some(Err(error.to_string()));
        }
    }

    /// Stores the run's results in `graph` (after its loop ended with `looped`).
    pub(crate) fn finish(self, graph: &Arc<Mutex<Graph>>, looped: Result<()>) -> Result<()> {
        if let Err(e) = looped {
            self.fail(graph, &e);
            return Err(e);
        }
        let mut g = graph.lock().unwrap_or_else(|p| p.into_inner());
        g.live = None;
        g.last_progress = Some(self.live.progress());
        let total =
            std::mem::take(&mut *self.live.ordered.lock().unwrap_or_else(|p| p.into_inner()))
                .finish(|t, p| self.add(t, p));
        // Each total is moved into its result, not copied: a graph of many large
        // histograms holds one set of them at the end, not two.
        let mut total = total.map(Vec::into_iter);
        for (k, &b) in self.pending.iter().enumerate() {
            let spec = &self.bookings[b].spec;
            let mut partial = match total.as_mut().and_then(Iterator::next) {
                Some(t) => t,
                None => match &self.empty_as_read[k] {
                    Some(empty) => Partial::TakenAsRead(vec![empty.clone()]),
                    None => Partial::new(spec, self.filters[k].len()),
                },
            };
            if let (true, Some(cells)) = (self.live.cells.keeps(k), partial.cells_mut()) {
                *cells = self.live.cells.take(k);
            }
            g.results[b] = Some(Ok(partial.finish(spec, &self.filter_names[k])?));
        }
        g.runs += 1;
        Ok(())
    }
}

/// The named filters with no result of the run (of `consumers`' nodes) and no other named
/// filter at or below them. RDataFrame checks every named filter at every entry, and its
/// event loop stops once each result and each such filter is below a `Range` that has
/// ended (a named filter above others or above a result waits for them).
fn last_named_filters<'p>(
    plan: &'p Plan,
    consumers: &'p [usize],
) -> impl Iterator<Item = usize> + 'p {
    let named = report_filters(plan, 0);
    let mut below = vec![false; plan.nodes.len()];
    for &node in consumers {
        plan.lineage(node).for_each(|n| below[n] = true);
    }
    for &f in &named {
        plan.lineage(f).skip(1).for_each(|n| below[n] = true);
    }
    named.into_iter().filter(move |&f| !below[f])
}

/// The `Range` nodes with an end from `node` up to the root.
fn ranges_ending_above(plan: &Plan, node: usize) -> Vec<usize> {
    plan.lineage(node)
        .filter(|&n| matches!(plan.nodes[n].kind, NodeKind::Range { end: Some(_), .. }))
        .collect()
}

/// The sums of `values` before each of them: `[0, a, a + b, ...]`.
fn running_sum(values: impl Iterator<Item = u64>) -> Vec<u64> {
    values
        .scan(0u64, |s, n| {
            let here = *s;
            *s += n;
            Some(here)
        })
        .collect()
}

/// The chunks of a batch of `events` (one empty chunk for an empty batch, which a sink
/// still takes).
fn chunks(events: usize) -> Vec<std::ops::Range<usize>> {
    let starts = (0..events.max(1)).step_by(CHUNK);
    starts.map(|s| s..(s + CHUNK).min(events)).collect()
}

/// The arrays of a batch's chunks (a list per chunk, one array per column) as one array
/// per column.
fn join_chunks(chunks: Vec<Vec<Array>>) -> Result<Vec<Array>> {
    let columns = chunks.first().map_or(0, Vec::len);
    let mut per_column: Vec<Vec<Array>> = (0..columns).map(|_| Vec::new()).collect();
    for chunk in chunks {
        for (c, array) in chunk.into_iter().enumerate() {
            per_column[c].push(array);
        }
    }
    per_column
        .into_iter()
        .map(|parts| {
            crate::array::concat(parts)
                .map_err(|e| Error::InvalidArgument(format!("a batch's chunks: {e}")))
        })
        .collect()
}

/// Where a result's column comes from: the variation, the node, the column's name.
type FillKey = (Option<(String, String)>, usize, String);

/// What a `Report` counts of a chunk.
struct Counting<'p> {
    /// Its named filters.
    filters: &'p [usize],
    /// The chunk's events the event loop takes (`None`: all), when it stops in the chunk.
    events: Option<usize>,
}

/// Counts a chunk's events into a `Count` or `Report` partial; false for other results
/// (filled from their columns).
fn count_one(
    state: &mut BatchState,
    node: usize,
    spec: &ActionSpec,
    counting: &Counting,
    partial: &mut Partial,
) -> std::result::Result<bool, String> {
    match (spec, partial) {
        (ActionSpec::Count, Partial::Count(n)) => *n += state.events_at(node)? as u64,
        (ActionSpec::Report, Partial::Report(counts)) => {
            let taken = counting.events.unwrap_or(usize::MAX);
            for (c, &f) in counts.iter_mut().zip(counting.filters) {
                if taken == 0 {
                    break;
                }
                let parent = state.parent(f);
                c.0 += state.events_before(f, taken)? as u64;
                c.1 += state.events_before(parent, taken)? as u64;
            }
        }
        (ActionSpec::Count | ActionSpec::Report, _) => {}
        _ => return Ok(false),
    }
    Ok(true)
}

/// The named filters a `Report` at `node` lists: those on the way from the root to
/// `node`, root first; at the dataset's node, every named filter of the graph in the
/// order they were made, as RDataFrame's `Report` of the dataset lists them (see
/// [`reports_every_filter`]).
fn report_filters(plan: &Plan, node: usize) -> Vec<usize> {
    let named = |n: &usize| matches!(plan.nodes[*n].kind, NodeKind::Filter { name: Some(_), .. });
    if reports_every_filter(plan, node) {
        return (0..plan.nodes.len()).filter(named).collect();
    }
    let mut out: Vec<usize> = plan.lineage(node).filter(named).collect();
    out.reverse();
    out
}

/// Whether a `Report` at `node` is the dataset's: RDataFrame's `Report` of the data source
/// node lists every named filter, and a `Vary` there adds no node; below a `Define` or an
/// `Alias` (which name new columns there) it lists none, as below no filter.
fn reports_every_filter(plan: &Plan, node: usize) -> bool {
    plan.lineage(node)
        .all(|n| matches!(plan.nodes[n].kind, NodeKind::Root | NodeKind::Vary { .. }))
}

/// The dataset columns the pending results need: theirs, their filters', and those of the
/// definitions they use, followed to the dataset; `rdfentry_` among them where it is used
/// (the run numbers the entries for it).
fn needed_inputs(
    plan: &Plan,
    bookings: &[super::graph::Booking],
    pending: &[usize],
    extra: &[(usize, Vec<String>)],
) -> Vec<String> {
    let mut work: Vec<(usize, String)> = Vec::new();
    let mut seen: HashSet<(usize, String)> = HashSet::new();
    let mut inputs: Vec<String> = Vec::new();
    let uses = Definition::columns;
    let wanted = pending
        .iter()
        .map(|&b| (bookings[b].node, bookings[b].spec.columns()))
        .chain(extra.iter().cloned());
    for (node, columns) in wanted {
        work.extend(columns.into_iter().map(|c| (node, c)));
        // Every filter above the result.
        let mut at = Some(node);
        while let Some(n) = at {
            if let NodeKind::Filter { condition, .. } = &plan.nodes[n].kind {
                let p = plan.nodes[n].parent.expect("a filter has a parent");
                work.extend(uses(condition).into_iter().map(|c| (p, c)));
            }
            at = plan.nodes[n].parent;
        }
    }
    // The columns of every variation's values (read whether or not a variation is asked).
    for (n, node) in plan.nodes.iter().enumerate() {
        if let NodeKind::Vary { variations, .. } = &node.kind {
            let p = node.parent.unwrap_or(n);
            for v in variations.iter().flatten() {
                work.extend(uses(v).into_iter().map(|c| (p, c)));
            }
        }
    }
    while let Some((node, name)) = work.pop() {
        if !seen.insert((node, name.clone())) {
            continue;
        }
        match plan.resolve(node, &name) {
            (Some(d), _) => {
                let NodeKind::Define { definition, .. } = &plan.nodes[d].kind else {
                    continue;
                };
                let p = plan.nodes[d].parent.expect("a Define has a parent");
                work.extend(uses(definition).into_iter().map(|c| (p, c)));
                // The filters above the definition decide its events.
                let mut at = Some(p);
                while let Some(n) = at {
                    if let NodeKind::Filter { condition, .. } = &plan.nodes[n].kind {
                        let pp = plan.nodes[n].parent.expect("a filter has a parent");
                        work.extend(uses(condition).into_iter().map(|c| (pp, c)));
                    }
                    at = plan.nodes[n].parent;
                }
            }
            (None, name) if super::special::builtin(&name) && name != super::special::ENTRY => {}
            (None, name) => {
                if !inputs.contains(&name) {
                    inputs.push(name);
                }
            }
        }
    }
    inputs.sort();
    inputs
}

/// The dataset columns that `columns` at `node` need (see [`needed_inputs`]).
pub(crate) fn needed_inputs_of(
    plan: &Plan,
    bookings: &[super::graph::Booking],
    pending: &[usize],
    node: usize,
    columns: &[String],
) -> Vec<String> {
    let mut inputs = needed_inputs(plan, bookings, pending, &[(node, columns.to_vec())]);
    inputs.retain(|i| i != super::special::ENTRY);
    inputs
}
