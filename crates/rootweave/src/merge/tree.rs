//! Fast merging of one tree found in several files: each input's basket records are copied
//! as they are (only their key headers point at their new place), and the first input's
//! tree object is rewritten with the merged basket lists, entry counts, byte totals,
//! clusters and leaf ranges. Branch classes need no writer of their own: the object is
//! rewritten through the trace of its read.

use std::sync::Arc;

use super::records::Record;
use crate::compress::Compression;
use crate::error::{Error, Result};
use crate::objects::traced::rewrite;
use crate::streamer::{restream, Object, Value};
use crate::tree_edit::{
    array, cluster_edits_at, empty_basket_list, scalar, scalar_f, TreeSource, MIN_BASKET_SLOTS,
};
use crate::ttree::{basket_record, BasketContent, Branch};

/// What makes two branches the same for merging: class, leaves (class and title) and,
/// for branches of objects, the class they hold.
fn signature(b: &Branch) -> String {
    let leaves: Vec<String> = b
        .leaves
        .iter()
        .map(|l| format!("{} {}", l.class, l.title))
        .collect();
    let class = b.element.as_ref().map_or("", |e| e.class_name.as_str());
    format!(
        "{} {class} {}[{}]",
        b.class,
        b.object_class,
        leaves.join(", ")
    )
}

/// An error unless `other` has the branches of `first` (names and types, in order).
pub(super) fn check_same_branches(
    path: &str,
    first: &TreeSource,
    other: &TreeSource,
) -> Result<()> {
    let (a, b) = (first.meta.all_branches(), other.meta.all_branches());
    let differ = |message: String| {
        Error::InvalidArgument(format!(
            "tree '{path}' differs between {} and {}: {message}",
            first.file, other.file
        ))
    };
    for (i, x) in a.iter().enumerate() {
        let Some(y) = b.get(i) else {
            return Err(differ(format!(
                "branch '{}' is missing from the second",
                x.name
            )));
        };
        if x.name != y.name {
            return Err(differ(format!(
                "branch {i} is '{}' in the first and '{}' in the second",
                x.name, y.name
            )));
        }
        if signature(x) != signature(y) {
            return Err(differ(format!(
                "branch '{}' is {} in the first and {} in the second",
                x.name,
                signature(x),
                signature(y)
            )));
        }
    }
    if let Some(y) = b.get(a.len()) {
        return Err(differ(format!(
            "branch '{}' is missing from the first",
            y.name
        )));
    }
    Ok(())
}

/// A basket record made anew, with the branch and basket slot it fills.
pub(super) type MadeRecord = (Vec<u8>, (usize, usize));

/// A merged branch's baskets: where each record goes and which entries it starts at.
#[derive(Debug, Default, Clone)]
struct MergedBaskets {
    bytes: Vec<i64>,
    firsts: Vec<i64>,
    seeks: Vec<i64>,
}

/// Where the merged tree's baskets come from and go: per input, the records copied as
/// they are (placed one after the other), the records compressed again (placed as they are
/// written), and records made for baskets kept in its tree object; and per branch, the
/// merged basket arrays they fill.
pub(super) struct TreePlan {
    /// Per input: its records copied as they are, in file order (`to` set once placed).
    pub records: Vec<Vec<Record>>,
    /// Per input, per copied record: the branch and basket slot it fills.
    slots: Vec<Vec<(usize, usize)>>,
    /// Per input: its records compressed again (into their branch's target setting), in
    /// file order, with the branch and slot each fills.
    pub recompress: Vec<Vec<(Record, (usize, usize))>>,
    /// Per input: records made for baskets kept in its tree object (a file that was not
    /// closed), placed after its copied ones, with their branch and slot.
    pub made: Vec<Vec<MadeRecord>>,
    /// Where each input's made records start, once placed.
    pub made_at: Vec<u64>,
    /// Bytes of the baskets made, before compression.
    pub made_bytes: u64,
    /// Per branch: the setting its baskets end up with.
    pub targets: Vec<Compression>,
    /// Per branch: how much the records compressed again grew (or shrank).
    zip_change: Vec<i64>,
    merged: Vec<MergedBaskets>,
    /// Entries of the merged tree.
    pub entries: u64,
}

