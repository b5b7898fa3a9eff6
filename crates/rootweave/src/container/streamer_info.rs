//! `TStreamerInfo` records: the class layouts a file carries so that readers (ROOT for
//! schema evolution, uproot for any class it has no built-in model of) can decode objects.
//!
//! Every object is written with a new-class tag (class name spelled out) and never with a
//! back-reference, so the bytes do not depend on where they end up in the file.

use std::borrow::Cow;

use super::stream::ObjectStream;

/// ROOT's `TStreamerInfo` type codes of the basic members this library writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum BasicType {
    /// `char` (kChar).
    Char = 1,
    /// `short` (kShort).
    Short = 2,
    /// `int` (kInt).
    Int = 3,
    /// An `int` holding the length of an array member (kCounter).
    Counter = 6,
    /// `float` (kFloat).
    Float = 5,
    /// `double` (kDouble).
    Double = 8,
    /// `unsigned char` (kUChar).
    UChar = 11,
    /// `unsigned short` (kUShort).
    UShort = 12,
    /// `unsigned int` (kUInt).
    UInt = 13,
    /// `unsigned long` / `std::uint64_t` (kULong64 is 17; `unsigned long` is kULong, 14).
    ULong = 14,
    /// `Long64_t` (kLong64).
    Long64 = 16,
    /// `bool` (kBool).
    Bool = 18,
}

impl BasicType {
    fn size(self) -> i32 {
        match self {
            BasicType::Char | BasicType::UChar | BasicType::Bool => 1,
            BasicType::Short | BasicType::UShort => 2,
            BasicType::Int | BasicType::Counter | BasicType::UInt | BasicType::Float => 4,
            BasicType::Double | BasicType::ULong | BasicType::Long64 => 8,
        }
    }

    fn type_name(self) -> &'static str {
        match self {
            BasicType::Char => "char",
            BasicType::Short => "short",
            BasicType::Int | BasicType::Counter => "int",
            BasicType::Float => "float",
            BasicType::Double => "double",
            BasicType::UChar => "unsigned char",
            BasicType::UShort => "unsigned short",
            BasicType::UInt => "unsigned int",
            BasicType::ULong => "unsigned long",
            BasicType::Long64 => "Long64_t",
            BasicType::Bool => "bool",
        }
    }
}

