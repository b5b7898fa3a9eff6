//! An RNTuple's metadata on disk while its clusters are written, so that a writer killed at
//! any moment loses nothing it had checkpointed:
//!
//! - every cluster's own page list (a *cluster record*) is written right after its pages,
//!   by the thread that wrote them: `rootweave recover` finds the clusters after the last
//!   checkpoint by these records;
//! - a *cluster group* is the clusters written since the group before (in entry order, up
//!   to the first one still being written); its page list is written when it closes (a
//!   group of one cluster uses that cluster's record);
//! - a *checkpoint* closes a group and writes the footer (every group so far) and the
//!   anchor, then the file's keys lists and header: ROOT and uproot then open the file,
//!   whatever happens to the writer later, with every entry up to the checkpoint.
//!
//! The bookkeeping ([`Ledger`]) is cheap and sits behind the parallel writer's commit lock;
//! the writing ([`GroupWork::write`]) happens outside it, one group at a time.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::compress::Compression;
use crate::container::{DirectoryId, FileWriter, KeyInfo};
use crate::error::Result;
use crate::rntuple::format::{
    Anchor, ClusterGroupInfo, ClusterInfo, EnvelopeLocation, ANCHOR_VERSION,
};

use super::metadata::{serialize_footer, serialize_page_list};
use super::writer::write_envelope;

/// When the writers checkpoint on their own: after `bytes` stored bytes or `clusters`
/// clusters since the last checkpoint, whichever comes first (0 turns either off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CheckpointEvery {
    pub(crate) bytes: u64,
    pub(crate) clusters: u64,
}

/// What closing a group also writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Publish {
    /// Only the group's page list (`commit_cluster_group`).
    GroupOnly,
    /// The footer, the anchor and the file's keys lists and header (a checkpoint).
    Checkpoint,
    /// The footer and the anchor; the file's owner closes it (the writer's `close`).
    Close,
}

/// A cluster recorded in the RNTuple, waiting to enter a group.
#[derive(Debug)]
struct Pending {
    info: Arc<ClusterInfo>,
    stored_bytes: u64,
    /// Where its cluster record is, once its pages and the record are written.
    record: Option<EnvelopeLocation>,
}

/// What is fixed about the RNTuple on disk: its name, header and settings.
#[derive(Debug, Clone)]
pub(crate) struct NtupleOnDisk {
    pub(crate) name: String,
    /// The directory that lists its anchor.
    pub(crate) dir: DirectoryId,
    pub(crate) header: EnvelopeLocation,
    pub(crate) header_checksum: u64,
    pub(crate) compression: Compression,
    pub(crate) max_key_size: u64,
}

/// The bookkeeping of clusters, groups and checkpoints (no I/O).
#[derive(Debug)]
pub(crate) struct Ledger {
    ntuple: NtupleOnDisk,
    every: CheckpointEvery,
    /// Recorded clusters not yet in a group, in entry order.
    pending: VecDeque<Pending>,
    groups: Vec<ClusterGroupInfo>,
    /// The anchor's key, once a checkpoint wrote it.
    anchor: Option<KeyInfo>,
    /// Stored bytes and clusters written since the last checkpoint.
    since: (u64, u64),
    /// Entries that the last checkpoint made readable.
    checkpointed_entries: u64,
    /// A group is being written.
    busy: bool,
}

/// A group to write, taken from the ledger: the I/O of a group or checkpoint, done outside
/// any lock; give it back with its outcome to [`Ledger::finish_group`].
#[derive(Debug)]
pub(crate) struct GroupWork {
    ntuple: NtupleOnDisk,
    clusters: Vec<Pending>,
    /// The groups before this one.
    groups: Vec<ClusterGroupInfo>,
    anchor: Option<KeyInfo>,
    publish: Publish,
}

/// What [`GroupWork::write`] wrote.
#[derive(Debug)]
pub(crate) struct GroupDone {
    group: Option<ClusterGroupInfo>,
    anchor: Option<KeyInfo>,
}

impl Ledger {
    pub(crate) fn new(ntuple: NtupleOnDisk, every: CheckpointEvery) -> Self {
        Ledger {
            ntuple,
            every,
            pending: VecDeque::new(),
            groups: Vec::new(),
            anchor: None,
            since: (0, 0),
            checkpointed_entries: 0,
            busy: false,
        }
    }

    /// What is fixed about the RNTuple on disk.
    pub(crate) fn ntuple(&self) -> &NtupleOnDisk {
        &self.ntuple
    }

    /// Records a cluster (the next entries) whose pages are about to be written.
    pub(crate) fn record(&mut self, info: ClusterInfo, stored_bytes: u64) -> Arc<ClusterInfo> {
        let info = Arc::new(info);
        self.pending.push_back(Pending {
            info: info.clone(),
            stored_bytes,
            record: None,
        });
        info
    }

