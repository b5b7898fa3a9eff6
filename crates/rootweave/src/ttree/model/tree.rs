//! The TTree metadata model: the tree, its branches (nested), their leaves and the
//! baskets each branch's entries are stored in, built from the generic objects read by
//! the file's class layouts.

use std::sync::Arc;

use super::baskets::basket_list;
use crate::streamer::{Object, Value};

/// Where one basket of a branch is and which entries it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BasketInfo {
    /// Offset of the basket's key in the file (0 for a basket stored in the tree object).
    pub seek: u64,
    /// Bytes of the record on disk (key and compressed payload).
    pub bytes: u32,
    /// First entry.
    pub first_entry: u64,
    /// One past the last entry.
    pub end_entry: u64,
    /// For a basket stored inside the tree object: index into [`Branch::embedded`].
    pub embedded: Option<usize>,
}

/// A basket stored inside the tree object (`fBaskets`, files that were not closed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedBasket {
    /// The data part.
    pub data: Vec<u8>,
    /// Entry start offsets (relative to the data), one more than the entries, if the
    /// entries vary in size.
    pub offsets: Option<Vec<usize>>,
    /// Entries held.
    pub entries: u64,
}

/// A leaf: the type of (part of) a branch's entries.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf {
    /// Leaf class (`TLeafI`, `TLeafF`, `TLeafElement`, ...).
    pub class: String,
    /// Name.
    pub name: String,
    /// Title (`x`, `arr[3]`, `Muon_pt[nMuon]`).
    pub title: String,
    /// Number of fixed-size values per entry (product of fixed dimensions).
    pub len: i64,
    /// Bytes of one value.
    pub len_type: i64,
    /// True for unsigned integers.
    pub is_unsigned: bool,
    /// Name of the leaf that counts this leaf's items per entry.
    pub count: Option<String>,
    /// `TLeafElement::fType` (streamer type), for leaves of `TBranchElement`s.
    pub element_type: Option<i64>,
}

/// Extra members of a `TBranchElement`.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementInfo {
    /// Class of the object (or container) the branch holds or is a member of.
    pub class_name: String,
    /// Class of the parent branch's object.
    pub parent_name: String,
    /// Class of the elements of a `TClonesArray` or STL collection.
    pub clones_name: String,
    /// Class version.
    pub class_version: i64,
    /// Index of the member in the class's layout (-1: the whole object).
    pub id: i64,
    /// Branch type: 0 member or whole object, 1 base class, 3/31 TClonesArray top/member,
    /// 4/41 STL collection top/member, -1 ... (see `TBranchElement`).
    pub ty: i64,
    /// Streamer type code of the member.
    pub streamer_type: i64,
}

/// A branch.
#[derive(Debug, Clone, PartialEq)]
pub struct Branch {
    /// Full name (as ROOT finds it).
    pub name: String,
    /// Title (the leaf list for plain branches).
    pub title: String,
    /// Class (`TBranch`, `TBranchElement`, `TBranchObject`, ...).
    pub class: String,
    /// Leaves.
    pub leaves: Vec<Leaf>,
    /// Sub-branches.
    pub branches: Vec<Branch>,
    /// Entries.
    pub entries: u64,
    /// Uncompressed bytes (as ROOT counts them: keys included).
    pub tot_bytes: u64,
    /// Bytes on disk.
    pub zip_bytes: u64,
    /// Non-zero if baskets carry an entry-offset table.
    pub entry_offset_len: i64,
    /// Baskets, in entry order.
    pub baskets: Vec<BasketInfo>,
    /// Baskets stored in the tree object.
    pub embedded: Vec<EmbeddedBasket>,
    /// `TBranchElement` members.
    pub element: Option<ElementInfo>,
    /// The class of the objects of a `TBranchObject` (an unsplit `TObject`-derived
    /// object, streamed whole by its class), else empty.
    pub object_class: String,
    /// Whether each object of a `TBranchObject` is preceded by its class name
    /// (`TLeafObject::fVirtual`).
    pub object_virtual: bool,
    /// The file that holds the branch's baskets when it is not the tree's own
    /// (`fFileName`, relative to the tree's file, as ALICE keeps its ESD friends); empty
    /// for the tree's file.
    pub file_name: String,
}

/// Cluster layout of a tree.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClusterLayout {
    /// Last entry (inclusive) of each cluster range.
    pub range_end: Vec<i64>,
    /// Cluster size in each range.
    pub size: Vec<i64>,
    /// Entries per cluster after the ranges (`fAutoFlush`; negative: a byte size).
    pub auto_flush: i64,
}

