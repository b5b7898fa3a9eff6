//! RNTuple checkpoints: a writer killed at any moment leaves a file that opens with every
//! entry of its last checkpoint. The writes go to a backend that logs them; the file a
//! kill leaves after any write (or halfway through one) is replayed from the log's prefix
//! and read. (ROOT and uproot read really killed files in tests/python/test_crash_safety.py.)

use std::sync::{Arc, Mutex};

use rootweave::array::Array;
use rootweave::compress::Compression;
use rootweave::container::{FileWriter, RootFile, WriterOptions};
use rootweave::io::{MemoryFile, WriteAt};
use rootweave::rntuple::{
    ColumnData, Field, FieldType, RNTupleParallelOptions, RNTupleParallelWriter, RNTupleReader,
    RNTupleWriteOptions, RNTupleWriter, ReadOptions,
};
use rootweave::Result;

/// A backend that keeps every write, in order.
#[derive(Default)]
struct LoggedWrites {
    writes: Mutex<Vec<(u64, Vec<u8>)>>,
}

impl LoggedWrites {
    fn len(&self) -> usize {
        self.writes.lock().unwrap().len()
    }

    /// The file after the first `n` writes, and the first `partial` bytes of write `n`.
    fn file_after(&self, n: usize, partial: usize) -> Vec<u8> {
        let writes = self.writes.lock().unwrap();
        let mut bytes = Vec::new();
        let mut put = |offset: u64, data: &[u8]| {
            let end = offset as usize + data.len();
            if bytes.len() < end {
                bytes.resize(end, 0);
            }
            bytes[offset as usize..end].copy_from_slice(data);
        };
        for (offset, data) in &writes[..n] {
            put(*offset, data);
        }
        if let Some((offset, data)) = writes.get(n) {
            put(*offset, &data[..partial.min(data.len())]);
        }
        bytes
    }
}

impl WriteAt for LoggedWrites {
    fn write_all_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        self.writes.lock().unwrap().push((offset, buf.to_vec()));
        Ok(())
    }
    fn set_size(&self, _len: u64) -> Result<()> {
        Ok(())
    }
    fn sync(&self) -> Result<()> {
        Ok(())
    }
    fn name(&self) -> String {
        "logged.root".into()
    }
}

fn fields() -> Vec<Field> {
    vec![
        Field::new("id", FieldType::Int64),
        Field::new("v", FieldType::vector(FieldType::Float32)),
    ]
}

/// Entries `first..first + n`: the id, and id % 3 floats of value id.
fn batch(first: i64, n: i64) -> (Vec<i64>, Vec<u64>, Vec<f32>) {
    let ids: Vec<i64> = (first..first + n).collect();
    let mut offsets = vec![0u64];
    let mut values = Vec::new();
    for &i in &ids {
        values.extend(std::iter::repeat_n(i as f32, (i % 3) as usize));
        offsets.push(values.len() as u64);
    }
    (ids, offsets, values)
}

/// The ids of the RNTuple in `bytes`, after checking every entry's vector against its
/// id; `None` if the file does not open (the writer died before its first checkpoint).
fn read_ids(bytes: Vec<u8>) -> Option<Vec<i64>> {
    let root = RootFile::from_source(Arc::new(MemoryFile::from_bytes(bytes))).ok()?;
    let reader = RNTupleReader::from_file(Arc::new(root), "Events", ReadOptions::default())
        .expect("a file that opens has its RNTuple");
    let arrays = reader.read(&["id", "v"], 0..reader.entries()).unwrap();
    let Array::Int64(ids) = &arrays[0].1 else {
        panic!("id is not Int64")
    };
    let Array::List { offsets, values } = &arrays[1].1 else {
        panic!("v is not a list")
    };
    let Array::Float32(values) = values.as_ref() else {
        panic!("v does not hold floats")
    };
    for (k, &id) in ids.iter().enumerate() {
        let items = &values[offsets[k] as usize..offsets[k + 1] as usize];
        assert_eq!(items, vec![id as f32; (id % 3) as usize], "entry {k}");
    }
    Some(ids.clone())
}

/// Replays the file after every write, and with every write cut short: after each mark
/// `(writes so far, checkpointed entries)`, the file reads at least those entries, each
/// once, whole chunks of `chunk` entries (in order if `in_order`). Returns how many of the
/// files opened.
fn check_every_kill(
    log: &LoggedWrites,
    marks: &[(usize, u64)],
    chunk: i64,
    in_order: bool,
) -> usize {
    let mut opened = 0;
    for n in 0..=log.len() {
        let committed = marks
            .iter()
            .filter(|&&(at, _)| at <= n)
            .map(|&(_, e)| e)
            .max()
            .unwrap_or(0);
        for partial in [0, 7] {
            let Some(ids) = read_ids(log.file_after(n, partial)) else {
                assert_eq!(committed, 0, "the file after write {n} does not open");
                continue;
            };
            opened += 1;
            assert!(ids.len() as u64 >= committed, "after write {n}");
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), ids.len(), "an entry twice after write {n}");
            assert!(sorted
                .chunks(chunk as usize)
                .all(|c| c.len() as i64 == chunk
                    && c[0] % chunk == 0
                    && c.windows(2).all(|w| w[1] == w[0] + 1)));
            if in_order {
                assert_eq!(ids, sorted, "after write {n}");
                assert_eq!(ids.first().copied().unwrap_or(0), 0);
            }
        }
    }
    opened
}

