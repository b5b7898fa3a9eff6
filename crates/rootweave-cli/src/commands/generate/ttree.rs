//! `rootweave generate --format ttree`: a synthetic dataset written as a TTree, its fields
//! as NanoAOD-style branches (the `complex` dataset's as branches of `std::vector<Event>`): by the parallel TTree writer from any number of threads, or
//! (`--sequential`) on one thread by the sequential writer, ROOT's clusters and all.

use std::path::Path;
use std::time::Instant;

use rootweave::array::ColumnData;
use rootweave::tree_layout::{FieldOptions, TreeLayout};
use rootweave::ttree::{
    TTreeFillContext, TTreeParallelOptions, TTreeParallelWriter, TTreeWriteOptions, TTreeWriter,
};
use rootweave::Result;

use super::{
    each_chunk, peak_rss, write_parallel, GenerateOptions, GenerateSummary, ParallelOutput,
};

/// How the generated fields become branches: NanoAOD's, a list `X_y` counted by `nX`
/// (shared by the lists of one collection, as `nJet` counts `Jet_pt` and `Jet_eta`); other
/// fields as [`TreeLayout`] lays them out.
fn field_options(name: &str) -> FieldOptions {
    match name.split_once('_') {
        Some((collection, _)) => FieldOptions::default().with_counter(&format!("n{collection}")),
        None => FieldOptions::default(),
    }
}

/// The branches of the dataset: classes split as `options` say, or NanoAOD-style.
fn tree_layout(options: &GenerateOptions) -> Result<TreeLayout> {
    let fields = if options.flat {
        options.schema.fields()
    } else {
        options.schema.tree_fields()
    };
    let positions: std::collections::HashMap<&str, usize> = fields
        .iter()
        .enumerate()
        .map(|(k, f)| (f.name.as_str(), k))
        .collect();
    TreeLayout::new(&fields, |name| {
        let position = positions.get(name).copied().unwrap_or(0);
        match split_level(&options.split_levels, position) {
            Some(level) => field_options(name).with_split_level(level),
            None => field_options(name),
        }
    })
}

/// The split level of the `position`-th branch: the `position`-th of `levels`, or the
/// last of them for branches after them; none (ROOT's 99) if `levels` is empty.
fn split_level(levels: &[i32], position: usize) -> Option<i32> {
    levels.get(position).or(levels.last()).copied()
}

/// Generates the dataset into `out` as a TTree called `Events`, chunk after chunk on one
/// thread, by the sequential writer (ROOT's clusters and basket sizes).
pub fn generate_ttree_sequential(out: &Path, options: &GenerateOptions) -> Result<GenerateSummary> {
    let layout = tree_layout(options)?;
    let start = Instant::now();
    let mut writer = TTreeWriter::recreate(
        out,
        "Events",
        layout.branches().to_vec(),
        options.compression,
        TTreeWriteOptions::default(),
    )?;
    each_chunk(options, |batch| {
        layout.with_branch_batches(batch, |b| writer.extend(b))
    })?;
    let (entries, clusters) = (writer.entries(), writer.clusters());
    let (uncompressed, stored) = writer.basket_bytes();
    writer.close()?;
    Ok(GenerateSummary {
        entries,
        clusters,
        stored_bytes: stored,
        uncompressed_bytes: uncompressed,
        file_bytes: std::fs::metadata(out).map(|m| m.len()).unwrap_or(0),
        seconds: start.elapsed().as_secs_f64(),
        budget_peak: None,
        peak_rss: peak_rss(),
    })
}

/// The parallel TTree writer, with the layout that makes the dataset's fields branches.
struct TreeOutput<'a> {
    writer: TTreeParallelWriter,
    layout: &'a TreeLayout,
}

impl ParallelOutput for TreeOutput<'_> {
    type Context = TTreeFillContext;
    fn context(&self) -> TTreeFillContext {
        self.writer.context()
    }
    fn extend(
        &self,
        context: &mut TTreeFillContext,
        index: u64,
        batch: &[ColumnData],
        ordered: bool,
    ) -> Result<()> {
        self.layout.with_branch_batches(batch, |b| match ordered {
            true => context.extend_sequence(index, b),
            false => context.extend(b),
        })
    }
    fn status(&self) -> (u64, u64) {
        (
            self.writer.committed_bytes().1,
            self.writer.budget().in_use(),
        )
    }
    fn budget_peak(&self) -> u64 {
        self.writer.budget().peak()
    }
    fn close(self) -> Result<(u64, u64, u64, u64)> {
        let s = self.writer.close()?;
        Ok((s.entries, s.clusters, s.zip_bytes, s.tot_bytes))
    }
}

/// Generates the dataset into `out` as a TTree called `Events` by the parallel writer,
/// one fill context per thread.
pub fn generate_ttree(out: &Path, options: &GenerateOptions) -> Result<GenerateSummary> {
    let layout = tree_layout(options)?;
    let start = Instant::now();
    let writer = TTreeParallelWriter::recreate(
        out,
        "Events",
        layout.branches().to_vec(),
        TTreeParallelOptions::default()
            .with_compression(options.compression)
            .with_memory_budget(options.memory_budget)
            // Freed memory stays with the allocator: baskets are small, their records are
            // made again from it at once, and returning it made a `wide` write 15% slower
            // (pages faulted in again) for no smaller resident memory.
            .with_ordered(options.ordered),
    )?;
    let output = TreeOutput {
        writer,
        layout: &layout,
    };
    write_parallel(output, out, options, start)
}
