//! The RNTuple reader: what the writer writes reads back value for value (every type,
//! every codec, many pages and clusters, any entry range, any thread count); every
//! RNTuple in tests/data opens and reads; truncated and bit-flipped files give
//! errors, never panics. (Values of real ROOT files are compared with uproot and ROOT
//! in tests/python.)

mod common;

use common::{test_data, Vectored};

use std::sync::Arc;

use rootweave::array::slice;
use rootweave::array::Array;
use rootweave::array::Recycler;
use rootweave::container::{FileWriter, RootFile, WriterOptions};
use rootweave::io::MemoryFile;
use rootweave::rntuple::{
    Field, FieldType, RNTupleReader, RNTupleWriteOptions, RNTupleWriter, ReadOptions, Value,
};

fn schema() -> Vec<Field> {
    vec![
        Field::new("b", FieldType::Bool),
        Field::new("i8", FieldType::Int8),
        Field::new("i16", FieldType::Int16),
        Field::new("i32", FieldType::Int32),
        Field::new("i64", FieldType::Int64),
        Field::new("u8", FieldType::UInt8),
        Field::new("u16", FieldType::UInt16),
        Field::new("u32", FieldType::UInt32),
        Field::new("u64", FieldType::UInt64),
        Field::new("f", FieldType::Float32),
        Field::new("d", FieldType::Float64),
        Field::new("s", FieldType::String),
        Field::new("vv", FieldType::vector(FieldType::vector(FieldType::Int32))),
        Field::new(
            "a",
            FieldType::array(FieldType::array(FieldType::Float32, 2), 3),
        ),
        Field::new("o", FieldType::optional(FieldType::String)),
        Field::new("p", FieldType::pair(FieldType::Int64, FieldType::Float64)),
        Field::new(
            "t",
            FieldType::Tuple(vec![FieldType::Bool, FieldType::String, FieldType::UInt8]),
        ),
        Field::new(
            "Muon",
            FieldType::untyped_collection(FieldType::untyped_record(vec![
                Field::new("pt", FieldType::Float32),
                Field::new("id", FieldType::vector(FieldType::UInt16)),
            ])),
        ),
    ]
}

/// The values of entry `e`, a function of `e` only.
fn entry(e: u64) -> Vec<Value> {
    let s = |n: u64| format!("s{}", n * 7 % 101);
    let k = (e % 4) as usize;
    vec![
        Value::Bool(e % 3 == 0),
        Value::Int8((e % 256) as u8 as i8),
        Value::Int16(-(e as i16)),
        Value::Int32(e as i32 * 31 - 7000),
        Value::Int64(-(e as i64) << 20),
        Value::UInt8(e as u8),
        Value::UInt16(e as u16 ^ 0xA5A5),
        Value::UInt32((e as u32).wrapping_mul(2654435761)),
        Value::UInt64(e.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        Value::Float32(if e % 97 == 5 {
            f32::NAN
        } else {
            e as f32 * 0.5 - 3.0
        }),
        Value::Float64(if e % 89 == 7 {
            f64::NEG_INFINITY
        } else {
            e as f64 / 3.0
        }),
        Value::String(if e % 5 == 0 {
            String::new()
        } else {
            s(e).repeat(k)
        }),
        Value::List(
            (0..k)
                .map(|j| {
                    Value::List(
                        (0..j)
                            .map(|m| Value::Int32((e * 10 + m as u64) as i32))
                            .collect(),
                    )
                })
                .collect(),
        ),
        Value::Array(
            (0..3)
                .map(|j| {
                    Value::Array(
                        (0..2)
                            .map(|m| Value::Float32((e * 6 + j * 2 + m) as f32))
                            .collect(),
                    )
                })
                .collect(),
        ),
        Value::Optional((e % 2 == 1).then(|| Box::new(Value::String(s(e + 1))))),
        Value::Record(vec![
            Value::Int64(e as i64 - 50),
            Value::Float64(e as f64 * 0.25),
        ]),
        Value::Record(vec![
            Value::Bool(e % 2 == 0),
            Value::String(s(e)),
            Value::UInt8(7),
        ]),
        Value::List(
            (0..k)
                .map(|j| {
                    Value::Record(vec![
                        Value::Float32(e as f32 + j as f32 / 10.0),
                        Value::List((0..j).map(|m| Value::UInt16(m as u16)).collect()),
                    ])
                })
                .collect(),
        ),
    ]
}

/// NaN equals NaN here: the comparison is of stored values.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float32(x), Value::Float32(y)) => x.to_bits() == y.to_bits(),
        (Value::Float64(x), Value::Float64(y)) => x.to_bits() == y.to_bits(),
        (Value::List(x), Value::List(y))
        | (Value::Array(x), Value::Array(y))
        | (Value::Record(x), Value::Record(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Optional(x), Value::Optional(y)) => match (x, y) {
            (Some(a), Some(b)) => same(a, b),
            (None, None) => true,
            _ => false,
        },
        _ => a == b,
    }
}

