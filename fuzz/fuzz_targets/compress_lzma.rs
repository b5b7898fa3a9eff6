#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for setting in ["lzma:1", "lzma:7"] {
        rootweave_fuzz::codecs::check_encoder(setting, data);
    }
});
