//! The analysis layer over a generated dataset: results equal to what the arrays read
//! directly give, the same bits for 1, 2 and 3 threads, a Rust function as a column, and
//! errors for bad expressions and corrupt files.

use std::sync::Arc;

use rootweave::analysis::column::{Column, Values};
use rootweave::analysis::expr::IntTy;
use rootweave::analysis::{Frame, Model, ResultValue};
use rootweave::array::Array;
use rootweave::dataset::{Dataset, Source};
use rootweave::ReadOptions;

/// A fresh directory of this test run.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("rootweave-analysis-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A TTree of `n` entries: `x` = i, `v` = a list of `i % 4` values `i + k / 10`.
fn write(path: &std::path::Path, n: usize) {
    use rootweave::array::{ColumnData, LeafType};
    use rootweave::ttree::{BranchSpec, TTreeWriteOptions, TTreeWriter};
    let x: Vec<i32> = (0..n as i32).collect();
    let mut offsets = vec![0u64];
    let mut v = Vec::new();
    for i in 0..n {
        for k in 0..i % 4 {
            v.push(i as f32 + k as f32 / 10.0);
        }
        offsets.push(v.len() as u64);
    }
    let branches = vec![
        BranchSpec::scalar("x", LeafType::Int32),
        BranchSpec::vector("v", LeafType::Float32),
    ];
    let zlib = rootweave::compress::Compression::ROOT_FILE_DEFAULT;
    let options = TTreeWriteOptions::default();
    let mut w = TTreeWriter::recreate(path, "t", branches, zlib, options).unwrap();
    for chunk in 0..4 {
        let (a, b) = (chunk * n / 4, (chunk + 1) * n / 4);
        let sub: Vec<u64> = offsets[a..=b].iter().map(|o| o - offsets[a]).collect();
        let values = &v[offsets[a] as usize..offsets[b] as usize];
        w.extend(&[
            ColumnData::Int32(&x[a..b]),
            ColumnData::list(&sub, ColumnData::Float32(values)),
        ])
        .unwrap();
        w.end_cluster().unwrap();
    }
    w.close().unwrap();
}