/// Writes `n` entries in memory with small pages and clusters; returns the file bytes.
fn write(n: u64, compression: &str, checksums: bool) -> Vec<u8> {
    let memory = Arc::new(MemoryFile::new());
    let file = Arc::new(
        FileWriter::with_backend(memory.clone(), "rt.root", WriterOptions::default()).unwrap(),
    );
    let options = RNTupleWriteOptions::default()
        .with_compression(compression.parse().unwrap())
        .with_max_page_size(512)
        .with_page_checksums(checksums);
    let mut w = RNTupleWriter::in_file(file.clone(), "ntpl", schema(), options).unwrap();
    for e in 0..n {
        w.fill(&entry(e)).unwrap();
        if e % 700 == 699 {
            w.commit_cluster().unwrap();
        }
        if e % 2100 == 2099 {
            w.commit_cluster_group().unwrap();
        }
    }
    w.close().unwrap();
    Arc::try_unwrap(file).ok().unwrap().close().unwrap();
    memory.to_bytes()
}

fn reader(bytes: Vec<u8>, threads: usize) -> rootweave::Result<RNTupleReader> {
    let file = Arc::new(RootFile::from_source(Arc::new(MemoryFile::from_bytes(
        bytes,
    )))?);
    RNTupleReader::from_file(
        file,
        "ntpl",
        ReadOptions::default()
            .with_threads(threads)
            .with_memory_budget(1 << 20)
            .with_verify_checksums(true),
    )
}

#[test]
fn every_type_reads_back_with_every_codec() {
    let n = 2500;
    for compression in ["none", "zlib:1", "lz4:4", "zstd:5", "lzma:1"] {
        let r = reader(write(n, compression, true), 2).unwrap();
        assert_eq!(r.entries(), n);
        assert!(r.cluster_ranges().unwrap().len() >= 4, "{compression}");
        let mut e = 0;
        for values in r.iter_entries(&[], 0..n).unwrap() {
            let values = values.unwrap();
            let expected = entry(e);
            for (k, (got, want)) in values.iter().zip(&expected).enumerate() {
                assert!(
                    same(got, want),
                    "{compression} entry {e} field {k}: {got:?} != {want:?}"
                );
            }
            e += 1;
        }
        assert_eq!(e, n);
    }
}

#[test]
fn any_entry_range_and_thread_count_gives_the_same_arrays() {
    let bytes = write(2500, "zstd:1", false);
    let full = reader(bytes.clone(), 1)
        .unwrap()
        .read(&[], 0..2500)
        .unwrap();
    for threads in [1, 3] {
        let r = reader(bytes.clone(), threads).unwrap();
        for (start, stop) in [
            (0, 2500),
            (0, 1),
            (699, 701),
            (1400, 2499),
            (2499, 2500),
            (10, 10),
        ] {
            let part = r
                .read(&["vv", "s", "Muon", "a", "o", "f"], start..stop)
                .unwrap();
            for (name, array) in &part {
                let whole = &full.iter().find(|(n, _)| n == name).unwrap().1;
                assert_eq!(array.len(), (stop - start) as usize);
                for i in 0..array.len() {
                    assert!(
                        same(&array.value(i), &whole.value(start as usize + i)),
                        "{name} entry {}",
                        start as usize + i
                    );
                }
            }
        }
    }
}

