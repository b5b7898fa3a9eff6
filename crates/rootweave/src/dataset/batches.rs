//! Reading an entry range of one reader in batches of whole clusters, each batch filling
//! the memory of the one before: an event loop over arrays that needs no new memory per
//! batch. Both readers ([`RNTupleReader::batches`], [`TTreeReader::batches`]) provide it.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::array::Array;
use crate::array::Recycler;
use crate::error::{Error, Result};
use crate::rntuple::RNTupleReader;
use crate::ttree::TTreeReader;

/// One batch: its entry range and one array per field, in the order asked for.
pub type Batch<'a> = (Range<u64>, &'a [(String, Array)]);

/// A batch whose arrays belong to the caller: its entry range and one named array per
/// field, in the order asked for.
pub type OwnedBatch = (Range<u64>, Vec<(String, Array)>);

/// A reader that [`Batches`] can read from.
pub trait BatchSource {
    /// The requested fields, resolved once for all batches.
    type Plan;
    /// Resolves the fields (all the reader's default fields if empty): their names and
    /// plan.
    fn plan_fields(&self, fields: &[&str]) -> Result<(Vec<String>, Self::Plan)>;
    /// Reads the planned fields for `range`, filling memory from `recycler`.
    fn read_planned(
        &self,
        plan: &Self::Plan,
        range: Range<u64>,
        recycler: &mut Recycler,
    ) -> Result<Vec<Array>>;
    /// The entry ranges of the clusters, in entry order.
    fn clusters(&self) -> Result<Vec<Range<u64>>>;
    /// Number of entries.
    fn entry_count(&self) -> u64;
    /// The pool that decompresses and decodes this reader's pages.
    fn pool(&self) -> &rayon::ThreadPool;

    /// Reads `fields` (the default fields if empty) for `range`, one named array per
    /// field, filling memory from `recycler`; what the read does not reuse is freed (a
    /// recycler holds at most one read's memory).
    fn read_fields_recycling(
        &self,
        fields: &[&str],
        range: Range<u64>,
        recycler: &mut Recycler,
    ) -> Result<Vec<(String, Array)>> {
        let (names, plan) = self.plan_fields(fields)?;
        let arrays = self.read_planned_keeping_one(&plan, range, recycler)?;
        Ok(names.into_iter().zip(arrays).collect())
    }

    /// [`BatchSource::read_planned`], then frees what the read did not reuse: a recycler
    /// holds at most one read's memory.
    fn read_planned_keeping_one(
        &self,
        plan: &Self::Plan,
        range: Range<u64>,
        recycler: &mut Recycler,
    ) -> Result<Vec<Array>> {
        let arrays = self.read_planned(plan, range, recycler);
        recycler.clear();
        arrays
    }
}

/// Batches of an entry range, read one after the other by [`Batches::next_batch`].
pub struct Batches<'r, R: BatchSource> {
    reader: &'r R,
    names: Vec<String>,
    plan: R::Plan,
    parts: std::vec::IntoIter<Range<u64>>,
    current: Vec<(String, Array)>,
    recycler: Recycler,
}

impl<R: BatchSource> std::fmt::Debug for Batches<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batches")
            .field("fields", &self.names)
            .field("remaining", &self.parts.len())
            .finish_non_exhaustive()
    }
}

impl<'r, R: BatchSource> Batches<'r, R> {
    /// Batches of `fields` (the reader's default fields if empty) over the entries in
    /// `range`: whole clusters holding at least `step` entries each (one cluster each if
    /// `step` is 0), the first and last cut to the range.
    pub fn new(reader: &'r R, fields: &[&str], range: Range<u64>, step: u64) -> Result<Self> {
        let entries = reader.entry_count();
        if range.start > range.end || range.end > entries {
            return Err(Error::InvalidArgument(format!(
                "entry range {}..{} is outside 0..{entries}",
                range.start, range.end
            )));
        }
        let (names, plan) = reader.plan_fields(fields)?;
        let parts = batch_ranges(&reader.clusters()?, range, step);
        Ok(Batches {
            reader,
            names,
            plan,
            parts: parts.into_iter(),
            current: Vec::new(),
            recycler: Recycler::new(),
        })
    }

