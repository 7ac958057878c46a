/* test_sfu_fw.c: SFU job planner invariants, and the SFU runners run on the functional chip model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tsr_driver.h"
#include "tsr_fw.h"
#include "tsr_sfu.h"

#include "fake_chip.h"

/*
 * The runners' results are compared with the golden model applied to the
 * whole tensor on the host, so a block or chunk the firmware cuts wrongly,
 * a STORE to the wrong place, or a missing token (under the overlapping
 * schedules of fake_chip.c) shows up as a wrong byte. Bytes outside the
 * output keep their canary value.
 */

static uint32_t g_seed = 1;
static uint32_t g_rng;

static uint32_t rnd(void) {
  uint32_t x = g_rng;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  g_rng = x;
  return x;
}

static uint32_t rnd_in(uint32_t lo, uint32_t hi) { return lo + rnd() % (hi - lo + 1); }

static uint32_t align64(uint32_t x) { return (x + 63u) & ~63u; }

static uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

static const char *func_name(uint32_t f) {
  static const char *const names[] = {"LUT_LOAD", "MAP",  "REDUCE", "SOFTMAX",
                                      "LAYERNORM", "ADD", "MUL"};
  return f < sizeof names / sizeof names[0] ? names[f] : "?";
}

static tsr_dev_info_t info_of(uint32_t dim, uint32_t spad, uint32_t acc) {
  tsr_dev_info_t i = {.id = 0x54530100u, .version = 0x100, .dim = dim, .axi_bytes = 8,
                      .cmdq_depth = 16, .spad_rows = spad, .acc_rows = acc,
                      .has_sfu = true, .store_lanes = dim};
  return i;
}

/* ---- Jobs ------------------------------------------------------------------------------------------ */

typedef struct job {
  tsr_sfu_desc_t d;
  int8_t *in, *in2; /* in2: B (ADD) or gamma (LAYERNORM) */
  int32_t *beta;
  int32_t param[11];
  int8_t lut[256];
  bool in_place; /* out == in */
} job_t;

static size_t out_bytes(const tsr_sfu_desc_t *d) {
  return d->func == TSR_FUNC_REDUCE ? (size_t)d->rows * 12u : (size_t)d->rows * d->len;
}

/* Random parameters the hardware accepts, from the host preparation code. */
static void make_params(job_t *j) {
  const tsr_sfu_desc_t *d = &j->d;
  memset(j->param, 0, sizeof j->param);
  if (d->func == TSR_FUNC_SOFTMAX) {
    tsr_softmax_params_t p;
    assert_int_equal(tsr_softmax_prepare(1.0, 0.02 + 0.01 * rnd_in(0, 20), &p), 0);
    memcpy(j->param, &p, sizeof p);
  } else if (d->func == TSR_FUNC_LAYERNORM) {
    tsr_layernorm_params_t p;
    assert_int_equal(tsr_layernorm_prepare(d->len, 0.05, 1e-5, (int32_t)rnd_in(0, 20) - 10,
                                           0.01, 0.02 + 0.001 * rnd_in(0, 20),
                                           (int32_t)rnd_in(0, 40) - 20, &p),
                     0);
    memcpy(j->param, &p, sizeof p);
  } else if (d->func == TSR_FUNC_ADD) {
    tsr_add_params_t p;
    assert_int_equal(tsr_add_prepare(0.05 + 0.01 * rnd_in(0, 9), (int32_t)rnd_in(0, 20) - 10,
                                     0.05 + 0.01 * rnd_in(0, 9), (int32_t)rnd_in(0, 20) - 10,
                                     0.1, (int32_t)rnd_in(0, 20) - 10, &p),
                     0);
    memcpy(j->param, &p, sizeof p);
  } else if (d->func == TSR_FUNC_MUL) {
    tsr_mul_params_t p;
    assert_int_equal(tsr_mul_prepare(0.05f + 0.01f * (float)rnd_in(0, 9), (int32_t)rnd_in(0, 20) - 10,
                                     0.05f + 0.01f * (float)rnd_in(0, 9), (int32_t)rnd_in(0, 20) - 10,
                                     0.02f, (int32_t)rnd_in(0, 20) - 10, &p),
                     0);
    memcpy(j->param, &p, sizeof p);
  }
}

/* Build a random job at odd addresses in the chip's DRAM behind canary bytes. */
static bool job_make(job_t *j, uint32_t func, uint32_t rows, uint32_t len, bool has_lut,
                     bool in_place) {
  memset(j, 0, sizeof *j);
  tsr_sfu_desc_t *d = &j->d;
  d->func = func;
  d->rows = rows;
  d->len = len;
  d->has_lut = has_lut;
  j->in_place = in_place && func != TSR_FUNC_REDUCE;
  const size_t n = (size_t)rows * len;
  uint32_t p = 64 + rnd_in(0, 7);
  d->in_addr = p;
  p = align64(p + (uint32_t)n) + rnd_in(0, 7);
  d->in2_addr = p;
  p = align64(p + (uint32_t)n) + rnd_in(0, 7);
  d->beta_addr = p;
  p = align64(p + 4u * len) + rnd_in(0, 7);
  d->param_addr = p;
  p = align64(p + 44u) + rnd_in(0, 7);
  d->lut_addr = p;
  p = align64(p + 256u) + rnd_in(0, 7);
  d->out_addr = j->in_place ? d->in_addr : p;
  p = align64(p + (uint32_t)out_bytes(d)) + 64;
  if (p > g_chip.dram_size) {
    return false;
  }
  j->in = malloc(n);
  j->in2 = malloc(n);
  j->beta = malloc(4u * len);
  assert_true(j->in && j->in2 && j->beta);
  for (size_t i = 0; i < n; i++) {
    j->in[i] = (int8_t)rnd();
    j->in2[i] = (int8_t)rnd();
  }
  if (rnd() % 4 == 0) { /* nearly constant rows: softmax sums, layer-norm epsilon */
    for (size_t i = 0; i < n; i++) {
      j->in[i] = (int8_t)(100 + (int)(rnd() % 2));
    }
  }
  for (uint32_t i = 0; i < len; i++) {
    j->beta[i] = (int32_t)(rnd() % 200001u) - 100000;
  }
  for (uint32_t i = 0; i < 256; i++) {
    j->lut[i] = (int8_t)rnd();
  }
  make_params(j);
  memset(g_chip.dram, 0xa5, g_chip.dram_size);
  memcpy(g_chip.dram + d->in_addr, j->in, n);
  memcpy(g_chip.dram + d->in2_addr, j->in2, tsr_sfu_two_tensors(func) ? n : len);
  memcpy(g_chip.dram + d->beta_addr, j->beta, 4u * len);
  memcpy(g_chip.dram + d->param_addr, j->param, sizeof j->param);
  memcpy(g_chip.dram + d->lut_addr, j->lut, 256);
  /* MAP without a table of its own uses the one the chip holds. */
  if (!has_lut) {
    memcpy(g_chip.lut, j->lut, 256);
  }
  return true;
}

