"""Class members framed unlike other objects, in files of ROOT's own test suite, against
what ROOT 6.40 reads (its emulated classes, evaluated in a child process by
root_read_members.py): `TArrayD` members and a counted array of them (`TArrayD* //[n]`);
a member-wise `std::vector<Particle>` (Particle derives from TObject), which uproot
misreads; arrays of `std::string` in a split object and in split collections. Every branch
rootweave reads is compared, every value of every entry; no branch is left unread but those
ROOT cannot read either (a TMap of emulated objects) or that are object pointers
(`TObjArray*`)."""

import awkward as ak
import pytest

import rootweave
from conftest import data_file, root_read_members

pytestmark = pytest.mark.slow


def ours(file, tree, unread=()):
    """Every branch but `unread`, as rootweave reads it (as Python lists)."""
    t = rootweave.open(data_file(file))[tree]
    for name in unread:
        with pytest.raises(rootweave.RootFileError, match="not supported"):
            t[name].array()
    return {name: ak.to_list(t[name].array()) for name in t.keys() if name not in unread}


MONO_NUMBERS = ["fUniqueID", "fBits", "fSDay", "fEDay", "fCoeffDate", "fNrSrcs", "fDotsHalfLife", "fWindow",
                "fCalcVarRed"]
MONO_STRINGS = ["fModel", "fParamFile", "fPeriodGroupStr", "fFitVarType", "fWorkingDir", "fSmoothCoeffFile"]
MONO_TARRAYS = ["fUse", "fSsize", "fNrho", "fNrhoInv"]


def test_tarray_members(workdir):
    formulas = {b: [b, "num"] for b in MONO_NUMBERS} | {b: [b, "str"] for b in MONO_STRINGS}
    formulas |= {b: [f"{b}.fArray", "num"] for b in MONO_TARRAYS}
    root = root_read_members(workdir, "roottest-memleak.root", "MonoData", formulas,
                     loops={"fPnts": ["mono", "fPnts", "fNrSrcs"]}, disable=["fSmoothMonoM"])
    # Object pointers (a TObjArray, and a TMap of emulated objects ROOT cannot read either)
    # are not read, nor the object holding them.
    mine = ours("roottest-memleak.root", "MonoData", unread=["mono", "fCommL", "fSmoothMonoM"])
    assert set(mine) == set(root) | {"TObject"}, sorted(set(mine) ^ set(root))
    assert mine["TObject"] == [{"fUniqueID": u, "fBits": b} for u, b in zip(mine["fUniqueID"], mine["fBits"])]
    for b in MONO_NUMBERS + MONO_STRINGS:
        assert [[v] for v in mine[b]] == root[b], b
    for b in MONO_TARRAYS:
        assert mine[b] == root[b], b
        assert [len(v) for v in mine[b]] == [96, 96] if b in ("fUse", "fSsize") else [9216, 9216]
    assert mine["fPnts"] == root["fPnts"]
    assert [len(v) for v in mine["fPnts"]] == mine["fNrSrcs"] == [21, 21]


def test_memberwise_vector_of_tobject_class(workdir):
    members = ["fPosX", "fPosY", "fPosZ"]
    root = root_read_members(workdir, "roottest-TreeVectorClass0.root", "TreeVectorClass0",
                     {m: [f"vp.{m}", "num"] for m in members} | {"n": ["vp@.size()", "num"]})
    mine = ours("roottest-TreeVectorClass0.root", "TreeVectorClass0")
    assert list(mine) == ["vp"]
    assert [len(v) for v in mine["vp"]] == [n for [n] in root["n"]] == [5] * 10
    for m in members:
        assert [[p[m] for p in v] for v in mine["vp"]] == root[m], m
    assert [p["fPosX"] for p in mine["vp"][0]] == [110, 111, 112, 113, 114]


def test_string_arrays_in_split_objects_and_collections(workdir):
    formulas = {}
    for top in ["obj", "vec", "cont.obj"]:
        for m in ["fDataTag", "fOutputInstance"]:
            formulas[f"{top}.{m}"] = [f"{top}.{m}", "str"]
        for k in range(4):
            index = f"[{k}]" if top == "obj" else f"[][{k}]"
            formulas[f"{top}.fOutputNames{k}"] = [f"{top}.fOutputNames{index}", "str"]
    formulas["vec.n"] = ["vec@.size()", "num"]
    formulas["cont.obj.n"] = ["cont.obj@.size()", "num"]
    root = root_read_members(workdir, "roottest-stringarray.old.root", "t", formulas)
    mine = ours("roottest-stringarray.old.root", "t")
    assert len(mine) == 13, sorted(mine)
    assert mine["obj."] == [{f"obj.{k}": mine[f"obj.{k}"][e] for k in ["fDataTag", "fOutputInstance", "fOutputNames[4]"]}
                            for e in range(len(mine["obj."]))]
    for m in ["fDataTag", "fOutputInstance"]:
        assert [[v] for v in mine[f"obj.{m}"]] == root[f"obj.{m}"], m
    assert mine["obj.fOutputNames[4]"] == [[root[f"obj.fOutputNames{k}"][e][0] for k in range(4)]
                                           for e in range(len(mine["obj.fOutputNames[4]"]))]
    for top in ["vec", "cont.obj"]:
        counts = [int(n) for [n] in root[f"{top}.n"]]
        # ROOT's formulas give one (empty) instance of a string member of an empty collection.
        for m in ["fDataTag", "fOutputInstance"]:
            assert mine[f"{top}.{m}"] == [v[:n] for v, n in zip(root[f"{top}.{m}"], counts)], (top, m)
        want = [[[root[f"{top}.fOutputNames{k}"][e][i] for k in range(4)] for i in range(n)]
                for e, n in enumerate(counts)]
        assert mine[f"{top}.fOutputNames[4]"] == want, top
