/* test_quant.c: cmocka suite for the requantization arithmetic (sw/driver/tsr_quant.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tsr_quant.h"
#include "../common/tsr_prng.h"
#include "../common/tsr_seed.h"
#include "../common/tsr_cmocka_ext.h"

#define P30 (INT32_C(1) << 30)

/* ---- the seed of the randomized tests ---- */

static uint64_t g_seed;

/* Random numbers: tsr_splitmix64 of tests/common/tsr_prng.h. */

static double double_from_bits(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

static uint64_t bits_from_double(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* ---- tsr_srdhm ---- */

static void srdhm_int32_min_squared_saturates_to_int32_max(void **state) {
  (void)state;
  /* (-2^31)^2 / 2^31 = 2^31 does not fit: the one saturating case. */
  assert_i64(tsr_srdhm(INT32_MIN, INT32_MIN), INT32_MAX);
}

static void srdhm_extreme_products_round_correctly(void **state) {
  (void)state;
  /* (2^31-1)^2 = 2^62 - 2^32 + 1; + 2^30, / 2^31 = 2^31 - 2 + (2^30+1)/2^31 -> 2^31 - 2. */
  assert_i64(tsr_srdhm(INT32_MAX, INT32_MAX), 2147483646);
  /* -2^31 * (2^31-1) = -2^62 + 2^31; + (1 - 2^30) -> -(2^31 - 1) - (2^30 - 1)/2^31 -> -(2^31 - 1). */
  assert_i64(tsr_srdhm(INT32_MIN, INT32_MAX), -2147483647);
  assert_i64(tsr_srdhm(INT32_MAX, INT32_MIN), -2147483647);
  /* -2^31 * 2^30 = -2^61 -> exactly -2^30. */
  assert_i64(tsr_srdhm(INT32_MIN, P30), -P30);
  /* 2^30 * 2^30 = 2^60 -> exactly 2^29. */
  assert_i64(tsr_srdhm(P30, P30), 1 << 29);
  assert_i64(tsr_srdhm(0, INT32_MIN), 0);
}

static void srdhm_positive_tie_rounds_up(void **state) {
  (void)state;
  /* 1 * 2^30 / 2^31 = 0.5: (2^30 + 2^30) / 2^31 = 1. */
  assert_i64(tsr_srdhm(1, P30), 1);
  /* 3 * 2^30 / 2^31 = 1.5: (3*2^30 + 2^30) / 2^31 = 2. */
  assert_i64(tsr_srdhm(3, P30), 2);
  /* 101 * 0.5 = 50.5 -> 51. */
  assert_i64(tsr_srdhm(101, P30), 51);
  /* Just below a tie: (2^30 - 1) / 2^31 < 0.5 -> 0. */
  assert_i64(tsr_srdhm(1, P30 - 1), 0);
}

static void srdhm_negative_nudge_is_one_minus_2_pow_30(void **state) {
  (void)state;
  /* -0.5: (-2^30 + 1 - 2^30) / 2^31 = -(2^31 - 1)/2^31 -> truncates to 0.
   * So a negative tie rounds towards +infinity, not away from zero. */
  assert_i64(tsr_srdhm(-1, P30), 0);
  assert_i64(tsr_srdhm(1, -P30), 0);
  /* -1.5: (-3*2^30 + 1 - 2^30) / 2^31 = (-2^32 + 1)/2^31 -> -1. */
  assert_i64(tsr_srdhm(-3, P30), -1);
  /* -50.5 -> -50. */
  assert_i64(tsr_srdhm(-101, P30), -50);
  /* Just past the tie: -(2^30 + 1) + (1 - 2^30) = -2^31 exactly -> -1.
   * The tie above fails for any nudge <= -2^30 and this case for any
   * nudge >= 2 - 2^30: together they pin the nudge to 1 - 2^30. */
  assert_i64(tsr_srdhm(-(P30 + 1), 1), -1);
  assert_i64(tsr_srdhm(-P30, 1), 0);
}

/* ---- tsr_rdbpot ---- */

static void rdbpot_exponent_0_is_identity(void **state) {
  (void)state;
  const int32_t xs[] = {0, 1, -1, 12345, -12345, INT32_MAX, INT32_MIN};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
    assert_i64(tsr_rdbpot(xs[i], 0), xs[i]);
  }
}

static void rdbpot_exponent_1_ties_round_away_from_zero(void **state) {
  (void)state;
  assert_i64(tsr_rdbpot(1, 1), 1);   /* 0.5 -> 1 */
  assert_i64(tsr_rdbpot(3, 1), 2);   /* 1.5 -> 2 */
  assert_i64(tsr_rdbpot(5, 1), 3);   /* 2.5 -> 3 (not banker's 2) */
  assert_i64(tsr_rdbpot(-1, 1), -1); /* -0.5 -> -1 */
  assert_i64(tsr_rdbpot(-3, 1), -2); /* -1.5 -> -2 */
  assert_i64(tsr_rdbpot(-5, 1), -3); /* -2.5 -> -3 */
  assert_i64(tsr_rdbpot(2, 1), 1);
  assert_i64(tsr_rdbpot(-2, 1), -1);
  assert_i64(tsr_rdbpot(INT32_MAX, 1), 1073741824);  /* 2^30 - 0.5 -> 2^30 */
  assert_i64(tsr_rdbpot(INT32_MIN, 1), -1073741824); /* exact */
}

static void rdbpot_exponent_2_rounds_to_nearest_and_ties_away(void **state) {
  (void)state;
  /* x / 4 for x = -7..7 */
  assert_i64(tsr_rdbpot(5, 2), 1);   /* 1.25 */
  assert_i64(tsr_rdbpot(6, 2), 2);   /* 1.5 tie */
  assert_i64(tsr_rdbpot(7, 2), 2);   /* 1.75 */
  assert_i64(tsr_rdbpot(2, 2), 1);   /* 0.5 tie */
  assert_i64(tsr_rdbpot(1, 2), 0);   /* 0.25 */
  assert_i64(tsr_rdbpot(-1, 2), 0);  /* -0.25 */
  assert_i64(tsr_rdbpot(-2, 2), -1); /* -0.5 tie */
  assert_i64(tsr_rdbpot(-5, 2), -1); /* -1.25 */
  assert_i64(tsr_rdbpot(-6, 2), -2); /* -1.5 tie */
  assert_i64(tsr_rdbpot(-7, 2), -2); /* -1.75 */
}

static void rdbpot_exponent_31_covers_the_whole_range(void **state) {
  (void)state;
  assert_i64(tsr_rdbpot(INT32_MAX, 31), 1);    /* 0.99999 */
  assert_i64(tsr_rdbpot(P30, 31), 1);          /* 0.5 tie -> 1 */
  assert_i64(tsr_rdbpot(P30 - 1, 31), 0);      /* just below 0.5 */
  assert_i64(tsr_rdbpot(-P30, 31), -1);        /* -0.5 tie -> -1 */
  assert_i64(tsr_rdbpot(-P30 + 1, 31), 0);     /* just above -0.5 */
  assert_i64(tsr_rdbpot(INT32_MIN, 31), -1);   /* exactly -1 */
  assert_i64(tsr_rdbpot(-1, 31), 0);
  assert_i64(tsr_rdbpot(0, 31), 0);
}

static void rdbpot_out_of_range_exponent_is_clamped(void **state) {
  (void)state;
  assert_i64(tsr_rdbpot(12345, -3), 12345);
  assert_i64(tsr_rdbpot(INT32_MIN, 32), tsr_rdbpot(INT32_MIN, 31));
  assert_i64(tsr_rdbpot(P30, 1000), 1);
}

/* ---- tsr_mbqm ---- */

static void mbqm_double_rounding_matches_tflite(void **state) {
  (void)state;
  /* 101 * 0.5 * 2^-1 = 25.25, but srdhm rounds 50.5 up to 51 first and
   * rdbpot then rounds 25.5 up to 26: TFLite's double rounding. */
  assert_i64(tsr_mbqm(101, P30, -1), 26);
  assert_i64(tsr_mbqm(100, P30, 0), 50);
  /* 0.75 * 2^-3 * 1000 = 93.75 -> srdhm 750, rdbpot(750, 3) = 93.75 -> 94 */
  assert_i64(tsr_mbqm(1000, 1610612736, -3), 94);
}

static void mbqm_shift_30_left_shift_scales_and_wraps(void **state) {
  (void)state;
  /* 1 << 30 = 2^30; * 0.5 -> 2^29. */
  assert_i64(tsr_mbqm(1, P30, 30), 1 << 29);
  /* 3 << 30 wraps to 0xC0000000 = -2^30; * 0.5 -> -2^29 (not 3 * 2^29). */
  assert_i64(tsr_mbqm(3, P30, 30), -(1 << 29));
  /* 2 << 30 wraps to INT32_MIN; INT32_MIN * INT32_MIN saturates. */
  assert_i64(tsr_mbqm(2, INT32_MIN, 30), INT32_MAX);
  /* -1 << 30 = -2^30 (no wrap); * 0.5 -> -2^29. */
  assert_i64(tsr_mbqm(-1, P30, 30), -(1 << 29));
  /* A shift of 1: 0x40000001 << 1 wraps to 0x80000002 = -2147483646; * 0.5 -> -1073741823. */
  assert_i64(tsr_mbqm(0x40000001, P30, 1), -1073741823);
}

static void mbqm_shift_minus_31_rounds_to_nearest(void **state) {
  (void)state;
  /* srdhm(MAX, MAX) = 2^31 - 2, / 2^31 = 0.99999 -> 1 */
  assert_i64(tsr_mbqm(INT32_MAX, INT32_MAX, -31), 1);
  /* srdhm(MIN, MIN) saturates to 2^31 - 1 -> 1 */
  assert_i64(tsr_mbqm(INT32_MIN, INT32_MIN, -31), 1);
  /* srdhm(MIN, MAX) = -(2^31 - 1) -> -0.99999 -> -1 */
  assert_i64(tsr_mbqm(INT32_MIN, INT32_MAX, -31), -1);
  /* srdhm(2^30, 2^30) = 2^29; / 2^31 = 0.25 -> 0 */
  assert_i64(tsr_mbqm(P30, P30, -31), 0);
}

static void mbqm_out_of_range_shift_is_clamped_to_hardware_range(void **state) {
  (void)state;
  assert_i64(tsr_mbqm(3, P30, 45), tsr_mbqm(3, P30, 30));
  assert_i64(tsr_mbqm(INT32_MAX, INT32_MAX, -40), tsr_mbqm(INT32_MAX, INT32_MAX, -31));
  assert_i64(tsr_mbqm(1, P30, 31), 1 << 29); /* 31 is beyond the hardware's 30 */
}

/* The spec's definitions, written exactly as in the design brief (relying
 * on GCC's arithmetic >> and modular conversions, fine in a test). */
static int32_t spec_srdhm(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) {
    return INT32_MAX;
  }
  int64_t ab = (int64_t)a * (int64_t)b;
  int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return (int32_t)((ab + nudge) / (1LL << 31));
}

