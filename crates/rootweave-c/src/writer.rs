//! The parallel writers: an RNTuple or a TTree written from many threads, each through
//! its own fill context (see `fill`), as ROOT's `RNTupleParallelWriter`; their options,
//! memory budget and the callback that says when budget is given back.

use std::ffi::c_char;
use std::sync::{Arc, Mutex, MutexGuard};

use rootweave::compress::Compression;
use rootweave::container::FileWriter;
use rootweave::rntuple::{
    Field, FieldType, RNTupleParallelOptions, RNTupleParallelWriter, RNTupleWriteOptions,
};
use rootweave::tree_layout::{FieldOptions, TreeLayout};
use rootweave::ttree::{TTreeParallelOptions, TTreeParallelWriter, TTreeWriteOptions};

use crate::file::{open_file, rw_file};
use crate::fill::{rw_fill_context, Context};
use crate::model::rw_model;
use crate::status::{guard, handle, put, rw_status, text, Failure};

/// How a writer writes. Start from `rw_writer_options_default()` and change fields.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rw_writer_options {
    /// ROOT's compression setting, algorithm * 100 + level: 505 zstd level 5, 404 LZ4, 101
    /// zlib level 1, 0 none; -1 for the format's default (RNTuple 505, TTree 101).
    pub compression: i32,
    /// Bytes that buffered and unwritten data may take in all, across every fill context
    /// (0: 256 MiB). A context that would exceed it writes its own cluster, then waits (or
    /// returns `RW_WOULD_BLOCK` from the `try` calls).
    pub memory_budget: u64,
    /// The stored size a context's cluster aims at (0: the format's default: 128 MiB for
    /// RNTuple as ROOT's `ApproxZippedClusterSize`, 30 MB for TTree as ROOT's auto-flush).
    pub cluster_bytes: u64,
    /// Clusters enter the file in the order of the sequence numbers given with
    /// `rw_fill_context_append_sequence` (the entry order is then the caller's, whatever
    /// the threads' timing); the other fill calls are then refused.
    pub ordered: bool,
}

/// The default options.
#[no_mangle]
pub extern "C" fn rw_writer_options_default() -> rw_writer_options {
    rw_writer_options {
        compression: -1,
        memory_budget: 0,
        cluster_bytes: 0,
        ordered: false,
    }
}

/// The writer of one RNTuple or TTree. Thread-safe: any thread may make fill contexts
/// (`rw_writer_create_fill_context`) and read its figures; close it once.
pub struct rw_writer {
    kind: Mutex<Option<Kind>>,
    fields: Arc<Vec<Field>>,
    layout: Option<Arc<TreeLayout>>,
    /// The shared file of an appended writer, held until the writer is closed.
    file: Mutex<Option<Arc<FileWriter>>>,
    budget: Arc<rootweave::parallel::MemoryBudget>,
}

enum Kind {
    Ntuple(RNTupleParallelWriter),
    Tree(TTreeParallelWriter),
}

