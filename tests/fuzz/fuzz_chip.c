/* fuzz_chip.c: seeded fuzzer of the whole chip: random and mutated register writes and command streams. */
#define _POSIX_C_SOURCE 200809L

/*
 * Each iteration builds a program from the seed and runs it on the Verilated
 * chip (build/lib/libtsrsim_d<N>.so, through tests/system/sys_util.c):
 *
 *   f RDB BEAT WRB RESP RAND DPCT DMAX SEED   bus faults of the memory model (tsr_sim_faults_t)
 *   g LO HI                                   guarded program: DMA window LO..HI set and locked
 *                                             first, and the memory model's guard set to it
 *   w OFF VAL                                 one AXI4-Lite register write (any offset)
 *   c W0 .. W7                                the 8 words of a command, pushed to CMDQ_PUSH
 *   s N                                       N clock cycles
 *
 * (all numbers hex). Programs are firmware-like streams (LOAD, MATMUL, STORE,
 * FENCE with valid fields) with mutations (bit flips, extreme values, bad
 * opcodes, huge counts, wrapping addresses, zero and negative strides, token
 * bits, reserved bits), fully random words, and register writes to any
 * offset (CTRL soft reset and counter clear, IRQ registers, CMDQ_PUSH single
 * words, the DMA window, unmapped and misaligned offsets).
 *
 * Invariants checked on every program:
 *   1. the simulator does not crash and every register access answers;
 *   2. the chip stops: STATUS.BUSY clears or STATUS.ERROR rises within a cycle
 *      bound, and ERROR is set exactly when ERR_CODE is not 0;
 *   3. no byte of external memory changes outside the union of the rows of the
 *      STORE commands the program pushed (STOREs the chip must refuse for
 *      their shape, COLS > N or ROWS > accumulator rows, allow nothing), and
 *      none outside the DMA windows the program set;
 *   4. a bus error is never swallowed: if the memory model answered an error
 *      (since the program's last soft reset, after which the fuzzer lets the
 *      bus go quiet), STATUS.ERROR is set; ERR_CODE BUS_READ / BUS_WRITE has the address of
 *      the first burst answered with an error;
 *   5. the AXI4 protocol checker of the memory model counts no violation;
 *   5a. in a guarded program (a locked window aligned to 16 bytes), no AR or
 *      AW burst leaves the window and no byte outside it changes;
 *   6. CTRL.SOFT_RESET brings the chip back to idle (STATUS = 0, ERR_CODE = 0),
 *      and a known-good GEMM through driver and firmware is then bit-exact
 *      (every --gemm-every iterations, and after every bus-error outcome).
 *
 * A failing program is printed and saved (--save DIR) and replayed with
 * --replay FILE; tests/fuzz/corpus/chip/ holds the programs that found bugs.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sys_util.h"
#include "tessera_regs.h"
#include "tsr_sim.h"

#define MAX_ACTIONS 48u
#define MEM_SIZE SYS_MEM_SIZE
#define WAIT_CHUNK 1000u
#define WAIT_BOUND 20000000ull /* cycles a program may run after its last action */

typedef enum { A_WRITE, A_CMD, A_STEP } act_kind_t;
typedef struct act {
  act_kind_t kind;
  uint32_t off, val;
  uint32_t w[TSR_CMD_WORDS];
} act_t;

typedef struct prog {
  bool has_faults;
  tsr_sim_faults_t faults;
  bool has_guard;          /* "g": a locked DMA window guard_lo..guard_hi */
  uint32_t guard_lo, guard_hi;
  unsigned n;
  act_t a[MAX_ACTIONS];
} prog_t;

/* Simulator functions that the HAL does not wrap. */
typedef struct raw_api {
  tsr_sim_t *sim;
  void (*reset)(tsr_sim_t *, unsigned);
  void (*step)(tsr_sim_t *, uint64_t);
  int (*set_faults)(tsr_sim_t *, const tsr_sim_faults_t *);
  void (*fault_log)(const tsr_sim_t *, tsr_sim_fault_log_t *);
  unsigned (*axi_active)(const tsr_sim_t *); /* optional (newer libraries) */
  void (*set_guard)(tsr_sim_t *, uint64_t, uint64_t);
  void (*mem_stats)(const tsr_sim_t *, tsr_sim_mem_stats_t *);
} raw_api_t;

typedef enum { BRK_NONE, BRK_REGION, BRK_SWALLOW, BRK_WEDGE, BRK_GUARD } brk_t;

typedef struct stats {
  uint64_t iters, completed, errors[256], soft_resets, hard_resets, gemms, faulted, guarded, actions, cycles;
} stats_t;

static unsigned g_dim = 8;
static brk_t g_break = BRK_NONE;

/* ---- program generation ---------------------------------------------------------- */

static uint32_t rnd(sys_rng_t *r, uint32_t lo, uint32_t hi) {
  return (uint32_t)sys_rng_range(r, lo, hi);
}

static uint32_t extreme(sys_rng_t *r) {
  static const uint32_t k[] = {0u, 1u, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0xFFFFu,
                               0x10000u, 0xFFFF0000u, 0xFFFFFF00u, 0x00FFFFFFu, MEM_SIZE, MEM_SIZE - 1u};
  return k[rnd(r, 0, (uint32_t)(sizeof k / sizeof k[0]) - 1u)];
}

