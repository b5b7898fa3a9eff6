"""TTrees written by rootweave's Python package, read by ROOT 6.40 (RDataFrame and the
tree's own entry loop, in a child process that must print no error or warning), by uproot
5.7 (values and types) and by rootweave, value for value; `hadd` merges two of them.
Every number type and fixed-size arrays, by every codec; lists, records and lists of
records as uproot writes them (NanoAOD's `Muon_pt[nMuon]`)."""

import json
import subprocess
import sys
from pathlib import Path

import awkward as ak
import numpy as np
import pytest
import uproot

import rootweave
from conftest import HERE

pytestmark = pytest.mark.slow

N = 2500
TYPES = {"o": "bool", "b": "int8", "ub": "uint8", "s": "int16", "us": "uint16", "i": "int32",
         "ui": "uint32", "l": "int64", "ul": "uint64", "f": "float32", "d": "float64",
         "v3": "3 * float32", "m23": "2 * 3 * int32"}
CODECS = ["none", "zlib:1", "lz4:4", "zstd:5", "lzma:7"]


def values(n, seed):
    rng = np.random.default_rng(seed)
    return {
        "o": rng.random(n) < 0.3,
        "b": rng.integers(-128, 128, n, dtype=np.int8),
        "ub": rng.integers(0, 256, n, dtype=np.uint8),
        "s": rng.integers(-2**15, 2**15, n, dtype=np.int16),
        "us": rng.integers(0, 2**16, n, dtype=np.uint16),
        "i": rng.integers(-2**31, 2**31, n, dtype=np.int32),
        "ui": rng.integers(0, 2**32, n, dtype=np.uint32),
        "l": rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64),
        "ul": rng.integers(0, 2**64 - 1, n, dtype=np.uint64),
        "f": rng.normal(size=n).astype(np.float32),
        "d": rng.normal(size=n),
        "v3": rng.normal(size=(n, 3)).astype(np.float32),
        "m23": rng.integers(-1000, 1000, (n, 2, 3), dtype=np.int32),
    }


def write(path, codec, seed=1, basket_size=4000):
    data = values(N, seed)
    with rootweave.create(path, codec) as f:
        tree = f.mktree("Events", TYPES, title="all the types", basket_size=basket_size)
        # Batches of uneven sizes: baskets span them.
        for a, b in [(0, 1), (1, 700), (700, N)]:
            tree.extend({k: v[a:b] for k, v in data.items()})
        assert tree.close() == N
    return data


def root_read(path, workdir):
    out = Path(workdir) / (Path(path).stem + ".json")
    done = subprocess.run([sys.executable, str(HERE / "root_read_ttree.py"), str(path), "Events", str(out)],
                          capture_output=True, text=True, timeout=600, cwd=workdir)
    assert done.returncode == 0, done.stderr
    problems = [line for line in (done.stdout + done.stderr).splitlines()
                if line.startswith(("Error in", "Warning in"))]
    assert not problems, problems
    return json.loads(out.read_text())


@pytest.mark.parametrize("codec", CODECS)
def test_root_uproot_and_rootweave_read_every_value(codec, workdir):
    path = Path(workdir) / f"types-{codec.replace(':', '')}.root"
    data = write(path, codec)
    # uproot: values and types.
    tree = uproot.open(path)["Events"]
    assert tree.num_entries == N and tree.title == "all the types"
    got = tree.arrays(library="np")
    for name, want in data.items():
        assert got[name].dtype == want.dtype, name
        np.testing.assert_array_equal(got[name], want, err_msg=name)
    # rootweave.
    ours = rootweave.open(path)["Events"].arrays(library="np")
    for name, want in data.items():
        np.testing.assert_array_equal(np.asarray(ours[name].tolist()), want, err_msg=name)
    # ROOT: RDataFrame and the tree's entry loop.
    seen = root_read(path, workdir)
    assert seen["entries"] == N and seen["title"] == "all the types"
    for name, want in data.items():
        flat = want.reshape(N, -1) if want.ndim > 1 else want
        np.testing.assert_array_equal(np.asarray(seen["values"][name]).reshape(flat.shape), flat, err_msg=name)
        scanned = np.asarray(seen["scanned"][name], dtype=np.float64).reshape(flat.shape)
        if name not in ("l", "ul"):  # TLeaf::GetValue returns a double
            np.testing.assert_array_equal(scanned, flat.astype(np.float64), err_msg=name)
    # One cluster (under 30 MB), several baskets per branch.
    assert seen["clusters"] == [[0, N]]
    assert seen["baskets"]["d"] == 6  # 4000-byte baskets of 8-byte values


