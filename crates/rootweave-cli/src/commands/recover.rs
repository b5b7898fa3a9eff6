//! `rootweave recover`: where the recovered file goes, and the report printed at the end.

use std::path::{Path, PathBuf};

use rootweave::recover::{recover, RecoverReport};
use rootweave::{Error, Result};

/// The output of recovering `input`: `out` if given, the input itself with `in_place`,
/// else `<stem>.recovered.root` beside it. An existing output other than the input is
/// kept unless `force`.
pub fn output_path(
    input: &Path,
    out: Option<PathBuf>,
    in_place: bool,
    force: bool,
) -> Result<PathBuf> {
    let path = match (out, in_place) {
        (Some(_), true) => {
            return Err(Error::InvalidArgument(
                "give either -o OUT or --in-place, not both".into(),
            ))
        }
        (Some(out), false) => out,
        (None, true) => return Ok(input.to_path_buf()),
        (None, false) => {
            let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned());
            input.with_file_name(format!("{}.recovered.root", stem.unwrap_or_default()))
        }
    };
    if path.exists() && !force && !rootweave::io::same_file(input, &path) {
        return Err(Error::InvalidArgument(format!(
            "{} exists: give -f to overwrite it",
            path.display()
        )));
    }
    Ok(path)
}

/// Recovers `input` into `output`; returns the report to print.
pub fn run(input: &Path, output: &Path) -> Result<String> {
    let report = recover(input, output)?;
    Ok(describe(&report, output))
}

/// The report as text: what was kept of each RNTuple and TTree, what was dropped and why.
pub fn describe(report: &RecoverReport, output: &Path) -> String {
    let mut text = String::new();
    for n in &report.ntuples {
        text += &format!(
            "RNTuple '{}': {} entries in {} clusters recovered\n",
            n.name, n.entries, n.clusters
        );
        for why in &n.dropped {
            text += &format!("  dropped: {why}\n");
        }
    }
    for t in &report.trees {
        text += &format!(
            "TTree '{}': {} entries recovered ({} at its last save)\n",
            t.path, t.entries, t.saved_entries
        );
        for why in &t.dropped {
            text += &format!("  dropped: {why}\n");
        }
    }
    for object in &report.objects {
        text += &format!("kept as last written: {object}\n");
    }
    for (start, end) in &report.gaps {
        text += &format!("skipped bytes {start}..{end}: no whole record\n");
    }
    if report.cut_bytes > 0 {
        text += &format!(
            "left out {} bytes at the end: no whole record\n",
            report.cut_bytes
        );
    }
    text += &format!("wrote {} ({} bytes)\n", output.display(), report.file_size);
    text
}
