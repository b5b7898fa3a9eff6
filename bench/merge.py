"""Merging files: `rootweave merge` against ROOT 6.40's `hadd`, side by side in one run, and
against copying the same bytes (`cat` of the inputs into one file). The cases of issue #31:

    (a) 4 files of a 1000-branch TTree (`rootweave generate --format ttree --schema wide`,
        zlib:1), merged fast: `hadd -ff` against `rootweave merge` on 1 and 2 threads;
    (b) 4 files of a 1000-field RNTuple (`rootweave generate --schema wide`, zstd:5), merged
        fast: `hadd -ff` (ROOT's RNTupleMerger) against `rootweave merge`;
    (c) recompression of (a)'s files to zstd:5, and of the same trees written with lz4:4 to
        zlib:1: `hadd -f505` / `hadd -f101` on one process and with `-j 2` against
        `rootweave merge --compression C -j 1` and `-j 2`;
    (d) 200 job outputs, each a NanoAOD-like tree of 10k events and 50 histograms
        (bench/merge_jobs.py, written by ROOT): `hadd -ff` and `hadd -f` (recompressing)
        against `rootweave merge -j 2`.

    .venv/bin/python bench/merge.py [--cases a,c,d] [--entries N] [--jobs J] [--job-events N]
        [--repeat R]

Each program runs in its own process; its time is wall-clock from start to exit (best of
R runs), its memory its peak resident size (GNU time, in one more run). Every output is checked with uproot: the
merged tree has the inputs' entries. Results: bench/out/merge.json.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out" / "merge"
ROOTWEAVE = REPO / "bench" / "out" / "rootweave-merge"


def hadd():
    done = subprocess.run([sys.executable, "-c", "import ROOT, os; print(os.path.dirname(ROOT.__file__))"],
                          capture_output=True, text=True, check=True)
    return str(Path(done.stdout.strip().splitlines()[-1]) / "bin" / "hadd")


def run(cmd, stdout=None, memory=False):
    """Runs one program: its wall time (s) and, with `memory`, its peak resident memory
    (MiB, as GNU time reports the program's own; the kernel's figure for a child of this
    process would count this process's pages too). GNU time adds 10-20 ms of its own to
    the wall time, so times are taken from runs without it."""
    os.sync()
    rss = OUT / "rss.txt"
    wrap = ["/usr/bin/time", "-f", "%M", "-o", str(rss)] if memory else []
    start = time.perf_counter()
    proc = subprocess.run([*wrap, *map(str, cmd)], stdout=stdout or subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    if proc.returncode:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed: {proc.stderr.decode(errors='replace')}")
    result = {"seconds": seconds}
    if memory:
        result["peak_rss_mib"] = int(rss.read_text().split()[-1]) / 1024.0
    return result


def cat(inputs, out, memory=False):
    with open(out, "wb") as fh:
        return run(["cat", *inputs], stdout=fh, memory=memory)


def entries(path, tree="Events"):
    import uproot
    return uproot.open(path)[tree].num_entries


def best(cmd, repeat, out, stdout=None):
    """The fastest of `repeat` runs (each writing `out` afresh), and the peak memory of one
    more run under GNU time."""
    runs = []
    for memory in [False] * repeat + [True]:
        if out.exists():
            out.unlink()
        runs.append(cat(*stdout, memory=memory) if stdout else run(cmd, memory=memory))
    fastest = min(runs[:-1], key=lambda r: r["seconds"])
    return {**fastest, "peak_rss_mib": runs[-1]["peak_rss_mib"]}


def generate(codec, entries_n, seed, path, fmt="ttree"):
    if not path.exists():
        cmd = [ROOTWEAVE, "generate", path, "--format", fmt, "--schema", "wide", "--events", entries_n,
               "--seed", seed, "--compression", codec, "--threads", 2]
        subprocess.run([str(c) for c in cmd], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def case_rows(name, inputs, programs, repeat, want):
    rows = []
    out = OUT / f"{name}-out.root"
    size = sum(p.stat().st_size for p in inputs)
    for label, cmd in programs:
        if label == "cat":
            r = best(None, repeat, out, stdout=(inputs, out))
        else:
            r = best([c if c != "OUT" else out for c in cmd], repeat, out)
            got = entries(out)
            assert got == want, f"{label}: {got} entries, {want} expected"
        r.update({"case": name, "program": label, "input_bytes": size, "output_bytes": out.stat().st_size})
        rows.append(r)
        print(f"{name:10} {label:28} {r['seconds']:8.3f} s {r['peak_rss_mib']:8.1f} MiB "
              f"{r['output_bytes'] / 2**20:9.1f} MiB", flush=True)
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cases", default="a,b,c,d")
    p.add_argument("--entries", type=int, default=20000)
    p.add_argument("--jobs", type=int, default=200)
    p.add_argument("--job-events", type=int, default=10000)
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rootweave-cli"], cwd=REPO, check=True)
    shutil.copy2(REPO / "target" / "release" / "rootweave", ROOTWEAVE)
    h = hadd()
    cases = args.cases.split(",")
    rows = []
    wide = [generate("zlib:1", args.entries, k + 1, OUT / f"wide-zlib-{args.entries}-{k}.root") for k in range(4)]
    n = 4 * args.entries
    rw = lambda *extra: [ROOTWEAVE, "merge", "-f", *extra, "OUT", *wide]  # noqa: E731
    if "a" in cases:
        rows += case_rows("a-fast", wide, [
            ("hadd -ff", [h, "-f", "-ff", "OUT", *wide]),
            ("rootweave -j 1", rw("-j", 1)),
            ("rootweave -j 2", rw("-j", 2)),
            ("cat", None),
        ], args.repeat, n)
    if "b" in cases:
        ntuples = [generate("zstd:5", args.entries, k + 1, OUT / f"wide-rntuple-{args.entries}-{k}.root", "rntuple")
                   for k in range(4)]
        rows += case_rows("b-rntuple", ntuples, [
            ("hadd -ff", [h, "-f", "-ff", "OUT", *ntuples]),
            ("rootweave -j 1", [ROOTWEAVE, "merge", "-f", "-j", 1, "OUT", *ntuples]),
            ("rootweave -j 2", [ROOTWEAVE, "merge", "-f", "-j", 2, "OUT", *ntuples]),
            ("cat", None),
        ], args.repeat, n)
    if "c" in cases:
        rows += case_rows("c-zstd5", wide, [
            ("hadd -f505", [h, "-f505", "OUT", *wide]),
            ("hadd -f505 -j 2", [h, "-f505", "-j", 2, "OUT", *wide]),
            ("rootweave zstd:5 -j 1", rw("--compression", "zstd:5", "-j", 1)),
            ("rootweave zstd:5 -j 2", rw("--compression", "zstd:5", "-j", 2)),
        ], args.repeat, n)
        lz4 = [generate("lz4:4", args.entries, k + 1, OUT / f"wide-lz4-{args.entries}-{k}.root") for k in range(4)]
        rows += case_rows("c-zlib1", lz4, [
            ("hadd -f101", [h, "-f101", "OUT", *lz4]),
            ("hadd -f101 -j 2", [h, "-f101", "-j", 2, "OUT", *lz4]),
            ("rootweave zlib:1 -j 1", [ROOTWEAVE, "merge", "-f", "--compression", "zlib:1", "-j", 1, "OUT", *lz4]),
            ("rootweave zlib:1 -j 2", [ROOTWEAVE, "merge", "-f", "--compression", "zlib:1", "-j", 2, "OUT", *lz4]),
        ], args.repeat, n)
    if "d" in cases:
        jobs_dir = OUT / f"jobs-{args.jobs}-{args.job_events}"
        if not (jobs_dir / f"job{args.jobs - 1:04d}.root").exists():
            jobs_dir.mkdir(exist_ok=True)
            cmd = [sys.executable, REPO / "bench" / "merge_jobs.py", jobs_dir, args.jobs, args.job_events]
            subprocess.run([str(c) for c in cmd], check=True, stdout=subprocess.DEVNULL)
        jobs = sorted(jobs_dir.glob("job*.root"))
        rows += case_rows("d-jobs", jobs, [
            ("hadd -ff", [h, "-f", "-ff", "OUT", *jobs]),
            ("hadd -f", [h, "-f", "OUT", *jobs]),
            ("rootweave -j 2", [ROOTWEAVE, "merge", "-f", "-j", 2, "OUT", *jobs]),
            ("cat", None),
        ], args.repeat, args.jobs * args.job_events)
    ratios = {}
    for case in sorted({r["case"] for r in rows}):
        t = {r["program"]: r["seconds"] for r in rows if r["case"] == case}
        ours = [k for k in t if k.startswith("rootweave")]
        for o in ours:
            for ref in t:
                if not ref.startswith("rootweave"):
                    ratios[f"{case}: {o} vs {ref}"] = t[ref] / t[o]
    for k, v in ratios.items():
        print(f"{k:55} x{v:.2f}")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    (REPO / "bench" / "out" / "merge.json").write_text(json.dumps(
        {"commit": commit, "entries": args.entries, "jobs": args.jobs, "rows": rows, "ratios": ratios}, indent=1))


if __name__ == "__main__":
    main()
