//! The sequential TTree writer: batches of entries go into each branch's open basket,
//! which is compressed and written when it reaches the basket size; all branches' baskets
//! are written together at cluster boundaries (the first after about 30 MB of stored
//! bytes, as ROOT's default `fAutoFlush` says, then every as many entries); the `TTree`
//! object is written on close.

use std::path::Path;
use std::sync::Arc;

use super::options::TTreeWriteOptions;
use crate::array::{ColumnData, Value};
use crate::compress::Compression;
use crate::container::{DirectoryId, FileWriter, WriterOptions};
use crate::error::{Error, Result};
use crate::ttree::write::baskets::basket::place_record;
use crate::ttree::write::baskets::filler::{BranchFiller, Sealed};
use crate::ttree::write::baskets::resize::{resized, BasketUse};
use crate::ttree::write::branches::branch::BranchSpec;
use crate::ttree::write::branches::shape::TreeShape;
use crate::ttree::write::tree::catalog::{TreeCatalog, TreeObject};

/// Writes one TTree, batch by batch (see [`BranchSpec`] for what its branches hold).
pub struct TTreeWriter {
    /// The file, until the writer is finished.
    file: Option<Arc<FileWriter>>,
    owns_file: bool,
    /// The directory the tree is in.
    dir: DirectoryId,
    name: String,
    options: TTreeWriteOptions,
    compression: Compression,
    shape: TreeShape,
    /// Each branch's open basket.
    fillers: Vec<BranchFiller>,
    /// What the tree object records.
    catalog: TreeCatalog,
    /// Entries per cluster, once the first cluster has ended.
    cluster_entries: Option<u64>,
    /// Stored bytes of the baskets written since the last cluster boundary.
    bytes_in_cluster: u64,
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
        let (dir_path, name) = split_tree_path(name)?;
        if options.basket_size == 0 {
            return Err(Error::InvalidArgument("a basket size of 0 bytes".into()));
        }
        let shape = TreeShape::new(branches)?;
        let dir = file.mkdir(dir_path)?;
        let compression = options.compression.unwrap_or_else(|| file.compression());
        let basket_size = options.basket_size;
        let datime = file.datime();
        let fillers = shape
            .specs
            .iter()
            .map(|spec| BranchFiller::new(spec.clone(), name, basket_size, compression, datime))
            .collect();
        let mut writer = TTreeWriter {
            file: Some(file),
            owns_file: false,
            dir,
            name: name.to_string(),
            options,
            compression,
            catalog: TreeCatalog::new(&shape, basket_size),
            shape,
            fillers,
            cluster_entries: None,
            bytes_in_cluster: 0,
            closed: false,
        };
        // Saved at once, empty: a process killed before the first auto-save leaves a
        // file that opens, whose baskets `rootweave recover` adds to this tree.
        if writer.options.auto_save_bytes != u64::MAX {
            writer.write_tree(true)?;
        }
        Ok(writer)
    }

    /// Entries written so far.
    pub fn entries(&self) -> u64 {
        self.catalog.entries
    }

    /// Entries of the tree at its last auto-save: what a reader finds in the file if this
    /// process dies before `close`.
    pub fn saved_entries(&self) -> u64 {
        self.catalog.saved_entries
    }

    /// Clusters of the entries written so far (the last may still grow).
    pub fn clusters(&self) -> u64 {
        self.catalog.clusters()
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
        (self.catalog.tot_bytes(), self.catalog.zip_bytes())
    }

    /// Appends one entry: a value per branch, in order (a number; the items of a
    /// fixed-size array as `Value::Array`s, nested per dimension; a counted array's items
    /// or a vector's as a `Value::List`, a counted array's matching its counter's value;
    /// a leaf list's values as a `Value::Record`; a string as a `Value::String`). Nothing
    /// is written if they do not match the branches.
    pub fn fill(&mut self, values: &[Value]) -> Result<()> {
        let entry = self.shape.entry(values)?;
        self.extend(&TreeShape::entry_batch(&entry))
    }

    /// Appends entries: one batch per branch, in order, all with the same number of
    /// entries. A fixed-size array branch takes its values flat or as nested
    /// `ColumnData::Array`s, a counted array a `ColumnData::List` whose lengths its counter
    /// branch's values must equal, a leaf list a `ColumnData::Record` of one batch per
    /// leaf, strings `ColumnData::Strings` or `StringBytes`, vectors `ColumnData::List`s
    /// (of lists or strings for vectors of vectors or strings). The whole batch is checked
    /// first; if it does not match the branches, nothing is written.
    pub fn extend(&mut self, batch: &[ColumnData]) -> Result<()> {
        let checked = self.shape.columns(batch)?;
        let mut max_counts: Vec<Option<i64>> =
            self.catalog.branches.iter().map(|b| b.max_count).collect();
        self.shape.update_max_counts(&checked, &mut max_counts);
        for (b, max) in self.catalog.branches.iter_mut().zip(max_counts) {
            b.max_count = max;
        }
        let total = checked.entries;
        // Slices no longer than a cluster's remainder, and about a basket of the widest
        // branch, so that the first cluster ends close to its byte target.
        let step = self.shape.step(self.options.basket_size);
        let mut start = 0;
        while start < total {
            let mut end = (start + step).min(total);
            if let Some(c) = self.cluster_entries {
                let to_boundary = c - self.catalog.entries % c;
                end = end.min(start + to_boundary as usize);
            }
            let mut sealed = Vec::new();
            for (k, column) in checked.columns.iter().enumerate() {
                self.fillers[k].append(column, start..end, &mut sealed)?;
                for basket in sealed.drain(..) {
                    self.place(k, basket)?;
                }
            }
            self.catalog.entries += (end - start) as u64;
            start = end;
            self.end_cluster_if_due()?;
        }
        Ok(())
    }

    /// Ends a cluster where one is due: at a multiple of the cluster's entries once known,
    /// else when the stored bytes reach the target.
    fn end_cluster_if_due(&mut self) -> Result<()> {
        let entries = self.catalog.entries;
        let due = match self.cluster_entries {
            Some(c) => entries % c == 0,
            None => self.bytes_in_cluster >= self.options.auto_flush_bytes,
        };
        if due && entries > 0 {
            if self.cluster_entries.is_none() {
                self.seal_all()?;
                if self.options.resize_baskets {
                    self.resize_baskets();
                }
                self.cluster_entries = Some(entries);
            }
            self.close_cluster()?;
        }
        Ok(())
    }

    /// Writes every open basket and records a cluster boundary here; saves the tree when
    /// an auto-save is due.
    fn close_cluster(&mut self) -> Result<()> {
        self.seal_all()?;
        self.bytes_in_cluster = 0;
        if self.catalog.end_cluster(self.options.auto_save_bytes) {
            self.write_tree(true)?;
        }
        Ok(())
    }

    /// Sizes each branch's baskets after the first cluster as ROOT does (see
    /// [`resized`]).
    fn resize_baskets(&mut self) {
        let uses: Vec<BasketUse> = self
            .fillers
            .iter()
            .zip(&self.catalog.branches)
            .map(|(f, b)| BasketUse {
                basket_size: f.basket_size,
                tot_bytes: b.tot_bytes,
                entries: f.appended,
                varying: f.varying(),
            })
            .collect();
        if let Some(sizes) = resized(&uses) {
            for (f, size) in self.fillers.iter_mut().zip(sizes) {
                f.set_basket_size(size);
            }
        }
    }

    /// Seals every branch's open basket and writes it.
    fn seal_all(&mut self) -> Result<()> {
        for k in 0..self.fillers.len() {
            if let Some(basket) = self.fillers[k].seal() {
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
        self.catalog
            .record_basket(k, &basket, seek, basket.first_entry);
        self.bytes_in_cluster += basket.record.len() as u64;
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
        self.write_tree(false)?;
        let file = self.file.take().expect("the file is kept until finished");
        if self.owns_file {
            let file = Arc::try_unwrap(file).map_err(|_| {
                Error::InvalidArgument("the file is still shared and cannot be closed".into())
            })?;
            file.close()?;
        }
        Ok(())
    }

    /// Copies each filler's basket size and entry-offset table length to the catalog.
    fn note_fillers(&mut self) {
        for (k, f) in self.fillers.iter().enumerate() {
            self.catalog.note_filler(k, f);
        }
    }

    /// Writes the tree object; with `save`, as an auto-save (with the file's keys lists
    /// and header).
    fn write_tree(&mut self, save: bool) -> Result<()> {
        self.note_fillers();
        let tree = TreeObject {
            name: &self.name,
            dir: self.dir,
            shape: &self.shape,
            options: &self.options,
            compression: self.compression,
        };
        let file = self
            .file
            .as_deref()
            .expect("the file is kept until finished");
        if save {
            self.catalog.save(&tree, file)
        } else {
            self.catalog.write_tree(&tree, file)
        }
    }
}

/// Splits a tree path `"dir/sub/name"` into its directory and its name.
pub(super) fn split_tree_path(path: &str) -> Result<(&str, &str)> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    if name.is_empty() {
        return Err(Error::InvalidArgument(format!("tree name {path:?}")));
    }
    Ok((dir, name))
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
