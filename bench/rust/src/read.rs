//! rootweave's side of `bench/rntuple_read.py`.
//!
//! - `read`: opens an RNTuple and reads fields with [`RNTupleReader`], timing the open, the
//!   read and a sum over every value read (so that no work can be skipped).
//! - `stream`: the same in batches of whole clusters, each batch filling the memory of
//!   the one before (an event loop over arrays).
//! - `stream-ahead`: the same batches, each summed while the reader's pool reads the next
//!   ([`Batches::for_each_read_ahead`]).
//! - `stream-parallel`: the same batches, each read and summed by one of the pool's
//!   threads ([`Batches::for_each_parallel`]), the sums of the slots added at the end.
//! - `pages`: the same pages, phase by phase: fetching them from the file, decompressing
//!   them with the codec alone, decoding them into typed buffers, and allocating and
//!   touching zero-filled buffers of the read's size (plus a few alternatives to compare
//!   with). Decompression alone is the "raw codec" reference; the phases show where a
//!   read's time goes.
//! - `memcpy`: copying a buffer, the memory bandwidth reference.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rootweave::array::Array;
use rootweave::array::LeafType;
use rootweave::array::{Buffer, Dst, Target};
use rootweave::compress::decompress_into;
use rootweave::container::RootFile;
use rootweave::dataset::{BatchSource, Batches};
use rootweave::io::ReadAt;
use rootweave::rntuple::format::checksum::xxh3_64;
use rootweave::rntuple::format::PageLocation;
use rootweave::rntuple::read::{ColumnCodec, DecodePage, Kind, Node, RNTupleReader};
use rootweave::rntuple::ColumnType;
use rootweave::ReadOptions;

/// Best (smallest) time of `runs` calls of `f`.
pub fn best_of(runs: usize, mut f: impl FnMut() -> f64) -> f64 {
    (0..runs).map(|_| f()).fold(f64::INFINITY, f64::min)
}

/// The sum of floating-point values in double precision, over eight independent partial
/// sums so that the additions are not one chain of dependent instructions (and vectorise),
/// as NumPy's pairwise sums are not either.
pub fn sum_f64<T: Copy + Into<f64>>(v: &[T]) -> f64 {
    let mut lanes = [0f64; 8];
    let chunks = v.chunks_exact(8);
    let tail: f64 = chunks.remainder().iter().map(|&x| x.into()).sum();
    for c in chunks {
        for (lane, &x) in lanes.iter_mut().zip(c) {
            *lane += x.into();
        }
    }
    lanes.iter().sum::<f64>() + tail
}

/// Sums of every value of an array: integers (and offsets, and booleans) into a wrapping
/// 64-bit integer, floating-point values into a double.
#[derive(Debug, Default, Clone, Copy)]
pub struct Sums {
    pub ints: i64,
    pub floats: f64,
    pub values: u64,
}

impl Sums {
    /// Adds the sums of other values (another slot's).
    fn merge(&mut self, other: &Sums) {
        self.ints = self.ints.wrapping_add(other.ints);
        self.floats += other.floats;
        self.values += other.values;
    }

    fn int<T: Copy + Into<i64>>(&mut self, v: &[T]) {
        self.ints = self
            .ints
            .wrapping_add(v.iter().fold(0i64, |a, &x| a.wrapping_add(x.into())));
        self.values += v.len() as u64;
    }

