//! Reading an entry range in batches of whole clusters, each batch filling the memory of
//! the one before (an event loop over arrays without new memory per batch).

use std::ops::Range;

use super::plan::Node;
use super::reader::RNTupleReader;
use super::recycle::Recycler;
use crate::array::Array;
use crate::error::{Error, Result};

/// One batch: its entry range and one array per field, in the order asked for.
pub type Batch<'a> = (Range<u64>, &'a [(String, Array)]);

/// Batches of an entry range, read one after the other by [`Batches::next_batch`]; see
/// [`RNTupleReader::batches`].
#[derive(Debug)]
pub struct Batches<'r> {
    reader: &'r RNTupleReader,
    names: Vec<String>,
    nodes: Vec<Node>,
    parts: std::vec::IntoIter<Range<u64>>,
    current: Vec<(String, Array)>,
    recycler: Recycler,
}

impl RNTupleReader {
    /// Reads `fields` (all top-level fields if empty) for the entries in `range`, in
    /// batches of whole clusters holding at least `step` entries each (one cluster each if
    /// `step` is 0; the first and last batches are cut to the range). Each batch fills the
    /// memory of the batch before it, so the arrays of a batch live until the next one is
    /// read.
    ///
    /// ```no_run
    /// use rootweave::rntuple::RNTupleReader;
    /// use rootweave::array::Array;
    /// let reader = RNTupleReader::open("events.root", "Events")?;
    /// let mut batches = reader.batches(&["MET_pt"], 0..reader.entries(), 1_000_000)?;
    /// let mut sum = 0.0;
    /// while let Some(batch) = batches.next_batch() {
    ///     let (_entries, arrays) = batch?;
    ///     if let Array::Float32(met) = &arrays[0].1 {
    ///         sum += met.iter().map(|&v| v as f64).sum::<f64>();
    ///     }
    /// }
    /// # Ok::<(), rootweave::Error>(())
    /// ```
    pub fn batches(&self, fields: &[&str], range: Range<u64>, step: u64) -> Result<Batches<'_>> {
        let entries = self.entries();
        if range.start > range.end || range.end > entries {
            return Err(Error::InvalidArgument(format!(
                "entry range {}..{} is outside 0..{entries}",
                range.start, range.end
            )));
        }
        let names = self.names_or_all(fields);
        let nodes = names
            .iter()
            .map(|n| self.plan(n))
            .collect::<Result<Vec<_>>>()?;
        let parts = batch_ranges(&self.cluster_ranges()?, range, step);
        Ok(Batches {
            reader: self,
            names,
            nodes,
            parts: parts.into_iter(),
            current: Vec::new(),
            recycler: Recycler::new(),
        })
    }
}

impl Batches<'_> {
    /// Reads the next batch: its entry range and one array per field (in the order asked
    /// for), valid until the next call. `None` after the last batch or after an error.
    pub fn next_batch(&mut self) -> Option<Result<Batch<'_>>> {
        for (_, array) in self.current.drain(..) {
            self.recycler.recycle(array);
        }
        let part = self.parts.next()?;
        match self
            .reader
            .read_nodes_recycling(&self.nodes, part.clone(), &mut self.recycler)
        {
            Ok(arrays) => {
                self.current = self.names.iter().cloned().zip(arrays).collect();
                Some(Ok((part, &self.current)))
            }
            Err(e) => {
                self.parts = Vec::new().into_iter();
                Some(Err(e))
            }
        }
    }

    /// Number of batches not read yet.
    pub fn remaining(&self) -> usize {
        self.parts.len()
    }
}

/// Splits `range` at cluster boundaries into parts of at least `step` entries (the last
/// one may hold fewer).
fn batch_ranges(clusters: &[Range<u64>], range: Range<u64>, step: u64) -> Vec<Range<u64>> {
    let mut parts: Vec<Range<u64>> = Vec::new();
    let mut open: Option<Range<u64>> = None;
    for c in clusters {
        let part = c.start.max(range.start)..c.end.min(range.end);
        if part.is_empty() {
            continue;
        }
        let joined = match open.take() {
            Some(o) => o.start..part.end,
            None => part,
        };
        if joined.end - joined.start >= step {
            parts.push(joined);
        } else {
            open = Some(joined);
        }
    }
    parts.extend(open);
    parts
}

#[cfg(test)]
mod tests {
    use super::batch_ranges;

    #[test]
    fn batches_are_whole_clusters_cut_to_the_range() {
        let clusters = [0..10, 10..20, 20..30, 30..35];
        assert_eq!(
            batch_ranges(&clusters, 0..35, 0),
            vec![0..10, 10..20, 20..30, 30..35]
        );
        assert_eq!(batch_ranges(&clusters, 5..33, 15), vec![5..20, 20..33]);
        assert_eq!(batch_ranges(&clusters, 0..35, 100), vec![0..35]);
        assert_eq!(batch_ranges(&clusters, 12..18, 1), vec![12..18]);
        assert!(batch_ranges(&clusters, 7..7, 1).is_empty());
    }
}
