"""Writes RNTuples of many shapes with CERN ROOT 6.40, for the reader's tests (run as a
child process: ROOT starts once for all files):

    python root_write_rntuple_zoo.py OUTDIR ENTRIES NANOAOD_TTREE

OUTDIR/zoo.root    RNTuple `zoo`: STL containers (set, variant, unique_ptr, bitset, pair, tuple, RVec, vector<bool>, arrays of vectors,
                   vectors of arrays, optional vectors, vectors of strings, atomic), the
                   floating-point column types ROOT writes on request (Real16,
                   Real32Trunc, Real32Quant, Double32_t), a late model extension halfway
                   (fields `late` and `late_v`), and a cluster group every 1500 entries
                   (a cluster every 500). Values are functions of the entry number;
                   test_rntuple_zoo.py computes the same. (Maps need a dictionary of
                   their std::pair, which an interpreted program lacks: the test data's
                   STL file has them.)
OUTDIR/zoo-parallel.root  The same fields (without the extension) from two fill contexts of
                   RNTupleParallelWriter, each its own entries.
OUTDIR/nanoaod.root  The real CMS NanoAOD TTree NANOAOD_TTREE imported by ROOT's
                   RNTupleImporter (collections sharing a counter become untyped
                   collections `_collectionN` with projected RVec fields).
"""

import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

