//! Reading over HTTP from a real server (nginx, started here on 127.0.0.1; scripts/test.sh
//! installs it): every file of tests/data reads the same over `http://` as from disk, with
//! nginx as it comes, ignoring Range (200 with the whole file), refusing long Range
//! headers, and behind a redirect; a missing file is an error naming the URL. (Faults a
//! server does not make on its own are injected by tests/python/test_remote.py's proxy.)
#![cfg(feature = "http")]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Arc;

use common::remote::{everything, free_port, same, terminate, test_files, wait_for_ports};
use rootweave::array::Array;
use rootweave::container::read_streamers;
use rootweave::container::RootFile;
use rootweave::error::{Error, RemoteErrorKind};
use rootweave::io::http::{HttpFile, HttpOptions};
use rootweave::io::ReadAt;
use rootweave::ttree::TTreeReader;
use rootweave::ReadOptions;

/// nginx serving tests/data on four ports: as it comes, ignoring Range (`max_ranges 0`),
/// with 1 kB header buffers (long Range headers refused), and one redirecting to the first.
struct Nginx {
    child: Child,
    ports: [u16; 4],
    _dir: PathBuf,
}

impl Drop for Nginx {
    /// Stops nginx with SIGTERM, so that its master stops the workers too.
    fn drop(&mut self) {
        terminate(&mut self.child);
    }
}

fn start_nginx(name: &str) -> Nginx {
    start_nginx_at(name, &common::test_data(""))
}

