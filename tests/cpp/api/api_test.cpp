// Exercises the C++ API as a framework would: parallel RNTuple and TTree writers with a
// fill context per std::thread, entries bound to the program's own objects, classes,
// several objects in one file, FillNoFlush, TryFill under a small budget, ordered
// columnar appends, and every kind of bad input (each must give an Error, never a crash).
// Values are functions of the entry id (see Expected in tests/python/test_cpp_api.py).
//
// Usage: api_test OUTPUT_DIR THREADS ENTRIES_PER_THREAD
#include <rootweave.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

struct Hit {
  float e;
  std::int32_t id;
};

namespace {

int failures = 0;

void Expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    ++failures;
  }
}

/// Runs `body`, which must throw a rootweave::Error of `status` whose message holds `text`.
template <class F>
void ExpectError(rw_status status, const std::string& text, F body, const std::string& what) {
  try {
    body();
    Expect(false, what + ": no error");
  } catch (const rootweave::Error& e) {
    Expect(e.Status() == status, what + ": status " + std::to_string(e.Status()) + " (" +
                                     e.what() + ")");
    Expect(std::string(e.what()).find(text) != std::string::npos,
           what + ": message '" + e.what() + "' lacks '" + text + "'");
  }
}

std::unique_ptr<rootweave::RNTupleModel> MakeModel() {
  auto model = rootweave::RNTupleModel::Create();
  model->AddClass<Hit>("Hit", 1, {rootweave::Member("e", &Hit::e), rootweave::Member("id", &Hit::id)});
  model->MakeField<std::uint64_t>("id");
  model->MakeField<float>("x");
  model->MakeField<std::vector<float>>("v");
  model->MakeField<std::string>("s");
  model->MakeField<std::vector<Hit>>("hits");
  model->MakeField<std::array<double, 3>>("arr");
  model->MakeField<bool>("flag");
  model->MakeField<std::vector<std::vector<float>>>("vv");
  model->MakeField<std::set<std::int32_t>>("tags");
  return model;
}

/// The values of entry `n`, set through the entry's own values or bound objects.
struct Event {
  std::uint64_t id;
  float x;
  std::vector<float> v;
  std::string s;
  std::vector<Hit> hits;
  std::array<double, 3> arr;
  bool flag;
  std::vector<std::vector<float>> vv;
  std::set<std::int32_t> tags;

  void Set(std::uint64_t n) {
    id = n;
    x = static_cast<float>(n) * 0.5f;
    v.clear();
    for (std::uint64_t k = 0; k < n % 4; ++k) v.push_back(static_cast<float>(n % 5 + k) * 0.25f);
    s = "e" + std::to_string(n);
    hits.clear();
    for (std::uint64_t k = 0; k < n % 3; ++k)
      hits.push_back(Hit{static_cast<float>(n + k) * 1.5f, static_cast<std::int32_t>(n * 10 + k)});
    arr = {static_cast<double>(n), n + 0.5, n + 0.25};
    flag = n % 2 == 0;
    vv.clear();
    for (std::uint64_t k = 0; k < n % 3; ++k) {
      vv.emplace_back();
      for (std::uint64_t j = 0; j < k; ++j) vv.back().push_back(static_cast<float>(n + k + j));
    }
    tags.clear();
    for (std::uint64_t k = 0; k < n % 3; ++k) tags.insert(static_cast<std::int32_t>((n * 7 + k * 3) % 10) - 5);
  }
};

/// Binds every field of an entry to the members of `event`.
void Bind(rootweave::REntry& entry, Event& event) {
  entry.BindRawPtr("id", &event.id);
  entry.BindRawPtr("x", &event.x);
  entry.BindRawPtr("v", &event.v);
  entry.BindRawPtr("s", &event.s);
  entry.BindRawPtr("hits", &event.hits);
  entry.BindRawPtr("arr", &event.arr);
  entry.BindRawPtr("flag", &event.flag);
  entry.BindRawPtr("vv", &event.vv);
  entry.BindRawPtr("tags", &event.tags);
}

