// Types of bench/cpp/root_parallel_write.cxx that need a ROOT dictionary (for the TTree
// branches of the `complex` and `nanoaod` datasets). bench/parallel_write.py makes the
// dictionary with rootcling into bench/out.
//
// Event has the memory layout of the untyped record of `complex` (three 3-vectors,
// three doubles, three ints, 112 bytes with padding), which the program also relies on for
// ROOT's untyped RNTuple record field (it checks the offsets at run time).

#ifndef ROOTWEAVE_BENCH_PARALLEL_WRITE_TYPES_H
#define ROOTWEAVE_BENCH_PARALLEL_WRITE_TYPES_H

#include <vector>

struct Vec3 {
   double x = 0;
   double y = 0;
   double z = 0;
};

struct Event {
   Vec3 p0;
   Vec3 p1;
   Vec3 p2;
   double d0 = 0;
   double d1 = 0;
   double d2 = 0;
   int i0 = 0;
   int i1 = 0;
   int i2 = 0;
};

#endif
