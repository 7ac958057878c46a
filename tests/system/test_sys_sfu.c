/* test_sys_sfu.c: every SFU operation on the Verilated chip, bit-exact against the golden model. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys_util.h"
#include "tessera_regs.h"
#include "tsr_golden.h"
#include "tsr_golden_params.h"
#include "tsr_sfu.h"

/*
 * Random tensors through each SFU function (docs/sfu.md) via the firmware
 * runners (fw/tsr_sfu_ops.c), with random memory stalls:
 *   MAP (with a table of every generator), REDUCE, SOFTMAX (random scale and
 *   beta), LAYERNORM (random scales, gamma, beta, eps), ADD (random scales
 *   and zero points).
 * Each case fills the external memory with random bytes, runs, and compares
 * every output byte with the golden model (sw/golden/tsr_sfu_golden.c) and every
 * other byte with what was there before. The chip gets its tables and
 * parameter blocks from the host preparation (sw/lib/tsr_sfu_prep.c); the
 * golden model computes with its own, derived from the same scales by
 * separate code (sw/golden/tsr_golden_params.c), so a wrong table entry or
 * parameter in the preparation fails here instead of reaching both sides. Then a fused GEMM (requantize, then
 * the table) against GEMM + MAP, with the DMA traffic of both; then the
 * error paths: a bad parameter gives ERR_PARAM, a bad FUNC ERR_OPCODE, and
 * the chip is usable after a soft reset.
 *
 * usage: test_sys_sfu --dim N [--seed S] [--count C] [--break]
 *   --break flips one expected output byte: the comparison must fail.
 */

#define IN_ADDR 0x10001u
#define IN2_ADDR 0x60003u
#define BETA_ADDR 0xB0000u
#define PARAM_ADDR 0xC0000u
#define LUT_ADDR 0xC1000u
#define OUT_ADDR 0x100005u
#define MID_ADDR 0x180002u
#define OUT2_ADDR 0x200007u
#define MAX_ROWS 24u
#define MAX_LEN 200u

static int g_break;
static unsigned g_fail;

#define CHECK(cond, ...)                                       \
  do {                                                         \
    if (!(cond)) {                                             \
      fprintf(stderr, "test_sys_sfu: FAIL: " __VA_ARGS__);     \
      fputc('\n', stderr);                                     \
      g_fail++;                                                \
      return -1;                                               \
    }                                                          \
  } while (0)

static double rnd_log(sys_rng_t *r, double lo, double hi) {
  const double u = (double)sys_rng_range(r, 0, 1000000) / 1e6;
  return lo * pow(hi / lo, u);
}

static int put(sys_env_t *e, uint32_t addr, const void *p, size_t n) {
  return tsr_hal_mem_write(&e->hal, addr, p, n) == TSR_OK ? 0 : -1;
}

/* Compare the output region with `want`, and everything else with `before`. */
static int check_memory(sys_env_t *e, const uint8_t *before, const void *want, size_t n,
                        const char *what) {
  uint8_t *after = sys_snapshot(e);
  CHECK(after != NULL, "%s: snapshot", what);
  uint8_t *exp = malloc(n);
  CHECK(exp != NULL, "%s: malloc", what);
  memcpy(exp, want, n);
  if (g_break && n > 0) {
    exp[n - 1] ^= 1u;
  }
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    if (after[OUT_ADDR + i] != exp[i]) {
      fprintf(stderr, "test_sys_sfu: FAIL: %s: output byte %zu is %d, golden %d\n", what, i,
              (int8_t)after[OUT_ADDR + i], (int8_t)exp[i]);
      rc = -1;
      break;
    }
  }
  const int64_t stray = sys_first_change_outside(before, after, e->cfg.mem_size, OUT_ADDR,
                                                 (uint32_t)n, 1u, (uint32_t)n);
  if (stray >= 0) {
    fprintf(stderr, "test_sys_sfu: FAIL: %s: byte 0x%" PRIx64 " outside the output changed\n",
            what, stray);
    rc = -1;
  }
  free(exp);
  free(after);
  if (rc != 0) {
    g_fail++;
  }
  return rc;
}

