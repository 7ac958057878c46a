/* test_sys_ring.c: the command ring: random GEMMs fetched from memory bit-exact, every ring error, appends while running. */
#define _POSIX_C_SOURCE 200809L

/*
 * The chip fetches its commands from a ring in external memory
 * (rtl/tsr_cmd_fetch.v, sw/driver/tsr_ring.c, docs/programming.md "Command
 * ring"). This suite checks, on the whole Verilated chip:
 *   - random GEMMs (sys_case_make's cases: shapes, strides, requantization,
 *     memory latencies, stalls and bandwidth caps) run through the firmware
 *     with the ring as the submission path are bit-exact with the golden
 *     model, nothing outside C changes (the ring's own bytes aside), and the
 *     chip read exactly 32 bytes per command on top of the DMA's reads; ring
 *     sizes down to one command, so the driver appends while the chip runs;
 *   - each fetch error stops the engine with its ERR_CODE, ERR_ADDR = the
 *     offending command's address and ERR_CMD_IDX = its index, after the
 *     commands before it ran, with no read outside the DMA window; a soft
 *     reset recovers and the next GEMM is bit-exact:
 *       FETCH_BUS (SLVERR), RING_WINDOW, RING_ALIGN (base, size), RING_TAIL,
 *       and a malformed command (ERR_OPCODE, ERR_DIM) at its ring address;
 *   - IRQ_CMD raises IRQ_STATUS.CMD, an idle ring raises DONE (never while the
 *     ring still holds commands, even when the queue runs dry), and the
 *     register path (CMDQ_PUSH) still works, with ERR_ADDR 0 for its commands;
 *   - a soft reset in the middle of a long ring empties it (RING_HEAD =
 *     RING_TAIL) and nothing runs twice.
 * It prints the host register accesses and cycles of small GEMMs through the
 * ring and through CMDQ_PUSH.
 *
 * usage: test_sys_ring --dim N [--seed S] [--count C]
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sys_util.h"
#include "tessera_regs.h"
#include "tsr_ring.h"

/* Memory: GEMM cases below CASE_MEM, rings in RING_AREA, an SLVERR range at the top. */
#define CASE_MEM (SYS_MEM_SIZE - (64u << 10))
#define RING_AREA CASE_MEM
#define ERR_AREA (SYS_MEM_SIZE - (4u << 10))
#define POLLS 200000u

static uint32_t g_dim = 8, g_seed = 1, g_count = 12;

typedef struct fx {
  sys_env_t env;
  tsr_ring_t ring;
  tsr_sim_t *sim;
  void (*mem_stats)(const tsr_sim_t *, tsr_sim_mem_stats_t *);
  void (*set_guard)(tsr_sim_t *, uint64_t, uint64_t);
} fx_t;

static void fx_open(fx_t *f, const tsr_sim_cfg_t *base_cfg) {
  tsr_sim_cfg_t cfg;
  if (base_cfg != NULL) {
    cfg = *base_cfg;
  } else {
    sys_sim_cfg_default(&cfg);
  }
  cfg.mem_size = SYS_MEM_SIZE;
  cfg.err_base = ERR_AREA;
  cfg.err_size = SYS_MEM_SIZE - ERR_AREA;
  char err[512];
  memset(f, 0, sizeof *f);
  if (sys_open(&f->env, g_dim, &cfg, err, sizeof err) != TSR_OK) {
    fail_msg("%s", err);
  }
  f->env.dev.poll_limit = SYS_POLL_LIMIT;
  void *lib = NULL;
  assert_int_equal(tsr_hal_sim_raw(&f->env.hal, &f->sim, &lib), TSR_OK);
  *(void **)&f->mem_stats = dlsym(lib, "tsr_sim_mem_stats");
  *(void **)&f->set_guard = dlsym(lib, "tsr_sim_set_guard");
  assert_non_null(f->mem_stats);
  assert_non_null(f->set_guard);
}

static void clear_counters(fx_t *f) {
  assert_int_equal(sys_wr(&f->env, TSR_CTRL_REG_OFFSET, 1u << TSR_CTRL_COUNTERS_CLEAR_BIT), TSR_OK);
}

