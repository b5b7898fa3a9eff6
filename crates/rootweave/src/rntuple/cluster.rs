//! Writing a sealed cluster: the pages of all columns, column after column, in blobs of at
//! most the maximum key size. Identical pages within the cluster are stored once and
//! shared by their locators, as ROOT does ("same-page merging"): the offsets of several
//! collections of one length, for example, are often identical.

use std::collections::HashMap;

use xxhash_rust::xxh3::xxh3_64;

use crate::container::FileWriter;
use crate::error::Result;

use super::metadata::{ClusterDescriptor, ClusterSummary, ColumnRange, PageLocation};
use super::page::ColumnBuffer;

/// Where one page goes.
struct PlannedPage {
    column: usize,
    /// Position of the page (and its checksum) in the column's sealed bytes.
    start: usize,
    /// Bytes of the page and its checksum.
    len: usize,
    /// The blob it is written to and its offset there, or the earlier identical page.
    place: Place,
}

enum Place {
    Blob { blob: usize, offset: u64 },
    SameAs(usize),
}

/// Writes the sealed pages of `columns` and returns the cluster's page locations.
pub fn write_cluster(
    file: &FileWriter,
    columns: &[ColumnBuffer],
    summary: ClusterSummary,
    compression: i32,
    checksums: bool,
    max_key_size: u64,
) -> Result<ClusterDescriptor> {
    let checksum_len = if checksums { 8 } else { 0 };
    let mut plan: Vec<PlannedPage> = Vec::new();
    let mut blob_sizes: Vec<u64> = vec![0];
    let mut seen: HashMap<(u64, usize), usize> = HashMap::new();
    for (column, buffer) in columns.iter().enumerate() {
        let (pages, bytes) = buffer.sealed_pages();
        let mut start = 0usize;
        for page in pages {
            let len = page.size as usize + checksum_len;
            let stored = &bytes[start..start + len];
            // With checksums the last 8 bytes already hash the page.
            let hash = if checksums {
                u64::from_le_bytes(stored[len - 8..].try_into().expect("8 bytes"))
            } else {
                xxh3_64(stored)
            };
            let same = seen.get(&(hash, len)).copied().filter(|&i| {
                let p = &plan[i];
                columns[p.column].sealed_pages().1[p.start..p.start + p.len] == *stored
            });
            let place = match same {
                Some(original) => Place::SameAs(original),
                None => {
                    let mut blob = blob_sizes.len() - 1;
                    if blob_sizes[blob] + len as u64 > max_key_size && blob_sizes[blob] > 0 {
                        blob_sizes.push(0);
                        blob += 1;
                    }
                    let offset = blob_sizes[blob];
                    blob_sizes[blob] += len as u64;
                    seen.insert((hash, len), plan.len());
                    Place::Blob { blob, offset }
                }
            };
            plan.push(PlannedPage {
                column,
                start,
                len,
                place,
            });
            start += len;
        }
    }

    // Reserve each blob, then write its pages, merging neighbours of one column into one
    // write.
    let mut blob_offsets = Vec::with_capacity(blob_sizes.len());
    for &size in &blob_sizes {
        blob_offsets.push(if size > 0 {
            file.reserve_blob(size, size)?
        } else {
            0
        });
    }
    let mut pending: Option<(usize, usize, usize, u64)> = None; // column, start, end, file offset
    let flush = |p: &mut Option<(usize, usize, usize, u64)>| -> Result<()> {
        if let Some((column, start, end, at)) = p.take() {
            file.write_at(at, &columns[column].sealed_pages().1[start..end])?;
        }
        Ok(())
    };
    let mut file_offsets = Vec::with_capacity(plan.len());
    for page in &plan {
        let at = match page.place {
            Place::Blob { blob, offset } => blob_offsets[blob] + offset,
            Place::SameAs(original) => {
                file_offsets.push(file_offsets[original]);
                continue;
            }
        };
        file_offsets.push(at);
        match &mut pending {
            Some((column, start, end, run_at))
                if *column == page.column
                    && *end == page.start
                    && *run_at + (*end - *start) as u64 == at =>
            {
                *end += page.len;
            }
            _ => {
                flush(&mut pending)?;
                pending = Some((page.column, page.start, page.start + page.len, at));
            }
        }
    }
    flush(&mut pending)?;

    let mut ranges: Vec<ColumnRange> = columns
        .iter()
        .map(|c| ColumnRange {
            first_element: c.first_element(),
            compression,
            pages: Vec::with_capacity(c.sealed_pages().0.len()),
        })
        .collect();
    let mut index = 0;
    for (column, buffer) in columns.iter().enumerate() {
        for page in buffer.sealed_pages().0 {
            ranges[column].pages.push(PageLocation {
                n_elements: page.n_elements,
                size: page.size,
                offset: file_offsets[index],
                has_checksum: checksums,
            });
            index += 1;
        }
    }
    Ok(ClusterDescriptor {
        summary,
        columns: ranges,
    })
}
