//! Choosing a branch's [`Interpretation`] from its leaves, its `TBranchElement`
//! members and the file's class layouts; a branch that cannot be read gets the reason.

use super::compile::{array_dims, is_pointer, is_stl, normalize, Compiler};
use super::{Header, Interpretation, LeafCount, ListLeaf, Nested, Packed, Prim};
use crate::streamer::{code, Element, ElementClass, StreamerSet};
use crate::ttree::model::{Branch, Leaf};

/// The dimensions in a leaf title (`x[3][2]` -> `["3", "2"]`, `pt[nMuon]` -> `["nMuon"]`;
/// a range `d[0,1,10]` is not one).
pub fn title_dims(title: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = title.split('/').next().unwrap_or("");
    while let Some(a) = rest.find('[') {
        let Some(b) = rest[a..].find(']') else { break };
        let inside = rest[a + 1..a + b].trim();
        // `[min,max,bits]` is the range of a Double32_t / Float16_t, not a dimension.
        if !inside.contains(',') {
            out.push(inside);
        }
        rest = &rest[a + b + 1..];
    }
    out
}

/// The value type of a plain leaf.
fn leaf_prim(leaf: &Leaf) -> Result<Prim, String> {
    let u = leaf.is_unsigned;
    Ok(match leaf.class.as_str() {
        "TLeafO" => Prim::Bool,
        "TLeafB" => {
            if u {
                Prim::U8
            } else {
                Prim::I8
            }
        }
        "TLeafS" => {
            if u {
                Prim::U16
            } else {
                Prim::I16
            }
        }
        "TLeafI" => {
            if u {
                Prim::U32
            } else {
                Prim::I32
            }
        }
        "TLeafL" | "TLeafG" => {
            if u {
                Prim::U64
            } else {
                Prim::I64
            }
        }
        "TLeafF" => Prim::F32,
        "TLeafD" => Prim::F64,
        "TLeafF16" => Prim::Float16(Packed::from_title(true, &leaf.title)),
        "TLeafD32" => Prim::Double32(Packed::from_title(false, &leaf.title)),
        other => {
            return Err(format!(
                "leaf {} of class {other} is not supported",
                leaf.name
            ))
        }
    })
}

/// The most values of one fixed-size array (per entry, or per item of a jagged branch):
/// dimensions from a file's leaf titles or class layouts beyond it are taken as corrupt,
/// so that entry sizes and offsets computed from them cannot overflow.
pub const MAX_FIXED_VALUES: usize = 1 << 24;

/// Checks that fixed-size array dimensions hold between 1 and [`MAX_FIXED_VALUES`] values.
pub(super) fn check_dims(dims: &[usize]) -> Result<(), String> {
    match dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) {
        Some(n) if (1..=MAX_FIXED_VALUES).contains(&n) => Ok(()),
        _ => Err(format!(
            "array dimensions {dims:?} (zero, or more than {MAX_FIXED_VALUES} values)"
        )),
    }
}

/// How `branch` is read, or why it cannot be.
pub(crate) fn interpret(
    branch: &Branch,
    streamers: &StreamerSet,
) -> Result<Interpretation, String> {
    let interp = interpret_unchecked(branch, streamers)?;
    match &interp {
        Interpretation::Fixed { dims, .. } => check_dims(dims)?,
        Interpretation::Jagged { inner, .. } => check_dims(inner)?,
        Interpretation::Record(leaves) => {
            for leaf in leaves {
                check_dims(&leaf.dims)?;
            }
        }
        _ => {}
    }
    Ok(interp)
}

fn interpret_unchecked(branch: &Branch, streamers: &StreamerSet) -> Result<Interpretation, String> {
    // A parent branch holds no data of its own, except the item counts of a split
    // `TClonesArray` (type 3), which uproot also reads as numbers.
    if !branch.branches.is_empty() && branch.element.as_ref().is_none_or(|e| e.ty != 3) {
        return Ok(Interpretation::Group(
            branch.branches.iter().map(|b| b.name.clone()).collect(),
        ));
    }
    if let Some(e) = &branch.element {
        return interpret_element(branch, e, streamers);
    }
    // An unsplit `TObject`-derived object (`TBranchObject`): streamed by its class, framed.
    if !branch.object_class.is_empty() {
        let object = interpret_type(&branch.object_class, -1, true, streamers)?;
        return Ok(match object {
            Interpretation::Streamed(n) if branch.object_virtual => {
                Interpretation::Streamed(Nested::Named(branch.object_class.clone(), Box::new(n)))
            }
            other if branch.object_virtual => {
                return Err(format!(
                    "objects of type {} after their class name ({}) are not supported",
                    branch.object_class,
                    other.describe()
                ))
            }
            other => other,
        });
    }
    match branch.leaves.as_slice() {
        [] => Err("the branch has no leaves (it holds no data of its own)".into()),
        [leaf] => interpret_leaf(leaf),
        leaves => leaf_list(leaves),
    }
}

