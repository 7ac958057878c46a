/* test_tiler.c: GEMM planner invariants, and the executor run on a functional model of the chip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tessera_regs.h"
#include "tsr_driver.h"
#include "tsr_conv.h"
#include "tsr_fw.h"
#include "tsr_golden.h"
#include "tsr_quant.h"

#include "fake_chip.h"

/* The chip model (tests/unit/fake_chip.c) runs the firmware serially or as an
 * overlapping engine would; see fake_chip.h. */

/* ---- Random GEMM jobs --------------------------------------------------------------------------- */

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

typedef struct job {
  tsr_gemm_desc_t d;
  int8_t *a, *b;
  int32_t *bias, *mult, *shift;
  int32_t *mult_neg, *shift_neg; /* leaky */
  int8_t lut[256];
  uint32_t lda, ldb;
} job_t;

static uint32_t align64(uint32_t x) { return (x + 63u) & ~63u; }

/* Build a random job with padded strides, place it in the chip's DRAM behind
 * canary bytes; returns false if it does not fit. With `lut` and `leaky`
 * (requant only) the output goes through a random table and negative values
 * get their own multipliers. */
static bool job_make_fused(job_t *j, uint32_t m, uint32_t k, uint32_t n, bool requant,
                           bool per_channel, bool bias, bool lut, bool leaky) {
  memset(j, 0, sizeof *j);
  tsr_gemm_desc_t *d = &j->d;
  d->m = m;
  d->k = k;
  d->n = n;
  j->lda = k + rnd_in(0, 3);
  j->ldb = n + rnd_in(0, 3);
  uint32_t es = requant ? 1 : 4;
  uint32_t ldc = n * es + rnd_in(0, 5);
  uint32_t p = 64 + rnd_in(0, 7); /* deliberately odd addresses */
  d->a_addr = p;
  p = align64(p + m * j->lda) + rnd_in(0, 7);
  d->b_addr = p;
  p = align64(p + k * j->ldb) + rnd_in(0, 7);
  d->bias_addr = p;
  p = align64(p + 4 * n);
  d->mult_addr = p;
  p = align64(p + 4 * n);
  d->shift_addr = p;
  p = align64(p + 4 * n) + 3u;
  d->lut_addr = p;
  p = align64(p + 256);
  d->mult_neg_addr = p;
  p = align64(p + 4 * n);
  d->shift_neg_addr = p;
  p = align64(p + 4 * n) + rnd_in(0, 7);
  d->c_addr = p;
  p = align64(p + m * ldc) + 64;
  if (p > g_chip.dram_size) {
    return false;
  }
  d->lda = j->lda;
  d->ldb = j->ldb;
  d->ldc = ldc;
  d->has_bias = bias;
  d->requant = requant;
  d->per_channel = requant && per_channel;
  /* Scale the shift to the accumulator magnitude so outputs are not all clamped. */
  int lg = 0;
  while ((1u << lg) < k) {
    lg++;
  }
  d->mult = (int32_t)rnd_in(1u << 30, 0x7fffffffu);
  d->shift = -(int32_t)rnd_in(6, 8) - lg / 2;
  d->out_zp = (int32_t)rnd_in(0, 40) - 20;
  d->act_min = (int32_t)rnd_in(0, 100) - 128;
  d->act_max = d->act_min + (int32_t)rnd_in(0, (uint32_t)(127 - d->act_min));
  d->has_lut = requant && lut;
  d->leaky = requant && leaky;

  j->a = malloc((size_t)m * j->lda);
  j->b = malloc((size_t)k * j->ldb);
  j->bias = malloc(4u * n);
  j->mult = malloc(4u * n);
  j->shift = malloc(4u * n);
  j->mult_neg = malloc(4u * n);
  j->shift_neg = malloc(4u * n);
  assert_true(j->a && j->b && j->bias && j->mult && j->shift && j->mult_neg && j->shift_neg);
  for (size_t i = 0; i < (size_t)m * j->lda; i++) {
    j->a[i] = (int8_t)rnd();
  }
  for (size_t i = 0; i < (size_t)k * j->ldb; i++) {
    j->b[i] = (int8_t)rnd();
  }
  for (uint32_t i = 0; i < n; i++) {
    j->bias[i] = (int32_t)(rnd() % 200001u) - 100000;
    j->mult[i] = (int32_t)rnd_in(1u << 30, 0x7fffffffu);
    j->shift[i] = d->shift + (int32_t)rnd_in(0, 2) - 1;
  }
  for (uint32_t i = 0; d->leaky && i < n; i++) {
    /* A slope below one: a smaller multiplier or a larger right shift. */
    j->mult_neg[i] = (int32_t)rnd_in(1u << 30, 0x7fffffffu);
    j->shift_neg[i] = d->shift - (int32_t)rnd_in(0, 3);
  }
  for (uint32_t i = 0; d->has_lut && i < 256; i++) {
    j->lut[i] = (int8_t)rnd();
  }
  /* Canary everywhere, then the operands. */
  memset(g_chip.dram, 0xa5, g_chip.dram_size);
  memcpy(g_chip.dram + d->a_addr, j->a, (size_t)m * j->lda);
  memcpy(g_chip.dram + d->b_addr, j->b, (size_t)k * j->ldb);
  memcpy(g_chip.dram + d->bias_addr, j->bias, 4u * n);
  memcpy(g_chip.dram + d->mult_addr, j->mult, 4u * n);
  memcpy(g_chip.dram + d->shift_addr, j->shift, 4u * n);
  if (d->has_lut) {
    memcpy(g_chip.dram + d->lut_addr, j->lut, 256);
  }
  if (d->leaky) {
    memcpy(g_chip.dram + d->mult_neg_addr, j->mult_neg, 4u * n);
    memcpy(g_chip.dram + d->shift_neg_addr, j->shift_neg, 4u * n);
  }
  return true;
}

static bool job_make(job_t *j, uint32_t m, uint32_t k, uint32_t n, bool requant, bool per_channel,
                     bool bias) {
  return job_make_fused(j, m, k, n, requant, per_channel, bias, false, false);
}

static void job_free(job_t *j) {
  free(j->a);
  free(j->b);
  free(j->bias);
  free(j->mult);
  free(j->shift);
  free(j->mult_neg);
  free(j->shift_neg);
  memset(j, 0, sizeof *j);
}