/// Fills entries [first, first + count) through bound objects, committing clusters
/// through FillNoFlush every `cluster` entries when it is not 0.
void FillBound(rootweave::ParallelWriter& writer, std::uint64_t first, std::uint64_t count,
               bool noFlush) {
  auto context = writer.CreateFillContext();
  auto entry = context->CreateRawPtrWriteEntry();
  Event event;
  Bind(*entry, event);
  rootweave::RNTupleFillStatus status;
  for (std::uint64_t n = first; n < first + count; ++n) {
    event.Set(n);
    if (noFlush) {
      context->FillNoFlush(*entry, status);
      if (status.ShouldFlushCluster() || (n - first + 1) % 1000 == 0) context->FlushCluster();
    } else {
      context->Fill(*entry);
    }
  }
}

/// Fills through the entry's own values (GetPtr), as ROOT's tutorials do, and every third
/// entry through a second entry bound to an Event (a context takes any entries of its model,
/// in any mix, between two hand-overs).
void FillOwned(rootweave::ParallelWriter& writer, std::uint64_t first, std::uint64_t count) {
  auto context = writer.CreateFillContext();
  auto bound = context->CreateRawPtrWriteEntry();
  Event boundEvent;
  Bind(*bound, boundEvent);
  auto entry = context->CreateEntry();
  auto id = entry->GetPtr<std::uint64_t>("id");
  auto x = entry->GetPtr<float>("x");
  auto v = entry->GetPtr<std::vector<float>>("v");
  auto s = entry->GetPtr<std::string>("s");
  auto hits = entry->GetPtr<std::vector<Hit>>("hits");
  auto arr = entry->GetPtr<std::array<double, 3>>("arr");
  auto flag = entry->GetPtr<bool>("flag");
  auto vv = entry->GetPtr<std::vector<std::vector<float>>>("vv");
  auto tags = entry->GetPtr<std::set<std::int32_t>>("tags");
  Event event;
  for (std::uint64_t n = first; n < first + count; ++n) {
    if (n % 3 == 2) {
      boundEvent.Set(n);
      context->Fill(*bound);
      continue;
    }
    event.Set(n);
    *id = event.id;
    *x = event.x;
    *v = event.v;
    *s = event.s;
    *hits = event.hits;
    *arr = event.arr;
    *flag = event.flag;
    *vv = event.vv;
    *tags = event.tags;
    context->Fill(*entry);
  }
}

/// Fills through TryFill, retrying after WaitForBudget; returns the number of refusals.
std::uint64_t FillTrying(rootweave::ParallelWriter& writer, std::uint64_t first,
                         std::uint64_t count) {
  auto context = writer.CreateFillContext();
  auto entry = context->CreateRawPtrWriteEntry();
  Event event;
  Bind(*entry, event);
  std::uint64_t refused = 0;
  for (std::uint64_t n = first; n < first + count; ++n) {
    event.Set(n);
    while (!context->TryFill(*entry)) {
      ++refused;
      writer.WaitForBudget(10);
    }
  }
  return refused;
}

template <class F>
void OnThreads(unsigned threads, std::uint64_t perThread, F fill) {
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back([&, t] { fill(t * perThread, perThread); });
  for (auto& th : pool) th.join();
}

/// Fills clusters `first, first + step, ...` below `clusters` of `per` entries each, last to
/// first, entry by entry into the staged cluster, each committed with its own number: the
/// file holds them in number order.
void FillStaged(rootweave::ParallelWriter& writer, std::uint64_t first, std::uint64_t step,
                std::uint64_t clusters, std::uint64_t per) {
  auto context = writer.CreateFillContext();
  auto entry = context->CreateRawPtrWriteEntry();
  Event event;
  Bind(*entry, event);
  std::vector<std::uint64_t> mine;
  for (std::uint64_t k = first; k < clusters; k += step) mine.push_back(k);
  for (auto k = mine.rbegin(); k != mine.rend(); ++k) {
    for (std::uint64_t n = *k * per; n < (*k + 1) * per; ++n) {
      event.Set(n);
      context->Fill(*entry);
    }
    context->CommitStagedCluster(*k);
  }
}

/// Releases counted by the hand-made Arrow structs below (each must be released once).
std::atomic<int> arrowReleases{0};

