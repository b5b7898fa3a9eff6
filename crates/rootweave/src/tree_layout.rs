//! Fields (the RNTuple writer's schema, which the Python package and the CLI also use) as
//! TTree branches, the way uproot and NanoAOD lay them out: numbers and fixed-size arrays
//! one branch each; a list of numbers a counter branch `n<field>` and an array counted
//! by it; a record a branch per member `<field>_<member>`; a list of records one counter
//! and a counted branch per member; strings, lists of strings and lists of lists as
//! `std::string`, `std::vector<std::string>` and `std::vector<std::vector<T>>`; sets,
//! lists and deques of numbers or strings a branch of their class (`set<int>`); a named C++
//! class (a record with a type name), or a `std::vector` of one, a branch of that class
//! split as ROOT splits it (members named `:_0`, `:_1`, ... are its base classes, as
//! RNTuple names them). A batch of the fields is split into the branches' batches the same
//! way, so that one schema and one batch write either format.

use std::sync::Arc;

use crate::array::{Array, ColumnData, LeafType};
use crate::error::{Error, Result};
use crate::rntuple::{Field, FieldType};
use crate::ttree::{root_class, BranchSpec, ClassSpec, MemberType};

/// How one field is written, where the default layout is not wanted.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct FieldOptions {
    /// The counter branch of a list (default `n<field>`). Lists naming the same counter
    /// share it (as NanoAOD's `Jet_pt` and `Jet_eta` share `nJet`): their lengths must
    /// agree entry by entry. A counter named after an integer field written before the
    /// list is that field's branch, whose values must then be the lengths.
    pub counter: Option<String>,
    /// The type of the counter branch a list makes (default `Int32`, as uproot writes it;
    /// NanoAOD's are `UInt32`): an integer type.
    pub counter_type: Option<LeafType>,
    /// A list of numbers as a `std::vector<T>` branch rather than a counter and a counted
    /// array.
    pub std_vector: bool,
    /// A string as a C string (`/C`) rather than a `std::string`.
    pub c_string: bool,
    /// A record of numbers as one leaf-list branch (`x/F:y/I`) rather than a branch per
    /// member.
    pub leaf_list: bool,
    /// The split level of a branch of a named class (ROOT's default 99 when not given):
    /// 0 streams each object whole, 1 and more make a branch per member for that many
    /// levels of nested and base classes.
    pub split_level: Option<i32>,
}

impl FieldOptions {
    /// With the counter branch's name.
    pub fn with_counter(mut self, name: &str) -> Self {
        self.counter = Some(name.to_string());
        self
    }

    /// With the counter branch's integer type.
    pub fn with_counter_type(mut self, leaf: LeafType) -> Self {
        self.counter_type = Some(leaf);
        self
    }

    /// With lists of numbers as `std::vector<T>` branches.
    pub fn with_std_vector(mut self) -> Self {
        self.std_vector = true;
        self
    }

    /// With strings as C strings.
    pub fn with_c_string(mut self) -> Self {
        self.c_string = true;
        self
    }

    /// With a record as one leaf-list branch.
    pub fn with_leaf_list(mut self) -> Self {
        self.leaf_list = true;
        self
    }

    /// With classes split to `level`.
    pub fn with_split_level(mut self, level: i32) -> Self {
        self.split_level = Some(level);
        self
    }
}

/// ROOT's default split level.
const DEFAULT_SPLIT_LEVEL: i32 = 99;

/// How a field's batch becomes branch batches.
#[derive(Debug, Clone)]
enum Plan {
    /// One branch, the batch as it is.
    Whole,
    /// A counter (each entry's length as `counter`; unless `shared`, a new branch) and the
    /// list as it is.
    Counted { shared: bool, counter: LeafType },
    /// A record: its members, each by its plan.
    Record(Vec<Plan>),
    /// A list of records: one counter (unless `shared`, a new branch, as `counter`), then
    /// each member (or a nested record's members) as a list over the member's batch.
    Records {
        members: Vec<Plan>,
        shared: bool,
        counter: LeafType,
    },
}

/// Fields laid out as TTree branches, and the splitting of their batches.
#[derive(Debug, Clone)]
pub struct TreeLayout {
    branches: Vec<BranchSpec>,
    plans: Vec<Plan>,
}

