// ROOT's side of bench/rntuple_write.py: writes the same values as rootweave with ROOT's
// RNTupleWriter, timing only the writing (input preparation is excluded).
//
//   root_write int32 OUT ENTRIES COMPRESSION
//       one std::int32_t field `x` = top 20 bits of successive splitmix64 draws (seed 1)
//   root_write nanoaod OUT DUMP_DIR COMPRESSION
//       the NanoAOD-like data of `rootweave generate`, read from the canonical buffers that
//       `rootweave-testkit nanoaod --expect DUMP_DIR` wrote. ROOT needs a dictionary for a
//       collection of records, so `Muon` becomes six std::vector fields (same values).
//
// Prints one line: "seconds <wall time of the fill loop and close>".

#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
#include <ROOT/RNTupleWriter.hxx>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

static std::uint64_t splitmix64(std::uint64_t &state)
{
   state += 0x9E3779B97F4A7C15ULL;
   std::uint64_t z = state;
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
   return z ^ (z >> 31);
}

template <typename T>
static std::vector<T> load(const std::string &dir, const std::string &path)
{
   std::ifstream in(dir + "/" + path + ".bin", std::ios::binary | std::ios::ate);
   if (!in)
      throw std::runtime_error("cannot read " + dir + "/" + path + ".bin");
   std::vector<T> v(static_cast<std::size_t>(in.tellg()) / sizeof(T));
   in.seekg(0);
   in.read(reinterpret_cast<char *>(v.data()), v.size() * sizeof(T));
   return v;
}

// Resident memory in KiB, printed before writing so that input data can be subtracted.
static void print_rss()
{
   std::ifstream status("/proc/self/status");
   std::string line;
   while (std::getline(status, line))
      if (line.rfind("VmRSS:", 0) == 0)
         std::printf("rss_before_kib %s\n", line.substr(6).c_str());
   std::fflush(stdout);
}

static ROOT::RNTupleWriteOptions options(int compression)
{
   ROOT::RNTupleWriteOptions o;
   o.SetCompression(compression);
   return o;
}

static double int32(const char *out, std::uint64_t entries, int compression)
{
   auto model = ROOT::RNTupleModel::Create();
   auto x = model->MakeField<std::int32_t>("x");
   std::uint64_t state = 1;
   print_rss();
   auto start = std::chrono::steady_clock::now();
   {
      auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "ntpl", out, options(compression));
      for (std::uint64_t i = 0; i < entries; ++i) {
         *x = static_cast<std::int32_t>(splitmix64(state) >> 44);
         writer->Fill();
      }
   }
   return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <typename T>
static void assign(std::vector<T> &dst, const std::vector<T> &src, std::uint64_t begin, std::uint64_t n)
{
   dst.assign(src.begin() + begin, src.begin() + begin + n);
}

