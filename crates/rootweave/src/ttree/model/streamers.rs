//! The class layouts a file describes in its StreamerInfo record: `TStreamerInfo`
//! objects, each a list of `TStreamerElement`s (bases, basic types, pointers to arrays,
//! strings, objects, STL containers), parsed into [`StreamerInfo`] records that
//! [`super::object`] follows to read objects member by member.
//!
//! The streamer classes themselves (`TStreamerInfo`, `TStreamerElement` and its
//! subclasses, `TObjArray`, `TList`) are read by built-in code: the file cannot
//! describe how to read its own descriptions.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::cursor::Trace;
use super::cursor::{Cursor, Tagged, MAX_DEPTH};
use super::name::Name;
use super::object::ObjectReader;
use crate::error::Result;

/// Type codes of `TStreamerElement::fType` (ROOT's `TVirtualStreamerInfo` enum), the
/// whole table: the TTree writer describes classes with the codes readers only meet.
#[allow(dead_code)]
pub mod code {
    /// A base class.
    pub const BASE: i32 = 0;
    /// `Char_t`.
    pub const CHAR: i32 = 1;
    /// `Short_t`.
    pub const SHORT: i32 = 2;
    /// `Int_t`.
    pub const INT: i32 = 3;
    /// `Long_t` (8 bytes on disk).
    pub const LONG: i32 = 4;
    /// `Float_t`.
    pub const FLOAT: i32 = 5;
    /// An `Int_t` that counts the elements of an array member.
    pub const COUNTER: i32 = 6;
    /// `char*`.
    pub const CHAR_STAR: i32 = 7;
    /// `Double_t`.
    pub const DOUBLE: i32 = 8;
    /// `Double32_t`.
    pub const DOUBLE32: i32 = 9;
    /// Legacy char.
    pub const LEGACY_CHAR: i32 = 10;
    /// `UChar_t`.
    pub const UCHAR: i32 = 11;
    /// `UShort_t`.
    pub const USHORT: i32 = 12;
    /// `UInt_t`.
    pub const UINT: i32 = 13;
    /// `ULong_t` (8 bytes on disk).
    pub const ULONG: i32 = 14;
    /// `TObject::fBits`-like `UInt_t`.
    pub const BITS: i32 = 15;
    /// `Long64_t`.
    pub const LONG64: i32 = 16;
    /// `ULong64_t`.
    pub const ULONG64: i32 = 17;
    /// `Bool_t`.
    pub const BOOL: i32 = 18;
    /// `Float16_t`.
    pub const FLOAT16: i32 = 19;
    /// Added to a basic type: a fixed-size array of it.
    pub const OFFSET_L: i32 = 20;
    /// Added to a basic type: a pointer to an array whose length another member holds.
    pub const OFFSET_P: i32 = 40;
    /// An object (with `TObject` in its bases).
    pub const OBJECT: i32 = 61;
    /// An object of any class.
    pub const ANY: i32 = 62;
    /// A pointer to an object (`TObject*`) marked `//->`: never null, and streamed in
    /// place like an embedded object (no class tag).
    pub const OBJECT_P_NOT_NULL: i32 = 63;
    /// A pointer to an object (`TObject*`).
    pub const OBJECT_P: i32 = 64;
    /// `TString`.
    pub const TSTRING: i32 = 65;
    /// A `TObject` member.
    pub const TOBJECT: i32 = 66;
    /// A `TNamed` member.
    pub const TNAMED: i32 = 67;
    /// A pointer to an object of any class marked `//->`: streamed in place.
    pub const ANY_P: i32 = 68;
    /// A pointer to an object of any class (behind a class tag, or null).
    pub const ANY_P2: i32 = 69;
    /// A pointer to an object of a class without virtual table.
    pub const ANY_P_NO_VT: i32 = 70;
    /// A pointer to an STL container.
    pub const STL_P: i32 = 71;
    /// An STL container.
    pub const STL: i32 = 300;
    /// `std::string`.
    pub const STL_STRING: i32 = 365;
    /// A member with a custom streamer.
    pub const STREAMER: i32 = 500;
    /// A pointer to an array of objects whose length another member holds.
    pub const STREAM_LOOP: i32 = 501;
}