/// A struct array {id: uint64, x: float} of `n` entries, ids from `first`, x = id / 4, as
/// an Arrow producer hands it over (release callbacks free what it allocated).
void MakeArrowBatch(std::uint64_t first, std::int64_t n, ArrowArray& array, ArrowSchema& schema) {
  struct Data {
    std::vector<std::uint64_t> ids;
    std::vector<float> xs;
    ArrowArray children[2];
    ArrowArray* childPointers[2];
    const void* parentBuffers[1] = {nullptr};
    const void* idBuffers[2];
    const void* xBuffers[2];
  };
  auto* data = new Data;
  for (std::int64_t i = 0; i < n; ++i) {
    data->ids.push_back(first + i);
    data->xs.push_back(static_cast<float>(first + i) / 4);
  }
  data->idBuffers[0] = nullptr;
  data->idBuffers[1] = data->ids.data();
  data->xBuffers[0] = nullptr;
  data->xBuffers[1] = data->xs.data();
  auto releaseChild = [](ArrowArray* a) { a->release = nullptr; };
  for (int k = 0; k < 2; ++k) {
    data->children[k] = ArrowArray{n, 0, 0, 2, 0, k ? data->xBuffers : data->idBuffers, nullptr,
                                   nullptr, releaseChild, nullptr};
    data->childPointers[k] = &data->children[k];
  }
  array = ArrowArray{n, 0, 0, 1, 2, data->parentBuffers, data->childPointers, nullptr,
                     [](ArrowArray* a) {
                       delete static_cast<Data*>(a->private_data);
                       a->release = nullptr;
                       ++arrowReleases;
                     },
                     data};
  struct Schemas {
    ArrowSchema children[2];
    ArrowSchema* pointers[2];
  };
  auto* schemas = new Schemas;
  auto releaseChildSchema = [](ArrowSchema* s) { s->release = nullptr; };
  schemas->children[0] = ArrowSchema{"L", "id", nullptr, 0, 0, nullptr, nullptr, releaseChildSchema, nullptr};
  schemas->children[1] = ArrowSchema{"f", "x", nullptr, 0, 0, nullptr, nullptr, releaseChildSchema, nullptr};
  schemas->pointers[0] = &schemas->children[0];
  schemas->pointers[1] = &schemas->children[1];
  schema = ArrowSchema{"+s", "", nullptr, 0, 2, schemas->pointers, nullptr,
                       [](ArrowSchema* s) {
                         delete static_cast<Schemas*>(s->private_data);
                         s->release = nullptr;
                         ++arrowReleases;
                       },
                       schemas};
}

/// Arrow batches appended from two threads; a batch of the wrong type refused (and still
/// released once).
void ArrowAppends(const std::string& dir) {
  auto model = rootweave::RNTupleModel::Create();
  model->MakeField<std::uint64_t>("id");
  model->MakeField<float>("x");
  auto writer = rootweave::RNTupleParallelWriter::Recreate(std::move(model), "Events", dir + "/arrow.root");
  OnThreads(2, 5, [&](std::uint64_t first, std::uint64_t count) {
    auto context = writer->CreateFillContext();
    for (std::uint64_t b = first; b < first + count; ++b) {
      ArrowArray array;
      ArrowSchema schema;
      MakeArrowBatch(b * 100, 100, array, schema);
      context->AppendArrow(&array, &schema);
      Expect(array.release == nullptr && schema.release == nullptr, "the appended structs were taken");
    }
  });
  auto context = writer->CreateFillContext();
  ArrowArray array;
  ArrowSchema schema;
  MakeArrowBatch(0, 3, array, schema);
  schema.children[1]->format = "g";  // double where the field is float
  ExpectError(RW_INVALID_ARGUMENT, "'x'", [&] { context->AppendArrow(&array, &schema); },
              "an Arrow batch of the wrong type");
  context.reset();
  writer->Close();
  Expect(arrowReleases == 22, "every Arrow struct released once, not " + std::to_string(arrowReleases));
}

