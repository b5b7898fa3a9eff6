#!/usr/bin/env bash
# The main job: writes a synthetic NanoAOD-like RNTuple (1,000,000 events, zstd) into
# demo/events.root and lists the file. Extra arguments go to `rootweave generate`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p rootweave-cli
mkdir -p demo
./target/release/rootweave generate demo/events.root --events 1000000 "$@"
./target/release/rootweave ls demo/events.root
