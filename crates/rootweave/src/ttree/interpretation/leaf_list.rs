//! Leaf lists (`"n/I:px[n]/F:q/D"`): several leaves in one branch, an entry their values one
//! after the other. A variable-size leaf holds as many items as a leaf counts: an earlier
//! one of the same list (read from the entry itself), or a leaf of another branch (then the
//! entry's size tells the number).

use std::ops::Range;

use super::decode::{check_offsets, entry_bytes, wrap_fixed, DecodeError};
use super::Prim;
use crate::array::Array;

/// One leaf of a leaf list.
#[derive(Debug, Clone, PartialEq)]
pub struct ListLeaf {
    /// The leaf's name (a member of the branch's records).
    pub name: String,
    /// The value type.
    pub prim: Prim,
    /// Fixed dimensions: of the leaf's value, or of each item of a variable-size leaf.
    pub dims: Vec<usize>,
    /// Where a variable-size leaf's number of items comes from (`None`: a fixed size).
    pub count: Option<LeafCount>,
}

/// Where a variable-size leaf of a leaf list (`px[n]/F`) gets its number of items per entry.
#[derive(Debug, Clone, PartialEq)]
pub enum LeafCount {
    /// An earlier leaf of the same list, by its position there (an integer scalar).
    Earlier(usize),
    /// A leaf of another branch, by name. The entry's byte size tells the number; every
    /// variable-size leaf of such a list has that same counter.
    Elsewhere(String),
}

impl ListLeaf {
    /// A leaf of a fixed size.
    pub fn fixed(name: impl Into<String>, prim: Prim, dims: Vec<usize>) -> ListLeaf {
        ListLeaf {
            name: name.into(),
            prim,
            dims,
            count: None,
        }
    }

    /// Bytes of the value (or of one item, for a variable-size leaf).
    pub fn width(&self) -> usize {
        self.prim.size() * self.dims.iter().product::<usize>()
    }
}

/// Bytes per entry of a leaf list whose leaves all have fixed sizes.
pub(super) fn entry_size(leaves: &[ListLeaf]) -> Option<usize> {
    leaves
        .iter()
        .all(|l| l.count.is_none())
        .then(|| leaves.iter().map(ListLeaf::width).sum())
}

/// The integer value of a counter leaf's big-endian bytes (`None`: not an integer scalar,
/// or too few bytes).
fn count_value(prim: Prim, bytes: &[u8]) -> Option<i64> {
    let signed = match prim {
        Prim::I8 | Prim::I16 | Prim::I32 | Prim::I64 => true,
        Prim::Bool | Prim::U8 | Prim::U16 | Prim::U32 | Prim::U64 => false,
        _ => return None,
    };
    let raw = bytes.get(..prim.size())?;
    let shift = 64 - 8 * raw.len() as u32;
    let value = raw.iter().fold(0u64, |v, &b| v << 8 | u64::from(b)) << shift;
    // The value in the top bits, shifted back down with its sign where it has one.
    Some(match signed {
        true => (value as i64) >> shift,
        false => (value >> shift) as i64,
    })
}

/// The leaves' values gathered entry after entry.
struct Gathered {
    /// Per leaf: its values' bytes and, for a variable-size leaf, its item offsets.
    leaves: Vec<(Vec<u8>, Option<Vec<u64>>)>,
}

impl Gathered {
    fn new(leaves: &[ListLeaf]) -> Gathered {
        Gathered {
            leaves: leaves
                .iter()
                .map(|l| (Vec::new(), l.count.as_ref().map(|_| vec![0u64])))
                .collect(),
        }
    }

    /// Walks one entry from the start of `bytes`, gathering its values; the bytes it spans.
    /// `size` is the entry's size where the basket records it (needed by counts from
    /// elsewhere).
    fn entry(
        &mut self,
        leaves: &[ListLeaf],
        bytes: &[u8],
        size: Option<usize>,
    ) -> Result<usize, String> {
        let mut at = 0usize;
        let mut starts = Vec::with_capacity(leaves.len());
        let elsewhere = items_from_size(leaves, size)?;
        for (k, leaf) in leaves.iter().enumerate() {
            let items = match &leaf.count {
                None => 1,
                Some(LeafCount::Elsewhere(_)) => elsewhere,
                Some(LeafCount::Earlier(j)) => {
                    let counter: &ListLeaf = &leaves[*j];
                    let n = bytes
                        .get(starts[*j]..)
                        .and_then(|b| count_value(counter.prim, b))
                        .ok_or_else(|| {
                            format!("leaf {} is not an integer counter", counter.name)
                        })?;
                    usize::try_from(n).map_err(|_| {
                        format!(
                            "leaf {} counts {n} items of leaf {}",
                            counter.name, leaf.name
                        )
                    })?
                }
            };
            let width = items
                .checked_mul(leaf.width())
                .ok_or_else(|| format!("leaf {}: {items} items overflow", leaf.name))?;
            let value = at
                .checked_add(width)
                .and_then(|end| bytes.get(at..end))
                .ok_or_else(|| {
                    format!(
                        "leaf {} needs {width} bytes at byte {at}, the entry has {}",
                        leaf.name,
                        size.unwrap_or(bytes.len())
                    )
                })?;
            let (values, offsets) = &mut self.leaves[k];
            values.extend_from_slice(value);
            if let Some(offsets) = offsets {
                let last = *offsets.last().expect("starts at 0");
                offsets.push(last + items as u64);
            }
            starts.push(at);
            at += width;
        }
        Ok(at)
    }

