#!/usr/bin/env bash
# The whole test suite: makes the Python environment in .venv if it is missing (CERN ROOT's
# pip wheel, uproot, awkward, numpy, pytest), builds the workspace, runs the Rust tests and
# the Python interoperability tests against ROOT and uproot.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv
if ! "$VENV/bin/python" -c "import uproot, awkward, numpy, pytest, ROOT" >/dev/null 2>&1; then
  echo "== setting up $VENV (ROOT, uproot, awkward, numpy, pytest)"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip
  "$VENV/bin/pip" install --quiet root uproot awkward numpy pytest
fi

echo "== cargo build"
cargo build --release --workspace --bins
echo "== cargo test"
cargo test --release --workspace
echo "== pytest"
"$VENV/bin/python" -m pytest tests/python -q -p no:cacheprovider "$@"
