//! The sequential TTree writer: batches of entries go into each branch's open basket,
//! which is compressed and written when it reaches the basket size; all branches' baskets
//! are written together at cluster boundaries (the first after about 30 MB of stored
//! bytes, as ROOT's default `fAutoFlush` says, then every as many entries); the `TTree`
//! object is written on close.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use super::basket::{basket_key_len, basket_record, place_record, BasketContent};
use super::branch::BranchSpec;
use super::column::Column;
use super::entry::{as_batch, one_entry};
use super::layouts::tree_layouts;
use super::objects::{stream_tree, BranchRecord, TreeRecord, WrittenBasket};
use super::options::TTreeWriteOptions;
use super::resize::{resized, BasketUse};
use crate::array::{Array, ColumnData, Value};
use crate::compress::Compression;
use crate::container::{DirectoryId, FileWriter, KeyInfo, WriterOptions};
use crate::error::{Error, Result};

/// The entry-offset table length ROOT 6.40 starts a branch of entries of varying size
/// with (the tree's `fDefaultEntryOffsetLen`).
const ENTRY_OFFSET_LEN: i32 = 1000;

/// One branch being filled.
struct BranchState {
    spec: BranchSpec,
    /// Bytes of entries a basket gathers (the tree's basket size, until the first cluster
    /// ends and ROOT's resizing sets one per branch).
    basket_size: usize,
    /// Entries a basket holds: ROOT writes a basket when one more entry would bring its
    /// buffer (key header included) to the basket size.
    capacity: usize,
    /// Entries appended so far.
    appended: u64,
    /// The open basket's entries, big-endian.
    pending: Vec<u8>,
    pending_entries: usize,
    /// For entries of varying size: where each of the open basket's entries starts in
    /// `pending`.
    entry_starts: Vec<u32>,
    /// Whether entries vary in size (and baskets carry an entry-offset table).
    varying: bool,
    /// ROOT's `fEntryOffsetLen`: the entry-offset table length a new basket starts with
    /// (0 for entries of fixed size), adjusted at each basket as ROOT adjusts it.
    entry_offset_len: i32,
    /// For a branch of C strings: the longest so far.
    longest: usize,
    /// The branch counting this one's items (an index into the branches).
    counter: Option<usize>,
    /// For a branch counting another's items: the largest count so far.
    max_count: Option<i64>,
    baskets: Vec<WrittenBasket>,
    tot_bytes: u64,
    zip_bytes: u64,
}

/// Writes one TTree, batch by batch (see [`BranchSpec`] for what its branches hold).
pub struct TTreeWriter {
    /// The file, until the writer is finished.
    file: Option<Arc<FileWriter>>,
    owns_file: bool,
    /// The directory the tree is in, and the tree's key once saved.
    dir: DirectoryId,
    saved: Option<KeyInfo>,
    /// Stored bytes at the last save.
    saved_bytes: u64,
    name: String,
    options: TTreeWriteOptions,
    compression: Compression,
    branches: Vec<BranchState>,
    entries: u64,
    /// Entries per cluster, once the first cluster has ended.
    cluster_entries: Option<u64>,
    /// Stored bytes of the baskets written since the last cluster boundary.
    bytes_in_cluster: u64,
    /// Stored bytes written up to the last cluster boundary.
    flushed_bytes: u64,
    closed: bool,
}

impl TTreeWriter {
    /// Creates (or overwrites) the file at `path` holding one tree called `name` (its
    /// baskets and the file compressed as `compression`). Closing the writer closes the
    /// file.
    pub fn recreate(
        path: impl AsRef<Path>,
        name: &str,
        branches: Vec<BranchSpec>,
        compression: Compression,
        options: TTreeWriteOptions,
    ) -> Result<Self> {
        let file =
            FileWriter::create(path, WriterOptions::default().with_compression(compression))?;
        let mut writer = Self::in_file(Arc::new(file), name, branches, options)?;
        writer.owns_file = true;
        Ok(writer)
    }

