//! Fast merging of one tree found in several files: each input's basket records are copied
//! as they are (only their key headers point at their new place), and the first input's
//! tree object is rewritten with the merged basket lists, entry counts, byte totals,
//! clusters and leaf ranges. Branch classes need no writer of their own: the object is
//! rewritten through the trace of its read.

use std::sync::Arc;

use super::records::Record;
use crate::compress::Compression;
use crate::container::{KeyInfo, RootFile};
use crate::error::{Error, Result};
use crate::objects::traced::{read_traced, rewrite, TracedObject};
use crate::streamer::{restream, Object, StreamerSet, Trace, Value};
use crate::ttree::{basket_record, cluster_layout, BasketContent, Branch, TreeMeta};

/// Basket slots a branch object keeps at least (ROOT's `fMaxBaskets` minimum).
const MIN_BASKET_SLOTS: usize = 10;

/// One input's copy of a tree, read for merging.
pub(crate) struct TreeSource {
    /// The input's file name (for messages).
    pub file: String,
    key: KeyInfo,
    payload: Vec<u8>,
    object: Object,
    trace: Trace,
    /// The tree's metadata (branches, baskets, clusters).
    pub meta: TreeMeta,
    /// The branch objects, depth first as [`TreeMeta::all_branches`] lists them.
    branches: Vec<Arc<Object>>,
}

impl TreeSource {
    /// Reads the tree behind `key` of `file` (at `path`) for merging.
    pub fn read(
        file: &RootFile,
        streamers: &StreamerSet,
        key: &KeyInfo,
        path: &str,
    ) -> Result<Self> {
        let what = format!("TTree '{path}'");
        let TracedObject {
            payload,
            object,
            trace,
        } = read_traced(file, streamers, key, &what)?;
        let meta = TreeMeta::from_object(&object, file.size())
            .map_err(|(offset, message)| Error::format(file.name(), &what, offset, message))?;
        let mut branches = Vec::new();
        collect_branches(&object, &mut branches);
        let listed = meta.all_branches();
        if listed.len() != branches.len() {
            return Err(Error::format(
                file.name(),
                &what,
                object.offset,
                "branch objects and branches do not pair up",
            ));
        }
        Ok(TreeSource {
            file: file.name().to_string(),
            key: key.clone(),
            payload,
            object,
            trace,
            meta,
            branches,
        })
    }

    /// The tree's class (`TTree`, `TNtuple`, ...), name and title, for its output key.
    pub fn key(&self) -> &KeyInfo {
        &self.key
    }
}

fn collect_branches(o: &Object, out: &mut Vec<Arc<Object>>) {
    for b in o.objects("fBranches").unwrap_or(&[]).iter().flatten() {
        out.push(b.clone());
        collect_branches(b, out);
    }
}

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

/// A basket record to append to a tree's branch: where it is, its size on disk and before
/// compression (key included, as `fTotBytes` counts), and its first entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AppendedBasket {
    pub seek: u64,
    pub bytes: u32,
    pub tot_bytes: u64,
    pub first_entry: u64,
}

/// A leaf member raised to cover values found in appended baskets: a counter's maximum,
/// a C string leaf's length and maximum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LeafRaise {
    /// The branch (as [`TreeMeta::all_branches`] lists them) and its leaf.
    pub branch: usize,
    pub leaf: usize,
    pub member: &'static str,
    pub value: f64,
}

