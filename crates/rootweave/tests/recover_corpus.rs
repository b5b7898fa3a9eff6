//! `recover` of every file of the real-file corpus (files of experiments' software and of
//! ROOT versions over 20 years): a whole file recovers to the same listed objects, and
//! every branch and field that rootweave reads in the input reads the same in the output.
//! Files whose records do not start at byte 100 (Geant4's writer) are refused with an
//! error saying so. Skips with a notice when the corpus is absent.

mod common;

use std::sync::Arc;

use rootweave::array::Array;
use rootweave::container::read_streamers;
use rootweave::container::RootFile;
use rootweave::io::MemoryFile;
use rootweave::recover::recover_into;
use rootweave::rntuple::{RNTupleReader, ReadOptions};
use rootweave::ttree::{list_trees, TTreeReader};

/// The objects the top directory lists (`name;cycle class`), then every branch of every
/// tree and every field of every top-level RNTuple that reads, as `(object/item, array
/// debug text)`, in file order.
fn values(bytes: Vec<u8>) -> Vec<(String, String)> {
    let Ok(file) = RootFile::from_source(Arc::new(MemoryFile::from_bytes(bytes))) else {
        return Vec::new();
    };
    let file = Arc::new(file);
    let mut listed: Vec<String> = file
        .keys()
        .iter()
        .map(|k| {
            // A directory's record may name `TDirectory` where the keys list said
            // `TDirectoryFile` (ROOT 5): both are read as directories.
            let class = k.class_name.replace("TDirectoryFile", "TDirectory");
            format!("{};{} {class}", k.name, k.cycle)
        })
        .collect();
    listed.sort();
    let mut out = vec![("keys".to_string(), listed.join(", "))];
    if let (Ok(streamers), Ok(trees)) = (read_streamers(&file), list_trees(&file)) {
        let streamers = Arc::new(streamers);
        for name in trees {
            let options = rootweave::ttree::ReadOptions::default().with_threads(1);
            let Ok(tree) = TTreeReader::from_file(file.clone(), streamers.clone(), &name, options)
            else {
                continue;
            };
            for branch in tree.branch_names() {
                if let Ok(mut arrays) = tree.read(&[branch.as_str()], 0..tree.entries()) {
                    out.push((format!("{name}/{branch}"), debug(&arrays.remove(0).1)));
                }
            }
        }
    }
    let ntuples: Vec<String> = file
        .keys()
        .iter()
        .filter(|k| k.class_name == "ROOT::RNTuple")
        .map(|k| k.name.clone())
        .collect();
    for name in ntuples {
        let options = ReadOptions::default().with_threads(1);
        let Ok(reader) = RNTupleReader::from_file(file.clone(), &name, options) else {
            continue;
        };
        for field in reader.field_names() {
            if let Ok(mut arrays) = reader.read(&[field.as_str()], 0..reader.entries()) {
                out.push((format!("{name}/{field}"), debug(&arrays.remove(0).1)));
            }
        }
    }
    out
}

/// The array as text: NaN equal to NaN.
fn debug(array: &Array) -> String {
    format!("{array:?}")
}

#[test]
fn every_whole_file_of_the_corpus_recovers_to_the_same_values() {
    let Some(dir) = common::corpus_file("") else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "root"))
        .collect();
    files.sort();
    assert!(files.len() > 100, "{} corpus files", files.len());
    let mut problems = Vec::new();
    let mut compared = 0;
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let begin = u32::from_be_bytes(bytes[8..12].try_into().unwrap());
        let target = Arc::new(MemoryFile::new());
        let source = Arc::new(MemoryFile::from_bytes(bytes.clone()));
        match recover_into(source, target.clone(), &name) {
            Err(e) if begin != 100 && e.to_string().contains("records start at byte") => {}
            Err(e) => problems.push(format!("{name}: {e}")),
            Ok(_) if begin != 100 => problems.push(format!("{name}: begins at {begin}")),
            Ok(_) => {
                let before = values(bytes);
                let after: std::collections::HashMap<_, _> =
                    values(target.to_bytes()).into_iter().collect();
                for (item, want) in &before {
                    match after.get(item) {
                        None => problems.push(format!("{name}: {item} no longer reads")),
                        Some(got) if got != want => {
                            problems.push(format!("{name}: {item} reads differently"))
                        }
                        Some(_) => compared += 1,
                    }
                }
            }
        }
    }
    eprintln!("{compared} branches and fields read the same after recover");
    assert!(compared > 1000, "{compared} compared");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A file ROOT opened through another TFile class (CMSSW's `TStorageFactoryFile`) gets a
/// shorter `TFile` top record; the rest of the old one is marked free, so recovering the
/// recovered file walks its records without a gap. A deleted record of a ROOT 5 file is
/// stepped over, not reported as lost bytes.
#[test]
fn free_gaps_are_stepped_over() {
    let recovered = |bytes: Vec<u8>| {
        let target = Arc::new(MemoryFile::new());
        let source = Arc::new(MemoryFile::from_bytes(bytes));
        let report = recover_into(source, target.clone(), "corpus.root").unwrap();
        (report, target.to_bytes())
    };
    if let Some(path) = common::corpus_file("uproot-issue-643.root") {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(&bytes[127..146], b"TStorageFactoryFile");
        let (report, once) = recovered(bytes);
        assert!(report.gaps.is_empty(), "{:?}", report.gaps);
        let (again, twice) = recovered(once.clone());
        assert!(again.gaps.is_empty(), "{:?}", again.gaps);
        assert_eq!(values(twice), values(once));
    }
    if let Some(path) = common::corpus_file("uproot-issue64.root") {
        // A record of 5125 bytes deleted at byte 59627.
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(
            i32::from_be_bytes(bytes[59627..59631].try_into().unwrap()),
            -5125
        );
        let (report, _) = recovered(bytes);
        assert!(
            report.gaps.iter().all(|&(start, _)| start != 59627),
            "{:?}",
            report.gaps
        );
    }
}
