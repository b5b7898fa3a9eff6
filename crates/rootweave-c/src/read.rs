//! Bulk reads: an RNTuple or a TTree (either format, found by the class of its key) of one
//! file or many, handed to the caller as an Arrow C stream (`struct ArrowArrayStream`) of
//! record batches of whole clusters, read while the caller consumes the batch before.

use std::ffi::c_char;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{make_array, ArrayRef, RecordBatch, RecordBatchOptions, RecordBatchReader};
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{ArrowError, Field, Schema, SchemaRef};
use rayon::ThreadPool;
use rootweave::array::{Array, Recycler};
use rootweave::arrow::to_arrow;
use rootweave::container::RootFile;
use rootweave::dataset::{AnyPlan, AnyReader, BatchSource, Dataset, Source};
use rootweave::ReadOptions;

use crate::status::{guard, put, rw_status, text, Failure};

/// How `rw_read_arrow` reads. Start from `rw_read_options_default()` and change fields.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rw_read_options {
    /// Decompression and decoding threads, which also read the next batch while the
    /// caller consumes one (0: all cores).
    pub threads: usize,
    /// Each batch holds whole clusters of at least this many entries, never spanning two
    /// files (0: one cluster per batch).
    pub step_entries: u64,
    /// Bytes of stored pages or baskets in flight at once (0: 256 MiB; one cluster's
    /// pages of the chosen columns are always read).
    pub memory_budget: u64,
    /// Verify the checksums the format carries (RNTuple pages and envelopes).
    pub verify_checksums: bool,
}

/// The default read options: all cores, one cluster per batch, 256 MiB in flight,
/// checksums verified.
#[no_mangle]
pub extern "C" fn rw_read_options_default() -> rw_read_options {
    rw_read_options {
        threads: 0,
        step_entries: 0,
        memory_budget: 0,
        verify_checksums: true,
    }
}

/// Reads the RNTuple or TTree `name` from the files `paths` (`n_paths` of them, read one
/// after the other) into `*out`, an Arrow C stream (see the Arrow C stream interface)
/// whose schema is a struct of the chosen columns and whose arrays are record batches of
/// whole clusters. `columns` names `n_columns` top-level fields or branches, in the order
/// wanted; with `n_columns` 0 every top-level field or branch of the first file is read.
/// `name` may be null: each path then names its object as `"file.root:Events"`, or the
/// file's only RNTuple or TTree is read. Paths are local files or `http://`,
/// `https://` and `root://` URLs. `options` may be null for the defaults.
///
/// The first file is opened and its columns found before this returns: a missing file,
/// object or column is a status and message here, and no stream is made. The batches are
/// read when the consumer asks for them (`get_next`), the next one on the reader's
/// threads while the consumer works on this one; the other files are opened when their
/// first batch is due. A failure there (a file that is missing or damaged, a column it
/// lacks or holds with another type) ends the stream: `get_next` returns an error code
/// (`EIO` for input and output errors, else `EINVAL`) and `get_last_error` the library's
/// message, naming the file, the object and the byte offset. Each batch's memory is the
/// consumer's until it releases it; the stream must be released (its `release`) once.
/// The stream may move between threads but serves one call at a time.
///
/// Numbers, offsets and string bytes move into the Arrow arrays without a copy. Types:
/// numbers as themselves, `bool` as Boolean, strings as LargeUtf8 (a batch holding a
/// string that is not UTF-8 ends the stream with an error), `std::vector` as LargeList,
/// `std::array` as FixedSizeList, classes, pairs and tuples as Struct, `std::optional`
/// as its item's type with nulls, `std::variant` as a dense Union.
///
/// # Safety
/// `paths` must hold `n_paths` NUL-terminated strings, `columns` `n_columns` (either may
/// be null when its count is 0); `name` null or NUL-terminated; `options` null or valid
/// for a read; `out` valid for a write of an `ArrowArrayStream` (whatever it holds is
/// overwritten, not released).
#[no_mangle]
pub unsafe extern "C" fn rw_read_arrow(
    paths: *const *const c_char,
    n_paths: usize,
    name: *const c_char,
    columns: *const *const c_char,
    n_columns: usize,
    options: *const rw_read_options,
    out: *mut FFI_ArrowArrayStream,
) -> rw_status {
    guard(|| {
        if out.is_null() {
            return Err(Failure::invalid("the stream out-parameter is null"));
        }
        // SAFETY: the caller's promises about each array, checked for null by the helpers.
        let (paths, columns, options) = unsafe {
            (
                strings(paths, n_paths, "path")?,
                strings(columns, n_columns, "column")?,
                options
                    .as_ref()
                    .copied()
                    .unwrap_or_else(|| rw_read_options_default()),
            )
        };
        let name = if name.is_null() {
            None
        } else {
            // SAFETY: non-null and NUL-terminated, as the caller promises.
            Some(unsafe { text(name, "name")? })
        };
        if paths.is_empty() {
            return Err(Failure::invalid("no paths given to read"));
        }
        let sources = paths
            .iter()
            .map(|p| match name {
                Some(name) => Source::new(p, Some(name)),
                None => Source::parse(p),
            })
            .collect();
        let stream = Stream::open(sources, columns, &options)?;
        let stream = FFI_ArrowArrayStream::new(Box::new(stream));
        // SAFETY: `out` is valid for a write, as the caller promises.
        unsafe { put(out, stream, "stream") }
    })
}