/// Which `TStreamerElement` subclass an element was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementClass {
    /// `TStreamerBase`.
    Base,
    /// `TStreamerBasicType`.
    BasicType,
    /// `TStreamerBasicPointer`.
    BasicPointer,
    /// `TStreamerLoop`.
    Loop,
    /// `TStreamerString` (`TString`).
    String,
    /// `TStreamerObject`.
    Object,
    /// `TStreamerObjectAny`.
    ObjectAny,
    /// `TStreamerObjectPointer`.
    ObjectPointer,
    /// `TStreamerObjectAnyPointer`.
    ObjectAnyPointer,
    /// `TStreamerSTL`.
    Stl,
    /// `TStreamerSTLstring`.
    StlString,
    /// `TStreamerArtificial` or any other element class.
    Other,
}

/// One member (or base class) of a class layout.
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    /// The element's class.
    pub class: ElementClass,
    /// Member name (for a base: the base class name).
    pub name: Name,
    /// Member comment (holds `[xmin,xmax,nbits]` ranges of `Double32_t`/`Float16_t`).
    pub title: String,
    /// Type code (see [`code`]).
    pub ty: i32,
    /// Size in memory.
    pub size: i32,
    /// Total length of a fixed-size array member (0 if not an array).
    pub array_length: i32,
    /// Number of dimensions of a fixed-size array member.
    pub array_dim: i32,
    /// Dimensions of a fixed-size array member.
    pub max_index: [i32; 5],
    /// C++ type name.
    pub type_name: String,
    /// Version of the base class (`TStreamerBase`).
    pub base_version: i32,
    /// Name of the member holding the array length (`TStreamerBasicPointer`, `TStreamerLoop`).
    pub count_name: String,
    /// The class holding that member, and its version.
    pub count_class: String,
    /// See `count_class`.
    pub count_version: i32,
    /// STL container kind (`TStreamerSTL`: 1 vector, 2 list, 3 deque, 4 map, 5 multimap,
    /// 6 set, 7 multiset, ...).
    pub stl_type: i32,
    /// Type code of the STL container's elements (`TStreamerSTL`).
    pub ctype: i32,
}

impl Element {
    /// A member of kind `class` named `name`, of streamer type `ty` and C++ type
    /// `type_name`, with no title, array dimensions or count (a layout made in code, not
    /// read from a file).
    pub fn plain(class: ElementClass, name: &str, ty: i32, type_name: &str) -> Self {
        Element {
            class,
            name: name.into(),
            title: String::new(),
            ty,
            size: 0,
            array_length: 0,
            array_dim: 0,
            max_index: [0; 5],
            type_name: type_name.into(),
            base_version: 1,
            count_name: String::new(),
            count_class: String::new(),
            count_version: 0,
            stl_type: 0,
            ctype: 0,
        }
    }
}

/// The layout of one version of one class.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamerInfo {
    /// Class name.
    pub name: String,
    /// Checksum of the layout.
    pub checksum: u32,
    /// Class version.
    pub class_version: i32,
    /// Members in streaming order.
    pub elements: Vec<Element>,
}

/// All class layouts of a file, by class name and version.
#[derive(Debug, Clone, Default)]
pub struct StreamerSet {
    infos: Vec<StreamerInfo>,
    by_name: HashMap<String, Vec<usize>>,
}

impl StreamerSet {
    /// Parses the uncompressed payload of a file's StreamerInfo record (a `TList`).
    /// `keylen` is the length of the record's key (reference tags count from it).
    pub fn parse(payload: &[u8], base: u64, file: &str, keylen: u32) -> Result<Self> {
        let mut c = Cursor::new(payload, base, file, "StreamerInfo record", keylen);
        Self::parse_list(&mut c)
    }

    /// [`StreamerSet::parse`], also noting where the record's byte counts and reference
    /// tags lie (to write it in a key of another length). The list's other entries (the
    /// schema evolution rules) are read as generic objects; what cannot be read is noted
    /// as opaque.
    pub(crate) fn parse_traced(
        payload: &[u8],
        base: u64,
        file: &str,
        keylen: u32,
    ) -> Result<(Self, Trace)> {
        let mut c = Cursor::new(payload, base, file, "StreamerInfo record", keylen).traced();
        let set = Self::parse_list(&mut c)?;
        Ok((set, c.trace().cloned().unwrap_or_default()))
    }

