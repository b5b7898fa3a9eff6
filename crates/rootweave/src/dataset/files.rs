//! A dataset of many files: the same RNTuple or TTree in each, read in batches of whole
//! clusters file after file, or by a parallel event loop over all of them. Files are opened
//! when their first batch is due, so a dataset of thousands of files costs nothing up
//! front.

use std::collections::VecDeque;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::ThreadPool;

use crate::array::{Array, Recycler};
use crate::container::RootFile;
use crate::error::{Error, Result};
use crate::parallel::ReadOptions;

use super::any_reader::{AnyPlan, AnyReader};
use super::batches::{batch_ranges, BatchSource};
use super::fields::Fields;
use super::memory_source::{MemoryColumns, MemorySource};

/// One file of a dataset and the object read in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// The RNTuple or TTree (`dir/name` for a TTree in a subdirectory); `None`: the one
    /// RNTuple or TTree of the file's top directory.
    pub object: Option<String>,
    /// Only these entries of the object (`None`: all of them), cut to the entries it has.
    /// A range read is cut into the object's clusters within it, so a range from one batch's
    /// first entry to another's end is read in the very batches a read of the whole object
    /// makes there: how a run is split into partitions within files.
    pub entries: Option<Range<u64>>,
    /// No file: entries held in memory, these columns (none for RDataFrame's
    /// `RDataFrame(n)`, whose events hold what a graph defines), the entries up to the end
    /// of `entries`; `path` and `object` unused.
    pub memory: Option<MemoryColumns>,
}

impl Source {
    /// The object `object` (or the file's only one) in the file at `path`.
    pub fn new(path: impl AsRef<Path>, object: Option<&str>) -> Self {
        Source {
            path: path.as_ref().to_path_buf(),
            object: object.map(str::to_string),
            entries: None,
            memory: None,
        }
    }

    /// `entries` entries without a file and without columns (see [`Source::memory`]).
    pub fn empty(entries: u64) -> Self {
        Source {
            path: PathBuf::new(),
            object: None,
            entries: Some(0..entries),
            memory: Some(MemoryColumns::default()),
        }
    }

    /// The entries of `columns`, held in memory (see [`Source::memory`]).
    pub fn in_memory(columns: MemoryColumns) -> Self {
        Source {
            entries: Some(0..columns.entries()),
            memory: Some(columns),
            ..Source::empty(0)
        }
    }

    /// The source as messages name it: its file's path, or "memory" for entries held in
    /// memory.
    pub fn shown(&self) -> String {
        match self.memory {
            Some(_) => "memory".to_string(),
            None => self.path.display().to_string(),
        }
    }

    /// This source's entries `range` only (see [`Source::entries`]).
    pub fn with_entries(self, range: Range<u64>) -> Self {
        Source {
            entries: Some(range),
            ..self
        }
    }

    /// The entries to read of an object of `total` entries: its range cut to them (an
    /// empty range if it starts past them or ends before it starts), else all.
    pub fn range_in(&self, total: u64) -> Range<u64> {
        match &self.entries {
            Some(r) => {
                let start = r.start.min(total);
                start..r.end.clamp(start, total)
            }
            None => 0..total,
        }
    }

    /// Parses `file.root:Events` (uproot's convention) into a path and an object name: the
    /// text after the last colon names the object, unless the whole text is an existing
    /// file or the colon ends a drive letter or a URL scheme. Without a colon, the file's
    /// only RNTuple or TTree is read.
    pub fn parse(spec: &str) -> Self {
        if let Some((path, object)) = spec.rsplit_once(':') {
            let drive = path.len() == 1 && (object.starts_with('\\') || object.starts_with('/'));
            let scheme = object.starts_with("//");
            if !drive && !scheme && !path.is_empty() && !Path::new(spec).exists() {
                return Source::new(path, (!object.is_empty()).then_some(object));
            }
        }
        Source::new(spec, None)
    }
}

/// One batch of a dataset: the index of its source, its entry range within that source's
/// file, and one named array per field, in the order asked for.
pub type DatasetBatch = (usize, Range<u64>, Vec<(String, Array)>);

/// An open source with its planned fields.
struct Opened {
    index: usize,
    reader: AnyReader,
    names: Vec<String>,
    plan: AnyPlan,
}

impl Opened {
    /// Reads `part` into memory from `recycler`, named.
    fn read(&self, part: Range<u64>, recycler: &mut Recycler) -> Result<Vec<(String, Array)>> {
        let arrays = self
            .reader
            .read_planned_keeping_one(&self.plan, part, recycler)?;
        Ok(self.names.iter().cloned().zip(arrays).collect())
    }
}