static double nanoaod(const char *out, const std::string &dir, int compression)
{
   auto run = load<std::uint32_t>(dir, "run");
   auto lumi = load<std::uint32_t>(dir, "luminosityBlock");
   auto event = load<std::uint64_t>(dir, "event");
   auto metPt = load<float>(dir, "MET_pt");
   auto metPhi = load<float>(dir, "MET_phi");
   auto genWeight = load<double>(dir, "genWeight");
   auto hlt = load<std::uint8_t>(dir, "HLT_IsoMu24");
   auto nMuon = load<std::uint64_t>(dir, "Muon#counts");
   auto muPt = load<float>(dir, "Muon._0.Muon_pt");
   auto muEta = load<float>(dir, "Muon._0.Muon_eta");
   auto muPhi = load<float>(dir, "Muon._0.Muon_phi");
   auto muMass = load<float>(dir, "Muon._0.Muon_mass");
   auto muCharge = load<std::int32_t>(dir, "Muon._0.Muon_charge");
   auto muTight = load<std::uint8_t>(dir, "Muon._0.Muon_tightId");
   auto nJet = load<std::uint64_t>(dir, "Jet_pt#counts");
   auto jetPt = load<float>(dir, "Jet_pt._0");
   auto jetEta = load<float>(dir, "Jet_eta._0");
   auto jetBtag = load<float>(dir, "Jet_btag._0");
   auto nEle = load<std::uint64_t>(dir, "Electron_pt#counts");
   auto elePt = load<float>(dir, "Electron_pt._0");
   auto nTrack = load<std::uint64_t>(dir, "Track_hits#counts");
   auto nHit = load<std::uint64_t>(dir, "Track_hits._0#counts");
   auto hits = load<std::int32_t>(dir, "Track_hits._0._0");
   auto beam = load<float>(dir, "beamSpot._0");
   auto dsLen = load<std::uint64_t>(dir, "dataset#counts");
   auto dsBytes = load<char>(dir, "dataset#bytes");

   auto model = ROOT::RNTupleModel::Create();
   auto fRun = model->MakeField<std::uint32_t>("run");
   auto fLumi = model->MakeField<std::uint32_t>("luminosityBlock");
   auto fEvent = model->MakeField<std::uint64_t>("event");
   auto fMetPt = model->MakeField<float>("MET_pt");
   auto fMetPhi = model->MakeField<float>("MET_phi");
   auto fGenWeight = model->MakeField<double>("genWeight");
   auto fHlt = model->MakeField<bool>("HLT_IsoMu24");
   auto fMuPt = model->MakeField<std::vector<float>>("Muon_pt");
   auto fMuEta = model->MakeField<std::vector<float>>("Muon_eta");
   auto fMuPhi = model->MakeField<std::vector<float>>("Muon_phi");
   auto fMuMass = model->MakeField<std::vector<float>>("Muon_mass");
   auto fMuCharge = model->MakeField<std::vector<std::int32_t>>("Muon_charge");
   auto fMuTight = model->MakeField<std::vector<bool>>("Muon_tightId");
   auto fJetPt = model->MakeField<std::vector<float>>("Jet_pt");
   auto fJetEta = model->MakeField<std::vector<float>>("Jet_eta");
   auto fJetBtag = model->MakeField<std::vector<float>>("Jet_btag");
   auto fElePt = model->MakeField<std::vector<float>>("Electron_pt");
   auto fTracks = model->MakeField<std::vector<std::vector<std::int32_t>>>("Track_hits");
   auto fBeam = model->MakeField<std::array<float, 3>>("beamSpot");
   auto fDataset = model->MakeField<std::string>("dataset");

   print_rss();
   auto start = std::chrono::steady_clock::now();
   {
      auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "Events", out, options(compression));
      std::uint64_t mu = 0, jet = 0, ele = 0, track = 0, hit = 0, ds = 0;
      for (std::size_t i = 0; i < run.size(); ++i) {
         *fRun = run[i];
         *fLumi = lumi[i];
         *fEvent = event[i];
         *fMetPt = metPt[i];
         *fMetPhi = metPhi[i];
         *fGenWeight = genWeight[i];
         *fHlt = hlt[i] != 0;
         assign(*fMuPt, muPt, mu, nMuon[i]);
         assign(*fMuEta, muEta, mu, nMuon[i]);
         assign(*fMuPhi, muPhi, mu, nMuon[i]);
         assign(*fMuMass, muMass, mu, nMuon[i]);
         assign(*fMuCharge, muCharge, mu, nMuon[i]);
         fMuTight->assign(muTight.begin() + mu, muTight.begin() + mu + nMuon[i]);
         mu += nMuon[i];
         assign(*fJetPt, jetPt, jet, nJet[i]);
         assign(*fJetEta, jetEta, jet, nJet[i]);
         assign(*fJetBtag, jetBtag, jet, nJet[i]);
         jet += nJet[i];
         assign(*fElePt, elePt, ele, nEle[i]);
         ele += nEle[i];
         fTracks->resize(nTrack[i]);
         for (std::uint64_t t = 0; t < nTrack[i]; ++t, ++track) {
            assign((*fTracks)[t], hits, hit, nHit[track]);
            hit += nHit[track];
         }
         *fBeam = {beam[3 * i], beam[3 * i + 1], beam[3 * i + 2]};
         fDataset->assign(dsBytes.data() + ds, dsLen[i]);
         ds += dsLen[i];
         writer->Fill();
      }
   }
   return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int main(int argc, char **argv)
{
   if (argc != 5) {
      std::cerr << "usage: root_write int32 OUT ENTRIES COMPRESSION | nanoaod OUT DUMP_DIR COMPRESSION\n";
      return 2;
   }
   const std::string mode = argv[1];
   const int compression = std::stoi(argv[4]);
   double seconds = mode == "int32" ? int32(argv[2], std::stoull(argv[3]), compression)
                                    : nanoaod(argv[2], argv[3], compression);
   std::printf("seconds %.6f\n", seconds);
   return 0;
}