#[test]
fn arrays_have_the_arrow_layout() {
    let r = reader(write(10, "none", true), 1).unwrap();
    let arrays = r.read(&["vv", "Muon.pt", "i32"], 3..6).unwrap();
    match &arrays[0].1 {
        Array::List { offsets, values } => {
            assert_eq!(offsets, &[0, 3, 3, 4]);
            let Array::List { offsets, values } = &**values else {
                panic!("inner list")
            };
            assert_eq!(offsets, &[0, 0, 1, 3, 3]);
            assert_eq!(**values, Array::Int32(vec![30, 30, 31]));
        }
        other => panic!("vv is {}", other.kind()),
    }
    match &arrays[1].1 {
        Array::List { offsets, values } => {
            assert_eq!(offsets, &[0, 3, 3, 4]);
            assert_eq!(**values, Array::Float32(vec![3.0, 3.1, 3.2, 5.0]));
        }
        other => panic!("Muon.pt is {}", other.kind()),
    }
    assert_eq!(arrays[2].1, Array::Int32(vec![-6907, -6876, -6845]));
}

#[test]
fn bad_requests_are_refused() {
    let r = reader(write(10, "none", true), 1).unwrap();
    assert!(r
        .read(&["nope"], 0..1)
        .unwrap_err()
        .to_string()
        .contains("nope"));
    assert!(r.read(&[], 5..11).is_err());
    let err = r.read(&["s._0"], 0..1).unwrap_err().to_string();
    assert!(err.contains("s._0"), "{err}");
}

fn rntuple_testdata() -> Vec<(std::path::PathBuf, Vec<String>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(test_data("")).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().contains("rntuple") {
            continue;
        }
        let file = RootFile::open(&path).unwrap();
        let names = file
            .keys()
            .iter()
            .filter(|k| k.class_name == "ROOT::RNTuple")
            .map(|k| k.name.clone())
            .collect();
        files.push((path, names));
    }
    files.sort();
    files
}

/// Reads every field of an RNTuple (at most the first 100,000 entries).
fn read_all(bytes: Vec<u8>, name: &str) -> rootweave::Result<usize> {
    let file = Arc::new(RootFile::from_source(Arc::new(MemoryFile::from_bytes(
        bytes,
    )))?);
    let r = RNTupleReader::from_file(file, name, ReadOptions::default().with_threads(1))?;
    let n = r.entries().min(100_000);
    Ok(r.read(&[], 0..n)?.len())
}

#[test]
fn every_testdata_rntuple_reads() {
    let files = rntuple_testdata();
    assert!(files.len() >= 20);
    for (path, names) in files {
        for name in names {
            let bytes = std::fs::read(&path).unwrap();
            let fields =
                read_all(bytes, &name).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(fields > 0);
        }
    }
}

#[test]
fn truncations_and_bit_flips_never_panic() {
    for (path, names) in rntuple_testdata() {
        let good = std::fs::read(&path).unwrap();
        let name = &names[0];
        // Truncations at many lengths: always an error (the header's fEND is checked).
        for cut in (0..good.len()).step_by(good.len() / 97 + 1) {
            assert!(
                read_all(good[..cut].to_vec(), name).is_err(),
                "{} cut at {cut}",
                path.display()
            );
        }
        // Bit flips everywhere: an error or some values, never a panic, hang or huge
        // allocation. (The 100M-entry file decodes 200 MB per read: its flips are covered
        // by its truncations and by the envelope and page checks of the others.)
        if good.len() < 2000 && path.to_string_lossy().contains("multicluster") {
            continue;
        }
        let step = good.len() / 400 + 1;
        for i in (0..good.len()).step_by(step) {
            for bit in [0x01u8, 0x80] {
                let mut bytes = good.clone();
                bytes[i] ^= bit;
                let _ = read_all(bytes, name);
            }
        }
    }
}

