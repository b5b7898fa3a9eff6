//! Parsing a cluster group's page list: each cluster's entry range and, per column, its
//! pages' sizes, locations and checksums, each checked against the file's size.

use super::{ClusterGroup, Descriptor};
use crate::error::Result;
use crate::rntuple::format::deserialize::LeReader;
use crate::rntuple::format::{ClusterInfo, ColumnPages, PageLocation};

impl Descriptor {
    pub(super) fn parse_page_list(
        &self,
        bytes: &[u8],
        group: &ClusterGroup,
        file_size: u64,
    ) -> Result<Vec<ClusterInfo>> {
        let object = format!("RNTuple '{}' page list", self.name);
        let body = &bytes[..bytes.len() - 8];
        let mut r = LeReader::new(body, self.origin(&object, group.info.page_list.offset));
        r.take(8)?;
        if r.u64()? != self.header_checksum {
            return Err(r.error("the page list belongs to another header (checksum mismatch)"));
        }
        let (summaries, n) = r.begin_list(16)?;
        let mut clusters = Vec::with_capacity(n);
        for _ in 0..n {
            let item = r.begin_record()?;
            let first_entry = r.u64()?;
            let word = r.u64()?;
            r.end_frame(item);
            let flags = word >> 56;
            if flags & 0x01 != 0 {
                return Err(r.error("sharded clusters are not supported"));
            }
            let n_entries = word & ((1 << 56) - 1);
            if first_entry.checked_add(n_entries).is_none() {
                return Err(r.error("cluster entry range overflows"));
            }
            clusters.push(ClusterInfo {
                first_entry,
                n_entries,
                columns: Vec::new(),
            });
        }
        r.end_frame(summaries);
        let (outer, n_items) = r.begin_list(12)?;
        if n_items != clusters.len() {
            return Err(r.error(format!(
                "{} cluster summaries but {n_items} page location lists",
                clusters.len()
            )));
        }
        for cluster in &mut clusters {
            let (columns, n_columns) = r.begin_list(12)?;
            if n_columns > self.columns.len() {
                return Err(r.error(format!(
                    "{n_columns} columns in the page list, the schema has {}",
                    self.columns.len()
                )));
            }
            cluster.columns = vec![None; self.columns.len()];
            for c in 0..n_columns {
                let (pages, n_pages) = r.begin_list(12)?;
                let mut list = Vec::with_capacity(n_pages);
                for _ in 0..n_pages {
                    let n = r.i32()?;
                    let (size, offset) = r.locator()?;
                    if offset.checked_add(size).is_none_or(|end| end > file_size) {
                        return Err(r.error(format!(
                            "page of {size} bytes at offset {offset} lies beyond the end of the file"
                        )));
                    }
                    list.push(PageLocation {
                        n_elements: n.unsigned_abs(),
                        size,
                        offset,
                        has_checksum: n < 0,
                    });
                }
                let first = r.i64()?;
                let suppressed = first < 0;
                let compression = if suppressed { 0 } else { r.u32()? };
                r.end_frame(pages);
                cluster.columns[c] = Some(ColumnPages {
                    first_element: if suppressed { 0 } else { first as u64 },
                    suppressed,
                    compression,
                    pages: list,
                });
            }
            r.end_frame(columns);
        }
        r.end_frame(outer);
        Ok(clusters)
    }
}
