"""The C++ class root_write_ttree.py writes as a split branch, for ROOT scripts that write
or read it (declare it before the file is opened)."""

RW_HIT = r'''
#include <vector>
struct RwHit {
  float e;
  int id;
  Double32_t q; //[0,100,16]
  Double32_t r;
  Float16_t h;
  Float16_t hr; //[-1,1,12]
  std::vector<float> w;
};
'''
