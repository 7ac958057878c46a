/* test_golden_params.c: cmocka suite for the golden model's own SFU tables and parameters (sw/golden/tsr_golden_params.c). */
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

#include "tsr_golden_params.h"
#include "../common/tsr_prng.h"
#include "../common/tsr_seed.h"
#include "tsr_sfu.h"
#include "../common/tsr_cmocka_ext.h"

/*
 * The golden model derives its tables and parameter blocks apart from the
 * chip path's preparation (sw/lib/tsr_sfu_prep.c), so that a mistake in
 * either shows up as a mismatch in the system tests and in `--check`. This
 * suite holds the two derivations to each other on many random scales (they
 * must agree bit for bit, or every chip run would fail), holds the golden
 * tables to the real functions evaluated in double (so that the two cannot
 * agree on the same mistake unnoticed), and checks hand-worked parameters.
 *
 *   test_golden_params [--seed N]      (or TSR_SEED=N) replays the random cases
 */

#define P30 (INT32_C(1) << 30)

static uint64_t g_seed;

/* Uniform integer in lo..hi. */
static int32_t rng_int(uint64_t *state, int32_t lo, int32_t hi) {
  return lo + (int32_t)(tsr_splitmix64(state) % (uint64_t)((int64_t)hi - lo + 1));
}

/* 2^u with u uniform in [lo, hi): a scale spread over several octaves. */
static double rng_log2_uniform(uint64_t *state, double lo, double hi) {
  const double unit = (double)(tsr_splitmix64(state) >> 11) * 0x1p-53;
  return exp2(lo + (hi - lo) * unit);
}

static const char *const k_fn_names[] = {"logistic", "tanh", "gelu", "gelu_tanh", "silu", "exp", "hardswish"};
#define FN_COUNT 7

/* Random table arguments: scales as float32 values, over the octaves of real models and beyond. */
typedef struct lut_args {
  float in_scale, out_scale;
  int32_t in_zp, out_zp;
} lut_args_t;

static lut_args_t random_lut_args(uint64_t *rng) {
  lut_args_t a;
  a.in_scale = (float)rng_log2_uniform(rng, -12, 3);
  a.out_scale = (float)rng_log2_uniform(rng, -12, 2);
  a.in_zp = rng_int(rng, -128, 127);
  a.out_zp = rng_int(rng, -128, 127);
  return a;
}

/* ---- tables: golden == prep ---- */

static void lut_of_every_function_equals_prep_on_random_scales(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0x1a7);
  for (int fn = 0; fn < FN_COUNT; fn++) {
    for (int i = 0; i < 3000; i++) {
      const lut_args_t a = random_lut_args(&rng);
      int8_t chip[256], gold[256];
      const int rc_chip = tsr_lut_populate((tsr_lut_fn_t)fn, a.in_scale, a.in_zp, a.out_scale, a.out_zp, chip);
      const int rc_gold = tsr_golden_lut((tsr_lut_fn_t)fn, a.in_scale, a.in_zp, a.out_scale, a.out_zp, gold);
      if (rc_chip != 0 || rc_gold != 0) {
        fail_msg("seed %" PRIu64 ": %s in %.9g/%d out %.9g/%d: prep %d, golden %d", g_seed, k_fn_names[fn],
                 (double)a.in_scale, a.in_zp, (double)a.out_scale, a.out_zp, rc_chip, rc_gold);
      }
      for (int k = 0; k < 256; k++) {
        if (chip[k] != gold[k]) {
          fail_msg("seed %" PRIu64 " (replay: --seed %" PRIu64 "): %s in %.9g/%d out %.9g/%d: entry %d: prep %d,"
                   " golden %d",
                   g_seed, g_seed, k_fn_names[fn], (double)a.in_scale, a.in_zp, (double)a.out_scale, a.out_zp, k,
                   chip[k], gold[k]);
        }
      }
    }
  }
}