/* Compare the chip's C with the golden model and check nothing else in DRAM changed. */
static bool job_check(const job_t *j, char *why, size_t whylen) {
  const tsr_gemm_desc_t *d = &j->d;
  tsr_gemm_params_t p = {
      .bias = d->has_bias ? j->bias : NULL,
      .requant = d->requant,
      .mult = d->per_channel ? j->mult : NULL,
      .shift = d->per_channel ? j->shift : NULL,
      .mult_scalar = d->mult,
      .shift_scalar = d->shift,
      .out_zp = d->out_zp,
      .act_min = d->act_min,
      .act_max = d->act_max,
      .lut = d->has_lut ? j->lut : NULL,
      .mult_neg = d->leaky ? j->mult_neg : NULL,
      .shift_neg = d->leaky ? j->shift_neg : NULL,
  };
  size_t mn = (size_t)d->m * d->n;
  int32_t *g32 = calloc(mn, sizeof *g32);
  int8_t *g8 = calloc(mn, 1);
  assert_true(g32 && g8);
  assert_int_equal(tsr_golden_gemm(d->m, d->k, d->n, j->a, j->lda, j->b, j->ldb, &p, g32, g8), 0);
  bool ok = true;
  uint32_t es = d->requant ? 1 : 4;
  for (uint32_t r = 0; r < d->m && ok; r++) {
    for (uint32_t c = 0; c < d->n && ok; c++) {
      const uint8_t *q = g_chip.dram + d->c_addr + (size_t)r * d->ldc + (size_t)c * es;
      int32_t got = d->requant ? (int8_t)q[0]
                               : (int32_t)((uint32_t)q[0] | (uint32_t)q[1] << 8 |
                                           (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24);
      int32_t want = d->requant ? g8[(size_t)r * d->n + c] : g32[(size_t)r * d->n + c];
      if (got != want) {
        snprintf(why, whylen, "C[%u][%u] = %d, golden %d", r, c, got, want);
        ok = false;
      }
    }
  }
  /* Bytes outside the output rows keep their canary or operand value. */
  for (uint32_t addr = 0; addr < g_chip.dram_size && ok; addr++) {
    bool in_c = false;
    if (addr >= d->c_addr) {
      uint32_t off = addr - d->c_addr;
      in_c = off / d->ldc < d->m && off % d->ldc < d->n * es;
    }
    bool in_input = (addr >= d->a_addr && addr < d->a_addr + d->m * j->lda) ||
                    (addr >= d->b_addr && addr < d->b_addr + d->k * j->ldb) ||
                    (addr >= d->bias_addr && addr < d->c_addr);
    if (!in_c && !in_input && g_chip.dram[addr] != 0xa5) {
      snprintf(why, whylen, "byte %u outside C changed", addr);
      ok = false;
    }
  }
  free(g32);
  free(g8);
  return ok;
}

/* ---- Plan invariants ------------------------------------------------------------------------------ */

static tsr_dev_info_t info_of(uint32_t dim, uint32_t spad, uint32_t acc) {
  tsr_dev_info_t i = {.id = 0x54530100u, .version = 0x100, .dim = dim, .axi_bytes = 8,
                      .cmdq_depth = 16, .spad_rows = spad, .acc_rows = acc,
                      .has_sfu = true, .store_lanes = dim};
  return i;
}

static tsr_gemm_desc_t plain_desc(uint32_t m, uint32_t k, uint32_t n) {
  /* Operands far apart in a 4 GiB space; int8 output. */
  tsr_gemm_desc_t d = {.m = m, .k = k, .n = n, .a_addr = 0x1000, .lda = k,
                       .b_addr = 0x40000000u, .ldb = n, .c_addr = 0x80000000u, .ldc = n,
                       .has_bias = true, .bias_addr = 0xc0000000u, .requant = true,
                       .mult = 1 << 30, .shift = -8, .act_min = -128, .act_max = 127};
  return d;
}

static uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

static void check_plan_invariants(const tsr_dev_info_t *in, const tsr_gemm_desc_t *d,
                                  const tsr_gemm_plan_t *p) {
  const uint32_t N = in->dim;
  assert_int_equal(p->dim, N);
  /* Tile rows: inside the accumulator with 3 parameter rows per buffer (5 with leaky). */
  assert_int_equal(p->param_rows, d->leaky ? 5 : 3);
  assert_true(p->mt >= 1 && p->mt <= in->acc_rows - p->param_rows && p->mt <= 0xffff);
  assert_true(p->acc_bufs == 1 || p->acc_bufs == 2);
  assert_int_equal(p->acc_stride, p->mt + p->param_rows);
  for (uint32_t i = 0; i < p->acc_bufs; i++) {
    assert_int_equal(p->acc_base[i], i * (in->acc_rows / p->acc_bufs)); /* one bank each */
    assert_true(p->acc_base[i] + (uint64_t)p->nb * p->acc_stride <= in->acc_rows);
  }
  /* K chunk: a multiple of N, within the 16-bit LOAD fields, covering K exactly. */
  assert_true(p->kc >= N && p->kc % N == 0 && p->kc <= 0xffff);
  assert_int_equal(p->k_chunks, cdiv(d->k, p->kc));
  assert_true((uint64_t)(p->k_chunks - 1) * p->kc < d->k && (uint64_t)p->k_chunks * p->kc >= d->k);
  assert_int_equal(p->k_blocks, cdiv(d->k, N));
  if (d->k <= p->kc) {
    assert_int_equal(p->k_chunks, 1);
  }
  assert_int_equal(p->a_resident, p->k_chunks == 1);
  /* Tiles cover M and N exactly. */
  assert_int_equal(p->m_tiles, cdiv(d->m, p->mt));
  assert_true((uint64_t)(p->m_tiles - 1) * p->mt < d->m);
  assert_int_equal(p->n_blocks, cdiv(d->n, N));
  assert_int_equal(p->tiles, p->m_tiles * p->n_blocks);
  /* n-groups of nb N-column blocks share one A chunk; each is one accumulator tile. */
  assert_true(p->nb >= 1 && p->nb <= p->n_blocks);
  assert_int_equal(p->n_groups, cdiv(p->n_blocks, p->nb));
  assert_int_equal(p->units, p->m_tiles * p->n_groups);
  assert_int_equal(p->groups, p->units * p->k_chunks);
  /* Scratchpad regions: A buffers hold mt x kc (kc/N blocks of mt rows), W
   * buffers kc rows per block of the n-group; no overlap; all inside the
   * scratchpad; with preload, A in the lower bank and W in the upper one. */
  assert_true(p->spad_bufs == 1 || p->spad_bufs == 2);
  assert_true(p->a_rows >= p->mt * (p->kc / N));
  assert_true(p->w_rows >= p->kc * p->nb);
  if (p->preload) {
    uint32_t half = 1;
    while (half < (in->spad_rows + 1) / 2) {
      half *= 2;
    }
    for (uint32_t i = 0; i < p->spad_bufs; i++) {
      assert_true(p->a_base[i] + p->a_rows <= half);
      assert_true(p->w_base[i] >= half);
    }
  }
  uint64_t spans[5][2];
  unsigned ns = 0;
  for (uint32_t i = 0; i < p->spad_bufs; i++) {
    spans[ns][0] = p->a_base[i];
    spans[ns++][1] = (uint64_t)p->a_base[i] + p->a_rows;
    spans[ns][0] = p->w_base[i];
    spans[ns++][1] = (uint64_t)p->w_base[i] + p->w_rows;
  }
  if (d->has_lut) { /* the activation table: 256/N rows of its own */
    spans[ns][0] = p->lut_base;
    spans[ns++][1] = (uint64_t)p->lut_base + cdiv(256, N);
  }
  for (unsigned i = 0; i < ns; i++) {
    assert_true(spans[i][1] <= in->spad_rows);
    for (unsigned q = 0; q < i; q++) {
      assert_true(spans[i][1] <= spans[q][0] || spans[q][1] <= spans[i][0]);
    }
  }
  /* Predictions are self-consistent. */
  assert_true(p->cmds == p->cmd_loads + p->cmd_matmuls + p->cmd_params + p->cmd_stores +
                         (d->has_lut ? 1u : 0u) +                       /* + SFU LUT_LOAD */
                         (p->acc_bufs == 2u && p->units >= 2u ? 1u : /* + the tail NOP, */
                          d->n > (p->n_groups - 1u) * p->nb * N + N ? 1u : 0u)); /* or lead NOP */
  assert_int_equal(p->n_params, (d->has_bias ? 1 : 0) + (d->per_channel ? 2 : 0) +
                                    (d->leaky ? 2 : 0));
  assert_true(p->macs == (uint64_t)d->m * d->k * d->n);
  assert_true(p->cmd_stores == p->tiles);
  assert_true(p->est_cycles > 0);
}

static void plan_and_check(const tsr_dev_info_t *in, const tsr_gemm_desc_t *d,
                           const tsr_gemm_opts_t *o) {
  tsr_gemm_plan_t p;
  tsr_status_t st = tsr_gemm_plan_opts(in, d, o, &p);
  if (st != TSR_OK) {
    fail_msg("plan %ux%ux%u on N=%u spad=%u acc=%u: %s", d->m, d->k, d->n, in->dim, in->spad_rows,
             in->acc_rows, tsr_status_str(st));
  }
  check_plan_invariants(in, d, &p);
}

static void plans_for_awkward_shapes_keep_the_invariants(void **state) {
  (void)state;
  const uint32_t shapes[][3] = {{1, 1, 1},     {1, 129, 1},   {37, 129, 61}, {300, 1, 300},
                                {5000, 17, 3}, {3, 100000, 5}, {1, 65536, 1}, {1025, 1025, 1025},
                                {65536, 8, 8}, {2, 3, 70000}};
  const tsr_dev_info_t infos[] = {
      info_of(4, 4096, 1024), info_of(8, 4096, 1024), info_of(16, 4096, 1024),
      info_of(4, 5, 4),       info_of(8, 9, 4),       info_of(16, 40, 9),
      info_of(8, 64, 16),     info_of(16, 1u << 20, 1u << 16)};
  for (size_t i = 0; i < sizeof infos / sizeof infos[0]; i++) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      tsr_gemm_desc_t d = plain_desc(shapes[s][0], shapes[s][1], shapes[s][2]);
      plan_and_check(&infos[i], &d, NULL);
      tsr_gemm_opts_t o = {.spad_buf = TSR_BUF_SINGLE, .acc_buf = TSR_BUF_SINGLE};
      plan_and_check(&infos[i], &d, &o);
    }
  }
}

