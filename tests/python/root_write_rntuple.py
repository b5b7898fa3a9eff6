"""Writes RNTuples with CERN ROOT's own RNTupleWriter, for the reader's tests. Run as a
child process (ROOT starts once for all files):

    python root_write_rntuple.py OUT1 COMPRESSION1 ENTRIES1 [OUT2 COMPRESSION2 ENTRIES2 ...]

Small pages (8 KiB) and clusters (64 KiB zipped) give many pages and clusters per file.
The values are functions of the entry number; test_rntuple_read.py computes the same.
"""

import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

ROOT.gInterpreter.Declare(r'''
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleWriter.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
#include <cstdint>
#include <string>
#include <vector>
#include <optional>
#include <array>
void rw_write(const char *path, int compression, std::uint64_t n) {
  auto model = ROOT::RNTupleModel::Create();
  auto i32 = model->MakeField<std::int32_t>("i32");
  auto u64 = model->MakeField<std::uint64_t>("u64");
  auto i16 = model->MakeField<std::int16_t>("i16");
  auto u8 = model->MakeField<std::uint8_t>("u8");
  auto b = model->MakeField<bool>("b");
  auto f = model->MakeField<float>("f");
  auto d = model->MakeField<double>("d");
  auto s = model->MakeField<std::string>("s");
  auto v = model->MakeField<std::vector<float>>("v");
  auto vv = model->MakeField<std::vector<std::vector<std::int64_t>>>("vv");
  auto a = model->MakeField<std::array<std::int32_t, 3>>("a");
  auto o = model->MakeField<std::optional<double>>("o");
  ROOT::RNTupleWriteOptions opts;
  opts.SetCompression(compression);
  opts.SetApproxZippedClusterSize(64 * 1024);
  opts.SetMaxUnzippedPageSize(8 * 1024);
  opts.SetInitialUnzippedPageSize(1024);
  auto w = ROOT::RNTupleWriter::Recreate(std::move(model), "ntpl", path, opts);
  for (std::uint64_t e = 0; e < n; ++e) {
    *i32 = std::int32_t(e * 7919) - 1000000;
    *u64 = e * 0x9E3779B97F4A7C15ULL;
    *i16 = std::int16_t(e % 65536) ;
    *u8 = std::uint8_t(e % 251);
    *b = (e % 3) == 0;
    *f = float(e) * 0.25f - 100.f;
    *d = double(e) / 7.0;
    *s = "s" + std::to_string(e * 13 % 1000);
    v->clear(); for (std::uint64_t j = 0; j < e % 5; ++j) v->push_back(float(j) + 0.5f * float(e % 11));
    vv->clear(); for (std::uint64_t j = 0; j < e % 3; ++j) { vv->emplace_back(); for (std::uint64_t k = 0; k < j + e % 2; ++k) vv->back().push_back(std::int64_t(e) * 1000 + j * 10 + k - 5000); }
    *a = {std::int32_t(e), -std::int32_t(e), std::int32_t(e % 17)};
    if (e % 4 == 1) *o = double(e) * 1.5; else o->reset();
    w->Fill();
  }
}
''')
for path, comp, n in zip(sys.argv[1::3], sys.argv[2::3], sys.argv[3::3]):
    ROOT.rw_write(path, int(comp), int(n))
