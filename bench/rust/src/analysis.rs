//! rootweave's side of `bench/analysis.py`: the maximum and the sum of one field over a
//! dataset of files, through [`Dataset`].
//!
//! - `dataset-batches`: [`Dataset::for_each_read_ahead`], each batch reduced on the main
//!   thread while the pool reads the next.
//! - `dataset-parallel`: [`Dataset::for_each_parallel`], each of the pool's threads reading
//!   and reducing batches into its own slot.
//!
//! Arguments: `THREADS STEP FIELD FILE...` (files as `path:Events`). Prints `seconds`
//! (opening the first file to the last value reduced), `entries`, `items`, `max`, `sum`.

use std::sync::Mutex;
use std::time::Instant;

use rootweave::array::Array;
use rootweave::dataset::{Dataset, Source};
use rootweave::ReadOptions;

/// Maximum and sum of the values seen, with counts.
#[derive(Default, Clone, Copy)]
struct Reduced {
    entries: u64,
    items: u64,
    max: f64,
    sum: f64,
}

impl Reduced {
    fn new() -> Self {
        Reduced {
            max: f64::NEG_INFINITY,
            ..Default::default()
        }
    }

    /// Adds a batch: an `int32` field, or a list of `float` (NanoAOD's `Muon_pt`).
    fn add(&mut self, entries: u64, array: &Array) {
        self.entries += entries;
        let (max, sum, items) = match array {
            Array::Int32(v) => {
                let max = v.iter().copied().max().map_or(f64::NEG_INFINITY, f64::from);
                (
                    max,
                    v.iter().map(|&x| x as i64).sum::<i64>() as f64,
                    v.len(),
                )
            }
            Array::List { values, .. } => match &**values {
                Array::Float32(v) => {
                    let max = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    (f64::from(max), v.iter().map(|&x| x as f64).sum(), v.len())
                }
                other => panic!("a list of {} is not benchmarked", other.kind()),
            },
            other => panic!("{} is not benchmarked", other.kind()),
        };
        self.max = self.max.max(max);
        self.sum += sum;
        self.items += items as u64;
    }

    fn join(&mut self, other: Reduced) {
        self.entries += other.entries;
        self.items += other.items;
        self.max = self.max.max(other.max);
        self.sum += other.sum;
    }
}

fn parse(args: &[String]) -> (usize, u64, String, Vec<Source>) {
    let [threads, step, field, files @ ..] = args else {
        eprintln!(
            "usage: rootweave-bench dataset-batches|dataset-parallel THREADS STEP FIELD FILE..."
        );
        std::process::exit(2);
    };
    let sources = files.iter().map(|f| Source::parse(f)).collect();
    (
        threads.parse().expect("threads"),
        step.parse().expect("step"),
        field.clone(),
        sources,
    )
}

fn report(start: Instant, r: Reduced) {
    println!("seconds {:.6}", start.elapsed().as_secs_f64());
    println!("entries {}", r.entries);
    println!("items {}", r.items);
    println!("max {}", r.max);
    println!("sum {:.17e}", r.sum);
    println!("peak_rss_kib {}", super::peak_rss_kib());
}

/// The read-ahead loop: batches in file order, each reduced while the next is read.
pub fn batches(args: &[String]) -> rootweave::Result<()> {
    let (threads, step, field, sources) = parse(args);
    let start = Instant::now();
    let dataset = Dataset::new(sources, ReadOptions::default().with_threads(threads))?;
    let mut r = Reduced::new();
    dataset.for_each_read_ahead(&[&field], step, |_, range, arrays| {
        r.add(range.end - range.start, &arrays[0].1);
        Ok(())
    })?;
    report(start, r);
    Ok(())
}

/// The parallel event loop: one slot per pool thread, reduced at the end.
pub fn parallel(args: &[String]) -> rootweave::Result<()> {
    let (threads, step, field, sources) = parse(args);
    let start = Instant::now();
    let dataset = Dataset::new(sources, ReadOptions::default().with_threads(threads))?;
    let slots: Vec<Mutex<Reduced>> = (0..dataset.slots())
        .map(|_| Mutex::new(Reduced::new()))
        .collect();
    dataset.for_each_parallel(&[&field], step, |slot, _, range, arrays| {
        let mut r = slots[slot].lock().expect("slot");
        r.add(range.end - range.start, &arrays[0].1);
        Ok(())
    })?;
    let mut total = Reduced::new();
    for s in slots {
        total.join(s.into_inner().expect("slot"));
    }
    report(start, total);
    Ok(())
}

/// The plain read of several fields (comma-separated), each batch's arrays counted and
/// dropped: what filling a histogram of them costs beyond the filling. Arguments as for the
/// other modes, FIELD a comma-separated list. Prints `seconds`, `entries` and `items`.
pub fn read_fields(args: &[String]) -> rootweave::Result<()> {
    let (threads, step, fields, sources) = parse(args);
    let fields: Vec<&str> = fields.split(',').collect();
    let start = Instant::now();
    let dataset = Dataset::new(sources, ReadOptions::default().with_threads(threads))?;
    let counts = Mutex::new((0u64, 0u64));
    dataset.for_each_parallel(&fields, step, |_, _, range, arrays| {
        let items: usize = arrays.iter().map(|(_, a)| a.len()).sum();
        let mut c = counts.lock().expect("counts");
        c.0 += range.end - range.start;
        c.1 += items as u64;
        Ok(())
    })?;
    let (entries, items) = counts.into_inner().expect("counts");
    println!("seconds {:.6}", start.elapsed().as_secs_f64());
    println!("entries {entries}");
    println!("items {items}");
    println!("peak_rss_kib {}", super::peak_rss_kib());
    Ok(())
}
