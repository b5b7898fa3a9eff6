"""Files of ROOT's own test suite that uproot does not read, or reads wrongly, read with
ROOT 6.40's values (ROOT, run in a child process by root_leaf_values.py, is the judge):
ROOT 3's legacy 'CS' compression (hsimple.31000), baskets kept in another file that is not
there (alice_ESDs, whose ESD friends are in AliESDfriends.root), uproot's paths of
branches below base-class branches, object pointers and counted arrays in split
collections (alice_ESDs), and histogram errors without stored squared weights
(HistArray)."""

import json
import math
import subprocess
import sys

import awkward as ak
import numpy as np
import pytest
import uproot

import rootweave
from conftest import HERE, data_file

HSIMPLE = data_file("roottest-hsimple.31000.root")
ALICE = data_file("roottest-alice_ESDs.root")
HISTARRAY = data_file("roottest-HistArray.root")
# The four branches whose baskets are in AliESDfriends.root (the others of the friend
# branch keep theirs in the tree object).
FRIEND_BASKETS = {"ESDfriend./ESDfriend.fTracks/ESDfriend.fTracks." + m
                  for m in ("fITSindex[12]", "fTPCindex[160]", "fTRDindex[180]", "fPoints")}


def root_values(path, workdir, *args):
    """What ROOT reads of the trees and histograms `args` name (see root_leaf_values.py)."""
    out = workdir / (path.stem + ".json")
    done = subprocess.run([sys.executable, str(HERE / "root_leaf_values.py"), str(path), str(out), *args],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text())


def numbers(values):
    """JSON numbers (NaN and infinities as strings) as float64."""
    return np.array([float(v) for v in values], dtype=np.float64)


def same(ours, theirs):
    return ours.shape == theirs.shape and np.allclose(ours, theirs, rtol=1e-6, atol=0, equal_nan=True)


def compare_tree(tree, seen, uproot_tree, root_cannot=()):
    """Every numeric leaf ROOT reads, against rootweave: equal to what ROOT's `Draw` or its
    entry loop gives (each is wrong for some leaves, see root_leaf_values.py); where ROOT
    gives no values either way, or the leaf is below a branch of `root_cannot` (whose
    object ROOT does not read without its other file: zeros, one per entry), equal to
    uproot's. Returns the leaves rootweave cannot read, with the reason."""
    unreadable = {}
    for path in seen["loop"]:
        try:
            ours = np.asarray(ak.flatten(tree[path].array(library="ak"), axis=None), dtype=np.float64)
        except (rootweave.RootFileError, ValueError, KeyError) as e:
            unreadable[path] = str(e)
            continue
        draw, loop = seen["draw"][path], seen["loop"][path]
        if same(ours, numbers(loop)) or (draw is not None and same(ours, numbers(draw))):
            continue
        assert path.startswith(tuple(root_cannot)) or (not loop and not draw), f"{path}: {ours[:5]} where ROOT reads {loop[:5]} / {(draw or [])[:5]}"
        theirs = ak.flatten(uproot_tree[path].array(library="ak"), axis=None)
        assert same(ours, np.asarray(theirs, dtype=np.float64)), path
    return unreadable


@pytest.fixture(scope="module")
def hsimple(workdir):
    return root_values(HSIMPLE, workdir, "ntuple", "--hists", "hpx", "hpxpy", "hprof")


def test_legacy_cs_compression_reads_as_root(hsimple):
    f = rootweave.open(HSIMPLE)
    assert sorted(k.partition(";")[0] for k in f.keys()) == hsimple["keys"]
    ntuple = f["ntuple"]
    seen = hsimple["trees"]["ntuple"]
    assert ntuple.num_entries == seen["entries"] == 10000
    arrays = ntuple.arrays(library="np")
    assert sorted(arrays) == sorted(seen["loop"])
    for name, values in seen["loop"].items():
        assert np.array_equal(arrays[name], numbers(values).astype(np.float32)), name
    for name, h in hsimple["hists"].items():
        ours = f[name]
        values = ours.values(flow=True)
        errors = ours.errors(flow=True)
        assert np.allclose(cells(values), numbers(h["content"])), name
        assert np.allclose(cells(errors), numbers(h["error"])), name
    assert f["hpx"].values()[49] == 306.0