static void job_free(job_t *j) {
  free(j->in);
  free(j->in2);
  free(j->beta);
  memset(j, 0, sizeof *j);
}

/* The golden result of the whole job: int8 [rows][len] or int32 [rows][3] as bytes. */
static uint8_t *golden(const job_t *j) {
  const tsr_sfu_desc_t *d = &j->d;
  const size_t n = (size_t)d->rows * d->len;
  uint8_t *g = malloc(out_bytes(d));
  assert_non_null(g);
  int rc = 0;
  switch (d->func) {
    case TSR_FUNC_MAP:
      tsr_golden_map(j->lut, n, j->in, (int8_t *)g);
      break;
    case TSR_FUNC_REDUCE: {
      int32_t *r = malloc(12u * d->rows);
      assert_non_null(r);
      tsr_golden_reduce(d->rows, d->len, j->in, r);
      memcpy(g, r, 12u * d->rows); /* the host is little-endian like the chip */
      free(r);
      break;
    }
    case TSR_FUNC_SOFTMAX: {
      tsr_softmax_params_t p;
      memcpy(&p, j->param, sizeof p);
      rc = tsr_golden_softmax(d->rows, d->len, j->in, &p, (int8_t *)g);
      break;
    }
    case TSR_FUNC_LAYERNORM: {
      tsr_layernorm_params_t p;
      memcpy(&p, j->param, sizeof p);
      rc = tsr_golden_layernorm(d->rows, d->len, j->in, j->in2, j->beta, &p, (int8_t *)g);
      break;
    }
    case TSR_FUNC_MUL: {
      tsr_mul_params_t p;
      memcpy(&p, j->param, sizeof p);
      rc = tsr_golden_sfu_mul(n, j->in, j->in2, &p, (int8_t *)g);
      break;
    }
    default: {
      tsr_add_params_t p;
      memcpy(&p, j->param, sizeof p);
      rc = tsr_golden_add(n, j->in, j->in2, &p, (int8_t *)g);
      break;
    }
  }
  assert_int_equal(rc, 0);
  return g;
}

/* Compare the chip's output with the golden model; nothing else in DRAM may change. */
static bool job_check(const job_t *j, char *why, size_t whylen) {
  const tsr_sfu_desc_t *d = &j->d;
  uint8_t *g = golden(j);
  const size_t ob = out_bytes(d);
  bool ok = true;
  for (size_t i = 0; i < ob && ok; i++) {
    if (g_chip.dram[d->out_addr + i] != g[i]) {
      size_t row_bytes = d->func == TSR_FUNC_REDUCE ? 12u : d->len;
      snprintf(why, whylen, "%s output byte %zu (row %zu, byte %zu) = %d, golden %d",
               func_name(d->func), i, i / row_bytes, i % row_bytes, g_chip.dram[d->out_addr + i],
               g[i]);
      ok = false;
    }
  }
  /* Outside the output: canary bytes, or the inputs as written. */
  const uint32_t inputs_end = d->lut_addr + 256u;
  for (uint32_t a = 0; a < g_chip.dram_size && ok; a++) {
    bool in_out = a >= d->out_addr && a < d->out_addr + ob;
    bool in_inputs = a >= d->in_addr && a < inputs_end;
    if (!in_out && !in_inputs && g_chip.dram[a] != 0xa5) {
      snprintf(why, whylen, "byte %u outside the output changed", a);
      ok = false;
    }
  }
  /* The inputs themselves are never written (unless in place). */
  if (ok && !j->in_place && memcmp(g_chip.dram + d->in_addr, j->in, (size_t)d->rows * d->len)) {
    snprintf(why, whylen, "the input tensor changed");
    ok = false;
  }
  free(g);
  return ok;
}

/* ---- Plan invariants ------------------------------------------------------------------------------ */

static void check_plan(const tsr_dev_info_t *in, const tsr_sfu_desc_t *d, const tsr_sfu_plan_t *p) {
  const uint32_t N = in->dim;
  const uint32_t c = cdiv(d->len, N);
  const bool two = tsr_sfu_two_tensors(d->func), ln = d->func == TSR_FUNC_LAYERNORM,
             red = d->func == TSR_FUNC_REDUCE;
  assert_int_equal(p->dim, N);
  assert_int_equal(p->chunks, c);
  assert_true(p->block_rows >= 1 && p->block_rows <= 0xffff && p->block_rows <= d->rows);
  assert_int_equal(p->blocks, cdiv(d->rows, p->block_rows));
  assert_true((uint64_t)(p->blocks - 1) * p->block_rows < d->rows);
  assert_true(p->bufs == 1 || p->bufs == 2);
  assert_true(p->bufs == 1 || p->blocks > 1); /* a second buffer only when there is a second block */
  /* Scratchpad and accumulator regions: disjoint and inside the memories. */
  uint64_t sp[7][2], ac[5][2];
  unsigned ns = 0, na = 0;
  for (uint32_t b = 0; b < p->bufs; b++) {
    sp[ns][0] = p->a_base[b];
    sp[ns++][1] = (uint64_t)p->a_base[b] + (uint64_t)c * p->block_rows;
    if (two) {
      sp[ns][0] = p->b_base[b];
      sp[ns++][1] = (uint64_t)p->b_base[b] + (uint64_t)c * p->block_rows;
    }
    if (red) {
      ac[na][0] = p->red_base[b];
      ac[na++][1] = (uint64_t)p->red_base[b] + p->block_rows;
    }
  }
  if (ln) {
    sp[ns][0] = p->gamma_row;
    sp[ns++][1] = (uint64_t)p->gamma_row + c;
    ac[na][0] = p->beta_row;
    ac[na++][1] = (uint64_t)p->beta_row + c;
  }
  if (d->has_lut) {
    sp[ns][0] = p->lut_row;
    sp[ns++][1] = (uint64_t)p->lut_row + cdiv(256, N);
  }
  if (d->func == TSR_FUNC_SOFTMAX || ln || two) {
    uint32_t words = d->func == TSR_FUNC_SOFTMAX ? 3 : ln ? 8 : d->func == TSR_FUNC_MUL ? 7 : 11;
    ac[na][0] = p->param_row;
    ac[na++][1] = (uint64_t)p->param_row + cdiv(words, N);
  }
  for (unsigned i = 0; i < ns; i++) {
    assert_true(sp[i][1] <= in->spad_rows);
    for (unsigned q = 0; q < i; q++) {
      assert_true(sp[i][1] <= sp[q][0] || sp[q][1] <= sp[i][0]);
    }
  }
  for (unsigned i = 0; i < na; i++) {
    assert_true(ac[i][1] <= in->acc_rows);
    for (unsigned q = 0; q < i; q++) {
      assert_true(ac[i][1] <= ac[q][0] || ac[q][1] <= ac[i][0]);
    }
  }
  assert_int_equal(p->beta_loads, ln ? cdiv(4 * d->len, (0xffff / (4 * N)) * 4 * N) : 0);
  assert_true(p->dma_wr_bytes == out_bytes(d));
}

