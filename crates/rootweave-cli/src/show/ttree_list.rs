//! `rootweave ls` for TTrees: each tree's entries and clusters, and per branch (by its
//! path where its name repeats) its type, stored and uncompressed bytes and number of baskets.

use std::fmt::Write;
use std::sync::Arc;

use rootweave::container::read_streamers;
use rootweave::container::RootFile;
use rootweave::ttree::{list_trees, ReadOptions, TTreeReader};
use rootweave::Result;

/// Appends the summary of every TTree of `file` (through subdirectories) to `out`.
pub fn describe_trees(file: &Arc<RootFile>, out: &mut String) -> Result<()> {
    let trees = list_trees(file)?;
    if trees.is_empty() {
        return Ok(());
    }
    let streamers = Arc::new(read_streamers(file)?);
    for path in trees {
        let tree = TTreeReader::from_file(
            file.clone(),
            streamers.clone(),
            &path,
            ReadOptions::default().with_threads(1),
        )?;
        let meta = tree.meta();
        let _ = writeln!(
            out,
            "\nTTree '{}' ({}): {} entries, {} clusters, {} branches, class version {}",
            path,
            meta.title,
            meta.entries,
            tree.cluster_ranges().len(),
            meta.all_branches().len(),
            meta.version
        );
        let _ = writeln!(
            out,
            "  {:<40} {:<36} {:>12} {:>12} {:>8}",
            "branch", "type", "stored", "uncompressed", "baskets"
        );
        // Branches whose names repeat are named, and looked up, by their paths.
        for (b, name) in meta.all_branches().into_iter().zip(meta.unique_names()) {
            let ty = match tree.interpretation(&name) {
                Ok(i) => i.describe(),
                Err(_) => match &b.element {
                    Some(e) => format!("({}, not readable)", e.class_name),
                    None => "(not readable)".to_string(),
                },
            };
            let _ = writeln!(
                out,
                "  {:<40} {:<36} {:>12} {:>12} {:>8}",
                name,
                ty,
                b.zip_bytes,
                b.tot_bytes,
                b.baskets.len()
            );
        }
    }
    Ok(())
}
