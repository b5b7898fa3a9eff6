"""Writers killed with SIGKILL at random moments lose nothing they had checkpointed (RNTuple)
or auto-saved (TTree): ROOT 6.40, uproot and rootweave open every killed file as it is (or,
for an RNTuple written without checkpoints, after `rootweave recover`) and read every
committed entry exactly once, with the values it was written with; `rootweave recover` of
every killed file keeps at least as much (also the clusters after the last checkpoint or
auto-save), and ROOT reads the recovered files too."""

import json
import random
import signal
import subprocess
import time
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import awkward as ak
import numpy as np
import uproot

import rootweave

HERE = Path(__file__).parent
CODECS = ("zstd:5", "zlib:1", "lz4:4", "lzma:1", "none")
# 100 writers: both formats, 1 and 2 threads, five codecs, five kills each (the first
# RNTuple writer of each kind without checkpoints: its file opens only once recovered).
WRITERS = [(kind, threads, codec, n) for kind in ("rntuple", "ttree") for threads in (1, 2) for codec in CODECS
           for n in range(5)]


def kill_at_random(path, kind, threads, codec, delay, checkpoints):
    """Runs a writer until it reported its first chunk, kills it `delay` seconds later, and
    returns the last number of committed entries it printed."""
    child = subprocess.Popen([sys.executable, str(HERE / "killed_writer.py"), str(path), kind, codec, str(threads),
                              checkpoints],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    committed = 0
    try:
        committed = int(child.stdout.readline().split()[1])
        time.sleep(delay)
    finally:
        child.send_signal(signal.SIGKILL)
        out, err = child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL, err
    for line in out.splitlines():
        if line.startswith("committed "):
            committed = max(committed, int(line.split()[1]))
    return committed


RECOVER = HERE.parent.parent / "target" / "release" / "rootweave"


def recovered(path):
    """`rootweave recover` of `path`, beside it."""
    out = path.with_suffix(".recovered.root")
    done = subprocess.run([str(RECOVER), "recover", str(path), "-o", str(out), "-f"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out


def check_values(path, events, at_least, in_order):
    """The ids of `events`: at least `at_least`, each once, whole chunks, every field as
    derived from its id."""
    got = events.arrays(["id", "x", "hits", "tag"])
    ids = got["id"].to_numpy()
    assert len(ids) >= at_least, path
    assert len(np.unique(ids)) == len(ids), f"{path}: an entry appears twice"
    if in_order:
        assert ids.tolist() == list(range(len(ids))), path
    else:
        # Whole chunks (one cluster each), in any order.
        assert np.array_equal(np.sort(ids) % 1000, np.tile(np.arange(1000), len(ids) // 1000)), path
    want = expected_fields(ids)
    assert np.array_equal(got["x"].to_numpy(), want["x"]), path
    assert ak.num(got["hits"]).to_list() == want["hits"], path
    assert ak.all(ak.flatten(got["hits"]) == np.repeat(ids.astype(np.float32), ids % 3)), path
    assert got["tag"].to_list() == want["tag"], path
    ours = rootweave.open(path)["Events"].arrays(["id"])["id"]
    assert np.array_equal(np.asarray(ours), ids), path
    return ids


def expected_fields(ids):
    return {"x": np.sqrt(ids.astype(np.float64)), "hits": (ids % 3).tolist(), "tag": [f"e{i}" for i in ids]}


def test_writers_killed_at_random_moments_keep_every_committed_entry_once(workdir):
    rng = random.Random(20261127)
    jobs = [(Path(workdir) / f"killed-{kind}-{threads}-{codec.replace(':', '')}-{n}.root", kind, threads, codec,
             rng.uniform(0.0, 0.8), "off" if kind == "rntuple" and n == 0 else "on")
            for kind, threads, codec, n in WRITERS]
    with ThreadPoolExecutor(2) as pool:
        committed = list(pool.map(lambda job: kill_at_random(*job), jobs))

    seen = {}
    unopened = 0
    for (path, kind, threads, _, _, checkpoints), at_least in zip(jobs, committed):
        # uproot opens the file as the kill left it, unless no checkpoint was written yet.
        try:
            events = uproot.open(path)["Events"]
        except Exception:
            assert checkpoints == "off", path
            unopened += 1
            # The writer printed after its first cluster was written.
            at_least = 1000
        else:
            seen[str(path)] = check_values(path, events, at_least, threads == 1)
        # Recovered: the committed entries and the clusters written after them.
        fixed = recovered(path)
        ids = check_values(fixed, uproot.open(fixed)["Events"], at_least, threads == 1)
        assert len(ids) >= len(seen.get(str(path), ())), path
        seen[str(fixed)] = ids
    assert unopened == sum(job[5] == "off" for job in jobs), unopened

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
        if len(ids):
            assert (r["min"], r["max"]) == (int(ids.min()), int(ids.max())), path
        assert r["sum"] == float(ids.astype(np.float64).sum()), path
        assert r["squares"] == float((ids.astype(np.float64) ** 2).sum()), path