typedef struct sfu_stats {
  uint64_t elems, cycles;
} sfu_stats_t;

static sfu_stats_t g_stats[TSR_FUNC_COUNT];

/* Fill memory with noise and return a snapshot of it. */
static uint8_t *fresh_memory(sys_env_t *e, sys_rng_t *r) {
  uint8_t *img = malloc(e->cfg.mem_size);
  if (img == NULL) {
    return NULL;
  }
  sys_rng_fill(r, img, e->cfg.mem_size);
  if (put(e, 0, img, e->cfg.mem_size) != 0) {
    free(img);
    return NULL;
  }
  return img;
}

static int run_case(sys_env_t *e, uint32_t seed, unsigned func) {
  sys_rng_t r;
  sys_rng_seed(&r, seed, 7u);
  const uint32_t rows = (uint32_t)sys_rng_range(&r, 1, MAX_ROWS);
  const uint32_t len = (uint32_t)(sys_rng_pct(&r, 20u) ? sys_rng_range(&r, 1, 4)
                                                       : sys_rng_range(&r, 1, MAX_LEN));
  const size_t n = (size_t)rows * len;
  char what[128];
  snprintf(what, sizeof what, "func %u seed %u rows %u len %u", func, seed, rows, len);

  uint8_t *before = fresh_memory(e, &r);
  CHECK(before != NULL, "%s: memory", what);
  int8_t *x = (int8_t *)before + IN_ADDR, *x2 = (int8_t *)before + IN2_ADDR;
  int8_t *y = malloc(n);
  int32_t *y32 = malloc(n * 3u * sizeof *y32);
  CHECK(y != NULL && y32 != NULL, "%s: malloc", what);

  tsr_status_t st = TSR_OK;
  tsr_counters_t cnt;
  CHECK(tsr_counters_clear(&e->dev) == TSR_OK, "%s: counter clear", what);
  switch (func) {
    case TSR_FUNC_MAP: {
      int8_t lut[256], gold_lut[256];
      /* Consecutive cases (seed + 16 i) take the functions in turn: 7 cases cover all. */
      const tsr_lut_fn_t fn = (tsr_lut_fn_t)((seed >> 4) % (TSR_LUT_HARDSWISH + 1u));
      const double in_scale = rnd_log(&r, 0.005, 0.2);
      const int32_t in_zp = (int32_t)sys_rng_range(&r, -20, 20);
      const double out_scale = rnd_log(&r, 0.003, 0.1);
      const int32_t out_zp = (int32_t)sys_rng_range(&r, -128, 0);
      CHECK(tsr_lut_populate(fn, (float)in_scale, in_zp, (float)out_scale, out_zp, lut) == 0 &&
                tsr_golden_lut(fn, in_scale, in_zp, out_scale, out_zp, gold_lut) == 0,
            "%s: lut", what);
      CHECK(put(e, LUT_ADDR, lut, sizeof lut) == 0, "%s: put", what);
      memcpy(before + LUT_ADDR, lut, sizeof lut);
      tsr_golden_map(gold_lut, n, x, y);
      st = tsr_sfu_run_lut(&e->dev, LUT_ADDR, rows, len, IN_ADDR, OUT_ADDR);
      break;
    }
    case TSR_FUNC_REDUCE:
      tsr_golden_reduce(rows, len, x, y32);
      st = tsr_sfu_run_reduce(&e->dev, rows, len, IN_ADDR, OUT_ADDR);
      break;
    case TSR_FUNC_SOFTMAX: {
      tsr_softmax_params_t p, gp;
      const double beta = rnd_log(&r, 0.1, 4.0);
      const double in_scale = rnd_log(&r, 0.01, 0.5);
      CHECK(tsr_softmax_prepare(beta, in_scale, &p) == 0 &&
                tsr_golden_softmax_params(beta, in_scale, &gp) == 0,
            "%s: prepare", what);
      CHECK(put(e, PARAM_ADDR, &p, sizeof p) == 0, "%s: put", what);
      memcpy(before + PARAM_ADDR, &p, sizeof p);
      CHECK(tsr_golden_softmax(rows, len, x, &gp, y) == 0, "%s: golden", what);
      st = tsr_sfu_run_softmax(&e->dev, rows, len, IN_ADDR, PARAM_ADDR, OUT_ADDR);
      break;
    }
    case TSR_FUNC_LAYERNORM: {
      tsr_layernorm_params_t p, gp;
      const double in_scale = rnd_log(&r, 0.005, 0.2), g_scale = rnd_log(&r, 0.002, 0.05);
      const double eps = rnd_log(&r, 1e-6, 1e-2);
      const int32_t g_zp = (int32_t)sys_rng_range(&r, -10, 10);
      const double out_scale = rnd_log(&r, 0.01, 0.1);
      const int32_t out_zp = (int32_t)sys_rng_range(&r, -20, 20);
      CHECK(tsr_layernorm_prepare(len, in_scale, eps, g_zp, g_scale, out_scale, out_zp, &p) == 0 &&
                tsr_golden_layernorm_params(len, in_scale, eps, g_zp, g_scale, out_scale, out_zp,
                                            &gp) == 0,
            "%s: prepare", what);
      int32_t *beta = (int32_t *)malloc(len * sizeof *beta);
      int32_t *gold_beta = (int32_t *)malloc(len * sizeof *gold_beta);
      float *beta_f = (float *)malloc(len * sizeof *beta_f);
      CHECK(beta != NULL && gold_beta != NULL && beta_f != NULL, "%s: malloc", what);
      for (uint32_t j = 0; j < len; j++) {
        beta_f[j] = (float)sys_rng_range(&r, -2000, 2000) / 1000.0f;
      }
      CHECK(tsr_layernorm_quantize_beta(len, beta_f, g_scale, beta) == 0 &&
                tsr_golden_layernorm_beta(len, beta_f, g_scale, gold_beta) == 0,
            "%s: beta", what);
      CHECK(put(e, PARAM_ADDR, &p, sizeof p) == 0 && put(e, BETA_ADDR, beta, len * 4u) == 0,
            "%s: put", what);
      memcpy(before + PARAM_ADDR, &p, sizeof p);
      memcpy(before + BETA_ADDR, beta, len * 4u);
      CHECK(tsr_golden_layernorm(rows, len, x, x2, gold_beta, &gp, y) == 0, "%s: golden", what);
      st = tsr_sfu_run_layernorm(&e->dev, rows, len, IN_ADDR, IN2_ADDR, BETA_ADDR, PARAM_ADDR,
                                 OUT_ADDR);
      free(beta);
      free(gold_beta);
      free(beta_f);
      break;
    }
    case TSR_FUNC_MUL: {
      /* Output scales from half the product of the input scales (a multiplier above one: a
       * left shift) to 512 times it. */
      tsr_mul_params_t p, gp;
      const double s1 = rnd_log(&r, 0.005, 0.2);
      const int32_t z1 = (int32_t)sys_rng_range(&r, -128, 127);
      const double s2 = rnd_log(&r, 0.005, 0.2);
      const int32_t z2 = (int32_t)sys_rng_range(&r, -128, 127);
      const double so = s1 * s2 * rnd_log(&r, 0.5, 512.0);
      const int32_t zo = (int32_t)sys_rng_range(&r, -128, 127);
      CHECK(tsr_mul_prepare((float)s1, z1, (float)s2, z2, (float)so, zo, &p) == 0 &&
                tsr_golden_mul_params(s1, z1, s2, z2, so, zo, &gp) == 0,
            "%s: prepare", what);
      p.act_min = gp.act_min = (int32_t)sys_rng_range(&r, -128, 0);
      p.act_max = gp.act_max = (int32_t)sys_rng_range(&r, 0, 127);
      CHECK(put(e, PARAM_ADDR, &p, sizeof p) == 0, "%s: put", what);
      memcpy(before + PARAM_ADDR, &p, sizeof p);
      CHECK(tsr_golden_sfu_mul(n, x, x2, &gp, y) == 0, "%s: golden", what);
      st = tsr_sfu_run_mul(&e->dev, rows, len, IN_ADDR, IN2_ADDR, PARAM_ADDR, OUT_ADDR);
      break;
    }
    default: {
      tsr_add_params_t p, gp;
      const double s1 = rnd_log(&r, 0.005, 0.2);
      const int32_t z1 = (int32_t)sys_rng_range(&r, -128, 127);
      const double s2 = rnd_log(&r, 0.005, 0.2);
      const int32_t z2 = (int32_t)sys_rng_range(&r, -128, 127);
      const double so = rnd_log(&r, 0.005, 0.4);
      const int32_t zo = (int32_t)sys_rng_range(&r, -128, 127);
      CHECK(tsr_add_prepare(s1, z1, s2, z2, so, zo, &p) == 0 &&
                tsr_golden_add_params(s1, z1, s2, z2, so, zo, &gp) == 0,
            "%s: prepare", what);
      CHECK(put(e, PARAM_ADDR, &p, sizeof p) == 0, "%s: put", what);
      memcpy(before + PARAM_ADDR, &p, sizeof p);
      CHECK(tsr_golden_add(n, x, x2, &gp, y) == 0, "%s: golden", what);
      st = tsr_sfu_run_add(&e->dev, rows, len, IN_ADDR, IN2_ADDR, PARAM_ADDR, OUT_ADDR);
      break;
    }
  }
  CHECK(st == TSR_OK, "%s: run: %s", what, tsr_dev_error(&e->dev));
  CHECK(tsr_counters_read(&e->dev, &cnt) == TSR_OK, "%s: counters", what);
  g_stats[func].elems += n;
  g_stats[func].cycles += cnt.busy;
  int rc = (func == TSR_FUNC_REDUCE) ? check_memory(e, before, y32, n / len * 3u * 4u, what)
                                     : check_memory(e, before, y, n, what);
  free(y);
  free(y32);
  free(before);
  return rc;
}

