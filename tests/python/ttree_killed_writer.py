"""Writes a TTree with frequent auto-saves, then kills itself with SIGKILL mid-way (as a
crashed or killed job would end), leaving the file as it was:

    python ttree_killed_writer.py FILE CODEC

Prints the number of entries extended before the kill. Every entry has a unique `id`."""

import os
import signal
import sys

import awkward as ak
import numpy as np

import rootweave

CHUNK = 2000


def chunk(k):
    ids = np.arange(k * CHUNK, (k + 1) * CHUNK, dtype=np.int64)
    return {"id": ids, "x": np.sqrt(ids.astype(np.float64)),
            "hits": ak.unflatten(np.repeat(ids.astype(np.float32), ids % 3), ids % 3),
            "tag": [f"e{i}" for i in ids]}


def main(path, codec):
    f = rootweave.create(path, codec)
    t = f.mktree("dir/Events", {"id": "int64", "x": "float64", "hits": "var * float32", "tag": "string"},
                 auto_flush_bytes=60_000, auto_save_bytes=150_000)
    for k in range(60):
        t.extend(chunk(k))
    # A few entries more: too few to end a cluster, so they are never saved.
    t.extend({name: values[:100] for name, values in chunk(60).items()})
    print(60 * CHUNK + 100, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    main(*sys.argv[1:3])
