"""Reads RNTuples with CERN ROOT and writes every field's values as canonical buffers
(see canonical.py), plus what RDataFrame sees. Run as a child process, once per test
module (ROOT's start-up costs seconds, and a corrupt file may crash it):

    python root_dump.py jobs.json

where jobs.json is a list of {"file", "ntuple", "out"}. For each job, <out>/manifest.json
and the buffers are written, and <out>/rdf.json holds RDataFrame's entry count, the values
of top-level numeric columns (as lists) and the total size of each collection column.

A job with "spot": {"field": name, "indices": [...]} instead reads only those entries of one
`std::uint64_t` field and writes <out>/spot.json with the entry count and the values, and
RDataFrame's count and maximum of that field (for files too large to dump).
"""

import json
import os
import sys
import warnings

warnings.filterwarnings("ignore", message=".*alpha.*")
warnings.filterwarnings("ignore", category=UserWarning, module="ROOT")
import ROOT  # noqa: E402

CPP = r"""
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleView.hxx>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

// The class the all-types test files store (a user's dictionary would provide it).
namespace rwtest {
struct Hit {
  float e;
  std::int32_t id;
  std::vector<float> samples;
};
}  // namespace rwtest

namespace rwdump {

struct Sink {
  std::string dir;
  std::ostringstream manifest;
  int next = 0;

  void put(const std::string &path, const std::string &dtype, const void *data, std::size_t bytes) {
    std::string file = std::to_string(next++) + ".bin";
    std::ofstream(dir + "/" + file, std::ios::binary).write(static_cast<const char *>(data), bytes);
    manifest << (next > 1 ? ", " : "") << "\"" << path << "\": {\"dtype\": \"" << dtype
             << "\", \"file\": \"" << file << "\"}";
  }
};

template <typename T>
void scalars(ROOT::RNTupleReader &r, const std::string &name, std::uint64_t n, const char *dtype, Sink &s) {
  auto view = r.GetView<T>(name);
  std::vector<T> v(n);
  for (std::uint64_t i = 0; i < n; ++i) v[i] = view(i);
  s.put(name, dtype, v.data(), v.size() * sizeof(T));
}

void field(ROOT::RNTupleReader &r, ROOT::DescriptorId_t id, std::uint64_t n, Sink &s) {
  const auto &desc = r.GetDescriptor();
  const auto &fd = desc.GetFieldDescriptor(id);
  const std::string name = desc.GetQualifiedFieldName(id);
  const std::string type = fd.GetTypeName();
  const auto structure = fd.GetStructure();
  if (structure == ROOT::ENTupleStructure::kCollection) {
    auto view = r.GetCollectionView(name);
    std::vector<std::uint64_t> counts(n);
    std::uint64_t total = 0;
    for (std::uint64_t i = 0; i < n; ++i) total += (counts[i] = view(i));
    s.put(name + "#counts", "uint64", counts.data(), counts.size() * 8);
    field(r, fd.GetLinkIds().at(0), total, s);
  } else if (structure == ROOT::ENTupleStructure::kRecord) {
    for (auto child : fd.GetLinkIds()) field(r, child, n, s);
  } else if (fd.GetNRepetitions() > 0) {
    field(r, fd.GetLinkIds().at(0), n * fd.GetNRepetitions(), s);
  } else if (type == "bool") {
    auto view = r.GetView<bool>(name);
    std::vector<std::uint8_t> v(n);
    for (std::uint64_t i = 0; i < n; ++i) v[i] = view(i);
    s.put(name, "bool", v.data(), v.size());
  } else if (type == "std::int8_t") scalars<std::int8_t>(r, name, n, "int8", s);
  else if (type == "std::int16_t") scalars<std::int16_t>(r, name, n, "int16", s);
  else if (type == "std::int32_t") scalars<std::int32_t>(r, name, n, "int32", s);
  else if (type == "std::int64_t") scalars<std::int64_t>(r, name, n, "int64", s);
  else if (type == "std::uint8_t") scalars<std::uint8_t>(r, name, n, "uint8", s);
  else if (type == "std::uint16_t") scalars<std::uint16_t>(r, name, n, "uint16", s);
  else if (type == "std::uint32_t") scalars<std::uint32_t>(r, name, n, "uint32", s);
  else if (type == "std::uint64_t") scalars<std::uint64_t>(r, name, n, "uint64", s);
  else if (type == "float") scalars<float>(r, name, n, "float32", s);
  else if (type == "double") scalars<double>(r, name, n, "float64", s);
  else if (type == "std::string") {
    auto view = r.GetView<std::string>(name);
    std::vector<std::uint64_t> counts(n);
    std::string bytes;
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto &str = view(i);
      counts[i] = str.size();
      bytes += str;
    }
    s.put(name + "#counts", "uint64", counts.data(), counts.size() * 8);
    s.put(name + "#bytes", "uint8", bytes.data(), bytes.size());
  } else {
    throw std::runtime_error("root_dump: no canonical form for field " + name + " of type " + type);
  }
}

std::uint64_t dump(const std::string &file, const std::string &ntuple, const std::string &dir) {
  auto reader = ROOT::RNTupleReader::Open(ntuple, file);
  Sink s{dir};
  const auto n = reader->GetNEntries();
  const auto &desc = reader->GetDescriptor();
  for (const auto &top : desc.GetTopLevelFields()) field(*reader, top.GetId(), n, s);
  std::ofstream(dir + "/manifest.json") << "{\"entries\": " << n << ", \"buffers\": {" << s.manifest.str() << "}}\n";
  return n;
}

}  // namespace rwdump
"""

