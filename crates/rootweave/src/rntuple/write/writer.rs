//! The sequential RNTuple writer: one thread fills entries; pages are sealed as they fill,
//! clusters are written when they reach their target size, and `close` writes the page
//! lists, footer and anchor.

use std::path::Path;
use std::sync::Arc;

use crate::compress::{compress, Compression};
use crate::container::{FileWriter, WriterOptions};
use crate::error::{Error, Result};

use super::builder::{ClusterBuilder, SealedCluster};
use super::checkpoint::{write_cluster_record, CheckpointEvery, Ledger, NtupleOnDisk, Publish};
use super::cluster::ClusterPlan;
use super::fill::Node;
use super::metadata::serialize_header;
use super::schema::{Field, Projection, Schema};
use super::stored_pages::StoredPages;
use crate::array::{ColumnData, Value};
use crate::rntuple::format::{ClusterInfo, EnvelopeLocation};

/// Settings of an RNTuple writer. The defaults are ROOT 6.40's `RNTupleWriteOptions`; build
/// others from them with the `with_` methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RNTupleWriteOptions {
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
    /// Projected fields: views of the stored fields' columns under names of their own
    /// (none by default).
    pub projections: Vec<Projection>,
    /// Checkpoint once this many stored bytes were written since the last checkpoint
    /// (default 100 MB; 0: never by size). A checkpoint writes the footer and the anchor,
    /// so that a writer killed later leaves a file readable up to it.
    pub checkpoint_bytes: u64,
    /// Checkpoint once this many clusters were written since the last checkpoint
    /// (default 100; 0: never by count).
    pub checkpoint_clusters: u64,
}

impl Default for RNTupleWriteOptions {
    fn default() -> Self {
        RNTupleWriteOptions {
            compression: Compression::ROOT_RNTUPLE_DEFAULT,
            max_page_size: 1 << 20,
            cluster_target_size: 128 << 20,
            max_cluster_uncompressed_size: 1280 << 20,
            page_checksums: true,
            max_key_size: 1 << 30,
            description: String::new(),
            projections: Vec::new(),
            checkpoint_bytes: 100_000_000,
            checkpoint_clusters: 100,
        }
    }
}

impl RNTupleWriteOptions {
    /// With the compression of pages and metadata.
    pub fn with_compression(mut self, compression: Compression) -> Self {
        self.compression = compression;
        self
    }

    /// With the largest uncompressed page, in bytes.
    pub fn with_max_page_size(mut self, max_page_size: usize) -> Self {
        self.max_page_size = max_page_size;
        self
    }

    /// With the compressed size at which a cluster is written.
    pub fn with_cluster_target_size(mut self, cluster_target_size: u64) -> Self {
        self.cluster_target_size = cluster_target_size;
        self
    }

    /// With the uncompressed size at which a cluster is written at the latest.
    pub fn with_max_cluster_uncompressed_size(
        mut self,
        max_cluster_uncompressed_size: u64,
    ) -> Self {
        self.max_cluster_uncompressed_size = max_cluster_uncompressed_size;
        self
    }

    /// With or without page checksums.
    pub fn with_page_checksums(mut self, page_checksums: bool) -> Self {
        self.page_checksums = page_checksums;
        self
    }

    /// With the largest number of bytes in one file key.
    pub fn with_max_key_size(mut self, max_key_size: u64) -> Self {
        self.max_key_size = max_key_size;
        self
    }

    /// With the description stored in the header.
    pub fn with_description(mut self, description: String) -> Self {
        self.description = description;
        self
    }

    /// With projected fields (see [`Projection`]).
    pub fn with_projections(mut self, projections: Vec<Projection>) -> Self {
        self.projections = projections;
        self
    }

    /// With a checkpoint after every `bytes` stored bytes and every `clusters` clusters,
    /// whichever comes first (0 turns either off).
    pub fn with_checkpoints(mut self, bytes: u64, clusters: u64) -> Self {
        self.checkpoint_bytes = bytes;
        self.checkpoint_clusters = clusters;
        self
    }
}

