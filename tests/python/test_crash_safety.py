"""Writers killed with SIGKILL at random moments lose nothing they had checkpointed (RNTuple)
or auto-saved (TTree): ROOT 6.40, uproot and rootweave open every killed file as it is and
read every committed entry exactly once, with the values it was written with."""

import json
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import awkward as ak
import numpy as np
import uproot

import rootweave

HERE = Path(__file__).parent
CODECS = ("zstd:5", "zlib:1", "lz4:4", "lzma:1", "none")
# 100 writers: both formats, 1 and 2 threads, five codecs, five kills each.
WRITERS = [(kind, threads, codec, n) for kind in ("rntuple", "ttree") for threads in (1, 2) for codec in CODECS
           for n in range(5)]


def kill_at_random(path, kind, threads, codec, delay):
    """Runs a writer until it reported a first commit, kills it `delay` seconds later, and
    returns the last number of committed entries it printed."""
    child = subprocess.Popen([sys.executable, str(HERE / "killed_writer.py"), str(path), kind, codec, str(threads)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    committed, deadline = 0, time.monotonic() + 120
    try:
        for line in child.stdout:
            committed = int(line.split()[1])
            if committed > 0 or time.monotonic() > deadline:
                break
        time.sleep(delay)
    finally:
        child.send_signal(signal.SIGKILL)
        out, err = child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL, err
    for line in out.splitlines():
        if line.startswith("committed "):
            committed = max(committed, int(line.split()[1]))
    assert committed > 0, err
    return committed


def expected_fields(ids):
    return {"x": np.sqrt(ids.astype(np.float64)), "hits": (ids % 3).tolist(), "tag": [f"e{i}" for i in ids]}


def test_writers_killed_at_random_moments_keep_every_committed_entry_once(workdir):
    rng = random.Random(20261127)
    jobs = [(Path(workdir) / f"killed-{kind}-{threads}-{codec.replace(':', '')}-{n}.root", kind, threads, codec,
             rng.uniform(0.0, 0.8)) for kind, threads, codec, n in WRITERS]
    with ThreadPoolExecutor(2) as pool:
        committed = list(pool.map(lambda job: kill_at_random(*job), jobs))

    seen = {}
    for (path, kind, threads, _, _), at_least in zip(jobs, committed):
        # uproot opens the file as the kill left it.
        events = uproot.open(path)["Events"]
        got = events.arrays(["id", "x", "hits", "tag"])
        ids = got["id"].to_numpy()
        assert len(ids) >= at_least, path
        assert len(np.unique(ids)) == len(ids), f"{path}: an entry appears twice"
        if threads == 1:
            assert ids.tolist() == list(range(len(ids))), path
        else:
            # Whole chunks (one cluster each), in any order.
            assert np.array_equal(np.sort(ids) % 1000, np.tile(np.arange(1000), len(ids) // 1000)), path
        want = expected_fields(ids)
        assert np.array_equal(got["x"].to_numpy(), want["x"]), path
        assert ak.num(got["hits"]).to_list() == want["hits"], path
        assert ak.all(ak.flatten(got["hits"]) == np.repeat(ids.astype(np.float32), ids % 3)), path
        assert got["tag"].to_list() == want["tag"], path
        # rootweave reads the same entries.
        ours = rootweave.open(path)["Events"].arrays(["id"])["id"]
        assert np.array_equal(np.asarray(ours), ids), path
        seen[str(path)] = ids

    out = Path(workdir) / "killed-root.json"
    done = subprocess.run([sys.executable, str(HERE / "root_check_killed.py"), str(out), *seen],
                          capture_output=True, text=True, timeout=1800, cwd=workdir)
    assert done.returncode == 0, done.stderr[-3000:]
    complaints = [line for line in (done.stdout + done.stderr).splitlines()
                  if line.startswith(("Error in", "Warning in"))]
    assert not complaints, complaints[:10]
    root = json.loads(out.read_text())
    for path, ids in seen.items():
        r = root[path]
        assert "error" not in r, (path, r)
        assert r["entries"] == len(ids) and r["ok"] == len(ids), (path, r)
        assert (r["min"], r["max"]) == (int(ids.min()), int(ids.max())), path
        assert r["sum"] == float(ids.astype(np.float64).sum()), path
        assert r["squares"] == float((ids.astype(np.float64) ** 2).sum()), path
