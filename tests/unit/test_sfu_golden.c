/* test_sfu_golden.c: cmocka suite for the SFU golden model (sw/golden/tsr_sfu_golden.c), its host preparation
 * (sw/lib/tsr_sfu_prep.c) and the fused LUT/LEAKY output stage (sw/golden/tsr_golden.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tsr_golden.h"
#include "tsr_sfu.h"
#include "../common/tsr_prng.h"
#include "../common/tsr_seed.h"
#include "../common/tsr_cmocka_ext.h"

/* |actual - expected| <= tol, printed in decimal. */
#define assert_near(actual, expected, tol)                                                            \
  do {                                                                                                \
    const double actual_ = (double)(actual);                                                          \
    const double expected_ = (double)(expected);                                                      \
    if (!(fabs(actual_ - expected_) <= (double)(tol))) {                                              \
      fail_msg("%s = %.17g, expected %.17g within %g", #actual, actual_, expected_, (double)(tol));    \
    }                                                                                                 \
  } while (0)

#define P30 (INT32_C(1) << 30)

static void check_i8(const int8_t *got, const int8_t *want, size_t count) {
  for (size_t i = 0; i < count; i++) {
    if (got[i] != want[i]) {
      fail_msg("element %zu = %d, expected %d", i, got[i], want[i]);
    }
  }
}

/* ---- the seed of the randomized tests ---- */

static uint64_t g_seed;

/* Random numbers: tsr_splitmix64 of tests/common/tsr_prng.h. */

/* Uniform in [0, 1). */
static double rng_unit(uint64_t *state) {
  return (double)(tsr_splitmix64(state) >> 11) * 0x1p-53;
}

/* Uniform integer in lo..hi. */
static int32_t rng_int(uint64_t *state, int32_t lo, int32_t hi) {
  return lo + (int32_t)(tsr_splitmix64(state) % (uint64_t)(hi - lo + 1));
}

/* 2^u with u uniform in [lo, hi): a scale spread over several octaves. */
static double rng_log2_uniform(uint64_t *state, double lo, double hi) {
  return exp2(lo + (hi - lo) * rng_unit(state));
}

/* Standard normal by Box-Muller. */
static double rng_normal(uint64_t *state) {
  const double u1 = 1.0 - rng_unit(state);
  const double u2 = rng_unit(state);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
}

static int8_t clamp_i8(double v) {
  if (v < -128.0) {
    return -128;
  }
  if (v > 127.0) {
    return 127;
  }
  return (int8_t)v;
}

/* ==== lookup tables (tsr_lut_populate) and MAP ==== */

/* lut[val mod 256]: the entry for the int8 input val. */
static int lut_at(const int8_t lut[256], int val) {
  return lut[(uint8_t)(int8_t)val];
}

static void lut_logistic_matches_hand_computed_entries(void **state) {
  (void)state;
  int8_t lut[256];
  /* in_scale 1/16 zp 0, out_scale 1/256 zp -128:
   *   val    0: x = 0,      0.5       * 256 = 128     -> 128 - 128 =    0
   *   val   16: x = 1,      0.7310586 * 256 = 187.15  -> 187 - 128 =   59
   *   val  -16: x = -1,     0.2689414 * 256 =  68.85  ->  69 - 128 =  -59 (index 240)
   *   val  127: x = 7.9375, 0.99964   * 256 = 255.91  -> 256 - 128 =  128 -> 127
   *   val -128: x = -8,     0.000335  * 256 =   0.086 ->   0 - 128 = -128 */
  assert_i64(tsr_lut_populate(TSR_LUT_LOGISTIC, 1.0f / 16, 0, 1.0f / 256, -128, lut), 0);
  assert_i64(lut_at(lut, 0), 0);
  assert_i64(lut_at(lut, 16), 59);
  assert_i64(lut[240], -59);
  assert_i64(lut_at(lut, 127), 127);
  assert_i64(lut_at(lut, -128), -128);
}

static void lut_tanh_matches_hand_computed_entries(void **state) {
  (void)state;
  int8_t lut[256];
  /* in_scale 1/32, out_scale 1/128, zero points 0:
   *   val 32: tanh(1) = 0.761594 * 128 = 97.48 -> 97;  val -32 -> -97
   *   val 127: tanh(3.97) * 128 = 127.91 -> 128 -> 127
   *   val -128: tanh(-4) * 128 = -127.92 -> -128 */
  assert_i64(tsr_lut_populate(TSR_LUT_TANH, 1.0f / 32, 0, 1.0f / 128, 0, lut), 0);
  assert_i64(lut_at(lut, 0), 0);
  assert_i64(lut_at(lut, 32), 97);
  assert_i64(lut_at(lut, -32), -97);
  assert_i64(lut_at(lut, 127), 127);
  assert_i64(lut_at(lut, -128), -128);
}

static void lut_gelu_and_gelu_tanh_match_hand_computed_entries(void **state) {
  (void)state;
  int8_t lut[256];
  /* in_scale 1/16, out_scale 1/16, zero points 0:
   *   val 16: gelu(1)  = 1 * Phi(1)   = 0.841345 * 16 = 13.46 -> 13
   *   val -16: gelu(-1) = -Phi(-1)    = -0.158655 * 16 = -2.54 -> -3
   *   val 32: gelu(2)  = 2 * 0.977250 = 1.954500 * 16 = 31.27 -> 31
   * (the tanh form agrees to 2e-4 there: 13.46, -2.54, 31.27 again) */
  assert_i64(tsr_lut_populate(TSR_LUT_GELU, 1.0f / 16, 0, 1.0f / 16, 0, lut), 0);
  assert_i64(lut_at(lut, 0), 0);
  assert_i64(lut_at(lut, 16), 13);
  assert_i64(lut_at(lut, -16), -3);
  assert_i64(lut_at(lut, 32), 31);
  assert_i64(lut_at(lut, 127), 127);
  assert_i64(tsr_lut_populate(TSR_LUT_GELU_TANH, 1.0f / 16, 0, 1.0f / 16, 0, lut), 0);
  assert_i64(lut_at(lut, 16), 13);
  assert_i64(lut_at(lut, -16), -3);
  assert_i64(lut_at(lut, 32), 31);
  /* Where they differ: x = -3 (val -48) with out_scale 2^-13:
   *   erf form:  -3 * Phi(-3) = -3 * 0.0013499 = -0.0040497 * 8192 = -33.18 -> -33
   *   tanh form: -1.5 * (1 + tanh(0.797885 * (-3 - 0.044715 * 27)))
   *            = -1.5 * (1 - 0.9975745) = -0.0036374 * 8192 = -29.80 -> -30 */
  assert_i64(tsr_lut_populate(TSR_LUT_GELU, 1.0f / 16, 0, 0x1p-13f, 0, lut), 0);
  assert_i64(lut_at(lut, -48), -33);
  assert_i64(tsr_lut_populate(TSR_LUT_GELU_TANH, 1.0f / 16, 0, 0x1p-13f, 0, lut), 0);
  assert_i64(lut_at(lut, -48), -30);
}

static void lut_silu_matches_hand_computed_entries(void **state) {
  (void)state;
  int8_t lut[256];
  /* in_scale 1/16, out_scale 1/16:
   *   val 16:  1 * 0.731059 * 16 = 11.70 -> 12
   *   val -16: -1 * 0.268941 * 16 = -4.30 -> -4
   *   val 127: 7.9375 * 0.99964 * 16 = 126.95 -> 127
   *   val -128: -8 * 0.000335 * 16 = -0.043 -> 0 */
  assert_i64(tsr_lut_populate(TSR_LUT_SILU, 1.0f / 16, 0, 1.0f / 16, 0, lut), 0);
  assert_i64(lut_at(lut, 0), 0);
  assert_i64(lut_at(lut, 16), 12);
  assert_i64(lut_at(lut, -16), -4);
  assert_i64(lut_at(lut, 127), 127);
  assert_i64(lut_at(lut, -128), 0);
}

static void lut_exp_matches_hand_computed_entries_and_saturates_overflow(void **state) {
  (void)state;
  int8_t lut[256];
  /* in_scale 1/16 zp 0, out_scale 1/8 zp -128:
   *   val 0:   exp(0) = 1 * 8 = 8 -> 8 - 128 = -120
   *   val 16:  e * 8 = 21.75 -> 22 - 128 = -106
   *   val 127: exp(7.94) * 8 = 22400 -> 127
   *   val -128: exp(-8) * 8 = 0.0027 -> -128 */
  assert_i64(tsr_lut_populate(TSR_LUT_EXP, 1.0f / 16, 0, 1.0f / 8, -128, lut), 0);
  assert_i64(lut_at(lut, 0), -120);
  assert_i64(lut_at(lut, 16), -106);
  assert_i64(lut_at(lut, 127), 127);
  assert_i64(lut_at(lut, -128), -128);
  /* in_scale 1: expf(127) overflows to +inf in float; the entry saturates. */
  assert_i64(tsr_lut_populate(TSR_LUT_EXP, 1.0f, 0, 1.0f, 0, lut), 0);
  assert_i64(lut_at(lut, 127), 127);
  assert_i64(lut_at(lut, 2), 7); /* e^2 = 7.39 -> 7 */
}

static void lut_hardswish_matches_hand_computed_entries(void **state) {
  (void)state;
  int8_t lut[256];
  /* in_scale 1/16, out_scale 1/16 (x * min(max(x + 3, 0), 6) / 6):
   *   val 16 (x = 1):     1 * 4 / 6 = 0.6667 * 16 = 10.67 -> 11
   *   val -16 (x = -1):  -1 * 2 / 6 = -0.3333 * 16 = -5.33 -> -5
   *   val -48 (x = -3):  -3 * 0 / 6 = 0
   *   val 64 (x = 4):     4 * 6 / 6 = 4 * 16 = 64
   *   val -24 (x = -1.5): -1.5 * 1.5 / 6 = -0.375 * 16 = -6 */
  assert_i64(tsr_lut_populate(TSR_LUT_HARDSWISH, 1.0f / 16, 0, 1.0f / 16, 0, lut), 0);
  assert_i64(lut_at(lut, 16), 11);
  assert_i64(lut_at(lut, -16), -5);
  assert_i64(lut_at(lut, -48), 0);
  assert_i64(lut_at(lut, 64), 64);
  assert_i64(lut_at(lut, -24), -6);
}

static void lut_rounds_ties_away_from_zero_then_adds_zero_points(void **state) {
  (void)state;
  int8_t lut[256];
  /* exp(0) = 1 with out_scale 2: 1 * 0.5 = 0.5 exactly -> 1 (half-to-even or
   * truncation would give 0); + out_zp 10 = 11. */
  assert_i64(tsr_lut_populate(TSR_LUT_EXP, 1.0f / 16, 0, 2.0f, 10, lut), 0);
  assert_i64(lut_at(lut, 0), 11);
  /* hard-swish at x = -0.75 (val -12): -0.75 * 2.25 / 6 = -0.28125 * 16 =
   * -4.5 exactly -> -5 (floor(x + 0.5), truncation and half-to-even give -4). */
  assert_i64(tsr_lut_populate(TSR_LUT_HARDSWISH, 1.0f / 16, 0, 1.0f / 16, 0, lut), 0);
  assert_i64(lut_at(lut, -12), -5);
  /* The input zero point shifts the table: with in_zp = 16, val 32 is x = 1. */
  assert_i64(tsr_lut_populate(TSR_LUT_TANH, 1.0f / 16, 16, 1.0f / 128, 0, lut), 0);
  assert_i64(lut_at(lut, 32), 97);
  assert_i64(lut_at(lut, 16), 0);
}

static void lut_rejects_bad_scales_zero_points_and_functions_leaving_the_table(void **state) {
  (void)state;
  int8_t lut[256];
  memset(lut, 55, sizeof lut);
  const float bad_scales[] = {0.0f, -1.0f, NAN, INFINITY, 1e-45f /* 1/s overflows */};
  for (size_t i = 0; i < sizeof bad_scales / sizeof bad_scales[0]; i++) {
    assert_i64(tsr_lut_populate(TSR_LUT_TANH, bad_scales[i], 0, 1.0f, 0, lut), i == 4 ? 0 : -1);
    assert_i64(tsr_lut_populate(TSR_LUT_TANH, 1.0f, 0, bad_scales[i], 0, lut), -1);
    memset(lut, 55, sizeof lut);
  }
  assert_i64(tsr_lut_populate(TSR_LUT_TANH, 1.0f, 128, 1.0f, 0, lut), -1);
  assert_i64(tsr_lut_populate(TSR_LUT_TANH, 1.0f, -129, 1.0f, 0, lut), -1);
  assert_i64(tsr_lut_populate(TSR_LUT_TANH, 1.0f, 0, 1.0f, 128, lut), -1);
  assert_i64(tsr_lut_populate(TSR_LUT_TANH, 1.0f, 0, 1.0f, -129, lut), -1);
  assert_i64(tsr_lut_populate((tsr_lut_fn_t)99, 1.0f, 0, 1.0f, 0, lut), -1);
  assert_i64(tsr_lut_populate(TSR_LUT_TANH, 1.0f, 0, 1.0f, 0, NULL), -1);
  for (int i = 0; i < 256; i++) {
    assert_i64(lut[i], 55);
  }
}

static void map_indexes_the_table_by_the_byte_of_each_input(void **state) {
  (void)state;
  int8_t lut[256];
  for (int i = 0; i < 256; i++) {
    lut[i] = (int8_t)(i < 128 ? 127 - i : i - 256); /* 0 -> 127, 127 -> 0, -128 -> -128, -1 -> -1 */
  }
  const int8_t in[5] = {0, 127, -128, -1, 5};
  int8_t out[5];
  tsr_golden_map(lut, 5, in, out);
  const int8_t want[5] = {127, 0, -128, -1, 122};
  check_i8(out, want, 5);
  int8_t inplace[5] = {0, 127, -128, -1, 5};
  tsr_golden_map(lut, 5, inplace, inplace);
  check_i8(inplace, want, 5);
}

static void reduce_gives_max_sum_and_sum_of_squares_per_row(void **state) {
  (void)state;
  /* Row 0: 3 -5 7   -> max 7, sum 5, squares 9 + 25 + 49 = 83
   * Row 1: -128 x3  -> max -128, sum -384, squares 3 * 16384 = 49152 */
  const int8_t x[6] = {3, -5, 7, -128, -128, -128};
  int32_t out[6];
  tsr_golden_reduce(2, 3, x, out);
  const int32_t want[6] = {7, 5, 83, -128, -384, 49152};
  for (int i = 0; i < 6; i++) {
    assert_i64(out[i], want[i]);
  }
}

static void reduce_of_the_longest_row_does_not_overflow(void **state) {
  (void)state;
  /* 65535 values of -128: sum -8388480, squares 65535 * 16384 = 1073725440 < 2^31. */
  int8_t *x = malloc(TSR_SFU_LEN_MAX);
  assert_non_null(x);
  memset(x, -128, TSR_SFU_LEN_MAX);
  int32_t out[3];
  tsr_golden_reduce(1, TSR_SFU_LEN_MAX, x, out);
  assert_i64(out[0], -128);
  assert_i64(out[1], -8388480);
  assert_i64(out[2], 1073725440);
  free(x);
}

/* ==== building blocks ==== */

/* exp(a / 2^26) in Q0.31 as a double. */
static double exp_q31(int32_t a) {
  return exp((double)a * 0x1p-26) * 0x1p31;
}

/* gemmlowp's exp is accurate to about 2.3e-7 (the 4th-order Taylor series
 * on a quarter interval): a full sweep in steps of 997 measures at most 491
 * LSB of Q0.31. The tests allow 2^-22 = 512 LSB. */
#define EXP_TOL 512.0

static void exp_on_negative_values_at_zero_is_int32_max(void **state) {
  (void)state;
  assert_i64(tsr_gemmlowp_exp_on_negative_values(0), INT32_MAX);
  /* One LSB below 0 (-2^-26): exp = 1 - 2^-26, i.e. 2^31 - 32. Here
   * (a mod 1/4) - 1/4 is a itself and the remainder is 0: the Taylor series
   * alone, at the end of its interval where its error is largest. */
  assert_near(tsr_gemmlowp_exp_on_negative_values(-1), 2147483648.0 - 32.0, EXP_TOL);
}

static void exp_on_negative_values_around_minus_one_quarter(void **state) {
  (void)state;
  /* -1/4 = -2^24 in Q5.26 is exactly the interval boundary of the Taylor
   * part (remainder 0): exp(-1/4) = 1672461947 in Q0.31 (gemmlowp's own
   * constant). One LSB on each side moves to the next interval. */
  const int32_t q = -(INT32_C(1) << 24);
  assert_near(tsr_gemmlowp_exp_on_negative_values(q), 1672461947.0, EXP_TOL);
  assert_near(tsr_gemmlowp_exp_on_negative_values(q + 1), exp_q31(q + 1), EXP_TOL);
  assert_near(tsr_gemmlowp_exp_on_negative_values(q - 1), exp_q31(q - 1), EXP_TOL);
  /* -1/2, -1 and -16: the Taylor part at -1/4 times barrel multipliers. */
  assert_near(tsr_gemmlowp_exp_on_negative_values(-(INT32_C(1) << 25)), 1302514674.0, EXP_TOL);
  assert_near(tsr_gemmlowp_exp_on_negative_values(-(INT32_C(1) << 26)), 790015084.0, EXP_TOL);
  assert_near(tsr_gemmlowp_exp_on_negative_values(-(INT32_C(1) << 30)), 242.0, 2);
  /* The value is monotonic across the boundary. */
  assert_true(tsr_gemmlowp_exp_on_negative_values(q - 1) <= tsr_gemmlowp_exp_on_negative_values(q));
}

static void exp_on_negative_values_of_the_most_negative_input_is_zero(void **state) {
  (void)state;
  /* INT32_MIN is -32.0: exp(-32) * 2^31 = 2.7e-5, which rounds to 0. */
  assert_i64(tsr_gemmlowp_exp_on_negative_values(INT32_MIN), 0);
  assert_i64(tsr_gemmlowp_exp_on_negative_values(INT32_MIN + 1), 0);
}

static void exp_on_negative_values_tracks_double_exp_on_random_inputs(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0xe4e4);
  double max_err = 0.0;
  for (long i = 0; i < 200000; i++) {
    const int32_t a = -(int32_t)(tsr_splitmix64(&rng) % ((uint64_t)1 << 31));
    const double err = fabs(tsr_gemmlowp_exp_on_negative_values(a) - exp_q31(a));
    if (err > max_err) {
      max_err = err;
    }
    if (err > EXP_TOL) {
      fail_msg("seed %" PRIu64 ": exp_on_negative_values(%" PRId32 ") = %" PRId32 ", double %.1f", g_seed, a,
               tsr_gemmlowp_exp_on_negative_values(a), exp_q31(a));
    }
  }
  printf("    exp_on_negative_values: max |error| %.2f LSB of Q0.31 over 200000 inputs\n", max_err);
}

