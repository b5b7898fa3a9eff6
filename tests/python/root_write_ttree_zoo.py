"""Writes one ROOT file with TTrees of many shapes that root_write_ttree.py does not
cover, for the TTree reader's generic comparison with uproot (test_ttree_zoo.py). Run as a
child process:

    python root_write_ttree_zoo.py OUT COMPRESSION ENTRIES

Shapes: a split TClonesArray of a class, a split std::vector of a class (with fixed-size
array, Double32_t, vector, std::string and TString members), a split class with a base
class, a nested class, a char array, a counted pointer array (`//[n]`), TString and
std::string members; vector<bool>, counter-indexed arrays with fixed inner dimensions, counters of byte and
short width, Bool_t arrays, `Long_t` leaves, ranged Float16_t/Double32_t leaves,
TString and std::array branches, unsplit objects (split level 0), a TNtuple and a
TNtupleD, a tree written twice (cycles 1 and 2, the second with more entries), an empty
tree, a tree whose basket size grows, and a tree of 1200 branches.
"""

import sys
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

TYPES = r'''
#ifndef ZOO_TYPES_H
#define ZOO_TYPES_H
#include <TObject.h>
#include <TString.h>
#include <string>
#include <vector>

class ZTrack : public TObject {
public:
  Float_t px = 0, py = 0;
  Int_t nhit = 0;
  Double32_t chi2 = 0; //[0,50,14]
  Short_t q = 0;
  Float_t cov[3] = {0, 0, 0};
  ClassDef(ZTrack, 1)
};

struct ZHit {
  float e = 0;
  int id = 0;
  float pos[3] = {0, 0, 0};
  Double32_t t = 0;
  bool good = false;
  std::vector<int> cells;
  std::string name;
  TString tname;
};

struct ZBase {
  int base_id = 0;
  double base_w = 0;
};

struct ZInner {
  float a = 0;
  short b = 0;
};

struct ZEvent : public ZBase {
  unsigned int run = 0;
  Long64_t evt = 0;
  ZInner inner;
  char tag[8] = {0};
  int n = 0;
  double *vals = nullptr; //[n]
  TString title;
  std::string label;
  std::vector<std::vector<int>> groups;
  unsigned char flags[2] = {0, 0};
  std::vector<std::string> names;
  std::vector<short> shorts;
};

#ifdef __ROOTCLING__
#pragma link C++ class ZTrack+;
#pragma link C++ class ZHit+;
#pragma link C++ class std::vector<ZHit>+;
#pragma link C++ class ZBase+;
#pragma link C++ class ZInner+;
#pragma link C++ class ZEvent+;
#endif
#endif
'''

# The classes need compiled dictionaries (a std::vector of a class has no collection proxy
# otherwise): ACLiC builds them next to the output file.
out = Path(sys.argv[1]).resolve()
types_h = out.parent / "zoo_types.h"
types_h.write_text(TYPES)
ROOT.gSystem.ChangeDirectory(str(out.parent))
if ROOT.gROOT.ProcessLine(f".L {types_h}+") != 0 and not hasattr(ROOT, "ZEvent"):
    sys.exit("could not build the dictionaries of zoo_types.h")

