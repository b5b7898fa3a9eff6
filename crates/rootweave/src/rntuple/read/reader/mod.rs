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

mod assemble;
mod fetch;
mod pages;

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use super::decode::ColumnCodec;
use super::descriptor::{Descriptor, OpenOptions, Role};
use super::plan::Node;
use crate::array::buffer::{Buffer, Target};
use crate::array::slice;
use crate::array::Array;
use crate::array::Recycler;
use crate::array::Value;
use crate::container::RootFile;
use crate::error::{Error, Result};
use crate::parallel::ReadOptions;
use crate::rntuple::format::{ClusterInfo, PageLocation};
use assemble::{fixed_size, one_collection, project};

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
    /// Buffers of remote windows, kept between windows and reads: fresh memory costs a
    /// page fault per page.
    windows: crate::container::windows::WindowBuffers,
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
    /// Added (wrapping) to every offset of an offsets page whose read knows the items of
    /// the clusters before it (see [`GlobalOffsets`]): the offsets then count from the
    /// read's first item. 0 for other pages.
    base: u64,
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
    /// Offsets slots whose pages are decoded straight into global offsets.
    global: Option<GlobalOffsets>,
}

/// An offsets slot decoded straight into offsets from the read's first item: each page
/// adds its cluster's base while it is in cache, so that no pass over the whole buffer
/// is needed afterwards, only checks at the seams that the pages cannot see.
#[derive(Debug, Default, Clone)]
struct GlobalOffsets {
    /// Per cluster, the items of the read before it, and the total after the last one.
    bases: Vec<u64>,
    /// Per cluster, its elements' positions in the buffer.
    spans: Vec<Range<usize>>,
    /// Positions where a page's elements begin.
    starts: Vec<usize>,
    /// Positions no page fills (deferred columns) and their cluster.
    gaps: Vec<(Range<usize>, usize)>,
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
            windows: Default::default(),
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

    /// The columns of an analysis graph, as RDataFrame names an RNTuple's: the top-level
    /// fields of numbers, strings and lists of them, then the dotted paths of the members of
    /// records that read on their own, the item of a collection or a fixed-size array left
    /// out of the path (`Muon.pt` for the `pt` of `std::vector<Muon>` `Muon`). Records (and
    /// collections of them) are listed themselves only where ROOT knows their class without
    /// a dictionary: `std::pair`s and `std::tuple`s.
    pub fn column_names(&self) -> Vec<String> {
        let fields = &self.descriptor.fields;
        let unlisted_record = |field: &crate::rntuple::read::descriptor::FieldRecord| {
            let known = ["std::pair<", "std::tuple<"];
            field.role == Role::Record && !known.iter().any(|k| field.type_name.starts_with(k))
        };
        let holds_records = |id: u32| {
            let field = &fields[id as usize];
            match field.role {
                Role::Record => unlisted_record(field),
                _ if field.holds_items() => field
                    .children
                    .first()
                    .is_some_and(|&c| unlisted_record(&fields[c as usize])),
                _ => false,
            }
        };
        let top = self.descriptor.top_level_fields();
        let mut names: Vec<String> = top
            .iter()
            .filter(|&&id| !holds_records(id))
            .map(|&id| fields[id as usize].name.clone())
            .collect();
        let mut stack: Vec<(u32, String)> = top
            .into_iter()
            .map(|id| (id, fields[id as usize].name.clone()))
            .collect();
        while let Some((id, path)) = stack.pop() {
            let field = &fields[id as usize];
            for &child in field.children.iter().rev() {
                let c = &fields[child as usize];
                match field.role {
                    _ if field.holds_items() => stack.push((child, path.clone())),
                    Role::Record => {
                        let member = format!("{path}.{}", c.name);
                        if self.plan(&member).is_ok() {
                            if !holds_records(child) {
                                names.push(member.clone());
                            }
                            stack.push((child, member));
                        }
                    }
                    _ => {}
                }
            }
        }
        names
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

    /// Bytes of the stored pages of `fields` (dotted paths; every field if empty): each
    /// field's own columns, its subfields' and its parents' (the offsets read with it).
    /// Sizes reading steps by what a read of those fields stores.
    pub fn stored_bytes(&self, fields: &[&str]) -> Result<u64> {
        let d = &self.descriptor;
        let columns: Option<std::collections::HashSet<u32>> = (!fields.is_empty()).then(|| {
            let mut ids: Vec<u32> = Vec::new();
            for path in fields {
                let Some(chain) = d.resolve_path(path) else {
                    continue;
                };
                let Some((&last, parents)) = chain.split_last() else {
                    continue;
                };
                ids.extend(parents);
                let mut below = vec![last];
                while let Some(id) = below.pop() {
                    ids.push(id);
                    below.extend(&d.fields[id as usize].children);
                }
            }
            ids.iter()
                .flat_map(|&id| &d.fields[id as usize].columns)
                .map(|c| c.physical)
                .collect()
        });
        Ok(d.all_clusters(&self.file)?
            .iter()
            .flat_map(|c| c.columns.iter().enumerate())
            .filter(|(i, _)| {
                columns
                    .as_ref()
                    .is_none_or(|set| set.contains(&(*i as u32)))
            })
            .flat_map(|(_, p)| p.iter().flat_map(|p| &p.pages))
            .map(|p| p.size)
            .sum())
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
}
