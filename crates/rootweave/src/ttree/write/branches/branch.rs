//! What a branch holds and how ROOT names and types it: leaves of numbers (one, or several
//! as a leaf list), a C string, or an object of a standard C++ class (`std::string`,
//! `std::vector` of numbers, of vectors of numbers or of strings) in a `TBranchElement`.

use std::sync::Arc;

use crate::array::{LeafType, StdCollection};
use crate::ttree::write::branches::class::ClassSpec;
use crate::ttree::write::branches::split::ClassPart;

/// A branch to write: its name and what each entry holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchSpec {
    pub(crate) name: String,
    pub(crate) kind: BranchKind,
    /// A title of its own (`None`: the leaf list, see [`BranchSpec::branch_title`]).
    pub(crate) title: Option<String>,
}

/// What each entry of a branch holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BranchKind {
    /// Leaves of numbers: one (a scalar, a fixed-size array, or with `counter` an array of
    /// as many items as that branch says) or several of fixed size back to back (a leaf
    /// list).
    Leaves {
        leaves: Vec<LeafSpec>,
        counter: Option<String>,
    },
    /// A C string (`name/C`, ROOT's `TLeafC`).
    CharStar,
    /// An object of a standard class, unsplit (`TBranchElement` and `TLeafElement`).
    Element(ElementClass),
    /// An object of a user class (a `std::vector` of them, with `vector`) per entry, split
    /// to `split_level`: written as the branches of [`crate::ttree::write::branches::split::class_parts`].
    Object {
        class: Arc<ClassSpec>,
        vector: bool,
        split_level: i32,
    },
    /// One branch of an object branch's layout.
    ClassPart(Box<ClassPart>),
}

/// One leaf of numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LeafSpec {
    pub name: String,
    pub leaf: LeafType,
    /// Array dimensions of each entry, or of each item of a counted array (empty for a
    /// scalar).
    pub dims: Vec<usize>,
    /// A 64-bit integer of C++'s `long` (`Long_t`, `ULong_t`: ROOT's `TLeafG`), as ROOT
    /// writes `long`, `unsigned long` and `std::size_t` values; else a `Long64_t`.
    pub long: bool,
}

impl LeafSpec {
    /// Values per entry (per item, for a counted array).
    pub fn width(&self) -> usize {
        self.dims.iter().product()
    }

    /// Bytes per entry (per item, for a counted array).
    pub fn entry_bytes(&self) -> usize {
        self.width() * self.leaf.size()
    }
}

/// The standard classes a branch can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ElementClass {
    /// `std::string`.
    String,
    /// ROOT's `TString`: streamed as a `std::string` is, another class.
    TString,
    /// `std::vector<T>` of a number type.
    Vector(LeafType),
    /// `std::vector<std::vector<T>>` of a number type.
    VectorVector(LeafType),
    /// `std::vector<long>` or `std::vector<unsigned long>` (items `Int64` or `UInt64`): a
    /// `Vector` whose class names C++'s `long`.
    LongVector(LeafType),
    /// `std::vector<std::vector<long>>` or of `unsigned long`: a `VectorVector` so named.
    LongVectorVector(LeafType),
    /// `std::vector<std::string>`.
    VectorString,
    /// A set, list or deque of a number type, streamed as a `Vector` is; with `true`, its
    /// 64-bit integers named C++'s `long` (`set<long>`).
    Collection(StdCollection, LeafType, bool),
    /// A set, list or deque of `std::string`s, streamed as a `VectorString` is.
    StringCollection(StdCollection),
}

impl ElementClass {
    /// The class name as ROOT spells it.
    pub fn class_name(self) -> String {
        match self {
            ElementClass::String => "string".into(),
            ElementClass::TString => "TString".into(),
            ElementClass::Vector(t) => format!("vector<{}>", cpp_name(t)),
            ElementClass::VectorVector(t) => format!("vector<vector<{}> >", cpp_name(t)),
            ElementClass::LongVector(t) => format!("vector<{}>", long_name(t)),
            ElementClass::LongVectorVector(t) => format!("vector<vector<{}> >", long_name(t)),
            ElementClass::VectorString => "vector<string>".into(),
            ElementClass::Collection(kind, t, false) => format!("{}<{}>", kind.name(), cpp_name(t)),
            ElementClass::Collection(kind, t, true) => format!("{}<{}>", kind.name(), long_name(t)),
            ElementClass::StringCollection(kind) => format!("{}<string>", kind.name()),
        }
    }
}

