//! The parallel TTree writer: contexts on threads filling one tree, every entry exactly
//! once with its values; 64 contexts under a tight budget with clusters of random sizes;
//! ordered mode giving the same tree for any thread count; a panicking producer and a full
//! disk losing only what was not committed; trees of 1000 and 10,000 branches. (ROOT 6.40
//! and uproot read such trees in tests/python/test_ttree_parallel.py.)

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rootweave::array::{Array, ColumnData, LeafType};
use rootweave::compress::{Codec, Compression};
use rootweave::container::{FileWriter, WriterOptions};
use rootweave::io::{DiskFile, WriteAt};
use rootweave::ttree::{
    BranchSpec, TTreeFillContext, TTreeParallelOptions, TTreeParallelWriter, TTreeReader,
};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rootweave-ttree-par-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn branches() -> Vec<BranchSpec> {
    vec![
        BranchSpec::scalar("id", LeafType::Int64),
        BranchSpec::scalar("nMu", LeafType::Int32),
        BranchSpec::counted("Mu_pt", LeafType::Float32, "nMu", &[]),
        BranchSpec::vector("hits", LeafType::Int32),
        BranchSpec::string("tag"),
    ]
}

/// The entries of some ids, as batches of [`branches`]; every value follows from the id.
struct Rows {
    id: Vec<i64>,
    n_mu: Vec<i32>,
    mu_offsets: Vec<u64>,
    mu_pt: Vec<f32>,
    hit_offsets: Vec<u64>,
    hits: Vec<i32>,
    tag: Vec<String>,
}

impl Rows {
    fn new(ids: impl IntoIterator<Item = i64>) -> Self {
        let mut r = Rows {
            id: Vec::new(),
            n_mu: Vec::new(),
            mu_offsets: vec![0],
            mu_pt: Vec::new(),
            hit_offsets: vec![0],
            hits: Vec::new(),
            tag: Vec::new(),
        };
        for id in ids {
            r.id.push(id);
            r.n_mu.push((id % 4) as i32);
            r.mu_pt
                .extend((0..id % 4).map(|j| id as f32 * 0.25 + j as f32));
            r.mu_offsets.push(r.mu_pt.len() as u64);
            r.hits.extend((0..id % 3).map(|j| (id + j) as i32));
            r.hit_offsets.push(r.hits.len() as u64);
            r.tag.push(format!("e{id}"));
        }
        r
    }

    fn batch(&self) -> Vec<ColumnData<'_>> {
        vec![
            ColumnData::Int64(&self.id),
            ColumnData::Int32(&self.n_mu),
            ColumnData::list(&self.mu_offsets, ColumnData::Float32(&self.mu_pt)),
            ColumnData::list(&self.hit_offsets, ColumnData::Int32(&self.hits)),
            ColumnData::Strings(&self.tag),
        ]
    }
}

/// Reads the tree back and checks that it holds ids `0..n` exactly once each, every
/// value as [`Rows`] makes it; returns the ids in file order.
fn check(path: &Path, n: u64) -> Vec<i64> {
    let t = TTreeReader::open(path, "t").unwrap();
    assert_eq!(t.entries(), n);
    let got = t
        .read(&["id", "nMu", "Mu_pt", "hits", "tag"], 0..n)
        .unwrap();
    let Array::Int64(ids) = &got[0].1 else {
        panic!("id: {:?}", got[0].1.kind())
    };
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert!(sorted.iter().copied().eq(0..n as i64), "every id once");
    let want = Rows::new(ids.iter().copied());
    let list = |offsets: &[u64], values: Array| Array::List {
        offsets: offsets.to_vec(),
        values: Box::new(values),
    };
    assert_eq!(got[1].1, Array::Int32(want.n_mu.clone()));
    assert_eq!(
        got[2].1,
        list(&want.mu_offsets, Array::Float32(want.mu_pt.clone()))
    );
    assert_eq!(
        got[3].1,
        list(&want.hit_offsets, Array::Int32(want.hits.clone()))
    );
    assert_eq!(got[4].1, Array::strings(&want.tag));
    ids.clone()
}

