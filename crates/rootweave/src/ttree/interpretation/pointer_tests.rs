//! Tests of members behind pointers: objects behind class tags (`T* x`, null or not) and
//! counted arrays of a split collection's items read with their counter's values.

use std::sync::Arc;

use super::compile::Compiler;
use super::{ClassLayout, Header, Interpretation, MemberStep, Nested, Prim};
use crate::array::Array;
use crate::streamer::{code, Element, ElementClass, StreamerInfo, StreamerSet};

/// A class `P { float fX; }` as its pointers are read: a frame, then `fX`.
fn point() -> Nested {
    Nested::Framed(Box::new(Nested::Class(Arc::new(ClassLayout {
        name: "P".into(),
        version: None,
        fields: vec![("fX".into(), Nested::Prim(Prim::F32))],
        steps: vec![MemberStep::Field(0)],
    }))))
}

/// One pointer to a `P` holding `x`: a byte count, `class_tag` and the framed object.
fn tagged(class_tag: &[u8], x: f32) -> Vec<u8> {
    let object = [&[0x40, 0, 0, 6, 0, 1][..], &x.to_be_bytes()].concat();
    let count = (class_tag.len() + object.len()) as u32 | 0x4000_0000;
    [&count.to_be_bytes()[..], class_tag, &object].concat()
}

const NEW_P: &[u8] = b"\xff\xff\xff\xffP\0";
const REF: &[u8] = &[0x80, 0, 0, 0x44];

/// Decodes one entry of a split collection's pointer member: the items back to back.
fn members(item: Nested, bytes: &[u8]) -> Result<Array, String> {
    Interpretation::Members {
        item,
        header: Header::None,
    }
    .decode(bytes, Some(&[0, bytes.len()]), 0..1)
}

#[test]
fn pointers_read_as_optional_objects_null_tagged_or_referenced() {
    let pointer = Nested::Pointer("P".into(), Box::new(point()));
    let entry = [&[0u8; 4][..], &tagged(NEW_P, 1.5), &tagged(REF, 2.5)].concat();
    let expected = Array::List {
        offsets: vec![0, 3],
        values: Box::new(Array::Optional {
            offsets: vec![0, 0, 1, 2],
            values: Box::new(Array::Record {
                len: 2,
                fields: vec![("fX".into(), Array::Float32(vec![1.5, 2.5]))],
            }),
        }),
    };
    assert_eq!(members(pointer.clone(), &entry), Ok(expected));
    assert_eq!(pointer.describe(), "?P");
}

#[test]
fn pointers_that_cannot_be_read_for_sure_are_errors() {
    let pointer = Nested::Pointer("P".into(), Box::new(point()));
    let error = |bytes: &[u8]| members(pointer.clone(), bytes).unwrap_err();
    // An object of another class (a derived one).
    let derived = error(&tagged(b"\xff\xff\xff\xffQ\0", 1.0));
    assert!(
        derived.contains("an object of class Q behind a pointer to P"),
        "{derived}"
    );
    // A class reference before any class was tagged.
    let early = error(&tagged(REF, 1.0));
    assert!(
        early.contains("a reference to a class tagged before"),
        "{early}"
    );
    // A pointer to an object written before (no byte count).
    let shared = error(&[0, 0, 0, 0x30]);
    assert!(shared.contains("written before in the entry"), "{shared}");
    // A byte count longer than the entry, or not where the object ends.
    let mut long = tagged(NEW_P, 1.0);
    long[3] += 8;
    assert!(error(&long).contains("a byte count of"));
    let mut short = [tagged(NEW_P, 1.0), vec![0; 2]].concat();
    short[3] += 2;
    assert!(
        error(&short).contains("ends 2 bytes short"),
        "{}",
        error(&short)
    );
    // Where the object holds pointers of its own, a reference may be to their class.
    let nested = Nested::Pointer(
        "P".into(),
        Box::new(Nested::Pointer("P".into(), Box::new(point()))),
    );
    let outer = |class_tag: &[u8], inner: Vec<u8>| {
        let count = (class_tag.len() + inner.len()) as u32 | 0x4000_0000;
        [&count.to_be_bytes()[..], class_tag, &inner].concat()
    };
    let entry = [
        outer(NEW_P, tagged(NEW_P, 1.0)),
        outer(REF, tagged(REF, 2.0)),
    ]
    .concat();
    let refused = members(nested, &entry).unwrap_err();
    assert!(
        refused.contains("a reference to a class tagged before"),
        "{refused}"
    );
}

#[test]
fn pointer_members_compile_to_pointers_and_arrays_of_them() {
    let mut set = StreamerSet::default();
    set.add(StreamerInfo {
        class_name: "P".into(),
        checksum: 0,
        class_version: 1,
        elements: vec![Element::plain(
            ElementClass::BasicType,
            "fX",
            code::FLOAT,
            "float",
        )],
    });
    let mut three = Element::plain(
        ElementClass::ObjectPointer,
        "fPs",
        code::OFFSET_L + code::OBJECT_P,
        "P*",
    );
    three.array_dim = 1;
    three.max_index[0] = 3;
    set.add(StreamerInfo {
        class_name: "Holder".into(),
        checksum: 0,
        class_version: 1,
        elements: vec![
            Element::plain(ElementClass::ObjectAnyPointer, "fP", code::ANY_P2, "P*"),
            three,
            Element::plain(ElementClass::ObjectPointer, "fL", code::OBJECT_P, "TList*"),
        ],
    });
    let holder = Compiler { streamers: &set }
        .class("Holder", None, 0)
        .unwrap();
    let types: Vec<String> = holder.fields.iter().map(|(_, n)| n.describe()).collect();
    assert_eq!(types, ["?P", "3 * ?P", "?TList (not readable)"]);
}

#[test]
fn counted_members_of_split_collections_follow_their_counter() {
    let counted = Interpretation::CountedMembers {
        prim: Prim::U8,
        counter: "Tracks.fBits.fNbytes".into(),
    };
    assert_eq!(counted.describe(), "var * var * uint8");
    // Two entries: three items (2 values, a null array, 1 value), then one item of none.
    let data = [1, 7, 8, 0, 1, 9, 0];
    let offsets = [0, 6, 7];
    let decoded = counted.decode_counted(&data, Some(&offsets), 0..2, &[3, 1], &[2, 5, 1, 0]);
    let expected = Array::List {
        offsets: vec![0, 3, 4],
        values: Box::new(Array::List {
            offsets: vec![0, 2, 2, 3, 3],
            values: Box::new(Array::UInt8(vec![7, 8, 9])),
        }),
    };
    assert_eq!(decoded, Ok(expected));
    // Counts that do not account for the bytes, or too few of them, are errors.
    let left = counted
        .decode_counted(&data, Some(&offsets), 0..1, &[3], &[2, 5, 0])
        .unwrap_err();
    assert!(left.contains("1 bytes left after the 3 items"), "{left}");
    let few = counted
        .decode_counted(&data, Some(&offsets), 0..1, &[3], &[2, 5])
        .unwrap_err();
    assert!(few.contains("more items than the counter"), "{few}");
    let over = counted
        .decode_counted(&data, Some(&offsets), 0..1, &[3], &[9, 5, 1])
        .unwrap_err();
    assert!(over.contains("needs 9 bytes"), "{over}");
    // Without the counter's values it cannot be read at all.
    let alone = counted.decode(&data, Some(&offsets), 0..1).unwrap_err();
    assert!(alone.contains("Tracks.fBits.fNbytes"), "{alone}");
}
