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
#include "tsr_fw.h"
#include "tsr_golden.h"
#include "tsr_quant.h"

/*
 * The fake chip below implements docs/commands.md in plain C behind the
 * register map: a command queue, the LOAD/MATMUL/STORE/FENCE/NOP semantics on
 * scratchpad, accumulator and external-memory arrays, the checks that raise
 * ERR_*, the dependency-token counters and the performance counters. The
 * firmware talks to it through an ordinary tsr_hal_t, exactly as it will talk
 * to the RTL.
 *
 * Commands are queued and executed when software next looks at STATUS (or
 * waits for the interrupt), either
 *   - serially, in program order, stopping with ERR_DEP_TOKEN on a pop of an
 *     empty counter (what every implementation must check), or
 *   - as an overlapping engine would: three in-order stages (load, compute,
 *     store) and a scheduler that, at each step, runs the head command of one
 *     stage whose pops can be satisfied. The policy decides which stage goes
 *     first (load-first lets loads run as far ahead as the tokens allow, and
 *     so on). A missing token then shows up as a wrong result, and a token
 *     cycle as a deadlock.
 */

/* ---- The fake chip ------------------------------------------------------------------------ */

typedef enum policy {
  POL_SERIAL = 0,
  POL_LOAD_FIRST,
  POL_COMPUTE_FIRST,
  POL_STORE_FIRST,
  POL_RANDOM,
  POL_COUNT
} policy_t;

static const char *const k_policy_name[POL_COUNT] = {"serial", "load-first", "compute-first",
                                                     "store-first", "random"};

enum { TOK_L2C = 0, TOK_C2L = 1, TOK_C2S = 2, TOK_S2C = 3 };

typedef struct chip {
  uint32_t dim, spad_rows, acc_rows, axi_bytes;
  uint8_t *spad;  /* spad_rows x dim */
  int32_t *acc;   /* acc_rows x dim */
  uint8_t *dram;
  uint32_t dram_size;
  bool weights_loaded;
  /* queue */
  uint32_t word[8];
  uint32_t nwords;
  tsr_cmd_t *prog;
  size_t nprog, cap, next; /* commands [next, nprog) not yet executed */
  /* state */
  uint32_t err_code, err_idx, err_addr;
  uint32_t tokens[4];
  uint32_t max_token;
  bool deadlock;
  uint32_t irq_status, irq_enable;
  policy_t policy;
  uint32_t rng;
  /* what the run did */
  uint64_t macs, cmds, rd_bytes, wr_bytes;
  uint64_t n_op[5], n_load_spad, n_load_acc;
  /* fault injection: dependency bits removed from word 0 per stage */
  uint32_t strip[3];
} chip_t;

static chip_t g_chip;

static void chip_free(void) {
  free(g_chip.spad);
  free(g_chip.acc);
  free(g_chip.dram);
  free(g_chip.prog);
  memset(&g_chip, 0, sizeof g_chip);
}

static void chip_init(uint32_t dim, uint32_t spad_rows, uint32_t acc_rows, uint32_t dram_size,
                      policy_t pol, uint32_t seed) {
  chip_free();
  g_chip.dim = dim;
  g_chip.spad_rows = spad_rows;
  g_chip.acc_rows = acc_rows;
  g_chip.axi_bytes = 8;
  g_chip.spad = calloc((size_t)spad_rows * dim, 1);
  g_chip.acc = calloc((size_t)acc_rows * dim, sizeof(int32_t));
  g_chip.dram = calloc(dram_size, 1);
  g_chip.dram_size = dram_size;
  g_chip.policy = pol;
  g_chip.rng = seed * 2654435761u + 1u;
  assert_non_null(g_chip.spad);
  assert_non_null(g_chip.acc);
  assert_non_null(g_chip.dram);
}

static uint32_t chip_rand(void) {
  uint32_t x = g_chip.rng;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  g_chip.rng = x;
  return x;
}

