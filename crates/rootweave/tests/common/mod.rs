//! Helpers shared by the integration tests: where the test data is, and comparing arrays.
//! Each test crate uses a part of them.
#![allow(dead_code)]

pub mod remote;
pub mod stall_proxy;

use std::path::PathBuf;

use rootweave::array::Array;

/// The file `name` of the repository's test data (`tests/data`: real ROOT files, see its
/// README); the folder itself for an empty name.
pub fn test_data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
}

/// The file `name` of the conformance corpus (the scikit-hep-testdata set beside the
/// checkout, or `$ROOTWEAVE_CORPUS`), or `None` with a notice when it is absent.
pub fn corpus_file(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("ROOTWEAVE_CORPUS").map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../../shared/corpus/scikit-hep-testdata")
        },
        PathBuf::from,
    );
    let path = dir.join(name);
    if !path.exists() {
        eprintln!(
            "skipped: {name} of the conformance corpus is not at {}",
            dir.display()
        );
        return None;
    }
    Some(path)
}

/// The same array with every number changed (offsets too), as stale memory would hold.
pub fn poisoned(array: &Array) -> Array {
    fn p<T: Copy>(v: &[T], bad: T) -> Vec<T> {
        vec![bad; v.len()]
    }
    match array {
        Array::Bool(v) => Array::Bool(p(v, true)),
        Array::Int8(v) => Array::Int8(p(v, -91)),
        Array::Int16(v) => Array::Int16(p(v, -9191)),
        Array::Int32(v) => Array::Int32(p(v, -919191)),
        Array::Int64(v) => Array::Int64(p(v, -91919191)),
        Array::UInt8(v) => Array::UInt8(p(v, 0x5a)),
        Array::UInt16(v) => Array::UInt16(p(v, 0x5a5a)),
        Array::UInt32(v) => Array::UInt32(p(v, 0x5a5a5a)),
        Array::UInt64(v) => Array::UInt64(p(v, 0x5a5a5a5a)),
        Array::Float32(v) => Array::Float32(p(v, -9.5e9)),
        Array::Float64(v) => Array::Float64(p(v, -9.5e99)),
        Array::String { offsets, bytes } => Array::String {
            offsets: p(offsets, 77),
            bytes: p(bytes, b'#'),
        },
        Array::List { offsets, values } => Array::List {
            offsets: p(offsets, 77),
            values: Box::new(poisoned(values)),
        },
        Array::Optional { offsets, values } => Array::Optional {
            offsets: p(offsets, 77),
            values: Box::new(poisoned(values)),
        },
        Array::Fixed { size, values } => Array::Fixed {
            size: *size,
            values: Box::new(poisoned(values)),
        },
        Array::Record { len, fields } => Array::Record {
            len: *len,
            fields: fields
                .iter()
                .map(|(n, a)| (n.clone(), poisoned(a)))
                .collect(),
        },
        Array::Variant {
            tags,
            index,
            alternatives,
        } => Array::Variant {
            tags: p(tags, 9),
            index: p(index, 77),
            alternatives: alternatives.iter().map(poisoned).collect(),
        },
    }
}

/// Asserts that two arrays are the same (NaN equal to NaN), showing where they differ.
pub fn same_arrays(got: &Array, want: &Array, what: &str) {
    let (g, w) = (format!("{got:?}"), format!("{want:?}"));
    if g != w {
        let at = g.bytes().zip(w.bytes()).take_while(|(a, b)| a == b).count();
        let from = at.saturating_sub(60);
        panic!(
            "{what}: got ...{}... want ...{}...",
            &g[from..(at + 40).min(g.len())],
            &w[from..(at + 40).min(w.len())]
        );
    }
}

/// A file in memory that reads like a remote one: the readers gather their ranges into
/// vectored reads; it counts them, and the single reads.
pub struct Vectored {
    inner: rootweave::io::MemoryFile,
    vectored_reads: std::sync::atomic::AtomicUsize,
    single_reads: std::sync::atomic::AtomicUsize,
}

impl Vectored {
    /// A file of these bytes.
    pub fn new(bytes: Vec<u8>) -> Self {
        Vectored {
            inner: rootweave::io::MemoryFile::from_bytes(bytes),
            vectored_reads: Default::default(),
            single_reads: Default::default(),
        }
    }

    /// The vectored reads so far.
    pub fn vectored_reads(&self) -> usize {
        self.vectored_reads
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The single reads so far.
    pub fn single_reads(&self) -> usize {
        self.single_reads.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl rootweave::io::ReadAt for Vectored {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> rootweave::Result<()> {
        self.single_reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.read_exact_at(buf, offset)
    }
    fn size(&self) -> rootweave::Result<u64> {
        self.inner.size()
    }
    fn name(&self) -> String {
        "vectored".to_string()
    }
    fn prefers_vectored(&self) -> bool {
        true
    }
    fn read_ranges(&self, reads: &mut [(u64, &mut [u8])]) -> rootweave::Result<()> {
        self.vectored_reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.read_ranges(reads)
    }
}
