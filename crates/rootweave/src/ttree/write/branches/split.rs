//! A branch of user-class objects laid out as ROOT 6.40 lays it out at a split level: at 0,
//! one `TBranchElement` whose entries are the streamed objects; split, a top branch and a
//! sub-branch per member, down nested classes and base classes as long as the split level
//! lasts (a class's members named `member`, `object.member`; a `std::vector` of a class one
//! branch of counts and one per member named `vector.member`, each entry that member of
//! every item). Each part records what ROOT's branch records (class, element, type codes)
//! and where its bytes come from.

use std::sync::Arc;

use crate::ttree::write::branches::class::{ClassSpec, MemberType};

/// `TBranch` bits: entries do not use the buffer's object map (`kDoNotUseBufferMap`), and
/// the branch holds a class that does not derive from `TObject` (`kBranchAny`).
const NO_MAP: u32 = 0x0040_0000;
const ANY: u32 = 0x0002_0000;
/// `TBranch` bit: the branch holds a `TObject` (`kBranchObject`).
const TOBJECT: u32 = 0x0000_1000;
/// ROOT's class version of `std::vector` in branches.
const COLLECTION_CLASS_VERSION: i16 = 6;

/// One branch of a class branch's layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClassPart {
    pub name: String,
    pub title: String,
    /// `TBranchElement`'s class, parent class and collection item class names, the class's
    /// checksum and version, the element's index in the class layout (`fID`), the branch
    /// type (`fType`), the element's type code (`fStreamerType`), the split level, and the
    /// member's parent object offset in memory (`fOffset`).
    pub class_name: String,
    pub parent_name: String,
    pub clones_name: String,
    pub checksum: u32,
    pub class_version: i16,
    pub id: i32,
    pub branch_type: i32,
    pub streamer_type: i32,
    pub split_level: i32,
    pub offset: i32,
    pub bits: u32,
    /// The part this one is a sub-branch of (an index into the same layout's parts).
    pub parent: Option<usize>,
    /// For the members of a `std::vector`'s items: the part counting the items (an index
    /// into the same layout's parts).
    pub counter: Option<usize>,
    /// Its `TLeafElement`, if it has one (parts split further have none).
    pub leaf: Option<ElementLeaf>,
    pub source: PartSource,
}

/// A part's `TLeafElement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ElementLeaf {
    pub name: String,
    pub title: String,
    pub len: usize,
    pub len_type: usize,
    pub id: i32,
    pub streamer_type: i32,
    /// `fIsRange`: set by ROOT on the counts of a `std::vector` member.
    pub range: bool,
}

/// Where a part's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PartSource {
    /// Nowhere: the part only groups its sub-branches.
    Nothing,
    /// Each entry's number of items (the top of a split `std::vector`).
    Counts,
    /// The number of items of the `std::vector` member at `path` (split in a branch of its
    /// own).
    MemberCounts { path: Vec<usize> },
    /// The member at `path` (indices into each class's members, down nested objects).
    Member { path: Vec<usize>, ty: MemberType },
    /// The member at `path` of the items of the `std::vector` member at `vector`.
    ItemMember {
        vector: Vec<usize>,
        path: Vec<usize>,
    },
    /// Base class `class` of the object at `path`, whose members start at `first` among
    /// that object's members.
    Base {
        path: Vec<usize>,
        first: usize,
        class: Arc<ClassSpec>,
    },
    /// The whole object, its members streamed without a header.
    Object,
    /// The whole object as its class's own streamer writes it: framed by a byte count and
    /// its version (`TVector3`, `TLorentzVector`).
    Framed,
    /// The whole `std::vector`, member-wise.
    Vector,
    /// The whole `std::vector`, object-wise: each item framed (items of classes with their
    /// own streamers).
    FramedItems,
}

impl ClassPart {
    /// Bytes of each entry, where they are all the same (numbers of a split object).
    pub fn fixed_entry_bytes(&self) -> Option<usize> {
        match &self.source {
            PartSource::Member {
                ty: MemberType::Number(t),
                ..
            } if self.counter.is_none() => Some(t.size()),
            _ => None,
        }
    }
}

