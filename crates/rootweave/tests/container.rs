//! The ROOT file container: files we write list and return their objects; real ROOT files
//! open; files past 2 GB use the large forms; corrupt files give errors, never panics.

mod common;

use common::test_data;

use std::sync::Arc;

use rootweave::compress::Compression;
use rootweave::container::{FileWriter, RootFile, WriterOptions};
use rootweave::io::MemoryFile;

/// A small file with blobs and listed objects (two cycles of one name, one compressed).
fn small_file(compression: Compression) -> Vec<u8> {
    let memory = Arc::new(MemoryFile::new());
    let writer = FileWriter::with_backend(
        memory.clone(),
        "small.root",
        WriterOptions::default()
            .with_compression(compression)
            .with_title("a title".into()),
    )
    .unwrap();
    writer.write_blob(b"blob bytes", 10).unwrap();
    writer
        .write_object("TObjString", "first", "", b"one", true)
        .unwrap();
    let big: Vec<u8> = (0..5000).map(|i| (i % 17) as u8).collect();
    writer
        .write_object("TObjString", "second", "t", &big, true)
        .unwrap();
    writer
        .write_object("TObjString", "first", "", b"two", true)
        .unwrap();
    let summary = writer.close().unwrap();
    let bytes = memory.to_bytes();
    assert_eq!(summary.file_size, bytes.len() as u64);
    bytes
}

fn open(bytes: Vec<u8>) -> rootweave::Result<RootFile> {
    RootFile::from_source(Arc::new(MemoryFile::from_bytes(bytes)))
}

#[test]
fn written_objects_are_listed_and_read_back() {
    for compression in [
        Compression::NONE,
        "zstd".parse().unwrap(),
        "zlib".parse().unwrap(),
    ] {
        let file = open(small_file(compression)).unwrap();
        let names: Vec<(String, u16)> = file
            .keys()
            .iter()
            .map(|k| (k.name.clone(), k.cycle))
            .collect();
        assert_eq!(
            names,
            [
                ("first".into(), 1),
                ("second".into(), 1),
                ("first".into(), 2)
            ]
        );
        assert_eq!(
            file.read_object(&file.get_key("first").unwrap()).unwrap(),
            b"two"
        );
        assert_eq!(
            file.read_object(&file.get_key("first;1").unwrap()).unwrap(),
            b"one"
        );
        let second = file.get_key("second").unwrap();
        assert_eq!(second.is_compressed(), !compression.is_none());
        assert_eq!(file.read_object(&second).unwrap().len(), 5000);
        assert!(file.get_key("third").is_err());
        assert!(!file.header().is_large);
        assert_eq!(file.header().compression, compression.root_setting());
        let infos = file.streamer_list_payload().unwrap().unwrap();
        assert!(infos.windows(13).any(|w| w == b"ROOT::RNTuple"));
    }
}

#[test]
fn real_root_files_open() {
    let expect = [
        ("uproot-HZZ.root", "events", "TTree"),
        ("uproot-HZZ-lzma.root", "events", "TTree"),
        (
            "ntpl001_staff_rntuple_v1-0-0-0.root",
            "Staff",
            "ROOT::RNTuple",
        ),
        ("nanoAOD_2015_CMS_Open_Data_ttbar.root", "Events", "TTree"),
        (
            "rntviewer-testfile-multiple-rntuples-v1-0-0-0.root",
            "B",
            "ROOT::RNTuple",
        ),
    ];
    for (name, key, class) in expect {
        let file = RootFile::open(test_data(name)).unwrap();
        let k = file.get_key(key).unwrap();
        assert_eq!(k.class_name, class, "{name}");
        let payload = file.read_object(&k).unwrap();
        assert_eq!(payload.len(), k.objlen as usize);
    }
    for entry in std::fs::read_dir(test_data("")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "root") {
            let file = RootFile::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!file.keys().is_empty(), "{}", path.display());
            for key in file.keys() {
                file.read_object(key).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
}

#[test]
fn files_past_2gb_use_the_large_forms() {
    let dir = std::env::temp_dir().join(format!("rw-container-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("large.root");
    let writer = FileWriter::create(&path, WriterOptions::default()).unwrap();
    // A sparse gap: reserved but never written.
    writer.allocate(2_100_000_000);
    writer
        .write_object("TObjString", "late", "", b"past the mark", false)
        .unwrap();
    let summary = writer.close().unwrap();
    assert!(summary.is_large);
    let file = RootFile::open(&path).unwrap();
    assert!(file.header().is_large);
    assert_eq!(file.header().end, summary.file_size);
    let key = file.get_key("late").unwrap();
    assert!(key.is_big() && key.seek_key > 2_000_000_000);
    assert_eq!(file.read_object(&key).unwrap(), b"past the mark");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn corrupt_files_give_errors_that_name_the_problem() {
    let good = small_file("zstd".parse().unwrap());
    let err = |bytes: Vec<u8>| open(bytes).unwrap_err().to_string();
    let mut bad_magic = good.clone();
    bad_magic[0] = b'R';
    assert!(err(bad_magic).contains("not a ROOT file"));
    assert!(err(good[..50].to_vec()).contains("file header"));
    assert!(err(good[..good.len() - 1].to_vec()).contains("truncated"));
    let mut bad_name_len = good.clone();
    bad_name_len[28..32].copy_from_slice(&20_000i32.to_be_bytes());
    assert!(err(bad_name_len).contains("fNbytesName"));
}

#[test]
fn truncations_and_bit_flips_never_panic() {
    let good = small_file("zstd".parse().unwrap());
    let read_everything = |bytes: Vec<u8>| -> rootweave::Result<()> {
        let file = open(bytes)?;
        for key in file.keys() {
            file.read_object(key)?;
        }
        file.streamer_list_payload()?;
        Ok(())
    };
    for cut in 0..good.len() {
        assert!(read_everything(good[..cut].to_vec()).is_err());
    }
    for i in 0..good.len() {
        for bit in [0x01u8, 0x10, 0x80] {
            let mut bytes = good.clone();
            bytes[i] ^= bit;
            let _ = read_everything(bytes);
        }
    }
}
