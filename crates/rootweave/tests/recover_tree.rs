//! `recover` of a TTree whose writer died: the last save extended by the whole baskets
//! written after it, up to the last entry every branch reaches, values exact; baskets that
//! cannot be trusted (cut, empty, of a branch that has none) extend nothing. (Writers
//! killed for real, read back by ROOT and uproot: tests/python/test_crash_safety.py.)

use std::sync::Arc;

use rootweave::array::{Array, LeafType};
use rootweave::container::read_streamers;
use rootweave::container::{FileWriter, RootFile, WriterOptions};
use rootweave::io::MemoryFile;
use rootweave::recover::{recover_into, RecoverReport};
use rootweave::rntuple::ColumnData;
use rootweave::ttree::TTreeWriter;
use rootweave::ttree::{BranchSpec, ReadOptions, TTreeReader, TTreeWriteOptions};

/// The bytes of a file whose TTree `Events` (branches `a` = id, `b` = id / 2) was saved
/// once when created, then given `clusters` clusters of 100 entries, and never closed.
fn killed(clusters: i64) -> Vec<u8> {
    let memory = Arc::new(MemoryFile::new());
    let file = Arc::new(
        FileWriter::with_backend(memory.clone(), "tree.root", WriterOptions::default()).unwrap(),
    );
    let options = TTreeWriteOptions::default().with_auto_save_bytes(1 << 60);
    let branches = vec![
        BranchSpec::scalar("a", LeafType::Int64),
        BranchSpec::scalar("b", LeafType::Float64),
    ];
    let mut writer = TTreeWriter::in_file(file, "Events", branches, options).unwrap();
    for k in 0..clusters {
        let a: Vec<i64> = (k * 100..(k + 1) * 100).collect();
        let b: Vec<f64> = a.iter().map(|&i| i as f64 / 2.0).collect();
        writer
            .extend(&[ColumnData::Int64(&a), ColumnData::Float64(&b)])
            .unwrap();
        writer.end_cluster().unwrap();
    }
    let bytes = memory.to_bytes();
    std::mem::forget(writer);
    bytes
}

/// Recovers `bytes`: the report and the values of `a` and `b` of the recovered tree.
fn recovered(bytes: Vec<u8>) -> (RecoverReport, Vec<i64>, Vec<f64>) {
    let target = Arc::new(MemoryFile::new());
    let report = recover_into(
        Arc::new(MemoryFile::from_bytes(bytes)),
        target.clone(),
        "tree.root",
    )
    .unwrap();
    let file = Arc::new(
        RootFile::from_source(Arc::new(MemoryFile::from_bytes(target.to_bytes()))).unwrap(),
    );
    let streamers = Arc::new(read_streamers(&file).unwrap());
    let reader = TTreeReader::from_file(file, streamers, "Events", ReadOptions::default()).unwrap();
    let mut arrays = reader.read(&["a", "b"], 0..reader.entries()).unwrap();
    let (Array::Int64(a), Array::Float64(b)) = (arrays.remove(0).1, arrays.remove(0).1) else {
        panic!("unexpected arrays")
    };
    (report, a, b)
}

fn ids(n: i64) -> (Vec<i64>, Vec<f64>) {
    let a: Vec<i64> = (0..n).collect();
    let b = a.iter().map(|&i| i as f64 / 2.0).collect();
    (a, b)
}

/// Offsets of the basket records of branch `branch` of `Events`: where their class name
/// starts in the key header.
fn basket_keys(bytes: &[u8], branch: u8) -> Vec<usize> {
    let pattern = [b"\x07TBasket\x01".as_slice(), &[branch], b"\x06Events"].concat();
    bytes
        .windows(pattern.len())
        .enumerate()
        .filter(|(_, w)| *w == pattern)
        .map(|(at, _)| at)
        .collect()
}

#[test]
fn baskets_after_the_last_save_are_kept_when_whole() {
    let bytes = killed(5);
    let (report, a, b) = recovered(bytes.clone());
    assert_eq!(report.trees[0].path, "Events");
    assert_eq!(report.trees[0].saved_entries, 0);
    assert_eq!(report.trees[0].entries, 500);
    // The tree is reported on its own, not among the objects kept as last written.
    assert!(report.objects.is_empty(), "{:?}", report.objects);
    assert_eq!((a, b), ids(500));

    // Cut inside the fourth basket of `a` (its key header whole): `b`'s fourth is still
    // there, but the entries kept end where both branches' whole baskets do.
    let cut = basket_keys(&bytes, b'a')[3] + 40;
    let (report, a, b) = recovered(bytes[..cut].to_vec());
    assert_eq!(report.trees[0].entries, 300);
    assert_eq!((a, b), ids(300));
}

#[test]
fn an_empty_basket_or_a_branch_without_baskets_extends_nothing() {
    let mut bytes = killed(5);
    // `b`'s baskets renamed away: no branch `b` baskets after the save.
    for at in basket_keys(&bytes, b'b') {
        bytes[at + 9] = b'z';
    }
    // `a`'s second basket claims no entries: its end repeats the first one's.
    let title_end = basket_keys(&bytes, b'a')[1] + 17;
    let version_and_size = 2 + 4;
    let entry_size = i32::from_be_bytes(bytes[title_end + 6..title_end + 10].try_into().unwrap());
    let nev_buf = title_end + version_and_size + 4 + usize::from(entry_size < 0);
    bytes[nev_buf..nev_buf + 4].copy_from_slice(&0i32.to_be_bytes());
    let (report, a, b) = recovered(bytes);
    assert_eq!(report.trees[0].entries, 0);
    assert!(a.is_empty() && b.is_empty());
}

#[test]
fn a_basket_lost_between_whole_ones_ends_the_entries_kept() {
    // As a writer killed while writing a cluster leaves it: `a`'s second basket never
    // written (its bytes zero), the rest of the clusters whole. Counting each branch's
    // baskets alone would pair `a`'s third cluster with `b`'s second; the entries kept end
    // where the baskets stop following one another.
    let mut bytes = killed(5);
    // The key header before the class name: 18 bytes, then two seeks of 8 bytes (a key
    // version above 1000) or of 4.
    let name = basket_keys(&bytes, b'a')[1];
    let long = u16::from_be_bytes([bytes[name - 30], bytes[name - 29]]) > 1000;
    let at = name - if long { 34 } else { 26 };
    let nbytes = i32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    bytes[at..at + nbytes].fill(0);
    let (report, a, b) = recovered(bytes);
    assert_eq!(report.trees[0].entries, 100);
    assert_eq!((a, b), ids(100));
}