/* Read n bytes at addr and compare them with want. */
static int check_region(sys_env_t *e, uint32_t addr, const int8_t *want, size_t n,
                        const char *what) {
  int8_t *got = malloc(n);
  CHECK(got != NULL, "%s: malloc", what);
  const int ok = tsr_hal_mem_read(&e->hal, addr, got, n) == TSR_OK;
  size_t i = 0;
  while (ok && i < n && got[i] == (int8_t)(want[i] ^ (g_break && i == n - 1u))) {
    i++;
  }
  free(got);
  CHECK(ok, "%s: read", what);
  CHECK(i == n, "%s: byte %zu differs from the golden model", what, i);
  return 0;
}

typedef struct job_cost {
  uint64_t cycles, bytes;
} job_cost_t;

static job_cost_t g_fused, g_unfused;

/*
 * A GEMM with a fused table (GEMM -> bias -> requantize -> LUT -> memory in
 * one STORE pass) against the unfused sequence: the same GEMM to an int8
 * intermediate, then a MAP over it. Both must equal the golden model, and the
 * fused job must move at least 2 m n fewer DMA bytes (the intermediate is
 * neither written nor read back).
 */
static int fused_case(sys_env_t *e, uint32_t seed) {
  sys_rng_t r;
  sys_rng_seed(&r, seed, 11u);
  const uint32_t m = (uint32_t)sys_rng_range(&r, 1, 64), k = (uint32_t)sys_rng_range(&r, 1, 80),
                 n = (uint32_t)sys_rng_range(&r, 1, 40);
  char what[128];
  snprintf(what, sizeof what, "fused GEMM seed %u m %u k %u n %u", seed, m, k, n);
  uint8_t *before = fresh_memory(e, &r);
  CHECK(before != NULL, "%s: memory", what);
  const int8_t *a = (const int8_t *)before + IN_ADDR, *b = (const int8_t *)before + IN2_ADDR;
  int32_t bias[40];
  int8_t lut[256], gold_lut[256];
  for (uint32_t j = 0; j < n; j++) {
    bias[j] = (int32_t)sys_rng_range(&r, -5000, 5000);
  }
  /* The chip's table from the preparation, the golden model's from its own derivation. */
  const double in_scale = rnd_log(&r, 0.01, 0.1), out_scale = rnd_log(&r, 0.005, 0.05);
  const int32_t out_zp = (int32_t)sys_rng_range(&r, -20, 0);
  CHECK(tsr_lut_populate(TSR_LUT_GELU, (float)in_scale, 0, (float)out_scale, out_zp, lut) == 0 &&
            tsr_golden_lut(TSR_LUT_GELU, in_scale, 0, out_scale, out_zp, gold_lut) == 0 &&
            put(e, BETA_ADDR, bias, n * 4u) == 0 && put(e, LUT_ADDR, lut, sizeof lut) == 0,
        "%s: put", what);
  tsr_gemm_desc_t d = {.m = m, .k = k, .n = n, .a_addr = IN_ADDR, .lda = k,
                       .b_addr = IN2_ADDR, .ldb = n, .c_addr = OUT_ADDR, .ldc = n,
                       .has_bias = true, .bias_addr = BETA_ADDR, .requant = true,
                       .mult = 1 << 30, .shift = (int32_t)sys_rng_range(&r, -9, -5),
                       .out_zp = 0, .act_min = -128, .act_max = 127,
                       .has_lut = true, .lut_addr = LUT_ADDR};
  tsr_gemm_params_t gp = {.bias = bias, .requant = 1, .mult_scalar = d.mult,
                          .shift_scalar = d.shift, .act_min = -128, .act_max = 127};
  int8_t *plain = malloc((size_t)m * n), *want = malloc((size_t)m * n);
  CHECK(plain != NULL && want != NULL, "%s: malloc", what);
  CHECK(tsr_golden_gemm(m, k, n, a, k, b, n, &gp, NULL, plain) == 0, "%s: golden", what);
  gp.lut = gold_lut;
  CHECK(tsr_golden_gemm(m, k, n, a, k, b, n, &gp, NULL, want) == 0, "%s: golden", what);
  free(before);

  tsr_gemm_plan_t plan;
  tsr_counters_t cnt;
  CHECK(tsr_counters_clear(&e->dev) == TSR_OK && tsr_gemm_plan(&e->dev.info, &d, &plan) == TSR_OK &&
            tsr_gemm_run(&e->dev, &d, &plan, NULL, NULL) == TSR_OK &&
            tsr_counters_read(&e->dev, &cnt) == TSR_OK,
        "%s: fused run: %s", what, tsr_dev_error(&e->dev));
  const job_cost_t fused = {cnt.cycles, cnt.dma_rd + cnt.dma_wr};
  const uint64_t fused_wr = cnt.dma_wr;
  CHECK(check_region(e, OUT_ADDR, want, (size_t)m * n, what) == 0, "%s: fused output", what);

  d.has_lut = false;
  d.c_addr = MID_ADDR;
  CHECK(tsr_counters_clear(&e->dev) == TSR_OK && tsr_gemm_plan(&e->dev.info, &d, &plan) == TSR_OK &&
            tsr_gemm_run(&e->dev, &d, &plan, NULL, NULL) == TSR_OK &&
            tsr_sfu_run_lut(&e->dev, LUT_ADDR, m, n, MID_ADDR, OUT2_ADDR) == TSR_OK &&
            tsr_counters_read(&e->dev, &cnt) == TSR_OK,
        "%s: unfused run: %s", what, tsr_dev_error(&e->dev));
  const job_cost_t unfused = {cnt.cycles, cnt.dma_rd + cnt.dma_wr};
  const uint64_t unfused_wr = cnt.dma_wr;
  CHECK(check_region(e, MID_ADDR, plain, (size_t)m * n, what) == 0, "%s: GEMM output", what);
  CHECK(check_region(e, OUT2_ADDR, want, (size_t)m * n, what) == 0, "%s: MAP output", what);
  free(plain);
  free(want);
  /* Fused, only the output is written; unfused, the intermediate too (and read back). The
   * written bytes are exact (strobed); the read bytes depend on the tiling, which the
   * table's room in the scratchpad can change, so they are not compared. */
  CHECK(fused_wr == (uint64_t)m * n && unfused_wr == 2u * (uint64_t)m * n,
        "%s: fused wrote %" PRIu64 " bytes, unfused %" PRIu64 " (want %u and %u): the intermediate "
        "was not saved",
        what, fused_wr, unfused_wr, m * n, 2u * m * n);
  g_fused.cycles += fused.cycles;
  g_fused.bytes += fused.bytes;
  g_unfused.cycles += unfused.cycles;
  g_unfused.bytes += unfused.bytes;
  return 0;
}

