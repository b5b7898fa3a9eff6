//! Arrow conversion (feature `arrow`): rootweave's arrays as Arrow array data, for Rust
//! programs that hand results to arrow-rs, DataFusion or Polars, and for the Python
//! package's zero-copy export to pyarrow.
//!
//! Lists become large lists (64-bit offsets, as ours), strings large strings (large
//! binary where the bytes are not UTF-8), fixed-size arrays fixed-size lists, records
//! structs, optionals nullable values (present values spread out to their entries under
//! a validity bitmap), and variants dense unions whose first member, `empty`, of type
//! null, stands for a variant that holds nothing. Booleans are packed into bits.

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use arrow_data::ArrayData;
use arrow_schema::{ArrowError, DataType, Field, Fields, UnionFields, UnionMode};

use crate::array::{take, Array};

/// Named columns of `len` entries each as one Arrow struct array: the layout of a record
/// batch (`arrow_array::RecordBatch::from(StructArray::from(data))`).
pub fn to_arrow_batch(columns: Vec<(String, Array)>, len: usize) -> Result<ArrayData, ArrowError> {
    let mut fields = Vec::with_capacity(columns.len());
    let mut children = Vec::with_capacity(columns.len());
    for (name, array) in columns {
        if array.len() != len {
            return Err(ArrowError::InvalidArgumentError(format!(
                "column '{name}' has {} entries, the batch {len}",
                array.len()
            )));
        }
        let data = to_arrow(array)?;
        fields.push(Field::new(
            name,
            data.data_type().clone(),
            data.nulls().is_some(),
        ));
        children.push(data);
    }
    ArrayData::builder(DataType::Struct(Fields::from(fields)))
        .len(len)
        .child_data(children)
        .build()
}