/// A branch of several leaves: a record per entry; a variable-size leaf counted by an
/// earlier integer leaf of the list, or by a leaf elsewhere (one for all such leaves).
fn leaf_list(leaves: &[Leaf]) -> Result<Interpretation, String> {
    let mut list: Vec<ListLeaf> = Vec::with_capacity(leaves.len());
    for (k, leaf) in leaves.iter().enumerate() {
        let (prim, dims, counted) = match interpret_leaf(leaf)? {
            Interpretation::Fixed { prim, dims } => (prim, dims, false),
            Interpretation::Jagged { prim, inner, .. } => (prim, inner, true),
            _ => {
                return Err(format!(
                    "leaf list with the string leaf {} is not supported",
                    leaf.name
                ))
            }
        };
        let count = match counted {
            false => None,
            true => Some(list_count(leaves, k, &list)?),
        };
        list.push(ListLeaf {
            name: leaf.name.clone(),
            prim,
            dims,
            count,
        });
    }
    let mut elsewhere = list.iter().filter_map(|l| match &l.count {
        Some(LeafCount::Elsewhere(c)) => Some(c),
        _ => None,
    });
    if let Some(first) = elsewhere.next() {
        let earlier = list
            .iter()
            .any(|l| matches!(l.count, Some(LeafCount::Earlier(_))));
        if earlier || elsewhere.any(|c| c != first) {
            return Err(format!(
                "a leaf list whose variable-size leaves are counted by {first} of another \
                 branch and by other leaves is not supported"
            ));
        }
    }
    Ok(Interpretation::Record(list))
}

/// Where leaf `k` of a leaf list, a variable-size leaf, gets its count: an earlier integer
/// scalar of the list, else a leaf of another branch (ROOT looks in the list first).
fn list_count(leaves: &[Leaf], k: usize, earlier: &[ListLeaf]) -> Result<LeafCount, String> {
    let leaf = &leaves[k];
    let name = leaf
        .count
        .as_deref()
        .or_else(|| title_dims(&leaf.title).first().copied())
        .unwrap_or_default();
    if let Some(j) = earlier.iter().position(|l| l.name == name) {
        let counter = &earlier[j];
        let integer = !matches!(
            counter.prim,
            Prim::F32 | Prim::F64 | Prim::Double32(_) | Prim::Float16(_)
        );
        return match integer && counter.dims.is_empty() && counter.count.is_none() {
            true => Ok(LeafCount::Earlier(j)),
            false => Err(format!(
                "leaf {} is counted by leaf {name}, which is not an integer",
                leaf.name
            )),
        };
    }
    if leaves[k + 1..].iter().any(|l| l.name == name) {
        return Err(format!(
            "leaf {} is counted by leaf {name}, which comes after it in the leaf list",
            leaf.name
        ));
    }
    Ok(LeafCount::Elsewhere(name.to_string()))
}

fn interpret_leaf(leaf: &Leaf) -> Result<Interpretation, String> {
    if leaf.class == "TLeafC" {
        return Ok(Interpretation::Strings(Header::None));
    }
    let prim = leaf_prim(leaf)?;
    let dims = title_dims(&leaf.title);
    let counted = leaf.count.is_some() || dims.first().is_some_and(|d| d.parse::<usize>().is_err());
    let fixed: Vec<usize> = dims
        .iter()
        .skip(usize::from(counted))
        .map(|d| {
            d.parse::<usize>()
                .map_err(|_| format!("leaf {}: dimension '{d}' is not a number", leaf.name))
        })
        .collect::<Result<_, _>>()?;
    check_dims(&fixed).map_err(|e| format!("leaf {}: {e}", leaf.name))?;
    if counted {
        return Ok(Interpretation::Jagged {
            prim,
            inner: fixed,
            header: Header::None,
        });
    }
    let dims = if fixed.is_empty() && leaf.len > 1 {
        vec![leaf.len as usize]
    } else {
        fixed
    };
    Ok(Interpretation::Fixed { prim, dims })
}

