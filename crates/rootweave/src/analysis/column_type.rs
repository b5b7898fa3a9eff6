//! `GetColumnType`: a column's C++ type as RDataFrame names it. A read column's is its
//! source's (a TTree leaf's `Float_t`, an RNTuple field's `std::int32_t`, a list as
//! `ROOT::VecOps::RVec<...>`); a defined column's is its expression's, found by evaluating it
//! (and what it uses) over no events, so that the type is the one its values have.

use std::sync::Arc;

use super::column::{Column, Values, VectorClass};
use super::expr::{BinaryOp, EvalError, Expression, Kind, Node, Scope};
use super::graph::{invalid, Definition, Frame, NodeKind};
use crate::array::Array;
use crate::dataset::{AnyReader, CSV_SOURCE_NAME};
use crate::error::Result;
use crate::rntuple::read::{Descriptor, Role};
use crate::streamer::type_name::innermost_list_item as list_item;
use crate::streamer::{Element, ElementClass};
use crate::ttree::{Branch, Header, Interpretation, Prim, TTreeReader};

/// How ROOT names `PtEtaPhiMVector`.
const P4_NAME: &str = "ROOT::Math::LorentzVector<ROOT::Math::PtEtaPhiM4D<double> >";

impl Frame {
    /// `GetColumnType(name)`: the C++ type of column `name` here, spelled as RDataFrame
    /// spells it (`Float_t`, `ROOT::VecOps::RVec<Float_t>`, `std::int32_t`, `unsigned int`,
    /// `ROOT::VecOps::RVec<int>`, ...). An error for an unknown column, and for a read
    /// column of a kind the expressions do not take (strings, objects).
    pub fn column_type(&self, name: &str) -> Result<String> {
        if let Some(spelled) = self.declared_type(name)? {
            return Ok(spelled);
        }
        let column = empty_column(self, self.node, name, true)
            .map_err(|e| invalid(format!("GetColumnType('{name}'): {e}")))?;
        Ok(cpp_name(&column))
    }

    /// The type the dataset's first source declares for column `name` as read here; `None`
    /// for a defined or special column, or one the source does not describe. A column
    /// defined as a `TString` column alone (`Define("l", "label")`), or as such columns and
    /// string literals joined by `+` (`label + "_x"`), is a `TString` (or `RVec<TString>`):
    /// ROOT's definition returns the object as it is, and `TString`'s `operator+` a `TString`;
    /// so is one defined as a set, list, deque or bitset column alone (`set<int>`).
    pub fn declared_type(&self, name: &str) -> Result<Option<String>> {
        let (defining, resolved) = self.lock().resolve(self.node, name);
        if let Some(n) = defining {
            return self.tstring_definition(n);
        }
        if super::special::special(&resolved) {
            return Ok(None);
        }
        self.check_columns(&[name.to_string()], "GetColumnType")?;
        Ok(self
            .first_source()?
            .and_then(|reader| read_type_name(&reader, &resolved)))
    }

    /// The `TString` (or other container) type of the `Define` at node `n`, where its
    /// expression keeps one (see [`Frame::declared_type`]).
    fn tstring_definition(&self, n: usize) -> Result<Option<String>> {
        let (tree, above) = {
            let g = self.lock();
            let NodeKind::Define {
                definition: Definition::Expression(e),
                ..
            } = &g.nodes[n].kind
            else {
                return Ok(None);
            };
            (e.tree.clone(), g.nodes[n].parent.unwrap_or(0))
        };
        let at = Frame {
            graph: self.graph.clone(),
            node: above,
        };
        if let Kind::Column(named) = &tree.kind {
            let declared = at.declared_type(named)?;
            return Ok(declared.filter(|t| {
                t == tstring_name(false) || t == tstring_name(true) || other_container(t)
            }));
        }
        Ok(match at.string_term(&tree) {
            StringTerm::TString(list) => Some(tstring_name(list).to_string()),
            StringTerm::Literal | StringTerm::Other => None,
        })
    }

