#!/usr/bin/env bash
# Builds the Python package's wheel and sdist into dist/: one abi3 wheel (every CPython from
# 3.9) for Linux x86_64 that manylinux_2_28 systems accept, linked against glibc 2.28 through
# zig (maturin --zig), without debug information (cargo profile `wheel`, pyproject.toml), with the `rootweave`
# command inside; checked by auditwheel (and twine, that its description renders).
#
#   scripts/wheel.sh            # dist/rootweave-<version>-cp39-abi3-manylinux_2_28_x86_64.whl
#
# The tools (maturin, ziglang, auditwheel, twine) come from PyPI into $VENV (default .venv).
# The XRootD bridge is built when libxrootd-client-dev's headers are there (scripts/test.sh
# installs them); it is loaded at run time, so the wheel needs the XRootD client library only
# for root:// URLs.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
if ! "$VENV/bin/python" -c "import maturin, ziglang, auditwheel, twine" >/dev/null 2>&1; then
  "$VENV/bin/pip" install --quiet "maturin>=1.5,<2" ziglang auditwheel twine
fi
case $VENV in /*) ;; *) VENV="$PWD/$VENV" ;; esac
PATH="$VENV/bin:$PATH"

rm -f dist/rootweave-*.whl dist/rootweave-*.tar.gz
maturin build --quiet -m crates/rootweave-py/Cargo.toml --zig \
  --target x86_64-unknown-linux-gnu --compatibility manylinux_2_28 --out dist
maturin sdist -m crates/rootweave-py/Cargo.toml --out dist >/dev/null
wheel=$(ls dist/rootweave-*-manylinux_2_28_x86_64.whl)
report=$(auditwheel show "$wheel")
echo "$report" | tr '\n' ' ' | grep -q 'consistent with the following platform tag: "manylinux_2_28_x86_64"' \
  || { echo "$report"; echo "auditwheel: $wheel is not manylinux_2_28"; exit 1; }
twine check --strict dist/rootweave-* >/dev/null
echo "$wheel ($(du -h "$wheel" | cut -f1)), $(ls dist/rootweave-*.tar.gz)"