    /// Reads the next batch: its entry range and one array per field (in the order asked
    /// for), valid until the next call, which refills their memory. `None` after the last
    /// batch or after an error.
    pub fn next_batch(&mut self) -> Option<Result<Batch<'_>>> {
        match self.read_next()? {
            Ok((part, arrays)) => {
                self.current = arrays;
                Some(Ok((part, &self.current)))
            }
            Err(e) => Some(Err(e)),
        }
    }

    /// Reads the next batch into the memory of the one before (given back first); after
    /// an error, there is no next batch.
    fn read_next(&mut self) -> Option<Result<OwnedBatch>> {
        for (_, array) in self.current.drain(..) {
            self.recycler.recycle(array);
        }
        let part = self.parts.next()?;
        let read =
            self.reader
                .read_planned_keeping_one(&self.plan, part.clone(), &mut self.recycler);
        match read {
            Ok(arrays) => Some(Ok((part, self.names.iter().cloned().zip(arrays).collect()))),
            Err(e) => {
                self.parts = Vec::new().into_iter();
                Some(Err(e))
            }
        }
    }

    /// Hands arrays of a batch taken from the iterator back, so that a later batch fills
    /// their memory instead of allocating anew.
    pub fn recycle(&mut self, arrays: Vec<(String, Array)>) {
        for (_, array) in arrays {
            self.recycler.recycle(array);
        }
    }

    /// Hands every remaining batch to `consume`, in entry order, while the reader's pool
    /// already reads the batch after it: the consumer's work and the next read overlap.
    /// Two batches are in memory at once (the one consumed and the one being read), each
    /// filling the memory of the batch two before it. Stops at the first error, from a
    /// read or from `consume`, and returns it.
    ///
    /// The read runs on the reader's pool while `consume` runs on the calling thread, so a
    /// reader with one thread keeps two cores busy.
    ///
    /// ```no_run
    /// use rootweave::array::Array;
    /// use rootweave::rntuple::RNTupleReader;
    /// let reader = RNTupleReader::open("events.root", "Events")?;
    /// let mut sum = 0.0;
    /// reader
    ///     .batches(&["MET_pt"], 0..reader.entries(), 1_000_000)?
    ///     .for_each_read_ahead(|_entries, arrays| {
    ///         if let Array::Float32(met) = &arrays[0].1 {
    ///             sum += met.iter().map(|&v| v as f64).sum::<f64>();
    ///         }
    ///         Ok(())
    ///     })?;
    /// # Ok::<(), rootweave::Error>(())
    /// ```
    pub fn for_each_read_ahead(
        mut self,
        mut consume: impl FnMut(Range<u64>, &[(String, Array)]) -> Result<()>,
    ) -> Result<()>
    where
        R: Sync,
        R::Plan: Sync,
    {
        let reader = self.reader;
        let plan = &self.plan;
        // Each recycler holds the memory of every other batch.
        let mut recyclers = [std::mem::take(&mut self.recycler), Recycler::new()];
        for (_, array) in self.current.drain(..) {
            recyclers[0].recycle(array);
        }
        let read = |part: Range<u64>, recycler: &mut Recycler| {
            reader.read_planned_keeping_one(plan, part, recycler)
        };
        let read = &read;
        let Some(first) = self.parts.next() else {
            return Ok(());
        };
        let mut current = (first.clone(), read(first, &mut recyclers[0])?);
        loop {
            let upcoming = self.parts.next();
            // `held` takes back the current batch's memory; `spare`, holding the batch's
            // before it, fills the next one.
            let [held, spare] = &mut recyclers;
            let mut ahead = None;
            let (range, arrays) = current;
            let named: Vec<(String, Array)> = self.names.iter().cloned().zip(arrays).collect();
            let consumed = reader.pool().in_place_scope(|scope| {
                if let Some(part) = upcoming.clone() {
                    let ahead = &mut ahead;
                    scope.spawn(move |_| *ahead = Some(read(part, spare)));
                }
                consume(range, &named)
            });
            for (_, array) in named {
                held.recycle(array);
            }
            consumed?;
            match (upcoming, ahead) {
                (Some(part), Some(arrays)) => current = (part, arrays?),
                _ => return Ok(()),
            }
            recyclers.swap(0, 1);
        }
    }

    /// Hands every remaining batch to `consume` on the reader's pool: each of its threads
    /// takes the next batch not taken yet, reads it and consumes it, so that reading and
    /// the consumer's work both run on every thread of the pool (an event loop with one
    /// slot per thread, as RDataFrame's). Batches arrive in no particular order; besides
    /// the batch's entry range and arrays, `consume` gets the index of its slot (below the
    /// pool's thread count), which only one batch uses at a time: the place for per-slot
    /// accumulators. As many batches as there are slots are in memory at once, each slot
    /// refilling the memory of its last batch. Stops at the first error, from a read or
    /// from `consume`, and returns it (batches already taken are finished first).
    ///
    /// ```no_run
    /// use std::sync::Mutex;
    /// use rootweave::array::Array;
    /// use rootweave::rntuple::RNTupleReader;
    /// let reader = RNTupleReader::open("events.root", "Events")?;
    /// let batches = reader.batches(&["MET_pt"], 0..reader.entries(), 1_000_000)?;
    /// let slots: Vec<Mutex<f64>> = (0..batches.slots()).map(|_| Mutex::new(0.0)).collect();
    /// batches.for_each_parallel(|slot, _entries, arrays| {
    ///     if let Array::Float32(met) = &arrays[0].1 {
    ///         *slots[slot].lock().unwrap() += met.iter().map(|&v| v as f64).sum::<f64>();
    ///     }
    ///     Ok(())
    /// })?;
    /// let sum: f64 = slots.iter().map(|s| *s.lock().unwrap()).sum();
    /// # Ok::<(), rootweave::Error>(())
    /// ```
    pub fn for_each_parallel(
        mut self,
        consume: impl Fn(usize, Range<u64>, &[(String, Array)]) -> Result<()> + Sync,
    ) -> Result<()>
    where
        R: Sync,
        R::Plan: Sync,
    {
        let parts: Vec<Range<u64>> = self.parts.by_ref().collect();
        let (reader, plan, names) = (self.reader, &self.plan, &self.names);
        let taken = AtomicUsize::new(0);
        let failure: Mutex<Option<Error>> = Mutex::new(None);
        let fail = |e: Error| {
            let mut failure = failure.lock().unwrap_or_else(|p| p.into_inner());
            failure.get_or_insert(e);
        };
        let failed = || failure.lock().unwrap_or_else(|p| p.into_inner()).is_some();
        let slot_loop = |slot: usize| {
            let mut recycler = Recycler::new();
            while !failed() {
                let Some(part) = parts.get(taken.fetch_add(1, Ordering::Relaxed)) else {
                    return;
                };
                let arrays = reader.read_planned_keeping_one(plan, part.clone(), &mut recycler);
                let named: Vec<(String, Array)> = match arrays {
                    Ok(arrays) => names.iter().cloned().zip(arrays).collect(),
                    Err(e) => return fail(e),
                };
                let consumed = consume(slot, part.clone(), &named);
                for (_, array) in named {
                    recycler.recycle(array);
                }
                if let Err(e) = consumed {
                    return fail(e);
                }
            }
        };
        let slot_loop = &slot_loop;
        let slots = reader.pool().current_num_threads().min(parts.len());
        reader.pool().scope(|scope| {
            for slot in 0..slots {
                scope.spawn(move |_| slot_loop(slot));
            }
        });
        match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The names of the fields, in the order of each batch's arrays.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The slots of [`Batches::for_each_parallel`]: the threads of the reader's pool.
    pub fn slots(&self) -> usize {
        self.reader.pool().current_num_threads()
    }

    /// The entry ranges of the batches not read yet, in order.
    pub fn ranges(&self) -> Vec<Range<u64>> {
        self.parts.as_slice().to_vec()
    }

    /// Number of batches not read yet.
    pub fn remaining(&self) -> usize {
        self.parts.len()
    }
}