impl BranchSpec {
    /// A branch of one `leaf` value per entry.
    pub fn scalar(name: &str, leaf: LeafType) -> Self {
        Self::array(name, leaf, &[])
    }

    /// A branch of a fixed-size array per entry (`x[3]/F`, `m[2][3]/D`).
    pub fn array(name: &str, leaf: LeafType, dims: &[usize]) -> Self {
        BranchSpec {
            name: name.to_string(),
            kind: BranchKind::Leaves {
                leaves: vec![LeafSpec {
                    name: name.to_string(),
                    leaf,
                    dims: dims.to_vec(),
                    long: false,
                }],
                counter: None,
            },
            title: None,
        }
    }

    /// A branch of as many items per entry as branch `counter` says, each a value or a
    /// fixed-size array of `dims` (`Muon_pt[nMuon]/F`, `hits[n][3]/D`).
    pub fn counted(name: &str, leaf: LeafType, counter: &str, dims: &[usize]) -> Self {
        let mut spec = Self::array(name, leaf, dims);
        if let BranchKind::Leaves { counter: c, .. } = &mut spec.kind {
            *c = Some(counter.to_string());
        }
        spec
    }

    /// A leaf list (`x/F:y/I:v[3]/D`): several leaves, each `(name, type, dimensions)`,
    /// stored back to back in each entry; it is filled with a record of one batch per leaf.
    pub fn leaf_list(name: &str, leaves: &[(&str, LeafType, &[usize])]) -> Self {
        BranchSpec {
            name: name.to_string(),
            kind: BranchKind::Leaves {
                leaves: leaves
                    .iter()
                    .map(|&(n, leaf, dims)| LeafSpec {
                        name: n.to_string(),
                        leaf,
                        dims: dims.to_vec(),
                        long: false,
                    })
                    .collect(),
                counter: None,
            },
            title: None,
        }
    }

    /// A C string per entry (`name/C`); filled with strings without NUL characters.
    pub fn c_string(name: &str) -> Self {
        BranchSpec {
            name: name.to_string(),
            kind: BranchKind::CharStar,
            title: None,
        }
    }

    /// A `std::string` per entry.
    pub fn string(name: &str) -> Self {
        Self::element(name, ElementClass::String)
    }

    /// A `TString` per entry (ROOT reads its values as `TString`s; uproot as strings).
    pub fn tstring(name: &str) -> Self {
        Self::element(name, ElementClass::TString)
    }

    /// This branch, a `TString` one if it is a `std::string` one: the same bytes per entry.
    pub(crate) fn into_tstring(self) -> Self {
        match self.kind {
            BranchKind::Element(ElementClass::String) => Self::tstring(&self.name),
            _ => self,
        }
    }

    /// This branch with its 64-bit integers as C++'s `long` (`Long_t`, `ULong_t`; in
    /// vectors `long`, `unsigned long`), as ROOT writes values of those types: the same
    /// bytes per entry, other names (RDataFrame reads them as `unsigned long`, not as
    /// `ULong64_t`).
    pub(crate) fn into_long(mut self) -> Self {
        let wide = |t: LeafType| matches!(t, LeafType::Int64 | LeafType::UInt64);
        match &mut self.kind {
            BranchKind::Leaves { leaves, .. } => {
                for l in leaves.iter_mut() {
                    l.long = wide(l.leaf);
                }
            }
            BranchKind::Element(c) => match *c {
                ElementClass::Vector(t) if wide(t) => *c = ElementClass::LongVector(t),
                ElementClass::VectorVector(t) if wide(t) => *c = ElementClass::LongVectorVector(t),
                ElementClass::Collection(k, t, _) if wide(t) => {
                    *c = ElementClass::Collection(k, t, true)
                }
                _ => {}
            },
            _ => {}
        }
        self
    }

    /// A `std::vector<T>` of numbers per entry (for booleans `std::vector<bool>`).
    pub fn vector(name: &str, leaf: LeafType) -> Self {
        Self::element(name, ElementClass::Vector(leaf))
    }

    /// A set, list or deque (`kind`) of numbers per entry: a vector's bytes, the
    /// collection's class name (`set<int>`), as ROOT writes a branch of one.
    pub fn collection(name: &str, leaf: LeafType, kind: StdCollection) -> Self {
        Self::element(name, ElementClass::Collection(kind, leaf, false))
    }

