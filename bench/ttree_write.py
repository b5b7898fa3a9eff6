"""TTree writing on one thread: rootweave (`rootweave generate --format ttree`) against
ROOT 6.40's TTree::Fill and uproot 5.7's tree writing, on the same values, in one run.

    .venv/bin/python bench/ttree_write.py [--entries N] [--codecs zstd:5,zlib:1] [--repeat R]

Case `single`: one `Int_t` branch `x`, the top 20 bits of successive splitmix64 draws
(seed 1), 64M entries by default, ROOT's default basket size (32000 bytes) and clusters.
Each writer runs in a process of its own; the table gives the writing time (ROOT and
rootweave: fill loop and close; uproot: its `extend` calls and close, in batches of 1M
entries, the values made beforehand), the throughput of uncompressed values (4 bytes an
entry), the file size and the peak resident memory, and rootweave's ratios. Results also go
to bench/out/ttree_write.json.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
TARGET = REPO / "target" / "release"
SETTINGS = {"none": 0, "zlib:1": 101, "lz4:4": 404, "zstd:5": 505, "lzma:7": 207}

UPROOT = r"""
import sys, time, numpy as np, uproot
out, entries, codec = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def single(first, n):
    golden = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        state = np.uint64(1) + (np.arange(first, first + n, dtype=np.uint64) + np.uint64(1)) * golden
        z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(44)).astype(np.int32)
step = 1 << 20
batches = [single(a, min(step, entries - a)) for a in range(0, entries, step)]
name, _, level = codec.partition(":")
compression = None if name == "none" else {"zlib": uproot.ZLIB, "lz4": uproot.LZ4, "zstd": uproot.ZSTD, "lzma": uproot.LZMA}[name](int(level))
import resource
print("rss_before_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, flush=True)
start = time.perf_counter()
with uproot.recreate(out, compression=compression) as f:
    f.mktree("Events", {"x": np.int32})
    for b in batches:
        f["Events"].extend({"x": b})
print("seconds", time.perf_counter() - start)
"""


def root_prefix():
    out = subprocess.run([sys.executable, "-c", "import ROOT, os; print(os.path.dirname(ROOT.__file__))"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


def build():
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rootweave-cli"], cwd=REPO, check=True)
    exe = OUT / "root_ttree_write"
    src = REPO / "bench" / "cpp" / "root_ttree_write.cxx"
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        prefix = root_prefix()
        subprocess.run(["g++", "-O2", "-pthread", "-std=c++17", "-m64", f"-I{prefix}/include", str(src),
                        "-o", str(exe), f"-L{prefix}/lib", "-lCore", "-lRIO", "-lTree", "-lThread",
                        f"-Wl,-rpath,{prefix}/lib"], check=True)
    return exe


def run(cmd):
    """Runs a writer; returns (seconds, peak RSS in MiB)."""
    start = time.time()
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    stdout, stderr = proc.stdout.read(), proc.stderr.read()
    if status != 0:
        raise RuntimeError(f"{cmd} failed: {stderr}")
    if "seconds" in stdout and "rss_before" in stdout:
        seconds = float(stdout.split("seconds")[-1].split()[0])
    else:  # rootweave generate: "... N.NN s: ..."
        seconds = float(stdout.splitlines()[-1].split(" s:")[0])
    return seconds, usage.ru_maxrss / 1024.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=64 * 1024 * 1024)
    parser.add_argument("--codecs", default="zstd:5,zlib:1")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    root_exe = build()
    payload = 4 * args.entries
    rows = []
    for codec in args.codecs.split(","):
        files = {w: OUT / f"ttree-{w}.root" for w in ("rootweave", "root", "uproot")}
        commands = {
            "rootweave": [TARGET / "rootweave", "generate", files["rootweave"], "--schema", "single", "--format",
                          "ttree", "--events", args.entries, "--compression", codec, "--seed", 1],
            "root": [root_exe, "single", files["root"], args.entries, SETTINGS[codec]],
            "uproot": [sys.executable, "-c", UPROOT, files["uproot"], args.entries, codec],
        }
        row = {"case": "single", "compression": codec, "entries": args.entries}
        for writer, cmd in commands.items():
            best = min(run(cmd) for _ in range(args.repeat))
            row[writer] = {"seconds": best[0], "peak_rss_mib": best[1], "file_bytes": files[writer].stat().st_size,
                           "mb_per_s": payload / best[0] / 1e6}
        for ref in ("root", "uproot"):
            row[f"speed_over_{ref}"] = row[ref]["seconds"] / row["rootweave"]["seconds"]
            row[f"size_over_{ref}"] = row["rootweave"]["file_bytes"] / row[ref]["file_bytes"]
        rows.append(row)
        print(f"single {codec}: " + ", ".join(
            f"{w} {row[w]['seconds']:.2f} s {row[w]['mb_per_s']:.0f} MB/s {row[w]['file_bytes'] / 1e6:.1f} MB "
            f"{row[w]['peak_rss_mib']:.0f} MiB" for w in ("rootweave", "root", "uproot"))
            + f"; speed x{row['speed_over_root']:.2f} over ROOT, x{row['speed_over_uproot']:.2f} over uproot; "
            f"size x{row['size_over_root']:.4f} of ROOT's", flush=True)
    (OUT / "ttree_write.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
