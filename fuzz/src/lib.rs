//! What the fuzz targets run: bytes are opened as a ROOT file in memory and every RNTuple
//! (or every TTree) in it is read, ignoring errors. Only a panic, a hang or a huge
//! allocation is a finding.
//!
//! The regression test `crates/rootweave/tests/fuzz_regressions.rs` includes this file,
//! so saved inputs go through exactly this code. The encoder targets (`compress_*`) check
//! rootweave's compression against the reference decoders instead (see [`codecs`]), and
//! the expression target (`analysis_expression`) parses and evaluates text (see
//! [`expressions`]).

pub mod codecs;
pub mod expressions;

pub use expressions::analysis_expression;

use std::sync::Arc;

use rootweave::container::read_streamers;
use rootweave::container::{KeyInfo, RootFile};
use rootweave::io::MemoryFile;
use rootweave::rntuple::read::{Descriptor, OpenOptions};
use rootweave::rntuple::{RNTupleReader, ReadOptions};
use rootweave::ttree::{list_trees, TTreeReader};

/// Entries read per RNTuple.
const MAX_ENTRIES: u64 = 3000;
/// RNTuples read per file.
const MAX_RNTUPLES: usize = 4;
/// Subdirectories listed per file (and how deep).
const MAX_DIRECTORIES: usize = 16;
const MAX_DEPTH: usize = 3;
/// TTrees read per file, and branches read per tree.
const MAX_TREES: usize = 4;
const MAX_BRANCHES: usize = 400;

/// The container and the reader as an application would use them on an untrusted file:
/// header, keys, subdirectories, the StreamerInfo record, then every RNTuple's anchor,
/// header, footer, page lists and pages. Envelope and page checksums are not verified,
/// so that changed bytes reach the decoders. Returns the number of (entry, field) values
/// read.
pub fn rntuple_file(data: &[u8]) -> usize {
    read_file(data.to_vec(), false)
}

/// The same reading with checksums verified, after the input's anchors, envelopes and
/// pages have been given valid checksums (where they are stored uncompressed): the
/// fuzzer's changes inside them are then taken for the writer's. Returns the number of
/// values read.
pub fn rntuple_envelopes(data: &[u8]) -> usize {
    read_file(reseal(data.to_vec()), true)
}

/// `recover` of an untrusted file, in memory; a recovered file's RNTuples are then read
/// as [`rntuple_envelopes`] reads them (checksums verified: recover writes valid metadata)
/// and its trees as [`ttree_file`] reads them. Returns the number of values read from the
/// recovered file.
pub fn recover_file(data: &[u8]) -> usize {
    let source = Arc::new(MemoryFile::from_bytes(data.to_vec()));
    let target = Arc::new(MemoryFile::new());
    match rootweave::recover::recover_into(source, target.clone(), "fuzz.root") {
        Ok(_) => {
            let recovered = target.to_bytes();
            ttree_file(&recovered) + read_file(recovered, true)
        }
        Err(_) => 0,
    }
}

/// The container and the TTree reader on an untrusted file: header, keys, subdirectories,
/// the StreamerInfo record parsed into class layouts, the trees listed (through
/// subdirectories), and for each tree its metadata read through those layouts, every
/// branch's interpretation, and every readable branch read on its own (one thread, a
/// small memory budget) over the first entries and a part of them. Returns the number
/// of (entry, branch) values read.
pub fn ttree_file(data: &[u8]) -> usize {
    let Some(file) = open(data.to_vec()) else {
        return 0;
    };
    list_directories(&file, file.keys().to_vec(), 0, &mut 0);
    let Ok(streamers) = read_streamers(&file) else {
        return 0;
    };
    let streamers = Arc::new(streamers);
    let Ok(trees) = list_trees(&file) else {
        return 0;
    };
    let options = rootweave::ttree::ReadOptions::default()
        .with_threads(1)
        .with_memory_budget(4 << 20);
    let mut values = 0;
    for name in trees.iter().take(MAX_TREES) {
        let Ok(tree) =
            TTreeReader::from_file(file.clone(), streamers.clone(), name, options.clone())
        else {
            continue;
        };
        let _ = tree.cluster_ranges();
        let n = tree.entries().min(MAX_ENTRIES);
        for branch in tree.branch_names().iter().take(MAX_BRANCHES) {
            if tree.interpretation(branch).is_err() {
                continue;
            }
            let Ok(arrays) = tree.read(&[branch.as_str()], 0..n) else {
                continue;
            };
            for (_, array) in &arrays {
                for i in 0..array.len() {
                    let _ = array.value(i);
                }
                values += array.len();
            }
            let _ = tree.read(&[branch.as_str()], n / 3..n - n / 4);
        }
    }
    values
}

