//! The class layouts a file of histograms carries in its StreamerInfo record, at the class
//! versions and with the checksums of ROOT 6.40: the histogram classes, the axis and the
//! arrays they are made of, and the list and string classes of axis labels.

use crate::container::streamer_info::{BasicType, ElementKind, StreamerInfo};
use crate::ttree::write::layouts::{
    attribute_layouts, base, basic, collection_layouts, info, member,
};

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
    out.extend([taxis(), tattaxis(), tarray_of("TArrayD", BasicType::Double)]);
    if array != "TArrayD" {
        out.push(tarray_of(array, bins));
    }
    out.push(tarray());
    out.extend(label_layouts());
    out
}

/// The bin type and `TArray` class of a histogram class (`TH1F`: float, `TArrayF`).
fn bin_array(class: &str) -> (BasicType, &'static str) {
    if class.starts_with("TProfile") {
        return (BasicType::Double, "TArrayD");
    }
    match class.chars().last() {
        Some('F') => (BasicType::Float, "TArrayF"),
        Some('I') => (BasicType::Int, "TArrayI"),
        Some('S') => (BasicType::Short, "TArrayS"),
        Some('C') => (BasicType::Char, "TArrayC"),
        Some('L') => (BasicType::Long64, "TArrayL64"),
        _ => (BasicType::Double, "TArrayD"),
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
        1 => (3, base("TH1", 8)),
        2 => (4, base("TH2", 5)),
        _ => (4, base("TH3", 6)),
    };
    let mut layout = info("", version, checksum(class), vec![parent, base(array, 1)]);
    layout.class_name = class.to_string().into();
    layout
}

fn th1() -> StreamerInfo {
    use BasicType::*;
    use ElementKind::{Enum, Object, ObjectAny, ObjectPointerAlways};
    let mut elements = vec![
        base("TNamed", 1),
        base("TAttLine", 2),
        base("TAttFill", 2),
        base("TAttMarker", 3),
        basic("fNcells", Int),
        member("fXaxis", Object("TAxis")),
        member("fYaxis", Object("TAxis")),
        member("fZaxis", Object("TAxis")),
        basic("fBarOffset", Short),
        basic("fBarWidth", Short),
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
        elements.push(basic(name, Double));
    }
    elements.extend([
        member("fContour", ObjectAny("TArrayD")),
        member("fSumw2", ObjectAny("TArrayD")),
        member("fOption", ElementKind::String),
        member("fFunctions", ObjectPointerAlways("TList")),
        basic("fBufferSize", Counter),
        member(
            "fBuffer",
            ElementKind::BasicPointer {
                ty: Double,
                count: "fBufferSize",
                count_class: "TH1",
                count_version: 8,
            },
        ),
        member("fBinStatErrOpt", Enum("TH1::EBinErrorOpt")),
        member("fStatOverflows", Enum("TH1::EStatOverflows")),
    ]);
    info("TH1", 8, 0x1c37_40c4, elements)
}

fn th2() -> StreamerInfo {
    let mut elements = vec![base("TH1", 8)];
    for name in ["fScalefactor", "fTsumwy", "fTsumwy2", "fTsumwxy"] {
        elements.push(basic(name, BasicType::Double));
    }
    info("TH2", 5, 0x0182_347f, elements)
}

fn th3() -> StreamerInfo {
    let mut elements = vec![base("TH1", 8), base("TAtt3D", 1)];
    for name in [
        "fTsumwy", "fTsumwy2", "fTsumwxy", "fTsumwz", "fTsumwz2", "fTsumwxz", "fTsumwyz",
    ] {
        elements.push(basic(name, BasicType::Double));
    }
    info("TH3", 6, 0x42d2_445f, elements)
}

fn att3d() -> StreamerInfo {
    info("TAtt3D", 1, 0x0000_757a, Vec::new())
}

