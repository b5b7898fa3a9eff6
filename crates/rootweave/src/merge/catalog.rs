//! The inputs of a merge and what they hold: every object path of every input (highest
//! cycle of each name), directories merged into one tree of entries, each entry knowing
//! which inputs have it.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::hist::HistSource;
use super::rntuple::NtupleSource;
use crate::container::read_streamers;
use crate::container::{KeyInfo, RootFile};
use crate::error::{Error, Result};
use crate::objects::is_histogram_class;
use crate::streamer::{is_tree_class, StreamerSet};
use crate::tree_edit::TreeSource;

/// Deepest directory nesting followed.
const MAX_DEPTH: usize = 32;

/// One input file, opened and checked.
pub(super) struct Input {
    /// The file.
    pub file: RootFile,
    /// Its class layouts.
    pub streamers: Arc<StreamerSet>,
    /// Its trees, read when it was checked, by path (each taken once merged).
    trees: Mutex<HashMap<String, TreeSource>>,
    /// Its RNTuples (page lists read), as `trees`.
    ntuples: Mutex<HashMap<String, NtupleSource>>,
}

/// The class layouts of the inputs read so far, by the stored bytes of their StreamerInfo
/// record: job outputs of one program share one record, which is then parsed once.
#[derive(Default)]
pub(super) struct StreamerCache {
    sets: Mutex<HashMap<Vec<u8>, Arc<StreamerSet>>>,
}

impl StreamerCache {
    /// The class layouts of `file`.
    fn get(&self, file: &RootFile) -> Result<Arc<StreamerSet>> {
        let h = file.header();
        let stored = if h.seek_info > h.begin && h.nbytes_info >= 18 {
            let raw = file.read_at(h.seek_info, h.nbytes_info as u64, "StreamerInfo record")?;
            let keylen = u16::from_be_bytes([raw[14], raw[15]]) as usize;
            raw.get(keylen..).map(<[u8]>::to_vec)
        } else {
            None
        };
        let lock = || self.sets.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(set) = stored.as_ref().and_then(|s| lock().get(s).cloned()) {
            return Ok(set);
        }
        let set = Arc::new(read_streamers(file)?);
        if let Some(stored) = stored {
            lock().insert(stored, set.clone());
        }
        Ok(set)
    }
}

/// Takes `path` out of `slot`, or reads it with `read`.
fn take_or_read<T>(
    slot: &Mutex<HashMap<String, T>>,
    path: &str,
    read: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let kept = slot.lock().unwrap_or_else(|e| e.into_inner()).remove(path);
    match kept {
        Some(t) => Ok(t),
        None => read(),
    }
}

impl Input {
    /// Opens `path` and reads every tree's metadata, so that a bad input is found before
    /// anything is written.
    pub fn open(path: &Path, cache: &StreamerCache) -> Result<Self> {
        let file = RootFile::open(path)?;
        let streamers = cache.get(&file)?;
        let input = Input {
            file,
            streamers,
            trees: Mutex::new(HashMap::new()),
            ntuples: Mutex::new(HashMap::new()),
        };
        let mut entries = Vec::new();
        add_keys(&input.file, 0, input.file.keys(), &mut entries, 0)?;
        input.check(&entries, "")?;
        Ok(input)
    }

    /// The tree at `path` (behind `key`): the one read when the input was checked, or read
    /// now.
    pub fn tree(&self, key: &KeyInfo, path: &str) -> Result<TreeSource> {
        take_or_read(&self.trees, path, || {
            TreeSource::read(&self.file, &self.streamers, key, path)
        })
    }

    /// The RNTuple at `path`, as [`Input::tree`] gives trees.
    pub fn ntuple(&self, path: &str) -> Result<NtupleSource> {
        take_or_read(&self.ntuples, path, || NtupleSource::read(&self.file, path))
    }

    /// The histogram at `path` (behind `key`). Histograms are read again rather than kept
    /// from the check: job outputs hold many, and only one path's are needed at a time.
    pub fn histogram(&self, key: &KeyInfo, path: &str) -> Result<HistSource> {
        HistSource::read(&self.file, &self.streamers, key, path)
    }

