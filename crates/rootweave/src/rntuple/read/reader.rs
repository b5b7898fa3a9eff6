//! Bulk reading of an RNTuple into typed arrays.
//!
//! A read covers whole clusters: for every column slot of the requested fields, the
//! pages of every cluster are decoded straight into one buffer per slot, each page by its
//! own task on the reader's thread pool. Pages are grouped in file order into chunks of
//! neighbours; each chunk is one pool task that reads its bytes with one call into the
//! thread's reused buffer and decodes its pages. Afterwards, cluster-relative offsets
//! become global ones, the buffers become [`Array`]s, and the edges are trimmed to the
//! requested entry range. Fields with a fixed number of elements per entry (no
//! collections) are read from the pages their entries need only, the edge pages decoded
//! into scratch and cut; so are single collections of such fields, once the offsets of
//! their entries have told which items those are.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use crate::rntuple::format::checksum::xxh3_64;

use super::buffer::DecodePage;
use super::decode::ColumnCodec;
use super::descriptor::{Descriptor, OpenOptions};
use super::plan::{Kind, Node};
use crate::array::buffer::{Buffer, Dst, Target};
use crate::array::slice;
use crate::array::Array;
use crate::array::LeafType;
use crate::array::Recycler;
use crate::array::Value;
use crate::compress::decompress_into_checked;
use crate::container::RootFile;
use crate::error::{Error, Result};
use crate::io::coalesce;
pub use crate::parallel::ReadOptions;
use crate::rntuple::format::{ClusterInfo, PageLocation};

/// Reads one RNTuple. All methods take `&self`: one reader may serve many threads.
///
/// ```no_run
/// use rootweave::rntuple::RNTupleReader;
/// let reader = RNTupleReader::open("events.root", "Events")?;
/// for (name, array) in reader.read(&["MET_pt", "Muon.Muon_pt"], 0..reader.entries())? {
///     println!("{name}: {} entries of {}", array.len(), array.kind());
/// }
/// # Ok::<(), rootweave::Error>(())
/// ```
pub struct RNTupleReader {
    file: Arc<RootFile>,
    descriptor: Descriptor,
    options: ReadOptions,
    pool: Arc<rayon::ThreadPool>,
}

impl std::fmt::Debug for RNTupleReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RNTupleReader")
            .field("file", &self.file.name())
            .field("name", &self.descriptor.name)
            .finish_non_exhaustive()
    }
}

/// One page to decode: where it is, how it is encoded and which slot part it fills.
#[derive(Debug, Clone, Copy)]
struct PageJob {
    slot: usize,
    field: u32,
    page: PageLocation,
    codec: ColumnCodec,
    /// What the slot is decoded into.
    target: Target,
    /// Start of the kept elements in the slot's buffer.
    dst: usize,
    /// Elements of the page before the kept ones (a read of part of a cluster keeps the
    /// part of the edge pages that its entries need).
    skip: usize,
    /// Elements kept.
    take: usize,
}

impl PageJob {
    /// True if every element of the page is kept.
    fn whole(&self) -> bool {
        self.skip == 0 && self.take == self.page.n_elements as usize
    }
}

/// A column slot of a requested field: what it decodes into and its per-cluster parts.
#[derive(Debug)]
struct SlotRead {
    target: Target,
    /// Elements per cluster (including leading zeros of deferred columns).
    counts: Vec<u64>,
    /// Positions in the buffer that no page fills (the leading 0 of offsets, the missing
    /// elements of deferred columns): zeros.
    zeros: Vec<Range<usize>>,
    /// Offsets slots of a collection read over part of a cluster: per cluster, the first
    /// item read, which its cluster-relative offsets are counted from (none: 0).
    rebase: Vec<u64>,
}

impl RNTupleReader {
    /// Opens the RNTuple `name` in the file at `path`.
    pub fn open(path: impl AsRef<Path>, name: &str) -> Result<Self> {
        Self::from_file(
            Arc::new(RootFile::open(path)?),
            name,
            ReadOptions::default(),
        )
    }

    /// Opens the RNTuple `name` of an open file.
    pub fn from_file(file: Arc<RootFile>, name: &str, options: ReadOptions) -> Result<Self> {
        let descriptor = Descriptor::open(
            &file,
            name,
            OpenOptions {
                verify_checksums: options.verify_checksums,
            },
        )?;
        let pool = options.thread_pool()?;
        Ok(RNTupleReader {
            file,
            descriptor,
            options,
            pool,
        })
    }

    /// The metadata.
    pub fn descriptor(&self) -> &Descriptor {
        &self.descriptor
    }

