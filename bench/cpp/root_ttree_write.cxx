// ROOT's side of bench/ttree_write.py: writes the `single` values of `rootweave generate`
// into a TTree with TTree::Fill, timing the fill loop and the close.
//
//   root_ttree_write single OUT ENTRIES COMPRESSION
//       one branch `x/I` = top 20 bits of successive splitmix64 draws (seed 1)
//
// Prints "rss_before_kib N" before writing and "seconds S" at the end.

#include <TFile.h>
#include <TTree.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

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

int main(int argc, char **argv)
{
   if (argc != 5 || std::string(argv[1]) != "single") {
      std::fprintf(stderr, "usage: root_ttree_write single OUT ENTRIES COMPRESSION\n");
      return 2;
   }
   const std::uint64_t entries = std::strtoull(argv[3], nullptr, 10);
   const int compression = std::atoi(argv[4]);
   print_rss();
   auto start = std::chrono::steady_clock::now();
   {
      TFile f(argv[2], "RECREATE", "", compression);
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
   double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
   std::printf("seconds %.6f\n", seconds);
   return 0;
}
