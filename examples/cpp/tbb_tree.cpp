// A TTree written from a TBB task arena, as a framework's output module writes events: a
// fill context per arena slot, each entry bound to the event object the task made
// (BindRawPtr: nothing is copied into library objects), the cluster flushed when the
// writer says it is due (FillNoFlush), memory bounded by the writer's budget.
//
// Usage: tbb_tree [SLOTS] [EVENTS]   (writes tbb_tree.root)
#include <rootweave.hpp>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

/// The framework's event, a class of its own.
struct Track {
  float pt;
  float eta;
  std::int32_t charge;
};

struct Event {
  std::uint64_t number = 0;
  double weight = 0;
  std::vector<Track> tracks;
  std::string label;

  void Make(std::uint64_t n) {
    number = n;
    weight = 1.0 + static_cast<double>(n % 7) / 10;
    tracks.clear();
    for (std::uint64_t k = 0; k < n % 5; ++k)
      tracks.push_back(Track{static_cast<float>(n % 100 + k), static_cast<float>(k) * 0.5f - 1.0f,
                             k % 2 ? 1 : -1});
    label = "event " + std::to_string(n);
  }
};

int main(int argc, char** argv) {
  const int slots = argc > 1 ? std::atoi(argv[1]) : 2;
  const std::uint64_t events = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100000;

  auto model = rootweave::RNTupleModel::Create();
  model->AddClass<Track>("Track", 1, {rootweave::Member("pt", &Track::pt),
                                      rootweave::Member("eta", &Track::eta),
                                      rootweave::Member("charge", &Track::charge)});
  model->MakeField<std::uint64_t>("number");
  model->MakeField<double>("weight");
  model->MakeField<std::vector<Track>>("tracks");
  model->MakeField<std::string>("label");
  auto writer = rootweave::TTreeParallelWriter::Recreate(
      std::move(model), "Events", "tbb_tree.root",
      rootweave::WriteOptions().SetCompression(404).SetMemoryBudget(64 << 20));

  // One context, entry and event per slot of the arena: a slot runs one task at a time.
  struct Slot {
    std::shared_ptr<rootweave::FillContext> context;
    std::unique_ptr<rootweave::REntry> entry;
    Event event;
  };
  std::vector<Slot> perSlot(slots);
  for (auto& slot : perSlot) {
    slot.context = writer->CreateFillContext();
    slot.entry = slot.context->CreateRawPtrWriteEntry();
    slot.entry->BindRawPtr("number", &slot.event.number);
    slot.entry->BindRawPtr("weight", &slot.event.weight);
    slot.entry->BindRawPtr("tracks", &slot.event.tracks);
    slot.entry->BindRawPtr("label", &slot.event.label);
  }

  tbb::task_arena arena(slots);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, events, 1000),
                      [&](const tbb::blocked_range<std::uint64_t>& range) {
                        Slot& slot = perSlot[tbb::this_task_arena::current_thread_index()];
                        rootweave::RNTupleFillStatus status;
                        for (std::uint64_t n = range.begin(); n != range.end(); ++n) {
                          slot.event.Make(n);
                          slot.context->FillNoFlush(*slot.entry, status);
                          if (status.ShouldFlushCluster()) slot.context->FlushCluster();
                        }
                      });
  });
  perSlot.clear();  // The contexts commit what they hold.
  std::printf("tbb_tree.root: %llu events from %d slots, budget peak %llu of %llu bytes\n",
              static_cast<unsigned long long>(events), slots,
              static_cast<unsigned long long>(writer->GetBudgetPeak()),
              static_cast<unsigned long long>(writer->GetBudgetLimit()));
  writer->Close();
  return 0;
}
