"""Two builds' codecs side by side on the same pages: how a change to compression moves
the codec's time and the stored size.

    .venv/bin/python bench/codec_ab.py OLD_BENCH NEW_BENCH [--case wide:lz4:1 ...]
        [--events N] [--threads 1,2] [--rounds 3]

OLD_BENCH and NEW_BENCH are `rootweave-bench` binaries of the two builds. For each case
`SCHEMA:COMPRESSION`, `rootweave generate` (of this work tree, two threads, the default
256 MiB budget, so pages have the sizes the parallel writer gives them) writes one file;
then `rootweave-bench compress-pages` of the old and the new build compresses its pages
again with the case's setting, alternating old and new in every round; the best time of
each counts. Prints one line per case and thread count: seconds, stored bytes, and the
new build's ratios to the old one.
"""

import argparse
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / "target" / "release" / "rootweave"
DEFAULT_CASES = ["wide:lz4:1", "nanoaod:lz4:1", "complex:lzma:7", "single:lzma:7", "wide:zstd:5",
                 "nanoaod:zstd:5", "wide:zlib:1", "nanoaod:zlib:1"]


def compress_pages(bench, path, compression, threads):
    """`(seconds, stored bytes)` of one compress-pages run (itself best of five)."""
    out = subprocess.run([str(bench), "compress-pages", str(path), "Events", compression, str(threads)],
                         capture_output=True, text=True, check=True).stdout
    values = dict(line.split() for line in out.splitlines() if line.strip())
    return float(values["seconds"]), int(values["stored"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--case", action="append", help="SCHEMA:COMPRESSION (repeatable)")
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.case or DEFAULT_CASES:
            schema, compression = case.split(":", 1)
            path = Path(tmp) / f"{schema}.root"
            events = args.events * (64 if schema == "single" else 1)
            subprocess.run([str(CLI), "generate", str(path), "--schema", schema, "--events", str(events),
                            "--compression", compression, "--threads", "2"], check=True, capture_output=True)
            for t in threads:
                best = {"old": None, "new": None}
                for _ in range(args.rounds):
                    for side, bench in (("old", args.old), ("new", args.new)):
                        seconds, stored = compress_pages(bench, path, compression, t)
                        if best[side] is None or seconds < best[side][0]:
                            best[side] = (seconds, stored)
                (old_s, old_b), (new_s, new_b) = best["old"], best["new"]
                print(f"{case:16} T={t}  old {old_s:8.3f} s {old_b:12d} B   new {new_s:8.3f} s {new_b:12d} B"
                      f"   time x{new_s / old_s:.3f}  size x{new_b / old_b:.4f}", flush=True)
            path.unlink()


if __name__ == "__main__":
    main()
