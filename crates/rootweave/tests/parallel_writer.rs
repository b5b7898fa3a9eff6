//! The parallel writer in process: write errors reach the producer and `close`, nothing
//! hangs; bad batches are refused per context; the budget is kept. (Files are read back
//! by ROOT and uproot in tests/python/test_parallel_writer.py.)

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rootweave::container::{FileWriter, WriterOptions};
use rootweave::io::{MemoryFile, WriteAt};
use rootweave::rntuple::{
    ColumnData, Field, FieldType, RNTupleParallelOptions, RNTupleParallelWriter,
};
use rootweave::{Error, Result};

mod written;

/// A disk that is full past `capacity` bytes.
struct FullDisk {
    inner: MemoryFile,
    capacity: u64,
    failures: AtomicU64,
}

impl WriteAt for FullDisk {
    fn write_all_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        if offset + buf.len() as u64 > self.capacity {
            self.failures.fetch_add(1, Ordering::Relaxed);
            return Err(Error::Io {
                path: "full.root".into(),
                source: std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    "no space left on device",
                ),
            });
        }
        self.inner.write_all_at(buf, offset)
    }
    fn set_size(&self, len: u64) -> Result<()> {
        self.inner.set_size(len)
    }
    fn sync(&self) -> Result<()> {
        Ok(())
    }
    fn name(&self) -> String {
        "full.root".into()
    }
}

fn fields() -> Vec<Field> {
    vec![Field::new("x", FieldType::Int64)]
}

/// A parallel writer of the RNTuple `name` into a file in memory.
fn in_memory(
    name: &str,
    fields: Vec<Field>,
    options: RNTupleParallelOptions,
) -> RNTupleParallelWriter {
    let file = FileWriter::with_backend(
        Arc::new(MemoryFile::new()),
        &format!("{name}.root"),
        WriterOptions::default(),
    )
    .unwrap();
    RNTupleParallelWriter::in_file(Arc::new(file), name, fields, options).unwrap()
}

#[test]
fn a_full_disk_is_reported_to_producers_and_at_close_without_hanging() {
    let disk = Arc::new(FullDisk {
        inner: MemoryFile::new(),
        capacity: 3 << 20,
        failures: AtomicU64::new(0),
    });
    let file = Arc::new(
        FileWriter::with_backend(disk.clone(), "full.root", WriterOptions::default()).unwrap(),
    );
    let mut options = RNTupleParallelOptions::default();
    options.write.compression = rootweave::compress::Compression::NONE;
    options.write.cluster_target_size = 256 << 10;
    options.memory_budget = 2 << 20;
    let writer = RNTupleParallelWriter::in_file(file, "ntpl", fields(), options).unwrap();
    let producer_errors = AtomicU64::new(0);
    std::thread::scope(|s| {
        for t in 0..4i64 {
            let mut ctx = writer.context();
            let producer_errors = &producer_errors;
            s.spawn(move || {
                let values: Vec<i64> = (0..10_000).map(|i| i * t).collect();
                for _ in 0..40 {
                    if ctx.extend(&[ColumnData::Int64(&values)]).is_err() {
                        producer_errors.fetch_add(1, Ordering::Relaxed);
                        return;
                    }
                }
            });
        }
    });
    assert!(
        producer_errors.load(Ordering::Relaxed) > 0,
        "producers must see the write error"
    );
    let err = writer.close().unwrap_err().to_string();
    assert!(err.contains("no space left"), "{err}");
    assert!(disk.failures.load(Ordering::Relaxed) > 0);
}

#[test]
fn bad_batches_are_refused_and_other_contexts_go_on() {
    let memory = Arc::new(MemoryFile::new());
    let file =
        Arc::new(FileWriter::with_backend(memory, "m.root", WriterOptions::default()).unwrap());
    let writer = RNTupleParallelWriter::in_file(
        file.clone(),
        "ntpl",
        fields(),
        RNTupleParallelOptions::default(),
    )
    .unwrap();
    let mut good = writer.context();
    let mut bad = writer.context();
    assert!(bad.extend(&[ColumnData::Float32(&[1.0])]).is_err());
    good.extend(&[ColumnData::Int64(&[1, 2, 3])]).unwrap();
    assert!(
        good.extend_sequence(0, &[ColumnData::Int64(&[4])]).is_err(),
        "not an ordered writer"
    );
    drop(good);
    drop(bad);
    let summary = writer.close().unwrap();
    assert_eq!(summary.entries, 3);
}