/// Batches as an iterator of owned arrays: each batch's entry range and one array per
/// field (in the order asked for), which the caller keeps. Give them back with
/// [`Batches::recycle`] to have the next batch reuse their memory. Ends after the last
/// batch or after an error.
impl<R: BatchSource> Iterator for Batches<'_, R> {
    type Item = Result<OwnedBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read_next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.parts.len(), Some(self.parts.len()))
    }
}

impl RNTupleReader {
    /// Reads `fields` (all top-level fields if empty) for the entries in `range`, in
    /// batches of whole clusters holding at least `step` entries each (see [`Batches`]).
    /// Each batch fills the memory of the batch before it, so the arrays of a batch live
    /// until the next one is read.
    ///
    /// ```no_run
    /// use rootweave::array::Array;
    /// use rootweave::rntuple::RNTupleReader;
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
    pub fn batches(
        &self,
        fields: &[&str],
        range: Range<u64>,
        step: u64,
    ) -> Result<Batches<'_, Self>> {
        Batches::new(self, fields, range, step)
    }
}

impl BatchSource for RNTupleReader {
    type Plan = Vec<crate::rntuple::read::Node>;

    fn plan_fields(&self, fields: &[&str]) -> Result<(Vec<String>, Self::Plan)> {
        RNTupleReader::plan_fields(self, fields)
    }