impl TreeLayout {
    /// The branches of `fields`, each laid out as `options` says for its name.
    pub fn new(fields: &[Field], options: impl Fn(&str) -> FieldOptions) -> Result<Self> {
        let mut branches = Vec::new();
        let mut plans = Vec::with_capacity(fields.len());
        let mut counters = Vec::new();
        // Integer fields so far, which a list may name as its counter.
        let mut integers = std::collections::HashSet::new();
        for f in fields {
            let o = options(&f.name);
            if o.counter_type.is_some_and(|t| !is_integer(t)) {
                return Err(Error::InvalidArgument(format!(
                    "field {}: a counter of type {:?}: an integer type is needed",
                    f.name, o.counter_type
                )));
            }
            let counter = o.counter.clone().unwrap_or_else(|| format!("n{}", f.name));
            let shared = counters.contains(&counter)
                || (o.counter.is_some() && integers.contains(counter.as_str()));
            if f.ty.number().is_some_and(is_integer) {
                integers.insert(f.name.as_str());
            }
            let before = branches.len();
            let mut plan = plan(&f.name, &f.ty, &o, &counter, &mut branches)?;
            if let Plan::Counted { shared: s, .. } | Plan::Records { shared: s, .. } = &mut plan {
                if shared {
                    *s = true;
                    branches.remove(before);
                } else {
                    counters.push(counter);
                }
            }
            plans.push(plan);
        }
        // A set, not a scan of the names before: trees of 10,000 branches exist.
        let mut names = std::collections::HashSet::with_capacity(branches.len());
        for b in &branches {
            if !names.insert(b.name()) {
                return Err(Error::InvalidArgument(format!(
                    "two fields both make a branch called {}",
                    b.name()
                )));
            }
        }
        Ok(TreeLayout { branches, plans })
    }

    /// The branches, in order.
    pub fn branches(&self) -> &[BranchSpec] {
        &self.branches
    }

    /// Splits a batch of the fields (one per field, in order) into the branches' batches
    /// and hands them to `write`.
    pub fn with_branch_batches<R>(
        &self,
        batch: &[ColumnData],
        write: impl FnOnce(&[ColumnData]) -> Result<R>,
    ) -> Result<R> {
        if batch.len() != self.plans.len() {
            return Err(Error::InvalidArgument(format!(
                "{} columns given for {} fields",
                batch.len(),
                self.plans.len()
            )));
        }
        let mut counts: Vec<Array> = Vec::new();
        for (plan, data) in self.plans.iter().zip(batch) {
            gather_counts(plan, data, &mut counts)?;
        }
        let mut out = Vec::with_capacity(self.branches.len());
        let mut next = counts.iter();
        for (plan, data) in self.plans.iter().zip(batch) {
            split(plan, data, None, &mut next, &mut out)?;
        }
        write(&out)
    }
}

/// A number type with fixed-size array dimensions around it.
fn shaped(ty: &FieldType) -> Option<(LeafType, Vec<usize>)> {
    let mut dims = Vec::new();
    let mut ty = ty;
    while let FieldType::Array(inner, n) = ty {
        dims.push(*n);
        ty = inner;
    }
    ty.number().map(|leaf| (leaf, dims))
}

/// The name of member `member` of `parent`: `<parent>_<member>`, or the member's name if
/// it already starts so (as NanoAOD's collections name theirs).
fn member_name(parent: &str, member: &str) -> String {
    match member.strip_prefix(parent) {
        Some(rest) if rest.starts_with('_') => member.to_string(),
        _ => format!("{parent}_{member}"),
    }
}

