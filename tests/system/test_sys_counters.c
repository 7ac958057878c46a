/* test_sys_counters.c: the CNT_* performance counters on the whole chip: exact after jobs, cleared, kept over soft reset. */
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

/*
 * usage: test_sys_counters --dim N [--seed S]   (seed: $TSR_SEED, else the clock)
 */

static unsigned g_dim;
static uint32_t g_seed;

/* cmocka 1.1.5 prints integers in hex only; print the name and both values in decimal. */
#define EXPECT_EQ(what, got, want)                                                             \
  do {                                                                                         \
    const unsigned long long got_ = (unsigned long long)(got);                                 \
    const unsigned long long want_ = (unsigned long long)(want);                               \
    if (got_ != want_) {                                                                       \
      fail_msg("(seed %u) %s = %llu, expected %llu", g_seed, what, got_, want_);               \
    }                                                                                          \
  } while (0)

#define EXPECT_TRUE(cond, ...)                                                                 \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      char why_[320];                                                                          \
      snprintf(why_, sizeof why_, __VA_ARGS__);                                                \
      fail_msg("(seed %u) %s", g_seed, why_);                                                  \
    }                                                                                          \
  } while (0)

static int setup(void **state) {
  sys_env_t *e = calloc(1, sizeof *e);
  if (e == NULL) {
    return -1;
  }
  tsr_sim_cfg_t cfg;
  sys_sim_cfg_default(&cfg);
  cfg.rd_latency = 7u;
  cfg.wr_latency = 13u;
  char err[512];
  if (sys_open(e, g_dim, &cfg, err, sizeof err) != TSR_OK) {
    fprintf(stderr, "test_sys_counters: cannot open the simulator for --dim %u: %s\n", g_dim, err);
    free(e);
    return -1;
  }
  *state = e;
  return 0;
}

static int teardown(void **state) {
  sys_env_t *e = *state;
  sys_close(e);
  free(e);
  return 0;
}

static tsr_counters_t counters(sys_env_t *e) {
  tsr_counters_t c;
  tsr_status_t st = tsr_counters_read(&e->dev, &c);
  if (st != TSR_OK) {
    fail_msg("tsr_counters_read: %s", tsr_dev_error(&e->dev));
  }
  return c;
}

/* A GEMM with bias and per-channel requantization (the first such case
 * from seeds g_seed, g_seed + 1, ...), run through sys_case_run, which checks
 * it bit-exact. */
static void run_gemm(sys_env_t *e, sys_case_t *c, sys_case_result_t *res) {
  sys_shape_cfg_t shape = {120u, 0u, 1u, 0u, 1u};
  uint32_t seed = g_seed;
  do {
    sys_case_make(seed++, &shape, SYS_MEM_SIZE, c);
  } while (!c->d.per_channel || !c->d.has_bias);
  char why[512];
  if (sys_case_run(e, c, res, why, sizeof why) != 0) {
    char desc[512];
    sys_case_describe(c, desc, sizeof desc);
    fail_msg("(seed %u) the GEMM failed (case seed %u): %s; case: %s", g_seed, c->seed, why, desc);
  }
}

/* The six time classes partition the busy cycles (tsr_perf.v). */
static void check_partition(const tsr_counters_t *c, const char *when) {
  const uint64_t sum = c->array + c->fill + c->load_wait + c->store + c->sfu + c->ctrl;
  EXPECT_TRUE(sum == c->busy,
              "%s: ARRAY %" PRIu64 " + FILL %" PRIu64 " + LOAD_WAIT %" PRIu64 " + STORE %" PRIu64
              " + SFU %" PRIu64 " + CTRL %" PRIu64 " = %" PRIu64 ", but BUSY is %" PRIu64,
              when, c->array, c->fill, c->load_wait, c->store, c->sfu, c->ctrl, sum, c->busy);
  EXPECT_TRUE(c->rd_stall <= c->cycles && c->wr_stall <= c->cycles,
              "%s: RD_STALL %" PRIu64 ", WR_STALL %" PRIu64 " exceed CYCLES %" PRIu64, when,
              c->rd_stall, c->wr_stall, c->cycles);
}