    fn add(&mut self, array: &Array) {
        match array {
            Array::Bool(v) => {
                self.ints = self
                    .ints
                    .wrapping_add(v.iter().filter(|&&b| b).count() as i64);
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
            Array::String { offsets, bytes } => {
                self.ints = self.ints.wrapping_add(*offsets.last().unwrap_or(&0) as i64);
                self.int(bytes);
            }
            Array::List { offsets, values } | Array::Optional { offsets, values } => {
                self.ints = self.ints.wrapping_add(*offsets.last().unwrap_or(&0) as i64);
                self.add(values);
            }
            Array::Fixed { values, .. } => self.add(values),
            Array::Record { fields, .. } => fields.iter().for_each(|(_, a)| self.add(a)),
            Array::Variant {
                tags,
                index,
                alternatives,
            } => {
                self.int(tags);
                self.ints = self
                    .ints
                    .wrapping_add(index.iter().fold(0u64, |a, &x| a.wrapping_add(x)) as i64);
                alternatives.iter().for_each(|a| self.add(a));
            }
        }
    }
}

/// Bytes the arrays take in memory (values and offsets).
fn array_bytes(array: &Array) -> u64 {
    let n = array.len() as u64;
    match array {
        Array::Bool(_) | Array::Int8(_) | Array::UInt8(_) => n,
        Array::Int16(_) | Array::UInt16(_) => 2 * n,
        Array::Int32(_) | Array::UInt32(_) | Array::Float32(_) => 4 * n,
        Array::Int64(_) | Array::UInt64(_) | Array::Float64(_) => 8 * n,
        Array::String { offsets, bytes } => 8 * offsets.len() as u64 + bytes.len() as u64,
        Array::List { offsets, values } | Array::Optional { offsets, values } => {
            8 * offsets.len() as u64 + array_bytes(values)
        }
        Array::Fixed { values, .. } => array_bytes(values),
        Array::Record { fields, .. } => fields.iter().map(|(_, a)| array_bytes(a)).sum(),
        Array::Variant {
            tags,
            index,
            alternatives,
        } => {
            tags.len() as u64
                + 8 * index.len() as u64
                + alternatives.iter().map(array_bytes).sum::<u64>()
        }
    }
}

/// What each column slot of a node is decoded into (as the reader does).
fn slot_targets(node: &Node) -> Vec<Target> {
    match &node.kind {
        Kind::Leaf(t) => vec![Target::Leaf(*t)],
        Kind::Bitset(_) => vec![Target::Leaf(LeafType::Bool)],
        Kind::String | Kind::Streamer => vec![Target::Index, Target::Leaf(LeafType::UInt8)],
        Kind::Cardinality(_) | Kind::List(_) | Kind::Optional(_) => vec![Target::Index],
        Kind::Variant(_) => vec![Target::Switch],
        Kind::Fixed(..) | Kind::Record(_) | Kind::Wrapper(_) => Vec::new(),
    }
}

/// One page of a read: where it is stored, how it decodes, and where it goes.
#[derive(Debug, Clone, Copy)]
pub struct Job {
    /// Where the page is stored.
    pub page: PageLocation,
    codec: ColumnCodec,
    slot: usize,
    /// First element in the slot's buffer.
    dst: usize,
    /// Decompressed bytes.
    pub bytes: usize,
}

/// A column slot's target and number of elements.
type SlotSize = (Target, usize);

/// The pages of the given fields, in slot and cluster order, and each slot's target and
/// number of elements.
pub fn page_jobs(
    reader: &RNTupleReader,
    fields: &[String],
) -> rootweave::Result<(Vec<Job>, Vec<SlotSize>)> {
    let names: Vec<String> = if fields.is_empty() {
        reader.field_names()
    } else {
        fields.to_vec()
    };
    let d = reader.descriptor();
    let clusters = d.all_clusters(reader.file())?;
    let mut jobs = Vec::new();
    let mut slots = Vec::new();
    for name in &names {
        let node = reader.plan(name)?;
        let mut nodes = Vec::new();
        node.walk(&mut |n| nodes.push(n));
        for n in nodes {
            for (i, target) in slot_targets(n).into_iter().enumerate() {
                let slot = slots.len();
                let mut at = 0usize;
                for cluster in clusters.iter() {
                    let active = n.slots[i].representations.iter().find_map(|&c| {
                        cluster.columns[c as usize]
                            .as_ref()
                            .filter(|p| !p.suppressed)
                            .map(|p| (c, p))
                    });
                    if let Some((c, pages)) = active {
                        let codec = d.codec(c);
                        for page in &pages.pages {
                            let bytes = codec.page_bytes(page.n_elements as usize).unwrap_or(0);
                            jobs.push(Job {
                                page: *page,
                                codec,
                                slot,
                                dst: at,
                                bytes,
                            });
                            at += page.n_elements as usize;
                        }
                    }
                }
                slots.push((target, at));
            }
        }
    }
    Ok((jobs, slots))
}

/// Uncompressed bytes of the pages the fields are read from.
fn payload_bytes(reader: &RNTupleReader, fields: &[String]) -> rootweave::Result<u64> {
    let (jobs, _) = page_jobs(reader, fields)?;
    Ok(jobs.iter().map(|j| j.bytes as u64).sum())
}

fn open(path: &str, ntuple: &str, options: ReadOptions) -> rootweave::Result<RNTupleReader> {
    RNTupleReader::from_file(Arc::new(RootFile::open(path)?), ntuple, options)
}

/// `read FILE NTUPLE THREADS VERIFY BUDGET_MIB [FIELD...]`: opens the file and reads the
/// fields (all if none) for every entry into arrays (one read of the whole range).
pub fn read(args: &[String]) -> rootweave::Result<()> {
    read_with(args, Mode::Whole)
}

/// `stream FILE NTUPLE THREADS VERIFY BUDGET_MIB STEP [FIELD...]`: the same fields and
/// entries in batches of whole clusters of at least STEP entries
/// ([`RNTupleReader::batches`]), each batch summed and its memory reused by the next: an
/// event loop over arrays.
pub fn stream(args: &[String]) -> rootweave::Result<()> {
    stream_with(args, Mode::Batches)
}

/// `stream-ahead FILE NTUPLE THREADS VERIFY BUDGET_MIB STEP [FIELD...]`: as `stream`, with
/// [`Batches::for_each_read_ahead`]: each batch is summed while the pool reads the next.
pub fn stream_ahead(args: &[String]) -> rootweave::Result<()> {
    stream_with(args, Mode::ReadAhead)
}

/// `stream-parallel FILE NTUPLE THREADS VERIFY BUDGET_MIB STEP [FIELD...]`: as `stream`,
/// with [`Batches::for_each_parallel`]: every thread of the pool reads a batch and sums
/// it into its slot's sums, then takes the next batch.
pub fn stream_parallel(args: &[String]) -> rootweave::Result<()> {
    stream_with(args, Mode::Parallel)
}

fn stream_with(args: &[String], mode: fn(u64) -> Mode) -> rootweave::Result<()> {
    let [path, ntuple, threads, verify, budget, step, fields @ ..] = args else {
        usage();
    };
    let step: u64 = step.parse().expect("step in entries");
    let mut rest = vec![
        path.clone(),
        ntuple.clone(),
        threads.clone(),
        verify.clone(),
        budget.clone(),
    ];
    rest.extend(fields.iter().cloned());
    read_with(&rest, mode(step))
}

/// How `read_with` reads the entries.
#[derive(Clone, Copy)]
enum Mode {
    /// All entries in one read.
    Whole,
    /// Batches of at least this many entries, read one after the other.
    Batches(u64),
    /// Batches, each read while the one before is summed.
    ReadAhead(u64),
    /// Batches, each read and summed by one of the pool's threads.
    Parallel(u64),
}

/// Reads every entry in one read or in batches, and sums the values.
fn read_with(args: &[String], mode: Mode) -> rootweave::Result<()> {
    let [path, ntuple, threads, verify, budget, fields @ ..] = args else {
        usage();
    };
    let options = ReadOptions::default()
        .with_threads(threads.parse().expect("threads"))
        .with_memory_budget(budget.parse::<u64>().expect("budget in MiB") << 20)
        .with_verify_checksums(verify != "0")
        .with_huge_pages(true);
    let names: Vec<&str> = fields.iter().map(String::as_str).collect();
    println!("rss_start_kib {}", super::rss_kib());
    // One pass: open, read every entry, sum every value; the bytes of the arrays that were
    // held at once (all of them for one read, the largest batch's when streaming).
    let pass = || -> rootweave::Result<(RNTupleReader, [f64; 3], Sums, u64)> {
        let start = Instant::now();
        let reader = open(path, ntuple, options.clone())?;
        let opened = Instant::now();
        let mut sums = Sums::default();
        let mut held = 0u64;
        let read_seconds = match mode {
            Mode::Whole => {
                let arrays = reader.read(&names, 0..reader.entries())?;
                let seconds = opened.elapsed().as_secs_f64();
                for (_, a) in &arrays {
                    sums.add(a);
                }
                held = arrays.iter().map(|(_, a)| array_bytes(a)).sum();
                seconds
            }
            Mode::Batches(step) => {
                let batches = reader.batches(&names, 0..reader.entries(), step)?;
                each_batch(batches, |arrays| {
                    for (_, a) in arrays {
                        sums.add(a);
                    }
                    held = held.max(arrays.iter().map(|(_, a)| array_bytes(a)).sum());
                })?
            }
            Mode::ReadAhead(step) => {
                // Sums overlap reads: the whole time counts as reading.
                let batches = reader.batches(&names, 0..reader.entries(), step)?;
                let mut largest = 0;
                batches.for_each_read_ahead(|_, arrays| {
                    for (_, a) in arrays {
                        sums.add(a);
                    }
                    largest = largest.max(arrays.iter().map(|(_, a)| array_bytes(a)).sum());
                    Ok(())
                })?;
                // Two batches are held at once.
                held = 2 * largest;
                opened.elapsed().as_secs_f64()
            }
            Mode::Parallel(step) => {
                // Reads and sums overlap on every thread: the whole time counts as reading.
                let batches = reader.batches(&names, 0..reader.entries(), step)?;
                let slots: Vec<Mutex<(Sums, u64)>> = (0..batches.slots())
                    .map(|_| Mutex::new((Sums::default(), 0)))
                    .collect();
                batches.for_each_parallel(|slot, _, arrays| {
                    let (slot_sums, largest) = &mut *slots[slot].lock().unwrap();
                    for (_, a) in arrays {
                        slot_sums.add(a);
                    }
                    *largest = (*largest).max(arrays.iter().map(|(_, a)| array_bytes(a)).sum());
                    Ok(())
                })?;
                let seconds = opened.elapsed().as_secs_f64();
                // One batch per slot is held at once.
                for slot in slots {
                    let (slot_sums, largest) = slot.into_inner().unwrap();
                    sums.merge(&slot_sums);
                    held += largest;
                }
                seconds
            }
        };
        let total = start.elapsed().as_secs_f64();
        let open_seconds = (opened - start).as_secs_f64();
        let sum_seconds = total - open_seconds - read_seconds;
        Ok((
            reader,
            [open_seconds, read_seconds, sum_seconds],
            sums,
            held,
        ))
    };
    // BENCH_PASSES reads in this process; the last one is timed (see bench/rntuple_read.py).
    let passes: usize = std::env::var("BENCH_PASSES")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(1)
        .max(1);
    for p in 1..passes {
        let started = Instant::now();
        drop(pass()?);
        if p == 1 {
            println!("first_pass_seconds {:.6}", started.elapsed().as_secs_f64());
        }
    }
    let (reader, [open_seconds, read_seconds, sum_seconds], sums, held) = pass()?;
    println!("open_seconds {open_seconds:.6}");
    println!("read_seconds {read_seconds:.6}");
    println!("sum_seconds {sum_seconds:.6}");
    println!("seconds {:.6}", open_seconds + read_seconds + sum_seconds);
    println!("entries {}", reader.entries());
    println!("sum {}", sums.ints);
    println!("fsum {:.17e}", sums.floats);
    println!("values {}", sums.values);
    println!("array_bytes {held}");
    println!("payload_bytes {}", payload_bytes(&reader, fields)?);
    println!("peak_rss_kib {}", super::peak_rss_kib());
    Ok(())
}

/// Reads every batch and hands its arrays to `each`; returns the seconds spent reading
/// (without the time in `each`).
pub fn each_batch<R: BatchSource>(
    mut batches: Batches<'_, R>,
    mut each: impl FnMut(&[(String, Array)]),
) -> rootweave::Result<f64> {
    let mut seconds = 0.0;
    loop {
        let t = Instant::now();
        let Some(batch) = batches.next_batch() else {
            return Ok(seconds);
        };
        let (_, arrays) = batch?;
        seconds += t.elapsed().as_secs_f64();
        each(arrays);
    }
}

/// Runs `work(i)` for `i` in `0..n` on `threads` threads, each taking the next index.
pub fn parallel(threads: usize, n: usize, work: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                work(i);
            });
        }
    });
}