/// The branches of field `name` of type `ty` (pushed to `out`), and how its batches split.
fn plan(
    name: &str,
    ty: &FieldType,
    o: &FieldOptions,
    counter: &str,
    out: &mut Vec<BranchSpec>,
) -> Result<Plan> {
    let unsupported = || {
        Error::InvalidArgument(format!(
            "field {name}: a {} is not written to TTrees (numbers, fixed-size arrays, strings, \
             lists of numbers, strings or lists, records and lists of records are)",
            describe(ty)
        ))
    };
    if let Some((leaf, dims)) = shaped(ty) {
        out.push(BranchSpec::array(name, leaf, &dims));
        return Ok(Plan::Whole);
    }
    let split = o.split_level.unwrap_or(DEFAULT_SPLIT_LEVEL);
    let counter_type = o.counter_type.unwrap_or(LeafType::Int32);
    match ty {
        FieldType::Record { type_name, .. } if !type_name.is_empty() => {
            out.push(BranchSpec::object(name, class_spec(name, ty)?, split));
            return Ok(Plan::Whole);
        }
        FieldType::Vector(item) if is_class(item) => {
            out.push(BranchSpec::vector_of_objects(
                name,
                class_spec(name, item)?,
                split,
            ));
            return Ok(Plan::Whole);
        }
        _ => {}
    }
    match ty {
        FieldType::String if o.c_string => out.push(BranchSpec::c_string(name)),
        FieldType::String => out.push(BranchSpec::string(name)),
        FieldType::Vector(item) | FieldType::RVec(item) | FieldType::UntypedCollection(item) => {
            match item.as_ref() {
                FieldType::String => out.push(BranchSpec::vector_of_strings(name)),
                FieldType::Vector(inner) => match inner.number() {
                    Some(leaf) => out.push(BranchSpec::vector_of_vectors(name, leaf)),
                    None => return Err(unsupported()),
                },
                FieldType::Record { fields, .. } => {
                    out.push(BranchSpec::scalar(counter, counter_type));
                    let members = fields
                        .iter()
                        .map(|f| counted_member(&member_name(name, &f.name), &f.ty, counter, out))
                        .collect::<Result<Vec<_>>>()?;
                    return Ok(Plan::Records {
                        members,
                        shared: false,
                        counter: counter_type,
                    });
                }
                other => match shaped(other) {
                    Some((leaf, dims)) if o.std_vector && dims.is_empty() => {
                        out.push(BranchSpec::vector(name, leaf))
                    }
                    Some((leaf, dims)) => {
                        out.push(BranchSpec::scalar(counter, counter_type));
                        out.push(BranchSpec::counted(name, leaf, counter, &dims));
                        return Ok(Plan::Counted {
                            shared: false,
                            counter: counter_type,
                        });
                    }
                    None => return Err(unsupported()),
                },
            }
        }
        FieldType::Collection(kind, item) => match (item.number(), item.as_ref()) {
            (Some(leaf), _) => out.push(BranchSpec::collection(name, leaf, *kind)),
            (None, FieldType::String) => out.push(BranchSpec::collection_of_strings(name, *kind)),
            _ => return Err(unsupported()),
        },
        FieldType::Record { fields, .. } if o.leaf_list => {
            let leaves = fields
                .iter()
                .map(|f| shaped(&f.ty).map(|(leaf, dims)| (f.name.as_str(), leaf, dims)))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(unsupported)?;
            let leaves: Vec<(&str, LeafType, &[usize])> =
                leaves.iter().map(|(n, l, d)| (*n, *l, &d[..])).collect();
            out.push(BranchSpec::leaf_list(name, &leaves));
        }
        FieldType::Record { fields, .. } => {
            let members = fields
                .iter()
                .map(|f| {
                    let member = member_name(name, &f.name);
                    let counter = format!("n{member}");
                    plan(&member, &f.ty, &FieldOptions::default(), &counter, out)
                })
                .collect::<Result<Vec<_>>>()?;
            return Ok(Plan::Record(members));
        }
        _ => return Err(unsupported()),
    }
    Ok(Plan::Whole)
}

/// Whether `ty` is a named C++ class.
fn is_class(ty: &FieldType) -> bool {
    matches!(ty, FieldType::Record { type_name, .. } if !type_name.is_empty())
}

/// The TTree class of a named record (of field `field`, for messages): members `:_0`,
/// `:_1`, ... its base classes, the others its data members.
fn class_spec(field: &str, ty: &FieldType) -> Result<Arc<ClassSpec>> {
    let FieldType::Record {
        type_name,
        type_version,
        fields,
    } = ty
    else {
        unreachable!("called on named records")
    };
    // ROOT's own classes (`TVector3`, `TLorentzVector`, `ROOT::Math` vectors) as ROOT
    // defines them; the record must have their members.
    if let Some(class) = root_class(type_name) {
        if class.member_names() != fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>() {
            return Err(Error::InvalidArgument(format!(
                "field {field}: class {type_name} has members {:?}",
                class.member_names()
            )));
        }
        return Ok(class);
    }
    let mut bases = Vec::new();
    let mut members = Vec::new();
    for f in fields {
        if f.name.starts_with(':') {
            if !is_class(&f.ty) {
                return Err(Error::InvalidArgument(format!(
                    "field {field}: base class {} of class {type_name} is not a named class",
                    f.name
                )));
            }
            bases.push(class_spec(field, &f.ty)?);
            continue;
        }
        let member = if let Some((leaf, dims)) = shaped(&f.ty) {
            if dims.is_empty() {
                MemberType::Number(leaf)
            } else {
                MemberType::Array(leaf, dims)
            }
        } else {
            match &f.ty {
                FieldType::String => MemberType::String,
                FieldType::Vector(item) if item.number().is_some() => {
                    MemberType::Vector(item.number().expect("a number"))
                }
                t if is_class(t) => MemberType::Object(class_spec(field, t)?),
                FieldType::Vector(item) if is_class(item) => {
                    MemberType::Objects(class_spec(field, item)?)
                }
                t => {
                    return Err(Error::InvalidArgument(format!(
                        "field {field}: member {} of class {type_name}: a {} is not written in \
                         TTree classes (numbers, fixed-size arrays of numbers, strings, vectors \
                         of numbers and of classes, and classes are)",
                        f.name,
                        describe(t)
                    )))
                }
            }
        };
        members.push((f.name.as_str(), member));
    }
    let version = i16::try_from(*type_version).map_err(|_| {
        Error::InvalidArgument(format!(
            "field {field}: class {type_name} version {type_version} (ROOT's versions are 16-bit)"
        ))
    })?;
    Ok(Arc::new(
        ClassSpec::new(type_name, version, members).with_bases(bases),
    ))
}

