//! Rewriting a streamed object with some of its members replaced: the bytes outside the
//! replaced ranges are kept, and the byte counts and reference tags a traced read noted
//! ([`Trace`]) are recomputed for where the bytes moved. This is how a tree object of any
//! branch classes gets new basket lists without a writer for each of its classes.

use std::ops::Range;

use super::cursor::Trace;
use super::tags::{BYTE_COUNT_MASK, CLASS_MASK, MAP_OFFSET};

/// One replaced range of a buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The bytes replaced (a member's span).
    pub range: Range<usize>,
    /// What stands there instead.
    pub bytes: Vec<u8>,
}

/// The positions of a buffer after edits: each edit's end and the total growth up to it.
struct Moves {
    ends: Vec<(Range<usize>, i64)>,
}

impl Moves {
    /// Where position `p` of the old buffer lands; `None` inside a replaced range.
    fn map(&self, p: usize) -> Option<usize> {
        let i = self.ends.partition_point(|(r, _)| r.end <= p);
        if let Some((r, _)) = self.ends.get(i) {
            if r.start < p {
                return None;
            }
        }
        let shift = if i == 0 { 0 } else { self.ends[i - 1].1 };
        Some((p as i64 + shift) as usize)
    }
}

/// `bytes` (read with a traced cursor whose tags counted from `origin`) with `edits`
/// applied, its byte counts and reference tags adjusted, for a buffer whose tags count
/// from `new_origin` (the key length of the record it will be written in). Byte counts
/// and tags inside a replaced range go with it. An error says why the rewrite is not possible (edits overlapping each other or a byte count or
/// tag, or bytes that were not read lying after a range that changes length).
pub fn rewrite(
    bytes: &[u8],
    trace: &Trace,
    mut edits: Vec<Edit>,
    origin: u32,
    new_origin: u32,
) -> Result<Vec<u8>, String> {
    edits.sort_by_key(|e| e.range.start);
    let mut ends = Vec::with_capacity(edits.len());
    let mut shift = 0i64;
    let mut last_end = 0;
    for e in &edits {
        if e.range.start < last_end || e.range.end > bytes.len() || e.range.start > e.range.end {
            return Err(format!(
                "replaced range {:?} overlaps another or runs past the {} bytes",
                e.range,
                bytes.len()
            ));
        }
        last_end = e.range.end;
        shift += e.bytes.len() as i64 - e.range.len() as i64;
        ends.push((e.range.clone(), shift));
    }
    let moves = Moves { ends };
    // What lies inside a replaced range goes with it.
    let replaced = |r: Range<usize>| {
        let i = edits.partition_point(|e| e.range.end < r.end);
        edits
            .get(i)
            .is_some_and(|e| e.range.start <= r.start && r.end <= e.range.end)
    };
    if let Some(first) = edits.iter().find(|e| e.bytes.len() != e.range.len()) {
        if let Some(r) = trace
            .opaque
            .iter()
            .find(|r| r.end > first.range.start && !replaced((*r).clone()))
        {
            return Err(format!(
                "bytes {r:?} were not read, and the ones before them change length"
            ));
        }
    }

    let mut out = Vec::with_capacity((bytes.len() as i64 + shift).max(0) as usize);
    let mut at = 0;
    for e in &edits {
        out.extend_from_slice(&bytes[at..e.range.start]);
        out.extend_from_slice(&e.bytes);
        at = e.range.end;
    }
    out.extend_from_slice(&bytes[at..]);

    let word = |p: usize| -> Result<u32, String> {
        bytes
            .get(p..p + 4)
            .map(|w| u32::from_be_bytes(w.try_into().expect("four bytes")))
            .ok_or_else(|| format!("tag at {p} runs past the buffer"))
    };
    let moved = |p: usize, what: &str| -> Result<usize, String> {
        match (moves.map(p), moves.map(p + 4)) {
            (Some(a), Some(b)) if b == a + 4 || what == "end" => Ok(a),
            _ => Err(format!("a replaced range overlaps the {what} at {p}")),
        }
    };
    for &p in trace.counts.iter().filter(|&&p| !replaced(p..p + 4)) {
        let w = word(p)?;
        let end = p + 4 + (w & !BYTE_COUNT_MASK) as usize;
        let new_at = moved(p, "byte count")?;
        let new_end = moves
            .map(end)
            .ok_or_else(|| format!("the object counted at {p} ends inside a replaced range"))?;
        let count = new_end - new_at - 4;
        if count >= BYTE_COUNT_MASK as usize {
            return Err(format!("the object counted at {p} grows past 1 GiB"));
        }
        out[new_at..new_at + 4].copy_from_slice(&(count as u32 | BYTE_COUNT_MASK).to_be_bytes());
    }
    for &p in trace.refs.iter().filter(|&&p| !replaced(p..p + 4)) {
        let w = word(p)?;
        let class = w & CLASS_MASK;
        let target = ((w & !CLASS_MASK) as i64) - (MAP_OFFSET + origin) as i64;
        if target < 0 || target as usize >= bytes.len() {
            return Err(format!(
                "reference tag {w:#x} at {p} points outside the buffer"
            ));
        }
        let new_at = moved(p, "reference tag")?;
        let new_target = moved(target as usize, "end")?;
        let tag = (new_target as u64 + (MAP_OFFSET + new_origin) as u64) as u32 | class;
        out[new_at..new_at + 4].copy_from_slice(&tag.to_be_bytes());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A framed object (count at 0, version 1), a 4-byte member, then a reference tag to
    /// the object (counted from origin 10).
    fn sample() -> (Vec<u8>, Trace) {
        let mut b = Vec::new();
        b.extend_from_slice(&(BYTE_COUNT_MASK | 6).to_be_bytes());
        b.extend_from_slice(&[0, 1]);
        b.extend_from_slice(&[0, 0, 0, 7]);
        b.extend_from_slice(&(MAP_OFFSET + 10).to_be_bytes());
        let trace = Trace {
            counts: vec![0],
            refs: vec![10],
            opaque: vec![],
        };
        (b, trace)
    }

    #[test]
    fn a_longer_member_moves_counts_and_tags() {
        let (b, trace) = sample();
        let edit = Edit {
            range: 6..10,
            bytes: vec![0, 0, 0, 7, 0, 0, 0, 8],
        };
        let out = rewrite(&b, &trace, vec![edit], 10, 20).unwrap();
        assert_eq!(&out[..4], &(BYTE_COUNT_MASK | 10).to_be_bytes());
        assert_eq!(&out[6..14], &[0, 0, 0, 7, 0, 0, 0, 8]);
        assert_eq!(&out[14..], &(MAP_OFFSET + 20).to_be_bytes());
    }

    #[test]
    fn no_edit_gives_the_same_bytes() {
        let (b, trace) = sample();
        assert_eq!(rewrite(&b, &trace, vec![], 10, 10).unwrap(), b);
    }

    #[test]
    fn edits_over_tags_or_before_unread_bytes_are_refused() {
        let (b, mut trace) = sample();
        let over_tag = Edit {
            range: 8..12,
            bytes: vec![1; 4],
        };
        assert!(rewrite(&b, &trace, vec![over_tag], 10, 10).is_err());
        let inside = Edit {
            range: 4..14,
            bytes: vec![0; 2],
        };
        let err = rewrite(&b, &trace, vec![inside], 10, 10).unwrap_err();
        assert!(
            err.contains("points outside") || err.contains("inside"),
            "{err}"
        );
        trace.opaque.push(10..14);
        let longer = Edit {
            range: 6..10,
            bytes: vec![0; 5],
        };
        let err = rewrite(&b, &trace, vec![longer], 10, 10).unwrap_err();
        assert!(err.contains("not read"), "{err}");
    }
}
