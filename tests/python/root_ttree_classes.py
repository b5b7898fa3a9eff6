"""ROOT 6.40 on TTrees of user classes, run as a child process by test_ttree_classes.py:

    root_ttree_classes.py dict WORKDIR dump FILE...
        with a compiled dictionary of the classes (built in WORKDIR), prints one JSON line
        per file, branch and entry: the object read through SetBranchAddress, as
        TBufferJSON writes it ({"file", "branch", "entry", "object"})
    root_ttree_classes.py dict WORKDIR rewrite IN OUT SPLIT
        with the dictionary, copies IN's tree into OUT, ROOT writing every branch at split
        level SPLIT (the reference files of the same values and layout)
    root_ttree_classes.py emulated FILE EXPR...
        without any dictionary (ROOT emulates the classes from the file's StreamerInfo),
        prints one JSON line per expression: its values entry by entry through
        TTreeFormula, the machinery of TTree::Draw ({"expr", "values": [[...], ...]}), and
        one line with the columns RDataFrame offers ({"columns": [...]})

The classes (CLASSES below) are declared in WORKDIR/RwClasses.h."""

import json
import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

CLASSES = """#pragma once
#include <string>
#include <vector>
#include <RtypesCore.h>
#include <Math/Vector3D.h>
#include <Math/Vector4D.h>
#include <TLorentzVector.h>
#include <TVector3.h>
struct RwcVec { double x = 0, y = 0, z = 0; };
struct RwcBase { int id = 0; float w = 0; };
struct RwcAll : public RwcBase {
  bool b = false; char i8 = 0; unsigned char u8 = 0; short i16 = 0; unsigned short u16 = 0;
  int i32 = 0; unsigned int u32 = 0; Long64_t i64 = 0; ULong64_t u64 = 0; float f32 = 0; double f64 = 0;
  float arr[3] = {0, 0, 0}; int mat[2][3] = {{0, 0, 0}, {0, 0, 0}};
  std::string s; std::vector<float> vf; std::vector<int> vi;
  RwcVec pos; ROOT::Math::XYZVector v3; ROOT::Math::PtEtaPhiMVector p4; TVector3 t3; TLorentzVector t4;
};
struct RwcItem {
  RwcVec p; double e = 0; int q = 0; std::string tag; std::vector<float> vals; float a2[2] = {0, 0};
  ROOT::Math::PxPyPzEVector m4; TVector3 t3;
};
struct RwcTrack { double pt = 0; int q = 0; std::vector<float> hits; RwcVec p; };
struct RwcEvt { int n = 0; std::vector<RwcTrack> tracks; std::vector<double> wts; };
"""
BRANCHES = {"all": "RwcAll", "items": "vector<RwcItem>", "derived": "vector<RwcAll>", "vecs": "vector<RwcVec>",
            "evt": "RwcEvt", "tv3": "TVector3", "tp4s": "vector<TLorentzVector>"}