static void cmd_load(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]) {
  memset(w, 0, TSR_CMD_WORDS * sizeof w[0]);
  const bool acc = sys_rng_pct(r, 25u);
  const uint32_t rows = rnd(r, 1, 40), cols = rnd(r, 1, acc ? 4u * g_dim : 3u * g_dim);
  w[0] = TSR_OP_LOAD | TSR_CMD_PUT(TSR_CMD_LOAD_W0_DEST, acc ? 1u : 0u);
  w[1] = rnd(r, 0, MEM_SIZE / 2u);
  w[2] = sys_rng_pct(r, 70u) ? cols + rnd(r, 0, 9) : rnd(r, 0, 4096);
  w[3] = TSR_CMD_PUT(TSR_CMD_LOAD_W3_ROWS, rows) | TSR_CMD_PUT(TSR_CMD_LOAD_W3_COLS, cols);
  w[4] = rnd(r, 0, 200);
}

static void cmd_matmul(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]) {
  memset(w, 0, TSR_CMD_WORDS * sizeof w[0]);
  w[0] = TSR_OP_MATMUL | TSR_CMD_PUT(TSR_CMD_MATMUL_W0_ACCUMULATE, sys_rng_pct(r, 30u) ? 1u : 0u) |
         TSR_CMD_PUT(TSR_CMD_MATMUL_W0_KEEP_WEIGHTS, sys_rng_pct(r, 15u) ? 1u : 0u);
  w[1] = rnd(r, 0, 200);
  w[2] = rnd(r, 0, 200);
  w[3] = rnd(r, 0, 100);
  w[4] = TSR_CMD_PUT(TSR_CMD_MATMUL_W4_M, rnd(r, 1, 40)) | TSR_CMD_PUT(TSR_CMD_MATMUL_W4_K, rnd(r, 1, g_dim));
  w[5] = rnd(r, 1, g_dim);
}

static void cmd_store(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]) {
  memset(w, 0, TSR_CMD_WORDS * sizeof w[0]);
  const bool requant = sys_rng_pct(r, 60u);
  const uint32_t cols = rnd(r, 1, g_dim);
  w[0] = TSR_OP_STORE | TSR_CMD_PUT(TSR_CMD_STORE_W0_BIAS, sys_rng_pct(r, 40u) ? 1u : 0u) |
         TSR_CMD_PUT(TSR_CMD_STORE_W0_REQUANT, requant ? 1u : 0u) |
         TSR_CMD_PUT(TSR_CMD_STORE_W0_PER_CHANNEL, requant && sys_rng_pct(r, 30u) ? 1u : 0u);
  w[1] = MEM_SIZE / 2u + rnd(r, 0, MEM_SIZE / 4u);
  w[2] = sys_rng_pct(r, 70u) ? cols * (requant ? 1u : 4u) + rnd(r, 0, 7) : rnd(r, 0, 512);
  w[3] = TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, rnd(r, 1, 40)) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, cols);
  w[4] = rnd(r, 0, 100);
  w[5] = rnd(r, 0, 100);
  w[6] = rnd(r, 0x40000000u, 0x7FFFFFFFu);
  const int32_t shift = (int32_t)rnd(r, 0, 61) - 31, zp = (int32_t)rnd(r, 0, 255) - 128;
  const int32_t lo = (int32_t)rnd(r, 0, 127) - 128, hi = (int32_t)rnd(r, 0, 127);
  w[7] = TSR_CMD_PUT(TSR_CMD_STORE_W7_SHIFT, (uint32_t)shift) | TSR_CMD_PUT(TSR_CMD_STORE_W7_OUT_ZP, (uint32_t)zp) |
         TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MIN, (uint32_t)lo) | TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MAX, (uint32_t)hi);
}

/* An SFU command (docs/sfu.md) with small tensors; the table, params and beta
 * are whatever the accumulator and scratchpad hold, so ERR_PARAM is common. */
static void cmd_sfu(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]) {
  memset(w, 0, TSR_CMD_WORDS * sizeof w[0]);
  w[0] = TSR_OP_SFU | TSR_CMD_PUT(TSR_CMD_SFU_W0_FUNC, rnd(r, 0, 6));
  w[1] = rnd(r, 0, 200);
  w[2] = rnd(r, 0, 200);
  w[3] = TSR_CMD_PUT(TSR_CMD_SFU_W3_ROWS, rnd(r, 1, 6)) | TSR_CMD_PUT(TSR_CMD_SFU_W3_LEN, rnd(r, 1, 40));
  w[4] = rnd(r, 0, 200);
  w[5] = rnd(r, 0, 100);
  w[6] = rnd(r, 0, 100);
}

