//! ROOT compression blocks: round trips for every codec, ROOT's exact framing, the raw
//! fallback, errors (never panics) on malformed blocks, and blocks written by ROOT itself.

mod common;

use common::test_data;

use rootweave::compress::{
    compress, compress_frames_into, decompress, decompress_into, decompress_into_checked,
    parse_block_header, Codec, Compression, Frames, BLOCK_HEADER_SIZE,
};

const CODECS: [&str; 8] = [
    "zlib:1", "zlib:9", "lz4:1", "lz4:4", "zstd:1", "zstd:5", "lzma:1", "lzma:7",
];

fn compressible(n: usize) -> Vec<u8> {
    (0..n).map(|i| ((i / 7) % 13) as u8).collect()
}

fn random(n: usize) -> Vec<u8> {
    let mut state = 12345u64;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 56) as u8
        })
        .collect()
}

#[test]
fn round_trip_every_codec() {
    for setting in CODECS {
        let c: Compression = setting.parse().unwrap();
        for input in [
            Vec::new(),
            vec![7],
            vec![1; 10],
            compressible(100_000),
            random(5000),
        ] {
            let stored = compress(c, &input);
            assert_eq!(
                decompress(&stored, input.len()).unwrap(),
                input,
                "{setting}"
            );
            assert!(stored.len() <= input.len());
        }
        let text = compressible(100_000);
        let stored = compress(c, &text);
        assert!(stored.len() < text.len() / 5, "{setting} did not compress");
        let header = parse_block_header(&stored).unwrap();
        assert_eq!(header.codec, c.codec());
        assert_eq!(header.uncompressed_size, text.len());
        assert_eq!(header.compressed_size + BLOCK_HEADER_SIZE, stored.len());
    }
}

#[test]
fn incompressible_and_tiny_inputs_are_stored_raw() {
    for setting in CODECS {
        let c: Compression = setting.parse().unwrap();
        let noise = random(4096);
        assert_eq!(compress(c, &noise), noise, "{setting}");
        assert_eq!(compress(c, &[0; 10]), vec![0; 10], "{setting}");
    }
    let data = compressible(1000);
    assert_eq!(compress(Compression::NONE, &data), data);
}

#[test]
fn root_framing_of_each_codec() {
    let data = compressible(10_000);
    let expect = [
        ("zlib:1", b"ZL\x08", &[0x78u8][..]),
        (
            "lzma:7",
            b"XZ\x00",
            &[0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00][..],
        ),
        ("zstd:5", b"ZS\x01", &[0x28, 0xB5, 0x2F, 0xFD][..]),
        ("lz4:4", b"L4\x01", &[][..]),
    ];
    for (setting, tag, magic) in expect {
        let stored = compress(setting.parse().unwrap(), &data);
        assert_eq!(&stored[..3], tag, "{setting}");
        assert_eq!(
            u32::from_le_bytes([stored[6], stored[7], stored[8], 0]),
            10_000
        );
        assert!(stored[9..].starts_with(magic), "{setting}");
    }
    // LZ4: big-endian XXH64 of the LZ4 data, counted in the block's compressed size.
    let stored = compress("lz4".parse().unwrap(), &data);
    // XXH64 as ROOT computes it (reference value of "abc", seed 0).
    assert_eq!(
        twox_hash::XxHash64::oneshot(0, b"abc"),
        0x44BC_2CF5_AD77_0999
    );
    let checksum = twox_hash::XxHash64::oneshot(0, &stored[17..]);
    assert_eq!(&stored[9..17], &checksum.to_be_bytes());
}

#[test]
fn large_inputs_are_cut_into_16_mib_blocks() {
    let data = compressible(17 << 20);
    for setting in ["lz4:1", "zstd:1"] {
        let stored = compress(setting.parse().unwrap(), &data);
        let first = parse_block_header(&stored).unwrap();
        assert_eq!(first.uncompressed_size, 0xFF_FFFF);
        let second =
            parse_block_header(&stored[BLOCK_HEADER_SIZE + first.compressed_size..]).unwrap();
        assert_eq!(second.uncompressed_size, data.len() - 0xFF_FFFF);
        assert_eq!(decompress(&stored, data.len()).unwrap(), data);
    }
}