static void lut_rejects_what_prep_rejects_and_leaves_the_table(void **state) {
  (void)state;
  int8_t lut[256];
  memset(lut, 55, sizeof lut);
  const double bad_scales[] = {0.0, -1.0, NAN, INFINITY, 1e-300 /* 0 as a float */, 1e39 /* inf as a float */};
  for (size_t i = 0; i < sizeof bad_scales / sizeof bad_scales[0]; i++) {
    assert_i64(tsr_golden_lut(TSR_LUT_TANH, bad_scales[i], 0, 1.0, 0, lut), -1);
    assert_i64(tsr_golden_lut(TSR_LUT_TANH, 1.0, 0, bad_scales[i], 0, lut), -1);
  }
  assert_i64(tsr_golden_lut(TSR_LUT_TANH, 1.0, 0, 1e-45, 0, lut), -1); /* 1 / out_scale overflows */
  assert_i64(tsr_golden_lut(TSR_LUT_TANH, 1.0, 128, 1.0, 0, lut), -1);
  assert_i64(tsr_golden_lut(TSR_LUT_TANH, 1.0, -129, 1.0, 0, lut), -1);
  assert_i64(tsr_golden_lut(TSR_LUT_TANH, 1.0, 0, 1.0, 128, lut), -1);
  assert_i64(tsr_golden_lut(TSR_LUT_TANH, 1.0, 0, 1.0, -129, lut), -1);
  assert_i64(tsr_golden_lut((tsr_lut_fn_t)99, 1.0, 0, 1.0, 0, lut), -1);
  assert_i64(tsr_golden_lut(TSR_LUT_TANH, 1.0, 0, 1.0, 0, NULL), -1);
  for (int i = 0; i < 256; i++) {
    assert_i64(lut[i], 55);
  }
  /* The smallest float scale is a valid input scale, as for prep. */
  assert_i64(tsr_golden_lut(TSR_LUT_TANH, 1e-45, 0, 1.0, 0, lut), 0);
}

/* ---- tables: golden == the real function in double, away from rounding ties ---- */

static double real_fn(int fn, double x) {
  switch (fn) {
    case TSR_LUT_LOGISTIC:
      return 1.0 / (1.0 + exp(-x));
    case TSR_LUT_TANH:
      return tanh(x);
    case TSR_LUT_GELU:
      return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    case TSR_LUT_GELU_TANH:
      return 0.5 * x * (1.0 + tanh(sqrt(2.0 / (4.0 * atan(1.0))) * (x + 0.044715 * x * x * x)));
    case TSR_LUT_SILU:
      return x / (1.0 + exp(-x));
    case TSR_LUT_EXP:
      return exp(x);
    default: /* hard-swish */
      return x * fmin(fmax(x + 3.0, 0.0), 6.0) / 6.0;
  }
}

static int32_t clamp_i8(double v) {
  return v < -128.0 ? -128 : v > 127.0 ? 127 : (int32_t)v;
}

/*
 * Entry val must be clamp(round(y) + out_zp) for y = f(in_scale (val - in_zp)) /
 * out_scale, evaluated in double. The float32 evaluation of the table may
 * differ from y by a few float roundings, amplified where f cancels (1 +
 * erf(x) for negative x) or where its argument's error grows (exp of a large
 * x); an entry whose y lies so close to a rounding tie that this error could
 * cross it is not judged. The bound is generous (hundreds of float
 * epsilons); a wrong constant, function, rounding direction or zero point
 * moves entries by far more.
 */
static void lut_of_every_function_equals_the_real_function_away_from_ties(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0xd0b1e);
  unsigned long judged = 0;
  unsigned long total = 0;
  for (int fn = 0; fn < FN_COUNT; fn++) {
    for (int i = 0; i < 1000; i++) {
      lut_args_t a = random_lut_args(&rng);
      a.in_scale = (float)rng_log2_uniform(&rng, -10, 0); /* |x| < 256: exp stays finite in double */
      int8_t gold[256];
      assert_i64(tsr_golden_lut((tsr_lut_fn_t)fn, a.in_scale, a.in_zp, a.out_scale, a.out_zp, gold), 0);
      for (int32_t val = -128; val <= 127; val++) {
        const double x = (double)a.in_scale * (double)(val - a.in_zp); /* exact */
        const double y = real_fn(fn, x) / (double)a.out_scale;
        const double tol = 256.0 * FLT_EPSILON * (fabs(y) * (1.0 + fabs(x)) + fabs(x) / (double)a.out_scale + 1.0);
        const int32_t lo = clamp_i8(round(y - tol) + a.out_zp);
        const int32_t hi = clamp_i8(round(y + tol) + a.out_zp);
        total++;
        if (lo != hi) {
          continue; /* too close to a tie (or to the clamp's edge) to judge */
        }
        judged++;
        if (gold[val & 0xff] != lo) {
          fail_msg("seed %" PRIu64 " (replay: --seed %" PRIu64 "): %s in %.9g/%d out %.9g/%d: entry of %d is %d,"
                   " the real function gives %.6f -> %d",
                   g_seed, g_seed, k_fn_names[fn], (double)a.in_scale, a.in_zp, (double)a.out_scale, a.out_zp,
                   val, gold[val & 0xff], y, lo);
        }
      }
    }
  }
  /* The check must judge almost every entry, or it proves little. */
  if (judged < total - total / 20) {
    fail_msg("only %lu of %lu entries were far enough from a tie to judge", judged, total);
  }
}

