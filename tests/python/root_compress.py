"""Compresses files with CERN ROOT's own compression routine, as ROOT stores a page or a
basket: ROOT compression blocks of at most 16 MiB each, or the bytes themselves when the
blocks would not be smaller. Run as a child process, once per test module:

    python root_compress.py jobs.json

where jobs.json is a list of {"input", "output", "setting"} (setting = ROOT's integer
algorithm * 100 + level, e.g. 207 for LZMA level 7).
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore", message=".*alpha.*")
warnings.filterwarnings("ignore", category=UserWarning, module="ROOT")
import ROOT  # noqa: E402

ROOT.gInterpreter.Declare(r"""
#include <RZip.h>
#include <Compression.h>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

// As ROOT's RNTuple page compressor: one R__zipMultipleAlgorithm call per 16 MiB block;
// the input itself when any block fails or the whole is not smaller.
bool rootweave_test_root_compress(const std::string &in, const std::string &out, int setting)
{
   std::ifstream is(in, std::ios::binary);
   std::vector<char> src((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
   std::vector<char> dst(src.size() + 1024);
   std::size_t written = 0;
   bool compressed = setting != 0 && src.size() > 0;
   for (std::size_t at = 0; compressed && at < src.size(); at += kMAXZIPBUF) {
      int srcsize = static_cast<int>(std::min<std::size_t>(kMAXZIPBUF, src.size() - at));
      int tgtsize = static_cast<int>(dst.size() - written);
      int irep = 0;
      R__zipMultipleAlgorithm(setting % 100, &srcsize, src.data() + at, &tgtsize, dst.data() + written, &irep,
                              ROOT::RCompressionSetting::AlgorithmFromCompressionSettings(setting));
      if (irep <= 0)
         compressed = false;
      written += irep;
   }
   std::ofstream os(out, std::ios::binary);
   if (compressed && written < src.size())
      os.write(dst.data(), written);
   else
      os.write(src.data(), src.size());
   return os.good();
}
""")

for job in json.load(open(sys.argv[1])):
    if not ROOT.rootweave_test_root_compress(job["input"], job["output"], int(job["setting"])):
        sys.exit(f"could not write {job['output']}")
