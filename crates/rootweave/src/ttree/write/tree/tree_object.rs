//! The `TTree` object as ROOT 6.40 streams it (class versions TTree 20, TBranch 13, TLeaf 2
//! and its number subclasses 1, TObjArray 3): branches with their leaves and the locations
//! of their baskets, and the tree's list of every leaf (references to the leaves streamed
//! in the branches).

use crate::array::LeafType;
use crate::streamer::ObjectStream;
use crate::ttree::write::branches::branch::{
    is_unsigned, leaf_class, leaf_title, name_checksum, BranchKind, BranchSpec, ElementClass,
    LeafSpec,
};

/// `TObject` bits ROOT 6.40 stores for a TTree (`kMustCleanup`).
const TREE_BITS: u32 = 0x0000_0008;
/// `TObject` bits of a TBranch (`kDoNotUseBufferMap`).
const BRANCH_BITS: u32 = 0x0040_0000;
/// `TObject` bits of a collection that owns its items (`kIsOwner`).
const OWNER_BITS: u32 = 0x0000_4000;
/// ROOT's checksum of `ROOT::TIOFeatures`, written with it (its version is 0).
const IO_FEATURES_CHECKSUM: u32 = 0x1aa1_2f10;
/// ROOT 6.40's checksum and class version of `std::string`.
const STRING_CHECKSUM: u32 = 0x6e6f_1604;
const STRING_VERSION: i16 = 2;
/// `TString`'s class checksum and version, as ROOT 6.40 writes them.
const TSTRING_CHECKSUM: u32 = 95_257;
const TSTRING_VERSION: i16 = 2;
/// The class version ROOT gives STL collections.
const COLLECTION_CLASS_VERSION: i16 = 6;
/// Basket slots a branch starts with (ROOT's `fMaxBaskets` default).
const MIN_BASKET_SLOTS: usize = 10;

/// A basket written to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WrittenBasket {
    /// Offset of its record.
    pub seek: u64,
    /// Bytes of its record (key and stored payload).
    pub nbytes: u32,
    /// Its first entry.
    pub first_entry: u64,
}

/// One branch as the TTree object records it.
pub(crate) struct BranchRecord<'a> {
    pub spec: &'a BranchSpec,
    /// ROOT's compression setting of its baskets.
    pub compress: i32,
    pub basket_size: i32,
    pub entries: u64,
    /// Bytes of its baskets before compression (key included), and on disk.
    pub tot_bytes: u64,
    pub zip_bytes: u64,
    pub baskets: &'a [WrittenBasket],
    /// For entries of varying size: ROOT's `fEntryOffsetLen` (0 for fixed-size entries).
    pub entry_offset_len: i32,
    /// The branch whose leaf counts this one's items (an index into the tree's branches).
    pub counter: Option<usize>,
    /// For a branch that counts another's items: the largest count (its leaf's maximum,
    /// by which readers size their buffers).
    pub max_count: Option<i64>,
    /// For a branch of C strings: the longest string's bytes.
    pub longest: usize,
}

/// The tree as its object records it.
pub(crate) struct TreeRecord<'a> {
    pub name: &'a str,
    pub title: &'a str,
    pub entries: u64,
    /// Entries per cluster of the last run once known, else ROOT's default of
    /// -30,000,000 (bytes).
    pub auto_flush: i64,
    /// Runs of clusters of one size before the last run: last entry, cluster size.
    pub cluster_ranges: &'a [(i64, i64)],
    pub auto_save: i64,
    /// Stored bytes at the last auto-save.
    pub saved_bytes: u64,
    /// Bytes flushed at the last cluster boundary.
    pub flushed_bytes: u64,
    pub branches: Vec<BranchRecord<'a>>,
}

