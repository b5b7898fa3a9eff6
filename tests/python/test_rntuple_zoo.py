"""RNTuples of shapes the test data lacks, written by ROOT 6.40 itself
(root_write_rntuple_zoo.py), read by rootweave with exactly the values ROOT wrote: STL
containers, the floating-point column types ROOT writes on request, a late model extension,
several cluster groups, RNTupleParallelWriter's output, files merged by hadd (pages copied
and recompressed), and a real CMS NanoAOD TTree imported by ROOT's RNTupleImporter
(compared with the TTree it came from)."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import awkward as ak
import pytest
import uproot

from compare import first_difference, same, uproot_fields
from conftest import HERE, TESTDATA, rootweave

#: Runs ROOT or takes seconds: left out by `-m 'not slow'`.
pytestmark = pytest.mark.slow

ENTRIES = 5000
NANOAOD = TESTDATA / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
# Real32Quant with 20 bits over [-100, 100]: values are within half a step of what was written.
QUANT_STEP = 200.0 / ((1 << 20) - 1)


@pytest.fixture(scope="module")
def zoo(workdir):
    """Writes every file in one ROOT child process."""
    out = workdir / "rntuple-zoo"
    out.mkdir()
    result = subprocess.run([sys.executable, str(HERE / "root_write_rntuple_zoo.py"), str(out),
                             str(ENTRIES), str(NANOAOD)], capture_output=True, text=True)
    assert result.returncode == 0 and "written" in result.stdout, result.stdout + result.stderr[-3000:]
    # ROOT's hadd merging two copies: recompressing the pages (the target's default
    # compression differs), and copying them as they are (-ff).
    hadd = Path(importlib.util.find_spec("ROOT").submodule_search_locations[0]) / "bin" / "hadd"
    for name, options in [("merged.root", []), ("merged-ff.root", ["-ff"])]:
        result = subprocess.run([str(hadd), "-f", *options, str(out / name), str(out / "zoo.root"),
                                 str(out / "zoo.root")], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
    return out


def dump(path, name, *args):
    out = rootweave("dump", path, name, "--json", *args)
    return [json.loads(line) for line in out.splitlines()]


def expected_entry(e, late_start=None):
    """The values root_write_rntuple_zoo.py gives entry `e` (`late_start`: the entry of the
    late model extension; fields added then read as default values before it)."""
    bits = [False] * 70
    bits[e % 70] = bits[(e * 7) % 70] = True
    entry = {
        "st": sorted({(e % 7) * 10 - j for j in range(e % 3)}),
        "var": [-3 * e, e * 0.5, f"v{e}"][e % 3],
        "up": e / 8.0 if e % 5 == 2 else None,
        "bs": bits,
        "pr": {"_0": e - 50, "_1": f"p{e % 9}"},
        "tp": {"_0": e % 300, "_1": e * 0.125, "_2": "x" * (e % 4)},
        "rv": [j - e * 0.5 for j in range(e % 6)],
        "vb": [(e + j) % 3 == 0 for j in range(e % 5)],
        "av": [[e] * (e % 3), [-e] * ((e + 1) % 3)],
        "va": [[float(j), e * 0.25] for j in range(e % 3)],
        "ov": None if e % 4 == 3 else [e % 100] * (e % 4),
        "vs": [chr(ord("a") + e % 26) * (j + 1) for j in range(e % 3)],
        "at": 3 * e,
        "id": e,
        "f16": (e % 64) * 0.25,
        "ftrunc": (e % 32) - 16,
        "d32": (e % 1000) * 0.5,
    }
    if late_start is not None:
        late = e >= late_start
        entry["late"] = 2.0 * e if late else 0.0
        entry["late_v"] = [e] * (e % 3) if late else []
    return entry


def check_entries(entries, ids, late_start, what):
    for e, entry in zip(ids, entries):
        expected = expected_entry(e, late_start)
        quantized = entry.pop("dquant")
        assert abs(quantized - ((e % 2000) * 0.1 - 100.0)) <= QUANT_STEP / 2 * 1.0001, f"{what} {e} dquant"
        assert entry.keys() == expected.keys(), what
        bad = [k for k in expected if not same(entry[k], expected[k])]
        assert not bad, f"{what} entry {e} {bad[0]}: {entry[bad[0]]} != {expected[bad[0]]}"


def test_every_value_is_the_one_root_wrote(zoo):
    entries = dump(zoo / "zoo.root", "zoo")
    assert len(entries) == ENTRIES
    check_entries(entries, range(ENTRIES), ENTRIES // 2, "zoo")


def test_the_layout_is_the_one_root_chose(zoo):
    listing = rootweave("ls", zoo / "zoo.root")
    assert f"{ENTRIES} entries, 10 clusters in 4 cluster groups" in listing
    columns = {line.split()[0]: line for line in listing.splitlines() if line.startswith("  ")}
    assert "Real16" in columns["f16"]
    assert "Real32Trunc(14 bits)" in columns["ftrunc"]
    assert "Real32Quant(20 bits)" in columns["dquant"]
    assert "Double32_t" in columns["d32"] and "SplitReal32" in columns["d32"]
    assert "Switch" in columns["var"] and "Bit" in columns["bs"]


def test_entry_ranges_across_the_extension_and_cluster_groups(zoo):
    whole = dump(zoo / "zoo.root", "zoo")
    for start, stop in [(1490, 1510), (2495, 2505), (2999, 3001), (0, 1), (4990, ENTRIES)]:
        part = dump(zoo / "zoo.root", "zoo", "--entries", f"{start}:{stop}")
        assert part == whole[start:stop], (start, stop)
    fields = dump(zoo / "zoo.root", "zoo", "--fields", "late_v,av,ov", "--entries", "2400:2600")
    assert fields == [{k: entry[k] for k in ("late_v", "av", "ov")} for entry in whole[2400:2600]]


# uproot 5.7 reads the strings of a variant wrongly after the first cluster (entry 500 of
# `var` as "v2", not "v500"): the values ROOT wrote, which rootweave reads, decide.
UPROOT_WRONG = {"var"}
# uproot reads a std::unique_ptr as a list of zero or one item; rootweave, like
# std::optional, as a value or null.
UPROOT_AS_LIST = {"up"}


def test_uproot_reads_the_same_values(zoo):
    mine = dump(zoo / "zoo.root", "zoo")
    ntuple = uproot.open(zoo / "zoo.root")["zoo"]
    compared, skipped, uproot_wrong = [], [], []
    for field, theirs, error in uproot_fields(ntuple):
        if error:
            skipped.append(f"{field} ({error})")
            continue
        if field in UPROOT_AS_LIST:
            theirs = [t[0] if t else None for t in theirs]
        values = [entry[field] for entry in mine]
        bad = first_difference(values, theirs)
        if bad is not None and field in UPROOT_WRONG:
            expected = [expected_entry(e, ENTRIES // 2)[field] for e in range(ENTRIES)]
            assert all(same(a, b) for a, b in zip(values, expected)), field
            uproot_wrong.append(f"{field} (entry {bad}: uproot {theirs[bad]!r}, ROOT wrote {values[bad]!r})")
            continue
        assert bad is None, f"{field} entry {bad}: {values[bad]} != {theirs[bad]}"
        compared.append(field)
    print(f"zoo: {len(compared)} fields equal uproot's; uproot cannot read {skipped}; uproot wrong in {uproot_wrong}")
    assert {"st", "up", "pr", "tp", "rv", "vb", "va", "vs", "f16", "ftrunc", "dquant", "d32"} <= set(compared)


@pytest.mark.parametrize("name", ["merged.root", "merged-ff.root"])
def test_files_merged_by_hadd_hold_both_inputs(zoo, name):
    entries = dump(zoo / name, "zoo")
    assert len(entries) == 2 * ENTRIES
    assert entries[:ENTRIES] == entries[ENTRIES:]
    check_entries(entries[:ENTRIES], range(ENTRIES), ENTRIES // 2, name)
    check_entries(entries[ENTRIES:], range(ENTRIES), ENTRIES // 2, name)


def test_parallel_writer_output_holds_every_entry_once(zoo):
    entries = dump(zoo / "zoo-parallel.root", "zoo")
    ids = [entry["id"] for entry in entries]
    assert sorted(ids) == list(range(ENTRIES))
    check_entries(entries, ids, None, "zoo-parallel")


def test_imported_nanoaod_agrees_with_uproot_and_with_the_ttree(zoo):
    path = zoo / "nanoaod.root"
    mine = dump(path, "Events")
    ntuple = uproot.open(path)["Events"]
    tree = uproot.open(NANOAOD)["Events"]
    branches = set(tree.keys())
    assert len(mine) == ntuple.num_entries == tree.num_entries == 200
    fields = ntuple.keys(recursive=False)
    assert any(f.startswith("_collection") for f in fields), "collections of a shared counter"
    against_tree = 0
    for field in fields:
        values = [entry[field] for entry in mine]
        theirs = ak.to_list(ntuple.arrays([field])[field])
        bad = [i for i, (a, b) in enumerate(zip(values, theirs)) if not same(a, b)]
        assert not bad, f"{field} entry {bad[0]}: {values[bad[0]]} != {theirs[bad[0]]} (uproot's RNTuple)"
        if field in branches:
            original = ak.to_list(tree[field].array())
            bad = [i for i, (a, b) in enumerate(zip(values, original)) if not same(a, b)]
            assert not bad, f"{field} entry {bad[0]}: {values[bad[0]]} != {original[bad[0]]} (the TTree)"
            against_tree += 1
    # Every TTree branch but the counters (nMuon ...) is a field of the RNTuple.
    assert against_tree >= len(branches) - sum(1 for b in branches if b.startswith("n")), against_tree
