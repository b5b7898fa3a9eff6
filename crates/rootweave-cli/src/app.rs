//! The command line: its arguments (clap) and the running of each command, shared by the
//! `rootweave` binary and the `rootweave` command of the Python package, which are the same
//! program.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use rootweave::compress::Compression;

use crate::commands::generate::GenerateOptions;
use rootweave_synth::schemas::Schema;

/// Where the program runs: whether it may tune the process-wide allocator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// The `rootweave` binary: the process is the program's own, tuned before any thread
    /// starts.
    Process,
    /// Inside another program (the Python interpreter): the process is left as it is.
    Embedded,
}

/// Fast, parallel, memory-bounded reading and writing of CERN ROOT files.
#[derive(Parser)]
#[command(name = "rootweave", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the keys of a ROOT file (name, class, cycle, stored and uncompressed size) and
    /// for each RNTuple its entries, clusters and fields (C++ type, column encodings,
    /// stored and uncompressed bytes), and for each TTree its entries and branches (type,
    /// stored and uncompressed bytes, baskets).
    Ls {
        /// The ROOT file.
        file: PathBuf,
    },
    /// Print the entries of an RNTuple or a TTree.
    Dump {
        /// The ROOT file.
        file: PathBuf,
        /// The RNTuple's or TTree's name (`dir/name` in a subdirectory).
        name: String,
        /// Comma-separated fields to print (default: all top-level fields); nested
        /// fields by their dotted path, e.g. `Muon.Muon_pt`.
        #[arg(long, value_delimiter = ',')]
        fields: Vec<String>,
        /// Entries to print: `start:stop` (either may be omitted) or one entry number.
        #[arg(long, value_parser = crate::commands::dump::parse_entries)]
        entries: Option<std::ops::Range<u64>>,
        /// One JSON object per entry and line, keyed by field name. NaN and infinities
        /// are the strings "nan", "inf" and "-inf".
        #[arg(long)]
        json: bool,
    },
    /// Write a synthetic dataset called `Events`, an RNTuple or a TTree, from several threads
    /// through the parallel writer, or from one through the sequential writer.
    Generate {
        /// The output file (overwritten).
        out: PathBuf,
        /// Number of events.
        #[arg(long, default_value_t = 1_000_000)]
        events: u64,
        /// Compression: none, zlib, lz4, zstd or lzma, with an optional `:level`, or ROOT's
        /// integer setting (e.g. 505). Default: ROOT's, zstd:5 for RNTuples
        /// (RNTupleWriteOptions), zlib:1 for TTrees (TFile).
        #[arg(long)]
        compression: Option<Compression>,
        /// Seed of the event generator: the same seed gives the same events.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Producer threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Memory budget of the writer, e.g. 256MiB, 1GiB or a number of bytes.
        #[arg(long, default_value = "256MiB", value_parser = parse_bytes)]
        memory_budget: u64,
        /// One cluster per chunk of events, in chunk order: files written with any thread
        /// count then have identical contents.
        #[arg(long)]
        ordered: bool,
        /// The dataset: nanoaod (default), adl (the ADL benchmark's columns), single, complex or wide.
        #[arg(long, default_value = "nanoaod")]
        schema: Schema,
        /// The format: rntuple (default) or ttree (NanoAOD-style branches).
        #[arg(long, default_value = "rntuple", value_parser = ["rntuple", "ttree"])]
        format: String,
        /// One thread and the sequential writer (RNTupleWriter, TTreeWriter), whose clusters
        /// (and baskets) are sized as ROOT's sequential writers size them.
        #[arg(long, conflicts_with_all = ["threads", "ordered"])]
        sequential: bool,
        /// With --format ttree: the split level of the `complex` dataset's branches of
        /// `std::vector<Event>` (0: each entry streamed whole; 99, ROOT's default: a
        /// branch per member); a comma-separated list gives `e0`, `e1`, ... their own
        /// (the last for the branches after the list), e.g. `99,0` for a mixed split.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "99",
            allow_negative_numbers = true
        )]
        split_level: Vec<i32>,
        /// With the `complex` schema as an RNTuple: the records as classes `Event` and
        /// `Vec3` (the TTree's `std::vector<Event>`) instead of untyped records.
        #[arg(long)]
        classes: bool,
        /// With --format ttree: the `complex` dataset's collections as NanoAOD-style
        /// branches (counters `ne0`.., counted arrays `e0_p0_x[ne0]`..) instead of
        /// `std::vector<Event>`.
        #[arg(long)]
        flat: bool,
    },
    /// Merge ROOT files as hadd does: trees fast-cloned (baskets copied without being
    /// recompressed), directories merged, other objects taken from the first input that
    /// has them. The output appears only once complete.
    Merge {
        /// The output file.
        out: PathBuf,
        /// Input files: paths, `@list.txt` (one path per line) or patterns (`jobs/*.root`).
        #[arg(required = true)]
        inputs: Vec<String>,
        /// Overwrite an existing output.
        #[arg(short, long)]
        force: bool,
        /// Threads copying records (default: all cores).
        #[arg(short = 'j', long)]
        threads: Option<usize>,
        /// Skip inputs that cannot be read, with a warning (default: fail, leaving no
        /// output).
        #[arg(short = 'k', long)]
        skip_bad: bool,
        /// Memory for records in flight, e.g. 256MiB, 1GiB or a number of bytes.
        #[arg(long, default_value = "256MiB", value_parser = parse_bytes)]
        memory_budget: u64,
        /// Compress every basket with this setting (as `generate`'s). Default: each
        /// branch keeps the first input's setting; baskets of other settings are
        /// compressed again, the rest copied as they are.
        #[arg(long)]
        compression: Option<Compression>,
        /// Merge RNTuples of different schemas into the union of their fields: an input
        /// without a field gets its default value (0, false, empty), as in ROOT's union
        /// merging mode. Default: every input must have the first input's schema.
        #[arg(long)]
        rntuple_union: bool,
    },
    /// Recover a file whose writer was killed or that was cut short: every RNTuple keeps
    /// the clusters whose pages are whole (also those after its last checkpoint), other
    /// objects as last written; prints what was kept and what was dropped. The input is
    /// not changed unless --in-place; the output appears only once complete.
    Recover {
        /// The damaged file.
        input: PathBuf,
        /// The recovered file (default: <input stem>.recovered.root beside the input).
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// Replace the input with the recovered file.
        #[arg(long)]
        in_place: bool,
        /// Overwrite an existing output.
        #[arg(short, long)]
        force: bool,
    },
    /// Convert an RNTuple or a TTree into another format: a TTree into an RNTuple laid out
    /// as ROOT's RNTupleImporter lays it out (NanoAOD's counted branches as collections of
    /// records, with projected fields `Muon_pt` and `nMuon`), an RNTuple into a TTree
    /// (NanoAOD-style branches), either into Parquet. The output appears only once
    /// complete.
    Convert {
        /// The input: `file.root:name`, or `file.root` holding one RNTuple or TTree.
        input: String,
        /// The output file.
        out: PathBuf,
        /// The output format: rntuple, ttree or parquet.
        #[arg(long)]
        to: rootweave::convert::Target,
        /// Comma-separated fields (TTree branches) to convert (default: all).
        #[arg(long, value_delimiter = ',')]
        fields: Vec<String>,
        /// Threads reading, converting and compressing (default: all cores).
        #[arg(short = 'j', long)]
        threads: Option<usize>,
        /// Memory for batches read and clusters waiting to be written, e.g. 256MiB.
        #[arg(long, default_value = "256MiB", value_parser = parse_bytes)]
        memory_budget: u64,
        /// Compression (as `generate`'s). Default: zstd:5 for RNTuples and Parquet,
        /// zlib:1 for TTrees.
        #[arg(long)]
        compression: Option<Compression>,
        /// The output RNTuple's or TTree's name (default: the input's).
        #[arg(long)]
        name: Option<String>,
        /// Overwrite an existing output.
        #[arg(short, long)]
        force: bool,
        /// With --to ttree: the split level of the branches of classes (default: ROOT's
        /// 99, a branch per member; 0: each entry's object streamed whole).
        #[arg(long)]
        split_level: Option<i32>,
    },
}

