#!/usr/bin/env bash
# The main job: writes a synthetic NanoAOD-like RNTuple (1,000,000 events, zstd) into
# demo/events.root, lists the file and prints two entries. Extra arguments go to `rootweave generate`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p rootweave-cli
mkdir -p demo
./target/release/rootweave generate demo/events.root --events 1000000 "$@"
./target/release/rootweave ls demo/events.root
./target/release/rootweave dump demo/events.root Events --entries 0:2 --fields run,event,MET_pt,Muon.Muon_pt,Jet_pt