static int32_t spec_rdbpot(int32_t x, int e) {
  int32_t mask = (int32_t)((1LL << e) - 1);
  int32_t remainder = x & mask;
  int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (remainder > threshold ? 1 : 0);
}

static int32_t spec_mbqm(int32_t x, int32_t mult, int shift) {
  int left = shift > 0 ? shift : 0;
  int right = shift > 0 ? 0 : -shift;
  int32_t xl = (int32_t)((uint32_t)x << left);
  return spec_rdbpot(spec_srdhm(xl, mult), right);
}

/* A random int32 biased towards the interesting values. */
static int32_t random_i32(uint64_t *rng) {
  const uint64_t r = tsr_splitmix64(rng);
  switch (r & 7u) {
    case 0:
      return (int32_t)((r >> 8) & 0xff) - 128; /* small */
    case 1:
      return (r >> 8) & 1 ? INT32_MAX - (int32_t)((r >> 9) & 3) : INT32_MIN + (int32_t)((r >> 9) & 3);
    case 2:
      return (int32_t)(1u << ((r >> 8) % 31)) * ((r >> 16) & 1 ? -1 : 1); /* powers of two, ties */
    default:
      return (int32_t)(uint32_t)(r >> 32);
  }
}

static void srdhm_rdbpot_mbqm_match_the_spec_on_random_inputs(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0x5eed0001);
  for (long i = 0; i < 300000; i++) {
    const int32_t x = random_i32(&rng);
    const int32_t m = random_i32(&rng);
    const int e = (int)(tsr_splitmix64(&rng) % 32u);
    const int s = (int)(tsr_splitmix64(&rng) % 62u) - 31;
    if (tsr_srdhm(x, m) != spec_srdhm(x, m)) {
      fail_msg("seed %" PRIu64 ": tsr_srdhm(%" PRId32 ", %" PRId32 ") = %" PRId32 ", spec %" PRId32, g_seed, x, m,
               tsr_srdhm(x, m), spec_srdhm(x, m));
    }
    if (tsr_rdbpot(x, e) != spec_rdbpot(x, e)) {
      fail_msg("seed %" PRIu64 ": tsr_rdbpot(%" PRId32 ", %d) = %" PRId32 ", spec %" PRId32, g_seed, x, e,
               tsr_rdbpot(x, e), spec_rdbpot(x, e));
    }
    if (tsr_mbqm(x, m, s) != spec_mbqm(x, m, s)) {
      fail_msg("seed %" PRIu64 ": tsr_mbqm(%" PRId32 ", %" PRId32 ", %d) = %" PRId32 ", spec %" PRId32, g_seed, x,
               m, s, tsr_mbqm(x, m, s), spec_mbqm(x, m, s));
    }
  }
}

