//! One class layout ([`StreamerInfo`]) and its members ([`Element`]), as a file's
//! `TStreamerInfo` records describe them and as the writers describe the classes they
//! write: one type for both, so that a layout read from a file is written again as it is.

use super::code;
use super::name::Name;

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
    /// `TStreamerArtificial` or any other element class (read, never written).
    Other,
}

impl ElementClass {
    /// The `TStreamerElement` subclass's name and the class version ROOT 6.40 writes it
    /// with; `None` for [`ElementClass::Other`], which is not written.
    pub fn streamer_class(self) -> Option<(&'static str, u16)> {
        Some(match self {
            ElementClass::Base => ("TStreamerBase", 3),
            ElementClass::BasicType => ("TStreamerBasicType", 2),
            ElementClass::BasicPointer => ("TStreamerBasicPointer", 2),
            ElementClass::Loop => ("TStreamerLoop", 2),
            ElementClass::String => ("TStreamerString", 2),
            ElementClass::Object => ("TStreamerObject", 2),
            ElementClass::ObjectAny => ("TStreamerObjectAny", 2),
            ElementClass::ObjectPointer => ("TStreamerObjectPointer", 2),
            ElementClass::ObjectAnyPointer => ("TStreamerObjectAnyPointer", 2),
            ElementClass::Stl => ("TStreamerSTL", 3),
            ElementClass::StlString => ("TStreamerSTLstring", 2),
            ElementClass::Other => return None,
        })
    }

    /// The class of an element a `TStreamerElement` subclass of this name streams.
    pub fn of_streamer_class(class: &str) -> Self {
        match class {
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
        }
    }
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
    /// Type code (see [`super::code`]).
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
    /// `type_name`, with no title, size, array dimensions or count (a layout made in code,
    /// not read from a file).
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

    /// A base class `name` at class `version` (`TStreamerBase`; `TObject` and `TNamed`
    /// with their own type codes, as ROOT describes them).
    pub fn base(name: &str, version: i32) -> Self {
        let ty = match name {
            "TObject" => code::TOBJECT,
            "TNamed" => code::TNAMED,
            _ => code::BASE,
        };
        let mut e = Element::plain(ElementClass::Base, name, ty, "BASE");
        e.base_version = version;
        e
    }

    /// A number of the basic type code `ty` (`TStreamerBasicType`).
    pub fn basic(name: &str, ty: i32) -> Self {
        let type_name = code::type_name(ty).unwrap_or("");
        Element {
            size: code::disk_size(ty).unwrap_or(0) as i32,
            ..Element::plain(ElementClass::BasicType, name, ty, type_name)
        }
    }

    /// An enumeration of C++ type `type_name`, streamed as an `int`.
    pub fn enumeration(name: &str, type_name: &str) -> Self {
        Element {
            size: 4,
            ..Element::plain(ElementClass::BasicType, name, code::INT, type_name)
        }
    }

    /// A pointer to an array of numbers of type code `ty` whose length the member `count`
    /// of `count_class` (at `count_version`) holds (`TStreamerBasicPointer`, `x //[n]`).
    pub fn basic_pointer(
        name: &str,
        ty: i32,
        count: &str,
        count_class: &str,
        count_version: i32,
    ) -> Self {
        let type_name = code::type_name(ty).unwrap_or("");
        Element {
            size: 8,
            count_name: count.into(),
            count_class: count_class.into(),
            count_version,
            ..Element::plain(
                ElementClass::BasicPointer,
                name,
                code::OFFSET_P + ty,
                &format!("{type_name}*"),
            )
        }
    }

    /// An embedded object of `class`, a `TObject` descendant (`TStreamerObject`).
    pub fn object(name: &str, class: &str) -> Self {
        Element::plain(ElementClass::Object, name, code::OBJECT, class)
    }

    /// An embedded object of `class`, not a `TObject` descendant (`TStreamerObjectAny`).
    pub fn object_any(name: &str, class: &str) -> Self {
        Element::plain(ElementClass::ObjectAny, name, code::ANY, class)
    }

    /// A pointer to an object of `class` (`TStreamerObjectPointer`), behind a class tag or
    /// null.
    pub fn object_pointer(name: &str, class: &str) -> Self {
        Element {
            size: 8,
            ..Element::plain(
                ElementClass::ObjectPointer,
                name,
                code::OBJECT_P,
                &format!("{class}*"),
            )
        }
    }

    /// A pointer to an object of `class` that is never null (`->` in its comment),
    /// streamed as the object itself.
    pub fn object_pointer_never_null(name: &str, class: &str) -> Self {
        Element {
            ty: code::OBJECT_P_NOT_NULL,
            ..Element::object_pointer(name, class)
        }
    }

    /// A `TString` member (`TStreamerString`).
    pub fn tstring(name: &str) -> Self {
        Element {
            size: 24,
            ..Element::plain(ElementClass::String, name, code::TSTRING, "TString")
        }
    }

    /// The element with its comment set to `title`.
    pub fn titled(mut self, title: &str) -> Self {
        self.title = title.into();
        self
    }
}

/// The layout of one version of one class.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamerInfo {
    /// The class name.
    pub class_name: String,
    /// ROOT's checksum of the layout.
    pub checksum: u32,
    /// The class version.
    pub class_version: i32,
    /// The members in streaming order (base classes first).
    pub elements: Vec<Element>,
}

impl StreamerInfo {
    /// The layout of `class_name` at `class_version` with ROOT's `checksum`.
    pub fn new(
        class_name: &str,
        class_version: i32,
        checksum: u32,
        elements: Vec<Element>,
    ) -> Self {
        StreamerInfo {
            class_name: class_name.into(),
            checksum,
            class_version,
            elements,
        }
    }
}
