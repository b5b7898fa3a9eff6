//! Histograms streamed as ROOT 6.40 streams a histogram it made: every member ROOT writes,
//! the drawing attributes at the defaults ROOT's constructors give, and axis labels as
//! `TObjString`s in a `THashList` tied to their bins by unique ID.

use super::hist::{cells_array, Axis, Histogram};
use super::layouts::histogram_layouts;
use crate::container::{DirectoryId, FileWriter, KeyInfo};
use crate::error::{Error, Result};
use crate::streamer::ObjectStream;
use crate::streamer::StreamerInfo;

/// The `TObject` bits ROOT stores for a histogram (`kMustCleanup`).
const HISTOGRAM_BITS: u32 = 1 << 3;

/// `TAxis::fBits2`: the axis has labels, the axis can extend.
const ALPHANUMERIC: u16 = 1;
const CAN_EXTEND: u16 = 2;

/// The classes this module writes: histograms of double, float, int, short and char bins
/// and the profiles.
const WRITABLE: [&str; 11] = [
    "TH1D",
    "TH1F",
    "TH1I",
    "TH1S",
    "TH1C",
    "TH2D",
    "TH2F",
    "TH3D",
    "TProfile",
    "TProfile2D",
    "TProfile3D",
];

impl Histogram {
    /// The histogram streamed for a key whose header is `keylen` bytes long (class
    /// references count from the key's start), or why it cannot be: a class this module
    /// does not write, or arrays that do not fit the axes.
    pub fn to_payload(&self, keylen: usize) -> Result<Vec<u8>, String> {
        self.check()?;
        let mut b = ObjectStream::default();
        match self.class.as_str() {
            "TProfile" | "TProfile2D" | "TProfile3D" => {
                let (version, base) = match self.axes.len() {
                    1 => (7, "TH1D"),
                    2 => (8, "TH2D"),
                    _ => (8, "TH3D"),
                };
                b.begin_version(version);
                self.concrete(&mut b, base, keylen);
                self.profile_members(&mut b);
                b.end();
            }
            class => self.concrete(&mut b, class, keylen),
        }
        Ok(b.into_bytes())
    }

    /// The class layouts a file holding this histogram describes.
    pub fn layouts(&self) -> Vec<StreamerInfo> {
        histogram_layouts(&self.class)
    }

    fn check(&self) -> Result<(), String> {
        if !WRITABLE.contains(&self.class.as_str()) {
            return Err(format!(
                "histograms of class {} cannot be written",
                self.class
            ));
        }
        let dims = match self.class.as_bytes()[..] {
            [.., b'2', b'D'] | [b'T', b'H', b'2', _] => 2,
            [.., b'3', b'D'] | [b'T', b'H', b'3', _] => 3,
            _ => 1,
        };
        if self.axes.len() != dims {
            return Err(format!("{} axes for a {}", self.axes.len(), self.class));
        }
        for axis in &self.axes {
            if axis.bins == 0
                || axis
                    .edges
                    .as_ref()
                    .is_some_and(|e| e.len() != axis.bins + 1)
            {
                return Err(format!(
                    "axis '{}' has {} bins and edges that do not match",
                    axis.name, axis.bins
                ));
            }
            if axis.labels.as_ref().is_some_and(|l| l.len() != axis.bins) {
                return Err(format!(
                    "axis '{}' has labels for another number of bins",
                    axis.name
                ));
            }
        }
        let cells = self.cells.len();
        let expected: usize = self.axes.iter().map(|a| a.bins + 2).product();
        let fits = |v: &Option<Vec<f64>>| v.as_ref().is_none_or(|v| v.len() == expected);
        let profile_fits = self.profile.as_ref().is_none_or(|p| {
            p.bin_entries.len() == expected && p.sum_wy2.len() == expected && fits(&p.bin_sumw2)
        });
        if cells != expected || !fits(&self.sumw2) || !profile_fits {
            return Err(format!(
                "{cells} cells or sums for axes of {expected} cells"
            ));
        }
        if self.profile.is_some() != self.class.starts_with("TProfile") {
            return Err(format!(
                "a {} with{} profile sums",
                self.class,
                if self.profile.is_some() { "" } else { "out" }
            ));
        }
        Ok(())
    }

