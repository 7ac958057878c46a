/* tflite_check.c: check the TFLite reader against the models tests/net/gen_tflite_cases.py wrote. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

/*
 *   tflite_check [--seed N] DIR
 *
 * For each NAME in DIR/cases.txt:
 *   NAME.expect  the model must open, and tsr_tflite_dump must print exactly the
 *                text the generator wrote from its Python objects; then every
 *                truncation and byte flip of the file, and random corruptions,
 *                must be refused with a message or open and dump cleanly
 *                (tsr_tflite_sweep; run under SAN to catch stray reads);
 *   NAME.error   the model must be refused with a message holding that line.
 * Prints one line per case and ends with "N passed, N failed"; exits 1 on any failure.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tsr_seed.h"
#include "../common/tsr_tflite_dump.h"
#include "tsr_tflite.h"

#define RANDOM_CASES 2000u

/* The whole file at path (malloc'd, NUL added after *len bytes), or NULL. */
static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    return NULL;
  }
  char *buf = NULL;
  size_t n = 0;
  size_t cap = 0;
  for (;;) {
    if (n + 4096 + 1 > cap) {
      cap = (cap + 4096) * 2;
      char *grown = realloc(buf, cap);
      if (grown == NULL) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = grown;
    }
    const size_t got = fread(buf + n, 1, 4096, f);
    n += got;
    if (got < 4096) {
      break;
    }
  }
  const int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* The first line where a and b differ, printed; 0 if they are equal. */
static int first_difference(const char *name, const char *got, const char *want) {
  for (int line = 1; *got != '\0' || *want != '\0'; line++) {
    const size_t lg = strcspn(got, "\n");
    const size_t lw = strcspn(want, "\n");
    if (lg != lw || memcmp(got, want, lg) != 0) {
      printf("tflite_check: %s: line %d differs\n  reader: %.*s\n  python: %.*s\n", name, line, (int)lg, got,
             (int)lw, want);
      return 1;
    }
    got += lg + (got[lg] == '\n');
    want += lw + (want[lw] == '\n');
  }
  return 0;
}

static int check_valid(const char *name, const uint8_t *model, size_t len, const char *want, uint32_t seed) {
  tsr_tflite_t m;
  char err[512];
  if (tsr_tflite_open(&m, model, len, err, sizeof err) != TSR_TFLITE_OK) {
    printf("tflite_check: %s: refused: %s\n", name, err);
    return 1;
  }
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  if (f == NULL) {
    printf("tflite_check: %s: open_memstream failed\n", name);
    return 1;
  }
  const tsr_tflite_status_t st = tsr_tflite_dump(f, &m, err, sizeof err);
  fclose(f);
  int bad = 0;
  if (st != TSR_TFLITE_OK) {
    printf("tflite_check: %s: an accessor failed: %s\n", name, err);
    bad = 1;
  } else {
    bad = first_difference(name, text, want);
  }
  free(text);
  if (bad) {
    return 1;
  }
  tsr_tflite_sweep_t sw;
  char why[512];
  if (tsr_tflite_sweep(model, len, seed, RANDOM_CASES, &sw, why, sizeof why) != 0) {
    printf("tflite_check: %s: %s (replay: TSR_SEED=%lu)\n", name, why, (unsigned long)seed);
    return 1;
  }
  printf("tflite_check: %s: every field as packed; %lu damaged copies (%lu truncated), %lu opened cleanly, "
         "the rest refused\n", name, sw.opens, (unsigned long)len, sw.accepted);
  if (sw.accepted_prefixes != 0) {
    printf("tflite_check: %s: %lu truncated copies opened (the end of the file holds data the reader must check)\n",
           name, sw.accepted_prefixes);
    return 1;
  }
  return 0;
}

static int check_invalid(const char *name, const uint8_t *model, size_t len, const char *want) {
  tsr_tflite_t m;
  char err[512];
  if (tsr_tflite_open(&m, model, len, err, sizeof err) == TSR_TFLITE_OK) {
    printf("tflite_check: %s: opened, but must be refused with '%s'\n", name, want);
    return 1;
  }
  if (strstr(err, want) == NULL || strchr(err, '\n') != NULL) {
    printf("tflite_check: %s: refused with '%s', which does not hold '%s'\n", name, err, want);
    return 1;
  }
  printf("tflite_check: %s: refused: %s\n", name, err);
  return 0;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[argc - 1] : NULL;
  if (dir == NULL || dir[0] == '-') {
    fprintf(stderr, "usage: tflite_check [--seed N] DIR   (DIR as written by tests/net/gen_tflite_cases.py)\n");
    return 2;
  }
  const uint32_t seed = (uint32_t)tsr_choose_seed("tflite_check", argc, argv);
  printf("tflite_check: seed %lu (replay with TSR_SEED=%lu or --seed %lu)\n", (unsigned long)seed,
         (unsigned long)seed, (unsigned long)seed);
  char path[4096];
  snprintf(path, sizeof path, "%s/cases.txt", dir);
  size_t list_len;
  char *list = slurp(path, &list_len);
  if (list == NULL) {
    fprintf(stderr, "tflite_check: cannot read %s\n", path);
    return 2;
  }
  int passed = 0;
  int failed = 0;
  for (char *name = strtok(list, "\n"); name != NULL; name = strtok(NULL, "\n")) {
    size_t len = 0;
    size_t want_len = 0;
    snprintf(path, sizeof path, "%s/%s.tflite", dir, name);
    char *model = slurp(path, &len);
    snprintf(path, sizeof path, "%s/%s.expect", dir, name);
    char *want = slurp(path, &want_len);
    int invalid = 0;
    if (want == NULL) {
      snprintf(path, sizeof path, "%s/%s.error", dir, name);
      want = slurp(path, &want_len);
      invalid = 1;
      if (want != NULL) {
        want[strcspn(want, "\n")] = '\0';
      }
    }
    int bad;
    if (model == NULL || want == NULL) {
      printf("tflite_check: %s: cannot read the model or its .expect/.error file\n", name);
      bad = 1;
    } else if (invalid) {
      bad = check_invalid(name, (const uint8_t *)model, len, want);
    } else {
      bad = check_valid(name, (const uint8_t *)model, len, want, seed);
    }
    free(model);
    free(want);
    passed += !bad;
    failed += bad;
  }
  free(list);
  if (passed + failed == 0) {
    printf("tflite_check: %s/cases.txt lists no case\n", dir);
    return 1;
  }
  printf("tflite_check: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
