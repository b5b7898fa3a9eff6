//! The TTree writer's branches beyond plain numbers: leaf lists, C strings, `std::string`,
//! `std::vector` of numbers, of vectors and of strings, read back by rootweave's reader
//! value for value over several baskets, filled by batch and by entry alike, and batches
//! that do not match refused. (ROOT 6.40 and uproot read the same kinds in
//! tests/python/test_ttree_write.py.)

use rootweave::array::{Array, ColumnData, LeafType, Value};
use rootweave::compress::{Codec, Compression};
use rootweave::ttree::{BranchSpec, TTreeReader, TTreeWriteOptions, TTreeWriter};

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rootweave-ttree-objects-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn branches() -> Vec<BranchSpec> {
    vec![
        BranchSpec::leaf_list(
            "ll",
            &[
                ("x", LeafType::Float32, &[]),
                ("y", LeafType::Int32, &[]),
                ("z", LeafType::Float64, &[2]),
            ],
        ),
        BranchSpec::c_string("cs"),
        BranchSpec::string("s"),
        BranchSpec::vector("vf", LeafType::Float32),
        BranchSpec::vector("vb", LeafType::Bool),
        BranchSpec::vector_of_vectors("vvi", LeafType::Int32),
        BranchSpec::vector_of_strings("vs"),
    ]
}

/// Entry `e`'s values, the same that [`Columns`] holds.
fn entry(e: usize) -> Vec<Value> {
    let n = e % 5;
    vec![
        Value::Record(vec![
            Value::Float32(e as f32 * 0.5),
            Value::Int32(-(e as i32)),
            Value::Array(vec![
                Value::Float64(e as f64),
                Value::Float64(2.0 * e as f64),
            ]),
        ]),
        Value::String(format!("c{e}")),
        Value::String("s".repeat(e % 300)),
        Value::List((0..n).map(|k| Value::Float32((e + k) as f32)).collect()),
        Value::List((0..n).map(|k| Value::Bool((e + k) % 2 == 0)).collect()),
        Value::List(
            (0..n)
                .map(|k| Value::List((0..k).map(|j| Value::Int32((e * j) as i32)).collect()))
                .collect(),
        ),
        Value::List((0..n).map(|k| Value::String("v".repeat(k))).collect()),
    ]
}

/// The entries `0..n` as columns.
struct Columns {
    x: Vec<f32>,
    y: Vec<i32>,
    z: Vec<f64>,
    cs: Vec<String>,
    s: Vec<String>,
    offsets: Vec<u64>,
    vf: Vec<f32>,
    vb: Vec<bool>,
    inner: Vec<u64>,
    vvi: Vec<i32>,
    vs: Vec<String>,
}

impl Columns {
    fn new(n: usize) -> Self {
        let mut c = Columns {
            x: vec![],
            y: vec![],
            z: vec![],
            cs: vec![],
            s: vec![],
            offsets: vec![0],
            vf: vec![],
            vb: vec![],
            inner: vec![0],
            vvi: vec![],
            vs: vec![],
        };
        for e in 0..n {
            let k = e % 5;
            c.x.push(e as f32 * 0.5);
            c.y.push(-(e as i32));
            c.z.extend([e as f64, 2.0 * e as f64]);
            c.cs.push(format!("c{e}"));
            c.s.push("s".repeat(e % 300));
            c.offsets.push(c.offsets.last().unwrap() + k as u64);
            for i in 0..k {
                c.vf.push((e + i) as f32);
                c.vb.push((e + i) % 2 == 0);
                c.vvi.extend((0..i).map(|j| (e * j) as i32));
                c.inner.push(c.vvi.len() as u64);
                c.vs.push("v".repeat(i));
            }
        }
        c
    }

    fn batch(&self) -> Vec<ColumnData<'_>> {
        vec![
            ColumnData::Record(vec![
                ColumnData::Float32(&self.x),
                ColumnData::Int32(&self.y),
                ColumnData::Float64(&self.z),
            ]),
            ColumnData::Strings(&self.cs),
            ColumnData::Strings(&self.s),
            ColumnData::list(&self.offsets, ColumnData::Float32(&self.vf)),
            ColumnData::list(&self.offsets, ColumnData::Bool(&self.vb)),
            ColumnData::list(
                &self.offsets,
                ColumnData::list(&self.inner, ColumnData::Int32(&self.vvi)),
            ),
            ColumnData::list(&self.offsets, ColumnData::Strings(&self.vs)),
        ]
    }
}

fn strings(v: &[String]) -> Array {
    Array::strings(v)
}

fn list(offsets: &[u64], values: Array) -> Array {
    Array::List {
        offsets: offsets.to_vec(),
        values: Box::new(values),
    }
}

