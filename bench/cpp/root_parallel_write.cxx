// ROOT's side of bench/parallel_write.py: the datasets of `rootweave generate` written from
// T threads with ROOT's RNTupleParallelWriter or with TBufferMerger (a TTree), or from one
// thread into one TTree with implicit multithreading (imt), with the very
// same values (seed 1):
//   single:  std::int32_t x = top 20 bits of splitmix64 draws from seed 1;
//   complex: ten untyped collections e0..e9 of records {p0, p1, p2: {x, y, z}, d0..d2, i0..i2};
//   wide:    1000 float fields f0..f999 (wide:N: N fields, chunks of 1000 * (1000 / N) entries);
//   complexflat: complex as NanoAOD-style TTree branches (counters ne0.., arrays e0_p0_x[ne0]..);
//   complex:L[,L...]: complex with the TTree branches e0, e1, ... split at levels L (the last
//            level for the branches after the list: `complex:0` unsplit, `complex:99,0` mixed);
//   complexclass: complex with the RNTuple's collections as std::vector<Event> fields (the
//            classes of parallel_write_types.h) instead of untyped records;
//   nanoaod: the NanoAOD-like events (see README.md).
// complex, wide and nanoaod are made in chunks (1000, 1000 and 10000 entries) from
// xoshiro256** seeded per chunk exactly as rootweave's Rng::for_chunk(1, chunk) does, with
// the draws in the order of crates/rootweave-cli/src/{datasets,synth}.rs.
//
//   root_parallel_write rntuple|rntuplewriter|tbuffermerger|imt|generate SCHEMA OUT ENTRIES THREADS COMPRESSION
//
// rntuple: RNTupleParallelWriter, a fill context per thread; rntuplewriter: one RNTupleWriter
// filled on one thread, with implicit multithreading for THREADS > 1 (pages compressed on a
// pool of THREADS threads).
// `generate` makes the values without writing anything (OUT and COMPRESSION are ignored).
// Threads take chunks from a shared counter, like rootweave does, and make the values of
// their chunks themselves, so the time includes making the values, as rootweave's does.
//
// Layouts. RNTuple: exactly the fields of rootweave's schema, untyped records and
// collections included (ROOT's RRecordField and RVectorField::CreateUntyped). TTree:
// leaves for numbers (`beamSpot[3]/F`), std::vector branches for collections of numbers,
// the NanoAOD Muon collection as one std::vector branch per member (Muon_pt, ...), each
// `complex` collection as a split std::vector<Event> branch (dictionary from
// parallel_write_types.h), `Track_hits` as std::vector<std::vector<int>>, `dataset` as
// std::string.
//
// Prints "root_version <ROOT's version>", "rss_start_kib <resident memory after start-up>",
// "payload_bytes <bytes of the values>" (see bench/parallel_write.py for the definition),
// "seconds <wall time from creating the writer to closing the file>" and "peak_rss_kib <the
// most resident memory of the process, VmHWM>".
//
// Built with -DROOTWEAVE_CPP_API and linked with librootweave (bench/cpp_write.py does), the
// program also writes through rootweave's C++ API (rootweave.hpp), with the same values, the
// same chunks and the same threads:
//
//   root_parallel_write rwntuple|rwtree|rwntuple-append|rwtree-append SCHEMA OUT ENTRIES THREADS
//                       COMPRESSION [BUDGET_MIB]
//
// and `rwcolumns-ntuple` / `rwcolumns-tree` make each chunk's values and the columns the
// `-append` modes hand over, without writing (the program's own share of those modes).
//
// rwntuple: rootweave::RNTupleParallelWriter, a fill context per thread, each entry filled
// (Fill) from this program's objects bound by address (CreateRawPtrWriteEntry + BindRawPtr),
// as a framework fills; rwtree: rootweave::TTreeParallelWriter, the same way. The -append
// modes hand each chunk over as columns instead (FillContext::Append of rw_column). Fields:
// nanoaod as ROOT's backends lay it out (RNTuple: `Muon` a collection of records, here
// std::vector<MuonRecord> of a class declared with AddClass; TTree: one std::vector branch per
// Muon member, as TBufferMerger's tree), complexclass as ten std::vector<Event> (AddClass of
// Vec3, then Event), wide:N as N floats. BUDGET_MIB is rootweave's memory budget (default
// 256); these modes also print "budget_peak_bytes" and "budget_limit_bytes".

#include "parallel_write_types.h"

#include <ROOT/RField.hxx>
#include <ROOT/RNTupleFillContext.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleParallelWriter.hxx>
#include <ROOT/RNTupleWriter.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
#include <ROOT/TBufferMerger.hxx>
#include <TFile.h>
#include <TROOT.h>
#include <TTree.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#ifdef ROOTWEAVE_CPP_API
#include <rootweave.hpp>
#endif

static constexpr std::uint64_t kSeed = 1;

// ---------------------------------------------------------------------------------------
// Random numbers: the same algorithms and the same arithmetic as crates/rootweave-cli/src/random.rs.

static std::uint64_t splitmix64(std::uint64_t &state)
{
   state += 0x9E3779B97F4A7C15ULL;
   std::uint64_t z = state;
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
   return z ^ (z >> 31);
}

static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// xoshiro256** seeded like rootweave's Rng::for_chunk(seed, index).
struct Rng {
   std::uint64_t s[4];
   Rng(std::uint64_t seed, std::uint64_t index)
   {
      std::uint64_t sm = seed ^ (index * 0xD1B54A32D192ED03ULL);
      std::uint64_t inner = splitmix64(sm);
      for (auto &w : s)
         w = splitmix64(inner);
   }
   std::uint64_t next()
   {
      std::uint64_t result = rotl(s[1] * 5, 7) * 9;
      std::uint64_t t = s[1] << 17;
      s[2] ^= s[0];
      s[3] ^= s[1];
      s[1] ^= s[2];
      s[0] ^= s[3];
      s[2] ^= t;
      s[3] = rotl(s[3], 45);
      return result;
   }
   double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
   std::uint64_t below(std::uint64_t n)
   {
      return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
   }
   bool chance(double p) { return uniform() < p; }
   double exponential(double mean) { return -mean * std::log(1.0 - uniform()); }
   double normal(double mean, double sigma)
   {
      double u1 = 1.0 - uniform();
      double u2 = uniform();
      return mean + sigma * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
   }
};

// ---------------------------------------------------------------------------------------
// Sources: one per thread. Chunk() makes (or prepares) the values of a chunk, Entry(i) puts
// entry i of the chunk into the members that the RNTuple entry (Bind) or the TTree branches
// (Branch) point to. `payload` adds up the bytes of the values made.

