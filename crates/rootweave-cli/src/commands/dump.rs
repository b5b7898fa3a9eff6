//! `rootweave dump`: prints the values of an RNTuple's or a TTree's entries, or a
//! histogram's bins, as text or JSON lines.

use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use rootweave::container::RootFile;
use rootweave::Result;

pub use crate::show::DumpOptions;
use crate::show::{objects, rntuple, ttree_dump};

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

/// Prints the entries of the RNTuple or TTree `name` in `path` to `out` (a histogram's bins
/// if `name` is one).
pub fn dump(path: &Path, name: &str, options: &DumpOptions, out: &mut dyn Write) -> Result<()> {
    let file = Arc::new(RootFile::open(path)?);
    if objects::is_histogram(&file, name) {
        return objects::dump_histogram(&file, name, options.json, out);
    }
    if ttree_dump::is_ttree(&file, name) {
        return ttree_dump::dump(file, name, options, out);
    }
    rntuple::dump(file, name, options, out)
}