#[test]
fn corrupt_pages_and_envelopes_name_the_file_and_offset() {
    let good = write(50, "zstd:5", true);
    // A flipped byte in the last page list / footer or a page: checksums catch it.
    let mut errors = 0;
    for i in (200..good.len() - 200).step_by(7) {
        let mut bytes = good.clone();
        bytes[i] ^= 0x40;
        if let Err(e) = read_all(bytes, "ntpl") {
            let text = e.to_string();
            assert!(
                text.contains("rt.root") || text.contains("<memory>"),
                "{text}"
            );
            assert!(text.contains("offset") || text.contains("byte"), "{text}");
            errors += 1;
        }
    }
    assert!(errors > 0);
}

#[test]
fn one_reader_serves_many_threads_at_once() {
    let r = reader(write(2100, "lz4:4", true), 2).unwrap();
    let expected = r.read(&["Muon", "s"], 0..2100).unwrap();
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let r = &r;
            let expected = &expected;
            s.spawn(move || {
                for round in 0..3 {
                    let start = (t * 300 + round * 50) % 2000;
                    let got = r.read(&["Muon", "s"], start..start + 100).unwrap();
                    for ((_, g), (_, e)) in got.iter().zip(expected) {
                        for i in 0..100 {
                            assert!(same(&g.value(i), &e.value(start as usize + i)));
                        }
                    }
                }
            });
        }
    });
}

/// A reader of every RNTuple of tests/data of at most 1M entries and of a file of
/// the writer's own types, each with a name for messages.
fn readers_to_compare() -> Vec<(RNTupleReader, String)> {
    let mut cases = Vec::new();
    for (path, names) in rntuple_testdata() {
        for name in names {
            let file = Arc::new(RootFile::open(&path).unwrap());
            let r = RNTupleReader::from_file(file, &name, ReadOptions::default()).unwrap();
            if r.entries() <= 1_000_000 {
                cases.push((r, format!("{} {name}", path.display())));
            }
        }
    }
    cases.push((
        reader(write(2500, "zstd:1", true), 2).unwrap(),
        "own".into(),
    ));
    cases
}

/// Every RNTuple in tests/data (deferred columns, variants, several cluster groups,
/// ...) and the writer's own types read cluster by cluster into memory holding stale
/// values of a larger read give exactly the arrays of one read of everything: no element
/// is left as it was (leading offsets, missing elements of deferred columns).
#[test]
fn reads_into_recycled_memory_overwrite_every_element() {
    let cases = readers_to_compare();
    let mut clustered = 0;
    for (r, what) in &cases {
        let whole = r.read(&[], 0..r.entries()).unwrap();
        let clusters = r.cluster_ranges().unwrap();
        clustered += usize::from(clusters.len() > 1);
        for part in clusters {
            let mut recycler = Recycler::new();
            for (_, array) in &whole {
                recycler.recycle(common::poisoned(array));
            }
            let got = r
                .read_recycling(&[], part.clone(), &mut recycler)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            for ((name, g), (_, w)) in got.iter().zip(&whole) {
                let want = slice(w.clone(), part.start as usize, g.len());
                assert_eq!(g.len() as u64, part.end - part.start, "{what} {name}");
                common::same_arrays(g, &want, &format!("{what} {name} entries {part:?}"));
            }
        }
    }
    assert!(clustered >= 5, "{clustered} files with several clusters");
}

