//! The schema of an RNTuple: fields with C++ types, and how they map to the on-disk
//! field and column records.

use crate::array::StdCollection;
use crate::error::{Error, Result};

use crate::rntuple::format::ColumnType;

/// The C++ type of a field.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldType {
    /// `bool`
    Bool,
    /// `std::int8_t`
    Int8,
    /// `char`: 8-bit characters in a `Char` column, the field type ROOT gives `char` and
    /// `Char_t` (the values of an [`Int8`](FieldType::Int8) field, under C++'s other name).
    Char,
    /// `std::int16_t`
    Int16,
    /// `std::int32_t`
    Int32,
    /// `std::int64_t`
    Int64,
    /// `std::uint8_t`
    UInt8,
    /// `std::uint16_t`
    UInt16,
    /// `std::uint32_t`
    UInt32,
    /// `std::uint64_t`
    UInt64,
    /// `float`
    Float32,
    /// `double`
    Float64,
    /// `std::string`
    String,
    /// `std::vector<T>`
    Vector(Box<FieldType>),
    /// `ROOT::VecOps::RVec<T>`: on disk as `std::vector<T>`, the type RDataFrame's lists
    /// have (its snapshots write them so).
    RVec(Box<FieldType>),
    /// `std::array<T, N>`
    Array(Box<FieldType>, usize),
    /// A standard collection other than a vector (`std::set<T>`, `std::multiset<T>`, ...):
    /// the same columns as a `std::vector<T>`, its own type name, as ROOT writes such a
    /// member or snapshot column. RNTuples take the sets ([`StdCollection::in_rntuple`]).
    /// Items are written as given: ROOT reading a set inserts them, so repeats collapse.
    Collection(StdCollection, Box<FieldType>),
    /// `std::optional<T>`
    Optional(Box<FieldType>),
    /// `std::pair<T1, T2>`
    Pair(Box<FieldType>, Box<FieldType>),
    /// `std::tuple<T...>`
    Tuple(Vec<FieldType>),
    /// A record: a C++ class or struct with a dictionary (`type_name` set), or an untyped
    /// record (`type_name` empty) that ROOT reads without any dictionary.
    Record {
        /// The C++ class name, or empty for an untyped record.
        type_name: String,
        /// The class version ROOT's dictionary has (0 for untyped records).
        type_version: u32,
        /// The members, in order.
        fields: Vec<Field>,
    },
    /// An untyped collection (no C++ type name): ROOT's representation of a collection of
    /// records without a dictionary, as its importer writes NanoAOD's `Muon_*` branches.
    /// The item is usually an untyped record.
    UntypedCollection(Box<FieldType>),
}

/// A named field of a given type.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The field name (non-empty, no `.`, `/`, `\`, space or control characters).
    pub name: String,
    /// The field's type.
    pub ty: FieldType,
}

impl Field {
    /// A field named `name` of type `ty`.
    pub fn new(name: impl Into<String>, ty: FieldType) -> Self {
        Field {
            name: name.into(),
            ty,
        }
    }
}

impl FieldType {
    /// The number type this field holds, if it is a number (`bool`, an integer or a
    /// floating-point type): the element type both formats share.
    pub fn number(&self) -> Option<crate::array::LeafType> {
        use crate::array::LeafType;
        Some(match self {
            FieldType::Bool => LeafType::Bool,
            FieldType::Int8 | FieldType::Char => LeafType::Int8,
            FieldType::Int16 => LeafType::Int16,
            FieldType::Int32 => LeafType::Int32,
            FieldType::Int64 => LeafType::Int64,
            FieldType::UInt8 => LeafType::UInt8,
            FieldType::UInt16 => LeafType::UInt16,
            FieldType::UInt32 => LeafType::UInt32,
            FieldType::UInt64 => LeafType::UInt64,
            FieldType::Float32 => LeafType::Float32,
            FieldType::Float64 => LeafType::Float64,
            _ => return None,
        })
    }

