/* unit_rng.h: the seed and random numbers of the randomized unit tests (one copy, header-only). */
#ifndef UNIT_RNG_H
#define UNIT_RNG_H

/*
 * A suite calls unit_seed(argc, argv, "name") once in main, prints the seed
 * it got, and draws from its own splitmix64 state derived from it, so any
 * failure replays with --seed N or TSR_SEED=N.
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seed from --seed N, else TSR_SEED, else the clock. */
static inline uint64_t unit_seed(int argc, char **argv, const char *suite) {
  const char *text = getenv("TSR_SEED");
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--seed") == 0) {
      text = argv[i + 1];
    }
  }
  if (text != NULL && text[0] != '\0') {
    char *end;
    const unsigned long long v = strtoull(text, &end, 0);
    if (*end == '\0') {
      return (uint64_t)v;
    }
    fprintf(stderr, "%s: ignoring seed '%s' (not a number)\n", suite, text);
  }
  return (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
}

/* splitmix64: a small, good, reproducible generator. */
static inline uint64_t unit_rng_next(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double unit_rng_unit(uint64_t *state) {
  return (double)(unit_rng_next(state) >> 11) * 0x1p-53;
}

/* Uniform integer in lo..hi. */
static inline int32_t unit_rng_int(uint64_t *state, int32_t lo, int32_t hi) {
  return lo + (int32_t)(unit_rng_next(state) % (uint64_t)((int64_t)hi - lo + 1));
}

/* 2^u with u uniform in [lo, hi): a scale spread over several octaves. */
static inline double unit_rng_log2_uniform(uint64_t *state, double lo, double hi) {
  return exp2(lo + (hi - lo) * unit_rng_unit(state));
}

#endif /* UNIT_RNG_H */