static void mutate(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]) {
  const unsigned n = rnd(r, 1, 3);
  for (unsigned i = 0; i < n; i++) {
    const unsigned k = rnd(r, 0, 7);
    switch (rnd(r, 0, 9)) {
      case 0: w[k] ^= 1u << rnd(r, 0, 31); break;
      case 1: w[k] = extreme(r); break;
      case 2: w[k] = (uint32_t)sys_rng_next(r); break;
      case 3: w[0] = (w[0] & ~(uint32_t)TSR_CMD_PUT(TSR_CMD_W0_OPCODE, TSR_CMD_W0_OPCODE_MASK)) |
                      TSR_CMD_PUT(TSR_CMD_W0_OPCODE, rnd(r, 0, 255)); break;  /* opcode */
      case 4: w[0] |= (rnd(r, 1, 15) << TSR_CMD_W0_POP_PREV_BIT) & TSR_DEP_MASK; break; /* token bits */
      case 5: w[3] = sys_rng_pct(r, 50u) ? 0xFFFFFFFFu : extreme(r); break;   /* huge counts */
      case 6: w[1] = 0xFFFFFFFFu - rnd(r, 0, 300); break;                     /* wrapping address */
      case 7: w[2] = sys_rng_pct(r, 50u) ? 0u : 0xFFFFFFFFu - rnd(r, 0, 64); break; /* zero / negative stride */
      case 8: w[0] |= TSR_CMD_PUT(TSR_CMD_W0_RESERVED, rnd(r, 1, 15)); break; /* reserved bits */
      default: w[k] += (uint32_t)rnd(r, 0, 16) - 8u; break;                   /* off by a few */
    }
  }
}

static void reg_write(sys_rng_t *r, act_t *a) {
  static const uint32_t offs[] = {TSR_CTRL_REG_OFFSET,       TSR_IRQ_STATUS_REG_OFFSET,
                                  TSR_IRQ_ENABLE_REG_OFFSET, TSR_CMDQ_PUSH_REG_OFFSET,
                                  TSR_STATUS_REG_OFFSET,     TSR_ID_REG_OFFSET,
                                  0x070u,                    0x074u,
                                  0x078u,                    0x03Cu};
  a->kind = A_WRITE;
  const unsigned p = rnd(r, 0, 99);
  if (p < 60) {
    a->off = offs[rnd(r, 0, (uint32_t)(sizeof offs / sizeof offs[0]) - 1u)];
  } else if (p < 85) {
    a->off = rnd(r, 0, 0x3FF) * 4u;
  } else {
    a->off = rnd(r, 0, 0xFFF); /* often misaligned */
  }
  a->val = sys_rng_pct(r, 50u) ? extreme(r) : (uint32_t)sys_rng_next(r);
  if (a->off == TSR_CTRL_REG_OFFSET && sys_rng_pct(r, 50u)) {
    a->val = rnd(r, 1, 3); /* soft reset and/or counter clear */
  }
  if (a->off == 0x078u && sys_rng_pct(r, 80u)) {
    a->val = 0; /* keep the window unlocked most of the time */
  }
}

static void gen(sys_rng_t *r, prog_t *p) {
  memset(p, 0, sizeof *p);
  if (sys_rng_pct(r, 30u)) {
    p->has_faults = true;
    tsr_sim_faults_t *f = &p->faults;
    f->rd_burst = sys_rng_pct(r, 70u) ? rnd(r, 1, 40) : 0u;
    f->rd_beat = rnd(r, 0, 16);
    f->wr_burst = sys_rng_pct(r, 50u) ? rnd(r, 1, 10) : 0u;
    f->resp = rnd(r, 2, 3);
    f->rand_pct = sys_rng_pct(r, 30u) ? rnd(r, 1, 5) : 0u;
    f->delay_pct = sys_rng_pct(r, 40u) ? rnd(r, 1, 5) : 0u;
    f->delay_max = rnd(r, 1, 2000);
    f->seed = (uint32_t)sys_rng_next(r);
  }
  if (sys_rng_pct(r, 25u)) {
    /* A window of 16-byte words somewhere in the first half, where most commands point. */
    p->has_guard = true;
    p->guard_lo = rnd(r, 0, MEM_SIZE / 32u) * 16u;
    p->guard_hi = p->guard_lo + rnd(r, 1, MEM_SIZE / 64u) * 16u - 1u;
  }
  const unsigned style = rnd(r, 0, 99);
  p->n = rnd(r, 1, 24);
  for (unsigned i = 0; i < p->n; i++) {
    act_t *a = &p->a[i];
    const unsigned q = rnd(r, 0, 99);
    if (q < (style < 20 ? 50u : 8u)) {
      reg_write(r, a);
    } else if (q < 12) {
      a->kind = A_STEP;
      a->val = rnd(r, 1, 3000);
    } else {
      a->kind = A_CMD;
      if (style < 70) {
        const unsigned op = rnd(r, 0, 10);
        if (op == 10) {
          cmd_sfu(r, a->w);
        } else if (op < 3) {
          cmd_load(r, a->w);
        } else if (op < 6) {
          cmd_matmul(r, a->w);
        } else if (op < 9) {
          cmd_store(r, a->w);
        } else {
          memset(a->w, 0, sizeof a->w);
          a->w[0] = TSR_OP_FENCE | TSR_CMD_PUT(TSR_CMD_FENCE_W0_IRQ, sys_rng_pct(r, 50u) ? 1u : 0u);
        }
        if (p->has_guard && op != 9 && op != 10 && (op < 3 || op >= 6) && sys_rng_pct(r, 70u)) {
          /* Aim LOADs and STOREs at the guard window: inside, across either end, just outside. */
          const uint32_t span = p->guard_hi - p->guard_lo + 1u;
          a->w[1] = p->guard_lo - 64u + rnd(r, 0, span + 128u);
        }
        if (sys_rng_pct(r, style < 35 ? 10u : 40u)) {
          mutate(r, a->w);
        }
      } else {
        for (unsigned k = 0; k < TSR_CMD_WORDS; k++) {
          a->w[k] = sys_rng_pct(r, 30u) ? extreme(r) : (uint32_t)sys_rng_next(r);
        }
        a->w[0] = (a->w[0] & ~0xFFu) | (sys_rng_pct(r, 80u) ? rnd(r, 0, 5) : rnd(r, 0, 255));
      }
    }
  }
}