static tsr_sfu_desc_t plain_desc(uint32_t func, uint32_t rows, uint32_t len) {
  tsr_sfu_desc_t d = {.func = func, .rows = rows, .len = len, .in_addr = 0x1000,
                      .in2_addr = 0x40000000u, .beta_addr = 0x50000000u,
                      .param_addr = 0x60000000u, .lut_addr = 0x70000000u,
                      .out_addr = 0x80000000u};
  return d;
}

static const uint32_t k_funcs[] = {TSR_FUNC_MAP, TSR_FUNC_REDUCE, TSR_FUNC_SOFTMAX,
                                   TSR_FUNC_LAYERNORM, TSR_FUNC_ADD, TSR_FUNC_MUL};
#define NFUNCS (sizeof k_funcs / sizeof k_funcs[0])

static void plans_keep_the_invariants(void **state) {
  (void)state;
  const uint32_t shapes[][2] = {{1, 1},     {1, 65535}, {3, 17},  {37, 129},  {300, 5},
                                {70000, 8}, {5000, 64}, {2, 1000}, {65536, 1}, {200000, 3}};
  const tsr_dev_info_t infos[] = {info_of(4, 4096, 1024), info_of(8, 4096, 1024),
                                  info_of(16, 4096, 1024), info_of(8, 64, 16),
                                  info_of(16, 1u << 20, 1u << 16), info_of(4, 300, 40)};
  for (size_t i = 0; i < sizeof infos / sizeof infos[0]; i++) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      for (size_t f = 0; f < NFUNCS; f++) {
        for (int lut = 0; lut < (k_funcs[f] == TSR_FUNC_MAP ? 2 : 1); lut++) {
          tsr_sfu_desc_t d = plain_desc(k_funcs[f], shapes[s][0], shapes[s][1]);
          d.has_lut = lut != 0;
          tsr_sfu_plan_t p;
          const char *why = NULL;
          tsr_status_t st = tsr_sfu_plan(&infos[i], &d, &p, &why);
          if (st == TSR_UNSUPPORTED) {
            /* Only when one row really does not fit. */
            uint32_t c = cdiv(d.len, infos[i].dim);
            uint64_t spad = (uint64_t)c * (tsr_sfu_two_tensors(d.func) ? 2 : 1) +
                            (d.func == TSR_FUNC_LAYERNORM ? c : 0) + (lut ? 256 / infos[i].dim : 0);
            uint64_t acc = (d.func == TSR_FUNC_LAYERNORM ? c + 1 : 0);
            assert_true(spad > infos[i].spad_rows || acc > infos[i].acc_rows);
            assert_non_null(strstr(why, "fit"));
            continue;
          }
          if (st != TSR_OK) {
            fail_msg("%s %ux%u on N=%u: %s: %s", func_name(d.func), d.rows, d.len, infos[i].dim,
                     tsr_status_str(st), why);
          }
          check_plan(&infos[i], &d, &p);
        }
      }
    }
  }
}

static void rows_that_do_not_fit_are_reported(void **state) {
  (void)state;
  tsr_sfu_plan_t p;
  const char *why = NULL;
  /* N = 8, 16 scratchpad rows: 128 elements (16 chunk rows) fit, 129 do not. */
  tsr_dev_info_t in = info_of(8, 16, 8);
  tsr_sfu_desc_t d = plain_desc(TSR_FUNC_SOFTMAX, 5, 128);
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_OK);
  assert_int_equal(p.block_rows, 1);
  assert_int_equal(p.blocks, 5);
  d.len = 129;
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_UNSUPPORTED);
  assert_non_null(strstr(why, "one row does not fit the scratchpad"));
  /* ADD needs A and B rows: 64 elements fit, 65 do not. */
  d = plain_desc(TSR_FUNC_ADD, 5, 64);
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_OK);
  d.len = 65;
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_UNSUPPORTED);
  /* LAYERNORM keeps gamma (C rows) in the scratchpad and beta (C rows) plus
   * the parameter row in the accumulator. */
  d = plain_desc(TSR_FUNC_LAYERNORM, 5, 56); /* C = 7: 14 <= 16, 8 <= 8 */
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_OK);
  d.len = 57;                                 /* C = 8: 16 <= 16, but 9 > 8 */
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_UNSUPPORTED);
  assert_non_null(strstr(why, "accumulator"));
  in = info_of(8, 15, 64);
  d.len = 57;                                 /* 16 > 15 */
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_UNSUPPORTED);
  assert_non_null(strstr(why, "scratchpad"));
  /* The table takes 256/N rows. */
  in = info_of(8, 33, 8);
  d = plain_desc(TSR_FUNC_MAP, 5, 8);
  d.has_lut = true;
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_OK);
  assert_int_equal(p.block_rows, 1);
  in = info_of(8, 32, 8);
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_UNSUPPORTED);
  /* REDUCE needs one accumulator row per tensor row, and 3 lanes. */
  in = info_of(8, 64, 1);
  d = plain_desc(TSR_FUNC_REDUCE, 5, 8);
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_OK);
  assert_int_equal(p.block_rows, 1);
  in = info_of(8, 64, 0);
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_UNSUPPORTED);
  in = info_of(2, 64, 64);
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_UNSUPPORTED);
  /* Two buffers when the rows need more than one block and two fit. */
  in = info_of(8, 64, 64);
  d = plain_desc(TSR_FUNC_MAP, 64, 8);
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_OK);
  assert_int_equal(p.bufs, 1);
  assert_int_equal(p.blocks, 1);
  d.rows = 65;
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_OK);
  assert_int_equal(p.bufs, 2);
  assert_int_equal(p.blocks, 3);
  assert_int_equal(p.block_rows, 22);
  /* ROWS is a 16-bit field: a block never exceeds 65535 rows. */
  in = info_of(16, 1u << 20, 1u << 16);
  d.rows = 200000;
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_OK);
  assert_true(p.block_rows <= 0xffff);
}

