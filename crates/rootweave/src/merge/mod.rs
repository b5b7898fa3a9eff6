//! Merging ROOT files as `hadd` does: trees are fast-cloned (their basket records copied
//! byte for byte, the tree object rewritten with the merged basket lists), directories are
//! merged recursively, histograms added bin by bin, and other objects are taken from the
//! first input that has them.
//! The output is written under a temporary name and renamed once complete, so a failed
//! merge leaves no output.
//!
//! ```no_run
//! use rootweave::merge::{merge, MergeOptions};
//! let inputs = ["job1.root", "job2.root"].map(std::path::PathBuf::from);
//! let summary = merge("all.root", &inputs, &MergeOptions::default())?;
//! println!("{} entries", summary.entries);
//! # Ok::<(), rootweave::Error>(())
//! ```

mod catalog;
mod hist;
mod ntuple_schema;
mod records;
mod rntuple;
mod tree;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rayon::prelude::*;

use crate::compress::Compression;
use crate::container::{DirectoryId, FileWriter, WriterOptions};
use crate::error::{Error, Result};
use catalog::{Catalog, Entry, Input, Kind, StreamerCache};
use hist::HistSum;
use ntuple_schema::MergedSchema;
use rntuple::{merge_rntuple, NtupleSource, NtupleTarget};
use tree::{check_same_branches, merged_object, TreePlan};

/// The most bytes of records read and written at once (a larger record goes alone): the
/// kernel copies pieces of about this size into and out of the page cache fastest.
const RUN_BYTES: u64 = 1 << 20;

/// Inputs of one histogram read and added in order by one thread (see
/// [`Job::histogram_sum`]).
const HIST_CHUNK: usize = 16;

/// A summed histogram's record, compressed for a key header of `keylen` bytes.
struct HistRecord {
    sum: HistSum,
    stored: Vec<u8>,
    objlen: usize,
    keylen: usize,
}

/// How to merge.
#[derive(Clone)]
pub struct MergeOptions {
    /// Overwrite an existing output.
    pub force: bool,
    /// Compress every basket and RNTuple page with this setting (and the output file's
    /// records). Without it, a branch's baskets keep the first input's setting of the
    /// branch: those of other inputs with another setting are compressed again, the rest
    /// copied as they are; RNTuple pages are copied as they are.
    pub compression: Option<Compression>,
    /// Threads copying records.
    pub threads: usize,
    /// Merge RNTuples of different schemas into the union of their top-level fields
    /// (an input without a field gets its default value: zero, false, empty), as ROOT's
    /// RNTupleMerger does in its union mode. Without it, every input must have the first
    /// input's schema.
    pub rntuple_union: bool,
    /// Skip inputs that cannot be read (each is listed in the summary) instead of
    /// failing.
    pub skip_bad: bool,
    /// Bytes of records held in memory at once while copying.
    pub memory_budget: u64,
    /// Called with the bytes copied so far and the bytes to copy in all.
    pub progress: Option<Arc<dyn Fn(u64, u64) + Send + Sync>>,
}

impl Default for MergeOptions {
    fn default() -> Self {
        MergeOptions {
            force: false,
            compression: None,
            threads: 1,
            rntuple_union: false,
            skip_bad: false,
            memory_budget: 256 << 20,
            progress: None,
        }
    }
}

impl std::fmt::Debug for MergeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MergeOptions")
            .field("force", &self.force)
            .field("compression", &self.compression)
            .field("threads", &self.threads)
            .field("rntuple_union", &self.rntuple_union)
            .field("skip_bad", &self.skip_bad)
            .field("memory_budget", &self.memory_budget)
            .finish_non_exhaustive()
    }
}