/* Attach a ring (the driver's set-up) and clear the counters: a scenario starts. */
static void fx_attach(fx_t *f, uint32_t base, uint32_t size, uint32_t batch) {
  clear_counters(f);
  assert_int_equal(tsr_ring_attach(&f->env.dev, &f->ring, base, size), TSR_OK);
  f->ring.batch = batch;
  f->env.ring_base = base;
  f->env.ring_size = size;
}

static uint32_t rd(fx_t *f, uint32_t off) {
  uint32_t v = 0;
  assert_int_equal(sys_rd(&f->env, off, &v), TSR_OK);
  return v;
}

static uint64_t rd_beats(fx_t *f) {
  tsr_sim_mem_stats_t s;
  f->mem_stats(f->sim, &s);
  return s.rd_beats;
}

static uint64_t rd_outside(fx_t *f) {
  tsr_sim_mem_stats_t s;
  f->mem_stats(f->sim, &s);
  return s.rd_outside;
}

static void nop(fx_t *f, tsr_cmd_t *c) {
  assert_int_equal(tsr_cmd_nop(&f->env.dev, 0u, c), TSR_OK);
}

/* Append `n` NOPs. */
static void append_nops(fx_t *f, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    tsr_cmd_t c;
    nop(f, &c);
    assert_int_equal(tsr_ring_append(&f->env.dev, &c), TSR_OK);
  }
}

/* Wait until stopped; expect the error registers and the retired command count. */
static void expect_error(fx_t *f, const char *what, uint32_t code, uint32_t addr, uint32_t idx,
                         uint64_t cmds_retired) {
  uint32_t status = 0;
  assert_int_equal(sys_wait_stopped(&f->env, POLLS, &status), TSR_OK);
  uint32_t got_code = rd(f, TSR_ERR_CODE_REG_OFFSET);
  uint32_t got_addr = rd(f, TSR_ERR_ADDR_REG_OFFSET);
  uint32_t got_idx = rd(f, TSR_ERR_CMD_IDX_REG_OFFSET);
  uint32_t cmds = rd(f, TSR_CNT_CMDS_LO_REG_OFFSET);
  if ((status & (1u << TSR_STATUS_ERROR_BIT)) == 0u || got_code != code || got_addr != addr ||
      got_idx != idx || cmds != cmds_retired) {
    fail_msg("%s (seed %u): STATUS 0x%x, ERR_CODE %u ERR_ADDR 0x%08x ERR_CMD_IDX %u CNT_CMDS %u; "
             "expected ERROR, %u, 0x%08x, %u, %u",
             what, g_seed, status, got_code, got_addr, got_idx, cmds, code, addr, idx, (unsigned)cmds_retired);
  }
  uint32_t irq = rd(f, TSR_IRQ_STATUS_REG_OFFSET);
  assert_true((irq >> TSR_IRQ_STATUS_ERROR_BIT) & 1u);
}

/* Soft reset, then a random GEMM through a fresh ring must be bit-exact. */
static void expect_recovery(fx_t *f, const char *what) {
  assert_int_equal(sys_soft_reset(&f->env), TSR_OK);
  assert_int_equal(rd(f, TSR_ERR_CODE_REG_OFFSET), 0u);
  assert_int_equal(tsr_set_dma_window(&f->env.dev, 0u, 0xffffffffu, false), TSR_OK);
  fx_attach(f, RING_AREA, 1024u, 4u);
  sys_shape_cfg_t shape = {.max_dim = 3u * g_dim, .small_pct = 20u, .small_max = 4u, .large_pct = 0u,
                           .large_min = 1u};
  sys_case_t c;
  sys_case_make(g_seed ^ 0x5eedu, &shape, CASE_MEM, &c);
  sys_case_result_t res;
  char msg[512];
  if (sys_case_run(&f->env, &c, &res, msg, sizeof msg) != 0) {
    fail_msg("%s: GEMM after the soft reset (seed %u): %s", what, g_seed, msg);
  }
}

