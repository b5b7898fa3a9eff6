// ROOT's side of bench/rntuple_read.py: reads an RNTuple with ROOT 6.40 and prints how long
// opening it and reading every entry took.
//
//   root_read METHOD FILE[,FILE...] NTUPLE THREADS [FIELD...]
//
// Several files (comma-separated) are read one after the other by views and bulk reads, and
// as one dataset by RDataFrame.
//
// METHOD:
//   view  RNTupleReader views, entry by entry. A `std::int32_t` field is copied into an array
//         (and summed); a collection spec `COLLECTION:ITEM` (e.g. `Muon:Muon._0.Muon_pt`,
//         `Jet_pt:Jet_pt._0`) is read through RNTupleCollectionView::GetCollectionRange and a
//         view of the float items into values + offsets arrays. Without fields: every field
//         of the default model, with RNTupleReader::LoadEntry for every entry (into the
//         entry's objects; nothing is accumulated into arrays).
//   bulk  The same arrays, filled cluster by cluster with RBulkValues::ReadBulk (for
//         collections: the offsets from the collection view, the items in bulk).
//   rdf   RDataFrame on the RNTuple: for an int32 field, Max and a sum (an Aggregate into a
//         64-bit integer, since Sum<std::int32_t> sums into 32 bits); for a collection
//         (given by its RDataFrame column name, e.g. `Muon.Muon_pt`), Max and an Aggregate
//         of the item sum into a double; without fields, a ForeachSlot over every column.
//
// THREADS: 1 runs without implicit multi-threading; N > 1 calls ROOT::EnableImplicitMT(N)
// before the timer starts (views and bulk reads then decompress pages in parallel,
// RDataFrame runs its event loop on N threads).
//
// Prints "root_version", "rss_start_kib" (resident memory before the read), "seconds" (wall
// time from opening the file to the last value read), "entries", and checks: "sum" (exact
// integer sum for an int32 field), "values" (items of the collections read), "fsum" (sum of
// the float items, as double).

#include <ROOT/RDataFrame.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleView.hxx>
#include <ROOT/RVec.hxx>
#include <RVersion.h>
#include <TROOT.h>

#include <algorithm>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
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

struct Result {
   std::uint64_t entries = 0;
   bool hasSum = false;
   long long sum = 0;
   std::uint64_t values = 0;
   double fsum = 0;
   bool hasFloat = false;
};

// A collection spec "COLLECTION:ITEM".
struct Spec {
   std::string collection, item;
   bool isCollection = false;
   std::string name;
};

static Spec parse(const std::string &s)
{
   Spec spec;
   spec.name = s;
   auto colon = s.find(':');
   if (colon != std::string::npos) {
      spec.isCollection = true;
      spec.collection = s.substr(0, colon);
      spec.item = s.substr(colon + 1);
   }
   return spec;
}

// Values + offsets of one collection of floats.
struct Jagged {
   std::vector<float> values;
   std::vector<std::uint64_t> offsets;
};

// ---------------------------------------------------------------------------------------
// RNTupleReader views