static void k_larger_than_the_scratchpad_is_chunked(void **state) {
  (void)state;
  tsr_dev_info_t in = info_of(8, 256, 64);
  tsr_gemm_desc_t d = plain_desc(20, 1000, 9); /* 1000 weight rows > 256 scratchpad rows */
  tsr_gemm_plan_t p;
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_OK);
  check_plan_invariants(&in, &d, &p);
  assert_true(p.k_chunks > 1);
  assert_false(p.a_resident);
  /* Without chunking, A is loaded once per m-tile. (Whether K is chunked is
   * the cost model's choice: a chunked plan may overlap better.) */
  d = plain_desc(20, 40, 9);
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_OK);
  check_plan_invariants(&in, &d, &p);
  if (p.k_chunks == 1) {
    assert_true(p.a_resident);
    assert_true(p.cmd_loads == p.m_tiles + p.groups);
  } else {
    assert_true(p.cmd_loads == 2u * p.groups);
  }
}

/* tsr_gemm_opts_t.whole_k: all of K in one chunk wherever a plan fits (the convolution's
 * planner asks for it: fw/tsr_conv.c), TSR_UNSUPPORTED where none does. The DS-CNN shape
 * below is one the cost model alone would chunk. */
static void whole_k_keeps_k_in_one_chunk_or_refuses(void **state) {
  (void)state;
  tsr_dev_info_t in = info_of(8, 1024, 256);
  tsr_gemm_opts_t o;
  memset(&o, 0, sizeof o);
  tsr_gemm_desc_t d = plain_desc(125, 80, 64);
  tsr_gemm_plan_t p;
  assert_int_equal(tsr_gemm_plan_opts(&in, &d, &o, &p), TSR_OK);
  assert_true(p.k_chunks > 1);
  o.whole_k = true;
  assert_int_equal(tsr_gemm_plan_opts(&in, &d, &o, &p), TSR_OK);
  check_plan_invariants(&in, &d, &p);
  assert_int_equal(p.k_chunks, 1);
  assert_true(p.a_resident);
  in = info_of(8, 256, 64);
  d = plain_desc(20, 1000, 9); /* 1000 weight rows > 256 scratchpad rows */
  assert_int_equal(tsr_gemm_plan_opts(&in, &d, &o, &p), TSR_UNSUPPORTED);
}

/* One image of in_h x in_w x in_c inside a border of `border` pixels, convolved with a
 * kh x kw kernel at stride 2 into out_h x out_w x out_c (dense), for tsr_conv_plan. */
static tsr_conv_desc_t conv_s2_desc(uint32_t in_h, uint32_t in_w, uint32_t in_c, uint32_t border,
                                    uint32_t kh, uint32_t kw, uint32_t out_h, uint32_t out_w,
                                    uint32_t out_c, uint32_t pad_t, uint32_t pad_l) {
  tsr_conv_desc_t c;
  memset(&c, 0, sizeof c);
  c.batch = 1;
  c.in_h = in_h;
  c.in_w = in_w;
  c.in_c = in_c;
  c.in_row = (in_w + 2u * border) * in_c;
  c.in_img = (in_h + 2u * border) * c.in_row;
  c.in_addr = 0x100000u + border * (c.in_row + in_c);
  c.out_h = out_h;
  c.out_w = out_w;
  c.out_c = out_c;
  c.out_row = out_w * out_c;
  c.out_img = out_h * c.out_row;
  c.out_addr = 0x200000u;
  c.kh = kh;
  c.kw = kw;
  c.stride_h = c.stride_w = 2;
  c.dil_h = c.dil_w = 1;
  c.pad_t = pad_t;
  c.pad_l = pad_l;
  c.gemm = plain_desc(1, 1, out_c); /* tsr_conv_plan fills m, k, a, c */
  return c;
}

/* tsr_conv_plan's tiles. MobileNetV1's first layer (96x96x3, 3x3 stride 2, 8 channels) at
 * N = 8. Its output rows are 48 pixels (>= 2N) and its input is not flat, so a tile is one
 * output row (the view then loads a tile's segment in one LOAD), with K in one chunk. The
 * same layer on a 16x16 input (rows of 8 pixels, < 2N) keeps the planner's own tiles. */
static void conv_tiles_follow_long_output_rows(void **state) {
  (void)state;
  const tsr_dev_info_t in = info_of(8, 4096, 1024);
  const uint32_t sizes[] = {96, 16};
  tsr_gemm_plan_t p;
  const char *why = "";
  for (size_t i = 0; i < 2; i++) {
    const uint32_t w = sizes[i], ow = w / 2;
    tsr_conv_desc_t c = conv_s2_desc(w, w, 3, 1, 3, 3, ow, ow, 8, 0, 0);
    assert_int_equal(tsr_conv_plan(&in, &c, &p, &why), TSR_OK);
    check_plan_invariants(&in, &c.gemm, &p);
    if (w == 96u) {
      assert_int_equal(p.mt, ow);
      assert_int_equal(p.k_chunks, 1);
    } else {
      assert_true(p.mt > ow);
    }
  }
  /* DS-CNN's first layer (49x10x1, 10x4 stride 2, 64 channels): the cost model alone
   * chunks its K of 80 (tsr_gemm_plan), the convolution keeps it whole. */
  tsr_conv_desc_t c = conv_s2_desc(49, 10, 1, 5, 10, 4, 25, 5, 64, 4, 1);
  assert_int_equal(tsr_conv_plan(&in, &c, &p, &why), TSR_OK);
  check_plan_invariants(&in, &c.gemm, &p);
  assert_int_equal(p.k_chunks, 1);
  assert_int_equal(tsr_gemm_plan(&in, &c.gemm, &p), TSR_OK);
  assert_true(p.k_chunks > 1);
}

static void m_larger_than_the_accumulator_is_tiled(void **state) {
  (void)state;
  tsr_dev_info_t in = info_of(4, 4096, 32);
  tsr_gemm_desc_t d = plain_desc(1000, 4, 4);
  tsr_gemm_plan_t p;
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_OK);
  check_plan_invariants(&in, &d, &p);
  assert_true(p.m_tiles >= 1000 / 29);
  /* Options cap tiles and chunks. */
  tsr_gemm_opts_t o = {.max_mt = 7, .max_kc = 5, .spad_buf = TSR_BUF_DOUBLE,
                       .acc_buf = TSR_BUF_DOUBLE};
  d = plain_desc(30, 30, 30);
  assert_int_equal(tsr_gemm_plan_opts(&in, &d, &o, &p), TSR_OK);
  check_plan_invariants(&in, &d, &p);
  assert_true(p.mt <= 7);
  assert_int_equal(p.kc, 4); /* 5 rounds down to one block of N = 4 */
  assert_int_equal(p.spad_bufs, 2);
  assert_int_equal(p.acc_bufs, 2);
}