static void reciprocal_of_one_is_int32_max_with_no_bits_over_unit(void **state) {
  (void)state;
  int nbou = -99;
  /* sum = 1.0 = 2^19 in Q12.19: clz 12, nbou 0, (2^19 << 12) - 2^31 = 0,
   * 1 / (1 + 0) = 1.0, saturated to INT32_MAX. */
  assert_i64(tsr_gemmlowp_reciprocal(INT32_C(1) << 19, &nbou), INT32_MAX);
  assert_i64(nbou, 0);
  /* Just above 1.0: 1 / (1 + 2^-19) * 2^31 = 2^31 - 4096 + 0.008. */
  assert_near(tsr_gemmlowp_reciprocal((INT32_C(1) << 19) + 1, &nbou), 2147483648.0 - 4096.0, 4);
  assert_i64(nbou, 0);
  /* 3.0: clz 11, nbou 1, normalized 1.5 -> 1/1.5 = 0.666... * 2^31 = 1431655765.3 */
  assert_near(tsr_gemmlowp_reciprocal(3 * (INT32_C(1) << 19), &nbou), 1431655765.3, 4);
  assert_i64(nbou, 1);
}

static void reciprocal_of_large_sums_normalizes_by_the_leading_bit(void **state) {
  (void)state;
  int nbou = -99;
  /* 2048.0 = 2^30: clz 1, nbou 11, normalized 1.0. */
  assert_i64(tsr_gemmlowp_reciprocal(INT32_C(1) << 30, &nbou), INT32_MAX);
  assert_i64(nbou, 11);
  /* INT32_MAX = 4096 - 2^-19: normalized 2 - 2^-30, reciprocal ~ 0.5. */
  assert_near(tsr_gemmlowp_reciprocal(INT32_MAX, &nbou), 1073741824.0, 4);
  assert_i64(nbou, 11);
  /* 1000.0: 1000 = 2^9 * 1.953125 -> 1 / 1.953125 = 0.512 * 2^31 */
  assert_near(tsr_gemmlowp_reciprocal(1000 * (INT32_C(1) << 19), &nbou), 0.512 * 2147483648.0, 4);
  assert_i64(nbou, 9);
  /* A wrapped (negative) sum has clz 0: nbou 12. Zero has clz 32 and x << 32 = 0. */
  (void)tsr_gemmlowp_reciprocal(INT32_MIN, &nbou);
  assert_i64(nbou, 12);
  (void)tsr_gemmlowp_reciprocal(0, &nbou);
  assert_i64(nbou, -20);
}