def nanoaod(n, seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 6, n)
    total = int(counts.sum())
    muons = ak.unflatten(ak.zip({"pt": rng.exponential(20, total).astype(np.float32),
                                 "charge": rng.choice(np.array([-1, 1], dtype=np.int32), total)}), counts)
    jet_counts = rng.integers(0, 9, n)
    jets = ak.unflatten(rng.normal(size=int(jet_counts.sum())), jet_counts)
    return {"run": np.full(n, 7, dtype=np.uint32), "Muon": muons, "Jet_eta": jets,
            "MET": ak.zip({"pt": rng.random(n).astype(np.float32), "phi": rng.random(n).astype(np.float32)})}


@pytest.mark.parametrize("codec", CODECS)
def test_lists_and_records_as_nanoaod_branches(codec, workdir):
    path = Path(workdir) / f"nano-{codec.replace(':', '')}.root"
    data = nanoaod(N, 5)
    schema = {"run": "uint32", "Muon": "var * {pt: float32, charge: int32}", "Jet_eta": "var * float64",
              "MET": "{pt: float32, phi: float32}"}
    with rootweave.create(path, codec) as f:
        t = f.mktree("Events", schema, basket_size=3000)
        for a, b in [(0, 999), (999, N)]:
            t.extend({k: v[a:b] for k, v in data.items()})
        t.close()
    want = {"run": data["run"], "nMuon": ak.num(data["Muon"]), "Muon_pt": data["Muon"].pt,
            "Muon_charge": data["Muon"].charge, "nJet_eta": ak.num(data["Jet_eta"]),
            "Jet_eta": data["Jet_eta"], "MET_pt": data["MET"].pt, "MET_phi": data["MET"].phi}
    tree = uproot.open(path)["Events"]
    assert tree.keys() == list(want)
    got = tree.arrays()
    for name, values in want.items():
        assert got[name].to_list() == ak.to_list(values), name
    assert str(tree["Muon_pt"].interpretation) == "AsJagged(AsDtype('>f4'))"
    ours = rootweave.open(path)["Events"].arrays()
    for name, values in want.items():
        assert ours[name].to_list() == ak.to_list(values), name
    seen = root_read(path, workdir)
    for name, values in want.items():
        assert seen["values"][name] == ak.to_list(values), name
        assert seen["scanned"][name] == ak.to_list(values), name


OBJECTS = {"s": "string", "cs": "char*", "vf": "std::vector<float>", "vb": "std::vector<bool>",
           "vl": "std::vector<Long64_t>", "vvi": "var * var * int32", "vs": "var * string",
           "ll": "x/F:y/I:z[2]/D"}


def objects(n, seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 5, n)
    total = int(counts.sum())
    words = np.array(["", "a", "muon", "é-jet", "x" * 300])
    inner = rng.integers(0, 4, total)
    return {
        "s": words[rng.integers(0, len(words), n)].tolist(),
        "cs": [f"run{i}" * (i % 4) for i in range(n)],
        "vf": ak.unflatten(rng.normal(size=total).astype(np.float32), counts),
        "vb": ak.unflatten(rng.random(total) < 0.5, counts),
        "vl": ak.unflatten(rng.integers(-2**62, 2**62, total), counts),
        "vvi": ak.unflatten(ak.unflatten(rng.integers(-9, 9, int(inner.sum()), dtype=np.int32), inner), counts),
        "vs": ak.unflatten(words[rng.integers(0, len(words), total)].tolist(), counts),
        "ll": ak.zip({"x": rng.normal(size=n).astype(np.float32), "y": rng.integers(-5, 5, n, dtype=np.int32),
                      "z": rng.normal(size=(n, 2))}, depth_limit=1),
    }