    /// Marks the cluster starting at `first_entry` as written, with its cluster record at
    /// `record`; true if a checkpoint is due.
    pub(crate) fn written(&mut self, first_entry: u64, record: EnvelopeLocation) -> bool {
        if let Some(p) = self
            .pending
            .iter_mut()
            .find(|p| p.info.first_entry == first_entry)
        {
            p.record = Some(record);
            self.since.0 += p.stored_bytes;
            self.since.1 += 1;
        }
        let CheckpointEvery { bytes, clusters } = self.every;
        (bytes > 0 && self.since.0 >= bytes) || (clusters > 0 && self.since.1 >= clusters)
    }

    /// Entries the last checkpoint made readable.
    pub(crate) fn checkpointed_entries(&self) -> u64 {
        self.checkpointed_entries
    }

    /// True while a group is being written.
    pub(crate) fn is_busy(&self) -> bool {
        self.busy
    }

    /// Groups closed so far.
    pub(crate) fn groups(&self) -> usize {
        self.groups.len()
    }

    /// The next group to write: the written clusters at the head of the queue. None if
    /// another group is being written, or if there is nothing to do (no clusters for a
    /// group; nothing new since the last checkpoint).
    pub(crate) fn take_group(&mut self, publish: Publish) -> Option<GroupWork> {
        if self.busy {
            return None;
        }
        let ready = self
            .pending
            .iter()
            .take_while(|p| p.record.is_some())
            .count();
        let nothing_new = ready == 0
            && match publish {
                Publish::GroupOnly => true,
                Publish::Checkpoint => self.anchor.is_some(),
                Publish::Close => false,
            };
        if nothing_new {
            return None;
        }
        self.busy = true;
        if publish != Publish::GroupOnly {
            self.since = (0, 0);
        }
        Some(GroupWork {
            ntuple: self.ntuple.clone(),
            clusters: self.pending.drain(..ready).collect(),
            groups: self.groups.clone(),
            anchor: self.anchor.clone(),
            publish,
        })
    }

    /// Takes back a group after its writing; on an error its clusters wait for the next
    /// group again.
    pub(crate) fn finish_group(
        &mut self,
        work: GroupWork,
        outcome: Result<GroupDone>,
    ) -> Result<()> {
        self.busy = false;
        match outcome {
            Ok(done) => {
                self.groups.extend(done.group);
                if done.anchor.is_some() {
                    self.anchor = done.anchor;
                    self.checkpointed_entries = self.groups.iter().map(|g| g.entry_span).sum();
                }
                Ok(())
            }
            Err(e) => {
                for p in work.clusters.into_iter().rev() {
                    self.pending.push_front(p);
                }
                Err(e)
            }
        }
    }
}

impl GroupWork {
    /// Writes the group's page list and, unless only the group is closed, the footer and
    /// the anchor (and, for a checkpoint, the file's keys lists and header).
    pub(crate) fn write(&self, file: &FileWriter) -> Result<GroupDone> {
        let ntuple = &self.ntuple;
        let group = match &self.clusters[..] {
            [] => None,
            clusters => {
                // One cluster: its record is the group's page list.
                let page_list = match clusters {
                    [only] => only.record.expect("a written cluster has its record"),
                    _ => {
                        let infos: Vec<&ClusterInfo> = clusters.iter().map(|p| &*p.info).collect();
                        let list = serialize_page_list(ntuple.header_checksum, &infos);
                        write_envelope(file, &list, ntuple.compression)?
                    }
                };
                let first = clusters[0].info.first_entry;
                let last = &clusters[clusters.len() - 1].info;
                Some(ClusterGroupInfo {
                    min_entry: first,
                    entry_span: last.first_entry + last.n_entries - first,
                    n_clusters: clusters.len() as u32,
                    page_list,
                })
            }
        };
        if self.publish == Publish::GroupOnly {
            return Ok(GroupDone {
                group,
                anchor: None,
            });
        }
        let mut groups = self.groups.clone();
        groups.extend(group);
        let footer = serialize_footer(ntuple.header_checksum, &groups);
        let footer = write_envelope(file, &footer, ntuple.compression)?;
        let anchor = Anchor {
            version: ANCHOR_VERSION,
            header: ntuple.header,
            footer,
            max_key_size: ntuple.max_key_size,
        }
        .to_bytes();
        let key = match &self.anchor {
            Some(previous) => file.rewrite_object(ntuple.dir, previous, &anchor, false)?,
            None => file.write_object_in(
                ntuple.dir,
                "ROOT::RNTuple",
                &ntuple.name,
                "",
                &anchor,
                false,
            )?,
        };
        if self.publish == Publish::Checkpoint {
            file.checkpoint()?;
        }
        Ok(GroupDone {
            group,
            anchor: Some(key),
        })
    }
}

/// Writes a cluster's own page list (its cluster record) after its pages; returns where.
pub(crate) fn write_cluster_record(
    file: &FileWriter,
    ntuple: &NtupleOnDisk,
    info: &ClusterInfo,
) -> Result<EnvelopeLocation> {
    let list = serialize_page_list(ntuple.header_checksum, &[info]);
    write_envelope(file, &list, ntuple.compression)
}
