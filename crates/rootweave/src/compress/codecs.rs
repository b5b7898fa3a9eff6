//! One compression block per codec, both ways. Compression contexts are kept per thread:
//! pages are compressed by the thousand and a fresh context costs more than a small page.

use std::cell::RefCell;

use twox_hash::XxHash64;

use super::block::{write_header, BLOCK_HEADER_SIZE};
use super::liblzma_encoder::{encode, Container};
use super::settings::{Codec, Compression, Frames};

/// Appends one block for `input` to `out`. Returns false (leaving `out` in an unspecified
/// state beyond its original length) if the block would not be smaller than `input`.
pub(crate) fn compress_block(
    compression: Compression,
    frames: Frames,
    input: &[u8],
    out: &mut Vec<u8>,
) -> bool {
    let start = out.len();
    let codec = compression.codec();
    let level = compression.level();
    // Room for the header and codec data strictly smaller than the input.
    let room = input.len().saturating_sub(1);
    let data_start = start + BLOCK_HEADER_SIZE;
    let written = match codec {
        Codec::Zlib => zlib_compress(level, input, out, data_start, room),
        Codec::Lzma => lzma_compress(level, frames, input, out, data_start, room),
        Codec::Lz4 => lz4_compress(level, input, out, data_start),
        // ROOT's level L for ZSTD means libzstd level 2L (R__zipZSTD doubles it).
        Codec::Zstd => zstd_pieces((2 * level).min(22), frames, input, out, data_start),
        Codec::None => None,
    };
    match written {
        Some(n) if BLOCK_HEADER_SIZE + n < input.len() => {
            out.truncate(data_start + n);
            write_header(codec, n, input.len(), &mut out[start..data_start]);
            true
        }
        _ => false,
    }
}

/// Decodes one block's codec data into `out`, which must be filled exactly; `checksum`:
/// verify the block's own checksum where the codec stores one (LZ4's of its compressed
/// data, the xz stream's CRC32 of its output).
pub(crate) fn decompress_block(
    codec: Codec,
    checksum: bool,
    data: &[u8],
    out: &mut [u8],
) -> Result<(), String> {
    match codec {
        Codec::Zlib => zlib_decompress(data, out),
        Codec::Lzma => lzma_decompress(data, checksum, out),
        Codec::Lz4 => lz4_decompress(data, checksum, out),
        Codec::Zstd => zstd_decompress(data, out),
        Codec::None => Err("no codec".into()),
    }
}

fn zlib_compress(
    level: u32,
    input: &[u8],
    out: &mut Vec<u8>,
    at: usize,
    room: usize,
) -> Option<usize> {
    use flate2::{FlushCompress, Status};
    out.resize(at, 0);
    if let Some(n) = super::deflate_noise::compress(zlib_rs_level(level), input, out) {
        return (n <= room).then_some(n);
    }
    // Written into the vector's spare room (no zero-filling it first); the codec stops
    // where the room ends, which may be beyond `room` if the vector has more.
    out.resize(at, 0);
    out.reserve(room);
    super::deflate_streams::with_stream(zlib_rs_level(level), true, |stream| {
        match stream.compress_vec(input, out, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => Some(stream.total_out() as usize),
            _ => None,
        }
    })
}

/// The zlib-rs level that stands for ROOT's zlib `level`. zlib-rs (as zlib-ng) makes its
/// level 1 a different, quicker algorithm than zlib's level 1 (static Huffman codes only,
/// 10-25% larger on split pages and text); its level 2 is the nearest to zlib's level 1:
/// no larger than zlib's output (measured 0.90-0.99 on split int, float and double pages
/// and text) and 1.3-1.5x faster. The other levels keep their number.
fn zlib_rs_level(level: u32) -> u32 {
    if level == 1 {
        2
    } else {
        level
    }
}

