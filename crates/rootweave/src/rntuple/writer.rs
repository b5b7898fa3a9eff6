//! The sequential RNTuple writer: one thread fills entries; pages are sealed as they fill,
//! clusters are written when they reach their target size, and `close` writes the page
//! lists, footer and anchor.

use std::path::Path;
use std::sync::Arc;

use crate::compress::{compress, Compression};
use crate::container::{FileWriter, WriterOptions};
use crate::error::{Error, Result};

use super::cluster::write_cluster;
use super::data::{ColumnData, Value};
use super::fill::{step_entries, Node};
use super::metadata::{
    serialize_footer, serialize_header, serialize_page_list, Anchor, ClusterDescriptor,
    ClusterGroupRecord, ClusterSummary, EnvelopeLocation,
};
use super::page::{ColumnBuffer, PageSealer};
use super::schema::{Field, Schema};

/// Settings of an RNTuple writer. The defaults are ROOT 6.40's `RNTupleWriteOptions`.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// Compression of pages and metadata (default `zstd:5`, ROOT's 505).
    pub compression: Compression,
    /// Largest uncompressed page, in bytes (default 1 MiB).
    pub max_page_size: usize,
    /// A cluster is written once its estimated compressed size reaches this (default 128 MiB).
    pub cluster_target_size: u64,
    /// A cluster is written at the latest when its uncompressed size reaches this
    /// (default 1280 MiB).
    pub max_cluster_uncompressed_size: u64,
    /// Store an XXH3 checksum after every page (default true).
    pub page_checksums: bool,
    /// No file key holds more than this many bytes (default 1 GiB).
    pub max_key_size: u64,
    /// Free-text description stored in the header.
    pub description: String,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            compression: Compression::ROOT_RNTUPLE_DEFAULT,
            max_page_size: 1 << 20,
            cluster_target_size: 128 << 20,
            max_cluster_uncompressed_size: 1280 << 20,
            page_checksums: true,
            max_key_size: 1 << 30,
            description: String::new(),
        }
    }
}

impl WriteOptions {
    fn validate(&self) -> Result<()> {
        if self.max_page_size < 8 {
            return Err(Error::InvalidArgument(
                "max_page_size must be at least 8 bytes".into(),
            ));
        }
        // A sealed page may be up to 9 bytes per 16 MiB block larger than its input.
        let largest_page =
            self.max_page_size as u64 + self.max_page_size as u64 / (1 << 20) * 9 + 64;
        if self.max_key_size < largest_page {
            return Err(Error::InvalidArgument(
                "max_key_size must be larger than max_page_size".into(),
            ));
        }
        if self.max_key_size > i32::MAX as u64 - 64 {
            return Err(Error::InvalidArgument(
                "max_key_size must be below 2 GiB (a ROOT key's size is a 32-bit integer)".into(),
            ));
        }
        Ok(())
    }
}

/// What a writer wrote, reported by [`RNTupleWriter::close`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteSummary {
    /// Entries written.
    pub entries: u64,
    /// Clusters written.
    pub clusters: u64,
    /// Cluster groups written.
    pub cluster_groups: u64,
    /// Bytes of sealed pages on storage (compressed, with checksums).
    pub stored_page_bytes: u64,
    /// Bytes of the pages before compression.
    pub uncompressed_page_bytes: u64,
}

/// Writes one RNTuple, one entry or one batch of entries at a time.
///
/// ```no_run
/// use rootweave::rntuple::{ColumnData, Field, FieldType, RNTupleWriter, WriteOptions};
/// let fields = vec![Field::new("x", FieldType::Int32)];
/// let mut writer = RNTupleWriter::recreate("out.root", "Events", fields, WriteOptions::default())?;
/// writer.extend(&[ColumnData::Int32(&[1, 2, 3])])?;
/// writer.close()?;
/// # Ok::<(), rootweave::Error>(())
/// ```
pub struct RNTupleWriter {
    file: Option<Arc<FileWriter>>,
    owns_file: bool,
    name: String,
    options: WriteOptions,
    nodes: Vec<Node>,
    columns: Vec<ColumnBuffer>,
    sealer: PageSealer,
    header: EnvelopeLocation,
    header_checksum: u64,
    entries: u64,
    cluster_first_entry: u64,
    group_clusters: Vec<ClusterDescriptor>,
    groups: Vec<ClusterGroupRecord>,
    summary: WriteSummary,
    closed: bool,
}

impl std::fmt::Debug for RNTupleWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RNTupleWriter")
            .field("name", &self.name)
            .field("entries", &self.entries)
            .finish_non_exhaustive()
    }
}