impl RNTupleWriteOptions {
    /// Checks that the options are usable.
    pub fn validate(&self) -> Result<()> {
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
pub struct RNTupleWriteSummary {
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
/// use rootweave::rntuple::{ColumnData, Field, FieldType, RNTupleWriter, RNTupleWriteOptions};
/// let fields = vec![Field::new("x", FieldType::Int32)];
/// let mut writer = RNTupleWriter::recreate("out.root", "Events", fields, RNTupleWriteOptions::default())?;
/// writer.extend(&[ColumnData::Int32(&[1, 2, 3])])?;
/// writer.close()?;
/// # Ok::<(), rootweave::Error>(())
/// ```
pub struct RNTupleWriter {
    sink: NtupleSink,
    builder: ClusterBuilder,
    /// Pages of the committed clusters, which later clusters share instead of storing
    /// them again.
    stored_pages: StoredPages,
    closed: bool,
}

impl std::fmt::Debug for RNTupleWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RNTupleWriter")
            .field("name", &self.sink.name)
            .field("entries", &self.entries())
            .finish_non_exhaustive()
    }
}

/// Writer identification stored in the header.
const WRITER_NAME: &str = concat!("rootweave v", env!("CARGO_PKG_VERSION"));

/// Everything about one RNTuple in a file except the cluster being built: the header,
/// the committed clusters and cluster groups, and the running element counts. The
/// sequential writer owns one; the parallel writer shares one behind its commit lock.
pub(crate) struct NtupleSink {
    pub(crate) file: Option<Arc<FileWriter>>,
    pub(crate) owns_file: bool,
    pub(crate) name: String,
    pub(crate) options: RNTupleWriteOptions,
    pub(crate) schema: Schema,
    pub(crate) nodes: Arc<Vec<Node>>,
    /// Entries committed so far.
    pub(crate) entries: u64,
    /// Elements committed so far, per column.
    column_elements: Vec<u64>,
    /// Clusters, groups and checkpoints on disk.
    pub(crate) ledger: Ledger,
    pub(crate) summary: RNTupleWriteSummary,
}

impl NtupleSink {
    /// Validates the schema, writes the header and returns the sink.
    pub(crate) fn new(
        file: Arc<FileWriter>,
        name: &str,
        fields: Vec<Field>,
        options: RNTupleWriteOptions,
    ) -> Result<Self> {
        options.validate()?;
        // A path ("dir/sub/name") puts the RNTuple in that directory, made as needed.
        let (dir_path, name) = name.rsplit_once('/').unwrap_or(("", name));
        if name.is_empty()
            || name
                .chars()
                .any(|c| c.is_control() || matches!(c, '.' | ' ' | '\\'))
        {
            return Err(Error::InvalidArgument(format!(
                "RNTuple name '{name}' is empty or contains '.', '\\', a space or a control character"
            )));
        }
        let dir = file.mkdir(dir_path)?;
        let split = !options.compression.is_none();
        let schema = Schema::new(fields, split)?.with_projections(&options.projections)?;
        let nodes = Arc::new(Node::build_all(schema.fields()));
        let (envelope, header_checksum) =
            serialize_header(name, &options.description, WRITER_NAME, &schema);
        let header = write_envelope(&file, &envelope, options.compression)?;
        let n_columns = schema.column_descriptors().len();
        let ledger = Ledger::new(
            NtupleOnDisk {
                name: name.to_string(),
                dir,
                header,
                header_checksum,
                compression: options.compression,
                max_key_size: options.max_key_size,
            },
            CheckpointEvery {
                bytes: options.checkpoint_bytes,
                clusters: options.checkpoint_clusters,
            },
        );
        let checkpoints = options.checkpoint_bytes > 0 || options.checkpoint_clusters > 0;
        let mut sink = NtupleSink {
            file: Some(file),
            owns_file: false,
            name: name.to_string(),
            options,
            schema,
            nodes,
            entries: 0,
            column_elements: vec![0; n_columns],
            ledger,
            summary: RNTupleWriteSummary::default(),
        };
        // A first checkpoint, empty: a process killed before the next one leaves a file
        // that opens (with the clusters written since found by `rootweave recover`).
        if checkpoints {
            sink.close_group(Publish::Checkpoint)?;
        }
        Ok(sink)
    }

