"""Writes an RNTuple or a TTree until it is killed (the test sends SIGKILL at a random
moment, as a batch system or a crash ends a job):

    python killed_writer.py FILE FORMAT CODEC THREADS [CHECKPOINTS]

FORMAT is `rntuple` or `ttree`; THREADS 1 (a sequential writer) or 2 (a parallel writer,
two threads filling through contexts, each committing a cluster per chunk in whatever
order the threads come). Checkpoints (RNTuple) and auto-saves (TTree) come every few
clusters; with CHECKPOINTS `off`, an RNTuple writer makes none (its file then opens only
after `rootweave recover`). After each chunk the script prints `committed N`: the entries its writer
reports as checkpointed or saved, which a reader must find in the file after the kill.
Every entry has a unique `id`; the other fields are derived from it.
"""

import sys
import threading

import awkward as ak
import numpy as np

import rootweave

CHUNK = 1000
SCHEMA = {"id": "int64", "x": "float64", "hits": "var * float32", "tag": "string"}


def chunk(k):
    """Entries `k * CHUNK` to `(k + 1) * CHUNK`: id, sqrt(id), id % 3 hits of value id,
    and the tag "e<id>"."""
    ids = np.arange(k * CHUNK, (k + 1) * CHUNK, dtype=np.int64)
    return {"id": ids, "x": np.sqrt(ids.astype(np.float64)),
            "hits": ak.unflatten(np.repeat(ids.astype(np.float32), ids % 3), ids % 3),
            "tag": [f"e{i}" for i in ids]}


def main(path, kind, codec, threads, checkpoints="on"):
    f = rootweave.create(path, codec)
    printing = threading.Lock()

    def report(n):
        with printing:
            print(f"committed {n}", flush=True)

    every = {"checkpoint_bytes": 150_000, "checkpoint_clusters": 4} if checkpoints == "on" else \
        {"checkpoint_bytes": 0, "checkpoint_clusters": 0}
    if kind == "rntuple" and threads == 1:
        w = f.mkrntuple("Events", SCHEMA, **every)
        for k in range(10**9):
            w.extend(chunk(k))
            w.commit_cluster()
            report(w.checkpointed_entries)
    elif kind == "rntuple":
        w = f.mkrntuple_parallel("Events", SCHEMA, **every)
        produce(w, lambda: report(w.checkpointed_entries))
    elif threads == 1:
        w = f.mktree("Events", SCHEMA, auto_flush_bytes=10**9, auto_save_bytes=150_000)
        for k in range(10**9):
            w.extend(chunk(k))
            w.end_cluster()
            report(w.saved_entries)
    else:
        w = f.mktree_parallel("Events", SCHEMA, auto_flush_bytes=10**9, auto_save_bytes=150_000)
        produce(w, lambda: report(w.saved_entries))


def produce(writer, report):
    """Two threads filling chunks (even and odd) through their own contexts."""

    def run(first):
        ctx = writer.context()
        for k in range(first, 10**9, 2):
            ctx.extend(chunk(k))
            ctx.commit_cluster()
            report()

    threads = [threading.Thread(target=run, args=(first,), daemon=True) for first in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), *sys.argv[5:6])
