//! Recovering a file whose writer was killed, or that was cut short: the records are
//! found by walking their key headers (the keys lists and header may be missing or stale),
//! every RNTuple gets the clusters whose pages are whole (those after its last checkpoint
//! too, found by their cluster records), and the file gets a new footer and anchor per
//! RNTuple, keys list and header. The input is never changed: the result is written under
//! a temporary name beside the output and renamed when complete.

mod ntuple;
mod scan;
mod tree;

use std::path::Path;
use std::sync::Arc;

use crate::compress::{decompress, Compression};
use crate::container::directory::Directory;
use crate::container::{
    AppendedDirectory, DirectoryId, DirectoryIdentity, FileWriter, KeyInfo, WriterOptions,
};
use crate::error::{Error, Result};
use crate::io::{same_file, temporary_path, DiskFile, ReadAt, WriteAt};
use crate::rntuple::format::{Anchor, ClusterGroupInfo, ANCHOR_SIZE, ANCHOR_VERSION};
use crate::rntuple::{
    serialize_footer, serialize_footer_with_extension, serialize_page_list, write_envelope,
};
use crate::streamer::bytes::BeReader;

use ntuple::FoundNtuple;
use scan::{walk, BEGIN};

/// What [`recover`] found and kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecoverReport {
    /// Every RNTuple found, with what was kept of it.
    pub ntuples: Vec<RecoveredNtuple>,
    /// Every TTree found, with what was kept of it.
    pub trees: Vec<RecoveredTree>,
    /// The other objects, kept as they were last written (`dir/name;cycle (class)`); the
    /// trees and RNTuples are reported on their own.
    pub objects: Vec<String>,
    /// Byte ranges of the input that hold no whole record (never written, or cut).
    pub gaps: Vec<(u64, u64)>,
    /// Bytes of the input after its last whole record (left out of the output).
    pub cut_bytes: u64,
    /// Size of the output.
    pub file_size: u64,
}

/// One RNTuple of a recovered file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecoveredNtuple {
    /// Its path in the file: its name, after its directory's path (`dir/name`) when it
    /// is in a subdirectory.
    pub name: String,
    /// Entries kept (every entry of its clusters kept).
    pub entries: u64,
    /// Clusters kept.
    pub clusters: u64,
    /// Clusters found but left out, with why (a missing entry range before them, a page
    /// that is not whole).
    pub dropped: Vec<String>,
}

/// One TTree of a recovered file: its last save, extended by the baskets written after it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecoveredTree {
    /// Its path in the file (`dir/name`).
    pub path: String,
    /// Entries at its last save.
    pub saved_entries: u64,
    /// Entries kept (those of the last save and of the whole baskets after it that every
    /// branch reaches).
    pub entries: u64,
    /// Baskets found but left out, with why.
    pub dropped: Vec<String>,
}

/// Recovers `input` into `output` (which may be the input itself: it is then replaced
/// once the recovered file is complete). Errors name the file and what could not be read.
pub fn recover(input: &Path, output: &Path) -> Result<RecoverReport> {
    let source = DiskFile::open(input)?;
    let temporary = temporary_path(output);
    let base = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let result = DiskFile::create(&temporary)
        .and_then(|target| recover_into(Arc::new(source), Arc::new(target), &base));
    let report = match result {
        Ok(report) => report,
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            return Err(e);
        }
    };
    if same_file(input, output) {
        std::fs::remove_file(output).map_err(|source| Error::Io {
            path: output.to_path_buf(),
            source,
        })?;
    }
    std::fs::rename(&temporary, output).map_err(|source| Error::Io {
        path: output.to_path_buf(),
        source,
    })?;
    Ok(report)
}

