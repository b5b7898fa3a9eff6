"""Writes job outputs with CERN ROOT, as a batch production leaves them for hadd: a
NanoAOD-like tree `Events`, histograms of every merged class (some weighted, one with
variable bins, some in a subdirectory), a profile, and a `TNamed`. Run as a child process:

    python root_write_jobs.py OUT COMPRESSION ENTRIES SEED XBINS [OUT ...]

XBINS (50 for all but one test) sets the bins of `h1f`, to make inputs of different
binning.
"""

import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

ROOT.gInterpreter.Declare(r'''
#include <TFile.h>
#include <TTree.h>
#include <TH1.h>
#include <TH2.h>
#include <TH3.h>
#include <TProfile.h>
#include <TProfile2D.h>
#include <TNamed.h>
#include <TRandom3.h>
void rw_write_job(const char *path, int compression, Long64_t n, int seed, int xbins) {
  TH1::AddDirectory(false);
  TFile f(path, "RECREATE", "", compression);
  TRandom3 rng(seed);
  TTree t("Events", "job output");
  UInt_t run = 1; ULong64_t event; Int_t nMuon; Float_t pt[20], eta[20]; Int_t charge[20];
  Float_t met; Bool_t trig;
  t.Branch("run", &run, "run/i");
  t.Branch("event", &event, "event/l");
  t.Branch("nMuon", &nMuon, "nMuon/I");
  t.Branch("Muon_pt", pt, "Muon_pt[nMuon]/F");
  t.Branch("Muon_eta", eta, "Muon_eta[nMuon]/F");
  t.Branch("Muon_charge", charge, "Muon_charge[nMuon]/I");
  t.Branch("MET_pt", &met, "MET_pt/F");
  t.Branch("HLT_IsoMu24", &trig, "HLT_IsoMu24/O");
  TH1F h1f("h1f", "muon pt", xbins, 0, 200);
  TH1D h1d("h1d", "met, weighted", 40, 0, 400); h1d.Sumw2();
  TH1I h1i("h1i", "muons", 10, 0, 10);
  TH1S h1s("h1s", "charge", 3, -1.5, 1.5);
  TH1C h1c("h1c", "trigger", 2, 0, 2);
  double edges[] = {0, 10, 20, 35, 60, 100, 200};
  TH1D hvar("hvar", "variable bins", 6, edges);
  TH2F h2f("h2f", "pt vs eta", 20, 0, 200, 10, -2.5, 2.5);
  TH2D h2d("h2d", "weighted pt vs eta", 20, 0, 200, 10, -2.5, 2.5); h2d.Sumw2();
  TH3F h3f("h3f", "pt eta charge", 10, 0, 200, 5, -2.5, 2.5, 2, -1.5, 1.5);
  TProfile prof("prof", "met vs muons", 10, 0, 10);
  TProfile2D prof2("prof2", "met vs pt eta", 10, 0, 200, 5, -2.5, 2.5);
  for (Long64_t e = 0; e < n; ++e) {
    event = ULong64_t(seed) * 1000000 + e;
    nMuon = rng.Poisson(1.5); if (nMuon > 20) nMuon = 20;
    met = rng.Exp(40.); trig = rng.Uniform() < 0.3;
    double w = rng.Gaus(1.0, 0.2);
    for (int i = 0; i < nMuon; ++i) {
      pt[i] = rng.Exp(30.); eta[i] = rng.Uniform(-2.5, 2.5); charge[i] = rng.Uniform() < 0.5 ? -1 : 1;
      h1f.Fill(pt[i]); h2f.Fill(pt[i], eta[i]); h2d.Fill(pt[i], eta[i], w);
      h3f.Fill(pt[i], eta[i], charge[i]); h1s.Fill(charge[i]); prof2.Fill(pt[i], eta[i], met);
    }
    h1d.Fill(met, w); h1i.Fill(nMuon); h1c.Fill(trig); hvar.Fill(met); prof.Fill(nMuon, met);
    t.Fill();
  }
  t.Write();
  for (TH1 *h : std::initializer_list<TH1*>{&h1f, &h1d, &h1i, &h1s, &h1c, &h2f, &prof}) h->Write();
  TDirectory *plots = f.mkdir("plots");
  plots->cd();
  for (TH1 *h : std::initializer_list<TH1*>{&hvar, &h2d, &h3f, &prof2}) h->Write();
  f.cd();
  TNamed info("info", Form("job %d", seed));
  info.Write();
  f.Close();
}
''')
args = sys.argv[1:]
for i in range(0, len(args), 5):
    out, comp, n, seed, xbins = args[i], *map(int, args[i + 1:i + 5])
    ROOT.rw_write_job(out, comp, n, seed, xbins)
