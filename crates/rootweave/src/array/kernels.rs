//! Array kernels: cutting out an entry range ([`slice`]), picking entries ([`take`]) and
//! joining arrays of one layout ([`concat`]), for every layout, nested ones included.
//! Readers use them to assemble a requested range from whole pages or baskets; datasets
//! to join the batches of several files.

use std::fmt;

use super::Array;

/// Why arrays cannot be joined: their layouts differ (kinds, fixed sizes or members).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutMismatch(pub String);

impl fmt::Display for LayoutMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LayoutMismatch {}

/// Applies `$body` (an expression in the values vector `$v`) to a flat array, giving a
/// flat array of the same kind; any other layout goes to `$rest => $other`.
macro_rules! on_flat {
    ($array:expr, |$v:ident| $body:expr, $rest:ident => $other:expr) => {
        match $array {
            Array::Bool($v) => Array::Bool($body),
            Array::Int8($v) => Array::Int8($body),
            Array::Int16($v) => Array::Int16($body),
            Array::Int32($v) => Array::Int32($body),
            Array::Int64($v) => Array::Int64($body),
            Array::UInt8($v) => Array::UInt8($body),
            Array::UInt16($v) => Array::UInt16($body),
            Array::UInt32($v) => Array::UInt32($body),
            Array::UInt64($v) => Array::UInt64($body),
            Array::Float32($v) => Array::Float32($body),
            Array::Float64($v) => Array::Float64($body),
            $rest => $other,
        }
    };
}

/// Entries `start..start + len` of an array; the array itself when that is all of it.
///
/// # Panics
/// If `start + len` exceeds the array's length.
pub fn slice(array: Array, start: usize, len: usize) -> Array {
    if start == 0 && len == array.len() {
        return array;
    }
    // Offsets of entries start..start+len rebased to 0, and the item range they span.
    fn rebase(offsets: &[u64], start: usize, len: usize) -> (Vec<u64>, usize, usize) {
        let base = offsets[start];
        let out = offsets[start..=start + len]
            .iter()
            .map(|o| o - base)
            .collect();
        (out, base as usize, (offsets[start + len] - base) as usize)
    }
    on_flat!(array, |v| v[start..start + len].to_vec(), other => match other {
        Array::String { offsets, bytes } => {
            let (offsets, from, n) = rebase(&offsets, start, len);
            Array::String { offsets, bytes: bytes[from..from + n].to_vec() }
        }
        Array::List { offsets, values } => {
            let (offsets, from, n) = rebase(&offsets, start, len);
            Array::List { offsets, values: Box::new(slice(*values, from, n)) }
        }
        Array::Optional { offsets, values } => {
            let (offsets, from, n) = rebase(&offsets, start, len);
            Array::Optional { offsets, values: Box::new(slice(*values, from, n)) }
        }
        Array::Fixed { size, values } => Array::Fixed {
            size,
            values: Box::new(slice(*values, start * size, len * size)),
        },
        Array::Record { fields, .. } => Array::Record {
            len,
            fields: fields.into_iter().map(|(n, a)| (n, slice(a, start, len))).collect(),
        },
        Array::Variant { tags, index, alternatives } => Array::Variant {
            tags: tags[start..start + len].to_vec(),
            index: index[start..start + len].to_vec(),
            alternatives,
        },
        _ => unreachable!("flat arrays are handled above"),
    })
}

/// The entries at `indices` (in that order, repeats allowed) of an array.
///
/// # Panics
/// If an index is not below the array's length.
pub fn take(array: &Array, indices: &[usize]) -> Array {
    // New offsets for the picked entries, and the items they hold, in order.
    fn pick(offsets: &[u64], indices: &[usize]) -> (Vec<u64>, Vec<usize>) {
        let mut out = Vec::with_capacity(indices.len() + 1);
        out.push(0u64);
        let mut items = Vec::new();
        for &i in indices {
            items.extend(offsets[i] as usize..offsets[i + 1] as usize);
            out.push(items.len() as u64);
        }
        (out, items)
    }
    on_flat!(array, |v| indices.iter().map(|&i| v[i]).collect(), other => match other {
        Array::String { offsets, bytes } => {
            let (offsets, items) = pick(offsets, indices);
            Array::String { offsets, bytes: items.into_iter().map(|i| bytes[i]).collect() }
        }
        Array::List { offsets, values } => {
            let (offsets, items) = pick(offsets, indices);
            Array::List { offsets, values: Box::new(take(values, &items)) }
        }
        Array::Optional { offsets, values } => {
            let (offsets, items) = pick(offsets, indices);
            Array::Optional { offsets, values: Box::new(take(values, &items)) }
        }
        Array::Fixed { size, values } => {
            let items: Vec<usize> = indices.iter().flat_map(|&i| i * size..(i + 1) * size).collect();
            Array::Fixed { size: *size, values: Box::new(take(values, &items)) }
        }
        Array::Record { fields, .. } => Array::Record {
            len: indices.len(),
            fields: fields.iter().map(|(n, a)| (n.clone(), take(a, indices))).collect(),
        },
        Array::Variant { tags, index, alternatives } => Array::Variant {
            tags: indices.iter().map(|&i| tags[i]).collect(),
            index: indices.iter().map(|&i| index[i]).collect(),
            alternatives: alternatives.clone(),
        },
        _ => unreachable!("flat arrays are handled above"),
    })
}