    fn finish(self, leaves: &[ListLeaf], len: usize) -> Array {
        let fields = leaves
            .iter()
            .zip(self.leaves)
            .map(|(leaf, (bytes, offsets))| {
                let values = wrap_fixed(leaf.prim.decode(&bytes), &leaf.dims);
                let array = match offsets {
                    Some(offsets) => Array::List {
                        offsets,
                        values: Box::new(values),
                    },
                    None => values,
                };
                (leaf.name.clone(), array)
            })
            .collect();
        Array::Record { len, fields }
    }
}

/// The number of items of the leaves counted elsewhere in an entry of `size` bytes (0 if
/// there are none).
fn items_from_size(leaves: &[ListLeaf], size: Option<usize>) -> Result<usize, String> {
    let counted: usize = leaves
        .iter()
        .filter(|l| matches!(l.count, Some(LeafCount::Elsewhere(_))))
        .map(ListLeaf::width)
        .sum();
    if counted == 0 {
        return Ok(0);
    }
    let size = size.ok_or("leaves counted by another branch need the basket's entry offsets")?;
    let fixed: usize = leaves
        .iter()
        .filter(|l| l.count.is_none())
        .map(ListLeaf::width)
        .sum();
    match size.checked_sub(fixed) {
        Some(rest) if rest % counted == 0 => Ok(rest / counted),
        _ => Err(format!(
            "{size} bytes are not {fixed} bytes of fixed-size leaves and whole items of \
             {counted} bytes"
        )),
    }
}

