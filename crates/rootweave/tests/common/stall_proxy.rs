//! A TCP proxy on 127.0.0.1 in front of a real server, for the stall tests: on every
//! connection it passes the server's first bytes up to a limit on, then passes nothing
//! more and holds the connection open (a server, load balancer or link that stalls); or it
//! passes everything, slowly, in small chunks with a pause after each (a slow link that
//! keeps going).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// How the proxy passes the server's replies on.
#[derive(Debug, Clone, Copy)]
pub enum Pass {
    /// The first `n` bytes of each connection, then nothing (the connection held open).
    Stall(u64),
    /// Everything, `chunk` bytes at a time with `pause` after each.
    Slow { chunk: usize, pause: Duration },
}

/// A running proxy; it stops accepting, and closes every connection it holds, when
/// dropped.
pub struct StallProxy {
    /// The port it listens on.
    pub port: u16,
    stop: Arc<AtomicBool>,
}

impl Drop for StallProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wakes the accepting thread up so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Starts a proxy to the server on 127.0.0.1:`upstream`.
pub fn start(upstream: u16, pass: Pass) -> StallProxy {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = stop.clone();
    thread::spawn(move || {
        for client in listener.incoming() {
            if stopping.load(Ordering::Relaxed) {
                break;
            }
            let (Ok(client), Ok(server)) = (client, TcpStream::connect(("127.0.0.1", upstream)))
            else {
                continue;
            };
            let (to_server, from_server) = (server.try_clone().unwrap(), server);
            let from_client = client.try_clone().unwrap();
            thread::spawn(move || pipe_requests(from_client, to_server));
            let stopping = stopping.clone();
            thread::spawn(move || pipe_replies(from_server, client, pass, &stopping));
        }
    });
    StallProxy { port, stop }
}

/// Passes the client's requests on as they come.
fn pipe_requests(mut from: TcpStream, mut to: TcpStream) {
    let _ = std::io::copy(&mut from, &mut to);
    let _ = to.shutdown(Shutdown::Write);
}

/// Passes the server's replies on as `pass` says; a stalled connection is held open (its
/// bytes no longer read) until the proxy stops.
fn pipe_replies(mut from: TcpStream, mut to: TcpStream, pass: Pass, stop: &AtomicBool) {
    let mut buf = vec![0u8; 16 << 10];
    let mut passed = 0u64;
    loop {
        let want = match pass {
            Pass::Stall(limit) if passed >= limit => {
                while !stop.load(Ordering::Relaxed) {
                    thread::sleep(Duration::from_millis(50));
                }
                return;
            }
            Pass::Stall(limit) => buf.len().min((limit - passed) as usize),
            Pass::Slow { chunk, .. } => buf.len().min(chunk),
        };
        let n = match from.read(&mut buf[..want]) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
        passed += n as u64;
        if let Pass::Slow { pause, .. } = pass {
            thread::sleep(pause);
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}