@pytest.mark.parametrize("codec", CODECS)
def test_strings_vectors_and_leaf_lists(codec, workdir):
    path = Path(workdir) / f"objects-{codec.replace(':', '')}.root"
    data = objects(N, 3)
    with rootweave.create(path, codec) as f:
        t = f.mktree("Events", OBJECTS, basket_size=3000)
        for a, b in [(0, 10), (10, N)]:
            t.extend({k: v[a:b] for k, v in data.items()})
        t.close()
    want = {k: ak.to_list(v) for k, v in data.items()}
    # uproot: types and values.
    tree = uproot.open(path)["Events"]
    assert {k: tree[k].typename for k in OBJECTS} == {
        "s": "std::string", "cs": "char*", "vf": "std::vector<float>", "vb": "std::vector<bool>",
        "vl": "std::vector<int64_t>", "vvi": "std::vector<std::vector<int32_t>>",
        "vs": "std::vector<std::string>", "ll": "struct {float x; int32_t y; double[2] z;}"}
    got = tree.arrays(library="ak")
    for name in OBJECTS:
        assert ak.to_list(got[name]) == want[name], name
    # rootweave.
    ours = rootweave.open(path)["Events"].arrays()
    for name in OBJECTS:
        assert ak.to_list(ours[name]) == want[name], name
    # ROOT: RDataFrame and the tree's entry loop.
    seen = root_read(path, workdir)
    for name in OBJECTS:
        if name == "ll":
            for leaf in ("x", "y", "z"):
                column = np.array([e[leaf] for e in want["ll"]])
                np.testing.assert_allclose(seen["values"][f"ll.{leaf}"], column, rtol=1e-7, err_msg=leaf)
                np.testing.assert_allclose([e[leaf] for e in seen["scanned"]["ll"]], column, rtol=1e-7, err_msg=leaf)
            continue
        assert seen["scanned"][name] == want[name], name
        if name != "vf":  # float32 through JSON: compared approximately below
            assert seen["values"][name] == want[name], name
    assert [x for e in seen["values"]["vf"] for x in e] == pytest.approx([x for e in want["vf"] for x in e])