#[test]
fn malformed_blocks_give_errors() {
    let data = compressible(5000);
    let stored = compress(Compression::with_default_level(Codec::Zstd), &data);
    let err = |payload: &[u8], len: usize| decompress(payload, len).unwrap_err().to_string();
    assert!(err(&stored[..5], data.len()).contains("truncated block header"));
    assert!(err(&stored[..stored.len() - 1], data.len()).contains("past the end"));
    assert!(err(&stored, data.len() + 1).contains("expected"));
    assert!(err(&stored, data.len() - 1).contains("expected"));
    let mut bad_tag = stored.clone();
    bad_tag[0] = b'Q';
    assert!(err(&bad_tag, data.len()).contains("unknown compression block tag"));
    let mut legacy = stored.clone();
    legacy[..2].copy_from_slice(b"CS");
    assert!(err(&legacy, data.len()).contains("legacy"));
    let mut trailing = stored.clone();
    trailing.extend_from_slice(b"xyz");
    assert!(decompress(&trailing, data.len()).is_err());

    let lz4 = compress("lz4".parse().unwrap(), &data);
    let mut bad_sum = lz4.clone();
    bad_sum[10] ^= 1;
    assert!(err(&bad_sum, data.len()).contains("checksum"));
    // Without block checksums (bytes verified by a page checksum), the same block decodes.
    let mut out = vec![0u8; data.len()];
    decompress_into_checked(&bad_sum, &mut out, false).unwrap();
    assert_eq!(out, data);
    // A corrupt LZ4 stream is still an error without them.
    let mut bad_data = lz4.clone();
    for b in &mut bad_data[20..40] {
        *b = 0xff;
    }
    assert!(decompress_into_checked(&bad_data, &mut out, false).is_err());
}

#[test]
fn truncations_and_bit_flips_never_panic() {
    let data = compressible(3000);
    for setting in ["zlib:1", "lz4:4", "zstd:5", "lzma:7"] {
        let stored = compress(setting.parse().unwrap(), &data);
        let mut out = vec![0u8; data.len()];
        for cut in 0..stored.len() {
            assert!(decompress_into(&stored[..cut], &mut out).is_err() || cut == data.len());
        }
        for i in 0..stored.len() {
            for bit in [0x01u8, 0x80] {
                let mut corrupt = stored.clone();
                corrupt[i] ^= bit;
                if decompress_into(&corrupt, &mut out).is_ok() {
                    // A flip the codec cannot notice must still give the full output size.
                    assert_eq!(out.len(), data.len());
                }
            }
        }
    }
}

/// Walks the records of a ROOT file from its first record to its end, as ROOT's
/// `TFile::Map` does, and decompresses every compressed object that is not an RNTuple
/// blob (blobs hold many pages). Returns the number of blocks seen per codec.
fn decode_all_records(name: &str) -> std::collections::HashMap<Codec, usize> {
    let bytes = std::fs::read(test_data(name)).unwrap();
    let be_i32 = |at: usize| i32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    let be_i16 = |at: usize| i16::from_be_bytes(bytes[at..at + 2].try_into().unwrap());
    let version = be_i32(4);
    let mut pos = be_i32(8) as usize;
    let end = if version >= 1_000_000 {
        i64::from_be_bytes(bytes[12..20].try_into().unwrap()) as usize
    } else {
        be_i32(12) as usize
    };
    let mut seen = std::collections::HashMap::new();
    while pos + 26 <= end {
        let nbytes = be_i32(pos);
        if nbytes < 0 {
            pos += (-nbytes) as usize;
            continue;
        }
        assert!(nbytes > 0, "{name}: zero-length record at {pos}");
        let objlen = be_i32(pos + 6) as usize;
        let keylen = be_i16(pos + 14) as usize;
        let key_version = be_i16(pos + 4);
        let class_at = pos + if key_version > 1000 { 34 } else { 26 };
        let class_len = bytes[class_at] as usize;
        let class =
            String::from_utf8_lossy(&bytes[class_at + 1..class_at + 1 + class_len]).into_owned();
        let payload = &bytes[pos + keylen..pos + nbytes as usize];
        if payload.len() != objlen && class != "RBlob" {
            let header = parse_block_header(payload).unwrap();
            *seen.entry(header.codec).or_insert(0) += 1;
            let out = decompress(payload, objlen)
                .unwrap_or_else(|e| panic!("{name}: {class} at {pos}: {e}"));
            assert_eq!(out.len(), objlen);
        }
        pos += nbytes as usize;
    }
    seen
}

