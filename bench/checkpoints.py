"""What checkpoints cost a writer: an RNTuple of NanoAOD-like flat and jagged fields written
through the Python package, sequential and parallel (two threads), without checkpoints, with
the defaults (every 100 MB or 100 clusters), and after every cluster; a TTree writer with and
without its initial save is not measured (one small record). Prints seconds (best of
--repeat), file size and the ratio to the run without checkpoints, in one run:

    .venv/bin/python bench/checkpoints.py [--entries 4000000] [--cluster 50000] [--repeat 3]
"""

import argparse
import os
import tempfile
import threading
import time

import awkward as ak
import numpy as np

import rootweave

SCHEMA = {"id": "int64", "pt": "float32", "eta": "float32", "Muon_pt": "var * float32", "nJet": "int32"}


def chunk(first, n, rng):
    counts = rng.integers(0, 5, n)
    return {"id": np.arange(first, first + n, dtype=np.int64), "pt": rng.random(n, dtype=np.float32) * 100,
            "eta": rng.normal(size=n).astype(np.float32),
            "Muon_pt": ak.unflatten(rng.random(int(counts.sum()), dtype=np.float32) * 50, counts),
            "nJet": counts.astype(np.int32)}


def write(path, entries, cluster, every, threads, chunks):
    options = {"off": (0, 0), "default": (100_000_000, 100), "cluster": (0, 1)}[every]
    with rootweave.create(path, "zstd:5") as f:
        if threads == 1:
            w = f.mkrntuple("Events", SCHEMA, checkpoint_bytes=options[0], checkpoint_clusters=options[1])
            for c in chunks:
                w.extend(c)
                w.commit_cluster()
        else:
            w = f.mkrntuple_parallel("Events", SCHEMA, checkpoint_bytes=options[0], checkpoint_clusters=options[1])

            def run(first):
                ctx = w.context()
                for c in chunks[first::threads]:
                    ctx.extend(c)
                    ctx.commit_cluster()
                ctx.close()

            ts = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=4_000_000)
    parser.add_argument("--cluster", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    chunks = [chunk(k, args.cluster, rng) for k in range(0, args.entries, args.cluster)]
    print(f"{args.entries} entries, clusters of {args.cluster}, best of {args.repeat}")
    with tempfile.TemporaryDirectory() as d:
        for threads in (1, 2):
            base = None
            for every in ("off", "default", "cluster"):
                path = os.path.join(d, f"{every}-{threads}.root")
                best = float("inf")
                for _ in range(args.repeat):
                    start = time.perf_counter()
                    write(path, args.entries, args.cluster, every, threads, chunks)
                    best = min(best, time.perf_counter() - start)
                size = os.path.getsize(path)
                base = base or (best, size)
                print(f"threads {threads}  checkpoints {every:8}  {best:7.3f} s  x{best / base[0]:.3f} time  "
                      f"{size / 1e6:8.2f} MB  x{size / base[1]:.4f} size", flush=True)


if __name__ == "__main__":
    main()
