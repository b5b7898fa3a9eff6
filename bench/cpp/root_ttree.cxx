// ROOT's side of bench/ttree_read.py: writes the benchmark's TTrees with ROOT 6.40 itself,
// and reads them back with ROOT, printing how long opening the file and reading every entry
// took.
//
//   root_ttree write-int OUT ENTRIES COMPRESSION BASKET_SIZE
//   root_ttree write-nanoaod OUT EVENTS COMPRESSION BASKET_SIZE
//   root_ttree getentry|bulk|rdf FILE TREE THREADS [BRANCH...]
//
// Writing (one thread, TFile(OUT, "RECREATE", "", COMPRESSION), tree "Events", BASKET_SIZE
// bytes per basket at the start; 0 keeps ROOT's default 32000; ROOT's default auto-flush and
// basket optimisation stay on):
//   write-int      one branch `x/I`: the top 20 bits of successive splitmix64 draws (seed 1).
//   write-nanoaod  NanoAOD-like events (splitmix64, seed 7): scalars run/i, luminosityBlock/i,
//                  event/l, MET_pt/F, MET_phi/F, genWeight/D, HLT_IsoMu24/O; and three jagged
//                  collections with counter branches: nMuon/I (0-4) + Muon_pt, Muon_eta,
//                  Muon_phi, Muon_mass [nMuon]/F, Muon_charge[nMuon]/I, Muon_tightId[nMuon]/O;
//                  nJet/I (0-9) + Jet_pt, Jet_eta, Jet_btag [nJet]/F; nElectron/I (0-2) +
//                  Electron_pt, Electron_eta [nElectron]/F.
//
// Reading (no branch: every branch):
//   getentry  TTree::GetEntry entry by entry with the other branches disabled
//             (SetBranchStatus), each branch into its own buffer (SetBranchAddress); the
//             values are summed (integers into a 64-bit integer, floating-point values into a
//             double) so that none can be skipped.
//   bulk      TBranch::GetBulkRead().GetBulkEntries basket by basket (ROOT's "raw bulk" read:
//             the basket's bytes copied out and byte-swapped in place), each basket's values
//             appended to an array for the branch and summed. Fixed-size branches only.
//   rdf       RDataFrame: `Max` of each branch, an `Aggregate` of its (item) sum, and `Count`.
//
// THREADS: 1 runs without implicit multi-threading; N > 1 calls ROOT::EnableImplicitMT(N)
// before the timer starts (GetEntry then decompresses baskets of different branches in
// parallel, RDataFrame runs its event loop on N threads).
//
// Prints "root_version", "rss_start_kib", "seconds" (wall time from opening the file to the
// last value read), "entries", and checks: "sum" (integer values and counters), "fsum"
// (floating-point values, as double), "values" (values read, items for jagged branches).

#include <ROOT/RDataFrame.hxx>
#include <ROOT/RVec.hxx>
#include <RVersion.h>
#include <TBranch.h>
#include <TBufferFile.h>
#include <TFile.h>
#include <TLeaf.h>
#include <TROOT.h>
#include <TTree.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;

// A /proc/self/status value in KiB (0 if absent).
static long status_kib(const std::string &key)
{
   std::ifstream status("/proc/self/status");
   std::string line;
   while (std::getline(status, line))
      if (line.rfind(key, 0) == 0)
         return std::stol(line.substr(key.size()));
   return 0;
}

static long rss_kib()
{
   return status_kib("VmRSS:");
}

// Peak resident memory of this program (reset at exec, unlike the ru_maxrss a parent
// sees, which includes the memory of the process the child was forked from).
static long peak_rss_kib()
{
   return status_kib("VmHWM:");
}

static std::uint64_t splitmix64(std::uint64_t &state)
{
   state += 0x9e3779b97f4a7c15ULL;
   std::uint64_t z = state;
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
   return z ^ (z >> 31);
}