class Source {
public:
   virtual ~Source() = default;
   virtual void Chunk(std::uint64_t index, std::uint64_t first, std::uint64_t n) = 0;
   virtual void Entry(std::uint64_t i) = 0;
   virtual void Bind(ROOT::REntry &entry) = 0;
   virtual void Branch(TTree &tree) = 0;
#ifdef ROOTWEAVE_CPP_API
   // rootweave's C++ API: RwMode says which writer the source fills (before any chunk),
   // RwBind binds the entry's fields to the members Entry fills, RwColumns gives the `n`
   // entries of the current chunk as one column per field (the -append modes; it makes the
   // entries itself where Entry makes them and counts their payload).
   virtual void RwMode(bool tree) { (void)tree; }
   virtual void RwBind(rootweave::REntry &entry) = 0;
   virtual const rw_column *RwColumns(std::uint64_t n) = 0;
#endif
   std::uint64_t payload = 0;
};

#ifdef ROOTWEAVE_CPP_API
// A column of `n` numbers (or bytes 0/1 for bool) at `values`.
static rw_column RwLeaf(const void *values, std::uint64_t n)
{
   return rw_column{values, nullptr, static_cast<std::size_t>(n), nullptr, 0};
}
// A column of `n` collections: `offsets` (n + 1) into the items of `child`.
static rw_column RwList(const std::uint64_t *offsets, std::uint64_t n, const rw_column *child)
{
   return rw_column{nullptr, offsets, static_cast<std::size_t>(n), child, 1};
}
// A column of `n` objects of a class: one column per member.
static rw_column RwRecord(const rw_column *members, std::size_t count, std::uint64_t n)
{
   return rw_column{nullptr, nullptr, static_cast<std::size_t>(n), members, count};
}
#endif

// single -----------------------------------------------------------------------------

class SingleSource final : public Source {
   std::uint64_t fState = 0;
   std::int32_t fX = 0;

public:
   static constexpr std::uint64_t kChunk = 65536;
   static void Model(ROOT::RNTupleModel &model) { model.MakeField<std::int32_t>("x"); }
   void Chunk(std::uint64_t, std::uint64_t first, std::uint64_t) final { fState = kSeed + first * 0x9E3779B97F4A7C15ULL; }
   void Entry(std::uint64_t) final
   {
      fX = static_cast<std::int32_t>(splitmix64(fState) >> 44);
      payload += 4;
   }
   void Bind(ROOT::REntry &entry) final { entry.BindRawPtr("x", &fX); }
   void Branch(TTree &tree) final { tree.Branch("x", &fX, "x/I"); }
#ifdef ROOTWEAVE_CPP_API
   std::vector<std::int32_t> fColumn;
   rw_column fRw{};
   static void RwModel(rootweave::RNTupleModel &model, bool) { model.MakeField<std::int32_t>("x"); }
   void RwBind(rootweave::REntry &entry) final { entry.BindRawPtr("x", &fX); }
   const rw_column *RwColumns(std::uint64_t n) final
   {
      fColumn.resize(n);
      for (std::uint64_t i = 0; i < n; ++i) {
         Entry(i);
         fColumn[i] = fX;
      }
      fRw = RwLeaf(fColumn.data(), n);
      return &fRw;
   }
#endif
};

// wide ---------------------------------------------------------------------------------

class WideSource final : public Source {
   int fFields;
   std::vector<float> fValues; // column-major values of the chunk
   std::uint64_t fN = 0;
   std::vector<float> fRow;

public:
   explicit WideSource(int fields) : fFields(fields), fRow(fields) {}
   // Chunks of 1000 entries for 1000 fields, of as many values for fewer fields.
   static std::uint64_t ChunkEntries(int fields) { return 1000 * std::max(1, 1000 / fields); }
   static void Model(ROOT::RNTupleModel &model, int fields)
   {
      for (int f = 0; f < fields; ++f)
         model.MakeField<float>("f" + std::to_string(f));
   }
   void Chunk(std::uint64_t index, std::uint64_t, std::uint64_t n) final
   {
      Rng rng(kSeed, index);
      fN = n;
      fValues.resize(fFields * n);
      for (int f = 0; f < fFields; ++f)
         for (std::uint64_t i = 0; i < n; ++i)
            fValues[f * n + i] = static_cast<float>(rng.next() >> 40) / static_cast<float>(1u << 24);
   }
   void Entry(std::uint64_t i) final
   {
      for (int f = 0; f < fFields; ++f)
         fRow[f] = fValues[f * fN + i];
      payload += 4 * fFields;
   }
   void Bind(ROOT::REntry &entry) final
   {
      for (int f = 0; f < fFields; ++f)
         entry.BindRawPtr("f" + std::to_string(f), &fRow[f]);
   }
   void Branch(TTree &tree) final
   {
      for (int f = 0; f < fFields; ++f) {
         std::string name = "f" + std::to_string(f);
         tree.Branch(name.c_str(), &fRow[f], (name + "/F").c_str());
      }
   }
#ifdef ROOTWEAVE_CPP_API
   std::vector<rw_column> fRw;
   static void RwModel(rootweave::RNTupleModel &model, bool, int fields)
   {
      for (int f = 0; f < fields; ++f)
         model.MakeField<float>("f" + std::to_string(f));
   }
   void RwBind(rootweave::REntry &entry) final
   {
      for (int f = 0; f < fFields; ++f)
         entry.BindRawPtr("f" + std::to_string(f), &fRow[f]);
   }
   // The chunk's values are column-major already: handed over in place.
   const rw_column *RwColumns(std::uint64_t n) final
   {
      fRw.resize(fFields);
      for (int f = 0; f < fFields; ++f)
         fRw[f] = RwLeaf(fValues.data() + f * n, n);
      payload += 4 * fFields * n;
      return fRw.data();
   }
#endif
};

// complex ------------------------------------------------------------------------------

class ComplexSource final : public Source {
   static constexpr int kCollections = 10;
   // Bytes of the values of one record: 12 doubles and 3 ints (no padding).
   static constexpr std::uint64_t kRecordPayload = 12 * 8 + 3 * 4;
   std::array<std::vector<std::uint64_t>, kCollections> fOffsets;
   std::array<std::vector<Event>, kCollections> fRecords;
   // Current entry: as untyped collections (bytes of Event, for RNTuple) or as
   // std::vector<Event> (TTree).
   std::array<std::vector<char>, kCollections> fBytes;
   std::array<std::vector<Event>, kCollections> fVectors;
   bool fTree = false;
   // The RNTuple's collections as std::vector<Event> fields (fVectors bound).
   bool fClasses = false;
   // Split level of each TTree branch e0..e9.
   std::array<int, kCollections> fSplit;
   // NanoAOD-style branches (as rootweave's TreeLayout lays out `complex`): per collection
   // a counter `ne<c>/I` and one counted array per member, `e<c>_p0_x[ne<c>]/D`, ...
   bool fFlat = false;
   static constexpr int kMaxRecords = 15;
   struct Flat {
      std::int32_t n = 0;
      double v[12][kMaxRecords];
      std::int32_t i[3][kMaxRecords];
   };
   std::array<Flat, kCollections> fFlats;