/// Writes one byte in every 4 KiB so that the kernel maps (and zeroes) every page.
pub fn touch(bytes: &mut [u8]) {
    for b in bytes.iter_mut().step_by(4096) {
        *b = 1;
    }
}

/// `pages FILE NTUPLE THREADS [FIELD...]`: the phases of reading the fields' pages, each
/// timed on its own (best of several runs; `THREADS` threads except for the file reads,
/// which the reader does from one thread).
pub fn pages(args: &[String]) -> rootweave::Result<()> {
    let [path, ntuple, threads, fields @ ..] = args else {
        usage();
    };
    let threads: usize = threads.parse().expect("threads");
    let reader = open(path, ntuple, ReadOptions::default())?;
    let (jobs, slots) = page_jobs(&reader, fields)?;
    let file = reader.file().clone();
    let stored: u64 = jobs.iter().map(|j| j.page.size).sum();
    let uncompressed: usize = jobs.iter().map(|j| j.bytes).sum();

    // Fetch: every page's stored bytes (with its checksum), read in large coalesced ranges
    // into newly allocated buffers.
    let mut ranges: Vec<(u64, u64)> = jobs
        .iter()
        .map(|j| {
            let len = j.page.size + if j.page.has_checksum { 8 } else { 0 };
            (j.page.offset, j.page.offset + len)
        })
        .collect();
    ranges.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (s, e) in ranges {
        match merged.last_mut() {
            Some(last) if s <= last.1 + (64 << 10) && e.max(last.1) - last.0 <= 64 << 20 => {
                last.1 = last.1.max(e)
            }
            _ => merged.push((s, e)),
        }
    }
    let mut parts: Vec<(u64, Vec<u8>)> = Vec::new();
    let fetch = best_of(3, || {
        let t = Instant::now();
        parts = merged
            .iter()
            .map(|&(s, e)| Ok((s, file.read_at(s, e - s, "pages")?)))
            .collect::<rootweave::Result<_>>()
            .expect("read");
        t.elapsed().as_secs_f64()
    });
    // The same reads into buffers that are already mapped (reused), i.e. the copy alone.
    let mut reused: Vec<Vec<u8>> = merged
        .iter()
        .map(|&(s, e)| {
            let mut v = vec![0u8; (e - s) as usize];
            touch(&mut v);
            v
        })
        .collect();
    let fetch_mapped = best_of(3, || {
        let t = Instant::now();
        for (&(s, _), buf) in merged.iter().zip(reused.iter_mut()) {
            file.source().read_exact_at(buf, s).expect("read");
        }
        t.elapsed().as_secs_f64()
    });
    drop(reused);
    let stored_of = |j: &Job| -> &[u8] {
        let i = parts.partition_point(|(s, _)| *s <= j.page.offset) - 1;
        let at = (j.page.offset - parts[i].0) as usize;
        &parts[i].1[at..at + j.page.size as usize]
    };

    // Decompression alone, into one buffer (faulted in by a first run) at each page's place.
    let mut starts = Vec::with_capacity(jobs.len());
    let mut at = 0;
    for j in &jobs {
        starts.push(at);
        at += j.bytes;
    }
    let mut plain = vec![0u8; uncompressed];
    touch(&mut plain);
    let decompress = {
        let mut outs: Vec<&mut [u8]> = Vec::with_capacity(jobs.len());
        let mut rest = plain.as_mut_slice();
        for j in &jobs {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(j.bytes);
            outs.push(head);
            rest = tail;
        }
        let outs: Vec<Mutex<&mut [u8]>> = outs.into_iter().map(Mutex::new).collect();
        best_of(4, || {
            let t = Instant::now();
            parallel(threads, jobs.len(), |i| {
                let mut out = outs[i].lock().expect("one user");
                decompress_into(stored_of(&jobs[i]), &mut out).expect("decompress");
            });
            t.elapsed().as_secs_f64()
        })
    };

    // Decompression alone into one page-sized buffer per thread, reused (cache-resident,
    // as the reader's scratch is): the codec's own cost, without writing the output to
    // memory. And the page checksums alone, over the stored bytes.
    let largest = jobs.iter().map(|j| j.bytes).max().unwrap_or(0);
    let decompress_cached = best_of(4, || {
        let t = Instant::now();
        let scratch: Vec<Mutex<Vec<u8>>> = (0..threads.max(1))
            .map(|_| Mutex::new(vec![1u8; largest]))
            .collect();
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for buffer in &scratch {
                let next = &next;
                let jobs = &jobs;
                let stored_of = &stored_of;
                s.spawn(move || {
                    let mut buffer = buffer.lock().expect("one user");
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= jobs.len() {
                            break;
                        }
                        let out = &mut buffer[..jobs[i].bytes];
                        decompress_into(stored_of(&jobs[i]), out).expect("decompress");
                    }
                });
            }
        });
        t.elapsed().as_secs_f64()
    });
    let checksums = best_of(4, || {
        let t = Instant::now();
        parallel(threads, jobs.len(), |i| {
            std::hint::black_box(xxh3_64(stored_of(&jobs[i])));
        });
        t.elapsed().as_secs_f64()
    });

    // Decoding the decompressed bytes into typed buffers: into fresh zero-filled buffers
    // first (their memory is mapped as it is first written), then into the same buffers.
    let t = Instant::now();
    let mut buffers: Vec<Buffer> = slots
        .iter()
        .map(|&(target, n)| Buffer::zeroed(target, n))
        .collect();
    let alloc = t.elapsed().as_secs_f64();
    let mut by_slot: Vec<Vec<usize>> = vec![Vec::new(); buffers.len()];
    for (k, j) in jobs.iter().enumerate() {
        by_slot[j.slot].push(k);
    }
    let mut work: Vec<(usize, Dst)> = Vec::with_capacity(jobs.len());
    for (s, buffer) in buffers.iter_mut().enumerate() {
        // Offsets buffers start with one 0.
        let shift = usize::from(slots[s].0 == Target::Index);
        let ranges: Vec<(usize, usize)> = by_slot[s]
            .iter()
            .map(|&k| (jobs[k].dst + shift, jobs[k].page.n_elements as usize))
            .collect();
        work.extend(by_slot[s].iter().copied().zip(buffer.split_ranges(&ranges)));
    }
    let work: Vec<Mutex<(usize, Dst)>> = work.into_iter().map(Mutex::new).collect();
    let run_decode = || {
        let t = Instant::now();
        parallel(threads, work.len(), |w| {
            let mut guard = work[w].lock().expect("one user");
            let (k, dst) = &mut *guard;
            let j = &jobs[*k];
            dst.decode(&j.codec, &plain[starts[*k]..starts[*k] + j.bytes]);
        });
        t.elapsed().as_secs_f64()
    };
    let decode_fresh = alloc + run_decode();
    let decode = best_of(3, run_decode);
    drop(work);
    drop(buffers);

    // An alternative decoder for byte-split, zigzagged 32-bit integers (the int32 files'
    // encoding), on the same decompressed pages, into mapped buffers.
    let decode_alt = if slots.len() == 1
        && !jobs.is_empty()
        && jobs.iter().all(|j| j.codec.ty == ColumnType::SplitInt32)
    {
        let mut out = vec![0i32; slots[0].1];
        for v in out.iter_mut().step_by(1024) {
            *v = 1;
        }
        let mut parts: Vec<&mut [i32]> = Vec::with_capacity(jobs.len());
        let mut rest = out.as_mut_slice();
        for j in &jobs {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(j.page.n_elements as usize);
            parts.push(head);
            rest = tail;
        }
        let parts: Vec<Mutex<&mut [i32]>> = parts.into_iter().map(Mutex::new).collect();
        let seconds = best_of(3, || {
            let t = Instant::now();
            parallel(threads, jobs.len(), |k| {
                let mut out = parts[k].lock().expect("one user");
                unsplit_zigzag32(&plain[starts[k]..starts[k] + jobs[k].bytes], &mut out);
            });
            t.elapsed().as_secs_f64()
        });
        // Same values as the library's decoder.
        let mut check = Buffer::zeroed(
            Target::Leaf(LeafType::Int32),
            jobs[0].page.n_elements as usize,
        );
        let n = check.len();
        if let Some(dst) = check.split_ranges(&[(0, n)]).first_mut() {
            dst.decode(&jobs[0].codec, &plain[..jobs[0].bytes]);
        }
        let Buffer::Int32(expected) = check else {
            unreachable!("int32 buffer")
        };
        let got = parts[0].lock().expect("one user");
        assert_eq!(&expected[..], &got[..]);
        drop(got);
        Some(seconds)
    } else {
        None
    };

    // Zero-filled buffers of the read's size: allocating them and mapping every page.
    let slot_bytes: usize = slots
        .iter()
        .map(|&(target, n)| match target {
            Target::Index => 8 * (n + 1),
            Target::Switch => 12 * n,
            Target::Leaf(t) => {
                n * match t {
                    LeafType::Bool | LeafType::Int8 | LeafType::UInt8 => 1,
                    LeafType::Int16 | LeafType::UInt16 => 2,
                    LeafType::Int32 | LeafType::UInt32 | LeafType::Float32 => 4,
                    _ => 8,
                }
            }
        })
        .sum();
    let zero_fill = best_of(3, || {
        let t = Instant::now();
        let mut v = vec![0u8; slot_bytes];
        touch(&mut v);
        std::hint::black_box(&v);
        t.elapsed().as_secs_f64()
    });

    let zero_fill_huge = best_of(3, || {
        let t = Instant::now();
        let mut v: Vec<u8> = Vec::with_capacity(slot_bytes);
        advise_huge_pages(v.spare_capacity_mut());
        v.resize(slot_bytes, 0);
        std::hint::black_box(&v);
        t.elapsed().as_secs_f64()
    });

    println!("pages {}", jobs.len());
    println!("stored_bytes {stored}");
    println!("payload_bytes {uncompressed}");
    println!(
        "fetch_bytes {}",
        parts.iter().map(|(_, b)| b.len()).sum::<usize>()
    );
    println!("fetch_seconds {fetch:.6}");
    println!("decompress_seconds {decompress:.6}");
    println!("decompress_cached_seconds {decompress_cached:.6}");
    println!("checksum_seconds {checksums:.6}");
    println!("decode_seconds {decode:.6}");
    println!("decode_fresh_seconds {decode_fresh:.6}");
    println!("buffer_bytes {slot_bytes}");
    println!("zero_fill_seconds {zero_fill:.6}");
    println!("zero_fill_huge_seconds {zero_fill_huge:.6}");
    println!("fetch_mapped_seconds {fetch_mapped:.6}");
    if let Some(alt) = decode_alt {
        println!("decode_alt_seconds {alt:.6}");
    }
    Ok(())
}

