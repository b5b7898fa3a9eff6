//! Column buffers and page sealing: elements accumulate per column, and a full page is
//! encoded, compressed and checksummed on the thread that fills it.

use crate::rntuple::format::checksum::xxh3_64;

use crate::compress::{compress_into, Compression};

use super::encoding::encode_page;
use crate::rntuple::format::{ColumnType, Encoding};

/// A sealed page of the current cluster: its element count, stored size and place in
/// its column's segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SealedPage {
    /// Number of elements.
    pub n_elements: u32,
    /// Stored bytes, not counting the checksum that may follow.
    pub size: u64,
    /// The segment of the column where the page starts (a full page that does not fit
    /// whole in a segment's room continues at the start of the next segment).
    pub segment: usize,
    /// Where the page starts in its segment.
    pub start: usize,
}

/// One column being written: unsealed elements, and the sealed pages of the current cluster.
///
/// Sealed pages are packed into segments of a fixed size (one page's worst case), never
/// into one growing buffer: a growing buffer is reallocated again and again, and every
/// move leaves a hole the allocator keeps, so a process would stay resident well above
/// what its buffers hold. Segments are reused from cluster to cluster (see
/// [`PageSealer::recycle`]).
#[derive(Debug)]
pub struct ColumnBuffer {
    ty: ColumnType,
    encoding: Encoding,
    width: usize,
    page_limit: usize,
    /// Unsealed elements, little-endian (one byte per element for bit columns).
    pending: Vec<u8>,
    /// Segments of sealed pages of the current cluster, each page followed by its checksum.
    segments: Vec<Vec<u8>>,
    pages: Vec<SealedPage>,
    /// For offset columns: the cluster-relative end offset of the last entry.
    pub(crate) index_end: u64,
    /// Elements in the current cluster (sealed and pending).
    cluster_elements: u64,
    uncompressed_sealed: u64,
}

/// The sealed pages of one column in one cluster, moved out of its [`ColumnBuffer`].
#[derive(Debug, Default)]
pub struct SealedColumn {
    /// The pages, in element order.
    pub pages: Vec<SealedPage>,
    /// The pages' stored bytes, each followed by its checksum if any, in segments.
    pub segments: Vec<Vec<u8>>,
    /// Elements in the cluster.
    pub n_elements: u64,
    /// Bytes of the pages before compression.
    pub uncompressed_bytes: u64,
}

impl SealedColumn {
    /// The `len` bytes from `start` in segment `segment`: the part in that segment, and
    /// the part that continues at the start of the next one (empty if none).
    pub fn pieces(&self, segment: usize, start: usize, len: usize) -> (&[u8], &[u8]) {
        let first = &self.segments[segment];
        let end = (start + len).min(first.len());
        let rest = start + len - end;
        let next = if rest > 0 {
            &self.segments[segment + 1][..rest]
        } else {
            &[]
        };
        (&first[start..end], next)
    }

    /// Bytes of stored pages (with checksums).
    pub fn stored_bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.len() as u64).sum()
    }
}

impl ColumnBuffer {
    /// A buffer for a column of type `ty` whose pages hold at most `max_page_bytes` bytes
    /// in memory.
    pub fn new(ty: ColumnType, max_page_bytes: usize) -> Self {
        let width = ty.element_size();
        let page_limit = (max_page_bytes / width).max(1) * width;
        ColumnBuffer {
            ty,
            encoding: ty.encoding(),
            width,
            page_limit,
            pending: Vec::new(),
            segments: Vec::new(),
            pages: Vec::new(),
            index_end: 0,
            cluster_elements: 0,
            uncompressed_sealed: 0,
        }
    }

    /// The on-disk column type.
    pub fn column_type(&self) -> ColumnType {
        self.ty
    }

    /// The most bytes of elements a page holds in memory.
    pub fn page_limit(&self) -> usize {
        self.page_limit
    }

    /// Appends elements given as little-endian bytes (a whole number of elements), sealing
    /// pages whenever one is full.
    pub fn push(&mut self, mut bytes: &[u8], sealer: &mut PageSealer) {
        debug_assert_eq!(bytes.len() % self.width, 0);
        self.cluster_elements += (bytes.len() / self.width) as u64;
        while !bytes.is_empty() {
            let room = self.page_limit - self.pending.len();
            let take = room.min(bytes.len());
            if self.pending.capacity() == 0 {
                // The whole page at once, never grown: no copies, and the capacity counted
                // against a memory budget is known before the first byte arrives.
                self.pending = sealer.buffer(self.page_buffer_size());
            }
            self.pending.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.pending.len() >= self.page_limit {
                sealer.seal(self);
            }
        }
    }

