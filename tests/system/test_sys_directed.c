/* test_sys_directed.c: whole-chip checks of command features the firmware's GEMMs do not use. */
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
#include "tessera_regs.h"
#include "tsr_ring.h"

/*
 * Raw commands (docs/commands.md) on the Verilated chip, results read back
 * through a raw-int32 STORE and compared with values computed here:
 *   - MATMUL KEEP_WEIGHTS multiplies with the weights of the previous MATMUL,
 *     even after the scratchpad rows they came from were overwritten, and
 *     the weights are zero outside K x N;
 *   - LOAD cuts each external row into chunks (N bytes to the scratchpad, 4N
 *     to the accumulator), chunk c of row r lands in row LOCAL + c*ROWS + r,
 *     and the tail of the last chunk is zero-filled;
 *   - FENCE with its IRQ flag raises IRQ_STATUS.FENCE, the idle engine
 *     raises IRQ_STATUS.DONE and STATUS.DONE, both drive irq_o when enabled;
 *   - MATMUL with K > N (T = ceil(K/N) tiles, tile t's A rows at A_ADDR + t*M,
 *     its weight rows at W_ADDR + t*N), at M = 1, M < N and M > N, K not a
 *     multiple of N, weight and A rows in different scratchpad banks (weights
 *     loaded beside the stream) and in the same bank (a serial load per
 *     tile), overwrite then ACCUMULATE, back to back, then KEEP_WEIGHTS (the
 *     last tile's weights);
 *   - the weight loads of one such MATMUL are hidden: through the command
 *     ring, M = 1 and M = 8 with K = 1024 (fewer where the scratchpad is
 *     small), CNT_BUSY of one MATMUL against T one-tile MATMULs; printed,
 *     and one MATMUL must take at most T * max(M, N) + 64 cycles.
 *
 * usage: test_sys_directed --dim N [--seed S]   (seed: $TSR_SEED, else the clock)
 */

static unsigned g_dim;
static uint32_t g_seed;

#define SRC_ADDR 0x10003u  /* operands (odd) */
#define DST_ADDR 0x80001u  /* results (odd) */

#define EXPECT_EQ(what, got, want)                                                             \
  do {                                                                                         \
    const long long got_ = (long long)(got);                                                   \
    const long long want_ = (long long)(want);                                                 \
    if (got_ != want_) {                                                                       \
      fail_msg("(seed %u) %s = %lld, expected %lld", g_seed, what, got_, want_);               \
    }                                                                                          \
  } while (0)

typedef struct fx {
  sys_env_t env;
  sys_rng_t rng;
} fx_t;

/* The fixture: the simulator with `stall_pct` % random memory stalls, and an RNG stream. */
static int open_fixture(void **state, uint32_t stall_pct, uint32_t stream) {
  fx_t *f = calloc(1, sizeof *f);
  if (f == NULL) {
    return -1;
  }
  tsr_sim_cfg_t cfg;
  sys_sim_cfg_default(&cfg);
  cfg.stall_pct = stall_pct;
  cfg.seed = g_seed;
  char err[512];
  if (sys_open(&f->env, g_dim, &cfg, err, sizeof err) != TSR_OK) {
    fprintf(stderr, "test_sys_directed: cannot open the simulator for --dim %u: %s\n", g_dim, err);
    free(f);
    return -1;
  }
  sys_rng_seed(&f->rng, g_seed, stream);
  *state = f;
  return 0;
}

static int setup(void **state) { return open_fixture(state, 20u, 11u); }

/* No memory stalls: the cycle counts are the engine's alone. */
static int setup_timed(void **state) { return open_fixture(state, 0u, 12u); }

static int teardown(void **state) {
  fx_t *f = *state;
  sys_close(&f->env);
  free(f);
  return 0;
}

static void push(fx_t *f, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3, uint32_t w4,
                 uint32_t w5) {
  const uint32_t w[TSR_CMD_WORDS] = {w0, w1, w2, w3, w4, w5, 0u, 0u};
  assert_int_equal(sys_push_raw(&f->env, w), TSR_OK);
}

/* The commands carry the dependency tokens docs/commands.md asks for, so they
 * stay correct on an engine that overlaps its load, compute and store stages. */
