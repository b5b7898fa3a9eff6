//! Placing a sealed cluster in the file: the pages of all columns, column after column, in
//! blobs of at most the maximum key size. Identical pages are stored once and shared by
//! their locators, as ROOT does ("same-page merging"): the offsets of several collections
//! of one length, for example, are often identical. Within a cluster, pages are compared
//! in memory; a page equal to one an earlier cluster stored (see [`StoredPages`]) points
//! at that one, once the bytes read back from the file are found equal.
//!
//! Planning happens on the thread that sealed the cluster; reserving the byte ranges is a
//! cheap bookkeeping step (the parallel writer does it under its commit lock); writing the
//! bytes happens afterwards, outside any lock.

use std::collections::HashMap;
use std::ops::Range;

use crate::rntuple::format::checksum::xxh3_64;

use crate::container::{FileWriter, BLOB_KEY_LEN};
use crate::error::Result;

use super::builder::SealedCluster;
use super::stored_pages::StoredPages;
use crate::rntuple::format::{ClusterInfo, ColumnPages, PageLocation};

/// Where one page goes.
#[derive(Debug)]
struct PlannedPage {
    column: usize,
    /// The page's segment in its column, and its position (with its checksum) there.
    segment: usize,
    start: usize,
    /// Bytes of the page and its checksum.
    len: usize,
    /// The page's checksum, or the XXH3 of its bytes when pages have none.
    hash: u64,
    place: Place,
}

#[derive(Debug, Clone, Copy)]
enum Place {
    /// In blob `blob` at `offset` from the start of its payload.
    Blob { blob: usize, offset: u64 },
    /// The same bytes as an earlier page of the plan.
    SameAs(usize),
    /// The same bytes as a page already in the file (an earlier cluster's), at this offset.
    Stored(u64),
}

/// The layout of a sealed cluster's pages in blobs.
#[derive(Debug)]
pub struct ClusterPlan {
    pages: Vec<PlannedPage>,
    blob_sizes: Vec<u64>,
    checksums: bool,
    max_key_size: u64,
}

