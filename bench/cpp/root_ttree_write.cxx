// ROOT's side of bench/ttree_write.py: TTree::Fill on the values of `rootweave generate`.
//
//   root_ttree_write single OUT ENTRIES COMPRESSION
//       writes one branch `x/I` = top 20 bits of successive splitmix64 draws (seed 1), timing
//       the fill loop and the close.
//   root_ttree_write clone IN OUT COMPRESSION
//       copies the tree `Events` of IN (written by rootweave) into OUT: the output tree is
//       `CloneTree(0)` of the input in a new file with compression COMPRESSION, ROOT's default
//       basket size (32000 bytes) and auto-flush. One untimed loop of `GetEntry` warms up,
//       a second loop times `GetEntry` alone (the read), a third one `GetEntry` and `Fill`
//       followed by `Write` and the close; the fill time is the third minus the second.
//
// Prints "rss_before_kib N" before writing and "seconds S" (the writing time) at the end; clone
// also prints "read_seconds R" (the second loop) and "read_fill_seconds T" (the third one).

#include <TFile.h>
#include <TTree.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

using Clock = std::chrono::steady_clock;

static double since(Clock::time_point start)
{
   return std::chrono::duration<double>(Clock::now() - start).count();
}

static std::uint64_t splitmix64(std::uint64_t &state)
{
   state += 0x9E3779B97F4A7C15ULL;
   std::uint64_t z = state;
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
   return z ^ (z >> 31);
}

static void print_rss()
{
   std::ifstream status("/proc/self/status");
   std::string line;
   while (std::getline(status, line))
      if (line.rfind("VmRSS:", 0) == 0)
         std::printf("rss_before_kib %s\n", line.substr(6).c_str());
   std::fflush(stdout);
}

static int single(const char *out, std::uint64_t entries, int compression)
{
   print_rss();
   auto start = Clock::now();
   {
      TFile f(out, "RECREATE", "", compression);
      TTree t("Events", "");
      Int_t x = 0;
      t.Branch("x", &x, "x/I");
      std::uint64_t state = 1;
      for (std::uint64_t i = 0; i < entries; ++i) {
         x = static_cast<Int_t>(splitmix64(state) >> 44);
         t.Fill();
      }
      t.Write();
   }
   std::printf("seconds %.6f\n", since(start));
   return 0;
}

// Reads every entry of `in` once; returns the seconds.
static double read_all(TTree *in)
{
   auto start = Clock::now();
   const Long64_t entries = in->GetEntries();
   for (Long64_t i = 0; i < entries; ++i)
      in->GetEntry(i);
   return since(start);
}

static int clone(const char *in_path, const char *out_path, int compression)
{
   std::unique_ptr<TFile> in_file(TFile::Open(in_path, "READ"));
   TTree *in = in_file ? in_file->Get<TTree>("Events") : nullptr;
   if (!in) {
      std::fprintf(stderr, "no TTree Events in %s\n", in_path);
      return 1;
   }
   const Long64_t entries = in->GetEntries();
   print_rss();
   read_all(in); // warm-up
   const double read = read_all(in);
   auto start = Clock::now();
   auto out_file = std::make_unique<TFile>(out_path, "RECREATE", "", compression);
   TTree *out = in->CloneTree(0);
   out->SetBasketSize("*", 32000);
   out->SetAutoFlush(-30000000);
   for (Long64_t i = 0; i < entries; ++i) {
      in->GetEntry(i);
      out->Fill();
   }
   out->Write();
   out_file->Close();
   const double read_fill = since(start);
   std::printf("read_seconds %.6f\nread_fill_seconds %.6f\nseconds %.6f\n", read, read_fill, read_fill - read);
   return 0;
}

int main(int argc, char **argv)
{
   const std::string mode = argc > 1 ? argv[1] : "";
   if (argc == 5 && mode == "single")
      return single(argv[2], std::strtoull(argv[3], nullptr, 10), std::atoi(argv[4]));
   if (argc == 5 && mode == "clone")
      return clone(argv[2], argv[3], std::atoi(argv[4]));
   std::fprintf(stderr, "usage: root_ttree_write single OUT ENTRIES COMPRESSION\n"
                        "       root_ttree_write clone IN OUT COMPRESSION\n");
   return 2;
}