def dictionary(workdir):
    ROOT.gSystem.ChangeDirectory(workdir)
    with open("RwClasses.h", "w") as header:
        header.write(CLASSES)
    ROOT.gInterpreter.GenerateDictionary("RwcVec;RwcBase;RwcAll;RwcItem;vector<RwcItem>;vector<RwcAll>;vector<RwcVec>;"
                                         "RwcTrack;vector<RwcTrack>;RwcEvt;vector<TLorentzVector>",
                                         "string;vector;RwClasses.h")
    ROOT.gInterpreter.Declare('#include "RwClasses.h"\n#include "TBufferJSON.h"')
    ROOT.gInterpreter.Declare(r'''
void rw_dump(const char *path) {
  TFile f(path); auto t = f.Get<TTree>("t");
  RwcAll *all = nullptr; std::vector<RwcItem> *items = nullptr; std::vector<RwcAll> *derived = nullptr;
  std::vector<RwcVec> *vecs = nullptr; RwcEvt *evt = nullptr; TVector3 *t3 = nullptr;
  std::vector<TLorentzVector> *t4s = nullptr;
  t->SetBranchAddress("all", &all); t->SetBranchAddress("items", &items); t->SetBranchAddress("derived", &derived);
  t->SetBranchAddress("vecs", &vecs); t->SetBranchAddress("evt", &evt); t->SetBranchAddress("tv3", &t3);
  t->SetBranchAddress("tp4s", &t4s);
  auto json = [](const void *object, const char *cls) {
    return TBufferJSON::ConvertToJSON(object, TClass::GetClass(cls), TBufferJSON::kNoSpaces);
  };
  for (Long64_t i = 0; i < t->GetEntries(); ++i) {
    t->GetEntry(i);
    const std::pair<const void *, const char *> objects[] = {
      {all, "all"}, {items, "items"}, {derived, "derived"}, {vecs, "vecs"}, {evt, "evt"}, {t3, "tv3"},
      {t4s, "tp4s"}};
    const char *classes[] = {"RwcAll", "vector<RwcItem>", "vector<RwcAll>", "vector<RwcVec>", "RwcEvt", "TVector3",
                             "vector<TLorentzVector>"};
    for (int k = 0; k < 7; ++k)
      printf("{\"file\": \"%s\", \"branch\": \"%s\", \"entry\": %lld, \"object\": %s}\n", path,
             objects[k].second, i, json(objects[k].first, classes[k]).Data());
  }
  t->ResetBranchAddresses();
  fflush(stdout);
}
void rw_rewrite(const char *in, const char *out, int split) {
  TFile fin(in); auto tin = fin.Get<TTree>("t");
  TFile fout(out, "RECREATE", "", 505); TTree tout("t", "t");
  RwcAll *all = nullptr; std::vector<RwcItem> *items = nullptr; std::vector<RwcAll> *derived = nullptr;
  std::vector<RwcVec> *vecs = nullptr; RwcEvt *evt = nullptr; TVector3 *t3 = nullptr;
  std::vector<TLorentzVector> *t4s = nullptr;
  tin->SetBranchAddress("all", &all); tin->SetBranchAddress("items", &items); tin->SetBranchAddress("derived", &derived);
  tin->SetBranchAddress("vecs", &vecs); tin->SetBranchAddress("evt", &evt); tin->SetBranchAddress("tv3", &t3);
  tin->SetBranchAddress("tp4s", &t4s);
  tout.Branch("all", &all, 32000, split); tout.Branch("items", &items, 32000, split);
  tout.Branch("vecs", &vecs, 32000, split); tout.Branch("evt", &evt, 32000, split);
  tout.Branch("tv3", &t3, 32000, split); tout.Branch("tp4s", &t4s, 32000, split);
  // ROOT 6.40 cannot split a collection of a class with a base class.
  tout.Branch("derived", &derived, 32000, 0);
  for (Long64_t i = 0; i < tin->GetEntries(); ++i) { tin->GetEntry(i); tout.Fill(); }
  fout.Write();
}''')


def dump(files):
    for path in files:
        ROOT.rw_dump(path)


def emulated(path, exprs):
    f = ROOT.TFile.Open(path)
    t = f.Get("t")
    for expr in exprs:
        formula = ROOT.TTreeFormula("f", expr, t)
        values = []
        for entry in range(t.GetEntries()):
            t.LoadTree(entry)
            formula.GetNdata()
            values.append([formula.EvalInstance(j) for j in range(formula.GetNdata())])
        print(json.dumps({"expr": expr, "values": values}))
    columns = [str(c) for c in ROOT.RDataFrame(t).GetColumnNames()]
    print(json.dumps({"columns": columns}))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "dict":
        dictionary(sys.argv[2])
        if sys.argv[3] == "dump":
            dump(sys.argv[4:])
        else:
            ROOT.rw_rewrite(sys.argv[4], sys.argv[5], int(sys.argv[6]))
    else:
        emulated(sys.argv[2], sys.argv[3:])