thread_local! {
    /// libdeflate inflates a whole block into a buffer of known size 1.7x as fast as
    /// zlib-rs streams it (histogram payloads of job outputs, baskets); one per thread,
    /// for zlib blocks and ROOT 3's raw deflate ('CS') blocks alike.
    static INFLATER: std::cell::RefCell<libdeflater::Decompressor> =
        std::cell::RefCell::new(libdeflater::Decompressor::new());
}

fn zlib_decompress(data: &[u8], out: &mut [u8]) -> Result<(), String> {
    use libdeflater::DecompressionError;
    INFLATER.with(|d| match d.borrow_mut().zlib_decompress(data, out) {
        Ok(n) if n == out.len() => Ok(()),
        Ok(n) => Err(format!(
            "zlib block decompresses to {n} bytes, the header says {}",
            out.len()
        )),
        Err(DecompressionError::InsufficientSpace) => {
            Err("zlib block is larger than its header says".into())
        }
        Err(DecompressionError::BadData) => Err("corrupt or truncated zlib block".into()),
    })
}

/// Inflates the raw deflate data of a 'CS' block (ROOT 3 and 4) into `out`. ROOT takes
/// the block as the declared size also when the stream holds a few bytes more (the next
/// block then overwrites them), so those bytes are dropped here too; a stream that ends
/// short of the declared size is an error.
pub(crate) fn raw_deflate_decompress(data: &[u8], out: &mut [u8]) -> Result<(), String> {
    use libdeflater::DecompressionError;
    let declared = out.len();
    let short = |n: usize| {
        format!("legacy ('CS') deflate block decompresses to {n} bytes, the header says {declared}")
    };
    match INFLATER.with(|d| d.borrow_mut().deflate_decompress(data, out)) {
        Ok(n) if n == declared => Ok(()),
        Ok(n) => Err(short(n)),
        Err(DecompressionError::BadData) => {
            Err("corrupt or truncated legacy ('CS') deflate block".into())
        }
        Err(DecompressionError::InsufficientSpace) => {
            // More than declared: inflate as a stream up to the declared size.
            let mut inflater = flate2::Decompress::new(false);
            match inflater.decompress(data, out, flate2::FlushDecompress::Finish) {
                Ok(_) if inflater.total_out() as usize == declared => Ok(()),
                Ok(_) => Err(short(inflater.total_out() as usize)),
                Err(e) => Err(format!("corrupt legacy ('CS') deflate block: {e}")),
            }
        }
    }
}

/// One xz stream of `input` at `at`: for pages, with the chunks whose matches cannot pay
/// coded as literals (see `lzma_literals.rs`); for sized frames (baskets, whose values'
/// bytes are interleaved: liblzma's position-aware coding and short repeated matches find
/// structure that a chunk's byte statistics do not show, and literals came out 19% larger
/// on `single` baskets), liblzma alone, as ROOT's `R__zip`.
fn lzma_compress(
    level: u32,
    frames: Frames,
    input: &[u8],
    out: &mut Vec<u8>,
    at: usize,
    room: usize,
) -> Option<usize> {
    let dictionary = lzma_dictionary_size(level, input.len());
    out.resize(at, 0);
    if frames == Frames::Pages {
        if let Some(n) = super::lzma_literals::compress(level, dictionary, input, out) {
            return (n <= room).then_some(n);
        }
    }
    out.resize(at + room, 0);
    encode(Container::XzCrc32, level, dictionary, input, &mut out[at..])
}

/// The LZMA dictionary for a block of `input_len` bytes, chosen as ROOT chooses it: the
/// preset's, but no larger than a quarter of the input (and at least liblzma's 4 KiB minimum).
/// The dictionary size is written into the block, so this is what makes our LZMA blocks the
/// bytes ROOT writes for the same page; and a smaller window keeps the binary-tree match
/// finder in cache (1 MiB pages compress about 1.4x faster than with the preset's 16 MiB).
fn lzma_dictionary_size(level: u32, input_len: usize) -> u32 {
    // Dictionary sizes of the xz presets 0..=9.
    const PRESET_DICT: [u32; 10] = [
        256 << 10,
        1 << 20,
        2 << 20,
        4 << 20,
        4 << 20,
        8 << 20,
        8 << 20,
        16 << 20,
        32 << 20,
        64 << 20,
    ];
    const LIBLZMA_MIN_DICT: u32 = 4096;
    let quarter = u32::try_from(input_len / 4).unwrap_or(u32::MAX);
    PRESET_DICT[(level as usize).min(9)].min(quarter.max(LIBLZMA_MIN_DICT))
}

