"""A graph of many histograms (root-project/root #9087: ~1000 histograms of 20k bins), all
filled in one pass: rootweave's RDataFrame against ROOT's (jitted from Python, implicit
multithreading), time and peak resident memory of each process.

    .venv/bin/python bench/many_histograms.py [--histograms 1000] [--bins 20000] [--threads 2]

Data: bench/adl_compare.py's files (made if missing). Each histogram fills `MET_pt` with an
axis of its own (from 0 to 100 + k), so none is a copy of another.
"""

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHILD = r'''
import json, resource, sys, time
engine, n, bins, threads, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
if engine == "root":
    import ROOT
    if threads > 1:
        ROOT.EnableImplicitMT(threads)
    df = ROOT.RDataFrame("Events", files)
else:
    import hist, rootweave
    df = rootweave.RDataFrame("Events", files, threads=threads)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
hs = [df.Histo1D((f"h{k}", "", bins, 0, 100 + k), "MET_pt") for k in range(n)]
total = sum(h.GetValue().GetEntries() if engine == "root" else h.GetValue().sum(flow=True) for h in hs)
print(json.dumps({"seconds": time.perf_counter() - start, "total": total,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "base_mib": base / 1024}))
'''


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--histograms", type=int, default=1000)
    parser.add_argument("--bins", type=int, default=20000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--events", type=int, default=125_000)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "bench"))
    from adl_compare import dataset

    files = dataset(args.files, args.events)
    results = {}
    for engine in ("rootweave", "root"):
        done = subprocess.run([sys.executable, "-c", CHILD, engine, str(args.histograms), str(args.bins),
                               str(args.threads), *files], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(done.stdout + done.stderr)
        results[engine] = json.loads(done.stdout.strip().splitlines()[-1])
        print(engine, results[engine], flush=True)
    assert results["root"]["total"] == results["rootweave"]["total"], results
    out = REPO / "bench" / "out" / "many_histograms.json"
    out.write_text(json.dumps({"args": vars(args), "date": time.strftime("%Y-%m-%d"), "results": results}, indent=1))
    rw, root = results["rootweave"], results["root"]
    print(f"{args.histograms} histograms of {args.bins} bins, {args.threads} threads: rootweave x"
          f"{root['seconds'] / rw['seconds']:.2f} faster; peak memory above start-up "
          f"{rw['peak_mib'] - rw['base_mib']:.0f} MiB against ROOT's {root['peak_mib'] - root['base_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
