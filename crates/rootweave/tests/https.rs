//! Reading over HTTPS from nginx (started here on 127.0.0.1) with certificates made for the
//! test by `openssl` (a certificate authority, a server and a client certificate): the CA
//! directory is trusted, a bearer token is sent (and only over HTTPS), an X.509 proxy is
//! presented as client certificate; without them the errors name the URL.
#![cfg(feature = "http")]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::remote::{everything, free_port, is_root, same, terminate, wait_for_ports};
use rootweave::container::RootFile;
use rootweave::error::{Error, RemoteErrorKind};
use rootweave::io::http::{HttpFile, HttpOptions};
use std::sync::Arc;

const TOKEN: &str = "token-of-the-test";
const FILE: &str = "uproot-HZZ.root";

/// nginx on three ports of 127.0.0.1: HTTPS asking a bearer token, HTTPS asking a client
/// certificate, and plain HTTP asking a bearer token.
struct TlsNginx {
    child: Child,
    ports: [u16; 3],
    dir: PathBuf,
}

impl Drop for TlsNginx {
    fn drop(&mut self) {
        terminate(&mut self.child);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn openssl(dir: &Path, args: &[&str]) {
    let status = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("openssl is not installed (scripts/test.sh installs it)");
    assert!(status.success(), "openssl {args:?}");
}

/// A CA (`ca/ca.pem`), a server certificate for 127.0.0.1 and a client one (cert, key and
/// CA in one PEM, as an X.509 proxy is), all signed by the CA.
fn make_certificates(dir: &Path) {
    std::fs::create_dir_all(dir.join("ca")).unwrap();
    let days = ["-days", "2"];
    openssl(
        dir,
        &[
            &[
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key",
            ][..],
            &["-out", "ca/ca.pem", "-subj", "/CN=rootweave test CA"],
            &days,
        ]
        .concat(),
    );
    // Version 3 certificates, as real ones (and X.509 proxies) are.
    std::fs::write(dir.join("server.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    std::fs::write(dir.join("client.ext"), "extendedKeyUsage=clientAuth\n").unwrap();
    for name in ["server", "client"] {
        let key = format!("{name}.key");
        let csr = format!("{name}.csr");
        let pem = format!("{name}.pem");
        let subject = format!("/CN={name}");
        openssl(
            dir,
            &[
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", &key, "-out", &csr, "-subj",
                &subject,
            ],
        );
        let ext = format!("{name}.ext");
        let sign = [
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            "ca/ca.pem",
            "-CAkey",
            "ca.key",
            "-out",
            &pem,
            "-set_serial",
            "7",
            "-days",
            "2",
            "-extfile",
            &ext,
        ];
        openssl(dir, &sign);
    }
    let proxy = [
        std::fs::read_to_string(dir.join("client.pem")).unwrap(),
        std::fs::read_to_string(dir.join("client.key")).unwrap(),
    ]
    .concat();
    std::fs::write(dir.join("proxy.pem"), proxy).unwrap();
}

fn start() -> TlsNginx {
    let dir = std::env::temp_dir().join(format!("rootweave-https-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    make_certificates(&dir);
    let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("nginx is not installed (scripts/test.sh installs Debian's nginx-light)");
    let root = common::test_data("").canonicalize().unwrap();
    let ports = [free_port(), free_port(), free_port()];
    let d = dir.display();
    let tls = format!("ssl_certificate {d}/server.pem; ssl_certificate_key {d}/server.key;");
    let token = format!(
        "location / {{ if ($http_authorization != \"Bearer {TOKEN}\") {{ return 401; }} }}"
    );
    let user = if is_root() { "user root;" } else { "" };
    let config = format!(
        "daemon off; worker_processes 1; pid {d}/nginx.pid; error_log {d}/error.log; {user}\n\
         events {{ worker_connections 64; }}\n\
         http {{ access_log {d}/access.log; client_body_temp_path {d}/body; proxy_temp_path {d}/proxy;\n\
         fastcgi_temp_path {d}/fastcgi; uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;\n\
         server {{ listen 127.0.0.1:{p0} ssl; root {r}; {tls} {token} }}\n\
         server {{ listen 127.0.0.1:{p1} ssl; root {r}; {tls} ssl_client_certificate {d}/ca/ca.pem; ssl_verify_client on; }}\n\
         server {{ listen 127.0.0.1:{p2}; root {r}; {token} }} }}\n",
        p0 = ports[0],
        p1 = ports[1],
        p2 = ports[2],
        r = root.display(),
    );
    std::fs::write(dir.join("nginx.conf"), config).unwrap();
    let child = Command::new(nginx)
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .arg("-p")
        .arg(&dir)
        .spawn()
        .unwrap();
    wait_for_ports(&ports, &format!("{d}/error.log"));
    TlsNginx { child, ports, dir }
}

/// Settings without anything from the environment, one quick retry.
fn bare() -> HttpOptions {
    let mut options = HttpOptions::default().with_retries(1, std::time::Duration::from_millis(10));
    options.bearer_token = None;
    options.client_certificate = None;
    options.ca_directory = None;
    options
}

fn open(url: &str, options: HttpOptions) -> rootweave::Result<RootFile> {
    RootFile::from_source(Arc::new(HttpFile::open(url, options)?))
}

fn remote_kind(result: rootweave::Result<RootFile>, url: &str) -> RemoteErrorKind {
    match result {
        Err(Error::Remote {
            url: shown, kind, ..
        }) => {
            assert_eq!(shown, url);
            kind
        }
        other => panic!("{url}: {other:?}"),
    }
}

#[test]
fn https_with_a_token_a_client_certificate_and_a_ca_directory() {
    let nginx = start();
    let local = everything(RootFile::open(common::test_data(FILE)).unwrap());
    let trusting = || {
        let mut o = bare();
        o.ca_directory = Some(nginx.dir.join("ca"));
        o
    };

    // A bearer token over HTTPS.
    let token_url = format!("https://127.0.0.1:{}/{FILE}", nginx.ports[0]);
    let mut with_token = trusting();
    with_token.bearer_token = Some(TOKEN.into());
    same(
        &everything(open(&token_url, with_token).unwrap()),
        &local,
        "with a token",
    );
    assert_eq!(
        remote_kind(open(&token_url, trusting()), &token_url),
        RemoteErrorKind::Denied
    );
    // The server's certificate is not trusted without the CA directory.
    let mut untrusting = bare();
    untrusting.bearer_token = Some(TOKEN.into());
    assert_eq!(
        remote_kind(open(&token_url, untrusting), &token_url),
        RemoteErrorKind::Network
    );

    // An X.509 proxy as client certificate.
    let cert_url = format!("https://127.0.0.1:{}/{FILE}", nginx.ports[1]);
    let mut with_cert = trusting();
    with_cert.client_certificate = Some(nginx.dir.join("proxy.pem"));
    same(
        &everything(open(&cert_url, with_cert).unwrap()),
        &local,
        "with a client certificate",
    );
    assert!(open(&cert_url, trusting()).is_err());

    // The token is never sent over plain HTTP.
    let plain_url = format!("http://127.0.0.1:{}/{FILE}", nginx.ports[2]);
    let mut plain = bare();
    plain.bearer_token = Some(TOKEN.into());
    assert_eq!(
        remote_kind(open(&plain_url, plain), &plain_url),
        RemoteErrorKind::Denied
    );
}
