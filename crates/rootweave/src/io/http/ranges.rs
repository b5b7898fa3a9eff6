//! The byte ranges of HTTP requests and replies: `Range` headers within a length limit,
//! `Content-Range` values, and `multipart/byteranges` bodies split into their parts.

use std::ops::Range;

/// The `Range` header value asking for `ranges` (`bytes=a-b,c-d`, no spaces; `b` and `d`
/// inclusive).
pub fn range_header(ranges: &[Range<u64>]) -> String {
    let mut out = String::from("bytes=");
    for (i, r) in ranges.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("{}-{}", r.start, r.end - 1));
    }
    out
}

/// Splits sorted, disjoint `ranges` into requests of at most `max_ranges` ranges each and
/// a `Range` header of at most `max_header` bytes.
pub fn requests(
    ranges: &[Range<u64>],
    max_ranges: usize,
    max_header: usize,
) -> Vec<Vec<Range<u64>>> {
    let mut out: Vec<Vec<Range<u64>>> = Vec::new();
    let mut header = 0;
    for r in ranges {
        let len = format!("{}-{},", r.start, r.end - 1).len();
        match out.last_mut() {
            Some(last) if last.len() < max_ranges.max(1) && header + len <= max_header => {
                last.push(r.clone());
                header += len;
            }
            _ => {
                out.push(vec![r.clone()]);
                header = "bytes=".len() + len;
            }
        }
    }
    out
}

/// A `Content-Range` value (`bytes a-b/total`, total possibly `*`): the range (end
/// exclusive) and the total size if given.
pub fn parse_content_range(value: &str) -> Option<(Range<u64>, Option<u64>)> {
    let rest = value.trim().strip_prefix("bytes")?.trim_start();
    let (span, total) = rest.split_once('/')?;
    let (a, b) = span.trim().split_once('-')?;
    let (a, b) = (a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?);
    if b < a {
        return None;
    }
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse::<u64>().ok()?),
    };
    Some((a..b.checked_add(1)?, total))
}

/// The boundary of a `multipart/byteranges` content type, if it is one.
pub fn multipart_boundary(content_type: &str) -> Option<String> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/byteranges") {
        return None;
    }
    params.split(';').find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| v.trim().trim_matches('"').to_string())
    })
}

/// The most bytes between the end of one part and its next boundary, or of a part's
/// headers: a reply beyond it is malformed.
const MAX_BETWEEN: usize = 16 << 10;

/// A part of a multipart reply: its byte range in the file (end exclusive) and the file's
/// size, as the part states it.
pub type PartRange = (Range<u64>, Option<u64>);

/// Where a [`MultipartReader`] is in the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Looking for the next boundary.
    Seek,
    /// After a boundary: the closing `--`, or a part's headers up to a blank line.
    Headers,
    /// Inside a part: its next byte is the file's byte `at`; it ends before `end`.
    Data { at: u64, end: u64 },
    /// After the closing boundary.
    Done,
}

/// A `multipart/byteranges` body split into its parts as it arrives, chunk by chunk: each
/// part's bytes go to a sink with their file offset as they come, and are not kept. A
/// part's length is its `Content-Range`'s, so bytes looking like a boundary inside a part
/// do not cut it.
#[derive(Debug)]
pub struct MultipartReader {
    delimiter: Vec<u8>,
    phase: Phase,
    /// Bytes of a boundary or of headers cut by the end of a chunk.
    carry: Vec<u8>,
    /// Each part's range and the file's size as the part states it.
    parts: Vec<PartRange>,
}

impl MultipartReader {
    /// A reader of a body whose parts are separated by `--boundary`.
    pub fn new(boundary: &str) -> Self {
        MultipartReader {
            delimiter: format!("--{boundary}").into_bytes(),
            phase: Phase::Seek,
            carry: Vec::new(),
            parts: Vec::new(),
        }
    }

    /// Reads the next bytes of the body, handing each part's bytes to `sink(offset, bytes)`;
    /// an error says what is malformed.
    pub fn feed(
        &mut self,
        mut input: &[u8],
        sink: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), String> {
        while !input.is_empty() {
            match self.phase {
                Phase::Done => return Ok(()),
                Phase::Data { at, end } => {
                    let n = (end - at).min(input.len() as u64) as usize;
                    sink(at, &input[..n]);
                    input = &input[n..];
                    let at = at + n as u64;
                    self.phase = if at == end {
                        Phase::Seek
                    } else {
                        Phase::Data { at, end }
                    };
                }
                Phase::Seek => {
                    let delimiter = std::mem::take(&mut self.delimiter);
                    let found =
                        self.take_until(&mut input, &delimiter, "no boundary where one was due");
                    self.delimiter = delimiter;
                    if found?.is_none() {
                        return Ok(());
                    }
                    self.phase = Phase::Headers;
                }
                Phase::Headers => {
                    if self.carry.len() + input.len() < 2 {
                        self.carry.extend_from_slice(input);
                        return Ok(());
                    }
                    let first: Vec<u8> = self.carry.iter().chain(input).take(2).copied().collect();
                    if first == b"--" {
                        self.phase = Phase::Done;
                        self.carry.clear();
                        return Ok(());
                    }
                    let Some(headers) =
                        self.take_until(&mut input, b"\r\n\r\n", "a part's headers do not end")?
                    else {
                        return Ok(());
                    };
                    let (range, total) = part_range(&headers)?;
                    if self.parts.len() >= MAX_PARTS {
                        return Err("more parts than any request asks for".into());
                    }
                    self.parts.push((range.clone(), total));
                    self.phase = Phase::Data {
                        at: range.start,
                        end: range.end,
                    };
                }
            }
        }
        Ok(())
    }