/* ---- tsr_quantize_multiplier ---- */

/* Expect success with the given (mult, shift). */
static void check_qm(double real, int32_t want_mult, int want_shift) {
  int32_t mult = 12345;
  int shift = 99;
  if (tsr_quantize_multiplier(real, &mult, &shift) != 0) {
    fail_msg("tsr_quantize_multiplier(%a) failed, expected (%" PRId32 ", %d)", real, want_mult, want_shift);
  }
  if (mult != want_mult || shift != want_shift) {
    fail_msg("tsr_quantize_multiplier(%a) = (%" PRId32 ", %d), expected (%" PRId32 ", %d)", real, mult, shift,
             want_mult, want_shift);
  }
}

/* Expect -1 with the outputs untouched. */
static void check_qm_rejected(double real) {
  int32_t mult = 12345;
  int shift = 99;
  if (tsr_quantize_multiplier(real, &mult, &shift) != -1) {
    fail_msg("tsr_quantize_multiplier(%a) returned (%" PRId32 ", %d), expected -1", real, mult, shift);
  }
  if (mult != 12345 || shift != 99) {
    fail_msg("tsr_quantize_multiplier(%a) returned -1 but changed the outputs", real);
  }
}

static void quantize_multiplier_exact_powers_and_fractions(void **state) {
  (void)state;
  check_qm(0.5, P30, 0);              /* 0.5 = 0.5 * 2^0 */
  check_qm(1.0, P30, 1);              /* 1.0 = 0.5 * 2^1 */
  check_qm(0.75, 1610612736, 0);      /* 0.75 * 2^31 = 1610612736 */
  check_qm(0.25, P30, -1);            /* 0.5 * 2^-1 */
  check_qm(3.0, 1610612736, 2);       /* 0.75 * 2^2 */
  /* 0.1 = 0x1.999999999999ap-4 = 0.8 * 2^-3; 0.8 * 2^31 = 1717986918.4 -> 1717986918 */
  check_qm(0.1, 1717986918, -3);
  /* 2^30 - 1 = (1 - 2^-30) * 2^30; * 2^31 = 2^31 - 2 */
  check_qm(1073741823.0, 2147483646, 30);
}

