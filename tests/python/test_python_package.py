"""The `rootweave` Python package: arrays equal uproot's for every field of every RNTuple
in tests/data, in every library, and for the branches of TTrees; files written from Python are read by uproot and
ROOT with equal values; Arrow and Polars get list and struct types; four Python threads
write into one file and every entry appears once; bad input raises errors naming the field
and writes nothing partial; the README's example runs."""

import json
import re
import subprocess
import sys
import threading

import awkward as ak
import numpy as np
import pyarrow as pa
import polars as pl
import pytest
import uproot

import rootweave
from compare import same
from conftest import REPO, TESTDATA

TESTDATA_RNTUPLES = [
    (p.name, k.split(";")[0])
    for p in sorted(TESTDATA.glob("*rntuple*.root"))
    for k, c in uproot.open(p).classnames().items()
    if c == "ROOT::RNTuple"
]


@pytest.mark.parametrize("file,name", TESTDATA_RNTUPLES)
def test_arrays_equal_uproot(file, name):
    path = TESTDATA / file
    theirs_ntuple = uproot.open(path)[name]
    stop = min(theirs_ntuple.num_entries, 2000)
    mine = rootweave.open(path)[name]
    assert mine.num_entries == theirs_ntuple.num_entries
    fields = mine.keys(recursive=False)
    assert fields == theirs_ntuple.keys(recursive=False)
    arrays = mine.arrays(entry_stop=stop, library="ak")
    for field in fields:
        theirs = ak.to_list(theirs_ntuple.arrays([field], entry_stop=stop)[field])
        got = ak.to_list(arrays[field])
        assert same(got, theirs), f"{file} {field}"
    # Arrow (through the C data interface) and Polars hold the same values, every field.
    table = mine.arrays(entry_stop=stop, library="pa")
    assert table.num_rows == stop and table.column_names == fields
    for field in fields:
        assert same(table.column(field).to_pylist(), ak.to_list(arrays[field])), f"{file} {field} (Arrow)"
    plain = [f for f in fields if "variant" not in f]  # Polars has no union type
    frame = mine.arrays(plain, entry_stop=stop, library="pl")
    assert frame.shape == (stop, len(plain))
    for field in plain:
        assert same(frame[field].to_list(), table.column(field).to_pylist()), f"{file} {field} (Polars)"
    if len(plain) < len(fields):
        with pytest.raises(TypeError, match="variant"):
            mine.arrays(entry_stop=stop, library="pl")


TESTDATA_TTREES = ["uproot-HZZ-zstd.root", "uproot-Zmumu-lz4.root", "uproot-small-flat-tree.root",
                   "uproot-stl_containers.root", "uproot-vectorVectorDouble.root", "uproot-leaflist.root",
                   "uproot-sample-6.20.04-lzma.root", "nanoAOD_2015_CMS_Open_Data_ttbar.root"]