static void reciprocal_tracks_double_division_on_random_sums(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0x1234);
  double max_err = 0.0;
  for (long i = 0; i < 200000; i++) {
    const int32_t x = (INT32_C(1) << 19) + (int32_t)(tsr_splitmix64(&rng) % (uint64_t)(INT32_MAX - (INT32_C(1) << 19)));
    int nbou = 0;
    const int32_t got = tsr_gemmlowp_reciprocal(x, &nbou);
    const double want = fmin(ldexp(1.0 / ((double)x * 0x1p-19), nbou) * 0x1p31, 2147483647.0);
    const double err = fabs(got - want);
    if (err > max_err) {
      max_err = err;
    }
    if (err > 8.0) {
      fail_msg("seed %" PRIu64 ": reciprocal(%" PRId32 ") = %" PRId32 " (nbou %d), double %.1f", g_seed, x, got,
               nbou, want);
    }
  }
  printf("    GetReciprocal: max |error| %.2f LSB of Q0.31 over 200000 sums\n", max_err);
}

/* The last Newton step shifts left by 3, so results are multiples of 8 and
 * the error is a few LSB (a sweep measures at most 6.3). */
#define RSQRT_TOL 8.0

static void rsqrt_at_the_ends_of_its_range(void **state) {
  (void)state;
  /* m = 2^29 is 1/4: 1 / sqrt(1/4) = 2 = 2^30 in Q2.29. */
  assert_near(tsr_sfu_rsqrt_q29(INT32_C(1) << 29), 1073741824.0, RSQRT_TOL);
  /* m = 2^31 - 1 is 1 - 2^-31: 1 / sqrt = 1 + 2^-32, i.e. 2^29 + 0.125. */
  assert_near(tsr_sfu_rsqrt_q29(INT32_MAX), 536870912.125, RSQRT_TOL);
  /* m = 2^30 is 1/2: sqrt(2) * 2^29 = 759250124.99 */
  assert_near(tsr_sfu_rsqrt_q29(INT32_C(1) << 30), 759250124.99, RSQRT_TOL);
}

static void rsqrt_tracks_double_on_random_inputs(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0x5157);
  double max_err = 0.0;
  for (long i = 0; i < 200000; i++) {
    const int32_t m = (INT32_C(1) << 29) + (int32_t)(tsr_splitmix64(&rng) % (uint64_t)(INT32_MAX - (INT32_C(1) << 29) + 1));
    const double want = 0x1p29 / sqrt((double)m * 0x1p-31);
    const double err = fabs(tsr_sfu_rsqrt_q29(m) - want);
    if (err > max_err) {
      max_err = err;
    }
    if (err > RSQRT_TOL) {
      fail_msg("seed %" PRIu64 ": rsqrt_q29(%" PRId32 ") = %" PRId32 ", double %.2f", g_seed, m, tsr_sfu_rsqrt_q29(m),
               want);
    }
  }
  printf("    rsqrt_q29: max |error| %.2f LSB of Q2.29 over 200000 inputs\n", max_err);
}

static void rdbpot64_rounds_ties_away_from_zero(void **state) {
  (void)state;
  assert_i64(tsr_rdbpot64(5, 1), 3);   /*  2.5  ->  3 */
  assert_i64(tsr_rdbpot64(-5, 1), -3); /* -2.5  -> -3 */
  assert_i64(tsr_rdbpot64(3, 1), 2);   /*  1.5  ->  2 */
  assert_i64(tsr_rdbpot64(-3, 1), -2); /* -1.5  -> -2 */
  assert_i64(tsr_rdbpot64(6, 2), 2);   /*  1.5  ->  2 */
  assert_i64(tsr_rdbpot64(-6, 2), -2); /* -1.5  -> -2 */
  assert_i64(tsr_rdbpot64(5, 2), 1);   /*  1.25 ->  1 */
  assert_i64(tsr_rdbpot64(-7, 2), -2); /* -1.75 -> -2 */
  assert_i64(tsr_rdbpot64(INT64_C(3) << 39, 40), 2);   /*  1.5 above bit 32 */
  assert_i64(tsr_rdbpot64(-(INT64_C(3) << 39), 40), -2);
  assert_i64(tsr_rdbpot64((INT64_C(1) << 40) - 1, 40), 1); /* just below 1 */
  assert_i64(tsr_rdbpot64((INT64_C(1) << 39) - 1, 40), 0); /* just below 1/2 */
}

static void rdbpot64_exponent_0_and_63_and_clamping(void **state) {
  (void)state;
  assert_i64(tsr_rdbpot64(INT64_MIN, 0), INT64_MIN);
  assert_i64(tsr_rdbpot64(-12345, 0), -12345);
  assert_i64(tsr_rdbpot64(INT64_MIN, 63), -1);        /* exactly -1 */
  assert_i64(tsr_rdbpot64(INT64_MAX, 63), 1);         /* 1 - 2^-63 */
  assert_i64(tsr_rdbpot64(INT64_C(1) << 62, 63), 1);  /* +1/2 -> 1 */
  assert_i64(tsr_rdbpot64(-(INT64_C(1) << 62), 63), -1);
  assert_i64(tsr_rdbpot64((INT64_C(1) << 62) - 1, 63), 0);
  assert_i64(tsr_rdbpot64(7, -1), 7);                 /* clamped to 0 */
  assert_i64(tsr_rdbpot64(INT64_MIN, 64), -1);        /* clamped to 63 */
}

/* Spec: the quotient by C's truncating division, then one more step away
 * from zero when |remainder| is at least half the divisor. */
static int64_t spec_rdbpot64(int64_t x, int e) {
  if (e == 63) {
    return x == INT64_MIN ? -1 : (x >= (INT64_C(1) << 62) ? 1 : (x <= -(INT64_C(1) << 62) ? -1 : 0));
  }
  const int64_t d = INT64_C(1) << e;
  int64_t q = x / d;
  const int64_t r = x % d;
  if (r >= 0 ? r >= d - r : -r >= d + r) {
    q += x >= 0 ? 1 : -1;
  }
  return q;
}

static void rdbpot64_matches_division_on_random_inputs(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0x64);
  for (long i = 0; i < 300000; i++) {
    const int e = (int)(tsr_splitmix64(&rng) % 64u);
    uint64_t bits = tsr_splitmix64(&rng);
    if (i % 3 == 0) {
      /* k/2 * 2^e for k = 0..8, negated half the time: ties and near-ties (wrapping for large e) */
      bits = (tsr_splitmix64(&rng) % 9u) << (e > 0 ? e - 1 : 0);
      bits = tsr_splitmix64(&rng) % 2u ? bits : 0u - bits;
    }
    int64_t x;
    memcpy(&x, &bits, sizeof x);
    if (tsr_rdbpot64(x, e) != spec_rdbpot64(x, e)) {
      fail_msg("seed %" PRIu64 ": rdbpot64(%" PRId64 ", %d) = %" PRId64 ", spec %" PRId64, g_seed, x, e,
               tsr_rdbpot64(x, e), spec_rdbpot64(x, e));
    }
  }
}

/* ==== SOFTMAX ==== */

/* Parameters for beta = 1 and the given input scale (TFLite's Prepare). */
static tsr_softmax_params_t softmax_params(double in_scale) {
  tsr_softmax_params_t p;
  assert_i64(tsr_softmax_prepare(1.0, in_scale, &p), 0);
  return p;
}