/// The most memory an xz block may ask of the decoder: above the 64 MiB dictionary of the
/// largest xz preset (what uproot's level 9 declares), well below what a corrupt
/// dictionary size could claim (up to 4 GiB, which liblzma would allocate for each block).
const LZMA_DECODER_MEMORY_MAX: u64 = 128 << 20;

fn lzma_decompress(data: &[u8], checksum: bool, out: &mut [u8]) -> Result<(), String> {
    use liblzma::stream::{Action, Error, Status, Stream, IGNORE_CHECK};
    let flags = if checksum { 0 } else { IGNORE_CHECK };
    let mut stream = Stream::new_stream_decoder(LZMA_DECODER_MEMORY_MAX, flags)
        .map_err(|e| format!("xz decoder: {e}"))?;
    match stream.process(data, out, Action::Finish) {
        Ok(Status::StreamEnd) if stream.total_out() as usize == out.len() => Ok(()),
        Ok(Status::StreamEnd) => Err(format!(
            "xz block decompresses to {} bytes, the header says {}",
            stream.total_out(),
            out.len()
        )),
        Ok(_) => Err("xz block is truncated or larger than its header says".into()),
        Err(Error::MemLimit) => Err(format!(
            "xz block declares a dictionary of {} MiB or more",
            LZMA_DECODER_MEMORY_MAX >> 20
        )),
        Err(e) => Err(format!("corrupt xz block: {e}")),
    }
}

/// LZ4 block data is preceded by 8 bytes: the big-endian XXH64 (seed 0) of the LZ4 data.
const LZ4_CHECKSUM: usize = 8;

fn lz4_compress(level: u32, input: &[u8], out: &mut Vec<u8>, at: usize) -> Option<usize> {
    use lz4::block::{compress_bound, compress_to_buffer, CompressionMode};
    let data = at + LZ4_CHECKSUM;
    // As ROOT: LZ4-HC from level 4 on (searching only what can compress), the fast
    // compressor below.
    let n = if level >= 4 {
        out.resize(data, 0);
        super::lz4hc::compress(level, input, out)?
    } else {
        let bound = compress_bound(input.len()).ok()?;
        out.resize(data + bound, 0);
        compress_to_buffer(
            input,
            Some(CompressionMode::DEFAULT),
            false,
            &mut out[data..],
        )
        .ok()?
    };
    let checksum = XxHash64::oneshot(0, &out[data..data + n]);
    out[at..data].copy_from_slice(&checksum.to_be_bytes());
    Some(LZ4_CHECKSUM + n)
}

fn lz4_decompress(data: &[u8], verify: bool, out: &mut [u8]) -> Result<(), String> {
    if data.len() < LZ4_CHECKSUM {
        return Err("LZ4 block shorter than its checksum".into());
    }
    let (checksum, data) = data.split_at(LZ4_CHECKSUM);
    if verify && XxHash64::oneshot(0, data).to_be_bytes() != checksum {
        return Err("LZ4 block checksum mismatch".into());
    }
    // liblz4's bounds-checked decoder: it never reads or writes outside the two slices
    // whatever the input, and copies long literal runs (poorly compressible baskets) at
    // memory speed.
    let expected = i32::try_from(out.len()).map_err(|_| "LZ4 block over 2 GiB".to_string())?;
    match lz4::block::decompress_to_buffer(data, Some(expected), out) {
        Ok(n) if n == out.len() => Ok(()),
        Ok(n) => Err(format!(
            "LZ4 block decompresses to {n} bytes, the header says {}",
            out.len()
        )),
        Err(e) => Err(format!("corrupt LZ4 block: {e}")),
    }
}