/// Runs the command line `args` (the program's name first, as `std::env::args_os` gives
/// them) and returns the exit code: 0 on success, 1 when the command failed (the error
/// printed on stderr), clap's 2 for a usage error.
pub fn run<I, T>(args: I, host: Host) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` print to stdout and end well; usage errors print to
            // stderr and end with clap's code.
            let _ = e.print();
            return e.exit_code().clamp(0, 255) as u8;
        }
    };
    if let Command::Generate { format, .. } = &cli.command {
        // Before any other thread exists. Not for trees: their writer keeps freed memory,
        // and liblzma's encoder state (over 128 KiB, made for every basket) would be
        // mapped and unmapped for each basket, threads contending in the kernel for it.
        if format == "rntuple" && matches!(host, Host::Process) {
            return_freed_memory_promptly();
        }
    }
    let result = match cli.command {
        Command::Ls { file } => list(&file),
        Command::Dump {
            file,
            name,
            fields,
            entries,
            json,
        } => crate::commands::dump::dump(
            &file,
            &name,
            &crate::commands::dump::DumpOptions {
                fields,
                entries,
                json,
            },
            &mut std::io::BufWriter::new(std::io::stdout().lock()),
        ),
        Command::Generate {
            out,
            events,
            compression,
            seed,
            threads,
            memory_budget,
            ordered,
            schema,
            format,
            sequential,
            split_level,
            classes,
            flat,
        } => {
            let compression = compression.unwrap_or(match format.as_str() {
                "ttree" => Compression::ROOT_FILE_DEFAULT,
                _ => Compression::ROOT_RNTUPLE_DEFAULT,
            });
            let threads = match sequential {
                true => 1,
                false => threads
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            };
            generate(
                &out,
                &GenerateOptions {
                    schema,
                    entries: events,
                    compression,
                    seed,
                    threads,
                    memory_budget,
                    ordered,
                    progress: true,
                    split_levels: split_level,
                    classes,
                    flat,
                },
                match format.as_str() {
                    "ttree" if sequential => Output::SequentialTree,
                    "ttree" => Output::ParallelTree,
                    _ if sequential => Output::SequentialRNTuple,
                    _ => Output::RNTuple,
                },
            )
        }
        Command::Merge {
            out,
            inputs,
            force,
            threads,
            skip_bad,
            memory_budget,
            compression,
            rntuple_union,
        } => {
            let options = rootweave::merge::MergeOptions {
                force,
                compression,
                threads: threads
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
                skip_bad,
                memory_budget,
                rntuple_union,
                ..Default::default()
            };
            crate::commands::merge::run(&out, &inputs, options).map(|text| eprint!("{text}"))
        }
        Command::Recover {
            input,
            out,
            in_place,
            force,
        } => {
            crate::commands::recover::output_path(&input, out, in_place, force).and_then(|output| {
                crate::commands::recover::run(&input, &output).map(|text| eprint!("{text}"))
            })
        }
        Command::Convert {
            input,
            out,
            to,
            fields,
            threads,
            memory_budget,
            compression,
            name,
            force,
            split_level,
        } => {
            let mut options = rootweave::convert::ConvertOptions::new(to);
            options.split_level = split_level;
            options.fields = fields;
            options.threads = threads.unwrap_or(0);
            options.memory_budget = memory_budget;
            options.compression = compression;
            options.name = name;
            options.force = force;
            crate::commands::convert::run(&input, &out, options).map(|text| eprint!("{text}"))
        }
    };
    match result {
        Ok(()) => 0,
        // The reader of the output went away (`rootweave dump ... | head`): a normal end.
        Err(rootweave::Error::Io { source, .. })
            if source.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            0
        }
        Err(e) => {
            eprintln!("rootweave: {e}");
            1
        }
    }
}

/// Makes glibc's allocator hand buffers of 128 KiB and more straight to and from the
/// kernel. By default it raises that threshold each time such a buffer is freed (up to
/// 32 MiB), after which page and cluster buffers come from its heaps, where freed memory
/// stays resident: the writer's memory budget would hold, but the process would not give
/// the memory back.
fn return_freed_memory_promptly() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tuning parameter of the allocator (it takes the
    // allocator's own lock); it is called before any other thread exists, with a valid
    // parameter and value, and no memory is touched.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
    }
}

fn list(path: &std::path::Path) -> rootweave::Result<()> {
    use std::io::Write;
    let text = crate::commands::list::list(path)?;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(crate::stdout_error)
}

/// Parses a byte count: a number with an optional KiB/MiB/GiB (or KB/MB/GB) suffix.
fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a size"))?;
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        other => return Err(format!("unknown size unit '{other}'")),
    };
    number
        .checked_mul(factor)
        .ok_or_else(|| format!("'{text}' is too large"))
}

/// What `generate` writes, and with which writer.
enum Output {
    RNTuple,
    SequentialRNTuple,
    ParallelTree,
    SequentialTree,
}

fn generate(
    out: &std::path::Path,
    options: &GenerateOptions,
    output: Output,
) -> rootweave::Result<()> {
    use std::io::Write;
    let s = match output {
        Output::RNTuple => crate::commands::generate::generate(out, options)?,
        Output::SequentialRNTuple => crate::commands::generate::generate_sequential(out, options)?,
        Output::ParallelTree => crate::commands::generate::generate_ttree(out, options)?,
        Output::SequentialTree => {
            crate::commands::generate::generate_ttree_sequential(out, options)?
        }
    };
    let written = format!(
        "wrote {} entries to {} with {} thread(s): {} clusters, {:.1} MB on disk, compression {} (ratio {:.2})",
        s.entries,
        out.display(),
        options.threads,
        s.clusters,
        s.file_bytes as f64 / 1e6,
        options.compression,
        s.uncompressed_bytes as f64 / s.stored_bytes.max(1) as f64,
    );
    let buffered = match s.budget_peak {
        Some(peak) => format!(
            "{:.1} MiB buffered (budget {:.0} MiB), ",
            peak as f64 / (1 << 20) as f64,
            options.memory_budget as f64 / (1 << 20) as f64,
        ),
        None => String::new(),
    };
    let rates = format!(
        "{:.2} s: {:.0} entries/s, {:.1} MB/s uncompressed; peak memory: {buffered}{} resident",
        s.seconds,
        s.entries as f64 / s.seconds,
        s.uncompressed_bytes as f64 / 1e6 / s.seconds,
        s.peak_rss
            .map(|b| format!("{:.1} MiB", b as f64 / (1 << 20) as f64))
            .unwrap_or_else(|| "unknown".into()),
    );
    // Written, not printed: `println!` panics when the reader has gone (`... | head -1`),
    // which `main` takes as a normal end.
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{written}\n{rates}").map_err(crate::stdout_error)
}
