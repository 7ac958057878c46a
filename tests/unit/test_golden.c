/* test_golden.c: cmocka suite for the golden GEMM and output stage (sw/golden/tsr_golden.c), worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tsr_golden.h"
#include "../common/tsr_cmocka_ext.h"

/* Compare an output array element by element, naming the first difference. */
static void check_i32(const int32_t *got, const int32_t *want, size_t count) {
  for (size_t i = 0; i < count; i++) {
    if (got[i] != want[i]) {
      fail_msg("element %zu = %ld, expected %ld", i, (long)got[i], (long)want[i]);
    }
  }
}

static void check_i8(const int8_t *got, const int8_t *want, size_t count) {
  for (size_t i = 0; i < count; i++) {
    if (got[i] != want[i]) {
      fail_msg("element %zu = %d, expected %d", i, got[i], want[i]);
    }
  }
}

#define P30 (INT32_C(1) << 30)

/* The 2x3 by 3x2 example used by several tests:
 *   A = [  1 -2  3 ]    B = [   7 -8 ]
 *       [ -4  5 -6 ]        [   9 10 ]
 *                           [ -11 12 ]
 *   C00 =  1*7  + -2*9  +  3*-11 =   7 - 18 - 33 = -44
 *   C01 =  1*-8 + -2*10 +  3*12  =  -8 - 20 + 36 =   8
 *   C10 = -4*7  +  5*9  + -6*-11 = -28 + 45 + 66 =  83
 *   C11 = -4*-8 +  5*10 + -6*12  =  32 + 50 - 72 =  10 */
static const int8_t kA[2 * 3] = {1, -2, 3, -4, 5, -6};
static const int8_t kB[3 * 2] = {7, -8, 9, 10, -11, 12};

static void gemm_2x3x2_raw_int32_matches_hand_computation(void **state) {
  (void)state;
  const tsr_gemm_params_t p = {0};
  int32_t out[4] = {0};
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &p, out, NULL), 0);
  const int32_t want[4] = {-44, 8, 83, 10};
  check_i32(out, want, 4);
}

static void gemm_adds_bias_per_column(void **state) {
  (void)state;
  const int32_t bias[2] = {100, -1000};
  const tsr_gemm_params_t p = {.bias = bias};
  int32_t out[4] = {0};
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &p, out, NULL), 0);
  /* -44+100, 8-1000, 83+100, 10-1000 */
  const int32_t want[4] = {56, -992, 183, -990};
  check_i32(out, want, 4);
}

static void gemm_honours_row_strides_of_a_and_b(void **state) {
  (void)state;
  /* The same matrices inside wider buffers; the extra column must be ignored. */
  const int8_t a[2 * 4] = {1, -2, 3, 99, -4, 5, -6, 99};
  const int8_t b[3 * 3] = {7, -8, 77, 9, 10, 77, -11, 12, 77};
  const tsr_gemm_params_t p = {0};
  int32_t out[4] = {0};
  assert_i64(tsr_golden_gemm(2, 3, 2, a, 4, b, 3, &p, out, NULL), 0);
  const int32_t want[4] = {-44, 8, 83, 10};
  check_i32(out, want, 4);
}

static void gemm_per_tensor_requant_rounds_and_adds_zero_point(void **state) {
  (void)state;
  /* Multiplier 0.5 * 2^-1 = 0.25, zero point 3:
   *   -44: srdhm -> -22, rdbpot(-22, 1) = -11; + 3 = -8
   *     8: srdhm ->   4, rdbpot(4, 1)   =   2; + 3 =  5
   *    83: srdhm(83 * 0.5 = 41.5) -> 42, rdbpot(42, 1) = 21; + 3 = 24
   *    10: srdhm ->   5, rdbpot(5, 1) = 2.5 -> 3; + 3 = 6 */
  const tsr_gemm_params_t p = {
      .requant = 1, .mult_scalar = P30, .shift_scalar = -1, .out_zp = 3, .act_min = -128, .act_max = 127};
  int8_t out[4] = {0};
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &p, NULL, out), 0);
  const int8_t want[4] = {-8, 5, 24, 6};
  check_i8(out, want, 4);
}

