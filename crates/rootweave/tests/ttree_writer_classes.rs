//! Branches of user classes (a class with a base class, nested classes, a fixed array, a
//! `std::string` and a `std::vector<float>`; a `std::vector` of a class) at split levels 0,
//! 1 and 99, read back by rootweave's reader as the objects written. (ROOT 6.40 and uproot
//! read them in tests/python/test_ttree_classes.py.)

use std::sync::Arc;

use rootweave::array::{LeafType, Value};
use rootweave::compress::Compression;
use rootweave::ttree::{
    BranchSpec, ClassSpec, MemberType, TTreeReader, TTreeWriteOptions, TTreeWriter,
};

fn vec3() -> Arc<ClassSpec> {
    let d = || MemberType::Number(LeafType::Float64);
    Arc::new(ClassSpec::new(
        "RwVec3",
        1,
        vec![("x", d()), ("y", d()), ("z", d())],
    ))
}

fn event() -> Arc<ClassSpec> {
    let base = Arc::new(ClassSpec::new(
        "RwBase",
        1,
        vec![
            ("id", MemberType::Number(LeafType::Int32)),
            ("w", MemberType::Number(LeafType::Float32)),
        ],
    ));
    Arc::new(
        ClassSpec::new(
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
        .with_bases(vec![base]),
    )
}

fn simple() -> Arc<ClassSpec> {
    let v = || MemberType::Object(vec3());
    let d = || MemberType::Number(LeafType::Float64);
    let i = || MemberType::Number(LeafType::Int32);
    Arc::new(ClassSpec::new(
        "RwSimple",
        1,
        vec![
            ("p0", v()),
            ("p1", v()),
            ("p2", v()),
            ("d0", d()),
            ("d1", d()),
            ("d2", d()),
            ("i0", i()),
            ("i1", i()),
            ("i2", i()),
        ],
    ))
}

fn v3(x: f64, y: f64, z: f64) -> Value {
    Value::Record(vec![
        Value::Float64(x),
        Value::Float64(y),
        Value::Float64(z),
    ])
}

/// Entry `i`'s event, as ROOT's test writes it.
fn event_value(i: usize) -> Value {
    let f = i as f64;
    Value::Record(vec![
        Value::Record(vec![Value::Int32(i as i32), Value::Float32(0.5 * f as f32)]),
        v3(f, 2.0 * f, 3.0 * f),
        v3(0.0 - f, 0.0, 0.0),
        Value::Float64(1.5 * f),
        Value::Int32(7 * i as i32),
        Value::Array(vec![
            Value::Float32(f as f32),
            Value::Float32(0.0),
            Value::Float32(2.0 * f as f32),
        ]),
        Value::String("x".repeat(i)),
        Value::List((0..i).map(|k| Value::Float32(k as f32)).collect()),
    ])
}

fn simple_value(i: usize, k: usize) -> Value {
    let z = || v3(0.0, 0.0, 0.0);
    Value::Record(vec![
        v3(k as f64, 0.0, 0.0),
        z(),
        z(),
        Value::Float64(i as f64 + k as f64 / 10.0),
        Value::Float64(0.0),
        Value::Float64(0.0),
        Value::Int32(0),
        Value::Int32(0),
        Value::Int32(k as i32),
    ])
}

fn write(path: &std::path::Path, split: i32, entries: usize) {
    let branches = vec![
        BranchSpec::object("ev", event(), split),
        BranchSpec::vector_of_objects("vs", simple(), split),
        BranchSpec::vector_of_objects("ve", event(), split),
    ];
    let options = TTreeWriteOptions::default();
    let mut w = TTreeWriter::recreate(path, "t", branches, Compression::NONE, options).unwrap();
    for i in 0..entries {
        let n = i % 3;
        w.fill(&[
            event_value(i),
            Value::List((0..n).map(|k| simple_value(i, k)).collect()),
            Value::List((0..n).map(|_| event_value(i)).collect()),
        ])
        .unwrap();
    }
    w.close().unwrap();
}

fn temp(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Entry `e` of each column as JSON.
fn json(t: &TTreeReader, name: &str, e: u64) -> String {
    let cols = t.read(&[name], e..e + 1).unwrap();
    let mut s = String::new();
    cols[0].1.write_json(0, &mut s);
    s
}

const EVENT_1: &str = r#"{"id": 1, "w": 0.5, "p0": {"x": 1, "y": 2, "z": 3}, "p1": {"x": -1, "y": 0, "z": 0}, "d0": 1.5, "i0": 7, "arr": [1, 0, 2], "s": "x", "v": [0]}"#;
const EVENT_2: &str = r#"{"id": 2, "w": 1, "p0": {"x": 2, "y": 4, "z": 6}, "p1": {"x": -2, "y": 0, "z": 0}, "d0": 3, "i0": 14, "arr": [2, 0, 4], "s": "xx", "v": [0, 1]}"#;

#[test]
fn unsplit_objects_and_vectors_of_them_read_back() {
    let path = temp("classes0.root");
    write(&path, 0, 5);
    let t = TTreeReader::open(&path, "t").unwrap();
    assert_eq!(t.entries(), 5);
    // One branch each, the streamed object (member-wise for the vectors).
    assert_eq!(t.meta().branches.len(), 3);
    assert_eq!(json(&t, "ev", 2), EVENT_2);
    assert_eq!(json(&t, "ve", 2), format!("[{EVENT_2}, {EVENT_2}]"));
    assert_eq!(json(&t, "ve", 3), "[]");
    let z = r#"{"x": 0, "y": 0, "z": 0}"#;
    assert_eq!(
        json(&t, "vs", 2),
        format!(
            r#"[{{"p0": {z}, "p1": {z}, "p2": {z}, "d0": 2, "d1": 0, "d2": 0, "i0": 0, "i1": 0, "i2": 0}}, {{"p0": {{"x": 1, "y": 0, "z": 0}}, "p1": {z}, "p2": {z}, "d0": 2.1, "d1": 0, "d2": 0, "i0": 0, "i1": 0, "i2": 1}}]"#
        )
    );
}

#[test]
fn split_objects_read_back_member_by_member() {
    for split in [1, 99] {
        let path = temp(&format!("classes{split}.root"));
        write(&path, split, 5);
        let t = TTreeReader::open(&path, "t").unwrap();
        let names = t.branch_names();
        let split_names = if split == 1 {
            vec!["RwBase", "p0", "p1", "d0", "i0", "arr[3]", "s", "v"]
        } else {
            vec![
                "id", "w", "p0.x", "p0.y", "p0.z", "p1.x", "d0", "arr[3]", "s", "v", "vs.p2.z",
                "vs.i2",
            ]
        };
        for name in split_names {
            assert!(
                t.meta().find(name).is_some(),
                "split {split}: {name} in {names:?}"
            );
        }
        assert_eq!(json(&t, "d0", 2), "3");
        assert_eq!(json(&t, "arr[3]", 2), "[2, 0, 4]");
        assert_eq!(json(&t, "s", 3), r#""xxx""#);
        assert_eq!(json(&t, "v", 2), "[0, 1]");
        assert_eq!(json(&t, "vs.d0", 2), "[2, 2.1]");
        assert_eq!(json(&t, "vs.i2", 2), "[0, 1]");
        assert_eq!(json(&t, "vs.d0", 3), "[]");
        if split == 99 {
            assert_eq!(json(&t, "p0.y", 2), "4");
            assert_eq!(json(&t, "id", 4), "4");
            assert_eq!(json(&t, "vs.p0.x", 2), "[0, 1]");
        } else {
            assert_eq!(json(&t, "p0", 2), r#"{"x": 2, "y": 4, "z": 6}"#);
            assert_eq!(json(&t, "RwBase", 4), r#"{"id": 4, "w": 2}"#);
            assert_eq!(
                json(&t, "vs.p0", 2),
                r#"[{"x": 0, "y": 0, "z": 0}, {"x": 1, "y": 0, "z": 0}]"#
            );
        }
        // A vector of a class with base classes is written unsplit, as ROOT cannot split it.
        assert_eq!(json(&t, "ve", 2), format!("[{EVENT_2}, {EVENT_2}]"));
    }
}

#[test]
fn batches_and_names_that_do_not_fit_are_refused() {
    let path = temp("bad.root");
    let options = TTreeWriteOptions::default;
    // Two objects whose members make sub-branches of the same names, as ROOT writes two
    // `ROOT::Math` vectors' `fCoordinates`: each read back by its path.
    let two = vec![
        BranchSpec::object("a", vec3(), 99),
        BranchSpec::object("b", vec3(), 99),
    ];
    let mut w = TTreeWriter::recreate(&path, "t", two, Compression::NONE, options()).unwrap();
    w.fill(&[v3(1.0, 2.0, 3.0), v3(4.0, 5.0, 6.0)]).unwrap();
    w.close().unwrap();
    let t = TTreeReader::open(&path, "t").unwrap();
    assert_eq!(json(&t, "a", 0), r#"{"x": 1, "y": 2, "z": 3}"#);
    assert_eq!(json(&t, "b", 0), r#"{"x": 4, "y": 5, "z": 6}"#);
    assert_eq!(json(&t, "b/y", 0), "5");
    // A sub-branch named as a branch given, or an object branch named twice: refused.
    for clash in [
        vec![
            BranchSpec::object("a", vec3(), 99),
            BranchSpec::scalar("y", LeafType::Float64),
        ],
        vec![
            BranchSpec::object("a", vec3(), 99),
            BranchSpec::object("a", vec3(), 99),
        ],
    ] {
        let e = TTreeWriter::recreate(&path, "t", clash, Compression::NONE, options())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("is repeated") && e.contains("ends with '.'"),
            "{e}"
        );
    }
    // Ending the names with '.' prefixes the members' branches.
    let dotted = vec![
        BranchSpec::object("a.", vec3(), 99),
        BranchSpec::object("b.", vec3(), 99),
    ];
    let mut w = TTreeWriter::recreate(&path, "t", dotted, Compression::NONE, options()).unwrap();
    w.fill(&[v3(1.0, 2.0, 3.0), v3(4.0, 5.0, 6.0)]).unwrap();
    // A record of the wrong number of members, a string for a number: refused, nothing
    // written.
    let short = Value::Record(vec![Value::Float64(1.0)]);
    assert!(w.fill(&[short, v3(0.0, 0.0, 0.0)]).is_err());
    let wrong = Value::Record(vec![
        Value::Float64(1.0),
        Value::String("y".into()),
        Value::Float64(1.0),
    ]);
    assert!(w.fill(&[v3(0.0, 0.0, 0.0), wrong]).is_err());
    w.close().unwrap();
    let t = TTreeReader::open(&path, "t").unwrap();
    assert_eq!(t.entries(), 1);
    assert_eq!(json(&t, "a.y", 0), "2");
    assert_eq!(json(&t, "b.z", 0), "6");
    // Classes that are not C++ classes.
    let twice = ClassSpec::new(
        "A",
        1,
        vec![("x", MemberType::String), ("x", MemberType::String)],
    );
    let e = TTreeWriter::recreate(
        &path,
        "t",
        vec![BranchSpec::object("a", Arc::new(twice), 0)],
        Compression::NONE,
        options(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("member name \"x\" is not usable or repeated"),
        "{e}"
    );
}

/// `Holder { int n; std::vector<RwSimple> items; }`: a class holding a `std::vector` of a
/// class.
fn holder() -> Arc<ClassSpec> {
    Arc::new(ClassSpec::new(
        "RwHolder",
        1,
        vec![
            ("n", MemberType::Number(LeafType::Int32)),
            ("items", MemberType::Objects(simple())),
        ],
    ))
}

#[test]
fn vectors_of_objects_inside_objects_read_back_at_every_split() {
    for split in [0, 1, 2, 99] {
        let path = temp(&format!("holder{split}.root"));
        let branches = vec![BranchSpec::object("h", holder(), split)];
        let options = TTreeWriteOptions::default();
        let mut w =
            TTreeWriter::recreate(&path, "t", branches, Compression::NONE, options).unwrap();
        for i in 0..4 {
            let items = Value::List((0..i % 3).map(|k| simple_value(i, k)).collect());
            w.fill(&[Value::Record(vec![Value::Int32(i as i32), items])])
                .unwrap();
        }
        w.close().unwrap();
        let t = TTreeReader::open(&path, "t").unwrap();
        let names = t.branch_names();
        match split {
            // The object streamed whole; its members a branch each, the vector unsplit.
            0 => assert_eq!(names, ["h"]),
            1 => assert_eq!(names, ["h", "n", "items"]),
            // Split from 2 on: the vector's counts, and a branch per member of its items
            // (at 2 the items' objects whole, at 99 split too).
            2 => assert_eq!(names[..5], ["h", "n", "items", "items.p0", "items.p1"]),
            _ => assert_eq!(names[..5], ["h", "n", "items", "items.p0.x", "items.p0.y"]),
        }
        let z = r#"{"x": 0, "y": 0, "z": 0}"#;
        let item = |d0: &str, x: u8, i2: u8| {
            format!(
                r#"{{"p0": {{"x": {x}, "y": 0, "z": 0}}, "p1": {z}, "p2": {z}, "d0": {d0}, "d1": 0, "d2": 0, "i0": 0, "i1": 0, "i2": {i2}}}"#
            )
        };
        let two = format!("[{}, {}]", item("2", 0, 0), item("2.1", 1, 1));
        match split {
            0 => {
                assert_eq!(
                    json(&t, "h", 2),
                    format!(r#"{{"n": 2, "items": {two}}}"#),
                    "split {split}"
                );
                assert_eq!(json(&t, "h", 3), r#"{"n": 3, "items": []}"#);
            }
            1 => {
                assert_eq!(json(&t, "items", 2), two);
                assert_eq!(json(&t, "items", 0), "[]");
            }
            _ => {
                // The counts' branch reads as the record of its members' branches.
                let items = json(&t, "items", 2);
                assert!(items.contains(r#""items.d0": [2, 2.1]"#), "{items}");
                assert_eq!(json(&t, "items.d0", 2), "[2, 2.1]");
                match split {
                    2 => assert_eq!(
                        json(&t, "items.p0", 2),
                        r#"[{"x": 0, "y": 0, "z": 0}, {"x": 1, "y": 0, "z": 0}]"#
                    ),
                    _ => assert_eq!(json(&t, "items.p0.x", 2), "[0, 1]"),
                }
                assert_eq!(json(&t, "items.i2", 1), "[0]");
                assert_eq!(json(&t, "items.d0", 3), "[]");
            }
        }
        if split > 0 {
            assert_eq!(json(&t, "n", 3), "3");
        }
    }
    // A vector of a class with a base class is not split (ROOT 6.40 cannot split one).
    let path = temp("holder-bases.root");
    let of_derived = ClassSpec::new("RwHolderB", 1, vec![("evs", MemberType::Objects(event()))]);
    let branches = vec![BranchSpec::object("hb", Arc::new(of_derived), 99)];
    let options = TTreeWriteOptions::default();
    let mut w = TTreeWriter::recreate(&path, "t", branches, Compression::NONE, options).unwrap();
    for i in 0..3 {
        let evs = Value::List((0..i).map(event_value).collect());
        w.fill(&[Value::Record(vec![evs])]).unwrap();
    }
    w.close().unwrap();
    let t = TTreeReader::open(&path, "t").unwrap();
    assert_eq!(t.branch_names(), ["hb", "evs"]);
    let evs = json(&t, "evs", 2);
    assert!(
        evs.starts_with(r#"[{"id": 0,"#) && evs.ends_with(&format!("{EVENT_1}]")),
        "{evs}"
    );
    // A vector of a class inside the items of a vector: refused.
    let path = temp("holder-bad.root");
    let e = TTreeWriter::recreate(
        &path,
        "t",
        vec![BranchSpec::vector_of_objects("hs", holder(), 99)],
        Compression::NONE,
        TTreeWriteOptions::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("holding a std::vector of a class"), "{e}");
}

#[test]
fn root_vectors_as_branches_of_their_own_are_never_split() {
    use rootweave::ttree::root_class;
    let vector3 = root_class("TVector3").unwrap();
    let lorentz = root_class("TLorentzVector").unwrap();
    for split in [0, 99] {
        let path = temp(&format!("tvector{split}.root"));
        let branches = vec![
            BranchSpec::object("v", vector3.clone(), split),
            BranchSpec::vector_of_objects("p4s", lorentz.clone(), split),
        ];
        let options = TTreeWriteOptions::default();
        let mut w =
            TTreeWriter::recreate(&path, "t", branches, Compression::NONE, options).unwrap();
        for i in 0..3 {
            let p4 =
                |k: usize| Value::Record(vec![v3(k as f64, i as f64, 0.0), Value::Float64(10.0)]);
            w.fill(&[
                v3(i as f64, 2.0, 3.0),
                Value::List((0..i as usize).map(p4).collect()),
            ])
            .unwrap();
        }
        w.close().unwrap();
        let t = TTreeReader::open(&path, "t").unwrap();
        assert_eq!(t.branch_names(), ["v", "p4s"], "split {split}");
        assert_eq!(json(&t, "v", 2), r#"{"fX": 2, "fY": 2, "fZ": 3}"#);
        assert_eq!(
            json(&t, "p4s", 2),
            r#"[{"fP": {"fX": 0, "fY": 2, "fZ": 0}, "fE": 10}, {"fP": {"fX": 1, "fY": 2, "fZ": 0}, "fE": 10}]"#
        );
    }
}
