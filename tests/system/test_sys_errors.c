/* test_sys_errors.c: every ERR_CODE provoked on the whole chip, with IRQ, W1C, soft-reset recovery and register SLVERR. */
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
#include "tsr_driver.h"

/*
 * For each error code of docs/commands.md, each variant:
 *   1. soft reset, IRQ_ENABLE = 0 (or ERROR only: "armed"), IRQ_STATUS and
 *      the counters cleared, the whole external memory filled with random bytes;
 *   2. a random number of valid commands, then the offending command (raw
 *      words written to CMDQ_PUSH, so the driver's validation cannot refuse
 *      them), then a "tripwire" STORE that would change memory if it ran;
 *   3. checks: STATUS.ERROR; ERR_CODE, ERR_CMD_IDX, ERR_ADDR, CMD_IDX and
 *      CNT_CMDS; irq_o: rises when armed, low while IRQ_ENABLE.ERROR is clear,
 *      high once it is set, IRQ_STATUS.ERROR write-1-to-clear (a 0 write does
 *      nothing); the driver's decoding (tsr_wait, tsr_read_error,
 *      tsr_hw_error_str); no byte of memory changed outside the command's
 *      target (bus write errors) or at all (every other error);
 *   4. CTRL.SOFT_RESET: STATUS, ERR_*, CMD_IDX, IRQ_STATUS and CMDQ_STATUS
 *      clean, then a random GEMM through the firmware, bit-exact.
 * Controls show the same commands run when their condition is absent
 * (KEEP_WEIGHTS with weights loaded; SHIFT/ACT fields without REQUANT).
 * Also: a soft reset in the middle of a long LOAD, of a long STORE (only its
 * rows change) and of a half-written command; unmapped register offsets and
 * writes to read-only registers answer SLVERR and the bus keeps working.
 *
 * usage: test_sys_errors --dim N [--seed S]   (seed: $TSR_SEED, else the clock)
 */

static unsigned g_dim;
static uint32_t g_seed;

/* Error range of the memory model: bursts touching it answer SLVERR. Not
 * 4 KiB aligned, so a row crossing its start is one burst. */
#define ERR_BASE 0x200800u
#define ERR_SIZE 0x1000u
/* The GEMMs after a recovery keep their operands below this (away from the SLVERR range). */
#define GEMM_MEM 0x200000u
/* Where the tripwire STORE would write. */
#define TRIP_ADDR 0x300003u
/* Scratch area for operands of valid commands. */
#define DATA_ADDR 0x10000u

static const char *const k_err_names[] = {
    "NONE",  "OPCODE",    "DIM",       "SPAD_RANGE",    "ACC_RANGE", "DRAM_RANGE",
    "BUS_READ", "BUS_WRITE", "PARAM", "DEP_TOKEN", "CMDQ_OVERFLOW", "NO_WEIGHTS",
    "DMA_WINDOW", "NO_UNIT",
};

typedef struct fx {
  sys_env_t env;
  bool open;
  uint8_t *img;          /* the memory image written by begin() */
  sys_rng_t rng;
  uint32_t pushed;       /* commands pushed since begin() */
  const char *variant;
  bool armed;
  uint32_t variants;     /* variants run by the current test */
} fx_t;

#define STATUS_BUSY (1u << TSR_STATUS_BUSY_BIT)
#define STATUS_ERROR (1u << TSR_STATUS_ERROR_BIT)
#define IRQ_DONE (1u << TSR_IRQ_STATUS_DONE_BIT)
#define IRQ_ERROR (1u << TSR_IRQ_STATUS_ERROR_BIT)
#define IRQ_FENCE (1u << TSR_IRQ_STATUS_FENCE_BIT)

/* Fail with the variant's name and both values in decimal and hex. */
#define EXPECT_EQ(f, what, got, want)                                                          \
  do {                                                                                         \
    const unsigned long long got_ = (unsigned long long)(got);                                 \
    const unsigned long long want_ = (unsigned long long)(want);                               \
    if (got_ != want_) {                                                                       \
      fail_msg("%s (seed %u): %s = %llu (0x%llx), expected %llu (0x%llx)", (f)->variant,       \
               g_seed, what, got_, got_, want_, want_);                                        \
    }                                                                                          \
  } while (0)

#define EXPECT_TRUE(f, cond, ...)                                                              \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      char why_[256];                                                                          \
      snprintf(why_, sizeof why_, __VA_ARGS__);                                                \
      fail_msg("%s (seed %u): %s", (f)->variant, g_seed, why_);                                \
    }                                                                                          \
  } while (0)

static uint32_t rd(fx_t *f, uint32_t off) {
  uint32_t v = 0;
  tsr_status_t st = sys_rd(&f->env, off, &v);
  EXPECT_EQ(f, "register read status", st, TSR_OK);
  return v;
}

static void wr(fx_t *f, uint32_t off, uint32_t v) {
  tsr_status_t st = sys_wr(&f->env, off, v);
  EXPECT_EQ(f, "register write status", st, TSR_OK);
}

/* ---- Raw command words (docs/commands.md), packed here, not by the driver ---------- */

typedef struct cmd {
  uint32_t w[TSR_CMD_WORDS];
} cmd_t;

static cmd_t c_raw(uint32_t w0) {
  cmd_t c;
  memset(&c, 0, sizeof c);
  c.w[0] = w0;
  return c;
}

static cmd_t c_load(uint32_t deps, bool acc, uint32_t addr, uint32_t stride, uint32_t rows,
                    uint32_t cols, uint32_t local) {
  cmd_t c = c_raw(TSR_OP_LOAD | deps | TSR_CMD_PUT(TSR_CMD_LOAD_W0_DEST, acc ? 1u : 0u));
  c.w[1] = addr;
  c.w[2] = stride;
  c.w[3] = TSR_CMD_PUT(TSR_CMD_LOAD_W3_ROWS, rows) | TSR_CMD_PUT(TSR_CMD_LOAD_W3_COLS, cols);
  c.w[4] = local;
  return c;
}

static cmd_t c_matmul(uint32_t deps, bool accumulate, bool keep, uint32_t a, uint32_t w,
                      uint32_t acc, uint32_t m, uint32_t k, uint32_t n) {
  cmd_t c = c_raw(TSR_OP_MATMUL | deps | TSR_CMD_PUT(TSR_CMD_MATMUL_W0_ACCUMULATE, accumulate ? 1u : 0u) |
                  TSR_CMD_PUT(TSR_CMD_MATMUL_W0_KEEP_WEIGHTS, keep ? 1u : 0u));
  c.w[1] = a;
  c.w[2] = w;
  c.w[3] = acc;
  c.w[4] = TSR_CMD_PUT(TSR_CMD_MATMUL_W4_M, m) | TSR_CMD_PUT(TSR_CMD_MATMUL_W4_K, k);
  c.w[5] = n;
  return c;
}

typedef struct store_opt {
  bool bias, requant, per_channel;
  uint32_t param;
  int32_t mult;
  int shift, zp, act_min, act_max;
} store_opt_t;

static cmd_t c_store(uint32_t deps, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t cols,
                     uint32_t src, const store_opt_t *o) {
  cmd_t c = c_raw(TSR_OP_STORE | deps | TSR_CMD_PUT(TSR_CMD_STORE_W0_BIAS, o->bias ? 1u : 0u) |
                  TSR_CMD_PUT(TSR_CMD_STORE_W0_REQUANT, o->requant ? 1u : 0u) |
                  TSR_CMD_PUT(TSR_CMD_STORE_W0_PER_CHANNEL, o->per_channel ? 1u : 0u));
  c.w[1] = addr;
  c.w[2] = stride;
  c.w[3] = TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, rows) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, cols);
  c.w[4] = src;
  c.w[5] = o->param;
  c.w[6] = (uint32_t)o->mult;
  c.w[7] = TSR_CMD_PUT(TSR_CMD_STORE_W7_SHIFT, (uint32_t)o->shift) | TSR_CMD_PUT(TSR_CMD_STORE_W7_OUT_ZP, (uint32_t)o->zp) |
           TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MIN, (uint32_t)o->act_min) | TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MAX, (uint32_t)o->act_max);
  return c;
}

