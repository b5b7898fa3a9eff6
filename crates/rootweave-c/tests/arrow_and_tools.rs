//! The C ABI's bulk reads to Arrow streams, appends through the Arrow C Data Interface,
//! merge and recovery, called as a C program calls them: files written through the C
//! writers, read back through `rw_read_arrow` into arrow-rs (the consumer side of the C
//! stream interface), every value compared.

use std::cell::Cell;
use std::ffi::{c_char, CStr, CString};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use arrow_array::cast::AsArray;
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type};
use arrow_array::{
    Array, ArrayRef, BooleanArray, FixedSizeListArray, Float32Array, Float64Array, Int32Array,
    Int64Array, LargeListArray, LargeStringArray, ListArray, RecordBatch, RecordBatchReader,
    StringArray, StructArray,
};
use arrow_data::ffi::FFI_ArrowArray;
use arrow_data::ArrayData;
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{DataType, Field, SchemaRef};
use rootweave_c::column::rw_column;
use rootweave_c::fill::{
    rw_fill_context, rw_fill_context_append, rw_fill_context_append_arrow,
    rw_fill_context_flush_cluster, rw_fill_context_free,
};
use rootweave_c::model::{rw_model, rw_model_add_field, rw_model_free, rw_model_new};
use rootweave_c::read::{rw_read_arrow, rw_read_entries, rw_read_options, rw_read_options_default};
use rootweave_c::status::{rw_last_error, rw_status};
use rootweave_c::tools::{rw_merge, rw_recover};
use rootweave_c::writer::{
    rw_ntuple_writer_recreate, rw_tree_writer_recreate, rw_writer, rw_writer_close,
    rw_writer_create_fill_context, rw_writer_free,
};

const NAME: &str = "Events";

/// The fields every file of these tests has, as C++ type names.
const FIELDS: [(&str, &str); 5] = [
    ("x", "float"),
    ("n", "std::int64_t"),
    ("v", "std::vector<float>"),
    ("s", "std::string"),
    ("b", "bool"),
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Format {
    Ntuple,
    Tree,
}

/// The columns of a range of entries, as the tests write and expect them.
#[derive(Debug, Default, PartialEq)]
struct Rows {
    x: Vec<f32>,
    n: Vec<i64>,
    v: Vec<Vec<f32>>,
    s: Vec<String>,
    b: Vec<bool>,
}

/// The values of entries `range`: each entry's own, so that order and gaps show.
fn expected(range: Range<u64>) -> Rows {
    let mut rows = Rows::default();
    for i in range {
        rows.x.push(i as f32 * 0.5);
        rows.n.push(i as i64 * 3 - 7);
        rows.v
            .push((0..i % 4).map(|k| i as f32 + k as f32 * 0.25).collect());
        rows.s.push(format!("entry-{i}"));
        rows.b.push(i % 3 == 0);
    }
    rows
}

/// A directory of one test's files under the system's temporary directory (named after
/// the test and the process), removed when the test ends.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("rootweave-c-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn c(text: &str) -> CString {
    CString::new(text).unwrap()
}

fn cpath(path: &Path) -> CString {
    c(path.to_str().unwrap())
}

