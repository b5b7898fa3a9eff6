//! The files writers write into: a ROOT file holding any number of RNTuples and TTrees,
//! closed once its writers are.

use std::ffi::c_char;
use std::sync::{Arc, Mutex};

use rootweave::container::{FileWriter, WriterOptions};

use crate::status::{guard, handle, put, rw_status, text, Failure};
use crate::writer::lock;

/// A ROOT file being written, holding any number of RNTuples and TTrees
/// (`rw_ntuple_writer_append`, `rw_tree_writer_append`). Thread-safe: writers on any
/// threads may use it; close it once every writer in it is closed.
pub struct rw_file {
    file: Mutex<Option<Arc<FileWriter>>>,
}

/// Creates (or overwrites) the file at `path` to hold RNTuples and TTrees, in `*out`.
///
/// # Safety
/// `path` must be a NUL-terminated string, `out` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rw_file_recreate(
    path: *const c_char,
    out: *mut *mut rw_file,
) -> rw_status {
    guard(|| {
        // SAFETY: the caller's promises, checked for null by the helpers.
        let path = unsafe { text(path, "path")? };
        let file = FileWriter::create(path, WriterOptions::default())?;
        let handle = Box::new(rw_file {
            file: Mutex::new(Some(Arc::new(file))),
        });
        // SAFETY: as the caller promises.
        unsafe { put(out, Box::into_raw(handle), "file") }
    })
}

/// Writes the file's directory, keys and header and closes it. Every writer in it must be
/// closed first (else `RW_INVALID_ARGUMENT`, and the file stays open). Closing again is a
/// no-op.
///
/// # Safety
/// `file` must be a live file handle.
#[no_mangle]
pub unsafe extern "C" fn rw_file_close(file: *mut rw_file) -> rw_status {
    guard(|| {
        // SAFETY: as the caller promises.
        let file = unsafe { handle(file, "file")? };
        let mut slot = lock(&file.file);
        let Some(shared) = slot.take() else {
            return Ok(());
        };
        match Arc::try_unwrap(shared) {
            Ok(writer) => {
                writer.close()?;
                Ok(())
            }
            Err(shared) => {
                *slot = Some(shared);
                Err(Failure::invalid(
                    "a writer in the file is still open: close it first",
                ))
            }
        }
    })
}

/// Frees a file handle, closing the file if it is open and no writer uses it (null is
/// ignored; errors of that close are lost: call `rw_file_close` to see them).
///
/// # Safety
/// `file` must be null or a file handle not freed before, used by no other thread.
#[no_mangle]
pub unsafe extern "C" fn rw_file_free(file: *mut rw_file) {
    if file.is_null() {
        return;
    }
    // SAFETY: as the caller promises.
    let file = unsafe { Box::from_raw(file) };
    let _ = guard(move || {
        if let Some(writer) = lock(&file.file)
            .take()
            .and_then(|f| Arc::try_unwrap(f).ok())
        {
            writer.close()?;
        }
        Ok(())
    });
}

pub(crate) fn open_file(file: &rw_file) -> Result<Arc<FileWriter>, Failure> {
    lock(&file.file)
        .clone()
        .ok_or_else(|| Failure::closed("file"))
}