    /// What `node` is as an operand of a string `+`, its columns seen from here (a column
    /// whose type cannot be told is not a `TString`).
    fn string_term(&self, node: &Node) -> StringTerm {
        match &node.kind {
            Kind::Shared(_, part) => self.string_term(part),
            Kind::Str(_) => StringTerm::Literal,
            Kind::Column(named) => match self.declared_type(named).ok().flatten().as_deref() {
                Some(t) if t == tstring_name(false) => StringTerm::TString(false),
                Some(t) if t == tstring_name(true) => StringTerm::TString(true),
                _ => StringTerm::Other,
            },
            Kind::Binary(BinaryOp::Add, l, r) => match (self.string_term(l), self.string_term(r)) {
                (StringTerm::TString(a), StringTerm::TString(b)) => StringTerm::TString(a || b),
                (StringTerm::TString(a), StringTerm::Literal)
                | (StringTerm::Literal, StringTerm::TString(a)) => StringTerm::TString(a),
                _ => StringTerm::Other,
            },
            _ => StringTerm::Other,
        }
    }

    /// Refuses, as a result is booked, a column whose values results do not take (a list of
    /// lists, an object): RDataFrame refuses such a booking when it compiles it. Refused only
    /// when the run would be, the booking would stay in the graph and fail every later run.
    /// A column whose type is known from its values only is taken. Vectors (`TLorentzVector`,
    /// `PtEtaPhiMVector`, ...) are refused where the result needs `numbers` (all but `Take`).
    pub(crate) fn check_result_columns(&self, columns: &[String], numbers: bool) -> Result<()> {
        for c in columns {
            match empty_column(self, self.node, c, false) {
                Err(e) if !e.contains(UNKNOWN) && !e.contains(OF_A_FUNCTION) => {
                    return Err(invalid(format!("a result: {e}")))
                }
                Ok(Column::Flat(v) | Column::Jagged(_, v))
                    if numbers && matches!(*v, Values::P4(_) | Values::Vectors(..)) =>
                {
                    return Err(invalid(format!(
                        "a result: column '{c}' holds {}s, which are not numbers",
                        v.type_name()
                    )))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether column `name` here holds a list per event (`None` where that is known only
    /// once the graph runs: a Python function's column).
    pub(crate) fn holds_lists(&self, name: &str) -> Option<bool> {
        match empty_column(self, self.node, name, false) {
            Ok(Column::Jagged(..)) => Some(true),
            Ok(_) => Some(false),
            Err(_) => None,
        }
    }

    /// The type, as an empty array, of `name` here if it is a dataset's column whose values
    /// expressions do not take (a list of lists, an object), which `Take` gives as read (see
    /// [`ActionSpec::TakeAsRead`](super::ActionSpec::TakeAsRead)); `None` for a defined
    /// column, one of split objects' collection (refused by name), one not known, or one
    /// expressions take.
    pub(crate) fn taken_as_read(&self, name: &str) -> Result<Option<crate::array::Array>> {
        let (defining, resolved) = self.lock().resolve(self.node, name);
        if defining.is_some() || super::special::special(&resolved) {
            return Ok(None);
        }
        let Some(array) = self.read_type(&resolved)? else {
            return Ok(None);
        };
        let source = self.first_source()?;
        let split = source
            .as_ref()
            .is_some_and(|r| split_objects(r, &resolved).is_some());
        Ok((!split && Column::from_array(&array, 0..0).is_none()).then_some(array))
    }

    /// Evaluates `e` here over no events, so that an expression whose operands' types do not
    /// fit (a string compared with a number, `Sum` of a number) is an error when it is made,
    /// as ROOT's jitting makes it, not when the graph runs: its C++ type, or `None` where a
    /// column's type cannot be known without data (a function's column, one the first file
    /// lacks).
    pub(crate) fn check_types(&self, e: &Expression) -> Result<Option<String>> {
        let mut probe = Probe {
            frame: self,
            node: self.node,
            functions: false,
        };
        match e.evaluate(&mut probe) {
            Err(EvalError { pos, message }) if !message.contains(UNKNOWN) => Err(invalid(format!(
                "expression '{}' at position {pos}: {message}",
                e.text
            ))),
            Err(_) => Ok(None),
            Ok(column) => Ok(Some(cpp_name(&column))),
        }
    }
}

/// An operand of a string `+`, for the type of the sum: C++ gives a `TString` where one
/// side is a `TString` and the other a `TString` or a literal.
enum StringTerm {
    /// A `TString` (`true`: a list of them, which `RVec`'s `+` keeps a list).
    TString(bool),
    /// A string literal.
    Literal,
    /// Anything else: a `std::string`, a number, another expression.
    Other,
}

/// How ROOT spells a `TString` column's type, or a list's.
fn tstring_name(list: bool) -> &'static str {
    match list {
        false => "TString",
        true => "ROOT::VecOps::RVec<TString>",
    }
}

/// Part of a probe's error where a column's type is not known without data.
const UNKNOWN: &str = "(its type is known from its values only)";

/// Part of a probe's error where that column is a function's, not computed.
const OF_A_FUNCTION: &str = "of a function";

/// Column `name` as seen from `node`, over no events: a typed empty column. A function's
/// column is computed by calling it with empty columns only if `functions` says so.
pub(super) fn empty_column(
    frame: &Frame,
    node: usize,
    name: &str,
    functions: bool,
) -> std::result::Result<Column, String> {
    let (defining, resolved) = frame.lock().resolve(node, name);
    let Some(n) = defining else {
        if let Some(c) = super::special::EventsAt::default().column(&resolved, 0, None) {
            return Ok(c);
        }
        let at = Frame {
            graph: frame.graph.clone(),
            node,
        };
        let array = at
            .read_type(&resolved)
            .map_err(|e| format!("{e} {UNKNOWN}"))?
            .ok_or_else(|| format!("no column '{resolved}' {UNKNOWN}"))?;
        let source = at.first_source().ok().flatten();
        if let Some(why) = source.as_ref().and_then(|r| split_objects(r, &resolved)) {
            return Err(why);
        }
        let column = Column::from_array(&array, 0..0).ok_or_else(|| {
            format!("column '{resolved}' is not numbers, strings or lists of them, which expressions take")
        })?;
        let column = match source.as_ref().is_some_and(|r| reads_points(r, &resolved)) {
            true => column.into_points(),
            false => column,
        };
        return Ok(
            match source.is_some_and(|r| reads_long_or_signed_char(&r, &resolved)) {
                true => column.into_long_or_signed_char(),
                false => column,
            },
        );
    };
    if let Some(probed) = frame.lock().probed.get(&(n, functions)) {
        return probed.clone();
    }
    let probed = defined_empty_column(frame, n, &resolved, functions);
    // A type found is kept, and so is the lack of one where a function's column is not
    // computed; an error reading the dataset is not (the next question reads again).
    if probed
        .as_ref()
        .map_or_else(|e| e.contains(OF_A_FUNCTION), |_| true)
    {
        frame.lock().probed.insert((n, functions), probed.clone());
    }
    probed
}

/// [`empty_column`] of the column defined at node `n` (named `resolved` there).
fn defined_empty_column(
    frame: &Frame,
    n: usize,
    resolved: &str,
    functions: bool,
) -> std::result::Result<Column, String> {
    let (definition, parent) = {
        let g = frame.lock();
        match &g.nodes[n].kind {
            NodeKind::Define { definition, .. } => (definition.clone(), g.nodes[n].parent),
            _ => return Err(format!("'{resolved}' is not a defined column")),
        }
    };
    // A definition's own columns are those above it (a `Redefine` uses the old value).
    let above = parent.unwrap_or(0);
    match definition {
        Definition::Expression(e) => {
            let mut probe = Probe {
                frame,
                node: above,
                functions,
            };
            e.evaluate(&mut probe)
                .map_err(|EvalError { message, .. }| message)
        }
        Definition::Function(..) if !functions => {
            Err(format!("column '{resolved}' {OF_A_FUNCTION} {UNKNOWN}"))
        }
        Definition::Function(columns, f) => {
            let inputs = columns
                .iter()
                .map(|c| empty_column(frame, above, c, functions))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            f(&inputs)
        }
        Definition::PerSample(values) => Ok(Column::Flat(Arc::new(values.gather(&[])))),
        Definition::Default { column, value } => empty_column(frame, above, &column, functions)
            .or_else(|_| super::missing::repeated(&value, 0)),
        Definition::Available { .. } => Ok(Column::Flat(Arc::new(Values::Bool(Vec::new())))),
    }
}

/// The columns of a node over no events.
struct Probe<'a> {
    frame: &'a Frame,
    node: usize,
    /// Whether function columns are computed (see [`empty_column`]).
    functions: bool,
}

impl Scope for Probe<'_> {
    fn column(&mut self, name: &str) -> std::result::Result<Column, String> {
        empty_column(self.frame, self.node, name, self.functions)
    }

    fn events(&self) -> usize {
        0
    }
}

/// The C++ type of a computed column, as ROOT names the type of an expression's value.
pub fn cpp_name(column: &Column) -> String {
    match column {
        Column::Flat(v) => item_name(v).to_string(),
        Column::Jagged(_, v) => rvec(item_name(v)),
        Column::Tuple(parts) => {
            let inner = match parts.first() {
                Some(Column::Jagged(_, v)) => item_name(v),
                _ => "unsigned long",
            };
            rvec(&rvec(inner))
        }
    }
}

/// The C++ type of one value.
fn item_name(values: &Values) -> &'static str {
    match values {
        Values::P4(_) => P4_NAME,
        Values::Vectors(c, _) => c.type_name(),
        other => other.type_name(),
    }
}

/// `ROOT::VecOps::RVec<inner>`, with a space between closing brackets as ROOT writes them.
fn rvec(inner: &str) -> String {
    let gap = if inner.ends_with('>') { " " } else { "" };
    format!("ROOT::VecOps::RVec<{inner}{gap}>")
}

/// The type RDataFrame gives read column `name` of `reader`, from its source's own
/// description; `None` where the source does not say.
fn read_type_name(reader: &AnyReader, name: &str) -> Option<String> {
    match reader {
        AnyReader::TTree(t) => {
            if let Some((branch, leaf)) = t.leaf_of_list(name) {
                return leaf_of_list_type(t, branch, leaf);
            }
            let branch = t.meta().find(name)?;
            // A `Long_t` leaf (`TLeafG`) or a split object's `long` member is read as C++'s
            // `long`, not as a `Long64_t`.
            let long = matches!(branch.leaves.as_slice(), [leaf] if leaf.class == "TLeafG")
                || member_class(t, branch)
                    .is_some_and(|c| matches!(c.as_str(), "Long_t" | "ULong_t"));
            let leaf = |prim| match (long, prim) {
                (true, Prim::I64) => "Long_t".to_string(),
                (true, Prim::U64) => "ULong_t".to_string(),
                _ => leaf_name(prim),
            };
            if split_math_vectors(branch) {
                return declared_type(branch);
            }
            if split_objects(reader, name).is_some() {
                return member_type(t, branch).or_else(|| declared_type(branch));
            }
            match t.interpretation(name).ok() {
                Some(Interpretation::Fixed { prim, dims }) if dims.is_empty() => Some(leaf(prim)),
                Some(Interpretation::Fixed { prim, .. }) => Some(rvec(&leaf(prim))),
                Some(Interpretation::Jagged {
                    prim,
                    inner,
                    header: Header::Vector,
                }) if inner.is_empty() => {
                    let class = member_class(t, branch)
                        .or_else(|| Some(branch.element.as_ref()?.class_name.clone()));
                    // Containers other than vectors (`set<int>`, `list<float>`) keep their
                    // class: RDataFrame makes `RVec`s of vectors only.
                    if let Some(c) = class.as_deref().filter(|c| other_container(c)) {
                        return Some(c.to_string());
                    }
                    Some(rvec(&vector_item_name(prim, class.as_deref())))
                }
                Some(Interpretation::Jagged { prim, inner, .. }) if inner.is_empty() => {
                    Some(rvec(&leaf(prim)))
                }
                Some(Interpretation::Jagged {
                    prim,
                    inner,
                    header: Header::None,
                }) => Some(rvec_of_arrays(&leaf(prim), &inner)),
                _ => member_type(t, branch).or_else(|| declared_type(branch)),
            }
        }
        // Columns in memory: typed by their arrays, but for C++ `long`s, which a cache keeps.
        // A CSV file's strings are `std::string`s (`RCsvDS` names them so), a cache's are
        // `string`s (as ROOT names a cached column of them), as their arrays' type says.
        AnyReader::Memory(m) => match m.column(name)? {
            _ if m.type_name(name).is_some() => m.type_name(name).map(String::from),
            (array, true) => Some(cpp_name(
                &Column::from_array(array, 0..0)?.into_long_or_signed_char(),
            )),
            (Array::String { .. }, false) if m.source_name() == CSV_SOURCE_NAME => {
                Some("std::string".to_string())
            }
            (_, false) => None,
        },
        AnyReader::RNTuple(r) => {
            let d = r.descriptor();
            let ids = d.resolve_path(name)?;
            let (last, above) = ids.split_last()?;
            // A member of the items of a collection or an array is a list of them.
            let lists = above
                .iter()
                .filter(|&&id| d.fields[id as usize].holds_items())
                .count();
            Some((0..lists).fold(field_type_name(d, *last)?, |t, _| rvec_of(&t)))
        }
    }
}

/// The type RDataFrame gives RNTuple field `id`: a `std::vector`, an `RVec` or a
/// `std::array` is an `RVec` of its item's type (`RVec<RVec<std::int32_t>>` for a vector of
/// vectors), a collection's size (`ROOT::RNTupleCardinality<std::uint32_t>`) its integer,
/// any other field its own type; `None` for a field without a type.
fn field_type_name(d: &Descriptor, id: u32) -> Option<String> {
    let field = &d.fields[id as usize];
    let item = || field_type_name(d, *field.children.first()?);
    let vector = field.type_name.is_empty()
        || field.type_name.starts_with("std::vector<")
        || field.type_name.starts_with("ROOT::VecOps::RVec<");
    if field.holds_items() && (field.role != Role::Collection || vector) {
        return Some(rvec_of(&item()?));
    }
    let cardinality = [
        "ROOT::RNTupleCardinality<",
        "ROOT::Experimental::RNTupleCardinality<",
    ]
    .iter()
    .find_map(|p| field.type_name.strip_prefix(p));
    match cardinality.and_then(|t| t.strip_suffix('>')) {
        Some(integer) => Some(integer.trim().to_string()),
        None if field.type_name.is_empty() => None,
        None => Some(field.type_name.clone()),
    }
}

/// `ROOT::VecOps::RVec<inner>` as RDataFrame names a source's lists (an RNTuple's
/// collections, a TTree's `vector` of classes or of vectors): closing brackets together.
fn rvec_of(inner: &str) -> String {
    format!("ROOT::VecOps::RVec<{inner}>")
}

/// Whether column `name` of `reader` holds C++ `long`s or `unsigned long`s (a `Long_t`
/// leaf, a `vector<unsigned long>`, an RNTuple's `std::int64_t` or `std::uint64_t`, which
/// are `long` and `unsigned long` on Linux) or `signed char`s (an RNTuple's `std::int8_t`),
/// alone or in lists, as RDataFrame types it: integers whose width alone names another type
/// (see [`Column::into_long_or_signed_char`]).
pub fn reads_long_or_signed_char(reader: &AnyReader, name: &str) -> bool {
    read_type_name(reader, name).is_some_and(|t| holds_long_or_signed_char(&t))
}

/// Whether column `name` of `reader` holds `XYZPoint`s, alone or in lists: its values are
/// read as `XYZVector`s, whose members are the same (see [`Column::into_points`]).
pub fn reads_points(reader: &AnyReader, name: &str) -> bool {
    read_type_name(reader, name).is_some_and(|t| holds_points(&t))
}

/// Whether a column of C++ type `ty` (as `GetColumnType` spells it) holds
/// `ROOT::Math::PositionVector3D`s (`XYZPoint`s), alone or in lists.
pub(super) fn holds_points(ty: &str) -> bool {
    list_item(ty).starts_with("ROOT::Math::PositionVector3D<")
}

/// Whether a column of C++ type `ty` (as `GetColumnType` spells it) holds C++ `long`s,
/// `unsigned long`s or `signed char`s, alone or in lists.
pub(super) fn holds_long_or_signed_char(ty: &str) -> bool {
    holds_long(ty) || matches!(list_item(ty), "signed char" | "std::int8_t" | "int8_t")
}

/// Whether a column of C++ type `ty` (as `GetColumnType` spells it) holds C++ `long`s or
/// `unsigned long`s, alone or in lists: ROOT's snapshot writes them as `Long_t` leaves
/// (`TLeafG`) and `vector<unsigned long>`s, which RDataFrame reads back as the same type.
pub(super) fn holds_long(ty: &str) -> bool {
    matches!(
        list_item(ty),
        "long"
            | "unsigned long"
            | "long int"
            | "unsigned long int"
            | "Long_t"
            | "ULong_t"
            | "std::int64_t"
            | "std::uint64_t"
            | "std::size_t"
            | "size_t"
    )
}

/// Whether a column of C++ type `ty` holds `char`s (`char`, `Char_t`), alone or in lists:
/// ROOT's RNTuple snapshot writes them as `char` fields, which read back as `char`, where
/// `signed char`s are `std::int8_t` fields.
pub(super) fn holds_chars(ty: &str) -> bool {
    matches!(list_item(ty), "char" | "Char_t")
}

/// The type a TTree branch of other values declares, as RDataFrame names it: a C string
/// leaf's characters (`Char_t`, `RVec<Char_t>` for a leaf of several), an object's class
/// (`string`, `TString`, `TVector3`), a `vector`'s items as an `RVec`.
fn declared_type(branch: &Branch) -> Option<String> {
    if let [leaf] = branch.leaves.as_slice() {
        if leaf.class == "TLeafC" {
            // As ROOT reads the leaf: one character, or an array of them.
            return Some(if leaf.len > 1 {
                rvec("Char_t")
            } else {
                "Char_t".into()
            });
        }
    }
    let class = match &branch.element {
        Some(e) if !e.class_name.is_empty() => &e.class_name,
        _ if !branch.object_class.is_empty() => &branch.object_class,
        _ => return None,
    };
    rvec_of_vector(class)
}

/// A class name as RDataFrame types a column of it: a `vector`'s items as an `RVec`
/// (`vector<string>`: `ROOT::VecOps::RVec<string>`), any other class as it is.
fn rvec_of_vector(class: &str) -> Option<String> {
    Some(match class.strip_prefix("vector<") {
        Some(item) => rvec_of(item.strip_suffix('>')?.trim_end()),
        None => class.to_string(),
    })
}

/// The type of a split object's member branch that holds an object (not numbers), as
/// RDataFrame names it: the member's type as the class's streamer info spells it (a base
/// class by its name, `TFooMember*`, a `vector`'s items as an `RVec`), an `RVec` of it for a
/// member of the items of a split collection or a fixed-size array of objects (`TLorentzVector
/// pg[6]`, whose leaf RDataFrame types by its static length); `None` for other branches.
fn member_type(t: &TTreeReader, branch: &Branch) -> Option<String> {
    let member = member_element(t, branch)?;
    let spelled = spelled_member(member);
    let in_items = branch
        .element
        .as_ref()
        .is_some_and(|e| matches!(e.ty, 31 | 41));
    if in_items || member.array_length > 0 {
        return Some(rvec_of(&spelled));
    }
    rvec_of_vector(&spelled)
}

/// The type of the member (or base class) a split object's branch holds, as the class's
/// streamer info spells it (a base class by its name, a number as a leaf names it), the
/// member of one item for a member of a split collection's items; `None` for other
/// branches.
fn member_class(t: &TTreeReader, branch: &Branch) -> Option<String> {
    member_element(t, branch).map(spelled_member)
}

/// The streamer element of the member (or base class) a split object's branch holds, from
/// the streamer info of the class the branch is a member of.
fn member_element<'a>(t: &'a TTreeReader, branch: &Branch) -> Option<&'a Element> {
    let e = branch
        .element
        .as_ref()
        .filter(|e| e.id >= 0 && matches!(e.ty, 0..=4 | 31 | 41))?;
    let info = t.streamers().get(&e.class_name, e.class_version as i32)?;
    info.elements.get(e.id as usize)
}