static void load(fx_t *f, uint32_t deps, bool acc, uint32_t addr, uint32_t stride, uint32_t rows,
                 uint32_t cols, uint32_t local) {
  push(f, TSR_OP_LOAD | deps | (acc ? 1u << TSR_LOAD_DEST_ACC_BIT : 0u), addr, stride,
       TSR_CMD_PUT(TSR_CMD_LOAD_W3_ROWS, rows) | TSR_CMD_PUT(TSR_CMD_LOAD_W3_COLS, cols), local, 0u);
}

/* Raw int32 STORE of `rows` full accumulator rows (N values each), after
 * the compute stage's token. */
static void store_raw(fx_t *f, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t src) {
  push(f, TSR_OP_STORE | TSR_DEP_POP_PREV, addr, stride, TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, rows) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, g_dim), src, 0u);
}

/* Raw int32 STORE of accumulator rows 0..rows-1 to DST_ADDR, untokened; waits. */
static void wait_ok(fx_t *f);
static void store_raw_tokenless(fx_t *f, uint32_t rows) {
  push(f, TSR_OP_STORE, DST_ADDR, 4u * g_dim + 3u,
       TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, rows) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, g_dim), 0u, 0u);
  wait_ok(f);
}

static void wait_ok(fx_t *f) {
  uint32_t status = 0;
  assert_int_equal(sys_wait_stopped(&f->env, SYS_POLL_LIMIT, &status), TSR_OK);
  if ((status & (1u << TSR_STATUS_ERROR_BIT)) != 0u) {
    uint32_t code = 0, idx = 0;
    (void)tsr_read_error(&f->env.dev, &code, &idx, NULL);
    fail_msg("(seed %u) the engine stopped: %s at command %u", g_seed, tsr_hw_error_str(code), idx);
  }
}

static void put_random(fx_t *f, uint32_t addr, uint8_t *buf, size_t n) {
  sys_rng_fill(&f->rng, buf, n);
  assert_int_equal(tsr_hal_mem_write(&f->env.hal, addr, buf, n), TSR_OK);
}

static int32_t le32(const uint8_t *p) {
  uint32_t u = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
               ((uint32_t)p[3] << 24);
  int32_t v;
  memcpy(&v, &u, sizeof v);
  return v;
}

static void keep_weights_multiplies_with_the_weights_already_in_the_array(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  const uint32_t kk = (uint32_t)sys_rng_range(&f->rng, 1, n);
  const uint32_t nn = (uint32_t)sys_rng_range(&f->rng, 1, n);
  const uint32_t m = (uint32_t)sys_rng_range(&f->rng, 1, 3u * n);
  uint8_t *src = malloc((size_t)(2u * m + 2u * n) * n);
  assert_non_null(src);
  /* Scratchpad: A1 rows [0, m), W rows [m, m+n), A2 rows [m+n, 2m+n). */
  put_random(f, SRC_ADDR, src, (size_t)(2u * m + n) * n);
  assert_int_equal(sys_soft_reset(&f->env), TSR_OK);
  load(f, TSR_DEP_PUSH_NEXT, false, SRC_ADDR, n, 2u * m + n, n, 0u);
  push(f, TSR_OP_MATMUL | TSR_DEP_POP_PREV | TSR_DEP_PUSH_PREV, 0u, m, 0u, TSR_CMD_PUT(TSR_CMD_MATMUL_W4_M, m) | TSR_CMD_PUT(TSR_CMD_MATMUL_W4_K, kk), nn);
  /* Overwrite the weight rows in the scratchpad: the array must keep its copy. */
  put_random(f, SRC_ADDR + (2u * m + n) * n, src + (size_t)(2u * m + n) * n, (size_t)n * n);
  load(f, TSR_DEP_POP_NEXT, false, SRC_ADDR + (2u * m + n) * n, n, n, n, m);
  push(f, TSR_OP_MATMUL | TSR_DEP_PUSH_NEXT | (1u << TSR_MATMUL_KEEP_WEIGHTS_BIT), m + n, 0u, m, m,
       0u);
  const uint32_t stride = 4u * n + 3u;
  store_raw(f, DST_ADDR, stride, 2u * m, 0u);
  wait_ok(f);

  uint8_t *out = malloc((size_t)2u * m * stride);
  assert_non_null(out);
  assert_int_equal(tsr_hal_mem_read(&f->env.hal, DST_ADDR, out, (size_t)2u * m * stride), TSR_OK);
  const int8_t *a1 = (const int8_t *)src;
  const int8_t *w = a1 + (size_t)m * n;
  const int8_t *a2 = w + (size_t)n * n;
  for (uint32_t i = 0; i < 2u * m; i++) {
    const int8_t *a = i < m ? a1 + (size_t)i * n : a2 + (size_t)(i - m) * n;
    for (uint32_t j = 0; j < n; j++) {
      int32_t want = 0;
      for (uint32_t r = 0; r < kk && j < nn; r++) {
        want += (int32_t)a[r] * (int32_t)w[(size_t)r * n + j];
      }
      int32_t got = le32(out + (size_t)i * stride + 4u * j);
      if (got != want) {
        fail_msg("(seed %u) K %u N %u M %u: %s row %u col %u = %" PRId32 ", expected %" PRId32,
                 g_seed, kk, nn, m, i < m ? "MATMUL" : "MATMUL KEEP_WEIGHTS", i < m ? i : i - m, j,
                 got, want);
      }
    }
  }
  free(out);
  free(src);
}

