//! What the C writers refuse, called as a C program calls them: columns whose lengths,
//! offsets or bytes do not fit the model, null handles, contexts of closed writers. Each
//! is a status and a message naming the field, never a crash; a good batch still goes in
//! afterwards.

use std::ffi::{c_char, CStr, CString};
use std::ptr::{null, null_mut};

use rootweave_c::column::rw_column;
use rootweave_c::fill::{rw_fill_context, rw_fill_context_append, rw_fill_context_free};
use rootweave_c::model::{rw_model, rw_model_add_field, rw_model_free, rw_model_new};
use rootweave_c::status::{rw_last_error, rw_status};
use rootweave_c::writer::{
    rw_ntuple_writer_recreate, rw_writer, rw_writer_close, rw_writer_create_fill_context,
    rw_writer_free, rw_writer_wait_for_budget,
};

fn last_error() -> String {
    // SAFETY: the library's message of this thread, NUL-terminated.
    unsafe { CStr::from_ptr(rw_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn model(fields: &[(&str, &str)]) -> *mut rw_model {
    let mut model: *mut rw_model = null_mut();
    // SAFETY: valid out-pointer and NUL-terminated strings.
    unsafe {
        assert_eq!(rw_model_new(&mut model), rw_status::RW_OK);
        for (name, ty) in fields {
            let (name, ty) = (CString::new(*name).unwrap(), CString::new(*ty).unwrap());
            assert_eq!(
                rw_model_add_field(model, name.as_ptr(), ty.as_ptr()),
                rw_status::RW_OK
            );
        }
    }
    model
}

fn leaf<T>(values: &[T]) -> rw_column {
    rw_column {
        values: values.as_ptr().cast(),
        offsets: null(),
        length: values.len(),
        children: null(),
        n_children: 0,
    }
}

fn list(offsets: &[u64], items: &rw_column) -> rw_column {
    rw_column {
        values: null(),
        offsets: offsets.as_ptr(),
        length: offsets.len() - 1,
        children: items,
        n_children: 1,
    }
}

/// An RNTuple writer of `fields` in a temporary file, and a context of it.
fn writer(fields: &[(&str, &str)], file: &str) -> (*mut rw_writer, *mut rw_fill_context) {
    let m = model(fields);
    let path = std::env::temp_dir().join(format!("rw-c-{}-{file}", std::process::id()));
    let path = CString::new(path.to_str().unwrap()).unwrap();
    let name = CString::new("Events").unwrap();
    let mut w: *mut rw_writer = null_mut();
    let mut c: *mut rw_fill_context = null_mut();
    // SAFETY: live model, NUL-terminated strings, valid out-pointers.
    unsafe {
        assert_eq!(
            rw_ntuple_writer_recreate(m, name.as_ptr(), path.as_ptr(), null(), &mut w),
            rw_status::RW_OK
        );
        rw_model_free(m);
        assert_eq!(rw_writer_create_fill_context(w, &mut c), rw_status::RW_OK);
    }
    (w, c)
}

fn append(c: *mut rw_fill_context, columns: &[rw_column], entries: usize) -> rw_status {
    // SAFETY: a live context and columns valid for the lengths they claim.
    unsafe { rw_fill_context_append(c, columns.as_ptr(), columns.len(), entries) }
}

/// The offsets of `v`, the bytes of `b`, the offsets of `o`, the entries claimed, and the
/// message the batch must get.
type Case<'a> = (&'a [u64], &'a [u8], &'a [u64], usize, &'a str);

#[test]
fn columns_that_do_not_fit_the_model_are_refused_with_the_field_named() {
    let (w, c) = writer(
        &[
            ("n", "std::int32_t"),
            ("v", "std::vector<float>"),
            ("b", "bool"),
            ("o", "std::optional<double>"),
        ],
        "checks.root",
    );
    let n = [1i32, 2, 3];
    let items = [1.0f32, 2.0, 3.0];
    let b = [1u8, 0, 1];
    let d = [0.5f64, 1.5];
    let good_v = [0u64, 1, 1, 3];
    let good_o = [0u64, 1, 1, 2];
    let columns = |v: &[u64], b: &[u8], o: &[u64]| {
        let (vi, oi) = (Box::new(leaf(&items)), Box::new(leaf(&d)));
        let v = list(v, Box::leak(vi));
        let o = list(o, Box::leak(oi));
        vec![leaf(&n), v, leaf(b), o]
    };
    let cases: [Case; 7] = [
        (&good_v, &b, &good_o, 4, "'n': 3 entries given where 4"),
        (&[1, 1, 2, 3], &b, &good_o, 3, "'v': the first offset is 1"),
        (&[0, 2, 1, 3], &b, &good_o, 3, "'v': offset 2 (1) is below"),
        (&[0, 1, 2, 4], &b, &good_o, 3, "'v': 4 items needed"),
        (
            &good_v,
            &[1, 2, 0],
            &good_o,
            3,
            "'b': value 1 is not a bool",
        ),
        (&good_v, &b, &[0, 2, 2, 2], 3, "'o': entry 0 of an optional"),
        (&good_v, &b, &[0, 1, 2, 3], 3, "'o': 3 items needed"),
    ];
    for (v, bytes, o, entries, message) in cases {
        let status = append(c, &columns(v, bytes, o), entries);
        assert_eq!(status, rw_status::RW_INVALID_ARGUMENT, "{message}");
        assert!(
            last_error().contains(message),
            "{} lacks {message}",
            last_error()
        );
    }
    let status = append(c, &columns(&good_v, &b, &good_o)[..3], 3);
    assert_eq!(status, rw_status::RW_INVALID_ARGUMENT);
    assert!(last_error().contains("3 columns given for a model of 4 fields"));
    // Nothing of the above went in; a good batch does.
    assert_eq!(
        append(c, &columns(&good_v, &b, &good_o), 3),
        rw_status::RW_OK
    );
    // SAFETY: live handles, freed once.
    unsafe {
        assert_eq!(rw_writer_close(w), rw_status::RW_OK);
        assert_eq!(
            append(c, &columns(&good_v, &b, &good_o), 3),
            rw_status::RW_CLOSED
        );
        assert!(last_error().contains("closed"));
        rw_fill_context_free(c);
        rw_writer_free(w);
    }
}

#[test]
fn null_handles_and_bad_type_names_are_statuses() {
    // SAFETY: null pointers are what these calls must refuse.
    unsafe {
        assert_eq!(append(null_mut(), &[], 0), rw_status::RW_INVALID_ARGUMENT);
        assert!(last_error().contains("fill context is null"));
        let mut out: *mut rw_writer = null_mut();
        assert_eq!(
            rw_ntuple_writer_recreate(null(), null(), null(), null(), &mut out),
            rw_status::RW_INVALID_ARGUMENT
        );
        assert!(out.is_null());
        let m = model(&[("x", "float")]);
        let (name, ty) = (c"y", c"std::map<int,float>");
        assert_eq!(
            rw_model_add_field(m, name.as_ptr(), ty.as_ptr() as *const c_char),
            rw_status::RW_INVALID_ARGUMENT
        );
        assert!(
            last_error().contains("unknown type 'std::map'"),
            "{}",
            last_error()
        );
        assert_eq!(
            rw_model_add_field(m, c"x".as_ptr(), c"float".as_ptr()),
            rw_status::RW_INVALID_ARGUMENT
        );
        assert!(last_error().contains("a field called 'x' already"));
        rw_model_free(m);
        // Freeing null is allowed.
        rw_model_free(null_mut());
        rw_writer_free(null_mut());
        rw_fill_context_free(null_mut());
    }
}

#[test]
fn waiting_for_budget_ends_at_its_timeout() {
    let (w, c) = writer(&[("n", "std::int32_t")], "wait.root");
    let mut freed = true;
    // SAFETY: live handles and a valid out-pointer.
    unsafe {
        assert_eq!(
            rw_writer_wait_for_budget(w, 10, &mut freed),
            rw_status::RW_OK
        );
        assert!(!freed, "nothing was given back");
        rw_fill_context_free(c);
        rw_writer_free(w);
    }
}