/// The number of entries of the RNTuple or TTree `name` of the file at `path` (a local
/// path or a URL) in `*out`; `name` may be null for the file's only RNTuple or TTree.
/// Reads the object's metadata only.
///
/// # Safety
/// `path` a NUL-terminated string, `name` null or NUL-terminated, `out` valid for a
/// write.
#[no_mangle]
pub unsafe extern "C" fn rw_read_entries(
    path: *const c_char,
    name: *const c_char,
    out: *mut u64,
) -> rw_status {
    guard(|| {
        // SAFETY: the caller's promises, checked for null by the helper.
        let path = unsafe { text(path, "path")? };
        let name = if name.is_null() {
            None
        } else {
            // SAFETY: non-null and NUL-terminated, as the caller promises.
            Some(unsafe { text(name, "name")? })
        };
        let file = Arc::new(RootFile::open(path)?);
        // One thread: the metadata needs no pool of its own.
        let reader = AnyReader::open(file, name, ReadOptions::default().with_threads(1))?;
        // SAFETY: as the caller promises.
        unsafe { put(out, reader.entries(), "entries") }
    })
}

/// `n` C strings as Rust strings, each checked for null and UTF-8 (`what` names them).
///
/// # Safety
/// `ptr` must be null (only if `n` is 0) or hold `n` pointers, each null or to a
/// NUL-terminated string.
unsafe fn strings<'a>(
    ptr: *const *const c_char,
    n: usize,
    what: &str,
) -> Result<Vec<&'a str>, Failure> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if ptr.is_null() {
        return Err(Failure::invalid(format!("the {what} array is null")));
    }
    (0..n)
        .map(|i| {
            // SAFETY: `ptr` holds `n` pointers, each null or NUL-terminated, as the
            // caller promises; `text` checks for null.
            unsafe { text(*ptr.add(i), &format!("{what} {i}")) }
        })
        .collect()
}

/// The read options of the library from the C ones.
fn read_options(o: &rw_read_options) -> ReadOptions {
    let mut options = ReadOptions::default().with_threads(o.threads);
    if o.memory_budget > 0 {
        options = options.with_memory_budget(o.memory_budget);
    }
    options.verify_checksums = o.verify_checksums;
    options
}

/// One open source: its reader, the plan of the columns and the batches not read yet.
struct Opened {
    reader: AnyReader,
    names: Vec<String>,
    plan: AnyPlan,
    parts: std::vec::IntoIter<Range<u64>>,
}

impl Opened {
    /// Opens source `index` of `dataset` and plans `columns` (the defaults if empty) in
    /// batches of at least `step` entries, as the library's batches cut them.
    fn open(
        dataset: &Dataset,
        index: usize,
        columns: &[&str],
        step: u64,
    ) -> rootweave::Result<Self> {
        let reader = dataset.open(index)?;
        let parts = reader.batches(columns, 0..reader.entries(), step)?.ranges();
        let (names, plan) = reader.plan_fields(columns)?;
        Ok(Opened {
            reader,
            names,
            plan,
            parts: parts.into_iter(),
        })
    }

    /// Reads the entries `part` as named arrays.
    fn read(&self, part: Range<u64>) -> rootweave::Result<Vec<(String, Array)>> {
        let arrays =
            self.reader
                .read_planned_keeping_one(&self.plan, part, &mut Recycler::new())?;
        Ok(self.names.iter().cloned().zip(arrays).collect())
    }
}

