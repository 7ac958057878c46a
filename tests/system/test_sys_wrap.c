/* test_sys_wrap.c: int32 accumulation wrap on the whole chip: K = 140000 overflows int32, results wrap as specified. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys_util.h"
#include "tsr_golden.h"

/*
 * docs/programming.md: an accumulation that overflows int32 wraps in two's
 * complement, in the array, the accumulator and the bias add. With K = 140000
 * and products of +16384 (-128 * -128) the exact sum is 2 293 760 000 > 2^31 - 1.
 * Each test runs a 2 x 140000 x 3 GEMM with raw int32 output through the
 * firmware (which cuts K into chunks that ACCUMULATE) and compares every
 * element with
 *   - the value computed here, independently: the exact sum in int64, wrapped
 *     modulo 2^32;
 *   - the golden model (which sums in uint32);
 * and checks that the wrap really happened (some exact sums lie outside int32).
 *
 * usage: test_sys_wrap --dim N
 */

#define WRAP_M 2u
#define WRAP_K 140000u
#define WRAP_N 3u

static unsigned g_dim;

/* The int32 with the two's-complement bit pattern of v mod 2^32 (no
 * implementation-defined conversion). */
static int32_t wrap32(int64_t v) {
  uint32_t u = (uint32_t)((uint64_t)v & 0xffffffffu);
  if (u <= (uint32_t)INT32_MAX) {
    return (int32_t)u;
  }
  return (int32_t)(u - 0x80000000u) + INT32_MIN;
}

typedef int8_t (*operand_fn)(uint32_t row, uint32_t col);

static int8_t all_minus_128(uint32_t row, uint32_t col) {
  (void)row;
  (void)col;
  return -128;
}

/* A: row 0 all -128; row 1 -128 except every third element 127. */
static int8_t mix_a(uint32_t row, uint32_t col) {
  return (row == 1u && col % 3u == 0u) ? 127 : -128;
}

/* B: column 0 all -128 (products +16384), column 1 all 127, column 2 a
 * pseudo-random pattern of -128 and 127, mostly -128. */
static int8_t mix_b(uint32_t row, uint32_t col) {
  if (col == 0u) {
    return -128;
  }
  if (col == 1u) {
    return 127;
  }
  uint32_t h = row * 2654435761u;
  return (h >> 28) < 13u ? -128 : 127;
}

static void put32(uint8_t *p, int32_t v) {
  uint32_t u = (uint32_t)v;
  for (unsigned i = 0; i < 4u; i++) {
    p[i] = (uint8_t)(u >> (8u * i));
  }
}

static int32_t get32(const uint8_t *p) {
  uint32_t u = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
               ((uint32_t)p[3] << 24);
  return wrap32((int64_t)u);
}