static void counters_after_a_gemm_match_the_job(void **state) {
  sys_env_t *e = *state;
  sys_case_t c;
  sys_case_result_t r;
  run_gemm(e, &c, &r);
  const tsr_gemm_desc_t *d = &c.d;
  const tsr_counters_t *n = &r.cnt;
  uint64_t macs = (uint64_t)d->m * d->k * d->n;
  printf("  dim %u: %ux%ux%u, %" PRIu64 " commands: CYCLES %" PRIu64 " BUSY %" PRIu64
         " MACS %" PRIu64 " DMA_RD %" PRIu64 " DMA_WR %" PRIu64 " CMDS %" PRIu64 "\n",
         g_dim, d->m, d->k, d->n, r.plan.cmds, n->cycles, n->busy, n->macs, n->dma_rd, n->dma_wr,
         n->cmds);
  EXPECT_EQ("CNT_MACS (m*k*n)", n->macs, macs);
  EXPECT_EQ("CNT_CMDS (commands the firmware planned)", n->cmds, r.plan.cmds);
  EXPECT_EQ("CNT_CMDS (commands the driver pushed)", n->cmds, e->dev.cmds_pushed);
  EXPECT_EQ("CNT_DMA_WR (bytes of C)", n->dma_wr, (uint64_t)d->m * d->n);
  EXPECT_EQ("CNT_DMA_RD (R beats served by the memory model x bus bytes)", n->dma_rd,
            r.rd_beats * e->dev.info.axi_bytes);
  EXPECT_TRUE(n->dma_rd >= r.plan.dma_rd_bytes, "CNT_DMA_RD %" PRIu64 " < %" PRIu64 " payload bytes",
              n->dma_rd, r.plan.dma_rd_bytes);
  EXPECT_TRUE(n->busy > 0u && n->busy <= n->cycles, "CNT_BUSY %" PRIu64 ", CNT_CYCLES %" PRIu64,
              n->busy, n->cycles);
  EXPECT_TRUE(n->cycles <= r.window && n->cycles + 400u >= r.window,
              "CNT_CYCLES %" PRIu64 " but %" PRIu64 " cycles were simulated between clear and read",
              n->cycles, r.window);
  EXPECT_TRUE(n->busy >= macs / ((uint64_t)g_dim * g_dim),
              "CNT_BUSY %" PRIu64 " is below m*k*n / N^2 = %" PRIu64, n->busy,
              macs / ((uint64_t)g_dim * g_dim));
  /* One MATMUL per (row tile, N-column block, N-deep K block), each streaming
   * its tile's rows: every A row enters the array once per block pair. */
  const uint64_t blocks = (uint64_t)((d->n + g_dim - 1u) / g_dim) * ((d->k + g_dim - 1u) / g_dim);
  printf("  time: ARRAY %" PRIu64 " FILL %" PRIu64 " LOAD_WAIT %" PRIu64 " STORE %" PRIu64
         " SFU %" PRIu64 " CTRL %" PRIu64 "; RD_STALL %" PRIu64 " WR_STALL %" PRIu64 "\n",
         n->array, n->fill, n->load_wait, n->store, n->sfu, n->ctrl, n->rd_stall, n->wr_stall);
  EXPECT_EQ("CNT_ARRAY (m * N-column blocks * K blocks)", n->array, (uint64_t)d->m * blocks);
  check_partition(n, "after a GEMM");
  /* The first MATMUL loads its weights and the last one drains (later
   * MATMULs may have theirs preloaded); the first LOAD and the last STORE run
   * alone; the SFU only runs the table load of a fused activation. */
  EXPECT_TRUE(n->fill >= 2u * g_dim && n->load_wait > 0u && n->store > 0u &&
                  (n->sfu != 0u) == d->has_lut,
              "FILL %" PRIu64 " (>= %u: a weight load and a drain), LOAD_WAIT %" PRIu64
              ", STORE %" PRIu64 ", SFU %" PRIu64 " (> 0 exactly with a table: %s)",
              n->fill, 2u * g_dim, n->load_wait, n->store, n->sfu, d->has_lut ? "yes" : "no");
}

static void counters_clear_zeroes_every_counter(void **state) {
  sys_env_t *e = *state;
  sys_case_t c;
  sys_case_result_t r;
  run_gemm(e, &c, &r);
  tsr_counters_t before = counters(e);
  EXPECT_TRUE(before.macs != 0u && before.cmds != 0u && before.dma_rd != 0u && before.dma_wr != 0u &&
                  before.busy != 0u,
              "a counter is zero after the GEMM");
  assert_int_equal(tsr_counters_clear(&e->dev), TSR_OK);
  uint64_t t0 = tsr_hal_cycles(&e->hal);
  tsr_counters_t z = counters(e);
  uint64_t since = tsr_hal_cycles(&e->hal) - t0;
  EXPECT_EQ("CNT_MACS after COUNTERS_CLEAR", z.macs, 0u);
  EXPECT_EQ("CNT_CMDS after COUNTERS_CLEAR", z.cmds, 0u);
  EXPECT_EQ("CNT_DMA_RD after COUNTERS_CLEAR", z.dma_rd, 0u);
  EXPECT_EQ("CNT_DMA_WR after COUNTERS_CLEAR", z.dma_wr, 0u);
  EXPECT_EQ("CNT_BUSY after COUNTERS_CLEAR (idle engine)", z.busy, 0u);
  EXPECT_TRUE(before.array != 0u && before.load_wait != 0u && before.store != 0u,
              "a time counter is zero after the GEMM");
  EXPECT_EQ("CNT_ARRAY + FILL + LOAD_WAIT + STORE + SFU + CTRL after COUNTERS_CLEAR",
            z.array + z.fill + z.load_wait + z.store + z.sfu + z.ctrl, 0u);
  EXPECT_EQ("CNT_RD_STALL + CNT_WR_STALL after COUNTERS_CLEAR", z.rd_stall + z.wr_stall, 0u);
  EXPECT_TRUE(z.cycles <= since + 16u,
              "CNT_CYCLES %" PRIu64 " right after COUNTERS_CLEAR (%" PRIu64 " cycles of reads)",
              z.cycles, since);
  /* An idle engine: CYCLES runs on, BUSY stays 0. */
  tsr_counters_t later = counters(e);
  EXPECT_TRUE(later.cycles > z.cycles, "CNT_CYCLES does not advance (%" PRIu64 ")", later.cycles);
  EXPECT_EQ("CNT_BUSY of an idle engine", later.busy, 0u);
}

