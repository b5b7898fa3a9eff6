/* rootweave: the C API of the rootweave ROOT I/O library (generated from its Rust code
 * by cbindgen; do not edit). Every call returns an rw_status or a value documented as
 * never failing; on failure rw_last_error() gives the calling thread's message. No call
 * lets a Rust panic reach the caller. Handles say in their documentation which threads
 * may use them. */

#ifndef ROOTWEAVE_H
#define ROOTWEAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* The Arrow C Data Interface (arrow.apache.org/docs/format/CDataInterface.html), as its
 * specification says to copy it into a project. */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4
struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};
#endif
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};
#endif


// What a call did. Every function returning a status sets the calling thread's message
// ([`rw_last_error`]) when it returns anything but `RW_OK`.
typedef enum rw_status {
  // The call succeeded.
  RW_OK = 0,
  // An argument was wrong: a null handle, an unknown type name, a value that does not fit
  // its field, a bad option.
  RW_INVALID_ARGUMENT = 1,
  // Reading or writing a file failed.
  RW_IO = 2,
  // A file's bytes are not what the format says.
  RW_FORMAT = 3,
  // A file, object or field does not exist.
  RW_NOT_FOUND = 4,
  // Something the library does not read or write.
  RW_UNSUPPORTED = 5,
  // The handle was closed (its writer or file is closed).
  RW_CLOSED = 6,
  // The memory budget is spent and the call was asked not to wait: nothing was
  // appended; retry once budget is freed (`rw_writer_wait_for_budget`).
  RW_WOULD_BLOCK = 7,
  // An internal error (a bug): the library caught it before it reached the caller.
  RW_INTERNAL = 8,
} rw_status;

// A ROOT file being written, holding any number of RNTuples and TTrees
// (`rw_ntuple_writer_append`, `rw_tree_writer_append`). Thread-safe: writers on any
// threads may use it; close it once every writer in it is closed.
typedef struct rw_file rw_file;

// A producer's handle on a writer: fills entries and compresses its own clusters. Use it
// from one thread at a time (it may move between threads); make one per thread or task
// slot. Freeing it commits what it holds.
typedef struct rw_fill_context rw_fill_context;

// The fields of an RNTuple or TTree, each a name and a C++ type, and the classes they
// use. Made on one thread; a writer copies it, so it may be freed or reused once the
// writer is made. Not for use by two threads at once.
typedef struct rw_model rw_model;

// The writer of one RNTuple or TTree. Thread-safe: any thread may make fill contexts
// (`rw_writer_create_fill_context`) and read its figures; close it once.
typedef struct rw_writer rw_writer;

// One field's values for `length` entries, in the columnar layout its type has:
//
// - a number: `values` points to `length` values of the C++ type (`bool` as bytes 0 or 1);
// - `std::string`: `offsets` holds `length + 1` positions (from 0) into the characters at
//   `values`;
// - `std::vector<T>` and `std::optional<T>` (0 or 1 items): `offsets` holds `length + 1`
//   positions into the items, which are `children[0]`;
// - `std::array<T,N>`: `children[0]` holds the `length * N` items;
// - a class, `std::pair` or `std::tuple`: `children` holds one column per member, each of
//   `length` entries.
//
// Unused pointers may be null. The memory is only read during the call that takes it.
typedef struct rw_column {
  // Leaf values, or the characters of strings.
  const void *values;
  // `length + 1` non-decreasing positions from 0, for strings and collections.
  const uint64_t *offsets;
  // The number of entries (of items, for a column of items).
  size_t length;
  // The columns of items or members.
  const struct rw_column *children;
  // The number of `children`.
  size_t n_children;
} rw_column;

// How `rw_read_arrow` reads. Start from `rw_read_options_default()` and change fields.
typedef struct rw_read_options {
  // Decompression and decoding threads, which also read the next batch while the
  // caller consumes one (0: all cores).
  size_t threads;
  // Each batch holds whole clusters of at least this many entries, never spanning two
  // files (0: one cluster per batch).
  uint64_t step_entries;
  // Bytes of stored pages or baskets in flight at once (0: 256 MiB; one cluster's
  // pages of the chosen columns are always read).
  uint64_t memory_budget;
  // Verify the checksums the format carries (RNTuple pages and envelopes).
  bool verify_checksums;
} rw_read_options;