/// A tree's metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeMeta {
    /// Name.
    pub name: String,
    /// Title.
    pub title: String,
    /// Class version of the TTree.
    pub version: u16,
    /// Entries.
    pub entries: u64,
    /// Top-level branches.
    pub branches: Vec<Branch>,
    /// Cluster layout.
    pub clusters: ClusterLayout,
}

/// Why metadata could not be built (the caller adds file and offset).
pub type MetaError = (u64, String);

fn need_int(o: &Object, name: &str) -> Result<i64, MetaError> {
    o.int(name).ok_or_else(|| (o.offset, o.why_missing(name)))
}

fn num(o: &Object, name: &str) -> Option<i64> {
    o.int(name).or(match o.get(name)? {
        Value::Float(f) => Some(*f as i64),
        _ => None,
    })
}

fn string(o: &Object, name: &str) -> String {
    o.str(name).unwrap_or_default().to_string()
}

impl TreeMeta {
    /// Builds the metadata from a TTree object; `file_size` bounds basket positions.
    pub fn from_object(tree: &Object, file_size: u64) -> Result<Self, MetaError> {
        let entries =
            num(tree, "fEntries").ok_or_else(|| (tree.offset, tree.why_missing("fEntries")))?;
        if entries < 0 {
            return Err((tree.offset, format!("{entries} entries")));
        }
        let branches = tree
            .objects("fBranches")
            .ok_or_else(|| (tree.offset, tree.why_missing("fBranches")))?;
        let branches = branches
            .iter()
            .flatten()
            .map(|b| Branch::from_object(b, file_size, 0))
            .collect::<Result<Vec<_>, _>>()?;
        let ints = |name: &str| tree.ints(name).map(|v| v.to_vec()).unwrap_or_default();
        Ok(TreeMeta {
            name: string(tree, "fName"),
            title: string(tree, "fTitle"),
            version: tree.version,
            entries: entries as u64,
            branches,
            clusters: ClusterLayout {
                range_end: ints("fClusterRangeEnd"),
                size: ints("fClusterSize"),
                auto_flush: num(tree, "fAutoFlush").unwrap_or(0),
            },
        })
    }

