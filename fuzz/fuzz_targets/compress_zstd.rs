#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for setting in ["zstd:1", "zstd:5"] {
        rootweave_fuzz::codecs::check_encoder(setting, data);
    }
});
