//! rootweave's side of `bench/ttree_read.py`.
//!
//! - `ttree-read`: opens a TTree and reads branches with [`TTreeReader`], timing the open,
//!   the read and a sum over every value read (so that no work can be skipped).
//! - `ttree-stream`: the same in batches of whole clusters, each filling the memory of the
//!   batch before.
//! - `ttree-baskets`: the baskets of the same branches, phase by phase: fetching their
//!   records from the file in coalesced ranges, and decompressing them with the codec
//!   alone (the "raw codec" reference) into one buffer already mapped.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use rootweave::array::Array;
use rootweave::compress::decompress_into;
use rootweave::container::read_streamers;
use rootweave::container::{KeyInfo, RootFile};
use rootweave::ttree::{ReadOptions, TTreeReader};

use super::read::{best_of, each_batch, parallel, sum_f64, touch};

/// Sums over the values of a read: integers (and booleans) into a wrapping 64-bit integer,
/// floating-point values into a double, and the number of values (items of jagged data;
/// offsets are not values).
#[derive(Debug, Default, Clone, Copy)]
struct Sums {
    ints: i64,
    floats: f64,
    values: u64,
}

impl Sums {
    fn int<T: Copy + Into<i64>>(&mut self, v: &[T]) {
        self.ints = self
            .ints
            .wrapping_add(v.iter().fold(0i64, |a, &x| a.wrapping_add(x.into())));
        self.values += v.len() as u64;
    }

    fn add(&mut self, array: &Array) {
        match array {
            Array::Bool(v) => {
                self.ints += v.iter().filter(|&&b| b).count() as i64;
                self.values += v.len() as u64;
            }
            Array::Int8(v) => self.int(v),
            Array::Int16(v) => self.int(v),
            Array::Int32(v) => self.int(v),
            Array::Int64(v) => self.int(v),
            Array::UInt8(v) => self.int(v),
            Array::UInt16(v) => self.int(v),
            Array::UInt32(v) => self.int(v),
            Array::UInt64(v) => {
                self.ints = self
                    .ints
                    .wrapping_add(v.iter().fold(0u64, |a, &x| a.wrapping_add(x)) as i64);
                self.values += v.len() as u64;
            }
            Array::Float32(v) => {
                self.floats += sum_f64(v);
                self.values += v.len() as u64;
            }
            Array::Float64(v) => {
                self.floats += sum_f64(v);
                self.values += v.len() as u64;
            }
            Array::String { offsets, .. } => self.values += offsets.len() as u64 - 1,
            Array::List { values, .. } | Array::Optional { values, .. } => self.add(values),
            Array::Fixed { values, .. } => self.add(values),
            Array::Record { fields, .. } => fields.iter().for_each(|(_, a)| self.add(a)),
            Array::Variant { alternatives, .. } => alternatives.iter().for_each(|a| self.add(a)),
        }
    }
}

/// One basket of a branch read: where its record is and how big.
#[derive(Debug, Clone, Copy)]
struct Basket {
    seek: u64,
    bytes: u64,
}

/// The stored baskets of the branches (every readable branch if none is given).
fn baskets(reader: &TTreeReader, fields: &[String]) -> Vec<Basket> {
    let names: Vec<String> = if fields.is_empty() {
        reader
            .branch_names()
            .into_iter()
            .filter(|n| reader.interpretation(n).is_ok())
            .collect()
    } else {
        fields.to_vec()
    };
    let mut out = Vec::new();
    for name in &names {
        let branch = reader.meta().find(name).expect("branch");
        for b in &branch.baskets {
            if b.embedded.is_none() && b.end_entry > b.first_entry {
                out.push(Basket {
                    seek: b.seek,
                    bytes: b.bytes as u64,
                });
            }
        }
    }
    out.sort_unstable_by_key(|b| b.seek);
    out
}

/// The key of a basket record.
fn key_of(record: &[u8], seek: u64, file: &str) -> rootweave::Result<KeyInfo> {
    KeyInfo::from_bytes(record, seek, file)
}

/// Uncompressed bytes of the baskets (data and entry-offset tables), from their keys.
fn payload_bytes(file: &RootFile, baskets: &[Basket]) -> rootweave::Result<u64> {
    let mut total = 0;
    for b in baskets {
        let head = file.read_at(b.seek, b.bytes.min(128), "basket key")?;
        total += key_of(&head, b.seek, file.name())?.objlen as u64;
    }
    Ok(total)
}

fn open(path: &str, tree: &str, options: ReadOptions) -> rootweave::Result<TTreeReader> {
    let file = Arc::new(RootFile::open(path)?);
    let streamers = Arc::new(read_streamers(&file)?);
    TTreeReader::from_file(file, streamers, tree, options)
}

