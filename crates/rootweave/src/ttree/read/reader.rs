//! The public TTree reader: open a tree (through subdirectories, highest cycle by
//! default), list its branches and how each is read, and read any branches for any
//! entry range into [`Array`]s. Baskets are fetched with coalesced reads, window by
//! window, and decompressed and decoded in parallel on the reader's thread pool.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use super::basket::{decode_basket, BasketData};
use super::bulk::{BulkContext, BulkField, BulkPlan};
use super::counted::{self, Counts, CountsByField};
use super::other_files::OtherFiles;
use crate::array::Recycler;
use crate::array::{concat, Array};
use crate::container::windows::{self, WindowBuffers};
use crate::container::{read_streamers, KeyInfo, RootFile};
use crate::error::{Error, Result};
use crate::io::coalesce;
use crate::parallel::ReadOptions;
use crate::streamer::{is_tree_class, Cursor, ObjectReader, StreamerSet};
use crate::ttree::interpretation::{interpret, Interpretation};
use crate::ttree::model::{Branch, TreeMeta};

/// The paths (`dir/name`) of the trees in a file, highest cycle of each name, through
/// subdirectories.
pub fn list_trees(file: &RootFile) -> Result<Vec<String>> {
    fn walk(
        file: &RootFile,
        keys: &[KeyInfo],
        prefix: &str,
        depth: usize,
        out: &mut Vec<String>,
    ) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for key in keys {
            if !seen.insert((key.name.clone(), key.class_name.clone())) {
                continue;
            }
            if is_tree_class(&key.class_name) {
                out.push(format!("{prefix}{}", key.name));
            } else if key.class_name.starts_with("TDirectory") && depth < 16 {
                let sub = file.directory_keys(key)?;
                walk(
                    file,
                    &sub,
                    &format!("{prefix}{}/", key.name),
                    depth + 1,
                    out,
                )?;
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(file, file.keys(), "", 0, &mut out)?;
    Ok(out)
}

/// The most levels of sub-branches a group may have (ROOT's split objects nest a few).
const MAX_GROUP_DEPTH: usize = 64;

/// Reads one TTree. All methods take `&self`: one reader may serve many threads.
///
/// ```no_run
/// use rootweave::ttree::TTreeReader;
/// let tree = TTreeReader::open("events.root", "Events")?;
/// for (name, array) in tree.read(&["nMuon", "Muon_pt"], 0..tree.entries())? {
///     println!("{name}: {} entries of {}", array.len(), array.kind());
/// }
/// # Ok::<(), rootweave::Error>(())
/// ```
pub struct TTreeReader {
    file: Arc<RootFile>,
    meta: TreeMeta,
    streamers: Arc<StreamerSet>,
    options: ReadOptions,
    pool: Arc<rayon::ThreadPool>,
    /// Buffers of a remote file's windows, kept between windows and reads.
    windows: WindowBuffers,
    /// The files that branches keep their baskets in, beside this one.
    other_files: OtherFiles,
}

/// Another name of [`TTreeReader`].
pub type Tree = TTreeReader;

impl std::fmt::Debug for TTreeReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TTreeReader")
            .field("file", &self.file.name())
            .field("name", &self.meta.name)
            .finish_non_exhaustive()
    }
}

/// One basket's part of a read.
struct Job<'a> {
    field: usize,
    part: usize,
    branch: &'a Branch,
    basket: usize,
    /// Entries of the basket to decode (relative to its first entry).
    within: Range<usize>,
}

impl TTreeReader {
    /// Opens the tree `name` (`dir/name`, `name;cycle`) in the file at `path`.
    pub fn open(path: impl AsRef<Path>, name: &str) -> Result<Self> {
        let file = Arc::new(RootFile::open(path)?);
        let streamers = Arc::new(read_streamers(&file)?);
        Self::from_file(file, streamers, name, ReadOptions::default())
    }

    /// Opens the tree `name` of an open file whose class layouts are `streamers`.
    pub fn from_file(
        file: Arc<RootFile>,
        streamers: Arc<StreamerSet>,
        name: &str,
        options: ReadOptions,
    ) -> Result<Self> {
        let key = file.get_key(name)?;
        let (object, base) = key.record_label(&format!("TTree '{name}'"));
        let payload = file.read_object(&key)?;
        let mut c = Cursor::new(&payload, base, file.name(), &object, key.keylen as u32);
        let tree = ObjectReader {
            streamers: &streamers,
        }
        .read(&mut c, &key.class_name)?;
        let meta = TreeMeta::from_object(&tree, file.size())
            .map_err(|(offset, message)| Error::format(file.name(), &object, offset, message))?;
        let pool = options.thread_pool()?;
        Ok(TTreeReader {
            file,
            meta,
            streamers,
            options,
            pool,
            windows: WindowBuffers::default(),
            other_files: OtherFiles::default(),
        })
    }