static void memories_too_small_are_reported_not_overrun(void **state) {
  (void)state;
  tsr_gemm_desc_t d = plain_desc(3, 3, 3);
  tsr_gemm_plan_t p;
  /* Smallest workable device: 1 A row + N weight rows; 1 tile row + 3 parameter rows. */
  tsr_dev_info_t in = info_of(4, 5, 4);
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_OK);
  assert_int_equal(p.mt, 1);
  in = info_of(4, 4, 4);
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_UNSUPPORTED);
  in = info_of(4, 5, 3);
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_UNSUPPORTED);
  /* Forcing double buffering into a memory that only holds one buffer. */
  in = info_of(4, 5, 4);
  tsr_gemm_opts_t o = {.spad_buf = TSR_BUF_DOUBLE};
  assert_int_equal(tsr_gemm_plan_opts(&in, &d, &o, &p), TSR_UNSUPPORTED);
  /* The table takes 256/N scratchpad rows of its own, after the buffers. */
  d.has_lut = true;
  in = info_of(4, 5, 4);
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_UNSUPPORTED);
  in = info_of(4, 5 + 64, 4);
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_OK);
  check_plan_invariants(&in, &d, &p);
  assert_int_equal(p.lut_base, 5);
  /* Leaky needs 5 parameter rows after each tile. */
  d.has_lut = false;
  d.leaky = true;
  in = info_of(4, 5, 5);
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_UNSUPPORTED);
  in = info_of(4, 5, 6);
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_OK);
  check_plan_invariants(&in, &d, &p);
  assert_int_equal(p.acc_stride, 6);
}

/* A chip with fewer output-stage lanes (CONFIG.LANES_LOG2) stores a row per
 * N / lanes cycles; the prediction must know it. */
static void fewer_store_lanes_slow_the_stores(void **state) {
  (void)state;
  tsr_dev_info_t in = info_of(8, 4096, 1024);
  const tsr_gemm_desc_t d = plain_desc(64, 8, 64); /* 512 rows stored, K = 8: the stores dominate */
  tsr_gemm_plan_t p;
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_OK);
  const uint64_t full = tsr_gemm_predict_cycles(&in, &d, &p);
  in.store_lanes = 2u; /* 4 cycles per row */
  const uint64_t shared = tsr_gemm_predict_cycles(&in, &d, &p);
  assert_true(shared > full);
  assert_true(shared >= 512u * 4u); /* the store stage alone */
  in.store_lanes = 0u;
  assert_int_equal(tsr_gemm_predict_cycles(&in, &d, &p), 0);
  in.store_lanes = 3u;
  assert_int_equal(tsr_gemm_predict_cycles(&in, &d, &p), 0);
}

/* Back-to-back MATMULs stream with no idle row between them (the MATMUL unit
 * takes the next start on the last row of a STREAM, its weights preloaded):
 * a compute-bound job is predicted within 1 % of its MACs / N^2 plus the
 * drain, parameter LOADs and STOREs of its tiles, not 2 cycles per MATMUL more. */
static void back_to_back_matmuls_cost_their_rows_only(void **state) {
  (void)state;
  const tsr_dev_info_t in = info_of(8, 4096, 1024);
  const tsr_gemm_desc_t d = plain_desc(512, 512, 512);
  tsr_gemm_plan_t p;
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_OK);
  const uint64_t compute = 512ull * 512u * 512u / 64u;
  const uint64_t est = tsr_gemm_predict_cycles(&in, &d, &p);
  assert_true(est >= compute);
  assert_true(est * 100u <= compute * 101u);
}

/* Through a command ring the fetcher's bursts share the read port with the
 * DMA, and each holds it for about a latency more than its beats: a batch-1
 * job of one MATMUL per weight tile, bound by the memory, is predicted at its bytes over the bus plus that
 * per burst of EST_FETCH_BURST (8) commands. And the first command waits for
 * the whole first burst. Every job has 41 cycles outside BUSY on top. */
static void ring_fetch_bursts_cost_a_latency_each(void **state) {
  (void)state;
  const tsr_dev_info_t in = info_of(16, 4096, 1024);
  const tsr_gemm_desc_t d = plain_desc(1, 1024, 1024);
  tsr_gemm_opts_t o;
  memset(&o, 0, sizeof o);
  o.streamed = true;
  o.max_kc = 16u; /* one weight tile per MATMUL: many commands, and the memory decides */
  tsr_gemm_plan_t p;
  assert_int_equal(tsr_gemm_plan_opts(&in, &d, &o, &p), TSR_OK);
  const uint64_t bytes = p.dma_rd_bytes + p.dma_wr_bytes + p.cmds * 32u;
  const uint64_t bursts = (p.cmds + 7u) / 8u;
  assert_int_equal(p.mem_latency, 10u);
  const uint64_t est = tsr_gemm_predict_cycles(&in, &d, &p);
  assert_int_equal(est, (bytes + 7u) / 8u + bursts * (p.mem_latency + 2u) + 41u);
  o.max_kc = 0u;
  /* A one-group job: its first LOAD starts after the first burst of 8 commands
   * (a latency, the 2-cycle setup and 8 x 4 beats), then the LOADs themselves. */
  const tsr_dev_info_t in8 = info_of(8, 4096, 1024);
  const tsr_gemm_desc_t small = plain_desc(16, 16, 16);
  assert_int_equal(tsr_gemm_plan_opts(&in8, &small, &o, &p), TSR_OK);
  assert_true(p.cmds >= 8u);
  const uint64_t ring = tsr_gemm_predict_cycles(&in8, &small, &p);
  p.cmds = 1u; /* the same stream, but its first command would come alone */
  const uint64_t alone = tsr_gemm_predict_cycles(&in8, &small, &p);
  assert_int_equal(ring - alone, 7u * 4u);
}

