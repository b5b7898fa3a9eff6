//! Snapshot columns of ROOT's own classes written as objects of those classes, as
//! RDataFrame writes them: `TLorentzVector`, `TVector3`, `TVector2`, the `ROOT::Math` vectors
//! (`PtEtaPhiMVector`, `XYZVector`, ...), read from the dataset or defined, and lists of the
//! `ROOT::Math` ones. In a TTree such a column is a branch of the class split as ROOT
//! splits it (`p4`, `fCoordinates`, `fCoordinates.fPt`, ...), which ROOT reads back as the
//! class; in an RNTuple a field of the class (`TObject`-derived classes, which ROOT refuses
//! to store in RNTuples, stay untyped records there). The analysis layer's own four-vectors
//! hold their coordinates directly (`pt`, `eta`, `phi`, `mass`): written, they are wrapped
//! into the class's `fCoordinates` member.

use std::sync::Arc;

use crate::array::{Array, LeafType};
use crate::rntuple::{Field, FieldType};
use crate::ttree::{root_class, ClassSpec, MemberType};

/// How a column of one of ROOT's classes is written.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ClassColumn {
    /// The field type: the class, or a list of it.
    pub field_type: FieldType,
    /// Whether each value (each item, for lists) is wrapped into a record of one member,
    /// the class's `fCoordinates`.
    pub wrap: bool,
}

/// The class field of a column of C++ type `type_name` whose values have field type
/// `values`, for a TTree (`rntuple` false) or an RNTuple: `None` unless the type is one of
/// ROOT's classes (or an `RVec` or `std::vector` of a `ROOT::Math` one) and the values
/// hold its members or its coordinates.
pub(super) fn class_column(
    type_name: &str,
    values: &FieldType,
    rntuple: bool,
) -> Option<ClassColumn> {
    let (item_name, list) = match list_item(type_name) {
        Some(item) => (item, true),
        None => (type_name.trim(), false),
    };
    let class = root_class(item_name)?;
    if class.tobject.is_some() && (rntuple || list) {
        return None;
    }
    let item_values = match (list, values) {
        (false, v) => v,
        (
            true,
            FieldType::Vector(item) | FieldType::RVec(item) | FieldType::UntypedCollection(item),
        ) => item.as_ref(),
        (true, _) => return None,
    };
    let class_type = class_field_type(&class, rntuple)?;
    let wrap = if same_shape(item_values, &class_type) {
        false
    } else {
        match class_type_members(&class_type) {
            [coordinates] if coordinates.name == "fCoordinates" => {
                same_shape(item_values, &coordinates.ty).then_some(true)?
            }
            _ => return None,
        }
    };
    let field_type = match (list, rntuple) {
        (false, _) => class_type,
        (true, false) => FieldType::vector(class_type),
        (true, true) => FieldType::RVec(Box::new(class_type)),
    };
    Some(ClassColumn { field_type, wrap })
}

/// The item type of a list type name (`ROOT::VecOps::RVec<T>`, `std::vector<T>`), if it is one.
fn list_item(type_name: &str) -> Option<&str> {
    let t = type_name.trim();
    ["ROOT::VecOps::RVec<", "RVec<", "std::vector<", "vector<"]
        .iter()
        .find_map(|p| t.strip_prefix(p))
        .and_then(|rest| rest.strip_suffix('>'))
        .map(str::trim)
}

/// The members of a record type (none for other types).
fn class_type_members(ty: &FieldType) -> &[Field] {
    match ty {
        FieldType::Record { fields, .. } => fields,
        _ => &[],
    }
}

/// ROOT's class `class` as a named record: its members by their names and types, its name
/// as the format spells it (an RNTuple's without the space between closing brackets) and
/// the version ROOT gives it there (`ROOT::Math` classes have no class version: ROOT's
/// RNTuple writes the largest one).
fn class_field_type(class: &Arc<ClassSpec>, rntuple: bool) -> Option<FieldType> {
    let fields = class
        .members
        .iter()
        .map(|m| {
            let ty = match &m.ty {
                MemberType::Number(LeafType::Float64) => FieldType::Float64,
                MemberType::Object(c) => class_field_type(c, rntuple)?,
                _ => return None,
            };
            Some(Field::new(m.name.clone(), ty))
        })
        .collect::<Option<Vec<_>>>()?;
    let (name, version) = match rntuple {
        true => (class.name.replace(" >", ">"), u32::MAX),
        false => (class.name.clone(), class.version as u32),
    };
    Some(FieldType::class(name, version, fields))
}

/// Whether values of type `values` hold what `class` holds: records of as many members,
/// member by member alike, and the same numbers.
fn same_shape(values: &FieldType, class: &FieldType) -> bool {
    match (values, class) {
        (FieldType::Record { fields: a, .. }, FieldType::Record { fields: b, .. }) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_shape(&x.ty, &y.ty))
        }
        (a, b) => a.number().is_some() && a.number() == b.number(),
    }
}

