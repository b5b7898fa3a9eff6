"""Expressions over ROOT's physics vectors (TLorentzVector, TVector3, TVector2) against ROOT
6.40's RDataFrame on a real file of them (uproot-HZZ-objects.root: std::vector<TLorentzVector>
of muons, jets, electrons, photons, a TVector2 MET, TVector3s of MC truth): every value's bits,
every column's type, a snapshot of a defined TLorentzVector read by ROOT and uproot. The file is
the conformance corpus's (beside the project); without it the tests skip."""

import json
import subprocess
import sys

import numpy as np
import pytest
import uproot

import rootweave
from conftest import CORPUS

HZZ = CORPUS / "uproot-HZZ-objects.root"
pytestmark = pytest.mark.skipif(not HZZ.exists(), reason=f"conformance corpus not found at {CORPUS}")

# Per event, guarded as an analyst guards them: a muon, a pair of muons, MET, MC truth.
ONE = "muonp4.size() >= 1"
TWO = "muonp4.size() >= 2"
DEFINES = {
    **{f"mu_{m}": f"{ONE} ? muonp4[0].{m}() : -1.0" for m in
       ["Pt", "Eta", "Phi", "M", "E", "P", "Px", "Pz", "Rapidity", "Mt", "Et", "Theta", "CosTheta", "Beta",
        "Gamma", "M2", "Mt2", "Et2", "Perp2", "Plus", "Minus", "PseudoRapidity", "Mag", "Mag2", "T", "Perp"]},
    "pair_m": f"{TWO} ? (muonp4[0] + muonp4[1]).M() : -1.0",
    "pair_pt": f"{TWO} ? (muonp4[0] + muonp4[1]).Pt() : -1.0",
    "pair_eta": f"{TWO} ? (muonp4[0] + muonp4[1]).Eta() : -1.0",
    "diff_pt": f"{TWO} ? (muonp4[0] - muonp4[1]).Pt() : -1.0",
    "dot": f"{TWO} ? muonp4[0] * muonp4[1] : -1.0",
    "dot2": f"{TWO} ? muonp4[0].Dot(muonp4[1]) : -1.0",
    "dr": f"{TWO} ? muonp4[0].DeltaR(muonp4[1]) : -1.0",
    "dphi": f"{TWO} ? muonp4[0].DeltaPhi(muonp4[1]) : -9.0",
    "drap": f"{TWO} ? muonp4[0].DrRapidityPhi(muonp4[1]) : -1.0",
    "scaled": f"{ONE} ? (0.5 * muonp4[0]).E() + (muonp4[0] * 2.0).Px() : -1.0",
    "neg": f"{ONE} ? (-muonp4[0]).Pz() : -1.0",
    "vmag": f"{ONE} ? muonp4[0].Vect().Mag() : -1.0",
    "vangle": f"{TWO} ? muonp4[0].Vect().Angle(muonp4[1].Vect()) : -1.0",
    "vcross": f"{TWO} ? muonp4[0].Vect().Cross(muonp4[1].Vect()).Z() : -1.0",
    "vunit": f"{ONE} ? muonp4[0].Vect().Unit().X() : -1.0",
    "vxy": f"{ONE} ? muonp4[0].Vect().XYvector().Phi() : -1.0",
    "same": f"{ONE} && muonp4[0] == muonp4[muonp4.size() - 1]",
    "jet": "jetp4.size() >= 1 ? jetp4[0].Pt() + jetp4[jetp4.size() - 1].M() : 0.0",
    "met_mod": "MET.Mod()",
    "met_mod2": "MET.Mod2()",
    "met_phi": "MET.Phi()",
    "met_x": "(MET / 2.0).X() + (MET * 3).Y()",
    "met_dot": "MET * (MET - MET / 4.0)",
    "met_cross": "(MET + MET) ^ (MET / 3.0)",
    "met_dphi": "MET.DeltaPhi(-1.0 * MET)",
    "lep_pt": "MC_lepton.Pt()",
    "lep_eta": "MC_lepton.Eta()",
    "lep_phi": "MC_lepton.Phi()",
    "lep_theta": "MC_lepton.Theta()",
    "lep_mag": "MC_lepton.Mag()",
    "lep_nu": "(MC_lepton + MC_neutrino).Perp()",
    "lep_dot": "MC_lepton.Dot(MC_neutrino)",
    "lep_dr": "MC_lepton.DeltaR(MC_neutrino)",
    "made_mt": "TLorentzVector(MET.X(), MET.Y(), 0.0, MET.Mod()).Mt()",
    "made_eta": "TVector3(MET.X(), MET.Y(), 1.0).Eta()",
    "made_phi": "TVector2(MET.Y(), MET.X()).Phi()",
    "boost_vector": f"{ONE} ? muonp4[0].BoostVector().Mag() + (muonp4[0] + muonp4[0]).BoostVector().Z() : -1.0",
    "rest_frame": f"{TWO} ? ROOT::Math::VectorUtil::boost(muonp4[0], -(muonp4[0] + muonp4[1]).BoostVector()).E() "
                  ": -1.0",
    "lep_across": "MC_lepton.Perp(MC_neutrino) + MC_lepton.Perp2(MC_neutrino) + MC_lepton.Pt(MC_lepton)",
}


def of_muon(cls, methods, k):
    """Muon k of the event as a ROOT::Math `cls` made of its values `methods`."""
    return f"ROOT::Math::{cls}(" + ", ".join(f"muonp4[{k}].{m}()" for m in methods.split()) + ")"


def p4(k):
    """Muon k of the event as a PtEtaPhiMVector."""
    return of_muon("PtEtaPhiMVector", "Pt Eta Phi M", k)


