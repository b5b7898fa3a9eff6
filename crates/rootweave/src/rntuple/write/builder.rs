//! Building clusters: values go into column buffers, pages are sealed as they fill, and
//! a finished cluster is moved out as a [`SealedCluster`]. Both the sequential writer and
//! the parallel writer's fill contexts are built on this.

use std::cell::Cell;
use std::sync::Arc;

use crate::error::{Error, Result};

use super::fill::{step_entries, Node};
use super::page::{sealed_bound, ColumnBuffer, PageSealer, SealedColumn};
use super::schema::Schema;
use super::writer::RNTupleWriteOptions;
use crate::array::{ColumnData, Value};

/// The pages of all columns for a range of entries, sealed and ready to be written.
#[derive(Debug)]
pub struct SealedCluster {
    /// Entries in the cluster.
    pub entries: u64,
    /// One sealed column per column of the schema.
    pub columns: Vec<SealedColumn>,
}

impl SealedCluster {
    /// Bytes of stored pages (compressed, with checksums).
    pub fn stored_bytes(&self) -> u64 {
        self.columns.iter().map(SealedColumn::stored_bytes).sum()
    }

    /// Bytes of the pages before compression.
    pub fn uncompressed_bytes(&self) -> u64 {
        self.columns.iter().map(|c| c.uncompressed_bytes).sum()
    }
}

/// Accumulates entries for one cluster at a time.
#[derive(Debug)]
pub struct ClusterBuilder {
    nodes: Arc<Vec<Node>>,
    columns: Vec<ColumnBuffer>,
    sealer: PageSealer,
    entries: u64,
    /// The sums over the columns since the builder last changed (None: to be found).
    totals: Cell<Option<Totals>>,
}

/// Sums over the columns that a memory budget asks for around every append step, found in
/// one pass and kept until the builder changes: a one-entry step of 10,000 columns asked
/// for them in four passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Totals {
    /// Bytes held by the column buffers and the spare segments.
    allocated: u64,
    /// What sealing every column's pending elements can add ([`ColumnBuffer::flush_growth`]).
    flush_growth: u64,
    /// Bytes of sealed pages.
    sealed: u64,
    /// Bytes of unsealed elements.
    pending: u64,
    /// Bytes of sealed pages before compression, and of unsealed elements.
    uncompressed: u64,
    /// Bytes of the page buffers that the next elements allocate, and how many there are.
    new_page_bytes: u64,
    new_page_buffers: u64,
    /// The smallest and largest page limits of the columns.
    smallest_page: usize,
    largest_page: usize,
    /// The most headers and checksum a page of any column's limit adds.
    page_overhead: usize,
}

/// Number of entries in a batch and its size in memory, after checking it.
pub struct CheckedBatch {
    /// Entries in the batch.
    pub entries: usize,
    /// Bytes the batch adds to the column buffers.
    pub bytes: usize,
}

impl ClusterBuilder {
    /// A builder for `schema`'s columns.
    pub fn new(nodes: Arc<Vec<Node>>, schema: &Schema, options: &RNTupleWriteOptions) -> Self {
        ClusterBuilder {
            nodes,
            columns: schema
                .column_descriptors()
                .iter()
                .map(|c| ColumnBuffer::new(c.ty, options.max_page_size))
                .collect(),
            sealer: PageSealer::new(options.compression, options.page_checksums),
            entries: 0,
            totals: Cell::new(None),
        }
    }

    /// Forgets the sums over the columns: every method that changes the builder calls it
    /// last.
    fn changed(&mut self) {
        *self.totals.get_mut() = None;
    }

    /// The sums over the columns, found now if the builder changed since they last were.
    fn totals(&self) -> Totals {
        if let Some(totals) = self.totals.get() {
            return totals;
        }
        let mut t = Totals {
            allocated: self.sealer.spare_bytes() as u64,
            flush_growth: 0,
            sealed: 0,
            pending: 0,
            uncompressed: 0,
            new_page_bytes: 0,
            new_page_buffers: 0,
            smallest_page: usize::MAX,
            largest_page: 0,
            page_overhead: 0,
        };
        for c in &self.columns {
            let pending = c.pending_bytes() as u64;
            t.allocated += c.allocated_bytes() as u64;
            t.flush_growth += c.flush_growth() as u64;
            t.sealed += c.sealed_bytes() as u64;
            t.pending += pending;
            t.uncompressed += c.uncompressed_sealed_bytes() + pending;
            let unallocated = c.unallocated_page_bytes() as u64;
            t.new_page_bytes += unallocated;
            t.new_page_buffers += u64::from(unallocated > 0);
            let limit = c.page_limit();
            t.smallest_page = t.smallest_page.min(limit);
            t.largest_page = t.largest_page.max(limit);
            t.page_overhead = t
                .page_overhead
                .max(sealed_bound(limit) - limit - limit / 128);
        }
        self.totals.set(Some(t));
        t
    }

