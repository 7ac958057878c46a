/* fuzz_npy.c: libFuzzer harness of the .npy reader (sw/lib/tsr_npy.c), with a write/read round trip. */
#define _POSIX_C_SOURCE 200809L

/*
 * The reader runs on a memory stream (fmemopen, tsr_npy_read_stream), so every
 * input is one parse with no disk I/O; the harness links sw/lib/tsr_npy.c.
 * Invariants, besides ASan/UBSan:
 *   - a refused input leaves the tensor empty and writes a one-line message;
 *   - an accepted input has a consistent tensor (count = product of the
 *     shape, the data size equals what the input held after its header), and
 *     writing it and reading it back gives the same dtype, shape and bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_roundtrip(const tsr_npy_t *t, size_t in_size) {
  size_t nbytes = 0;
  char err[256];
  if (tsr_npy_check(t, "fuzz", &nbytes, err, sizeof err) != 0) {
    fprintf(stderr, "fuzz_npy: accepted tensor is inconsistent: %s\n", err);
    abort();
  }
  if (nbytes > in_size) {
    fprintf(stderr, "fuzz_npy: %zu data bytes from a %zu-byte input\n", nbytes, in_size);
    abort();
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *w = open_memstream(&buf, &len);
  if (w == NULL) {
    return;
  }
  const int wrote = tsr_npy_write_stream(w, t, "fuzz", err, sizeof err);
  fclose(w);
  if (wrote != 0) {
    fprintf(stderr, "fuzz_npy: writing an accepted tensor failed\n");
    abort();
  }
  FILE *r = fmemopen(buf, len, "rb");
  if (r == NULL) {
    free(buf);
    return;
  }
  tsr_npy_t back;
  memset(&back, 0, sizeof back);
  if (tsr_npy_read_stream(r, "roundtrip", &back, err, sizeof err) != 0) {
    fprintf(stderr, "fuzz_npy: re-reading what we wrote failed: %s\n", err);
    abort();
  }
  fclose(r);
  free(buf);
  if (back.dtype != t->dtype || back.ndim != t->ndim || back.count != t->count ||
      memcmp(back.shape, t->shape, sizeof t->shape) != 0 ||
      (nbytes != 0 && memcmp(back.data, t->data, nbytes) != 0)) {
    fprintf(stderr, "fuzz_npy: round trip changed the tensor\n");
    abort();
  }
  tsr_npy_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* fmemopen refuses a zero-length buffer; an empty file is still a case. */
  static const uint8_t empty[1] = {0};
  FILE *f = fmemopen((void *)(size != 0 ? data : empty), size != 0 ? size : 1, "rb");
  if (f == NULL) {
    return 0;
  }
  if (size == 0) {
    fgetc(f); /* now at end: behaves as an empty file */
  }
  tsr_npy_t t;
  memset(&t, 0, sizeof t);
  char err[256];
  err[0] = '\0';
  const int rc = tsr_npy_read_stream(f, "fuzz.npy", &t, err, sizeof err);
  fclose(f);
  if (rc != 0) {
    if (t.data != NULL || t.count != 0 || err[0] == '\0' || strchr(err, '\n') != NULL) {
      fprintf(stderr, "fuzz_npy: refused input left data or no one-line message: '%s'\n", err);
      abort();
    }
    return 0;
  }
  if (t.data == NULL || t.ndim < 0 || t.ndim > TSR_NPY_MAX_DIMS) {
    fprintf(stderr, "fuzz_npy: accepted tensor without data or with ndim %d\n", t.ndim);
    abort();
  }
  check_roundtrip(&t, size);
  tsr_npy_free(&t);
  return 0;
}
