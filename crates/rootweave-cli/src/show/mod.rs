//! Printing what a file holds, one module per kind of object (keys and histograms, RNTuples,
//! TTrees), and what they share: the options of an entry dump, entries as text or JSON
//! lines, the error of a failed write to the output.

pub(crate) mod objects;
pub(crate) mod rntuple;
pub(crate) mod ttree_dump;
pub(crate) mod ttree_list;

use std::io::Write;
use std::ops::Range;

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

impl DumpOptions {
    /// The entries to print of an object holding `entries`: the asked range cut to them.
    pub fn range_within(&self, entries: u64) -> Range<u64> {
        let range = self.entries.clone().unwrap_or(0..entries);
        range.start.min(entries)..range.end.min(entries)
    }
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