    /// Limits the pages to `max_page_size` bytes in memory (before any entry is added).
    pub fn set_max_page_size(&mut self, max_page_size: usize) {
        debug_assert_eq!(self.entries, 0);
        for column in &mut self.columns {
            *column = ColumnBuffer::new(column.column_type(), max_page_size);
        }
        self.changed();
    }

    /// Number of columns.
    pub fn column_count(&self) -> usize {
        self.columns.len()
    }

    /// The most bytes that appending `bytes` more bytes of column data can add to
    /// [`ClusterBuilder::bytes_when_sealed`]: page buffers allocated for the first time,
    /// and the room to seal everything that is then sealed or pending. Its bytes are cut
    /// into full pages, each in a segment of its own at worst, and one short page per
    /// column at the end of the cluster, each page with its own headers and checksum.
    /// Buffers taken from the spare segments add nothing.
    pub fn growth_bound(&self, bytes: u64) -> u64 {
        let t = self.totals();
        let sealable = bytes + t.pending;
        // The full pages of all columns together are at most as many as the smallest
        // page fits in all their bytes.
        let full_pages = sealable / t.smallest_page.max(1) as u64;
        let pages = full_pages + self.columns.len() as u64;
        let requested = t.new_page_bytes
            + sealed_bound(sealable as usize) as u64
            + pages * t.page_overhead as u64;
        // Only full pages ask for segments: a short last page goes into its column's last
        // segment or its own page buffer.
        requested.min(self.new_bytes_beyond_spares(t.new_page_buffers + full_pages))
    }

    /// The most new memory that `requests` buffers (page buffers and segments alike) can
    /// take. Each is at most one full page's sealed bound and takes the smallest spare
    /// that fits, else new memory; a spare of that bound fits any of them, so only the
    /// requests beyond the number of such spares can take new memory.
    fn new_bytes_beyond_spares(&self, requests: u64) -> u64 {
        let largest = self.largest_segment();
        let fitting = self.sealer.spares_of_at_least(largest) as u64;
        requests.saturating_sub(fitting) * largest as u64
    }

    /// Entries in the cluster being built.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// True if pages carry checksums.
    pub fn checksums(&self) -> bool {
        self.sealer.checksums()
    }

    /// Checks one entry: one value per top-level field.
    pub fn check_values(&self, values: &[Value]) -> Result<()> {
        if values.len() != self.nodes.len() {
            return Err(Error::InvalidArgument(format!(
                "fill: {} values given for {} fields",
                values.len(),
                self.nodes.len()
            )));
        }
        self.nodes
            .iter()
            .zip(values)
            .try_for_each(|(node, value)| node.check_value(value))
    }

    /// Appends one checked entry.
    pub fn append_values(&mut self, values: &[Value]) {
        for (node, value) in self.nodes.iter().zip(values) {
            node.append_value(value, &mut self.columns, &mut self.sealer);
        }
        self.entries += 1;
        self.changed();
    }

    /// Checks a batch: one per top-level field, equal entry counts, values matching.
    pub fn check_batch(&self, batch: &[ColumnData]) -> Result<CheckedBatch> {
        if batch.len() != self.nodes.len() {
            return Err(Error::InvalidArgument(format!(
                "extend: {} columns given for {} fields",
                batch.len(),
                self.nodes.len()
            )));
        }
        let mut n: Option<usize> = None;
        for (node, data) in self.nodes.iter().zip(batch) {
            if let Some(k) = node.entries(data)? {
                if let Some(n) = n.filter(|&n| n != k) {
                    return Err(Error::InvalidArgument(format!(
                        "extend: fields have different numbers of entries ({n} and {k})"
                    )));
                }
                n = Some(k);
            }
        }
        let Some(n) = n else {
            return Err(Error::InvalidArgument(
                "extend: the number of entries cannot be told from fields without values".into(),
            ));
        };
        for (node, data) in self.nodes.iter().zip(batch) {
            node.check(data, 0, n)?;
        }
        let bytes = self
            .nodes
            .iter()
            .zip(batch)
            .map(|(node, data)| node.bytes(data, 0, n))
            .sum();
        Ok(CheckedBatch { entries: n, bytes })
    }