    /// A concrete histogram class (`TH1D`, `TH2F`, ...): its base (`TH1`, `TH2`, `TH3`)
    /// and the bins' array.
    fn concrete(&self, b: &mut ObjectStream, class: &str, keylen: usize) {
        b.begin_version(if class.starts_with("TH1") { 3 } else { 4 });
        match self.axes.len() {
            1 => self.th1(b, keylen),
            2 => {
                b.begin_version(5);
                self.th1(b, keylen);
                b.f64(1.0); // fScalefactor
                for name in ["fTsumwy", "fTsumwy2", "fTsumwxy"] {
                    b.f64(self.stat(name));
                }
                b.end();
            }
            _ => {
                b.begin_version(6);
                self.th1(b, keylen);
                b.begin_version(1); // TAtt3D
                b.end();
                for name in [
                    "fTsumwy", "fTsumwy2", "fTsumwxy", "fTsumwz", "fTsumwz2", "fTsumwxz",
                    "fTsumwyz",
                ] {
                    b.f64(self.stat(name));
                }
                b.end();
            }
        }
        b.raw(&cells_array(class, &self.cells));
        b.end();
    }

    /// `TH1`: name, attributes, axes, statistics, the sums of squared weights.
    fn th1(&self, b: &mut ObjectStream, keylen: usize) {
        b.begin_version(8);
        b.tnamed(&self.name, &self.title, HISTOGRAM_BITS);
        attributes(b);
        b.i32(self.cells.len() as i32);
        // The axes a histogram lacks are one bin wide; the first of them has the contents'
        // title.
        let axes: [Axis; 3] = std::array::from_fn(|i| match self.axes.get(i) {
            Some(axis) => axis.clone(),
            None => Axis {
                title: match i == self.axes.len() {
                    true => self.content_title.clone(),
                    false => String::new(),
                },
                ..Axis::unit(["xaxis", "yaxis", "zaxis"][i])
            },
        });
        for (i, axis) in axes.iter().enumerate() {
            write_axis(b, axis, if i == 1 { 0.0 } else { 1.0 }, keylen);
        }
        b.i16(0); // fBarOffset
        b.i16(1000); // fBarWidth
        b.f64(self.entries);
        for name in ["fTsumw", "fTsumw2", "fTsumwx", "fTsumwx2"] {
            b.f64(self.stat(name));
        }
        b.f64(-1111.0); // fMaximum
        b.f64(-1111.0); // fMinimum
        b.f64(0.0); // fNormFactor
        b.i32(0); // fContour
        let sumw2 = match &self.profile {
            Some(p) => Some(&p.sum_wy2),
            None => self.sumw2.as_ref(),
        };
        doubles(b, sumw2.map_or(&[][..], |v| &v[..]));
        b.tstring(""); // fOption
        empty_list(b); // fFunctions
        b.i32(0); // fBufferSize
        b.u8(0); // fBuffer: none
        b.i32(0); // fBinStatErrOpt
        b.i32(2); // fStatOverflows: kNeutral
        b.end();
    }

    fn profile_members(&self, b: &mut ObjectStream) {
        let p = self.profile.as_ref().expect("checked: a profile");
        doubles(b, &p.bin_entries);
        b.i32(match p.error_mode {
            super::ErrorMode::Mean => 0,
            super::ErrorMode::Spread => 1,
            super::ErrorMode::SpreadI => 2,
            super::ErrorMode::SpreadG => 3,
        });
        b.f64(p.value_min);
        b.f64(p.value_max);
        let v = ["fTsumwy", "fTsumwz", "fTsumwt"][self.axes.len() - 1];
        b.f64(self.stat(v));
        b.f64(self.stat(&format!("{v}2")));
        doubles(b, p.bin_sumw2.as_deref().unwrap_or(&[]));
    }
}

impl Axis {
    /// The one-bin axis [0, 1] ROOT gives a histogram in the dimensions it lacks.
    fn unit(name: &str) -> Axis {
        Axis {
            name: name.to_string(),
            title: String::new(),
            bins: 1,
            min: 0.0,
            max: 1.0,
            edges: None,
            labels: None,
            can_extend: false,
            range: None,
        }
    }
}