ROOT.gInterpreter.Declare(r'''
#include "zoo_types.h"
#include <TFile.h>
#include <TTree.h>
#include <TNtuple.h>
#include <TNtupleD.h>
#include <TClonesArray.h>
#include <TString.h>
#include <array>
#include <string>
#include <vector>

void rw_write_zoo(const char *path, int compression, Long64_t entries) {
  TFile f(path, "RECREATE", "", compression);
  const int bs = 4000;

  TTree t("zoo", "shapes");
  t.SetAutoFlush(700);
  TClonesArray *tracks = new TClonesArray("ZTrack");
  std::vector<ZHit> hits;
  ZEvent ev;
  ev.vals = new double[16];
  std::vector<bool> vb;
  UChar_t nb; Float_t jb[20][2];
  Short_t ns; Long64_t js[20];
  Bool_t flags[4];
  Long_t lg; ULong_t ulg;
  Float16_t f16; Double32_t d32;
  Float16_t f16a[2];
  TString ts;
  std::array<float, 3> sa;
  ZInner whole;
  std::vector<float> unsplit_v;
  t.Branch("tracks", &tracks, bs, 99);
  t.Branch("hits", &hits, bs, 99);
  t.Branch("ev", &ev, bs, 99);
  t.Branch("vb", &vb, bs);
  t.Branch("nb", &nb, "nb/b", bs);
  t.Branch("jb", jb, "jb[nb][2]/F", bs);
  t.Branch("ns", &ns, "ns/S", bs);
  t.Branch("js", js, "js[ns]/L", bs);
  t.Branch("flags", flags, "flags[4]/O", bs);
  t.Branch("lg", &lg, "lg/G", bs);
  t.Branch("ulg", &ulg, "ulg/g", bs);
  t.Branch("f16", &f16, "f16/f[-10,10,12]", bs);
  t.Branch("d32", &d32, "d32/d[0,1000,20]", bs);
  t.Branch("f16a", f16a, "f16a[2]/f", bs);
  t.Branch("ts", &ts, bs);
  t.Branch("sa", &sa, bs);
  t.Branch("whole", &whole, bs, 0);
  t.Branch("unsplit_v", &unsplit_v, bs, 0);

  for (Long64_t e = 0; e < entries; ++e) {
    tracks->Clear();
    int ntr = int(e % 4);
    for (int k = 0; k < ntr; ++k) {
      ZTrack *tr = (ZTrack *)tracks->ConstructedAt(k);
      tr->px = float(e) + 0.25f * k; tr->py = -float(k); tr->nhit = int(e % 7) + k;
      tr->chi2 = double((e + k) % 50); tr->q = Short_t(k % 2 ? -1 : 1);
      for (int c = 0; c < 3; ++c) tr->cov[c] = float(c * 10 + k);
    }
    hits.clear();
    for (int k = 0; k < int(e % 3); ++k) {
      ZHit h; h.e = float(e) * 0.5f + k; h.id = int(e * 3 + k);
      for (int c = 0; c < 3; ++c) h.pos[c] = float(e % 100) + 0.125f * c;
      h.t = double(e) / 8.0; h.good = (e + k) % 2 == 0;
      for (int c = 0; c < k + 1; ++c) h.cells.push_back(int(e % 17) * 100 + c);
      h.name = "h" + std::to_string(e % 23 + k); h.tname = TString::Format("T%d", int(e % 9) + k);
      hits.push_back(h);
    }
    ev.base_id = int(e % 5); ev.base_w = double(e) * 0.75;
    ev.run = unsigned(1 + e / 1000); ev.evt = e * 11;
    ev.inner.a = float(e) * 0.5f; ev.inner.b = short(e % 300 - 150);
    snprintf(ev.tag, sizeof(ev.tag), "t%d", int(e % 99));
    ev.n = int(e % 5); for (int k = 0; k < ev.n; ++k) ev.vals[k] = double(e) + k * 0.5;
    ev.title = TString::Format("title %lld", (long long)(e % 13));
    ev.label = std::string("label-") + std::to_string(e % 7);
    ev.groups.clear();
    for (int g = 0; g < int(e % 3); ++g) { ev.groups.emplace_back(); for (int c = 0; c <= g; ++c) ev.groups.back().push_back(int(e) + g * 10 + c); }
    ev.flags[0] = (unsigned char)(e % 256); ev.flags[1] = (unsigned char)(255 - e % 256);
    ev.names.clear(); for (int k = 0; k < int(e % 4); ++k) ev.names.push_back("n" + std::to_string(e + k));
    ev.shorts.assign(size_t(e % 3), short(e % 1000 - 500));
    vb.clear(); for (int k = 0; k < int(e % 5); ++k) vb.push_back((e + k) % 3 == 0);
    nb = UChar_t(e % 6); for (int k = 0; k < nb; ++k) { jb[k][0] = float(e) + k; jb[k][1] = -float(k); }
    ns = Short_t(e % 4); for (int k = 0; k < ns; ++k) js[k] = e * 1000000000LL + k;
    for (int k = 0; k < 4; ++k) flags[k] = (e >> k) & 1;
    lg = Long_t(e) * -3; ulg = ULong_t(e) * 5;
    f16 = float(e % 80) * 0.25f - 10.f; d32 = double(e % 1000);
    f16a[0] = float(e % 32) * 0.5f; f16a[1] = -float(e % 16);
    ts = TString::Format("ts%lld", (long long)(e * 7 % 1000));
    sa = {float(e), float(e) * 2.f, float(e) * 3.f};
    whole.a = float(e) + 0.5f; whole.b = short(e % 100);
    unsplit_v.assign(size_t(e % 3), float(e));
    t.Fill();
  }
  t.Write();

  TNtuple nt("nt", "a TNtuple", "x:y:z");
  TNtupleD ntd("ntd", "a TNtupleD", "u:v");
  for (Long64_t e = 0; e < entries; ++e) {
    nt.Fill(float(e), float(e) * 0.5f, -float(e));
    ntd.Fill(double(e) / 3.0, double(e) * 1e10);
  }
  nt.Write();
  ntd.Write();

  // Two cycles: readers take the highest (cycle 2, with every entry).
  TTree cyc("cyc", "two cycles");
  Int_t c;
  cyc.Branch("c", &c, "c/I");
  for (c = 0; c < 10; ++c) cyc.Fill();
  cyc.Write();
  for (c = 10; c < 25; ++c) cyc.Fill();
  cyc.Write();

  TTree empty("empty", "no entries");
  Int_t ei; std::vector<double> ev2;
  empty.Branch("ei", &ei, "ei/I");
  empty.Branch("ev2", &ev2);
  empty.Write();

  // Baskets of growing size (ROOT's basket-size optimisation on flush).
  TTree grow("grow", "growing baskets");
  grow.SetAutoFlush(-30000);
  Double_t gx; std::vector<int> gv;
  grow.Branch("gx", &gx, "gx/D", 1000);
  grow.Branch("gv", &gv, 1000);
  for (Long64_t e = 0; e < entries * 4; ++e) {
    gx = double(e) * 1.5; gv.assign(size_t(e % 6), int(e));
    grow.Fill();
  }
  grow.Write();

  // Many branches: 1200 floats.
  TTree wide("wide", "1200 branches");
  std::vector<Float_t> wv(1200);
  for (int b = 0; b < 1200; ++b) wide.Branch(TString::Format("w%d", b), &wv[b], TString::Format("w%d/F", b));
  for (Long64_t e = 0; e < 40; ++e) { for (int b = 0; b < 1200; ++b) wv[b] = float(e * 10000 + b); wide.Fill(); }
  wide.Write();
  f.Close();
}
''')
ROOT.rw_write_zoo(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
