//! Opening an existing ROOT file to add, replace and delete objects, as ROOT's `"UPDATE"`
//! mode and `uproot.update` do.
//!
//! New records go after the file's last one, so the file reads as it was until the
//! writer's `checkpoint` or `close` writes the new keys lists and header: an update that
//! dies half-way leaves the file it started from. Each directory keeps listing its
//! objects, and keeps its UUID and creation time (its record is rewritten with a new
//! modification time, as ROOT's `TDirectoryFile::WriteDirHeader` rewrites it); an object
//! written under a name already there gets the next cycle (readers take the highest). The file's StreamerInfo record is kept byte for byte, with the
//! layouts of classes it lacks added at its end. The records the update makes obsolete
//! (old keys lists, StreamerInfo and free-segments records, deleted objects) are listed
//! as free segments, with the ones the file listed already.
//!
//! ```no_run
//! use rootweave::update::open_for_update;
//! let file = open_for_update("results.root")?;
//! file.write_object("TObjString", "note", "", b"...", true)?;
//! file.close()?;
//! # Ok::<(), rootweave::Error>(())
//! ```

use std::path::Path;
use std::sync::Arc;

use crate::compress::Compression;
use crate::container::directory::{Directory, DIRECTORY_LEN};
use crate::container::{
    AppendedDirectory, DirectoryIdentity, FileWriter, KeyInfo, RootFile, WriterOptions,
};
use crate::error::{Error, Result};
use crate::io::DiskFile;
use crate::streamer::bytes::BeReader;
use crate::streamer::StreamerSet;

/// The most directories an update follows (a bound on a corrupt file's directory graph).
const MAX_DIRECTORIES: usize = 100_000;

/// Opens the ROOT file at `path` for adding objects to it (see the module's description):
/// the returned writer continues the file, with its directories ([`FileWriter::mkdir`]
/// finds them by name), its compression setting and its identity (UUID, creation time).
/// An error names the file and what cannot be continued: a file that is not ROOT's, is
/// truncated, whose records do not start at byte 100, or whose StreamerInfo record
/// cannot be read.
pub fn open_for_update(path: impl AsRef<Path>) -> Result<FileWriter> {
    let path = path.as_ref();
    let file = RootFile::open(path)?;
    let name = file.name().to_string();
    let header = file.header().clone();
    if header.begin != crate::container::header::BEGIN {
        return Err(Error::format(
            &name,
            "file header",
            8,
            format!(
                "the records start at byte {}; files whose records start at byte 100 (as ROOT \
                 writes them) can be updated",
                header.begin
            ),
        ));
    }
    let (top_key, file_name, title, top_dir) = top_record(&file)?;
    if FileWriter::top_record_len(&file_name, &title) > top_key.nbytes as u64 {
        return Err(Error::format(
            &name,
            "top record",
            header.begin,
            format!(
                "the {} record of {} bytes has no room for a TFile record of the same names",
                top_key.class_name, top_key.nbytes
            ),
        ));
    }
    let mut free = free_segments(&file)?;
    if top_dir.seek_keys > 0 {
        free.push(record_range(top_dir.seek_keys, top_dir.nbytes_keys));
    }
    let dirs = directories(&file, &mut free)?;

    let streamers = match file.streamer_record()? {
        Some((key, record)) => {
            let by_keylen = crate::container::streamer_records(&name, &key, &record)
                .map_err(|why| Error::format(&name, "StreamerInfo record", key.seek_key, why))?;
            let (object, base) = key.record_label("StreamerInfo record");
            let (set, _) =
                StreamerSet::parse_traced(&record, base, &name, &object, key.keylen as u32)?;
            let classes: Vec<(String, i32)> = set
                .all()
                .iter()
                .map(|i| (i.class_name.clone(), i.class_version))
                .collect();
            free.push(record_range(key.seek_key, key.nbytes));
            Some((by_keylen, classes))
        }
        None => None,
    };
    if header.seek_free > header.begin && header.nbytes_free > 0 {
        free.push(record_range(header.seek_free, header.nbytes_free));
    }

    let compression = Compression::from_root_setting(header.compression)
        .unwrap_or(Compression::ROOT_FILE_DEFAULT);
    let backend = Arc::new(DiskFile::open_for_update(path)?);
    let writer = FileWriter::append(
        backend,
        &file_name,
        WriterOptions::default()
            .with_compression(compression)
            .with_title(title),
        header.end,
        dirs,
    )?
    .with_identity(header.uuid, top_dir.datime_created);
    if let Some((by_keylen, classes)) = streamers {
        writer.extend_streamer_record(by_keylen, classes);
    }
    writer.add_free(free);
    Ok(writer)
}

