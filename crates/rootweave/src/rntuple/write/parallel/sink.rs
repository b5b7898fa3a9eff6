//! What the parallel RNTuple writer gives the engine: a context's cluster builder as its
//! buffers, and the sink behind the commit point, which plans a cluster on the producer's
//! thread, records it in the RNTuple under its lock and writes its pages, cluster record
//! and checkpoints afterwards.

use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};

use super::RNTupleParallelOptions;
use crate::container::FileWriter;
use crate::error::Result;
use crate::parallel::engine::contexts::lock;
use crate::parallel::engine::sizing::buffer_size_for_budget;
use crate::parallel::engine::{ClusterSink, ContextBuffers, FillLevel};
use crate::rntuple::format::ClusterInfo;
use crate::rntuple::write::builder::{ClusterBuilder, SealedCluster};
use crate::rntuple::write::checkpoint::{write_cluster_record, NtupleOnDisk, Publish};
use crate::rntuple::write::cluster::ClusterPlan;
use crate::rntuple::write::stored_pages::StoredPages;
use crate::rntuple::write::writer::NtupleSink;

/// A sealed cluster and where its pages go.
pub(crate) struct PlannedCluster {
    cluster: SealedCluster,
    plan: ClusterPlan,
}

impl ContextBuffers for ClusterBuilder {
    type Cluster = PlannedCluster;

    fn entries(&self) -> u64 {
        ClusterBuilder::entries(self)
    }

    fn held_bytes(&self) -> u64 {
        self.bytes_when_sealed()
    }

    fn fill_level(&self) -> FillLevel {
        let (sealed, pending, uncompressed) = self.buffered();
        FillLevel {
            sealed,
            pending,
            uncompressed,
        }
    }

    fn growth_bound(&self, data_bytes: u64) -> u64 {
        ClusterBuilder::growth_bound(self, data_bytes)
    }

    fn set_buffer_size(&mut self, size: usize) {
        self.set_max_page_size(size);
    }

    fn release_memory(&mut self) {
        ClusterBuilder::release_memory(self);
    }

    fn release_spares(&mut self) {
        self.release_sealed_buffers();
    }

    fn discard(&mut self) {
        ClusterBuilder::discard(self);
    }

    fn recycle(&mut self, cluster: PlannedCluster, limit: u64) -> u64 {
        ClusterBuilder::recycle(self, cluster.cluster, limit)
    }
}

/// The RNTuple behind a parallel writer's commit point.
pub(super) struct ParallelNtuple {
    /// Columns of the RNTuple.
    pub(super) columns: usize,
    pub(super) sink: Mutex<NtupleSink>,
    /// Pages of the written clusters, which later clusters share instead of storing them
    /// again. None in ordered mode: which clusters are written by the time another one is
    /// planned depends on timing, and ordered files are the same bytes whatever the timing.
    pub(super) stored_pages: Option<StoredPages>,
    pub(super) options: RNTupleParallelOptions,
}

/// Clusters recorded in the RNTuple whose bytes are still to be written.
pub(super) struct RecordedClusters {
    clusters: Vec<RecordedCluster>,
    ntuple: NtupleOnDisk,
    file: Arc<FileWriter>,
}

/// A recorded cluster: where its blobs' keys go, and its page locations for its record.
struct RecordedCluster {
    planned: PlannedCluster,
    blob_keys: Vec<u64>,
    info: Arc<ClusterInfo>,
}

impl ClusterSink for ParallelNtuple {
    type Buffers = ClusterBuilder;
    type Recorded = RecordedClusters;

    /// Pages made smaller when one page per column for every context at work would take
    /// more than half of the budget (see [`buffer_size_for_budget`]).
    fn buffer_size(&self, filling: usize) -> usize {
        buffer_size_for_budget(
            self.options.write.max_page_size,
            self.options.memory_budget,
            self.columns,
            filling,
        )
    }

    /// A builder of the configured page size: it takes the page size for the contexts at
    /// work when it starts filling.
    fn new_buffers(&self, _filling: usize) -> (ClusterBuilder, usize) {
        (lock(&self.sink).builder(), self.options.write.max_page_size)
    }

