"""Opening a wide TTree written by rootweave: 1000 float branches (`rootweave generate
--format ttree --schema wide`), opened by ROOT 6.40 (TFile::Open, Get, the branch list and
one entry) and by uproot 5.7 (open, the tree, its keys and branch types), each in a process
of its own, timed from after the library's import to the tree being usable. Best of
`--repeat` runs. Results go to bench/out/ttree_open.json.

    .venv/bin/python bench/ttree_open.py [--events N] [--repeat R]
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"

ROOT_OPEN = r"""
import sys, time, warnings
warnings.filterwarnings("ignore")
import ROOT
start = time.perf_counter()
f = ROOT.TFile.Open(sys.argv[1])
t = f.Get("Events")
n = t.GetListOfBranches().GetEntries()
t.GetEntry(0)
print("seconds", time.perf_counter() - start, "branches", n)
"""

UPROOT_OPEN = r"""
import sys, time
import uproot
start = time.perf_counter()
t = uproot.open(sys.argv[1])["Events"]
n = len(t.keys())
types = [b.typename for b in t.branches]
print("seconds", time.perf_counter() - start, "branches", n)
"""


def timed(script, path):
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True)
    words = done.stdout.split()
    return float(words[words.index("seconds") + 1]), int(words[words.index("branches") + 1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rootweave-cli"], cwd=REPO, check=True)
    path = OUT / "ttree-open-wide.root"
    subprocess.run([REPO / "target" / "release" / "rootweave", "generate", path, "--schema", "wide", "--format",
                    "ttree", "--events", str(args.events)], check=True, capture_output=True)
    row = {"branches": 1000, "events": args.events, "file_bytes": path.stat().st_size}
    for name, script in (("root", ROOT_OPEN), ("uproot", UPROOT_OPEN)):
        runs = [timed(script, path) for _ in range(args.repeat)]
        assert all(n == 1000 for _, n in runs), runs
        row[f"{name}_seconds"] = min(s for s, _ in runs)
    print(f"wide tree of 1000 branches, {args.events} entries: ROOT opens it in {row['root_seconds']:.3f} s, "
          f"uproot in {row['uproot_seconds']:.3f} s")
    (OUT / "ttree_open.json").write_text(json.dumps(row, indent=1))


if __name__ == "__main__":
    main()