/* ---- text form -------------------------------------------------------------------- */

static void prog_print(FILE *f, const prog_t *p) {
  if (p->has_faults) {
    const tsr_sim_faults_t *x = &p->faults;
    fprintf(f, "f %x %x %x %x %x %x %x %x\n", x->rd_burst, x->rd_beat, x->wr_burst, x->resp, x->rand_pct,
            x->delay_pct, x->delay_max, x->seed);
  }
  if (p->has_guard) {
    fprintf(f, "g %x %x\n", p->guard_lo, p->guard_hi);
  }
  for (unsigned i = 0; i < p->n; i++) {
    const act_t *a = &p->a[i];
    if (a->kind == A_WRITE) {
      fprintf(f, "w %x %x\n", a->off, a->val);
    } else if (a->kind == A_STEP) {
      fprintf(f, "s %x\n", a->val);
    } else {
      fprintf(f, "c");
      for (unsigned k = 0; k < TSR_CMD_WORDS; k++) {
        fprintf(f, " %x", a->w[k]);
      }
      fprintf(f, "\n");
    }
  }
}

static int prog_load(const char *path, prog_t *p) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "fuzz_chip: cannot open %s\n", path);
    return -1;
  }
  memset(p, 0, sizeof *p);
  char line[512];
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
    if (line[0] == '#' || line[0] == '\n') {
      continue;
    }
    if (line[0] == 'f') {
      tsr_sim_faults_t *x = &p->faults;
      p->has_faults = sscanf(line + 1, "%x %x %x %x %x %x %x %x", &x->rd_burst, &x->rd_beat, &x->wr_burst,
                             &x->resp, &x->rand_pct, &x->delay_pct, &x->delay_max, &x->seed) == 8;
      rc = p->has_faults ? 0 : -1;
      continue;
    }
    if (line[0] == 'g') {
      p->has_guard = sscanf(line + 1, "%x %x", &p->guard_lo, &p->guard_hi) == 2 &&
                     p->guard_lo % 16u == 0u && p->guard_hi % 16u == 15u && p->guard_lo < p->guard_hi;
      rc = p->has_guard ? 0 : -1;
      continue;
    }
    if (p->n == MAX_ACTIONS) {
      rc = -1;
      break;
    }
    act_t *a = &p->a[p->n++];
    if (line[0] == 'w') {
      a->kind = A_WRITE;
      rc = sscanf(line + 1, "%x %x", &a->off, &a->val) == 2 ? 0 : -1;
    } else if (line[0] == 's') {
      a->kind = A_STEP;
      rc = sscanf(line + 1, "%x", &a->val) == 1 ? 0 : -1;
    } else if (line[0] == 'c') {
      a->kind = A_CMD;
      rc = sscanf(line + 1, "%x %x %x %x %x %x %x %x", &a->w[0], &a->w[1], &a->w[2], &a->w[3], &a->w[4],
                  &a->w[5], &a->w[6], &a->w[7]) == 8
               ? 0
               : -1;
    } else {
      rc = -1;
    }
  }
  fclose(f);
  if (rc != 0) {
    fprintf(stderr, "fuzz_chip: %s: bad line: %s", path, line);
  }
  return rc;
}

/* ---- running one program ------------------------------------------------------------- */

/* What a program may write: a bitmap of MEM_SIZE bytes. */
typedef struct allow {
  uint8_t *bits;
  uint32_t win_lo[MAX_ACTIONS + 1], win_hi[MAX_ACTIONS + 1];
  unsigned nwin;
} allow_t;

static void allow_row(allow_t *al, uint64_t start, uint64_t len) {
  for (uint64_t a = start; a < start + len && a < MEM_SIZE; a++) {
    al->bits[a >> 3] |= (uint8_t)(1u << (a & 7u));
  }
}

static bool allowed(const allow_t *al, uint64_t a) {
  if ((al->bits[a >> 3] & (1u << (a & 7u))) == 0u) {
    return false;
  }
  for (unsigned i = 0; i < al->nwin; i++) {
    if (a >= al->win_lo[i] && a <= al->win_hi[i]) {
      return true;
    }
  }
  return false;
}

