//! Recovering TTrees: each tree as its last save left it (ROOT's auto-save, or a writer's
//! last checkpoint), extended by the baskets written after that save. A basket counts if
//! its record is whole and decodes; the tree keeps the entries up to the last boundary
//! that every branch's baskets reach (the end of a cluster), the rest is dropped.

use std::sync::Arc;

use crate::container::read_streamers;
use crate::container::{KeyInfo, RootFile};
use crate::error::Result;
use crate::io::ReadAt;
use crate::streamer::is_tree_class;
use crate::tree_edit::{extended_object, AppendedBasket, LeafRaise, TreeSource};
use crate::ttree::{decode_basket, parse_found_header, Branch};

/// A tree found in the file, with what its baskets after the last save add.
pub(crate) struct FoundTree {
    /// The key of its last save (its directory: `key.seek_pdir`).
    pub key: KeyInfo,
    /// Entries at the last save, and recovered.
    pub saved_entries: u64,
    pub entries: u64,
    /// Baskets found after the save, kept or dropped, with why.
    pub dropped: Vec<String>,
    source: TreeSource,
    appended: Vec<Vec<AppendedBasket>>,
    cluster_ends: Vec<u64>,
    leaf_max: Vec<LeafRaise>,
}

impl FoundTree {
    /// True if baskets after the save are added.
    pub fn extended(&self) -> bool {
        self.entries > self.saved_entries
    }

    /// The tree object with the baskets added, for a key of `keylen` bytes.
    pub fn object(&self, keylen: u32) -> Result<Vec<u8>> {
        extended_object(
            &self.source,
            &self.appended,
            self.entries,
            &self.cluster_ends,
            &self.leaf_max,
            keylen,
        )
    }
}

/// A basket record found after a tree's save.
struct Found {
    seek: u64,
    bytes: u32,
    tot_bytes: u64,
    entries: u64,
    /// Its data part and entry offsets, for counters and C strings (their largest value
    /// or length raises the leaf's).
    data: Vec<u8>,
    offsets: Option<Vec<usize>>,
}

/// The trees of the file: the last save of each (directory, name), extended by the
/// baskets after it. `streamer_info` is the key of the last StreamerInfo record.
pub(crate) fn find(
    source: Arc<dyn ReadAt>,
    keys: &[KeyInfo],
    streamer_info: Option<&KeyInfo>,
) -> Result<Vec<FoundTree>> {
    let mut saves: Vec<&KeyInfo> = Vec::new();
    for key in keys.iter().filter(|k| is_tree_class(&k.class_name)) {
        match saves
            .iter_mut()
            .find(|k| k.name == key.name && k.seek_pdir == key.seek_pdir && k.cycle == key.cycle)
        {
            Some(k) => *k = key,
            None => saves.push(key),
        }
    }
    if saves.is_empty() {
        return Ok(Vec::new());
    }
    let file = RootFile::from_records(source.clone(), streamer_info)?;
    let streamers = read_streamers(&file)?;
    let mut found = Vec::new();
    for key in saves {
        let Ok(tree) = TreeSource::read(&file, &streamers, key, &key.name) else {
            continue;
        };
        found.push(extend(&*source, &file, keys, key, tree)?);
    }
    Ok(found)
}

