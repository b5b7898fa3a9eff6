//! The requests of one HTTP file: sending range requests, checking and splitting the
//! replies, retrying what failed, and the file's request mode (how many ranges the server
//! takes per request), learnt from its replies.

use std::cell::Cell;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use futures_util::stream::{self, StreamExt};
use reqwest::header::{CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, RANGE};

use super::options::HttpOptions;
use super::ranges::{
    multipart_boundary, parse_content_range, range_header, requests, MultipartReader,
};
use crate::error::{Error, RemoteErrorKind, Result};

/// What one request brought: the file's size if the reply told it, and the byte ranges
/// received whole (their bytes went to the sink as they came).
#[derive(Debug, Default)]
pub(super) struct Fetched {
    pub size: Option<u64>,
    pub parts: Vec<Range<u64>>,
}

/// Where the bytes of replies go as they arrive: `sink(file offset, bytes)`. Requests run
/// on the calling thread, so a sink may use a `RefCell`.
pub(super) type Sink<'a> = &'a dyn Fn(u64, &[u8]);

/// Why a request gave no bytes.
enum Failure {
    /// Worth trying again (connection errors, timeouts, 5xx).
    Retry(Error),
    /// The server wants fewer ranges per request (the mode was lowered).
    Smaller,
    /// No use trying again.
    Fatal(Error),
}

/// How the server takes ranges, as its replies showed.
#[derive(Debug, Clone, Copy)]
struct Mode {
    /// Ranges per request (1: single-range requests).
    max_ranges: usize,
    /// The server ignores Range and sends the whole file.
    whole_file: bool,
}

/// The retries of one read, shared by every request it sends (at once, and again in later
/// rounds): bytes arriving give none back, so a server that stalls every connection after
/// a little progress ends the read after [`HttpOptions::retries`] retries, each after one
/// stall timeout at most. Requests that fail while a retry is being waited for join it
/// (one outage of the server, one retry), so that a read of many requests at once does
/// not spend its budget on one outage. Requests run on the calling thread, hence `Cell`s.
struct Retries {
    left: Cell<u32>,
    /// The wait before the next retry (doubling, at most 30 s).
    wait: Cell<Duration>,
    /// When the retry being waited for starts.
    until: Cell<Option<Instant>>,
}

impl Retries {
    fn new(options: &HttpOptions) -> Self {
        Retries {
            left: Cell::new(options.retries),
            wait: Cell::new(options.backoff),
            until: Cell::new(None),
        }
    }

    /// After a failure worth retrying: waits until the read's next retry (the one waited
    /// for already, else a new one) and returns true; false if the read has none left.
    async fn next(&self) -> bool {
        let now = Instant::now();
        if let Some(until) = self.until.get().filter(|&u| now < u) {
            tokio::time::sleep_until(until).await;
            return true;
        }
        if self.left.get() == 0 {
            return false;
        }
        self.left.set(self.left.get() - 1);
        let until = now + self.wait.get();
        self.wait
            .set((self.wait.get() * 2).min(Duration::from_secs(30)));
        self.until.set(Some(until));
        tokio::time::sleep_until(until).await;
        true
    }
}

/// The connection side of an [`super::HttpFile`].
pub(super) struct Client {
    http: reqwest::Client,
    runtime: tokio::runtime::Runtime,
    url: Mutex<reqwest::Url>,
    shown: String,
    options: HttpOptions,
    mode: Mutex<Mode>,
    retried: AtomicU64,
}

