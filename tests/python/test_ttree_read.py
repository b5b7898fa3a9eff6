"""The TTree reader against the real thing: every branch of every TTree in
tests/data that uproot 5.7 reads as numbers, booleans, strings or (jagged, fixed
or record) arrays of those agrees value for value with `rootweave dump --json`; what is
skipped is listed with the reason. Trees written here by ROOT 6.40 itself (every leaf
width, Bool_t, leaf lists also with variable-size leaves, fixed and counter-indexed arrays,
std::vector, nested vectors, std::string, every codec, many baskets and clusters) read back
exactly, for any entry range; bad input gives an error that names the file."""

import json
import subprocess
import sys

import awkward as ak
import numpy as np
import pytest
import uproot
import rootweave as rw

from compare import same
from conftest import CORPUS, HERE, TARGET, TESTDATA, root_read_members, rootweave
from tree_compare import compare_tree_with_uproot, trees_in


def dump(path, name, *args):
    out = rootweave("dump", path, name, "--json", *args)
    return [json.loads(line) for line in out.splitlines()]


# The files of ROOT's test suite are judged by ROOT (test_roottest_files.py,
# test_roottest_members.py): uproot refuses some of them and misreads others.
TTREE_FILES = [(p.name, t) for p in sorted(TESTDATA.glob("*.root"))
               if "rntuple" not in p.name and not p.name.startswith("roottest-")
               for t in trees_in(p)]


@pytest.mark.parametrize("file,name", TTREE_FILES)
def test_testdata_branches_agree_with_uproot(file, name):
    path = TESTDATA / file
    tree = uproot.open(path)[name]
    listing = rootweave("ls", path)
    assert f"TTree '{name}'" in listing and f"{tree.num_entries} entries" in listing
    compared, skipped = compare_tree_with_uproot(path, name)
    print(f"{file}:{name}: compared {len(compared)} branches; skipped {skipped}")
    assert compared or tree.num_entries == 0 or not list(tree.keys())


@pytest.mark.parametrize("file,name", [("uproot-HZZ-lz4.root", "events"), ("nanoAOD_2015_CMS_Open_Data_ttbar.root", "Events"),
                                       ("uproot-sample-6.20.04-zlib.root", "sample")])
