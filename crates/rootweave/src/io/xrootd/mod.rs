//! Files read over XRootD (`root://`, `roots://`): [`XrootdFile`] is a [`ReadAt`] over the
//! XRootD client library (XrdCl, through a small C++ bridge loaded when the first file opens), so every reader above it works
//! unchanged, with the library's redirects, authentication plugins and recovery.
//!
//! How reads are sent: a vectored read ([`ReadAt::read_ranges`]) becomes XRootD vector
//! reads: ranges longer than the server's `readv_ior_max` are cut, and the chunks grouped by
//! at most `readv_iov_max` and [`XrootdOptions::max_request_bytes`] per request; all
//! requests go out at once and are awaited together. The server's limits are asked when the
//! file opens, while its first and last 64 KiB are read (one round trip after the open).
//! Reads that fail for reasons worth another try (connection lost, operation expired,
//! server overloaded) are sent again with doubling waits.

#[cfg(rootweave_xrootd)]
mod bridge;
#[cfg(rootweave_xrootd)]
mod ffi;
#[cfg(not(rootweave_xrootd))]
mod missing;
#[cfg(not(rootweave_xrootd))]
use missing as ffi;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::file_ends::{FileEnds, END_BLOCK};
use super::ReadAt;
use crate::error::{Error, RemoteErrorKind, Result};

/// Settings of the XRootD source.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct XrootdOptions {
    /// The longest wait for an answer to one request.
    pub timeout: Duration,
    /// The longest time spent connecting to a server.
    pub connect_timeout: Duration,
    /// How many times a failed read is tried again.
    pub retries: u32,
    /// The wait before the first retry; each retry waits twice as long as the one before.
    pub backoff: Duration,
    /// The most bytes asked by one vector read (servers refuse reads near 2 GiB; smaller
    /// requests also arrive sooner and in parallel).
    pub max_request_bytes: u64,
}

impl Default for XrootdOptions {
    /// Timeouts of 60 s (request) and 30 s (connect), 4 retries from 0.5 s, requests of at
    /// most 32 MiB, and the settings of [`XrootdOptions::with_environment`].
    fn default() -> Self {
        XrootdOptions {
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(30),
            retries: 4,
            backoff: Duration::from_millis(500),
            max_request_bytes: 32 << 20,
        }
        .with_environment()
    }
}

impl XrootdOptions {
    /// The settings of the environment, where set: `ROOTWEAVE_XROOTD_TIMEOUT`,
    /// `ROOTWEAVE_XROOTD_CONNECT_TIMEOUT` (seconds) and `ROOTWEAVE_XROOTD_RETRIES`. The
    /// library's own `XRD_*` variables (authentication, `XRD_CONNECTIONWINDOW`, ...) apply
    /// too.
    pub fn with_environment(mut self) -> Self {
        use crate::io::environment::{count, seconds};
        if let Some(t) = seconds("ROOTWEAVE_XROOTD_TIMEOUT") {
            self.timeout = t;
        }
        if let Some(t) = seconds("ROOTWEAVE_XROOTD_CONNECT_TIMEOUT") {
            self.connect_timeout = t;
        }
        if let Some(n) = count("ROOTWEAVE_XROOTD_RETRIES") {
            self.retries = n;
        }
        self
    }
}

/// A failed call of the bridge: its kind and the library's message.
#[derive(Debug, Clone)]
struct Failure {
    /// 1 not found, 2 denied, 3 timed out, 4 network, 5 other, [`Failure::UNSUPPORTED`].
    kind: i32,
    message: String,
}

impl Failure {
    /// The kind of a build without the XRootD client library.
    const UNSUPPORTED: i32 = 6;

    /// True for failures that another try may cure.
    fn is_transient(&self) -> bool {
        matches!(self.kind, 3 | 4)
    }

    fn remote_kind(&self) -> RemoteErrorKind {
        match self.kind {
            1 => RemoteErrorKind::NotFound,
            2 => RemoteErrorKind::Denied,
            3 => RemoteErrorKind::TimedOut,
            4 => RemoteErrorKind::Network,
            _ => RemoteErrorKind::BadReply,
        }
    }
}