static void load_cuts_rows_into_zero_filled_chunks(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  /* Per destination: three chunks with a partial last one and several rows
   * (the zero fill and the chunk order always show), then a random shape. */
  for (unsigned it = 0; it < 4u; it++) {
    const bool acc = (it & 1u) != 0u;
    const uint32_t chunk = acc ? 4u * n : n;
    const uint32_t rows = (uint32_t)sys_rng_range(&f->rng, it < 2u ? 2 : 1, 9);
    const uint32_t cols = it < 2u ? 2u * chunk + (uint32_t)sys_rng_range(&f->rng, 1, chunk - 1u)
                                  : (uint32_t)sys_rng_range(&f->rng, 1, 3u * chunk);
    const uint32_t stride = cols + (uint32_t)sys_rng_range(&f->rng, 0, 7);
    const uint32_t nchunks = (cols + chunk - 1u) / chunk;
    const uint32_t local = (uint32_t)sys_rng_range(&f->rng, 0, 40);
    const uint32_t total = nchunks * rows;
    uint8_t *src = malloc((size_t)rows * stride);
    assert_non_null(src);
    put_random(f, SRC_ADDR, src, (size_t)rows * stride);
    assert_int_equal(sys_soft_reset(&f->env), TSR_OK);
    if (acc) {
      /* Fill the target rows with a pattern first, so the zero fill shows. */
      uint8_t *pat = malloc((size_t)total * 4u * n);
      assert_non_null(pat);
      memset(pat, 0xee, (size_t)total * 4u * n);
      assert_int_equal(tsr_hal_mem_write(&f->env.hal, 0x60000u, pat, (size_t)total * 4u * n),
                       TSR_OK);
      free(pat);
      load(f, 0u, true, 0x60000u, 4u * n, total, 4u * n, local);
      load(f, TSR_DEP_PUSH_NEXT, true, SRC_ADDR, stride, rows, cols, local);
    } else {
      /* Scratchpad rows reach memory through a MATMUL with the identity:
       * acc[i][j] = int8(spad[local + i][j]). */
      uint8_t *id = calloc((size_t)n * n, 1u);
      uint8_t *pat = malloc((size_t)total * n);
      assert_non_null(id);
      assert_non_null(pat);
      for (uint32_t r = 0; r < n; r++) {
        id[(size_t)r * n + r] = 1u;
      }
      memset(pat, 0xee, (size_t)total * n);
      assert_int_equal(tsr_hal_mem_write(&f->env.hal, 0x60000u, id, (size_t)n * n), TSR_OK);
      assert_int_equal(tsr_hal_mem_write(&f->env.hal, 0x70000u, pat, (size_t)total * n), TSR_OK);
      load(f, 0u, false, 0x60000u, n, n, n, 200u);
      load(f, 0u, false, 0x70000u, n, total, n, local);
      load(f, TSR_DEP_PUSH_NEXT, false, SRC_ADDR, stride, rows, cols, local);
      push(f, TSR_OP_MATMUL | TSR_DEP_POP_PREV | TSR_DEP_PUSH_NEXT, local, 200u, 0u,
           TSR_CMD_PUT(TSR_CMD_MATMUL_W4_M, total) | TSR_CMD_PUT(TSR_CMD_MATMUL_W4_K, n), n);
      free(id);
      free(pat);
    }
    const uint32_t ostride = 4u * n + 1u;
    store_raw(f, DST_ADDR, ostride, total, acc ? local : 0u);
    wait_ok(f);
    uint8_t *out = malloc((size_t)total * ostride);
    assert_non_null(out);
    assert_int_equal(tsr_hal_mem_read(&f->env.hal, DST_ADDR, out, (size_t)total * ostride),
                     TSR_OK);
    for (uint32_t c = 0; c < nchunks; c++) {
      for (uint32_t r = 0; r < rows; r++) {
        const uint8_t *row = out + (size_t)(c * rows + r) * ostride;
        for (uint32_t b = 0; b < chunk; b++) {
          uint32_t col = c * chunk + b;
          int32_t want;
          int32_t got;
          if (acc) {
            /* Byte b of the 4N-byte accumulator row, as stored (little endian). */
            want = col < cols ? src[(size_t)r * stride + col] : 0;
            got = row[b];
          } else {
            want = col < cols ? (int8_t)src[(size_t)r * stride + col] : 0;
            got = le32(row + 4u * b);
          }
          if (got != want) {
            fail_msg("(seed %u) LOAD to the %s, %u rows x %u bytes (stride %u) at local %u: "
                     "row %u byte %u (chunk %u, local row %u) = %" PRId32 ", expected %" PRId32,
                     g_seed, acc ? "accumulator" : "scratchpad", rows, cols, stride, local, r, col,
                     c, local + c * rows + r, got, want);
          }
        }
      }
    }
    free(out);
    free(src);
  }
}