/// A member's type as streamer element `member` spells it: a base class by its name, a
/// number (or a counted array of numbers, `long* x //[n]`, by its items) as a leaf names
/// it, any other member by its type name.
fn spelled_member(member: &Element) -> String {
    match member.class {
        ElementClass::Base => member.name.to_string(),
        ElementClass::BasicType => basic_leaf_name(&member.type_name),
        ElementClass::BasicPointer => {
            basic_leaf_name(member.type_name.trim_end_matches('*').trim_end())
        }
        _ => member.type_name.clone(),
    }
}

/// A number member's type as a leaf names it (`unsigned int`: `UInt_t`).
fn basic_leaf_name(c: &str) -> String {
    let named = match c {
        "bool" => "Bool_t",
        "char" => "Char_t",
        "unsigned char" => "UChar_t",
        "short" => "Short_t",
        "unsigned short" => "UShort_t",
        "int" => "Int_t",
        "unsigned int" => "UInt_t",
        "long" => "Long_t",
        "unsigned long" => "ULong_t",
        "long long" => "Long64_t",
        "unsigned long long" => "ULong64_t",
        "float" => "Float_t",
        "double" => "Double_t",
        other => other,
    };
    named.to_string()
}

/// Why read column `name` of `reader` is refused though its read holds numbers: it is the
/// branch of a split collection of objects (`std::vector<Jet>`, a `TClonesArray`, ATLAS's
/// `DataVector`s), whose read holds each entry's count of objects where RDataFrame's column
/// holds the objects.
pub fn split_objects(reader: &AnyReader, name: &str) -> Option<String> {
    let AnyReader::TTree(t) = reader else {
        return None;
    };
    let branch = t.meta().find(name)?;
    let e = branch.element.as_ref().filter(|e| matches!(e.ty, 3 | 4))?;
    if split_math_vectors(branch) {
        return None;
    }
    let members = match branch.branches.first() {
        Some(member) => format!(": its members are columns of their own ('{}')", member.name),
        None if e.class_name.starts_with("vector<") => return None,
        None => String::new(),
    };
    Some(format!(
        "column '{name}' is a split collection of objects ({}), which expressions do not \
         take{members}",
        e.class_name
    ))
}