static const store_opt_t k_raw_out = {false, false, false, 0u, 0, 0, 0, -128, 127};

/* ---- Fixture ------------------------------------------------------------------------------------ */

static void fx_open(fx_t *f, const tsr_sim_cfg_t *cfg) {
  char err[512];
  tsr_status_t st = sys_open(&f->env, g_dim, cfg, err, sizeof err);
  if (st != TSR_OK) {
    fail_msg("cannot open the simulator for --dim %u: %s", g_dim, err);
  }
  f->open = true;
}

static void fx_default_cfg(tsr_sim_cfg_t *cfg) {
  sys_sim_cfg_default(cfg);
  cfg->err_base = ERR_BASE;
  cfg->err_size = ERR_SIZE;
}

static int setup(void **state) {
  fx_t *f = calloc(1, sizeof *f);
  if (f == NULL) {
    return -1;
  }
  f->img = malloc(SYS_MEM_SIZE);
  if (f->img == NULL) {
    free(f);
    return -1;
  }
  f->variant = "set-up";
  tsr_sim_cfg_t cfg;
  fx_default_cfg(&cfg);
  char err[512];
  if (sys_open(&f->env, g_dim, &cfg, err, sizeof err) != TSR_OK) {
    fprintf(stderr, "test_sys_errors: cannot open the simulator for --dim %u: %s\n", g_dim, err);
    free(f->img);
    free(f);
    return -1;
  }
  f->open = true;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx_t *f = *state;
  if (f != NULL) {
    if (f->open) {
      sys_close(&f->env);
    }
    free(f->img);
    free(f);
  }
  return 0;
}

/* Replace the simulation with one using `cfg` (memory model settings). */
static void fx_reopen(fx_t *f, const tsr_sim_cfg_t *cfg) {
  if (f->open) {
    sys_close(&f->env);
    f->open = false;
  }
  fx_open(f, cfg);
}

static void poke(fx_t *f, uint32_t addr, const void *src, size_t n) {
  memcpy(f->img + addr, src, n);
  EXPECT_EQ(f, "mem_write status", tsr_hal_mem_write(&f->env.hal, addr, src, n), TSR_OK);
}

static void poke32(fx_t *f, uint32_t addr, int32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)((uint32_t)v >> 8), (uint8_t)((uint32_t)v >> 16),
                  (uint8_t)((uint32_t)v >> 24)};
  poke(f, addr, b, 4u);
}

/* Start a variant: clean engine, random memory, IRQs masked (or ERROR only). */
static void begin(fx_t *f, const char *variant, bool armed) {
  f->variant = variant;
  f->armed = armed;
  f->pushed = 0;
  f->variants++;
  sys_rng_seed(&f->rng, g_seed, 100u + f->variants);
  EXPECT_EQ(f, "soft reset", sys_soft_reset(&f->env), TSR_OK);
  wr(f, TSR_IRQ_ENABLE_REG_OFFSET, armed ? IRQ_ERROR : 0u);
  wr(f, TSR_IRQ_STATUS_REG_OFFSET, IRQ_DONE | IRQ_ERROR | IRQ_FENCE);
  wr(f, TSR_CTRL_REG_OFFSET, 1u << TSR_CTRL_COUNTERS_CLEAR_BIT);
  EXPECT_EQ(f, "IRQ_STATUS after clearing", rd(f, TSR_IRQ_STATUS_REG_OFFSET), 0u);
  EXPECT_EQ(f, "irq_o before the error", sys_irq_level(&f->env), 0);
  sys_rng_fill(&f->rng, f->img, SYS_MEM_SIZE);
  EXPECT_EQ(f, "mem_write status", tsr_hal_mem_write(&f->env.hal, 0u, f->img, SYS_MEM_SIZE),
            TSR_OK);
}

static void push(fx_t *f, cmd_t c) {
  EXPECT_EQ(f, "CMDQ_PUSH write status", sys_push_raw(&f->env, c.w), TSR_OK);
  f->pushed++;
}

/* 0..3 valid commands (NOP, FENCE, small LOAD to the scratchpad); returns how many. */
static uint32_t lead_in(fx_t *f) {
  uint32_t n = (uint32_t)sys_rng_range(&f->rng, 0, 3);
  for (uint32_t i = 0; i < n; i++) {
    switch (sys_rng_next(&f->rng) % 3u) {
      case 0:
        push(f, c_raw(TSR_OP_NOP));
        break;
      case 1:
        push(f, c_raw(TSR_OP_FENCE));
        break;
      default: {
        uint32_t rows = (uint32_t)sys_rng_range(&f->rng, 1, 3);
        uint32_t cols = (uint32_t)sys_rng_range(&f->rng, 1, g_dim);
        uint32_t addr = (uint32_t)sys_rng_range(&f->rng, DATA_ADDR, DATA_ADDR + 0x1000);
        push(f, c_load(0u, false, addr, cols + 5u, rows, cols, 0u));
        break;
      }
    }
  }
  return n;
}

/* A valid STORE after the offending command: it must never run. */
static void tripwire(fx_t *f) {
  push(f, c_store(0u, TRIP_ADDR, 0u, 1u, g_dim, 0u, &k_raw_out));
}

/* The rows a command may legitimately change (rows 0: none). */
typedef struct target {
  uint32_t addr, stride, rows, bytes;
} target_t;

typedef struct expect {
  uint32_t code;
  uint32_t idx;       /* ERR_CMD_IDX */
  uint32_t cmd_idx;   /* CMD_IDX after the stop */
  uint32_t retired;   /* CNT_CMDS */
  uint32_t addr;      /* ERR_ADDR */
  target_t target;
} expect_t;

/* Expectation for the usual case: command `idx` failed, all before it retired. */
static expect_t at(uint32_t code, uint32_t idx) {
  expect_t e;
  memset(&e, 0, sizeof e);
  e.code = code;
  e.idx = idx;
  e.cmd_idx = idx;
  e.retired = idx;
  return e;
}

