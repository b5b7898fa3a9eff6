//! Tests of streamed objects: class layouts compiled from streamer elements, and entries
//! decoded by them (real bytes where a corpus file gave them, hand-made otherwise).

use std::sync::Arc;

use super::compile::Compiler;
use super::{ClassLayout, Interpretation, MemberStep, Nested, Prim};
use crate::array::Array;
use crate::streamer::{code, Element, ElementClass, StreamerInfo, StreamerSet};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn element(class: ElementClass, name: &str, ty: i32, type_name: &str) -> Element {
    Element::plain(class, name, ty, type_name)
}

fn info(name: &str, version: i32, elements: Vec<Element>) -> StreamerInfo {
    StreamerInfo {
        class_name: name.into(),
        checksum: 0,
        class_version: version,
        elements,
    }
}

/// Decodes one entry of `bytes` by `layout`.
fn decode(layout: &Nested, bytes: &[u8]) -> Result<Array, String> {
    Interpretation::Streamed(layout.clone()).decode(bytes, Some(&[0, bytes.len()]), 0..1)
}

/// `ElementLink<T>` as ATLAS files describe it: a base with two `UInt_t` members,
/// both classes written with version 0 and a checksum.
fn element_links() -> StreamerSet {
    let mut set = StreamerSet::default();
    set.add(info(
        "ElementLinkBase",
        1,
        vec![
            element(
                ElementClass::BasicType,
                "m_persKey",
                code::UINT,
                "unsigned int",
            ),
            element(
                ElementClass::BasicType,
                "m_persIndex",
                code::UINT,
                "unsigned int",
            ),
        ],
    ));
    set.add(info(
        "ElementLink<DataVector<xAOD::IParticle> >",
        1,
        vec![element(
            ElementClass::Base,
            "ElementLinkBase",
            code::BASE,
            "BASE",
        )],
    ));
    set
}

