"""The ADL benchmark queries (iris-hep/adl-benchmarks-index) as RDataFrame graphs, all eight
booked in one graph, run by rootweave's RDataFrame or by ROOT's with the same strings.

    .venv/bin/python bench/adl.py FILE... [--tree Events] [--btag Jet_btag] [--threads N]
        [--engine rootweave|root] [--json OUT]

Writes, per histogram (`q1` ... `q5`, `q6a`, `q6b`, `q7`, `q8`), `{"bins": [...], "under": u,
"over": o, "entries": n}`, so that any NanoAOD-like file can be checked against RDataFrame.
The expressions are valid C++ for ROOT (RVec functions, `Map` with lambdas,
`ROOT::Math::PtEtaPhiMVector` in double precision) and rootweave's dialect alike: ROOT jits
them, rootweave parses them once and evaluates them in Rust.

Q1 MET_pt (100, 0-200). Q2 Jet_pt of all jets (100, 15-60). Q3 Jet_pt of jets with |eta| < 1
(100, 15-60). Q4 MET_pt of events with at least two jets of pt > 40 (100, 0-200). Q5 MET_pt of
events with an opposite-charge muon pair of mass 60-120 (100, 0-200). Q6 in events with >= 3
jets, the trijet of mass closest to 172.5: its pt (100, 15-40) and the largest b-tag of its
jets (100, 0-1). Q7 the scalar sum of pt of jets with pt > 30 not within dR < 0.4 of a light
lepton of pt > 10 (100, 15-200). Q8 in events with >= 3 light leptons and a same-flavour
opposite-charge pair: the pair of mass closest to 91.2, and the transverse mass of MET and
the highest-pt lepton not in it (100, 0-200).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

P4 = "ROOT::Math::PtEtaPhiMVector"

# The mass of two particles given as eight lists (pt, eta, phi, mass of each).
PAIR_MASS = (f"[](float pt1, float eta1, float phi1, float m1, float pt2, float eta2, float phi2, float m2) "
             f"{{ return ({P4}(pt1, eta1, phi1, m1) + {P4}(pt2, eta2, phi2, m2)).M(); }}")


def take(prefix: str, combos: str, k: int) -> str:
    """The four momentum components of the `k`-th particle of every combination."""
    return ", ".join(f"Take({prefix}_{c}, {combos}[{k}])" for c in ("pt", "eta", "phi", "mass"))


def lepton_near(kind: str) -> str:
    """True for a jet (eta, phi) within dR < 0.4 of a lepton of pt > 10 of `kind`."""
    return (f"Any(Map({kind}_eta, {kind}_phi, {kind}_pt, [&](float e, float p, float pt) "
            f"{{ return pt > 10 && ROOT::VecOps::DeltaR(eta, e, phi, p) < 0.4f; }}))")


# ROOT's jitter gives a column defined with a lambda the type `void`: for ROOT, the three
# expressions with lambdas call these functions, which compute the same thing the same way.
ROOT_HELPERS = f"""
#include "Math/Vector4D.h"
using ROOT::VecOps::RVec;
RVec<double> adl_pair_mass(const RVec<float>& pt1, const RVec<float>& eta1, const RVec<float>& phi1,
                           const RVec<float>& m1, const RVec<float>& pt2, const RVec<float>& eta2,
                           const RVec<float>& phi2, const RVec<float>& m2) {{
    RVec<double> out(pt1.size());
    for (std::size_t i = 0; i < pt1.size(); ++i)
        out[i] = ({P4}(pt1[i], eta1[i], phi1[i], m1[i]) + {P4}(pt2[i], eta2[i], phi2[i], m2[i])).M();
    return out;
}}
RVec<double> adl_masses(const RVec<{P4}>& t) {{
    RVec<double> out(t.size());
    for (std::size_t i = 0; i < t.size(); ++i) out[i] = t[i].M();
    return out;
}}
RVec<int> adl_near(const RVec<float>& jeta, const RVec<float>& jphi, const RVec<float>& leta,
                   const RVec<float>& lphi, const RVec<float>& lpt) {{
    RVec<int> out(jeta.size());
    for (std::size_t j = 0; j < jeta.size(); ++j) {{
        bool near = false;
        for (std::size_t l = 0; l < leta.size(); ++l)
            near = near || (lpt[l] > 10 && ROOT::VecOps::DeltaR(jeta[j], leta[l], jphi[j], lphi[l]) < 0.4f);
        out[j] = near;
    }}
    return out;
}}
"""


def book(df: Any, btag: str, lambdas: bool = True, only: str = "all") -> dict[str, Any]:
    """Books the eight queries on `df` (rootweave's RDataFrame, or ROOT's with `lambdas`
    False: `ROOT_HELPERS` in place of the lambdas), or only query `only`."""
    def want(q: str) -> bool:
        return only in ("all", q)

    def pair_mass(prefix: str, combos: str) -> str:
        if lambdas:
            return f"Map({take(prefix, combos, 0)}, {take(prefix, combos, 1)}, {PAIR_MASS})"
        return f"adl_pair_mass({take(prefix, combos, 0)}, {take(prefix, combos, 1)})"

    masses = f"Map(q6_t, [](const {P4}& t) {{ return t.M(); }})" if lambdas else "adl_masses(q6_t)"
    if lambdas:
        near = (f"Map(Jet_eta, Jet_phi, [&](float eta, float phi) "
                f"{{ return {lepton_near('Muon')} || {lepton_near('Electron')}; }})")
    else:
        near = ("(adl_near(Jet_eta, Jet_phi, Muon_eta, Muon_phi, Muon_pt) || "
                "adl_near(Jet_eta, Jet_phi, Electron_eta, Electron_phi, Electron_pt))")
    h: dict[str, Any] = {}
    if want("q1"):
        h["q1"] = df.Histo1D(("q1", "", 100, 0, 200), "MET_pt")
    if want("q2"):
        h["q2"] = df.Histo1D(("q2", "", 100, 15, 60), "Jet_pt")
    if want("q3"):
        h["q3"] = df.Define("q3_pt", "Jet_pt[abs(Jet_eta) < 1]").Histo1D(("q3", "", 100, 15, 60), "q3_pt")
    if want("q4"):
        h["q4"] = df.Filter("Sum(Jet_pt > 40) >= 2").Histo1D(("q4", "", 100, 0, 200), "MET_pt")
    if not any(want(q) for q in ("q5", "q6", "q7", "q8")):
        return h
    q5 = (df.Filter("nMuon >= 2")
          .Define("q5_c", "Combinations(Muon_pt, 2)")
          .Define("q5_m", pair_mass("Muon", "q5_c"))
          .Define("q5_os", "Take(Muon_charge, q5_c[0]) != Take(Muon_charge, q5_c[1])")
          .Filter("Sum(q5_os && q5_m > 60 && q5_m < 120) > 0"))
    if want("q5"):
        h["q5"] = q5.Histo1D(("q5", "", 100, 0, 200), "MET_pt")
    q6 = (df.Filter("nJet >= 3")
          .Define("q6_c", "Combinations(Jet_pt, 3)")
          .Define("q6_t", " + ".join(f"Construct<{P4}>({take('Jet', 'q6_c', k)})" for k in range(3)))
          .Define("q6_best", f"ArgMin(abs({masses} - 172.5))")
          .Define("q6_pt", "q6_t[q6_best].Pt()")
          .Define("q6_btag", f"std::max(std::max(Take({btag}, q6_c[0])[q6_best], Take({btag}, q6_c[1])[q6_best]), "
                             f"Take({btag}, q6_c[2])[q6_best])"))
    if want("q6"):
        h["q6a"] = q6.Histo1D(("q6a", "", 100, 15, 40), "q6_pt")
        h["q6b"] = q6.Histo1D(("q6b", "", 100, 0, 1), "q6_btag")
    q7 = df.Define("q7_ht", f"Sum(Jet_pt[Jet_pt > 30 && !{near}])")
    if want("q7"):
        h["q7"] = q7.Histo1D(("q7", "", 100, 15, 200), "q7_ht")
    q8 = (df.Define("l_pt", "Concatenate(Electron_pt, Muon_pt)")
          .Define("l_eta", "Concatenate(Electron_eta, Muon_eta)")
          .Define("l_phi", "Concatenate(Electron_phi, Muon_phi)")
          .Define("l_mass", "Concatenate(Electron_mass, Muon_mass)")
          .Define("l_charge", "Concatenate(Electron_charge, Muon_charge)")
          .Define("l_flavour", "Concatenate(Electron_charge * 0, Muon_charge * 0 + 1)")
          .Filter("l_pt.size() >= 3")
          .Define("q8_c", "Combinations(l_pt, 2)")
          .Define("q8_sfos", "Take(l_flavour, q8_c[0]) == Take(l_flavour, q8_c[1]) && "
                             "Take(l_charge, q8_c[0]) != Take(l_charge, q8_c[1])")
          .Filter("Sum(q8_sfos) > 0")
          .Define("q8_m", pair_mass("l", "q8_c"))
          .Define("q8_best", "ArgMin(Where(q8_sfos, abs(q8_m - 91.2), 1e300))")
          .Define("q8_i1", "q8_c[0][q8_best]")
          .Define("q8_i2", "q8_c[1][q8_best]")
          .Define("q8_lead", "ArgMax(Where(Enumerate(l_pt) != q8_i1 && Enumerate(l_pt) != q8_i2, l_pt, -1.f))")
          .Define("q8_mt", "sqrt(2.0 * l_pt[q8_lead] * MET_pt * (1.0 - cos(ROOT::VecOps::DeltaPhi(l_phi[q8_lead], MET_phi))))"))
    if want("q8"):
        h["q8"] = q8.Histo1D(("q8", "", 100, 0, 200), "q8_mt")
    return h


def rootweave_frame(files: list[str], tree: str, threads: int) -> Any:
    import rootweave

    return rootweave.RDataFrame(tree, files, threads=threads)


def root_frame(files: list[str], tree: str, threads: int) -> Any:
    import ROOT

    ROOT.gErrorIgnoreLevel = ROOT.kWarning
    if threads > 1:
        ROOT.EnableImplicitMT(threads)
    ROOT.gInterpreter.Declare(ROOT_HELPERS)
    return ROOT.RDataFrame(tree, files)


def summary(h: Any) -> dict[str, Any]:
    """A histogram's bins, flow bins and entries, from a `hist.Hist` or a ROOT `TH1`."""
    if hasattr(h, "GetNbinsX"):
        n = h.GetNbinsX()
        return {"bins": [h.GetBinContent(i) for i in range(1, n + 1)], "under": h.GetBinContent(0),
                "over": h.GetBinContent(n + 1), "entries": h.GetEntries()}
    import numpy as np

    values = np.asarray(h.values(flow=True), dtype=np.float64)
    entries = getattr(h, "_rootweave_statistics", {}).get("fEntries", float(values.sum()))
    return {"bins": values[1:-1].tolist(), "under": float(values[0]), "over": float(values[-1]),
            "entries": float(entries)}