    /// The file.
    pub fn file(&self) -> &Arc<RootFile> {
        &self.file
    }

    /// The pool that decompresses and decodes this reader's pages.
    pub(crate) fn thread_pool(&self) -> &rayon::ThreadPool {
        &self.pool
    }

    /// Number of entries.
    pub fn entries(&self) -> u64 {
        self.descriptor.entries()
    }

    /// Names of the top-level fields, in schema order.
    pub fn field_names(&self) -> Vec<String> {
        self.descriptor
            .top_level_fields()
            .into_iter()
            .map(|id| self.descriptor.fields[id as usize].name.clone())
            .collect()
    }

    /// The entry ranges of the clusters, in entry order (reading whole clusters avoids
    /// decoding a cluster twice when a large range is read in steps).
    pub fn cluster_ranges(&self) -> Result<Vec<Range<u64>>> {
        Ok(self
            .descriptor
            .all_clusters(&self.file)?
            .iter()
            .filter(|c| c.n_entries > 0)
            .map(|c| c.first_entry..c.first_entry + c.n_entries)
            .collect())
    }

    /// How the field at `path` is read, or why it cannot be. A top-level field is named
    /// by its name; a subfield by its dotted path (`Muon.Muon_pt`), which reads the
    /// top-level field with only that branch: the collections along the path stay, the
    /// records are replaced by the member on the path (so `Muon.Muon_pt` gives one list
    /// of floats per entry).
    pub fn plan(&self, path: &str) -> Result<Node> {
        let not_found = || Error::NotFound {
            file: self.file.name().to_string(),
            name: format!("{}/{path}", self.descriptor.name),
        };
        let ids = self.descriptor.resolve_path(path).ok_or_else(not_found)?;
        let node = Node::build(&self.descriptor, ids[0]).map_err(|what| Error::Unsupported {
            file: self.file.name().to_string(),
            what: format!("RNTuple '{}': {what}", self.descriptor.name),
        })?;
        let rest: Vec<&str> = ids[1..]
            .iter()
            .map(|&id| self.descriptor.fields[id as usize].name.as_str())
            .collect();
        project(node, &rest).ok_or_else(|| Error::Unsupported {
            file: self.file.name().to_string(),
            what: format!(
                "RNTuple '{}': field '{path}' cannot be read on its own (it is inside a variant)",
                self.descriptor.name
            ),
        })
    }

