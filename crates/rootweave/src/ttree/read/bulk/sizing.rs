//! How many values each basket part holds, found before anything is allocated: from
//! entry numbers for fixed-size branches, from basket headers for jagged ones, with
//! claims that a corrupt file could inflate checked against the stored bytes.

use std::collections::HashMap;

use rayon::prelude::*;

use super::plan::VECTOR_HEADER;
use super::{BulkContext, BulkField, INLINE_COUNTS, MAX_EXPANSION, TRUSTED_BYTES};
use crate::error::Result;
use crate::ttree::read::basket::{entry_offsets, parse_header, payload};

impl BulkContext<'_> {
    /// Whether a field's output (its entries' offsets, and `values` values when known)
    /// is plausible for its stored baskets.
    pub(super) fn claim_is_plausible(&self, f: &BulkField, values: Option<usize>) -> bool {
        let stored: u64 = f
            .parts
            .iter()
            .map(|(b, _)| {
                let info = &f.branch.baskets[*b];
                match info.embedded {
                    Some(e) => f.branch.embedded[e].data.len() as u64,
                    None => info.bytes as u64,
                }
            })
            .sum();
        let entries: u64 = f.parts.iter().map(|(_, w)| w.len() as u64).sum();
        let values = match values {
            Some(v) => v as u64,
            None if f.plan.jagged => 0,
            None => entries.saturating_mul(f.plan.width() as u64),
        };
        let offsets = if f.plan.jagged { entries } else { 0 };
        let claimed = values
            .saturating_mul(f.plan.prim.size() as u64)
            .saturating_add(offsets.saturating_mul(8));
        claimed <= TRUSTED_BYTES.max(stored.saturating_mul(MAX_EXPANSION))
    }

    /// Number of values each part of each field gives: from entry numbers for fixed-size
    /// entries; for jagged ones from the data length in the basket header (whole
    /// baskets) or the basket's entry offsets (parts of baskets).
    pub(super) fn value_counts(&self, fields: &[&BulkField]) -> Result<Vec<Vec<usize>>> {
        let work: Vec<(usize, usize)> = fields
            .iter()
            .enumerate()
            .flat_map(|(k, f)| (0..f.parts.len()).map(move |p| (k, p)))
            .collect();
        // A few small header reads cost less than handing them to the pool (a batch of
        // one cluster has a basket or two per branch).
        let heads = self.prefetched_heads(fields, &work)?;
        let counts: Vec<usize> = if work.len() <= INLINE_COUNTS {
            work.iter()
                .map(|&(k, p)| self.value_count(fields[k], p, &heads))
                .collect::<Result<_>>()?
        } else {
            self.pool.install(|| {
                work.par_iter()
                    .map(|&(k, p)| self.value_count(fields[k], p, &heads))
                    .collect::<Result<_>>()
            })?
        };
        let mut out = Vec::with_capacity(fields.len());
        let mut it = counts.into_iter();
        for f in fields {
            out.push(it.by_ref().take(f.parts.len()).collect());
        }
        Ok(out)
    }

    /// For a remote file, the bytes [`BulkContext::value_count`] reads of each stored
    /// basket of a jagged field (its header, or the whole record for part of a basket), in
    /// one vectored read, keyed by the basket's position; empty for local files.
    fn prefetched_heads(
        &self,
        fields: &[&BulkField],
        work: &[(usize, usize)],
    ) -> Result<HashMap<u64, Vec<u8>>> {
        if !self.file.source().prefers_vectored() {
            return Ok(HashMap::new());
        }
        let mut ranges: Vec<std::ops::Range<u64>> = work
            .iter()
            .filter(|&&(k, _)| fields[k].plan.jagged)
            .filter_map(|&(k, p)| {
                let (basket, within) = &fields[k].parts[p];
                let info = &fields[k].branch.baskets[*basket];
                let whole =
                    within.start == 0 && within.end as u64 == info.end_entry - info.first_entry;
                let len = if whole {
                    (info.bytes as u64).min(512)
                } else {
                    info.bytes as u64
                };
                info.embedded
                    .is_none()
                    .then_some(info.seek..info.seek + len)
            })
            .collect();
        ranges.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
        ranges.dedup_by_key(|r| r.start);
        self.file.read_many(ranges, "TTree basket headers")
    }

    pub(super) fn value_count(
        &self,
        f: &BulkField,
        part: usize,
        heads: &HashMap<u64, Vec<u8>>,
    ) -> Result<usize> {
        let (basket, within) = &f.parts[part];
        let width = f.plan.width();
        if !f.plan.jagged {
            return Ok(within.len() * width);
        }
        let unit = f.plan.unit_bytes();
        let info = &f.branch.baskets[*basket];
        let bytes = if let Some(e) = info.embedded {
            let e = &f.branch.embedded[e];
            let o = e.offsets.as_deref().unwrap_or(&[]);
            if within.end >= o.len() {
                return Err(self.corrupt(f.branch, *basket, "no entry offsets".into()));
            }
            o[within.end].saturating_sub(o[within.start])
        } else if within.start == 0 && within.end as u64 == info.end_entry - info.first_entry {
            let head_len = (info.bytes as u64).min(512);
            let head = match heads.get(&info.seek) {
                Some(head) if head.len() as u64 >= head_len => head[..head_len as usize].to_vec(),
                _ => self
                    .file
                    .read_at(info.seek, head_len, "TTree basket header")?,
            };
            let object = self.object(f.branch, *basket);
            let h = match parse_header(
                &head,
                info.seek,
                info.bytes as usize,
                self.file.name(),
                &object,
                within.len() as u64,
            ) {
                Ok(h) => h,
                // A key header longer than what was read: read the whole record.
                Err(_) if head_len < info.bytes as u64 => {
                    let record = self
                        .file
                        .read_at(info.seek, info.bytes as u64, "TTree basket")?;
                    parse_header(
                        &record,
                        info.seek,
                        info.bytes as usize,
                        self.file.name(),
                        &object,
                        within.len() as u64,
                    )?
                }
                Err(e) => return Err(e),
            };
            h.data_len
        } else {
            let record = match heads.get(&info.seek) {
                Some(record) if record.len() == info.bytes as usize => record.clone(),
                _ => self
                    .file
                    .read_at(info.seek, info.bytes as u64, "TTree basket")?,
            };
            let object = self.object(f.branch, *basket);
            let h = parse_header(
                &record,
                info.seek,
                record.len(),
                self.file.name(),
                &object,
                info.end_entry - info.first_entry,
            )?;
            let mut plain = Vec::new();
            let raw = payload(&record, &h, &mut plain, self.file.name(), &object)?;
            let mut o = Vec::new();
            entry_offsets(raw, &h, self.file.name(), &object, &mut o)?;
            o[within.end] - o[within.start]
        };
        let bytes = if f.plan.vector {
            bytes
                .checked_sub(VECTOR_HEADER * within.len())
                .ok_or_else(|| {
                    self.corrupt(
                        f.branch,
                        *basket,
                        format!("{bytes} bytes cannot hold {} vectors", within.len()),
                    )
                })?
        } else {
            bytes
        };
        if bytes % unit != 0 {
            return Err(self.corrupt(
                f.branch,
                *basket,
                format!("{bytes} bytes are not a whole number of {unit}-byte items"),
            ));
        }
        Ok(bytes / unit * width)
    }
}
