//! ROOT's type codes of streamed members (`TStreamerElement::fType`, the
//! `TVirtualStreamerInfo` enum): the one table both the readers and the writers use, with
//! the size and C++ name of each basic type.

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

/// Bytes on disk of one value of a basic type (`Double32_t` and `Float16_t` without a
/// range: 4); `None` for codes that are not basic types.
pub fn disk_size(ty: i32) -> Option<usize> {
    Some(match ty {
        CHAR | UCHAR | BOOL | LEGACY_CHAR => 1,
        SHORT | USHORT => 2,
        INT | UINT | FLOAT | COUNTER | BITS | DOUBLE32 | FLOAT16 => 4,
        LONG | ULONG | LONG64 | ULONG64 | DOUBLE => 8,
        _ => return None,
    })
}

/// The C++ name a `TStreamerElement` gives a basic type (`None` for codes that are not
/// basic types).
pub fn type_name(ty: i32) -> Option<&'static str> {
    Some(match ty {
        CHAR => "char",
        UCHAR => "unsigned char",
        BOOL => "bool",
        SHORT => "short",
        USHORT => "unsigned short",
        INT | COUNTER => "int",
        UINT | BITS => "unsigned int",
        FLOAT => "float",
        DOUBLE => "double",
        LONG => "long",
        ULONG => "unsigned long",
        LONG64 => "Long64_t",
        ULONG64 => "ULong64_t",
        DOUBLE32 => "Double32_t",
        FLOAT16 => "Float16_t",
        _ => return None,
    })
}

/// The basic type of the values of a `TArray` class (`TArrayD`: [`DOUBLE`]), which streams
/// a count and the values, without a header.
pub(crate) fn tarray_type(class: &str) -> Option<i32> {
    Some(match class {
        "TArrayC" => CHAR,
        "TArrayS" => SHORT,
        "TArrayI" => INT,
        "TArrayL" => LONG,
        "TArrayL64" => LONG64,
        "TArrayF" => FLOAT,
        "TArrayD" => DOUBLE,
        _ => return None,
    })
}