/* ---- GEMMs ------------------------------------------------------------------------------- */

static uint32_t case_seed(uint32_t base, uint32_t i) {
  uint64_t x = ((uint64_t)base << 32) | i;
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return (uint32_t)(x ^ (x >> 31));
}

static void random_gemms_through_the_ring_are_bit_exact(void **state) {
  (void)state;
  static const uint32_t k_sizes[] = {64u, 96u, 128u, 160u, 512u, 4096u, 32768u};
  static const uint32_t k_batches[] = {0u, 1u, 3u, 8u};
  for (uint32_t i = 0; i < g_count; i++) {
    const uint32_t seed = case_seed(g_seed, i);
    sys_rng_t r;
    sys_rng_seed(&r, seed, 7u);
    sys_shape_cfg_t shape = {.max_dim = 6u * g_dim, .small_pct = 30u, .small_max = 4u, .large_pct = 10u,
                             .large_min = 4u * g_dim};
    sys_case_t c;
    sys_case_make(seed, &shape, CASE_MEM, &c);
    fx_t f;
    fx_open(&f, &c.sim);
    const uint32_t size = k_sizes[sys_rng_range(&r, 0, sizeof k_sizes / sizeof k_sizes[0] - 1u)];
    const uint32_t batch = k_batches[sys_rng_range(&r, 0, sizeof k_batches / sizeof k_batches[0] - 1u)];
    /* Anywhere in the ring area, 32-aligned: some rings cross a 4 KiB boundary. */
    const uint32_t base = RING_AREA + 32u * (uint32_t)sys_rng_range(&r, 0, (32768u - size) / 32u);
    fx_attach(&f, base, size, batch);
    f.set_guard(f.sim, 0u, CASE_MEM + 32768u - 1u);
    sys_case_result_t res;
    char msg[512];
    char desc[512];
    const int rc = sys_case_run(&f.env, &c, &res, msg, sizeof msg);
    sys_case_describe(&c, desc, sizeof desc);
    if (rc != 0) {
      fail_msg("case seed %u, ring 0x%08x + %u batch %u: %s (%s)", seed, base, size, batch, msg, desc);
    }
    /* Everything fetched, the ring empty and idle. */
    assert_int_equal(rd(&f, TSR_RING_HEAD_REG_OFFSET), f.ring.published);
    assert_int_equal(f.ring.published, f.ring.tail);
    assert_int_equal(rd_outside(&f), 0u);
    sys_close(&f.env);
  }
}

/* ---- errors ----------------------------------------------------------------------------- */

static void fetch_bus_error_reports_the_command_address(void **state) {
  (void)state;
  fx_t f;
  fx_open(&f, NULL);
  /* Slots 0..3 readable, 4.. in the SLVERR range: one 4-command burst each. */
  const uint32_t base = ERR_AREA - 4u * 32u;
  fx_attach(&f, base, 16u * 32u, 0u);
  append_nops(&f, 8u);
  assert_int_equal(tsr_ring_flush(&f.env.dev), TSR_OK);
  expect_error(&f, "FETCH_BUS", TSR_ERR_FETCH_BUS, ERR_AREA, 4u, 4u);
  expect_recovery(&f, "FETCH_BUS");
  sys_close(&f.env);
}

static void fetch_bus_error_on_a_middle_beat_names_that_command(void **state) {
  (void)state;
  fx_t f;
  fx_open(&f, NULL);
  void *lib = NULL;
  tsr_sim_t *sim = NULL;
  assert_int_equal(tsr_hal_sim_raw(&f.env.hal, &sim, &lib), TSR_OK);
  int (*set_faults)(tsr_sim_t *, const tsr_sim_faults_t *) = NULL;
  *(void **)&set_faults = dlsym(lib, "tsr_sim_set_faults");
  assert_non_null(set_faults);
  fx_attach(&f, RING_AREA, 32u * 32u, 0u);
  append_nops(&f, 8u);
  /* The first burst holds commands 0..3; an error on a beat of command 2. */
  const uint32_t bpc = 32u / f.env.dev.info.axi_bytes;
  tsr_sim_faults_t flt;
  memset(&flt, 0, sizeof flt);
  flt.rd_burst = 1u;
  flt.rd_beat = 2u * bpc + bpc / 2u;
  flt.resp = 2u;
  assert_int_equal(set_faults(sim, &flt), 0);
  assert_int_equal(tsr_ring_flush(&f.env.dev), TSR_OK);
  expect_error(&f, "FETCH_BUS on a middle beat", TSR_ERR_FETCH_BUS, RING_AREA + 2u * 32u, 2u, 2u);
  assert_int_equal(set_faults(sim, NULL), 0);
  expect_recovery(&f, "FETCH_BUS middle beat");
  sys_close(&f.env);
}