static void soft_reset_keeps_the_counters(void **state) {
  sys_env_t *e = *state;
  sys_case_t c;
  sys_case_result_t r;
  run_gemm(e, &c, &r);
  tsr_counters_t a = counters(e);
  assert_int_equal(sys_soft_reset(e), TSR_OK);
  tsr_counters_t b = counters(e);
  EXPECT_EQ("CNT_MACS over a soft reset", b.macs, a.macs);
  EXPECT_EQ("CNT_CMDS over a soft reset", b.cmds, a.cmds);
  EXPECT_EQ("CNT_DMA_RD over a soft reset", b.dma_rd, a.dma_rd);
  EXPECT_EQ("CNT_DMA_WR over a soft reset", b.dma_wr, a.dma_wr);
  EXPECT_TRUE(b.cycles > a.cycles && b.busy >= a.busy,
              "CYCLES %" PRIu64 " -> %" PRIu64 ", BUSY %" PRIu64 " -> %" PRIu64, a.cycles, b.cycles,
              a.busy, b.busy);
}

static void push(sys_env_t *e, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3, uint32_t w4,
                 uint32_t w5) {
  const uint32_t w[TSR_CMD_WORDS] = {w0, w1, w2, w3, w4, w5, 0u, 0u};
  assert_int_equal(sys_push_raw(e, w), TSR_OK);
}

static void wait_idle(sys_env_t *e) {
  uint32_t status = 0;
  assert_int_equal(sys_wait_stopped(e, SYS_POLL_LIMIT, &status), TSR_OK);
  EXPECT_EQ("STATUS.ERROR", (status >> TSR_STATUS_ERROR_BIT) & 1u, 0u);
}