fn open(bytes: Vec<u8>) -> Option<Arc<RootFile>> {
    RootFile::from_source(Arc::new(MemoryFile::from_bytes(bytes)))
        .ok()
        .map(Arc::new)
}

/// The RNTuple keys of the top directory, as `name;cycle`.
fn rntuple_keys(file: &RootFile) -> Vec<(String, KeyInfo)> {
    file.keys()
        .iter()
        .filter(|k| {
            k.class_name == "ROOT::RNTuple" || k.class_name == "ROOT::Experimental::RNTuple"
        })
        .take(MAX_RNTUPLES)
        .map(|k| (format!("{};{}", k.name, k.cycle), k.clone()))
        .collect()
}

fn read_file(bytes: Vec<u8>, verify_checksums: bool) -> usize {
    let Some(file) = open(bytes) else {
        return 0;
    };
    let _ = file.streamer_list_payload();
    list_directories(&file, file.keys().to_vec(), 0, &mut 0);
    rntuple_keys(&file)
        .iter()
        .map(|(name, _)| read_rntuple(&file, name, verify_checksums))
        .sum()
}

fn list_directories(file: &RootFile, keys: Vec<KeyInfo>, depth: usize, listed: &mut usize) {
    if depth >= MAX_DEPTH {
        return;
    }
    for key in keys {
        if *listed >= MAX_DIRECTORIES {
            return;
        }
        if !key.class_name.starts_with("TDirectory") {
            continue;
        }
        *listed += 1;
        if let Ok(sub) = file.directory_keys(&key) {
            list_directories(file, sub, depth + 1, listed);
        }
    }
}

fn read_rntuple(file: &Arc<RootFile>, name: &str, verify_checksums: bool) -> usize {
    let options = ReadOptions::default()
        .with_threads(1)
        .with_memory_budget(4 << 20)
        .with_verify_checksums(verify_checksums);
    let Ok(reader) = RNTupleReader::from_file(file.clone(), name, options) else {
        return 0;
    };
    let _ = reader.cluster_ranges();
    let n = reader.entries().min(MAX_ENTRIES);
    let mut values = 0;
    // Field by field, so that one field that cannot be read does not hide the others.
    for field in reader.field_names() {
        let Ok(arrays) = reader.read(&[field.as_str()], 0..n) else {
            continue;
        };
        for (_, array) in &arrays {
            for i in 0..array.len() {
                let _ = array.value(i);
            }
            values += array.len();
        }
        // A part of the range: the arrays are cut at both ends.
        let _ = reader.read(&[field.as_str()], n / 3..n - n / 4);
    }
    values
}

/// Writes the XXH3 of `bytes[at..at + len - 8]` into its last 8 bytes, if in range.
fn seal(bytes: &mut [u8], at: u64, len: u64) -> Option<u64> {
    let at = usize::try_from(at).ok()?;
    let len = usize::try_from(len).ok()?;
    let end = at.checked_add(len)?;
    if len < 8 || end > bytes.len() {
        return None;
    }
    let sum = twox_hash::XxHash3_64::oneshot(&bytes[at..end - 8]);
    bytes[end - 8..end].copy_from_slice(&sum.to_le_bytes());
    Some(sum)
}

fn put_u64(bytes: &mut [u8], at: u64, value: u64) {
    if let Some(slot) = usize::try_from(at)
        .ok()
        .and_then(|at| bytes.get_mut(at..at.checked_add(8)?))
    {
        slot.copy_from_slice(&value.to_le_bytes());
    }
}

/// An envelope stored uncompressed in one piece: (offset, length).
fn plain_envelope(offset: u64, size: u64, len: u64, max_key_size: u64) -> Option<(u64, u64)> {
    (size == len && len >= 16 && (max_key_size == 0 || size <= max_key_size))
        .then_some((offset, len))
}

/// Offset, inside an envelope at `at`, of what follows the preamble and feature flags.
fn after_feature_flags(bytes: &[u8], at: u64) -> Option<u64> {
    let mut pos = at.checked_add(8)?;
    for _ in 0..4 {
        let i = usize::try_from(pos).ok()?;
        let word = u64::from_le_bytes(bytes.get(i..i.checked_add(8)?)?.try_into().ok()?);
        pos += 8;
        if (word as i64) >= 0 {
            return Some(pos);
        }
    }
    None
}

