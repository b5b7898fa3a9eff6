//! Merging histograms as `hadd` does for inputs of one binning: bin contents, sums of
//! squared weights, profile bin entries, entries and the statistics sums (`fTsumw...`)
//! are added; everything else is the first input's. The first input's object is
//! rewritten through the trace of its read, so every histogram class the file describes
//! keeps its other members as they were.

use crate::container::{KeyInfo, RootFile};
use crate::error::{Error, Result};
use crate::objects::traced::{read_traced, rewrite, TracedObject};
use crate::objects::{cells_array, Histogram};
use crate::streamer::{restream, Object, StreamerSet, Trace, Value};

/// One input's copy of a histogram.
pub(super) struct HistSource {
    file: String,
    key: KeyInfo,
    payload: Vec<u8>,
    object: Object,
    trace: Trace,
}

impl HistSource {
    /// Reads the histogram behind `key` of `file`.
    pub fn read(
        file: &RootFile,
        streamers: &StreamerSet,
        key: &KeyInfo,
        path: &str,
    ) -> Result<Self> {
        let what = format!("{} '{path}'", key.class_name);
        let TracedObject {
            payload,
            object,
            trace,
        } = read_traced(file, streamers, key, &what)?;
        if let Some(Value::Unread(why)) = object
            .members
            .iter()
            .map(|(_, v)| v)
            .find(|v| matches!(v, Value::Unread(_)))
        {
            return Err(Error::format(
                file.name(),
                &what,
                object.offset,
                why.clone(),
            ));
        }
        if object
            .numbers("fBuffer")
            .is_some_and(|b| b.first().is_some_and(|&n| n > 0.0))
        {
            return Err(Error::format(
                file.name(),
                &what,
                object.offset,
                "entries are still in its fill buffer (not in its bins)",
            ));
        }
        Ok(HistSource {
            file: file.name().to_string(),
            key: key.clone(),
            payload,
            object,
            trace,
        })
    }
}

/// Histograms of one path added up so far: the first one's object (rewritten at the end)
/// and the sum, a [`Histogram`]. Inputs are added in order, so the result does not depend
/// on how many threads summed them.
pub(super) struct HistSum {
    first: HistSource,
    what: String,
    sum: Histogram,
}

impl HistSum {
    /// The sums of one input's histogram.
    pub fn new(path: &str, source: HistSource) -> Result<Self> {
        let o = &source.object;
        let what = format!("{} '{path}'", source.key.class_name);
        let sum = Histogram::from_object(o)
            .map_err(|e| Error::format(&source.file, &what, o.offset, e))?;
        Ok(HistSum {
            first: source,
            what,
            sum,
        })
    }

    /// These sums with `more` (of the inputs after these) added.
    pub fn add(mut self, more: HistSum, path: &str) -> Result<Self> {
        let other = &more.first;
        self.sum.add(&more.sum).map_err(|e| {
            if e.starts_with("a different binning") {
                Error::InvalidArgument(format!(
                    "histogram '{path}' has {e} in {} and {}",
                    self.first.file, other.file
                ))
            } else {
                Error::format(&other.file, &self.what, other.object.offset, e)
            }
        })?;
        Ok(self)
    }

    /// Its key in the first input (class, name and title of the output key).
    pub fn key(&self) -> &KeyInfo {
        &self.first.key
    }

    /// The first input's histogram with the sums in place, for a key whose header is
    /// `new_keylen` bytes long.
    pub fn payload(&self, new_keylen: u32) -> Result<Vec<u8>> {
        let first = &self.first;
        let o = &first.object;
        let fail = |m: String| Error::format(&first.file, &self.what, o.offset, m);
        let sum = &self.sum;
        let doubles = |v: &[f64]| cells_array("TH1D", v);
        let mut edits =
            vec![array_edit(o, "fArray", cells_array(&o.class, &sum.cells)).map_err(&fail)?];
        if let Some(sumw2) = &sum.sumw2 {
            edits.push(array_edit(o, "fSumw2", doubles(sumw2)).map_err(&fail)?);
        }
        if let Some(p) = &sum.profile {
            edits.push(array_edit(o, "fBinEntries", doubles(&p.bin_entries)).map_err(&fail)?);
            edits.push(array_edit(o, "fSumw2", doubles(&p.sum_wy2)).map_err(&fail)?);
            if let Some(w2) = &p.bin_sumw2 {
                edits.push(array_edit(o, "fBinSumw2", doubles(w2)).map_err(&fail)?);
            }
        }
        for (i, (name, value)) in o.members.iter().enumerate() {
            let total = match value {
                Value::Float(_) if name == "fEntries" => sum.entries,
                Value::Float(_) if name.starts_with("fTsumw") => sum.stat(name),
                _ => continue,
            };
            let span = o.spans[i].clone();
            let bytes = match span.len() {
                8 => total.to_be_bytes().to_vec(),
                4 => (total as f32).to_be_bytes().to_vec(),
                n => return Err(fail(format!("{name} of {n} bytes"))),
            };
            edits.push(restream::Edit { range: span, bytes });
        }
        rewrite(&first.payload, &first.trace, edits, &first.key, new_keylen).map_err(fail)
    }
}

/// Replaces the `TArray` member `name` (its count and values) with `bytes`.
fn array_edit(o: &Object, name: &str, bytes: Vec<u8>) -> Result<restream::Edit, String> {
    let range = o.span(name).ok_or_else(|| format!("no {name}"))?;
    Ok(restream::Edit { range, bytes })
}