/// The tree saved at `key`, with the baskets after the save that every branch can take.
fn extend(
    source: &dyn ReadAt,
    file: &RootFile,
    keys: &[KeyInfo],
    key: &KeyInfo,
    tree: TreeSource,
) -> Result<FoundTree> {
    let branches: Vec<&Branch> = tree.meta.all_branches();
    let saved = tree.meta.entries;
    let mut found = Extension {
        entries: saved,
        dropped: Vec::new(),
        appended: vec![Vec::new(); branches.len()],
        cluster_ends: tree.meta.cluster_ranges().iter().map(|r| r.end).collect(),
        leaf_max: Vec::new(),
    };
    // Cluster ends of the saved part; the last range is open.
    found.cluster_ends.pop();
    let unique = {
        let mut names: Vec<&str> = branches.iter().map(|b| b.name.as_str()).collect();
        names.sort_unstable();
        names.windows(2).all(|w| w[0] != w[1])
    };
    let embedded = branches.iter().any(|b| !b.embedded.is_empty());
    // Baskets the save already lists are not after it, wherever they lie: some writers
    // (uproot's) write the tree first and rewrite it in place as baskets follow.
    let listed: std::collections::HashSet<u64> = branches
        .iter()
        .flat_map(|b| b.baskets.iter().map(|info| info.seek))
        .collect();
    let after: Vec<&KeyInfo> = keys
        .iter()
        .filter(|k| k.class_name == "TBasket" && k.title == key.name && k.seek_key > key.seek_key)
        .filter(|k| !listed.contains(&k.seek_key))
        .collect();
    if after.is_empty() {
        return Ok(found.of(key, saved, tree));
    }
    if !unique || embedded {
        found.dropped.push(format!(
            "{} baskets after the last save ({})",
            after.len(),
            if embedded {
                "the save holds baskets of its own"
            } else {
                "branch names repeat"
            }
        ));
        return Ok(found.of(key, saved, tree));
    }
    // Each branch's baskets after the save, in file order (the order of their entries).
    let mut per_branch: Vec<Vec<Found>> = (0..branches.len()).map(|_| Vec::new()).collect();
    let mut broken = 0;
    for k in after {
        let Some(b) = branches.iter().position(|b| b.name == k.name) else {
            continue;
        };
        match basket(source, file.name(), k)? {
            // A basket without entries adds nothing and would repeat a boundary.
            Some(f) if f.entries == 0 => broken += 1,
            Some(f) => per_branch[b].push(f),
            None => broken += 1,
        }
    }
    // The boundaries every branch reaches: the entries after the save up to which all
    // branches have whole baskets, ending together.
    let ends: Vec<Vec<u64>> = per_branch
        .iter()
        .map(|fs| {
            fs.iter()
                .scan(saved, |at, f| {
                    *at += f.entries;
                    Some(*at)
                })
                .collect()
        })
        .collect();
    // Each branch's ends rise strictly (no empty baskets): an end every branch has is
    // counted once per branch.
    let mut reached: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    for e in ends.iter().flatten() {
        *reached.entry(*e).or_default() += 1;
    }
    // A tree without branches (a corrupt one) reaches no entry beyond its save.
    let common: Vec<u64> = ends
        .first()
        .map(|first| {
            first
                .iter()
                .copied()
                .filter(|e| reached.get(e) == Some(&ends.len()))
                .collect()
        })
        .unwrap_or_default();
    // A boundary counts only if the baskets of every stretch up to it come one after the
    // other in the whole records that follow the save: a parallel writer's clusters are
    // written side by side, and a killed one leaves some of its baskets whole and others
    // not, which counts alone would pair with another cluster's (as would a lost basket
    // between two whole ones).
    let run = baskets_in_one_run(keys, key, &listed);
    let mut whole = Vec::with_capacity(common.len());
    let (mut from, mut taken) = (saved, 0);
    for &end in &common {
        let mut stretch: Vec<u64> = per_branch
            .iter()
            .zip(&ends)
            .flat_map(|(fs, es)| {
                fs.iter()
                    .zip(es)
                    .filter(|(_, &e)| e > from && e <= end)
                    .map(|(f, _)| f.seek)
            })
            .collect();
        stretch.sort_unstable();
        let next = run.get(taken..taken + stretch.len());
        if next.is_none_or(|n| n != stretch.as_slice()) {
            break;
        }
        taken += stretch.len();
        whole.push(end);
        from = end;
    }
    let common = whole;
    let entries = common.last().copied().unwrap_or(saved);
    let mut kept = 0;
    let mut left = 0;
    for (b, fs) in per_branch.into_iter().enumerate() {
        let mut at = saved;
        for f in fs {
            if at + f.entries > entries {
                left += 1;
                continue;
            }
            found.appended[b].push(AppendedBasket {
                seek: f.seek,
                bytes: f.bytes,
                tot_bytes: f.tot_bytes,
                first_entry: at,
            });
            at += f.entries;
            kept += 1;
            raise_leaves(&mut found.leaf_max, &branches, b, &f);
        }
    }
    if broken + left > 0 {
        found.dropped.push(format!(
            "{} baskets after the last save ({broken} not whole or empty, {left} beyond the \
             last entry all branches reach in baskets one after the other)",
            broken + left
        ));
    }
    if kept > 0 {
        found.cluster_ends.push(saved);
        found
            .cluster_ends
            .extend(common.iter().copied().filter(|&e| e < entries));
        found.cluster_ends.retain(|&e| e > 0);
        found.cluster_ends.dedup();
        found.entries = entries;
    }
    Ok(found.of(key, saved, tree))
}