   static std::unique_ptr<ROOT::RFieldBase> Vec3Field(const std::string &name)
   {
      std::vector<std::unique_ptr<ROOT::RFieldBase>> members;
      for (const char *m : {"x", "y", "z"})
         members.push_back(std::make_unique<ROOT::RField<double>>(m));
      return std::make_unique<ROOT::RRecordField>(name, std::move(members));
   }

public:
   explicit ComplexSource(bool flat = false, std::vector<int> split = {99}, bool classes = false)
      : fClasses(classes), fFlat(flat)
   {
      for (int c = 0; c < kCollections; ++c)
         fSplit[c] = split[std::min<std::size_t>(c, split.size() - 1)];
      fTree = classes;
   }
   static constexpr std::uint64_t kChunk = 1000;
   static void ClassModel(ROOT::RNTupleModel &model)
   {
      for (int c = 0; c < kCollections; ++c)
         model.MakeField<std::vector<Event>>("e" + std::to_string(c));
   }
   static void Model(ROOT::RNTupleModel &model)
   {
      for (int c = 0; c < kCollections; ++c) {
         std::vector<std::unique_ptr<ROOT::RFieldBase>> members;
         for (const char *p : {"p0", "p1", "p2"})
            members.push_back(Vec3Field(p));
         for (const char *d : {"d0", "d1", "d2"})
            members.push_back(std::make_unique<ROOT::RField<double>>(d));
         for (const char *i : {"i0", "i1", "i2"})
            members.push_back(std::make_unique<ROOT::RField<std::int32_t>>(i));
         auto record = std::make_unique<ROOT::RRecordField>("_0", std::move(members));
         const std::vector<std::size_t> expected = {
            offsetof(Event, p0), offsetof(Event, p1), offsetof(Event, p2),
            offsetof(Event, d0), offsetof(Event, d1), offsetof(Event, d2),
            offsetof(Event, i0), offsetof(Event, i1), offsetof(Event, i2)};
         if (record->GetOffsets() != expected || record->GetValueSize() != sizeof(Event))
            throw std::runtime_error("the untyped record's layout differs from Event");
         model.AddField(ROOT::RVectorField::CreateUntyped("e" + std::to_string(c), std::move(record)));
      }
   }
   void Chunk(std::uint64_t index, std::uint64_t, std::uint64_t n) final
   {
      Rng rng(kSeed, index);
      for (int c = 0; c < kCollections; ++c) {
         auto &offsets = fOffsets[c];
         auto &records = fRecords[c];
         offsets.assign(1, 0);
         records.clear();
         for (std::uint64_t i = 0; i < n; ++i) {
            std::uint64_t k = 5 + rng.below(11);
            for (std::uint64_t j = 0; j < k; ++j) {
               Event r;
               for (Vec3 *p : {&r.p0, &r.p1, &r.p2}) {
                  p->x = rng.uniform();
                  p->y = rng.uniform();
                  p->z = rng.uniform();
               }
               r.d0 = rng.uniform();
               r.d1 = rng.uniform();
               r.d2 = rng.uniform();
               r.i0 = static_cast<int>(rng.below(100));
               r.i1 = static_cast<int>(rng.below(100));
               r.i2 = static_cast<int>(rng.below(100));
               records.push_back(r);
            }
            offsets.push_back(offsets.back() + k);
         }
      }
   }
   void Entry(std::uint64_t i) final
   {
      for (int c = 0; c < kCollections; ++c) {
         const Event *begin = fRecords[c].data() + fOffsets[c][i];
         const Event *end = fRecords[c].data() + fOffsets[c][i + 1];
         if (fFlat) {
            Flat &f = fFlats[c];
            f.n = static_cast<std::int32_t>(end - begin);
            for (int k = 0; k < f.n; ++k) {
               const Event &r = begin[k];
               const double v[12] = {r.p0.x, r.p0.y, r.p0.z, r.p1.x, r.p1.y, r.p1.z,
                                     r.p2.x, r.p2.y, r.p2.z, r.d0,   r.d1,   r.d2};
               for (int m = 0; m < 12; ++m)
                  f.v[m][k] = v[m];
               f.i[0][k] = r.i0;
               f.i[1][k] = r.i1;
               f.i[2][k] = r.i2;
            }
         } else if (fTree) {
            fVectors[c].assign(begin, end);
         } else {
            fBytes[c].resize((end - begin) * sizeof(Event));
            std::memcpy(fBytes[c].data(), begin, fBytes[c].size());
         }
         payload += 8 + kRecordPayload * (end - begin);
      }
   }
   void Bind(ROOT::REntry &entry) final
   {
      for (int c = 0; c < kCollections; ++c) {
         if (fClasses)
            entry.BindRawPtr("e" + std::to_string(c), &fVectors[c]);
         else
            entry.BindRawPtr("e" + std::to_string(c), &fBytes[c]);
      }
   }
   void Branch(TTree &tree) final
   {
      fTree = true;
      static const char *kDoubles[12] = {"p0_x", "p0_y", "p0_z", "p1_x", "p1_y", "p1_z",
                                         "p2_x", "p2_y", "p2_z", "d0",   "d1",   "d2"};
      static const char *kInts[3] = {"i0", "i1", "i2"};
      for (int c = 0; c < kCollections; ++c) {
         std::string name = "e" + std::to_string(c);
         if (!fFlat) {
            tree.Branch(name.c_str(), &fVectors[c], 32000, fSplit[c]);
            continue;
         }
         std::string counter = "ne" + std::to_string(c);
         tree.Branch(counter.c_str(), &fFlats[c].n, (counter + "/I").c_str());
         for (int m = 0; m < 12; ++m) {
            std::string b = name + "_" + kDoubles[m];
            tree.Branch(b.c_str(), fFlats[c].v[m], (b + "[" + counter + "]/D").c_str());
         }
         for (int m = 0; m < 3; ++m) {
            std::string b = name + "_" + kInts[m];
            tree.Branch(b.c_str(), fFlats[c].i[m], (b + "[" + counter + "]/I").c_str());
         }
      }
   }
#ifdef ROOTWEAVE_CPP_API
   // e0..e9 as std::vector<Event> (complexclass), for either writer.
   void RwMode(bool) final { fTree = true; }
   static void RwModel(rootweave::RNTupleModel &model, bool)
   {
      using rootweave::Member;
      model.AddClass<Vec3>("Vec3", 1, {Member("x", &Vec3::x), Member("y", &Vec3::y), Member("z", &Vec3::z)});
      model.AddClass<Event>("Event", 1,
                            {Member("p0", &Event::p0), Member("p1", &Event::p1), Member("p2", &Event::p2),
                             Member("d0", &Event::d0), Member("d1", &Event::d1), Member("d2", &Event::d2),
                             Member("i0", &Event::i0), Member("i1", &Event::i1), Member("i2", &Event::i2)});
      for (int c = 0; c < kCollections; ++c)
         model.MakeField<std::vector<Event>>("e" + std::to_string(c));
   }
   void RwBind(rootweave::REntry &entry) final
   {
      for (int c = 0; c < kCollections; ++c)
         entry.BindRawPtr("e" + std::to_string(c), &fVectors[c]);
   }
   // Per collection, the records' members gathered into one array each (the records are
   // objects here, the columns want each member's values contiguous).
   std::array<std::array<std::vector<double>, 12>, kCollections> fMemberDoubles;
   std::array<std::array<std::vector<std::int32_t>, 3>, kCollections> fMemberInts;
   struct RwCollection {
      std::array<rw_column, 9> vec3;  // p0.x .. p2.z
      std::array<rw_column, 9> event; // p0, p1, p2, d0..d2, i0..i2
      rw_column records;
   };
   std::array<RwCollection, kCollections> fRwParts;
   std::array<rw_column, kCollections> fRw;
   const rw_column *RwColumns(std::uint64_t n) final
   {
      for (int c = 0; c < kCollections; ++c) {
         const std::vector<Event> &records = fRecords[c];
         const std::size_t k = records.size();
         auto &d = fMemberDoubles[c];
         auto &in = fMemberInts[c];
         for (auto &v : d)
            v.resize(k);
         for (auto &v : in)
            v.resize(k);
         for (std::size_t j = 0; j < k; ++j) {
            const Event &r = records[j];
            d[0][j] = r.p0.x, d[1][j] = r.p0.y, d[2][j] = r.p0.z;
            d[3][j] = r.p1.x, d[4][j] = r.p1.y, d[5][j] = r.p1.z;
            d[6][j] = r.p2.x, d[7][j] = r.p2.y, d[8][j] = r.p2.z;
            d[9][j] = r.d0, d[10][j] = r.d1, d[11][j] = r.d2;
            in[0][j] = r.i0, in[1][j] = r.i1, in[2][j] = r.i2;
         }
         RwCollection &parts = fRwParts[c];
         for (int m = 0; m < 9; ++m)
            parts.vec3[m] = RwLeaf(d[m].data(), k);
         for (int p = 0; p < 3; ++p)
            parts.event[p] = RwRecord(&parts.vec3[3 * p], 3, k);
         for (int m = 0; m < 3; ++m) {
            parts.event[3 + m] = RwLeaf(d[9 + m].data(), k);
            parts.event[6 + m] = RwLeaf(in[m].data(), k);
         }
         parts.records = RwRecord(parts.event.data(), 9, k);
         fRw[c] = RwList(fOffsets[c].data(), n, &parts.records);
         payload += 8 * n + kRecordPayload * k;
      }
      return fRw.data();
   }
#endif
};

