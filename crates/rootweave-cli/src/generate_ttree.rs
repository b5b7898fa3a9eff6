//! `rootweave generate --format ttree`: a synthetic dataset written as a TTree by the
//! sequential TTree writer, chunk after chunk on one thread, its fields as NanoAOD-style
//! branches.

use std::path::Path;
use std::time::Instant;

use rootweave::convert::{FieldOptions, TreeLayout};
use rootweave::ttree::{TTreeWriteOptions, TTreeWriter};
use rootweave::Result;

use crate::generate::{peak_rss, GenerateOptions, GenerateSummary};

/// How the generated fields become branches: NanoAOD's, a list `X_y` counted by `nX`
/// (shared by the lists of one collection, as `nJet` counts `Jet_pt` and `Jet_eta`); other
/// fields as [`TreeLayout`] lays them out.
fn field_options(name: &str) -> FieldOptions {
    match name.split_once('_') {
        Some((collection, _)) => FieldOptions::default().with_counter(&format!("n{collection}")),
        None => FieldOptions::default(),
    }
}

/// Generates the dataset into `out` as a TTree called `Events`.
pub fn generate_ttree(out: &Path, options: &GenerateOptions) -> Result<GenerateSummary> {
    let start = Instant::now();
    let layout = TreeLayout::new(&options.schema.fields(), field_options)?;
    let mut writer = TTreeWriter::recreate(
        out,
        "Events",
        layout.branches().to_vec(),
        options.compression,
        TTreeWriteOptions::default(),
    )?;
    let mut spare = None;
    for index in 0..options.schema.chunks(options.entries) {
        let chunk =
            options
                .schema
                .chunk_reusing(options.seed, index, options.entries, spare.take());
        chunk.with_columns(|batch| layout.with_branch_batches(batch, |b| writer.extend(b)))?;
        spare = Some(chunk);
    }
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
        budget_peak: 0,
        peak_rss: peak_rss(),
    })
}