/// The same RNTuple or TTree in many files, read batch by batch in file order
/// ([`Dataset::batches`], [`Dataset::for_each_read_ahead`]) or all at once by an event
/// loop on a pool of threads ([`Dataset::for_each_parallel`]). Every file's reader shares
/// one pool of decompression threads.
///
/// ```no_run
/// use rootweave::array::Array;
/// use rootweave::dataset::{Dataset, Source};
/// use rootweave::ReadOptions;
/// let files = ["run1.root:Events", "run2.root:Events"].map(Source::parse);
/// let dataset = Dataset::new(files.to_vec(), ReadOptions::default())?;
/// let mut sum = 0.0;
/// dataset.for_each_read_ahead(&["MET_pt"], 1_000_000, |_file, _entries, arrays| {
///     if let Array::Float32(met) = &arrays[0].1 {
///         sum += met.iter().map(|&v| v as f64).sum::<f64>();
///     }
///     Ok(())
/// })?;
/// # Ok::<(), rootweave::Error>(())
/// ```
#[derive(Debug)]
pub struct Dataset {
    sources: Vec<Source>,
    options: ReadOptions,
    pool: Arc<ThreadPool>,
    first_entry: u64,
}

impl Dataset {
    /// A dataset of `sources`, read with `options` (their pool, or one shared pool of
    /// `options.threads` threads, serves every file). Opens nothing yet.
    pub fn new(sources: Vec<Source>, options: ReadOptions) -> Result<Self> {
        let pool = options.thread_pool()?;
        let options = options.with_pool(pool.clone());
        Ok(Dataset {
            sources,
            options,
            pool,
            first_entry: 0,
        })
    }

    /// This dataset as the part of a larger one whose entries before it number
    /// `first_entry` (a partition of a distributed run): its entries are numbered from there
    /// (RDataFrame's `rdfentry_`).
    pub fn with_first_entry(mut self, first_entry: u64) -> Self {
        self.first_entry = first_entry;
        self
    }

    /// The number of the dataset's first entry (0 unless it is part of a larger one).
    pub fn first_entry(&self) -> u64 {
        self.first_entry
    }

    /// The sources of `datasets`, one dataset's after another's, as one dataset read with
    /// the first's options and pool of threads (`None` for no datasets).
    pub fn chain(datasets: &[&Dataset]) -> Option<Dataset> {
        let first = datasets.first()?;
        Some(Dataset {
            sources: datasets.iter().flat_map(|d| d.sources.clone()).collect(),
            options: first.options.clone(),
            pool: first.pool.clone(),
            first_entry: first.first_entry,
        })
    }

