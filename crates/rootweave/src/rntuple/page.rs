//! Column buffers and page sealing: elements accumulate per column, and a full page is
//! encoded, compressed and checksummed on the thread that fills it.

use xxhash_rust::xxh3::xxh3_64;

use crate::compress::{compress_into, Compression};

use super::column::{ColumnType, Encoding};
use super::encoding::encode_page;

/// A sealed page of the current cluster: its element count and stored size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SealedPage {
    /// Number of elements.
    pub n_elements: u32,
    /// Stored bytes, not counting the checksum that may follow.
    pub size: u64,
}

/// One column being written: unsealed elements, and the sealed pages of the current cluster.
#[derive(Debug)]
pub struct ColumnBuffer {
    ty: ColumnType,
    encoding: Encoding,
    width: usize,
    page_limit: usize,
    /// Unsealed elements, little-endian (one byte per element for bit columns).
    pending: Vec<u8>,
    /// Sealed pages of the current cluster, back to back, each followed by its checksum.
    sealed: Vec<u8>,
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
    /// The pages' stored bytes, back to back, each followed by its checksum if any.
    pub bytes: Vec<u8>,
    /// Elements in the cluster.
    pub n_elements: u64,
    /// Bytes of the pages before compression.
    pub uncompressed_bytes: u64,
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
            sealed: Vec::new(),
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
                self.pending.reserve_exact(self.page_limit);
            }
            self.pending.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.pending.len() >= self.page_limit {
                sealer.seal(self);
            }
        }
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
        self.sealed.len()
    }

    /// Uncompressed (encoded) bytes of the sealed pages of the current cluster.
    pub fn uncompressed_sealed_bytes(&self) -> u64 {
        self.uncompressed_sealed
    }

    /// Bytes the page buffer will take when the next element arrives (the page limit if it
    /// holds no memory now, else 0).
    pub fn unallocated_page_bytes(&self) -> usize {
        if self.pending.capacity() == 0 {
            self.page_limit
        } else {
            0
        }
    }

    /// Bytes held in memory by this buffer (allocated, not only used).
    pub fn allocated_bytes(&self) -> usize {
        self.pending.capacity() + self.sealed.capacity()
    }

    /// Frees the page buffer and any sealed-page buffer kept for reuse (the column must
    /// hold no cluster data): an idle builder should hold no memory.
    pub fn release_memory(&mut self) {
        debug_assert!(self.pending.is_empty() && self.sealed.is_empty());
        self.pending = Vec::new();
        self.sealed = Vec::new();
    }

    /// Frees the sealed-page buffer kept for reuse, if the column holds no sealed pages.
    pub fn release_sealed_buffer(&mut self) {
        if self.sealed.is_empty() {
            self.sealed = Vec::new();
        }
    }

    /// Takes back the byte buffer of a sealed column that was written, to hold the next
    /// cluster's pages without mapping new memory; returns the capacity kept (0 if the
    /// column already has a buffer).
    pub fn recycle(&mut self, mut bytes: Vec<u8>) -> usize {
        if self.sealed.capacity() > 0 {
            return 0;
        }
        bytes.clear();
        self.sealed = bytes;
        self.sealed.capacity()
    }

    /// Moves the sealed pages of the current cluster out (all elements must be sealed) and
    /// starts the next cluster. The page buffer is kept for the next cluster (see
    /// [`ColumnBuffer::release_memory`]).
    pub fn take_sealed(&mut self) -> SealedColumn {
        debug_assert!(self.pending.is_empty());
        let column = SealedColumn {
            pages: std::mem::take(&mut self.pages),
            bytes: std::mem::take(&mut self.sealed),
            n_elements: self.cluster_elements,
            uncompressed_bytes: self.uncompressed_sealed,
        };
        self.cluster_elements = 0;
        self.index_end = 0;
        self.uncompressed_sealed = 0;
        column
    }
}

/// Makes room for a sealed page of at most `bound` bytes, growing the cluster's buffer by
/// just that much instead of doubling it: the buffer holds a whole cluster, and doubling
/// would leave up to half of it unused but counted. (Large buffers are grown in place by
/// the allocator, by remapping rather than copying.)
fn grow_sealed(sealed: &mut Vec<u8>, bound: usize) {
    if sealed.capacity() - sealed.len() < bound {
        sealed.reserve_exact(bound);
    }
}

/// The most bytes a page of `len` encoded bytes takes once sealed: the compressors'
/// worst case (never more than the raw bytes plus headers, since an incompressible page is
/// stored raw, but the codecs want room for their own bound while they work) and the
/// checksum.
pub(crate) fn sealed_bound(len: usize) -> usize {
    let blocks = len / crate::compress::MAX_BLOCK_SIZE + 1;
    len + len / 128 + blocks * 1024 + 8
}

/// Encodes, compresses and checksums pages, reusing its scratch buffer.
#[derive(Debug)]
pub struct PageSealer {
    compression: Compression,
    checksums: bool,
    encoded: Vec<u8>,
}

impl PageSealer {
    /// A sealer for the given compression, writing page checksums if `checksums`.
    pub fn new(compression: Compression, checksums: bool) -> Self {
        PageSealer {
            compression,
            checksums,
            encoded: Vec::new(),
        }
    }

    /// True if pages carry checksums.
    pub fn checksums(&self) -> bool {
        self.checksums
    }

    /// Seals the pending elements of `column` as one page.
    fn seal(&mut self, column: &mut ColumnBuffer) {
        let n_elements = (column.pending.len() / column.width) as u32;
        let start = column.sealed.len();
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
        grow_sealed(&mut column.sealed, sealed_bound(encoded.len()));
        let size = compress_into(self.compression, encoded, &mut column.sealed);
        if self.checksums {
            let checksum = xxh3_64(&column.sealed[start..]);
            column.sealed.extend_from_slice(&checksum.to_le_bytes());
        }
        column.uncompressed_sealed += encoded_len;
        column.pages.push(SealedPage {
            n_elements,
            size: size as u64,
        });
        column.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(sealed.bytes.len(), 40 + 3 * 8);
        assert_eq!(&sealed.bytes[..16], &values[..16]);
        assert_eq!(&sealed.bytes[16..24], &xxh3_64(&values[..16]).to_le_bytes());
        assert_eq!(column.sealed_bytes(), 0);
    }
}
