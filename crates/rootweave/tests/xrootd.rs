//! Reading over XRootD from a real server (Debian's `xrootd`, started here on 127.0.0.1 with
//! its HTTP plugin; scripts/test.sh installs it): every file of tests/data reads the same
//! over `root://` and over XrdHttp's `http://` as from disk; a read of more chunks than one
//! vector read may carry comes back whole; missing files and dead servers are errors naming
//! the URL.
#![cfg(all(feature = "xrootd", feature = "http"))]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::remote::{everything, free_port, is_root, same, test_files, wait_for_ports};
use rootweave::container::RootFile;
use rootweave::error::{Error, RemoteErrorKind};
use rootweave::io::xrootd::{XrootdFile, XrootdOptions};
use rootweave::io::ReadAt;

/// An XRootD server exporting a folder over `root://` (`ports.0`) and HTTP (`ports.1`).
struct Xrootd {
    child: Child,
    ports: (u16, u16),
    dir: PathBuf,
}

impl Drop for Xrootd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn start_xrootd(name: &str, root: &Path) -> Xrootd {
    let xrootd = ["/usr/bin/xrootd", "/usr/sbin/xrootd"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("xrootd is not installed (scripts/test.sh installs Debian's xrootd-server)");
    let dir = std::env::temp_dir().join(format!("rootweave-xrootd-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = root.canonicalize().unwrap();
    let ports = (free_port(), free_port());
    let d = dir.display();
    let config = format!(
        "xrd.port {}\nall.export /\noss.localroot {}\nall.adminpath {d}\nall.pidpath {d}\n\
         xrd.protocol XrdHttp:{} libXrdHttp.so\n",
        ports.0,
        root.display(),
        ports.1
    );
    let conf = dir.join("xrootd.cfg");
    std::fs::write(&conf, config).unwrap();
    let log = dir.join("xrootd.log");
    let mut command = Command::new(xrootd);
    command
        .arg("-c")
        .arg(&conf)
        .arg("-l")
        .arg(&log)
        .arg("-n")
        .arg(name)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // The server refuses to run as root: it then runs as nobody (the folders it serves
    // and its admin folder must be open to that user).
    if is_root() {
        command.arg("-R").arg("nobody");
        let _ = Command::new("chmod").arg("0777").arg(&dir).status();
    }
    let child = command.spawn().unwrap();
    wait_for_ports(&[ports.0, ports.1], &log.display().to_string());
    Xrootd { child, ports, dir }
}

fn root_url(server: &Xrootd, file: &str) -> String {
    format!("root://127.0.0.1:{}//{file}", server.ports.0)
}

fn quick() -> XrootdOptions {
    let mut options = XrootdOptions::default();
    options.retries = 1;
    options.backoff = Duration::from_millis(10);
    options.timeout = Duration::from_secs(20);
    options.connect_timeout = Duration::from_secs(2);
    options
}

/// A folder open to all (the server may run as nobody) holding copies of `files` of
/// tests/data.
fn served_copies(name: &str, files: &[String]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "rootweave-xrootd-{name}-data-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    for file in files {
        std::fs::copy(common::test_data(file), dir.join(file)).unwrap();
    }
    let _ = Command::new("chmod")
        .arg("-R")
        .arg("a+rX")
        .arg(&dir)
        .status();
    dir
}

#[test]
fn every_test_file_reads_the_same_over_root_and_xrdhttp() {
    let files = test_files();
    let served = served_copies("all", &files);
    let server = start_xrootd("all", &served);
    assert!(files.len() > 30);
    let mut read_fields = 0;
    for name in &files {
        let local = everything(RootFile::open(common::test_data(name)).unwrap());
        let remote = everything(RootFile::open(root_url(&server, name)).unwrap());
        same(&remote, &local, &format!("{name} over root://"));
        let http = format!("http://127.0.0.1:{}//{name}", server.ports.1);
        same(
            &everything(RootFile::open(&http).unwrap()),
            &local,
            &format!("{name} over XrdHttp"),
        );
        read_fields += local.iter().map(|(_, f)| f.len()).sum::<usize>();
    }
    assert!(read_fields > 300, "{read_fields}");
    let _ = std::fs::remove_dir_all(&served);
}

#[test]
fn reads_beyond_one_vector_read_come_back_whole() {
    // 8 MB of bytes that differ from place to place.
    let dir = std::env::temp_dir().join(format!("rootweave-xrootd-bytes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let local: Vec<u8> = (0..8_000_000u64)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(dir.join("bytes.bin"), &local).unwrap();
    let _ = Command::new("chmod")
        .arg("-R")
        .arg("a+rX")
        .arg(&dir)
        .status();
    let server = start_xrootd("spread", &dir);
    let file = XrootdFile::open(&root_url(&server, "bytes.bin"), quick()).unwrap();
    assert_eq!(file.size().unwrap(), local.len() as u64);
    let sent_at_open = file.requests();
    // 3,000 spread ranges past the kept first 64 kB (more than the 1,024 chunks of one
    // vector read) and one range of 5 MB (more than the 2 MB of one chunk), in one call.
    let mut ranges: Vec<(u64, usize)> = (0..3000).map(|i| (70_000 + i * 2011, 100)).collect();
    ranges.push((2_000_000, 5_000_000));
    let mut bufs: Vec<Vec<u8>> = ranges.iter().map(|&(_, n)| vec![0u8; n]).collect();
    let mut reads: Vec<(u64, &mut [u8])> = ranges
        .iter()
        .zip(bufs.iter_mut())
        .map(|(&(o, _), b)| (o, &mut b[..]))
        .collect();
    file.read_ranges(&mut reads).unwrap();
    for (&(offset, n), buf) in ranges.iter().zip(&bufs) {
        assert!(
            buf[..] == local[offset as usize..offset as usize + n],
            "at {offset}"
        );
    }
    // 3,003 chunks (the long range cut in three): three vector reads of at most 1,024.
    let sent = file.requests() - sent_at_open;
    assert_eq!(sent, 3, "vector reads");
    let data_server = file.data_server();
    assert!(
        data_server.contains(&server.ports.0.to_string()),
        "{data_server}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_files_and_dead_servers_are_named_errors() {
    let served = served_copies("errors", &[]);
    let server = start_xrootd("errors", &served);
    let missing = root_url(&server, "no-such-file.root");
    match XrootdFile::open(&missing, quick()) {
        Err(Error::Remote { url, kind, .. }) => {
            assert_eq!(url, missing);
            assert_eq!(kind, RemoteErrorKind::NotFound);
        }
        other => panic!("{other:?}"),
    }
    let with_token = format!("{}?authz=secret", root_url(&server, "no-such-file.root"));
    let message = RootFile::open(&with_token).unwrap_err().to_string();
    assert!(message.contains("no-such-file.root?..."), "{message}");
    assert!(!message.contains("secret"), "{message}");

    let dead = format!("root://127.0.0.1:{}//x.root", free_port());
    match XrootdFile::open(&dead, quick()) {
        Err(Error::Remote { url, kind, .. }) => {
            assert_eq!(url, dead);
            assert_eq!(kind, RemoteErrorKind::Network);
        }
        other => panic!("{other:?}"),
    }
}