static void ring_across_the_window_edge_stops_at_the_first_command_outside(void **state) {
  (void)state;
  fx_t f;
  fx_open(&f, NULL);
  /* The window ends 3 commands into the ring. */
  const uint32_t base = RING_AREA + 4096u - 3u * 32u;   /* crosses a 4 KiB boundary too */
  const uint32_t limit = base + 3u * 32u - 1u;
  assert_int_equal(tsr_set_dma_window(&f.env.dev, 0u, limit, false), TSR_OK);
  f.set_guard(f.sim, 0u, limit);
  fx_attach(&f, base, 8u * 32u, 0u);
  const uint64_t beats0 = rd_beats(&f);
  append_nops(&f, 6u);
  assert_int_equal(tsr_ring_flush(&f.env.dev), TSR_OK);
  expect_error(&f, "RING_WINDOW", TSR_ERR_RING_WINDOW, limit + 1u, 3u, 3u);
  /* Exactly the three commands inside were read, nothing outside the window. */
  assert_int_equal(rd_beats(&f) - beats0, 3u * 32u / f.env.dev.info.axi_bytes);
  assert_int_equal(rd_outside(&f), 0u);
  /* A ring that starts below the window. */
  assert_int_equal(sys_soft_reset(&f.env), TSR_OK);
  assert_int_equal(tsr_set_dma_window(&f.env.dev, base + 32u, 0xffffffffu, false), TSR_OK);
  fx_attach(&f, base, 8u * 32u, 0u);
  append_nops(&f, 2u);
  assert_int_equal(tsr_ring_flush(&f.env.dev), TSR_OK);
  expect_error(&f, "RING_WINDOW below", TSR_ERR_RING_WINDOW, base, 0u, 0u);
  assert_int_equal(rd_beats(&f) - beats0, 3u * 32u / f.env.dev.info.axi_bytes);
  expect_recovery(&f, "RING_WINDOW");
  sys_close(&f.env);
}

/* Program the ring registers by hand (the driver refuses these) and write one NOP per slot. */
static void raw_ring(fx_t *f, uint32_t base, uint32_t size, uint32_t tail) {
  tsr_cmd_t c;
  nop(f, &c);
  for (uint32_t a = base & ~31u; a < (base & ~31u) + 8u * 32u; a += 32u) {
    assert_int_equal(tsr_hal_mem_write(&f->env.hal, a, c.w, sizeof c.w), TSR_OK);
  }
  clear_counters(f);
  assert_int_equal(sys_wr(&f->env, TSR_RING_CTRL_REG_OFFSET, 0u), TSR_OK);
  assert_int_equal(sys_wr(&f->env, TSR_RING_BASE_REG_OFFSET, base), TSR_OK);
  assert_int_equal(sys_wr(&f->env, TSR_RING_SIZE_REG_OFFSET, size), TSR_OK);
  assert_int_equal(sys_wr(&f->env, TSR_RING_TAIL_REG_OFFSET, 0u), TSR_OK);
  assert_int_equal(sys_wr(&f->env, TSR_RING_CTRL_REG_OFFSET, 1u), TSR_OK);
  assert_int_equal(sys_wr(&f->env, TSR_RING_TAIL_REG_OFFSET, tail), TSR_OK);
}

