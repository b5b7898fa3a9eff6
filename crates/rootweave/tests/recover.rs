//! `recover` makes whole again a file whose writer died or that was cut short: every
//! RNTuple keeps its clusters from entry 0 whose pages are whole, also those written after
//! its last checkpoint; other objects stay as last written; bad input gives an error that
//! names the file. (Files killed for real are recovered and read by ROOT and uproot in
//! tests/python/test_crash_safety.py.)

use std::sync::Arc;

use rootweave::array::Array;
use rootweave::container::{FileWriter, RootFile, WriterOptions};
use rootweave::io::MemoryFile;
use rootweave::recover::{recover, recover_into};
use rootweave::rntuple::{
    ColumnData, Field, FieldType, RNTupleReader, RNTupleWriteOptions, RNTupleWriter, ReadOptions,
};

/// A closed file with RNTuple `Events` of `clusters` clusters of 100 ids each (and a
/// vector of id % 3 floats), checkpointed every `every` clusters, and an object `note`.
fn written(clusters: i64, every: u64) -> Vec<u8> {
    let memory = Arc::new(MemoryFile::new());
    let file = Arc::new(
        FileWriter::with_backend(memory.clone(), "data.root", WriterOptions::default()).unwrap(),
    );
    file.write_object(
        "TNamed",
        "note",
        "",
        b"\x40\x00\x00\x0a\x00\x01\x00\x00\x00\x00",
        false,
    )
    .unwrap();
    let fields = vec![
        Field::new("id", FieldType::Int64),
        Field::new("v", FieldType::vector(FieldType::Float32)),
    ];
    let options = RNTupleWriteOptions::default().with_checkpoints(0, every);
    let mut writer = RNTupleWriter::in_file(file.clone(), "Events", fields, options).unwrap();
    for k in 0..clusters {
        let ids: Vec<i64> = (k * 100..(k + 1) * 100).collect();
        let mut offsets = vec![0u64];
        let mut values = vec![];
        for &i in &ids {
            values.extend(std::iter::repeat_n(i as f32, (i % 3) as usize));
            offsets.push(values.len() as u64);
        }
        let data = [
            ColumnData::Int64(&ids),
            ColumnData::list(&offsets, ColumnData::Float32(&values)),
        ];
        writer.extend(&data).unwrap();
        writer.commit_cluster().unwrap();
    }
    writer.close().unwrap();
    Arc::try_unwrap(file).unwrap().close().unwrap();
    memory.to_bytes()
}

/// Recovers `bytes`; the ids of the recovered RNTuple (each entry's vector checked) and
/// the names the recovered file lists.
fn recovered(bytes: Vec<u8>) -> rootweave::Result<(Vec<i64>, Vec<String>)> {
    let source = Arc::new(MemoryFile::from_bytes(bytes));
    let target = Arc::new(MemoryFile::new());
    recover_into(source, target.clone(), "data.root")?;
    let root = Arc::new(RootFile::from_source(Arc::new(MemoryFile::from_bytes(
        target.to_bytes(),
    )))?);
    let names = root.keys().iter().map(|k| k.name.clone()).collect();
    let reader = RNTupleReader::from_file(root, "Events", ReadOptions::default())?;
    let arrays = reader.read(&["id", "v"], 0..reader.entries())?;
    let (Array::Int64(ids), Array::List { offsets, values }) = (&arrays[0].1, &arrays[1].1) else {
        panic!("unexpected arrays")
    };
    let Array::Float32(values) = values.as_ref() else {
        panic!("v does not hold floats")
    };
    for (k, &id) in ids.iter().enumerate() {
        let items = &values[offsets[k] as usize..offsets[k + 1] as usize];
        assert_eq!(items, vec![id as f32; (id % 3) as usize]);
    }
    Ok((ids.clone(), names))
}

#[test]
fn a_closed_file_is_recovered_whole() {
    let (ids, names) = recovered(written(7, 3)).unwrap();
    assert_eq!(ids, (0..700).collect::<Vec<_>>());
    assert!(names.contains(&"note".to_string()) && names.contains(&"Events".to_string()));
}

#[test]
fn a_file_cut_anywhere_keeps_the_clusters_before_the_cut() {
    let whole = written(6, 0);
    let sizes: Vec<usize> = (0..6).map(|k| written(k + 1, 0).len()).collect();
    let mut last = 0;
    for cut in (200..whole.len()).step_by(97) {
        match recovered(whole[..cut].to_vec()) {
            Ok((ids, _)) => {
                // Entries in order from 0, whole clusters, never fewer as the cut moves on.
                assert_eq!(
                    ids,
                    (0..ids.len() as i64).collect::<Vec<_>>(),
                    "cut at {cut}"
                );
                assert_eq!(ids.len() % 100, 0);
                assert!(ids.len() >= last, "cut at {cut}");
                last = ids.len();
            }
            Err(e) => {
                assert_eq!(last, 0, "cut at {cut}: {e}");
                assert!(e.to_string().contains("<memory>"), "{e}");
            }
        }
    }
    // The cut that leaves out only the closing records keeps everything.
    assert_eq!(last, 600, "sizes {sizes:?}");
}

