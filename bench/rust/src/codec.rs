//! `compress-pages`: the codec alone on the pages a writer sealed, the reference of
//! `bench/parallel_write.py` for how much of a write is compression and how compression
//! alone scales from one thread to more on the machine.
//!
//! The pages of every column of an RNTuple are read and decompressed (untimed), which
//! gives them back as the writer encoded them (split, delta, zigzag), before compression;
//! then all of them are compressed again with the given setting by `THREADS` threads, each
//! taking the next page, into output buffers already mapped (best of five runs). Only
//! the codec runs: no encoding, no checksums, no copies, no file.

use std::sync::Mutex;
use std::time::Instant;

use rootweave::compress::{compress_into, decompress_into, Compression};
use rootweave::rntuple::read::RNTupleReader;

use crate::read::{best_of, page_jobs, parallel, touch};

/// `compress-pages FILE NTUPLE COMPRESSION THREADS`: prints `seconds` (compressing every
/// page once), `bytes` (their uncompressed size) and `stored` (what the codec made).
pub fn compress_pages(args: &[String]) -> rootweave::Result<()> {
    let [path, ntuple, compression, threads] = args else {
        eprintln!("usage: rootweave-bench compress-pages FILE NTUPLE COMPRESSION THREADS");
        std::process::exit(2);
    };
    let compression: Compression = compression.parse()?;
    let threads: usize = threads.parse().expect("threads");
    let reader = RNTupleReader::open(path, ntuple)?;
    let (jobs, _) = page_jobs(&reader, &[])?;
    let file = reader.file().clone();
    let mut pages = Vec::with_capacity(jobs.len());
    for job in &jobs {
        let stored = file.read_at(job.page.offset, job.page.size, "page")?;
        let mut plain = vec![0u8; job.bytes];
        decompress_into(&stored, &mut plain)?;
        pages.push(plain);
    }
    let outputs: Vec<Mutex<Vec<u8>>> = pages
        .iter()
        .map(|p| {
            let mut out = vec![0u8; p.len() + p.len() / 64 + (64 << 10)];
            touch(&mut out);
            out.clear();
            Mutex::new(out)
        })
        .collect();
    let compress_all = || {
        let start = Instant::now();
        parallel(threads, pages.len(), |i| {
            let mut out = outputs[i].lock().expect("one user");
            out.clear();
            compress_into(compression, &pages[i], &mut out);
        });
        start.elapsed().as_secs_f64()
    };
    let seconds = best_of(5, compress_all);
    let bytes: usize = pages.iter().map(Vec::len).sum();
    let stored: usize = outputs.iter().map(|o| o.lock().expect("done").len()).sum();
    println!("seconds {seconds:.6}");
    println!("bytes {bytes}");
    println!("stored {stored}");
    Ok(())
}