/// The branches of a member of a list of records, counted by `counter`: numbers and
/// fixed-size arrays, or a record of them (a branch per member).
fn counted_member(
    name: &str,
    ty: &FieldType,
    counter: &str,
    out: &mut Vec<BranchSpec>,
) -> Result<Plan> {
    if let Some((leaf, dims)) = shaped(ty) {
        out.push(BranchSpec::counted(name, leaf, counter, &dims));
        return Ok(Plan::Whole);
    }
    let FieldType::Record { fields, .. } = ty else {
        return Err(Error::InvalidArgument(format!(
            "field {name}: a {} in a list of records is not written to TTrees (numbers, \
             fixed-size arrays and records of them are)",
            describe(ty)
        )));
    };
    let members = fields
        .iter()
        .map(|f| counted_member(&member_name(name, &f.name), &f.ty, counter, out))
        .collect::<Result<Vec<_>>>()?;
    Ok(Plan::Record(members))
}

/// A type's name for messages.
fn describe(ty: &FieldType) -> String {
    match ty.type_name() {
        n if n.is_empty() => "collection of records".into(),
        n => n,
    }
}

/// A list batch's offsets and items.
fn list<'b, 'a>(data: &'b ColumnData<'a>) -> Result<(&'a [u64], &'b ColumnData<'a>)> {
    match data {
        ColumnData::List { offsets, items } => Ok((offsets, items)),
        other => Err(Error::InvalidArgument(format!(
            "a list per entry is needed, not {}",
            other.kind()
        ))),
    }
}

/// A record batch's members, `n` of them.
fn members<'b, 'a>(data: &'b ColumnData<'a>, n: usize) -> Result<&'b [ColumnData<'a>]> {
    match data {
        ColumnData::Record(m) if m.len() == n => Ok(m),
        other => Err(Error::InvalidArgument(format!(
            "a record of {n} members per entry is needed, not {}",
            other.kind()
        ))),
    }
}

/// The counts of each list that gets a counter branch, in branch order, each as its
/// counter's type.
fn gather_counts(plan: &Plan, data: &ColumnData, out: &mut Vec<Array>) -> Result<()> {
    match plan {
        Plan::Whole | Plan::Counted { shared: true, .. } | Plan::Records { shared: true, .. } => {
            Ok(())
        }
        Plan::Counted { counter, .. } | Plan::Records { counter, .. } => {
            let (offsets, _) = list(data)?;
            let lengths = offsets.windows(2).map(|w| w[1].saturating_sub(w[0]));
            out.push(counts_as(*counter, lengths)?);
            Ok(())
        }
        Plan::Record(plans) => {
            for (p, d) in plans.iter().zip(members(data, plans.len())?) {
                gather_counts(p, d, out)?;
            }
            Ok(())
        }
    }
}

/// Lengths as a counter branch's values of type `leaf` (an integer type), or an error
/// naming a length the type cannot hold.
fn counts_as(leaf: LeafType, lengths: impl Iterator<Item = u64>) -> Result<Array> {
    fn cast<T: TryFrom<u64>>(lengths: impl Iterator<Item = u64>, leaf: LeafType) -> Result<Vec<T>> {
        lengths
            .map(|n| {
                T::try_from(n).map_err(|_| {
                    Error::InvalidArgument(format!(
                        "an entry of {n} items: more than a {leaf:?} counter holds"
                    ))
                })
            })
            .collect()
    }
    Ok(match leaf {
        LeafType::Int8 => Array::Int8(cast(lengths, leaf)?),
        LeafType::Int16 => Array::Int16(cast(lengths, leaf)?),
        LeafType::Int32 => Array::Int32(cast(lengths, leaf)?),
        LeafType::Int64 => Array::Int64(cast(lengths, leaf)?),
        LeafType::UInt8 => Array::UInt8(cast(lengths, leaf)?),
        LeafType::UInt16 => Array::UInt16(cast(lengths, leaf)?),
        LeafType::UInt32 => Array::UInt32(cast(lengths, leaf)?),
        LeafType::UInt64 => Array::UInt64(cast(lengths, leaf)?),
        other => unreachable!("counters are integers (checked), not {other:?}"),
    })
}