@pytest.mark.parametrize("file", TESTDATA_TTREES)
def test_ttree_arrays_equal_uproot(file):
    """Every branch rootweave reads equals uproot's, in Awkward, NumPy and Arrow form."""
    path = TESTDATA / file
    with uproot.open(path) as f:
        name = next(k.split(";")[0] for k, c in f.classnames().items() if c == "TTree")
        theirs_tree = f[name]
        mine = rootweave.open(path)[name]
        assert isinstance(mine, rootweave.TTree)
        assert mine.num_entries == theirs_tree.num_entries
        assert set(mine.keys()) == set(theirs_tree.keys(recursive=True, full_paths=True)) | set(mine.keys())
        arrays = mine.arrays(library="ak", threads=2)
        assert len(arrays) == mine.num_entries and len(arrays.fields) > 0
        compared = 0
        for branch in arrays.fields:
            try:
                theirs = theirs_tree[branch].array(library="ak")
            except Exception:  # noqa: BLE001 - uproot cannot read it: nothing to compare with
                continue
            assert same(ak.to_list(arrays[branch]), ak.to_list(theirs)), f"{file} {branch}"
            compared += 1
        assert compared >= len(arrays.fields) // 2, f"{file}: only {compared} branches compared"
        # NumPy: flat branches as they are; Arrow: jagged branches as lists.
        flat = [b for b in arrays.fields if arrays[b].ndim == 1 and not isinstance(arrays[b].type.content,
                                                                                 ak.types.RecordType)]
        if flat:
            np_arrays = mine.arrays(flat[:5], library="np")
            for b in flat[:5]:
                assert same(np_arrays[b].tolist(), ak.to_list(arrays[b])), b
        jagged = [b for b in arrays.fields if isinstance(arrays[b].type.content, ak.types.ListType)
                  and arrays[b].type.content.parameter("__array__") != "string"]
        fixed = [b for b in arrays.fields if isinstance(arrays[b].type.content, ak.types.RegularType)]
        table = mine.arrays(jagged[:3] + fixed[:3], library="pa")
        for b in jagged[:3]:
            assert pa.types.is_large_list(table.schema.field(b).type), b
        for b in fixed[:3]:
            assert pa.types.is_fixed_size_list(table.schema.field(b).type), b
        # Every branch through the Arrow C data interface equals the Awkward values.
        table = mine.arrays(library="pa")
        for b in arrays.fields:
            assert same(table.column(b).to_pylist(), ak.to_list(arrays[b])), f"{file} {b} (Arrow)"


def test_ttree_entry_ranges_iterate_and_polars():
    path = TESTDATA / "uproot-Zmumu-zstd.root"
    tree = rootweave.open(path)["events"]
    theirs = uproot.open(path)["events"].arrays(["px1", "Q1"], library="np")
    part = tree.arrays(["px1", "Q1"], entry_start=100, entry_stop=-4, library="np")
    assert np.array_equal(part["px1"], theirs["px1"][100:-4])
    chunks = list(tree.iterate(["Q1"], step_size=1000, library="np"))
    assert [len(c["Q1"]) for c in chunks] == [1000, 1000, 304]
    assert np.array_equal(np.concatenate([c["Q1"] for c in chunks]), theirs["Q1"])
    frame = tree.arrays(["px1", "Q1"], library="pl")
    assert frame.shape == (2304, 2) and frame["Q1"].to_list() == theirs["Q1"].tolist()
    with pytest.raises(KeyError, match="events.*nope"):
        tree.arrays(["nope"])


def test_numpy_library_and_entry_ranges():
    nt = rootweave.open(TESTDATA / "test_int_5e4_rntuple_v1-0-0-0.root")["ntuple"]
    theirs = uproot.open(TESTDATA / "test_int_5e4_rntuple_v1-0-0-0.root")["ntuple"].arrays(library="np")
    got = nt.arrays(library="np")
    assert np.array_equal(got["one_integers"], theirs["one_integers"])
    part = nt.arrays(entry_start=-10, library="np")["one_integers"]
    assert np.array_equal(part, theirs["one_integers"][-10:])
    chunks = list(nt.iterate(step_size=7000, library="np"))
    assert [len(c["one_integers"]) for c in chunks] == [7000] * 7 + [1000]
    assert np.array_equal(np.concatenate([c["one_integers"] for c in chunks]), theirs["one_integers"])
    by_size = list(nt.iterate(step_size="1 KB", library="np"))
    assert np.array_equal(np.concatenate([c["one_integers"] for c in by_size]), theirs["one_integers"])