    fn parse_list(c: &mut Cursor) -> Result<Self> {
        let mut set = StreamerSet::default();
        let list = c.frame()?;
        skip_tobject(c)?;
        c.r.tstring()?;
        let n = c.r.i32()?;
        if n < 0 || n as usize > c.r.remaining() {
            return Err(c.error(format!("{n} streamer records in the list")));
        }
        for _ in 0..n {
            match c.tagged()? {
                Some(Tagged::New { class, end, .. }) => {
                    if class == "TStreamerInfo" {
                        let info = read_streamer_info(c)?;
                        set.add(info);
                    } else if let Some(end) = end {
                        // A generic read keeps the entry's tags in a traced cursor's notes.
                        let (start, notes) = (c.pos(), c.notes());
                        let read = ObjectReader { streamers: &set }.read(c, &class);
                        if read.is_err() || c.pos() > end {
                            c.forget_notes_after(notes);
                            c.seek(start)?;
                            c.opaque(start..end);
                        }
                    }
                    if let Some(end) = end {
                        if c.pos() < end {
                            c.opaque(c.pos()..end);
                        }
                        c.seek(end)?;
                    }
                }
                Some(Tagged::Ref(_)) | None => {}
            }
            // The option string of each list entry.
            let len = c.r.u8()? as usize;
            c.r.take(len)?;
        }
        c.finish(&list, "StreamerInfo list")?;
        Ok(set)
    }

    /// Adds a class layout.
    pub fn add(&mut self, info: StreamerInfo) {
        let i = self.infos.len();
        self.by_name.entry(info.name.clone()).or_default().push(i);
        self.infos.push(info);
    }

    /// The layout of `class` at `version`, or the only/latest layout of `class` when
    /// that version is not described.
    pub fn get(&self, class: &str, version: i32) -> Option<&StreamerInfo> {
        let list = self.by_name.get(class)?;
        list.iter()
            .map(|&i| &self.infos[i])
            .find(|s| s.class_version == version)
            .or_else(|| {
                list.iter()
                    .map(|&i| &self.infos[i])
                    .max_by_key(|s| s.class_version)
            })
    }

    /// How many layouts (class versions) of `class` the file describes.
    pub fn versions(&self, class: &str) -> usize {
        self.by_name.get(class).map_or(0, Vec::len)
    }

    /// Every layout, in file order.
    pub fn all(&self) -> &[StreamerInfo] {
        &self.infos
    }
}

/// Skips a `TObject` (version, unique ID, bits and, for referenced objects, a process ID).
pub fn skip_tobject(c: &mut Cursor) -> Result<(u32, u32)> {
    let frame = c.frame()?;
    let unique_id = c.r.u32()?;
    let bits = c.r.u32()?;
    if bits & (1 << 4) != 0 {
        c.r.u16()?;
    }
    c.finish(&frame, "TObject")?;
    Ok((unique_id, bits))
}

/// Reads a `TNamed` (framed `TObject`, name, title).
pub fn read_tnamed(c: &mut Cursor) -> Result<(String, String)> {
    let frame = c.frame()?;
    skip_tobject(c)?;
    let name = c.r.tstring()?;
    let title = c.r.tstring()?;
    c.finish(&frame, "TNamed")?;
    Ok((name, title))
}

fn read_streamer_info(c: &mut Cursor) -> Result<StreamerInfo> {
    let frame = c.frame()?;
    let (name, _) = read_tnamed(c)?;
    let checksum = c.r.u32()?;
    let class_version = c.r.i32()?;
    let mut elements = Vec::new();
    if let Some(Tagged::New { class, end, .. }) = c.tagged()? {
        if class != "TObjArray" {
            return Err(c.error(format!(
                "the elements of class '{name}' are a {class}, not a TObjArray"
            )));
        }
        let array = c.frame()?;
        skip_tobject(c)?;
        c.r.tstring()?;
        let n = c.r.i32()?;
        c.r.i32()?;
        if n < 0 || n as usize > c.r.remaining() {
            return Err(c.error(format!("class '{name}' has {n} elements")));
        }
        for _ in 0..n {
            if let Some(Tagged::New { class, end, .. }) = c.tagged()? {
                let element = read_element(c, &class, 0)?;
                elements.push(element);
                if let Some(end) = end {
                    if c.pos() < end {
                        c.opaque(c.pos()..end);
                    }
                    c.seek(end)?;
                }
            }
        }
        c.finish(&array, "TObjArray")?;
        if let Some(end) = end {
            if c.pos() < end {
                c.opaque(c.pos()..end);
            }
            c.seek(end)?;
        }
    }
    c.finish(&frame, "TStreamerInfo")?;
    Ok(StreamerInfo {
        name,
        checksum,
        class_version,
        elements,
    })
}