/// What a member of a class layout is, as a `TStreamerElement` subclass says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElementKind {
    /// A base class (`TStreamerBase`) of the given class version.
    Base {
        /// The base's class version.
        version: i32,
    },
    /// A number (`TStreamerBasicType`).
    Basic(BasicType),
    /// An enumeration, streamed as an `int` (`TStreamerBasicType` of the enum's name).
    Enum(&'static str),
    /// A pointer to an array of numbers whose length another member holds
    /// (`TStreamerBasicPointer`, `Long64_t* x //[n]`).
    BasicPointer {
        /// The number type.
        ty: BasicType,
        /// The member holding the length.
        count: &'static str,
        /// The class holding that member, and its version.
        count_class: &'static str,
        /// The class version of `count_class`.
        count_version: i32,
    },
    /// An embedded object of a class (`TStreamerObject`, a `TObject` descendant).
    Object(&'static str),
    /// An embedded object of a class not descending from `TObject` (`TStreamerObjectAny`).
    ObjectAny(&'static str),
    /// A pointer to an object (`TStreamerObjectPointer`).
    ObjectPointer(&'static str),
    /// A pointer that is never null (`->` in its comment), streamed as the object itself
    /// (`TStreamerObjectPointer` of type kObjectp).
    ObjectPointerAlways(&'static str),
    /// A `TString` (`TStreamerString`).
    String,
    /// An element as a file describes it, kept whole to be written again (a layout taken
    /// from another file).
    Described(Box<Described>),
}

/// A `TStreamerElement` of any subclass as read from a file: what it streams, and what its
/// subclass adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described {
    /// The subclass (`TStreamerBase`, `TStreamerSTL`, ...).
    pub element_class: &'static str,
    /// ROOT's type code.
    pub code: i32,
    /// The size in memory.
    pub size: i32,
    /// Total length of a fixed-size array (0: not an array).
    pub array_length: i32,
    /// Its number of dimensions.
    pub array_dim: i32,
    /// Its dimensions.
    pub max_index: [i32; 5],
    /// The C++ type name.
    pub type_name: String,
    /// What the subclass adds.
    pub extra: DescribedExtra,
}

/// What a `TStreamerElement` subclass streams after the element's common part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DescribedExtra {
    /// Nothing.
    None,
    /// `TStreamerBase`: the base class's version.
    Base(i32),
    /// `TStreamerBasicPointer` and `TStreamerLoop`: the counter's class version, name and
    /// class.
    Count(i32, String, String),
    /// `TStreamerSTL` (and `TStreamerSTLstring` when the flag is set): container kind and
    /// element type code.
    Stl(i32, i32, bool),
}

/// One member of a class layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// The member's (or base class's) name.
    pub name: Cow<'static, str>,
    /// Its description.
    pub title: Cow<'static, str>,
    /// What it is.
    pub kind: ElementKind,
}

impl Element {
    /// A member of a basic type.
    pub fn basic(name: &'static str, title: &'static str, ty: BasicType) -> Self {
        Element {
            name: name.into(),
            title: title.into(),
            kind: ElementKind::Basic(ty),
        }
    }

    /// ROOT's type code, in-memory size and type name of the member.
    fn code_size_name(&self) -> (i32, i32, String) {
        match &self.kind {
            ElementKind::Base { .. } => {
                let code = match &*self.name {
                    "TObject" => 66,
                    "TNamed" => 67,
                    _ => 0,
                };
                (code, 0, "BASE".into())
            }
            ElementKind::Basic(ty) => (*ty as i32, ty.size(), ty.type_name().into()),
            ElementKind::Enum(name) => (3, 4, name.to_string()),
            ElementKind::BasicPointer { ty, .. } => {
                (40 + *ty as i32, 8, format!("{}*", ty.type_name()))
            }
            ElementKind::Object(class) => (61, 0, class.to_string()),
            ElementKind::ObjectAny(class) => (62, 0, class.to_string()),
            ElementKind::ObjectPointer(class) => (64, 8, format!("{class}*")),
            ElementKind::ObjectPointerAlways(class) => (63, 8, format!("{class}*")),
            ElementKind::String => (65, 24, "TString".into()),
            ElementKind::Described(d) => (d.code, d.size, d.type_name.clone()),
        }
    }
}

/// A class layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamerInfo {
    /// The class name.
    pub class_name: Cow<'static, str>,
    /// ROOT's checksum of the class layout.
    pub checksum: u32,
    /// The class version.
    pub class_version: i32,
    /// The members in streaming order (base classes first).
    pub elements: Vec<Element>,
}

/// The layout of `ROOT::RNTuple` (the anchor), class version 2, as ROOT 6.40 declares it.
pub fn rntuple_anchor_info() -> StreamerInfo {
    use BasicType::*;
    let members = [
        ("fVersionEpoch", UShort),
        ("fVersionMajor", UShort),
        ("fVersionMinor", UShort),
        ("fVersionPatch", UShort),
        ("fSeekHeader", ULong),
        ("fNBytesHeader", ULong),
        ("fLenHeader", ULong),
        ("fSeekFooter", ULong),
        ("fNBytesFooter", ULong),
        ("fLenFooter", ULong),
        ("fMaxKeySize", ULong),
    ];
    StreamerInfo {
        class_name: "ROOT::RNTuple".into(),
        checksum: 0x28e6_32ec,
        class_version: 2,
        elements: members
            .into_iter()
            .map(|(name, ty)| Element::basic(name, "", ty))
            .collect(),
    }
}

/// `kIsOnHeap`-style bits ROOT 6.40 stores in a `TStreamerInfo`'s `TObject`.
const STREAMER_INFO_BITS: u32 = 0x0001_0000;

