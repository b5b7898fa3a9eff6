//! What a conversion reads and writes: the input fields read, the output fields, and how
//! a batch of the one becomes a batch of the other. Two kinds: each field as it is
//! (RNTuple to TTree or Parquet, TTree to Parquet), and TTree branches as ROOT's
//! RNTupleImporter lays them out (TTree to RNTuple).

use std::collections::BTreeMap;

use crate::array::{Array, ColumnData};
use crate::dataset::{AnyReader, BatchSource};
use crate::error::{Error, Result};
use crate::rntuple::read::{FieldRecord, Role};
use crate::rntuple::{Field, FieldType, Projection, ProjectionKind};
use crate::streamer::type_name::innermost_list_item;
use crate::tree_layout::field_type_of;

/// How one output field's batch is made of the arrays read.
#[derive(Debug, Clone)]
enum Assemble {
    /// The array read at this position, as it is.
    Whole(usize),
    /// An untyped collection of untyped records: the arrays read at these positions are
    /// lists of one length per entry, whose items become the records' members.
    Collection(Vec<usize>),
}

/// The fields a conversion reads and writes, and how batches go from one to the other.
#[derive(Debug, Clone)]
pub struct FieldMap {
    /// The input fields read, in order.
    pub read: Vec<String>,
    /// The output fields.
    pub fields: Vec<Field>,
    /// The output's projected fields (RNTuple output only).
    pub projections: Vec<Projection>,
    /// Input fields left out, each with the reason.
    pub skipped: Vec<(String, String)>,
    /// The counter branch of a list field, where it is not `n<field>` (TTree output).
    pub counters: Vec<(String, String)>,
    assemble: Vec<Assemble>,
}

impl FieldMap {
    /// Every field of `asked` (the reader's default fields if empty) as it is. A default
    /// field whose values no output field type holds is skipped (listed with the reason);
    /// an asked one is an error.
    pub fn plain(reader: &AnyReader, asked: &[String]) -> Result<Self> {
        let (names, types, skipped) = typed_fields(reader, asked)?;
        Ok(FieldMap {
            read: names.clone(),
            assemble: (0..names.len()).map(Assemble::Whole).collect(),
            fields: names
                .into_iter()
                .zip(types)
                .map(|(n, t)| Field::new(n, t))
                .collect(),
            projections: Vec::new(),
            skipped,
            counters: Vec::new(),
        })
    }

    /// Every field as it is, except that an RNTuple laid out as ROOT's RNTupleImporter lays
    /// out NanoAOD goes back to NanoAOD's branches: a collection whose members all have
    /// projected fields is written through them (`Muon_pt`), counted by the collection's
    /// projected cardinality (`nMuon`), which is no field of its own.
    pub fn for_ttree(reader: &AnyReader, asked: &[String]) -> Result<Self> {
        let AnyReader::RNTuple(r) = reader else {
            return Self::plain(reader, asked);
        };
        if !asked.is_empty() {
            return Self::plain(reader, asked);
        }
        let d = r.descriptor();
        let projected = |f: &crate::rntuple::read::FieldRecord| f.source_field.is_some();
        let top: Vec<_> = d.fields.iter().filter(|f| f.is_top_level()).collect();
        let mut dropped: Vec<String> = Vec::new();
        let mut counters: Vec<(String, String)> = Vec::new();
        for collection in top.iter().filter(|f| !projected(f)) {
            let cardinality = top.iter().find(|p| {
                p.source_field == Some(collection.id)
                    && p.type_name.starts_with("ROOT::RNTupleCardinality")
            });
            let members = top.iter().filter(|p| {
                p.source_field == Some(collection.id)
                    && p.type_name.starts_with("ROOT::VecOps::RVec")
            });
            let members: Vec<&String> = members.map(|p| &p.name).collect();
            let leaves = collection
                .children
                .first()
                .map_or(0, |&item| d.fields[item as usize].children.len());
            if let (Some(cardinality), true) =
                (cardinality, !members.is_empty() && members.len() == leaves)
            {
                dropped.push(collection.name.clone());
                dropped.push(cardinality.name.clone());
                counters.extend(
                    members
                        .iter()
                        .map(|m| ((*m).clone(), cardinality.name.clone())),
                );
            }
        }
        let names: Vec<String> = r
            .field_names()
            .into_iter()
            .filter(|n| !dropped.contains(n))
            .collect();
        let mut layout = Self::plain(reader, &names)?;
        layout.counters = counters;
        Ok(layout)
    }