// How a writer writes. Start from `rw_writer_options_default()` and change fields.
typedef struct rw_writer_options {
  // ROOT's compression setting, algorithm * 100 + level: 505 zstd level 5, 404 LZ4, 101
  // zlib level 1, 0 none; -1 for the format's default (RNTuple 505, TTree 101).
  int32_t compression;
  // Bytes that buffered and unwritten data may take in all, across every fill context
  // (0: 256 MiB). A context that would exceed it writes its own cluster, then waits (or
  // returns `RW_WOULD_BLOCK` from the `try` calls).
  uint64_t memory_budget;
  // The stored size a context's cluster aims at (0: the format's default: 128 MiB for
  // RNTuple as ROOT's `ApproxZippedClusterSize`, 30 MB for TTree as ROOT's auto-flush).
  uint64_t cluster_bytes;
  // Clusters enter the file in the order of the sequence numbers given with
  // `rw_fill_context_append_sequence` (the entry order is then the caller's, whatever
  // the threads' timing); the other fill calls are then refused.
  bool ordered;
} rw_writer_options;

// A function the writer calls with `user_data` each time budget is given back (on the
// thread that gives it back), for a task scheduler to requeue the producers that got
// `RW_WOULD_BLOCK`; null removes it. It must return quickly and must not call the writer
// or its contexts.
typedef void (*rw_budget_callback)(void *user_data);

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

// Creates (or overwrites) the file at `path` to hold RNTuples and TTrees, in `*out`.
//
// # Safety
// `path` must be a NUL-terminated string, `out` valid for a write.
enum rw_status rw_file_recreate(const char *path, struct rw_file **out);

// Writes the file's directory, keys and header and closes it. Every writer in it must be
// closed first (else `RW_INVALID_ARGUMENT`, and the file stays open). Closing again is a
// no-op.
//
// # Safety
// `file` must be a live file handle.
enum rw_status rw_file_close(struct rw_file *file);

// Frees a file handle, closing the file if it is open and no writer uses it (null is
// ignored; errors of that close are lost: call `rw_file_close` to see them).
//
// # Safety
// `file` must be null or a file handle not freed before, used by no other thread.
void rw_file_free(struct rw_file *file);

// Appends one entry: one column of one entry per field, in the model's order (ROOT's
// `FillContext::Fill`). The context commits its cluster when it reaches its target size,
// and waits while the memory budget is spent.
//
// # Safety
// `context` a live context used by no other thread during the call; `columns` `n`
// columns valid as `rw_column` says.
enum rw_status rw_fill_context_fill(struct rw_fill_context *context,
                                    const struct rw_column *columns,
                                    size_t n);

// Appends `entries` entries at once, one column per field (columnar).
//
// # Safety
// As `rw_fill_context_fill`.
enum rw_status rw_fill_context_append(struct rw_fill_context *context,
                                      const struct rw_column *columns,
                                      size_t n,
                                      size_t entries);

// Appends `entries` entries but leaves the cluster open (ROOT's `FillNoFlush`):
// `*cluster_due` says whether it reached its target size, for the caller to commit it
// with `rw_fill_context_flush_cluster` when it chooses. The memory budget still holds: a
// context that would exceed it commits its cluster first.
//
// # Safety
// As `rw_fill_context_fill`; `cluster_due` valid for a write.
enum rw_status rw_fill_context_append_no_flush(struct rw_fill_context *context,
                                               const struct rw_column *columns,
                                               size_t n,
                                               size_t entries,
                                               bool *cluster_due);

// Appends `entries` entries if the memory budget has room for them now; else appends
// nothing and returns `RW_WOULD_BLOCK` without waiting (for task schedulers whose
// threads must not block: retry later, see `rw_writer_wait_for_budget` and
// `rw_writer_set_budget_callback`).
//
// # Safety
// As `rw_fill_context_fill`.
enum rw_status rw_fill_context_try_append(struct rw_fill_context *context,
                                          const struct rw_column *columns,
                                          size_t n,
                                          size_t entries);

// Appends `entries` entries and commits them as the cluster with sequence number
// `sequence` (writers with `ordered`): clusters enter the file in sequence order, so the
// caller decides the entry order. Numbers start at 0 and each is used once.
//
// # Safety
// As `rw_fill_context_fill`.
enum rw_status rw_fill_context_append_sequence(struct rw_fill_context *context,
                                               uint64_t sequence,
                                               const struct rw_column *columns,
                                               size_t n,
                                               size_t entries);

// Appends `entries` entries to the context's staged cluster (writers with `ordered`):
// filled entry by entry, it is committed by `rw_fill_context_commit_staged` with the
// sequence number the caller chooses (ROOT's staged cluster committing, the order given
// by number). `*cluster_due` (may be null) says whether it reached its target size.
//
// # Safety
// As `rw_fill_context_fill`; `cluster_due` null or valid for a write.
enum rw_status rw_fill_context_append_staged(struct rw_fill_context *context,
                                             const struct rw_column *columns,
                                             size_t n,
                                             size_t entries,
                                             bool *cluster_due);

