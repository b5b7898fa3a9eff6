//! Writing a ROOT file: records are appended at the end; `close` writes the StreamerInfo
//! record, the keys lists, the free-segments record, the directories and the header. A
//! `checkpoint` writes all but the free-segments record, so that a file whose writer dies
//! later opens with everything listed up to then.
//!
//! All methods but `close` take `&self`: byte ranges are reserved under a short lock and
//! written with positional writes outside it, so many threads can write at once.

use std::path::Path;
use std::sync::{Arc, Mutex};

use super::directory::{encode_keys_list, Directory, DIRECTORY_LEN};
use super::header::{datime_now, FileHeader, BEGIN, ROOT_VERSION};
use super::key::{find_cycle, KeyInfo, START_BIG_FILE};
use super::write_dirs::{next_cycle, DirState, DirectoryId, DIRECTORY_CLASS};
use crate::compress::{compress, Compression};
use crate::error::{Error, Result};
use crate::io::{DiskFile, WriteAt};
use crate::streamer::bytes::{tstring_len, BeWrite};
use crate::streamer::{extend_streamer_list, rntuple_anchor_info, streamer_list, StreamerInfo};

/// Settings of a new file; build them from the default with the `with_` methods.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct WriterOptions {
    /// The file's default compression (stored in the header; used for listed objects and
    /// the StreamerInfo record).
    pub compression: Compression,
    /// The file's title.
    pub title: String,
    /// Write the same bytes for the same content on every run: fixed dates and
    /// identifiers (zero UUIDs), as ROOT's `?reproducible` files have.
    pub reproducible: bool,
}

impl WriterOptions {
    /// With the file's default compression.
    pub fn with_compression(mut self, compression: Compression) -> Self {
        self.compression = compression;
        self
    }

    /// With the file's title.
    pub fn with_title(mut self, title: String) -> Self {
        self.title = title;
        self
    }

    /// With fixed dates and zero UUIDs: the same content gives the same bytes on every run.
    pub fn with_reproducible(mut self, reproducible: bool) -> Self {
        self.reproducible = reproducible;
        self
    }
}

/// The date of every record of a reproducible file: 1995-01-01 00:00:00, in ROOT's
/// `TDatime` packing (years since 1995 from bit 26, then month, day, hour, minute, second).
const REPRODUCIBLE_DATIME: u32 = (1 << 22) | (1 << 17);

/// What `close` wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloseSummary {
    /// Size of the file in bytes.
    pub file_size: u64,
    /// True if the file uses the large (64-bit) forms.
    pub is_large: bool,
}

/// Size of the key header of an RNTuple blob: a big key of class `RBlob` with empty name
/// and title.
pub const BLOB_KEY_LEN: u64 = 42;

#[derive(Debug)]
struct State {
    end: u64,
    /// The top directory first, then subdirectories in the order made.
    dirs: Vec<DirState>,
    streamer_infos: Vec<StreamerInfo>,
    /// A StreamerInfo record taken from another file, made for each key length it may get
    /// (replaces `streamer_infos`).
    streamer_record: Vec<(usize, Vec<u8>)>,
    /// The classes (name and version) `streamer_record` describes, when the layouts of
    /// other classes or versions in `streamer_infos` are to be added to it (a file being
    /// updated).
    record_classes: Option<Vec<(String, i32)>>,
    /// Byte ranges (first, last) no record uses, listed in the free-segments record.
    free: Vec<(u64, u64)>,
}

impl State {
    fn new() -> Self {
        State {
            end: 0,
            dirs: vec![DirState::top()],
            streamer_infos: Vec::new(),
            streamer_record: Vec::new(),
            record_classes: None,
            free: Vec::new(),
        }
    }
}

/// A directory of a file continued by [`FileWriter::append`].
#[derive(Debug, Clone, Default)]
pub struct AppendedDirectory {
    /// Its key in its parent (none for the top directory).
    pub key: Option<KeyInfo>,
    /// Its parent's index in the list.
    pub parent: usize,
    /// The objects (and subdirectories) it lists.
    pub keys: Vec<KeyInfo>,
    /// What its record said of it (a subdirectory's UUID and creation time), kept when
    /// the record is rewritten, as ROOT keeps them; `None` gives it a new identity.
    pub identity: Option<DirectoryIdentity>,
}