/// Where the reading of a dataset stands: the source being read and the ones after it.
/// Owned, so that a task of the pool can take it to read the next batch.
struct Cursor {
    dataset: Dataset,
    /// The columns every source is read for (the first source's resolved names, so that
    /// every batch has the stream's schema).
    columns: Vec<String>,
    step: u64,
    next_source: usize,
    current: Option<Opened>,
    schema: SchemaRef,
}

impl Cursor {
    /// The next batch as a record batch of the stream's schema, opening the next source
    /// when this one is done; `None` after the last.
    fn next_batch(&mut self) -> Option<Result<RecordBatch, ArrowError>> {
        loop {
            if let Some(opened) = &mut self.current {
                if let Some(part) = opened.parts.next() {
                    let batch = opened
                        .read(part.clone())
                        .map_err(library_error)
                        .and_then(|arrays| record_batch(&self.schema, opened, part, arrays));
                    return Some(batch);
                }
            }
            self.current = None;
            if self.next_source >= self.dataset.sources().len() {
                return None;
            }
            let columns: Vec<&str> = self.columns.iter().map(String::as_str).collect();
            let opened = Opened::open(&self.dataset, self.next_source, &columns, self.step);
            self.next_source += 1;
            match opened {
                Ok(opened) => self.current = Some(opened),
                Err(e) => return Some(Err(library_error(e))),
            }
        }
    }
}

/// Arrays read for `part` of an open source as a record batch of `schema`: each column's
/// memory moved into Arrow's, its type checked against the schema's (a later file may
/// hold a column with another type than the first file's).
fn record_batch(
    schema: &SchemaRef,
    opened: &Opened,
    part: Range<u64>,
    arrays: Vec<(String, Array)>,
) -> Result<RecordBatch, ArrowError> {
    let at = || {
        format!(
            "{}: '{}', entries {}..{}",
            opened.reader.file_name(),
            opened.reader.name(),
            part.start,
            part.end
        )
    };
    let mut rows = None;
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(arrays.len());
    for ((name, array), field) in arrays.into_iter().zip(schema.fields()) {
        let len = array.len();
        if rows.is_some_and(|rows| rows != len) {
            return Err(ArrowError::InvalidArgumentError(format!(
                "{}: column '{name}' has {len} entries, the columns before it {}",
                at(),
                rows.unwrap_or_default()
            )));
        }
        rows = Some(len);
        let data = to_arrow(array)
            .map_err(|e| ArrowError::InvalidArgumentError(format!("{}: '{name}': {e}", at())))?;
        if data.data_type() != field.data_type() {
            return Err(ArrowError::InvalidArgumentError(format!(
                "{}: column '{name}' is read as {} where the stream's schema (from the first \
                 file) has {}",
                at(),
                data.data_type(),
                field.data_type()
            )));
        }
        columns.push(make_array(data));
    }
    // A batch without columns still has its entries.
    let rows = rows.unwrap_or((part.end - part.start) as usize);
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema.clone(), columns, &options)
        .map_err(|e| ArrowError::InvalidArgumentError(format!("{}: {e}", at())))
}

/// A library error as the stream reports it: input and output failures as `EIO`, the
/// rest as `EINVAL`, with the library's message.
fn library_error(e: rootweave::Error) -> ArrowError {
    match e {
        rootweave::Error::Io { .. } | rootweave::Error::Remote { .. } => {
            let message = e.to_string();
            ArrowError::IoError(message.clone(), std::io::Error::other(message))
        }
        e => ArrowError::ExternalError(Box::new(e)),
    }
}

/// An error whose message holds no NUL byte: arrow-rs hands messages to C as C strings
/// and cannot make one of a message with a NUL (names read from a file may hold one).
fn without_nul(e: ArrowError) -> ArrowError {
    let message = e.to_string();
    if !message.contains('\0') {
        return e;
    }
    let message = message.replace('\0', " ");
    match e {
        ArrowError::IoError(..) => {
            ArrowError::IoError(message.clone(), std::io::Error::other(message))
        }
        _ => ArrowError::InvalidArgumentError(message),
    }
}

/// What a read of the pool hands back: the cursor and the batch it read.
type Step = (Cursor, Option<Result<RecordBatch, ArrowError>>);