// Commits the context's staged entries as the cluster with sequence number `sequence`
// (writers with `ordered`; clusters enter the file in sequence order). A context freed
// with staged entries loses them, and `rw_writer_close` reports it.
//
// # Safety
// `context` a live context used by no other thread during the call.
enum rw_status rw_fill_context_commit_staged(struct rw_fill_context *context, uint64_t sequence);

// Declares that sequence number `sequence` will never be committed (ordered writers), so
// that the clusters after it need not wait for it.
//
// # Safety
// `context` a live context used by no other thread during the call.
enum rw_status rw_fill_context_skip_sequence(struct rw_fill_context *context, uint64_t sequence);

// Commits the entries the context holds as a cluster (ROOT's `FlushCluster`).
//
// # Safety
// `context` a live context used by no other thread during the call.
enum rw_status rw_fill_context_flush_cluster(struct rw_fill_context *context);

// Frees a fill context, committing the entries it holds (null is ignored; a failure of
// that commit is reported by `rw_writer_close`).
//
// # Safety
// `context` must be null or a context not freed before, used by no other thread.
void rw_fill_context_free(struct rw_fill_context *context);

// Appends the entries of an Arrow record batch handed in through the Arrow C Data
// Interface: `array` a struct array with one child per field of the model, in the
// model's order and named as the fields, `schema` its type. Each child's type must be the
// field's: a number its Arrow number type (float as Float32, double as Float64), `bool`
// Boolean, `std::string` Utf8, LargeUtf8, Binary or LargeBinary, `std::vector` List or
// LargeList, `std::array<T,N>` FixedSizeList of N, a class, pair or tuple Struct (a
// class's members named as its members); a `std::optional` is a List or LargeList of 0
// or 1 items per entry, whose null entries (holding no item) are absent values. Nulls
// anywhere else are refused. Numbers, string bytes and 64-bit offsets are read in place;
// booleans are unpacked and 32-bit offsets widened. The array's offset and length are
// respected (a sliced batch appends its slice). Otherwise as `rw_fill_context_append`.
//
// The call takes both structs, as the C Data Interface moves them: the caller's are
// marked released, and the library calls each release callback exactly once, on success
// and on failure alike (once the entries are appended, or before returning an error).
// A mismatch is `RW_INVALID_ARGUMENT` naming the field, its type and the Arrow type.
//
// # Safety
// `context` a live context used by no other thread during the call; `array` and
// `schema` null or valid C Data Interface structs (released, or with buffers valid for
// the lengths they claim), not used by the caller after the call but to free them.
enum rw_status rw_fill_context_append_arrow(struct rw_fill_context *context,
                                            struct ArrowArray *array,
                                            struct ArrowSchema *schema);

// Makes an empty model in `*out` (free it with `rw_model_free`).
//
// # Safety
// `out` must be valid for a write.
enum rw_status rw_model_new(struct rw_model **out);

// Frees a model (null is ignored).
//
// # Safety
// `model` must be null or a model of `rw_model_new` not freed before.
void rw_model_free(struct rw_model *model);

// Adds a field called `name` of the C++ type `type_name` as ROOT spells it: `"bool"`,
// `"char"`, `"std::int8_t"` ... `"std::uint64_t"`, `"float"`, `"double"`, `"std::string"`,
// `"std::vector<T>"`, `"std::array<T,N>"`, `"std::optional<T>"`, `"std::pair<T1,T2>"`,
// `"std::tuple<T...>"`, or a class declared with `rw_model_add_class`. ROOT's aliases
// (`"Float_t"`, `"ULong64_t"`) and C's spellings (`"int"`, `"unsigned long"`) are taken
// as ROOT normalises them. An unknown type or a second field of the same name is
// `RW_INVALID_ARGUMENT`, naming the type and the position in it.
//
// # Safety
// `model` must be a live model; `name` and `type_name` NUL-terminated strings.
enum rw_status rw_model_add_field(struct rw_model *model, const char *name, const char *type_name);

// Declares a class (a C++ struct) that fields may then use by name: `n_members` members,
// each a name and a type name (numbers, strings, standard containers, classes declared
// before). `version` is the class version written with it (ROOT's `ClassDef` number, 1
// if the class has none). The members' order is the struct's.
//
// # Safety
// `model` must be a live model; `class_name` a NUL-terminated string; `member_names` and
// `member_types` arrays of `n_members` NUL-terminated strings.
enum rw_status rw_model_add_class(struct rw_model *model,
                                  const char *class_name,
                                  uint32_t version,
                                  size_t n_members,
                                  const char *const *member_names,
                                  const char *const *member_types);

