//! `rootweave dump` for TTrees: the values of a tree's branches, as text or JSON lines
//! keyed by full branch name, cluster by cluster.

use std::io::Write;
use std::sync::Arc;

use rootweave::container::read_streamers;
use rootweave::container::RootFile;
use rootweave::streamer::is_tree_class;
use rootweave::ttree::{ReadOptions, TTreeReader};
use rootweave::Result;

use super::{stdout_error, write_entries, DumpOptions};

/// True if the object `name` of `file` is a TTree.
pub fn is_ttree(file: &RootFile, name: &str) -> bool {
    file.get_key(name)
        .is_ok_and(|k| is_tree_class(&k.class_name))
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
    let range = options.range_within(entries);
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
    let mut fields = fields;
    for cluster in tree.cluster_ranges() {
        let part = cluster.start.max(range.start)..cluster.end.min(range.end);
        if part.is_empty() || fields.is_empty() {
            continue;
        }
        let names: Vec<&str> = fields.iter().map(String::as_str).collect();
        let columns = match tree.read(&names, part.clone()) {
            Ok(columns) => columns,
            // Without a branch list, a branch whose baskets do not decode is named and
            // left out, and the others are printed.
            Err(_) if options.fields.is_empty() => {
                let (kept, columns) = read_decodable(&tree, &fields, part.clone());
                fields = kept;
                columns
            }
            Err(e) => return Err(e),
        };
        write_entries(&columns, part.start, options.json, out)?;
    }
    out.flush().map_err(stdout_error)
}

/// Reads the branches one by one: those that decode, with their arrays; each other one
/// is named on stderr with the reason.
fn read_decodable(
    tree: &TTreeReader,
    fields: &[String],
    part: std::ops::Range<u64>,
) -> (Vec<String>, Vec<(String, rootweave::array::Array)>) {
    let mut kept = Vec::new();
    let mut columns = Vec::new();
    for field in fields {
        match tree.read(&[field.as_str()], part.clone()) {
            Ok(mut column) => {
                kept.push(field.clone());
                columns.append(&mut column);
            }
            Err(e) => eprintln!("rootweave: skipping branch '{field}': {e}"),
        }
    }
    (kept, columns)
}
