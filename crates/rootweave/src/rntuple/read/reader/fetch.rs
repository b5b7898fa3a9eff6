//! Fetching pages in coalesced chunks and decoding them into their slots, on the
//! reader's pool: each chunk one read into the thread's reused buffer.

use std::ops::Range;

use super::{PageJob, RNTupleReader, SlotRead};
use crate::array::buffer::{Buffer, Dst, Target};
use crate::compress::decompress_into_checked;
use crate::container::windows::{self, Window};
use crate::error::{Error, Result};
use crate::io::coalesce;
use crate::rntuple::format::checksum::xxh3_64;
use crate::rntuple::read::buffer::DecodePage;
use crate::rntuple::read::decode::shift_rising;

impl RNTupleReader {
    /// Fetches and decodes every page job into the buffers, window by window.
    pub(super) fn decode_pages(
        &self,
        buffers: &mut [Buffer],
        jobs: &[PageJob],
        slots: &[SlotRead],
    ) -> Result<()> {
        // Destination slices, one per job (index buffers start after their leading 0).
        let mut by_slot: Vec<Vec<usize>> = vec![Vec::new(); buffers.len()];
        for (j, job) in jobs.iter().enumerate() {
            by_slot[job.slot].push(j);
        }
        let mut dsts: Vec<Option<Dst>> = (0..jobs.len()).map(|_| None).collect();
        for (s, buffer) in buffers.iter_mut().enumerate() {
            let shift = usize::from(slots[s].target == Target::Index);
            let mut order = by_slot[s].clone();
            order.sort_by_key(|&j| jobs[j].dst);
            let ranges: Vec<(usize, usize)> = order
                .iter()
                .map(|&j| (jobs[j].dst + shift, jobs[j].take))
                .collect();
            for (j, d) in order.into_iter().zip(buffer.split_ranges(&ranges)) {
                dsts[j] = Some(d);
            }
        }
        let work: Vec<(PageJob, Dst)> = jobs
            .iter()
            .copied()
            .zip(dsts.into_iter().map(|d| d.expect("every job has a slice")))
            .collect();
        // Uncompressed pages whose bytes are the values are read straight into place: one
        // copy from the page cache, no buffer in between.
        // A remote file reads every page through the chunks, fetched in one vectored read.
        let remote = self.file.source().prefers_vectored();
        let (direct, mut work): (Vec<_>, Vec<_>) = work.into_iter().partition(|(job, dst)| {
            !remote
                && job.whole()
                && job.codec.page_bytes(job.page.n_elements as usize)
                    == Some(job.page.size as usize)
                && dst.is_native(&job.codec)
        });
        // The other pages in file order, in chunks of neighbouring pages: each chunk is one
        // task on the pool that reads its bytes into the thread's reused buffer (fresh
        // memory costs page faults) and decodes its pages while they are in cache. The
        // fetch buffers of all threads together stay within half the memory budget.
        let threads = self.pool.current_num_threads().max(1);
        let most = (self.options.memory_budget / (2 * threads as u64)).clamp(64 << 10, CHUNK);
        let stored: u64 = work.iter().map(|(job, _)| job.page.size).sum();
        work.sort_by_key(|(job, _)| job.page.offset);
        let chunks = chunks(
            work,
            crate::parallel::pool::chunk_size(stored, threads, most),
            self.descriptor.anchor.max_key_size,
        );
        let read_direct = |(job, mut dst): (PageJob, Dst)| self.read_in_place(&job, &mut dst);
        let decode_chunk = |(range, pages): Chunk, window: Option<&Window>| {
            FETCH.with(|buffer| {
                let mut buffer = buffer.borrow_mut();
                let fetched = match window.and_then(|w| w.get(range.start)) {
                    Some(bytes) => Fetched {
                        parts: vec![(range.start, 0)],
                        bytes,
                    },
                    None => Fetched {
                        parts: self.fetch(&[range], &mut buffer)?,
                        bytes: &buffer,
                    },
                };
                for (job, mut dst) in pages {
                    self.decode_page(&fetched, &job, &mut dst)?;
                }
                // Kept for the next chunk, unless an outsized page made it large.
                if buffer.len() > 2 * CHUNK as usize {
                    *buffer = Vec::new();
                }
                Ok(())
            })
        };
        if !remote {
            return crate::parallel::pool::for_each_in_two_steps(
                &self.pool,
                direct,
                read_direct,
                chunks,
                |chunk| decode_chunk(chunk, None),
            );
        }
        // A remote file: window by window, each window's bytes (but those of pages split
        // over several keys) in one vectored read, the next fetched while this one decodes.
        let max_key = self.descriptor.anchor.max_key_size;
        let largest = windows::largest_window(self.options.memory_budget);
        let windows = windows::windows(chunks, |(r, _)| r.end - r.start, largest);
        let ranges: Vec<Vec<Range<u64>>> = windows
            .iter()
            .map(|w| {
                w.iter()
                    .map(|(r, _)| r.clone())
                    .filter(|r| max_key == 0 || r.end - r.start <= max_key)
                    .collect()
            })
            .collect();
        let name = format!("RNTuple '{}' pages", self.descriptor.name);
        windows::fetch_ahead(
            &self.file,
            windows,
            ranges,
            &self.windows,
            &name,
            |chunks, window| {
                crate::parallel::pool::for_each_in_two_steps(
                    &self.pool,
                    Vec::new(),
                    read_direct,
                    chunks,
                    |chunk| decode_chunk(chunk, Some(window)),
                )
            },
        )
    }