/// Recomputes the checksums of every uncompressed anchor, header, footer and page list
/// (with the header checksum that the footer and page lists repeat) and of every page.
fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
    let Some(file) = open(bytes.clone()) else {
        return bytes;
    };
    let keys = rntuple_keys(&file);
    drop(file);
    let be = |b: &[u8], i: usize| u64::from_be_bytes(b[i..i + 8].try_into().expect("8"));
    let mut names = Vec::new();
    for (name, key) in &keys {
        if key.is_compressed() || key.payload_len() < 78 {
            continue;
        }
        let Ok(p) = usize::try_from(key.payload_offset()) else {
            continue;
        };
        if p.saturating_add(78) > bytes.len() {
            continue;
        }
        let sum = twox_hash::XxHash3_64::oneshot(&bytes[p + 6..p + 70]);
        bytes[p + 70..p + 78].copy_from_slice(&sum.to_be_bytes());
        let a = &bytes[p..p + 78];
        let max_key_size = be(a, 62);
        let header = plain_envelope(be(a, 14), be(a, 22), be(a, 30), max_key_size);
        let footer = plain_envelope(be(a, 38), be(a, 46), be(a, 54), max_key_size);
        let header_sum = header.and_then(|(at, len)| seal(&mut bytes, at, len));
        if let Some((at, len)) = footer {
            if let (Some(sum), Some(pos)) = (header_sum, after_feature_flags(&bytes, at)) {
                if pos + 8 <= at + len - 8 {
                    put_u64(&mut bytes, pos, sum);
                }
            }
            seal(&mut bytes, at, len);
        }
        names.push((name.clone(), header_sum));
    }
    // Page lists, then pages: found through the (unverified) metadata.
    let options = OpenOptions::default().with_verify_checksums(false);
    let Some(file) = open(bytes.clone()) else {
        return bytes;
    };
    for (name, header_sum) in &names {
        let Ok(d) = Descriptor::open(&file, name, options) else {
            continue;
        };
        for g in &d.groups {
            let link = g.info.page_list;
            if let Some((at, len)) = plain_envelope(
                link.offset,
                link.size,
                link.uncompressed_len,
                d.anchor.max_key_size,
            ) {
                if let (Some(sum), true) = (header_sum, len >= 24) {
                    put_u64(&mut bytes, at + 8, *sum);
                }
                seal(&mut bytes, at, len);
            }
        }
    }
    let Some(file) = open(bytes.clone()) else {
        return bytes;
    };
    for (name, _) in &names {
        let Ok(d) = Descriptor::open(&file, name, options) else {
            continue;
        };
        let Ok(clusters) = d.all_clusters(&file) else {
            continue;
        };
        for column in clusters.iter().flat_map(|c| c.columns.iter().flatten()) {
            for page in column.pages.iter().filter(|p| p.has_checksum) {
                if d.anchor.max_key_size == 0 || page.size + 8 <= d.anchor.max_key_size {
                    seal(&mut bytes, page.offset, page.size.saturating_add(8));
                }
            }
        }
    }
    bytes
}

/// A CSV file read as `FromCSV` reads one: the first byte chooses the options (headers or
/// not, `;` or `,` between fields, trimming, `#` comments, a first and a last line left
/// out, blank lines kept as records, a column typed `double`), the rest is the file.
/// Returns the number of cells read.
pub fn csv_file(data: &[u8]) -> usize {
    use rootweave::dataset::{parse_csv, CsvOptions, CsvType};
    let Some((&choice, text)) = data.split_first() else {
        return 0;
    };
    let bit = |k: u8| choice & (1 << k) != 0;
    let options = CsvOptions {
        headers: !bit(0),
        delimiter: if bit(1) { b';' } else { b',' },
        left_trim: bit(2),
        right_trim: bit(2),
        comment: bit(3).then_some(b'#'),
        skip_first_lines: u64::from(bit(4)),
        skip_last_lines: u64::from(bit(5)),
        skip_blank_lines: !bit(6),
        column_types: if bit(7) {
            vec![("Col0".to_string(), CsvType::Double)]
        } else {
            Vec::new()
        },
        ..CsvOptions::default()
    };
    match parse_csv(text, "fuzz.csv", &options) {
        Ok(table) => table.columns.iter().map(|(_, a)| a.len()).sum(),
        Err(_) => 0,
    }
}
