//! The RNTuple writer refuses values that do not match the schema without writing anything
//! partial, and what it writes has the layout the anchor promises. (The values themselves
//! are checked against ROOT and uproot in tests/python.)

use std::sync::Arc;

use rootweave::array::Array;
use rootweave::compress::Compression;
use rootweave::container::{FileWriter, RootFile, WriterOptions};
use rootweave::io::MemoryFile;
use rootweave::rntuple::{
    ColumnData, Field, FieldType, RNTupleReader, RNTupleWriteOptions, RNTupleWriter, Value,
};
use rootweave::ReadOptions;

mod written;

fn schema() -> Vec<Field> {
    vec![
        Field::new("x", FieldType::Int32),
        Field::new("v", FieldType::vector(FieldType::Float32)),
        Field::new("o", FieldType::optional(FieldType::String)),
        Field::new("a", FieldType::array(FieldType::UInt16, 2)),
    ]
}

fn memory_writer(
    options: RNTupleWriteOptions,
) -> (Arc<MemoryFile>, Arc<FileWriter>, RNTupleWriter) {
    let memory = Arc::new(MemoryFile::new());
    let file = Arc::new(
        FileWriter::with_backend(memory.clone(), "test.root", WriterOptions::default()).unwrap(),
    );
    let writer = RNTupleWriter::in_file(file.clone(), "ntpl", schema(), options).unwrap();
    (memory, file, writer)
}

fn good_batch<'a>(
    x: &'a [i32],
    offsets: &'a [u64],
    v: &'a [f32],
    o: &'a [u64],
    s: &'a [String],
    a: &'a [u16],
) -> Vec<ColumnData<'a>> {
    vec![
        ColumnData::Int32(x),
        ColumnData::list(offsets, ColumnData::Float32(v)),
        ColumnData::list(o, ColumnData::Strings(s)),
        ColumnData::array(ColumnData::UInt16(a)),
    ]
}

#[test]
fn mismatched_batches_are_refused_and_nothing_is_written() {
    let (_, _, mut w) = memory_writer(RNTupleWriteOptions::default());
    let x = [1, 2, 3];
    let v = [1.0f32, 2.0, 3.0];
    let s = vec!["a".to_string()];
    let a = [1u16, 2, 3, 4, 5, 6];
    w.extend(&good_batch(&x, &[0, 1, 1, 3], &v, &[0, 0, 1, 1], &s, &a))
        .unwrap();
    assert_eq!(w.entries(), 3);

    let expect_error = |w: &mut RNTupleWriter, batch: Vec<ColumnData>, words: &str| {
        let err = w.extend(&batch).unwrap_err().to_string();
        assert!(err.contains(words), "'{err}' lacks '{words}'");
        assert_eq!(w.entries(), 3, "a refused batch must not add entries");
    };
    // Wrong type for x.
    let mut batch = good_batch(&x, &[0, 1, 1, 3], &v, &[0, 0, 1, 1], &s, &a);
    batch[0] = ColumnData::Float32(&v);
    expect_error(&mut w, batch, "field 'x'");
    // Decreasing offsets.
    expect_error(
        &mut w,
        good_batch(&x, &[0, 2, 1, 3], &v, &[0, 0, 1, 1], &s, &a),
        "decrease",
    );
    // Offsets past the items.
    expect_error(
        &mut w,
        good_batch(&x, &[0, 1, 1, 4], &v, &[0, 0, 1, 1], &s, &a),
        "only 3 items",
    );
    // Too few offsets for the entries.
    expect_error(
        &mut w,
        good_batch(&x, &[0, 1, 1], &v, &[0, 0, 1, 1], &s, &a),
        "different numbers of entries",
    );
    // An optional with two items.
    let s2 = vec!["a".to_string(), "b".to_string()];
    expect_error(
        &mut w,
        good_batch(&x, &[0, 1, 1, 3], &v, &[0, 2, 2, 2], &s2, &a),
        "at most 1",
    );
    // An array whose items are not a multiple of its size.
    expect_error(
        &mut w,
        good_batch(&x, &[0, 1, 1, 3], &v, &[0, 0, 1, 1], &s, &a[..5]),
        "multiple",
    );
    // Wrong number of columns.
    let err = w.extend(&[ColumnData::Int32(&x)]).unwrap_err();
    assert!(err.to_string().contains("4 fields"));
}