/// The next counter batch of those `gather_counts` made.
fn counted<'c>(counts: &mut std::slice::Iter<'c, Array>) -> Result<ColumnData<'c>> {
    let array = counts.next().expect("a count per counted plan");
    array
        .as_column_data()
        .ok_or_else(|| Error::InvalidArgument(format!("a counter of {}", array.kind())))
}

/// Whether `leaf` is an integer type (a counter's).
fn is_integer(leaf: LeafType) -> bool {
    !matches!(leaf, LeafType::Bool | LeafType::Float32 | LeafType::Float64)
}

/// Pushes the branch batches of `data` by `plan`; inside a list of records, each is a list
/// over `within`'s offsets.
fn split<'c>(
    plan: &Plan,
    data: &ColumnData<'c>,
    within: Option<&'c [u64]>,
    counts: &mut std::slice::Iter<'c, Array>,
    out: &mut Vec<ColumnData<'c>>,
) -> Result<()> {
    match plan {
        Plan::Whole => out.push(match within {
            Some(offsets) => ColumnData::list(offsets, data.clone()),
            None => data.clone(),
        }),
        Plan::Counted { shared, .. } => {
            if !shared {
                out.push(counted(counts)?);
            }
            out.push(data.clone());
        }
        Plan::Record(plans) => {
            for (p, d) in plans.iter().zip(members(data, plans.len())?) {
                split(p, d, within, counts, out)?;
            }
        }
        Plan::Records {
            members: plans,
            shared,
            ..
        } => {
            if !shared {
                out.push(counted(counts)?);
            }
            let (offsets, items) = list(data)?;
            for (p, d) in plans.iter().zip(members(items, plans.len())?) {
                split(p, d, Some(offsets), counts, out)?;
            }
        }
    }
    Ok(())
}

/// The field type that stores `array`'s values as they are: numbers and strings as
/// themselves, lists as `std::vector` (untyped collections where the items are untyped
/// records), fixed-size lists as `std::array`, optionals as `std::optional`, records as
/// untyped records. `None` for what no field type holds that way (variants, and
/// `std::array` or `std::optional` of records).
pub fn field_type_of(array: &Array) -> Option<FieldType> {
    let untyped = |t: &FieldType| {
        matches!(t, FieldType::UntypedCollection(_))
            || matches!(t, FieldType::Record { type_name, .. } if type_name.is_empty())
    };
    Some(match array {
        Array::Bool(_) => FieldType::Bool,
        Array::Int8(_) => FieldType::Int8,
        Array::Int16(_) => FieldType::Int16,
        Array::Int32(_) => FieldType::Int32,
        Array::Int64(_) => FieldType::Int64,
        Array::UInt8(_) => FieldType::UInt8,
        Array::UInt16(_) => FieldType::UInt16,
        Array::UInt32(_) => FieldType::UInt32,
        Array::UInt64(_) => FieldType::UInt64,
        Array::Float32(_) => FieldType::Float32,
        Array::Float64(_) => FieldType::Float64,
        Array::String { .. } => FieldType::String,
        Array::List { values, .. } => {
            let item = field_type_of(values)?;
            if untyped(&item) {
                FieldType::untyped_collection(item)
            } else {
                FieldType::vector(item)
            }
        }
        Array::Fixed { size, values } => {
            let item = field_type_of(values)?;
            (!untyped(&item)).then(|| FieldType::array(item, *size))?
        }
        Array::Optional { values, .. } => {
            let item = field_type_of(values)?;
            (!untyped(&item)).then(|| FieldType::optional(item))?
        }
        Array::Record { fields, .. } => FieldType::untyped_record(
            fields
                .iter()
                .map(|(name, a)| Some(Field::new(name.clone(), field_type_of(a)?)))
                .collect::<Option<_>>()?,
        ),
        Array::Variant { .. } => return None,
    })
}