/* Steps 3 and 4 of the file comment. */
static void check_error_and_recover(fx_t *f, const expect_t *x) {
  sys_env_t *env = &f->env;
  /* The stop, and irq_o. */
  if (f->armed) {
    /* irq_o was low in begin(); now it must rise by itself. */
    EXPECT_EQ(f, "wait_irq (IRQ_ENABLE.ERROR set before the error)",
              env->hal.ops->wait_irq(env->hal.ctx, 50000000u), TSR_OK);
  }
  uint32_t status = 0;
  EXPECT_EQ(f, "waiting for the engine to stop", sys_wait_stopped(env, SYS_POLL_LIMIT, &status),
            TSR_OK);
  EXPECT_TRUE(f, (status & STATUS_ERROR) != 0u, "STATUS = 0x%x: ERROR is not set", status);
  EXPECT_EQ(f, "STATUS.DONE", (status >> TSR_STATUS_DONE_BIT) & 1u, 0u);
  wr(f, TSR_IRQ_ENABLE_REG_OFFSET, 0u);
  wr(f, TSR_IRQ_STATUS_REG_OFFSET, IRQ_DONE); /* a DONE from the lead-in does not matter */
  EXPECT_EQ(f, "IRQ_STATUS after the error", rd(f, TSR_IRQ_STATUS_REG_OFFSET), IRQ_ERROR);
  EXPECT_EQ(f, "irq_o with IRQ_ENABLE = 0", sys_irq_level(env), 0);
  wr(f, TSR_IRQ_ENABLE_REG_OFFSET, IRQ_DONE | IRQ_FENCE);
  EXPECT_EQ(f, "irq_o with IRQ_ENABLE = DONE|FENCE", sys_irq_level(env), 0);
  wr(f, TSR_IRQ_ENABLE_REG_OFFSET, IRQ_ERROR);
  EXPECT_EQ(f, "irq_o with IRQ_ENABLE = ERROR", sys_irq_level(env), 1);
  wr(f, TSR_IRQ_STATUS_REG_OFFSET, 0u);
  EXPECT_EQ(f, "IRQ_STATUS after writing 0 to it", rd(f, TSR_IRQ_STATUS_REG_OFFSET), IRQ_ERROR);
  EXPECT_EQ(f, "irq_o after writing 0 to IRQ_STATUS", sys_irq_level(env), 1);
  wr(f, TSR_IRQ_STATUS_REG_OFFSET, IRQ_ERROR);
  EXPECT_EQ(f, "IRQ_STATUS after writing 1 to ERROR", rd(f, TSR_IRQ_STATUS_REG_OFFSET), 0u);
  EXPECT_EQ(f, "irq_o after clearing IRQ_STATUS.ERROR", sys_irq_level(env), 0);
  EXPECT_TRUE(f, (rd(f, TSR_STATUS_REG_OFFSET) & STATUS_ERROR) != 0u,
              "clearing IRQ_STATUS.ERROR also cleared STATUS.ERROR");

  /* The error registers, raw. */
  EXPECT_EQ(f, "ERR_CODE", rd(f, TSR_ERR_CODE_REG_OFFSET), x->code);
  EXPECT_EQ(f, "ERR_CMD_IDX", rd(f, TSR_ERR_CMD_IDX_REG_OFFSET), x->idx);
  EXPECT_EQ(f, "ERR_ADDR", rd(f, TSR_ERR_ADDR_REG_OFFSET), x->addr);
  EXPECT_EQ(f, "CMD_IDX", rd(f, TSR_CMD_IDX_REG_OFFSET), x->cmd_idx);
  tsr_counters_t cnt;
  EXPECT_EQ(f, "tsr_counters_read", tsr_counters_read(&env->dev, &cnt), TSR_OK);
  EXPECT_EQ(f, "CNT_CMDS (commands retired before the error)", cnt.cmds, x->retired);

  /* The driver's view. */
  uint32_t code = 0, idx = 0, addr = 0;
  EXPECT_EQ(f, "tsr_read_error", tsr_read_error(&env->dev, &code, &idx, &addr), TSR_OK);
  EXPECT_EQ(f, "tsr_read_error code", code, x->code);
  EXPECT_EQ(f, "tsr_read_error cmd_idx", idx, x->idx);
  EXPECT_EQ(f, "tsr_read_error addr", addr, x->addr);
  const char *text = tsr_hw_error_str(x->code);
  size_t nl = strlen(k_err_names[x->code]);
  EXPECT_TRUE(f, strncmp(text, k_err_names[x->code], nl) == 0 && text[nl] == ':',
              "tsr_hw_error_str(%u) = '%s', expected it to start with '%s:'", x->code, text,
              k_err_names[x->code]);
  EXPECT_EQ(f, "tsr_wait on a stopped engine", tsr_wait(&env->dev, TSR_WAIT_POLL, 1000u),
            TSR_HW_ERROR);
  const char *msg = tsr_dev_error(&env->dev);
  char want[96];
  snprintf(want, sizeof want, "at command %u", x->idx);
  EXPECT_TRUE(f, strstr(msg, text) != NULL && strstr(msg, want) != NULL,
              "driver message '%s' lacks '%s' or '%s'", msg, text, want);
  if (x->code == TSR_ERR_BUS_READ || x->code == TSR_ERR_BUS_WRITE) {
    snprintf(want, sizeof want, "ERR_ADDR 0x%08x", x->addr);
    EXPECT_TRUE(f, strstr(msg, want) != NULL, "driver message '%s' lacks '%s'", msg, want);
  }

  /* Memory: nothing outside the target changed (the tripwire never ran). */
  uint8_t *after = sys_snapshot(env);
  EXPECT_TRUE(f, after != NULL, "reading the memory back failed");
  int64_t changed = sys_first_change_outside(f->img, after, SYS_MEM_SIZE, x->target.addr,
                                             x->target.stride, x->target.rows, x->target.bytes);
  uint8_t was = changed >= 0 ? f->img[changed] : 0u;
  uint8_t now = changed >= 0 ? after[changed] : 0u;
  free(after);
  EXPECT_TRUE(f, changed < 0, "byte at 0x%llx changed from 0x%02x to 0x%02x (%s)",
              (unsigned long long)changed, was, now,
              x->target.rows != 0u ? "outside the command's target rows" : "no byte may change");
  EXPECT_EQ(f, "AXI protocol violations", sys_protocol_errors(env), 0u);

  /* Recovery. */
  EXPECT_EQ(f, "soft reset", sys_soft_reset(env), TSR_OK);
  EXPECT_EQ(f, "STATUS after soft reset", rd(f, TSR_STATUS_REG_OFFSET), 0u);
  EXPECT_EQ(f, "ERR_CODE after soft reset", rd(f, TSR_ERR_CODE_REG_OFFSET), 0u);
  EXPECT_EQ(f, "ERR_CMD_IDX after soft reset", rd(f, TSR_ERR_CMD_IDX_REG_OFFSET), 0u);
  EXPECT_EQ(f, "ERR_ADDR after soft reset", rd(f, TSR_ERR_ADDR_REG_OFFSET), 0u);
  EXPECT_EQ(f, "CMD_IDX after soft reset", rd(f, TSR_CMD_IDX_REG_OFFSET), 0u);
  EXPECT_EQ(f, "IRQ_STATUS after soft reset", rd(f, TSR_IRQ_STATUS_REG_OFFSET), 0u);
  EXPECT_EQ(f, "CMDQ_STATUS after soft reset", rd(f, TSR_CMDQ_STATUS_REG_OFFSET),
            env->dev.info.cmdq_depth);
  EXPECT_EQ(f, "irq_o after soft reset (IRQ_ENABLE = ERROR)", sys_irq_level(env), 0);

  sys_shape_cfg_t shape = {40u, 0u, 1u, 0u, 1u};
  sys_case_t c;
  uint32_t seed = (uint32_t)sys_rng_next(&f->rng);
  sys_case_make(seed, &shape, GEMM_MEM, &c);
  sys_case_result_t res;
  char why[512];
  if (sys_case_run(env, &c, &res, why, sizeof why) != 0) {
    char desc[512];
    sys_case_describe(&c, desc, sizeof desc);
    fail_msg("%s (seed %u): the GEMM after the soft reset failed (case seed %u): %s; case: %s",
             f->variant, g_seed, seed, why, desc);
  }
}

/* The usual shape of a variant: lead-in, the offending command, a tripwire. */
static void simple_variant(fx_t *f, const char *name, cmd_t bad, uint32_t code) {
  begin(f, name, (f->variants & 1u) != 0u);
  uint32_t k = lead_in(f);
  push(f, bad);
  tripwire(f);
  expect_t x = at(code, k);
  check_error_and_recover(f, &x);
}

/* ---- Tests ------------------------------------------------------------------------------------------- */

static void opcode_unknown_stops_with_err_opcode(void **state) {
  fx_t *f = *state;
  simple_variant(f, "OPCODE: opcode 6", c_raw(6u), TSR_ERR_OPCODE);
  simple_variant(f, "OPCODE: SFU FUNC 7", c_raw(5u | (7u << 16)), TSR_ERR_OPCODE);
  simple_variant(f, "OPCODE: SFU FUNC 15", c_raw(5u | (15u << 16)), TSR_ERR_OPCODE);
  simple_variant(f, "OPCODE: opcode 0xff", c_raw(0xffu), TSR_ERR_OPCODE);
  simple_variant(f, "OPCODE: opcode 0x80 with flags", c_raw(0x80u | 0x10000u), TSR_ERR_OPCODE);
}