static void misaligned_base_or_size_stops_with_ring_align_and_reads_nothing(void **state) {
  (void)state;
  fx_t f;
  fx_open(&f, NULL);
  const uint64_t beats0 = rd_beats(&f);
  raw_ring(&f, RING_AREA + 8u, 8u * 32u, 64u);
  expect_error(&f, "RING_ALIGN base", TSR_ERR_RING_ALIGN, RING_AREA + 8u, 0u, 0u);
  assert_int_equal(sys_soft_reset(&f.env), TSR_OK);
  raw_ring(&f, RING_AREA, 8u * 32u + 4u, 64u);
  expect_error(&f, "RING_ALIGN size", TSR_ERR_RING_ALIGN, RING_AREA, 0u, 0u);
  assert_int_equal(rd_beats(&f), beats0);
  expect_recovery(&f, "RING_ALIGN");
  sys_close(&f.env);
}

static void tail_past_the_end_or_misaligned_stops_with_ring_tail(void **state) {
  (void)state;
  fx_t f;
  fx_open(&f, NULL);
  const uint64_t beats0 = rd_beats(&f);
  raw_ring(&f, RING_AREA, 8u * 32u, 8u * 32u);
  expect_error(&f, "RING_TAIL = size", TSR_ERR_RING_TAIL, RING_AREA + 8u * 32u, 0u, 0u);
  assert_int_equal(sys_soft_reset(&f.env), TSR_OK);
  raw_ring(&f, RING_AREA, 8u * 32u, 0xfffff000u);
  expect_error(&f, "RING_TAIL far past the end", TSR_ERR_RING_TAIL, RING_AREA + 0xfffff000u, 0u, 0u);
  assert_int_equal(sys_soft_reset(&f.env), TSR_OK);
  raw_ring(&f, RING_AREA, 8u * 32u, 40u);
  expect_error(&f, "RING_TAIL misaligned", TSR_ERR_RING_TAIL, RING_AREA + 40u, 0u, 0u);
  assert_int_equal(rd_beats(&f), beats0);
  expect_recovery(&f, "RING_TAIL");
  sys_close(&f.env);
}

static void malformed_command_is_reported_at_its_ring_address(void **state) {
  (void)state;
  fx_t f;
  fx_open(&f, NULL);
  fx_attach(&f, RING_AREA, 4u * 32u, 0u);
  /* Three NOPs wrap the 4-slot ring once the chip fetched them; the bad one lands in slot 3. */
  append_nops(&f, 3u);
  assert_int_equal(tsr_wait(&f.env.dev, TSR_WAIT_POLL, 0u), TSR_OK);
  tsr_cmd_t bad;
  memset(&bad, 0, sizeof bad);
  bad.w[0] = 0x7fu;   /* no such opcode */
  assert_int_equal(tsr_ring_append(&f.env.dev, &bad), TSR_OK);
  assert_int_equal(tsr_ring_flush(&f.env.dev), TSR_OK);
  expect_error(&f, "ERR_OPCODE from the ring", TSR_ERR_OPCODE, RING_AREA + 3u * 32u, 3u, 3u);
  assert_int_equal(sys_soft_reset(&f.env), TSR_OK);
  /* After the soft reset the ring is empty at the old tail (slot 0); a MATMUL with M = 0 in slot 1. */
  assert_int_equal(rd(&f, TSR_RING_HEAD_REG_OFFSET), f.ring.tail);
  clear_counters(&f);
  append_nops(&f, 1u);
  tsr_matmul_args_t mm = {.a_addr = 0u, .w_addr = 0u, .c_addr = 0u, .m = 1u, .k = 1u, .n = 1u};
  tsr_cmd_t c;
  assert_int_equal(tsr_cmd_matmul(&f.env.dev, 0u, &mm, &c), TSR_OK);
  c.w[4] &= ~(TSR_CMD_MATMUL_W4_M_MASK << TSR_CMD_MATMUL_W4_M_OFFSET);
  assert_int_equal(tsr_ring_append(&f.env.dev, &c), TSR_OK);
  assert_int_equal(tsr_ring_flush(&f.env.dev), TSR_OK);
  expect_error(&f, "ERR_DIM from the ring", TSR_ERR_DIM, RING_AREA + 32u, 1u, 1u);
  /* The register path is unchanged: a bad opcode pushed by register has ERR_ADDR 0. */
  assert_int_equal(sys_soft_reset(&f.env), TSR_OK);
  clear_counters(&f);
  assert_int_equal(sys_push_raw(&f.env, bad.w), TSR_OK);
  expect_error(&f, "ERR_OPCODE by register", TSR_ERR_OPCODE, 0u, 0u, 0u);
  expect_recovery(&f, "malformed command");
  sys_close(&f.env);
}

