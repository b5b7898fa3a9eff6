"""CERN ROOT's side of the object tests, run as a child process:

    python root_objects.py write OUT.root     writes histograms of every kind and other objects
    python root_objects.py dump OUT.json FILE...   ROOT's view of every histogram and graph
    python root_objects.py summary OUT.json FILE   every key read by ROOT, with what it holds
    python root_objects.py keys OUT.json FILE PATH...   keys ROOT reads as JSON (TBufferJSON),
                                                  found by name in each directory (names
                                                  may hold ':'); TEfficiency as its two
                                                  histograms' contents

`dump` writes, for every histogram (any directory) of every FILE, its class, every cell's
`GetBinContent` and `GetBinError` (flow cells included, global bin order), each axis's edges
(`GetBinLowEdge` of every bin, then `GetBinUpEdge` of the last) and labels (`GetBinLabel`),
`GetEntries`, `GetEffectiveEntries`, `GetMean` and `GetStdDev` along every axis, and the same
after `ResetStats` (statistics ROOT computes from the bins); for graphs their points. Floats go as `float.hex` strings, so that the comparison is exact.
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402


def write(out):
    """Histograms of every dimension, bin type and axis kind, weighted and unweighted,
    profiles with each error option, and other common objects."""
    rng = ROOT.TRandom3(12345)
    f = ROOT.TFile(out, "RECREATE")
    edges = [-3.0, -1.5, -0.25, 0.0, 0.1, 0.7, 2.0, 5.0]
    import array

    e = array.array("d", edges)
    hists = [
        ROOT.TH1F("h1f", "regular float;x;entries", 20, -3, 3),
        ROOT.TH1D("h1d_var", "variable double", len(edges) - 1, e),
        ROOT.TH1I("h1i", "integer", 7, 0, 7),
        ROOT.TH1S("h1s", "short", 5, -2, 2),
        ROOT.TH1C("h1c", "char", 4, -1, 1),
        ROOT.TH1L("h1l", "long", 6, -3, 3),
        ROOT.TH2F("h2f", "2-D float", 6, -3, 3, 4, -2, 2),
        ROOT.TH2D("h2d_var", "2-D variable", len(edges) - 1, e, 3, 0, 3),
        ROOT.TH3D("h3d", "3-D", 3, -2, 2, 4, -2, 2, 2, 0, 1),
    ]
    weighted = ROOT.TH1D("h1d_weighted", "weighted", 12, -3, 3)
    weighted.Sumw2()
    labelled = ROOT.TH1D("labels", "labelled bins", 4, 0, 4)
    for i, name in enumerate(["muons", "electrons", "", "taus"]):
        if name:
            labelled.GetXaxis().SetBinLabel(i + 1, name)
    profiles = [ROOT.TProfile(f"prof_{opt or 'mean'}", f"profile {opt}", 10, -3, 3, "" if opt == "" else opt)
                for opt in ["", "s", "i", "g"]]
    weighted_profile = ROOT.TProfile("prof_weighted", "weighted profile", 8, -2, 2)
    weighted_profile.Sumw2()
    p2 = ROOT.TProfile2D("prof2d", "2-D profile", 4, -2, 2, 3, -2, 2)
    p3 = ROOT.TProfile3D("prof3d", "3-D profile", 2, -2, 2, 2, -2, 2, 2, -2, 2)
    for _ in range(3000):
        x, y, z = rng.Gaus(0, 1.2), rng.Gaus(0, 1), rng.Uniform(0, 1)
        w = rng.Uniform(0.2, 2.0)
        for h in hists[:6]:
            h.Fill(x * (2 if h.GetName() == "h1i" else 1))
        hists[6].Fill(x, y)
        hists[7].Fill(x, z * 3, w)
        hists[8].Fill(x, y, z)
        weighted.Fill(x, w)
        labelled.Fill(int(abs(x) * 2) % 4 + 0.5, w)
        for p in profiles:
            p.Fill(x, y * 3 + x, w if p.GetName() == "prof_g" else 1.0)
        weighted_profile.Fill(x, y + 2 * x, w)
        p2.Fill(x, y, z + x)
        p3.Fill(x, y, z, x * y)
    for h in hists + [weighted, labelled] + profiles + [weighted_profile, p2, p3]:
        h.Write()
    d = f.mkdir("dir")
    d.cd()
    inner = ROOT.TH1D("inner", "in a directory", 3, 0, 3)
    inner.Fill(1.5, 2.0)
    inner.Write()
    f.cd()
    g = ROOT.TGraphAsymmErrors(4)
    for i in range(4):
        g.SetPoint(i, i * 0.5, i * i + 1.0)
        g.SetPointError(i, 0.1, 0.2, 0.3 * i, 0.4)
    g.SetName("graph")
    g.Write()
    ge = ROOT.TGraphErrors(3)
    for i in range(3):
        ge.SetPoint(i, i, 2.0 * i)
        ge.SetPointError(i, 0.5, 0.25 * i)
    ge.Write("graph_errors")
    ROOT.TObjString("hello, objects").Write("note")
    ROOT.gROOT.ProcessLine('TParameter<double>("lumi", 41.5).Write(); TParameter<int>("runs", 7).Write();')
    v = ROOT.TVectorD(3)
    for i in range(3):
        v[i] = 1.5 * i - 1
    v.Write("vector")
    m = ROOT.TMatrixD(2, 3)
    for i in range(2):
        for j in range(3):
            m[i][j] = i * 10 + j
    m.Write("matrix")
    members = [ROOT.TObjString("first"), ROOT.TNamed("second", "a named object")]
    lst = ROOT.TList()
    for m in members:
        lst.Add(m)
    lst.Write("list", ROOT.TObject.kSingleKey)
    passed = ROOT.TH1D("passed", "", 5, 0, 5)
    total = ROOT.TH1D("total", "", 5, 0, 5)
    for i in range(5):
        total.SetBinContent(i + 1, 10 + i)
        passed.SetBinContent(i + 1, i * 2)
    eff = ROOT.TEfficiency(passed, total)
    eff.SetName("efficiency")
    eff.Write()
    f.WriteObjectAny(ROOT.std.string("a std::string"), "string", "text")
    f.Close()


def hexes(values):
    return [float(v).hex() for v in values]


def statistics(h, dims):
    """`GetEntries`, `GetEffectiveEntries`, and `GetMean` and `GetStdDev` along each axis (a
    profile's values after its axes)."""
    value_axes = dims + (1 if h.InheritsFrom("TProfile") or h.InheritsFrom("TProfile2D")
                         or h.InheritsFrom("TProfile3D") else 0)
    value_axes = min(value_axes, 3)  # GetMean and GetStdDev take axes 1 to 3
    return {
        "entries": float(h.GetEntries()).hex(),
        "effective_entries": float(h.GetEffectiveEntries()).hex(),
        "mean": hexes(h.GetMean(a) for a in range(1, value_axes + 1)),
        "stddev": hexes(h.GetStdDev(a) for a in range(1, value_axes + 1)),
    }


def histogram(h):
    dims = h.GetDimension()
    axes = [h.GetXaxis(), h.GetYaxis(), h.GetZaxis()][:dims]
    cells = range(h.GetNcells())
    out = {
        "class": h.ClassName(),
        "contents": hexes(h.GetBinContent(c) for c in cells),
        "errors": hexes(h.GetBinError(c) for c in cells),
        "axes": [],
    }
    out.update(statistics(h, dims))
    reset = h.Clone()
    reset.ResetStats()
    out["reset"] = statistics(reset, dims)
    reset.Delete()
    for a in axes:
        n = a.GetNbins()
        edges = [a.GetBinLowEdge(b) for b in range(1, n + 1)] + [a.GetBinUpEdge(n)]
        labels = [a.GetBinLabel(b) for b in range(1, n + 1)] if a.GetLabels() else None
        out["axes"].append({"edges": hexes(edges), "labels": labels})
    return out


def walk(directory, prefix, out):
    for key in directory.GetListOfKeys():
        name = f"{prefix}{key.GetName()};{key.GetCycle()}"
        cls = ROOT.TClass.GetClass(key.GetClassName())
        if not cls:
            continue
        if cls.InheritsFrom("TDirectory"):
            walk(key.ReadObj(), name + "/", out)
        elif cls.InheritsFrom("TH1") and not cls.InheritsFrom("TH2Poly"):
            out[name] = histogram(key.ReadObj())
        elif cls.InheritsFrom("TGraph"):
            g = key.ReadObj()
            n = g.GetN()
            out[name] = {"class": g.ClassName(), "x": hexes(g.GetX()[i] for i in range(n)),
                         "y": hexes(g.GetY()[i] for i in range(n))}


def digest(obj):
    """What an object holds, as ROOT reads it: a histogram's contents, a graph's points, a
    string, a parameter's value, a vector's or matrix's elements, a list's entries, an
    efficiency's histograms; the name for anything else."""
    if obj.InheritsFrom("TH1"):
        return hexes(obj.GetBinContent(c) for c in range(obj.GetNcells())) + [obj.GetTitle(), obj.GetLineColor()]
    if obj.InheritsFrom("TGraph"):
        return hexes([obj.GetX()[i] for i in range(obj.GetN())] + [obj.GetY()[i] for i in range(obj.GetN())])
    if obj.InheritsFrom("TObjString"):
        return str(obj.GetString())
    if obj.ClassName().startswith("TParameter"):
        return float(obj.GetVal()).hex()
    if obj.ClassName().startswith("TVectorT"):
        return hexes(obj[i] for i in range(obj.GetNrows()))
    if obj.ClassName().startswith("TMatrixT"):
        return hexes(obj[i][j] for i in range(obj.GetNrows()) for j in range(obj.GetNcols()))
    if obj.InheritsFrom("TCollection"):
        return [f"{o.ClassName()}:{o.GetName()}" for o in obj]
    if obj.InheritsFrom("TEfficiency"):
        return [digest(obj.GetPassedHistogram()), digest(obj.GetTotalHistogram())]
    return obj.GetName()


def summary(out, path):
    f = ROOT.TFile.Open(path)
    found = {}

    def visit(directory, prefix):
        for key in directory.GetListOfKeys():
            name = f"{prefix}{key.GetName()}"
            if key.GetClassName() == "string":
                continue  # not a TObject: ReadObj would crash
            obj = key.ReadObj()
            if obj.InheritsFrom("TDirectory"):
                visit(obj, name + "/")
            else:
                found[name] = {"class": obj.ClassName(), "digest": digest(obj)}

    visit(f, "")
    with open(out, "w") as fh:
        json.dump(found, fh)


def keys_as_json(out, path, names):
    f = ROOT.TFile.Open(path)
    found = {}
    for name in names:
        directory, parts = f, name.split("/")
        for part in parts[:-1]:
            directory = directory.GetListOfKeys().FindObject(part).ReadObj()
        key = directory.GetListOfKeys().FindObject(parts[-1])
        cls = ROOT.TClass.GetClass(key.GetClassName())
        if key.GetClassName() == "TEfficiency":
            eff = key.ReadObj()
            found[name] = [digest(eff.GetPassedHistogram()), digest(eff.GetTotalHistogram())]
        else:
            found[name] = json.loads(str(ROOT.TBufferJSON.ConvertToJSON(key.ReadObjectAny(cls), cls)))
    with open(out, "w") as fh:
        json.dump(found, fh)


def dump(out, files):
    result = {}
    for path in files:
        f = ROOT.TFile.Open(path)
        found = {}
        walk(f, "", found)
        result[path] = found
        f.Close()
    with open(out, "w") as fh:
        json.dump(result, fh)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "summary":
        summary(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "keys":
        keys_as_json(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        dump(sys.argv[2], sys.argv[3:])
