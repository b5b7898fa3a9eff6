//! Fill contexts: a producer's entries, one by one or in columns, into its own clusters,
//! committed when full, when the caller says, or in the order of sequence numbers.

use rootweave::rntuple::{ColumnData, Field, RNTupleFillContext};
use rootweave::tree_layout::TreeLayout;
use rootweave::ttree::TTreeFillContext;
use std::sync::Arc;

use crate::column::{batch, rw_column};
use crate::status::{guard, handle_mut, put, rw_status, Failure};

/// A producer's handle on a writer: fills entries and compresses its own clusters. Use it
/// from one thread at a time (it may move between threads); make one per thread or task
/// slot. Freeing it commits what it holds.
pub struct rw_fill_context {
    pub(crate) context: Context,
    pub(crate) fields: Arc<Vec<Field>>,
    pub(crate) layout: Option<Arc<TreeLayout>>,
}

/// A context of either format.
pub(crate) enum Context {
    Ntuple(RNTupleFillContext),
    Tree(TTreeFillContext),
}

impl Context {
    fn extend(&mut self, b: &[ColumnData]) -> rootweave::Result<()> {
        match self {
            Context::Ntuple(c) => c.extend(b),
            Context::Tree(c) => c.extend(b),
        }
    }

    fn extend_no_flush(&mut self, b: &[ColumnData]) -> rootweave::Result<bool> {
        match self {
            Context::Ntuple(c) => c.extend_no_flush(b),
            Context::Tree(c) => c.extend_no_flush(b),
        }
    }

    fn try_extend(&mut self, b: &[ColumnData]) -> rootweave::Result<bool> {
        match self {
            Context::Ntuple(c) => c.try_extend(b),
            Context::Tree(c) => c.try_extend(b),
        }
    }

    fn extend_sequence(&mut self, sequence: u64, b: &[ColumnData]) -> rootweave::Result<()> {
        match self {
            Context::Ntuple(c) => c.extend_sequence(sequence, b),
            Context::Tree(c) => c.extend_sequence(sequence, b),
        }
    }

    fn extend_staged(&mut self, b: &[ColumnData]) -> rootweave::Result<bool> {
        match self {
            Context::Ntuple(c) => c.extend_staged(b),
            Context::Tree(c) => c.extend_staged(b),
        }
    }

    fn commit_staged(&mut self, sequence: u64) -> rootweave::Result<()> {
        match self {
            Context::Ntuple(c) => c.commit_staged(sequence),
            Context::Tree(c) => c.commit_staged(sequence),
        }
    }

    fn skip_sequence(&mut self, sequence: u64) -> rootweave::Result<()> {
        match self {
            Context::Ntuple(c) => c.skip_sequence(sequence),
            Context::Tree(c) => c.skip_sequence(sequence),
        }
    }

    fn commit_cluster(&mut self) -> rootweave::Result<()> {
        match self {
            Context::Ntuple(c) => c.commit_cluster(),
            Context::Tree(c) => c.commit_cluster(),
        }
    }
}

impl rw_fill_context {
    /// Hands a batch of the model's fields to `append`, split into branches first for a
    /// TTree.
    fn with_data<T>(
        &mut self,
        data: &[ColumnData],
        append: impl FnOnce(&mut Context, &[ColumnData]) -> rootweave::Result<T>,
    ) -> Result<T, Failure> {
        Ok(match &self.layout {
            Some(layout) => {
                let inner = &mut self.context;
                layout.with_branch_batches(data, |branches| append(inner, branches))?
            }
            None => append(&mut self.context, data)?,
        })
    }
}

/// Runs `append` on the context with the batch of `n` columns of `entries` entries.
///
/// # Safety
/// `context` a live context used by this thread alone; `columns` as `rw_column` says.
unsafe fn with_batch<T>(
    context: *mut rw_fill_context,
    columns: *const rw_column,
    n: usize,
    entries: usize,
    append: impl FnOnce(&mut Context, &[ColumnData]) -> rootweave::Result<T>,
) -> Result<T, Failure> {
    // SAFETY: as the caller promises.
    let context = unsafe { handle_mut(context, "fill context")? };
    // SAFETY: the columns are valid for the call, as the caller promises.
    let data = unsafe { batch(&context.fields, columns, n, entries)? };
    context.with_data(&data, append)
}

/// Runs `f` on the context's inner context.
///
/// # Safety
/// `context` a live context used by this thread alone.
unsafe fn with_context(
    context: *mut rw_fill_context,
    f: impl FnOnce(&mut Context) -> rootweave::Result<()>,
) -> rw_status {
    guard(|| {
        // SAFETY: as the caller promises.
        let context = unsafe { handle_mut(context, "fill context")? };
        Ok(f(&mut context.context)?)
    })
}

