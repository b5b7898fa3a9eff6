//! The class layouts a file of histograms carries in its StreamerInfo record, at the class
//! versions and with the checksums of ROOT 6.40: the histogram classes, the axis and the
//! arrays they are made of, and the list and string classes of axis labels.

use crate::streamer::{attribute_layouts, code, collection_layouts, Element, StreamerInfo};

/// The layouts a file holding histograms of class `class` needs, each class once, in the
/// order ROOT lists them (the class first, then what it is made of).
pub(crate) fn histogram_layouts(class: &str) -> Vec<StreamerInfo> {
    let mut out = Vec::new();
    let (bins, array) = bin_array(class);
    match class {
        "TProfile" => out.extend([profile(1), concrete("TH1D", 1, "TArrayD")]),
        "TProfile2D" => out.extend([profile(2), concrete("TH2D", 2, "TArrayD"), th2()]),
        "TProfile3D" => out.extend([profile(3), concrete("TH3D", 3, "TArrayD"), th3(), att3d()]),
        c if c.starts_with("TH2") => out.extend([concrete(c, 2, array), th2()]),
        c if c.starts_with("TH3") => out.extend([concrete(c, 3, array), th3(), att3d()]),
        c => out.push(concrete(c, 1, array)),
    }
    out.push(th1());
    out.extend(attribute_layouts());
    out.extend([taxis(), tattaxis(), tarray_of("TArrayD", code::DOUBLE)]);
    if array != "TArrayD" {
        out.push(tarray_of(array, bins));
    }
    out.push(tarray());
    out.extend(label_layouts());
    out
}

/// The bin type and `TArray` class of a histogram class (`TH1F`: float, `TArrayF`).
fn bin_array(class: &str) -> (i32, &'static str) {
    if class.starts_with("TProfile") {
        return (code::DOUBLE, "TArrayD");
    }
    match class.chars().last() {
        Some('F') => (code::FLOAT, "TArrayF"),
        Some('I') => (code::INT, "TArrayI"),
        Some('S') => (code::SHORT, "TArrayS"),
        Some('C') => (code::CHAR, "TArrayC"),
        Some('L') => (code::LONG64, "TArrayL64"),
        _ => (code::DOUBLE, "TArrayD"),
    }
}

/// ROOT's checksums of the concrete histogram classes.
fn checksum(class: &str) -> u32 {
    match class {
        "TH1D" => 0xf9b1_569f,
        "TH1F" => 0xe293_9644,
        "TH1I" => 0x6275_64f6,
        "TH1S" => 0x8c4d_9dcb,
        "TH1C" => 0x36f6_e4ad,
        "TH2D" => 0x7fba_82f0,
        "TH2F" => 0x689c_c295,
        "TH3D" => 0x64b9_ff86,
        _ => 0,
    }
}

/// A concrete class (`TH1F`, `TH2D`, ...) of `dims` dimensions: its base (`TH1`, `TH2`,
/// `TH3`) and the array of its bins.
fn concrete(class: &str, dims: usize, array: &'static str) -> StreamerInfo {
    let (version, parent) = match dims {
        1 => (3, Element::base("TH1", 8)),
        2 => (4, Element::base("TH2", 5)),
        _ => (4, Element::base("TH3", 6)),
    };
    let elements = vec![parent, Element::base(array, 1)];
    StreamerInfo::new(class, version, checksum(class), elements)
}

fn th1() -> StreamerInfo {
    let mut elements = vec![
        Element::base("TNamed", 1),
        Element::base("TAttLine", 2),
        Element::base("TAttFill", 2),
        Element::base("TAttMarker", 3),
        Element::basic("fNcells", code::INT),
        Element::object("fXaxis", "TAxis"),
        Element::object("fYaxis", "TAxis"),
        Element::object("fZaxis", "TAxis"),
        Element::basic("fBarOffset", code::SHORT),
        Element::basic("fBarWidth", code::SHORT),
    ];
    for name in [
        "fEntries",
        "fTsumw",
        "fTsumw2",
        "fTsumwx",
        "fTsumwx2",
        "fMaximum",
        "fMinimum",
        "fNormFactor",
    ] {
        elements.push(Element::basic(name, code::DOUBLE));
    }
    elements.extend([
        Element::object_any("fContour", "TArrayD"),
        Element::object_any("fSumw2", "TArrayD"),
        Element::tstring("fOption"),
        Element::object_pointer_never_null("fFunctions", "TList"),
        Element::basic("fBufferSize", code::COUNTER),
        Element::basic_pointer("fBuffer", code::DOUBLE, "fBufferSize", "TH1", 8),
        Element::enumeration("fBinStatErrOpt", "TH1::EBinErrorOpt"),
        Element::enumeration("fStatOverflows", "TH1::EStatOverflows"),
    ]);
    StreamerInfo::new("TH1", 8, 0x1c37_40c4, elements)
}

fn th2() -> StreamerInfo {
    let mut elements = vec![Element::base("TH1", 8)];
    for name in ["fScalefactor", "fTsumwy", "fTsumwy2", "fTsumwxy"] {
        elements.push(Element::basic(name, code::DOUBLE));
    }
    StreamerInfo::new("TH2", 5, 0x0182_347f, elements)
}