static void zero_or_oversized_dimension_stops_with_err_dim(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  simple_variant(f, "DIM: LOAD ROWS 0", c_load(0u, false, DATA_ADDR, n, 0u, n, 0u), TSR_ERR_DIM);
  simple_variant(f, "DIM: LOAD COLS 0", c_load(0u, true, DATA_ADDR, n, 1u, 0u, 0u), TSR_ERR_DIM);
  simple_variant(f, "DIM: MATMUL M 0", c_matmul(0u, false, false, 0u, 0u, 0u, 0u, n, n),
                 TSR_ERR_DIM);
  simple_variant(f, "DIM: MATMUL K 0", c_matmul(0u, false, false, 0u, 0u, 0u, 1u, 0u, n),
                 TSR_ERR_DIM);
  simple_variant(f, "DIM: MATMUL N 0", c_matmul(0u, false, false, 0u, 0u, 0u, 1u, n, 0u),
                 TSR_ERR_DIM);
  simple_variant(f, "DIM: MATMUL N N+1", c_matmul(0u, false, false, 0u, 0u, 0u, 1u, 1u, n + 1u),
                 TSR_ERR_DIM);
  simple_variant(f, "DIM: STORE ROWS 0", c_store(0u, TRIP_ADDR, 0u, 0u, n, 0u, &k_raw_out),
                 TSR_ERR_DIM);
  simple_variant(f, "DIM: STORE COLS N+1", c_store(0u, TRIP_ADDR, 0u, 1u, n + 1u, 0u, &k_raw_out),
                 TSR_ERR_DIM);
}

static void scratchpad_overrun_stops_with_err_spad_range(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  const uint32_t sp = f->env.dev.info.spad_rows;
  simple_variant(f, "SPAD_RANGE: LOAD LOCAL+ROWS = SPAD_ROWS+1",
                 c_load(0u, false, DATA_ADDR, n, 2u, n, sp - 1u), TSR_ERR_SPAD_RANGE);
  simple_variant(f, "SPAD_RANGE: LOAD of 3 chunks one row past the end",
                 c_load(0u, false, DATA_ADDR, 0u, 1u, 2u * n + 1u, sp - 2u), TSR_ERR_SPAD_RANGE);
  simple_variant(f, "SPAD_RANGE: LOAD LOCAL beyond the scratchpad",
                 c_load(0u, false, DATA_ADDR, n, 1u, 1u, 0xffffffu), TSR_ERR_SPAD_RANGE);
  simple_variant(f, "SPAD_RANGE: MATMUL A_ADDR+M past the end",
                 c_matmul(0u, false, false, sp - 1u, 0u, 0u, 2u, n, n), TSR_ERR_SPAD_RANGE);
  simple_variant(f, "SPAD_RANGE: MATMUL W_ADDR+K past the end",
                 c_matmul(0u, false, false, 0u, sp - 1u, 0u, 1u, 2u, n), TSR_ERR_SPAD_RANGE);
  /* K > N: T = ceil(K/N) tiles, each with M A rows: A_ADDR + T*M must fit. At
   * exactly the end it runs; one row further it stops, and so does a product
   * T*M far beyond 24 bits (K = SPAD_ROWS, M = 65535: no wrap). */
  const uint32_t m = 3u, kk = 3u * n + 1u;   /* 4 tiles */
  begin(f, "SPAD_RANGE control: MATMUL K 3N+1 with A_ADDR+4M = SPAD_ROWS runs", false);
  push(f, c_matmul(0u, false, false, sp - 4u * m, 0u, 0u, m, kk, n));
  uint32_t status = 0;
  EXPECT_EQ(f, "waiting for idle", sys_wait_stopped(&f->env, SYS_POLL_LIMIT, &status), TSR_OK);
  EXPECT_EQ(f, "STATUS after MATMUL K 3N+1 at the end", status & STATUS_ERROR, 0u);
  EXPECT_EQ(f, "CMD_IDX", rd(f, TSR_CMD_IDX_REG_OFFSET), 1u);
  simple_variant(f, "SPAD_RANGE: MATMUL K 3N+1 with A_ADDR+4M = SPAD_ROWS+1",
                 c_matmul(0u, false, false, sp - 4u * m + 1u, 0u, 0u, m, kk, n), TSR_ERR_SPAD_RANGE);
  simple_variant(f, "SPAD_RANGE: MATMUL K SPAD_ROWS, M 65535",
                 c_matmul(0u, false, false, 0u, 0u, 0u, 0xffffu, sp, n), TSR_ERR_SPAD_RANGE);
}

static void accumulator_overrun_stops_with_err_acc_range(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  const uint32_t ac = f->env.dev.info.acc_rows;
  store_opt_t pc = {false, true, true, ac - 2u, 0, 0, 0, -128, 127};
  store_opt_t bias = {true, false, false, ac, 0, 0, 0, -128, 127};
  simple_variant(f, "ACC_RANGE: LOAD to the accumulator past the end",
                 c_load(0u, true, DATA_ADDR, 4u * n, 2u, 4u * n, ac - 1u), TSR_ERR_ACC_RANGE);
  simple_variant(f, "ACC_RANGE: MATMUL C_ADDR+M past the end",
                 c_matmul(0u, false, false, 0u, 0u, ac - 1u, 2u, n, n), TSR_ERR_ACC_RANGE);
  simple_variant(f, "ACC_RANGE: STORE SRC+ROWS past the end",
                 c_store(0u, TRIP_ADDR, 4u * n, 2u, n, ac - 1u, &k_raw_out), TSR_ERR_ACC_RANGE);
  simple_variant(f, "ACC_RANGE: per-channel STORE with PARAM+3 past the end",
                 c_store(0u, TRIP_ADDR, n, 1u, n, 0u, &pc), TSR_ERR_ACC_RANGE);
  simple_variant(f, "ACC_RANGE: STORE with bias row PARAM = ACC_ROWS",
                 c_store(0u, TRIP_ADDR, 4u * n, 1u, n, 0u, &bias), TSR_ERR_ACC_RANGE);
}

static void region_past_4gib_stops_with_err_dram_range(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  store_opt_t rq = {false, true, false, 0u, INT32_C(1) << 30, 0, 0, -128, 127};
  simple_variant(f, "DRAM_RANGE: LOAD ADDR 0xfffffff0 + 17 bytes",
                 c_load(0u, false, 0xfffffff0u, 0u, 1u, 17u, 0u), TSR_ERR_DRAM_RANGE);
  simple_variant(f, "DRAM_RANGE: LOAD whose STRIDE carries past 2^32",
                 c_load(0u, false, 0x1000u, 0x80000000u, 3u, 1u, 0u), TSR_ERR_DRAM_RANGE);
  simple_variant(f, "DRAM_RANGE: raw STORE at 0xfffffffd (4-byte elements)",
                 c_store(0u, 0xfffffffdu, 0u, 1u, 1u, 0u, &k_raw_out), TSR_ERR_DRAM_RANGE);
  simple_variant(f, "DRAM_RANGE: int8 STORE whose third row starts at 2^32",
                 c_store(0u, 0xffff0000u, 0x8000u, 3u, n, 0u, &rq), TSR_ERR_DRAM_RANGE);
}

/* Address of the bus beat that holds byte `a`. */
static uint32_t beat_of(const fx_t *f, uint32_t a) { return a & ~(f->env.dev.info.axi_bytes - 1u); }

