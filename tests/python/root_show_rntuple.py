"""Prints every entry of RNTuples as CERN ROOT's RNTupleReader shows them (JSON, one
entry after the other). Run as a child process:

    python root_show_rntuple.py NAME OUT_DIR FILE [FILE ...]

writes OUT_DIR/<file stem>.txt for each file.
"""

import sys
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

ROOT.gInterpreter.Declare(r'''
#include <ROOT/RNTupleReader.hxx>
#include <fstream>
void rw_show_all(const char *name, const char *path, const char *out) {
  auto reader = ROOT::RNTupleReader::Open(name, path);
  std::ofstream os(out);
  for (auto i : reader->GetEntryRange()) reader->Show(i, os);
}
''')

name, out_dir = sys.argv[1], Path(sys.argv[2])
for path in sys.argv[3:]:
    ROOT.rw_show_all(name, path, str(out_dir / (Path(path).stem + ".txt")))