/// Writer identification stored in the header.
const WRITER_NAME: &str = concat!("rootweave v", env!("CARGO_PKG_VERSION"));

impl RNTupleWriter {
    /// Creates (or overwrites) the file at `path` holding one RNTuple called `name`.
    /// Closing the writer closes the file.
    pub fn recreate(
        path: impl AsRef<Path>,
        name: &str,
        fields: Vec<Field>,
        options: WriteOptions,
    ) -> Result<Self> {
        options.validate()?;
        let file = FileWriter::create(
            path,
            WriterOptions {
                compression: options.compression,
                ..WriterOptions::default()
            },
        )?;
        let mut writer = Self::in_file(Arc::new(file), name, fields, options)?;
        writer.owns_file = true;
        Ok(writer)
    }

    /// Starts an RNTuple called `name` in an open file, which may hold other objects and
    /// other RNTuples. The file is closed by its owner after this writer is closed.
    pub fn in_file(
        file: Arc<FileWriter>,
        name: &str,
        fields: Vec<Field>,
        options: WriteOptions,
    ) -> Result<Self> {
        options.validate()?;
        if name.is_empty()
            || name
                .chars()
                .any(|c| c.is_control() || matches!(c, '.' | ' ' | '\\' | '/'))
        {
            return Err(Error::InvalidArgument(format!(
                "RNTuple name '{name}' is empty or contains '.', '/', '\\', a space or a control character"
            )));
        }
        let split = !options.compression.is_none();
        let schema = Schema::new(fields, split)?;
        let nodes = Node::build_all(schema.fields());
        let columns = schema
            .column_descriptors()
            .iter()
            .map(|c| ColumnBuffer::new(c.ty, options.max_page_size))
            .collect();
        let (envelope, header_checksum) =
            serialize_header(name, &options.description, WRITER_NAME, &schema);
        let header = write_envelope(&file, &envelope, options.compression)?;
        Ok(RNTupleWriter {
            file: Some(file),
            owns_file: false,
            name: name.to_string(),
            sealer: PageSealer::new(options.compression, options.page_checksums),
            options,
            nodes,
            columns,
            header,
            header_checksum,
            entries: 0,
            cluster_first_entry: 0,
            group_clusters: Vec::new(),
            groups: Vec::new(),
            summary: WriteSummary::default(),
            closed: false,
        })
    }

    /// The RNTuple's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Entries filled so far.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// Clusters written so far.
    pub fn committed_clusters(&self) -> u64 {
        self.summary.clusters
    }

    /// Appends one entry: one value per top-level field, in schema order.
    pub fn fill(&mut self, values: &[Value]) -> Result<()> {
        if values.len() != self.nodes.len() {
            return Err(Error::InvalidArgument(format!(
                "fill: {} values given for {} fields",
                values.len(),
                self.nodes.len()
            )));
        }
        for (node, value) in self.nodes.iter().zip(values) {
            node.check_value(value)?;
        }
        for (node, value) in self.nodes.iter().zip(values) {
            node.append_value(value, &mut self.columns, &mut self.sealer);
        }
        self.entries += 1;
        self.commit_cluster_if_full()
    }