static void bad_descriptors_are_rejected(void **state) {
  (void)state;
  tsr_dev_info_t in = info_of(8, 4096, 1024);
  tsr_sfu_plan_t p;
  const char *why = NULL;
  tsr_sfu_desc_t d = plain_desc(TSR_FUNC_ADD, 4, 4);
  assert_int_equal(tsr_sfu_check_desc(&d, &why), TSR_OK);
  tsr_sfu_desc_t b;
#define REJECT(stmt, text)                                                              \
  do {                                                                                  \
    b = d;                                                                              \
    stmt;                                                                               \
    if (tsr_sfu_plan(&in, &b, &p, &why) != TSR_BAD_ARG ||                               \
        tsr_sfu_check_desc(&b, &why) != TSR_BAD_ARG) {                                  \
      fail_msg("%s: accepted", #stmt);                                                  \
    }                                                                                   \
    if (strstr(why, text) == NULL) {                                                    \
      fail_msg("%s: reason \"%s\" lacks \"%s\"", #stmt, why, text);                     \
    }                                                                                   \
  } while (0)
  REJECT(b.func = TSR_FUNC_LUT_LOAD, "func");
  REJECT(b.func = TSR_FUNC_COUNT, "func");
  REJECT(b.rows = 0, "rows");
  REJECT(b.len = 0, "len");
  REJECT(b.len = 65536, "len");
  REJECT(b.has_lut = true, "MAP only");
  REJECT(b.in_addr = 0xfffffff1u, "32-bit");   /* 0xfffffff0 + 16 ends exactly at 2^32 */
  REJECT(b.in2_addr = 0xfffffff1u, "32-bit");
  REJECT(b.out_addr = 0xfffffff1u, "32-bit");
  REJECT(b.param_addr = 0xffffffd5u, "32-bit"); /* 44 bytes */
  REJECT((b.func = TSR_FUNC_LAYERNORM, b.beta_addr = 0xfffffff1u), "32-bit");
  REJECT((b.func = TSR_FUNC_MAP, b.has_lut = true, b.lut_addr = 0xffffff01u), "32-bit");
  REJECT((b.func = TSR_FUNC_REDUCE, b.out_addr = 0xffffffd1u), "32-bit"); /* 48 bytes */
  REJECT(b.out_addr = 0x1001, "overlaps");
  REJECT(b.out_addr = 0x40000000u - 8u, "overlaps");
  REJECT(b.out_addr = 0x60000000u - 15u, "overlaps");
  REJECT((b.func = TSR_FUNC_REDUCE, b.out_addr = 0x1000), "overlaps");
  REJECT((b.func = TSR_FUNC_LAYERNORM, b.out_addr = 0x40000000u + 3u), "overlaps"); /* gamma */
  REJECT((b.func = TSR_FUNC_LAYERNORM, b.out_addr = 0x50000000u), "overlaps");      /* beta */
  REJECT((b.func = TSR_FUNC_MAP, b.has_lut = true, b.out_addr = 0x70000000u - 4u), "overlaps");
  b = d;
  b.seg_rows = 2;
  b.in_pitch = b.in2_pitch = b.out_pitch = 8;
  assert_int_equal(tsr_sfu_check_desc(&b, &why), TSR_OK);
  d = b;
  REJECT(b.func = TSR_FUNC_SOFTMAX, "MAP, ADD and MUL only");
  REJECT(b.seg_rows = 3, "multiple of seg_rows");
  REJECT(b.in_pitch = 7, "pitch");
  REJECT(b.in2_pitch = 7, "pitch");
  REJECT(b.out_pitch = 7, "pitch");
  REJECT(b.in2_pitch = 0xc0000000u, "32-bit"); /* the second segment past 2^32 */
  REJECT(b.out_addr = 0x1000u + 8u, "overlaps");     /* the first output segment over A's second */
  REJECT((b.out_addr = 0x1000u, b.out_pitch = 16), "overlaps"); /* in place with another pitch */
#undef REJECT
  /* In place: the output may be A itself, or B for ADD, not gamma. */
  b = d;
  b.out_addr = b.in_addr;
  assert_int_equal(tsr_sfu_check_desc(&b, &why), TSR_OK);
  b.out_addr = b.in2_addr;
  assert_int_equal(tsr_sfu_check_desc(&b, &why), TSR_OK);
  /* Regions a function does not use are not looked at. */
  b = plain_desc(TSR_FUNC_MAP, 4, 4);
  b.in2_addr = b.beta_addr = b.param_addr = b.lut_addr = b.out_addr;
  assert_int_equal(tsr_sfu_check_desc(&b, &why), TSR_OK);
  assert_int_equal(tsr_sfu_check_desc(NULL, &why), TSR_BAD_ARG);
  assert_int_equal(tsr_sfu_plan(NULL, &d, &p, &why), TSR_BAD_ARG);
  assert_int_equal(tsr_sfu_plan(&in, &d, NULL, NULL), TSR_BAD_ARG);
}

static void parameter_block_sizes_match_the_golden_model(void **state) {
  (void)state;
  assert_int_equal(TSR_SFU_SOFTMAX_WORDS, TSR_SOFTMAX_PARAM_WORDS);
  assert_int_equal(TSR_SFU_LAYERNORM_WORDS, TSR_LAYERNORM_PARAM_WORDS);
  assert_int_equal(TSR_SFU_ADD_WORDS, TSR_ADD_PARAM_WORDS);
  assert_int_equal(TSR_SFU_MUL_WORDS, TSR_MUL_PARAM_WORDS);
  assert_int_equal(sizeof(tsr_mul_params_t), 4 * TSR_SFU_MUL_WORDS);
  assert_int_equal(sizeof(tsr_softmax_params_t), 4 * TSR_SFU_SOFTMAX_WORDS);
  assert_int_equal(sizeof(tsr_layernorm_params_t), 4 * TSR_SFU_LAYERNORM_WORDS);
  assert_int_equal(sizeof(tsr_add_params_t), 4 * TSR_SFU_ADD_WORDS);
}

/* ---- Execution on the fake chip ------------------------------------------------------------------- */

static tsr_dev_t g_dev;
static tsr_hal_t g_hal;

static void open_chip(void) {
  g_hal.ops = &k_chip_ops;
  g_hal.ctx = &g_chip;
  assert_int_equal(tsr_dev_open(&g_dev, &g_hal), TSR_OK);
}

/* Plan and run one job; check results, tokens and the plan's predictions. */
static bool run_job(const job_t *j, char *why, size_t whylen) {
  open_chip();
  tsr_sfu_plan_t p;
  const char *reason = "";
  tsr_status_t st = tsr_sfu_plan(&g_dev.info, &j->d, &p, &reason);
  if (st != TSR_OK) {
    snprintf(why, whylen, "plan: %s: %s", tsr_status_str(st), reason);
    return false;
  }
  check_plan(&g_dev.info, &j->d, &p);
  st = tsr_sfu_run(&g_dev, &j->d, &p);
  if (st != TSR_OK) {
    snprintf(why, whylen, "run: %s: %s%s", tsr_status_str(st), tsr_dev_error(&g_dev),
             g_chip.deadlock ? " (deadlock)" : "");
    return false;
  }
  if (!job_check(j, why, whylen)) {
    return false;
  }
  for (int t = 0; t < 4; t++) {
    if (g_chip.tokens[t] != 0) {
      snprintf(why, whylen, "token counter %d ends at %u, not 0", t, g_chip.tokens[t]);
      return false;
    }
  }
  if (g_chip.max_token > (j->d.has_lut ? 3u : 2u)) {
    snprintf(why, whylen, "a token counter reached %u", g_chip.max_token);
    return false;
  }
  uint64_t sfus = 0;
  for (int f = 0; f < (int)TSR_FUNC_COUNT; f++) {
    sfus += g_chip.n_sfu[f];
  }
  if (g_chip.cmds != p.cmds || g_chip.n_sfu[j->d.func] != p.blocks ||
      sfus != p.blocks + (j->d.has_lut ? 1u : 0u) ||
      g_chip.n_op[TSR_OP_STORE] != (j->d.seg_rows != 0u ? (uint64_t)j->d.rows / j->d.seg_rows
                                    : (uint64_t)p.blocks *
                                          (j->d.func == TSR_FUNC_REDUCE ? 1 : p.chunks))) {
    snprintf(why, whylen, "command counts differ from the plan (%llu commands, plan %llu)",
             (unsigned long long)g_chip.cmds, (unsigned long long)p.cmds);
    return false;
  }
  if (g_chip.rd_bytes != p.dma_rd_bytes || g_chip.wr_bytes != p.dma_wr_bytes) {
    snprintf(why, whylen, "DMA bytes %llu/%llu differ from the prediction %llu/%llu",
             (unsigned long long)g_chip.rd_bytes, (unsigned long long)g_chip.wr_bytes,
             (unsigned long long)p.dma_rd_bytes, (unsigned long long)p.dma_wr_bytes);
    return false;
  }
  return true;
}

static void runs_match_golden_on_fixed_shapes(void **state) {
  (void)state;
  const uint32_t shapes[][2] = {{1, 1}, {3, 17}, {37, 129}, {300, 5}, {2, 1000}, {4, 8}};
  const uint32_t dims[] = {4, 8, 16};
  char why[256];
  g_rng = g_seed;
  for (size_t di = 0; di < 3; di++) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      for (size_t f = 0; f < NFUNCS; f++) {
        for (int variant = 0; variant < 2; variant++) { /* 1: table (MAP) / in place (others) */
          chip_init(dims[di], 4096, 1024, 1u << 20, POL_SERIAL, g_seed);
          job_t j;
          bool lut = k_funcs[f] == TSR_FUNC_MAP && variant == 1;
          assert_true(job_make(&j, k_funcs[f], shapes[s][0], shapes[s][1], lut,
                               k_funcs[f] != TSR_FUNC_MAP && variant == 1));
          if (!run_job(&j, why, sizeof why)) {
            fail_msg("seed %u, N=%u, %s %ux%u variant %d: %s", g_seed, dims[di],
                     func_name(k_funcs[f]), shapes[s][0], shapes[s][1], variant, why);
          }
          job_free(&j);
        }
      }
    }
  }
  chip_free();
}

