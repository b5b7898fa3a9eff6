"""Snapshots columns with ROOT 6.40's RDataFrame, one column a file, into a TTree and into an
RNTuple, and reads other writers' snapshots: prints, as JSON, the type RDataFrame gives each
column of ROOT's own snapshots (null where ROOT refuses to write it) and the type and values
of each column of the files given.

    python root_snapshot_types.py IN TREE COLUMNS OUT_DIR [FILE:NAME ...]

COLUMNS is a comma-separated list; FILE:NAME a file and the tree or RNTuple in it to read
(every column of COLUMNS it holds)."""

import json
import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402


def plain(value):
    """A value as JSON: numbers, strings, or lists of them in the collection's order."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "c_str"):
        return str(value)
    return [plain(v) for v in value]


def main():
    source, tree, columns, out_dir, *files = sys.argv[1:]
    columns = columns.split(",")
    ROOT.gErrorIgnoreLevel = ROOT.kFatal
    frame = ROOT.RDataFrame(tree, source)
    written = {"TTree": {}, "RNTuple": {}}
    for c in columns:
        for form, name in (("TTree", "t"), ("RNTuple", "n")):
            path = f"{out_dir}/root_{form}_{c}.root"
            options = ROOT.RDF.RSnapshotOptions()
            if form == "RNTuple":
                options.fOutputFormat = ROOT.RDF.ESnapshotOutputFormat.kRNTuple
            try:
                frame.Snapshot(name, path, [c], options)
                written[form][c] = str(ROOT.RDataFrame(name, path).GetColumnType(c))
            except Exception:  # noqa: BLE001 - ROOT refusing the column is the answer
                written[form][c] = None
    read = []
    for spec in files:
        path, name = spec.rsplit(":", 1)
        df = ROOT.RDataFrame(name, path)
        present = [c for c in columns if df.HasColumn(c)]
        types = {c: str(df.GetColumnType(c)) for c in present}
        values = {c: [plain(v) for v in df.Take[types[c]](c).GetValue()] for c in present}
        read.append({"types": types, "values": values})
    print(json.dumps({"written": written, "read": read}))


main()