static int stage_of(const tsr_cmd_t *c) {
  uint32_t op = c->w[0] & 0xffu;
  if (op == TSR_OP_LOAD) {
    return ((c->w[0] >> 16) & 1u) ? 1 : 0;
  }
  if (op == TSR_OP_STORE) {
    return 2;
  }
  if (op == TSR_OP_FENCE) {
    return -1;
  }
  return 1; /* MATMUL, NOP, and unknown opcodes (which fail in compute) */
}

static void fail_cmd(uint32_t code, uint32_t idx, uint32_t addr) {
  if (g_chip.err_code == 0) {
    g_chip.err_code = code;
    g_chip.err_idx = idx;
    g_chip.err_addr = addr;
  }
}

/* Token counter a dependency bit refers to for a stage, or -1 if the stage cannot use it. */
static int token_of(int stage, uint32_t bit) {
  switch (bit) {
    case TSR_DEP_POP_PREV:
      return stage == 1 ? TOK_L2C : stage == 2 ? TOK_C2S : -1;
    case TSR_DEP_POP_NEXT:
      return stage == 0 ? TOK_C2L : stage == 1 ? TOK_S2C : -1;
    case TSR_DEP_PUSH_PREV:
      return stage == 1 ? TOK_C2L : stage == 2 ? TOK_S2C : -1;
    case TSR_DEP_PUSH_NEXT:
      return stage == 0 ? TOK_L2C : stage == 1 ? TOK_C2S : -1;
    default:
      return -1;
  }
}

static bool pops_ready(const tsr_cmd_t *c, int stage) {
  const uint32_t pops[2] = {TSR_DEP_POP_PREV, TSR_DEP_POP_NEXT};
  for (int i = 0; i < 2; i++) {
    if (c->w[0] & pops[i]) {
      int t = token_of(stage, pops[i]);
      if (t >= 0 && g_chip.tokens[t] == 0) {
        return false;
      }
    }
  }
  return true;
}

static bool dram_in(uint64_t addr, uint64_t n) {
  return addr <= g_chip.dram_size && n <= g_chip.dram_size - addr;
}

static void exec_load(const tsr_cmd_t *c, uint32_t idx) {
  bool to_acc = (c->w[0] >> 16) & 1u;
  uint32_t addr = c->w[1], stride = c->w[2];
  uint32_t rows = c->w[3] & 0xffffu, cols = c->w[3] >> 16;
  uint32_t local = c->w[4] & 0xffffffu;
  uint32_t dim = g_chip.dim;
  uint32_t chunk = to_acc ? 4 * dim : dim;
  if (rows == 0 || cols == 0) {
    fail_cmd(TSR_ERR_DIM, idx, 0);
    return;
  }
  uint32_t nchunks = (cols + chunk - 1) / chunk;
  uint64_t end = (uint64_t)local + (uint64_t)nchunks * rows;
  if (end > (to_acc ? g_chip.acc_rows : g_chip.spad_rows)) {
    fail_cmd(to_acc ? TSR_ERR_ACC_RANGE : TSR_ERR_SPAD_RANGE, idx, 0);
    return;
  }
  if ((uint64_t)addr + (uint64_t)(rows - 1) * stride + cols > (1ull << 32)) {
    fail_cmd(TSR_ERR_DRAM_RANGE, idx, 0);
    return;
  }
  for (uint32_t r = 0; r < rows; r++) {
    uint64_t ra = (uint64_t)addr + (uint64_t)r * stride;
    if (!dram_in(ra, cols)) {
      fail_cmd(TSR_ERR_BUS_READ, idx, (uint32_t)ra);
      return;
    }
    for (uint32_t ch = 0; ch < nchunks; ch++) {
      uint32_t lrow = local + ch * rows + r;
      for (uint32_t i = 0; i < chunk; i++) {
        uint32_t col = ch * chunk + i;
        uint8_t byte = col < cols ? g_chip.dram[ra + col] : 0u;
        if (to_acc) {
          uint32_t *w = (uint32_t *)&g_chip.acc[(size_t)lrow * dim + i / 4];
          uint32_t sh = 8u * (i % 4);
          *w = (*w & ~(0xffu << sh)) | ((uint32_t)byte << sh);
        } else {
          g_chip.spad[(size_t)lrow * dim + i] = byte;
        }
      }
    }
  }
  g_chip.rd_bytes += (uint64_t)rows * cols;
  if (to_acc) {
    g_chip.n_load_acc++;
  } else {
    g_chip.n_load_spad++;
  }
}