@pytest.mark.parametrize("codec,mode", [("none", "sequential"), ("zstd:5", "sequential"), ("zstd:5", "parallel")])
def test_a_killed_writer_leaves_every_entry_up_to_its_last_auto_save(codec, mode, workdir):
    path = Path(workdir) / f"killed-{codec.replace(':', '')}-{mode}.root"
    done = subprocess.run([sys.executable, str(HERE / "ttree_killed_writer.py"), str(path), codec, mode],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == -9, done.stderr
    extended = int(done.stdout.split()[-1])
    # uproot: the entries of the last auto-save, each once (in order, but for the parallel
    # writer's, whose threads commit chunks in any order).
    tree = uproot.open(path)["dir/Events"]
    saved = tree.num_entries
    assert 0 < saved < extended and saved >= extended - 20000
    got = tree.arrays()
    ids = got["id"].to_numpy()
    if mode == "sequential":
        assert ids.tolist() == list(range(saved))
    assert len(set(ids.tolist())) == saved and ids.max() < extended
    assert np.allclose(got["x"].to_numpy(), np.sqrt(ids))
    assert ak.num(got["hits"]).to_list() == (ids % 3).tolist()
    assert got["tag"].to_list() == [f"e{i}" for i in ids]
    # rootweave.
    assert rootweave.open(path)["dir/Events"].arrays(["id"])["id"].to_list() == ids.tolist()
    # ROOT opens it without recovering and reads the same entries.
    out = Path(workdir) / f"killed-{codec.replace(':', '')}-{mode}.json"
    done = subprocess.run([sys.executable, str(HERE / "root_read_ttree.py"), str(path), "dir/Events", str(out)],
                          capture_output=True, text=True, timeout=600, cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert not [line for line in (done.stdout + done.stderr).splitlines()
                if line.startswith(("Error in", "Warning in"))], done.stderr
    seen = json.loads(out.read_text())
    assert seen["entries"] == saved
    assert seen["values"]["id"] == ids.tolist() and seen["scanned"]["tag"][-1] == f"e{ids[-1]}"


def test_default_compression_is_roots(workdir):
    """Without a setting, as ROOT: trees zlib level 1 (TFile's 101), RNTuples zstd level 5."""
    path = Path(workdir) / "defaults.root"
    with rootweave.create(path) as f:
        f.mktree("t", {"x": "int64"}).extend({"x": np.arange(1000, dtype=np.int64)})
        nt = f.mkrntuple("n", {"y": "int64"})
        nt.extend({"y": np.arange(1000, dtype=np.int64)})
    u = uproot.open(path)
    assert u["t"]["x"].member("fCompress") == 101 and u.file.fCompress == 101
    # The RNTuple's pages are zstd blocks (tag "ZS", method 1), the tree's baskets zlib ("ZL", 8).
    data = path.read_bytes()
    assert b"ZS\x01" in data and b"ZL\x08" in data
    generated = Path(workdir) / "generated.root"
    done = subprocess.run([str(HERE / ".." / ".." / "target" / "release" / "rootweave"), "generate", str(generated),
                           "--format", "ttree", "--schema", "single", "--events", "1000"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert uproot.open(generated)["Events"]["x"].member("fCompress") == 101


def test_clusters_of_changing_sizes_are_read_as_written(workdir):
    path = Path(workdir) / "ranges.root"
    ids = np.arange(1000, dtype=np.int64)
    with rootweave.create(path, "zstd:5") as f:
        t = f.mktree("Events", {"id": "int64", "v": "var * float32"})
        at = 0
        for size in [100, 100, 250, 250, 250, 50]:
            part = ids[at:at + size]
            t.extend({"id": part, "v": ak.unflatten(np.repeat(part, part % 3).astype(np.float32), part % 3)})
            t.end_cluster()
            at += size
    seen = root_read(path, workdir)
    starts = [0, 100, 200, 450, 700, 950, 1000]
    assert seen["clusters"] == [[a, b] for a, b in zip(starts, starts[1:])]
    assert seen["values"]["id"] == ids.tolist()
    tree = uproot.open(path)["Events"]
    assert tree.member("fNClusterRange") == 2 and tree.member("fAutoFlush") == 50
    assert list(tree.member("fClusterRangeEnd")) == [199, 949] and list(tree.member("fClusterSize")) == [100, 250]
    assert tree["id"].array(library="np").tolist() == ids.tolist()
    v = rootweave.open(path)["Events"].arrays(["v"])["v"]
    assert v[998].to_list() == [998.0, 998.0] and v[999].to_list() == []


def test_trees_in_directories(workdir):
    path = Path(workdir) / "dirs.root"
    with rootweave.create(path, "zlib:1") as f:
        f.mktree("top", {"x": "int32"}).extend({"x": np.arange(5, dtype=np.int32)})
        f.mktree("a/b/deep", {"y": "float64"}).extend({"y": np.arange(7, dtype=np.float64)})
        t = f.mktree("a/side", {"s": "string"})
        t.extend({"s": ["one", "two"]})
    u = uproot.open(path)
    assert u.classnames() == {"top;1": "TTree", "a;1": "TDirectory", "a/b;1": "TDirectory",
                              "a/b/deep;1": "TTree", "a/side;1": "TTree"}
    assert u["a/b/deep"]["y"].array(library="np").tolist() == list(range(7))
    assert rootweave.open(path)["a/side"].arrays()["s"].to_list() == ["one", "two"]
    script = (f"import ROOT; f = ROOT.TFile.Open({str(path)!r}); "
              "print(f.Get('a/b/deep').GetEntries(), f.Get('a').Get('side').GetEntries(), f.Get('top').GetEntries())")
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and not [line for line in done.stderr.splitlines() if "Error" in line or "Warning" in line], done.stderr
    assert done.stdout.split()[-3:] == ["7", "2", "5"]


def test_hadd_merges_two_files(workdir):
    a, b, merged = (Path(workdir) / f"{n}.root" for n in ("hadd-a", "hadd-b", "hadd-ab"))
    first = write(a, "zstd:5", seed=2)
    second = write(b, "lz4:4", seed=3)
    import ROOT  # noqa: F401  (the wheel's bin/ holds hadd)
    hadd = Path(sys.modules["ROOT"].__file__).parent / "bin" / "hadd"
    done = subprocess.run([str(hadd), "-f", str(merged), str(a), str(b)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    seen = root_read(merged, workdir)
    assert seen["entries"] == 2 * N
    np.testing.assert_array_equal(seen["values"]["d"], np.concatenate([first["d"], second["d"]]))
    ours = rootweave.open(merged)["Events"].arrays(["ul"], library="np")["ul"]
    np.testing.assert_array_equal(ours, np.concatenate([first["ul"], second["ul"]]))


def test_hadd_merges_strings_vectors_and_leaf_lists(workdir):
    paths = [Path(workdir) / f"hadd-objects-{n}.root" for n in ("a", "b", "ab")]
    parts = [objects(300, 7), objects(200, 8)]
    for path, data in zip(paths, parts):
        with rootweave.create(path, "zlib:1") as f:
            t = f.mktree("Events", OBJECTS)
            t.extend(data)
    import ROOT  # noqa: F401  (the wheel's bin/ holds hadd)
    hadd = Path(sys.modules["ROOT"].__file__).parent / "bin" / "hadd"
    done = subprocess.run([str(hadd), "-f", str(paths[2]), str(paths[0]), str(paths[1])], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    seen = root_read(paths[2], workdir)
    assert seen["entries"] == 500
    for name in ("s", "cs", "vb", "vl", "vvi", "vs"):
        assert seen["scanned"][name] == ak.to_list(parts[0][name]) + ak.to_list(parts[1][name]), name
    got = uproot.open(paths[2])["Events"].arrays()
    for name in OBJECTS:
        assert ak.to_list(got[name]) == ak.to_list(parts[0][name]) + ak.to_list(parts[1][name]), name


def test_batches_that_do_not_match_are_refused_whole(workdir):
    path = Path(workdir) / "refused.root"
    with rootweave.create(path, "zstd:5") as f:
        t = f.mktree("Events", {"x": "float64", "v": "3 * int32"})
        t.extend({"x": np.zeros(2), "v": np.zeros((2, 3), dtype=np.int32)})
        with pytest.raises(TypeError, match="field 'x'"):
            t.extend({"x": np.array(["a", "b"]), "v": np.zeros((2, 3), dtype=np.int32)})
        with pytest.raises(ValueError, match="field 'v': 4 items per entry, 3 expected"):
            t.extend({"x": np.zeros(2), "v": np.zeros((2, 4), dtype=np.int32)})
        with pytest.raises(ValueError, match="different lengths"):
            t.extend({"x": np.zeros(3), "v": np.zeros((2, 3), dtype=np.int32)})
        with pytest.raises(ValueError, match="missing"):
            t.extend({"x": np.zeros(2)})
        with pytest.raises(TypeError, match="field o: a std::optional<std::int32_t> is not written"):
            f.mktree("Optional", {"o": "?int32"})
        with pytest.raises(TypeError, match="'x/Q' is not a leaf"):
            f.mktree("Bad", {"ll": "x/Q"})
        with pytest.raises(ValueError, match="already holds"):
            f.mktree("Events", {"y": "int32"})
        t.close()
    assert rootweave.open(path)["Events"].num_entries == 2


def test_a_tree_and_an_rntuple_share_a_file(workdir):
    path = Path(workdir) / "mixed.root"
    with rootweave.create(path, "zstd:5") as f:
        f.mktree("tree", {"x": "int64"}).extend({"x": np.arange(10, dtype=np.int64)})
        nt = f.mkrntuple("ntuple", {"y": "float32"})
        nt.extend({"y": np.arange(5, dtype=np.float32)})
    u = uproot.open(path)
    assert u.classnames() == {"tree;1": "TTree", "ntuple;1": "ROOT::RNTuple"}
    assert u["tree"]["x"].array(library="np").tolist() == list(range(10))
    assert u["ntuple"].arrays(library="np")["y"].tolist() == list(range(5))
    # ROOT reads both, with the layouts of both in the StreamerInfo record.
    script = (f"import ROOT; f = ROOT.TFile.Open({str(path)!r}); "
              "print(f.Get('tree').GetEntries(), ROOT.RDataFrame('ntuple', f.GetName()).Sum('y').GetValue()); "
              "print(sorted(i.GetName() for i in f.GetStreamerInfoList()))")
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and not [line for line in done.stderr.splitlines() if "Error" in line], done.stderr
    lines = done.stdout.splitlines()
    assert lines[-2] == "10 10.0"
    infos = eval(lines[-1])
    assert {"ROOT::RNTuple", "TTree", "TBranch", "TLeafL"} <= set(infos)