static void softmax_prepare_matches_tflite_for_scale_one_sixteenth(void **state) {
  (void)state;
  /* real = 1 * 1/16 * 2^26 = 2^22 = 0.5 * 2^23: mult 2^30, left shift 23;
   * radius floor(31 * 2^26 / 2^23) = 248. */
  const tsr_softmax_params_t p = softmax_params(1.0 / 16);
  assert_i64(p.mult, P30);
  assert_i64(p.left_shift, 23);
  assert_i64(p.diff_min, -248);
  /* A real multiplier of 2^31 or more is capped at 2^31 - 1: shift 31,
   * radius floor(31 * 2^26 / 2^31) = 0. */
  const tsr_softmax_params_t big = softmax_params(64.0);
  assert_i64(big.mult, INT32_MAX);
  assert_i64(big.left_shift, 31);
  assert_i64(big.diff_min, 0);
  /* beta 2, scale 0.1f = 0.100000001490116 (TFLite's scales are float32):
   * 0.2000000029802 * 2^26 = 0.800000011920929 * 2^24 -> round(0.800000011920929 * 2^31) =
   * 1717986944 (0.1 in double would give ...918) */
  tsr_softmax_params_t q;
  assert_i64(tsr_softmax_prepare(2.0, 0.1, &q), 0);
  assert_i64(q.mult, 1717986944);
  assert_i64(q.left_shift, 24);
  assert_i64(q.diff_min, -124); /* floor(31 * 4) */
}

static void softmax_prepare_rejects_multipliers_not_above_one(void **state) {
  (void)state;
  tsr_softmax_params_t p = {7, 7, 7};
  assert_i64(tsr_softmax_prepare(1.0, 0x1p-26, &p), -1); /* real exactly 1 */
  assert_i64(tsr_softmax_prepare(1.0, 1e-9, &p), -1);
  assert_i64(tsr_softmax_prepare(0.0, 1.0, &p), -1);
  assert_i64(tsr_softmax_prepare(1.0, -1.0, &p), -1);
  assert_i64(tsr_softmax_prepare(NAN, 1.0, &p), -1);
  assert_i64(tsr_softmax_prepare(1.0, INFINITY, &p), -1);
  assert_i64(tsr_softmax_prepare(1.0, 1.0, NULL), -1);
  assert_i64(p.mult, 7);
  assert_i64(p.left_shift, 7);
  assert_i64(p.diff_min, 7);
}

static void softmax_of_a_row_of_minus_128_is_uniform(void **state) {
  (void)state;
  /* max = -128, every d = 0: each exp is 1.0, sum 5.0, each output 1/5 =
   * 51.2/256 -> 51 - 128 = -77. */
  const tsr_softmax_params_t p = softmax_params(1.0 / 16);
  const int8_t x[5] = {-128, -128, -128, -128, -128};
  int8_t y[5];
  assert_i64(tsr_golden_softmax(1, 5, x, &p, y), 0);
  const int8_t want[5] = {-77, -77, -77, -77, -77};
  check_i8(y, want, 5);
}

static void softmax_of_uniform_rows_gives_equal_outputs_of_one_over_len(void **state) {
  (void)state;
  const tsr_softmax_params_t p = softmax_params(0.05);
  /* round(256 / L) - 128: L = 2 -> 0, 3 -> 85 - 128 = -43, 7 -> 37 - 128 = -91,
   * 100 -> 3 - 128 = -125, 300 -> 1 - 128 = -127, 1000 -> 0 - 128 = -128 */
  const size_t lens[6] = {2, 3, 7, 100, 300, 1000};
  const int wants[6] = {0, -43, -91, -125, -127, -128};
  int8_t x[1000];
  int8_t y[1000];
  for (size_t c = 0; c < 6; c++) {
    memset(x, 42, lens[c]);
    assert_i64(tsr_golden_softmax(1, lens[c], x, &p, y), 0);
    for (size_t j = 0; j < lens[c]; j++) {
      if (y[j] != wants[c]) {
        fail_msg("len %zu: y[%zu] = %d, expected %d", lens[c], j, y[j], wants[c]);
      }
    }
  }
}

static void softmax_of_a_row_of_length_1_is_127(void **state) {
  (void)state;
  /* exp / sum = 1.0 = 256/256 -> 128, saturated to 127, for any value. */
  const tsr_softmax_params_t p = softmax_params(0.3);
  const int8_t x[4] = {-128, 0, 5, 127};
  int8_t y[4];
  assert_i64(tsr_golden_softmax(4, 1, x, &p, y), 0);
  const int8_t want[4] = {127, 127, 127, 127};
  check_i8(y, want, 4);
}

static void softmax_hand_checked_two_element_rows(void **state) {
  (void)state;
  const tsr_softmax_params_t p = softmax_params(1.0 / 16);
  /* Row 0: {0, -16} with scale 1/16 is {0, -1}:
   *   1 / (1 + e^-1) = 0.731059 * 256 = 187.15 -> 187 - 128 = 59
   *   e^-1 / (1 + e^-1) = 0.268941 * 256 = 68.85 -> 69 - 128 = -59
   * Row 1: {127, -128}: d = -255 is below diff_min = -248 -> -128; the max
   *   gets 1.0 -> 127.
   * Row 2: {-8, -8}: 0.5 each -> 0. */
  const int8_t x[6] = {0, -16, 127, -128, -8, -8};
  int8_t y[6];
  assert_i64(tsr_golden_softmax(3, 2, x, &p, y), 0);
  const int8_t want[6] = {59, -59, 127, -128, 0, 0};
  check_i8(y, want, 6);
}

static void softmax_diff_min_of_0_keeps_only_the_maxima(void **state) {
  (void)state;
  /* in_scale 64: left shift 31 and diff_min 0, so only d = 0 counts:
   * two maxima share 1.0 -> 128 each -> 0; the rest -128. */
  const tsr_softmax_params_t p = softmax_params(64.0);
  const int8_t x[4] = {5, 4, 5, -100};
  int8_t y[4];
  assert_i64(tsr_golden_softmax(1, 4, x, &p, y), 0);
  const int8_t want[4] = {0, -128, 0, -128};
  check_i8(y, want, 4);
}

static void softmax_row_of_512_equal_values_uses_the_exact_64_bit_shift(void **state) {
  (void)state;
  /* Sum 512.0 = 2^28 in Q12.19: nbou 9, the final shift is 9 + 23 = 32.
   * srdhm(INT32_MAX, INT32_MAX) = 2^31 - 2, / 2^32 = 0.49999 -> 0 -> -128.
   * (A 32-bit RoundingDivideByPOT clamped to 31 would give 1 -> -127.) */
  const tsr_softmax_params_t p = softmax_params(0.1);
  int8_t x[600];
  int8_t y[600];
  memset(x, 3, sizeof x);
  assert_i64(tsr_golden_softmax(1, 512, x, &p, y), 0);
  for (size_t j = 0; j < 512; j++) {
    assert_i64(y[j], -128);
  }
  assert_i64(tsr_golden_softmax(1, 600, x, &p, y), 0);
  assert_i64(y[599], -128);
  /* 511 equal values: 256/511 = 0.501 -> 1 -> -127 (shift 31). */
  assert_i64(tsr_golden_softmax(1, 511, x, &p, y), 0);
  assert_i64(y[0], -127);
}

static void softmax_in_place_matches_out_of_place(void **state) {
  (void)state;
  const tsr_softmax_params_t p = softmax_params(0.07);
  int8_t x[24];
  for (int i = 0; i < 24; i++) {
    x[i] = (int8_t)(i * 37 - 200);
  }
  int8_t y[24];
  assert_i64(tsr_golden_softmax(3, 8, x, &p, y), 0);
  assert_i64(tsr_golden_softmax(3, 8, x, &p, x), 0);
  check_i8(x, y, 24);
}

static void softmax_rejects_bad_shapes_and_left_shifts_and_writes_nothing(void **state) {
  (void)state;
  tsr_softmax_params_t p = softmax_params(0.1);
  const int8_t x[2] = {1, 2};
  int8_t y[2] = {11, 11};
  assert_i64(tsr_softmax_check(&p), 0);
  p.left_shift = 32;
  assert_i64(tsr_softmax_check(&p), -1);
  assert_i64(tsr_golden_softmax(1, 2, x, &p, y), -1);
  p.left_shift = -1;
  assert_i64(tsr_softmax_check(&p), -1);
  p.left_shift = 0;
  assert_i64(tsr_softmax_check(&p), 0);
  p.left_shift = 31;
  assert_i64(tsr_softmax_check(&p), 0);
  assert_i64(tsr_softmax_check(NULL), -1);
  assert_i64(tsr_golden_softmax(0, 2, x, &p, y), -1);
  assert_i64(tsr_golden_softmax(1, 0, x, &p, y), -1);
  assert_i64(tsr_golden_softmax(1, (size_t)TSR_SFU_LEN_MAX + 1, x, &p, y), -1);
  assert_i64(tsr_golden_softmax(1, 2, NULL, &p, y), -1);
  assert_i64(tsr_golden_softmax(1, 2, x, NULL, y), -1);
  assert_i64(tsr_golden_softmax(1, 2, x, &p, NULL), -1);
  assert_i64(y[0], 11);
  assert_i64(y[1], 11);
}

/* An independent softmax in double precision, quantized to scale 1/256, zero point -128. */
static void softmax_double(size_t len, const int8_t *x, double in_scale, int8_t *y) {
  int max = -128;
  for (size_t j = 0; j < len; j++) {
    if (x[j] > max) {
      max = x[j];
    }
  }
  double sum = 0.0;
  for (size_t j = 0; j < len; j++) {
    sum += exp(in_scale * (x[j] - max));
  }
  for (size_t j = 0; j < len; j++) {
    y[j] = clamp_i8(round(exp(in_scale * (x[j] - max)) / sum * 256.0) - 128.0);
  }
}