static void lut_gelu_hand_computed_entries(void **state) {
  (void)state;
  /* in scale 0.1, zero point 0; out scale 0.05, zero point -3:
   *   val  10: x =  1: gelu = 0.841345 -> 16.827 -> 17 - 3 =  14
   *   val -10: x = -1: gelu = -0.158655 -> -3.173 -> -3 - 3 = -6
   *   val   0: 0 -> -3;  val 127: x = 12.7 -> 254 -> 127 (clamped)
   *   val -128: x = -12.8: gelu ~ -1e-36 -> -0 -> -3 */
  int8_t lut[256];
  assert_i64(tsr_golden_lut(TSR_LUT_GELU, 0.1, 0, 0.05, -3, lut), 0);
  assert_i64(lut[10], 14);
  assert_i64(lut[(uint8_t)-10], -6);
  assert_i64(lut[0], -3);
  assert_i64(lut[127], 127);
  assert_i64(lut[128], -3);
}

static void lut_rounds_ties_away_from_zero(void **state) {
  (void)state;
  /* hard-swish of x >= 3 is x: with in scale 1 and out scale 2 the entry of
   * val is round(val / 2): 5 -> 2.5 -> 3, 7 -> 3.5 -> 4. For x <= -3 it is 0,
   * and between -3 and 0 negative: val -1 -> -1 * 2 / 6 / 2 = -1/6 -> -0 -> 0. */
  int8_t lut[256];
  assert_i64(tsr_golden_lut(TSR_LUT_HARDSWISH, 1.0, 0, 2.0, 0, lut), 0);
  assert_i64(lut[5], 3);
  assert_i64(lut[7], 4);
  assert_i64(lut[(uint8_t)-1], 0);
  assert_i64(lut[(uint8_t)-100], 0);
  /* exp(0) / 0.4 = 2.5 -> 3 (1 / 0.4f is 2.5f exactly). */
  assert_i64(tsr_golden_lut(TSR_LUT_EXP, 1.0, 0, 0.4, 0, lut), 0);
  assert_i64(lut[0], 3);
  /* A negative tie: hard-swish of x = -1.5 is -1.5 * 1.5 / 6 = -0.375; with
   * out scale 0.25 that is -1.5 -> -2. */
  assert_i64(tsr_golden_lut(TSR_LUT_HARDSWISH, 0.5, 0, 0.25, 0, lut), 0);
  assert_i64(lut[(uint8_t)-3], -2);
}

/* ---- SOFTMAX ---- */