/// A branch's compression setting, `-1` (the file's) resolved with `file_setting`.
fn branch_setting(o: &Object, file_setting: i32) -> Option<Compression> {
    let c = o.int("fCompress").unwrap_or(-1) as i32;
    Compression::from_root_setting(if c < 0 { file_setting } else { c }).ok()
}

impl TreePlan {
    /// The baskets of every input, in the order the inputs are given. A branch's baskets
    /// end up with `to` if given, else with the first input's setting of the branch:
    /// baskets of another setting are compressed again. Baskets kept in a tree object
    /// are compressed into records of their own, dated `datime`. `file_settings` are the
    /// inputs' file compression settings (for branches that take the file's).
    pub fn new(
        sources: &[TreeSource],
        file_settings: &[i32],
        to: Option<Compression>,
        datime: u32,
    ) -> Result<Self> {
        let nbranches = sources[0].branches.len();
        let fallback = Compression::from_root_setting(file_settings[0])
            .unwrap_or(Compression::ROOT_FILE_DEFAULT);
        let targets: Vec<Compression> = sources[0]
            .branches
            .iter()
            .map(|o| {
                to.or_else(|| branch_setting(o, file_settings[0]))
                    .unwrap_or(fallback)
            })
            .collect();
        let mut merged = vec![MergedBaskets::default(); nbranches];
        let mut records = Vec::with_capacity(sources.len());
        let mut slots = Vec::with_capacity(sources.len());
        let mut recompress = Vec::with_capacity(sources.len());
        let mut made = Vec::with_capacity(sources.len());
        let mut made_bytes = 0;
        let mut offset = 0u64;
        for (s, &file_setting) in sources.iter().zip(file_settings) {
            let mut own: Vec<(Record, (usize, usize))> = Vec::new();
            let mut again: Vec<(Record, (usize, usize))> = Vec::new();
            let mut own_made = Vec::new();
            for (bi, b) in s.meta.all_branches().into_iter().enumerate() {
                let stored_elsewhere = b.baskets.iter().any(|k| k.embedded.is_none());
                if !b.file_name.is_empty() && stored_elsewhere {
                    return Err(Error::Unsupported {
                        file: s.file.clone(),
                        what: format!(
                            "TTree '{}' branch '{}' keeps its baskets in '{}': merging trees whose baskets are in other files",
                            s.meta.name, b.name, b.file_name
                        ),
                    });
                }
                if !b.baskets.is_empty() && b.entries != s.meta.entries {
                    return Err(Error::format(
                        &s.file,
                        format!("TTree '{}'", s.meta.name),
                        s.object.offset,
                        format!(
                            "branch '{}' has {} entries, the tree {}",
                            b.name, b.entries, s.meta.entries
                        ),
                    ));
                }
                let same = branch_setting(&s.branches[bi], file_setting)
                    .is_some_and(|c| c.root_setting() == targets[bi].root_setting());
                let m = &mut merged[bi];
                for basket in &b.baskets {
                    let slot = m.bytes.len();
                    m.firsts.push((basket.first_entry + offset) as i64);
                    m.seeks.push(0);
                    if let Some(e) = basket.embedded {
                        let record = kept_basket(s, bi, b, e, targets[bi], datime);
                        made_bytes += b.embedded[e].data.len() as u64;
                        m.bytes.push(record.len() as i64);
                        own_made.push((record, (bi, slot)));
                        continue;
                    }
                    m.bytes.push(basket.bytes as i64);
                    let record = Record {
                        from: basket.seek,
                        len: basket.bytes,
                        to: 0,
                    };
                    match same {
                        true => own.push((record, (bi, slot))),
                        false => again.push((record, (bi, slot))),
                    }
                }
            }
            own.sort_by_key(|(r, _)| r.from);
            again.sort_by_key(|(r, _)| r.from);
            let (r, sl): (Vec<_>, Vec<_>) = own.into_iter().unzip();
            records.push(r);
            slots.push(sl);
            recompress.push(again);
            made.push(own_made);
            offset += s.meta.entries;
        }
        Ok(TreePlan {
            records,
            slots,
            recompress,
            made_at: vec![0; made.len()],
            made,
            made_bytes,
            targets,
            zip_change: vec![0; nbranches],
            merged,
            entries: offset,
        })
    }