static void softmax_is_within_1_lsb_of_double_softmax_on_random_rows(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0x50f7);
  long hist[3] = {0, 0, 0};
  long inner = 0; /* outputs strictly between -128 and 127 */
  int max_err = 0;
  int8_t x[300];
  int8_t y[300];
  int8_t ref[300];
  for (int row = 0; row < 4000; row++) {
    const size_t len = (size_t)rng_int(&rng, 1, 300);
    const double in_scale = rng_log2_uniform(&rng, -8.0, 1.0);
    const int32_t center = rng_int(&rng, -128, 127);
    const int32_t spread = rng_int(&rng, 0, 128);
    for (size_t j = 0; j < len; j++) {
      x[j] = clamp_i8(center + rng_int(&rng, -spread, spread));
    }
    tsr_softmax_params_t p;
    assert_i64(tsr_softmax_prepare(1.0, in_scale, &p), 0);
    assert_i64(tsr_golden_softmax(1, len, x, &p, y), 0);
    softmax_double(len, x, in_scale, ref);
    for (size_t j = 0; j < len; j++) {
      const int err = abs(y[j] - ref[j]);
      if (err > max_err) {
        max_err = err;
      }
      hist[err > 2 ? 2 : err]++;
      inner += y[j] > -128 && y[j] < 127;
      if (err > 1) {
        fail_msg("seed %" PRIu64 " (replay: TSR_SEED=%" PRIu64 "): row %d len %zu scale %g: y[%zu] = %d, double %d",
                 g_seed, g_seed, row, len, in_scale, j, y[j], ref[j]);
      }
    }
  }
  printf("    softmax vs double: max |diff| %d LSB; %ld exact (%ld of them strictly inside -128..127), %ld off by 1\n",
         max_err, hist[0], inner, hist[1]);
}

/* ==== LAYERNORM ==== */

static void layernorm_hand_checked_row_of_plus_and_minus_one(void **state) {
  (void)state;
  /* x = {1, -1}: S1 = 0, S2 = 2, D = 2*2 - 0 = 4 (E = 0), b = 3, e = 2,
   * m = 4 * 2^27 = 2^29 -> rsqrt = 2 (2^30 in Q2.29).
   * n = {2, -2}; Z = 2 * 2^30 / 2^19 = 4096 = 1.0 * 2^12 (z = +-1).
   * gamma 64 with scale 1/64 is 1.0: a = 64 * 4096 = 262144 at scale 2^-18.
   * Output scale 1/32: multiplier 2^-18 / 2^-5 = 2^-13 (mult 2^30, shift -12):
   * 262144 * 2^-13 = 32 -> y = {32, -32} (+1.0 and -1.0). */
  tsr_layernorm_params_t p;
  assert_i64(tsr_layernorm_prepare(2, 0.5, 0.0, 0, 1.0 / 64, 1.0 / 32, 0, &p), 0);
  assert_i64(p.out_mult, P30);
  assert_i64(p.out_shift, -12);
  assert_i64(p.gamma_offset, 0);
  assert_i64(p.eps_lo, 0);
  assert_i64(p.eps_hi, 0);
  const int8_t x[2] = {1, -1};
  const int8_t gamma[2] = {64, 64};
  const int32_t beta[2] = {0, 0};
  int8_t y[2];
  assert_i64(tsr_golden_layernorm(1, 2, x, gamma, beta, &p, y), 0);
  assert_i64(y[0], 32);
  assert_i64(y[1], -32);
  /* beta 0.5 (131072 at scale 2^-18) adds 16; gamma zero point 32 halves the scale. */
  const int32_t beta_half[2] = {131072, 131072};
  assert_i64(tsr_golden_layernorm(1, 2, x, gamma, beta_half, &p, y), 0);
  assert_i64(y[0], 48);
  assert_i64(y[1], -16);
  assert_i64(tsr_layernorm_prepare(2, 0.5, 0.0, 32, 1.0 / 64, 1.0 / 32, 0, &p), 0);
  assert_i64(tsr_golden_layernorm(1, 2, x, gamma, beta, &p, y), 0);
  assert_i64(y[0], 16);
  assert_i64(y[1], -16);
}

static void layernorm_of_constant_rows_and_length_1_gives_beta(void **state) {
  (void)state;
  /* Variance 0: every n is 0, Z = 0, a = beta. With beta 0 the output is the
   * zero point; with beta = 3 * 2^13 (out multiplier 2^-13) it is zp + 3. */
  tsr_layernorm_params_t p;
  assert_i64(tsr_layernorm_prepare(5, 0.1, 1e-5, 0, 1.0 / 64, 1.0 / 32, -7, &p), 0);
  const int8_t x[5] = {-128, -128, -128, -128, -128};
  const int8_t gamma[5] = {100, -100, 1, 2, 3};
  const int32_t beta0[5] = {0, 0, 0, 0, 0};
  const int32_t beta3[5] = {3 << 13, 3 << 13, 3 << 13, 3 << 13, 3 << 13};
  int8_t y[5];
  assert_i64(tsr_golden_layernorm(1, 5, x, gamma, beta0, &p, y), 0);
  const int8_t want0[5] = {-7, -7, -7, -7, -7};
  check_i8(y, want0, 5);
  assert_i64(tsr_golden_layernorm(1, 5, x, gamma, beta3, &p, y), 0);
  const int8_t want3[5] = {-4, -4, -4, -4, -4};
  check_i8(y, want3, 5);
  /* Rows of length 1, E = 0 too (D = max(0, 1) = 1). */
  assert_i64(tsr_layernorm_prepare(1, 0.1, 0.0, 0, 1.0 / 64, 1.0 / 32, -7, &p), 0);
  const int8_t x1[3] = {127, 0, -128};
  assert_i64(tsr_golden_layernorm(3, 1, x1, gamma, beta3, &p, y), 0);
  const int8_t want1[3] = {-4, -4, -4};
  check_i8(y, want1, 3);
}

static void layernorm_prepare_puts_epsilon_in_the_units_of_the_variance(void **state) {
  (void)state;
  tsr_layernorm_params_t p;
  /* eps 1, in_scale 0.5, L = 4: E = 1 / 0.25 * 16 * 2^8 = 16384. */
  assert_i64(tsr_layernorm_prepare(4, 0.5, 1.0, -3, 0.01, 0.02, 5, &p), 0);
  assert_i64(p.eps_lo, 16384);
  assert_i64(p.eps_hi, 0);
  assert_i64(p.gamma_offset, 3);
  assert_i64(p.out_offset, 5);
  assert_i64(p.act_min, -128);
  assert_i64(p.act_max, 127);
  /* eps 1, in_scale 2^-10, L = 65535: E = 2^20 * 65535^2 * 2^8, above 2^32. */
  assert_i64(tsr_layernorm_prepare(65535, 0x1p-10, 1.0, 0, 0.01, 0.02, 0, &p), 0);
  const uint64_t e = (uint64_t)1048576 * 65535u * 65535u * 256u;
  assert_i64(p.eps_hi, (int64_t)(e >> 32));
  assert_i64((uint32_t)p.eps_lo, (uint32_t)e);
  /* A low word with bit 31 set is stored as the same bit pattern. */
  assert_i64(tsr_layernorm_prepare(1, 1.0, 3221225472.0 / 256.0, 0, 0.01, 0.02, 0, &p), 0);
  assert_i64(p.eps_lo, INT32_MIN + 1073741824);
  assert_i64(p.eps_hi, 0);
  /* Rejections leave *p alone. */
  tsr_layernorm_params_t keep = p;
  assert_i64(tsr_layernorm_prepare(0, 0.5, 1.0, 0, 0.01, 0.02, 0, &p), -1);
  assert_i64(tsr_layernorm_prepare(65536, 0.5, 1.0, 0, 0.01, 0.02, 0, &p), -1);
  assert_i64(tsr_layernorm_prepare(4, 0.0, 1.0, 0, 0.01, 0.02, 0, &p), -1);
  assert_i64(tsr_layernorm_prepare(4, 0.5, -1.0, 0, 0.01, 0.02, 0, &p), -1);
  assert_i64(tsr_layernorm_prepare(4, 0.5, NAN, 0, 0.01, 0.02, 0, &p), -1);
  assert_i64(tsr_layernorm_prepare(4, 0x1p-600, 1.0, 0, 0.01, 0.02, 0, &p), -1); /* E beyond int64 */
  assert_i64(tsr_layernorm_prepare(4, 0.5, 1.0, 128, 0.01, 0.02, 0, &p), -1);
  assert_i64(tsr_layernorm_prepare(4, 0.5, 1.0, 0, 0.01, 0.02, -129, &p), -1);
  assert_i64(tsr_layernorm_prepare(4, 0.5, 1.0, 0, 1e12, 1e-12, 0, &p), -1); /* multiplier >= 2^30 */
  assert_i64(tsr_layernorm_prepare(4, 0.5, 1.0, 0, 0.01, 0.02, 0, NULL), -1);
  assert_memory_equal(&p, &keep, sizeof p);
}

static void layernorm_quantize_beta_rounds_to_the_accumulator_scale(void **state) {
  (void)state;
  /* gamma_scale 1/64: the beta scale is 2^-18. */
  const float beta[6] = {1.0f, -0.5f, 1.5f * 0x1p-18f, -1.5f * 0x1p-18f, 0.0f, 0.4f * 0x1p-18f};
  int32_t q[6];
  assert_i64(tsr_layernorm_quantize_beta(6, beta, 1.0 / 64, q), 0);
  assert_i64(q[0], 262144);
  assert_i64(q[1], -131072);
  assert_i64(q[2], 2);  /* 1.5 -> 2, away from zero */
  assert_i64(q[3], -2); /* -1.5 -> -2 */
  assert_i64(q[4], 0);
  assert_i64(q[5], 0);
  const float huge[1] = {1e4f}; /* 1e4 * 2^18 > 2^31 */
  assert_i64(tsr_layernorm_quantize_beta(1, huge, 1.0 / 64, q), -1);
  const float nan[1] = {NAN};
  assert_i64(tsr_layernorm_quantize_beta(1, nan, 1.0 / 64, q), -1);
  assert_i64(tsr_layernorm_quantize_beta(1, beta, 0.0, q), -1);
  assert_i64(tsr_layernorm_quantize_beta(1, NULL, 1.0, q), -1);
}

