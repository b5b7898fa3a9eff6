//! `rootweave convert`: one file's RNTuple or TTree into another format, with a progress
//! bar on a terminal, and the summary a user reads.

use std::path::Path;
use std::time::Instant;

use rootweave::convert::{convert, ConvertOptions, ConvertSummary};
use rootweave::dataset::Source;
use rootweave::Result;

/// Converts `input` (`file.root` or `file.root:name`) into `output`; returns the summary's
/// text.
pub fn run(input: &str, output: &Path, mut options: ConvertOptions) -> Result<String> {
    let bar = crate::progress::bar("{bar:40} {pos}/{len} entries {per_sec} [{elapsed_precise}]")
        .map(|(bar, callback)| {
            options.progress = Some(callback);
            bar
        });
    let start = Instant::now();
    let result = convert(&Source::parse(input), output, &options);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(summary_text(
        &result?,
        output,
        start.elapsed().as_secs_f64(),
    ))
}

/// The summary a user reads after a conversion.
pub fn summary_text(s: &ConvertSummary, output: &Path, seconds: f64) -> String {
    let mut text = String::new();
    for (field, why) in &s.skipped {
        text.push_str(&format!("warning: skipped '{field}': {why}\n"));
    }
    text.push_str(&format!(
        "converted {} entries, {} field(s), into {} ({:.1} MiB) in {seconds:.2} s\n",
        s.entries,
        s.fields.len(),
        output.display(),
        s.output_bytes as f64 / (1 << 20) as f64,
    ));
    text
}