    /// The entries in `range`, one at a time, each as one [`Value`] per field (all
    /// top-level fields if `fields` is empty). Built on the bulk path: one cluster is
    /// read at a time.
    pub fn iter_entries<'a>(
        &'a self,
        fields: &[&str],
        range: Range<u64>,
    ) -> Result<impl Iterator<Item = Result<Vec<Value>>> + 'a> {
        let (_, nodes) = self.plan_fields(fields)?;
        let parts: Vec<Range<u64>> = self
            .cluster_ranges()?
            .into_iter()
            .map(|c| c.start.max(range.start)..c.end.min(range.end))
            .filter(|p| !p.is_empty())
            .collect();
        Ok(parts.into_iter().flat_map(move |part| {
            let n = (part.end - part.start) as usize;
            let batch: Box<dyn Iterator<Item = Result<Vec<Value>>>> =
                match self.read_nodes(&nodes, part) {
                    Ok(arrays) => Box::new(
                        (0..n).map(move |i| Ok(arrays.iter().map(|a| a.value(i)).collect())),
                    ),
                    Err(e) => Box::new(std::iter::once(Err(e))),
                };
            batch
        }))
    }

    /// Reads `fields` (paths as for [`RNTupleReader::plan`]; all top-level fields if
    /// empty) for the entries in `range`, one array per field.
    pub fn read(&self, fields: &[&str], range: Range<u64>) -> Result<Vec<(String, Array)>> {
        self.read_recycling(fields, range, &mut Recycler::new())
    }

    /// Reads the given field plans for the entries in `range`.
    pub fn read_nodes(&self, nodes: &[Node], range: Range<u64>) -> Result<Vec<Array>> {
        self.read_nodes_recycling(nodes, range, &mut Recycler::new())
    }

    /// As [`RNTupleReader::read`], filling the memory of arrays given back to `recycler`
    /// (see [`Recycler`]) instead of new memory where it is large enough.
    ///
    /// ```no_run
    /// use rootweave::array::Recycler;
    /// use rootweave::rntuple::RNTupleReader;
    /// let reader = RNTupleReader::open("events.root", "Events")?;
    /// let mut recycler = Recycler::new();
    /// for cluster in reader.cluster_ranges()? {
    ///     let arrays = reader.read_recycling(&["MET_pt"], cluster, &mut recycler)?;
    ///     // ... use the arrays, then give their memory back:
    ///     arrays.into_iter().for_each(|(_, a)| recycler.recycle(a));
    /// }
    /// # Ok::<(), rootweave::Error>(())
    /// ```
    pub fn read_recycling(
        &self,
        fields: &[&str],
        range: Range<u64>,
        recycler: &mut Recycler,
    ) -> Result<Vec<(String, Array)>> {
        let (names, nodes) = self.plan_fields(fields)?;
        let arrays = self.read_nodes_recycling(&nodes, range, recycler);
        // What the read did not reuse is freed: a recycler holds at most one read's memory.
        recycler.clear();
        Ok(names.into_iter().zip(arrays?).collect())
    }

    /// The names of `fields` (all top-level fields if empty) and the plan of each.
    pub fn plan_fields(&self, fields: &[&str]) -> Result<(Vec<String>, Vec<Node>)> {
        let names = if fields.is_empty() {
            self.field_names()
        } else {
            fields.iter().map(|s| s.to_string()).collect()
        };
        let nodes = names
            .iter()
            .map(|n| self.plan(n))
            .collect::<Result<Vec<_>>>()?;
        Ok((names, nodes))
    }

    /// As [`RNTupleReader::read_nodes`], taking memory from `recycler` (what it does not
    /// take stays there).
    pub fn read_nodes_recycling(
        &self,
        nodes: &[Node],
        range: Range<u64>,
        recycler: &mut Recycler,
    ) -> Result<Vec<Array>> {
        let entries = self.entries();
        if range.start > range.end || range.end > entries {
            return Err(Error::InvalidArgument(format!(
                "entry range {}..{} is outside 0..{entries}",
                range.start, range.end
            )));
        }
        let all = self.descriptor.all_clusters(&self.file)?;
        // Clusters are sorted by first entry: skip to the first one the range touches.
        let from = all.partition_point(|c| c.first_entry + c.n_entries <= range.start);
        let clusters: Vec<&ClusterInfo> = all[from..]
            .iter()
            .take_while(|c| c.first_entry < range.end)
            .filter(|c| c.n_entries > 0)
            .collect();
        let first = clusters.first().map_or(range.start, |c| c.first_entry);
        // The clusters must cover the range without gaps (a corrupt page list may not).
        let mut covered = first;
        for c in &clusters {
            if c.first_entry != covered {
                break;
            }
            covered += c.n_entries;
        }
        if !range.is_empty() && (first > range.start || covered < range.end) {
            return Err(Error::format(
                self.file.name(),
                format!("RNTuple '{}' page lists", self.descriptor.name),
                self.descriptor.anchor.footer.offset,
                format!(
                    "the clusters do not cover entries {}..{} without gaps",
                    range.start, range.end
                ),
            ));
        }
        // A read of part of a cluster decodes only the pages its entries need: directly
        // for fields with a fixed number of elements per entry; for one level of
        // collection (of such fields), after reading the offsets of its entries, which
        // say where their items are. Other fields read whole clusters.
        let trim = !range.is_empty()
            && (first < range.start || covered > range.end)
            && nodes.iter().all(|n| fixed_size(n) || one_collection(n));
        let parts: Option<Vec<Range<u64>>> = trim.then(|| {
            clusters
                .iter()
                .map(|c| {
                    let lo = range.start.saturating_sub(c.first_entry);
                    let hi = (range.end - c.first_entry).min(c.n_entries);
                    lo..hi
                })
                .collect()
        });
        let (first, window_entries) = match &parts {
            Some(_) => (range.start, range.end - range.start),
            None => (first, clusters.iter().map(|c| c.n_entries).sum()),
        };
        let mut items: Vec<Option<Vec<Range<u64>>>> = vec![None; nodes.len()];
        if let Some(parts) = &parts {
            for (node, items) in nodes.iter().zip(items.iter_mut()) {
                if !fixed_size(node) {
                    *items = Some(self.item_ranges(node, &clusters, parts)?);
                }
            }
        }
        // Slots of every node, depth first, with their per-cluster element counts.
        let mut slots = Vec::new();
        let mut jobs = Vec::new();
        for (node, items) in nodes.iter().zip(&items) {
            self.collect_slots(
                node,
                Some(1),
                &clusters,
                parts.as_deref(),
                items.as_deref(),
                &mut slots,
                &mut jobs,
            )?;
        }
        let mut buffers: Vec<Buffer> = slots
            .iter()
            .map(|s| {
                let len = s.counts.iter().sum::<u64>() as usize;
                let (mut buffer, fresh) = recycler.buffer(s.target, len);
                if !fresh {
                    buffer.zero_ranges(&s.zeros);
                } else if self.options.huge_pages {
                    buffer.prefer_huge_pages();
                }
                buffer
            })
            .collect();
        self.decode_pages(&mut buffers, &jobs, &slots)?;
        let mut buffers: Vec<Option<Buffer>> = buffers.into_iter().map(Some).collect();
        let mut next = 0;
        let mut arrays = Vec::with_capacity(nodes.len());
        for node in nodes {
            let array = self.assemble(
                node,
                Some(window_entries as usize),
                &slots,
                &mut buffers,
                &mut next,
            )?;
            let start = (range.start - first) as usize;
            let len = (range.end - range.start) as usize;
            arrays.push(slice(array, start, len));
        }
        Ok(arrays)
    }

    /// Appends the slots of `node` (and its subfields) and their page jobs. `mult` is the
    /// number of elements per entry when no collection lies above the node.
    /// `parts`: for a read of part of the clusters, the entries of each cluster to read;
    /// `items`: then, for a collection (and its items), the items of each cluster that
    /// those entries hold.
    #[allow(clippy::too_many_arguments)]
    fn collect_slots(
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
        for (i, (target, mult)) in targets.into_iter().enumerate() {
            let slot = &node.slots[i];
            let index = slots.len();
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
                // Deferred columns: the missing leading elements are zeros.
                let zeros_end = count - available;
                if zeros_end.min(hi) > lo {
                    let at = dst as usize + shift;
                    zeros.push(at..at + (zeros_end.min(hi) - lo) as usize);
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
                            });
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
            slots.push(SlotRead {
                target,
                counts,
                zeros,
                rebase,
            });
        }
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
    fn item_ranges(
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
    fn check_page_size(&self, field: u32, page: &PageLocation, codec: &ColumnCodec) -> Result<()> {
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

    fn corrupt(&self, field: u32, message: String) -> Error {
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

    /// Fetches and decodes every page job into the buffers, window by window.
    fn decode_pages(
        &self,
        buffers: &mut [Buffer],
        jobs: &[PageJob],
        slots: &[SlotRead],
    ) -> Result<()> {
        // Destination slices, one per job (index buffers start after their leading 0).
        let mut by_slot: Vec<Vec<usize>> = vec![Vec::new(); buffers.len()];
        for (j, job) in jobs.iter().enumerate() {
            by_slot[job.slot].push(j);
        }
        let mut dsts: Vec<Option<Dst>> = (0..jobs.len()).map(|_| None).collect();
        for (s, buffer) in buffers.iter_mut().enumerate() {
            let shift = usize::from(slots[s].target == Target::Index);
            let mut order = by_slot[s].clone();
            order.sort_by_key(|&j| jobs[j].dst);
            let ranges: Vec<(usize, usize)> = order
                .iter()
                .map(|&j| (jobs[j].dst + shift, jobs[j].take))
                .collect();
            for (j, d) in order.into_iter().zip(buffer.split_ranges(&ranges)) {
                dsts[j] = Some(d);
            }
        }
        let work: Vec<(PageJob, Dst)> = jobs
            .iter()
            .copied()
            .zip(dsts.into_iter().map(|d| d.expect("every job has a slice")))
            .collect();
        // Uncompressed pages whose bytes are the values are read straight into place: one
        // copy from the page cache, no buffer in between.
        let (direct, mut work): (Vec<_>, Vec<_>) = work.into_iter().partition(|(job, dst)| {
            job.whole()
                && job.codec.page_bytes(job.page.n_elements as usize)
                    == Some(job.page.size as usize)
                && dst.is_native(&job.codec)
        });
        // The other pages in file order, in chunks of neighbouring pages: each chunk is one
        // task on the pool that reads its bytes into the thread's reused buffer (fresh
        // memory costs page faults) and decodes its pages while they are in cache. The
        // fetch buffers of all threads together stay within half the memory budget.
        let threads = self.pool.current_num_threads().max(1);
        let most = (self.options.memory_budget / (2 * threads as u64)).clamp(64 << 10, CHUNK);
        let stored: u64 = work.iter().map(|(job, _)| job.page.size).sum();
        work.sort_by_key(|(job, _)| job.page.offset);
        let chunks = chunks(
            work,
            crate::parallel::pool::chunk_size(stored, threads, most),
            self.descriptor.anchor.max_key_size,
        );
        let read_direct = |(job, mut dst): (PageJob, Dst)| self.read_in_place(&job, &mut dst);
        let decode_chunk = |(range, pages): (Range<u64>, Vec<(PageJob, Dst)>)| {
            FETCH.with(|buffer| {
                let mut buffer = buffer.borrow_mut();
                let fetched = self.fetch(&[range], std::mem::take(&mut *buffer))?;
                for (job, mut dst) in pages {
                    self.decode_page(&fetched, &job, &mut dst)?;
                }
                // Kept for the next chunk, unless an outsized page made it large.
                if fetched.bytes.len() <= 2 * CHUNK as usize {
                    *buffer = fetched.bytes;
                }
                Ok(())
            })
        };
        crate::parallel::pool::for_each_in_two_steps(
            &self.pool,
            direct,
            read_direct,
            chunks,
            decode_chunk,
        )
    }

    /// Reads byte ranges one after the other into `buffer` (reused).
    fn fetch(&self, ranges: &[Range<u64>], mut buffer: Vec<u8>) -> Result<Fetched> {
        let name = format!("RNTuple '{}' pages", self.descriptor.name);
        let total: u64 = ranges.iter().map(|r| r.end - r.start).sum();
        // Grown when needed, never cleared: every byte is overwritten by the reads.
        if buffer.len() < total as usize {
            buffer.resize(total as usize, 0);
        }
        let mut parts = Vec::with_capacity(ranges.len());
        let mut at = 0usize;
        let max_key = self.descriptor.anchor.max_key_size;
        for r in ranges {
            let len = (r.end - r.start) as usize;
            let dst = &mut buffer[at..at + len];
            if max_key > 0 && r.end - r.start > max_key {
                // A page split over several keys.
                let bytes =
                    self.descriptor
                        .read_blob(&self.file, r.start, r.end - r.start, &name)?;
                dst.copy_from_slice(&bytes);
            } else {
                self.file.read_into(r.start, dst, &name)?;
            }
            parts.push((r.start, at));
            at += len;
        }
        Ok(Fetched {
            parts,
            bytes: buffer,
        })
    }

    /// Reads an uncompressed page of native values into its destination and checks its
    /// checksum there.
    fn read_in_place(&self, job: &PageJob, dst: &mut Dst) -> Result<()> {
        let page = &job.page;
        let object = format!(
            "RNTuple '{}' page of field '{}'",
            self.descriptor.name,
            self.descriptor.field_path(job.field)
        );
        let bytes = dst.native_bytes(&job.codec).expect("checked by is_native");
        self.file.read_into(page.offset, bytes, &object)?;
        if page.has_checksum && self.options.verify_checksums {
            let mut stored = [0u8; 8];
            self.file
                .read_into(page.offset + page.size, &mut stored, &object)?;
            if xxh3_64(bytes) != u64::from_le_bytes(stored) {
                return Err(Error::format(
                    self.file.name(),
                    object,
                    page.offset,
                    "page checksum mismatch",
                ));
            }
        }
        Ok(())
    }

    /// Decodes a page into its destination: the whole page, or (at the edges of a read of
    /// part of a cluster) the whole page into a scratch buffer and the kept part from there.
    fn decode_page(&self, fetched: &Fetched, job: &PageJob, dst: &mut Dst) -> Result<()> {
        if job.whole() {
            return self.decode_whole_page(fetched, job, dst);
        }
        let mut scratch = Buffer::zeroed(job.target, job.page.n_elements as usize);
        let mut whole = scratch.split_ranges(&[(0, job.page.n_elements as usize)]);
        self.decode_whole_page(fetched, job, &mut whole[0])?;
        dst.copy_from(&whole[0], job.skip);
        Ok(())
    }

    fn decode_whole_page(&self, fetched: &Fetched, job: &PageJob, dst: &mut Dst) -> Result<()> {
        let page = &job.page;
        let object = || {
            format!(
                "RNTuple '{}' page of field '{}'",
                self.descriptor.name,
                self.descriptor.field_path(job.field)
            )
        };
        let stored_len = page.size + if page.has_checksum { 8 } else { 0 };
        let bytes = fetched.get(page.offset, stored_len);
        let stored = &bytes[..page.size as usize];
        if page.has_checksum && self.options.verify_checksums {
            let expected = u64::from_le_bytes(bytes[page.size as usize..].try_into().expect("8"));
            if xxh3_64(stored) != expected {
                return Err(Error::format(
                    self.file.name(),
                    object(),
                    page.offset,
                    "page checksum mismatch",
                ));
            }
        }
        let n = page.n_elements as usize;
        let need = job.codec.page_bytes(n).ok_or_else(|| {
            Error::format(self.file.name(), object(), page.offset, "page too large")
        })?;
        if stored.len() == need {
            dst.decode(&job.codec, stored);
            return Ok(());
        }
        if stored.len() > need {
            return Err(Error::format(
                self.file.name(),
                object(),
                page.offset,
                format!(
                    "{} stored bytes for {n} elements of {need} bytes",
                    stored.len()
                ),
            ));
        }
        let in_object = |e: Error| e.in_object(self.file.name(), &object(), page.offset);
        // Every check the file carries is verified unless the caller turned checks off:
        // the page checksum (above) and the compression blocks' own (LZ4's XXH64, xz's
        // CRC32), which also catch a codec that decodes corrupt bytes without noticing.
        let block_checksums = self.options.verify_checksums;
        let decompress = |out: &mut [u8]| {
            decompress_into_checked(stored, out, block_checksums).map_err(in_object)
        };
        if let Some(native) = dst.native_bytes(&job.codec) {
            return decompress(native);
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            // Grown when needed, never cleared: decompression overwrites all `need` bytes.
            if scratch.len() < need {
                scratch.resize(need, 0);
            }
            let page = &mut scratch[..need];
            decompress(page)?;
            dst.decode(&job.codec, page);
            Ok(())
        })
    }

    /// Builds the array of `node` from the decoded slot buffers (consumed in slot order).
    /// `len` is the number of entries the array must have, where the parent knows it.
    fn assemble(
        &self,
        node: &Node,
        len: Option<usize>,
        slots: &[SlotRead],
        buffers: &mut [Option<Buffer>],
        next: &mut usize,
    ) -> Result<Array> {
        let mut take = |next: &mut usize| -> (usize, Buffer) {
            let i = *next;
            *next += 1;
            (i, buffers[i].take().expect("each slot is used once"))
        };
        let field = node.field;
        Ok(match &node.kind {
            Kind::Leaf(_) => leaf_array(take(next).1),
            Kind::Bitset(n) => Array::Fixed {
                size: *n,
                values: Box::new(leaf_array(take(next).1)),
            },
            Kind::String | Kind::Streamer => {
                let (i, index) = take(next);
                let offsets = self.global_offsets(field, &slots[i], index)?;
                let (_, bytes) = take(next);
                let Buffer::UInt8(bytes) = bytes else {
                    unreachable!("byte slot")
                };
                self.check_end(field, &offsets, bytes.len())?;
                if matches!(node.kind, Kind::String) {
                    Array::String { offsets, bytes }
                } else {
                    Array::List {
                        offsets,
                        values: Box::new(Array::UInt8(bytes)),
                    }
                }
            }
            Kind::Cardinality(t) => {
                let (i, index) = take(next);
                let offsets = self.global_offsets(field, &slots[i], index)?;
                let sizes = offsets.windows(2).map(|w| w[1] - w[0]);
                match t {
                    LeafType::UInt32 => Array::UInt32(sizes.map(|s| s as u32).collect()),
                    _ => Array::UInt64(sizes.collect()),
                }
            }
            Kind::List(child) | Kind::Optional(child) => {
                let (i, index) = take(next);
                let offsets = self.global_offsets(field, &slots[i], index)?;
                let items = offsets.last().copied().unwrap_or(0) as usize;
                let values = self.assemble(child, Some(items), slots, buffers, next)?;
                self.check_end(field, &offsets, values.len())?;
                if matches!(node.kind, Kind::Optional(_)) {
                    if offsets.windows(2).any(|w| w[1] - w[0] > 1) {
                        return Err(self
                            .corrupt(field, "an optional value holds more than one item".into()));
                    }
                    Array::Optional {
                        offsets,
                        values: Box::new(values),
                    }
                } else {
                    Array::List {
                        offsets,
                        values: Box::new(values),
                    }
                }
            }
            Kind::Fixed(n, child) => {
                let values = self.assemble(child, len.map(|l| l * n), slots, buffers, next)?;
                if values.len() % (*n).max(1) != 0 {
                    return Err(
                        self.corrupt(field, "array items are not a multiple of its size".into())
                    );
                }
                Array::Fixed {
                    size: *n,
                    values: Box::new(values),
                }
            }
            Kind::Wrapper(child) => self.assemble(child, len, slots, buffers, next)?,
            Kind::Record(members) => {
                let mut fields = Vec::with_capacity(members.len());
                let mut bases = Vec::new();
                for m in members {
                    let array = self.assemble(m, len, slots, buffers, next)?;
                    if m.name.starts_with(':') {
                        bases.push((m.type_name.clone(), array));
                    } else {
                        fields.push((m.name.clone(), array));
                    }
                }
                flatten_bases(&mut fields, bases);
                let len = fields.first().map(|(_, a)| a.len()).or(len).unwrap_or(0);
                if fields.iter().any(|(_, a)| a.len() != len) {
                    return Err(self.corrupt(field, "record members of different lengths".into()));
                }
                Array::Record { len, fields }
            }
            Kind::Variant(alternatives) => {
                let (i, switch) = take(next);
                let Buffer::Switch(mut index, tags) = switch else {
                    unreachable!("switch slot")
                };
                let mut arrays = Vec::with_capacity(alternatives.len());
                for (k, a) in alternatives.iter().enumerate() {
                    let count = tags.iter().filter(|&&t| t as usize == k + 1).count();
                    arrays.push(self.assemble(a, Some(count), slots, buffers, next)?);
                }
                let tags = self.variant_tags(field, &slots[i], &mut index, tags, &arrays)?;
                Array::Variant {
                    tags,
                    index,
                    alternatives: arrays,
                }
            }
        })
    }

    /// Turns cluster-relative offsets (after a leading 0) into offsets from the first
    /// cluster read, checking that they never decrease.
    fn global_offsets(&self, field: u32, slot: &SlotRead, index: Buffer) -> Result<Vec<u64>> {
        let Buffer::UInt64(mut offsets) = index else {
            unreachable!("index slot")
        };
        let mut base = 0u64;
        let mut at = 1usize;
        for (k, &count) in slot.counts.iter().enumerate() {
            let part = &mut offsets[at..at + count as usize];
            // Offsets count from the cluster's first item; a read of part of the cluster
            // starts at a later one.
            let first = slot.rebase.get(k).copied().unwrap_or(0);
            let mut previous = first;
            for v in part.iter_mut() {
                if *v < previous {
                    return Err(
                        self.corrupt(field, format!("collection offsets decrease in cluster {k}"))
                    );
                }
                previous = *v;
                *v = (*v - first).checked_add(base).ok_or_else(|| {
                    self.corrupt(field, format!("collection offsets overflow in cluster {k}"))
                })?;
            }
            base = base.saturating_add(previous - first);
            at += count as usize;
        }
        Ok(offsets)
    }

    fn check_end(&self, field: u32, offsets: &[u64], items: usize) -> Result<()> {
        let end = offsets.last().copied().unwrap_or(0);
        if end != items as u64 {
            return Err(self.corrupt(
                field,
                format!("collection offsets end at {end} but there are {items} items"),
            ));
        }
        Ok(())
    }

    /// Checks switch tags and makes the indices global (per alternative).
    fn variant_tags(
        &self,
        field: u32,
        slot: &SlotRead,
        index: &mut [u64],
        tags: Vec<u32>,
        alternatives: &[Array],
    ) -> Result<Vec<u8>> {
        let n = alternatives.len();
        let mut base = vec![0u64; n];
        let mut out = Vec::with_capacity(tags.len());
        let mut at = 0usize;
        for &count in &slot.counts {
            let mut in_cluster = vec![0u64; n];
            for i in at..at + count as usize {
                let tag = tags[i] as usize;
                if tag > n {
                    return Err(
                        self.corrupt(field, format!("variant tag {tag} of {n} alternatives"))
                    );
                }
                if tag > 0 {
                    let a = tag - 1;
                    let global = index[i].saturating_add(base[a]);
                    if global >= alternatives[a].len() as u64 {
                        return Err(self.corrupt(field, "variant index out of range".into()));
                    }
                    in_cluster[a] = in_cluster[a].max(index[i] + 1);
                    index[i] = global;
                } else {
                    index[i] = 0;
                }
                out.push(tag as u8);
            }
            for a in 0..n {
                base[a] += in_cluster[a];
            }
            at += count as usize;
        }
        Ok(out)
    }
}

thread_local! {
    /// Per-thread buffer for decompressed pages that need decoding.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Per-thread buffer for the stored bytes of a chunk of pages.
    static FETCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Stored bytes of a chunk of pages read at once by one thread, at most.
const CHUNK: u64 = 4 << 20;

/// The bytes of some ranges of the file, one after the other.
struct Fetched {
    /// File offset of each range and where it starts in `bytes`.
    parts: Vec<(u64, usize)>,
    bytes: Vec<u8>,
}

impl Fetched {
    fn get(&self, offset: u64, len: u64) -> &[u8] {
        let i = self.parts.partition_point(|(start, _)| *start <= offset) - 1;
        let (start, at) = self.parts[i];
        let from = at + (offset - start) as usize;
        &self.bytes[from..from + len as usize]
    }
}

/// A byte range of the file and the pages (with their destinations) it holds.
type Chunk<'a> = (Range<u64>, Vec<(PageJob, Dst<'a>)>);

