//! Inputs on which the fuzz targets of fuzz/ found a panic, a hang or a huge allocation.
//! Every file in tests/fuzz_inputs goes through the code of every target (the harness is
//! fuzz/src/lib.rs itself) and must come back, with errors or values, without panicking.
//!
//! Each file has its own test, so that an input whose bug is still open can be ignored
//! (with the bug named) while the others run; `cargo test --test fuzz_regressions --
//! --ignored` runs those.

mod common;

use common::test_data;

#[path = "../../../fuzz/src/lib.rs"]
mod harness;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::Arc;

use rootweave::container::{FileWriter, WriterOptions};
use rootweave::io::MemoryFile;
use rootweave::rntuple::{Field, FieldType, RNTupleWriteOptions, RNTupleWriter, Value};

/// The largest single allocation allowed, as the fuzz targets' `-malloc_limit_mb=1024`: an
/// input that makes a reader allocate what corrupt headers claim aborts the test run.
const MOST_BYTES: usize = 1 << 30;

/// The system allocator, refusing (null) any single allocation above [`MOST_BYTES`].
struct BoundedAllocator;

// SAFETY: every call forwards to `System` with the caller's own arguments, so `System`'s
// guarantees hold; the only other path returns null, which `GlobalAlloc` allows as the
// signal of a failed allocation (the caller then reports it and aborts).
unsafe impl GlobalAlloc for BoundedAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MOST_BYTES {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged (see above).
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MOST_BYTES {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged (see above).
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout (only `System` allocates here).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > MOST_BYTES {
            return std::ptr::null_mut();
        }
        // SAFETY: `ptr` came from `System` with `layout`; forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: BoundedAllocator = BoundedAllocator;

fn inputs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_inputs")
}

fn run(name: &str) {
    let path = inputs_dir().join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    harness::rntuple_file(&bytes);
    harness::rntuple_envelopes(&bytes);
    harness::ttree_file(&bytes);
    harness::recover_file(&bytes);
    harness::analysis_expression(&bytes);
    harness::csv_file(&bytes);
}

/// One test per saved input; the list is checked against the folder below.
macro_rules! inputs {
    ($($(#[$attr:meta])* $test:ident => $file:literal,)*) => {
        $(
            $(#[$attr])*
            #[test]
            fn $test() {
                run($file);
            }
        )*

        const FILES: &[&str] = &[$($file),*];
    };
}

inputs! {
    // A page list whose first cluster starts at entry 0x7f0000000000 instead of 0 (one
    // byte changed): the clusters read began after the start of the requested range and
    // `range.start - first` underflowed in RNTupleReader::read_nodes.
    clusters_start_after_range_start => "clusters_start_after_range_start.bin",
    // A page list whose second cluster starts at entry 4100 instead of 4 (one byte): the
    // clusters left a gap, held fewer entries than the range asked for, and slicing the
    // arrays indexed past their end.
    clusters_leave_a_gap => "clusters_leave_a_gap.bin",
    // A cluster that claims 0x5d00000004 entries (one byte): the read buffers were sized
    // by that count alone (a 400 GB zeroed allocation) before any page was looked at.
    cluster_claims_huge_entry_count => "cluster_claims_huge_entry_count.bin",
    // An offset page holding 0xff00000000000002 (two bytes): making the offsets global
    // added the previous clusters' item count to it and overflowed.
    collection_offsets_overflow => "collection_offsets_overflow.bin",
    // An anchor whose header envelope claims 0xffffffff0000023e stored bytes, more than
    // the maximum key size (four bytes): counting the chunks of the split blob overflows.
    blob_chunk_count_overflow => "blob_chunk_count_overflow.bin",
    // An anchor with a huge header size and a small maximum key size (three bytes):
    // read_blob looks for the chunk count one at a time, for hours.
    blob_chunk_count_hang => "blob_chunk_count_hang.bin",
    // TTree files (uproot-sample-6.20.04-uncompressed with many bytes changed) whose
    // branch metadata and basket headers claim hundreds of GB of values: the TTree bulk
    // path allocated its output arrays from those claims (470 GB, 6 GB) before reading
    // any basket.
    ttree_bulk_output_sized_by_claims => "ttree_bulk_output_sized_by_claims.bin",
    ttree_bulk_output_sized_by_claims_2 => "ttree_bulk_output_sized_by_claims_2.bin",
    // A TTree file whose entry-offset table goes backwards: the item index of an entry
    // before the first one read was negative and adding it to the part's first item
    // overflowed (before the table was found bad).
    ttree_entry_offsets_out_of_order => "ttree_entry_offsets_out_of_order.bin",
    // A keys list whose own key declares a key length shorter than its header (accepted,
    // as ROOT does): the bytes to skip after the header were computed as `keylen -
    // position` and underflowed.
    keys_list_key_length_short => "keys_list_key_length_short.bin",
    // A basket key claiming 1 GiB uncompressed from 45 kB stored (its blocks declare far
    // less): the decompression buffer was allocated at the key's size first.
    ttree_basket_claims_huge_payload => "ttree_basket_claims_huge_payload.bin",
    // A tree whose last save lists no branches: recovering it looked up the first
    // branch's basket ends, of which there were none.
    recovered_tree_without_branches => "recovered_tree_without_branches.bin",
    // Expressions (analysis_expression): `Range(0, -1)`, up to the largest `std::size_t`,
    // grew its list to 1 GiB before its limit of items stopped it; `Take(v, n, default)`
    // padded each list to two billion items (16 GB of positions) without a limit.
    range_to_the_largest_size_t => "range_to_the_largest_size_t.bin",
    take_with_a_default_of_huge_count => "take_with_a_default_of_huge_count.bin",
    // `Range` given an RVec (a list of `Range(0u, nJet)`s, a sum with an empty braced list)
    // read its numbers one per event from the list's items, past their end.
    range_of_a_list => "range_of_a_list.bin",
    range_of_an_empty_braced_list => "range_of_an_empty_braced_list.bin",
    // `StableSort`/`StableArgsort` of a long list with NaN keys: the general-purpose sort
    // stopped with a panic on comparisons that are not a total order.
    stable_sort_of_nan_keys => "stable_sort_of_nan_keys.bin",
    // `Take(v, n)` with `n` the smallest `long long` (`1/ -0.f` made an integer): its error
    // message negated it, an overflow (a panic where overflows are checked).
    take_of_the_smallest_long_long => "take_of_the_smallest_long_long.bin",
}

#[test]
fn every_saved_input_has_a_test() {
    let mut found: Vec<String> = std::fs::read_dir(inputs_dir())
        .expect("tests/fuzz_inputs")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".bin"))
        .collect();
    found.sort();
    let mut listed: Vec<String> = FILES.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(
        found, listed,
        "tests/fuzz_inputs and the list in this file differ"
    );
}

/// The corpus seeds of fuzz/run.sh: RNTuple files of the shared test data under 40 KiB.
fn seeds() -> Vec<PathBuf> {
    let dir = test_data("");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/data")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.contains("rntuple")
                && name.ends_with(".root")
                && !name.contains("int_multicluster")
        })
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() < 40 << 10))
        .collect();
    files.sort();
    files
}