fn write_info(b: &mut ObjectStream, info: &StreamerInfo) {
    b.begin_object("TStreamerInfo");
    b.begin();
    b.u16(10);
    b.tnamed(&info.class_name, "", STREAMER_INFO_BITS);
    b.u32(info.checksum);
    b.i32(info.class_version);
    b.begin_object("TObjArray");
    b.begin();
    b.u16(3);
    b.tobject(0);
    b.tstring("");
    b.i32(info.elements.len() as i32);
    b.i32(0);
    for element in &info.elements {
        write_element(b, element);
    }
    b.end();
    b.end();
    b.end();
    b.end();
}

/// A `TStreamerElement` subclass: the element's common part (version 4), then what the
/// subclass adds.
fn write_element(b: &mut ObjectStream, element: &Element) {
    let (class, version) = match &element.kind {
        ElementKind::Base { .. } => ("TStreamerBase", 3),
        ElementKind::Basic(_) | ElementKind::Enum(_) => ("TStreamerBasicType", 2),
        ElementKind::BasicPointer { .. } => ("TStreamerBasicPointer", 2),
        ElementKind::Object(_) => ("TStreamerObject", 2),
        ElementKind::ObjectAny(_) => ("TStreamerObjectAny", 2),
        ElementKind::ObjectPointer(_) | ElementKind::ObjectPointerAlways(_) => {
            ("TStreamerObjectPointer", 2)
        }
        ElementKind::String => ("TStreamerString", 2),
        ElementKind::Described(d) => (d.element_class, element_version(d.element_class)),
    };
    let (code, size, type_name) = element.code_size_name();
    let (array_length, array_dim, max_index) = match &element.kind {
        ElementKind::Described(d) => (d.array_length, d.array_dim, d.max_index),
        _ => (0, 0, [0; 5]),
    };
    b.begin_object(class);
    b.begin();
    b.u16(version);
    let stl_string = matches!(
        &element.kind,
        ElementKind::Described(d) if matches!(d.extra, DescribedExtra::Stl(_, _, true))
    );
    if stl_string {
        // TStreamerSTLstring: its version, then the TStreamerSTL it derives from.
        b.begin();
        b.u16(3);
    }
    b.begin();
    b.u16(4);
    b.tnamed(&element.name, &element.title, 0);
    b.i32(code);
    b.i32(size);
    b.i32(array_length);
    b.i32(array_dim);
    for i in max_index {
        b.i32(i);
    }
    b.tstring(&type_name);
    b.end();
    match &element.kind {
        ElementKind::Base { version } => b.i32(*version),
        ElementKind::BasicPointer {
            count,
            count_class,
            count_version,
            ..
        } => {
            b.i32(*count_version);
            b.tstring(count);
            b.tstring(count_class);
        }
        ElementKind::Described(d) => match &d.extra {
            DescribedExtra::None => {}
            DescribedExtra::Base(v) => b.i32(*v),
            DescribedExtra::Count(v, name, class) => {
                b.i32(*v);
                b.tstring(name);
                b.tstring(class);
            }
            DescribedExtra::Stl(stl_type, ctype, _) => {
                b.i32(*stl_type);
                b.i32(*ctype);
            }
        },
        _ => {}
    }
    if stl_string {
        b.end();
    }
    b.end();
    b.end();
}

/// The class version ROOT 6.40 writes a `TStreamerElement` subclass with.
fn element_version(class: &str) -> u16 {
    match class {
        "TStreamerBase" | "TStreamerSTL" => 3,
        _ => 2,
    }
}

/// The payload of a file's StreamerInfo record: a streamed `TList` of the given infos.
pub fn streamer_list(infos: &[StreamerInfo]) -> Vec<u8> {
    let mut b = ObjectStream::default();
    b.begin();
    b.u16(5);
    b.tobject(0);
    b.tstring("");
    b.i32(infos.len() as i32);
    for info in infos {
        write_info(&mut b, info);
        b.u8(0); // option string of the list entry
    }
    b.end();
    b.into_bytes()
}

