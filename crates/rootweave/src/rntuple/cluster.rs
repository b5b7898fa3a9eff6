//! Placing a sealed cluster in the file: the pages of all columns, column after column, in
//! blobs of at most the maximum key size. Identical pages within a cluster are stored once
//! and shared by their locators, as ROOT does ("same-page merging"): the offsets of several
//! collections of one length, for example, are often identical.
//!
//! Planning happens on the thread that sealed the cluster; reserving the byte ranges is a
//! cheap bookkeeping step (the parallel writer does it under its commit lock); writing the
//! bytes happens afterwards, outside any lock.

use std::collections::HashMap;

use crate::rntuple::checksum::xxh3_64;

use crate::container::{FileWriter, BLOB_KEY_LEN};
use crate::error::Result;

use super::builder::SealedCluster;
use super::metadata::{ClusterDescriptor, ClusterSummary, ColumnRange, PageLocation};

/// Where one page goes.
#[derive(Debug)]
struct PlannedPage {
    column: usize,
    /// The page's segment in its column, and its position (with its checksum) there.
    segment: usize,
    start: usize,
    /// Bytes of the page and its checksum.
    len: usize,
    place: Place,
}

#[derive(Debug, Clone, Copy)]
enum Place {
    /// In blob `blob` at `offset` from the start of its payload.
    Blob { blob: usize, offset: u64 },
    /// The same bytes as an earlier page of the plan.
    SameAs(usize),
}

/// The layout of a sealed cluster's pages in blobs.
#[derive(Debug)]
pub struct ClusterPlan {
    pages: Vec<PlannedPage>,
    blob_sizes: Vec<u64>,
    checksums: bool,
}

impl ClusterPlan {
    /// Lays out `cluster`'s pages in blobs of at most `max_key_size` bytes, sharing
    /// identical pages.
    pub fn new(cluster: &SealedCluster, checksums: bool, max_key_size: u64) -> Self {
        let checksum_len = if checksums { 8 } else { 0 };
        let mut pages: Vec<PlannedPage> = Vec::new();
        let mut blob_sizes: Vec<u64> = Vec::new();
        let mut seen: HashMap<(u64, usize), usize> = HashMap::new();
        for (column, sealed) in cluster.columns.iter().enumerate() {
            for page in &sealed.pages {
                let len = page.size as usize + checksum_len;
                let stored = sealed.pieces(page.segment, page.start, len);
                // With checksums the last 8 bytes already hash the page.
                let hash = if checksums {
                    u64::from_le_bytes(last_eight(stored))
                } else if stored.1.is_empty() {
                    xxh3_64(stored.0)
                } else {
                    xxh3_64(&[stored.0, stored.1].concat())
                };
                let same = seen.get(&(hash, len)).copied().filter(|&i| {
                    let p: &PlannedPage = &pages[i];
                    same_bytes(
                        cluster.columns[p.column].pieces(p.segment, p.start, p.len),
                        stored,
                    )
                });
                let place = match same {
                    Some(original) => Place::SameAs(original),
                    None => {
                        let fits = blob_sizes
                            .last()
                            .is_some_and(|&size| size + len as u64 <= max_key_size);
                        if !fits {
                            blob_sizes.push(0);
                        }
                        let blob = blob_sizes.len() - 1;
                        let offset = blob_sizes[blob];
                        blob_sizes[blob] += len as u64;
                        seen.insert((hash, len), pages.len());
                        Place::Blob { blob, offset }
                    }
                };
                pages.push(PlannedPage {
                    column,
                    segment: page.segment,
                    start: page.start,
                    len,
                    place,
                });
            }
        }
        ClusterPlan {
            pages,
            blob_sizes,
            checksums,
        }
    }

    /// Reserves the blobs' byte ranges; returns the offset of each blob's key.
    pub fn allocate(&self, file: &FileWriter) -> Result<Vec<u64>> {
        self.blob_sizes
            .iter()
            .map(|&size| file.allocate_blob(size))
            .collect()
    }

