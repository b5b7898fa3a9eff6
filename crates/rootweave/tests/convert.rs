//! Converting files: a TTree with counted branches becomes an RNTuple whose collections
//! and projected fields read as the branches did; an RNTuple becomes a TTree again; an
//! entry range is converted alone; bad requests are errors that leave no output.

mod common;

use std::path::PathBuf;

use common::{same_arrays, test_data};
use rootweave::array::Array;
use rootweave::convert::{convert, ConvertOptions, Target};
use rootweave::dataset::{AnyReader, Source};
use rootweave::rntuple::RNTupleReader;
use rootweave::ttree::TTreeReader;

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rw-convert-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn counted_branches_become_collections_with_projected_fields() {
    let dir = out_dir("importer");
    let input = test_data("uproot-HZZ.root");
    let out = dir.join("hzz.root");
    let mut options = ConvertOptions::new(Target::RNTuple);
    options.threads = 2;
    options.memory_budget = 8 << 20;
    let summary = convert(&Source::new(&input, Some("events")), &out, &options).unwrap();
    let tree = TTreeReader::open(&input, "events").unwrap();
    assert_eq!(summary.entries, tree.entries());
    let ntuple = RNTupleReader::open(&out, "events").unwrap();
    let names = ntuple.field_names();
    // Counted branches are collections; the branches' names and the counters' come back
    // as projected fields, after the stored ones.
    let at = |name: &str| names.iter().position(|n| n == name);
    let collection = at("_collection0").expect("a collection");
    assert!(at("NMuon").unwrap() > collection && at("Muon_Px").unwrap() > collection);
    assert!(at("MET_px").unwrap() < collection, "{names:?}");
    // Projected fields read as the branches: members as lists, counters as counts.
    for branch in [
        "Muon_Px",
        "Jet_E",
        "Jet_ID",
        "NMuon",
        "NJet",
        "MET_px",
        "triggerIsoMu24",
    ] {
        let want = tree.read(&[branch], 0..tree.entries()).unwrap();
        let got = ntuple.read(&[branch], 0..ntuple.entries()).unwrap();
        let want = match &want[0].1 {
            Array::Int32(counts) => Array::UInt32(counts.iter().map(|&c| c as u32).collect()),
            other => other.clone(),
        };
        same_arrays(&got[0].1, &want, branch);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_rntuple_becomes_a_ttree_and_back() {
    let dir = out_dir("roundtrip");
    let source = Source::new(test_data("test_stl_containers_rntuple_v1-0-0-0.root"), None);
    let reader = rootweave::dataset::Dataset::new(vec![source.clone()], Default::default())
        .unwrap()
        .open(0)
        .unwrap();
    let tree_file = dir.join("tree.root");
    let mut options = ConvertOptions::new(Target::TTree);
    options.fields = vec!["vector_int32".into(), "string".into(), "array_float".into()];
    let summary = convert(&source, &tree_file, &options).unwrap();
    assert_eq!(summary.entries, reader.entries());
    let tree = TTreeReader::open(&tree_file, "ntuple").unwrap();
    let AnyReader::RNTuple(ntuple) = reader else {
        panic!("an RNTuple")
    };
    for name in ["vector_int32", "string", "array_float"] {
        let want = ntuple.read(&[name], 0..ntuple.entries()).unwrap();
        let got = tree.read(&[name], 0..tree.entries()).unwrap();
        same_arrays(&got[0].1, &want[0].1, name);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_entry_range_of_the_input_is_converted_alone() {
    let dir = out_dir("range");
    let input = test_data("uproot-HZZ.root");
    let out = dir.join("part.root");
    let mut options = ConvertOptions::new(Target::TTree);
    options.fields = vec!["Muon_Px".into(), "MET_px".into()];
    let part = Source::new(&input, Some("events")).with_entries(1000..2000);
    assert_eq!(convert(&part, &out, &options).unwrap().entries, 1000);
    let tree = TTreeReader::open(&input, "events").unwrap();
    let written = TTreeReader::open(&out, "events").unwrap();
    assert_eq!(written.entries(), 1000);
    for name in ["Muon_Px", "MET_px"] {
        let want = tree.read(&[name], 1000..2000).unwrap();
        let got = written.read(&[name], 0..1000).unwrap();
        same_arrays(&got[0].1, &want[0].1, name);
    }
    // A range past the end is cut to the entries there are.
    options.force = true;
    let tail = Source::new(&input, Some("events")).with_entries(2400..1 << 40);
    assert_eq!(convert(&tail, &out, &options).unwrap().entries, 21);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_conversions_leave_no_output() {
    let dir = out_dir("bad");
    let out = dir.join("out.root");
    let options = ConvertOptions::new(Target::RNTuple);
    let missing = Source::new(dir.join("missing.root"), Some("Events"));
    let error = convert(&missing, &out, &options).unwrap_err().to_string();
    assert!(error.contains("missing.root"), "{error}");
    let hzz = Source::new(test_data("uproot-HZZ.root"), Some("events"));
    let mut asked = ConvertOptions::new(Target::TTree);
    asked.fields = vec!["no_such_branch".into()];
    let error = convert(&hzz, &out, &asked).unwrap_err().to_string();
    assert!(error.contains("no_such_branch"), "{error}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::write(&out, b"keep").unwrap();
    let error = convert(&hzz, &out, &options).unwrap_err().to_string();
    assert!(error.contains("exists"), "{error}");
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    let mut small = ConvertOptions::new(Target::RNTuple);
    small.memory_budget = 1 << 20;
    small.force = true;
    assert!(convert(&hzz, &out, &small).is_err());
    assert!("csv".parse::<Target>().is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}
