"""uproot's reading idioms, each written once and run against both libraries on the same
files: the same call gives equal arrays (or DataFrames) from uproot and rootweave. Where
uproot's RNTuple reader gives no answer (it evaluates no expressions), the expected values
are computed from its plain arrays."""

import re
import warnings

import awkward as ak
import numpy as np
import pandas as pd
import pytest
import uproot

import rootweave
from conftest import data_file

HZZ = str(data_file("uproot-HZZ.root"))
STAFF = str(data_file("ntpl001_staff_rntuple_v1-0-0-0.root"))


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def both(call):
    """The result of `call(library module)` for uproot and rootweave."""
    return call(uproot), call(rootweave)


def test_open_with_an_object_path_gives_the_object():
    theirs, mine = both(lambda lib: lib.open(f"{HZZ}:events"))
    assert mine.num_entries == theirs.num_entries == 2421
    theirs, mine = both(lambda lib: lib.open({HZZ: "events"}))
    assert mine.num_entries == theirs.num_entries
    with pytest.raises(FileNotFoundError):
        rootweave.open("no/such/file.root:events")


@pytest.mark.parametrize("filter_name", ["Muon_P*", "/Jet_(Px|Py)$/", ["NJet", "MET_*"], lambda n: n.endswith("E")])
def test_keys_and_typenames_with_filters(filter_name):
    theirs, mine = both(lambda lib: lib.open(HZZ)["events"].keys(filter_name=filter_name))
    assert mine == theirs and mine
    theirs, mine = both(lambda lib: lib.open(HZZ)["events"].typenames(filter_name=filter_name))
    assert mine == theirs
    theirs, mine = both(lambda lib: lib.open(HZZ)["events"].keys(filter_typename="float[]"))
    assert mine == theirs and "Jet_Px" in mine


def test_rntuple_keys_and_typenames():
    theirs, mine = both(lambda lib: lib.open(STAFF)["Staff"].keys())
    assert mine == theirs
    theirs, mine = both(lambda lib: lib.open(STAFF)["Staff"].typenames(filter_name="A*"))
    assert mine == theirs == {"Age": "std::int32_t"}


def test_branch_objects():
    theirs, mine = both(lambda lib: lib.open(HZZ)["events"]["Muon_Px"])
    assert mine.typename == theirs.typename == "float[]"
    assert mine.num_entries == theirs.num_entries
    assert ak.array_equal(mine.array(), theirs.array())
    assert ak.array_equal(mine.array(entry_start=10, entry_stop=20), theirs.array(entry_start=10, entry_stop=20))
    assert mine.interpretation == "var * float32"
    theirs, mine = both(lambda lib: lib.open(STAFF)["Staff"]["Age"].array(library="np"))
    assert np.array_equal(mine, theirs)
    with pytest.raises(KeyError, match="Muon_Pq"):
        rootweave.open(HZZ)["events"]["Muon_Pq"]


def test_branch_paths_name_branches_below_others(tmp_path):
    """`tree["parent/child"]`, uproot's path to a sub-branch (here of a split object)."""
    vec = ("class", "PathVec", 1, [("x", "float64"), ("y", "float64")])
    event = ("class", "PathEvent", 1, [("n", "int32"), ("pos", vec), ("hits", ("list", vec))])
    path = tmp_path / "paths.root"
    with rootweave.recreate(path) as f:
        f.mktree("t", {"ev": event}).extend({"ev": ak.Array([
            {"n": 1, "pos": {"x": 1.0, "y": 2.0}, "hits": [{"x": 3.0, "y": 4.0}]},
            {"n": 2, "pos": {"x": 5.0, "y": 6.0}, "hits": []}])})
    for name in ("ev/n", "ev/pos", "ev/pos/pos.x", "ev/hits/hits.y"):
        theirs, mine = both(lambda lib: lib.open(path)["t"][name].array())
        assert ak.to_list(mine) == ak.to_list(theirs), name
    assert ak.to_list(rootweave.open(path)["t"]["ev"]["hits/hits.x"].array()) == [[3.0], []]


@pytest.mark.parametrize("expressions, cut", [
    (["Muon_Px * 2", "NMuon"], "NMuon > 1"),
    (["sqrt(Muon_Px**2 + Muon_Py**2)"], None),
    (["MET_px"], "(MET_px > 0) & (NJet >= 1)"),
    (None, "NMuon == 2"),
])
def test_expressions_and_cuts(expressions, cut):
    theirs, mine = both(lambda lib: lib.open(HZZ)["events"].arrays(expressions, cut, entry_stop=500))
    assert mine.fields == theirs.fields
    assert ak.array_equal(mine, theirs)