/// Joins arrays of one layout, in order, into one.
pub fn concat(mut parts: Vec<Array>) -> Result<Array, LayoutMismatch> {
    if parts.len() == 1 {
        return Ok(parts.pop().expect("one part"));
    }
    let Some(first) = parts.first() else {
        return Err(LayoutMismatch("nothing to join".into()));
    };
    let mismatch =
        |a: &Array, b: &Array| LayoutMismatch(format!("cannot join {} to {}", b.kind(), a.kind()));
    // Appends `o` (offsets of one part) rebased onto the end of `offsets`.
    fn extend_offsets(offsets: &mut Vec<u64>, o: &[u64]) {
        let base = *offsets.last().expect("offsets start with 0");
        offsets.extend(o.iter().skip(1).map(|x| x + base - o[0]));
    }
    let kind = first.clone_empty();
    // Every join allocates its result once, at its final size.
    let total: usize = parts.iter().map(Array::len).sum();
    macro_rules! join_flat {
        ($variant:ident) => {{
            let mut out = Vec::with_capacity(total);
            for p in parts {
                match p {
                    Array::$variant(v) => out.extend(v),
                    other => return Err(mismatch(&kind, &other)),
                }
            }
            Array::$variant(out)
        }};
    }
    Ok(match &kind {
        Array::Bool(_) => join_flat!(Bool),
        Array::Int8(_) => join_flat!(Int8),
        Array::Int16(_) => join_flat!(Int16),
        Array::Int32(_) => join_flat!(Int32),
        Array::Int64(_) => join_flat!(Int64),
        Array::UInt8(_) => join_flat!(UInt8),
        Array::UInt16(_) => join_flat!(UInt16),
        Array::UInt32(_) => join_flat!(UInt32),
        Array::UInt64(_) => join_flat!(UInt64),
        Array::Float32(_) => join_flat!(Float32),
        Array::Float64(_) => join_flat!(Float64),
        Array::String { .. } => {
            let chars = parts
                .iter()
                .map(|p| match p {
                    Array::String { offsets, .. } => {
                        (offsets[offsets.len() - 1] - offsets[0]) as usize
                    }
                    _ => 0,
                })
                .sum();
            let (mut offsets, mut bytes) =
                (Vec::with_capacity(total + 1), Vec::with_capacity(chars));
            offsets.push(0u64);
            for p in parts {
                let Array::String {
                    offsets: o,
                    bytes: b,
                } = p
                else {
                    return Err(mismatch(&kind, &p));
                };
                extend_offsets(&mut offsets, &o);
                bytes.extend_from_slice(&b[o[0] as usize..]);
            }
            Array::String { offsets, bytes }
        }
        Array::List { .. } | Array::Optional { .. } => {
            let (mut offsets, mut values) = (Vec::with_capacity(total + 1), Vec::new());
            offsets.push(0u64);
            for p in parts {
                let (o, v) = match (p, &kind) {
                    (Array::List { offsets, values }, Array::List { .. })
                    | (Array::Optional { offsets, values }, Array::Optional { .. }) => {
                        (offsets, values)
                    }
                    (p, _) => return Err(mismatch(&kind, &p)),
                };
                extend_offsets(&mut offsets, &o);
                let items = (o[o.len() - 1] - o[0]) as usize;
                values.push(slice(*v, o[0] as usize, items));
            }
            let values = Box::new(concat(values)?);
            match kind {
                Array::List { .. } => Array::List { offsets, values },
                _ => Array::Optional { offsets, values },
            }
        }
        Array::Fixed { size, .. } => {
            let mut values = Vec::new();
            for p in parts {
                match p {
                    Array::Fixed { size: s, values: v } if s == *size => values.push(*v),
                    other => return Err(mismatch(&kind, &other)),
                }
            }
            Array::Fixed {
                size: *size,
                values: Box::new(concat(values)?),
            }
        }
        Array::Record { fields, .. } => {
            let names: Vec<String> = fields.iter().map(|(n, _)| n.clone()).collect();
            let mut columns: Vec<Vec<Array>> = vec![Vec::new(); names.len()];
            let mut len = 0;
            for p in parts {
                let Array::Record { len: l, fields } = p else {
                    return Err(mismatch(&kind, &p));
                };
                if fields.len() != names.len()
                    || fields.iter().zip(&names).any(|((n, _), m)| n != m)
                {
                    return Err(LayoutMismatch(
                        "cannot join records of different members".into(),
                    ));
                }
                len += l;
                for (column, (_, a)) in columns.iter_mut().zip(fields) {
                    column.push(a);
                }
            }
            let fields = names
                .into_iter()
                .zip(columns)
                .map(|(n, c)| Ok((n, concat(c)?)))
                .collect::<Result<Vec<_>, LayoutMismatch>>()?;
            Array::Record { len, fields }
        }
        Array::Variant { alternatives, .. } => {
            let n = alternatives.len();
            let (mut tags, mut index) = (Vec::new(), Vec::new());
            let mut columns: Vec<Vec<Array>> = vec![Vec::new(); n];
            let mut seen = vec![0u64; n];
            for p in parts {
                let Array::Variant {
                    tags: t,
                    index: i,
                    alternatives: a,
                } = p
                else {
                    return Err(mismatch(&kind, &p));
                };
                if a.len() != n {
                    return Err(LayoutMismatch(
                        "cannot join variants of different alternatives".into(),
                    ));
                }
                for (&tag, &at) in t.iter().zip(&i) {
                    let base = tag.checked_sub(1).map_or(0, |k| seen[k as usize]);
                    index.push(at + base);
                }
                tags.extend(t);
                for (k, alt) in a.into_iter().enumerate() {
                    seen[k] += alt.len() as u64;
                    columns[k].push(alt);
                }
            }
            let alternatives = columns.into_iter().map(concat).collect::<Result<_, _>>()?;
            Array::Variant {
                tags,
                index,
                alternatives,
            }
        }
    })
}