    /// This type with its `std::int8_t` numbers, alone or in lists and arrays, as `char`s:
    /// how ROOT writes columns of C++ `char`s (`Char_t` leaves, `char` definitions), which
    /// read back as the same values.
    pub fn with_chars(self) -> Self {
        match self {
            FieldType::Int8 => FieldType::Char,
            FieldType::Vector(item) => FieldType::Vector(Box::new(item.with_chars())),
            FieldType::RVec(item) => FieldType::RVec(Box::new(item.with_chars())),
            FieldType::Array(item, n) => FieldType::Array(Box::new(item.with_chars()), n),
            other => other,
        }
    }

    /// `std::vector<item>`.
    pub fn vector(item: FieldType) -> Self {
        FieldType::Vector(Box::new(item))
    }

    /// `std::array<item, n>`.
    pub fn array(item: FieldType, n: usize) -> Self {
        FieldType::Array(Box::new(item), n)
    }

    /// `std::optional<item>`.
    pub fn optional(item: FieldType) -> Self {
        FieldType::Optional(Box::new(item))
    }

    /// `std::pair<first, second>`.
    pub fn pair(first: FieldType, second: FieldType) -> Self {
        FieldType::Pair(Box::new(first), Box::new(second))
    }

    /// An untyped record with the given members.
    pub fn untyped_record(fields: Vec<Field>) -> Self {
        FieldType::Record {
            type_name: String::new(),
            type_version: 0,
            fields,
        }
    }

    /// A record of a C++ class that has a dictionary.
    pub fn class(type_name: impl Into<String>, type_version: u32, fields: Vec<Field>) -> Self {
        FieldType::Record {
            type_name: type_name.into(),
            type_version,
            fields,
        }
    }

    /// An untyped collection of `item` (usually an untyped record).
    pub fn untyped_collection(item: FieldType) -> Self {
        FieldType::UntypedCollection(Box::new(item))
    }

