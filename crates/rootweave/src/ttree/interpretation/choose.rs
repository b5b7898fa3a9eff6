//! Choosing a branch's [`Interpretation`] from its leaves, its `TBranchElement`
//! members and the file's class layouts; a branch that cannot be read gets the reason.

use super::{Header, Interpretation, Nested, Packed, Prim};
use crate::ttree::model::{code, Branch, Element, ElementClass, Leaf, StreamerSet};

/// The dimensions in a leaf title (`x[3][2]` -> `["3", "2"]`, `pt[nMuon]` -> `["nMuon"]`).
pub fn title_dims(title: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = title.split('/').next().unwrap_or("");
    while let Some(a) = rest.find('[') {
        let Some(b) = rest[a..].find(']') else { break };
        out.push(rest[a + 1..a + b].trim());
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
fn check_dims(dims: &[usize]) -> Result<(), String> {
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
        Interpretation::Record(fields) => {
            for (_, _, dims) in fields {
                check_dims(dims)?;
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
    match branch.leaves.as_slice() {
        [] => Err("the branch has no leaves (it holds no data of its own)".into()),
        [leaf] => interpret_leaf(leaf),
        leaves => {
            let mut fields = Vec::with_capacity(leaves.len());
            for leaf in leaves {
                match interpret_leaf(leaf)? {
                    Interpretation::Fixed { prim, dims } => {
                        fields.push((leaf.name.clone(), prim, dims))
                    }
                    _ => {
                        return Err(format!(
                            "leaf list with the variable-size leaf {} is not supported",
                            leaf.name
                        ))
                    }
                }
            }
            Ok(Interpretation::Record(fields))
        }
    }
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

/// Strips `std::` and spaces from a C++ type name.
fn normalize(name: &str) -> String {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let mut out = String::with_capacity(name.len());
    let mut space = false;
    for c in name.replace("std::", "").chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        // A space stays only between two words (`unsigned int`), as ROOT writes names.
        if space && is_word(c) && out.chars().last().is_some_and(is_word) {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

/// Splits `name<args>` into `name` and `args`.
fn template(t: &str) -> Option<(&str, &str)> {
    let open = t.find('<')?;
    let inner = t[open + 1..].strip_suffix('>')?;
    Some((&t[..open], inner))
}

/// The item type of an STL sequence or a string (`vector<set<int>>` -> sequences of
/// sequences of int32).
fn nested(t: &str) -> Option<Nested> {
    if t == "string" || t == "TString" {
        return Some(Nested::Str);
    }
    if let Some(p) = Prim::from_type_name(t) {
        return Some(Nested::Prim(p));
    }
    let (name, inner) = template(t)?;
    match name {
        "vector" | "set" | "multiset" | "list" | "deque" | "unordered_set"
        | "unordered_multiset" | "ROOT::VecOps::RVec" | "ROOT::RVec" => {
            // The item type; default arguments (allocators, comparators) follow it.
            let item = template_args(inner).first().copied()?;
            Some(Nested::Seq(Box::new(nested(item.trim())?)))
        }
        _ => None,
    }
}

/// The top-level template arguments of `args` (`int,vector<short>` -> `int`,
/// `vector<short>`).
fn template_args(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in args.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&args[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&args[start..]);
    out
}

/// Whether a block of map keys or values of type `t` is preceded by a byte count and a
/// version: STL types (`std::string` and containers) are, numbers and `TString` are not.
fn stl_block(t: &str) -> bool {
    t == "string" || template(t).is_some()
}

/// The interpretation of an STL map (`map<K,V>` and the like), if `t` is one.
fn interpret_map(t: &str) -> Option<Result<Interpretation, String>> {
    let (name, args) = template(t)?;
    if !matches!(
        name,
        "map" | "multimap" | "unordered_map" | "unordered_multimap"
    ) {
        return None;
    }
    let args = template_args(args);
    let [key, value, ..] = args.as_slice() else {
        return Some(Err(format!("map type {t} without key and value types")));
    };
    Some(match (nested(key), nested(value)) {
        (Some(k), Some(v)) => Ok(Interpretation::Map {
            key: k,
            value: v,
            key_header: stl_block(key),
            value_header: stl_block(value),
        }),
        _ => Err(format!("maps of type {t} are not supported")),
    })
}

/// The interpretation of a whole object of C++ type `ty` in a basket entry (a top-level
/// unsplit branch, or an STL member of a split class).
/// `version` is the class version of a top-level object (any, for a member: -1).
fn interpret_type(
    ty: &str,
    version: i32,
    streamers: &StreamerSet,
) -> Result<Interpretation, String> {
    let t = normalize(ty);
    if let Some(map) = interpret_map(&t) {
        return map;
    }
    match nested(&t) {
        Some(Nested::Str) => Ok(Interpretation::Strings(Header::None)),
        Some(Nested::Seq(item)) => Ok(match *item {
            Nested::Prim(prim) => Interpretation::Jagged {
                prim,
                inner: vec![],
                header: Header::Vector,
            },
            other => Interpretation::Sequence(other),
        }),
        _ => flat_class(ty, version, streamers)
            .ok_or_else(|| format!("objects of type {ty} are not supported")),
    }
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
                array_dims(el),
            ),
        };
        fields.push((el.name.clone(), prim, dims));
    }
    (!fields.is_empty()).then_some(Interpretation::Record(fields))
}

/// The dimensions of a fixed-size array member.
fn array_dims(el: &Element) -> Vec<usize> {
    el.max_index[..el.array_dim.clamp(0, 5) as usize]
        .iter()
        .map(|&d| d.max(0) as usize)
        .collect()
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
                        inner: array_dims(el),
                        header: Header::None,
                    });
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
            if st == code::STL || st == code::STL_STRING {
                if let Some(item) = element.and_then(|el| nested(&normalize(&el.type_name))) {
                    return Ok(Interpretation::Members {
                        item,
                        header: Header::Object,
                    });
                }
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
        return interpret_type(&e.class_name, e.class_version as i32, streamers);
    }
    let st = e.streamer_type as i32;
    if let Some(prim) = Prim::from_code(st, title) {
        return Ok(Interpretation::Fixed { prim, dims: vec![] });
    }
    if (code::OFFSET_L + 1..code::OFFSET_L + 20).contains(&st) {
        if let Some(prim) = Prim::from_code(st - code::OFFSET_L, title) {
            let dims: Vec<usize> = match element {
                Some(el) => array_dims(el),
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
    // A `std::string` member is streamed as an object: a byte count and version first.
    let stl_string =
        |el: &Element| el.class == ElementClass::StlString || normalize(&el.type_name) == "string";
    if st == code::STL_STRING || (st == code::STL && element.is_some_and(stl_string)) {
        return Ok(Interpretation::Strings(Header::Object));
    }
    if st == code::STL || st == code::STL + 65 {
        if let Some(el) = element {
            return interpret_type(&el.type_name, -1, streamers);
        }
    }
    Err(format!(
        "member {} (streamer type {}) of class {} is not supported",
        branch.name, e.streamer_type, e.class_name
    ))
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