/// Byte-split (four byte planes), zigzag-encoded 32-bit integers, decoded in blocks that
/// the compiler turns into vector code.
fn unsplit_zigzag32(page: &[u8], out: &mut [i32]) {
    let n = out.len();
    let (b0, rest) = page[..4 * n].split_at(n);
    let (b1, rest) = rest.split_at(n);
    let (b2, b3) = rest.split_at(n);
    const BLOCK: usize = 64;
    let blocks = n / BLOCK * BLOCK;
    for (((o, p0), (p1, p2)), p3) in out[..blocks]
        .chunks_exact_mut(BLOCK)
        .zip(b0.chunks_exact(BLOCK))
        .zip(b1.chunks_exact(BLOCK).zip(b2.chunks_exact(BLOCK)))
        .zip(b3.chunks_exact(BLOCK))
    {
        for i in 0..BLOCK {
            let w = u32::from(p0[i])
                | (u32::from(p1[i]) << 8)
                | (u32::from(p2[i]) << 16)
                | (u32::from(p3[i]) << 24);
            o[i] = ((w >> 1) as i32) ^ -((w & 1) as i32);
        }
    }
    for i in blocks..n {
        let w = u32::from(b0[i])
            | (u32::from(b1[i]) << 8)
            | (u32::from(b2[i]) << 16)
            | (u32::from(b3[i]) << 24);
        out[i] = ((w >> 1) as i32) ^ -((w & 1) as i32);
    }
}

