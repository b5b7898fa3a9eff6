#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for setting in ["lz4:1", "lz4:4", "lz4:9"] {
        rootweave_fuzz::codecs::check_encoder(setting, data);
    }
});