NUMERIC = {"bool", "std::int8_t", "std::int16_t", "std::int32_t", "std::int64_t", "std::uint8_t",
           "std::uint16_t", "std::uint32_t", "std::uint64_t", "float", "double"}


def rdataframe_summary(file, ntuple, field_types, entries):
    """What RDataFrame reads: entry count, numeric top-level columns, collection sizes.

    ROOT 6.40's RDataFrame crashes on an RNTuple without entries (one written by ROOT's
    own RNTupleWriter too), so an empty RNTuple is not given to it."""
    if entries == 0:
        return {"count": 0, "columns": {}, "collection_sizes": {}, "skipped": "empty"}
    df = ROOT.RDataFrame(ntuple, file)
    summary = {"count": int(df.Count().GetValue()), "columns": {}, "collection_sizes": {}}
    scalar = [name for name, t in field_types.items() if t in NUMERIC]
    if scalar and summary["count"] > 0:
        arrays = df.AsNumpy(scalar)
        for name in scalar:
            values = arrays[name]
            summary["columns"][name] = [float(x) if values.dtype.kind == "f" else int(x) for x in values]
    vectors = [name for name, t in field_types.items() if t.startswith("std::vector<") and t[12:-1] in NUMERIC]
    for name in vectors:
        summary["collection_sizes"][name] = int(df.Define(f"n_{name}", f"(unsigned long long){name}.size()").Sum(f"n_{name}").GetValue()) if summary["count"] else 0
    return summary


def spot(job):
    field, indices = job["spot"]["field"], job["spot"]["indices"]
    reader = ROOT.RNTupleReader.Open(job["ntuple"], job["file"])
    view = reader.GetView["std::uint64_t"](field)
    result = {"entries": int(reader.GetNEntries()), "values": [int(view(i)) for i in indices]}
    del view, reader
    df = ROOT.RDataFrame(job["ntuple"], job["file"])
    count, maximum = df.Count(), df.Max(field)
    result["rdf_count"] = int(count.GetValue())
    result["rdf_max"] = int(maximum.GetValue())
    with open(os.path.join(job["out"], "spot.json"), "w") as f:
        json.dump(result, f)


def main():
    with open(sys.argv[1]) as f:
        jobs = json.load(f)
    ROOT.gInterpreter.Declare(CPP)
    for job in jobs:
        os.makedirs(job["out"], exist_ok=True)
        if "spot" in job:
            spot(job)
            continue
        # Through TFile too: the header, keys, StreamerInfo record and the anchor object.
        tfile = ROOT.TFile.Open(job["file"])
        infos = tfile.GetStreamerInfoList()
        assert infos and any(i.GetName() == "ROOT::RNTuple" for i in infos), "no ROOT::RNTuple streamer info"
        anchor = tfile.Get(job["ntuple"])
        assert anchor, "TFile::Get found no anchor"
        tfile.Close()
        entries = ROOT.rwdump.dump(job["file"], job["ntuple"], job["out"])
        reader = ROOT.RNTupleReader.Open(job["ntuple"], job["file"])
        desc = reader.GetDescriptor()
        types = {f.GetFieldName(): f.GetTypeName() for f in desc.GetTopLevelFields()}
        del reader
        if job.get("rdataframe", True):
            with open(os.path.join(job["out"], "rdf.json"), "w") as f:
                json.dump(rdataframe_summary(job["file"], job["ntuple"], types, entries), f)
    print("root_dump: done", len(jobs))


if __name__ == "__main__":
    main()