    /// Entries of a checked batch to append per step (of at most `max_step_bytes`), so
    /// that pages are sealed and cluster sizes checked while a large batch goes in.
    pub fn step(&self, checked: &CheckedBatch, max_step_bytes: usize) -> usize {
        step_entries(checked.entries, checked.bytes, max_step_bytes)
    }

    /// Appends entries `start..end` of a checked batch.
    pub fn append_batch(&mut self, batch: &[ColumnData], start: usize, end: usize) {
        for (node, data) in self.nodes.iter().zip(batch) {
            node.append(data, start, end, &mut self.columns, &mut self.sealer);
        }
        self.entries += (end - start) as u64;
        self.changed();
    }

    /// Bytes in the column buffers: (sealed pages, unsealed elements, uncompressed size).
    pub fn buffered(&self) -> (u64, u64, u64) {
        let t = self.totals();
        (t.sealed, t.pending, t.uncompressed)
    }

    /// The most bytes the column buffers can hold once the cluster is sealed: what they
    /// and the spare segments hold now, and the room that sealing the pending elements as
    /// last pages can add. A memory budget must count the room too: the pending pages of a
    /// cluster of many columns are a large part of it.
    pub fn bytes_when_sealed(&self) -> u64 {
        let t = self.totals();
        t.allocated + t.flush_growth
    }

    /// Seals what is left and moves the cluster out; the builder starts a new cluster,
    /// keeping its page buffers (see [`ClusterBuilder::release_memory`]).
    pub fn seal(&mut self) -> SealedCluster {
        for column in &mut self.columns {
            column.flush(&mut self.sealer);
        }
        let cluster = SealedCluster {
            entries: self.entries,
            columns: self
                .columns
                .iter_mut()
                .map(ColumnBuffer::take_sealed)
                .collect(),
        };
        self.entries = 0;
        self.changed();
        cluster
    }

    /// Drops the entries of the cluster being built (after a failure) and frees the
    /// builder's buffers.
    pub fn discard(&mut self) {
        drop(self.seal());
        self.release_memory();
    }

    /// Frees the page buffers and the segments kept for reuse (between clusters: the
    /// builder must hold no entries).
    pub fn release_memory(&mut self) {
        debug_assert_eq!(self.entries, 0);
        for column in &mut self.columns {
            column.release_memory();
        }
        self.sealer.release_memory();
        self.changed();
    }

    /// Frees the segments kept for reuse (keeping the page buffers).
    pub fn release_sealed_buffers(&mut self) {
        self.sealer.release_spare();
        self.changed();
    }

    /// Takes back the segments of a cluster that was written, for the next cluster's
    /// pages (freshly mapped memory costs page faults and zeroing), up to `limit` bytes in
    /// all; returns the bytes kept.
    pub fn recycle(&mut self, cluster: SealedCluster, limit: u64) -> u64 {
        // Segments that fit a full page of the current page size, and not much more (those
        // of pages twice as large waste half their memory).
        let segment = self.largest_segment();
        let kept = self.sealer.recycle(
            cluster.columns.into_iter().flat_map(|c| c.segments),
            limit,
            segment..segment + segment / 2,
        );
        self.changed();
        kept
    }

