//! `Cache`: a node's columns for the events it keeps, held in memory as the dataset of a
//! new graph, so that graphs run again and again over a selection read no file and compute
//! no definition twice (RDataFrame's cached dataframe). As in ROOT 6.40, the columns are
//! taken lazily: by the cached graph's next run, with whatever else it has booked by then,
//! once the new graph first runs.

use std::sync::{Arc, Mutex};

use super::actions::ResultValue;
use super::column_type::{empty_column, holds_long_or_signed_char, holds_points, other_container};
use super::graph::{invalid, Booked, Frame, Graph};
use crate::dataset::{Dataset, MemoryColumns, Source};
use crate::error::Result;
use crate::parallel::ReadOptions;

/// The columns a graph made by `Cache` reads, booked on the graph it caches and not yet
/// taken: each column's name and its `Take`.
#[derive(Clone)]
pub struct CachedColumns {
    taken: Vec<(String, Booked)>,
    /// The columns holding C++ `long`s or `signed char`s (see
    /// [`MemoryColumns::with_longs_or_signed_chars`]).
    respelled: Vec<String>,
    /// The C++ types of the columns whose values do not tell them (see
    /// [`MemoryColumns::with_type_names`]).
    type_names: Vec<(String, String)>,
    options: ReadOptions,
}

impl CachedColumns {
    /// The dataset of the taken values (running the cached graph if it has not run since
    /// the columns were booked).
    fn dataset(&self) -> Result<Dataset> {
        let mut arrays = Vec::with_capacity(self.taken.len());
        for (name, b) in &self.taken {
            match b.value()? {
                ResultValue::Column(c) => arrays.push((name.clone(), c.into_array())),
                ResultValue::Array(a) => arrays.push((name.clone(), a)),
                other => return Err(invalid(format!("Cache: '{name}' gave {other:?}"))),
            }
        }
        let columns = MemoryColumns::new(arrays)?
            .with_longs_or_signed_chars(self.respelled.clone())
            .with_type_names(self.type_names.clone());
        let source = Source::in_memory(columns);
        Dataset::new(vec![source], self.options.clone())
    }
}

/// Gives `graph` its dataset if `Cache` made it and it has none yet: called before
/// anything reads its entries (a run, a snapshot, the batches' ranges), never with a lock
/// on a graph held (the cached graph may run).
pub(crate) fn fill_cached(graph: &Arc<Mutex<Graph>>) -> Result<()> {
    let lock = || graph.lock().unwrap_or_else(|p| p.into_inner());
    let Some(cached) = lock().cached.clone() else {
        return Ok(());
    };
    let dataset = Arc::new(cached.dataset()?);
    let mut g = lock();
    if g.cached.is_some() {
        g.dataset = dataset;
        g.cached = None;
    }
    Ok(())
}

impl Frame {
    /// `Cache(columns)`: a new graph over the values of `columns` (every column here that
    /// holds numbers or lists of numbers when empty) for the events of this node, in entry
    /// order, held in memory, on as many threads; its entries are numbered from 0. Lazy, as
    /// RDataFrame's: the values are taken by this graph's next run (with the results booked
    /// here by then, in the same pass), which the new graph's first run starts if needed.
    pub fn cache(&self, columns: &[&str]) -> Result<Frame> {
        let names: Vec<String> = match columns.is_empty() {
            // In ROOT's order: defined columns, aliases, then the dataset's in its order.
            true => self
                .regex_candidates()?
                .into_iter()
                .filter(|c| self.column_type(c).is_ok())
                .collect(),
            false => columns.iter().map(|c| c.to_string()).collect(),
        };
        // Checked before anything is booked, so that a column that cannot be taken leaves
        // the graph as it was; the columns' types, as no entries, make the new graph's
        // stand-in dataset until the values are taken.
        let (mut empty, mut respelled) = (Vec::with_capacity(names.len()), Vec::new());
        // A set, list, deque or bitset keeps its class (`set<int>`), as ROOT's cache does;
        // `XYZPoint`s keep theirs (their records are `XYZVector`s' too).
        let mut type_names = Vec::new();
        for name in &names {
            let ty = self
                .column_type(name)
                .map_err(|e| invalid(format!("Cache: {e}")))?;
            if holds_long_or_signed_char(&ty) {
                respelled.push(name.clone());
            }
            if other_container(&ty) || holds_points(&ty) {
                type_names.push((name.clone(), ty.clone()));
            }
            // A column expressions do not take is kept as read (as `Take` takes it).
            let array = match self.taken_as_read(name)? {
                Some(array) => array,
                None => empty_column(self, self.node, name, true)
                    .map_err(|e| invalid(format!("Cache: {e}")))?
                    .into_array(),
            };
            empty.push((name.clone(), array));
        }
        let taken = names
            .iter()
            .map(|c| Ok((c.clone(), self.take(c)?)))
            .collect::<Result<Vec<_>>>()?;
        let options = ReadOptions::default().with_threads(self.slots());
        let stand_in = MemoryColumns::new(empty)?
            .with_longs_or_signed_chars(respelled.clone())
            .with_type_names(type_names.clone());
        let stand_in = Source::in_memory(stand_in);
        let frame = Frame::new(Dataset::new(vec![stand_in], options.clone())?);
        let mut g = frame.lock();
        g.cached = Some(CachedColumns {
            taken,
            respelled,
            type_names,
            options,
        });
        g.from_cache = true;
        drop(g);
        Ok(frame)
    }
}