static void exec_matmul(const tsr_cmd_t *c, uint32_t idx) {
  bool accumulate = (c->w[0] >> 16) & 1u;
  bool keep = (c->w[0] >> 17) & 1u;
  uint32_t a = c->w[1] & 0xffffffu, w = c->w[2] & 0xffffffu, ca = c->w[3] & 0xffffffu;
  uint32_t m = c->w[4] & 0xffffu, k = c->w[4] >> 16, n = c->w[5] & 0xffffu;
  uint32_t dim = g_chip.dim;
  if (keep) {
    fail_cmd(TSR_ERR_NO_WEIGHTS, idx, 0); /* the firmware never keeps weights */
    return;
  }
  if (m == 0 || k == 0 || n == 0 || k > dim || n > dim) {
    fail_cmd(TSR_ERR_DIM, idx, 0);
    return;
  }
  if ((uint64_t)a + m > g_chip.spad_rows || (uint64_t)w + k > g_chip.spad_rows) {
    fail_cmd(TSR_ERR_SPAD_RANGE, idx, 0);
    return;
  }
  if ((uint64_t)ca + m > g_chip.acc_rows) {
    fail_cmd(TSR_ERR_ACC_RANGE, idx, 0);
    return;
  }
  g_chip.weights_loaded = true;
  for (uint32_t i = 0; i < m; i++) {
    for (uint32_t j = 0; j < dim; j++) {
      uint32_t sum = 0;
      for (uint32_t r = 0; r < k; r++) {
        int32_t wv = j < n ? (int8_t)g_chip.spad[(size_t)(w + r) * dim + j] : 0;
        sum += (uint32_t)((int8_t)g_chip.spad[(size_t)(a + i) * dim + r] * wv);
      }
      int32_t *dst = &g_chip.acc[(size_t)(ca + i) * dim + j];
      *dst = (int32_t)((accumulate ? (uint32_t)*dst : 0u) + sum);
    }
  }
  g_chip.macs += (uint64_t)m * k * n;
}

