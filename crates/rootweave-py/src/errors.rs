//! Rust errors as Python exceptions, with the same messages (file, object, offset).

use pyo3::exceptions::{
    PyConnectionError, PyFileNotFoundError, PyKeyError, PyOSError, PyPermissionError,
    PyTimeoutError, PyValueError,
};
use pyo3::PyErr;

pyo3::create_exception!(
    rootweave,
    RootFileError,
    PyOSError,
    "A ROOT file is malformed, truncated or uses a feature rootweave does not support."
);

/// Converts a rootweave error: a missing object is a `KeyError`, a bad argument a
/// `ValueError`, a missing file `FileNotFoundError` (a remote one too), another
/// operating-system error an `OSError`, a malformed or unsupported file a `RootFileError`
/// (an `OSError`); a remote file's refused access `PermissionError`, a stalled server
/// `TimeoutError`, a failed connection or server `ConnectionError`, a wrong reply a
/// `RootFileError`.
pub fn to_py(e: rootweave::Error) -> PyErr {
    use rootweave::error::RemoteErrorKind;
    use rootweave::Error as E;
    let message = e.to_string();
    match e {
        E::NotFound { .. } => PyKeyError::new_err(message),
        E::InvalidArgument(_) => PyValueError::new_err(message),
        E::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(message)
        }
        E::Io { .. } => PyOSError::new_err(message),
        E::Remote { kind, .. } => match kind {
            RemoteErrorKind::NotFound => PyFileNotFoundError::new_err(message),
            RemoteErrorKind::Denied => PyPermissionError::new_err(message),
            RemoteErrorKind::TimedOut => PyTimeoutError::new_err(message),
            RemoteErrorKind::Network => PyConnectionError::new_err(message),
            RemoteErrorKind::BadReply => RootFileError::new_err(message),
        },
        _ => RootFileError::new_err(message),
    }
}

/// Converts an error about a type given by the caller (a schema the format cannot hold):
/// a `TypeError`, others as [`to_py`] does.
pub fn to_type_error(e: rootweave::Error) -> PyErr {
    match e {
        rootweave::Error::InvalidArgument(m) => pyo3::exceptions::PyTypeError::new_err(m),
        other => to_py(other),
    }
}