/// Recovers the file `source` into the empty `target`; `base` is the file name the
/// recovered top record takes when the input's own cannot be read.
pub fn recover_into(
    source: Arc<dyn ReadAt>,
    target: Arc<dyn WriteAt>,
    base: &str,
) -> Result<RecoverReport> {
    let size = source.size()?;
    let name = source.name();
    check_begin(&*source, size, &name)?;
    let walk = walk(&*source, size)?;
    let anchors = anchor_keys(&*source, &walk.keys)?;
    let anchored = anchors
        .iter()
        .map(|(_, anchor)| (anchor.header.offset, anchor.footer))
        .collect();
    let found = ntuple::find(&*source, size, &walk.keys, &anchored)?;
    let top = top_record(&walk.keys);
    let dirs = directories(&*source, &walk.keys, top);
    if top.is_none() && found.is_empty() && dirs.iter().all(|d| d.keys.is_empty()) {
        return Err(Error::format(
            &name,
            "file",
            BEGIN,
            "no RNTuple header and no object was found: nothing to recover",
        ));
    }
    let info = walk
        .keys
        .iter()
        .rev()
        .find(|k| k.class_name == "TList" && k.name == "StreamerInfo");
    let trees = tree::find(source.clone(), &walk.keys, info)?;
    let (file_name, title) = top_record_names(&walk.keys, base, &name)?;
    copy_prefix(&*source, walk.end, &*target)?;
    if let Some(top) = top {
        // A top record shorter than the input's (another TFile class named in it) leaves
        // the rest of the old one: marked as a free gap (a negative length), as ROOT marks
        // a deleted record, so that a walk of the records steps over it.
        // (`top_record_names` keeps the input's names only when they fit its record.)
        let ours = FileWriter::top_record_len(&file_name, &title);
        let gap = i32::try_from(top.nbytes as u64 - ours).unwrap_or(0);
        if gap >= 4 {
            target.write_all_at(&(-gap).to_be_bytes(), BEGIN + ours)?;
        }
    }
    let paths = dir_paths(&dirs);
    let dir_seeks: Vec<u64> = dirs
        .iter()
        .map(|d| d.key.as_ref().map_or(BEGIN, |k| k.seek_key))
        .collect();
    let mut report = RecoverReport {
        objects: dirs
            .iter()
            .zip(&paths)
            .flat_map(|(d, path)| d.keys.iter().map(move |k| (path, k)))
            .filter(|(_, k)| !trees.iter().any(|t| t.key.seek_key == k.seek_key))
            .map(|(path, k)| format!("{path}{};{} ({})", k.name, k.cycle, k.class_name))
            .collect(),
        gaps: walk.gaps.clone(),
        cut_bytes: size - walk.end,
        ..RecoverReport::default()
    };
    let has_objects = dirs.iter().any(|d| !d.keys.is_empty());
    let file = FileWriter::append(
        target,
        &file_name,
        WriterOptions::default()
            .with_compression(Compression::ROOT_RNTUPLE_DEFAULT)
            .with_title(title),
        walk.end,
        dirs.clone(),
    )?;
    if has_objects {
        if let Some(record) = streamer_record(&*source, info)? {
            file.set_streamer_record(vec![record]);
        }
    }
    for t in &trees {
        let d = dirs
            .iter()
            .position(|d| d.keys.iter().any(|k| k.seek_key == t.key.seek_key));
        let Some(d) = d else { continue };
        if t.extended() {
            let keylen = file.next_key_len(&t.key.class_name, &t.key.name, &t.key.title);
            let object = t.object(keylen as u32)?;
            file.rewrite_object(DirectoryId::appended(d), &t.key, &object, true)?;
        }
        report.trees.push(RecoveredTree {
            path: format!("{}{}", paths[d], t.key.name),
            saved_entries: t.saved_entries,
            entries: t.entries,
            dropped: t.dropped.clone(),
        });
    }
    for ntuple in &found {
        // Back where its last anchor was: its name in its directory (the top one when no
        // anchor was written, or its directory is not among those listed again).
        let anchor = anchors
            .iter()
            .rev()
            .find(|(_, a)| a.header.offset == ntuple.header.offset);
        let (d, name) = match anchor {
            Some((key, _)) => match dir_seeks.iter().position(|&s| s == key.seek_pdir) {
                Some(d) => (d, key.name.clone()),
                None => (0, ntuple.name.clone()),
            },
            None => (0, ntuple.name.clone()),
        };
        write_anchor(&file, DirectoryId::appended(d), &name, ntuple)?;
        report.ntuples.push(RecoveredNtuple {
            name: format!("{}{name}", paths[d]),
            entries: ntuple.clusters.iter().map(|c| c.n_entries).sum(),
            clusters: ntuple.clusters.len() as u64,
            dropped: ntuple.dropped.clone(),
        });
    }
    report.file_size = file.close()?.file_size;
    Ok(report)
}

/// Writes one page list of the kept clusters, a footer and a new anchor, listed in
/// directory `dir` as `name`.
fn write_anchor(
    file: &FileWriter,
    dir: DirectoryId,
    name: &str,
    ntuple: &FoundNtuple,
) -> Result<()> {
    let compression = Compression::ROOT_RNTUPLE_DEFAULT;
    let mut groups = Vec::new();
    if let (Some(first), Some(last)) = (ntuple.clusters.first(), ntuple.clusters.last()) {
        let list = serialize_page_list(ntuple.header_checksum, &ntuple.clusters);
        groups.push(ClusterGroupInfo {
            min_entry: first.first_entry,
            entry_span: last.first_entry + last.n_entries - first.first_entry,
            n_clusters: ntuple.clusters.len() as u32,
            page_list: write_envelope(file, &list, compression)?,
        });
    }
    let footer = match &ntuple.extension {
        Some(extension) => {
            serialize_footer_with_extension(ntuple.header_checksum, extension, &groups)
        }
        None => serialize_footer(ntuple.header_checksum, &groups),
    };
    let anchor = Anchor {
        version: ANCHOR_VERSION,
        header: ntuple.header,
        footer: write_envelope(file, &footer, compression)?,
        max_key_size: 1 << 30,
    };
    file.write_object_in(dir, "ROOT::RNTuple", name, "", &anchor.to_bytes(), false)?;
    Ok(())
}

