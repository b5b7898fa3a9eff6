//! Faults while writing: a full disk, an I/O error and a short write (from a backend that
//! injects them) give an error naming the file, never a hang, and lose nothing the writer
//! had checkpointed (RNTuple) or auto-saved (TTree); a reader on a file still being
//! written reads its last checkpoint. (A real full tmpfs: tests/python/test_faults.py.)

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use rootweave::array::{Array, LeafType};
use rootweave::container::{FileWriter, RootFile, WriterOptions};
use rootweave::io::{MemoryFile, WriteAt};
use rootweave::recover::recover_into;
use rootweave::rntuple::{
    ColumnData, Field, FieldType, RNTupleParallelOptions, RNTupleParallelWriter, RNTupleReader,
    RNTupleWriteOptions, RNTupleWriter, ReadOptions,
};
use rootweave::ttree::{BranchSpec, TTreeReader, TTreeWriteOptions, TTreeWriter};
use rootweave::{Error, Result};

/// What the backend does wrong.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// Writes past this many bytes of the file fail with ENOSPC.
    DiskFull(u64),
    /// Write number `n` (from 0) and every later one fail with EIO.
    IoError(u64),
    /// Write number `n` stores half its bytes, then fails with ENOSPC; later ones too.
    ShortWrite(u64),
}

/// A file in memory that fails as its [`Fault`] says.
struct Faulty {
    memory: MemoryFile,
    fault: Fault,
    writes: AtomicU64,
}

impl Faulty {
    fn new(fault: Fault) -> Arc<Self> {
        Arc::new(Faulty {
            memory: MemoryFile::new(),
            fault,
            writes: AtomicU64::new(0),
        })
    }

    fn fail(&self, code: i32) -> Result<()> {
        Err(Error::Io {
            path: PathBuf::from(self.name()),
            source: std::io::Error::from_raw_os_error(code),
        })
    }
}

const ENOSPC: i32 = 28;
const EIO: i32 = 5;

impl WriteAt for Faulty {
    fn write_all_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        let n = self.writes.fetch_add(1, Ordering::SeqCst);
        match self.fault {
            Fault::DiskFull(limit) if offset + buf.len() as u64 > limit => {
                let room = limit.saturating_sub(offset) as usize;
                self.memory
                    .write_all_at(&buf[..room.min(buf.len())], offset)?;
                self.fail(ENOSPC)
            }
            Fault::IoError(at) if n >= at => self.fail(EIO),
            Fault::ShortWrite(at) if n >= at => {
                self.memory.write_all_at(&buf[..buf.len() / 2], offset)?;
                self.fail(ENOSPC)
            }
            _ => self.memory.write_all_at(buf, offset),
        }
    }
    fn set_size(&self, len: u64) -> Result<()> {
        self.memory.set_size(len)
    }
    fn sync(&self) -> Result<()> {
        Ok(())
    }
    fn name(&self) -> String {
        "faulty.root".into()
    }
}

/// Runs `f` on a thread of its own and fails the test if it takes more than a minute.
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(Duration::from_secs(60))
        .expect("the writer hung (or panicked)")
}

fn ids_batch(first: i64, n: i64) -> Vec<i64> {
    (first..first + n).collect()
}

/// The ids of RNTuple `Events` in `bytes`, or of its recovered file if it does not open.
fn ntuple_ids(bytes: Vec<u8>) -> Vec<i64> {
    let read = |bytes: Vec<u8>| -> Result<Vec<i64>> {
        let root = RootFile::from_source(Arc::new(MemoryFile::from_bytes(bytes)))?;
        let reader = RNTupleReader::from_file(Arc::new(root), "Events", ReadOptions::default())?;
        match reader.read(&["id"], 0..reader.entries())?.remove(0).1 {
            Array::Int64(ids) => Ok(ids),
            other => panic!("id read as {other:?}"),
        }
    };
    read(bytes.clone()).unwrap_or_else(|_| {
        let target = Arc::new(MemoryFile::new());
        match recover_into(
            Arc::new(MemoryFile::from_bytes(bytes)),
            target.clone(),
            "faulty.root",
        ) {
            Ok(_) => read(target.to_bytes()).expect("a recovered file reads"),
            Err(_) => vec![],
        }
    })
}