// The number of fields of `model` in `*out`.
//
// # Safety
// `model` must be a live model and `out` valid for a write.
enum rw_status rw_model_field_count(const struct rw_model *model, size_t *out);

// The type name of field `index` as ROOT spells it (`"std::vector<float>"`,
// `"std::int32_t"`, a class name), in `*out`: a NUL-terminated string owned by the
// model, valid until the model is freed. For wrappers that check the type of
// the values a caller binds against the field's.
//
// # Safety
// `model` must be a live model and `out` valid for a write.
enum rw_status rw_model_field_type_name(struct rw_model *model, size_t index, const char **out);

// The default read options: all cores, one cluster per batch, 256 MiB in flight,
// checksums verified.
struct rw_read_options rw_read_options_default(void);

// Reads the RNTuple or TTree `name` from the files `paths` (`n_paths` of them, read one
// after the other) into `*out`, an Arrow C stream (see the Arrow C stream interface)
// whose schema is a struct of the chosen columns and whose arrays are record batches of
// whole clusters. `columns` names `n_columns` top-level fields or branches, in the order
// wanted; with `n_columns` 0 every top-level field or branch of the first file is read.
// `name` may be null: each path then names its object as `"file.root:Events"`, or the
// file's only RNTuple or TTree is read. Paths are local files or `http://`,
// `https://` and `root://` URLs. `options` may be null for the defaults.
//
// The first file is opened and its columns found before this returns: a missing file,
// object or column is a status and message here, and no stream is made. The batches are
// read when the consumer asks for them (`get_next`), the next one on the reader's
// threads while the consumer works on this one; the other files are opened when their
// first batch is due. A failure there (a file that is missing or damaged, a column it
// lacks or holds with another type) ends the stream: `get_next` returns an error code
// (`EIO` for input and output errors, else `EINVAL`) and `get_last_error` the library's
// message, naming the file, the object and the byte offset. Each batch's memory is the
// consumer's until it releases it; the stream must be released (its `release`) once.
// The stream may move between threads but serves one call at a time.
//
// Numbers, offsets and string bytes move into the Arrow arrays without a copy. Types:
// numbers as themselves, `bool` as Boolean, strings as LargeUtf8 (a batch holding a
// string that is not UTF-8 ends the stream with an error), `std::vector` as LargeList,
// `std::array` as FixedSizeList, classes, pairs and tuples as Struct, `std::optional`
// as its item's type with nulls, `std::variant` as a dense Union.
//
// # Safety
// `paths` must hold `n_paths` NUL-terminated strings, `columns` `n_columns` (either may
// be null when its count is 0); `name` null or NUL-terminated; `options` null or valid
// for a read; `out` valid for a write of an `ArrowArrayStream` (whatever it holds is
// overwritten, not released).
enum rw_status rw_read_arrow(const char *const *paths,
                             size_t n_paths,
                             const char *name,
                             const char *const *columns,
                             size_t n_columns,
                             const struct rw_read_options *options,
                             struct ArrowArrayStream *out);

// The number of entries of the RNTuple or TTree `name` of the file at `path` (a local
// path or a URL) in `*out`; `name` may be null for the file's only RNTuple or TTree.
// Reads the object's metadata only.
//
// # Safety
// `path` a NUL-terminated string, `name` null or NUL-terminated, `out` valid for a
// write.
enum rw_status rw_read_entries(const char *path, const char *name, uint64_t *out);

// The message of the last failed call on the calling thread (empty if none failed).
// The pointer stays valid until the next failing call on this thread.
const char *rw_last_error(void);

// The library's version, for example `"0.1.0"` (a static string).
const char *rw_version(void);

// Merges the files `inputs` (`n_inputs` of them) into a new file at `output`, as ROOT's
// `hadd` does: TTrees and RNTuples of the same path are joined, input after input
// (their baskets and pages copied as they are stored), histograms added, directories
// merged, other objects taken from the first input that has them. The output is written
// under a temporary name and renamed once complete, so a failed merge leaves no output;
// an output that exists already is not overwritten (`RW_INVALID_ARGUMENT`). Trees of
// different branches or RNTuples of different fields are an error naming both files.
//
// # Safety
// `output` a NUL-terminated string; `inputs` `n_inputs` NUL-terminated strings.
enum rw_status rw_merge(const char *output, const char *const *inputs, size_t n_inputs);

