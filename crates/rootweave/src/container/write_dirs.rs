//! The directories of a file being written: each one's keys and where its record and keys
//! list are, as ROOT lays out a `TDirectory` (a key of class `TDirectory` in its parent,
//! whose payload is the directory record, and a keys-list record of its own).

use super::directory::Directory;
use super::header::BEGIN;
use super::key::KeyInfo;

/// The class of subdirectory keys and of their keys lists.
pub(super) const DIRECTORY_CLASS: &str = "TDirectory";

/// A directory of a file being written, as [`super::FileWriter::mkdir`] returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectoryId(pub(super) usize);

impl DirectoryId {
    /// The file's top directory.
    pub const TOP: DirectoryId = DirectoryId(0);

    /// Directory number `index` of the list given to [`super::FileWriter::append`].
    pub fn appended(index: usize) -> Self {
        DirectoryId(index)
    }
}

/// One directory: its keys and its own records.
#[derive(Debug)]
pub(super) struct DirState {
    pub name: String,
    /// The parent's index (none for the top directory).
    pub parent: Option<usize>,
    /// Where the directory's record starts (the top directory's is the file's top record).
    pub seek: u64,
    /// The directory's key in its parent (none for the top directory).
    pub key: Option<KeyInfo>,
    /// The objects it lists.
    pub keys: Vec<KeyInfo>,
    /// Its keys list's offset and size, once written.
    pub keys_list: Option<(u64, u32)>,
    pub datime: u32,
    pub uuid: [u8; 16],
}

impl DirState {
    /// The top directory (its record is written by the file).
    pub fn top() -> Self {
        DirState {
            name: String::new(),
            parent: None,
            seek: BEGIN,
            key: None,
            keys: Vec::new(),
            keys_list: None,
            datime: 0,
            uuid: [0; 16],
        }
    }

    /// A subdirectory of `parent` whose record is behind `key`.
    pub fn new(name: &str, parent: usize, key: KeyInfo, datime: u32, uuid: [u8; 16]) -> Self {
        DirState {
            name: name.to_string(),
            parent: Some(parent),
            seek: key.seek_key,
            key: Some(key),
            keys: Vec::new(),
            keys_list: None,
            datime,
            uuid,
        }
    }

    /// The directory record (the payload of its key), last modified at `modified` (a
    /// `TDatime`); `dirs` holds its parent.
    pub fn record(&self, dirs: &[DirState], modified: u32) -> Vec<u8> {
        let (seek_keys, nbytes_keys) = self.keys_list.unwrap_or((0, 0));
        let seek_parent = self.parent.map_or(0, |p| dirs[p].seek);
        let dir = Directory {
            datime_created: self.datime,
            datime_modified: modified,
            nbytes_keys,
            nbytes_name: self.key.as_ref().map_or(0, |k| k.keylen as u32),
            seek_dir: self.seek,
            seek_parent,
            seek_keys,
            uuid: self.uuid,
        };
        let large = [self.seek, seek_parent, seek_keys]
            .iter()
            .any(|&s| s > i32::MAX as u64);
        let mut out = Vec::new();
        dir.encode(large, &mut out);
        out
    }
}

/// The cycle a new object `name` gets among `keys`: one more than the highest so far.
pub(super) fn next_cycle(keys: &[KeyInfo], name: &str) -> u16 {
    keys.iter()
        .filter(|k| k.name == name)
        .map(|k| k.cycle)
        .max()
        .unwrap_or(0)
        + 1
}
