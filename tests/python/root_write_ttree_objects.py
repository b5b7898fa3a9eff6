"""Writes one ROOT file with a TTree of objects and type names that other TTree zoos do
not cover, for the object reading of test_ttree_objects.py. Run as a child process:

    python root_write_ttree_objects.py OUT ENTRIES

Branches: vectors of unsigned and fixed-width integer types (spelled with spaces and
typedefs), an `unsigned long` leaf; ranged Double32_t / Float16_t arrays (fixed,
counted, two-dimensional) and a char* leaf; TLorentzVector, TVector3 and TVector2 split
and unsplit, std::vector<TLorentzVector>, a TClonesArray of TLorentzVector, TDatime,
std::map, std::set, ROOT::RVec, std::bitset and TMatrixTSym (alone, split or not, and in
a vector). Entry e holds values computed from e (see below). A second tree, "partial", has branches filled for fewer entries than the
tree. A third, "user", holds a user class (`RwUser`, its dictionary built here) whose members
are of ROOT's classes (TDatime, TString, TNamed, TLorentzVector, std::vector<TVector3>), split
and unsplit. A fourth, "tracks", a split std::vector<RwTrack> whose items hold a
std::vector<RwHit> (streamed memberwise).
"""

import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

ROOT.gSystem.ChangeDirectory(sys.argv[3] if len(sys.argv) > 3 else ".")
with open("RwUser.h", "w") as header:
    header.write("""#pragma once
#include <TDatime.h>
#include <TLorentzVector.h>
#include <TNamed.h>
#include <TString.h>
#include <TVector3.h>
#include <vector>
struct RwUser {
  int n = 0;
  TDatime when;
  TString label;
  TNamed tag;
  TLorentzVector p4;
  std::vector<TVector3> hits;
  double weight = 0;
};
struct RwHit { int ch = 0; double e = 0; std::string tag; std::vector<float> w; };
struct RwTrack { float pt = 0; std::vector<RwHit> hits; };
""")
# Collection proxies for the STL types without a dictionary in ROOT's libraries, and the
# user class: one dictionary for all (each dictionary is a compiler run).
ROOT.gInterpreter.GenerateDictionary(
    "map<int,double>;map<string,int>;set<int>;vector<signed char>;bitset<12>;"
    "vector<TMatrixTSym<double> >;vector<TLorentzVector>;RwUser;vector<TVector3>;RwHit;RwTrack;vector<RwHit>;"
    "vector<RwTrack>",
    "map;string;set;vector;bitset;TMatrixTSym.h;TLorentzVector.h;RwUser.h;TVector3.h")