/// The RNTuple anchors among the records (whole, uncompressed, as every writer leaves
/// them), in file order, decoded; anchors that do not decode are left out.
fn anchor_keys(source: &dyn ReadAt, keys: &[KeyInfo]) -> Result<Vec<(KeyInfo, Anchor)>> {
    let name = source.name();
    let mut anchors = Vec::new();
    for key in keys.iter().filter(|k| {
        matches!(
            k.class_name.as_str(),
            "ROOT::RNTuple" | "ROOT::Experimental::RNTuple"
        )
    }) {
        let len = key.payload_len();
        if key.is_compressed() || len < ANCHOR_SIZE as u64 || len > 4096 {
            continue;
        }
        let mut bytes = vec![0u8; len as usize];
        source.read_exact_at(&mut bytes, key.payload_offset())?;
        if let Ok(anchor) = Anchor::decode(&bytes, &name, &key.name, key.payload_offset()) {
            anchors.push((key.clone(), anchor));
        }
    }
    Ok(anchors)
}

/// Copies the first `len` bytes of `source` to `target`, a mebibyte at a time.
fn copy_prefix(source: &dyn ReadAt, len: u64, target: &dyn WriteAt) -> Result<()> {
    let mut buf = vec![0u8; (1 << 20).min(len) as usize];
    let mut at = 0;
    while at < len {
        let n = (buf.len() as u64).min(len - at) as usize;
        source.read_exact_at(&mut buf[..n], at)?;
        target.write_all_at(&buf[..n], at)?;
        at += n as u64;
    }
    Ok(())
}

/// The directories to list again, the top one first and parents before their
/// subdirectories, each with the last record of each of its objects' name and cycle; not
/// the records the recovered file gets anew (RNTuple anchors, keys lists, the
/// StreamerInfo and free-segments records), nor blobs and baskets. A subdirectory is a
/// directory key that other records name as theirs. The top directory's keys lists and
/// free-segments records are named as the `top` record (with its class, or with the class
/// of the file object: `ND::TND280Output`). Each subdirectory keeps the UUID and creation
/// time its record in `source` holds.
fn directories(
    source: &dyn ReadAt,
    keys: &[KeyInfo],
    top: Option<&KeyInfo>,
) -> Vec<AppendedDirectory> {
    const NOT_LISTED: [&str; 7] = [
        "RBlob",
        "TBasket",
        "ROOT::RNTuple",
        "ROOT::Experimental::RNTuple",
        "TFile",
        "TDirectory",
        "TDirectoryFile",
    ];
    let is_dir = |k: &KeyInfo| {
        matches!(k.class_name.as_str(), "TDirectory" | "TDirectoryFile")
            && keys
                .iter()
                .any(|o| o.seek_pdir == k.seek_key && o.seek_key != k.seek_key)
    };
    let mut dirs = vec![AppendedDirectory::default()];
    let mut seeks = vec![BEGIN];
    let mut d = 0;
    while d < dirs.len() {
        let seek = seeks[d];
        let mut listed: Vec<KeyInfo> = Vec::new();
        for key in keys
            .iter()
            .filter(|k| k.seek_pdir == seek && k.seek_key != seek)
        {
            if is_dir(key) {
                if !seeks.contains(&key.seek_key) {
                    listed.push(key.clone());
                    seeks.push(key.seek_key);
                    dirs.push(AppendedDirectory {
                        key: Some(key.clone()),
                        parent: d,
                        keys: Vec::new(),
                        identity: identity_of(source, key),
                    });
                }
                continue;
            }
            let of_the_file = d == 0
                && top.is_some_and(|t| {
                    t.class_name == key.class_name || (t.name == key.name && t.title == key.title)
                });
            // ROOT's RNTuple file writer gives its keys lists and free-segments records
            // no class.
            let skip = NOT_LISTED.contains(&key.class_name.as_str())
                || of_the_file
                || key.class_name.is_empty()
                || (key.class_name == "TList" && key.name == "StreamerInfo");
            if skip {
                continue;
            }
            match listed
                .iter_mut()
                .find(|k| k.name == key.name && k.cycle == key.cycle)
            {
                Some(k) => *k = key.clone(),
                None => listed.push(key.clone()),
            }
        }
        dirs[d].keys = listed;
        d += 1;
    }
    dirs
}