    /// The cluster's page locations, given where its blobs' keys are and the index of
    /// each column's first element.
    pub fn describe(
        &self,
        cluster: &SealedCluster,
        blob_keys: &[u64],
        summary: ClusterSummary,
        first_elements: &[u64],
        compression: i32,
    ) -> ClusterDescriptor {
        let offsets = self.page_offsets(blob_keys);
        let mut ranges: Vec<ColumnRange> = cluster
            .columns
            .iter()
            .zip(first_elements)
            .map(|(c, &first_element)| ColumnRange {
                first_element,
                compression,
                pages: Vec::with_capacity(c.pages.len()),
            })
            .collect();
        let mut index = 0;
        for (column, sealed) in cluster.columns.iter().enumerate() {
            for page in &sealed.pages {
                ranges[column].pages.push(PageLocation {
                    n_elements: page.n_elements,
                    size: page.size,
                    offset: offsets[index],
                    has_checksum: self.checksums,
                });
                index += 1;
            }
        }
        ClusterDescriptor {
            summary,
            columns: ranges,
        }
    }

    fn page_offsets(&self, blob_keys: &[u64]) -> Vec<u64> {
        let mut offsets: Vec<u64> = Vec::with_capacity(self.pages.len());
        for page in &self.pages {
            let at = match page.place {
                Place::Blob { blob, offset } => blob_keys[blob] + BLOB_KEY_LEN + offset,
                Place::SameAs(original) => offsets[original],
            };
            offsets.push(at);
        }
        offsets
    }

    /// Writes the blobs' keys and pages (positional writes; call without holding locks).
    /// Neighbouring bytes of one segment go out in one write.
    pub fn write(
        &self,
        file: &FileWriter,
        cluster: &SealedCluster,
        blob_keys: &[u64],
    ) -> Result<()> {
        for (&key, &size) in blob_keys.iter().zip(&self.blob_sizes) {
            file.write_blob_key(key, size, size)?;
        }
        let offsets = self.page_offsets(blob_keys);
        // ((column, segment), start, end, file offset) of the bytes waiting to be written.
        let mut run: Option<((usize, usize), usize, usize, u64)> = None;
        let write = |run: ((usize, usize), usize, usize, u64)| {
            let ((column, segment), start, end, at) = run;
            file.write_at(at, &cluster.columns[column].segments[segment][start..end])
        };
        for (page, &at) in self.pages.iter().zip(&offsets) {
            if matches!(page.place, Place::SameAs(_)) {
                continue;
            }
            // A page is one piece of a segment, or two: the end of one segment and the
            // start of the next.
            let (first, rest) =
                cluster.columns[page.column].pieces(page.segment, page.start, page.len);
            let pieces = [
                (page.segment, page.start, first.len(), at),
                (page.segment + 1, 0, rest.len(), at + first.len() as u64),
            ];
            for (segment, start, len, at) in pieces.into_iter().filter(|p| p.2 > 0) {
                match &mut run {
                    Some((run_segment, run_start, end, run_at))
                        if *run_segment == (page.column, segment)
                            && *end == start
                            && *run_at + (*end - *run_start) as u64 == at =>
                    {
                        *end += len;
                    }
                    _ => {
                        if let Some(done) = run.take() {
                            write(done)?;
                        }
                        run = Some(((page.column, segment), start, start + len, at));
                    }
                }
            }
        }
        if let Some(done) = run {
            write(done)?;
        }
        Ok(())
    }
}

/// The last eight bytes of a byte string in two pieces (the second may be empty or
/// shorter than eight bytes); the string has at least eight.
fn last_eight((first, rest): (&[u8], &[u8])) -> [u8; 8] {
    let mut tail = [0u8; 8];
    let from_rest = rest.len().min(8);
    tail[8 - from_rest..].copy_from_slice(&rest[rest.len() - from_rest..]);
    tail[..8 - from_rest].copy_from_slice(&first[first.len() - (8 - from_rest)..]);
    tail
}