// Recovers the file at `input`, whose writer was killed or which was cut short, into a
// new file at `output` (which may be `input`: it is then replaced once the recovered file
// is complete). Every record whose bytes are whole is kept: each RNTuple with the
// clusters whose pages are all whole, each TTree with its last save and the whole
// baskets after it that every branch reaches, the other objects as last written.
// `*entries_or_null` (may be null) receives the entries kept, summed over every RNTuple
// and TTree of the file. The input is never changed; a failure leaves no output.
//
// # Safety
// `input` and `output` NUL-terminated strings; `entries_or_null` null or valid for a
// write.
enum rw_status rw_recover(const char *input, const char *output, uint64_t *entries_or_null);

// The default options.
struct rw_writer_options rw_writer_options_default(void);

// Creates (or overwrites) the file at `path` with one RNTuple called `name` of the
// model's fields, written in parallel (ROOT's `RNTupleParallelWriter::Recreate`); the
// writer in `*out`. `options` may be null for the defaults.
//
// # Safety
// `model` a live model, `name` and `path` NUL-terminated strings, `options` null or
// valid, `out` valid for a write.
enum rw_status rw_ntuple_writer_recreate(const struct rw_model *model,
                                         const char *name,
                                         const char *path,
                                         const struct rw_writer_options *options,
                                         struct rw_writer **out);

// Starts an RNTuple called `name` in an open file (ROOT's `RNTupleParallelWriter::Append`).
//
// # Safety
// As `rw_ntuple_writer_recreate`, with `file` a live file handle.
enum rw_status rw_ntuple_writer_append(const struct rw_model *model,
                                       const char *name,
                                       const struct rw_file *file,
                                       const struct rw_writer_options *options,
                                       struct rw_writer **out);

// Creates (or overwrites) the file at `path` with one TTree called `name` (a path with
// `/` puts it in directories) whose branches are the model's fields, written in
// parallel; the writer in `*out`.
//
// # Safety
// As `rw_ntuple_writer_recreate`.
enum rw_status rw_tree_writer_recreate(const struct rw_model *model,
                                       const char *name,
                                       const char *path,
                                       const struct rw_writer_options *options,
                                       struct rw_writer **out);

// Starts a TTree called `name` in an open file.
//
// # Safety
// As `rw_ntuple_writer_append`.
enum rw_status rw_tree_writer_append(const struct rw_model *model,
                                     const char *name,
                                     const struct rw_file *file,
                                     const struct rw_writer_options *options,
                                     struct rw_writer **out);

// A new fill context of the writer in `*out` (ROOT's `CreateFillContext`); any thread may
// call it, at any time before the writer is closed.
//
// # Safety
// `writer` a live writer, `out` valid for a write.
enum rw_status rw_writer_create_fill_context(const struct rw_writer *writer,
                                             struct rw_fill_context **out);

// Commits what every fill context still holds, waits for every write and writes the
// RNTuple's or TTree's metadata (a writer made by `recreate` also closes its file).
// Fill contexts still alive are closed: their next call returns `RW_CLOSED`. The file is
// complete even when a producer failed; the failure is then reported here. Closing again
// is a no-op.
//
// # Safety
// `writer` must be a live writer.
enum rw_status rw_writer_close(const struct rw_writer *writer);

// Frees a writer, closing it if it is open (errors of that close are lost: call
// `rw_writer_close` to see them). Null is ignored.
//
// # Safety
// `writer` must be null or a writer not freed before, used by no other thread.
void rw_writer_free(struct rw_writer *writer);

// The writer's memory budget in bytes: its limit, what is taken now, the most ever taken
// (any of the pointers may be null).
//
// # Safety
// `writer` a live writer; each pointer null or valid for a write.
enum rw_status rw_writer_budget(const struct rw_writer *writer,
                                uint64_t *limit,
                                uint64_t *in_use,
                                uint64_t *peak);

// Waits until budget is given back, at most `timeout_ms` milliseconds; `*freed` (may be
// null) says whether some was. For a producer told `RW_WOULD_BLOCK` that waits elsewhere
// than in the writer (a thread of its own), to know when to retry.
//
// # Safety
// `writer` a live writer; `freed` null or valid for a write.
enum rw_status rw_writer_wait_for_budget(const struct rw_writer *writer,
                                         uint64_t timeout_ms,
                                         bool *freed);

// Sets (or, with null, removes) the function called when budget is given back. Once
// this returns, the function it replaced is no longer running; closing the writer
// removes it.
//
// # Safety
// `writer` a live writer; `callback` callable from any thread with `user_data` until it
// is removed or the writer is freed.
enum rw_status rw_writer_set_budget_callback(const struct rw_writer *writer,
                                             rw_budget_callback callback,
                                             void *user_data);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* ROOTWEAVE_H */