/// The tree object of `source` with `appended[b]` after branch `b`'s own baskets (branches
/// as [`TreeMeta::all_branches`] lists them), `entries` entries, clusters ending at
/// `cluster_ends` (the last one open), and leaf members raised to at least the values of
/// `leaf_max`; for a key of `new_keylen` bytes. For recovering a tree saved before its
/// writer died.
pub(crate) fn extended_object(
    source: &TreeSource,
    appended: &[Vec<AppendedBasket>],
    entries: u64,
    cluster_ends: &[u64],
    leaf_max: &[LeafRaise],
    new_keylen: u32,
) -> Result<Vec<u8>> {
    let what = format!("TTree '{}'", source.meta.name);
    let fail = |message: String| Error::format(&source.file, &what, source.object.offset, message);
    let tree = &source.object;
    let mut edits = Vec::new();
    let added_zip: i64 = appended.iter().flatten().map(|a| a.bytes as i64).sum();
    let added_tot: i64 = appended.iter().flatten().map(|a| a.tot_bytes as i64).sum();
    edits.extend(scalar(tree, "fEntries", entries as i64).map_err(&fail)?);
    for (name, added) in [
        ("fTotBytes", added_tot),
        ("fZipBytes", added_zip),
        ("fSavedBytes", added_zip),
        ("fFlushedBytes", added_zip),
    ] {
        let value = tree.int(name).unwrap_or(0) + added;
        edits.extend(scalar(tree, name, value).map_err(&fail)?);
    }
    edits.extend(cluster_edits_at(tree, cluster_ends, entries as i64).map_err(&fail)?);
    let listed = source.meta.all_branches();
    for (bi, branch) in source.branches.iter().enumerate() {
        let own = &listed[bi].baskets;
        let extra = &appended[bi];
        let fail = |m: String| {
            fail(format!(
                "branch '{}': {m}",
                branch.str("fName").unwrap_or("")
            ))
        };
        let n = own.len() + extra.len();
        let slots = (n + 1).max(MIN_BASKET_SLOTS);
        let bytes: Vec<i64> = own
            .iter()
            .map(|b| b.bytes as i64)
            .chain(extra.iter().map(|a| a.bytes as i64))
            .collect();
        let mut firsts: Vec<i64> = own
            .iter()
            .map(|b| b.first_entry as i64)
            .chain(extra.iter().map(|a| a.first_entry as i64))
            .collect();
        firsts.push(entries as i64);
        let seeks: Vec<i64> = own
            .iter()
            .map(|b| b.seek as i64)
            .chain(extra.iter().map(|a| a.seek as i64))
            .collect();
        edits.extend(scalar(branch, "fWriteBasket", n as i64).map_err(&fail)?);
        edits.extend(scalar(branch, "fEntryNumber", entries as i64).map_err(&fail)?);
        edits.extend(scalar(branch, "fEntries", entries as i64).map_err(&fail)?);
        let tot = branch.int("fTotBytes").unwrap_or(0)
            + extra.iter().map(|a| a.tot_bytes as i64).sum::<i64>();
        let zip = branch.int("fZipBytes").unwrap_or(0)
            + extra.iter().map(|a| a.bytes as i64).sum::<i64>();
        edits.extend(scalar(branch, "fTotBytes", tot).map_err(&fail)?);
        edits.extend(scalar(branch, "fZipBytes", zip).map_err(&fail)?);
        edits.extend(scalar(branch, "fMaxBaskets", slots as i64).map_err(&fail)?);
        let old_slots = branch.int("fMaxBaskets").unwrap_or(0).max(0) as usize;
        for (name, values, width) in [
            ("fBasketBytes", &bytes, 4),
            ("fBasketEntry", &firsts, 8),
            ("fBasketSeek", &seeks, 8),
        ] {
            edits.extend(array(branch, name, values, slots, old_slots, width).map_err(&fail)?);
        }
        let leaves: Vec<&Arc<Object>> = branch
            .objects("fLeaves")
            .unwrap_or(&[])
            .iter()
            .flatten()
            .collect();
        for raise in leaf_max.iter().filter(|r| r.branch == bi) {
            let Some(leaf) = leaves.get(raise.leaf) else {
                continue;
            };
            let edit = match leaf.get(raise.member) {
                Some(Value::Int(v)) if (*v as f64) < raise.value => {
                    scalar(leaf, raise.member, raise.value as i64)
                }
                Some(Value::UInt(v)) if (*v as f64) < raise.value => {
                    scalar(leaf, raise.member, raise.value as i64)
                }
                Some(Value::Float(v)) if *v < raise.value => {
                    scalar_f(leaf, raise.member, raise.value)
                }
                _ => continue,
            };
            edits.extend(edit.map_err(&fail)?);
        }
    }
    rewrite(
        &source.payload,
        &source.trace,
        edits,
        &source.key,
        new_keylen,
    )
    .map_err(fail)
}

/// The bytes of a number in the form member `name` of `o` was read in.
fn scalar(o: &Object, name: &str, value: i64) -> Result<Option<restream::Edit>, String> {
    let (Some(span), Some(old)) = (o.span(name), o.get(name)) else {
        return Ok(None);
    };
    let bytes = match (old, span.len()) {
        (Value::Float(_), 8) => (value as f64).to_be_bytes().to_vec(),
        (Value::Float(_), 4) => (value as f32).to_be_bytes().to_vec(),
        (Value::Int(_) | Value::UInt(_) | Value::Bool(_), w @ (1 | 2 | 4 | 8)) => {
            value.to_be_bytes()[8 - w..].to_vec()
        }
        _ => return Err(format!("member {name} is not a number of a known size")),
    };
    Ok(Some(restream::Edit { range: span, bytes }))
}

