/* test_lib.c: cmocka suite for libtessera's parts that need no device (sw/lib/tessera.h). */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"
#include "tsr_golden.h"
#include "../common/tsr_cmocka_ext.h"

/* Random operands of m x k x n (seed), in buffers the test frees. */
typedef struct rnd {
  int8_t *a, *b;
  int32_t bias[64], mult[64], shift[64];
  tessera_gemm_t job;
} rnd_t;

static void rnd_make(rnd_t *r, uint32_t m, uint32_t k, uint32_t n, uint32_t seed, bool raw) {
  assert_true(n <= 64u);
  r->a = malloc((size_t)m * k);
  r->b = malloc((size_t)k * n);
  assert_non_null(r->a);
  assert_non_null(r->b);
  tessera_gemm_random(m, k, n, seed, raw, r->a, r->b, r->bias, r->mult, r->shift, &r->job);
}

static void rnd_free(rnd_t *r) {
  free(r->a);
  free(r->b);
}

static void arena_aligns_every_tensor_from_the_base(void **state) {
  (void)state;
  tessera_arena_t ar;
  tessera_arena_init(&ar);
  assert_i64(tessera_arena_take(&ar, 1), TESSERA_MEM_BASE);
  assert_i64(tessera_arena_take(&ar, 65), TESSERA_MEM_BASE + 64);
  assert_i64(tessera_arena_take(&ar, 0), TESSERA_MEM_BASE + 192);
  assert_i64(tessera_arena_take(&ar, 64), TESSERA_MEM_BASE + 192);
  assert_i64(tessera_arena_end(&ar), TESSERA_MEM_BASE + 256);
}

static void layouts_beyond_32_bit_addresses_are_refused(void **state) {
  (void)state;
  char err[TESSERA_ERRLEN];
  uint64_t bytes = 0;
  tessera_gemm_t g;
  memset(&g, 0, sizeof g);
  g.m = 70000;
  g.k = 70000;
  g.n = 8;
  assert_i64(tessera_gemm_mem_bytes(&g, &bytes, err, sizeof err), TSR_BAD_ARG);
  assert_one_line(err, "addresses are 32-bit (4 GiB)");
  assert_true(bytes > (1ull << 32));
  g.m = 16;
  g.k = 16;
  assert_i64(tessera_gemm_mem_bytes(&g, &bytes, err, sizeof err), TSR_OK);
  tessera_sfu_t s;
  memset(&s, 0, sizeof s);
  s.func = TSR_FUNC_ADD;
  s.rows = 1u << 20;
  s.len = 4096;
  assert_i64(tessera_sfu_mem_bytes(&s, &bytes, err, sizeof err), TSR_BAD_ARG);
  assert_one_line(err, "the tensors need");
  s.func = TSR_FUNC_REDUCE;
  s.rows = 3;
  assert_i64(tessera_sfu_out_bytes(&s), 36);
}

static void random_operands_depend_only_on_the_seed(void **state) {
  (void)state;
  rnd_t x, y, z;
  rnd_make(&x, 7, 13, 5, 42, false);
  rnd_make(&y, 7, 13, 5, 42, false);
  rnd_make(&z, 7, 13, 5, 43, false);
  assert_memory_equal(x.a, y.a, 7 * 13);
  assert_memory_equal(x.b, y.b, 13 * 5);
  assert_i64(x.job.out_zp, y.job.out_zp);
  assert_true(memcmp(x.a, z.a, 7 * 13) != 0);
  assert_true(x.job.requant);
  assert_true(x.job.act_min <= x.job.act_max);
  rnd_free(&x);
  rnd_free(&y);
  rnd_free(&z);
  rnd_t raw;
  rnd_make(&raw, 4, 4, 4, 1, true);
  assert_false(raw.job.requant);
  assert_null(raw.job.mult);
  assert_i64(tessera_gemm_out_elem(&raw.job), 4);
  rnd_free(&raw);
}

/* The golden result of a job, then three elements changed: the check counts them all
 * and names the first. */
static void gemm_check_counts_every_mismatch(void **state) {
  (void)state;
  for (uint32_t seed = 1; seed <= 4; seed++) {
    rnd_t r;
    rnd_make(&r, 6, 19, 11, seed, seed == 4);
    const size_t es = tessera_gemm_out_elem(&r.job);
    uint8_t *out = calloc(6 * 11, es);
    assert_non_null(out);
    tsr_gemm_params_t p;
    memset(&p, 0, sizeof p);
    p.bias = r.job.bias;
    p.requant = r.job.requant;
    p.mult = r.job.mult;
    p.shift = r.job.shift;
    p.mult_scalar = r.job.mult_scalar;
    p.shift_scalar = r.job.shift_scalar;
    p.out_zp = r.job.out_zp;
    p.act_min = r.job.act_min;
    p.act_max = r.job.act_max;
    assert_int_equal(tsr_golden_gemm(6, 19, 11, r.a, 19, r.b, 11, &p,
                                     es == 4 ? (int32_t *)(void *)out : NULL,
                                     es == 1 ? (int8_t *)out : NULL),
                     0);
    tessera_mismatch_t mm;
    char err[TESSERA_ERRLEN];
    assert_i64(tessera_gemm_check(&r.job, out, &mm, err, sizeof err), TSR_OK);
    assert_i64(mm.count, 0);
    const size_t bad[3] = {13, 40, 65};
    for (int i = 0; i < 3; i++) {
      out[bad[i] * es] ^= 0x40u;
    }
    assert_i64(tessera_gemm_check(&r.job, out, &mm, err, sizeof err), TSR_OK);
    assert_i64(mm.count, 3);
    assert_i64(mm.row, 13 / 11);
    assert_i64(mm.col, 13 % 11);
    assert_true(mm.got != mm.want);
    free(out);
    rnd_free(&r);
  }
}

