//! Status codes, the message of the last failure on each thread, and the guard every entry
//! point runs its body in: no Rust panic ever unwinds into C or C++.

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a call did. Every function returning a status sets the calling thread's message
/// ([`rw_last_error`]) when it returns anything but `RW_OK`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum rw_status {
    /// The call succeeded.
    RW_OK = 0,
    /// An argument was wrong: a null handle, an unknown type name, a value that does not fit
    /// its field, a bad option.
    RW_INVALID_ARGUMENT = 1,
    /// Reading or writing a file failed.
    RW_IO = 2,
    /// A file's bytes are not what the format says.
    RW_FORMAT = 3,
    /// A file, object or field does not exist.
    RW_NOT_FOUND = 4,
    /// Something the library does not read or write.
    RW_UNSUPPORTED = 5,
    /// The handle was closed (its writer or file is closed).
    RW_CLOSED = 6,
    /// The memory budget is spent and the call was asked not to wait: nothing was
    /// appended; retry once budget is freed (`rw_writer_wait_for_budget`).
    RW_WOULD_BLOCK = 7,
    /// An internal error (a bug): the library caught it before it reached the caller.
    RW_INTERNAL = 8,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// The message of the last failed call on the calling thread (empty if none failed).
/// The pointer stays valid until the next failing call on this thread.
#[no_mangle]
pub extern "C" fn rw_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The library's version, for example `"0.1.0"` (a static string).
#[no_mangle]
pub extern "C" fn rw_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// A failed call: its status and message.
#[derive(Debug)]
pub(crate) struct Failure {
    pub status: rw_status,
    pub message: String,
}

impl Failure {
    /// A wrong argument.
    pub fn invalid(message: impl Into<String>) -> Self {
        Failure {
            status: rw_status::RW_INVALID_ARGUMENT,
            message: message.into(),
        }
    }

    /// A closed handle.
    pub fn closed(what: &str) -> Self {
        Failure {
            status: rw_status::RW_CLOSED,
            message: format!("the {what} is closed"),
        }
    }
}

impl From<rootweave::Error> for Failure {
    fn from(e: rootweave::Error) -> Self {
        use rootweave::Error;
        let status = match &e {
            Error::Io { .. } | Error::Remote { .. } => rw_status::RW_IO,
            Error::Format { .. } | Error::Compression { .. } => rw_status::RW_FORMAT,
            Error::InvalidArgument(_) => rw_status::RW_INVALID_ARGUMENT,
            Error::NotFound { .. } => rw_status::RW_NOT_FOUND,
            Error::Unsupported { .. } => rw_status::RW_UNSUPPORTED,
            #[allow(unreachable_patterns)]
            _ => rw_status::RW_INTERNAL,
        };
        let message = e.to_string();
        // The engine's error for a context used after its writer was closed.
        let status = if message.ends_with("the parallel writer was closed")
            && status == rw_status::RW_INVALID_ARGUMENT
        {
            rw_status::RW_CLOSED
        } else {
            status
        };
        Failure { status, message }
    }
}

/// Records `message` as the calling thread's last error.
pub(crate) fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// Runs an entry point's body: its failure becomes a status and the thread's message, and
/// a panic becomes `RW_INTERNAL` instead of unwinding into the caller.
pub(crate) fn guard(body: impl FnOnce() -> Result<(), Failure>) -> rw_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => rw_status::RW_OK,
        Ok(Err(failure)) => {
            set_last_error(&failure.message);
            failure.status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            set_last_error(&format!("internal error in rootweave: {what}"));
            rw_status::RW_INTERNAL
        }
    }
}

/// A handle argument as a shared reference, or a failure naming it when it is null.
///
/// # Safety
/// `ptr` must be null or point to a live `T` made by this library.
pub(crate) unsafe fn handle<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: the caller promises `ptr` is null or a live handle of this library.
    unsafe { ptr.as_ref() }.ok_or_else(|| Failure::invalid(format!("the {what} is null")))
}

/// A handle argument as a unique reference, or a failure naming it when it is null.
///
/// # Safety
/// `ptr` must be null or point to a live `T` made by this library that no other thread
/// uses during the call.
pub(crate) unsafe fn handle_mut<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller promises a live handle used by this thread alone.
    unsafe { ptr.as_mut() }.ok_or_else(|| Failure::invalid(format!("the {what} is null")))
}

/// A C string argument, or a failure naming it when it is null or not UTF-8.
///
/// # Safety
/// `ptr` must be null or point to a NUL-terminated string.
pub(crate) unsafe fn text<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure::invalid(format!("the {what} is null")));
    }
    // SAFETY: non-null and NUL-terminated, as the caller promises.
    unsafe { std::ffi::CStr::from_ptr(ptr) }
        .to_str()
        .map_err(|_| Failure::invalid(format!("the {what} is not UTF-8")))
}

/// Writes `value` through an out-parameter, or fails when it is null.
///
/// # Safety
/// `out` must be null or valid for a write of `T`.
pub(crate) unsafe fn put<T>(out: *mut T, value: T, what: &str) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::invalid(format!(
            "the {what} out-parameter is null"
        )));
    }
    // SAFETY: non-null and valid for writes, as the caller promises.
    unsafe { out.write(value) };
    Ok(())
}
