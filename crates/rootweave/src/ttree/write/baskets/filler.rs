//! One branch's entries gathered into baskets as ROOT's `TBranch::Fill` gathers them: a
//! basket is sealed (its record made and compressed, its place in the file still open) when
//! one more entry would bring its buffer to the basket size. Sealing is all a thread that
//! fills a branch does; where the records go is the writer's business.

use std::ops::Range;

use crate::compress::Compression;
use crate::error::Result;
use crate::ttree::write::baskets::basket::{basket_key_len, basket_record, BasketContent};
use crate::ttree::write::branches::branch::BranchSpec;
use crate::ttree::write::encoding::column::Column;

/// The entry-offset table length ROOT 6.40 starts a branch of entries of varying size
/// with (the tree's `fDefaultEntryOffsetLen`).
pub(in crate::ttree::write) const ENTRY_OFFSET_LEN: i32 = 1000;

/// A basket ready for the file: its record (offset still 0, see
/// [`crate::ttree::write::baskets::basket::place_record`]) and what the tree records of it.
pub(in crate::ttree::write) struct Sealed {
    pub record: Vec<u8>,
    /// Its first entry, counted from the filler's first.
    pub first_entry: u64,
    /// Bytes before compression (key, entries and entry-offset table), ROOT's `fTotBytes`.
    pub tot_bytes: u64,
}

/// One branch's open basket and what its baskets need.
pub(in crate::ttree::write) struct BranchFiller {
    pub spec: BranchSpec,
    /// Bytes of entries a basket gathers (the tree's basket size, until the first cluster
    /// ends and ROOT's resizing sets one per branch).
    pub basket_size: usize,
    /// Entries a fixed-size basket holds: ROOT writes one when one more entry would bring
    /// its buffer (key header included) to the basket size.
    capacity: usize,
    /// Entries appended so far.
    pub appended: u64,
    /// The open basket's entries, big-endian.
    pending: Vec<u8>,
    pending_entries: usize,
    /// For entries of varying size: where each of the open basket's entries starts.
    entry_starts: Vec<u32>,
    /// Bytes of each entry when they have a fixed size (the spec's, found once: it is asked
    /// at every append, and summing a class part's leaves each time showed with 10,000
    /// branches).
    fixed_entry_bytes: Option<usize>,
    /// ROOT's `fEntryOffsetLen`: the entry-offset table length a new basket starts with
    /// (0 for entries of fixed size), adjusted at each basket as ROOT adjusts it.
    pub entry_offset_len: i32,
    /// For a branch of C strings: the longest so far.
    pub longest: usize,
    tree: String,
    keylen: usize,
    compression: Compression,
    datime: u32,
}

impl BranchFiller {
    /// A branch `spec` of tree `tree`, its baskets `basket_size` bytes, compressed as
    /// `compression` and dated `datime`.
    pub fn new(
        spec: BranchSpec,
        tree: &str,
        basket_size: usize,
        compression: Compression,
        datime: u32,
    ) -> Self {
        let fixed_entry_bytes = spec.fixed_entry_bytes();
        let varying = fixed_entry_bytes.is_none();
        BranchFiller {
            fixed_entry_bytes,
            capacity: basket_capacity(&spec, tree, basket_size),
            keylen: basket_key_len(&spec.name, tree),
            spec,
            basket_size,
            appended: 0,
            pending: Vec::new(),
            pending_entries: 0,
            entry_starts: Vec::new(),
            entry_offset_len: if varying { ENTRY_OFFSET_LEN } else { 0 },
            longest: 0,
            tree: tree.to_string(),
            compression,
            datime,
        }
    }

    /// Whether entries vary in size (and baskets carry an entry-offset table).
    pub fn varying(&self) -> bool {
        self.fixed_entry_bytes.is_none()
    }

    /// Sets the basket size of the baskets to come.
    pub fn set_basket_size(&mut self, size: usize) {
        self.basket_size = size;
        self.capacity = basket_capacity(&self.spec, &self.tree, size);
    }

    /// Bytes its buffers hold, and the most the record of its open basket takes once
    /// sealed (the entries, stored raw at worst, with their headers and offsets, and the
    /// copy of the entries with their offset table made while sealing).
    pub fn held_bytes(&self) -> u64 {
        let buffers = self.pending.capacity() + 4 * self.entry_starts.capacity();
        let sealing = match self.pending_entries {
            0 => 0,
            _ => {
                let table = 4 * self.entry_starts.len() + 8;
                let copy = if self.varying() {
                    self.pending.len() + table
                } else {
                    0
                };
                self.pending.len() + table + self.keylen + 64 + copy
            }
        };
        (buffers + sealing) as u64
    }

    /// Bytes of entries in the open basket.
    pub fn pending_bytes(&self) -> usize {
        self.pending.len()
    }

    /// Drops the open basket's entries (of a producer that failed).
    pub fn discard(&mut self) {
        self.appended -= self.pending_entries as u64;
        self.pending.clear();
        self.entry_starts.clear();
        self.pending_entries = 0;
    }

