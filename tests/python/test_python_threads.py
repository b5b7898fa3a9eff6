"""Python threads sharing writers, contexts and readers never hang the interpreter: the
bindings take every lock with the GIL released. Each case runs in a child process
(thread_stress.py) under a watchdog that prints every thread's stack on a hang."""

import gc
import subprocess
import sys

import awkward as ak
import numpy as np
import pytest
import uproot

import rootweave
from conftest import HERE

#: Runs ROOT or takes seconds: left out by `-m 'not slow'`.
pytestmark = pytest.mark.slow

#: The child's own watchdog ends a hung run after 120 s; this one ends a child that
#: could not even print its stacks.
CHILD_TIMEOUT = 900


def run_stress(mode, runs, folder):
    """Runs thread_stress.py and returns its lines; fails with its output and every
    thread's stack if it hung or found a wrong file."""
    try:
        result = subprocess.run([sys.executable, str(HERE / "thread_stress.py"), mode, str(runs), str(folder)],
                                capture_output=True, text=True, timeout=CHILD_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"{mode} hung past {CHILD_TIMEOUT} s:\n{e.stdout}\n{e.stderr}") from None
    output = result.stdout + result.stderr
    assert "Timeout" not in result.stderr, f"{mode} hung; every thread's stack:\n{output}"
    assert result.returncode == 0, f"{mode} failed:\n{output}"
    lines = result.stdout.splitlines()
    assert len(lines) == runs, output
    return lines


def test_four_threads_share_one_sequential_writer(tmp_path):
    # Four threads extending one writer from `mkrntuple`, 100 runs: every run ends, and
    # its file holds all 400,000 entries once, in 80 whole batches.
    lines = run_stress("shared-writer", 100, tmp_path)
    assert all(line.endswith(": 400000 entries in 80 whole batches") for line in lines), lines[:3]


def test_eight_threads_random_operations_on_writers_and_a_reader(tmp_path):
    # 20 runs in a row of 200 rounds on 8 threads: extends of a shared sequential writer,
    # of own and shared fill contexts, contexts closed and made again, reads and iteration
    # of one reader, and writers and files closed while others extend.
    lines = run_stress("stress", 20, tmp_path)
    for line in lines:
        seq, par = line.split(": ", 1)[1].split(";")[0].split(", ")
        assert int(seq.split()[1]) > 0 and int(par.split()[1]) > 0, line


def test_writers_collected_unclosed_still_complete_their_files(tmp_path):
    # Nobody calls close: the writers, a context and the files are collected. Each
    # writer commits what it holds before its file closes, as with ROOT's destructors.
    seq_path, par_path = tmp_path / "seq.root", tmp_path / "par.root"
    f = rootweave.create(seq_path)
    w = f.mkrntuple("Events", {"id": "int64", "v": "var * float32"})
    w.extend({"id": np.arange(1000), "v": ak.unflatten(np.ones(1000, np.float32), np.ones(1000, int))})
    g = rootweave.create(par_path)
    p = g.mkrntuple_parallel("Events", {"id": "int64"})
    p.context().extend({"id": np.arange(500)})
    kept = p.context()
    kept.extend({"id": np.arange(500, 700)})
    del f, w, g, p, kept
    gc.collect()
    seq = uproot.open(seq_path)["Events"].arrays()
    assert np.asarray(seq["id"]).tolist() == list(range(1000))
    assert ak.to_list(seq["v"][:2]) == [[1.0], [1.0]]
    assert sorted(uproot.open(par_path)["Events"].arrays(library="np")["id"].tolist()) == list(range(700))


def test_closed_writers_and_contexts_raise_and_close_again_quietly(tmp_path):
    with rootweave.create(tmp_path / "c.root") as f:
        w = f.mkrntuple("A", {"x": "int32"})
        w.extend({"x": np.arange(3, dtype=np.int32)})
        first = w.close()
        assert first["entries"] == 3 and w.close() == first
        with pytest.raises(ValueError, match="the writer is closed"):
            w.extend({"x": np.arange(3, dtype=np.int32)})
        p = f.mkrntuple_parallel("B", {"x": "int32"})
        c = p.context()
        c.extend({"x": np.arange(5, dtype=np.int32)})
        c.close()
        c.close()
        assert p.close()["entries"] == 5
        with pytest.raises(ValueError, match="the context is closed"):
            c.extend({"x": np.arange(1, dtype=np.int32)})
        with pytest.raises(ValueError, match="the writer is closed"):
            p.context()
    f.close()
    assert rootweave.open(tmp_path / "c.root")["B"].num_entries == 5