/// Merge two files, and recover one cut short; prints what the Python test checks.
void MergeAndRecover(const std::string& dir) {
  rootweave::Merge(dir + "/merged.root", {dir + "/ordered.root", dir + "/ordered.root"});
  Expect(rootweave::GetEntries(dir + "/merged.root", "Events") == 1600, "the merged entries");
  ExpectError(RW_INVALID_ARGUMENT, "merged.root", [&] {
    rootweave::Merge(dir + "/merged.root", {dir + "/ordered.root"});
  }, "a merge into a file that exists");
  {
    auto writer = rootweave::RNTupleParallelWriter::Recreate(
        MakeModel(), "Events", dir + "/whole.root", rootweave::WriteOptions().SetApproxZippedClusterSize(16 << 10));
    FillBound(*writer, 0, 5000, false);
    writer->Close();
  }
  std::FILE* in = std::fopen((dir + "/whole.root").c_str(), "rb");
  std::vector<char> bytes(1 << 26);
  bytes.resize(std::fread(bytes.data(), 1, bytes.size(), in));
  std::fclose(in);
  std::FILE* out = std::fopen((dir + "/cut.root").c_str(), "wb");
  std::fwrite(bytes.data(), 1, bytes.size() * 7 / 10, out);
  std::fclose(out);
  ExpectError(RW_FORMAT, "cut.root", [&] { rootweave::GetEntries(dir + "/cut.root", "Events"); },
              "a file cut short");
  std::uint64_t kept = rootweave::Recover(dir + "/cut.root", dir + "/recovered.root");
  Expect(kept > 0 && kept < 5000, "recovered " + std::to_string(kept) + " of 5000 entries");
  std::printf("recovered %llu\n", static_cast<unsigned long long>(kept));
}

