//! Datasets of many files: batches in file order, the read-ahead loop and the parallel
//! event loop all give every entry of every file once, as the files read one by one do;
//! bad sources give errors naming the file.

mod common;

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Mutex;

use common::{same_arrays, test_data};
use rootweave::array::{slice, Array};
use rootweave::dataset::{AnyReader, BatchSource, Dataset, DatasetBatch, Source};
use rootweave::ReadOptions;

/// Every default field of every source, read whole file by file.
fn whole_files(dataset: &Dataset) -> Vec<Vec<(String, Array)>> {
    (0..dataset.sources().len())
        .map(|i| {
            let reader = dataset.open(i).unwrap();
            let mut recycler = rootweave::array::Recycler::new();
            reader
                .read_fields_recycling(&[], 0..reader.entries(), &mut recycler)
                .unwrap()
        })
        .collect()
}

/// Checks batches `(source, range, arrays)` against the whole files: each is the slice of
/// its file, and together they cover every entry of every file once.
fn check_batches(whole: &[Vec<(String, Array)>], batches: Vec<DatasetBatch>, what: &str) {
    let mut covered: BTreeMap<usize, Vec<Range<u64>>> = BTreeMap::new();
    for (source, range, arrays) in batches {
        assert_eq!(arrays.len(), whole[source].len(), "{what}");
        for ((name, got), (want_name, want)) in arrays.iter().zip(&whole[source]) {
            assert_eq!(name, want_name, "{what}");
            let want = slice(want.clone(), range.start as usize, got.len());
            same_arrays(
                got,
                &want,
                &format!("{what}: source {source} {name} {range:?}"),
            );
        }
        covered.entry(source).or_default().push(range);
    }
    assert_eq!(covered.len(), whole.len(), "{what}: every source read");
    for (source, mut ranges) in covered {
        ranges.sort_by_key(|r| r.start);
        let mut next = 0;
        for r in &ranges {
            assert_eq!(r.start, next, "{what}: source {source} {ranges:?}");
            next = r.end;
        }
        let entries = whole[source][0].1.len() as u64;
        assert_eq!(next, entries, "{what}: source {source}");
    }
}

fn every_way(dataset: &Dataset, step: u64, what: &str) {
    let whole = whole_files(dataset);
    let sequential: Vec<_> = dataset.batches(&[], step).map(Result::unwrap).collect();
    let order: Vec<(usize, u64)> = sequential.iter().map(|(s, r, _)| (*s, r.start)).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted, "{what}: batches come in file order");
    check_batches(&whole, sequential, &format!("{what} batches"));

    let mut ahead = Vec::new();
    dataset
        .for_each_read_ahead(&[], step, |source, range, arrays| {
            ahead.push((source, range, arrays.to_vec()));
            Ok(())
        })
        .unwrap();
    check_batches(&whole, ahead, &format!("{what} read ahead"));

    let parallel = Mutex::new(Vec::new());
    let slots_used = Mutex::new(Vec::new());
    dataset
        .for_each_parallel(&[], step, |slot, source, range, arrays| {
            assert!(slot < dataset.slots());
            slots_used.lock().unwrap().push(slot);
            parallel
                .lock()
                .unwrap()
                .push((source, range, arrays.to_vec()));
            Ok(())
        })
        .unwrap();
    check_batches(
        &whole,
        parallel.into_inner().unwrap(),
        &format!("{what} parallel"),
    );
}

#[test]
fn a_dataset_of_ttrees_reads_every_entry_once_in_every_loop() {
    let sources: Vec<Source> = ["zlib", "lz4", "lzma", "zstd", "uncompressed"]
        .iter()
        .map(|c| Source::new(test_data(&format!("uproot-HZZ-{c}.root")), Some("events")))
        .collect();
    let dataset = Dataset::new(sources, ReadOptions::default().with_threads(2)).unwrap();
    assert_eq!(dataset.entries().unwrap(), vec![2421; 5]);
    every_way(&dataset, 0, "HZZ step 0");
    every_way(&dataset, 1000, "HZZ step 1000");
}

