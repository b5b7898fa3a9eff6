//! An RNTuple printed: its summary for `rootweave ls` (entries, clusters, fields with their
//! C++ types, column encodings and bytes) and its entries for `rootweave dump`.

use std::fmt::Write as _;
use std::io::Write;
use std::sync::Arc;

use rootweave::container::RootFile;
use rootweave::rntuple::read::Descriptor;
use rootweave::rntuple::{RNTupleReader, ReadOptions};
use rootweave::Result;

use super::{stdout_error, write_entries, DumpOptions};

/// Prints the entries of RNTuple `name` of `file` to `out`, cluster by cluster.
pub fn dump(
    file: Arc<RootFile>,
    name: &str,
    options: &DumpOptions,
    out: &mut dyn Write,
) -> Result<()> {
    let reader = RNTupleReader::from_file(file, name, ReadOptions::default())?;
    let entries = reader.entries();
    let range = options.range_within(entries);
    // Without a field list, every top-level field that can be read; the others are named
    // on stderr with the reason.
    let fields: Vec<String> = if options.fields.is_empty() {
        let mut readable = Vec::new();
        for name in reader.field_names() {
            match reader.plan(&name) {
                Ok(_) => readable.push(name),
                Err(e) => eprintln!("rootweave: skipping field '{name}': {e}"),
            }
        }
        readable
    } else {
        options.fields.clone()
    };
    let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
    for cluster in reader.cluster_ranges()? {
        let part = cluster.start.max(range.start)..cluster.end.min(range.end);
        if part.is_empty() {
            continue;
        }
        if fields.is_empty() {
            break;
        }
        let columns = reader.read(&fields, part.clone())?;
        write_entries(&columns, part.start, options.json, out)?;
    }
    out.flush().map_err(stdout_error)
}

/// Appends the summary of one RNTuple.
pub(crate) fn describe(file: &RootFile, d: &Descriptor, out: &mut String) -> Result<()> {
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