/// The tree object streamed as the payload of a key whose header is `key_len` bytes (the
/// references to leaves are positions in the key's record).
pub(crate) fn stream_tree(tree: &TreeRecord, key_len: usize) -> Vec<u8> {
    let mut b = ObjectStream::default();
    let tot: u64 = tree.branches.iter().map(|r| r.tot_bytes).sum();
    let zip: u64 = tree.branches.iter().map(|r| r.zip_bytes).sum();
    b.begin_version(20);
    b.tnamed(tree.name, tree.title, TREE_BITS);
    attributes(&mut b);
    b.i64(tree.entries as i64);
    b.i64(tot as i64);
    b.i64(zip as i64);
    b.i64(tree.saved_bytes as i64);
    b.i64(tree.flushed_bytes as i64);
    b.f64(1.0); // fWeight
    b.i32(0); // fTimerInterval
    b.i32(25); // fScanField
    b.i32(0); // fUpdate
    b.i32(1000); // fDefaultEntryOffsetLen
    b.i32(tree.cluster_ranges.len() as i32); // fNClusterRange
    b.i64(1_000_000_000_000); // fMaxEntries
    b.i64(1_000_000_000_000); // fMaxEntryLoop
    b.i64(0); // fMaxVirtualSize
    b.i64(tree.auto_save);
    b.i64(tree.auto_flush);
    b.i64(1_000_000); // fEstimate
    for column in [0, 1] {
        // fClusterRangeEnd, then fClusterSize: arrays behind a pointer, flagged when there.
        b.u8(!tree.cluster_ranges.is_empty() as u8);
        for range in tree.cluster_ranges {
            b.i64(if column == 0 { range.0 } else { range.1 });
        }
    }
    io_features(&mut b);
    // The top branches, each with its sub-branches and leaves; where each branch and leaf
    // starts, for references to them.
    let mut at = Positions::new(tree, key_len);
    let tops: Vec<usize> = (0..tree.branches.len())
        .filter(|&k| parent_of(&tree.branches[k]).is_none())
        .collect();
    object_array_header(&mut b, tops.len(), OWNER_BITS);
    for k in tops {
        stream_branch(&mut b, tree, k, &mut at);
    }
    b.end();
    let leaves: Vec<usize> = at.leaves.concat();
    object_array_header(&mut b, leaves.len(), 0);
    for leaf in leaves {
        b.reference(leaf, key_len);
    }
    b.end();
    b.null(); // fAliases
    b.i32(0); // fIndexValues (an empty TArrayD)
    b.i32(0); // fIndex (an empty TArrayI)
    b.null(); // fTreeIndex
    b.null(); // fFriends
    b.null(); // fUserInfo
    b.null(); // fBranchRef
    b.end();
    b.into_bytes()
}

/// The line, fill and marker attributes of a TTree, at ROOT's defaults.
fn attributes(b: &mut ObjectStream) {
    b.begin_version(2); // TAttLine
    b.i16(602);
    b.i16(1);
    b.i16(1);
    b.end();
    fill_attributes(b);
    b.begin_version(3); // TAttMarker
    b.i16(1);
    b.i16(1);
    b.f32(1.0);
    b.end();
}

fn fill_attributes(b: &mut ObjectStream) {
    b.begin_version(2); // TAttFill
    b.i16(0);
    b.i16(1001);
    b.end();
}

fn io_features(b: &mut ObjectStream) {
    b.begin_version(0);
    b.u32(IO_FEATURES_CHECKSUM);
    b.u8(0);
    b.end();
}

/// Opens a `TObjArray` of `n` items (closed by the caller's `end`).
fn object_array_header(b: &mut ObjectStream, n: usize, bits: u32) {
    b.begin_version(3);
    b.tobject(bits);
    b.tstring("");
    b.i32(n as i32);
    b.i32(0); // fLowerBound
}

/// Where the branches and leaves streamed so far start (positions in the tree's buffer,
/// `key_len` bytes into its key's record), and which branches hang from which.
struct Positions {
    key_len: usize,
    /// Each branch's leaves (the tree lists them branch by branch).
    leaves: Vec<Vec<usize>>,
    /// Each branch's first leaf.
    leaf_of: Vec<Option<usize>>,
    /// Each branch.
    branch: Vec<Option<usize>>,
    /// Each branch's sub-branches.
    children: Vec<Vec<usize>>,
}