static void fence_irq_and_done_raise_their_status_bits(void **state) {
  fx_t *f = *state;
  sys_env_t *e = &f->env;
  const uint32_t irq_done = 1u << TSR_IRQ_STATUS_DONE_BIT;
  const uint32_t irq_fence = 1u << TSR_IRQ_STATUS_FENCE_BIT;
  uint32_t v = 0;
  assert_int_equal(sys_soft_reset(e), TSR_OK);
  assert_int_equal(sys_wr(e, TSR_IRQ_ENABLE_REG_OFFSET, irq_fence), TSR_OK);
  /* A FENCE without its flag raises nothing; with it, FENCE rises. */
  load(f, 0u, false, SRC_ADDR, g_dim, 64u, g_dim, 0u);
  push(f, TSR_OP_FENCE, 0u, 0u, 0u, 0u, 0u);
  wait_ok(f);
  assert_int_equal(sys_rd(e, TSR_IRQ_STATUS_REG_OFFSET, &v), TSR_OK);
  EXPECT_EQ("IRQ_STATUS after LOAD, FENCE (no IRQ flag), idle", v, irq_done);
  EXPECT_EQ("irq_o with only FENCE enabled", sys_irq_level(e), 0);
  assert_int_equal(sys_rd(e, TSR_STATUS_REG_OFFSET, &v), TSR_OK);
  EXPECT_EQ("STATUS when idle after the job", v, 1u << TSR_STATUS_DONE_BIT);
  assert_int_equal(sys_wr(e, TSR_IRQ_STATUS_REG_OFFSET, irq_done), TSR_OK);

  load(f, 0u, false, SRC_ADDR, g_dim, 64u, g_dim, 0u);
  push(f, TSR_OP_FENCE | (1u << TSR_FENCE_IRQ_BIT), 0u, 0u, 0u, 0u, 0u);
  EXPECT_EQ("wait_irq for the FENCE", e->hal.ops->wait_irq(e->hal.ctx, 1000000u), TSR_OK);
  assert_int_equal(sys_rd(e, TSR_IRQ_STATUS_REG_OFFSET, &v), TSR_OK);
  EXPECT_EQ("IRQ_STATUS.FENCE after a FENCE with IRQ", v & irq_fence, irq_fence);
  assert_int_equal(sys_wr(e, TSR_IRQ_STATUS_REG_OFFSET, irq_fence), TSR_OK);
  EXPECT_EQ("irq_o after clearing FENCE", sys_irq_level(e), 0);
  wait_ok(f);
  assert_int_equal(sys_rd(e, TSR_IRQ_STATUS_REG_OFFSET, &v), TSR_OK);
  EXPECT_EQ("IRQ_STATUS once idle", v, irq_done);
  assert_int_equal(sys_wr(e, TSR_IRQ_ENABLE_REG_OFFSET, irq_done), TSR_OK);
  EXPECT_EQ("irq_o with DONE enabled", sys_irq_level(e), 1);
  assert_int_equal(sys_wr(e, TSR_IRQ_STATUS_REG_OFFSET, irq_done), TSR_OK);
  EXPECT_EQ("irq_o after clearing DONE", sys_irq_level(e), 0);
  assert_int_equal(sys_wr(e, TSR_IRQ_ENABLE_REG_OFFSET, 0u), TSR_OK);
}