static void exec_store(const tsr_cmd_t *c, uint32_t idx) {
  bool bias = (c->w[0] >> 16) & 1u, requant = (c->w[0] >> 17) & 1u, pc = (c->w[0] >> 18) & 1u;
  uint32_t addr = c->w[1], stride = c->w[2];
  uint32_t rows = c->w[3] & 0xffffu, cols = c->w[3] >> 16;
  uint32_t src = c->w[4] & 0xffffffu, param = c->w[5] & 0xffffffu;
  int32_t mult = (int32_t)c->w[6];
  int32_t shift = (int8_t)(c->w[7] & 0xffu);
  int32_t zp = (int8_t)((c->w[7] >> 8) & 0xffu);
  int32_t lo = (int8_t)((c->w[7] >> 16) & 0xffu);
  int32_t hi = (int8_t)((c->w[7] >> 24) & 0xffu);
  uint32_t dim = g_chip.dim;
  if (rows == 0 || cols == 0 || cols > dim) {
    fail_cmd(TSR_ERR_DIM, idx, 0);
    return;
  }
  if ((uint64_t)src + rows > g_chip.acc_rows || (uint64_t)param + 3 > g_chip.acc_rows) {
    fail_cmd(TSR_ERR_ACC_RANGE, idx, 0);
    return;
  }
  if (requant) {
    bool bad = lo > hi;
    for (uint32_t j = 0; j < cols; j++) {
      int32_t s = pc ? g_chip.acc[(size_t)(param + 2) * dim + j] : shift;
      bad = bad || s < -31 || s > 30;
    }
    if (bad) {
      fail_cmd(TSR_ERR_PARAM, idx, 0);
      return;
    }
  }
  uint32_t es = requant ? 1u : 4u;
  if ((uint64_t)addr + (uint64_t)(rows - 1) * stride + (uint64_t)cols * es > (1ull << 32)) {
    fail_cmd(TSR_ERR_DRAM_RANGE, idx, 0);
    return;
  }
  for (uint32_t r = 0; r < rows; r++) {
    uint64_t ra = (uint64_t)addr + (uint64_t)r * stride;
    if (!dram_in(ra, (uint64_t)cols * es)) {
      fail_cmd(TSR_ERR_BUS_WRITE, idx, (uint32_t)ra);
      return;
    }
    for (uint32_t j = 0; j < cols; j++) {
      int32_t x = g_chip.acc[(size_t)(src + r) * dim + j];
      if (bias) {
        x = (int32_t)((uint32_t)x + (uint32_t)g_chip.acc[(size_t)param * dim + j]);
      }
      if (!requant) {
        for (uint32_t b = 0; b < 4; b++) {
          g_chip.dram[ra + 4 * j + b] = (uint8_t)((uint32_t)x >> (8 * b));
        }
        continue;
      }
      int32_t m = pc ? g_chip.acc[(size_t)(param + 1) * dim + j] : mult;
      int32_t s = pc ? g_chip.acc[(size_t)(param + 2) * dim + j] : shift;
      int32_t y = (int32_t)((uint32_t)tsr_mbqm(x, m, s) + (uint32_t)zp);
      y = y < lo ? lo : y > hi ? hi : y;
      g_chip.dram[ra + j] = (uint8_t)(int8_t)y;
    }
  }
  g_chip.wr_bytes += (uint64_t)rows * cols * es;
}

/* Execute one command: pops, the operation, pushes. */
static void exec_cmd(size_t i) {
  const tsr_cmd_t *c = &g_chip.prog[i];
  uint32_t idx = (uint32_t)i;
  int stage = stage_of(c);
  uint32_t op = c->w[0] & 0xffu;
  const uint32_t bits[4] = {TSR_DEP_POP_PREV, TSR_DEP_POP_NEXT, TSR_DEP_PUSH_PREV,
                            TSR_DEP_PUSH_NEXT};
  for (int b = 0; b < 4; b++) {
    if ((c->w[0] & bits[b]) && (stage < 0 || token_of(stage, bits[b]) < 0)) {
      fail_cmd(TSR_ERR_DEP_TOKEN, idx, 0);
      return;
    }
  }
  if (!pops_ready(c, stage)) {
    fail_cmd(TSR_ERR_DEP_TOKEN, idx, 0);
    return;
  }
  for (int b = 0; b < 2; b++) {
    if (c->w[0] & bits[b]) {
      g_chip.tokens[token_of(stage, bits[b])]--;
    }
  }
  switch (op) {
    case TSR_OP_NOP:
    case TSR_OP_FENCE:
      break;
    case TSR_OP_LOAD:
      exec_load(c, idx);
      break;
    case TSR_OP_MATMUL:
      exec_matmul(c, idx);
      break;
    case TSR_OP_STORE:
      exec_store(c, idx);
      break;
    default:
      fail_cmd(TSR_ERR_OPCODE, idx, 0);
      break;
  }
  if (g_chip.err_code != 0) {
    return;
  }
  if (op <= TSR_OP_FENCE) {
    g_chip.n_op[op]++;
  }
  for (int b = 2; b < 4; b++) {
    if (c->w[0] & bits[b]) {
      uint32_t *t = &g_chip.tokens[token_of(stage, bits[b])];
      if (++*t > 255) {
        fail_cmd(TSR_ERR_DEP_TOKEN, idx, 0);
        return;
      }
      if (*t > g_chip.max_token) {
        g_chip.max_token = *t;
      }
    }
  }
  g_chip.cmds++;
}

