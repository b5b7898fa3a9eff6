//! Files of any fsspec file system (`s3://`, `gs://`, `simplecache::https://...`) read
//! through its `cat_ranges`, so that the file systems uproot users have set up work here too.

use pyo3::exceptions::{PyFileNotFoundError, PyPermissionError, PyTimeoutError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rootweave::error::{Error, RemoteErrorKind, Result};
use rootweave::io::ReadAt;

/// A file of an fsspec file system: every read is one `cat_ranges` call of its ranges,
/// made with the GIL taken for the call only.
pub struct FsspecSource {
    fs: Py<PyAny>,
    path: String,
    size: u64,
    shown: String,
}

impl FsspecSource {
    /// The file `path` of the file system `fs`, `size` bytes long, named `shown` in errors.
    pub fn new(fs: Py<PyAny>, path: String, size: u64, shown: String) -> Self {
        FsspecSource {
            fs,
            path,
            size,
            shown,
        }
    }

    fn error(&self, range: Option<(u64, u64)>, kind: RemoteErrorKind, what: String) -> Error {
        Error::Remote {
            url: self.shown.clone(),
            range,
            kind,
            what,
        }
    }

    /// The error of a Python exception raised (or returned) by the file system.
    fn python_error(&self, py: Python<'_>, e: &PyErr, range: Option<(u64, u64)>) -> Error {
        let kind = if e.is_instance_of::<PyFileNotFoundError>(py) {
            RemoteErrorKind::NotFound
        } else if e.is_instance_of::<PyPermissionError>(py) {
            RemoteErrorKind::Denied
        } else if e.is_instance_of::<PyTimeoutError>(py) {
            RemoteErrorKind::TimedOut
        } else {
            RemoteErrorKind::Network
        };
        self.error(range, kind, e.to_string())
    }
}

impl ReadAt for FsspecSource {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        self.read_ranges(&mut [(offset, buf)])
    }

    fn size(&self) -> Result<u64> {
        Ok(self.size)
    }

    fn name(&self) -> String {
        self.shown.clone()
    }

    fn prefers_vectored(&self) -> bool {
        true
    }

    fn read_ranges(&self, reads: &mut [(u64, &mut [u8])]) -> Result<()> {
        if reads.is_empty() {
            return Ok(());
        }
        let span = |o: u64, b: &[u8]| (o, o + b.len() as u64);
        for (offset, buf) in reads.iter() {
            if offset + buf.len() as u64 > self.size {
                let what = format!(
                    "the range runs past the end of the file ({} bytes)",
                    self.size
                );
                return Err(self.error(Some(span(*offset, buf)), RemoteErrorKind::BadReply, what));
            }
        }
        Python::attach(|py| {
            let paths = vec![self.path.as_str(); reads.len()];
            let starts: Vec<u64> = reads.iter().map(|(o, _)| *o).collect();
            let ends: Vec<u64> = reads.iter().map(|(o, b)| o + b.len() as u64).collect();
            let first = (starts[0], ends[0]);
            let parts = self
                .fs
                .bind(py)
                .call_method1("cat_ranges", (paths, starts, ends))
                .map_err(|e| self.python_error(py, &e, Some(first)))?;
            let mut parts = parts
                .try_iter()
                .map_err(|e| self.python_error(py, &e, Some(first)))?;
            for (offset, buf) in reads.iter_mut() {
                let range = Some(span(*offset, buf));
                let part = match parts.next() {
                    Some(part) => part.map_err(|e| self.python_error(py, &e, range))?,
                    None => {
                        let what = "cat_ranges returned fewer parts than asked".to_string();
                        return Err(self.error(range, RemoteErrorKind::BadReply, what));
                    }
                };
                // fsspec returns the exception of a range that failed in its place.
                if let Ok(e) = part.cast::<pyo3::exceptions::PyBaseException>() {
                    let e = PyErr::from_value(e.clone().into_any());
                    return Err(self.python_error(py, &e, range));
                }
                let bytes = part.cast::<PyBytes>().map_err(|_| {
                    let what = "cat_ranges returned something else than bytes".to_string();
                    self.error(range, RemoteErrorKind::BadReply, what)
                })?;
                let bytes = bytes.as_bytes();
                if bytes.len() != buf.len() {
                    let what = format!("{} bytes came of the {} asked", bytes.len(), buf.len());
                    return Err(self.error(range, RemoteErrorKind::BadReply, what));
                }
                buf.copy_from_slice(bytes);
            }
            Ok(())
        })
    }
}