static void gemm_requant_rounds_negative_ties_away_from_zero(void **state) {
  (void)state;
  /* The rounding right shift rounds a tie away from zero on both sides: a
   * rule that rounds half up would give -1 for -1.5. A is a 12x1 column and
   * B = [1], so the accumulators are A; multiplier 0.5 (2^30) on an even
   * accumulator is exact, then shift -2 divides by 4:
   *   -12 -> -6 -> -1.5  -> -2      12 ->  6 ->  1.5 ->  2
   *   -20 -> -10 -> -2.5 -> -3      20 -> 10 ->  2.5 ->  3
   *    -4 -> -2 -> -0.5  -> -1       4 ->  2 ->  0.5 ->  1
   *   -28 -> -14 -> -3.5 -> -4      28 -> 14 ->  3.5 ->  4
   * and, not ties, -10 -> -5 -> -1.25 -> -1, -14 -> -7 -> -1.75 -> -2,
   * -128 -> -64 -> -16, 126 -> 63 -> 15.75 -> 16. */
  const int8_t a[12] = {-12, -20, -4, -28, 12, 20, 4, 28, -10, -14, -128, 126};
  const int8_t b[1] = {1};
  const tsr_gemm_params_t p = {
      .requant = 1, .mult_scalar = P30, .shift_scalar = -2, .act_min = -128, .act_max = 127};
  int8_t out[12] = {0};
  assert_i64(tsr_golden_gemm(12, 1, 1, a, 1, b, 1, &p, NULL, out), 0);
  const int8_t want[12] = {-2, -3, -1, -4, 2, 3, 1, 4, -1, -2, -16, 16};
  check_i8(out, want, 12);
}

static void gemm_requant_negative_ties_after_bias_and_per_channel_shifts(void **state) {
  (void)state;
  /* The tie comes from the bias: accumulators 1 * [1 1 1 1] plus bias
   * -7, -13, 5, -3, then multiplier 0.5 exactly (2^30 with shift 0 on the even
   * values below) and per-column shifts:
   *   col 0: 1 - 7  = -6  -> -3, shift -1: -1.5  -> -2, + zp 10 -> 8
   *   col 1: 1 - 13 = -12 -> -6, shift -2: -1.5  -> -2, + zp 10 -> 8
   *   col 2: 1 + 5  =  6  ->  3, shift -1:  1.5  ->  2, + zp 10 -> 12
   *   col 3: 1 - 3  = -2  -> -1, shift -1: -0.5  -> -1, + zp 10 -> 9
   * The zero point is added after the rounding, so it cannot hide the sign. */
  const int8_t a[1] = {1};
  const int8_t b[4] = {1, 1, 1, 1};
  const int32_t bias[4] = {-7, -13, 5, -3};
  const int32_t shift[4] = {-1, -2, -1, -1};
  const tsr_gemm_params_t p = {.bias = bias,
                               .requant = 1,
                               .mult_scalar = P30,
                               .shift = shift,
                               .out_zp = 10,
                               .act_min = -128,
                               .act_max = 127};
  int8_t out[4] = {0};
  assert_i64(tsr_golden_gemm(1, 1, 4, a, 1, b, 4, &p, NULL, out), 0);
  const int8_t want[4] = {8, 8, 12, 9};
  check_i8(out, want, 4);
}

static void output_doubling_high_mul_rounds_a_negative_tie_up_and_the_shift_away(void **state) {
  (void)state;
  /* Two roundings with different tie rules (gemmlowp): the doubling high
   * multiply rounds x * 0.5 = -2.5 up to -2 (its nudge is 1 - 2^30 for a
   * negative product), while +2.5 goes to 3; the right shift then rounds
   * ties away from zero. With multiplier 0.5 and shift 0:
   *   -5 -> -2,  5 -> 3,  -1 -> 0,  1 -> 1
   * and with shift -1 (x / 4 in two steps):
   *   -5 -> -2 -> -1 (exact),  -3 -> -1 (srdhm -1.5 -> -1) -> -0.5 -> -1,
   *   -7 -> -3 (-3.5 -> -3) -> -1.5 -> -2,  7 -> 4 -> 2 */
  const tsr_gemm_params_t p0 = {
      .requant = 1, .mult_scalar = P30, .shift_scalar = 0, .act_min = -128, .act_max = 127};
  assert_i64(tsr_golden_output(-5, 0, &p0), -2);
  assert_i64(tsr_golden_output(5, 0, &p0), 3);
  assert_i64(tsr_golden_output(-1, 0, &p0), 0);
  assert_i64(tsr_golden_output(1, 0, &p0), 1);
  const tsr_gemm_params_t p1 = {
      .requant = 1, .mult_scalar = P30, .shift_scalar = -1, .act_min = -128, .act_max = 127};
  assert_i64(tsr_golden_output(-5, 0, &p1), -1);
  assert_i64(tsr_golden_output(-3, 0, &p1), -1);
  assert_i64(tsr_golden_output(-7, 0, &p1), -2);
  assert_i64(tsr_golden_output(7, 0, &p1), 2);
}

