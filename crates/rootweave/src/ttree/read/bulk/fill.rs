//! Fetching baskets in coalesced chunks and decoding them into their slices of the
//! output, on the reader's threads.

use std::ops::Range;

use super::convert::convert;
use super::entries::{item_ends, item_ends_from_table, vectors, EntryBytes};
use super::{BulkContext, BulkField, Scratch, Task};
use crate::error::Result;
use crate::io::coalesce;
use crate::parallel::pool::chunk_size;
use crate::ttree::read::basket::{entry_offsets, parse_header, payload};

impl BulkContext<'_> {
    /// Groups baskets (sorted by position) into chunks read with one call each.
    pub(super) fn chunks<'t>(
        &self,
        fields: &[&BulkField],
        tasks: Vec<Task<'t>>,
    ) -> Vec<(Range<u64>, Vec<Task<'t>>)> {
        let stored: u64 = tasks
            .iter()
            .map(|t| fields[t.field].branch.baskets[t.basket].bytes as u64)
            .sum();
        let chunk_bytes = chunk_size(stored, self.pool.current_num_threads(), self.chunk_bytes);
        let items = tasks.into_iter().map(|t| {
            let b = &fields[t.field].branch.baskets[t.basket];
            (b.seek..b.seek + b.bytes as u64, t)
        });
        coalesce(items, chunk_bytes, |_| false)
    }

    /// Decodes the baskets of one chunk: its bytes `prefetched` (a remote file's) or read
    /// here into the thread's scratch buffer.
    pub(super) fn decode_chunk(
        &self,
        fields: &[&BulkField],
        range: Range<u64>,
        tasks: Vec<Task>,
        prefetched: Option<&[u8]>,
        scratch: &mut Scratch,
    ) -> Result<()> {
        let len = (range.end - range.start) as usize;
        let fetched = match prefetched {
            Some(bytes) if bytes.len() == len => bytes,
            _ => {
                if scratch.fetch.len() < len {
                    scratch.fetch.resize(len, 0);
                }
                self.file
                    .read_into(range.start, &mut scratch.fetch[..len], "TTree baskets")?;
                &scratch.fetch[..len]
            }
        };
        for mut t in tasks {
            let f = &fields[t.field];
            let info = &f.branch.baskets[t.basket];
            let at = (info.seek - range.start) as usize;
            let record = &fetched[at..at + info.bytes as usize];
            let object = self.object(f.branch, t.basket);
            let h = parse_header(
                record,
                info.seek,
                record.len(),
                self.file.name(),
                &object,
                info.end_entry - info.first_entry,
            )?;
            let raw = payload(record, &h, &mut scratch.plain, self.file.name(), &object)?;
            if f.plan.jagged && !f.plan.vector {
                // Counter-indexed arrays: item ends straight from the entry-offset table.
                self.fill_counted(f, &mut t, raw, &h)?;
                continue;
            }
            let offsets = if f.plan.jagged {
                entry_offsets(raw, &h, self.file.name(), &object, &mut scratch.offsets)?;
                Some(&scratch.offsets[..])
            } else {
                None
            };
            self.fill(f, &mut t, &raw[..h.data_len], offsets)?;
        }
        // Keep what a usual chunk needs, not what an outsized basket needed.
        const KEEP: usize = 16 << 20;
        for v in [&mut scratch.fetch, &mut scratch.plain] {
            if v.len() > KEEP {
                *v = Vec::new();
            }
        }
        Ok(())
    }

    /// Converts entries `t.within` of a counter-indexed branch's basket (payload `raw`,
    /// headers `h`) into the task's slices: each entry's end as an item index is computed
    /// from the entry-offset table in one pass, with its checks (inside the data part,
    /// increasing, whole items) gathered rather than branched on.
    pub(super) fn fill_counted(
        &self,
        f: &BulkField,
        t: &mut Task,
        raw: &[u8],
        h: &crate::ttree::read::basket::BasketHeader,
    ) -> Result<()> {
        let bad = |m: String| self.corrupt(f.branch, t.basket, m);
        let (n, border, keylen) = (h.entries, h.data_len, h.keylen as i64);
        let table = raw.get(border..).unwrap_or(&[]);
        if table.len() < 4 + 4 * n
            || (i32::from_be_bytes([table[0], table[1], table[2], table[3]]) as i64) < n as i64
        {
            return Err(bad(format!(
                "entry-offset table of {} bytes for {n} entries",
                table.len()
            )));
        }
        if t.within.end > n {
            return Err(bad(format!("entry {} of a basket of {n}", t.within.end)));
        }
        let at = |i: usize| -> i64 {
            if i == n {
                border as i64
            } else {
                let c = &table[4 + 4 * i..8 + 4 * i];
                i32::from_be_bytes([c[0], c[1], c[2], c[3]]) as i64 - keylen
            }
        };
        let (start, end) = (at(t.within.start), at(t.within.end));
        if start < 0 || start > end || end > border as i64 {
            return Err(bad(format!(
                "entries span bytes {start}..{end} of a {border}-byte basket"
            )));
        }
        let Some((ends, base)) = t.offsets.as_mut() else {
            return Err(bad("no offsets for a jagged branch".into()));
        };
        let unit = f.plan.unit_bytes() as i64;
        if ends.len() != t.within.len() {
            return Err(bad(format!(
                "{} entries for {} offsets",
                t.within.len(),
                ends.len()
            )));
        }
        // The entries' ends come from the table, but the basket's last entry's, which is
        // the border (not in the table).
        let in_table = t
            .within
            .len()
            .saturating_sub(usize::from(t.within.end == n));
        let first = 4 + 4 * (t.within.start + 1);
        let (from_table, at_border) = ends.split_at_mut(in_table);
        // No end in the table: `first` may be past it.
        let table_ends = match in_table {
            0 => &[][..],
            _ => table
                .get(first..first + 4 * in_table)
                .ok_or_else(|| bad(format!("entries {:?} of a basket of {n}", t.within)))?,
        };
        let (previous, mut wrong) = item_ends_from_table(
            table_ends,
            EntryBytes {
                keylen,
                start,
                end,
                unit,
            },
            *base,
            from_table,
        );
        if let Some(last) = at_border.first_mut() {
            let d = border as i64 - start;
            wrong |= (border as i64 - previous) | (end - border as i64) | -(d % unit);
            *last = base.wrapping_add((d / unit) as u64);
        }
        if wrong < 0 {
            return Err(bad(format!(
                "entry offsets that decrease, leave the data part or split an item of {unit} bytes"
            )));
        }
        let bytes = &raw[start as usize..end as usize];
        if bytes.len() != t.values.len() * f.plan.prim.size() {
            return Err(bad(format!(
                "{} bytes of values where {} values were expected",
                bytes.len(),
                t.values.len()
            )));
        }
        convert(bytes, &mut t.values, 0);
        Ok(())
    }

    pub(super) fn decode_embedded(&self, fields: &[&BulkField], t: &mut Task) -> Result<()> {
        let f = &fields[t.field];
        let e = &f.branch.embedded[f.branch.baskets[t.basket].embedded.expect("embedded")];
        if (e.entries as usize) < t.within.end {
            return Err(self.corrupt(
                f.branch,
                t.basket,
                format!("entry {} of a basket of {}", t.within.end, e.entries),
            ));
        }
        self.fill(f, t, &e.data, e.offsets.as_deref())
    }

    /// Converts a basket's entries `t.within` (data part `data`, entry offsets `offsets`
    /// for jagged branches) into the task's slices.
    pub(super) fn fill(
        &self,
        f: &BulkField,
        t: &mut Task,
        data: &[u8],
        offsets: Option<&[usize]>,
    ) -> Result<()> {
        let unit = f.plan.unit_bytes();
        let size = f.plan.prim.size();
        let bad = |m: String| self.corrupt(f.branch, t.basket, m);
        let bytes = match (&mut t.offsets, offsets) {
            (None, _) => {
                let (from, to) = (t.within.start * unit, t.within.end * unit);
                data.get(from..to).ok_or_else(|| {
                    bad(format!(
                        "entries {}..{} of {unit} bytes need {to} bytes, the basket holds {}",
                        t.within.start,
                        t.within.end,
                        data.len()
                    ))
                })?
            }
            (Some((ends, base)), Some(o)) => {
                if t.within.end >= o.len() {
                    return Err(bad(format!(
                        "entry {} but the basket has {} entry offsets",
                        t.within.end,
                        o.len()
                    )));
                }
                let start = o[t.within.start];
                if f.plan.vector {
                    let (ends, base) = (&mut **ends, *base);
                    return vectors(
                        data,
                        &o[t.within.start..=t.within.end],
                        unit,
                        size,
                        base,
                        ends,
                        &mut t.values,
                    )
                    .map_err(bad);
                }
                let entries = &o[t.within.start + 1..=t.within.end];
                item_ends(entries, start, unit, *base, ends).map_err(bad)?;
                let end = o[t.within.end];
                data.get(start..end).ok_or_else(|| {
                    bad(format!(
                        "entries span bytes {start}..{end} of a {}-byte basket",
                        data.len()
                    ))
                })?
            }
            (Some(_), None) => {
                return Err(bad(
                    "variable-size entries but the basket has no entry offsets".into(),
                ))
            }
        };
        if bytes.len() != t.values.len() * size {
            return Err(bad(format!(
                "{} bytes of values where {} values were expected",
                bytes.len(),
                t.values.len()
            )));
        }
        convert(bytes, &mut t.values, 0);
        Ok(())
    }
}
