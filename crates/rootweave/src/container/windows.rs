//! Reading the byte ranges of a remote file window by window: each window's ranges come
//! in one vectored read, and the next window is fetched on a thread while the caller
//! decodes this one, so that the transfer and the decoding overlap. At most two windows
//! are held at once, in buffers reused between windows and between reads (fresh memory
//! costs a page fault per page).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Mutex;

use super::RootFile;
use crate::error::{Error, Result};

/// Stored bytes of the first window: small, so that the decoding starts after a short
/// transfer; each next window is twice the size of the one before, up to the largest.
const FIRST_WINDOW: u64 = 2 << 20;

/// The largest window of a read whose memory budget is `budget`: an eighth of it, 64 KiB
/// to 32 MiB.
pub(crate) fn largest_window(budget: u64) -> u64 {
    (budget / 8).clamp(64 << 10, 32 << 20)
}

/// Groups chunks (in file order) into windows of growing size (see [`FIRST_WINDOW`]), at
/// most `largest` bytes each unless one chunk alone is larger; `len` is a chunk's bytes.
pub(crate) fn windows<C>(chunks: Vec<C>, len: impl Fn(&C) -> u64, largest: u64) -> Vec<Vec<C>> {
    let mut limit = FIRST_WINDOW.min(largest);
    let mut windows: Vec<Vec<C>> = Vec::new();
    let mut bytes = 0;
    for chunk in chunks {
        let n = len(&chunk);
        match windows.last_mut() {
            Some(last) if bytes + n <= limit => last.push(chunk),
            Some(_) => {
                limit = (2 * limit).min(largest);
                bytes = 0;
                windows.push(vec![chunk]);
            }
            None => windows.push(vec![chunk]),
        }
        bytes += n;
    }
    windows
}

/// The bytes of a window: its ranges one after the other, fetched with one vectored read.
#[derive(Default)]
pub(crate) struct Window {
    /// Where each range (by its start in the file) starts in `bytes`, and its length.
    starts: HashMap<u64, (usize, usize)>,
    bytes: Vec<u8>,
}

impl Window {
    /// The bytes of the range fetched at `start`, if the window holds one.
    pub(crate) fn get(&self, start: u64) -> Option<&[u8]> {
        let &(at, len) = self.starts.get(&start)?;
        Some(&self.bytes[at..at + len])
    }

    /// Reads the ranges into `bytes` (a reused buffer, grown when needed).
    fn fetch(
        file: &RootFile,
        ranges: &[Range<u64>],
        mut bytes: Vec<u8>,
        what: &str,
    ) -> Result<Window> {
        // Ranges come from the file's own metadata: checked against its size before any
        // memory is taken for them.
        if let Some(r) = ranges
            .iter()
            .find(|r| r.start > r.end || r.end > file.size())
        {
            return Err(Error::format(
                file.name(),
                what,
                r.start,
                format!(
                    "{} bytes at offset {} run past the end of the file ({} bytes)",
                    r.end.saturating_sub(r.start),
                    r.start,
                    file.size()
                ),
            ));
        }
        let total: u64 = ranges.iter().map(|r| r.end - r.start).sum();
        // Never cleared: every byte up to `total` is overwritten by the reads.
        if bytes.len() < total as usize {
            bytes.resize(total as usize, 0);
        }
        let mut starts = HashMap::with_capacity(ranges.len());
        let mut reads = Vec::with_capacity(ranges.len());
        let mut rest = &mut bytes[..];
        let mut at = 0;
        for r in ranges {
            let len = (r.end - r.start) as usize;
            let (read, after) = rest.split_at_mut(len);
            starts.insert(r.start, (at, len));
            reads.push((r.start, read));
            rest = after;
            at += len;
        }
        file.read_ranges(&mut reads, what)?;
        Ok(Window { starts, bytes })
    }
}

/// The buffers of windows not in use, kept for the next window or read (two at most: the
/// one decoded and the one fetched).
#[derive(Default)]
pub(crate) struct WindowBuffers(Mutex<Vec<Vec<u8>>>);

impl WindowBuffers {
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_default()
    }

    fn give(&self, bytes: Vec<u8>) {
        if bytes.capacity() > 0 {
            let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
            if kept.len() < 2 {
                kept.push(bytes);
            }
        }
    }
}

/// Decodes `windows` of chunks one after the other with `decode`, each with the bytes of
/// its `ranges` (one list per window) fetched ahead on a thread of its own.
pub(crate) fn fetch_ahead<C>(
    file: &RootFile,
    windows: Vec<Vec<C>>,
    ranges: Vec<Vec<Range<u64>>>,
    buffers: &WindowBuffers,
    what: &str,
    mut decode: impl FnMut(Vec<C>, &Window) -> Result<()>,
) -> Result<()> {
    std::thread::scope(|scope| {
        // A rendezvous channel: the thread fetches the next window, then waits until this
        // one is decoded before it hands it over and fetches another.
        let (sender, receiver) = std::sync::mpsc::sync_channel(0);
        scope.spawn(move || {
            // A window that failed ends the fetching: the reader stops at its error, and a
            // next fetch would only keep it waiting (a stalled server, once more).
            for window_ranges in ranges {
                let window = Window::fetch(file, &window_ranges, buffers.take(), what);
                let failed = window.is_err();
                if sender.send(window).is_err() || failed {
                    break;
                }
            }
        });
        for window in windows {
            let fetched = receiver.recv().map_err(|_| {
                Error::format(file.name(), what, 0, "the fetching thread stopped")
            })??;
            let decoded = decode(window, &fetched);
            buffers.give(fetched.bytes);
            decoded?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_grow_from_the_first_to_the_largest() {
        let chunks = vec![1u64 << 20; 40];
        let sizes: Vec<u64> = windows(chunks, |c| *c, 8 << 20)
            .iter()
            .map(|w| w.iter().sum::<u64>() >> 20)
            .collect();
        assert_eq!(sizes, [2, 4, 8, 8, 8, 8, 2]);
        // A chunk larger than the largest window is a window of its own.
        let sizes: Vec<usize> = windows(vec![1, 100, 1], |c| *c << 20, 8 << 20)
            .iter()
            .map(Vec::len)
            .collect();
        assert_eq!(sizes, [1, 1, 1]);
    }

    #[test]
    fn ranges_past_the_end_fail_before_memory_is_taken() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/uproot-HZZ.root"
        );
        let file = RootFile::open(path).unwrap();
        let size = file.size();
        let buffers = WindowBuffers::default();
        let far = vec![vec![100..size + (1 << 40)]];
        let e = fetch_ahead(&file, vec![vec![()]], far, &buffers, "pages", |_, _| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("run past the end") && e.contains("uproot-HZZ.root"),
            "{e}"
        );
        // In range: the window holds the file's bytes.
        let head = vec![vec![0..4, 100..164]];
        fetch_ahead(&file, vec![vec![()]], head, &buffers, "pages", |_, w| {
            assert_eq!(w.get(0), Some(&b"root"[..]));
            assert_eq!(w.get(100).map(<[u8]>::len), Some(64));
            Ok(())
        })
        .unwrap();
    }
}