    /// Starts a tree called `name` in an open file, which may hold other objects. The
    /// file is closed by its owner after this writer is closed.
    pub fn in_file(
        file: Arc<FileWriter>,
        name: &str,
        branches: Vec<BranchSpec>,
        options: TTreeWriteOptions,
    ) -> Result<Self> {
        let (dir_path, name) = name.rsplit_once('/').unwrap_or(("", name));
        if name.is_empty() {
            return Err(Error::InvalidArgument(format!("tree name {name:?}")));
        }
        let dir = file.mkdir(dir_path)?;
        if options.basket_size == 0 {
            return Err(Error::InvalidArgument("a basket size of 0 bytes".into()));
        }
        let mut counters = vec![None; branches.len()];
        let mut counting = vec![false; branches.len()];
        for (i, b) in branches.iter().enumerate() {
            b.check().map_err(Error::InvalidArgument)?;
            if branches[..i].iter().any(|o| o.name == b.name) {
                return Err(Error::InvalidArgument(format!(
                    "branch name {:?} is repeated",
                    b.name
                )));
            }
            if let Some(c) = b.counter() {
                let k = branches[..i].iter().position(|o| o.name == c);
                let usable = k.is_some_and(|k| branches[k].counting_leaf().is_some());
                if !usable {
                    return Err(Error::InvalidArgument(format!(
                        "branch {}: its counter {c} must be an integer branch before it",
                        b.name
                    )));
                }
                counters[i] = k;
                counting[k.expect("checked")] = true;
            }
        }
        let compression = options.compression.unwrap_or_else(|| file.compression());
        let basket_size = options.basket_size;
        Ok(TTreeWriter {
            file: Some(file),
            owns_file: false,
            dir,
            saved: None,
            saved_bytes: 0,
            name: name.to_string(),
            options,
            compression,
            branches: branches
                .into_iter()
                .enumerate()
                .map(|(k, spec)| BranchState {
                    entry_starts: Vec::new(),
                    varying: spec.fixed_entry_bytes().is_none(),
                    entry_offset_len: if spec.fixed_entry_bytes().is_none() {
                        ENTRY_OFFSET_LEN
                    } else {
                        0
                    },
                    longest: 0,
                    counter: counters[k],
                    max_count: counting[k].then_some(0),
                    capacity: basket_capacity(&spec, name, basket_size),
                    basket_size,
                    appended: 0,
                    spec,
                    pending: Vec::new(),
                    pending_entries: 0,
                    baskets: Vec::new(),
                    tot_bytes: 0,
                    zip_bytes: 0,
                })
                .collect(),
            entries: 0,
            cluster_entries: None,
            bytes_in_cluster: 0,
            flushed_bytes: 0,
            closed: false,
        })
    }

    /// Entries written so far.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// Clusters of the entries written so far (the last may still grow).
    pub fn clusters(&self) -> u64 {
        match self.cluster_entries {
            Some(c) => self.entries.div_ceil(c),
            None => (self.entries > 0) as u64,
        }
    }

    /// Bytes of the baskets written so far: before compression (key headers included, as
    /// ROOT's `fTotBytes` counts them) and in the file.
    pub fn basket_bytes(&self) -> (u64, u64) {
        let tot = self.branches.iter().map(|b| b.tot_bytes).sum();
        let zip = self.branches.iter().map(|b| b.zip_bytes).sum();
        (tot, zip)
    }

    /// Appends one entry: a value per branch, in order (a number; the items of a
    /// fixed-size array as `Value::Array`s, nested per dimension; a counted array's items
    /// or a vector's as a `Value::List`, a counted array's matching its counter's value;
    /// a leaf list's values as a `Value::Record`; a string as a `Value::String`). Nothing
    /// is written if they do not match the branches.
    pub fn fill(&mut self, values: &[Value]) -> Result<()> {
        if values.len() != self.branches.len() {
            return Err(Error::InvalidArgument(format!(
                "fill: {} values given for {} branches",
                values.len(),
                self.branches.len()
            )));
        }
        let entries = self
            .branches
            .iter()
            .zip(values)
            .map(|(b, v)| one_entry(&b.spec, v))
            .collect::<Result<Vec<Array>>>()?;
        let batch: Vec<ColumnData> = entries.iter().map(as_batch).collect();
        self.extend(&batch)
    }

