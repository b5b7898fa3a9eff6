"""Writes TTrees with CERN ROOT's own TTree, for the TTree reader's tests. Run as a
child process (ROOT starts once for all files):

    python root_write_ttree.py OUT1 COMPRESSION1 ENTRIES1 [OUT2 COMPRESSION2 ENTRIES2 ...]

Small baskets (2000 bytes) and clusters of 1000 entries give many baskets and clusters.
The values are functions of the entry number; test_ttree_read.py computes the same.
"""

import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

from rw_hit import RW_HIT  # noqa: E402

ROOT.gInterpreter.Declare(RW_HIT)

ROOT.gInterpreter.Declare(r'''
#include <TFile.h>
#include <TTree.h>
#include <cstdint>
#include <string>
#include <vector>

void rw_write_ttree(const char *path, int compression, Long64_t n) {
  TFile f(path, "RECREATE", "", compression);
  TTree t("t", "written by ROOT for rootweave");
  t.SetAutoFlush(1000);
  Bool_t b; Char_t i8; UChar_t u8; Short_t i16; UShort_t u16; Int_t i32; UInt_t u32;
  Long64_t i64; ULong64_t u64; Float_t fl; Double_t db;
  struct { Double_t b; Int_t a; Short_t c; } ll;
  Float_t arr[3]; Int_t m[2][3];
  Int_t cnt = 0; Double_t jag[10];
  char cstr[64];
  std::vector<float> v; std::vector<std::vector<double>> vv; std::string s;
  std::vector<std::string> vs;
  Int_t vn = 0; Float_t vx[8]; Short_t vm[8][2]; Double_t vq; Double_t ex[10]; UChar_t ek;
  RwHit hit;
  const int bs = 2000;
  t.Branch("b", &b, "b/O", bs);
  t.Branch("i8", &i8, "i8/B", bs);
  t.Branch("u8", &u8, "u8/b", bs);
  t.Branch("i16", &i16, "i16/S", bs);
  t.Branch("u16", &u16, "u16/s", bs);
  t.Branch("i32", &i32, "i32/I", bs);
  t.Branch("u32", &u32, "u32/i", bs);
  t.Branch("i64", &i64, "i64/L", bs);
  t.Branch("u64", &u64, "u64/l", bs);
  t.Branch("f", &fl, "f/F", bs);
  t.Branch("d", &db, "d/D", bs);
  t.Branch("ll", &ll, "b/D:a/I:c/S", bs);
  t.Branch("arr", arr, "arr[3]/F", bs);
  t.Branch("m", m, "m[2][3]/I", bs);
  t.Branch("cnt", &cnt, "cnt/I", bs);
  t.Branch("jag", jag, "jag[cnt]/D", bs);
  t.Branch("cstr", cstr, "cstr/C", bs);
  t.Branch("v", &v, bs);
  t.Branch("vv", &vv, bs);
  t.Branch("s", &s, bs);
  t.Branch("vs", &vs, bs);
  t.Branch("hit.", &hit, bs, 99);
  // Leaf lists with variable-size leaves, counted by a leaf of the list and by `cnt`;
  // ROOT gives the leaves after a variable-size one no room, so each gets its own address.
  t.Branch("vl", &vn, "vn/I:vx[vn]/F:vm[vn][2]/S:vq/D", bs);
  t.GetBranch("vl")->GetLeaf("vx")->SetAddress(vx);
  t.GetBranch("vl")->GetLeaf("vm")->SetAddress(vm);
  t.GetBranch("vl")->GetLeaf("vq")->SetAddress(&vq);
  t.Branch("el", ex, "ex[cnt]/D:ek/b", bs);
  t.GetBranch("el")->GetLeaf("ek")->SetAddress(&ek);
  for (Long64_t e = 0; e < n; ++e) {
    b = e % 3 == 0; i8 = Char_t(e % 256 - 128); u8 = UChar_t(e % 256);
    i16 = Short_t(e * 37 % 65536 - 32768); u16 = UShort_t(e * 37 % 65536);
    i32 = Int_t(e * 7919) - 1000000; u32 = UInt_t(e * 2654435761ULL);
    i64 = e * 1000000007LL - 5000000000LL; u64 = ULong64_t(e) * 0x9E3779B97F4A7C15ULL;
    fl = float(e) * 0.25f - 100.f; db = double(e) / 7.0;
    ll.a = Int_t(e) - 7; ll.b = double(e) * 0.5; ll.c = Short_t(e % 100);
    for (int k = 0; k < 3; ++k) arr[k] = float(e) + 0.5f * k;
    for (int r = 0; r < 2; ++r) for (int c = 0; c < 3; ++c) m[r][c] = Int_t(e) * 10 + r * 3 + c;
    cnt = Int_t(e % 4); for (int k = 0; k < cnt; ++k) jag[k] = double(e) + k / 8.0;
    snprintf(cstr, sizeof(cstr), "c%lld", (long long)(e % 1000));
    v.clear(); for (Long64_t j = 0; j < e % 5; ++j) v.push_back(float(j) + 0.5f * float(e % 11));
    vv.clear(); for (Long64_t j = 0; j < e % 3; ++j) { vv.emplace_back(); for (Long64_t k = 0; k < j + e % 2; ++k) vv.back().push_back(double(e) * 1000 + j * 10 + k - 5000); }
    s = "s" + std::to_string(e * 13 % 1000);
    vs.clear(); for (Long64_t j = 0; j < e % 3; ++j) vs.push_back("x" + std::to_string(e + j));
    hit.e = float(e) * 0.5f; hit.id = Int_t(e % 50) - 25; hit.q = double(e % 64) * 1.5625;
    hit.r = double(e) * 0.5; hit.h = float(e % 16) * 0.25f; hit.hr = -1.f + float(e % 8) * 0.25f;
    hit.w.clear(); for (Long64_t j = 0; j < e % 4; ++j) hit.w.push_back(float(j) * 2.f);
    vn = Int_t(e % 5); vq = double(e) * 1.5 - 3;
    for (int k = 0; k < vn; ++k) { vx[k] = float(e) + 0.25f * k; vm[k][0] = Short_t(e % 3000 * 3 + k * 2 - 100); vm[k][1] = Short_t(-k); }
    for (int k = 0; k < cnt; ++k) ex[k] = double(e) * 0.5 + k;
    ek = UChar_t(e % 200);
    t.Fill();
  }
  t.Write();
  TDirectory *sub = f.mkdir("sub");
  sub->cd();
  TTree inner("inner", "a tree in a subdirectory");
  Int_t x;
  inner.Branch("x", &x, "x/I");
  for (x = 0; x < 10; ++x) inner.Fill();
  inner.Write();
  f.Close();
}
''')
for path, comp, n in zip(sys.argv[1::3], sys.argv[2::3], sys.argv[3::3]):
    ROOT.rw_write_ttree(path, int(comp), int(n))