#[test]
fn batches_cover_the_range_in_whole_clusters_with_the_values_of_one_read() {
    let r = reader(write(2500, "lz4:4", true), 2).unwrap();
    let fields = ["vv", "s", "Muon", "a", "o", "f", "i32"];
    let whole = r.read(&fields, 0..2500).unwrap();
    for (range, step) in [
        (0..2500, 0),
        (0..2500, 1000),
        (650..2480, 1),
        (100..200, 5000),
    ] {
        let mut batches = r.batches(&fields, range.clone(), step).unwrap();
        let mut next = range.start;
        while let Some(batch) = batches.next_batch() {
            let (part, arrays) = batch.unwrap();
            assert_eq!(part.start, next);
            assert!(part.end - part.start >= step.min(range.end - part.start));
            for ((name, g), (_, w)) in arrays.iter().zip(&whole) {
                let want = slice(w.clone(), part.start as usize, g.len());
                assert_eq!(g.len() as u64, part.end - part.start);
                common::same_arrays(g, &want, &format!("{name} {part:?}"));
            }
            next = part.end;
        }
        assert_eq!(next, range.end);
        // The same batches as an iterator of owned arrays, each given back after use.
        let mut batches = r.batches(&fields, range.clone(), step).unwrap();
        let mut next = range.start;
        while let Some(batch) = batches.next() {
            let (part, arrays) = batch.unwrap();
            assert_eq!(part.start, next);
            for ((name, g), (_, w)) in arrays.iter().zip(&whole) {
                let want = slice(w.clone(), part.start as usize, g.len());
                common::same_arrays(g, &want, &format!("owned {name} {part:?}"));
            }
            next = part.end;
            batches.recycle(arrays);
        }
        assert_eq!(next, range.end);
        let counted = r.batches(&fields, range.clone(), step).unwrap();
        let expected = counted.size_hint().0;
        let owned: Vec<_> = counted.collect::<rootweave::Result<_>>().unwrap();
        assert_eq!(owned.len(), expected);
        // The same batches, each read while the one before is consumed.
        let mut next = range.start;
        r.batches(&fields, range.clone(), step)
            .unwrap()
            .for_each_read_ahead(|part, arrays| {
                assert_eq!(part.start, next);
                for ((name, g), (_, w)) in arrays.iter().zip(&whole) {
                    let want = slice(w.clone(), part.start as usize, g.len());
                    assert_eq!(g.len() as u64, part.end - part.start);
                    common::same_arrays(g, &want, &format!("ahead {name} {part:?}"));
                }
                next = part.end;
                Ok(())
            })
            .unwrap();
        assert_eq!(next, range.end);
        // The same batches again, read and consumed on the pool's two slots in any order.
        let batches = r.batches(&fields, range.clone(), step).unwrap();
        assert_eq!(batches.slots(), 2);
        let parts = std::sync::Mutex::new(Vec::new());
        batches
            .for_each_parallel(|slot, part, arrays| {
                assert!(slot < 2);
                for ((name, g), (_, w)) in arrays.iter().zip(&whole) {
                    let want = slice(w.clone(), part.start as usize, g.len());
                    assert_eq!(g.len() as u64, part.end - part.start);
                    common::same_arrays(g, &want, &format!("parallel {name} {part:?}"));
                }
                parts.lock().unwrap().push(part);
                Ok(())
            })
            .unwrap();
        let mut parts = parts.into_inner().unwrap();
        parts.sort_by_key(|p| p.start);
        assert_eq!(parts.first().unwrap().start, range.start);
        assert_eq!(parts.last().unwrap().end, range.end);
        assert!(
            parts.windows(2).all(|w| w[0].end == w[1].start),
            "{parts:?}"
        );
    }
    // An error from the consumer stops the batches and is returned.
    let mut seen = 0;
    let stopped = r
        .batches(&fields, 0..2500, 0)
        .unwrap()
        .for_each_read_ahead(|_, _| {
            seen += 1;
            Err(rootweave::Error::InvalidArgument("enough".into()))
        });
    assert!(matches!(stopped, Err(rootweave::Error::InvalidArgument(m)) if m == "enough"));
    assert_eq!(seen, 1);
    // A bad page in the last cluster: every batch before it is consumed, then the read's
    // error is returned.
    let mut bytes = write(2500, "lz4:4", true);
    let last_page = {
        let r = reader(bytes.clone(), 1).unwrap();
        let clusters = r.descriptor().all_clusters(r.file()).unwrap();
        let last = clusters.last().unwrap();
        let pages = last.columns.iter().flatten().find(|c| !c.pages.is_empty());
        pages.unwrap().pages[0].offset as usize
    };
    bytes[last_page] ^= 0x40;
    let r = reader(bytes, 2).unwrap();
    let clusters = r.cluster_ranges().unwrap();
    let mut consumed = Vec::new();
    let failed = r
        .batches(&[], 0..2500, 0)
        .unwrap()
        .for_each_read_ahead(|part, _| {
            consumed.push(part);
            Ok(())
        })
        .unwrap_err();
    assert!(failed.to_string().contains("checksum"), "{failed}");
    assert_eq!(consumed, clusters[..clusters.len() - 1]);
    // In parallel: the bad cluster's error is returned; it is taken last, so every other
    // cluster was taken before the error and is consumed.
    let consumed = std::sync::Mutex::new(Vec::new());
    let failed = r
        .batches(&[], 0..2500, 0)
        .unwrap()
        .for_each_parallel(|_, part, _| {
            consumed.lock().unwrap().push(part);
            Ok(())
        })
        .unwrap_err();
    assert!(failed.to_string().contains("checksum"), "{failed}");
    let mut consumed = consumed.into_inner().unwrap();
    consumed.sort_by_key(|p| p.start);
    assert_eq!(consumed, clusters[..clusters.len() - 1]);
    // An error from the consumer stops the loop and is returned.
    let stopped = r
        .batches(&[], 0..2500, 0)
        .unwrap()
        .for_each_parallel(|_, _, _| Err(rootweave::Error::InvalidArgument("enough".into())));
    assert!(matches!(stopped, Err(rootweave::Error::InvalidArgument(m)) if m == "enough"));
    assert!(r.batches(&fields, 10..2501, 0).is_err());
    assert!(r.batches(&["nope"], 0..1, 0).is_err());
}

