//! `Cache`: a node's columns for the events it keeps, computed once and held in memory as
//! the dataset of a new graph, so that graphs run again and again over a selection read no
//! file and compute no definition twice (RDataFrame's cached dataframe).

use super::actions::ResultValue;
use super::graph::{invalid, Frame};
use crate::dataset::{Dataset, MemoryColumns, Source};
use crate::error::Result;
use crate::parallel::ReadOptions;

impl Frame {
    /// `Cache(columns)`: runs the graph now, as RDataFrame's `Cache` does, taking `columns`
    /// (every column here that holds numbers or lists of numbers when empty) for the events
    /// of this node in entry order, and returns a new graph over those values held in
    /// memory, on as many threads; its entries are numbered from 0.
    pub fn cache(&self, columns: &[&str]) -> Result<Frame> {
        let names: Vec<String> = match columns.is_empty() {
            true => self
                .column_names()?
                .into_iter()
                .filter(|c| self.column_type(c).is_ok())
                .collect(),
            false => columns.iter().map(|c| c.to_string()).collect(),
        };
        // Checked before anything is booked, so that a column that cannot be taken leaves
        // the graph as it was.
        for name in &names {
            self.column_type(name)
                .map_err(|e| invalid(format!("Cache: {e}")))?;
        }
        let booked = names
            .iter()
            .map(|c| self.take(c))
            .collect::<Result<Vec<_>>>()?;
        let mut arrays = Vec::with_capacity(names.len());
        for (name, b) in names.iter().zip(&booked) {
            match b.value()? {
                ResultValue::Column(c) => arrays.push((name.clone(), c.into_array())),
                other => return Err(invalid(format!("Cache: '{name}' gave {other:?}"))),
            }
        }
        let options = ReadOptions::default().with_threads(self.slots());
        let source = Source::in_memory(MemoryColumns::new(arrays)?);
        Ok(Frame::new(Dataset::new(vec![source], options)?))
    }
}
