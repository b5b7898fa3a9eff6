"""ROOT's side of test_update.py:

    python root_update.py make FILE          writes FILE as a ROOT user would: histogram `h`,
                                             directory `d` with tree `t` (x = 0.5, 1.5, ...)
                                             and string `note`
    python root_update.py check OUT FILE...  for each file: every key (`dir/name;cycle` ->
                                             class), then ROOT updates it itself (a TH1F
                                             `from_root` in the top directory, one in `d`
                                             if present), re-opens it and reads every key,
                                             histogram, tree and RNTuple; writes OUT (JSON,
                                             with the file's end before ROOT's update and
                                             where ROOT put its records)
"""

import array
import json
import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

ROOT.gROOT.SetBatch(True)
ROOT.gInterpreter.Declare(r"""
#include <ROOT/RNTupleReader.hxx>
#include <TFile.h>
#include <sstream>
std::string rw_show_entries(TFile *file, const char *name) {
  auto reader = ROOT::RNTupleReader::Open(*file->Get<ROOT::RNTuple>(name));
  std::ostringstream os;
  for (auto i : *reader) reader->Show(i, os);
  return os.str();
}
""")


def rntuple_values(f, name):
    """Every entry of RNTuple `name` ("dir/name;cycle") as RNTupleReader::Show prints it, as
    {field: values} (PyROOT's TFile::Get cannot hand over a class that is not a TObject)."""
    rest, columns = str(ROOT.rw_show_entries(f, name)).strip(), {}
    decoder = json.JSONDecoder()
    while rest:
        entry, end = decoder.raw_decode(rest)
        rest = rest[end:].lstrip()
        for field, value in entry.items():
            columns.setdefault(field, []).append(float(value))
    return columns


def make(path):
    f = ROOT.TFile(path, "RECREATE")
    h = ROOT.TH1D("h", "a histogram", 4, 0.0, 4.0)
    for x in (0.5, 1.5, 1.5, 3.5):
        h.Fill(x)
    h.Write()
    d = f.mkdir("d")
    d.cd()
    t = ROOT.TTree("t", "a tree")
    x = array.array("d", [0.0])
    t.Branch("x", x, "x/D")
    for i in range(5):
        x[0] = i + 0.5
        t.Fill()
    t.Write()
    ROOT.TObjString("kept").Write("note")
    f.Close()


def keys(directory, prefix=""):
    out = {}
    for key in directory.GetListOfKeys():
        name = f"{prefix}{key.GetName()};{key.GetCycle()}"
        out[name] = key.GetClassName()
        if key.GetClassName() in ("TDirectory", "TDirectoryFile"):
            out.update(keys(key.ReadObj(), f"{prefix}{key.GetName()}/"))
    return out


def contents(f, listed):
    values = {}
    for name, cls in listed.items():
        path = name.split(";")[0]
        if cls.startswith("TH1"):
            h = f.Get(name)
            values[name] = [h.GetBinContent(i) for i in range(h.GetNbinsX() + 2)]
        elif cls == "TObjString":
            values[name] = str(f.Get(name).GetString())
        elif cls == "TTree":
            where = f.GetDirectory(path.rpartition("/")[0]) if "/" in path else f
            df = ROOT.RDataFrame(where.Get(name.rpartition("/")[2]))
            columns = [str(c) for c in df.GetColumnNames()]
            arrays = df.AsNumpy(columns)
            values[name] = {c: [float(v) for v in arrays[c]] for c in sorted(columns)}
        elif cls == "ROOT::RNTuple":
            values[name] = rntuple_values(f, name)
    return values


def check(out, paths):
    result = {}
    for path in paths:
        f = ROOT.TFile.Open(path)
        before, end = keys(f), f.GetEND()
        f.Close()
        f = ROOT.TFile.Open(path, "UPDATE")
        h = ROOT.TH1F("from_root", "written by ROOT", 3, 0.0, 3.0)
        h.Fill(1.0, 2.0)
        h.Write()
        if f.GetDirectory("d"):
            f.cd("d")
            h.Write()
        f.Close()
        f = ROOT.TFile.Open(path)
        after = keys(f)
        seeks = [f.GetKey("from_root").GetSeekKey()]
        if f.GetDirectory("d"):
            seeks.append(f.GetDirectory("d").GetKey("from_root").GetSeekKey())
        result[path] = {"before": before, "after": after, "values": contents(f, after), "end": end,
                        "root_seeks": seeks}
        f.Close()
    with open(out, "w") as o:
        json.dump(result, o)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3:])
