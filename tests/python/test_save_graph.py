"""`RDF.SaveGraph` against ROOT 6.40's: the same graphs built with the same calls on both sides
(PyROOT and rootweave), their DOT texts equal character for character: the data source's label
(TTree, RNTuple, NumPy arrays, an empty source), filters named and not, ranges, definitions
drawn where a filter or a result first sees them (a `Redefine` in its name's place, aliases
and variations not drawn), every kind of result with ROOT's labels, a `VariationsFor`'s one
"Varied" box, results already run greyed, filters and ranges with nothing below them, the
branch of a node and of a result."""

import json
import subprocess
import sys

import numpy as np
import pytest

import rootweave
from conftest import CORPUS

HZZ = CORPUS / "uproot-HZZ.root"
pytestmark = pytest.mark.skipif(not HZZ.exists(), reason=f"conformance corpus not found at {CORPUS}")

# Run by both sides with R = ROOT or R = rootweave (whose calls are PyROOT's). Results that
# PyROOT books without jitting (Count, Report, a typed Take) come first, as ROOT books jitted
# results after them.
GRAPHS = r"""
def graphs(R, hzz, ntuple):
    out = {}
    df = R.RDataFrame("events", hzz)
    met = df.Define("met", "sqrt(MET_px * MET_px + MET_py * MET_py)").Define("n", "NMuon")
    cut = met.Redefine("n", "n + 1").Alias("m", "met").Filter("m > 10", "met cut").Define("w", "n * 0.5")
    below = cut.Range(0, 2000).Filter("w > 0.5").Define("pt", "Muon_Px")
    count = cut.Count()
    report = cut.Report()
    take = below.Take["double"]("w")
    results = [cut.Histo1D(("h", "title", 10, 0.0, 100.0), "m", "w"), cut.Histo1D("met", "w"),
               below.Histo2D(("h2", "", 4, 0.0, 4.0, 5, 0.0, 50.0), "n", "met"),
               below.Profile1D(("p", "", 4, 0.0, 4.0), "n", "met"),
               below.Profile2D(("p2", "", 2, 0.0, 4.0, 2, 0.0, 9.0), "n", "w", "met"),
               below.Histo3D(("h3", "", 2, 0.0, 4.0, 2, 0.0, 9.0, 2, 0.0, 1.0), "n", "w", "met"),
               below.Sum("pt"), below.Mean("met"), met.Min("met"), met.Max("n"), below.StdDev("w"),
               below.Stats("met"), below.Graph("met", "w")]
    out["whole"] = R.RDF.SaveGraph(df)
    out["node"] = R.RDF.SaveGraph(below)
    out["defines only"] = R.RDF.SaveGraph(met)
    out["result"] = R.RDF.SaveGraph(results[2])
    count.GetValue()
    later = below.Filter("Sum(pt) > 0").Count()
    out["after a run"] = R.RDF.SaveGraph(df)
    varied = df.Define("x", "MET_px * 1.0").Vary("x", "ROOT::RVecD{x * 0.9, x * 1.1}", ["down", "up"])
    h = varied.Histo1D(("hx", "", 10, 0.0, 50.0), "x")
    kept = R.RDF.Experimental.VariationsFor(h)
    out["defines and a variation"] = R.RDF.SaveGraph(varied)
    out["varied result"] = R.RDF.SaveGraph(h)
    lonely = (met.Filter("met > 1", "lonely"), met.Filter("n > 1"), met.Range(3))
    out["varied"] = R.RDF.SaveGraph(df)
    empty = R.RDataFrame(10)
    r = empty.Range(4).Define("q", "1").Range(2)
    counted = r.Count()
    out["empty source"] = R.RDF.SaveGraph(empty)
    out["rntuple"] = R.RDF.SaveGraph(R.RDataFrame("events", ntuple).Define("z", "x").Count())
    import numpy
    out["numpy"] = R.RDF.SaveGraph(R.RDF.FromNumpy({"a": numpy.arange(3.0)}).Filter("a > 1", "big").Count())
    return out
"""

ROOT_SIDE = GRAPHS + r"""
import json, sys, ROOT
ROOT.gErrorIgnoreLevel = ROOT.kError
hzz, ntuple, out = sys.argv[1:]
dot = ROOT.RDF.SaveGraph(ROOT.RDataFrame("events", hzz).Count())
ROOT.RDF.SaveGraph(ROOT.RDataFrame("events", hzz).Count(), out + ".dot")
found = graphs(ROOT, hzz, ntuple)
found["file"] = open(out + ".dot").read()
with open(out, "w") as f:
    json.dump({k: str(v) for k, v in found.items()}, f)
"""


def test_graphs_are_drawn_as_root_draws_them(workdir):
    ntuple = workdir / "graph-ntuple.root"
    rootweave.RDataFrame(5).Define("x", "rdfentry_ * 2.0").Snapshot("events", str(ntuple), ["x"],
                                                                   format="rntuple")
    out = workdir / "graphs.json"
    done = subprocess.run([sys.executable, "-c", ROOT_SIDE, str(HZZ), str(ntuple), str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(out.read_text())
    scope = {}
    exec(GRAPHS, scope)
    mine = scope["graphs"](rootweave, str(HZZ), str(ntuple))
    rootweave.RDF.SaveGraph(rootweave.RDataFrame("events", str(HZZ)).Count(), workdir / "mine.dot")
    mine["file"] = (workdir / "mine.dot").read_text()
    for k in theirs:
        assert mine[k] == theirs[k], f"{k}:\n{mine[k]}\n---- ROOT:\n{theirs[k]}"
    # What the drawings hold, beyond being equal: the booked results, the grey run ones.
    assert theirs["whole"].count('shape="box"') == 16 and "TProfile2D\\np2" in theirs["whole"]
    assert "Count\\n(already run)" in theirs["after a run"] and "Varied TH1D\\nhx_x_down" in theirs["varied"]
    assert theirs["defines only"].count("label=") == 1 and '"lonely"' in theirs["varied"]


def test_save_graph_takes_nodes_and_results_only():
    with pytest.raises(TypeError, match="SaveGraph: an RDataFrame node or a result"):
        rootweave.RDF.SaveGraph(np.arange(3))
