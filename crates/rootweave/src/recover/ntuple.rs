//! Recovering RNTuples from the records of a file: their headers and the page lists of
//! their clusters (cluster records and group page lists) are found among the blobs; the
//! clusters from entry 0 on whose pages are all in whole blobs (and match their checksums)
//! are kept, up to the first one missing or broken.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::compress::decompress;
use crate::container::{KeyInfo, BLOB_KEY_LEN};
use crate::error::Result;
use crate::io::ReadAt;
use crate::rntuple::format::checksum::xxh3_64;
use crate::rntuple::format::{ClusterInfo, EnvelopeLocation};
use crate::rntuple::read::{envelope_bytes, schema_extension_of, Descriptor};

/// Envelope types (the first 16 bits of an envelope).
const HEADER: u16 = 0x01;
const FOOTER: u16 = 0x02;
const PAGE_LIST: u16 = 0x03;

/// Largest envelope looked into (bigger blobs hold pages).
const MAX_ENVELOPE: u64 = 256 << 20;

/// An RNTuple found in the file, with the clusters that can be kept.
#[derive(Debug)]
pub(crate) struct FoundNtuple {
    /// Its header's location (the new anchor points at it).
    pub header: EnvelopeLocation,
    /// Its header's checksum (the new page list and footer repeat it).
    pub header_checksum: u64,
    /// The schema extension of its latest footer (columns added after the header).
    pub extension: Option<Vec<u8>>,
    pub name: String,
    /// The clusters kept, in entry order from entry 0.
    pub clusters: Vec<ClusterInfo>,
    /// Clusters found but not kept, with why.
    pub dropped: Vec<String>,
}

/// An envelope found in a blob.
struct Envelope {
    kind: u16,
    location: EnvelopeLocation,
    bytes: Vec<u8>,
}