/// Closes a writer: commits every context's entries and writes the metadata.
fn close(kind: Kind) -> Result<(), Failure> {
    match kind {
        Kind::Ntuple(w) => w.close().map(|_| ()),
        Kind::Tree(w) => w.close().map(|_| ()),
    }
    .map_err(Failure::from)
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn compression(setting: i32, default: Compression) -> Result<Compression, Failure> {
    if setting < 0 {
        return Ok(default);
    }
    Compression::from_root_setting(setting).map_err(Failure::from)
}

fn ntuple_options(o: &rw_writer_options) -> Result<RNTupleParallelOptions, Failure> {
    let mut write = RNTupleWriteOptions::default();
    write.compression = compression(o.compression, Compression::ROOT_RNTUPLE_DEFAULT)?;
    if o.cluster_bytes > 0 {
        write.cluster_target_size = o.cluster_bytes;
    }
    Ok(RNTupleParallelOptions::default()
        .with_write(write)
        .with_memory_budget(budget_bytes(o))
        .with_ordered(o.ordered))
}

fn tree_options(o: &rw_writer_options) -> Result<TTreeParallelOptions, Failure> {
    let mut write = TTreeWriteOptions::default()
        .with_compression(compression(o.compression, Compression::ROOT_FILE_DEFAULT)?);
    if o.cluster_bytes > 0 {
        write.auto_flush_bytes = o.cluster_bytes;
    }
    Ok(TTreeParallelOptions::default()
        .with_write(write)
        .with_memory_budget(budget_bytes(o))
        .with_ordered(o.ordered))
}

fn budget_bytes(o: &rw_writer_options) -> u64 {
    if o.memory_budget == 0 {
        256 << 20
    } else {
        o.memory_budget
    }
}

/// The branches of a model's fields as a C++ framework's `TTree::Branch` calls make them:
/// a `std::vector` of numbers or strings a `std::vector` branch, a class split as ROOT
/// splits it.
fn tree_layout(fields: &[Field]) -> Result<TreeLayout, Failure> {
    // Found once, not per field: models of 10,000 fields exist.
    let vectors: std::collections::HashSet<&str> = fields
        .iter()
        .filter(|f| matches!(&f.ty, FieldType::Vector(item) if item.number().is_some()))
        .map(|f| f.name.as_str())
        .collect();
    Ok(TreeLayout::new(fields, |name| {
        match vectors.contains(name) {
            true => FieldOptions::default().with_std_vector(),
            false => FieldOptions::default(),
        }
    })?)
}

/// Options, or the defaults for null.
///
/// # Safety
/// `options` must be null or valid for a read.
unsafe fn options_or_default(options: *const rw_writer_options) -> rw_writer_options {
    // SAFETY: null or valid, as the caller promises.
    unsafe { options.as_ref() }
        .copied()
        .unwrap_or_else(|| rw_writer_options_default())
}

/// Where a new writer writes: a file it creates, or a file open for several objects.
enum Target<'a> {
    Path(&'a str),
    File(&'a rw_file),
}

/// The format a new writer writes.
#[derive(Clone, Copy)]
enum Format {
    Ntuple,
    Tree,
}

/// Makes the writer of `model`'s fields called `name` in `target`.
fn open_writer(
    model: &rw_model,
    name: &str,
    target: Target,
    options: &rw_writer_options,
    format: Format,
) -> Result<Box<rw_writer>, Failure> {
    let fields = model.fields.clone();
    let file = match target {
        Target::File(file) => Some(open_file(file)?),
        Target::Path(_) => None,
    };
    let (kind, layout) = match format {
        Format::Ntuple => {
            let o = ntuple_options(options)?;
            let w = match (&file, target) {
                (Some(f), _) => RNTupleParallelWriter::in_file(f.clone(), name, fields.clone(), o)?,
                (None, Target::Path(p)) => {
                    RNTupleParallelWriter::recreate(p, name, fields.clone(), o)?
                }
                (None, Target::File(_)) => unreachable!("a file target has its file"),
            };
            (Kind::Ntuple(w), None)
        }
        Format::Tree => {
            let layout = tree_layout(&fields)?;
            let (branches, o) = (layout.branches().to_vec(), tree_options(options)?);
            let w = match (&file, target) {
                (Some(f), _) => TTreeParallelWriter::in_file(f.clone(), name, branches, o)?,
                (None, Target::Path(p)) => TTreeParallelWriter::recreate(p, name, branches, o)?,
                (None, Target::File(_)) => unreachable!("a file target has its file"),
            };
            (Kind::Tree(w), Some(Arc::new(layout)))
        }
    };
    let budget = match &kind {
        Kind::Ntuple(w) => w.shared_budget(),
        Kind::Tree(w) => w.shared_budget(),
    };
    Ok(Box::new(rw_writer {
        kind: Mutex::new(Some(kind)),
        fields: Arc::new(fields),
        layout,
        file: Mutex::new(file),
        budget,
    }))
}

/// The body of the four calls that make a writer: arguments checked, the writer made in
/// `*out`.
///
/// # Safety
/// `model` a live model, `name` a NUL-terminated string, `options` null or valid, `out`
/// valid for a write; `target` reads its argument as its call's safety section says.
unsafe fn open<'a>(
    model: *const rw_model,
    name: *const c_char,
    options: *const rw_writer_options,
    out: *mut *mut rw_writer,
    format: Format,
    target: impl FnOnce() -> Result<Target<'a>, Failure>,
) -> rw_status {
    guard(|| {
        // SAFETY: the caller's promises, checked for null by the helpers.
        let (model, name, options) = unsafe {
            (
                handle(model, "model")?,
                text(name, "name")?,
                options_or_default(options),
            )
        };
        let handle = open_writer(model, name, target()?, &options, format)?;
        // SAFETY: as the caller promises.
        unsafe { put(out, Box::into_raw(handle), "writer") }
    })
}

/// Creates (or overwrites) the file at `path` with one RNTuple called `name` of the
/// model's fields, written in parallel (ROOT's `RNTupleParallelWriter::Recreate`); the
/// writer in `*out`. `options` may be null for the defaults.
///
/// # Safety
/// `model` a live model, `name` and `path` NUL-terminated strings, `options` null or
/// valid, `out` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rw_ntuple_writer_recreate(
    model: *const rw_model,
    name: *const c_char,
    path: *const c_char,
    options: *const rw_writer_options,
    out: *mut *mut rw_writer,
) -> rw_status {
    // SAFETY: as the caller promises; `path` a NUL-terminated string.
    unsafe {
        open(model, name, options, out, Format::Ntuple, || {
            Ok(Target::Path(text(path, "path")?))
        })
    }
}

