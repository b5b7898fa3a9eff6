#!/usr/bin/env bash
# Builds what fuzz/run.sh runs, so that a run starts at once: cargo-fuzz itself (installed
# when missing), the seed writer (examples/make_seeds.rs) and the fuzz targets, with the
# flags run.sh uses (-O -a: optimized, with overflow checks and debug assertions, under
# AddressSanitizer). scripts/test.sh builds them this way beside the Python tests.
#
#   fuzz/build.sh [TARGET...]      # every target when none is named
set -euo pipefail
cd "$(dirname "$0")"

# cargo-fuzz asks for nightly flags (-Zsanitizer=address); a stable toolchain takes them
# with RUSTC_BOOTSTRAP=1.
export RUSTC_BOOTSTRAP=1
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
cargo build --quiet --release --example make_seeds
if [ $# -eq 0 ]; then
    cargo fuzz build -O -a
else
    for target in "$@"; do cargo fuzz build -O -a "$target"; done
fi