    /// Bytes of a page buffer: those of a sealed full page (a segment), so that a short
    /// last page can always be sealed into its own page buffer (see `PageSealer::seal`),
    /// and that page buffers and segments are one size, each reusable as the other.
    pub fn page_buffer_size(&self) -> usize {
        sealed_bound(self.page_limit)
    }

    /// Seals the pending elements as a page, if there are any.
    pub fn flush(&mut self, sealer: &mut PageSealer) {
        if !self.pending.is_empty() {
            sealer.seal(self);
        }
    }

    /// Bytes of unsealed elements in memory.
    pub fn pending_bytes(&self) -> usize {
        self.pending.len()
    }

    /// Bytes of sealed pages (with checksums) of the current cluster.
    pub fn sealed_bytes(&self) -> usize {
        self.segments.iter().map(Vec::len).sum()
    }

    /// Uncompressed (encoded) bytes of the sealed pages of the current cluster.
    pub fn uncompressed_sealed_bytes(&self) -> u64 {
        self.uncompressed_sealed
    }

    /// Bytes the page buffer will take when the next element arrives (the page limit if it
    /// holds no memory now, else 0).
    pub fn unallocated_page_bytes(&self) -> usize {
        if self.pending.capacity() == 0 {
            self.page_buffer_size()
        } else {
            0
        }
    }

    /// Bytes held in memory by this buffer (allocated, not only used).
    pub fn allocated_bytes(&self) -> usize {
        self.pending.capacity() + self.segments.iter().map(Vec::capacity).sum::<usize>()
    }

    /// True if the last segment has room for a sealed page of `bound` bytes.
    fn has_room(&self, bound: usize) -> bool {
        self.segments
            .last()
            .is_some_and(|s| s.capacity() - s.len() >= bound)
    }

    /// True if the page buffer can hold its own elements once sealed: a short page is
    /// stored raw when compression does not make it smaller, so it takes at most its
    /// length and a checksum.
    fn page_buffer_holds_sealed(&self) -> bool {
        self.pending.len() + CHECKSUM_LEN <= self.pending.capacity()
    }

    /// Bytes that sealing the pending elements (at the end of the cluster) can add to
    /// [`ColumnBuffer::allocated_bytes`] and [`PageSealer::spare_bytes`] together. None
    /// in general: the short page goes into the last segment if it has room, else into
    /// its own page buffer, which becomes a segment (see `PageSealer::seal`); otherwise
    /// a segment just large enough for it.
    pub fn flush_growth(&self) -> usize {
        if self.pending.is_empty() {
            return 0;
        }
        let bound = sealed_bound(self.pending.len());
        if self.has_room(bound) || self.page_buffer_holds_sealed() {
            0
        } else {
            bound
        }
    }

    /// Frees the page buffer (the column must hold no cluster data): an idle builder
    /// should hold no memory.
    pub fn release_memory(&mut self) {
        debug_assert!(self.pending.is_empty() && self.segments.is_empty());
        self.pending = Vec::new();
        self.segments = Vec::new();
    }

    /// Moves the sealed pages of the current cluster out (all elements must be sealed) and
    /// starts the next cluster. The page buffer is kept for the next cluster (see
    /// [`ColumnBuffer::release_memory`]).
    pub fn take_sealed(&mut self) -> SealedColumn {
        debug_assert!(self.pending.is_empty());
        let column = SealedColumn {
            pages: std::mem::take(&mut self.pages),
            segments: std::mem::take(&mut self.segments),
            n_elements: self.cluster_elements,
            uncompressed_bytes: self.uncompressed_sealed,
        };
        self.cluster_elements = 0;
        self.index_end = 0;
        self.uncompressed_sealed = 0;
        column
    }
}

/// Bytes of a page's checksum.
const CHECKSUM_LEN: usize = 8;

/// The most bytes a page of `len` encoded bytes takes once sealed: the compressors'
/// worst case (never more than the raw bytes plus headers, since an incompressible page is
/// stored raw, but the codecs want room for their own bound while they work) and the
/// checksum.
pub(crate) fn sealed_bound(len: usize) -> usize {
    let blocks = len / crate::compress::MAX_BLOCK_SIZE + 1;
    len + len / 128 + blocks * 1024 + 8
}

