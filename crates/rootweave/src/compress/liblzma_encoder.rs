//! liblzma's LZMA2 encoders, kept per thread and started again for every block.
//!
//! A new liblzma encoder allocates its match finder's hash table zeroed and its window
//! fresh: memory the kernel maps on first touch, page by page. The binary-tree match
//! finder reads a hash slot before it writes it, so each page of the table is first
//! mapped to the shared zero page and then copied on write, and in a process with
//! several threads every such copy interrupts the other cores to flush their TLBs. Pages
//! are compressed by the thousand, so that cost recurs for every one (measured on
//! `complex` lzma:7 with two threads: 3.4% of all CPU time in page faults, half of it
//! those flushes). liblzma itself reuses an encoder's memory when the same stream is
//! initialised again with a filter chain of the same sizes, clearing only the hash table,
//! which is what these encoders do.

use std::cell::RefCell;
use std::ptr;

use liblzma_sys as ffi;

/// What a block is wrapped in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Container {
    /// LZMA2 chunks alone, with the end marker.
    Raw,
    /// An xz stream with a CRC32 check: what ROOT's LZMA blocks hold.
    XzCrc32,
}

/// One liblzma stream, initialised anew for every block.
struct Encoder {
    stream: ffi::lzma_stream,
}

impl Encoder {
    fn new() -> Self {
        Encoder {
            // SAFETY: LZMA_STREAM_INIT is all zeros and null pointers; liblzma documents a
            // zeroed lzma_stream as the state of one that was never initialised.
            stream: unsafe { std::mem::zeroed() },
        }
    }

    /// Compresses `input` into `out` with LZMA2 at xz preset `level` and a dictionary of
    /// `dictionary` bytes. Returns the bytes written, or None if liblzma failed or `out`
    /// is too short.
    fn encode(
        &mut self,
        container: Container,
        level: u32,
        dictionary: u32,
        input: &[u8],
        out: &mut [u8],
    ) -> Option<usize> {
        // SAFETY: a zeroed lzma_options_lzma is plain data (integers and null pointers),
        // which lzma_lzma_preset then fills in full.
        let mut options: ffi::lzma_options_lzma = unsafe { std::mem::zeroed() };
        // SAFETY: `options` is a live, exclusively borrowed lzma_options_lzma; the call
        // only writes it. It returns true for an unsupported preset.
        if unsafe { ffi::lzma_lzma_preset(&mut options, level.min(9)) } != 0 {
            return None;
        }
        options.dict_size = dictionary;
        let filters = [
            ffi::lzma_filter {
                id: ffi::LZMA_FILTER_LZMA2,
                options: ptr::from_mut(&mut options).cast(),
            },
            ffi::lzma_filter {
                id: ffi::LZMA_VLI_UNKNOWN,
                options: ptr::null_mut(),
            },
        ];
        // SAFETY: the stream is either zeroed or was initialised by an earlier call of
        // these functions (liblzma then reuses its memory); `filters` is a chain ended by
        // LZMA_VLI_UNKNOWN whose options outlive the call (liblzma copies them).
        let started = unsafe {
            match container {
                Container::Raw => ffi::lzma_raw_encoder(&mut self.stream, filters.as_ptr()),
                Container::XzCrc32 => ffi::lzma_stream_encoder(
                    &mut self.stream,
                    filters.as_ptr(),
                    ffi::LZMA_CHECK_CRC32,
                ),
            }
        };
        if started != ffi::LZMA_OK {
            return None;
        }
        self.stream.next_in = input.as_ptr();
        self.stream.avail_in = input.len();
        self.stream.next_out = out.as_mut_ptr();
        self.stream.avail_out = out.len();
        let result = loop {
            // SAFETY: the stream was initialised above; its input and output pointers
            // describe `input` and `out`, which are borrowed for the whole loop, and
            // liblzma reads and writes only within the lengths given with them.
            match unsafe { ffi::lzma_code(&mut self.stream, ffi::LZMA_FINISH) } {
                ffi::LZMA_STREAM_END => break Some(out.len() - self.stream.avail_out),
                // Progress made, more to come, as long as there is room for it.
                ffi::LZMA_OK if self.stream.avail_out > 0 => continue,
                _ => break None,
            }
        };
        // The pointers must not outlive the borrows; the next block sets them again.
        self.stream.next_in = ptr::null();
        self.stream.avail_in = 0;
        self.stream.next_out = ptr::null_mut();
        self.stream.avail_out = 0;
        result
    }
}

impl Drop for Encoder {
    fn drop(&mut self) {
        // SAFETY: lzma_end accepts a stream that was never initialised (zeroed) as well
        // as an initialised one, and frees what liblzma allocated for it.
        unsafe { ffi::lzma_end(&mut self.stream) }
    }
}