impl ClusterPlan {
    /// Lays out `cluster`'s pages in blobs of at most `max_key_size` bytes, sharing
    /// identical pages.
    pub fn new(cluster: &SealedCluster, checksums: bool, max_key_size: u64) -> Self {
        let checksum_len = if checksums { 8 } else { 0 };
        let mut pages: Vec<PlannedPage> = Vec::new();
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
                        seen.insert((hash, len), pages.len());
                        // Placed by `lay_out`.
                        Place::Blob { blob: 0, offset: 0 }
                    }
                };
                pages.push(PlannedPage {
                    column,
                    segment: page.segment,
                    start: page.start,
                    len,
                    hash,
                    place,
                });
            }
        }
        let mut plan = ClusterPlan {
            pages,
            blob_sizes: Vec::new(),
            checksums,
            max_key_size,
        };
        plan.lay_out();
        plan
    }

    /// Places the pages the cluster stores itself one after the other in blobs of at most
    /// the maximum key size (a page larger than that gets a blob of its own).
    fn lay_out(&mut self) {
        let ClusterPlan {
            pages,
            blob_sizes,
            max_key_size,
            ..
        } = self;
        blob_sizes.clear();
        for page in pages.iter_mut() {
            if let Place::Blob { blob, offset } = &mut page.place {
                let len = page.len as u64;
                if blob_sizes
                    .last()
                    .is_none_or(|&size| size + len > *max_key_size)
                {
                    blob_sizes.push(0);
                }
                *blob = blob_sizes.len() - 1;
                *offset = blob_sizes[*blob];
                blob_sizes[*blob] += len;
            }
        }
    }

    /// Points the pages equal to a page already in the file at it: `stored` proposes a
    /// page by hash and length, and the proposed bytes, read back from `file`, must equal
    /// the page's own. Call on the producer's thread, before the cluster is recorded; the
    /// reads take no lock. A proposal that cannot be read back (a backend that cannot
    /// read, an I/O error) is not shared: the page is stored again.
    pub(crate) fn share_stored(
        &mut self,
        cluster: &SealedCluster,
        stored: &StoredPages,
        file: &FileWriter,
    ) {
        let proposals = stored.find(self.pages.iter().map(|page| match page.place {
            Place::Blob { .. } => Some((page.hash, page.len)),
            _ => None,
        }));
        let mut shared = false;
        let mut earlier = Vec::new();
        for (page, proposal) in self.pages.iter_mut().zip(proposals) {
            let Some(at) = proposal else { continue };
            earlier.resize(page.len, 0);
            if !matches!(file.read_back(at, &mut earlier), Ok(true)) {
                continue;
            }
            let own = cluster.columns[page.column].pieces(page.segment, page.start, page.len);
            if same_bytes(own, (&earlier, &[])) {
                page.place = Place::Stored(at);
                shared = true;
            }
        }
        if shared {
            self.lay_out();
        }
    }

    /// The (hash, length) and file offset of every page this plan stores itself, given
    /// where its blobs' keys are: what [`StoredPages::insert`] takes once they are written.
    pub(crate) fn stored_pages(&self, blob_keys: &[u64]) -> Vec<((u64, usize), u64)> {
        self.pages
            .iter()
            .zip(self.page_offsets(blob_keys))
            .filter(|(page, _)| matches!(page.place, Place::Blob { .. }))
            .map(|(page, at)| ((page.hash, page.len), at))
            .collect()
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
        entries: Range<u64>,
        first_elements: &[u64],
        compression: u32,
    ) -> ClusterInfo {
        let offsets = self.page_offsets(blob_keys);
        let mut ranges: Vec<ColumnPages> = cluster
            .columns
            .iter()
            .zip(first_elements)
            .map(|(c, &first_element)| ColumnPages {
                first_element,
                suppressed: false,
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
        ClusterInfo {
            first_entry: entries.start,
            n_entries: entries.end - entries.start,
            columns: ranges.into_iter().map(Some).collect(),
        }
    }

    fn page_offsets(&self, blob_keys: &[u64]) -> Vec<u64> {
        let mut offsets: Vec<u64> = Vec::with_capacity(self.pages.len());
        for page in &self.pages {
            let at = match page.place {
                Place::Blob { blob, offset } => blob_keys[blob] + BLOB_KEY_LEN + offset,
                Place::SameAs(original) => offsets[original],
                Place::Stored(at) => at,
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
            if !matches!(page.place, Place::Blob { .. }) {
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
    use crate::rntuple::format::{ColumnType, Encoding};
    use crate::rntuple::write::encoding::encode_page;
    use crate::rntuple::write::page::{ColumnBuffer, PageSealer};

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
        let described = plan.describe(&cluster, &keys, 0..cluster.entries, &[0], 505);
        let locations = &described.columns[0].as_ref().unwrap().pages;
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

    /// A sealed cluster of one byte-split int32 column holding `values` in pages of
    /// `page` bytes (zstd, with checksums).
    fn int32_cluster(values: &[u8], page: usize) -> SealedCluster {
        let mut sealer = PageSealer::new("zstd:5".parse().unwrap(), true);
        let mut column = ColumnBuffer::new(ColumnType::SplitInt32, page);
        column.push(values, &mut sealer);
        column.flush(&mut sealer);
        SealedCluster {
            entries: (values.len() / 4) as u64,
            columns: vec![column.take_sealed()],
        }
    }

    /// Plans, records and writes `cluster` as the writers do, sharing the pages of
    /// `stored`; returns its page offsets and the bytes its blobs hold.
    fn commit(file: &FileWriter, stored: &StoredPages, cluster: &SealedCluster) -> (Vec<u64>, u64) {
        let mut plan = ClusterPlan::new(cluster, true, 1 << 30);
        plan.share_stored(cluster, stored, file);
        let keys = plan.allocate(file).unwrap();
        plan.write(file, cluster, &keys).unwrap();
        stored.insert(plan.stored_pages(&keys));
        let described = plan.describe(cluster, &keys, 0..cluster.entries, &[0], 505);
        let offsets = described.columns[0]
            .as_ref()
            .unwrap()
            .pages
            .iter()
            .map(|p| p.offset)
            .collect();
        (offsets, plan.blob_sizes.iter().sum())
    }

    /// A backend that cannot read back what it wrote.
    struct WriteOnly(MemoryFile);

    impl crate::io::WriteAt for WriteOnly {
        fn write_all_at(&self, buf: &[u8], offset: u64) -> Result<()> {
            self.0.write_all_at(buf, offset)
        }
        fn set_size(&self, len: u64) -> Result<()> {
            self.0.set_size(len)
        }
        fn sync(&self) -> Result<()> {
            Ok(())
        }
        fn name(&self) -> String {
            "write-only".into()
        }
    }

    /// A page equal to one of an earlier cluster points at it; a page whose hash and
    /// length propose a stored page with other bytes is stored itself; a backend that
    /// cannot read back shares nothing across clusters.
    #[test]
    fn pages_of_earlier_clusters_are_shared_only_when_read_back_equal() {
        const PAGE: usize = 16 << 10;
        let values = twenty_bit_values(5 * PAGE / 4);
        let (earlier, fresh) = values.split_at(4 * PAGE);
        let first = int32_cluster(earlier, PAGE);
        // Page 2, page 0 of the first cluster, and a page of new values.
        let mut repeated = earlier[2 * PAGE..3 * PAGE].to_vec();
        repeated.extend_from_slice(&earlier[..PAGE]);
        repeated.extend_from_slice(fresh);
        let second = int32_cluster(&repeated, PAGE);
        let fresh_len = second.columns[0].pages[2].size + 8;

        let memory = Arc::new(MemoryFile::new());
        let file =
            FileWriter::with_backend(memory.clone(), "s.root", WriterOptions::default()).unwrap();
        let stored = StoredPages::new();
        let (a, _) = commit(&file, &stored, &first);
        let (b, b_bytes) = commit(&file, &stored, &second);
        assert_eq!(b[..2], [a[2], a[0]]);
        assert!(b[2] > a[3]);
        assert_eq!(
            b_bytes, fresh_len,
            "the second cluster stores its new page alone"
        );

        // A third cluster of the new values again, but the index proposes the first
        // cluster's page 1 for it (as a hash collision would): read back, it differs.
        let third = int32_cluster(fresh, PAGE);
        let page = &third.columns[0].pages[0];
        let len = page.size as usize + 8;
        let hash = u64::from_le_bytes(last_eight(third.columns[0].pieces(
            page.segment,
            page.start,
            len,
        )));
        let collision = StoredPages::new();
        collision.insert([((hash, len), a[1])]);
        let (c, c_bytes) = commit(&file, &collision, &third);
        assert!(c[0] > b[2], "stored again, not at {}", a[1]);
        assert_eq!(c_bytes, len as u64);
        // The proposal that is right is taken.
        let (d, d_bytes) = commit(&file, &stored, &third);
        assert_eq!((d[0], d_bytes), (b[2], 0));

        let write_only = Arc::new(WriteOnly(MemoryFile::new()));
        let file =
            FileWriter::with_backend(write_only, "w.root", WriterOptions::default()).unwrap();
        let stored = StoredPages::new();
        let (_, a_bytes) = commit(&file, &stored, &first);
        let (_, b_bytes) = commit(&file, &stored, &second);
        assert!(a_bytes > 0);
        let all: u64 = second.columns[0].pages.iter().map(|p| p.size + 8).sum();
        assert_eq!(b_bytes, all, "nothing shared without reading back");
    }
}