/* Run every queued command under the chip's policy. */
static void chip_run(void) {
  if (g_chip.err_code != 0) {
    return;
  }
  if (g_chip.policy == POL_SERIAL) {
    while (g_chip.next < g_chip.nprog && g_chip.err_code == 0) {
      exec_cmd(g_chip.next++);
    }
    return;
  }
  /* Overlapping engine: per-stage program-order cursors. */
  size_t cur[3];
  size_t start = g_chip.next;
  for (int s = 0; s < 3; s++) {
    cur[s] = start;
  }
  bool *done = calloc(g_chip.nprog + 1, 1);
  assert_non_null(done);
  size_t remaining = g_chip.nprog - start;
  while (remaining > 0 && g_chip.err_code == 0) {
    int ready[3];
    int nready = 0;
    for (int s = 0; s < 3; s++) {
      while (cur[s] < g_chip.nprog && (done[cur[s]] || stage_of(&g_chip.prog[cur[s]]) != s)) {
        assert_true(stage_of(&g_chip.prog[cur[s]]) >= 0); /* no FENCE in these programs */
        cur[s]++;
      }
      if (cur[s] < g_chip.nprog && pops_ready(&g_chip.prog[cur[s]], s)) {
        ready[nready++] = s;
      }
    }
    if (nready == 0) {
      g_chip.deadlock = true;
      fail_cmd(TSR_ERR_DEP_TOKEN, (uint32_t)cur[0], 0);
      break;
    }
    int pick = ready[0];
    switch (g_chip.policy) {
      case POL_LOAD_FIRST:
        pick = ready[0];
        break;
      case POL_STORE_FIRST:
        pick = ready[nready - 1];
        break;
      case POL_COMPUTE_FIRST:
        for (int i = 0; i < nready; i++) {
          if (ready[i] == 1) {
            pick = 1;
          }
        }
        break;
      default:
        pick = ready[chip_rand() % (uint32_t)nready];
        break;
    }
    size_t i = cur[pick];
    exec_cmd(i);
    done[i] = true;
    remaining--;
  }
  free(done);
  g_chip.next = g_chip.nprog;
}

static tsr_status_t chip_read32(void *ctx, uint32_t off, uint32_t *val) {
  (void)ctx;
  switch (off) {
    case TSR_ID_REG_OFFSET:
      *val = (0x5453u << 16) | (1u << 8);
      break;
    case TSR_CONFIG_REG_OFFSET:
      *val = g_chip.dim | (g_chip.axi_bytes << 8) | (16u << 16);
      break;
    case TSR_SPAD_ROWS_REG_OFFSET:
      *val = g_chip.spad_rows;
      break;
    case TSR_ACC_ROWS_REG_OFFSET:
      *val = g_chip.acc_rows;
      break;
    case TSR_STATUS_REG_OFFSET:
      chip_run();
      *val = g_chip.err_code ? (1u << TSR_STATUS_ERROR_BIT) : (1u << TSR_STATUS_DONE_BIT);
      break;
    case TSR_IRQ_STATUS_REG_OFFSET:
      *val = g_chip.irq_status;
      break;
    case TSR_IRQ_ENABLE_REG_OFFSET:
      *val = g_chip.irq_enable;
      break;
    case TSR_ERR_CODE_REG_OFFSET:
      *val = g_chip.err_code;
      break;
    case TSR_ERR_CMD_IDX_REG_OFFSET:
      *val = g_chip.err_idx;
      break;
    case TSR_ERR_ADDR_REG_OFFSET:
      *val = g_chip.err_addr;
      break;
    case TSR_CMD_IDX_REG_OFFSET:
      *val = (uint32_t)g_chip.next;
      break;
    case TSR_CMDQ_STATUS_REG_OFFSET:
      *val = 16u | (g_chip.nwords << TSR_CMDQ_STATUS_WORDS_OFFSET);
      break;
    case TSR_OPCODE_REG_OFFSET:
      *val = 0;
      break;
    case TSR_CNT_MACS_LO_REG_OFFSET:
      *val = (uint32_t)g_chip.macs;
      break;
    case TSR_CNT_CMDS_LO_REG_OFFSET:
      *val = (uint32_t)g_chip.cmds;
      break;
    default:
      *val = 0;
      break;
  }
  return TSR_OK;
}