// nanoaod ------------------------------------------------------------------------------

// Memory layout of the untyped record `Muon` (as ROOT's RRecordField lays it out).
struct MuonRecord {
   float pt, eta, phi, mass;
   std::int32_t charge;
   bool tightId;
};

class NanoAodSource final : public Source {
   static constexpr float kMuonMass = 0.1056584f;
   static constexpr const char *kDatasets[3] = {
      "/TTJets_TuneCUETP8M1_13TeV-madgraphMLM-pythia8/RunIIFall15MiniAODv2/NANOAOD",
      "/DYJetsToLL_M-50_TuneCUETP8M1_13TeV-amcatnloFXFX-pythia8/RunIIFall15/NANOAOD",
      "/SingleMuon/Run2015D-16Dec2015-v1/NANOAOD",
   };
   std::unique_ptr<Rng> fRng;
   std::uint64_t fFirst = 0;
   bool fTree = false;
   // rootweave's RNTuple: `Muon` bound as std::vector<MuonRecord> (fMuons), no bytes needed.
   bool fRwNtuple = false;

   std::uint32_t fRun = 0, fLumi = 0;
   std::uint64_t fEvent = 0;
   float fMetPt = 0, fMetPhi = 0;
   double fGenWeight = 0;
   bool fHlt = false;
   std::vector<MuonRecord> fMuons;
   std::vector<char> fMuonBytes;                        // RNTuple: untyped collection
   std::vector<float> fMuPt, fMuEta, fMuPhi, fMuMass;    // TTree: one vector per member
   std::vector<std::int32_t> fMuCharge;
   std::vector<bool> fMuTight;
   std::vector<float> fJetPt, fJetEta, fJetBtag, fElePt;
   std::vector<std::vector<std::int32_t>> fTracks;
   std::array<float, 3> fBeam{};
   std::string fDataset;

