"""Opening a wide TTree written by rootweave: 1000 float branches (`rootweave generate
--format ttree --schema wide`), opened by ROOT 6.40 (TFile::Open, Get, the branch list and
then its first entry) and by uproot 5.7 (open, the tree, its keys and branch types), each in
a process of its own, timed from after the library's import (for ROOT, after a first open of a
tree of one branch, which loads its libraries). ROOT's copy of the same tree
(`bench/cpp/root_ttree_write clone`, built by `bench/ttree_write.py`) is opened the same way,
for reference. Best of `--repeat` runs. Results go to bench/out/ttree_open.json.

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
# ROOT's first open and Get load its libraries (1.3-1.5 s whatever the tree): done on a tree
# of one branch first, untimed.
warm = ROOT.TFile.Open(sys.argv[2])
warm.Get("Events").GetEntry(0)
start = time.perf_counter()
f = ROOT.TFile.Open(sys.argv[1])
t = f.Get("Events")
n = t.GetListOfBranches().GetEntries()
opened = time.perf_counter() - start
t.GetEntry(0)
print("seconds", opened, "first_entry", time.perf_counter() - start, "branches", n)
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
    """(seconds to open, seconds to the first entry or None, branches) of one run."""
    warm = OUT / "ttree-open-one.root"
    done = subprocess.run([sys.executable, "-c", script, str(path), str(warm)], capture_output=True, text=True,
                          check=True)
    words = done.stdout.split()
    first = float(words[words.index("first_entry") + 1]) if "first_entry" in words else None
    return float(words[words.index("seconds") + 1]), first, int(words[words.index("branches") + 1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rootweave-cli"], cwd=REPO, check=True)
    path = OUT / "ttree-open-wide.root"
    subprocess.run([REPO / "target" / "release" / "rootweave", "generate", path, "--schema", "wide", "--format",
                    "ttree", "--sequential", "--events", str(args.events)], check=True, capture_output=True)
    subprocess.run([REPO / "target" / "release" / "rootweave", "generate", OUT / "ttree-open-one.root", "--schema",
                    "single", "--format", "ttree", "--sequential", "--events", "1000"], check=True, capture_output=True)
    # ROOT's own copy of the same tree, for reference.
    theirs = OUT / "ttree-open-wide-root.root"
    subprocess.run([OUT / "root_ttree_write", "clone", path, theirs, "101"], check=True, capture_output=True)
    row = {"branches": 1000, "events": args.events, "file_bytes": path.stat().st_size}
    for file, tag in ((path, ""), (theirs, "_roots_file")):
        for name, script in (("root", ROOT_OPEN), ("uproot", UPROOT_OPEN)):
            runs = [timed(script, file) for _ in range(args.repeat)]
            assert all(n == 1000 for _, _, n in runs), runs
            row[f"{name}{tag}_seconds"] = min(s for s, _, _ in runs)
            if name == "root":
                row[f"root{tag}_first_entry_seconds"] = min(f for _, f, _ in runs)
    print(f"wide tree of 1000 branches, {args.events} entries, rootweave's file (ROOT's copy): ROOT opens it in "
          f"{row['root_seconds']:.3f} s ({row['root_roots_file_seconds']:.3f} s), reads its first entry after "
          f"{row['root_first_entry_seconds']:.3f} s ({row['root_roots_file_first_entry_seconds']:.3f} s); "
          f"uproot opens it in {row['uproot_seconds']:.3f} s ({row['uproot_roots_file_seconds']:.3f} s)")
    (OUT / "ttree_open.json").write_text(json.dumps(row, indent=1))


if __name__ == "__main__":
    main()