fn assert_names_the_file(e: &Error, cause: &str) {
    let text = e.to_string();
    assert!(text.contains("faulty.root"), "{text}");
    assert!(text.contains(cause), "{text}");
}

/// A sequential RNTuple writer on `fault`: clusters of 1000 ids, a checkpoint every
/// second one, until a write fails. Returns the error and the ids readable afterwards,
/// and the entries checkpointed before the failure.
fn sequential_ntuple(fault: Fault) -> (Error, Vec<i64>, u64) {
    within_a_minute(move || {
        let backend = Faulty::new(fault);
        let file =
            FileWriter::with_backend(backend.clone(), "faulty.root", WriterOptions::default())
                .map(Arc::new);
        let file = match file {
            Ok(file) => file,
            Err(e) => return (e, vec![], 0),
        };
        let fields = vec![Field::new("id", FieldType::Int64)];
        let options = RNTupleWriteOptions::default().with_checkpoints(0, 2);
        let mut writer = match RNTupleWriter::in_file(file, "Events", fields, options) {
            Ok(w) => w,
            Err(e) => return (e, vec![], 0),
        };
        let mut checkpointed = 0;
        for k in 0.. {
            let ids = ids_batch(k * 1000, 1000);
            let step = writer
                .extend(&[ColumnData::Int64(&ids)])
                .and_then(|()| writer.commit_cluster());
            if let Err(e) = step {
                drop(writer);
                return (e, ntuple_ids(backend.memory.to_bytes()), checkpointed);
            }
            checkpointed = writer.checkpointed_entries();
        }
        unreachable!()
    })
}

#[test]
fn a_full_disk_an_io_error_and_a_short_write_keep_the_checkpoints_of_an_rntuple() {
    let faults = [
        (Fault::DiskFull(60_000), "No space left"),
        (Fault::DiskFull(200), "No space left"),
        (Fault::IoError(60), "Input/output error"),
        (Fault::IoError(0), "Input/output error"),
        (Fault::ShortWrite(31), "No space left"),
    ];
    for (fault, cause) in faults {
        let (e, ids, checkpointed) = sequential_ntuple(fault);
        assert_names_the_file(&e, cause);
        assert!(ids.len() as u64 >= checkpointed, "{fault:?}");
        assert_eq!(ids, (0..ids.len() as i64).collect::<Vec<_>>(), "{fault:?}");
        if matches!(fault, Fault::DiskFull(60_000) | Fault::IoError(60)) {
            assert!(checkpointed > 0, "{fault:?}");
        }
    }
}

#[test]
fn a_parallel_rntuple_writer_on_a_full_disk_reports_it_and_does_not_hang() {
    let (errors, ids) = within_a_minute(|| {
        let backend = Faulty::new(Fault::DiskFull(300_000));
        let file = Arc::new(
            FileWriter::with_backend(backend.clone(), "faulty.root", WriterOptions::default())
                .unwrap(),
        );
        let fields = vec![Field::new("id", FieldType::Int64)];
        let write = RNTupleWriteOptions::default().with_checkpoints(0, 2);
        let options = RNTupleParallelOptions::default()
            .with_write(write)
            .with_memory_budget(4 << 20);
        let writer = RNTupleParallelWriter::in_file(file, "Events", fields, options).unwrap();
        let errors: Vec<Error> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2i64)
                .map(|t| {
                    let mut ctx = writer.context();
                    s.spawn(move || {
                        for k in (t..10_000).step_by(2) {
                            let ids = ids_batch(k * 1000, 1000);
                            let step = ctx
                                .extend(&[ColumnData::Int64(&ids)])
                                .and_then(|()| ctx.commit_cluster());
                            if let Err(e) = step {
                                return Some(e);
                            }
                        }
                        None
                    })
                })
                .collect();
            handles
                .into_iter()
                .filter_map(|h| h.join().unwrap())
                .collect()
        });
        let checkpointed = writer.checkpointed_entries();
        let closed = writer.close();
        let mut errors = errors;
        errors.extend(closed.err());
        let ids = ntuple_ids(backend.memory.to_bytes());
        assert!(ids.len() as u64 >= checkpointed);
        (errors, ids)
    });
    assert!(!errors.is_empty());
    for e in &errors {
        assert_names_the_file(e, "No space left");
    }
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), ids.len(), "an entry twice");
}