static void gemm_per_channel_requant_uses_each_columns_multiplier_and_shift(void **state) {
  (void)state;
  /* Column 0: 0.5, shift 0.   -44 -> -22;  83 -> 41.5 -> 42
   * Column 1: 0.75, shift 1 (x2, so 1.5).  8 -> 16 * 0.75 = 12;  10 -> 20 * 0.75 = 15 */
  const int32_t mult[2] = {P30, 1610612736};
  const int32_t shift[2] = {0, 1};
  const tsr_gemm_params_t p = {
      .requant = 1, .mult = mult, .shift = shift, .act_min = -128, .act_max = 127};
  int8_t out[4] = {0};
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &p, NULL, out), 0);
  const int8_t want[4] = {-22, 12, 42, 15};
  check_i8(out, want, 4);
}

static void gemm_requant_clamps_to_activation_range_relu6_style(void **state) {
  (void)state;
  /* ReLU6 with scale 0.1 and zero point -100: act_min = -100 (real 0),
   * act_max = -100 + 60 = -40 (real 6). A is a 4x1 column, B = [1], so the
   * accumulators are A itself; multiplier 0.5 with shift 1 is exactly 1.0.
   *   -50 - 100 = -150 -> -100    10 - 100 = -90
   *    70 - 100 =  -30 ->  -40   127 - 100 =  27 -> -40 */
  const int8_t a[4] = {-50, 10, 70, 127};
  const int8_t b[1] = {1};
  const tsr_gemm_params_t p = {.requant = 1,
                               .mult_scalar = P30,
                               .shift_scalar = 1,
                               .out_zp = -100,
                               .act_min = -100,
                               .act_max = -40};
  int8_t out[4] = {0};
  assert_i64(tsr_golden_gemm(4, 1, 1, a, 1, b, 1, &p, NULL, out), 0);
  const int8_t want[4] = {-100, -90, -40, -40};
  check_i8(out, want, 4);
}

static void gemm_int32_accumulation_and_bias_wrap_modulo_2_pow_32(void **state) {
  (void)state;
  /* K = 140000 products of -128 * -128 = 16384 each: 2,293,760,000, which
   * is above INT32_MAX (2,147,483,647) and wraps to
   * 2,293,760,000 - 4,294,967,296 = -2,001,207,296. Column 1 then adds a
   * bias of -200,000,000: -2,201,207,296 wraps to 2,093,760,000. */
  enum { K = 140000 };
  int8_t *a = malloc(K);
  int8_t *b = malloc(2 * K);
  assert_non_null(a);
  assert_non_null(b);
  memset(a, -128, K);
  memset(b, -128, 2 * K);

  /* The expected values, computed independently in 64-bit arithmetic. */
  const int64_t two32 = INT64_C(1) << 32;
  const int64_t exact = (int64_t)K * 16384;
  const int64_t wrapped = exact - two32;
  assert_i64(wrapped, -2001207296);
  assert_i64(wrapped - 200000000 + two32, 2093760000);

  const int32_t bias[2] = {0, -200000000};
  const tsr_gemm_params_t p = {.bias = bias};
  int32_t out[2] = {0};
  assert_i64(tsr_golden_gemm(1, K, 2, a, K, b, 2, &p, out, NULL), 0);
  assert_i64(out[0], -2001207296);
  assert_i64(out[1], 2093760000);
  free(a);
  free(b);
}

static void gemm_columns_with_different_shifts(void **state) {
  (void)state;
  /* Every accumulator is 100 (A = [100], B = [1 1 1 1]); per-channel
   * shifts with the scalar multiplier 0.5:
   *   shift -2: srdhm 50, rdbpot(50, 2) = 12.5 -> 13
   *   shift -1: 50 / 2 = 25
   *   shift  0: 50
   *   shift  1: (100 << 1) * 0.5 = 100 */
  const int8_t a[1] = {100};
  const int8_t b[4] = {1, 1, 1, 1};
  const int32_t shift[4] = {-2, -1, 0, 1};
  const tsr_gemm_params_t p = {
      .requant = 1, .mult_scalar = P30, .shift = shift, .act_min = -128, .act_max = 127};
  int8_t out[4] = {0};
  assert_i64(tsr_golden_gemm(1, 1, 4, a, 1, b, 4, &p, NULL, out), 0);
  const int8_t want[4] = {13, 25, 50, 100};
  check_i8(out, want, 4);
}

static void output_zero_point_add_wraps_before_the_clamp(void **state) {
  (void)state;
  /* srdhm(INT32_MAX, INT32_MAX) = 2^31 - 2; + 2 wraps to INT32_MIN, which
   * clamps to act_min. A saturating add would give act_max instead. */
  const tsr_gemm_params_t p = {
      .requant = 1, .mult_scalar = INT32_MAX, .shift_scalar = 0, .out_zp = 2, .act_min = -128, .act_max = 127};
  assert_i64(tsr_golden_output(INT32_MAX, 0, &p), -128);
  /* Without the wrap: 2^31 - 2 + 1 = INT32_MAX -> 127. */
  const tsr_gemm_params_t q = {
      .requant = 1, .mult_scalar = INT32_MAX, .shift_scalar = 0, .out_zp = 1, .act_min = -128, .act_max = 127};
  assert_i64(tsr_golden_output(INT32_MAX, 0, &q), 127);
}