impl Client {
    pub fn new(url: &str, options: HttpOptions) -> Result<Self> {
        let parsed = reqwest::Url::parse(url).map_err(|e| {
            Error::InvalidArgument(format!("{}: not a URL: {e}", shown_url_of(url)))
        })?;
        let shown = shown_url_of(url);
        let remote = |what: String| Error::Remote {
            url: shown.clone(),
            range: None,
            kind: RemoteErrorKind::Network,
            what,
        };
        let tls = tls_config(&options).map_err(remote)?;
        let http = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .connect_timeout(options.connect_timeout)
            .read_timeout(options.stall_timeout)
            .redirect(reqwest::redirect::Policy::limited(10))
            .build()
            .map_err(|e| remote(format!("cannot make an HTTP client: {e}")))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| remote(format!("cannot make an I/O runtime: {e}")))?;
        Ok(Client {
            http,
            runtime,
            url: Mutex::new(parsed),
            shown,
            options,
            mode: Mutex::new(Mode {
                max_ranges: usize::MAX,
                whole_file: false,
            }),
            retried: AtomicU64::new(0),
        })
    }

    /// The URL without credentials or query, for messages.
    pub fn shown_url(&self) -> String {
        self.shown.clone()
    }

    /// Requests sent again after a failure.
    pub fn retried(&self) -> u64 {
        self.retried.load(Ordering::Relaxed)
    }

    /// An error about this file.
    pub fn error(
        &self,
        range: Option<Range<u64>>,
        kind: RemoteErrorKind,
        what: impl Into<String>,
    ) -> Error {
        Error::Remote {
            url: self.shown.clone(),
            range: range.map(|r| (r.start, r.end)),
            kind,
            what: what.into(),
        }
    }

    fn mode(&self) -> Mode {
        *self.mode.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set_mode(&self, change: impl FnOnce(&mut Mode)) {
        change(&mut self.mode.lock().unwrap_or_else(|e| e.into_inner()));
    }

    /// One request for `ranges` (retried as needed), waiting for it; the bytes go to `sink`.
    pub fn fetch_blocking(
        &self,
        ranges: &[Range<u64>],
        size: Option<u64>,
        sink: Sink<'_>,
    ) -> Result<Fetched> {
        let retries = Retries::new(&self.options);
        self.runtime.block_on(async {
            match self.fetch_retrying(ranges, size, sink, &retries).await? {
                Some(f) => Ok(f),
                None => Err(self.error(
                    ranges.first().cloned(),
                    RemoteErrorKind::BadReply,
                    "the server refused the range",
                )),
            }
        })
    }

    /// All of `ranges` (sorted, disjoint) in as few requests as the mode allows, several
    /// at once, their bytes to `sink`; returns the replies and the number of requests. The
    /// read's requests share one budget of retries; the first request that fails for good
    /// ends the read (the others are dropped).
    pub fn fetch_all_blocking(
        &self,
        ranges: Vec<Range<u64>>,
        size: u64,
        sink: Sink<'_>,
    ) -> Result<(Vec<Fetched>, u64)> {
        let retries = Retries::new(&self.options);
        let retries = &retries;
        self.runtime.block_on(async {
            let mut pending = ranges;
            let mut got: Vec<Fetched> = Vec::new();
            let mut sent = 0u64;
            let mut rounds = 0;
            while !pending.is_empty() {
                rounds += 1;
                if rounds > 64 {
                    return Err(self.error(
                        pending.first().cloned(),
                        RemoteErrorKind::BadReply,
                        "the server does not send the ranges asked",
                    ));
                }
                let mode = self.mode();
                let groups = if mode.whole_file {
                    vec![pending.clone()]
                } else {
                    requests(&pending, mode.max_ranges, self.options.max_range_header)
                };
                sent += groups.len() as u64;
                let in_flight = self.options.in_flight.max(1);
                let mut replies = stream::iter(groups)
                    .map(
                        |g| async move { self.fetch_retrying(&g, Some(size), sink, retries).await },
                    )
                    .buffer_unordered(in_flight);
                while let Some(reply) = replies.next().await {
                    if let Some(f) = reply? {
                        got.push(f);
                    }
                }
                pending.retain(|r| {
                    !got.iter()
                        .any(|f| f.parts.iter().any(|p| p.start <= r.start && r.end <= p.end))
                });
            }
            Ok((got, sent))
        })
    }

    /// One request, tried again after failures worth retrying while the read's `retries`
    /// allow; `None` if the server wants fewer ranges per request (the mode is lowered,
    /// the caller asks again).
    async fn fetch_retrying(
        &self,
        ranges: &[Range<u64>],
        size: Option<u64>,
        sink: Sink<'_>,
        retries: &Retries,
    ) -> Result<Option<Fetched>> {
        loop {
            match self.fetch_once(ranges, size, sink).await {
                Ok(f) => return Ok(Some(f)),
                Err(Failure::Smaller) => return Ok(None),
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Retry(e)) => {
                    if !retries.next().await {
                        return Err(self.given_up(e));
                    }
                    self.retried.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }

    /// The last failure of a read that has no retry left, saying so.
    fn given_up(&self, e: Error) -> Error {
        match e {
            Error::Remote {
                url,
                range,
                kind,
                what,
            } => Error::Remote {
                url,
                range,
                kind,
                what: format!("{what} (after {} retries)", self.options.retries),
            },
            other => other,
        }
    }

    async fn fetch_once(
        &self,
        ranges: &[Range<u64>],
        size: Option<u64>,
        sink: Sink<'_>,
    ) -> std::result::Result<Fetched, Failure> {
        let span = ranges
            .first()
            .map(|r| r.start..ranges.last().map_or(r.end, |l| l.end));
        let url = self.url.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut request = self
            .http
            .get(url.clone())
            .header(RANGE, range_header(ranges));
        for (name, value) in &self.options.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        if let (Some(token), "https") = (&self.options.bearer_token, url.scheme()) {
            request = request.bearer_auth(token);
        }
        let response = request
            .send()
            .await
            .map_err(|e| self.network(span.clone(), e))?;
        if response.url() != &url {
            *self.url.lock().unwrap_or_else(|e| e.into_inner()) = response.url().clone();
        }
        let status = response.status().as_u16();
        let fatal = |kind, what: String| Failure::Fatal(self.error(span.clone(), kind, what));
        match status {
            206 => {
                self.partial(response, ranges, size, span.clone(), sink)
                    .await
            }
            200 => self.whole(response, ranges, span.clone(), sink).await,
            401 | 403 => Err(fatal(
                RemoteErrorKind::Denied,
                format!("HTTP {status}: access denied"),
            )),
            404 | 410 => Err(fatal(
                RemoteErrorKind::NotFound,
                format!("HTTP {status}: no such file"),
            )),
            400 | 413 | 414 | 416 | 431 | 500 if ranges.len() > 1 => {
                let n = ranges.len();
                self.set_mode(|m| m.max_ranges = m.max_ranges.min(n / 2).max(1));
                Err(Failure::Smaller)
            }
            408 | 429 | 500..=599 => Err(Failure::Retry(self.error(
                span,
                RemoteErrorKind::Network,
                format!("HTTP {status}"),
            ))),
            _ => Err(fatal(
                RemoteErrorKind::BadReply,
                format!("HTTP {status} to a range request"),
            )),
        }
    }

    /// A 206 reply: one part (`Content-Range`) or several (`multipart/byteranges`).
    async fn partial(
        &self,
        mut response: reqwest::Response,
        ranges: &[Range<u64>],
        size: Option<u64>,
        span: Option<Range<u64>>,
        sink: Sink<'_>,
    ) -> std::result::Result<Fetched, Failure> {
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let content_type = header(CONTENT_TYPE).unwrap_or_default();
        let content_range = header(CONTENT_RANGE);
        let bad = |what: String| {
            Failure::Retry(self.error(span.clone(), RemoteErrorKind::BadReply, what))
        };
        // No more than the span of the ranges asked for (a server may send it as one part)
        // and the parts' headers: a server cannot make the reader take more.
        let asked = span.as_ref().map_or(0, |s| s.end - s.start);
        let most = asked + 1024 * ranges.len() as u64 + 4096;
        let too_long = |length: u64| {
            Failure::Fatal(self.error(
                span.clone(),
                RemoteErrorKind::BadReply,
                format!("a reply of {length} bytes or more to a request for {asked}"),
            ))
        };
        if let Some(length) = header(CONTENT_LENGTH).and_then(|v| v.parse::<u64>().ok()) {
            if length > most {
                return Err(too_long(length));
            }
        }
        // Each chunk goes to the sink as it arrives (multipart: through the parser), and
        // is dropped, so that the connection's read buffer is reused.
        let mut fetched = Fetched::default();
        let mut received = 0u64;
        if let Some(boundary) = multipart_boundary(&content_type) {
            let mut reader = MultipartReader::new(&boundary);
            let mut to_sink = |at: u64, bytes: &[u8]| sink(at, bytes);
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| self.network(span.clone(), e))?
            {
                received += chunk.len() as u64;
                if received > most {
                    return Err(too_long(received));
                }
                reader
                    .feed(&chunk, &mut to_sink)
                    .map_err(|e| bad(format!("multipart reply: {e}")))?;
            }
            for (range, total) in reader
                .finish()
                .map_err(|e| bad(format!("multipart reply: {e}")))?
            {
                fetched.size = fetched.size.or(total);
                fetched.parts.push(range);
            }
        } else {
            let (range, total) = content_range
                .as_deref()
                .and_then(parse_content_range)
                .ok_or_else(|| bad("a 206 reply without a valid Content-Range".into()))?;
            let length = range.end - range.start;
            if length > most {
                return Err(too_long(length));
            }
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| self.network(span.clone(), e))?
            {
                if received + chunk.len() as u64 > length {
                    return Err(bad(format!("more bytes than the Content-Range's {length}")));
                }
                sink(range.start + received, &chunk);
                received += chunk.len() as u64;
            }
            if received != length {
                return Err(bad(format!(
                    "{received} bytes for a Content-Range of {length}"
                )));
            }
            fetched.size = total;
            fetched.parts.push(range);
            if ranges.len() > 1 {
                // Several ranges asked, one part sent: the server takes one range at a time.
                self.set_mode(|m| m.max_ranges = 1);
            }
        }
        if let (Some(known), Some(told)) = (size, fetched.size) {
            if known != told {
                return Err(Failure::Fatal(self.error(
                    span,
                    RemoteErrorKind::BadReply,
                    format!(
                        "the file is now {told} bytes, not {known}: it changed while being read"
                    ),
                )));
            }
        }
        Ok(fetched)
    }

    /// A 200 reply (the server ignored Range): the asked ranges taken from the body as it
    /// streams past; the rest is not read.
    async fn whole(
        &self,
        mut response: reqwest::Response,
        ranges: &[Range<u64>],
        span: Option<Range<u64>>,
        sink: Sink<'_>,
    ) -> std::result::Result<Fetched, Failure> {
        self.set_mode(|m| m.whole_file = true);
        let size = response
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        let end = ranges.iter().map(|r| r.end).max().unwrap_or(0);
        let end = size.map_or(end, |s| end.min(s));
        let mut at = 0u64;
        let mut ended = false;
        while at < end {
            let chunk = match response
                .chunk()
                .await
                .map_err(|e| self.network(span.clone(), e))?
            {
                Some(c) => c,
                None => {
                    ended = true;
                    break;
                }
            };
            let chunk_range = at..at + chunk.len() as u64;
            for r in ranges {
                let from = r.start.max(chunk_range.start);
                let to = r.end.min(chunk_range.end);
                if from < to {
                    sink(from, &chunk[(from - at) as usize..(to - at) as usize]);
                }
            }
            at = chunk_range.end;
        }
        Ok(Fetched {
            size: size.or(ended.then_some(at)),
            // The ranges (cut at the end of the file) whose bytes all came.
            parts: ranges
                .iter()
                .map(|r| r.start..r.end.min(end))
                .filter(|r| r.start < r.end && r.end <= at)
                .collect(),
        })
    }

    /// A failed connection or reply: retried. The message leaves the URL out (it may hold
    /// tokens in its query; the error names the file's URL without them).
    fn network(&self, span: Option<Range<u64>>, e: reqwest::Error) -> Failure {
        let kind = if e.is_timeout() {
            RemoteErrorKind::TimedOut
        } else {
            RemoteErrorKind::Network
        };
        let e = e.without_url();
        let mut what = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            what.push_str(&format!(": {s}"));
            source = s.source();
        }
        Failure::Retry(self.error(span, kind, what))
    }
}