#[test]
fn blocks_written_by_root_decode() {
    let cases = [
        ("uproot-HZZ-zlib.root", Codec::Zlib, 20),
        ("uproot-HZZ-lz4.root", Codec::Lz4, 20),
        ("uproot-HZZ-lzma.root", Codec::Lzma, 20),
        ("uproot-HZZ-zstd.root", Codec::Zstd, 20),
        ("uproot-Zmumu-lz4.root", Codec::Lz4, 10),
        ("uproot-sample-6.20.04-lzma.root", Codec::Lzma, 2),
        ("uproot-sample-6.20.04-zlib.root", Codec::Zlib, 2),
        ("uproot-sample-6.20.04-lz4.root", Codec::Lz4, 2),
    ];
    for (name, codec, at_least) in cases {
        let seen = decode_all_records(name);
        assert!(
            seen.get(&codec).copied().unwrap_or(0) >= at_least,
            "{name}: {seen:?}"
        );
    }
    // Uncompressed files have no blocks at all... except the streamer list, which ROOT
    // still compresses with its default.
    let seen = decode_all_records("uproot-HZZ-uncompressed.root");
    assert!(seen.values().sum::<usize>() <= 2, "{seen:?}");
    decode_all_records("ntpl001_staff_rntuple_v1-0-0-0.root");
    decode_all_records("nanoAOD_2015_CMS_Open_Data_ttbar.root");
}

#[test]
fn consecutive_blocks_are_independent_streams() {
    // Compression contexts are reused per thread; every block must still decode alone.
    for setting in ["zlib:1", "zstd:5", "lz4:4", "lzma:1"] {
        let c: Compression = setting.parse().unwrap();
        let mut previous = Vec::new();
        for round in 0..40u64 {
            let mut data = previous.clone();
            data.extend((0..20_000u64).map(|i| ((i * (round + 3)) % 251) as u8));
            data.extend_from_slice(&random(3000));
            let stored = compress(c, &data);
            assert_eq!(
                decompress(&stored, data.len()).unwrap(),
                data,
                "{setting} round {round}"
            );
            previous = data[data.len() / 2..].to_vec();
        }
    }
}

/// The dictionary size an LZMA block declares: the LZMA2 property byte of its xz block
/// header, decoded to the smallest 2^n or 3 * 2^(n-1) that holds the encoder's dictionary.
/// Where the LZMA2 dictionary byte and the block header's CRC32 lie in a one-block xz
/// stream stored after the ROOT block header.
fn lzma_dictionary_byte_at(stored: &[u8]) -> (usize, usize) {
    let xz = &stored[BLOCK_HEADER_SIZE..];
    assert_eq!(&xz[..6], b"\xFD7zXZ\x00", "xz stream magic");
    let block_at = BLOCK_HEADER_SIZE + 12;
    let block = &stored[block_at..];
    let header_len = (usize::from(block[0]) + 1) * 4;
    let flags = block[1];
    assert_eq!(flags & 0x03, 0, "one filter");
    let mut at = 2;
    // Optional compressed and uncompressed sizes (variable-length integers).
    for present in [flags & 0x40 != 0, flags & 0x80 != 0] {
        if present {
            while block[at] & 0x80 != 0 {
                at += 1;
            }
            at += 1;
        }
    }
    assert_eq!(block[at], 0x21, "the LZMA2 filter");
    assert_eq!(block[at + 1], 1, "one property byte");
    (block_at + at + 2, block_at + header_len - 4)
}

