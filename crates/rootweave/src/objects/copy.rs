//! An object of one file written into another as it is: the key's payload (its reference
//! tags moved when the new key's header has another length) and the layouts of every class
//! it is made of, taken from the source file's StreamerInfo (so that readers without those
//! classes, and ROOT for other class versions, can decode it).

use super::traced::{read_traced, rewrite};
use crate::container::{DirectoryId, FileWriter, KeyInfo, RootFile};
use crate::error::{Error, Result};
use crate::streamer::{is_tree_class, ElementClass, StreamerInfo, StreamerSet};

/// The most class layouts one object may need (a guard against layouts naming each other
/// without end).
const MAX_LAYOUTS: usize = 10_000;

/// Writes the object behind `key` of `source` into directory `dir` of `dest` as `name`
/// (its class and title kept), with the layouts of its classes.
pub fn copy_object(
    source: &RootFile,
    streamers: &StreamerSet,
    key: &KeyInfo,
    dest: &FileWriter,
    dir: DirectoryId,
    name: &str,
) -> Result<KeyInfo> {
    let what = format!("{} '{}'", key.class_name, key.name);
    let class = key.class_name.as_str();
    if points_to_records(streamers, class) {
        return Err(Error::InvalidArgument(format!(
            "{}: {what} points to other records of its file and cannot be copied alone \
             (merge or convert it)",
            source.name()
        )));
    }
    let keylen = dest.next_key_len(class, name, &key.title);
    let moved = |new_keylen: usize| -> Result<Vec<u8>> {
        if new_keylen == key.keylen as usize {
            return source.read_object(key);
        }
        let traced = read_traced(source, streamers, key, &what)?;
        rewrite(
            &traced.payload,
            &traced.trace,
            Vec::new(),
            key,
            new_keylen as u32,
        )
        .map_err(|e| {
            Error::format(
                source.name(),
                &what,
                key.payload_offset(),
                format!("cannot be written under a key of another length: {e}"),
            )
        })
    };
    let payload = moved(keylen)?;
    let version = payload
        .get(4..6)
        .map_or(0, |v| i32::from(u16::from_be_bytes([v[0], v[1]])));
    dest.add_streamer_infos(layouts_of(streamers, class, version));
    let written = dest.write_object_in(dir, class, name, &key.title, &payload, true)?;
    if written.keylen as usize == keylen {
        return Ok(written);
    }
    // The file crossed 2 GB meanwhile and the key grew: its tags move again.
    let payload = moved(written.keylen as usize)?;
    dest.rewrite_object(dir, &written, &payload, true)
}

/// Whether objects of `class` point to other records of their file (trees' baskets,
/// RNTuples' pages, directories' keys), directly or through a base class.
fn points_to_records(streamers: &StreamerSet, class: &str) -> bool {
    let mut todo = vec![class.to_string()];
    let mut seen = 0;
    while let Some(c) = todo.pop() {
        if is_tree_class(&c)
            || matches!(
                c.as_str(),
                "ROOT::RNTuple"
                    | "ROOT::Experimental::RNTuple"
                    | "TDirectory"
                    | "TDirectoryFile"
                    | "TFile"
            )
        {
            return true;
        }
        seen += 1;
        if seen > MAX_LAYOUTS {
            return true;
        }
        if let Some(info) = streamers.get(&c, i32::MIN) {
            todo.extend(
                info.elements
                    .iter()
                    .filter(|e| e.class == ElementClass::Base)
                    .map(|e| e.name.to_string()),
            );
        }
    }
    false
}

/// The layouts of `class` (at `version`) and of every class its members and bases name,
/// as the source describes them; layouts holding elements of kinds this library does not
/// write are left out (ROOT knows its own classes without them).
fn layouts_of(streamers: &StreamerSet, class: &str, version: i32) -> Vec<StreamerInfo> {
    let mut todo = vec![(class.to_string(), Some(version))];
    let mut seen: Vec<(String, i32)> = Vec::new();
    let mut out = Vec::new();
    while let Some((name, version)) = todo.pop() {
        let Some(info) = streamers.get(&name, version.unwrap_or(i32::MIN)) else {
            continue;
        };
        if seen
            .iter()
            .any(|(n, v)| *n == info.class_name && *v == info.class_version)
            || seen.len() >= MAX_LAYOUTS
        {
            continue;
        }
        seen.push((info.class_name.clone(), info.class_version));
        for e in &info.elements {
            if e.class == ElementClass::Base {
                todo.push((e.name.to_string(), Some(e.base_version)));
            } else {
                todo.extend(class_names(&e.type_name).map(|c| (c.to_string(), None)));
            }
        }
        if let Some(layout) = writable(info) {
            out.push(layout);
        }
    }
    out
}

/// The names in a C++ type name that may be classes (`vector<TVector3*>`: `vector`,
/// `TVector3`).
fn class_names(type_name: &str) -> impl Iterator<Item = &str> {
    type_name
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .filter(|s| !s.is_empty())
}

/// A layout read from a file, to be written again; `None` if an element is of a kind this
/// library does not write.
fn writable(info: &StreamerInfo) -> Option<StreamerInfo> {
    let known = info
        .elements
        .iter()
        .all(|e| e.class.streamer_class().is_some());
    known.then(|| info.clone())
}