/// Appends one entry: one column of one entry per field, in the model's order (ROOT's
/// `FillContext::Fill`). The context commits its cluster when it reaches its target size,
/// and waits while the memory budget is spent.
///
/// # Safety
/// `context` a live context used by no other thread during the call; `columns` `n`
/// columns valid as `rw_column` says.
#[no_mangle]
pub unsafe extern "C" fn rw_fill_context_fill(
    context: *mut rw_fill_context,
    columns: *const rw_column,
    n: usize,
) -> rw_status {
    // SAFETY: as the caller promises.
    unsafe { rw_fill_context_append(context, columns, n, 1) }
}

/// Appends `entries` entries at once, one column per field (columnar).
///
/// # Safety
/// As `rw_fill_context_fill`.
#[no_mangle]
pub unsafe extern "C" fn rw_fill_context_append(
    context: *mut rw_fill_context,
    columns: *const rw_column,
    n: usize,
    entries: usize,
) -> rw_status {
    guard(|| {
        // SAFETY: as the caller promises.
        unsafe { with_batch(context, columns, n, entries, Context::extend) }
    })
}

/// Appends `entries` entries but leaves the cluster open (ROOT's `FillNoFlush`):
/// `*cluster_due` says whether it reached its target size, for the caller to commit it
/// with `rw_fill_context_flush_cluster` when it chooses. The memory budget still holds: a
/// context that would exceed it commits its cluster first.
///
/// # Safety
/// As `rw_fill_context_fill`; `cluster_due` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rw_fill_context_append_no_flush(
    context: *mut rw_fill_context,
    columns: *const rw_column,
    n: usize,
    entries: usize,
    cluster_due: *mut bool,
) -> rw_status {
    guard(|| {
        // SAFETY: as the caller promises.
        let due = unsafe { with_batch(context, columns, n, entries, Context::extend_no_flush)? };
        // SAFETY: as the caller promises.
        unsafe { put(cluster_due, due, "cluster_due") }
    })
}

/// Appends `entries` entries if the memory budget has room for them now; else appends
/// nothing and returns `RW_WOULD_BLOCK` without waiting (for task schedulers whose
/// threads must not block: retry later, see `rw_writer_wait_for_budget` and
/// `rw_writer_set_budget_callback`).
///
/// # Safety
/// As `rw_fill_context_fill`.
#[no_mangle]
pub unsafe extern "C" fn rw_fill_context_try_append(
    context: *mut rw_fill_context,
    columns: *const rw_column,
    n: usize,
    entries: usize,
) -> rw_status {
    guard(|| {
        // SAFETY: as the caller promises.
        let appended = unsafe { with_batch(context, columns, n, entries, Context::try_extend)? };
        if appended {
            Ok(())
        } else {
            Err(Failure {
                status: rw_status::RW_WOULD_BLOCK,
                message:
                    "the memory budget is spent: nothing was appended, retry once budget is freed"
                        .into(),
            })
        }
    })
}

/// Appends `entries` entries and commits them as the cluster with sequence number
/// `sequence` (writers with `ordered`): clusters enter the file in sequence order, so the
/// caller decides the entry order. Numbers start at 0 and each is used once.
///
/// # Safety
/// As `rw_fill_context_fill`.
#[no_mangle]
pub unsafe extern "C" fn rw_fill_context_append_sequence(
    context: *mut rw_fill_context,
    sequence: u64,
    columns: *const rw_column,
    n: usize,
    entries: usize,
) -> rw_status {
    guard(|| {
        // SAFETY: as the caller promises.
        unsafe {
            with_batch(context, columns, n, entries, |c, b| {
                c.extend_sequence(sequence, b)
            })
        }
    })
}

/// Appends `entries` entries to the context's staged cluster (writers with `ordered`):
/// filled entry by entry, it is committed by `rw_fill_context_commit_staged` with the
/// sequence number the caller chooses (ROOT's staged cluster committing, the order given
/// by number). `*cluster_due` (may be null) says whether it reached its target size.
///
/// # Safety
/// As `rw_fill_context_fill`; `cluster_due` null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rw_fill_context_append_staged(
    context: *mut rw_fill_context,
    columns: *const rw_column,
    n: usize,
    entries: usize,
    cluster_due: *mut bool,
) -> rw_status {
    guard(|| {
        // SAFETY: as the caller promises.
        let due = unsafe { with_batch(context, columns, n, entries, Context::extend_staged)? };
        if !cluster_due.is_null() {
            // SAFETY: non-null and valid for a write, as the caller promises.
            unsafe { cluster_due.write(due) };
        }
        Ok(())
    })
}