// A float in [low, low + width) from a draw (24 random bits).
static float uniform(std::uint64_t &state, float low, float width)
{
   return low + width * static_cast<float>(splitmix64(state) >> 40) / 16777216.0f;
}

// ---------------------------------------------------------------------------------------
// Writing

static void WriteInt(const char *out, long long entries, int compression, int basketSize)
{
   TFile f(out, "RECREATE", "", compression);
   TTree t("Events", "one int branch");
   Int_t x = 0;
   auto *b = t.Branch("x", &x, "x/I");
   if (basketSize > 0)
      b->SetBasketSize(basketSize);
   std::uint64_t state = 1;
   for (long long i = 0; i < entries; ++i) {
      x = static_cast<Int_t>(splitmix64(state) >> 44);
      t.Fill();
   }
   t.Write();
   f.Close();
}

static constexpr int kMaxMuon = 4, kMaxJet = 9, kMaxElectron = 2;

static void WriteNanoAod(const char *out, long long events, int compression, int basketSize)
{
   TFile f(out, "RECREATE", "", compression);
   TTree t("Events", "NanoAOD-like events");
   UInt_t run = 1, lumi = 1;
   ULong64_t event = 0;
   Float_t metPt, metPhi;
   Double_t genWeight;
   Bool_t hlt;
   Int_t nMuon, muCharge[kMaxMuon], nJet, nElectron;
   Float_t muPt[kMaxMuon], muEta[kMaxMuon], muPhi[kMaxMuon], muMass[kMaxMuon];
   Bool_t muTight[kMaxMuon];
   Float_t jetPt[kMaxJet], jetEta[kMaxJet], jetBtag[kMaxJet];
   Float_t elePt[kMaxElectron], eleEta[kMaxElectron];
   t.Branch("run", &run, "run/i");
   t.Branch("luminosityBlock", &lumi, "luminosityBlock/i");
   t.Branch("event", &event, "event/l");
   t.Branch("MET_pt", &metPt, "MET_pt/F");
   t.Branch("MET_phi", &metPhi, "MET_phi/F");
   t.Branch("genWeight", &genWeight, "genWeight/D");
   t.Branch("HLT_IsoMu24", &hlt, "HLT_IsoMu24/O");
   t.Branch("nMuon", &nMuon, "nMuon/I");
   t.Branch("Muon_pt", muPt, "Muon_pt[nMuon]/F");
   t.Branch("Muon_eta", muEta, "Muon_eta[nMuon]/F");
   t.Branch("Muon_phi", muPhi, "Muon_phi[nMuon]/F");
   t.Branch("Muon_mass", muMass, "Muon_mass[nMuon]/F");
   t.Branch("Muon_charge", muCharge, "Muon_charge[nMuon]/I");
   t.Branch("Muon_tightId", muTight, "Muon_tightId[nMuon]/O");
   t.Branch("nJet", &nJet, "nJet/I");
   t.Branch("Jet_pt", jetPt, "Jet_pt[nJet]/F");
   t.Branch("Jet_eta", jetEta, "Jet_eta[nJet]/F");
   t.Branch("Jet_btag", jetBtag, "Jet_btag[nJet]/F");
   t.Branch("nElectron", &nElectron, "nElectron/I");
   t.Branch("Electron_pt", elePt, "Electron_pt[nElectron]/F");
   t.Branch("Electron_eta", eleEta, "Electron_eta[nElectron]/F");
   if (basketSize > 0)
      t.SetBasketSize("*", basketSize);
   std::uint64_t s = 7;
   for (long long i = 0; i < events; ++i) {
      event = static_cast<ULong64_t>(i);
      if (i % 100000 == 0)
         ++lumi;
      metPt = uniform(s, 0, 200);
      metPhi = uniform(s, -3.14159f, 6.28318f);
      genWeight = 1.0 + (splitmix64(s) >> 60) * 0.125;
      hlt = (splitmix64(s) & 3) == 0;
      nMuon = static_cast<Int_t>(splitmix64(s) % (kMaxMuon + 1));
      for (int k = 0; k < nMuon; ++k) {
         muPt[k] = uniform(s, 3, 100);
         muEta[k] = uniform(s, -2.4f, 4.8f);
         muPhi[k] = uniform(s, -3.14159f, 6.28318f);
         muMass[k] = 0.105658f;
         muCharge[k] = (splitmix64(s) & 1) ? 1 : -1;
         muTight[k] = (splitmix64(s) & 1) != 0;
      }
      nJet = static_cast<Int_t>(splitmix64(s) % (kMaxJet + 1));
      for (int k = 0; k < nJet; ++k) {
         jetPt[k] = uniform(s, 15, 300);
         jetEta[k] = uniform(s, -4.7f, 9.4f);
         jetBtag[k] = uniform(s, 0, 1);
      }
      nElectron = static_cast<Int_t>(splitmix64(s) % (kMaxElectron + 1));
      for (int k = 0; k < nElectron; ++k) {
         elePt[k] = uniform(s, 5, 150);
         eleEta[k] = uniform(s, -2.5f, 5.0f);
      }
      t.Fill();
   }
   t.Write();
   f.Close();
}