/// zstd frames for `input` at `at`: for pages, literal-only frames where matches cannot
/// pay (see `zstd_literals.rs`), or one ordinary frame; for sized frames, one ordinary
/// frame.
fn zstd_pieces(
    level: u32,
    frames: Frames,
    input: &[u8],
    out: &mut Vec<u8>,
    at: usize,
) -> Option<usize> {
    out.resize(at, 0);
    if frames == Frames::Sized {
        // As ROOT's R__zip: one ordinary frame, byte for byte what ROOT writes.
        return zstd_compress(level, frames, input, out, at);
    }
    super::zstd_literals::compress(level, frames, input, out)
        .or_else(|| zstd_compress(level, frames, input, out, at))
}

/// One ordinary zstd frame of `input` at libzstd `level`, written at `at`, with the match
/// finder of a page (see [`page_strategy`]) or, for [`Frames::Sized`], libzstd's own
/// choice for the input's size.
pub(super) fn zstd_compress(
    level: u32,
    frames: Frames,
    input: &[u8],
    out: &mut Vec<u8>,
    at: usize,
) -> Option<usize> {
    thread_local! {
        static ZSTD: RefCell<Option<(u32, Frames, zstd::bulk::Compressor<'static>)>> = const { RefCell::new(None) };
    }
    ZSTD.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell
            .as_ref()
            .is_none_or(|(l, f, _)| *l != level || *f != frames)
        {
            let mut compressor = zstd::bulk::Compressor::new(level as i32).ok()?;
            if frames == Frames::Pages {
                let strategy = page_strategy(level);
                compressor
                    .set_parameter(zstd::stream::raw::CParameter::Strategy(strategy))
                    .ok()?;
            }
            *cell = Some((level, frames, compressor));
        }
        let (_, _, compressor) = cell.as_mut()?;
        let bound = zstd::zstd_safe::compress_bound(input.len());
        // Written into the vector's spare room from `at` on (no zero-filling it first).
        out.resize(at, 0);
        out.reserve(bound);
        let mut cursor = std::io::Cursor::new(&mut *out);
        cursor.set_position(at as u64);
        compressor.compress_to_buffer(input, &mut cursor).ok()
    })
}

/// The match finder of libzstd `level` for a page of ROOT's size (1 MiB), used for every
/// frame whatever its size. libzstd picks its parameters from the input size, and for
/// inputs of 128 KiB or less its levels 8-15 switch from the lazy finders to binary-tree
/// and optimal parsers. Pages smaller than ROOT's (many columns under a memory budget) and
/// frames cut from a page at changes of byte kind are such inputs: a `wide` page of 64 KiB
/// is four frames of 16 KiB, where the binary-tree finder cost 30% of the write time for
/// 0.2% of size. The table sizes still follow the input size (a small frame needs no
/// megabytes of tables).
fn page_strategy(level: u32) -> zstd::zstd_safe::Strategy {
    // SAFETY: ZSTD_getCParams is a pure function of its arguments: it reads libzstd's
    // constant tables and returns a struct by value; out-of-range levels are clamped.
    unsafe { zstd_sys::ZSTD_getCParams(level as i32, 1 << 20, 0) }.strategy
}