impl Positions {
    fn new(tree: &TreeRecord, key_len: usize) -> Self {
        let n = tree.branches.len();
        let mut children = vec![Vec::new(); n];
        for (k, r) in tree.branches.iter().enumerate() {
            if let Some(p) = parent_of(r) {
                children[p].push(k);
            }
        }
        Positions {
            key_len,
            leaves: vec![Vec::new(); n],
            leaf_of: vec![None; n],
            branch: vec![None; n],
            children,
        }
    }

    /// Notes that branch `k`'s next leaf starts at `at`.
    fn leaf(&mut self, k: usize, at: usize) {
        self.leaves[k].push(at);
        self.leaf_of[k].get_or_insert(at);
    }
}

/// The branch an object branch's part hangs from.
fn parent_of(r: &BranchRecord) -> Option<usize> {
    r.spec.class_part().and_then(|p| p.parent)
}

/// Branch `k` behind a pointer, with its sub-branches (the branches it counts and those
/// before it already streamed).
fn stream_branch(b: &mut ObjectStream, tree: &TreeRecord, k: usize, at: &mut Positions) {
    let r = &tree.branches[k];
    at.branch[k] = Some(b.len());
    match &r.spec.kind {
        BranchKind::Element(class) => {
            b.begin_object("TBranchElement");
            b.begin_version(10);
            let text = matches!(class, ElementClass::String | ElementClass::TString);
            let split = if text { 0 } else { 99 };
            branch_body(b, tree, k, split, BRANCH_BITS, 0, at);
            let name = class.class_name();
            b.tstring(&name); // fClassName
            b.tstring(""); // fParentName
            b.tstring(""); // fClonesName
            let (checksum, version) = match class {
                ElementClass::String => (STRING_CHECKSUM, STRING_VERSION),
                ElementClass::TString => (TSTRING_CHECKSUM, TSTRING_VERSION),
                _ => (name_checksum(&name), COLLECTION_CLASS_VERSION),
            };
            b.u32(checksum);
            b.i16(version);
            b.i32(-1); // fID: the whole object
            b.i32(if text { -1 } else { 0 }); // fType
            b.i32(-1); // fStreamerType
            b.i32(0); // fMaximum
            b.null(); // fBranchCount
            b.null(); // fBranchCount2
            b.end();
            b.end();
        }
        BranchKind::ClassPart(part) => {
            b.begin_object("TBranchElement");
            b.begin_version(10);
            branch_body(b, tree, k, part.split_level, part.bits, part.offset, at);
            b.tstring(&part.class_name);
            b.tstring(&part.parent_name);
            b.tstring(&part.clones_name);
            b.u32(part.checksum);
            b.i16(part.class_version);
            b.i32(part.id);
            b.i32(part.branch_type);
            b.i32(part.streamer_type);
            b.i32(r.max_count.unwrap_or(0) as i32); // fMaximum
            match r.counter.and_then(|c| at.branch[c]) {
                Some(count) => b.reference(count, at.key_len), // fBranchCount
                None => b.null(),
            }
            b.null(); // fBranchCount2
            b.end();
            b.end();
        }
        _ => {
            b.begin_object("TBranch");
            branch_body(b, tree, k, 0, BRANCH_BITS, 0, at);
            b.end();
        }
    }
}