/* Run the GEMM, compare, and return how many elements wrapped. */
static unsigned run_wrap_case(operand_fn fa, operand_fn fb, const int32_t *bias) {
  const uint32_t m = WRAP_M, k = WRAP_K, n = WRAP_N;
  sys_env_t env;
  tsr_sim_cfg_t cfg;
  sys_sim_cfg_default(&cfg);
  char err[512];
  if (sys_open(&env, g_dim, &cfg, err, sizeof err) != TSR_OK) {
    fail_msg("cannot open the simulator for --dim %u: %s", g_dim, err);
  }
  /* Odd addresses; B's rows padded to 5 bytes. */
  tsr_gemm_desc_t d;
  memset(&d, 0, sizeof d);
  d.m = m;
  d.k = k;
  d.n = n;
  d.a_addr = 0x1001u;
  d.lda = k;
  d.b_addr = 0x50003u;
  d.ldb = 5u;
  d.c_addr = 0x300005u;
  d.ldc = 4u * n + 3u;
  d.has_bias = bias != NULL;
  d.bias_addr = 0x300101u;
  d.act_min = -128;
  d.act_max = 127;

  int8_t *a = malloc((size_t)m * k);
  int8_t *b = malloc((size_t)k * d.ldb);
  uint8_t *cbuf = malloc((size_t)m * d.ldc);
  int32_t gold[WRAP_M * WRAP_N];
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(cbuf);
  int64_t exact[WRAP_M * WRAP_N];
  memset(exact, 0, sizeof exact);
  for (uint32_t i = 0; i < m; i++) {
    for (uint32_t j = 0; j < k; j++) {
      a[(size_t)i * k + j] = fa(i, j);
    }
  }
  for (uint32_t r = 0; r < k; r++) {
    for (uint32_t c = 0; c < d.ldb; c++) {
      b[(size_t)r * d.ldb + c] = c < n ? fb(r, c) : (int8_t)0x5a;
    }
  }
  /* The expected values, independently of the golden model: exact int64 sums. */
  for (uint32_t i = 0; i < m; i++) {
    for (uint32_t c = 0; c < n; c++) {
      int64_t s = 0;
      for (uint32_t r = 0; r < k; r++) {
        s += (int64_t)a[(size_t)i * k + r] * (int64_t)b[(size_t)r * d.ldb + c];
      }
      exact[i * n + c] = s + (bias != NULL ? bias[c] : 0);
    }
  }
  memset(cbuf, 0xa5, (size_t)m * d.ldc);
  uint8_t braw[4u * WRAP_N];
  for (uint32_t c = 0; c < n; c++) {
    put32(braw + 4u * c, bias != NULL ? bias[c] : 0);
  }
  assert_int_equal(tsr_hal_mem_write(&env.hal, d.a_addr, a, (size_t)m * k), TSR_OK);
  assert_int_equal(tsr_hal_mem_write(&env.hal, d.b_addr, b, (size_t)k * d.ldb), TSR_OK);
  assert_int_equal(tsr_hal_mem_write(&env.hal, d.c_addr, cbuf, (size_t)m * d.ldc), TSR_OK);
  assert_int_equal(tsr_hal_mem_write(&env.hal, d.bias_addr, braw, sizeof braw), TSR_OK);

  tsr_gemm_plan_t plan;
  assert_int_equal(tsr_gemm_plan(&env.dev.info, &d, &plan), TSR_OK);
  assert_int_equal(sys_soft_reset(&env), TSR_OK);
  tsr_status_t st = tsr_gemm_run(&env.dev, &d, &plan, NULL, NULL);
  if (st != TSR_OK) {
    fail_msg("tsr_gemm_run: %s: %s", tsr_status_str(st), tsr_dev_error(&env.dev));
  }
  assert_int_equal(tsr_hal_mem_read(&env.hal, d.c_addr, cbuf, (size_t)m * d.ldc), TSR_OK);

  tsr_gemm_params_t p;
  memset(&p, 0, sizeof p);
  p.bias = bias;
  p.requant = 0;
  p.act_min = -128;
  p.act_max = 127;
  int32_t *g32 = gold;
  assert_int_equal(tsr_golden_gemm(m, k, n, a, k, b, d.ldb, &p, g32, NULL), 0);

  unsigned wrapped = 0;
  for (uint32_t i = 0; i < m; i++) {
    for (uint32_t c = 0; c < n; c++) {
      int32_t hw = get32(cbuf + (size_t)i * d.ldc + 4u * c);
      int32_t want = wrap32(exact[i * n + c]);
      if (hw != want || gold[i * n + c] != want) {
        fail_msg("C[%u][%u] = %" PRId32 ", expected %" PRId32 " (exact sum %" PRId64
                 " mod 2^32; golden model %" PRId32 ")",
                 i, c, hw, want, exact[i * n + c], gold[i * n + c]);
      }
      if ((int64_t)hw != exact[i * n + c]) {
        wrapped++;
      }
    }
    /* The 3 gap bytes after each row are untouched. */
    for (uint32_t g = 4u * n; g < d.ldc; g++) {
      if (cbuf[(size_t)i * d.ldc + g] != 0xa5u) {
        fail_msg("gap byte %u after C row %u changed to 0x%02x", g, i, cbuf[(size_t)i * d.ldc + g]);
      }
    }
  }
  printf("  dim %u, K %u: %u of %u elements wrapped; C[0][0] = %" PRId32 " (exact %" PRId64
         "), plan: %u K chunks of %u, %" PRIu64 " commands\n",
         g_dim, k, wrapped, m * n, get32(cbuf), exact[0], plan.k_chunks, plan.kc, plan.cmds);
  free(a);
  free(b);
  free(cbuf);
  sys_close(&env);
  return wrapped;
}

static void all_products_plus_16384_wrap_modulo_2_32(void **state) {
  (void)state;
  unsigned wrapped = run_wrap_case(all_minus_128, all_minus_128, NULL);
  /* Every element is K * 16384 = 2293760000, which wraps to -2001207296. */
  const int32_t want = wrap32((int64_t)WRAP_K * 16384);
  assert_true(want == -2001207296);
  assert_int_equal(wrapped, WRAP_M * WRAP_N);
}

static void mixed_operands_wrap_in_both_directions(void **state) {
  (void)state;
  /* Column 0 overflows upwards, column 1 (products -16256) downwards. */
  unsigned wrapped = run_wrap_case(mix_a, mix_b, NULL);
  assert_true(wrapped >= 2u);
}

static void bias_add_wraps_after_the_accumulation(void **state) {
  (void)state;
  /* Bias INT32_MAX on a wrapped negative sum and INT32_MIN on a wrapped
   * positive one: the exact value moves further out of range or back in. */
  const int32_t bias[WRAP_N] = {INT32_MAX, INT32_MIN, -123456789};
  unsigned wrapped = run_wrap_case(mix_a, mix_b, bias);
  assert_true(wrapped >= 1u);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    uint32_t v = 0;
    if (strcmp(argv[i], "--dim") == 0 && i + 1 < argc && sys_parse_u32(argv[i + 1], &v) == 0 &&
        v >= 1u && v <= 255u) {
      g_dim = v;
      i++;
    } else {
      fprintf(stderr, "test_sys_wrap: bad argument '%s' (usage: test_sys_wrap --dim N)\n", argv[i]);
      return 2;
    }
  }
  if (g_dim == 0u) {
    fprintf(stderr, "test_sys_wrap: give --dim N\n");
    return 2;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(all_products_plus_16384_wrap_modulo_2_32),
      cmocka_unit_test(mixed_operands_wrap_in_both_directions),
      cmocka_unit_test(bias_add_wraps_after_the_accumulation),
  };
  return cmocka_run_group_tests_name("system int32 wrap", tests, NULL, NULL);
}