/// `ttree-read FILE TREE THREADS BUDGET_MIB [BRANCH...]`: opens the tree and reads the
/// branches (all if none) for every entry.
pub fn read(args: &[String]) -> rootweave::Result<()> {
    read_with(args, None)
}

/// `ttree-stream FILE TREE THREADS BUDGET_MIB STEP [BRANCH...]`: the same in batches of
/// whole clusters of at least STEP entries ([`TTreeReader::batches`]), each batch summed
/// and its memory refilled by the next.
pub fn stream(args: &[String]) -> rootweave::Result<()> {
    let [path, tree, threads, budget, step, fields @ ..] = args else {
        usage();
    };
    let step: u64 = step.parse().expect("step in entries");
    let mut rest = vec![path.clone(), tree.clone(), threads.clone(), budget.clone()];
    rest.extend(fields.iter().cloned());
    read_with(&rest, Some(step))
}

/// Reads every entry in one read (`step` None) or in batches, and sums the values.
fn read_with(args: &[String], step: Option<u64>) -> rootweave::Result<()> {
    let [path, tree, threads, budget, fields @ ..] = args else {
        usage();
    };
    let options = ReadOptions::default()
        .with_threads(threads.parse().expect("threads"))
        .with_memory_budget(budget.parse::<u64>().expect("budget in MiB") << 20)
        .with_huge_pages(true);
    let names: Vec<&str> = fields.iter().map(String::as_str).collect();
    println!("rss_start_kib {}", super::rss_kib());
    let start = Instant::now();
    let reader = open(path, tree, options)?;
    let opened = Instant::now();
    let mut sums = Sums::default();
    let read_seconds = match step {
        None => {
            let arrays = reader.read(&names, 0..reader.entries())?;
            let seconds = opened.elapsed().as_secs_f64();
            for (_, a) in &arrays {
                sums.add(a);
            }
            seconds
        }
        Some(step) => {
            let batches = reader.batches(&names, 0..reader.entries(), step)?;
            each_batch(batches, |arrays| {
                for (_, a) in arrays {
                    sums.add(a);
                }
            })?
        }
    };
    let total = start.elapsed().as_secs_f64();
    let open_seconds = (opened - start).as_secs_f64();
    println!("open_seconds {open_seconds:.6}");
    println!("read_seconds {read_seconds:.6}");
    println!("sum_seconds {:.6}", total - open_seconds - read_seconds);
    println!("seconds {total:.6}");
    println!("entries {}", reader.entries());
    println!("sum {}", sums.ints);
    println!("fsum {:.17e}", sums.floats);
    println!("values {}", sums.values);
    let list = baskets(&reader, fields);
    println!("baskets {}", list.len());
    println!("payload_bytes {}", payload_bytes(reader.file(), &list)?);
    println!("peak_rss_kib {}", super::peak_rss_kib());
    Ok(())
}

/// `ttree-baskets FILE TREE THREADS [BRANCH...]`: the phases of reading the branches'
/// baskets, each timed on its own (best of several runs): fetching the records in
/// coalesced ranges (one thread, into a buffer already mapped), and decompressing the
/// payloads with the codec alone (`THREADS` threads) into one mapped buffer.
pub fn baskets_phases(args: &[String]) -> rootweave::Result<()> {
    let [path, tree, threads, fields @ ..] = args else {
        usage();
    };
    let threads: usize = threads.parse().expect("threads");
    let reader = open(path, tree, ReadOptions::default())?;
    let file = reader.file().clone();
    let list = baskets(&reader, fields);
    // Coalesced ranges (neighbours closer than 64 KiB, at most 64 MiB each).
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    for b in &list {
        let (s, e) = (b.seek, b.seek + b.bytes);
        match ranges.last_mut() {
            Some(last) if s <= last.1 + (64 << 10) && e.max(last.1) - last.0 <= 64 << 20 => {
                last.1 = last.1.max(e)
            }
            _ => ranges.push((s, e)),
        }
    }
    let mut parts: Vec<(u64, Vec<u8>)> = ranges
        .iter()
        .map(|&(s, e)| {
            let mut v = vec![0u8; (e - s) as usize];
            touch(&mut v);
            (s, v)
        })
        .collect();
    let fetch = best_of(3, || {
        let t = Instant::now();
        for (s, buf) in parts.iter_mut() {
            file.read_into(*s, buf, "baskets").expect("read");
        }
        t.elapsed().as_secs_f64()
    });
    let record = |b: &Basket| -> &[u8] {
        let i = parts.partition_point(|(s, _)| *s <= b.seek) - 1;
        let at = (b.seek - parts[i].0) as usize;
        &parts[i].1[at..at + b.bytes as usize]
    };
    let keys: Vec<KeyInfo> = list
        .iter()
        .map(|b| key_of(record(b), b.seek, file.name()))
        .collect::<rootweave::Result<_>>()?;
    let payload: usize = keys.iter().map(|k| k.objlen as usize).sum();
    let stored: u64 = list.iter().map(|b| b.bytes).sum();
    let mut plain = vec![0u8; payload];
    touch(&mut plain);
    let decompress = {
        let mut outs: Vec<&mut [u8]> = Vec::with_capacity(keys.len());
        let mut rest = plain.as_mut_slice();
        for k in &keys {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(k.objlen as usize);
            outs.push(head);
            rest = tail;
        }
        let outs: Vec<Mutex<&mut [u8]>> = outs.into_iter().map(Mutex::new).collect();
        best_of(4, || {
            let t = Instant::now();
            parallel(threads, keys.len(), |i| {
                let mut out = outs[i].lock().expect("one user");
                let stored = &record(&list[i])[keys[i].keylen as usize..];
                decompress_into(stored, &mut out).expect("decompress");
            });
            t.elapsed().as_secs_f64()
        })
    };
    println!("baskets {}", list.len());
    println!("stored_bytes {stored}");
    println!("payload_bytes {payload}");
    println!("fetch_seconds {fetch:.6}");
    println!("decompress_seconds {decompress:.6}");
    Ok(())
}

