//! Decoding a basket's entries by their [`Interpretation`].

use std::ops::Range;

use super::builder::{Builder, Reader, MEMBERWISE};
use super::{Header, Interpretation};
use crate::array::Array;

/// Why an entry's bytes do not decode (the caller adds file, branch and basket).
pub(crate) type DecodeError = String;

impl Interpretation {
    /// Bytes per entry, if every entry has the same size.
    pub fn entry_size(&self) -> Option<usize> {
        match self {
            Interpretation::Fixed { prim, dims } => {
                Some(prim.size() * dims.iter().product::<usize>())
            }
            Interpretation::Record(leaves) => super::leaf_list::entry_size(leaves),
            _ => None,
        }
    }

    /// A short description of the resulting type (`float32`, `var * float32`, ...).
    pub fn describe(&self) -> String {
        let dims = |d: &[usize]| d.iter().map(|n| format!("{n} * ")).collect::<String>();
        match self {
            Interpretation::Fixed { prim, dims: d } => format!("{}{}", dims(d), prim.name()),
            Interpretation::Jagged { prim, inner, .. } => {
                format!("var * {}{}", dims(inner), prim.name())
            }
            Interpretation::Strings(_) => "string".into(),
            Interpretation::Members { item, .. } => format!("var * {}", item.describe()),
            Interpretation::CountedMembers { prim, .. } => format!("var * var * {}", prim.name()),
            Interpretation::Group(children) => format!("group of {} sub-branches", children.len()),
            Interpretation::Streamed(n) => n.describe(),
            Interpretation::Record(fields) => format!(
                "{{{}}}",
                fields
                    .iter()
                    .map(|l| format!(
                        "{}: {}{}{}",
                        l.name,
                        if l.count.is_some() { "var * " } else { "" },
                        dims(&l.dims),
                        l.prim.name()
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// Decodes entries `range` of a basket whose data part is `data` and whose entry
    /// `i` spans `offsets[i]..offsets[i + 1]` of it (variable-size entries only).
    pub(crate) fn decode(
        &self,
        data: &[u8],
        offsets: Option<&[usize]>,
        range: Range<usize>,
    ) -> Result<Array, DecodeError> {
        if let Some(size) = self.entry_size() {
            let (from, to) = match (range.start.checked_mul(size), range.end.checked_mul(size)) {
                (Some(from), Some(to)) => (from, to),
                _ => return Err(format!("entries {range:?} of {size} bytes overflow")),
            };
            // A basket that records where entries start must agree that each is `size`
            // bytes (an object streamed with a header per entry would not).
            if let Some(offsets) = offsets.filter(|o| o.len() > range.end) {
                if offsets[range.start] != from || offsets[range.end] != to {
                    return Err(format!(
                        "entries {}..{} span bytes {}..{}, not {size} bytes each",
                        range.start, range.end, offsets[range.start], offsets[range.end]
                    ));
                }
            }
            let bytes = data.get(from..to).ok_or_else(|| {
                format!(
                    "entries {}..{} of {size} bytes need {to} bytes, the basket holds {}",
                    range.start,
                    range.end,
                    data.len()
                )
            })?;
            return Ok(match self {
                Interpretation::Fixed { prim, dims } => wrap_fixed(prim.decode(bytes), dims),
                Interpretation::Record(leaves) => {
                    let n = range.len();
                    let mut at = 0usize;
                    let mut out = Vec::with_capacity(leaves.len());
                    for leaf in leaves {
                        let (name, prim, dims) = (&leaf.name, &leaf.prim, &leaf.dims);
                        let width = leaf.width();
                        let mut gathered = Vec::with_capacity(width * n);
                        for e in 0..n {
                            gathered
                                .extend_from_slice(&bytes[e * size + at..e * size + at + width]);
                        }
                        out.push((name.clone(), wrap_fixed(prim.decode(&gathered), dims)));
                        at += width;
                    }
                    Array::Record {
                        len: n,
                        fields: out,
                    }
                }
                _ => unreachable!("fixed-size interpretations"),
            });
        }
        if let Interpretation::Record(leaves) = self {
            return super::leaf_list::decode(leaves, data, offsets, range);
        }
        let found;
        let offsets = match offsets {
            Some(offsets) => offsets,
            None => {
                found = self.entry_starts(data, range.end)?;
                &found
            }
        };
        check_offsets(offsets, &range)?;
        let entry = |i: usize| entry_bytes(data, offsets, i);
        match self {
            Interpretation::Jagged {
                prim,
                inner,
                header,
            } => {
                let item = prim.size() * inner.iter().product::<usize>();
                let mut out_offsets = Vec::with_capacity(range.len() + 1);
                out_offsets.push(0u64);
                let mut total = 0u64;
                let mut values: Vec<u8> = Vec::new();
                let contiguous = *header == Header::None;
                for i in range.clone() {
                    let bytes = entry(i)?;
                    let body = match header {
                        Header::None => bytes,
                        Header::Flag => bytes.get(1..).unwrap_or(&[]),
                        Header::Object => object_header(bytes)?,
                        Header::Vector => {
                            let (n, rest) = vector_header(bytes)?;
                            if n.checked_mul(item) != Some(rest.len()) {
                                return Err(format!(
                                    "entry {i}: a vector of {n} items of {item} bytes in {} bytes",
                                    rest.len()
                                ));
                            }
                            rest
                        }
                    };
                    if item == 0 || body.len() % item != 0 {
                        return Err(format!(
                            "entry {i}: {} bytes are not a whole number of {item}-byte items",
                            body.len()
                        ));
                    }
                    total += (body.len() / item) as u64;
                    out_offsets.push(total);
                    if !contiguous {
                        values.extend_from_slice(body);
                    }
                }
                let values = if contiguous {
                    let (a, b) = (offsets[range.start], offsets[range.end]);
                    prim.decode(&data[a..b])
                } else {
                    prim.decode(&values)
                };
                Ok(Array::List {
                    offsets: out_offsets,
                    values: Box::new(wrap_fixed(values, inner)),
                })
            }
            Interpretation::Strings(header) => {
                let mut offsets_out = vec![0u64];
                let mut bytes_out = Vec::new();
                for i in range {
                    let bytes =
                        strip_header(entry(i)?, *header).map_err(|e| format!("entry {i}: {e}"))?;
                    let mut r = Reader(bytes);
                    let s = r.string().map_err(|e| format!("entry {i}: {e}"))?;
                    bytes_out.extend_from_slice(s);
                    offsets_out.push(bytes_out.len() as u64);
                }
                Ok(Array::String {
                    offsets: offsets_out,
                    bytes: bytes_out,
                })
            }
            Interpretation::Members { item, header } => {
                let mut values = Builder::new(item);
                let mut offsets_out = vec![0u64];
                for i in range {
                    let e = |m: String| format!("entry {i}: {m}");
                    let bytes = entry(i)?;
                    if *header == Header::Object && is_memberwise(bytes) {
                        let mut r = Reader(bytes);
                        let (_, end) = r.frame().map_err(e)?;
                        if end != Some(0) {
                            return Err(e("a byte count that does not span the entry".into()));
                        }
                        values.memberwise_per_item(&mut r).map_err(e)?;
                    } else {
                        let mut r = Reader(strip_header(bytes, *header).map_err(e)?);
                        // Every value takes at least one byte: the loop ends.
                        while !r.0.is_empty() {
                            values.item(&mut r).map_err(e)?;
                        }
                    }
                    offsets_out.push(values.len());
                }
                Ok(Array::List {
                    offsets: offsets_out,
                    values: Box::new(values.finish()),
                })
            }
            Interpretation::CountedMembers { counter, .. } => Err(format!(
                "needs the values of its counter branch '{counter}'"
            )),
            Interpretation::Group(_) => {
                Err("a group of sub-branches is read through its sub-branches".into())
            }
            Interpretation::Streamed(layout) => {
                let mut values = Builder::new(layout);
                for i in range {
                    let e = |m: String| format!("entry {i}: {m}");
                    let mut r = Reader(entry(i)?);
                    values.item(&mut r).map_err(e)?;
                    if !r.0.is_empty() {
                        return Err(e(format!("{} bytes left after the value", r.0.len())));
                    }
                }
                Ok(values.finish())
            }
            Interpretation::Fixed { .. } | Interpretation::Record(_) => {
                unreachable!("fixed-size interpretations and leaf lists, decoded above")
            }
        }
    }
}

impl Interpretation {
    /// Where the first `entries` entries of a basket without entry offsets start (and
    /// where the last ends), for entries that delimit themselves: strings, each a length
    /// and its bytes (`char*` leaves of files that kept no offsets).
    fn entry_starts(&self, data: &[u8], entries: usize) -> Result<Vec<usize>, DecodeError> {
        if *self != Interpretation::Strings(Header::None) {
            return Err("variable-size entries but the basket has no entry offsets".into());
        }
        let mut r = Reader(data);
        let mut starts = Vec::with_capacity(entries.min(data.len()) + 1);
        starts.push(0);
        for i in 0..entries {
            r.string().map_err(|e| format!("entry {i}: {e}"))?;
            starts.push(data.len() - r.0.len());
        }
        Ok(starts)
    }
}

/// Checks that `offsets` say where every entry of `range` ends.
pub(super) fn check_offsets(offsets: &[usize], range: &Range<usize>) -> Result<(), DecodeError> {
    if range.end >= offsets.len() {
        return Err(format!(
            "entry {} but the basket has {} entry offsets",
            range.end,
            offsets.len()
        ));
    }
    Ok(())
}

/// The bytes of entry `i` of a basket's `data`, which `offsets` delimit (checked).
pub(super) fn entry_bytes<'a>(
    data: &'a [u8],
    offsets: &[usize],
    i: usize,
) -> Result<&'a [u8], DecodeError> {
    let (a, b) = (offsets[i], offsets[i + 1]);
    if a > b || b > data.len() {
        return Err(format!(
            "entry {i} spans bytes {a}..{b} of a {}-byte basket",
            data.len()
        ));
    }
    Ok(&data[a..b])
}

/// The bytes after a byte count and a version that must span all of `bytes` (an error for
/// a version with the memberwise bit: what follows is not the objects one after the other).
fn object_header(bytes: &[u8]) -> Result<&[u8], DecodeError> {
    let mut r = Reader(bytes);
    match r.frame()? {
        (version, _) if version & MEMBERWISE != 0 => {
            Err("objects streamed memberwise here are not supported".into())
        }
        (_, Some(0)) => Ok(r.0),
        (_, Some(left)) => Err(format!(
            "an object's byte count leaves {left} of its {} bytes",
            bytes.len()
        )),
        (_, None) => Err("no byte count in front of an object".into()),
    }
}

/// Whether an entry starts with a byte count and a version with the memberwise bit.
fn is_memberwise(bytes: &[u8]) -> bool {
    let mut r = Reader(bytes);
    matches!(r.frame(), Ok((version, Some(_))) if version & MEMBERWISE != 0)
}

/// The bytes of an entry after its header ([`Header::None`] or [`Header::Object`]).
fn strip_header(bytes: &[u8], header: Header) -> Result<&[u8], DecodeError> {
    match header {
        Header::None => Ok(bytes),
        Header::Object => object_header(bytes),
        other => Err(format!("a {other:?} header in front of strings")),
    }
}

/// A byte count, a version and an `i32` length in front of a vector's items.
fn vector_header(bytes: &[u8]) -> Result<(usize, &[u8]), DecodeError> {
    let mut r = Reader(object_header(bytes)?);
    let n = r.count()?;
    Ok((n, r.0))
}

/// Wraps values into nested fixed-size arrays of `dims` (outermost first).
pub fn wrap_fixed(values: Array, dims: &[usize]) -> Array {
    dims.iter().rev().fold(values, |inner, &size| Array::Fixed {
        size,
        values: Box::new(inner),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ttree::interpretation::{ListLeaf, Nested, Prim};

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn maps() {
        // map<int,short> {1: 1, 2: 2} and map<string,TString> {"one": "ONE", "two": "TWO"}
        // as ROOT 6 streams them (memberwise).
        let ints = hex("4000001840090000fe3e6d8000000002000000010000000200010002");
        let m = Interpretation::Streamed(Nested::Map {
            key: Box::new(Nested::Prim(Prim::I32)),
            value: Box::new(Nested::Prim(Prim::I16)),
            key_header: false,
            value_header: false,
        });
        let a = m.decode(&ints, Some(&[0, ints.len()]), 0..1).unwrap();
        let Array::List { offsets, values } = a else {
            panic!("a list")
        };
        assert_eq!(offsets, vec![0, 2]);
        assert_eq!(
            *values,
            Array::Record {
                len: 2,
                fields: vec![
                    ("first".into(), Array::Int32(vec![1, 2])),
                    ("second".into(), Array::Int16(vec![1, 2])),
                ]
            }
        );
        let strings =
            hex("40000022400900009cb11ada000000024000000a0009036f6e650374776f034f4e450354574f");
        let m = Interpretation::Streamed(Nested::Map {
            key: Box::new(Nested::Str),
            value: Box::new(Nested::Str),
            key_header: true,
            value_header: false,
        });
        let a = m.decode(&strings, Some(&[0, strings.len()]), 0..1).unwrap();
        assert_eq!(a.len(), 1);
        // Truncated or with a wrong byte count: errors, not panics.
        for cut in 0..strings.len() {
            assert!(m.decode(&strings[..cut], Some(&[0, cut]), 0..1).is_err());
        }
        // map<string,vector<int> > streamed pair by pair (version 9 without the memberwise
        // bit), as ATLAS's auxiliary stores hold maps: each key and its value bare, in turn.
        // {"ab": [2, 2], "c": []}, then an empty map.
        let m = Interpretation::Streamed(Nested::Map {
            key: Box::new(Nested::Str),
            value: Box::new(Nested::Seq(Box::new(Nested::Prim(Prim::I32)))),
            key_header: true,
            value_header: true,
        });
        let mut pairs = hex("4000001b000900000002026162000000020000000200000002016300000000");
        pairs.extend(hex("40000006000900000000"));
        let a = m.decode(&pairs, Some(&[0, 31, pairs.len()]), 0..2).unwrap();
        let Array::List { offsets, values } = a else {
            panic!("a list")
        };
        assert_eq!(offsets, vec![0, 2, 2]);
        assert_eq!(
            *values,
            Array::Record {
                len: 2,
                fields: vec![
                    (
                        "first".into(),
                        Array::String {
                            offsets: vec![0, 2, 3],
                            bytes: b"abc".to_vec()
                        }
                    ),
                    (
                        "second".into(),
                        Array::List {
                            offsets: vec![0, 2, 2],
                            values: Box::new(Array::Int32(vec![2, 2]))
                        }
                    ),
                ]
            }
        );
        for cut in 0..31 {
            assert!(m.decode(&pairs[..cut], Some(&[0, cut]), 0..1).is_err());
        }
    }

    #[test]
    fn jagged_and_strings() {
        let data = [0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3];
        let offsets = [0usize, 0, 4, 12];
        let j = Interpretation::Jagged {
            prim: Prim::I32,
            inner: vec![],
            header: Header::None,
        };
        let a = j.decode(&data, Some(&offsets), 1..3).unwrap();
        assert_eq!(
            a,
            Array::List {
                offsets: vec![0, 1, 3],
                values: Box::new(Array::Int32(vec![1, 2, 3]))
            }
        );
        let s = [2, b'h', b'i', 0];
        let a = Interpretation::Strings(Header::None)
            .decode(&s, Some(&[0, 3, 4]), 0..2)
            .unwrap();
        assert_eq!(
            a,
            Array::String {
                offsets: vec![0, 2, 2],
                bytes: b"hi".to_vec()
            }
        );
        assert!(j.decode(&data, Some(&[0, 13]), 0..1).is_err());
    }

    #[test]
    fn strings_of_baskets_without_entry_offsets() {
        // `char*` leaves of a file that kept no entry offsets: each entry is its length
        // and bytes, so entries are found by walking them.
        let data = [2, b'a', b'b', 0, 3, b'x', b'y', b'z'];
        let s = Interpretation::Strings(Header::None);
        let a = s.decode(&data, None, 1..3).unwrap();
        assert_eq!(
            a,
            Array::String {
                offsets: vec![0, 0, 3],
                bytes: b"xyz".to_vec()
            }
        );
        assert!(s.decode(&data[..6], None, 0..3).is_err());
        // Other variable-size entries still need the offsets.
        let j = Interpretation::Jagged {
            prim: Prim::I32,
            inner: vec![],
            header: Header::None,
        };
        assert!(j.decode(&data, None, 0..1).is_err());
    }

    #[test]
    fn strings_after_an_object_header() {
        // `std::string` members: a byte count (0x40000000 | 6), a version, the string.
        let data = [0x40, 0, 0, 6, 0, 1, 3, b'a', b'b', b'c'];
        let s = Interpretation::Strings(Header::Object);
        let a = s.decode(&data, Some(&[0, 10]), 0..1).unwrap();
        assert_eq!(
            a,
            Array::String {
                offsets: vec![0, 3],
                bytes: b"abc".to_vec()
            }
        );
        // A byte count that disagrees with the entry, or no byte count at all.
        assert!(s.decode(&data[..9], Some(&[0, 9]), 0..1).is_err());
        assert!(Interpretation::Strings(Header::Object)
            .decode(&[3, b'a', b'b', b'c'], Some(&[0, 4]), 0..1)
            .is_err());
    }

    #[test]
    fn members_of_split_collection_items() {
        // Two entries: no items, then two items holding the vectors [7] and [8, 9].
        let mut data = vec![0x40, 0, 0, 2, 0, 10];
        data.extend([0x40, 0, 0, 22, 0, 10]);
        data.extend([0, 0, 0, 1, 0, 0, 0, 7]);
        data.extend([0, 0, 0, 2, 0, 0, 0, 8, 0, 0, 0, 9]);
        let m = Interpretation::Members {
            item: Nested::Seq(Box::new(Nested::Prim(Prim::I32))),
            header: Header::Object,
        };
        let offsets = [0usize, 6, data.len()];
        let a = m.decode(&data, Some(&offsets), 0..2).unwrap();
        assert_eq!(
            a,
            Array::List {
                offsets: vec![0, 0, 2],
                values: Box::new(Array::List {
                    offsets: vec![0, 1, 3],
                    values: Box::new(Array::Int32(vec![7, 8, 9]))
                })
            }
        );
        // A vector claiming more items than the entry holds.
        let mut bad = data.clone();
        bad[15] = 200;
        assert!(m.decode(&bad, Some(&offsets), 0..2).is_err());
        // The memberwise bit in the entry's version of a collection of numbers (only
        // objects are streamed memberwise): said so, not read as item counts.
        let mut memberwise = data.clone();
        memberwise[10] = 0x40;
        let e = m.decode(&memberwise, Some(&offsets), 0..2).unwrap_err();
        assert!(
            e.ends_with("an STL container streamed memberwise is not supported"),
            "{e}"
        );
        // TString members: strings back to back, no header.
        let t = Interpretation::Members {
            item: Nested::Str,
            header: Header::None,
        };
        let a = t
            .decode(&[1, b'x', 2, b'y', b'z'], Some(&[0, 0, 5]), 0..2)
            .unwrap();
        assert_eq!(a.len(), 2);
    }

    #[test]
    fn fixed_entries_must_agree_with_entry_offsets() {
        let rec = Interpretation::Record(vec![
            ListLeaf::fixed("a", Prim::F32, vec![]),
            ListLeaf::fixed("b", Prim::I16, vec![]),
        ]);
        let data = [0x3f, 0x80, 0, 0, 0, 5, 0x40, 0, 0, 0, 0, 6];
        let a = rec.decode(&data, Some(&[0, 6, 12]), 0..2).unwrap();
        assert_eq!(a.len(), 2);
        // Entries of 6 bytes that the basket says are laid out otherwise (a header per
        // entry): an error, never values read from the wrong bytes.
        assert!(rec.decode(&data, Some(&[0, 4, 12]), 1..2).is_err());
    }
}
