// One RNTuple written by several threads, each with its own fill context and entry, as
// ROOT's tutorial ntpl009_parallelWriter does with RNTupleParallelWriter.
//
// Usage: parallel_ntuple [THREADS] [ENTRIES_PER_THREAD]   (writes parallel_ntuple.root)
#include <rootweave.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  const unsigned threads = argc > 1 ? std::atoi(argv[1]) : 4;
  const std::uint64_t perThread = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 25000;

  auto model = rootweave::RNTupleModel::CreateBare();
  model->MakeField<std::uint32_t>("id");
  model->MakeField<std::vector<float>>("vpx");
  model->MakeField<std::vector<float>>("vpy");
  model->MakeField<std::vector<float>>("vpz");

  auto writer = rootweave::RNTupleParallelWriter::Recreate(
      std::move(model), "NTuple", "parallel_ntuple.root",
      rootweave::WriteOptions().SetCompression(505));

  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&writer, t, perThread] {
      // A fill context and an entry per thread: filling needs no lock.
      auto context = writer->CreateFillContext();
      auto entry = context->CreateEntry();
      auto id = entry->GetPtr<std::uint32_t>("id");
      auto vpx = entry->GetPtr<std::vector<float>>("vpx");
      auto vpy = entry->GetPtr<std::vector<float>>("vpy");
      auto vpz = entry->GetPtr<std::vector<float>>("vpz");
      std::mt19937 random(t);
      std::normal_distribution<float> gauss;
      std::uniform_int_distribution<int> count(0, 20);
      for (std::uint64_t i = 0; i < perThread; ++i) {
        *id = t;
        vpx->clear();
        vpy->clear();
        vpz->clear();
        for (int k = count(random); k > 0; --k) {
          float px = gauss(random), py = gauss(random);
          vpx->push_back(px);
          vpy->push_back(py);
          vpz->push_back(std::sqrt(px * px + py * py));
        }
        context->Fill(*entry);
      }
    });
  }
  for (auto& w : workers) w.join();
  writer->Close();
  std::printf("parallel_ntuple.root: %llu entries from %u threads\n",
              static_cast<unsigned long long>(threads * perThread), threads);
  return 0;
}