/* A command the chip assembled: STOREs add their rows (the only bytes they may write). */
static void allow_cmd(allow_t *al, const uint32_t w[TSR_CMD_WORDS], const tsr_dev_info_t *info) {
  if (TSR_CMD_GET(w[0], TSR_CMD_W0_OPCODE) != TSR_OP_STORE) {
    return;
  }
  /* A STORE with the SPAD flag reads scratchpad rows and writes bytes. */
  const bool spad = TSR_CMD_GET(w[0], TSR_CMD_STORE_W0_SPAD) != 0u;
  const uint32_t rows = TSR_CMD_GET(w[3], TSR_CMD_STORE_W3_ROWS), cols = TSR_CMD_GET(w[3], TSR_CMD_STORE_W3_COLS);
  if (cols == 0u || cols > g_dim || rows == 0u || rows > (spad ? info->spad_rows : info->acc_rows)) {
    return; /* the chip must refuse it */
  }
  const uint64_t row_bytes = (uint64_t)cols * ((TSR_CMD_GET(w[0], TSR_CMD_STORE_W0_REQUANT) != 0u || spad) ? 1u : 4u);
  /* --break region forgets each STORE's last row: its bytes must then show up as stray writes. */
  const uint64_t marked = (g_break == BRK_REGION) ? rows - 1u : rows;
  for (uint64_t r = 0; r < marked; r++) {
    const uint64_t start = (uint64_t)w[1] + r * (uint64_t)w[2];
    if (start >= MEM_SIZE && w[2] != 0u) {
      break;
    }
    allow_row(al, start, row_bytes);
  }
}

static int fail(const char *what, uint64_t iter, uint32_t seed, const prog_t *p, const char *save) {
  fprintf(stderr, "fuzz_chip: FAIL (iteration %" PRIu64 ", seed %u): %s\n", iter, seed, what);
  fprintf(stderr, "fuzz_chip: program (replay with --replay FILE):\n");
  prog_print(stderr, p);
  if (save != NULL) {
    char path[512];
    snprintf(path, sizeof path, "%s/fail-s%u-i%" PRIu64 ".prog", save, seed, iter);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
      fprintf(f, "# %s\n", what);
      prog_print(f, p);
      fclose(f);
      fprintf(stderr, "fuzz_chip: saved %s\n", path);
    }
  }
  return -1;
}

#define FAIL(...)                                          \
  do {                                                     \
    snprintf(msg, sizeof msg, __VA_ARGS__);                \
    rc = fail(msg, iter, seed, p, save);                   \
    goto out;                                              \
  } while (0)