/// An uncompressed file with page checksums, many pages and clusters.
fn uncompressed_file() -> Vec<u8> {
    let memory = Arc::new(MemoryFile::new());
    let file = Arc::new(
        FileWriter::with_backend(memory.clone(), "u.root", WriterOptions::default()).unwrap(),
    );
    let options = RNTupleWriteOptions::default()
        .with_compression("none".parse().unwrap())
        .with_max_page_size(64)
        .with_page_checksums(true);
    let fields = vec![
        Field::new("x", FieldType::Int32),
        Field::new("v", FieldType::vector(FieldType::Float64)),
    ];
    let mut w = RNTupleWriter::in_file(file.clone(), "ntpl", fields, options).unwrap();
    for e in 0..40 {
        let v = (0..e % 3).map(|j| Value::Float64(j as f64)).collect();
        w.fill(&[Value::Int32(e), Value::List(v)]).unwrap();
        if e % 10 == 9 {
            w.commit_cluster().unwrap();
        }
    }
    w.close().unwrap();
    Arc::try_unwrap(file).ok().unwrap().close().unwrap();
    memory.to_bytes()
}

/// The harness reads good files in full, and giving them checksums again (the envelope
/// target) leaves them good, as does recovering them (every RNTuple written by ROOT or by
/// rootweave comes back whole): otherwise the fuzzing would only ever see errors.
#[test]
fn the_harness_reads_good_files() {
    let seeds = seeds();
    assert!(seeds.len() >= 15, "{} seeds", seeds.len());
    let mut files: Vec<(String, Vec<u8>)> = seeds
        .iter()
        .map(|p| (p.display().to_string(), std::fs::read(p).unwrap()))
        .collect();
    files.push(("uncompressed".into(), uncompressed_file()));
    for (name, bytes) in files {
        let plain = harness::rntuple_file(&bytes);
        assert!(plain > 0, "{name}: nothing read");
        assert_eq!(harness::rntuple_envelopes(&bytes), plain, "{name}");
        assert_eq!(harness::recover_file(&bytes), plain, "{name}");
    }
}