static void bad_descriptors_are_rejected(void **state) {
  (void)state;
  tsr_dev_info_t in = info_of(8, 4096, 1024);
  tsr_gemm_plan_t p;
  const char *why = NULL;
  tsr_gemm_desc_t d = plain_desc(4, 4, 4);
  assert_int_equal(tsr_gemm_check_desc(&d, &why), TSR_OK);
  tsr_gemm_desc_t b;
#define REJECT(stmt, text)                                            \
  do {                                                                \
    b = d;                                                            \
    stmt;                                                             \
    if (tsr_gemm_plan(&in, &b, &p) != TSR_BAD_ARG ||           \
        tsr_gemm_check_desc(&b, &why) != TSR_BAD_ARG) {               \
      fail_msg("%s: accepted", #stmt);                                \
    }                                                                 \
    if (strstr(why, text) == NULL) {                                  \
      fail_msg("%s: reason \"%s\" lacks \"%s\"", #stmt, why, text);   \
    }                                                                 \
  } while (0)
  REJECT(b.m = 0, ">= 1");
  REJECT(b.k = 0, ">= 1");
  REJECT(b.n = 0, ">= 1");
  REJECT(b.lda = 3, "lda");
  REJECT(b.ldb = 3, "ldb");
  REJECT(b.ldc = 3, "ldc");
  REJECT((b.requant = false, b.ldc = 15), "ldc");
  REJECT(b.a_addr = 0xfffffff1u, "32-bit"); /* 0xfffffff0 ends exactly at 2^32: allowed */
  REJECT(b.c_addr = 0xfffffffdu, "32-bit");
  REJECT(b.bias_addr = 0xfffffff8u, "parameter");
  REJECT(b.c_addr = 0x1004, "overlaps");
  REJECT((b.per_channel = true, b.mult_addr = 0x80000008u, b.shift_addr = 0x10), "overlaps");
  REJECT(b.shift = -32, "shift");
  REJECT(b.shift = 31, "shift");
  REJECT(b.out_zp = 128, "int8");
  REJECT(b.act_min = -129, "int8");
  REJECT((b.act_min = 3, b.act_max = 2), "act_min");
  REJECT((b.requant = false, b.ldc = 16, b.per_channel = true), "requant");
  REJECT((b.requant = false, b.ldc = 16, b.has_lut = true, b.lut_addr = 0x100000u), "requant");
  REJECT((b.requant = false, b.ldc = 16, b.leaky = true), "requant");
  REJECT((b.has_lut = true, b.lut_addr = 0xffffff01u), "table");
  REJECT((b.leaky = true, b.mult_neg_addr = 0xfffffff1u), "parameter");
  REJECT((b.leaky = true, b.shift_neg_addr = 0xfffffff1u), "parameter");
  REJECT((b.has_lut = true, b.lut_addr = 0x80000000u - 255u), "overlaps");
  REJECT((b.leaky = true, b.mult_neg_addr = 0x80000000u - 15u, b.shift_neg_addr = 0x2000), "overlaps");
  REJECT((b.leaky = true, b.mult_neg_addr = 0x2000, b.shift_neg_addr = 0x80000003u), "overlaps");
#undef REJECT
  /* Without the flags the table and negative-side addresses are not looked at. */
  b = d;
  b.lut_addr = 0xffffffffu;
  b.mult_neg_addr = 0x80000000u;
  assert_int_equal(tsr_gemm_check_desc(&b, &why), TSR_OK);
  assert_int_equal(tsr_gemm_plan(NULL, &d, &p), TSR_BAD_ARG);
  assert_int_equal(tsr_gemm_plan(&in, &d, NULL), TSR_BAD_ARG);
}

/* ---- Execution on the fake chip ------------------------------------------------------------------- */

static tsr_dev_t g_dev;
static tsr_hal_t g_hal;

static void open_chip(void) {
  g_hal.ops = &k_chip_ops;
  g_hal.ctx = &g_chip;
  assert_int_equal(tsr_dev_open(&g_dev, &g_hal), TSR_OK);
}

static unsigned g_progress_calls;
static void count_progress(void *user, uint32_t done, uint32_t total) {
  (void)user;
  assert_true(done >= 1 && done <= total);
  g_progress_calls++;
}

/* Plan and run one job; check results, counters, tokens and the plan's predictions. */
static bool run_job(const job_t *j, const tsr_gemm_opts_t *o, char *why, size_t whylen) {
  open_chip();
  tsr_gemm_plan_t p;
  tsr_status_t st = tsr_gemm_plan_opts(&g_dev.info, &j->d, o, &p);
  if (st != TSR_OK) {
    snprintf(why, whylen, "plan: %s", tsr_status_str(st));
    return false;
  }
  check_plan_invariants(&g_dev.info, &j->d, &p);
  g_progress_calls = 0;
  st = tsr_gemm_run(&g_dev, &j->d, &p, count_progress, NULL);
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
  if (g_progress_calls != p.tiles || g_chip.n_op[TSR_OP_STORE] != p.cmd_stores ||
      g_chip.n_op[TSR_OP_MATMUL] != p.cmd_matmuls || g_chip.n_load_spad != p.cmd_loads ||
      g_chip.n_load_acc != p.cmd_params || g_chip.cmds != p.cmds) {
    snprintf(why, whylen, "command counts differ from the plan's prediction");
    return false;
  }
  if (g_chip.rd_bytes != p.dma_rd_bytes || g_chip.wr_bytes != p.dma_wr_bytes ||
      g_chip.macs != p.macs) {
    snprintf(why, whylen, "DMA bytes %llu/%llu or MACs %llu differ from the prediction %llu/%llu/%llu",
             (unsigned long long)g_chip.rd_bytes, (unsigned long long)g_chip.wr_bytes,
             (unsigned long long)g_chip.macs, (unsigned long long)p.dma_rd_bytes,
             (unsigned long long)p.dma_wr_bytes, (unsigned long long)p.macs);
    return false;
  }
  return true;
}

static void executor_matches_golden_on_fixed_awkward_shapes(void **state) {
  (void)state;
  const uint32_t shapes[][3] = {{1, 1, 1}, {1, 129, 1}, {37, 129, 61}, {300, 1, 30}, {5, 8, 8}};
  const uint32_t dims[] = {4, 8, 16};
  char why[256];
  g_rng = g_seed;
  for (size_t di = 0; di < 3; di++) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      /* 0 raw + bias, 1 raw, 2 per-channel + bias, 3 table, 4 per-channel leaky,
       * 5 table + leaky without bias. */
      for (int variant = 0; variant < 6; variant++) {
        chip_init(dims[di], 4096, 1024, 1u << 20, POL_SERIAL, g_seed);
        job_t j;
        bool requant = variant != 1;
        assert_true(job_make_fused(&j, shapes[s][0], shapes[s][1], shapes[s][2], requant,
                                   variant == 2 || variant == 4, variant != 0 && variant != 5,
                                   variant == 3 || variant == 5, variant == 4 || variant == 5));
        if (!run_job(&j, NULL, why, sizeof why)) {
          fail_msg("seed %u, N=%u, %ux%ux%u variant %d: %s", g_seed, dims[di], shapes[s][0],
                   shapes[s][1], shapes[s][2], variant, why);
        }
        job_free(&j);
      }
    }
  }
  chip_free();
}

/* Parameter LOADs (tsr_gemm_int.h), every tile its own, with several m-tiles
 * too: when bias, mult and shift lie one stride apart (or only the bias is
 * used), one LOAD per tile; else one per vector and sub-tile. Each case runs
 * bit-exact under every schedule, and run_job compares the LOAD count with
 * the plan's. */
static void parameter_loads_are_merged_when_they_can_be(void **state) {
  (void)state;
  struct {
    bool pc;        /* per-channel (bias, mult, shift) or the bias alone */
    int skew;       /* bytes added to the shifts' address: 0 keeps one stride */
    uint32_t max_mt, n; /* 4 rows and 6 blocks, or the planner's tiles */
    bool merged;    /* one LOAD per tile, else one per vector and sub-tile */
  } k_cases[] = {{false, 0, 4, 44, true}, {true, 0, 4, 44, true},  {false, 0, 0, 100, true},
                 {true, 0, 0, 100, true}, {true, 4, 4, 44, false}, {true, 4, 0, 100, false}};
  char why[256];
  for (size_t c = 0; c < sizeof k_cases / sizeof k_cases[0]; c++) {
    for (int pol = 0; pol < POL_COUNT; pol++) {
      chip_init(8, 4096, 96, 1u << 18, (policy_t)pol, g_seed);
      open_chip();
      g_rng = g_seed + (uint32_t)c;
      job_t j;
      const uint32_t n = k_cases[c].n;
      assert_true(job_make(&j, 100, 20, n, true, k_cases[c].pc, true));
      if (k_cases[c].pc) { /* mult one stride after the bias, the shifts one (+ skew) after it */
        j.d.shift_addr = 2u * j.d.mult_addr - j.d.bias_addr + (uint32_t)k_cases[c].skew;
        assert_true(j.d.shift_addr + 4u * n <= j.d.lut_addr);
        memcpy(g_chip.dram + j.d.shift_addr, j.shift, 4u * n);
      }
      tsr_gemm_opts_t o = {.acc_buf = TSR_BUF_DOUBLE, .max_mt = k_cases[c].max_mt};
      tsr_gemm_plan_t p;
      assert_int_equal(tsr_gemm_plan_opts(&g_dev.info, &j.d, &o, &p), TSR_OK);
      assert_true(p.m_tiles >= 2u && p.acc_bufs == 2u);
      const uint64_t want = k_cases[c].merged ? p.units : (uint64_t)p.tiles * p.n_params;
      if (p.cmd_params != want) {
        fail_msg("case %zu: %llu parameter LOADs, not %llu (plan %u x %u rows, nb %u)", c,
                 (unsigned long long)p.cmd_params, (unsigned long long)want,
                 p.m_tiles, p.mt, p.nb);
      }
      if (!run_job(&j, &o, why, sizeof why)) {
        fail_msg("case %zu (%s): %s", c, k_policy_name[pol], why);
      }
      job_free(&j);
    }
  }
  chip_free();
}

/* tsr_fw_push_load: a LOAD of whole-chunk rows back to back in memory (A with K = N,
 * W with N columns) goes out as one row of all their bytes, which lands the same. With
 * K = 8N and N = 8 columns at N = 8, the A tile is 64 rows of 8 contiguous bytes and the
 * weights 64 rows of 8: each LOAD is one row, bit-exact under every schedule. */