/// `TAttLine`, `TAttFill` and `TAttMarker` as ROOT's histogram constructors set them.
fn attributes(b: &mut ObjectStream) {
    b.begin_version(2);
    b.i16(602); // fLineColor
    b.i16(1);
    b.i16(1);
    b.end();
    b.begin_version(2);
    b.i16(0); // fFillColor
    b.i16(1001);
    b.end();
    b.begin_version(3);
    b.i16(1); // fMarkerColor
    b.i16(1);
    b.f32(1.0);
    b.end();
}

/// A `TArrayD` member: the count, the values.
fn doubles(b: &mut ObjectStream, values: &[f64]) {
    b.i32(values.len() as i32);
    values.iter().for_each(|&v| b.f64(v));
}

/// An empty `TList` streamed in place (a pointer member that is never null), with the
/// `TObject` bits ROOT stores for a histogram's list of functions.
fn empty_list(b: &mut ObjectStream) {
    b.begin_version(5);
    b.tobject(1 << 16);
    b.tstring("");
    b.i32(0);
    b.end();
}

/// A `TAxis` (version 10) with ROOT's default `TAttAxis`.
fn write_axis(b: &mut ObjectStream, axis: &Axis, title_offset: f32, keylen: usize) {
    b.begin_version(10);
    b.tnamed(&axis.name, &axis.title, 0);
    b.begin_version(4);
    b.i32(510); // fNdivisions
    b.i16(1); // fAxisColor
    b.i16(1); // fLabelColor
    b.i16(42); // fLabelFont
    b.f32(0.005);
    b.f32(0.035);
    b.f32(0.03); // fTickLength
    b.f32(title_offset);
    b.f32(0.035);
    b.i16(1); // fTitleColor
    b.i16(42);
    b.end();
    b.i32(axis.bins as i32);
    b.f64(axis.min);
    b.f64(axis.max);
    doubles(b, axis.edges.as_deref().unwrap_or(&[]));
    b.i32(0); // fFirst
    b.i32(0); // fLast
    let labels = axis.labels.as_ref();
    // ROOT marks an axis alphanumeric when it is filled by label, which also lets it
    // extend; labels set on bins alone leave both bits clear.
    let bits2 = match (labels.is_some(), axis.can_extend) {
        (true, true) => ALPHANUMERIC | CAN_EXTEND,
        (false, true) => CAN_EXTEND,
        _ => 0,
    };
    b.u16(bits2);
    b.u8(0); // fTimeDisplay
    b.tstring(""); // fTimeFormat
    match labels {
        Some(labels) => {
            b.begin_object_in_record("THashList", keylen);
            b.begin_version(5);
            b.tobject(0);
            b.tstring("");
            let set: Vec<(usize, &String)> = labels
                .iter()
                .enumerate()
                .filter(|(_, l)| !l.is_empty())
                .collect();
            b.i32(set.len() as i32);
            for (i, label) in set {
                b.begin_object_in_record("TObjString", keylen);
                b.begin_version(1);
                b.u16(1); // TObject: version, unique ID (the bin), bits
                b.u32(i as u32 + 1);
                b.u32(0);
                b.tstring(label);
                b.end();
                b.end();
                b.u8(0); // option of the list entry
            }
            b.end();
            b.end();
        }
        None => b.null(),
    }
    b.null(); // fModLabs
    b.end();
}

/// Writes `histogram` into directory `dir` of `file` under its name, and adds the class
/// layouts it needs to the file's StreamerInfo record.
pub fn write_histogram(
    file: &FileWriter,
    dir: DirectoryId,
    histogram: &Histogram,
) -> Result<KeyInfo> {
    let keylen = file.next_key_len(&histogram.class, &histogram.name, &histogram.title);
    let payload = histogram
        .to_payload(keylen)
        .map_err(|e| Error::InvalidArgument(format!("histogram '{}': {e}", histogram.name)))?;
    file.add_streamer_infos(histogram.layouts());
    let (class, name, title) = (&histogram.class, &histogram.name, &histogram.title);
    let key = file.write_object_in(dir, class, name, title, &payload, true)?;
    if key.keylen as usize == keylen {
        return Ok(key);
    }
    // The file crossed 2 GB meanwhile, and the key grew: the labels' class references
    // count from the key's start, so the payload is made again for it.
    let payload = histogram
        .to_payload(key.keylen as usize)
        .map_err(Error::InvalidArgument)?;
    file.rewrite_object(dir, &key, &payload, true)
}