    /// Appends many entries at once: one batch per top-level field, in schema order, all
    /// with the same number of entries. The whole batch is checked first; if it does not
    /// match the schema nothing is written.
    pub fn extend(&mut self, batch: &[ColumnData]) -> Result<()> {
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
                if n.is_some_and(|n| n != k) {
                    return Err(Error::InvalidArgument(format!(
                        "extend: fields have different numbers of entries ({} and {k})",
                        n.unwrap_or(0)
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
        let total: usize = self
            .nodes
            .iter()
            .zip(batch)
            .map(|(node, data)| node.bytes(data, 0, n))
            .sum();
        let step = step_entries(n, total);
        let mut start = 0;
        while start < n {
            let end = (start + step).min(n);
            for (node, data) in self.nodes.iter().zip(batch) {
                node.append(data, start, end, &mut self.columns, &mut self.sealer);
            }
            self.entries += (end - start) as u64;
            self.commit_cluster_if_full()?;
            start = end;
        }
        Ok(())
    }

    fn commit_cluster_if_full(&mut self) -> Result<()> {
        let mut sealed = 0u64;
        let mut pending = 0u64;
        let mut uncompressed = 0u64;
        for c in &self.columns {
            sealed += c.sealed_bytes() as u64;
            pending += c.pending_bytes() as u64;
            uncompressed += c.uncompressed_sealed_bytes() + c.pending_bytes() as u64;
        }
        let ratio = self.compression_ratio();
        let estimate = sealed as f64 + pending as f64 * ratio;
        if estimate >= self.options.cluster_target_size as f64
            || uncompressed >= self.options.max_cluster_uncompressed_size
        {
            self.commit_cluster()?;
        }
        Ok(())
    }

    /// Expected stored/uncompressed ratio: what the data written so far achieved, or ROOT's
    /// first guess (0.5 when compressing).
    fn compression_ratio(&self) -> f64 {
        if self.options.compression.is_none() {
            1.0
        } else if self.summary.uncompressed_page_bytes > 0 {
            self.summary.stored_page_bytes as f64 / self.summary.uncompressed_page_bytes as f64
        } else {
            0.5
        }
    }

    /// Writes the entries filled since the last cluster as a cluster (nothing if none).
    pub fn commit_cluster(&mut self) -> Result<()> {
        let n_entries = self.entries - self.cluster_first_entry;
        if n_entries == 0 {
            return Ok(());
        }
        for column in &mut self.columns {
            column.flush(&mut self.sealer);
        }
        let file = self.file()?.clone();
        let descriptor = write_cluster(
            &file,
            &self.columns,
            ClusterSummary {
                first_entry: self.cluster_first_entry,
                n_entries,
            },
            self.options.compression.root_setting(),
            self.sealer.checksums(),
            self.options.max_key_size,
        )?;
        for column in &mut self.columns {
            self.summary.stored_page_bytes += column.sealed_bytes() as u64;
            self.summary.uncompressed_page_bytes += column.uncompressed_sealed_bytes();
            column.start_next_cluster();
        }
        self.group_clusters.push(descriptor);
        self.summary.clusters += 1;
        self.cluster_first_entry = self.entries;
        Ok(())
    }

    /// Writes the page list of the clusters committed since the last cluster group, making
    /// them a cluster group (nothing if there are none). `close` does this for the rest.
    pub fn commit_cluster_group(&mut self) -> Result<()> {
        if self.group_clusters.is_empty() {
            return Ok(());
        }
        let page_list = serialize_page_list(self.header_checksum, &self.group_clusters);
        let location = write_envelope(self.file()?, &page_list, self.options.compression)?;
        let first = self.group_clusters[0].summary.first_entry;
        let last = self.group_clusters[self.group_clusters.len() - 1].summary;
        self.groups.push(ClusterGroupRecord {
            min_entry: first,
            entry_span: last.first_entry + last.n_entries - first,
            n_clusters: self.group_clusters.len() as u32,
            page_list: location,
        });
        self.group_clusters.clear();
        self.summary.cluster_groups += 1;
        Ok(())
    }

    /// Writes what is still buffered, the footer and the anchor; closes the file if this
    /// writer created it.
    pub fn close(mut self) -> Result<WriteSummary> {
        self.finish()
    }

    fn finish(&mut self) -> Result<WriteSummary> {
        if self.closed {
            return Ok(self.summary.clone());
        }
        self.closed = true;
        self.commit_cluster()?;
        self.commit_cluster_group()?;
        let file = self.file()?.clone();
        let footer = serialize_footer(self.header_checksum, &self.groups);
        let footer = write_envelope(&file, &footer, self.options.compression)?;
        let anchor = Anchor {
            header: self.header,
            footer,
            max_key_size: self.options.max_key_size,
        };
        file.write_object("ROOT::RNTuple", &self.name, "", &anchor.to_bytes(), false)?;
        self.summary.entries = self.entries;
        drop(file);
        if self.owns_file {
            let file = self.file.take().expect("file is present until closed");
            let file = Arc::try_unwrap(file).map_err(|_| {
                Error::InvalidArgument("the file is still shared and cannot be closed".into())
            })?;
            file.close()?;
        }
        Ok(self.summary.clone())
    }

    fn file(&self) -> Result<&Arc<FileWriter>> {
        self.file
            .as_ref()
            .ok_or_else(|| Error::InvalidArgument("the writer is closed".into()))
    }
}

impl Drop for RNTupleWriter {
    /// A writer dropped without `close` still commits its data, as ROOT's does; errors can
    /// only be reported by calling `close`.
    fn drop(&mut self) {
        if !self.closed {
            let _ = self.finish();
        }
    }
}

/// Compresses and writes an envelope in its own blob.
fn write_envelope(
    file: &FileWriter,
    envelope: &[u8],
    compression: Compression,
) -> Result<EnvelopeLocation> {
    let stored = compress(compression, envelope);
    let offset = file.write_blob(&stored, envelope.len() as u64)?;
    Ok(EnvelopeLocation {
        uncompressed_len: envelope.len() as u64,
        size: stored.len() as u64,
        offset,
    })
}