/// Asks the kernel for transparent huge pages for the 2 MiB-aligned part of a buffer (Linux;
/// a no-op where the call fails or does not exist).
fn advise_huge_pages<T>(buffer: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        const HUGE: usize = 2 << 20;
        let start = buffer.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(buffer);
        let (from, to) = (start.div_ceil(HUGE) * HUGE, end / HUGE * HUGE);
        if to > from {
            // SAFETY: the range lies inside memory this process owns (the buffer); the
            // advice changes how the kernel backs it, not its contents or validity.
            unsafe {
                madvise(from as *mut std::ffi::c_void, to - from, MADV_HUGEPAGE);
            }
        }
    }
}

/// `memcpy THREADS MIB`: copies a buffer into another one (both already mapped), each of
/// `THREADS` threads its share; and into a newly allocated buffer (page faults included).
pub fn memcpy(args: &[String]) -> rootweave::Result<()> {
    let [threads, mib] = args else { usage() };
    let threads: usize = threads.parse().expect("threads");
    let n = mib.parse::<usize>().expect("MiB") << 20;
    let src: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
    let mut dst = vec![0u8; n];
    touch(&mut dst);
    let chunk = n.div_ceil(threads.max(1));
    let copy = best_of(10, || {
        let t = Instant::now();
        std::thread::scope(|s| {
            for (d, sc) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
                s.spawn(move || d.copy_from_slice(sc));
            }
        });
        t.elapsed().as_secs_f64()
    });
    assert_eq!(dst[n - 1], src[n - 1]);
    let fresh = best_of(5, || {
        let t = Instant::now();
        let mut out = vec![0u8; n];
        std::thread::scope(|s| {
            for (d, sc) in out.chunks_mut(chunk).zip(src.chunks(chunk)) {
                s.spawn(move || d.copy_from_slice(sc));
            }
        });
        std::hint::black_box(&out);
        t.elapsed().as_secs_f64()
    });
    println!("bytes {n}");
    println!("seconds {copy:.6}");
    println!("fresh_seconds {fresh:.6}");
    Ok(())
}

fn usage() -> ! {
    eprintln!(
        "usage: rootweave-bench read FILE NTUPLE THREADS VERIFY(0|1) BUDGET_MIB [FIELD...]\n       \
         rootweave-bench stream FILE NTUPLE THREADS VERIFY(0|1) BUDGET_MIB STEP [FIELD...]\n       \
         rootweave-bench pages FILE NTUPLE THREADS [FIELD...]\n       \
         rootweave-bench memcpy THREADS MIB"
    );
    std::process::exit(2);
}