// ---------------------------------------------------------------------------------------
// Reading

struct Result {
   std::uint64_t entries = 0, values = 0;
   long long sum = 0;
   double fsum = 0;
};

// One branch of a plain leaf type, read into its own buffer.
struct Column {
   std::string name, type;
   TLeaf *leaf = nullptr;
   std::vector<double> buffer; // 8-byte aligned storage for any leaf type
   bool jagged = false;
};

static std::vector<std::string> BranchNames(TTree *t, const std::vector<std::string> &fields)
{
   if (!fields.empty())
      return fields;
   std::vector<std::string> names;
   for (auto *o : *t->GetListOfBranches())
      names.push_back(o->GetName());
   return names;
}

// Adds a leaf's `n` values in `p` to the sums.
static void Accumulate(const std::string &type, const void *p, Long64_t n, Result &r)
{
   r.values += n;
   auto ints = [&](auto *v) {
      for (Long64_t i = 0; i < n; ++i)
         r.sum += static_cast<long long>(v[i]);
   };
   auto floats = [&](auto *v) {
      for (Long64_t i = 0; i < n; ++i)
         r.fsum += v[i];
   };
   if (type == "Int_t")
      ints(static_cast<const Int_t *>(p));
   else if (type == "UInt_t")
      ints(static_cast<const UInt_t *>(p));
   else if (type == "Long64_t")
      ints(static_cast<const Long64_t *>(p));
   else if (type == "ULong64_t")
      ints(static_cast<const ULong64_t *>(p));
   else if (type == "Bool_t")
      ints(static_cast<const Bool_t *>(p));
   else if (type == "Float_t")
      floats(static_cast<const Float_t *>(p));
   else if (type == "Double_t")
      floats(static_cast<const Double_t *>(p));
   else
      throw std::runtime_error("unsupported leaf type " + type);
}

static Result ReadGetEntry(TTree *t, const std::vector<std::string> &fields)
{
   Result r;
   auto names = BranchNames(t, fields);
   t->SetBranchStatus("*", false);
   std::vector<Column> cols(names.size());
   for (std::size_t i = 0; i < names.size(); ++i) {
      auto &c = cols[i];
      c.name = names[i];
      auto *b = t->GetBranch(c.name.c_str());
      if (!b)
         throw std::runtime_error("no branch " + c.name);
      c.leaf = static_cast<TLeaf *>(b->GetListOfLeaves()->At(0));
      c.type = c.leaf->GetTypeName();
      auto *count = c.leaf->GetLeafCount();
      c.jagged = count != nullptr;
      const Long64_t n = c.leaf->GetLenStatic() * (count ? std::max(1, count->GetMaximum()) : 1);
      c.buffer.resize(n + 1);
      t->SetBranchStatus(c.name.c_str(), true);
      if (count)
         t->SetBranchStatus(count->GetBranch()->GetName(), true);
      t->SetBranchAddress(c.name.c_str(), static_cast<void *>(c.buffer.data()));
   }
   const Long64_t n = t->GetEntries();
   for (Long64_t e = 0; e < n; ++e) {
      t->GetEntry(e);
      for (auto &c : cols)
         Accumulate(c.type, c.buffer.data(), c.jagged ? c.leaf->GetLen() : c.leaf->GetLenStatic(), r);
   }
   r.entries = n;
   return r;
}