ROOT.gInterpreter.Declare(r'''
#include <ROOT/RField.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleParallelWriter.hxx>
#include <ROOT/RNTupleFillContext.hxx>
#include <ROOT/RNTupleWriter.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
#include <ROOT/RVec.hxx>
#include <array>
#include <atomic>
#include <bitset>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace zoo {

std::unique_ptr<ROOT::RNTupleModel> Model() {
  auto model = ROOT::RNTupleModel::Create();
  model->MakeField<std::set<std::int32_t>>("st");
  model->MakeField<std::variant<std::int32_t, float, std::string>>("var");
  model->MakeField<std::unique_ptr<double>>("up");
  model->MakeField<std::bitset<70>>("bs");
  model->MakeField<std::pair<std::int32_t, std::string>>("pr");
  model->MakeField<std::tuple<std::int16_t, double, std::string>>("tp");
  model->MakeField<ROOT::RVec<double>>("rv");
  model->MakeField<std::vector<bool>>("vb");
  model->MakeField<std::array<std::vector<std::int32_t>, 2>>("av");
  model->MakeField<std::vector<std::array<float, 2>>>("va");
  model->MakeField<std::optional<std::vector<std::int32_t>>>("ov");
  model->MakeField<std::vector<std::string>>("vs");
  model->MakeField<std::atomic<std::int32_t>>("at");
  model->MakeField<std::uint64_t>("id");
  {
    auto f = std::make_unique<ROOT::RField<float>>("f16");
    f->SetHalfPrecision();
    model->AddField(std::move(f));
  }
  {
    auto f = std::make_unique<ROOT::RField<float>>("ftrunc");
    f->SetTruncated(14);
    model->AddField(std::move(f));
  }
  {
    auto f = std::make_unique<ROOT::RField<double>>("dquant");
    f->SetQuantized(20, {-100.0, 100.0});
    model->AddField(std::move(f));
  }
  model->AddField(ROOT::RFieldBase::Create("d32", "Double32_t").Unwrap());
  return model;
}

void Set(ROOT::REntry &entry, std::uint64_t e) {
  auto &st = *entry.GetPtr<std::set<std::int32_t>>("st");
  st.clear();
  for (std::uint64_t j = 0; j < e % 3; ++j) st.insert(std::int32_t(e % 7) * 10 - std::int32_t(j));
  auto &var = *entry.GetPtr<std::variant<std::int32_t, float, std::string>>("var");
  if (e % 3 == 0) var = std::int32_t(e) * -3;
  else if (e % 3 == 1) var = float(e) * 0.5f;
  else var = "v" + std::to_string(e);
  auto &up = *entry.GetPtr<std::unique_ptr<double>>("up");
  if (e % 5 == 2) up = std::make_unique<double>(double(e) / 8.0); else up.reset();
  auto &bs = *entry.GetPtr<std::bitset<70>>("bs");
  bs.reset();
  bs.set(e % 70);
  bs.set((e * 7) % 70);
  *entry.GetPtr<std::pair<std::int32_t, std::string>>("pr") = {std::int32_t(e) - 50, "p" + std::to_string(e % 9)};
  *entry.GetPtr<std::tuple<std::int16_t, double, std::string>>("tp") =
      {std::int16_t(e % 300) , double(e) * 0.125, std::string(e % 4, 'x')};
  auto &rv = *entry.GetPtr<ROOT::RVec<double>>("rv");
  rv.clear();
  for (std::uint64_t j = 0; j < e % 6; ++j) rv.push_back(double(j) - double(e) * 0.5);
  auto &vb = *entry.GetPtr<std::vector<bool>>("vb");
  vb.clear();
  for (std::uint64_t j = 0; j < e % 5; ++j) vb.push_back((e + j) % 3 == 0);
  auto &av = *entry.GetPtr<std::array<std::vector<std::int32_t>, 2>>("av");
  av[0].assign(e % 3, std::int32_t(e));
  av[1].assign((e + 1) % 3, -std::int32_t(e));
  auto &va = *entry.GetPtr<std::vector<std::array<float, 2>>>("va");
  va.clear();
  for (std::uint64_t j = 0; j < e % 3; ++j) va.push_back({float(j), float(e) * 0.25f});
  auto &ov = *entry.GetPtr<std::optional<std::vector<std::int32_t>>>("ov");
  if (e % 4 == 3) ov.reset(); else ov = std::vector<std::int32_t>(e % 4, std::int32_t(e % 100));
  auto &vs = *entry.GetPtr<std::vector<std::string>>("vs");
  vs.clear();
  for (std::uint64_t j = 0; j < e % 3; ++j) vs.push_back(std::string(j + 1, char('a' + e % 26)));
  entry.GetPtr<std::atomic<std::int32_t>>("at")->store(std::int32_t(e * 3));
  *entry.GetPtr<std::uint64_t>("id") = e;
  *entry.GetPtr<float>("f16") = float(e % 64) * 0.25f;
  *entry.GetPtr<float>("ftrunc") = float(e % 32) - 16.0f;
  *entry.GetPtr<double>("dquant") = double(e % 2000) * 0.1 - 100.0;
  *entry.GetPtr<double>("d32") = double(e % 1000) * 0.5;
}

void Write(const char *path, std::uint64_t n) {
  ROOT::RNTupleWriteOptions opts;
  opts.SetMaxUnzippedPageSize(4096);
  opts.SetInitialUnzippedPageSize(256);
  auto writer = ROOT::RNTupleWriter::Recreate(Model(), "zoo", path, opts);
  auto entry = writer->CreateEntry();
  for (std::uint64_t e = 0; e < n; ++e) {
    if (e == n / 2) {
      // Late model extension: fields whose columns start at this entry.
      auto updater = writer->CreateModelUpdater();
      updater->BeginUpdate();
      updater->AddField(std::make_unique<ROOT::RField<double>>("late"));
      updater->AddField(std::make_unique<ROOT::RField<std::vector<std::int32_t>>>("late_v"));
      updater->CommitUpdate();
      entry = writer->CreateEntry();
    }
    Set(*entry, e);
    if (e >= n / 2) {
      *entry->GetPtr<double>("late") = double(e) * 2.0;
      *entry->GetPtr<std::vector<std::int32_t>>("late_v") = std::vector<std::int32_t>(e % 3, std::int32_t(e));
    }
    writer->Fill(*entry);
    if (e % 500 == 499) writer->CommitCluster(e % 1500 == 1499);
  }
}

void WriteParallel(const char *path, std::uint64_t n) {
  ROOT::RNTupleWriteOptions opts;
  opts.SetMaxUnzippedPageSize(4096);
  auto writer = ROOT::RNTupleParallelWriter::Recreate(Model(), "zoo", path, opts);
  auto even = writer->CreateFillContext();
  auto odd = writer->CreateFillContext();
  auto evenEntry = even->CreateEntry();
  auto oddEntry = odd->CreateEntry();
  for (std::uint64_t e = 0; e < n; ++e) {
    auto &context = e % 2 ? odd : even;
    auto &entry = e % 2 ? oddEntry : evenEntry;
    Set(*entry, e);
    context->Fill(*entry);
    if (e % 700 == 699) context->FlushCluster();
  }
}

}  // namespace zoo
''')

out, entries, nanoaod = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ROOT.zoo.Write(f"{out}/zoo.root", entries)
ROOT.zoo.WriteParallel(f"{out}/zoo-parallel.root", entries)
importer = ROOT.Experimental.RNTupleImporter.Create(nanoaod, "Events", f"{out}/nanoaod.root")
importer.SetIsQuiet(True)
importer.Import()
print("written")