fn zstd_decompress(data: &[u8], out: &mut [u8]) -> Result<(), String> {
    thread_local! {
        static ZSTD: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
    }
    ZSTD.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.is_none() {
            *cell = Some(zstd::bulk::Decompressor::new().map_err(|e| format!("zstd: {e}"))?);
        }
        let d = cell.as_mut().expect("created above");
        match d.decompress_to_buffer(data, out) {
            Ok(n) if n == out.len() => Ok(()),
            Ok(n) => Err(format!(
                "zstd block decompresses to {n} bytes, the header says {}",
                out.len()
            )),
            Err(e) => Err(format!("corrupt zstd block: {e}")),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use zstd::zstd_safe::Strategy;

    #[test]
    fn sized_frames_are_the_librarys_own() {
        // A 32 KB basket of small integers: as ROOT's R__zip, libzstd's own parameters for
        // the size and one ordinary frame, byte for byte.
        let mut state = 1u64;
        let input: Vec<u8> = (0..8192)
            .flat_map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                (((state >> 33) % 6) as u32).to_be_bytes()
            })
            .collect();
        let mut sized = Vec::new();
        assert!(compress_block(
            Compression::new(Codec::Zstd, 5).unwrap(),
            Frames::Sized,
            &input,
            &mut sized
        ));
        let library = zstd::bulk::compress(&input, 10).unwrap();
        assert_eq!(&sized[BLOCK_HEADER_SIZE..], &library[..]);
        let mut paged = Vec::new();
        assert!(compress_block(
            Compression::new(Codec::Zstd, 5).unwrap(),
            Frames::Pages,
            &input,
            &mut paged
        ));
        assert_ne!(paged, sized);
    }

    #[test]
    fn small_frames_get_the_match_finder_of_a_full_page() {
        // ROOT's 505 is libzstd level 10: lazy2 on 1 MiB pages.
        assert_eq!(page_strategy(10), Strategy::ZSTD_lazy2);
        // libzstd itself would take a binary-tree finder for a 16 KiB input at level 10.
        // SAFETY: a pure function of its arguments (see page_strategy).
        let small = unsafe { zstd_sys::ZSTD_getCParams(10, 16 << 10, 0) }.strategy;
        assert_ne!(small, Strategy::ZSTD_lazy2);
        // A frame so made decodes to its input.
        let input: Vec<u8> = (0..16_384u32)
            .map(|i| ((i % 251) ^ (i / 97)) as u8)
            .collect();
        let mut out = Vec::new();
        let n = zstd_compress(10, Frames::Pages, &input, &mut out, 0).unwrap();
        let mut back = vec![0u8; input.len()];
        zstd_decompress(&out[..n], &mut back).unwrap();
        assert_eq!(back, input);
    }

    #[test]
    fn lz4_levels_from_4_are_lz4_hc_at_roots_level_on_every_page_size() {
        // A 128 KiB page of split floats, below ROOT's 1 MiB pages: searched at the level the
        // setting names, as ROOT searches it, within 0.1% of liblz4's own LZ4-HC there.
        let page = crate::compress::test_pages::split_floats(32 << 10, 9);
        let mut ours = Vec::new();
        let n = lz4_compress(4, &page, &mut ours, 0).unwrap();
        let mut level_4 = Vec::new();
        let m = super::super::lz4hc::compress(4, &page, &mut level_4).unwrap();
        assert_eq!(&ours[LZ4_CHECKSUM..n], &level_4[..m]);
        let library = lz4::block::compress(
            &page,
            Some(lz4::block::CompressionMode::HIGHCOMPRESSION(4)),
            false,
        )
        .unwrap();
        let excess = m as f64 / library.len() as f64;
        assert!(
            (0.999..1.001).contains(&excess),
            "{m} bytes against liblz4's {}",
            library.len()
        );
        let mut back = vec![0u8; page.len()];
        lz4_decompress(&ours[..n], true, &mut back).unwrap();
        assert_eq!(back, page);
    }

    /// LZ4's fast compressor, as ROOT runs it at levels 1-3.
    fn lz4_fast(input: &[u8]) -> Vec<u8> {
        lz4::block::compress(input, Some(lz4::block::CompressionMode::DEFAULT), false).unwrap()
    }

    #[test]
    fn fast_lz4_is_liblz4_s_fast_compressor_at_every_page_size() {
        for floats in [16 << 10, 256 << 10] {
            let page = crate::compress::test_pages::split_floats(floats, 3);
            let mut ours = Vec::new();
            let n = lz4_compress(1, &page, &mut ours, 0).unwrap();
            assert_eq!(ours[LZ4_CHECKSUM..n], lz4_fast(&page), "{floats} floats");
            let mut back = vec![0u8; page.len()];
            lz4_decompress(&ours[..n], true, &mut back).unwrap();
            assert_eq!(back, page);
        }
    }
}