/// The interpretation of a whole object of C++ type `ty` in a basket entry (a top-level
/// unsplit branch, or an STL member of a split class).
/// `version` is the class version of a top-level object (any, for a member: -1);
/// `framed` says whether an object is preceded by its byte count and version (a
/// branch of type -1) or not (type 0: its members one after the other).
fn interpret_type(
    ty: &str,
    version: i32,
    framed: bool,
    streamers: &StreamerSet,
) -> Result<Interpretation, String> {
    let t = normalize(ty);
    let compiler = Compiler { streamers };
    if t == "string" || t == "TString" {
        return Ok(Interpretation::Strings(Header::None));
    }
    if is_stl(&t) {
        return Ok(match compiler.stl(&t, 0)? {
            // Vectors of numbers: one block of values per entry.
            Nested::Framed(seq) => match *seq {
                Nested::Seq(item) => match *item {
                    Nested::Prim(prim) => Interpretation::Jagged {
                        prim,
                        inner: vec![],
                        header: Header::Vector,
                    },
                    other => Interpretation::Streamed(Nested::Framed(Box::new(Nested::Seq(
                        Box::new(other),
                    )))),
                },
                other => Interpretation::Streamed(Nested::Framed(Box::new(other))),
            },
            other => Interpretation::Streamed(other),
        });
    }
    // Classes that stream themselves in their own way, whatever the branch type.
    if let Some(custom) = compiler.symmetric_matrix(&t, 0) {
        return custom.map(Interpretation::Streamed);
    }
    // Classes of numbers only (`TDatime` and the like stream themselves without a
    // frame even in a branch of type -1; a frame would not match the fixed entry size,
    // an error rather than a misread).
    if let Some(flat) = flat_class(ty, version, streamers) {
        return Ok(flat);
    }
    // An object of split level 0.
    let class = compiler.class(ty, Some(version), 0)?;
    let class = Nested::Class(class);
    Ok(Interpretation::Streamed(if framed {
        Nested::Framed(Box::new(class))
    } else {
        class
    }))
}

/// A class whose members are all numbers or fixed-size arrays of numbers, unsplit in one
/// branch: streamed member after member without a header, so a record per entry (as a
/// leaf list).
fn flat_class(ty: &str, version: i32, streamers: &StreamerSet) -> Option<Interpretation> {
    let info = streamers.get(ty, version)?;
    let mut fields = Vec::with_capacity(info.elements.len());
    for el in &info.elements {
        if el.class != ElementClass::BasicType {
            return None;
        }
        let (prim, dims) = match Prim::from_code(el.ty, &el.title) {
            Some(prim) => (prim, vec![]),
            None => (
                Prim::from_code(el.ty - code::OFFSET_L, &el.title)?,
                array_dims(el).ok()?,
            ),
        };
        fields.push(ListLeaf::fixed(el.name.to_string(), prim, dims));
    }
    (!fields.is_empty()).then_some(Interpretation::Record(fields))
}

