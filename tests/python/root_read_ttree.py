"""Reads a TTree with CERN ROOT and writes what it sees as JSON. Run as a child process
(ROOT's start-up costs seconds, and a corrupt file may crash it):

    python root_read_ttree.py FILE TREE OUT.json

OUT.json holds the entry count, the tree's title, every branch's values as RDataFrame
reads them (fixed-size arrays as flat lists per entry), TTreeReader's values of the same
branches (checked equal here), and the clusters ROOT iterates.
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore", message=".*alpha.*")
warnings.filterwarnings("ignore", category=UserWarning, module="ROOT")
import ROOT  # noqa: E402


def plain(v):
    """A value of RDataFrame's AsNumpy as JSON (arrays as flat lists)."""
    if hasattr(v, "__len__") and not isinstance(v, (str, bytes)):
        return [plain(x) for x in v]
    if isinstance(v, float):
        return v
    return v.item() if hasattr(v, "item") else v


def main(path, name, out):
    f = ROOT.TFile.Open(path)
    tree = f.Get(name)
    branches = [b.GetName() for b in tree.GetListOfBranches()]
    df = ROOT.RDataFrame(name, path)
    # PyROOT cannot hand over Char_t columns as NumPy arrays: read them as int.
    read_as = {}
    for b in branches:
        if str(df.GetColumnType(b)) == "Char_t":
            df = df.Define(f"{b}_as_int", f"(int){b}")
            read_as[b] = f"{b}_as_int"
    columns = df.AsNumpy([read_as.get(b, b) for b in branches])
    values = {b: [plain(v) for v in columns[read_as.get(b, b)]] for b in branches}
    # The tree's own entry loop: entry by entry, every leaf's values.
    scanned = {b: [] for b in branches}
    for e in range(tree.GetEntries()):
        tree.GetEntry(e)
        for b in branches:
            leaf = tree.GetBranch(b).GetLeaf(b)
            n = leaf.GetLen()
            got = [leaf.GetValue(i) for i in range(n)]
            listed = leaf.GetLeafCount() or leaf.GetLenStatic() > 1
            scanned[b].append(got if listed else got[0])
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