/// Groups pages (sorted by offset) into chunks, each read with one call (see
/// [`coalesce`]); a page split over several keys (larger than the maximum key size) is a
/// chunk of its own.
fn chunks<'a>(
    pages: Vec<(PageJob, Dst<'a>)>,
    chunk_bytes: u64,
    max_key_size: u64,
) -> Vec<Chunk<'a>> {
    let split = |r: &Range<u64>| max_key_size > 0 && r.end - r.start > max_key_size;
    let items = pages.into_iter().map(|(job, dst)| {
        let len = job.page.size + if job.page.has_checksum { 8 } else { 0 };
        (job.page.offset..job.page.offset + len, (job, dst))
    });
    coalesce(items, chunk_bytes, split)
}

/// True if the field is one collection (a list, an optional, a string) whose items have a
/// fixed number of elements each.
fn one_collection(node: &Node) -> bool {
    match &node.kind {
        Kind::List(c) | Kind::Optional(c) => fixed_size(c),
        Kind::String | Kind::Streamer => true,
        _ => false,
    }
}

/// True if the field has a fixed number of elements per entry in every column (no
/// collection, string or variant inside it).
fn fixed_size(node: &Node) -> bool {
    match &node.kind {
        Kind::Leaf(_) | Kind::Bitset(_) => true,
        Kind::Fixed(_, c) | Kind::Wrapper(c) => fixed_size(c),
        Kind::Record(members) => members.iter().all(fixed_size),
        _ => false,
    }
}