/// Commits the context's staged entries as the cluster with sequence number `sequence`
/// (writers with `ordered`; clusters enter the file in sequence order). A context freed
/// with staged entries loses them, and `rw_writer_close` reports it.
///
/// # Safety
/// `context` a live context used by no other thread during the call.
#[no_mangle]
pub unsafe extern "C" fn rw_fill_context_commit_staged(
    context: *mut rw_fill_context,
    sequence: u64,
) -> rw_status {
    // SAFETY: as the caller promises.
    unsafe { with_context(context, |c| c.commit_staged(sequence)) }
}

/// Declares that sequence number `sequence` will never be committed (ordered writers), so
/// that the clusters after it need not wait for it.
///
/// # Safety
/// `context` a live context used by no other thread during the call.
#[no_mangle]
pub unsafe extern "C" fn rw_fill_context_skip_sequence(
    context: *mut rw_fill_context,
    sequence: u64,
) -> rw_status {
    // SAFETY: as the caller promises.
    unsafe { with_context(context, |c| c.skip_sequence(sequence)) }
}

/// Commits the entries the context holds as a cluster (ROOT's `FlushCluster`).
///
/// # Safety
/// `context` a live context used by no other thread during the call.
#[no_mangle]
pub unsafe extern "C" fn rw_fill_context_flush_cluster(context: *mut rw_fill_context) -> rw_status {
    // SAFETY: as the caller promises.
    unsafe { with_context(context, Context::commit_cluster) }
}

/// Frees a fill context, committing the entries it holds (null is ignored; a failure of
/// that commit is reported by `rw_writer_close`).
///
/// # Safety
/// `context` must be null or a context not freed before, used by no other thread.
#[no_mangle]
pub unsafe extern "C" fn rw_fill_context_free(context: *mut rw_fill_context) {
    if !context.is_null() {
        // SAFETY: as the caller promises.
        let context = unsafe { Box::from_raw(context) };
        let _ = guard(move || {
            drop(context);
            Ok(())
        });
    }
}

/// Appends the entries of an Arrow record batch handed in through the Arrow C Data
/// Interface: `array` a struct array with one child per field of the model, in the
/// model's order and named as the fields, `schema` its type. Each child's type must be the
/// field's: a number its Arrow number type (float as Float32, double as Float64), `bool`
/// Boolean, `std::string` Utf8, LargeUtf8, Binary or LargeBinary, `std::vector` List or
/// LargeList, `std::array<T,N>` FixedSizeList of N, a class, pair or tuple Struct (a
/// class's members named as its members); a `std::optional` is a List or LargeList of 0
/// or 1 items per entry, whose null entries (holding no item) are absent values. Nulls
/// anywhere else are refused. Numbers, string bytes and 64-bit offsets are read in place;
/// booleans are unpacked and 32-bit offsets widened. The array's offset and length are
/// respected (a sliced batch appends its slice). Otherwise as `rw_fill_context_append`.
///
/// The call takes both structs, as the C Data Interface moves them: the caller's are
/// marked released, and the library calls each release callback exactly once, on success
/// and on failure alike (once the entries are appended, or before returning an error).
/// A mismatch is `RW_INVALID_ARGUMENT` naming the field, its type and the Arrow type.
///
/// # Safety
/// `context` a live context used by no other thread during the call; `array` and
/// `schema` null or valid C Data Interface structs (released, or with buffers valid for
/// the lengths they claim), not used by the caller after the call but to free them.
#[no_mangle]
pub unsafe extern "C" fn rw_fill_context_append_arrow(
    context: *mut rw_fill_context,
    array: *mut arrow_data::ffi::FFI_ArrowArray,
    schema: *mut arrow_schema::ffi::FFI_ArrowSchema,
) -> rw_status {
    guard(|| {
        // Taken first, so that they are released whatever fails after.
        // SAFETY: the structs are null or valid, as the caller promises.
        let batch = unsafe { crate::arrow_in::take(array, schema) };
        // SAFETY: as the caller promises.
        let context = unsafe { handle_mut(context, "fill context")? };
        let batch = batch?;
        let parts = crate::arrow_in::parts(&context.fields, &batch)?;
        let data: Vec<ColumnData> = parts.iter().map(|p| p.view()).collect();
        context.with_data(&data, Context::extend)
    })
}
