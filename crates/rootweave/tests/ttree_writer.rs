//! The TTree writer: trees of number branches (every leaf type, fixed-size arrays) read
//! back by rootweave's reader value for value, baskets and clusters where the options put
//! them, and batches that do not match the branches refused whole. (ROOT 6.40 and uproot
//! read the same files in tests/python/test_ttree_write.py.)

use rootweave::array::{Array, ColumnData, LeafType};
use rootweave::compress::{Codec, Compression};
use rootweave::ttree::{BranchSpec, TTreeReader, TTreeWriteOptions, TTreeWriter};

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rootweave-ttree-writer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn every_number_type_reads_back() {
    let path = temp("types.root");
    let n = 1000usize;
    let branches = vec![
        BranchSpec::scalar("o", LeafType::Bool),
        BranchSpec::scalar("b", LeafType::Int8),
        BranchSpec::scalar("ub", LeafType::UInt8),
        BranchSpec::scalar("s", LeafType::Int16),
        BranchSpec::scalar("us", LeafType::UInt16),
        BranchSpec::scalar("i", LeafType::Int32),
        BranchSpec::scalar("ui", LeafType::UInt32),
        BranchSpec::scalar("l", LeafType::Int64),
        BranchSpec::scalar("ul", LeafType::UInt64),
        BranchSpec::scalar("f", LeafType::Float32),
        BranchSpec::scalar("d", LeafType::Float64),
        BranchSpec::array("v3", LeafType::Float32, &[3]),
        BranchSpec::array("m23", LeafType::Int32, &[2, 3]),
    ];
    let o: Vec<bool> = (0..n).map(|e| e % 3 == 0).collect();
    let b: Vec<i8> = (0..n).map(|e| (e % 256) as u8 as i8).collect();
    let ub: Vec<u8> = (0..n).map(|e| (e % 256) as u8).collect();
    let s: Vec<i16> = (0..n).map(|e| -(e as i16)).collect();
    let us: Vec<u16> = (0..n).map(|e| 65535 - e as u16).collect();
    let i: Vec<i32> = (0..n).map(|e| e as i32 * -1000).collect();
    let ui: Vec<u32> = (0..n).map(|e| 4_000_000_000 + e as u32).collect();
    let l: Vec<i64> = (0..n).map(|e| -(1i64 << 40) - e as i64).collect();
    let ul: Vec<u64> = (0..n).map(|e| u64::MAX - e as u64).collect();
    let f: Vec<f32> = (0..n).map(|e| e as f32 * 0.5).collect();
    let d: Vec<f64> = (0..n).map(|e| e as f64 / 3.0).collect();
    let v3: Vec<f32> = (0..3 * n).map(|k| k as f32).collect();
    let m23: Vec<i32> = (0..6 * n).map(|k| k as i32 - 7).collect();
    let options = TTreeWriteOptions::default()
        .with_title("every type")
        .with_basket_size(1000);
    let zstd = Compression::new(Codec::Zstd, 5).unwrap();
    let mut w = TTreeWriter::recreate(&path, "types", branches, zstd, options).unwrap();
    // Two batches: baskets span them.
    for half in [0..n / 2, n / 2..n] {
        let r = half.clone();
        w.extend(&[
            ColumnData::Bool(&o[r.clone()]),
            ColumnData::Int8(&b[r.clone()]),
            ColumnData::UInt8(&ub[r.clone()]),
            ColumnData::Int16(&s[r.clone()]),
            ColumnData::UInt16(&us[r.clone()]),
            ColumnData::Int32(&i[r.clone()]),
            ColumnData::UInt32(&ui[r.clone()]),
            ColumnData::Int64(&l[r.clone()]),
            ColumnData::UInt64(&ul[r.clone()]),
            ColumnData::Float32(&f[r.clone()]),
            ColumnData::Float64(&d[r.clone()]),
            ColumnData::array(ColumnData::Float32(&v3[3 * r.start..3 * r.end])),
            ColumnData::array(ColumnData::array(ColumnData::Int32(
                &m23[6 * r.start..6 * r.end],
            ))),
        ])
        .unwrap();
    }
    assert_eq!(w.entries(), n as u64);
    w.close().unwrap();

    let t = TTreeReader::open(&path, "types").unwrap();
    assert_eq!(t.entries(), n as u64);
    let meta = t.meta();
    assert_eq!(meta.title, "every type");
    // 1000-byte baskets: the 8-byte branches need 8 of them.
    assert_eq!(meta.find("d").unwrap().baskets.len(), 9);
    let cols = t.read(&[], 0..n as u64).unwrap();
    let get = |name: &str| &cols.iter().find(|(c, _)| c == name).unwrap().1;
    assert_eq!(get("o"), &Array::Bool(o));
    assert_eq!(get("b"), &Array::Int8(b));
    assert_eq!(get("ub"), &Array::UInt8(ub));
    assert_eq!(get("s"), &Array::Int16(s));
    assert_eq!(get("us"), &Array::UInt16(us));
    assert_eq!(get("i"), &Array::Int32(i));
    assert_eq!(get("ui"), &Array::UInt32(ui));
    assert_eq!(get("l"), &Array::Int64(l));
    assert_eq!(get("ul"), &Array::UInt64(ul));
    assert_eq!(get("f"), &Array::Float32(f));
    assert_eq!(get("d"), &Array::Float64(d));
    let flat = |a: &Array| -> Array {
        let mut a = a.clone();
        while let Array::Fixed { values, .. } = a {
            a = *values;
        }
        a
    };
    assert_eq!(flat(get("v3")), Array::Float32(v3));
    assert_eq!(flat(get("m23")), Array::Int32(m23));
}

