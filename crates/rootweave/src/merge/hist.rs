//! Merging histograms as `hadd` does for inputs of one binning: bin contents, sums of
//! squared weights, profile bin entries, entries and the statistics sums (`fTsumw...`)
//! are added; everything else is the first input's. The first input's object is
//! rewritten through the trace of its read, so every histogram class the file describes
//! keeps its other members as they were.

use super::traced::{read_traced, rewrite, TracedObject};
use crate::container::{KeyInfo, RootFile};
use crate::error::{Error, Result};
use crate::ttree::{restream, Object, StreamerSet, Trace, Value};

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

/// An error unless `other`'s axes have `first`'s binning.
fn check_binning(path: &str, first: &HistSource, other: &HistSource) -> Result<()> {
    for axis in ["fXaxis", "fYaxis", "fZaxis"] {
        let a = first.object.object(axis);
        let b = other.object.object(axis);
        let (Some(a), Some(b)) = (a, b) else {
            continue;
        };
        let same = a.int("fNbins") == b.int("fNbins")
            && a.get("fXmin") == b.get("fXmin")
            && a.get("fXmax") == b.get("fXmax")
            && a.numbers("fXbins") == b.numbers("fXbins");
        if !same {
            return Err(Error::InvalidArgument(format!(
                "histogram '{path}' has a different binning ({axis}) in {} and {}",
                first.file, other.file
            )));
        }
    }
    Ok(())
}

/// How a `TArray` member's values are stored, from the histogram's class.
#[derive(Clone, Copy)]
enum Bins {
    F32,
    F64,
    I64,
    I32,
    I16,
    I8,
}

impl Bins {
    fn of(class: &str) -> Bins {
        if class.starts_with("TProfile") {
            return Bins::F64;
        }
        match class.chars().last() {
            Some('F') => Bins::F32,
            Some('I') => Bins::I32,
            Some('S') => Bins::I16,
            Some('C') => Bins::I8,
            Some('L') => Bins::I64,
            _ => Bins::F64,
        }
    }

    /// A `TArray` of `values`: the count, then each value in this form (integers
    /// rounded and kept in range, as adding whole counts gives).
    fn encode(self, values: &[f64]) -> Vec<u8> {
        let mut out = (values.len() as i32).to_be_bytes().to_vec();
        for &v in values {
            let r = v.round();
            match self {
                Bins::F32 => out.extend_from_slice(&(v as f32).to_be_bytes()),
                Bins::F64 => out.extend_from_slice(&v.to_be_bytes()),
                Bins::I64 => out.extend_from_slice(&(r as i64).to_be_bytes()),
                Bins::I32 => out.extend_from_slice(&(r as i32).to_be_bytes()),
                Bins::I16 => out.extend_from_slice(&(r as i16).to_be_bytes()),
                Bins::I8 => out.extend_from_slice(&(r as i8).to_be_bytes()),
            }
        }
        out
    }
}

/// Adds arrays of equal length; `None` if one differs in length.
fn add(into: &mut [f64], more: &[f64]) -> Option<()> {
    (into.len() == more.len()).then(|| into.iter_mut().zip(more).for_each(|(a, b)| *a += b))
}

/// The profile arrays summed over fills, besides the bin contents.
const PROFILE_ARRAYS: [&str; 3] = ["fBinEntries", "fBinSumw2", "fSumw2"];

/// Histograms of one path added up so far: the first one's object (rewritten at the end)
/// and the running sums. Inputs are added in order, so the result does not depend on how
/// many threads summed them.
pub(super) struct HistSum {
    first: HistSource,
    what: String,
    contents: Vec<f64>,
    /// Sums of squared weights of a histogram that is not a profile (an input without
    /// them contributes its contents), and whether any input had them.
    sumw2: Option<Vec<f64>>,
    any_sumw2: bool,
    /// Profiles: the sums of [`PROFILE_ARRAYS`] the first input has.
    profile: Vec<(&'static str, Vec<f64>)>,
    /// Entries and the statistics sums: member index in the first object, and the sum.
    stats: Vec<(usize, f64)>,
}

impl HistSum {
    /// The sums of one input's histogram.
    pub fn new(path: &str, source: HistSource) -> Result<Self> {
        let o = &source.object;
        let what = format!("{} '{path}'", source.key.class_name);
        let fail = |m: &str| Error::format(&source.file, &what, o.offset, m);
        let contents = o.numbers("fArray").ok_or_else(|| fail("no bin contents"))?;
        let profile_class = o.class.starts_with("TProfile");
        let own = o
            .numbers("fSumw2")
            .filter(|v| !v.is_empty() && !profile_class);
        let any_sumw2 = own.is_some();
        let sumw2 = (!profile_class).then(|| own.unwrap_or_else(|| contents.clone()));
        let profile = PROFILE_ARRAYS
            .into_iter()
            .filter(|_| o.class.starts_with("TProfile"))
            .filter_map(|name| Some((name, o.numbers(name).filter(|v| !v.is_empty())?)))
            .collect();
        let stats = o
            .members
            .iter()
            .enumerate()
            .filter_map(|(i, (name, value))| match value {
                Value::Float(v) if name == "fEntries" || name.starts_with("fTsumw") => {
                    Some((i, *v))
                }
                _ => None,
            })
            .collect();
        Ok(HistSum {
            first: source,
            what,
            contents,
            sumw2,
            any_sumw2,
            profile,
            stats,
        })
    }

    /// These sums with `more` (of the inputs after these) added.
    pub fn add(mut self, more: HistSum, path: &str) -> Result<Self> {
        check_binning(path, &self.first, &more.first)?;
        let other = &more.first;
        let fail = |m: String| Error::format(&other.file, &self.what, other.object.offset, m);
        add(&mut self.contents, &more.contents)
            .ok_or_else(|| fail("the bin count differs".into()))?;
        if let (Some(total), Some(theirs)) = (self.sumw2.as_mut(), more.sumw2.as_ref()) {
            add(total, theirs).ok_or_else(|| fail("fSumw2 length".into()))?;
        }
        self.any_sumw2 |= more.any_sumw2;
        for (name, total) in &mut self.profile {
            let theirs = more.profile.iter().find(|(n, _)| n == name);
            let theirs = theirs.map_or(&[][..], |(_, v)| &v[..]);
            add(total, theirs).ok_or_else(|| fail(format!("{name} differs in length")))?;
        }
        let o = &self.first.object;
        for (i, total) in &mut self.stats {
            let name = &o.members[*i].0;
            let theirs = more
                .stats
                .iter()
                .find(|(j, _)| &other.object.members[*j].0 == name);
            *total += theirs.map_or(0.0, |(_, v)| *v);
        }
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
        let bins = Bins::of(&o.class);
        let mut edits = vec![array_edit(o, "fArray", bins.encode(&self.contents)).map_err(&fail)?];
        if let Some(sumw2) = self.sumw2.as_ref().filter(|_| self.any_sumw2) {
            let bytes = Bins::F64.encode(sumw2);
            edits.push(array_edit(o, "fSumw2", bytes).map_err(&fail)?);
        }
        for (name, total) in &self.profile {
            edits.push(array_edit(o, name, Bins::F64.encode(total)).map_err(&fail)?);
        }
        for &(i, total) in &self.stats {
            let span = o.spans[i].clone();
            let bytes = match span.len() {
                8 => total.to_be_bytes().to_vec(),
                4 => (total as f32).to_be_bytes().to_vec(),
                n => return Err(fail(format!("{} of {n} bytes", o.members[i].0))),
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
