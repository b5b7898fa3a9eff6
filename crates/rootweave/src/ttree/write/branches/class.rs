//! User classes as TTree branches hold them: a class described by its name, version, base
//! classes and typed members, as its dictionary would declare it; ROOT's checksum of such a
//! class, its size and members' offsets on 64-bit Linux, and the class layouts
//! (`TStreamerInfo`) the file carries for it, as ROOT 6.40 writes them.

use std::sync::Arc;

use crate::array::LeafType;
use crate::streamer::{code, Element, ElementClass, StreamerInfo};
use crate::ttree::write::branches::branch::cpp_name;

/// A C++ class (or struct) of a branch: what its dictionary declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassSpec {
    pub(crate) name: String,
    pub(crate) version: i16,
    pub(crate) bases: Vec<Arc<ClassSpec>>,
    pub(crate) members: Vec<MemberSpec>,
    /// ROOT's own classes deriving from `TObject` (`TVector3`, `TLorentzVector`): streamed
    /// with their version and a `TObject` part, never split, of ROOT's checksum.
    pub(crate) tobject: Option<u32>,
}

/// A data member of a class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberSpec {
    pub(crate) name: String,
    pub(crate) ty: MemberType,
}

/// The type of a data member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberType {
    /// A number (`Long64_t` / `ULong64_t` for 64-bit integers, as ROOT names them).
    Number(LeafType),
    /// A fixed-size array of numbers (`float x[3]`, `double m[2][3]`).
    Array(LeafType, Vec<usize>),
    /// `std::string`.
    String,
    /// `std::vector<T>` of a number type.
    Vector(LeafType),
    /// An object of another class, held by value.
    Object(Arc<ClassSpec>),
    /// `std::vector<C>` of objects of another class (one that holds no `std::vector` of a
    /// class itself and does not derive from `TObject`).
    Objects(Arc<ClassSpec>),
}

impl ClassSpec {
    /// Class `name` at class version `version` (1 for a class without `ClassDef`, whose
    /// objects ROOT versions by their checksum), with data members `members` (name, type)
    /// in declaration order.
    pub fn new(name: &str, version: i16, members: Vec<(&str, MemberType)>) -> Self {
        ClassSpec {
            name: name.to_string(),
            version,
            bases: Vec::new(),
            tobject: None,
            members: members
                .into_iter()
                .map(|(name, ty)| MemberSpec {
                    name: name.to_string(),
                    ty,
                })
                .collect(),
        }
    }

    /// With base classes, in declaration order (a batch of this class holds a record of
    /// each base before its members).
    pub fn with_bases(mut self, bases: Vec<Arc<ClassSpec>>) -> Self {
        self.bases = bases;
        self
    }

    /// The class name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The names of the class's own data members, in order.
    pub fn member_names(&self) -> Vec<&str> {
        self.members.iter().map(|m| m.name.as_str()).collect()
    }

    /// Checks names (C++ identifiers, distinct), array dimensions, and classes (one layout
    /// per class name, no class holding itself).
    pub(crate) fn check(&self) -> Result<(), String> {
        let mut seen: Vec<&ClassSpec> = Vec::new();
        self.check_in(&mut seen, 0)
    }