#[test]
fn clusters_end_at_the_byte_target_then_every_as_many_entries() {
    let path = temp("clusters.root");
    let n = 10_000u64;
    let x: Vec<f64> = (0..n).map(|e| e as f64).collect();
    let y: Vec<i32> = (0..n as i32).collect();
    let options = TTreeWriteOptions::default()
        .with_basket_size(1000)
        .with_auto_flush_bytes(5000);
    let branches = vec![
        BranchSpec::scalar("x", LeafType::Float64),
        BranchSpec::scalar("y", LeafType::Int32),
    ];
    let mut w = TTreeWriter::recreate(&path, "t", branches, Compression::NONE, options).unwrap();
    for chunk in (0..n as usize).step_by(777) {
        let end = (chunk + 777).min(n as usize);
        w.extend(&[
            ColumnData::Float64(&x[chunk..end]),
            ColumnData::Int32(&y[chunk..end]),
        ])
        .unwrap();
    }
    w.close().unwrap();
    let t = TTreeReader::open(&path, "t").unwrap();
    let clusters = t.cluster_ranges();
    let first = clusters[0].end;
    // About 5000 stored bytes of x and y (12 bytes an entry, keys aside) end the first.
    assert!((300..=500).contains(&first), "{first}");
    for (k, c) in clusters.iter().enumerate() {
        assert_eq!(c.start, k as u64 * first);
        assert_eq!(c.end, ((k as u64 + 1) * first).min(n));
    }
    // No basket straddles a cluster boundary.
    for name in ["x", "y"] {
        for b in &t.meta().find(name).unwrap().baskets {
            let k = b.first_entry / first;
            assert!(b.end_entry <= (k + 1) * first, "{name}: {b:?}");
        }
    }
    let cols = t.read(&["x", "y"], 0..n).unwrap();
    assert_eq!(cols[0].1, Array::Float64(x));
    assert_eq!(cols[1].1, Array::Int32(y));
}

#[test]
fn batches_that_do_not_match_are_refused_whole() {
    let path = temp("refused.root");
    let branches = vec![
        BranchSpec::scalar("x", LeafType::Float64),
        BranchSpec::array("v", LeafType::Int32, &[3]),
    ];
    let options = TTreeWriteOptions::default();
    let mut w = TTreeWriter::recreate(&path, "t", branches, Compression::NONE, options).unwrap();
    let x = [1.0, 2.0];
    let v = [1, 2, 3, 4, 5, 6];
    let wrong_type = w.extend(&[ColumnData::Float32(&[1.0, 2.0]), ColumnData::Int32(&v)]);
    assert!(wrong_type.unwrap_err().to_string().contains("branch x"));
    let wrong_len = w.extend(&[ColumnData::Float64(&x), ColumnData::Int32(&v[..5])]);
    assert!(wrong_len.unwrap_err().to_string().contains("branch v"));
    let unequal = w.extend(&[ColumnData::Float64(&x[..1]), ColumnData::Int32(&v)]);
    assert!(unequal.is_err());
    assert!(w.extend(&[ColumnData::Float64(&x)]).is_err());
    w.extend(&[ColumnData::Float64(&x), ColumnData::Int32(&v)])
        .unwrap();
    w.close().unwrap();
    let t = TTreeReader::open(&path, "t").unwrap();
    assert_eq!(t.entries(), 2);
    let bad = TTreeWriter::recreate(
        temp("bad.root"),
        "t",
        vec![
            BranchSpec::scalar("x", LeafType::Int8),
            BranchSpec::scalar("x", LeafType::Int8),
        ],
        Compression::NONE,
        TTreeWriteOptions::default(),
    );
    assert!(bad.is_err());
}