def test_arrow_shares_the_buffers_it_is_given(tmp_path):
    """Numbers, offsets and string bytes reach pyarrow and Polars without a copy: pyarrow's
    memory pool allocates nothing for them, and Polars points at the same memory."""
    path = tmp_path / "big.root"
    n = 1 << 20
    counts = np.arange(n) % 4
    with rootweave.create(path, compression="none") as f:
        f.mkrntuple("Events", {"x": "float64", "v": "var * int32"}).extend(
            {"x": np.arange(n, dtype=np.float64), "v": ak.unflatten(np.arange(counts.sum(), dtype=np.int32), counts)})
    nt = rootweave.open(path)["Events"]
    before = pa.total_allocated_bytes()
    table = nt.arrays(library="pa")
    assert pa.total_allocated_bytes() - before < 64 << 10
    assert table.column("x").to_numpy()[-1] == n - 1
    assert table.column("v").chunk(0).offsets.to_numpy()[-1] == counts.sum()
    x = table.column("x").chunk(0)
    frame = pl.from_arrow(table)
    assert frame["x"].to_numpy()[-1] == n - 1
    assert frame["x"].to_numpy().ctypes.data == x.buffers()[1].address


def test_optionals_reach_arrow_as_nullable_values(tmp_path):
    """std::optional fields (present values only, on disk and in rootweave's arrays) are
    spread out under a validity bitmap for Arrow, also inside lists, and when absent
    everywhere."""
    path = tmp_path / "optional.root"
    o = ak.Array([1.5, None, -2.0, None, 4.25])
    lo = ak.Array([[1, None], [], [None], [3], [None, 5, 6]])
    never = ak.mask(ak.Array(np.zeros(5, dtype=np.int16)), np.zeros(5, dtype=bool))
    with rootweave.create(path, compression="zstd:5") as f:
        f.mkrntuple("Events", {"o": "?float64", "lo": "var * ?int32", "never": "?int16"}).extend(
            {"o": o, "lo": lo, "never": never})
    nt = rootweave.open(path)["Events"]
    table = nt.arrays(library="pa")
    assert table.schema.field("o").type == pa.float64()
    assert table.column("o").to_pylist() == [1.5, None, -2.0, None, 4.25]
    assert table.column("lo").to_pylist() == [[1, None], [], [None], [3], [None, 5, 6]]
    assert table.column("never").to_pylist() == [None] * 5
    assert table.column("o").null_count == 2
    assert ak.to_list(nt.arrays(library="ak")["lo"]) == table.column("lo").to_pylist()
    assert pl.from_arrow(table)["o"].to_list() == [1.5, None, -2.0, None, 4.25]


def test_arrow_and_polars_types():
    nt = rootweave.open(TESTDATA / "test_stl_containers_rntuple_v1-0-0-0.root")["ntuple"]
    table = nt.arrays(["vector_int32", "string", "lorentz_vector", "array_float", "vector_vector_int32"],
                      library="pa")
    assert table.schema.field("vector_int32").type == pa.large_list(pa.int32())
    assert table.schema.field("string").type == pa.large_string()
    assert pa.types.is_struct(table.schema.field("lorentz_vector").type)
    assert table.schema.field("array_float").type == pa.list_(pa.float32(), 3)
    assert table.schema.field("vector_vector_int32").type == pa.large_list(pa.large_list(pa.int32()))
    assert table.column("vector_int32").to_pylist()[2] == [1, 2, 3]
    frame = nt.arrays(["vector_int32", "lorentz_vector"], library="pl")
    assert frame.schema["vector_int32"] == pl.List(pl.Int32)
    assert isinstance(frame.schema["lorentz_vector"], pl.Struct)


def write_python_file(path, n=5000):
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 5, n)
    muon = ak.zip({"pt": ak.unflatten(rng.exponential(20, counts.sum()).astype(np.float32), counts),
                   "charge": ak.unflatten(rng.choice([-1, 1], counts.sum()).astype(np.int32), counts)})
    data = {
        "event": np.arange(n, dtype=np.uint64),
        "met": rng.normal(size=n),
        "flag": rng.integers(0, 2, n).astype(bool),
        "name": [f"e{i}" for i in range(n)],
        "Jet_pt": ak.unflatten(rng.normal(50, 10, counts.sum()).astype(np.float32), counts[::-1]),
        "Muon": muon,
        "pos": rng.normal(size=(n, 3)),
        "maybe": [None if i % 3 else float(i) for i in range(n)],
    }
    schema = {"event": np.uint64, "met": "float64", "flag": bool, "name": "string", "Jet_pt": "var * float32",
              "Muon": "var * {pt: float32, charge: int32}", "pos": "3 * float64", "maybe": "?float64"}
    with rootweave.create(path, compression="lz4:4") as f:
        w = f.mkrntuple("Events", schema)
        half = n // 2
        w.extend({k: v[:half] for k, v in data.items()})
        w.extend({k: v[half:] for k, v in data.items()})
    return data