/// The parts of a branch `name` of `class` objects (of `std::vector`s of them, with
/// `vector`) at split level `split`. A `std::vector` of a class with base classes is not
/// split (ROOT 6.40 cannot write one split).
pub(crate) fn class_parts(
    name: &str,
    class: &Arc<ClassSpec>,
    vector: bool,
    split: i32,
) -> Vec<ClassPart> {
    let vector_name = format!("vector<{}>", class.name);
    let whole = |source, class_name: String, checksum, class_version| ClassPart {
        name: name.to_string(),
        title: name.to_string(),
        class_name,
        parent_name: String::new(),
        clones_name: String::new(),
        checksum,
        class_version,
        id: -1,
        branch_type: 0,
        streamer_type: -1,
        split_level: 0,
        offset: 0,
        bits: ANY,
        parent: None,
        counter: None,
        leaf: Some(ElementLeaf {
            name: name.to_string(),
            title: name.to_string(),
            len: 1,
            len_type: 0,
            id: -1,
            streamer_type: -1,
            range: false,
        }),
        source,
    };
    if class.tobject.is_some() {
        // Classes with their own streamers are never split (ROOT records the split level
        // asked for on a vector of them, and 0 on the object's branch, of `fType` -1).
        return vec![if vector {
            ClassPart {
                split_level: split.max(0),
                ..whole(
                    PartSource::FramedItems,
                    vector_name.clone(),
                    crate::ttree::write::branches::branch::name_checksum(&vector_name),
                    COLLECTION_CLASS_VERSION,
                )
            }
        } else {
            ClassPart {
                branch_type: -1,
                bits: TOBJECT,
                ..whole(
                    PartSource::Framed,
                    class.name.clone(),
                    class.checksum(),
                    class.version,
                )
            }
        }];
    }
    if split <= 0 || vector && class.has_bases() {
        return vec![if vector {
            whole(
                PartSource::Vector,
                vector_name.clone(),
                crate::ttree::write::branches::branch::name_checksum(&vector_name),
                COLLECTION_CLASS_VERSION,
            )
        } else {
            whole(
                PartSource::Object,
                class.name.clone(),
                class.checksum(),
                class.version,
            )
        }];
    }
    let mut out = Vec::new();
    if vector {
        let counts = format!("{}_", name.trim_end_matches('.'));
        let mut top = whole(
            PartSource::Counts,
            vector_name.clone(),
            crate::ttree::write::branches::branch::name_checksum(&vector_name),
            COLLECTION_CLASS_VERSION,
        );
        top.title = counts.clone();
        top.clones_name = class.name.clone();
        top.branch_type = 4;
        top.split_level = split;
        top.bits = NO_MAP | ANY;
        top.leaf = Some(ElementLeaf {
            name: counts.clone(),
            title: counts.clone(),
            ..top.leaf.clone().expect("made with a leaf")
        });
        out.push(top);
        let prefix = match name.strip_suffix('.') {
            Some(_) => name.to_string(),
            None => format!("{name}."),
        };
        let items = Items {
            counts: &counts,
            counter: 0,
            vector: None,
        };
        unroll_items(&mut out, &Level::top(class, prefix, split), &items);
    } else {
        let mut top = whole(
            PartSource::Nothing,
            class.name.clone(),
            class.checksum(),
            class.version,
        );
        top.id = -2;
        top.split_level = split;
        top.bits = NO_MAP | ANY;
        if let Some(leaf) = &mut top.leaf {
            leaf.id = -2;
        }
        out.push(top);
        let prefix = if name.ends_with('.') {
            name.to_string()
        } else {
            String::new()
        };
        unroll_object(&mut out, &Level::top(class, prefix, split), split);
    }
    out
}

/// The members of one class being laid out as sub-branches.
struct Level<'c> {
    /// The class declaring the members.
    class: &'c ClassSpec,
    /// The class of the object the members belong to (a derived class for a base's).
    parent_name: &'c str,
    /// What sub-branch names start with.
    prefix: String,
    /// Path to the object holding the members, and where the class's members start among
    /// that object's.
    path: Vec<usize>,
    first: usize,
    /// Split levels left below these members.
    level: i32,
    /// Depth below the top branch.
    depth: usize,
    /// The part the sub-branches hang from.
    parent: usize,
    /// Offset in memory of the class's part of the item (for `std::vector` items).
    offset: usize,
}

impl<'c> Level<'c> {
    /// The members of the top object (or of a `std::vector`'s items), hanging from the
    /// layout's first part, their names starting with `prefix`.
    fn top(class: &'c ClassSpec, prefix: String, split: i32) -> Self {
        Level {
            class,
            parent_name: &class.name,
            prefix,
            path: Vec::new(),
            first: 0,
            level: split - 1,
            depth: 1,
            parent: 0,
            offset: 0,
        }
    }

