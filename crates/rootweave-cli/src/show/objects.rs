//! `rootweave ls` and `rootweave dump` for objects other than trees: the keys of every
//! directory (with a histogram's entries and axes), and a histogram's bins.

use std::fmt::Write as _;
use std::io::Write;

use rootweave::container::read_streamers;
use rootweave::container::{KeyInfo, RootFile};
use rootweave::objects::{find_key, is_histogram_class, read_object, Histogram};
use rootweave::streamer::StreamerSet;
use rootweave::{Error, Result};

use super::stdout_error;

/// The keys of the directory `keys` and below, each `(path, key)`, directories first
/// followed by their contents.
pub fn walk(file: &RootFile, keys: &[KeyInfo], prefix: &str) -> Result<Vec<(String, KeyInfo)>> {
    let mut out = Vec::new();
    for key in keys {
        let path = format!("{prefix}{}", key.name);
        out.push((path.clone(), key.clone()));
        if key.class_name.starts_with("TDirectory") {
            let inner = file.directory_keys(key)?;
            out.extend(walk(file, &inner, &format!("{path}/"))?);
        }
    }
    Ok(out)
}

/// What `ls` says of a histogram: entries and each axis (bins, range, labelled).
pub fn histogram_summary(file: &RootFile, streamers: &StreamerSet, key: &KeyInfo) -> String {
    let h = read_object(file, streamers, key)
        .and_then(|o| Histogram::from_object(&o).map_err(Error::InvalidArgument));
    match h {
        Ok(h) => {
            let axes: Vec<String> = h
                .axes
                .iter()
                .map(|a| {
                    let kind = if a.labels.is_some() {
                        " labelled"
                    } else if a.edges.is_some() {
                        " variable"
                    } else {
                        ""
                    };
                    format!("{} bins{kind} [{}, {}]", a.bins, a.min, a.max)
                })
                .collect();
            format!("{} entries, {}", h.entries, axes.join(" x "))
        }
        Err(e) => format!("(not read: {e})"),
    }
}

/// Appends the listing of every key of `file`, directories recursively.
pub fn list_keys(file: &RootFile, out: &mut String) -> Result<()> {
    let streamers = read_streamers(file)?;
    let _ = writeln!(
        out,
        "{:<32} {:<20} {:>5} {:>14} {:>14}  contents",
        "name", "class", "cycle", "stored bytes", "uncompressed"
    );
    for (path, key) in walk(file, file.keys(), "")? {
        let contents = if is_histogram_class(&key.class_name) {
            histogram_summary(file, &streamers, &key)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{:<32} {:<20} {:>5} {:>14} {:>14}  {}",
            path,
            key.class_name,
            key.cycle,
            key.nbytes as u64 - key.keylen as u64,
            key.objlen,
            contents
        );
    }
    Ok(())
}

/// True if the object at `name` (`dir/sub/name;cycle`) of `file` is a histogram.
pub fn is_histogram(file: &RootFile, name: &str) -> bool {
    let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
    find_key(file, &parts).is_ok_and(|k| is_histogram_class(&k.class_name))
}

/// Prints every bin of the histogram `name` (flow bins included): its indices, each
/// axis's edges (or label), content and error as ROOT's `GetBinContent` and
/// `GetBinError` give them; as text or one JSON object per line.
pub fn dump_histogram(file: &RootFile, name: &str, json: bool, out: &mut dyn Write) -> Result<()> {
    let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
    let key = find_key(file, &parts)?;
    let streamers = read_streamers(file)?;
    let object = read_object(file, &streamers, &key)?;
    let h = Histogram::from_object(&object)
        .map_err(|m| Error::format(file.name(), name, key.payload_offset(), m))?;
    let sizes: Vec<usize> = h.axes.iter().map(|a| a.bins + 2).collect();
    for cell in 0..h.cells.len() {
        let mut rest = cell;
        let mut bins = Vec::with_capacity(sizes.len());
        for &n in &sizes {
            bins.push(rest % n);
            rest /= n;
        }
        // Each axis's bin: its edges (infinite for the flow bins) and label.
        let spans: Vec<(f64, f64, Option<&str>)> = h
            .axes
            .iter()
            .zip(&bins)
            .map(|(a, &b)| {
                let low = if b == 0 {
                    f64::NEG_INFINITY
                } else {
                    a.low_edge(b.min(a.bins))
                };
                let high = if b > a.bins {
                    f64::INFINITY
                } else {
                    a.up_edge(b.max(1))
                };
                let low = if b > a.bins { a.up_edge(a.bins) } else { low };
                let high = if b == 0 { a.low_edge(1) } else { high };
                let label = match (&a.labels, b) {
                    (Some(labels), b) if (1..=a.bins).contains(&b) => Some(labels[b - 1].as_str()),
                    _ => None,
                };
                (low, high, label)
            })
            .collect();
        let line = if json {
            let ranges: Vec<String> = spans
                .iter()
                .map(|(lo, hi, label)| match label {
                    Some(l) => format!("{l:?}"),
                    None => format!("[{}, {}]", json_number(*lo), json_number(*hi)),
                })
                .collect();
            format!(
                "{{\"bin\": {:?}, \"range\": [{}], \"content\": {}, \"error\": {}}}",
                bins,
                ranges.join(", "),
                json_number(h.content(cell)),
                json_number(h.error(cell))
            )
        } else {
            let ranges: Vec<String> = spans
                .iter()
                .map(|(lo, hi, label)| match label {
                    Some(l) => format!("{l:?}"),
                    None => format!("[{lo}, {hi})"),
                })
                .collect();
            format!(
                "{:?} {} content {} error {}",
                bins,
                ranges.join(" x "),
                h.content(cell),
                h.error(cell)
            )
        };
        writeln!(out, "{line}").map_err(stdout_error)?;
    }
    out.flush().map_err(stdout_error)
}

/// A number as JSON writes it (NaN and infinities as strings).
fn json_number(v: f64) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        format!("\"{v}\"")
    }
}
