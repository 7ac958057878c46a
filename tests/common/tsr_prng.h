/* tsr_prng.h: the random numbers of the C tests: one copy of each generator (header-only). */
#ifndef TSR_PRNG_H
#define TSR_PRNG_H

/*
 * Deterministic and identical on every host, so a failing seed replays.
 * Three generators, each kept where a test's recorded seeds depend on its
 * exact stream:
 *   tsr_prng_*        xorshift64* (Vigna; tsr_xorshift64s), 64-bit state,
 *                     seeded through splitmix64: the default (the system
 *                     tests' sys_rng_* are this generator);
 *   tsr_splitmix64    splitmix64 (state += golden ratio, then mix): also
 *                     turns any seed into a good non-zero state;
 *   tsr_xorshift32    Marsaglia's xorshift32, the same stream as the Verilog
 *                     benches' tests/block/tsr_tb_prng.vh.
 * Include it as "../common/tsr_prng.h" from tests/<suite>/. It needs only
 * <stdint.h>, <stddef.h>, <stdbool.h> and <string.h>, so a host tool that makes
 * random test data (the CLI's bench) can use it too; the driver, HAL, golden
 * model and firmware have no use for it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/** splitmix64: advances *state and returns 64 well-mixed bits. */
static inline uint64_t tsr_splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/** xorshift32: advances *state (never 0) and returns it. */
static inline uint32_t tsr_xorshift32(uint32_t *state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

/** xorshift64*: advances *state (never 0) and returns 64 random bits. */
static inline uint64_t tsr_xorshift64s(uint64_t *state) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * UINT64_C(0x2545f4914f6cdd1d);
}

/** xorshift64* generator state (never 0). */
typedef struct tsr_prng {
  uint64_t s;
} tsr_prng_t;

/** Seed r from a 32-bit seed and a stream number (different streams are independent). */
static inline void tsr_prng_seed(tsr_prng_t *r, uint32_t seed, uint32_t stream) {
  uint64_t x = ((uint64_t)stream << 32) | seed;
  const uint64_t s = tsr_splitmix64(&x);
  r->s = s != 0u ? s : 1u;
}

/** Next 64 random bits (xorshift64*). */
static inline uint64_t tsr_prng_next(tsr_prng_t *r) {
  return tsr_xorshift64s(&r->s);
}

/** Uniform integer in [lo, hi] (hi >= lo, hi - lo < 2^63; modulo bias negligible for small spans). */
static inline int64_t tsr_prng_range(tsr_prng_t *r, int64_t lo, int64_t hi) {
  const uint64_t span = (uint64_t)(hi - lo) + 1u;
  return lo + (int64_t)(tsr_prng_next(r) % span);
}

/** True with probability pct / 100. */
static inline bool tsr_prng_pct(tsr_prng_t *r, unsigned pct) {
  return tsr_prng_next(r) % 100u < pct;
}

/** Fill n bytes with random data (8 bytes per draw, in host byte order). */
static inline void tsr_prng_fill(tsr_prng_t *r, uint8_t *p, size_t n) {
  size_t i = 0;
  for (; i + 8u <= n; i += 8u) {
    const uint64_t v = tsr_prng_next(r);
    memcpy(p + i, &v, 8u);
  }
  if (i < n) {
    const uint64_t v = tsr_prng_next(r);
    memcpy(p + i, &v, n - i);
  }
}

#ifdef __cplusplus
}
#endif

#endif /* TSR_PRNG_H */