static void softmax_params_hand_computed(void **state) {
  (void)state;
  tsr_softmax_params_t p;
  /* 1/16 * 2^26 = 2^22 = 0.5 * 2^23: mult 2^30, left shift 23, radius floor(31 * 2^3) = 248. */
  assert_i64(tsr_golden_softmax_params(1.0, 1.0 / 16, &p), 0);
  assert_i64(p.mult, P30);
  assert_i64(p.left_shift, 23);
  assert_i64(p.diff_min, -248);
  /* beta 2, scale 0.1 as float32 (0.100000001490116...): 0.2000000029802 * 2^26 =
   * 0.800000011920929 * 2^24: round(0.800000011920929 * 2^31) = 1717986944 (in double,
   * 0.1 would give 1717986918.4 -> ...918). */
  assert_i64(tsr_golden_softmax_params(2.0, 0.1, &p), 0);
  assert_i64(p.mult, 1717986944);
  assert_i64(p.left_shift, 24);
  assert_i64(p.diff_min, -124);
  /* Capped at 2^31 - 1: shift 31, radius 0. */
  assert_i64(tsr_golden_softmax_params(1.0, 64.0, &p), 0);
  assert_i64(p.mult, INT32_MAX);
  assert_i64(p.left_shift, 31);
  assert_i64(p.diff_min, 0);
  /* Just above 1: shift 1. */
  assert_i64(tsr_golden_softmax_params(1.0, 0x1.000002p-26, &p), 0);
  assert_i64(p.left_shift, 1);
  assert_i64(p.diff_min, -(31 << 25));
  /* Not above 1, and bad inputs: -1, *p untouched. */
  tsr_softmax_params_t q = {7, 7, 7};
  assert_i64(tsr_golden_softmax_params(1.0, 0x1p-26, &q), -1);
  assert_i64(tsr_golden_softmax_params(0.0, 1.0, &q), -1);
  assert_i64(tsr_golden_softmax_params(1.0, NAN, &q), -1);
  assert_i64(tsr_golden_softmax_params(INFINITY, 1.0, &q), -1);
  assert_i64(tsr_golden_softmax_params(1.0, 1.0, NULL), -1);
  assert_i64(q.mult, 7);
  assert_i64(q.left_shift, 7);
  assert_i64(q.diff_min, 7);
}

static void softmax_params_equal_prep_on_random_scales(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0x50f7);
  for (int i = 0; i < 100000; i++) {
    const double beta = rng_log2_uniform(&rng, -4, 4);
    const double scale = rng_log2_uniform(&rng, -30, 8); /* below 1 and above the cap too */
    tsr_softmax_params_t chip = {1, 2, 3}, gold = {1, 2, 3};
    const int rc_chip = tsr_softmax_prepare(beta, scale, &chip);
    const int rc_gold = tsr_golden_softmax_params(beta, scale, &gold);
    if (rc_chip != rc_gold || memcmp(&chip, &gold, sizeof chip) != 0) {
      fail_msg("seed %" PRIu64 ": beta %.17g scale %.17g: prep %d {%d, %d, %d}, golden %d {%d, %d, %d}", g_seed, beta,
               scale, rc_chip, chip.mult, chip.left_shift, chip.diff_min, rc_gold, gold.mult, gold.left_shift,
               gold.diff_min);
    }
  }
}

/* ---- LAYERNORM ---- */

