"""`FromCSV` and `FromPandas` against ROOT 6.40's: the same columns, C++ types and values
from the same CSV files and options (ROOT's cell rules and type inference), a graph's results
over them, a snapshot ROOT and uproot read back; files ROOT cannot read refused with their
line and byte offset."""

import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import uproot

import rootweave
from conftest import data_file

# (name, file contents, PyROOT's keyword options); `columnTypes` as letters.
CASES = [
    ("mixed", 'a,b,c,d,e\n1,2.5,true,x y,\n2,,false,"q,""r""",7\n 3 ,1e5,True, s ,8\r\n\n4,.5e3,1,,9\n', {}),
    ("options", "junk line\n# comment\n  1 2 x  # trailing\n\n  3 4 y\nfooter\n",
     {"readHeaders": False, "delimiter": " ", "leftTrim": True, "rightTrim": True, "skipFirstNLines": 1,
      "skipLastNLines": 1, "comment": "#"}),
    ("typed", "a,b,c,d\n1,truex,-3,\n2,1, +5x,3\n3, true,,4\n4,false,7,5\n",
     {"columnTypes": {"a": "D", "b": "O", "c": "L", "d": "T"}}),
    ("named", 'x;y\n1;x"y;z"w\n2;""\n', {"delimiter": ";", "columnNames": ["p", "q"]}),
    ("inferred", "a,b,c,d,e\n,,,,\nnan,NaN,,,\n5,2.,false,s,\n", {}),
    ("trailing", "a,b,\n1,2,\n3,4,5\n", {}),
    ("numbers", "i,d,s,e\n+5,-.5, 3 ,1.5d3\n-0,5.,x,2.5E-3\n9223372036854775807,1.7976931348623157e308,y,-1.25\n",
     {"comment": "!"}),
]

ROOT_SIDE = r"""
import json, math, sys, ROOT
ROOT.gErrorIgnoreLevel = ROOT.kError
def plain(v):
    v = v.item() if hasattr(v, "item") else v
    return "nan" if isinstance(v, float) and math.isnan(v) else (str(v) if not isinstance(v, (bool, int, float)) else v)
out = {}
for name, path, options in json.loads(sys.argv[1]):
    if "columnTypes" in options:
        types = ROOT.std.unordered_map["std::string", "char"]()
        for k, v in options.pop("columnTypes").items():
            types[k] = ord(v)
        options["colTypes"] = types
    df = ROOT.RDF.FromCSV(path, **options)
    names = [str(n) for n in df.GetColumnNames()]
    values = df.AsNumpy(names)
    out[name] = {"columns": {n: [str(df.GetColumnType(n)), [plain(v) for v in values[n]]] for n in names},
                 "source": df.Describe().AsString().splitlines()[0]}
df = ROOT.RDF.FromCSV(sys.argv[2])
h = df.Filter("a > 1").Define("x", "b * 2 + a").Histo1D(("h", "", 10, 0, 2000), "x")
out["graph"] = [[h.GetBinContent(i) for i in range(12)], df.Filter("d.size() > 2").Count().GetValue(), df.Sum("e").GetValue()]
snap = ROOT.RDataFrame("t", sys.argv[3])
out["snapshot"] = {str(n): [str(snap.GetColumnType(n)), [plain(v) for v in snap.AsNumpy([n])[n]]]
                   for n in ("a", "b", "d")}
print(json.dumps(out))
"""


def plain(v):
    """A value as the ROOT side writes it in JSON (NaN as "nan")."""
    v = v.item() if hasattr(v, "item") else v
    return "nan" if isinstance(v, float) and math.isnan(v) else v


def from_csv(path, options):
    """rootweave's `FromCSV` of `path` with PyROOT's keywords `options`."""
    options = dict(options)
    types = options.pop("columnTypes", None)
    return rootweave.RDF.FromCSV(str(path), colTypes=types, threads=2, **options)


