//! Copying keyed records (baskets) from an input file to the output byte for byte: runs
//! of records that follow each other are read and written at once, and each record's key
//! header is pointed at its new place and directory.

use crate::container::{FileWriter, RootFile};
use crate::error::{Error, Result};

/// Offsets past this do not fit the 32-bit fields of a small key header.
const SMALL_KEY_LIMIT: u64 = i32::MAX as u64;

/// One record to copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// Its offset in the input.
    pub from: u64,
    /// Its bytes (key header and payload).
    pub len: u32,
    /// Its offset in the output.
    pub to: u64,
}

/// Records copied together: consecutive in the input and in the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The records, in file order.
    pub records: Vec<Record>,
}

impl Run {
    /// Bytes of the run.
    pub fn len(&self) -> u64 {
        self.records.iter().map(|r| r.len as u64).sum()
    }
}

/// Groups `records` (in input order) into runs of at most `most` bytes (a larger record
/// is a run of its own) that lie back to back in both files.
pub fn runs(records: &[Record], most: u64) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    let mut bytes = 0u64;
    for &r in records {
        let joins = out
            .last()
            .and_then(|run| run.records.last())
            .is_some_and(|last| {
                last.from + last.len as u64 == r.from
                    && last.to + last.len as u64 == r.to
                    && bytes + r.len as u64 <= most
            });
        if joins {
            out.last_mut().expect("a run").records.push(r);
            bytes += r.len as u64;
        } else {
            out.push(Run { records: vec![r] });
            bytes = r.len as u64;
        }
    }
    out
}

/// Copies `run` from `file` to `out`, each record's key header pointing at its new offset
/// and at the directory record at `seek_pdir`; `buf` is reused between runs. An error
/// names the input and the record whose header does not match its size.
pub fn copy_run(
    file: &RootFile,
    out: &FileWriter,
    run: &Run,
    seek_pdir: u64,
    buf: &mut Vec<u8>,
) -> Result<()> {
    let (Some(first), len) = (run.records.first(), run.len()) else {
        return Ok(());
    };
    buf.resize(len as usize, 0);
    file.read_into(first.from, buf, "basket records")?;
    let mut at = 0usize;
    for r in &run.records {
        repoint(&mut buf[at..at + r.len as usize], r.to, seek_pdir)
            .map_err(|m| Error::format(file.name(), "basket record", r.from, m))?;
        at += r.len as usize;
    }
    out.write_at(first.to, buf)
}

/// Points a record's key header at `seek` and `seek_pdir`; small headers whose 32-bit
/// fields cannot hold an offset get 0 there (readers find baskets through their
/// branch, never through these fields).
pub fn repoint(record: &mut [u8], seek: u64, seek_pdir: u64) -> Result<(), String> {
    let int = |b: &[u8], at: usize| i32::from_be_bytes(b[at..at + 4].try_into().expect("4"));
    if record.len() < 26 {
        return Err(format!(
            "record of {} bytes is shorter than a key",
            record.len()
        ));
    }
    let nbytes = int(record, 0);
    if nbytes as i64 != record.len() as i64 {
        return Err(format!(
            "key says {nbytes} bytes, the branch {} bytes",
            record.len()
        ));
    }
    let version = u16::from_be_bytes([record[4], record[5]]);
    if version > 1000 {
        if record.len() < 34 {
            return Err("record shorter than its key".into());
        }
        record[18..26].copy_from_slice(&seek.to_be_bytes());
        record[26..34].copy_from_slice(&seek_pdir.to_be_bytes());
    } else {
        let small = |v: u64| if v <= SMALL_KEY_LIMIT { v as u32 } else { 0 };
        record[18..22].copy_from_slice(&small(seek).to_be_bytes());
        record[22..26].copy_from_slice(&small(seek_pdir).to_be_bytes());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(from: u64, len: u32, to: u64) -> Record {
        Record { from, len, to }
    }

    #[test]
    fn runs_join_records_back_to_back_in_both_files() {
        let r = [
            rec(100, 10, 0),
            rec(110, 10, 10),
            rec(130, 5, 20),
            rec(135, 5, 25),
        ];
        let got = runs(&r, 1000);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].records, &r[..2]);
        assert_eq!(got[1].len(), 10);
        // A size limit splits a run.
        assert_eq!(runs(&r[..2], 15).len(), 2);
    }

    #[test]
    fn repoint_rewrites_small_and_big_headers() {
        let mut small = vec![0u8; 40];
        small[..4].copy_from_slice(&40i32.to_be_bytes());
        small[4..6].copy_from_slice(&4u16.to_be_bytes());
        repoint(&mut small, 1234, 100).unwrap();
        assert_eq!(&small[18..22], &1234u32.to_be_bytes());
        assert_eq!(&small[22..26], &100u32.to_be_bytes());
        repoint(&mut small, 3_000_000_000, 100).unwrap();
        assert_eq!(&small[18..22], &[0; 4]);
        let mut big = vec![0u8; 40];
        big[..4].copy_from_slice(&40i32.to_be_bytes());
        big[4..6].copy_from_slice(&1004u16.to_be_bytes());
        repoint(&mut big, 3_000_000_000, 100).unwrap();
        assert_eq!(&big[18..26], &3_000_000_000u64.to_be_bytes());
        assert!(repoint(&mut big[..30], 0, 0).is_err());
    }
}