    /// The sources, in reading order.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Opens source `index`: its file and its RNTuple or TTree.
    pub fn open(&self, index: usize) -> Result<AnyReader> {
        let source = self.sources.get(index).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "source {index} of a dataset of {}",
                self.sources.len()
            ))
        })?;
        self.open_source(source)
    }

    /// Opens `source` (of this dataset or not) with the dataset's options and threads.
    pub fn open_source(&self, source: &Source) -> Result<AnyReader> {
        if let Some(columns) = &source.memory {
            // Columns bound the entries; without columns the range gives them.
            let end = source.entries.as_ref().map(|r| r.end);
            let entries = match columns.columns().is_empty() {
                true => end.unwrap_or(0),
                false => end.map_or(columns.entries(), |e| e.min(columns.entries())),
            };
            let source = MemorySource::new(entries, columns.clone(), self.pool.clone());
            return Ok(AnyReader::Memory(source));
        }
        let file = Arc::new(RootFile::open(&source.path)?);
        AnyReader::open(file, source.object.as_deref(), self.options.clone())
    }

    /// The number of entries every source reads (of its entry range, if it has one), in
    /// order (opens each file's metadata).
    pub fn entries(&self) -> Result<Vec<u64>> {
        Ok(self
            .entry_ranges()?
            .iter()
            .map(|r| r.end - r.start)
            .collect())
    }

    /// The entries every source reads, within its object (its entry range cut to the
    /// object's entries, or all of them), in order (opens each file's metadata).
    pub fn entry_ranges(&self) -> Result<Vec<Range<u64>>> {
        (0..self.sources.len())
            .map(|i| Ok(self.sources[i].range_in(self.open(i)?.entries())))
            .collect()
    }

    /// How many batches of at least `step` entries (whole clusters) each source has, in
    /// order, as [`Dataset::for_each_unit`] makes them (opens every source's metadata): with
    /// a [`Unit`]'s source and part, a batch's place in the whole dataset.
    pub fn batch_counts(&self, step: u64) -> Result<Vec<usize>> {
        Ok(self.batch_ranges(step)?.iter().map(Vec::len).collect())
    }

    /// The entry ranges of every source's batches of at least `step` entries (whole
    /// clusters), in order, as [`Dataset::for_each_unit`] makes them (opens every source's
    /// metadata): where a run can be cut into partitions that read the same batches.
    pub fn batch_ranges(&self, step: u64) -> Result<Vec<Vec<Range<u64>>>> {
        (0..self.sources.len())
            .map(|i| {
                let reader = self.open(i)?;
                let range = self.sources[i].range_in(reader.entries());
                Ok(batch_ranges(&reader.clusters()?, range, step))
            })
            .collect()
    }

    /// The slots of [`Dataset::for_each_parallel`]: the threads of the pool.
    pub fn slots(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Opens source `index` and plans `fields` in it, with the entry ranges of its batches.
    fn open_planned(
        &self,
        index: usize,
        fields: Fields<'_>,
        step: u64,
    ) -> Result<(Arc<Opened>, Vec<Range<u64>>)> {
        let reader = self.open(index)?;
        let planned = match fields.optional.is_empty() {
            true => fields.needed.to_vec(),
            false => fields.in_source(&reader.readable_names()),
        };
        let (names, plan) = match fields.nothing() {
            true => (Vec::new(), reader.plan_nothing()),
            false => reader.plan_fields(&planned)?,
        };
        let range = self.sources[index].range_in(reader.entries());
        let parts = batch_ranges(&reader.clusters()?, range, step);
        let opened = Opened {
            index,
            reader,
            names,
            plan,
        };
        Ok((Arc::new(opened), parts))
    }

    /// The batches of `fields` (each file's default fields if empty) in file order: whole
    /// clusters holding at least `step` entries each, never spanning two files. Each file
    /// is opened when its first batch is read and closed after its last.
    pub fn batches(&self, fields: &[&str], step: u64) -> DatasetBatches<'_> {
        DatasetBatches {
            dataset: self,
            fields: fields.iter().map(|f| f.to_string()).collect(),
            step,
            next_source: 0,
            current: None,
            recycler: Recycler::new(),
        }
    }

    /// Hands every batch (as [`Dataset::batches`] makes them) to `consume` in file order,
    /// with the index of its source, while the pool reads the batch after it, opening the
    /// next file if need be: the consumer's work and the next read overlap. Two batches
    /// are in memory at once, each filling the memory of the batch two before it. Stops at
    /// the first error, from a read or from `consume`, and returns it.
    pub fn for_each_read_ahead(
        &self,
        fields: &[&str],
        step: u64,
        mut consume: impl FnMut(usize, Range<u64>, &[(String, Array)]) -> Result<()>,
    ) -> Result<()> {
        let mut batches = self.batches(fields, step);
        let mut spare = Recycler::new();
        let Some(first) = batches.next() else {
            return Ok(());
        };
        let (mut index, mut range, mut arrays) = first?;
        loop {
            let mut ahead = None;
            let consumed = self.pool.in_place_scope(|scope| {
                let batches = &mut batches;
                let ahead = &mut ahead;
                scope.spawn(move |_| *ahead = batches.next());
                consume(index, range.clone(), &arrays)
            });
            // The batch just consumed fills the one after the next.
            for (_, array) in arrays {
                spare.recycle(array);
            }
            std::mem::swap(&mut spare, &mut batches.recycler);
            consumed?;
            match ahead {
                Some(next) => (index, range, arrays) = next?,
                None => return Ok(()),
            }
        }
    }

    /// Hands every batch of every file to `consume` on the pool: each thread takes the
    /// next batch not taken yet (opening the next file when none is left), reads it and
    /// consumes it, so that opening, reading and the consumer's work run on every thread
    /// (an event loop with one slot per thread, as RDataFrame's). Batches arrive in no
    /// particular order; `consume` gets the slot (below [`Dataset::slots`], used by one
    /// batch at a time: the place for per-slot accumulators), the index of the source, the
    /// entry range within its file and the arrays. Stops at the first error and returns it
    /// (batches already taken are finished first).
    ///
    /// ```no_run
    /// use std::sync::Mutex;
    /// use rootweave::array::Array;
    /// use rootweave::dataset::{Dataset, Source};
    /// use rootweave::ReadOptions;
    /// let files = vec![Source::parse("a.root:Events"), Source::parse("b.root:Events")];
    /// let dataset = Dataset::new(files, ReadOptions::default())?;
    /// let maxima: Vec<Mutex<f32>> =
    ///     (0..dataset.slots()).map(|_| Mutex::new(f32::MIN)).collect();
    /// dataset.for_each_parallel(&["MET_pt"], 1_000_000, |slot, _file, _entries, arrays| {
    ///     if let Array::Float32(met) = &arrays[0].1 {
    ///         let mut max = maxima[slot].lock().unwrap();
    ///         *max = met.iter().copied().fold(*max, f32::max);
    ///     }
    ///     Ok(())
    /// })?;
    /// # Ok::<(), rootweave::Error>(())
    /// ```
    pub fn for_each_parallel(
        &self,
        fields: &[&str],
        step: u64,
        consume: impl Fn(usize, usize, Range<u64>, &[(String, Array)]) -> Result<()> + Sync,
    ) -> Result<()> {
        self.for_each_unit(fields, step, |slot, unit, arrays| {
            consume(slot, unit.source, unit.entries, arrays)
        })
    }

    /// [`Dataset::for_each_parallel`], telling `consume` where each batch sits in the
    /// dataset's order (its [`Unit`]): a consumer that combines per-batch results in that
    /// order gets the same result whatever the number of threads and their timing.
    pub fn for_each_unit(
        &self,
        fields: &[&str],
        step: u64,
        consume: impl Fn(usize, Unit, &[(String, Array)]) -> Result<()> + Sync,
    ) -> Result<()> {
        self.for_each_unit_of(
            |_| Fields::needed(fields),
            step,
            |slot, unit, arrays| match unit.parts {
                0 => Ok(()),
                _ => consume(slot, unit, arrays),
            },
        )
    }

    /// [`Dataset::for_each_unit`] reading `fields(source)` of each source: one loop over
    /// the sources of several datasets ([`Dataset::chain`]), each read for its own needs,
    /// optional fields where a source has them.
    /// A source without batches is told as a unit of no parts (and no arrays), so that a
    /// consumer adding batches in dataset order does not wait for it.
    pub fn for_each_unit_of<'f>(
        &self,
        fields: impl Fn(usize) -> Fields<'f> + Sync,
        step: u64,
        consume: impl Fn(usize, Unit, &[(String, Array)]) -> Result<()> + Sync,
    ) -> Result<()> {
        self.units_on(self.slots(), &|| false, fields, step, consume)
    }

    /// [`Dataset::for_each_unit_of`] one batch at a time, in dataset order (each batch's
    /// pages still decompressed on the pool), until `stop` says so before a batch: for a
    /// consumer that carries a count from one batch to the next, and may need no more.
    pub fn for_each_unit_in_order<'f>(
        &self,
        stop: &(dyn Fn() -> bool + Sync),
        fields: impl Fn(usize) -> Fields<'f> + Sync,
        step: u64,
        consume: impl Fn(usize, Unit, &[(String, Array)]) -> Result<()> + Sync,
    ) -> Result<()> {
        self.units_on(1, stop, fields, step, consume)
    }

    /// The loop of [`Dataset::for_each_unit_of`] on `slots` threads of the pool, each
    /// asking `stop` before it takes a batch.
    fn units_on<'f>(
        &self,
        slots: usize,
        stop: &(dyn Fn() -> bool + Sync),
        fields: impl Fn(usize) -> Fields<'f> + Sync,
        step: u64,
        consume: impl Fn(usize, Unit, &[(String, Array)]) -> Result<()> + Sync,
    ) -> Result<()> {
        let queue = WorkQueue {
            state: Mutex::new((VecDeque::new(), 0)),
            failure: Mutex::new(None),
            sources: self.sources.len(),
        };
        let slot_loop = |slot: usize| {
            let mut recycler = Recycler::new();
            while let Some((opened, unit)) = (!stop())
                .then(|| queue.take(|index| self.open_planned(index, fields(index), step)))
                .flatten()
            {
                if unit.parts == 0 {
                    if let Err(e) = consume(slot, unit, &[]) {
                        return queue.fail(e);
                    }
                    continue;
                }
                let named = match opened.read(unit.entries.clone(), &mut recycler) {
                    Ok(named) => named,
                    Err(e) => return queue.fail(e),
                };
                let consumed = consume(slot, unit, &named);
                for (_, array) in named {
                    recycler.recycle(array);
                }
                if let Err(e) = consumed {
                    return queue.fail(e);
                }
            }
        };
        let slot_loop = &slot_loop;
        self.pool.scope(|scope| {
            for slot in 0..slots {
                scope.spawn(move |_| slot_loop(slot));
            }
        });
        match queue
            .failure
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
        {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Where a batch of [`Dataset::for_each_unit`] sits: its source, its place among that
/// source's batches (which depend on the file's clusters and the step alone, never on
/// threads), and its entry range within the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The index of the source.
    pub source: usize,
    /// The batch's index among the source's batches.
    pub part: usize,
    /// How many batches the source has (0: the source has none, a unit only
    /// [`Dataset::for_each_unit_of`] gives).
    pub parts: usize,
    /// The entries of the batch, within its file.
    pub entries: Range<u64>,
}

/// A batch to read: its open source and place.
type Work = (Arc<Opened>, Unit);

/// The batches waiting for the threads of [`Dataset::for_each_parallel`], refilled from
/// the next file when empty, and the first error.
struct WorkQueue {
    /// Batches not taken yet, and the index of the next source to open.
    state: Mutex<(VecDeque<Work>, usize)>,
    failure: Mutex<Option<Error>>,
    sources: usize,
}

impl WorkQueue {
    /// The next batch: one waiting, else the first of the next source (opened with
    /// `open`, outside the lock, so threads open files side by side). `None` when all are
    /// taken or after an error.
    fn take(&self, open: impl Fn(usize) -> Result<(Arc<Opened>, Vec<Range<u64>>)>) -> Option<Work> {
        loop {
            if self.failed() {
                return None;
            }
            let index = {
                let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(work) = state.0.pop_front() {
                    return Some(work);
                }
                if state.1 >= self.sources {
                    return None;
                }
                state.1 += 1;
                state.1 - 1
            };
            match open(index) {
                Ok((opened, ranges)) => {
                    let parts = ranges.len();
                    let mut units = ranges.into_iter().enumerate().map(|(part, entries)| Unit {
                        source: index,
                        part,
                        parts,
                        entries,
                    });
                    let Some(first) = units.next() else {
                        // A source without batches, told as such (see `for_each_unit_of`).
                        let none = Unit {
                            source: index,
                            part: 0,
                            parts: 0,
                            entries: 0..0,
                        };
                        return Some((opened, none));
                    };
                    let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
                    state.0.extend(units.map(|u| (opened.clone(), u)));
                    return Some((opened, first));
                }
                Err(e) => self.fail(e),
            }
        }
    }

    fn fail(&self, e: Error) {
        let mut failure = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        failure.get_or_insert(e);
    }

    fn failed(&self) -> bool {
        self.failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }
}

/// The batches of a [`Dataset`] in file order, as an iterator of owned arrays (see
/// [`Dataset::batches`]). Give arrays back with [`DatasetBatches::recycle`] to have the
/// next batch reuse their memory. Ends after the last batch or after an error.
pub struct DatasetBatches<'d> {
    dataset: &'d Dataset,
    fields: Vec<String>,
    step: u64,
    next_source: usize,
    current: Option<(Arc<Opened>, std::vec::IntoIter<Range<u64>>)>,
    recycler: Recycler,
}