/// Starts an RNTuple called `name` in an open file (ROOT's `RNTupleParallelWriter::Append`).
///
/// # Safety
/// As `rw_ntuple_writer_recreate`, with `file` a live file handle.
#[no_mangle]
pub unsafe extern "C" fn rw_ntuple_writer_append(
    model: *const rw_model,
    name: *const c_char,
    file: *const rw_file,
    options: *const rw_writer_options,
    out: *mut *mut rw_writer,
) -> rw_status {
    // SAFETY: as the caller promises; `file` a live file handle.
    unsafe {
        open(model, name, options, out, Format::Ntuple, || {
            Ok(Target::File(handle(file, "file")?))
        })
    }
}

/// Creates (or overwrites) the file at `path` with one TTree called `name` (a path with
/// `/` puts it in directories) whose branches are the model's fields, written in
/// parallel; the writer in `*out`.
///
/// # Safety
/// As `rw_ntuple_writer_recreate`.
#[no_mangle]
pub unsafe extern "C" fn rw_tree_writer_recreate(
    model: *const rw_model,
    name: *const c_char,
    path: *const c_char,
    options: *const rw_writer_options,
    out: *mut *mut rw_writer,
) -> rw_status {
    // SAFETY: as the caller promises; `path` a NUL-terminated string.
    unsafe {
        open(model, name, options, out, Format::Tree, || {
            Ok(Target::Path(text(path, "path")?))
        })
    }
}

/// Starts a TTree called `name` in an open file.
///
/// # Safety
/// As `rw_ntuple_writer_append`.
#[no_mangle]
pub unsafe extern "C" fn rw_tree_writer_append(
    model: *const rw_model,
    name: *const c_char,
    file: *const rw_file,
    options: *const rw_writer_options,
    out: *mut *mut rw_writer,
) -> rw_status {
    // SAFETY: as the caller promises; `file` a live file handle.
    unsafe {
        open(model, name, options, out, Format::Tree, || {
            Ok(Target::File(handle(file, "file")?))
        })
    }
}

/// A new fill context of the writer in `*out` (ROOT's `CreateFillContext`); any thread may
/// call it, at any time before the writer is closed.
///
/// # Safety
/// `writer` a live writer, `out` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rw_writer_create_fill_context(
    writer: *const rw_writer,
    out: *mut *mut rw_fill_context,
) -> rw_status {
    guard(|| {
        // SAFETY: as the caller promises.
        let writer = unsafe { handle(writer, "writer")? };
        let context = match lock(&writer.kind).as_ref() {
            Some(Kind::Ntuple(w)) => Context::Ntuple(w.context()),
            Some(Kind::Tree(w)) => Context::Tree(w.context()),
            None => return Err(Failure::closed("writer")),
        };
        let handle = Box::new(rw_fill_context {
            context,
            fields: writer.fields.clone(),
            layout: writer.layout.clone(),
        });
        // SAFETY: as the caller promises.
        unsafe { put(out, Box::into_raw(handle), "fill context") }
    })
}

/// Commits what every fill context still holds, waits for every write and writes the
/// RNTuple's or TTree's metadata (a writer made by `recreate` also closes its file).
/// Fill contexts still alive are closed: their next call returns `RW_CLOSED`. The file is
/// complete even when a producer failed; the failure is then reported here. Closing again
/// is a no-op.
///
/// # Safety
/// `writer` must be a live writer.
#[no_mangle]
pub unsafe extern "C" fn rw_writer_close(writer: *const rw_writer) -> rw_status {
    guard(|| {
        // SAFETY: as the caller promises.
        let writer = unsafe { handle(writer, "writer")? };
        let kind = lock(&writer.kind).take();
        let closed = kind.map_or(Ok(()), close);
        // Contexts still alive hold the budget: its callback, whose data the caller may
        // free once the writer is closed, must not be called any more.
        writer.budget.set_release_listener(None);
        // The file may be closed once its writers are.
        lock(&writer.file).take();
        closed
    })
}

