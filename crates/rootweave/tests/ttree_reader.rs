//! The TTree reader: every TTree in tests/data opens and reads, with real values
//! checked (flat branches, leaf lists, fixed and counter-indexed arrays, strings,
//! std::vector, nested vectors, baskets kept in the tree object, every codec); entry
//! ranges agree with whole reads; unreadable branches are named with the reason; and
//! truncated and bit-flipped files give errors or values, never panics, hangs or huge
//! allocations. (Every branch is compared with uproot in tests/python.)

mod common;

use common::{corpus_file, test_data, Vectored};

use std::sync::Arc;

use rootweave::array::slice;
use rootweave::array::Array;
use rootweave::array::Recycler;
use rootweave::container::read_streamers;
use rootweave::container::RootFile;
use rootweave::io::MemoryFile;
use rootweave::ttree::{list_trees, ReadOptions, TTreeReader};

fn ttree_files() -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(test_data(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            n.ends_with(".root") && !n.contains("rntuple")
        })
        .collect();
    out.sort();
    out
}

fn read(path: &str, tree: &str, fields: &[&str]) -> Vec<(String, Array)> {
    let t = TTreeReader::open(test_data(path), tree).unwrap();
    t.read(fields, 0..t.entries()).unwrap()
}

fn json(a: &Array, i: usize) -> String {
    let mut s = String::new();
    a.write_json(i, &mut s);
    s
}

#[test]
fn flat_branches_and_strings() {
    let cols = read("uproot-simple.root", "tree", &[]);
    assert_eq!(cols[0], ("one".into(), Array::Int32(vec![1, 2, 3, 4])));
    assert_eq!(
        cols[1],
        ("two".into(), Array::Float32(vec![1.1, 2.2, 3.3, 4.4]))
    );
    assert_eq!(
        cols[2].1,
        Array::String {
            offsets: vec![0, 3, 6, 10, 16],
            bytes: b"unodostresquatro".to_vec()
        }
    );
}