fn interpret_element(
    branch: &Branch,
    e: &crate::ttree::model::ElementInfo,
    streamers: &StreamerSet,
) -> Result<Interpretation, String> {
    // The member's streamer element, when the branch is a member of a class.
    let element = (e.id >= 0)
        .then(|| streamers.get(&e.class_name, e.class_version as i32))
        .flatten()
        .and_then(|info| info.elements.get(e.id as usize));
    let title = element.map_or("", |el| el.title.as_str());
    match e.ty {
        // The top branch of a split collection: the number of items per entry.
        3 | 4 if !branch.branches.is_empty() || e.id < 0 => {
            return Ok(Interpretation::Fixed {
                prim: Prim::I32,
                dims: vec![],
            })
        }
        // A member of the objects of a split collection: items back to back.
        31 | 41 => {
            let st = e.streamer_type as i32;
            // `fBits` of the items' TObject: a process ID follows those referenced.
            if st == code::BITS {
                return Ok(Interpretation::Members {
                    item: Nested::Bits,
                    header: Header::None,
                });
            }
            if let Some(prim) = Prim::from_code(st, title) {
                return Ok(Interpretation::Jagged {
                    prim,
                    inner: vec![],
                    header: Header::None,
                });
            }
            if (code::OFFSET_L + 1..code::OFFSET_L + 20).contains(&st) {
                if let (Some(prim), Some(el)) =
                    (Prim::from_code(st - code::OFFSET_L, title), element)
                {
                    return Ok(Interpretation::Jagged {
                        prim,
                        inner: array_dims(el)?,
                        header: Header::None,
                    });
                }
            }
            // Counted arrays (`T* x //[n]`): a flag and `n` values per item, `n` from
            // the sibling branch of member `n`.
            if let (true, Some(el)) = (
                (code::OFFSET_P + 1..code::OFFSET_P + 20).contains(&st),
                element.filter(|el| el.array_length <= 1 && !el.count_name.is_empty()),
            ) {
                if let Some(prim) = Prim::from_code(st - code::OFFSET_P, title) {
                    let counter = match branch.name.rsplit_once('.') {
                        Some((parent, _)) => format!("{parent}.{}", el.count_name),
                        None => el.count_name.clone(),
                    };
                    return Ok(Interpretation::CountedMembers { prim, counter });
                }
            }
            // Strings and STL sequences: one per item, back to back (an STL member's
            // values after one byte count and version per entry).
            if st == code::TSTRING {
                return Ok(Interpretation::Members {
                    item: Nested::Str,
                    header: Header::None,
                });
            }
            let compiler = Compiler { streamers };
            // Arrays of strings: per entry one byte count and version, then each item's
            // strings.
            if let Some(Nested::Framed(strings)) = element
                .and_then(|el| compiler.string_array(el))
                .transpose()?
            {
                return Ok(Interpretation::Members {
                    item: *strings,
                    header: Header::Object,
                });
            }
            if let (true, Some(el)) = (st == code::STL || st == code::STL_STRING, element) {
                return Ok(Interpretation::Members {
                    item: compiler.item(&el.type_name, 0)?,
                    header: Header::Object,
                });
            }
            // Arrays of objects: each item's member a fixed number of them.
            if let (true, Some(el)) = (
                matches!(st - code::OFFSET_L, code::OBJECT | code::ANY),
                element,
            ) {
                return Ok(Interpretation::Members {
                    item: compiler.object_array(el, 0)?,
                    header: Header::None,
                });
            }
            // Pointers: each item's null tag, or class tag and object.
            if let (true, Some(el)) = (is_pointer(st), element) {
                return Ok(Interpretation::Members {
                    item: compiler.pointer(el, 0)?,
                    header: Header::None,
                });
            }
            // Objects: each item's member framed by its own byte count and version.
            if let (true, Some(el)) = (streamed_in_place(st), element) {
                return Ok(Interpretation::Members {
                    item: compiler.item(&el.type_name, 0)?,
                    header: Header::None,
                });
            }
            return Err(format!(
                "member of a split collection with streamer type {} is not supported",
                e.streamer_type
            ));
        }
        _ => {}
    }
    if e.id < 0 {
        // The whole object in one branch.
        return interpret_type(&e.class_name, e.class_version as i32, e.ty == -1, streamers);
    }
    let st = e.streamer_type as i32;
    if st == code::BITS {
        return Ok(Interpretation::Streamed(Nested::Bits));
    }
    if let Some(prim) = Prim::from_code(st, title) {
        return Ok(Interpretation::Fixed { prim, dims: vec![] });
    }
    if (code::OFFSET_L + 1..code::OFFSET_L + 20).contains(&st) {
        if let Some(prim) = Prim::from_code(st - code::OFFSET_L, title) {
            let dims: Vec<usize> = match element {
                Some(el) => array_dims(el)?,
                None => return Err("fixed-size array member without its class layout".into()),
            };
            return Ok(Interpretation::Fixed { prim, dims });
        }
    }
    if (code::OFFSET_P + 1..code::OFFSET_P + 20).contains(&st) {
        if let Some(prim) = Prim::from_code(st - code::OFFSET_P, title) {
            return Ok(Interpretation::Jagged {
                prim,
                inner: vec![],
                header: Header::Flag,
            });
        }
    }
    if st == code::TSTRING {
        return Ok(Interpretation::Strings(Header::None));
    }
    // A counted array of objects (`T* x //[n]`): a byte count and version, then the
    // objects back to back to the entry's end.
    if let (code::STREAM_LOOP, Some(el)) = (st, element) {
        return Ok(Interpretation::Members {
            item: Compiler { streamers }.looped_item(el, 0)?,
            header: Header::Object,
        });
    }
    if st == code::CHAR_STAR {
        return Ok(Interpretation::Streamed(Nested::CharStar));
    }
    // An array of strings: a byte count and version, then the strings.
    if let Some(strings) = element.and_then(|el| Compiler { streamers }.string_array(el)) {
        return strings.map(Interpretation::Streamed);
    }
    // A `std::string` member is streamed as an object: a byte count and version first.
    let stl_string =
        |el: &Element| el.class == ElementClass::StlString || normalize(&el.type_name) == "string";
    if st == code::STL_STRING || (st == code::STL && element.is_some_and(stl_string)) {
        return Ok(Interpretation::Strings(Header::Object));
    }
    if st == code::STL || st == code::STL + 65 {
        if let Some(el) = element {
            return interpret_type(&el.type_name, -1, false, streamers);
        }
    }
    // An array of objects member (`TLorentzVector p[6]`): the objects one after the other.
    if let (true, Some(el)) = (
        matches!(st - code::OFFSET_L, code::OBJECT | code::ANY),
        element,
    ) {
        return Ok(Interpretation::Streamed(
            Compiler { streamers }.object_array(el, 0)?,
        ));
    }
    // A base class that is not split further: framed by a byte count and version.
    if let (0, Some(el)) = (st, element.filter(|el| el.class == ElementClass::Base)) {
        return Ok(Interpretation::Streamed(
            Compiler { streamers }.item(&el.name, 0)?,
        ));
    }
    // A pointer member: a null tag, or a class tag and the object (whose class must be
    // readable: a branch of one pointer is not read as a container that may be empty).
    if let (true, Some(el)) = (is_pointer(st), element) {
        let pointer = Compiler { streamers }.pointer(el, 0)?;
        if let Nested::Pointer(_, inner) = &pointer {
            let why = match &**inner {
                Nested::Unknown(class) => format!("the file does not describe class {class}"),
                Nested::Unreadable { why, .. } => why.clone(),
                _ => String::new(),
            };
            if !why.is_empty() {
                return Err(format!("member {} ({}): {why}", branch.name, el.type_name));
            }
        }
        return Ok(Interpretation::Streamed(pointer));
    }
    // An object member that is not split further: framed by a byte count and version.
    if let (true, Some(el)) = (streamed_in_place(st) || st == code::TNAMED, element) {
        return Ok(Interpretation::Streamed(
            Compiler { streamers }.item(&el.type_name, 0)?,
        ));
    }
    Err(format!(
        "member {} (streamer type {}) of class {} is not supported",
        branch.name, e.streamer_type, e.class_name
    ))
}