    /// The metadata.
    pub fn meta(&self) -> &TreeMeta {
        &self.meta
    }

    /// The file.
    pub fn file(&self) -> &Arc<RootFile> {
        &self.file
    }

    /// The file's class layouts.
    pub fn streamers(&self) -> &StreamerSet {
        &self.streamers
    }

    /// The pool that decompresses and decodes this reader's pages.
    pub(crate) fn thread_pool(&self) -> &rayon::ThreadPool {
        &self.pool
    }

    /// Number of entries.
    pub fn entries(&self) -> u64 {
        self.meta.entries
    }

    /// A name for every branch, depth first: its own name, or its path from the top
    /// (`parent/child`) where another branch has the same name.
    pub fn branch_names(&self) -> Vec<String> {
        self.meta.unique_names()
    }

    /// The names RDataFrame gives the tree's columns: [`TTreeReader::branch_names`], with
    /// each leaf of a leaf list (`"run/I:event/I"`) as `branch.leaf` in place of its branch
    /// (those names read the leaf's values alone), and the members of split objects also
    /// as `object.member` (see [`TreeMeta::dotted_names`]), which stand for the paths
    /// (`object/member`) of members whose names other branches share.
    pub fn column_names(&self) -> Vec<String> {
        // A dotted name stands for its member where no branch has it as its own name and no
        // other member has it too (as `TreeMeta::find` resolves it), told without a lookup
        // per name: trees of thousands of members list their columns at every run.
        let all = self.meta.dotted_names();
        let own: std::collections::HashSet<&str> = self
            .meta
            .all_branches()
            .into_iter()
            .map(|b| b.name.as_str())
            .collect();
        let mut uses: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (name, _) in &all {
            *uses.entry(name.as_str()).or_default() += 1;
        }
        let dotted: Vec<(String, &Branch)> = all
            .iter()
            .filter(|(n, _)| uses[n.as_str()] == 1 && !own.contains(n.as_str()) && !n.contains('/'))
            .map(|(n, b)| (n.clone(), *b))
            .collect();
        let aliased = |path: &str| {
            path.contains('/')
                && self
                    .meta
                    .find(path)
                    .is_some_and(|f| dotted.iter().any(|(_, b)| std::ptr::eq(f, *b)))
        };
        let mut names: Vec<String> = self
            .branch_names()
            .into_iter()
            .filter(|b| !aliased(b))
            .flat_map(|b| match self.interpretation(&b) {
                Ok(Interpretation::Record(leaves)) => leaves
                    .into_iter()
                    .map(|leaf| format!("{b}.{}", leaf.name))
                    .collect(),
                _ => vec![b],
            })
            .collect();
        let mut seen: std::collections::HashSet<String> = names.iter().cloned().collect();
        for (name, _) in dotted {
            if seen.insert(name.clone()) {
                names.push(name);
            }
        }
        names
    }