/// True if two byte strings, each in two pieces (the second possibly empty), are equal.
/// Pages in two pieces are few (one per segment at most), and are compared only when
/// their hashes match, so those are simply joined.
fn same_bytes(a: (&[u8], &[u8]), b: (&[u8], &[u8])) -> bool {
    if a.1.is_empty() && b.1.is_empty() {
        return a.0 == b.0;
    }
    a.0.len() + a.1.len() == b.0.len() + b.1.len() && [a.0, a.1].concat() == [b.0, b.1].concat()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::compress::decompress_into;
    use crate::container::writer::WriterOptions;
    use crate::io::MemoryFile;
    use crate::rntuple::column::{ColumnType, Encoding};
    use crate::rntuple::encoding::encode_page;
    use crate::rntuple::page::{ColumnBuffer, PageSealer};

    /// `n` values of 20 random bits (splitmix64), as little-endian int32: byte-split
    /// pages of them compress to about 60% of their size.
    fn twenty_bit_values(n: usize) -> Vec<u8> {
        let mut state = 7u64;
        (0..n)
            .flat_map(|_| {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                (((z ^ (z >> 31)) >> 44) as i32).to_le_bytes()
            })
            .collect()
    }

    #[test]
    fn byte_strings_in_two_pieces() {
        let whole: Vec<u8> = (0..20u8).collect();
        for cut in [0, 5, 12, 13, 19, 20] {
            let (a, b) = whole.split_at(cut);
            let expected: [u8; 8] = whole[12..].try_into().unwrap();
            assert_eq!(last_eight((a, b)), expected, "cut at {cut}");
            assert!(same_bytes((a, b), (&whole, &[])));
            assert!(same_bytes((&whole[..3], &whole[3..]), (a, b)));
            let mut other = whole.clone();
            other[cut.min(19)] ^= 1;
            assert!(!same_bytes((a, b), (&other, &[])));
        }
        assert!(!same_bytes((&whole[..4], &[]), (&whole[..3], &[])));
    }

    /// Full pages that compress to more than half their worst case go on from the room
    /// left in one segment into the next, so that segments are filled; each page still
    /// lands whole, at its location, in the written file, and same-page merging still
    /// finds identical pages across segments.
    #[test]
    fn pages_continued_in_the_next_segment_are_written_whole() {
        const PAGE: usize = 64 << 10;
        let mut sealer = PageSealer::new("zstd:5".parse().unwrap(), true);
        let mut column = ColumnBuffer::new(ColumnType::SplitInt32, PAGE);
        let mut values = twenty_bit_values(12 * PAGE / 4);
        // The last two pages repeat the first two: stored once.
        let repeat = values[..2 * PAGE].to_vec();
        values.extend_from_slice(&repeat);
        column.push(&values, &mut sealer);
        column.flush(&mut sealer);
        let sealed = column.take_sealed();
        assert_eq!(sealed.pages.len(), 14);
        let continued = sealed
            .pages
            .iter()
            .filter(|p| {
                !sealed
                    .pieces(p.segment, p.start, p.size as usize + 8)
                    .1
                    .is_empty()
            })
            .count();
        assert!(
            continued >= 4,
            "{continued} pages continue in a next segment"
        );
        let stored: usize = sealed.pages.iter().map(|p| p.size as usize + 8).sum();
        assert_eq!(sealed.stored_bytes() as usize, stored);
        let segment = sealed.segments[0].capacity();
        assert!(
            sealed.segments.len() <= stored.div_ceil(segment),
            "{} segments of {segment} bytes for {stored} bytes",
            sealed.segments.len()
        );

        let cluster = SealedCluster {
            entries: (values.len() / 4) as u64,
            columns: vec![sealed],
        };
        let memory = Arc::new(MemoryFile::new());
        let file = FileWriter::with_backend(memory.clone(), "pages.root", WriterOptions::default())
            .unwrap();
        let plan = ClusterPlan::new(&cluster, true, 1 << 30);
        let keys = plan.allocate(&file).unwrap();
        plan.write(&file, &cluster, &keys).unwrap();
        let summary = ClusterSummary {
            first_entry: 0,
            n_entries: cluster.entries,
        };
        let described = plan.describe(&cluster, &keys, summary, &[0], 505);
        let locations = &described.columns[0].pages;
        assert_eq!(locations[12].offset, locations[0].offset);
        assert_eq!(locations[13].offset, locations[1].offset);
        let bytes = memory.to_bytes();
        for (location, chunk) in locations.iter().zip(values.chunks(PAGE)) {
            let at = location.offset as usize;
            let data = &bytes[at..at + location.size as usize];
            let checksum = &bytes[at + data.len()..at + data.len() + 8];
            assert_eq!(checksum, xxh3_64(data).to_le_bytes());
            let mut page = vec![0u8; chunk.len()];
            decompress_into(data, &mut page).unwrap();
            let mut expected = Vec::new();
            encode_page(Encoding::SplitZigzag, 4, chunk, &mut expected);
            assert_eq!(page, expected);
        }
    }
}