fn read_element(c: &mut Cursor, class: &str, depth: usize) -> Result<Element> {
    if depth > MAX_DEPTH {
        return Err(c.error("streamer elements nested too deeply"));
    }
    let outer = c.frame()?;
    let kind = match class {
        "TStreamerBase" => ElementClass::Base,
        "TStreamerBasicType" => ElementClass::BasicType,
        "TStreamerBasicPointer" => ElementClass::BasicPointer,
        "TStreamerLoop" => ElementClass::Loop,
        "TStreamerString" => ElementClass::String,
        "TStreamerObject" => ElementClass::Object,
        "TStreamerObjectAny" => ElementClass::ObjectAny,
        "TStreamerObjectPointer" => ElementClass::ObjectPointer,
        "TStreamerObjectAnyPointer" => ElementClass::ObjectAnyPointer,
        "TStreamerSTL" => ElementClass::Stl,
        "TStreamerSTLstring" => ElementClass::StlString,
        _ => ElementClass::Other,
    };
    if kind == ElementClass::StlString {
        // A TStreamerSTL inside its own frame.
        let mut e = read_element(c, "TStreamerSTL", depth + 1)?;
        e.class = ElementClass::StlString;
        c.finish(&outer, "TStreamerSTLstring")?;
        return Ok(e);
    }
    let inner = if kind == ElementClass::Other && class == "TStreamerElement" {
        outer
    } else {
        c.frame()?
    };
    let (name, title) = read_tnamed(c)?;
    let mut ty = c.r.i32()?;
    let size = c.r.i32()?;
    let array_length = c.r.i32()?;
    let array_dim = c.r.i32()?;
    let mut max_index = [0i32; 5];
    if inner.version == 1 {
        let n = c.r.i32()?;
        for k in 0..n.max(0) {
            let v = c.r.i32()?;
            if (k as usize) < 5 {
                max_index[k as usize] = v;
            }
        }
    } else {
        for m in &mut max_index {
            *m = c.r.i32()?;
        }
    }
    let type_name = c.r.tstring()?;
    if ty == code::UCHAR && (type_name == "Bool_t" || type_name == "bool") {
        ty = code::BOOL;
    }
    c.finish(&inner, "TStreamerElement")?;
    let mut e = Element {
        class: kind,
        name: name.into(),
        title,
        ty,
        size,
        array_length,
        array_dim,
        max_index,
        type_name,
        base_version: 0,
        count_name: String::new(),
        count_class: String::new(),
        count_version: 0,
        stl_type: 0,
        ctype: 0,
    };
    let left = outer.end.map_or(0, |end| end.saturating_sub(c.pos()));
    if left > 0 {
        match kind {
            ElementClass::Base if left >= 4 => e.base_version = c.r.i32()?,
            ElementClass::BasicPointer | ElementClass::Loop => {
                e.count_version = c.r.i32()?;
                e.count_name = c.r.tstring()?;
                e.count_class = c.r.tstring()?;
            }
            ElementClass::Stl => {
                e.stl_type = c.r.i32()?;
                e.ctype = c.r.i32()?;
            }
            _ => {}
        }
    }
    c.finish(&outer, class)?;
    Ok(e)
}

