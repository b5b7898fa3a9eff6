//! Graphs of points (`TGraph`, and `TGraphAsymmErrors` with errors) streamed as ROOT 6.40
//! streams one it made from arrays of points: RDataFrame's `Graph` and `GraphAsymmErrors`
//! results, written where histograms are written.

use crate::container::{DirectoryId, FileWriter, KeyInfo};
use crate::error::{Error, Result};
use crate::streamer::ObjectStream;
use crate::streamer::{attribute_layouts, code, collection_layouts, Element, StreamerInfo};

/// `TGraph::kClipFrame`, which ROOT's constructors set: the graph is clipped to its frame.
const CLIP_FRAME: u32 = 1 << 10;

/// The `TObject` bits ROOT stores for a graph's empty list of functions.
const LIST_BITS: u32 = 0;

/// A graph of points `(x[i], y[i])` in the order they were added, with its name and title,
/// and asymmetric errors if it has them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Graph {
    /// The key's and the object's name.
    pub name: String,
    /// The title (RDataFrame's: `"y vs x"`).
    pub title: String,
    /// The points' abscissas.
    pub x: Vec<f64>,
    /// The points' ordinates, as many as abscissas.
    pub y: Vec<f64>,
    /// The points' errors, as many of each as points: x low, x high, y low, y high (a
    /// `TGraphAsymmErrors`); `None`: none (a `TGraph`).
    pub errors: Option<[Vec<f64>; 4]>,
}

impl Graph {
    /// The graph streamed for a key whose header is `keylen` bytes long (the list's class
    /// tag counts from the key's start), or why it cannot be: abscissas and ordinates of
    /// different lengths, or more points than a `TGraph` holds.
    pub fn to_payload(&self, keylen: usize) -> Result<Vec<u8>, String> {
        if self.x.len() != self.y.len() {
            return Err(format!(
                "{} abscissas and {} ordinates",
                self.x.len(),
                self.y.len()
            ));
        }
        let errors = self.errors.iter().flatten();
        if let Some(e) = errors.clone().find(|e| e.len() != self.x.len()) {
            return Err(format!("{} errors for {} points", e.len(), self.x.len()));
        }
        let n = i32::try_from(self.x.len())
            .map_err(|_| format!("{} points, more than a TGraph holds", self.x.len()))?;
        let mut b = ObjectStream::default();
        if self.errors.is_some() {
            b.begin_version(3); // TGraphAsymmErrors
        }
        b.begin_version(5);
        b.tnamed(&self.name, &self.title, CLIP_FRAME);
        b.begin_version(2); // TAttLine: color, style, width
        b.i16(1);
        b.i16(1);
        b.i16(1);
        b.end();
        b.begin_version(2); // TAttFill: color, style
        b.i16(0);
        b.i16(1000);
        b.end();
        b.begin_version(3); // TAttMarker: color, style, size
        b.i16(1);
        b.i16(1);
        b.f32(1.0);
        b.end();
        b.i32(n);
        for values in [&self.x, &self.y] {
            b.u8(1); // the array is there
            values.iter().for_each(|&v| b.f64(v));
        }
        b.begin_object_in_record("TList", keylen); // fFunctions: none
        b.begin_version(5);
        b.tobject(LIST_BITS);
        b.tstring("");
        b.i32(0);
        b.end();
        b.end();
        b.null(); // fHistogram: made when the graph is drawn
        b.f64(-1111.0); // fMinimum, fMaximum: not set
        b.f64(-1111.0);
        b.tstring(""); // fOption
        b.end();
        if self.errors.is_some() {
            for values in errors {
                b.u8(1);
                values.iter().for_each(|&v| b.f64(v));
            }
            b.end();
        }
        Ok(b.into_bytes())
    }

    /// Its class: `TGraphAsymmErrors` with errors, else `TGraph`.
    pub fn class(&self) -> &'static str {
        if self.errors.is_some() {
            "TGraphAsymmErrors"
        } else {
            "TGraph"
        }
    }

    /// The class layouts a file holding a graph describes: `TGraph` (version 5), with
    /// errors `TGraphAsymmErrors` (version 3) first, and the classes they are made of.
    pub fn layouts(&self) -> Vec<StreamerInfo> {
        let mut out = Vec::new();
        if self.errors.is_some() {
            out.push(asymmetric_errors_layout());
        }
        out.push(graph_layout());
        out.extend(attribute_layouts());
        out.extend(collection_layouts());
        out
    }
}

/// `TGraph` at version 5 with ROOT 6.40's checksum.
fn graph_layout() -> StreamerInfo {
    StreamerInfo::new(
        "TGraph",
        5,
        0xb932_984f,
        vec![
            Element::base("TNamed", 1),
            Element::base("TAttLine", 2),
            Element::base("TAttFill", 2),
            Element::base("TAttMarker", 3),
            Element::basic("fNpoints", code::INT),
            Element::basic_pointer("fX", code::DOUBLE, "fNpoints", "TGraph", 5),
            Element::basic_pointer("fY", code::DOUBLE, "fNpoints", "TGraph", 5),
            Element::object_pointer("fFunctions", "TList"),
            Element::object_pointer("fHistogram", "TH1F"),
            Element::basic("fMinimum", code::DOUBLE),
            Element::basic("fMaximum", code::DOUBLE),
            Element::tstring("fOption"),
        ],
    )
}

/// `TGraphAsymmErrors` at version 3 with ROOT 6.40's checksum.
fn asymmetric_errors_layout() -> StreamerInfo {
    let mut elements = vec![Element::base("TGraph", 5)];
    for name in ["fEXlow", "fEXhigh", "fEYlow", "fEYhigh"] {
        elements.push(Element::basic_pointer(
            name,
            code::DOUBLE,
            "fNpoints",
            "TGraph",
            5,
        ));
    }
    StreamerInfo::new("TGraphAsymmErrors", 3, 0x206d_5315, elements)
}

/// Writes `graph` into directory `dir` of `file` under its name as a `TGraph` (or a
/// `TGraphAsymmErrors`), and adds the class layouts it needs to the file's StreamerInfo
/// record.
pub fn write_graph(file: &FileWriter, dir: DirectoryId, graph: &Graph) -> Result<KeyInfo> {
    let invalid = |e: String| Error::InvalidArgument(format!("graph '{}': {e}", graph.name));
    let class = graph.class();
    let keylen = file.next_key_len(class, &graph.name, &graph.title);
    let payload = graph.to_payload(keylen).map_err(invalid)?;
    file.add_streamer_infos(graph.layouts());
    let key = file.write_object_in(dir, class, &graph.name, &graph.title, &payload, true)?;
    if key.keylen as usize == keylen {
        return Ok(key);
    }
    // The file crossed 2 GB meanwhile and the key grew: the list's class tag counts from
    // the key's start, so the payload is made again for it.
    let payload = graph.to_payload(key.keylen as usize).map_err(invalid)?;
    file.rewrite_object(dir, &key, &payload, true)
}
