//! `rootweave merge`: the input list (paths, `@list.txt` files, glob patterns), a progress
//! bar on a terminal, and the summary printed at the end.

use std::path::PathBuf;
use std::time::Instant;

use rootweave::merge::{merge, MergeOptions, MergeSummary};
use rootweave::{Error, Result};

/// The input files named by `args`: a plain path as it is, `@file` as the paths listed in
/// `file` (one per line; blank lines and lines starting with `#` skipped), a pattern with
/// `*`, `?` or `[` as the files it matches (sorted). A pattern matching nothing is an
/// error, as is a list that cannot be read.
pub fn expand_inputs(args: &[String]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for arg in args {
        if let Some(list) = arg.strip_prefix('@') {
            let text = std::fs::read_to_string(list).map_err(|e| Error::Io {
                path: list.into(),
                source: e,
            })?;
            let lines = text.lines().map(str::trim);
            let listed: Vec<String> = lines
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(String::from)
                .collect();
            out.extend(expand_inputs(&listed)?);
        } else if !arg.contains("://") && arg.contains(['*', '?', '[']) {
            let paths = glob::glob(arg)
                .map_err(|e| Error::InvalidArgument(format!("pattern {arg}: {e}")))?;
            let mut matched: Vec<PathBuf> = paths.filter_map(|p| p.ok()).collect();
            if matched.is_empty() {
                return Err(Error::InvalidArgument(format!("{arg} matches no file")));
            }
            matched.sort();
            out.extend(matched);
        } else {
            out.push(PathBuf::from(arg));
        }
    }
    Ok(out)
}

/// Merges `inputs` into `out`, with a progress bar on a terminal; returns the summary's
/// text.
pub fn run(out: &PathBuf, inputs: &[String], mut options: MergeOptions) -> Result<String> {
    let inputs = expand_inputs(inputs)?;
    let bar =
        crate::progress::bar("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} [{elapsed_precise}]")
            .map(|(bar, callback)| {
                options.progress = Some(callback);
                bar
            });
    let start = Instant::now();
    let result = merge(out, &inputs, &options);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(summary_text(&result?, start.elapsed().as_secs_f64()))
}

/// The summary a user reads after a merge.
pub fn summary_text(s: &MergeSummary, seconds: f64) -> String {
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    let mut text = String::new();
    for skipped in &s.skipped {
        text.push_str(&format!("warning: skipped {skipped}\n"));
    }
    for note in &s.notes {
        text.push_str(&format!("note: {note}\n"));
    }
    text.push_str(&format!(
        "merged {} input(s): {} tree(s), {} RNTuple(s), {} entries, {} histogram(s), {} object(s) copied; \
         {:.1} MiB copied, {:.1} MiB recompressed; output {:.1} MiB in {seconds:.2} s\n",
        s.inputs,
        s.trees,
        s.rntuples,
        s.entries,
        s.histograms,
        s.objects_copied,
        mib(s.bytes_copied),
        mib(s.bytes_recompressed),
        mib(s.output_bytes),
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_patterns_expand_to_files() {
        let dir = std::env::temp_dir().join(format!("rw-expand-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for n in ["b.root", "a.root", "c.txt"] {
            std::fs::write(dir.join(n), b"").unwrap();
        }
        let list = dir.join("list.txt");
        std::fs::write(&list, "# jobs\nx.root\n\n  y.root \n").unwrap();
        let pattern = format!("{}/*.root", dir.display());
        let got = expand_inputs(&[pattern.clone(), format!("@{}", list.display())]).unwrap();
        let want: Vec<PathBuf> = vec![
            dir.join("a.root"),
            dir.join("b.root"),
            "x.root".into(),
            "y.root".into(),
        ];
        assert_eq!(got, want);
        let none = format!("{}/*.nothing", dir.display());
        assert!(expand_inputs(&[none]).is_err());
        assert!(expand_inputs(&["@/no/such/list".into()]).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