    /// A TTree's branches as ROOT's RNTupleImporter lays them out: branches counted by one
    /// counter branch (NanoAOD's `Muon_pt[nMuon]`, `Muon_eta[nMuon]`) become one untyped
    /// collection `_collection<i>` of untyped records of those branches (collections
    /// numbered in the order of their counters' names), placed after the other fields,
    /// which keep branch order; counters are not fields of their own. Each collection's
    /// members of numbers are also projected fields (`Muon_pt` as
    /// `ROOT::VecOps::RVec<float>`), and each counter a projected cardinality (`nMuon`).
    pub fn importer(reader: &AnyReader, asked: &[String]) -> Result<Self> {
        let AnyReader::TTree(tree) = reader else {
            return Self::plain(reader, asked);
        };
        // Counted branches by their counter's branch.
        let mut counter_of: BTreeMap<String, String> = BTreeMap::new();
        let top = &tree.meta().branches;
        for b in top {
            if let [leaf] = b.leaves.as_slice() {
                if let Some(count) = &leaf.count {
                    let counter = top
                        .iter()
                        .find(|c| c.leaves.iter().any(|l| &l.name == count))
                        .map_or_else(|| count.clone(), |c| c.name.clone());
                    counter_of.insert(b.name.clone(), counter);
                }
            }
        }
        let counters: Vec<&String> = counter_of.values().collect();
        let asked: Vec<String> = if asked.is_empty() {
            reader
                .plan_fields(&[])?
                .0
                .into_iter()
                .filter(|n| !counters.contains(&n))
                .collect()
        } else {
            asked.to_vec()
        };
        let (names, types, skipped) = typed_fields(reader, &asked)?;
        let mut layout = FieldMap {
            read: names.clone(),
            fields: Vec::new(),
            projections: Vec::new(),
            skipped,
            counters: Vec::new(),
            assemble: Vec::new(),
        };
        let mut collections: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, (name, ty)) in names.iter().zip(&types).enumerate() {
            match (counter_of.get(name), ty) {
                (Some(counter), FieldType::Vector(_)) => {
                    collections.entry(counter.clone()).or_default().push(i)
                }
                _ => {
                    layout.fields.push(Field::new(name.clone(), ty.clone()));
                    layout.assemble.push(Assemble::Whole(i));
                }
            }
        }
        for (k, (counter, members)) in collections.into_iter().enumerate() {
            let collection = format!("_collection{k}");
            let record = members
                .iter()
                .map(|&i| match &types[i] {
                    FieldType::Vector(item) => Field::new(names[i].clone(), (**item).clone()),
                    _ => unreachable!("only lists are collected"),
                })
                .collect::<Vec<_>>();
            for (&i, member) in members.iter().zip(&record) {
                if member.ty.number().is_some() {
                    layout.projections.push(Projection {
                        name: names[i].clone(),
                        kind: ProjectionKind::Member {
                            collection: collection.clone(),
                            member: member.name.clone(),
                        },
                    });
                }
            }
            layout.projections.push(Projection {
                name: counter,
                kind: ProjectionKind::Cardinality {
                    collection: collection.clone(),
                },
            });
            let item = FieldType::untyped_record(record);
            layout
                .fields
                .push(Field::new(collection, FieldType::untyped_collection(item)));
            layout.assemble.push(Assemble::Collection(members));
        }
        Ok(layout)
    }

    /// The output batch of one batch of the fields read (in the order of [`FieldMap::read`]).
    pub fn batch<'a>(&self, arrays: &'a [(String, Array)]) -> Result<Vec<ColumnData<'a>>> {
        self.assemble
            .iter()
            .map(|a| match a {
                Assemble::Whole(i) => whole(&arrays[*i]),
                Assemble::Collection(members) => collection(arrays, members),
            })
            .collect()
    }
}

/// The names and output types of `asked` (the reader's default fields if empty), and the
/// default fields skipped for want of a type.
type TypedFields = (Vec<String>, Vec<FieldType>, Vec<(String, String)>);

fn typed_fields(reader: &AnyReader, asked: &[String]) -> Result<TypedFields> {
    let asked_refs: Vec<&str> = asked.iter().map(String::as_str).collect();
    let mut recycler = crate::array::Recycler::new();
    let empty = reader.read_fields_recycling(&asked_refs, 0..0, &mut recycler)?;
    let (mut names, mut types, mut skipped) = (Vec::new(), Vec::new(), Vec::new());
    for (name, array) in empty {
        match field_type_of(&array) {
            Some(ty) => {
                let ty = match reader {
                    AnyReader::RNTuple(r) => {
                        let d = r.descriptor();
                        match d.field_by_path(&name) {
                            Some(field) => with_class_names(ty, &d.fields, field.id),
                            None => ty,
                        }
                    }
                    AnyReader::TTree(t) if branch_holds_chars(t, &name) => ty.with_chars(),
                    AnyReader::TTree(_) | AnyReader::Memory(_) => ty,
                };
                names.push(name);
                types.push(ty);
            }
            None if asked.is_empty() => {
                let why = format!("its values ({}) have no field type", array.kind());
                skipped.push((name, why));
            }
            None => {
                return Err(Error::InvalidArgument(format!(
                    "field '{name}': its values ({}) have no field type to convert to",
                    array.kind()
                )))
            }
        }
    }
    Ok((names, types, skipped))
}