/// The positions of the baskets of the tree saved at `save` (but those it lists), in file
/// order, among the records that follow the save one after the other (each where the one
/// before ends), up to the first bytes no whole record covers.
fn baskets_in_one_run(
    keys: &[KeyInfo],
    save: &KeyInfo,
    listed: &std::collections::HashSet<u64>,
) -> Vec<u64> {
    let by_start: std::collections::BTreeMap<u64, &KeyInfo> = keys
        .iter()
        .filter(|k| k.seek_key >= save.seek_key)
        .map(|k| (k.seek_key, k))
        .collect();
    let mut out = Vec::new();
    let mut at = save.seek_key;
    while let Some(k) = by_start.get(&at) {
        if k.class_name == "TBasket" && k.title == save.name && !listed.contains(&at) {
            out.push(at);
        }
        match at.checked_add(k.nbytes as u64) {
            Some(end) if end > at => at = end,
            _ => break,
        }
    }
    out
}

/// What the baskets after a save add to a tree.
struct Extension {
    entries: u64,
    dropped: Vec<String>,
    appended: Vec<Vec<AppendedBasket>>,
    cluster_ends: Vec<u64>,
    leaf_max: Vec<LeafRaise>,
}

impl Extension {
    fn of(self, key: &KeyInfo, saved_entries: u64, source: TreeSource) -> FoundTree {
        FoundTree {
            key: key.clone(),
            saved_entries,
            entries: self.entries,
            dropped: self.dropped,
            source,
            appended: self.appended,
            cluster_ends: self.cluster_ends,
            leaf_max: self.leaf_max,
        }
    }
}

/// The basket record behind `key`, if it is whole and decodes.
fn basket(source: &dyn ReadAt, file: &str, key: &KeyInfo) -> Result<Option<Found>> {
    let mut record = vec![0u8; key.nbytes as usize];
    source.read_exact_at(&mut record, key.seek_key)?;
    let object = format!("basket of branch '{}'", key.name);
    let Ok(header) = parse_found_header(&record, key.seek_key, record.len(), file, &object) else {
        return Ok(None);
    };
    let entries = header.entries as u64;
    match decode_basket(&record, key.seek_key, file, &object, entries) {
        Ok(data) => Ok(Some(Found {
            seek: key.seek_key,
            bytes: key.nbytes,
            tot_bytes: key.objlen as u64 + key.keylen as u64,
            entries,
            data: data.data,
            offsets: data.offsets,
        })),
        Err(_) => Ok(None),
    }
}

/// Raises what branch `b`'s leaf records of its values to cover basket `f`: the maximum
/// of a counter (a leaf others count their items by: big-endian integers), the length and
/// maximum of a C string leaf (`TLeafC`: one more than the longest string).
fn raise_leaves(raises: &mut Vec<LeafRaise>, branches: &[&Branch], b: usize, f: &Found) {
    let [leaf] = &branches[b].leaves[..] else {
        return;
    };
    let mut raise = |member: &'static str, value: f64| match raises
        .iter_mut()
        .find(|r| r.branch == b && r.member == member)
    {
        Some(r) => r.value = r.value.max(value),
        None => raises.push(LeafRaise {
            branch: b,
            leaf: 0,
            member,
            value,
        }),
    };
    if leaf.class == "TLeafC" {
        let Some(offsets) = &f.offsets else { return };
        let longest = offsets
            .windows(2)
            .filter_map(|w| f.data.get(w[0]..w[1]))
            .map(|entry| match entry {
                [255, a, b, c, d, ..] => u32::from_be_bytes([*a, *b, *c, *d]) as usize,
                [n, ..] => *n as usize,
                [] => 0,
            })
            .max()
            .unwrap_or(0);
        raise("fLen", longest as f64 + 1.0);
        raise("fMaximum", longest as f64 + 1.0);
        return;
    }
    let counts = branches
        .iter()
        .flat_map(|x| &x.leaves)
        .any(|l| l.count.as_deref() == Some(leaf.name.as_str()));
    let width = leaf.len_type as usize;
    if !counts || !matches!(width, 1 | 2 | 4 | 8) {
        return;
    }
    let largest = f
        .data
        .chunks_exact(width)
        .map(|c| {
            let mut v: i128 = 0;
            for &byte in c {
                v = (v << 8) | byte as i128;
            }
            if !leaf.is_unsigned && c[0] & 0x80 != 0 {
                v -= 1i128 << (8 * width);
            }
            v as f64
        })
        .fold(f64::MIN, f64::max);
    raise("fMaximum", largest);
}