static Result ReadBulk(TTree *t, const std::vector<std::string> &fields)
{
   Result r;
   const Long64_t n = t->GetEntries();
   for (const auto &name : BranchNames(t, fields)) {
      auto *b = t->GetBranch(name.c_str());
      if (!b)
         throw std::runtime_error("no branch " + name);
      auto *leaf = static_cast<TLeaf *>(b->GetListOfLeaves()->At(0));
      if (leaf->GetLeafCount() || leaf->GetLenStatic() != 1)
         throw std::runtime_error("bulk: fixed-size scalar branches only (" + name + ")");
      const std::string type = leaf->GetTypeName();
      const int size = leaf->GetLenType();
      std::vector<char> out(static_cast<std::size_t>(n) * size);
      TBufferFile buf(TBuffer::kWrite, 32 * 1024);
      Long64_t done = 0;
      while (done < n) {
         const Int_t count = b->GetBulkRead().GetBulkEntries(done, buf);
         if (count <= 0)
            throw std::runtime_error("bulk read failed at entry " + std::to_string(done));
         const Long64_t take = std::min<Long64_t>(count, n - done);
         std::memcpy(out.data() + done * size, buf.GetCurrent(), take * size);
         done += take;
      }
      Accumulate(type, out.data(), n, r);
   }
   r.entries = n;
   return r;
}

static Result ReadRdf(const std::string &file, const std::vector<std::string> &fields, TTree *t)
{
   Result r;
   ROOT::RDataFrame df("Events", file);
   auto names = BranchNames(t, fields);
   auto count = df.Count();
   std::uint64_t scalars = 0;
   std::vector<ROOT::RDF::RResultPtr<long long>> isums;
   std::vector<ROOT::RDF::RResultPtr<double>> fsums;
   std::vector<ROOT::RDF::RResultPtr<unsigned long long>> sizes;
   std::vector<ROOT::RDF::RResultPtr<double>> maxes;
   for (const auto &name : names) {
      const std::string type = df.GetColumnType(name);
      maxes.push_back(df.Max(name));
      auto addInts = [&](auto tag) {
         using T = decltype(tag);
         ++scalars;
         isums.push_back(df.Aggregate([](long long a, T v) { return a + static_cast<long long>(v); },
                                      [](long long a, long long b) { return a + b; }, name, 0LL));
      };
      auto addVec = [&](auto tag, bool isFloat) {
         using T = decltype(tag);
         using V = ROOT::RVec<T>;
         sizes.push_back(df.Aggregate([](unsigned long long a, const V &v) { return a + v.size(); },
                                      [](unsigned long long a, unsigned long long b) { return a + b; }, name,
                                      0ULL));
         if (isFloat)
            fsums.push_back(df.Aggregate(
               [](double a, const V &v) {
                  for (auto x : v)
                     a += x;
                  return a;
               },
               [](double a, double b) { return a + b; }, name, 0.0));
         else
            isums.push_back(df.Aggregate(
               [](long long a, const V &v) {
                  for (auto x : v)
                     a += static_cast<long long>(x);
                  return a;
               },
               [](long long a, long long b) { return a + b; }, name, 0LL));
      };
      if (type == "Int_t")
         addInts(Int_t{});
      else if (type == "UInt_t")
         addInts(UInt_t{});
      else if (type == "ULong64_t")
         addInts(ULong64_t{});
      else if (type == "Bool_t")
         addInts(Bool_t{});
      else if (type == "Float_t" && ++scalars)
         fsums.push_back(df.Aggregate([](double a, Float_t v) { return a + v; },
                                      [](double a, double b) { return a + b; }, name, 0.0));
      else if (type == "Double_t" && ++scalars)
         fsums.push_back(df.Aggregate([](double a, Double_t v) { return a + v; },
                                      [](double a, double b) { return a + b; }, name, 0.0));
      else if (type == "ROOT::VecOps::RVec<Float_t>")
         addVec(Float_t{}, true);
      else if (type == "ROOT::VecOps::RVec<Int_t>")
         addVec(Int_t{}, false);
      else if (type == "ROOT::VecOps::RVec<Bool_t>")
         addVec(Bool_t{}, false);
      else
         throw std::runtime_error("rdf: unsupported column type " + type + " of " + name);
   }
   r.entries = *count;
   r.values = scalars * r.entries;
   for (auto &s : isums)
      r.sum += *s;
   for (auto &s : fsums)
      r.fsum += *s;
   for (auto &s : sizes)
      r.values += *s;
   for (auto &m : maxes)
      (void)*m;
   return r;
}