/// Any entry range of any single field, read into memory holding stale values, equals the
/// same entries of one read of everything: flat fields read only the pages their entries
/// need (part of a cluster, pages cut at the edges), the others whole clusters.
#[test]
fn any_range_of_any_field_equals_the_whole_read() {
    let mut cases = readers_to_compare();
    cases.push((
        reader(write(2500, "none", false), 1).unwrap(),
        "own, uncompressed".into(),
    ));
    let mut compared = 0;
    for (r, what) in &cases {
        let n = r.entries();
        let whole = r.read(&[], 0..n).unwrap();
        let mut ranges = vec![
            0..n.min(1),
            n / 3..(n / 3 + 7).min(n),
            n.saturating_sub(5)..n,
        ];
        for c in r.cluster_ranges().unwrap().iter().skip(1).take(3) {
            ranges.push(c.start - 1..(c.start + 1).min(n));
            ranges.push(c.start.saturating_sub(300)..(c.start + 250).min(n));
        }
        for (name, array) in &whole {
            for range in &ranges {
                let mut recycler = Recycler::new();
                recycler.recycle(common::poisoned(array));
                let got = r
                    .read_recycling(&[name.as_str()], range.clone(), &mut recycler)
                    .unwrap_or_else(|e| panic!("{what} {name} {range:?}: {e}"));
                let want = slice(
                    array.clone(),
                    range.start as usize,
                    (range.end - range.start) as usize,
                );
                common::same_arrays(&got[0].1, &want, &format!("{what} {name} {range:?}"));
                compared += 1;
            }
        }
    }
    assert!(compared > 500, "{compared} reads compared");
}