    /// A part of this level for the element at `id` of the class.
    fn part(&self, name: String, id: usize, ty: &MemberType) -> ClassPart {
        ClassPart {
            title: name.clone(),
            name,
            class_name: self.class.name.clone(),
            parent_name: self.parent_name.to_string(),
            clones_name: String::new(),
            checksum: self.class.checksum(),
            class_version: self.class.version,
            id: id as i32,
            branch_type: 0,
            streamer_type: ty.streamer_type(),
            split_level: 0,
            offset: 0,
            bits: NO_MAP,
            parent: Some(self.parent),
            counter: None,
            leaf: None,
            source: PartSource::Nothing,
        }
    }

    /// Where the members of base `k` start among the object's.
    fn base_first(&self, k: usize) -> usize {
        self.first
            + self.class.bases[..k]
                .iter()
                .map(|b| b.member_count())
                .sum::<usize>()
    }

    /// Where own member `j` is among the object's members.
    fn member_index(&self, j: usize) -> usize {
        self.base_first(self.class.bases.len()) + j
    }
}

/// A leaf of a member's values.
fn member_leaf(name: &str, title: &str, id: usize, ty: &MemberType) -> ElementLeaf {
    let (len, len_type) = match ty {
        MemberType::Number(t) => (1, t.size()),
        MemberType::Array(t, dims) => (dims.iter().product(), t.size()),
        _ => (1, 0),
    };
    ElementLeaf {
        name: name.to_string(),
        title: title.to_string(),
        len,
        len_type,
        id: id as i32,
        streamer_type: ty.streamer_type(),
        range: false,
    }
}

/// The name of an array member's branch: with its dimensions.
fn with_dims(name: &str, ty: &MemberType) -> String {
    match ty {
        MemberType::Array(_, dims) => {
            let dims: String = dims.iter().map(|d| format!("[{d}]")).collect();
            format!("{name}{dims}")
        }
        _ => name.to_string(),
    }
}

/// The sub-branches of an object's members (`level.class`'s bases and members).
fn unroll_object(out: &mut Vec<ClassPart>, level: &Level, top_split: i32) {
    // ROOT records the top's split level less one on its direct sub-branches (0 for STL
    // members), and 0 below.
    let split_of = |ty: &MemberType| match ty {
        MemberType::String | MemberType::Vector(_) => 0,
        // A vector of classes not split further (no split level left, or base classes).
        MemberType::Objects(c) if level.level <= 0 || c.has_bases() => 0,
        MemberType::Object(c) if c.tobject.is_some() => 0,
        _ if level.depth == 1 => top_split - 1,
        _ => 0,
    };
    for (k, base) in level.class.bases.iter().enumerate() {
        let name = format!("{}{}", level.prefix, base.name);
        let ty = MemberType::Object(base.clone());
        let mut part = level.part(name.clone(), k, &ty);
        part.streamer_type = 0;
        if level.level > 0 {
            // As for object members: a branch of its own only below the top object.
            let parent = if level.depth == 1 {
                part.branch_type = 1;
                part.split_level = split_of(&ty);
                out.push(part);
                out.len() - 1
            } else {
                level.parent
            };
            let below = Level {
                class: base,
                parent_name: level.parent_name,
                prefix: level.prefix.clone(),
                path: level.path.clone(),
                first: level.base_first(k),
                level: level.level - 1,
                depth: level.depth + 1,
                parent,
                offset: 0,
            };
            unroll_object(out, &below, top_split);
        } else {
            part.leaf = Some(ElementLeaf {
                streamer_type: 0,
                ..member_leaf(&name, &name, k, &ty)
            });
            part.source = PartSource::Base {
                path: level.path.clone(),
                first: level.base_first(k),
                class: base.clone(),
            };
            out.push(part);
        }
    }
    let bases = level.class.bases.len();
    for (j, m) in level.class.members.iter().enumerate() {
        let id = bases + j;
        let leaf_name = format!("{}{}", level.prefix, m.name);
        let name = with_dims(&leaf_name, &m.ty);
        let mut path = level.path.clone();
        path.push(level.member_index(j));
        let mut part = level.part(name.clone(), id, &m.ty);
        part.split_level = split_of(&m.ty);
        match &m.ty {
            MemberType::Object(c) if level.level > 0 && c.tobject.is_none() => {
                // A member of the top object gets a branch of its own holding its members'
                // branches; deeper objects' members hang from that branch too (ROOT makes
                // no branch for `v3.fCoordinates`, only for `v3`).
                let (parent_name, parent) = if level.depth == 1 {
                    part.branch_type = 2;
                    out.push(part);
                    (c.name.as_str(), out.len() - 1)
                } else {
                    (level.parent_name, level.parent)
                };
                let below = Level {
                    class: c,
                    parent_name,
                    prefix: format!("{leaf_name}."),
                    path,
                    first: 0,
                    level: level.level - 1,
                    depth: level.depth + 1,
                    parent,
                    offset: 0,
                };
                unroll_object(out, &below, top_split);
            }
            MemberType::Objects(c) if level.level > 0 && level.depth == 1 && !c.has_bases() => {
                // A `std::vector` of a class held by the top object, split as a branch of
                // its own: its counts, and a branch per member of its items.
                let counts = format!("{leaf_name}_");
                part.title = counts.clone();
                part.clones_name = c.name.clone();
                part.branch_type = 4;
                part.leaf = Some(ElementLeaf {
                    name: counts.clone(),
                    title: counts.clone(),
                    range: true,
                    ..member_leaf(&leaf_name, &leaf_name, id, &m.ty)
                });
                part.source = PartSource::MemberCounts { path: path.clone() };
                out.push(part);
                let counter = out.len() - 1;
                let below = Level {
                    class: c,
                    parent_name: &c.name,
                    prefix: format!("{leaf_name}."),
                    path: Vec::new(),
                    first: 0,
                    level: level.level - 1,
                    depth: level.depth + 1,
                    parent: counter,
                    offset: 0,
                };
                let items = Items {
                    counts: &counts,
                    counter,
                    vector: Some(&path),
                };
                unroll_items(out, &below, &items);
            }
            ty => {
                if matches!(ty, MemberType::Object(c) if c.tobject.is_none())
                    || matches!(ty, MemberType::Objects(_))
                {
                    part.bits = ANY;
                }
                part.leaf = Some(member_leaf(&leaf_name, &name, id, ty));
                part.source = PartSource::Member {
                    path,
                    ty: ty.clone(),
                };
                out.push(part);
            }
        }
    }
}

