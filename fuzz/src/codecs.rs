//! rootweave's encoders against the reference decoders: every block that rootweave
//! writes for an input decodes, with the codec's own library alone, to exactly that
//! input. The hand-written parts (LZMA literal chunks in rootweave's xz streams, LZ4
//! sequences re-emitted around noise, deflate literal blocks, zstd literal-only frames)
//! are reached through the public `compress`, which picks them by the input's content.

use std::io::Read;

use rootweave::compress::{compress, parse_block_header, Codec, Compression, BLOCK_HEADER_SIZE};

/// Compresses `data` at `setting` (e.g. `"lzma:7"`) and decodes every block with the
/// reference library; panics where a block does not decode or the bytes differ.
pub fn check_encoder(setting: &str, data: &[u8]) {
    let compression: Compression = setting.parse().expect("a compression setting");
    let stored = compress(compression, data);
    if stored.len() == data.len() {
        assert_eq!(
            stored, data,
            "{setting}: a payload as long as its input is raw"
        );
        return;
    }
    let mut decoded = Vec::with_capacity(data.len());
    let mut at = 0;
    while at < stored.len() {
        let header = parse_block_header(&stored[at..]).expect("a block header");
        let start = at + BLOCK_HEADER_SIZE;
        let body = &stored[start..start + header.compressed_size];
        let block = reference_decode(header.codec, body, header.uncompressed_size);
        assert_eq!(
            block.len(),
            header.uncompressed_size,
            "{setting}: block at {at} decodes to another size than its header says"
        );
        decoded.extend_from_slice(&block);
        at = start + header.compressed_size;
    }
    assert!(
        decoded == data,
        "{setting}: the blocks decode to other bytes"
    );
}

/// One block's data decoded by its codec's library alone.
fn reference_decode(codec: Codec, body: &[u8], size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size);
    match codec {
        Codec::Zlib => {
            flate2::read::ZlibDecoder::new(body)
                .read_to_end(&mut out)
                .expect("zlib decodes");
        }
        Codec::Lz4 => {
            let (checksum, data) = body.split_at(8);
            assert_eq!(
                twox_hash::XxHash64::oneshot(0, data).to_be_bytes(),
                checksum,
                "LZ4 block checksum"
            );
            out = lz4::block::decompress(data, Some(size as i32)).expect("LZ4 decodes");
        }
        Codec::Zstd => {
            // A block may hold several frames one after the other; the decoder reads on.
            out = zstd::stream::decode_all(body).expect("zstd decodes");
        }
        Codec::Lzma => {
            let mut stream =
                liblzma::stream::Stream::new_stream_decoder(u64::MAX, 0).expect("xz decoder");
            let status = stream
                .process_vec(body, &mut out, liblzma::stream::Action::Finish)
                .expect("xz decodes");
            assert_eq!(
                status,
                liblzma::stream::Status::StreamEnd,
                "one whole xz stream"
            );
            assert_eq!(
                stream.total_in() as usize,
                body.len(),
                "nothing after the stream"
            );
        }
        other => panic!("no reference decoder for {other:?}"),
    }
    out
}