/* ---- interrupts, appends while running, soft reset ------------------------------------------ */

static void irq_cmd_flag_and_idle_ring_raise_their_interrupts(void **state) {
  (void)state;
  fx_t f;
  fx_open(&f, NULL);
  fx_attach(&f, RING_AREA, 8u * 32u, 0u);
  assert_int_equal(sys_wr(&f.env, TSR_IRQ_ENABLE_REG_OFFSET, 1u << TSR_IRQ_ENABLE_CMD_BIT), TSR_OK);
  append_nops(&f, 2u);
  assert_int_equal(tsr_wait(&f.env.dev, TSR_WAIT_POLL, 0u), TSR_OK);
  uint32_t irq = rd(&f, TSR_IRQ_STATUS_REG_OFFSET);
  assert_int_equal((irq >> TSR_IRQ_STATUS_CMD_BIT) & 1u, 0u);     /* no flag, no CMD */
  assert_int_equal((irq >> TSR_IRQ_STATUS_DONE_BIT) & 1u, 1u);    /* the idle ring: DONE */
  assert_int_equal(rd(&f, TSR_STATUS_REG_OFFSET) & (1u << TSR_STATUS_DONE_BIT), 1u << TSR_STATUS_DONE_BIT);
  assert_int_equal(sys_irq_level(&f.env), 0);
  assert_int_equal(sys_wr(&f.env, TSR_IRQ_STATUS_REG_OFFSET, irq), TSR_OK);
  tsr_cmd_t c;
  assert_int_equal(tsr_cmd_nop(&f.env.dev, TSR_DEP_IRQ_CMD, &c), TSR_OK);
  assert_int_equal(tsr_ring_append(&f.env.dev, &c), TSR_OK);
  assert_int_equal(tsr_wait(&f.env.dev, TSR_WAIT_POLL, 0u), TSR_OK);
  irq = rd(&f, TSR_IRQ_STATUS_REG_OFFSET);
  assert_int_equal((irq >> TSR_IRQ_STATUS_CMD_BIT) & 1u, 1u);
  assert_int_equal(sys_irq_level(&f.env), 1);
  sys_close(&f.env);
}

static void done_rises_only_once_the_ring_is_empty_and_idle(void **state) {
  (void)state;
  /* A slow memory: the queue runs dry between fetch bursts while the ring still holds work. */
  tsr_sim_cfg_t cfg;
  sys_sim_cfg_default(&cfg);
  cfg.rd_latency = 80u;
  fx_t f;
  fx_open(&f, &cfg);
  fx_attach(&f, RING_AREA, 64u * 32u, 0u);
  assert_int_equal(sys_wr(&f.env, TSR_IRQ_STATUS_REG_OFFSET, 0xfu), TSR_OK);
  append_nops(&f, 40u);
  assert_int_equal(tsr_ring_flush(&f.env.dev), TSR_OK);
  for (unsigned i = 0; i < POLLS; i++) {
    const uint32_t irq = rd(&f, TSR_IRQ_STATUS_REG_OFFSET);
    const uint32_t status = rd(&f, TSR_STATUS_REG_OFFSET);
    const uint32_t cmds = rd(&f, TSR_CNT_CMDS_LO_REG_OFFSET);
    if (((irq >> TSR_IRQ_STATUS_DONE_BIT) & 1u) != 0u || ((status >> TSR_STATUS_DONE_BIT) & 1u) != 0u) {
      if (cmds != 40u) {
        fail_msg("DONE (IRQ_STATUS 0x%x, STATUS 0x%x) with %u of 40 commands retired", irq, status, cmds);
      }
      sys_close(&f.env);
      return;
    }
  }
  fail_msg("no DONE after 40 NOPs");
}