static void output_raw_bias_add_wraps(void **state) {
  (void)state;
  const int32_t bias[1] = {1};
  const tsr_gemm_params_t p = {.bias = bias};
  assert_i64(tsr_golden_output(INT32_MAX, 0, &p), INT32_MIN);
  const tsr_gemm_params_t none = {0};
  assert_i64(tsr_golden_output(INT32_MIN, 0, &none), INT32_MIN);
}

static void gemm_with_k_0_outputs_the_bias_and_m_0_writes_nothing(void **state) {
  (void)state;
  const int32_t bias[2] = {7, -9};
  const tsr_gemm_params_t p = {.bias = bias};
  int32_t out[2] = {123, 123};
  assert_i64(tsr_golden_gemm(1, 0, 2, NULL, 0, NULL, 2, &p, out, NULL), 0);
  assert_i64(out[0], 7);
  assert_i64(out[1], -9);
  int32_t untouched[1] = {55};
  assert_i64(tsr_golden_gemm(0, 3, 1, NULL, 3, kB, 2, &p, untouched, NULL), 0);
  assert_i64(untouched[0], 55);
}

static void gemm_rejects_invalid_arguments_and_writes_nothing(void **state) {
  (void)state;
  const tsr_gemm_params_t good = {.requant = 1, .mult_scalar = P30, .act_min = -128, .act_max = 127};
  int8_t out8[4] = {11, 11, 11, 11};
  int32_t out32[4] = {11, 11, 11, 11};

  tsr_gemm_params_t bad = good;
  bad.shift_scalar = 31; /* hardware range is -31..30 */
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &bad, NULL, out8), -1);
  bad = good;
  bad.shift_scalar = -32;
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &bad, NULL, out8), -1);
  const int32_t shifts[2] = {0, 31};
  bad = good;
  bad.shift = shifts;
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &bad, NULL, out8), -1);
  bad = good;
  bad.act_min = 5;
  bad.act_max = 4;
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &bad, NULL, out8), -1);
  bad = good;
  bad.out_zp = 128; /* not an int8 */
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &bad, NULL, out8), -1);
  bad = good;
  bad.act_max = 128;
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &bad, NULL, out8), -1);

  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, NULL, out32, out8), -1); /* no params */
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &good, out32, NULL), -1); /* requant needs out8 */
  const tsr_gemm_params_t raw = {0};
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &raw, NULL, out8), -1); /* raw needs out32 */
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 2, kB, 2, &raw, out32, NULL), -1); /* lda < k */
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 1, &raw, out32, NULL), -1); /* ldb < n */
  assert_i64(tsr_golden_gemm(2, 3, 2, NULL, 3, kB, 2, &raw, out32, NULL), -1);
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, NULL, 2, &raw, out32, NULL), -1);

  for (size_t i = 0; i < 4; i++) {
    assert_i64(out8[i], 11);
    assert_i64(out32[i], 11);
  }

  /* Raw output ignores the requant fields, as the hardware does with REQUANT = 0. */
  tsr_gemm_params_t raw_odd = raw;
  raw_odd.shift_scalar = 99;
  assert_i64(tsr_golden_gemm(2, 3, 2, kA, 3, kB, 2, &raw_odd, out32, NULL), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(gemm_2x3x2_raw_int32_matches_hand_computation),
      cmocka_unit_test(gemm_adds_bias_per_column),
      cmocka_unit_test(gemm_honours_row_strides_of_a_and_b),
      cmocka_unit_test(gemm_per_tensor_requant_rounds_and_adds_zero_point),
      cmocka_unit_test(gemm_requant_rounds_negative_ties_away_from_zero),
      cmocka_unit_test(gemm_requant_negative_ties_after_bias_and_per_channel_shifts),
      cmocka_unit_test(output_doubling_high_mul_rounds_a_negative_tie_up_and_the_shift_away),
      cmocka_unit_test(gemm_per_channel_requant_uses_each_columns_multiplier_and_shift),
      cmocka_unit_test(gemm_requant_clamps_to_activation_range_relu6_style),
      cmocka_unit_test(gemm_int32_accumulation_and_bias_wrap_modulo_2_pow_32),
      cmocka_unit_test(gemm_columns_with_different_shifts),
      cmocka_unit_test(output_zero_point_add_wraps_before_the_clamp),
      cmocka_unit_test(output_raw_bias_add_wraps),
      cmocka_unit_test(gemm_with_k_0_outputs_the_bias_and_m_0_writes_nothing),
      cmocka_unit_test(gemm_rejects_invalid_arguments_and_writes_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
