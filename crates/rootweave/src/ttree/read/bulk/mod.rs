//! Bulk reads of fixed-size, counter-indexed and `std::vector` branches of plain numbers,
//! straight into
//! their final arrays: each basket's place in the output is computed first (from entry
//! numbers, and for jagged branches from the basket headers' data lengths), the output
//! is allocated once and cut into disjoint slices, and baskets are then fetched in
//! coalesced chunks, decompressed into per-thread scratch buffers and converted from
//! big-endian into their slices, in parallel. Memory in flight is bounded by the chunk
//! size and the scratch buffers of each thread.

use std::cell::RefCell;
use std::ops::Range;

mod convert;
mod entries;
mod fill;
mod plan;
mod sizing;

pub(crate) use plan::BulkPlan;

use crate::array::buffer::{Buffer, Dst, Target};
use crate::array::Array;
use crate::array::Recycler;
use crate::container::windows::{self, Window, WindowBuffers};
use crate::container::RootFile;
use crate::error::{Error, Result};
use crate::ttree::interpretation::wrap_fixed;
use crate::ttree::model::Branch;

/// One branch of a bulk read: its layout and the parts of its baskets to read, in
/// entry order (basket index, entries of the basket).
pub struct BulkField<'a> {
    /// The branch.
    pub branch: &'a Branch,
    /// Its layout.
    pub plan: BulkPlan,
    /// Baskets and the entries of each to read.
    pub parts: Vec<(usize, Range<usize>)>,
}

/// What a bulk read needs of its reader.
pub struct BulkContext<'a> {
    /// The file.
    pub file: &'a RootFile,
    /// The tree's name (for messages).
    pub tree: &'a str,
    /// The threads.
    pub pool: &'a rayon::ThreadPool,
    /// Stored bytes fetched at once by one thread (at least one basket).
    pub chunk_bytes: u64,
    /// The read's memory budget (`ReadOptions::memory_budget`): a remote file's windows
    /// are an eighth of it.
    pub memory_budget: u64,
    /// Buffers of a remote file's windows, kept by the reader between reads.
    pub windows: &'a WindowBuffers,
    /// Ask the kernel for huge pages for newly allocated outputs (the caller's choice,
    /// `ReadOptions::huge_pages`).
    pub huge_pages: bool,
}

/// Basket parts whose value counts are found on the calling thread rather than the pool.
const INLINE_COUNTS: usize = 16;

/// Output bytes that are allocated whatever the stored bytes.
pub const TRUSTED_BYTES: u64 = 64 << 20;

/// Beyond [`TRUSTED_BYTES`], the most output bytes per stored byte that are allocated
/// before the data is decompressed (LZ4 cannot expand more than 255 times).
pub const MAX_EXPANSION: u64 = 256;

/// One basket part's destination.
struct Task<'a> {
    field: usize,
    basket: usize,
    within: Range<usize>,
    /// Values (already cut to this part's length).
    values: Dst<'a>,
    /// For jagged branches: the part's entries' end offsets, and the first item's index.
    offsets: Option<(&'a mut [u64], u64)>,
}

/// Reusable buffers of one thread.
#[derive(Default)]
struct Scratch {
    fetch: Vec<u8>,
    plain: Vec<u8>,
    offsets: Vec<usize>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl BulkContext<'_> {
    /// An output buffer from the recycler; a newly allocated one gets huge pages if the
    /// caller asked for them.
    fn output(&self, recycler: &mut Recycler, target: Target, len: usize) -> Buffer {
        let (buffer, fresh) = recycler.buffer(target, len);
        if fresh && self.huge_pages {
            buffer.prefer_huge_pages();
        }
        buffer
    }

    fn object(&self, branch: &Branch, basket: usize) -> String {
        format!(
            "basket {basket} of branch '{}' of TTree '{}'",
            branch.name, self.tree
        )
    }

    fn corrupt(&self, branch: &Branch, basket: usize, message: String) -> Error {
        Error::format(
            self.file.name(),
            self.object(branch, basket),
            branch.baskets[basket].seek,
            message,
        )
    }

    /// Reads the fields; one array per field, in order, or `None` for a field whose
    /// output would be more than [`MAX_EXPANSION`] times its stored baskets (and over
    /// [`TRUSTED_BYTES`]): such sizes, taken from basket headers and branch metadata, are
    /// not allocated before the data is seen, and the caller reads the field basket by
    /// basket instead.
    /// Output memory comes from `recycler` where it has a buffer large enough.
    pub fn read(
        &self,
        fields: &[BulkField],
        recycler: &mut Recycler,
    ) -> Result<Vec<Option<Array>>> {
        let kept: Vec<usize> = (0..fields.len())
            .filter(|&k| self.claim_is_plausible(&fields[k], None))
            .collect();
        let chosen: Vec<&BulkField> = kept.iter().map(|&k| &fields[k]).collect();
        let counts = self.value_counts(&chosen)?;
        let mut out: Vec<Option<Array>> = vec![None; fields.len()];
        let mut read_fields = Vec::new();
        let mut read_counts = Vec::new();
        let mut slots = Vec::new();
        for ((f, c), k) in chosen.into_iter().zip(counts).zip(kept) {
            let total = c.iter().try_fold(0usize, |a, &n| a.checked_add(n));
            if total.is_some_and(|t| self.claim_is_plausible(f, Some(t))) {
                read_fields.push(f);
                read_counts.push(c);
                slots.push(k);
            }
        }
        for (k, a) in
            slots
                .into_iter()
                .zip(self.read_trusted(&read_fields, &read_counts, recycler)?)
        {
            out[k] = Some(a);
        }
        Ok(out)
    }

