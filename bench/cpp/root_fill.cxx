// ROOT's side of bench/fill.py: a weighted 100-bin histogram of one branch over a dataset,
// with RDataFrame's Histo1D (compiled column types, no just-in-time code).
//
//   root_fill THREADS TREE FIELD WEIGHT jagged|flat FILE...
//
// Prints `seconds` (building the data frame to the filled histogram), `entries`, `sum`
// (the sum of weights in range), `mean` and `peak_rss_kib`.
#include <ROOT/RDataFrame.hxx>
#include <ROOT/RVec.hxx>
#include <TH1D.h>
#include <TROOT.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

static long peak_rss_kib()
{
   std::ifstream status("/proc/self/status");
   std::string line;
   while (std::getline(status, line))
      if (line.rfind("VmHWM:", 0) == 0)
         return std::stol(line.substr(6));
   return 0;
}

int main(int argc, char **argv)
{
   if (argc < 7) {
      std::fprintf(stderr, "usage: root_fill THREADS TREE FIELD WEIGHT jagged|flat FILE...\n");
      return 2;
   }
   const unsigned threads = std::stoul(argv[1]);
   const std::string tree = argv[2], field = argv[3], weight = argv[4], shape = argv[5];
   std::vector<std::string> files(argv + 6, argv + argc);
   if (threads > 1)
      ROOT::EnableImplicitMT(threads);
   const auto start = std::chrono::steady_clock::now();
   ROOT::RDataFrame df(tree, files);
   const ROOT::RDF::TH1DModel model("h", "", 100, 0, 200);
   auto h = shape == "jagged" ? df.Histo1D<ROOT::RVecF, float>(model, field, weight)
                              : df.Histo1D<float, float>(model, field, weight);
   const double sum = h->GetSumOfWeights();
   const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
   std::printf("seconds %.6f\nentries %.0f\nsum %.17g\nmean %.17g\npeak_rss_kib %ld\n", seconds, h->GetEntries(), sum,
               h->GetMean(), peak_rss_kib());
   return 0;
}