/// The integers a `Take` of one number per event gives.
fn taken_ints(b: &rootweave::analysis::Booked) -> Vec<i64> {
    match b.value().unwrap() {
        ResultValue::Column(Column::Flat(v)) => match &*v {
            Values::Int(_, x) => x.to_vec(),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

/// A fresh directory of `files` trees of `entries` entries each (see [`write`]).
fn written(
    name: &str,
    files: usize,
    entries: usize,
) -> (std::path::PathBuf, Vec<std::path::PathBuf>) {
    let dir = scratch(name);
    let paths: Vec<_> = (0..files).map(|i| dir.join(format!("t{i}.root"))).collect();
    for p in &paths {
        write(p, entries);
    }
    (dir, paths)
}

fn frame(paths: &[std::path::PathBuf], threads: usize) -> Frame {
    let sources = paths.iter().map(|p| Source::new(p, Some("t"))).collect();
    Frame::new(Dataset::new(sources, ReadOptions::default().with_threads(threads)).unwrap())
}

#[test]
fn sources_of_entry_ranges_read_the_batches_of_the_whole_files() {
    let dir = scratch("ranges");
    let path = dir.join("t.root");
    write(&path, 250_000);
    let whole = frame(std::slice::from_ref(&path), 1);
    // Four clusters of 62,500 entries: batches of at least 100,000 are two clusters each.
    assert_eq!(
        whole.batch_ranges().unwrap(),
        vec![vec![0..125_000, 125_000..250_000]]
    );
    // The file's second half, then its first, then a range past its end: a dataset of
    // 250,000 + 10,000 entries.
    let sources = vec![
        Source::new(&path, Some("t")).with_entries(125_000..250_000),
        Source::new(&path, Some("t")).with_entries(0..125_000),
        Source::new(&path, Some("t")).with_entries(240_000..300_000),
        Source::new(&path, Some("t")).with_entries(400_000..500_000),
    ];
    let dataset = Dataset::new(sources, ReadOptions::default().with_threads(2)).unwrap();
    assert_eq!(
        dataset.entries().unwrap(),
        vec![125_000, 125_000, 10_000, 0]
    );
    let df = Frame::new(dataset);
    assert_eq!(
        df.batch_ranges().unwrap(),
        vec![
            vec![125_000..250_000],
            vec![0..125_000],
            vec![240_000..250_000],
            vec![]
        ]
    );
    let taken = df.take("x").unwrap();
    // `Range` counts the dataset's entries: the tenth is the second half's tenth.
    let ranged = df.range(10, Some(20), 3).unwrap().take("x").unwrap();
    let beyond = df.range(259_998, None, 1).unwrap().take("x").unwrap();
    let want: Vec<i64> = (125_000..250_000)
        .chain(0..125_000)
        .chain(240_000..250_000)
        .collect();
    assert_eq!(taken_ints(&taken), want);
    assert_eq!(
        taken_ints(&ranged),
        vec![125_010, 125_013, 125_016, 125_019]
    );
    assert_eq!(taken_ints(&beyond), vec![249_998, 249_999]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_range_below_a_filter_counts_the_events_reaching_it_across_files() {
    let (dir, paths) = written("counted", 2, 250_000);
    for threads in [1, 2] {
        let df = frame(&paths, threads);
        // Five events a file pass; the fourth to the seventh are the second file's first two.
        let spanning = df.filter("x % 50000 == 0", None).unwrap();
        let spanning = spanning.range(3, Some(7), 1).unwrap().take("x").unwrap();
        let strided = df.filter("x % 3 == 0", None).unwrap();
        let strided = strided.range(2, Some(10), 3).unwrap().take("x").unwrap();
        // A Range of a Range counts the events the first one keeps, as RDataFrame does.
        let nested = df.range(10, Some(100), 1).unwrap();
        let nested = nested.range(5, Some(8), 1).unwrap().take("x").unwrap();
        let plain = df.filter("x < 10", None).unwrap().count().unwrap();
        // A Range no result hangs below counts nothing: its Filter's column `v`, read for
        // no result, is not needed.
        let idle = df.filter("Sum(v) > 10", None).unwrap();
        idle.range(0, Some(5), 1).unwrap();
        assert_eq!(taken_ints(&spanning), vec![150_000, 200_000, 0, 50_000]);
        assert_eq!(taken_ints(&strided), vec![6, 15, 24]);
        assert_eq!(taken_ints(&nested), vec![15, 16, 17]);
        assert_eq!(plain.value().unwrap(), ResultValue::Count(20));
        // Once every result's Range has ended, the run reads no further batch (of 125,000).
        let first_ten = df.range(0, Some(10), 1).unwrap();
        let first_two = df.filter("x % 50000 == 0", None).unwrap();
        let first_two = first_two.range(0, Some(2), 1).unwrap();
        let booked = [first_ten.take("x").unwrap(), first_two.take("x").unwrap()];
        let counted = first_two.count().unwrap();
        assert_eq!(taken_ints(&booked[0]), (0..10).collect::<Vec<i64>>());
        assert_eq!(taken_ints(&booked[1]), vec![0, 50_000]);
        assert_eq!(counted.value().unwrap(), ResultValue::Count(2));
        assert_eq!(first_ten.last_progress().map(|p| p.entries), Some(125_000));
        // A snapshot stopped early is whole: its batches are the first ones, in order.
        let out = dir.join(format!("first-{threads}.root"));
        let options = rootweave::analysis::SnapshotOptions::default();
        let skim = first_two.snapshot("s", &out, &["x"], &options).unwrap();
        assert_eq!(taken_ints(&skim.take("x").unwrap()), vec![0, 50_000]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Several snapshots of one graph's nodes are written in one pass with its results, each in
/// input order; two into one file, or a column that is not there, write none.
#[test]
fn snapshots_of_one_graph_write_in_one_pass() {
    use rootweave::analysis::{snapshot_all, SnapshotOptions, SnapshotRequest};
    let (dir, paths) = written("snapshots", 2, 60_000);
    let df = frame(&paths, 2);
    let (odd, small) = (
        df.filter("x % 2 == 1", None).unwrap(),
        df.filter("x < 1000", None).unwrap(),
    );
    let count = df.count().unwrap();
    let options = SnapshotOptions::default();
    let (a, b) = (dir.join("odd.root"), dir.join("small.root"));
    let request = |frame, tree, path, columns| SnapshotRequest {
        frame,
        tree,
        path,
        columns,
        options: &options,
    };
    let written = snapshot_all(&[
        request(&odd, "odd", &a, &["x"]),
        request(&small, "small", &b, &[]),
    ])
    .unwrap();
    assert_eq!(df.runs(), 1);
    assert_eq!(count.value().unwrap(), ResultValue::Count(120_000));
    // Each file holds x = 0 .. 60,000.
    let odd_x: Vec<i64> = (0..120_000)
        .map(|i| i % 60_000)
        .filter(|x| x % 2 == 1)
        .collect();
    assert_eq!(taken_ints(&written[0].take("x").unwrap()), odd_x);
    let small_x: Vec<i64> = (0..2000).map(|i| i % 1000).collect();
    assert_eq!(taken_ints(&written[1].take("x").unwrap()), small_x);
    // Two snapshots into one file, or an unknown column: an error, and no file.
    let c = dir.join("c.root");
    let twice = [
        request(&odd, "a", &c, &["x"]),
        request(&small, "b", &c, &["x"]),
    ];
    assert!(snapshot_all(&twice).is_err());
    let unknown = [
        request(&odd, "a", &c, &["x"]),
        request(&small, "b", &a, &["nope"]),
    ];
    let err = snapshot_all(&unknown).err().expect("refused").to_string();
    assert!(err.contains("nope"), "{err}");
    assert!(!c.exists() && df.runs() == 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A cut flow's rows: name, events passed, events seen.
fn cut_flow(b: &rootweave::analysis::Booked) -> Vec<(String, u64, u64)> {
    match b.value().unwrap() {
        ResultValue::Report(rows) => rows,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_cut_flow_counts_the_entries_of_the_event_loop() {
    let (dir, paths) = written("cutflow", 2, 250_000);
    let row = |name: &str, passed, seen| (name.to_string(), passed, seen);
    for threads in [1, 2] {
        // RDataFrame's loop stops at the entry where the last result's Range ends: the
        // 1000th even entry, 1998; filters above the Range saw the entries up to it.
        let df = frame(&paths, threads);
        let even = df.filter("x % 2 == 0", Some("even")).unwrap();
        let three = even.range(0, Some(1000), 1).unwrap();
        let three = three.filter("x % 3 == 0", Some("three")).unwrap();
        let (below, count) = (three.report().unwrap(), three.count().unwrap());
        assert_eq!(
            cut_flow(&below),
            vec![row("even", 1000, 1999), row("three", 334, 1000)]
        );
        assert_eq!(count.value().unwrap(), ResultValue::Count(334));
        // A named filter with nothing below it is checked at every entry, as RDataFrame
        // checks every named filter: the loop runs to the end, and the dataset's Report
        // lists every named filter in the order they were made.
        let big = df.filter("x >= 5", Some("big")).unwrap();
        let (all, below) = (df.report().unwrap(), three.report().unwrap());
        // As ROOT's: a Vary there adds no node (its Report is the dataset's), a Define or an
        // Alias does (a Report there lists no filter, as none is above it).
        let varied = df
            .vary("x", "{x + 1, x - 1}", &["up", "down"], "shift")
            .unwrap();
        let (also_all, none) = (
            varied.report().unwrap(),
            df.alias("y", "x").unwrap().report().unwrap(),
        );
        let all_rows = vec![
            row("even", 250_000, 500_000),
            row("three", 334, 1000),
            row("big", 499_990, 500_000),
        ];
        assert_eq!(cut_flow(&all), all_rows);
        assert_eq!(cut_flow(&also_all), all_rows);
        assert_eq!(cut_flow(&none), vec![]);
        assert_eq!(cut_flow(&below)[0], row("even", 250_000, 500_000));
        // Without a Report, nothing shows whether the loop went on for `big`: a run of a
        // ranged result alone stops after its first batch (of 125,000 entries).
        let first = df.range(0, Some(10), 1).unwrap();
        let taken = first.take("x").unwrap();
        assert_eq!(taken_ints(&taken), (0..10).collect::<Vec<i64>>());
        assert_eq!(first.last_progress().map(|p| p.entries), Some(125_000));
        drop(big);
        // Below a Range that has ended, a named filter does not hold the loop.
        let df = frame(&paths, threads);
        let _late = df
            .range(0, Some(20), 1)
            .unwrap()
            .filter("x % 2 == 0", Some("late"));
        let three = df.filter("x % 3 == 0", Some("three")).unwrap();
        let three = three.range(0, Some(10), 1).unwrap().report().unwrap();
        assert_eq!(cut_flow(&three), vec![row("three", 10, 28)]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn variations_equal_graphs_defining_their_values() {
    let (dir, paths) = written("varied", 2, 150_000);
    // Results of a varied column, of columns it does not change (shared with the nominal
    // results), and of those below a filter of it.
    let book = |df: &Frame| -> Vec<rootweave::analysis::Booked> {
        let cut = df.filter("s > 30000", Some("cut")).unwrap();
        let even = df.filter("x % 2 == 0", None).unwrap();
        let u = df
            .define("u", "x + 1")
            .unwrap()
            .filter("u % 3 == 0", None)
            .unwrap();
        vec![
            cut.histo1d(Model::regular("s", "", 50, 0.0, 1e5), "s", None)
                .unwrap(),
            even.histo1d(Model::regular("v", "", 50, 0.0, 2e5), "v", None)
                .unwrap(),
            cut.define("t", "v.size() + s").unwrap().sum("t").unwrap(),
            u.mean("u").unwrap(),
            even.define("w", "s * x").unwrap().std_dev("w").unwrap(),
            cut.report().unwrap(),
        ]
    };
    let df = frame(&paths, 2);
    let scaled = df.define("s", "x * 0.5").unwrap();
    let varied = scaled
        .vary(
            "s",
            "ROOT::RVecD{s * 0.9, s * 1.1}",
            &["down", "up"],
            "scale",
        )
        .unwrap();
    let by_variation: Vec<Vec<(String, ResultValue)>> = book(&varied)
        .iter()
        .map(|b| {
            Frame::variations_for(b)
                .unwrap()
                .into_iter()
                .map(|(name, r)| (name, r.value().unwrap()))
                .collect()
        })
        .collect();
    // As RDataFrame's, the variations of a result are those that change it: the histogram of
    // `v` and the mean of `u` (below filters of `x`) have none.
    let names: Vec<usize> = by_variation.iter().map(|r| r.len()).collect();
    assert_eq!(names, [3, 1, 3, 1, 3, 3]);
    for (k, factor) in [
        ("nominal", None),
        ("scale:down", Some("0.9")),
        ("scale:up", Some("1.1")),
    ] {
        let direct = frame(&paths, 2);
        let s = direct.define("s0", "x * 0.5").unwrap();
        let s = match factor {
            Some(f) => s.define("s", &format!("s0 * {f}")).unwrap(),
            None => s.define("s", "s0").unwrap(),
        };
        let want: Vec<ResultValue> = book(&s).iter().map(|b| b.value().unwrap()).collect();
        let got: Vec<ResultValue> = by_variation
            .iter()
            .map(|r| match r.iter().find(|(n, _)| n == k) {
                Some((_, v)) => nominal_named(v, k),
                None => r[0].1.clone(),
            })
            .collect();
        assert_eq!(got, want, "{k}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `value` of variation `k` (`name:tag`) as the nominal graph names it: a histogram in a
/// variation is named `<its name>_name_tag`, as RDataFrame names it.
fn nominal_named(value: &ResultValue, k: &str) -> ResultValue {
    let mut v = value.clone();
    if let (ResultValue::Histogram(h), true) = (&mut v, k != "nominal") {
        let suffix = format!("_{}", k.replace(':', "_"));
        let base = h
            .name
            .strip_suffix(&suffix)
            .expect("named for its variation");
        h.name = base.to_string();
    }
    v
}

#[test]
fn results_equal_the_arrays_and_do_not_depend_on_threads() {
    let (_, paths) = written("threads", 2, 250_000);
    let run = |threads| {
        let df = frame(&paths, threads);
        let sel = df
            .filter("x % 3 == 0 && v.size() >= 2", Some("cut"))
            .unwrap();
        let lead = sel.define("lead", "v[1] - v[0]").unwrap();
        let twice: rootweave::analysis::ColumnFn =
            Arc::new(|cols: &[Column]| match cols[0].flat() {
                Some(Values::Int(t, x)) => Ok(Column::Flat(
                    Values::Int(*t, x.iter().map(|v| 2 * v).collect()).into(),
                )),
                _ => Err(format!("{:?}", cols[0])),
            });
        let doubled = lead.define_with("twice", &["x"], twice).unwrap();
        let booked = [
            doubled.count().unwrap(),
            doubled.sum("lead").unwrap(),
            doubled
                .histo1d(Model::regular("h", "", 10, 0.0, 1e6), "twice", Some("lead"))
                .unwrap(),
            doubled.max("twice").unwrap(),
            sel.report().unwrap(),
            df.range(10, Some(20), 3).unwrap().take("x").unwrap(),
            // A range from the data: the values kept in entry order, whatever the threads.
            df.histo1d(Model::for_column("v", Some("x")), "v", Some("x"))
                .unwrap(),
        ];
        booked
            .iter()
            .map(|b| b.value().unwrap())
            .collect::<Vec<_>>()
    };
    let one = run(1);
    // What the arrays say: events with x % 3 == 0 and x % 4 >= 2, per file.
    let selected: Vec<i64> = (0..250_000i64)
        .filter(|x| x % 3 == 0 && x % 4 >= 2)
        .collect();
    assert_eq!(one[0], ResultValue::Count(2 * selected.len() as u64));
    let ResultValue::Number(sum) = one[1] else {
        panic!()
    };
    let expect: f64 = selected
        .iter()
        .map(|&x| ((x as f32 + 0.1) - x as f32) as f64)
        .sum::<f64>()
        * 2.0;
    assert!((sum - expect).abs() < 1e-6 * expect, "{sum} {expect}");
    assert_eq!(
        one[3],
        ResultValue::Number(2.0 * *selected.last().unwrap() as f64)
    );
    assert_eq!(
        one[4],
        ResultValue::Report(vec![("cut".into(), 2 * selected.len() as u64, 500_000)])
    );
    let ResultValue::Column(taken) = &one[5] else {
        panic!()
    };
    assert_eq!(
        taken.clone().into_array(),
        // `x` is an `Int_t` branch: taken as `int`s, as ROOT's `Take<int>`.
        Array::Int32(vec![10, 13, 16, 19])
    );
    let ResultValue::Histogram(auto) = &one[6] else {
        panic!()
    };
    // 0 + 1 + 2 + 3 items every four entries; the axis grown to hold them all.
    assert_eq!(
        (auto.name.as_str(), auto.entries),
        ("v_weighted_x", 750_000.0)
    );
    let axis = &auto.axes[0];
    assert!(
        axis.min < 1.0 && axis.max > 250_000.0 && axis.can_extend,
        "{axis:?}"
    );
    assert_eq!((auto.cells[0], auto.cells[axis.bins + 1]), (0.0, 0.0));
    for threads in [2, 3] {
        assert_eq!(run(threads), one, "{threads} threads");
    }
}

#[test]
fn bad_expressions_and_corrupt_files_are_errors() {
    let path = scratch("errors").join("t.root");
    write(&path, 1000);
    let df = frame(std::slice::from_ref(&path), 1);
    let err = df.filter("x >", None).err().unwrap().to_string();
    assert!(
        err.contains("expression 'x >' does not parse at position 3"),
        "{err}"
    );
    let err = df.define("y", "w + 1").err().unwrap().to_string();
    assert!(err.contains("unknown column 'w'"), "{err}");
    // As ROOT's, a filter's condition is a bool, not a number or a mask.
    for (expr, ty) in [("x + 1", "int"), ("v > 1", "ROOT::VecOps::RVec<int>")] {
        let err = df.filter(expr, None).err().unwrap().to_string();
        assert!(err.contains(&format!("is of type {ty}, not bool")), "{err}");
    }
    // A file cut short: the run's error names it.
    let data = std::fs::read(&path).unwrap();
    std::fs::write(&path, &data[..data.len() * 2 / 3]).unwrap();
    let df = frame(std::slice::from_ref(&path), 1);
    let result = df.count().and_then(|c| c.value());
    let err = result.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("t.root"), "{err}");
}

#[test]
fn a_count_reads_no_column() {
    // Every basket of `x` and `v` overwritten: a count over the entries reads none of them, as
    // ROOT's loop reads no branch that no result uses; a sum of `x` fails naming the file.
    let path = scratch("count").join("t.root");
    write(&path, 1000);
    let tree = rootweave::ttree::TTreeReader::open(&path, "t").unwrap();
    let mut data = std::fs::read(&path).unwrap();
    for branch in ["x", "v"] {
        for basket in &tree.meta().find(branch).unwrap().baskets {
            let start = basket.seek as usize + 40;
            let end = basket.seek as usize + basket.bytes as usize;
            data[start..end].fill(0xff);
        }
    }
    drop(tree);
    std::fs::write(&path, &data).unwrap();
    for threads in [1, 2] {
        let df = frame(std::slice::from_ref(&path), threads);
        assert_eq!(
            df.count().unwrap().value().unwrap(),
            ResultValue::Count(1000)
        );
        let err = df
            .sum("x")
            .and_then(|s| s.value())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("t.root"), "{err}");
    }
}

#[test]
fn a_running_graph_shows_its_results_merged_so_far() {
    let (_, paths) = written("live", 3, 120_000);
    let df = frame(&paths, 2);
    df.watch();
    let count = df.filter("x % 2 == 0", None).unwrap().count().unwrap();
    let seen = std::sync::Mutex::new(Vec::new());
    let watch = |p: rootweave::analysis::Progress| {
        let so_far = count.so_far().unwrap().unwrap();
        seen.lock().unwrap().push((p, so_far));
    };
    df.run(Some(&watch)).unwrap();
    let seen = seen.into_inner().unwrap();
    // Each file is at least one batch; the totals known before the run; partial counts are
    // sums of whole batches in file order, never past the final one.
    assert!(seen.len() >= 3, "{}", seen.len());
    let total = seen[0].0.total_batches.unwrap();
    assert_eq!(total, seen.len());
    let ResultValue::Count(last) = count.value().unwrap() else {
        panic!()
    };
    assert_eq!(last, 3 * 60_000);
    let mut before = 0;
    for (_, so_far) in &seen {
        let ResultValue::Count(n) = so_far else {
            panic!()
        };
        assert!(*n >= before && *n <= last && n % 10 == 0, "{n}");
        before = *n;
    }
    assert_eq!(df.progress(), None);
    // The run's final state stays to be looked at: every batch, every entry.
    let end = df.last_progress().unwrap();
    assert_eq!((end.batches, end.entries), (total, 3 * 120_000));
}

#[test]
fn run_graphs_runs_several_graphs_in_one_loop_with_their_own_bits() {
    let dir = scratch("graphs");
    let (a, b) = (dir.join("a.root"), dir.join("b.root"));
    write(&a, 30_000);
    write(&b, 50_000);
    // One graph per sample, each booking a weighted histogram, a sum and a count.
    let book = |df: &Frame| {
        let sel = df.filter("v.size() >= 1", None).unwrap();
        vec![
            sel.histo1d(Model::regular("h", "", 20, 0.0, 6e4), "v", Some("x"))
                .unwrap(),
            sel.sum("v").unwrap(),
            df.count().unwrap(),
        ]
    };
    let (fa, fb) = (
        frame(std::slice::from_ref(&a), 2),
        frame(std::slice::from_ref(&b), 2),
    );
    let (ra, rb) = (book(&fa), book(&fb));
    let all: Vec<&rootweave::analysis::Booked> = ra.iter().chain(&rb).collect();
    assert_eq!(rootweave::analysis::run_graphs(&all).unwrap(), 2);
    assert_eq!((fa.runs(), fb.runs()), (1, 1));
    // The same values, to the bit, as each graph run alone.
    let alone = |path: &std::path::PathBuf| {
        let df = frame(std::slice::from_ref(path), 1);
        let booked = book(&df);
        booked
            .iter()
            .map(|r| r.value().unwrap())
            .collect::<Vec<_>>()
    };
    let together: Vec<_> = ra.iter().map(|r| r.value().unwrap()).collect();
    assert_eq!(together, alone(&a));
    assert_eq!(rb[2].value().unwrap(), ResultValue::Count(50_000));
    assert_eq!(
        rb.iter().map(|r| r.value().unwrap()).collect::<Vec<_>>(),
        alone(&b)
    );
    assert_eq!((fa.runs(), fb.runs()), (1, 1));
    // Nothing left to compute: no graph runs.
    assert_eq!(rootweave::analysis::run_graphs(&all).unwrap(), 0);
    // A graph that cannot run fails the call and leaves the other's results to compute.
    let third = frame(std::slice::from_ref(&b), 1)
        .define("y", "x + 1")
        .unwrap();
    let third_sum = third.sum("y").unwrap();
    let good = frame(std::slice::from_ref(&a), 1).count().unwrap();
    let mut broken = std::fs::read(&b).unwrap();
    let n = broken.len();
    broken[n / 4..n / 2].fill(0xff);
    let cut = dir.join("cut.root");
    std::fs::write(&cut, &broken).unwrap();
    let failing = frame(&[cut], 1).sum("v").unwrap();
    let err = rootweave::analysis::run_graphs(&[&third_sum, &failing, &good])
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("cut.root"), "{err}");
    // One loop for all three: the graph before the failing one has no results either.
    assert!(!third_sum.is_ready() && !good.is_ready());
    assert_eq!(good.value().unwrap(), ResultValue::Count(30_000));
}

#[test]
fn snapshot_into_an_existing_file_keeps_its_objects() {
    use rootweave::analysis::SnapshotOptions;
    let dir = scratch("update");
    let (input, out) = (dir.join("in.root"), dir.join("out.root"));
    write(&input, 20_000);
    write(&out, 1_000);
    let df = frame(std::slice::from_ref(&input), 2);
    let sel = df.filter("x % 5 == 0", None).unwrap();
    let update = SnapshotOptions {
        update: true,
        ..SnapshotOptions::default()
    };
    let skim = sel.snapshot("skims/s", &out, &["x"], &update).unwrap();
    let taken = skim.take("x").unwrap().value().unwrap();
    let expect: Vec<i64> = (0..20_000).filter(|x| x % 5 == 0).collect();
    assert_eq!(
        taken,
        ResultValue::Column(Column::Flat(Values::Int(IntTy::INT, expect.clone()).into()))
    );
    // The file's tree is still there, whole.
    assert_eq!(
        frame(std::slice::from_ref(&out), 1)
            .count()
            .unwrap()
            .value()
            .unwrap(),
        ResultValue::Count(1_000)
    );
    // The same name again: an error before any reading, unless replacing is asked for.
    let err = sel
        .snapshot("skims/s", &out, &["x"], &update)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("'skims/s' is already in"), "{err}");
    let replace = SnapshotOptions {
        overwrite_if_exists: true,
        ..update
    };
    let fewer = df.filter("x % 7 == 0", None).unwrap();
    let again = fewer.snapshot("skims/s", &out, &["x"], &replace).unwrap();
    let n = (0..20_000).filter(|x| x % 7 == 0).count() as u64;
    assert_eq!(
        again.count().unwrap().value().unwrap(),
        ResultValue::Count(n)
    );
    let file = rootweave::container::RootFile::open(&out).unwrap();
    let names: Vec<String> = file.keys().iter().map(|k| k.name.clone()).collect();
    assert_eq!(names.iter().filter(|n| *n == "t").count(), 1, "{names:?}");
    let skims = file
        .keys()
        .iter()
        .find(|k| k.name == "skims")
        .unwrap()
        .clone();
    let inside: Vec<String> = file
        .directory_keys(&skims)
        .unwrap()
        .into_iter()
        .map(|k| k.name)
        .collect();
    assert_eq!(inside, ["s"]);
}

#[test]
fn an_empty_file_does_not_hold_back_the_batches_after_it() {
    let dir = scratch("empty");
    let paths: Vec<_> = ["a", "none", "b"]
        .iter()
        .map(|n| dir.join(format!("{n}.root")))
        .collect();
    write(&paths[0], 120_000);
    write(&paths[1], 0);
    write(&paths[2], 120_000);
    let df = frame(&paths, 1);
    df.watch();
    let count = df.count().unwrap();
    let seen = std::sync::Mutex::new(Vec::new());
    let watch = |_| seen.lock().unwrap().push(count.so_far().unwrap().unwrap());
    df.run(Some(&watch)).unwrap();
    // After the last batch, everything is added: the batches after the empty file were not
    // kept waiting for a batch of it.
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.last(), Some(&ResultValue::Count(240_000)), "{seen:?}");
    assert_eq!(count.value().unwrap(), ResultValue::Count(240_000));
}

#[test]
fn a_define_is_computed_only_for_the_events_that_reach_its_use() {
    // `v[0]` fails for the events with an empty `v` (a quarter of them); the filters below
    // the definition keep only events with items, as RDataFrame's lazy Define needs.
    let dir = scratch("lazy");
    let path = dir.join("t.root");
    write(&path, 20_000);
    let df = frame(std::slice::from_ref(&path), 2);
    let lead = df.define("lead", "v[0]").unwrap();
    let some = lead.filter("v.size() > 0", None).unwrap();
    let odd = lead.filter("v.size() > 0 && x % 2 == 1", None).unwrap();
    let (a, b) = (some.sum("lead").unwrap(), odd.take("lead").unwrap());
    let all = lead.take("x").unwrap();
    let expect: f64 = (0..20_000).filter(|i| i % 4 != 0).map(|i| i as f64).sum();
    let Ok(ResultValue::Number(sum)) = a.value() else {
        panic!("{:?}", a.value())
    };
    assert_eq!(sum, expect);
    let odd_leads: Vec<f32> = (0..20_000)
        .filter(|i| i % 4 != 0 && i % 2 == 1)
        .map(|i| i as f32)
        .collect();
    assert_eq!(
        b.value().unwrap(),
        ResultValue::Column(Column::Flat(Values::F32(odd_leads).into()))
    );
    // A use at the definition's own node asks for every event: the error names the entry.
    let err = lead.sum("lead").unwrap().value().unwrap_err().to_string();
    assert!(
        err.contains("index 0 of an RVec of 0 items (entry 0)"),
        "{err}"
    );
    assert!(all.value().is_ok());
    // Below a filter, in the second chunk of the third batch (entries 10,000 to 15,000,
    // chunks of 4096): the entry of the file, not the event's place among those kept.
    let one = frame(std::slice::from_ref(&path), 1);
    let late = one.filter("x > 14500", None).unwrap();
    let third = late.define("third", "v[2]").unwrap();
    let err = third.sum("third").unwrap().value().unwrap_err().to_string();
    assert!(
        err.contains("t.root") && err.contains("index 2 of an RVec of 1 items (entry 14501)"),
        "{err}"
    );
}

#[test]
fn a_concatenation_sized_in_a_filter_is_joined_only_for_the_events_it_keeps() {
    // `l` holds `v` twice: `i % 4` items each, so `l.size() >= 4` keeps `i % 4 >= 2`; the
    // filter sizes `l` from `v` and the take below computes it for the kept events only.
    let dir = scratch("sizes");
    let path = dir.join("t.root");
    write(&path, 10_000);
    let df = frame(std::slice::from_ref(&path), 2);
    let l = df.define("l", "Concatenate(v, v)").unwrap();
    let kept = l.filter("l.size() >= 4", None).unwrap();
    let (count, taken) = (kept.count().unwrap(), kept.take("l").unwrap());
    let mut offsets = vec![0usize];
    let mut values = Vec::new();
    for i in (0..10_000).filter(|i| i % 4 >= 2) {
        let v: Vec<f32> = (0..i % 4).map(|k| i as f32 + k as f32 / 10.0).collect();
        values.extend_from_slice(&v);
        values.extend_from_slice(&v);
        offsets.push(values.len());
    }
    assert_eq!(count.value().unwrap(), ResultValue::Count(5_000));
    let ResultValue::Column(taken) = taken.value().unwrap() else {
        panic!("a column")
    };
    assert_eq!(
        taken,
        Column::Jagged(Arc::new(offsets), Values::F32(values).into())
    );
}

/// A TTree of `n` entries (four clusters) with `vv`, a list of lists per entry: entry `i`
/// holds `i % 3` lists, list `j` of them `(i + j) % 2` floats `i + j`; and `x` = i. Its
/// `vv` as an [`Array`] is returned too.
fn write_nested(path: &std::path::Path, n: usize) -> Array {
    use rootweave::array::{ColumnData, LeafType};
    use rootweave::ttree::{BranchSpec, TTreeWriteOptions, TTreeWriter};
    let (mut outer, mut inner, mut values) = (vec![0u64], vec![0u64], Vec::new());
    for i in 0..n {
        for j in 0..i % 3 {
            values.extend(std::iter::repeat_n((i + j) as f32, (i + j) % 2));
            inner.push(values.len() as u64);
        }
        outer.push(inner.len() as u64 - 1);
    }
    let x: Vec<i32> = (0..n as i32).collect();
    let branches = vec![
        BranchSpec::scalar("x", LeafType::Int32),
        BranchSpec::vector_of_vectors("vv", LeafType::Float32),
    ];
    let zlib = rootweave::compress::Compression::ROOT_FILE_DEFAULT;
    let mut w =
        TTreeWriter::recreate(path, "t", branches, zlib, TTreeWriteOptions::default()).unwrap();
    for chunk in 0..4 {
        let (a, b) = (chunk * n / 4, (chunk + 1) * n / 4);
        let (la, lb) = (outer[a] as usize, outer[b] as usize);
        let sub_outer: Vec<u64> = outer[a..=b].iter().map(|o| o - outer[a]).collect();
        let sub_inner: Vec<u64> = inner[la..=lb].iter().map(|o| o - inner[la]).collect();
        let items = &values[inner[la] as usize..inner[lb] as usize];
        let lists = ColumnData::list(&sub_inner, ColumnData::Float32(items));
        w.extend(&[
            ColumnData::Int32(&x[a..b]),
            ColumnData::list(&sub_outer, lists),
        ])
        .unwrap();
        w.end_cluster().unwrap();
    }
    w.close().unwrap();
    Array::List {
        offsets: outer,
        values: Box::new(Array::List {
            offsets: inner,
            values: Box::new(Array::Float32(values)),
        }),
    }
}

#[test]
fn lists_of_lists_are_taken_as_read_and_refused_by_expressions() {
    let path = scratch("nested").join("t.root");
    let n = 240_000;
    let whole = write_nested(&path, n);
    let every = |a: &Array, keep: &dyn Fn(usize) -> bool| {
        let kept: Vec<usize> = (0..n).filter(|&i| keep(i)).collect();
        rootweave::array::take(a, &kept)
    };
    // The column's own error, whether its lists are counted or its items used.
    for text in ["vv.size() > 0", "size(vv) > 0", "Sum(vv) > 0"] {
        let df = frame(std::slice::from_ref(&path), 1);
        let result = df.filter(text, None).and_then(|f| f.count()?.value());
        let err = result.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            err.contains("column 'vv' is not numbers, strings or lists of them"),
            "{text}: {err}"
        );
    }
    // Results computing from it are refused as they are booked; the others still run.
    let df = frame(std::slice::from_ref(&path), 2);
    for booked in [df.sum("vv"), df.max("vv")] {
        let err = booked.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            err.contains("a result: column 'vv' is not numbers"),
            "{err}"
        );
    }
    // `Take` gives its values as read, in entry order, over several batches and threads,
    // for every entry, a selection, an alias, and no entry at all (typed all the same).
    for threads in [1, 2, 3] {
        let df = frame(std::slice::from_ref(&path), threads);
        let all = df.take("vv").unwrap();
        let again = df.take("vv").unwrap();
        let odd = df.filter("x % 2 == 1", None).unwrap();
        let odd_taken = odd.alias("nested", "vv").unwrap().take("nested").unwrap();
        let none = df.filter("x < 0", None).unwrap().take("vv").unwrap();
        let count = df.count().unwrap();
        assert_eq!(all.value().unwrap(), ResultValue::Array(whole.clone()));
        assert_eq!(again.value().unwrap(), ResultValue::Array(whole.clone()));
        let odd_values = every(&whole, &|i| i % 2 == 1);
        assert_eq!(odd_taken.value().unwrap(), ResultValue::Array(odd_values));
        assert_eq!(
            none.value().unwrap(),
            ResultValue::Array(every(&whole, &|_| false))
        );
        assert_eq!(count.value().unwrap(), ResultValue::Count(n as u64));
        assert_eq!(df.runs(), 1, "one pass for every result");
    }
    // `Cache` keeps it as read: a snapshot of the cached selection writes it back.
    let df = frame(std::slice::from_ref(&path), 2);
    let first = df.filter("x % 1000 == 7", None).unwrap();
    let cached = first.cache(&["x", "vv"]).unwrap();
    let out = path.with_file_name("skim.root");
    let options = rootweave::analysis::SnapshotOptions::default();
    cached.snapshot("s", &out, &["vv"], &options).unwrap();
    let skim = rootweave::ttree::TTreeReader::open(&out, "s").unwrap();
    let read = skim.read(&["vv"], 0..skim.entries()).unwrap();
    let expected = every(&whole, &|i| i % 1000 == 7);
    assert_eq!(read, vec![("vv".to_string(), expected)]);
}

#[test]
fn special_columns_number_the_dataset_s_entries_for_any_thread_count() {
    let (dir, paths) = written("special", 2, 250_000);
    for threads in [1, 2] {
        let df = frame(&paths, threads);
        let every = df.take("rdfentry_").unwrap();
        // Entries of the second file follow the first's, as in a chain.
        let picked = df.filter("rdfentry_ % 100000 == 7", None).unwrap();
        let picked = picked.take("x").unwrap();
        let doubled = df.define("e", "rdfentry_ * 2").unwrap();
        let last = doubled
            .filter("x > 249996", None)
            .unwrap()
            .take("e")
            .unwrap();
        let slots = df
            .filter("rdfslot_ >= 0", None)
            .unwrap()
            .max("rdfslot_")
            .unwrap();
        assert_eq!(taken_ints(&every), (0..500_000).collect::<Vec<i64>>());
        assert_eq!(
            taken_ints(&picked),
            vec![7, 100_007, 200_007, 50_007, 150_007]
        );
        let want: Vec<i64> = [249_997, 249_998, 249_999, 499_997, 499_998, 499_999]
            .iter()
            .map(|e| 2 * e)
            .collect();
        assert_eq!(taken_ints(&last), want);
        assert_eq!(df.slots(), threads);
        match slots.value().unwrap() {
            ResultValue::Number(s) => assert!(s < threads as f64, "{s}"),
            other => panic!("{other:?}"),
        }
        // Written out, the entry numbers keep RDataFrame's type (`ULong64_t`).
        let out = dir.join(format!("entries-{threads}.root"));
        let options = rootweave::analysis::SnapshotOptions::default();
        let kept = df.filter("x % 100000 == 3", None).unwrap();
        let skim = kept
            .snapshot("s", &out, &["rdfentry_", "x"], &options)
            .unwrap();
        let reader = rootweave::ttree::TTreeReader::open(&out, "s").unwrap();
        let read = reader.read(&["rdfentry_"], 0..6).unwrap();
        let want = vec![3, 100_003, 200_003, 250_003, 350_003, 450_003];
        assert_eq!(read[0].1, Array::UInt64(want));
        // Read back, the name is the skim's own numbering, as ROOT reads such a branch.
        let renumbered = taken_ints(&skim.take("rdfentry_").unwrap());
        assert_eq!(renumbered, (0..6).collect::<Vec<i64>>());
    }
    // A partition of a larger dataset numbers its entries from where it starts there.
    let sources = vec![Source::new(&paths[1], Some("t")).with_entries(10..20)];
    let dataset = Dataset::new(sources, ReadOptions::default()).unwrap();
    let part = Frame::new(dataset.with_first_entry(260_000));
    let numbers = taken_ints(&part.take("rdfentry_").unwrap());
    assert_eq!(numbers, (260_000..260_010).collect::<Vec<i64>>());
    // A misspelt special column is an unknown column, named; a special one is not defined.
    let df = frame(&paths, 1);
    let err = df.define("e", "rdfentry + 1").err().unwrap();
    assert!(
        err.to_string().contains("unknown column 'rdfentry'"),
        "{err}"
    );
    let err = df.define("rdfslot_", "x").err().unwrap();
    assert!(err.to_string().contains("special column"), "{err}");
    let err = df
        .vary("rdfentry_", "{x, x}", &["a", "b"], "v")
        .err()
        .unwrap();
    assert!(err.to_string().contains("cannot vary"), "{err}");
    let aliased = df
        .alias("entry", "rdfentry_")
        .unwrap()
        .range(0, Some(3), 1)
        .unwrap();
    assert_eq!(taken_ints(&aliased.take("entry").unwrap()), vec![0, 1, 2]);
    assert!(df.has_column("rdfentry_").unwrap() && df.has_column("rdfslot_").unwrap());
    assert!(!df
        .column_names()
        .unwrap()
        .contains(&"rdfentry_".to_string()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_profile_of_two_axes_averages_per_cell_as_tprofile2d() {
    let (dir, paths) = written("profile2d", 1, 10_000);
    let mut model = Model::regular("p", "", 2, 0.0, 10_000.0);
    let by_four = Model::regular("", "", 4, 0.0, 4.0);
    model.axes.extend(by_four.axes);
    let df = frame(&paths, 2).define("k", "x % 4").unwrap();
    let p = df.profile2d(model, ["x", "k", "x"], None).unwrap();
    let ResultValue::Histogram(h) = p.value().unwrap() else {
        panic!("a histogram");
    };
    assert_eq!(h.class, "TProfile2D");
    let bins = h.profile.as_ref().unwrap();
    // Cell (i, j) holds the x < 5000 (i = 1) or above (i = 2) with x % 4 = j - 1: 1250 of
    // them, whose sum is the cell's content (the sum of w z).
    for (i, j) in [(1usize, 1usize), (2, 4)] {
        let cell = i + 4 * j;
        let xs = (0..10_000).filter(|x| x / 5000 == i - 1 && x % 4 == j - 1);
        assert_eq!(bins.bin_entries[cell], 1250.0);
        assert_eq!(h.cells[cell], xs.map(|x| x as f64).sum::<f64>());
    }
    let stat = |n: &str| h.stats.iter().find(|(k, _)| k == n).unwrap().1;
    let sum_xy: f64 = (0..10_000).map(|x| (x * (x % 4)) as f64).sum();
    assert_eq!(
        (stat("fTsumw"), stat("fTsumwxy"), h.entries),
        (10_000.0, sum_xy, 10_000.0)
    );
    // A model's range of values: the others dropped before they are counted.
    let mut model = Model::regular("p", "", 2, 0.0, 10_000.0);
    model.axes.extend(Model::regular("", "", 4, 0.0, 4.0).axes);
    let kept = rootweave::analysis::ProfileModel::from(model).with_values(0.0, 2499.0);
    let ranged = df.profile2d(kept.with_option("s").unwrap(), ["x", "k", "x"], None);
    let ResultValue::Histogram(r) = ranged.unwrap().value().unwrap() else {
        panic!("a histogram");
    };
    let p = r.profile.as_ref().unwrap();
    assert_eq!((r.entries, p.value_min, p.value_max), (2500.0, 0.0, 2499.0));
    assert_eq!(p.error_mode, rootweave::objects::ErrorMode::Spread);
    let bad = rootweave::analysis::ProfileModel::from(Model::regular("p", "", 2, 0.0, 1.0));
    assert!(bad.with_option("x").is_err());
    // A model of one axis for two columns is refused before any reading.
    let one = Model::regular("p", "", 2, 0.0, 1.0);
    let err = df.profile2d(one, ["x", "k", "x"], None).err().unwrap();
    assert!(err.to_string().contains("one column per axis"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn column_types_are_spelled_as_rdataframe_spells_them() {
    let (_, paths) = written("types", 1, 1_000);
    let df = frame(&paths, 1);
    let df = df
        .define("n", "x + 1u")
        .unwrap()
        .define("mask", "v > 1")
        .unwrap()
        .define("big", "v.size() + rdfentry_")
        .unwrap()
        .alias("w", "v")
        .unwrap()
        .alias("w2", "w")
        .unwrap()
        .redefine("x", "x * 2.0f")
        .unwrap()
        .define("pairs", "Combinations(v, 2)")
        .unwrap()
        .define("p4", "ROOT::Math::PtEtaPhiMVector(v, v, v, v)")
        .unwrap();
    let twice: rootweave::analysis::ColumnFn = Arc::new(|cols: &[Column]| Ok(cols[0].clone()));
    let df = df.define_with("copy", &["n"], twice).unwrap();
    // Each as ROOT 6.40's `GetColumnType` names it for such a tree.
    let expect = [
        ("v", "ROOT::VecOps::RVec<float>"),
        ("w", "ROOT::VecOps::RVec<float>"),
        ("w2", "ROOT::VecOps::RVec<float>"),
        ("x", "float"),
        ("n", "unsigned int"),
        ("copy", "unsigned int"),
        ("mask", "ROOT::VecOps::RVec<int>"),
        ("big", "ULong64_t"),
        ("rdfslot_", "unsigned int"),
        (
            "pairs",
            "ROOT::VecOps::RVec<ROOT::VecOps::RVec<unsigned long> >",
        ),
        (
            "p4",
            "ROOT::VecOps::RVec<ROOT::Math::LorentzVector<ROOT::Math::PtEtaPhiM4D<double> > >",
        ),
    ];
    for (name, ty) in expect {
        assert_eq!(df.column_type(name).unwrap(), ty, "{name}");
    }
    // The dataset's `x`, below the `Redefine`'s node: a leaf's name.
    assert_eq!(frame(&paths, 1).column_type("x").unwrap(), "Int_t");
    let e = df.column_type("nope").unwrap_err().to_string();
    assert!(e.contains("unknown column 'nope'"), "{e}");
    // As in RDataFrame, an alias's name is new, and an alias is not defined, redefined or varied.
    let refused = [
        df.alias("w", "x").err(),
        df.alias("x", "v").err(),
        df.alias("n", "v").err(),
        df.define("w", "1").err(),
        df.redefine("w2", "v * 2").err(),
        df.vary("w", "{w, w}", &["a", "b"], "s").err(),
    ];
    let messages: Vec<String> = refused.iter().flatten().map(|e| e.to_string()).collect();
    assert_eq!(messages.len(), 6, "{messages:?}");
    assert!(
        messages[0].contains("'w' is an alias (of 'v')"),
        "{messages:?}"
    );
    assert!(
        messages[1].contains("column 'x' already exists"),
        "{messages:?}"
    );
    assert!(
        messages[5].starts_with("invalid argument: Vary: 'w' is an alias"),
        "{messages:?}"
    );
}

#[test]
fn values_per_sample_keep_their_c_types() {
    let (_, paths) = written("per-sample", 2, 100);
    let df = frame(&paths, 2)
        .define_per_sample_values("lumi", Values::Int(IntTy::INT, vec![10, 3]))
        .unwrap()
        .define("half", "lumi / 2")
        .unwrap();
    // An `int` per sample divides as integers, as ROOT's `GetI` column does.
    assert_eq!(df.column_type("lumi").unwrap(), "int");
    assert_eq!(df.column_type("half").unwrap(), "int");
    let taken = df.take("half").unwrap();
    let mut want = vec![5; 100];
    want.extend([1; 100]);
    assert_eq!(taken_ints(&taken), want);
    let Err(e) = frame(&paths, 1).define_per_sample_values("w", Values::F64(vec![1.0])) else {
        panic!("one value for two samples");
    };
    let e = e.to_string();
    assert!(
        e.contains("DefinePerSample 'w': 1 values for 2 samples"),
        "{e}"
    );
}

#[test]
fn columns_varied_together_take_the_nominal_values() {
    let (dir, paths) = written("varied-together", 1, 50_000);
    let book = |df: &Frame| -> Vec<rootweave::analysis::Booked> {
        let cut = df.filter("s > 5000", None).unwrap();
        vec![
            cut.sum("s").unwrap(),
            cut.histo1d(Model::regular("v", "", 40, 0.0, 1e5), "v", None)
                .unwrap(),
            df.define("n", "Sum(v > s)").unwrap().sum("n").unwrap(),
        ]
    };
    let scaled = frame(&paths, 2).define("s", "x * 0.5").unwrap();
    // `v`'s values use `s`: the nominal one, as RDataFrame computes every varied column of
    // one `Vary` from the nominal columns.
    let varied = scaled
        .vary_columns(
            &["s", "v"],
            "ROOT::RVec<ROOT::RVecD>{{s * 0.9, s * 1.1}, {v - float(s), v + float(s)}}",
            &["down", "up"],
            "both",
        )
        .unwrap();
    let results: Vec<Vec<(String, ResultValue)>> = book(&varied)
        .iter()
        .map(|b| {
            let all = Frame::variations_for(b).unwrap();
            all.into_iter()
                .map(|(name, r)| (name, r.value().unwrap()))
                .collect()
        })
        .collect();
    for (k, (f, op)) in [("both:down", ("0.9", "-")), ("both:up", ("1.1", "+"))] {
        let direct = frame(&paths, 2).define("s0", "x * 0.5").unwrap();
        let direct = direct
            .define("s", &format!("s0 * {f}"))
            .unwrap()
            .redefine("v", &format!("v {op} float(s0)"))
            .unwrap();
        let want: Vec<ResultValue> = book(&direct).iter().map(|b| b.value().unwrap()).collect();
        let got: Vec<ResultValue> = results
            .iter()
            .map(|r| match r.iter().find(|(n, _)| n == k) {
                Some((_, v)) => nominal_named(v, k),
                None => r[0].1.clone(),
            })
            .collect();
        assert_eq!(got, want, "{k}");
    }
    // The same list for both columns, written twice (parsed as one shared part).
    let twice = scaled.define("t", "x * 0.25").unwrap();
    let twice = twice
        .vary_columns(&["s", "t"], "{{s * 2.0}, {s * 2.0}}", &["up"], "same")
        .unwrap();
    let sums = [twice.sum("s").unwrap(), twice.sum("t").unwrap()];
    let direct = frame(&paths, 2).define("s0", "x * 0.5").unwrap();
    let doubled = direct.define("s", "s0 * 2.0").unwrap();
    let doubled = doubled.define("t", "s0 * 2.0").unwrap();
    for (booked, column) in sums.iter().zip(["s", "t"]) {
        let all = Frame::variations_for(booked).unwrap();
        let (name, up) = &all[1];
        assert_eq!(name, "same:up");
        let want = doubled.sum(column).unwrap().value().unwrap();
        assert_eq!(up.value().unwrap(), want, "{column}");
    }
    // One list per column, one value per tag.
    let e = scaled
        .vary_columns(&["s", "v"], "{{s * 0.9, s * 1.1}}", &["down", "up"], "b")
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("1 lists of values for 2 columns"), "{e}");
    let e = scaled
        .vary_columns(&["s", "s"], "{{s, s}, {s, s}}", &["down", "up"], "b")
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("column 's' given twice"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_empty_source_numbers_its_entries_and_snapshots_what_is_defined() {
    let dir = scratch("generated");
    for threads in [1, 2] {
        let sources = vec![Source::empty(250_003)];
        let options = ReadOptions::default().with_threads(threads);
        let df = Frame::new(Dataset::new(sources, options).unwrap());
        assert!(df.column_names().unwrap().is_empty());
        let err = df.define("y", "x + 1").err().unwrap();
        assert!(err.to_string().contains("unknown column 'x'"), "{err}");
        let df = df.define("x", "(int)(rdfentry_ % 7) - 3").unwrap();
        assert_eq!(df.column_type("x").unwrap(), "int");
        let kept = df.filter("x > 0", None).unwrap();
        let count = kept.count().unwrap();
        let sum = kept.sum("x").unwrap();
        let last = kept
            .range(0, Some(4), 1)
            .unwrap()
            .take("rdfentry_")
            .unwrap();
        // 250,003 = 7 * 35,714 + 5: x is 1, 2, 3 for remainders 4, 5, 6 (the last 5 entries
        // end at remainder 4).
        let want = 35_714 * 3 + 1;
        let got = count.value().unwrap();
        assert!(matches!(got, ResultValue::Count(n) if n == want), "{got:?}");
        let sum_want = 35_714 * 6 + 1;
        assert!(matches!(sum.value().unwrap(), ResultValue::Number(s) if s == sum_want as f64));
        assert_eq!(taken_ints(&last), vec![4, 5, 6, 11]);
        let description = df.describe().unwrap().as_string(true);
        assert!(
            description.starts_with("Empty dataframe filling 250003 rows"),
            "{description}"
        );
        let out = dir.join(format!("generated-{threads}.root"));
        let written = kept.snapshot("g", &out, &[], &Default::default()).unwrap();
        assert_eq!(written.column_names().unwrap(), vec!["x".to_string()]);
        let reader = rootweave::ttree::TTreeReader::open(&out, "g").unwrap();
        assert_eq!(reader.entries(), want);
        let read = reader.read(&["x"], 0..5).unwrap();
        assert_eq!(read[0].1, Array::Int32(vec![1, 2, 3, 1, 2]));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn defined_four_vectors_are_snapshot_as_roots_class() {
    use rootweave::analysis::{SnapshotFormat, SnapshotOptions};
    let dir = scratch("four-vectors");
    let options = ReadOptions::default().with_threads(2);
    let df = Frame::new(Dataset::new(vec![Source::empty(5)], options).unwrap())
        .define("x", "rdfentry_ * 1.5")
        .unwrap()
        .define("p4", "ROOT::Math::PtEtaPhiMVector(x, 0.5, 1.0, 2.0)")
        .unwrap()
        .define("q", "ROOT::Math::PtEtaPhiMVector(x, 0.0, 0.0, 0.0)")
        .unwrap()
        .define(
            "v",
            "Construct<ROOT::Math::PtEtaPhiMVector>(ROOT::RVec<double>{x, x + 1}, \
             ROOT::RVec<double>{0.5, 1.5}, ROOT::RVec<double>{0.0, 1.0}, \
             ROOT::RVec<double>{1.0, 2.0})",
        )
        .unwrap();
    let p4 = "ROOT::Math::LorentzVector<ROOT::Math::PtEtaPhiM4D<double> >";
    // A TTree: a branch of the class split as ROOT splits it, two objects' members side by
    // side under the same names; read back as the class, members in ROOT's order.
    let out = dir.join("p4.root");
    let written = df
        .snapshot("t", &out, &["p4", "q", "v"], &Default::default())
        .unwrap();
    assert_eq!(written.column_type("p4").unwrap(), p4);
    let list = format!("ROOT::VecOps::RVec<{p4}>"); // as ROOT types the std::vector
    assert_eq!(written.column_type("v").unwrap(), list);
    let tree = rootweave::ttree::TTreeReader::open(&out, "t").unwrap();
    let names = tree.branch_names();
    assert_eq!(names[0], "p4");
    assert!(
        names.contains(&"p4/fCoordinates/fCoordinates.fPt".to_string()),
        "{names:?}"
    );
    let read = tree
        .read(&["q/fCoordinates/fCoordinates.fPt"], 0..5)
        .unwrap();
    assert_eq!(read[0].1, Array::Float64(vec![0.0, 1.5, 3.0, 4.5, 6.0]));
    let Array::Record { fields, .. } = &tree.read(&["p4"], 1..2).unwrap()[0].1 else {
        panic!("a record")
    };
    assert_eq!(fields[0].0, "fCoordinates");
    // Read back, they are four-vectors again, which expressions take.
    let sums = |df: &Frame| {
        let e = "(p4 + q).E() * 1000 + (v[0] + v[1]).M() * 10 + v.size()";
        let df = df.define("e", e).unwrap();
        let taken = df.define("k", "(long)e").unwrap().take("k").unwrap();
        assert_eq!(df.column_type("e").unwrap(), "double");
        taken_ints(&taken)
    };
    let want = sums(&df);
    assert_eq!(want.len(), 5);
    assert!(want[1] > 0);
    assert_eq!(sums(&written), want);
    // An RNTuple: a field of the class, named as ROOT's RNTuple names it.
    let options = SnapshotOptions {
        format: SnapshotFormat::RNTuple,
        ..Default::default()
    };
    let out = dir.join("p4-rntuple.root");
    let written = df.snapshot("n", &out, &["p4"], &options).unwrap();
    assert_eq!(
        written.column_type("p4").unwrap(),
        "ROOT::Math::LorentzVector<ROOT::Math::PtEtaPhiM4D<double>>"
    );
    let columns = written.column_names().unwrap();
    assert!(
        columns.contains(&"p4.fCoordinates.fM".to_string()),
        "{columns:?}"
    );
    let pt = written.define("pt", "p4.Pt()").unwrap().take("pt").unwrap();
    let ResultValue::Column(Column::Flat(v)) = pt.value().unwrap() else {
        panic!("a column")
    };
    assert_eq!(*v, Values::F64(vec![0.0, 1.5, 3.0, 4.5, 6.0]));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn columns_in_memory_are_read_as_a_file_s() {
    use rootweave::dataset::MemoryColumns;
    let x: Vec<f32> = (0..150_000).map(|i| i as f32 * 0.5).collect();
    let n: Vec<i64> = (0..150_000).map(|i| i % 5).collect();
    let columns = vec![
        ("x".to_string(), Array::Float32(x.clone())),
        ("n".to_string(), Array::Int64(n.clone())),
    ];
    let memory = MemoryColumns::new(columns).unwrap();
    for threads in [1, 2] {
        // A partition beyond the columns' end reads up to it.
        let sources = vec![
            Source::in_memory(memory.clone()),
            Source::in_memory(memory.clone()).with_entries(149_990..200_000),
        ];
        let options = ReadOptions::default().with_threads(threads);
        let df = Frame::new(Dataset::new(sources, options).unwrap());
        assert_eq!(df.column_names().unwrap(), vec!["n", "x"]); // sorted, as ROOT lists them
        assert_eq!(df.column_type("x").unwrap(), "float");
        assert_eq!(df.column_type("n").unwrap(), "Long64_t");
        let kept = df.filter("n == 4", None).unwrap();
        let sum = kept.sum("x").unwrap();
        let count = kept.count().unwrap();
        let want: f64 = (0..150_000)
            .chain(149_990..150_000)
            .filter(|i| i % 5 == 4)
            .map(|i| x[i] as f64)
            .sum();
        assert!(matches!(sum.value().unwrap(), ResultValue::Number(s) if s == want));
        assert!(matches!(count.value().unwrap(), ResultValue::Count(30_002)));
        let described = df.describe().unwrap().as_string(true);
        assert!(
            described.starts_with("Dataframe from datasource RVecDS"),
            "{described}"
        );
        // A failure names the source as memory.
        let fails: rootweave::analysis::ColumnFn = Arc::new(|_: &[Column]| Err("no".into()));
        let bad = df
            .define_with("bad", &["x"], fails)
            .unwrap()
            .sum("bad")
            .unwrap();
        let e = bad.value().unwrap_err().to_string();
        assert!(e.contains("memory: ") && e.contains("no"), "{e}");
    }
}

/// The values of a `Take` of lists of floats, per event.
fn taken_lists(b: &rootweave::analysis::Booked) -> Vec<Vec<f32>> {
    match b.value().unwrap() {
        ResultValue::Column(Column::Jagged(offsets, v)) => match &*v {
            Values::F32(x) => offsets.windows(2).map(|w| x[w[0]..w[1]].to_vec()).collect(),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

#[test]
fn columns_missing_from_some_sources_take_defaults_or_filters_as_root_s() {
    use rootweave::dataset::MemoryColumns;
    // As ROOT's tutorial df036: (x, y), then y alone, then x alone, five entries each.
    let ints = |k: i32| Array::Int32((1..=5).map(|i| k * i).collect());
    let memory = |columns: Vec<(&str, Array)>| {
        let named = columns
            .into_iter()
            .map(|(n, a)| (n.to_string(), a))
            .collect();
        Source::in_memory(MemoryColumns::new(named).unwrap())
    };
    for threads in [1, 2] {
        let sources = vec![
            memory(vec![("x", ints(1)), ("y", ints(2))]),
            memory(vec![("y", ints(3))]),
            memory(vec![("x", ints(4))]),
        ];
        let options = ReadOptions::default().with_threads(threads);
        let df = Frame::new(Dataset::new(sources, options).unwrap());
        let both = df
            .default_value_for("x", Array::Int64(vec![-1]))
            .unwrap()
            .default_value_for("y", Array::Int64(vec![-2]))
            .unwrap();
        assert_eq!(both.column_type("x").unwrap(), "int");
        let (x, y) = (both.take("x").unwrap(), both.take("y").unwrap());
        let doubled = both.define("x2", "x * 2").unwrap().sum("x2").unwrap();
        let with_x = df
            .default_value_for("y", Array::Int64(vec![-2]))
            .unwrap()
            .filter_available("x")
            .unwrap();
        assert_eq!(with_x.filter_names(), vec!["FilterAvailable"]);
        let (x_kept, y_kept) = (with_x.take("x").unwrap(), with_x.take("y").unwrap());
        let big = with_x
            .filter("x > 2", Some("big"))
            .unwrap()
            .report()
            .unwrap();
        let without_y = df.filter_missing("y").unwrap().take("x").unwrap();
        let nowhere = df.default_value_for("nope", Array::Int32(vec![2])).unwrap();
        let nopes = nowhere.sum("nope").unwrap();
        let none = df.filter_available("nope").unwrap().count().unwrap();
        let all = df.filter_missing("nope").unwrap().count().unwrap();
        assert_eq!(
            taken_ints(&x),
            vec![1, 2, 3, 4, 5, -1, -1, -1, -1, -1, 4, 8, 12, 16, 20]
        );
        assert_eq!(
            taken_ints(&y),
            vec![2, 4, 6, 8, 10, 3, 6, 9, 12, 15, -2, -2, -2, -2, -2]
        );
        assert!(matches!(doubled.value().unwrap(), ResultValue::Number(s) if s == 140.0));
        assert_eq!(taken_ints(&x_kept), vec![1, 2, 3, 4, 5, 4, 8, 12, 16, 20]);
        assert_eq!(
            taken_ints(&y_kept),
            vec![2, 4, 6, 8, 10, -2, -2, -2, -2, -2]
        );
        assert_eq!(cut_flow(&big), vec![("big".to_string(), 8, 10)]);
        assert_eq!(taken_ints(&without_y), vec![4, 8, 12, 16, 20]);
        assert!(matches!(nopes.value().unwrap(), ResultValue::Number(s) if s == 30.0));
        assert!(matches!(none.value().unwrap(), ResultValue::Count(0)));
        assert!(matches!(all.value().unwrap(), ResultValue::Count(15)));
        // Below FilterAvailable no event of such a source needs it.
        let sum = df.filter_available("x").unwrap().sum("x").unwrap();
        assert!(matches!(sum.value().unwrap(), ResultValue::Number(s) if s == 75.0));
        // Used without a default where a source lacks it: an error naming the source.
        let e = df.take("x").unwrap().value().unwrap_err().to_string();
        assert!(
            e.contains("memory: ") && e.contains("'x' is not in this source"),
            "{e}"
        );
        let e = df.default_value_for("x", Array::Float64(vec![2.5])).err();
        assert!(format!("{e:?}").contains("not a value of the column's type int"));
        let e = df.default_value_for("x", Array::Int32(vec![1, 2])).err();
        assert!(format!("{e:?}").contains("an array of 2 entries, not one"));
    }
    // A partition whose first source lacks x knows the columns of the whole dataset's.
    let part = vec![memory(vec![("y", ints(3))]), memory(vec![("x", ints(4))])];
    let df = Frame::new(Dataset::new(part, ReadOptions::default()).unwrap());
    assert!(df
        .filter_available("x")
        .unwrap()
        .filter("x > 8", None)
        .is_err());
    let whole_first = memory(vec![("x", ints(1)), ("y", ints(2))]);
    let df = df.with_schema(whole_first);
    let big = df
        .filter_available("x")
        .unwrap()
        .filter("x > 8", None)
        .unwrap();
    let sum = big.sum("x").unwrap();
    assert!(matches!(sum.value().unwrap(), ResultValue::Number(s) if s == 48.0));
    // Lists: a default list where a tree's list branch is missing.
    let dir = scratch("missing");
    let path = dir.join("t.root");
    write(&path, 8);
    let sources = vec![
        Source::new(&path, Some("t")),
        memory(vec![("x", Array::Int32(vec![100, 101]))]),
    ];
    let df = Frame::new(Dataset::new(sources, ReadOptions::default()).unwrap());
    let empty = Array::List {
        offsets: vec![0, 2],
        values: Box::new(Array::Float64(vec![-1.0, 0.5])),
    };
    let v = df.default_value_for("v", empty).unwrap().take("v").unwrap();
    let lists = taken_lists(&v);
    assert_eq!(lists.len(), 10);
    assert_eq!(lists[3], vec![3.0, 3.1, 3.2]);
    assert_eq!(lists[8], vec![-1.0, 0.5]);
    assert_eq!(lists[9], vec![-1.0, 0.5]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cache_holds_a_selection_s_columns_in_memory_in_entry_order() {
    let (dir, paths) = written("cache", 2, 30_000);
    for threads in [1, 2] {
        let df = frame(&paths, threads);
        let kept = df
            .filter("x % 3 == 0", None)
            .unwrap()
            .define("y", "x * 2.5")
            .unwrap();
        let (sum, lists) = (kept.sum("y").unwrap(), kept.take("v").unwrap());
        let cached = kept.cache(&["x", "y", "v"]).unwrap();
        assert_eq!(cached.column_names().unwrap(), vec!["v", "x", "y"]);
        assert_eq!(cached.column_type("y").unwrap(), "double");
        // Lazy, as ROOT's: nothing has run yet; a result booked on the cached graph now is
        // computed in the pass that takes the values.
        let count = df.count().unwrap();
        assert_eq!((df.runs(), sum.is_ready()), (0, false));
        let again = cached.sum("y").unwrap();
        let entries = cached.take("rdfentry_").unwrap();
        let x = cached.take("x").unwrap();
        assert!(matches!(again.value().unwrap(), ResultValue::Number(s)
            if ResultValue::Number(s) == sum.value().unwrap()));
        assert_eq!(taken_lists(&cached.take("v").unwrap()), taken_lists(&lists));
        assert_eq!(taken_ints(&entries), (0..20_000).collect::<Vec<i64>>());
        assert!(matches!(count.value().unwrap(), ResultValue::Count(60_000)));
        // One pass took the values, the sum, the lists and the count.
        assert_eq!(df.runs(), 1);
        let want: Vec<i64> = (0..30_000)
            .step_by(3)
            .chain((0..30_000).step_by(3))
            .collect();
        assert_eq!(taken_ints(&x), want);
        // Every column that holds numbers, when none are named.
        let all = kept.cache(&[]).unwrap();
        assert_eq!(all.column_names().unwrap(), vec!["v", "x", "y"]);
        // Kept in ROOT's order: the defined column first.
        assert_eq!(all.regex_candidates().unwrap()[0], "y");
        let e = kept.cache(&["nope"]).err().unwrap().to_string();
        assert!(e.contains("Cache") && e.contains("nope"), "{e}");
        // A C++ long stays one (RDataFrame's cache keeps `unsigned long`).
        let sizes = kept.define("n", "v.size()").unwrap().cache(&["n"]).unwrap();
        assert_eq!(sizes.column_type("n").unwrap(), "unsigned long");
        let more = sizes.define("m", "n + 1").unwrap();
        assert_eq!(more.column_type("m").unwrap(), "unsigned long");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The strings of a `Take` of one string per event.
fn taken_strings(b: &rootweave::analysis::Booked) -> Vec<String> {
    match b.value().unwrap() {
        ResultValue::Column(Column::Flat(v)) => match &*v {
            Values::Str(x) => x
                .iter()
                .map(|s| String::from_utf8(s.to_vec()).unwrap())
                .collect(),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

#[test]
fn string_columns_are_compared_taken_and_written() {
    use rootweave::analysis::{SnapshotFormat, SnapshotOptions};
    use rootweave::array::{ColumnData, LeafType};
    use rootweave::ttree::{BranchSpec, TTreeWriteOptions, TTreeWriter};
    let dir = scratch("strings");
    let path = dir.join("t.root");
    let words = ["HLT_Mu", "", "caf\u{e9}", "Zed"];
    let names: Vec<String> = (0..1000).map(|i| words[i % 4].to_string()).collect();
    let x: Vec<i32> = (0..1000).collect();
    let branches = vec![
        BranchSpec::scalar("x", LeafType::Int32),
        BranchSpec::string("name"),
        BranchSpec::c_string("c"),
        BranchSpec::tstring("label"),
    ];
    let zlib = rootweave::compress::Compression::ROOT_FILE_DEFAULT;
    let mut w =
        TTreeWriter::recreate(&path, "t", branches, zlib, TTreeWriteOptions::default()).unwrap();
    w.extend(&[
        ColumnData::Int32(&x),
        ColumnData::Strings(&names),
        ColumnData::Strings(&names),
        ColumnData::Strings(&names),
    ])
    .unwrap();
    w.close().unwrap();
    for threads in [1, 2] {
        let df = frame(std::slice::from_ref(&path), threads);
        let muons = df
            .filter(r#"name == "HLT_Mu" || name > "Z""#, None)
            .unwrap();
        // "café" > "Z": bytes compare as unsigned characters.
        let kept: Vec<String> = (0..1000)
            .filter(|i| i % 4 != 1)
            .map(|i| words[i % 4].to_string())
            .collect();
        assert_eq!(taken_strings(&muons.take("name").unwrap()), kept);
        let long = df.define("n", "name.size() + x % 2").unwrap();
        let sum = long.sum("n").unwrap().value().unwrap();
        // "café" is five bytes in UTF-8.
        assert_eq!(sum, ResultValue::Number((6 + 5 + 3) as f64 * 250.0 + 500.0));
        // Written to an RNTuple and read back, in order.
        let out = dir.join(format!("s{threads}.root"));
        let options = SnapshotOptions {
            format: SnapshotFormat::RNTuple,
            ..SnapshotOptions::default()
        };
        let skim = muons.snapshot("s", &out, &["x", "name"], &options).unwrap();
        assert_eq!(taken_strings(&skim.take("name").unwrap()), kept);
        let empty = skim.filter("name.empty()", None).unwrap();
        assert_eq!(
            empty.count().unwrap().value().unwrap(),
            ResultValue::Count(0)
        );
        // A TString column stays one in a TTree snapshot, as ROOT writes it.
        let out = dir.join(format!("l{threads}.root"));
        // So does a column defined as one alone, as ROOT's definition returns it.
        let kept = muons
            .filter("label == name", None)
            .unwrap()
            .define("same", "label")
            .unwrap()
            // And `TString`s joined with literals by `+`, as `TString`'s `operator+` gives
            // one; a `std::string` joined so stays a `string`.
            .define("joined", r#""<" + same + ">" + label"#)
            .unwrap()
            .define("plain", r#"name + "!""#)
            .unwrap();
        let columns = ["label", "same", "joined", "plain"];
        let skim = kept
            .snapshot("s", &out, &columns, &SnapshotOptions::default())
            .unwrap();
        assert_eq!(df.column_type("label").unwrap(), "TString");
        for column in ["label", "same", "joined"] {
            assert_eq!(kept.column_type(column).unwrap(), "TString", "{column}");
            assert_eq!(skim.column_type(column).unwrap(), "TString", "{column}");
        }
        assert_eq!(kept.column_type("plain").unwrap(), "string");
        assert_eq!(skim.column_type("plain").unwrap(), "string");
        let labels = taken_strings(&skim.take("label").unwrap());
        assert_eq!(taken_strings(&skim.take("same").unwrap()), labels);
        let joined: Vec<String> = labels.iter().map(|l| format!("<{l}>{l}")).collect();
        assert_eq!(taken_strings(&skim.take("joined").unwrap()), joined);
        assert_eq!(
            skim.count().unwrap().value().unwrap(),
            ResultValue::Count(750)
        );
        // A C string leaf is refused by name, as RDataFrame reads it as characters.
        let err = df
            .filter(r#"c == "Zed""#, None)
            .unwrap()
            .count()
            .unwrap()
            .value();
        let err = err.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("column 'c' is a C string leaf"), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn expressions_of_unfit_types_are_errors_when_made() {
    let (dir, paths) = written("types", 1, 1000);
    let df = frame(&paths, 1);
    for (text, message) in [
        ("Sum(x) > 0", "Sum takes an RVec, not a int"),
        (r#"x == "a""#, "'==' of a string and a int"),
        ("v.Pt() > 1", "a float where a four-vector is needed"),
    ] {
        let err = df.filter(text, None).err().map(|e| e.to_string());
        let err = err.unwrap_or_default();
        assert!(
            err.contains(message) && err.contains(&format!("expression '{text}' at position")),
            "{text}: {err}"
        );
        assert!(df.define("bad", text).is_err() && df.redefine("x", text).is_err());
    }
    // A function's column has no type before it runs: what uses it is checked then.
    let ones: rootweave::analysis::ColumnFn = Arc::new(|c: &[Column]| match &c[0] {
        Column::Flat(v) => Ok(Column::Flat(Values::F64(vec![1.0; v.len()]).into())),
        _ => Err("one number per event".into()),
    });
    let f = df.define_with("one", &["x"], ones).unwrap();
    let sum = f.define("two", "one + one").unwrap().sum("two").unwrap();
    assert_eq!(sum.value().unwrap(), ResultValue::Number(2000.0));
    let late = f.define("bad", "Sum(one)").unwrap().sum("bad").unwrap();
    assert!(late.value().is_err());
    // A defined column is probed once: its function is called once for every type asked of
    // it and of what is defined on it, and a chain of definitions keeps its types.
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = calls.clone();
    let halves: rootweave::analysis::ColumnFn = Arc::new(move |c: &[Column]| {
        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        match &c[0] {
            Column::Flat(v) => Ok(Column::Flat(Values::F32(vec![0.5; v.len()]).into())),
            _ => Err("one number per event".into()),
        }
    });
    let mut chain = df.define_with("h0", &["x"], halves).unwrap();
    for i in 1..50 {
        chain = chain
            .define(&format!("h{i}"), &format!("h{} * 2", i - 1))
            .unwrap();
    }
    assert_eq!(chain.column_type("h0").unwrap(), "float");
    assert_eq!(chain.column_type("h49").unwrap(), "float");
    assert_eq!(chain.column_type("h25").unwrap(), "float");
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_graph_holds_a_point_per_value_in_entry_order_at_any_thread_count() {
    let (dir, paths) = written("graph", 2, 4000);
    let points = |threads: usize, x: &str, y: &str| {
        let df = frame(&paths, threads).define("w", "v * 2").unwrap();
        let df = df.define("xx", "x * x").unwrap();
        match df.graph(x, y).unwrap().value().unwrap() {
            ResultValue::Graph(g) => *g,
            other => panic!("{other:?}"),
        }
    };
    let one = points(1, "x", "xx");
    assert_eq!(
        (one.name.as_str(), one.title.as_str()),
        ("xx_vs_x", "xx vs x")
    );
    let x: Vec<f64> = (0..2).flat_map(|_| (0..4000).map(f64::from)).collect();
    assert_eq!(one.x, x);
    assert_eq!(one.y, x.iter().map(|v| v * v).collect::<Vec<_>>());
    assert_eq!(points(3, "x", "xx"), one);
    // Lists give a point per pair of items: v's items, each twice as w's.
    let lists = points(2, "v", "w");
    let items: Vec<f64> = (0..2)
        .flat_map(|_| (0..4000).flat_map(|i| (0..i % 4).map(move |k| i as f32 + k as f32 / 10.0)))
        .map(f64::from)
        .collect();
    assert_eq!(lists.x, items);
    assert_eq!(lists.y, lists.x.iter().map(|v| v * 2.0).collect::<Vec<_>>());
    // A list against a number is refused when booked; lists of different lengths when run.
    let df = frame(&paths, 2);
    let e = df.graph("x", "v").err().expect("refused").to_string();
    assert!(
        e.contains(r#"a graph of columns ["x", "v"]: lists and numbers"#),
        "{e}"
    );
    let e = df.graph_asymm_errors("v", "v", ["v", "v", "x", "v"]);
    assert!(e
        .err()
        .expect("refused")
        .to_string()
        .contains("lists and numbers"));
    // Errors from four more columns, a `TGraphAsymmErrors`.
    let errors = df.define("e", "x * 0.5").unwrap();
    let e = errors
        .graph_asymm_errors("x", "x", ["e", "e", "x", "e"])
        .unwrap();
    match e.value().unwrap() {
        ResultValue::Graph(g) => {
            assert_eq!(g.x, x);
            let [exl, _, eyl, eyh] = g.errors.expect("errors");
            assert_eq!((&exl, &eyl), (&x.iter().map(|v| v * 0.5).collect(), &x));
            assert_eq!(eyh, exl);
        }
        other => panic!("{other:?}"),
    }
    let shorter = df.define("u", "Take(v, v.size() / 2)").unwrap();
    let e = shorter
        .graph("v", "u")
        .unwrap()
        .value()
        .unwrap_err()
        .to_string();
    assert!(e.contains("lists of different lengths"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn statistics_fill_each_value_with_its_weight_at_any_thread_count() {
    let (dir, paths) = written("stats", 2, 4000);
    let stat = |threads: usize, value: &str, weight: Option<&str>| {
        let df = frame(&paths, threads).define("w", "x % 3 * 1.0").unwrap();
        match df.stats(value, weight).unwrap().value().unwrap() {
            ResultValue::Statistic(s) => *s,
            other => panic!("{other:?}"),
        }
    };
    // x = 0..4000 in each file, weights 0, 1, 2 by x % 3: those of zero weight not counted.
    let s = stat(1, "x", Some("w"));
    let (n, w, m) = (0..2)
        .flat_map(|_| 0..4000)
        .fold((0, 0.0, 0.0), |(n, w, m), x| {
            let weight = (x % 3) as f64;
            let counted = i64::from(weight != 0.0);
            (n + counted, w + weight, m + weight * x as f64)
        });
    assert_eq!((s.n, s.w, s.m, s.min, s.max), (n, w, m, 1.0, 3998.0));
    assert_eq!(stat(3, "x", Some("w")), s);
    // A list's items, one by one: v's items of x = 1, 2, 3, ... (i % 4 of them each).
    let items = stat(2, "v", None);
    let count: i64 = (0..2).map(|_| (0..4000).map(|i| i % 4).sum::<i64>()).sum();
    assert_eq!(
        (items.n, items.w, items.min, items.max),
        (count, count as f64, 1.0, f64::from(3999.2f32))
    );
    let mean = items.m / items.w;
    assert!((mean - 2000.0).abs() < 2.0, "{mean}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn varys_of_one_name_vary_together_tag_by_tag() {
    let (dir, paths) = written("same-name", 1, 3000);
    let sum = |df: &Frame, column: &str| -> Vec<(String, f64)> {
        let booked = df.sum(column).unwrap();
        Frame::variations_for(&booked)
            .unwrap()
            .into_iter()
            .map(|(key, b)| match b.value().unwrap() {
                ResultValue::Number(x) => (key, x),
                other => panic!("{other:?}"),
            })
            .collect()
    };
    let df = frame(&paths, 2).define("y", "x * 10").unwrap();
    // Two tags above, three below, one name: tags match by name, a tag a `Vary` lacks leaves
    // its column nominal; the variations listed sorted, as RDataFrame lists them.
    let varied = df
        .vary("y", "ROOT::RVecD{y + 1, y + 2}", &["up", "down"], "v")
        .unwrap()
        .vary(
            "x",
            "ROOT::RVec<int>{x + 100, x + 200, x + 300}",
            &["down", "flat", "up"],
            "v",
        )
        .unwrap();
    let n = 3000.0;
    let (x, y) = (n * (n - 1.0) / 2.0, 10.0 * n * (n - 1.0) / 2.0);
    let key = |k: &str| k.to_string();
    assert_eq!(
        sum(&varied, "x"),
        [
            (key("nominal"), x),
            (key("v:down"), x + 100.0 * n),
            (key("v:flat"), x + 200.0 * n),
            (key("v:up"), x + 300.0 * n)
        ]
    );
    assert_eq!(
        sum(&varied, "y"),
        [
            (key("nominal"), y),
            (key("v:down"), y + 2.0 * n),
            (key("v:up"), y + n)
        ]
    );
    let both = varied.define("z", "x + y").unwrap();
    let z = sum(&both, "z");
    assert_eq!(z[2], (key("v:flat"), x + 200.0 * n + y));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_csv_file_is_a_source_typed_as_root_s() {
    use rootweave::dataset::{read_csv, CsvOptions};
    let dir = std::env::temp_dir().join(format!("rw-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cars.csv");
    std::fs::write(&path, "year,model,price,used\n1997,\"E350, truck\",3000.5,true\n2000,Cougar,,false\n2003,,4200,true\n").unwrap();
    let table = read_csv(&path, &CsvOptions::default()).unwrap();
    assert_eq!(table.warning, None);
    let memory = table.into_memory_columns().unwrap();
    let df =
        Frame::new(Dataset::new(vec![Source::in_memory(memory)], ReadOptions::default()).unwrap());
    let types: Vec<String> = ["year", "model", "price", "used"]
        .iter()
        .map(|c| df.column_type(c).unwrap())
        .collect();
    assert_eq!(types, ["Long64_t", "std::string", "double", "bool"]);
    let used = df.filter("used && model != \"nan\"", None).unwrap();
    let sum = used.sum("price").unwrap();
    let count = df
        .filter("model.size() > 5", None)
        .unwrap()
        .count()
        .unwrap();
    assert!(matches!(sum.value().unwrap(), ResultValue::Number(s) if s == 3000.5));
    assert!(matches!(count.value().unwrap(), ResultValue::Count(2)));
    let described = df.describe().unwrap().as_string(true);
    assert!(
        described.starts_with("Dataframe from datasource RCsv"),
        "{described}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sets_and_lists_keep_their_classes_through_caches_and_snapshots() {
    use rootweave::analysis::{SnapshotFormat, SnapshotOptions};
    use rootweave::array::{ColumnData, LeafType, StdCollection};
    use rootweave::ttree::{BranchSpec, TTreeWriteOptions, TTreeWriter};
    let dir = scratch("collections");
    let path = dir.join("t.root");
    // Entry i: the set {i, i + 1, ...} of i % 3 items, the list of i % 2 items i / 2.
    let (mut so, mut sv, mut lo, mut lv) = (vec![0u64], vec![], vec![0u64], vec![]);
    for i in 0..10 {
        sv.extend((0..i % 3).map(|k| i + k));
        so.push(sv.len() as u64);
        lv.extend((0..i % 2).map(|_| i as f64 / 2.0));
        lo.push(lv.len() as u64);
    }
    let branches = vec![
        BranchSpec::collection("s", LeafType::Int32, StdCollection::Set),
        BranchSpec::collection("l", LeafType::Float64, StdCollection::List),
    ];
    let zlib = rootweave::compress::Compression::ROOT_FILE_DEFAULT;
    let mut w =
        TTreeWriter::recreate(&path, "t", branches, zlib, TTreeWriteOptions::default()).unwrap();
    w.extend(&[
        ColumnData::list(&so, ColumnData::Int32(&sv)),
        ColumnData::list(&lo, ColumnData::Float64(&lv)),
    ])
    .unwrap();
    w.close().unwrap();
    let df = frame(std::slice::from_ref(&path), 2);
    let types = |f: &Frame| (f.column_type("s").unwrap(), f.column_type("l").unwrap());
    let classes = ("set<int>".to_string(), "list<double>".to_string());
    assert_eq!(types(&df), classes);
    // A definition of the column alone is the object as it is, as in ROOT.
    let defined = df
        .define("d", "s")
        .unwrap()
        .define("e", "s.size()")
        .unwrap();
    assert_eq!(defined.column_type("d").unwrap(), "set<int>");
    assert_eq!(defined.column_type("e").unwrap(), "unsigned long");
    // A cache keeps the classes, as ROOT's does; so do its snapshots, as ROOT's write them.
    let cached = df.cache(&["s", "l"]).unwrap();
    assert_eq!(types(&cached), classes);
    let options = SnapshotOptions::default();
    let tree = cached
        .snapshot("t", &dir.join("tree.root"), &[], &options)
        .unwrap();
    assert_eq!(types(&tree), classes);
    let options = SnapshotOptions {
        format: SnapshotFormat::RNTuple,
        ..SnapshotOptions::default()
    };
    let ntuple = cached
        .snapshot("n", &dir.join("n.root"), &[], &options)
        .unwrap();
    let kept = (
        "std::set<std::int32_t>".to_string(),
        "ROOT::VecOps::RVec<double>".to_string(),
    );
    assert_eq!(types(&ntuple), kept);
    for c in ["s", "l"] {
        let want = df.take(c).unwrap().value().unwrap();
        assert_eq!(tree.take(c).unwrap().value().unwrap(), want, "{c}");
        assert_eq!(ntuple.take(c).unwrap().value().unwrap(), want, "{c}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_weighted_statistic_is_filled_in_entry_order_for_any_thread_count() {
    use rootweave::objects::Statistic;
    // `TStatistic::Fill` drops a value that brings the sum of weights to zero: which ones
    // depends on every weight before, across batches and files.
    let (dir, paths) = written("statistic", 2, 60_000);
    let mut want = Statistic::default();
    for i in 0..120_000i64 {
        let x = i % 60_000;
        want.fill(x as f64, if x % 3 == 0 { 1.0 } else { -1.0 });
    }
    assert!(want.n < 120_000 && want.n > 1_000, "{}", want.n);
    for threads in [1, 2, 3] {
        let df = frame(&paths, threads)
            .define("w", "x % 3 == 0 ? 1.0 : -1.0")
            .unwrap();
        let ResultValue::Statistic(got) = df.stats("x", Some("w")).unwrap().value().unwrap() else {
            panic!("a statistic")
        };
        assert_eq!(
            (got.n, got.w.to_bits(), got.w2.to_bits()),
            (want.n, want.w.to_bits(), want.w2.to_bits()),
            "{threads}"
        );
        assert_eq!(
            (got.m.to_bits(), got.m2.to_bits()),
            (want.m.to_bits(), want.m2.to_bits()),
            "{threads}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failed_run_does_not_stop_the_results_booked_after_it() {
    // As in ROOT: the results of a run that failed are done (with its error), and a result
    // booked later runs alone.
    let (dir, paths) = written("failed-run", 1, 1_000);
    let df = frame(&paths, 2);
    let failing = df.define("t", "Take(v, 5)").unwrap().take("t").unwrap();
    let first = failing.value().unwrap_err().to_string();
    assert!(first.contains("5 elements requested from Take"), "{first}");
    assert!(failing.is_ready() && df.runs() == 0);
    assert_eq!(
        df.count().unwrap().value().unwrap(),
        ResultValue::Count(1_000)
    );
    assert_eq!(df.runs(), 1);
    let again = failing.value().unwrap_err().to_string();
    assert!(
        again.contains("run of this result failed") && again.contains(&first),
        "{again}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