    /// Every branch, depth first (parents before their sub-branches).
    pub fn all_branches(&self) -> Vec<&Branch> {
        fn walk<'a>(b: &'a Branch, out: &mut Vec<&'a Branch>) {
            out.push(b);
            for s in &b.branches {
                walk(s, out);
            }
        }
        let mut out = Vec::new();
        for b in &self.branches {
            walk(b, &mut out);
        }
        out
    }

    /// The path from the top (`parent/child`) of `target`, one of this tree's branches;
    /// `None` for a branch of another tree.
    pub fn path_of(&self, target: &Branch) -> Option<String> {
        fn walk(b: &Branch, target: &Branch, path: &mut Vec<String>) -> bool {
            path.push(b.name.clone());
            if std::ptr::eq(b, target) || b.branches.iter().any(|s| walk(s, target, path)) {
                return true;
            }
            path.pop();
            false
        }
        let mut path = Vec::new();
        self.branches
            .iter()
            .any(|b| walk(b, target, &mut path))
            .then(|| path.join("/"))
    }

    /// The branch named `name`: a path from the top (`parent/child`, as uproot names
    /// branches; where siblings share a name, the first, as ROOT does), else a branch's
    /// own name or a path starting at any branch, if exactly one branch answers to it.
    /// `None` if none or more than one does: two branches of one name under different
    /// parents are told apart by their paths, never by picking one. Last, a name
    /// RDataFrame gives a split object's member ([`TreeMeta::dotted_names`]).
    pub fn find(&self, name: &str) -> Option<&Branch> {
        fn descend<'a>(b: &'a Branch, rest: &[&str]) -> Option<&'a Branch> {
            match rest.split_first() {
                None => Some(b),
                // Siblings of one name: the first, as ROOT's `TTree::GetBranch` does.
                Some((part, rest)) => descend(b.branches.iter().find(|c| c.name == *part)?, rest),
            }
        }
        let parts: Vec<&str> = name.split('/').collect();
        // A path from the top (as uproot names branches) first.
        if let Some(b) = self.branches.iter().find(|b| b.name == parts[0]) {
            if let Some(found) = descend(b, &parts[1..]) {
                return Some(found);
            }
        }
        let all = self.all_branches();
        // A name with a slash may be a branch's own name (ROOT allows it) or a path.
        let whole: Vec<&Branch> = all.iter().copied().filter(|b| b.name == name).collect();
        if !whole.is_empty() {
            return (whole.len() == 1).then(|| whole[0]);
        }
        let mut found = None;
        for start in all.iter().filter(|b| b.name == parts[0]) {
            if let Some(b) = descend(start, &parts[1..]) {
                if found.is_some() {
                    return None;
                }
                found = Some(b);
            }
        }
        // Last, RDataFrame's name of a split object's member (`event.fX` for `fX`), or of
        // a branch of one leaf as `branch.leaf`.
        found
            .or_else(|| {
                let dotted = self.dotted_names();
                let mut named = dotted.iter().filter(|(n, _)| n == name);
                let (_, branch) = named.next()?;
                named.next().is_none().then_some(*branch)
            })
            .or_else(|| {
                let (branch, leaf) = name.rsplit_once('.')?;
                let b = self.find(branch)?;
                Self::single_leaf(b).is_some_and(|l| l == leaf).then_some(b)
            })
    }

    /// The leaf of `b`, if it is a plain branch (`TBranch`) of one leaf: ROOT reads it
    /// under the name `branch.leaf` too (`evt.num` for a branch `evt` of leaf `num/I`),
    /// as it does a leaf of a leaf list.
    fn single_leaf(b: &Branch) -> Option<&str> {
        match b.leaves.as_slice() {
            [leaf] if b.class == "TBranch" => Some(&leaf.name),
            _ => None,
        }
    }

    /// The names `branch.leaf` of plain branches of one leaf whose names no other branch
    /// has (see [`TreeMeta::find`]): RDataFrame reads them, without listing them.
    pub fn leaf_names(&self) -> Vec<String> {
        let all = self.all_branches();
        let mut uses: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for b in &all {
            *uses.entry(b.name.as_str()).or_default() += 1;
        }
        all.iter()
            .filter(|b| uses[b.name.as_str()] == 1)
            .filter_map(|b| Some(format!("{}.{}", b.name, Self::single_leaf(b)?)))
            .filter(|n| !uses.contains_key(n.as_str()))
            .collect()
    }

    /// The names RDataFrame gives the members of split objects besides their own, each
    /// with its branch: the member of an object branch whose name has no final dot is also
    /// `object.member` (`event.fX` for `fX`), a member of a member `object.member.inner`, a
    /// member of a base class `object.member` (`event.fBits` of its `TObject`);
    /// collections of objects and branches named with a final dot name their members fully
    /// already and add none.
    pub fn dotted_names(&self) -> Vec<(String, &Branch)> {
        fn explore<'a>(b: &'a Branch, prefix: &str, out: &mut Vec<(String, &'a Branch)>) {
            // The prefix's last name before its final dot, where a dot comes before it: a
            // member already named after it (`fCoordinates.fX` under `p.fCoordinates.`) is
            // not named twice.
            let last = prefix
                .strip_suffix('.')
                .and_then(|p| p.rsplit_once('.'))
                .map(|(_, last)| last);
            for s in &b.branches {
                let full = match (s.name.split_once('.'), last) {
                    (Some((first, rest)), Some(last)) if first == last => format!("{prefix}{rest}"),
                    _ => format!("{prefix}{}", s.name),
                };
                // A base class's members are named as the object's own.
                let base = s.element.as_ref().is_some_and(|e| e.ty == 1);
                let next = match prefix.is_empty() || base {
                    true => prefix.to_string(),
                    false => format!("{full}."),
                };
                explore(s, &next, out);
                if full != s.name {
                    out.push((full, s));
                }
            }
        }
        let mut out = Vec::new();
        for b in &self.branches {
            let collection = b.element.as_ref().is_some_and(|e| matches!(e.ty, 3 | 4));
            let prefix = match b.class.as_str() {
                "TBranch" => continue,
                "TBranchElement" if collection || b.name.ends_with('.') => String::new(),
                _ => format!("{}.", b.name),
            };
            explore(b, &prefix, &mut out);
        }
        out
    }

    /// A name for every branch, depth first, that [`TreeMeta::find`] resolves to it: the
    /// branch's own name where no other branch has it, else its path from the top
    /// (`parent/child`), as uproot names branches.
    pub fn unique_names(&self) -> Vec<String> {
        fn walk(b: &Branch, prefix: &str, out: &mut Vec<(String, String)>) {
            let path = if prefix.is_empty() {
                b.name.clone()
            } else {
                format!("{prefix}/{}", b.name)
            };
            out.push((b.name.clone(), path.clone()));
            for s in &b.branches {
                walk(s, &path, out);
            }
        }
        let mut named = Vec::new();
        for b in &self.branches {
            walk(b, "", &mut named);
        }
        let mut count = std::collections::HashMap::new();
        for (name, _) in &named {
            *count.entry(name.as_str()).or_insert(0usize) += 1;
        }
        named
            .iter()
            .map(|(name, path)| {
                if count[name.as_str()] == 1 {
                    name.clone()
                } else {
                    path.clone()
                }
            })
            .collect()
    }

    /// The entry ranges of the clusters, from the cluster ranges and `fAutoFlush`, or
    /// (when those do not say) from the baskets of the first branch.
    pub fn cluster_ranges(&self) -> Vec<std::ops::Range<u64>> {
        let total = self.entries;
        let mut out = Vec::new();
        let mut start = 0u64;
        let c = &self.clusters;
        let usable =
            c.range_end.len() == c.size.len() && (c.auto_flush > 0 || !c.range_end.is_empty());
        if usable {
            for (&end, &size) in c.range_end.iter().zip(&c.size) {
                let end = end.max(-1).saturating_add(1) as u64;
                let size = size.max(1) as u64;
                while start < end.min(total) && out.len() < 1 << 20 {
                    let stop = start.saturating_add(size).min(end).min(total);
                    out.push(start..stop);
                    start = stop;
                }
            }
            if c.auto_flush > 0 {
                let size = c.auto_flush as u64;
                while start < total && out.len() < 1 << 20 {
                    let stop = start.saturating_add(size).min(total);
                    out.push(start..stop);
                    start = stop;
                }
            }
        }
        if start < total {
            // Basket boundaries of the first branch with data.
            let first = self
                .all_branches()
                .into_iter()
                .find(|b| !b.baskets.is_empty());
            if let Some(b) = first {
                for basket in &b.baskets {
                    let stop = basket.end_entry.min(total);
                    if stop > start {
                        out.push(start..stop);
                        start = stop;
                    }
                }
            }
            if start < total {
                out.push(start..total);
            }
        }
        out
    }
}