static void contiguous_chunk_rows_load_as_one_row(void **state) {
  (void)state;
  char why[256];
  for (int pol = 0; pol < POL_COUNT; pol++) {
    chip_init(8, 4096, 1024, 1u << 18, (policy_t)pol, g_seed);
    job_t j;
    g_rng = g_seed;
    assert_true(job_make(&j, 1, 64, 8, true, true, true));
    while (j.ldb != 8u) { /* job_make pads rows at random: take weights without padding */
      job_free(&j);
      assert_true(job_make(&j, 1, 64, 8, true, true, true));
    }
    if (!run_job(&j, NULL, why, sizeof why)) {
      fail_msg("%s: %s", k_policy_name[pol], why);
    }
    if (g_chip.n_load_spad_rows != g_chip.n_load_spad) {
      fail_msg("%s: %llu scratchpad LOADs moved %llu rows, not one row each", k_policy_name[pol],
               (unsigned long long)g_chip.n_load_spad,
               (unsigned long long)g_chip.n_load_spad_rows);
    }
    job_free(&j);
  }
  chip_free();
}

/* With two tile buffers the last tile's parameter LOADs pop no token (they would wait
 * for the STOREs of the tile before): a NOP after the job's last STORE pops the token
 * that tile's STOREs push, and nothing else pops it. */
static void tail_token_is_popped_after_the_last_store(void **state) {
  (void)state;
  char why[256];
  chip_init(8, 4096, 1024, 1u << 18, POL_SERIAL, g_seed);
  job_t j;
  g_rng = g_seed;
  assert_true(job_make(&j, 16, 16, 16, true, true, true));
  tsr_gemm_opts_t o = {.acc_buf = TSR_BUF_DOUBLE};
  if (!run_job(&j, &o, why, sizeof why)) {
    fail_msg("%s", why);
  }
  size_t last_store = 0u, stores = 0u, s2c_pops = 0u;
  for (size_t i = 0u; i < g_chip.nprog; i++) {
    const uint32_t w0 = g_chip.prog[i].w[0];
    const uint32_t op = TSR_CMD_GET(w0, TSR_CMD_W0_OPCODE);
    if (op == TSR_OP_STORE) {
      last_store = i;
      stores++;
    }
    if (op == TSR_OP_LOAD && TSR_CMD_GET(w0, TSR_CMD_LOAD_W0_DEST) != 0u) {
      assert_true((w0 & TSR_DEP_POP_NEXT) == 0u); /* no parameter LOAD waits for STOREs */
    }
    if (op != TSR_OP_STORE && (w0 & TSR_DEP_POP_NEXT) != 0u && op != TSR_OP_LOAD) {
      s2c_pops++;
    }
  }
  assert_int_equal(stores, 2); /* two tiles, so the second-to-last tile's STOREs push */
  assert_int_equal(g_chip.nprog, last_store + 2u);
  const uint32_t tail = g_chip.prog[g_chip.nprog - 1u].w[0];
  assert_int_equal(TSR_CMD_GET(tail, TSR_CMD_W0_OPCODE), TSR_OP_NOP);
  assert_true((tail & TSR_DEP_POP_NEXT) != 0u);
  assert_int_equal(s2c_pops, 1); /* the NOP's: tile 1 is the second tile, no MATMUL pops */
  job_free(&j);
  chip_free();
}

/* Commands of one opcode that the program's decode finds untokened: no token bit of their
 * own while every program-order counter is zero (docs/commands.md), so each waits for
 * every command before it to retire. The counters as tsr_ctrl keeps them at decode: load stage (LOAD to the
 * scratchpad), compute stage (MATMUL, LOAD to the accumulator, NOP, SFU), store stage. */
static unsigned serial_cmds(uint32_t opcode) {
  int l2c = 0, c2l = 0, c2s = 0, s2c = 0;
  unsigned serial = 0u;
  for (size_t i = 0u; i < g_chip.nprog; i++) {
    const uint32_t w0 = g_chip.prog[i].w[0];
    const uint32_t op = TSR_CMD_GET(w0, TSR_CMD_W0_OPCODE);
    const bool pop_prev = (w0 & TSR_DEP_POP_PREV) != 0u, pop_next = (w0 & TSR_DEP_POP_NEXT) != 0u;
    const bool push_prev = (w0 & TSR_DEP_PUSH_PREV) != 0u, push_next = (w0 & TSR_DEP_PUSH_NEXT) != 0u;
    const bool tokenless = !(pop_prev || pop_next || push_prev || push_next);
    if (op == opcode && tokenless && l2c + c2l + c2s + s2c == 0) {
      serial++;
    }
    if (op == TSR_OP_LOAD && TSR_CMD_GET(w0, TSR_CMD_LOAD_W0_DEST) == 0u) {
      c2l -= pop_next;
      l2c += push_next;
    } else if (op == TSR_OP_STORE) {
      c2s -= pop_prev;
      s2c += push_prev;
    } else {
      l2c -= pop_prev;
      s2c -= pop_next;
      c2l += push_prev;
      c2s += push_next;
    }
  }
  return serial;
}

/* A last tile of several sub-tiles, no tail token: its first STORE pops the only token
 * left, so it also pushes one (tsr_gemm_lead_token) that a NOP after the last STORE pops;
 * the other STOREs then queue behind it instead of each waiting as untokened code for
 * the one before to retire (64^3 at N = 16: 2,511 -> 2,449 cycles). */
static void last_tile_stores_are_not_serial(void **state) {
  (void)state;
  char why[256];
  chip_init(8, 4096, 1024, 1u << 18, POL_SERIAL, g_seed);
  job_t j;
  g_rng = g_seed;
  assert_true(job_make(&j, 8, 16, 32, true, true, true));
  tsr_gemm_opts_t o = {.acc_buf = TSR_BUF_SINGLE};
  open_chip();
  tsr_gemm_plan_t p;
  assert_int_equal(tsr_gemm_plan_opts(&g_dev.info, &j.d, &o, &p), TSR_OK);
  /* The case: one tile buffer, so no tail token, and a last tile of several sub-tiles. */
  assert_int_equal(p.acc_bufs, 1);
  assert_true(p.n_blocks - (p.n_groups - 1u) * p.nb >= 2u);
  if (!run_job(&j, &o, why, sizeof why)) {
    fail_msg("%s", why);
  }
  assert_int_equal(serial_cmds(TSR_OP_STORE), 0);
  const uint32_t tail = g_chip.prog[g_chip.nprog - 1u].w[0];
  assert_int_equal(TSR_CMD_GET(tail, TSR_CMD_W0_OPCODE), TSR_OP_NOP);
  assert_true((tail & TSR_DEP_POP_NEXT) != 0u);
  job_free(&j);
  chip_free();
}

/* A convolution whose output sits inside a border (a tensor that feeds a padded
 * convolution): the view cuts each sub-tile's STORE into one per output row, and a NOP
 * before them keeps a token in flight until the last, so that none of the rows between
 * is untokened code (DS-CNN at N = 16: 92 such STOREs, 74,287 -> 69,252 cycles). The
 * view's im2col LOADs of the job's first group likewise (a NOP before them, its token
 * taken by the group's W LOAD). */