/// The `std::vector` whose items' members are being laid out.
struct Items<'p> {
    /// The name of the leaf counting the items.
    counts: &'p str,
    /// The part counting them.
    counter: usize,
    /// The path to the `std::vector` member (none: the branch's own `std::vector`).
    vector: Option<&'p [usize]>,
}

/// The sub-branches of a split `std::vector`'s item members (nested objects flattened
/// into `vector.object.member` while the split level lasts), each counted by the counts.
fn unroll_items(out: &mut Vec<ClassPart>, level: &Level, items: &Items) {
    let offsets = level.class.member_offsets();
    let bases = level.class.bases.len();
    for (j, m) in level.class.members.iter().enumerate() {
        let id = bases + j;
        let index = level.member_index(j);
        let mut path = level.path.clone();
        path.push(index);
        let leaf_name = format!("{}{}", level.prefix, m.name);
        match &m.ty {
            MemberType::Object(c) if level.level > 0 && c.tobject.is_none() => {
                let below = Level {
                    class: c,
                    parent_name: level.parent_name,
                    prefix: format!("{leaf_name}."),
                    path,
                    first: 0,
                    level: level.level - 1,
                    depth: level.depth + 1,
                    parent: level.parent,
                    offset: level.offset + offsets[index],
                };
                unroll_items(out, &below, items);
            }
            ty => {
                // ROOT names an array member's branch with its dimensions, its leaf and
                // titles without them.
                let name = with_dims(&leaf_name, ty);
                let title = format!("{}[{}]", m.name, items.counts);
                let mut part = level.part(name, id, ty);
                part.title = title.clone();
                part.branch_type = 41;
                part.offset = level.offset as i32;
                part.counter = Some(items.counter);
                if matches!(ty, MemberType::Object(c) if c.tobject.is_none()) {
                    part.bits = NO_MAP | ANY;
                }
                part.leaf = Some(member_leaf(&leaf_name, &title, id, ty));
                part.source = match items.vector {
                    None => PartSource::Member {
                        path,
                        ty: ty.clone(),
                    },
                    Some(vector) => PartSource::ItemMember {
                        vector: vector.to_vec(),
                        path,
                    },
                };
                out.push(part);
            }
        }
    }
}