/* Small memories force many blocks and two buffers; every schedule. */
static void runs_match_golden_on_random_jobs_under_every_schedule(void **state) {
  (void)state;
  char why[256];
  g_rng = g_seed;
  for (int it = 0; it < 80; it++) {
    const uint32_t dim = 4u << rnd_in(0, 2);
    const uint32_t func = k_funcs[rnd_in(0, NFUNCS - 1)];
    const uint32_t rows = rnd_in(1, 90), len = rnd_in(1, 100);
    const bool lut = func == TSR_FUNC_MAP && rnd() % 2 == 0;
    const bool in_place = rnd() % 3 == 0;
    const uint32_t c = cdiv(len, dim);
    /* Room for 1..12 rows (times 2 for ADD and MUL), gamma, table; beta and parameters. */
    const uint32_t spad = c * (tsr_sfu_two_tensors(func) ? 2 : 1) * rnd_in(1, 12) +
                          (func == TSR_FUNC_LAYERNORM ? c : 0) + (lut ? 256 / dim : 0);
    const uint32_t acc = rnd_in(3, 20) + (func == TSR_FUNC_LAYERNORM ? c : 0);
    const uint32_t job_seed = rnd();
    for (int pol = 0; pol < POL_COUNT; pol++) {
      chip_init(dim, spad, acc, 1u << 17, (policy_t)pol, job_seed);
      uint32_t saved = g_rng;
      g_rng = job_seed | 1u;
      job_t j;
      assert_true(job_make(&j, func, rows, len, lut, in_place));
      g_rng = saved;
      if (!run_job(&j, why, sizeof why)) {
        fail_msg("seed %u it %d (%s): N=%u spad=%u acc=%u %s %ux%u lut=%d in_place=%d: %s", g_seed,
                 it, k_policy_name[pol], dim, spad, acc, func_name(func), rows, len, lut,
                 in_place, why);
      }
      job_free(&j);
    }
  }
  chip_free();
}

/* An element-wise job over segments (a bordered image's pixel rows): A, B and the output each
 * with a pitch of its own, odd addresses, blocks of whole segments in one or two buffers, under
 * every schedule. Memory afterwards is exactly the golden output in the output's segments and
 * what was there before everywhere else; the command counts are the plan's. */
