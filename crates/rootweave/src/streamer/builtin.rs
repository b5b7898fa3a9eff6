//! The layouts of ROOT's own classes that the files this library writes hold (`TObject`,
//! `TNamed`, the drawing attributes, the collections, the RNTuple anchor), at the class
//! versions and with the checksums of ROOT 6.40; and the leaf classes' layouts, read by
//! when a file leaves them out.

use std::sync::OnceLock;

use super::code;
use super::element::{Element, ElementClass, StreamerInfo};
use super::set::StreamerSet;

/// The classes of tree records: `TTree` and the ntuples deriving from it, which read and
/// merge as trees.
pub const TREE_CLASSES: [&str; 3] = ["TTree", "TNtuple", "TNtupleD"];

/// Whether a key of `class` holds a tree ([`TREE_CLASSES`]).
pub fn is_tree_class(class: &str) -> bool {
    TREE_CLASSES.contains(&class)
}

/// The layout of `ROOT::RNTuple` (the anchor), class version 2, as ROOT 6.40 declares it.
pub fn rntuple_anchor_info() -> StreamerInfo {
    let members = [
        ("fVersionEpoch", code::USHORT),
        ("fVersionMajor", code::USHORT),
        ("fVersionMinor", code::USHORT),
        ("fVersionPatch", code::USHORT),
        ("fSeekHeader", code::ULONG),
        ("fNBytesHeader", code::ULONG),
        ("fLenHeader", code::ULONG),
        ("fSeekFooter", code::ULONG),
        ("fNBytesFooter", code::ULONG),
        ("fLenFooter", code::ULONG),
        ("fMaxKeySize", code::ULONG),
    ];
    let elements = members
        .into_iter()
        .map(|(name, ty)| Element::basic(name, ty))
        .collect();
    StreamerInfo::new("ROOT::RNTuple", 2, 0x28e6_32ec, elements)
}

/// `TNamed`, `TObject` and the drawing attributes `TAttLine`, `TAttFill` and `TAttMarker`,
/// bases of the tree and histogram classes.
pub fn attribute_layouts() -> Vec<StreamerInfo> {
    vec![
        StreamerInfo::new(
            "TNamed",
            1,
            0xdfb7_4a3c,
            vec![
                Element::base("TObject", 1),
                Element::tstring("fName"),
                Element::tstring("fTitle"),
            ],
        ),
        StreamerInfo::new(
            "TObject",
            1,
            0x901b_c02d,
            vec![
                Element::basic("fUniqueID", code::UINT),
                Element::basic("fBits", code::UINT),
            ],
        ),
        StreamerInfo::new(
            "TAttLine",
            2,
            0x9407_4549,
            vec![
                Element::basic("fLineColor", code::SHORT),
                Element::basic("fLineStyle", code::SHORT),
                Element::basic("fLineWidth", code::SHORT),
            ],
        ),
        StreamerInfo::new(
            "TAttFill",
            2,
            0xffd9_2a92,
            vec![
                Element::basic("fFillColor", code::SHORT),
                Element::basic("fFillStyle", code::SHORT),
            ],
        ),
        StreamerInfo::new(
            "TAttMarker",
            3,
            0x291d_8bec,
            vec![
                Element::basic("fMarkerColor", code::SHORT),
                Element::basic("fMarkerStyle", code::SHORT),
                Element::basic("fMarkerSize", code::FLOAT),
            ],
        ),
    ]
}

/// `TObjArray` and `TList` with their bases.
pub fn collection_layouts() -> Vec<StreamerInfo> {
    vec![
        StreamerInfo::new(
            "TObjArray",
            3,
            0xa99e_6552,
            vec![
                Element::base("TSeqCollection", 0),
                Element::basic("fLowerBound", code::INT),
                Element::basic("fLast", code::INT),
            ],
        ),
        StreamerInfo::new(
            "TSeqCollection",
            0,
            0xfc6c_3bc6,
            vec![Element::base("TCollection", 3)],
        ),
        StreamerInfo::new(
            "TCollection",
            3,
            0x57e3_cb9c,
            vec![
                Element::base("TObject", 1),
                Element::tstring("fName"),
                Element::basic("fSize", code::INT),
            ],
        ),
        StreamerInfo::new(
            "TList",
            5,
            0x69c5_c3bb,
            vec![Element::base("TSeqCollection", 0)],
        ),
    ]
}

/// The layouts of the leaf classes as ROOT 6 writes them, for files whose StreamerInfo
/// record leaves them out (some writers other than ROOT do): their leaves are read by
/// these rather than not at all.
pub fn leaf_layouts() -> &'static StreamerSet {
    static SET: OnceLock<StreamerSet> = OnceLock::new();
    SET.get_or_init(|| {
        let element = Element::plain;
        let basic =
            |name: &str, ty, type_name: &str| element(ElementClass::BasicType, name, ty, type_name);
        let info = |name: &str, version, elements| StreamerInfo::new(name, version, 0, elements);
        let mut set = StreamerSet::default();
        let mut base = element(ElementClass::Base, "TNamed", code::TNAMED, "BASE");
        base.base_version = 1;
        let mut leaf = element(ElementClass::Base, "TLeaf", code::BASE, "BASE");
        leaf.base_version = 2;
        set.add(info(
            "TLeaf",
            2,
            vec![
                base,
                basic("fLen", code::INT, "int"),
                basic("fLenType", code::INT, "int"),
                basic("fOffset", code::INT, "int"),
                basic("fIsRange", code::BOOL, "bool"),
                basic("fIsUnsigned", code::BOOL, "bool"),
                element(
                    ElementClass::ObjectPointer,
                    "fLeafCount",
                    code::OBJECT_P,
                    "TLeaf*",
                ),
            ],
        ));
        // Each leaf class: the TLeaf base and its minimum and maximum of its type.
        for (class, ty, type_name) in [
            ("TLeafO", code::BOOL, "bool"),
            ("TLeafB", code::CHAR, "char"),
            ("TLeafS", code::SHORT, "short"),
            ("TLeafI", code::INT, "int"),
            ("TLeafL", code::LONG64, "long long"),
            ("TLeafG", code::LONG, "long"),
            ("TLeafF", code::FLOAT, "float"),
            ("TLeafD", code::DOUBLE, "double"),
            ("TLeafF16", code::FLOAT16, "Float16_t"),
            ("TLeafD32", code::DOUBLE32, "Double32_t"),
            ("TLeafC", code::INT, "int"),
        ] {
            set.add(info(
                class,
                1,
                vec![
                    leaf.clone(),
                    basic("fMinimum", ty, type_name),
                    basic("fMaximum", ty, type_name),
                ],
            ));
        }
        set.add(info(
            "TLeafElement",
            1,
            vec![
                leaf.clone(),
                basic("fID", code::INT, "int"),
                basic("fType", code::INT, "int"),
            ],
        ));
        set.add(info(
            "TLeafObject",
            4,
            vec![leaf, basic("fVirtual", code::BOOL, "bool")],
        ));
        set
    })
}