# ROOT::Math::VectorUtil's functions of two PtEtaPhiMVectors.
DEFINES.update({f"vu_{f}": f"{TWO} ? ROOT::Math::VectorUtil::{f}({p4(0)}, {p4(1)}) : -9.0" for f in
                ["DeltaR", "DeltaPhi", "DeltaR2", "DeltaRapidityPhi", "DeltaR2RapidityPhi", "InvariantMass"]})
# A PtEtaPhiMVector scaled (GenVector's Scale: a negative factor turns it around), negated,
# compared.
DEFINES.update({
    "p4_scaled": f"{ONE} ? (2.5 * {p4(0)}).Pt() + ({p4(0)} * -0.5).Eta() + ({p4(0)} / 4.0).M() : -1.0",
    "p4_turned": f"{ONE} ? (-{p4(0)}).Phi() + (+{p4(0)}).Pt() + ({p4(0)} * -2.0).Px() : -9.0",
    "p4_same": f"{TWO} && {p4(0)} == {p4(0)} && {p4(0)} != {p4(1)}",
    "p4_sums": f"{TWO} && ({p4(0)} + {p4(1)}) == ({p4(1)} + {p4(0)})",
})
TYPED = ["muonp4", "jetp4", "MET", "MC_lepton", "pair", "spatial", "flat", "mu_Pt", "same"]

ROOT_SCRIPT = r"""
import json, sys, ROOT
ROOT.gErrorIgnoreLevel = ROOT.kError
path, out, defines, ours = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
df = ROOT.RDataFrame("events", path)
for k, v in defines.items():
    df = df.Define(k, v)
df = df.Define("pair", "muonp4.size() >= 2 ? muonp4[0] + muonp4[1] : TLorentzVector()")
df = df.Define("spatial", "MC_lepton + MC_neutrino").Define("flat", "MET * -1.0")
values = df.AsNumpy(list(defines))
types = {k: df.GetColumnType(k) for k in json.loads(sys.argv[5])}
# A snapshot of ours read back: the pair's mass and the TVector2.
back = ROOT.RDataFrame("t", ours).Define("m", "pair.M()").Define("phi", "flat.Phi()").AsNumpy(["m", "phi"])
with open(out, "w") as f:
    json.dump({"values": {k: [str(v.dtype), v.tolist()] for k, v in values.items()}, "types": types,
               "back": {k: v.tolist() for k, v in back.items()}}, f)
df.Snapshot("t", out + ".root", ["pair", "flat"])
"""


def frame():
    df = rootweave.RDataFrame("events", str(HZZ), threads=2)
    for k, v in DEFINES.items():
        df = df.Define(k, v)
    df = df.Define("pair", "muonp4.size() >= 2 ? muonp4[0] + muonp4[1] : TLorentzVector()")
    return df.Define("spatial", "MC_lepton + MC_neutrino").Define("flat", "MET * -1.0")