    /// Records that record `j` of input `i`'s records to compress again was written at
    /// `seek`, `len` bytes long.
    pub fn recompressed(&mut self, i: usize, j: usize, seek: u64, len: u32) {
        let (old, (b, slot)) = self.recompress[i][j];
        self.merged[b].seeks[slot] = seek as i64;
        self.merged[b].bytes[slot] = len as i64;
        self.zip_change[b] += len as i64 - old.len as i64;
    }

    /// Bytes of input `i`'s records, copied and made.
    pub fn input_bytes(&self, i: usize) -> u64 {
        let copied: u64 = self.records[i].iter().map(|r| r.len as u64).sum();
        copied
            + self.made[i]
                .iter()
                .map(|(r, _)| r.len() as u64)
                .sum::<u64>()
    }

    /// Places input `i`'s records one after the other from `start`, the made ones last.
    pub fn place(&mut self, i: usize, start: u64) {
        let mut at = start;
        for (r, &(b, slot)) in self.records[i].iter_mut().zip(&self.slots[i]) {
            r.to = at;
            self.merged[b].seeks[slot] = at as i64;
            at += r.len as u64;
        }
        self.made_at[i] = at;
        for (r, (b, slot)) in &self.made[i] {
            self.merged[*b].seeks[*slot] = at as i64;
            at += r.len() as u64;
        }
    }
}

/// The record of basket `e` kept in the tree object of `s`, branch `b` (number `bi`),
/// compressed with `compression`.
fn kept_basket(
    s: &TreeSource,
    bi: usize,
    b: &Branch,
    e: usize,
    compression: Compression,
    datime: u32,
) -> Vec<u8> {
    let kept = &b.embedded[e];
    let o = &s.branches[bi];
    let entries = kept.entries as usize;
    let offsets: Option<Vec<u32>> = kept
        .offsets
        .as_ref()
        .map(|v| v.iter().take(entries).map(|&x| x as u32).collect());
    let entry_bytes = match &offsets {
        Some(_) => b.entry_offset_len.max(0) as usize,
        None => kept.data.len() / entries.max(1),
    };
    let content = BasketContent {
        branch: &b.name,
        tree: &s.meta.name,
        data: &kept.data,
        entries,
        entry_bytes,
        offsets: offsets.as_deref(),
        buffer_size: o.int("fBasketSize").unwrap_or(32000).max(0) as usize,
    };
    basket_record(&content, datime, compression).0
}

