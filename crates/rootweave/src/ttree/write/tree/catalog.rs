//! What the tree object records, as both writers keep it: each branch's baskets in the
//! file and byte counts, the cluster boundaries, the saves; and the writing of the tree
//! object (replacing the one saved before) with its class layouts.

use crate::compress::Compression;
use crate::container::{DirectoryId, FileWriter, KeyInfo};
use crate::error::Result;
use crate::ttree::write::baskets::clusters::cluster_layout;
use crate::ttree::write::baskets::filler::{BranchFiller, Sealed, ENTRY_OFFSET_LEN};
use crate::ttree::write::branches::branch::BranchKind;
use crate::ttree::write::branches::shape::TreeShape;
use crate::ttree::write::options::TTreeWriteOptions;
use crate::ttree::write::tree::layouts::tree_layouts;
use crate::ttree::write::tree::tree_object::{
    stream_tree, BranchRecord, TreeRecord, WrittenBasket,
};

/// One branch's baskets in the file and what its object records besides.
pub(in crate::ttree::write) struct BranchCatalog {
    pub baskets: Vec<WrittenBasket>,
    /// Bytes of its baskets before compression (key headers included) and in the file.
    pub tot_bytes: u64,
    pub zip_bytes: u64,
    /// For a branch counting another's items: the largest count so far.
    pub max_count: Option<i64>,
    /// Its basket size, entry-offset table length and longest C string (see
    /// [`BranchFiller`]).
    pub basket_size: usize,
    pub entry_offset_len: i32,
    pub longest: usize,
}

/// The tree as its object records it, growing as baskets and clusters are written.
pub(in crate::ttree::write) struct TreeCatalog {
    pub branches: Vec<BranchCatalog>,
    pub entries: u64,
    /// Entries at the end of each cluster so far.
    pub cluster_ends: Vec<u64>,
    /// Stored bytes written up to the last cluster boundary, and at the last save.
    pub flushed_bytes: u64,
    pub saved_bytes: u64,
    /// The tree's key once saved.
    saved: Option<KeyInfo>,
    /// Entries of the tree at its last save (what a reader finds if the writer dies).
    pub saved_entries: u64,
}

impl TreeCatalog {
    /// A tree of `shape`'s branches without entries.
    pub fn new(shape: &TreeShape, basket_size: usize) -> Self {
        TreeCatalog {
            branches: shape
                .initial_max_counts()
                .into_iter()
                .zip(&shape.specs)
                .map(|(max_count, spec)| BranchCatalog {
                    baskets: Vec::new(),
                    tot_bytes: 0,
                    zip_bytes: 0,
                    max_count,
                    basket_size,
                    // As the branch's filler starts: a tree saved before any basket
                    // already says which branches have entries of varying size.
                    entry_offset_len: if spec.fixed_entry_bytes().is_none() {
                        ENTRY_OFFSET_LEN
                    } else {
                        0
                    },
                    longest: 0,
                })
                .collect(),
            entries: 0,
            cluster_ends: Vec::new(),
            flushed_bytes: 0,
            saved_bytes: 0,
            saved: None,
            saved_entries: 0,
        }
    }

    /// Records basket `basket` of branch `k`, written at `seek` with its first entry at
    /// `first_entry` of the tree.
    pub fn record_basket(&mut self, k: usize, basket: &Sealed, seek: u64, first_entry: u64) {
        let b = &mut self.branches[k];
        let nbytes = basket.record.len() as u64;
        b.baskets.push(WrittenBasket {
            seek,
            nbytes: nbytes as u32,
            first_entry,
        });
        b.tot_bytes += basket.tot_bytes;
        b.zip_bytes += nbytes;
    }

    /// Takes branch `k`'s basket size, entry-offset table length and longest string from
    /// the filler that wrote its latest baskets.
    pub fn note_filler(&mut self, k: usize, filler: &BranchFiller) {
        let b = &mut self.branches[k];
        b.basket_size = filler.basket_size;
        b.entry_offset_len = filler.entry_offset_len;
        b.longest = b.longest.max(filler.longest);
    }

    /// Stored bytes of every basket recorded.
    pub fn zip_bytes(&self) -> u64 {
        self.branches.iter().map(|b| b.zip_bytes).sum()
    }

    /// Stored bytes of every basket recorded, before compression.
    pub fn tot_bytes(&self) -> u64 {
        self.branches.iter().map(|b| b.tot_bytes).sum()
    }