def test_uproot_refuses_what_rootweave_reads():
    with pytest.raises(Exception, match="(?i)compress|CS|20 years"):
        uproot.open(HSIMPLE)["ntuple"].arrays()


def test_a_corrupt_cs_block_is_an_error_naming_the_file(tmp_path):
    data = bytearray(HSIMPLE.read_bytes())
    at = data.find(b"CS\x08")
    data[at + 9:at + 40] = bytes(31)
    bad = tmp_path / "bad.root"
    bad.write_bytes(data)
    ntuple = rootweave.open(bad)["ntuple"]
    errors = []
    for name in ntuple.keys():
        try:
            ntuple[name].array()
        except rootweave.RootFileError as e:
            errors.append(str(e))
    assert errors and all("bad.root" in e and "legacy ('CS') deflate block" in e for e in errors), errors


# Members behind object pointers, as ROOT's `Draw` gives them (zero for a null pointer).
POINTER_DRAWS = [f"esdTree:Tracks.{p}.{m}" for p in ("fCp", "fIp", "fOp") for m in ("fX", "fAlpha")] + [
    f"{tree}:{trigger}.fTriggerAmplitudes.fN" for tree in ("esdTree", "HLTesdTree")
    for trigger in ("PHOSTrigger", "EMCALTrigger")]


@pytest.fixture(scope="module")
def alice(workdir):
    return root_values(ALICE, workdir, "esdTree", "HLTesdTree", "--draw", *POINTER_DRAWS)


def test_baskets_in_a_missing_file_leave_the_rest_readable(alice):
    f = rootweave.open(ALICE)
    u = uproot.open(ALICE)
    esd = f["esdTree"]
    seen = alice["trees"]["esdTree"]
    assert set(seen["unreadable"]) == FRIEND_BASKETS
    unreadable = compare_tree(esd, seen, u["esdTree"], root_cannot=["ESDfriend./"])
    # Every leaf ROOT reads, a TBits member of a split collection (`UChar_t* //[fNbytes]`,
    # read with its counter's values) among them.
    assert not unreadable, unreadable
    assert ak.count(esd["Tracks/Tracks.fTPCClusterMap.fAllBits"].array()) == 25740
    for path in FRIEND_BASKETS:
        with pytest.raises(rootweave.RootFileError, match="AliESDfriends.root"):
            esd[path].array()
    # The friend branches whose baskets are in the tree object read.
    assert esd["ESDfriend./ESDfriend.fTracks/ESDfriend.fTracks.fUniqueID"].array(library="np").size == 20
    hlt = f["HLTesdTree"]
    assert not compare_tree(hlt, alice["trees"]["HLTesdTree"], u["HLTesdTree"])


def test_object_pointers_read_as_optional_objects(alice):
    f = rootweave.open(ALICE)
    for job, drawn in alice["drawn"].items():
        tree, expression = job.split(":")
        branch, member = expression.rsplit(".", 1)
        if "Trigger" in branch:
            # A `TArrayF*` member of a split object: null, or the array.
            branch, member = branch.replace(".", "/", 1), None
        else:
            branch = "Tracks/" + branch
        objects = f[tree][branch].array()
        if member is None:
            ours = ak.num(ak.fill_none(objects, [], axis=0), axis=1)
        else:
            ours = ak.flatten(ak.fill_none(objects[member], 0))
        assert len(drawn) == len(ours) > 0 and same(np.asarray(ours, dtype=np.float64), numbers(drawn)), job
    # Null pointers are missing values, not zeros.
    cp = f["esdTree"]["Tracks/Tracks.fCp"].array()
    assert cp[0][0] is None and cp[0][1]["fX"] == pytest.approx(0.002902160631492734)
    assert ak.sum(ak.is_none(cp, axis=1)) + ak.count(cp.fX) == ak.sum(ak.num(cp)) == 1287


def test_every_uproot_path_names_the_branch_uproot_names(alice):
    f = rootweave.open(ALICE)
    u = uproot.open(ALICE)
    for name in ("esdTree", "HLTesdTree"):
        ours, theirs = f[name], u[name]
        for path in theirs.keys(recursive=True):
            branch = ours[path]
            assert branch.name.rpartition("/")[2] == path.rpartition("/")[2], path
    # A path below a base-class branch, whose own name repeats in other branches.
    vertex = f["esdTree"]["PrimaryVertex/AliVertex/fNIndices"]
    assert vertex.array(library="np")[:4].tolist() == [18, 22, 6, 13]