#[test]
fn input_that_is_not_a_root_file_gives_an_error_naming_it() {
    for bytes in [
        vec![],
        vec![0u8; 5000],
        (0..20_000u32).map(|i| (i * 7919 % 251) as u8).collect(),
    ] {
        let source = Arc::new(MemoryFile::from_bytes(bytes));
        let e = recover_into(source, Arc::new(MemoryFile::new()), "x.root").unwrap_err();
        assert!(e.to_string().contains("<memory>"), "{e}");
    }
    let dir = std::env::temp_dir().join(format!("rootweave-recover-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing.root");
    let e = recover(&missing, &dir.join("out.root")).unwrap_err();
    assert!(e.to_string().contains("missing.root"), "{e}");
    assert!(!dir.join("out.root").exists());
}

#[test]
fn recovering_in_place_replaces_the_file_only_when_done() {
    let dir = std::env::temp_dir().join(format!("rootweave-in-place-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("data.root");
    let whole = written(4, 0);
    std::fs::write(&path, &whole[..whole.len() - 300]).unwrap();
    assert!(RootFile::open(&path).is_err());
    let report = recover(&path, &path).unwrap();
    assert_eq!(report.ntuples[0].entries, 400);
    assert_eq!(report.objects, ["note;1 (TNamed)"]);
    let reader = RNTupleReader::open(&path, "Events").unwrap();
    assert_eq!(reader.entries(), 400);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file with RNTuple `ntuple` in directory `d` (ids from 0) and another `ntuple` of the
/// same fields at the top (ids from 1000), `clusters` clusters of 100 entries each,
/// checkpointed every 2, as a writer killed then leaves it.
fn written_in_directories(clusters: i64) -> Vec<u8> {
    let memory = Arc::new(MemoryFile::new());
    let file = Arc::new(
        FileWriter::with_backend(memory.clone(), "dirs.root", WriterOptions::default()).unwrap(),
    );
    let options = RNTupleWriteOptions::default().with_checkpoints(0, 2);
    let fields = || vec![Field::new("id", FieldType::Int64)];
    let mut inner =
        RNTupleWriter::in_file(file.clone(), "d/ntuple", fields(), options.clone()).unwrap();
    let mut top = RNTupleWriter::in_file(file.clone(), "ntuple", fields(), options).unwrap();
    for k in 0..clusters {
        for (writer, first) in [(&mut inner, 0), (&mut top, 1000)] {
            let ids: Vec<i64> = (first + k * 100..first + (k + 1) * 100).collect();
            writer.extend(&[ColumnData::Int64(&ids)]).unwrap();
            writer.commit_cluster().unwrap();
        }
    }
    // The bytes as a writer killed now leaves them (dropped writers would close).
    memory.to_bytes()
}

/// The ids of RNTuple `name` of `root`.
fn ids_of(root: &Arc<RootFile>, name: &str) -> Vec<i64> {
    let reader = RNTupleReader::from_file(root.clone(), name, ReadOptions::default()).unwrap();
    match &reader.read(&["id"], 0..reader.entries()).unwrap()[0].1 {
        Array::Int64(ids) => ids.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn rntuples_in_directories_are_recovered_where_they_were() {
    // Never closed: the writers' last checkpoint and the clusters after it.
    let whole = written_in_directories(5);
    for cut in [whole.len(), whole.len() * 3 / 4, whole.len() / 2] {
        let source = Arc::new(MemoryFile::from_bytes(whole[..cut].to_vec()));
        let target = Arc::new(MemoryFile::new());
        let report = recover_into(source, target.clone(), "dirs.root").unwrap();
        let mut names: Vec<&str> = report.ntuples.iter().map(|n| n.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["d/ntuple", "ntuple"], "cut at {cut}");
        let root = Arc::new(
            RootFile::from_source(Arc::new(MemoryFile::from_bytes(target.to_bytes()))).unwrap(),
        );
        let top: Vec<String> = root
            .keys()
            .iter()
            .map(|k| format!("{};{} {}", k.name, k.cycle, k.class_name))
            .collect();
        assert_eq!(
            top,
            ["d;1 TDirectory", "ntuple;1 ROOT::RNTuple"],
            "cut at {cut}"
        );
        let inner = ids_of(&root, "d/ntuple");
        let outer = ids_of(&root, "ntuple");
        assert!(
            inner.len() >= 200 && inner.len() % 100 == 0,
            "cut at {cut}: {}",
            inner.len()
        );
        assert_eq!(
            inner,
            (0..inner.len() as i64).collect::<Vec<_>>(),
            "cut at {cut}"
        );
        assert_eq!(
            outer,
            (1000..1000 + outer.len() as i64).collect::<Vec<_>>(),
            "cut at {cut}"
        );
        if cut == whole.len() {
            // Their headers are the same bytes: each keeps what its last checkpoint lists,
            // the cluster after it (whose record could be either's) is left out.
            assert_eq!((inner.len(), outer.len()), (400, 400));
            assert!(
                report.ntuples.iter().all(|n| n.dropped.len() == 2),
                "{report:?}"
            );
        }
    }
}