/// The `TBranch` part of branch `k` (its own version and byte count included), its
/// sub-branches and leaves within.
fn branch_body(
    b: &mut ObjectStream,
    tree: &TreeRecord,
    k: usize,
    split_level: i32,
    bits: u32,
    offset: i32,
    at: &mut Positions,
) {
    let r = &tree.branches[k];
    let spec = r.spec;
    let written = r.baskets.len();
    let slots = MIN_BASKET_SLOTS.max(written + 1);
    b.begin_version(13);
    b.tnamed(&spec.name, &spec.branch_title(), bits);
    fill_attributes(b);
    b.i32(r.compress);
    b.i32(r.basket_size);
    b.i32(r.entry_offset_len);
    b.i32(written as i32); // fWriteBasket
    b.i64(if spec.holds_data() {
        r.entries as i64
    } else {
        0
    }); // fEntryNumber
    io_features(b);
    b.i32(offset);
    b.i32(slots as i32); // fMaxBaskets
    b.i32(split_level);
    b.i64(r.entries as i64);
    b.i64(0); // fFirstEntry
    b.i64(r.tot_bytes as i64);
    b.i64(r.zip_bytes as i64);
    let children = at.children[k].clone();
    object_array_header(b, children.len(), 0); // fBranches
    for child in children {
        stream_branch(b, tree, child, at);
    }
    b.end();
    let key_len = at.key_len;
    match &spec.kind {
        BranchKind::Leaves { leaves: specs, .. } => {
            object_array_header(b, specs.len(), 0); // fLeaves
            let counter = r.counter.and_then(|c| at.leaf_of[c]);
            let mut offset = 0;
            for leaf in specs {
                at.leaf(k, b.len());
                stream_number_leaf(b, r, leaf, offset, counter, key_len);
                offset += leaf.entry_bytes();
            }
        }
        BranchKind::CharStar => {
            object_array_header(b, 1, 0);
            at.leaf(k, b.len());
            stream_char_leaf(b, &spec.name, r.longest, r.entries > 0);
        }
        BranchKind::Element(_) => {
            object_array_header(b, 1, 0);
            at.leaf(k, b.len());
            let (name, none) = (&spec.name, refer(None, 0));
            stream_element_leaf(b, name, name, (1, 0), (-1, -1), false, none);
        }
        BranchKind::ClassPart(part) => match &part.leaf {
            Some(_) => {
                object_array_header(b, 1, 0);
                part_leaf(b, tree, k, at);
            }
            None => object_array_header(b, 0, 0),
        },
        BranchKind::Object { .. } => unreachable!("object branches are laid out in parts"),
    }
    b.end();
    object_array_header(b, written + 1, 0); // fBaskets: none kept in the tree
    for _ in 0..=written {
        b.null();
    }
    b.end();
    b.u8(1); // fBasketBytes
    for i in 0..slots {
        b.i32(r.baskets.get(i).map_or(0, |k| k.nbytes as i32));
    }
    b.u8(1); // fBasketEntry: each basket's first entry, then the end
    for i in 0..slots {
        let first = match r.baskets.get(i) {
            Some(k) => k.first_entry,
            None if i == written && spec.holds_data() => r.entries,
            None => 0,
        };
        b.i64(first as i64);
    }
    b.u8(1); // fBasketSeek
    for i in 0..slots {
        b.i64(r.baskets.get(i).map_or(0, |k| k.seek as i64));
    }
    b.tstring(""); // fFileName
    b.end();
}

/// The `TLeaf` part of a leaf.
#[allow(clippy::too_many_arguments)]
fn leaf_base(
    b: &mut ObjectStream,
    name: &str,
    title: &str,
    len: usize,
    len_type: usize,
    offset: usize,
    is_range: bool,
    unsigned: bool,
    counter: impl FnOnce(&mut ObjectStream),
) {
    b.begin_version(2);
    b.tnamed(name, title, 0);
    b.i32(len as i32); // fLen
    b.i32(len_type as i32); // fLenType
    b.i32(offset as i32); // fOffset
    b.u8(is_range as u8);
    b.u8(unsigned as u8);
    counter(b); // fLeafCount
    b.end();
}

/// Writes a `fLeafCount` that refers to the leaf at `at` (none without one).
fn refer(at: Option<usize>, key_len: usize) -> impl FnOnce(&mut ObjectStream) {
    move |b: &mut ObjectStream| match at {
        Some(at) => b.reference(at, key_len),
        None => b.null(),
    }
}

