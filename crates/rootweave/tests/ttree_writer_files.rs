//! TTrees in files: several trees and subdirectories in one file, auto-saves that leave a
//! file readable up to the last one when the writer never closes, and clusters of sizes
//! that change, recorded as ROOT's cluster ranges. (ROOT 6.40 and
//! uproot read such files, killed by SIGKILL, in tests/python/test_ttree_write.py.)

use std::sync::Arc;

use rootweave::array::{Array, ColumnData, LeafType};
use rootweave::compress::{Codec, Compression};
use rootweave::container::{FileWriter, RootFile, WriterOptions};
use rootweave::ttree::{BranchSpec, TTreeReader, TTreeWriteOptions, TTreeWriter};

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rootweave-ttree-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn trees_in_subdirectories_share_a_file() {
    let path = temp("dirs.root");
    let zlib = Compression::new(Codec::Zlib, 1).unwrap();
    let file = Arc::new(
        FileWriter::create(&path, WriterOptions::default().with_compression(zlib)).unwrap(),
    );
    let x: Vec<i32> = (0..1000).collect();
    let options = || TTreeWriteOptions::default().with_title("in a directory");
    for name in ["top", "a/b/deep", "a/side"] {
        let branches = vec![BranchSpec::scalar("x", LeafType::Int32)];
        let mut w = TTreeWriter::in_file(file.clone(), name, branches, options()).unwrap();
        w.extend(&[ColumnData::Int32(&x)]).unwrap();
        w.close().unwrap();
    }
    // A directory cannot take the name of an object already there.
    assert!(file.mkdir("top/under").is_err());
    Arc::try_unwrap(file).unwrap().close().unwrap();

    let f = RootFile::open(&path).unwrap();
    let names: Vec<String> = f.keys().iter().map(|k| k.name.clone()).collect();
    assert_eq!(names, ["top", "a"]);
    for name in ["top", "a/b/deep", "a/side"] {
        let t = TTreeReader::open(&path, name).unwrap();
        assert_eq!(t.entries(), 1000, "{name}");
        assert_eq!(
            t.read(&["x"], 0..1000).unwrap()[0].1,
            Array::Int32(x.clone())
        );
    }
}

#[test]
fn a_writer_that_never_closes_leaves_its_last_auto_save() {
    let path = temp("autosaved.root");
    let options = TTreeWriteOptions::default()
        .with_basket_size(4000)
        .with_auto_flush_bytes(40_000)
        .with_auto_save_bytes(100_000)
        .with_resize_baskets(false);
    let branches = vec![BranchSpec::scalar("id", LeafType::Int64)];
    let mut w = TTreeWriter::recreate(&path, "t", branches, Compression::NONE, options).unwrap();
    let ids: Vec<i64> = (0..100_000).collect();
    for chunk in ids.chunks(7_000) {
        w.extend(&[ColumnData::Int64(chunk)]).unwrap();
    }
    let clusters = w.clusters();
    // The writer dies: nothing more is written (no close, no drop).
    std::mem::forget(w);

    let t = TTreeReader::open(&path, "t").unwrap();
    let saved = t.entries();
    // Clusters of about 40 kB (5,000 entries), a save every three of them: the last save
    // is within three clusters of the end.
    assert!(clusters > 10, "{clusters}");
    assert!((85_000..100_000).contains(&saved), "{saved}");
    let got = t.read(&["id"], 0..saved).unwrap();
    assert_eq!(got[0].1, Array::Int64(ids[..saved as usize].to_vec()));
}

#[test]
fn clusters_ended_by_hand_are_recorded_as_ranges() {
    let path = temp("ranges.root");
    let branches = vec![BranchSpec::scalar("id", LeafType::Int32)];
    let options = TTreeWriteOptions::default();
    let mut w = TTreeWriter::recreate(&path, "t", branches, Compression::NONE, options).unwrap();
    let ids: Vec<i32> = (0..1000).collect();
    // Clusters of 100, 100, 250, 250, 250 and a last one of 50.
    let mut at = 0;
    for size in [100, 100, 250, 250, 250, 50] {
        w.extend(&[ColumnData::Int32(&ids[at..at + size])]).unwrap();
        w.end_cluster().unwrap();
        w.end_cluster().unwrap(); // nothing new: no empty cluster
        at += size;
    }
    assert_eq!(w.clusters(), 6);
    w.close().unwrap();
    let t = TTreeReader::open(&path, "t").unwrap();
    let starts: Vec<u64> = t.meta().cluster_ranges().iter().map(|r| r.start).collect();
    assert_eq!(starts, [0, 100, 200, 450, 700, 950]);
    assert_eq!(t.read(&["id"], 0..1000).unwrap()[0].1, Array::Int32(ids));
}