/// An array as Arrow array data, consuming it: its buffers move into Arrow's without a
/// copy where the layouts agree (numbers, offsets, string bytes).
pub fn to_arrow(array: Array) -> Result<ArrayData, ArrowError> {
    let len = array.len();
    let primitive =
        |ty: DataType, buffer: Buffer| ArrayData::builder(ty).len(len).add_buffer(buffer).build();
    match array {
        Array::Bool(v) => primitive(
            DataType::Boolean,
            BooleanBuffer::from_iter(v.iter().copied()).into_inner(),
        ),
        Array::Int8(v) => primitive(DataType::Int8, Buffer::from_vec(v)),
        Array::Int16(v) => primitive(DataType::Int16, Buffer::from_vec(v)),
        Array::Int32(v) => primitive(DataType::Int32, Buffer::from_vec(v)),
        Array::Int64(v) => primitive(DataType::Int64, Buffer::from_vec(v)),
        Array::UInt8(v) => primitive(DataType::UInt8, Buffer::from_vec(v)),
        Array::UInt16(v) => primitive(DataType::UInt16, Buffer::from_vec(v)),
        Array::UInt32(v) => primitive(DataType::UInt32, Buffer::from_vec(v)),
        Array::UInt64(v) => primitive(DataType::UInt64, Buffer::from_vec(v)),
        Array::Float32(v) => primitive(DataType::Float32, Buffer::from_vec(v)),
        Array::Float64(v) => primitive(DataType::Float64, Buffer::from_vec(v)),
        Array::String { offsets, bytes } => {
            // Our offsets are u64 below 2^63: the same bytes as Arrow's i64 offsets.
            let ty = if std::str::from_utf8(&bytes).is_ok() {
                DataType::LargeUtf8
            } else {
                DataType::LargeBinary
            };
            ArrayData::builder(ty)
                .len(len)
                .add_buffer(Buffer::from_vec(offsets))
                .add_buffer(Buffer::from_vec(bytes))
                .build()
        }
        Array::List { offsets, values } => {
            let child = to_arrow(*values)?;
            let item = Field::new("item", child.data_type().clone(), true);
            ArrayData::builder(DataType::LargeList(item.into()))
                .len(len)
                .add_buffer(Buffer::from_vec(offsets))
                .child_data(vec![child])
                .build()
        }
        Array::Optional { offsets, values } => {
            // Arrow keeps a slot for every entry: the present values are spread out to
            // their entries (the absent ones repeat item 0 under a null bit).
            let present: Vec<bool> = offsets.windows(2).map(|w| w[1] > w[0]).collect();
            let spread = if values.is_empty() {
                zeros_like(&values, len)
            } else {
                let at: Vec<usize> = offsets[..len]
                    .iter()
                    .zip(&present)
                    .map(|(&o, &p)| if p { o as usize } else { 0 })
                    .collect();
                take(&values, &at)
            };
            let data = to_arrow(spread)?;
            let nulls = NullBuffer::from(present);
            data.into_builder().nulls(Some(nulls)).build()
        }
        Array::Fixed { size, values } => {
            let child = to_arrow(*values)?;
            let item = Field::new("item", child.data_type().clone(), true);
            ArrayData::builder(DataType::FixedSizeList(item.into(), size as i32))
                .len(len)
                .child_data(vec![child])
                .build()
        }
        Array::Record { len, fields } => {
            let mut arrow_fields = Vec::with_capacity(fields.len());
            let mut children = Vec::with_capacity(fields.len());
            for (name, a) in fields {
                let data = to_arrow(a)?;
                arrow_fields.push(Field::new(name, data.data_type().clone(), true));
                children.push(data);
            }
            ArrayData::builder(DataType::Struct(Fields::from(arrow_fields)))
                .len(len)
                .child_data(children)
                .build()
        }
        Array::Variant {
            tags,
            index,
            alternatives,
        } => {
            let mut fields = vec![Field::new("empty", DataType::Null, true)];
            let mut children = vec![ArrayData::new_null(&DataType::Null, 1)];
            for (k, a) in alternatives.into_iter().enumerate() {
                let data = to_arrow(a)?;
                fields.push(Field::new(format!("_{k}"), data.data_type().clone(), true));
                children.push(data);
            }
            let type_ids: Vec<i8> = tags.iter().map(|&t| t as i8).collect();
            let offsets = tags
                .iter()
                .zip(&index)
                .map(|(&t, &i)| {
                    let i = if t == 0 { 0 } else { i };
                    i32::try_from(i).map_err(|_| {
                        ArrowError::InvalidArgumentError(format!(
                            "variant index {i} is beyond Arrow's 32-bit union offsets"
                        ))
                    })
                })
                .collect::<Result<Vec<i32>, _>>()?;
            let ids: Vec<i8> = (0..fields.len() as i8).collect();
            let union = UnionFields::try_new(ids, fields)?;
            ArrayData::builder(DataType::Union(union, UnionMode::Dense))
                .len(len)
                .add_buffer(Buffer::from_vec(type_ids))
                .add_buffer(Buffer::from_vec(offsets))
                .child_data(children)
                .build()
        }
    }
}