/// The server's limits of one vector read.
#[derive(Debug, Clone, Copy)]
struct Limits {
    /// Chunks per vector read (`readv_iov_max`).
    iov_max: u32,
    /// Bytes per chunk (`readv_ior_max`).
    ior_max: u32,
}

impl Default for Limits {
    /// The protocol's defaults, kept when a server does not say.
    fn default() -> Self {
        Limits {
            iov_max: 1024,
            ior_max: 2_097_136,
        }
    }
}

/// A file read over XRootD (see the module's description).
#[derive(Debug)]
pub struct XrootdFile {
    handle: ffi::Handle,
    shown: String,
    size: u64,
    limits: Limits,
    ends: FileEnds,
    options: XrootdOptions,
    requests: AtomicU64,
}

impl XrootdFile {
    /// Opens the file at `url` (`root://host[:port]//path`, `roots://`, `xroot://`): the
    /// open, then one round trip for its first and last 64 KiB and the server's limits.
    pub fn open(url: &str, options: XrootdOptions) -> Result<Self> {
        let shown = shown_url_of(url);
        let seconds = |d: Duration| d.as_secs().clamp(1, u16::MAX as u64) as u16;
        let mut attempt = 0;
        let opened = loop {
            match ffi::open(
                url,
                seconds(options.timeout),
                seconds(options.connect_timeout),
                END_BLOCK,
            ) {
                Ok(opened) => break opened,
                Err(f) if f.kind == Failure::UNSUPPORTED => {
                    return Err(Error::Unsupported {
                        file: shown,
                        what: f.message,
                    })
                }
                Err(f) if f.is_transient() && attempt < options.retries => {
                    std::thread::sleep(options.backoff * 2u32.saturating_pow(attempt));
                    attempt += 1;
                }
                Err(f) => return Err(remote_error(&shown, None, &f)),
            }
        };
        Ok(XrootdFile {
            handle: opened.handle,
            shown,
            size: opened.size,
            // At least 1 each: the bridge's open clamps them.
            limits: opened.limits,
            ends: FileEnds::from_layout(opened.size, opened.ends),
            options,
            requests: AtomicU64::new(2),
        })
    }

    /// The vector reads sent so far (the open's included, retries too).
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// The server that holds the file (after redirects), as the library names it.
    pub fn data_server(&self) -> String {
        self.handle.data_server()
    }

    /// Reads every range from the server in as few vector reads as the limits allow, all
    /// sent at once, again after transient failures.
    fn fetch_into(&self, reads: &mut [(u64, &mut [u8])]) -> Result<()> {
        for (offset, buf) in reads.iter() {
            if offset + buf.len() as u64 > self.size {
                return Err(remote_error(
                    &self.shown,
                    Some((*offset, offset + buf.len() as u64)),
                    &Failure {
                        kind: 5,
                        message: format!(
                            "the range runs past the end of the file ({} bytes)",
                            self.size
                        ),
                    },
                ));
            }
        }
        let mut chunks = split_chunks(reads, self.limits.ior_max as usize);
        if chunks.is_empty() {
            return Ok(());
        }
        let group_ends = group_chunks(
            &chunks,
            self.limits.iov_max as usize,
            self.options.max_request_bytes,
        );
        let mut attempt = 0;
        loop {
            self.requests
                .fetch_add(group_ends.len() as u64, Ordering::Relaxed);
            match self.handle.read_groups(&mut chunks, &group_ends) {
                Ok(()) => return Ok(()),
                Err(f) if f.is_transient() && attempt < self.options.retries => {
                    std::thread::sleep(self.options.backoff * 2u32.saturating_pow(attempt));
                    attempt += 1;
                }
                Err(f) => {
                    let first = chunks.iter().map(|(o, _)| *o).min().unwrap_or(0);
                    let last = chunks
                        .iter()
                        .map(|(o, b)| o + b.len() as u64)
                        .max()
                        .unwrap_or(0);
                    return Err(remote_error(&self.shown, Some((first, last)), &f));
                }
            }
        }
    }
}

impl ReadAt for XrootdFile {
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
        self.shown.clone()
    }
}