/* C[i][j] (+)= sum_r A[i][r] * W[r][j] for j < nn, from the host's copies:
 * A is m x k (row-major), W is k x n (row-major, n = ARRAY_DIM bytes a row). */
static void gemm_ref(int32_t *c, const int8_t *a, const int8_t *w, uint32_t m, uint32_t k, uint32_t nn,
                     bool accumulate) {
  const uint32_t n = g_dim;
  for (uint32_t i = 0; i < m; i++) {
    for (uint32_t j = 0; j < n; j++) {
      int64_t sum = 0;
      for (uint32_t r = 0; r < k && j < nn; r++) {
        sum += (int32_t)a[(size_t)i * k + r] * (int32_t)w[(size_t)r * n + j];
      }
      int32_t *dst = &c[(size_t)i * n + j];
      *dst = (int32_t)((accumulate ? (uint32_t)*dst : 0u) + (uint32_t)sum);
    }
  }
}

static uint32_t matmul_w4(uint32_t m, uint32_t k) {
  return TSR_CMD_PUT(TSR_CMD_MATMUL_W4_M, m) | TSR_CMD_PUT(TSR_CMD_MATMUL_W4_K, k);
}

static void expect_rows(fx_t *f, const int32_t *want, uint32_t m, const char *what) {
  const uint32_t n = g_dim;
  const uint32_t stride = 4u * n + 3u;
  uint8_t *out = malloc((size_t)m * stride);
  assert_non_null(out);
  assert_int_equal(tsr_hal_mem_read(&f->env.hal, DST_ADDR, out, (size_t)m * stride), TSR_OK);
  for (uint32_t i = 0; i < m; i++) {
    for (uint32_t j = 0; j < n; j++) {
      const int32_t got = le32(out + (size_t)i * stride + 4u * j);
      if (got != want[(size_t)i * n + j]) {
        fail_msg("(seed %u) %s: row %u col %u = %" PRId32 ", expected %" PRId32, g_seed, what, i, j, got,
                 want[(size_t)i * n + j]);
      }
    }
  }
  free(out);
}

