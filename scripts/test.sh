#!/usr/bin/env bash
# The whole test suite: makes the Python environment in .venv if it is missing (CERN ROOT's
# pip wheel, uproot, awkward, numpy, pytest, pyarrow, polars, pandas, awkward-pandas, matplotlib, hist, maturin, mypy, Dask with
# dask-awkward and distributed, and the wheel's tools), checks formatting, lints and docs, builds the workspace and the
# `rootweave` wheel (scripts/wheel.sh) and installs it into .venv, as a user would, runs the Python tests
# against ROOT and uproot, then the Rust tests. Arguments go to
# pytest (`scripts/test.sh -m "not slow"` skips the slow Python tests); and a 20-second run of each fuzz
# target. The Python tests leave much of the machine idle: clippy and the docs' check, the
# builds of the Rust tests and of the fuzz targets, and the fuzz runs go on beside them at the
# lowest priority (log: target/suite-builds.log), while they run the programs and the C library
# from copies that no build replaces.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv
# dask-awkward 2026.2 works with dask 2025.3 only (left free, pip pairs the newest dask with an
# older dask-awkward that cannot run its graphs).
PACKAGES="root uproot awkward numpy pytest pyarrow polars pandas awkward-pandas matplotlib hist maturin ziglang auditwheel twine mypy dask[dataframe]>=2025.3,<2025.4 dask-awkward>=2026.2.1 distributed>=2025.3,<2025.4"
if ! "$VENV/bin/python" -c "import uproot, awkward, numpy, pytest, ROOT, pyarrow, polars, pandas, awkward_pandas, matplotlib, hist, maturin, ziglang, auditwheel, twine, mypy, dask.dataframe, dask_awkward, distributed; assert dask_awkward.__version__ >= '2026.2'" >/dev/null 2>&1; then
  echo "== setting up $VENV ($PACKAGES)"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip
  "$VENV/bin/pip" install --quiet $PACKAGES
fi

# Servers that the remote-reading tests start on 127.0.0.1 (and openssl, which makes their
# certificates), and the XRootD client library that root:// reading is built with, from
# Debian's packages.
DEBS=""
[ -x /usr/sbin/nginx ] || DEBS="$DEBS nginx-light"
[ -x /usr/bin/xrootd ] || DEBS="$DEBS xrootd-server xrootd-server-plugins"
[ -f /usr/include/xrootd/XrdCl/XrdClFile.hh ] || DEBS="$DEBS libxrootd-client-dev"
command -v openssl >/dev/null || DEBS="$DEBS openssl"
# The C and C++ library's tests: CMake, a C++ compiler, TBB and pkg-config.
[ -x /usr/bin/cmake ] || DEBS="$DEBS cmake"
[ -x /usr/bin/g++ ] || DEBS="$DEBS g++"
[ -f /usr/include/tbb/task_arena.h ] || DEBS="$DEBS libtbb-dev"
[ -x /usr/bin/pkg-config ] || DEBS="$DEBS pkg-config"
if [ -n "$DEBS" ]; then
  echo "== installing$DEBS"
  SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
  $SUDO apt-get install -y --no-install-recommends $DEBS >/dev/null 2>&1 \
    || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y --no-install-recommends $DEBS >/dev/null; }
fi

echo "== cargo fmt"
cargo fmt --all --check
echo "== cargo build, and the C library installed (scripts/install-cpp.sh)"
# With the features of the Rust tests, whose build beside pytest then finds them built.
cargo build --release --workspace --exclude rootweave-py --all-features --bins --examples
scripts/install-cpp.sh target/suite-cpp-prefix >/dev/null
echo "== python wheel (scripts/wheel.sh), installed into $VENV"
VENV="$VENV" scripts/wheel.sh
"$VENV/bin/pip" install --quiet --force-reinstall --no-deps dist/rootweave-*-manylinux_2_28_x86_64.whl
echo "== pytest, with clippy, doc, the Rust tests' build and the fuzz smoke beside it"
# The programs the Python tests run (target/release's; conftest.py's ROOTWEAVE_TARGET), copied
# where no build beside them relinks them, and the C library installed above
# (ROOTWEAVE_CPP_PREFIX, instead of the C and C++ tests' own install).
programs=target/suite-programs
rm -rf "$programs" && mkdir -p "$programs/examples"
find target/release -maxdepth 1 -type f -perm -u+x ! -name '*.so*' -exec cp {} "$programs/" \;
find target/release/examples -maxdepth 1 -type f -perm -u+x ! -name '*-*' ! -name '*.so*' \
  -exec cp {} "$programs/examples/" \;
# A 20-second run of every fuzz target (a finding fails the suite; FUZZ_SMOKE=0 skips it).
fuzz_smoke() {
  for target in rntuple_file rntuple_envelopes ttree_file recover_file \
      compress_lzma compress_lz4 compress_zlib compress_zstd analysis_expression csv_file; do
    KEEP_GOING=0 fuzz/run.sh "$target" 20 > "fuzz/smoke-$target.log" 2>&1 \
      || { tail -40 "fuzz/smoke-$target.log"; echo "fuzz target $target failed"; return 1; }
    grep -h "stat::number_of_executed_units" "fuzz/smoke-$target.log" | sed "s/^/fuzz smoke $target: /"
  done
}
(
  set -e
  nice -n 19 cargo clippy --release --workspace --all-targets --all-features -- -D warnings
  # The CLI's binary is named like the library, whose documentation it would overwrite; the
  # extension module's is its Python package's.
  RUSTDOCFLAGS="-D warnings" nice -n 19 cargo doc --release --workspace --all-features --no-deps \
    --exclude rootweave-cli --exclude rootweave-py --quiet
  nice -n 19 cargo test --release --workspace --exclude rootweave-py --all-features --no-run
  if [ "${FUZZ_SMOKE:-1}" = 1 ]; then
    nice -n 19 fuzz/build.sh
    export -f fuzz_smoke
    nice -n 19 bash -c "set -euo pipefail; fuzz_smoke"
  fi
) > target/suite-builds.log 2>&1 &
builds=$!
pytest_status=0
ROOTWEAVE_TARGET="$PWD/$programs" ROOTWEAVE_CPP_PREFIX="$PWD/target/suite-cpp-prefix" \
  "$VENV/bin/python" -m pytest tests/python -q -p no:cacheprovider "$@" || pytest_status=$?
wait "$builds" || { tail -60 target/suite-builds.log; echo "clippy, doc or a build or fuzz run beside pytest failed"; exit 1; }
grep -h "^fuzz smoke" target/suite-builds.log || true
[ "$pytest_status" = 0 ] || exit "$pytest_status"
echo "== cargo test"
# A watchdog: a test that hangs fails the suite instead of stopping it. The extension module
# is tested from Python (it links against the interpreter that loads it).
timeout --kill-after=60 2400 cargo test --release --workspace --exclude rootweave-py --all-features
