"""Reads trees with CERN ROOT as root_read_ttree.py does, several files in one process,
knowing the class of root_write_ttree.py's split branch (`RwHit`):

    python root_read_merged.py TREE OUT_DIR FILE [FILE ...]

writes OUT_DIR/<file stem>.json for each file.
"""

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


root_read_ttree.plain = plain_hit
tree, out_dir = sys.argv[1], Path(sys.argv[2])
for path in sys.argv[3:]:
    root_read_ttree.main(path, tree, str(out_dir / (Path(path).stem + ".json")))
