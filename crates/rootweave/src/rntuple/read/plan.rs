//! How a stored field is read: its kind (leaf of some type, list, record, ...), the
//! column slots it reads and its subfields, derived from the field records, and checked
//! before any data is read. A field that cannot be interpreted gets a reason naming it.

use super::decode::ColumnCodec;
use super::descriptor::{Descriptor, FieldRecord, Role};
use crate::array::LeafType;
use crate::rntuple::format::ColumnType;

/// One column slot of a field: the physical column per representation.
#[derive(Debug, Clone)]
pub struct Slot {
    /// Physical column IDs, one per representation (index = representation index).
    pub representations: Vec<u32>,
}

/// What a field is read as.
#[derive(Debug, Clone)]
pub enum Kind {
    /// Values of a fundamental type (slot 0).
    Leaf(LeafType),
    /// `std::string`: offsets (slot 0) and characters (slot 1).
    String,
    /// Collection sizes of a projected `ROOT::RNTupleCardinality<T>` (slot 0).
    Cardinality(LeafType),
    /// Offsets (slot 0) and one child: vectors, sets, maps, untyped collections.
    List(Box<Node>),
    /// `std::optional` / `std::unique_ptr`: offsets (slot 0) and one child.
    Optional(Box<Node>),
    /// `std::array<T, N>`: N items of the child per entry.
    Fixed(usize, Box<Node>),
    /// `std::bitset<N>`: N bits per entry (slot 0).
    Bitset(usize),
    /// Records: members.
    Record(Vec<Node>),
    /// A transparent wrapper (enum, `std::atomic`): the child's values.
    Wrapper(Box<Node>),
    /// `std::variant`: switch column (slot 0) and one child per alternative.
    Variant(Vec<Node>),
    /// A streamed object: offsets (slot 0) and bytes (slot 1) of its ROOT streaming.
    Streamer,
}

/// A field as it is read.
#[derive(Debug, Clone)]
pub struct Node {
    /// The field ID.
    pub field: u32,
    /// The field name.
    pub name: String,
    /// The C++ type name (empty for untyped records and collections).
    pub type_name: String,
    /// What it is read as.
    pub kind: Kind,
    /// Its column slots.
    pub slots: Vec<Slot>,
}

impl Node {
    /// Builds the reading plan of field `id`, or the reason it cannot be read.
    pub(crate) fn build(d: &Descriptor, id: u32) -> Result<Node, String> {
        let f = &d.fields[id as usize];
        let path = || d.field_path(id);
        let slots = slots_of(d, f).map_err(|e| format!("field '{}': {e}", path()))?;
        let child = |i: usize| -> Result<Node, String> {
            let c = *f.children.get(i).ok_or_else(|| {
                format!("field '{}' ({}) lacks subfield {i}", path(), f.type_name)
            })?;
            Node::build(d, c)
        };
        let need_slots = |n: usize, what: &str| -> Result<(), String> {
            if slots.len() != n {
                return Err(format!(
                    "field '{}' ({}): {} columns for a {what}, {n} expected",
                    path(),
                    f.type_name,
                    slots.len()
                ));
            }
            Ok(())
        };
        let kind = match f.role {
            Role::Leaf => {
                let base = f.type_name.as_str();
                if let (Some(n), true) = (f.array_size, base.starts_with("std::bitset<")) {
                    need_slots(1, "bitset")?;
                    Kind::Bitset(n as usize)
                } else if let Some(n) = f.array_size {
                    need_slots(0, "fixed-size array")?;
                    Kind::Fixed(n as usize, Box::new(child(0)?))
                } else if base == "std::string" {
                    need_slots(2, "string")?;
                    Kind::String
                } else if let Some(inner) = base
                    .strip_prefix("ROOT::RNTupleCardinality<")
                    .or_else(|| base.strip_prefix("ROOT::Experimental::RNTupleCardinality<"))
                {
                    need_slots(1, "cardinality")?;
                    let t = LeafType::from_type_name(inner.trim_end_matches('>'))
                        .ok_or_else(|| format!("field '{}': unknown type {base}", path()))?;
                    Kind::Cardinality(t)
                } else if let Some(t) = LeafType::from_type_name(base) {
                    need_slots(1, "value")?;
                    Kind::Leaf(t)
                } else if slots.is_empty() && f.children.len() == 1 {
                    // Enums and std::atomic<T>: the value is the child's.
                    Kind::Wrapper(Box::new(child(0)?))
                } else {
                    return Err(format!(
                        "field '{}': type '{}' is not supported",
                        path(),
                        f.type_name
                    ));
                }
            }
            Role::Collection => {
                need_slots(1, "collection")?;
                if f.children.len() != 1 {
                    return Err(format!(
                        "field '{}' ({}): a collection needs one subfield, found {}",
                        path(),
                        f.type_name,
                        f.children.len()
                    ));
                }
                let item = Box::new(child(0)?);
                let t = f.type_name.as_str();
                if t.starts_with("std::optional<") || t.starts_with("std::unique_ptr<") {
                    Kind::Optional(item)
                } else {
                    Kind::List(item)
                }
            }
            Role::Record => {
                need_slots(0, "record")?;
                let members = (0..f.children.len())
                    .map(child)
                    .collect::<Result<Vec<_>, _>>()?;
                Kind::Record(members)
            }
            Role::Variant => {
                need_slots(1, "variant")?;
                if f.children.len() > 125 {
                    return Err(format!(
                        "field '{}': variant with too many alternatives",
                        path()
                    ));
                }
                let alternatives = (0..f.children.len())
                    .map(child)
                    .collect::<Result<Vec<_>, _>>()?;
                Kind::Variant(alternatives)
            }
            Role::Streamer => {
                need_slots(2, "streamed object")?;
                Kind::Streamer
            }
        };
        let node = Node {
            field: id,
            name: f.name.clone(),
            type_name: f.type_name.clone(),
            kind,
            slots,
        };
        node.check_columns(d)
            .map_err(|e| format!("field '{}' ({}): {e}", path(), f.type_name))?;
        Ok(node)
    }