#[test]
fn ordered_sequences_may_be_skipped_and_not_reused() {
    let memory = Arc::new(MemoryFile::new());
    let file =
        Arc::new(FileWriter::with_backend(memory, "m.root", WriterOptions::default()).unwrap());
    let options = RNTupleParallelOptions::default().with_ordered(true);
    let writer = RNTupleParallelWriter::in_file(file, "ntpl", fields(), options).unwrap();
    let mut ctx = writer.context();
    ctx.extend_sequence(2, &[ColumnData::Int64(&[20])]).unwrap();
    assert_eq!(
        writer.committed_entries(),
        0,
        "sequence 2 waits for 0 and 1"
    );
    ctx.extend_sequence(0, &[ColumnData::Int64(&[0])]).unwrap();
    assert_eq!(writer.committed_entries(), 1);
    ctx.skip_sequence(1).unwrap();
    assert_eq!(writer.committed_entries(), 2, "skipping 1 releases 2");
    assert!(ctx.extend_sequence(0, &[ColumnData::Int64(&[0])]).is_err());
    assert!(
        ctx.extend(&[ColumnData::Int64(&[0])]).is_err(),
        "ordered writers need sequences"
    );
    drop(ctx);
    assert_eq!(writer.close().unwrap().entries, 2);
}

#[test]
fn many_columns_and_contexts_never_take_more_than_the_budget() {
    // 300 float columns, 16 contexts on 4 threads, an 8 MiB budget: page buffers alone
    // would be 300 MiB per context at the default 1 MiB pages.
    let fields: Vec<Field> = (0..300)
        .map(|i| Field::new(format!("f{i}"), FieldType::Float32))
        .collect();
    let options = RNTupleParallelOptions::default().with_memory_budget(8 << 20);
    let writer = in_memory("wide", fields, options);
    let column: Vec<f32> = (0..3000).map(|i| i as f32 * 0.25).collect();
    std::thread::scope(|s| {
        for _ in 0..4 {
            let mut contexts: Vec<_> = (0..4).map(|_| writer.context()).collect();
            let column = &column;
            s.spawn(move || {
                let batch: Vec<ColumnData> =
                    (0..300).map(|_| ColumnData::Float32(column)).collect();
                for round in 0..12 {
                    contexts[round % 4].extend(&batch).unwrap();
                }
            });
        }
    });
    let peak = writer.budget().peak();
    let summary = writer.close().unwrap();
    assert_eq!(summary.entries, 16 * 3 * 3000);
    assert!(peak > 0 && peak <= 8 << 20, "peak {peak} over the budget");
}

/// The bits of `i` scrambled by splitmix64's output function: incompressible values.
fn scrambled(i: u64) -> i64 {
    let z = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as i64
}

/// Writes `columns` int64 columns of `entries` entries (bits of a counter scrambled, which
/// no codec compresses) from one context under a 64 MiB budget with `compression`;
/// returns the number of clusters.
fn clusters_of_one_context(
    columns: usize,
    entries: usize,
    compression: rootweave::compress::Compression,
) -> u64 {
    let fields: Vec<Field> = (0..columns)
        .map(|i| Field::new(format!("c{i}"), FieldType::Int64))
        .collect();
    let mut options = RNTupleParallelOptions::default().with_memory_budget(64 << 20);
    options.write.compression = compression;
    let writer = in_memory("target", fields, options);
    let values: Vec<i64> = (0..entries as u64).map(scrambled).collect();
    let mut context = writer.context();
    for chunk in values.chunks(1 << 16) {
        let batch: Vec<ColumnData> = (0..columns).map(|_| ColumnData::Int64(chunk)).collect();
        context.extend(&batch).unwrap();
    }
    drop(context);
    let summary = writer.close().unwrap();
    assert_eq!(summary.entries, entries as u64);
    summary.clusters
}

#[test]
fn clusters_are_committed_at_a_quarter_of_a_context_s_budget_share_but_two_pages_per_column() {
    use rootweave::compress::Compression;
    let lz4 = "lz4:1".parse::<Compression>().unwrap();
    // One column, 40 MB: a cluster per 16 MiB (a quarter of the 64 MiB budget), not one
    // cluster of all of it written at close (the target alone is 128 MiB).
    assert_eq!(clusters_of_one_context(1, 5_000_000, Compression::NONE), 3);
    assert_eq!(clusters_of_one_context(1, 5_000_000, lz4), 3);
    // 48 columns get 512 KiB pages under the budget: clusters of two pages per column
    // (48 MiB) at least, more than a quarter of the budget; 23 MB make one cluster.
    assert_eq!(clusters_of_one_context(48, 60_000, lz4), 1);
}