    /// The sealed bound of the largest full page of the columns: the size of a segment.
    fn largest_segment(&self) -> usize {
        sealed_bound(self.totals().largest_page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::Compression;
    use crate::rntuple::write::{Field, FieldType};

    fn builder(compression: Compression, max_page_size: usize) -> ClusterBuilder {
        let fields = vec![
            Field::new("i", FieldType::Int32),
            Field::new("d", FieldType::Float64),
            Field::new("v", FieldType::vector(FieldType::Float32)),
            Field::new("s", FieldType::String),
        ];
        let schema = Schema::new(fields, !compression.is_none()).unwrap();
        let nodes = Arc::new(Node::build_all(schema.fields()));
        let options = RNTupleWriteOptions {
            compression,
            max_page_size,
            ..RNTupleWriteOptions::default()
        };
        ClusterBuilder::new(nodes, &schema, &options)
    }

    /// Pseudo-random values that do not compress.
    fn noise(n: usize, seed: u64) -> Vec<u64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect()
    }

    /// Checks the builder's kept sums over its columns against sums found afresh.
    fn check_totals(builder: &ClusterBuilder) {
        let kept = builder.totals();
        builder.totals.set(None);
        assert_eq!(kept, builder.totals(), "the kept sums are stale");
    }

    /// What a sealed cluster and the builder hold afterwards.
    fn held_after_seal(builder: &mut ClusterBuilder) -> u64 {
        builder.totals();
        let cluster = builder.seal();
        check_totals(builder);
        let segments: u64 = cluster
            .columns
            .iter()
            .flat_map(|c| &c.segments)
            .map(|s| s.capacity() as u64)
            .sum();
        let held = segments + builder.totals().allocated;
        builder.recycle(cluster, u64::MAX);
        check_totals(builder);
        held
    }

    #[test]
    fn reservations_bound_what_the_buffers_hold() {
        for compression in [Compression::NONE, "zstd:5".parse().unwrap()] {
            let mut builder = builder(compression, 4096);
            for round in 0..6u64 {
                let n = 700 + 900 * round as usize;
                let raw = noise(4 * n, round);
                let ints: Vec<i32> = raw[..n].iter().map(|&x| x as i32).collect();
                let doubles: Vec<f64> = raw[n..2 * n]
                    .iter()
                    .map(|&x| f64::from_bits(x >> 2))
                    .collect();
                let lengths: Vec<u64> = raw[..n].iter().map(|&x| x % 9).collect();
                let offsets: Vec<u64> = std::iter::once(0)
                    .chain(lengths.iter().scan(0, |end, &k| {
                        *end += k;
                        Some(*end)
                    }))
                    .collect();
                let items: Vec<f32> = noise(offsets[n] as usize, round + 7)
                    .iter()
                    .map(|&x| f32::from_bits((x >> 34) as u32))
                    .collect();
                let chars: Vec<u8> = raw[3 * n..]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .take(n * 5)
                    .collect();
                let string_offsets: Vec<u64> = (0..=n as u64).map(|i| 5 * i).collect();
                let batch = [
                    ColumnData::Int32(&ints),
                    ColumnData::Float64(&doubles),
                    ColumnData::list(&offsets, ColumnData::Float32(&items)),
                    ColumnData::StringBytes {
                        offsets: &string_offsets,
                        bytes: &chars,
                    },
                ];
                let checked = builder.check_batch(&batch).unwrap();
                // In steps, as the parallel writer appends: before each step the growth
                // bound is added to what the builder will hold once sealed, and after it
                // the builder must hold no more than that.
                let step = builder.step(&checked, 200_000);
                let mut start = 0;
                while start < checked.entries {
                    let end = (start + step).min(checked.entries);
                    let bytes =
                        checked.bytes as u64 * (end - start) as u64 / checked.entries as u64 + 1;
                    let allowed = builder.bytes_when_sealed() + builder.growth_bound(bytes);
                    builder.append_batch(&batch, start, end);
                    check_totals(&builder);
                    assert!(
                        builder.totals().allocated <= allowed,
                        "a step outgrew its bound"
                    );
                    assert!(
                        builder.bytes_when_sealed() <= allowed,
                        "a step outgrew its bound"
                    );
                    start = end;
                }
                // Sealing needs nothing beyond what was counted for it.
                let counted = builder.bytes_when_sealed();
                let held = held_after_seal(&mut builder);
                assert!(
                    held <= counted,
                    "sealing took {held} bytes, {counted} were counted"
                );
            }
        }
    }

    #[test]
    fn the_sums_over_the_columns_follow_every_change() {
        let mut builder = builder("zstd:5".parse().unwrap(), 4096);
        let values = [
            Value::Int32(7),
            Value::Float64(0.5),
            Value::List(vec![Value::Float32(1.0); 3]),
            Value::String("abc".into()),
        ];
        builder.check_values(&values).unwrap();
        for _ in 0..3 {
            builder.totals();
            builder.append_values(&values);
            check_totals(&builder);
        }
        held_after_seal(&mut builder);
        builder.totals();
        builder.release_sealed_buffers();
        check_totals(&builder);
        builder.totals();
        builder.set_max_page_size(1024);
        check_totals(&builder);
        builder.append_values(&values);
        builder.totals();
        builder.discard();
        check_totals(&builder);
        assert_eq!(builder.totals().allocated, 0);
    }
}