    /// The normalized C++ type name ROOT stores (empty for untyped records/collections).
    pub fn type_name(&self) -> String {
        match self {
            FieldType::Bool => "bool".into(),
            FieldType::Int8 => "std::int8_t".into(),
            FieldType::Char => "char".into(),
            FieldType::Int16 => "std::int16_t".into(),
            FieldType::Int32 => "std::int32_t".into(),
            FieldType::Int64 => "std::int64_t".into(),
            FieldType::UInt8 => "std::uint8_t".into(),
            FieldType::UInt16 => "std::uint16_t".into(),
            FieldType::UInt32 => "std::uint32_t".into(),
            FieldType::UInt64 => "std::uint64_t".into(),
            FieldType::Float32 => "float".into(),
            FieldType::Float64 => "double".into(),
            FieldType::String => "std::string".into(),
            FieldType::Vector(item) => format!("std::vector<{}>", item.type_name()),
            FieldType::RVec(item) => format!("ROOT::VecOps::RVec<{}>", item.type_name()),
            FieldType::Array(item, n) => format!("std::array<{},{n}>", item.type_name()),
            FieldType::Collection(kind, item) => {
                format!("std::{}<{}>", kind.name(), item.type_name())
            }
            FieldType::Optional(item) => format!("std::optional<{}>", item.type_name()),
            FieldType::Pair(a, b) => format!("std::pair<{},{}>", a.type_name(), b.type_name()),
            FieldType::Tuple(items) => format!(
                "std::tuple<{}>",
                items
                    .iter()
                    .map(FieldType::type_name)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            FieldType::Record { type_name, .. } => type_name.clone(),
            FieldType::UntypedCollection(_) => String::new(),
        }
    }

    /// True for types with an empty type name (which only untyped parents may contain).
    fn is_untyped(&self) -> bool {
        matches!(self, FieldType::UntypedCollection(_))
            || matches!(self, FieldType::Record { type_name, .. } if type_name.is_empty())
    }

    /// The child fields as ROOT names them (`_0`, `_1`, ... or member names).
    pub fn children(&self) -> Vec<Field> {
        match self {
            FieldType::Vector(item)
            | FieldType::RVec(item)
            | FieldType::Collection(_, item)
            | FieldType::Array(item, _)
            | FieldType::Optional(item)
            | FieldType::UntypedCollection(item) => vec![Field::new("_0", (**item).clone())],
            FieldType::Pair(a, b) => vec![
                Field::new("_0", (**a).clone()),
                Field::new("_1", (**b).clone()),
            ],
            FieldType::Tuple(items) => items
                .iter()
                .enumerate()
                .map(|(i, t)| Field::new(format!("_{i}"), t.clone()))
                .collect(),
            FieldType::Record { fields, .. } => fields.clone(),
            _ => Vec::new(),
        }
    }

    /// The structural role written in the field record.
    pub fn role(&self) -> StructuralRole {
        match self {
            FieldType::Vector(_)
            | FieldType::RVec(_)
            | FieldType::Collection(..)
            | FieldType::Optional(_)
            | FieldType::UntypedCollection(_) => StructuralRole::Collection,
            FieldType::Pair(..) | FieldType::Tuple(_) | FieldType::Record { .. } => {
                StructuralRole::Record
            }
            _ => StructuralRole::Leaf,
        }
    }

    /// The column types of this field (not of its children), as ROOT 6.40 chooses them:
    /// split encodings when the data is compressed, plain ones otherwise.
    pub fn column_types(&self, split: bool) -> Vec<ColumnType> {
        use ColumnType as C;
        let pick = |s: C, p: C| if split { s } else { p };
        match self {
            FieldType::Bool => vec![C::Bit],
            FieldType::Int8 => vec![C::Int8],
            FieldType::Char => vec![C::Char],
            FieldType::UInt8 => vec![C::UInt8],
            FieldType::Int16 => vec![pick(C::SplitInt16, C::Int16)],
            FieldType::UInt16 => vec![pick(C::SplitUInt16, C::UInt16)],
            FieldType::Int32 => vec![pick(C::SplitInt32, C::Int32)],
            FieldType::UInt32 => vec![pick(C::SplitUInt32, C::UInt32)],
            FieldType::Int64 => vec![pick(C::SplitInt64, C::Int64)],
            FieldType::UInt64 => vec![pick(C::SplitUInt64, C::UInt64)],
            FieldType::Float32 => vec![pick(C::SplitReal32, C::Real32)],
            FieldType::Float64 => vec![pick(C::SplitReal64, C::Real64)],
            FieldType::String => vec![pick(C::SplitIndex64, C::Index64), C::Char],
            FieldType::Vector(_)
            | FieldType::RVec(_)
            | FieldType::Collection(..)
            | FieldType::Optional(_)
            | FieldType::UntypedCollection(_) => {
                vec![pick(C::SplitIndex64, C::Index64)]
            }
            _ => Vec::new(),
        }
    }
}

/// The structural role of a field record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u16)]
pub enum StructuralRole {
    /// A field with (at most) value columns.
    Leaf = 0,
    /// A collection with an offset column and one child.
    Collection = 1,
    /// A record with member children and no columns.
    Record = 2,
    /// A variant with a switch column.
    Variant = 3,
    /// An object stored with ROOT's streamer.
    Streamer = 4,
}

/// A field record as it goes on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDescriptor {
    /// The field ID (position in the field list).
    pub id: u32,
    /// The parent's ID (its own ID for top-level fields).
    pub parent: u32,
    /// The field name.
    pub name: String,
    /// The C++ type name.
    pub type_name: String,
    /// The type version (class version for classes).
    pub type_version: u32,
    /// The structural role.
    pub role: StructuralRole,
    /// `N` for `std::array<T, N>` (written with the repetitive-field flag).
    pub array_size: Option<u64>,
    /// The full type of this field.
    pub ty: FieldType,
}