#[test]
fn a_dataset_of_rntuples_reads_every_entry_once_in_every_loop() {
    let groups = test_data("test_multiple_cluster_groups_rntuple_v1-0-0-0.root");
    let sources = vec![
        Source::new(&groups, None),
        Source::new(
            test_data("test_index_multicluster_rntuple_v1-0-0-0.root"),
            None,
        ),
        Source::new(&groups, Some("ntuple")),
    ];
    let dataset = Dataset::new(sources, ReadOptions::default().with_threads(2)).unwrap();
    assert_eq!(dataset.entries().unwrap(), [1000, 200, 1000]);
    every_way(&dataset, 0, "RNTuples");
    every_way(&dataset, 150, "RNTuples step 150");
}

#[test]
fn asked_fields_come_in_the_asked_order_from_either_format() {
    let tree = Source::new(test_data("uproot-HZZ.root"), Some("events"));
    let dataset = Dataset::new(vec![tree.clone(), tree], ReadOptions::default()).unwrap();
    let mut total = 0;
    for batch in dataset.batches(&["NMuon", "Muon_Px"], 500) {
        let (_, range, arrays) = batch.unwrap();
        let names: Vec<&str> = arrays.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["NMuon", "Muon_Px"]);
        assert_eq!(arrays[0].1.len() as u64, range.end - range.start);
        total += range.end - range.start;
    }
    assert_eq!(total, 2 * 2421);
}

#[test]
fn sources_parse_as_uproot_names_them() {
    assert_eq!(
        Source::parse("data/run1.root:Events"),
        Source::new("data/run1.root", Some("Events"))
    );
    assert_eq!(
        Source::parse("run1.root:dir/tree"),
        Source::new("run1.root", Some("dir/tree"))
    );
    assert_eq!(Source::parse("run1.root"), Source::new("run1.root", None));
    assert_eq!(
        Source::parse("C:\\data\\run1.root"),
        Source::new("C:\\data\\run1.root", None)
    );
    assert_eq!(
        Source::parse("root://host//store/f.root"),
        Source::new("root://host//store/f.root", None)
    );
    let existing = test_data("uproot-HZZ.root");
    let spec = existing.to_str().unwrap();
    assert_eq!(Source::parse(spec), Source::new(spec, None));
}

#[test]
fn bad_sources_are_errors_naming_the_file() {
    let missing = Source::new("/nonexistent/run7.root", Some("Events"));
    let good = Source::new(test_data("uproot-HZZ.root"), Some("events"));
    let dataset = Dataset::new(vec![good.clone(), missing], ReadOptions::default()).unwrap();
    // The good file is read before the missing one fails.
    let results: Vec<_> = dataset.batches(&[], 0).collect();
    assert!(results.len() >= 2);
    let error = results.last().unwrap().as_ref().unwrap_err().to_string();
    assert!(error.contains("run7.root"), "{error}");
    assert!(results[..results.len() - 1].iter().all(Result::is_ok));
    let error = dataset
        .for_each_parallel(&[], 0, |_, _, _, _| Ok(()))
        .unwrap_err()
        .to_string();
    assert!(error.contains("run7.root"), "{error}");

    let several = test_data("rntviewer-testfile-multiple-rntuples-v1-0-0-0.root");
    let error = Dataset::new(vec![Source::new(&several, None)], ReadOptions::default())
        .unwrap()
        .open(0)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("several") && error.contains("multiple-rntuples"),
        "{error}"
    );

    let no_field = Dataset::new(vec![good], ReadOptions::default()).unwrap();
    let error = no_field
        .for_each_read_ahead(&["no_such_branch"], 0, |_, _, _| Ok(()))
        .unwrap_err()
        .to_string();
    assert!(error.contains("no_such_branch"), "{error}");

    let twice = Dataset::new(
        vec![no_field.sources()[0].clone(); 2],
        ReadOptions::default(),
    );
    let stopped = twice
        .unwrap()
        .for_each_parallel(&[], 100, |_, source, _, _| {
            if source == 1 {
                return Err(rootweave::Error::InvalidArgument("stop here".into()));
            }
            Ok(())
        })
        .unwrap_err();
    assert!(stopped.to_string().contains("stop here"));
    let error = AnyReader::open(
        std::sync::Arc::new(rootweave::container::RootFile::open(&several).unwrap()),
        Some("no_such"),
        ReadOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("no_such"), "{error}");
}
