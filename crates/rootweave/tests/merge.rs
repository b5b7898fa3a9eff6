//! Merging files written by ROOT: every branch of the merged tree reads as the inputs'
//! concatenation, and bad inputs give errors naming the file and leave no output.

mod common;

use std::path::PathBuf;

use common::{same_arrays, test_data};
use rootweave::array::concat;
use rootweave::merge::{merge, MergeOptions};
use rootweave::ttree::TTreeReader;

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rw-merge-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn all_branches(tree: &TTreeReader) -> Vec<(String, rootweave::array::Array)> {
    let names = tree.branch_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    tree.read(&names, 0..tree.entries()).unwrap()
}

#[test]
fn merged_tree_of_every_codec_reads_as_the_concatenation() {
    let dir = out_dir("codecs");
    let inputs: Vec<PathBuf> = ["zlib", "lz4", "lzma", "zstd", "uncompressed"]
        .iter()
        .map(|c| test_data(&format!("uproot-HZZ-{c}.root")))
        .collect();
    let out = dir.join("merged.root");
    let options = MergeOptions {
        threads: 2,
        ..Default::default()
    };
    let summary = merge(&out, &inputs, &options).unwrap();
    assert_eq!((summary.inputs, summary.trees), (5, 1));
    let merged = TTreeReader::open(&out, "events").unwrap();
    let parts: Vec<_> = inputs
        .iter()
        .map(|p| all_branches(&TTreeReader::open(p, "events").unwrap()))
        .collect();
    assert_eq!(merged.entries(), 5 * 2421);
    assert_eq!(summary.entries, merged.entries());
    let got = all_branches(&merged);
    assert_eq!(got.len(), parts[0].len());
    for (i, (name, array)) in got.iter().enumerate() {
        let want = concat(parts.iter().map(|p| p[i].1.clone()).collect()).unwrap();
        same_arrays(array, &want, name);
    }
    // Inputs of other codecs were compressed again into the first's (zlib).
    assert!(summary.bytes_recompressed > 0 && summary.bytes_copied > 0);
    let data = std::fs::read(&out).unwrap();
    let count = |tag: &[u8]| data.windows(3).filter(|w| *w == tag).count();
    assert_eq!(
        (count(b"L4\x01"), count(b"ZS\x01"), count(b"XZ\x00")),
        (0, 0, 0)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn inputs_of_one_setting_are_copied_and_compression_is_changed_on_request() {
    let dir = out_dir("same");
    let input = test_data("uproot-HZZ-zlib.root");
    let inputs = [input.clone(), input.clone(), input.clone()];
    let stored = |t: &TTreeReader| -> u64 {
        let branches = t.meta().all_branches();
        branches
            .iter()
            .flat_map(|b| &b.baskets)
            .map(|k| k.bytes as u64)
            .sum()
    };
    let one = stored(&TTreeReader::open(&input, "events").unwrap());
    let out = dir.join("copied.root");
    let summary = merge(&out, &inputs, &MergeOptions::default()).unwrap();
    assert_eq!(summary.bytes_recompressed, 0);
    assert_eq!(summary.bytes_copied, 3 * one);
    assert_eq!(stored(&TTreeReader::open(&out, "events").unwrap()), 3 * one);
    // Asked for zstd: every basket is compressed again, the values stay.
    let zstd = dir.join("zstd.root");
    let options = MergeOptions {
        compression: Some("zstd:5".parse().unwrap()),
        threads: 2,
        ..Default::default()
    };
    let summary = merge(&zstd, &inputs, &options).unwrap();
    assert_eq!(
        (summary.bytes_copied, summary.bytes_recompressed),
        (0, 3 * one)
    );
    let (a, b) = (
        TTreeReader::open(&out, "events").unwrap(),
        TTreeReader::open(&zstd, "events").unwrap(),
    );
    for ((name, x), (_, y)) in all_branches(&a).iter().zip(&all_branches(&b)) {
        same_arrays(y, x, name);
    }
    let data = std::fs::read(&zstd).unwrap();
    assert_eq!(data.windows(3).filter(|w| *w == b"ZL\x08").count(), 0);
    assert!(data.windows(3).any(|w| w == b"ZS\x01"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_inputs_fail_naming_the_file_and_leave_no_output() {
    let dir = out_dir("bad");
    let good = test_data("uproot-HZZ.root");
    let bytes = std::fs::read(&good).unwrap();
    let truncated = dir.join("truncated.root");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let out = dir.join("out.root");
    let options = MergeOptions::default();
    for bad in [truncated.clone(), dir.join("missing.root")] {
        let err = merge(&out, &[good.clone(), bad.clone()], &options).unwrap_err();
        let name = bad.file_name().unwrap().to_string_lossy().into_owned();
        assert!(err.to_string().contains(&name), "{err}");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "only the truncated input: {left:?}");
    }
    // Skipping them merges the rest.
    let skip = MergeOptions {
        skip_bad: true,
        ..Default::default()
    };
    let inputs = [
        good.clone(),
        truncated,
        dir.join("missing.root"),
        good.clone(),
    ];
    let summary = merge(&out, &inputs, &skip).unwrap();
    assert_eq!((summary.inputs, summary.skipped.len()), (2, 2));
    assert_eq!(
        TTreeReader::open(&out, "events").unwrap().entries(),
        2 * 2421
    );
    // The output exists now: a second merge needs force.
    let err = merge(&out, std::slice::from_ref(&good), &options).unwrap_err();
    assert!(err.to_string().contains("exists"), "{err}");
    let force = MergeOptions {
        force: true,
        ..Default::default()
    };
    merge(&out, &[good], &force).unwrap();
    assert_eq!(TTreeReader::open(&out, "events").unwrap().entries(), 2421);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn trees_of_different_branches_are_refused() {
    let dir = out_dir("differ");
    let inputs = [test_data("uproot-HZZ.root"), test_data("uproot-Zmumu.root")];
    let err = merge(dir.join("out.root"), &inputs, &MergeOptions::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("uproot-HZZ.root") && text.contains("uproot-Zmumu.root"),
        "{text}"
    );
    assert!(text.contains("branch"), "{text}");
    assert!(!dir.join("out.root").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn merged_rntuple_reads_as_the_concatenation() {
    use rootweave::rntuple::RNTupleReader;
    let dir = out_dir("rntuple");
    let input = test_data("test_multiple_cluster_groups_rntuple_v1-0-0-0.root");
    let out = dir.join("merged.root");
    let summary = merge(
        &out,
        &[input.clone(), input.clone()],
        &MergeOptions::default(),
    )
    .unwrap();
    assert_eq!((summary.rntuples, summary.entries), (1, 2000));
    // The input's StreamerInfo record sits in a big (64-bit) key; the output's key is small,
    // so the record's reference tags moved with it, and it reads as the input's.
    let file = rootweave::container::RootFile::open(&out).unwrap();
    let classes = rootweave::container::read_streamers(&file).unwrap();
    assert_eq!(classes.versions("ROOT::RNTuple"), 1);
    let read = |p: &PathBuf| {
        let r = RNTupleReader::open(p, "ntuple").unwrap();
        let names = r.field_names();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        r.read(&names, 0..r.entries()).unwrap()
    };
    let (one, two) = (read(&input), read(&out));
    assert_eq!(one.len(), two.len());
    for ((name, x), (_, y)) in one.iter().zip(&two) {
        let want = concat(vec![x.clone(), x.clone()]).unwrap();
        same_arrays(y, &want, name);
    }
    // Compressed again on request: the same values, pages of the new setting.
    let lz4 = dir.join("lz4.root");
    let options = MergeOptions {
        compression: Some("lz4:4".parse().unwrap()),
        threads: 2,
        ..Default::default()
    };
    let summary = merge(&lz4, &[input.clone(), input.clone()], &options).unwrap();
    assert!(summary.bytes_recompressed > 0 && summary.bytes_copied == 0);
    for ((name, x), (_, y)) in two.iter().zip(&read(&lz4)) {
        same_arrays(y, x, name);
    }
    let data = std::fs::read(&lz4).unwrap();
    assert!(data.windows(3).any(|w| w == b"L4\x01"));
    // Another schema under the same name is refused, naming both files.
    let other = test_data("test_int_float_rntuple_v1-0-0-0.root");
    let err = merge(
        dir.join("bad.root"),
        &[input, other],
        &MergeOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("test_int_float"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Entry `i`'s value of each field of `ntuple` in `path`, as JSON.
fn json_rows(path: &PathBuf, fields: &[&str], entries: std::ops::Range<u64>) -> Vec<String> {
    let r = rootweave::rntuple::RNTupleReader::open(path, "ntuple").unwrap();
    let columns = r.read(fields, entries.clone()).unwrap();
    (0..(entries.end - entries.start) as usize)
        .map(|i| {
            let mut row = String::new();
            for (name, array) in &columns {
                row.push_str(name);
                row.push('=');
                array.write_json(i, &mut row);
                row.push(' ');
            }
            row
        })
        .collect()
}

#[test]
fn rntuples_of_different_schemas_merge_into_their_union() {
    let dir = out_dir("union");
    let stl = test_data("test_stl_containers_rntuple_v1-0-0-0.root");
    let ints = test_data("test_int_float_rntuple_v1-0-0-0.root");
    let inputs = [stl.clone(), ints.clone(), stl.clone()];
    let out = dir.join("union.root");
    let options = MergeOptions {
        rntuple_union: true,
        ..Default::default()
    };
    let summary = merge(&out, &inputs, &options).unwrap();
    assert_eq!(summary.entries, 20);
    // The first input's fields: its values, defaults for the second input, its values.
    let containers = [
        "string",
        "vector_int32",
        "array_float",
        "vector_vector_int32",
    ];
    let theirs = json_rows(&stl, &containers, 0..5);
    assert_eq!(json_rows(&out, &containers, 0..5), theirs);
    assert_eq!(json_rows(&out, &containers, 15..20), theirs);
    let defaults = "string=\"\" vector_int32=[] array_float=[0, 0, 0] vector_vector_int32=[] ";
    assert_eq!(json_rows(&out, &containers, 5..15), vec![defaults; 10]);
    // The second input's fields: deferred before it, zeros after it.
    let numbers = ["one_integers", "two_floats"];
    assert_eq!(
        json_rows(&out, &numbers, 5..15),
        json_rows(&ints, &numbers, 0..10)
    );
    let zeros = "one_integers=0 two_floats=0 ";
    assert_eq!(json_rows(&out, &numbers, 0..5), vec![zeros; 5]);
    assert_eq!(json_rows(&out, &numbers, 15..20), vec![zeros; 5]);
    // Strict mode refuses the same inputs.
    let err = merge(dir.join("strict.root"), &inputs, &MergeOptions::default()).unwrap_err();
    assert!(err.to_string().contains("differs between"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
