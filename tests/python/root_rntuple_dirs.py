"""ROOT's side of the tests of RNTuples in directories (test_merge.py):

    python root_rntuple_dirs.py make FILE FIRST      writes FILE with RNTuples `d/ntuple`,
                                                     `a/b/ntuple` and `ntuple` of 100 entries
                                                     each, field `id` = FIRST + i + 10000 * j
                                                     (j = 0, 1, 2 in that order)
    python root_rntuple_dirs.py read FILE NAME...    prints {NAME: [entries, sum of id]} as
                                                     JSON, each read by RNTupleReader
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

ROOT.gInterpreter.Declare(r"""
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleWriter.hxx>
#include <TFile.h>
void rw_make_dirs(const char *path, long long first) {
  auto file = std::unique_ptr<TFile>(TFile::Open(path, "RECREATE"));
  const char *dirs[] = {"d", "a/b", ""};
  for (int j = 0; j < 3; ++j) {
    TDirectory *dir = file.get();
    if (dirs[j][0]) {
      file->mkdir(dirs[j]);
      dir = file->GetDirectory(dirs[j]);
    }
    auto model = ROOT::RNTupleModel::Create();
    auto id = model->MakeField<std::int64_t>("id");
    auto writer = ROOT::RNTupleWriter::Append(std::move(model), "ntuple", *dir);
    for (long long i = 0; i < 100; ++i) {
      *id = first + i + 10000 * j;
      writer->Fill();
    }
  }
}
std::pair<long long, long long> rw_read_ids(const char *name, const char *path) {
  auto reader = ROOT::RNTupleReader::Open(name, path);
  auto id = reader->GetView<std::int64_t>("id");
  long long sum = 0;
  for (auto i : reader->GetEntryRange()) sum += id(i);
  return {(long long)reader->GetNEntries(), sum};
}
""")


def main(mode, path, *rest):
    if mode == "make":
        ROOT.rw_make_dirs(path, int(rest[0]))
    else:
        seen = {}
        for name in rest:
            r = ROOT.rw_read_ids(name, path)
            seen[name] = [r.first, r.second]
        print(json.dumps(seen))


if __name__ == "__main__":
    main(*sys.argv[1:])