/// The RNTuples of the file whose records are `keys`: each header found, with the
/// clusters its page lists describe. `anchored` maps a header's offset to the footer its
/// latest anchor points at: RNTuples whose headers are the same bytes (one name and schema
/// in two directories) share a checksum, so each keeps the page lists its own footer lists
/// only, and a cluster record no footer lists is left out (whose it is cannot be told).
pub(crate) fn find(
    source: &dyn ReadAt,
    size: u64,
    keys: &[KeyInfo],
    anchored: &HashMap<u64, EnvelopeLocation>,
) -> Result<Vec<FoundNtuple>> {
    let name = source.name();
    let blobs: Vec<&KeyInfo> = keys.iter().filter(|k| k.class_name == "RBlob").collect();
    let mut envelopes = Vec::new();
    for key in &blobs {
        if let Some(e) = envelope(source, key)? {
            envelopes.push(e);
        }
    }
    // Payload ranges of the whole blobs: a page must lie inside one.
    let mut ranges: Vec<(u64, u64)> = blobs
        .iter()
        .map(|k| (k.seek_key + k.keylen as u64, k.seek_key + k.nbytes as u64))
        .collect();
    ranges.sort_unstable();
    let headers: Vec<(&Envelope, u64)> = envelopes
        .iter()
        .filter(|e| e.kind == HEADER)
        .map(|h| (h, xxh3_64(&h.bytes[..h.bytes.len() - 8])))
        .collect();
    // The page lists each footer an anchor points at lists.
    let mut listed_by_anchors: Vec<u64> = Vec::new();
    // The clusters of page lists its footer does not list, of each RNTuple of a shared
    // header: its checksum, the page list's offset, the cluster.
    let mut unlisted: Vec<(u64, u64, ClusterInfo)> = Vec::new();
    let mut found = Vec::new();
    for &(header, checksum) in &headers {
        let shared = headers.iter().filter(|(_, c)| *c == checksum).count() > 1;
        // Envelopes repeat their header's checksum after the preamble (and a footer after
        // its feature flags too).
        let owned_by = |e: &&Envelope, at: usize| {
            e.bytes
                .get(at..at + 8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
                == Some(checksum)
        };
        // The latest footer repeating its checksum (the latest schema extension), or, when
        // another RNTuple's header is the same bytes, the footer its own anchor points at.
        let footer = if shared {
            anchored.get(&header.location.offset).and_then(|at| {
                envelopes
                    .iter()
                    .find(|e| e.kind == FOOTER && e.location.offset == at.offset && owned_by(e, 16))
            })
        } else {
            envelopes
                .iter()
                .filter(|e| e.kind == FOOTER && owned_by(e, 16))
                .max_by_key(|e| e.location.offset)
        };
        let with_footer = footer.map(|f| (&f.bytes[..], f.location));
        let Ok(descriptor) =
            Descriptor::from_header(&name, &header.bytes, header.location, with_footer)
        else {
            continue;
        };
        let listed: Vec<u64> = descriptor
            .groups
            .iter()
            .map(|g| g.info.page_list.offset)
            .collect();
        listed_by_anchors.extend(&listed);
        let mut by_entry: BTreeMap<u64, ClusterInfo> = BTreeMap::new();
        for list in envelopes
            .iter()
            .filter(|e| e.kind == PAGE_LIST && owned_by(e, 8))
        {
            let Ok(clusters) = descriptor.page_list_clusters(&list.bytes, list.location, size)
            else {
                continue;
            };
            if shared && !listed.contains(&list.location.offset) {
                let at = list.location.offset;
                unlisted.extend(clusters.into_iter().map(|c| (checksum, at, c)));
                continue;
            }
            for c in clusters {
                by_entry.entry(c.first_entry).or_insert(c);
            }
        }
        let mut kept = Vec::new();
        let mut dropped = Vec::new();
        let mut next = 0;
        for (first, cluster) in by_entry {
            if !dropped.is_empty() {
                dropped.push(format!(
                    "cluster of entries {first}.. (after a dropped one)"
                ));
                continue;
            }
            let why = if first != next {
                Some(format!("entries {next}..{first} are missing"))
            } else {
                broken_page(source, &cluster, &ranges)?
            };
            match why {
                Some(why) => dropped.push(format!(
                    "cluster of entries {first}..{}: {why}",
                    first + cluster.n_entries
                )),
                None => {
                    next = first + cluster.n_entries;
                    kept.push(cluster);
                }
            }
        }
        found.push(FoundNtuple {
            header: header.location,
            header_checksum: checksum,
            extension: footer.and_then(|f| schema_extension_of(&f.bytes)),
            name: descriptor.name.clone(),
            clusters: kept,
            dropped,
        });
    }
    // Clusters of RNTuples of one header that no footer an anchor points at lists, and
    // that are not a kept cluster again (a cluster record of a cluster its group's page
    // list repeats): not kept, reported for each of those RNTuples once.
    let first_page = |c: &ClusterInfo| {
        c.columns
            .iter()
            .flatten()
            .find_map(|p| p.pages.first().map(|p| p.offset))
    };
    let kept_pages: HashSet<u64> = found
        .iter()
        .flat_map(|n| &n.clusters)
        .filter_map(first_page)
        .collect();
    let mut reported = HashSet::new();
    for (checksum, at, cluster) in &unlisted {
        if listed_by_anchors.contains(at)
            || first_page(cluster).is_some_and(|p| kept_pages.contains(&p))
            || !reported.insert((*at, cluster.first_entry))
        {
            continue;
        }
        for ntuple in found.iter_mut().filter(|n| n.header_checksum == *checksum) {
            ntuple.dropped.push(format!(
                "cluster of entries {}..{} (page list at {at}): another RNTuple has a \
                 header of the same bytes, whose cluster it is cannot be told",
                cluster.first_entry,
                cluster.first_entry + cluster.n_entries
            ));
        }
    }
    Ok(found)
}

/// The header, footer or page list envelope a blob holds, checked; `None` for any other
/// blob.
fn envelope(source: &dyn ReadAt, key: &KeyInfo) -> Result<Option<Envelope>> {
    let stored_len = (key.nbytes - key.keylen as u32) as u64;
    let objlen = key.objlen as u64;
    if stored_len < 16 || objlen > MAX_ENVELOPE || stored_len > objlen {
        return Ok(None);
    }
    let at = key.seek_key + key.keylen as u64;
    let location = EnvelopeLocation {
        uncompressed_len: objlen,
        size: stored_len,
        offset: at,
    };
    let preamble_of = |bytes: &[u8]| {
        let word = u64::from_le_bytes(bytes[..8].try_into().expect("8"));
        ((word & 0xFFFF) as u16, word >> 16)
    };
    let mut stored = vec![0u8; stored_len as usize];
    if stored_len == objlen {
        // Uncompressed: the preamble tells at once whether this is an envelope.
        source.read_exact_at(&mut stored[..8], at)?;
        let (kind, len) = preamble_of(&stored);
        if !matches!(kind, HEADER | FOOTER | PAGE_LIST) || len != objlen {
            return Ok(None);
        }
    }
    source.read_exact_at(&mut stored, at)?;
    let kind = if stored_len == objlen {
        preamble_of(&stored).0
    } else if objlen > stored_len.saturating_mul(1100).max(1 << 20) {
        // More than any ROOT codec expands: a corrupt length, not allocated.
        return Ok(None);
    } else {
        match decompress(&stored, objlen as usize) {
            Ok(bytes) if bytes.len() >= 16 => preamble_of(&bytes).0,
            _ => return Ok(None),
        }
    };
    if !matches!(kind, HEADER | FOOTER | PAGE_LIST) {
        return Ok(None);
    }
    let name = source.name();
    match envelope_bytes(stored, location, kind, true, &name, "envelope") {
        Ok(bytes) => Ok(Some(Envelope {
            kind,
            location,
            bytes,
        })),
        Err(_) => Ok(None),
    }
}

/// Why a cluster cannot be kept: a page outside the whole blobs, or one whose checksum
/// does not match its bytes; `None` if every page is whole.
fn broken_page(
    source: &dyn ReadAt,
    cluster: &ClusterInfo,
    blobs: &[(u64, u64)],
) -> Result<Option<String>> {
    for pages in cluster.columns.iter().flatten() {
        for page in &pages.pages {
            let len = page.size + if page.has_checksum { 8 } else { 0 };
            let (start, end) = (page.offset, page.offset + len);
            let inside = blobs
                .partition_point(|&(s, _)| s <= start)
                .checked_sub(1)
                .is_some_and(|i| end <= blobs[i].1);
            // A page list written before the blob keys were (never by rootweave's writers)
            // might point into the key header itself.
            if !inside || start < BLOB_KEY_LEN {
                return Ok(Some(format!(
                    "its page at {start} is not in a whole record"
                )));
            }
            if page.has_checksum {
                if len > MAX_ENVELOPE * 8 {
                    return Ok(Some(format!("its page at {start} claims {len} bytes")));
                }
                let mut bytes = vec![0u8; len as usize];
                source.read_exact_at(&mut bytes, start)?;
                let body = page.size as usize;
                let stored = u64::from_le_bytes(bytes[body..].try_into().expect("8"));
                if xxh3_64(&bytes[..body]) != stored {
                    return Ok(Some(format!("its page at {start} fails its checksum")));
                }
            }
        }
    }
    Ok(None)
}
