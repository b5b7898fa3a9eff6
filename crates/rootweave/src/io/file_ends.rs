//! The first and last bytes of a remote file, read when it opens and kept: the header, the
//! top directory, the keys lists and the StreamerInfo that every reader asks for first.

use super::ReadAt;
use crate::error::Result;

/// Bytes kept from each end of a remote file.
pub(crate) const END_BLOCK: u64 = 64 << 10;

/// The kept ends of a file: its head from offset 0, and its tail from `tail_start`.
#[derive(Debug, Default)]
pub(crate) struct FileEnds {
    head: Vec<u8>,
    tail_start: u64,
    tail: Vec<u8>,
}

impl FileEnds {
    /// The ends of a file of `size` bytes as [`FileEnds::layout`] places them in `bytes`.
    pub(crate) fn from_layout(size: u64, mut bytes: Vec<u8>) -> Self {
        let (head, tail_start) = Self::layout(size);
        let tail = bytes.split_off(head as usize);
        FileEnds {
            head: bytes,
            tail_start,
            tail,
        }
    }

    /// Where the kept ends of a file of `size` bytes lie: the head is `0..head`, the tail
    /// `tail_start..size` (never overlapping the head).
    pub(crate) fn layout(size: u64) -> (u64, u64) {
        let head = END_BLOCK.min(size);
        (head, size.saturating_sub(END_BLOCK).max(head))
    }

    /// The ends of a file from its head and its tail starting at `tail_start`.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn new(head: Vec<u8>, tail_start: u64, tail: Vec<u8>) -> Self {
        FileEnds {
            head,
            tail_start,
            tail,
        }
    }

    /// Copies the bytes at `offset` into `buf` if one end holds all of them.
    pub(crate) fn copy_to(&self, buf: &mut [u8], offset: u64) -> bool {
        let end = offset + buf.len() as u64;
        if end <= self.head.len() as u64 {
            buf.copy_from_slice(&self.head[offset as usize..end as usize]);
            return true;
        }
        let tail_end = self.tail_start + self.tail.len() as u64;
        if !self.tail.is_empty() && offset >= self.tail_start && end <= tail_end {
            let at = (offset - self.tail_start) as usize;
            buf.copy_from_slice(&self.tail[at..at + buf.len()]);
            return true;
        }
        false
    }
}

impl FileEnds {
    /// Fills the reads that the kept ends hold, and returns the others.
    pub(crate) fn serve<'a>(&self, reads: &'a mut [(u64, &mut [u8])]) -> Vec<(u64, &'a mut [u8])> {
        let mut rest = Vec::new();
        for (offset, buf) in reads.iter_mut() {
            if !self.copy_to(buf, *offset) {
                rest.push((*offset, &mut **buf));
            }
        }
        rest
    }
}

/// A source whose first and last 64 KiB are read once, in one vectored read, when it is
/// made, and served from memory after: for sources that pay per request (a file system of
/// Python's fsspec, say) that have no such cache of their own.
pub struct WithEnds<S> {
    inner: S,
    ends: FileEnds,
}

impl<S: ReadAt> WithEnds<S> {
    /// Reads the ends of `inner`.
    pub fn new(inner: S) -> Result<Self> {
        let size = inner.size()?;
        let (head, tail_start) = FileEnds::layout(size);
        let mut bytes = vec![0u8; (head + size - tail_start) as usize];
        let (head_bytes, tail_bytes) = bytes.split_at_mut(head as usize);
        let mut reads = vec![(0, head_bytes), (tail_start, tail_bytes)];
        reads.retain(|(_, b)| !b.is_empty());
        inner.read_ranges(&mut reads)?;
        Ok(WithEnds {
            inner,
            ends: FileEnds::from_layout(size, bytes),
        })
    }
}

impl<S: ReadAt> ReadAt for WithEnds<S> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        self.read_ranges(&mut [(offset, buf)])
    }

    fn size(&self) -> Result<u64> {
        self.inner.size()
    }

    fn name(&self) -> String {
        self.inner.name()
    }

    fn prefers_vectored(&self) -> bool {
        self.inner.prefers_vectored()
    }

    fn read_ranges(&self, reads: &mut [(u64, &mut [u8])]) -> Result<()> {
        let mut rest = self.ends.serve(reads);
        if rest.is_empty() {
            return Ok(());
        }
        self.inner.read_ranges(&mut rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ends_of_small_and_large_files_never_overlap() {
        assert_eq!(FileEnds::layout(100), (100, 100));
        assert_eq!(FileEnds::layout(END_BLOCK + 10), (END_BLOCK, END_BLOCK));
        assert_eq!(FileEnds::layout(3 * END_BLOCK), (END_BLOCK, 2 * END_BLOCK));
        let size = 3 * END_BLOCK;
        let bytes: Vec<u8> = (0..2 * END_BLOCK).map(|i| (i % 251) as u8).collect();
        let (head, tail_start) = FileEnds::layout(size);
        let ends = FileEnds {
            head: bytes[..head as usize].to_vec(),
            tail_start,
            tail: bytes[head as usize..].to_vec(),
        };
        let mut buf = [0u8; 4];
        assert!(ends.copy_to(&mut buf, 10));
        assert_eq!(buf, bytes[10..14]);
        assert!(ends.copy_to(&mut buf, size - 4));
        assert_eq!(&buf[..], &bytes[bytes.len() - 4..]);
        assert!(!ends.copy_to(&mut buf, END_BLOCK - 2), "spans the gap");
        assert!(!ends.copy_to(&mut buf, END_BLOCK + 5));
    }

    #[test]
    fn a_source_with_ends_asks_its_source_only_for_the_middle() {
        let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
        let source = WithEnds::new(crate::io::MemoryFile::from_bytes(bytes.clone())).unwrap();
        let mut buf = vec![0u8; 100];
        for offset in [0u64, 70_000, 299_900] {
            source.read_exact_at(&mut buf, offset).unwrap();
            assert_eq!(buf[..], bytes[offset as usize..offset as usize + 100]);
        }
        let small = WithEnds::new(crate::io::MemoryFile::from_bytes(vec![7u8; 10])).unwrap();
        let mut two = [0u8; 2];
        small.read_exact_at(&mut two, 8).unwrap();
        assert_eq!(two, [7, 7]);
        assert!(small.read_exact_at(&mut two, 9).is_err());
    }
}
