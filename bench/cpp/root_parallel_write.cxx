// ROOT's side of bench/parallel_write.py: the `single` dataset of `rootweave generate`
// (std::int32_t x = top 20 bits of splitmix64 draws from seed 1) written from T threads
// with ROOT's RNTupleParallelWriter or with TBufferMerger (a TTree).
//
//   root_parallel_write rntuple|tbuffermerger OUT ENTRIES THREADS COMPRESSION
//
// Threads take chunks of 65536 entries from a shared counter, like rootweave does.
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

static constexpr std::uint64_t kChunk = 65536;

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
   if (argc != 6) {
      std::fprintf(stderr, "usage: root_parallel_write rntuple|tbuffermerger OUT ENTRIES THREADS COMPRESSION\n");
      return 2;
   }
   const std::string mode = argv[1];
   const char *out = argv[2];
   const std::uint64_t entries = std::stoull(argv[3]);
   const int threads = std::stoi(argv[4]);
   const int compression = std::stoi(argv[5]);
   ROOT::EnableThreadSafety();
   std::atomic<std::uint64_t> next{0};
   auto start = std::chrono::steady_clock::now();
   if (mode == "rntuple") {
      auto model = ROOT::RNTupleModel::CreateBare();
      model->MakeField<std::int32_t>("x");
      ROOT::RNTupleWriteOptions options;
      options.SetCompression(compression);
      auto writer = ROOT::RNTupleParallelWriter::Recreate(std::move(model), "Events", out, options);
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
         pool.emplace_back([&] {
            auto context = writer->CreateFillContext();
            auto entry = context->CreateEntry();
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