#[test]
fn nested_vectors_of_objects_with_bases_and_checksums() {
    // One entry of an ATLAS `vector<vector<ElementLink<DataVector<xAOD::IParticle>>>>`
    // branch (uproot-issue-210.root): [[link(353)], [], [], [link(354)]].
    let bytes = hex(concat!(
        "4000004e000900000004",
        "00000001",
        "40000018000067bfb0734000000e0000feb3df9e2784318b00000161",
        "0000000000000000",
        "00000001",
        "40000018000067bfb0734000000e0000feb3df9e2784318b00000162",
    ));
    let set = element_links();
    let layout = Compiler { streamers: &set }
        .stl(
            "vector<vector<ElementLink<DataVector<xAOD::IParticle>>>>",
            0,
        )
        .unwrap();
    let got = decode(&layout, &bytes).unwrap();
    let links = Array::Record {
        len: 2,
        fields: vec![
            (
                "m_persKey".into(),
                Array::UInt32(vec![662974859, 662974859]),
            ),
            ("m_persIndex".into(), Array::UInt32(vec![353, 354])),
        ],
    };
    assert_eq!(
        got,
        Array::List {
            offsets: vec![0, 4],
            values: Box::new(Array::List {
                offsets: vec![0, 1, 1, 1, 2],
                values: Box::new(links),
            }),
        }
    );
    // Cut anywhere, or with a byte count one off: an error, never a panic.
    for cut in 0..bytes.len() {
        assert!(decode(&layout, &bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut bad = bytes.clone();
    bad[3] -= 1;
    assert!(decode(&layout, &bad).is_err());
}

/// A class `Hit` with a `TObject` base, a `std::string`, an `Int_t` count, a `vector<float>`
/// and a `Double_t* //[n]` array.
fn hits() -> StreamerSet {
    let mut counted = element(
        ElementClass::BasicPointer,
        "values",
        code::OFFSET_P + code::DOUBLE,
        "double*",
    );
    counted.count_name = "n".into();
    let mut set = StreamerSet::default();
    set.add(info(
        "Hit",
        2,
        vec![
            element(ElementClass::Base, "TObject", code::TOBJECT, "BASE"),
            element(ElementClass::StlString, "name", code::STL_STRING, "string"),
            element(ElementClass::BasicType, "n", code::INT, "int"),
            element(ElementClass::Stl, "energy", code::STL, "vector<float>"),
            counted,
        ],
    ));
    set
}

#[test]
fn unsplit_objects_with_strings_vectors_and_counted_arrays() {
    let set = hits();
    let class = Compiler { streamers: &set }
        .class("Hit", Some(2), 0)
        .unwrap();
    assert_eq!(
        class.steps,
        vec![
            MemberStep::TObject,
            MemberStep::Field(0),
            MemberStep::Field(1),
            MemberStep::Field(2),
            MemberStep::Counted {
                field: 3,
                counter: 1
            }
        ]
    );
    // TObject (version 1, id 0, bits), "ab" framed, n = 2, [1.5] framed, flag, 2 doubles.
    let bytes = hex(concat!(
        "00010000000003000000",
        "4000000500090261620",
        "0000002",
        "4000000a0009000000013fc00000",
        "013ff00000000000004000000000000000",
    ));
    let layout = Nested::Class(class);
    let got = decode(&layout, &bytes).unwrap();
    let Array::Record { len: 1, fields } = got else {
        panic!("a record: {got:?}")
    };
    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["name", "n", "energy", "values"]);
    assert_eq!(
        fields[0].1,
        Array::String {
            offsets: vec![0, 2],
            bytes: b"ab".to_vec()
        }
    );
    assert_eq!(fields[1].1, Array::Int32(vec![2]));
    assert_eq!(
        fields[2].1,
        Array::List {
            offsets: vec![0, 1],
            values: Box::new(Array::Float32(vec![1.5]))
        }
    );
    assert_eq!(
        fields[3].1,
        Array::List {
            offsets: vec![0, 2],
            values: Box::new(Array::Float64(vec![1.0, 2.0]))
        }
    );
    for cut in 0..bytes.len() {
        assert!(decode(&layout, &bytes[..cut]).is_err(), "cut at {cut}");
    }
}

#[test]
fn objects_written_with_another_version_are_refused() {
    let mut set = hits();
    let mut old = hits().all()[0].clone();
    old.class_version = 1;
    set.add(old);
    let class = Compiler { streamers: &set }
        .class("Hit", Some(2), 0)
        .unwrap();
    assert_eq!(class.version, Some(2));
    let framed = Nested::Framed(Box::new(Nested::Class(class)));
    // A `Hit` framed with version 1 where the layout is of version 2.
    let bytes = hex("40000004000100010000");
    let err = decode(&framed, &bytes).unwrap_err();
    assert!(err.contains("version 1"), "{err}");
}

#[test]
fn vectors_of_pairs_streamed_memberwise() {
    // vector<pair<V,int>> with V = {double x} framed: the memberwise bit in the vector's
    // version, the pair's version 0 and checksum, 2 items, both firsts, both seconds.
    let mut set = StreamerSet::default();
    set.add(info(
        "V",
        1,
        vec![element(
            ElementClass::BasicType,
            "x",
            code::DOUBLE,
            "double",
        )],
    ));
    set.add(info(
        "pair<V,int>",
        0,
        vec![
            element(ElementClass::ObjectAny, "first", code::ANY, "V"),
            element(ElementClass::BasicType, "second", code::INT, "int"),
        ],
    ));
    let layout = Compiler { streamers: &set }
        .stl("vector<pair<V,int> >", 0)
        .unwrap();
    let bytes = hex(concat!(
        "400000304009000012345678",
        "00000002",
        "4000000a00013ff0000000000000",
        "4000000a00014000000000000000",
        "0000000700000008",
    ));
    let got = decode(&layout, &bytes).unwrap();
    let v = Array::Record {
        len: 2,
        fields: vec![("x".into(), Array::Float64(vec![1.0, 2.0]))],
    };
    assert_eq!(
        got,
        Array::List {
            offsets: vec![0, 2],
            values: Box::new(Array::Record {
                len: 2,
                fields: vec![
                    ("first".into(), v),
                    ("second".into(), Array::Int32(vec![7, 8]))
                ]
            })
        }
    );
}

#[test]
fn containers_of_undescribed_classes_read_while_empty() {
    let set = StreamerSet::default();
    let layout = Compiler { streamers: &set }
        .stl("vector<Mystery>", 0)
        .unwrap();
    assert_eq!(
        layout,
        Nested::Framed(Box::new(Nested::Seq(Box::new(Nested::Unknown(
            "Mystery".into()
        )))))
    );
    let empty = hex("40000006000900000000");
    assert_eq!(decode(&layout, &empty).unwrap().len(), 1);
    let one = hex("4000000c000900000001400000020000");
    let err = decode(&layout, &one).unwrap_err();
    assert!(err.contains("Mystery"), "{err}");
}

#[test]
fn recursive_and_malformed_layouts_are_errors() {
    // A class holding a vector of itself: refused at a bounded depth, no stack overflow.
    let mut set = StreamerSet::default();
    set.add(info(
        "Node",
        1,
        vec![element(
            ElementClass::Stl,
            "children",
            code::STL,
            "vector<Node>",
        )],
    ));
    let err = Compiler { streamers: &set }
        .class("Node", None, 0)
        .unwrap_err();
    assert!(err.contains("nested"), "{err}");
    // An array counted by a member that does not come before it.
    let mut counted = element(
        ElementClass::BasicPointer,
        "v",
        code::OFFSET_P + code::FLOAT,
        "float*",
    );
    counted.count_name = "n".into();
    let mut set = StreamerSet::default();
    set.add(info("C", 1, vec![counted]));
    assert!(Compiler { streamers: &set }.class("C", None, 0).is_err());
    // A class the file does not describe, read whole.
    assert!(Compiler { streamers: &set }
        .class("Nothing", None, 0)
        .is_err());
}

#[test]
fn layouts_describe_themselves() {
    let class = Arc::new(ClassLayout {
        name: "P".into(),
        version: None,
        fields: vec![("x".into(), Nested::Prim(Prim::F32))],
        steps: vec![MemberStep::Field(0)],
    });
    let v = Nested::Framed(Box::new(Nested::Seq(Box::new(Nested::Class(class)))));
    assert_eq!(v.describe(), "var * P");
    assert_eq!(
        Nested::Array(Prim::I16, vec![2, 3]).describe(),
        "2 * 3 * int16"
    );
}

#[test]
fn fixed_arrays_of_objects() {
    // A class with a member `V pts[2]` (streamer type 82): two framed objects in a row.
    let mut set = StreamerSet::default();
    set.add(info(
        "V",
        1,
        vec![element(
            ElementClass::BasicType,
            "x",
            code::DOUBLE,
            "double",
        )],
    ));
    let mut pts = element(
        ElementClass::ObjectAny,
        "pts",
        code::OFFSET_L + code::ANY,
        "V",
    );
    pts.array_dim = 1;
    pts.max_index[0] = 2;
    set.add(info("P", 1, vec![pts]));
    let class = Compiler { streamers: &set }.class("P", None, 0).unwrap();
    assert_eq!(class.fields[0].1.describe(), "2 * V");
    let bytes = hex("4000000a00013ff00000000000004000000a00014000000000000000");
    let layout = Nested::Class(class);
    let got = decode(&layout, &bytes).unwrap();
    assert_eq!(
        got,
        Array::Record {
            len: 1,
            fields: vec![(
                "pts".into(),
                Array::Fixed {
                    size: 2,
                    values: Box::new(Array::Record {
                        len: 2,
                        fields: vec![("x".into(), Array::Float64(vec![1.0, 2.0]))]
                    })
                }
            )]
        }
    );
    assert!(decode(&layout, &bytes[..bytes.len() - 1]).is_err());
}

#[test]
fn bits_of_referenced_objects_carry_a_process_id() {
    // Two items' fBits (Delphes tracks): the first referenced (bit 4), so followed by a
    // 2-byte process ID; the second not.
    let bytes = hex("03000010000003000000");
    let members = Interpretation::Members {
        item: Nested::Bits,
        header: super::Header::None,
    };
    let got = members
        .decode(&bytes, Some(&[0, bytes.len()]), 0..1)
        .unwrap();
    assert_eq!(
        got,
        Array::List {
            offsets: vec![0, 2],
            values: Box::new(Array::UInt32(vec![0x0300_0010, 0x0300_0000]))
        }
    );
    assert!(members.decode(&bytes[..5], Some(&[0, 5]), 0..1).is_err());
}

#[test]
fn ref_arrays() {
    // One Delphes `Jet.Constituents` TRefArray (uproot-issue513.root): framed, a TObject,
    // an empty name, 6 references, lower bound 0, process ID 0, the 6 object numbers.
    let bytes = hex(concat!(
        "4000002f0001000100000000030000000000000006000000000000",
        "00000fdc00000ddd00000fd500000de900000fd600000fd8",
    ));
    let set = StreamerSet::default();
    let layout = Compiler { streamers: &set }.item("TRefArray", 0).unwrap();
    let got = decode(&layout, &bytes).unwrap();
    assert_eq!(
        got,
        Array::Record {
            len: 1,
            fields: vec![
                (
                    "fName".into(),
                    Array::String {
                        offsets: vec![0, 0],
                        bytes: vec![]
                    }
                ),
                ("fSize".into(), Array::Int32(vec![6])),
                (
                    "refs".into(),
                    Array::List {
                        offsets: vec![0, 6],
                        values: Box::new(Array::Int32(vec![4060, 3549, 4053, 3561, 4054, 4056]))
                    }
                ),
            ]
        }
    );
    for cut in 0..bytes.len() {
        assert!(decode(&layout, &bytes[..cut]).is_err(), "cut at {cut}");
    }
}

#[test]
fn containers_of_unreadable_classes_read_while_empty() {
    // A class with a member kind not supported (a loop of objects, streamer type 501).
    let mut set = StreamerSet::default();
    let looped = element(ElementClass::Loop, "buffer", code::STREAM_LOOP, "Hit*");
    set.add(info("Frame", 1, vec![looped]));
    let layout = Compiler { streamers: &set }
        .stl("vector<Frame>", 0)
        .unwrap();
    let empty = hex("40000006000900000000");
    assert_eq!(decode(&layout, &empty).unwrap().len(), 1);
    let one = hex("4000000c000900000001400000020001");
    let err = decode(&layout, &one).unwrap_err();
    assert!(err.contains("Frame") && err.contains("buffer"), "{err}");
}

#[test]
fn bitsets_are_lists_of_booleans() {
    // A std::bitset<8> entry of uproot-issue-40.root: byte count, version 9, size 8, then
    // a byte per bit (0b00010101). Inside a vector, bitsets come bare.
    let set = StreamerSet::default();
    let compiler = Compiler { streamers: &set };
    let layout = compiler.stl("std::bitset<8>", 0).unwrap();
    let bytes = hex("4000000e0009000000080100010001000000");
    let bools = |v: &[u8]| Array::Bool(v.iter().map(|&b| b == 1).collect());
    assert_eq!(
        decode(&layout, &bytes).unwrap(),
        Array::List {
            offsets: vec![0, 8],
            values: Box::new(bools(&[1, 0, 1, 0, 1, 0, 0, 0]))
        }
    );
    assert!(decode(&layout, &bytes[..15]).is_err());
    assert_eq!(
        compiler.item("bitset<4>", 0).unwrap(),
        Nested::Seq(Box::new(Nested::Prim(Prim::Bool)))
    );
}

#[test]
fn symmetric_matrices_stream_their_upper_triangle() {
    let mut set = StreamerSet::default();
    set.add(info(
        "TMatrixTBase<double>",
        5,
        vec![
            element(ElementClass::BasicType, "fNrows", code::INT, "int"),
            element(ElementClass::BasicType, "fNcols", code::INT, "int"),
        ],
    ));
    let compiler = Compiler { streamers: &set };
    let layout = compiler.item("TMatrixTSym<double>", 0).unwrap();
    // The base framed (2 x 2), then rows of 2 and 1 values outside the frame.
    let bytes = hex("4000000a00050000000200000002\
         3ff0000000000000 4000000000000000 4008000000000000"
        .replace(' ', "")
        .as_str());
    let Array::Record { fields, .. } = decode(&layout, &bytes).unwrap() else {
        panic!()
    };
    assert_eq!(fields[2].0, "fElements");
    assert_eq!(
        fields[2].1,
        Array::List {
            offsets: vec![0, 3],
            values: Box::new(Array::Float64(vec![1.0, 2.0, 3.0]))
        }
    );
    assert!(decode(&layout, &bytes[..bytes.len() - 1]).is_err());
    // Sizes that claim more values than there are bytes: an error, nothing allocated.
    let huge = hex("4000000a00050000ffff7fffffff");
    assert!(decode(&layout, &huge).is_err());
    // Without its base described, the class is unknown.
    let bare = StreamerSet::default();
    let unknown = Compiler { streamers: &bare }.item("TMatrixTSym<double>", 0);
    assert_eq!(
        unknown.unwrap(),
        Nested::Unknown("TMatrixTSym<double>".into())
    );
}

#[test]
fn char_star_members_have_a_four_byte_length() {
    // `mydata` of uproot-issue31.root: an int, then `char* name`, streamed as an i32
    // length and the characters.
    let mut set = StreamerSet::default();
    set.add(info(
        "mydata",
        1,
        vec![
            element(ElementClass::BasicType, "size", code::INT, "int"),
            element(ElementClass::BasicType, "name", code::CHAR_STAR, "char*"),
        ],
    ));
    let layout = Nested::Class(
        Compiler { streamers: &set }
            .class("mydata", None, 0)
            .unwrap(),
    );
    let bytes = hex("0000000400000003747776");
    let Array::Record { fields, .. } = decode(&layout, &bytes).unwrap() else {
        panic!()
    };
    assert_eq!(
        fields[1].1,
        Array::String {
            offsets: vec![0, 3],
            bytes: b"twv".to_vec()
        }
    );
    assert!(decode(&layout, &hex("00000004ffffffff")).is_err());
    assert!(decode(&layout, &hex("0000000400000009747776")).is_err());
}

#[test]
fn stl_members_of_memberwise_vectors_in_either_framing() {
    // vector<C> with C = {vector<int> v}, streamed memberwise (version 10 | 0x4000, C's
    // version 0 and checksum, 2 items): ROOT 6.40 frames the `v` of both items once, older
    // files frame each item's. Both read as [{v: [5]}, {v: [6, 7]}].
    let mut set = StreamerSet::default();
    set.add(info(
        "C",
        1,
        vec![element(ElementClass::Stl, "v", code::STL, "vector<int>")],
    ));
    let layout = Compiler { streamers: &set }.stl("vector<C>", 0).unwrap();
    let one_frame = hex(concat!(
        "40000026400a00001234567800000002",
        "40000016000a",
        "0000000100000005",
        "000000020000000600000007",
    ));
    let each = hex(concat!(
        "4000002c400a00001234567800000002",
        "4000000a000a0000000100000005",
        "4000000e000a000000020000000600000007",
    ));
    let want = Array::List {
        offsets: vec![0, 2],
        values: Box::new(Array::Record {
            len: 2,
            fields: vec![(
                "v".into(),
                Array::List {
                    offsets: vec![0, 1, 3],
                    values: Box::new(Array::Int32(vec![5, 6, 7])),
                },
            )],
        }),
    };
    assert_eq!(decode(&layout, &one_frame).unwrap(), want);
    assert_eq!(decode(&layout, &each).unwrap(), want);
}

/// A class `M` of the members whose framing differs from other objects: `int n`, `TArrayD
/// a` (a count and values, no header), `TArrayD* p //[n]` (one header, then `n` arrays)
/// and `string s[2]` (as older files describe it: streamer type 500 and a length of 2).
fn odd_members() -> StreamerSet {
    let mut loop_ = element(ElementClass::Loop, "p", code::STREAM_LOOP, "TArrayD*");
    loop_.count_name = "n".into();
    let mut strings = element(ElementClass::StlString, "s", code::STREAMER, "string");
    strings.array_length = 2;
    strings.max_index[0] = 2;
    let mut set = StreamerSet::default();
    set.add(info(
        "M",
        1,
        vec![
            element(ElementClass::BasicType, "n", code::INT, "int"),
            element(ElementClass::ObjectAny, "a", code::ANY, "TArrayD"),
            loop_,
            strings,
        ],
    ));
    set
}

#[test]
fn tarrays_counted_object_arrays_and_string_arrays() {
    let set = odd_members();
    let layout = Nested::Framed(Box::new(Nested::Class(
        Compiler { streamers: &set }.class("M", None, 0).unwrap(),
    )));
    // "n": 2; "a": [1.0]; "p": [[0.0], [2.0]]; "s": ["hi", "tw"].
    let bytes = hex(concat!(
        "4000003c0001",
        "00000002",
        "000000013ff0000000000000",
        "4000001a0006000000010000000000000000000000014000000000000000",
        "400000080009026869027477",
    ));
    let got = decode(&layout, &bytes).unwrap();
    let doubles = |offsets: Vec<u64>, v: Vec<f64>| Array::List {
        offsets,
        values: Box::new(Array::Float64(v)),
    };
    assert_eq!(
        got,
        Array::Record {
            len: 1,
            fields: vec![
                ("n".into(), Array::Int32(vec![2])),
                ("a".into(), doubles(vec![0, 1], vec![1.0])),
                (
                    "p".into(),
                    Array::List {
                        offsets: vec![0, 2],
                        values: Box::new(doubles(vec![0, 1, 2], vec![0.0, 2.0])),
                    }
                ),
                (
                    "s".into(),
                    Array::Fixed {
                        size: 2,
                        values: Box::new(Array::String {
                            offsets: vec![0, 2, 4],
                            bytes: b"hitw".to_vec()
                        })
                    }
                ),
            ],
        }
    );
    // A TArray whose count exceeds the bytes left is an error, whatever the count.
    for count in ["00000002", "7fffffff", "ffffffff"] {
        let mut cut = bytes.clone();
        cut[10..14].copy_from_slice(&hex(count));
        assert!(decode(&layout, &cut).is_err(), "{count}");
    }
    for end in 0..bytes.len() {
        assert!(decode(&layout, &bytes[..end]).is_err(), "{end}");
    }
}

#[test]
fn memberwise_objects_with_a_tobject_base() {
    // vector<P> with P : TObject {double x}, streamed memberwise: each object's TObject
    // part (version, unique ID, bits; the second referenced, so a process ID follows),
    // then the `x` of both.
    let mut set = StreamerSet::default();
    set.add(info(
        "P",
        1,
        vec![
            element(ElementClass::Base, "TObject", code::TOBJECT, "BASE"),
            element(ElementClass::BasicType, "x", code::DOUBLE, "double"),
        ],
    ));
    let layout = Compiler { streamers: &set }.stl("vector<P>", 0).unwrap();
    let bytes = hex(concat!(
        "4000002e4009000100000002",
        "00010000000002000000",
        "000100000007020000100002",
        "405b800000000000405bc00000000000",
    ));
    let got = decode(&layout, &bytes).unwrap();
    assert_eq!(
        got,
        Array::List {
            offsets: vec![0, 2],
            values: Box::new(Array::Record {
                len: 2,
                fields: vec![("x".into(), Array::Float64(vec![110.0, 111.0]))],
            }),
        }
    );
    for end in 0..bytes.len() {
        assert!(decode(&layout, &bytes[..end]).is_err(), "{end}");
    }
}

#[test]
fn members_of_split_collection_items_streamed_memberwise() {
    // A split collection's member `vector<C> cs` with C = {int ch; string tag}, its objects
    // streamed memberwise (as ATLAS's `MetaData` and KM3NeT's `usr_data` hold them): per
    // entry one frame, C's version once (0 and a checksum), then for each item of the
    // collection its count of C and each member of those in turn. Entry 0 has three items
    // holding [{5, "a"}, {6, "b"}], [] and [{7, "c"}]; entry 1 no item.
    let mut set = StreamerSet::default();
    set.add(info(
        "C",
        1,
        vec![
            element(ElementClass::BasicType, "ch", code::INT, "int"),
            element(ElementClass::StlString, "tag", code::STL_STRING, "string"),
        ],
    ));
    let members = Interpretation::Members {
        item: Compiler { streamers: &set }.item("vector<C>", 0).unwrap(),
        header: super::Header::Object,
    };
    let mut data = hex(concat!(
        "400000324009000012345678",
        "00000002000000050000000640000006000901610162",
        "00000000",
        "00000001000000074000000400090163",
    ));
    let end = data.len();
    data.extend(hex("400000084009000012345678"));
    let offsets = [0, end, data.len()];
    let want = Array::List {
        offsets: vec![0, 3, 3],
        values: Box::new(Array::List {
            offsets: vec![0, 2, 2, 3],
            values: Box::new(Array::Record {
                len: 3,
                fields: vec![
                    ("ch".into(), Array::Int32(vec![5, 6, 7])),
                    (
                        "tag".into(),
                        Array::String {
                            offsets: vec![0, 1, 2, 3],
                            bytes: b"abc".to_vec(),
                        },
                    ),
                ],
            }),
        }),
    };
    assert_eq!(members.decode(&data, Some(&offsets), 0..2).unwrap(), want);
    // Cut short anywhere, or with a count past the entry's end: an error, not a misread.
    for cut in 1..end {
        let short = [0, cut];
        assert!(
            members.decode(&data[..cut], Some(&short), 0..1).is_err(),
            "{cut}"
        );
    }
    let mut bad = data.clone();
    bad[15] = 0x7f;
    assert!(members.decode(&bad, Some(&offsets), 0..2).is_err());
    // A byte count that does not span the entry.
    let mut bad = data.clone();
    bad[3] = 0x20;
    assert!(members.decode(&bad, Some(&offsets), 0..2).is_err());
}

#[test]
fn pairs_the_file_does_not_describe_are_read_by_their_template() {
    // vector<pair<string,int> > streamed memberwise, pair<string,int> not described by the
    // file: version 0 and checksum, 2 pairs, both `first`s in one frame, both `second`s.
    let set = StreamerSet::default();
    let layout = Compiler { streamers: &set }
        .stl("vector<pair<string,int> >", 0)
        .unwrap();
    let bytes = hex(concat!(
        "4000001f400900001234567800000002",
        "4000000700090261620163",
        "0000000700000008",
    ));
    let want = Array::List {
        offsets: vec![0, 2],
        values: Box::new(Array::Record {
            len: 2,
            fields: vec![
                (
                    "first".into(),
                    Array::String {
                        offsets: vec![0, 2, 3],
                        bytes: b"abc".to_vec(),
                    },
                ),
                ("second".into(), Array::Int32(vec![7, 8])),
            ],
        }),
    };
    assert_eq!(decode(&layout, &bytes).unwrap(), want);
    for end in 0..bytes.len() {
        assert!(decode(&layout, &bytes[..end]).is_err(), "{end}");
    }
    // A pair of a class the file does not describe either stays unreadable, by name.
    let layout = Compiler { streamers: &set }
        .stl("vector<pair<int,Missing> >", 0)
        .unwrap();
    let e = decode(&layout, &bytes).unwrap_err();
    assert!(e.contains("Missing"), "{e}");
}