/// The first input's tree object with the merged baskets, counts, totals, clusters and
/// leaf ranges, for a key whose header is `new_keylen` bytes long.
pub(super) fn merged_object(
    sources: &[TreeSource],
    plan: &TreePlan,
    new_keylen: u32,
) -> Result<Vec<u8>> {
    let first = &sources[0];
    let what = format!("TTree '{}'", first.meta.name);
    let fail = |message: String| Error::format(&first.file, &what, first.object.offset, message);
    let mut edits = Vec::new();
    let tree = &first.object;
    let sum = |name: &str| -> i64 {
        sources
            .iter()
            .map(|s| s.object.int(name).unwrap_or(0))
            .sum()
    };
    let entries = plan.entries as i64;
    edits.extend(scalar(tree, "fEntries", entries).map_err(&fail)?);
    let zip_change: i64 = plan.zip_change.iter().sum();
    for name in ["fTotBytes", "fZipBytes", "fSavedBytes", "fFlushedBytes"] {
        let change = if name == "fTotBytes" { 0 } else { zip_change };
        edits.extend(scalar(tree, name, sum(name) + change).map_err(&fail)?);
    }
    edits.extend(cluster_edits(sources, entries).map_err(&fail)?);

    let listed: Vec<Vec<&Branch>> = sources.iter().map(|s| s.meta.all_branches()).collect();
    for (bi, branch) in first.branches.iter().enumerate() {
        let m = &plan.merged[bi];
        let n = m.bytes.len();
        let slots = (n + 1).max(MIN_BASKET_SLOTS);
        let branch_sum = |name: &str| -> i64 {
            sources
                .iter()
                .map(|s| s.branches[bi].int(name).unwrap_or(0))
                .sum()
        };
        let branch_entries: i64 = listed.iter().map(|l| l[bi].entries as i64).sum();
        let fail = |m: String| {
            fail(format!(
                "branch '{}': {m}",
                branch.str("fName").unwrap_or("")
            ))
        };
        edits.extend(scalar(branch, "fWriteBasket", n as i64).map_err(&fail)?);
        edits.extend(scalar(branch, "fEntryNumber", branch_entries).map_err(&fail)?);
        edits.extend(scalar(branch, "fEntries", branch_entries).map_err(&fail)?);
        edits.extend(scalar(branch, "fTotBytes", branch_sum("fTotBytes")).map_err(&fail)?);
        let zip = branch_sum("fZipBytes") + plan.zip_change[bi];
        edits.extend(scalar(branch, "fZipBytes", zip).map_err(&fail)?);
        let setting = plan.targets[bi].root_setting() as i64;
        if branch
            .int("fCompress")
            .is_some_and(|c| c >= 0 && c != setting)
        {
            edits.extend(scalar(branch, "fCompress", setting).map_err(&fail)?);
        }
        edits.extend(scalar(branch, "fMaxBaskets", slots as i64).map_err(&fail)?);
        let mut firsts = m.firsts.clone();
        firsts.push(branch_entries);
        let old_slots = branch.int("fMaxBaskets").unwrap_or(0).max(0) as usize;
        for (name, values, width) in [
            ("fBasketBytes", &m.bytes, 4),
            ("fBasketEntry", &firsts, 8),
            ("fBasketSeek", &m.seeks, 8),
        ] {
            edits.extend(array(branch, name, values, slots, old_slots, width).map_err(&fail)?);
        }
        edits.extend(empty_basket_list(branch, &first.payload).map_err(&fail)?);
        edits.extend(leaf_ranges(sources, bi).map_err(&fail)?);
    }
    rewrite(&first.payload, &first.trace, edits, &first.key, new_keylen).map_err(fail)
}

/// Leaf ranges (`fMaximum`, `fMinimum`) over all inputs: readers size their buffers by
/// a counter leaf's maximum.
fn leaf_ranges(sources: &[TreeSource], bi: usize) -> Result<Vec<restream::Edit>, String> {
    let leaves = |s: &TreeSource| -> Vec<Arc<Object>> {
        s.branches[bi]
            .objects("fLeaves")
            .unwrap_or(&[])
            .iter()
            .flatten()
            .cloned()
            .collect()
    };
    let first = leaves(&sources[0]);
    let all: Vec<Vec<Arc<Object>>> = sources.iter().map(leaves).collect();
    let mut edits = Vec::new();
    for (li, leaf) in first.iter().enumerate() {
        let values = |name: &str| -> Vec<f64> {
            all.iter()
                .filter_map(|ls| ls.get(li))
                .filter_map(|l| match l.get(name)? {
                    Value::Int(v) => Some(*v as f64),
                    Value::UInt(v) => Some(*v as f64),
                    Value::Float(v) => Some(*v),
                    Value::Bool(v) => Some(*v as i64 as f64),
                    _ => None,
                })
                .collect()
        };
        let max = values("fMaximum").into_iter().reduce(f64::max);
        let min = values("fMinimum").into_iter().reduce(f64::min);
        if let Some(max) = max {
            edits.extend(scalar_f(leaf, "fMaximum", max)?);
        }
        if let Some(min) = min {
            edits.extend(scalar_f(leaf, "fMinimum", min)?);
        }
    }
    Ok(edits)
}

