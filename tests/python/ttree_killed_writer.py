"""Writes a TTree with frequent auto-saves, then kills itself with SIGKILL mid-way (as a
crashed or killed job would end), leaving the file as it was:

    python ttree_killed_writer.py FILE CODEC [parallel]

With `parallel`, two threads fill the tree through contexts of a parallel writer, each
committing a cluster per chunk (auto-saves then happen at commits), in whatever order the
threads come. Prints the number of entries extended before the kill. Every entry has a
unique `id`."""

import os
import signal
import sys
import threading

import awkward as ak
import numpy as np

import rootweave

CHUNK = 2000


def chunk(k):
    ids = np.arange(k * CHUNK, (k + 1) * CHUNK, dtype=np.int64)
    return {"id": ids, "x": np.sqrt(ids.astype(np.float64)),
            "hits": ak.unflatten(np.repeat(ids.astype(np.float32), ids % 3), ids % 3),
            "tag": [f"e{i}" for i in ids]}


SCHEMA = {"id": "int64", "x": "float64", "hits": "var * float32", "tag": "string"}


def fill_in_parallel(f):
    """The first 60 chunks from two threads; returns a context holding nothing yet."""
    w = f.mktree_parallel("dir/Events", SCHEMA, auto_flush_bytes=60_000, auto_save_bytes=150_000)

    def produce(first):
        ctx = w.context()
        for k in range(first, 60, 2):
            ctx.extend(chunk(k))
            ctx.commit_cluster()

    threads = [threading.Thread(target=produce, args=(first,)) for first in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return w.context()


def main(path, codec, mode="sequential"):
    f = rootweave.create(path, codec)
    if mode == "parallel":
        t = fill_in_parallel(f)
    else:
        t = f.mktree("dir/Events", SCHEMA, auto_flush_bytes=60_000, auto_save_bytes=150_000)
        for k in range(60):
            t.extend(chunk(k))
    # A few entries more: too few to end a cluster, so they are never saved.
    t.extend({name: values[:100] for name, values in chunk(60).items()})
    print(60 * CHUNK + 100, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    main(*sys.argv[1:4])
