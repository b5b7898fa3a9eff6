//! Copying keyed records (baskets) from an input file to the output byte for byte: runs
//! of records that follow each other are read and written at once, and each record's key
//! header is pointed at its new place and directory.

use crate::compress::{compress_frames_into, declared_len, decompress, Compression, Frames};
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

/// Records compressed again: consecutive in the input, at most `most` bytes in all (a
/// larger record alone); each group is `(first, end)` indexes into `records`.
pub fn groups(records: &[Record], most: u64) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut bytes = 0u64;
    for (i, r) in records.iter().enumerate() {
        let joins = out.last().is_some_and(|&(_, end)| {
            let last = records[end - 1];
            last.from + last.len as u64 == r.from && bytes + r.len as u64 <= most
        });
        if joins {
            out.last_mut().expect("a group").1 = i + 1;
            bytes += r.len as u64;
        } else {
            out.push((i, i + 1));
            bytes = r.len as u64;
        }
    }
    out
}

/// Compresses records `group` of `records` from `file` again with `to[k]` (for the k-th
/// record of the group) and writes each at the end of `out`, pointing at directory
/// `seek_pdir`; returns where each went and its length.
pub fn recompress_group(
    file: &RootFile,
    out: &FileWriter,
    records: &[Record],
    to: &[Compression],
    seek_pdir: u64,
    buf: &mut Vec<u8>,
) -> Result<Vec<(u64, u32)>> {
    let Some(first) = records.first() else {
        return Ok(Vec::new());
    };
    let len: u64 = records.iter().map(|r| r.len as u64).sum();
    buf.resize(len as usize, 0);
    file.read_into(first.from, buf, "basket records")?;
    let mut at = 0usize;
    let mut placed = Vec::with_capacity(records.len());
    for (r, &c) in records.iter().zip(to) {
        let old = &buf[at..at + r.len as usize];
        let bad = |m: String| Error::format(file.name(), "basket record", r.from, m);
        let mut record = recompressed(old, c).map_err(bad)?;
        let seek = out.allocate(record.len() as u64);
        repoint(&mut record, seek, seek_pdir).map_err(bad)?;
        out.write_at(seek, &record)?;
        placed.push((seek, record.len() as u32));
        at += r.len as usize;
    }
    Ok(placed)
}

/// A basket record's payload decompressed and compressed with `to`, behind the same key
/// header (its size updated).
fn recompressed(record: &[u8], to: Compression) -> Result<Vec<u8>, String> {
    let int = |at: usize| i32::from_be_bytes(record[at..at + 4].try_into().expect("4"));
    if record.len() < 26 || int(0) as i64 != record.len() as i64 {
        return Err(format!(
            "key does not say the record's {} bytes",
            record.len()
        ));
    }
    let objlen = int(6);
    let keylen = u16::from_be_bytes([record[14], record[15]]) as usize;
    if objlen < 0 || keylen < 26 || keylen > record.len() {
        return Err(format!("key of {keylen} bytes for an object of {objlen}"));
    }
    let stored = &record[keylen..];
    let data = if stored.len() == objlen as usize {
        stored.to_vec()
    } else {
        // The blocks must declare the size the key claims before it is allocated.
        let declared = declared_len(stored).map_err(|e| e.to_string())?;
        if declared != objlen as usize {
            return Err(format!(
                "the key says {objlen} uncompressed bytes, the compressed blocks {declared}"
            ));
        }
        decompress(stored, declared).map_err(|e| e.to_string())?
    };
    let mut out = Vec::with_capacity(keylen + data.len());
    out.extend_from_slice(&record[..keylen]);
    compress_frames_into(to, Frames::Sized, &data, &mut out);
    let n = out.len() as u32;
    out[..4].copy_from_slice(&n.to_be_bytes());
    Ok(out)
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
    fn groups_follow_the_input_and_the_size_limit() {
        let r = [
            rec(100, 10, 0),
            rec(110, 10, 0),
            rec(200, 5, 0),
            rec(205, 50, 0),
        ];
        assert_eq!(groups(&r, 1000), vec![(0, 2), (2, 4)]);
        assert_eq!(groups(&r, 20), vec![(0, 2), (2, 3), (3, 4)]);
    }

    #[test]
    fn a_record_compressed_again_keeps_its_header_and_data() {
        let data: Vec<u8> = (0..4000u32).flat_map(|i| (i % 7).to_be_bytes()).collect();
        let keylen = 40usize;
        let mut record = vec![0u8; keylen];
        record[6..10].copy_from_slice(&(data.len() as i32).to_be_bytes());
        record[14..16].copy_from_slice(&(keylen as u16).to_be_bytes());
        record.extend_from_slice(&crate::compress::compress(
            Compression::from_root_setting(101).unwrap(),
            &data,
        ));
        let n = record.len() as i32;
        record[..4].copy_from_slice(&n.to_be_bytes());
        let zstd = Compression::from_root_setting(505).unwrap();
        let again = recompressed(&record, zstd).unwrap();
        assert_eq!(&again[4..keylen], &record[4..keylen]);
        assert_eq!(
            i32::from_be_bytes(again[..4].try_into().unwrap()) as usize,
            again.len()
        );
        assert_eq!(&again[keylen..keylen + 2], b"ZS");
        assert_eq!(decompress(&again[keylen..], data.len()).unwrap(), data);
        assert!(recompressed(&record[..30], zstd).is_err());
        // A key claiming more than its blocks hold is refused before anything is allocated.
        let mut lying = record.clone();
        lying[6..10].copy_from_slice(&i32::MAX.to_be_bytes());
        let err = recompressed(&lying, zstd).unwrap_err();
        assert!(err.contains("compressed blocks"), "{err}");
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