/// The merged tree's clusters: each input's clusters one after the other.
fn cluster_edits(sources: &[TreeSource], entries: i64) -> Result<Vec<restream::Edit>, String> {
    let mut ends = Vec::new();
    let mut offset = 0u64;
    for s in sources {
        for r in s.meta.cluster_ranges() {
            ends.push(offset + r.end);
        }
        offset += s.meta.entries;
    }
    // The last cluster is open (ROOT's last run continues with `fAutoFlush`).
    ends.pop();
    cluster_edits_at(&sources[0].object, &ends, entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::{read_streamers, RootFile};
    use crate::streamer::{Cursor, ObjectReader};
    use crate::ttree::TreeMeta;

    fn source(name: &str, tree: &str) -> TreeSource {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data")
            .join(name);
        let file = RootFile::open(path).unwrap();
        let streamers = read_streamers(&file).unwrap();
        let key = file.get_key(tree).unwrap();
        TreeSource::read(&file, &streamers, &key, tree).unwrap()
    }

    #[test]
    fn a_tree_object_rewritten_without_edits_is_unchanged() {
        for (name, tree) in [
            ("uproot-HZZ.root", "events"),
            ("nanoAOD_2015_CMS_Open_Data_ttbar.root", "Events"),
        ] {
            let s = source(name, tree);
            let keylen = s.key.keylen as u32;
            let same = restream::rewrite(&s.payload, &s.trace, vec![], keylen, keylen).unwrap();
            assert!(same == s.payload, "{name}");
            assert!(s.trace.opaque.is_empty(), "{name}: {:?}", s.trace.opaque);
        }
    }

    #[test]
    fn one_input_merged_keeps_its_baskets_and_entries() {
        let s = source("nanoAOD_2015_CMS_Open_Data_ttbar.root", "Events");
        let setting = [101];
        let mut plan = TreePlan::new(std::slice::from_ref(&s), &setting, None, 0).unwrap();
        plan.place(0, 1000);
        let keylen = s.key.keylen as u32 + 8;
        let bytes = merged_object(std::slice::from_ref(&s), &plan, keylen).unwrap();
        let file = "merged";
        let mut c = Cursor::new(&bytes, 0, file, "tree", keylen);
        let streamers = {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/data/nanoAOD_2015_CMS_Open_Data_ttbar.root");
            read_streamers(&RootFile::open(path).unwrap()).unwrap()
        };
        let object = ObjectReader {
            streamers: &streamers,
        }
        .read(&mut c, "TTree")
        .unwrap();
        let meta = TreeMeta::from_object(&object, u64::MAX).unwrap();
        assert_eq!(meta.entries, s.meta.entries);
        let (a, b) = (meta.all_branches(), s.meta.all_branches());
        assert_eq!(a.len(), b.len());
        let mut at = 1000;
        let mut moved: Vec<(u64, u64)> = Vec::new();
        for r in &plan.records[0] {
            moved.push((r.from, at));
            at += r.len as u64;
        }
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(
                (&x.name, x.entries, x.zip_bytes),
                (&y.name, y.entries, y.zip_bytes)
            );
            assert_eq!(x.baskets.len(), y.baskets.len());
            for (p, q) in x.baskets.iter().zip(&y.baskets) {
                assert_eq!(p.first_entry, q.first_entry);
                assert_eq!(p.embedded, None, "{}", x.name);
                if q.embedded.is_some() {
                    // Kept in the input's tree object: a record of its own after the copies.
                    assert!(p.seek >= plan.made_at[0], "{}", x.name);
                    continue;
                }
                let to = moved.iter().find(|m| m.0 == q.seek).unwrap().1;
                assert_eq!((p.seek, p.bytes), (to, q.bytes));
            }
        }
    }
}