/// A column record as it goes on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnDescriptor {
    /// The column ID (position in the column list).
    pub id: u32,
    /// The on-disk type.
    pub ty: ColumnType,
    /// The field the column belongs to.
    pub field: u32,
}

/// A projected field: a read-only view, under a name of its own, of columns another
/// field stores (no data of its own). ROOT's RNTupleImporter gives each member of a
/// NanoAOD collection one (`Muon_pt` as `ROOT::VecOps::RVec<float>` over
/// `_collection0._0.Muon_pt`) and each counter another (`nMuon`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projection {
    /// The projected field's name (a top-level field).
    pub name: String,
    /// What it shows.
    pub kind: ProjectionKind,
}

/// What a [`Projection`] shows of a top-level collection field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectionKind {
    /// `ROOT::VecOps::RVec<T>` of the number member `member` of the untyped record that
    /// the untyped collection `collection` holds.
    Member {
        /// The top-level untyped collection.
        collection: String,
        /// The member of its item record.
        member: String,
    },
    /// `ROOT::RNTupleCardinality<std::uint32_t>`: the number of items of the collection
    /// `collection` in each entry.
    Cardinality {
        /// The top-level collection.
        collection: String,
    },
}

/// A projected field record: its field record, the field its values come from, and the
/// physical columns it aliases.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectedDescriptor {
    /// The field record (`id` after every stored field).
    pub field: FieldDescriptor,
    /// The ID of the field whose columns it shows.
    pub source: u32,
    /// The IDs of the physical columns it aliases, in order.
    pub aliases: Vec<u32>,
}

/// A validated schema with its flattened field and column lists.
#[derive(Debug, Clone)]
pub struct Schema {
    fields: Vec<Field>,
    field_descriptors: Vec<FieldDescriptor>,
    column_descriptors: Vec<ColumnDescriptor>,
    projected: Vec<ProjectedDescriptor>,
}

impl Schema {
    /// Validates `fields` (names, nesting) and lays out field and column records in ROOT's
    /// order (depth first, parents before children; columns in field order).
    /// `split` selects the split column encodings (used when data is compressed).
    pub fn new(fields: Vec<Field>, split: bool) -> Result<Self> {
        let mut seen = std::collections::HashSet::new();
        for field in &fields {
            if !seen.insert(field.name.as_str()) {
                return Err(Error::InvalidArgument(format!(
                    "duplicate field name '{}'",
                    field.name
                )));
            }
        }
        let mut schema = Schema {
            fields,
            field_descriptors: Vec::new(),
            column_descriptors: Vec::new(),
            projected: Vec::new(),
        };
        let fields = schema.fields.clone();
        for field in &fields {
            schema.add_field(field, None, split, &field.name)?;
        }
        Ok(schema)
    }

    fn add_field(
        &mut self,
        field: &Field,
        parent: Option<u32>,
        split: bool,
        path: &str,
    ) -> Result<()> {
        validate_name(&field.name, path)?;
        let id = self.field_descriptors.len() as u32;
        let type_version = match &field.ty {
            FieldType::Record { type_version, .. } => *type_version,
            _ => 0,
        };
        let array_size = match &field.ty {
            FieldType::Array(_, n) => {
                if *n == 0 {
                    return Err(Error::InvalidArgument(format!(
                        "field '{path}': std::array of size 0"
                    )));
                }
                Some(*n as u64)
            }
            _ => None,
        };
        if let FieldType::Collection(kind, _) = &field.ty {
            if !kind.in_rntuple() {
                return Err(Error::InvalidArgument(format!(
                    "field '{path}': ROOT's RNTuple has no field for a std::{} (a std::vector \
                     holds the same items)",
                    kind.name()
                )));
            }
        }
        let children = field.ty.children();
        let typed_parent = !field.ty.is_untyped();
        for child in &children {
            if typed_parent && child.ty.is_untyped() {
                return Err(Error::InvalidArgument(format!(
                    "field '{path}': a typed {} cannot hold an untyped record or collection",
                    field.ty.type_name()
                )));
            }
        }
        if let FieldType::Record { fields, .. } = &field.ty {
            let mut names = std::collections::HashSet::new();
            for f in fields {
                if !names.insert(f.name.as_str()) {
                    return Err(Error::InvalidArgument(format!(
                        "field '{path}': duplicate member '{}'",
                        f.name
                    )));
                }
            }
        }
        self.field_descriptors.push(FieldDescriptor {
            id,
            parent: parent.unwrap_or(id),
            name: field.name.clone(),
            type_name: field.ty.type_name(),
            type_version,
            role: field.ty.role(),
            array_size,
            ty: field.ty.clone(),
        });
        for ty in field.ty.column_types(split) {
            let column_id = self.column_descriptors.len() as u32;
            self.column_descriptors.push(ColumnDescriptor {
                id: column_id,
                ty,
                field: id,
            });
        }
        for child in &children {
            self.add_field(child, Some(id), split, &format!("{path}.{}", child.name))?;
        }
        Ok(())
    }

