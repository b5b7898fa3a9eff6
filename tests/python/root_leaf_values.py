"""Reads trees and histograms with CERN ROOT and writes what it sees as JSON. Run as a
child process (ROOT's start-up costs seconds):

    python root_leaf_values.py FILE OUT.json TREE... [--hists NAME...] [--draw TREE:EXPR...]

For each tree: its entry count, and for every numeric leaf (named by its branch's path from
the top, `parent/child`, as uproot names branches) the values of all entries one after
another, read two ways, as neither is right for every leaf: `TTree::Draw` of the branch's full
name ("draw"; it reads a `Char_t` array as a string, a two-dimensional array by its first
index, and does not draw a count's own leaf alone right) and the tree's entry loop with
`TLeaf::GetLen` and `GetValue` ("loop"; wrong for counts and arrays sized by them inside an
object). A branch whose baskets are in a file that is not there is listed under
"unreadable". For each histogram of `--hists`: every cell's content and error
(`GetBinContent`, `GetBinError`), flow cells included, in ROOT's cell order; for a TArray
there, its values. For each `TREE:EXPR` of `--draw`: what `TTree::Draw` gives for the
expression (members behind object pointers, for one).
"""

import json
import math
import os
import re
import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

NUMERIC = {"Char_t", "UChar_t", "Short_t", "UShort_t", "Int_t", "UInt_t", "Long_t", "ULong_t",
           "Long64_t", "ULong64_t", "Float_t", "Double_t", "Bool_t", "Float16_t", "Double32_t",
           "char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "long",
           "unsigned long", "long long", "unsigned long long", "float", "double", "bool"}


def paths(branches, prefix, out):
    """Every branch below `branches` with its path from the top."""
    for b in branches:
        path = f"{prefix}/{b.GetName()}" if prefix else b.GetName()
        out.append((path, b))
        paths(b.GetListOfBranches(), path, out)
    return out


def plain(x):
    """A number as JSON holds it (NaN and infinities as strings)."""
    return x if math.isfinite(x) else str(x)


def missing_file(tree, branch):
    """True if the branch keeps baskets in another file (`fFileName`) that is not there."""
    name = branch.GetFileName()
    if not name or branch.GetWriteBasket() == 0:
        return False
    here = os.path.dirname(tree.GetCurrentFile().GetName())
    return not os.path.exists(name if os.path.isabs(name) else os.path.join(here, name))


def drawn(tree, expression, estimate):
    """The values `TTree::Draw` gives for `expression` (None if it cannot draw it), and
    the estimate (values kept) to draw with next."""
    n = tree.Draw(expression, "", "goff")
    if n > estimate:
        # Only `estimate` values were kept: again, keeping them all.
        estimate = n + 1
        tree.SetEstimate(estimate)
        n = tree.Draw(expression, "", "goff")
    if n < 0:
        return None, estimate
    v1 = tree.GetV1()
    return [plain(v1[i]) for i in range(n)], estimate


def read_tree(tree):
    """The numeric leaves' values of every entry, by branch path, read two ways."""
    estimate = 1_000_000
    tree.SetEstimate(estimate)
    leaves, draw, unreadable = [], {}, []
    for path, branch in paths(tree.GetListOfBranches(), "", []):
        if missing_file(tree, branch):
            unreadable.append(path)
            tree.SetBranchStatus(branch.GetName(), 0)
            continue
        found = list(branch.GetListOfLeaves())
        if branch.GetListOfBranches().GetEntries() > 0 or len(found) != 1:
            continue
        if found[0].GetTypeName() not in NUMERIC:
            continue
        leaves.append((path, found[0]))
        # The full name tells apart branches of one name; a fixed size is not an index.
        expression = re.sub(r"\[[^\]]*\]$", "", branch.GetFullName().Data())
        draw[path], estimate = drawn(tree, expression, estimate)
    loop = {path: [] for path, _ in leaves}
    for entry in range(tree.GetEntries()):
        tree.GetEntry(entry)
        for path, leaf in leaves:
            loop[path].extend(plain(leaf.GetValue(i)) for i in range(leaf.GetLen()))
    return {"entries": tree.GetEntries(), "draw": draw, "loop": loop, "unreadable": unreadable}


def read_object(h):
    """A histogram's every cell's content and error, flow cells included; a TArray's
    values."""
    if not isinstance(h, ROOT.TH1):
        return {"class": h.Class_Name(), "array": [plain(h.GetAt(i)) for i in range(h.GetSize())]}
    cells = h.GetNcells()
    return {"class": h.ClassName(), "content": [plain(h.GetBinContent(c)) for c in range(cells)],
            "error": [plain(h.GetBinError(c)) for c in range(cells)],
            "shape": [h.GetNbinsX() + 2, h.GetNbinsY() + 2, h.GetNbinsZ() + 2]}


def main():
    path, out, *rest = sys.argv[1:]
    lists, flag = {"trees": [], "--hists": [], "--draw": []}, "trees"
    for arg in rest:
        if arg in lists:
            flag = arg
        else:
            lists[flag].append(arg)
    ROOT.gErrorIgnoreLevel = ROOT.kFatal
    f = ROOT.TFile.Open(path)
    draws = {}
    for job in lists["--draw"]:
        tree, expression = job.split(":", 1)
        draws[job] = drawn(f.Get(tree), expression, 1_000_000)[0]
    result = {"trees": {t: read_tree(f.Get(t)) for t in lists["trees"]},
              "hists": {h: read_object(f.Get(h)) for h in lists["--hists"]},
              "drawn": draws,
              "keys": sorted({k.GetName() for k in f.GetListOfKeys()})}
    with open(out, "w") as o:
        json.dump(result, o)


main()