impl Branch {
    fn from_object(o: &Object, file_size: u64, depth: usize) -> Result<Self, MetaError> {
        let name = string(o, "fName");
        let bad = |message: String| (o.offset, format!("branch '{name}': {message}"));
        // ROOT 5 era branches (class versions before 12) store `fEntries` as a double.
        let entries = num(o, "fEntries").ok_or_else(|| bad(o.why_missing("fEntries")))?;
        let write_basket = need_int(o, "fWriteBasket").map_err(|(_, m)| bad(m))?;
        let seeks = o
            .ints("fBasketSeek")
            .ok_or_else(|| bad(o.why_missing("fBasketSeek")))?;
        let sizes = o
            .ints("fBasketBytes")
            .ok_or_else(|| bad(o.why_missing("fBasketBytes")))?;
        let firsts = o
            .ints("fBasketEntry")
            .ok_or_else(|| bad(o.why_missing("fBasketEntry")))?;
        if entries < 0
            || write_basket < 0
            || write_basket as usize > seeks.len().min(sizes.len()).min(firsts.len())
        {
            return Err(bad(format!(
                "{entries} entries in {write_basket} baskets, but {} basket positions",
                seeks.len()
            )));
        }
        // Baskets in another file are bounded by that file when they are read.
        let file_name = string(o, "fFileName");
        let (baskets, embedded) = basket_list(
            o,
            entries as u64,
            write_basket as usize,
            [seeks, sizes, firsts],
            if file_name.is_empty() {
                file_size
            } else {
                u64::MAX
            },
        )
        .map_err(bad)?;
        let leaves = o
            .objects("fLeaves")
            .ok_or_else(|| bad(o.why_missing("fLeaves")))?
            .iter()
            .flatten()
            .map(|leaf| Leaf::from_object(leaf).map_err(bad))
            .collect::<Result<Vec<_>, _>>()?;
        let subs = o.objects("fBranches").unwrap_or(&[]);
        if depth > 32 && !subs.is_empty() {
            return Err(bad("branches nested too deeply".into()));
        }
        let branches = subs
            .iter()
            .flatten()
            .map(|b| Branch::from_object(b, file_size, depth + 1))
            .collect::<Result<Vec<_>, _>>()?;
        let element =
            (o.get("fClassName").is_some() && o.get("fID").is_some()).then(|| ElementInfo {
                class_name: string(o, "fClassName"),
                parent_name: string(o, "fParentName"),
                clones_name: string(o, "fClonesName"),
                class_version: o.int("fClassVersion").unwrap_or(0),
                id: o.int("fID").unwrap_or(-1),
                ty: o.int("fType").unwrap_or(0),
                streamer_type: o.int("fStreamerType").unwrap_or(-1),
            });
        Ok(Branch {
            name,
            title: string(o, "fTitle"),
            class: o.class.clone(),
            leaves,
            branches,
            entries: entries as u64,
            tot_bytes: o.int("fTotBytes").unwrap_or(0).max(0) as u64,
            zip_bytes: o.int("fZipBytes").unwrap_or(0).max(0) as u64,
            entry_offset_len: o.int("fEntryOffsetLen").unwrap_or(0),
            baskets,
            embedded,
            element,
            object_class: if o.class == "TBranchObject" {
                string(o, "fClassName")
            } else {
                String::new()
            },
            object_virtual: o
                .objects("fLeaves")
                .and_then(|l| l.first().cloned().flatten())
                .is_some_and(|leaf| leaf.int("fVirtual").unwrap_or(0) != 0),
            file_name,
        })
    }
}

