//! Writes small RNTuple files for the fuzz corpus into the folder given as argument:
//! every field type rootweave writes, uncompressed (so that the envelopes and pages are
//! plain bytes the fuzzer can change) and compressed, with several pages, clusters and
//! cluster groups, with and without page checksums; and, for `recover`, an RNTuple and a
//! TTree whose writers never closed them (checkpointed or saved part-way, with clusters
//! or baskets after that).

use std::sync::Arc;

use rootweave::array::LeafType;
use rootweave::container::{FileWriter, WriterOptions};
use rootweave::io::MemoryFile;
use rootweave::rntuple::{ColumnData, Field, FieldType, RNTupleWriter, Value, RNTupleWriteOptions};
use rootweave::ttree::{BranchSpec, TTreeWriteOptions, TTreeWriter};

fn schema() -> Vec<Field> {
    vec![
        Field::new("b", FieldType::Bool),
        Field::new("i16", FieldType::Int16),
        Field::new("i64", FieldType::Int64),
        Field::new("u32", FieldType::UInt32),
        Field::new("f", FieldType::Float32),
        Field::new("d", FieldType::Float64),
        Field::new("s", FieldType::String),
        Field::new("vv", FieldType::vector(FieldType::vector(FieldType::Int32))),
        Field::new("a", FieldType::array(FieldType::Float32, 2)),
        Field::new("o", FieldType::optional(FieldType::UInt8)),
        Field::new("p", FieldType::pair(FieldType::Int8, FieldType::Float64)),
        Field::new(
            "Muon",
            FieldType::untyped_collection(FieldType::untyped_record(vec![
                Field::new("pt", FieldType::Float32),
                Field::new("id", FieldType::vector(FieldType::UInt16)),
            ])),
        ),
    ]
}

fn entry(e: u64) -> Vec<Value> {
    let k = (e % 3) as usize;
    vec![
        Value::Bool(e & 1 == 0),
        Value::Int16(e as i16 - 3),
        Value::Int64(-(e as i64) << 33),
        Value::UInt32(e as u32 * 7),
        Value::Float32(e as f32 * 0.5),
        Value::Float64(e as f64 / 3.0),
        Value::String("ab".repeat(k)),
        Value::List(
            (0..k)
                .map(|j| Value::List((0..j).map(|m| Value::Int32(m as i32)).collect()))
                .collect(),
        ),
        Value::Array(vec![Value::Float32(1.0), Value::Float32(e as f32)]),
        Value::Optional((e % 2 == 1).then(|| Box::new(Value::UInt8(e as u8)))),
        Value::Record(vec![Value::Int8(e as i8), Value::Float64(0.25)]),
        Value::List(
            (0..k)
                .map(|j| {
                    Value::Record(vec![
                        Value::Float32(j as f32),
                        Value::List(vec![Value::UInt16(j as u16)]),
                    ])
                })
                .collect(),
        ),
    ]
}

fn write(
    fields: Vec<Field>,
    entries: u64,
    compression: &str,
    checksums: bool,
    mut value: impl FnMut(u64) -> Vec<Value>,
) -> Vec<u8> {
    let memory = Arc::new(MemoryFile::new());
    let file = Arc::new(
        FileWriter::with_backend(memory.clone(), "seed.root", WriterOptions::default())
            .expect("file"),
    );
    let options = RNTupleWriteOptions::default()
        .with_compression(compression.parse().expect("compression"))
        .with_max_page_size(64)
        .with_page_checksums(checksums);
    let mut w = RNTupleWriter::in_file(file.clone(), "ntpl", fields, options).expect("writer");
    for e in 0..entries {
        w.fill(&value(e)).expect("fill");
        if e % 4 == 3 {
            w.commit_cluster().expect("cluster");
        }
        if e % 8 == 7 {
            w.commit_cluster_group().expect("group");
        }
    }
    w.close().expect("close");
    let Ok(file) = Arc::try_unwrap(file) else {
        panic!("the writer still holds the file");
    };
    file.close().expect("close file");
    memory.to_bytes()
}