static int run_prog(sys_env_t *e, raw_api_t *raw, const prog_t *p, uint64_t iter, uint32_t seed,
                    bool do_gemm, const char *save, stats_t *st) {
  char msg[768];
  int rc = 0;
  allow_t al;
  memset(&al, 0, sizeof al);
  al.bits = calloc(MEM_SIZE / 8u, 1);
  uint8_t *before = NULL, *after = NULL;
  bool locked = false;
  uint32_t status = 0, code = 0, err_addr = 0;
  if (al.bits == NULL) {
    FAIL("out of memory");
  }
  /* Start clean: window open and unlocked (hard reset if a lock survived). */
  if (sys_soft_reset(e) != TSR_OK) {
    FAIL("soft reset before the program did not answer");
  }
  uint32_t lockv = 0;
  if (sys_rd(e, 0x078u, &lockv) == TSR_OK && (lockv & 1u) != 0u) {
    raw->reset(raw->sim, 8);
    st->hard_resets++;
  }
  sys_wr(e, 0x070u, 0u);
  sys_wr(e, 0x074u, 0xFFFFFFFFu);
  al.win_lo[0] = 0u;
  al.win_hi[0] = 0xFFFFFFFFu;
  al.nwin = 1;
  uint32_t win_lo = 0u, win_hi = 0xFFFFFFFFu;
  tsr_sim_mem_stats_t ms0;
  raw->set_guard(raw->sim, p->has_guard ? p->guard_lo : 0u, p->has_guard ? p->guard_hi : UINT64_MAX);
  if (p->has_guard) {
    /* The window the program cannot change: every write to it now answers SLVERR. */
    if (sys_wr(e, 0x070u, p->guard_lo) != TSR_OK || sys_wr(e, 0x074u, p->guard_hi) != TSR_OK ||
        sys_wr(e, 0x078u, 1u) != TSR_OK) {
      FAIL("cannot set and lock the guard window");
    }
    locked = true;
    st->guarded++;
  }
  raw->mem_stats(raw->sim, &ms0);
  if (raw->set_faults(raw->sim, p->has_faults ? &p->faults : NULL) != 0) {
    FAIL("bad fault settings");
  }
  st->faulted += p->has_faults;
  before = sys_snapshot(e);
  if (before == NULL) {
    FAIL("cannot snapshot memory");
  }
  const uint64_t pe0 = sys_protocol_errors(e);

  /* The chip's command assembly, modelled: 8 CMDQ_PUSH words make a command;
   * a soft reset drops a partial one. */
  uint32_t part[TSR_CMD_WORDS];
  unsigned nw = 0;
  for (unsigned i = 0; i < p->n; i++) {
    const act_t *a = &p->a[i];
    st->actions++;
    if (a->kind == A_STEP) {
      raw->step(raw->sim, a->val);
      continue;
    }
    const unsigned nwords = a->kind == A_CMD ? TSR_CMD_WORDS : 1u;
    for (unsigned k = 0; k < nwords; k++) {
      const uint32_t off = a->kind == A_CMD ? TSR_CMDQ_PUSH_REG_OFFSET : a->off;
      const uint32_t val = a->kind == A_CMD ? a->w[k] : a->val;
      tsr_status_t s = sys_wr(e, off, val);
      if (s == TSR_TIMEOUT) {
        FAIL("register write 0x%03x = 0x%08x: the bus did not answer", off, val);
      }
      if (s != TSR_OK) {
        continue; /* SLVERR: no side effect */
      }
      if (off == TSR_CMDQ_PUSH_REG_OFFSET) {
        part[nw++] = val;
        if (nw == TSR_CMD_WORDS) {
          allow_cmd(&al, part, &e->dev.info);
          nw = 0;
        }
      } else if (off == TSR_CTRL_REG_OFFSET && (val & 1u) != 0u) {
        nw = 0;
        st->soft_resets++;
        /* A soft reset may legitimately forget the bus errors of bursts in
         * flight: let the chip go idle and the bus quiet, then start the
         * error log (and the fault numbering) afresh. */
        for (unsigned w8 = 0; w8 < 2000u; w8++) {
          uint32_t s2 = 0;
          if (sys_rd(e, TSR_STATUS_REG_OFFSET, &s2) != TSR_OK) {
            FAIL("STATUS read after a soft reset failed");
          }
          if ((s2 & (1u << TSR_STATUS_BUSY_BIT)) == 0u && (raw->axi_active == NULL || raw->axi_active(raw->sim) == 0u)) {
            break;
          }
          raw->step(raw->sim, 100);
        }
        raw->set_faults(raw->sim, p->has_faults ? &p->faults : NULL);
      } else if (off == 0x070u || off == 0x074u) {
        *(off == 0x070u ? &win_lo : &win_hi) = val;
        if (al.nwin <= MAX_ACTIONS) {
          al.win_lo[al.nwin] = win_lo;
          al.win_hi[al.nwin] = win_hi;
          al.nwin++;
        }
      } else if (off == 0x078u && (val & 1u) != 0u) {
        locked = true;
      }
    }
  }

  /* Wait until the chip stops. */
  uint64_t waited = 0;
  for (;;) {
    tsr_status_t s = sys_rd(e, TSR_STATUS_REG_OFFSET, &status);
    if (s != TSR_OK) {
      FAIL("STATUS read failed (%s)", tsr_status_str(s));
    }
    if ((status & (1u << TSR_STATUS_ERROR_BIT)) != 0u || (status & (1u << TSR_STATUS_BUSY_BIT)) == 0u) {
      break;
    }
    if (g_break == BRK_WEDGE || waited >= WAIT_BOUND) {
      FAIL("wedged: STATUS = 0x%x after %" PRIu64 " cycles", status, waited);
    }
    raw->step(raw->sim, WAIT_CHUNK);
    waited += WAIT_CHUNK;
  }
  if (sys_rd(e, TSR_ERR_CODE_REG_OFFSET, &code) != TSR_OK || sys_rd(e, TSR_ERR_ADDR_REG_OFFSET, &err_addr) != TSR_OK) {
    FAIL("ERR_CODE / ERR_ADDR read failed");
  }
  code &= 0xFFu;
  const bool err = (status & (1u << TSR_STATUS_ERROR_BIT)) != 0u;
  if (err != (code != 0u)) {
    FAIL("STATUS.ERROR = %d but ERR_CODE = %u", err, code);
  }
  if (err) {
    st->errors[code]++;
  } else {
    st->completed++;
  }
  /* Let bursts issued before the stop drain, then compare memory. */
  raw->step(raw->sim, 3000);
  tsr_sim_fault_log_t log;
  raw->fault_log(raw->sim, &log);
  if (g_break == BRK_SWALLOW) {
    err_addr ^= 1u;
  }
  if ((log.rd_err_bursts != 0u || log.wr_err_bursts != 0u) && !err) {
    FAIL("a bus error was swallowed: %" PRIu64 " read / %" PRIu64 " write bursts answered an error, STATUS = 0x%x",
         log.rd_err_bursts, log.wr_err_bursts, status);
  }
  if (code == TSR_ERR_BUS_READ && (log.rd_err_bursts == 0u || err_addr != log.rd_first_addr)) {
    FAIL("ERR_BUS_READ with ERR_ADDR 0x%08x, but the first read burst answered an error was 0x%08x (%" PRIu64 " bursts)",
         err_addr, log.rd_first_addr, log.rd_err_bursts);
  }
  if (code == TSR_ERR_BUS_WRITE && (log.wr_err_bursts == 0u || err_addr != log.wr_first_addr)) {
    FAIL("ERR_BUS_WRITE with ERR_ADDR 0x%08x, but the first write burst answered an error was 0x%08x (%" PRIu64 " bursts)",
         err_addr, log.wr_first_addr, log.wr_err_bursts);
  }
  after = sys_snapshot(e);
  if (after == NULL) {
    FAIL("cannot snapshot memory");
  }
  for (uint64_t a = 0; a < MEM_SIZE; a++) {
    if (before[a] != after[a] && !allowed(&al, a)) {
      FAIL("byte 0x%06" PRIx64 " changed (0x%02x -> 0x%02x) outside every STORE region / window the program allowed",
           a, before[a], after[a]);
    }
  }
  if (p->has_guard) {
    tsr_sim_mem_stats_t ms1;
    raw->mem_stats(raw->sim, &ms1);
    if (ms1.rd_outside + ms1.wr_outside != ms0.rd_outside + ms0.wr_outside) {
      FAIL("%" PRIu64 " read and %" PRIu64 " write bursts left the locked window 0x%x..0x%x (first at 0x%08x)",
           ms1.rd_outside - ms0.rd_outside, ms1.wr_outside - ms0.wr_outside, p->guard_lo, p->guard_hi,
           ms1.outside_first);
    }
    /* --break guard allows no byte at all: every STORE that ran inside the window shows up. */
    const uint64_t hi = g_break == BRK_GUARD ? 0u : p->guard_hi;
    for (uint64_t a = 0; a < MEM_SIZE; a++) {
      if (before[a] != after[a] && (a < p->guard_lo || a > hi)) {
        FAIL("byte 0x%06" PRIx64 " changed (0x%02x -> 0x%02x) outside the locked window 0x%x..0x%x", a,
             before[a], after[a], p->guard_lo, p->guard_hi);
      }
    }
  }
  if (sys_protocol_errors(e) != pe0) {
    FAIL("the AXI protocol checker counted %" PRIu64 " violations", sys_protocol_errors(e) - pe0);
  }

  /* Recovery: soft reset must bring the chip back to idle. */
  raw->set_faults(raw->sim, NULL);
  if (sys_wr(e, TSR_CTRL_REG_OFFSET, 1u << TSR_CTRL_SOFT_RESET_BIT) != TSR_OK) {
    FAIL("CTRL.SOFT_RESET write failed");
  }
  st->soft_resets++;
  uint64_t rw = 0;
  for (;;) {
    if (sys_rd(e, TSR_STATUS_REG_OFFSET, &status) != TSR_OK) {
      FAIL("STATUS read after soft reset failed");
    }
    if ((status & 7u) == 0u) {
      break;
    }
    if (rw >= 200000u) {
      FAIL("soft reset did not bring the chip to idle: STATUS = 0x%x", status);
    }
    raw->step(raw->sim, 100);
    rw += 100;
  }
  if (sys_rd(e, TSR_ERR_CODE_REG_OFFSET, &code) != TSR_OK || code != 0u) {
    FAIL("ERR_CODE = %u after soft reset", code);
  }
  if (locked) {
    raw->reset(raw->sim, 8); /* only rst_ni clears the lock; the GEMM needs the whole window */
    st->hard_resets++;
  }
  /* A soft reset keeps the window: open it again for the GEMM. */
  if (sys_wr(e, 0x070u, 0u) != TSR_OK || sys_wr(e, 0x074u, 0xFFFFFFFFu) != TSR_OK) {
    FAIL("cannot reopen the DMA window after recovery");
  }
  if (do_gemm || code == TSR_ERR_BUS_READ || code == TSR_ERR_BUS_WRITE) {
    sys_shape_cfg_t shape = {.max_dim = 3u * g_dim, .small_pct = 30u, .small_max = 4u, .large_pct = 0u,
                             .large_min = 1u};
    sys_case_t c;
    sys_case_make(seed ^ (uint32_t)(iter * 2654435761u), &shape, MEM_SIZE, &c);
    sys_case_result_t res;
    char cmsg[400];
    if (sys_case_run(e, &c, &res, cmsg, sizeof cmsg) != 0) {
      FAIL("known-good GEMM after recovery failed: %s", cmsg);
    }
    st->gemms++;
  }
out:
  free(al.bits);
  free(before);
  free(after);
  return rc;
}