#[test]
fn remote_reads_come_window_by_window_with_the_local_values() {
    // 1.2 MB of incompressible doubles: several windows of a 1 MiB budget (128 KiB each),
    // their buffers reused between windows and between reads.
    let n = 120_000u64;
    let memory = Arc::new(MemoryFile::new());
    let file = Arc::new(
        FileWriter::with_backend(memory.clone(), "rt.root", WriterOptions::default()).unwrap(),
    );
    let fields = vec![
        Field::new("x", FieldType::Float64),
        Field::new("v", FieldType::vector(FieldType::UInt32)),
    ];
    let options = RNTupleWriteOptions::default().with_compression("zstd:1".parse().unwrap());
    let mut w = RNTupleWriter::in_file(file.clone(), "ntpl", fields, options).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for e in 0..n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let v = (0..e % 3)
            .map(|k| Value::UInt32((state >> k) as u32))
            .collect();
        w.fill(&[
            Value::Float64((state >> 11) as f64 / (1u64 << 53) as f64),
            Value::List(v),
        ])
        .unwrap();
        if e % 20_000 == 19_999 {
            w.commit_cluster().unwrap();
        }
    }
    w.close().unwrap();
    Arc::try_unwrap(file).ok().unwrap().close().unwrap();
    let bytes = memory.to_bytes();
    assert!(bytes.len() > 1 << 20, "{}", bytes.len());

    let options = ReadOptions::default()
        .with_threads(2)
        .with_memory_budget(1 << 20)
        .with_verify_checksums(true);
    let local = RNTupleReader::from_file(
        Arc::new(RootFile::from_source(Arc::new(MemoryFile::from_bytes(bytes.clone()))).unwrap()),
        "ntpl",
        options.clone(),
    )
    .unwrap();
    let source = Arc::new(Vectored::new(bytes));
    let remote = RNTupleReader::from_file(
        Arc::new(RootFile::from_source(source.clone()).unwrap()),
        "ntpl",
        options,
    )
    .unwrap();
    for range in [0..n, 0..n, 15_000..110_000] {
        let before = (source.vectored_reads(), source.single_reads());
        let want = local.read(&[], range.clone()).unwrap();
        let got = remote.read(&[], range.clone()).unwrap();
        let reads = source.vectored_reads() - before.0;
        let singles = source.single_reads() - before.1;
        // (One single read on the first: the page list.)
        assert!(
            reads >= 5 && singles <= 1,
            "{range:?}: {reads} vectored, {singles} single"
        );
        assert_eq!(want.len(), got.len());
        for ((name, a), (_, b)) in want.iter().zip(&got) {
            assert_eq!(a.len(), (range.end - range.start) as usize);
            for i in 0..a.len() {
                assert!(same(&a.value(i), &b.value(i)), "{name} entry {i}");
            }
        }
    }
}

#[test]
fn members_of_collections_of_tuples_are_named_as_rdataframe_names_them() {
    let path = test_data("test_stl_containers_rntuple_v1-0-0-0.root");
    let r = RNTupleReader::open(&path, "ntuple").unwrap();
    // Entry i holds the tuples (1, "one") .. (i + 1, ...).
    let offsets: Vec<u64> = vec![0, 1, 3, 6, 10, 15];
    let firsts: Vec<i32> = (1..=5).flat_map(|n| 1..=n).collect();
    let ints = Array::List {
        offsets: offsets.clone(),
        values: Box::new(Array::Int32(firsts)),
    };
    // `v._0` is the tuples' first members (not the items), spelled out as `v._0._0` too;
    // `v._1` their second members, `v._0._1` the same.
    for name in [
        "vector_tuple_int32_string._0",
        "vector_tuple_int32_string._0._0",
    ] {
        let read = r.read(&[name], 0..5).unwrap();
        assert_eq!(read[0].1, ints, "{name}");
    }
    let seconds = r.read(&["vector_tuple_int32_string._1"], 0..5).unwrap();
    let also = r.read(&["vector_tuple_int32_string._0._1"], 0..5).unwrap();
    assert_eq!(seconds[0].1, also[0].1);
    let Array::List { values, .. } = &seconds[0].1 else {
        panic!("{:?}", seconds[0].1)
    };
    assert_eq!(values.len(), 15);
    // The whole field holds the records.
    let whole = r.read(&["vector_tuple_int32_string"], 0..5).unwrap();
    let Array::List { offsets: o, values } = &whole[0].1 else {
        panic!("{:?}", whole[0].1)
    };
    assert_eq!(o, &offsets);
    assert!(matches!(**values, Array::Record { .. }), "{values:?}");
    // Records of pairs and tuples are columns of their own, as ROOT lists them.
    let names = r.column_names();
    for listed in [
        "pair_int32_string",
        "pair_int32_string._0",
        "tuple_int32_string",
        "vector_tuple_int32_string",
        "vector_tuple_int32_string._0",
        "vector_tuple_int32_string._1",
    ] {
        assert!(names.iter().any(|n| n == listed), "{listed}: {names:?}");
    }
}