static void layernorm_rejects_bad_parameters_and_writes_nothing(void **state) {
  (void)state;
  tsr_layernorm_params_t good;
  assert_i64(tsr_layernorm_prepare(2, 0.5, 0.0, 0, 1.0 / 64, 1.0 / 32, 0, &good), 0);
  assert_i64(tsr_layernorm_check(&good), 0);
  const int8_t x[2] = {1, -1};
  const int8_t gamma[2] = {64, 64};
  const int32_t beta[2] = {0, 0};
  int8_t y[2] = {11, 11};
  tsr_layernorm_params_t bad = good;
  bad.out_shift = 31;
  assert_i64(tsr_layernorm_check(&bad), -1);
  assert_i64(tsr_golden_layernorm(1, 2, x, gamma, beta, &bad, y), -1);
  bad.out_shift = -32;
  assert_i64(tsr_layernorm_check(&bad), -1);
  bad = good;
  bad.act_min = -129;
  assert_i64(tsr_layernorm_check(&bad), -1);
  bad = good;
  bad.act_max = 128;
  assert_i64(tsr_layernorm_check(&bad), -1);
  bad = good;
  bad.act_min = 5;
  bad.act_max = 4;
  assert_i64(tsr_layernorm_check(&bad), -1);
  bad.act_max = 5;
  assert_i64(tsr_layernorm_check(&bad), 0);
  assert_i64(tsr_layernorm_check(NULL), -1);
  assert_i64(tsr_golden_layernorm(0, 2, x, gamma, beta, &good, y), -1);
  assert_i64(tsr_golden_layernorm(1, 0, x, gamma, beta, &good, y), -1);
  assert_i64(tsr_golden_layernorm(1, 2, NULL, gamma, beta, &good, y), -1);
  assert_i64(tsr_golden_layernorm(1, 2, x, NULL, beta, &good, y), -1);
  assert_i64(tsr_golden_layernorm(1, 2, x, gamma, NULL, &good, y), -1);
  assert_i64(tsr_golden_layernorm(1, 2, x, gamma, beta, &good, NULL), -1);
  assert_i64(y[0], 11);
  assert_i64(y[1], 11);
}

/* Float layer norm of one row in double: dequantize, normalize, scale and
 * shift with the real gamma and beta, quantize to out_scale/out_zp.
 * x_j - mean is formed as in_scale * (L q_j - sum q) / L with q = x - in_zp
 * in exact integers, so a constant row gives exactly 0 (not the rounding
 * noise of a double mean divided by its own square root when eps is 0);
 * 0 / sqrt(0) is taken as 0. */
static void layernorm_double(size_t len, const int8_t *x, double in_scale, int32_t in_zp, double eps,
                             const int8_t *gamma, int32_t gamma_zp, double gamma_scale, const float *beta,
                             double out_scale, int32_t out_zp, int8_t *y) {
  const double L = (double)len;
  int64_t sum_q = 0;
  for (size_t j = 0; j < len; j++) {
    sum_q += x[j] - in_zp;
  }
  double var = 0.0;
  for (size_t j = 0; j < len; j++) {
    const double centered = in_scale * (double)((int64_t)len * (x[j] - in_zp) - sum_q) / L;
    var += centered * centered;
  }
  var /= L;
  for (size_t j = 0; j < len; j++) {
    const double centered = in_scale * (double)((int64_t)len * (x[j] - in_zp) - sum_q) / L;
    const double z = centered == 0.0 ? 0.0 : centered / sqrt(var + eps);
    const double v = z * gamma_scale * (gamma[j] - gamma_zp) + (double)beta[j];
    y[j] = clamp_i8(round(v / out_scale) + out_zp);
  }
}

/* Error statistics of the random layer-norm rows. */
typedef struct ln_stats {
  long hist[4];     /* |golden - float with E as encoded|: 0, 1, 2, more */
  int max_encoded;  /* max of the above */
  int max_true;     /* max |golden - float with the true eps| where E's rounding is negligible */
  int max_rounded;  /* the same where it is not (1/64 <= E_true < 64): also asserted <= 2 since E has 8 fraction bits */
  long n_rounded;   /* outputs in that regime */
} ln_stats_t;

/*
 * One random layer-norm row, compared with the float layer norm twice:
 *  - with the epsilon the parameter block encodes, E * in_scale^2 / L^2:
 *    this measures the integer datapath, and must stay within 2 LSB;
 *  - with the true eps: E = round(eps / in_scale^2 * L^2) is an integer, so
 *    when E_true is of order 1 its rounding moves L^2 (var + eps) by up to
 *    half a unit, which is a large relative change for a nearly constant
 *    row. Within 2 LSB is asserted where that cannot matter (E_true < 1/64
 *    or >= 64); the rest is measured and printed.
 */
static void layernorm_random_row(uint64_t *rng, size_t len, ln_stats_t *st, int8_t *x, int8_t *gamma, float *beta,
                                 int32_t *beta_q, int8_t *y, int8_t *ref, int8_t *ref_true) {
  const double in_scale = rng_log2_uniform(rng, -8.0, 0.0);
  const int32_t in_zp = rng_int(rng, -20, 20);
  /* A row with a random mean and spread (sometimes nearly constant). */
  const double center = rng_int(rng, -100, 100);
  const double spread = rng_unit(rng) < 0.1 ? rng_unit(rng) : rng_log2_uniform(rng, -1.0, 6.0);
  for (size_t j = 0; j < len; j++) {
    x[j] = clamp_i8(round(center + spread * rng_normal(rng)));
  }
  const double eps_choices[4] = {1e-5, 1e-3, 1e-12, 0.0};
  const double eps = eps_choices[rng_int(rng, 0, 3)];
  const int32_t gamma_zp = rng_int(rng, -10, 10);
  const double gamma_scale = rng_log2_uniform(rng, -9.0, -4.0);
  double max_out = 1e-3;
  for (size_t j = 0; j < len; j++) {
    gamma[j] = (int8_t)rng_int(rng, -128, 127);
    beta[j] = (float)(rng_normal(rng) * gamma_scale * 32.0);
    const double bound = sqrt((double)len) * gamma_scale * fabs((double)(gamma[j] - gamma_zp)) + fabs(beta[j]);
    if (bound > max_out) {
      max_out = bound;
    }
  }
  /* An output scale that spans the likely range (z rarely exceeds 3),
   * sometimes tighter so that the clamp is exercised too. */
  const double typical = fmin(max_out, 3.0 * gamma_scale * 138.0 + 0.1 * max_out);
  const double out_scale = typical / 127.0 * rng_log2_uniform(rng, -1.0, 1.0);
  const int32_t out_zp = rng_int(rng, -20, 20);

  tsr_layernorm_params_t p;
  assert_i64(tsr_layernorm_prepare(len, in_scale, eps, gamma_zp, gamma_scale, out_scale, out_zp, &p), 0);
  assert_i64(tsr_layernorm_quantize_beta(len, beta, gamma_scale, beta_q), 0);
  assert_i64(tsr_golden_layernorm(1, len, x, gamma, beta_q, &p, y), 0);

  const double L = (double)len;
  const double e_true = eps / (in_scale * in_scale) * (L * L);
  const double e_encoded = (double)(((uint64_t)(uint32_t)p.eps_hi << 32) | (uint32_t)p.eps_lo);
  const double eps_encoded = e_encoded / 256.0 * (in_scale * in_scale) / (L * L);
  const int negligible = e_true < 1.0 / 64 || e_true >= 64.0;
  layernorm_double(len, x, in_scale, in_zp, eps_encoded, gamma, gamma_zp, gamma_scale, beta, out_scale, out_zp, ref);
  layernorm_double(len, x, in_scale, in_zp, eps, gamma, gamma_zp, gamma_scale, beta, out_scale, out_zp, ref_true);
  for (size_t j = 0; j < len; j++) {
    const int err = abs(y[j] - ref[j]);
    const int err_true = abs(y[j] - ref_true[j]);
    st->hist[err > 3 ? 3 : err]++;
    if (err > st->max_encoded) {
      st->max_encoded = err;
    }
    if (negligible && err_true > st->max_true) {
      st->max_true = err_true;
    }
    if (!negligible) {
      st->n_rounded++;
      if (err_true > st->max_rounded) {
        st->max_rounded = err_true;
      }
    }
    if (err > 2 || err_true > 2) {
      fail_msg("seed %" PRIu64 " (replay: TSR_SEED=%" PRIu64 "): len %zu in_scale %g eps %g (E %.0f) gamma_scale %g "
               "out_scale %g: y[%zu] = %d, float %d (with the true eps %d)",
               g_seed, g_seed, len, in_scale, eps, e_encoded, gamma_scale, out_scale, j, y[j], ref[j], ref_true[j]);
    }
  }
}

static void layernorm_is_within_2_lsb_of_float_layernorm_on_random_rows(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0x1a7e);
  ln_stats_t st;
  memset(&st, 0, sizeof st);
  enum { MAXLEN = 300 };
  int8_t x[MAXLEN], gamma[MAXLEN], y[MAXLEN], ref[MAXLEN], ref_true[MAXLEN];
  float beta[MAXLEN];
  int32_t beta_q[MAXLEN];
  for (int row = 0; row < 6000; row++) {
    const size_t len = (size_t)rng_int(&rng, 1, MAXLEN);
    layernorm_random_row(&rng, len, &st, x, gamma, beta, beta_q, y, ref, ref_true);
  }
  printf("    layernorm vs float (eps as encoded): max |diff| %d LSB over %ld outputs; histogram 0: %ld, 1: %ld, "
         "2: %ld\n",
         st.max_encoded, st.hist[0] + st.hist[1] + st.hist[2] + st.hist[3], st.hist[0], st.hist[1], st.hist[2]);
  printf("    layernorm vs float (true eps): max |diff| %d LSB where E's rounding is negligible; %d LSB over the %ld "
         "outputs with 1/64 <= E_true < 64\n",
         st.max_true, st.max_rounded, st.n_rounded);
}

