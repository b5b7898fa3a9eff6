//! The class layouts a file of trees carries in its StreamerInfo record, at the class
//! versions and with the checksums of ROOT 6.40: the tree, branch and leaf classes and the
//! classes they are made of.

use crate::container::streamer_info::{BasicType, Element, ElementKind, StreamerInfo};

pub(crate) fn base(name: &'static str, version: i32) -> Element {
    Element {
        name: name.into(),
        title: "".into(),
        kind: ElementKind::Base { version },
    }
}

pub(crate) fn basic(name: &'static str, ty: BasicType) -> Element {
    Element::basic(name, "", ty)
}

pub(crate) fn member(name: &'static str, kind: ElementKind) -> Element {
    Element {
        name: name.into(),
        title: "".into(),
        kind,
    }
}

pub(crate) fn info(
    class_name: &'static str,
    class_version: i32,
    checksum: u32,
    elements: Vec<Element>,
) -> StreamerInfo {
    StreamerInfo {
        class_name: class_name.into(),
        checksum,
        class_version,
        elements,
    }
}

/// A `Long64_t*` array counted by a member of `TTree` or `TBranch`.
fn counted(name: &'static str, ty: BasicType, count: &'static str, class: &'static str) -> Element {
    let count_version = if class == "TTree" { 20 } else { 13 };
    member(
        name,
        ElementKind::BasicPointer {
            ty,
            count,
            count_class: class,
            count_version,
        },
    )
}

