//! Building clusters: values go into column buffers, pages are sealed as they fill, and
//! a finished cluster is moved out as a [`SealedCluster`]. Both the sequential writer and
//! the parallel writer's fill contexts are built on this.

use std::sync::Arc;

use crate::error::{Error, Result};

use super::data::{ColumnData, Value};
use super::fill::{step_entries, Node};
use super::page::{ColumnBuffer, PageSealer, SealedColumn};
use super::schema::Schema;
use super::writer::WriteOptions;

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
        self.columns.iter().map(|c| c.bytes.len() as u64).sum()
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
    pub fn new(nodes: Arc<Vec<Node>>, schema: &Schema, options: &WriteOptions) -> Self {
        ClusterBuilder {
            nodes,
            columns: schema
                .column_descriptors()
                .iter()
                .map(|c| ColumnBuffer::new(c.ty, options.max_page_size))
                .collect(),
            sealer: PageSealer::new(options.compression, options.page_checksums),
            entries: 0,
        }
    }

    /// Limits the pages to `max_page_size` bytes in memory (before any entry is added).
    pub fn set_max_page_size(&mut self, max_page_size: usize) {
        debug_assert_eq!(self.entries, 0);
        for column in &mut self.columns {
            *column = ColumnBuffer::new(column.column_type(), max_page_size);
        }
    }

    /// Number of columns.
    pub fn column_count(&self) -> usize {
        self.columns.len()
    }

    /// The most bytes that appending `bytes` more bytes of column data can add to
    /// [`ClusterBuilder::allocated_bytes`]: page buffers allocated for the first time, and
    /// sealed copies of everything that may be sealed (the new bytes and those pending).
    pub fn growth_bound(&self, bytes: u64) -> u64 {
        let mut pending = 0u64;
        let mut new_pages = 0u64;
        for c in &self.columns {
            pending += c.pending_bytes() as u64;
            new_pages += c.unallocated_page_bytes() as u64;
        }
        let sealable = (bytes + pending) as usize;
        // Each column may seal one short page more than the bytes alone make.
        let per_column_pages = self.columns.len() as u64 * super::page::sealed_bound(0) as u64;
        new_pages + super::page::sealed_bound(sealable) as u64 + per_column_pages
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
    }

    /// Bytes in the column buffers: (sealed pages, unsealed elements, uncompressed size).
    pub fn buffered(&self) -> (u64, u64, u64) {
        let mut sealed = 0u64;
        let mut pending = 0u64;
        let mut uncompressed = 0u64;
        for c in &self.columns {
            sealed += c.sealed_bytes() as u64;
            pending += c.pending_bytes() as u64;
            uncompressed += c.uncompressed_sealed_bytes() + c.pending_bytes() as u64;
        }
        (sealed, pending, uncompressed)
    }

    /// Bytes of memory held by the column buffers.
    pub fn allocated_bytes(&self) -> u64 {
        self.columns
            .iter()
            .map(|c| c.allocated_bytes() as u64)
            .sum()
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
        cluster
    }

    /// Drops the entries of the cluster being built (after a failure) and frees the
    /// builder's buffers.
    pub fn discard(&mut self) {
        drop(self.seal());
        self.release_memory();
    }

    /// Frees the page buffers and the sealed-page buffers kept for reuse (between clusters:
    /// the builder must hold no entries).
    pub fn release_memory(&mut self) {
        debug_assert_eq!(self.entries, 0);
        for column in &mut self.columns {
            column.release_memory();
        }
    }

    /// Frees the sealed-page buffers kept for reuse (keeping the page buffers).
    pub fn release_sealed_buffers(&mut self) {
        for column in &mut self.columns {
            column.release_sealed_buffer();
        }
    }

    /// Takes back the byte buffers of a cluster that was written, for the next cluster's
    /// pages (freshly mapped memory costs page faults and zeroing), up to `limit` bytes of
    /// capacity in all; returns the capacity kept.
    pub fn recycle(&mut self, cluster: SealedCluster, limit: u64) -> u64 {
        let mut kept = 0u64;
        for (column, sealed) in self.columns.iter_mut().zip(cluster.columns) {
            if kept + sealed.bytes.capacity() as u64 <= limit {
                kept += column.recycle(sealed.bytes) as u64;
            }
        }
        kept
    }
}