static void quantize_multiplier_rounds_ties_away_from_zero(void **state) {
  (void)state;
  /* (0.5 + 2^-32) * 2^31 = 2^30 + 0.5 -> 2^30 + 1 */
  check_qm(0.5 + 0x1p-32, P30 + 1, 0);
  /* (0.5 + 2^-33) * 2^31 = 2^30 + 0.25 -> 2^30 */
  check_qm(0.5 + 0x1p-33, P30, 0);
  /* (0.5 + 3 * 2^-32) * 2^31 = 2^30 + 1.5 -> 2^30 + 2 */
  check_qm(0.5 + 0x3p-32, P30 + 2, 0);
}

static void quantize_multiplier_carry_to_2_pow_31_renormalizes(void **state) {
  (void)state;
  /* (1 - 2^-32) * 2^31 = 2^31 - 0.5, a tie, rounds to 2^31: becomes (2^30, shift + 1). */
  check_qm(1.0 - 0x1p-32, P30, 1);
  /* (1 - 2^-33) * 2^31 = 2^31 - 0.25 -> 2^31 as well. */
  check_qm(1.0 - 0x1p-33, P30, 1);
  /* One ulp further from 1: 2^31 - 0.5 - 2^-22 -> 2^31 - 1, no carry. */
  check_qm(1.0 - 0x1p-32 - 0x1p-53, INT32_MAX, 0);
}

