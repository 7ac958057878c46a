/* tsr_seed.h: the seed of a random C test: --seed N, else TSR_SEED, else the clock (header-only). */
#ifndef TSR_SEED_H
#define TSR_SEED_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/**
 * The seed a random suite runs with: the value of `--seed N` in argv, else of
 * the TSR_SEED environment variable, else one drawn from the clock. A value
 * that is not a number is ignored with one line on stderr that names `prog`.
 * The suite prints the seed it used, so a failure replays.
 */
static inline uint64_t tsr_choose_seed(const char *prog, int argc, char **argv) {
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
    fprintf(stderr, "%s: ignoring seed '%s' (not a number)\n", prog, text);
  }
  return (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
}

#endif /* TSR_SEED_H */
