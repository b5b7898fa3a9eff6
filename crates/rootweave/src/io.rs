//! Positional byte access: the only layer that touches the operating system.
//!
//! [`ReadAt`] and [`WriteAt`] take `&self` and an absolute offset, so one open file can be
//! read and written from many threads at once without a shared cursor.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use crate::error::{Error, Result};

mod coalesce;
#[cfg(any(feature = "http", feature = "xrootd"))]
mod environment;
mod file_ends;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "xrootd")]
pub mod xrootd;

pub use coalesce::{coalesce, MAX_GAP};
pub use file_ends::WithEnds;

/// The name a file is written under until it is complete: `out.root` as
/// `.out.root.<pid>.part` next to it, renamed to `out.root` at the end so that a failed
/// writer leaves nothing under the final name.
pub fn temporary_path(output: &Path) -> PathBuf {
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    output.with_file_name(format!(".{name}.{}.part", std::process::id()))
}

/// True if both paths name one existing file (an output that would overwrite an input).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Thread-safe positional reads.
pub trait ReadAt: Send + Sync {
    /// Fills `buf` with the bytes starting at `offset`; fails if fewer are available.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()>;
    /// Current size in bytes.
    fn size(&self) -> Result<u64>;
    /// A name for error messages (the file path, or `<memory>`).
    fn name(&self) -> String;
    /// True for sources that pay per request (remote files): readers then gather their
    /// ranges into [`ReadAt::read_ranges`] calls instead of reading from many threads.
    fn prefers_vectored(&self) -> bool {
        false
    }
    /// Fills each buffer with the bytes at its offset. Sources that pay per request (remote
    /// files) override it to ask for many ranges at once; the default reads one by one.
    fn read_ranges(&self, reads: &mut [(u64, &mut [u8])]) -> Result<()> {
        for (offset, buf) in reads.iter_mut() {
            self.read_exact_at(buf, *offset)?;
        }
        Ok(())
    }
}

/// The bytes at `path`: a local file, an `http://` / `https://` URL (with the feature
/// `http`; [`http::HttpOptions::default`] settings), or a `root://` URL (with the feature
/// `xrootd`; [`xrootd::XrootdOptions::default`]).
pub fn open_source(path: &Path) -> Result<std::sync::Arc<dyn ReadAt>> {
    #[cfg(feature = "xrootd")]
    if let Some(url) = path.to_str().filter(|p| xrootd::is_xrootd_url(p)) {
        let file = xrootd::XrootdFile::open(url, xrootd::XrootdOptions::default())?;
        return Ok(std::sync::Arc::new(file));
    }
    #[cfg(feature = "http")]
    if let Some(url) = path.to_str().filter(|p| http::is_http_url(p)) {
        let file = http::HttpFile::open(url, http::HttpOptions::default())?;
        return Ok(std::sync::Arc::new(file));
    }
    Ok(std::sync::Arc::new(DiskFile::open(path)?))
}

/// Thread-safe positional writes.
pub trait WriteAt: Send + Sync {
    /// Writes all of `buf` at `offset`, growing the target if needed.
    fn write_all_at(&self, buf: &[u8], offset: u64) -> Result<()>;
    /// Sets the size to exactly `len` bytes (truncating or zero-extending).
    fn set_size(&self, len: u64) -> Result<()>;
    /// Flushes written data to stable storage where that means something.
    fn sync(&self) -> Result<()>;
    /// A name for error messages.
    fn name(&self) -> String;
    /// Reads back bytes written earlier, if the target can: `Ok(false)` (the default) says
    /// it cannot, and the writer then never relies on what it wrote (it shares identical
    /// pages across clusters only after comparing them with the bytes read back).
    fn read_back_at(&self, buf: &mut [u8], offset: u64) -> Result<bool> {
        let _ = (buf, offset);
        Ok(false)
    }
}

/// A file on disk, accessed with `pread`/`pwrite`.
#[derive(Debug)]
pub struct DiskFile {
    file: File,
    path: PathBuf,
}

impl DiskFile {
    /// Opens an existing file for reading.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = File::open(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        Ok(DiskFile { file, path })
    }

    /// Opens an existing file for reading and writing, keeping its bytes (a file being
    /// updated).
    pub fn open_for_update(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, std::fs::OpenOptions::new().read(true).write(true))
    }

    /// Creates (or truncates) a file for writing and reading.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(
            path,
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true),
        )
    }

    fn open_with(path: impl AsRef<Path>, options: &std::fs::OpenOptions) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = options.open(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        Ok(DiskFile { file, path })
    }

    /// The path the file was opened with.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn io_error(&self, source: std::io::Error) -> Error {
        Error::Io {
            path: self.path.clone(),
            source,
        }
    }
}

impl ReadAt for DiskFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        use std::os::unix::fs::FileExt;
        self.file
            .read_exact_at(buf, offset)
            .map_err(|e| self.io_error(e))
    }

    fn size(&self) -> Result<u64> {
        Ok(self.file.metadata().map_err(|e| self.io_error(e))?.len())
    }

    fn name(&self) -> String {
        self.path.display().to_string()
    }
}

/// The most bytes one `pwrite` hands the kernel: copying many megabytes into the page cache
/// in one call ran several times slower than the same bytes in pieces of this size
/// (bench/RESULTS.md, "Merging").
const WRITE_PIECE: usize = 1 << 20;