/// Whether `branch` is a split `std::vector` of stored `ROOT::Math` four-vectors,
/// `XYZVector`s or `XYZPoint`s: expressions take it as a list of them per entry (its read
/// is a record of its members' lists).
fn split_math_vectors(branch: &Branch) -> bool {
    let Some(e) = branch.element.as_ref().filter(|e| e.ty == 4) else {
        return false;
    };
    let item = e
        .class_name
        .strip_prefix("vector<")
        .and_then(|rest| rest.strip_suffix('>'));
    item.and_then(|item| crate::ttree::root_class(item.trim()))
        .is_some_and(|class| {
            class.name() == P4_NAME
                || [
                    VectorClass::CartesianLorentz,
                    VectorClass::PtEtaPhiE,
                    VectorClass::PxPyPzM,
                    VectorClass::Cartesian3,
                    VectorClass::CartesianPoint,
                ]
                .iter()
                .any(|c| c.type_name() == class.name())
        })
}

/// Whether read column `name` of `reader` is a TTree C string leaf (`name/C`). RDataFrame
/// reads one as an `RVec<Char_t>` of the leaf's buffer, as long as the longest string of
/// the basket and holding what earlier entries left in it: expressions do not take it.
pub fn c_string_leaf(reader: &AnyReader, name: &str) -> bool {
    let AnyReader::TTree(t) = reader else {
        return false;
    };
    t.meta()
        .find(name)
        .is_some_and(|b| matches!(b.leaves.as_slice(), [leaf] if leaf.class == "TLeafC"))
}

