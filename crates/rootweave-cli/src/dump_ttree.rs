//! `rootweave dump` for TTrees: the values of a tree's branches, as text or JSON lines
//! keyed by full branch name, cluster by cluster.

use std::io::Write;
use std::sync::Arc;

use rootweave::container::RootFile;
use rootweave::ttree::{read_streamers, ReadOptions, TTreeReader};
use rootweave::Result;

use crate::dump::{stdout_error, write_entries, DumpOptions};

/// True if the object `name` of `file` is a TTree.
pub fn is_ttree(file: &RootFile, name: &str) -> bool {
    file.get_key(name)
        .is_ok_and(|k| matches!(k.class_name.as_str(), "TTree" | "TNtuple" | "TNtupleD"))
}

/// Prints the entries of TTree `name` of `file` to `out`.
pub fn dump(
    file: Arc<RootFile>,
    name: &str,
    options: &DumpOptions,
    out: &mut dyn Write,
) -> Result<()> {
    let streamers = Arc::new(read_streamers(&file)?);
    let tree = TTreeReader::from_file(file, streamers, name, ReadOptions::default())?;
    let entries = tree.entries();
    let range = options.entries.clone().unwrap_or(0..entries);
    let range = range.start.min(entries)..range.end.min(entries);
    // Without a branch list, every branch that can be read (groups through their
    // sub-branches); the others are named on stderr with the reason.
    let fields: Vec<String> = if options.fields.is_empty() {
        for (branch, why) in tree.unreadable_branches() {
            eprintln!("rootweave: skipping branch '{branch}': {why}");
        }
        tree.default_branches()
    } else {
        options.fields.clone()
    };
    let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
    for cluster in tree.cluster_ranges() {
        let part = cluster.start.max(range.start)..cluster.end.min(range.end);
        if part.is_empty() || fields.is_empty() {
            continue;
        }
        let columns = tree.read(&fields, part.clone())?;
        write_entries(&columns, part.start, options.json, out)?;
    }
    out.flush().map_err(stdout_error)
}