fn start_nginx_at(name: &str, root: &Path) -> Nginx {
    let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("nginx is not installed (scripts/test.sh installs Debian's nginx-light)");
    let dir = std::env::temp_dir().join(format!("rootweave-nginx-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = root.canonicalize().unwrap();
    let ports = [free_port(), free_port(), free_port(), free_port()];
    let d = dir.display();
    let server = |port: u16, extra: &str| {
        format!(
            "server {{ listen 127.0.0.1:{port}; root {}; {extra} }}\n",
            root.display()
        )
    };
    let config = format!(
        "daemon off; worker_processes 1; pid {d}/nginx.pid; error_log {d}/error.log;\n\
         events {{ worker_connections 256; }}\n\
         http {{ access_log {d}/access.log; client_body_temp_path {d}/body; proxy_temp_path {d}/proxy;\n\
         fastcgi_temp_path {d}/fastcgi; uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;\n\
         {}{}{}{} }}\n",
        server(ports[0], ""),
        server(ports[1], "max_ranges 0;"),
        server(ports[2], "large_client_header_buffers 2 1k;"),
        server(
            ports[3],
            &format!("location / {{ return 302 http://127.0.0.1:{}$request_uri; }}", ports[0])
        ),
    );
    let conf = dir.join("nginx.conf");
    std::fs::write(&conf, config).unwrap();
    let child = Command::new(nginx)
        .arg("-c")
        .arg(&conf)
        .arg("-p")
        .arg(&dir)
        .spawn()
        .unwrap();
    wait_for_ports(&ports, &format!("{d}/error.log"));
    Nginx {
        child,
        ports,
        _dir: dir,
    }
}

fn url(port: u16, file: &str) -> String {
    format!("http://127.0.0.1:{port}/{file}")
}

fn quick() -> HttpOptions {
    HttpOptions::default().with_retries(1, std::time::Duration::from_millis(10))
}

#[test]
fn every_test_file_reads_the_same_over_http() {
    let nginx = start_nginx("all");
    let files = test_files();
    assert!(files.len() > 30);
    let mut read_fields = 0;
    for (i, name) in files.iter().enumerate() {
        let local = everything(RootFile::open(common::test_data(name)).unwrap());
        // Alternately nginx as it comes and one ignoring Range.
        let port = nginx.ports[i % 2];
        let remote = everything(RootFile::open(url(port, name)).unwrap());
        same(&remote, &local, &format!("{name} on port {port}"));
        read_fields += local.iter().map(|(_, f)| f.len()).sum::<usize>();
    }
    assert!(read_fields > 300, "{read_fields}");
}

/// 100 bytes at each offset, in one vectored read.
fn read_spread(file: &HttpFile, offsets: &[u64]) -> Vec<Vec<u8>> {
    let mut bufs: Vec<Vec<u8>> = offsets.iter().map(|_| vec![0u8; 100]).collect();
    let mut reads: Vec<(u64, &mut [u8])> = offsets
        .iter()
        .zip(bufs.iter_mut())
        .map(|(&o, b)| (o, &mut b[..]))
        .collect();
    file.read_ranges(&mut reads).unwrap();
    bufs
}

#[test]
fn servers_refusing_long_range_lists_get_shorter_ones() {
    let nginx = start_nginx("ranges");
    let name = "uproot-HZZ-uncompressed.root";
    let local = std::fs::read(common::test_data(name)).unwrap();
    let file = HttpFile::open(&url(nginx.ports[2], name), quick()).unwrap();
    // 400 ranges of 100 bytes, 300 bytes apart: Range headers of several kB, which this
    // server refuses (400), so the requests are halved until they pass.
    let offsets: Vec<u64> = (0..400).map(|i| 70_000 + i * 300).collect();
    let bufs = read_spread(&file, &offsets);
    for (o, b) in offsets.iter().zip(&bufs) {
        assert_eq!(&b[..], &local[*o as usize..*o as usize + 100]);
    }
    // The same through the server that takes any header: fewer requests.
    let fast = HttpFile::open(&url(nginx.ports[0], name), quick()).unwrap();
    let before = fast.requests();
    assert_eq!(read_spread(&fast, &offsets), bufs);
    assert!(
        fast.requests() - before < 20,
        "{}",
        fast.requests() - before
    );
}

#[test]
fn redirects_are_followed_and_missing_files_named() {
    let nginx = start_nginx("redirect");
    let name = "uproot-HZZ.root";
    let local = everything(RootFile::open(common::test_data(name)).unwrap());
    let remote = everything(RootFile::open(url(nginx.ports[3], name)).unwrap());
    same(&remote, &local, "redirected");
    let missing = url(nginx.ports[0], "no-such-file.root?authz=secret");
    match HttpFile::open(&missing, quick()) {
        Err(
            e @ Error::Remote {
                kind: RemoteErrorKind::NotFound,
                ..
            },
        ) => {
            let text = e.to_string();
            assert!(text.contains("no-such-file.root"), "{text}");
            assert!(text.contains("404"), "{text}");
            assert!(!text.contains("secret"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    let refused = format!("http://127.0.0.1:{}/x.root", free_port());
    assert!(matches!(
        HttpFile::open(&refused, quick()),
        Err(Error::Remote {
            kind: RemoteErrorKind::Network,
            ..
        })
    ));
}

#[test]
fn a_field_far_apart_is_read_in_few_requests() {
    use rootweave::array::{ColumnData, LeafType};
    use rootweave::ttree::{BranchSpec, TTreeWriteOptions, TTreeWriter};
    let dir = std::env::temp_dir().join(format!("rootweave-http-spread-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let n = 200_000;
    let columns: Vec<Vec<f64>> = (0..4)
        .map(|k| (0..n).map(|i| (i * 7 + k) as f64).collect())
        .collect();
    let mut branches: Vec<BranchSpec> = ["a", "b", "c", "d"]
        .iter()
        .map(|b| BranchSpec::scalar(b, LeafType::Float64))
        .collect();
    // A jagged branch too: its value counts come from the basket headers.
    branches.push(BranchSpec::vector("v", LeafType::Float32));
    let offsets: Vec<u64> = (0..=n as u64).map(|i| i / 2 * 3 + i % 2).collect();
    let items: Vec<f32> = (0..offsets[n] as usize).map(|i| i as f32).collect();
    let options = TTreeWriteOptions::default().with_basket_size(16000);
    let zlib = rootweave::compress::Compression::ROOT_FILE_DEFAULT;
    let mut tree =
        TTreeWriter::recreate(dir.join("spread.root"), "t", branches, zlib, options).unwrap();
    let mut batch: Vec<ColumnData> = columns.iter().map(|c| ColumnData::Float64(c)).collect();
    batch.push(ColumnData::list(&offsets, ColumnData::Float32(&items)));
    tree.extend(&batch).unwrap();
    tree.close().unwrap();

    let nginx = start_nginx_at("spread", &dir);
    let source = Arc::new(HttpFile::open(&url(nginx.ports[0], "spread.root"), quick()).unwrap());
    let file = Arc::new(RootFile::from_source(source.clone()).unwrap());
    let streamers = Arc::new(read_streamers(&file).unwrap());
    let reader = TTreeReader::from_file(file, streamers, "t", ReadOptions::default()).unwrap();
    let before = source.requests();
    let read = reader.read(&["b"], 0..n as u64).unwrap();
    assert_eq!(read[0].1, Array::Float64(columns[1].clone()));
    let baskets = reader.meta().find("b").unwrap().baskets.len();
    let requests = source.requests() - before;
    assert!(
        baskets > 100 && requests <= 3,
        "{baskets} baskets in {requests} requests"
    );
}

/// A file `big.root` in a directory of its own holding RNTuple `Events` of 1.2 million
/// doubles that do not compress (9.6 MB), and the values.
fn big_file(name: &str) -> (PathBuf, Vec<f64>) {
    use rootweave::array::ColumnData;
    use rootweave::compress::Compression;
    use rootweave::rntuple::{Field, FieldType, RNTupleWriteOptions, RNTupleWriter};
    let dir = std::env::temp_dir().join(format!("rootweave-http-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let values: Vec<f64> = (0..1_200_000)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64
        })
        .collect();
    let options = RNTupleWriteOptions::default().with_compression(Compression::NONE);
    let fields = vec![Field::new("x", FieldType::Float64)];
    let mut writer =
        RNTupleWriter::recreate(dir.join("big.root"), "Events", fields, options).unwrap();
    writer.extend(&[ColumnData::Float64(&values)]).unwrap();
    writer.close().unwrap();
    (dir, values)
}

/// Reads `x` of `Events` at `url` whole.
fn read_big(url: &str, options: HttpOptions) -> rootweave::Result<Array> {
    use rootweave::rntuple::RNTupleReader;
    let file = RootFile::from_source(Arc::new(HttpFile::open(url, options)?))?;
    let reader = RNTupleReader::from_file(Arc::new(file), "Events", ReadOptions::default())?;
    Ok(reader.read(&["x"], 0..reader.entries())?.remove(0).1)
}

#[test]
fn a_server_stalling_every_connection_fails_the_read_within_the_bound() {
    use common::stall_proxy::{start, Pass};
    use std::time::{Duration, Instant};
    let (dir, _) = big_file("stall");
    let nginx = start_nginx_at("stall", &dir);
    // Every connection stops after 300 kB and is held open: each retry makes a little
    // progress on a new connection, then stalls again.
    let proxy = start(nginx.ports[0], Pass::Stall(300 << 10));
    let url = url(proxy.port, "big.root");
    let (stall, retries, backoff) = (Duration::from_secs(2), 2, Duration::from_millis(100));
    let options = HttpOptions::default()
        .with_timeouts(Duration::from_secs(5), stall)
        .with_retries(retries, backoff);
    let started = Instant::now();
    let error = read_big(&url, options).unwrap_err();
    let took = started.elapsed();
    assert!(
        matches!(
            error,
            Error::Remote {
                kind: RemoteErrorKind::TimedOut,
                ..
            }
        ),
        "{error}"
    );
    let text = error.to_string();
    assert!(
        text.contains(&url) && text.contains("after 2 retries"),
        "{text}"
    );
    // The bound of docs/remote.md: the read's 3 stalls of 2 s and the waits of 0.1 and
    // 0.2 s between them, 6.3 s; 4 s more for a slow machine, less than a second read
    // started after the failed one would take.
    let bound = stall * (retries + 1) + backoff * 3;
    assert!(took < bound + Duration::from_secs(4), "{took:?}: {text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_slow_server_that_keeps_sending_is_read_whole() {
    use common::stall_proxy::{start, Pass};
    use std::time::{Duration, Instant};
    let (dir, values) = big_file("slow");
    let nginx = start_nginx_at("slow", &dir);
    // 32 KiB every 10 ms: the read takes seconds, several times the stall bound (1 s, one
    // retry), yet no pause comes near the stall timeout.
    let pass = Pass::Slow {
        chunk: 32 << 10,
        pause: Duration::from_millis(10),
    };
    let proxy = start(nginx.ports[0], pass);
    let options = HttpOptions::default()
        .with_timeouts(Duration::from_secs(5), Duration::from_secs(1))
        .with_retries(1, Duration::from_millis(100));
    let started = Instant::now();
    let read = read_big(&url(proxy.port, "big.root"), options).unwrap();
    assert!(
        started.elapsed() > Duration::from_millis(2500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(read, Array::Float64(values));
    std::fs::remove_dir_all(&dir).unwrap();
}
