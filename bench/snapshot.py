"""Snapshot of the ADL benchmark's Q4 selection (events with at least two jets of pt > 40)
with five defined columns, to a TTree (ROOT's default compression, zlib:1, for both), on 2 threads:
rootweave's RDataFrame (input order kept) against ROOT's multithreaded RDataFrame Snapshot
(jitted from Python, the same strings; order not kept).

    .venv/bin/python bench/snapshot.py [--files 8] [--events 125000] [--threads 2]

Data: bench/adl_compare.py's files. Each program a process of its own, timed from making the
graph to the file closed; the outputs' entry counts must agree.
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFINES = [("ht", "Sum(Jet_pt)"), ("n40", "Sum(Jet_pt > 40)"), ("lead_eta", "Jet_eta[0]"),
           ("good_pt", "Jet_pt[abs(Jet_eta) < 2]"), ("met2", "MET_pt * 2.0")]
COLUMNS = ["event", "MET_pt", "Jet_pt"] + [n for n, _ in DEFINES]
CHILD = r'''
import json, sys, time
engine, threads, out, files = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
defines, columns = DEFS, COLS
if engine == "root":
    import ROOT
    if threads > 1:
        ROOT.EnableImplicitMT(threads)
else:
    import rootweave
start = time.perf_counter()
if engine == "root":
    df = ROOT.RDataFrame("Events", files)
else:
    df = rootweave.RDataFrame("Events", files, threads=threads)
sel = df.Filter("Sum(Jet_pt > 40) >= 2")
for name, expr in defines:
    sel = sel.Define(name, expr)
snap = sel.Snapshot("Skim", out, columns)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "entries": int(snap.Count().GetValue())}))
'''


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--events", type=int, default=125_000)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "bench"))
    from adl_compare import WORK, dataset

    files = dataset(args.files, args.events)
    child = CHILD.replace("DEFS", repr(DEFINES)).replace("COLS", repr(COLUMNS))
    results = {}
    for engine in ("rootweave", "root"):
        out = WORK / f"snapshot-{engine}.root"
        done = subprocess.run([sys.executable, "-c", child, engine, str(args.threads), str(out), *files],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(done.stdout + done.stderr)
        results[engine] = json.loads(done.stdout.strip().splitlines()[-1])
        results[engine]["bytes"] = out.stat().st_size
        print(engine, results[engine], flush=True)
    assert results["rootweave"]["entries"] == results["root"]["entries"]
    (REPO / "bench" / "out" / "snapshot.json").write_text(json.dumps({"args": vars(args), "date": time.strftime(
        "%Y-%m-%d"), "results": results}, indent=1))
    print(f"Snapshot of Q4's selection with 5 defined columns, {args.threads} threads: rootweave x"
          f"{results['root']['seconds'] / results['rootweave']['seconds']:.2f} over RDataFrame; file "
          f"{results['rootweave']['bytes'] / results['root']['bytes']:.2f} of its size")


if __name__ == "__main__":
    main()
