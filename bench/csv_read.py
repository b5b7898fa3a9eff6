"""An RDataFrame graph over a CSV file: rootweave's `RDF.FromCSV` against ROOT 6.40's
(PyROOT, jitted) and against pandas' `read_csv` alone, in one run.

    .venv/bin/python bench/csv_read.py [--rows 1000000] [--repeat 3]

The file (made once, kept in bench/out/csv): --rows records of `id` (an integer), `x` and `y`
(doubles printed with 17 digits), `ok` (`true`/`false`) and `tag` (one of eight words).
Cases, each in a process of its own, the best of --repeat runs, seconds from the call that
opens the file to the results (imports not counted):
  rootweave   FromCSV(path, threads=T), T = 1, 2, then one pass filling a 100-bin histogram
              of `x` for `ok` records, the sum of `y` where `tag == "gamma"`, and a count.
  root        ROOT.RDF.FromCSV(path) with ROOT.EnableImplicitMT(T) for T = 2 (T = 1 without
              it), the same three results in one event loop.
  pandas      pandas.read_csv(path) alone (the parse, no results): what a library parse of
              the same text costs on this machine.
The three results are checked equal between rootweave and ROOT.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WORK = REPO / "bench" / "out" / "csv"
WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]

CASE = r"""
import json, sys, time
engine, path, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
if engine == "pandas":
    import pandas
    t0 = time.perf_counter()
    frame = pandas.read_csv(path)
    print(json.dumps({"seconds": time.perf_counter() - t0, "rows": len(frame)}))
    sys.exit(0)
if engine == "root":
    import ROOT
    ROOT.gErrorIgnoreLevel = ROOT.kError
    if threads > 1:
        ROOT.EnableImplicitMT(threads)
    t0 = time.perf_counter()
    df = ROOT.RDF.FromCSV(path)
    h = df.Filter("ok").Histo1D(("h", "", 100, -5, 5), "x")
    s, n = df.Filter('tag == "gamma"').Sum("y"), df.Count()
    out = [h.GetValue().Integral(0, 101), s.GetValue(), n.GetValue()]
else:
    import rootweave
    t0 = time.perf_counter()
    df = rootweave.RDF.FromCSV(path, threads=threads)
    h = df.Filter("ok").Histo1D(("h", "", 100, -5, 5), "x")
    s, n = df.Filter('tag == "gamma"').Sum("y"), df.Count()
    out = [float(h.GetValue().values(flow=True).sum()), s.GetValue(), n.GetValue()]
print(json.dumps({"seconds": time.perf_counter() - t0, "results": out}))
"""


def make_file(rows: int) -> Path:
    """The CSV file of `rows` records (written once)."""
    import numpy as np

    path = WORK / f"table-{rows}.csv"
    if path.exists():
        return path
    WORK.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=rows), rng.exponential(3.0, size=rows)
    ok, tag = rng.random(rows) < 0.6, rng.integers(0, len(WORDS), rows)
    with open(path, "w") as f:
        f.write("id,x,y,ok,tag\n")
        for i in range(rows):
            f.write(f"{i},{x[i]:.17g},{y[i]:.17g},{'true' if ok[i] else 'false'},{WORDS[tag[i]]}\n")
    return path


def best(engine: str, path: Path, threads: int, repeat: int) -> dict:
    """The fastest of `repeat` runs of one case, each in a new process."""
    runs = []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", CASE, engine, str(path), str(threads)],
                              capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return min(runs, key=lambda r: r["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    path = make_file(args.rows)
    print(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB")
    pandas = best("pandas", path, 1, args.repeat)
    print(f"| case | rootweave | ROOT RDataFrame | x | / pandas.read_csv ({pandas['seconds']:.3f} s) |")
    print("|---|---|---|---|---|")
    for threads in (1, 2):
        mine, root = best("rootweave", path, threads, args.repeat), best("root", path, threads, args.repeat)
        assert mine["results"][2] == root["results"][2] == args.rows
        assert mine["results"][0] == root["results"][0]
        assert abs(mine["results"][1] - root["results"][1]) <= 1e-9 * abs(root["results"][1])
        print(f"| T={threads} | {mine['seconds']:.3f} s | {root['seconds']:.3f} s | "
              f"{root['seconds'] / mine['seconds']:.2f} | {mine['seconds'] / pandas['seconds']:.2f} |")


if __name__ == "__main__":
    main()
