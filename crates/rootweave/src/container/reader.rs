//! Reading a ROOT file: the header, the top directory and its keys, objects' bytes.
//!
//! Every offset and length read from the file is checked against the file's size before
//! it is used, and errors name the file, the object and the byte offset.

use std::path::Path;
use std::sync::Arc;

use super::directory::{decode_keys_list, Directory, DIRECTORY_LEN};
use super::header::FileHeader;
use super::key::KeyInfo;
use crate::compress::decompress;
use crate::error::{Error, Result};
use crate::io::{open_source, ReadAt};
use crate::streamer::bytes::BeReader;

/// An open ROOT file. All methods take `&self` and may be called from many threads.
pub struct RootFile {
    source: Arc<dyn ReadAt>,
    name: String,
    size: u64,
    header: FileHeader,
    keys: Vec<KeyInfo>,
}

impl std::fmt::Debug for RootFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RootFile")
            .field("name", &self.name)
            .field("keys", &self.keys.len())
            .finish_non_exhaustive()
    }
}

/// Bytes read at once at the start of a file: the header and usually the top record.
const FIRST_READ: u64 = 512;

impl RootFile {
    /// Opens the file at `path`, or at an `http://` / `https://` URL (with the feature
    /// `http`; [`crate::io::http::HttpOptions::default`] settings), or a `root://` URL
    /// (with the feature `xrootd`; [`crate::io::xrootd::XrootdOptions::default`]).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::from_source(open_source(path.as_ref())?)
    }

    /// Opens a file from any positional byte source.
    pub fn from_source(source: Arc<dyn ReadAt>) -> Result<Self> {
        let name = source.name();
        let size = source.size()?;
        let first = read_checked(
            &*source,
            &name,
            size,
            0,
            FIRST_READ.min(size),
            "file header",
        )?;
        let header = FileHeader::decode(&mut BeReader::new(&first, 0, &name, "file header"))?;
        // The size again, after the header: a file still being written grows, and its
        // writer puts the records a header points to before the header itself.
        let size = source.size()?.max(size);
        if header.end > size {
            return Err(Error::format(
                &name,
                "file header",
                12,
                format!(
                    "the file should be {} bytes long but is {size}: it is truncated",
                    header.end
                ),
            ));
        }
        if !(10..=10_000).contains(&header.nbytes_name) {
            return Err(Error::format(
                &name,
                "file header",
                28,
                format!("fNbytesName {} is out of range", header.nbytes_name),
            ));
        }
        let dir_offset = header.begin + header.nbytes_name as u64;
        let dir_bytes = read_checked(
            &*source,
            &name,
            size,
            dir_offset,
            DIRECTORY_LEN as u64,
            "top directory",
        )?;
        let dir = Directory::decode(&mut BeReader::new(
            &dir_bytes,
            dir_offset,
            &name,
            "top directory",
        ))?;
        // Once more: a checkpoint may have rewritten the directory since, pointing to a
        // keys list written (before the directory) after the size was last taken.
        let size = source.size()?.max(size);
        let mut file = RootFile {
            source,
            name,
            size,
            header,
            keys: Vec::new(),
        };
        file.keys = file.read_keys_list(&dir, "top directory")?;
        Ok(file)
    }

    /// A file whose header and keys lists cannot be trusted (one being recovered), for
    /// reading records by keys found otherwise: no keys, and the StreamerInfo record
    /// behind `streamer_info` if given.
    pub fn from_records(source: Arc<dyn ReadAt>, streamer_info: Option<&KeyInfo>) -> Result<Self> {
        let name = source.name();
        let size = source.size()?;
        let header = FileHeader {
            version: 0,
            is_large: size > i32::MAX as u64,
            begin: 100,
            end: size,
            seek_free: 0,
            nbytes_free: 0,
            nfree: 0,
            nbytes_name: 0,
            compression: 0,
            seek_info: streamer_info.map_or(0, |k| k.seek_key),
            nbytes_info: streamer_info.map_or(0, |k| k.nbytes),
            uuid: [0; 16],
        };
        Ok(RootFile {
            source,
            name,
            size,
            header,
            keys: Vec::new(),
        })
    }

    fn read_keys_list(&self, dir: &Directory, what: &str) -> Result<Vec<KeyInfo>> {
        if dir.seek_keys == 0 {
            return Ok(Vec::new());
        }
        let object = format!("keys list of the {what}");
        let bytes = self.read_at(dir.seek_keys, dir.nbytes_keys as u64, &object)?;
        let mut r = BeReader::new(&bytes, dir.seek_keys, &self.name, &object);
        let own_key = KeyInfo::decode(&mut r)?;
        // The list follows the header (or its declared length, if that is longer).
        let skip = (own_key.keylen as usize).saturating_sub(r.position());
        r.take(skip)?;
        let keys = decode_keys_list(&mut r)?;
        for key in &keys {
            if key.seek_key.saturating_add(key.nbytes as u64) > self.size {
                return Err(Error::format(
                    &self.name,
                    format!("key '{}'", key.name),
                    key.seek_key,
                    format!(
                        "the record of {} bytes runs past the end of the file ({} bytes)",
                        key.nbytes, self.size
                    ),
                ));
            }
        }
        Ok(keys)
    }

    /// The file's name (its path), as used in error messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file header.
    pub fn header(&self) -> &FileHeader {
        &self.header
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The keys of the top directory, all cycles, in the order of the keys list.
    pub fn keys(&self) -> &[KeyInfo] {
        &self.keys
    }

    /// The key of `name` (highest cycle), `name;cycle`, or `dir/sub/name` through
    /// subdirectories.
    pub fn get_key(&self, path: &str) -> Result<KeyInfo> {
        let mut parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        let last = parts.pop().ok_or_else(|| self.not_found(path))?;
        let mut keys = self.keys.clone();
        for dir in parts {
            let key = find(&keys, dir).ok_or_else(|| self.not_found(path))?;
            keys = self.directory_keys(&key)?;
        }
        find(&keys, last).ok_or_else(|| self.not_found(path))
    }

    fn not_found(&self, name: &str) -> Error {
        Error::NotFound {
            file: self.name.clone(),
            name: name.to_string(),
        }
    }

    /// The keys of a subdirectory.
    pub fn directory_keys(&self, dir: &KeyInfo) -> Result<Vec<KeyInfo>> {
        if !dir.class_name.starts_with("TDirectory") {
            return Err(Error::InvalidArgument(format!(
                "'{}' is a {}, not a directory",
                dir.name, dir.class_name
            )));
        }
        let object = format!("directory '{}'", dir.name);
        let bytes = self.read_object(dir)?;
        let directory = Directory::decode(&mut BeReader::new(
            &bytes,
            dir.payload_offset(),
            &self.name,
            &object,
        ))?;
        self.read_keys_list(&directory, &object)
    }

    /// The uncompressed payload of an object.
    pub fn read_object(&self, key: &KeyInfo) -> Result<Vec<u8>> {
        let object = format!("key '{}'", key.name);
        let stored = self.read_at(key.payload_offset(), key.payload_len(), &object)?;
        if !key.is_compressed() {
            return Ok(stored);
        }
        decompress(&stored, key.objlen as usize)
            .map_err(|e| e.in_object(&self.name, &object, key.payload_offset()))
    }

    /// `len` bytes at `offset`, checked against the file size; errors name `what`.
    pub fn read_at(&self, offset: u64, len: u64, what: &str) -> Result<Vec<u8>> {
        read_checked(&*self.source, &self.name, self.size, offset, len, what)
    }

    /// Fills `buf` with the bytes at `offset`, checked against the file size; errors name
    /// `what`.
    pub fn read_into(&self, offset: u64, buf: &mut [u8], what: &str) -> Result<()> {
        check_range(&self.name, self.size, offset, buf.len() as u64, what)?;
        self.source.read_exact_at(buf, offset)
    }

    /// Fills each buffer with the bytes at its offset, all checked against the file size
    /// first, in one vectored read of the source (one request for many ranges, remotely).
    pub fn read_ranges(&self, reads: &mut [(u64, &mut [u8])], what: &str) -> Result<()> {
        for (offset, buf) in reads.iter() {
            check_range(&self.name, self.size, *offset, buf.len() as u64, what)?;
        }
        self.source.read_ranges(reads)
    }

    /// The bytes of each range, keyed by its start, read with one vectored read (see
    /// [`RootFile::read_ranges`]): how readers fetch a window of a remote file.
    pub fn read_many(
        &self,
        ranges: impl IntoIterator<Item = std::ops::Range<u64>>,
        what: &str,
    ) -> Result<std::collections::HashMap<u64, Vec<u8>>> {
        let mut bytes: Vec<(u64, Vec<u8>)> = ranges
            .into_iter()
            .map(|r| (r.start, vec![0u8; r.end.saturating_sub(r.start) as usize]))
            .collect();
        let mut reads: Vec<(u64, &mut [u8])> =
            bytes.iter_mut().map(|(o, b)| (*o, &mut b[..])).collect();
        self.read_ranges(&mut reads, what)?;
        Ok(bytes.into_iter().collect())
    }

    /// The byte source.
    pub fn source(&self) -> &Arc<dyn ReadAt> {
        &self.source
    }

    /// The uncompressed payload of the StreamerInfo record, if the file has one.
    pub fn streamer_list_payload(&self) -> Result<Option<Vec<u8>>> {
        Ok(self.streamer_record()?.map(|(_, payload)| payload))
    }

    /// The StreamerInfo record's key and uncompressed payload, if the file has one (its
    /// reference tags count from the key's length).
    pub fn streamer_record(&self) -> Result<Option<(KeyInfo, Vec<u8>)>> {
        if self.header.seek_info <= self.header.begin || self.header.nbytes_info == 0 {
            return Ok(None);
        }
        let bytes = self.read_at(
            self.header.seek_info,
            self.header.nbytes_info as u64,
            "StreamerInfo record",
        )?;
        let key = KeyInfo::decode(&mut BeReader::new(
            &bytes,
            self.header.seek_info,
            &self.name,
            "StreamerInfo record",
        ))?;
        let payload = self.read_object(&key)?;
        Ok(Some((key, payload)))
    }
}

fn find(keys: &[KeyInfo], name: &str) -> Option<KeyInfo> {
    let (name, cycle) = match name.rsplit_once(';') {
        Some((n, c)) => (n, c.parse::<u16>().ok()),
        None => (name, None),
    };
    super::key::find_cycle(keys, name, cycle).map(|i| keys[i].clone())
}

fn check_range(name: &str, size: u64, offset: u64, len: u64, what: &str) -> Result<()> {
    match offset.checked_add(len) {
        Some(end) if end <= size => Ok(()),
        _ => Err(Error::format(
            name,
            what,
            offset,
            format!("{len} bytes at offset {offset} run past the end of the file ({size} bytes)"),
        )),
    }
}

fn read_checked(
    source: &dyn ReadAt,
    name: &str,
    size: u64,
    offset: u64,
    len: u64,
    what: &str,
) -> Result<Vec<u8>> {
    check_range(name, size, offset, len, what)?;
    let mut buf = vec![0u8; len as usize];
    source.read_exact_at(&mut buf, offset)?;
    Ok(buf)
}
