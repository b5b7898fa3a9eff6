//! Deflate streams kept per thread and reset for each block.
//!
//! A new zlib-rs stream allocates and zeroes about 300 KiB of window and hash tables. Pages
//! are compressed by the thousand, often as several deflate runs each, and memory freed by
//! a writer goes back to the system: a new stream per run cost a page fault for every
//! 4 KiB of those tables (four fifths of all page faults of a zlib-compressed write).
//! A reset stream starts from an empty history, exactly as a new one does (checked by the
//! tests below: each block inflates alone, after blocks made to tempt back-references).

use std::cell::RefCell;

use flate2::Compress;

thread_local! {
    /// Streams of this thread, one per (level, zlib header or raw deflate) used.
    static STREAMS: RefCell<Vec<(u32, bool, Compress)>> = const { RefCell::new(Vec::new()) };
}

/// Calls `f` with a deflate stream at `level` (zlib-rs levels), with a zlib header and
/// trailer if `zlib_header` (else raw deflate), in its initial state.
pub(crate) fn with_stream<T>(
    level: u32,
    zlib_header: bool,
    f: impl FnOnce(&mut Compress) -> T,
) -> T {
    STREAMS.with(|streams| {
        let streams = &mut *streams.borrow_mut();
        let at = match streams
            .iter()
            .position(|(l, z, _)| *l == level && *z == zlib_header)
        {
            Some(at) => {
                streams[at].2.reset();
                at
            }
            None => {
                let stream = Compress::new(flate2::Compression::new(level), zlib_header);
                streams.push((level, zlib_header, stream));
                streams.len() - 1
            }
        };
        f(&mut streams[at].2)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{Decompress, FlushCompress, FlushDecompress};

    fn deflate(level: u32, zlib_header: bool, input: &[u8]) -> Vec<u8> {
        let flush = if zlib_header {
            FlushCompress::Finish
        } else {
            FlushCompress::Sync
        };
        with_stream(level, zlib_header, |stream| {
            let mut out = Vec::with_capacity(input.len() + input.len() / 100 + 1024);
            stream.compress_vec(input, &mut out, flush).unwrap();
            assert_eq!(stream.total_in() as usize, input.len());
            out
        })
    }

    #[test]
    fn a_reused_stream_makes_blocks_that_inflate_alone() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for level in [2, 6, 9] {
            for zlib_header in [true, false] {
                for _ in 0..12 {
                    let len = 1000 + (next() % 100_000) as usize;
                    let first: Vec<u8> = (0..len).map(|_| (next() % 7) as u8).collect();
                    // The next block repeats the first but for a few bytes: back-references
                    // into the first block would pay, if its history were kept.
                    let mut second = first.clone();
                    for _ in 0..10 {
                        let i = next() as usize % len;
                        second[i] ^= 0x55;
                    }
                    deflate(level, zlib_header, &first);
                    let block = deflate(level, zlib_header, &second);
                    let mut inflater = Decompress::new(zlib_header);
                    let mut back = Vec::with_capacity(len + 1);
                    inflater
                        .decompress_vec(&block, &mut back, FlushDecompress::Sync)
                        .unwrap();
                    assert!(back == second, "level {level}, zlib header {zlib_header}");
                }
            }
        }
    }
}