/// Appends `encoded` compressed (or raw where that is not smaller) to `target`, and its
/// checksum if `checksums`; returns the stored size without the checksum.
fn seal_into(
    compression: Compression,
    checksums: bool,
    encoded: &[u8],
    target: &mut Vec<u8>,
) -> usize {
    let start = target.len();
    let size = compress_into(compression, encoded, target);
    if checksums {
        let checksum = xxh3_64(&target[start..]);
        target.extend_from_slice(&checksum.to_le_bytes());
    }
    size
}

/// Encodes, compresses and checksums pages, reusing its scratch buffer, and keeps the
/// segments of written clusters for the next pages.
#[derive(Debug)]
pub struct PageSealer {
    compression: Compression,
    checksums: bool,
    encoded: Vec<u8>,
    /// A short page sealed aside before it moves into its own page buffer.
    sealed_aside: Vec<u8>,
    /// Empty segments and page buffers to reuse, kept sorted by capacity.
    spare: Vec<Vec<u8>>,
}

impl PageSealer {
    /// A sealer for the given compression, writing page checksums if `checksums`.
    pub fn new(compression: Compression, checksums: bool) -> Self {
        PageSealer {
            compression,
            checksums,
            encoded: Vec::new(),
            sealed_aside: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// True if pages carry checksums.
    pub fn checksums(&self) -> bool {
        self.checksums
    }

    /// Bytes held by spare segments.
    pub fn spare_bytes(&self) -> usize {
        self.spare.iter().map(Vec::capacity).sum()
    }

    /// Number of spare segments of at least `capacity` bytes.
    pub fn spares_of_at_least(&self, capacity: usize) -> usize {
        self.spare.len() - self.spare.partition_point(|s| s.capacity() < capacity)
    }

    /// Keeps the segments of a written cluster for the next pages, up to `limit` bytes
    /// more than the spare segments hold, and only those (old spares too) whose capacity
    /// is in `capacities`; returns the bytes kept (the rest is freed).
    pub fn recycle(
        &mut self,
        segments: impl IntoIterator<Item = Vec<u8>>,
        limit: u64,
        capacities: std::ops::Range<usize>,
    ) -> u64 {
        // Buffers of another size than the pages now ask for would only waste memory (a
        // page of 256 KiB in a segment of 1 MiB) or never be used.
        self.spare.retain(|s| capacities.contains(&s.capacity()));
        let mut kept = 0u64;
        for mut segment in segments {
            if kept + segment.capacity() as u64 > limit || !capacities.contains(&segment.capacity())
            {
                continue;
            }
            kept += segment.capacity() as u64;
            segment.clear();
            self.spare.push(segment);
        }
        self.spare.sort_unstable_by_key(Vec::capacity);
        kept
    }

    /// Frees the spare segments.
    pub fn release_spare(&mut self) {
        self.spare = Vec::new();
    }

    /// Frees the spare segments and the scratch buffers (of an idle builder).
    pub fn release_memory(&mut self) {
        self.release_spare();
        self.encoded = Vec::new();
        self.sealed_aside = Vec::new();
    }

    /// An empty buffer with room for `bytes`: the smallest spare one that has it, else a
    /// new one of exactly that size.
    fn buffer(&mut self, bytes: usize) -> Vec<u8> {
        let Some(fit) = self
            .spare
            .get(self.spare.partition_point(|s| s.capacity() < bytes))
        else {
            return Vec::with_capacity(bytes);
        };
        // The last of the spares of that capacity: most spares are full-page segments of
        // one size, and removing the last of a run shifts only the larger ones after it.
        let capacity = fit.capacity();
        let last = self.spare.partition_point(|s| s.capacity() <= capacity) - 1;
        self.spare.remove(last)
    }

    /// Seals the pending elements of `column` as one page: into the column's last
    /// segment if it has room; a full page otherwise into the room left and on into a
    /// new segment sized for full pages, which later pages fill up; the short last page
    /// of a cluster into its own page buffer, which becomes a segment, so that sealing a
    /// cluster needs no memory beyond what its buffers already hold (the column takes a
    /// page buffer again when its next elements arrive).
    fn seal(&mut self, column: &mut ColumnBuffer) {
        let n_elements = (column.pending.len() / column.width) as u32;
        let bound = sealed_bound(column.pending.len());
        let full = column.pending.len() >= column.page_limit;
        // Straight into the last segment if it has room for the worst case; an
        // uncompressed full page fills a segment of its own (sealing it aside first would
        // only add a copy).
        let straight = column.has_room(bound) || full && self.compression.is_none();
        if straight && !column.has_room(bound) {
            let segment = self.buffer(column.page_buffer_size());
            column.segments.push(segment);
        }
        // Plain pages go to the compressor as they are, without an encoding copy.
        let encoded: &[u8] = if column.encoding == Encoding::Plain {
            &column.pending
        } else {
            encode_page(
                column.encoding,
                column.width,
                &column.pending,
                &mut self.encoded,
            );
            &self.encoded
        };
        let encoded_len = encoded.len() as u64;
        let (segment, start, size) = if straight {
            let segment = column.segments.len() - 1;
            let target = &mut column.segments[segment];
            let start = target.len();
            let capacity = target.capacity();
            let size = seal_into(self.compression, self.checksums, encoded, target);
            debug_assert_eq!(
                target.capacity(),
                capacity,
                "a sealed page outgrew its bound"
            );
            (segment, start, size)
        } else {
            // Sealed aside, then placed in the room left: a compressed page is often a
            // fraction of its worst case, so a segment holds several, and a cluster
            // takes about its compressed size in memory, not a worst case per page.
            self.sealed_aside.clear();
            let size = seal_into(
                self.compression,
                self.checksums,
                encoded,
                &mut self.sealed_aside,
            );
            let len = self.sealed_aside.len();
            let room = column.segments.last().map_or(0, |s| s.capacity() - s.len());
            // A full page that does not fit whole fills the room left and goes on at the
            // start of a new segment (the cluster's bytes are written one after the
            // other): otherwise pages compressed to more than half their worst case
            // would take a segment each.
            let continues = full && room > 0 && room < len;
            if room < len && !continues {
                let segment = if !full && column.page_buffer_holds_sealed() {
                    // The short last page of the cluster goes into its own page buffer.
                    let mut buffer = std::mem::take(&mut column.pending);
                    buffer.clear();
                    buffer
                } else {
                    self.buffer(if full {
                        column.page_buffer_size()
                    } else {
                        bound
                    })
                };
                column.segments.push(segment);
            }
            let segment = column.segments.len() - 1;
            let start = column.segments[segment].len();
            let here = if continues { room } else { len };
            column.segments[segment].extend_from_slice(&self.sealed_aside[..here]);
            if continues {
                let mut next = self.buffer(column.page_buffer_size());
                next.extend_from_slice(&self.sealed_aside[here..]);
                column.segments.push(next);
            }
            (segment, start, size)
        };
        column.uncompressed_sealed += encoded_len;
        column.pages.push(SealedPage {
            n_elements,
            size: size as u64,
            segment,
            start,
        });
        column.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stored bytes of `page` and the `checksum_len` bytes of checksum after them,
    /// joined if the page continues into the next segment.
    fn stored(sealed: &SealedColumn, page: &SealedPage, checksum_len: usize) -> Vec<u8> {
        let (first, rest) =
            sealed.pieces(page.segment, page.start, page.size as usize + checksum_len);
        [first, rest].concat()
    }

    #[test]
    fn pages_are_sealed_at_the_limit_with_checksums() {
        let mut sealer = PageSealer::new(Compression::NONE, true);
        let mut column = ColumnBuffer::new(ColumnType::Int32, 16);
        let values: Vec<u8> = (0..10i32).flat_map(|v| v.to_le_bytes()).collect();
        column.push(&values, &mut sealer);
        column.flush(&mut sealer);
        let sealed = column.take_sealed();
        let counts: Vec<u32> = sealed.pages.iter().map(|p| p.n_elements).collect();
        assert_eq!(counts, [4, 4, 2]);
        assert_eq!(sealed.n_elements, 10);
        assert_eq!(sealed.stored_bytes(), 40 + 3 * 8);
        let first = stored(&sealed, &sealed.pages[0], 8);
        assert_eq!(&first[..16], &values[..16]);
        assert_eq!(&first[16..], &xxh3_64(&values[..16]).to_le_bytes());
        let last = stored(&sealed, &sealed.pages[2], 8);
        assert_eq!(&last[..8], &values[32..]);
        assert_eq!(column.sealed_bytes(), 0);
    }

    #[test]
    fn a_short_last_page_is_sealed_into_its_own_page_buffer() {
        let mut sealer = PageSealer::new(Compression::NONE, true);
        let mut column = ColumnBuffer::new(ColumnType::Int64, 4096);
        let buffer = sealed_bound(4096);
        let values: Vec<u8> = (0..100i64).flat_map(|v| v.to_le_bytes()).collect();
        column.push(&values, &mut sealer);
        assert_eq!(column.allocated_bytes(), buffer);
        assert_eq!(
            column.flush_growth(),
            0,
            "the page buffer has room for the sealed page"
        );
        column.flush(&mut sealer);
        // The page buffer became the segment: nothing new was allocated.
        assert_eq!(column.allocated_bytes(), buffer);
        assert_eq!(column.unallocated_page_bytes(), buffer);
        let sealed = column.take_sealed();
        assert_eq!(sealed.segments.len(), 1);
        assert_eq!(sealed.segments[0].capacity(), buffer);
        let page = stored(&sealed, &sealed.pages[0], 8);
        assert_eq!(&page[..800], &values[..]);
        assert_eq!(&page[800..], &xxh3_64(&values).to_le_bytes());
        // Its memory serves the next cluster's page buffer.
        assert_eq!(
            sealer.recycle(sealed.segments, u64::MAX, 0..usize::MAX),
            buffer as u64
        );
        column.push(&values[..8], &mut sealer);
        assert_eq!(sealer.spare_bytes(), 0);
        assert_eq!(column.allocated_bytes(), buffer);

        // A page one byte short of full, too: a page buffer has room for the checksum.
        let mut column = ColumnBuffer::new(ColumnType::Int8, 4096);
        column.push(&[7; 4095], &mut sealer);
        assert_eq!(column.flush_growth(), 0);
        column.flush(&mut sealer);
        assert_eq!(column.allocated_bytes(), buffer);
        assert_eq!(column.take_sealed().stored_bytes(), 4095 + 8);
    }

    #[test]
    fn spare_buffers_are_taken_smallest_fit_first() {
        let mut sealer = PageSealer::new(Compression::NONE, false);
        let spares = [40usize, 20, 10, 20, 20].map(Vec::<u8>::with_capacity);
        let capacities: Vec<usize> = spares.iter().map(Vec::capacity).collect();
        sealer.recycle(spares, u64::MAX, 0..usize::MAX);
        let left = |s: &PageSealer| s.spare.iter().map(Vec::capacity).collect::<Vec<_>>();
        let mut sorted = capacities.clone();
        sorted.sort_unstable();
        assert_eq!(left(&sealer), sorted);
        let taken = sealer.buffer(15);
        assert_eq!(taken.capacity(), sorted[1]);
        assert_eq!(left(&sealer).len(), 4);
        assert!(
            left(&sealer).windows(2).all(|w| w[0] <= w[1]),
            "still sorted"
        );
        // Nothing large enough: a new buffer of exactly the size asked for.
        assert!(sealer.buffer(sorted[4] + 1).capacity() > sorted[4]);
        assert_eq!(left(&sealer).len(), 4);
        // Spares outside the capacities asked for go, old ones too.
        sealer.recycle(
            [Vec::with_capacity(30), Vec::with_capacity(50)],
            u64::MAX,
            20..35,
        );
        assert_eq!(left(&sealer), [20, 20, 30]);
    }

    #[test]
    fn compressed_pages_share_segments() {
        // Pages of a few distinct values compress to a small fraction of their worst case:
        // several of them go into one segment, with the right bytes.
        let mut sealer = PageSealer::new("zstd:5".parse().unwrap(), true);
        let mut column = ColumnBuffer::new(ColumnType::SplitInt32, 64 << 10);
        let values: Vec<u8> = (0..160_000i32)
            .flat_map(|v| (v % 7).to_le_bytes())
            .collect();
        column.push(&values, &mut sealer);
        column.flush(&mut sealer);
        let sealed = column.take_sealed();
        assert_eq!(sealed.pages.len(), 10);
        assert_eq!(sealed.segments.len(), 1, "ten small pages in one segment");
        let mut decoded = Vec::new();
        for page in &sealed.pages {
            let stored = stored(&sealed, page, 8);
            let (data, checksum) = stored.split_at(page.size as usize);
            assert_eq!(checksum, xxh3_64(data).to_le_bytes());
            let mut page_bytes = vec![0u8; page.n_elements as usize * 4];
            crate::compress::decompress_into(data, &mut page_bytes).unwrap();
            decoded.extend_from_slice(&page_bytes);
        }
        // Split and zigzag-encoded pages: compare as such.
        let mut expected = Vec::new();
        for chunk in values.chunks(64 << 10) {
            let mut encoded = Vec::new();
            encode_page(Encoding::SplitZigzag, 4, chunk, &mut encoded);
            expected.extend_from_slice(&encoded);
        }
        assert!(decoded == expected);
    }
}
