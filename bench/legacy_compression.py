"""ROOT 3's legacy 'CS' compression against zlib on the same file.

    .venv/bin/python bench/legacy_compression.py [--rounds 20]

`tests/data/roottest-hsimple.31000.root` (ROOT 3.10's `hsimple`, every block 'CS') and its
zlib twin, which ROOT 6.40 writes (`CloneTree` of the ntuple, so that its baskets are
compressed again, and the histograms), are each opened and read whole by rootweave (the
ntuple's branches and every histogram's contents) in alternation, the fastest round of each
counting; uproot reads the twin (it refuses 'CS' blocks). Prints seconds and the ratio
'CS' over zlib, and writes bench/out/legacy_compression.json.
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "tests" / "data" / "roottest-hsimple.31000.root"
OUT = HERE / "out"

TWIN = r"""
import sys, ROOT
src = ROOT.TFile.Open(sys.argv[1])
out = ROOT.TFile(sys.argv[2], "RECREATE", "", 101)
tree = src.Get("ntuple").CloneTree(-1, "")
tree.Write()
for name in ("hpx", "hpxpy", "hprof"):
    out.WriteTObject(src.Get(name), name)
out.Close()
"""


def twin():
    """The zlib twin, written by ROOT once."""
    path = OUT / "hsimple-zlib.root"
    if not path.exists():
        OUT.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-c", TWIN, str(SOURCE), str(path)], check=True,
                       capture_output=True)
    return path


def read_rootweave(path):
    import rootweave
    f = rootweave.open(path)
    f["ntuple"].arrays(library="np")
    for name in ("hpx", "hpxpy", "hprof"):
        f[name].values(flow=True)


def read_uproot(path):
    import uproot
    with uproot.open(path) as f:
        f["ntuple"].arrays(library="np")
        for name in ("hpx", "hpxpy", "hprof"):
            f[name].values(flow=True)


def fastest(run, path, rounds):
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run(path)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    zlib = twin()
    read_rootweave(SOURCE), read_rootweave(zlib), read_uproot(zlib)
    cs_best, zlib_best, uproot_best = float("inf"), float("inf"), float("inf")
    for _ in range(args.rounds):
        cs_best = min(cs_best, fastest(read_rootweave, SOURCE, 1))
        zlib_best = min(zlib_best, fastest(read_rootweave, zlib, 1))
        uproot_best = min(uproot_best, fastest(read_uproot, zlib, 1))
    result = {"cs_s": cs_best, "zlib_s": zlib_best, "uproot_zlib_s": uproot_best,
              "cs_over_zlib": cs_best / zlib_best, "cs_bytes": SOURCE.stat().st_size,
              "zlib_bytes": zlib.stat().st_size}
    print(f"rootweave 'CS' file  {cs_best * 1e3:8.2f} ms  ({result['cs_bytes']} bytes)")
    print(f"rootweave zlib twin  {zlib_best * 1e3:8.2f} ms  ({result['zlib_bytes']} bytes)")
    print(f"uproot zlib twin     {uproot_best * 1e3:8.2f} ms")
    print(f"'CS' over zlib: x{result['cs_over_zlib']:.2f}")
    (OUT / "legacy_compression.json").write_text(json.dumps(result, indent=1))


main()