/* LOADs of `rows` rows: each keeps the chip busy while the host appends the next. */
static void append_loads(fx_t *f, unsigned n, uint32_t rows) {
  for (unsigned i = 0; i < n; i++) {
    tsr_load_args_t a = {.dest = TSR_LOAD_SPAD, .addr = 4096u * i, .stride = f->env.dim, .rows = rows,
                         .cols = f->env.dim, .local = 0u};
    tsr_cmd_t c;
    assert_int_equal(tsr_cmd_load(&f->env.dev, 0u, &a, &c), TSR_OK);
    assert_int_equal(tsr_ring_append(&f->env.dev, &c), TSR_OK);
  }
}

static void appends_while_the_chip_runs_are_all_executed_once(void **state) {
  (void)state;
  fx_t f;
  fx_open(&f, NULL);
  /* Three slots of room: the driver must wait for RING_HEAD to move while the chip runs. */
  fx_attach(&f, RING_AREA + 4096u - 64u, 4u * 32u, 1u);
  append_loads(&f, 5u, 200u);
  /* The chip is running; append more, in pieces. */
  uint32_t status = rd(&f, TSR_STATUS_REG_OFFSET);
  assert_true(status & (1u << TSR_STATUS_BUSY_BIT));
  append_nops(&f, 7u);
  append_loads(&f, 30u, 16u);
  assert_int_equal(tsr_wait(&f.env.dev, TSR_WAIT_IRQ, 0u), TSR_OK);
  assert_int_equal(rd(&f, TSR_CNT_CMDS_LO_REG_OFFSET), 42u);
  assert_int_equal(rd(&f, TSR_RING_HEAD_REG_OFFSET), f.ring.tail);
  assert_true(f.ring.flushes >= 10u);
  sys_close(&f.env);
}

static void soft_reset_mid_ring_empties_it_and_nothing_runs_twice(void **state) {
  (void)state;
  fx_t f;
  fx_open(&f, NULL);
  fx_attach(&f, RING_AREA, 64u * 32u, 0u);
  append_loads(&f, 40u, 300u);
  assert_int_equal(tsr_ring_flush(&f.env.dev), TSR_OK);
  /* Soft reset once a few have retired. */
  for (unsigned i = 0; i < POLLS && rd(&f, TSR_CNT_CMDS_LO_REG_OFFSET) < 5u; i++) {
  }
  assert_int_equal(sys_soft_reset(&f.env), TSR_OK);
  const uint32_t done = rd(&f, TSR_CNT_CMDS_LO_REG_OFFSET);
  if (done == 0u || done >= 40u) {
    fail_msg("soft reset after %u of 40 LOADs: expected some but not all", done);
  }
  assert_int_equal(rd(&f, TSR_RING_HEAD_REG_OFFSET), rd(&f, TSR_RING_TAIL_REG_OFFSET));
  for (unsigned i = 0; i < 200u; i++) {
    (void)rd(&f, TSR_STATUS_REG_OFFSET);
  }
  assert_int_equal(rd(&f, TSR_CNT_CMDS_LO_REG_OFFSET), done);
  assert_int_equal(rd(&f, TSR_STATUS_REG_OFFSET) & (1u << TSR_STATUS_BUSY_BIT), 0u);
  expect_recovery(&f, "soft reset mid-ring");
  sys_close(&f.env);
}

/* ---- figures: host register accesses and cycles, ring against CMDQ_PUSH ---------------------- */

