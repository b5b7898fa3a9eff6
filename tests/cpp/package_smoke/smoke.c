/* The C API through the shared library: prints the version, writes 1000 entries of a float
 * and a std::vector<float> one by one into an RNTuple, and checks that an unknown type name
 * is refused with a message. Usage: smoke_c OUT.root (tests/python/test_cpp_package.py
 * reads the file back and compares every value with the formula below). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rootweave.h>

#define ENTRIES 1000

static void check(rw_status status, const char *what) {
  if (status != RW_OK) {
    fprintf(stderr, "%s failed (status %d): %s\n", what, (int)status, rw_last_error());
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: smoke_c OUT.root\n");
    return 2;
  }
  printf("version %s\n", rw_version());

  rw_model *model = NULL;
  check(rw_model_new(&model), "rw_model_new");
  check(rw_model_add_field(model, "pt", "float"), "add pt");
  check(rw_model_add_field(model, "hits", "std::vector<float>"), "add hits");

  /* A type that does not exist: refused, with a message naming it, and the model unchanged. */
  rw_status bad = rw_model_add_field(model, "bad", "std::vectr<float>");
  const char *message = rw_last_error();
  if (bad != RW_INVALID_ARGUMENT || message == NULL || strstr(message, "vectr") == NULL) {
    fprintf(stderr, "a wrong type name gave status %d, message '%s'\n", (int)bad, message ? message : "(null)");
    return 1;
  }
  printf("refused: %s\n", message);
  size_t fields = 0;
  check(rw_model_field_count(model, &fields), "rw_model_field_count");
  if (fields != 2) {
    fprintf(stderr, "the model has %zu fields, not 2\n", fields);
    return 1;
  }

  rw_writer *writer = NULL;
  check(rw_ntuple_writer_recreate(model, "ntuple", argv[1], NULL, &writer), "rw_ntuple_writer_recreate");
  rw_model_free(model);
  rw_fill_context *context = NULL;
  check(rw_writer_create_fill_context(writer, &context), "rw_writer_create_fill_context");

  for (int i = 0; i < ENTRIES; i++) {
    /* pt = i / 2; hits = i + j / 8 for j < i % 4 (exact in float). */
    float pt = (float)i * 0.5f;
    float items[3];
    uint64_t n = (uint64_t)(i % 4);
    for (uint64_t j = 0; j < n; j++) items[j] = (float)i + (float)j * 0.125f;
    uint64_t offsets[2] = {0, n};
    rw_column item_column = {items, NULL, (size_t)n, NULL, 0};
    rw_column columns[2] = {
        {&pt, NULL, 1, NULL, 0},
        {NULL, offsets, 1, &item_column, 1},
    };
    check(rw_fill_context_fill(context, columns, 2), "rw_fill_context_fill");
  }
  rw_fill_context_free(context);
  check(rw_writer_close(writer), "rw_writer_close");
  rw_writer_free(writer);
  printf("wrote %d entries\n", ENTRIES);
  return 0;
}