impl Leaf {
    /// The leaf of a `TLeaf` object; an error if its sizes were not read (a leaf class the
    /// file does not describe), rather than values read with guessed sizes.
    fn from_object(o: &Arc<Object>) -> Result<Leaf, String> {
        let count = match o.get("fLeafCount") {
            Some(Value::Object(c)) => Some(string(c, "fName")),
            _ => None,
        };
        let need = |name| o.int(name).ok_or_else(|| o.why_missing(name));
        Ok(Leaf {
            class: o.class.clone(),
            name: string(o, "fName"),
            title: string(o, "fTitle"),
            len: need("fLen")?,
            len_type: need("fLenType")?,
            is_unsigned: o.int("fIsUnsigned").unwrap_or(0) != 0,
            count,
            element_type: (o.class == "TLeafElement").then(|| o.int("fType").unwrap_or(0)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A branch of `class` holding an element of branch type `ty` (none for `TBranch`).
    fn branch(name: &str, class: &str, ty: Option<i64>, branches: Vec<Branch>) -> Branch {
        Branch {
            name: name.into(),
            title: String::new(),
            class: class.into(),
            leaves: Vec::new(),
            branches,
            entries: 0,
            tot_bytes: 0,
            zip_bytes: 0,
            entry_offset_len: 0,
            baskets: Vec::new(),
            embedded: Vec::new(),
            element: ty.map(|ty| ElementInfo {
                class_name: String::new(),
                parent_name: String::new(),
                clones_name: String::new(),
                class_version: 1,
                id: 0,
                ty,
                streamer_type: 0,
            }),
            object_class: String::new(),
            object_virtual: false,
            file_name: String::new(),
        }
    }

    #[test]
    fn members_of_split_objects_have_rdataframe_s_dotted_names() {
        let member = |name: &str, ty, below| branch(name, "TBranchElement", Some(ty), below);
        let event = member(
            "event",
            0,
            vec![
                member("TObject", 1, vec![member("fBits", 0, vec![])]),
                member("fX", 0, vec![]),
                member("fP", 0, vec![member("fP.fY", 0, vec![])]),
            ],
        );
        let jets = member("jets", 4, vec![member("jets.pt", 41, vec![])]);
        let dotted = member("obj.", 0, vec![member("obj.a", 0, vec![])]);
        let plain = branch("n", "TBranch", None, vec![]);
        let meta = TreeMeta {
            name: "t".into(),
            title: String::new(),
            version: 20,
            entries: 0,
            branches: vec![event, jets, dotted, plain],
            clusters: ClusterLayout::default(),
        };
        let names: Vec<(String, String)> = meta
            .dotted_names()
            .into_iter()
            .map(|(n, b)| (n, b.name.clone()))
            .collect();
        let expected = [
            ("event.fBits", "fBits"),
            ("event.TObject", "TObject"),
            ("event.fX", "fX"),
            ("event.fP.fY", "fP.fY"),
            ("event.fP", "fP"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(n, b)| (n.to_string(), b.to_string()))
            .collect();
        assert_eq!(names, expected);
        // The dotted names find their branches; the branches' own names still do.
        assert_eq!(meta.find("event.fP.fY").unwrap().name, "fP.fY");
        assert_eq!(meta.find("event.fBits").unwrap().name, "fBits");
        assert_eq!(meta.find("fBits").unwrap().name, "fBits");
        assert!(meta.find("jets.pt.x").is_none());
    }
}