#[test]
fn counted_arrays_read_back_with_their_counters() {
    let path = temp("counted.root");
    let n = 3000usize;
    let counts: Vec<u32> = (0..n).map(|e| (e % 7) as u32).collect();
    let offsets: Vec<u64> = std::iter::once(0)
        .chain(counts.iter().scan(0u64, |acc, &c| {
            *acc += c as u64;
            Some(*acc)
        }))
        .collect();
    let total = *offsets.last().unwrap() as usize;
    let pt: Vec<f32> = (0..total).map(|k| k as f32 * 0.25).collect();
    let hits: Vec<f64> = (0..3 * total).map(|k| -(k as f64)).collect();
    let branches = vec![
        BranchSpec::scalar("nMuon", LeafType::UInt32),
        BranchSpec::counted("Muon_pt", LeafType::Float32, "nMuon", &[]),
        BranchSpec::counted("Muon_hits", LeafType::Float64, "nMuon", &[3]),
    ];
    let options = TTreeWriteOptions::default().with_basket_size(2000);
    let zlib = Compression::new(Codec::Zlib, 1).unwrap();
    let mut w = TTreeWriter::recreate(&path, "Events", branches, zlib, options).unwrap();
    w.extend(&[
        ColumnData::UInt32(&counts),
        ColumnData::list(&offsets, ColumnData::Float32(&pt)),
        ColumnData::list(&offsets, ColumnData::array(ColumnData::Float64(&hits))),
    ])
    .unwrap();
    // A counter that does not match its arrays' lengths is refused.
    let wrong = [1u32, 1];
    let err = w
        .extend(&[
            ColumnData::UInt32(&wrong),
            ColumnData::list(&[0, 1, 1], ColumnData::Float32(&[1.0])),
            ColumnData::list(&[0, 1, 1], ColumnData::Float64(&[1.0, 2.0, 3.0])),
        ])
        .unwrap_err();
    assert!(err.to_string().contains("counter nMuon"), "{err}");
    w.close().unwrap();

    let t = TTreeReader::open(&path, "Events").unwrap();
    assert_eq!(t.entries(), n as u64);
    let b = t.meta().find("Muon_pt").unwrap();
    assert!(b.baskets.len() > 3);
    assert_eq!(b.leaves[0].count.as_deref(), Some("nMuon"));
    let cols = t.read(&["Muon_pt", "Muon_hits"], 0..n as u64).unwrap();
    let Array::List { offsets: o, values } = &cols[0].1 else {
        panic!("{:?}", cols[0].1.kind())
    };
    assert_eq!(o, &offsets);
    assert_eq!(**values, Array::Float32(pt));
    let Array::List { offsets: o, values } = &cols[1].1 else {
        panic!("{:?}", cols[1].1.kind())
    };
    assert_eq!(o, &offsets);
    let Array::Fixed { size: 3, values } = values.as_ref() else {
        panic!()
    };
    assert_eq!(**values, Array::Float64(hits));
    // A range inside a basket reads the same entries.
    let part = t.read(&["Muon_pt"], 1234..1240).unwrap();
    let Array::List { offsets: o, .. } = &part[0].1 else {
        panic!()
    };
    let lens: Vec<u64> = o.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(
        lens,
        (1234..1240).map(|e| (e % 7) as u64).collect::<Vec<_>>()
    );
}