/// The reads as chunks of at most `max_len` bytes each (empty reads left out), in order.
fn split_chunks<'a>(reads: &'a mut [(u64, &mut [u8])], max_len: usize) -> Vec<(u64, &'a mut [u8])> {
    let max_len = max_len.max(1);
    let mut chunks = Vec::with_capacity(reads.len());
    for (offset, buf) in reads.iter_mut() {
        let mut at = *offset;
        let mut rest: &mut [u8] = buf;
        while !rest.is_empty() {
            let take = rest.len().min(max_len);
            let (piece, after) = rest.split_at_mut(take);
            chunks.push((at, piece));
            at += take as u64;
            rest = after;
        }
    }
    chunks
}

/// Where each vector read's chunks end: at most `max_chunks` chunks and (unless one chunk
/// alone is larger) `max_bytes` bytes per read.
fn group_chunks(chunks: &[(u64, &mut [u8])], max_chunks: usize, max_bytes: u64) -> Vec<usize> {
    let max_chunks = max_chunks.max(1);
    let mut ends = Vec::new();
    let (mut count, mut bytes) = (0usize, 0u64);
    for (i, (_, buf)) in chunks.iter().enumerate() {
        let len = buf.len() as u64;
        if count > 0 && (count == max_chunks || bytes + len > max_bytes) {
            ends.push(i);
            count = 0;
            bytes = 0;
        }
        count += 1;
        bytes += len;
    }
    if count > 0 {
        ends.push(chunks.len());
    }
    ends
}

fn remote_error(shown: &str, range: Option<(u64, u64)>, failure: &Failure) -> Error {
    Error::Remote {
        url: shown.to_string(),
        range,
        kind: failure.remote_kind(),
        what: failure.message.clone(),
    }
}

/// True if `path` names a file to read over XRootD.
pub fn is_xrootd_url(path: &str) -> bool {
    let lower = path.get(..8).unwrap_or(path).to_ascii_lowercase();
    ["root://", "roots://", "xroot://", "xroots://"]
        .iter()
        .any(|s| lower.starts_with(s))
}

/// The URL as shown in messages: without user and password, the query string as `?...`
/// (it may hold tokens such as EOS's `authz=`).
fn shown_url_of(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, _)) => (base, "?..."),
        None => (url, ""),
    };
    let Some((scheme, rest)) = base.split_once("://") else {
        return format!("{base}{query}");
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    format!("{scheme}://{host}{path}{query}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_credentials_or_tokens() {
        assert_eq!(
            shown_url_of("root://alice:secret@eos.cern.ch:1094//eos/f.root?authz=abc"),
            "root://eos.cern.ch:1094//eos/f.root?..."
        );
        assert_eq!(
            shown_url_of("root://host//a/b.root"),
            "root://host//a/b.root"
        );
        assert!(is_xrootd_url("ROOT://h//f") && is_xrootd_url("roots://h//f"));
        assert!(!is_xrootd_url("https://h/f") && !is_xrootd_url("rootfile.root"));
    }

    #[test]
    fn reads_are_cut_at_the_chunk_limit_and_grouped_within_both_limits() {
        let mut a = vec![0u8; 10];
        let mut b = vec![0u8; 3];
        let mut c = vec![0u8; 0];
        let mut reads: Vec<(u64, &mut [u8])> = vec![(100, &mut a), (7, &mut b), (50, &mut c)];
        let chunks = split_chunks(&mut reads, 4);
        let layout: Vec<(u64, usize)> = chunks.iter().map(|(o, b)| (*o, b.len())).collect();
        assert_eq!(layout, vec![(100, 4), (104, 4), (108, 2), (7, 3)]);
        assert_eq!(group_chunks(&chunks, 2, 1 << 20), vec![2, 4]);
        assert_eq!(group_chunks(&chunks, 10, 8), vec![2, 4]);
        assert_eq!(group_chunks(&chunks, 10, 3), vec![1, 2, 3, 4]);
        assert_eq!(group_chunks(&chunks, 10, 100), vec![4]);
        assert!(group_chunks(&[], 10, 100).is_empty());
    }
}