static Result ReadViews(const std::string &file, const std::string &ntuple, const std::vector<Spec> &specs,
                        bool bulk)
{
   Result r;
   auto reader = ROOT::RNTupleReader::Open(ntuple, file);
   const auto n = reader->GetNEntries();
   r.entries = n;
   if (specs.empty()) {
      if (bulk)
         throw std::runtime_error("bulk reading of all fields is not supported here");
      // Every field of the model made from the on-disk schema, entry by entry.
      auto eventPtr = reader->GetModel().GetDefaultEntry().GetPtr<std::uint64_t>("event");
      std::uint64_t sum = 0;
      for (auto i : reader->GetEntryRange()) {
         reader->LoadEntry(i);
         sum += *eventPtr;
      }
      r.hasSum = true;
      r.sum = static_cast<long long>(sum);
      return r;
   }
   // Cluster boundaries (entry order), for the bulk reads.
   std::vector<std::pair<ROOT::DescriptorId_t, std::uint64_t>> clusters; // id, entries
   if (bulk) {
      const auto &desc = reader->GetDescriptor();
      std::vector<std::tuple<std::uint64_t, ROOT::DescriptorId_t, std::uint64_t>> byEntry;
      for (const auto &cd : desc.GetClusterIterable())
         byEntry.emplace_back(cd.GetFirstEntryIndex(), cd.GetId(), cd.GetNEntries());
      std::sort(byEntry.begin(), byEntry.end());
      for (auto [first, id, count] : byEntry)
         if (count > 0)
            clusters.emplace_back(id, count);
   }
   for (const auto &spec : specs) {
      if (!spec.isCollection) {
         // One std::int32_t field into an array.
         std::unique_ptr<std::int32_t[]> out(new std::int32_t[n]);
         long long sum = 0;
         auto view = reader->GetView<std::int32_t>(spec.name);
         if (!bulk) {
            for (std::uint64_t i = 0; i < n; ++i) {
               const std::int32_t v = view(i);
               out[i] = v;
               sum += v;
            }
         } else {
            auto values = view.CreateBulk();
            std::uint64_t at = 0;
            for (auto [id, count] : clusters) {
               auto *p = static_cast<const std::int32_t *>(values.ReadBulk(ROOT::RNTupleLocalRange(id, 0, count)));
               std::memcpy(out.get() + at, p, count * sizeof(std::int32_t));
               for (std::uint64_t k = 0; k < count; ++k)
                  sum += out[at + k];
               at += count;
            }
         }
         r.hasSum = true;
         r.sum += sum;
         continue;
      }
      // A collection of floats into values + offsets.
      Jagged j;
      j.offsets.reserve(n + 1);
      j.offsets.push_back(0);
      auto coll = reader->GetCollectionView(spec.collection);
      auto items = reader->GetView<float>(spec.item);
      double fsum = 0;
      if (!bulk) {
         for (std::uint64_t i = 0; i < n; ++i) {
            for (auto k : coll.GetCollectionRange(i)) {
               const float v = items(k);
               j.values.push_back(v);
               fsum += v;
            }
            j.offsets.push_back(j.values.size());
         }
      } else {
         auto values = items.CreateBulk();
         std::uint64_t e = 0;
         for (auto [id, count] : clusters) {
            // Items of the cluster's entries: one local range in the item column's cluster.
            ROOT::DescriptorId_t itemCluster = id;
            std::uint64_t first = 0, end = 0;
            bool any = false;
            for (std::uint64_t k = 0; k < count; ++k) {
               auto range = coll.GetCollectionRange(e + k);
               if (range.size() > 0) {
                  auto b = *range.begin();
                  if (!any) {
                     itemCluster = b.GetClusterId();
                     first = b.GetIndexInCluster();
                     any = true;
                  }
                  end = b.GetIndexInCluster() + range.size();
               }
               j.offsets.push_back(j.offsets.back() + range.size());
            }
            e += count;
            if (!any)
               continue;
            const auto size = end - first;
            auto *p = static_cast<const float *>(
               values.ReadBulk(ROOT::RNTupleLocalIndex(itemCluster, first), nullptr, size));
            const auto at = j.values.size();
            j.values.resize(at + size);
            std::memcpy(j.values.data() + at, p, size * sizeof(float));
            for (std::uint64_t k = 0; k < size; ++k)
               fsum += p[k];
         }
      }
      if (j.offsets.back() != j.values.size())
         throw std::runtime_error("offsets do not end at the number of items for " + spec.name);
      r.values += j.values.size();
      r.fsum += fsum;
      r.hasFloat = true;
   }
   return r;
}

// ---------------------------------------------------------------------------------------
// RDataFrame