static void quantize_multiplier_flushes_tiny_values_to_zero(void **state) {
  (void)state;
  check_qm(0x1p-32, P30, -31); /* 0.5 * 2^-31: the smallest shift kept */
  check_qm(0x1p-33, 0, 0);     /* shift -32: flushed */
  /* frexp gives shift -32, but the mantissa carries to shift -31: kept (the
   * carry happens before the flush test, as in TFLite). */
  check_qm((1.0 - 0x1p-33) * 0x1p-32, P30, -31);
  /* Same exponent without the carry: flushed. */
  check_qm((1.0 - 0x1p-32 - 0x1p-53) * 0x1p-32, 0, 0);
  check_qm(DBL_MIN, 0, 0);       /* smallest normal */
  check_qm(0x1p-1074, 0, 0);     /* smallest subnormal */
  check_qm(0x1.8p-1050, 0, 0);   /* a subnormal */
  check_qm(0.0, 0, 0);
  check_qm(-0.0, 0, 0);          /* -0.0 >= 0 holds */
}

static void quantize_multiplier_rejects_negative_nan_inf_and_shift_above_30(void **state) {
  (void)state;
  check_qm_rejected(-0.5);
  check_qm_rejected(-DBL_MIN);
  check_qm_rejected(-0x1p-1074);
  check_qm_rejected(-INFINITY);
  check_qm_rejected(INFINITY);
  check_qm_rejected(NAN);
  check_qm_rejected(-NAN);
  check_qm_rejected(0x1p30);           /* 0.5 * 2^31: shift 31 */
  check_qm_rejected(0x1p30 - 0x1p-23); /* rounds up to 2^30: shift 31 after the carry */
  check_qm_rejected(DBL_MAX);
  int32_t mult;
  int shift;
  assert_i64(tsr_quantize_multiplier(0.5, NULL, &shift), -1);
  assert_i64(tsr_quantize_multiplier(0.5, &mult, NULL), -1);
}

/* TFLite's QuantizeMultiplier written with libm, plus the hardware's shift limit. */
static int ref_quantize_multiplier(double real, int32_t *mult, int *shift) {
  if (isnan(real) || isinf(real) || real < 0.0) {
    return -1;
  }
  if (real == 0.0) {
    *mult = 0;
    *shift = 0;
    return 0;
  }
  int e;
  const double q = frexp(real, &e);
  long long m = (long long)round(q * 2147483648.0);
  if (m == (1LL << 31)) {
    m /= 2;
    e++;
  }
  if (e < -31) {
    m = 0;
    e = 0;
  }
  if (e > 30) {
    return -1;
  }
  *mult = (int32_t)m;
  *shift = e;
  return 0;
}

