// A bulk read feeding a histogram: the column's values arrive as Arrow arrays of whole
// clusters (decompressed on the library's threads while this loop fills from the batch
// before), and are binned straight from the buffers.
//
// Usage: read_histogram FILE OBJECT COLUMN   (a column of float or of std::vector<float>)
#include <rootweave.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// A histogram of 20 bins over [-4, 4) with under- and overflow.
struct Histogram {
  static constexpr int bins = 20;
  static constexpr double low = -4.0, high = 4.0;
  std::vector<long long> counts = std::vector<long long>(bins, 0);
  long long underflow = 0, overflow = 0, values = 0;

  void Fill(double x) {
    ++values;
    if (x < low) {
      ++underflow;
    } else if (x >= high) {
      ++overflow;
    } else {
      int bin = static_cast<int>((x - low) / (high - low) * bins);
      ++counts[bin < bins ? bin : bins - 1];
    }
  }
};

/// The float values of an Arrow array of float ("f") or of a large list of float ("+L").
void FillFrom(const ArrowArray& column, const char* format, Histogram& histogram) {
  if (std::strcmp(format, "f") == 0) {
    const float* values = static_cast<const float*>(column.buffers[1]) + column.offset;
    for (int64_t i = 0; i < column.length; ++i) histogram.Fill(values[i]);
    return;
  }
  const int64_t* offsets = static_cast<const int64_t*>(column.buffers[1]) + column.offset;
  const ArrowArray& items = *column.children[0];
  const float* values = static_cast<const float*>(items.buffers[1]) + items.offset;
  for (int64_t i = offsets[0]; i < offsets[column.length]; ++i) histogram.Fill(values[i]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s FILE OBJECT COLUMN\n", argv[0]);
    return 2;
  }
  try {
    auto stream = rootweave::ReadArrow({argv[1]}, argv[2], {argv[3]});
    ArrowSchema schema{};
    stream.GetSchema(schema);
    std::string format = schema.children[0]->format;
    schema.release(&schema);
    if (format != "f" && format != "+L") {
      std::fprintf(stderr, "column %s is not float or std::vector<float> (Arrow format %s)\n", argv[3],
                   format.c_str());
      return 1;
    }
    Histogram histogram;
    rootweave::ArrowBatch batch;
    int batches = 0;
    while (stream.Next(batch)) {
      FillFrom(*batch.array.children[0], format.c_str(), histogram);
      ++batches;
    }
    std::printf("batches: %d\nvalues: %lld\nunderflow: %lld\noverflow: %lld\nbins: [", batches,
                histogram.values, histogram.underflow, histogram.overflow);
    for (int b = 0; b < Histogram::bins; ++b) std::printf(b ? ", %lld" : "%lld", histogram.counts[b]);
    std::printf("]\n");
  } catch (const rootweave::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