/// What identifies a directory across rewrites of its record: its UUID and creation time
/// (ROOT rewrites only the modification time, keys-list location and offsets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectoryIdentity {
    /// The directory's UUID (the 16 bytes after the TUUID version).
    pub uuid: [u8; 16],
    /// When it was made (ROOT's `TDatime` encoding).
    pub created: u32,
}

/// A ROOT file being written.
pub struct FileWriter {
    backend: Arc<dyn WriteAt>,
    file_name: String,
    options: WriterOptions,
    datime: u32,
    /// When the file was made (its top directory's creation time).
    created: u32,
    uuid: [u8; 16],
    state: Mutex<State>,
}

impl std::fmt::Debug for FileWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileWriter")
            .field("file_name", &self.file_name)
            .finish_non_exhaustive()
    }
}

impl FileWriter {
    /// Creates (or truncates) the file at `path`.
    pub fn create(path: impl AsRef<Path>, options: WriterOptions) -> Result<Self> {
        let path = path.as_ref();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Self::with_backend(Arc::new(DiskFile::create(path)?), &name, options)
    }

    /// A file written to `backend`; `file_name` is stored in the file's top record.
    pub fn with_backend(
        backend: Arc<dyn WriteAt>,
        file_name: &str,
        options: WriterOptions,
    ) -> Result<Self> {
        let reproducible = options.reproducible;
        let datime = if reproducible {
            REPRODUCIBLE_DATIME
        } else {
            datime_now()
        };
        let mut writer = FileWriter {
            backend,
            file_name: file_name.to_string(),
            options,
            datime,
            created: datime,
            uuid: if reproducible { [0; 16] } else { new_uuid() },
            state: Mutex::new(State::new()),
        };
        let top_len = writer.top_record(false, &Directory::empty()).len() as u64;
        writer.state.get_mut().expect("new lock").end = BEGIN + top_len;
        // Zeros until close writes the header and the top record.
        writer
            .backend
            .write_all_at(&vec![0u8; (BEGIN + top_len) as usize], 0)?;
        Ok(writer)
    }

    /// Continues a file whose first `end` bytes are in `backend` already (a file being
    /// recovered): records go after them, and each directory of `dirs` (the top one first,
    /// parents before their subdirectories) lists its objects and those written from now
    /// on. `file_name` and the title in `options` must give a top record of the length the
    /// file has room for at its start (see [`FileWriter::top_record_len`]); a
    /// subdirectory's record is rewritten where its key is, which must have room for it.
    pub fn append(
        backend: Arc<dyn WriteAt>,
        file_name: &str,
        options: WriterOptions,
        end: u64,
        dirs: Vec<AppendedDirectory>,
    ) -> Result<Self> {
        let writer = FileWriter {
            backend,
            file_name: file_name.to_string(),
            options,
            datime: datime_now(),
            created: datime_now(),
            uuid: new_uuid(),
            state: Mutex::new(State::new()),
        };
        let top_len = writer.top_record(false, &Directory::empty()).len() as u64;
        if end < BEGIN + top_len {
            return Err(Error::InvalidArgument(format!(
                "{file_name}: {end} bytes do not hold the file's top record"
            )));
        }
        {
            let mut state = writer.lock();
            state.end = end;
            for (i, dir) in dirs.into_iter().enumerate() {
                match dir.key {
                    None if i == 0 => state.dirs[0].keys = dir.keys,
                    Some(key) if i > 0 && dir.parent < i => {
                        let room = key.nbytes as usize - key.keylen as usize;
                        let name = key.name.clone();
                        let (created, uuid) = dir
                            .identity
                            .map_or((writer.datime, None), |i| (i.created, Some(i.uuid)));
                        let uuid = uuid.unwrap_or_else(new_uuid);
                        let mut made = DirState::new(&name, dir.parent, key, created, uuid);
                        made.keys = dir.keys;
                        if made.record(&state.dirs, writer.datime).len() > room {
                            return Err(Error::InvalidArgument(format!(
                                "{file_name}: the record of directory '{}' has no room to be rewritten",
                                made.name
                            )));
                        }
                        state.dirs.push(made);
                    }
                    _ => {
                        return Err(Error::InvalidArgument(
                            "directories must start with the top one, parents first".into(),
                        ))
                    }
                }
            }
        }
        Ok(writer)
    }

