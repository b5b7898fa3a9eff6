"""Compares every histogram of two files with CERN ROOT, bin by bin (content and error,
under- and overflow included), entries and statistics (`TH1::GetStats`). Run as a child
process:

    python root_compare_hists.py MINE THEIRS OUT.json

OUT.json holds the paths compared and, for each difference larger than 1e-12 relative,
what differs.
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

TOLERANCE = 1e-12


def close(a, b):
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b), 1e-300)


def histograms(directory, prefix=""):
    """(path, histogram) of every histogram under `directory`."""
    out = []
    for key in directory.GetListOfKeys():
        obj = key.ReadObj()
        path = prefix + key.GetName()
        if obj.InheritsFrom("TDirectory"):
            out += histograms(obj, path + "/")
        elif obj.InheritsFrom("TH1"):
            out.append((path, obj))
    return out


def compare(path, mine, theirs):
    """What differs between two histograms (empty if nothing)."""
    problems = []
    if mine.ClassName() != theirs.ClassName():
        return [f"class {mine.ClassName()} != {theirs.ClassName()}"]
    if mine.GetNcells() != theirs.GetNcells():
        return [f"cells {mine.GetNcells()} != {theirs.GetNcells()}"]
    for cell in range(mine.GetNcells()):
        for what in ("GetBinContent", "GetBinError"):
            a, b = getattr(mine, what)(cell), getattr(theirs, what)(cell)
            if not close(a, b):
                problems.append(f"{what}({cell}): {a} != {b}")
    if not close(mine.GetEntries(), theirs.GetEntries()):
        problems.append(f"entries {mine.GetEntries()} != {theirs.GetEntries()}")
    stats_a, stats_b = ROOT.std.vector("double")(13), ROOT.std.vector("double")(13)
    mine.GetStats(stats_a.data())
    theirs.GetStats(stats_b.data())
    for i, (a, b) in enumerate(zip(stats_a, stats_b)):
        if not close(a, b):
            problems.append(f"stats[{i}]: {a} != {b}")
    if mine.GetSumw2N() != theirs.GetSumw2N():
        problems.append(f"sumw2 cells {mine.GetSumw2N()} != {theirs.GetSumw2N()}")
    return problems[:10]


def main(mine_path, theirs_path, out):
    mine, theirs = ROOT.TFile.Open(mine_path), ROOT.TFile.Open(theirs_path)
    got = dict(histograms(mine))
    want = dict(histograms(theirs))
    result = {"paths": sorted(got), "missing": sorted(set(want) - set(got)),
              "extra": sorted(set(got) - set(want)), "differences": {}}
    for path in sorted(set(got) & set(want)):
        problems = compare(path, got[path], want[path])
        if problems:
            result["differences"][path] = problems
    with open(out, "w") as fh:
        json.dump(result, fh)


if __name__ == "__main__":
    main(*sys.argv[1:4])
