//! The class layouts a file of trees carries in its StreamerInfo record, at the class
//! versions and with the checksums of ROOT 6.40: the tree, branch and leaf classes and the
//! classes they are made of.

use crate::streamer::{attribute_layouts, code, collection_layouts, Element, StreamerInfo};

/// A `Long64_t*` array counted by a member of `TTree` or `TBranch`.
fn counted(name: &str, ty: i32, count: &str, class: &str) -> Element {
    let count_version = if class == "TTree" { 20 } else { 13 };
    Element::basic_pointer(name, ty, count, class, count_version)
}

/// The layouts of `TTree` (20), `TBranch` (13), `TLeaf` (2), the branch and leaf classes
/// `classes` (`TBranchElement` 10, the leaf classes 1), and the classes they are made of.
pub(crate) fn tree_layouts(classes: &[&'static str]) -> Vec<StreamerInfo> {
    let mut out = vec![
        StreamerInfo::new(
            "TTree",
            20,
            0x7264_e07f,
            vec![
                Element::base("TNamed", 1),
                Element::base("TAttLine", 2),
                Element::base("TAttFill", 2),
                Element::base("TAttMarker", 3),
                Element::basic("fEntries", code::LONG64),
                Element::basic("fTotBytes", code::LONG64),
                Element::basic("fZipBytes", code::LONG64),
                Element::basic("fSavedBytes", code::LONG64),
                Element::basic("fFlushedBytes", code::LONG64),
                Element::basic("fWeight", code::DOUBLE),
                Element::basic("fTimerInterval", code::INT),
                Element::basic("fScanField", code::INT),
                Element::basic("fUpdate", code::INT),
                Element::basic("fDefaultEntryOffsetLen", code::INT),
                Element::basic("fNClusterRange", code::INT),
                Element::basic("fMaxEntries", code::LONG64),
                Element::basic("fMaxEntryLoop", code::LONG64),
                Element::basic("fMaxVirtualSize", code::LONG64),
                Element::basic("fAutoSave", code::LONG64),
                Element::basic("fAutoFlush", code::LONG64),
                Element::basic("fEstimate", code::LONG64),
                counted("fClusterRangeEnd", code::LONG64, "fNClusterRange", "TTree"),
                counted("fClusterSize", code::LONG64, "fNClusterRange", "TTree"),
                Element::object_any("fIOFeatures", "ROOT::TIOFeatures"),
                Element::object("fBranches", "TObjArray"),
                Element::object("fLeaves", "TObjArray"),
                Element::object_pointer("fAliases", "TList"),
                Element::object_any("fIndexValues", "TArrayD"),
                Element::object_any("fIndex", "TArrayI"),
                Element::object_pointer("fTreeIndex", "TVirtualIndex"),
                Element::object_pointer("fFriends", "TList"),
                Element::object_pointer("fUserInfo", "TList"),
                Element::object_pointer("fBranchRef", "TBranchRef"),
            ],
        ),
        StreamerInfo::new(
            "ROOT::TIOFeatures",
            1,
            0x1aa1_2f10,
            vec![Element::basic("fIOBits", code::UCHAR)],
        ),
        StreamerInfo::new(
            "TBranch",
            13,
            0x1097_8aac,
            vec![
                Element::base("TNamed", 1),
                Element::base("TAttFill", 2),
                Element::basic("fCompress", code::INT),
                Element::basic("fBasketSize", code::INT),
                Element::basic("fEntryOffsetLen", code::INT),
                Element::basic("fWriteBasket", code::INT),
                Element::basic("fEntryNumber", code::LONG64),
                Element::object_any("fIOFeatures", "ROOT::TIOFeatures"),
                Element::basic("fOffset", code::INT),
                Element::basic("fMaxBaskets", code::INT),
                Element::basic("fSplitLevel", code::INT),
                Element::basic("fEntries", code::LONG64),
                Element::basic("fFirstEntry", code::LONG64),
                Element::basic("fTotBytes", code::LONG64),
                Element::basic("fZipBytes", code::LONG64),
                Element::object("fBranches", "TObjArray"),
                Element::object("fLeaves", "TObjArray"),
                Element::object("fBaskets", "TObjArray"),
                counted("fBasketBytes", code::INT, "fMaxBaskets", "TBranch"),
                counted("fBasketEntry", code::LONG64, "fMaxBaskets", "TBranch"),
                counted("fBasketSeek", code::LONG64, "fMaxBaskets", "TBranch"),
                Element::tstring("fFileName"),
            ],
        ),
        StreamerInfo::new(
            "TLeaf",
            2,
            0x6d1e_8152,
            vec![
                Element::base("TNamed", 1),
                Element::basic("fLen", code::INT),
                Element::basic("fLenType", code::INT),
                Element::basic("fOffset", code::INT),
                Element::basic("fIsRange", code::BOOL),
                Element::basic("fIsUnsigned", code::BOOL),
                Element::object_pointer("fLeafCount", "TLeaf"),
            ],
        ),
    ];
    for &class in classes {
        if out.iter().any(|i| i.class_name == class) {
            continue;
        }
        out.push(match class {
            "TBranchElement" => branch_element_layout(),
            "TLeafElement" => StreamerInfo::new(
                "TLeafElement",
                1,
                0xa04f_8893,
                vec![
                    Element::base("TLeaf", 2),
                    Element::basic("fID", code::INT),
                    Element::basic("fType", code::INT),
                ],
            ),
            _ => {
                let (ty, checksum) = match class {
                    "TLeafO" => (code::BOOL, 0x02ae_48d3),
                    "TLeafB" => (code::CHAR, 0x0f1e_4b5e),
                    "TLeafS" => (code::SHORT, 0x150c_eecf),
                    "TLeafI" => (code::INT, 0x7e6a_ae19),
                    "TLeafL" => (code::LONG64, 0xde32_0862),
                    "TLeafG" => (code::LONG, 0xeca7_1cb7),
                    "TLeafF" => (code::FLOAT, 0x3add_9d72),
                    "TLeafC" => (code::INT, 0xfbe3_b2f3),
                    _ => (code::DOUBLE, 0x118e_8776),
                };
                let elements = vec![
                    Element::base("TLeaf", 2),
                    Element::basic("fMinimum", ty),
                    Element::basic("fMaximum", ty),
                ];
                StreamerInfo::new(class, 1, checksum, elements)
            }
        });
    }
    out.splice(1..1, attribute_layouts());
    out.extend(collection_layouts());
    out
}

/// `TBranchElement` (10): a branch of an object of a class.
fn branch_element_layout() -> StreamerInfo {
    StreamerInfo::new(
        "TBranchElement",
        10,
        0xe74f_5e63,
        vec![
            Element::base("TBranch", 13),
            Element::tstring("fClassName"),
            Element::tstring("fParentName"),
            Element::tstring("fClonesName"),
            Element::basic("fCheckSum", code::UINT),
            Element::basic("fClassVersion", code::SHORT),
            Element::basic("fID", code::INT),
            Element::basic("fType", code::INT),
            Element::basic("fStreamerType", code::INT),
            Element::basic("fMaximum", code::INT),
            Element::object_pointer("fBranchCount", "TBranchElement"),
            Element::object_pointer("fBranchCount2", "TBranchElement"),
        ],
    )
}