static void layernorm_of_the_longest_row_stays_within_2_lsb(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0x10ff);
  const size_t len = TSR_SFU_LEN_MAX;
  int8_t *x = malloc(len), *gamma = malloc(len), *y = malloc(len), *ref = malloc(len), *ref_true = malloc(len);
  float *beta = malloc(len * sizeof *beta);
  int32_t *beta_q = malloc(len * sizeof *beta_q);
  assert_true(x && gamma && y && ref && ref_true && beta && beta_q);
  ln_stats_t st;
  memset(&st, 0, sizeof st);
  for (int rep = 0; rep < 3; rep++) {
    layernorm_random_row(&rng, len, &st, x, gamma, beta, beta_q, y, ref, ref_true);
  }
  /* The extreme sums: alternating -128 and 127 (S2 = 1073692671 of 2^31). */
  for (size_t j = 0; j < len; j++) {
    x[j] = (int8_t)(j % 2 ? 127 : -128);
    gamma[j] = 64;
    beta[j] = 0.0f;
  }
  tsr_layernorm_params_t p;
  assert_i64(tsr_layernorm_prepare(len, 0.05, 1e-5, 0, 1.0 / 64, 1.0 / 100, 0, &p), 0);
  assert_i64(tsr_layernorm_quantize_beta(len, beta, 1.0 / 64, beta_q), 0);
  assert_i64(tsr_golden_layernorm(1, len, x, gamma, beta_q, &p, y), 0);
  layernorm_double(len, x, 0.05, 0, 1e-5, gamma, 0, 1.0 / 64, beta, 1.0 / 100, 0, ref);
  for (size_t j = 0; j < len; j++) {
    if (abs(y[j] - ref[j]) > 2) {
      fail_msg("y[%zu] = %d, float %d", j, y[j], ref[j]);
    }
  }
  free(x);
  free(gamma);
  free(y);
  free(ref);
  free(ref_true);
  free(beta);
  free(beta_q);
}

/* ==== ADD ==== */

static void add_hand_checked_sums_round_ties_away_from_zero(void **state) {
  (void)state;
  /* Inputs at scale 0.5, output at scale 1, zero points 0: twice_max = 1,
   * input multipliers 0.5 (2^30, shift 0), output 2^-20 (2^30, shift -19).
   *   3 + 5   -> 1.5 + 2.5 = 4
   *   1 + 0   -> 0.5 -> 1 (tie away from zero)
   *  -1 + 0   -> -0.5 -> -1
   *   127+127 -> 127 (clamped; 127 exactly)
   *  -128-128 -> -128 */
  tsr_add_params_t p;
  assert_i64(tsr_add_prepare(0.5, 0, 0.5, 0, 1.0, 0, &p), 0);
  assert_i64(p.in1_mult, P30);
  assert_i64(p.in1_shift, 0);
  assert_i64(p.out_mult, P30);
  assert_i64(p.out_shift, -19);
  const int8_t a[5] = {3, 1, -1, 127, -128};
  const int8_t b[5] = {5, 0, 0, 127, -128};
  int8_t y[5];
  assert_i64(tsr_golden_add(5, a, b, &p, y), 0);
  const int8_t want[5] = {4, 1, -1, 127, -128};
  check_i8(y, want, 5);
}

static void add_applies_zero_points_and_unequal_scales(void **state) {
  (void)state;
  /* A: scale 0.1 zp 10; B: scale 0.4 zp -20; out: scale 0.5 zp 3.
   *   a = 30 -> 2.0;  b = -10 -> 4.0;  sum 6.0 / 0.5 = 12 + 3 = 15
   *   a = 10 -> 0.0;  b = -20 -> 0.0;  3
   *   a = -128 -> -13.8;  b = 127 -> 58.8;  45.0 / 0.5 = 90 + 3 = 93 */
  tsr_add_params_t p;
  assert_i64(tsr_add_prepare(0.1, 10, 0.4, -20, 0.5, 3, &p), 0);
  assert_i64(p.in1_offset, -10);
  assert_i64(p.in2_offset, 20);
  assert_i64(p.out_offset, 3);
  const int8_t a[3] = {30, 10, -128};
  const int8_t b[3] = {-10, -20, 127};
  int8_t y[3];
  assert_i64(tsr_golden_add(3, a, b, &p, y), 0);
  const int8_t want[3] = {15, 3, 93};
  check_i8(y, want, 3);
  /* In place on either input. */
  int8_t a2[3] = {30, 10, -128};
  assert_i64(tsr_golden_add(3, a2, b, &p, a2), 0);
  check_i8(a2, want, 3);
}

static void add_is_within_1_lsb_of_double_add_on_random_inputs(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0xadd);
  long hist[3] = {0, 0, 0};
  enum { N = 64 };
  int8_t a[N], b[N], y[N];
  for (int c = 0; c < 5000; c++) {
    const double s1 = rng_log2_uniform(&rng, -10.0, 2.0);
    const double s2 = s1 * rng_log2_uniform(&rng, -4.0, 4.0);
    const double s_out = fmax(s1, s2) * rng_log2_uniform(&rng, -2.0, 3.0);
    const int32_t zp1 = rng_int(&rng, -128, 127), zp2 = rng_int(&rng, -128, 127), zpo = rng_int(&rng, -128, 127);
    tsr_add_params_t p;
    assert_i64(tsr_add_prepare(s1, zp1, s2, zp2, s_out, zpo, &p), 0);
    for (int i = 0; i < N; i++) {
      a[i] = (int8_t)rng_int(&rng, -128, 127);
      b[i] = (int8_t)rng_int(&rng, -128, 127);
    }
    assert_i64(tsr_golden_add(N, a, b, &p, y), 0);
    for (int i = 0; i < N; i++) {
      const double real = s1 * (a[i] - zp1) + s2 * (b[i] - zp2);
      const int8_t ref = clamp_i8(round(real / s_out) + zpo);
      const int err = abs(y[i] - ref);
      hist[err > 2 ? 2 : err]++;
      if (err > 1) {
        fail_msg("seed %" PRIu64 ": s1 %g zp1 %d s2 %g zp2 %d out %g zp %d: %d + %d -> %d, double %d", g_seed, s1,
                 (int)zp1, s2, (int)zp2, s_out, (int)zpo, a[i], b[i], y[i], ref);
      }
    }
  }
  printf("    add vs double: %ld exact, %ld off by 1\n", hist[0], hist[1]);
}

static void add_rejects_bad_shifts_and_activation_ranges(void **state) {
  (void)state;
  tsr_add_params_t good;
  assert_i64(tsr_add_prepare(0.5, 0, 0.5, 0, 1.0, 0, &good), 0);
  assert_i64(tsr_add_check(&good), 0);
  const int8_t a[1] = {1}, b[1] = {2};
  int8_t y[1] = {11};
  tsr_add_params_t bad = good;
  bad.in1_shift = 1; /* input shifts are -31..0 */
  assert_i64(tsr_add_check(&bad), -1);
  assert_i64(tsr_golden_add(1, a, b, &bad, y), -1);
  bad = good;
  bad.in2_shift = -32;
  assert_i64(tsr_add_check(&bad), -1);
  bad.in2_shift = -31;
  assert_i64(tsr_add_check(&bad), 0);
  bad = good;
  bad.out_shift = 31;
  assert_i64(tsr_add_check(&bad), -1);
  bad.out_shift = 30;
  assert_i64(tsr_add_check(&bad), 0);
  bad.out_shift = -32;
  assert_i64(tsr_add_check(&bad), -1);
  bad = good;
  bad.act_min = -129;
  assert_i64(tsr_add_check(&bad), -1);
  bad = good;
  bad.act_max = 128;
  assert_i64(tsr_add_check(&bad), -1);
  bad = good;
  bad.act_min = 1;
  bad.act_max = 0;
  assert_i64(tsr_add_check(&bad), -1);
  assert_i64(tsr_add_check(NULL), -1);
  assert_i64(tsr_golden_add(0, a, b, &good, y), -1);
  assert_i64(tsr_golden_add(1, NULL, b, &good, y), -1);
  assert_i64(tsr_golden_add(1, a, NULL, &good, y), -1);
  assert_i64(tsr_golden_add(1, a, b, &good, NULL), -1);
  assert_i64(y[0], 11);
  /* Prepare: bad scales and zero points, and an output multiplier of 2^30. */
  tsr_add_params_t keep = good;
  assert_i64(tsr_add_prepare(0.0, 0, 0.5, 0, 1.0, 0, &good), -1);
  assert_i64(tsr_add_prepare(0.5, 0, NAN, 0, 1.0, 0, &good), -1);
  assert_i64(tsr_add_prepare(0.5, 0, 0.5, 0, -1.0, 0, &good), -1);
  assert_i64(tsr_add_prepare(0.5, 128, 0.5, 0, 1.0, 0, &good), -1);
  assert_i64(tsr_add_prepare(0.5, 0, 0.5, -129, 1.0, 0, &good), -1);
  assert_i64(tsr_add_prepare(0.5, 0, 0.5, 0, 1.0, 128, &good), -1);
  assert_i64(tsr_add_prepare(1.0, 0, 1.0, 0, 0x1p-51, 0, &good), -1); /* 2 / (2^20 * 2^-51) = 2^32 */
  assert_memory_equal(&good, &keep, sizeof good);
}

/* ==== the fused LUT / LEAKY output stage (tsr_golden.c) ==== */

static void output_lut_replaces_the_clamped_value(void **state) {
  (void)state;
  int8_t lut[256];
  for (int i = 0; i < 256; i++) {
    lut[i] = (int8_t)(i < 128 ? -i / 2 : 100); /* non-negative y -> -y/2, negative y -> 100 */
  }
  /* Identity requant (0.5 * 2^1), act range -10..20:
   *   acc 10  -> 10 -> lut[10] = -5
   *   acc 50  -> clamp 20 -> lut[20] = -10 (the table sees the clamped value)
   *   acc -50 -> clamp -10 -> lut[246] = 100 */
  const tsr_gemm_params_t p = {
      .requant = 1, .mult_scalar = P30, .shift_scalar = 1, .act_min = -10, .act_max = 20, .lut = lut};
  assert_i64(tsr_golden_check_params(&p, 1), 0);
  assert_i64(tsr_golden_output(10, 0, &p), -5);
  assert_i64(tsr_golden_output(50, 0, &p), -10);
  assert_i64(tsr_golden_output(-50, 0, &p), 100);
}

