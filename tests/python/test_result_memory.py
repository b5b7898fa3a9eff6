"""Result memory reused between reads: arrays NumPy has freed are filled again by the next
read, never while an array still uses them, and a reused buffer holds only the new values."""

import gc

import awkward as ak
import numpy as np
import pytest

import rootweave
from rootweave import _rootweave

N = 400_000


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """An RNTuple and a TTree of the same values, with buffers large enough to be pooled."""
    d = tmp_path_factory.mktemp("memory")
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 6, N)
    values = {
        "x": rng.normal(size=N).astype(np.float32),
        "n": np.arange(N, dtype=np.int64),
        "v": ak.unflatten(rng.normal(size=int(counts.sum())), counts),
    }
    with rootweave.create(d / "n.root") as f:
        f.mkrntuple("Events", {"x": "float32", "n": "int64", "v": "var * float64"}).extend(values)
    with rootweave.create(d / "t.root") as f:
        f.mktree("Events", {"x": "float32", "n": "int64", "v": "var * float64"}).extend(values)
    return {"rntuple": d / "n.root", "ttree": d / "t.root"}, ak.Array(values)


def same(got, expected):
    """The fields of `expected` are equal in `got` (a TTree also has the counter `nv`)."""
    return ak.array_equal(got[expected.fields], expected)


def buffers(array):
    """The NumPy buffers under an Awkward array."""
    return [b for b in ak.to_buffers(array)[2].values() if isinstance(b, np.ndarray) and b.nbytes]


@pytest.mark.parametrize("kind", ["rntuple", "ttree"])
def test_freed_results_are_reused_and_live_ones_never(files, kind):
    paths, expected = files
    events = rootweave.open(paths[kind])["Events"]
    rootweave.release_memory()
    first = events.arrays()
    assert _rootweave.pooled_bytes() == 0
    # A second read while the first is alive gets memory of its own.
    second = events.arrays()
    assert not any(np.shares_memory(a, b) for a in buffers(first) for b in buffers(second))
    assert same(first, expected) and same(second, expected)

    # Freed results are kept (the pool never holds more than the last read returned) ...
    del second
    gc.collect()
    held = _rootweave.pooled_bytes()
    assert held >= 4 * N  # at least the float32 column
    # ... and the next read takes them: a read of other entries overwrites every value
    # (offsets of the reused buffers start again at 0, no stale items remain).
    part = events.arrays(entry_start=1000, entry_stop=N - 7)
    assert _rootweave.pooled_bytes() == 0
    assert same(part, expected[1000:N - 7])
    assert same(first, expected)
    del part
    gc.collect()
    assert 0 < _rootweave.pooled_bytes() <= held
    numpy = events.arrays(["n", "x"], library="np")
    assert np.array_equal(numpy["n"], np.arange(N)) and np.array_equal(numpy["x"], expected["x"].to_numpy())
    del numpy
    gc.collect()
    rootweave.release_memory()
    assert _rootweave.pooled_bytes() == 0


def test_a_written_result_array_is_its_owners_alone(files):
    """Result arrays are ordinary writable NumPy arrays; writing into one and freeing it
    changes no later read."""
    paths, expected = files
    events = rootweave.open(paths["rntuple"])["Events"]
    x = events.arrays("x", library="np")["x"]
    x[:] = -1
    del x
    gc.collect()
    again = events.arrays("x", library="np")["x"]
    assert np.array_equal(again, expected["x"].to_numpy())