    /// A cluster builder for this RNTuple's schema.
    pub(crate) fn builder(&self) -> ClusterBuilder {
        ClusterBuilder::new(self.nodes.clone(), &self.schema, &self.options)
    }

    pub(crate) fn file(&self) -> Result<&Arc<FileWriter>> {
        self.file
            .as_ref()
            .ok_or_else(|| Error::InvalidArgument("the writer is closed".into()))
    }

    /// The bookkeeping of a commit: reserves the cluster's byte ranges and records it as
    /// the next cluster. Cheap: no I/O, no copies. Returns where its blobs' keys go and
    /// its page locations (for its cluster record).
    pub(crate) fn record_cluster(
        &mut self,
        cluster: &SealedCluster,
        plan: &ClusterPlan,
    ) -> Result<(Vec<u64>, Arc<ClusterInfo>)> {
        let blob_keys = plan.allocate(self.file()?)?;
        let descriptor = plan.describe(
            cluster,
            &blob_keys,
            self.entries..self.entries + cluster.entries,
            &self.column_elements,
            self.options.compression.root_setting() as u32,
        );
        for (total, column) in self.column_elements.iter_mut().zip(&cluster.columns) {
            *total += column.n_elements;
        }
        self.entries += cluster.entries;
        self.summary.clusters += 1;
        self.summary.stored_page_bytes += cluster.stored_bytes();
        self.summary.uncompressed_page_bytes += cluster.uncompressed_bytes();
        let info = self.ledger.record(descriptor, cluster.stored_bytes());
        Ok((blob_keys, info))
    }

    /// Expected stored/uncompressed ratio: what the clusters written so far achieved, or
    /// ROOT's first guess (0.5 when compressing).
    pub(crate) fn compression_ratio(&self) -> f64 {
        if self.options.compression.is_none() {
            1.0
        } else if self.summary.uncompressed_page_bytes > 0 {
            self.summary.stored_page_bytes as f64 / self.summary.uncompressed_page_bytes as f64
        } else {
            0.5
        }
    }

    /// Closes a group of the clusters written so far and writes what `publish` asks for
    /// (one thread at a time: the sequential writer, or the parallel writer's `close`).
    pub(crate) fn close_group(&mut self, publish: Publish) -> Result<()> {
        let file = self.file()?.clone();
        if let Some(work) = self.ledger.take_group(publish) {
            let outcome = work.write(&file);
            self.ledger.finish_group(work, outcome)?;
        }
        self.summary.cluster_groups = self.ledger.groups() as u64;
        Ok(())
    }

    /// Writes the last group, the footer and the anchor; closes the file if owned.
    pub(crate) fn finish(&mut self) -> Result<RNTupleWriteSummary> {
        self.close_group(Publish::Close)?;
        self.summary.entries = self.entries;
        let file = self.file.take().expect("file is present until finished");
        if self.owns_file {
            let file = Arc::try_unwrap(file).map_err(|_| {
                Error::InvalidArgument("the file is still shared and cannot be closed".into())
            })?;
            file.close()?;
        }
        Ok(self.summary.clone())
    }
}

impl RNTupleWriter {
    /// Creates (or overwrites) the file at `path` holding one RNTuple called `name`.
    /// Closing the writer closes the file.
    pub fn recreate(
        path: impl AsRef<Path>,
        name: &str,
        fields: Vec<Field>,
        options: RNTupleWriteOptions,
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
        writer.sink.owns_file = true;
        Ok(writer)
    }

    /// Starts an RNTuple called `name` in an open file, which may hold other objects and
    /// other RNTuples. The file is closed by its owner after this writer is closed.
    pub fn in_file(
        file: Arc<FileWriter>,
        name: &str,
        fields: Vec<Field>,
        options: RNTupleWriteOptions,
    ) -> Result<Self> {
        let sink = NtupleSink::new(file, name, fields, options)?;
        let builder = sink.builder();
        Ok(RNTupleWriter {
            sink,
            builder,
            stored_pages: StoredPages::new(),
            closed: false,
        })
    }