    /// Reads byte ranges one after the other into `buffer` (reused, grown when needed),
    /// returning where each range starts in it.
    pub(super) fn fetch(
        &self,
        ranges: &[Range<u64>],
        buffer: &mut Vec<u8>,
    ) -> Result<Vec<(u64, usize)>> {
        let name = format!("RNTuple '{}' pages", self.descriptor.name);
        let total: u64 = ranges.iter().map(|r| r.end - r.start).sum();
        // Grown when needed, never cleared: every byte is overwritten by the reads.
        if buffer.len() < total as usize {
            buffer.resize(total as usize, 0);
        }
        let mut parts = Vec::with_capacity(ranges.len());
        let mut at = 0usize;
        let max_key = self.descriptor.anchor.max_key_size;
        for r in ranges {
            let len = (r.end - r.start) as usize;
            let dst = &mut buffer[at..at + len];
            if max_key > 0 && r.end - r.start > max_key {
                // A page split over several keys.
                let bytes =
                    self.descriptor
                        .read_blob(&self.file, r.start, r.end - r.start, &name)?;
                dst.copy_from_slice(&bytes);
            } else {
                self.file.read_into(r.start, dst, &name)?;
            }
            parts.push((r.start, at));
            at += len;
        }
        Ok(parts)
    }

    /// Reads an uncompressed page of native values into its destination and checks its
    /// checksum there.
    pub(super) fn read_in_place(&self, job: &PageJob, dst: &mut Dst) -> Result<()> {
        let page = &job.page;
        let object = format!(
            "RNTuple '{}' page of field '{}'",
            self.descriptor.name,
            self.descriptor.field_path(job.field)
        );
        let bytes = dst.native_bytes(&job.codec).expect("checked by is_native");
        self.file.read_into(page.offset, bytes, &object)?;
        if page.has_checksum && self.options.verify_checksums {
            let mut stored = [0u8; 8];
            self.file
                .read_into(page.offset + page.size, &mut stored, &object)?;
            if xxh3_64(bytes) != u64::from_le_bytes(stored) {
                return Err(Error::format(
                    self.file.name(),
                    object,
                    page.offset,
                    "page checksum mismatch",
                ));
            }
        }
        self.finish_offsets(job, dst)
    }

    /// For a page of offsets read or decompressed in place: checks that they never
    /// decrease within the page and adds the job's base, while the page is in cache.
    fn finish_offsets(&self, job: &PageJob, dst: &mut Dst) -> Result<()> {
        match dst {
            Dst::UInt64(offsets) if job.target == Target::Index => {
                self.offsets_rise(job, shift_rising(offsets, job.base))
            }
            _ => Ok(()),
        }
    }

    /// Decodes a page into its destination; offsets with the job's base added.
    fn decode_into(&self, job: &PageJob, dst: &mut Dst, page: &[u8]) -> Result<()> {
        match dst {
            Dst::UInt64(offsets) if job.target == Target::Index => {
                self.offsets_rise(job, job.codec.decode_offsets(page, offsets, job.base))
            }
            _ => {
                dst.decode(&job.codec, page);
                Ok(())
            }
        }
    }

    /// The error of a page whose offsets decrease.
    fn offsets_rise(&self, job: &PageJob, rising: bool) -> Result<()> {
        if !rising {
            return Err(Error::format(
                self.file.name(),
                format!(
                    "RNTuple '{}' page of field '{}'",
                    self.descriptor.name,
                    self.descriptor.field_path(job.field)
                ),
                job.page.offset,
                "collection offsets decrease",
            ));
        }
        Ok(())
    }

