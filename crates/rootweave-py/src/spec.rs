//! Schemas and batches from Python: nested tuples built by the `rootweave` package.
//!
//! A type is `("int32",)` (any of bool, int8..int64, uint8..uint64, float32, float64),
//! `("string",)`, `("list", T)`, `("fixed", n, T)`, `("optional", T)`,
//! `("record", [(name, T), ...])`, `("class", "Name", version, [(name, T), ...])` (a
//! named class, as ROOT's dictionary has it), `("pair", T1, T2)` or `("tuple", [T, ...])`
//! (`std::pair` and `std::tuple`, whose members are `_0`, `_1`, ...). A batch mirrors its field's type: `(leaf, ndarray)`,
//! `("string", offsets, bytes)`, `("list", offsets, batch)` (also for optionals),
//! `("fixed", batch)`, `("record", [batch, ...])`; offsets are uint64 arrays.

use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use rootweave::rntuple::{ColumnData, Field, FieldType};

/// The field type of a type tuple. Records are untyped records, and a list whose items
/// hold records is an untyped collection (ROOT reads both without a dictionary, as it
/// reads NanoAOD collections).
pub fn field_type(spec: &Bound<'_, PyAny>, path: &str) -> PyResult<FieldType> {
    let t = spec.cast::<PyTuple>().map_err(|_| {
        PyTypeError::new_err(format!("field '{path}': type must be a tuple, got {spec}"))
    })?;
    let kind: String = t.get_item(0)?.extract()?;
    Ok(match kind.as_str() {
        "bool" => FieldType::Bool,
        "int8" => FieldType::Int8,
        "int16" => FieldType::Int16,
        "int32" => FieldType::Int32,
        "int64" => FieldType::Int64,
        "uint8" => FieldType::UInt8,
        "uint16" => FieldType::UInt16,
        "uint32" => FieldType::UInt32,
        "uint64" => FieldType::UInt64,
        "float32" => FieldType::Float32,
        "float64" => FieldType::Float64,
        "string" => FieldType::String,
        "list" => {
            let item = field_type(&t.get_item(1)?, &format!("{path}._0"))?;
            if holds_record(&item) {
                FieldType::untyped_collection(item)
            } else {
                FieldType::vector(item)
            }
        }
        "optional" => {
            let item = field_type(&t.get_item(1)?, &format!("{path}._0"))?;
            if holds_record(&item) {
                return Err(PyTypeError::new_err(format!(
                    "field '{path}': optional untyped records are not supported (ROOT has no type for them; use a named class)"
                )));
            }
            FieldType::optional(item)
        }
        "fixed" => {
            let n: usize = t.get_item(1)?.extract()?;
            let item = field_type(&t.get_item(2)?, &format!("{path}._0"))?;
            if holds_record(&item) {
                return Err(PyTypeError::new_err(format!(
                    "field '{path}': fixed-size arrays of untyped records are not supported (ROOT has no type for them; use a named class)"
                )));
            }
            FieldType::array(item, n)
        }
        "record" => FieldType::untyped_record(member_fields(&t.get_item(1)?, path)?),
        "class" => {
            let name: String = t.get_item(1)?.extract()?;
            let version: u32 = t.get_item(2)?.extract()?;
            FieldType::class(name, version, member_fields(&t.get_item(3)?, path)?)
        }
        "pair" => FieldType::pair(
            field_type(&t.get_item(1)?, &format!("{path}._0"))?,
            field_type(&t.get_item(2)?, &format!("{path}._1"))?,
        ),
        "tuple" => {
            let items = t.get_item(1)?;
            let items = items.cast::<PyList>()?;
            let mut types = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                types.push(field_type(&item, &format!("{path}._{i}"))?);
            }
            FieldType::Tuple(types)
        }
        other => {
            return Err(PyTypeError::new_err(format!(
                "field '{path}': unknown type '{other}'"
            )))
        }
    })
}

