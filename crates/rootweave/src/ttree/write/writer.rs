//! The sequential TTree writer: batches of entries go into each branch's open basket,
//! which is compressed and written when it reaches the basket size; all branches' baskets
//! are written together at cluster boundaries (the first after about 30 MB of stored
//! bytes, as ROOT's default `fAutoFlush` says, then every as many entries); the `TTree`
//! object is written on close.

use std::path::Path;
use std::sync::Arc;

use super::basket::place_record;
use super::branch::BranchSpec;
use super::clusters::cluster_layout;
use super::column::Column;
use super::entry::{as_batch, one_entry};
use super::filler::{BranchFiller, Sealed};
use super::layouts::tree_layouts;
use super::objects::{stream_tree, BranchRecord, TreeRecord, WrittenBasket};
use super::options::TTreeWriteOptions;
use super::resize::{resized, BasketUse};
use crate::array::{Array, ColumnData, Value};
use crate::compress::Compression;
use crate::container::{DirectoryId, FileWriter, KeyInfo, WriterOptions};
use crate::error::{Error, Result};

/// One branch being filled, and its baskets in the file.
struct BranchState {
    filler: BranchFiller,
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
    /// Entries at the end of each cluster so far.
    cluster_ends: Vec<u64>,
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
        let datime = file.datime();
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
                    filler: BranchFiller::new(spec, name, basket_size, compression, datime),
                    counter: counters[k],
                    max_count: counting[k].then_some(0),
                    baskets: Vec::new(),
                    tot_bytes: 0,
                    zip_bytes: 0,
                })
                .collect(),
            entries: 0,
            cluster_entries: None,
            cluster_ends: Vec::new(),
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
        let open = self.entries > self.cluster_ends.last().copied().unwrap_or(0);
        self.cluster_ends.len() as u64 + open as u64
    }

    /// Ends the current cluster here (as ROOT's `FlushBaskets` with `MarkEventCluster`):
    /// every branch writes its open basket, and the next entries start a new cluster. The
    /// tree records clusters of changing sizes as ROOT's cluster ranges. Nothing happens
    /// if no entry was added since the last cluster ended.
    pub fn end_cluster(&mut self) -> Result<()> {
        self.close_cluster()
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
            .map(|(b, v)| one_entry(&b.filler.spec, v))
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
            let column = Column::of(&b.filler.spec, data)?;
            let n = column.entries();
            if entries.is_some_and(|e| e != n) {
                return Err(Error::InvalidArgument(format!(
                    "extend: branch {} gets {n} entries, the branches before it {}",
                    b.filler.spec.name,
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
                        b.filler.spec.name, self.branches[k].filler.spec.name
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
        let widest = self
            .branches
            .iter()
            .map(|b| b.filler.spec.min_entry_bytes())
            .max();
        let step = (self.options.basket_size / widest.unwrap_or(1).max(1)).max(1);
        let mut start = 0;
        while start < total {
            let mut end = (start + step).min(total);
            if let Some(c) = self.cluster_entries {
                let to_boundary = c - self.entries % c;
                end = end.min(start + to_boundary as usize);
            }
            let mut sealed = Vec::new();
            for (k, column) in columns.iter().enumerate() {
                self.branches[k]
                    .filler
                    .append(column, start..end, &mut sealed)?;
                for basket in sealed.drain(..) {
                    self.place(k, basket)?;
                }
            }
            self.entries += (end - start) as u64;
            start = end;
            self.end_cluster_if_due()?;
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
            if self.cluster_entries.is_none() {
                self.seal_all()?;
                if self.options.resize_baskets {
                    self.resize_baskets();
                }
                self.cluster_entries = Some(self.entries);
            }
            self.close_cluster()?;
        }
        Ok(())
    }

    /// Writes every open basket and records a cluster boundary here; saves the tree when
    /// an auto-save is due.
    fn close_cluster(&mut self) -> Result<()> {
        if self.entries == self.cluster_ends.last().copied().unwrap_or(0) {
            return Ok(());
        }
        self.seal_all()?;
        self.cluster_ends.push(self.entries);
        self.flushed_bytes += self.bytes_in_cluster;
        self.bytes_in_cluster = 0;
        if self.flushed_bytes - self.saved_bytes >= self.options.auto_save_bytes {
            self.save()?;
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
                basket_size: b.filler.basket_size,
                tot_bytes: b.tot_bytes,
                entries: b.filler.appended,
                varying: b.filler.varying,
            })
            .collect();
        if let Some(sizes) = resized(&uses) {
            for (b, size) in self.branches.iter_mut().zip(sizes) {
                b.filler.set_basket_size(size);
            }
        }
    }

    /// Seals every branch's open basket and writes it.
    fn seal_all(&mut self) -> Result<()> {
        for k in 0..self.branches.len() {
            if let Some(basket) = self.branches[k].filler.seal() {
                self.place(k, basket)?;
            }
        }
        Ok(())
    }

    /// Writes a sealed basket of branch `k` at the end of the file.
    fn place(&mut self, k: usize, mut basket: Sealed) -> Result<()> {
        let file = self.file.as_ref().expect("the file is kept until finished");
        let seek = file.allocate(basket.record.len() as u64);
        place_record(&mut basket.record, seek);
        file.write_at(seek, &basket.record)?;
        let b = &mut self.branches[k];
        let nbytes = basket.record.len() as u64;
        b.baskets.push(WrittenBasket {
            seek,
            nbytes: nbytes as u32,
            first_entry: basket.first_entry,
        });
        b.tot_bytes += basket.tot_bytes;
        b.zip_bytes += nbytes;
        self.bytes_in_cluster += nbytes;
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
        self.seal_all()?;
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
                spec: &b.filler.spec,
                compress: setting,
                basket_size: b.filler.basket_size as i32,
                entries: self.entries,
                tot_bytes: b.tot_bytes,
                zip_bytes: b.zip_bytes,
                baskets: &b.baskets,
                entry_offset_len: b.filler.entry_offset_len,
                counter: b.counter,
                max_count: b.max_count,
                longest: b.filler.longest,
            })
            .collect();
        let layout = cluster_layout(&self.cluster_ends, self.entries);
        let (ranges, auto_flush) = match &layout {
            Some(l) => (&l.ranges[..], l.auto_flush),
            None => (&[][..], -(self.options.auto_flush_bytes as i64)),
        };
        let tree = TreeRecord {
            name: &self.name,
            title: &self.options.title,
            entries: self.entries,
            auto_flush,
            cluster_ranges: ranges,
            auto_save: -(self.options.auto_save_bytes.min(i64::MAX as u64) as i64),
            saved_bytes: self.saved_bytes,
            flushed_bytes: self.flushed_bytes,
            branches,
        };
        let file = self.file();
        let classes: Vec<&'static str> = self
            .branches
            .iter()
            .flat_map(|b| b.filler.spec.classes())
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