/// Reads every branch of `path` and checks it against `Columns::new(n)`.
fn check(path: &std::path::Path, n: usize) {
    let c = Columns::new(n);
    let t = TTreeReader::open(path, "t").unwrap();
    assert_eq!(t.entries(), n as u64);
    assert!(
        t.meta().find("vvi").unwrap().baskets.len() > 2,
        "several baskets"
    );
    let names = ["ll", "cs", "s", "vf", "vb", "vvi", "vs"];
    let cols = t.read(&names, 0..n as u64).unwrap();
    let Array::Record { fields, .. } = &cols[0].1 else {
        panic!("{:?}", cols[0].1.kind())
    };
    assert_eq!(fields[0], ("x".into(), Array::Float32(c.x.clone())));
    assert_eq!(fields[1], ("y".into(), Array::Int32(c.y.clone())));
    let Array::Fixed { size: 2, values } = &fields[2].1 else {
        panic!("{:?}", fields[2].1.kind())
    };
    assert_eq!(**values, Array::Float64(c.z.clone()));
    assert_eq!(cols[1].1, strings(&c.cs));
    assert_eq!(cols[2].1, strings(&c.s));
    assert_eq!(cols[3].1, list(&c.offsets, Array::Float32(c.vf.clone())));
    assert_eq!(cols[4].1, list(&c.offsets, Array::Bool(c.vb.clone())));
    assert_eq!(
        cols[5].1,
        list(&c.offsets, list(&c.inner, Array::Int32(c.vvi.clone())))
    );
    assert_eq!(cols[6].1, list(&c.offsets, strings(&c.vs)));
    // A range inside the baskets reads the same entries.
    let part = t.read(&["vs"], 1234..1236).unwrap();
    let want = list(
        &[0, 4, 4],
        strings(&["", "v", "vv", "vvv"].map(String::from)),
    );
    assert_eq!(part[0].1, want);
}

#[test]
fn strings_vectors_and_leaf_lists_read_back() {
    let n = 3000;
    let zlib = Compression::new(Codec::Zlib, 1).unwrap();
    let options = || TTreeWriteOptions::default().with_basket_size(4000);
    let by_batch = temp("batch.root");
    let c = Columns::new(n);
    let mut w = TTreeWriter::recreate(&by_batch, "t", branches(), zlib, options()).unwrap();
    w.extend(&c.batch()).unwrap();
    w.close().unwrap();
    check(&by_batch, n);

    let by_entry = temp("entry.root");
    let mut w = TTreeWriter::recreate(&by_entry, "t", branches(), zlib, options()).unwrap();
    for e in 0..n {
        w.fill(&entry(e)).unwrap();
    }
    w.close().unwrap();
    check(&by_entry, n);
}

#[test]
fn mismatched_batches_are_refused_whole() {
    let path = temp("refused.root");
    let mut w = TTreeWriter::recreate(
        &path,
        "t",
        branches(),
        Compression::NONE,
        TTreeWriteOptions::default(),
    )
    .unwrap();
    let good = Columns::new(3);
    let refuse = |w: &mut TTreeWriter, k: usize, data: ColumnData, needle: &str| {
        let mut batch = good.batch();
        batch[k] = data;
        let err = w.extend(&batch).unwrap_err().to_string();
        assert!(err.contains(needle), "{err}");
    };
    let nul = ["a".to_string(), "b\0".into(), "c".into()];
    refuse(&mut w, 1, ColumnData::Strings(&nul), "NUL");
    refuse(
        &mut w,
        2,
        ColumnData::Int32(&[1, 2, 3]),
        "strings are needed",
    );
    let two = ColumnData::Record(vec![
        ColumnData::Float32(&[1.0; 3]),
        ColumnData::Int32(&[1; 3]),
    ]);
    refuse(&mut w, 0, two, "record of 3 members");
    let wrong_type = ColumnData::list(&good.offsets, ColumnData::Float64(&[0.0; 6]));
    refuse(&mut w, 3, wrong_type, "Float32");
    let short = ColumnData::list(&[0, 1, 2, 9], ColumnData::Float32(&[0.0; 6]));
    refuse(&mut w, 3, short, "do not cover");
    let flat = ColumnData::list(&good.offsets, ColumnData::Int32(&[0; 6]));
    refuse(&mut w, 5, flat, "a list of lists");
    let bad = w.fill(&vec![Value::Int32(1); 7]).unwrap_err().to_string();
    assert!(bad.contains("branch ll"), "{bad}");
    assert_eq!(w.entries(), 0);
    w.extend(&good.batch()).unwrap();
    w.close().unwrap();
    check_small(&path);
}

fn check_small(path: &std::path::Path) {
    let t = TTreeReader::open(path, "t").unwrap();
    assert_eq!(t.entries(), 3);
    let cols = t.read(&["cs", "vvi"], 0..3).unwrap();
    assert_eq!(cols[0].1, strings(&["c0", "c1", "c2"].map(String::from)));
}

#[test]
fn names_and_leaf_lists_are_checked() {
    let path = temp("names.root");
    let none = Compression::NONE;
    let open = |b: Vec<BranchSpec>| {
        TTreeWriter::recreate(&path, "t", b, none, TTreeWriteOptions::default())
            .err()
            .map(|e| e.to_string())
    };
    let e = open(vec![BranchSpec::leaf_list("ll", &[])]).unwrap();
    assert!(e.contains("no leaves"), "{e}");
    let e = open(vec![BranchSpec::leaf_list(
        "ll",
        &[("x", LeafType::Int32, &[]), ("x", LeafType::Int32, &[])],
    )])
    .unwrap();
    assert!(e.contains("repeated"), "{e}");
    let e = open(vec![BranchSpec::string("a:b")]).unwrap();
    assert!(e.contains("branch name"), "{e}");
    let e = open(vec![
        BranchSpec::vector("n", LeafType::Int32),
        BranchSpec::counted("x", LeafType::Float32, "n", &[]),
    ])
    .unwrap();
    assert!(e.contains("counter n"), "{e}");
}
