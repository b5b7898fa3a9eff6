"""Reads trees with CERN ROOT as root_read_ttree.py does, several files in one process,
knowing the class of root_write_ttree.py's split branch (`RwHit`); an RNTuple of the name
is read by RDataFrame, every top-level field's values:

    python root_read_merged.py TREE OUT_DIR FILE [FILE ...]

writes OUT_DIR/<file stem>.json for each file ({"values": {column: values}} at least).
"""

import json

import sys
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

import root_read_ttree  # noqa: E402
from rw_hit import RW_HIT  # noqa: E402

ROOT.gInterpreter.Declare(RW_HIT)

plain = root_read_ttree.plain


def plain_hit(v):
    """An `RwHit` as a list of its members, anything else as root_read_ttree reads it."""
    if type(v).__name__ == "RwHit":
        return [v.e, v.id, v.q, v.r, v.h, v.hr, [x for x in v.w]]
    return plain(v)


def read_rntuple(path, name, out):
    df = ROOT.RDataFrame(name, path)
    columns = [str(c) for c in df.GetColumnNames() if "." not in str(c) and not str(c).startswith("R_rdf_")]
    arrays = df.AsNumpy(columns)
    values = {c: [plain(v) for v in arrays[c]] for c in columns}
    Path(out).write_text(json.dumps({"entries": int(df.Count().GetValue()), "values": values}))


root_read_ttree.plain = plain_hit
tree, out_dir = sys.argv[1], Path(sys.argv[2])
for path in sys.argv[3:]:
    out = str(out_dir / (Path(path).stem + ".json"))
    f = ROOT.TFile.Open(path)
    is_rntuple = f.GetKey(tree).GetClassName() == "ROOT::RNTuple"
    f.Close()
    if is_rntuple:
        read_rntuple(path, tree, out)
    else:
        root_read_ttree.main(path, tree, out)