/// Decodes entries `range` of a basket of a leaf list with variable-size leaves: a record
/// per entry, variable-size leaves as lists. Entries are walked from the basket's start
/// where it records no entry offsets.
pub(super) fn decode(
    leaves: &[ListLeaf],
    data: &[u8],
    offsets: Option<&[usize]>,
    range: Range<usize>,
) -> Result<Array, DecodeError> {
    let mut gathered = Gathered::new(leaves);
    match offsets {
        Some(offsets) => {
            check_offsets(offsets, &range)?;
            for i in range.clone() {
                let bytes = entry_bytes(data, offsets, i)?;
                let used = gathered
                    .entry(leaves, bytes, Some(bytes.len()))
                    .map_err(|e| format!("entry {i}: {e}"))?;
                if used != bytes.len() {
                    return Err(format!(
                        "entry {i}: the leaves take {used} of its {} bytes",
                        bytes.len()
                    ));
                }
            }
        }
        None => {
            // Without offsets every entry is walked, also those before the range.
            let mut skipped = Gathered::new(leaves);
            let mut at = 0usize;
            for i in 0..range.end {
                let into = if i < range.start {
                    &mut skipped
                } else {
                    &mut gathered
                };
                let rest = data.get(at..).unwrap_or(&[]);
                at += into
                    .entry(leaves, rest, None)
                    .map_err(|e| format!("entry {i}: {e}"))?;
            }
        }
    }
    Ok(gathered.finish(leaves, range.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list() -> Vec<ListLeaf> {
        vec![
            ListLeaf::fixed("n", Prim::I32, vec![]),
            ListLeaf {
                name: "px".into(),
                prim: Prim::F32,
                dims: vec![],
                count: Some(LeafCount::Earlier(0)),
            },
            ListLeaf {
                name: "m".into(),
                prim: Prim::I16,
                dims: vec![2],
                count: Some(LeafCount::Earlier(0)),
            },
            ListLeaf::fixed("q", Prim::F64, vec![]),
        ]
    }

    /// An entry of `list()`: `n`, `n` floats, `n` pairs of shorts, a double.
    fn entry(n: i32, q: f64) -> Vec<u8> {
        let mut b = n.to_be_bytes().to_vec();
        for k in 0..n {
            b.extend((k as f32 + 0.5).to_be_bytes());
        }
        for k in 0..n * 2 {
            b.extend((k as i16 - 3).to_be_bytes());
        }
        b.extend(q.to_be_bytes());
        b
    }

    fn basket(ns: &[i32]) -> (Vec<u8>, Vec<usize>) {
        let mut data = Vec::new();
        let mut offsets = vec![0];
        for (e, &n) in ns.iter().enumerate() {
            data.extend(entry(n, e as f64 * 2.0));
            offsets.push(data.len());
        }
        (data, offsets)
    }

    fn field<'a>(a: &'a Array, name: &str) -> &'a Array {
        let Array::Record { fields, .. } = a else {
            panic!("a record: {a:?}")
        };
        &fields.iter().find(|(n, _)| n == name).expect("field").1
    }

    #[test]
    fn variable_size_leaves_follow_their_counter() {
        let (data, offsets) = basket(&[2, 0, 3]);
        let leaves = list();
        assert_eq!(entry_size(&leaves), None);
        for offsets in [Some(offsets.as_slice()), None] {
            let a = decode(&leaves, &data, offsets, 1..3).unwrap();
            assert_eq!(a.len(), 2);
            assert_eq!(field(&a, "n"), &Array::Int32(vec![0, 3]));
            assert_eq!(
                field(&a, "px"),
                &Array::List {
                    offsets: vec![0, 0, 3],
                    values: Box::new(Array::Float32(vec![0.5, 1.5, 2.5])),
                }
            );
            let Array::List { offsets, values } = field(&a, "m") else {
                panic!("a list")
            };
            assert_eq!(offsets, &vec![0, 0, 3]);
            assert_eq!(
                **values,
                wrap_fixed(Array::Int16(vec![-3, -2, -1, 0, 1, 2]), &[2])
            );
            assert_eq!(field(&a, "q"), &Array::Float64(vec![2.0, 4.0]));
        }
    }

    #[test]
    fn counters_of_every_integer_width() {
        assert_eq!(count_value(Prim::I16, &[0xff, 0xfe]), Some(-2));
        assert_eq!(count_value(Prim::U16, &[0xff, 0xfe]), Some(65534));
        assert_eq!(count_value(Prim::I8, &[0x80]), Some(-128));
        assert_eq!(count_value(Prim::U32, &[0, 0, 1, 2, 9]), Some(258));
        assert_eq!(count_value(Prim::I64, &[0, 0, 0, 0, 0, 0, 0, 7]), Some(7));
        assert_eq!(count_value(Prim::I32, &[0, 0, 1]), None);
        assert_eq!(count_value(Prim::F32, &[0, 0, 0, 1]), None);
    }

    #[test]
    fn counts_from_another_branch_come_from_the_entry_size() {
        let leaves = vec![
            ListLeaf {
                name: "x".into(),
                prim: Prim::F64,
                dims: vec![],
                count: Some(LeafCount::Elsewhere("cnt".into())),
            },
            ListLeaf::fixed("k", Prim::U8, vec![]),
        ];
        let mut data = Vec::new();
        for v in [1.0f64, 2.0] {
            data.extend(v.to_be_bytes());
        }
        data.push(7);
        data.push(9);
        let a = decode(&leaves, &data, Some(&[0, 17, 18]), 0..2).unwrap();
        assert_eq!(
            field(&a, "x"),
            &Array::List {
                offsets: vec![0, 2, 2],
                values: Box::new(Array::Float64(vec![1.0, 2.0])),
            }
        );
        assert_eq!(field(&a, "k"), &Array::UInt8(vec![7, 9]));
        // 16 bytes are not one byte and whole doubles.
        assert!(decode(&leaves, &data, Some(&[0, 16, 18]), 0..1).is_err());
        // Without entry offsets the count cannot be known.
        assert!(decode(&leaves, &data, None, 0..1).is_err());
    }

    #[test]
    fn bad_counts_and_short_entries_are_errors_not_misreads() {
        let leaves = list();
        // A negative count.
        let mut bad = entry(1, 0.0);
        bad[..4].copy_from_slice(&(-1i32).to_be_bytes());
        let e = decode(&leaves, &bad, Some(&[0, bad.len()]), 0..1).unwrap_err();
        assert!(e.contains("counts -1 items"), "{e}");
        // A count beyond the entry.
        let mut big = entry(1, 0.0);
        big[..4].copy_from_slice(&i32::MAX.to_be_bytes());
        let e = decode(&leaves, &big, Some(&[0, big.len()]), 0..1).unwrap_err();
        assert!(e.contains("leaf px needs"), "{e}");
        let e = decode(&leaves, &big, None, 0..1).unwrap_err();
        assert!(e.contains("entry 0: leaf px needs"), "{e}");
        // Bytes left over in an entry.
        let (mut data, _) = basket(&[1]);
        data.push(0);
        let e = decode(&leaves, &data, Some(&[0, data.len()]), 0..1).unwrap_err();
        assert!(e.contains("take 20 of its 21 bytes"), "{e}");
    }
}