def root_show_entries(path, declare=""):
    """Every entry of the RNTuple `Events` in `path` as ROOT 6.40's RNTupleReader shows
    it (JSON), read in a child process after declaring `declare` to ROOT's interpreter;
    fails on any ROOT warning or error."""
    script = f"""
import warnings, json, sys
warnings.filterwarnings("ignore")
import ROOT
if {declare!r}:
    ROOT.gInterpreter.Declare({declare!r})
r = ROOT.RNTupleReader.Open("Events", "{path}")
out = []
for i in range(r.GetNEntries()):
    s = ROOT.std.ostringstream()
    r.Show(i, s)
    out.append(str(s.str()))
sys.stdout.write(json.dumps(out))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Error in" not in result.stderr and "Warning in" not in result.stderr, result.stderr
    return [json.loads(re.sub(r"\bnan\b", "null", s)) for s in json.loads(result.stdout)]


@pytest.mark.slow
def test_written_from_python_read_by_uproot_and_root(tmp_path):
    path = tmp_path / "py.root"
    data = write_python_file(path)
    theirs = uproot.open(path)["Events"].arrays()
    for key, values in data.items():
        expected = ak.to_list(values) if not isinstance(values, np.ndarray) else values.tolist()
        assert same(ak.to_list(theirs[key]), expected), key
    # ROOT 6.40 reads the same values (all entries, every field, as its RNTupleReader shows them).
    shown = root_show_entries(path)
    assert len(shown) == len(data["event"])
    for i in range(0, len(shown), 97):
        entry = shown[i]
        assert entry["event"] == i and entry["name"] == f"e{i}"
        assert entry["flag"] == bool(data["flag"][i])
        assert entry["met"] == pytest.approx(data["met"][i], rel=1e-5)
        assert entry["Jet_pt"] == pytest.approx(ak.to_list(data["Jet_pt"][i]), rel=1e-5)
        assert [m["pt"] for m in entry["Muon"]] == pytest.approx(ak.to_list(data["Muon"].pt[i]), rel=1e-5)
        assert [m["charge"] for m in entry["Muon"]] == ak.to_list(data["Muon"].charge[i])
        assert entry["pos"] == pytest.approx(data["pos"][i].tolist(), rel=1e-5)


def test_four_python_threads_write_every_entry_once(tmp_path):
    path = tmp_path / "threads.root"
    f = rootweave.create(path, compression="zstd:1")
    w = f.mkrntuple_parallel("Events", {"id": "int64", "v": "var * float32"}, memory_budget=2 << 20)

    def produce(t):
        context = w.context()
        for k in range(25):
            ids = np.arange(t * 1_000_000 + k * 4000, t * 1_000_000 + (k + 1) * 4000)
            context.extend({"id": ids, "v": ak.unflatten(ids.astype(np.float32).repeat(ids % 3), ids % 3)})

    threads = [threading.Thread(target=produce, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    summary = w.close()
    f.close()
    assert summary["entries"] == 400_000
    a = uproot.open(path)["Events"].arrays()
    ids = np.asarray(a["id"])
    expected = np.concatenate([np.arange(t * 1_000_000, t * 1_000_000 + 100_000) for t in range(4)])
    assert np.array_equal(np.sort(ids), expected)
    assert np.array_equal(np.asarray(ak.num(a["v"])), ids % 3)
    assert np.array_equal(np.asarray(ak.flatten(a["v"])), ids.astype(np.float32).repeat(ids % 3))


def test_bad_batches_name_the_field_and_write_nothing(tmp_path):
    path = tmp_path / "bad.root"
    with rootweave.create(path) as f:
        w = f.mkrntuple("Events", {"x": "int32", "v": "var * float32", "a": "2 * float64"})
        good = {"x": np.arange(3, dtype=np.int32), "v": [[1.0], [], [2.0]], "a": np.zeros((3, 2))}
        w.extend(good)
        with pytest.raises(TypeError, match="'x'"):
            w.extend({**good, "x": np.array([1.5, 2.5, 3.5])})
        with pytest.raises(ValueError, match="'v'"):
            w.extend({**good, "v": np.arange(3, dtype=np.float32)})
        with pytest.raises(ValueError, match="'a'"):
            w.extend({**good, "a": np.zeros((3, 4))})
        with pytest.raises(ValueError, match="different lengths"):
            w.extend({**good, "x": np.arange(4, dtype=np.int32)})
        with pytest.raises(ValueError, match="'v' is missing"):
            w.extend({"x": good["x"], "a": good["a"]})
        with pytest.raises(TypeError, match="'y'"):
            f2 = rootweave.create(tmp_path / "other.root")
            f2.mkrntuple("E", {"y": object()})
    assert uproot.open(path)["Events"].num_entries == 3
    assert rootweave.open(path)["Events"].arrays(library="np")["x"].tolist() == [0, 1, 2]


def test_file_errors_keep_their_messages(tmp_path):
    bad = tmp_path / "truncated.root"
    bad.write_bytes((TESTDATA / "test_int_5e4_rntuple_v1-0-0-0.root").read_bytes()[:1000])
    with pytest.raises(rootweave.RootFileError, match="truncated.root"):
        rootweave.open(bad)
    with pytest.raises(KeyError, match="nope"):
        rootweave.open(TESTDATA / "test_int_5e4_rntuple_v1-0-0-0.root")["nope"]
    with pytest.raises(FileNotFoundError, match="missing.root"):
        rootweave.open(tmp_path / "missing.root")
    with pytest.raises(FileNotFoundError, match="no-such-folder"):
        rootweave.create(tmp_path / "no-such-folder" / "out.root")


def test_readme_example_runs(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    readme = (REPO / "README.md").read_text()
    code = re.search(r"## Python\n.*?```python\n(.*?)```", readme, re.S).group(1)
    assert len(code.strip().splitlines()) <= 15
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    assert (tmp_path / "muon_pt.png").stat().st_size > 0
    pt = uproot.open(tmp_path / "muons.root")["Events"].arrays()["Muon_pt"]
    assert [len(x) for x in ak.to_list(pt)] == [2, 0, 1, 3]


def test_schema_accepts_dtype_objects_and_python_types(tmp_path):
    """np.dtype objects compare equal to Python types (np.dtype("float64") == float): each
    must still give its own field type."""
    path = tmp_path / "dtypes.root"
    schema = {"d": np.dtype("float64"), "i": np.dtype("int32"), "f": float, "b": bool, "n": int}
    data = {"d": np.array([0.5, 1.5]), "i": np.array([3, -4], dtype=np.int32), "f": np.array([2.0, 3.0]),
            "b": np.array([True, False]), "n": np.array([7, 8], dtype=np.int64)}
    with rootweave.create(path, "none") as f:
        f.mkrntuple("Events", schema).extend(data)
    theirs = uproot.open(path)["Events"].arrays(library="np")
    for key, values in data.items():
        assert theirs[key].dtype == values.dtype and np.array_equal(theirs[key], values), key


def test_several_rntuples_in_one_file(tmp_path):
    """A sequential and a parallel writer fill two RNTuples of one file side by side;
    uproot and rootweave read both back, and ROOT lists both."""
    path = tmp_path / "two.root"
    with rootweave.create(path, compression="lz4") as f:
        events = f.mkrntuple("Events", {"x": "int32", "v": "var * float64"})
        runs = f.mkrntuple_parallel("Runs", {"run": "uint32", "name": "string"}, memory_budget=4 << 20)
        context = runs.context()
        for k in range(5):
            x = np.arange(k * 1000, (k + 1) * 1000, dtype=np.int32)
            events.extend({"x": x, "v": ak.unflatten(np.repeat(x.astype(np.float64), x % 4), x % 4)})
            context.extend({"run": np.array([k], dtype=np.uint32), "name": [f"run{k}"]})
        with pytest.raises(ValueError, match="already holds an object called 'Events'"):
            f.mkrntuple("Events", {"y": "int32"})
    theirs = uproot.open(path)
    assert np.array_equal(np.asarray(theirs["Events"].arrays()["x"]), np.arange(5000))
    assert ak.to_list(theirs["Events"].arrays()["v"][5]) == [5.0]
    assert sorted(ak.to_list(theirs["Runs"].arrays()["name"])) == [f"run{k}" for k in range(5)]
    mine = rootweave.open(path)
    assert mine["Runs"].num_entries == 5 and mine["Events"].num_entries == 5000
    script = f"""