impl std::fmt::Debug for DatasetBatches<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatasetBatches")
            .field("fields", &self.fields)
            .field("next_source", &self.next_source)
            .finish_non_exhaustive()
    }
}

impl DatasetBatches<'_> {
    /// Hands arrays of a batch back, so that a later batch fills their memory.
    pub fn recycle(&mut self, arrays: Vec<(String, Array)>) {
        for (_, array) in arrays {
            self.recycler.recycle(array);
        }
    }

    /// The next part to read, opening the next source when this one is done.
    fn next_part(&mut self) -> Result<Option<(Arc<Opened>, Range<u64>)>> {
        loop {
            if let Some((opened, parts)) = &mut self.current {
                if let Some(part) = parts.next() {
                    return Ok(Some((opened.clone(), part)));
                }
            }
            self.current = None;
            if self.next_source >= self.dataset.sources.len() {
                return Ok(None);
            }
            let fields: Vec<&str> = self.fields.iter().map(String::as_str).collect();
            let (opened, parts) =
                self.dataset
                    .open_planned(self.next_source, Fields::needed(&fields), self.step)?;
            self.next_source += 1;
            self.current = Some((opened, parts.into_iter()));
        }
    }
}

impl Iterator for DatasetBatches<'_> {
    type Item = Result<DatasetBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let read = self.next_part().and_then(|next| match next {
            Some((opened, part)) => {
                let arrays = opened.read(part.clone(), &mut self.recycler)?;
                Ok(Some((opened.index, part, arrays)))
            }
            None => Ok(None),
        });
        match read {
            Ok(batch) => batch.map(Ok),
            Err(e) => {
                self.next_source = self.dataset.sources.len();
                self.current = None;
                Some(Err(e))
            }
        }
    }
}