#[test]
fn mismatched_entries_are_refused() {
    let (_, _, mut w) = memory_writer(RNTupleWriteOptions::default());
    let good = vec![
        Value::Int32(1),
        Value::List(vec![Value::Float32(1.0)]),
        Value::Optional(Some(Box::new(Value::String("s".into())))),
        Value::Array(vec![Value::UInt16(1), Value::UInt16(2)]),
    ];
    w.fill(&good).unwrap();
    let mut bad = good.clone();
    bad[1] = Value::List(vec![Value::Float64(1.0)]);
    assert!(w
        .fill(&bad)
        .unwrap_err()
        .to_string()
        .contains("field 'v._0'"));
    let mut bad = good.clone();
    bad[3] = Value::Array(vec![Value::UInt16(1)]);
    assert!(w.fill(&bad).is_err());
    assert!(w.fill(&good[..3]).is_err());
    assert_eq!(w.entries(), 1);
}

#[test]
fn invalid_schemas_and_options_are_refused() {
    let memory = Arc::new(MemoryFile::new());
    let file =
        Arc::new(FileWriter::with_backend(memory, "t.root", WriterOptions::default()).unwrap());
    for bad_name in ["a.b", "dir/", "a b", ""] {
        assert!(
            RNTupleWriter::in_file(
                file.clone(),
                bad_name,
                schema(),
                RNTupleWriteOptions::default()
            )
            .is_err(),
            "{bad_name}"
        );
    }
    let bad_field = vec![Field::new("x y", FieldType::Int32)];
    assert!(
        RNTupleWriter::in_file(file.clone(), "n", bad_field, RNTupleWriteOptions::default())
            .is_err()
    );
    let tiny_key = RNTupleWriteOptions::default().with_max_key_size(100);
    assert!(RNTupleWriter::in_file(file, "n", schema(), tiny_key).is_err());
}

/// An `RVec` field (RDataFrame's lists, as its RNTuple snapshots write them) is named so and
/// reads back as the list it is.
#[test]
fn rvec_fields_are_named_so_and_read_back_as_lists() {
    let ty = FieldType::RVec(Box::new(FieldType::Float32));
    assert_eq!(ty.type_name(), "ROOT::VecOps::RVec<float>");
    let v = [1.0f32, 2.0, 3.0];
    let arrays = written_and_read(
        vec![Field::new("v", ty)],
        &[ColumnData::list(&[0, 2, 2, 3], ColumnData::Float32(&v))],
    );
    assert_eq!(
        arrays,
        [Array::List {
            offsets: vec![0, 2, 2, 3],
            values: Box::new(Array::Float32(v.to_vec()))
        }]
    );
}

/// `char` fields (ROOT's type for `char` and `Char_t`) hold C++'s signed characters.
#[test]
fn char_fields_are_named_so_and_read_back_as_signed_bytes() {
    let ty = FieldType::vector(FieldType::Char);
    assert_eq!(ty.type_name(), "std::vector<char>");
    let (c, v) = ([b'a' as i8, -3, 127], [-128i8, 0, 65]);
    let arrays = written_and_read(
        vec![Field::new("c", FieldType::Char), Field::new("v", ty)],
        &[
            ColumnData::Int8(&c),
            ColumnData::list(&[0, 2, 2, 3], ColumnData::Int8(&v)),
        ],
    );
    assert_eq!(arrays[0], Array::Int8(c.to_vec()));
    assert_eq!(
        arrays[1],
        Array::List {
            offsets: vec![0, 2, 2, 3],
            values: Box::new(Array::Int8(v.to_vec()))
        }
    );
}

/// The arrays of every field of an RNTuple written in memory with `fields` and one batch
/// of three entries, `batch`, read back.
fn written_and_read(fields: Vec<Field>, batch: &[ColumnData]) -> Vec<Array> {
    let names: Vec<String> = fields.iter().map(|f| f.name.clone()).collect();
    let (memory, file) = written::file_in_memory("read-back.root");
    let mut w = RNTupleWriter::in_file(file.clone(), "n", fields, Default::default()).unwrap();
    w.extend(batch).unwrap();
    w.close().unwrap();
    Arc::try_unwrap(file).unwrap().close().unwrap();
    let bytes = Arc::new(MemoryFile::from_bytes(memory.to_bytes()));
    let root = Arc::new(RootFile::from_source(bytes).unwrap());
    let reader = RNTupleReader::from_file(root, "n", ReadOptions::default()).unwrap();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let arrays = reader.read(&names, 0..3).unwrap();
    arrays.into_iter().map(|(_, a)| a).collect()
}