def test_physics_vectors_compute_as_root_s_classes(workdir):
    df = frame()
    ours = workdir / "vectors.root"
    df.Snapshot("t", str(ours), ["pair", "flat"])
    out = workdir / "vectors.json"
    done = subprocess.run([sys.executable, "-c", ROOT_SCRIPT, str(HZZ), str(out), json.dumps(DEFINES), str(ours),
                           json.dumps(TYPED)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(out.read_text())
    # Every value with ROOT's bits (NaNs where ROOT's are), in ROOT's types.
    mine = df.AsNumpy(list(DEFINES))
    for k, (dtype, values) in theirs["values"].items():
        assert str(mine[k].dtype) == dtype, k
        np.testing.assert_array_equal(mine[k], np.array(values, dtype=dtype), err_msg=k, strict=True)
    assert {k: df.GetColumnType(k) for k in TYPED} == theirs["types"]
    assert theirs["types"]["jetp4"] == "ROOT::VecOps::RVec<TLorentzVector>" and theirs["types"]["pair"] == "TLorentzVector"
    pairs = np.array(theirs["values"]["pair_m"][1])
    assert (pairs > 80).sum() > 500 and (pairs == -1).sum() > 100
    # The snapshot: ROOT reads our TLorentzVector and TVector2 branches as the classes.
    m = np.where(pairs == -1.0, 0.0, pairs)
    np.testing.assert_array_equal(np.array(theirs["back"]["m"]), m, strict=True)
    np.testing.assert_array_equal(np.array(theirs["back"]["phi"]), df.Define("x", "flat.Phi()").AsNumpy(["x"])["x"])
    # Both snapshots hold the same objects, as uproot reads them.
    with uproot.open(ours) as a, uproot.open(str(out) + ".root") as b:
        for branch in ["pair", "flat"]:
            assert a["t"][branch].typename == b["t"][branch].typename, branch
            assert a["t"][branch].array().tolist() == b["t"][branch].array().tolist(), branch
    # Taken, a vector is a record of the class's members, as read ones are.
    taken = df.Filter(TWO).Take("pair").GetValue()
    assert taken[0].tolist() == {"fP": {k: float(v) for k, v in zip(["fX", "fY", "fZ"], taken.fP[0].tolist().values())},
                                 "fE": float(taken.fE[0])}


def test_lists_of_vectors_in_lambdas_and_list_functions():
    df = rootweave.RDataFrame("events", str(HZZ))
    got = df.Define("pts", "Map(jetp4, [](const TLorentzVector &j) { return j.Pt(); })") \
            .Define("n", "Reverse(Concatenate(jetp4, muonp4)).size()").AsNumpy(["pts", "n"])
    jets = uproot.open(HZZ)["events"]["jetp4"].array()
    px, py = jets.fP.fX, jets.fP.fY
    assert got["pts"].tolist() == np.sqrt(px * px + py * py).tolist()
    muons = uproot.open(HZZ)["events"]["muonp4"].array()
    assert got["n"].tolist() == [len(j) + len(m) for j, m in zip(jets, muons)]


@pytest.mark.parametrize("text,says", [
    ("MET.M()", "TVector2 has no method M()"),
    ("-MET", "a TVector2 cannot be negated"),
    ("muonp4[0] + MET", "no operator '+' of TLorentzVector and TVector2"),
    ("MC_lepton > MC_lepton", "no operator '>' of TVector3 and TVector3"),
    ("Sum(muonp4)", "TLorentzVector is not a number"),
    ("MET.DeltaPhi(MC_lepton)", "a TVector3 where a TVector2 is needed"),
    ("ROOT::Math::VectorUtil::DeltaR(muonp4[0], muonp4[0])", "VectorUtil::DeltaR of a TLorentzVector"),
    ("ROOT::Math::XYZTVector(1.0, 2.0, 3.0, 4.0) * ROOT::Math::XYZTVector(1.0, 2.0, 3.0, 4.0)",
     "no operator '*' of PxPyPzEVector and PxPyPzEVector"),
    ("ROOT::Math::XYZVector(MET.X(), MET.Y())", "XYZVector takes 3 components, not 2"),
    ("ROOT::Math::XYZVector(1.0, 2.0, 3.0).M()", "XYZVector has no method M()"),
    ("ROOT::Math::PtEtaPhiMVector(MC_lepton)", "a PtEtaPhiMVector made of a TVector3"),
    ("ROOT::Math::PtEtaPhiEVector(MET.X(), 1.0, 2.0)", "PtEtaPhiEVector takes 4 components, not 3"),
    ("ROOT::Math::PxPyPzMVector(muonp4[0])", "a PxPyPzMVector made of a TLorentzVector"),
    ("ROOT::Math::PxPyPzMVector(1.0, 2.0, 3.0, 4.0).Dot(muonp4[0])",
     "Dot() of a PxPyPzMVector takes a ROOT::Math four-vector, not a TLorentzVector"),
    ("ROOT::Math::PtEtaPhiEVector() == ROOT::Math::PxPyPzMVector()",
     "no operator '==' of PtEtaPhiEVector and PxPyPzMVector"),
    ("ROOT::Math::XYZPoint(1.0, 2.0, MET.X()) + ROOT::Math::XYZPoint()", "no operator '+' of XYZPoint and XYZPoint"),
    ("ROOT::Math::XYZVector() - ROOT::Math::XYZPoint(1.0, 2.0, MET.X())", "no operator '-' of XYZVector and XYZPoint"),
    ("-ROOT::Math::XYZPoint(1.0, 2.0, MET.X())", "an XYZPoint has no unary '-'"),
    ("ROOT::Math::XYZPoint(1.0, 2.0, MET.X()).Dot(ROOT::Math::XYZPoint())", "Dot(): "),
    ("Sum(ROOT::VecOps::Construct<ROOT::Math::XYZPoint>(ROOT::RVecD{MET.X()}, ROOT::RVecD{1.0}, ROOT::RVecD{2.0}), "
     "ROOT::Math::XYZPoint())", "GenVector has no sum of two points"),
    ("DeltaR(MET.X(), MET.Y())", "DeltaR of two arguments takes four-vectors"),
    ("ROOT::Math::VectorUtil::boost(MC_lepton, MC_lepton)", "boost of a TVector3: it boosts four-vectors"),
    ("ROOT::Math::VectorUtil::CosTheta(MET, MC_lepton)", "CosTheta: a TVector2 has no X(), Y() and Z()"),
    ("ROOT::Math::PtEtaPhiMVector(MET.X(), 1.0, 2.0, 3.0).DeltaR(MC_lepton, true)",
     "DeltaR() of a PtEtaPhiMVector takes a ROOT::Math four-vector, not a TVector3"),
    ("ROOT::Math::PtEtaPhiMVector(MET.X(), 1.0, 2.0, 3.0).Cross(MC_lepton)", "a PtEtaPhiMVector has no method Cross()"),
])
def test_what_the_classes_do_not_have_is_an_error_naming_the_expression(text, says):
    with pytest.raises(ValueError) as e:
        rootweave.RDataFrame("events", str(HZZ)).Define("x", text).Sum("x").GetValue()
    assert says in str(e.value) and f"'{text}'" in str(e.value)


def test_results_of_numbers_refuse_vectors_as_they_are_booked():
    df = rootweave.RDataFrame("events", str(HZZ))
    mod = df.Define("mod", "MET.Mod()").Sum("mod")
    for book in [lambda: df.Histo1D("MET"), lambda: df.Sum("MC_lepton"),
                 lambda: df.Define("p", "muonp4[0]").Filter("muonp4.size() > 0").Mean("p")]:
        with pytest.raises(ValueError, match="holds (TVector2|TVector3|TLorentzVector)s, which are not numbers"):
            book()
    # The graph's other results unharmed; vectors are taken as read ones are.
    assert mod.GetValue() > 0
    taken = df.Take("muonp4").GetValue()
    read = rootweave.open(str(HZZ))["events"].arrays(["muonp4"]).muonp4
    assert taken.tolist() == read.tolist() and str(taken.type) == str(read.type)


# The Cartesian ROOT::Math vectors (GenVector): PxPyPzEVector (XYZTVector) and XYZVector, made of
# the muons' components, with every method, operator and conversion an analyst writes.
def cart(k):
    return of_muon("PxPyPzEVector", "Px Py Pz E", k)


GENVECTOR = {
    **{f"c_{m}": f"{ONE} ? {cart(0)}.{m}() : -1.0" for m in
       ["X", "Y", "Z", "T", "Px", "Py", "Pz", "E", "M2", "M", "R", "P", "P2", "Perp2", "Pt", "Rho", "Mt2", "Mt",
        "Et2", "Et", "Phi", "Theta", "Eta", "Rapidity", "ColinearRapidity", "Beta", "Gamma", "mass", "pt", "eta",
        "phi", "mag2"]},
    **{f"v_{m}": f"{ONE} ? {cart(0)}.Vect().{m}() : -1.0" for m in
       ["X", "Y", "Z", "R", "Theta", "Phi", "Eta", "Rho", "Mag2", "Perp2"]},
    **{f"b_{m}": f"{ONE} ? {cart(0)}.BoostToCM().{m}() : -1.0" for m in ["X", "R", "Eta"]},
    "g_sum_m": f"{TWO} ? ({cart(0)} + {cart(1)}).M() : -1.0",
    "g_diff_eta": f"{TWO} ? ({cart(0)} - {cart(1)}).Eta() : -1.0",
    "g_dot": f"{TWO} ? {cart(0)}.Dot({cart(1)}) : -1.0",
    "g_dr": f"{TWO} ? {cart(0)}.DeltaR({cart(1)}) : -1.0",
    "g_scaled": f"{ONE} ? (0.5 * {cart(0)}).E() + ({cart(0)} * 3.0).Px() + ({cart(0)} / 3.0).Pz() : -1.0",
    "g_signs": f"{ONE} ? (-{cart(0)}).Pz() + (+{cart(0)}).Px() : -1.0",
    "g_unit": f"{ONE} ? {cart(0)}.Vect().Unit().X() : -1.0",
    "g_cross": f"{TWO} ? {cart(0)}.Vect().Cross({cart(1)}.Vect()).Z() : -1.0",
    "g_vdot": f"{TWO} ? {cart(0)}.Vect().Dot({cart(1)}.Vect()) : -1.0",
    "g_vdiv": f"{ONE} ? ({cart(0)}.Vect() / 7.0).Y() : -1.0",
    "g_to_polar": f"{ONE} ? ROOT::Math::PtEtaPhiMVector({cart(0)}).Phi() : -1.0",
    "g_to_polar_m": f"{ONE} ? ROOT::Math::PtEtaPhiMVector({cart(0)}).M() : -1.0",
    "g_to_cart": f"{ONE} ? ROOT::Math::PxPyPzEVector({p4(0)}).Px() : -1.0",
    "g_mixed1": f"{TWO} ? ({p4(0)} + {cart(1)}).M() : -1.0",
    "g_mixed2": f"{TWO} ? ({cart(0)} - {p4(1)}).M() : -1.0",
    "g_vu_dr": f"{TWO} ? ROOT::Math::VectorUtil::DeltaR({cart(0)}, {p4(1)}) : -1.0",
    "g_vu_m": f"{TWO} ? ROOT::Math::VectorUtil::InvariantMass({cart(0)}, {cart(1)}) : -1.0",
    "g_vu_dphi": f"{TWO} ? ROOT::Math::VectorUtil::DeltaPhi({p4(0)}, {cart(1)}) : -9.0",
    "g_xyz": "ROOT::Math::XYZVector(MET.X(), MET.Y(), 1.5).Eta()",
    "g_xyzt": "ROOT::Math::XYZTVector(MET.X(), MET.Y(), 0.0, MET.Mod()).Mt()",
    "g_same": f"{ONE} && {cart(0)} == {cart(0)} * 1.0",
    "g_list": "(made[0] + made[2]).Rapidity() + made[1].M()",
    "g_list_sum": "Sum(made, ROOT::Math::PxPyPzEVector()).M()",
}
MADE = ("ROOT::VecOps::Construct<ROOT::Math::PxPyPzEVector>(ROOT::RVecD{MET.X(), 1.0, -2.0}, "
        "ROOT::RVecD{MET.Y(), 2.0, 0.25}, ROOT::RVecD{0.5, 3.0, MET.X()}, ROOT::RVecD{MET.Mod() + 1.0, 9.0, 4.0})")
GENVECTOR_TYPED = ["made", "c", "v", "g_sum_m"]

GENVECTOR_ROOT = r"""
import json, sys, ROOT
ROOT.gErrorIgnoreLevel = ROOT.kError
path, out, defines, made = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
df = ROOT.RDataFrame("events", path).Define("made", made)
df = df.Define("c", "ROOT::Math::XYZTVector(MET.X(), MET.Y(), 1.0, MET.Mod() + 2.0)").Define("v", "c.Vect()")
for k, v in defines.items():
    df = df.Define(k, v)
values = df.AsNumpy(list(defines))
types = {k: df.GetColumnType(k) for k in json.loads(sys.argv[5])}
back = {}
for fmt in ("ttree", "rntuple"):
    ours = ROOT.RDataFrame("t", f"{out}.{fmt}.root")
    back[fmt] = {"types": [ours.GetColumnType(c) for c in ("c", "v", "made")],
                 **{k: v.tolist() for k, v in ours.Define("m", "c.M()").Define("r", "v.R()")
                    .Define("l", "made[2].Eta()").AsNumpy(["m", "r", "l"]).items()}}
with open(out, "w") as f:
    json.dump({"values": {k: [str(v.dtype), v.tolist()] for k, v in values.items()}, "types": types,
               "back": back}, f)
"""


def test_cartesian_root_math_vectors_compute_as_genvector(workdir):
    df = rootweave.RDataFrame("events", str(HZZ)).Define("made", MADE)
    df = df.Define("c", "ROOT::Math::XYZTVector(MET.X(), MET.Y(), 1.0, MET.Mod() + 2.0)").Define("v", "c.Vect()")
    for k, v in GENVECTOR.items():
        df = df.Define(k, v)
    out = workdir / "genvectors.json"
    for fmt in ("ttree", "rntuple"):
        df.Snapshot("t", f"{out}.{fmt}.root", ["c", "v", "made"], format=fmt)
    done = subprocess.run([sys.executable, "-c", GENVECTOR_ROOT, str(HZZ), str(out), json.dumps(GENVECTOR), MADE,
                           json.dumps(GENVECTOR_TYPED)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(out.read_text())
    mine = df.AsNumpy(list(GENVECTOR))
    for k, (dtype, values) in theirs["values"].items():
        np.testing.assert_array_equal(mine[k], np.array(values, dtype=dtype), err_msg=k, strict=True)
    assert {k: df.GetColumnType(k) for k in GENVECTOR_TYPED} == theirs["types"]
    assert theirs["types"]["made"] == "ROOT::VecOps::RVec<ROOT::Math::LorentzVector<ROOT::Math::PxPyPzE4D<double> > >"
    masses = np.array(theirs["values"]["g_sum_m"][1])
    assert (masses > 80).sum() > 500 and (masses == -1).sum() > 100
    # Both snapshots: ROOT reads the classes and their values back; so do uproot and rootweave.
    expected = df.Define("m", "c.M()").Define("r", "v.R()").Define("l", "made[2].Eta()").AsNumpy(["m", "r", "l"])
    for fmt in ("ttree", "rntuple"):
        back = theirs["back"][fmt]
        assert [t.replace("> >", ">>") for t in back["types"]] == [
            "ROOT::Math::LorentzVector<ROOT::Math::PxPyPzE4D<double>>",
            "ROOT::Math::DisplacementVector3D<ROOT::Math::Cartesian3D<double>,ROOT::Math::DefaultCoordinateSystemTag>",
            "ROOT::VecOps::RVec<ROOT::Math::LorentzVector<ROOT::Math::PxPyPzE4D<double>>>"], fmt
        for k in "mrl":
            np.testing.assert_array_equal(np.array(back[k]), expected[k], err_msg=f"{fmt} {k}", strict=True)
        again = rootweave.RDataFrame("t", f"{out}.{fmt}.root")
        got = again.Define("m", "c.M()").Define("r", "v.R()").Define("l", "made[2].Eta()").AsNumpy(list("mrl"))
        for k in "mrl":
            np.testing.assert_array_equal(got[k], expected[k], err_msg=f"{fmt} {k}", strict=True)
    with uproot.open(f"{out}.ttree.root") as f:
        # uproot names a split member by its branch's name.
        x = f["t"]["c"].array()["fCoordinates"]["fCoordinates.fX"]
        assert x.tolist() == df.Define("x", "c.X()").AsNumpy(["x"])["x"].tolist()


# ROOT::Math's other four-vectors held as numbers: PtEtaPhiEVector (pt, eta, phi, E, as ATLAS's
# leptons are stored) and PxPyPzMVector, made of the muons, each computing its values from its
# own coordinates and converting sums back into them.
def polar_e(k):
    return of_muon("PtEtaPhiEVector", "Pt Eta Phi E", k)


def cart_m(k):
    return of_muon("PxPyPzMVector", "Px Py Pz M", k)


FOUR_METHODS = ["X", "Y", "Z", "T", "Px", "Py", "Pz", "E", "M2", "M", "R", "P", "P2", "Perp2", "Pt", "Rho", "Mt2",
                "Mt", "Et2", "Et", "Phi", "Theta", "Eta", "Rapidity", "ColinearRapidity", "Beta", "Gamma", "mass",
                "pt", "eta", "phi", "mag2", "e", "energy"]
HELD = {
    **{f"e_{m}": f"{ONE} ? {polar_e(0)}.{m}() : -1.0" for m in FOUR_METHODS},
    **{f"m_{m}": f"{ONE} ? {cart_m(0)}.{m}() : -1.0" for m in FOUR_METHODS},
    **{f"{c}_v_{m}": f"{ONE} ? {f(0)}.Vect().{m}() : -1.0" for c, f in (("e", polar_e), ("m", cart_m))
       for m in ["X", "Z", "Eta"]},
    **{f"{c}_b_{m}": f"{ONE} ? {f(0)}.BoostToCM().{m}() : -1.0" for c, f in (("e", polar_e), ("m", cart_m))
       for m in ["X", "R"]},
    **{f"e_sum_{m}": f"{TWO} ? ({polar_e(0)} + {polar_e(1)}).{m}() : -1.0" for m in ["M", "Pt", "Eta", "Phi", "E"]},
    **{f"m_sum_{m}": f"{TWO} ? ({cart_m(0)} + {cart_m(1)}).{m}() : -1.0" for m in ["M", "E", "Et", "Px"]},
    "e_diff": f"{TWO} ? ({polar_e(0)} - {polar_e(1)}).M() : -1.0",
    "m_diff": f"{TWO} ? ({cart_m(0)} - {cart_m(1)}).E() + ({cart_m(0)} - {cart_m(1)}).M() : -1.0",
    "e_three": f"{TWO} ? ({polar_e(0)} + {polar_e(1)} + {polar_e(0)}).M() : -1.0",
    "mix_pe_p4": f"{TWO} ? ({polar_e(0)} + {p4(1)}).M() : -1.0",
    "mix_p4_pe": f"{TWO} ? ({p4(0)} + {polar_e(1)}).M() : -1.0",
    "mix_m_c": f"{TWO} ? ({cart_m(0)} + {cart(1)}).M() : -1.0",
    "mix_c_m": f"{TWO} ? ({cart(0)} - {cart_m(1)}).E() : -1.0",
    "mix_e_m": f"{TWO} ? ({polar_e(0)} + {cart_m(1)}).Eta() + ({cart_m(0)} - {polar_e(1)}).Pt() : -1.0",
    "e_dot": f"{TWO} ? {polar_e(0)}.Dot({polar_e(1)}) + {polar_e(0)}.Dot({cart_m(1)}) : -1.0",
    "m_dot": f"{TWO} ? {cart_m(0)}.Dot({cart_m(1)}) + {cart_m(0)}.Dot({p4(1)}) : -1.0",
    "e_dr": f"{TWO} ? {polar_e(0)}.DeltaR({polar_e(1)}) : -1.0",
    "m_dr": f"{TWO} ? {cart_m(0)}.DeltaR({cart(1)}) : -1.0",
    "e_scaled": f"{ONE} ? ({polar_e(0)} * -2.0).Eta() + ({polar_e(0)} * -2.0).E() + (2.5 * {polar_e(0)}).Pt() : -1.0",
    "e_turned": f"{ONE} ? (-{polar_e(0)}).Phi() + ({polar_e(0)} / 4.0).E() + (+{polar_e(0)}).Pt() : -9.0",
    "m_scaled": f"{ONE} ? (2.5 * {cart_m(0)}).M() + ({cart_m(0)} / 3.0).Px() : -1.0",
    "m_turned": f"{ONE} ? (-{cart_m(0)}).M() + ({cart_m(0)} * -1.0).E() : -1.0",
    "e_same": f"{TWO} && {polar_e(0)} == {polar_e(0)} * 1.0 && {polar_e(0)} != {polar_e(1)}",
    "m_same": f"{TWO} && {cart_m(0)} == {cart_m(0)} && {cart_m(0)} != {cart_m(1)}",
    "to_e": f"{ONE} ? ROOT::Math::PtEtaPhiEVector({p4(0)}).E() + ROOT::Math::PtEtaPhiEVector({cart(0)}).Eta() "
            f"+ ROOT::Math::PtEtaPhiEVector({cart_m(0)}).Phi() : -1.0",
    "to_m": f"{ONE} ? ROOT::Math::PxPyPzMVector({polar_e(0)}).M() + ROOT::Math::PxPyPzMVector({p4(0)}).M() : -1.0",
    "to_c": f"{ONE} ? ROOT::Math::PxPyPzEVector({polar_e(0)}).Pz() + ROOT::Math::PxPyPzEVector({cart_m(0)}).E() : -1.0",
    "to_p4": f"{ONE} ? ROOT::Math::PtEtaPhiMVector({polar_e(0)}).M() + ROOT::Math::PtEtaPhiMVector({cart_m(0)}).Phi() "
             ": -1.0",
    "made_phi": "ROOT::Math::PtEtaPhiEVector(MET.Mod(), 0.3, 7.0, 100.0).Phi()",
    "made_mass": "ROOT::Math::PxPyPzMVector(MET.X(), MET.Y(), 0.0, -2.0 * MET.Mod()).M()",
    "vu": f"{TWO} ? ROOT::Math::VectorUtil::DeltaR({polar_e(0)}, {cart_m(1)}) "
          f"+ ROOT::Math::VectorUtil::InvariantMass({cart_m(0)}, {cart_m(1)}) "
          f"+ ROOT::Math::VectorUtil::DeltaR2RapidityPhi({cart_m(0)}, {polar_e(1)}) : -1.0",
    "list_e": "Sum(made_e, ROOT::Math::PtEtaPhiEVector()).M() + made_e[2].Phi() + (made_e[0] + made_e[1]).Eta()",
    "list_m": "Sum(made_m, ROOT::Math::PxPyPzMVector()).E() + made_m[1].M() + made_m[2].E()",
    # PtEtaPhiMVector: every method of LorentzVector over PtEtaPhiM4D's values, of a muon and
    # of a pair's sum (its coordinates converted back); DeltaR of rapidities too.
    **{f"q_{m}": f"{ONE} ? {p4(0)}.{m}() : -1.0" for m in FOUR_METHODS},
    **{f"q_sum_{m}": f"{TWO} ? ({p4(0)} + {p4(1)}).{m}() : -1.0" for m in FOUR_METHODS},
    **{f"q_v_{m}": f"{ONE} ? {p4(0)}.Vect().{m}() + {p4(0)}.BoostToCM().{m}() : -1.0" for m in ["X", "Z", "R"]},
    "q_dot": f"{TWO} ? {p4(0)}.Dot({p4(1)}) + {p4(0)}.Dot({polar_e(1)}) : -1.0",
    "q_dr": f"{TWO} ? {p4(0)}.DeltaR({p4(1)}) + 2.0 * {p4(0)}.DeltaR({cart_m(1)}, false) : -1.0",
    "q_dry": f"{TWO} ? {p4(0)}.DeltaR({p4(1)}, true) + 2.0 * {p4(0)}.DeltaR({cart(1)}, jetp4.size() > 1) : -1.0",
    "e_dry": f"{TWO} ? {polar_e(0)}.DeltaR({p4(1)}, true) + {cart_m(0)}.DeltaR({cart_m(1)}, true) : -1.0",
    "q_dr_tlv": f"{TWO} ? {p4(0)}.DeltaR(muonp4[1]) + {polar_e(0)}.DeltaR(muonp4[1], true) "
                f"+ 2.0 * {cart_m(0)}.DeltaR(muonp4[1], false) : -1.0",
    "list_p": "ROOT::Math::PtEtaPhiMVector(made_e[1]).Theta() + ROOT::Math::PtEtaPhiMVector(made_m[2]).Gamma()",
    # VectorUtil's boost into a pair's rest frame (the result of the boosted vector's class),
    # CosTheta and Angle of any vectors with X(), Y() and Z(), InvariantMass2.
    **{f"boost_{c}_{m}": f"{TWO} ? ROOT::Math::VectorUtil::boost({f(0)}, ({p4(0)} + {p4(1)}).BoostToCM()).{m}() : -1.0"
       for c, f in (("p", p4), ("e", polar_e), ("m", cart_m), ("c", cart)) for m in ["M", "Pt", "Eta", "E"]},
    "boost_tlv": f"{TWO} ? ROOT::Math::VectorUtil::boost(muonp4[0], ({p4(0)} + {p4(1)}).BoostToCM()).Pz() : -1.0",
    "boost_fast": f"{ONE} ? ROOT::Math::VectorUtil::boost({p4(0)}, ROOT::Math::XYZVector(0.6, 0.6, 0.6)).M() : -1.0",
    "cos_theta": f"{TWO} ? ROOT::Math::VectorUtil::CosTheta({p4(0)}, {cart_m(1)}) "
                 f"+ ROOT::Math::VectorUtil::CosTheta(muonp4[0], {p4(1)}.Vect()) : -9.0",
    "angle": f"{TWO} ? ROOT::Math::VectorUtil::Angle({polar_e(0)}, {p4(1)}) "
             f"+ ROOT::Math::VectorUtil::Angle(ROOT::Math::VectorUtil::boost({p4(0)}, ({p4(0)} + {p4(1)}).BoostToCM())"
             f".Vect(), ({p4(0)} + {p4(1)}).Vect()) : -9.0",
    "mass2": f"{TWO} ? ROOT::Math::VectorUtil::InvariantMass2({p4(0)}, {cart_m(1)}) : -1.0",
}


# XYZPoint (PositionVector3D): positions, whose differences are XYZVectors.
def point(k):
    return of_muon("XYZPoint", "X Y Z", k)


def spatial(k):
    return of_muon("XYZVector", "X Y Z", k)


HELD.update({
    **{f"p_{m}": f"{ONE} ? {point(0)}.{m}() : -1.0" for m in
       ["X", "Y", "Z", "R", "Theta", "Phi", "Eta", "Rho", "Mag2", "Perp2", "x", "rho", "perp2", "mag2"]},
    "p_diff": f"{TWO} ? ({point(0)} - {point(1)}).R() + ({point(0)} - {point(1)}).Unit().X() : -1.0",
    "p_moved": f"{TWO} ? ({point(0)} + {spatial(1)}).Eta() + ({spatial(1)} + {point(0)}).Phi() "
               f"+ ({point(0)} - {spatial(1)}).Z() : -1.0",
    "p_scaled": f"{ONE} ? ({point(0)} * 2.0).X() + (0.5 * {point(0)}).Y() + ({point(0)} / 3.0).Z() : -1.0",
    "p_dot": f"{TWO} ? {point(0)}.Dot({spatial(1)}) + {point(0)}.Cross({spatial(1)}).Z() : -1.0",
    "p_same": f"{TWO} && {point(0)} == {point(0)} * 1.0 && {point(0)} != {point(1)}",
    "p_list": "made_p[1].R() + (made_p[0] - made_p[2]).Rho()",
})
MADE_E = ("ROOT::VecOps::Construct<ROOT::Math::PtEtaPhiEVector>(ROOT::RVecD{MET.Mod(), 2.0, 0.0}, "
          "ROOT::RVecD{0.5, -1.0, 3.0}, ROOT::RVecD{MET.Phi(), 4.0, -7.0}, ROOT::RVecD{MET.Mod() + 3.0, 9.0, 4.0})")
MADE_M = ("ROOT::VecOps::Construct<ROOT::Math::PxPyPzMVector>(ROOT::RVecD{MET.X(), 1.0, -2.0}, "
          "ROOT::RVecD{MET.Y(), 2.0, 0.25}, ROOT::RVecD{0.5, 3.0, MET.X()}, ROOT::RVecD{0.1, -9.0, 4.0})")
MADE_P = ("ROOT::VecOps::Construct<ROOT::Math::XYZPoint>(ROOT::RVecD{MET.X(), 1.0, -2.0}, "
          "ROOT::RVecD{MET.Y(), 2.0, 0.25}, ROOT::RVecD{0.5, 3.0, MET.X()})")
HELD_BASE = {"made_e": MADE_E, "made_m": MADE_M, "made_p": MADE_P,
             "pe": "ROOT::Math::PtEtaPhiEVector(MET.Mod(), 0.7, MET.Phi(), MET.Mod() + 5.0)",
             "xm": "ROOT::Math::PxPyPzMVector(MET.X(), MET.Y(), 1.5, 0.105)",
             "pv": "ROOT::Math::XYZPoint(MET.X(), MET.Y(), 0.25)"}
HELD_TYPED = ["made_e", "made_m", "made_p", "pe", "xm", "pv", "e_M"]
HELD_BACK = {"a": "pe.M()", "b": "xm.E()", "c": "made_e[2].Phi()", "d": "made_m[1].M()", "e": "pv.Eta()",
             "f": "made_p[2].Z()"}

HELD_ROOT = r"""
import json, sys, ROOT
ROOT.gErrorIgnoreLevel = ROOT.kError
path, out, base, defines, typed, back_defs = sys.argv[1:3] + [json.loads(a) for a in sys.argv[3:]]
df = ROOT.RDataFrame("events", path)
for k, v in {**base, **defines}.items():
    df = df.Define(k, v)
values = df.AsNumpy(list(defines))
types = {k: df.GetColumnType(k) for k in typed}
back = {}
for fmt in ("ttree", "rntuple"):
    ours = ROOT.RDataFrame("t", f"{out}.{fmt}.root")
    back[fmt] = {"types": [ours.GetColumnType(c) for c in base]}
    for k, v in back_defs.items():
        ours = ours.Define(k, v)
    back[fmt].update({k: v.tolist() for k, v in ours.AsNumpy(list(back_defs)).items()})
with open(out, "w") as f:
    json.dump({"values": {k: [str(v.dtype), v.tolist()] for k, v in values.items()}, "types": types,
               "back": back}, f)
"""


POINT = "ROOT::Math::PositionVector3D<ROOT::Math::Cartesian3D<double>,ROOT::Math::DefaultCoordinateSystemTag>"


def test_polar_energy_and_mass_four_vectors_and_points_compute_as_genvector(workdir):
    df = rootweave.RDataFrame("events", str(HZZ))
    for k, v in {**HELD_BASE, **HELD}.items():
        df = df.Define(k, v)
    out = workdir / "held.json"
    for fmt in ("ttree", "rntuple"):
        df.Snapshot("t", f"{out}.{fmt}.root", list(HELD_BASE), format=fmt)
    args = [json.dumps(a) for a in (HELD_BASE, HELD, HELD_TYPED, HELD_BACK)]
    done = subprocess.run([sys.executable, "-c", HELD_ROOT, str(HZZ), str(out), *args], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(out.read_text())
    mine = df.AsNumpy(list(HELD))
    for k, (dtype, values) in theirs["values"].items():
        np.testing.assert_array_equal(mine[k], np.array(values, dtype=dtype), err_msg=k, strict=True)
    assert {k: df.GetColumnType(k) for k in HELD_TYPED} == theirs["types"]
    assert theirs["types"]["pe"] == "ROOT::Math::LorentzVector<ROOT::Math::PtEtaPhiE4D<double> >"
    # The sums of muon pairs are real masses; a negative mass too large for its momentum is
    # made -P() by PxPyPzMVector's constructor.
    assert (np.array(theirs["values"]["e_sum_M"][1]) > 80).sum() > 500
    met = df.Define("x", "MET.X()").Define("y", "MET.Y()").AsNumpy(["x", "y"])
    assert (mine["made_mass"] == -np.sqrt(met["x"] * met["x"] + met["y"] * met["y"])).all()
    # Both snapshots: ROOT reads the classes and their values back, and so does rootweave.
    expected = df
    for k, v in HELD_BACK.items():
        expected = expected.Define(k, v)
    expected = expected.AsNumpy(list(HELD_BACK))
    for fmt in ("ttree", "rntuple"):
        back = theirs["back"][fmt]
        assert [t.replace("> >", ">>") for t in back["types"]] == [
            "ROOT::VecOps::RVec<ROOT::Math::LorentzVector<ROOT::Math::PtEtaPhiE4D<double>>>",
            "ROOT::VecOps::RVec<ROOT::Math::LorentzVector<ROOT::Math::PxPyPzM4D<double>>>",
            f"ROOT::VecOps::RVec<{POINT}>",
            "ROOT::Math::LorentzVector<ROOT::Math::PtEtaPhiE4D<double>>",
            "ROOT::Math::LorentzVector<ROOT::Math::PxPyPzM4D<double>>", POINT], fmt
        # rootweave takes them back too: the points as points (their records are an
        # XYZVector's too; the declared type tells them apart), also from a Cache.
        again = rootweave.RDataFrame("t", f"{out}.{fmt}.root")
        for k, v in HELD_BACK.items():
            again = again.Define(k, v)
        got = again.AsNumpy(list(HELD_BACK))
        for k in HELD_BACK:
            np.testing.assert_array_equal(np.array(back[k]), expected[k], err_msg=f"{fmt} {k}", strict=True)
            np.testing.assert_array_equal(got[k], expected[k], err_msg=f"{fmt} {k}", strict=True)
        cached = again.Cache(["pv", "made_p"])
        for frame in (again, cached):
            typed = frame.Define("moved", "pv * 2.0").Define("apart", "pv - made_p[0]").Define("ps", "made_p * 1.0")
            assert [typed.GetColumnType(c).replace("> >", ">>") for c in ("pv", "moved", "apart", "ps")] == [
                POINT, POINT, POINT.replace("Position", "Displacement"), f"ROOT::VecOps::RVec<{POINT}>"], fmt
            with pytest.raises(Exception, match="no operator '[+]' of XYZPoint and XYZPoint"):
                frame.Define("twice", "pv + pv").AsNumpy(["twice"])
        z = cached.Define("f", HELD_BACK["f"]).AsNumpy(["f"])["f"]
        np.testing.assert_array_equal(z, expected["f"], strict=True)
    pt = df.Define("pt", "pe.Pt()").Define("mass", "xm.M()").AsNumpy(["pt", "mass"])
    with uproot.open(f"{out}.ttree.root") as f:
        assert f["t"]["pe"].array()["fCoordinates"]["fCoordinates.fPt"].tolist() == pt["pt"].tolist()
    with uproot.open(f"{out}.rntuple.root") as f:
        assert f["t"].arrays(["xm"])["xm"]["fCoordinates"]["fM"].tolist() == pt["mass"].tolist()
        z = df.Define("z", "made_p[2].Z()").AsNumpy(["z"])["z"]
        assert f["t"].arrays(["made_p"])["made_p"]["fCoordinates"]["fZ"][:, 2].tolist() == z.tolist()