/// An array of the same type as `like` with `len` entries of zeros (empty lists and
/// strings, empty variants).
fn zeros_like(like: &Array, len: usize) -> Array {
    match like {
        Array::Bool(_) => Array::Bool(vec![false; len]),
        Array::Int8(_) => Array::Int8(vec![0; len]),
        Array::Int16(_) => Array::Int16(vec![0; len]),
        Array::Int32(_) => Array::Int32(vec![0; len]),
        Array::Int64(_) => Array::Int64(vec![0; len]),
        Array::UInt8(_) => Array::UInt8(vec![0; len]),
        Array::UInt16(_) => Array::UInt16(vec![0; len]),
        Array::UInt32(_) => Array::UInt32(vec![0; len]),
        Array::UInt64(_) => Array::UInt64(vec![0; len]),
        Array::Float32(_) => Array::Float32(vec![0.0; len]),
        Array::Float64(_) => Array::Float64(vec![0.0; len]),
        Array::String { .. } => Array::String {
            offsets: vec![0; len + 1],
            bytes: Vec::new(),
        },
        Array::List { values, .. } => Array::List {
            offsets: vec![0; len + 1],
            values: Box::new(zeros_like(values, 0)),
        },
        Array::Optional { values, .. } => Array::Optional {
            offsets: vec![0; len + 1],
            values: Box::new(zeros_like(values, 0)),
        },
        Array::Fixed { size, values } => Array::Fixed {
            size: *size,
            values: Box::new(zeros_like(values, len * size)),
        },
        Array::Record { fields, .. } => Array::Record {
            len,
            fields: fields
                .iter()
                .map(|(n, a)| (n.clone(), zeros_like(a, len)))
                .collect(),
        },
        Array::Variant { alternatives, .. } => Array::Variant {
            tags: vec![0; len],
            index: vec![0; len],
            alternatives: alternatives.iter().map(|a| zeros_like(a, 0)).collect(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_lists_and_strings_keep_their_values() {
        let list = Array::List {
            offsets: vec![0, 2, 2, 3],
            values: Box::new(Array::Float32(vec![1.0, 2.0, 3.0])),
        };
        let data = to_arrow(list).unwrap();
        let item = Field::new("item", DataType::Float32, true);
        assert_eq!(data.data_type(), &DataType::LargeList(item.into()));
        assert_eq!(data.len(), 3);
        assert_eq!(data.buffer::<i64>(0), &[0, 2, 2, 3]);
        assert_eq!(data.child_data()[0].buffer::<f32>(0), &[1.0, 2.0, 3.0]);
        let strings = Array::String {
            offsets: vec![0, 1, 3],
            bytes: b"abc".to_vec(),
        };
        let data = to_arrow(strings).unwrap();
        assert_eq!(data.data_type(), &DataType::LargeUtf8);
        assert_eq!(data.buffers()[1].as_slice(), b"abc");
        let binary = Array::String {
            offsets: vec![0, 1],
            bytes: vec![0xff],
        };
        assert_eq!(
            to_arrow(binary).unwrap().data_type(),
            &DataType::LargeBinary
        );
    }

    #[test]
    fn optionals_are_spread_out_under_a_validity_bitmap() {
        let optional = Array::Optional {
            offsets: vec![0, 1, 1, 2],
            values: Box::new(Array::Int32(vec![7, 9])),
        };
        let data = to_arrow(optional).unwrap();
        assert_eq!(data.buffer::<i32>(0), &[7, 7, 9]);
        let nulls = data.nulls().unwrap();
        assert_eq!(
            (nulls.is_valid(0), nulls.is_valid(1), nulls.is_valid(2)),
            (true, false, true)
        );
        let none = Array::Optional {
            offsets: vec![0, 0, 0],
            values: Box::new(Array::Int8(vec![])),
        };
        let data = to_arrow(none).unwrap();
        assert_eq!((data.len(), data.null_count()), (2, 2));
    }

    #[test]
    fn a_batch_is_a_struct_of_its_columns() {
        let columns = vec![
            ("n".to_string(), Array::UInt16(vec![1, 2])),
            ("ok".to_string(), Array::Bool(vec![true, false])),
        ];
        let data = to_arrow_batch(columns, 2).unwrap();
        let DataType::Struct(fields) = data.data_type() else {
            panic!("{:?}", data.data_type())
        };
        let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["n", "ok"]);
        assert_eq!(data.child_data()[0].buffer::<u16>(0), &[1, 2]);
        let short = vec![("n".to_string(), Array::UInt16(vec![1]))];
        assert!(to_arrow_batch(short, 2).is_err());
    }

    #[test]
    fn variants_become_dense_unions_with_an_empty_member() {
        let variant = Array::Variant {
            tags: vec![1, 0, 2],
            index: vec![0, 0, 0],
            alternatives: vec![Array::Int32(vec![5]), Array::Float64(vec![0.5])],
        };
        let data = to_arrow(variant).unwrap();
        assert!(matches!(data.data_type(), DataType::Union(f, UnionMode::Dense) if f.len() == 3));
        assert_eq!(data.buffer::<i8>(0), &[1, 0, 2]);
        assert_eq!(data.buffer::<i32>(1), &[0, 0, 0]);
    }
}