def test_entry_ranges(file, name):
    path = TESTDATA / file
    full = dump(path, name)
    n = len(full)
    for start, stop in [(0, 1), (1, 2), (n // 3, n // 2 + 7), (n - 3, n), (5, 5), (0, n)]:
        stop = min(stop, n)
        part = dump(path, name, "--entries", f"{start}:{stop}")
        assert part == full[start:stop], (file, start, stop)


ENTRIES = 5000
COMPRESSIONS = [0, 101, 404, 505]


@pytest.fixture(scope="module")
def root_written(workdir):
    """TTrees written by ROOT itself, one per compression setting (one ROOT process)."""
    args = []
    for c in COMPRESSIONS:
        args += [str(workdir / f"tree-{c}.root"), str(c), str(ENTRIES)]
    subprocess.run([sys.executable, str(HERE / "root_write_ttree.py"), *args], check=True,
                   capture_output=True)
    return {c: workdir / f"tree-{c}.root" for c in COMPRESSIONS}


def f32(x):
    return float(np.float32(x))


def expected_entry(e):
    """The values root_write_ttree.py writes for entry e."""
    return {
        "b": e % 3 == 0,
        "i8": e % 256 - 128,
        "u8": e % 256,
        "i16": e * 37 % 65536 - 32768,
        "u16": e * 37 % 65536,
        "i32": e * 7919 - 1_000_000,
        "u32": e * 2654435761 % (1 << 32),
        "i64": e * 1_000_000_007 - 5_000_000_000,
        "u64": e * 0x9E3779B97F4A7C15 % (1 << 64),
        "f": f32(np.float32(e) * np.float32(0.25) - np.float32(100)),
        "d": e / 7.0,
        "ll": {"b": e * 0.5, "a": e - 7, "c": e % 100},
        "arr": [f32(e + 0.5 * k) for k in range(3)],
        "m": [[e * 10 + r * 3 + c for c in range(3)] for r in range(2)],
        "cnt": e % 4,
        "jag": [e + k / 8.0 for k in range(e % 4)],
        "cstr": f"c{e % 1000}",
        "v": [f32(j + 0.5 * (e % 11)) for j in range(e % 5)],
        "vv": [[float(e * 1000 + j * 10 + k - 5000) for k in range(j + e % 2)] for j in range(e % 3)],
        "s": f"s{e * 13 % 1000}",
        "vs": [f"x{e + j}" for j in range(e % 3)],
        "hit.e": f32(e * 0.5),
        "hit.id": e % 50 - 25,
        "hit.q": (e % 64) * 1.5625,
        "hit.r": e * 0.5,
        "hit.h": (e % 16) * 0.25,
        "hit.hr": -1 + (e % 8) * 0.25,
        "hit.w": [j * 2.0 for j in range(e % 4)],
        "vl": {"vn": e % 5, "vx": [f32(e + 0.25 * k) for k in range(e % 5)],
               "vm": [[e % 3000 * 3 + k * 2 - 100, -k] for k in range(e % 5)], "vq": e * 1.5 - 3},
        "el": {"ex": [e * 0.5 + k for k in range(e % 4)], "ek": e % 200},
    }


@pytest.mark.slow
@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_trees_written_by_root_read_back_exactly(root_written, compression):
    path = root_written[compression]
    mine = dump(path, "t")
    assert len(mine) == ENTRIES
    for e in range(ENTRIES):
        expected = expected_entry(e)
        assert mine[e].keys() == expected.keys(), mine[e].keys()
        bad = [k for k in expected if not same(mine[e][k], expected[k])]
        assert not bad, f"entry {e}: {[(k, mine[e][k], expected[k]) for k in bad]}"


@pytest.mark.slow
def test_tree_in_a_subdirectory(root_written):
    assert [e["x"] for e in dump(root_written[101], "sub/inner")] == list(range(10))
    assert "TTree 'sub/inner'" in rootweave("ls", root_written[101])


@pytest.mark.slow
def test_root_trees_have_many_baskets_and_clusters(root_written):
    listing = rootweave("ls", root_written[505])
    assert f"{ENTRIES} entries, 5 clusters" in listing, listing
    baskets = {line.split()[0]: int(line.split()[-1]) for line in listing.splitlines()
               if line.startswith("  ") and line.split()[-1].isdigit()}
    assert baskets["m"] > 10 and baskets["vv"] > 10 and baskets["b"] >= 5, baskets
    assert "var * var * float64" in listing and "{b: float64, a: int32, c: int16}" in listing


@pytest.mark.slow
@pytest.mark.parametrize("compression", [0, 505])
def test_entry_ranges_across_baskets(root_written, compression):
    path = root_written[compression]
    fields = "i16,m,jag,vv,s,vs,hit.w,ll,vl,el"
    full = dump(path, "t", "--fields", fields)
    for start, stop in [(0, 1), (999, 1001), (123, 4321), (ENTRIES - 2, ENTRIES), (7, 7)]:
        part = dump(path, "t", "--fields", fields, "--entries", f"{start}:{stop}")
        assert part == full[start:stop], (start, stop)


@pytest.mark.slow
def test_bad_input_names_the_file(workdir, root_written):
    data = root_written[505].read_bytes()
    cut = workdir / "truncated.root"
    cut.write_bytes(data[: len(data) // 2])
    missing = workdir / "missing.root"
    for path in [cut, missing]:
        result = subprocess.run([str(TARGET / "rootweave"), "dump", str(path), "t", "--json"],
                                capture_output=True, text=True)
        assert result.returncode == 1, (path, result.stderr[-500:])
        assert str(path) in result.stderr and "panicked" not in result.stderr, result.stderr
    # Bit flips anywhere: an error naming the file, or values (TTree baskets carry no
    # checksums, so a flip inside uncompressed data changes values); never a crash.
    for k in range(1, 40):
        broken = bytearray(data)
        broken[len(data) * k // 40] ^= 0x5A
        flipped = workdir / "flipped.root"
        flipped.write_bytes(bytes(broken))
        result = subprocess.run([str(TARGET / "rootweave"), "dump", str(flipped), "t", "--json"],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode in (0, 1), result.stderr[-500:]
        assert "panicked" not in result.stderr
        if result.returncode == 1:
            assert str(flipped) in result.stderr or "<stdout>" in result.stderr, result.stderr
    result = subprocess.run([str(TARGET / "rootweave"), "dump", str(root_written[505]), "t", "--fields", "nope"],
                            capture_output=True, text=True)
    assert result.returncode == 1 and "nope" in result.stderr


def test_maps_agree_with_uproot():
    """Every std::map branch (numbers, strings, TStrings, vectors and sets as keys and
    values) is read as a list of {first, second} records, the pairs uproot reads."""
    path = TESTDATA / "uproot-stl_containers.root"
    tree = uproot.open(path)["tree"]
    names = [b for b in tree.keys() if b.startswith("map_")]
    assert len(names) >= 14
    mine = dump(path, "tree")
    for name in names:
        theirs = ak.to_list(tree[name].array(library="ak"))
        values = [entry[name] for entry in mine]
        assert all(list(p) == ["first", "second"] for entry in values for p in entry), name
        bad = [i for i, (a, b) in enumerate(zip(values, theirs)) if not same(a, b)]
        assert not bad, f"{name} entry {bad[0]}: {values[bad[0]]} != {theirs[bad[0]]}"


def test_branches_of_one_name_are_told_apart_by_their_paths(workdir):
    """Two split objects of one class give sub-branches of one name (`fX` under `a` and
    under `b`, as in files whose trees hold several objects of one class): each reads by its path as uproot names it, and the bare name is refused
    with the paths instead of reading one of them."""
    import rootweave

    path = workdir / "same_names.root"
    code = f"""
import ROOT
ROOT.gInterpreter.Declare("struct Pt {{ double fX; double fY; }}; struct Q {{ double q; int n; }};")
ROOT.gInterpreter.GenerateDictionary("Pt;Q", "")
f = ROOT.TFile("{path}", "RECREATE")
t = ROOT.TTree("t", "t")
a, b, q = ROOT.Pt(), ROOT.Pt(), ROOT.Q()
t.Branch("a", a, 32000, 99)
t.Branch("b", b, 32000, 99)
t.Branch("q", q, 32000, 99)
for i in range(20):
    a.fX, a.fY = i, 2.0 * i
    b.fX, b.fY = -i, 7.0
    q.q, q.n = 0.5 * i, i
    t.Fill()
f.Write()
f.Close()
"""
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, cwd=workdir)
    tree = uproot.open(path)["t"]
    names = [k for k in tree.keys(recursive=True) if k.endswith("/fX")]
    assert names == ["a/fX", "b/fX"], tree.keys(recursive=True)
    ours = rootweave.open(str(path))["t"]
    assert "a/fX" in ours.keys() and "b/fX" in ours.keys()
    got = ours.arrays(names, library="ak")
    for name in names:
        assert got[name].tolist() == tree[name].array(library="ak").tolist(), name
    assert got["a/fX"].tolist() != got["b/fX"].tolist()
    with pytest.raises(ValueError, match="a/fX, b/fX"):
        ours.arrays(["fX"], library="ak")
    group = ours.arrays(["a"], library="ak")["a"]
    assert group.fields == ["fX", "fY"] and group["fY"].tolist() == [2.0 * i for i in range(20)]
    # A member named like its object (`q` under `q`): the top branch by its name, the
    # member by its path; neither reads the other (or itself, endlessly).
    assert tree.keys(recursive=True)[-3:] == ["q", "q/q", "q/n"]
    both = ours.arrays(["q", "q/q"], library="ak")
    assert both["q/q"].tolist() == [0.5 * i for i in range(20)]
    assert both["q"].fields == ["q", "n"] and both["q"]["n"].tolist() == list(range(20))
    assert ours.keys()[-3:] == ["q", "q/q", "n"]


def test_memberwise_streamed_members_of_split_collection_items_read_as_root_reads_them(workdir):
    """ATLAS's `MetaData` holds, in the items of split collections, vectors of classes
    streamed memberwise (uproot cannot read them): all 15 such branches, every member, equal
    to what ROOT 6.40 reads through its emulated classes; KM3NeT's `usr_data` (a vector of
    objects in every track, all empty) has one list per track."""
    path = CORPUS / "uproot-issue-123b.root"
    if not path.exists():
        pytest.skip(f"conformance corpus not found at {CORPUS}")
    tree = rw.open(path)["MetaData"]
    names = [k for k in tree.keys(recursive=True) if k.endswith("m_payload.m_payloadVec.m_attrLists")]
    assert len(names) == 15
    members = ["m_channelNumber", "m_firstIndex", "m_lastIndex", "m_range.m_start", "m_range.m_stop"]
    formulas = {}
    for name in names:
        top = name.split("/")[0]
        formulas |= {f"{top}:{m}": [f"{top}.m_payload.m_payloadVec.m_attrLists.{m}", "num"] for m in members}
        formulas[f"{top}:n"] = [f"{top}.m_payload.m_payloadVec.m_attrLists@.size()", "num"]
    root = root_read_members(workdir, path, "MetaData", formulas)
    entries = 0
    for name in names:
        top = name.split("/")[0]
        mine = tree[name].array(library="ak").to_list()
        assert [[len(lists) for lists in e] for e in mine] == root[f"{top}:n"], top
        items = [[item for lists in e for item in lists] for e in mine]
        for m in members:
            first, *rest = m.split(".")
            # ROOT's formulas give doubles (2**63 - 1 as 2**63).
            got = [[float(item[first][rest[0]] if rest else item[first]) for item in e] for e in items]
            assert got == root[f"{top}:{m}"], (top, m)
        assert all(item["m_name"] == "" for e in items for item in e)
        entries += sum(len(e) for e in items)
    assert entries > 100
    km3net = rw.open(CORPUS / "uproot-issue390.root")["E"].arrays(["trks", "trks.usr_data"], library="ak")
    assert [len(v) for v in km3net["trks.usr_data"]] == [len(v) for v in km3net["trks"]["trks.id"]]
    assert ak.sum(ak.num(km3net["trks.usr_data"], axis=2)) == 0


@pytest.mark.parametrize("name", ["uproot-issue-210.root", "uproot-issue-123a.root"])
def test_atlas_event_info_and_jet_aux_stores_read_as_root_reads_them(workdir, name):
    """ATLAS's `EventInfoAux.` (run and event numbers, unsplit) holds a memberwise
    `vector<pair<string,string> >` whose pair class the file does not describe (ROOT makes
    its layout from the template): every member equal to what ROOT 6.40 reads. So do the
    jets' auxiliary stores, whose maps of moments were streamed pair by pair."""
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"conformance corpus not found at {CORPUS}")
    mine = rw.open(path)["CollectionTree"]["EventInfoAux."].array(library="ak").to_list()
    fields = [f for f in mine[0] if f != "detDescrTags"]
    assert len(fields) == 39 and "eventNumber" in fields
    kind = {f: "str" if f.startswith("streamTag") and f != "streamTagObeysLumiblock" else "num" for f in fields}
    formulas = {f: [f"EventInfoAux.{f}", k] for f, k in kind.items()}
    formulas["tags"] = ["EventInfoAux.detDescrTags@.size()", "num"]
    # Jets' auxiliary stores, whose maps (name -> values per jet) were streamed pair by pair.
    jets = [f"HLT_xAOD__JetContainer_{j}Aux." for j in ("EFJet", "GSCJet", "SplitJet")] if "210" in name else []
    for j in jets:
        formulas |= {f"{j}{m}": [f"{j}.{m}", "num"] for m in ("m_tick", "pt", "m_int.second", "m_float.second")}
    root = root_read_members(workdir, path, "CollectionTree", formulas)
    pairs = 0
    for j in jets:
        aux = rw.open(path)["CollectionTree"][j].array(library="ak").to_list()
        assert [[a["m_tick"]] for a in aux] == root[f"{j}m_tick"], j
        assert [[float(np.float32(x)) for x in a["pt"]] for a in aux] == root[f"{j}pt"], j
        for m in ("m_int", "m_float"):
            got = [[float(np.float32(x)) for pair in a[m] for x in pair["second"]] for a in aux]
            assert got == root[f"{j}{m}.second"], (j, m)
            pairs += sum(len(a[m]) for a in aux)
    if jets:
        assert pairs > 50
        gsc = rw.open(path)["CollectionTree"][jets[1]].array(library="ak").to_list()
        assert [p["first"] for p in gsc[0]["m_int"]][:2] == ["AlgorithmType", "ConstituentScale"]
    for f in fields:
        got = [v[f] if isinstance(v[f], list) else [v[f]] for v in mine]
        if kind[f] == "num":
            got = [[float(x) for x in e] for e in got]
            want = [[float(x) for x in e] for e in root[f]]
            if isinstance(mine[0][f], float):  # floats: ROOT's formulas give their doubles
                got = [[float(np.float32(x)) for x in e] for e in got]
            assert got == want, f
        else:
            assert got == root[f], f
    assert [[len(v["detDescrTags"])] for v in mine] == root["tags"]


def test_basket_kept_in_its_branch_whose_data_is_as_long_as_its_entry_size(workdir):
    """A basket kept inside its branch (the first cycle of ATLAS's `MetaData`) says by its
    flag whether entry offsets precede its data. Its one entry (a vector of five strings) is
    exactly `fNevBufSize` bytes long: guessing from the lengths takes the offsets for data
    (uproot misreads it so), the flag does not. Every such branch against ROOT 6.40."""
    path = CORPUS / "uproot-issue-123b.root"
    if not path.exists():
        pytest.skip(f"conformance corpus not found at {CORPUS}")
    names = ["IncompleteCutBookkeepersAux.name", "IncompleteFileBookkeepersAux.name", "CutBookkeepersAux.name",
             "FileBookkeepersAux.name"]
    root = root_read_members(workdir, path, "MetaData;1", {n: [n, "str"] for n in names})
    tree = rw.open(path)["MetaData;1"]
    for n in names:
        assert [[str(s) for s in e] for e in tree[n].array(library="ak").to_list()] == root[n], n
    assert root[names[0]] == [["AllExecutedEvents"] * 5]


def test_a_map_branch_streamed_pair_by_pair_reads_as_root_reads_it(workdir):
    """An unsplit `map<string,double>` branch whose pairs ROOT streamed one after the other
    (not memberwise; uproot fails on it): sizes, values and first keys of all 7032 entries
    against ROOT 6.40 (its string formulas give the first key only)."""
    path = CORPUS / "uproot-issue243.root"
    if not path.exists():
        pytest.skip(f"conformance corpus not found at {CORPUS}")
    root = root_read_members(workdir, path, "triggerList", {
        "second": ["triggerMap.second", "num"], "first": ["triggerMap.first", "str"], "n": ["triggerMap@.size()", "num"]})
    mine = rw.open(path)["triggerList"]["triggerMap"].array(library="ak").to_list()
    assert len(mine) == 7032 and sum(map(len, mine)) == 6920
    assert [[len(e)] for e in mine] == root["n"]
    assert [[p["second"] for p in e] for e in mine] == root["second"]
    assert [[e[0]["first"] if e else ""] for e in mine] == root["first"]