def test_aliases_and_jagged_cuts():
    aliases = {"pt": "sqrt(Muon_Px**2 + Muon_Py**2)"}
    theirs, mine = both(lambda lib: lib.open(HZZ)["events"].arrays(["pt", "Muon_E"], "pt > 20", aliases=aliases))
    assert ak.array_equal(mine, theirs)


def test_rntuple_expressions_against_uproots_plain_arrays():
    plain = uproot.open(STAFF)["Staff"].arrays(["Age", "Children"])
    mine = rootweave.open(STAFF)["Staff"].arrays(["Age * 2", "Children"], cut="Age > 40")
    keep = plain["Age"] > 40
    assert mine.fields == ["Age * 2", "Children"]
    assert ak.array_equal(mine["Age * 2"], plain["Age"][keep] * 2)
    assert ak.array_equal(mine["Children"], plain["Children"][keep])


def test_pandas_library():
    theirs, mine = both(lambda lib: lib.open(HZZ)["events"].arrays(filter_name="MET_*", library="pd"))
    pd.testing.assert_frame_equal(mine, theirs)
    theirs, mine = both(lambda lib: lib.open(HZZ)["events"].arrays(["NJet", "Jet_Px"], library="pd"))
    assert list(mine.columns) == list(theirs.columns)
    assert np.array_equal(mine["NJet"], theirs["NJet"])
    assert ak.array_equal(mine["Jet_Px"].ak.array, theirs["Jet_Px"].ak.array)


def test_how():
    theirs, mine = both(lambda lib: lib.open(HZZ)["events"].arrays(["NJet", "MET_px"], library="np", how=tuple))
    assert isinstance(mine, tuple) and all(np.array_equal(a, b) for a, b in zip(mine, theirs))
    theirs, mine = both(lambda lib: lib.open(HZZ)["events"].arrays(["Muon_Px", "Muon_Py"], how="zip"))
    assert ak.array_equal(mine, theirs)


def test_bad_expressions_name_the_problem():
    tree = rootweave.open(HZZ)["events"]
    with pytest.raises(KeyError, match="Muon_Pq"):
        tree.arrays(["Muon_Pq * 2"])
    with pytest.raises(ValueError, match="not a Python expression"):
        tree.arrays(["Muon_Px *"])
    with pytest.raises(KeyError, match="nope"):
        tree.arrays(["NJet"], cut="nope > 1")
    with pytest.raises(ValueError, match="library"):
        tree.arrays(library="xx")
    with pytest.raises(TypeError, match="filter_name"):
        tree.keys(filter_name=3)


def test_directories_cycles_and_file_mappings(tmp_path):
    path = tmp_path / "dirs.root"
    with rootweave.recreate(path) as f:
        f.mktree("top", {"x": "int32"}).extend({"x": np.arange(3, dtype=np.int32)})
        f.mktree("sub/inner", {"y": "float64"}).extend({"y": np.arange(4.0)})
    theirs, mine = both(lambda lib: lib.open(path).keys())
    assert sorted(mine) == sorted(theirs)
    theirs, mine = both(lambda lib: lib.open(path).keys(recursive=False, cycle=False))
    assert sorted(mine) == sorted(theirs)
    theirs, mine = both(lambda lib: lib.open(path).classnames(filter_classname="TTree"))
    assert mine == theirs
    f = rootweave.open(path)
    assert np.array_equal(f["sub/inner;1"]["y"].array(library="np"), np.arange(4.0))
    assert f["sub"]["inner"].num_entries == 4
    assert "sub/inner" in f and "sub/nothing" not in f
    assert [k for k, _ in f.items(filter_classname="TTree")] == [k for k in f.keys(filter_classname="TTree")]
    assert len(f) == len(f.keys())
    with pytest.raises(KeyError, match="top"):
        f["missing"]


def test_iterate_with_expressions_cuts_and_reports():
    def steps(lib):
        tree = lib.open(HZZ)["events"]
        return list(tree.iterate(["Muon_Px * 2", "NMuon"], "NMuon >= 1", step_size=1000, report=True))

    theirs, mine = both(steps)
    assert [len(a) for a, _ in mine] == [len(a) for a, _ in theirs]
    assert [(r.tree_entry_start, r.tree_entry_stop) for _, r in mine] == \
        [(r.tree_entry_start, r.tree_entry_stop) for _, r in theirs] == [(0, 1000), (1000, 2000), (2000, 2421)]
    assert ak.array_equal(ak.concatenate([a for a, _ in mine]), ak.concatenate([a for a, _ in theirs]))