   float Phi() { return static_cast<float>((fRng->uniform() * 2.0 - 1.0) * M_PI); }

public:
   static constexpr std::uint64_t kChunk = 10000;
   static void Model(ROOT::RNTupleModel &model)
   {
      model.MakeField<std::uint32_t>("run");
      model.MakeField<std::uint32_t>("luminosityBlock");
      model.MakeField<std::uint64_t>("event");
      model.MakeField<float>("MET_pt");
      model.MakeField<float>("MET_phi");
      model.MakeField<double>("genWeight");
      model.MakeField<bool>("HLT_IsoMu24");
      std::vector<std::unique_ptr<ROOT::RFieldBase>> members;
      for (const char *m : {"Muon_pt", "Muon_eta", "Muon_phi", "Muon_mass"})
         members.push_back(std::make_unique<ROOT::RField<float>>(m));
      members.push_back(std::make_unique<ROOT::RField<std::int32_t>>("Muon_charge"));
      members.push_back(std::make_unique<ROOT::RField<bool>>("Muon_tightId"));
      auto record = std::make_unique<ROOT::RRecordField>("_0", std::move(members));
      const std::vector<std::size_t> expected = {
         offsetof(MuonRecord, pt),     offsetof(MuonRecord, eta),    offsetof(MuonRecord, phi),
         offsetof(MuonRecord, mass),   offsetof(MuonRecord, charge), offsetof(MuonRecord, tightId)};
      if (record->GetOffsets() != expected || record->GetValueSize() != sizeof(MuonRecord))
         throw std::runtime_error("the untyped record's layout differs from MuonRecord");
      model.AddField(ROOT::RVectorField::CreateUntyped("Muon", std::move(record)));
      model.MakeField<std::vector<float>>("Jet_pt");
      model.MakeField<std::vector<float>>("Jet_eta");
      model.MakeField<std::vector<float>>("Jet_btag");
      model.MakeField<std::vector<float>>("Electron_pt");
      model.MakeField<std::vector<std::vector<std::int32_t>>>("Track_hits");
      model.MakeField<std::array<float, 3>>("beamSpot");
      model.MakeField<std::string>("dataset");
   }
   void Chunk(std::uint64_t index, std::uint64_t first, std::uint64_t) final
   {
      fRng = std::make_unique<Rng>(kSeed, index);
      fFirst = first;
   }
   void Entry(std::uint64_t i) final
   {
      Rng &rng = *fRng;
      const std::uint64_t event = fFirst + i;
      fRun = 1 + static_cast<std::uint32_t>(event / 1000000);
      fLumi = 1 + static_cast<std::uint32_t>(event / 2000);
      fEvent = event + 1;
      fMetPt = static_cast<float>(rng.exponential(30.0));
      fMetPhi = Phi();
      const double sign = rng.chance(0.9) ? 1.0 : -1.0;
      fGenWeight = sign * (1.0 + 0.1 * rng.uniform());
      fHlt = rng.chance(0.3);

      const std::uint64_t a = rng.below(9);
      const std::uint64_t b = rng.below(9);
      const std::uint64_t nMuons = std::min(a, b);
      fMuons.resize(nMuons);
      for (auto &m : fMuons) {
         m.pt = static_cast<float>(3.0 + rng.exponential(20.0));
         m.eta = static_cast<float>(std::clamp(rng.normal(0.0, 1.2), -2.4, 2.4));
         m.phi = Phi();
         m.mass = kMuonMass;
         m.charge = rng.chance(0.5) ? 1 : -1;
         m.tightId = rng.chance(0.7);
      }
      if (fTree) {
         fMuPt.resize(nMuons);
         fMuEta.resize(nMuons);
         fMuPhi.resize(nMuons);
         fMuMass.resize(nMuons);
         fMuCharge.resize(nMuons);
         fMuTight.resize(nMuons);
         for (std::uint64_t k = 0; k < nMuons; ++k) {
            fMuPt[k] = fMuons[k].pt;
            fMuEta[k] = fMuons[k].eta;
            fMuPhi[k] = fMuons[k].phi;
            fMuMass[k] = fMuons[k].mass;
            fMuCharge[k] = fMuons[k].charge;
            fMuTight[k] = fMuons[k].tightId;
         }
      } else if (!fRwNtuple) {
         fMuonBytes.resize(nMuons * sizeof(MuonRecord));
         if (nMuons)
            std::memcpy(fMuonBytes.data(), fMuons.data(), fMuonBytes.size());
      }

      const std::uint64_t nJets = rng.below(9);
      fJetPt.resize(nJets);
      fJetEta.resize(nJets);
      fJetBtag.resize(nJets);
      for (std::uint64_t k = 0; k < nJets; ++k) {
         fJetPt[k] = static_cast<float>(15.0 + rng.exponential(40.0));
         fJetEta[k] = static_cast<float>(std::clamp(rng.normal(0.0, 2.0), -4.7, 4.7));
         fJetBtag[k] = static_cast<float>(rng.uniform());
      }

      const std::uint64_t nElectrons = rng.below(4);
      fElePt.resize(nElectrons);
      for (auto &pt : fElePt)
         pt = static_cast<float>(5.0 + rng.exponential(15.0));

      const std::uint64_t nTracks = rng.below(5);
      fTracks.resize(nTracks);
      std::uint64_t nHits = 0;
      for (auto &track : fTracks) {
         track.resize(rng.below(7));
         for (auto &hit : track)
            hit = static_cast<std::int32_t>(rng.below(1000));
         nHits += track.size();
      }

      fBeam[0] = static_cast<float>(rng.normal(0.0, 0.002));
      fBeam[1] = static_cast<float>(rng.normal(0.0, 0.002));
      fBeam[2] = static_cast<float>(rng.normal(0.0, 5.0));

      fDataset = kDatasets[(event / 50000) % 3];

      // run, luminosityBlock, event, MET_pt, MET_phi, genWeight, HLT_IsoMu24; each
      // collection or string one 8-byte size plus its values; beamSpot.
      payload += 4 + 4 + 8 + 4 + 4 + 8 + 1;
      payload += 8 + nMuons * (4 * 4 + 4 + 1);
      payload += 3 * (8 + 4 * nJets) + 8 + 4 * nElectrons;
      payload += 8 + 8 * nTracks + 4 * nHits;
      payload += 3 * 4 + 8 + fDataset.size();
   }
   void Bind(ROOT::REntry &entry) final
   {
      entry.BindRawPtr("run", &fRun);
      entry.BindRawPtr("luminosityBlock", &fLumi);
      entry.BindRawPtr("event", &fEvent);
      entry.BindRawPtr("MET_pt", &fMetPt);
      entry.BindRawPtr("MET_phi", &fMetPhi);
      entry.BindRawPtr("genWeight", &fGenWeight);
      entry.BindRawPtr("HLT_IsoMu24", &fHlt);
      entry.BindRawPtr("Muon", &fMuonBytes);
      entry.BindRawPtr("Jet_pt", &fJetPt);
      entry.BindRawPtr("Jet_eta", &fJetEta);
      entry.BindRawPtr("Jet_btag", &fJetBtag);
      entry.BindRawPtr("Electron_pt", &fElePt);
      entry.BindRawPtr("Track_hits", &fTracks);
      entry.BindRawPtr("beamSpot", &fBeam);
      entry.BindRawPtr("dataset", &fDataset);
   }
   void Branch(TTree &tree) final
   {
      fTree = true;
      tree.Branch("run", &fRun, "run/i");
      tree.Branch("luminosityBlock", &fLumi, "luminosityBlock/i");
      tree.Branch("event", &fEvent, "event/l");
      tree.Branch("MET_pt", &fMetPt, "MET_pt/F");
      tree.Branch("MET_phi", &fMetPhi, "MET_phi/F");
      tree.Branch("genWeight", &fGenWeight, "genWeight/D");
      tree.Branch("HLT_IsoMu24", &fHlt, "HLT_IsoMu24/O");
      tree.Branch("Muon_pt", &fMuPt);
      tree.Branch("Muon_eta", &fMuEta);
      tree.Branch("Muon_phi", &fMuPhi);
      tree.Branch("Muon_mass", &fMuMass);
      tree.Branch("Muon_charge", &fMuCharge);
      tree.Branch("Muon_tightId", &fMuTight);
      tree.Branch("Jet_pt", &fJetPt);
      tree.Branch("Jet_eta", &fJetEta);
      tree.Branch("Jet_btag", &fJetBtag);
      tree.Branch("Electron_pt", &fElePt);
      tree.Branch("Track_hits", &fTracks);
      tree.Branch("beamSpot", fBeam.data(), "beamSpot[3]/F");
      tree.Branch("dataset", &fDataset);
   }
#ifdef ROOTWEAVE_CPP_API
   // The fields as ROOT's writers lay them out: for the RNTuple, `Muon` a collection of
   // records (a class here); for the TTree, a std::vector branch per Muon member.
   static void RwModel(rootweave::RNTupleModel &model, bool tree)
   {
      using rootweave::Member;
      model.MakeField<std::uint32_t>("run");
      model.MakeField<std::uint32_t>("luminosityBlock");
      model.MakeField<std::uint64_t>("event");
      model.MakeField<float>("MET_pt");
      model.MakeField<float>("MET_phi");
      model.MakeField<double>("genWeight");
      model.MakeField<bool>("HLT_IsoMu24");
      if (tree) {
         for (const char *m : {"Muon_pt", "Muon_eta", "Muon_phi", "Muon_mass"})
            model.MakeField<std::vector<float>>(m);
         model.MakeField<std::vector<std::int32_t>>("Muon_charge");
         model.MakeField<std::vector<bool>>("Muon_tightId");
      } else {
         model.AddClass<MuonRecord>("MuonRecord", 1,
                                    {Member("Muon_pt", &MuonRecord::pt), Member("Muon_eta", &MuonRecord::eta),
                                     Member("Muon_phi", &MuonRecord::phi), Member("Muon_mass", &MuonRecord::mass),
                                     Member("Muon_charge", &MuonRecord::charge),
                                     Member("Muon_tightId", &MuonRecord::tightId)});
         model.MakeField<std::vector<MuonRecord>>("Muon");
      }
      model.MakeField<std::vector<float>>("Jet_pt");
      model.MakeField<std::vector<float>>("Jet_eta");
      model.MakeField<std::vector<float>>("Jet_btag");
      model.MakeField<std::vector<float>>("Electron_pt");
      model.MakeField<std::vector<std::vector<std::int32_t>>>("Track_hits");
      model.MakeField<std::array<float, 3>>("beamSpot");
      model.MakeField<std::string>("dataset");
   }
   void RwMode(bool tree) final
   {
      fTree = tree;
      fRwNtuple = !tree;
   }
   void RwBind(rootweave::REntry &entry) final
   {
      entry.BindRawPtr("run", &fRun);
      entry.BindRawPtr("luminosityBlock", &fLumi);
      entry.BindRawPtr("event", &fEvent);
      entry.BindRawPtr("MET_pt", &fMetPt);
      entry.BindRawPtr("MET_phi", &fMetPhi);
      entry.BindRawPtr("genWeight", &fGenWeight);
      entry.BindRawPtr("HLT_IsoMu24", &fHlt);
      if (fTree) {
         entry.BindRawPtr("Muon_pt", &fMuPt);
         entry.BindRawPtr("Muon_eta", &fMuEta);
         entry.BindRawPtr("Muon_phi", &fMuPhi);
         entry.BindRawPtr("Muon_mass", &fMuMass);
         entry.BindRawPtr("Muon_charge", &fMuCharge);
         entry.BindRawPtr("Muon_tightId", &fMuTight);
      } else {
         entry.BindRawPtr("Muon", &fMuons);
      }
      entry.BindRawPtr("Jet_pt", &fJetPt);
      entry.BindRawPtr("Jet_eta", &fJetEta);
      entry.BindRawPtr("Jet_btag", &fJetBtag);
      entry.BindRawPtr("Electron_pt", &fElePt);
      entry.BindRawPtr("Track_hits", &fTracks);
      entry.BindRawPtr("beamSpot", &fBeam);
      entry.BindRawPtr("dataset", &fDataset);
   }
   // The chunk's events, made one by one, gathered into columns.
   struct RwChunk {
      std::vector<std::uint32_t> run, lumi;
      std::vector<std::uint64_t> event;
      std::vector<float> metPt, metPhi;
      std::vector<double> genWeight;
      std::vector<unsigned char> hlt;
      std::vector<std::uint64_t> muonOffsets, jetOffsets, eleOffsets, trackOffsets, hitOffsets, datasetOffsets;
      std::vector<float> muPt, muEta, muPhi, muMass, jetPt, jetEta, jetBtag, elePt, beam;
      std::vector<std::int32_t> muCharge, hits;
      std::vector<unsigned char> muTight;
      std::string dataset;
   } fChunk;
   std::array<rw_column, 6> fRwMuonMembers{};
   std::array<rw_column, 20> fRwChildren{};
   rw_column fRwMuonRecords{}, fRwHitItems{}, fRwTrackItems{};
   std::vector<rw_column> fRw;
   const rw_column *RwColumns(std::uint64_t n) final
   {
      RwChunk &c = fChunk;
      for (auto *v : {&c.run, &c.lumi})
         v->clear();
      for (auto *v : {&c.muonOffsets, &c.jetOffsets, &c.eleOffsets, &c.trackOffsets, &c.hitOffsets,
                      &c.datasetOffsets})
         v->assign(1, 0);
      for (auto *v : {&c.metPt, &c.metPhi, &c.muPt, &c.muEta, &c.muPhi, &c.muMass, &c.jetPt, &c.jetEta, &c.jetBtag,
                      &c.elePt, &c.beam})
         v->clear();
      c.event.clear(), c.genWeight.clear(), c.hlt.clear(), c.muCharge.clear(), c.hits.clear(), c.muTight.clear();
      c.dataset.clear();
      for (std::uint64_t i = 0; i < n; ++i) {
         Entry(i);
         c.run.push_back(fRun), c.lumi.push_back(fLumi), c.event.push_back(fEvent);
         c.metPt.push_back(fMetPt), c.metPhi.push_back(fMetPhi), c.genWeight.push_back(fGenWeight);
         c.hlt.push_back(fHlt);
         for (const MuonRecord &m : fMuons) {
            c.muPt.push_back(m.pt), c.muEta.push_back(m.eta), c.muPhi.push_back(m.phi);
            c.muMass.push_back(m.mass), c.muCharge.push_back(m.charge), c.muTight.push_back(m.tightId);
         }
         c.muonOffsets.push_back(c.muPt.size());
         c.jetPt.insert(c.jetPt.end(), fJetPt.begin(), fJetPt.end());
         c.jetEta.insert(c.jetEta.end(), fJetEta.begin(), fJetEta.end());
         c.jetBtag.insert(c.jetBtag.end(), fJetBtag.begin(), fJetBtag.end());
         c.jetOffsets.push_back(c.jetPt.size());
         c.elePt.insert(c.elePt.end(), fElePt.begin(), fElePt.end());
         c.eleOffsets.push_back(c.elePt.size());
         for (const auto &track : fTracks) {
            c.hits.insert(c.hits.end(), track.begin(), track.end());
            c.hitOffsets.push_back(c.hits.size());
         }
         c.trackOffsets.push_back(c.hitOffsets.size() - 1);
         c.beam.insert(c.beam.end(), fBeam.begin(), fBeam.end());
         c.dataset += fDataset;
         c.datasetOffsets.push_back(c.dataset.size());
      }
      const std::uint64_t muons = c.muPt.size();
      fRw.clear();
      fRw.push_back(RwLeaf(c.run.data(), n));
      fRw.push_back(RwLeaf(c.lumi.data(), n));
      fRw.push_back(RwLeaf(c.event.data(), n));
      fRw.push_back(RwLeaf(c.metPt.data(), n));
      fRw.push_back(RwLeaf(c.metPhi.data(), n));
      fRw.push_back(RwLeaf(c.genWeight.data(), n));
      fRw.push_back(RwLeaf(c.hlt.data(), n));
      fRwMuonMembers = {RwLeaf(c.muPt.data(), muons),     RwLeaf(c.muEta.data(), muons),
                        RwLeaf(c.muPhi.data(), muons),    RwLeaf(c.muMass.data(), muons),
                        RwLeaf(c.muCharge.data(), muons), RwLeaf(c.muTight.data(), muons)};
      std::size_t child = 0;
      auto list = [&](const std::vector<std::uint64_t> &offsets, rw_column items) {
         fRwChildren[child] = items;
         fRw.push_back(RwList(offsets.data(), n, &fRwChildren[child++]));
      };
      if (fTree) {
         for (const rw_column &member : fRwMuonMembers)
            list(c.muonOffsets, member);
      } else {
         fRwMuonRecords = RwRecord(fRwMuonMembers.data(), 6, muons);
         fRw.push_back(RwList(c.muonOffsets.data(), n, &fRwMuonRecords));
      }
      list(c.jetOffsets, RwLeaf(c.jetPt.data(), c.jetPt.size()));
      list(c.jetOffsets, RwLeaf(c.jetEta.data(), c.jetEta.size()));
      list(c.jetOffsets, RwLeaf(c.jetBtag.data(), c.jetBtag.size()));
      list(c.eleOffsets, RwLeaf(c.elePt.data(), c.elePt.size()));
      fRwHitItems = RwLeaf(c.hits.data(), c.hits.size());
      fRwTrackItems = RwList(c.hitOffsets.data(), c.hitOffsets.size() - 1, &fRwHitItems);
      fRw.push_back(RwList(c.trackOffsets.data(), n, &fRwTrackItems));
      fRwChildren[child] = RwLeaf(c.beam.data(), 3 * n);
      fRw.push_back(rw_column{nullptr, nullptr, static_cast<std::size_t>(n), &fRwChildren[child++], 1});
      fRw.push_back(rw_column{c.dataset.data(), c.datasetOffsets.data(), static_cast<std::size_t>(n), nullptr, 0});
      return fRw.data();
   }
#endif
};