fn new_file() -> (Arc<MemoryFile>, Arc<FileWriter>) {
    let memory = Arc::new(MemoryFile::new());
    let file = FileWriter::with_backend(memory.clone(), "seed.root", WriterOptions::default())
        .expect("file");
    (memory, Arc::new(file))
}

/// An RNTuple of ints checkpointed every two clusters of four entries, left open after
/// five clusters: the last cluster is only in its own page list.
fn killed_ntuple() -> Vec<u8> {
    let (memory, file) = new_file();
    let options = RNTupleWriteOptions::default()
        .with_compression("none".parse().expect("compression"))
        .with_checkpoints(0, 2);
    let fields = vec![Field::new("x", FieldType::Int32)];
    let mut w = RNTupleWriter::in_file(file, "ntpl", fields, options).expect("writer");
    for e in 0..20 {
        w.fill(&[Value::Int32(e)]).expect("fill");
        if e % 4 == 3 {
            w.commit_cluster().expect("cluster");
        }
    }
    let bytes = memory.to_bytes();
    std::mem::forget(w);
    bytes
}

/// A tree (a counter and the floats it counts, C strings, vectors) saved when created,
/// left open after three clusters of four entries: its baskets follow the save.
fn killed_tree() -> Vec<u8> {
    let (memory, file) = new_file();
    let branches = vec![
        BranchSpec::scalar("n", LeafType::UInt32),
        BranchSpec::counted("pt", LeafType::Float32, "n", &[]),
        BranchSpec::c_string("s"),
        BranchSpec::vector("v", LeafType::Int32),
    ];
    let options = TTreeWriteOptions::default()
        .with_compression("none".parse().expect("compression"))
        .with_auto_save_bytes(1 << 60);
    let mut w = TTreeWriter::in_file(file, "tree", branches, options).expect("tree");
    for k in 0..3u32 {
        let counts: Vec<u32> = (0..4).map(|e| (k + e) % 3).collect();
        let mut offsets = vec![0u64];
        for &c in &counts {
            offsets.push(offsets.last().expect("offsets") + u64::from(c));
        }
        let items = *offsets.last().expect("offsets") as usize;
        let pt: Vec<f32> = (0..items).map(|i| i as f32 * 0.5).collect();
        let v: Vec<i32> = (0..items as i32).collect();
        let s: Vec<String> = counts.iter().map(|&c| "ab".repeat(c as usize)).collect();
        w.extend(&[
            ColumnData::UInt32(&counts),
            ColumnData::list(&offsets, ColumnData::Float32(&pt)),
            ColumnData::Strings(&s),
            ColumnData::list(&offsets, ColumnData::Int32(&v)),
        ])
        .expect("extend");
        w.end_cluster().expect("cluster");
    }
    let bytes = memory.to_bytes();
    std::mem::forget(w);
    bytes
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: make_seeds DIR");
    std::fs::create_dir_all(&dir).expect("seed folder");
    let int = || vec![Field::new("x", FieldType::Int32)];
    let seeds = [
        (
            "all_types_none_checksums",
            write(schema(), 10, "none", true, entry),
        ),
        ("all_types_none", write(schema(), 10, "none", false, entry)),
        ("all_types_zstd", write(schema(), 10, "zstd:1", true, entry)),
        ("all_types_zlib", write(schema(), 6, "zlib:1", false, entry)),
        ("all_types_lz4", write(schema(), 6, "lz4:1", false, entry)),
        (
            "int_none",
            write(int(), 20, "none", true, |e| vec![Value::Int32(e as i32)]),
        ),
        (
            "int_empty",
            write(int(), 0, "none", true, |e| vec![Value::Int32(e as i32)]),
        ),
        ("int_killed", killed_ntuple()),
        ("tree_killed", killed_tree()),
    ];
    for (name, bytes) in seeds {
        std::fs::write(format!("{dir}/{name}.root"), bytes).expect("write seed");
    }
}
