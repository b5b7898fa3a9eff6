//! What a branch holds and how its leaf is named and typed: one number type, a fixed
//! number of values per entry, with ROOT's leaf class and type letter for it.

use crate::array::LeafType;

/// A branch of numbers: a scalar, a fixed-size (possibly multidimensional) array, or an
/// array whose length per entry another branch holds (`Muon_pt[nMuon]/F`) per entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchSpec {
    /// The branch (and leaf) name.
    pub name: String,
    /// The number type.
    pub leaf: LeafType,
    /// Array dimensions of each entry, or of each item of a counted array (empty for a
    /// scalar).
    pub dims: Vec<usize>,
    /// The branch holding each entry's number of items (an integer branch before this
    /// one), for a counted array.
    pub counter: Option<String>,
}

impl BranchSpec {
    /// A branch of one `leaf` value per entry.
    pub fn scalar(name: &str, leaf: LeafType) -> Self {
        BranchSpec {
            name: name.to_string(),
            leaf,
            dims: Vec::new(),
            counter: None,
        }
    }

    /// A branch of a fixed-size array per entry (`x[3]/F`, `m[2][3]/D`).
    pub fn array(name: &str, leaf: LeafType, dims: &[usize]) -> Self {
        BranchSpec {
            name: name.to_string(),
            leaf,
            dims: dims.to_vec(),
            counter: None,
        }
    }

    /// A branch of as many items per entry as branch `counter` says, each a value or a
    /// fixed-size array of `dims` (`Muon_pt[nMuon]/F`, `hits[n][3]/D`).
    pub fn counted(name: &str, leaf: LeafType, counter: &str, dims: &[usize]) -> Self {
        BranchSpec {
            name: name.to_string(),
            leaf,
            dims: dims.to_vec(),
            counter: Some(counter.to_string()),
        }
    }

    /// Values per entry (per item, for a counted array).
    pub(crate) fn width(&self) -> usize {
        self.dims.iter().product()
    }

    /// Bytes per entry (per item, for a counted array).
    pub(crate) fn entry_bytes(&self) -> usize {
        self.width() * self.leaf.size()
    }

    /// The leaf's title: its name with the counter and dimensions (`x[n][3]`).
    pub(crate) fn leaf_title(&self) -> String {
        let counter = self.counter.as_ref().map(|c| format!("[{c}]"));
        let dims: String = self.dims.iter().map(|d| format!("[{d}]")).collect();
        format!("{}{}{dims}", self.name, counter.unwrap_or_default())
    }

    /// The branch's title: the leaf list (`x[3]/F`).
    pub(crate) fn branch_title(&self) -> String {
        format!("{}/{}", self.leaf_title(), leaf_letter(self.leaf))
    }
}

/// ROOT's leaf class for values of `leaf`.
pub(crate) fn leaf_class(leaf: LeafType) -> &'static str {
    match leaf {
        LeafType::Bool => "TLeafO",
        LeafType::Int8 | LeafType::UInt8 => "TLeafB",
        LeafType::Int16 | LeafType::UInt16 => "TLeafS",
        LeafType::Int32 | LeafType::UInt32 => "TLeafI",
        LeafType::Int64 | LeafType::UInt64 => "TLeafL",
        LeafType::Float32 => "TLeafF",
        LeafType::Float64 => "TLeafD",
    }
}

/// The type letter of a leaf list (`/I`, `/i`, ...).
pub(crate) fn leaf_letter(leaf: LeafType) -> char {
    match leaf {
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

/// Whether `leaf` is an unsigned integer type.
pub(crate) fn is_unsigned(leaf: LeafType) -> bool {
    matches!(
        leaf,
        LeafType::UInt8 | LeafType::UInt16 | LeafType::UInt32 | LeafType::UInt64
    )
}