static void slverr_on_load_stops_with_err_bus_read(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  struct {
    const char *name;
    bool acc;
    uint32_t addr, stride, rows, cols, err_addr;
  } v[] = {
      /* Rows 0 and 1 lie below the range; row 2 starts 3 bytes before it. */
      {"BUS_READ: LOAD whose third row straddles the SLVERR range", false,
       ERR_BASE - 3u - 2u * 0x40u, 0x40u, 4u, n, beat_of(f, ERR_BASE - 3u)},
      {"BUS_READ: LOAD to the accumulator inside the SLVERR range", true, ERR_BASE + 0x21u, 0x80u,
       2u, 4u * n, beat_of(f, ERR_BASE + 0x21u)},
      /* Ends exactly at 2^32 (legal: no DRAM_RANGE), beyond the memory: DECERR. */
      {"BUS_READ: LOAD of the last 16 bytes below 2^32 (DECERR)", false, 0xfffffff0u, 0u, 1u, 16u,
       0xfffffff0u},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    begin(f, v[i].name, (i & 1u) == 0u);
    uint32_t k = lead_in(f);
    push(f, c_load(0u, v[i].acc, v[i].addr, v[i].stride, v[i].rows, v[i].cols, 0u));
    tripwire(f);
    expect_t x = at(TSR_ERR_BUS_READ, k);
    x.addr = v[i].err_addr;
    check_error_and_recover(f, &x);
  }
}

static void slverr_on_store_stops_with_err_bus_write(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  store_opt_t rq = {false, true, false, 0u, INT32_C(1) << 30, -3, 0, -128, 127};
  struct {
    const char *name;
    bool requant;
    uint32_t addr, stride, rows, err_addr;
  } v[] = {
      {"BUS_WRITE: raw STORE whose third row straddles the SLVERR range", false,
       ERR_BASE - 3u - 2u * 0x100u, 0x100u, 4u, beat_of(f, ERR_BASE - 3u)},
      {"BUS_WRITE: int8 STORE inside the SLVERR range", true, ERR_BASE + 0x101u, 0x33u, 3u,
       beat_of(f, ERR_BASE + 0x101u)},
      {"BUS_WRITE: raw STORE beyond the memory (DECERR)", false, 0xffffff00u, 0x40u, 2u,
       0xffffff00u},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    begin(f, v[i].name, (i & 1u) != 0u);
    uint32_t k = lead_in(f);
    /* Accumulator rows 0..3 from memory, so the STORE has something to write. */
    push(f, c_load(0u, true, DATA_ADDR + 1u, 4u * n, 4u, 4u * n, 0u));
    push(f, c_store(0u, v[i].addr, v[i].stride, v[i].rows, n, 0u,
                    v[i].requant ? &rq : &k_raw_out));
    tripwire(f);
    expect_t x = at(TSR_ERR_BUS_WRITE, k + 1u);
    x.addr = v[i].err_addr;
    x.target.addr = v[i].addr;
    x.target.stride = v[i].stride;
    x.target.rows = v[i].rows;
    x.target.bytes = v[i].requant ? n : 4u * n;
    check_error_and_recover(f, &x);
  }
}

static void bad_requant_parameters_stop_with_err_param(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  store_opt_t shift31 = {false, true, false, 0u, INT32_C(1) << 30, 31, 0, -128, 127};
  store_opt_t shiftm32 = {true, true, false, 0u, INT32_C(1) << 30, -32, 0, -128, 127};
  store_opt_t minmax = {false, true, false, 0u, INT32_C(1) << 30, 0, 0, 5, 4};
  simple_variant(f, "PARAM: per-tensor SHIFT 31", c_store(0u, TRIP_ADDR, n, 1u, n, 0u, &shift31),
                 TSR_ERR_PARAM);
  simple_variant(f, "PARAM: per-tensor SHIFT -32",
                 c_store(0u, TRIP_ADDR, n, 1u, n, 0u, &shiftm32), TSR_ERR_PARAM);
  simple_variant(f, "PARAM: ACT_MIN 5 > ACT_MAX 4", c_store(0u, TRIP_ADDR, n, 1u, n, 0u, &minmax),
                 TSR_ERR_PARAM);

  /* Control: without REQUANT the same fields are not checked (docs: "REQUANT only"). */
  begin(f, "PARAM control: SHIFT 31, ACT_MIN > ACT_MAX ignored without REQUANT", false);
  store_opt_t raw_bad = {false, false, false, 0u, 0, 31, 0, 5, 4};
  push(f, c_store(0u, TRIP_ADDR, 0u, 1u, n, 0u, &raw_bad));
  uint32_t status = 0;
  EXPECT_EQ(f, "waiting for idle", sys_wait_stopped(&f->env, SYS_POLL_LIMIT, &status), TSR_OK);
  EXPECT_EQ(f, "STATUS.ERROR", (status >> TSR_STATUS_ERROR_BIT) & 1u, 0u);
  EXPECT_EQ(f, "CMD_IDX after the STORE", rd(f, TSR_CMD_IDX_REG_OFFSET), 1u);

  /* Per channel: the shift row (PARAM+2) holds one bad shift in a used column. */
  static const int32_t k_bad[2] = {31, -32};
  for (unsigned b = 0; b < 2u; b++) {
    begin(f, b == 0u ? "PARAM: per-channel shift 31 in the parameter row"
                     : "PARAM: per-channel shift -32 in the parameter row",
          b == 1u);
    const uint32_t param = 100u;
    const uint32_t col = (uint32_t)sys_rng_range(&f->rng, 0, n - 1u);
    for (uint32_t j = 0; j < n; j++) {
      poke32(f, DATA_ADDR + 4u * j, INT32_C(1) << 30);                          /* mult */
      poke32(f, DATA_ADDR + 0x100u + 4u * j, j == col ? k_bad[b] : -(int32_t)j); /* shift */
    }
    uint32_t k = lead_in(f);
    push(f, c_load(0u, true, DATA_ADDR, 0x100u, 2u, 4u * n, param + 1u));
    store_opt_t pc = {true, true, true, param, 0, 0, 0, -128, 127};
    push(f, c_store(0u, TRIP_ADDR, n, 1u, n, 0u, &pc));
    tripwire(f);
    expect_t x = at(TSR_ERR_PARAM, k + 1u);
    check_error_and_recover(f, &x);
  }

  /* Control: the columns from COLS on are not written, so their shifts are not checked. */
  begin(f, "PARAM control: per-channel shift 31 in the column past COLS ignored", false);
  for (uint32_t j = 0; j < n; j++) {
    poke32(f, DATA_ADDR + 4u * j, INT32_C(1) << 30);
    poke32(f, DATA_ADDR + 0x100u + 4u * j, j == n - 1u ? 31 : 0);
  }
  push(f, c_load(0u, true, DATA_ADDR, 0x100u, 2u, 4u * n, 101u));
  store_opt_t past = {true, true, true, 100u, 0, 0, 0, -128, 127};
  push(f, c_store(0u, DATA_ADDR + 0x200u, n, 1u, n - 1u, 0u, &past));
  EXPECT_EQ(f, "waiting for idle", sys_wait_stopped(&f->env, SYS_POLL_LIMIT, &status), TSR_OK);
  EXPECT_EQ(f, "STATUS.ERROR", (status >> TSR_STATUS_ERROR_BIT) & 1u, 0u);
  EXPECT_EQ(f, "CMD_IDX after the STORE", rd(f, TSR_CMD_IDX_REG_OFFSET), 2u);
}