/// `TProfile` (1), `TProfile2D` (2) or `TProfile3D` (3).
fn profile(dims: usize) -> StreamerInfo {
    use BasicType::Double;
    use ElementKind::{Enum, ObjectAny};
    let (class, version, checksum, parent, v) = match dims {
        1 => ("TProfile", 7, 0x4bed_ee54, base("TH1D", 3), "y"),
        2 => ("TProfile2D", 8, 0x36a1_42ac, base("TH2D", 4), "z"),
        _ => ("TProfile3D", 8, 0xf60c_6814, base("TH3D", 4), "t"),
    };
    let names: [&'static str; 4] = match v {
        "y" => ["fYmin", "fYmax", "fTsumwy", "fTsumwy2"],
        "z" => ["fZmin", "fZmax", "fTsumwz", "fTsumwz2"],
        _ => ["fTmin", "fTmax", "fTsumwt", "fTsumwt2"],
    };
    let mut elements = vec![
        parent,
        member("fBinEntries", ObjectAny("TArrayD")),
        member("fErrorMode", Enum("EErrorType")),
    ];
    elements.extend(names.map(|n| basic(n, Double)));
    elements.push(member("fBinSumw2", ObjectAny("TArrayD")));
    info(class, version, checksum, elements)
}

fn taxis() -> StreamerInfo {
    use BasicType::*;
    use ElementKind::{ObjectAny, ObjectPointer};
    info(
        "TAxis",
        10,
        0x5a49_6e70,
        vec![
            base("TNamed", 1),
            base("TAttAxis", 4),
            basic("fNbins", Int),
            basic("fXmin", Double),
            basic("fXmax", Double),
            member("fXbins", ObjectAny("TArrayD")),
            basic("fFirst", Int),
            basic("fLast", Int),
            basic("fBits2", UShort),
            basic("fTimeDisplay", Bool),
            member("fTimeFormat", ElementKind::String),
            member("fLabels", ObjectPointer("THashList")),
            member("fModLabs", ObjectPointer("TList")),
        ],
    )
}

fn tattaxis() -> StreamerInfo {
    use BasicType::*;
    info(
        "TAttAxis",
        4,
        0x5c6f_ff3e,
        vec![
            basic("fNdivisions", Int),
            basic("fAxisColor", Short),
            basic("fLabelColor", Short),
            basic("fLabelFont", Short),
            basic("fLabelOffset", Float),
            basic("fLabelSize", Float),
            basic("fTickLength", Float),
            basic("fTitleOffset", Float),
            basic("fTitleSize", Float),
            basic("fTitleColor", Short),
            basic("fTitleFont", Short),
        ],
    )
}

fn tarray() -> StreamerInfo {
    info(
        "TArray",
        1,
        0x0070_21b2,
        vec![basic("fN", BasicType::Counter)],
    )
}

/// `TArrayD`, `TArrayF`, ...: the count in `TArray`, then the values.
fn tarray_of(class: &'static str, ty: BasicType) -> StreamerInfo {
    let checksum = match class {
        "TArrayD" => 0x7139_ef34,
        "TArrayF" => 0x5a0b_f6f1,
        "TArrayI" => 0xd9d5_71c7,
        "TArrayS" => 0x035c_9314,
        "TArrayC" => 0xae87_9936,
        _ => 0x18e7_0794,
    };
    let values = member(
        "fArray",
        ElementKind::BasicPointer {
            ty,
            count: "fN",
            count_class: "TArray",
            count_version: 1,
        },
    );
    info(class, 1, checksum, vec![base("TArray", 1), values])
}

/// `THashList` and `TObjString` (axis labels) and the list classes under them.
pub(super) fn label_layouts() -> Vec<StreamerInfo> {
    let mut out = vec![
        info("THashList", 0, 0xcc7e_49c1, vec![base("TList", 5)]),
        info(
            "TObjString",
            1,
            0x9c8e_4800,
            vec![base("TObject", 1), member("fString", ElementKind::String)],
        ),
    ];
    out.extend(
        collection_layouts()
            .into_iter()
            .filter(|i| i.class_name != "TObjArray"),
    );
    out
}
