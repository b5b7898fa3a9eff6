"""Writing from many threads into one file: rootweave's parallel writer against ROOT
6.40's RNTupleParallelWriter and TBufferMerger (TTree), in one run, on the `single`
dataset of `rootweave generate` (std::int32_t values from splitmix64 draws; ROOT's
program makes the very same values).

    .venv/bin/python bench/parallel_write.py [--entries N] [--threads 1,2] [--codecs none,zstd:5]

Reports throughput of uncompressed payload (MB/s), the 1 -> N thread speed-up, peak
resident memory and file size, writes bench/out/parallel_write_<schema>.json and, when matplotlib
is installed, bench/out/parallel_write_<schema>.png (throughput against threads per codec).
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
TARGET = REPO / "target" / "release"
SETTINGS = {"none": 0, "lz4:1": 401, "lz4:4": 404, "zlib:1": 101, "zstd:1": 501, "zstd:5": 505, "lzma:7": 207}


def build():
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rootweave-cli"], cwd=REPO, check=True)
    exe = OUT / "root_parallel_write"
    src = REPO / "bench" / "cpp" / "root_parallel_write.cxx"
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        prefix = subprocess.run([sys.executable, "-c", "import ROOT, os; print(os.path.dirname(ROOT.__file__))"],
                                capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        subprocess.run(["g++", "-O2", "-pthread", "-std=c++17", "-m64", f"-I{prefix}/include", str(src), "-o", str(exe),
                        f"-L{prefix}/lib", "-lCore", "-lRIO", "-lNet", "-lTree", "-lThread", "-lImt", "-lROOTNTuple",
                        f"-Wl,-rpath,{prefix}/lib"], check=True)
    return exe


def run(cmd):
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    stdout, stderr = proc.stdout.read(), proc.stderr.read()
    if status != 0:
        raise RuntimeError(f"{cmd} failed: {stderr}")
    if "seconds" in stdout.split()[0:1]:
        seconds = float(stdout.split()[1])
    else:  # rootweave generate's summary: "<s> s: ..."
        seconds = float(stdout.splitlines()[1].split(" s:")[0])
    return seconds, usage.ru_maxrss / 1024.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=64 * 1024 * 1024)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--codecs", default="none,lz4:4,zlib:1,zstd:5")
    parser.add_argument("--budget", default="256MiB")
    parser.add_argument("--schema", choices=["single", "wide"], default="single",
                        help="wide: 1000 float fields (use fewer entries, e.g. --entries 200000)")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    root_exe = build()
    payload = args.entries * (4000 if args.schema == "wide" else 4)
    results = []
    for codec in args.codecs.split(","):
        for threads in [int(t) for t in args.threads.split(",")]:
            row = {"codec": codec, "threads": threads, "entries": args.entries}
            runs = {
                "rootweave": [TARGET / "rootweave", "generate", OUT / "pw-rw.root", "--schema", args.schema,
                              "--events", args.entries, "--threads", threads, "--compression", codec,
                              "--memory-budget", args.budget],
                "root_rntuple": [root_exe, "rntuple", args.schema, OUT / "pw-rnt.root", args.entries, threads, SETTINGS[codec]],
                "root_tbuffermerger": [root_exe, "tbuffermerger", args.schema, OUT / "pw-tbm.root", args.entries, threads,
                                       SETTINGS[codec]],
            }
            files = {"rootweave": "pw-rw.root", "root_rntuple": "pw-rnt.root", "root_tbuffermerger": "pw-tbm.root"}
            for name, cmd in runs.items():
                seconds, rss = run(cmd)
                size = (OUT / files[name]).stat().st_size
                row[name] = {"seconds": seconds, "mb_per_s": payload / seconds / 1e6, "peak_rss_mib": rss,
                             "file_bytes": size}
                (OUT / files[name]).unlink()
            best_root = max(row["root_rntuple"]["mb_per_s"], row["root_tbuffermerger"]["mb_per_s"])
            row["ratio_to_best_root"] = row["rootweave"]["mb_per_s"] / best_root
            results.append(row)
            print(f"{codec:7} T={threads} rootweave {row['rootweave']['mb_per_s']:7.1f} MB/s "
                  f"{row['rootweave']['peak_rss_mib']:6.0f} MiB {row['rootweave']['file_bytes'] / 1e6:6.1f} MB | "
                  f"RNTupleParallelWriter {row['root_rntuple']['mb_per_s']:7.1f} MB/s "
                  f"{row['root_rntuple']['peak_rss_mib']:6.0f} MiB {row['root_rntuple']['file_bytes'] / 1e6:6.1f} MB | "
                  f"TBufferMerger {row['root_tbuffermerger']['mb_per_s']:7.1f} MB/s "
                  f"{row['root_tbuffermerger']['peak_rss_mib']:6.0f} MiB "
                  f"{row['root_tbuffermerger']['file_bytes'] / 1e6:6.1f} MB | x{row['ratio_to_best_root']:.2f} "
                  f"best ROOT", flush=True)
    for codec in args.codecs.split(","):
        rows = {r["threads"]: r for r in results if r["codec"] == codec}
        if 1 in rows and 2 in rows:
            for name in ["rootweave", "root_rntuple", "root_tbuffermerger"]:
                speedup = rows[2][name]["mb_per_s"] / rows[1][name]["mb_per_s"]
                rows[2][name]["speedup_1_to_2"] = speedup
            print(f"{codec:7} speed-up 1->2 threads: rootweave x{rows[2]['rootweave']['speedup_1_to_2']:.2f}, "
                  f"RNTupleParallelWriter x{rows[2]['root_rntuple']['speedup_1_to_2']:.2f}, "
                  f"TBufferMerger x{rows[2]['root_tbuffermerger']['speedup_1_to_2']:.2f}")
    (OUT / f"parallel_write_{args.schema}.json").write_text(json.dumps(results, indent=2))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return
    codecs = args.codecs.split(",")
    fig, axes = plt.subplots(1, len(codecs), figsize=(4 * len(codecs), 3.5), squeeze=False)
    for ax, codec in zip(axes[0], codecs):
        rows = sorted((r for r in results if r["codec"] == codec), key=lambda r: r["threads"])
        for name, label in [("rootweave", "rootweave"), ("root_rntuple", "RNTupleParallelWriter"),
                            ("root_tbuffermerger", "TBufferMerger")]:
            ax.plot([r["threads"] for r in rows], [r[name]["mb_per_s"] for r in rows], marker="o", label=label)
        ax.set_title(f"{args.schema}, {codec}")
        ax.set_xlabel("threads")
        ax.set_ylabel("MB/s (uncompressed)")
        ax.set_xticks([r["threads"] for r in rows])
    axes[0][0].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(OUT / f"parallel_write_{args.schema}.png", dpi=100)


if __name__ == "__main__":
    main()
