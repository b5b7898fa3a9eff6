//! Helpers of the remote-reading tests: free ports for servers, and every readable value of
//! a file to compare a remote read with the local one.

use std::net::TcpListener;
use std::sync::Arc;

use rootweave::array::Array;
use rootweave::container::read_streamers;
use rootweave::container::RootFile;
use rootweave::rntuple::RNTupleReader;
use rootweave::ttree::{list_trees, TTreeReader};
use rootweave::ReadOptions;

/// A port of 127.0.0.1 free now, for a server to listen on.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until something listens on each port of 127.0.0.1 (at most 20 s), else fails
/// naming `log`.
pub fn wait_for_ports(ports: &[u16], log: &str) {
    for &port in ports {
        let started = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed().as_secs() < 20,
                "the server did not start: see {log}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// Stops a server with SIGTERM (nginx's master then stops its workers too) and waits.
pub fn terminate(child: &mut std::process::Child) {
    let _ = std::process::Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let _ = child.wait();
}

/// True when the tests run as root (servers then drop to another user, or are told not to).
pub fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// The `.root` files of tests/data, sorted.
pub fn test_files() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(super::test_data(""))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".root"))
        .collect();
    files.sort();
    files
}

/// Every RNTuple's and TTree's readable fields, read whole.
pub fn everything(file: RootFile) -> Vec<(String, Vec<(String, Array)>)> {
    let file = Arc::new(file);
    let mut out = Vec::new();
    let keys: Vec<_> = file.keys().to_vec();
    for key in keys.iter().filter(|k| k.class_name == "ROOT::RNTuple") {
        let name = format!("{};{}", key.name, key.cycle);
        let Ok(reader) = RNTupleReader::from_file(file.clone(), &name, ReadOptions::default())
        else {
            continue;
        };
        let fields = reader.field_names();
        let names: Vec<&str> = fields.iter().map(String::as_str).collect();
        let readable: Vec<&str> = names
            .iter()
            .copied()
            .filter(|f| reader.read(&[f], 0..1.min(reader.entries())).is_ok())
            .collect();
        out.push((name, reader.read(&readable, 0..reader.entries()).unwrap()));
    }
    let Ok(streamers) = read_streamers(&file) else {
        return out;
    };
    let streamers = Arc::new(streamers);
    for tree in list_trees(&file).unwrap_or_default() {
        let options = ReadOptions::default();
        let Ok(reader) = TTreeReader::from_file(file.clone(), streamers.clone(), &tree, options)
        else {
            continue;
        };
        let branches = reader.default_branches();
        let names: Vec<&str> = branches.iter().map(String::as_str).collect();
        out.push((tree, reader.read(&names, 0..reader.entries()).unwrap()));
    }
    out
}

/// Asserts equal reads, naming the first object and field that differs.
pub fn same(
    a: &[(String, Vec<(String, Array)>)],
    b: &[(String, Vec<(String, Array)>)],
    what: &str,
) {
    assert_eq!(a.len(), b.len(), "{what}: objects");
    for ((na, fa), (nb, fb)) in a.iter().zip(b) {
        assert_eq!(na, nb, "{what}");
        assert_eq!(fa.len(), fb.len(), "{what} {na}: fields");
        for ((xa, va), (xb, vb)) in fa.iter().zip(fb) {
            // NaN != NaN: arrays that differ are compared as printed.
            let equal = va == vb || format!("{va:?}") == format!("{vb:?}");
            assert!(xa == xb && equal, "{what}: {na} field {xa} differs");
        }
    }
}