def run(files: list[str], tree: str, btag: str, threads: int, engine: str,
        only: str = "all") -> tuple[dict[str, Any], float]:
    """Every query's summary (or only query `only`: `q1` ... `q8`), and the seconds from
    making the graph to its last result."""
    # Imports are not timed (ROOT's jitting is: it is part of running a graph from Python).
    if engine == "root":
        import ROOT  # noqa: F401
    else:
        import hist  # noqa: F401

        import rootweave  # noqa: F401
    start = time.perf_counter()
    df = (root_frame if engine == "root" else rootweave_frame)(files, tree, threads)
    booked = book(df, btag, lambdas=engine != "root", only=only)
    values = {name: r.GetValue() for name, r in booked.items()}
    seconds = time.perf_counter() - start
    return {name: summary(h) for name, h in values.items()}, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--tree", default="Events")
    parser.add_argument("--btag", default="Jet_btag")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--engine", choices=["rootweave", "root"], default="rootweave")
    parser.add_argument("--only", default="all", help="one query (q1 ... q8) instead of all eight")
    parser.add_argument("--json", help="where to write the histograms (and the seconds, as \"seconds\")")
    args = parser.parse_args()
    result, seconds = run(args.files, args.tree, args.btag, args.threads, args.engine, args.only)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({**result, "seconds": seconds}, out)
    what = "eight queries in one graph" if args.only == "all" else f"query {args.only}"
    print(f"{args.engine}: {what}, {args.threads} thread(s): {seconds:.3f} s")


if __name__ == "__main__":
    main()
