//! The error type shared by every layer.
//!
//! Errors about file contents always say which file, which object and which byte offset
//! they concern, so that a user can find the problem with a hex dump.

use std::path::PathBuf;

/// Result type of the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in rootweave.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system I/O error on a named file.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file being accessed.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// The bytes of a file do not form what they should.
    #[error("{file}: malformed {object} at byte offset {offset}: {message}")]
    Format {
        /// The file (or `<memory>`) the bytes come from.
        file: String,
        /// The object being decoded (e.g. "file header", "key 'Events'", "RNTuple page").
        object: String,
        /// Absolute byte offset in the file where the problem was found.
        offset: u64,
        /// What is wrong.
        message: String,
    },

    /// A compressed payload could not be decoded.
    #[error("malformed compressed data at byte {offset} of the payload: {message}")]
    Compression {
        /// Offset of the problem, relative to the start of the compressed payload.
        offset: u64,
        /// What is wrong.
        message: String,
    },

    /// An argument given by the caller is not valid (a bad option, a value that does not
    /// match the schema, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// The requested object does not exist in the file.
    #[error("{file}: no object named '{name}'")]
    NotFound {
        /// The file searched.
        file: String,
        /// The name looked up.
        name: String,
    },

    /// A remote file could not be read: its URL (without credentials or query), the byte
    /// range asked (end exclusive), what kind of failure and what happened.
    #[error("{url}{}: {what}", range_text(.range))]
    Remote {
        /// The URL.
        url: String,
        /// The bytes asked for.
        range: Option<(u64, u64)>,
        /// The kind of failure.
        kind: RemoteErrorKind,
        /// The status or the network error.
        what: String,
    },

    /// The file uses a feature that rootweave does not support.
    #[error("{file}: unsupported {what}")]
    Unsupported {
        /// The file.
        file: String,
        /// What is not supported.
        what: String,
    },
}

/// What went wrong reading a remote file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteErrorKind {
    /// The server has no such file (404, 410).
    NotFound,
    /// The server refused access (401, 403).
    Denied,
    /// The server sent nothing for longer than the timeout.
    TimedOut,
    /// The connection failed or the server failed (5xx) after every retry.
    Network,
    /// The server answered something else than what was asked.
    BadReply,
}

fn range_text(range: &Option<(u64, u64)>) -> String {
    match range {
        Some((start, end)) => format!(" (bytes {start}-{end})"),
        None => String::new(),
    }
}

impl Error {
    /// Whether trying again may succeed: an I/O error or a remote server's (the others,
    /// malformed bytes or a bad argument, would come again).
    pub fn is_transient(&self) -> bool {
        matches!(self, Error::Io { .. } | Error::Remote { .. })
    }

    /// Builds an [`Error::Format`].
    pub fn format(
        file: impl Into<String>,
        object: impl Into<String>,
        offset: u64,
        message: impl Into<String>,
    ) -> Self {
        Error::Format {
            file: file.into(),
            object: object.into(),
            offset,
            message: message.into(),
        }
    }

    /// Re-labels a [`Error::Compression`] error as a [`Error::Format`] error of `object` in
    /// `file`, whose compressed payload starts at absolute offset `payload_offset`.
    /// Other errors are returned unchanged.
    pub fn in_object(self, file: &str, object: &str, payload_offset: u64) -> Self {
        match self {
            Error::Compression { offset, message } => Error::Format {
                file: file.to_string(),
                object: object.to_string(),
                offset: payload_offset + offset,
                message,
            },
            other => other,
        }
    }
}