def test_module_iterate_and_concatenate_take_the_same_keywords():
    files = [f"{HZZ}:events", f"{data_file('uproot-HZZ-zlib.root')}:events"]
    kw = dict(aliases={"pt": "sqrt(Muon_Px**2 + Muon_Py**2)"}, library="ak")
    theirs, mine = both(lambda lib: lib.concatenate(files, ["pt", "NMuon"], "NMuon == 2", **kw))
    assert len(mine) == len(theirs) > 0
    assert ak.array_equal(mine, theirs)
    theirs, mine = both(lambda lib: [len(a) for a in lib.iterate(files, filter_name="MET_*", step_size=1500)])
    assert mine == theirs
    theirs, mine = both(lambda lib: lib.concatenate(files, filter_name="MET_p*", library="np"))
    assert list(mine) == list(theirs) and all(np.array_equal(mine[k], theirs[k]) for k in mine)


def test_reports_name_the_object_as_uproot_does(tmp_path):
    """`Report.object_path` is what uproot's report gives as its source's `object_path`:
    from the top directory, with a leading slash and the cycle read (the highest)."""
    path = tmp_path / "reports.root"
    with rootweave.recreate(path) as f:
        f.mktree("top", {"x": "int32"}).extend({"x": np.arange(3, dtype=np.int32)})
        f.mktree("sub/inner", {"x": "int32"}).extend({"x": np.arange(4, dtype=np.int32)})
    with rootweave.update(path) as f:
        f.mktree("top", {"x": "int32"}).extend({"x": np.arange(5, dtype=np.int32)})
    for obj, expected in [("top", "/top;2"), ("sub/inner", "/sub/inner;1")]:
        theirs = [r.source.object_path for _, r in uproot.iterate(f"{path}:{obj}", "x", report=True)]
        mine = [r.object_path for _, r in rootweave.iterate(f"{path}:{obj}", "x", report=True)]
        assert mine == theirs == [expected]
    theirs = [r.source.object_path for _, r in uproot.open(path)["sub"]["inner"].iterate("x", report=True)]
    mine = [r.object_path for _, r in rootweave.open(path)["sub"]["inner"].iterate("x", report=True)]
    assert mine == theirs == ["/sub/inner;1"]
    assert rootweave.open(path)["top;1"].object_path == uproot.open(path)["top;1"].object_path == "/top;1"


def rntuple_files(tmp_path):
    """`(path, name)` of the RNTuples of the test data, and of one converted from a
    NanoAOD tree (collections `_collection<i>` of a shared counter, projected fields)."""
    out = [(p, k.split(";")[0]) for p in sorted(data_file("x").parent.glob("*rntuple*.root"))
           for k, c in uproot.open(p).classnames().items() if c == "ROOT::RNTuple"]
    nano = tmp_path / "nano.root"
    rootweave.convert(f"{data_file('nanoAOD_2015_CMS_Open_Data_ttbar.root')}:Events", nano, to="rntuple")
    return out + [(nano, "Events")]


def test_rntuple_keys_are_uproots(tmp_path):
    """An RNTuple's `keys()` and `typenames()` list the fields uproot lists, in its order,
    for each of uproot's arguments."""
    arguments = [{}, {"recursive": False}, {"full_paths": False}, {"filter_name": "*pt*"},
                 {"filter_name": "/^_collection0[.]/"}, {"filter_typename": "float", "full_paths": False}]

    def as_root_names(keys):
        # uproot names the members of a std::pair or std::tuple "0", "1", ... (Awkward's
        # names of a tuple's fields); ROOT names them `_0`, `_1`, as rootweave does.
        return [re.sub(r"(?<![^.])([0-9]+)(?![^.])", r"_\1", k) for k in keys]

    files = rntuple_files(tmp_path)
    compared = set()
    for path, name in files:
        theirs_ntuple, mine_ntuple = uproot.open(path)[name], rootweave.open(path)[name]
        for kw in arguments:
            theirs = as_root_names(theirs_ntuple.keys(**kw))
            assert mine_ntuple.keys(**kw) == theirs, (path.name, kw)
            types = theirs_ntuple.typenames(**kw)
            assert mine_ntuple.typenames(**kw) == dict(zip(as_root_names(types), types.values())), (path.name, kw)
            compared.add(len(theirs))
        # Every field listed is there by that name.
        assert all(mine_ntuple[k].typename == t for k, t in mine_ntuple.typenames().items()), path.name
    nano = rootweave.open(files[-1][0])["Events"]
    assert {"_collection15.Muon_pt", "Muon_pt", "nMuon", "_collection0.CorrT1METJet_area"} <= set(nano.keys())
    assert "tuple_int32_string._0" in rootweave.open(data_file("test_stl_containers_rntuple_v1-0-0-0.root"))[
        "ntuple"].keys()
    assert len(compared) > 10