/// Reads column `x` of the RNTuple `name` in `path`.
fn read_x(path: &std::path::Path, name: &str) -> Vec<i64> {
    let reader = rootweave::rntuple::RNTupleReader::open(path, name).unwrap();
    match reader
        .read(&["x"], 0..reader.entries())
        .unwrap()
        .remove(0)
        .1
    {
        rootweave::array::Array::Int64(x) => x,
        other => panic!("x read as {}", other.kind()),
    }
}

#[test]
fn contexts_work_as_rayon_tasks_ordered_or_not() {
    use rayon::prelude::*;
    let dir = std::env::temp_dir().join(format!("rw-rayon-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 200 chunks of 5000 entries as tasks of a 3-thread pool, under a 1 MiB budget that
    // makes tasks wait for each other: each task takes a context, fills its chunk and
    // drops the context (which commits it).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let chunk = |c: i64| -> Vec<i64> { (c * 5000..(c + 1) * 5000).collect() };
    for ordered in [false, true] {
        let path = dir.join(format!("rayon-{ordered}.root"));
        let options = RNTupleParallelOptions::default()
            .with_memory_budget(1 << 20)
            .with_ordered(ordered);
        let writer = RNTupleParallelWriter::recreate(&path, "ntpl", fields(), options).unwrap();
        pool.install(|| {
            (0..200i64).into_par_iter().for_each(|c| {
                let mut ctx = writer.context();
                let values = chunk(c);
                let batch = [ColumnData::Int64(&values)];
                if ordered {
                    ctx.extend_sequence(c as u64, &batch).unwrap();
                } else {
                    ctx.extend(&batch).unwrap();
                }
            })
        });
        let peak = writer.budget().peak();
        assert_eq!(writer.close().unwrap().entries, 1_000_000);
        let mut x = read_x(&path, "ntpl");
        let expected: Vec<i64> = (0..1_000_000).collect();
        if ordered {
            assert_eq!(x, expected, "ordered mode keeps the chunk order");
        } else {
            x.sort_unstable();
            assert_eq!(x, expected, "every entry exactly once");
            assert!(peak <= 1 << 20, "peak {peak} over the budget");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pages_repeated_across_clusters_are_stored_once_unless_ordered() {
    use std::collections::HashSet;
    for ordered in [false, true] {
        let (memory, file) = written::file_in_memory("shared.root");
        let fields = vec![
            Field::new("x", FieldType::Int64),
            Field::new("flag", FieldType::Int32),
        ];
        let options = RNTupleParallelOptions::default()
            .with_memory_budget(1 << 20)
            .with_ordered(ordered);
        let writer = RNTupleParallelWriter::in_file(file.clone(), "ntpl", fields, options).unwrap();
        // 4 contexts, 10 chunks of 10,000 entries each, a cluster per chunk; `flag` is
        // always 7, so its pages repeat from cluster to cluster.
        std::thread::scope(|s| {
            for t in 0..4i64 {
                let mut ctx = writer.context();
                s.spawn(move || {
                    for c in t * 10..(t + 1) * 10 {
                        let x: Vec<i64> = (c * 10_000..(c + 1) * 10_000).collect();
                        let batch = [ColumnData::Int64(&x), ColumnData::Int32(&[7; 10_000])];
                        if ordered {
                            ctx.extend_sequence(c as u64, &batch).unwrap();
                        } else {
                            ctx.extend(&batch).unwrap();
                            ctx.commit_cluster().unwrap();
                        }
                    }
                });
            }
        });
        let clusters = writer.close().unwrap().clusters;
        Arc::try_unwrap(file).unwrap().close().unwrap();

        let (reader, offsets) = written::page_offsets(memory.to_bytes(), "ntpl");
        assert_eq!(offsets.len() as u64, clusters);
        assert!(clusters >= 40, "{clusters} clusters");
        // The flag pages' offsets, per cluster.
        let flag_pages: Vec<HashSet<u64>> = offsets
            .iter()
            .map(|columns| columns[1].iter().copied().collect())
            .collect();
        let distinct: HashSet<u64> = flag_pages.iter().flatten().copied().collect();
        if ordered {
            // The bytes of an ordered file do not depend on timing: every cluster stores
            // its own pages.
            let per_cluster: usize = flag_pages.iter().map(HashSet::len).sum();
            assert_eq!(
                distinct.len(),
                per_cluster,
                "ordered: a page shared across clusters"
            );
        } else {
            assert!(
                distinct.len() * 4 <= flag_pages.len(),
                "{} flag pages stored for {} clusters",
                distinct.len(),
                flag_pages.len()
            );
        }
        let mut x = match reader
            .read(&["x", "flag"], 0..reader.entries())
            .unwrap()
            .as_slice()
        {
            [(_, rootweave::array::Array::Int64(x)), (_, rootweave::array::Array::Int32(flag))] => {
                assert!(flag.iter().all(|&f| f == 7));
                x.clone()
            }
            other => panic!("read as {other:?}"),
        };
        x.sort_unstable();
        assert_eq!(x, (0..400_000).collect::<Vec<i64>>(), "ordered: {ordered}");
    }
}

#[test]
fn a_later_context_s_first_cluster_is_smaller_so_that_commits_keep_apart() {
    let (memory, file) = written::file_in_memory("phase.root");
    let mut options = RNTupleParallelOptions::default().with_memory_budget(64 << 20);
    options.write.compression = "lz4:1".parse().unwrap();
    let writer = RNTupleParallelWriter::in_file(file.clone(), "ntpl", fields(), options).unwrap();
    // The first context made would take the whole target (16 MiB, a quarter of the
    // budget) for its first cluster; the second takes 0.69 of it, then the whole target.
    drop(writer.context());
    let mut context = writer.context();
    // Incompressible values, so that clusters have the size of their values.
    let values: Vec<i64> = (0..6_000_000u64).map(scrambled).collect();
    for chunk in values.chunks(1 << 15) {
        context.extend(&[ColumnData::Int64(chunk)]).unwrap();
    }
    drop(context);
    writer.close().unwrap();
    Arc::try_unwrap(file).unwrap().close().unwrap();
    let (reader, _) = written::page_offsets(memory.to_bytes(), "ntpl");
    let clusters = reader.cluster_ranges().unwrap();
    assert!(clusters.len() >= 3, "{clusters:?}");
    let entries = |i: usize| (clusters[i].end - clusters[i].start) as f64;
    let first_over_second = entries(0) / entries(1);
    assert!(
        (0.6..0.8).contains(&first_over_second),
        "first cluster {} entries, second {}",
        entries(0),
        entries(1)
    );
}

/// Makes `contexts` contexts of a writer of 48 int64 columns under a 64 MiB budget
/// (pages of 512 KiB for one context filling, 256 KiB for two, 128 KiB for four), fills
/// only the first with `entries` entries in batches of `batch` and closes; returns the
/// element counts of the pages of each column (by physical ID) in each cluster.
fn pages_when_one_of_many_contexts_fills(
    contexts: usize,
    entries: u64,
    batch: usize,
) -> Vec<Vec<Vec<u32>>> {
    let (memory, file) = written::file_in_memory("pages.root");
    let fields: Vec<Field> = (0..48)
        .map(|i| Field::new(format!("c{i}"), FieldType::Int64))
        .collect();
    let options = RNTupleParallelOptions::default().with_memory_budget(64 << 20);
    let writer = RNTupleParallelWriter::in_file(file.clone(), "ntpl", fields, options).unwrap();
    let mut made: Vec<_> = (0..contexts).map(|_| writer.context()).collect();
    let values: Vec<i64> = (0..entries).map(scrambled).collect();
    for chunk in values.chunks(batch) {
        let columns: Vec<ColumnData> = (0..48).map(|_| ColumnData::Int64(chunk)).collect();
        made[0].extend(&columns).unwrap();
    }
    drop(made);
    assert_eq!(writer.close().unwrap().entries, entries);
    Arc::try_unwrap(file).unwrap().close().unwrap();
    written::pages_by_cluster(memory.to_bytes(), "ntpl", |page| page.n_elements).1
}

#[test]
fn contexts_made_together_size_their_pages_for_all_of_them_from_the_first_entry() {
    // The first of two contexts fills before the second has any entry (as a thread
    // started a moment earlier would); its pages are those of two contexts all the same:
    // 256 KiB, 32768 values.
    let clusters = pages_when_one_of_many_contexts_fills(2, 100_000, 100_000);
    for elements in &clusters[0] {
        // Whole pages of 32768 values, then the cluster's short last page (not 65536).
        let (last, whole) = elements.split_last().unwrap();
        assert!(
            whole.len() >= 2 && whole.iter().all(|&n| n == 32768),
            "{elements:?}"
        );
        assert!(*last <= 32768, "{elements:?}");
    }
}

#[test]
fn contexts_made_and_left_unused_stop_counting_at_the_first_commit() {
    // The first cluster is filled while the three unused contexts count (128 KiB pages,
    // 16384 values); from the second on, the one context in use has the pages of a
    // context alone (512 KiB, 65536 values).
    let clusters = pages_when_one_of_many_contexts_fills(4, 400_000, 10_000);
    assert!(clusters.len() >= 3, "{} clusters", clusters.len());
    assert_eq!(clusters[0][0][0], 16384, "{:?}", clusters[0][0]);
    assert_eq!(clusters[1][0][0], 65536, "{:?}", clusters[1][0]);
}