fn lzma_block_dictionary(stored: &[u8]) -> u64 {
    let bits = u64::from(stored[lzma_dictionary_byte_at(stored).0]);
    (2 | (bits & 1)) << (bits / 2 + 11)
}

#[test]
fn lzma_dictionary_is_roots_choice() {
    // ROOT: the preset's dictionary, at most a quarter of the block, at least 4 KiB. The
    // size is part of the block's bytes, and a dictionary larger than the page only slows
    // the encoder down.
    let declared = |setting: &str, len: usize| {
        let stored = compress(setting.parse().unwrap(), &compressible(len));
        assert_eq!(decompress(&stored, len).unwrap(), compressible(len));
        lzma_block_dictionary(&stored)
    };
    assert_eq!(declared("lzma:7", 1 << 20), 256 << 10);
    assert_eq!(declared("lzma:7", 8 << 10), 4 << 10);
    assert_eq!(declared("lzma:1", 8 << 20), 1 << 20); // the preset's 1 MiB is below 2 MiB
    assert_eq!(declared("lzma:7", 300_000), 3 << 15); // 75,000 rounded up to 3 * 2^15
    assert_eq!(declared("lzma:9", 4 << 20), 1 << 20);
}

#[test]
fn lzma_blocks_declaring_huge_dictionaries_are_refused() {
    let data = compressible(50_000);
    let stored = compress("lzma:7".parse().unwrap(), &data);
    let (dictionary_at, crc_at) = lzma_dictionary_byte_at(&stored);
    let mut huge = stored.clone();
    huge[dictionary_at] = 40; // 4 GiB - 1, which liblzma would allocate for the block
    let crc = crc32fast::hash(&huge[BLOCK_HEADER_SIZE + 12..crc_at]);
    huge[crc_at..crc_at + 4].copy_from_slice(&crc.to_le_bytes());
    let e = decompress(&huge, data.len()).unwrap_err().to_string();
    assert!(e.contains("dictionary of 128 MiB or more"), "{e}");
    // 64 MiB (code 28), the largest preset's (uproot's lzma level 9 declares it): decoded.
    let mut preset9 = stored.clone();
    preset9[dictionary_at] = 28;
    let crc = crc32fast::hash(&preset9[BLOCK_HEADER_SIZE + 12..crc_at]);
    preset9[crc_at..crc_at + 4].copy_from_slice(&crc.to_le_bytes());
    assert_eq!(decompress(&preset9, data.len()).unwrap(), data);
}

#[test]
fn lzma_checks_are_verified_only_with_block_checksums() {
    let data = compressible(50_000);
    let stored = compress("lzma:7".parse().unwrap(), &data);
    // The xz stream ends: its check (CRC32 of the data), the index, a 12-byte footer
    // whose bytes 4..8 give the index's size in 4-byte units, minus one.
    let footer = stored.len() - 12;
    let backward = u32::from_le_bytes(stored[footer + 4..footer + 8].try_into().unwrap());
    let check_at = footer - (backward as usize + 1) * 4 - 4;
    let mut bad_check = stored.clone();
    bad_check[check_at] ^= 0x55;
    let e = decompress(&bad_check, data.len()).unwrap_err().to_string();
    assert!(e.contains("corrupt xz block"), "{e}");
    // Bytes a page checksum verified already: the same block decodes.
    let mut out = vec![0u8; data.len()];
    decompress_into_checked(&bad_check, &mut out, false).unwrap();
    assert_eq!(out, data);
    // Corrupt LZMA data is still an error without it.
    let mut bad_data = stored.clone();
    let data_at = BLOCK_HEADER_SIZE + 24;
    for b in &mut bad_data[data_at + 10..data_at + 40] {
        *b ^= 0xA5;
    }
    assert!(decompress_into_checked(&bad_data, &mut out, false).is_err());
}

