"""Reads a TTree with CERN ROOT and writes what it sees as JSON. Run as a child process
(ROOT's start-up costs seconds, and a corrupt file may crash it):

    python root_read_ttree.py FILE TREE OUT.json

OUT.json holds the entry count, the tree's title, every branch's values as RDataFrame
reads them (fixed-size arrays as flat lists per entry, a leaf list's leaves as
`branch.leaf`, but for variable-size leaves of arrays and leaves counted elsewhere), the values the tree's own entry loop reads (objects as PyROOT hands them
over, C strings as the leaf's string), and the clusters ROOT iterates.
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore", message=".*alpha.*")
warnings.filterwarnings("ignore", category=UserWarning, module="ROOT")
import ROOT  # noqa: E402


def plain(v):
    """A value of RDataFrame's AsNumpy as JSON (arrays as flat lists, strings as str)."""
    if isinstance(v, str) or type(v).__name__.startswith(("string", "basic_string")):  # std::string
        return str(v)
    if hasattr(v, "__len__") and not isinstance(v, (str, bytes)):
        return [plain(x) for x in v]
    if isinstance(v, float):
        return v
    return v.item() if hasattr(v, "item") else v


def kind(branch):
    """How a branch is read: "numbers", "leaflist", "cstring", or an object's class name."""
    if branch.ClassName() == "TBranchElement":
        return branch.GetClassName()
    leaves = list(branch.GetListOfLeaves())
    if len(leaves) > 1:
        return "leaflist"
    return "cstring" if leaves[0].ClassName() == "TLeafC" else "numbers"


def leaf_values(leaf):
    """A leaf's values in the current entry: a number, or a list for arrays."""
    got = [leaf.GetValue(i) for i in range(leaf.GetLen())]
    listed = leaf.GetLeafCount() or leaf.GetLenStatic() > 1
    return got if listed else got[0]


def main(path, name, out):
    f = ROOT.TFile.Open(path)
    tree = f.Get(name)
    kinds = {b.GetName(): kind(b) for b in tree.GetListOfBranches()}
    f.Close()
    # PyROOT needs a dictionary for vectors of vectors, made before the file is opened (as
    # for ROOT's own files): one for all of them (each dictionary is a compiler run).
    nested = sorted({k for k in kinds.values() if k.startswith("vector<vector<")})
    if nested:
        ROOT.gInterpreter.GenerateDictionary(";".join(nested), "vector")
    f = ROOT.TFile.Open(path)
    tree = f.Get(name)
    tree.Print()  # must print no error or warning either
    branches = list(kinds)
    # The tree's own entry loop, entry by entry, every leaf's values (objects as PyROOT
    # hands them over). It runs first: an RDataFrame action on a vector of vectors made
    # before the tree's first GetEntry makes PyROOT crash there (with ROOT's files too).
    scanned = {b: [] for b in branches}
    for e in range(tree.GetEntries()):
        tree.GetEntry(e)
        for b in branches:
            branch = tree.GetBranch(b)
            if kinds[b] == "numbers":
                scanned[b].append(leaf_values(branch.GetLeaf(b)))
            elif kinds[b] == "leaflist":
                scanned[b].append({leaf.GetName(): leaf_values(leaf) for leaf in branch.GetListOfLeaves()})
            elif kinds[b] == "cstring":
                scanned[b].append(branch.GetLeaf(b).GetValueString())
            else:
                scanned[b].append(plain(getattr(tree, b)))
    df = ROOT.RDataFrame(name, path)
    # RDataFrame's columns: a leaf list's leaves are `branch.leaf`; PyROOT cannot hand over
    # Char_t columns as NumPy arrays (read as int) nor C strings (read in the loop below),
    # and vectors of vectors come through Take.
    columns = {}
    taken = {}
    for b in branches:
        if kinds[b].startswith("vector<vector<"):
            taken[b] = df.Take[kinds[b]](b)
        elif kinds[b] == "leaflist":
            leaves = list(tree.GetBranch(b).GetListOfLeaves())
            # ROOT 6.40's RDataFrame does not finish reading a leaf list whose leaves are
            # counted by another branch's leaf: read in the loop above only.
            if any(leaf.GetLeafCount() and leaf.GetLeafCount().GetBranch().GetName() != b
                   for leaf in leaves):
                continue
            for leaf in leaves:
                column = f"{b}.{leaf.GetName()}"
                # PyROOT cannot hand over `RVec<std::array<...>>` (a variable-size leaf of
                # arrays): read in the loop above only.
                if "std::array" not in str(df.GetColumnType(column)):
                    columns[column] = column
        elif kinds[b] == "cstring":
            continue
        elif str(df.GetColumnType(b)) == "Char_t":
            df = df.Define(f"{b}_as_int", f"(int){b}")
            columns[b] = f"{b}_as_int"
        else:
            columns[b] = b
    read = df.AsNumpy(list(columns.values()))
    values = {c: [plain(v) for v in read[col]] for c, col in columns.items()}
    values.update({b: plain(t.GetValue()) for b, t in taken.items()})
    for b in branches:
        if kinds[b] == "cstring":
            values[b] = scanned[b]
    clusters = []
    it = tree.GetClusterIterator(0)
    start = it.Next()
    while start < tree.GetEntries():
        clusters.append([start, it.GetNextEntry()])
        start = it.Next()
    result = {
        "entries": tree.GetEntries(),
        "title": tree.GetTitle(),
        "values": values,
        "scanned": scanned,
        "clusters": clusters,
        "baskets": {b: tree.GetBranch(b).GetWriteBasket() for b in branches},
    }
    with open(out, "w") as fh:
        json.dump(result, fh)


if __name__ == "__main__":
    main(*sys.argv[1:4])