import warnings
warnings.filterwarnings("ignore")
import ROOT
for name in ("Events", "Runs"):
    print(name, ROOT.RNTupleReader.Open(name, "{path}").GetNEntries())
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0 and "Error in" not in result.stderr, result.stderr[-2000:]
    assert result.stdout.split() == ["Events", "5000", "Runs", "5"], result.stdout


def test_schema_and_batches_from_pyarrow_and_awkward_types(tmp_path):
    """A pyarrow schema with pyarrow columns as the batch, and Awkward type objects in a
    dict schema: both write what uproot reads back."""
    n = 300
    rng = np.random.default_rng(11)
    counts = rng.integers(0, 4, n)
    table = pa.table({
        "i": pa.array(np.arange(n, dtype=np.int32)),
        "x": pa.array(rng.normal(size=n)),
        "ok": pa.array(rng.integers(0, 2, n).astype(bool)),
        "name": pa.array([f"n{i}" for i in range(n)], type=pa.large_string()),
        "pt": pa.array([list(rng.normal(size=c).astype(np.float32)) for c in counts],
                       type=pa.large_list(pa.float32())),
        "mu": pa.array([[{"pt": float(j), "q": (-1) ** j} for j in range(c)] for c in counts],
                       type=pa.list_(pa.struct([("pt", pa.float32()), ("q", pa.int16())]))),
        "pos": pa.array([[float(i), 2.0 * i, 3.0 * i] for i in range(n)], type=pa.list_(pa.float64(), 3)),
    })
    path = tmp_path / "arrow.root"
    with rootweave.create(path, "zstd:5") as f:
        f.mkrntuple("Events", table.schema).extend({name: table[name] for name in table.column_names})
    theirs = uproot.open(path)["Events"].arrays()
    for name in table.column_names:
        # Floats round-trip bit for bit.
        assert ak.to_list(theirs[name]) == table[name].to_pylist(), name
    assert str(ak.type(theirs["mu"]).content) == "var * {pt: float32, q: int16}"

    # Awkward type objects (not strings) as field types.
    path = tmp_path / "aktypes.root"
    jagged = ak.Array([[1.5, 2.5], [], [3.5]])
    schema = {"j": jagged.type, "k": ak.types.NumpyType("int16")}
    with rootweave.create(path, "none") as f:
        f.mkrntuple("Events", schema).extend({"j": jagged, "k": np.array([1, -2, 3], dtype=np.int16)})
    theirs = uproot.open(path)["Events"].arrays()
    assert ak.to_list(theirs["j"]) == [[1.5, 2.5], [], [3.5]]
    assert ak.to_list(theirs["k"]) == [1, -2, 3] and str(ak.type(theirs["k"]).content) == "int16"