static void broken_token_rules_stop_with_err_dep_token(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  /* Pops on empty counters (each command is valid otherwise). */
  simple_variant(f, "DEP_TOKEN: MATMUL POP_PREV with no load token",
                 c_matmul(TSR_DEP_POP_PREV, false, false, 0u, 0u, 0u, 1u, 1u, 1u),
                 TSR_ERR_DEP_TOKEN);
  simple_variant(f, "DEP_TOKEN: NOP POP_NEXT with no store token", c_raw(TSR_OP_NOP | TSR_DEP_POP_NEXT),
                 TSR_ERR_DEP_TOKEN);
  simple_variant(f, "DEP_TOKEN: LOAD POP_NEXT with no compute token",
                 c_load(TSR_DEP_POP_NEXT, false, DATA_ADDR, n, 1u, n, 0u), TSR_ERR_DEP_TOKEN);
  simple_variant(f, "DEP_TOKEN: STORE POP_PREV with no compute token",
                 c_store(TSR_DEP_POP_PREV, TRIP_ADDR, 0u, 1u, n, 0u, &k_raw_out),
                 TSR_ERR_DEP_TOKEN);
  /* Bits the stage cannot use. */
  simple_variant(f, "DEP_TOKEN: scratchpad LOAD with POP_PREV (no previous stage)",
                 c_load(TSR_DEP_POP_PREV, false, DATA_ADDR, n, 1u, n, 0u), TSR_ERR_DEP_TOKEN);
  simple_variant(f, "DEP_TOKEN: scratchpad LOAD with PUSH_PREV (no previous stage)",
                 c_load(TSR_DEP_PUSH_PREV, false, DATA_ADDR, n, 1u, n, 0u), TSR_ERR_DEP_TOKEN);
  simple_variant(f, "DEP_TOKEN: STORE with PUSH_NEXT (no next stage)",
                 c_store(TSR_DEP_PUSH_NEXT, TRIP_ADDR, 0u, 1u, n, 0u, &k_raw_out),
                 TSR_ERR_DEP_TOKEN);
  simple_variant(f, "DEP_TOKEN: FENCE with PUSH_NEXT (a fence has no stage)",
                 c_raw(TSR_OP_FENCE | TSR_DEP_PUSH_NEXT), TSR_ERR_DEP_TOKEN);

  /* A counter pushed past 255: 255 NOPs push compute->store, the 256th fails. */
  begin(f, "DEP_TOKEN: compute->store counter pushed past 255", true);
  uint32_t k = lead_in(f);
  for (uint32_t i = 0; i < 256u; i++) {
    cmd_t c = c_raw(TSR_OP_NOP | TSR_DEP_PUSH_NEXT);
    tsr_cmd_t tc;
    memcpy(tc.w, c.w, sizeof tc.w);
    EXPECT_EQ(f, "tsr_submit of a NOP", tsr_submit(&f->env.dev, &tc), TSR_OK);
  }
  tripwire(f);
  expect_t x = at(TSR_ERR_DEP_TOKEN, k + 255u);
  check_error_and_recover(f, &x);
}

static void push_into_full_queue_stops_with_err_cmdq_overflow(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  /* A slow memory, so one LOAD of the whole scratchpad keeps the engine busy
   * while the queue fills. */
  tsr_sim_cfg_t cfg;
  fx_default_cfg(&cfg);
  cfg.rd_latency = 40u;
  fx_reopen(f, &cfg);
  const uint32_t depth = f->env.dev.info.cmdq_depth;
  const uint32_t sp = f->env.dev.info.spad_rows;

  begin(f, "CMDQ_OVERFLOW: command CMDQ_DEPTH+1 behind a long LOAD", false);
  uint32_t k = lead_in(f);
  push(f, c_load(0u, false, DATA_ADDR, n, sp, n, 0u));
  uint32_t polls = 0;
  while (rd(f, TSR_OPCODE_REG_OFFSET) != TSR_OP_LOAD || rd(f, TSR_CMD_IDX_REG_OFFSET) != k) {
    EXPECT_TRUE(f, ++polls < 100000u, "the long LOAD never started");
  }
  for (uint32_t i = 0; i < depth; i++) {
    tripwire(f);
  }
  uint32_t q = rd(f, TSR_CMDQ_STATUS_REG_OFFSET);
  EXPECT_EQ(f, "CMDQ_STATUS.FREE with the queue full",
            (q >> TSR_CMDQ_STATUS_FREE_OFFSET) & TSR_CMDQ_STATUS_FREE_MASK, 0u);
  EXPECT_EQ(f, "OPCODE while the queue is full (the LOAD still runs)",
            rd(f, TSR_OPCODE_REG_OFFSET), TSR_OP_LOAD);
  EXPECT_TRUE(f, (rd(f, TSR_STATUS_REG_OFFSET) & STATUS_BUSY) != 0u, "STATUS.BUSY is clear");
  tripwire(f); /* one command too many */
  /* The engine reports the overflow once the running LOAD is done; the
   * queued STOREs never run. */
  expect_t x;
  memset(&x, 0, sizeof x);
  x.code = TSR_ERR_CMDQ_OVERFLOW;
  x.idx = k + 1u + depth;
  x.cmd_idx = k + 1u;
  x.retired = k + 1u;
  check_error_and_recover(f, &x);
}

static void keep_weights_without_weights_stops_with_err_no_weights(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  /* Control: with weights in the array, KEEP_WEIGHTS runs (the same MATMUL
   * that must fail below does not always fail). */
  begin(f, "NO_WEIGHTS control: KEEP_WEIGHTS after a MATMUL runs", false);
  push(f, c_load(0u, false, DATA_ADDR, n, 2u * n, n, 0u));
  push(f, c_matmul(0u, false, false, 0u, n, 0u, n, n, n));
  push(f, c_matmul(0u, true, true, 0u, 0u, n, n, 0u, 0u));
  uint32_t status = 0;
  EXPECT_EQ(f, "waiting for idle", sys_wait_stopped(&f->env, SYS_POLL_LIMIT, &status), TSR_OK);
  EXPECT_EQ(f, "STATUS after LOAD, MATMUL, MATMUL KEEP_WEIGHTS", status & STATUS_ERROR, 0u);
  EXPECT_EQ(f, "CMD_IDX", rd(f, TSR_CMD_IDX_REG_OFFSET), 3u);

  /* Right after that soft reset the weights are gone. */
  simple_variant(f, "NO_WEIGHTS: KEEP_WEIGHTS right after the soft reset",
                 c_matmul(0u, false, true, 0u, 0u, 0u, 1u, 0u, 0u), TSR_ERR_NO_WEIGHTS);
  simple_variant(f, "NO_WEIGHTS: accumulating KEEP_WEIGHTS right after the soft reset",
                 c_matmul(0u, true, true, 0u, 0u, 0u, n, 0u, 0u), TSR_ERR_NO_WEIGHTS);
}

/* DMA data beats the memory model has accepted. */
static void beats(fx_t *f, uint64_t *rd, uint64_t *wr) {
  EXPECT_EQ(f, "memory statistics", tsr_hal_sim_mem_stats(&f->env.hal, rd, wr, NULL), TSR_OK);
}

static void set_window(fx_t *f, uint32_t base, uint32_t limit) {
  EXPECT_EQ(f, "tsr_set_dma_window", tsr_set_dma_window(&f->env.dev, base, limit, false), TSR_OK);
}

/* `c` alone under the window base..limit: refused with `code` (for
 * ERR_DMA_WINDOW, ERR_ADDR = its start address) before a single bus beat, or,
 * when `code` is 0, run to the end. The window opens fully again before the
 * recovery GEMM. */
static void window_variant(fx_t *f, const char *name, uint32_t base, uint32_t limit, cmd_t c,
                           uint32_t code) {
  begin(f, name, (f->variants & 1u) != 0u);
  set_window(f, base, limit);
  uint64_t rd0 = 0, wr0 = 0, rd1 = 0, wr1 = 0;
  beats(f, &rd0, &wr0);
  push(f, c);
  uint32_t status = 0;
  EXPECT_EQ(f, "waiting for the engine to stop", sys_wait_stopped(&f->env, SYS_POLL_LIMIT, &status),
            TSR_OK);
  beats(f, &rd1, &wr1);
  set_window(f, 0u, UINT32_MAX);
  if (code == TSR_ERR_NONE) {
    EXPECT_EQ(f, "STATUS.ERROR of a command inside the window", status & STATUS_ERROR, 0u);
    EXPECT_TRUE(f, rd1 + wr1 > rd0 + wr0, "the command inside the window moved no data");
    return;
  }
  EXPECT_EQ(f, "read beats of a refused command", rd1 - rd0, 0u);
  EXPECT_EQ(f, "write beats of a refused command", wr1 - wr0, 0u);
  expect_t x = at(code, 0u);
  x.addr = code == TSR_ERR_DMA_WINDOW ? c.w[1] : 0u;
  check_error_and_recover(f, &x);
}