    /// Appends entries: one batch per branch, in order, all with the same number of
    /// entries. A fixed-size array branch takes its values flat or as nested
    /// `ColumnData::Array`s, a counted array a `ColumnData::List` whose lengths its counter
    /// branch's values must equal, a leaf list a `ColumnData::Record` of one batch per
    /// leaf, strings `ColumnData::Strings` or `StringBytes`, vectors `ColumnData::List`s
    /// (of lists or strings for vectors of vectors or strings). The whole batch is checked
    /// first; if it does not match the branches, nothing is written.
    pub fn extend(&mut self, batch: &[ColumnData]) -> Result<()> {
        if batch.len() != self.branches.len() {
            return Err(Error::InvalidArgument(format!(
                "extend: {} columns given for {} branches",
                batch.len(),
                self.branches.len()
            )));
        }
        let mut columns = Vec::with_capacity(batch.len());
        let mut entries = None;
        for (b, data) in self.branches.iter().zip(batch) {
            let column = Column::of(&b.spec, data)?;
            let n = column.entries();
            if entries.is_some_and(|e| e != n) {
                return Err(Error::InvalidArgument(format!(
                    "extend: branch {} gets {n} entries, the branches before it {}",
                    b.spec.name,
                    entries.unwrap_or(0)
                )));
            }
            entries = Some(n);
            columns.push(column);
        }
        for (b, column) in self.branches.iter().zip(&columns) {
            if let (Some(k), Column::Counted { offsets, .. }) = (b.counter, column) {
                let counts = &columns[k];
                let agree = (0..offsets.len() - 1)
                    .all(|e| counts.int(e) == Some((offsets[e + 1] - offsets[e]) as i64));
                if !agree {
                    return Err(Error::InvalidArgument(format!(
                        "extend: the lengths of branch {} differ from the values of its counter {}",
                        b.spec.name, self.branches[k].spec.name
                    )));
                }
            }
        }
        for (b, column) in self.branches.iter_mut().zip(&columns) {
            if let Some(max) = b.max_count.as_mut() {
                let n = column.entries();
                *max = (0..n).filter_map(|e| column.int(e)).fold(*max, i64::max);
            }
        }
        let total = entries.unwrap_or(0);
        // Slices no longer than a cluster's remainder, and about a basket of the widest
        // branch, so that the first cluster ends close to its byte target.
        let widest = self.branches.iter().map(|b| b.spec.min_entry_bytes()).max();
        let step = (self.options.basket_size / widest.unwrap_or(1).max(1)).max(1);
        let mut start = 0;
        while start < total {
            let mut end = (start + step).min(total);
            if let Some(c) = self.cluster_entries {
                let to_boundary = c - self.entries % c;
                end = end.min(start + to_boundary as usize);
            }
            for (k, column) in columns.iter().enumerate() {
                if self.branches[k].varying {
                    self.append_varying(k, column, start..end)?;
                } else {
                    self.append_fixed(k, column, start..end)?;
                }
            }
            self.entries += (end - start) as u64;
            start = end;
            self.end_cluster_if_due()?;
        }
        Ok(())
    }

    /// Appends entries `range` of a fixed-size branch, writing each basket that fills.
    fn append_fixed(&mut self, k: usize, column: &Column, range: Range<usize>) -> Result<()> {
        let mut at = range.start;
        while at < range.end {
            let b = &mut self.branches[k];
            let take = (b.capacity - b.pending_entries).min(range.end - at);
            column.append_fixed(at..at + take, &mut b.pending);
            b.pending_entries += take;
            b.appended += take as u64;
            at += take;
            if b.pending_entries == b.capacity {
                self.write_basket(k)?;
            }
        }
        Ok(())
    }