fn options(budget: u64) -> TTreeParallelOptions {
    TTreeParallelOptions::default()
        .with_memory_budget(budget)
        .with_compression(Compression::new(Codec::Zstd, 1).unwrap())
}

#[test]
fn contexts_on_threads_fill_one_tree() {
    let path = temp("threads.root");
    let w = TTreeParallelWriter::recreate(&path, "t", branches(), options(64 << 20)).unwrap();
    std::thread::scope(|s| {
        for t in 0..4i64 {
            let mut ctx = w.context();
            s.spawn(move || {
                for b in 0..10 {
                    let start = (t * 10 + b) * 1000;
                    ctx.extend(&Rows::new(start..start + 1000).batch()).unwrap();
                }
            });
        }
    });
    assert!(w.budget().peak() <= 64 << 20);
    let summary = w.close().unwrap();
    assert_eq!(summary.entries, 40_000);
    assert!(summary.clusters >= 4, "{summary:?}");
    check(&path, 40_000);
}

/// A tiny pseudo-random generator, so that the test is the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

#[test]
fn bad_batches_are_refused_whole_and_the_context_goes_on() {
    let path = temp("refused.root");
    let w = TTreeParallelWriter::recreate(&path, "t", branches(), options(16 << 20)).unwrap();
    let mut ctx = w.context();
    let rows = Rows::new(0..1000);
    let mut batch = rows.batch();
    batch.pop();
    let err = ctx.extend(&batch).unwrap_err().to_string();
    assert!(err.contains("4 columns given for 5 branches"), "{err}");
    // Muon counts that differ from nMu's values.
    let mut batch = rows.batch();
    batch[1] = ColumnData::Int32(&[0; 1000]);
    let err = ctx.extend(&batch).unwrap_err().to_string();
    assert!(
        err.contains("differ from the values of its counter nMu"),
        "{err}"
    );
    assert!(
        ctx.extend_sequence(0, &rows.batch()).is_err(),
        "not ordered"
    );
    ctx.extend(&rows.batch()).unwrap();
    // One entry at a time, as values.
    use rootweave::array::Value;
    let one = Rows::new([1000]);
    ctx.fill(&[
        Value::Int64(1000),
        Value::Int32(0),
        Value::List(vec![]),
        Value::List(vec![Value::Int32(1000)]),
        Value::String(one.tag[0].clone()),
    ])
    .unwrap();
    drop(ctx);
    assert_eq!(w.close().unwrap().entries, 1001);
    check(&path, 1001);
}

#[test]
fn a_writer_dropped_unclosed_still_writes_its_tree() {
    let path = temp("dropped.root");
    let w = TTreeParallelWriter::recreate(&path, "t", branches(), options(16 << 20)).unwrap();
    let mut ctx = w.context();
    ctx.extend(&Rows::new(0..2500).batch()).unwrap();
    drop(w);
    assert!(
        ctx.extend(&Rows::new(2500..2600).batch()).is_err(),
        "closed"
    );
    drop(ctx);
    check(&path, 2500);
}

#[test]
fn sixty_four_contexts_under_a_tight_budget() {
    let path = temp("stress.root");
    // Above the floor of 64 contexts' basket buffers (5 branches at 4 KiB baskets, twice
    // that for the three of varying size: 2 MiB), far below the 9 MB written.
    let budget = 4 << 20;
    let w = TTreeParallelWriter::recreate(&path, "t", branches(), options(budget)).unwrap();
    let next_id = AtomicU64::new(0);
    let total = 300_000u64;
    let contexts: Vec<Mutex<TTreeFillContext>> = (0..64).map(|_| Mutex::new(w.context())).collect();
    std::thread::scope(|s| {
        for t in 0..2u64 {
            let (contexts, next_id) = (&contexts, &next_id);
            s.spawn(move || {
                let mut rng = Lcg(t + 1);
                loop {
                    let len = 1 + rng.next(3000);
                    let start = next_id.fetch_add(len, Ordering::SeqCst);
                    if start >= total {
                        break;
                    }
                    let end = (start + len).min(total);
                    let mut ctx = contexts[rng.next(64) as usize].lock().unwrap();
                    ctx.extend(&Rows::new(start as i64..end as i64).batch())
                        .unwrap();
                    if rng.next(4) == 0 {
                        ctx.commit_cluster().unwrap();
                    }
                }
            });
        }
    });
    drop(contexts);
    let peak = w.budget().peak();
    let summary = w.close().unwrap();
    assert!(peak <= budget, "peak {peak} over the budget");
    assert!(summary.clusters > 64, "{summary:?}");
    check(&path, total);
    let t = TTreeReader::open(&path, "t").unwrap();
    assert_eq!(t.cluster_ranges().len() as u64, summary.clusters);
}

