"""Single-thread RNTuple writing: rootweave's RNTupleWriter against ROOT 6.40's
RNTupleWriter on the same values, in one run.

    .venv/bin/python bench/rntuple_write.py [--int32-entries N] [--nanoaod-events N]

Cases: (a) 64M `std::int32_t` values (top 20 bits of splitmix64 draws), (b) the NanoAOD-like
data of `rootweave generate`. Each writer runs in its own process; the table reports the
time of the writing alone, the throughput of uncompressed payload, the peak resident memory
of the process (ROOT's includes its start-up baseline of ~220-250 MiB) and, in brackets, the
part added while writing (peak minus the resident memory just before writing starts, after
start-up and after loading the input), the file size and the ratios rootweave/ROOT. Results are also written to bench/out/rntuple_write.json.
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


def root_prefix():
    out = subprocess.run([sys.executable, "-c", "import ROOT, os; print(os.path.dirname(ROOT.__file__))"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


def build():
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rootweave-bench", "-p", "rootweave-testkit"],
                   cwd=REPO, check=True)
    exe = OUT / "root_write"
    src = REPO / "bench" / "cpp" / "root_write.cxx"
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        prefix = root_prefix()
        subprocess.run(["g++", "-O2", "-pthread", "-std=c++17", "-m64", f"-I{prefix}/include", str(src),
                        "-o", str(exe), f"-L{prefix}/lib", "-lCore", "-lRIO", "-lROOTNTuple",
                        f"-Wl,-rpath,{prefix}/lib"], check=True)
    return exe


def run(cmd):
    """Runs a command; returns (seconds it reports, peak RSS in MiB, RSS before writing)."""
    start = time.time()
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    stdout, stderr = proc.stdout.read(), proc.stderr.read()
    if status != 0:
        raise RuntimeError(f"{cmd} failed: {stderr}")
    seconds = float(stdout.split("seconds")[-1].split()[0])
    before = float(stdout.split("rss_before_kib")[-1].split()[0]) / 1024.0
    return seconds, usage.ru_maxrss / 1024.0, before


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--int32-entries", type=int, default=64 * 1024 * 1024)
    parser.add_argument("--nanoaod-events", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", choices=["int32", "nanoaod"], help="run one schema only")
    parser.add_argument("--codecs", help="comma-separated subset, e.g. zstd:5,lz4:4")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    root_exe = build()
    dump = OUT / "nanoaod-dump"
    subprocess.run([TARGET / "rootweave-testkit", "nanoaod", OUT / "nanoaod-ref.root", "--entries",
                    str(args.nanoaod_events), "--expect", dump], check=True)
    payload = {"int32": args.int32_entries * 4}
    payload["nanoaod"] = sum(f.stat().st_size for f in dump.glob("*.bin")
                             if "#counts" not in f.name) + 8 * sum(
        (dump / f"{p}#counts.bin").stat().st_size // 8 for p in
        ["Muon", "Jet_pt", "Jet_eta", "Jet_btag", "Electron_pt", "Track_hits", "Track_hits._0", "dataset"])
    cases = [("int32", c, args.int32_entries) for c in ["none", "lz4:4", "zlib:1", "zstd:5", "lzma:7"]]
    cases += [("nanoaod", c, args.nanoaod_events) for c in ["none", "lz4:4", "zstd:5"]]
    if args.only:
        cases = [c for c in cases if c[0] == args.only]
    if args.codecs:
        cases = [c for c in cases if c[1] in args.codecs.split(",")]
    results = []
    for schema, codec, entries in cases:
        setting = {"none": 0, "lz4:4": 404, "zlib:1": 101, "zstd:5": 505, "lzma:7": 207}[codec]
        arg = entries if schema == "int32" else dump
        row = {"schema": schema, "compression": codec, "entries": entries, "payload_bytes": payload[schema]}
        for name, cmd in [("rootweave", [TARGET / "rootweave-bench", schema, OUT / f"rw-{schema}.root", arg, codec]),
                          ("root", [root_exe, schema, OUT / f"root-{schema}.root", arg, setting])]:
            best = None
            for _ in range(args.repeat):
                seconds, rss, before = run(cmd)
                if best is None or seconds < best[0]:
                    best = (seconds, rss, before)
            size = (OUT / f"{'rw' if name == 'rootweave' else 'root'}-{schema}.root").stat().st_size
            row[name] = {"seconds": best[0], "peak_rss_mib": best[1], "rss_before_mib": best[2],
                         "writing_rss_mib": best[1] - best[2], "file_bytes": size,
                         "mb_per_s": payload[schema] / best[0] / 1e6, "entries_per_s": entries / best[0]}
        row["speed_ratio"] = row["root"]["seconds"] / row["rootweave"]["seconds"]
        row["memory_ratio"] = row["rootweave"]["peak_rss_mib"] / row["root"]["peak_rss_mib"]
        row["writing_memory_ratio"] = row["rootweave"]["writing_rss_mib"] / row["root"]["writing_rss_mib"]
        row["size_ratio"] = row["rootweave"]["file_bytes"] / row["root"]["file_bytes"]
        results.append(row)
        r, o = row["rootweave"], row["root"]
        print(f"{schema:8} {codec:7} rootweave {r['mb_per_s']:7.1f} MB/s peak {r['peak_rss_mib']:6.1f} "
              f"(+{r['writing_rss_mib']:6.1f}) MiB {r['file_bytes'] / 1e6:7.1f} MB | ROOT {o['mb_per_s']:7.1f} MB/s "
              f"peak {o['peak_rss_mib']:6.1f} (+{o['writing_rss_mib']:6.1f}) MiB {o['file_bytes'] / 1e6:7.1f} MB | "
              f"speed x{row['speed_ratio']:.2f} memory x{row['memory_ratio']:.2f} "
              f"(writing x{row['writing_memory_ratio']:.2f}) size x{row['size_ratio']:.3f}", flush=True)
    (OUT / "rntuple_write.json").write_text(json.dumps(results, indent=2))
    for f in OUT.glob("*-*.root"):
        f.unlink()


if __name__ == "__main__":
    main()