/// `array` (a column's values of one batch) as `column` writes them: each value (or each
/// item of each list) wrapped into a record of its `fCoordinates` where `column.wrap` says.
pub(super) fn class_values(column: &ClassColumn, array: Array) -> Array {
    if !column.wrap {
        return array;
    }
    fn wrap(values: Array) -> Array {
        match values {
            Array::List { offsets, values } => Array::List {
                offsets,
                values: Box::new(wrap(*values)),
            },
            record @ Array::Record { len, .. } => Array::Record {
                len,
                fields: vec![("fCoordinates".to_string(), record)],
            },
            other => other,
        }
    }
    wrap(array)
}

#[cfg(test)]
mod tests {
    use super::*;

    const P4: &str = "ROOT::Math::LorentzVector<ROOT::Math::PtEtaPhiM4D<double> >";

    fn record(names: &[&str]) -> FieldType {
        FieldType::untyped_record(
            names
                .iter()
                .map(|n| Field::new(*n, FieldType::Float64))
                .collect(),
        )
    }

    #[test]
    fn defined_four_vectors_are_wrapped_into_their_coordinates() {
        let flat = record(&["pt", "eta", "phi", "mass"]);
        let c = class_column(P4, &flat, false).expect("a class column");
        assert!(c.wrap);
        let FieldType::Record {
            type_name, fields, ..
        } = &c.field_type
        else {
            panic!("a record: {:?}", c.field_type)
        };
        assert_eq!(type_name, P4);
        assert_eq!(fields[0].name, "fCoordinates");
        let FieldType::Record {
            type_name, fields, ..
        } = &fields[0].ty
        else {
            panic!("a record")
        };
        assert_eq!(type_name, "ROOT::Math::PtEtaPhiM4D<double>");
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["fPt", "fEta", "fPhi", "fM"]);
        // An RNTuple spells the name without the space and versions it as ROOT does.
        let n = class_column(P4, &flat, true).expect("an RNTuple class column");
        let FieldType::Record {
            type_name,
            type_version,
            ..
        } = &n.field_type
        else {
            panic!("a record")
        };
        assert_eq!(
            type_name,
            "ROOT::Math::LorentzVector<ROOT::Math::PtEtaPhiM4D<double>>"
        );
        assert_eq!(*type_version, u32::MAX);
        let values = Array::Record {
            len: 1,
            fields: ["pt", "eta", "phi", "mass"]
                .iter()
                .map(|n| (n.to_string(), Array::Float64(vec![1.0])))
                .collect(),
        };
        let Array::Record { len: 1, fields } = class_values(&c, values) else {
            panic!("a record")
        };
        assert_eq!(fields.len(), 1);
        assert_eq!(fields[0].0, "fCoordinates");
    }

    #[test]
    fn lists_and_objects_read_as_the_class_are_written_as_they_are() {
        let coordinates = record(&["fCoordinates.fPt", "a", "b", "c"]);
        let read = FieldType::untyped_record(vec![Field::new("fCoordinates", coordinates)]);
        let list = FieldType::vector(read.clone());
        let c = class_column(&format!("ROOT::VecOps::RVec<{P4}>"), &list, false).unwrap();
        assert!(!c.wrap);
        assert!(matches!(&c.field_type, FieldType::Vector(item)
            if matches!(item.as_ref(), FieldType::Record { type_name, .. } if type_name == P4)));
        let c = class_column(&format!("ROOT::VecOps::RVec<{P4}>"), &list, true).unwrap();
        assert!(matches!(&c.field_type, FieldType::RVec(_)));
        let tlv = FieldType::untyped_record(vec![
            Field::new("fP", record(&["fX", "fY", "fZ"])),
            Field::new("fE", FieldType::Float64),
        ]);
        assert!(class_column("TLorentzVector", &tlv, false).is_some());
        // Not in RNTuples (ROOT refuses TObject-derived classes there), nor as lists.
        assert_eq!(class_column("TLorentzVector", &tlv, true), None);
        let tlvs = FieldType::vector(tlv.clone());
        assert_eq!(
            class_column("ROOT::VecOps::RVec<TLorentzVector>", &tlvs, false),
            None
        );
    }

    #[test]
    fn other_types_and_other_shapes_are_not_classes() {
        let flat = record(&["pt", "eta", "phi", "mass"]);
        assert_eq!(class_column("MyClass", &flat, false), None);
        assert_eq!(class_column("TVector3", &flat, false), None);
        assert_eq!(class_column(P4, &record(&["a", "b"]), false), None);
        assert_eq!(class_column(P4, &FieldType::Float64, false), None);
        let ints = FieldType::untyped_record(
            ["x", "y", "z"]
                .iter()
                .map(|n| Field::new(*n, FieldType::Int32))
                .collect(),
        );
        assert_eq!(class_column("TVector3", &ints, false), None);
    }
}