fn logged_file() -> (Arc<LoggedWrites>, Arc<FileWriter>) {
    let log = Arc::new(LoggedWrites::default());
    let file = FileWriter::with_backend(log.clone(), "logged.root", WriterOptions::default());
    (log, Arc::new(file.unwrap()))
}

fn write_chunk(writer: &mut RNTupleWriter, first: i64, n: i64) {
    let (ids, offsets, values) = batch(first, n);
    let data = [
        ColumnData::Int64(&ids),
        ColumnData::list(&offsets, ColumnData::Float32(&values)),
    ];
    writer.extend(&data).unwrap();
}

#[test]
fn a_sequential_writer_killed_after_any_write_keeps_its_checkpoints() {
    for compression in [Compression::ROOT_RNTUPLE_DEFAULT, Compression::NONE] {
        let (log, file) = logged_file();
        let options = RNTupleWriteOptions::default()
            .with_compression(compression)
            .with_checkpoints(0, 3);
        let mut writer = RNTupleWriter::in_file(file.clone(), "Events", fields(), options).unwrap();
        let mut marks = vec![];
        for k in 0..10 {
            write_chunk(&mut writer, k * 100, 100);
            writer.commit_cluster().unwrap();
            marks.push((log.len(), writer.checkpointed_entries()));
        }
        // Checkpoints after clusters 3, 6 and 9 (every third cluster).
        let seen: Vec<u64> = marks.iter().map(|m| m.1).collect();
        assert_eq!(seen, [0, 0, 300, 300, 300, 600, 600, 600, 900, 900]);
        // An explicit checkpoint takes the entries not yet in a cluster.
        write_chunk(&mut writer, 1000, 100);
        writer.checkpoint().unwrap();
        assert_eq!(writer.checkpointed_entries(), 1100);
        marks.push((log.len(), 1100));
        writer.close().unwrap();
        Arc::try_unwrap(file).unwrap().close().unwrap();
        marks.push((log.len(), 1100));
        let opened = check_every_kill(&log, &marks, 100, true);
        assert!(opened > log.len(), "{opened} of {} files opened", log.len());
        assert_eq!(read_ids(log.file_after(log.len(), 0)).unwrap().len(), 1100);
    }
}

#[test]
fn checkpoints_by_size_come_after_the_stored_bytes_given() {
    let (log, file) = logged_file();
    let options = RNTupleWriteOptions::default()
        .with_compression(Compression::NONE)
        .with_checkpoints(5000, 0);
    let mut writer = RNTupleWriter::in_file(file, "Events", fields(), options).unwrap();
    let mut checkpointed = vec![];
    for k in 0..8 {
        // 100 ids (800 bytes) and 100 floats (400) plus offsets (800): 2000 bytes a cluster.
        write_chunk(&mut writer, k * 100, 100);
        writer.commit_cluster().unwrap();
        checkpointed.push(writer.checkpointed_entries());
    }
    assert_eq!(checkpointed, [0, 0, 300, 300, 300, 600, 600, 600]);
    drop(log);
}

#[test]
fn a_parallel_writer_killed_after_any_write_keeps_its_checkpoints() {
    let (log, file) = logged_file();
    let write = RNTupleWriteOptions::default().with_checkpoints(0, 2);
    let options = RNTupleParallelOptions::default().with_write(write);
    let writer = RNTupleParallelWriter::in_file(file.clone(), "Events", fields(), options).unwrap();
    let marks = Mutex::new(vec![]);
    std::thread::scope(|s| {
        for t in 0..2 {
            let mut ctx = writer.context();
            let (log, writer, marks) = (&log, &writer, &marks);
            s.spawn(move || {
                for k in (t..16).step_by(2) {
                    let (ids, offsets, values) = batch(k * 50, 50);
                    let data = [
                        ColumnData::Int64(&ids),
                        ColumnData::list(&offsets, ColumnData::Float32(&values)),
                    ];
                    ctx.extend(&data).unwrap();
                    ctx.commit_cluster().unwrap();
                    let mut marks = marks.lock().unwrap();
                    marks.push((log.len(), writer.checkpointed_entries()));
                }
            });
        }
    });
    writer.checkpoint().unwrap();
    assert_eq!(writer.checkpointed_entries(), 800);
    let mut marks = marks.into_inner().unwrap();
    marks.push((log.len(), 800));
    assert!(marks.iter().any(|m| m.1 > 0 && m.1 < 800), "{marks:?}");
    writer.close().unwrap();
    Arc::try_unwrap(file).unwrap().close().unwrap();
    check_every_kill(&log, &marks, 50, false);
    assert_eq!(read_ids(log.file_after(log.len(), 0)).unwrap().len(), 800);
}