/// Writes ids `0..n` in ordered mode, sequence `k` holding ids `1000k..1000(k+1)`, from
/// `threads` threads; returns the ids in file order and the clusters.
fn write_ordered(path: &Path, threads: usize, n: u64) -> (Vec<i64>, Vec<std::ops::Range<u64>>) {
    let options = options(4 << 20).with_ordered(true);
    let w = TTreeParallelWriter::recreate(path, "t", branches(), options).unwrap();
    let next = AtomicU64::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (mut ctx, next) = (w.context(), &next);
            s.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                if k * 1000 >= n {
                    break;
                }
                // Sequence 7 is declared empty; its ids come at the end.
                if k == 7 {
                    ctx.skip_sequence(k).unwrap();
                    continue;
                }
                let start = (k * 1000) as i64;
                ctx.extend_sequence(k, &Rows::new(start..start + 1000).batch())
                    .unwrap();
            });
        }
    });
    let mut ctx = w.context();
    assert!(
        ctx.extend(&Rows::new(7000..8000).batch()).is_err(),
        "needs a number"
    );
    let k = n / 1000;
    ctx.extend_sequence(k, &Rows::new(7000..8000).batch())
        .unwrap();
    drop(ctx);
    w.close().unwrap();
    let ids = check(path, n);
    let t = TTreeReader::open(path, "t").unwrap();
    (ids, t.cluster_ranges())
}

#[test]
fn ordered_mode_gives_the_same_tree_for_any_thread_count() {
    let n = 40_000;
    let one = write_ordered(&temp("ordered1.root"), 1, n);
    let mut want: Vec<i64> = (0..7000).chain(8000..n as i64).collect();
    want.extend(7000..8000);
    assert_eq!(one.0, want);
    assert_eq!(one.1.len(), 40);
    for threads in [2, 8] {
        let other = write_ordered(&temp(&format!("ordered{threads}.root")), threads, n);
        assert_eq!(other, one, "{threads} threads");
    }
}

#[test]
fn a_panicking_producer_loses_only_its_open_cluster() {
    let path = temp("panic.root");
    let w = TTreeParallelWriter::recreate(&path, "t", branches(), options(16 << 20)).unwrap();
    let mut a = w.context();
    a.extend(&Rows::new(0..5000).batch()).unwrap();
    a.commit_cluster().unwrap();
    let mut b = w.context();
    let failed = std::thread::spawn(move || {
        b.extend(&Rows::new(5000..6000).batch()).unwrap();
        b.commit_cluster().unwrap();
        b.extend(&Rows::new(100_000..101_000).batch()).unwrap();
        panic!("the producer fails");
    })
    .join();
    assert!(failed.is_err());
    a.extend(&Rows::new(6000..8000).batch()).unwrap();
    drop(a);
    let err = w.close().unwrap_err().to_string();
    assert!(
        err.contains("panicked") && err.contains("8000 entries"),
        "{err}"
    );
    check(&path, 8000);
}

/// A disk that refuses every write while `full` is set.
struct FillingDisk {
    disk: DiskFile,
    full: Arc<AtomicBool>,
}