#[test]
fn baskets_of_interleaved_values_keep_liblzmas_structure() {
    // A basket of big-endian ints of 20 random bits: per value a zero byte, a byte of four
    // random bits and two random bytes. liblzma finds that structure; coding the bytes as
    // literal chunks (as split pages are) made such baskets 19% larger.
    let mut state = 7u64;
    let basket: Vec<u8> = (0..8000)
        .flat_map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 44) as u32).to_be_bytes()
        })
        .collect();
    let lzma = Compression::new(Codec::Lzma, 7).unwrap();
    let mut sized = Vec::new();
    compress_frames_into(lzma, Frames::Sized, &basket, &mut sized);
    let mut pages = Vec::new();
    compress_frames_into(lzma, Frames::Pages, &basket, &mut pages);
    assert!(
        (sized.len() as f64) < 0.9 * pages.len() as f64,
        "{} against {}",
        sized.len(),
        pages.len()
    );
    // 20 random bits of 32: 62.5% of the bytes at best.
    assert!(sized.len() < basket.len() * 66 / 100, "{}", sized.len());
    assert_eq!(decompress(&sized, basket.len()).unwrap(), basket);
}

/// A 'CS' block of ROOT 3 and 4: the header, then raw deflate data of `data`, declared to
/// decompress to `declared` bytes.
fn legacy_block(data: &[u8], declared: usize) -> Vec<u8> {
    use std::io::Write;
    let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    raw.write_all(data).unwrap();
    let raw = raw.finish().unwrap();
    let mut block = b"CS\x08".to_vec();
    block.extend_from_slice(&(raw.len() as u32).to_le_bytes()[..3]);
    block.extend_from_slice(&(declared as u32).to_le_bytes()[..3]);
    block.extend_from_slice(&raw);
    block
}

#[test]
fn legacy_cs_blocks_are_raw_deflate() {
    let data = compressible(50_000);
    let block = legacy_block(&data, data.len());
    let header = parse_block_header(&block).unwrap();
    assert!(header.raw_deflate);
    assert_eq!(header.codec, Codec::Zlib);
    assert_eq!(decompress(&block, data.len()).unwrap(), data);
    // Two blocks in a row, as a large object's payload.
    let mut two = block.clone();
    two.extend_from_slice(&legacy_block(&data[..1000], 1000));
    let mut out = vec![0u8; data.len() + 1000];
    decompress_into(&two, &mut out).unwrap();
    assert_eq!(&out[..data.len()], &data[..]);
    assert_eq!(&out[data.len()..], &data[..1000]);
}

#[test]
fn a_legacy_block_holding_a_few_bytes_more_than_declared_is_cut_as_root_cuts_it() {
    let data = compressible(10_000);
    let block = legacy_block(&data, data.len() - 3);
    assert_eq!(
        decompress(&block, data.len() - 3).unwrap(),
        data[..data.len() - 3]
    );
}

#[test]
fn a_short_or_corrupt_legacy_block_is_an_error() {
    let data = compressible(10_000);
    let short = legacy_block(&data, data.len() + 5);
    let err = decompress(&short, data.len() + 5).unwrap_err().to_string();
    assert!(err.contains("decompresses to 10000 bytes"), "{err}");
    let mut corrupt = legacy_block(&random(5000), 5000);
    corrupt[BLOCK_HEADER_SIZE] = 0xff;
    corrupt[BLOCK_HEADER_SIZE + 1] = 0xff;
    assert!(decompress(&corrupt, 5000).is_err());
}