    /// Decodes a page into its destination: the whole page, or (at the edges of a read of
    /// part of a cluster) the whole page into a scratch buffer and the kept part from there.
    pub(super) fn decode_page(
        &self,
        fetched: &Fetched,
        job: &PageJob,
        dst: &mut Dst,
    ) -> Result<()> {
        if job.whole() {
            return self.decode_whole_page(fetched, job, dst);
        }
        let mut scratch = Buffer::zeroed(job.target, job.page.n_elements as usize);
        let mut whole = scratch.split_ranges(&[(0, job.page.n_elements as usize)]);
        self.decode_whole_page(fetched, job, &mut whole[0])?;
        dst.copy_from(&whole[0], job.skip);
        Ok(())
    }

    pub(super) fn decode_whole_page(
        &self,
        fetched: &Fetched,
        job: &PageJob,
        dst: &mut Dst,
    ) -> Result<()> {
        let page = &job.page;
        let object = || {
            format!(
                "RNTuple '{}' page of field '{}'",
                self.descriptor.name,
                self.descriptor.field_path(job.field)
            )
        };
        let stored_len = page.size + if page.has_checksum { 8 } else { 0 };
        let bytes = fetched.get(page.offset, stored_len);
        let stored = &bytes[..page.size as usize];
        if page.has_checksum && self.options.verify_checksums {
            let expected = u64::from_le_bytes(bytes[page.size as usize..].try_into().expect("8"));
            if xxh3_64(stored) != expected {
                return Err(Error::format(
                    self.file.name(),
                    object(),
                    page.offset,
                    "page checksum mismatch",
                ));
            }
        }
        let n = page.n_elements as usize;
        let need = job.codec.page_bytes(n).ok_or_else(|| {
            Error::format(self.file.name(), object(), page.offset, "page too large")
        })?;
        if stored.len() == need {
            return self.decode_into(job, dst, stored);
        }
        if stored.len() > need {
            return Err(Error::format(
                self.file.name(),
                object(),
                page.offset,
                format!(
                    "{} stored bytes for {n} elements of {need} bytes",
                    stored.len()
                ),
            ));
        }
        let in_object = |e: Error| e.in_object(self.file.name(), &object(), page.offset);
        // Every check the file carries is verified unless the caller turned checks off:
        // the page checksum (above) and the compression blocks' own (LZ4's XXH64, xz's
        // CRC32), which also catch a codec that decodes corrupt bytes without noticing.
        let block_checksums = self.options.verify_checksums;
        let decompress = |out: &mut [u8]| {
            decompress_into_checked(stored, out, block_checksums).map_err(in_object)
        };
        if let Some(native) = dst.native_bytes(&job.codec) {
            decompress(native)?;
            return self.finish_offsets(job, dst);
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            // Grown when needed, never cleared: decompression overwrites all `need` bytes.
            if scratch.len() < need {
                scratch.resize(need, 0);
            }
            let page = &mut scratch[..need];
            decompress(page)?;
            self.decode_into(job, dst, page)
        })
    }
}

thread_local! {
    /// Per-thread buffer for decompressed pages that need decoding.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Per-thread buffer for the stored bytes of a chunk of pages.
    static FETCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Stored bytes of a chunk of pages read at once by one thread, at most.
pub(super) const CHUNK: u64 = 4 << 20;

/// The bytes of some ranges of the file, one after the other.
pub(super) struct Fetched<'b> {
    /// File offset of each range and where it starts in `bytes`.
    parts: Vec<(u64, usize)>,
    bytes: &'b [u8],
}

impl Fetched<'_> {
    fn get(&self, offset: u64, len: u64) -> &[u8] {
        let i = self.parts.partition_point(|(start, _)| *start <= offset) - 1;
        let (start, at) = self.parts[i];
        let from = at + (offset - start) as usize;
        &self.bytes[from..from + len as usize]
    }
}

/// A byte range of the file and the pages (with their destinations) it holds.
pub(super) type Chunk<'a> = (Range<u64>, Vec<(PageJob, Dst<'a>)>);

/// Groups pages (sorted by offset) into chunks, each read with one call (see
/// [`coalesce`]); a page split over several keys (larger than the maximum key size) is a
/// chunk of its own.
pub(super) fn chunks<'a>(
    pages: Vec<(PageJob, Dst<'a>)>,
    chunk_bytes: u64,
    max_key_size: u64,
) -> Vec<Chunk<'a>> {
    let split = |r: &Range<u64>| max_key_size > 0 && r.end - r.start > max_key_size;
    let items = pages.into_iter().map(|(job, dst)| {
        let len = job.page.size + if job.page.has_checksum { 8 } else { 0 };
        (job.page.offset..job.page.offset + len, (job, dst))
    });
    coalesce(items, chunk_bytes, split)
}
