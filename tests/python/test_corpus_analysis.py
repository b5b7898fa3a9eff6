"""The analysis layer over real files of the conformance corpus against ROOT 6.40's RDataFrame:
every column's name, type and values (`AsNumpy`) as `rootweave.RDataFrame` and ROOT give them
(corpus_rdf.py, each side in a process of its own). The files: an RNTuple with a collection's
size field and one of every STL container, TTrees of split objects (members, base classes,
collections of objects, fixed-size arrays of objects, counted arrays of `long`s), of a leaf list
with variable-size leaves, of sets and of an ATLAS analysis format. What still differs is listed
with its reason; anything else that differs fails."""

import importlib.util
import sys

import pytest

from conftest import CORPUS, HERE

spec = importlib.util.spec_from_file_location("corpus_rdf", HERE / "corpus_rdf.py")
corpus_rdf = importlib.util.module_from_spec(spec)
sys.modules["corpus_rdf"] = corpus_rdf
spec.loader.exec_module(corpus_rdf)

# (tree, column, kind of difference) that are known, by file, with why.
KNOWN = {
    "Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root": set(),
    # Every STL container: pairs, tuples and vectors of them, variants, vectors of vectors
    # (taken as read; `v._0` of a vector of tuples their first members).
    "test_stl_containers_rntuple_v1-0-0-0.root": set(),
    "uproot-issue-1502.root": {
        # `TObject::fBits` as ROOT holds it in memory (kNotDeleted set), not as stored.
        ("tree", "fBits", "values"),
        ("tree", "branch.fBits", "values"),
    },
    # Objects (TVector3, alone and in vectors), taken as their members.
    "uproot-issue-569.root": set(),
    # A leaf list with variable-size leaves counted by a leaf of the list.
    "uproot-issue-400.root": set(),
    "uproot-issue-1221.root": {
        # ROOT also lists `result`, a name eight branches share (it reads the first).
        ("TrkAna/trkana", "", "names"),
        # An object (a DisplacementVector3D), taken as its members here; the campaign does
        # not convert ROOT's object (no sequence of its members) into values.
        ("TrkAna/trkana", "crvsummarymc.pos", "values"),
    },
    # Fixed-size arrays of objects in a split object (`TLorentzVector pg[6]`, `zCluster
    # Cluster[6]`, `Vertex.pRec[2]`): under their full names both type them as RVecs of their
    # class. Under the bare branch name ROOT types the branch by its class (`ig[6]`, an array of
    # ints: by its parent's class, `zEvent`) and reads only the first object; rootweave types
    # and reads it as under its full name.
    "uproot-issue-880.root": {
        ("Z", "Cluster[6]", "type"),
        ("Z", "Hit[6]", "type"),
        ("Z", "igClus[6]", "type"),
        ("Z", "ig[6]", "type"),
        ("Z", "pg[6]", "type"),
        ("Z", "pg[6]", "values"),
    },
}


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_columns_of_real_files_as_root_s(name, tmp_path):
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"conformance corpus not found at {CORPUS}")
    found = set()
    for tree in corpus_rdf.trees(path):
        theirs = corpus_rdf.side("root", path, tree, 400, tmp_path, 300)
        ours = corpus_rdf.side("rootweave", path, tree, 400, tmp_path, 300)
        assert theirs.get("names"), theirs
        found |= {(tree, column, what) for column, what, _ in corpus_rdf.compare(ours, theirs)}
    assert found == KNOWN[name]


def test_a_split_object_member_under_its_dotted_name_reads_as_under_its_own():
    """A member object of a split object, itself split (`zEvent`'s `Vertex`, whose branch has
    sub-branches of its own): RDataFrame's name of it, `Event.Vertex`, reads the same values
    as its branch's own name and its path (`Event/Vertex`, as the reader and uproot name it)."""
    import awkward as ak

    import rootweave

    path = CORPUS / "uproot-issue-880.root"
    if not path.exists():
        pytest.skip(f"conformance corpus not found at {CORPUS}")
    df = rootweave.RDataFrame("Z", str(path))
    dotted, own = df.Take("Event.Vertex").GetValue(), df.Take("Vertex").GetValue()
    assert len(dotted) == 116 and ak.to_list(dotted) == ak.to_list(own)
    assert sum(v["Vertex.Status"] != 0 for v in ak.to_list(own)) > 0
    tree = rootweave.open(path)["Z"]
    assert ak.to_list(tree["Event/Vertex"].array()) == ak.to_list(own)


def test_a_long_member_of_a_collection_s_items_is_a_c_long():
    """An `unsigned long` member of the items of a split `vector<EventType_p3>` (ATLAS
    metadata): ROOT 6.40 types it `ROOT::VecOps::RVec<ULong_t>` and computes with it as
    `unsigned long`s (not `ULong64_t`, the width's own type)."""
    import rootweave

    path = CORPUS / "uproot-issue-123b.root"
    if not path.exists():
        pytest.skip(f"conformance corpus not found at {CORPUS}")
    member = "StreamDAOD_PHYSLITE.m_eventTypes.m_mc_event_number"
    df = rootweave.RDataFrame("MetaData", str(path)).Define("x", member + " + 1").Define("s", f"Sum({member})")
    types = [df.GetColumnType(c) for c in (member, "x", "s")]
    assert types == ["ROOT::VecOps::RVec<ULong_t>", "ROOT::VecOps::RVec<unsigned long>", "unsigned long"]
    assert df.Take("s").GetValue().tolist() == [186045229]  # as ROOT 6.40 sums them


def test_counted_arrays_of_longs_and_other_containers_as_root_types_them():
    """A counted array member of C++ `long`s (`long* SliceI64; //[N]` of a split `Event`) is an
    `RVec<Long_t>` computed with as `long`s, and a `set<int>` branch keeps its class
    (RDataFrame makes `RVec`s of vectors only): the types ROOT 6.40 gives, and its sums."""
    import rootweave

    split, stl = CORPUS / "uproot-small-evnt-tree-fullsplit.root", CORPUS / "uproot-stl_containers.root"
    if not split.exists():
        pytest.skip(f"conformance corpus not found at {CORPUS}")
    df = (rootweave.RDataFrame("tree", str(split)).Define("x", "evt.SliceI64 + 1")
          .Define("s", "Sum(SliceU64)").Define("m", "Sum(SliceI64 * -3)"))
    types = [df.GetColumnType(c) for c in ("evt.SliceI64", "SliceU64", "x", "s", "m")]
    assert types == ["ROOT::VecOps::RVec<Long_t>", "ROOT::VecOps::RVec<ULong_t>", "ROOT::VecOps::RVec<long>",
                     "unsigned long", "long"]
    assert (df.Sum("s").GetValue(), df.Sum("m").GetValue()) == (23100, -69300)  # as ROOT 6.40 sums them
    df = rootweave.RDataFrame("tree", str(stl))
    types = [df.GetColumnType(c) for c in ("set_int32", "set_string", "vector_set_int32")]
    assert types == ["set<int>", "set<string>", "ROOT::VecOps::RVec<set<int>>"]