static void conv_loads_and_stores_are_not_serial(void **state) {
  (void)state;
  chip_init(8, 4096, 1024, 1u << 22, POL_SERIAL, g_seed);
  tsr_conv_desc_t c = conv_s2_desc(16, 16, 8, 1, 3, 3, 8, 8, 16, 0, 0);
  c.in_addr = 0x1000u + c.in_row + 8u;
  c.out_row = (8u + 2u) * 16u; /* one pixel of border around the 8 x 8 x 16 output */
  c.out_img = (8u + 2u) * c.out_row;
  c.out_addr = 0x100000u + c.out_row + 16u;
  c.gemm.b_addr = 0x200000u;
  c.gemm.bias_addr = 0x300000u;
  open_chip();
  tsr_gemm_plan_t p;
  const char *why = "";
  assert_int_equal(tsr_conv_plan(&g_dev.info, &c, &p, &why), TSR_OK);
  const tsr_status_t st = tsr_conv_run(&g_dev, &c, &p);
  if (st != TSR_OK) {
    fail_msg("%s: %s", tsr_status_str(st), tsr_dev_error(&g_dev));
  }
  size_t stores = 0u;
  for (size_t i = 0u; i < g_chip.nprog; i++) {
    stores += TSR_CMD_GET(g_chip.prog[i].w[0], TSR_CMD_W0_OPCODE) == TSR_OP_STORE;
  }
  assert_true(stores > p.tiles); /* the case: STOREs cut by output row */
  assert_int_equal(serial_cmds(TSR_OP_STORE), 0);
  assert_int_equal(serial_cmds(TSR_OP_LOAD), 0);
  for (int t = 0; t < 4; t++) {
    assert_int_equal(g_chip.tokens[t], 0);
  }
  chip_free();
}

/* A depthwise layer (3x3, SAME, stride s, dm 1) through tsr_dw_run on the fake chip: every
 * output byte against a direct convolution through the golden output stage, token counters
 * back at zero, under every schedule; with a tile per group (gtiles) and with tiles of
 * every group. The input has a one-pixel zero border (zero point 0), the output none. */
static void dw_case(uint32_t dim, uint32_t h, uint32_t w, uint32_t ch, uint32_t s, uint32_t spad,
                    uint32_t acc, bool want_gtiles) {
  const uint32_t oh = (h + s - 1u) / s, ow = (w + s - 1u) / s;
  /* SAME: half of (out - 1) * s + 3 - in before (at most one pixel here) */
  const uint32_t pad_t = ((oh - 1u) * s + 3u - h) / 2u, pad_l = ((ow - 1u) * s + 3u - w) / 2u;
  const uint32_t wp = w + 2u, hp = h + 2u;  /* the border: one pixel all round */
  const uint32_t x_addr = 0x100u, w_addr = 0x8000u, b_addr = 0xc000u, m_addr = 0xc800u,
                 sh_addr = 0xd000u, y_addr = 0x10000u;
  for (int pol = 0; pol < POL_COUNT; pol++) {
    chip_init(dim, spad, acc, 1u << 18, (policy_t)pol, g_seed);
    g_rng = g_seed;
    int8_t *x = (int8_t *)(void *)(g_chip.dram + x_addr);
    for (uint32_t y = 0; y < h; y++) {
      for (uint32_t i = 0; i < w * ch; i++) {
        x[((y + 1u) * wp + 1u) * ch + i] = (int8_t)rnd();
      }
    }
    int8_t wt[9][64];
    int32_t bias[64], mult[64], shift[64];
    for (uint32_t c = 0; c < ch; c++) {
      for (uint32_t t = 0; t < 9u; t++) {
        wt[t][c] = (int8_t)rnd();
        const uint32_t g = c / dim, i = c % dim; /* group g: 9 * dim rows of dim bytes */
        g_chip.dram[w_addr + (g * 9u * dim + t * dim + i) * dim + i] = (uint8_t)wt[t][c];
      }
      bias[c] = (int32_t)(rnd() % 20001u) - 10000;
      mult[c] = (int32_t)rnd_in(1u << 30, 0x7fffffffu);
      shift[c] = -(int32_t)rnd_in(7, 9);
    }
    memcpy(g_chip.dram + b_addr, bias, 4u * ch);
    memcpy(g_chip.dram + m_addr, mult, 4u * ch);
    memcpy(g_chip.dram + sh_addr, shift, 4u * ch);
    tsr_dw_desc_t d;
    memset(&d, 0, sizeof d);
    d.group_c = dim;
    d.depth_mult = 1u;
    tsr_conv_desc_t *c = &d.c;
    c->batch = 1u;
    c->in_h = h, c->in_w = w, c->in_c = ch;
    c->in_row = wp * ch, c->in_img = hp * wp * ch;
    c->in_addr = x_addr + (wp + 1u) * ch;
    c->out_h = oh, c->out_w = ow, c->out_c = ch;
    c->out_row = ow * ch, c->out_img = oh * ow * ch;
    c->out_addr = y_addr;
    c->kh = c->kw = 3u;
    c->stride_h = c->stride_w = s;
    c->dil_h = c->dil_w = 1u;
    c->pad_t = pad_t, c->pad_l = pad_l;
    tsr_gemm_desc_t *gd = &c->gemm;
    gd->k = 9u * dim, gd->n = dim, gd->b_addr = w_addr, gd->ldb = dim;
    gd->has_bias = true, gd->bias_addr = b_addr;
    gd->requant = gd->per_channel = true;
    gd->mult_addr = m_addr, gd->shift_addr = sh_addr;
    gd->out_zp = 3, gd->act_min = -128, gd->act_max = 127;
    open_chip();
    tsr_dw_plan_t p;
    assert_true(tsr_dw_plan(&g_dev.info, &d, &p));
    if (p.gtiles != want_gtiles) {
      fail_msg("N=%u %ux%ux%u s%u: gtiles %d, wanted %d", dim, h, w, ch, s, p.gtiles, want_gtiles);
    }
    const tsr_status_t st = tsr_dw_run(&g_dev, &d, &p);
    if (st != TSR_OK) {
      fail_msg("%s: %s: %s", k_policy_name[pol], tsr_status_str(st), tsr_dev_error(&g_dev));
    }
    const tsr_gemm_params_t gp = {.bias = bias, .requant = 1, .mult = mult, .shift = shift,
                                  .out_zp = 3, .act_min = -128, .act_max = 127};
    for (uint32_t oy = 0; oy < oh; oy++) {
      for (uint32_t ox = 0; ox < ow; ox++) {
        for (uint32_t q = 0; q < ch; q++) {
          int32_t sum = 0;
          for (uint32_t t = 0; t < 9u; t++) { /* coordinates in the bordered tensor */
            const uint32_t py = oy * s + t / 3u + 1u - pad_t, px = ox * s + t % 3u + 1u - pad_l;
            sum += (int32_t)x[(py * wp + px) * ch + q] * wt[t][q];
          }
          const int8_t want = (int8_t)tsr_golden_output(sum, q, &gp);
          const int8_t got = (int8_t)g_chip.dram[y_addr + (oy * ow + ox) * ch + q];
          if (got != want) {
            fail_msg("%s: N=%u %ux%ux%u s%u: (%u,%u,%u) is %d, not %d", k_policy_name[pol], dim, h,
                     w, ch, s, oy, ox, q, got, want);
          }
        }
      }
    }
    for (int t = 0; t < 4; t++) {
      assert_int_equal(g_chip.tokens[t], 0);
    }
    /* Only a pass's first MATMUL may be untokened code (dw_last_hold). */
    const unsigned serial = serial_cmds(TSR_OP_MATMUL);
    if (serial != 0u) {
      fail_msg("N=%u %ux%ux%u s%u: %u MATMULs run as untokened code", dim, h, w, ch, s, serial);
    }
  }
  chip_free();
}

static void depthwise_runs_tile_per_group_or_every_group(void **state) {
  (void)state;
  dw_case(4, 5, 5, 12, 1, 4096, 1024, true);  /* one tile per pass: a tile per group */
  dw_case(4, 7, 6, 10, 2, 4096, 1024, true);  /* stride 2, a partial last group */
  dw_case(8, 6, 6, 8, 1, 4096, 1024, false);  /* one group: nothing to split */
}

/* Random shapes on small memories (forcing M tiles and K chunks), every
 * buffering choice, run serially and under every overlapping schedule. */