def test_rootweave_ls_lists_the_tree_and_says_which_branches_are_unreadable():
    from conftest import rootweave as cli
    listing = cli("ls", ALICE)
    rows = {line.split()[0]: line for line in listing.splitlines() if line.startswith("  ")}
    assert "not readable" in rows["ESDfriend.fTracks.fPoints"]
    # Branches whose names repeat are listed, and read, by their paths.
    assert "not readable" not in rows["PrimaryVertex/AliVertex/fNIndices"]
    assert "not readable" not in rows["SPDVertex/AliVertex/TNamed/fName"]


def cells(values):
    """A histogram's cells in ROOT's order (x first)."""
    return values.reshape(-1, order="F")


def test_histograms_and_arrays_without_squared_weights_are_root_s(workdir):
    f = rootweave.open(HISTARRAY)
    names = [k.partition(";")[0] for k in f.keys()]
    seen = root_values(HISTARRAY, workdir, "--hists", *names)["hists"]
    assert {h["class"] for h in seen.values()} == {
        "TArrayC", "TArrayS", "TArrayI", "TArrayL", "TArrayL64", "TArrayF", "TArrayD", "TH1C", "TH1F",
        "TH2D", "TH3S", "TH2I"}
    for name, h in seen.items():
        ours = f[name]
        if "array" in h:
            assert np.array_equal(np.asarray(ours.member("fArray"), dtype=np.float64), numbers(h["array"])), name
            continue
        errors = numbers(h["error"])
        assert np.allclose(cells(ours.values(flow=True)), numbers(h["content"])), name
        assert np.allclose(cells(ours.errors(flow=True)), errors), name
        assert np.allclose(cells(ours.variances(flow=True)), errors**2), name
        assert np.allclose(cells(ours.to_hist().variances(flow=True)), errors**2), name
    # The negative bin of the TH1C: ROOT's error is sqrt(|content|), not a negative variance.
    hc = f["hc"]
    assert hc.values(flow=True)[1] == -20
    assert math.isclose(hc.errors(flow=True)[1], math.sqrt(20))
    assert hc.variances(flow=True)[1] == 20


def test_merging_a_tree_whose_baskets_are_in_another_file_is_refused(tmp_path):
    out = tmp_path / "merged.root"
    with pytest.raises(rootweave.RootFileError, match="keeps its baskets in 'AliESDfriends.root'"):
        rootweave.merge(out, [ALICE])


WRITE_ELSEWHERE = r"""
import sys, ROOT
ROOT.gInterpreter.Declare('''
void write_elsewhere(const char* path) {
  TFile f(path, "RECREATE");
  TTree t("t", "the baskets of y in other.root");
  int x; float y[3];
  t.Branch("x", &x, "x/I");
  auto b = t.Branch("y", y, "y[3]/F");
  b->SetBasketSize(1000);
  b->SetFile("other.root");
  for (int i = 0; i < 1000; ++i) { x = i; for (int k = 0; k < 3; ++k) y[k] = i + 0.25f * k; t.Fill(); }
  t.Write();
  f.Close();
}''')
ROOT.write_elsewhere(sys.argv[1])
"""


def test_baskets_in_another_file_beside_the_tree_s_are_read(tmp_path):
    main = tmp_path / "main.root"
    done = subprocess.run([sys.executable, "-c", WRITE_ELSEWHERE, str(main)], capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "other.root").exists()
    seen = root_values(main, tmp_path, "t")["trees"]["t"]
    tree = rootweave.open(main)["t"]
    arrays = tree.arrays(library="np")
    assert np.array_equal(arrays["x"], numbers(seen["loop"]["x"]))
    assert np.array_equal(arrays["y"].reshape(-1), numbers(seen["loop"]["y"]))
    assert arrays["y"][999].tolist() == [999.0, 999.25, 999.5]
    # Without the other file only y is unreadable.
    (tmp_path / "other.root").unlink()
    tree = rootweave.open(main)["t"]
    with pytest.warns(rootweave.UnreadableBranchWarning, match="other.root"):
        arrays = tree.arrays(library="np")
    assert list(arrays) == ["x"] and arrays["x"][999] == 999
    with pytest.raises(rootweave.RootFileError, match="kept in 'other.root', which cannot be opened"):
        tree["y"].array()
