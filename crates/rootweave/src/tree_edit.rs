//! A tree object rewritten through the trace of its read, with some of its members
//! replaced: entry counts, byte totals, basket lists, clusters and leaf ranges. Branch
//! classes need no writer of their own. The merge rewrites the first input's tree with the
//! merged baskets; recovery extends a tree saved before its writer died with the baskets
//! found after the save.

use std::sync::Arc;

use crate::container::{KeyInfo, RootFile};
use crate::error::{Error, Result};
use crate::objects::traced::{read_traced, rewrite, TracedObject};
use crate::streamer::{restream, Object, StreamerSet, Trace, Value};
use crate::ttree::{cluster_layout, TreeMeta};

/// Basket slots a branch object keeps at least (ROOT's `fMaxBaskets` minimum).
pub(crate) const MIN_BASKET_SLOTS: usize = 10;

/// One input's copy of a tree, read for merging.
pub(crate) struct TreeSource {
    /// The input's file name (for messages).
    pub file: String,
    pub(crate) key: KeyInfo,
    pub(crate) payload: Vec<u8>,
    pub(crate) object: Object,
    pub(crate) trace: Trace,
    /// The tree's metadata (branches, baskets, clusters).
    pub meta: TreeMeta,
    /// The branch objects, depth first as [`TreeMeta::all_branches`] lists them.
    pub(crate) branches: Vec<Arc<Object>>,
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
pub(crate) fn scalar(o: &Object, name: &str, value: i64) -> Result<Option<restream::Edit>, String> {
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
pub(crate) fn scalar_f(
    o: &Object,
    name: &str,
    value: f64,
) -> Result<Option<restream::Edit>, String> {
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
pub(crate) fn array(
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
pub(crate) fn empty_basket_list(
    branch: &Object,
    payload: &[u8],
) -> Result<Option<restream::Edit>, String> {
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

/// The cluster members of `tree` for clusters ending at `ends` (the last one, up to
/// `entries`, open).
pub(crate) fn cluster_edits_at(
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