#[test]
fn baskets_grow_after_the_first_cluster_as_roots_do() {
    // One branch: ROOT's resizing gives it 100 times its basket size (the most it scales
    // by), rounded up to the next multiple of 512 bytes: 100,352 bytes.
    let path = temp("resized.root");
    let n = 100_000u64;
    let x: Vec<f64> = (0..n).map(|e| e as f64 * 0.5).collect();
    let options = TTreeWriteOptions::default()
        .with_basket_size(1000)
        .with_auto_flush_bytes(200_000);
    let branches = vec![BranchSpec::scalar("x", LeafType::Float64)];
    let mut w = TTreeWriter::recreate(&path, "t", branches, Compression::NONE, options).unwrap();
    w.extend(&[ColumnData::Float64(&x)]).unwrap();
    w.close().unwrap();
    let t = TTreeReader::open(&path, "t").unwrap();
    let first = t.cluster_ranges()[0].end;
    let sizes: Vec<u64> = t
        .meta()
        .find("x")
        .unwrap()
        .baskets
        .iter()
        .map(|b| b.end_entry - b.first_entry)
        .collect();
    // 1000-byte baskets (116 entries of 8 bytes after a 65-byte key) in the first cluster,
    // then (100,352 - 65) / 8 rounded down: 12,535 entries, but where a cluster ends.
    let (before, after): (Vec<_>, Vec<_>) = t
        .meta()
        .find("x")
        .unwrap()
        .baskets
        .iter()
        .partition(|b| b.end_entry <= first);
    assert!(
        before.iter().all(|b| b.end_entry - b.first_entry <= 116),
        "{sizes:?}"
    );
    assert!(
        after.iter().all(|b| b.end_entry - b.first_entry <= 12_535),
        "{sizes:?}"
    );
    assert!(
        after.iter().any(|b| b.end_entry - b.first_entry == 12_535),
        "{sizes:?}"
    );
    assert_eq!(t.read(&["x"], 0..n).unwrap()[0].1, Array::Float64(x));
    // Without resizing, every basket keeps 1000 bytes.
    let path = temp("kept.root");
    let options = TTreeWriteOptions::default()
        .with_basket_size(1000)
        .with_auto_flush_bytes(200_000)
        .with_resize_baskets(false);
    let branches = vec![BranchSpec::scalar("x", LeafType::Float64)];
    let mut w = TTreeWriter::recreate(&path, "t", branches, Compression::NONE, options).unwrap();
    w.extend(&[ColumnData::Float64(
        &(0..n).map(|e| e as f64).collect::<Vec<_>>(),
    )])
    .unwrap();
    w.close().unwrap();
    let t = TTreeReader::open(&path, "t").unwrap();
    let b = &t.meta().find("x").unwrap().baskets;
    assert!(b.iter().all(|b| b.end_entry - b.first_entry <= 116));
}

#[test]
fn entries_filled_one_at_a_time() {
    use rootweave::array::Value;
    let path = temp("filled.root");
    let branches = vec![
        BranchSpec::scalar("n", LeafType::Int32),
        BranchSpec::counted("pt", LeafType::Float32, "n", &[]),
        BranchSpec::array("v", LeafType::Int16, &[2]),
    ];
    let options = TTreeWriteOptions::default();
    let mut w = TTreeWriter::recreate(&path, "t", branches, Compression::NONE, options).unwrap();
    for e in 0..5i32 {
        let pt = (0..e).map(|i| Value::Float32(i as f32 + 0.5)).collect();
        let v = Value::Array(vec![Value::Int16(e as i16), Value::Int16(-e as i16)]);
        w.fill(&[Value::Int32(e), Value::List(pt), v]).unwrap();
    }
    // A value of another type, a list longer than its counter, a wrong count: refused.
    let v = || Value::Array(vec![Value::Int16(0), Value::Int16(0)]);
    assert!(w
        .fill(&[Value::Int64(0), Value::List(vec![]), v()])
        .is_err());
    let long = Value::List(vec![Value::Float32(1.0)]);
    assert!(w.fill(&[Value::Int32(0), long, v()]).is_err());
    assert!(w.fill(&[Value::Int32(0)]).is_err());
    w.close().unwrap();
    let t = TTreeReader::open(&path, "t").unwrap();
    assert_eq!(t.entries(), 5);
    let cols = t.read(&["pt", "v"], 0..5).unwrap();
    let Array::List { offsets, values } = &cols[0].1 else {
        panic!()
    };
    assert_eq!(offsets, &[0, 0, 1, 3, 6, 10]);
    assert_eq!(
        **values,
        Array::Float32(vec![0.5, 0.5, 1.5, 0.5, 1.5, 2.5, 0.5, 1.5, 2.5, 3.5])
    );
    let Array::Fixed { values, .. } = &cols[1].1 else {
        panic!()
    };
    assert_eq!(
        **values,
        Array::Int16(vec![0, 0, 1, -1, 2, -2, 3, -3, 4, -4])
    );
}