/// The type of leaf `leaf` of leaf-list branch `branch` as RDataFrame names it: the leaf's
/// (`Int_t`), an `RVec` of it for an array (`pos[2]/D`: `ROOT::VecOps::RVec<Double_t>`) or a
/// variable-size leaf (`px[n]/F`).
fn leaf_of_list_type(t: &TTreeReader, branch: &str, leaf: &str) -> Option<String> {
    let Interpretation::Record(leaves) = t.interpretation(branch).ok()? else {
        return None;
    };
    let leaf = leaves.iter().find(|l| l.name == leaf)?;
    // A `Long_t` leaf (`/G`, a `TLeafG`) is C++'s `long`, as for a branch of its own.
    let long = t.meta().find(branch).is_some_and(|b| {
        b.leaves
            .iter()
            .any(|l| l.name == leaf.name && l.class == "TLeafG")
    });
    let name = match (long, leaf.prim) {
        (true, Prim::I64) => "Long_t".to_string(),
        (true, Prim::U64) => "ULong_t".to_string(),
        (_, prim) => leaf_name(prim),
    };
    Some(match (leaf.count.is_some(), leaf.dims.is_empty()) {
        (false, true) => name,
        (true, false) => rvec_of_arrays(&name, &leaf.dims),
        _ => rvec(&name),
    })
}