/* A random double: raw bit patterns, likely multipliers, and rounding ties. */
static double random_double(uint64_t *rng) {
  const uint64_t r = tsr_splitmix64(rng);
  const uint64_t frac = tsr_splitmix64(rng) & ((UINT64_C(1) << 52) - 1u);
  const uint64_t expo = 1023u - 40u + (r >> 8) % 76u; /* 2^-40 .. 2^35 */
  switch (r & 3u) {
    case 0:
      return double_from_bits(tsr_splitmix64(rng)); /* anything: NaN, inf, negative, subnormal */
    case 1:
      return double_from_bits(expo << 52 | frac);
    case 2: /* the 22 bits that rounding drops are exactly a half, or one off it */
      return double_from_bits(expo << 52 | (frac & ~UINT64_C(0x3fffff)) | (UINT64_C(0x200000) + (r >> 16) % 3u - 1u));
    default: /* mantissa close to all ones: the carry case */
      return double_from_bits(expo << 52 | (((UINT64_C(1) << 52) - 1u) - (frac & 0x7fffffu)));
  }
}

static void quantize_multiplier_matches_libm_reference_on_random_doubles(void **state) {
  (void)state;
  uint64_t rng = g_seed;
  for (long i = 0; i < 400000; i++) {
    const double real = random_double(&rng);
    int32_t mult = -7, ref_mult = -7;
    int shift = -99, ref_shift = -99;
    const int rc = tsr_quantize_multiplier(real, &mult, &shift);
    const int ref_rc = ref_quantize_multiplier(real, &ref_mult, &ref_shift);
    if (rc != ref_rc || mult != ref_mult || shift != ref_shift) {
      fail_msg("seed %" PRIu64 " (replay: TSR_SEED=%" PRIu64 "): input %a (bits 0x%016" PRIx64
               "): got rc %d (%" PRId32 ", %d), reference rc %d (%" PRId32 ", %d)",
               g_seed, g_seed, real, bits_from_double(real), rc, mult, shift, ref_rc, ref_mult, ref_shift);
    }
  }
}

int main(int argc, char **argv) {
  g_seed = tsr_choose_seed("test_quant", argc, argv);
  printf("test_quant: seed %" PRIu64 " (replay with TSR_SEED=%" PRIu64 " or --seed %" PRIu64 ")\n", g_seed, g_seed,
         g_seed);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(srdhm_int32_min_squared_saturates_to_int32_max),
      cmocka_unit_test(srdhm_extreme_products_round_correctly),
      cmocka_unit_test(srdhm_positive_tie_rounds_up),
      cmocka_unit_test(srdhm_negative_nudge_is_one_minus_2_pow_30),
      cmocka_unit_test(rdbpot_exponent_0_is_identity),
      cmocka_unit_test(rdbpot_exponent_1_ties_round_away_from_zero),
      cmocka_unit_test(rdbpot_exponent_2_rounds_to_nearest_and_ties_away),
      cmocka_unit_test(rdbpot_exponent_31_covers_the_whole_range),
      cmocka_unit_test(rdbpot_out_of_range_exponent_is_clamped),
      cmocka_unit_test(mbqm_double_rounding_matches_tflite),
      cmocka_unit_test(mbqm_shift_30_left_shift_scales_and_wraps),
      cmocka_unit_test(mbqm_shift_minus_31_rounds_to_nearest),
      cmocka_unit_test(mbqm_out_of_range_shift_is_clamped_to_hardware_range),
      cmocka_unit_test(srdhm_rdbpot_mbqm_match_the_spec_on_random_inputs),
      cmocka_unit_test(quantize_multiplier_exact_powers_and_fractions),
      cmocka_unit_test(quantize_multiplier_rounds_ties_away_from_zero),
      cmocka_unit_test(quantize_multiplier_carry_to_2_pow_31_renormalizes),
      cmocka_unit_test(quantize_multiplier_flushes_tiny_values_to_zero),
      cmocka_unit_test(quantize_multiplier_rejects_negative_nan_inf_and_shift_above_30),
      cmocka_unit_test(quantize_multiplier_matches_libm_reference_on_random_doubles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