    /// [`TTreeReader::leaf_of_list`] of a planned name, looked for only where its
    /// interpretation is a leaf list's (so that reading other branches costs no lookup).
    fn planned_leaf<'n>(
        &self,
        name: &'n str,
        interp: &Interpretation,
    ) -> Option<(&'n str, &'n str)> {
        match interp {
            Interpretation::Record(_) => self.leaf_of_list(name),
            _ => None,
        }
    }

    /// The leaf-list branch and its leaf that `name` (`branch.leaf`, as RDataFrame names a
    /// leaf of a leaf list) stands for, where no branch has that name.
    pub fn leaf_of_list<'n>(&self, name: &'n str) -> Option<(&'n str, &'n str)> {
        if self.branch(name).is_ok() {
            return None;
        }
        let (branch, leaf) = name.rsplit_once('.')?;
        match self.interpretation(branch).ok()? {
            Interpretation::Record(leaves) if leaves.iter().any(|l| l.name == leaf) => {
                Some((branch, leaf))
            }
            _ => None,
        }
    }

    /// The entry ranges of the clusters.
    pub fn cluster_ranges(&self) -> Vec<Range<u64>> {
        self.meta.cluster_ranges()
    }

    /// Stored (compressed) bytes of the baskets of `fields` (branch names as for reading,
    /// with their sub-branches; every branch if empty; unknown names count nothing). Sizes
    /// reading steps by what a read of those branches stores.
    pub fn stored_bytes(&self, fields: &[&str]) -> u64 {
        fn with_subbranches(b: &Branch) -> u64 {
            b.zip_bytes + b.branches.iter().map(with_subbranches).sum::<u64>()
        }
        if fields.is_empty() {
            return self.meta.branches.iter().map(with_subbranches).sum();
        }
        fields
            .iter()
            .filter_map(|f| {
                let f = self.leaf_of_list(f).map_or(*f, |(branch, _)| branch);
                self.branch(f).ok()
            })
            .map(with_subbranches)
            .sum()
    }

    /// The path from the top of the branch `name` stands for, under which its sub-branches
    /// are found: `name` may be another name of it that is no path (RDataFrame's
    /// `event.member` for a member branch); `name` itself where no branch answers to it.
    fn path(&self, name: &str) -> String {
        let found = self.meta.find(name).and_then(|b| self.meta.path_of(b));
        found.unwrap_or_else(|| name.to_string())
    }

    fn branch(&self, name: &str) -> Result<&Branch> {
        if let Some(b) = self.meta.find(name) {
            return Ok(b);
        }
        let suffix = format!("/{name}");
        let paths: Vec<String> = self
            .meta
            .unique_names()
            .into_iter()
            .filter(|p| p.ends_with(&suffix))
            .collect();
        if paths.len() > 1 {
            return Err(Error::InvalidArgument(format!(
                "{}: TTree '{}' has {} branches named '{name}'; name one by its path: {}",
                self.file.name(),
                self.meta.name,
                paths.len(),
                paths.join(", ")
            )));
        }
        Err(Error::NotFound {
            file: self.file.name().to_string(),
            name: format!("{}/{name}", self.meta.name),
        })
    }

    /// How the branch `name` is read, or an [`Error::Unsupported`] naming the branch and
    /// the reason it cannot be. A group (a branch standing for its sub-branches) is
    /// readable when all of its sub-branches are.
    pub fn interpretation(&self, name: &str) -> Result<Interpretation> {
        self.interpretation_within(name, 0)
    }

    /// [`TTreeReader::interpretation`] of a branch `depth` groups down: deeper than
    /// [`MAX_GROUP_DEPTH`] is an error, whatever the file claims.
    fn interpretation_within(&self, name: &str, depth: usize) -> Result<Interpretation> {
        let branch = self.branch(name)?;
        if depth > MAX_GROUP_DEPTH {
            return Err(Error::Unsupported {
                file: self.file.name().to_string(),
                what: format!(
                    "TTree '{}' branch '{name}': more than {MAX_GROUP_DEPTH} levels of sub-branches",
                    self.meta.name
                ),
            });
        }
        let unsupported = |why: String| Error::Unsupported {
            file: self.file.name().to_string(),
            what: format!("TTree '{}' branch '{}': {why}", self.meta.name, branch.name),
        };
        if let Some(why) = self
            .other_files
            .unavailable(self.file.name(), &self.meta.name, branch)
        {
            return Err(Error::Unsupported {
                file: self.file.name().to_string(),
                what: why,
            });
        }
        let interp = interpret(branch, &self.streamers)
            .and_then(|i| match i.entry_size() {
                Some(0) => Err("entries of zero bytes".to_string()),
                _ => Ok(i),
            })
            .map_err(unsupported)?;
        if let Interpretation::Group(children) = &interp {
            let parent = self.path(name);
            for child in children {
                self.interpretation_within(&format!("{parent}/{child}"), depth + 1)
                    .map_err(|e| unsupported(format!("sub-branch '{child}': {e}")))?;
            }
        }
        Ok(interp)
    }

    /// The branches a read of "every branch" returns: every readable branch except
    /// groups (whose sub-branches are returned instead, as uproot does).
    pub fn default_branches(&self) -> Vec<String> {
        self.branch_names()
            .into_iter()
            .filter(|n| {
                self.interpretation(n)
                    .is_ok_and(|i| !matches!(i, Interpretation::Group(_)))
                    && self.short_of_entries(n).is_none()
            })
            .collect()
    }

    /// The branches a read of "every branch" leaves out, each with the reason (for a
    /// warning per branch): those that cannot be read, and those filled for fewer
    /// entries than the tree (their entries would not line up with the others').
    pub fn unreadable_branches(&self) -> Vec<(String, String)> {
        self.branch_names()
            .into_iter()
            .filter_map(|n| match self.interpretation(&n) {
                Err(e) => Some((n, e.to_string())),
                Ok(_) => self.short_of_entries(&n).map(|why| (n, why)),
            })
            .collect()
    }

    /// Why branch `name` holds fewer entries than the tree, if it does.
    fn short_of_entries(&self, name: &str) -> Option<String> {
        let branch = self.branch(name).ok()?;
        let entries = self.entries();
        let held = held(&(0..entries), branch).end;
        (held < entries).then(|| {
            format!("it was filled for {held} of the tree's {entries} entries: read it alone")
        })
    }

    /// Reads branches `fields` (full names; the [`default_branches`](Self::default_branches)
    /// if empty) for the entries in `range`, one array per branch. A group comes back as a
    /// record of its sub-branches' arrays, keyed by their names.
    pub fn read(&self, fields: &[&str], range: Range<u64>) -> Result<Vec<(String, Array)>> {
        self.read_recycling(fields, range, &mut Recycler::new())
    }

    /// As [`TTreeReader::read`], filling the memory of arrays given back to `recycler`
    /// (see [`Recycler`]) where it is large enough (for branches of numbers, fixed-size
    /// arrays and vectors of numbers, which are read straight into their arrays).
    pub fn read_recycling(
        &self,
        fields: &[&str],
        range: Range<u64>,
        recycler: &mut Recycler,
    ) -> Result<Vec<(String, Array)>> {
        let plan = self.plan_branches(fields)?;
        let arrays = self.read_planned_branches(&plan, range, recycler);
        // What the read did not reuse is freed: a recycler holds at most one read's memory.
        recycler.clear();
        arrays
    }

    /// Each branch's name and interpretation (the default branches if `fields` is empty).
    pub fn plan_branches(&self, fields: &[&str]) -> Result<Vec<(String, Interpretation)>> {
        let names: Vec<String> = if fields.is_empty() {
            self.default_branches()
        } else {
            fields.iter().map(|s| s.to_string()).collect()
        };
        names
            .into_iter()
            .map(|name| {
                let branch = self.leaf_of_list(&name).map_or(name.as_str(), |(b, _)| b);
                Ok((name.clone(), self.interpretation(branch)?))
            })
            .collect()
    }

    /// Reads planned branches (see [`TTreeReader::plan_branches`]) for `range`, taking
    /// memory from `recycler` (what it does not take stays there).
    pub fn read_planned_branches(
        &self,
        planned: &[(String, Interpretation)],
        range: Range<u64>,
        recycler: &mut Recycler,
    ) -> Result<Vec<(String, Array)>> {
        // The branches with data in one read; each group's sub-branches in a read of
        // their own, assembled into a record.
        // A leaf of a leaf list (`branch.leaf`) is its branch read and the leaf taken.
        let direct: Vec<(String, Interpretation)> = planned
            .iter()
            .filter(|(_, i)| !matches!(i, Interpretation::Group(_)))
            .map(|(name, i)| {
                let branch = self.planned_leaf(name, i).map_or(name.as_str(), |(b, _)| b);
                (branch.to_string(), i.clone())
            })
            .collect();
        let mut arrays = self
            .read_branches(&direct, range.clone(), recycler)?
            .into_iter();
        let mut out = Vec::with_capacity(planned.len());
        for (name, interp) in planned {
            match interp {
                Interpretation::Group(children) => {
                    // Sub-branches by their path under the group (a child's own name may
                    // be another branch's too); the record's members by their own names.
                    let parent = self.path(name);
                    let paths: Vec<String> =
                        children.iter().map(|c| format!("{parent}/{c}")).collect();
                    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
                    let planned = self.plan_branches(&paths)?;
                    let fields: Vec<(String, Array)> = self
                        .read_planned_branches(&planned, range.clone(), recycler)?
                        .into_iter()
                        .zip(children)
                        .map(|((_, array), child)| (child.clone(), array))
                        .collect();
                    let len = common_len(&fields).ok_or_else(|| {
                        Error::format(
                            self.file.name(),
                            format!("TTree '{}' branch '{name}'", self.meta.name),
                            0,
                            "sub-branches hold different numbers of entries".to_string(),
                        )
                    })?;
                    let len = len.unwrap_or((range.end - range.start) as usize);
                    out.push((name.clone(), Array::Record { len, fields }));
                }
                _ => {
                    let (_, array) = arrays.next().expect("one array per branch with data");
                    let array = match (self.planned_leaf(name, interp), array) {
                        (Some((branch, leaf)), Array::Record { fields, .. }) => fields
                            .into_iter()
                            .find(|(f, _)| f == leaf)
                            .map(|(_, a)| a)
                            .ok_or_else(|| {
                                Error::format(
                                    self.file.name(),
                                    format!("TTree '{}' branch '{branch}'", self.meta.name),
                                    0,
                                    format!("its leaf list was read without its leaf '{leaf}'"),
                                )
                            })?,
                        (_, array) => array,
                    };
                    out.push((name.clone(), array));
                }
            }
        }
        Ok(out)
    }

    /// Reads branches with data of their own (no groups), each with its interpretation.
    fn read_branches(
        &self,
        branches: &[(String, Interpretation)],
        range: Range<u64>,
        recycler: &mut Recycler,
    ) -> Result<Vec<(String, Array)>> {
        let members = self.counter_members(branches, &range, recycler)?;
        let error = match self.read_branches_with(branches, range.clone(), recycler, &members) {
            Ok(arrays) => return Ok(arrays),
            Err(e) => e,
        };
        // Counter-indexed arrays whose baskets lack entry offsets: again, with the offsets
        // rebuilt from their counters (only on failure: it costs reading the counters).
        let mut counts = self.counter_values(branches, &range, recycler);
        if counts.is_empty() {
            return Err(error);
        }
        counts.extend(members);
        self.read_branches_with(branches, range, recycler, &counts)
    }

    /// The values, over `range`, of the counter member of each counted array member of a
    /// split collection among `branches` (those cannot be read without them).
    fn counter_members(
        &self,
        branches: &[(String, Interpretation)],
        range: &Range<u64>,
        recycler: &mut Recycler,
    ) -> Result<CountsByField> {
        let mut out = CountsByField::new();
        for (k, (name, interp)) in branches.iter().enumerate() {
            let Interpretation::CountedMembers { counter, .. } = interp else {
                continue;
            };
            let within = held(range, self.branch(name)?);
            // The counter by its path beside the branch's, or by its own name.
            let sibling = name
                .rsplit_once('/')
                .map(|(parent, _)| format!("{parent}/{counter}"));
            let found = sibling
                .into_iter()
                .chain([counter.clone()])
                .find(|c| self.branch(c).is_ok());
            let bad = |m: String| {
                Error::format(
                    self.file.name(),
                    format!("TTree '{}' branch '{name}'", self.meta.name),
                    0,
                    m,
                )
            };
            let Some(found) = found else {
                return Err(bad(format!(
                    "its counter branch '{counter}' is not in the tree"
                )));
            };
            let interp = self.interpretation(&found)?;
            let values = self.read_branches_with(
                &[(found, interp)],
                within.clone(),
                recycler,
                &CountsByField::new(),
            )?;
            let counts = counted::item_counts_of(within.start, &values[0].1)
                .map_err(|m| bad(format!("its counter branch '{counter}': {m}")))?;
            out.insert(k, counts);
        }
        Ok(out)
    }

    /// The counter branch values, over the baskets `range` touches, of each
    /// counter-indexed array among `branches` whose counter can be read.
    fn counter_values(
        &self,
        branches: &[(String, Interpretation)],
        range: &Range<u64>,
        recycler: &mut Recycler,
    ) -> CountsByField {
        let mut out = CountsByField::new();
        for (k, (name, interp)) in branches.iter().enumerate() {
            let Ok(branch) = self.branch(name) else {
                continue;
            };
            let Some(count) = branch.leaves.first().and_then(|l| l.count.as_deref()) else {
                continue;
            };
            if counted::item_bytes(interp).is_none() {
                continue;
            }
            let within = held(range, branch);
            let touched = branch
                .baskets
                .iter()
                .filter(|b| b.end_entry > within.start && b.first_entry < within.end);
            let span = touched.fold(None, |s: Option<Range<u64>>, b| {
                Some(s.map_or(b.first_entry..b.end_entry, |s| {
                    s.start.min(b.first_entry)..s.end.max(b.end_entry)
                }))
            });
            let sibling = name
                .rsplit_once('/')
                .map(|(parent, _)| format!("{parent}/{count}"));
            let counter = sibling
                .into_iter()
                .chain([count.to_string()])
                .find(|c| c != name && self.branch(c).is_ok());
            let (Some(span), Some(counter)) = (span, counter) else {
                continue;
            };
            let read = self.interpretation(&counter).and_then(|i| {
                self.read_branches_with(
                    &[(counter, i)],
                    span.clone(),
                    recycler,
                    &CountsByField::new(),
                )
            });
            if let Ok(Some(counts)) = read.map(|a| counted::counts_of(span.start, &a[0].1).ok()) {
                out.insert(k, counts);
            }
        }
        out
    }

    /// Reads branches with data of their own (no groups), each with its interpretation;
    /// the fields in `counts` have their entry offsets rebuilt from those counts where
    /// a basket lacks them.
    fn read_branches_with(
        &self,
        branches: &[(String, Interpretation)],
        range: Range<u64>,
        recycler: &mut Recycler,
        counts: &CountsByField,
    ) -> Result<Vec<(String, Array)>> {
        let entries = self.entries();
        if range.start > range.end || range.end > entries {
            return Err(Error::InvalidArgument(format!(
                "entry range {}..{} is outside 0..{entries}",
                range.start, range.end
            )));
        }
        let mut plans = Vec::with_capacity(branches.len());
        for (name, interp) in branches {
            plans.push((self.branch(name)?, interp.clone()));
        }
        // One job per basket and branch that the range touches.
        let mut jobs = Vec::new();
        let mut parts = vec![0usize; plans.len()];
        for (field, (branch, _)) in plans.iter().enumerate() {
            let range = held(&range, branch);
            let mut covered = range.start;
            for (i, b) in branch.baskets.iter().enumerate() {
                if b.end_entry <= range.start
                    || b.first_entry >= range.end
                    || b.end_entry == b.first_entry
                {
                    continue;
                }
                if b.first_entry > covered {
                    break;
                }
                let from = range.start.max(b.first_entry);
                let to = range.end.min(b.end_entry);
                jobs.push(Job {
                    field,
                    part: parts[field],
                    branch,
                    basket: i,
                    within: (from - b.first_entry) as usize..(to - b.first_entry) as usize,
                });
                parts[field] += 1;
                covered = to;
            }
            if covered < range.end {
                return Err(Error::format(
                    self.file.name(),
                    format!("TTree '{}' branch '{}'", self.meta.name, branch.name),
                    0,
                    format!(
                        "the baskets hold entries up to {covered}, entries {}..{} were asked for",
                        range.start, range.end
                    ),
                ));
            }
        }
        // Fixed-size and counter-indexed branches of plain numbers: straight into their
        // arrays. The others: basket by basket, then joined.
        let mut bulk_index = vec![None; plans.len()];
        let mut bulk_fields: Vec<BulkField> = Vec::new();
        for (k, (branch, interp)) in plans.iter().enumerate() {
            let here = branch.file_name.is_empty();
            if let Some(plan) = BulkPlan::of(interp).filter(|_| here && !counts.contains_key(&k)) {
                bulk_index[k] = Some(bulk_fields.len());
                bulk_fields.push(BulkField {
                    branch,
                    plan,
                    parts: Vec::new(),
                });
            }
        }
        let (bulk_jobs, mut jobs): (Vec<Job>, Vec<Job>) = jobs
            .into_iter()
            .partition(|j| bulk_index[j.field].is_some());
        for j in &bulk_jobs {
            let f = bulk_index[j.field].expect("bulk field");
            bulk_fields[f].parts.push((j.basket, j.within.clone()));
        }
        let threads = self.pool.current_num_threads().max(1) as u64;
        let mut bulk_arrays: Vec<Option<Array>> = BulkContext {
            file: &self.file,
            tree: &self.meta.name,
            pool: &self.pool,
            chunk_bytes: (self.options.memory_budget / (2 * threads)).clamp(64 << 10, 4 << 20),
            memory_budget: self.options.memory_budget,
            windows: &self.windows,
            huge_pages: self.options.huge_pages,
        }
        .read(&bulk_fields, recycler)?;
        // Fields whose claimed sizes the bulk path does not trust: basket by basket.
        let in_bulk: Vec<bool> = bulk_index
            .iter()
            .map(|b| b.is_some_and(|b| bulk_arrays[b].is_some()))
            .collect();
        jobs.extend(bulk_jobs.into_iter().filter(|j| !in_bulk[j.field]));
        let mut results: Vec<Vec<Option<Array>>> = parts
            .iter()
            .zip(&in_bulk)
            .map(|(&n, &b)| vec![None; if b { 0 } else { n }])
            .collect();
        // Baskets kept in the tree object need no fetching.
        let (embedded, stored): (Vec<Job>, Vec<Job>) = jobs
            .into_iter()
            .partition(|j| j.branch.baskets[j.basket].embedded.is_some());
        for job in embedded {
            let b = &job.branch.baskets[job.basket];
            let e = &job.branch.embedded[b.embedded.expect("embedded")];
            let array = self.decode_job(
                &job,
                &plans[job.field].1,
                BasketData {
                    data: e.data.clone(),
                    offsets: e.offsets.clone(),
                    entries: e.entries as usize,
                },
                counts.get(&job.field),
            )?;
            results[job.field][job.part] = Some(array);
        }
        // Baskets in other files: one read each.
        let (elsewhere, mut stored): (Vec<Job>, Vec<Job>) = stored
            .into_iter()
            .partition(|j| !j.branch.file_name.is_empty());
        for job in elsewhere {
            let file = self
                .other_files
                .get(self.file.name(), &self.meta.name, job.branch)?;
            let b = &job.branch.baskets[job.basket];
            let object = self.basket_name(&job);
            let record = file.read_at(b.seek, b.bytes as u64, &object)?;
            let data = decode_basket(
                &record,
                b.seek,
                file.name(),
                &object,
                b.end_entry - b.first_entry,
            )?;
            let array = self.decode_job(&job, &plans[job.field].1, data, counts.get(&job.field))?;
            results[job.field][job.part] = Some(array);
        }
        // Stored baskets: windows in file order, each fetched with few coalesced reads (a
        // remote file's in one vectored read, the next window fetched while this one is
        // decoded).
        stored.sort_by_key(|j| j.branch.baskets[j.basket].seek);
        let remote = self.file.source().prefers_vectored();
        let basket_bytes = |j: &Job| j.branch.baskets[j.basket].bytes as u64;
        let windows = if remote {
            let largest = windows::largest_window(self.options.memory_budget);
            windows::windows(stored, basket_bytes, largest)
        } else {
            let mut windows: Vec<Vec<Job>> = Vec::new();
            let mut acc = 0u64;
            for job in stored {
                let size = basket_bytes(&job);
                match windows.last_mut() {
                    Some(w) if acc + size <= self.options.memory_budget / 2 => w.push(job),
                    _ => {
                        windows.push(vec![job]);
                        acc = 0;
                    }
                }
                acc += size;
            }
            windows
        };
        let ranges_of = |window: &[Job]| -> Vec<Range<u64>> {
            coalesce(
                window.iter().map(|j| {
                    let b = &j.branch.baskets[j.basket];
                    (b.seek..b.seek + b.bytes as u64, ())
                }),
                u64::MAX,
                |_| false,
            )
            .into_iter()
            .map(|(range, _)| range)
            .collect()
        };
        // Decodes a window's baskets, the bytes of each found by the start of its range.
        let decode_window = |window: &[Job], ranges: &[Range<u64>], bytes: &[&[u8]]| {
            self.pool.install(|| {
                window
                    .par_iter()
                    .map(|job| {
                        let b = &job.branch.baskets[job.basket];
                        let i = ranges.partition_point(|r| r.start <= b.seek) - 1;
                        let from = (b.seek - ranges[i].start) as usize;
                        let record = &bytes[i][from..from + b.bytes as usize];
                        let object = self.basket_name(job);
                        let data = decode_basket(
                            record,
                            b.seek,
                            self.file.name(),
                            &object,
                            b.end_entry - b.first_entry,
                        )?;
                        let counts = counts.get(&job.field);
                        let array = self.decode_job(job, &plans[job.field].1, data, counts)?;
                        Ok((job.field, job.part, array))
                    })
                    .collect::<Result<Vec<(usize, usize, Array)>>>()
            })
        };
        let mut store = |decoded: Vec<(usize, usize, Array)>| {
            for (field, part, array) in decoded {
                results[field][part] = Some(array);
            }
        };
        if remote {
            let ranges: Vec<Vec<Range<u64>>> = windows.iter().map(|w| ranges_of(w)).collect();
            let by_window = ranges.clone();
            let mut k = 0;
            windows::fetch_ahead(
                &self.file,
                windows,
                ranges,
                &self.windows,
                "TTree baskets",
                |window, fetched| {
                    let ranges = &by_window[k];
                    k += 1;
                    let bytes: Vec<&[u8]> = ranges
                        .iter()
                        .map(|r| fetched.get(r.start).unwrap_or_default())
                        .collect();
                    store(decode_window(&window, ranges, &bytes)?);
                    Ok(())
                },
            )?;
        } else {
            for window in windows {
                let ranges = ranges_of(&window);
                let fetched: Vec<Vec<u8>> = self.pool.install(|| {
                    ranges
                        .par_iter()
                        .map(|r| self.file.read_at(r.start, r.end - r.start, "TTree baskets"))
                        .collect::<Result<Vec<_>>>()
                })?;
                let bytes: Vec<&[u8]> = fetched.iter().map(Vec::as_slice).collect();
                store(decode_window(&window, &ranges, &bytes)?);
            }
        }
        let mut out = Vec::with_capacity(branches.len());
        for (k, ((name, parts), (branch, interp))) in branches
            .iter()
            .map(|(n, _)| n.clone())
            .zip(results)
            .zip(&plans)
            .enumerate()
        {
            let parts: Vec<Array> = parts
                .into_iter()
                .map(|p| p.expect("every part decoded"))
                .collect();
            let array = if in_bulk[k] {
                let b = bulk_index[k].expect("bulk field");
                bulk_arrays[b].take().expect("one array per bulk field")
            } else if parts.is_empty() {
                empty_array(interp)
            } else {
                concat(parts).map_err(|m| {
                    Error::format(
                        self.file.name(),
                        format!("TTree '{}' branch '{}'", self.meta.name, branch.name),
                        0,
                        m.0,
                    )
                })?
            };
            let range = held(&range, branch);
            if array.len() as u64 != range.end - range.start {
                return Err(Error::format(
                    self.file.name(),
                    format!("TTree '{}' branch '{}'", self.meta.name, branch.name),
                    0,
                    format!(
                        "{} values decoded for {} entries",
                        array.len(),
                        range.end - range.start
                    ),
                ));
            }
            out.push((name, array));
        }
        Ok(out)
    }

    fn basket_name(&self, job: &Job) -> String {
        format!(
            "basket {} of branch '{}' of TTree '{}'",
            job.basket, job.branch.name, self.meta.name
        )
    }

    /// Decodes a job's entries of its basket's `data`; `counts` rebuild the entry offsets
    /// of a counter-indexed basket without them.
    fn decode_job(
        &self,
        job: &Job,
        interp: &Interpretation,
        mut data: BasketData,
        counts: Option<&Counts>,
    ) -> Result<Array> {
        let basket = &job.branch.baskets[job.basket];
        // Decoding errors end in "not supported" where the data is a layout not read yet.
        let bad = |m: String| match m.ends_with("not supported") {
            true => Error::Unsupported {
                file: self.file.name().to_string(),
                what: format!(
                    "data in {} at byte offset {}: {m}",
                    self.basket_name(job),
                    basket.seek
                ),
            },
            false => Error::format(self.file.name(), self.basket_name(job), basket.seek, m),
        };
        if job.within.end > data.entries {
            return Err(bad(format!(
                "entry {} of a basket of {}",
                job.within.end, data.entries
            )));
        }
        if let Interpretation::CountedMembers { counter, .. } = interp {
            let first = basket.first_entry;
            let entries = first + job.within.start as u64..first + job.within.end as u64;
            let (items, values) = counts
                .ok_or_else(|| format!("needs the values of its counter branch '{counter}'"))
                .and_then(|c| c.items_of(entries))
                .map_err(bad)?;
            return interp
                .decode_counted(
                    &data.data,
                    data.offsets.as_deref(),
                    job.within.clone(),
                    items,
                    values,
                )
                .map_err(bad);
        }
        if let (None, Some(counts), Some(unit)) =
            (&data.offsets, counts, counted::item_bytes(interp))
        {
            let rebuilt = counted::offsets_from_counts(counts, basket, unit, data.data.len())
                .map_err(|m| bad(format!("no entry offsets, and {m}")))?;
            data.offsets = Some(rebuilt);
        }
        interp
            .decode(&data.data, data.offsets.as_deref(), job.within.clone())
            .map_err(bad)
    }
}

/// An array of no entries of an interpretation's layout.
fn empty_array(interp: &Interpretation) -> Array {
    interp
        .decode(&[], Some(&[0]), 0..0)
        .unwrap_or(Array::Int32(Vec::new()))
}

/// The entries of `range` that `branch` holds. A branch filled for fewer entries than its
/// tree (one never filled: none) has only those, as its own entry count in ROOT and
/// uproot says; entries its baskets hold count even where `fEntries` falls short.
fn held(range: &Range<u64>, branch: &Branch) -> Range<u64> {
    let stored = branch.baskets.last().map_or(0, |b| b.end_entry);
    let end = branch.entries.max(stored);
    range.start.min(end)..range.end.min(end)
}

/// The length all `fields` share (`None` inside for no fields), or `None` if they differ.
fn common_len(fields: &[(String, Array)]) -> Option<Option<usize>> {
    let mut lens = fields.iter().map(|(_, a)| a.len());
    let first = lens.next();
    lens.all(|n| Some(n) == first).then_some(first)
}
