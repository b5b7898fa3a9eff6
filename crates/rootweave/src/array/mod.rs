//! Columnar results in memory: typed values contiguous, plus one offsets array per
//! collection level (the layout Arrow and Awkward use).
//!
//! Offsets arrays have one more element than the array has entries and start at 0:
//! entry `i` of a list holds items `offsets[i]..offsets[i + 1]` of its values.

pub(crate) mod buffer;
mod kernels;
mod recycle;
mod std_collection;
mod value;

pub use buffer::{Buffer, Dst, LeafType, Target};
pub use kernels::{concat, slice, take, LayoutMismatch};
pub use recycle::Recycler;
pub use std_collection::StdCollection;
pub use value::{ColumnData, Value};

/// A column of values for a range of entries.
#[derive(Debug, Clone, PartialEq)]
pub enum Array {
    /// `bool`
    Bool(Vec<bool>),
    /// `std::int8_t` (and `char`)
    Int8(Vec<i8>),
    /// `std::int16_t`
    Int16(Vec<i16>),
    /// `std::int32_t`
    Int32(Vec<i32>),
    /// `std::int64_t`
    Int64(Vec<i64>),
    /// `std::uint8_t` (and `std::byte`)
    UInt8(Vec<u8>),
    /// `std::uint16_t`
    UInt16(Vec<u16>),
    /// `std::uint32_t`
    UInt32(Vec<u32>),
    /// `std::uint64_t`
    UInt64(Vec<u64>),
    /// `float`
    Float32(Vec<f32>),
    /// `double`
    Float64(Vec<f64>),
    /// Strings: UTF-8 bytes of all entries, split by offsets.
    String {
        /// `len + 1` offsets into `bytes`.
        offsets: Vec<u64>,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// Variable-length lists (`std::vector`, sets, maps, untyped collections, ...).
    List {
        /// `len + 1` offsets into `values`.
        offsets: Vec<u64>,
        /// The items of all lists.
        values: Box<Array>,
    },
    /// Optional values (`std::optional`, `std::unique_ptr`): lists of zero or one item.
    Optional {
        /// `len + 1` offsets into `values`.
        offsets: Vec<u64>,
        /// The present values.
        values: Box<Array>,
    },
    /// Fixed-size lists (`std::array<T, N>`, `std::bitset<N>`): `size` items per entry.
    Fixed {
        /// Items per entry.
        size: usize,
        /// The items of all entries.
        values: Box<Array>,
    },
    /// Records (classes, structs, pairs, tuples, untyped records): one array per member.
    Record {
        /// Number of entries (members may be absent for empty records).
        len: usize,
        /// Member names and arrays, in order.
        fields: Vec<(String, Array)>,
    },
    /// Variants (`std::variant`): per entry the alternative and its index in that
    /// alternative's array.
    Variant {
        /// 0 for an empty (invalid) variant, else 1 + the alternative's position.
        tags: Vec<u8>,
        /// Index of the entry's value in its alternative's array.
        index: Vec<u64>,
        /// One array per alternative.
        alternatives: Vec<Array>,
    },
}

impl Array {
    /// An array of strings, one entry per item (text or bytes).
    pub fn strings<S: AsRef<[u8]>>(items: impl IntoIterator<Item = S>) -> Array {
        let mut offsets = vec![0u64];
        let mut bytes = Vec::new();
        for s in items {
            bytes.extend_from_slice(s.as_ref());
            offsets.push(bytes.len() as u64);
        }
        Array::String { offsets, bytes }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        match self {
            Array::Bool(v) => v.len(),
            Array::Int8(v) => v.len(),
            Array::Int16(v) => v.len(),
            Array::Int32(v) => v.len(),
            Array::Int64(v) => v.len(),
            Array::UInt8(v) => v.len(),
            Array::UInt16(v) => v.len(),
            Array::UInt32(v) => v.len(),
            Array::UInt64(v) => v.len(),
            Array::Float32(v) => v.len(),
            Array::Float64(v) => v.len(),
            Array::String { offsets, .. }
            | Array::List { offsets, .. }
            | Array::Optional { offsets, .. } => offsets.len().saturating_sub(1),
            Array::Fixed { size, values } => values.len().checked_div(*size).unwrap_or(0),
            Array::Record { len, .. } => *len,
            Array::Variant { tags, .. } => tags.len(),
        }
    }