    /// Appends entries `range` of a branch of entries of varying size, one by one: ROOT
    /// writes the basket once its buffer, twice its entry-offset table and the last entry
    /// reach the basket size.
    fn append_varying(&mut self, k: usize, column: &Column, range: Range<usize>) -> Result<()> {
        let longest = column.longest(range.clone());
        self.branches[k].longest = self.branches[k].longest.max(longest);
        let keylen = basket_key_len(&self.branches[k].spec.name, &self.name);
        for e in range {
            let b = &mut self.branches[k];
            let before = b.pending.len();
            b.entry_starts.push(before as u32);
            column.append_entry(e, &mut b.pending)?;
            b.pending_entries += 1;
            b.appended += 1;
            let entry = b.pending.len() - before;
            let table = 4 * b.pending_entries;
            if keylen + b.pending.len() + 2 * table + entry >= b.basket_size
                || b.pending.len() > u32::MAX as usize / 2
            {
                self.write_basket(k)?;
            }
        }
        Ok(())
    }

    /// Ends a cluster where one is due: at a multiple of the cluster's entries once known,
    /// else when the stored bytes reach the target.
    fn end_cluster_if_due(&mut self) -> Result<()> {
        let due = match self.cluster_entries {
            Some(c) => self.entries % c == 0,
            None => self.bytes_in_cluster >= self.options.auto_flush_bytes,
        };
        if due && self.entries > 0 {
            for k in 0..self.branches.len() {
                self.write_basket(k)?;
            }
            if self.cluster_entries.is_none() && self.options.resize_baskets {
                self.resize_baskets();
            }
            self.cluster_entries.get_or_insert(self.entries);
            self.flushed_bytes += self.bytes_in_cluster;
            self.bytes_in_cluster = 0;
            if self.flushed_bytes - self.saved_bytes >= self.options.auto_save_bytes {
                self.save()?;
            }
        }
        Ok(())
    }

    /// Sizes each branch's baskets after the first cluster as ROOT does (see
    /// [`resized`]).
    fn resize_baskets(&mut self) {
        let uses: Vec<BasketUse> = self
            .branches
            .iter()
            .map(|b| BasketUse {
                basket_size: b.basket_size,
                tot_bytes: b.tot_bytes,
                entries: b.appended,
                varying: b.varying,
            })
            .collect();
        if let Some(sizes) = resized(&uses) {
            for (b, size) in self.branches.iter_mut().zip(sizes) {
                b.basket_size = size;
                b.capacity = basket_capacity(&b.spec, &self.name, size);
            }
        }
    }

    /// Compresses and writes branch `k`'s open basket (nothing if it is empty).
    fn write_basket(&mut self, k: usize) -> Result<()> {
        let b = &mut self.branches[k];
        if b.pending_entries == 0 {
            return Ok(());
        }
        let content = BasketContent {
            branch: &b.spec.name,
            tree: &self.name,
            data: &b.pending,
            entries: b.pending_entries,
            entry_bytes: match b.spec.fixed_entry_bytes() {
                Some(bytes) => bytes,
                None => b.entry_offset_len as usize,
            },
            offsets: b.varying.then_some(&b.entry_starts[..]),
            buffer_size: b.basket_size,
        };
        let file = self.file.as_ref().expect("the file is kept until finished");
        let (mut record, keylen) = basket_record(&content, file.datime(), self.compression);
        let seek = file.allocate(record.len() as u64);
        place_record(&mut record, seek);
        file.write_at(seek, &record)?;
        let first_entry = b.appended - b.pending_entries as u64;
        b.baskets.push(WrittenBasket {
            seek,
            nbytes: record.len() as u32,
            first_entry,
        });
        b.tot_bytes += (keylen + b.pending.len() + 4 * b.entry_starts.len()) as u64;
        b.zip_bytes += record.len() as u64;
        self.bytes_in_cluster += record.len() as u64;
        b.entry_offset_len = next_entry_offset_len(b.entry_offset_len, b.pending_entries);
        b.pending.clear();
        b.entry_starts.clear();
        b.pending_entries = 0;
        Ok(())
    }