/// Whether TTree branch `name` holds C++ `char`s: a `Char_t` leaf (`/B`, alone or an
/// array) or `vector<char>`s, which ROOT's RNTupleImporter writes as `char` fields (and
/// `signed char`s as `std::int8_t`; both read as 8-bit integers).
fn branch_holds_chars(tree: &crate::ttree::TTreeReader, name: &str) -> bool {
    let Some(branch) = tree.meta().find(name) else {
        return false;
    };
    match (branch.leaves.as_slice(), &branch.element) {
        ([leaf], _) if leaf.class == "TLeafB" => true,
        (_, Some(element)) => innermost_list_item(&element.class_name) == "char",
        _ => false,
    }
}

/// `ty` (the type of values read from RNTuple field `id`) with the class names and
/// versions the field's records have in `fields` (the descriptor's), and `std::vector`s
/// of classes as such: what a TTree's class branches need, which values alone do not say.
fn with_class_names(ty: FieldType, fields: &[FieldRecord], id: u32) -> FieldType {
    let children: Vec<u32> = fields
        .iter()
        .filter(|f| f.parent == id && f.id != id)
        .map(|f| f.id)
        .collect();
    let field = &fields[id as usize];
    let inner = |item: FieldType| match children.as_slice() {
        [child] => with_class_names(item, fields, *child),
        _ => item,
    };
    match ty {
        FieldType::Record {
            type_name,
            type_version,
            fields: members,
        } => {
            let members = members
                .into_iter()
                .map(|m| {
                    match children
                        .iter()
                        .find(|&&c| fields[c as usize].name == m.name)
                    {
                        Some(&c) => Field::new(m.name, with_class_names(m.ty, fields, c)),
                        None => m,
                    }
                })
                .collect();
            let named = field.role == Role::Record && !field.type_name.is_empty();
            FieldType::Record {
                type_name: if named {
                    field.type_name.clone()
                } else {
                    type_name
                },
                type_version: if named {
                    field.type_version
                } else {
                    type_version
                },
                fields: members,
            }
        }
        FieldType::Vector(item) => FieldType::Vector(Box::new(inner(*item))),
        FieldType::UntypedCollection(item) => {
            let item = inner(*item);
            if field.type_name.starts_with("std::vector<") {
                FieldType::Vector(Box::new(item))
            } else {
                FieldType::UntypedCollection(Box::new(item))
            }
        }
        FieldType::Array(item, n) => FieldType::Array(Box::new(inner(*item)), n),
        FieldType::Optional(item) => FieldType::Optional(Box::new(inner(*item))),
        FieldType::Int8 if field.type_name == "char" => FieldType::Char,
        other => other,
    }
}

fn whole<'a>((name, array): &'a (String, Array)) -> Result<ColumnData<'a>> {
    array
        .as_column_data()
        .ok_or_else(|| Error::InvalidArgument(format!("field '{name}': a variant")))
}

/// The untyped collection of records made of the lists `members` (one length per entry).
fn collection<'a>(arrays: &'a [(String, Array)], members: &[usize]) -> Result<ColumnData<'a>> {
    let mut offsets: Option<(&str, &'a [u64])> = None;
    let mut items = Vec::with_capacity(members.len());
    for &i in members {
        let (name, array) = &arrays[i];
        let Array::List {
            offsets: these,
            values,
        } = array
        else {
            return Err(Error::InvalidArgument(format!(
                "branch '{name}': a counted array read as {}",
                array.kind()
            )));
        };
        match offsets {
            Some((first, o)) if !same_lengths(o, these) => {
                return Err(Error::InvalidArgument(format!(
                    "branches '{first}' and '{name}' share a counter but differ in length"
                )))
            }
            Some(_) => {}
            None => offsets = Some((name, these)),
        }
        items.push(whole_values(name, values)?);
    }
    let (_, offsets) = offsets.ok_or_else(|| Error::InvalidArgument("empty collection".into()))?;
    Ok(ColumnData::list(offsets, ColumnData::Record(items)))
}

fn whole_values<'a>(name: &str, values: &'a Array) -> Result<ColumnData<'a>> {
    values
        .as_column_data()
        .ok_or_else(|| Error::InvalidArgument(format!("branch '{name}': variants")))
}

/// True if both offsets give every entry the same length.
fn same_lengths(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len()
        && a.windows(2)
            .zip(b.windows(2))
            .all(|(x, y)| x[1].wrapping_sub(x[0]) == y[1].wrapping_sub(y[0]))
}