// ---------------------------------------------------------------------------------------

struct Schema {
   std::uint64_t chunk;
   std::function<void(ROOT::RNTupleModel &)> model;
   std::function<std::unique_ptr<Source>()> source;
#ifdef ROOTWEAVE_CPP_API
   // The fields for rootweave's C++ API (tree: as the TTree backends lay them out).
   std::function<void(rootweave::RNTupleModel &, bool tree)> rwmodel;
#endif
};

template <typename S>
static Schema MakeSchema()
{
   Schema schema{S::kChunk, &S::Model, [] { return std::unique_ptr<Source>(std::make_unique<S>()); }};
#ifdef ROOTWEAVE_CPP_API
   schema.rwmodel = &S::RwModel;
#endif
   return schema;
}

/// A line of /proc/self/status in KiB ("VmRSS:", "VmHWM:").
static long status_kib(const char *key)
{
   std::ifstream status("/proc/self/status");
   std::string line;
   const std::string prefix(key);
   while (std::getline(status, line))
      if (line.rfind(prefix, 0) == 0)
         return std::stol(line.substr(prefix.size()));
   return 0;
}

static long rss_kib()
{
   return status_kib("VmRSS:");
}

int main(int argc, char **argv)
{
   if (argc != 7 && argc != 8) {
      std::fprintf(stderr, "usage: root_parallel_write rntuple|rntuplewriter|tbuffermerger|imt|generate"
#ifdef ROOTWEAVE_CPP_API
                           "|rwntuple|rwtree|rwntuple-append|rwtree-append|rwcolumns-ntuple|rwcolumns-tree"
#endif
                           " single|complex|complex:L,..|complexclass|complexflat|wide|wide:N|nanoaod OUT ENTRIES "
                           "THREADS COMPRESSION [BUDGET_MIB]\n");
      return 2;
   }
   const std::string mode = argv[1];
   const std::string name = argv[2];
   const char *out = argv[3];
   const std::uint64_t entries = std::stoull(argv[4]);
   const int threads = std::stoi(argv[5]);
   const int compression = std::stoi(argv[6]);
   [[maybe_unused]] const std::uint64_t budget_mib = argc == 8 ? std::stoull(argv[7]) : 256;
   Schema schema;
   if (name == "single")
      schema = MakeSchema<SingleSource>();
   else if (name == "complex")
      schema = MakeSchema<ComplexSource>();
   else if (name.rfind("complex:", 0) == 0) {
      std::vector<int> split;
      std::string levels = name.substr(8);
      for (std::size_t at = 0; at <= levels.size();) {
         std::size_t comma = std::min(levels.find(',', at), levels.size());
         split.push_back(std::stoi(levels.substr(at, comma - at)));
         at = comma + 1;
      }
      schema = {ComplexSource::kChunk, &ComplexSource::Model,
                [split] { return std::unique_ptr<Source>(std::make_unique<ComplexSource>(false, split)); }};
   } else if (name == "complexclass") {
      schema = {ComplexSource::kChunk, &ComplexSource::ClassModel,
                [] { return std::unique_ptr<Source>(std::make_unique<ComplexSource>(false, std::vector<int>{99}, true)); }};
#ifdef ROOTWEAVE_CPP_API
      schema.rwmodel = &ComplexSource::RwModel;
#endif
   }
   else if (name == "complexflat")
      schema = {ComplexSource::kChunk, &ComplexSource::Model,
                [] { return std::unique_ptr<Source>(std::make_unique<ComplexSource>(true)); }};
   else if (name == "wide" || name.rfind("wide:", 0) == 0) {
      const int fields = name == "wide" ? 1000 : std::stoi(name.substr(5));
      schema = {WideSource::ChunkEntries(fields), [fields](ROOT::RNTupleModel &m) { WideSource::Model(m, fields); },
                [fields] { return std::unique_ptr<Source>(std::make_unique<WideSource>(fields)); }};
#ifdef ROOTWEAVE_CPP_API
      schema.rwmodel = [fields](rootweave::RNTupleModel &m, bool tree) { WideSource::RwModel(m, tree, fields); };
#endif
   }
   else if (name == "nanoaod")
      schema = MakeSchema<NanoAodSource>();
   else {
      std::fprintf(stderr, "unknown schema %s\n", name.c_str());
      return 2;
   }
   const bool rw = mode == "rwntuple" || mode == "rwtree" || mode == "rwntuple-append" || mode == "rwtree-append";
   const bool rwColumnsOnly = mode == "rwcolumns-ntuple" || mode == "rwcolumns-tree";
#ifndef ROOTWEAVE_CPP_API
   if (rw || rwColumnsOnly) {
      std::fprintf(stderr, "mode %s needs a build with -DROOTWEAVE_CPP_API and librootweave\n", mode.c_str());
      return 2;
   }
#endif
   if (!rw && !rwColumnsOnly && mode != "rntuple" && mode != "rntuplewriter" && mode != "tbuffermerger" &&
       mode != "imt" && mode != "generate") {
      std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
      return 2;
   }
   ROOT::EnableThreadSafety();
   std::printf("root_version %s\n", gROOT->GetVersion());
   std::printf("rss_start_kib %ld\n", rss_kib());
   std::fflush(stdout);

   const std::uint64_t kChunk = schema.chunk;
   std::atomic<std::uint64_t> next{0};
   std::atomic<std::uint64_t> payload{0};
   // Runs `each(n)` after the source made each chunk (of `n` entries) taken by this thread.
   auto chunks = [&](Source &source, auto &&each) {
      for (;;) {
         std::uint64_t first = next.fetch_add(kChunk);
         if (first >= entries)
            break;
         std::uint64_t n = std::min(entries, first + kChunk) - first;
         source.Chunk(first / kChunk, first, n);
         each(n);
      }
   };
   // Runs `chunk_done` after the entries of each chunk taken by this thread went through `fill`.
   auto loop = [&](Source &source, auto &&fill, auto &&chunk_done) {
      chunks(source, [&](std::uint64_t n) {
         for (std::uint64_t i = 0; i < n; ++i) {
            source.Entry(i);
            fill();
         }
         chunk_done();
      });
      payload += source.payload;
   };

   auto start = std::chrono::steady_clock::now();
   std::vector<std::thread> pool;
   if (mode == "rntuple") {
      auto model = ROOT::RNTupleModel::CreateBare();
      schema.model(*model);
      ROOT::RNTupleWriteOptions options;
      options.SetCompression(compression);
      auto writer = ROOT::RNTupleParallelWriter::Recreate(std::move(model), "Events", out, options);
      for (int t = 0; t < threads; ++t) {
         pool.emplace_back([&] {
            auto context = writer->CreateFillContext();
            auto entry = context->CreateEntry();
            auto source = schema.source();
            source->Bind(*entry);
            loop(*source, [&] { context->Fill(*entry); }, [] {});
         });
      }
      for (auto &t : pool)
         t.join();
      writer.reset();
   } else if (mode == "rntuplewriter") {
      if (threads > 1)
         ROOT::EnableImplicitMT(threads);
      auto model = ROOT::RNTupleModel::CreateBare();
      schema.model(*model);
      ROOT::RNTupleWriteOptions options;
      options.SetCompression(compression);
      auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "Events", out, options);
      auto entry = writer->CreateEntry();
      auto source = schema.source();
      source->Bind(*entry);
      loop(*source, [&] { writer->Fill(*entry); }, [] {});
      writer.reset();
   } else if (mode == "tbuffermerger") {
      ROOT::TBufferMerger merger(out, "RECREATE", compression);
      for (int t = 0; t < threads; ++t) {
         pool.emplace_back([&] {
            auto file = merger.GetFile();
            TTree tree("Events", "Events");
            auto source = schema.source();
            source->Branch(tree);
            // Each chunk goes to the merger as soon as it is done.
            loop(*source, [&] { tree.Fill(); }, [&] {
               file->Write();
               tree.Reset();
            });
         });
      }
      for (auto &t : pool)
         t.join();
   } else if (mode == "imt") {
      // One TTree filled on this thread; with THREADS > 1, ROOT's implicit multithreading
      // compresses the baskets of different branches on a pool of THREADS threads.
      if (threads > 1)
         ROOT::EnableImplicitMT(threads);
      TFile file(out, "RECREATE", "", compression);
      TTree tree("Events", "Events");
      auto source = schema.source();
      source->Branch(tree);
      loop(*source, [&] { tree.Fill(); }, [] {});
      file.Write();
      file.Close();
   } else if (rw) {
#ifdef ROOTWEAVE_CPP_API
      if (!schema.rwmodel) {
         std::fprintf(stderr, "schema %s is not written through rootweave's C++ API here\n", name.c_str());
         return 2;
      }
      const bool tree = mode == "rwtree" || mode == "rwtree-append";
      const bool columnar = mode == "rwntuple-append" || mode == "rwtree-append";
      auto model = rootweave::RNTupleModel::Create();
      schema.rwmodel(*model, tree);
      auto options = rootweave::WriteOptions().SetCompression(compression).SetMemoryBudget(budget_mib << 20);
      std::unique_ptr<rootweave::ParallelWriter> writer;
      if (tree)
         writer = rootweave::TTreeParallelWriter::Recreate(std::move(model), "Events", out, options);
      else
         writer = rootweave::RNTupleParallelWriter::Recreate(std::move(model), "Events", out, options);
      for (int t = 0; t < threads; ++t) {
         pool.emplace_back([&] {
            auto context = writer->CreateFillContext();
            auto source = schema.source();
            source->RwMode(tree);
            if (columnar) {
               // Each chunk handed over whole, as one column per field.
               chunks(*source, [&](std::uint64_t n) { context->Append(source->RwColumns(n), n); });
               payload += source->payload;
            } else {
               // Entry by entry from the source's objects, bound once by address.
               auto entry = context->CreateRawPtrWriteEntry();
               source->RwBind(*entry);
               loop(*source, [&] { context->Fill(*entry); }, [] {});
            }
            // Its remaining entries are committed as the context goes.
            context.reset();
         });
      }
      for (auto &t : pool)
         t.join();
      writer->Close();
      std::printf("budget_peak_bytes %llu\n", static_cast<unsigned long long>(writer->GetBudgetPeak()));
      std::printf("budget_limit_bytes %llu\n", static_cast<unsigned long long>(writer->GetBudgetLimit()));
#endif
   } else if (rwColumnsOnly) {
#ifdef ROOTWEAVE_CPP_API
      // The chunks and their columns as the -append modes make them, handed to no writer.
      for (int t = 0; t < threads; ++t) {
         pool.emplace_back([&] {
            auto source = schema.source();
            source->RwMode(mode == "rwcolumns-tree");
            chunks(*source, [&](std::uint64_t n) { source->RwColumns(n); });
            payload += source->payload;
         });
      }
      for (auto &t : pool)
         t.join();
#endif
   } else {
      for (int t = 0; t < threads; ++t) {
         pool.emplace_back([&] {
            auto source = schema.source();
            loop(*source, [] {}, [] {});
         });
      }
      for (auto &t : pool)
         t.join();
   }
   double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
   std::printf("payload_bytes %llu\n", static_cast<unsigned long long>(payload.load()));
   std::printf("seconds %.6f\n", seconds);
   std::printf("peak_rss_kib %ld\n", status_kib("VmHWM:"));
   return 0;
}
