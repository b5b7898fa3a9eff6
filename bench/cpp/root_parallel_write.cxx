// ROOT's side of bench/parallel_write.py: datasets of `rootweave generate` written from T
// threads with ROOT's RNTupleParallelWriter or with TBufferMerger (a TTree), with the very
// same values:
//   single: std::int32_t x = top 20 bits of splitmix64 draws from seed 1;
//   wide:   1000 float fields f0..f999, chunks of 1000 entries drawn from xoshiro256**
//           seeded per chunk exactly as rootweave's Rng::for_chunk(1, chunk) does.
//
//   root_parallel_write rntuple|tbuffermerger single|wide OUT ENTRIES THREADS COMPRESSION
//
// Threads take chunks from a shared counter, like rootweave does.
// Prints "seconds <wall time>".

#include <ROOT/RNTupleFillContext.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleParallelWriter.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
#include <ROOT/TBufferMerger.hxx>
#include <TROOT.h>
#include <TTree.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

static constexpr std::uint64_t kSingleChunk = 65536;
static constexpr std::uint64_t kWideChunk = 1000;
static constexpr int kWideFields = 1000;

static std::uint64_t splitmix64(std::uint64_t &state)
{
   state += 0x9E3779B97F4A7C15ULL;
   std::uint64_t z = state;
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
   return z ^ (z >> 31);
}

static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// xoshiro256** seeded like rootweave's Rng::for_chunk(seed, index).
struct Rng {
   std::uint64_t s[4];
   Rng(std::uint64_t seed, std::uint64_t index)
   {
      std::uint64_t sm = seed ^ (index * 0xD1B54A32D192ED03ULL);
      std::uint64_t inner = splitmix64(sm);
      for (auto &w : s)
         w = splitmix64(inner);
   }
   std::uint64_t next()
   {
      std::uint64_t result = rotl(s[1] * 5, 7) * 9;
      std::uint64_t t = s[1] << 17;
      s[2] ^= s[0];
      s[3] ^= s[1];
      s[1] ^= s[2];
      s[0] ^= s[3];
      s[2] ^= t;
      s[3] = rotl(s[3], 45);
      return result;
   }
};

// Column-major values of one chunk of the wide dataset.
static void wide_chunk(std::uint64_t index, std::uint64_t n, std::vector<float> &values)
{
   Rng rng(1, index);
   values.resize(kWideFields * n);
   for (int f = 0; f < kWideFields; ++f)
      for (std::uint64_t i = 0; i < n; ++i)
         values[f * n + i] = static_cast<float>(rng.next() >> 40) / static_cast<float>(1u << 24);
}

static std::int32_t value(std::uint64_t i)
{
   // The (i+1)-th output of splitmix64 started from state 1.
   std::uint64_t z = 1 + (i + 1) * 0x9E3779B97F4A7C15ULL;
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
   return static_cast<std::int32_t>((z ^ (z >> 31)) >> 44);
}

int main(int argc, char **argv)
{
   if (argc != 7) {
      std::fprintf(stderr, "usage: root_parallel_write rntuple|tbuffermerger single|wide OUT ENTRIES THREADS COMPRESSION\n");
      return 2;
   }
   const std::string mode = argv[1];
   const bool wide = std::string(argv[2]) == "wide";
   const char *out = argv[3];
   const std::uint64_t entries = std::stoull(argv[4]);
   const int threads = std::stoi(argv[5]);
   const int compression = std::stoi(argv[6]);
   const std::uint64_t kChunk = wide ? kWideChunk : kSingleChunk;
   ROOT::EnableThreadSafety();
   std::atomic<std::uint64_t> next{0};
   auto start = std::chrono::steady_clock::now();
   if (mode == "rntuple") {
      auto model = ROOT::RNTupleModel::CreateBare();
      if (wide) {
         for (int f = 0; f < kWideFields; ++f)
            model->MakeField<float>("f" + std::to_string(f));
      } else {
         model->MakeField<std::int32_t>("x");
      }
      ROOT::RNTupleWriteOptions options;
      options.SetCompression(compression);
      auto writer = ROOT::RNTupleParallelWriter::Recreate(std::move(model), "Events", out, options);
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
         pool.emplace_back([&] {
            auto context = writer->CreateFillContext();
            auto entry = context->CreateEntry();
            if (wide) {
               std::vector<float *> fields;
               for (int f = 0; f < kWideFields; ++f)
                  fields.push_back(entry->GetPtr<float>("f" + std::to_string(f)).get());
               std::vector<float> values;
               for (;;) {
                  std::uint64_t first = next.fetch_add(kChunk);
                  if (first >= entries)
                     break;
                  std::uint64_t n = std::min(entries, first + kChunk) - first;
                  wide_chunk(first / kChunk, n, values);
                  for (std::uint64_t i = 0; i < n; ++i) {
                     for (int f = 0; f < kWideFields; ++f)
                        *fields[f] = values[f * n + i];
                     context->Fill(*entry);
                  }
               }
               return;
            }
            auto x = entry->GetPtr<std::int32_t>("x");
            for (;;) {
               std::uint64_t first = next.fetch_add(kChunk);
               if (first >= entries)
                  break;
               std::uint64_t last = std::min(entries, first + kChunk);
               for (std::uint64_t i = first; i < last; ++i) {
                  *x = value(i);
                  context->Fill(*entry);
               }
            }
         });
      }
      for (auto &t : pool)
         t.join();
      writer.reset();
   } else {
      ROOT::TBufferMerger merger(out, "RECREATE", compression);
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
         pool.emplace_back([&] {
            auto file = merger.GetFile();
            TTree tree("Events", "Events");
            if (wide) {
               std::vector<float> row(kWideFields);
               for (int f = 0; f < kWideFields; ++f) {
                  std::string name = "f" + std::to_string(f);
                  tree.Branch(name.c_str(), &row[f], (name + "/F").c_str());
               }
               std::vector<float> values;
               for (;;) {
                  std::uint64_t first = next.fetch_add(kChunk);
                  if (first >= entries)
                     break;
                  std::uint64_t n = std::min(entries, first + kChunk) - first;
                  wide_chunk(first / kChunk, n, values);
                  for (std::uint64_t i = 0; i < n; ++i) {
                     for (int f = 0; f < kWideFields; ++f)
                        row[f] = values[f * n + i];
                     tree.Fill();
                  }
                  file->Write();
                  tree.Reset();
               }
               return;
            }
            std::int32_t x = 0;
            tree.Branch("x", &x, "x/I");
            for (;;) {
               std::uint64_t first = next.fetch_add(kChunk);
               if (first >= entries)
                  break;
               std::uint64_t last = std::min(entries, first + kChunk);
               for (std::uint64_t i = first; i < last; ++i) {
                  x = value(i);
                  tree.Fill();
               }
               file->Write();
               tree.Reset();
            }
         });
      }
      for (auto &t : pool)
         t.join();
   }
   double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
   std::printf("seconds %.6f\n", seconds);
   return 0;
}
