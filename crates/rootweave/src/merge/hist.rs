//! Merging histograms as `hadd` does for inputs of one binning: bin contents, sums of
//! squared weights, profile bin entries, entries and the statistics sums (`fTsumw...`)
//! are added; everything else is the first input's. The first input's object is
//! rewritten through the trace of its read, so every histogram class the file describes
//! keeps its other members as they were.

use super::traced::{read_traced, rewrite, TracedObject};
use crate::container::{KeyInfo, RootFile};
use crate::error::{Error, Result};
use crate::ttree::{restream, Object, StreamerSet, Trace, Value};

/// True for the histogram classes merged by adding: `TH1`, `TH2`, `TH3` of every bin type
/// and the profiles.
pub(super) fn is_histogram(class: &str) -> bool {
    let bins = |rest: &str| matches!(rest, "F" | "D" | "I" | "S" | "C" | "L");
    match class {
        "TProfile" | "TProfile2D" | "TProfile3D" => true,
        _ => ["TH1", "TH2", "TH3"]
            .iter()
            .any(|p| class.strip_prefix(p).is_some_and(bins)),
    }
}

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
        if numbers(object.get("fBuffer")).is_some_and(|b| b.first().is_some_and(|&n| n > 0.0)) {
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

    /// Its key in the input (class, name and title of the output key).
    pub fn key(&self) -> &KeyInfo {
        &self.key
    }
}

/// The values of an array member (a `TArray` base or member), as numbers.
fn numbers(v: Option<&Value>) -> Option<Vec<f64>> {
    match v? {
        Value::Floats(f) => Some(f.clone()),
        Value::Ints(i) => Some(i.iter().map(|&x| x as f64).collect()),
        Value::Object(o) => numbers(o.get("fArray")),
        Value::Null => Some(Vec::new()),
        _ => None,
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
            && numbers(a.get("fXbins")) == numbers(b.get("fXbins"));
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

/// The first input's histogram with every input's contents and statistics added, for a
/// key whose header is `new_keylen` bytes long.
pub(super) fn merged_histogram(
    path: &str,
    sources: &[HistSource],
    new_keylen: u32,
) -> Result<Vec<u8>> {
    let first = &sources[0];
    for other in &sources[1..] {
        check_binning(path, first, other)?;
    }
    let what = format!("{} '{path}'", first.key.class_name);
    let fail = |m: String| Error::format(&first.file, &what, first.object.offset, m);
    let o = &first.object;
    let bins = Bins::of(&o.class);
    let mut edits = Vec::new();

    let contents: Vec<Vec<f64>> = sources
        .iter()
        .map(|s| numbers(s.object.get("fArray")).ok_or_else(|| fail("no bin contents".into())))
        .collect::<Result<_>>()?;
    let mut sum = contents[0].clone();
    for (s, c) in sources.iter().zip(&contents).skip(1) {
        add(&mut sum, c).ok_or_else(|| fail(format!("bin count differs in {}", s.file)))?;
    }
    edits.push(array_edit(o, "fArray", bins.encode(&sum)).map_err(&fail)?);

    // Sums of squared weights: an input without them contributes its contents.
    let sumw2: Vec<Option<Vec<f64>>> = sources
        .iter()
        .map(|s| numbers(s.object.get("fSumw2")).filter(|v| !v.is_empty()))
        .collect();
    if sumw2.iter().any(Option::is_some) && !o.class.starts_with("TProfile") {
        let mut total = vec![0.0; sum.len()];
        for (w, c) in sumw2.iter().zip(&contents) {
            add(&mut total, w.as_ref().unwrap_or(c)).ok_or_else(|| fail("fSumw2 length".into()))?;
        }
        edits.push(array_edit(o, "fSumw2", Bins::F64.encode(&total)).map_err(&fail)?);
    }
    // Profiles: every per-bin array is a sum over fills.
    for name in ["fBinEntries", "fBinSumw2", "fSumw2"]
        .into_iter()
        .filter(|_| o.class.starts_with("TProfile"))
    {
        let arrays: Vec<Vec<f64>> = sources
            .iter()
            .map(|s| numbers(s.object.get(name)).unwrap_or_default())
            .collect();
        if arrays[0].is_empty() {
            continue;
        }
        let mut total = arrays[0].clone();
        for a in &arrays[1..] {
            add(&mut total, a).ok_or_else(|| fail(format!("{name} differs in length")))?;
        }
        edits.push(array_edit(o, name, Bins::F64.encode(&total)).map_err(&fail)?);
    }
    // Entries and the statistics sums.
    for (i, (name, value)) in o.members.iter().enumerate() {
        let additive = name == "fEntries" || name.starts_with("fTsumw");
        if !additive || !matches!(value, Value::Float(_)) {
            continue;
        }
        let total: f64 = sources
            .iter()
            .map(|s| match s.object.get(name) {
                Some(Value::Float(v)) => *v,
                _ => 0.0,
            })
            .sum();
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

/// Replaces the `TArray` member `name` (its count and values) with `bytes`.
fn array_edit(o: &Object, name: &str, bytes: Vec<u8>) -> Result<restream::Edit, String> {
    let range = o.span(name).ok_or_else(|| format!("no {name}"))?;
    Ok(restream::Edit { range, bytes })
}