    fn check(&self, entries: &[Entry], path: &str) -> Result<()> {
        for e in entries {
            let full = format!("{path}{}", e.name);
            match &e.kind {
                Kind::Directory(children) => self.check(children, &format!("{full}/"))?,
                Kind::Tree => {
                    let tree =
                        TreeSource::read(&self.file, &self.streamers, &e.sources[0].1, &full)?;
                    self.trees
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(full, tree);
                }
                // A bad histogram is found when merged (a failed merge is retried without
                // its input when skipping bad inputs): reading every one twice cost more
                // than all the copying of a merge of job outputs.
                Kind::Histogram => {}
                Kind::RNTuple => {
                    let ntuple = NtupleSource::read(&self.file, &full)?;
                    self.ntuples
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(full, ntuple);
                }
                Kind::Other => {}
            }
        }
        Ok(())
    }
}

/// What an entry is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind {
    /// A directory and what it holds.
    Directory(Vec<Entry>),
    /// A TTree (or `TNtuple`, `TNtupleD`).
    Tree,
    /// An RNTuple anchor.
    RNTuple,
    /// A histogram (`TH1`, `TH2`, `TH3` of any bin type, a profile).
    Histogram,
    /// Anything else, taken whole.
    Other,
}

/// One object path of the merged output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    /// Its name in its directory.
    pub name: String,
    /// What it is.
    pub kind: Kind,
    /// The inputs that have it (index into the inputs) and its key there, in input order.
    pub sources: Vec<(usize, KeyInfo)>,
}

fn kind_of(class: &str) -> Kind {
    match class {
        c if is_tree_class(c) => Kind::Tree,
        "ROOT::RNTuple" | "ROOT::Experimental::RNTuple" => Kind::RNTuple,
        c if c.starts_with("TDirectory") => Kind::Directory(Vec::new()),
        c if is_histogram_class(c) => Kind::Histogram,
        _ => Kind::Other,
    }
}

/// Adds the keys of one directory of input `input` to `entries`.
fn add_keys(
    file: &RootFile,
    input: usize,
    keys: &[KeyInfo],
    entries: &mut Vec<Entry>,
    depth: usize,
) -> Result<()> {
    // The highest cycle of each name, in the order names first appear.
    let mut latest: Vec<&KeyInfo> = Vec::new();
    for k in keys {
        match latest.iter_mut().find(|l| l.name == k.name) {
            Some(l) if l.cycle < k.cycle => *l = k,
            Some(_) => {}
            None => latest.push(k),
        }
    }
    for key in latest {
        let kind = kind_of(&key.class_name);
        let at = match entries.iter().position(|e| e.name == key.name) {
            Some(i) => {
                if std::mem::discriminant(&entries[i].kind) != std::mem::discriminant(&kind) {
                    return Err(Error::InvalidArgument(format!(
                        "'{}' is a {} in {}, but a {} in an input before",
                        key.name,
                        key.class_name,
                        file.name(),
                        entries[i].sources[0].1.class_name
                    )));
                }
                i
            }
            None => {
                entries.push(Entry {
                    name: key.name.clone(),
                    kind,
                    sources: Vec::new(),
                });
                entries.len() - 1
            }
        };
        entries[at].sources.push((input, key.clone()));
        if let Kind::Directory(children) = &mut entries[at].kind {
            if depth >= MAX_DEPTH {
                return Err(Error::format(
                    file.name(),
                    format!("directory '{}'", key.name),
                    key.seek_key,
                    "directories nested too deeply",
                ));
            }
            let sub = file.directory_keys(key)?;
            add_keys(file, input, &sub, children, depth + 1)?;
        }
    }
    Ok(())
}

/// Every object path of every input.
pub(super) struct Catalog {
    /// The top directory's entries.
    pub top: Vec<Entry>,
    input_bytes: u64,
}

impl Catalog {
    /// The catalog of `inputs`.
    pub fn build(inputs: &[Input]) -> Result<Self> {
        let mut top = Vec::new();
        for (i, input) in inputs.iter().enumerate() {
            add_keys(&input.file, i, input.file.keys(), &mut top, 0)?;
        }
        Ok(Catalog {
            top,
            input_bytes: inputs.iter().map(|i| i.file.size()).sum(),
        })
    }

    /// The bytes of all inputs (what progress is measured against).
    pub fn record_bytes(&self) -> u64 {
        self.input_bytes
    }
}
