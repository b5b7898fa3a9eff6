//! `rootweave dump`: prints the values of an RNTuple's entries (a TTree's, a histogram's
//! bins), as text or JSON lines.

use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use rootweave::container::RootFile;
use rootweave::rntuple::{RNTupleReader, ReadOptions};
use rootweave::{Error, Result};

/// What to print.
#[derive(Debug, Clone, Default)]
pub struct DumpOptions {
    /// Top-level (or dotted) field names; all top-level fields if empty.
    pub fields: Vec<String>,
    /// Entries to print (`None`: all).
    pub entries: Option<Range<u64>>,
    /// One JSON object per entry and line.
    pub json: bool,
}

/// Parses an entry range: `10:20`, `10:`, `:20` or a single entry `7`.
pub fn parse_entries(text: &str) -> std::result::Result<Range<u64>, String> {
    let bad = || format!("'{text}' is not an entry range (start:stop)");
    let number = |s: &str, default: u64| -> std::result::Result<u64, String> {
        if s.trim().is_empty() {
            Ok(default)
        } else {
            s.trim().parse().map_err(|_| bad())
        }
    };
    match text.split_once(':') {
        Some((a, b)) => Ok(number(a, 0)?..number(b, u64::MAX)?),
        None => {
            let i = number(text, 0)?;
            Ok(i..i + 1)
        }
    }
}

/// Prints the entries of RNTuple `name` in `path` to `out`, cluster by cluster.
pub fn dump(path: &Path, name: &str, options: &DumpOptions, out: &mut dyn Write) -> Result<()> {
    let file = Arc::new(RootFile::open(path)?);
    if crate::objects::is_histogram(&file, name) {
        return crate::objects::dump_histogram(&file, name, options.json, out);
    }
    if crate::dump_ttree::is_ttree(&file, name) {
        return crate::dump_ttree::dump(file, name, options, out);
    }
    let reader = RNTupleReader::from_file(file, name, ReadOptions::default())?;
    let entries = reader.entries();
    let range = options.entries.clone().unwrap_or(0..entries);
    let range = range.start.min(entries)..range.end.min(entries);
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

/// The error of a failed write to the output.
pub fn stdout_error(e: std::io::Error) -> Error {
    Error::Io {
        path: "<stdout>".into(),
        source: e,
    }
}

/// Prints the entries of `columns` (one array per field, all of one length), the first
/// being entry `first`: one JSON object per line keyed by field name, or as text.
pub fn write_entries(
    columns: &[(String, rootweave::array::Array)],
    first: u64,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let len = columns.first().map_or(0, |(_, a)| a.len());
    if let Some((name, array)) = columns.iter().find(|(_, a)| a.len() != len) {
        return Err(rootweave::Error::InvalidArgument(format!(
            "'{name}' holds {} of these entries and '{}' {len}: dump them separately",
            array.len(),
            columns[0].0
        )));
    }
    let mut line = String::new();
    for i in 0..len {
        line.clear();
        if json {
            line.push('{');
            for (k, (name, array)) in columns.iter().enumerate() {
                if k > 0 {
                    line.push_str(", ");
                }
                rootweave::array::write_json_string(name, &mut line);
                line.push_str(": ");
                array.write_json(i, &mut line);
            }
            line.push_str("}\n");
        } else {
            line.push_str(&format!("entry {}\n", first + i as u64));
            for (name, array) in columns {
                line.push_str(&format!("  {name} = "));
                array.write_json(i, &mut line);
                line.push('\n');
            }
        }
        out.write_all(line.as_bytes()).map_err(stdout_error)?;
    }
    Ok(())
}