static void multi_tile_matmuls_are_bit_exact(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  const uint32_t half = f->env.dev.info.spad_rows / 2u;
  for (unsigned cs = 0; cs < 12u; cs++) {
    uint32_t m;
    switch (cs % 3u) {
      case 0: m = 1u; break;
      case 1: m = (uint32_t)sys_rng_range(&f->rng, 2, n); break;
      default: m = (uint32_t)sys_rng_range(&f->rng, n + 1u, 3u * n); break;
    }
    /* Two MATMULs into the same rows (overwrite, then ACCUMULATE), K > N. */
    const uint32_t k1 = (cs % 4u == 0u) ? 4u * n : (uint32_t)sys_rng_range(&f->rng, n + 1u, 5u * n);
    const uint32_t k2 = (uint32_t)sys_rng_range(&f->rng, n + 1u, 3u * n);
    const uint32_t nn = (uint32_t)sys_rng_range(&f->rng, 1, n);
    const uint32_t t1 = (k1 + n - 1u) / n, t2 = (k2 + n - 1u) / n;
    /* Weights in the upper scratchpad bank (loaded beside the A rows), or, one
     * case in three, right after the A rows in the lower bank (serial). */
    const bool same_bank = (cs % 3u) == 2u;
    const uint32_t a1 = 0u, a2 = t1 * m;
    const uint32_t w1 = same_bank ? a2 + t2 * m : half + 5u;
    const uint32_t w2 = w1 + k1;
    assert_true(w2 + k2 <= (same_bank ? half : 2u * half));
    int8_t *ha1 = malloc((size_t)m * k1), *ha2 = malloc((size_t)m * k2);
    int8_t *hw1 = malloc((size_t)k1 * n), *hw2 = malloc((size_t)k2 * n);
    int32_t *want = malloc((size_t)m * n * sizeof *want);
    assert_true(ha1 && ha2 && hw1 && hw2 && want);
    uint32_t addr = SRC_ADDR;
    const uint32_t at_a1 = addr; put_random(f, addr, (uint8_t *)ha1, (size_t)m * k1); addr += m * k1;
    const uint32_t at_a2 = addr; put_random(f, addr, (uint8_t *)ha2, (size_t)m * k2); addr += m * k2;
    const uint32_t at_w1 = addr; put_random(f, addr, (uint8_t *)hw1, (size_t)k1 * n); addr += k1 * n;
    const uint32_t at_w2 = addr; put_random(f, addr, (uint8_t *)hw2, (size_t)k2 * n);
    /* Untokened (serial) code: each command runs after the ones before. A
     * K-wide LOAD puts chunk t of row i at LOCAL + t*M + i: tile t's A rows. */
    load(f, 0u, false, at_a1, k1, m, k1, a1);
    load(f, 0u, false, at_a2, k2, m, k2, a2);
    load(f, 0u, false, at_w1, n, k1, n, w1);
    load(f, 0u, false, at_w2, n, k2, n, w2);
    push(f, TSR_OP_MATMUL, a1, w1, 0u, matmul_w4(m, k1), nn);
    push(f, TSR_OP_MATMUL | (1u << TSR_MATMUL_ACCUMULATE_BIT), a2, w2, 0u, matmul_w4(m, k2), nn);
    push(f, TSR_OP_STORE, DST_ADDR, 4u * n + 3u,
         TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, m) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, n), 0u, 0u);
    wait_ok(f);
    gemm_ref(want, ha1, hw1, m, k1, nn, false);
    gemm_ref(want, ha2, hw2, m, k2, nn, true);
    char what[160];
    snprintf(what, sizeof what, "M %u, K %u (%u tiles) then K %u accumulated, N %u, %s", m, k1, t1, k2, nn,
             same_bank ? "weights in the A rows' bank" : "weights in the other bank");
    expect_rows(f, want, m, what);
    /* KEEP_WEIGHTS after it multiplies by its last tile: rows (t2-1)*N .. K2-1. */
    push(f, TSR_OP_MATMUL | (1u << TSR_MATMUL_KEEP_WEIGHTS_BIT), a1, 0u, 0u, matmul_w4(m, 0u), 0u);
    push(f, TSR_OP_STORE, DST_ADDR, 4u * n + 3u,
         TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, m) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, n), 0u, 0u);
    wait_ok(f);
    const uint32_t last = (t2 - 1u) * n, kl = k2 - last;
    int8_t *ha = malloc((size_t)m * kl);
    assert_non_null(ha);
    for (uint32_t i = 0; i < m; i++) {
      memcpy(ha + (size_t)i * kl, ha1 + (size_t)i * k1, kl);   /* tile 0 of A1: row i's first bytes */
    }
    gemm_ref(want, ha, hw2 + (size_t)last * n, m, kl, nn, false);
    snprintf(what, sizeof what, "KEEP_WEIGHTS after a MATMUL of K %u (last tile %u rows), M %u", k2, kl, m);
    expect_rows(f, want, m, what);
    free(ha);
    free(ha1); free(ha2); free(hw1); free(hw2); free(want);
  }
}

/* CNT_BUSY of commands fetched through the ring, from a counter clear. */
static uint64_t ring_busy(fx_t *f, const tsr_cmd_t *cmds, uint32_t count) {
  assert_int_equal(sys_wr(&f->env, TSR_CTRL_REG_OFFSET, 1u << TSR_CTRL_COUNTERS_CLEAR_BIT), TSR_OK);
  for (uint32_t i = 0; i < count; i++) {
    assert_int_equal(tsr_ring_append(&f->env.dev, &cmds[i]), TSR_OK);
  }
  assert_int_equal(tsr_ring_flush(&f->env.dev), TSR_OK);
  wait_ok(f);
  uint32_t lo = 0, hi = 0;
  assert_int_equal(sys_rd(&f->env, TSR_CNT_BUSY_LO_REG_OFFSET, &lo), TSR_OK);
  assert_int_equal(sys_rd(&f->env, TSR_CNT_BUSY_HI_REG_OFFSET, &hi), TSR_OK);
  return ((uint64_t)hi << 32) | lo;
}