    /// A set, list or deque (`kind`) of `std::string`s per entry (`set<string>`).
    pub fn collection_of_strings(name: &str, kind: StdCollection) -> Self {
        Self::element(name, ElementClass::StringCollection(kind))
    }

    /// A `std::vector<std::vector<T>>` of numbers per entry.
    pub fn vector_of_vectors(name: &str, leaf: LeafType) -> Self {
        Self::element(name, ElementClass::VectorVector(leaf))
    }

    /// A `std::vector<std::string>` per entry.
    pub fn vector_of_strings(name: &str) -> Self {
        Self::element(name, ElementClass::VectorString)
    }

    /// An object of user class `class` per entry, split to `split_level` as ROOT splits
    /// (0: each entry the streamed object; 1 and more: a branch per member, down nested
    /// and base classes for as many levels; ROOT's default is 99). It is filled with a
    /// record of one batch per base class (a record of that class) and then one per data
    /// member.
    pub fn object(name: &str, class: Arc<ClassSpec>, split_level: i32) -> Self {
        BranchSpec {
            name: name.to_string(),
            kind: BranchKind::Object {
                class,
                vector: false,
                split_level,
            },
            title: None,
        }
    }

    /// A `std::vector` of objects of user class `class` per entry, split to
    /// `split_level` (split: a branch of counts and one per member, each entry that
    /// member of every item). It is filled with a list of records.
    pub fn vector_of_objects(name: &str, class: Arc<ClassSpec>, split_level: i32) -> Self {
        BranchSpec {
            name: name.to_string(),
            kind: BranchKind::Object {
                class,
                vector: true,
                split_level,
            },
            title: None,
        }
    }

    fn element(name: &str, class: ElementClass) -> Self {
        BranchSpec {
            name: name.to_string(),
            kind: BranchKind::Element(class),
            title: None,
        }
    }

    /// The branch's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The part of an object branch's layout this branch is, if it is one.
    pub(crate) fn class_part(&self) -> Option<&ClassPart> {
        match &self.kind {
            BranchKind::ClassPart(part) => Some(part),
            _ => None,
        }
    }

    /// Whether the branch's baskets hold entries (the parts that only group sub-branches
    /// have none).
    pub(crate) fn holds_data(&self) -> bool {
        !matches!(self.class_part(), Some(p) if p.source == crate::ttree::write::branches::split::PartSource::Nothing)
    }