@pytest.mark.filterwarnings("ignore:Column .* contains empty cell")
def test_csv_files_read_as_root_reads_them(tmp_path):
    cases = []
    for name, text, options in CASES:
        path = tmp_path / f"{name}.csv"
        path.write_bytes(text.encode())
        cases.append((name, str(path), options))
    mine = {}
    with pytest.warns(RuntimeWarning, match='Column "e" of type Long64_t contains empty cell'):
        from_csv(cases[0][1], {})
    for name, path, options in cases:
        df = from_csv(path, options)
        names = list(df.GetColumnNames())
        values = df.AsNumpy(names)
        mine[name] = {"columns": {n: [df.GetColumnType(n), [plain(v) for v in values[n]]] for n in names},
                      "source": df.Describe().AsString().splitlines()[0]}
    df = from_csv(cases[0][1], {})
    h = df.Filter("a > 1").Define("x", "b * 2 + a").Histo1D(("h", "", 10, 0, 2000), "x").GetValue()
    mine["graph"] = [h.values(flow=True).tolist()[:12], df.Filter("d.size() > 2").Count().GetValue(),
                     df.Sum("e").GetValue()]
    snapshot = tmp_path / "snapshot.root"
    df.Snapshot("t", str(snapshot), ["a", "b", "d"])
    # Read back as ROOT reads its own snapshot of these columns: leaves `/L`, `/D` and a
    # `string` branch.
    mine["snapshot"] = {n: [t, mine["mixed"]["columns"][n][1]] for n, t in
                        (("a", "Long64_t"), ("b", "Double_t"), ("d", "string"))}
    done = subprocess.run([sys.executable, "-c", ROOT_SIDE, json.dumps(cases), cases[0][1], snapshot],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    assert mine == theirs
    # What the cases hold, to know the comparison above compares something.
    assert theirs["mixed"]["columns"]["d"] == ["std::string", ["x y", 'q,"r"', " s ", "nan"]]
    assert theirs["typed"]["columns"]["b"] == ["bool", [True, False, True, False]]
    assert theirs["numbers"]["columns"]["e"] == ["double", [1.5, 0.0025, -1.25]]
    assert theirs["inferred"]["columns"]["e"] == ["double", ["nan", "nan", "nan"]]
    assert theirs["mixed"]["source"] == "Dataframe from datasource RCsv"
    assert sum(theirs["graph"][0]) == 3 and theirs["graph"][1:] == [4, 24]
    back = uproot.open(snapshot)["t"].arrays(library="np")
    assert back["d"].tolist() == ["x y", 'q,"r"', " s ", "nan"] and back["a"].tolist() == [1, 2, 3, 4]


def test_pandas_columns_as_root_s(tmp_path):
    frame = pd.DataFrame({"x": np.arange(5, dtype=np.int32), "y": np.linspace(0, 1, 5), "s": list("abcde")})
    df = rootweave.RDF.FromPandas(frame)
    assert [df.GetColumnType(n) for n in ("x", "y", "s")] == ["int", "double", "string"]  # as ROOT 6.40's
    assert df.Filter("x > 1").Sum("y").GetValue() == pytest.approx(2.25)
    assert df.Filter('s == "c" || s == "e"').Count().GetValue() == 2


BAD = rootweave.RootFileError


@pytest.mark.parametrize("text, options, error, message", [
    ("a,b\n1,2\n3\n", {}, BAD, "malformed CSV line 3 at byte offset 8: 1 fields where the file has 2 columns"),
    ("a,a\n1,2\n", {}, BAD, "column name 'a' given twice"),
    ("a,b\n\n", {}, BAD, "no data line"),
    ("a\n1.5\nx\n", {}, BAD, "CSV line 3 at byte offset 6: column 'a': no number in 'x'"),
    ("a\n99999999999999999999\n", {}, BAD, "out of Long64_t's range"),
    ("a,b\n1,2\n", {"columnNames": ["x"]}, BAD, "1 column names given for a file of 2 columns"),
    ("a\n1\n", {"columnTypes": {"z": "D"}}, BAD, "a type is given for column 'z'"),
    ("a\n1\n", {"columnTypes": {"a": "X"}}, ValueError, "CSV column type 'X' is not one of"),
    ("a\n1\n", {"delimiter": ";;"}, ValueError, "delimiter is one byte"),
])
def test_csv_files_root_cannot_read_are_refused(tmp_path, text, options, error, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(error, match=message) as e:
        from_csv(path, options)
    assert error is ValueError or str(e.value).startswith(str(path))


def test_csv_misuse_is_refused(tmp_path):
    with pytest.raises(TypeError, match="no option skipFirstLines"):
        rootweave.RDF.FromCSV(str(tmp_path / "x.csv"), skipFirstLines=1)
    with pytest.raises(OSError, match="missing.csv"):
        rootweave.RDF.FromCSV(str(tmp_path / "missing.csv"))


def test_the_rdf_namespace_has_root_s_other_factories():
    """`RDF.FromRNTuple` is `RDataFrame` over an RNTuple, `RDF.AsRNode` the node itself,
    `RDF.Distributed` ROOT 6.40's alias of `RDF.Experimental.Distributed`."""
    path = str(data_file("ntpl001_staff_rntuple_v1-0-0-0.root"))
    df = rootweave.RDF.FromRNTuple("Staff", path, threads=2)
    want = rootweave.RDataFrame("Staff", path, threads=1)
    assert df.Describe().AsString().startswith("Dataframe from datasource RNTupleDS")
    assert df.Sum("Age").GetValue() == want.Sum("Age").GetValue() > 0
    assert rootweave.RDF.FromRNTuple("Staff", [path, path]).Count().GetValue() == 2 * want.Count().GetValue()
    assert rootweave.RDF.AsRNode(df) is df
    assert rootweave.RDF.Distributed.Dask.RDataFrame is rootweave.RDataFrame