/// The corpus seeds of `fuzz/run.sh ttree_file`: TTree files of the shared test data
/// under 100 KiB.
fn ttree_seeds() -> Vec<PathBuf> {
    let dir = test_data("");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/data")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            !name.contains("rntuple") && name.ends_with(".root")
        })
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() < 100 << 10))
        .collect();
    files.sort();
    files
}

/// The TTree harness reads every branch of good files, also after recovering them:
/// otherwise the fuzzing would only ever see errors.
#[test]
fn the_ttree_harness_reads_good_files() {
    let seeds = ttree_seeds();
    assert!(seeds.len() >= 8, "{} seeds", seeds.len());
    for path in seeds {
        let bytes = std::fs::read(&path).unwrap();
        let file = rootweave::container::RootFile::open(&path).unwrap();
        let entries: u64 = rootweave::ttree::list_trees(&file)
            .unwrap()
            .iter()
            .map(|t| {
                rootweave::ttree::TTreeReader::open(&path, t)
                    .unwrap()
                    .entries()
            })
            .sum();
        let values = harness::ttree_file(&bytes);
        assert_eq!(
            values > 0,
            entries > 0,
            "{}: {values} values",
            path.display()
        );
        // Recovering a whole file keeps every tree and value.
        assert_eq!(harness::recover_file(&bytes), values, "{}", path.display());
    }
}

/// The CSV target reads its seeds' cells: a header and three records of four columns, and
/// (options byte 0x3f: no header, `;`, trimmed, comments, first and last lines left out)
/// two records of three.
#[test]
fn the_csv_harness_reads_good_files() {
    let seed = b"\0a,b,c,d\n1,2.5,true,\"x,\"\"y\"\"\"\n,nan,false,\n3,1e5,truex, s \n";
    assert_eq!(harness::csv_file(seed), 12);
    let options = b"\x3f# c\n  1;2.;x # t\n\n  3;.5e3;y\nfooter\n";
    assert_eq!(harness::csv_file(options), 6);
}

/// The encoder targets' check on inputs that take every hand-written path: split pages of
/// floats (noise and low-entropy planes), runs, text, and the test data's files.
#[test]
fn encoders_agree_with_the_reference_decoders() {
    let mut state = 7u64;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let floats: Vec<f32> = (0..60_000)
        .map(|_| (next() % 1_000_000) as f32 * 1e-3)
        .collect();
    let mut split = Vec::new();
    for byte in 0..4 {
        split.extend(floats.iter().map(|f| f.to_le_bytes()[byte]));
    }
    let runs: Vec<u8> = (0..100_000u32).map(|i| (i / 700 % 3) as u8).collect();
    let text: Vec<u8> = (0..80_000u32)
        .flat_map(|i| format!("event {i} muon {} ", i % 17).into_bytes())
        .collect();
    let file = std::fs::read(test_data("uproot-HZZ-uncompressed.root")).unwrap();
    for input in [&split, &runs, &text, &file[..300_000]] {
        for setting in [
            "lzma:1", "lzma:7", "lz4:1", "lz4:4", "zlib:1", "zlib:6", "zstd:1", "zstd:5",
        ] {
            harness::codecs::check_encoder(setting, input);
        }
    }
}