/// Whether streamer type `st` is an object streamed in place as its class streams
/// itself: an object member, or a pointer marked `//->` (never null, no class tag).
fn streamed_in_place(st: i32) -> bool {
    matches!(
        st,
        code::OBJECT | code::ANY | code::OBJECT_P_NOT_NULL | code::ANY_P
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_with_spaces_typedefs_and_default_arguments() {
        assert_eq!(
            normalize("std::vector< unsigned int >"),
            "vector<unsigned int>"
        );
        assert_eq!(
            normalize("vector<vector<unsigned long> >"),
            "vector<vector<unsigned long>>"
        );
        let streamers = StreamerSet::default();
        let nested = |t: &str| {
            Compiler {
                streamers: &streamers,
            }
            .item(t, 0)
            .ok()
        };
        let seq = |p| Some(Nested::Seq(Box::new(Nested::Prim(p))));
        for (t, p) in [
            ("vector<unsigned int>", Prim::U32),
            ("vector<unsigned char>", Prim::U8),
            ("vector<unsigned short>", Prim::U16),
            ("vector<unsigned long>", Prim::U64),
            ("vector<long long>", Prim::I64),
            ("vector<int8_t>", Prim::I8),
            ("vector<uint16_t>", Prim::U16),
            ("vector<uint32_t>", Prim::U32),
            ("std::vector<int, std::allocator<int> >", Prim::I32),
            ("set<unsigned int, less<unsigned int> >", Prim::U32),
        ] {
            assert_eq!(nested(&normalize(t)), seq(p), "{t}");
        }
        assert_eq!(
            nested(&normalize("vector<vector<unsigned int> >")),
            Some(Nested::Seq(Box::new(Nested::Seq(Box::new(Nested::Prim(
                Prim::U32
            ))))))
        );
    }

    fn leaf(title: &str, len: i64) -> Leaf {
        Leaf {
            class: "TLeafD".into(),
            name: "x".into(),
            title: title.into(),
            len,
            len_type: 8,
            is_unsigned: false,
            count: None,
            element_type: None,
        }
    }

    #[test]
    fn ranges_of_packed_floats_are_not_dimensions() {
        assert_eq!(title_dims("d[-2.71,10,32]"), Vec::<&str>::new());
        assert_eq!(title_dims("x[3][0,1,10]/d"), vec!["3"]);
        assert_eq!(title_dims("pt[nMuon]/F"), vec!["nMuon"]);
    }

    #[test]
    fn array_dimensions_from_the_file_are_bounded() {
        let ok = interpret_leaf(&leaf("x[3][2]", 6)).and_then(|i| {
            check_dims(match &i {
                Interpretation::Fixed { dims, .. } => dims,
                _ => unreachable!(),
            })
            .map(|_| i)
        });
        assert_eq!(
            ok,
            Ok(Interpretation::Fixed {
                prim: Prim::F64,
                dims: vec![3, 2]
            })
        );
        // Dimensions whose product overflows, is zero, or is absurdly large; a huge
        // length where the title gives no dimensions.
        for (title, len) in [
            ("x[4294967296][4294967296]", 1),
            ("x[0]", 1),
            ("x[100000][100000]", 1),
            ("x", i64::MAX),
        ] {
            let checked = interpret_leaf(&leaf(title, len)).and_then(|i| match &i {
                Interpretation::Fixed { dims, .. } => check_dims(dims),
                _ => Ok(()),
            });
            assert!(checked.is_err(), "{title} {len}");
        }
    }
}

#[cfg(test)]
mod leaf_list_tests {
    use super::*;

    fn leaf(class: &str, name: &str, title: &str, count: Option<&str>) -> Leaf {
        Leaf {
            class: class.into(),
            name: name.into(),
            title: title.into(),
            len: 1,
            len_type: 4,
            is_unsigned: false,
            count: count.map(String::from),
            element_type: None,
        }
    }

    #[test]
    fn variable_size_leaves_of_a_list_name_their_counter() {
        let n = leaf("TLeafI", "n", "n", None);
        let px = leaf("TLeafF", "px", "px[n]", Some("n"));
        let m = leaf("TLeafS", "m", "m[n][2]", Some("n"));
        let Ok(Interpretation::Record(list)) = leaf_list(&[n.clone(), px.clone(), m]) else {
            panic!("a record")
        };
        assert_eq!(list[1].count, Some(LeafCount::Earlier(0)));
        assert_eq!(
            (list[2].count.clone(), list[2].dims.clone()),
            (Some(LeafCount::Earlier(0)), vec![2])
        );
        // A counter in another branch.
        let ex = leaf("TLeafD", "ex", "ex[cnt]", Some("cnt"));
        let Ok(Interpretation::Record(list)) = leaf_list(&[ex.clone(), n.clone()]) else {
            panic!("a record")
        };
        assert_eq!(list[0].count, Some(LeafCount::Elsewhere("cnt".into())));
        // Counts ROOT itself cannot read back: a counter after its leaf, a float counter,
        // counters elsewhere mixed with counters in the list.
        let e = leaf_list(&[px.clone(), n.clone()]).unwrap_err();
        assert!(e.contains("comes after it"), "{e}");
        let f = leaf("TLeafF", "n", "n", None);
        let e = leaf_list(&[f, px.clone()]).unwrap_err();
        assert!(e.contains("not an integer"), "{e}");
        let e = leaf_list(&[n, px, ex]).unwrap_err();
        assert!(e.contains("another branch"), "{e}");
    }
}