int main(int argc, char **argv)
{
   if (argc >= 6 && (std::string(argv[1]) == "write-int" || std::string(argv[1]) == "write-nanoaod")) {
      const auto start = Clock::now();
      if (std::string(argv[1]) == "write-int")
         WriteInt(argv[2], std::stoll(argv[3]), std::stoi(argv[4]), std::stoi(argv[5]));
      else
         WriteNanoAod(argv[2], std::stoll(argv[3]), std::stoi(argv[4]), std::stoi(argv[5]));
      std::printf("seconds %.6f\n", std::chrono::duration<double>(Clock::now() - start).count());
      return 0;
   }
   if (argc < 5) {
      std::fprintf(stderr, "usage: root_ttree write-int|write-nanoaod OUT N COMPRESSION BASKET_SIZE\n"
                           "       root_ttree getentry|bulk|rdf FILE TREE THREADS [BRANCH...]\n");
      return 2;
   }
   const std::string method = argv[1], file = argv[2], tree = argv[3];
   const unsigned threads = static_cast<unsigned>(std::stoul(argv[4]));
   std::vector<std::string> fields(argv + 5, argv + argc);
   if (threads > 1)
      ROOT::EnableImplicitMT(threads);
   std::printf("root_version %s\n", ROOT_RELEASE);
   std::printf("rss_start_kib %ld\n", rss_kib());
   std::fflush(stdout);
   try {
      const auto start = Clock::now();
      std::unique_ptr<TFile> f(TFile::Open(file.c_str()));
      if (!f || f->IsZombie())
         throw std::runtime_error("cannot open " + file);
      auto *t = f->Get<TTree>(tree.c_str());
      if (!t)
         throw std::runtime_error("no tree " + tree);
      Result r;
      if (method == "getentry")
         r = ReadGetEntry(t, fields);
      else if (method == "bulk")
         r = ReadBulk(t, fields);
      else if (method == "rdf")
         r = ReadRdf(file, fields, t);
      else
         throw std::runtime_error("unknown method " + method);
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      std::printf("seconds %.6f\n", seconds);
      std::printf("entries %llu\n", static_cast<unsigned long long>(r.entries));
      std::printf("sum %lld\n", r.sum);
      std::printf("fsum %.17g\n", r.fsum);
      std::printf("values %llu\n", static_cast<unsigned long long>(r.values));
      std::printf("peak_rss_kib %ld\n", peak_rss_kib());
   } catch (const std::exception &e) {
      std::fprintf(stderr, "root_ttree: %s\n", e.what());
      return 1;
   }
   return 0;
}