    /// Writes the open baskets and the tree object; closes the file if this writer
    /// created it.
    pub fn close(mut self) -> Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        for k in 0..self.branches.len() {
            self.write_basket(k)?;
        }
        self.write_tree()?;
        let file = self.file.take().expect("the file is kept until finished");
        if self.owns_file {
            let file = Arc::try_unwrap(file).map_err(|_| {
                Error::InvalidArgument("the file is still shared and cannot be closed".into())
            })?;
            file.close()?;
        }
        Ok(())
    }
}

impl TTreeWriter {
    /// Saves the tree as ROOT's auto-save does: the tree object as it is now (all its
    /// baskets written) and the file's keys lists and header.
    fn save(&mut self) -> Result<()> {
        self.saved_bytes = self.flushed_bytes;
        self.write_tree()?;
        self.file().checkpoint()
    }

    fn file(&self) -> &FileWriter {
        self.file.as_ref().expect("the file is kept until finished")
    }

    /// Writes the tree object (replacing the one saved before) and its class layouts.
    fn write_tree(&mut self) -> Result<()> {
        let setting = self.compression.root_setting();
        let branches = self
            .branches
            .iter()
            .map(|b| BranchRecord {
                spec: &b.spec,
                compress: setting,
                basket_size: b.basket_size as i32,
                entries: self.entries,
                tot_bytes: b.tot_bytes,
                zip_bytes: b.zip_bytes,
                baskets: &b.baskets,
                entry_offset_len: b.entry_offset_len,
                counter: b.counter,
                max_count: b.max_count,
                longest: b.longest,
            })
            .collect();
        let tree = TreeRecord {
            name: &self.name,
            title: &self.options.title,
            entries: self.entries,
            auto_flush: self
                .cluster_entries
                .map_or(-(self.options.auto_flush_bytes as i64), |c| c as i64),
            auto_save: -(self.options.auto_save_bytes.min(i64::MAX as u64) as i64),
            saved_bytes: self.saved_bytes,
            flushed_bytes: self.flushed_bytes,
            branches,
        };
        let file = self.file();
        let classes: Vec<&'static str> = self
            .branches
            .iter()
            .flat_map(|b| b.spec.classes())
            .collect();
        file.add_streamer_infos(tree_layouts(&classes));
        let (name, title) = (&self.name, &self.options.title);
        let key_len = file.next_key_len("TTree", name, title);
        let payload = stream_tree(&tree, key_len);
        let key = match &self.saved {
            Some(previous) => file.rewrite_object(self.dir, previous, &payload, true)?,
            None => file.write_object_in(self.dir, "TTree", name, title, &payload, true)?,
        };
        debug_assert_eq!(key.keylen as usize, key_len);
        self.saved = Some(key);
        Ok(())
    }
}

impl Drop for TTreeWriter {
    /// A writer dropped without `close` still writes its tree, as ROOT's does; errors can
    /// only be reported by calling `close`.
    fn drop(&mut self) {
        if !self.closed {
            let _ = self.finish();
        }
    }
}

/// Entries of `spec` a basket of tree `tree` holds at basket size `basket_size`: ROOT
/// writes a basket once its buffer (key header and entries) and one more entry reach the
/// basket size, and a basket holds at least one entry.
fn basket_capacity(spec: &BranchSpec, tree: &str, basket_size: usize) -> usize {
    let keylen = basket_key_len(&spec.name, tree);
    let entry = spec.min_entry_bytes().max(1);
    (basket_size.saturating_sub(keylen).div_ceil(entry))
        .saturating_sub(1)
        .max(1)
}

/// ROOT's `fEntryOffsetLen` after a basket of `entries` entries of varying size is written:
/// shrunk when the table was much longer than needed, grown when it was too short.
fn next_entry_offset_len(len: i32, entries: usize) -> i32 {
    let n = entries.min(i32::MAX as usize / 4) as i32;
    if len > 10 && 4 * n < len {
        if n < 3 {
            10
        } else {
            4 * n
        }
    } else if len != 0 && n > len {
        2 * n
    } else {
        len
    }
}
