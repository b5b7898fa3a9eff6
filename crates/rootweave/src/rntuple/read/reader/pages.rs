//! Which pages a read needs: the column slots of the requested fields and, cluster by
//! cluster, the pages (or the parts of edge pages) that hold the requested entries.

use std::ops::Range;

use super::{GlobalOffsets, PageJob, RNTupleReader, SlotRead};
use crate::array::buffer::{Buffer, Target};
use crate::array::LeafType;
use crate::error::{Error, Result};
use crate::rntuple::format::{ClusterInfo, PageLocation};
use crate::rntuple::read::decode::ColumnCodec;
use crate::rntuple::read::plan::{Kind, Node};

impl RNTupleReader {
    /// Appends the slots of `node` (and its subfields) and their page jobs. `mult` is the
    /// number of elements per entry when no collection lies above the node.
    /// `parts`: for a read of part of the clusters, the entries of each cluster to read;
    /// `items`: then, for a collection (and its items), the items of each cluster that
    /// those entries hold.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn collect_slots(
        &self,
        node: &Node,
        mult: Option<u64>,
        clusters: &[&ClusterInfo],
        parts: Option<&[Range<u64>]>,
        items: Option<&[Range<u64>]>,
        slots: &mut Vec<SlotRead>,
        jobs: &mut Vec<PageJob>,
    ) -> Result<()> {
        let targets: Vec<(Target, Option<u64>)> = match &node.kind {
            Kind::Leaf(t) => vec![(Target::Leaf(*t), mult)],
            Kind::Bitset(n) => vec![(Target::Leaf(LeafType::Bool), mult.map(|m| m * *n as u64))],
            Kind::String | Kind::Streamer => {
                vec![(Target::Index, mult), (Target::Leaf(LeafType::UInt8), None)]
            }
            Kind::Cardinality(_) | Kind::List(_) | Kind::Optional(_) => {
                vec![(Target::Index, mult)]
            }
            Kind::Variant(_) => vec![(Target::Switch, mult)],
            Kind::Fixed(..) | Kind::Record(_) | Kind::Wrapper(_) => Vec::new(),
        };
        // The offsets slot of this node, if any: its index, and per cluster its first job.
        let mut offsets_slot: Option<(usize, Vec<usize>)> = None;
        for (i, (target, mult)) in targets.into_iter().enumerate() {
            let slot = &node.slots[i];
            let index = slots.len();
            let mut global = GlobalOffsets::default();
            let mut cluster_jobs = Vec::with_capacity(clusters.len() + 1);
            let mut counts = Vec::with_capacity(clusters.len());
            let mut dst = 0u64;
            // Offsets buffers start with a 0 that no page holds.
            let shift = usize::from(target == Target::Index);
            let mut zeros: Vec<Range<usize>> = Vec::new();
            zeros.extend((shift > 0).then_some(0..shift));
            let mut rebase = Vec::new();
            for (k, cluster) in clusters.iter().enumerate() {
                // The active representation: the one whose column is not suppressed.
                let active = slot.representations.iter().find_map(|&c| {
                    cluster.columns[c as usize]
                        .as_ref()
                        .filter(|p| !p.suppressed)
                        .map(|p| (c, p))
                });
                let available = active.map_or(0, |(_, p)| p.n_elements());
                let count = match mult {
                    Some(m) => m.saturating_mul(cluster.n_entries),
                    None => available,
                };
                // Only a deferred column (added to the schema later, or absent from this
                // cluster's page list) may hold fewer elements than its entries need; any
                // other shortfall is corruption (and must not make us allocate for it).
                let deferred = active.is_none()
                    || slot.representations.iter().any(|&c| {
                        let col = &self.descriptor.columns[c as usize];
                        col.first_element > 0 || col.deferred_suppressed
                    });
                if available > count || (available < count && !deferred) {
                    return Err(self.corrupt(
                        node.field,
                        format!(
                            "cluster {k} (entries {}..) holds {available} elements of a column \
                             that needs {count}",
                            cluster.first_entry
                        ),
                    ));
                }
                // The cluster's elements to read: all of them, or for a read of part of a
                // cluster the elements of its entries.
                let (lo, hi) = match (parts, mult, items) {
                    (Some(p), Some(m), _) => {
                        (p[k].start.saturating_mul(m), p[k].end.saturating_mul(m))
                    }
                    (Some(_), None, Some(items)) => (items[k].start, items[k].end),
                    _ => (0, count),
                };
                if hi > count {
                    return Err(self.corrupt(
                        node.field,
                        format!(
                            "cluster {k} (entries {}..) has {count} elements, its entries ask \
                             for elements up to {hi}",
                            cluster.first_entry
                        ),
                    ));
                }
                if let (Target::Index, Some(items)) = (target, items) {
                    rebase.push(items[k].start);
                }
                cluster_jobs.push(jobs.len());
                let at = dst as usize + shift;
                global.spans.push(at..at + (hi - lo) as usize);
                // Deferred columns: the missing leading elements are zeros.
                let zeros_end = count - available;
                if zeros_end.min(hi) > lo {
                    zeros.push(at..at + (zeros_end.min(hi) - lo) as usize);
                    global
                        .gaps
                        .push((at..at + (zeros_end.min(hi) - lo) as usize, k));
                }
                if let Some((c, pages)) = active {
                    let codec = self.descriptor.codec(c);
                    let mut start = zeros_end;
                    for page in &pages.pages {
                        self.check_page_size(node.field, page, &codec)?;
                        let end = start + page.n_elements as u64;
                        let (a, b) = (start.max(lo), end.min(hi));
                        if a < b {
                            jobs.push(PageJob {
                                slot: index,
                                field: node.field,
                                page: *page,
                                codec,
                                target,
                                dst: dst.saturating_add(a - lo) as usize,
                                skip: (a - start) as usize,
                                take: (b - a) as usize,
                                base: 0,
                            });
                            global
                                .starts
                                .push(dst.saturating_add(a - lo) as usize + shift);
                        }
                        start = end;
                    }
                }
                counts.push(hi - lo);
                dst = dst.saturating_add(hi - lo);
            }
            if dst > (1u64 << 40) {
                return Err(self.corrupt(node.field, format!("{dst} elements is implausible")));
            }
            if target == Target::Index {
                cluster_jobs.push(jobs.len());
                offsets_slot = Some((index, cluster_jobs));
            }
            slots.push(SlotRead {
                target,
                counts,
                zeros,
                rebase,
                global: (target == Target::Index).then_some(global),
            });
        }
        let first_child_slot = slots.len();
        self.collect_children(node, mult, clusters, parts, items, slots, jobs)?;
        // Offsets made global page by page, where the items of every cluster are known:
        // the characters of a string, the first slot below a collection.
        let items_of = match &node.kind {
            Kind::String | Kind::Streamer => Some((first_child_slot - 1, 1)),
            Kind::List(c) | Kind::Optional(c) => {
                first_slot_multiplicity(c).map(|m| (first_child_slot, m))
            }
            _ => None,
        };
        if let Some((index, cluster_jobs)) = offsets_slot {
            let bases = items_of.and_then(|(slot, m)| cluster_bases(slots.get(slot)?, m));
            match bases {
                Some(bases) => {
                    let slot = &mut slots[index];
                    for k in 0..clusters.len() {
                        let first = slot.rebase.get(k).copied().unwrap_or(0);
                        for job in &mut jobs[cluster_jobs[k]..cluster_jobs[k + 1]] {
                            job.base = bases[k].wrapping_sub(first);
                        }
                    }
                    if let Some(global) = &mut slot.global {
                        global.bases = bases;
                    }
                }
                None => slots[index].global = None,
            }
        }
        Ok(())
    }

    /// Appends the slots and page jobs of the fields below `node` (see
    /// [`RNTupleReader::collect_slots`]).
    #[allow(clippy::too_many_arguments)]
    fn collect_children(
        &self,
        node: &Node,
        mult: Option<u64>,
        clusters: &[&ClusterInfo],
        parts: Option<&[Range<u64>]>,
        items: Option<&[Range<u64>]>,
        slots: &mut Vec<SlotRead>,
        jobs: &mut Vec<PageJob>,
    ) -> Result<()> {
        match &node.kind {
            Kind::List(c) | Kind::Optional(c) => {
                self.collect_slots(c, None, clusters, parts, items, slots, jobs)
            }
            Kind::Fixed(n, c) => {
                // Items of an array are `n` elements each.
                let n = *n as u64;
                let scaled: Option<Vec<Range<u64>>> = items.map(|items| {
                    items
                        .iter()
                        .map(|r| r.start.saturating_mul(n)..r.end.saturating_mul(n))
                        .collect()
                });
                self.collect_slots(
                    c,
                    mult.map(|m| m * n),
                    clusters,
                    parts,
                    scaled.as_deref(),
                    slots,
                    jobs,
                )
            }
            Kind::Wrapper(c) => self.collect_slots(c, mult, clusters, parts, items, slots, jobs),
            Kind::Record(cs) => cs
                .iter()
                .try_for_each(|c| self.collect_slots(c, mult, clusters, parts, items, slots, jobs)),
            Kind::Variant(cs) => cs
                .iter()
                .try_for_each(|c| self.collect_slots(c, None, clusters, parts, items, slots, jobs)),
            _ => Ok(()),
        }
    }

    /// For a collection read over part of its clusters: per cluster, the range of its
    /// items that the entries `parts[k]` hold, from the collection's offsets (each entry's
    /// end, counted from the cluster's first item), read for those entries and the one
    /// before them.
    pub(super) fn item_ranges(
        &self,
        node: &Node,
        clusters: &[&ClusterInfo],
        parts: &[Range<u64>],
    ) -> Result<Vec<Range<u64>>> {
        let offsets = Node {
            field: node.field,
            name: node.name.clone(),
            type_name: node.type_name.clone(),
            kind: Kind::Cardinality(LeafType::UInt64),
            slots: vec![node.slots[0].clone()],
        };
        let wider: Vec<Range<u64>> = parts
            .iter()
            .map(|p| p.start.saturating_sub(1)..p.end)
            .collect();
        let (mut slots, mut jobs) = (Vec::new(), Vec::new());
        self.collect_slots(
            &offsets,
            Some(1),
            clusters,
            Some(&wider),
            None,
            &mut slots,
            &mut jobs,
        )?;
        let len = slots[0].counts.iter().sum::<u64>() as usize;
        let mut buffers = vec![Buffer::zeroed(slots[0].target, len)];
        self.decode_pages(&mut buffers, &jobs, &slots)?;
        let Buffer::UInt64(ends) = &buffers[0] else {
            unreachable!("offsets are read as u64")
        };
        let mut out = Vec::with_capacity(parts.len());
        // After the buffer's leading 0.
        let mut at = 1usize;
        for (part, wide) in parts.iter().zip(&wider) {
            let n = (wide.end - wide.start) as usize;
            let ends = &ends[at..at + n];
            let start = if part.start > wide.start { ends[0] } else { 0 };
            let end = ends.last().copied().unwrap_or(start);
            if start > end {
                return Err(self.corrupt(node.field, "collection offsets decrease".into()));
            }
            out.push(start..end);
            at += n;
        }
        Ok(out)
    }

    /// A page cannot hold more bytes than its compression blocks can: at most 16 MiB per
    /// 9-byte block header (and exactly its size when stored uncompressed, which the
    /// decoder checks). This bounds what a corrupt element count can make us allocate.
    pub(super) fn check_page_size(
        &self,
        field: u32,
        page: &PageLocation,
        codec: &ColumnCodec,
    ) -> Result<()> {
        let need = codec
            .page_bytes(page.n_elements as usize)
            .unwrap_or(usize::MAX) as u64;
        let most = page
            .size
            .div_ceil(9)
            .saturating_mul(16 << 20)
            .max(page.size);
        if need > most {
            return Err(Error::format(
                self.file.name(),
                format!(
                    "RNTuple '{}' page of field '{}'",
                    self.descriptor.name,
                    self.descriptor.field_path(field)
                ),
                page.offset,
                format!(
                    "{} elements ({need} bytes) cannot come from {} stored bytes",
                    page.n_elements, page.size
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn corrupt(&self, field: u32, message: String) -> Error {
        Error::format(
            self.file.name(),
            format!(
                "RNTuple '{}' field '{}'",
                self.descriptor.name,
                self.descriptor.field_path(field)
            ),
            self.descriptor.anchor.footer.offset,
            message,
        )
    }
}

/// Elements of the first slot below a node per item of the node, or `None` if the node
/// has no slots (an empty record) or an empty array lies on the way.
fn first_slot_multiplicity(node: &Node) -> Option<u64> {
    match &node.kind {
        Kind::Leaf(_)
        | Kind::String
        | Kind::Streamer
        | Kind::Cardinality(_)
        | Kind::List(_)
        | Kind::Optional(_)
        | Kind::Variant(_) => Some(1),
        Kind::Bitset(n) => (*n > 0).then_some(*n as u64),
        Kind::Fixed(n, c) => (*n > 0)
            .then(|| first_slot_multiplicity(c).map(|m| m * *n as u64))
            .flatten(),
        Kind::Wrapper(c) => first_slot_multiplicity(c),
        // The first member with slots decides (members without slots push none).
        Kind::Record(cs) => cs
            .iter()
            .find(|c| has_slots(c))
            .and_then(first_slot_multiplicity),
    }
}

/// True if reading the node decodes any column.
fn has_slots(node: &Node) -> bool {
    match &node.kind {
        Kind::Fixed(_, c) | Kind::Wrapper(c) => has_slots(c),
        Kind::Record(cs) => cs.iter().any(has_slots),
        _ => true,
    }
}

/// The items of the read before each cluster, and the total, from a slot holding `per_item`
/// elements per item; `None` if its counts are not whole items or overflow.
fn cluster_bases(slot: &SlotRead, per_item: u64) -> Option<Vec<u64>> {
    let mut bases = Vec::with_capacity(slot.counts.len() + 1);
    let mut total = 0u64;
    bases.push(0);
    for &count in &slot.counts {
        if count % per_item != 0 {
            return None;
        }
        total = total.checked_add(count / per_item)?;
        bases.push(total);
    }
    Some(bases)
}