/// A leaf of numbers (`TLeafI` and the like) behind a pointer, `offset` bytes into its
/// branch's entries; `counter` is where the leaf counting its items starts, in a buffer
/// `key_len` bytes into its key's record.
fn stream_number_leaf(
    b: &mut ObjectStream,
    r: &BranchRecord,
    leaf: &LeafSpec,
    offset: usize,
    counter: Option<usize>,
    key_len: usize,
) {
    b.begin_object(leaf_class(leaf.leaf, leaf.long));
    b.begin_version(1);
    leaf_base(
        b,
        &leaf.name,
        &leaf_title(leaf, r.spec.counter()),
        leaf.width(),
        leaf.leaf.size(),
        offset,
        r.max_count.is_some(), // fIsRange: counts another leaf's items
        is_unsigned(leaf.leaf),
        refer(counter, key_len),
    );
    // fMinimum and fMaximum, in the leaf's own type.
    let size = match leaf.leaf {
        LeafType::Bool | LeafType::Int8 | LeafType::UInt8 => 1,
        _ => leaf.leaf.size(),
    };
    let max = r.max_count.unwrap_or(0).to_be_bytes();
    b.raw(&[0u8; 8][..size]);
    b.raw(&max[8 - size..]);
    b.end();
    b.end();
}

/// A C-string leaf (`TLeafC`): its length and maximum are one more than the longest
/// string's bytes (its maximum 0 while it holds no entries).
fn stream_char_leaf(b: &mut ObjectStream, name: &str, longest: usize, filled: bool) {
    b.begin_object("TLeafC");
    b.begin_version(1);
    leaf_base(
        b,
        name,
        name,
        longest + 1,
        1,
        0,
        false,
        false,
        refer(None, 0),
    );
    b.i32(0); // fMinimum
    b.i32(if filled { longest as i32 + 1 } else { 0 });
    b.end();
    b.end();
}

/// The leaf of an object branch (`TLeafElement`): its length and type size, its element
/// index and type code (-1 for the whole object); `counter` writes its `fLeafCount`.
fn stream_element_leaf(
    b: &mut ObjectStream,
    name: &str,
    title: &str,
    (len, len_type): (usize, usize),
    (id, streamer_type): (i32, i32),
    range: bool,
    counter: impl FnOnce(&mut ObjectStream),
) {
    let bare = match streamer_type {
        t if t > 40 && t < 60 => t - 40,
        t if t > 20 && t < 40 => t - 20,
        t => t,
    };
    let unsigned = matches!(bare, 11..=14 | 17);
    b.begin_object("TLeafElement");
    b.begin_version(1);
    leaf_base(b, name, title, len, len_type, 0, range, unsigned, counter);
    b.i32(id); // fID
    b.i32(streamer_type); // fType
    b.end();
    b.end();
}

/// The leaf of part `k` of an object branch: streamed where it first appears (in a
/// sub-branch's `fLeafCount` for the counts of a `std::vector`, which ROOT streams before
/// the branch's own list of leaves), a reference to it after that.
fn part_leaf(b: &mut ObjectStream, tree: &TreeRecord, k: usize, at: &mut Positions) {
    if let Some(pos) = at.leaf_of[k] {
        b.reference(pos, at.key_len);
        return;
    }
    let r = &tree.branches[k];
    let leaf = r
        .spec
        .class_part()
        .and_then(|p| p.leaf.as_ref())
        .expect("a part with a leaf");
    at.leaf(k, b.len());
    stream_element_leaf(
        b,
        &leaf.name,
        &leaf.title,
        (leaf.len, leaf.len_type),
        (leaf.id, leaf.streamer_type),
        leaf.range,
        |b: &mut ObjectStream| match r.counter {
            Some(c) => part_leaf(b, tree, c, at),
            None => b.null(),
        },
    );
}
