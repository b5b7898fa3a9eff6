//! Recovering a file whose writer was killed, or that was cut short: the records are
//! found by walking their key headers (the keys lists and header may be missing or stale),
//! every RNTuple gets the clusters whose pages are whole (those after its last checkpoint
//! too, found by their cluster records), and the file gets a new footer and anchor per
//! RNTuple, keys list and header. The input is never changed: the result is written under
//! a temporary name beside the output and renamed when complete.

mod ntuple;
mod scan;

use std::path::Path;
use std::sync::Arc;

use crate::compress::{decompress, Compression};
use crate::container::{FileWriter, KeyInfo, WriterOptions};
use crate::error::{Error, Result};
use crate::io::{same_file, temporary_path, DiskFile, ReadAt, WriteAt};
use crate::rntuple::format::{Anchor, ClusterGroupInfo, ANCHOR_VERSION};
use crate::rntuple::{serialize_footer, serialize_page_list, write_envelope};

use ntuple::FoundNtuple;
use scan::{walk, BEGIN};

/// What [`recover`] found and kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecoverReport {
    /// Every RNTuple found, with what was kept of it.
    pub ntuples: Vec<RecoveredNtuple>,
    /// Other objects of the top directory kept as they were last written (name;cycle and
    /// class).
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
    /// Its name.
    pub name: String,
    /// Entries kept (every entry of its clusters kept).
    pub entries: u64,
    /// Clusters kept.
    pub clusters: u64,
    /// Clusters found but left out, with why (a missing entry range before them, a page
    /// that is not whole).
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
        .and_then(|target| recover_into(&source, Arc::new(target), &base));
    let report = match result {
        Ok(report) => report,
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            return Err(e);
        }
    };
    drop(source);
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
    source: &dyn ReadAt,
    target: Arc<dyn WriteAt>,
    base: &str,
) -> Result<RecoverReport> {
    let size = source.size()?;
    let name = source.name();
    let walk = walk(source, size)?;
    let found = ntuple::find(source, size, &walk.keys)?;
    let objects = listed_objects(&walk.keys);
    if found.is_empty() && objects.is_empty() {
        return Err(Error::format(
            &name,
            "file",
            BEGIN,
            "no RNTuple header and no object was found: nothing to recover",
        ));
    }
    let (file_name, title) = top_record_names(&walk.keys, base, &name)?;
    copy_prefix(source, walk.end, &*target)?;
    let file = FileWriter::append(
        target,
        &file_name,
        WriterOptions::default()
            .with_compression(Compression::ROOT_RNTUPLE_DEFAULT)
            .with_title(title),
        walk.end,
        objects.iter().map(|k| (*k).clone()).collect(),
    )?;
    if !objects.is_empty() {
        if let Some(record) = streamer_record(source, &walk.keys)? {
            file.set_streamer_record(vec![record]);
        }
    }
    let mut report = RecoverReport {
        objects: objects
            .iter()
            .map(|k| format!("{};{} ({})", k.name, k.cycle, k.class_name))
            .collect(),
        gaps: walk.gaps.clone(),
        cut_bytes: size - walk.end,
        ..RecoverReport::default()
    };
    for ntuple in &found {
        write_anchor(&file, ntuple)?;
        report.ntuples.push(RecoveredNtuple {
            name: ntuple.name.clone(),
            entries: ntuple.clusters.iter().map(|c| c.n_entries).sum(),
            clusters: ntuple.clusters.len() as u64,
            dropped: ntuple.dropped.clone(),
        });
    }
    report.file_size = file.close()?.file_size;
    Ok(report)
}

/// Writes one page list of the kept clusters, a footer and a new anchor.
fn write_anchor(file: &FileWriter, ntuple: &FoundNtuple) -> Result<()> {
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
    let footer = serialize_footer(ntuple.header_checksum, &groups);
    let anchor = Anchor {
        version: ANCHOR_VERSION,
        header: ntuple.header,
        footer: write_envelope(file, &footer, compression)?,
        max_key_size: 1 << 30,
    };
    file.write_object("ROOT::RNTuple", &ntuple.name, "", &anchor.to_bytes(), false)?;
    Ok(())
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

/// The objects of the top directory to list again: the last record of each name and
/// cycle, but for the records that the recovered file gets anew (RNTuple anchors, keys
/// lists, the StreamerInfo and free-segments records) and for blobs and baskets.
fn listed_objects(keys: &[KeyInfo]) -> Vec<&KeyInfo> {
    const NOT_LISTED: [&str; 7] = [
        "RBlob",
        "TBasket",
        "ROOT::RNTuple",
        "ROOT::Experimental::RNTuple",
        "TFile",
        "TDirectory",
        "TDirectoryFile",
    ];
    let mut latest: Vec<&KeyInfo> = Vec::new();
    for key in keys {
        let skip = NOT_LISTED.contains(&key.class_name.as_str())
            || (key.class_name == "TList" && key.name == "StreamerInfo")
            || key.seek_pdir != BEGIN;
        if skip {
            continue;
        }
        match latest
            .iter_mut()
            .find(|k| k.name == key.name && k.cycle == key.cycle)
        {
            Some(k) => *k = key,
            None => latest.push(key),
        }
    }
    latest
}

/// The last StreamerInfo record of the file, uncompressed, with its key's length (the
/// record's references count from the key's start).
fn streamer_record(source: &dyn ReadAt, keys: &[KeyInfo]) -> Result<Option<(usize, Vec<u8>)>> {
    let Some(key) = keys
        .iter()
        .rev()
        .find(|k| k.class_name == "TList" && k.name == "StreamerInfo")
    else {
        return Ok(None);
    };
    let stored_len = (key.nbytes - key.keylen as u32) as usize;
    let mut stored = vec![0u8; stored_len];
    source.read_exact_at(&mut stored, key.seek_key + key.keylen as u64)?;
    let record = if stored_len == key.objlen as usize {
        stored
    } else {
        match decompress(&stored, key.objlen as usize) {
            Ok(record) => record,
            Err(_) => return Ok(None),
        }
    };
    Ok(Some((key.keylen as usize, record)))
}

/// The name and title of the file's top record, which keep its length: read from the
/// record if it is whole, else made to fit the room before the first record (`base`, cut
/// or padded). `file` names the input in errors.
fn top_record_names(keys: &[KeyInfo], base: &str, file: &str) -> Result<(String, String)> {
    if let Some(top) = keys
        .first()
        .filter(|k| k.seek_key == BEGIN && k.class_name == "TFile")
    {
        return Ok((top.name.clone(), top.title.clone()));
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