    /// Frees the buffers of an empty filler (they are made again as entries come).
    pub fn release_memory(&mut self) {
        if self.pending_entries == 0 {
            self.pending = Vec::new();
            self.entry_starts = Vec::new();
        }
    }

    /// Starts an empty filler afresh, as a new branch starts (entries counted from 0,
    /// ROOT's first entry-offset table length, no longest string), so that what it writes
    /// next does not depend on what it wrote before.
    pub fn restart(&mut self) {
        debug_assert_eq!(self.pending_entries, 0);
        self.appended = 0;
        self.entry_offset_len = if self.varying() { ENTRY_OFFSET_LEN } else { 0 };
        self.longest = 0;
    }

    /// Appends entries `range` of `column`, pushing each basket that fills to `out`.
    pub fn append(
        &mut self,
        column: &Column,
        range: Range<usize>,
        out: &mut Vec<Sealed>,
    ) -> Result<()> {
        if !self.spec.holds_data() {
            // A branch grouping sub-branches: entries counted, no baskets.
            self.appended += range.len() as u64;
            Ok(())
        } else if self.varying() {
            self.append_varying(column, range, out)
        } else {
            self.append_fixed(column, range, out);
            Ok(())
        }
    }

    /// The buffer an open basket is given at once: the bytes of its entries when they have
    /// a fixed size; else twice the basket size, which holds the basket and the entry that
    /// ends it, so that the buffer grows (by no more than the entry, which the writer
    /// reserved budget for) only for an entry larger than a basket.
    fn buffer_bytes(&self) -> usize {
        match self.fixed_entry_bytes {
            Some(entry) => self.capacity * entry,
            None => 2 * self.basket_size,
        }
    }

    /// Bytes of the open basket's buffer not allocated yet.
    pub fn unallocated_bytes(&self) -> usize {
        self.buffer_bytes().saturating_sub(self.pending.capacity())
    }

    /// Gives the open basket's buffer its full size before the first entries go in: grown
    /// by doubling, it was copied a dozen times into fresh memory (with 1000 branches, 15%
    /// of a write's time).
    fn allocate_buffer(&mut self) {
        let missing = self.unallocated_bytes();
        if missing > 0 {
            self.pending
                .reserve_exact(self.buffer_bytes() - self.pending.len());
        }
    }

    /// Appends fixed-size entries, a run per basket.
    fn append_fixed(&mut self, column: &Column, range: Range<usize>, out: &mut Vec<Sealed>) {
        self.allocate_buffer();
        let mut at = range.start;
        while at < range.end {
            let take = (self.capacity - self.pending_entries).min(range.end - at);
            column.append_fixed(at..at + take, &mut self.pending);
            self.pending_entries += take;
            self.appended += take as u64;
            at += take;
            if self.pending_entries == self.capacity {
                out.extend(self.seal());
            }
        }
    }

    /// Appends entries of varying size one by one: ROOT writes the basket once its buffer,
    /// twice its entry-offset table and the last entry reach the basket size.
    fn append_varying(
        &mut self,
        column: &Column,
        range: Range<usize>,
        out: &mut Vec<Sealed>,
    ) -> Result<()> {
        self.longest = self.longest.max(column.longest(range.clone()));
        self.allocate_buffer();
        for e in range {
            let before = self.pending.len();
            self.entry_starts.push(before as u32);
            column.append_entry(e, &mut self.pending)?;
            self.pending_entries += 1;
            self.appended += 1;
            let entry = self.pending.len() - before;
            let table = 4 * self.pending_entries;
            if self.keylen + self.pending.len() + 2 * table + entry >= self.basket_size
                || self.pending.len() > u32::MAX as usize / 2
            {
                out.extend(self.seal());
            }
        }
        Ok(())
    }

    /// Compresses the open basket into its record (none if it is empty) and starts the
    /// next.
    pub fn seal(&mut self) -> Option<Sealed> {
        if self.pending_entries == 0 {
            return None;
        }
        let content = BasketContent {
            branch: &self.spec.name,
            tree: &self.tree,
            data: &self.pending,
            entries: self.pending_entries,
            entry_bytes: match self.fixed_entry_bytes {
                Some(bytes) => bytes,
                None => self.entry_offset_len as usize,
            },
            offsets: self.varying().then_some(&self.entry_starts[..]),
            buffer_size: self.basket_size,
        };
        let (record, keylen) = basket_record(&content, self.datime, self.compression);
        let sealed = Sealed {
            record,
            first_entry: self.appended - self.pending_entries as u64,
            // The entry-offset table as the record holds it: its length, each entry's
            // start and the end.
            tot_bytes: (keylen
                + self.pending.len()
                + if self.varying() {
                    4 * self.entry_starts.len() + 8
                } else {
                    0
                }) as u64,
        };
        self.entry_offset_len = next_entry_offset_len(self.entry_offset_len, self.pending_entries);
        self.pending.clear();
        self.entry_starts.clear();
        self.pending_entries = 0;
        Some(sealed)
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
