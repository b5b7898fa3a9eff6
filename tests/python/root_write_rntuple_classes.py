"""Writes an RNTuple of user classes with ROOT 6.40, run as a child process:
`root_write_rntuple_classes.py OUTDIR ENTRIES`.

The classes need a compiled dictionary (ROOT crashes filling interpreted classes, and
aborts on maps and unordered containers without one), so this script writes the header
and LinkDef into OUTDIR, runs the wheel's rootcling and the system's C++ compiler, loads
the library and fills OUTDIR/classes.root:

  trk       Track, a TObject (fUniqueID = the entry) with a float, a std::map<std::string,
            float> and a std::vector<Hit>
  hits      std::vector<Hit>: Hit holds a float, a Double32_t (stored as float), an enum
            class with a 16-bit underlying type and a std::vector<int>
  us, um    std::unordered_set<std::int64_t>, std::unordered_map<std::string, std::int32_t>
  mm        std::map<int, std::vector<float>>
  col       the enum class Color on its own
  streamed  Holder {int a; std::vector<double> b;} in a streamer field: ROOT's own
            serialization of the object as bytes

Then it reads the streamer field back through ROOT (an RNTupleView<Holder>) and prints
one JSON line per entry with `a` and `b` as ROOT sees them, and finally "written".
"""

import json
import os
import subprocess
import sys
import warnings

warnings.filterwarnings("ignore")
import ROOT  # noqa: E402

TYPES = r"""
#pragma once
#include <TObject.h>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>
enum class Color : short { kRed = 1, kGreen = 7 };
struct Hit {
  float e;
  Double32_t t;
  Color c;
  std::vector<int> ids;
};
class Track : public TObject {
public:
  float pt = 0;
  std::map<std::string, float> tags;
  std::vector<Hit> hits;
  ClassDefOverride(Track, 2)
};
struct Holder {
  int a;
  std::vector<double> b;
};
"""

LINKDEF = r"""
#ifdef __CLING__
#pragma link C++ enum Color;
#pragma link C++ class Hit+;
#pragma link C++ class Track+;
#pragma link C++ class Holder+;
#pragma link C++ class std::vector<Hit>+;
#pragma link C++ class std::map<std::string, float>+;
#pragma link C++ class std::map<int, std::vector<float>>+;
#pragma link C++ class std::unordered_set<std::int64_t>+;
#pragma link C++ class std::unordered_map<std::string, std::int32_t>+;
#endif
"""

WRITER = r"""
#include <ROOT/RField.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleWriter.hxx>
#include <iostream>
namespace classes {
void Write(const char *path, int n) {
  auto model = ROOT::RNTupleModel::Create();
  auto trk = model->MakeField<Track>("trk");
  auto hits = model->MakeField<std::vector<Hit>>("hits");
  auto us = model->MakeField<std::unordered_set<std::int64_t>>("us");
  auto um = model->MakeField<std::unordered_map<std::string, std::int32_t>>("um");
  auto mm = model->MakeField<std::map<int, std::vector<float>>>("mm");
  auto col = model->MakeField<Color>("col");
  model->AddField(std::make_unique<ROOT::RStreamerField>("streamed", "Holder"));
  ROOT::RNTupleWriteOptions options;
  options.SetMaxUnzippedPageSize(1024);
  auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "classes", path, options);
  auto streamed = writer->GetModel().GetDefaultEntry().GetPtr<Holder>("streamed");
  for (int e = 0; e < n; ++e) {
    trk->pt = e * 1.5f;
    trk->SetUniqueID(e);
    trk->tags.clear();
    for (int j = 0; j < e % 3; ++j) trk->tags["t" + std::to_string(j)] = e + j * 0.25f;
    trk->hits.clear();
    for (int j = 0; j < e % 4; ++j)
      trk->hits.push_back(Hit{float(j) - e, e * 0.1, j % 2 ? Color::kRed : Color::kGreen, std::vector<int>(j, e)});
    *hits = trk->hits;
    us->clear();
    for (int j = 0; j < e % 3; ++j) us->insert(std::int64_t(e) * 100000000000LL + j);
    um->clear();
    for (int j = 0; j < e % 3; ++j) (*um)["k" + std::to_string(j)] = e * 10 + j;
    mm->clear();
    for (int j = 0; j < e % 2 + 1; ++j) (*mm)[j - e] = std::vector<float>(j + 1, e * 0.5f);
    *col = e % 2 ? Color::kRed : Color::kGreen;
    streamed->a = e - 7;
    streamed->b.assign(e % 3, e * 2.0 + 0.125);
    writer->Fill();
    if (e % 400 == 399) writer->CommitCluster();
  }
}
void PrintStreamed(const char *path) {
  auto reader = ROOT::RNTupleReader::Open("classes", path);
  auto view = reader->GetView<Holder>("streamed");
  std::cout.precision(17);
  for (auto i : reader->GetEntryRange()) {
    const Holder &h = view(i);
    std::cout << "{\"a\": " << h.a << ", \"b\": [";
    for (std::size_t j = 0; j < h.b.size(); ++j) std::cout << (j ? ", " : "") << h.b[j];
    std::cout << "]}\n";
  }
  std::cout.flush();
}
}  // namespace classes
"""


def build_dictionary(out):
    """Writes the header and LinkDef, makes the dictionary and returns the library's path."""
    prefix = os.path.dirname(ROOT.__file__)
    with open(os.path.join(out, "ClassesTypes.h"), "w") as f:
        f.write(TYPES)
    with open(os.path.join(out, "ClassesLinkDef.h"), "w") as f:
        f.write(LINKDEF)
    library = os.path.join(out, "libClasses.so")
    env = dict(os.environ, PATH=os.path.join(prefix, "bin") + os.pathsep + os.environ.get("PATH", ""))
    subprocess.run([os.path.join(prefix, "bin", "rootcling"), "-f", "ClassesDict.cxx", "ClassesTypes.h",
                    "ClassesLinkDef.h"], cwd=out, env=env, check=True)
    subprocess.run([os.environ.get("CXX", "c++"), "-O0", "-shared", "-fPIC", "-pthread", "-std=c++17",
                    f"-I{prefix}/include", "-I.", "ClassesDict.cxx", "-o", library, f"-L{prefix}/lib", "-lCore",
                    "-lRIO", f"-Wl,-rpath,{prefix}/lib"], cwd=out, check=True)
    return library


def main():
    out, entries = sys.argv[1], int(sys.argv[2])
    ROOT.gSystem.Load(build_dictionary(out))
    ROOT.gInterpreter.Declare(f'#include "{out}/ClassesTypes.h"\n' + WRITER)
    path = os.path.join(out, "classes.root")
    ROOT.classes.Write(path, entries)
    sys.stdout.flush()
    ROOT.classes.PrintStreamed(path)
    # Lines that are not JSON would break the test's parsing: check here, where they came from.
    print(json.dumps("written"))


main()