#[test]
fn leaf_lists_are_records() {
    let cols = read("uproot-leaflist.root", "tree", &["leaflist"]);
    assert_eq!(json(&cols[0].1, 0), r#"{"x": 1.1, "y": 1, "z": 97}"#);
    assert_eq!(json(&cols[0].1, 4), r#"{"x": 5.5, "y": 5, "z": 101}"#);
}

#[test]
fn every_leaf_type_fixed_and_counted_arrays() {
    let t = TTreeReader::open(test_data("uproot-sample-6.20.04-lzma.root"), "sample").unwrap();
    assert_eq!(t.entries(), 30);
    let cols = t
        .read(
            &["n", "ab", "Ai1", "u2", "au4", "Ai8", "af4", "Af8", "str"],
            3..4,
        )
        .unwrap();
    let got: Vec<String> = cols.iter().map(|(_, a)| json(a, 0)).collect();
    assert_eq!(
        got,
        [
            "3",
            "[true, false, true]",
            "[-15, -13, -11]",
            "3",
            "[4, 5, 6]",
            "[-15, -13, -11]",
            "[-10.9, -9.9, -8.9]",
            "[-15, -13.9, -12.8]",
            "\"hey-3\""
        ]
    );
    assert!(matches!(cols[3].1, Array::UInt16(_)));
    assert!(
        matches!(&cols[4].1, Array::Fixed { size: 3, values } if matches!(**values, Array::UInt32(_)))
    );
}

#[test]
fn jagged_branches_of_every_codec_agree() {
    let mut reference: Option<Vec<(String, Array)>> = None;
    for codec in ["", "-lz4", "-lzma", "-uncompressed", "-zlib", "-zstd"] {
        let cols = read(
            &format!("uproot-HZZ{codec}.root"),
            "events",
            &["NJet", "Jet_Px", "Muon_Px", "Jet_ID"],
        );
        assert_eq!(cols[0].1.len(), 2421);
        assert_eq!(json(&cols[2].1, 0), "[-52.899456, 37.73778]");
        assert_eq!(json(&cols[1].1, 1), "[-38.874714]");
        if let Array::List { offsets, .. } = &cols[1].1 {
            let Array::Int32(n) = &cols[0].1 else {
                panic!()
            };
            assert!(offsets
                .windows(2)
                .zip(n)
                .all(|(w, &n)| w[1] - w[0] == n as u64));
        } else {
            panic!("Jet_Px is a list");
        }
        match &reference {
            None => reference = Some(cols),
            Some(r) => assert_eq!(&cols, r, "codec {codec}"),
        }
    }
}

#[test]
fn stl_containers() {
    let cols = read(
        "uproot-stl_containers.root",
        "tree",
        &[
            "string",
            "tstring",
            "vector_int32",
            "vector_string",
            "vector_vector_int32",
            "vector_set_int32",
            "set_string",
        ],
    );
    let got: Vec<String> = cols.iter().map(|(_, a)| json(a, 2)).collect();
    assert_eq!(
        got,
        [
            "\"three\"",
            "\"three\"",
            "[1, 2, 3]",
            "[\"one\", \"two\", \"three\"]",
            "[[1], [1, 2], [1, 2, 3]]",
            "[[1], [1, 2], [1, 2, 3]]",
            "[\"one\", \"three\", \"two\"]"
        ]
    );
    let vvd = read("uproot-vectorVectorDouble.root", "t", &["x"]);
    assert_eq!(json(&vvd[0].1, 2), "[[10], [], [10, 20]]");
    // Maps: lists of {first, second} records.
    let maps = read(
        "uproot-stl_containers.root",
        "tree",
        &[
            "map_int32_int16",
            "map_string_vector_string",
            "map_int32_vector_vector_int16",
            "map_string_tstring",
        ],
    );
    let got: Vec<String> = maps.iter().map(|(_, a)| json(a, 1)).collect();
    assert_eq!(
        got,
        [
            "[{\"first\": 1, \"second\": 1}, {\"first\": 2, \"second\": 2}]",
            "[{\"first\": \"one\", \"second\": [\"one\"]}, {\"first\": \"two\", \"second\": [\"one\", \"two\"]}]",
            "[{\"first\": 1, \"second\": [[1]]}, {\"first\": 2, \"second\": [[1], [1, 2]]}]",
            "[{\"first\": \"one\", \"second\": \"ONE\"}, {\"first\": \"two\", \"second\": \"TWO\"}]",
        ]
    );
}

#[test]
fn nanoaod_reads_baskets_kept_in_the_tree() {
    let t =
        TTreeReader::open(test_data("nanoAOD_2015_CMS_Open_Data_ttbar.root"), "Events").unwrap();
    assert_eq!(t.branch_names().len(), 947);
    // This file was not closed cleanly: its baskets are inside the TTree object.
    let b = t.meta().find("CorrT1METJet_area").unwrap();
    assert!(b.baskets[0].embedded.is_some());
    let cols = t
        .read(
            &["nCorrT1METJet", "CorrT1METJet_area", "run", "event"],
            0..200,
        )
        .unwrap();
    let (Array::UInt32(n), Array::List { offsets, .. }) = (&cols[0].1, &cols[1].1) else {
        panic!("{:?}", cols[0].1.kind())
    };
    assert!(offsets
        .windows(2)
        .zip(n)
        .all(|(w, &n)| w[1] - w[0] == n as u64));
    assert!(matches!(&cols[3].1, Array::UInt64(v) if v.len() == 200));
    let all = t.read(&[], 0..200).unwrap();
    assert_eq!(all.len(), 947);
}

#[test]
fn entry_ranges_agree_with_whole_reads() {
    let t = TTreeReader::open(
        test_data("uproot-sample-6.20.04-uncompressed.root"),
        "sample",
    )
    .unwrap();
    let whole = t.read(&[], 0..30).unwrap();
    for (a, b) in [(0, 1), (3, 17), (29, 30), (10, 10), (0, 30)] {
        let part = t.read(&[], a..b).unwrap();
        for ((name, p), (_, w)) in part.iter().zip(&whole) {
            assert_eq!(p.len(), (b - a) as usize, "{name}");
            for i in 0..p.len() {
                assert_eq!(
                    json(p, i),
                    json(w, a as usize + i),
                    "{name} entry {}",
                    a as usize + i
                );
            }
        }
    }
    assert!(t.read(&["n"], 5..31).is_err());
    assert!(t
        .read(&["nope"], 0..1)
        .unwrap_err()
        .to_string()
        .contains("nope"));
}

#[test]
fn trees_are_listed() {
    let file = RootFile::open(test_data("string-example.root")).unwrap();
    assert_eq!(list_trees(&file).unwrap(), ["Refs"]);
    let t = TTreeReader::open(test_data("string-example.root"), "Refs").unwrap();
    assert_eq!(t.entries(), 0);
    assert_eq!(t.read(&[], 0..0).unwrap().len(), 4);
}

/// Opens every tree of `bytes` and reads every readable branch.
fn read_everything(bytes: Vec<u8>) -> rootweave::Result<usize> {
    let file = Arc::new(RootFile::from_source(Arc::new(MemoryFile::from_bytes(
        bytes,
    )))?);
    let streamers = Arc::new(read_streamers(&file)?);
    let mut n = 0;
    for name in list_trees(&file)? {
        let t = TTreeReader::from_file(
            file.clone(),
            streamers.clone(),
            &name,
            ReadOptions::default().with_threads(1),
        )?;
        let cols = t.read(&[], 0..t.entries())?;
        for (_, a) in &cols {
            let mut s = String::new();
            for i in 0..a.len() {
                a.write_json(i, &mut s);
            }
        }
        n += cols.len();
    }
    Ok(n)
}

#[test]
fn truncations_and_bit_flips_never_panic() {
    for path in ttree_files() {
        let data = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        if name.contains("HistArray") {
            continue; // no tree
        }
        let read = read_everything(data.clone()).unwrap();
        assert!(read > 0 || name.contains("string-example"));
        // Truncated files: always an error (the header says how long the file is).
        for k in 1..24 {
            let cut = data.len() * k / 24;
            assert!(
                read_everything(data[..cut].to_vec()).is_err(),
                "{name} cut at {cut}"
            );
        }
        // Bit flips all over the file, metadata included: an error or values.
        let step = (data.len() / 97).max(1);
        for (k, at) in (0..data.len()).step_by(step).enumerate() {
            let mut broken = data.clone();
            broken[at] ^= 1 << (k % 8);
            let _ = read_everything(broken);
        }
        // Dense flips over the StreamerInfo record, the tree object and the keys.
        let file = RootFile::open(&path).unwrap();
        let key = file.get_key(&list_trees(&file).unwrap()[0]).unwrap();
        let regions = [
            (file.header().seek_info, file.header().nbytes_info as u64),
            (key.seek_key, key.nbytes as u64),
        ];
        for (start, len) in regions {
            let step = (len / 150).max(1);
            for (k, at) in (start..start + len).step_by(step as usize).enumerate() {
                let mut broken = data.clone();
                broken[at as usize] ^= 0x80 >> (k % 8);
                let _ = read_everything(broken);
            }
        }
    }
}

#[test]
fn corrupt_baskets_name_the_file_branch_and_offset() {
    let path = test_data("uproot-HZZ-uncompressed.root");
    let data = std::fs::read(&path).unwrap();
    let t = TTreeReader::open(&path, "events").unwrap();
    let b = t.meta().find("Jet_Px").unwrap().baskets[0].clone();
    // Break the basket's entry count.
    let mut broken = data.clone();
    let keylen =
        u16::from_be_bytes([data[b.seek as usize + 14], data[b.seek as usize + 15]]) as usize;
    let nevbuf_at = b.seek as usize + keylen - 9;
    broken[nevbuf_at] ^= 0x10;
    let file = Arc::new(RootFile::from_source(Arc::new(MemoryFile::from_bytes(broken))).unwrap());
    let streamers = Arc::new(read_streamers(&file).unwrap());
    let t = TTreeReader::from_file(file, streamers, "events", ReadOptions::default()).unwrap();
    let err = t.read(&["Jet_Px"], 0..10).unwrap_err().to_string();
    assert!(
        err.contains("Jet_Px") && err.contains("<memory>") && err.contains("basket 0"),
        "{err}"
    );
}

/// Tiny memory budgets (one basket per fetch) with one thread or two give the same arrays
/// as the defaults, for whole trees and parts of them.
#[test]
fn memory_budget_and_threads_do_not_change_values() {
    for (file, tree) in [
        ("uproot-HZZ-zlib.root", "events"),
        ("uproot-sample-6.20.04-lz4.root", "sample"),
        ("nanoAOD_2015_CMS_Open_Data_ttbar.root", "Events"),
    ] {
        let plain = TTreeReader::open(test_data(file), tree).unwrap();
        let f = Arc::new(RootFile::open(test_data(file)).unwrap());
        let streamers = Arc::new(read_streamers(&f).unwrap());
        // One thread (the caller's) and two (a pool).
        let small = |threads| {
            TTreeReader::from_file(
                f.clone(),
                streamers.clone(),
                tree,
                ReadOptions::default()
                    .with_threads(threads)
                    .with_memory_budget(1),
            )
            .unwrap()
        };
        // As JSON, where NaN equals NaN.
        let text = |cols: Vec<(String, rootweave::array::Array)>| -> Vec<(String, String)> {
            cols.into_iter()
                .map(|(name, a)| {
                    let mut s = String::new();
                    for i in 0..a.len() {
                        a.write_json(i, &mut s);
                        s.push('\n');
                    }
                    (name, s)
                })
                .collect()
        };
        // The same bytes read like a remote file: window by window, in vectored reads.
        let source = Arc::new(Vectored::new(std::fs::read(test_data(file)).unwrap()));
        let remote = |threads| {
            let f = Arc::new(RootFile::from_source(source.clone()).unwrap());
            let streamers = Arc::new(read_streamers(&f).unwrap());
            TTreeReader::from_file(
                f,
                streamers,
                tree,
                ReadOptions::default()
                    .with_threads(threads)
                    .with_memory_budget(1),
            )
            .unwrap()
        };
        let n = plain.entries();
        for threads in [1, 2] {
            let remote = remote(threads);
            let before = (source.vectored_reads(), source.single_reads());
            let whole = text(remote.read(&[], 0..n).unwrap());
            assert_eq!(whole, text(plain.read(&[], 0..n).unwrap()), "{file} remote");
            let reads = source.vectored_reads() - before.0;
            let singles = source.single_reads() - before.1;
            assert!(
                reads >= 2 && singles == 0,
                "{file}: {reads} vectored reads, {singles} single"
            );
            let small = small(threads);
            for range in [0..n, n / 5..n - n / 7, 1..2] {
                let a = text(plain.read(&[], range.clone()).unwrap());
                let b = text(small.read(&[], range.clone()).unwrap());
                assert_eq!(a.len(), b.len());
                for (x, y) in a.iter().zip(&b) {
                    assert!(
                        x == y,
                        "{file} {range:?}, {threads} thread(s): branch {} differs",
                        x.0
                    );
                }
            }
        }
    }
}

/// Every tree of tests/data read in three parts, each into memory holding stale
/// values of a larger read (of every branch), gives the arrays of one read of everything;
/// and batches of whole clusters cover the range with the same values.
#[test]
fn reads_into_recycled_memory_and_batches_give_the_values_of_one_read() {
    let mut trees = 0;
    for path in ttree_files() {
        let file = Arc::new(RootFile::open(&path).unwrap());
        let Ok(streamers) = read_streamers(&file) else {
            continue;
        };
        let streamers = Arc::new(streamers);
        for name in list_trees(&file).unwrap() {
            let t = TTreeReader::from_file(
                file.clone(),
                streamers.clone(),
                &name,
                ReadOptions::default(),
            )
            .unwrap();
            let n = t.entries();
            let Ok(whole) = t.read(&[], 0..n) else {
                continue;
            };
            let what = format!("{} {name}", path.display());
            let cuts = [0, n / 3, n / 3 + n / 4, n];
            for part in cuts.windows(2).map(|w| w[0]..w[1]) {
                let mut recycler = Recycler::new();
                for (_, array) in &whole {
                    recycler.recycle(common::poisoned(array));
                }
                let got = t.read_recycling(&[], part.clone(), &mut recycler).unwrap();
                assert_eq!(recycler.held_bytes(), 0, "{what}: unused memory is freed");
                for ((branch, g), (_, w)) in got.iter().zip(&whole) {
                    let want = slice(w.clone(), part.start as usize, g.len());
                    assert_eq!(g.len() as u64, part.end - part.start, "{what} {branch}");
                    common::same_arrays(g, &want, &format!("{what} {branch} {part:?}"));
                }
            }
            let mut batches = t.batches(&[], 0..n, 0).unwrap();
            let mut next = 0;
            while let Some(batch) = batches.next_batch() {
                let (part, arrays) = batch.unwrap();
                assert_eq!(part.start, next, "{what}");
                for ((branch, g), (_, w)) in arrays.iter().zip(&whole) {
                    let want = slice(w.clone(), part.start as usize, g.len());
                    common::same_arrays(g, &want, &format!("{what} {branch} batch {part:?}"));
                }
                next = part.end;
            }
            assert_eq!(next, n, "{what}");
            let mut next = 0;
            t.batches(&[], 0..n, 0)
                .unwrap()
                .for_each_read_ahead(|part, arrays| {
                    assert_eq!(part.start, next, "{what}");
                    for ((branch, g), (_, w)) in arrays.iter().zip(&whole) {
                        let want = slice(w.clone(), part.start as usize, g.len());
                        common::same_arrays(g, &want, &format!("{what} {branch} ahead {part:?}"));
                    }
                    next = part.end;
                    Ok(())
                })
                .unwrap();
            assert_eq!(next, n, "{what}");
            trees += 1;
        }
    }
    assert!(trees >= 20, "{trees} trees");
}

#[test]
fn counted_arrays_without_entry_offsets_follow_their_counters() {
    // Baskets of Muon_pt and Jet_pt lack the entry-offset table: where each entry starts
    // comes from nMuon and nJet. Values as ROOT 6.40 reads them entry after entry.
    let Some(path) = corpus_file("uproot-small-dy-nooffsets.root") else {
        return;
    };
    let t = TTreeReader::open(path, "tree").unwrap();
    let floats = |range: std::ops::Range<u64>, name: &str| -> Vec<Vec<f32>> {
        let cols = t.read(&[name], range).unwrap();
        let Array::List { offsets, values } = &cols[0].1 else {
            panic!("{name}: {:?}", cols[0].1.kind())
        };
        let Array::Float32(v) = values.as_ref() else {
            panic!("{name}: {:?}", values.kind())
        };
        let cut = |w: &[u64]| v[w[0] as usize..w[1] as usize].to_vec();
        offsets.windows(2).map(cut).collect()
    };
    let muons = floats(0..501, "Muon_pt");
    assert_eq!(muons[196], [36.264233]);
    assert_eq!(muons[197], Vec::<f32>::new());
    assert_eq!(muons[198], [45.90394]);
    assert_eq!(muons[500], [27.182411]);
    // A range starting inside a basket reads the same entries.
    assert_eq!(floats(195..205, "Muon_pt"), muons[195..205]);
    let jets = floats(390..501, "Jet_pt");
    assert_eq!(jets[398 - 390][..3], [55.96875, 40.5, 25.078125]);
    assert_eq!(jets[500 - 390].len(), 7);
    let counts = t.read(&["nJet"], 390..501).unwrap();
    let Array::UInt32(n) = &counts[0].1 else {
        panic!()
    };
    assert!(jets.iter().zip(n).all(|(j, &n)| j.len() == n as usize));
}

/// Members framed unlike other objects, in files of ROOT's own test suite: `TArrayD`
/// members (a count and values), a counted array of `TArrayD` (one header, then the
/// arrays), a member-wise `std::vector` of a `TObject`-derived class, and arrays of
/// `std::string` in split objects and collections. (Every value is compared with ROOT
/// in tests/python/test_roottest_members.py.)
#[test]
fn tarrays_memberwise_tobjects_and_string_arrays() {
    let cols = read(
        "roottest-memleak.root",
        "MonoData",
        &["fUse", "fNrho", "fPnts", "fNrSrcs"],
    );
    let Array::List { offsets, .. } = &cols[0].1 else {
        panic!("fUse is a list: {:?}", cols[0].1)
    };
    assert_eq!(offsets, &[0, 96, 192]);
    assert!(json(&cols[0].1, 0).starts_with("[-1, -1,"));
    assert!(json(&cols[1].1, 0).starts_with("[0.004196509293075291, 0, 0,"));
    let Array::List { offsets, values } = &cols[2].1 else {
        panic!("fPnts is a list: {:?}", cols[2].1)
    };
    assert_eq!(offsets, &[0, 21, 42]);
    assert!(json(values, 21).starts_with("[266.8741034185934, 0,"));
    let cols = read(
        "roottest-TreeVectorClass0.root",
        "TreeVectorClass0",
        &["vp"],
    );
    assert_eq!(cols[0].1.len(), 10);
    let first = json(&cols[0].1, 0);
    for (k, x) in (110..115).enumerate() {
        let want = format!(
            "{{\"fPosX\": {x}, \"fPosY\": {}, \"fPosZ\": {}}}",
            x + 10,
            x + 20
        );
        assert!(first.contains(&want), "item {k}: {first}");
    }
    let cols = read("roottest-stringarray.old.root", "t", &[]);
    let names: Vec<&str> = cols.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.len(), 9, "every branch of data reads: {names:?}");
    for name in [
        "obj.fOutputNames[4]",
        "vec.fOutputNames[4]",
        "cont.obj.fOutputNames[4]",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let strings = read(
        "roottest-stringarray.old.root",
        "t",
        &["obj.fOutputNames[4]"],
    );
    assert_eq!(json(&strings[0].1, 0), "[\"\", \"\", \"\", \"\"]");
}
