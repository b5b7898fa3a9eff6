//! Files read over HTTP(S): [`HttpFile`] is a [`ReadAt`] whose reads are range requests,
//! so that every reader above it works unchanged.
//!
//! How requests are chosen (docs/remote.md says more): a vectored read
//! ([`ReadAt::read_ranges`]) sends its ranges as multi-range GETs (`bytes=a-b,c-d`) with
//! Range headers of at most [`HttpOptions::max_range_header`] bytes, several requests at
//! once on one keep-alive pool. Every reply is checked against what was asked. A server
//! that answers several ranges with one part puts the file in single-range mode; one that
//! refuses long range lists (400, 413, 414, 416, 431) halves the ranges per request, which
//! the file remembers; one that answers 200 (the whole file) is read from the start and the
//! ranges taken as they stream past. Failed requests (connection errors, timeouts, 5xx,
//! 408, 429) are retried with doubling waits, [`HttpOptions::retries`] times in all for a
//! read; a reply that stops sending bytes for [`HttpOptions::stall_timeout`] is a failure,
//! so a stalled server ends a read within a bound, never a hang. Redirects are followed and the
//! final URL kept for the file's later requests. The first and last 64 KiB (header, top
//! directory, keys lists, StreamerInfo) are read when the file opens and kept.

mod client;
mod options;
mod ranges;

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

pub use options::HttpOptions;

use super::file_ends::{FileEnds, END_BLOCK};
use super::ReadAt;
use crate::error::{RemoteErrorKind, Result};
use client::Client;

/// Ranges closer than this are asked for as one (the gap is cheaper than a range entry).
const JOIN_GAP: u64 = 4 << 10;

/// A file read over HTTP(S) with range requests (see the module's description).
pub struct HttpFile {
    client: Client,
    size: u64,
    ends: FileEnds,
    requests: AtomicU64,
}

impl std::fmt::Debug for HttpFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpFile")
            .field("url", &self.client.shown_url())
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl HttpFile {
    /// Opens the file at `url` (`http://` or `https://`): one request for its first 64 KiB,
    /// which tells its size, and one for its last 64 KiB.
    pub fn open(url: &str, options: HttpOptions) -> Result<Self> {
        let client = Client::new(url, options)?;
        let head_range = 0..END_BLOCK;
        let head = std::cell::RefCell::new(vec![0u8; END_BLOCK as usize]);
        let sink = |at: u64, bytes: &[u8]| {
            let mut head = head.borrow_mut();
            let end = (at as usize).saturating_add(bytes.len()).min(head.len());
            if (at as usize) < end {
                head[at as usize..end].copy_from_slice(&bytes[..end - at as usize]);
            }
        };
        let first = client.fetch_blocking(std::slice::from_ref(&head_range), None, &sink)?;
        let size = first.size.ok_or_else(|| {
            client.error(
                None,
                RemoteErrorKind::BadReply,
                "the reply does not tell the file's size",
            )
        })?;
        let head_len = END_BLOCK.min(size);
        if !first
            .parts
            .iter()
            .any(|p| p.start == 0 && p.end >= head_len)
        {
            return Err(client.error(
                Some(0..head_len),
                RemoteErrorKind::BadReply,
                "the reply lacks the first bytes",
            ));
        }
        let mut head = head.into_inner();
        head.truncate(head_len as usize);
        let mut file = HttpFile {
            client,
            size,
            ends: FileEnds::default(),
            requests: AtomicU64::new(1),
        };
        let (_, tail_start) = FileEnds::layout(size);
        let mut tail = vec![0u8; (size - tail_start) as usize];
        if !tail.is_empty() {
            file.fetch_into(&mut [(tail_start, &mut tail[..])])?;
        }
        file.ends = FileEnds::new(head, tail_start, tail);
        Ok(file)
    }

    /// The number of requests sent so far (retries included).
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed) + self.client.retried()
    }

    /// Fills every buffer from the server: the ranges joined where close, sent as few
    /// requests as the server's mode allows, several at once.
    fn fetch_into(&self, reads: &mut [(u64, &mut [u8])]) -> Result<()> {
        for (offset, buf) in reads.iter() {
            if offset + buf.len() as u64 > self.size {
                return Err(self.client.error(
                    Some(*offset..offset + buf.len() as u64),
                    RemoteErrorKind::BadReply,
                    format!(
                        "the range runs past the end of the file ({} bytes)",
                        self.size
                    ),
                ));
            }
        }
        let mut wanted: Vec<Range<u64>> = reads
            .iter()
            .filter(|(_, b)| !b.is_empty())
            .map(|(o, b)| *o..o + b.len() as u64)
            .collect();
        wanted.sort_by_key(|r| r.start);
        let mut joined: Vec<Range<u64>> = Vec::new();
        for r in wanted {
            match joined.last_mut() {
                Some(last) if r.start <= last.end + JOIN_GAP => last.end = last.end.max(r.end),
                _ => joined.push(r),
            }
        }
        if joined.is_empty() {
            return Ok(());
        }
        let destinations = Destinations::new(reads);
        let sink = |at: u64, bytes: &[u8]| destinations.put(at, bytes);
        let (fetched, sent) = self.client.fetch_all_blocking(joined, self.size, &sink)?;
        self.requests.fetch_add(sent, Ordering::Relaxed);
        // Every read must lie in a part received whole (whose bytes all went to the sink).
        for range in destinations.ranges() {
            let whole = fetched
                .iter()
                .flat_map(|f| &f.parts)
                .any(|p| p.start <= range.start && range.end <= p.end);
            if !whole {
                return Err(self.client.error(
                    Some(range),
                    RemoteErrorKind::BadReply,
                    "the replies did not hold these bytes",
                ));
            }
        }
        Ok(())
    }
}

