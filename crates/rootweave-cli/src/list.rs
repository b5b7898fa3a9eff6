//! `rootweave ls`: the keys of a ROOT file, every directory's (histograms with their
//! entries and axes), and for each RNTuple its entries, clusters and fields (C++ type,
//! column encodings, stored and uncompressed bytes).

use std::fmt::Write;
use std::path::Path;
use std::sync::Arc;

use rootweave::container::RootFile;
use rootweave::rntuple::read::{Descriptor, OpenOptions};
use rootweave::Result;

/// The listing of the file at `path`.
pub fn list(path: &Path) -> Result<String> {
    let file = Arc::new(RootFile::open(path)?);
    let mut out = String::new();
    crate::objects::list_keys(&file, &mut out)?;
    for key in file.keys() {
        if key.class_name == "ROOT::RNTuple" {
            let name = format!("{};{}", key.name, key.cycle);
            let d = Descriptor::open(&file, &name, OpenOptions::default())?;
            describe(&file, &d, &mut out)?;
        }
    }
    crate::list_ttree::describe_trees(&file, &mut out)?;
    Ok(out)
}

/// Appends the summary of one RNTuple.
fn describe(file: &RootFile, d: &Descriptor, out: &mut String) -> Result<()> {
    let clusters = d.all_clusters(file)?;
    let v = d.anchor.version;
    let _ = writeln!(
        out,
        "\nRNTuple '{}': {} entries, {} clusters in {} cluster groups, format {}.{}.{}.{}, written by {}",
        d.name,
        d.entries(),
        clusters.len(),
        d.groups.len(),
        v[0],
        v[1],
        v[2],
        v[3],
        if d.writer.is_empty() { "?" } else { &d.writer }
    );
    // Stored and uncompressed bytes and pages of every physical column.
    let mut stored = vec![0u64; d.columns.len()];
    let mut raw = vec![0u64; d.columns.len()];
    for cluster in clusters.iter() {
        for (c, pages) in cluster.columns.iter().enumerate() {
            for page in pages.iter().flat_map(|p| &p.pages) {
                stored[c] += page.size;
                raw[c] += (page.n_elements as u64 * d.columns[c].bits as u64).div_ceil(8);
            }
        }
    }
    let _ = writeln!(
        out,
        "  {:<32} {:<40} {:<28} {:>12} {:>12}",
        "field", "type", "columns", "stored", "uncompressed"
    );
    for f in &d.fields {
        let columns: Vec<String> = f
            .columns
            .iter()
            .map(|c| {
                let col = &d.columns[c.physical as usize];
                let ty = col
                    .ty
                    .map_or_else(|| format!("type {:#x}", col.type_id), |t| format!("{t:?}"));
                let bits = match col.ty {
                    Some(t) if t.bits_on_storage() != col.bits => format!("({} bits)", col.bits),
                    _ => String::new(),
                };
                let alias = if c.alias { "->" } else { "" };
                format!("{alias}{ty}{bits}")
            })
            .collect();
        let own = |alias: bool| f.columns.iter().filter(move |c| c.alias == alias);
        let s: u64 = own(false).map(|c| stored[c.physical as usize]).sum();
        let r: u64 = own(false).map(|c| raw[c.physical as usize]).sum();
        let mut ty = if f.type_name.is_empty() {
            "(untyped)".to_string()
        } else {
            f.type_name.clone()
        };
        if !f.type_alias.is_empty() {
            ty = format!("{ty} ({})", f.type_alias);
        }
        let _ = writeln!(
            out,
            "  {:<32} {:<40} {:<28} {:>12} {:>12}",
            d.field_path(f.id),
            ty,
            columns.join(","),
            s,
            r
        );
    }
    Ok(())
}