/* A raw SFU command that must stop the engine with `code`, then a soft reset. */
static int expect_error(sys_env_t *e, const uint32_t w[TSR_CMD_WORDS], uint32_t code,
                        const char *what) {
  uint32_t status = 0, got = 0;
  CHECK(sys_soft_reset(e) == TSR_OK, "%s: soft reset", what);
  CHECK(sys_push_raw(e, w) == TSR_OK, "%s: push", what);
  CHECK(sys_wait_stopped(e, SYS_POLL_LIMIT, &status) == TSR_OK, "%s: the chip hangs", what);
  CHECK(sys_rd(e, TSR_ERR_CODE_REG_OFFSET, &got) == TSR_OK, "%s: read", what);
  CHECK(got == code, "%s: ERR_CODE %u, expected %u", what, got, code);
  CHECK(sys_soft_reset(e) == TSR_OK, "%s: soft reset after", what);
  return 0;
}

static int error_cases(sys_env_t *e) {
  /* One block bad for all four: softmax left shift (word 1), layer-norm
   * out_shift (word 4), ADD input1_shift (word 2) and MUL out_shift (word 3) are 40. */
  static const int32_t bad[11] = {0, 40, 40, 40, 40, 40, 0, 40, 0, 0, 0};
  uint32_t w[TSR_CMD_WORDS];
  tsr_cmd_t c;
  tsr_load_args_t ld = {TSR_LOAD_ACC, PARAM_ADDR, 44u, 1u, 44u, 0u};
  CHECK(sys_soft_reset(e) == TSR_OK, "soft reset");
  CHECK(put(e, PARAM_ADDR, bad, sizeof bad) == 0, "put");
  CHECK(tsr_cmd_load(&e->dev, 0u, &ld, &c) == TSR_OK && tsr_submit(&e->dev, &c) == TSR_OK,
        "param load: %s", tsr_dev_error(&e->dev));
  CHECK(tsr_wait(&e->dev, TSR_WAIT_POLL, SYS_POLL_LIMIT) == TSR_OK, "param load wait");
  static const unsigned funcs[4] = {TSR_FUNC_SOFTMAX, TSR_FUNC_LAYERNORM, TSR_FUNC_ADD,
                                    TSR_FUNC_MUL};
  for (unsigned i = 0; i < 4; i++) {
    uint32_t status = 0, got = 0;
    memset(w, 0, sizeof w);
    w[0] = TSR_OP_SFU | TSR_CMD_PUT(TSR_CMD_SFU_W0_FUNC, funcs[i]);
    w[3] = TSR_CMD_PUT(TSR_CMD_SFU_W3_ROWS, 1u) | TSR_CMD_PUT(TSR_CMD_SFU_W3_LEN, 8u);
    CHECK(sys_push_raw(e, w) == TSR_OK, "push");
    CHECK(sys_wait_stopped(e, SYS_POLL_LIMIT, &status) == TSR_OK, "func %u hangs", funcs[i]);
    CHECK(sys_rd(e, TSR_ERR_CODE_REG_OFFSET, &got) == TSR_OK, "read");
    CHECK(got == TSR_ERR_PARAM, "func %u with bad parameters: ERR_CODE %u", funcs[i], got);
    CHECK(sys_soft_reset(e) == TSR_OK, "soft reset");
  }
  memset(w, 0, sizeof w);
  w[0] = TSR_OP_SFU | TSR_CMD_PUT(TSR_CMD_SFU_W0_FUNC, TSR_FUNC_COUNT);
  w[3] = TSR_CMD_PUT(TSR_CMD_SFU_W3_ROWS, 1u) | TSR_CMD_PUT(TSR_CMD_SFU_W3_LEN, 8u);
  if (expect_error(e, w, TSR_ERR_OPCODE, "FUNC past the last function") != 0) {
    return -1;
  }
  w[0] = TSR_OP_SFU | TSR_CMD_PUT(TSR_CMD_SFU_W0_FUNC, TSR_FUNC_MAP);
  w[3] = TSR_CMD_PUT(TSR_CMD_SFU_W3_ROWS, 0u) | TSR_CMD_PUT(TSR_CMD_SFU_W3_LEN, 8u);
  if (expect_error(e, w, TSR_ERR_DIM, "ROWS 0") != 0) {
    return -1;
  }
  w[3] = TSR_CMD_PUT(TSR_CMD_SFU_W3_ROWS, 1u) | TSR_CMD_PUT(TSR_CMD_SFU_W3_LEN, 8u);
  w[1] = e->dev.info.spad_rows;
  if (expect_error(e, w, TSR_ERR_SPAD_RANGE, "SRC past the scratchpad") != 0) {
    return -1;
  }
  w[0] = TSR_OP_SFU | TSR_CMD_PUT(TSR_CMD_SFU_W0_FUNC, TSR_FUNC_REDUCE);
  w[1] = 0u;
  w[2] = e->dev.info.acc_rows;
  if (expect_error(e, w, TSR_ERR_ACC_RANGE, "REDUCE DST past the accumulator") != 0) {
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  uint32_t dim = 0, seed = 0, count = 8;
  int pass_argc = 1;
  char *pass_argv[8] = {argv[0]};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--break") == 0) {
      g_break = 1;
    } else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) {
      count = (uint32_t)strtoul(argv[++i], NULL, 0);
    } else if (pass_argc < 7) {
      pass_argv[pass_argc++] = argv[i];
    }
  }
  if (sys_parse_dim_seed("test_sys_sfu", pass_argc, pass_argv, &dim, &seed) != 0) {
    return 2;
  }
  sys_env_t e;
  char err[256];
  tsr_sim_cfg_t cfg;
  sys_sim_cfg_default(&cfg);
  cfg.stall_pct = 20;
  cfg.seed = seed;
  if (sys_open(&e, dim, &cfg, err, sizeof err) != TSR_OK) {
    fprintf(stderr, "test_sys_sfu: %s\n", err);
    return 1;
  }
  static const char *names[TSR_FUNC_COUNT] = {"", "map", "reduce", "softmax", "layernorm", "add",
                                              "mul"};
  for (uint32_t i = 0; i < count; i++) {
    for (unsigned f = TSR_FUNC_MAP; f < TSR_FUNC_COUNT; f++) {
      (void)run_case(&e, seed + i * 16u + f, f);
    }
    (void)fused_case(&e, seed + i * 16u + 8u);
  }
  (void)error_cases(&e);
  for (unsigned f = TSR_FUNC_MAP; f < TSR_FUNC_COUNT; f++) {
    printf("test_sys_sfu: N=%u %-9s %6" PRIu64 " elements, %.1f busy cycles per element\n", dim,
           names[f], g_stats[f].elems,
           g_stats[f].elems ? (double)g_stats[f].cycles / (double)g_stats[f].elems : 0.0);
  }
  printf("test_sys_sfu: N=%u fused GEMM+LUT %" PRIu64 " cycles, %" PRIu64
         " DMA bytes; GEMM then MAP %" PRIu64 " cycles, %" PRIu64 " DMA bytes\n",
         dim, g_fused.cycles, g_fused.bytes, g_unfused.cycles, g_unfused.bytes);
  sys_close(&e);
  if (g_fail != 0) {
    printf("test_sys_sfu: N=%u FAILED (%u checks)\n", dim, g_fail);
    return 1;
  }
  printf("test_sys_sfu: N=%u PASSED: %u cases of each function and of fused GEMM+LUT bit-exact, "
         "error paths\n", dim, count);
  return 0;
}