/// `record` (a file's StreamerInfo record: a streamed `TList`) with `infos` added at its
/// end, for a file given objects of classes its record lacks. The record's own bytes and
/// reference tags stay where they are (only its byte count and object count change), and
/// the added layouts refer to nothing before them. `None` if the list's header cannot be
/// read.
pub fn extend_streamer_list(record: &[u8], infos: &[StreamerInfo]) -> Option<Vec<u8>> {
    let u32_at = |p: usize| Some(u32::from_be_bytes(record.get(p..p + 4)?.try_into().ok()?));
    const BYTE_COUNT: u32 = 0x4000_0000;
    const IS_REFERENCED: u32 = 1 << 4;
    let count = u32_at(0)?;
    if count & BYTE_COUNT == 0 || (count & !BYTE_COUNT) as usize + 4 != record.len() {
        return None;
    }
    // Version, then TObject (version, unique id, bits, a process id if referenced).
    let bits = u32_at(12)?;
    let mut at = 16 + if bits & IS_REFERENCED != 0 { 2 } else { 0 };
    // The list's name, a TString.
    at += match *record.get(at)? {
        255 => 5 + u32_at(at + 1)? as usize,
        n => 1 + n as usize,
    };
    let listed = u32_at(at)?;
    let mut out = record.to_vec();
    out[at..at + 4].copy_from_slice(&(listed + infos.len() as u32).to_be_bytes());
    let mut b = ObjectStream::default();
    for info in infos {
        write_info(&mut b, info);
        b.u8(0); // option string of the list entry
    }
    out.extend_from_slice(&b.into_bytes());
    let total = u32::try_from(out.len() - 4)
        .ok()
        .filter(|&n| n < BYTE_COUNT)?;
    out[..4].copy_from_slice(&(total | BYTE_COUNT).to_be_bytes());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_list_matches_root() {
        assert_eq!(
            streamer_list(&[]),
            [0x40, 0, 0, 0x11, 0, 5, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        );
    }

    #[test]
    fn extended_list_equals_one_written_whole() {
        let first = streamer_list(&[rntuple_anchor_info()]);
        let mut other = rntuple_anchor_info();
        other.class_name = "Other".into();
        let extended = extend_streamer_list(&first, &[other.clone()]).unwrap();
        assert_eq!(extended, streamer_list(&[rntuple_anchor_info(), other]));
        assert_eq!(extend_streamer_list(&first, &[]).unwrap(), first);
        assert!(extend_streamer_list(&first[..first.len() - 1], &[]).is_none());
        assert!(extend_streamer_list(&[0x40, 0, 0], &[]).is_none());
    }

    #[test]
    fn anchor_info_has_root_layout() {
        let bytes = streamer_list(&[rntuple_anchor_info()]);
        // ROOT 6.40 writes 1254 bytes for this list, with back-references to the
        // TStreamerBasicType class; each of the 10 repeated class names costs 19 + 4 - 4
        // bytes more here than a 4-byte reference.
        assert_eq!(bytes.len(), 1254 + 10 * 19);
        assert_eq!(&bytes[..6], &[0x40, 0, 0x05, 0xa0, 0, 5]);
        let find = |needle: &[u8]| bytes.windows(needle.len()).position(|w| w == needle);
        // The info's header: class name, checksum and version.
        let at = find(b"\x0dROOT::RNTuple\x00").unwrap();
        assert_eq!(
            &bytes[at + 15..at + 23],
            &[0x28, 0xe6, 0x32, 0xec, 0, 0, 0, 2]
        );
        // An element exactly as ROOT streams it (after its class tag).
        let element: &[u8] = b"\x40\x00\x00\x5a\x00\x02\x40\x00\x00\x54\x00\x04\x40\x00\x00\x1b\x00\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x0dfVersionEpoch\x00\x00\x00\x00\x0c\x00\x00\x00\x02";
        assert!(find(element).is_some());
    }
}
