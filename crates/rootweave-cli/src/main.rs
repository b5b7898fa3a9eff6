//! `rootweave`: the command line tool.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use rootweave::compress::Compression;
use rootweave::container::RootFile;
use rootweave::rntuple::{RNTupleWriter, WriteOptions};
use rootweave_cli::synth::{for_each_chunk, nanoaod_fields};

/// Fast, parallel, memory-bounded reading and writing of CERN ROOT files.
#[derive(Parser)]
#[command(name = "rootweave", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the keys of a ROOT file: name, class, cycle, stored and uncompressed size.
    Ls {
        /// The ROOT file.
        file: PathBuf,
    },
    /// Write a synthetic NanoAOD-like RNTuple called `Events`.
    Generate {
        /// The output file (overwritten).
        out: PathBuf,
        /// Number of events.
        #[arg(long, default_value_t = 1_000_000)]
        events: u64,
        /// Compression: none, zlib, lz4, zstd or lzma, with an optional `:level`, or ROOT's
        /// integer setting (e.g. 505).
        #[arg(long, default_value = "zstd:5")]
        compression: Compression,
        /// Seed of the event generator: the same seed gives the same events.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Ls { file } => list(&file),
        Command::Generate {
            out,
            events,
            compression,
            seed,
        } => generate(&out, events, compression, seed),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rootweave: {e}");
            ExitCode::FAILURE
        }
    }
}

fn list(path: &PathBuf) -> rootweave::Result<()> {
    let file = RootFile::open(path)?;
    println!(
        "{:<24} {:<16} {:>5} {:>14} {:>14}",
        "name", "class", "cycle", "stored bytes", "uncompressed"
    );
    for key in file.keys() {
        println!(
            "{:<24} {:<16} {:>5} {:>14} {:>14}",
            key.name,
            key.class_name,
            key.cycle,
            key.nbytes as u64 - key.keylen as u64,
            key.objlen
        );
    }
    Ok(())
}

fn generate(
    out: &PathBuf,
    events: u64,
    compression: Compression,
    seed: u64,
) -> rootweave::Result<()> {
    let start = Instant::now();
    let options = WriteOptions {
        compression,
        ..WriteOptions::default()
    };
    let mut writer = RNTupleWriter::recreate(out, "Events", nanoaod_fields(), options)?;
    for_each_chunk(seed, events, |chunk| {
        chunk.with_columns(|columns| writer.extend(columns))
    })?;
    let summary = writer.close()?;
    let seconds = start.elapsed().as_secs_f64();
    let size = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    println!(
        "wrote {} events to {} ({} clusters, {:.1} MB, compression {compression}, ratio {:.2}) in {:.2} s: {:.0} events/s, {:.1} MB/s uncompressed",
        summary.entries,
        out.display(),
        summary.clusters,
        size as f64 / 1e6,
        summary.uncompressed_page_bytes as f64 / summary.stored_page_bytes.max(1) as f64,
        seconds,
        summary.entries as f64 / seconds,
        summary.uncompressed_page_bytes as f64 / 1e6 / seconds,
    );
    Ok(())
}