/// The byte range (first, last) of a record of `nbytes` at `seek`.
fn record_range(seek: u64, nbytes: u32) -> (u64, u64) {
    (seek, (seek + nbytes as u64).saturating_sub(1))
}

/// The file's top record: its key, the file name and title stored in it, and the top
/// directory.
fn top_record(file: &RootFile) -> Result<(KeyInfo, String, String, Directory)> {
    let begin = file.header().begin;
    let len = file.header().nbytes_name as u64 + DIRECTORY_LEN as u64;
    let bytes = file.read_at(
        begin,
        len.min(file.size().saturating_sub(begin)),
        "top record",
    )?;
    let mut r = BeReader::new(&bytes, begin, file.name(), "top record");
    let key = KeyInfo::decode(&mut r)?;
    let file_name = r.tstring()?;
    let title = r.tstring()?;
    let skip = (file.header().nbytes_name as usize).saturating_sub(r.position());
    r.take(skip)?;
    let dir = Directory::decode(&mut r)?;
    Ok((key, file_name, title, dir))
}

/// The free segments the file lists, but the last (from its end on).
fn free_segments(file: &RootFile) -> Result<Vec<(u64, u64)>> {
    let header = file.header();
    if header.seek_free <= header.begin || header.nbytes_free == 0 {
        return Ok(Vec::new());
    }
    let bytes = file.read_at(
        header.seek_free,
        header.nbytes_free as u64,
        "free-segments record",
    )?;
    let mut r = BeReader::new(
        &bytes,
        header.seek_free,
        file.name(),
        "free-segments record",
    );
    let key = KeyInfo::decode(&mut r)?;
    let skip = (key.keylen as usize).saturating_sub(r.position());
    r.take(skip)?;
    let mut free = Vec::new();
    while r.remaining() >= 10 {
        let version = r.u16()?;
        let (first, last) = if version > 1000 {
            (r.i64()? as u64, r.i64()? as u64)
        } else {
            (r.u32()? as u64, r.u32()? as u64)
        };
        if last >= header.end || first > last {
            break;
        }
        free.push((first, last));
    }
    Ok(free)
}

/// The file's directories, the top one first and parents before their subdirectories,
/// each with the keys it lists and its identity (UUID, creation time); the ranges of their keys lists (rewritten at close) are
/// added to `free`.
fn directories(file: &RootFile, free: &mut Vec<(u64, u64)>) -> Result<Vec<AppendedDirectory>> {
    let mut dirs = vec![AppendedDirectory {
        key: None,
        parent: 0,
        keys: file.keys().to_vec(),
        identity: None,
    }];
    let mut seen = std::collections::HashSet::from([file.header().begin]);
    let mut d = 0;
    while d < dirs.len() {
        let subdirs: Vec<KeyInfo> = dirs[d]
            .keys
            .iter()
            .filter(|k| k.class_name.starts_with("TDirectory"))
            .cloned()
            .collect();
        for key in subdirs {
            if !seen.insert(key.seek_key) {
                continue;
            }
            if dirs.len() >= MAX_DIRECTORIES {
                return Err(Error::format(
                    file.name(),
                    format!("directory '{}'", key.name),
                    key.seek_key,
                    format!("more than {MAX_DIRECTORIES} directories"),
                ));
            }
            let object = format!("directory '{}'", key.name);
            let record = file.read_object(&key)?;
            let dir = Directory::decode(&mut BeReader::new(
                &record,
                key.payload_offset(),
                file.name(),
                &object,
            ))?;
            if dir.seek_keys > 0 {
                free.push(record_range(dir.seek_keys, dir.nbytes_keys));
            }
            let keys = file.directory_keys(&key)?;
            // ROOT rewrites a directory's record keeping its UUID and creation time.
            dirs.push(AppendedDirectory {
                key: Some(key),
                parent: d,
                keys,
                identity: Some(DirectoryIdentity {
                    uuid: dir.uuid,
                    created: dir.datime_created,
                }),
            });
        }
        d += 1;
    }
    Ok(dirs)
}