static tsr_status_t chip_write32(void *ctx, uint32_t off, uint32_t val) {
  (void)ctx;
  switch (off) {
    case TSR_CMDQ_PUSH_REG_OFFSET:
      g_chip.word[g_chip.nwords++] = val;
      if (g_chip.nwords == 8) {
        g_chip.nwords = 0;
        if (g_chip.nprog == g_chip.cap) {
          g_chip.cap = g_chip.cap ? 2 * g_chip.cap : 256;
          g_chip.prog = realloc(g_chip.prog, g_chip.cap * sizeof *g_chip.prog);
          assert_non_null(g_chip.prog);
        }
        tsr_cmd_t *c = &g_chip.prog[g_chip.nprog++];
        memcpy(c->w, g_chip.word, sizeof c->w);
        int s = stage_of(c);
        if (s >= 0) {
          c->w[0] &= ~g_chip.strip[s];
        }
      }
      break;
    case TSR_IRQ_STATUS_REG_OFFSET:
      g_chip.irq_status &= ~val;
      break;
    case TSR_IRQ_ENABLE_REG_OFFSET:
      g_chip.irq_enable = val;
      break;
    case TSR_CTRL_REG_OFFSET:
      if (val & (1u << TSR_CTRL_COUNTERS_CLEAR_BIT)) {
        g_chip.macs = g_chip.cmds = g_chip.rd_bytes = g_chip.wr_bytes = 0;
      }
      break;
    default:
      break;
  }
  return TSR_OK;
}

static tsr_status_t chip_wait_irq(void *ctx, uint64_t max) {
  (void)ctx;
  (void)max;
  chip_run();
  g_chip.irq_status |= g_chip.err_code ? (1u << TSR_IRQ_STATUS_ERROR_BIT)
                                       : (1u << TSR_IRQ_STATUS_DONE_BIT);
  return TSR_OK;
}

static const tsr_hal_ops_t k_chip_ops = {
    .name = "fakechip",
    .read32 = chip_read32,
    .write32 = chip_write32,
    .wait_irq = chip_wait_irq,
};

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
  uint32_t lda, ldb;
} job_t;

static uint32_t align64(uint32_t x) { return (x + 63u) & ~63u; }

/* Build a random job with padded strides, place it in the chip's DRAM behind
 * canary bytes; returns false if it does not fit. */
static bool job_make(job_t *j, uint32_t m, uint32_t k, uint32_t n, bool requant, bool per_channel,
                     bool bias) {
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

  j->a = malloc((size_t)m * j->lda);
  j->b = malloc((size_t)k * j->ldb);
  j->bias = malloc(4u * n);
  j->mult = malloc(4u * n);
  j->shift = malloc(4u * n);
  assert_true(j->a && j->b && j->bias && j->mult && j->shift);
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
  /* Canary everywhere, then the operands. */
  memset(g_chip.dram, 0xa5, g_chip.dram_size);
  memcpy(g_chip.dram + d->a_addr, j->a, (size_t)m * j->lda);
  memcpy(g_chip.dram + d->b_addr, j->b, (size_t)k * j->ldb);
  memcpy(g_chip.dram + d->bias_addr, j->bias, 4u * n);
  memcpy(g_chip.dram + d->mult_addr, j->mult, 4u * n);
  memcpy(g_chip.dram + d->shift_addr, j->shift, 4u * n);
  return true;
}