static void sfu_check_counts_reduce_lanes(void **state) {
  (void)state;
  int8_t in[2 * 5] = {1, -2, 3, -4, 5, 100, -100, 7, 0, 1};
  tessera_sfu_t s;
  memset(&s, 0, sizeof s);
  s.func = TSR_FUNC_REDUCE;
  s.rows = 2;
  s.len = 5;
  s.in = in;
  int32_t out[2 * 3] = {5, 3, 1 + 4 + 9 + 16 + 25, 100, 8, 10000 + 10000 + 49 + 0 + 1};
  tessera_mismatch_t mm;
  char err[TESSERA_ERRLEN];
  assert_i64(tessera_sfu_check(&s, out, &mm, err, sizeof err), TSR_OK);
  assert_i64(mm.count, 0);
  out[4] = 9;
  out[5] = 0;
  assert_i64(tessera_sfu_check(&s, out, &mm, err, sizeof err), TSR_OK);
  assert_i64(mm.count, 2);
  assert_i64(mm.row, 1);
  assert_i64(mm.col, 1);
  assert_i64(mm.got, 9);
  assert_i64(mm.want, 8);
  s.func = 99;
  assert_i64(tessera_sfu_check(&s, out, &mm, err, sizeof err), TSR_BAD_ARG);
  assert_one_line(err, "golden model rejected");
  assert_string_equal(tessera_sfu_func_name(TSR_FUNC_SOFTMAX), "SOFTMAX");
  assert_string_equal(tessera_sfu_func_name(99), "?");
}

static void leaky_refuses_a_negative_multiplier(void **state) {
  (void)state;
  int32_t mult[2] = {1 << 30, -5};
  int32_t shift[2] = {0, 0};
  int32_t mn[2], sn[2];
  tessera_gemm_t g;
  memset(&g, 0, sizeof g);
  g.n = 2;
  g.requant = true;
  g.mult = mult;
  g.shift = shift;
  char err[TESSERA_ERRLEN];
  assert_i64(tessera_gemm_leaky(&g, 0.5, mn, sn, err, sizeof err), TSR_BAD_ARG);
  assert_one_line(err, "column 1");
  mult[1] = 1 << 30;
  assert_i64(tessera_gemm_leaky(&g, 0.5, mn, sn, err, sizeof err), TSR_OK);
  assert_i64(mn[0], 1 << 30);
  assert_i64(sn[0], -1);
}

static void open_explains_what_is_missing_in_one_line(void **state) {
  (void)state;
  char err[TESSERA_ERRLEN];
  tessera_dev_t *dev = (tessera_dev_t *)&err; /* must be reset to NULL */
  assert_i64(tessera_open("bogus", NULL, &dev, err, sizeof err), TSR_BAD_ARG);
  assert_null(dev);
  assert_one_line(err, "unknown device spec");
  setenv("TSR_SIM_LIB_DIR", "/nonexistent/tessera-test-lib", 1);
  tessera_open_opts_t o;
  tessera_open_opts_default(&o);
  assert_i64(o.dim, 8);
  assert_i64(o.seed, 1);
  assert_true(tessera_open("sim:16", &o, &dev, err, sizeof err) != TSR_OK);
  assert_null(dev);
  assert_one_line(err, "make sim DIM=16");
  assert_i64(tessera_open(NULL, NULL, &dev, err, sizeof err), TSR_BAD_ARG);
  tessera_close(NULL);
}

static void bench_has_23_points_and_a_quick_dozen(void **state) {
  (void)state;
  tessera_bench_point_t pts[TESSERA_BENCH_MAX_POINTS];
  assert_i64(tessera_bench_points(false, pts), 23);
  assert_string_equal(pts[0].label, "16^3");
  assert_string_equal(pts[22].label, "16 B/c");
  assert_i64(tessera_bench_points(true, pts), 12);
  assert_string_equal(pts[11].group, "bandwidth");
  char err[TESSERA_ERRLEN];
  assert_i64(tessera_make_dirs("/dev/null/sub", err, sizeof err), TSR_IO);
  assert_one_line(err, "cannot create directory /dev/null");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(arena_aligns_every_tensor_from_the_base),
      cmocka_unit_test(layouts_beyond_32_bit_addresses_are_refused),
      cmocka_unit_test(random_operands_depend_only_on_the_seed),
      cmocka_unit_test(gemm_check_counts_every_mismatch),
      cmocka_unit_test(sfu_check_counts_reduce_lanes),
      cmocka_unit_test(leaky_refuses_a_negative_multiplier),
      cmocka_unit_test(open_explains_what_is_missing_in_one_line),
      cmocka_unit_test(bench_has_23_points_and_a_quick_dozen),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