impl WriteAt for FillingDisk {
    fn write_all_at(&self, buf: &[u8], offset: u64) -> rootweave::Result<()> {
        if self.full.load(Ordering::SeqCst) {
            return Err(rootweave::Error::Io {
                path: self.name().into(),
                source: std::io::Error::from_raw_os_error(28),
            });
        }
        self.disk.write_all_at(buf, offset)
    }
    fn set_size(&self, len: u64) -> rootweave::Result<()> {
        self.disk.set_size(len)
    }
    fn sync(&self) -> rootweave::Result<()> {
        self.disk.sync()
    }
    fn name(&self) -> String {
        self.disk.name()
    }
}

#[test]
fn a_full_disk_is_an_error_and_committed_clusters_stay() {
    let path = temp("full.root");
    let full = Arc::new(AtomicBool::new(false));
    let backend = FillingDisk {
        disk: DiskFile::create(&path).unwrap(),
        full: full.clone(),
    };
    let file =
        FileWriter::with_backend(Arc::new(backend), "full.root", WriterOptions::default()).unwrap();
    let file = Arc::new(file);
    let w = TTreeParallelWriter::in_file(file.clone(), "t", branches(), options(16 << 20)).unwrap();
    let (mut a, mut b) = (w.context(), w.context());
    a.extend(&Rows::new(0..3000).batch()).unwrap();
    a.commit_cluster().unwrap();
    b.extend(&Rows::new(50_000..52_000).batch()).unwrap();
    full.store(true, Ordering::SeqCst);
    let err = b.commit_cluster().unwrap_err().to_string();
    assert!(err.contains("full.root"), "{err}");
    full.store(false, Ordering::SeqCst);
    // Space again: the next clusters go in after the committed one.
    b.extend(&Rows::new(3000..4000).batch()).unwrap();
    drop(b);
    a.extend(&Rows::new(4000..6000).batch()).unwrap();
    drop(a);
    let err = w.close().unwrap_err().to_string();
    assert!(err.contains("6000 entries"), "{err}");
    Arc::try_unwrap(file).unwrap().close().unwrap();
    check(&path, 6000);
}

#[test]
fn trees_of_a_thousand_and_ten_thousand_branches() {
    for (branches, entries) in [(1000usize, 3000usize), (10_000, 600)] {
        let path = temp(&format!("wide{branches}.root"));
        let specs = (0..branches)
            .map(|k| BranchSpec::scalar(&format!("b{k}"), LeafType::Float32))
            .collect();
        let w = TTreeParallelWriter::recreate(&path, "t", specs, options(64 << 20)).unwrap();
        let columns: Vec<Vec<f32>> = (0..branches)
            .map(|k| (0..entries).map(|e| (e * branches + k) as f32).collect())
            .collect();
        std::thread::scope(|s| {
            for half in 0..2 {
                let mut ctx = w.context();
                let columns = &columns;
                s.spawn(move || {
                    for part in 0..3 {
                        let from = (half * 3 + part) * entries / 6;
                        let to = (half * 3 + part + 1) * entries / 6;
                        let batch: Vec<ColumnData> = columns
                            .iter()
                            .map(|c| ColumnData::Float32(&c[from..to]))
                            .collect();
                        ctx.extend(&batch).unwrap();
                        ctx.commit_cluster().unwrap();
                    }
                });
            }
        });
        let summary = w.close().unwrap();
        assert_eq!(summary.clusters, 6);
        let t = TTreeReader::open(&path, "t").unwrap();
        assert_eq!(t.entries(), entries as u64);
        let names: Vec<String> = (0..branches).map(|k| format!("b{k}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let got = t.read(&refs, 0..entries as u64).unwrap();
        // Each cluster is a sixth of the entries, whichever context wrote it first.
        let Array::Float32(first) = &got[0].1 else {
            panic!()
        };
        let order: Vec<usize> = first.iter().map(|&v| v as usize / branches).collect();
        let mut seen = HashMap::new();
        for (row, &e) in order.iter().enumerate() {
            assert!(seen.insert(e, row).is_none(), "entry {e} twice");
        }
        for (k, (_, array)) in got.iter().enumerate() {
            let want: Vec<f32> = order.iter().map(|&e| (e * branches + k) as f32).collect();
            assert_eq!(array, &Array::Float32(want), "branch {k}");
        }
    }
}