    /// True if there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A short name of the array's kind (`float32`, `list`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Array::Bool(_) => "bool",
            Array::Int8(_) => "int8",
            Array::Int16(_) => "int16",
            Array::Int32(_) => "int32",
            Array::Int64(_) => "int64",
            Array::UInt8(_) => "uint8",
            Array::UInt16(_) => "uint16",
            Array::UInt32(_) => "uint32",
            Array::UInt64(_) => "uint64",
            Array::Float32(_) => "float32",
            Array::Float64(_) => "float64",
            Array::String { .. } => "string",
            Array::List { .. } => "list",
            Array::Optional { .. } => "optional",
            Array::Fixed { .. } => "fixed",
            Array::Record { .. } => "record",
            Array::Variant { .. } => "variant",
        }
    }
}

impl Array {
    /// Entry `i` as a [`Value`] (the entry-at-a-time view; fixed-size arrays and bitsets
    /// become [`Value::Array`], records [`Value::Record`] in member order).
    pub fn value(&self, i: usize) -> Value {
        let items = |values: &Array, range: std::ops::Range<u64>| -> Vec<Value> {
            (range.start as usize..range.end as usize)
                .map(|j| values.value(j))
                .collect()
        };
        match self {
            Array::Bool(v) => Value::Bool(v[i]),
            Array::Int8(v) => Value::Int8(v[i]),
            Array::Int16(v) => Value::Int16(v[i]),
            Array::Int32(v) => Value::Int32(v[i]),
            Array::Int64(v) => Value::Int64(v[i]),
            Array::UInt8(v) => Value::UInt8(v[i]),
            Array::UInt16(v) => Value::UInt16(v[i]),
            Array::UInt32(v) => Value::UInt32(v[i]),
            Array::UInt64(v) => Value::UInt64(v[i]),
            Array::Float32(v) => Value::Float32(v[i]),
            Array::Float64(v) => Value::Float64(v[i]),
            Array::String { offsets, bytes } => Value::String(
                String::from_utf8_lossy(&bytes[offsets[i] as usize..offsets[i + 1] as usize])
                    .into_owned(),
            ),
            Array::List { offsets, values } => {
                Value::List(items(values, offsets[i]..offsets[i + 1]))
            }
            Array::Optional { offsets, values } => Value::Optional(
                (offsets[i + 1] > offsets[i]).then(|| Box::new(values.value(offsets[i] as usize))),
            ),
            Array::Fixed { size, values } => {
                let n = *size as u64;
                Value::Array(items(values, i as u64 * n..(i as u64 + 1) * n))
            }
            Array::Record { fields, .. } => {
                Value::Record(fields.iter().map(|(_, a)| a.value(i)).collect())
            }
            Array::Variant {
                tags,
                index,
                alternatives,
            } => Value::Variant(match tags[i] {
                0 => None,
                t => Some((
                    t as usize - 1,
                    Box::new(alternatives[t as usize - 1].value(index[i] as usize)),
                )),
            }),
        }
    }