static void job_free(job_t *j) {
  free(j->a);
  free(j->b);
  free(j->bias);
  free(j->mult);
  free(j->shift);
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
                      .cmdq_depth = 16, .spad_rows = spad, .acc_rows = acc};
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
  /* Tile rows: inside the accumulator with 3 parameter rows per buffer. */
  assert_true(p->mt >= 1 && p->mt <= in->acc_rows - 3 && p->mt <= 0xffff);
  assert_true(p->acc_bufs == 1 || p->acc_bufs == 2);
  assert_int_equal(p->acc_stride, p->mt + 3);
  for (uint32_t i = 0; i < p->acc_bufs; i++) {
    assert_int_equal(p->acc_base[i], i * p->acc_stride);
    assert_true(p->acc_base[i] + p->acc_stride <= in->acc_rows);
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
  assert_int_equal(p->groups, p->tiles * p->k_chunks);
  /* Scratchpad regions: A buffers hold mt x kc (kc/N blocks of mt rows), W
   * buffers kc rows; no overlap; all inside the scratchpad. */
  assert_true(p->spad_bufs == 1 || p->spad_bufs == 2);
  assert_true(p->a_rows >= p->mt * (p->kc / N));
  assert_true(p->w_rows >= p->kc);
  uint64_t spans[4][2];
  unsigned ns = 0;
  for (uint32_t i = 0; i < p->spad_bufs; i++) {
    spans[ns][0] = p->a_base[i];
    spans[ns++][1] = (uint64_t)p->a_base[i] + p->a_rows;
    spans[ns][0] = p->w_base[i];
    spans[ns++][1] = (uint64_t)p->w_base[i] + p->w_rows;
  }
  for (unsigned i = 0; i < ns; i++) {
    assert_true(spans[i][1] <= in->spad_rows);
    for (unsigned q = 0; q < i; q++) {
      assert_true(spans[i][1] <= spans[q][0] || spans[q][1] <= spans[i][0]);
    }
  }
  /* Predictions are self-consistent. */
  assert_true(p->cmds == p->cmd_loads + p->cmd_matmuls + p->cmd_params + p->cmd_stores);
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
  /* A fits whole when K is small: no chunking, A loaded once per m-tile. */
  d = plain_desc(20, 40, 9);
  assert_int_equal(tsr_gemm_plan(&in, &d, &p), TSR_OK);
  assert_int_equal(p.k_chunks, 1);
  assert_true(p.a_resident);
  assert_true(p.cmd_loads == p.m_tiles + p.groups);
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
#undef REJECT
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
  if (g_chip.max_token > 2) {
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
      for (int variant = 0; variant < 3; variant++) {
        chip_init(dims[di], 4096, 1024, 1u << 20, POL_SERIAL, g_seed);
        job_t j;
        bool requant = variant != 1;
        assert_true(job_make(&j, shapes[s][0], shapes[s][1], shapes[s][2], requant, variant == 2,
                             variant != 0));
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
      assert_true(job_make(&j, m, k, n, requant, pc, bias));
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
                 "bufs=%d/%d max_mt=%u max_kc=%u: %s",
                 g_seed, it, k_policy_name[pol], dim, spad, acc, m, k, n, requant, pc, bias,
                 o.spad_buf, o.acc_buf, o.max_mt, o.max_kc, why);
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
  /* And with the tokens in place, the same job passes under the same schedules. */
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    g_rng = g_seed;
    chip_init(4, 256, 64, 1u << 18, cases[c].pol, g_seed);
    job_t j;
    assert_true(job_make(&j, 40, 20, 12, true, true, true));
    tsr_gemm_opts_t o = {.spad_buf = TSR_BUF_DOUBLE, .acc_buf = TSR_BUF_DOUBLE, .max_mt = 8,
                         .max_kc = 8};
    if (!run_job(&j, &o, why, sizeof why)) {
      fail_msg("seed %u, %s: %s", g_seed, k_policy_name[cases[c].pol], why);
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
      cmocka_unit_test(m_larger_than_the_accumulator_is_tiled),
      cmocka_unit_test(memories_too_small_are_reported_not_overrun),
      cmocka_unit_test(bad_descriptors_are_rejected),
      cmocka_unit_test(executor_matches_golden_on_fixed_awkward_shapes),
      cmocka_unit_test(executor_matches_golden_on_random_jobs_under_every_schedule),
      cmocka_unit_test(every_token_class_is_needed),
      cmocka_unit_test(engine_errors_reach_the_caller),
  };
  return cmocka_run_group_tests_name("tiler", tests, NULL, NULL);
}