fn usage() -> ! {
    eprintln!(
        "usage: rootweave-bench ttree-read FILE TREE THREADS BUDGET_MIB [BRANCH...]\n       \
         rootweave-bench ttree-stream FILE TREE THREADS BUDGET_MIB STEP [BRANCH...]\n       \
         rootweave-bench ttree-baskets FILE TREE THREADS [BRANCH...]"
    );
    std::process::exit(2);
}

/// `compress-baskets FILE TREE COMPRESSION [THREADS]`: the codec alone on a tree's baskets,
/// the reference of `bench/ttree_write.py` and `bench/ttree_parallel_write.py` for how much
/// of a write is compression. Every basket is read and decompressed (untimed), then
/// compressed again with the given setting as the writers compress baskets
/// (`Frames::Sized`), by THREADS threads (default 1; basket `i` by thread `i % THREADS`),
/// each into a buffer already mapped (best of three). Prints `seconds`, `bytes`
/// (uncompressed) and `stored` (what the codec made).
pub fn compress_baskets(args: &[String]) -> rootweave::Result<()> {
    let (path, tree, compression, threads) = match args {
        [path, tree, compression] => (path, tree, compression, 1),
        [path, tree, compression, threads] => {
            (path, tree, compression, threads.parse().unwrap_or(0))
        }
        _ => (&args[0], &args[0], &args[0], 0),
    };
    if threads == 0 {
        eprintln!("usage: rootweave-bench compress-baskets FILE TREE COMPRESSION [THREADS]");
        std::process::exit(2);
    }
    let compression: rootweave::compress::Compression = compression.parse()?;
    let reader = open(path, tree, ReadOptions::default())?;
    let file = reader.file().clone();
    let mut plain = Vec::new();
    for b in baskets(&reader, &[]) {
        let record = file.read_at(b.seek, b.bytes, "basket")?;
        let key = key_of(&record, b.seek, file.name())?;
        let mut out = vec![0u8; key.objlen as usize];
        decompress_into(&record[key.keylen as usize..], &mut out)?;
        plain.push(out);
    }
    let biggest = plain.iter().map(Vec::len).max().unwrap_or(0);
    let mut outs: Vec<Vec<u8>> = (0..threads)
        .map(|_| {
            let mut out = vec![0u8; biggest + biggest / 64 + (64 << 10)];
            touch(&mut out);
            out
        })
        .collect();
    let mut stored = 0;
    let seconds = best_of(3, || {
        let t = Instant::now();
        stored = std::thread::scope(|s| {
            let workers: Vec<_> = outs
                .iter_mut()
                .enumerate()
                .map(|(k, out)| {
                    let plain = &plain;
                    s.spawn(move || {
                        let mut stored = 0;
                        for p in plain.iter().skip(k).step_by(threads) {
                            out.clear();
                            let frames = rootweave::compress::Frames::Sized;
                            rootweave::compress::compress_frames_into(compression, frames, p, out);
                            stored += out.len();
                        }
                        stored
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
        });
        t.elapsed().as_secs_f64()
    });
    println!("seconds {seconds:.6}");
    println!("bytes {}", plain.iter().map(Vec::len).sum::<usize>());
    println!("stored {stored}");
    Ok(())
}