    /// Appends entry `i` as JSON: lists and fixed-size arrays as arrays, records as
    /// objects, strings as strings, absent optionals and empty variants as `null`,
    /// floats in the shortest form that parses back to the same value, and NaN and
    /// infinities as the strings `"nan"`, `"inf"`, `"-inf"`.
    pub fn write_json(&self, i: usize, out: &mut String) {
        use std::fmt::Write;
        match self {
            Array::Bool(v) => out.push_str(if v[i] { "true" } else { "false" }),
            Array::Int8(v) => write!(out, "{}", v[i]).expect("string"),
            Array::Int16(v) => write!(out, "{}", v[i]).expect("string"),
            Array::Int32(v) => write!(out, "{}", v[i]).expect("string"),
            Array::Int64(v) => write!(out, "{}", v[i]).expect("string"),
            Array::UInt8(v) => write!(out, "{}", v[i]).expect("string"),
            Array::UInt16(v) => write!(out, "{}", v[i]).expect("string"),
            Array::UInt32(v) => write!(out, "{}", v[i]).expect("string"),
            Array::UInt64(v) => write!(out, "{}", v[i]).expect("string"),
            Array::Float32(v) => write_float(v[i].is_finite(), v[i] as f64, &v[i], out),
            Array::Float64(v) => write_float(v[i].is_finite(), v[i], &v[i], out),
            Array::String { offsets, bytes } => {
                let s = &bytes[offsets[i] as usize..offsets[i + 1] as usize];
                write_json_string(&String::from_utf8_lossy(s), out);
            }
            Array::List { offsets, values } => {
                write_items(values, offsets[i] as usize..offsets[i + 1] as usize, out)
            }
            Array::Optional { offsets, values } => {
                if offsets[i + 1] > offsets[i] {
                    values.write_json(offsets[i] as usize, out)
                } else {
                    out.push_str("null")
                }
            }
            Array::Fixed { size, values } => write_items(values, i * size..(i + 1) * size, out),
            Array::Record { fields, .. } => {
                out.push('{');
                for (k, (name, a)) in fields.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    write_json_string(name, out);
                    out.push_str(": ");
                    a.write_json(i, out);
                }
                out.push('}');
            }
            Array::Variant {
                tags,
                index,
                alternatives,
            } => match tags[i] {
                0 => out.push_str("null"),
                t => alternatives[t as usize - 1].write_json(index[i] as usize, out),
            },
        }
    }
}

fn write_items(values: &Array, range: std::ops::Range<usize>, out: &mut String) {
    out.push('[');
    for (k, j) in range.enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        values.write_json(j, out);
    }
    out.push(']');
}

fn write_float(finite: bool, v: f64, shortest: &dyn std::fmt::Display, out: &mut String) {
    use std::fmt::Write;
    if finite {
        write!(out, "{shortest}").expect("string");
    } else if v.is_nan() {
        out.push_str("\"nan\"");
    } else if v > 0.0 {
        out.push_str("\"inf\"");
    } else {
        out.push_str("\"-inf\"");
    }
}

/// Appends `s` as a JSON string literal.
pub fn write_json_string(s: &str, out: &mut String) {
    use std::fmt::Write;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32).expect("string"),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_of_nested_values() {
        let a = Array::Record {
            len: 2,
            fields: vec![
                (
                    "v".into(),
                    Array::List {
                        offsets: vec![0, 2, 2],
                        values: Box::new(Array::Float32(vec![0.1, f32::NAN])),
                    },
                ),
                (
                    "s".into(),
                    Array::String {
                        offsets: vec![0, 2, 4],
                        bytes: b"a\"\n\x01".to_vec(),
                    },
                ),
                (
                    "o".into(),
                    Array::Optional {
                        offsets: vec![0, 0, 1],
                        values: Box::new(Array::Float64(vec![f64::NEG_INFINITY])),
                    },
                ),
            ],
        };
        let mut s = String::new();
        a.write_json(0, &mut s);
        assert_eq!(s, r#"{"v": [0.1, "nan"], "s": "a\"", "o": null}"#);
        s.clear();
        a.write_json(1, &mut s);
        assert_eq!(s, r#"{"v": [], "s": "\n\u0001", "o": "-inf"}"#);
        assert_eq!(a.len(), 2);
    }
}