static void multi_tile_matmul_hides_the_weight_loads(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  const uint32_t half = f->env.dev.info.spad_rows / 2u;
  static const uint32_t ms[] = {1u, 8u};
  for (unsigned v = 0; v < 2u; v++) {
    const uint32_t m = ms[v];
    uint32_t k = 1024u;
    while ((k / n) * m > half || k > half) {
      k /= 2u;
    }
    const uint32_t t = k / n;
    int8_t *ha = malloc((size_t)m * k), *hw = malloc((size_t)k * n);
    int32_t *want = malloc((size_t)m * n * sizeof *want);
    tsr_cmd_t *cmds = calloc(t, sizeof *cmds);
    assert_true(ha && hw && want && cmds);
    put_random(f, SRC_ADDR, (uint8_t *)ha, (size_t)m * k);
    put_random(f, SRC_ADDR + m * k, (uint8_t *)hw, (size_t)k * n);
    load(f, 0u, false, SRC_ADDR, k, m, k, 0u);              /* A: lower bank */
    load(f, 0u, false, SRC_ADDR + m * k, n, k, n, half);    /* W: upper bank */
    wait_ok(f);
    gemm_ref(want, ha, hw, m, k, n, false);
    tsr_ring_t ring;
    memset(&ring, 0, sizeof ring);
    assert_int_equal(tsr_ring_attach(&f->env.dev, &ring, 0x200000u, 8192u), TSR_OK);
    /* Before: T one-tile MATMULs, as a tiler without K > N emits them. */
    for (uint32_t i = 0; i < t; i++) {
      cmds[i].w[0] = TSR_OP_MATMUL | (i > 0u ? 1u << TSR_MATMUL_ACCUMULATE_BIT : 0u);
      cmds[i].w[1] = i * m;
      cmds[i].w[2] = half + i * n;
      cmds[i].w[4] = matmul_w4(m, n);
      cmds[i].w[5] = n;
    }
    const uint64_t before = ring_busy(f, cmds, t);
    store_raw_tokenless(f, m);
    expect_rows(f, want, m, "one-tile MATMULs");
    /* After: one MATMUL of K rows. */
    tsr_cmd_t one = {{TSR_OP_MATMUL, 0u, half, 0u, matmul_w4(m, k), n, 0u, 0u}};
    const uint64_t after = ring_busy(f, &one, 1u);
    store_raw_tokenless(f, m);
    expect_rows(f, want, m, "one MATMUL of K > N");
    assert_int_equal(tsr_ring_detach(&f->env.dev), TSR_OK);
    const uint32_t per = m > n ? m : n;
    printf("  N %u, M %u, K %u (%u tiles): %u one-tile MATMULs %" PRIu64 " busy cycles (%.1f a tile), "
           "one MATMUL %" PRIu64 " (%.1f a tile)\n",
           n, m, k, t, t, before, (double)before / t, after, (double)after / t);
    if (after > (uint64_t)t * per + 64u) {
      fail_msg("(seed %u) N %u M %u K %u: one MATMUL took %" PRIu64 " cycles, more than T * max(M, N) + 64 = %u",
               g_seed, n, m, k, after, t * per + 64u);
    }
    free(ha); free(hw); free(want); free(cmds);
  }
}

int main(int argc, char **argv) {
  if (sys_parse_dim_seed("test_sys_directed", argc, argv, &g_dim, &g_seed) != 0) {
    return 2;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(keep_weights_multiplies_with_the_weights_already_in_the_array,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(load_cuts_rows_into_zero_filled_chunks, setup, teardown),
      cmocka_unit_test_setup_teardown(fence_irq_and_done_raise_their_status_bits, setup, teardown),
      cmocka_unit_test_setup_teardown(multi_tile_matmuls_are_bit_exact, setup, teardown),
      cmocka_unit_test_setup_teardown(multi_tile_matmul_hides_the_weight_loads, setup_timed, teardown),
  };
  return cmocka_run_group_tests_name("system directed", tests, NULL, NULL);
}