/// RDataFrame's type of a variable-size leaf whose items are fixed-size arrays
/// (`x[n][2][3]/F`): an `RVec` of flat `std::array`s, `RVec<std::array<Float_t, 6>>`.
fn rvec_of_arrays(leaf: &str, dims: &[usize]) -> String {
    let n: usize = dims.iter().product();
    format!("ROOT::VecOps::RVec<std::array<{leaf}, {n}>>")
}

/// A TTree leaf's type name (`Float_t`).
fn leaf_name(prim: Prim) -> String {
    match prim {
        Prim::Bool => "Bool_t",
        Prim::I8 => "Char_t",
        Prim::U8 => "UChar_t",
        Prim::I16 => "Short_t",
        Prim::U16 => "UShort_t",
        Prim::I32 => "Int_t",
        Prim::U32 => "UInt_t",
        Prim::I64 => "Long64_t",
        Prim::U64 => "ULong64_t",
        Prim::F32 => "Float_t",
        Prim::F64 => "Double_t",
        Prim::Double32(_) => "Double32_t",
        Prim::Float16(_) => "Float16_t",
    }
    .to_string()
}

/// Whether C++ class `c` is a standard container other than a vector (a set, a list, a
/// deque, a bitset), of which RDataFrame's column is the container itself, not an `RVec`.
pub(super) fn other_container(c: &str) -> bool {
    let bare = c.trim();
    let bare = bare.strip_prefix("std::").unwrap_or(bare);
    bare.starts_with("bitset<") || crate::array::StdCollection::of_type_name(c).is_some()
}

