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

/// One part of a multipart reply: its range, total size if given, and bytes.
#[derive(Debug, PartialEq, Eq)]
pub struct Part<'a> {
    /// The part's byte range in the file (end exclusive).
    pub range: Range<u64>,
    /// The file's size, as the part states it.
    pub total: Option<u64>,
    /// The part's bytes.
    pub bytes: &'a [u8],
}

/// Splits a `multipart/byteranges` body into its parts; an error says what is malformed.
/// Each part's length is its `Content-Range`'s, so bytes looking like a boundary inside a
/// part do not cut it.
pub fn split_multipart<'a>(body: &'a [u8], boundary: &str) -> Result<Vec<Part<'a>>, String> {
    let delimiter = format!("--{boundary}");
    let mut at = find(body, delimiter.as_bytes(), 0).ok_or("no boundary in the body")?;
    let mut parts = Vec::new();
    loop {
        at += delimiter.len();
        if body[at..].starts_with(b"--") {
            return Ok(parts);
        }
        let headers_end = find(body, b"\r\n\r\n", at).ok_or("a part's headers do not end")?;
        let headers = std::str::from_utf8(&body[at..headers_end])
            .map_err(|_| "a part's headers are not text")?;
        let range = headers
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.trim()
                    .eq_ignore_ascii_case("content-range")
                    .then(|| parse_content_range(value))?
            })
            .ok_or("a part has no valid Content-Range")?;
        let start = headers_end + 4;
        let end = start
            .checked_add((range.0.end - range.0.start) as usize)
            .filter(|&e| e <= body.len())
            .ok_or("a part is shorter than its Content-Range")?;
        parts.push(Part {
            range: range.0,
            total: range.1,
            bytes: &body[start..end],
        });
        at = find(body, delimiter.as_bytes(), end).ok_or("the body ends inside a part")?;
        if parts.len() > body.len() {
            return Err("more parts than bytes".into());
        }
    }
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

    #[test]
    fn multipart_bodies_split_by_their_ranges() {
        let body = b"\r\n--XY\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes 0-4/20\r\n\r\n--XY!\r\n--XY\r\nContent-Range: bytes 10-11/20\r\n\r\nab\r\n--XY--\r\n";
        assert_eq!(
            multipart_boundary("multipart/byteranges; boundary=XY").as_deref(),
            Some("XY")
        );
        assert_eq!(multipart_boundary("text/plain"), None);
        let parts = split_multipart(body, "XY").unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(
            (parts[0].range.clone(), parts[0].bytes),
            (0..5, &b"--XY!"[..])
        );
        assert_eq!(
            (parts[1].range.clone(), parts[1].bytes),
            (10..12, &b"ab"[..])
        );
        assert!(split_multipart(&body[..60], "XY").is_err());
        assert!(split_multipart(b"nothing", "XY").is_err());
    }
}