void BadInput(const std::string& dir) {
  ExpectError(RW_INVALID_ARGUMENT, "flaot", [] {
    rootweave::RNTupleModel::Create()->AddField("x", "std::vector<flaot>");
  }, "unknown type name");
  ExpectError(RW_INVALID_ARGUMENT, "already", [] {
    auto m = rootweave::RNTupleModel::Create();
    m->MakeField<float>("x");
    m->MakeField<double>("x");
  }, "two fields of one name");
  auto writer = rootweave::RNTupleParallelWriter::Recreate(MakeModel(), "Events", dir + "/bad.root");
  auto context = writer->CreateFillContext();
  auto entry = context->CreateRawPtrWriteEntry();
  double wrong = 1;
  ExpectError(RW_INVALID_ARGUMENT, "holds float, not double", [&] { entry->BindRawPtr("x", &wrong); },
              "a value of the wrong type");
  ExpectError(RW_NOT_FOUND, "no field called 'nope'", [&] { entry->BindRawPtr("nope", &wrong); },
              "an unknown field");
  ExpectError(RW_INVALID_ARGUMENT, "no value bound", [&] { context->Fill(*entry); },
              "an entry with a field unbound");
  auto other = rootweave::RNTupleParallelWriter::Recreate(MakeModel(), "Events", dir + "/bad2.root");
  auto otherEntry = other->CreateFillContext()->CreateEntry();
  ExpectError(RW_INVALID_ARGUMENT, "another writer", [&] { context->Fill(*otherEntry); },
              "an entry of another writer");
  auto owned = context->CreateEntry();
  *owned->GetPtr<std::uint64_t>("id") = 7;
  context->Fill(*owned);
  writer->Close();
  ExpectError(RW_CLOSED, "closed", [&] { context->Fill(*owned); }, "a context of a closed writer");
  ExpectError(RW_CLOSED, "closed", [&] { writer->CreateFillContext(); }, "a closed writer");
  writer->Close();  // Closing again is a no-op.
  ExpectError(RW_IO, "/nonexistent-directory/x.root", [] {
    rootweave::RNTupleParallelWriter::Recreate(MakeModel(), "Events", "/nonexistent-directory/x.root");
  }, "a file that cannot be written");
  auto file = rootweave::File::Recreate(dir + "/bad3.root");
  auto inFile = rootweave::TTreeParallelWriter::Append(MakeModel(), "t", *file);
  ExpectError(RW_INVALID_ARGUMENT, "still open", [&] { file->Close(); }, "closing a file before its writer");
  inFile->Close();
  file->Close();
  // The C API's own checks.
  Expect(rw_fill_context_fill(nullptr, nullptr, 0) == RW_INVALID_ARGUMENT, "a null context");
  Expect(std::string(rw_last_error()).find("null") != std::string::npos, "the null context's message");
  rw_model* model = nullptr;
  Expect(rw_model_new(&model) == RW_OK, "a C model");
  Expect(rw_model_add_field(model, "x", nullptr) == RW_INVALID_ARGUMENT, "a null type name");
  rw_model_free(model);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR THREADS ENTRIES_PER_THREAD\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  unsigned threads = static_cast<unsigned>(std::atoi(argv[2]));
  std::uint64_t perThread = std::strtoull(argv[3], nullptr, 10);
  try {
    {
      // One RNTuple, a context per thread, the program's own objects bound by address.
      auto writer = rootweave::RNTupleParallelWriter::Recreate(
          MakeModel(), "Events", dir + "/ntuple.root", rootweave::WriteOptions().SetCompression(505));
      OnThreads(threads, perThread, [&](std::uint64_t first, std::uint64_t count) {
        FillBound(*writer, first, count, false);
      });
      writer->Close();
    }
    {
      // One file, two trees and an RNTuple; FillNoFlush, the entries' own values, and
      // TryFill under a budget small enough to refuse.
      auto file = rootweave::File::Recreate(dir + "/several.root");
      auto tree = rootweave::TTreeParallelWriter::Append(
          MakeModel(), "tree", *file, rootweave::WriteOptions().SetCompression(404));
      auto owned = rootweave::TTreeParallelWriter::Append(MakeModel(), "dir/owned", *file);
      auto small = rootweave::RNTupleParallelWriter::Append(
          MakeModel(), "small", *file, rootweave::WriteOptions().SetMemoryBudget(2 << 20));
      std::atomic<std::uint64_t> refused{0}, calls{0};
      small->SetBudgetCallback([&] { ++calls; });
      OnThreads(threads, perThread, [&](std::uint64_t first, std::uint64_t count) {
        FillBound(*tree, first, count, true);
        FillOwned(*owned, first, count);
        refused += FillTrying(*small, first, count);
      });
      Expect(small->GetBudgetPeak() <= small->GetBudgetLimit(), "the budget's peak within its limit");
      std::printf("budget limit %llu peak %llu, TryFill refused %llu times, %llu callbacks\n",
                  static_cast<unsigned long long>(small->GetBudgetLimit()),
                  static_cast<unsigned long long>(small->GetBudgetPeak()),
                  static_cast<unsigned long long>(refused.load()),
                  static_cast<unsigned long long>(calls.load()));
      small->SetBudgetCallback(nullptr);
      tree->Close();
      owned->Close();
      small->Close();
      file->Close();
    }
    {
      // Ordered columnar appends: batches given in reverse enter the file in sequence order.
      auto model = rootweave::RNTupleModel::Create();
      model->MakeField<std::uint64_t>("id");
      model->MakeField<std::vector<float>>("v");
      auto writer = rootweave::RNTupleParallelWriter::Recreate(
          std::move(model), "Events", dir + "/ordered.root", rootweave::WriteOptions().SetOrdered(true));
      const std::uint64_t batches = 8, per = 100;
      OnThreads(2, batches / 2, [&](std::uint64_t first, std::uint64_t count) {
        auto context = writer->CreateFillContext();
        for (std::uint64_t b = first + count; b-- > first;) {
          std::vector<std::uint64_t> ids, offsets{0};
          std::vector<float> items;
          for (std::uint64_t i = 0; i < per; ++i) {
            ids.push_back(b * per + i);
            for (std::uint64_t k = 0; k < i % 3; ++k) items.push_back(static_cast<float>(b * per + i + k));
            offsets.push_back(items.size());
          }
          rw_column item{items.data(), nullptr, items.size(), nullptr, 0};
          rw_column columns[2] = {{ids.data(), nullptr, per, nullptr, 0},
                                  {nullptr, offsets.data(), per, &item, 1}};
          context->AppendSequence(b, columns, per);
        }
      });
      writer->Close();
    }
    {
      // Staged clusters: entries filled one by one, clusters placed by their numbers.
      auto writer = rootweave::TTreeParallelWriter::Recreate(
          MakeModel(), "Events", dir + "/staged.root", rootweave::WriteOptions().SetOrdered(true));
      OnThreads(2, 1, [&](std::uint64_t first, std::uint64_t) { FillStaged(*writer, first, 2, 10, 250); });
      auto context = writer->CreateFillContext();
      auto entry = context->CreateEntry();
      context->Fill(*entry);  // staged and never committed: lost, and Close says so
      context.reset();
      ExpectError(RW_INVALID_ARGUMENT, "1 staged entries", [&] { writer->Close(); },
                  "a context dropped with staged entries");
    }
    ArrowAppends(dir);
    MergeAndRecover(dir);
    BadInput(dir);
  } catch (const rootweave::Error& e) {
    std::fprintf(stderr, "unexpected error (status %d): %s\n", e.Status(), e.what());
    return 1;
  }
  if (failures) {
    std::fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  std::printf("api_test: all checks passed (rootweave %s)\n", rootweave::Version().c_str());
  return 0;
}
