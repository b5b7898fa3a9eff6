"""Writes three RNTuples "Events" of different schemas with CERN ROOT, and merges them
with ROOT's RNTupleMerger in its union mode. Run as a child process:

    python root_union_inputs.py OUT_DIR

OUT_DIR/a.root  x (int), v (vector<float>), s (string)                  1200 entries
OUT_DIR/b.root  pt (float), x, arr (array<float, 3>)                      900 entries
OUT_DIR/c.root  v, x, flag (bool), pt, p (pair<int, float>)               700 entries
OUT_DIR/root_union.root  a, b and c merged by ROOT (rntuple.MergingMode=Union)

Entry i of each file: x = 1000 * file number + i, v = [0.5 i] * (i % 3), s = "s" * (i % 7),
pt = 1.5 i, arr = [i, i + 1, i + 2], flag = i odd, p = (i, 0.25 i); clusters of 500 entries.
"""

import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

ROOT.gInterpreter.Declare(r'''
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleWriter.hxx>
#include <TFileMerger.h>
#include <array>
#include <string>
#include <utility>
#include <vector>

void rw_union_inputs(const std::string &dir) {
  auto fill = [](ROOT::RNTupleWriter &w, int n, auto set) {
    for (int i = 0; i < n; ++i) {
      set(i);
      w.Fill();
      if ((i + 1) % 500 == 0) w.CommitCluster();
    }
  };
  {
    auto model = ROOT::RNTupleModel::Create();
    auto x = model->MakeField<int>("x");
    auto v = model->MakeField<std::vector<float>>("v");
    auto s = model->MakeField<std::string>("s");
    auto w = ROOT::RNTupleWriter::Recreate(std::move(model), "Events", dir + "/a.root");
    fill(*w, 1200, [&](int i) {
      *x = 1000 + i;
      *v = std::vector<float>(i % 3, 0.5f * i);
      *s = std::string(i % 7, 's');
    });
  }
  {
    auto model = ROOT::RNTupleModel::Create();
    auto pt = model->MakeField<float>("pt");
    auto x = model->MakeField<int>("x");
    auto arr = model->MakeField<std::array<float, 3>>("arr");
    auto w = ROOT::RNTupleWriter::Recreate(std::move(model), "Events", dir + "/b.root");
    fill(*w, 900, [&](int i) {
      *pt = 1.5f * i;
      *x = 2000 + i;
      *arr = {float(i), float(i + 1), float(i + 2)};
    });
  }
  {
    auto model = ROOT::RNTupleModel::Create();
    auto v = model->MakeField<std::vector<float>>("v");
    auto x = model->MakeField<int>("x");
    auto flag = model->MakeField<bool>("flag");
    auto pt = model->MakeField<float>("pt");
    auto p = model->MakeField<std::pair<int, float>>("p");
    auto w = ROOT::RNTupleWriter::Recreate(std::move(model), "Events", dir + "/c.root");
    fill(*w, 700, [&](int i) {
      *v = std::vector<float>(i % 3, 0.5f * i);
      *x = 3000 + i;
      *flag = i % 2 == 1;
      *pt = 1.5f * i;
      *p = {i, 0.25f * i};
    });
  }
  TFileMerger merger(false, false);
  merger.OutputFile((dir + "/root_union.root").c_str(), "RECREATE");
  for (auto name : {"a", "b", "c"}) merger.AddFile((dir + "/" + name + ".root").c_str());
  merger.SetMergeOptions(TString("rntuple.MergingMode=Union"));
  if (!merger.Merge()) throw std::runtime_error("ROOT's union merge failed");
}
''')

ROOT.rw_union_inputs(sys.argv[1])
