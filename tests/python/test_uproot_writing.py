"""Writing as uproot users write: `f[name] = data` and `extend(data)` with every form of batch
uproot takes (dicts of arrays, Awkward record arrays, pandas DataFrames, pyarrow Tables, NumPy
structured arrays; an RNTuple, as uproot 5.7 writes) and every NumPy dtype a user has (strings, bytes, object arrays of strings
or lists, booleans, datetimes); uproot's type spellings in `mktree`/`mkrntuple`. Every file is
read back by uproot, rootweave and ROOT 6.40 (one child process for all of them)."""

import json
import subprocess
import sys

import awkward as ak
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import uproot

import rootweave
from conftest import HERE

STAMPS = np.array(["2020-01-01T00:00:00", "2021-06-01T12:30:00", "1969-12-31T23:59:59"], dtype="datetime64[s]")

#: name -> (data, {branch: expected values as Python lists})
CASES = {
    "records": (ak.Array([{"x": 1, "j": [1.5]}, {"x": 2, "j": []}, {"x": 3, "j": [2.5, 3.5]}]),
                {"x": [1, 2, 3], "j": [[1.5], [], [2.5, 3.5]]}),
    "unicode": ({"s": np.array(["a", "bb", "ccé"])}, {"s": ["a", "bb", "ccé"]}),
    "bytes": ({"b": np.array([b"ab", b"c", b""])}, {"b": ["ab", "c", ""]}),
    "objects": ({"s": np.array(["x", "yz", "w"], dtype=object),
                 "v": np.array([[1.0, 2.0], [], [3.0]], dtype=object)},
                {"s": ["x", "yz", "w"], "v": [[1.0, 2.0], [], [3.0]]}),
    "pandas": (pd.DataFrame({"a": np.array([1, 2, 3], dtype=np.int32), "f": [0.5, 1.5, 2.5], "s": ["p", "q", "r"]}),
               {"a": [1, 2, 3], "f": [0.5, 1.5, 2.5], "s": ["p", "q", "r"]}),
    "arrow": (pa.table({"n": [4, 5, 6], "l": [[1, 2], [], [3]], "t": ["u", "vv", "w"]}),
              {"n": [4, 5, 6], "l": [[1, 2], [], [3]], "t": ["u", "vv", "w"]}),
    "structured": (np.array([(1, 2.0), (3, 4.0), (5, 6.0)], dtype=[("i", "<i4"), ("d", ">f8")]),
                   {"i": [1, 3, 5], "d": [2.0, 4.0, 6.0]}),
    "bools_and_dates": ({"ok": np.array([True, False, True]), "when": STAMPS},
                        {"ok": [True, False, True], "when": STAMPS.astype(np.int64).tolist()}),
}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Every case written with `f["t"] = data`, plus one written by `extend` in two batches
    of different forms; ROOT's reading of all of them."""
    d = tmp_path_factory.mktemp("uproot_writing")
    paths = {}
    for name, (data, _) in CASES.items():
        paths[name] = d / f"{name}.root"
        with rootweave.recreate(paths[name]) as f:
            f["t"] = data
    paths["extended"] = d / "extended.root"
    with rootweave.recreate(paths["extended"]) as f:
        t = f.mktree("t", {"a": "i4", "f": ">f8", "s": "string"})
        t.extend(pd.DataFrame({"a": np.array([1, 2], dtype=np.int32), "f": [0.5, 1.5], "s": ["p", "q"]}))
        t.extend(pa.table({"a": pa.array([3], pa.int32()), "f": [2.5], "s": ["r"]}))
    out = d / "root"
    out.mkdir()
    done = subprocess.run([sys.executable, str(HERE / "root_read_merged.py"), "t", str(out), *map(str, paths.values())],
                          capture_output=True, text=True, timeout=900, cwd=d)
    assert done.returncode == 0, done.stdout + done.stderr
    problems = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith(("Error in", "Warning in"))]
    assert not problems, problems
    root = {name: json.loads((out / f"{path.stem}.json").read_text()) for name, path in paths.items()}
    return paths, root


@pytest.mark.parametrize("name", list(CASES))
def test_every_form_reads_the_same_in_uproot_rootweave_and_root(written, name):
    paths, root = written
    _, expected = CASES[name]
    theirs = uproot.open(paths[name])["t"].arrays(list(expected), library="ak")
    mine = rootweave.open(paths[name])["t"].arrays(list(expected), library="ak")
    # `f[name] = data` writes what uproot 5.7 writes: an RNTuple.
    assert uproot.open(paths[name]).classname_of("t") == "ROOT::RNTuple"
    for branch, values in expected.items():
        assert theirs[branch].tolist() == values, branch
        assert mine[branch].tolist() == values, branch
        assert root[name]["values"][branch] == values, branch


def test_extend_takes_dataframes_and_tables(written):
    paths, root = written
    expected = {"a": [1, 2, 3], "f": [0.5, 1.5, 2.5], "s": ["p", "q", "r"]}
    got = uproot.open(paths["extended"])["t"].arrays(library="np")
    assert {k: got[k].tolist() for k in expected} == expected
    assert {k: root["extended"]["values"][k] for k in expected} == expected
    assert uproot.open(paths["extended"])["t"].typenames() == {"a": "int32_t", "f": "double", "s": "std::string"}


def test_rntuples_take_uproots_type_spellings_and_batches(tmp_path):
    path = tmp_path / "n.root"
    with rootweave.recreate(path) as f:
        w = f.mkrntuple("n", {"a": "f4", "b": ">i8", "c": np.float64, "d": "var * float32", "s": "U"})
        w.extend(pd.DataFrame({"a": np.ones(2, "f4"), "b": [7, 8], "c": [0.0, 1.0], "s": ["x", "y"],
                               "d": pd.Series([[1.0], []], dtype=object)}))
        w.extend({"a": np.array([2.0], "f4"), "b": np.array([9]), "c": np.array([2.0]),
                  "d": ak.Array([[3.0, 4.0]]), "s": np.array(["z"])})
    got = uproot.open(path)["n"].arrays()
    assert got.tolist() == [{"a": 1.0, "b": 7, "c": 0.0, "d": [1.0], "s": "x"},
                            {"a": 1.0, "b": 8, "c": 1.0, "d": [], "s": "y"},
                            {"a": 2.0, "b": 9, "c": 2.0, "d": [3.0, 4.0], "s": "z"}]
    assert uproot.open(path)["n"].typenames()["b"] == "std::int64_t"


@pytest.mark.parametrize("data, error, text", [
    ({"x": 3}, TypeError, "'x'"),
    ({"x": np.array([1 + 2j])}, TypeError, "'x'.*complex"),
    ({"x": np.arange(2), "y": np.arange(3.0)}, ValueError, "different lengths"),
    (np.arange(3), TypeError, "structured"),
    (3, TypeError, "batch"),
])
def test_bad_batches_raise_type_or_value_errors(tmp_path, data, error, text):
    with rootweave.recreate(tmp_path / "bad.root") as f:
        with pytest.raises(error, match=text):
            f["t"] = data


def test_bad_type_spellings_name_the_field(tmp_path):
    with rootweave.recreate(tmp_path / "bad.root") as f:
        with pytest.raises(TypeError, match="field 'a'.*'flaot' is not a type"):
            f.mktree("t", {"a": "flaot"})
        t = f.mktree("u", {"a": "int32"})
        with pytest.raises(TypeError, match="field 'a'"):
            t.extend({"a": np.array(["not", "numbers"])})