    /// The top-level fields.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// All field records, depth first.
    pub fn field_descriptors(&self) -> &[FieldDescriptor] {
        &self.field_descriptors
    }

    /// All column records.
    pub fn column_descriptors(&self) -> &[ColumnDescriptor] {
        &self.column_descriptors
    }

    /// The projected field records, which follow the stored ones.
    pub fn projected(&self) -> &[ProjectedDescriptor] {
        &self.projected
    }

    /// Adds projected fields over this schema's top-level collections (see
    /// [`Projection`]); their names must differ from every top-level field's.
    pub fn with_projections(mut self, projections: &[Projection]) -> Result<Self> {
        for p in projections {
            validate_name(&p.name, &p.name)?;
            let taken = self.fields.iter().any(|f| f.name == p.name)
                || self.projected.iter().any(|d| d.field.name == p.name);
            if taken {
                return Err(Error::InvalidArgument(format!(
                    "projected field '{}': the name is taken",
                    p.name
                )));
            }
            self.add_projection(p)?;
        }
        Ok(self)
    }

    fn add_projection(&mut self, p: &Projection) -> Result<()> {
        let collection_name = match &p.kind {
            ProjectionKind::Member { collection, .. }
            | ProjectionKind::Cardinality { collection } => collection,
        };
        let bad =
            |why: &str| Error::InvalidArgument(format!("projected field '{}': {why}", p.name));
        let collection = self
            .field_descriptors
            .iter()
            .find(|f| f.parent == f.id && &f.name == collection_name)
            .filter(|f| f.role == StructuralRole::Collection)
            .ok_or_else(|| bad(&format!("no top-level collection '{collection_name}'")))?;
        let offsets = self
            .first_column(collection.id)
            .ok_or_else(|| bad("no offsets"))?;
        let id = (self.field_descriptors.len() + self.projected_fields()) as u32;
        let leaf =
            |id: u32, parent: u32, name: &str, type_name: String, ty: FieldType| FieldDescriptor {
                id,
                parent,
                name: name.to_string(),
                type_name,
                type_version: 0,
                role: StructuralRole::Leaf,
                array_size: None,
                ty,
            };
        match &p.kind {
            ProjectionKind::Cardinality { .. } => {
                let type_name = "ROOT::RNTupleCardinality<std::uint32_t>".to_string();
                self.projected.push(ProjectedDescriptor {
                    field: leaf(id, id, &p.name, type_name, FieldType::UInt32),
                    source: collection.id,
                    aliases: vec![offsets],
                });
            }
            ProjectionKind::Member { member, .. } => {
                let record = self
                    .field_descriptors
                    .iter()
                    .find(|f| f.parent == collection.id && f.id != collection.id)
                    .filter(|f| f.role == StructuralRole::Record)
                    .ok_or_else(|| bad("the collection holds no record"))?;
                let item = self
                    .field_descriptors
                    .iter()
                    .find(|f| f.parent == record.id && f.id != record.id && &f.name == member)
                    .filter(|f| f.ty.number().is_some())
                    .ok_or_else(|| bad(&format!("no number member '{member}'")))?
                    .clone();
                let values = self.first_column(item.id).ok_or_else(|| bad("no values"))?;
                let mut vector = leaf(
                    id,
                    id,
                    &p.name,
                    format!("ROOT::VecOps::RVec<{}>", item.type_name),
                    FieldType::vector(item.ty.clone()),
                );
                vector.role = StructuralRole::Collection;
                let (collection_id, item_id) = (collection.id, item.id);
                self.projected.push(ProjectedDescriptor {
                    field: vector,
                    source: collection_id,
                    aliases: vec![offsets],
                });
                self.projected.push(ProjectedDescriptor {
                    field: leaf(id + 1, id, "_0", item.type_name.clone(), item.ty),
                    source: item_id,
                    aliases: vec![values],
                });
            }
        }
        Ok(())
    }