static Result ReadRdf(const std::vector<std::string> &files, const std::string &ntuple,
                      const std::vector<std::string> &fields, unsigned threads)
{
   using ROOT::RVecF;
   using RVecI = ROOT::RVec<std::int32_t>;
   using RVecB = ROOT::RVec<bool>;
   Result r;
   ROOT::RDataFrame df(ntuple, files);
   if (fields.empty()) {
      // Every column, each event; per-slot accumulators so that no value can be skipped.
      struct alignas(64) Acc {
         std::uint64_t event = 0, items = 0, entries = 0;
      };
      std::vector<Acc> acc(std::max(1u, threads));
      df.ForeachSlot(
         [&acc](unsigned slot, std::uint32_t run, std::uint32_t lumi, std::uint64_t event, float metPt, float metPhi,
                double weight, bool hlt, const RVecF &muPt, const RVecF &muEta, const RVecF &muPhi,
                const RVecF &muMass, const RVecI &muCharge, const RVecB &muTight, const RVecF &jetPt,
                const RVecF &jetEta, const RVecF &jetBtag, const RVecF &elePt,
                const ROOT::RVec<RVecI> &hits, const RVecF &beamSpot, const std::string &dataset) {
            auto &a = acc[slot];
            a.entries++;
            a.event += event + run + lumi + hlt + static_cast<std::uint64_t>(metPt + metPhi + weight);
            a.items += muPt.size() + muEta.size() + muPhi.size() + muMass.size() + muCharge.size() + muTight.size() +
                       jetPt.size() + jetEta.size() + jetBtag.size() + elePt.size() + hits.size() +
                       beamSpot.size() + dataset.size();
            for (const auto &t : hits)
               a.items += t.size();
         },
         {"run", "luminosityBlock", "event", "MET_pt", "MET_phi", "genWeight", "HLT_IsoMu24", "Muon.Muon_pt",
          "Muon.Muon_eta", "Muon.Muon_phi", "Muon.Muon_mass", "Muon.Muon_charge", "Muon.Muon_tightId", "Jet_pt",
          "Jet_eta", "Jet_btag", "Electron_pt", "Track_hits", "beamSpot", "dataset"});
      for (const auto &a : acc) {
         r.entries += a.entries;
         r.sum += static_cast<long long>(a.event);
         r.values += a.items;
      }
      r.hasSum = false;
      return r;
   }
   auto count = df.Count();
   const bool int32 = df.GetColumnType(fields[0]) == "std::int32_t";
   if (int32) {
      if (fields.size() != 1)
         throw std::runtime_error("rdf: one int32 field at a time");
      auto sum = df.Aggregate([](long long a, std::int32_t v) { return a + v; },
                              [](long long a, long long b) { return a + b; }, fields[0], 0LL);
      auto max = df.Max<std::int32_t>(fields[0]);
      r.sum = *sum;
      r.hasSum = true;
      (void)*max;
   } else {
      std::vector<ROOT::RDF::RResultPtr<double>> sums;
      std::vector<ROOT::RDF::RResultPtr<float>> maxes;
      std::vector<ROOT::RDF::RResultPtr<unsigned long long>> sizes;
      for (const auto &f : fields) {
         sums.push_back(df.Aggregate(
            [](double a, const RVecF &v) {
               for (float x : v)
                  a += x;
               return a;
            },
            [](double a, double b) { return a + b; }, f, 0.0));
         sizes.push_back(df.Aggregate([](unsigned long long a, const RVecF &v) { return a + v.size(); },
                                      [](unsigned long long a, unsigned long long b) { return a + b; }, f, 0ULL));
         maxes.push_back(df.Max<RVecF>(f));
      }
      for (std::size_t i = 0; i < fields.size(); ++i) {
         r.fsum += *sums[i];
         r.values += *sizes[i];
         (void)*maxes[i];
      }
      r.hasFloat = true;
   }
   r.entries = *count;
   return r;
}

int main(int argc, char **argv)
{
   if (argc < 5) {
      std::fprintf(stderr, "usage: root_read view|bulk|rdf FILE NTUPLE THREADS [FIELD...]\n");
      return 2;
   }
   const std::string method = argv[1], file = argv[2], ntuple = argv[3];
   const unsigned threads = static_cast<unsigned>(std::stoul(argv[4]));
   std::vector<std::string> fields(argv + 5, argv + argc);
   std::vector<std::string> files;
   for (std::size_t at = 0; at <= file.size();) {
      const auto comma = std::min(file.find(',', at), file.size());
      files.push_back(file.substr(at, comma - at));
      at = comma + 1;
   }
   if (threads > 1)
      ROOT::EnableImplicitMT(threads);
   std::printf("root_version %s\n", ROOT_RELEASE);
   std::printf("rss_start_kib %ld\n", rss_kib());
   std::fflush(stdout);
   try {
      // BENCH_PASSES reads in this process; the last one is timed (see bench/rntuple_read.py).
      const char *passesEnv = std::getenv("BENCH_PASSES");
      const int passes = std::max(1, passesEnv ? std::atoi(passesEnv) : 1);
      Result r;
      double seconds = 0;
      for (int pass = 0; pass < passes; ++pass) {
         auto start = Clock::now();
         if (method == "view" || method == "bulk") {
            std::vector<Spec> specs;
            for (const auto &f : fields)
               specs.push_back(parse(f));
            r = Result();
            for (const auto &one : files) {
               const auto part = ReadViews(one, ntuple, specs, method == "bulk");
               r.entries += part.entries;
               r.sum += part.sum;
               r.hasSum = part.hasSum;
               r.values += part.values;
               r.fsum += part.fsum;
               r.hasFloat = part.hasFloat;
            }
         } else if (method == "rdf") {
            r = ReadRdf(files, ntuple, fields, threads);
         } else {
            std::fprintf(stderr, "unknown method %s\n", method.c_str());
            return 2;
         }
         seconds = std::chrono::duration<double>(Clock::now() - start).count();
         if (pass == 0)
            std::printf("first_pass_seconds %.6f\n", seconds);
      }
      std::printf("seconds %.6f\n", seconds);
      std::printf("entries %llu\n", static_cast<unsigned long long>(r.entries));
      if (r.hasSum)
         std::printf("sum %lld\n", r.sum);
      if (r.hasFloat || r.values)
         std::printf("values %llu\n", static_cast<unsigned long long>(r.values));
      if (r.hasFloat)
         std::printf("fsum %.17g\n", r.fsum);
      std::printf("peak_rss_kib %ld\n", peak_rss_kib());
   } catch (const std::exception &e) {
      std::fprintf(stderr, "root_read: %s\n", e.what());
      return 1;
   }
   return 0;
}