    /// The parts read, once the body has ended; an error if it ended inside one.
    pub fn finish(self) -> Result<Vec<PartRange>, String> {
        match self.phase {
            Phase::Done => Ok(self.parts),
            Phase::Data { .. } => Err("the body ends inside a part".into()),
            _ => Err("the body ends before its closing boundary".into()),
        }
    }

    /// The bytes before `token` (those kept from earlier chunks, then `input`'s), with
    /// `input` advanced past the token; `None` when `input` ends first (its bytes are kept
    /// for the next chunk). At most [`MAX_BETWEEN`] bytes are looked through.
    fn take_until(
        &mut self,
        input: &mut &[u8],
        token: &[u8],
        what: &str,
    ) -> Result<Option<Vec<u8>>, String> {
        if self.carry.is_empty() {
            let look = &input[..input.len().min(MAX_BETWEEN + token.len())];
            if let Some(p) = find(look, token, 0) {
                let before = look[..p].to_vec();
                *input = &input[p + token.len()..];
                return Ok(Some(before));
            }
        }
        let kept = self.carry.len();
        let room = (MAX_BETWEEN + token.len()).saturating_sub(kept);
        let look = &input[..input.len().min(room)];
        self.carry.extend_from_slice(look);
        match find(&self.carry, token, kept.saturating_sub(token.len() - 1)) {
            Some(p) => {
                let before = self.carry[..p].to_vec();
                *input = &input[p + token.len() - kept..];
                self.carry.clear();
                Ok(Some(before))
            }
            None if self.carry.len() >= MAX_BETWEEN + token.len() => Err(what.to_string()),
            None => {
                *input = &input[look.len()..];
                Ok(None)
            }
        }
    }
}

/// The most parts one reply may have (a request asks for fewer ranges than its header's
/// 3,900 bytes allow).
const MAX_PARTS: usize = 1 << 16;

/// The `Content-Range` of a part's headers.
fn part_range(headers: &[u8]) -> Result<PartRange, String> {
    let headers = std::str::from_utf8(headers).map_err(|_| "a part's headers are not text")?;
    headers
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-range")
                .then(|| parse_content_range(value))?
        })
        .ok_or_else(|| "a part has no valid Content-Range".to_string())
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_stay_within_their_limits() {
        let ranges: Vec<Range<u64>> = (0..100).map(|i| i * 1000..i * 1000 + 10).collect();
        assert_eq!(range_header(&ranges[..2]), "bytes=0-9,1000-1009");
        for (max_ranges, max_header) in [(1000, 100), (7, 4000), (1, 4000)] {
            let split = requests(&ranges, max_ranges, max_header);
            assert_eq!(split.concat(), ranges);
            for r in &split {
                assert!(r.len() <= max_ranges);
                assert!(range_header(r).len() <= max_header, "{}", range_header(r));
            }
        }
    }

    #[test]
    fn content_ranges_parse() {
        assert_eq!(
            parse_content_range("bytes 0-99/1000"),
            Some((0..100, Some(1000)))
        );
        assert_eq!(parse_content_range("bytes 5-5/*"), Some((5..6, None)));
        assert_eq!(parse_content_range("bytes 9-5/10"), None);
        assert_eq!(parse_content_range("items 0-1/2"), None);
        assert_eq!(parse_content_range("bytes */1000"), None);
    }

    /// A part's range and bytes.
    type ReadPart = (Range<u64>, Vec<u8>);

    /// The parts of `body` fed in chunks of `step` bytes.
    fn read_in_steps(body: &[u8], step: usize) -> Result<Vec<ReadPart>, String> {
        let mut reader = MultipartReader::new("XY");
        let mut got: Vec<(u64, Vec<u8>)> = Vec::new();
        for chunk in body.chunks(step) {
            reader.feed(chunk, &mut |at, bytes| match got.last_mut() {
                Some((start, b)) if *start + b.len() as u64 == at => b.extend_from_slice(bytes),
                _ => got.push((at, bytes.to_vec())),
            })?;
        }
        let parts = reader.finish()?;
        Ok(parts
            .into_iter()
            .map(|(r, _)| {
                let bytes = got
                    .iter()
                    .find(|(at, _)| *at == r.start)
                    .map(|(_, b)| b.clone())
                    .unwrap_or_default();
                (r, bytes)
            })
            .collect())
    }

    #[test]
    fn multipart_bodies_split_by_their_ranges_in_any_chunks() {
        let body = b"\r\n--XY\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes 0-4/20\r\n\r\n--XY!\r\n--XY\r\nContent-Range: bytes 10-11/20\r\n\r\nab\r\n--XY--\r\n";
        assert_eq!(
            multipart_boundary("multipart/byteranges; boundary=XY").as_deref(),
            Some("XY")
        );
        assert_eq!(multipart_boundary("text/plain"), None);
        for step in 1..=body.len() {
            let parts = read_in_steps(body, step).unwrap();
            assert_eq!(
                parts,
                vec![(0..5, b"--XY!".to_vec()), (10..12, b"ab".to_vec())],
                "chunks of {step}"
            );
        }
        for cut in [0, 10, 60, 95, body.len() - 3] {
            assert!(read_in_steps(&body[..cut], 7).is_err(), "cut at {cut}");
        }
        assert!(read_in_steps(b"nothing", 3).is_err());
        let no_range = b"--XY\r\nContent-Type: x\r\n\r\nab\r\n--XY--";
        assert!(read_in_steps(no_range, 5).is_err());
        // No boundary within the limit: an error, not a growing buffer.
        let endless = vec![b'x'; 3 * MAX_BETWEEN];
        assert!(read_in_steps(&endless, 1000).is_err());
    }
}