/// The UUID and creation time the record behind directory key `key` holds, kept for the
/// record the recovered file gets; `None` if it cannot be read.
fn identity_of(source: &dyn ReadAt, key: &KeyInfo) -> Option<DirectoryIdentity> {
    let len = key.payload_len();
    if key.is_compressed() || len > 4096 {
        return None;
    }
    let mut bytes = vec![0u8; len as usize];
    source
        .read_exact_at(&mut bytes, key.payload_offset())
        .ok()?;
    let name = source.name();
    let mut r = BeReader::new(&bytes, key.payload_offset(), &name, "directory");
    let dir = Directory::decode(&mut r).ok()?;
    Some(DirectoryIdentity {
        uuid: dir.uuid,
        created: dir.datime_created,
    })
}

/// Each directory's path prefix (`""` for the top one, `"dir/"` below it).
fn dir_paths(dirs: &[AppendedDirectory]) -> Vec<String> {
    let mut paths: Vec<String> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let path = match &dir.key {
            None => String::new(),
            Some(key) => format!("{}{}/", paths[dir.parent], key.name),
        };
        paths.push(path);
    }
    paths
}

/// The StreamerInfo record behind `key`, uncompressed, with its key's length (the
/// record's references count from the key's start).
fn streamer_record(source: &dyn ReadAt, key: Option<&KeyInfo>) -> Result<Option<(usize, Vec<u8>)>> {
    let Some(key) = key else {
        return Ok(None);
    };
    let stored_len = (key.nbytes - key.keylen as u32) as usize;
    let mut stored = vec![0u8; stored_len];
    source.read_exact_at(&mut stored, key.seek_key + key.keylen as u64)?;
    let record = if stored_len == key.objlen as usize {
        stored
    } else if key.objlen as usize > stored_len.saturating_mul(1100).max(1 << 20) {
        // More than any ROOT codec expands: a corrupt length, not allocated.
        return Ok(None);
    } else {
        match decompress(&stored, key.objlen as usize) {
            Ok(record) => record,
            Err(_) => return Ok(None),
        }
    };
    Ok(Some((key.keylen as usize, record)))
}

/// Checks that the input's records start where ROOT's do (byte 100): files from other
/// writers (Geant4's, byte 64) have a header too short for the one a recovered file gets.
/// A header never written (all zeros) is not checked.
fn check_begin(source: &dyn ReadAt, size: u64, file: &str) -> Result<()> {
    let mut head = [0u8; 12];
    if size < head.len() as u64 {
        return Ok(());
    }
    source.read_exact_at(&mut head, 0)?;
    let begin = u32::from_be_bytes([head[8], head[9], head[10], head[11]]) as u64;
    if &head[..4] == b"root" && begin != BEGIN {
        return Err(Error::format(
            file,
            "file header",
            8,
            format!(
                "the records start at byte {begin}; recover rebuilds files whose records \
                 start at byte {BEGIN}, as ROOT writes them"
            ),
        ));
    }
    Ok(())
}

/// The input's whole top record (the file's key and top directory): the first record, at
/// byte 100, of a TFile class (`TFile`, or one of the classes ROOT opens files through,
/// such as CMSSW's `TStorageFactoryFile`).
fn top_record(keys: &[KeyInfo]) -> Option<&KeyInfo> {
    keys.first()
        .filter(|k| k.seek_key == BEGIN && k.class_name.ends_with("File"))
}

/// The name and title of the file's top record, which must fit its room: read from the
/// record if it is whole (written as a `TFile` record, no longer than it), else made to
/// fill the room before the first record (`base`, cut or padded). `file` names the input
/// in errors.
fn top_record_names(keys: &[KeyInfo], base: &str, file: &str) -> Result<(String, String)> {
    if let Some(top) = top_record(keys) {
        if FileWriter::top_record_len(&top.name, &top.title) <= top.nbytes as u64 {
            return Ok((top.name.clone(), top.title.clone()));
        }
        return Err(Error::format(
            file,
            "top record",
            BEGIN,
            format!(
                "the {} record of {} bytes has no room for a TFile record of the same names",
                top.class_name, top.nbytes
            ),
        ));
    }
    let room = keys.first().map_or(0, |k| k.seek_key).saturating_sub(BEGIN);
    // A name of n characters and an empty title take a record of 2n + fixed bytes.
    let fixed = FileWriter::top_record_len("", "");
    if room < fixed || (room - fixed) % 2 != 0 || (room - fixed) / 2 > 255 {
        return Err(Error::format(
            file,
            "top record",
            BEGIN,
            format!("the {room} bytes before the first record are not a top record"),
        ));
    }
    let n = ((room - fixed) / 2) as usize;
    let mut name: String = base.chars().filter(char::is_ascii).take(n).collect();
    while name.len() < n {
        name.push('_');
    }
    Ok((name, String::new()))
}