impl WriteAt for DiskFile {
    fn write_all_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        use std::os::unix::fs::FileExt;
        let mut at = offset;
        for piece in buf.chunks(WRITE_PIECE) {
            self.file
                .write_all_at(piece, at)
                .map_err(|e| self.io_error(e))?;
            at += piece.len() as u64;
        }
        Ok(())
    }

    fn set_size(&self, len: u64) -> Result<()> {
        self.file.set_len(len).map_err(|e| self.io_error(e))
    }

    fn sync(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| self.io_error(e))
    }

    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn read_back_at(&self, buf: &mut [u8], offset: u64) -> Result<bool> {
        ReadAt::read_exact_at(self, buf, offset)?;
        Ok(true)
    }
}

/// An in-memory file, for tests and for building files in memory.
#[derive(Debug, Default)]
pub struct MemoryFile {
    bytes: RwLock<Vec<u8>>,
}

impl MemoryFile {
    /// An empty in-memory file.
    pub fn new() -> Self {
        Self::default()
    }

    /// An in-memory file holding `bytes`.
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        MemoryFile {
            bytes: RwLock::new(bytes),
        }
    }

    /// A copy of the current contents.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.bytes.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Takes the contents out.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

fn memory_error(message: String) -> Error {
    Error::Io {
        path: PathBuf::from("<memory>"),
        source: std::io::Error::new(std::io::ErrorKind::UnexpectedEof, message),
    }
}

impl ReadAt for MemoryFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        let bytes = self.bytes.read().unwrap_or_else(|e| e.into_inner());
        let end = offset.checked_add(buf.len() as u64);
        match end {
            Some(end) if end <= bytes.len() as u64 => {
                buf.copy_from_slice(&bytes[offset as usize..end as usize]);
                Ok(())
            }
            _ => Err(memory_error(format!(
                "read of {} bytes at offset {offset} past the end ({} bytes)",
                buf.len(),
                bytes.len()
            ))),
        }
    }

    fn size(&self) -> Result<u64> {
        Ok(self.bytes.read().unwrap_or_else(|e| e.into_inner()).len() as u64)
    }

    fn name(&self) -> String {
        "<memory>".to_string()
    }
}

impl WriteAt for MemoryFile {
    fn write_all_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        let mut bytes = self.bytes.write().unwrap_or_else(|e| e.into_inner());
        let start = usize::try_from(offset).map_err(|_| memory_error("offset too large".into()))?;
        let end = start + buf.len();
        if bytes.len() < end {
            bytes.resize(end, 0);
        }
        bytes[start..end].copy_from_slice(buf);
        Ok(())
    }

    fn set_size(&self, len: u64) -> Result<()> {
        let len = usize::try_from(len).map_err(|_| memory_error("size too large".into()))?;
        self.bytes
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .resize(len, 0);
        Ok(())
    }

    fn sync(&self) -> Result<()> {
        Ok(())
    }

    fn name(&self) -> String {
        "<memory>".to_string()
    }

    fn read_back_at(&self, buf: &mut [u8], offset: u64) -> Result<bool> {
        ReadAt::read_exact_at(self, buf, offset)?;
        Ok(true)
    }
}

impl<T: ReadAt + ?Sized> ReadAt for std::sync::Arc<T> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        (**self).read_exact_at(buf, offset)
    }
    fn size(&self) -> Result<u64> {
        (**self).size()
    }
    fn name(&self) -> String {
        (**self).name()
    }
    fn prefers_vectored(&self) -> bool {
        (**self).prefers_vectored()
    }
    fn read_ranges(&self, reads: &mut [(u64, &mut [u8])]) -> Result<()> {
        (**self).read_ranges(reads)
    }
}

impl<T: WriteAt + ?Sized> WriteAt for std::sync::Arc<T> {
    fn write_all_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        (**self).write_all_at(buf, offset)
    }
    fn set_size(&self, len: u64) -> Result<()> {
        (**self).set_size(len)
    }
    fn sync(&self) -> Result<()> {
        (**self).sync()
    }
    fn name(&self) -> String {
        (**self).name()
    }

    fn read_back_at(&self, buf: &mut [u8], offset: u64) -> Result<bool> {
        (**self).read_back_at(buf, offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_file_round_trip_and_bounds() {
        let f = MemoryFile::new();
        f.write_all_at(b"abc", 2).unwrap();
        assert_eq!(f.to_bytes(), b"\0\0abc");
        let mut buf = [0u8; 3];
        f.read_exact_at(&mut buf, 2).unwrap();
        assert_eq!(&buf, b"abc");
        assert!(f.read_exact_at(&mut buf, 3).is_err());
        assert!(f.read_exact_at(&mut buf, u64::MAX).is_err());
    }

    #[test]
    fn disk_file_round_trip() {
        let dir = std::env::temp_dir().join(format!("rw-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.bin");
        let f = DiskFile::create(&path).unwrap();
        f.write_all_at(b"hello", 10).unwrap();
        assert_eq!(ReadAt::size(&f).unwrap(), 15);
        let mut buf = [0u8; 5];
        f.read_exact_at(&mut buf, 10).unwrap();
        assert_eq!(&buf, b"hello");
        let err = f.read_exact_at(&mut buf, 12).unwrap_err();
        assert!(err.to_string().contains("x.bin"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