/// The layouts of the leaf classes as ROOT 6 writes them, for files whose StreamerInfo
/// record leaves them out (some writers other than ROOT do): their leaves are read by
/// these rather than not at all.
pub fn builtin_leaf_layouts() -> &'static StreamerSet {
    static SET: OnceLock<StreamerSet> = OnceLock::new();
    SET.get_or_init(|| {
        let element = Element::plain;
        let basic =
            |name: &str, ty, type_name: &str| element(ElementClass::BasicType, name, ty, type_name);
        let info = |name: &str, version, elements| StreamerInfo {
            name: name.into(),
            checksum: 0,
            class_version: version,
            elements,
        };
        let mut set = StreamerSet::default();
        let mut base = element(ElementClass::Base, "TNamed", code::TNAMED, "BASE");
        base.base_version = 1;
        let mut leaf = element(ElementClass::Base, "TLeaf", code::BASE, "BASE");
        leaf.base_version = 2;
        set.add(info(
            "TLeaf",
            2,
            vec![
                base,
                basic("fLen", code::INT, "int"),
                basic("fLenType", code::INT, "int"),
                basic("fOffset", code::INT, "int"),
                basic("fIsRange", code::BOOL, "bool"),
                basic("fIsUnsigned", code::BOOL, "bool"),
                element(
                    ElementClass::ObjectPointer,
                    "fLeafCount",
                    code::OBJECT_P,
                    "TLeaf*",
                ),
            ],
        ));
        // Each leaf class: the TLeaf base and its minimum and maximum of its type.
        for (class, ty, type_name) in [
            ("TLeafO", code::BOOL, "bool"),
            ("TLeafB", code::CHAR, "char"),
            ("TLeafS", code::SHORT, "short"),
            ("TLeafI", code::INT, "int"),
            ("TLeafL", code::LONG64, "long long"),
            ("TLeafG", code::LONG, "long"),
            ("TLeafF", code::FLOAT, "float"),
            ("TLeafD", code::DOUBLE, "double"),
            ("TLeafF16", code::FLOAT16, "Float16_t"),
            ("TLeafD32", code::DOUBLE32, "Double32_t"),
            ("TLeafC", code::INT, "int"),
        ] {
            set.add(info(
                class,
                1,
                vec![
                    leaf.clone(),
                    basic("fMinimum", ty, type_name),
                    basic("fMaximum", ty, type_name),
                ],
            ));
        }
        set.add(info(
            "TLeafElement",
            1,
            vec![
                leaf.clone(),
                basic("fID", code::INT, "int"),
                basic("fType", code::INT, "int"),
            ],
        ));
        set.add(info(
            "TLeafObject",
            4,
            vec![leaf, basic("fVirtual", code::BOOL, "bool")],
        ));
        set
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::bytes::BeReader;
    use crate::container::{KeyInfo, RootFile};

    /// The streamer infos of a file written by ROOT: TTree's and TBranch's members as ROOT
    /// describes them (a base class first, a counted array of basket sizes).
    #[test]
    fn streamer_infos_of_a_root_file() {
        let file = RootFile::open(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/uproot-HZZ.root"
        ))
        .unwrap();
        let payload = file.streamer_list_payload().unwrap().unwrap();
        let h = file.header();
        let bytes = file.read_at(h.seek_info, 64, "key").unwrap();
        let key = KeyInfo::decode(&mut BeReader::new(&bytes, 0, "f", "k")).unwrap();
        let set = StreamerSet::parse(&payload, 0, "f", key.keylen as u32).unwrap();
        let tree = set.get("TTree", 19).unwrap();
        assert_eq!(tree.elements[0].class, ElementClass::Base);
        assert_eq!(tree.elements[0].name, "TNamed");
        assert!(tree.elements.iter().any(|e| e.name == "fEntries"));
        let branch = set.get("TBranch", 12).unwrap();
        let bytes = branch
            .elements
            .iter()
            .find(|e| e.name == "fBasketBytes")
            .unwrap();
        assert_eq!(bytes.class, ElementClass::BasicPointer);
        assert_eq!(bytes.count_name, "fMaxBaskets");
        assert_eq!(bytes.ty, code::OFFSET_P + code::INT);
    }
}

#[cfg(test)]
mod traced_tests {
    use super::*;
    use crate::container::RootFile;
    use crate::ttree::model::restream;

    /// Every StreamerInfo record of the test files (ROOT's, uproot's, experiments') is
    /// read whole, so it can be moved to a key of another length: moved there and back it
    /// is the same bytes, and there it describes the same classes.
    #[test]
    fn streamer_records_move_to_keys_of_another_length() {
        let here = env!("CARGO_MANIFEST_DIR");
        let dirs = [
            format!("{here}/../../tests/data"),
            format!("{here}/../../../shared/testdata"),
            format!("{here}/../../../shared/corpus/scikit-hep-testdata"),
        ];
        let paths = dirs
            .iter()
            .filter_map(|d| std::fs::read_dir(d).ok())
            .flatten()
            .map(|e| e.unwrap().path());
        let mut checked = 0;
        for path in paths {
            if path.extension().is_none_or(|e| e != "root") {
                continue;
            }
            let Ok(file) = RootFile::open(&path) else {
                continue;
            };
            let Ok(Some((key, record))) = file.streamer_record() else {
                continue;
            };
            let name = path.display().to_string();
            let keylen = key.keylen as u32;
            let Ok((set, trace)) = StreamerSet::parse_traced(&record, 0, &name, keylen) else {
                continue; // (files with records this reader refuses are tested elsewhere)
            };
            assert!(trace.opaque.is_empty(), "{name}: {:?}", trace.opaque);
            let moved = restream::rewrite(&record, &trace, vec![], keylen, keylen + 8).unwrap();
            let (again, trace2) = StreamerSet::parse_traced(&moved, 0, &name, keylen + 8).unwrap();
            assert_eq!(again.infos.len(), set.infos.len(), "{name}");
            let back = restream::rewrite(&moved, &trace2, vec![], keylen + 8, keylen).unwrap();
            assert!(back == record, "{name}");
            checked += 1;
        }
        assert!(checked >= 10, "{checked} files");
    }
}