static void segmented_jobs_match_golden_under_every_schedule(void **state) {
  (void)state;
  char why[256];
  g_rng = g_seed;
  const uint32_t funcs[] = {TSR_FUNC_MAP, TSR_FUNC_ADD, TSR_FUNC_MUL};
  for (int it = 0; it < 60; it++) {
    const uint32_t dim = 4u << rnd_in(0, 2);
    const uint32_t func = funcs[rnd_in(0, 2)];
    const bool two = tsr_sfu_two_tensors(func);
    const uint32_t seg_rows = rnd_in(1, 6), segs = rnd_in(1, 9);
    const uint32_t seg = seg_rows * dim, rows = seg_rows * segs;
    const bool in_place = rnd() % 3 == 0;
    /* Room for 1..4 segments per buffer, and the table. */
    const uint32_t spad = seg_rows * (two ? 2u : 1u) * rnd_in(1, 4) + 256u / dim;
    const uint32_t job_seed = rnd();
    for (int pol = 0; pol < POL_COUNT; pol++) {
      chip_init(dim, spad, 16, 1u << 17, (policy_t)pol, job_seed);
      uint32_t saved = g_rng;
      g_rng = job_seed | 1u;
      job_t j;
      assert_true(job_make(&j, func, rows, dim, func == TSR_FUNC_MAP, false));
      tsr_sfu_desc_t *d = &j.d;
      d->seg_rows = seg_rows;
      d->in_pitch = seg + rnd_in(0, 40);
      d->in2_pitch = seg + rnd_in(0, 40);
      d->out_pitch = in_place ? d->in_pitch : seg + rnd_in(0, 40);
      uint32_t a = 0x8000u + rnd_in(0, 7);
      d->in_addr = a;
      a += segs * d->in_pitch + rnd_in(0, 7);
      d->in2_addr = a;
      a += segs * d->in2_pitch + rnd_in(0, 7);
      d->out_addr = in_place ? d->in_addr : a;
      g_rng = saved;
      for (uint32_t g = 0; g < segs; g++) {
        memcpy(g_chip.dram + d->in_addr + g * d->in_pitch, j.in + g * seg, seg);
        memcpy(g_chip.dram + d->in2_addr + g * d->in2_pitch, j.in2 + g * seg, seg);
      }
      uint8_t *expect = malloc(g_chip.dram_size);
      assert_non_null(expect);
      memcpy(expect, g_chip.dram, g_chip.dram_size);
      uint8_t *gold = golden(&j);
      for (uint32_t g = 0; g < segs; g++) {
        memcpy(expect + d->out_addr + g * d->out_pitch, gold + g * seg, seg);
      }
      free(gold);
      open_chip();
      tsr_sfu_plan_t p;
      const char *reason = "";
      tsr_status_t st = tsr_sfu_plan(&g_dev.info, d, &p, &reason);
      if (st == TSR_OK) {
        check_plan(&g_dev.info, d, &p);
        assert_int_equal(p.block_rows % seg_rows, 0);
        st = tsr_sfu_run(&g_dev, d, &p);
      }
      snprintf(why, sizeof why, "%s", "");
      if (st != TSR_OK) {
        snprintf(why, sizeof why, "%s: %s %s", tsr_status_str(st), reason, tsr_dev_error(&g_dev));
      } else if (memcmp(g_chip.dram, expect, g_chip.dram_size) != 0) {
        uint32_t at = 0;
        while (g_chip.dram[at] == expect[at]) {
          at++;
        }
        snprintf(why, sizeof why, "byte 0x%x = %d, expected %d", at, g_chip.dram[at], expect[at]);
      } else if (g_chip.cmds != p.cmds || g_chip.n_op[TSR_OP_STORE] != segs ||
                 g_chip.n_sfu[func] != p.blocks) {
        snprintf(why, sizeof why, "%llu commands (plan %llu), %llu STOREs for %u segments",
                 (unsigned long long)g_chip.cmds, (unsigned long long)p.cmds,
                 (unsigned long long)g_chip.n_op[TSR_OP_STORE], segs);
      }
      free(expect);
      if (why[0] != '\0') {
        fail_msg("seed %u it %d (%s): N=%u spad=%u %s %u segments of %u rows, pitches %u/%u/%u: %s",
                 g_seed, it, k_policy_name[pol], dim, spad, func_name(func), segs, seg_rows,
                 d->in_pitch, d->in2_pitch, d->out_pitch, why);
      }
      job_free(&j);
    }
  }
  chip_free();
}

/* Reshaped to rows of N, an element-wise job keeps its bytes; segments too. */
static void flatten_keeps_the_bytes(void **state) {
  (void)state;
  tsr_sfu_desc_t d = plain_desc(TSR_FUNC_ADD, 3, 40);
  tsr_sfu_desc_flatten(&d, 8);
  assert_int_equal(d.rows, 15);
  assert_int_equal(d.len, 8);
  d = plain_desc(TSR_FUNC_MUL, 6, 12);
  d.seg_rows = 2;
  tsr_sfu_desc_flatten(&d, 8);
  assert_int_equal(d.rows, 9);
  assert_int_equal(d.seg_rows, 3);
  d = plain_desc(TSR_FUNC_MAP, 6, 12);
  d.seg_rows = 1; /* 12 bytes a segment: not whole rows of 8 */
  tsr_sfu_desc_flatten(&d, 8);
  assert_int_equal(d.rows, 6);
  assert_int_equal(d.len, 12);
  d = plain_desc(TSR_FUNC_SOFTMAX, 4, 16); /* rows matter */
  tsr_sfu_desc_flatten(&d, 8);
  assert_int_equal(d.rows, 4);
  assert_int_equal(d.len, 16);
  /* Segments need the flat form. */
  tsr_dev_info_t in = info_of(8, 4096, 1024);
  tsr_sfu_plan_t p;
  const char *why = NULL;
  d = plain_desc(TSR_FUNC_MAP, 6, 12);
  d.seg_rows = 1;
  d.in_pitch = d.out_pitch = 16;
  assert_int_equal(tsr_sfu_plan(&in, &d, &p, &why), TSR_UNSUPPORTED);
  assert_non_null(strstr(why, "rows of N"));
}