/// The item type of a `std::vector` branch as its class name spells it (`vector<float>`,
/// `vector<unsigned long>`, `vector<signed char>`: not `char`).
fn vector_item_name(prim: Prim, class: Option<&str>) -> String {
    let item = class.and_then(|c| {
        let inner = c
            .strip_prefix("vector<")
            .or(c.strip_prefix("ROOT::VecOps::RVec<"))?;
        Some(inner.strip_suffix('>')?.trim_end())
    });
    match (item, prim) {
        (Some("long"), Prim::I64) => return "long".into(),
        (Some("unsigned long"), Prim::U64) => return "unsigned long".into(),
        (Some("signed char" | "int8_t" | "std::int8_t"), Prim::I8) => return "signed char".into(),
        _ => {}
    }
    match prim {
        Prim::Bool => "bool",
        Prim::I8 => "char",
        Prim::U8 => "unsigned char",
        Prim::I16 => "short",
        Prim::U16 => "unsigned short",
        Prim::I32 => "int",
        Prim::U32 => "unsigned int",
        Prim::I64 => "Long64_t",
        Prim::U64 => "ULong64_t",
        Prim::F32 => "float",
        Prim::F64 => "double",
        Prim::Double32(_) => "Double32_t",
        Prim::Float16(_) => "Float16_t",
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::holds_long;

    #[test]
    fn longs_are_told_from_their_type_names() {
        for t in [
            "unsigned long",
            "Long_t",
            "std::uint64_t",
            "ROOT::VecOps::RVec<std::size_t>",
        ] {
            assert!(holds_long(t), "{t}");
        }
        let nested = "ROOT::VecOps::RVec<ROOT::VecOps::RVec<long> >";
        assert!(holds_long(nested));
        for t in [
            "ULong64_t",
            "Long64_t",
            "unsigned long long",
            "ROOT::VecOps::RVec<int>",
            "float",
        ] {
            assert!(!holds_long(t), "{t}");
        }
    }
}
