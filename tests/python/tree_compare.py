"""Compares every branch of a TTree that uproot 5.7 reads as numbers, booleans, strings
or (jagged, fixed-size or record) arrays of those with what `rootweave dump --json` reads,
and says what it skipped and why."""

import json
import subprocess

import awkward as ak
import uproot

from compare import same
from conftest import TARGET

SIMPLE = {"bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float32", "float64", "string"}
TREE_CLASSES = ("TTree", "TNtuple", "TNtupleD")


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
        # uproot reads an STL map as a list of (key, value) tuples.
        pairs = t.is_tuple and t.parameter("__array__") == "sorted_map"
        return (pairs or not t.is_tuple) and all(simple_type(c) for c in t.contents)
    return False


def trees_in(path):
    """Names (`dir/name`) of the trees in a file, as uproot lists them."""
    f = uproot.open(path)
    return sorted({k.split(";")[0] for k, c in f.classnames(recursive=True).items()
                   if c in TREE_CLASSES})


def dump_json(path, name, *args):
    """`rootweave dump --json` of a tree: (entries, names of the branches it skipped)."""
    result = subprocess.run([str(TARGET / "rootweave"), "dump", str(path), name, "--json", *args],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    skipped = {line.split("'")[1]: line for line in result.stderr.splitlines()
               if line.startswith("rootweave: skipping branch")}
    return [json.loads(line) for line in result.stdout.splitlines()], skipped


def compare_tree_with_uproot(path, name):
    """Compares every branch uproot reads as simple data; groups (branches standing for
    their sub-branches, which uproot reads as records of them) are asked for by name.
    Returns (compared branch names, skipped branches with the reason)."""
    tree = uproot.open(path)[name]
    mine, ours_skipped = dump_json(path, name)
    assert len(mine) == tree.num_entries or not mine
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
        assert bname not in ours_skipped, f"{path} {bname}: {ours_skipped.get(bname)}"
        if isinstance(branch.interpretation, uproot.interpretation.grouped.AsGrouped):
            values = [entry[bname] for entry in dump_json(path, name, "--fields", bname)[0]]
        else:
            values = [entry[bname] for entry in mine]
        theirs = ak.to_list(theirs)
        if branch.num_entries != tree.num_entries:
            # A branch filled on its own (POOL's reference trees): rootweave reads the
            # tree's entries.
            skipped.append(f"{bname}: {branch.num_entries} entries in a tree of {tree.num_entries}")
            theirs = theirs[: tree.num_entries]
        assert len(values) == len(theirs), (path, bname)
        bad = [i for i, (a, b) in enumerate(zip(values, theirs)) if not same(a, b)]
        assert not bad, f"{path} {bname} entry {bad[0]}: {values[bad[0]]} != {theirs[bad[0]]}"
        compared.append(bname)
    return compared, skipped