/// The layouts of `TTree` (20), `TBranch` (13), `TLeaf` (2), the branch and leaf classes
/// `classes` (`TBranchElement` 10, the leaf classes 1), and the classes they are made of.
pub(crate) fn tree_layouts(classes: &[&'static str]) -> Vec<StreamerInfo> {
    use BasicType::*;
    use ElementKind::{Object, ObjectAny, ObjectPointer};
    let mut out = vec![
        info(
            "TTree",
            20,
            0x7264_e07f,
            vec![
                base("TNamed", 1),
                base("TAttLine", 2),
                base("TAttFill", 2),
                base("TAttMarker", 3),
                basic("fEntries", Long64),
                basic("fTotBytes", Long64),
                basic("fZipBytes", Long64),
                basic("fSavedBytes", Long64),
                basic("fFlushedBytes", Long64),
                basic("fWeight", Double),
                basic("fTimerInterval", Int),
                basic("fScanField", Int),
                basic("fUpdate", Int),
                basic("fDefaultEntryOffsetLen", Int),
                basic("fNClusterRange", Int),
                basic("fMaxEntries", Long64),
                basic("fMaxEntryLoop", Long64),
                basic("fMaxVirtualSize", Long64),
                basic("fAutoSave", Long64),
                basic("fAutoFlush", Long64),
                basic("fEstimate", Long64),
                counted("fClusterRangeEnd", Long64, "fNClusterRange", "TTree"),
                counted("fClusterSize", Long64, "fNClusterRange", "TTree"),
                member("fIOFeatures", ObjectAny("ROOT::TIOFeatures")),
                member("fBranches", Object("TObjArray")),
                member("fLeaves", Object("TObjArray")),
                member("fAliases", ObjectPointer("TList")),
                member("fIndexValues", ObjectAny("TArrayD")),
                member("fIndex", ObjectAny("TArrayI")),
                member("fTreeIndex", ObjectPointer("TVirtualIndex")),
                member("fFriends", ObjectPointer("TList")),
                member("fUserInfo", ObjectPointer("TList")),
                member("fBranchRef", ObjectPointer("TBranchRef")),
            ],
        ),
        info(
            "ROOT::TIOFeatures",
            1,
            0x1aa1_2f10,
            vec![basic("fIOBits", UChar)],
        ),
        info(
            "TBranch",
            13,
            0x1097_8aac,
            vec![
                base("TNamed", 1),
                base("TAttFill", 2),
                basic("fCompress", Int),
                basic("fBasketSize", Int),
                basic("fEntryOffsetLen", Int),
                basic("fWriteBasket", Int),
                basic("fEntryNumber", Long64),
                member("fIOFeatures", ObjectAny("ROOT::TIOFeatures")),
                basic("fOffset", Int),
                basic("fMaxBaskets", Int),
                basic("fSplitLevel", Int),
                basic("fEntries", Long64),
                basic("fFirstEntry", Long64),
                basic("fTotBytes", Long64),
                basic("fZipBytes", Long64),
                member("fBranches", Object("TObjArray")),
                member("fLeaves", Object("TObjArray")),
                member("fBaskets", Object("TObjArray")),
                counted("fBasketBytes", Int, "fMaxBaskets", "TBranch"),
                counted("fBasketEntry", Long64, "fMaxBaskets", "TBranch"),
                counted("fBasketSeek", Long64, "fMaxBaskets", "TBranch"),
                member("fFileName", ElementKind::String),
            ],
        ),
        info(
            "TLeaf",
            2,
            0x6d1e_8152,
            vec![
                base("TNamed", 1),
                basic("fLen", Int),
                basic("fLenType", Int),
                basic("fOffset", Int),
                basic("fIsRange", Bool),
                basic("fIsUnsigned", Bool),
                member("fLeafCount", ObjectPointer("TLeaf")),
            ],
        ),
    ];
    for &class in classes {
        if out.iter().any(|i| i.class_name == class) {
            continue;
        }
        out.push(match class {
            "TBranchElement" => branch_element_layout(),
            "TLeafElement" => info(
                "TLeafElement",
                1,
                0xa04f_8893,
                vec![base("TLeaf", 2), basic("fID", Int), basic("fType", Int)],
            ),
            _ => {
                let (ty, checksum) = match class {
                    "TLeafO" => (Bool, 0x02ae_48d3),
                    "TLeafB" => (Char, 0x0f1e_4b5e),
                    "TLeafS" => (Short, 0x150c_eecf),
                    "TLeafI" => (Int, 0x7e6a_ae19),
                    "TLeafL" => (Long64, 0xde32_0862),
                    "TLeafF" => (Float, 0x3add_9d72),
                    "TLeafC" => (Int, 0xfbe3_b2f3),
                    _ => (Double, 0x118e_8776),
                };
                let elements = vec![
                    base("TLeaf", 2),
                    basic("fMinimum", ty),
                    basic("fMaximum", ty),
                ];
                info(class, 1, checksum, elements)
            }
        });
    }
    out.splice(1..1, attribute_layouts());
    out.extend(collection_layouts());
    out
}

/// `TBranchElement` (10): a branch of an object of a class.
fn branch_element_layout() -> StreamerInfo {
    use BasicType::{Int, Short, UInt};
    info(
        "TBranchElement",
        10,
        0xe74f_5e63,
        vec![
            base("TBranch", 13),
            member("fClassName", ElementKind::String),
            member("fParentName", ElementKind::String),
            member("fClonesName", ElementKind::String),
            basic("fCheckSum", UInt),
            basic("fClassVersion", Short),
            basic("fID", Int),
            basic("fType", Int),
            basic("fStreamerType", Int),
            basic("fMaximum", Int),
            member("fBranchCount", ElementKind::ObjectPointer("TBranchElement")),
            member(
                "fBranchCount2",
                ElementKind::ObjectPointer("TBranchElement"),
            ),
        ],
    )
}

/// `TNamed`, `TObject` and the drawing attributes `TAttLine`, `TAttFill` and `TAttMarker`,
/// bases of the tree and histogram classes.
pub(crate) fn attribute_layouts() -> Vec<StreamerInfo> {
    use BasicType::*;
    vec![
        info(
            "TNamed",
            1,
            0xdfb7_4a3c,
            vec![
                base("TObject", 1),
                member("fName", ElementKind::String),
                member("fTitle", ElementKind::String),
            ],
        ),
        info(
            "TObject",
            1,
            0x901b_c02d,
            vec![basic("fUniqueID", UInt), basic("fBits", UInt)],
        ),
        info(
            "TAttLine",
            2,
            0x9407_4549,
            vec![
                basic("fLineColor", Short),
                basic("fLineStyle", Short),
                basic("fLineWidth", Short),
            ],
        ),
        info(
            "TAttFill",
            2,
            0xffd9_2a92,
            vec![basic("fFillColor", Short), basic("fFillStyle", Short)],
        ),
        info(
            "TAttMarker",
            3,
            0x291d_8bec,
            vec![
                basic("fMarkerColor", Short),
                basic("fMarkerStyle", Short),
                basic("fMarkerSize", Float),
            ],
        ),
    ]
}

/// `TObjArray` and `TList` with their bases.
pub(crate) fn collection_layouts() -> Vec<StreamerInfo> {
    use BasicType::Int;
    vec![
        info(
            "TObjArray",
            3,
            0xa99e_6552,
            vec![
                base("TSeqCollection", 0),
                basic("fLowerBound", Int),
                basic("fLast", Int),
            ],
        ),
        info(
            "TSeqCollection",
            0,
            0xfc6c_3bc6,
            vec![base("TCollection", 3)],
        ),
        info(
            "TCollection",
            3,
            0x57e3_cb9c,
            vec![
                base("TObject", 1),
                member("fName", ElementKind::String),
                basic("fSize", Int),
            ],
        ),
        info("TList", 5, 0x69c5_c3bb, vec![base("TSeqCollection", 0)]),
    ]
}