    fn check_in<'a>(&'a self, seen: &mut Vec<&'a ClassSpec>, depth: usize) -> Result<(), String> {
        if depth > 64 {
            return Err(format!("class {}: classes nested over 64 deep", self.name));
        }
        if !is_class_name(&self.name) {
            return Err(format!("class name {:?}", self.name));
        }
        if let Some(other) = seen.iter().find(|c| c.name == self.name) {
            if *other != self {
                return Err(format!(
                    "class {} is described twice, differently",
                    self.name
                ));
            }
            return Ok(());
        }
        seen.push(self);
        for b in &self.bases {
            b.check_in(seen, depth + 1)?;
        }
        let names = self.all_members();
        for (i, (_, m)) in names.iter().enumerate() {
            if !is_identifier(&m.name) || names[..i].iter().any(|(_, o)| o.name == m.name) {
                return Err(format!(
                    "class {}: member name {:?} is not usable or repeated",
                    self.name, m.name
                ));
            }
        }
        for m in &self.members {
            match &m.ty {
                MemberType::Array(_, dims) if dims.is_empty() || dims.contains(&0) => {
                    return Err(format!(
                        "class {}: member {}: array dimensions",
                        self.name, m.name
                    ))
                }
                MemberType::Object(c) => c.check_in(seen, depth + 1)?,
                MemberType::Objects(c) => {
                    if c.tobject.is_some() || c.holds_objects() {
                        return Err(format!(
                            "class {}: member {}: a std::vector of {} (a class deriving from \
                             TObject, or holding a std::vector of a class itself) is not written",
                            self.name, m.name, c.name
                        ));
                    }
                    c.check_in(seen, depth + 1)?
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Every data member with the class declaring it: the bases' (recursively, in
    /// declaration order), then the class's own: the order ROOT streams them member-wise.
    pub(crate) fn all_members(&self) -> Vec<(&ClassSpec, &MemberSpec)> {
        let mut out = Vec::new();
        for b in &self.bases {
            out.extend(b.all_members());
        }
        out.extend(self.members.iter().map(|m| (self, m)));
        out
    }

    /// Number of [`ClassSpec::all_members`].
    pub(crate) fn member_count(&self) -> usize {
        self.bases.iter().map(|b| b.member_count()).sum::<usize>() + self.members.len()
    }

    /// Whether the class or a class it holds has base classes.
    pub(crate) fn has_bases(&self) -> bool {
        !self.bases.is_empty()
            || self.all_members().iter().any(|(_, m)| match &m.ty {
                MemberType::Object(c) | MemberType::Objects(c) => c.has_bases(),
                _ => false,
            })
    }

    /// Whether the class, its bases or the objects it holds have a `std::vector` of a
    /// class as a member (such a class is not written as the items of a `std::vector`).
    pub(crate) fn holds_objects(&self) -> bool {
        self.all_members().iter().any(|(_, m)| match &m.ty {
            MemberType::Objects(_) => true,
            MemberType::Object(c) => c.holds_objects(),
            _ => false,
        })
    }

    /// ROOT's checksum of the class (`TClass::GetCheckSum`): the name, each base's name
    /// and checksum, each member's name, type name and array dimensions, summed into
    /// `id * 3 + c`.
    pub(crate) fn checksum(&self) -> u32 {
        if let Some(checksum) = self.tobject {
            return checksum;
        }
        let mut id = add_text(0, &self.name);
        for b in &self.bases {
            id = add_text(id, &b.name);
            id = id.wrapping_mul(3).wrapping_add(b.checksum());
        }
        for m in &self.members {
            id = add_text(id, &m.name);
            id = add_text(id, &m.ty.type_name());
            if let MemberType::Array(_, dims) = &m.ty {
                for &d in dims {
                    id = id.wrapping_mul(3).wrapping_add(d as u32);
                }
            }
        }
        id
    }

    /// Whether ROOT writes objects of this class with version 0 and the checksum (a class
    /// without `ClassDef`, at version 1 or below) rather than with its version.
    pub(crate) fn versioned_by_checksum(&self) -> bool {
        self.version <= 1
    }

    /// The version header of an object of this class after its byte count: the version,
    /// or 0 and the checksum; for a `TObject`, its version, unique ID and bits after.
    pub(crate) fn version_header(&self, out: &mut Vec<u8>) {
        if self.versioned_by_checksum() {
            out.extend_from_slice(&0u16.to_be_bytes());
            out.extend_from_slice(&self.checksum().to_be_bytes());
        } else {
            out.extend_from_slice(&self.version.to_be_bytes());
        }
        if self.tobject.is_some() {
            out.extend_from_slice(&1u16.to_be_bytes());
            out.extend_from_slice(&[0; 8]);
        }
    }

    /// Size and alignment of an object in memory (x86-64 Linux, libstdc++).
    pub(crate) fn size_align(&self) -> (usize, usize) {
        let (end, align) = self.layout_end();
        // A `TObject` (its virtual table pointer, unique ID and bits) comes first.
        let (end, align) = match self.tobject {
            Some(_) => (16 + end.next_multiple_of(8), align.max(8)),
            None => (end, align),
        };
        (end.max(1).next_multiple_of(align), align)
    }

    /// Offset of each of [`ClassSpec::all_members`], the end of the last, and the largest
    /// alignment.
    fn layout_end(&self) -> (usize, usize) {
        let offsets = self.member_offsets();
        let align = self
            .all_members()
            .iter()
            .map(|(_, m)| m.ty.size_align().1)
            .max()
            .unwrap_or(1);
        let end = self
            .all_members()
            .iter()
            .zip(&offsets)
            .map(|((_, m), at)| at + m.ty.size_align().0)
            .max()
            .unwrap_or(0);
        (end, align)
    }

    /// Offsets in memory of [`ClassSpec::all_members`] (bases laid out first, each at its
    /// alignment, then the class's members).
    pub(crate) fn member_offsets(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = 0usize;
        for b in &self.bases {
            let (size, align) = b.size_align();
            at = at.next_multiple_of(align);
            out.extend(b.member_offsets().into_iter().map(|o| o + at));
            at += size;
        }
        for m in &self.members {
            let (size, align) = m.ty.size_align();
            at = at.next_multiple_of(align);
            out.push(at);
            at += size;
        }
        out
    }

    /// The class layouts of this class and every class it derives from or holds, each
    /// once, in ROOT's order (the class, then its bases and members' classes).
    pub(crate) fn layouts(&self, out: &mut Vec<StreamerInfo>) {
        if out.iter().any(|i| i.class_name == self.name) {
            return;
        }
        let mut elements: Vec<Element> = self.bases.iter().map(|b| base_element(b)).collect();
        if self.tobject.is_some() {
            elements.push(Element::base("TObject", 1));
            if !out.iter().any(|i| i.class_name == "TObject") {
                out.push(tobject_layout());
            }
        }
        elements.extend(self.members.iter().map(member_element));
        out.push(StreamerInfo::new(
            &self.name,
            self.version as i32,
            self.checksum(),
            elements,
        ));
        for b in &self.bases {
            b.layouts(out);
        }
        for m in &self.members {
            if let MemberType::Object(c) | MemberType::Objects(c) = &m.ty {
                c.layouts(out);
            }
        }
    }
}

impl MemberType {
    /// The type name ROOT gives the member (in its checksum and layout).
    pub(crate) fn type_name(&self) -> String {
        match self {
            MemberType::Number(t) | MemberType::Array(t, _) => cpp_name(*t).to_string(),
            MemberType::String => "string".into(),
            MemberType::Vector(t) => format!("vector<{}>", cpp_name(*t)),
            MemberType::Object(c) => c.name.clone(),
            MemberType::Objects(c) => format!("vector<{}>", c.name),
        }
    }

    /// ROOT's type code of the member (`TStreamerElement::fType`, as a branch records it):
    /// the number's code, plus 20 for a fixed-size array; 62 for an object, 300 for an STL
    /// member.
    pub(crate) fn streamer_type(&self) -> i32 {
        match self {
            MemberType::Number(t) => number_code(*t),
            MemberType::Array(t, _) => 20 + number_code(*t),
            MemberType::String | MemberType::Vector(_) | MemberType::Objects(_) => 300,
            MemberType::Object(c) if c.tobject.is_some() => 61,
            MemberType::Object(_) => 62,
        }
    }

    /// Size and alignment in memory.
    pub(crate) fn size_align(&self) -> (usize, usize) {
        match self {
            MemberType::Number(t) => (t.size(), t.size()),
            MemberType::Array(t, dims) => (t.size() * dims.iter().product::<usize>(), t.size()),
            MemberType::String => (32, 8),
            MemberType::Vector(_) | MemberType::Objects(_) => (24, 8),
            MemberType::Object(c) => c.size_align(),
        }
    }
}

/// ROOT's type code of a number (`kInt`, `kDouble`, ...).
pub(crate) fn number_code(t: LeafType) -> i32 {
    match t {
        LeafType::Int8 => 1,
        LeafType::Int16 => 2,
        LeafType::Int32 => 3,
        LeafType::Float32 => 5,
        LeafType::Float64 => 8,
        LeafType::UInt8 => 11,
        LeafType::UInt16 => 12,
        LeafType::UInt32 => 13,
        LeafType::Int64 => 16,
        LeafType::UInt64 => 17,
        LeafType::Bool => 18,
    }
}

/// ROOT's checksum step over a text: each byte added to three times the sum so far.
fn add_text(id: u32, text: &str) -> u32 {
    text.bytes()
        .fold(id, |id, c| id.wrapping_mul(3).wrapping_add(c as u32))
}

/// Whether `name` is a C++ identifier.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `name` is a class name: identifiers joined by `::`, with template arguments
/// (`<...>`, numbers, commas and spaces inside them).
fn is_class_name(name: &str) -> bool {
    let plain = name.split('<').next().unwrap_or("");
    plain.split("::").all(is_identifier)
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_:<>, *".contains(c))
        && name.matches('<').count() == name.matches('>').count()
}

/// An element as ROOT describes it (its class, type code, size, array shape, type name).
fn described(
    name: &str,
    class: ElementClass,
    ty: i32,
    size: usize,
    dims: &[usize],
    type_name: String,
) -> Element {
    let mut e = Element::plain(class, name, ty, &type_name);
    e.size = size as i32;
    for (slot, &d) in e.max_index.iter_mut().zip(dims) {
        *slot = d as i32;
    }
    if !dims.is_empty() {
        e.array_length = dims.iter().product::<usize>() as i32;
    }
    e.array_dim = dims.len() as i32;
    e
}

/// An STL container element (`TStreamerSTL`, or `TStreamerSTLstring` for a
/// `std::string`) of container kind `stl_type` holding items of type code `ctype`.
fn stl(mut e: Element, stl_type: i32, ctype: i32) -> Element {
    e.stl_type = stl_type;
    e.ctype = ctype;
    e
}

/// A base class's element: ROOT keeps the base's checksum in the second array index, and
/// the base version -1 for classes versioned by their checksum.
fn base_element(b: &ClassSpec) -> Element {
    let mut e = described(
        &b.name,
        ElementClass::Base,
        code::BASE,
        0,
        &[],
        "BASE".into(),
    );
    e.base_version = if b.versioned_by_checksum() {
        -1
    } else {
        b.version as i32
    };
    e.max_index[1] = b.checksum() as i32;
    e
}

/// A data member's element.
fn member_element(m: &MemberSpec) -> Element {
    let (size, _) = m.ty.size_align();
    let name = m.ty.type_name();
    let element =
        |class, ty, dims: &[usize]| described(&m.name, class, ty, size, dims, name.clone());
    match &m.ty {
        MemberType::Number(t) => element(ElementClass::BasicType, number_code(*t), &[]),
        MemberType::Array(_, dims) => element(ElementClass::BasicType, m.ty.streamer_type(), dims),
        MemberType::String => stl(
            element(ElementClass::StlString, code::STREAMER, &[]),
            code::STL_STRING,
            code::STL_STRING,
        ),
        // A `std::vector` (STL kind 1) of numbers, or of objects (item code 61).
        MemberType::Vector(_) | MemberType::Objects(_) => stl(
            element(ElementClass::Stl, code::STREAMER, &[]),
            1,
            match &m.ty {
                MemberType::Vector(t) => number_code(*t),
                _ => code::OBJECT,
            },
        ),
        MemberType::Object(c) if c.tobject.is_some() => {
            element(ElementClass::Object, code::OBJECT, &[])
        }
        MemberType::Object(_) => element(ElementClass::ObjectAny, code::ANY, &[]),
    }
}

/// `TObject`'s layout (version 1) as a class deriving from it describes it: its unique ID
/// and its bits (type code 15).
fn tobject_layout() -> StreamerInfo {
    let uint = |name: &str, ty| {
        described(
            name,
            ElementClass::BasicType,
            ty,
            4,
            &[],
            "unsigned int".into(),
        )
    };
    StreamerInfo::new(
        "TObject",
        1,
        0x901b_c02d,
        vec![uint("fUniqueID", code::UINT), uint("fBits", code::BITS)],
    )
}

/// One of ROOT's classes a user class may hold, by the name users know it by: `TVector2`,
/// `TVector3` and `TLorentzVector` (classes deriving from `TObject`, never split), and the
/// `ROOT::Math` vectors (`XYZVector`, `XYZPoint`, `Polar3DVector`, `RhoEtaPhiVector`,
/// `RhoZPhiVector`, `PxPyPzEVector`/`XYZTVector`, `PxPyPzMVector`, `PtEtaPhiEVector`,
/// `PtEtaPhiMVector`, with or without `ROOT::Math::`; or their full template names), each
/// a class holding its coordinates' class (`fCoordinates`).
pub fn root_class(name: &str) -> Option<Arc<ClassSpec>> {
    let d = || MemberType::Number(LeafType::Float64);
    let vector3 = || {
        let mut c = ClassSpec::new("TVector3", 3, vec![("fX", d()), ("fY", d()), ("fZ", d())]);
        c.tobject = Some(0xabb6_be1e);
        Arc::new(c)
    };
    match name {
        "TVector2" => {
            let mut c = ClassSpec::new("TVector2", 3, vec![("fX", d()), ("fY", d())]);
            c.tobject = Some(0x0089_b7f4);
            return Some(Arc::new(c));
        }
        "TVector3" => return Some(vector3()),
        "TLorentzVector" => {
            let mut c = ClassSpec::new(
                "TLorentzVector",
                4,
                vec![("fP", MemberType::Object(vector3())), ("fE", d())],
            );
            c.tobject = Some(0xe3de_c1a1);
            return Some(Arc::new(c));
        }
        _ => {}
    }
    let short = name.strip_prefix("ROOT::Math::").unwrap_or(name);
    let (vector, coordinates, members): (&str, &str, [&str; 4]) = match short {
        "XYZVector" => (
            "DisplacementVector3D",
            "Cartesian3D",
            ["fX", "fY", "fZ", ""],
        ),
        "XYZPoint" => ("PositionVector3D", "Cartesian3D", ["fX", "fY", "fZ", ""]),
        "Polar3DVector" => (
            "DisplacementVector3D",
            "Polar3D",
            ["fR", "fTheta", "fPhi", ""],
        ),
        "RhoEtaPhiVector" => (
            "DisplacementVector3D",
            "CylindricalEta3D",
            ["fRho", "fEta", "fPhi", ""],
        ),
        "RhoZPhiVector" => (
            "DisplacementVector3D",
            "Cylindrical3D",
            ["fRho", "fZ", "fPhi", ""],
        ),
        "PxPyPzEVector" | "XYZTVector" => ("LorentzVector", "PxPyPzE4D", ["fX", "fY", "fZ", "fT"]),
        "PxPyPzMVector" => ("LorentzVector", "PxPyPzM4D", ["fX", "fY", "fZ", "fM"]),
        "PtEtaPhiEVector" => (
            "LorentzVector",
            "PtEtaPhiE4D",
            ["fPt", "fEta", "fPhi", "fE"],
        ),
        "PtEtaPhiMVector" => (
            "LorentzVector",
            "PtEtaPhiM4D",
            ["fPt", "fEta", "fPhi", "fM"],
        ),
        _ => {
            // A full template name: the same classes.
            return [
                "XYZVector",
                "XYZPoint",
                "Polar3DVector",
                "RhoEtaPhiVector",
                "RhoZPhiVector",
                "PxPyPzEVector",
                "PxPyPzMVector",
                "PtEtaPhiEVector",
                "PtEtaPhiMVector",
            ]
            .iter()
            .filter_map(|n| root_class(n))
            .find(|c| same_spelling(&c.name, name));
        }
    };
    let coordinates = Arc::new(ClassSpec::new(
        &format!("ROOT::Math::{coordinates}<double>"),
        1,
        members
            .iter()
            .filter(|m| !m.is_empty())
            .map(|m| (*m, d()))
            .collect(),
    ));
    let name = match vector {
        "LorentzVector" => format!("ROOT::Math::LorentzVector<{} >", coordinates.name),
        v => format!(
            "ROOT::Math::{v}<{},ROOT::Math::DefaultCoordinateSystemTag>",
            coordinates.name
        ),
    };
    Some(Arc::new(ClassSpec::new(
        &name,
        1,
        vec![("fCoordinates", MemberType::Object(coordinates))],
    )))
}

/// Whether two C++ type names are the same but for spaces (`> >` and `>>`).
fn same_spelling(a: &str, b: &str) -> bool {
    a.chars()
        .filter(|c| *c != ' ')
        .eq(b.chars().filter(|c| *c != ' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vec3() -> Arc<ClassSpec> {
        let d = || MemberType::Number(LeafType::Float64);
        Arc::new(ClassSpec::new(
            "RwVec3",
            1,
            vec![("x", d()), ("y", d()), ("z", d())],
        ))
    }

    #[test]
    fn checksums_are_roots() {
        // Values ROOT 6.40 gives these classes (TClass::GetCheckSum, with a dictionary).
        assert_eq!(vec3().checksum(), 0x6fd6_b276);
        let base = Arc::new(ClassSpec::new(
            "RwBase",
            1,
            vec![
                ("id", MemberType::Number(LeafType::Int32)),
                ("w", MemberType::Number(LeafType::Float32)),
            ],
        ));
        assert_eq!(base.checksum(), 0x5976_892f);
        let event = ClassSpec::new(
            "RwEvent",
            1,
            vec![
                ("p0", MemberType::Object(vec3())),
                ("p1", MemberType::Object(vec3())),
                ("d0", MemberType::Number(LeafType::Float64)),
                ("i0", MemberType::Number(LeafType::Int32)),
                ("arr", MemberType::Array(LeafType::Float32, vec![3])),
                ("s", MemberType::String),
                ("v", MemberType::Vector(LeafType::Float32)),
            ],
        )
        .with_bases(vec![base]);
        assert_eq!(event.checksum(), 0x7673_19d7);
        // Memory layout: the base's members first, then p0 at 8 (aligned), ...
        assert_eq!(event.member_offsets(), [0, 4, 8, 32, 56, 64, 68, 80, 112]);
        assert_eq!(event.size_align(), (136, 8));
        assert!(event.check().is_ok());
    }

    #[test]
    fn roots_own_classes_have_roots_names_and_checksums() {
        let v3 = root_class("ROOT::Math::XYZVector").unwrap();
        assert_eq!(
            v3.name,
            "ROOT::Math::DisplacementVector3D<ROOT::Math::Cartesian3D<double>,ROOT::Math::DefaultCoordinateSystemTag>"
        );
        assert_eq!(v3.checksum(), 0x3e40_083c);
        let p4 = root_class("PtEtaPhiMVector").unwrap();
        assert_eq!(
            p4.name,
            "ROOT::Math::LorentzVector<ROOT::Math::PtEtaPhiM4D<double> >"
        );
        assert_eq!(p4.checksum(), 0xc524_0386);
        assert_eq!(root_class(&p4.name), Some(p4.clone()));
        // As an RNTuple spells it.
        let unspaced = "ROOT::Math::LorentzVector<ROOT::Math::PtEtaPhiM4D<double>>";
        assert_eq!(root_class(unspaced), Some(p4.clone()));
        // A class holding them: the checksum ROOT 6.40 gives `struct RwMath { XYZVector v3;
        // PtEtaPhiMVector v4; TVector3 t3; TLorentzVector t4; double e; }`.
        let math = ClassSpec::new(
            "RwMath",
            1,
            vec![
                ("v3", MemberType::Object(v3)),
                ("v4", MemberType::Object(p4)),
                ("t3", MemberType::Object(root_class("TVector3").unwrap())),
                (
                    "t4",
                    MemberType::Object(root_class("TLorentzVector").unwrap()),
                ),
                ("e", MemberType::Number(LeafType::Float64)),
            ],
        );
        assert_eq!(math.checksum(), 0xfe3a_3c9b);
        assert!(math.check().is_ok());
        // Sizes as ROOT's element sizes say: TVector2 32, TVector3 40, TLorentzVector 64 bytes.
        assert_eq!(root_class("TVector2").unwrap().size_align().0, 32);
        assert_eq!(root_class("TVector3").unwrap().size_align().0, 40);
        assert_eq!(root_class("TLorentzVector").unwrap().size_align().0, 64);
    }

    #[test]
    fn bad_classes_are_refused() {
        let n = || MemberType::Number(LeafType::Int32);
        let twice = ClassSpec::new("A", 1, vec![("x", n()), ("x", n())]);
        assert!(twice.check().unwrap_err().contains("repeated"));
        let bad = ClassSpec::new("A b", 1, vec![("x", n())]);
        assert!(bad.check().is_err());
        let empty_dims = ClassSpec::new(
            "A",
            1,
            vec![("x", MemberType::Array(LeafType::Int32, vec![]))],
        );
        assert!(empty_dims.check().is_err());
        let other_a = Arc::new(ClassSpec::new("A", 1, vec![("y", n())]));
        let clash = ClassSpec::new("A", 1, vec![("x", MemberType::Object(other_a))]);
        assert!(clash.check().unwrap_err().contains("described twice"));
    }
}