/* ---- main ------------------------------------------------------------------------------ */

static int usage(const char *why) {
  fprintf(stderr,
          "fuzz_chip: %s\nusage: fuzz_chip --dim N [--seed S] [--seconds T | --iters I] [--gemm-every K]\n"
          "                 [--save DIR] [--replay FILE...] [--break region|swallow|wedge|guard] [--verbose]\n",
          why);
  return 2;
}

int main(int argc, char **argv) {
  uint32_t seed = 0, seconds = 0, iters = 0, gemm_every = 8;
  bool have_seed = false, verbose = false;
  const char *save = NULL;
  const char *replay[256];
  unsigned nreplay = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint32_t *slot = NULL;
    if (strcmp(a, "--dim") == 0) {
      slot = &g_dim;
    } else if (strcmp(a, "--seed") == 0) {
      slot = &seed;
      have_seed = true;
    } else if (strcmp(a, "--seconds") == 0) {
      slot = &seconds;
    } else if (strcmp(a, "--iters") == 0) {
      slot = &iters;
    } else if (strcmp(a, "--gemm-every") == 0) {
      slot = &gemm_every;
    } else if (strcmp(a, "--verbose") == 0) {
      verbose = true;
      continue;
    } else if (strcmp(a, "--save") == 0 && v != NULL) {
      save = v;
      i++;
      continue;
    } else if (strcmp(a, "--replay") == 0 && v != NULL) {
      while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0 && nreplay < 256) {
        replay[nreplay++] = argv[++i];
      }
      continue;
    } else if (strcmp(a, "--break") == 0 && v != NULL) {
      g_break = strcmp(v, "region") == 0 ? BRK_REGION
                : strcmp(v, "swallow") == 0 ? BRK_SWALLOW
                : strcmp(v, "wedge") == 0   ? BRK_WEDGE
                : strcmp(v, "guard") == 0   ? BRK_GUARD
                                            : BRK_NONE;
      if (g_break == BRK_NONE) {
        return usage("--break takes region, swallow, wedge or guard");
      }
      i++;
      continue;
    } else {
      return usage("bad argument");
    }
    if (v == NULL || sys_parse_u32(v, slot) != 0) {
      return usage("option needs an unsigned integer");
    }
    i++;
  }
  if (!have_seed) {
    seed = sys_seed_from_env_or_clock();
  }
  if (seconds == 0 && iters == 0 && nreplay == 0) {
    seconds = 60;
  }
  tsr_sim_cfg_t cfg;
  sys_sim_cfg_default(&cfg);
  cfg.mem_size = MEM_SIZE;
  cfg.watchdog_cycles = 50000000ull;
  sys_env_t e;
  char err[512];
  if (sys_open(&e, g_dim, &cfg, err, sizeof err) != TSR_OK) {
    fprintf(stderr, "fuzz_chip: %s\n", err);
    return 1;
  }
  raw_api_t raw;
  memset(&raw, 0, sizeof raw);
  void *lib = NULL;
  if (tsr_hal_sim_raw(&e.hal, &raw.sim, &lib) != TSR_OK) {
    fprintf(stderr, "fuzz_chip: no raw simulator access\n");
    return 1;
  }
  *(void **)&raw.reset = dlsym(lib, "tsr_sim_reset");
  *(void **)&raw.step = dlsym(lib, "tsr_sim_step");
  *(void **)&raw.set_faults = dlsym(lib, "tsr_sim_set_faults");
  *(void **)&raw.fault_log = dlsym(lib, "tsr_sim_fault_log");
  *(void **)&raw.axi_active = dlsym(lib, "tsr_sim_axi_active");
  *(void **)&raw.set_guard = dlsym(lib, "tsr_sim_set_guard");
  *(void **)&raw.mem_stats = dlsym(lib, "tsr_sim_mem_stats");
  if (raw.reset == NULL || raw.step == NULL || raw.set_faults == NULL || raw.fault_log == NULL ||
      raw.set_guard == NULL || raw.mem_stats == NULL) {
    fprintf(stderr, "fuzz_chip: the simulator library lacks tsr_sim_set_faults & co: run 'make sim DIM=%u'\n", g_dim);
    return 1;
  }
  stats_t st;
  memset(&st, 0, sizeof st);
  int rc = 0;
  const time_t t0 = time(NULL);
  if (nreplay != 0) {
    printf("fuzz_chip: dim %u: replaying %u program(s)\n", g_dim, nreplay);
    for (unsigned i = 0; i < nreplay && rc == 0; i++) {
      prog_t p;
      if (prog_load(replay[i], &p) != 0) {
        rc = -1;
        break;
      }
      rc = run_prog(&e, &raw, &p, i, seed, true, NULL, &st);
      st.iters++;
      if (rc != 0) {
        fprintf(stderr, "fuzz_chip: corpus program %s failed\n", replay[i]);
      }
    }
  } else {
    printf("fuzz_chip: dim %u, seed %u (replay with --seed %u), %s %u\n", g_dim, seed, seed,
           seconds ? "seconds" : "iterations", seconds ? seconds : iters);
    fflush(stdout);
    sys_rng_t r;
    sys_rng_seed(&r, seed, 7u);
    for (uint64_t it = 0;; it++) {
      if ((iters != 0 && it >= iters) || (seconds != 0 && (uint64_t)(time(NULL) - t0) >= seconds)) {
        break;
      }
      prog_t p;
      gen(&r, &p);
      if (verbose) {
        printf("-- iteration %" PRIu64 "\n", it);
        prog_print(stdout, &p);
      }
      rc = run_prog(&e, &raw, &p, it, seed, gemm_every != 0 && it % gemm_every == 0, save, &st);
      st.iters++;
      if (rc != 0) {
        break;
      }
    }
  }
  printf("fuzz_chip: %" PRIu64 " programs, %" PRIu64 " actions in %lld s: %" PRIu64 " completed", st.iters,
         st.actions, (long long)(time(NULL) - t0), st.completed);
  static const char *k_names[] = {"NONE", "OPCODE", "DIM", "SPAD_RANGE", "ACC_RANGE", "DRAM_RANGE", "BUS_READ",
                                  "BUS_WRITE", "PARAM", "DEP_TOKEN", "CMDQ_OVERFLOW", "NO_WEIGHTS", "DMA_WINDOW",
                                  "NO_UNIT"};
  for (unsigned c = 1; c < 256; c++) {
    if (st.errors[c] != 0u) {
      printf(", %s %" PRIu64, c < sizeof k_names / sizeof k_names[0] ? k_names[c] : "?", st.errors[c]);
    }
  }
  printf("; %" PRIu64 " with bus faults, %" PRIu64 " in a locked guard window, %" PRIu64 " soft resets, %" PRIu64
         " hard resets, %" PRIu64 " recovery GEMMs bit-exact\n",
         st.faulted, st.guarded, st.soft_resets, st.hard_resets, st.gemms);
  printf("fuzz_chip: %s\n", rc == 0 ? "PASSED" : "FAILED");
  sys_close(&e);
  return rc == 0 ? 0 : 1;
}
