//! `rootweave generate --format ttree`: a synthetic dataset written as a TTree by the
//! sequential TTree writer, chunk after chunk on one thread.

use std::path::Path;
use std::time::Instant;

use rootweave::rntuple::FieldType;
use rootweave::ttree::{BranchSpec, TTreeWriteOptions, TTreeWriter};
use rootweave::{Error, Result};

use crate::generate::{peak_rss, GenerateOptions, GenerateSummary};

/// The branch of a field of numbers, or why the field is not written to TTrees yet.
fn branch(name: &str, ty: &FieldType) -> Result<BranchSpec> {
    let leaf = ty.number().ok_or_else(|| {
        Error::InvalidArgument(format!(
            "--format ttree: field {name} is a {}, and TTrees are generated for schemas of numbers (single, wide) so far",
            ty.type_name()
        ))
    })?;
    Ok(BranchSpec::scalar(name, leaf))
}

/// Generates the dataset into `out` as a TTree called `Events`.
pub fn generate_ttree(out: &Path, options: &GenerateOptions) -> Result<GenerateSummary> {
    let start = Instant::now();
    let branches = options
        .schema
        .fields()
        .iter()
        .map(|f| branch(&f.name, &f.ty))
        .collect::<Result<Vec<_>>>()?;
    let mut writer = TTreeWriter::recreate(
        out,
        "Events",
        branches,
        options.compression,
        TTreeWriteOptions::default(),
    )?;
    let mut spare = None;
    for index in 0..options.schema.chunks(options.entries) {
        let chunk =
            options
                .schema
                .chunk_reusing(options.seed, index, options.entries, spare.take());
        chunk.with_columns(|batch| writer.extend(batch))?;
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
