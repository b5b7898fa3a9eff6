//! liblzma's LZMA2 encoder, through the `liblzma` crate: a new stream for every block,
//! either an xz stream (what ROOT's LZMA blocks hold) or raw LZMA2 chunks (which
//! `lzma_literals.rs` places inside its own xz stream).

use liblzma::stream::{Action, Check, Filters, LzmaOptions, Status, Stream};

/// What a block is wrapped in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Container {
    /// LZMA2 chunks alone, with the end marker.
    Raw,
    /// An xz stream with a CRC32 check: what ROOT's LZMA blocks hold.
    XzCrc32,
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
    let mut options = LzmaOptions::new_preset(level.min(9)).ok()?;
    options.dict_size(dictionary);
    let mut filters = Filters::new();
    filters.lzma2(&options);
    let mut stream = match container {
        Container::Raw => Stream::new_raw_encoder(&filters).ok()?,
        Container::XzCrc32 => Stream::new_stream_encoder(&filters, Check::Crc32).ok()?,
    };
    loop {
        let (read, written) = (stream.total_in() as usize, stream.total_out() as usize);
        match stream.process(&input[read..], &mut out[written..], Action::Finish) {
            Ok(Status::StreamEnd) => return Some(stream.total_out() as usize),
            // Progress made, more to come, as long as there is room for it.
            Ok(_)
                if (stream.total_out() as usize) < out.len()
                    && (stream.total_in() as usize, stream.total_out() as usize)
                        != (read, written) =>
            {
                continue
            }
            _ => return None,
        }
    }
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
    fn blocks_are_liblzma_s_xz_streams() {
        // Blocks of different sizes and dictionaries: each is the xz stream liblzma
        // writes for it, and decodes back.
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
    fn too_little_room_fails() {
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