static void directed_commands_count_exactly(void **state) {
  sys_env_t *e = *state;
  const uint32_t n = g_dim;
  const uint32_t beat = e->dev.info.axi_bytes;
  sys_rng_t rng;
  sys_rng_seed(&rng, g_seed, 7u);
  assert_int_equal(sys_soft_reset(e), TSR_OK);
  assert_int_equal(tsr_counters_clear(&e->dev), TSR_OK);

  /* LOAD: whole beats covering each row (rows never share a beat count). */
  const uint32_t rows = (uint32_t)sys_rng_range(&rng, 1, 40);
  const uint32_t cols = (uint32_t)sys_rng_range(&rng, 1, 3u * n);
  const uint32_t stride = cols + (uint32_t)sys_rng_range(&rng, 0, 100);
  const uint32_t addr = (uint32_t)sys_rng_range(&rng, 0x1000, 0x40000);
  uint64_t want_rd = 0;
  for (uint32_t r = 0; r < rows; r++) {
    uint64_t lo = (uint64_t)addr + (uint64_t)r * stride;
    uint64_t first = lo / beat;
    uint64_t last = (lo + cols - 1u) / beat;
    want_rd += (last - first + 1u) * beat;
  }
  push(e, TSR_OP_LOAD, addr, stride, TSR_CMD_PUT(TSR_CMD_LOAD_W3_ROWS, rows) | TSR_CMD_PUT(TSR_CMD_LOAD_W3_COLS, cols), 0u, 0u);
  wait_idle(e);
  tsr_counters_t c = counters(e);
  char what[160];
  snprintf(what, sizeof what, "CNT_DMA_RD after LOAD of %u rows x %u B at 0x%x stride %u", rows,
           cols, addr, stride);
  EXPECT_EQ(what, c.dma_rd, want_rd);
  EXPECT_EQ("CNT_CMDS after one LOAD", c.cmds, 1u);
  EXPECT_EQ("CNT_MACS after a LOAD", c.macs, 0u);
  EXPECT_EQ("CNT_DMA_WR after a LOAD", c.dma_wr, 0u);
  EXPECT_TRUE(c.array == 0u && c.fill == 0u && c.store == 0u && c.load_wait > 0u &&
                  c.rd_stall > 0u && c.wr_stall == 0u,
              "after a LOAD: ARRAY %" PRIu64 " FILL %" PRIu64 " STORE %" PRIu64 " (all 0), LOAD_WAIT %" PRIu64
              ", RD_STALL %" PRIu64 " (> 0), WR_STALL %" PRIu64 " (0)",
              c.array, c.fill, c.store, c.load_wait, c.rd_stall, c.wr_stall);
  check_partition(&c, "after a LOAD");
  const tsr_counters_t after_load = c;

  /* MATMUL with K, N below the array size: only the useful MACs count. */
  const uint32_t mm = (uint32_t)sys_rng_range(&rng, 1, 50);
  const uint32_t kk = (uint32_t)sys_rng_range(&rng, 1, n);
  const uint32_t nn = (uint32_t)sys_rng_range(&rng, 1, n);
  push(e, TSR_OP_MATMUL, 0u, 60u, 0u, TSR_CMD_PUT(TSR_CMD_MATMUL_W4_M, mm) | TSR_CMD_PUT(TSR_CMD_MATMUL_W4_K, kk), nn);
  wait_idle(e);
  c = counters(e);
  EXPECT_EQ("CNT_MACS after MATMUL", c.macs, (uint64_t)mm * kk * nn);
  EXPECT_EQ("CNT_CMDS after LOAD, MATMUL", c.cmds, 2u);
  EXPECT_EQ("CNT_ARRAY after a MATMUL of m rows", c.array, mm);
  EXPECT_TRUE(c.fill - after_load.fill >= n && c.load_wait == after_load.load_wait,
              "a MATMUL: FILL grew by %" PRIu64 " (>= N weight rows), LOAD_WAIT by %" PRIu64 " (0)",
              c.fill - after_load.fill, c.load_wait - after_load.load_wait);
  check_partition(&c, "after a MATMUL");
  const tsr_counters_t after_mm = c;

  /* STORE: strobed bytes only; raw int32 and int8 rows at odd addresses. */
  const uint32_t srows = (uint32_t)sys_rng_range(&rng, 1, 20);
  const uint32_t scols = (uint32_t)sys_rng_range(&rng, 1, n);
  push(e, TSR_OP_STORE, 0x100003u, 4u * scols + 5u, TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, srows) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, scols), 0u, 0u);
  push(e, TSR_OP_STORE | (1u << TSR_STORE_REQUANT_BIT), 0x180001u, scols + 1u,
       TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, srows) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, scols), 0u, 0u);
  wait_idle(e);
  c = counters(e);
  EXPECT_EQ("CNT_DMA_WR after raw and int8 STOREs", c.dma_wr, (uint64_t)srows * scols * 5u);
  EXPECT_EQ("CNT_CMDS after LOAD, MATMUL, 2 STOREs", c.cmds, 4u);
  EXPECT_TRUE(c.store > after_mm.store && c.wr_stall > 0u && c.array == after_mm.array,
              "STOREs: STORE %" PRIu64 " -> %" PRIu64 ", WR_STALL %" PRIu64 ", ARRAY %" PRIu64,
              after_mm.store, c.store, c.wr_stall, c.array);
  check_partition(&c, "after STOREs");

  /* NOP and FENCE retire too. */
  push(e, TSR_OP_NOP, 0u, 0u, 0u, 0u, 0u);
  push(e, TSR_OP_FENCE, 0u, 0u, 0u, 0u, 0u);
  wait_idle(e);
  c = counters(e);
  EXPECT_EQ("CNT_CMDS after NOP and FENCE", c.cmds, 6u);
  EXPECT_TRUE(c.busy > 0u && c.busy <= c.cycles, "BUSY %" PRIu64 " CYCLES %" PRIu64, c.busy,
              c.cycles);
}

int main(int argc, char **argv) {
  if (sys_parse_dim_seed("test_sys_counters", argc, argv, &g_dim, &g_seed) != 0) {
    return 2;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(counters_after_a_gemm_match_the_job, setup, teardown),
      cmocka_unit_test_setup_teardown(counters_clear_zeroes_every_counter, setup, teardown),
      cmocka_unit_test_setup_teardown(soft_reset_keeps_the_counters, setup, teardown),
      cmocka_unit_test_setup_teardown(directed_commands_count_exactly, setup, teardown),
  };
  return cmocka_run_group_tests_name("system counters", tests, NULL, NULL);
}