    /// Reads fields whose number of values per part is known.
    fn read_trusted(
        &self,
        fields: &[&BulkField],
        counts: &[Vec<usize>],
        recycler: &mut Recycler,
    ) -> Result<Vec<Array>> {
        // Outputs, allocated (or taken from the recycler) once. Every value and offset is
        // overwritten by the baskets (or the read fails), but the leading 0 of offsets.
        let mut values: Vec<Buffer> = Vec::with_capacity(fields.len());
        let mut offsets: Vec<Vec<u64>> = Vec::with_capacity(fields.len());
        for (f, c) in fields.iter().zip(counts) {
            let total: usize = c.iter().sum();
            values.push(self.output(recycler, Target::Leaf(f.plan.leaf()), total));
            let entries: usize = f.parts.iter().map(|(_, w)| w.len()).sum();
            offsets.push(if f.plan.jagged {
                match self.output(recycler, Target::Index, entries) {
                    Buffer::UInt64(mut v) => {
                        v[0] = 0;
                        v
                    }
                    _ => unreachable!("index buffers hold u64"),
                }
            } else {
                Vec::new()
            });
        }

        let mut tasks: Vec<Task> = Vec::new();
        for (k, ((f, c), (v, o))) in fields
            .iter()
            .zip(counts)
            .zip(values.iter_mut().zip(offsets.iter_mut()))
            .enumerate()
        {
            let mut ranges = Vec::with_capacity(c.len());
            let mut at = 0usize;
            for &n in c {
                ranges.push((at, n));
                at += n;
            }
            let mut ends: Option<&mut [u64]> = o.get_mut(1..);
            let width = f.plan.width() as u64;
            let mut items = 0u64;
            for (dst, (&n, (basket, within))) in v
                .split_ranges(&ranges)
                .into_iter()
                .zip(c.iter().zip(&f.parts))
            {
                let part_offsets = match ends.take() {
                    Some(rest) => {
                        let (head, tail) = rest.split_at_mut(within.len());
                        ends = Some(tail);
                        let base = items;
                        items += n as u64 / width.max(1);
                        Some((head, base))
                    }
                    None => None,
                };
                tasks.push(Task {
                    field: k,
                    basket: *basket,
                    within: within.clone(),
                    values: dst,
                    offsets: part_offsets,
                });
            }
        }
        // Baskets kept in the tree object, then stored ones in chunks in file order.
        let (embedded, mut stored): (Vec<Task>, Vec<Task>) = tasks
            .into_iter()
            .partition(|t| fields[t.field].branch.baskets[t.basket].embedded.is_some());
        stored.sort_by_key(|t| fields[t.field].branch.baskets[t.basket].seek);
        let chunks = self.chunks(fields, stored);
        let decode_embedded = |mut t: Task| self.decode_embedded(fields, &mut t);
        let decode_chunk = |(range, tasks): (Range<u64>, Vec<Task>), window: Option<&Window>| {
            let bytes = window.and_then(|w| w.get(range.start));
            SCRATCH.with(|s| self.decode_chunk(fields, range, tasks, bytes, &mut s.borrow_mut()))
        };
        if !self.file.source().prefers_vectored() {
            crate::parallel::pool::for_each_in_two_steps(
                self.pool,
                embedded,
                decode_embedded,
                chunks,
                |chunk| decode_chunk(chunk, None),
            )?;
        } else {
            // A remote file: window by window, each in one vectored read, the next fetched
            // while this one is decoded.
            let largest = windows::largest_window(self.memory_budget);
            let windows = windows::windows(chunks, |(r, _)| r.end - r.start, largest);
            let ranges = windows
                .iter()
                .map(|w| w.iter().map(|(r, _)| r.clone()).collect())
                .collect();
            let mut embedded = Some(embedded);
            windows::fetch_ahead(
                self.file,
                windows,
                ranges,
                self.windows,
                "TTree baskets",
                |chunks, window| {
                    crate::parallel::pool::for_each_in_two_steps(
                        self.pool,
                        embedded.take().unwrap_or_default(),
                        decode_embedded,
                        chunks,
                        |chunk| decode_chunk(chunk, Some(window)),
                    )
                },
            )?;
            // Without stored baskets, no window ran them.
            if let Some(embedded) = embedded {
                embedded.into_iter().try_for_each(decode_embedded)?;
            }
        }
        Ok(fields
            .iter()
            .zip(values.into_iter().zip(offsets))
            .map(|(f, (v, o))| {
                let values = wrap_fixed(Array::from(v), &f.plan.dims);
                if f.plan.jagged {
                    Array::List {
                        offsets: o,
                        values: Box::new(values),
                    }
                } else {
                    values
                }
            })
            .collect())
    }
}
