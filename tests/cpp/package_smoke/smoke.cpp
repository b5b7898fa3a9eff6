// The C API from C++ through the static archive: two threads, each with its own fill
// context of one parallel writer, append 500 entries each (columnar) to an RNTuple.
// Usage: smoke_cpp OUT.root (tests/python/test_cpp_package.py reads the file back; the
// entries' order depends on the threads, the `id` field says which entry is which).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <rootweave.h>

static_assert(__cplusplus >= 201703L, "rootweave::rootweave_static did not raise the C++ standard to 17");

namespace {

constexpr std::uint64_t kPerThread = 500;

void Check(rw_status status, const char *what) {
  if (status != RW_OK) {
    std::fprintf(stderr, "%s failed (status %d): %s\n", what, static_cast<int>(status), rw_last_error());
    std::exit(1);
  }
}

// Entries [first, first + kPerThread): id = i, pt = i / 2, hits = i + j / 8 for j < i % 4.
void Produce(const rw_writer *writer, std::uint64_t first) {
  rw_fill_context *context = nullptr;
  Check(rw_writer_create_fill_context(writer, &context), "rw_writer_create_fill_context");
  std::vector<std::uint64_t> ids, offsets{0};
  std::vector<float> pts, items;
  for (std::uint64_t i = first; i < first + kPerThread; i++) {
    ids.push_back(i);
    pts.push_back(static_cast<float>(i) * 0.5f);
    for (std::uint64_t j = 0; j < i % 4; j++) items.push_back(static_cast<float>(i) + static_cast<float>(j) * 0.125f);
    offsets.push_back(items.size());
  }
  rw_column item_column{items.data(), nullptr, items.size(), nullptr, 0};
  rw_column columns[3] = {
      {ids.data(), nullptr, ids.size(), nullptr, 0},
      {pts.data(), nullptr, pts.size(), nullptr, 0},
      {nullptr, offsets.data(), ids.size(), &item_column, 1},
  };
  Check(rw_fill_context_append(context, columns, 3, ids.size()), "rw_fill_context_append");
  Check(rw_fill_context_flush_cluster(context), "rw_fill_context_flush_cluster");
  rw_fill_context_free(context);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: smoke_cpp OUT.root\n");
    return 2;
  }
  std::printf("version %s\n", rw_version());
  rw_model *model = nullptr;
  Check(rw_model_new(&model), "rw_model_new");
  Check(rw_model_add_field(model, "id", "std::uint64_t"), "add id");
  Check(rw_model_add_field(model, "pt", "float"), "add pt");
  Check(rw_model_add_field(model, "hits", "std::vector<float>"), "add hits");
  rw_writer *writer = nullptr;
  Check(rw_ntuple_writer_recreate(model, "ntuple", argv[1], nullptr, &writer), "rw_ntuple_writer_recreate");
  rw_model_free(model);
  std::thread a(Produce, writer, 0), b(Produce, writer, kPerThread);
  a.join();
  b.join();
  Check(rw_writer_close(writer), "rw_writer_close");
  rw_writer_free(writer);
  std::printf("wrote %llu entries\n", static_cast<unsigned long long>(2 * kPerThread));
  return 0;
}
