"""Two builds of rootweave side by side in one run: the headline cases of the other
benchmarks, rootweave's side only, each run by the old build and the new build in
alternation, the fastest of the rounds counting. Reports new over old as a speed ratio
(above 1: the new build is faster). The reference programs (ROOT, uproot) do not change
between builds, so a headline ratio of the old build times this ratio is the new one's.

    .venv/bin/python bench/ab.py --old DIR [--old-python DIR] [--rounds 3] [--scale 0.25]
        [--calls 3] [--uproot] [--python-file FILE] [--only TEXT ...]

DIR holds the old build's `rootweave` and `rootweave-bench` binaries (for example
`target/release` of a checkout of the old commit); --old-python a directory holding its
Python package (`pip install --no-deps --target DIR wheel`), for the Python cases. The
new build is this checkout's, built here. --scale shrinks every case's size (1: the
sizes of the headline commands in README.md).

Cases:
  write nanoaod zstd:5 T=1,2   rootweave generate (the parallel writer), NanoAOD-like
  write single lz4:4 T=2        rootweave generate --schema single
  write nanoaod sequential      rootweave generate --sequential (the RNTupleWriter), zstd:5
  write ttree zlib:1 T=1,2      rootweave generate --format ttree (the TTreeParallelWriter)
  write ttree sequential        rootweave generate --format ttree --sequential (TTreeWriter)
  merge rntuple, merge ttree    rootweave merge of 4 NanoAOD-like files of each format (made
                                once by the new build)
  read int32 zstd:5 T=1,2       rootweave-bench stream-parallel (for_each_parallel)
  read TTree Int_t 0, 505 T=1   rootweave-bench ttree-stream (batches); files by ROOT
  python arrays() T=1,2         rootweave.open(f)["Events"].arrays(library="ak", threads=T):
                                every field into Awkward, --calls calls in one process
                                (each result freed before the next call), the fastest
                                counting, with the minor page faults of that call; with
                                --uproot, uproot's `arrays()` of the same file beside them
                                (one thread: uproot decompresses on the calling thread)
  python histogram() T=1,2      rootweave.histogram of Muon_pt weighted by genWeight over the
                                4 TTree files of the merge case (with --old-python)

Results: bench/out/ab.json.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out"
WORK = OUT / "ab"
PYTHON = sys.executable


def run(cmd, env=None):
    """Runs a command; returns (stdout, wall seconds)."""
    started = time.perf_counter()
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{cmd} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout, elapsed


def reported_seconds(stdout, elapsed):
    """The time a program reports: `seconds X` (rootweave-bench), `X s:` (rootweave
    generate), `python_seconds X` (the Python cases); else the wall time."""
    for pattern in (r"^seconds ([0-9.]+)$", r"^([0-9.]+) s: ", r"^python_seconds ([0-9.]+)$"):
        m = re.search(pattern, stdout, re.M)
        if m:
            return float(m.group(1))
    return elapsed


def build_new():
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "rootweave-cli", "-p",
                    "rootweave-bench"], cwd=REPO, check=True)
    return REPO / "target" / "release"


def ttree_file(path, entries, setting):
    """A TTree `t` of one `Int_t` branch `x`, written by ROOT's RDataFrame."""
    if path.exists():
        return
    code = f"""
import ROOT
opts = ROOT.RDF.RSnapshotOptions()
opts.fCompressionAlgorithm = {setting // 100 if setting else 0}
opts.fCompressionLevel = {setting % 100}
ROOT.RDataFrame({entries}).Define("x", "int((rdfentry_ * 2654435761ULL) % 100000)") \\
    .Snapshot("t", "{path}", ["x"], opts)
"""
    subprocess.run([PYTHON, "-c", code], check=True)


PY_FILL = """
import sys, time
import rootweave
files, threads = sys.argv[1].split(","), int(sys.argv[2])
started = time.perf_counter()
h = rootweave.histogram(files, "Muon_pt", (100, 0, 200), weight="genWeight", threads=threads)
print("python_seconds", time.perf_counter() - started)
print("sum", h.sum().value)
"""