    /// The same writer keeping a continued file's identity: its UUID and the creation time
    /// of its top directory (a file updated stays the same file to caches keyed by UUID).
    pub fn with_identity(mut self, uuid: [u8; 16], created: u32) -> Self {
        self.uuid = uuid;
        self.created = created;
        self
    }

    /// Length of the top record (the file's key and top directory) of a file named
    /// `file_name` with `title`, which starts at byte 100.
    pub fn top_record_len(file_name: &str, title: &str) -> u64 {
        let named_len = tstring_len(file_name) + tstring_len(title);
        (KeyInfo::header_len("TFile", file_name, title, false) + named_len + DIRECTORY_LEN) as u64
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The file's default compression.
    pub fn compression(&self) -> Compression {
        self.options.compression
    }

    /// The date and time stamped on the file's keys (ROOT's `TDatime` encoding).
    pub fn datime(&self) -> u32 {
        self.datime
    }

    /// The key length [`FileWriter::write_object`] will give an object written next
    /// (objects streamed with references to themselves need it first).
    pub fn next_key_len(&self, class: &str, name: &str, title: &str) -> usize {
        let big = self.lock().end >= START_BIG_FILE;
        KeyInfo::header_len(class, name, title, big)
    }

    /// Reserves `len` bytes at the end of the file and returns their offset.
    pub fn allocate(&self, len: u64) -> u64 {
        let mut state = self.lock();
        let offset = state.end;
        state.end += len;
        offset
    }

    /// Writes `bytes` at `offset` (in a range reserved before).
    pub fn write_at(&self, offset: u64, bytes: &[u8]) -> Result<()> {
        self.backend.write_all_at(bytes, offset)
    }

    /// Reads back `buf.len()` bytes written at `offset`; `Ok(false)` if the backend cannot
    /// read what it wrote (see [`WriteAt::read_back_at`]).
    pub fn read_back(&self, offset: u64, buf: &mut [u8]) -> Result<bool> {
        self.backend.read_back_at(buf, offset)
    }

    /// Reserves an RNTuple blob of `payload_len` bytes (`objlen` uncompressed), writes its
    /// key header, and returns the offset where the payload goes.
    pub fn reserve_blob(&self, payload_len: u64, objlen: u64) -> Result<u64> {
        let seek = self.allocate_blob(payload_len)?;
        self.write_blob_key(seek, payload_len, objlen)
    }

    /// Reserves the byte range of a blob (key header and `payload_len` bytes) without
    /// writing anything; returns the offset of the key. Cheap enough for a critical section.
    pub fn allocate_blob(&self, payload_len: u64) -> Result<u64> {
        if BLOB_KEY_LEN + payload_len > i32::MAX as u64 {
            return Err(Error::InvalidArgument(format!(
                "a blob of {payload_len} bytes does not fit in one ROOT key"
            )));
        }
        Ok(self.allocate(BLOB_KEY_LEN + payload_len))
    }

    /// Writes the key header of a blob reserved with [`FileWriter::allocate_blob`] at
    /// `seek`; returns the offset of its payload.
    pub fn write_blob_key(&self, seek: u64, payload_len: u64, objlen: u64) -> Result<u64> {
        let key = KeyInfo::new(
            "RBlob",
            "",
            "",
            1,
            seek,
            BEGIN,
            payload_len,
            objlen.min(i32::MAX as u64),
            true,
            self.datime,
        );
        let mut header = Vec::with_capacity(BLOB_KEY_LEN as usize);
        key.encode(&mut header);
        self.write_at(seek, &header)?;
        Ok(seek + BLOB_KEY_LEN)
    }

    /// Writes an RNTuple blob and returns the offset of its payload.
    pub fn write_blob(&self, payload: &[u8], objlen: u64) -> Result<u64> {
        let at = self.reserve_blob(payload.len() as u64, objlen)?;
        self.write_at(at, payload)?;
        Ok(at)
    }

    /// Writes an object listed in the top directory. Its payload is compressed with the
    /// file's compression if `compress`, it is longer than 256 bytes and compression makes
    /// it smaller (as ROOT's TKey does). The cycle is one more than the highest cycle of
    /// `name` so far.
    pub fn write_object(
        &self,
        class: &str,
        name: &str,
        title: &str,
        payload: &[u8],
        compress_it: bool,
    ) -> Result<KeyInfo> {
        self.write_object_in(DirectoryId::TOP, class, name, title, payload, compress_it)
    }

    /// Writes an object listed in directory `dir` (see [`FileWriter::write_object`]).
    pub fn write_object_in(
        &self,
        dir: DirectoryId,
        class: &str,
        name: &str,
        title: &str,
        payload: &[u8],
        compress_it: bool,
    ) -> Result<KeyInfo> {
        self.put_object(dir, class, name, title, payload, compress_it, None)
    }

    /// Writes a new version of an object written before as `previous` in directory
    /// `dir`: the directory lists the new record under the same name and cycle, and the
    /// old record is left unlisted (as ROOT's auto-saves overwrite a tree).
    pub fn rewrite_object(
        &self,
        dir: DirectoryId,
        previous: &KeyInfo,
        payload: &[u8],
        compress_it: bool,
    ) -> Result<KeyInfo> {
        let (class, name, title) = (&previous.class_name, &previous.name, &previous.title);
        let at = Some(previous.seek_key);
        self.put_object(dir, class, name, title, payload, compress_it, at)
    }

    /// Writes an object whose payload is stored already (`stored`, compressed or not, of
    /// an `objlen`-byte object), listed in directory `dir`: a record copied from another
    /// file keeps its bytes.
    pub fn write_stored_object_in(
        &self,
        dir: DirectoryId,
        class: &str,
        name: &str,
        title: &str,
        stored: &[u8],
        objlen: usize,
    ) -> Result<KeyInfo> {
        self.put_stored(dir, [class, name, title], stored, objlen, None)
    }

    /// Where the record of directory `dir` starts (what the keys of its objects point
    /// back to).
    pub fn directory_seek(&self, dir: DirectoryId) -> Result<u64> {
        let state = self.lock();
        state
            .dirs
            .get(dir.0)
            .map(|d| d.seek)
            .ok_or_else(|| Error::InvalidArgument(format!("no directory {} in this file", dir.0)))
    }

    /// Makes the file's StreamerInfo record a streamed `TList` taken from another file,
    /// instead of the class layouts added to this writer: `by_keylen` holds the record
    /// made for each length its key may get (the reference tags in a record count from
    /// its key's start). When the key gets a length none was made for, the writer's own
    /// layouts are written.
    pub fn set_streamer_record(&self, by_keylen: Vec<(usize, Vec<u8>)>) {
        self.lock().streamer_record = by_keylen;
    }

    /// Makes the file's StreamerInfo record one taken from the file being continued
    /// (`by_keylen` as for [`FileWriter::set_streamer_record`]) that describes `classes`
    /// (names and class versions), with the layouts of any other class or class version
    /// this writer is given added at its end, as ROOT adds the layout of each version it
    /// writes.
    pub fn extend_streamer_record(
        &self,
        by_keylen: Vec<(usize, Vec<u8>)>,
        classes: Vec<(String, i32)>,
    ) {
        let mut state = self.lock();
        state.streamer_record = by_keylen;
        state.record_classes = Some(classes);
    }

    /// Lists byte ranges (first and last byte) that no record uses any more, for the
    /// free-segments record, as ROOT lists the records it deletes.
    pub fn add_free(&self, ranges: impl IntoIterator<Item = (u64, u64)>) {
        self.lock()
            .free
            .extend(ranges.into_iter().filter(|(first, last)| first <= last));
    }

    /// The directory at `path` (`"a/b"`, the empty path for the top one), if the file has
    /// it (unlike [`FileWriter::mkdir`], nothing is made).
    pub fn find_directory(&self, path: &str) -> Option<DirectoryId> {
        let state = self.lock();
        let mut at = 0;
        for part in path.split('/').filter(|p| !p.is_empty()) {
            at = state
                .dirs
                .iter()
                .position(|d| d.parent == Some(at) && d.name == part)?;
        }
        Some(DirectoryId(at))
    }

    /// Every key the file lists now, with the path of its directory (`""` for the top
    /// one, `"a/b"`), directories before what they hold.
    pub fn listing(&self) -> Vec<(String, KeyInfo)> {
        let state = self.lock();
        let mut paths: Vec<String> = Vec::with_capacity(state.dirs.len());
        let mut out = Vec::new();
        for d in &state.dirs {
            let path = match d.parent {
                None => String::new(),
                Some(p) if paths[p].is_empty() => d.name.clone(),
                Some(p) => format!("{}/{}", paths[p], d.name),
            };
            out.extend(d.keys.iter().map(|k| (path.clone(), k.clone())));
            paths.push(path);
        }
        out
    }

    /// Deletes object `name` (cycle `cycle`, or the highest) from directory `dir`, as
    /// ROOT's `TDirectory::Delete` does: the directory stops listing it and its record
    /// becomes free space. Directories are not deleted. Returns the deleted key.
    pub fn delete(&self, dir: DirectoryId, name: &str, cycle: Option<u16>) -> Result<KeyInfo> {
        let mut state = self.lock();
        let state = &mut *state;
        let keys = &state
            .dirs
            .get(dir.0)
            .ok_or_else(|| Error::InvalidArgument(format!("no directory {} in this file", dir.0)))?
            .keys;
        let found = find_cycle(keys, name, cycle).map(|i| (i, keys[i].clone()));
        let Some((i, key)) = found else {
            return Err(Error::NotFound {
                file: self.file_name.clone(),
                name: match cycle {
                    Some(c) => format!("{name};{c}"),
                    None => name.to_string(),
                },
            });
        };
        if state.dirs.iter().any(|d| d.seek == key.seek_key) {
            return Err(Error::InvalidArgument(format!(
                "{}: '{name}' is a directory; directories are not deleted",
                self.file_name
            )));
        }
        state.dirs[dir.0].keys.remove(i);
        state
            .free
            .push((key.seek_key, key.seek_key + key.nbytes as u64 - 1));
        Ok(key)
    }

    #[allow(clippy::too_many_arguments)]
    fn put_object(
        &self,
        dir: DirectoryId,
        class: &str,
        name: &str,
        title: &str,
        payload: &[u8],
        compress_it: bool,
        replacing: Option<u64>,
    ) -> Result<KeyInfo> {
        let stored = if compress_it {
            self.stored_payload(payload)
        } else {
            payload.to_vec()
        };
        self.put_stored(dir, [class, name, title], &stored, payload.len(), replacing)
    }

    /// An object's `payload` as this file stores it (compressed with the file's setting
    /// unless too small to gain), for [`FileWriter::write_stored_object_in`]: callers
    /// compress on their own threads.
    pub fn stored_payload(&self, payload: &[u8]) -> Vec<u8> {
        if payload.len() > 256 {
            compress(self.options.compression, payload)
        } else {
            payload.to_vec()
        }
    }

    fn put_stored(
        &self,
        dir: DirectoryId,
        [class, name, title]: [&str; 3],
        stored: &[u8],
        objlen: usize,
        replacing: Option<u64>,
    ) -> Result<KeyInfo> {
        let key = {
            let mut state = self.lock();
            let seek_dir = state.dirs.get(dir.0).map(|d| d.seek).ok_or_else(|| {
                Error::InvalidArgument(format!("no directory {} in this file", dir.0))
            })?;
            let keys = &state.dirs[dir.0].keys;
            let old = replacing.and_then(|at| keys.iter().position(|k| k.seek_key == at));
            let cycle = match old {
                Some(i) => keys[i].cycle,
                None => next_cycle(keys, name),
            };
            let mut key = self.append_key(&mut state, class, name, title, cycle, stored, objlen);
            key.seek_pdir = seek_dir;
            let keys = &mut state.dirs[dir.0].keys;
            match old {
                Some(i) => keys[i] = key.clone(),
                None => keys.push(key.clone()),
            }
            key
        };
        self.write_record(&key, stored)?;
        Ok(key)
    }

    /// The directory at `path` (`"a/b"`), made with its parents where missing, each
    /// titled after its name. The empty path is the top directory.
    pub fn mkdir(&self, path: &str) -> Result<DirectoryId> {
        let mut at = DirectoryId::TOP;
        for part in path.split('/').filter(|p| !p.is_empty()) {
            let made = {
                let mut state = self.lock();
                if let Some(i) = state
                    .dirs
                    .iter()
                    .position(|d| d.parent == Some(at.0) && d.name == part)
                {
                    at = DirectoryId(i);
                    continue;
                }
                if state.dirs[at.0].keys.iter().any(|k| k.name == part) {
                    return Err(Error::InvalidArgument(format!(
                        "{path}: {part} is already an object of this file"
                    )));
                }
                let payload = [0u8; DIRECTORY_LEN];
                let cycle = next_cycle(&state.dirs[at.0].keys, part);
                let mut key = self.append_key(
                    &mut state,
                    DIRECTORY_CLASS,
                    part,
                    part,
                    cycle,
                    &payload,
                    payload.len(),
                );
                key.seek_pdir = state.dirs[at.0].seek;
                state.dirs[at.0].keys.push(key.clone());
                let uuid = if self.options.reproducible {
                    [0; 16]
                } else {
                    new_uuid()
                };
                let dir = DirState::new(part, at.0, key.clone(), self.datime, uuid);
                let record = dir.record(&state.dirs, self.modified());
                state.dirs.push(dir);
                at = DirectoryId(state.dirs.len() - 1);
                (key, record)
            };
            self.write_record(&made.0, &made.1)?;
        }
        Ok(at)
    }

    /// Reserves a record at the end (a big key if it starts past 2 GB).
    #[allow(clippy::too_many_arguments)]
    fn append_key(
        &self,
        state: &mut State,
        class: &str,
        name: &str,
        title: &str,
        cycle: u16,
        stored: &[u8],
        objlen: usize,
    ) -> KeyInfo {
        let seek = state.end;
        let big = seek >= START_BIG_FILE;
        let key = KeyInfo::new(
            class,
            name,
            title,
            cycle,
            seek,
            BEGIN,
            stored.len() as u64,
            objlen as u64,
            big,
            self.datime,
        );
        state.end += key.nbytes as u64;
        key
    }

    /// Writes the key header and payload of a record reserved with `append_key`.
    fn write_record(&self, key: &KeyInfo, payload: &[u8]) -> Result<()> {
        let mut record = Vec::with_capacity(key.nbytes as usize);
        key.encode(&mut record);
        record.extend_from_slice(payload);
        self.write_at(key.seek_key, &record)
    }

    /// Adds class layouts to the file's StreamerInfo record (a class already there is
    /// kept once). Without any, the record describes `ROOT::RNTuple`, the class of RNTuple
    /// anchors, which it also does whenever the file holds an RNTuple.
    pub(crate) fn add_streamer_infos(&self, infos: Vec<StreamerInfo>) {
        let mut state = self.lock();
        for info in infos {
            if !state
                .streamer_infos
                .iter()
                .any(|i| i.class_name == info.class_name && i.class_version == info.class_version)
            {
                state.streamer_infos.push(info);
            }
        }
    }

    /// The date directories are last modified: now, or the fixed date of a reproducible
    /// file.
    fn modified(&self) -> u32 {
        if self.options.reproducible {
            self.datime
        } else {
            datime_now()
        }
    }

    /// The TFile key, its name and title, and the directory record.
    fn top_record(&self, large: bool, dir: &Directory) -> Vec<u8> {
        let title = &self.options.title;
        let named_len = tstring_len(&self.file_name) + tstring_len(title);
        let key = KeyInfo::new(
            "TFile",
            &self.file_name,
            title,
            1,
            BEGIN,
            0,
            (named_len + DIRECTORY_LEN) as u64,
            (named_len + DIRECTORY_LEN) as u64,
            false,
            self.datime,
        );
        let mut b = Vec::new();
        key.encode(&mut b);
        b.put_tstring(&self.file_name);
        b.put_tstring(title);
        dir.encode(large, &mut b);
        b
    }

    /// Writes what a reader needs to open the file with every object written so far: the
    /// StreamerInfo record, each directory's keys list, the directories' records and the
    /// header. Objects written later are not listed until the next checkpoint or `close`.
    pub fn checkpoint(&self) -> Result<()> {
        let mut state = self.lock();
        self.write_trailer(&mut state, false)?;
        Ok(())
    }

    /// Writes the closing records and the header, and sets the file size.
    pub fn close(self) -> Result<CloseSummary> {
        let mut state = self.lock();
        let summary = self.write_trailer(&mut state, true)?;
        self.backend.set_size(summary.file_size)?;
        Ok(summary)
    }

    /// The records after the objects: the StreamerInfo record, the keys lists, the
    /// free-segments record (at close) and the directories and header pointing at them.
    fn write_trailer(&self, state: &mut State, closing: bool) -> Result<CloseSummary> {
        let name = self.file_name.clone();
        let title = self.options.title.clone();
        let mut infos = state.streamer_infos.clone();
        let anchors = state
            .dirs
            .iter()
            .any(|d| d.keys.iter().any(|k| k.class_name == "ROOT::RNTuple"));
        if infos.is_empty() || anchors {
            infos.insert(0, rntuple_anchor_info());
        }
        let keylen = KeyInfo::header_len(
            "TList",
            "StreamerInfo",
            "Doubly linked list",
            state.end >= START_BIG_FILE,
        );
        let taken = state.streamer_record.iter().find(|(k, _)| *k == keylen);
        let list = match (taken, &state.record_classes) {
            (Some((_, record)), Some(classes)) => {
                let added: Vec<StreamerInfo> = infos
                    .iter()
                    .filter(|i| {
                        !classes
                            .iter()
                            .any(|(c, v)| *c == i.class_name && *v == i.class_version)
                    })
                    .cloned()
                    .collect();
                extend_streamer_list(record, &added).ok_or_else(|| {
                    Error::format(
                        &self.file_name,
                        "StreamerInfo record",
                        0,
                        "the record taken from the file cannot be extended",
                    )
                })?
            }
            (Some((_, record)), None) => record.clone(),
            (None, Some(_)) => {
                return Err(Error::format(
                    &self.file_name,
                    "StreamerInfo record",
                    0,
                    format!("the file's record cannot be moved to a key of {keylen} bytes"),
                ))
            }
            (None, None) => streamer_list(&infos),
        };
        let stored = compress(self.options.compression, &list);
        let info = self.append_key(
            state,
            "TList",
            "StreamerInfo",
            "Doubly linked list",
            1,
            &stored,
            list.len(),
        );
        self.write_record(&info, &stored)?;

        // Each subdirectory's keys list and record, then the top directory's list.
        for d in 1..state.dirs.len() {
            let payload = encode_keys_list(&state.dirs[d].keys);
            let (dir_name, seek) = (state.dirs[d].name.clone(), state.dirs[d].seek);
            let mut list_key = self.append_key(
                state,
                DIRECTORY_CLASS,
                &dir_name,
                &dir_name,
                1,
                &payload,
                payload.len(),
            );
            list_key.seek_pdir = seek;
            self.write_record(&list_key, &payload)?;
            state.dirs[d].keys_list = Some((list_key.seek_key, list_key.nbytes));
            let record = state.dirs[d].record(&state.dirs, self.modified());
            self.write_record(&state.dirs[d].key.clone().expect("a subdirectory"), &record)?;
        }
        let keys_payload = encode_keys_list(&state.dirs[0].keys);
        let keys_key = self.append_key(
            state,
            "TFile",
            &name,
            &title,
            1,
            &keys_payload,
            keys_payload.len(),
        );
        self.write_record(&keys_key, &keys_payload)?;

        let (free_key, end) = if closing {
            let (free_key, end) = self.write_free_segments(state, &name, &title)?;
            (Some(free_key), end)
        } else {
            (None, state.end)
        };
        let is_large = end > START_BIG_FILE;

        let named_len = tstring_len(&name) + tstring_len(&title);
        let key_len = KeyInfo::header_len("TFile", &name, &title, false);
        let dir = Directory {
            datime_created: self.created,
            datime_modified: self.modified(),
            nbytes_keys: keys_key.nbytes,
            nbytes_name: (key_len + named_len) as u32,
            seek_dir: BEGIN,
            seek_parent: 0,
            seek_keys: keys_key.seek_key,
            uuid: self.uuid,
        };
        let top = self.top_record(is_large, &dir);
        self.write_at(BEGIN, &top)?;

        let header = FileHeader {
            version: ROOT_VERSION,
            is_large,
            begin: BEGIN,
            end,
            seek_free: free_key.as_ref().map_or(0, |k| k.seek_key),
            nbytes_free: free_key.as_ref().map_or(0, |k| k.nbytes),
            nfree: if free_key.is_some() {
                state.free.len() as u32 + 1
            } else {
                0
            },
            nbytes_name: dir.nbytes_name,
            compression: self.options.compression.root_setting(),
            seek_info: info.seek_key,
            nbytes_info: info.nbytes,
            uuid: self.uuid,
        };
        self.write_at(0, &header.encode())?;
        Ok(CloseSummary {
            file_size: end,
            is_large,
        })
    }

    /// Writes the free-segments record: the ranges freed (in ROOT's `TFree` form, 10 bytes,
    /// or 18 past 2 GB) and last the range from the end of the file on, which holds the
    /// end this record itself moves (sized first, then filled in). Returns its key and the
    /// end of the file.
    fn write_free_segments(
        &self,
        state: &mut State,
        name: &str,
        title: &str,
    ) -> Result<(KeyInfo, u64)> {
        let entry = |out: &mut Vec<u8>, first: u64, last: u64| {
            if last > START_BIG_FILE {
                out.put_u16(1001);
                out.put_u64(first);
                out.put_u64(last);
            } else {
                out.put_u16(1);
                out.put_u32(first as u32);
                out.put_u32(last as u32);
            }
        };
        let mut payload = Vec::new();
        state.free.sort_unstable();
        for &(first, last) in &state.free {
            entry(&mut payload, first, last);
        }
        // The last entry is sized in the 64-bit form; the 32-bit one is padded.
        let last_entry_len = 18u64;
        let free_seek = state.end;
        let free_big = free_seek >= START_BIG_FILE;
        let free_key_len = KeyInfo::header_len("TFile", name, title, free_big) as u64;
        let end = free_seek + free_key_len + payload.len() as u64 + last_entry_len;
        let last = if end > START_BIG_FILE {
            ((end / 1_000_000_000) + 1) * 1_000_000_000
        } else {
            START_BIG_FILE
        };
        let fixed = payload.len() + last_entry_len as usize;
        entry(&mut payload, end, last);
        payload.resize(fixed, 0);
        let key = self.append_key(state, "TFile", name, title, 1, &payload, payload.len());
        self.write_record(&key, &payload)?;
        debug_assert_eq!(state.end, end);
        Ok((key, end))
    }
}

impl Directory {
    /// A placeholder directory (used to size the top record).
    fn empty() -> Self {
        Directory {
            datime_created: 0,
            datime_modified: 0,
            nbytes_keys: 0,
            nbytes_name: 0,
            seek_dir: 0,
            seek_parent: 0,
            seek_keys: 0,
            uuid: [0; 16],
        }
    }
}

/// A version-4 (random) UUID from the time and the process: files need distinct UUIDs
/// (uproot uses them as cache keys), not cryptographic ones.
pub(super) fn new_uuid() -> [u8; 16] {
    use std::hash::{BuildHasher, Hasher};
    let mut bytes = [0u8; 16];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(i as u64);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        h.write_u32(std::process::id());
        chunk.copy_from_slice(&h.finish().to_be_bytes());
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    bytes
}