/// The members `[(name, type), ...]` of a record or class type tuple.
fn member_fields(members: &Bound<'_, PyAny>, path: &str) -> PyResult<Vec<Field>> {
    let members = members.cast::<PyList>()?;
    let mut fields = Vec::with_capacity(members.len());
    for m in members.iter() {
        let (name, ty): (String, Bound<'_, PyAny>) = m.extract()?;
        let ty = field_type(&ty, &format!("{path}.{name}"))?;
        fields.push(Field::new(name, ty));
    }
    Ok(fields)
}

/// True if `t` holds an untyped record, which has no C++ type that a `std::optional` or
/// `std::array` of it could name (named classes have theirs).
fn holds_record(t: &FieldType) -> bool {
    match t {
        FieldType::Record { type_name, .. } => type_name.is_empty(),
        FieldType::UntypedCollection(_) => true,
        FieldType::Vector(i) | FieldType::Array(i, _) | FieldType::Optional(i) => holds_record(i),
        _ => false,
    }
}

/// NumPy arrays of a batch, held (borrowed read-only) while the writer uses them.
pub enum Held<'py> {
    Bool(PyReadonlyArray1<'py, bool>),
    Int8(PyReadonlyArray1<'py, i8>),
    Int16(PyReadonlyArray1<'py, i16>),
    Int32(PyReadonlyArray1<'py, i32>),
    Int64(PyReadonlyArray1<'py, i64>),
    UInt8(PyReadonlyArray1<'py, u8>),
    UInt16(PyReadonlyArray1<'py, u16>),
    UInt32(PyReadonlyArray1<'py, u32>),
    UInt64(PyReadonlyArray1<'py, u64>),
    Float32(PyReadonlyArray1<'py, f32>),
    Float64(PyReadonlyArray1<'py, f64>),
    String(PyReadonlyArray1<'py, u64>, PyReadonlyArray1<'py, u8>),
    List(PyReadonlyArray1<'py, u64>, Box<Held<'py>>),
    Fixed(Box<Held<'py>>),
    Record(Vec<Held<'py>>),
}

/// Borrows the arrays of a batch tuple.
pub fn hold<'py>(batch: &Bound<'py, PyAny>, path: &str) -> PyResult<Held<'py>> {
    let t = batch
        .cast::<PyTuple>()
        .map_err(|_| PyTypeError::new_err(format!("field '{path}': a batch must be a tuple")))?;
    let kind: String = t.get_item(0)?.extract()?;
    let arr = |i: usize| t.get_item(i);
    let bad = |e: PyErr| PyTypeError::new_err(format!("field '{path}': {kind} values: {e}"));
    Ok(match kind.as_str() {
        "bool" => Held::Bool(arr(1)?.extract().map_err(bad)?),
        "int8" => Held::Int8(arr(1)?.extract().map_err(bad)?),
        "int16" => Held::Int16(arr(1)?.extract().map_err(bad)?),
        "int32" => Held::Int32(arr(1)?.extract().map_err(bad)?),
        "int64" => Held::Int64(arr(1)?.extract().map_err(bad)?),
        "uint8" => Held::UInt8(arr(1)?.extract().map_err(bad)?),
        "uint16" => Held::UInt16(arr(1)?.extract().map_err(bad)?),
        "uint32" => Held::UInt32(arr(1)?.extract().map_err(bad)?),
        "uint64" => Held::UInt64(arr(1)?.extract().map_err(bad)?),
        "float32" => Held::Float32(arr(1)?.extract().map_err(bad)?),
        "float64" => Held::Float64(arr(1)?.extract().map_err(bad)?),
        "string" => Held::String(
            arr(1)?.extract().map_err(bad)?,
            arr(2)?.extract().map_err(bad)?,
        ),
        "list" => Held::List(
            arr(1)?.extract().map_err(bad)?,
            Box::new(hold(&arr(2)?, &format!("{path}._0"))?),
        ),
        "fixed" => Held::Fixed(Box::new(hold(&arr(1)?, &format!("{path}._0"))?)),
        "record" => {
            let members = arr(1)?;
            let members = members.cast::<PyList>()?;
            let mut held = Vec::with_capacity(members.len());
            for (i, m) in members.iter().enumerate() {
                held.push(hold(&m, &format!("{path}.{i}"))?);
            }
            Held::Record(held)
        }
        other => {
            return Err(PyTypeError::new_err(format!(
                "field '{path}': unknown batch kind '{other}'"
            )))
        }
    })
}

/// The writer's view of held arrays (which must be contiguous).
pub fn column_data<'a>(h: &'a Held<'_>) -> PyResult<ColumnData<'a>> {
    fn s<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>) -> PyResult<&'a [T]> {
        a.as_slice()
            .map_err(|_| PyValueError::new_err("arrays must be contiguous"))
    }
    Ok(match h {
        Held::Bool(a) => ColumnData::Bool(s(a)?),
        Held::Int8(a) => ColumnData::Int8(s(a)?),
        Held::Int16(a) => ColumnData::Int16(s(a)?),
        Held::Int32(a) => ColumnData::Int32(s(a)?),
        Held::Int64(a) => ColumnData::Int64(s(a)?),
        Held::UInt8(a) => ColumnData::UInt8(s(a)?),
        Held::UInt16(a) => ColumnData::UInt16(s(a)?),
        Held::UInt32(a) => ColumnData::UInt32(s(a)?),
        Held::UInt64(a) => ColumnData::UInt64(s(a)?),
        Held::Float32(a) => ColumnData::Float32(s(a)?),
        Held::Float64(a) => ColumnData::Float64(s(a)?),
        Held::String(o, b) => ColumnData::StringBytes {
            offsets: s(o)?,
            bytes: s(b)?,
        },
        Held::List(o, items) => ColumnData::list(s(o)?, column_data(items)?),
        Held::Fixed(items) => ColumnData::array(column_data(items)?),
        Held::Record(members) => ColumnData::Record(
            members
                .iter()
                .map(column_data)
                .collect::<PyResult<Vec<_>>>()?,
        ),
    })
}