static void layernorm_params_hand_computed(void **state) {
  (void)state;
  tsr_layernorm_params_t p;
  /* len 4, in scale 1/2, eps 1/4: E = 1/4 / 1/4 * 16 * 256 = 4096. Gamma
   * scale 2^-4, out scale 2^-8: 2^-16 / 2^-8 = 2^-8 = 0.5 * 2^-7. */
  assert_i64(tsr_golden_layernorm_params(4, 0.5, 0.25, 3, 0x1p-4, 0x1p-8, -5, &p), 0);
  assert_i64(p.gamma_offset, -3);
  assert_i64(p.eps_lo, 4096);
  assert_i64(p.eps_hi, 0);
  assert_i64(p.out_mult, P30);
  assert_i64(p.out_shift, -7);
  assert_i64(p.out_offset, -5);
  assert_i64(p.act_min, -128);
  assert_i64(p.act_max, 127);
  /* E = 2^32 + 2^31 + 3 with len 1, in scale 1: eps = E / 256. The low word
   * is 2^31 + 3 as a bit pattern: -2^31 + 3. */
  assert_i64(tsr_golden_layernorm_params(1, 1.0, 6442450947.0 / 256.0, 0, 1.0, 1.0, 0, &p), 0);
  assert_i64(p.eps_hi, 1);
  assert_i64(p.eps_lo, INT32_MIN + 3);
  /* eps 0 gives E = 0; a tie rounds away from zero: 0.5 / 256 -> E = 0.5 -> 1. */
  assert_i64(tsr_golden_layernorm_params(1, 1.0, 0.0, 0, 1.0, 1.0, 0, &p), 0);
  assert_i64(p.eps_lo, 0);
  assert_i64(tsr_golden_layernorm_params(1, 1.0, 0.5 / 256.0, 0, 1.0, 1.0, 0, &p), 0);
  assert_i64(p.eps_lo, 1);
  /* Rejected, *p untouched: E of 2^63 or more, output multiplier 2^30, bad len, zero points, eps. */
  tsr_layernorm_params_t q;
  memset(&q, 0x5a, sizeof q);
  const tsr_layernorm_params_t before = q;
  assert_i64(tsr_golden_layernorm_params(65535, 0x1p-20, 1.0, 0, 1.0, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_layernorm_params(4, 1.0, 0.0, 0, 0x1p42, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_layernorm_params(0, 1.0, 0.0, 0, 1.0, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_layernorm_params(TSR_SFU_LEN_MAX + 1, 1.0, 0.0, 0, 1.0, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_layernorm_params(4, 1.0, 0.0, 128, 1.0, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_layernorm_params(4, 1.0, 0.0, 0, 1.0, 1.0, -129, &q), -1);
  assert_i64(tsr_golden_layernorm_params(4, 1.0, -1e-9, 0, 1.0, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_layernorm_params(4, 1.0, NAN, 0, 1.0, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_layernorm_params(4, 0.0, 0.0, 0, 1.0, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_layernorm_params(4, 1.0, 0.0, 0, 1.0, 1.0, 0, NULL), -1);
  assert_i64(memcmp(&q, &before, sizeof q), 0);
}

static void layernorm_params_and_beta_equal_prep_on_random_scales(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0x1a7e);
  static const double k_eps[] = {0.0, 1e-12, 1e-6, 1e-5, 1e-3, 1.0, 1e6};
  for (int i = 0; i < 50000; i++) {
    const size_t len = (size_t)(rng_int(&rng, 0, 3) == 0 ? rng_int(&rng, 1, 4)
                                                               : rng_int(&rng, 1, TSR_SFU_LEN_MAX));
    const double in_scale = rng_log2_uniform(&rng, -14, 2);
    const double eps = rng_int(&rng, 0, 1) ? k_eps[rng_int(&rng, 0, 6)] : rng_log2_uniform(&rng, -40, 0);
    const int32_t gamma_zp = rng_int(&rng, -128, 127);
    const double gamma_scale = rng_log2_uniform(&rng, -12, 4);
    const double out_scale = rng_log2_uniform(&rng, -12, 2);
    const int32_t out_zp = rng_int(&rng, -128, 127);
    tsr_layernorm_params_t chip, gold;
    memset(&chip, 0, sizeof chip);
    memset(&gold, 0, sizeof gold);
    const int rc_chip = tsr_layernorm_prepare(len, in_scale, eps, gamma_zp, gamma_scale, out_scale, out_zp, &chip);
    const int rc_gold =
        tsr_golden_layernorm_params(len, in_scale, eps, gamma_zp, gamma_scale, out_scale, out_zp, &gold);
    if (rc_chip != rc_gold || memcmp(&chip, &gold, sizeof chip) != 0) {
      fail_msg("seed %" PRIu64 ": len %zu in %.17g eps %.17g gamma %d/%.17g out %.17g/%d: prep %d, golden %d"
               " (E %d:%d vs %d:%d, out %d<<%d vs %d<<%d)",
               g_seed, len, in_scale, eps, gamma_zp, gamma_scale, out_scale, out_zp, rc_chip, rc_gold, chip.eps_hi,
               chip.eps_lo, gold.eps_hi, gold.eps_lo, chip.out_mult, chip.out_shift, gold.out_mult, gold.out_shift);
    }
    float beta_f[8];
    int32_t beta_chip[8], beta_gold[8];
    for (int j = 0; j < 8; j++) {
      const double mag = rng_log2_uniform(&rng, -20, 6);
      beta_f[j] = (float)(rng_int(&rng, 0, 1) ? mag : -mag);
    }
    const int rb_chip = tsr_layernorm_quantize_beta(8, beta_f, gamma_scale, beta_chip);
    const int rb_gold = tsr_golden_layernorm_beta(8, beta_f, gamma_scale, beta_gold);
    if (rb_chip != rb_gold || (rb_chip == 0 && memcmp(beta_chip, beta_gold, sizeof beta_chip) != 0)) {
      fail_msg("seed %" PRIu64 ": beta at gamma scale %.17g: prep %d, golden %d", g_seed, gamma_scale, rb_chip,
               rb_gold);
    }
  }
}

static void layernorm_beta_hand_computed(void **state) {
  (void)state;
  /* gamma scale 2^-4: the accumulator unit is 2^-16. 1.5 -> 98304; ties of
   * +-2.5 units go away from zero; 2^15 is one past INT32_MAX units. */
  const float beta_f[5] = {1.5f, 0x1.4p-15f, -0x1.4p-15f, 0.0f, -1.0f};
  int32_t q[5];
  assert_i64(tsr_golden_layernorm_beta(5, beta_f, 0x1p-4, q), 0);
  assert_i64(q[0], 98304);
  assert_i64(q[1], 3);
  assert_i64(q[2], -3);
  assert_i64(q[3], 0);
  assert_i64(q[4], -65536);
  const float too_big[1] = {0x1p15f};
  const float nan[1] = {NAN};
  assert_i64(tsr_golden_layernorm_beta(1, too_big, 0x1p-4, q), -1);
  assert_i64(tsr_golden_layernorm_beta(1, nan, 0x1p-4, q), -1);
  assert_i64(tsr_golden_layernorm_beta(1, beta_f, 0.0, q), -1);
  assert_i64(tsr_golden_layernorm_beta(1, NULL, 1.0, q), -1);
}

/* ---- ADD ---- */

static void leaky_params_hand_computed(void **state) {
  (void)state;
  int32_t mn[3];
  int32_t sn[3];
  /* Per tensor, m = 2^30 (0.5), s = 0: alpha 0.5 gives 0.25 = 0.5 * 2^-1 -> (2^30, -1). */
  assert_i64(tsr_golden_leaky_params(3, 0.5, NULL, NULL, P30, 0, mn, sn), 0);
  assert_i64(mn[2], P30);
  assert_i64(sn[2], -1);
  /* Per channel: alpha 0.1 of 0.5 * 2^-1 = 0.025 = 0.8 * 2^-5 -> round(0.8 * 2^31) = 1717986918;
   * 0.1 of INT32_MAX * 2^-31 * 2^3 = 0.79999999996 -> 1717986918, shift 0; alpha 0.1 of 0 -> (0, 0). */
  const int32_t m[3] = {P30, INT32_MAX, 0};
  const int32_t s[3] = {-1, 3, 5};
  assert_i64(tsr_golden_leaky_params(3, 0.1, m, s, 0, 0, mn, sn), 0);
  assert_i64(mn[0], 1717986918);
  assert_i64(sn[0], -5);
  assert_i64(mn[1], 1717986918);
  assert_i64(sn[1], 0);
  assert_i64(mn[2], 0);
  assert_i64(sn[2], 0);
  /* alpha 0: every negative value goes to the zero point. */
  assert_i64(tsr_golden_leaky_params(1, 0.0, NULL, NULL, P30, 0, mn, sn), 0);
  assert_i64(mn[0], 0);
  /* Refused: alpha outside 0..1 or NaN, a negative multiplier, one vector without the other. */
  assert_i64(tsr_golden_leaky_params(1, 1.5, NULL, NULL, P30, 0, mn, sn), -1);
  assert_i64(tsr_golden_leaky_params(1, NAN, NULL, NULL, P30, 0, mn, sn), -1);
  assert_i64(tsr_golden_leaky_params(1, 0.5, NULL, NULL, -5, 0, mn, sn), -1);
  assert_i64(tsr_golden_leaky_params(1, 0.5, m, NULL, 0, 0, mn, sn), -1);
}

static void add_params_hand_computed(void **state) {
  (void)state;
  tsr_add_params_t p;
  /* s1 = s2 = 1/2, s_out 1: t = 1, inputs 1/2 (2^30, shift 0), output
   * 1 / 2^20 = 0.5 * 2^-19. */
  assert_i64(tsr_golden_add_params(0.5, 3, 0.5, -4, 1.0, 5, &p), 0);
  assert_i64(p.in1_offset, -3);
  assert_i64(p.in1_mult, P30);
  assert_i64(p.in1_shift, 0);
  assert_i64(p.in2_offset, 4);
  assert_i64(p.in2_mult, P30);
  assert_i64(p.in2_shift, 0);
  assert_i64(p.out_mult, P30);
  assert_i64(p.out_shift, -19);
  assert_i64(p.out_offset, 5);
  assert_i64(p.act_min, -128);
  assert_i64(p.act_max, 127);
  /* s1 = 0.3, s2 = 0.1, each as float32 (0.300000011920929, 0.100000001490116): t = 2 s1;
   * s2 / t = 0.166666662527455 = 0.666666650109822 * 2^-2 -> round(1431655729.78) = 1431655730,
   * shift -2 (in double, 1/6 exactly would give round(2^32 / 3) = 1431655765). */
  assert_i64(tsr_golden_add_params(0.3, 0, 0.1, 0, 1.0, 0, &p), 0);
  assert_i64(p.in1_mult, P30);
  assert_i64(p.in1_shift, 0);
  assert_i64(p.in2_mult, 1431655730);
  assert_i64(p.in2_shift, -2);
  /* An output multiplier of 2^30 is not representable; bad scales and zero points. */
  tsr_add_params_t q;
  memset(&q, 0x5a, sizeof q);
  const tsr_add_params_t before = q;
  assert_i64(tsr_golden_add_params(0x1p29, 0, 0x1p29, 0, 0x1p-21, 0, &q), -1);
  assert_i64(tsr_golden_add_params(0.0, 0, 1.0, 0, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_add_params(1.0, 0, 1.0, 0, INFINITY, 0, &q), -1);
  assert_i64(tsr_golden_add_params(1.0, 128, 1.0, 0, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_add_params(1.0, 0, 1.0, 0, 1.0, -129, &q), -1);
  assert_i64(tsr_golden_add_params(1.0, 0, 1.0, 0, 1.0, 0, NULL), -1);
  assert_i64(memcmp(&q, &before, sizeof q), 0);
}

static void add_params_equal_prep_on_random_scales(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0xadd);
  for (int i = 0; i < 100000; i++) {
    const double s1 = rng_log2_uniform(&rng, -20, 4);
    const double s2 = rng_int(&rng, 0, 7) == 0 ? s1 : rng_log2_uniform(&rng, -20, 4);
    const double so = rng_log2_uniform(&rng, -30, 4);
    const int32_t z1 = rng_int(&rng, -128, 127), z2 = rng_int(&rng, -128, 127),
                  zo = rng_int(&rng, -128, 127);
    tsr_add_params_t chip, gold;
    memset(&chip, 0, sizeof chip);
    memset(&gold, 0, sizeof gold);
    const int rc_chip = tsr_add_prepare(s1, z1, s2, z2, so, zo, &chip);
    const int rc_gold = tsr_golden_add_params(s1, z1, s2, z2, so, zo, &gold);
    if (rc_chip != rc_gold || memcmp(&chip, &gold, sizeof chip) != 0) {
      fail_msg("seed %" PRIu64 ": s1 %.17g s2 %.17g out %.17g: prep %d (%d<<%d %d<<%d %d<<%d), golden %d"
               " (%d<<%d %d<<%d %d<<%d)",
               g_seed, s1, s2, so, rc_chip, chip.in1_mult, chip.in1_shift, chip.in2_mult, chip.in2_shift,
               chip.out_mult, chip.out_shift, rc_gold, gold.in1_mult, gold.in1_shift, gold.in2_mult, gold.in2_shift,
               gold.out_mult, gold.out_shift);
    }
  }
}

static void mul_params_hand_computed(void **state) {
  (void)state;
  /* 0.5 * 0.25 / 0.5 = 0.25: 2^30 with shift -1. */
  tsr_mul_params_t p;
  assert_i64(tsr_golden_mul_params(0.5, 3, 0.25, -7, 0.5, 11, &p), 0);
  assert_i64(p.in1_offset, -3);
  assert_i64(p.in2_offset, 7);
  assert_i64(p.out_mult, 1 << 30);
  assert_i64(p.out_shift, -1);
  assert_i64(p.out_offset, 11);
  assert_i64(p.act_min, -128);
  assert_i64(p.act_max, 127);
  /* 3 * 1 / 1 = 3 = 0.75 * 2^2: a left shift. */
  assert_i64(tsr_golden_mul_params(3.0, 0, 1.0, 0, 1.0, 0, &p), 0);
  assert_i64(p.out_mult, 3 << 29);
  assert_i64(p.out_shift, 2);
  tsr_mul_params_t q;
  memset(&q, 0x5a, sizeof q);
  const tsr_mul_params_t before = q;
  assert_i64(tsr_golden_mul_params(0x1p40, 0, 1.0, 0, 1.0, 0, &q), -1); /* shift 41 */
  assert_i64(tsr_golden_mul_params(0.0, 0, 1.0, 0, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_mul_params(1.0, 0, NAN, 0, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_mul_params(1.0, 0, 1.0, 128, 1.0, 0, &q), -1);
  assert_i64(tsr_golden_mul_params(1.0, 0, 1.0, 0, 1.0, -129, &q), -1);
  assert_i64(tsr_golden_mul_params(1.0, 0, 1.0, 0, 1.0, 0, NULL), -1);
  assert_i64(memcmp(&q, &before, sizeof q), 0);
}

static void mul_params_equal_prep_on_random_scales(void **state) {
  (void)state;
  uint64_t rng = g_seed ^ UINT64_C(0x3a1);
  for (int i = 0; i < 100000; i++) {
    const double s1 = rng_log2_uniform(&rng, -20, 4);
    const double s2 = rng_log2_uniform(&rng, -20, 4);
    const double so = rng_log2_uniform(&rng, -40, 4);
    const int32_t z1 = rng_int(&rng, -128, 127), z2 = rng_int(&rng, -128, 127),
                  zo = rng_int(&rng, -128, 127);
    tsr_mul_params_t chip, gold;
    memset(&chip, 0, sizeof chip);
    memset(&gold, 0, sizeof gold);
    const int rc_chip = tsr_mul_prepare((float)s1, z1, (float)s2, z2, (float)so, zo, &chip);
    const int rc_gold = tsr_golden_mul_params(s1, z1, s2, z2, so, zo, &gold);
    if (rc_chip != rc_gold || memcmp(&chip, &gold, sizeof chip) != 0) {
      fail_msg("seed %" PRIu64 ": s1 %.17g s2 %.17g out %.17g: prep %d (%d<<%d), golden %d (%d<<%d)",
               g_seed, s1, s2, so, rc_chip, chip.out_mult, chip.out_shift, rc_gold, gold.out_mult,
               gold.out_shift);
    }
  }
}

int main(int argc, char **argv) {
  g_seed = tsr_choose_seed("test_golden_params", argc, argv);
  printf("test_golden_params: seed %" PRIu64 " (replay with TSR_SEED=%" PRIu64 " or --seed %" PRIu64 ")\n", g_seed,
         g_seed, g_seed);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lut_of_every_function_equals_prep_on_random_scales),
      cmocka_unit_test(lut_rejects_what_prep_rejects_and_leaves_the_table),
      cmocka_unit_test(lut_of_every_function_equals_the_real_function_away_from_ties),
      cmocka_unit_test(lut_gelu_hand_computed_entries),
      cmocka_unit_test(lut_rounds_ties_away_from_zero),
      cmocka_unit_test(softmax_params_hand_computed),
      cmocka_unit_test(softmax_params_equal_prep_on_random_scales),
      cmocka_unit_test(layernorm_params_hand_computed),
      cmocka_unit_test(layernorm_params_and_beta_equal_prep_on_random_scales),
      cmocka_unit_test(layernorm_beta_hand_computed),
      cmocka_unit_test(leaky_params_hand_computed),
      cmocka_unit_test(add_params_hand_computed),
      cmocka_unit_test(add_params_equal_prep_on_random_scales),
      cmocka_unit_test(mul_params_hand_computed),
      cmocka_unit_test(mul_params_equal_prep_on_random_scales),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
