"""Filling a weighted histogram over a dataset: `rootweave.histogram` against ROOT 6.40's
RDataFrame `Histo1D` and uproot 5.7 + boost-histogram, and against the plain read of the same
fields, in one run.

    .venv/bin/python bench/fill.py [--repeat 3] [--files 8] [--events 1000000]

Dataset (made once, kept in bench/out/fill): --files NanoAOD-like TTrees written by rootweave
(zlib:1, ROOT's default), --events events each: `nMuon`, `Muon_pt` and `Muon_eta` (a Poisson
number of muons, mean 1.6), `MET_pt` and `genWeight` (floats). Cases: a 100-bin histogram from
0 to 200 of `Muon_pt` (jagged: each muon weighted by its event's `genWeight`) and of `MET_pt`
(flat), weighted by `genWeight`. Readers, each in a process of its own, the best of --repeat
runs, seconds from opening the first file to the filled histogram (imports not counted):
  rootweave       rootweave.histogram(files, field, (100, 0, 200), weight="genWeight",
                  threads=T), T = 1, 2: decoded and filled on the reader's threads, the same
                  bits for any T.
  bulk read       rootweave-bench dataset-read: the same fields read by the same machinery
                  (Dataset::for_each_parallel, whole clusters of 100k entries), not filled.
  root rdf        bench/cpp/root_fill.cxx: RDataFrame Histo1D with compiled column types, on
                  1 and 2 threads (implicit multi-threading).
  uproot + bh     uproot.iterate(files, [field, "genWeight"], step_size="100 MB"), weights
                  broadcast to the muons with Awkward, boost-histogram Weight fill, one thread.
Every histogram's sum of weights in range is checked against rootweave's.

Targets: at least 10x RDataFrame and 5x uproot + boost-histogram on one thread, within 1.5x of
the plain bulk read of the same fields.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analysis import build_root_program, parse_keyed, peak_rss_kib, run  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
WORK = REPO / "bench" / "out" / "fill"
TARGET = REPO / "target" / "release"
PYTHON = sys.executable
CASES = {"muon": ("Muon_pt", "jagged"), "met": ("MET_pt", "flat")}


def make_dataset(files, events):
    import awkward as ak
    import numpy as np

    import rootweave

    WORK.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(files):
        path = WORK / f"nano-{events}-{i}.root"
        if not path.exists():
            rng = np.random.default_rng(i + 1)
            counts = rng.poisson(1.6, events)
            n = int(counts.sum())
            muons = ak.zip({"pt": ak.unflatten(rng.exponential(30, n).astype(np.float32), counts),
                            "eta": ak.unflatten(rng.normal(0, 1.5, n).astype(np.float32), counts)})
            data = {"Muon": muons, "MET_pt": rng.gamma(2, 25, events).astype(np.float32),
                    "genWeight": rng.normal(1.0, 0.3, events).astype(np.float32)}
            with rootweave.recreate(path) as f:
                tree = f.mktree("Events", {"Muon": "var * {pt: float32, eta: float32}", "MET_pt": "float32",
                                           "genWeight": "float32"})
                step = 200_000
                for start in range(0, events, step):
                    tree.extend({k: v[start:start + step] for k, v in data.items()})
        paths.append(path)
    return paths


def child(mode, case, threads, files):
    import awkward as ak
    import numpy as np

    import rootweave

    import boost_histogram  # noqa: F401  (imports are not timed)
    import hist  # noqa: F401

    field = CASES[case][0]
    if mode == "rootweave":
        start = time.perf_counter()
        h = rootweave.histogram([f"{f}:Events" for f in files], field, (100, 0, 200), weight="genWeight",
                                threads=threads)
        total = float(h.sum().value)
    elif mode == "uproot":
        import boost_histogram as bh
        import uproot

        uproot.open(files[0]).close()
        start = time.perf_counter()
        h = bh.Histogram(bh.axis.Regular(100, 0, 200), storage=bh.storage.Weight())
        for batch in uproot.iterate([f"{f}:Events" for f in files], [field, "genWeight"], step_size="100 MB"):
            values, weights = batch[field], batch["genWeight"]
            if values.ndim > 1:
                weights = ak.flatten(ak.broadcast_arrays(weights, values)[0])
                values = ak.flatten(values)
            h.fill(np.asarray(values), weight=np.asarray(weights))
        total = float(h.sum().value)
    else:
        raise SystemExit(f"unknown mode {mode}")
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "sum": total, "peak_rss_kib": peak_rss_kib()}))


def best(repeat, measure):
    results = [measure() for _ in range(repeat)]
    return min(results, key=lambda r: r["seconds"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--child", nargs="+")
    args = parser.parse_args()
    if args.child:
        mode, case, threads, *files = args.child
        return child(mode, case, int(threads), files)
    run(["cargo", "build", "--release", "-q", "-p", "rootweave-bench"])
    files = make_dataset(args.files, args.events)
    root_fill = build_root_program("root_fill", WORK, libs=())
    bench_bin = TARGET / "rootweave-bench"
    stored = sum(os.path.getsize(f) for f in files)
    print(f"{len(files)} files, {args.events} events each, {stored / 2**20:.0f} MiB")
    results = {}
    for case, (field, shape) in CASES.items():
        rows = {}

        def python(mode, threads):
            out = run([PYTHON, __file__, "--child", mode, case, threads, *files])
            return json.loads(out.strip().splitlines()[-1])

        for t in (1, 2):
            rows[f"rootweave T={t}"] = best(args.repeat, lambda: python("rootweave", t))
            rows[f"bulk read T={t}"] = best(args.repeat, lambda: parse_keyed(run(
                [bench_bin, "dataset-read", t, 100_000, f"{field},genWeight", *[f"{f}:Events" for f in files]])))
            rows[f"root rdf T={t}"] = best(args.repeat, lambda: parse_keyed(run(
                [root_fill, t, "Events", field, "genWeight", shape, *files])))
        rows["uproot + bh"] = best(args.repeat, lambda: python("uproot", 1))
        reference = rows["rootweave T=1"]["sum"]
        for name, r in rows.items():
            if "sum" in r:
                assert abs(r["sum"] - reference) <= 1e-6 * abs(reference), (case, name, r["sum"], reference)
        results[case] = rows
        one = rows["rootweave T=1"]["seconds"]
        print(f"\n{case} ({field}, {shape}):")
        for name, r in rows.items():
            print(f"  {name:16} {r['seconds']:8.3f} s  x{r['seconds'] / one:6.2f} of rootweave T=1  "
                  f"{r.get('peak_rss_kib', 0) / 1024:6.0f} MiB")
    (WORK / "results.json").write_text(json.dumps({"args": vars(args), "results": results}, indent=1))


if __name__ == "__main__":
    main()
