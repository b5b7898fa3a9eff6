//! How a value of a C++ type is laid out in a streamed entry: numbers, strings, STL
//! containers and classes, as the file's class layouts (streamer infos) describe them.
//! One [`Nested`] tree, compiled once per branch, drives the decoding of every entry.

use std::sync::Arc;

use super::Prim;

/// A value in a streamed entry, and how its bytes are framed.
#[derive(Debug, Clone, PartialEq)]
pub enum Nested {
    /// A number.
    Prim(Prim),
    /// A fixed-size (possibly multi-dimensional) array of numbers (a member `x[3][2]`).
    Array(Prim, Vec<usize>),
    /// `TObject::fBits` as a member of its own (a split object's `fBits` sub-branch): a
    /// `uint32`, followed by a 2-byte process ID when the object was referenced.
    Bits,
    /// A string (`std::string`, `TString`): a length byte (or 255 and an `i32`) and bytes.
    Str,
    /// A `char*` member: an `i32` length, then the characters (no terminator).
    CharStar,
    /// A sequence (`std::vector`, `std::set`, ...): an `i32` length and the items.
    Seq(Box<Nested>),
    /// A fixed number of values one after the other (an array of objects `T x[n]`).
    Repeat(Box<Nested>, usize),
    /// A value preceded by a byte count and a version (objects, and STL containers and
    /// strings that are members of a class).
    Framed(Box<Nested>),
    /// The members of a class, one after the other.
    Class(Arc<ClassLayout>),
    /// A value preceded by the name of its class (a length byte, the name and a NUL), as
    /// a `TBranchObject` of a virtual leaf writes each object; the name must be the
    /// class's own.
    Named(String, Box<Nested>),
    /// A pointer to an object (`T* x`, streamer type 64 or 69): four zero bytes when
    /// null, else a byte count, a class tag (the class name, or a reference to a class
    /// tagged before in the entry) and the object as its class streams itself. Read as
    /// an optional value; an object of another class than `T` (a derived class) is an
    /// error, never misread.
    Pointer(String, Box<Nested>),
    /// Objects of a class the file does not describe: an error when one is read (a
    /// container of them reads while it is empty).
    Unknown(String),
    /// Objects of a class whose layout cannot be read (a member kind not supported): an
    /// error, with the reason, when one is read (a container of them reads while empty).
    Unreadable {
        /// The class.
        class: String,
        /// Why its layout cannot be read.
        why: String,
    },
    /// An STL map (`std::map`, `std::unordered_map`, ...) streamed memberwise: a byte count
    /// and version, the pair's version (and checksum), the length, then all keys and then
    /// all values. Read as a list of `{first, second}` records.
    Map {
        /// The key type.
        key: Box<Nested>,
        /// The value type.
        value: Box<Nested>,
        /// Whether the block of keys starts with a byte count and version (STL types).
        key_header: bool,
        /// Whether the block of values does.
        value_header: bool,
    },
}

/// A class as one of its layouts describes it: the record fields it is read into (base
/// classes' members first, flattened) and the steps that read them.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassLayout {
    /// The class name.
    pub name: String,
    /// The class version the layout is for, when the file describes several versions
    /// (an object written with another version is an error, never misread).
    pub version: Option<u16>,
    /// The record fields, in order: names and value types.
    pub fields: Vec<(String, Nested)>,
    /// How the fields are read, in streaming order.
    pub steps: Vec<MemberStep>,
}

/// One step of reading a class's members.
#[derive(Debug, Clone, PartialEq)]
pub enum MemberStep {
    /// Reads field `i` of the record.
    Field(usize),
    /// A pointer to an array whose length another member holds (`T* x //[n]`): a flag
    /// byte, then (if it is not zero) as many values as field `counter` says, into
    /// field `field` (a [`Nested::Seq`] of numbers).
    Counted {
        /// The array's field.
        field: usize,
        /// The field holding the length (an integer read before).
        counter: usize,
    },
    /// As many values as field `counter` says, into field `field` (a [`Nested::Seq`]),
    /// with no flag byte (the references of a `TRefArray`).
    Items {
        /// The values' field.
        field: usize,
        /// The field holding their number (an integer read before).
        counter: usize,
    },
    /// The upper triangle of a matrix, row by row (`TMatrixTSym`): row `i` holds
    /// `cols - i` values, for as many rows as field `rows` says, into field `field` (a
    /// [`Nested::Seq`] of numbers).
    Triangle {
        /// The values' field.
        field: usize,
        /// The field holding the number of rows (an integer read before).
        rows: usize,
        /// The field holding the number of columns (an integer read before).
        cols: usize,
    },
    /// A pointer to an array of objects whose length another member holds (`T* x //[n]`,
    /// streamer type 501): a byte count and version, then as many objects (each as its
    /// class streams itself) as field `counter` says, into field `field` (a
    /// [`Nested::Seq`]).
    Looped {
        /// The objects' field.
        field: usize,
        /// The field holding their number (an integer read before).
        counter: usize,
    },
    /// Bytes that are not part of the record (a `TRefArray`'s lower bound and process
    /// ID): skipped.
    Skip(usize),
    /// A base class, framed by its own byte count and version, whose members are fields
    /// of the record.
    Base {
        /// The base class name (for error messages).
        name: String,
        /// The base's layout version, when the file describes several.
        version: Option<u16>,
        /// Its steps.
        steps: Vec<MemberStep>,
    },
    /// The `TObject` base: a version, the unique ID and the bits (and a process ID when
    /// the object was referenced); not a field of the record.
    TObject,
    /// A `TRef`: a `TObject` whose unique ID (the referenced object's number) is read
    /// into field `i` (a `uint32`), then the process ID.
    Ref(usize),
}

impl Nested {
    /// Whether reading a value can meet a pointer (whose class tags other pointers' class
    /// references could refer to).
    pub fn has_pointer(&self) -> bool {
        match self {
            Nested::Pointer(..) => true,
            Nested::Seq(n) | Nested::Repeat(n, _) | Nested::Framed(n) | Nested::Named(_, n) => {
                n.has_pointer()
            }
            Nested::Class(c) => c.fields.iter().any(|(_, n)| n.has_pointer()),
            Nested::Map { key, value, .. } => key.has_pointer() || value.has_pointer(),
            Nested::Prim(_)
            | Nested::Array(..)
            | Nested::Bits
            | Nested::Str
            | Nested::CharStar
            | Nested::Unknown(_)
            | Nested::Unreadable { .. } => false,
        }
    }

    /// A short description (`int32`, `string`, `var * float64`, a class name).
    pub fn describe(&self) -> String {
        match self {
            Nested::Prim(p) => p.name().to_string(),
            Nested::Array(p, dims) => {
                let dims: String = dims.iter().map(|n| format!("{n} * ")).collect();
                format!("{dims}{}", p.name())
            }
            Nested::Bits => "uint32".into(),
            Nested::Str | Nested::CharStar => "string".into(),
            Nested::Seq(n) => format!("var * {}", n.describe()),
            Nested::Repeat(n, size) => format!("{size} * {}", n.describe()),
            Nested::Framed(n) | Nested::Named(_, n) => n.describe(),
            Nested::Pointer(_, n) => format!("?{}", n.describe()),
            Nested::Class(c) => c.name.clone(),
            Nested::Unknown(name) => format!("{name} (not described)"),
            Nested::Unreadable { class, .. } => format!("{class} (not readable)"),
            Nested::Map { key, value, .. } => format!(
                "var * {{first: {}, second: {}}}",
                key.describe(),
                value.describe()
            ),
        }
    }
}