/* Long rows: beta needs more than one LOAD (COLS is 16-bit), LEN at its maximum. */
static void long_rows_split_the_beta_load(void **state) {
  (void)state;
  char why[256];
  g_rng = g_seed;
  const struct {
    uint32_t func, rows, len, dim, spad, acc;
  } cases[] = {
      {TSR_FUNC_LAYERNORM, 3, 20000, 16, 4096, 2048},
      {TSR_FUNC_LAYERNORM, 2, 65535, 16, 8192, 4200},
      {TSR_FUNC_SOFTMAX, 3, 65535, 16, 8192, 16},
      {TSR_FUNC_REDUCE, 2, 65535, 8, 8192, 16},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    chip_init(cases[i].dim, cases[i].spad, cases[i].acc, 1u << 20, POL_SERIAL, g_seed);
    job_t j;
    assert_true(job_make(&j, cases[i].func, cases[i].rows, cases[i].len, false, false));
    if (!run_job(&j, why, sizeof why)) {
      fail_msg("seed %u, %s %ux%u: %s", g_seed, func_name(cases[i].func), cases[i].rows,
               cases[i].len, why);
    }
    job_free(&j);
  }
  chip_free();
}

/* Strip one class of tokens and some schedule goes wrong (this also shows
 * that the checks above can fail). */
static void every_token_class_is_needed(void **state) {
  (void)state;
  struct {
    const char *name;
    uint32_t strip[3];
    policy_t pol;
    uint32_t func;
  } cases[] = {
      {"load->compute", {TSR_DEP_PUSH_NEXT, TSR_DEP_POP_PREV, 0}, POL_COMPUTE_FIRST, TSR_FUNC_ADD},
      {"compute->store", {0, TSR_DEP_PUSH_NEXT, TSR_DEP_POP_PREV}, POL_STORE_FIRST, TSR_FUNC_SOFTMAX},
      {"store->compute->load relay", {TSR_DEP_POP_NEXT, TSR_DEP_POP_NEXT | TSR_DEP_PUSH_PREV,
                                      TSR_DEP_PUSH_PREV}, POL_LOAD_FIRST, TSR_FUNC_MAP},
      {"compute->load (REDUCE)", {TSR_DEP_POP_NEXT, TSR_DEP_PUSH_PREV, 0}, POL_LOAD_FIRST,
       TSR_FUNC_REDUCE},
      {"store->compute (REDUCE)", {0, TSR_DEP_POP_NEXT, TSR_DEP_PUSH_PREV}, POL_COMPUTE_FIRST,
       TSR_FUNC_REDUCE},
  };
  char why[256];
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    for (int strip = 1; strip >= 0; strip--) {
      g_rng = g_seed;
      chip_init(4, 40, 8, 1u << 16, cases[c].pol, g_seed);
      if (strip) {
        memcpy(g_chip.strip, cases[c].strip, sizeof g_chip.strip);
      }
      job_t j;
      assert_true(job_make(&j, cases[c].func, 30, 10, false, false));
      bool ok = run_job(&j, why, sizeof why);
      if (strip && ok) {
        fail_msg("stripping the %s tokens went unnoticed under %s", cases[c].name,
                 k_policy_name[cases[c].pol]);
      }
      if (!strip && !ok) {
        fail_msg("seed %u, %s with tokens under %s: %s", g_seed, cases[c].name,
                 k_policy_name[cases[c].pol], why);
      }
      job_free(&j);
    }
  }
  chip_free();
}

/* The whole-operation wrappers: one call each, on one chip, results checked. */
static void whole_operation_wrappers_run_their_function(void **state) {
  (void)state;
  char why[256];
  g_rng = g_seed;
  for (size_t f = 0; f < NFUNCS + 1; f++) {
    chip_init(8, 4096, 1024, 1u << 18, POL_SERIAL, g_seed);
    open_chip();
    const uint32_t func = f < NFUNCS ? k_funcs[f] : TSR_FUNC_MAP;
    const bool lut = f == NFUNCS; /* MAP twice: with the table loaded, and with its own */
    job_t j;
    assert_true(job_make(&j, func, 7, 21, lut, false));
    if (lut) {
      memset(g_chip.lut, 0, 256); /* must come from lut_addr */
    }
    const tsr_sfu_desc_t *d = &j.d;
    tsr_status_t st;
    switch (func) {
      case TSR_FUNC_MAP:
        st = lut ? tsr_sfu_run_lut(&g_dev, d->lut_addr, d->rows, d->len, d->in_addr, d->out_addr)
                 : tsr_sfu_run_map(&g_dev, d->rows, d->len, d->in_addr, d->out_addr);
        break;
      case TSR_FUNC_REDUCE:
        st = tsr_sfu_run_reduce(&g_dev, d->rows, d->len, d->in_addr, d->out_addr);
        break;
      case TSR_FUNC_SOFTMAX:
        st = tsr_sfu_run_softmax(&g_dev, d->rows, d->len, d->in_addr, d->param_addr, d->out_addr);
        break;
      case TSR_FUNC_LAYERNORM:
        st = tsr_sfu_run_layernorm(&g_dev, d->rows, d->len, d->in_addr, d->in2_addr, d->beta_addr,
                                   d->param_addr, d->out_addr);
        break;
      case TSR_FUNC_MUL:
        st = tsr_sfu_run_mul(&g_dev, d->rows, d->len, d->in_addr, d->in2_addr, d->param_addr,
                             d->out_addr);
        break;
      default:
        st = tsr_sfu_run_add(&g_dev, d->rows, d->len, d->in_addr, d->in2_addr, d->param_addr,
                             d->out_addr);
        break;
    }
    if (st != TSR_OK) {
      fail_msg("%s%s: %s: %s", func_name(func), lut ? " (table)" : "", tsr_status_str(st),
               tsr_dev_error(&g_dev));
    }
    if (!job_check(&j, why, sizeof why)) {
      fail_msg("%s%s: %s", func_name(func), lut ? " (table)" : "", why);
    }
    job_free(&j);
  }
  /* A row that does not fit: the reason reaches the caller, nothing is submitted. */
  chip_init(8, 16, 16, 1u << 16, POL_SERIAL, g_seed);
  open_chip();
  assert_int_equal(tsr_sfu_run_softmax(&g_dev, 2, 200, 0x100, 0x1000, 0x2000), TSR_UNSUPPORTED);
  assert_non_null(strstr(tsr_dev_error(&g_dev), "does not fit"));
  assert_int_equal(g_chip.nprog, 0);
  assert_int_equal(tsr_sfu_run_map(&g_dev, 2, 0, 0x100, 0x2000), TSR_BAD_ARG);
  assert_non_null(strstr(tsr_dev_error(&g_dev), "len"));
  assert_int_equal(tsr_sfu_run_map(NULL, 2, 2, 0x100, 0x2000), TSR_BAD_ARG);
  chip_free();
}