#[test]
fn a_path_puts_the_rntuple_in_directories() {
    let memory = Arc::new(MemoryFile::new());
    let file = Arc::new(
        FileWriter::with_backend(memory.clone(), "t.root", WriterOptions::default()).unwrap(),
    );
    for (path, n) in [("dir/sub/n", 3), ("dir/n", 2)] {
        let fields = vec![Field::new("x", FieldType::Int32)];
        let mut w =
            RNTupleWriter::in_file(file.clone(), path, fields, RNTupleWriteOptions::default())
                .unwrap();
        let x: Vec<i32> = (0..n).collect();
        w.extend(&[ColumnData::Int32(&x)]).unwrap();
        w.close().unwrap();
    }
    Arc::try_unwrap(file).unwrap().close().unwrap();
    let bytes = Arc::new(MemoryFile::from_bytes(memory.to_bytes()));
    let root = Arc::new(RootFile::from_source(bytes).unwrap());
    assert_eq!(
        root.get_key("dir/sub/n").unwrap().class_name,
        "ROOT::RNTuple"
    );
    assert!(root.get_key("n").is_err());
    for (path, n) in [("dir/sub/n", 3u64), ("dir/n", 2)] {
        let reader = RNTupleReader::from_file(root.clone(), path, ReadOptions::default()).unwrap();
        assert_eq!(reader.entries(), n, "{path}");
    }
}

#[test]
fn anchor_key_points_at_header_and_footer() {
    let (memory, file, mut w) =
        memory_writer(RNTupleWriteOptions::default().with_compression(Compression::NONE));
    let x: Vec<i32> = (0..1000).collect();
    let offsets: Vec<u64> = (0..=1000).collect();
    let v: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    let o = vec![0u64; 1001];
    let a = vec![7u16; 2000];
    w.extend(&good_batch(&x, &offsets, &v, &o, &[], &a))
        .unwrap();
    let summary = w.close().unwrap();
    assert_eq!(summary.entries, 1000);
    assert_eq!(summary.clusters, 1);
    Arc::try_unwrap(file).unwrap().close().unwrap();

    let bytes = memory.to_bytes();
    let root = RootFile::from_source(Arc::new(MemoryFile::from_bytes(bytes.clone()))).unwrap();
    let key = root.get_key("ntpl").unwrap();
    assert_eq!(key.class_name, "ROOT::RNTuple");
    let anchor = root.read_object(&key).unwrap();
    assert_eq!(anchor.len(), 78);
    let u64_at = |i: usize| u64::from_be_bytes(anchor[i..i + 8].try_into().unwrap());
    let (seek_header, len_header) = (u64_at(14) as usize, u64_at(30) as usize);
    let (seek_footer, len_footer) = (u64_at(38) as usize, u64_at(54) as usize);
    // Uncompressed envelopes: type in the low 16 bits, total length above.
    let preamble = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    assert_eq!(preamble(seek_header) & 0xffff, 1);
    assert_eq!((preamble(seek_header) >> 16) as usize, len_header);
    assert_eq!(preamble(seek_footer) & 0xffff, 2);
    assert_eq!((preamble(seek_footer) >> 16) as usize, len_footer);
    // The plain int32 page holds the values as they are.
    let page: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert!(bytes.windows(page.len()).any(|w| w == page));
}

