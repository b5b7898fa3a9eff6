"""Compresses files with CERN ROOT's own compression routine, as ROOT stores a page or a
basket: ROOT compression blocks of at most 16 MiB each, or the bytes themselves when the
blocks would not be smaller. Run as a child process, once per test module:

    python root_compress.py jobs.json

where jobs.json is a list of {"input", "output", "setting"} (setting = ROOT's integer
algorithm * 100 + level, e.g. 207 for LZMA level 7), or of {"input", "output", "size"}:
decompress the compressed payload `input` to `size` bytes with ROOT's R__unzip, block by
block as ROOT reads a page (an empty output if ROOT rejects a block).
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

// As ROOT's RNTuple page decompressor: block after block until `size` bytes are out; a
// payload of exactly `size` bytes is stored raw.
bool rootweave_test_root_decompress(const std::string &in, const std::string &out, int size)
{
   std::ifstream is(in, std::ios::binary);
   std::vector<unsigned char> src((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
   std::vector<unsigned char> dst(size);
   bool ok = true;
   if (static_cast<int>(src.size()) == size) {
      std::copy(src.begin(), src.end(), dst.begin());
   } else {
      std::size_t at = 0;
      int done = 0;
      while (ok && done < size) {
         int srcsize = 0, tgtsize = 0;
         if (at + 9 > src.size() || R__unzip_header(&srcsize, src.data() + at, &tgtsize) != 0 ||
             at + srcsize > src.size() || done + tgtsize > size) {
            ok = false;
            break;
         }
         int irep = 0;
         R__unzip(&srcsize, src.data() + at, &tgtsize, dst.data() + done, &irep);
         ok = irep == tgtsize;
         at += srcsize;
         done += tgtsize;
      }
      ok = ok && at == src.size();
   }
   std::ofstream os(out, std::ios::binary);
   if (ok)
      os.write(reinterpret_cast<const char *>(dst.data()), dst.size());
   return os.good();
}
""")

for job in json.load(open(sys.argv[1])):
    if "size" in job:
        done = ROOT.rootweave_test_root_decompress(job["input"], job["output"], int(job["size"]))
    else:
        done = ROOT.rootweave_test_root_compress(job["input"], job["output"], int(job["setting"]))
    if not done:
        sys.exit(f"could not write {job['output']}")
