"""Writes N job outputs with CERN ROOT for bench/merge.py's case (d): each a NanoAOD-like
tree `Events` (muons, jets, electrons as counted arrays, MET, weights, trigger bits) and 50
histograms (TH1F, TH1D with weights, TH2F), zlib level 1 as TFile writes by default. Run as a
child process:

    python bench/merge_jobs.py OUT_DIR JOBS EVENTS
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
#include <TRandom3.h>
#include <vector>
void rw_merge_job(const char *path, int seed, Long64_t n) {
  TH1::AddDirectory(false);
  TFile f(path, "RECREATE");
  TRandom3 rng(seed);
  TTree t("Events", "job output");
  UInt_t run = 1, lumi; ULong64_t event; Float_t met, metphi, w;
  Int_t nMuon, nJet, nEle; Float_t mpt[16], meta[16], mphi[16], mmass[16]; Int_t mq[16];
  Float_t jpt[32], jeta[32], jphi[32], jmass[32], jb[32]; Float_t ept[8], eeta[8], ephi[8];
  Bool_t hlt[5];
  t.Branch("run", &run, "run/i"); t.Branch("luminosityBlock", &lumi, "luminosityBlock/i");
  t.Branch("event", &event, "event/l"); t.Branch("genWeight", &w, "genWeight/F");
  t.Branch("MET_pt", &met, "MET_pt/F"); t.Branch("MET_phi", &metphi, "MET_phi/F");
  t.Branch("nMuon", &nMuon, "nMuon/I");
  t.Branch("Muon_pt", mpt, "Muon_pt[nMuon]/F"); t.Branch("Muon_eta", meta, "Muon_eta[nMuon]/F");
  t.Branch("Muon_phi", mphi, "Muon_phi[nMuon]/F"); t.Branch("Muon_mass", mmass, "Muon_mass[nMuon]/F");
  t.Branch("Muon_charge", mq, "Muon_charge[nMuon]/I");
  t.Branch("nJet", &nJet, "nJet/I");
  t.Branch("Jet_pt", jpt, "Jet_pt[nJet]/F"); t.Branch("Jet_eta", jeta, "Jet_eta[nJet]/F");
  t.Branch("Jet_phi", jphi, "Jet_phi[nJet]/F"); t.Branch("Jet_mass", jmass, "Jet_mass[nJet]/F");
  t.Branch("Jet_btag", jb, "Jet_btag[nJet]/F");
  t.Branch("nElectron", &nEle, "nElectron/I");
  t.Branch("Electron_pt", ept, "Electron_pt[nElectron]/F");
  t.Branch("Electron_eta", eeta, "Electron_eta[nElectron]/F");
  t.Branch("Electron_phi", ephi, "Electron_phi[nElectron]/F");
  for (int k = 0; k < 5; ++k) t.Branch(Form("HLT_path%d", k), &hlt[k], Form("HLT_path%d/O", k));
  std::vector<TH1*> hists;
  for (int k = 0; k < 20; ++k) hists.push_back(new TH1F(Form("h1f_%d", k), "pt", 100, 0, 200));
  for (int k = 0; k < 20; ++k) { auto *h = new TH1D(Form("h1d_%d", k), "met", 80, 0, 400); h->Sumw2(); hists.push_back(h); }
  for (int k = 0; k < 10; ++k) hists.push_back(new TH2F(Form("h2f_%d", k), "pt eta", 50, 0, 200, 24, -2.4, 2.4));
  for (Long64_t e = 0; e < n; ++e) {
    event = ULong64_t(seed) * 100000000ULL + e; lumi = 1 + e / 2000;
    w = rng.Gaus(1, 0.1); met = rng.Exp(30); metphi = rng.Uniform(-3.14159, 3.14159);
    nMuon = rng.Integer(4); nJet = rng.Integer(9); nEle = rng.Integer(3);
    for (int i = 0; i < nMuon; ++i) { mpt[i] = 3 + rng.Exp(20); meta[i] = rng.Gaus(0, 1.2); mphi[i] = rng.Uniform(-3.14, 3.14); mmass[i] = 0.1057f; mq[i] = rng.Integer(2) * 2 - 1; }
    for (int i = 0; i < nJet; ++i) { jpt[i] = 15 + rng.Exp(40); jeta[i] = rng.Gaus(0, 2); jphi[i] = rng.Uniform(-3.14, 3.14); jmass[i] = rng.Exp(10); jb[i] = rng.Uniform(); }
    for (int i = 0; i < nEle; ++i) { ept[i] = 5 + rng.Exp(15); eeta[i] = rng.Gaus(0, 1.2); ephi[i] = rng.Uniform(-3.14, 3.14); }
    for (int k = 0; k < 5; ++k) hlt[k] = rng.Uniform() < 0.3;
    t.Fill();
    for (int k = 0; k < 20; ++k) if (nJet > k % 8) hists[k]->Fill(jpt[k % 8]);
    for (int k = 20; k < 40; ++k) hists[k]->Fill(met * (1 + 0.01 * (k - 20)), w);
    for (int k = 40; k < 50; ++k) if (nMuon > 0) ((TH2F*)hists[k])->Fill(mpt[0], meta[0]);
  }
  t.Write();
  for (auto *h : hists) { h->Write(); delete h; }
  f.Close();
}
''')
out, jobs, events = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for j in range(jobs):
    ROOT.rw_merge_job(f"{out}/job{j:04d}.root", j + 1, events)