static void one_gemm(fx_t *f, uint32_t m, uint32_t k, uint32_t n, uint64_t *acc, uint64_t *cyc) {
  tsr_gemm_desc_t d;
  memset(&d, 0, sizeof d);
  d.m = m;
  d.k = k;
  d.n = n;
  d.a_addr = 0u;
  d.lda = k;
  d.b_addr = 1u << 20;
  d.ldb = n;
  d.c_addr = 2u << 20;
  d.ldc = 4u * n;
  d.requant = false;
  tsr_gemm_plan_t plan;
  assert_int_equal(tsr_gemm_plan_opts(&f->env.dev.info, &d, NULL, &plan), TSR_OK);
  const uint64_t a0 = tsr_host_reg_accesses(&f->env.dev);
  const uint64_t c0 = tsr_hal_cycles(&f->env.hal);
  tsr_status_t st = tsr_gemm_run(&f->env.dev, &d, &plan, NULL, NULL);
  if (st != TSR_OK) {
    fail_msg("gemm %ux%ux%u: %s", m, k, n, tsr_dev_error(&f->env.dev));
  }
  *cyc = tsr_hal_cycles(&f->env.hal) - c0;
  *acc = tsr_host_reg_accesses(&f->env.dev) - a0;
}

static void ring_needs_fewer_host_accesses_than_registers(void **state) {
  (void)state;
  static const uint32_t k_shapes[][3] = {{16, 16, 16}, {32, 32, 32}, {64, 64, 64}, {1, 256, 256}, {8, 256, 256}};
  for (size_t i = 0; i < sizeof k_shapes / sizeof k_shapes[0]; i++) {
    const uint32_t *s = k_shapes[i];
    uint64_t acc_r = 0, cyc_r = 0, acc_q = 0, cyc_q = 0;
    fx_t f;
    fx_open(&f, NULL);
    one_gemm(&f, s[0], s[1], s[2], &acc_q, &cyc_q);
    fx_attach(&f, RING_AREA, 32768u, 0u);
    one_gemm(&f, s[0], s[1], s[2], &acc_r, &cyc_r);
    printf("  ring: N=%u gemm %ux%ux%u: host register accesses %" PRIu64 " (CMDQ_PUSH %" PRIu64
           "), simulated cycles %" PRIu64 " (CMDQ_PUSH %" PRIu64 ")\n",
           g_dim, s[0], s[1], s[2], acc_r, acc_q, cyc_r, cyc_q);
    assert_true(acc_r < acc_q);
    sys_close(&f.env);
  }
}

int main(int argc, char **argv) {
  const char *count_s = NULL;
  int n = 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) {
      count_s = argv[++i];
    } else {
      argv[n++] = argv[i];
    }
  }
  if (count_s != NULL && sys_parse_u32(count_s, &g_count) != 0) {
    fprintf(stderr, "test_sys_ring: --count wants a number\n");
    return 2;
  }
  int rc = sys_parse_dim_seed("test_sys_ring", n, argv, &g_dim, &g_seed);
  if (rc != 0) {
    return rc;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(random_gemms_through_the_ring_are_bit_exact),
      cmocka_unit_test(fetch_bus_error_reports_the_command_address),
      cmocka_unit_test(fetch_bus_error_on_a_middle_beat_names_that_command),
      cmocka_unit_test(ring_across_the_window_edge_stops_at_the_first_command_outside),
      cmocka_unit_test(misaligned_base_or_size_stops_with_ring_align_and_reads_nothing),
      cmocka_unit_test(tail_past_the_end_or_misaligned_stops_with_ring_tail),
      cmocka_unit_test(malformed_command_is_reported_at_its_ring_address),
      cmocka_unit_test(irq_cmd_flag_and_idle_ring_raise_their_interrupts),
      cmocka_unit_test(done_rises_only_once_the_ring_is_empty_and_idle),
      cmocka_unit_test(appends_while_the_chip_runs_are_all_executed_once),
      cmocka_unit_test(soft_reset_mid_ring_empties_it_and_nothing_runs_twice),
      cmocka_unit_test(ring_needs_fewer_host_accesses_than_registers),
  };
  const int failed = cmocka_run_group_tests(tests, NULL, NULL);
  if (failed != 0) {
    fprintf(stderr, "test_sys_ring: %d test(s) failed with seed %u (replay: --seed %u)\n", failed, g_seed, g_seed);
  }
  return failed != 0;
}