impl Array {
    /// An array of no entries with this array's layout (kinds, sizes, member names).
    pub fn clone_empty(&self) -> Array {
        on_flat!(self, |_v| Vec::new(), other => match other {
            Array::String { .. } => Array::String { offsets: vec![0], bytes: Vec::new() },
            Array::List { values, .. } => {
                Array::List { offsets: vec![0], values: Box::new(values.clone_empty()) }
            }
            Array::Optional { values, .. } => {
                Array::Optional { offsets: vec![0], values: Box::new(values.clone_empty()) }
            }
            Array::Fixed { size, values } => {
                Array::Fixed { size: *size, values: Box::new(values.clone_empty()) }
            }
            Array::Record { fields, .. } => Array::Record {
                len: 0,
                fields: fields.iter().map(|(n, a)| (n.clone(), a.clone_empty())).collect(),
            },
            Array::Variant { alternatives, .. } => Array::Variant {
                tags: Vec::new(),
                index: Vec::new(),
                alternatives: alternatives.iter().map(Array::clone_empty).collect(),
            },
            _ => unreachable!("flat arrays are handled above"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jagged(lists: &[&[f32]]) -> Array {
        let mut offsets = vec![0u64];
        let mut values = Vec::new();
        for l in lists {
            values.extend_from_slice(l);
            offsets.push(values.len() as u64);
        }
        Array::List {
            offsets,
            values: Box::new(Array::Float32(values)),
        }
    }

    fn strings(s: &[&str]) -> Array {
        Array::strings(s)
    }

    fn record(ints: Vec<i32>, names: &[&str]) -> Array {
        Array::Record {
            len: ints.len(),
            fields: vec![
                ("n".into(), Array::Int32(ints)),
                ("s".into(), strings(names)),
            ],
        }
    }

    #[test]
    fn slices_of_nested_layouts_hold_the_right_entries() {
        let a = jagged(&[&[1.0], &[], &[2.0, 3.0], &[4.0]]);
        assert_eq!(slice(a, 1, 2), jagged(&[&[], &[2.0, 3.0]]));
        let r = record(vec![1, 2, 3], &["a", "bc", "d"]);
        assert_eq!(slice(r, 1, 2), record(vec![2, 3], &["bc", "d"]));
        let fixed = Array::Fixed {
            size: 2,
            values: Box::new(Array::Int8(vec![1, 2, 3, 4, 5, 6])),
        };
        assert_eq!(
            slice(fixed, 2, 1),
            Array::Fixed {
                size: 2,
                values: Box::new(Array::Int8(vec![5, 6]))
            }
        );
    }

    #[test]
    fn take_picks_entries_in_the_order_given() {
        let a = jagged(&[&[1.0], &[], &[2.0, 3.0]]);
        assert_eq!(
            take(&a, &[2, 0, 2]),
            jagged(&[&[2.0, 3.0], &[1.0], &[2.0, 3.0]])
        );
        assert_eq!(
            take(&strings(&["x", "yz"]), &[1, 1]),
            strings(&["yz", "yz"])
        );
        assert_eq!(
            take(&record(vec![1, 2, 3], &["a", "bc", "d"]), &[2]),
            record(vec![3], &["d"])
        );
        let variant = Array::Variant {
            tags: vec![1, 2, 0],
            index: vec![0, 0, 0],
            alternatives: vec![Array::Int32(vec![7]), Array::Float64(vec![0.5])],
        };
        let Array::Variant { tags, index, .. } = take(&variant, &[1, 0]) else {
            panic!()
        };
        assert_eq!((tags, index), (vec![2, 1], vec![0, 0]));
    }

    #[test]
    fn concat_of_slices_gives_back_the_whole() {
        let a = jagged(&[&[1.0], &[], &[2.0, 3.0], &[4.0], &[5.0, 6.0]]);
        let parts = vec![
            slice(a.clone(), 0, 2),
            slice(a.clone(), 2, 1),
            slice(a.clone(), 3, 2),
        ];
        assert_eq!(concat(parts).unwrap(), a);
        let r = record(vec![1, 2, 3], &["a", "bc", "d"]);
        let parts = vec![slice(r.clone(), 0, 1), slice(r.clone(), 1, 2)];
        assert_eq!(concat(parts).unwrap(), r);
        let opt = Array::Optional {
            offsets: vec![0, 1, 1, 2],
            values: Box::new(Array::UInt16(vec![9, 8])),
        };
        let parts = vec![slice(opt.clone(), 0, 2), slice(opt.clone(), 2, 1)];
        assert_eq!(concat(parts).unwrap(), opt);
    }

    #[test]
    fn concat_rebases_variant_indices_per_alternative() {
        let v = |tags: Vec<u8>, ints: Vec<i32>, floats: Vec<f64>| Array::Variant {
            index: {
                let (mut a, mut b) = (0u64, 0u64);
                tags.iter()
                    .map(|t| match t {
                        1 => {
                            a += 1;
                            a - 1
                        }
                        2 => {
                            b += 1;
                            b - 1
                        }
                        _ => 0,
                    })
                    .collect()
            },
            tags,
            alternatives: vec![Array::Int32(ints), Array::Float64(floats)],
        };
        let joined = concat(vec![
            v(vec![1, 2], vec![7], vec![0.5]),
            v(vec![2, 0, 1], vec![8], vec![1.5]),
        ]);
        assert_eq!(
            joined.unwrap(),
            v(vec![1, 2, 2, 0, 1], vec![7, 8], vec![0.5, 1.5])
        );
    }

    #[test]
    fn concat_refuses_different_layouts() {
        let err = concat(vec![Array::Int32(vec![1]), Array::Float32(vec![1.0])]).unwrap_err();
        assert_eq!(err.0, "cannot join float32 to int32");
        let a = Array::Fixed {
            size: 2,
            values: Box::new(Array::Int8(vec![1, 2])),
        };
        let b = Array::Fixed {
            size: 1,
            values: Box::new(Array::Int8(vec![1])),
        };
        assert!(concat(vec![a, b]).is_err());
        let other = Array::Record {
            len: 1,
            fields: vec![("m".into(), Array::Int32(vec![1]))],
        };
        assert!(concat(vec![record(vec![1], &["a"]), other]).is_err());
        assert!(concat(Vec::new()).is_err());
    }
}
