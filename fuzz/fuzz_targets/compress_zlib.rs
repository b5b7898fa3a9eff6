#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for setting in ["zlib:1", "zlib:6"] {
        rootweave_fuzz::codecs::check_encoder(setting, data);
    }
});