static void executor_matches_golden_on_random_jobs_under_every_schedule(void **state) {
  (void)state;
  char why[256];
  g_rng = g_seed;
  for (int it = 0; it < 60; it++) {
    uint32_t dim = 4u << rnd_in(0, 2);
    uint32_t spad = rnd_in(dim + 1, 8 * dim + 64);
    uint32_t acc = rnd_in(4, 40);
    uint32_t m = rnd_in(1, 70), k = rnd_in(1, 90), n = rnd_in(1, 40);
    bool requant = rnd() % 4 != 0;
    bool pc = rnd() % 2;
    bool bias = rnd() % 3 != 0;
    bool lut = rnd() % 3 == 0;
    bool leaky = rnd() % 3 == 0;
    if (lut) {
      spad += 256 / dim; /* room for the table */
    }
    if (leaky) {
      acc += 2; /* two more parameter rows per tile */
    }
    tsr_gemm_opts_t o = {.spad_buf = (tsr_gemm_buf_t)rnd_in(0, 2),
                         .acc_buf = (tsr_gemm_buf_t)rnd_in(0, 2),
                         .max_mt = rnd() % 3 == 0 ? rnd_in(1, 9) : 0,
                         .max_kc = rnd() % 3 == 0 ? rnd_in(1, 40) : 0};
    uint32_t job_seed = rnd();
    for (int pol = 0; pol < POL_COUNT; pol++) {
      chip_init(dim, spad, acc, 1u << 18, (policy_t)pol, job_seed);
      open_chip();
      uint32_t saved = g_rng;
      g_rng = job_seed | 1u;
      job_t j;
      assert_true(job_make_fused(&j, m, k, n, requant, pc, bias, lut, leaky));
      g_rng = saved;
      tsr_gemm_plan_t p;
      if (tsr_gemm_plan_opts(&g_dev.info, &j.d, &o, &p) == TSR_UNSUPPORTED &&
          (o.spad_buf == TSR_BUF_DOUBLE || o.acc_buf == TSR_BUF_DOUBLE)) {
        /* double buffering forced into a memory that holds only one buffer */
        job_free(&j);
        continue;
      }
      if (!run_job(&j, &o, why, sizeof why)) {
        fail_msg("seed %u it %d (%s): N=%u spad=%u acc=%u %ux%ux%u requant=%d pc=%d bias=%d "
                 "lut=%d leaky=%d bufs=%d/%d max_mt=%u max_kc=%u: %s",
                 g_seed, it, k_policy_name[pol], dim, spad, acc, m, k, n, requant, pc, bias, lut,
                 leaky, o.spad_buf, o.acc_buf, o.max_mt, o.max_kc, why);
      }
      job_free(&j);
    }
  }
  chip_free();
}

/* Each class of token is needed: strip it from the program and some
 * overlapping schedule computes a wrong answer (or deadlocks). This also
 * proves the checks above can fail. */
static void every_token_class_is_needed(void **state) {
  (void)state;
  struct {
    const char *name;
    uint32_t strip[3]; /* per stage: load, compute, store */
    policy_t pol;
  } cases[] = {
      {"load->compute", {TSR_DEP_PUSH_NEXT, TSR_DEP_POP_PREV, 0}, POL_COMPUTE_FIRST},
      {"compute->load", {TSR_DEP_POP_NEXT, TSR_DEP_PUSH_PREV, 0}, POL_LOAD_FIRST},
      {"compute->store", {0, TSR_DEP_PUSH_NEXT, TSR_DEP_POP_PREV}, POL_STORE_FIRST},
      {"store->compute", {0, TSR_DEP_POP_NEXT, TSR_DEP_PUSH_PREV}, POL_COMPUTE_FIRST},
  };
  char why[256];
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    g_rng = g_seed;
    chip_init(4, 256, 64, 1u << 18, cases[c].pol, g_seed);
    memcpy(g_chip.strip, cases[c].strip, sizeof g_chip.strip);
    job_t j;
    assert_true(job_make(&j, 40, 20, 12, true, true, true));
    tsr_gemm_opts_t o = {.spad_buf = TSR_BUF_DOUBLE, .acc_buf = TSR_BUF_DOUBLE, .max_mt = 8,
                         .max_kc = 8};
    bool ok = run_job(&j, &o, why, sizeof why);
    if (ok) {
      fail_msg("stripping the %s tokens went unnoticed under %s", cases[c].name,
               k_policy_name[cases[c].pol]);
    }
    job_free(&j);
  }
  /* And with the tokens in place, the same job passes under the same schedules
   * (also with the table, loaded before the first tile, and leaky). */
  for (size_t c = 0; c < 2 * sizeof cases / sizeof cases[0]; c++) {
    g_rng = g_seed;
    const size_t pc = c % (sizeof cases / sizeof cases[0]);
    const bool fused = c >= sizeof cases / sizeof cases[0];
    chip_init(4, 256 + (fused ? 64 : 0), 64, 1u << 18, cases[pc].pol, g_seed);
    job_t j;
    assert_true(job_make_fused(&j, 40, 20, 12, true, true, true, fused, fused));
    tsr_gemm_opts_t o = {.spad_buf = TSR_BUF_DOUBLE, .acc_buf = TSR_BUF_DOUBLE, .max_mt = 8,
                         .max_kc = 8};
    if (!run_job(&j, &o, why, sizeof why)) {
      fail_msg("seed %u, %s%s: %s", g_seed, k_policy_name[cases[pc].pol], fused ? " fused" : "",
               why);
    }
    job_free(&j);
  }
  chip_free();
}

static void engine_errors_reach_the_caller(void **state) {
  (void)state;
  g_rng = g_seed;
  chip_init(8, 4096, 1024, 1u << 16, POL_SERIAL, g_seed);
  job_t j;
  assert_true(job_make(&j, 10, 10, 10, true, false, true));
  j.d.b_addr = 0x100000u; /* valid address, but past the fake's 64 KiB memory: BUS_READ */
  open_chip();
  tsr_gemm_plan_t p;
  assert_int_equal(tsr_gemm_plan(&g_dev.info, &j.d, &p), TSR_OK);
  assert_int_equal(tsr_gemm_run(&g_dev, &j.d, &p, NULL, NULL), TSR_HW_ERROR);
  assert_non_null(strstr(tsr_dev_error(&g_dev), "BUS_READ"));
  /* A plan made for another descriptor is refused before anything is submitted. */
  open_chip();
  size_t before = g_chip.nprog;
  tsr_gemm_desc_t other = j.d;
  other.b_addr = j.d.b_addr;
  other.k = 33;
  assert_int_equal(tsr_gemm_run(&g_dev, &other, &p, NULL, NULL), TSR_BAD_ARG);
  assert_int_equal(g_chip.nprog, before);
  job_free(&j);
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
  printf("test_tiler: seed %u (replay with --seed %u or TSR_SEED=%u)\n", g_seed, g_seed, g_seed);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(plans_for_awkward_shapes_keep_the_invariants),
      cmocka_unit_test(k_larger_than_the_scratchpad_is_chunked),
      cmocka_unit_test(whole_k_keeps_k_in_one_chunk_or_refuses),
      cmocka_unit_test(conv_tiles_follow_long_output_rows),
      cmocka_unit_test(m_larger_than_the_accumulator_is_tiled),
      cmocka_unit_test(memories_too_small_are_reported_not_overrun),
      cmocka_unit_test(fewer_store_lanes_slow_the_stores),
      cmocka_unit_test(back_to_back_matmuls_cost_their_rows_only),
      cmocka_unit_test(ring_fetch_bursts_cost_a_latency_each),
      cmocka_unit_test(bad_descriptors_are_rejected),
      cmocka_unit_test(executor_matches_golden_on_fixed_awkward_shapes),
      cmocka_unit_test(executor_matches_golden_on_random_jobs_under_every_schedule),
      cmocka_unit_test(parameter_loads_are_merged_when_they_can_be),
      cmocka_unit_test(contiguous_chunk_rows_load_as_one_row),
      cmocka_unit_test(tail_token_is_popped_after_the_last_store),
      cmocka_unit_test(last_tile_stores_are_not_serial),
      cmocka_unit_test(conv_loads_and_stores_are_not_serial),
      cmocka_unit_test(depthwise_runs_tile_per_group_or_every_group),
      cmocka_unit_test(every_token_class_is_needed),
      cmocka_unit_test(engine_errors_reach_the_caller),
  };
  return cmocka_run_group_tests_name("tiler", tests, NULL, NULL);
}