/// The largest dictionary whose encoder a thread keeps: a quarter of ROOT's largest page
/// (1 MiB). Its memory, 4 MiB at preset 7 by liblzma's own count (2 MiB for the 64 KiB
/// dictionary of a 256 KiB page), stays with the thread: as much as a new encoder takes
/// while it compresses. A larger block (a big metadata envelope, a 16 MiB basket) gets
/// an encoder of its own, freed after it, so that no thread holds tens of MiB for a
/// one-off.
const KEPT_DICTIONARY_MAX: u32 = 256 << 10;

/// This thread's encoders, one per container (each kept at the dictionary size of its
/// last block: liblzma reuses its memory only for a block of the same sizes).
#[derive(Default)]
struct KeptEncoders {
    raw: Option<Encoder>,
    xz: Option<Encoder>,
}

thread_local! {
    static KEPT: RefCell<KeptEncoders> = RefCell::default();
}

/// Compresses `input` into `out` with LZMA2 at xz preset `level` and a dictionary of
/// `dictionary` bytes, in `container`. Returns the bytes written, or None if liblzma
/// failed or `out` is too short.
pub(super) fn encode(
    container: Container,
    level: u32,
    dictionary: u32,
    input: &[u8],
    out: &mut [u8],
) -> Option<usize> {
    if dictionary > KEPT_DICTIONARY_MAX {
        return Encoder::new().encode(container, level, dictionary, input, out);
    }
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        let slot = match container {
            Container::Raw => &mut kept.raw,
            Container::XzCrc32 => &mut kept.xz,
        };
        slot.get_or_insert_with(Encoder::new)
            .encode(container, level, dictionary, input, out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::test_pages::{random_bytes, split_floats};

    fn decode_xz(xz: &[u8]) -> Vec<u8> {
        let mut stream = liblzma::stream::Stream::new_stream_decoder(u64::MAX, 0).unwrap();
        let mut back = Vec::with_capacity(1 << 22);
        let status = stream
            .process_vec(xz, &mut back, liblzma::stream::Action::Finish)
            .unwrap();
        assert_eq!(status, liblzma::stream::Status::StreamEnd);
        back
    }

    fn liblzma_xz(level: u32, dictionary: u32, input: &[u8]) -> Vec<u8> {
        use liblzma::stream::{Action, Check, Filters, LzmaOptions, Stream};
        let mut options = LzmaOptions::new_preset(level).unwrap();
        options.dict_size(dictionary);
        let mut filters = Filters::new();
        filters.lzma2(&options);
        let mut stream = Stream::new_stream_encoder(&filters, Check::Crc32).unwrap();
        let mut out = Vec::with_capacity(input.len() + 4096);
        stream.process_vec(input, &mut out, Action::Finish).unwrap();
        out
    }

    #[test]
    fn a_reused_encoder_writes_what_a_new_one_writes() {
        // Blocks of different sizes and dictionaries, one after the other on one thread:
        // each must be the bytes a fresh liblzma stream encoder gives, and decode back.
        let floats = split_floats(50_000, 3);
        let noise = random_bytes(70_000, 8, 9);
        let text: Vec<u8> = (0..100_000u32).map(|i| b"abcabd"[i as usize % 6]).collect();
        for (input, dictionary) in [
            (&floats, 65536),
            (&noise, 16384),
            (&text, 65536),
            (&floats, 65536),
        ] {
            let mut out = vec![0; input.len() + 4096];
            let n = encode(Container::XzCrc32, 7, dictionary, input, &mut out).unwrap();
            assert_eq!(&out[..n], liblzma_xz(7, dictionary, input).as_slice());
            assert_eq!(decode_xz(&out[..n]), *input);
        }
    }

    #[test]
    fn blocks_with_a_large_dictionary_get_an_encoder_of_their_own() {
        let input = split_floats(400_000, 5);
        let dictionary = KEPT_DICTIONARY_MAX * 2;
        let mut out = vec![0; input.len() + 4096];
        let n = encode(Container::XzCrc32, 6, dictionary, &input, &mut out).unwrap();
        assert_eq!(&out[..n], liblzma_xz(6, dictionary, &input).as_slice());
        assert!(
            KEPT.with(|kept| kept.borrow().xz.is_none()),
            "no encoder kept for a one-off"
        );
        let n = encode(Container::XzCrc32, 6, 65536, &input, &mut out).unwrap();
        assert_eq!(decode_xz(&out[..n]), input);
        assert!(KEPT.with(|kept| kept.borrow().xz.is_some()));
    }

    #[test]
    fn too_little_room_fails_and_the_encoder_still_works() {
        let input = random_bytes(100_000, 8, 4);
        let mut small = vec![0; 1000];
        assert_eq!(encode(Container::Raw, 6, 65536, &input, &mut small), None);
        let mut out = vec![0; input.len() + 4096];
        let n = encode(Container::XzCrc32, 6, 65536, &input, &mut out).unwrap();
        assert_eq!(decode_xz(&out[..n]), input);
        let raw = encode(Container::Raw, 6, 65536, &input, &mut out).unwrap();
        assert!(raw > input.len() && raw < n, "raw LZMA2 {raw} vs xz {n}");
    }
}