    /// Checks every representation's column types against the kind.
    fn check_columns(&self, d: &Descriptor) -> Result<(), String> {
        use ColumnType::*;
        let index = |t: ColumnType| matches!(t, Index32 | Index64 | SplitIndex32 | SplitIndex64);
        for (i, slot) in self.slots.iter().enumerate() {
            for &c in &slot.representations {
                let col = &d.columns[c as usize];
                let Some(ty) = col.ty else {
                    return Err(format!("unknown column type {:#x}", col.type_id));
                };
                let codec = d.codec(c);
                let ok = match (&self.kind, i) {
                    (Kind::Leaf(t), _) => check_leaf(*t, &codec).map(|_| true)?,
                    (Kind::Bitset(_), _) => ty == Bit,
                    (Kind::Variant(_), _) => ty == Switch,
                    (Kind::String | Kind::Streamer, 1) => {
                        matches!(ty, Char | Byte | Int8 | UInt8)
                    }
                    _ => index(ty),
                };
                if !ok {
                    return Err(format!("column {c} of type {ty:?} does not fit"));
                }
            }
        }
        Ok(())
    }

    /// The node and its descendants, depth first.
    pub fn walk<'a>(&'a self, visit: &mut impl FnMut(&'a Node)) {
        visit(self);
        match &self.kind {
            Kind::List(c) | Kind::Optional(c) | Kind::Fixed(_, c) | Kind::Wrapper(c) => {
                c.walk(visit)
            }
            Kind::Record(cs) | Kind::Variant(cs) => cs.iter().for_each(|c| c.walk(visit)),
            _ => {}
        }
    }
}

/// Checks that a column can be decoded into a leaf type.
pub(crate) fn check_leaf(t: LeafType, codec: &ColumnCodec) -> Result<(), String> {
    use LeafType::*;
    match t {
        Bool => codec.check_target::<bool>("bool"),
        Int8 => codec.check_target::<i8>("int8"),
        Int16 => codec.check_target::<i16>("int16"),
        Int32 => codec.check_target::<i32>("int32"),
        Int64 => codec.check_target::<i64>("int64"),
        UInt8 => codec.check_target::<u8>("uint8"),
        UInt16 => codec.check_target::<u16>("uint16"),
        UInt32 => codec.check_target::<u32>("uint32"),
        UInt64 => codec.check_target::<u64>("uint64"),
        Float32 => codec.check_target::<f32>("float"),
        Float64 => codec.check_target::<f64>("double"),
    }
}

/// Groups a field's columns into slots: columns of one representation are consecutive,
/// representations in index order, every representation with the same number of columns.
fn slots_of(d: &Descriptor, f: &FieldRecord) -> Result<Vec<Slot>, String> {
    if f.columns.is_empty() {
        return Ok(Vec::new());
    }
    let mut by_rep: Vec<Vec<u32>> = Vec::new();
    for c in &f.columns {
        let rep = d.columns[c.physical as usize].representation as usize;
        if rep > by_rep.len() {
            return Err(format!(
                "representation {rep} without representation {}",
                by_rep.len()
            ));
        }
        if rep == by_rep.len() {
            by_rep.push(Vec::new());
        }
        by_rep[rep].push(c.physical);
    }
    let width = by_rep[0].len();
    if by_rep.iter().any(|r| r.len() != width) {
        return Err("representations with different numbers of columns".into());
    }
    Ok((0..width)
        .map(|i| Slot {
            representations: by_rep.iter().map(|r| r[i]).collect(),
        })
        .collect())
}