/// Where the stream stands.
enum State {
    /// Nothing read yet (or no read in flight): the next batch is read by the caller.
    Idle(Box<Cursor>),
    /// A task of the pool reads the next batch.
    Reading(Receiver<Step>),
    /// After the last batch or an error.
    Done,
}

/// The record batches of a dataset, each read on the pool while the consumer works on the
/// one before (what arrow-rs exports as an `ArrowArrayStream`).
struct Stream {
    schema: SchemaRef,
    pool: Arc<ThreadPool>,
    state: State,
}

impl Stream {
    /// Opens the first source, plans `columns` in it and takes the stream's schema from
    /// the types its columns are read as; reads nothing else.
    fn open(
        sources: Vec<Source>,
        columns: Vec<&str>,
        options: &rw_read_options,
    ) -> Result<Self, Failure> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(options.threads)
            .thread_name(|i| format!("rootweave-read-{i}"))
            .build()
            .map_err(|e| Failure {
                status: rw_status::RW_INTERNAL,
                message: format!("the reader's threads could not start: {e}"),
            })?;
        let pool = Arc::new(pool);
        let dataset = Dataset::new(sources, read_options(options).with_pool(pool.clone()))?;
        let first = Opened::open(&dataset, 0, &columns, options.step_entries)?;
        // The types of the columns, from an empty read (no page is read).
        let empty = first.read(0..0)?;
        let mut fields = Vec::with_capacity(empty.len());
        for (name, array) in empty {
            // Only an optional's entries may be null (they are its absent values).
            let nullable = matches!(array, Array::Optional { .. });
            let data = to_arrow(array).map_err(|e| {
                Failure::invalid(format!(
                    "{}: '{}', column '{name}': {e}",
                    first.reader.file_name(),
                    first.reader.name()
                ))
            })?;
            fields.push(Field::new(name, data.data_type().clone(), nullable));
        }
        let schema = Arc::new(Schema::new(fields));
        // The stream exports its schema on demand; a schema Arrow's C form cannot hold
        // (a name with a NUL byte) is refused now rather than there.
        FFI_ArrowSchema::try_from(schema.as_ref()).map_err(|e| {
            Failure::invalid(format!(
                "{}: '{}': the columns have no Arrow schema: {e}",
                first.reader.file_name(),
                first.reader.name()
            ))
        })?;
        let cursor = Cursor {
            dataset,
            columns: first.names.clone(),
            step: options.step_entries,
            next_source: 1,
            current: Some(first),
            schema: schema.clone(),
        };
        Ok(Stream {
            schema,
            pool,
            state: State::Idle(Box::new(cursor)),
        })
    }
}

/// Reads the cursor's next batch; a panic (a bug) becomes an error, never an unwind out
/// of a task of the pool (which would abort the process).
fn read_next(cursor: &mut Cursor) -> Option<Result<RecordBatch, ArrowError>> {
    catch_unwind(AssertUnwindSafe(|| cursor.next_batch())).unwrap_or_else(|_| {
        Some(Err(ArrowError::ComputeError(
            "internal error in rootweave while reading a batch".into(),
        )))
    })
}

impl Iterator for Stream {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (cursor, item) = match std::mem::replace(&mut self.state, State::Done) {
            State::Idle(mut cursor) => {
                let item = read_next(&mut cursor);
                (cursor, item)
            }
            State::Reading(receiver) => match receiver.recv() {
                Ok((cursor, item)) => (Box::new(cursor), item),
                Err(_) => {
                    return Some(Err(ArrowError::ComputeError(
                        "internal error in rootweave: a read ended without its batch".into(),
                    )))
                }
            },
            State::Done => return None,
        };
        match item {
            Some(Ok(batch)) => {
                // Read ahead: the next batch is read on the pool while the caller
                // consumes this one.
                let (sender, receiver) = sync_channel(1);
                self.pool.spawn(move || {
                    let mut cursor = *cursor;
                    let item = read_next(&mut cursor);
                    // A stream released meanwhile no longer receives: nothing to do.
                    let _ = sender.send((cursor, item));
                });
                self.state = State::Reading(receiver);
                Some(Ok(batch))
            }
            Some(Err(e)) => Some(Err(without_nul(e))),
            None => None,
        }
    }
}

impl RecordBatchReader for Stream {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}