def test_pairs_tuples_and_named_classes(tmp_path):
    """std::pair, std::tuple and a named class written from Python: uproot reads the
    members back, and ROOT 6.40 (with the class declared to its interpreter) shows them."""
    path = tmp_path / "types.root"
    pairs = [(i, 0.5 * i) for i in range(50)]
    triples = [(i, float(i) / 4, f"t{i}") for i in range(50)]
    hits = ak.Array([{"e": 1.5 * i, "id": -i, "samples": [float(j) for j in range(i % 3)]} for i in range(50)])
    vector_pairs = [[(j, -float(j)) for j in range(i % 4)] for i in range(50)]
    hit_type = ("class", "rwtest::Hit", 1, [("e", "float32"), ("id", "int32"), ("samples", "var * float32")])
    maybe_hits = ak.Array([None if i % 3 else {"e": 0.5, "id": i, "samples": [1.0]} for i in range(50)])
    hit_pairs = ak.Array([[{"e": 1.0 * i, "id": i, "samples": []}, {"e": 2.0, "id": -i, "samples": [3.0]}]
                          for i in range(50)])
    schema = {
        "p": ("pair", ("int64",), ("float64",)),
        "t": ("tuple", [("int32",), ("float32",), ("string",)]),
        "hit": ("class", "rwtest::Hit", 1, [("e", "float32"), ("id", "int32"), ("samples", "var * float32")]),
        "vp": ("list", ("pair", ("int64",), ("float64",))),
        "maybe_hit": ("optional", hit_type),
        "two_hits": ("fixed", 2, hit_type),
    }
    with rootweave.create(path, "zstd:5") as f:
        f.mkrntuple("Events", schema).extend({"p": pairs, "t": triples, "hit": hits, "vp": vector_pairs,
                                              "maybe_hit": maybe_hits, "two_hits": hit_pairs})
    theirs = uproot.open(path)["Events"].arrays()

    def as_tuple(r):  # uproot reads std::pair and std::tuple as tuples
        return tuple(r.values()) if isinstance(r, dict) else tuple(r)

    assert [as_tuple(r) for r in ak.to_list(theirs["p"])] == pairs
    assert [as_tuple(r) for r in ak.to_list(theirs["t"])] == triples
    assert ak.to_list(theirs["hit"]) == ak.to_list(hits)
    assert [[as_tuple(r) for r in row] for row in ak.to_list(theirs["vp"])] == vector_pairs
    assert ak.to_list(theirs["maybe_hit"]) == ak.to_list(maybe_hits)
    assert ak.to_list(theirs["two_hits"]) == ak.to_list(hit_pairs)
    # Named types reach the file as C++ types ROOT knows.
    ntuple = uproot.open(path)["Events"]
    types = {f.field_name: f.type_name for f in ntuple.field_records}
    assert types["p"] == "std::pair<std::int64_t,double>"
    assert types["t"] == "std::tuple<std::int32_t,float,std::string>"
    assert types["hit"] == "rwtest::Hit"
    shown = root_show_entries(
        path, "namespace rwtest { struct Hit { float e; std::int32_t id; std::vector<float> samples; }; }")
    assert len(shown) == 50
    for i in (0, 7, 49):
        entry = shown[i]
        assert [entry["p"]["_0"], entry["p"]["_1"]] == list(pairs[i])
        assert [entry["t"]["_0"], entry["t"]["_1"], entry["t"]["_2"]] == list(triples[i])
        assert entry["hit"] == ak.to_list(hits[i])
        assert [[x["_0"], x["_1"]] for x in entry["vp"]] == [list(x) for x in vector_pairs[i]]
        assert entry["maybe_hit"] == ak.to_list(maybe_hits[i])
        assert entry["two_hits"] == ak.to_list(hit_pairs[i])

    # Untyped records have no C++ type a std::optional or std::array could name.
    for bad in [("optional", ("record", [("a", "int32")])), ("fixed", 2, "{a: int32}")]:
        with rootweave.create(tmp_path / "bad.root", "none") as f:
            with pytest.raises(TypeError, match="field 'bad'.*untyped records"):
                f.mkrntuple("Events", {"bad": bad})
