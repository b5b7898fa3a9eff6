//! Which branches are read in bulk and how their values are laid out.

use crate::array::LeafType;
use crate::ttree::interpretation::{Header, Interpretation, Prim};

/// How a branch read in bulk is laid out.
#[derive(Debug, Clone, PartialEq)]
pub struct BulkPlan {
    /// The value type.
    pub(super) prim: Prim,
    /// Dimensions of each entry (fixed) or each item (jagged).
    pub(super) dims: Vec<usize>,
    /// Entries hold varying numbers of items.
    pub(super) jagged: bool,
    /// Jagged entries each start with a vector header (byte count, version, length).
    pub(super) vector: bool,
}

/// Bytes of the header in front of each entry of a `std::vector` branch.
pub(super) const VECTOR_HEADER: usize = 10;

impl BulkPlan {
    /// The bulk layout of an interpretation, if it has one: fixed-size entries,
    /// counter-indexed arrays or `std::vector`s of plain numbers.
    pub fn of(interp: &Interpretation) -> Option<BulkPlan> {
        let plain = |p: &Prim| !matches!(p, Prim::Double32(_) | Prim::Float16(_));
        match interp {
            Interpretation::Fixed { prim, dims } if plain(prim) => Some(BulkPlan {
                prim: *prim,
                dims: dims.clone(),
                jagged: false,
                vector: false,
            }),
            Interpretation::Jagged {
                prim,
                inner,
                header: header @ (Header::None | Header::Vector),
            } if plain(prim) => Some(BulkPlan {
                prim: *prim,
                dims: inner.clone(),
                jagged: true,
                vector: *header == Header::Vector,
            }),
            _ => None,
        }
    }

    /// Values per entry (fixed) or per item (jagged).
    pub(super) fn width(&self) -> usize {
        self.dims.iter().product()
    }

    /// Bytes per entry (fixed) or per item (jagged).
    pub(super) fn unit_bytes(&self) -> usize {
        self.prim.size() * self.width()
    }

    pub(super) fn leaf(&self) -> LeafType {
        match self.prim {
            Prim::Bool => LeafType::Bool,
            Prim::I8 => LeafType::Int8,
            Prim::U8 => LeafType::UInt8,
            Prim::I16 => LeafType::Int16,
            Prim::U16 => LeafType::UInt16,
            Prim::I32 => LeafType::Int32,
            Prim::U32 => LeafType::UInt32,
            Prim::I64 => LeafType::Int64,
            Prim::U64 => LeafType::UInt64,
            Prim::F32 => LeafType::Float32,
            Prim::F64 | Prim::Double32(_) | Prim::Float16(_) => LeafType::Float64,
        }
    }
}
