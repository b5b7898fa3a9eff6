//! How the HTTP source connects: timeouts, retries, request sizes, and the credentials
//! WLCG sites use (bearer tokens, X.509 proxies, the CA directory), found where their
//! conventions put them.

use std::path::PathBuf;
use std::time::Duration;

/// Settings of the HTTP source; [`HttpOptions::default`] reads the credentials from the
/// environment.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The longest wait for a connection.
    pub connect_timeout: Duration,
    /// The longest wait for the next bytes of a reply: a stalled server gives an error.
    pub stall_timeout: Duration,
    /// How many times a read's failed requests are tried again (connection errors,
    /// timeouts, 5xx), in all for the read: bytes arriving give none back, so a stalled
    /// server ends a read after `retries + 1` stall timeouts and the waits between.
    pub retries: u32,
    /// The wait before the first retry; each retry waits twice as long as the one before.
    pub backoff: Duration,
    /// The longest `Range` header sent (servers refuse headers beyond 4-8 kB).
    pub max_range_header: usize,
    /// Requests sent at once by one vectored read.
    pub in_flight: usize,
    /// Headers added to every request (`("X-Name", "value")`).
    pub headers: Vec<(String, String)>,
    /// A bearer token sent over HTTPS (`Authorization: Bearer ...`).
    pub bearer_token: Option<String>,
    /// An X.509 proxy (certificate, key and chain in PEM) presented to HTTPS servers.
    pub client_certificate: Option<PathBuf>,
    /// A directory of PEM files of certificate authorities trusted besides the system's.
    pub ca_directory: Option<PathBuf>,
}

impl Default for HttpOptions {
    /// Timeouts of 30 s (connect) and 60 s (stall), 4 retries from 0.5 s, Range headers of
    /// at most 3,900 bytes (ROOT's davix limit, under the common 4-8 kB header buffers), 8
    /// requests at once, and the settings of [`HttpOptions::with_environment`].
    fn default() -> Self {
        HttpOptions {
            connect_timeout: Duration::from_secs(30),
            stall_timeout: Duration::from_secs(60),
            retries: 4,
            backoff: Duration::from_millis(500),
            max_range_header: 3900,
            in_flight: 8,
            headers: Vec::new(),
            bearer_token: None,
            client_certificate: None,
            ca_directory: None,
        }
        .with_environment()
    }
}

impl HttpOptions {
    /// The settings of the environment: the credentials WLCG sites set up (the bearer token
    /// of `BEARER_TOKEN`, else of the file `BEARER_TOKEN_FILE`, else of
    /// `$XDG_RUNTIME_DIR/bt_u<uid>` or `/tmp/bt_u<uid>`; the X.509 proxy of
    /// `X509_USER_PROXY`, else `/tmp/x509up_u<uid>` if it exists; the CA directory
    /// `X509_CERT_DIR`), and `ROOTWEAVE_HTTP_TIMEOUT` (the stall timeout),
    /// `ROOTWEAVE_HTTP_CONNECT_TIMEOUT` (seconds) and `ROOTWEAVE_HTTP_RETRIES` where set
    /// (programs that take no options, such as the CLI and the Python package, are
    /// configured this way).
    pub fn with_environment(mut self) -> Self {
        use crate::io::environment::{count, seconds, text as var};
        if let Some(t) = seconds("ROOTWEAVE_HTTP_TIMEOUT") {
            self.stall_timeout = t;
        }
        if let Some(t) = seconds("ROOTWEAVE_HTTP_CONNECT_TIMEOUT") {
            self.connect_timeout = t;
        }
        if let Some(n) = count("ROOTWEAVE_HTTP_RETRIES") {
            self.retries = n;
        }
        let uid = user_id();
        let token_files = [
            var("BEARER_TOKEN_FILE").map(PathBuf::from),
            var("XDG_RUNTIME_DIR").map(|d| PathBuf::from(d).join(format!("bt_u{uid}"))),
            Some(PathBuf::from(format!("/tmp/bt_u{uid}"))),
        ];
        self.bearer_token = var("BEARER_TOKEN").or_else(|| {
            token_files.into_iter().flatten().find_map(|p| {
                std::fs::read_to_string(p)
                    .ok()
                    .map(|t| t.trim().to_string())
                    .filter(|t| !t.is_empty())
            })
        });
        self.client_certificate = var("X509_USER_PROXY").map(PathBuf::from).or_else(|| {
            let p = PathBuf::from(format!("/tmp/x509up_u{uid}"));
            p.exists().then_some(p)
        });
        self.ca_directory = var("X509_CERT_DIR").map(PathBuf::from);
        self
    }

    /// With a header added to every request.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// With the timeouts (connect, stall).
    pub fn with_timeouts(mut self, connect: Duration, stall: Duration) -> Self {
        self.connect_timeout = connect;
        self.stall_timeout = stall;
        self
    }

    /// With `retries` retries, the first after `backoff`.
    pub fn with_retries(mut self, retries: u32, backoff: Duration) -> Self {
        self.retries = retries;
        self.backoff = backoff;
        self
    }
}

fn user_id() -> u32 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getuid has no preconditions and cannot fail.
        unsafe { libc::getuid() }
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}