fn last_error() -> String {
    // SAFETY: the library's message of this thread, valid until its next failing call.
    unsafe { CStr::from_ptr(rw_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// Asserts a call succeeded, showing its message if not.
fn ok(status: rw_status) {
    assert_eq!(status, rw_status::RW_OK, "{}", last_error());
}

fn model() -> *mut rw_model {
    let mut model = std::ptr::null_mut();
    // SAFETY: valid out-parameter; names and types are C strings.
    unsafe {
        ok(rw_model_new(&mut model));
        for (name, ty) in FIELDS {
            ok(rw_model_add_field(model, c(name).as_ptr(), c(ty).as_ptr()));
        }
    }
    model
}

/// A writer of the test fields in a new file at `path`, and a fill context of it.
fn writer(path: &Path, format: Format) -> (*mut rw_writer, *mut rw_fill_context) {
    let model = model();
    let mut writer = std::ptr::null_mut();
    let mut context = std::ptr::null_mut();
    // SAFETY: a live model, C strings, default options, valid out-parameters.
    unsafe {
        let make = match format {
            Format::Ntuple => rw_ntuple_writer_recreate,
            Format::Tree => rw_tree_writer_recreate,
        };
        ok(make(
            model,
            c(NAME).as_ptr(),
            cpath(path).as_ptr(),
            std::ptr::null(),
            &mut writer,
        ));
        rw_model_free(model);
        ok(rw_writer_create_fill_context(writer, &mut context));
    }
    (writer, context)
}

/// Commits the context and closes the writer.
fn close(writer: *mut rw_writer, context: *mut rw_fill_context) {
    // SAFETY: live handles, freed once.
    unsafe {
        rw_fill_context_free(context);
        ok(rw_writer_close(writer));
        rw_writer_free(writer);
    }
}

/// A leaf column of `values`.
fn leaf<T>(values: &[T]) -> rw_column {
    rw_column {
        values: values.as_ptr().cast(),
        offsets: std::ptr::null(),
        length: values.len(),
        children: std::ptr::null(),
        n_children: 0,
    }
}

/// Writes entries `range` through `rw_fill_context_append`, one cluster per `cluster`
/// entries.
fn write(path: &Path, format: Format, range: Range<u64>, cluster: u64) {
    let (writer, context) = writer(path, format);
    let mut start = range.start;
    while start < range.end {
        let end = (start + cluster).min(range.end);
        let rows = expected(start..end);
        let len = rows.x.len();
        let mut v_offsets = vec![0u64];
        let mut v_items = Vec::new();
        for items in &rows.v {
            v_items.extend_from_slice(items);
            v_offsets.push(v_items.len() as u64);
        }
        let mut s_offsets = vec![0u64];
        let mut s_bytes = Vec::new();
        for s in &rows.s {
            s_bytes.extend_from_slice(s.as_bytes());
            s_offsets.push(s_bytes.len() as u64);
        }
        let b: Vec<u8> = rows.b.iter().map(|&b| b as u8).collect();
        let items = leaf(&v_items);
        let columns = [
            leaf(&rows.x),
            leaf(&rows.n),
            rw_column {
                values: std::ptr::null(),
                offsets: v_offsets.as_ptr(),
                length: len,
                children: &items,
                n_children: 1,
            },
            rw_column {
                values: s_bytes.as_ptr().cast(),
                offsets: s_offsets.as_ptr(),
                length: len,
                children: std::ptr::null(),
                n_children: 0,
            },
            leaf(&b),
        ];
        // SAFETY: a live context; the columns point to memory alive during the calls.
        unsafe {
            ok(rw_fill_context_append(
                context,
                columns.as_ptr(),
                columns.len(),
                len,
            ));
            ok(rw_fill_context_flush_cluster(context));
        }
        start = end;
    }
    close(writer, context);
}

/// What `rw_read_arrow` gave: the batches the stream delivered, and its error if it
/// failed (an error status before any stream, or an error of the stream).
struct Read {
    /// The stream's schema (none if the call failed).
    schema: Option<SchemaRef>,
    batches: Vec<RecordBatch>,
    error: Option<(rw_status, String)>,
}

fn read(
    paths: &[&Path],
    name: Option<&str>,
    columns: &[&str],
    options: Option<rw_read_options>,
) -> Read {
    let paths: Vec<CString> = paths.iter().map(|p| cpath(p)).collect();
    let path_ptrs: Vec<*const c_char> = paths.iter().map(|p| p.as_ptr()).collect();
    let columns: Vec<CString> = columns.iter().map(|n| c(n)).collect();
    let column_ptrs: Vec<*const c_char> = columns.iter().map(|n| n.as_ptr()).collect();
    let name = name.map(c);
    let mut stream = FFI_ArrowArrayStream::empty();
    // SAFETY: arrays of C strings of the counts given; valid options and out-parameter.
    let status = unsafe {
        rw_read_arrow(
            path_ptrs.as_ptr(),
            path_ptrs.len(),
            name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
            column_ptrs.as_ptr(),
            column_ptrs.len(),
            options.as_ref().map_or(std::ptr::null(), |o| o as *const _),
            &mut stream,
        )
    };
    if status != rw_status::RW_OK {
        assert!(stream.release().is_none(), "a failed call made a stream");
        return Read {
            schema: None,
            batches: Vec::new(),
            error: Some((status, last_error())),
        };
    }
    let reader = RecordBatchStreamReader::try_new(stream).unwrap();
    let schema = Some(reader.schema());
    let mut batches = Vec::new();
    for batch in reader {
        match batch {
            Ok(batch) => batches.push(batch),
            Err(e) => {
                return Read {
                    schema,
                    batches,
                    error: Some((rw_status::RW_OK, e.to_string())),
                }
            }
        }
    }
    Read {
        schema,
        batches,
        error: None,
    }
}

/// The batches of a read that must succeed.
fn read_ok(
    paths: &[&Path],
    columns: &[&str],
    options: Option<rw_read_options>,
) -> Vec<RecordBatch> {
    let read = read(paths, Some(NAME), columns, options);
    if let Some((status, message)) = read.error {
        panic!("read of {paths:?} failed ({status:?}): {message}");
    }
    read.batches
}

/// The test fields of record batches, every value.
fn rows(batches: &[RecordBatch]) -> Rows {
    let mut rows = Rows::default();
    for batch in batches {
        let column = |name: &str| batch.column_by_name(name).unwrap().clone();
        rows.x
            .extend(column("x").as_primitive::<Float32Type>().values().iter());
        rows.n
            .extend(column("n").as_primitive::<Int64Type>().values().iter());
        let v = column("v");
        let v = v.as_list::<i64>();
        for i in 0..v.len() {
            let items = v.value(i);
            rows.v
                .push(items.as_primitive::<Float32Type>().values().to_vec());
        }
        let s = column("s");
        rows.s
            .extend(s.as_string::<i64>().iter().map(|s| s.unwrap().to_string()));
        let b = column("b");
        rows.b.extend(b.as_boolean().iter().map(|b| b.unwrap()));
        for column in batch.columns() {
            assert_eq!(column.null_count(), 0);
        }
    }
    rows
}

fn entries(path: &Path) -> u64 {
    let mut n = u64::MAX;
    // SAFETY: C strings and a valid out-parameter.
    unsafe {
        ok(rw_read_entries(
            cpath(path).as_ptr(),
            c(NAME).as_ptr(),
            &mut n,
        ))
    };
    n
}

#[test]
fn both_formats_read_back_through_arrow_streams() {
    let dir = TempDir::new("read");
    let a = dir.file("read-ntuple.root");
    let b = dir.file("read-ntuple-2.root");
    let tree = dir.file("read-tree.root");
    write(&a, Format::Ntuple, 0..2000, 500);
    write(&b, Format::Ntuple, 2000..2300, 500);
    write(&tree, Format::Tree, 0..2000, 500);
    for path in [&a, &tree] {
        assert_eq!(entries(path), 2000);
        let batches = read_ok(&[path], &[], None);
        // Every column, in the model's order, as Arrow types.
        let schema = batches[0].schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["x", "n", "v", "s", "b"], "{path:?}");
        assert_eq!(schema.field(0).data_type(), &DataType::Float32);
        assert_eq!(schema.field(1).data_type(), &DataType::Int64);
        assert!(
            matches!(schema.field(2).data_type(), DataType::LargeList(item) if item.data_type() == &DataType::Float32)
        );
        assert_eq!(schema.field(3).data_type(), &DataType::LargeUtf8);
        assert_eq!(schema.field(4).data_type(), &DataType::Boolean);
        // One batch per cluster, by default.
        assert_eq!(batches.len(), 4, "{path:?}");
        assert_eq!(rows(&batches), expected(0..2000), "{path:?}");
    }
    // Columns chosen and ordered; batches of at least 1000 entries on one thread.
    let options = rw_read_options {
        threads: 1,
        step_entries: 1000,
        ..rw_read_options_default()
    };
    let batches = read_ok(&[&a], &["s", "x"], Some(options));
    assert_eq!(batches.len(), 2);
    let schema = batches[0].schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["s", "x"]);
    let want = expected(0..2000);
    let s: Vec<String> = batches
        .iter()
        .flat_map(|b| {
            let s = b.column(0).as_string::<i64>().clone();
            s.iter().map(|s| s.unwrap().to_string()).collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(s, want.s);
    let x: Vec<f32> = batches
        .iter()
        .flat_map(|b| b.column(1).as_primitive::<Float32Type>().values().to_vec())
        .collect();
    assert_eq!(x, want.x);
    // Two files, one after the other.
    let batches = read_ok(&[&a, &b], &[], None);
    assert_eq!(rows(&batches), expected(0..2300));
    // A file without entries: the schema, no batch.
    let empty = dir.file("read-empty.root");
    for format in [Format::Ntuple, Format::Tree] {
        write(&empty, format, 0..0, 500);
        let read = read(&[&empty], Some(NAME), &[], None);
        assert!(
            read.error.is_none() && read.batches.is_empty(),
            "{format:?}"
        );
        assert_eq!(read.schema.unwrap().fields().len(), 5, "{format:?}");
    }
    // The object named in the path.
    let spec = PathBuf::from(format!("{}:{NAME}", tree.display()));
    let read = read(&[&spec], None, &["n"], None);
    assert!(read.error.is_none());
    let n: usize = read.batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(n, 2000);
}

thread_local! {
    static ARRAY_RELEASES: Cell<usize> = const { Cell::new(0) };
    static SCHEMA_RELEASES: Cell<usize> = const { Cell::new(0) };
}
static ARRAY_RELEASE: OnceLock<unsafe extern "C" fn(*mut FFI_ArrowArray)> = OnceLock::new();
static SCHEMA_RELEASE: OnceLock<unsafe extern "C" fn(*mut FFI_ArrowSchema)> = OnceLock::new();

/// Counts the release of an exported array, then releases it as arrow-rs does.
unsafe extern "C" fn count_array_release(array: *mut FFI_ArrowArray) {
    ARRAY_RELEASES.with(|n| n.set(n.get() + 1));
    // SAFETY: arrow-rs's release of the array it exported, called once by the consumer.
    unsafe { ARRAY_RELEASE.get().unwrap()(array) }
}

/// Counts the release of an exported schema, then releases it as arrow-rs does.
unsafe extern "C" fn count_schema_release(schema: *mut FFI_ArrowSchema) {
    SCHEMA_RELEASES.with(|n| n.set(n.get() + 1));
    // SAFETY: arrow-rs's release of the schema it exported, called once by the consumer.
    unsafe { SCHEMA_RELEASE.get().unwrap()(schema) }
}

/// A record batch exported as the C Data Interface's structs, whose releases are counted.
fn export(data: &ArrayData) -> (FFI_ArrowArray, FFI_ArrowSchema) {
    let mut array = FFI_ArrowArray::new(data);
    let mut schema = FFI_ArrowSchema::try_from(data.data_type()).unwrap();
    // SAFETY: the counting callbacks chain to arrow-rs's own.
    unsafe {
        let original = array.set_release(Some(count_array_release)).unwrap();
        ARRAY_RELEASE.get_or_init(|| original);
        let original = schema.set_release(Some(count_schema_release)).unwrap();
        SCHEMA_RELEASE.get_or_init(|| original);
    }
    (array, schema)
}

/// Appends an exported batch; checks both structs were taken and released once.
fn append_arrow(context: *mut rw_fill_context, batch: &StructArray) -> rw_status {
    append_data(context, &batch.to_data())
}

/// As `append_arrow`, for array data (which may have an offset of its own).
fn append_data(context: *mut rw_fill_context, batch: &ArrayData) -> rw_status {
    let (mut array, mut schema) = export(batch);
    let before = (
        ARRAY_RELEASES.with(Cell::get),
        SCHEMA_RELEASES.with(Cell::get),
    );
    // SAFETY: a live context and valid exported structs.
    let status = unsafe { rw_fill_context_append_arrow(context, &mut array, &mut schema) };
    let message = last_error();
    assert!(array.is_released() && schema.release().is_none());
    let after = (
        ARRAY_RELEASES.with(Cell::get),
        SCHEMA_RELEASES.with(Cell::get),
    );
    assert_eq!(
        (after.0 - before.0, after.1 - before.1),
        (1, 1),
        "{status:?}: {message}"
    );
    status
}

fn field(name: &str, array: &ArrayRef) -> (Arc<Field>, ArrayRef) {
    (
        Arc::new(Field::new(name, array.data_type().clone(), false)),
        array.clone(),
    )
}

/// The test fields of entries `range` as an Arrow struct array: 32-bit offsets (List,
/// Utf8) or 64-bit ones (LargeList, LargeUtf8).
fn arrow_batch(range: Range<u64>, large: bool) -> StructArray {
    let rows = expected(range);
    let x: ArrayRef = Arc::new(Float32Array::from(rows.x.clone()));
    let n: ArrayRef = Arc::new(Int64Array::from(rows.n.clone()));
    let items = rows
        .v
        .iter()
        .map(|v| Some(v.iter().map(|&f| Some(f)).collect::<Vec<_>>()));
    let (v, s): (ArrayRef, ArrayRef) = if large {
        (
            Arc::new(LargeListArray::from_iter_primitive::<Float32Type, _, _>(
                items,
            )),
            Arc::new(LargeStringArray::from(rows.s.clone())),
        )
    } else {
        (
            Arc::new(ListArray::from_iter_primitive::<Float32Type, _, _>(items)),
            Arc::new(StringArray::from(rows.s.clone())),
        )
    };
    let b: ArrayRef = Arc::new(BooleanArray::from(rows.b.clone()));
    StructArray::from(vec![
        field("x", &x),
        field("n", &n),
        field("v", &v),
        field("s", &s),
        field("b", &b),
    ])
}

#[test]
fn arrow_appends_read_back_equal() {
    let dir = TempDir::new("append");
    for format in [Format::Ntuple, Format::Tree] {
        let path = dir.file(&format!("append-{format:?}.root"));
        let (writer, context) = writer(&path, format);
        ok(append_arrow(context, &arrow_batch(0..700, false)));
        // Slices: offsets and lengths are honoured (entries 700..1200 of a batch of
        // 690..1300), booleans at an offset that is no multiple of 8. arrow-rs slices
        // the children of a struct array...
        let wide = arrow_batch(690..1300, true);
        ok(append_arrow(context, &wide.slice(10, 500)));
        // ... and the C Data Interface lets the struct array have the offset.
        let narrow = arrow_batch(1190..1500, false).to_data();
        let moved = narrow.into_builder().offset(10).len(300).build().unwrap();
        ok(append_data(context, &moved));
        close(writer, context);
        assert_eq!(entries(&path), 1500);
        let batches = read_ok(&[&path], &[], None);
        assert_eq!(rows(&batches), expected(0..1500), "{format:?}");
    }
}

#[test]
fn bad_arrow_batches_are_refused_and_released() {
    let dir = TempDir::new("append-bad");
    let path = dir.file("append-bad.root");
    let (writer, context) = writer(&path, Format::Ntuple);
    let good = arrow_batch(0..10, false);
    // float64 for a float field.
    let mut columns: Vec<(Arc<Field>, ArrayRef)> = good
        .fields()
        .iter()
        .cloned()
        .zip(good.columns().iter().cloned())
        .collect();
    let doubles: ArrayRef = Arc::new(Float64Array::from(vec![0.5; 10]));
    columns[0] = field("x", &doubles);
    let status = append_arrow(context, &StructArray::from(columns.clone()));
    assert_eq!(status, rw_status::RW_INVALID_ARGUMENT);
    let message = last_error();
    assert!(
        message.contains("'x'") && message.contains("Float64") && message.contains("float"),
        "{message}"
    );
    // A null where the field takes none.
    let nulls: ArrayRef = Arc::new(Float32Array::from(
        (0..10).map(|i| (i != 3).then_some(1.0)).collect::<Vec<_>>(),
    ));
    columns[0] = (Arc::new(Field::new("x", DataType::Float32, true)), nulls);
    let status = append_arrow(context, &StructArray::from(columns.clone()));
    assert_eq!(status, rw_status::RW_INVALID_ARGUMENT);
    assert!(
        last_error().contains("'x'") && last_error().contains("null"),
        "{}",
        last_error()
    );
    // A column of another name.
    columns[0] = field(
        "y",
        &(Arc::new(Float32Array::from(vec![0.5; 10])) as ArrayRef),
    );
    let status = append_arrow(context, &StructArray::from(columns.clone()));
    assert_eq!(status, rw_status::RW_INVALID_ARGUMENT);
    assert!(
        last_error().contains("'y'") && last_error().contains("'x'"),
        "{}",
        last_error()
    );
    // Too few columns.
    let status = append_arrow(context, &StructArray::from(columns[..4].to_vec()));
    assert_eq!(status, rw_status::RW_INVALID_ARGUMENT);
    // A null context: the structs are still taken and released.
    let (mut array, mut schema) = export(&good.to_data());
    let before = ARRAY_RELEASES.with(Cell::get);
    // SAFETY: valid exported structs; the null context is refused.
    let status =
        unsafe { rw_fill_context_append_arrow(std::ptr::null_mut(), &mut array, &mut schema) };
    assert_eq!(status, rw_status::RW_INVALID_ARGUMENT);
    assert_eq!(ARRAY_RELEASES.with(Cell::get) - before, 1);
    // Nothing bad was appended; the good batch still goes in.
    ok(append_arrow(context, &good));
    close(writer, context);
    assert_eq!(rows(&read_ok(&[&path], &[], None)), expected(0..10));
}

#[test]
fn arrow_appends_of_arrays_pairs_and_optionals() {
    let dir = TempDir::new("append-nested");
    let path = dir.file("append-nested.root");
    let mut model = std::ptr::null_mut();
    let mut writer = std::ptr::null_mut();
    let mut context = std::ptr::null_mut();
    let fields = [
        ("a", "std::array<float,3>"),
        ("p", "std::pair<std::int32_t,double>"),
        ("o", "std::optional<std::int32_t>"),
    ];
    // SAFETY: C strings, default options, valid out-parameters.
    unsafe {
        ok(rw_model_new(&mut model));
        for (name, ty) in fields {
            ok(rw_model_add_field(model, c(name).as_ptr(), c(ty).as_ptr()));
        }
        ok(rw_ntuple_writer_recreate(
            model,
            c(NAME).as_ptr(),
            cpath(&path).as_ptr(),
            std::ptr::null(),
            &mut writer,
        ));
        rw_model_free(model);
        ok(rw_writer_create_fill_context(writer, &mut context));
    }
    let n = 50;
    let arrays = (0..n).map(|i| Some((0..3).map(|k| Some((i * 3 + k) as f32)).collect::<Vec<_>>()));
    let a: ArrayRef =
        Arc::new(FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(arrays, 3));
    let first: ArrayRef = Arc::new(Int32Array::from((0..n).collect::<Vec<i32>>()));
    let second: ArrayRef = Arc::new(Float64Array::from(
        (0..n).map(|i| i as f64 / 4.0).collect::<Vec<_>>(),
    ));
    // A pair's members are matched by position, whatever their names.
    let p: ArrayRef = Arc::new(StructArray::from(vec![
        field("first", &first),
        field("second", &second),
    ]));
    // An optional: a list of 0 or 1 items, absent as null or as an empty list.
    let present = |i: i32| i % 3 != 0;
    let o: ArrayRef = Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(
        (0..n).map(|i| match i % 6 {
            0 => None,
            3 => Some(vec![]),
            _ => Some(vec![Some(i * 10)]),
        }),
    ));
    let batch = StructArray::from(vec![
        field("a", &a),
        field("p", &p),
        (Arc::new(Field::new("o", o.data_type().clone(), true)), o),
    ]);
    ok(append_arrow(context, &batch));
    close(writer, context);

    let batches = read_ok(&[&path], &[], None);
    let mut got_a = Vec::new();
    let mut got_p = Vec::new();
    let mut got_o = Vec::new();
    for batch in &batches {
        let a = batch.column(0).as_fixed_size_list();
        got_a.extend(
            a.values()
                .as_primitive::<Float32Type>()
                .values()
                .iter()
                .copied(),
        );
        let p = batch.column(1).as_struct();
        let (first, second) = (
            p.column(0).as_primitive::<Int32Type>(),
            p.column(1).as_primitive::<Float64Type>(),
        );
        got_p.extend(
            first
                .values()
                .iter()
                .copied()
                .zip(second.values().iter().copied()),
        );
        got_o.extend(batch.column(2).as_primitive::<Int32Type>().iter());
    }
    let want_a: Vec<f32> = (0..n * 3).map(|v| v as f32).collect();
    let want_p: Vec<(i32, f64)> = (0..n).map(|i| (i, i as f64 / 4.0)).collect();
    let want_o: Vec<Option<i32>> = (0..n).map(|i| present(i).then_some(i * 10)).collect();
    assert_eq!((got_a, got_p, got_o), (want_a, want_p, want_o));
}

#[test]
fn missing_and_damaged_files_fail_naming_them() {
    let dir = TempDir::new("damaged");
    let missing = dir.file("does-not-exist.root");
    let read1 = read(&[&missing], Some(NAME), &[], None);
    let (status, message) = read1.error.expect("a missing file fails");
    assert_ne!(status, rw_status::RW_OK);
    assert!(message.contains("does-not-exist.root"), "{message}");
    let mut n = 0;
    // SAFETY: C strings and a valid out-parameter.
    let status = unsafe { rw_read_entries(cpath(&missing).as_ptr(), c(NAME).as_ptr(), &mut n) };
    assert_ne!(status, rw_status::RW_OK);
    assert!(
        last_error().contains("does-not-exist.root"),
        "{}",
        last_error()
    );

    let good = dir.file("damage-source.root");
    write(&good, Format::Ntuple, 0..2000, 500);
    // A missing object, a missing column.
    let (status, message) = read(&[&good], Some("Nope"), &[], None).error.unwrap();
    assert_ne!(status, rw_status::RW_OK);
    assert!(message.contains("Nope"), "{message}");
    let (status, message) = read(&[&good], Some(NAME), &["x", "nope"], None)
        .error
        .unwrap();
    assert_ne!(status, rw_status::RW_OK);
    assert!(message.contains("nope"), "{message}");

    let bytes = std::fs::read(&good).unwrap();
    for format in [Format::Ntuple, Format::Tree] {
        let source = dir.file(&format!("damage-{format:?}.root"));
        write(&source, format, 0..2000, 500);
        let bytes = std::fs::read(&source).unwrap();
        // Cut in half: the metadata at the end is gone.
        let half = dir.file(&format!("half-{format:?}.root"));
        std::fs::write(&half, &bytes[..bytes.len() / 2]).unwrap();
        let (status, message) = read(&[&half], Some(NAME), &[], None).error.unwrap();
        assert_ne!(status, rw_status::RW_OK);
        assert!(
            message.contains(half.to_str().unwrap()),
            "{format:?}: {message}"
        );
        // SAFETY: C strings and a valid out-parameter.
        let status = unsafe { rw_read_entries(cpath(&half).as_ptr(), c(NAME).as_ptr(), &mut n) };
        assert_ne!(status, rw_status::RW_OK);
        // The first file good, the second cut: the stream ends with the second's error.
        let read2 = read(&[&source, &half], Some(NAME), &[], None);
        assert_eq!(read2.batches.len(), 4, "{format:?}");
        let (_, message) = read2.error.expect("the cut file fails");
        assert!(
            message.contains(half.to_str().unwrap()),
            "{format:?}: {message}"
        );
    }
    // Pages damaged in the middle: the metadata opens, the read of a batch fails with the
    // file's name and the byte offset, through the stream.
    let mut damaged = bytes.clone();
    let middle = damaged.len() / 2;
    for b in &mut damaged[middle..middle + 64] {
        *b ^= 0x5a;
    }
    let path = dir.file("damaged-pages.root");
    std::fs::write(&path, &damaged).unwrap();
    let read3 = read(&[&path], Some(NAME), &[], None);
    let (_, message) = read3.error.expect("damaged pages fail");
    assert!(message.contains(path.to_str().unwrap()), "{message}");
    assert!(read3.batches.len() < 4);
}

#[test]
fn merge_joins_entries_in_order() {
    let dir = TempDir::new("merge");
    for format in [Format::Ntuple, Format::Tree] {
        let a = dir.file(&format!("merge-a-{format:?}.root"));
        let b = dir.file(&format!("merge-b-{format:?}.root"));
        let out = dir.file(&format!("merge-out-{format:?}.root"));
        write(&a, format, 0..1000, 400);
        write(&b, format, 1000..2500, 400);
        let inputs = [cpath(&a), cpath(&b)];
        let ptrs: Vec<*const c_char> = inputs.iter().map(|p| p.as_ptr()).collect();
        // SAFETY: C strings, `ptrs.len()` of them.
        unsafe { ok(rw_merge(cpath(&out).as_ptr(), ptrs.as_ptr(), ptrs.len())) };
        assert_eq!(entries(&out), 2500);
        assert_eq!(
            rows(&read_ok(&[&out], &[], None)),
            expected(0..2500),
            "{format:?}"
        );
        // An existing output is not overwritten.
        // SAFETY: as above.
        let status = unsafe { rw_merge(cpath(&out).as_ptr(), ptrs.as_ptr(), ptrs.len()) };
        assert_eq!(status, rw_status::RW_INVALID_ARGUMENT);
        assert!(
            last_error().contains(out.to_str().unwrap()),
            "{}",
            last_error()
        );
    }
}

#[test]
fn recover_keeps_the_whole_clusters_of_a_cut_file() {
    let dir = TempDir::new("recover");
    let path = dir.file("recover-source.root");
    write(&path, Format::Ntuple, 0..2000, 200);
    let bytes = std::fs::read(&path).unwrap();
    let cut = dir.file("recover-cut.root");
    std::fs::write(&cut, &bytes[..bytes.len() * 6 / 10]).unwrap();
    let out = dir.file("recover-out.root");
    let mut kept = u64::MAX;
    // SAFETY: C strings and a valid out-parameter.
    unsafe {
        ok(rw_recover(
            cpath(&cut).as_ptr(),
            cpath(&out).as_ptr(),
            &mut kept,
        ))
    };
    assert!(
        kept > 0 && kept < 2000 && kept % 200 == 0,
        "{kept} entries kept"
    );
    assert_eq!(entries(&out), kept);
    assert_eq!(rows(&read_ok(&[&out], &[], None)), expected(0..kept));
    // A file that is no ROOT file at all.
    let junk = dir.file("recover-junk.root");
    std::fs::write(&junk, b"not a ROOT file").unwrap();
    // SAFETY: C strings; a null count is allowed.
    let status = unsafe {
        rw_recover(
            cpath(&junk).as_ptr(),
            cpath(&dir.file("recover-junk-out.root")).as_ptr(),
            std::ptr::null_mut(),
        )
    };
    assert_ne!(status, rw_status::RW_OK);
    assert!(
        last_error().contains("recover-junk.root"),
        "{}",
        last_error()
    );
}