static void region_outside_the_dma_window_is_refused_before_any_bus_beat(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  const uint32_t lo = DATA_ADDR + 0x100u, hi = DATA_ADDR + 0x1fffu; /* the window */
  store_opt_t rq = {false, true, false, 0u, INT32_C(1) << 30, 0, 0, -128, 127};
  const uint32_t win = TSR_ERR_DMA_WINDOW;
  /* Controls: regions that touch both ends exactly run. */
  window_variant(f, "DMA_WINDOW control: LOAD of the window's first and last byte", lo, hi,
                 c_load(0u, false, lo, hi - lo, 2u, 1u, 0u), TSR_ERR_NONE);
  window_variant(f, "DMA_WINDOW control: int8 STORE ending on the last byte", lo, hi,
                 c_store(0u, hi + 1u - 3u * n, n, 3u, n, 0u, &rq), TSR_ERR_NONE);
  window_variant(f, "DMA_WINDOW control: zero stride, 4000 rows, one byte", hi, hi,
                 c_load(0u, false, hi, 0u, 4000u, 1u, 0u), TSR_ERR_NONE);
  /* One byte out at either end. */
  window_variant(f, "DMA_WINDOW: LOAD starting one byte below the base", lo, hi,
                 c_load(0u, false, lo - 1u, 0x40u, 2u, n, 0u), win);
  window_variant(f, "DMA_WINDOW: LOAD whose last row ends one byte past the limit", lo, hi,
                 c_load(0u, true, hi + 2u - 4u * n - 0x100u, 0x100u, 2u, 4u * n, 0u), win);
  window_variant(f, "DMA_WINDOW: raw STORE ending one byte past the limit", lo, hi,
                 c_store(0u, hi + 2u - 4u * n, 0u, 1u, n, 0u, &k_raw_out), win);
  window_variant(f, "DMA_WINDOW: int8 STORE whose third row leaves the window", lo, hi,
                 c_store(0u, lo, 0x1000u, 3u, n, 0u, &rq), win);
  window_variant(f, "DMA_WINDOW: base = limit and a 2-byte LOAD", lo, lo,
                 c_load(0u, false, lo, 0u, 1u, 2u, 0u), win);
  /* Adversarial: huge counts and strides; sums that would wrap in 32 bits. */
  window_variant(f, "DMA_WINDOW: LOAD of 4000 rows with a 1 MiB stride", lo, hi,
                 c_load(0u, false, lo, 0x100000u, 4000u, 1u, 0u), win);
  window_variant(f, "DMA_WINDOW: STORE of 1000 rows with a 64 KiB stride", lo, hi,
                 c_store(0u, lo, 0x10000u, 1000u, n, 0u, &rq), win);
  window_variant(f, "DMA_WINDOW: STORE whose stride looks negative wraps: DRAM_RANGE", lo, hi,
                 c_store(0u, hi - 0x100u, 0xffffff00u, 2u, 1u, 0u, &rq), TSR_ERR_DRAM_RANGE);
  window_variant(f, "DMA_WINDOW: LOAD wrapping past 2^32 back into the window: DRAM_RANGE", lo,
                 hi, c_load(0u, false, lo, 0xffffffffu, 2u, 1u, 0u), TSR_ERR_DRAM_RANGE);
}

static void dma_window_lock_holds_until_hardware_reset(void **state) {
  fx_t *f = *state;
  begin(f, "DMA_WINDOW lock", false);
  EXPECT_EQ(f, "tsr_set_dma_window with base > limit",
            tsr_set_dma_window(&f->env.dev, 0x2000u, 0x1000u, false), TSR_BAD_ARG);
  EXPECT_EQ(f, "DMA_WIN_LIMIT after the refused call", rd(f, TSR_DMA_WIN_LIMIT_REG_OFFSET),
            UINT32_MAX);
  EXPECT_EQ(f, "lock", tsr_set_dma_window(&f->env.dev, 0x1000u, 0x2fffffu, true), TSR_OK);
  uint32_t v = 0;
  EXPECT_EQ(f, "write to a locked DMA_WIN_BASE", sys_wr(&f->env, TSR_DMA_WIN_BASE_REG_OFFSET, 0u),
            TSR_BUS);
  EXPECT_EQ(f, "write to a locked DMA_WIN_LIMIT",
            sys_wr(&f->env, TSR_DMA_WIN_LIMIT_REG_OFFSET, UINT32_MAX), TSR_BUS);
  EXPECT_EQ(f, "unlocking write to DMA_WIN_CTRL", sys_wr(&f->env, TSR_DMA_WIN_CTRL_REG_OFFSET, 0u),
            TSR_BUS);
  EXPECT_EQ(f, "tsr_set_dma_window while locked",
            tsr_set_dma_window(&f->env.dev, 0u, UINT32_MAX, false), TSR_BUS);
  EXPECT_EQ(f, "soft reset", sys_soft_reset(&f->env), TSR_OK);
  EXPECT_EQ(f, "read DMA_WIN_BASE", sys_rd(&f->env, TSR_DMA_WIN_BASE_REG_OFFSET, &v), TSR_OK);
  EXPECT_EQ(f, "DMA_WIN_BASE after the refused writes and a soft reset", v, 0x1000u);
  EXPECT_EQ(f, "DMA_WIN_LIMIT after the refused writes and a soft reset",
            rd(f, TSR_DMA_WIN_LIMIT_REG_OFFSET), 0x2fffffu);
  EXPECT_EQ(f, "DMA_WIN_CTRL after the refused writes and a soft reset",
            rd(f, TSR_DMA_WIN_CTRL_REG_OFFSET), 1u << TSR_DMA_WIN_CTRL_LOCK_BIT);
  /* The locked window still works: a LOAD below it is refused. */
  push(f, c_load(0u, false, 0x800u, 0u, 1u, 1u, 0u));
  uint32_t status = 0;
  EXPECT_EQ(f, "waiting for the engine to stop", sys_wait_stopped(&f->env, SYS_POLL_LIMIT, &status),
            TSR_OK);
  EXPECT_EQ(f, "ERR_CODE under the locked window", rd(f, TSR_ERR_CODE_REG_OFFSET),
            TSR_ERR_DMA_WINDOW);
  /* Only a hardware reset opens it again. */
  tsr_sim_cfg_t cfg;
  fx_default_cfg(&cfg);
  fx_reopen(f, &cfg);
  EXPECT_EQ(f, "DMA_WIN_CTRL after a hardware reset", rd(f, TSR_DMA_WIN_CTRL_REG_OFFSET), 0u);
  EXPECT_EQ(f, "DMA_WIN_BASE after a hardware reset", rd(f, TSR_DMA_WIN_BASE_REG_OFFSET), 0u);
  EXPECT_EQ(f, "DMA_WIN_LIMIT after a hardware reset", rd(f, TSR_DMA_WIN_LIMIT_REG_OFFSET),
            UINT32_MAX);
}

/* After a soft reset in the middle of work: registers clean, no byte outside
 * `t` changed, no AXI rule broken, and a GEMM runs bit-exact. */
static void check_abort(fx_t *f, const target_t *t) {
  EXPECT_EQ(f, "soft reset", sys_soft_reset(&f->env), TSR_OK);
  EXPECT_EQ(f, "STATUS after the soft reset", rd(f, TSR_STATUS_REG_OFFSET), 0u);
  EXPECT_EQ(f, "CMDQ_STATUS after the soft reset", rd(f, TSR_CMDQ_STATUS_REG_OFFSET),
            f->env.dev.info.cmdq_depth);
  EXPECT_EQ(f, "CMD_IDX after the soft reset", rd(f, TSR_CMD_IDX_REG_OFFSET), 0u);
  EXPECT_EQ(f, "ERR_CODE after the soft reset", rd(f, TSR_ERR_CODE_REG_OFFSET), 0u);
  uint8_t *after = sys_snapshot(&f->env);
  EXPECT_TRUE(f, after != NULL, "reading the memory back failed");
  int64_t changed = sys_first_change_outside(f->img, after, SYS_MEM_SIZE, t->addr, t->stride,
                                             t->rows, t->bytes);
  free(after);
  EXPECT_TRUE(f, changed < 0, "byte at 0x%llx changed outside the target",
              (unsigned long long)changed);
  EXPECT_EQ(f, "AXI protocol violations", sys_protocol_errors(&f->env), 0u);
  sys_shape_cfg_t shape = {40u, 0u, 1u, 0u, 1u};
  sys_case_t c;
  uint32_t seed = (uint32_t)sys_rng_next(&f->rng);
  sys_case_make(seed, &shape, GEMM_MEM, &c);
  sys_case_result_t res;
  char why[512];
  if (sys_case_run(&f->env, &c, &res, why, sizeof why) != 0) {
    fail_msg("%s (seed %u): the GEMM after the soft reset failed (case seed %u): %s", f->variant,
             g_seed, seed, why);
  }
}