    fn read_planned(
        &self,
        plan: &Self::Plan,
        range: Range<u64>,
        recycler: &mut Recycler,
    ) -> Result<Vec<Array>> {
        self.read_nodes_recycling(plan, range, recycler)
    }

    fn clusters(&self) -> Result<Vec<Range<u64>>> {
        self.cluster_ranges()
    }

    fn entry_count(&self) -> u64 {
        self.entries()
    }

    fn pool(&self) -> &rayon::ThreadPool {
        self.thread_pool()
    }
}

impl TTreeReader {
    /// Reads branches `fields` (the default branches if empty) for the entries in
    /// `range`, in batches of whole clusters holding at least `step` entries each (see
    /// [`Batches`]). Each batch fills the memory of the batch before it.
    ///
    /// ```no_run
    /// use rootweave::array::Array;
    /// use rootweave::ttree::TTreeReader;
    /// let tree = TTreeReader::open("events.root", "Events")?;
    /// let mut batches = tree.batches(&["nMuon", "Muon_pt"], 0..tree.entries(), 500_000)?;
    /// while let Some(batch) = batches.next_batch() {
    ///     let (entries, arrays) = batch?;
    ///     if let Array::List { values, .. } = &arrays[1].1 {
    ///         println!("entries {entries:?}: {} muons", values.len());
    ///     }
    /// }
    /// # Ok::<(), rootweave::Error>(())
    /// ```
    pub fn batches(
        &self,
        fields: &[&str],
        range: Range<u64>,
        step: u64,
    ) -> Result<Batches<'_, Self>> {
        Batches::new(self, fields, range, step)
    }
}

impl BatchSource for TTreeReader {
    type Plan = Vec<(String, crate::ttree::Interpretation)>;

    fn plan_fields(&self, fields: &[&str]) -> Result<(Vec<String>, Self::Plan)> {
        let plan = self.plan_branches(fields)?;
        Ok((plan.iter().map(|(n, _)| n.clone()).collect(), plan))
    }

    fn read_planned(
        &self,
        plan: &Self::Plan,
        range: Range<u64>,
        recycler: &mut Recycler,
    ) -> Result<Vec<Array>> {
        Ok(self
            .read_planned_branches(plan, range, recycler)?
            .into_iter()
            .map(|(_, a)| a)
            .collect())
    }

    fn clusters(&self) -> Result<Vec<Range<u64>>> {
        Ok(self.cluster_ranges())
    }

    fn entry_count(&self) -> u64 {
        self.entries()
    }

    fn pool(&self) -> &rayon::ThreadPool {
        self.thread_pool()
    }
}

/// Splits `range` at cluster boundaries into parts of at least `step` entries (the last
/// one may hold fewer).
pub(super) fn batch_ranges(
    clusters: &[Range<u64>],
    range: Range<u64>,
    step: u64,
) -> Vec<Range<u64>> {
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