/// What a merge did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeSummary {
    /// Inputs merged.
    pub inputs: usize,
    /// Inputs skipped (`skip_bad`), each with the reason.
    pub skipped: Vec<String>,
    /// Trees merged (one per path).
    pub trees: usize,
    /// RNTuples merged (one per path).
    pub rntuples: usize,
    /// Entries of all merged trees and RNTuples.
    pub entries: u64,
    /// Histograms merged (one per path).
    pub histograms: usize,
    /// Objects taken whole from one input.
    pub objects_copied: usize,
    /// Bytes of records copied without being decompressed.
    pub bytes_copied: u64,
    /// Bytes of baskets compressed again (of another setting than asked, or kept in a tree
    /// object).
    pub bytes_recompressed: u64,
    /// Size of the output.
    pub output_bytes: u64,
    /// What the caller should know (objects taken from the first input only, ...).
    pub notes: Vec<String>,
}

/// Merges `inputs` into a new file at `output` (see the module documentation).
pub fn merge(
    output: impl AsRef<Path>,
    inputs: &[PathBuf],
    options: &MergeOptions,
) -> Result<MergeSummary> {
    let output = output.as_ref();
    if inputs.is_empty() {
        return Err(Error::InvalidArgument("no input files to merge".into()));
    }
    if output.exists() && !options.force {
        return Err(Error::InvalidArgument(format!(
            "{} exists (overwrite it with force)",
            output.display()
        )));
    }
    let mut summary = MergeSummary::default();
    if let Some(path) = inputs.iter().find(|p| crate::io::same_file(p, output)) {
        return Err(Error::InvalidArgument(format!(
            "{} is both an input and the output",
            path.display()
        )));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.max(1))
        .build()
        .map_err(|e| Error::InvalidArgument(format!("thread pool: {e}")))?;
    // Inputs are opened and checked on the pool, each reading its own metadata.
    let cache = StreamerCache::default();
    let results: Vec<Result<Input>> =
        pool.install(|| inputs.par_iter().map(|p| Input::open(p, &cache)).collect());
    let mut opened = Vec::new();
    for (path, result) in inputs.iter().zip(results) {
        match result {
            Ok(input) => opened.push(input),
            Err(e) if options.skip_bad => summary.skipped.push(named(&e, path)),
            Err(e) => return Err(e),
        }
    }
    if opened.is_empty() {
        return Err(Error::InvalidArgument("no readable input files".into()));
    }
    let temp = crate::io::temporary_path(output);
    let result = loop {
        summary.inputs = opened.len();
        let catalog = Catalog::build(&opened)?;
        let mut attempt = summary.clone();
        let result = write_output(&temp, &opened, &catalog, options, &pool, &mut attempt);
        // A bad record found while copying: with skip_bad, merge again without its file.
        let bad = match &result {
            Err(Error::Format { file, .. }) if options.skip_bad && opened.len() > 1 => {
                opened.iter().position(|i| i.file.name() == file)
            }
            _ => None,
        };
        match bad {
            Some(i) => {
                let e = result.expect_err("a failed attempt");
                summary
                    .skipped
                    .push(format!("{}: {e}", opened[i].file.name()));
                opened.remove(i);
            }
            None => {
                summary = attempt;
                break result;
            }
        }
    };
    match result.and_then(|size| {
        // Renaming over an existing file makes ext4 write the new one out first (its
        // replace-by-rename safeguard), which took longer than the merge; an output being
        // overwritten is removed first instead.
        if options.force && output.is_file() {
            std::fs::remove_file(output).map_err(|e| Error::Io {
                path: output.to_path_buf(),
                source: e,
            })?;
        }
        std::fs::rename(&temp, output).map_err(|e| Error::Io {
            path: output.to_path_buf(),
            source: e,
        })?;
        Ok(size)
    }) {
        Ok(size) => {
            summary.output_bytes = size;
            Ok(summary)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// An error's message, starting with the file's name unless it names it already.
fn named(e: &Error, path: &Path) -> String {
    let text = e.to_string();
    let name = path.display().to_string();
    if text.contains(&name) {
        text
    } else {
        format!("{name}: {text}")
    }
}

fn write_output(
    temp: &Path,
    inputs: &[Input],
    catalog: &Catalog,
    options: &MergeOptions,
    pool: &rayon::ThreadPool,
    summary: &mut MergeSummary,
) -> Result<u64> {
    let first = &inputs[0].file;
    let compression = options.compression.unwrap_or_else(|| {
        Compression::from_root_setting(first.header().compression)
            .unwrap_or(Compression::ROOT_FILE_DEFAULT)
    });
    let writer = FileWriter::create(temp, WriterOptions::default().with_compression(compression))?;
    let (chosen, missing) = streamer_source(inputs);
    if let Some((key, record)) = inputs[chosen].file.streamer_record()? {
        match crate::container::streamer_records(inputs[chosen].file.name(), &key, &record) {
            Ok(by_keylen) => {
                if by_keylen.len() < 2 {
                    summary.notes.push(format!(
                        "parts of the StreamerInfo record of {} could not be read: the output \
                         keeps it only if its key has the same length",
                        inputs[chosen].file.name()
                    ));
                }
                writer.set_streamer_record(by_keylen)
            }
            Err(why) => summary.notes.push(format!(
                "the StreamerInfo record of {} cannot be moved to another key ({why}); the \
                 output describes no classes",
                inputs[chosen].file.name()
            )),
        }
    }
    if !missing.is_empty() {
        summary.notes.push(format!(
            "no input's StreamerInfo record describes every class; {} lacks {}",
            inputs[chosen].file.name(),
            missing.join(", ")
        ));
    }
    let job = Job {
        writer: &writer,
        inputs,
        options,
        pool,
        copied: AtomicU64::new(0),
        recompressed: AtomicU64::new(0),
        moved: AtomicU64::new(0),
        total: catalog.record_bytes(),
    };
    job.merge_dir(&catalog.top, "", DirectoryId::TOP, summary)?;
    summary.bytes_copied = job.copied.load(Ordering::Relaxed);
    summary.bytes_recompressed = job.recompressed.load(Ordering::Relaxed);
    Ok(writer.close()?.file_size)
}

/// The input whose StreamerInfo record the output takes: the first whose classes (name
/// and version) include every other input's, else the first input, with the classes
/// (`name;version`) it lacks.
fn streamer_source(inputs: &[Input]) -> (usize, Vec<String>) {
    let classes = |i: &Input| -> std::collections::BTreeSet<(String, i32)> {
        i.streamers
            .all()
            .iter()
            .map(|s| (s.class_name.clone(), s.class_version))
            .collect()
    };
    let sets: Vec<_> = inputs.iter().map(classes).collect();
    let all: std::collections::BTreeSet<(String, i32)> = sets.iter().flatten().cloned().collect();
    match sets.iter().position(|s| s.len() == all.len()) {
        Some(i) => (i, Vec::new()),
        None => {
            let missing = all.difference(&sets[0]);
            (0, missing.map(|(n, v)| format!("{n};{v}")).collect())
        }
    }
}

/// What the writing of one output needs.
struct Job<'a> {
    writer: &'a FileWriter,
    inputs: &'a [Input],
    options: &'a MergeOptions,
    pool: &'a rayon::ThreadPool,
    copied: AtomicU64,
    recompressed: AtomicU64,
    /// Bytes of records done (copied or compressed again), for progress.
    moved: AtomicU64,
    total: u64,
}

impl Job<'_> {
    fn merge_dir(
        &self,
        entries: &[Entry],
        path: &str,
        dir: DirectoryId,
        summary: &mut MergeSummary,
    ) -> Result<()> {
        let full = |entry: &Entry| {
            if path.is_empty() {
                entry.name.clone()
            } else {
                format!("{path}/{}", entry.name)
            }
        };
        // Histograms are summed on the pool while the other entries are merged (trees'
        // records copied), then written after them in their order.
        let histograms: Vec<&Entry> = entries
            .iter()
            .filter(|e| matches!(e.kind, Kind::Histogram))
            .collect();
        let (sums, rest) = self.pool.install(|| {
            rayon::join(
                || {
                    histograms
                        .par_iter()
                        .map(|e| self.histogram_record(self.histogram_sum(e, &full(e))?))
                        .collect::<Result<Vec<_>>>()
                },
                || {
                    let mut others = entries
                        .iter()
                        .filter(|e| !matches!(e.kind, Kind::Histogram));
                    others.try_for_each(|e| self.merge_entry(e, &full(e), dir, summary))
                },
            )
        });
        rest?;
        for record in sums? {
            self.write_histogram(record, dir)?;
            summary.histograms += 1;
        }
        Ok(())
    }

    /// Merges `entry` (not a histogram) at `full` into directory `dir`.
    fn merge_entry(
        &self,
        entry: &Entry,
        full: &str,
        dir: DirectoryId,
        summary: &mut MergeSummary,
    ) -> Result<()> {
        match &entry.kind {
            Kind::Directory(children) => {
                let sub = self.writer.mkdir(full)?;
                self.merge_dir(children, full, sub, summary)?;
            }
            Kind::Tree => {
                summary.entries += self.merge_tree(entry, full, dir)?;
                summary.trees += 1;
            }
            Kind::Histogram => unreachable!("histograms are summed by merge_dir"),
            Kind::RNTuple => {
                summary.entries += self.merge_ntuple(entry, full, dir)?;
                summary.rntuples += 1;
            }
            Kind::Other => {
                let (i, key) = &entry.sources[0];
                let file = &self.inputs[*i].file;
                let stored = file.read_at(key.payload_offset(), key.payload_len(), &key.name)?;
                self.writer.write_stored_object_in(
                    dir,
                    &key.class_name,
                    &key.name,
                    &key.title,
                    &stored,
                    key.objlen as usize,
                )?;
                summary.objects_copied += 1;
                if entry.sources.len() > 1 {
                    summary.notes.push(format!(
                        "{full} ({}): taken from {} only",
                        key.class_name,
                        file.name()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Merges the RNTuple `entry` into directory `dir`; returns its entries.
    fn merge_ntuple(&self, entry: &Entry, path: &str, dir: DirectoryId) -> Result<u64> {
        let files: Vec<&crate::container::RootFile> = entry
            .sources
            .iter()
            .map(|(i, _)| &self.inputs[*i].file)
            .collect();
        let sources = entry
            .sources
            .iter()
            .map(|(i, _)| self.inputs[*i].ntuple(path))
            .collect::<Result<Vec<_>>>()?;
        let copies: Vec<_> = sources
            .iter()
            .map(|s| (s.file.as_str(), &s.descriptor))
            .collect();
        let schema = if self.options.rntuple_union {
            let counts: Vec<u64> = sources.iter().map(NtupleSource::entries).collect();
            MergedSchema::union(path, &copies, &counts)?
        } else {
            MergedSchema::strict(path, &copies)?
        };
        let entries = sources.iter().map(NtupleSource::entries).sum();
        let name = &entry.sources[0].1.name;
        let target = NtupleTarget {
            writer: self.writer,
            dir,
            pool: self.pool,
            run_bytes: RUN_BYTES,
            to: self.options.compression,
        };
        let moved = merge_rntuple(&target, &files, sources, &schema, name)?;
        self.copied.fetch_add(moved.copied, Ordering::Relaxed);
        self.recompressed
            .fetch_add(moved.recompressed, Ordering::Relaxed);
        Ok(entries)
    }

    /// The histogram `entry` at `path` summed over its inputs: in chunks of
    /// [`HIST_CHUNK`] inputs on the pool, each read and added in order, then the chunks
    /// added in order (so that the sums do not depend on the number of threads).
    fn histogram_sum(&self, entry: &Entry, path: &str) -> Result<HistSum> {
        let chunks = entry
            .sources
            .par_chunks(HIST_CHUNK)
            .map(|chunk| {
                let mut sum: Option<HistSum> = None;
                for (i, key) in chunk {
                    let more = HistSum::new(path, self.inputs[*i].histogram(key, path)?)?;
                    sum = Some(match sum {
                        None => more,
                        Some(s) => s.add(more, path)?,
                    });
                }
                sum.ok_or_else(|| {
                    Error::InvalidArgument(format!("histogram '{path}' has no input"))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut chunks = chunks.into_iter();
        let first = chunks.next().expect("a histogram has an input");
        chunks.try_fold(first, |sum, more| sum.add(more, path))
    }

    /// The record of the summed histogram `sum`, compressed, for a key of the length the
    /// next key of the file has now.
    fn histogram_record(&self, sum: HistSum) -> Result<HistRecord> {
        let key = sum.key();
        let keylen = self
            .writer
            .next_key_len(&key.class_name, &key.name, &key.title);
        let payload = sum.payload(keylen as u32)?;
        Ok(HistRecord {
            stored: self.writer.stored_payload(&payload),
            objlen: payload.len(),
            keylen,
            sum,
        })
    }

    /// Writes a summed histogram's record into directory `dir` (made again if the file
    /// has grown past the size where keys get longer since).
    fn write_histogram(&self, record: HistRecord, dir: DirectoryId) -> Result<()> {
        let key = record.sum.key().clone();
        let keylen = self
            .writer
            .next_key_len(&key.class_name, &key.name, &key.title);
        let record = if keylen == record.keylen {
            record
        } else {
            self.histogram_record(record.sum)?
        };
        self.writer.write_stored_object_in(
            dir,
            &key.class_name,
            &key.name,
            &key.title,
            &record.stored,
            record.objlen,
        )?;
        Ok(())
    }

    /// Merges the tree `entry` into directory `dir`; returns its entries.
    fn merge_tree(&self, entry: &Entry, path: &str, dir: DirectoryId) -> Result<u64> {
        let sources = entry
            .sources
            .iter()
            .map(|(i, key)| self.inputs[*i].tree(key, path))
            .collect::<Result<Vec<_>>>()?;
        for other in &sources[1..] {
            check_same_branches(path, &sources[0], other)?;
        }
        let settings: Vec<i32> = entry
            .sources
            .iter()
            .map(|(i, _)| self.inputs[*i].file.header().compression)
            .collect();
        let mut plan = TreePlan::new(
            &sources,
            &settings,
            self.options.compression,
            self.writer.datime(),
        )?;
        for i in 0..sources.len() {
            let start = self.writer.allocate(plan.input_bytes(i));
            plan.place(i, start);
        }
        let seek_pdir = self.writer.directory_seek(dir)?;
        let threads = self.options.threads.max(1) as u64;
        let most = (self.options.memory_budget / threads / 2).clamp(64 << 10, RUN_BYTES);
        let jobs: Vec<(usize, records::Run)> = plan
            .records
            .iter()
            .enumerate()
            .flat_map(|(i, r)| records::runs(r, most).into_iter().map(move |run| (i, run)))
            .collect();
        let progress = |bytes: u64| {
            let done = self.moved.fetch_add(bytes, Ordering::Relaxed) + bytes;
            if let Some(progress) = &self.options.progress {
                progress(done, self.total);
            }
        };
        // Runs in batches of a few per thread, each batch reusing one buffer. Unless
        // baskets are compressed again (which moves them), the tree object is made and
        // compressed meanwhile.
        let batch = jobs.len().div_ceil(threads as usize * 8).max(1);
        let key = sources[0].key().clone();
        let object = |plan: &TreePlan| -> Result<(Vec<u8>, usize, usize)> {
            let keylen = self
                .writer
                .next_key_len(&key.class_name, &key.name, &key.title);
            let payload = merged_object(&sources, plan, keylen as u32)?;
            Ok((self.writer.stored_payload(&payload), payload.len(), keylen))
        };
        let (copied, early) = self.pool.install(|| {
            rayon::join(
                || {
                    jobs.par_chunks(batch).try_for_each(|batch| {
                        let mut buf = Vec::new();
                        for (i, run) in batch {
                            let file = &self.inputs[entry.sources[*i].0].file;
                            records::copy_run(file, self.writer, run, seek_pdir, &mut buf)?;
                            self.copied.fetch_add(run.len(), Ordering::Relaxed);
                            progress(run.len());
                        }
                        Ok::<(), Error>(())
                    })
                },
                || {
                    plan.recompress
                        .iter()
                        .all(Vec::is_empty)
                        .then(|| object(&plan))
                },
            )
        });
        copied?;
        // Baskets of another setting: compressed again on the pool, placed as written.
        let groups: Vec<(usize, (usize, usize))> = plan
            .recompress
            .iter()
            .enumerate()
            .flat_map(|(i, r)| {
                let records: Vec<records::Record> = r.iter().map(|(rec, _)| *rec).collect();
                records::groups(&records, most)
                    .into_iter()
                    .map(move |g| (i, g))
            })
            .collect();
        let placed = self.pool.install(|| {
            groups
                .par_iter()
                .map_init(Vec::new, |buf, &(i, (a, b))| {
                    let file = &self.inputs[entry.sources[i].0].file;
                    let part = &plan.recompress[i][a..b];
                    let records: Vec<records::Record> = part.iter().map(|(r, _)| *r).collect();
                    let to: Vec<Compression> =
                        part.iter().map(|(_, (bi, _))| plan.targets[*bi]).collect();
                    let placed = records::recompress_group(
                        file,
                        self.writer,
                        &records,
                        &to,
                        seek_pdir,
                        buf,
                    )?;
                    let bytes: u64 = records.iter().map(|r| r.len as u64).sum();
                    self.recompressed.fetch_add(bytes, Ordering::Relaxed);
                    progress(bytes);
                    Ok::<_, Error>((i, a, placed))
                })
                .collect::<Result<Vec<_>>>()
        })?;
        for (i, a, group) in placed {
            for (k, (seek, len)) in group.into_iter().enumerate() {
                plan.recompressed(i, a + k, seek, len);
            }
        }
        for (i, made) in plan.made.iter().enumerate() {
            let mut at = plan.made_at[i];
            for (record, _) in made {
                let mut record = record.clone();
                records::repoint(&mut record, at, seek_pdir).map_err(|m| {
                    Error::format(self.inputs[entry.sources[i].0].file.name(), path, 0, m)
                })?;
                self.writer.write_at(at, &record)?;
                at += record.len() as u64;
            }
        }
        self.recompressed
            .fetch_add(plan.made_bytes, Ordering::Relaxed);
        let keylen = self
            .writer
            .next_key_len(&key.class_name, &key.name, &key.title);
        let (stored, objlen) = match early.transpose()? {
            Some((stored, objlen, made_for)) if made_for == keylen => (stored, objlen),
            _ => {
                let (stored, objlen, _) = object(&plan)?;
                (stored, objlen)
            }
        };
        self.writer.write_stored_object_in(
            dir,
            &key.class_name,
            &key.name,
            &key.title,
            &stored,
            objlen,
        )?;
        // Freeing the inputs' tree objects (many small allocations) took longer than
        // writing the merged one: a thread of its own does it while the merge goes on.
        // (If no thread can be had, the failed spawn drops them here.)
        let freeing = std::thread::Builder::new().name("rootweave-free".into());
        let _ = freeing.spawn(move || drop(sources));
        Ok(plan.entries)
    }
}