static void soft_reset_aborts_running_commands_and_partial_words(void **state) {
  fx_t *f = *state;
  const uint32_t n = g_dim;
  tsr_sim_cfg_t cfg;
  fx_default_cfg(&cfg);
  cfg.rd_latency = 30u;
  cfg.wr_latency = 30u;
  cfg.stall_pct = 30u;
  cfg.seed = g_seed;
  fx_reopen(f, &cfg);
  const uint32_t sp = f->env.dev.info.spad_rows;
  const uint32_t ac = f->env.dev.info.acc_rows;

  /* A LOAD of the whole scratchpad, interrupted after a random number of polls. */
  begin(f, "soft reset during a long LOAD", false);
  push(f, c_load(0u, false, DATA_ADDR, n, sp, n, 0u));
  push(f, c_load(0u, true, DATA_ADDR, 4u * n, ac, 4u * n, 0u));
  uint32_t polls = (uint32_t)sys_rng_range(&f->rng, 20, 400);
  for (uint32_t i = 0; i < polls; i++) {
    (void)rd(f, TSR_STATUS_REG_OFFSET);
  }
  EXPECT_EQ(f, "OPCODE before the soft reset", rd(f, TSR_OPCODE_REG_OFFSET), TSR_OP_LOAD);
  target_t none = {0u, 0u, 0u, 0u};
  check_abort(f, &none);

  /* A STORE of every accumulator row, interrupted: only its rows may change. */
  begin(f, "soft reset during a long STORE", false);
  const uint32_t dst = 0x100001u;
  const uint32_t stride = 4u * n + 5u;
  push(f, c_store(0u, dst, stride, ac, n, 0u, &k_raw_out));
  polls = (uint32_t)sys_rng_range(&f->rng, 20, 400);
  for (uint32_t i = 0; i < polls; i++) {
    (void)rd(f, TSR_STATUS_REG_OFFSET);
  }
  EXPECT_EQ(f, "OPCODE before the soft reset", rd(f, TSR_OPCODE_REG_OFFSET), TSR_OP_STORE);
  target_t rows = {dst, stride, ac, 4u * n};
  check_abort(f, &rows);

  /* Three words of a command, then a soft reset: the partial command is gone. */
  begin(f, "soft reset with a partial command in the queue port", false);
  for (uint32_t i = 0; i < 3u; i++) {
    wr(f, TSR_CMDQ_PUSH_REG_OFFSET, TSR_OP_STORE);
  }
  uint32_t q = rd(f, TSR_CMDQ_STATUS_REG_OFFSET);
  EXPECT_EQ(f, "CMDQ_STATUS.WORDS after 3 words",
            (q >> TSR_CMDQ_STATUS_WORDS_OFFSET) & TSR_CMDQ_STATUS_WORDS_MASK, 3u);
  check_abort(f, &none);
}

static void unmapped_register_answers_slverr_and_bus_keeps_working(void **state) {
  fx_t *f = *state;
  f->variant = "register bus";
  static const uint32_t k_holes[] = {0x03cu, 0x07cu, 0x0d4u, 0x100u, 0x800u, 0xffcu};
  const uint32_t id = rd(f, TSR_ID_REG_OFFSET);
  for (size_t i = 0; i < sizeof k_holes / sizeof k_holes[0]; i++) {
    uint32_t v = 0x12345678u;
    char what[96];
    snprintf(what, sizeof what, "read of unmapped offset 0x%03x", k_holes[i]);
    EXPECT_EQ(f, what, sys_rd(&f->env, k_holes[i], &v), TSR_BUS);
    snprintf(what, sizeof what, "write of unmapped offset 0x%03x", k_holes[i]);
    EXPECT_EQ(f, what, sys_wr(&f->env, k_holes[i], 0xffffffffu), TSR_BUS);
    EXPECT_EQ(f, "ID after an SLVERR", rd(f, TSR_ID_REG_OFFSET), id);
  }
  /* A write to a read-only register answers SLVERR and changes nothing. */
  EXPECT_EQ(f, "write of read-only ID", sys_wr(&f->env, TSR_ID_REG_OFFSET, 0u), TSR_BUS);
  EXPECT_EQ(f, "ID after the refused write", rd(f, TSR_ID_REG_OFFSET), id);
  EXPECT_EQ(f, "write of read-only STATUS", sys_wr(&f->env, TSR_STATUS_REG_OFFSET, 7u), TSR_BUS);
  EXPECT_EQ(f, "STATUS after the refused write", rd(f, TSR_STATUS_REG_OFFSET), 0u);
  /* The bus still works: a read-write register holds a value, the engine runs a GEMM. */
  wr(f, TSR_IRQ_ENABLE_REG_OFFSET, IRQ_FENCE | IRQ_DONE);
  EXPECT_EQ(f, "IRQ_ENABLE read back", rd(f, TSR_IRQ_ENABLE_REG_OFFSET), IRQ_FENCE | IRQ_DONE);
  wr(f, TSR_IRQ_ENABLE_REG_OFFSET, 0u);
  sys_shape_cfg_t shape = {40u, 0u, 1u, 0u, 1u};
  sys_case_t c;
  sys_case_make(g_seed, &shape, GEMM_MEM, &c);
  sys_case_result_t res;
  char why[512];
  if (sys_case_run(&f->env, &c, &res, why, sizeof why) != 0) {
    fail_msg("GEMM after the SLVERR accesses failed (case seed %u): %s", g_seed, why);
  }
}

int main(int argc, char **argv) {
  if (sys_parse_dim_seed("test_sys_errors", argc, argv, &g_dim, &g_seed) != 0) {
    return 2;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(opcode_unknown_stops_with_err_opcode, setup, teardown),
      cmocka_unit_test_setup_teardown(zero_or_oversized_dimension_stops_with_err_dim, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(scratchpad_overrun_stops_with_err_spad_range, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(accumulator_overrun_stops_with_err_acc_range, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(region_past_4gib_stops_with_err_dram_range, setup, teardown),
      cmocka_unit_test_setup_teardown(slverr_on_load_stops_with_err_bus_read, setup, teardown),
      cmocka_unit_test_setup_teardown(slverr_on_store_stops_with_err_bus_write, setup, teardown),
      cmocka_unit_test_setup_teardown(bad_requant_parameters_stop_with_err_param, setup, teardown),
      cmocka_unit_test_setup_teardown(broken_token_rules_stop_with_err_dep_token, setup, teardown),
      cmocka_unit_test_setup_teardown(push_into_full_queue_stops_with_err_cmdq_overflow, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(region_outside_the_dma_window_is_refused_before_any_bus_beat,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(dma_window_lock_holds_until_hardware_reset, setup, teardown),
      cmocka_unit_test_setup_teardown(keep_weights_without_weights_stops_with_err_no_weights,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(soft_reset_aborts_running_commands_and_partial_words,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(unmapped_register_answers_slverr_and_bus_keeps_working,
                                      setup, teardown),
  };
  return cmocka_run_group_tests_name("system errors", tests, NULL, NULL);
}