static void engine_errors_reach_the_caller(void **state) {
  (void)state;
  g_rng = g_seed;
  chip_init(8, 4096, 1024, 1u << 16, POL_SERIAL, g_seed);
  job_t j;
  assert_true(job_make(&j, TSR_FUNC_SOFTMAX, 5, 20, false, false));
  /* left_shift 40 is outside 0..31: ERR_PARAM when the SFU reads the block. */
  int32_t bad = 40;
  memcpy(g_chip.dram + j.d.param_addr + 4, &bad, 4);
  open_chip();
  tsr_sfu_plan_t p;
  assert_int_equal(tsr_sfu_plan(&g_dev.info, &j.d, &p, NULL), TSR_OK);
  assert_int_equal(tsr_sfu_run(&g_dev, &j.d, &p), TSR_HW_ERROR);
  assert_non_null(strstr(tsr_dev_error(&g_dev), "PARAM"));
  /* A plan made for another descriptor is refused before anything is submitted. */
  open_chip();
  size_t before = g_chip.nprog;
  tsr_sfu_desc_t other = j.d;
  other.len = 40;
  assert_int_equal(tsr_sfu_run(&g_dev, &other, &p), TSR_BAD_ARG);
  assert_int_equal(g_chip.nprog, before);
  assert_non_null(strstr(tsr_dev_error(&g_dev), "plan"));
  job_free(&j);
  chip_free();
}

/* ---- GEMM with the fused table loads it once, before the first tile ------------------------------- */

static void gemm_loads_the_table_once_before_the_first_store(void **state) {
  (void)state;
  chip_init(8, 4096, 1024, 1u << 16, POL_SERIAL, g_seed);
  open_chip();
  tsr_gemm_desc_t d;
  memset(&d, 0, sizeof d);
  d.m = 20;
  d.k = 8;
  d.n = 20;
  d.a_addr = 0x100;
  d.lda = 8;
  d.b_addr = 0x400;
  d.ldb = 20;
  d.c_addr = 0x1000;
  d.ldc = 20;
  d.requant = true;
  d.mult = 1 << 30;
  d.shift = 0;
  d.act_min = -128;
  d.act_max = 127;
  d.has_lut = true;
  d.lut_addr = 0x2000;
  for (int i = 0; i < 256; i++) {
    g_chip.dram[0x2000 + i] = (uint8_t)(255 - i);
  }
  tsr_gemm_plan_t p;
  tsr_gemm_opts_t o = {.max_mt = 4};
  assert_int_equal(tsr_gemm_plan_opts(&g_dev.info, &d, &o, &p), TSR_OK);
  assert_true(p.tiles > 1);
  assert_int_equal(tsr_gemm_run(&g_dev, &d, &p, NULL, NULL), TSR_OK);
  assert_int_equal(g_chip.n_sfu[TSR_FUNC_LUT_LOAD], 1);
  /* Program: the table's LOAD, then LUT_LOAD, before any MATMUL; every STORE has LUT. */
  assert_int_equal(TSR_CMD_GET(g_chip.prog[0].w[0], TSR_CMD_W0_OPCODE), TSR_OP_LOAD);
  assert_int_equal(g_chip.prog[0].w[1], 0x2000);
  assert_int_equal(g_chip.prog[0].w[4], p.lut_base);
  assert_int_equal(TSR_CMD_GET(g_chip.prog[1].w[0], TSR_CMD_W0_OPCODE), TSR_OP_SFU);
  assert_int_equal(g_chip.prog[1].w[0] & (TSR_DEP_MASK | TSR_CMD_PUT(TSR_CMD_W0_RESERVED, TSR_CMD_W0_RESERVED_MASK)),
                   TSR_DEP_POP_PREV);
  assert_int_equal(TSR_CMD_GET(g_chip.prog[1].w[0], TSR_CMD_SFU_W0_FUNC), TSR_FUNC_LUT_LOAD);
  assert_int_equal(g_chip.prog[1].w[1], p.lut_base);
  for (size_t i = 0; i < g_chip.nprog; i++) {
    if (TSR_CMD_GET(g_chip.prog[i].w[0], TSR_CMD_W0_OPCODE) == TSR_OP_STORE) {
      assert_true(g_chip.prog[i].w[0] & (1u << TSR_STORE_LUT_BIT));
      assert_false(g_chip.prog[i].w[0] & (1u << TSR_STORE_LEAKY_BIT));
    }
  }
  /* A = B = 0: every output is 0 before the table, LUT[0] = 255 -> -1 after. */
  for (uint32_t i = 0; i < d.m * d.n; i++) {
    assert_int_equal((int8_t)g_chip.dram[d.c_addr + i], -1);
  }
  chip_free();
}

int main(int argc, char **argv) {
  const char *env = getenv("TSR_SEED");
  if (env != NULL) {
    g_seed = (uint32_t)strtoul(env, NULL, 0);
  }
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--seed") == 0) {
      g_seed = (uint32_t)strtoul(argv[i + 1], NULL, 0);
    }
  }
  if (g_seed == 0) {
    g_seed = 1;
  }
  printf("test_sfu_fw: seed %u (replay with --seed %u or TSR_SEED=%u)\n", g_seed, g_seed, g_seed);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parameter_block_sizes_match_the_golden_model),
      cmocka_unit_test(plans_keep_the_invariants),
      cmocka_unit_test(rows_that_do_not_fit_are_reported),
      cmocka_unit_test(bad_descriptors_are_rejected),
      cmocka_unit_test(runs_match_golden_on_fixed_shapes),
      cmocka_unit_test(runs_match_golden_on_random_jobs_under_every_schedule),
      cmocka_unit_test(long_rows_split_the_beta_load),
      cmocka_unit_test(segmented_jobs_match_golden_under_every_schedule),
      cmocka_unit_test(flatten_keeps_the_bytes),
      cmocka_unit_test(every_token_class_is_needed),
      cmocka_unit_test(whole_operation_wrappers_run_their_function),
      cmocka_unit_test(engine_errors_reach_the_caller),
      cmocka_unit_test(gemm_loads_the_table_once_before_the_first_store),
  };
  return cmocka_run_group_tests_name("sfu_fw", tests, NULL, NULL);
}