/// The same as [`scalar`] for a floating-point value (leaf ranges of `TLeafF`/`TLeafD`).
fn scalar_f(o: &Object, name: &str, value: f64) -> Result<Option<restream::Edit>, String> {
    match o.get(name) {
        Some(Value::Float(_)) => {
            let span = o.span(name).expect("a span for each member");
            let bytes = match span.len() {
                8 => value.to_be_bytes().to_vec(),
                4 => (value as f32).to_be_bytes().to_vec(),
                _ => return Err(format!("member {name} is not a number of a known size")),
            };
            Ok(Some(restream::Edit { range: span, bytes }))
        }
        _ => scalar(o, name, value as i64),
    }
}

/// A counted array member (`[flag][values]`) holding `values` then zeros, `slots` long.
fn array(
    o: &Object,
    name: &str,
    values: &[i64],
    slots: usize,
    old_slots: usize,
    width: usize,
) -> Result<Option<restream::Edit>, String> {
    let Some(span) = o.span(name) else {
        return Ok(None);
    };
    let width = if old_slots > 0 && span.len() > 1 {
        (span.len() - 1) / old_slots
    } else {
        width
    };
    if !matches!(width, 4 | 8) {
        return Err(format!("array {name} has values of {width} bytes"));
    }
    let mut bytes = Vec::with_capacity(1 + slots * width);
    bytes.push(1);
    for i in 0..slots {
        let v = values.get(i).copied().unwrap_or(0);
        bytes.extend_from_slice(&v.to_be_bytes()[8 - width..]);
    }
    Ok(Some(restream::Edit { range: span, bytes }))
}

/// Empties a branch's `fBaskets` list if it holds anything: a basket kept in memory at a
/// slot the merged baskets fill would hide the one on disk.
fn empty_basket_list(branch: &Object, payload: &[u8]) -> Result<Option<restream::Edit>, String> {
    let held = branch.objects("fBaskets").unwrap_or(&[]);
    if held.is_empty() {
        return Ok(None);
    }
    let span = branch.span("fBaskets").ok_or("no fBaskets span")?;
    // Byte count, version, TObject (version, id, bits, a process id if referenced), name,
    // then the object count: keep the head, replace the count and the items.
    let b = &payload[span.clone()];
    let mut at = 4 + 2;
    let bits = b.get(at + 6..at + 10).ok_or("short fBaskets")?;
    let referenced = u32::from_be_bytes(bits.try_into().expect("four bytes")) & 0x10 != 0;
    at += 10 + if referenced { 2 } else { 0 };
    let name_len = *b.get(at).ok_or("short fBaskets")? as usize;
    at += 1 + if name_len == 255 {
        4 + u32::from_be_bytes(
            b.get(at + 1..at + 5)
                .ok_or("short fBaskets")?
                .try_into()
                .expect("four bytes"),
        ) as usize
    } else {
        name_len
    };
    let lower = b.get(at + 4..at + 8).ok_or("short fBaskets")?;
    let mut bytes = vec![0, 0, 0, 0];
    bytes.extend_from_slice(lower);
    Ok(Some(restream::Edit {
        range: span.start + at..span.end,
        bytes,
    }))
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

/// The cluster members of `tree` for clusters ending at `ends` (the last one, up to
/// `entries`, open).
fn cluster_edits_at(
    tree: &Object,
    ends: &[u64],
    entries: i64,
) -> Result<Vec<restream::Edit>, String> {
    let Some(layout) = cluster_layout(ends, entries as u64) else {
        return Ok(Vec::new());
    };
    if tree.span("fNClusterRange").is_none() {
        return Ok(Vec::new());
    }
    let n = layout.ranges.len();
    let mut edits = Vec::new();
    edits.extend(scalar(tree, "fNClusterRange", n as i64)?);
    edits.extend(scalar(tree, "fAutoFlush", layout.auto_flush)?);
    let old = tree.int("fNClusterRange").unwrap_or(0).max(0) as usize;
    let ends: Vec<i64> = layout.ranges.iter().map(|r| r.0).collect();
    let sizes: Vec<i64> = layout.ranges.iter().map(|r| r.1).collect();
    for (name, values) in [("fClusterRangeEnd", ends), ("fClusterSize", sizes)] {
        let edit = if n == 0 {
            tree.span(name).map(|range| restream::Edit {
                range,
                bytes: vec![0],
            })
        } else {
            array(tree, name, &values, n, old, 8)?
        };
        edits.extend(edit);
    }
    Ok(edits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::read_streamers;
    use crate::streamer::{Cursor, ObjectReader};

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