#[test]
fn pages_repeated_in_later_clusters_point_at_the_first_copy() {
    for compression in ["none", "zstd:5"] {
        let (memory, file) = written::file_in_memory("test.root");
        let fields = vec![
            Field::new("x", FieldType::Int32),
            Field::new("flag", FieldType::Int32),
        ];
        let options = RNTupleWriteOptions::default().with_compression(compression.parse().unwrap());
        let mut w = RNTupleWriter::in_file(file.clone(), "ntpl", fields, options).unwrap();
        // Five clusters of 1000 entries: `flag` is 7 in the first four, 8 in the last.
        for c in 0..5 {
            let x: Vec<i32> = (c * 1000..(c + 1) * 1000).collect();
            let flag = vec![if c < 4 { 7 } else { 8 }; 1000];
            w.extend(&[ColumnData::Int32(&x), ColumnData::Int32(&flag)])
                .unwrap();
            w.commit_cluster().unwrap();
        }
        assert_eq!(w.close().unwrap().clusters, 5);
        Arc::try_unwrap(file).unwrap().close().unwrap();

        let (reader, offsets) = written::page_offsets(memory.to_bytes(), "ntpl");
        let (x, flag): (Vec<u64>, Vec<u64>) = offsets
            .iter()
            .map(|columns| (columns[0][0], columns[1][0]))
            .unzip();
        assert_eq!(flag[1..4], [flag[0]; 3], "{compression}: flag pages of 7s");
        assert_ne!(flag[4], flag[0], "{compression}: the page of 8s is its own");
        let mut distinct = x.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), 5, "{compression}: x pages differ");
        // Every cluster reads its own values through the shared locators.
        let arrays = reader.read(&["x", "flag"], 0..5000).unwrap();
        let expected_flag: Vec<i32> = (0..5000).map(|i| if i < 4000 { 7 } else { 8 }).collect();
        match (&arrays[0].1, &arrays[1].1) {
            (rootweave::array::Array::Int32(x), rootweave::array::Array::Int32(f)) => {
                assert_eq!(*x, (0..5000).collect::<Vec<i32>>());
                assert_eq!(*f, expected_flag);
            }
            other => panic!("read as {other:?}"),
        }
    }
}

/// A page whose xz check disagrees with its data is refused even where the page checksum
/// (recomputed here over the altered bytes) is right: the reader verifies every check
/// the file carries, and skips them all only when asked.
#[test]
fn block_checks_are_verified_under_a_valid_page_checksum() {
    use rootweave::rntuple::format::checksum::xxh3_64;
    use rootweave::rntuple::{RNTupleReader, ReadOptions};

    let (memory, file) = written::file_in_memory("checks.root");
    let options = RNTupleWriteOptions::default().with_compression("lzma:7".parse().unwrap());
    let fields = vec![Field::new("x", FieldType::Int32)];
    let mut w = RNTupleWriter::in_file(file.clone(), "ntpl", fields, options).unwrap();
    let x: Vec<i32> = (0..20_000).map(|i| i % 1000).collect();
    w.extend(&[ColumnData::Int32(&x)]).unwrap();
    w.close().unwrap();
    Arc::try_unwrap(file).unwrap().close().unwrap();

    let mut bytes = memory.to_bytes();
    let (_, pages) = written::pages_by_cluster(bytes.clone(), "ntpl", |p| (p.offset, p.size));
    let (offset, size) = pages[0][0][0];
    let (start, end) = (offset as usize, (offset + size) as usize);
    // The xz stream ends with its check (CRC32 of the data), the index and a 12-byte
    // footer whose bytes 4..8 give the index's size in 4-byte units, minus one.
    let footer = end - 12;
    let backward = u32::from_le_bytes(bytes[footer + 4..footer + 8].try_into().unwrap());
    let check_at = footer - (backward as usize + 1) * 4 - 4;
    bytes[check_at] ^= 0x55;
    let checksum = xxh3_64(&bytes[start..end]);
    bytes[end..end + 8].copy_from_slice(&checksum.to_le_bytes());

    let open = |verify: bool| {
        let root = RootFile::from_source(Arc::new(MemoryFile::from_bytes(bytes.clone()))).unwrap();
        let options = ReadOptions::default().with_verify_checksums(verify);
        RNTupleReader::from_file(Arc::new(root), "ntpl", options).unwrap()
    };
    let e = open(true).read(&["x"], 0..20_000).unwrap_err().to_string();
    assert!(e.contains("corrupt xz block"), "{e}");
    let arrays = open(false).read(&["x"], 0..20_000).unwrap();
    assert_eq!(arrays[0].1, rootweave::array::Array::Int32(x));
}