fn project(node: Node, path: &[&str]) -> Option<Node> {
    let Some((first, rest)) = path.split_first() else {
        return Some(node);
    };
    let Node {
        field,
        name,
        type_name,
        kind,
        slots,
    } = node;
    let rebuild = |kind| Node {
        field,
        name: name.clone(),
        type_name: type_name.clone(),
        kind,
        slots: slots.clone(),
    };
    match kind {
        Kind::List(c) if c.name == *first => {
            Some(rebuild(Kind::List(Box::new(project(*c, rest)?))))
        }
        Kind::Optional(c) if c.name == *first => {
            Some(rebuild(Kind::Optional(Box::new(project(*c, rest)?))))
        }
        Kind::Fixed(n, c) if c.name == *first => {
            Some(rebuild(Kind::Fixed(n, Box::new(project(*c, rest)?))))
        }
        Kind::Wrapper(c) if c.name == *first => project(*c, rest),
        Kind::Record(members) => {
            let member = members.into_iter().find(|m| m.name == *first)?;
            project(member, rest)
        }
        _ => None,
    }
}

/// Base classes (subfields `:_0`, `:_1`, ...) are flattened into the derived record:
/// their members follow the record's own, and a member name that occurs more than once
/// is prefixed by the base class that brings it (`Base::name`).
fn flatten_bases(fields: &mut Vec<(String, Array)>, bases: Vec<(String, Array)>) {
    let mut inherited = Vec::new();
    for (base, array) in bases {
        if let Array::Record {
            fields: members, ..
        } = array
        {
            inherited.extend(members.into_iter().map(|(n, a)| (base.clone(), n, a)));
        }
    }
    let count = |name: &str, fields: &[(String, Array)], inherited: &[(String, String, Array)]| {
        fields.iter().filter(|(n, _)| n == name).count()
            + inherited.iter().filter(|(_, n, _)| n == name).count()
    };
    let names: Vec<bool> = inherited
        .iter()
        .map(|(_, n, _)| count(n, fields, &inherited) > 1)
        .collect();
    for ((base, name, array), clash) in inherited.into_iter().zip(names) {
        let name = if clash {
            format!("{base}::{name}")
        } else {
            name
        };
        fields.push((name, array));
    }
}

fn leaf_array(buffer: Buffer) -> Array {
    match buffer {
        Buffer::Bool(v) => Array::Bool(v),
        Buffer::Int8(v) => Array::Int8(v),
        Buffer::Int16(v) => Array::Int16(v),
        Buffer::Int32(v) => Array::Int32(v),
        Buffer::Int64(v) => Array::Int64(v),
        Buffer::UInt8(v) => Array::UInt8(v),
        Buffer::UInt16(v) => Array::UInt16(v),
        Buffer::UInt32(v) => Array::UInt32(v),
        Buffer::UInt64(v) => Array::UInt64(v),
        Buffer::Float32(v) => Array::Float32(v),
        Buffer::Float64(v) => Array::Float64(v),
        Buffer::Switch(i, _) => Array::UInt64(i),
    }
}
