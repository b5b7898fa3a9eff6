//! Placing a sealed cluster in the file: the pages of all columns, column after column, in
//! blobs of at most the maximum key size. Identical pages within a cluster are stored once
//! and shared by their locators, as ROOT does ("same-page merging"): the offsets of several
//! collections of one length, for example, are often identical.
//!
//! Planning happens on the thread that sealed the cluster; reserving the byte ranges is a
//! cheap bookkeeping step (the parallel writer does it under its commit lock); writing the
//! bytes happens afterwards, outside any lock.

use std::collections::HashMap;

use crate::rntuple::checksum::xxh3_64;

use crate::container::{FileWriter, BLOB_KEY_LEN};
use crate::error::Result;

use super::builder::SealedCluster;
use super::metadata::{ClusterDescriptor, ClusterSummary, ColumnRange, PageLocation};

/// Where one page goes.
#[derive(Debug)]
struct PlannedPage {
    column: usize,
    /// The page's segment in its column, and its position (with its checksum) there.
    segment: usize,
    start: usize,
    /// Bytes of the page and its checksum.
    len: usize,
    place: Place,
}

#[derive(Debug, Clone, Copy)]
enum Place {
    /// In blob `blob` at `offset` from the start of its payload.
    Blob { blob: usize, offset: u64 },
    /// The same bytes as an earlier page of the plan.
    SameAs(usize),
}

/// The layout of a sealed cluster's pages in blobs.
#[derive(Debug)]
pub struct ClusterPlan {
    pages: Vec<PlannedPage>,
    blob_sizes: Vec<u64>,
    checksums: bool,
}

impl ClusterPlan {
    /// Lays out `cluster`'s pages in blobs of at most `max_key_size` bytes, sharing
    /// identical pages.
    pub fn new(cluster: &SealedCluster, checksums: bool, max_key_size: u64) -> Self {
        let checksum_len = if checksums { 8 } else { 0 };
        let mut pages: Vec<PlannedPage> = Vec::new();
        let mut blob_sizes: Vec<u64> = Vec::new();
        let mut seen: HashMap<(u64, usize), usize> = HashMap::new();
        for (column, sealed) in cluster.columns.iter().enumerate() {
            for page in &sealed.pages {
                let len = page.size as usize + checksum_len;
                let stored = sealed.stored(page, checksum_len);
                // With checksums the last 8 bytes already hash the page.
                let hash = if checksums {
                    u64::from_le_bytes(stored[len - 8..].try_into().expect("8 bytes"))
                } else {
                    xxh3_64(stored)
                };
                let same = seen.get(&(hash, len)).copied().filter(|&i| {
                    let p: &PlannedPage = &pages[i];
                    cluster.columns[p.column].segments[p.segment][p.start..p.start + p.len]
                        == *stored
                });
                let place = match same {
                    Some(original) => Place::SameAs(original),
                    None => {
                        let fits = blob_sizes
                            .last()
                            .is_some_and(|&size| size + len as u64 <= max_key_size);
                        if !fits {
                            blob_sizes.push(0);
                        }
                        let blob = blob_sizes.len() - 1;
                        let offset = blob_sizes[blob];
                        blob_sizes[blob] += len as u64;
                        seen.insert((hash, len), pages.len());
                        Place::Blob { blob, offset }
                    }
                };
                pages.push(PlannedPage {
                    column,
                    segment: page.segment,
                    start: page.start,
                    len,
                    place,
                });
            }
        }
        ClusterPlan {
            pages,
            blob_sizes,
            checksums,
        }
    }

    /// Reserves the blobs' byte ranges; returns the offset of each blob's key.
    pub fn allocate(&self, file: &FileWriter) -> Result<Vec<u64>> {
        self.blob_sizes
            .iter()
            .map(|&size| file.allocate_blob(size))
            .collect()
    }

    /// The cluster's page locations, given where its blobs' keys are and the index of
    /// each column's first element.
    pub fn describe(
        &self,
        cluster: &SealedCluster,
        blob_keys: &[u64],
        summary: ClusterSummary,
        first_elements: &[u64],
        compression: i32,
    ) -> ClusterDescriptor {
        let offsets = self.page_offsets(blob_keys);
        let mut ranges: Vec<ColumnRange> = cluster
            .columns
            .iter()
            .zip(first_elements)
            .map(|(c, &first_element)| ColumnRange {
                first_element,
                compression,
                pages: Vec::with_capacity(c.pages.len()),
            })
            .collect();
        let mut index = 0;
        for (column, sealed) in cluster.columns.iter().enumerate() {
            for page in &sealed.pages {
                ranges[column].pages.push(PageLocation {
                    n_elements: page.n_elements,
                    size: page.size,
                    offset: offsets[index],
                    has_checksum: self.checksums,
                });
                index += 1;
            }
        }
        ClusterDescriptor {
            summary,
            columns: ranges,
        }
    }

    fn page_offsets(&self, blob_keys: &[u64]) -> Vec<u64> {
        let mut offsets: Vec<u64> = Vec::with_capacity(self.pages.len());
        for page in &self.pages {
            let at = match page.place {
                Place::Blob { blob, offset } => blob_keys[blob] + BLOB_KEY_LEN + offset,
                Place::SameAs(original) => offsets[original],
            };
            offsets.push(at);
        }
        offsets
    }

    /// Writes the blobs' keys and pages (positional writes; call without holding locks).
    /// Neighbouring pages of one segment go out in one write.
    pub fn write(
        &self,
        file: &FileWriter,
        cluster: &SealedCluster,
        blob_keys: &[u64],
    ) -> Result<()> {
        for (&key, &size) in blob_keys.iter().zip(&self.blob_sizes) {
            file.write_blob_key(key, size, size)?;
        }
        let offsets = self.page_offsets(blob_keys);
        // ((column, segment), start, end, file offset) of the bytes waiting to be written.
        let mut run: Option<((usize, usize), usize, usize, u64)> = None;
        let write = |run: ((usize, usize), usize, usize, u64)| {
            let ((column, segment), start, end, at) = run;
            file.write_at(at, &cluster.columns[column].segments[segment][start..end])
        };
        for (page, &at) in self.pages.iter().zip(&offsets) {
            if matches!(page.place, Place::SameAs(_)) {
                continue;
            }
            match &mut run {
                Some((segment, start, end, run_at))
                    if *segment == (page.column, page.segment)
                        && *end == page.start
                        && *run_at + (*end - *start) as u64 == at =>
                {
                    *end += page.len;
                }
                _ => {
                    if let Some(done) = run.take() {
                        write(done)?;
                    }
                    run = Some((
                        (page.column, page.segment),
                        page.start,
                        page.start + page.len,
                        at,
                    ));
                }
            }
        }
        if let Some(done) = run {
            write(done)?;
        }
        Ok(())
    }
}