PY_READ = """
import gc, resource, sys, time
library, path, threads, calls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if library == "uproot":
    import uproot
    events = uproot.open(path)["Events"]
    read = lambda: events.arrays()
else:
    import rootweave
    events = rootweave.open(path)["Events"]
    read = lambda: events.arrays(library="ak", threads=threads)
best, faults = float("inf"), 0
for _ in range(calls):
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    started = time.perf_counter()
    arrays = read()
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    if seconds < best:
        best, faults = seconds, after - before
    fields = len(arrays.fields)
    del arrays
print("python_seconds", best)
print("minor_faults", faults)
print("fields", fields)
"""


def cases(args, old, new):
    """(name, {build: command, env}) of every case."""
    s = args.scale
    gen = lambda bins, out, schema, n, codec, t: [  # noqa: E731
        bins / "rootweave", "generate", out, "--schema", schema, "--events", int(n),
        "--compression", codec] + (["--threads", t] if t else [])
    def wanted(*names):
        """True if a case of these names runs (see --only)."""
        return any(not args.only or any(o in n for o in args.only) for n in names)

    out = []
    for t in (1, 2):
        out.append((f"write nanoaod zstd:5 T={t}", {
            b: (gen(bins, WORK / f"w-{b}.root", "nanoaod", 1_000_000 * s, "zstd:5", t), None)
            for b, bins in (("old", old), ("new", new))}))
    out.append(("write single lz4:4 T=2", {
        b: (gen(bins, WORK / f"w-{b}.root", "single", 64 * 2**20 * s, "lz4:4", 2), None)
        for b, bins in (("old", old), ("new", new))}))
    out.append(("write nanoaod sequential", {
        b: (gen(bins, WORK / f"w-{b}.root", "nanoaod", 1_000_000 * s, "zstd:5", None)
            + ["--sequential"], None)
        for b, bins in (("old", old), ("new", new))}))
    ttree = ["--format", "ttree"]
    for t in (1, 2):
        out.append((f"write ttree zlib:1 T={t}", {
            b: (gen(bins, WORK / f"w-{b}.root", "nanoaod", 1_000_000 * s, "zlib:1", t) + ttree,
                None)
            for b, bins in (("old", old), ("new", new))}))
    out.append(("write ttree sequential", {
        b: (gen(bins, WORK / f"w-{b}.root", "nanoaod", 1_000_000 * s, "zlib:1", None)
            + ttree + ["--sequential"], None)
        for b, bins in (("old", old), ("new", new))}))
    inputs = {}
    for fmt, codec in (("rntuple", "zstd:5"), ("ttree", "zlib:1")):
        inputs[fmt] = [WORK / f"merge-{fmt}-{int(250_000 * s)}-{i}.root" for i in range(4)]
        if wanted(f"merge {fmt}", "python histogram() T=1", "python histogram() T=2"):
            for i, f in enumerate(inputs[fmt]):
                if not f.exists():
                    run(gen(new, f, "nanoaod", 250_000 * s, codec, 2)
                        + ["--format", fmt, "--seed", i + 1])
        out.append((f"merge {fmt}", {
            b: ([bins / "rootweave", "merge", "-f", "-j", 2, WORK / f"m-{b}.root",
                 *inputs[fmt]], None)
            for b, bins in (("old", old), ("new", new))}))

    int32 = WORK / f"int32-{int(64 * 2**20 * s)}-zstd5.root"
    if wanted(*(f"read int32 zstd:5 T={t}" for t in (1, 2))) and not int32.exists():
        run([new / "rootweave-bench", "int32", int32, int(64 * 2**20 * s), "zstd:5"])
    for t in (1, 2):
        out.append((f"read int32 zstd:5 T={t}", {
            b: ([bins / "rootweave-bench", "stream-parallel", int32, "ntpl", t, 1, 256,
                 1_000_000], None)
            for b, bins in (("old", old), ("new", new))}))
    for setting in (0, 505):
        f = WORK / f"ttree-int-{int(100_000_000 * s)}-{setting}.root"
        if wanted(f"read TTree Int_t {setting} T=1"):
            ttree_file(f, int(100_000_000 * s), setting)
        out.append((f"read TTree Int_t {setting} T=1", {
            b: ([bins / "rootweave-bench", "ttree-stream", f, "t", 1, 256, 1_000_000, "x"], None)
            for b, bins in (("old", old), ("new", new))}))
    if args.old_python and wanted("python arrays() T=1", "python arrays() T=2"):
        nano = Path(args.python_file) if args.python_file else \
            WORK / f"nanoaod-{int(1_000_000 * s)}-zstd5.root"
        if not nano.exists():
            run(gen(new, nano, "nanoaod", 1_000_000 * s, "zstd:5", 2) + ["--ordered"])
        old_env = dict(os.environ, PYTHONPATH=str(Path(args.old_python).resolve()))
        for t in (1, 2):
            py = lambda lib: [PYTHON, "-c", PY_READ, lib, nano, t, args.calls]  # noqa: E731
            builds = {"old": (py("rootweave"), old_env), "new": (py("rootweave"), None)}
            if args.uproot:
                builds["uproot"] = (py("uproot"), None)
            out.append((f"python arrays() T={t}", builds))
        files = ",".join(str(f) for f in inputs["ttree"])
        for t in (1, 2):
            fill = [PYTHON, "-c", PY_FILL, files, t]
            out.append((f"python histogram() T={t}", {"old": (fill, old_env),
                                                      "new": (fill, None)}))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", required=True, help="directory of the old build's binaries")
    parser.add_argument("--old-python", help="directory holding the old build's Python package")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scale", type=float, default=0.25)
    parser.add_argument("--calls", type=int, default=3,
                        help="calls of arrays() per Python process, the fastest counting")
    parser.add_argument("--python-file", help="the RNTuple `Events` the Python cases read "
                        "(default: a NanoAOD-like file of 1M x --scale events, one cluster per "
                        "10,000, made by the new build)")
    parser.add_argument("--uproot", action="store_true",
                        help="also time uproot's arrays() in the Python cases")
    parser.add_argument("--only", action="append", default=[],
                        help="run only the cases whose name contains this text (repeatable)")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    old = Path(args.old).resolve()
    new = build_new()
    if args.old_python:
        # The new package must be this checkout's: the one installed in the environment.
        import rootweave  # noqa: F401
    table = [(name, c) for name, c in cases(args, old, new)
             if not args.only or any(o in name for o in args.only)]
    best = {name: {build: float("inf") for build in c} for name, c in table}
    faults = {name: {} for name, _ in table}
    for r in range(args.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for name, commands in table:
            for build in order + tuple(b for b in commands if b not in order):
                cmd, env = commands[build]
                stdout, elapsed = run(cmd, env)
                seconds = reported_seconds(stdout, elapsed)
                if seconds < best[name][build]:
                    best[name][build] = seconds
                    m = re.search(r"^minor_faults ([0-9]+)$", stdout, re.M)
                    if m:
                        faults[name][build] = int(m.group(1))
        print(f"round {r + 1} of {args.rounds} done", flush=True)
    print(f"\n{'case':<28} {'old s':>9} {'new s':>9} {'new/old speed':>14}"
          f" {'faults old':>11} {'faults new':>11} {'uproot s':>9} {'new x uproot':>13}")
    for name, b in best.items():
        b["speed_ratio"] = b["old"] / b["new"]
        f = faults[name]
        row = f"{name:<28} {b['old']:9.3f} {b['new']:9.3f} {b['speed_ratio']:14.3f}"
        if f:
            row += f" {f.get('old', 0):11d} {f.get('new', 0):11d}"
            b["minor_faults"] = f
        if "uproot" in b:
            b["uproot_ratio"] = b["uproot"] / b["new"]
            row += f" {b['uproot']:9.3f} {b['uproot_ratio']:13.2f}"
        print(row)
    (OUT / "ab.json").write_text(json.dumps({"args": vars(args), "cases": best}, indent=1))
    print(f"\nresults: {OUT / 'ab.json'}")


if __name__ == "__main__":
    main()