    /// The number of projected field records so far.
    fn projected_fields(&self) -> usize {
        self.projected.len()
    }

    /// The first physical column of field `id`.
    fn first_column(&self, id: u32) -> Option<u32> {
        self.column_descriptors
            .iter()
            .find(|c| c.field == id)
            .map(|c| c.id)
    }
}

fn validate_name(name: &str, path: &str) -> Result<()> {
    let bad = name.is_empty()
        || name
            .chars()
            .any(|c| c.is_control() || matches!(c, '.' | ' ' | '\\' | '/'));
    if bad {
        return Err(Error::InvalidArgument(format!(
            "field name '{path}' is empty or contains '.', '/', '\\', a space or a control \
             character"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_match_root() {
        assert_eq!(
            FieldType::vector(FieldType::vector(FieldType::Int32)).type_name(),
            "std::vector<std::vector<std::int32_t>>"
        );
        assert_eq!(
            FieldType::array(FieldType::Float32, 3).type_name(),
            "std::array<float,3>"
        );
        assert_eq!(
            FieldType::Tuple(vec![
                FieldType::Int32,
                FieldType::Float32,
                FieldType::String
            ])
            .type_name(),
            "std::tuple<std::int32_t,float,std::string>"
        );
        assert_eq!(
            FieldType::pair(FieldType::Int64, FieldType::Float64).type_name(),
            "std::pair<std::int64_t,double>"
        );
        let set =
            FieldType::Collection(StdCollection::UnorderedMultiSet, Box::new(FieldType::Int64));
        assert_eq!(set.type_name(), "std::unordered_multiset<std::int64_t>");
        assert_eq!(set.role(), StructuralRole::Collection);
        assert_eq!(set.children(), vec![Field::new("_0", FieldType::Int64)]);
    }

    #[test]
    fn layout_is_depth_first_with_columns_in_field_order() {
        let schema = Schema::new(
            vec![
                Field::new("x", FieldType::Int32),
                Field::new("vv", FieldType::vector(FieldType::vector(FieldType::Int32))),
                Field::new(
                    "Muon",
                    FieldType::untyped_collection(FieldType::untyped_record(vec![
                        Field::new("pt", FieldType::Float32),
                        Field::new("name", FieldType::String),
                    ])),
                ),
            ],
            true,
        )
        .unwrap();
        let f: Vec<(u32, &str, u32)> = schema
            .field_descriptors()
            .iter()
            .map(|d| (d.id, d.name.as_str(), d.parent))
            .collect();
        assert_eq!(
            f,
            [
                (0, "x", 0),
                (1, "vv", 1),
                (2, "_0", 1),
                (3, "_0", 2),
                (4, "Muon", 4),
                (5, "_0", 4),
                (6, "pt", 5),
                (7, "name", 5)
            ]
        );
        let c: Vec<(ColumnType, u32)> = schema
            .column_descriptors()
            .iter()
            .map(|c| (c.ty, c.field))
            .collect();
        use ColumnType::*;
        assert_eq!(
            c,
            [
                (SplitInt32, 0),
                (SplitIndex64, 1),
                (SplitIndex64, 2),
                (SplitInt32, 3),
                (SplitIndex64, 4),
                (SplitReal32, 6),
                (SplitIndex64, 7),
                (Char, 7)
            ]
        );
    }

    #[test]
    fn bad_schemas_are_refused() {
        let bad = |fields| Schema::new(fields, true).is_err();
        assert!(bad(vec![Field::new("a.b", FieldType::Int32)]));
        assert!(bad(vec![Field::new("", FieldType::Int32)]));
        assert!(bad(vec![
            Field::new("a", FieldType::Int32),
            Field::new("a", FieldType::Float32)
        ]));
        assert!(bad(vec![Field::new(
            "v",
            FieldType::vector(FieldType::untyped_record(vec![]))
        )]));
        assert!(bad(vec![Field::new(
            "a",
            FieldType::array(FieldType::Int32, 0)
        )]));
        // ROOT's RNTuple has no lists or deques; sets are fields.
        let collection = |kind| {
            vec![Field::new(
                "c",
                FieldType::Collection(kind, Box::new(FieldType::Float64)),
            )]
        };
        assert!(bad(collection(StdCollection::List)));
        assert!(bad(collection(StdCollection::Deque)));
        assert!(!bad(collection(StdCollection::MultiSet)));
    }

    fn muons() -> Vec<Field> {
        let record = FieldType::untyped_record(vec![
            Field::new("Muon_pt", FieldType::Float32),
            Field::new("Muon_tags", FieldType::vector(FieldType::Int32)),
        ]);
        vec![
            Field::new("run", FieldType::UInt32),
            Field::new("_collection0", FieldType::untyped_collection(record)),
        ]
    }

    #[test]
    fn projections_alias_the_collections_columns() {
        let member = Projection {
            name: "Muon_pt".into(),
            kind: ProjectionKind::Member {
                collection: "_collection0".into(),
                member: "Muon_pt".into(),
            },
        };
        let count = Projection {
            name: "nMuon".into(),
            kind: ProjectionKind::Cardinality {
                collection: "_collection0".into(),
            },
        };
        let schema = Schema::new(muons(), true)
            .unwrap()
            .with_projections(&[member.clone(), count])
            .unwrap();
        // Stored: run 0, _collection0 1, _0 2, Muon_pt 3, Muon_tags 4, its _0 5.
        let p = schema.projected();
        let summary: Vec<_> = p
            .iter()
            .map(|d| {
                (
                    d.field.id,
                    d.field.parent,
                    d.field.name.as_str(),
                    d.source,
                    d.aliases.clone(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (6, 6, "Muon_pt", 1, vec![1]),
                (7, 6, "_0", 3, vec![2]),
                (8, 8, "nMuon", 1, vec![1]),
            ]
        );
        assert_eq!(p[0].field.type_name, "ROOT::VecOps::RVec<float>");
        assert_eq!(p[0].field.role, StructuralRole::Collection);
        assert_eq!(
            p[2].field.type_name,
            "ROOT::RNTupleCardinality<std::uint32_t>"
        );
        let refused = |projection: Projection| {
            Schema::new(muons(), true)
                .unwrap()
                .with_projections(&[projection])
                .is_err()
        };
        let member_of = |collection: &str, m: &str| Projection {
            name: "x".into(),
            kind: ProjectionKind::Member {
                collection: collection.into(),
                member: m.into(),
            },
        };
        assert!(refused(member_of("run", "Muon_pt")), "not a collection");
        assert!(refused(member_of("_collection0", "nothing")), "no member");
        assert!(
            refused(member_of("_collection0", "Muon_tags")),
            "not a number"
        );
        assert!(
            refused(Projection {
                name: "run".into(),
                ..member
            }),
            "name taken"
        );
    }
}