    /// Records a cluster boundary after the entries recorded so far (nothing if no entry
    /// came since the last one); returns whether the tree is due to be saved.
    pub fn end_cluster(&mut self, auto_save_bytes: u64) -> bool {
        if self.entries == self.cluster_ends.last().copied().unwrap_or(0) {
            return false;
        }
        self.cluster_ends.push(self.entries);
        self.flushed_bytes = self.zip_bytes();
        self.flushed_bytes - self.saved_bytes >= auto_save_bytes
    }

    /// Takes the cluster of `entries` entries from `first` out of the tree (its baskets,
    /// their bytes before compression given per branch in `tot_bytes`, and its boundary);
    /// the entries after it move down. For a cluster whose bytes could not be written.
    pub fn remove_cluster(&mut self, first: u64, entries: u64, tot_bytes: &[(usize, u64)]) {
        let end = first + entries;
        for b in &mut self.branches {
            b.baskets.retain(|w| {
                let inside = (first..end).contains(&w.first_entry);
                if inside {
                    b.zip_bytes -= w.nbytes as u64;
                }
                !inside
            });
            for w in &mut b.baskets {
                if w.first_entry >= end {
                    w.first_entry -= entries;
                }
            }
        }
        for &(k, tot) in tot_bytes {
            self.branches[k].tot_bytes -= tot;
        }
        self.cluster_ends.retain(|&e| e != end);
        for e in &mut self.cluster_ends {
            if *e > end {
                *e -= entries;
            }
        }
        self.entries -= entries;
        self.flushed_bytes = self.zip_bytes();
        self.saved_bytes = self.saved_bytes.min(self.flushed_bytes);
    }

    /// Clusters of the entries recorded (the last may still grow).
    pub fn clusters(&self) -> u64 {
        let open = self.entries > self.cluster_ends.last().copied().unwrap_or(0);
        self.cluster_ends.len() as u64 + open as u64
    }

    /// Saves the tree as ROOT's auto-save does: the tree object as it is now (every basket
    /// it records must be in the file) and the file's keys lists and header.
    pub fn save(&mut self, tree: &TreeObject, file: &FileWriter) -> Result<()> {
        self.saved_bytes = self.flushed_bytes;
        self.write_tree(tree, file)?;
        file.checkpoint()?;
        self.saved_entries = self.entries;
        Ok(())
    }

    /// Writes the tree object (replacing the one saved before) and its class layouts.
    pub fn write_tree(&mut self, tree: &TreeObject, file: &FileWriter) -> Result<()> {
        let setting = tree.compression.root_setting();
        let shape = tree.shape;
        let branches = self
            .branches
            .iter()
            .enumerate()
            .map(|(k, b)| BranchRecord {
                spec: &shape.specs[k],
                compress: setting,
                basket_size: b.basket_size as i32,
                entries: self.entries,
                tot_bytes: b.tot_bytes,
                zip_bytes: b.zip_bytes,
                baskets: &b.baskets,
                entry_offset_len: b.entry_offset_len,
                counter: shape.counters[k],
                max_count: b.max_count,
                longest: b.longest,
            })
            .collect();
        let options = tree.options;
        let layout = cluster_layout(&self.cluster_ends, self.entries);
        let (ranges, auto_flush) = match &layout {
            Some(l) => (&l.ranges[..], l.auto_flush),
            None => (&[][..], -(options.auto_flush_bytes as i64)),
        };
        let record = TreeRecord {
            name: tree.name,
            title: &options.title,
            entries: self.entries,
            auto_flush,
            cluster_ranges: ranges,
            auto_save: -(options.auto_save_bytes.min(i64::MAX as u64) as i64),
            saved_bytes: self.saved_bytes,
            flushed_bytes: self.flushed_bytes,
            branches,
        };
        let classes: Vec<&'static str> = shape.specs.iter().flat_map(|s| s.classes()).collect();
        let mut layouts = tree_layouts(&classes);
        for spec in &shape.given {
            if let BranchKind::Object { class, .. } = &spec.kind {
                class.layouts(&mut layouts);
            }
        }
        file.add_streamer_infos(layouts);
        let key_len = file.next_key_len("TTree", tree.name, &options.title);
        let payload = stream_tree(&record, key_len);
        let key = match &self.saved {
            Some(previous) => file.rewrite_object(tree.dir, previous, &payload, true)?,
            None => {
                file.write_object_in(tree.dir, "TTree", tree.name, &options.title, &payload, true)?
            }
        };
        debug_assert_eq!(key.keylen as usize, key_len);
        self.saved = Some(key);
        Ok(())
    }
}

/// What the tree object says beside its catalog: name, directory, branches, settings.
pub(in crate::ttree::write) struct TreeObject<'a> {
    pub name: &'a str,
    pub dir: DirectoryId,
    pub shape: &'a TreeShape,
    pub options: &'a TTreeWriteOptions,
    pub compression: Compression,
}