#[test]
fn a_ttree_writer_on_a_full_disk_keeps_its_last_auto_save() {
    let (e, bytes, saved) = within_a_minute(|| {
        let backend = Faulty::new(Fault::DiskFull(150_000));
        let file = Arc::new(
            FileWriter::with_backend(backend.clone(), "faulty.root", WriterOptions::default())
                .unwrap(),
        );
        let options = TTreeWriteOptions::default().with_auto_save_bytes(20_000);
        let branches = vec![BranchSpec::scalar("id", LeafType::Int64)];
        let mut writer = TTreeWriter::in_file(file, "Events", branches, options).unwrap();
        let mut saved = 0;
        for k in 0.. {
            let ids = ids_batch(k * 1000, 1000);
            let step = writer
                .extend(&[ColumnData::Int64(&ids)])
                .and_then(|()| writer.end_cluster());
            if let Err(e) = step {
                return (e, backend.memory.to_bytes(), saved);
            }
            saved = writer.saved_entries();
        }
        unreachable!()
    });
    assert_names_the_file(&e, "No space left");
    assert!(saved > 0);
    let dir = std::env::temp_dir().join(format!("rootweave-faults-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("full.root");
    std::fs::write(&path, bytes).unwrap();
    let reader = TTreeReader::open(&path, "Events").unwrap();
    assert!(reader.entries() >= saved);
    let ids = reader
        .read(&["id"], 0..reader.entries())
        .unwrap()
        .remove(0)
        .1;
    assert_eq!(ids, Array::Int64((0..reader.entries() as i64).collect()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_reader_on_a_file_being_written_reads_its_last_checkpoint() {
    let dir = std::env::temp_dir().join(format!("rootweave-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("live.root");
    let writing = path.clone();
    let writer = std::thread::spawn(move || {
        let fields = vec![Field::new("id", FieldType::Int64)];
        let options = RNTupleWriteOptions::default().with_checkpoints(0, 1);
        let mut w = RNTupleWriter::recreate(&writing, "Events", fields, options).unwrap();
        for k in 0..200 {
            let ids = ids_batch(k * 500, 500);
            w.extend(&[ColumnData::Int64(&ids)]).unwrap();
            w.commit_cluster().unwrap();
            std::thread::sleep(Duration::from_millis(2));
        }
        w.close().unwrap();
    });
    let reading = path.clone();
    let seen = within_a_minute(move || {
        let mut seen = 0u64;
        while !writer.is_finished() || seen < 100_000 {
            match RNTupleReader::open(&reading, "Events") {
                Ok(reader) => {
                    let n = reader.entries();
                    let ids = reader.read(&["id"], 0..n).unwrap().remove(0).1;
                    assert_eq!(ids, Array::Int64((0..n as i64).collect()));
                    assert!(n >= seen, "entries went back from {seen} to {n}");
                    seen = n;
                }
                Err(e) => {
                    assert!(seen == 0, "a checkpointed file stopped opening: {e}");
                    assert!(e.to_string().contains("live.root"), "{e}");
                }
            }
        }
        writer.join().unwrap();
        seen
    });
    assert_eq!(seen, 100_000);
    std::fs::remove_dir_all(&dir).unwrap();
}