/// Frees a writer, closing it if it is open (errors of that close are lost: call
/// `rw_writer_close` to see them). Null is ignored.
///
/// # Safety
/// `writer` must be null or a writer not freed before, used by no other thread.
#[no_mangle]
pub unsafe extern "C" fn rw_writer_free(writer: *mut rw_writer) {
    if writer.is_null() {
        return;
    }
    // SAFETY: as the caller promises.
    let writer = unsafe { Box::from_raw(writer) };
    let _ = guard(move || {
        let kind = lock(&writer.kind).take();
        let closed = kind.map_or(Ok(()), close);
        // Contexts still alive hold the budget: its callback, whose data the caller may
        // free once the writer is closed, must not be called any more.
        writer.budget.set_release_listener(None);
        // The file may be closed once its writers are.
        lock(&writer.file).take();
        closed
    });
}

/// The writer's memory budget in bytes: its limit, what is taken now, the most ever taken
/// (any of the pointers may be null).
///
/// # Safety
/// `writer` a live writer; each pointer null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rw_writer_budget(
    writer: *const rw_writer,
    limit: *mut u64,
    in_use: *mut u64,
    peak: *mut u64,
) -> rw_status {
    guard(|| {
        // SAFETY: as the caller promises.
        let writer = unsafe { handle(writer, "writer")? };
        let b = &writer.budget;
        for (out, value) in [(limit, b.limit()), (in_use, b.in_use()), (peak, b.peak())] {
            if !out.is_null() {
                // SAFETY: non-null and valid for a write, as the caller promises.
                unsafe { out.write(value) };
            }
        }
        Ok(())
    })
}

/// Waits until budget is given back, at most `timeout_ms` milliseconds; `*freed` (may be
/// null) says whether some was. For a producer told `RW_WOULD_BLOCK` that waits elsewhere
/// than in the writer (a thread of its own), to know when to retry.
///
/// # Safety
/// `writer` a live writer; `freed` null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rw_writer_wait_for_budget(
    writer: *const rw_writer,
    timeout_ms: u64,
    freed: *mut bool,
) -> rw_status {
    guard(|| {
        // SAFETY: as the caller promises.
        let writer = unsafe { handle(writer, "writer")? };
        let got = writer
            .budget
            .wait_for_release(std::time::Duration::from_millis(timeout_ms));
        if !freed.is_null() {
            // SAFETY: non-null and valid, as the caller promises.
            unsafe { freed.write(got) };
        }
        Ok(())
    })
}

/// A function the writer calls with `user_data` each time budget is given back (on the
/// thread that gives it back), for a task scheduler to requeue the producers that got
/// `RW_WOULD_BLOCK`; null removes it. It must return quickly and must not call the writer
/// or its contexts.
pub type rw_budget_callback = Option<unsafe extern "C" fn(user_data: *mut std::ffi::c_void)>;

/// The user data of a budget callback, handed from thread to thread as the caller says it
/// may be.
struct UserData(*mut std::ffi::c_void);
// SAFETY: the caller of `rw_writer_set_budget_callback` promises that the callback may be
// called with this pointer from any thread; the library only passes the pointer on.
unsafe impl Send for UserData {}
// SAFETY: as above; the pointer is never dereferenced here.
unsafe impl Sync for UserData {}

/// Sets (or, with null, removes) the function called when budget is given back. Once
/// this returns, the function it replaced is no longer running; closing the writer
/// removes it.
///
/// # Safety
/// `writer` a live writer; `callback` callable from any thread with `user_data` until it
/// is removed or the writer is freed.
#[no_mangle]
pub unsafe extern "C" fn rw_writer_set_budget_callback(
    writer: *const rw_writer,
    callback: rw_budget_callback,
    user_data: *mut std::ffi::c_void,
) -> rw_status {
    guard(|| {
        // SAFETY: as the caller promises.
        let writer = unsafe { handle(writer, "writer")? };
        let listener = callback.map(|f| {
            let data = UserData(user_data);
            let call: rootweave::parallel::ReleaseListener = Arc::new(move || {
                let data = &data;
                // SAFETY: the caller promises the callback may be called with its data
                // from any thread.
                unsafe { f(data.0) }
            });
            call
        });
        writer.budget.set_release_listener(listener);
        Ok(())
    })
}