fn th3() -> StreamerInfo {
    let mut elements = vec![Element::base("TH1", 8), Element::base("TAtt3D", 1)];
    for name in [
        "fTsumwy", "fTsumwy2", "fTsumwxy", "fTsumwz", "fTsumwz2", "fTsumwxz", "fTsumwyz",
    ] {
        elements.push(Element::basic(name, code::DOUBLE));
    }
    StreamerInfo::new("TH3", 6, 0x42d2_445f, elements)
}

fn att3d() -> StreamerInfo {
    StreamerInfo::new("TAtt3D", 1, 0x0000_757a, Vec::new())
}

/// `TProfile` (1), `TProfile2D` (2) or `TProfile3D` (3).
fn profile(dims: usize) -> StreamerInfo {
    let (class, version, checksum, parent, v) = match dims {
        1 => ("TProfile", 7, 0x4bed_ee54, Element::base("TH1D", 3), "y"),
        2 => ("TProfile2D", 8, 0x36a1_42ac, Element::base("TH2D", 4), "z"),
        _ => ("TProfile3D", 8, 0xf60c_6814, Element::base("TH3D", 4), "t"),
    };
    let names: [&'static str; 4] = match v {
        "y" => ["fYmin", "fYmax", "fTsumwy", "fTsumwy2"],
        "z" => ["fZmin", "fZmax", "fTsumwz", "fTsumwz2"],
        _ => ["fTmin", "fTmax", "fTsumwt", "fTsumwt2"],
    };
    let mut elements = vec![
        parent,
        Element::object_any("fBinEntries", "TArrayD"),
        Element::enumeration("fErrorMode", "EErrorType"),
    ];
    elements.extend(names.map(|n| Element::basic(n, code::DOUBLE)));
    elements.push(Element::object_any("fBinSumw2", "TArrayD"));
    StreamerInfo::new(class, version, checksum, elements)
}

fn taxis() -> StreamerInfo {
    StreamerInfo::new(
        "TAxis",
        10,
        0x5a49_6e70,
        vec![
            Element::base("TNamed", 1),
            Element::base("TAttAxis", 4),
            Element::basic("fNbins", code::INT),
            Element::basic("fXmin", code::DOUBLE),
            Element::basic("fXmax", code::DOUBLE),
            Element::object_any("fXbins", "TArrayD"),
            Element::basic("fFirst", code::INT),
            Element::basic("fLast", code::INT),
            Element::basic("fBits2", code::USHORT),
            Element::basic("fTimeDisplay", code::BOOL),
            Element::tstring("fTimeFormat"),
            Element::object_pointer("fLabels", "THashList"),
            Element::object_pointer("fModLabs", "TList"),
        ],
    )
}

fn tattaxis() -> StreamerInfo {
    StreamerInfo::new(
        "TAttAxis",
        4,
        0x5c6f_ff3e,
        vec![
            Element::basic("fNdivisions", code::INT),
            Element::basic("fAxisColor", code::SHORT),
            Element::basic("fLabelColor", code::SHORT),
            Element::basic("fLabelFont", code::SHORT),
            Element::basic("fLabelOffset", code::FLOAT),
            Element::basic("fLabelSize", code::FLOAT),
            Element::basic("fTickLength", code::FLOAT),
            Element::basic("fTitleOffset", code::FLOAT),
            Element::basic("fTitleSize", code::FLOAT),
            Element::basic("fTitleColor", code::SHORT),
            Element::basic("fTitleFont", code::SHORT),
        ],
    )
}

fn tarray() -> StreamerInfo {
    StreamerInfo::new(
        "TArray",
        1,
        0x0070_21b2,
        vec![Element::basic("fN", code::COUNTER)],
    )
}

/// `TArrayD`, `TArrayF`, ...: the count in `TArray`, then the values.
fn tarray_of(class: &'static str, ty: i32) -> StreamerInfo {
    let checksum = match class {
        "TArrayD" => 0x7139_ef34,
        "TArrayF" => 0x5a0b_f6f1,
        "TArrayI" => 0xd9d5_71c7,
        "TArrayS" => 0x035c_9314,
        "TArrayC" => 0xae87_9936,
        _ => 0x18e7_0794,
    };
    let values = Element::basic_pointer("fArray", ty, "fN", "TArray", 1);
    StreamerInfo::new(class, 1, checksum, vec![Element::base("TArray", 1), values])
}

/// `THashList` and `TObjString` (axis labels) and the list classes under them.
pub(super) fn label_layouts() -> Vec<StreamerInfo> {
    let mut out = vec![
        StreamerInfo::new("THashList", 0, 0xcc7e_49c1, vec![Element::base("TList", 5)]),
        StreamerInfo::new(
            "TObjString",
            1,
            0x9c8e_4800,
            vec![Element::base("TObject", 1), Element::tstring("fString")],
        ),
    ];
    out.extend(
        collection_layouts()
            .into_iter()
            .filter(|i| i.class_name != "TObjArray"),
    );
    out
}
