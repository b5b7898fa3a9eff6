"""ROOT's side of the conversion tests. Run as a child process:

    python root_convert.py import TREE_FILE OUT_FILE       # RNTupleImporter: Events -> RNTuple
    python root_convert.py digest NAME FILE [FILE ...]      # per column: entries, sum, items

`digest` prints one JSON object per file: for every RDataFrame column (collections of
records left out, their members being shown through projected fields), the number of
entries, the sum of the values (of the items for arrays, of the lengths for strings) and
the number of items."""

import json
import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

if sys.argv[1] == "import":
    importer = ROOT.Experimental.RNTupleImporter.Create(sys.argv[2], "Events", sys.argv[3])
    importer.SetIsQuiet(True)
    importer.Import()
    sys.exit(0)

name = sys.argv[2]
for path in sys.argv[3:]:
    df = ROOT.RDataFrame(name, path)
    digest = {"entries": int(df.Count().GetValue())}
    sums = {}
    for column in sorted(str(c) for c in df.GetColumnNames()):
        if "_collection" in column or "." in column:
            continue
        kind = str(df.GetColumnType(column))
        if "string" in kind:
            values = f"double({column}.size())"
            items = "1"
        elif "RVec" in kind or "vector" in kind or "array" in kind:
            values = f"double(ROOT::VecOps::Sum(ROOT::VecOps::RVec<double>({column}.begin(), {column}.end())))"
            items = f"double({column}.size())"
        else:
            values = f"double({column})"
            items = "1"
        safe = "rw_" + column
        d = df.Define(safe + "_v", values).Define(safe + "_n", items)
        sums[column] = (d.Sum(safe + "_v"), d.Sum(safe + "_n"), kind)
    for column, (v, n, kind) in sums.items():
        digest[column] = [round(v.GetValue(), 6), int(n.GetValue()), kind]
    print(json.dumps({path: digest}))
