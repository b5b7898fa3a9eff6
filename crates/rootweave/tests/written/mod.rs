//! Helpers shared by the writer tests: files written in memory, and where their pages
//! landed, read back through the reader's descriptor.

use std::sync::Arc;

use rootweave::container::{FileWriter, RootFile, WriterOptions};
use rootweave::io::MemoryFile;
use rootweave::rntuple::format::{ColumnPages, PageLocation};
use rootweave::rntuple::{RNTupleReader, ReadOptions};

/// A file written into memory: the memory, and the writer (which can read back).
pub fn file_in_memory(name: &str) -> (Arc<MemoryFile>, Arc<FileWriter>) {
    let memory = Arc::new(MemoryFile::new());
    let file = FileWriter::with_backend(memory.clone(), name, WriterOptions::default()).unwrap();
    (memory, Arc::new(file))
}

/// A reader of the RNTuple `ntuple` in a file's bytes, and the file offsets of the pages
/// of each column (by physical ID) in each cluster.
pub fn page_offsets(bytes: Vec<u8>, ntuple: &str) -> (RNTupleReader, Vec<Vec<Vec<u64>>>) {
    pages_by_cluster(bytes, ntuple, |page| page.offset)
}

/// A reader of the RNTuple `ntuple` in a file's bytes, and `of(page)` for the pages of
/// each column (by physical ID) in each cluster.
#[allow(dead_code)] // each test crate uses the helpers it needs
pub fn pages_by_cluster<T>(
    bytes: Vec<u8>,
    ntuple: &str,
    of: impl Fn(&PageLocation) -> T,
) -> (RNTupleReader, Vec<Vec<Vec<T>>>) {
    let root = RootFile::from_source(Arc::new(MemoryFile::from_bytes(bytes))).unwrap();
    let reader = RNTupleReader::from_file(Arc::new(root), ntuple, ReadOptions::default()).unwrap();
    let clusters = reader.descriptor().all_clusters(reader.file()).unwrap();
    let pages = clusters
        .iter()
        .map(|cluster| {
            let column_pages = |pages: &Option<ColumnPages>| -> Vec<T> {
                let pages = pages.as_ref().expect("a page range for every column");
                pages.pages.iter().map(&of).collect()
            };
            cluster.columns.iter().map(column_pages).collect()
        })
        .collect();
    (reader, pages)
}