/// `url` without user name, password or query (which may hold tokens).
pub(super) fn shown_url_of(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            let had_query = u.query().is_some();
            u.set_query(None);
            let mut s = u.to_string();
            if had_query {
                s.push_str("?...");
            }
            s
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or(url).to_string(),
    }
}

/// The TLS settings: the system's certificate authorities and those of
/// [`HttpOptions::ca_directory`], and the client certificate if one is given.
fn tls_config(options: &HttpOptions) -> std::result::Result<rustls::ClientConfig, String> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_native_certs::load_native_certs().certs {
        let _ = roots.add(cert);
    }
    if let Some(dir) = &options.ca_directory {
        let entries =
            std::fs::read_dir(dir).map_err(|e| format!("CA directory {}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            if let Ok(certs) = CertificateDer::pem_file_iter(entry.path()) {
                for cert in certs.flatten() {
                    let _ = roots.add(cert);
                }
            }
        }
    }
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots);
    match &options.client_certificate {
        Some(path) => {
            let what =
                |e: &dyn std::fmt::Display| format!("client certificate {}: {e}", path.display());
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .map_err(|e| what(&e))?
                .collect::<std::result::Result<_, _>>()
                .map_err(|e| what(&e))?;
            let key = PrivateKeyDer::from_pem_file(path).map_err(|e| what(&e))?;
            builder
                .with_client_auth_cert(certs, key)
                .map_err(|e| what(&e))
        }
        None => Ok(builder.with_no_client_auth()),
    }
}