    /// The classes whose layouts a file holding this branch carries (its leaves' and, for
    /// objects, `TBranchElement`).
    pub(crate) fn classes(&self) -> Vec<&'static str> {
        match &self.kind {
            BranchKind::Leaves { leaves, .. } => {
                leaves.iter().map(|l| leaf_class(l.leaf, l.long)).collect()
            }
            BranchKind::CharStar => vec!["TLeafC"],
            BranchKind::Element(_) | BranchKind::Object { .. } | BranchKind::ClassPart(_) => {
                vec!["TBranchElement", "TLeafElement"]
            }
        }
    }

    /// The branch counting this one's items, for a counted array.
    pub(crate) fn counter(&self) -> Option<&str> {
        match &self.kind {
            BranchKind::Leaves { counter, .. } => counter.as_deref(),
            _ => None,
        }
    }

    /// The single integer leaf of a scalar branch, which can count another branch's items.
    pub(crate) fn counting_leaf(&self) -> Option<LeafType> {
        match &self.kind {
            BranchKind::Leaves {
                leaves,
                counter: None,
            } if leaves.len() == 1 && leaves[0].dims.is_empty() => {
                Some(leaves[0].leaf).filter(|&l| is_count_type(l))
            }
            _ => None,
        }
    }

    /// Bytes of each entry, for branches whose entries all have the same size.
    pub(crate) fn fixed_entry_bytes(&self) -> Option<usize> {
        match &self.kind {
            BranchKind::Leaves {
                leaves,
                counter: None,
            } => Some(leaves.iter().map(LeafSpec::entry_bytes).sum()),
            BranchKind::ClassPart(part) => part.fixed_entry_bytes(),
            _ => None,
        }
    }

    /// Bytes an entry takes at least (for choosing batch slices).
    pub(crate) fn min_entry_bytes(&self) -> usize {
        self.fixed_entry_bytes().unwrap_or(1)
    }

    /// This branch with title `title` in place of its leaf list (as ROOT's snapshot gives
    /// an array read from a tree the title of the branch it was read from).
    pub(crate) fn with_title(self, title: &str) -> Self {
        BranchSpec {
            title: Some(title.to_string()),
            ..self
        }
    }

    /// The branch's title: its own if given, else its leaf list (`x[3]/F`, `x/F:y/I`), or
    /// its name for objects.
    pub(crate) fn branch_title(&self) -> String {
        if let Some(title) = &self.title {
            return title.clone();
        }
        match &self.kind {
            BranchKind::Leaves { leaves, counter } => leaves
                .iter()
                .map(|l| {
                    format!(
                        "{}/{}",
                        leaf_title(l, counter.as_deref()),
                        leaf_letter(l.leaf, l.long)
                    )
                })
                .collect::<Vec<_>>()
                .join(":"),
            BranchKind::CharStar => format!("{}/C", self.name),
            BranchKind::ClassPart(part) => part.title.clone(),
            BranchKind::Element(_) | BranchKind::Object { .. } => self.name.clone(),
        }
    }

    /// The dimensions a leaf's name carries, all non-zero; the names of a leaf list's
    /// leaves distinct.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.name.is_empty() || self.name.contains(['/', ':', '[', ']']) {
            return Err(format!("branch name {:?}", self.name));
        }
        if let BranchKind::Object { class, vector, .. } = &self.kind {
            class
                .check()
                .map_err(|e| format!("branch {}: {e}", self.name))?;
            if *vector && class.holds_objects() {
                return Err(format!(
                    "branch {}: a std::vector of {} (a class holding a std::vector of a class \
                     itself) is not written",
                    self.name, class.name
                ));
            }
        }
        if let BranchKind::Leaves { leaves, .. } = &self.kind {
            if leaves.is_empty() {
                return Err(format!("branch {}: a leaf list of no leaves", self.name));
            }
            for (i, l) in leaves.iter().enumerate() {
                if l.dims.contains(&0) {
                    return Err(format!("branch {}: an array dimension of 0", self.name));
                }
                let bad = l.name.is_empty() || l.name.contains(['/', ':', '[', ']']);
                if bad || leaves[..i].iter().any(|o| o.name == l.name) {
                    return Err(format!(
                        "branch {}: leaf name {:?} is not usable or repeated",
                        self.name, l.name
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A leaf's title: its name with the counter and dimensions (`x[n][3]`).
pub(crate) fn leaf_title(leaf: &LeafSpec, counter: Option<&str>) -> String {
    let counter = counter.map(|c| format!("[{c}]"));
    let dims: String = leaf.dims.iter().map(|d| format!("[{d}]")).collect();
    format!("{}{}{dims}", leaf.name, counter.unwrap_or_default())
}

/// Whether branches of `leaf` values can count another branch's items.
pub(crate) fn is_count_type(leaf: LeafType) -> bool {
    !matches!(leaf, LeafType::Bool | LeafType::Float32 | LeafType::Float64)
}

/// ROOT's leaf class for values of `leaf` (`long`: a 64-bit integer of C++'s `long`).
pub(crate) fn leaf_class(leaf: LeafType, long: bool) -> &'static str {
    match leaf {
        LeafType::Int64 | LeafType::UInt64 if long => "TLeafG",
        LeafType::Bool => "TLeafO",
        LeafType::Int8 | LeafType::UInt8 => "TLeafB",
        LeafType::Int16 | LeafType::UInt16 => "TLeafS",
        LeafType::Int32 | LeafType::UInt32 => "TLeafI",
        LeafType::Int64 | LeafType::UInt64 => "TLeafL",
        LeafType::Float32 => "TLeafF",
        LeafType::Float64 => "TLeafD",
    }
}

/// The type letter of a leaf list (`/I`, `/i`, ...; `long`: `/G`, `/g` for C++'s `long`).
pub(crate) fn leaf_letter(leaf: LeafType, long: bool) -> char {
    match leaf {
        LeafType::Int64 if long => 'G',
        LeafType::UInt64 if long => 'g',
        LeafType::Bool => 'O',
        LeafType::Int8 => 'B',
        LeafType::UInt8 => 'b',
        LeafType::Int16 => 'S',
        LeafType::UInt16 => 's',
        LeafType::Int32 => 'I',
        LeafType::UInt32 => 'i',
        LeafType::Int64 => 'L',
        LeafType::UInt64 => 'l',
        LeafType::Float32 => 'F',
        LeafType::Float64 => 'D',
    }
}

/// The C++ name ROOT gives values of `leaf` inside class names (`vector<Long64_t>`).
pub(crate) fn cpp_name(leaf: LeafType) -> &'static str {
    match leaf {
        LeafType::Bool => "bool",
        LeafType::Int8 => "char",
        LeafType::UInt8 => "unsigned char",
        LeafType::Int16 => "short",
        LeafType::UInt16 => "unsigned short",
        LeafType::Int32 => "int",
        LeafType::UInt32 => "unsigned int",
        LeafType::Int64 => "Long64_t",
        LeafType::UInt64 => "ULong64_t",
        LeafType::Float32 => "float",
        LeafType::Float64 => "double",
    }
}

/// The C++ name of a 64-bit integer of C++'s `long` inside class names (`vector<long>`).
fn long_name(leaf: LeafType) -> &'static str {
    match is_unsigned(leaf) {
        true => "unsigned long",
        false => "long",
    }
}

/// Whether `leaf` is an unsigned integer type.
pub(crate) fn is_unsigned(leaf: LeafType) -> bool {
    matches!(
        leaf,
        LeafType::UInt8 | LeafType::UInt16 | LeafType::UInt32 | LeafType::UInt64
    )
}

/// ROOT's checksum of a class known only by its name (an STL collection): each byte of
/// the name added to three times the sum so far.
pub(crate) fn name_checksum(name: &str) -> u32 {
    name.bytes()
        .fold(0u32, |id, c| id.wrapping_mul(3).wrapping_add(c as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_of_its_own_replaces_the_leaf_list() {
        let pt = BranchSpec::counted("Jet_pt", LeafType::Float32, "nJet", &[]);
        assert_eq!(pt.branch_title(), "Jet_pt[nJet]/F");
        let documented = pt.with_title("pt");
        assert_eq!(documented.branch_title(), "pt");
        assert_eq!(documented.classes(), ["TLeafF"]);
    }

    #[test]
    fn longs_are_named_as_root_names_them() {
        // A `std::size_t` as ROOT's Snapshot writes it: `n/g`, a `TLeafG`.
        let n = BranchSpec::scalar("n", LeafType::UInt64).into_long();
        assert_eq!(n.branch_title(), "n/g");
        assert_eq!(n.classes(), ["TLeafG"]);
        let m = BranchSpec::counted("m", LeafType::Int64, "k", &[]).into_long();
        assert_eq!(m.branch_title(), "m[k]/G");
        let v = BranchSpec::vector("v", LeafType::UInt64).into_long();
        let vv = BranchSpec::vector_of_vectors("w", LeafType::Int64).into_long();
        let class = |b: &BranchSpec| match &b.kind {
            BranchKind::Element(c) => c.class_name(),
            _ => String::new(),
        };
        assert_eq!(class(&v), "vector<unsigned long>");
        assert_eq!(class(&vv), "vector<vector<long> >");
        // Other types stay as they are; without it, 64-bit integers are `Long64_t`s.
        let f = BranchSpec::scalar("f", LeafType::Float64).into_long();
        assert_eq!(f.branch_title(), "f/D");
        let l = BranchSpec::scalar("l", LeafType::UInt64);
        assert_eq!(
            (l.branch_title(), l.classes()),
            ("l/l".into(), vec!["TLeafL"])
        );
        let u = BranchSpec::vector("u", LeafType::UInt32).into_long();
        assert_eq!(class(&u), "vector<unsigned int>");
        // Sets, lists and deques keep their class, with `long` as C++ names it.
        let s = BranchSpec::collection("s", LeafType::Int64, StdCollection::Set);
        assert_eq!(class(&s), "set<Long64_t>");
        assert_eq!(class(&s.into_long()), "set<long>");
        let d = BranchSpec::collection("d", LeafType::Int16, StdCollection::Deque).into_long();
        assert_eq!(class(&d), "deque<short>");
        let t = BranchSpec::collection_of_strings("t", StdCollection::UnorderedSet);
        assert_eq!(class(&t), "unordered_set<string>");
    }
}
