//! The model: the fields of an RNTuple or TTree by name and C++ type name, and the classes
//! they may use, as ROOT's `RNTupleModel` declares them.

use std::collections::{HashMap, HashSet};
use std::ffi::c_char;

use rootweave::rntuple::{Field, FieldType};

use crate::status::{guard, handle, handle_mut, put, rw_status, text, Failure};
use crate::type_name::parse;

/// The fields of an RNTuple or TTree, each a name and a C++ type, and the classes they
/// use. Made on one thread; a writer copies it, so it may be freed or reused once the
/// writer is made. Not for use by two threads at once.
pub struct rw_model {
    pub(crate) fields: Vec<Field>,
    /// The fields' names, to refuse a second field of a name at once however many there are.
    field_names: HashSet<String>,
    classes: HashMap<String, FieldType>,
    /// Type names handed out by `rw_model_field_type_name`, kept while the model lives.
    names: Vec<std::ffi::CString>,
}

/// Makes an empty model in `*out` (free it with `rw_model_free`).
///
/// # Safety
/// `out` must be valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rw_model_new(out: *mut *mut rw_model) -> rw_status {
    guard(|| {
        let model = Box::new(rw_model {
            fields: Vec::new(),
            field_names: HashSet::new(),
            classes: HashMap::new(),
            names: Vec::new(),
        });
        // SAFETY: the caller promises `out` is valid for a write.
        unsafe { put(out, Box::into_raw(model), "model") }
    })
}

/// Frees a model (null is ignored).
///
/// # Safety
/// `model` must be null or a model of `rw_model_new` not freed before.
#[no_mangle]
pub unsafe extern "C" fn rw_model_free(model: *mut rw_model) {
    if !model.is_null() {
        // SAFETY: a model made by `rw_model_new` and not freed yet, as the caller promises.
        drop(unsafe { Box::from_raw(model) });
    }
}

/// Adds a field called `name` of the C++ type `type_name` as ROOT spells it: `"bool"`,
/// `"char"`, `"std::int8_t"` ... `"std::uint64_t"`, `"float"`, `"double"`, `"std::string"`,
/// `"std::vector<T>"`, `"std::array<T,N>"`, `"std::optional<T>"`, `"std::pair<T1,T2>"`,
/// `"std::tuple<T...>"`, or a class declared with `rw_model_add_class`. ROOT's aliases
/// (`"Float_t"`, `"ULong64_t"`) and C's spellings (`"int"`, `"unsigned long"`) are taken
/// as ROOT normalises them. An unknown type or a second field of the same name is
/// `RW_INVALID_ARGUMENT`, naming the type and the position in it.
///
/// # Safety
/// `model` must be a live model; `name` and `type_name` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn rw_model_add_field(
    model: *mut rw_model,
    name: *const c_char,
    type_name: *const c_char,
) -> rw_status {
    guard(|| {
        // SAFETY: the caller's promises, checked for null by the helpers.
        let (model, name, type_name) = unsafe {
            (
                handle_mut(model, "model")?,
                text(name, "field name")?,
                text(type_name, "type name")?,
            )
        };
        if model.field_names.contains(name) {
            return Err(Failure::invalid(format!(
                "the model has a field called '{name}' already"
            )));
        }
        let ty = parse(type_name, &model.classes)
            .map_err(|e| Failure::invalid(format!("field '{name}': {e}")))?;
        model.field_names.insert(name.to_string());
        model.fields.push(Field::new(name, ty));
        Ok(())
    })
}

/// Declares a class (a C++ struct) that fields may then use by name: `n_members` members,
/// each a name and a type name (numbers, strings, standard containers, classes declared
/// before). `version` is the class version written with it (ROOT's `ClassDef` number, 1
/// if the class has none). The members' order is the struct's.
///
/// # Safety
/// `model` must be a live model; `class_name` a NUL-terminated string; `member_names` and
/// `member_types` arrays of `n_members` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn rw_model_add_class(
    model: *mut rw_model,
    class_name: *const c_char,
    version: u32,
    n_members: usize,
    member_names: *const *const c_char,
    member_types: *const *const c_char,
) -> rw_status {
    guard(|| {
        // SAFETY: the caller's promises, checked for null by the helpers.
        let (model, class_name) =
            unsafe { (handle_mut(model, "model")?, text(class_name, "class name")?) };
        if n_members > 0 && (member_names.is_null() || member_types.is_null()) {
            return Err(Failure::invalid("the member arrays are null"));
        }
        if parse(class_name, &model.classes).is_ok() {
            return Err(Failure::invalid(format!(
                "class '{class_name}' names a type the model knows already"
            )));
        }
        let mut members = Vec::with_capacity(n_members);
        for i in 0..n_members {
            // SAFETY: both arrays hold `n_members` strings, as the caller promises.
            let (name, ty) = unsafe {
                (
                    text(*member_names.add(i), "member name")?,
                    text(*member_types.add(i), "member type name")?,
                )
            };
            if members.iter().any(|m: &Field| m.name == name) {
                return Err(Failure::invalid(format!(
                    "class '{class_name}' has two members called '{name}'"
                )));
            }
            let ty = parse(ty, &model.classes).map_err(|e| {
                Failure::invalid(format!("class '{class_name}', member '{name}': {e}"))
            })?;
            members.push(Field::new(name, ty));
        }
        let class = FieldType::class(class_name, version, members);
        model.classes.insert(class_name.to_string(), class);
        Ok(())
    })
}

/// The number of fields of `model` in `*out`.
///
/// # Safety
/// `model` must be a live model and `out` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rw_model_field_count(
    model: *const rw_model,
    out: *mut usize,
) -> rw_status {
    guard(|| {
        // SAFETY: the caller's promises, checked for null by the helpers.
        unsafe {
            let model = handle(model, "model")?;
            put(out, model.fields.len(), "count")
        }
    })
}

/// The type name of field `index` as ROOT spells it (`"std::vector<float>"`,
/// `"std::int32_t"`, a class name), in `*out`: a NUL-terminated string owned by the
/// model, valid until the model is freed. For wrappers that check the type of
/// the values a caller binds against the field's.
///
/// # Safety
/// `model` must be a live model and `out` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rw_model_field_type_name(
    model: *mut rw_model,
    index: usize,
    out: *mut *const c_char,
) -> rw_status {
    guard(|| {
        // SAFETY: the caller's promises, checked for null by the helpers.
        let model = unsafe { handle_mut(model, "model")? };
        let field = model.fields.get(index).ok_or_else(|| {
            Failure::invalid(format!(
                "field {index} asked of a model of {} fields",
                model.fields.len()
            ))
        })?;
        let name = std::ffi::CString::new(field.ty.type_name())
            .map_err(|_| Failure::invalid("a type name holds a NUL character"))?;
        model.names.push(name);
        let name = model.names.last().expect("just pushed");
        // SAFETY: as the caller promises.
        unsafe { put(out, name.as_ptr(), "type name") }
    })
}