/// The buffers of one vectored read, by file offset, for the bytes of replies to be copied
/// into as they arrive (on the thread that drives the requests, hence the `RefCell`).
struct Destinations<'r, 'b> {
    /// The reads sorted by offset, and the largest end among each read and those before it
    /// (so that the reads overlapping a span are found by a binary search even when reads
    /// overlap each other).
    reads: std::cell::RefCell<Vec<(u64, &'r mut &'b mut [u8])>>,
    ends_so_far: Vec<u64>,
}

impl<'r, 'b> Destinations<'r, 'b> {
    fn new(reads: &'r mut [(u64, &'b mut [u8])]) -> Self {
        let mut sorted: Vec<(u64, &'r mut &'b mut [u8])> = reads
            .iter_mut()
            .filter(|(_, b)| !b.is_empty())
            .map(|(o, b)| (*o, b))
            .collect();
        sorted.sort_by_key(|(o, _)| *o);
        let mut most = 0;
        let ends_so_far = sorted
            .iter()
            .map(|(o, b)| {
                most = most.max(o + b.len() as u64);
                most
            })
            .collect();
        Destinations {
            reads: std::cell::RefCell::new(sorted),
            ends_so_far,
        }
    }

    /// Copies `bytes`, the file's bytes from `at`, into every read they overlap.
    fn put(&self, at: u64, bytes: &[u8]) {
        let end = at + bytes.len() as u64;
        let first = self.ends_so_far.partition_point(|&e| e <= at);
        let mut reads = self.reads.borrow_mut();
        for (offset, buf) in reads[first..].iter_mut() {
            if *offset >= end {
                break;
            }
            let from = at.max(*offset);
            let to = end.min(*offset + buf.len() as u64);
            if from < to {
                buf[(from - *offset) as usize..(to - *offset) as usize]
                    .copy_from_slice(&bytes[(from - at) as usize..(to - at) as usize]);
            }
        }
    }

    /// The file range of each read.
    fn ranges(&self) -> Vec<Range<u64>> {
        self.reads
            .borrow()
            .iter()
            .map(|(o, b)| *o..*o + b.len() as u64)
            .collect()
    }
}

impl ReadAt for HttpFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        self.read_ranges(&mut [(offset, buf)])
    }

    fn prefers_vectored(&self) -> bool {
        true
    }

    fn read_ranges(&self, reads: &mut [(u64, &mut [u8])]) -> Result<()> {
        self.fetch_into(&mut self.ends.serve(reads))
    }

    fn size(&self) -> Result<u64> {
        Ok(self.size)
    }

    fn name(&self) -> String {
        self.client.shown_url()
    }
}

/// True if `path` names a file to read over HTTP(S).
pub fn is_http_url(path: &str) -> bool {
    let lower = path.get(..8).unwrap_or(path).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}
