//! The first and last bytes of a remote file, read when it opens and kept: the header, the
//! top directory, the keys lists and the StreamerInfo that every reader asks for first.

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
    #[cfg(feature = "xrootd")]
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
    #[cfg(feature = "http")]
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
}