    fn compression_ratio(&self) -> f64 {
        lock(&self.sink).compression_ratio()
    }

    /// At most the writer's `cluster_target_size`; at least two pages per column. Smaller
    /// clusters cost no bytes for pages that repeat: a page equal to one an earlier
    /// cluster wrote points at that one (see [`StoredPages`]).
    fn cluster_bounds(&self, page_size: usize) -> (u64, u64) {
        (
            self.options.write.cluster_target_size,
            2 * self.columns as u64 * page_size as u64,
        )
    }

    fn max_uncompressed(&self) -> u64 {
        self.options.write.max_cluster_uncompressed_size
    }

    fn seal(&self, builder: &mut ClusterBuilder) -> Result<PlannedCluster> {
        let cluster = builder.seal();
        let mut plan = ClusterPlan::new(
            &cluster,
            builder.checksums(),
            self.options.write.max_key_size,
        );
        if let Some(stored) = &self.stored_pages {
            let file = lock(&self.sink).file()?.clone();
            plan.share_stored(&cluster, stored, &file);
        }
        Ok(PlannedCluster { cluster, plan })
    }

    fn record<'w>(
        &self,
        clusters: Vec<PlannedCluster>,
        writing: &'w RwLock<()>,
    ) -> Result<(RecordedClusters, RwLockReadGuard<'w, ()>)> {
        let mut sink = lock(&self.sink);
        let file = sink.file()?.clone();
        let mut recorded = Vec::with_capacity(clusters.len());
        for planned in clusters {
            let (blob_keys, info) = sink.record_cluster(&planned.cluster, &planned.plan)?;
            recorded.push(RecordedCluster {
                planned,
                blob_keys,
                info,
            });
        }
        let ntuple = sink.ledger.ntuple().clone();
        let guard = writing.read().unwrap_or_else(|e| e.into_inner());
        drop(sink);
        Ok((
            RecordedClusters {
                clusters: recorded,
                ntuple,
                file,
            },
            guard,
        ))
    }

    /// Writes each cluster's pages and cluster record and, once they are in the file,
    /// offers its pages to later clusters and checkpoints if one is due.
    fn write(
        &self,
        recorded: RecordedClusters,
        guard: RwLockReadGuard<'_, ()>,
        _writing: &RwLock<()>,
        done: &mut dyn FnMut(PlannedCluster, Result<()>),
    ) -> Result<()> {
        let RecordedClusters {
            clusters,
            ntuple,
            file,
        } = recorded;
        for c in clusters {
            let plan = &c.planned.plan;
            let outcome = plan
                .write(&file, &c.planned.cluster, &c.blob_keys)
                .and_then(|()| write_cluster_record(&file, &ntuple, &c.info))
                .and_then(|record| {
                    if let Some(stored) = &self.stored_pages {
                        stored.insert(plan.stored_pages(&c.blob_keys));
                    }
                    let due = lock(&self.sink).ledger.written(c.info.first_entry, record);
                    if due {
                        self.checkpoint(&file, false)?;
                    }
                    Ok(())
                });
            done(c.planned, outcome);
        }
        drop(guard);
        Ok(())
    }
}

impl ParallelNtuple {
    /// Checkpoints the clusters written so far. If another thread is writing a group,
    /// waits for it first if `wait`, else leaves it to the next cluster's checkpoint. The
    /// I/O happens outside the commit lock.
    pub(super) fn checkpoint(&self, file: &FileWriter, wait: bool) -> Result<()> {
        let work = loop {
            let mut sink = lock(&self.sink);
            if !wait || !sink.ledger.is_busy() {
                break sink.ledger.take_group(Publish::Checkpoint);
            }
            drop(sink);
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        let Some(work) = work else { return Ok(()) };
        let outcome = work.write(file);
        let mut sink = lock(&self.sink);
        let result = sink.ledger.finish_group(work, outcome);
        sink.summary.cluster_groups = sink.ledger.groups() as u64;
        result
    }
}
