"""A user's first steps after `pip install rootweave`, run by test_wheel.py with the
interpreter of a fresh virtual environment holding the wheel and NumPy alone:

    python wheel_smoke.py FOLDER URL

writes an RNTuple, a TTree and a histogram into FOLDER/smoke.root, reads them back, reads the
file again over HTTP from URL (nginx serving FOLDER), and checks that a call needing Awkward
names the extra that installs it. Prints "smoke: ok" when every value matched."""

import importlib.util
import sys
from pathlib import Path

import numpy as np

import rootweave

folder, url = Path(sys.argv[1]), sys.argv[2]
assert importlib.util.find_spec("awkward") is None, "the environment should hold NumPy alone"

rng = np.random.default_rng(3)
n = 5000
columns = {"event": np.arange(n, dtype=np.uint64), "pt": rng.exponential(20.0, n).astype(np.float32),
           "charge": rng.choice(np.array([-1, 1], dtype=np.int32), n)}
counts, edges = np.histogram(columns["pt"], bins=10, range=(0.0, 100.0))
path = folder / "smoke.root"
with rootweave.create(path) as f:
    f.mkrntuple("Events", {k: v.dtype for k, v in columns.items()}).extend(columns)
    f.mktree("Tree", {k: v.dtype for k, v in columns.items()}).extend(columns)
    f["h"] = (counts, edges)


def check(file, where):
    for name in ("Events", "Tree"):
        arrays = file[name].arrays(library="np")
        assert sorted(arrays) == sorted(columns), (where, name, sorted(arrays))
        for key, values in columns.items():
            assert arrays[key].dtype == values.dtype, (where, name, key, arrays[key].dtype)
            assert np.array_equal(arrays[key], values), (where, name, key)
    h = file["h"]
    assert np.array_equal(h.values(), counts), (where, h.values())
    assert np.array_equal(h.axes[0].edges(), edges), (where, h.axes[0].edges())


with rootweave.open(path) as f:
    check(f, "local")
    try:
        f["Events"].arrays()
    except ModuleNotFoundError as error:
        assert "pip install 'rootweave[awkward]'" in str(error), str(error)
    else:
        raise AssertionError("arrays() in Awkward form worked without awkward installed")

with rootweave.open(f"{url}/smoke.root") as f:
    check(f, "http")

print("smoke: ok")