    /// The RNTuple's name.
    pub fn name(&self) -> &str {
        &self.sink.name
    }

    /// Entries filled so far.
    pub fn entries(&self) -> u64 {
        self.sink.entries + self.builder.entries()
    }

    /// Clusters written so far.
    pub fn committed_clusters(&self) -> u64 {
        self.sink.summary.clusters
    }

    /// Appends one entry: one value per top-level field, in schema order.
    pub fn fill(&mut self, values: &[Value]) -> Result<()> {
        self.builder.check_values(values)?;
        self.builder.append_values(values);
        self.commit_cluster_if_full()
    }

    /// Appends many entries at once: one batch per top-level field, in schema order, all
    /// with the same number of entries. The whole batch is checked first; if it does not
    /// match the schema nothing is written.
    pub fn extend(&mut self, batch: &[ColumnData]) -> Result<()> {
        let checked = self.builder.check_batch(batch)?;
        let step = self.builder.step(&checked, usize::MAX);
        let mut start = 0;
        while start < checked.entries {
            let end = (start + step).min(checked.entries);
            self.builder.append_batch(batch, start, end);
            self.commit_cluster_if_full()?;
            start = end;
        }
        Ok(())
    }

    fn commit_cluster_if_full(&mut self) -> Result<()> {
        let (sealed, pending, uncompressed) = self.builder.buffered();
        let estimate = sealed as f64 + pending as f64 * self.sink.compression_ratio();
        if estimate >= self.sink.options.cluster_target_size as f64
            || uncompressed >= self.sink.options.max_cluster_uncompressed_size
        {
            self.commit_cluster()?;
        }
        Ok(())
    }

    /// Writes the entries filled since the last cluster as a cluster (nothing if none).
    pub fn commit_cluster(&mut self) -> Result<()> {
        if self.builder.entries() == 0 {
            return Ok(());
        }
        let cluster = self.builder.seal();
        let mut plan = ClusterPlan::new(
            &cluster,
            self.builder.checksums(),
            self.sink.options.max_key_size,
        );
        let file = self.sink.file()?.clone();
        plan.share_stored(&cluster, &self.stored_pages, &file);
        let (blob_keys, info) = self.sink.record_cluster(&cluster, &plan)?;
        plan.write(&file, &cluster, &blob_keys)?;
        let record = write_cluster_record(&file, self.sink.ledger.ntuple(), &info)?;
        let due = self.sink.ledger.written(info.first_entry, record);
        self.stored_pages.insert(plan.stored_pages(&blob_keys));
        self.builder.recycle(cluster, u64::MAX);
        if due {
            self.sink.close_group(Publish::Checkpoint)?;
        }
        Ok(())
    }

    /// Makes the clusters committed since the last cluster group a cluster group, writing
    /// their page list (nothing if there are none). `close` does this for the rest.
    pub fn commit_cluster_group(&mut self) -> Result<()> {
        self.sink.close_group(Publish::GroupOnly)
    }

    /// Commits the entries filled so far as a cluster and checkpoints: the footer and the
    /// anchor, then the file's keys lists and header are written, so that ROOT and uproot
    /// read every entry so far from the file even if this process dies before `close`.
    /// The writer also checkpoints on its own (see [`RNTupleWriteOptions::checkpoint_bytes`]).
    pub fn checkpoint(&mut self) -> Result<()> {
        self.commit_cluster()?;
        self.sink.close_group(Publish::Checkpoint)
    }

    /// Entries that the last checkpoint made readable.
    pub fn checkpointed_entries(&self) -> u64 {
        self.sink.ledger.checkpointed_entries()
    }

    /// Writes what is still buffered, the footer and the anchor; closes the file if this
    /// writer created it.
    pub fn close(mut self) -> Result<RNTupleWriteSummary> {
        self.finish()
    }

    fn finish(&mut self) -> Result<RNTupleWriteSummary> {
        if self.closed {
            return Ok(self.sink.summary.clone());
        }
        self.closed = true;
        self.commit_cluster()?;
        self.sink.finish()
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
pub(crate) fn write_envelope(
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