static void output_leaky_uses_the_negative_multiplier_for_negative_x(void **state) {
  (void)state;
  /* Positive side 1.0 (0.5, shift 1); negative side per column:
   * column 0 alpha 0.25 (0.5, shift -1), column 1 alpha 0.5 (0.5, shift 0).
   *   col 0: acc 100 -> 100; acc -100 -> -25
   *   col 1: acc -100 -> -50
   *   col 0 with bias -60 and acc 50: x = -10 -> srdhm -5, rdbpot(-5, 1) = -2.5 -> -3
   *   col 0 with acc 70, bias -60: x = 10 -> positive side -> 10 */
  const int32_t mult_neg[2] = {P30, P30};
  const int32_t shift_neg[2] = {-1, 0};
  const tsr_gemm_params_t p = {.requant = 1,
                               .mult_scalar = P30,
                               .shift_scalar = 1,
                               .act_min = -128,
                               .act_max = 127,
                               .mult_neg = mult_neg,
                               .shift_neg = shift_neg};
  assert_i64(tsr_golden_check_params(&p, 2), 0);
  assert_i64(tsr_golden_output(100, 0, &p), 100);
  assert_i64(tsr_golden_output(-100, 0, &p), -25);
  assert_i64(tsr_golden_output(-100, 1, &p), -50);
  const int32_t bias[2] = {-60, -60};
  tsr_gemm_params_t pb = p;
  pb.bias = bias;
  assert_i64(tsr_golden_output(50, 0, &pb), -3);
  assert_i64(tsr_golden_output(70, 0, &pb), 10);
}

static void output_leaky_then_lut_in_a_gemm(void **state) {
  (void)state;
  /* A = [-40 40] (2x1), B = [1 1] (1x2): accumulators -40, -40 / 40, 40.
   * Negative side alpha 0.25 in column 0 and 0.5 in column 1, then a table
   * adding 1: {-10 + 1, -20 + 1, 40 + 1, 40 + 1}. */
  int8_t lut[256];
  for (int i = 0; i < 256; i++) {
    const int v = i < 128 ? i : i - 256;
    lut[i] = (int8_t)(v == 127 ? 127 : v + 1);
  }
  const int8_t a[2] = {-40, 40};
  const int8_t b[2] = {1, 1};
  const int32_t mult_neg[2] = {P30, P30};
  const int32_t shift_neg[2] = {-1, 0};
  const tsr_gemm_params_t p = {.requant = 1,
                               .mult_scalar = P30,
                               .shift_scalar = 1,
                               .act_min = -128,
                               .act_max = 127,
                               .lut = lut,
                               .mult_neg = mult_neg,
                               .shift_neg = shift_neg};
  int8_t out[4];
  assert_i64(tsr_golden_gemm(2, 1, 2, a, 1, b, 2, &p, NULL, out), 0);
  const int8_t want[4] = {-9, -19, 41, 41};
  check_i8(out, want, 4);
}

static void check_params_rejects_lut_or_leaky_without_requant_and_bad_negative_shifts(void **state) {
  (void)state;
  int8_t lut[256] = {0};
  const int32_t mult_neg[2] = {P30, P30};
  const int32_t shift_ok[2] = {-31, 30};
  const int32_t shift_hi[2] = {0, 31};
  const int32_t shift_lo[2] = {-32, 0};
  const tsr_gemm_params_t good = {.requant = 1, .mult_scalar = P30, .act_min = -128, .act_max = 127};
  tsr_gemm_params_t p = good;
  p.mult_neg = mult_neg;
  p.shift_neg = shift_ok;
  assert_i64(tsr_golden_check_params(&p, 2), 0);
  p.shift_neg = shift_hi;
  assert_i64(tsr_golden_check_params(&p, 2), -1);
  assert_i64(tsr_golden_check_params(&p, 1), 0); /* only n columns are checked */
  p.shift_neg = shift_lo;
  assert_i64(tsr_golden_check_params(&p, 2), -1);
  p.shift_neg = NULL; /* one without the other */
  assert_i64(tsr_golden_check_params(&p, 2), -1);
  p = good;
  p.shift_neg = shift_ok;
  assert_i64(tsr_golden_check_params(&p, 2), -1);
  /* Without REQUANT: LUT or LEAKY is ERR_PARAM. */
  const tsr_gemm_params_t raw_lut = {.lut = lut};
  assert_i64(tsr_golden_check_params(&raw_lut, 2), -1);
  const tsr_gemm_params_t raw_leaky = {.mult_neg = mult_neg, .shift_neg = shift_ok};
  assert_i64(tsr_golden_check_params(&raw_leaky, 2), -1);
  int32_t out32[1];
  const int8_t one[1] = {1};
  assert_i64(tsr_golden_gemm(1, 1, 1, one, 1, one, 1, &raw_lut, out32, NULL), -1);
}

int main(int argc, char **argv) {
  g_seed = tsr_choose_seed("test_sfu_golden", argc, argv);
  printf("test_sfu_golden: seed %" PRIu64 " (replay with TSR_SEED=%" PRIu64 " or --seed %" PRIu64 ")\n", g_seed,
         g_seed, g_seed);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lut_logistic_matches_hand_computed_entries),
      cmocka_unit_test(lut_tanh_matches_hand_computed_entries),
      cmocka_unit_test(lut_gelu_and_gelu_tanh_match_hand_computed_entries),
      cmocka_unit_test(lut_silu_matches_hand_computed_entries),
      cmocka_unit_test(lut_exp_matches_hand_computed_entries_and_saturates_overflow),
      cmocka_unit_test(lut_hardswish_matches_hand_computed_entries),
      cmocka_unit_test(lut_rounds_ties_away_from_zero_then_adds_zero_points),
      cmocka_unit_test(lut_rejects_bad_scales_zero_points_and_functions_leaving_the_table),
      cmocka_unit_test(map_indexes_the_table_by_the_byte_of_each_input),
      cmocka_unit_test(reduce_gives_max_sum_and_sum_of_squares_per_row),
      cmocka_unit_test(reduce_of_the_longest_row_does_not_overflow),
      cmocka_unit_test(exp_on_negative_values_at_zero_is_int32_max),
      cmocka_unit_test(exp_on_negative_values_around_minus_one_quarter),
      cmocka_unit_test(exp_on_negative_values_of_the_most_negative_input_is_zero),
      cmocka_unit_test(exp_on_negative_values_tracks_double_exp_on_random_inputs),
      cmocka_unit_test(reciprocal_of_one_is_int32_max_with_no_bits_over_unit),
      cmocka_unit_test(reciprocal_of_large_sums_normalizes_by_the_leading_bit),
      cmocka_unit_test(reciprocal_tracks_double_division_on_random_sums),
      cmocka_unit_test(rsqrt_at_the_ends_of_its_range),
      cmocka_unit_test(rsqrt_tracks_double_on_random_inputs),
      cmocka_unit_test(rdbpot64_rounds_ties_away_from_zero),
      cmocka_unit_test(rdbpot64_exponent_0_and_63_and_clamping),
      cmocka_unit_test(rdbpot64_matches_division_on_random_inputs),
      cmocka_unit_test(softmax_prepare_matches_tflite_for_scale_one_sixteenth),
      cmocka_unit_test(softmax_prepare_rejects_multipliers_not_above_one),
      cmocka_unit_test(softmax_of_a_row_of_minus_128_is_uniform),
      cmocka_unit_test(softmax_of_uniform_rows_gives_equal_outputs_of_one_over_len),
      cmocka_unit_test(softmax_of_a_row_of_length_1_is_127),
      cmocka_unit_test(softmax_hand_checked_two_element_rows),
      cmocka_unit_test(softmax_diff_min_of_0_keeps_only_the_maxima),
      cmocka_unit_test(softmax_row_of_512_equal_values_uses_the_exact_64_bit_shift),
      cmocka_unit_test(softmax_in_place_matches_out_of_place),
      cmocka_unit_test(softmax_rejects_bad_shapes_and_left_shifts_and_writes_nothing),
      cmocka_unit_test(softmax_is_within_1_lsb_of_double_softmax_on_random_rows),
      cmocka_unit_test(layernorm_hand_checked_row_of_plus_and_minus_one),
      cmocka_unit_test(layernorm_of_constant_rows_and_length_1_gives_beta),
      cmocka_unit_test(layernorm_prepare_puts_epsilon_in_the_units_of_the_variance),
      cmocka_unit_test(layernorm_quantize_beta_rounds_to_the_accumulator_scale),
      cmocka_unit_test(layernorm_rejects_bad_parameters_and_writes_nothing),
      cmocka_unit_test(layernorm_is_within_2_lsb_of_float_layernorm_on_random_rows),
      cmocka_unit_test(layernorm_of_the_longest_row_stays_within_2_lsb),
      cmocka_unit_test(add_hand_checked_sums_round_ties_away_from_zero),
      cmocka_unit_test(add_applies_zero_points_and_unequal_scales),
      cmocka_unit_test(add_is_within_1_lsb_of_double_add_on_random_inputs),
      cmocka_unit_test(add_rejects_bad_shifts_and_activation_ranges),
      cmocka_unit_test(output_lut_replaces_the_clamped_value),
      cmocka_unit_test(output_leaky_uses_the_negative_multiplier_for_negative_x),
      cmocka_unit_test(output_leaky_then_lut_in_a_gemm),
      cmocka_unit_test(check_params_rejects_lut_or_leaky_without_requant_and_bad_negative_shifts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