ROOT.gInterpreter.Declare(r'''
#include <TFile.h>
#include <TTree.h>
#include <TLorentzVector.h>
#include <TVector3.h>
#include <TVector2.h>
#include <TDatime.h>
#include <TClonesArray.h>
#include <TMatrixTSym.h>
#include <ROOT/RVec.hxx>
#include <deque>
#include <list>
#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>
#include <bitset>
#include <cstdint>
#include "RwUser.h"

void rw_write_objects(const char *path, Long64_t entries) {
  TFile f(path, "RECREATE", "", 505);
  TTree t("objs", "objects and type names");
  t.SetAutoFlush(300);
  std::vector<unsigned char> vuc; std::vector<unsigned short> vus;
  std::vector<unsigned int> vui; std::vector<unsigned long> vul;
  std::vector<int8_t> vi8; std::vector<uint16_t> vu16; std::vector<uint32_t> vu32;
  ULong_t ul;
  Double32_t d32a[3]; Int_t n; Float16_t f16v[8]; Double32_t d32m[2][3];
  char text[32];
  TLorentzVector *p4 = new TLorentzVector(), *p4u = new TLorentzVector();
  TVector3 *v3 = new TVector3(), *v3u = new TVector3();
  TVector2 *v2 = new TVector2();
  std::vector<TLorentzVector> vp4;
  TClonesArray *cp4 = new TClonesArray("TLorentzVector");
  TDatime *when = new TDatime();
  std::map<int, double> mid; std::map<std::string, int> msi; std::set<int> si;
  ROOT::RVecF rv;
  std::bitset<12> bits;
  TMatrixTSym<double> *sym = new TMatrixTSym<double>(3);
  std::vector<TMatrixTSym<double>> vsym;
  t.Branch("vuc", &vuc); t.Branch("vus", &vus); t.Branch("vui", &vui); t.Branch("vul", &vul);
  t.Branch("vi8", &vi8); t.Branch("vu16", &vu16); t.Branch("vu32", &vu32);
  t.Branch("ul", &ul, "ul/l");
  t.Branch("d32a", d32a, "d32a[3]/d[0,10,12]");
  t.Branch("n", &n, "n/I");
  t.Branch("f16v", f16v, "f16v[n]/f[-5,5,10]");
  t.Branch("d32m", d32m, "d32m[2][3]/d[-1,1,16]");
  t.Branch("text", text, "text/C");
  t.Branch("p4", &p4, 32000, 99);
  t.Branch("p4u", &p4u, 32000, 0);
  t.Branch("v3", &v3, 32000, 99);
  t.Branch("v3u", &v3u, 32000, 0);
  t.Branch("v2", &v2, 32000, 0);
  t.Branch("vp4", &vp4, 32000, 0);
  t.Branch("cp4", &cp4, 32000, 99);
  t.Branch("when", &when, 32000, 0);
  t.Branch("mid", &mid); t.Branch("msi", &msi); t.Branch("si", &si);
  t.Branch("rv", &rv);
  t.Branch("bits", &bits);
  t.Branch("sym", &sym, 32000, 99);
  t.Branch("sym0", &sym, 32000, 0);
  t.Branch("vsym", &vsym);
  for (Long64_t e = 0; e < entries; ++e) {
    int k = int(e % 4);
    vuc.assign(k, (unsigned char)(200 + k)); vus.assign(k, (unsigned short)(60000 + e % 1000));
    vui.assign(k, 4000000000u + unsigned(e)); vul.assign(k, 18000000000000000000ul + e);
    vi8.assign(k, int8_t(-100 + k)); vu16.assign(k, uint16_t(e % 65536)); vu32.assign(k, uint32_t(e * 3));
    ul = 18000000000000000000ul + e;
    for (int i = 0; i < 3; ++i) d32a[i] = (e % 100) * 0.1 + i;
    n = k; for (int i = 0; i < n; ++i) f16v[i] = -4.0f + 0.5f * i + (e % 7) * 0.25f;
    for (int i = 0; i < 2; ++i) for (int j = 0; j < 3; ++j) d32m[i][j] = -0.9 + 0.1 * (i * 3 + j) + (e % 5) * 0.01;
    snprintf(text, sizeof(text), "entry %lld", (long long)e);
    p4->SetPxPyPzE(e * 0.5, -e * 0.25, e * 2.0, e * 3.0 + 1);
    *p4u = *p4;
    v3->SetXYZ(e, e + 1, e + 2); *v3u = *v3;
    v2->Set(e * 0.5, -1.0 * e);
    vp4.clear(); cp4->Clear();
    for (int i = 0; i < k; ++i) {
      vp4.emplace_back(i, e, -i, e + i);
      new ((*cp4)[i]) TLorentzVector(e, i, 0, e + i);
    }
    when->Set(2020, 1 + e % 12, 1 + e % 28, e % 24, e % 60, 0);
    mid.clear(); msi.clear(); si.clear();
    for (int i = 0; i < k; ++i) {
      mid[i * 10 + int(e % 10)] = e * 0.5 + i;
      msi["key" + std::to_string(e + i)] = int(e) - i;
      si.insert(int(e) * 2 + i);
    }
    rv.resize(k); for (int i = 0; i < k; ++i) rv[i] = e + 0.125f * i;
    bits = std::bitset<12>((unsigned long)(e * 37 % 4096));
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j) (*sym)(i, j) = (*sym)(j, i) = 10.0 * e + 3 * i + j;
    vsym.assign(k, TMatrixTSym<double>(2));
    for (int i = 0; i < k; ++i) { vsym[i](0, 0) = e; vsym[i](0, 1) = vsym[i](1, 0) = i; vsym[i](1, 1) = -e; }
    t.Fill();
  }
  t.Write();
  // Standard collections besides vectors and sets of ints (ROOT's own collection proxies).
  TTree c("colls", "sets, lists and deques of numbers and strings");
  std::multiset<float> msf; std::unordered_set<int> usi; std::list<double> ld;
  std::deque<short> ds; std::set<long> sl; std::set<int> sic; std::set<std::string> ss;
  c.Branch("si", &sic); c.Branch("ss", &ss); c.Branch("msf", &msf); c.Branch("usi", &usi); c.Branch("ld", &ld); c.Branch("ds", &ds);
  c.Branch("sl", &sl);
  for (Long64_t e = 0; e < entries; ++e) {
    int k = int(e % 4);
    msf.clear(); usi.clear(); ld.clear(); ds.clear(); sl.clear(); sic.clear(); ss.clear();
    for (int i = 0; i < k; ++i) {
      sic.insert(int(e % 5) - 2 * i); ss.insert("s" + std::to_string((e + 3 * i) % 10));
      msf.insert(0.5f * (e % 3)); usi.insert(int(e) + 7 * i); ld.push_back(e - 0.25 * i);
      ds.push_front(short(-e - i)); sl.insert(1000000000000L * i - e);
    }
    c.Fill();
  }
  c.Write();
  // Branches added after the first entries: "late" filled for 4 of them, "never" not at all.
  TTree p("partial", "branches filled for fewer entries than the tree");
  Int_t a, late, never;
  p.Branch("a", &a, "a/I");
  for (a = 0; a < 10; ++a) p.Fill();
  TBranch *lb = p.Branch("late", &late, "late/I");
  p.Branch("never", &never, "never/I");
  for (late = 0; late < 28; late += 7) lb->Fill();
  p.Write();
  TTree u("user", "a user class with members of ROOT's classes");
  RwUser *user = new RwUser();
  u.Branch("split", &user, 32000, 99);
  u.Branch("whole", &user, 32000, 0);
  for (Long64_t e = 0; e < entries; ++e) {
    user->n = int(e);
    user->when.Set(2020 + e % 5, 1 + e % 12, 1 + e % 28, e % 24, e % 60, (e * 7) % 60);
    user->label = TString::Format("event %lld", (long long)e);
    user->tag.SetName(TString::Format("tag%lld", (long long)e));
    user->tag.SetTitle("title");
    user->p4.SetPxPyPzE(e, -e, 0.5 * e, 2.0 * e + 1);
    user->hits.clear();
    for (int k = 0; k < e % 3; ++k) user->hits.emplace_back(k, e, -k);
    user->weight = 0.25 * e;
    u.Fill();
  }
  u.Write();
  // A split collection whose items hold a vector of objects: ROOT streams those memberwise.
  TTree tt("tracks", "a vector of objects in the items of a split collection");
  std::vector<RwTrack> tracks;
  auto *tracks_address = &tracks;
  tt.Branch("tracks", &tracks_address, 32000, 99);
  for (Long64_t e = 0; e < entries; ++e) {
    tracks.clear();
    for (int k = 0; k < e % 3; ++k) {
      RwTrack track;
      track.pt = e + 0.5f * k;
      for (int h = 0; h < (e + k) % 4; ++h) {
        RwHit hit;
        hit.ch = int(100 * e + 10 * k + h);
        hit.e = 0.25 * hit.ch;
        hit.tag = "h" + std::to_string(hit.ch);
        hit.w.assign(h, 0.5f * h);
        track.hits.push_back(hit);
      }
      tracks.push_back(track);
    }
    tt.Fill();
  }
  tt.Write();
  f.Close();
}
''')
ROOT.rw_write_objects(sys.argv[1], int(sys.argv[2]))
