/* fake_chip.c: a functional model of the Tessera command engine behind the register map, for unit tests. */
#include "fake_chip.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tessera_regs.h"
#include "tsr_quant.h"
#include "tsr_sfu.h"
#include "../common/tsr_prng.h"

/* ---- The fake chip ------------------------------------------------------------------------ */

const char *const k_policy_name[POL_COUNT] = {"serial", "load-first", "compute-first",
                                              "store-first", "random"};

chip_t g_chip;

void chip_free(void) {
  free(g_chip.spad);
  free(g_chip.acc);
  free(g_chip.dram);
  free(g_chip.prog);
  memset(&g_chip, 0, sizeof g_chip);
}

void chip_init(uint32_t dim, uint32_t spad_rows, uint32_t acc_rows, uint32_t dram_size,
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

static uint32_t chip_rand(void) { return tsr_xorshift32(&g_chip.rng); }

static int stage_of(const tsr_cmd_t *c) {
  uint32_t op = TSR_CMD_GET(c->w[0], TSR_CMD_W0_OPCODE);
  if (op == TSR_OP_LOAD) {
    return TSR_CMD_GET(c->w[0], TSR_CMD_LOAD_W0_DEST) ? 1 : 0;
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
  bool to_acc = TSR_CMD_GET(c->w[0], TSR_CMD_LOAD_W0_DEST);
  uint32_t addr = TSR_CMD_GET(c->w[1], TSR_CMD_LOAD_W1_ADDR), stride = TSR_CMD_GET(c->w[2], TSR_CMD_LOAD_W2_STRIDE);
  uint32_t rows = TSR_CMD_GET(c->w[3], TSR_CMD_LOAD_W3_ROWS), cols = TSR_CMD_GET(c->w[3], TSR_CMD_LOAD_W3_COLS);
  uint32_t local = TSR_CMD_GET(c->w[4], TSR_CMD_LOAD_W4_LOCAL);
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
    g_chip.n_load_spad_rows += rows;
  }
}

static void exec_matmul(const tsr_cmd_t *c, uint32_t idx) {
  bool accumulate = TSR_CMD_GET(c->w[0], TSR_CMD_MATMUL_W0_ACCUMULATE);
  bool keep = TSR_CMD_GET(c->w[0], TSR_CMD_MATMUL_W0_KEEP_WEIGHTS);
  uint32_t a = TSR_CMD_GET(c->w[1], TSR_CMD_MATMUL_W1_A_ADDR), w = TSR_CMD_GET(c->w[2], TSR_CMD_MATMUL_W2_W_ADDR);
  uint32_t ca = TSR_CMD_GET(c->w[3], TSR_CMD_MATMUL_W3_C_ADDR);
  uint32_t m = TSR_CMD_GET(c->w[4], TSR_CMD_MATMUL_W4_M), k = TSR_CMD_GET(c->w[4], TSR_CMD_MATMUL_W4_K);
  uint32_t n = TSR_CMD_GET(c->w[5], TSR_CMD_MATMUL_W5_N);
  uint32_t dim = g_chip.dim;
  if (keep) {
    fail_cmd(TSR_ERR_NO_WEIGHTS, idx, 0); /* the firmware never keeps weights */
    return;
  }
  if (m == 0 || k == 0 || n == 0 || n > dim) {
    fail_cmd(TSR_ERR_DIM, idx, 0);
    return;
  }
  /* K > dim: T = ceil(K / dim) tiles; tile t reads A rows a + t*m .. and
   * weight rows w + t*dim .., and all of them add into the same C rows. */
  uint64_t tiles = ((uint64_t)k + dim - 1u) / dim;
  if ((uint64_t)a + tiles * m > g_chip.spad_rows || (uint64_t)w + k > g_chip.spad_rows) {
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
        uint32_t t = r / dim;
        int32_t wv = j < n ? (int8_t)g_chip.spad[(size_t)(w + r) * dim + j] : 0;
        sum += (uint32_t)((int8_t)g_chip.spad[(size_t)(a + t * m + i) * dim + (r - t * dim)] * wv);
      }
      int32_t *dst = &g_chip.acc[(size_t)(ca + i) * dim + j];
      *dst = (int32_t)((accumulate ? (uint32_t)*dst : 0u) + sum);
    }
  }
  g_chip.macs += (uint64_t)m * k * n;
}

static void exec_store(const tsr_cmd_t *c, uint32_t idx) {
  bool bias = TSR_CMD_GET(c->w[0], TSR_CMD_STORE_W0_BIAS), requant = TSR_CMD_GET(c->w[0], TSR_CMD_STORE_W0_REQUANT);
  bool pc = TSR_CMD_GET(c->w[0], TSR_CMD_STORE_W0_PER_CHANNEL), spad = TSR_CMD_GET(c->w[0], TSR_CMD_STORE_W0_SPAD);
  bool lut = TSR_CMD_GET(c->w[0], TSR_CMD_STORE_W0_LUT), leaky = TSR_CMD_GET(c->w[0], TSR_CMD_STORE_W0_LEAKY);
  uint32_t addr = TSR_CMD_GET(c->w[1], TSR_CMD_STORE_W1_ADDR), stride = TSR_CMD_GET(c->w[2], TSR_CMD_STORE_W2_STRIDE);
  uint32_t rows = TSR_CMD_GET(c->w[3], TSR_CMD_STORE_W3_ROWS), cols = TSR_CMD_GET(c->w[3], TSR_CMD_STORE_W3_COLS);
  uint32_t src = TSR_CMD_GET(c->w[4], TSR_CMD_STORE_W4_SRC), param = TSR_CMD_GET(c->w[5], TSR_CMD_STORE_W5_PARAM);
  int32_t mult = (int32_t)TSR_CMD_GET(c->w[6], TSR_CMD_STORE_W6_MULT);
  int32_t shift = (int8_t)TSR_CMD_GET(c->w[7], TSR_CMD_STORE_W7_SHIFT);
  int32_t zp = (int8_t)TSR_CMD_GET(c->w[7], TSR_CMD_STORE_W7_OUT_ZP);
  int32_t lo = (int8_t)TSR_CMD_GET(c->w[7], TSR_CMD_STORE_W7_ACT_MIN);
  int32_t hi = (int8_t)TSR_CMD_GET(c->w[7], TSR_CMD_STORE_W7_ACT_MAX);
  uint32_t dim = g_chip.dim;
  if (rows == 0 || cols == 0 || cols > dim) {
    fail_cmd(TSR_ERR_DIM, idx, 0);
    return;
  }
  if (spad && (uint64_t)src + rows > g_chip.spad_rows) {
    fail_cmd(TSR_ERR_SPAD_RANGE, idx, 0);
    return;
  }
  if ((!spad && (uint64_t)src + rows > g_chip.acc_rows) ||
      (uint64_t)param + (leaky ? 5u : 3u) > g_chip.acc_rows) {
    fail_cmd(TSR_ERR_ACC_RANGE, idx, 0);
    return;
  }
  if (((lut || leaky) && !requant) || (spad && (bias || requant || pc || lut || leaky))) {
    fail_cmd(TSR_ERR_PARAM, idx, 0);
    return;
  }
  if (requant) {
    bool bad = lo > hi;
    for (uint32_t j = 0; j < cols; j++) {
      int32_t s = pc ? g_chip.acc[(size_t)(param + 2) * dim + j] : shift;
      bad = bad || s < -31 || s > 30;
    }
    /* A negative-side shift counts only where some x < 0 uses it. */
    for (uint32_t r = 0; leaky && r < rows; r++) {
      for (uint32_t j = 0; j < cols; j++) {
        int32_t x = g_chip.acc[(size_t)(src + r) * dim + j];
        if (bias) {
          x = (int32_t)((uint32_t)x + (uint32_t)g_chip.acc[(size_t)param * dim + j]);
        }
        int32_t s = g_chip.acc[(size_t)(param + 4) * dim + j];
        bad = bad || (x < 0 && (s < -31 || s > 30));
      }
    }
    if (bad) {
      fail_cmd(TSR_ERR_PARAM, idx, 0);
      return;
    }
  }
  uint32_t es = requant || spad ? 1u : 4u;
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
      if (spad) {
        g_chip.dram[ra + j] = g_chip.spad[(size_t)(src + r) * dim + j];
        continue;
      }
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
      if (leaky && x < 0) {
        m = g_chip.acc[(size_t)(param + 3) * dim + j];
        s = g_chip.acc[(size_t)(param + 4) * dim + j];
      }
      int32_t y = (int32_t)((uint32_t)tsr_mbqm(x, m, s) + (uint32_t)zp);
      y = y < lo ? lo : y > hi ? hi : y;
      if (lut) {
        y = (int8_t)g_chip.lut[(uint8_t)y];
      }
      g_chip.dram[ra + j] = (uint8_t)(int8_t)y;
    }
  }
  g_chip.wr_bytes += (uint64_t)rows * cols * es;
}

/* Element (r, j) of a tensor of `rows` rows at scratchpad row `base` (LOAD's layout). */
static uint8_t *spad_elem(uint32_t base, uint32_t rows, uint32_t r, uint32_t j) {
  uint32_t dim = g_chip.dim;
  return &g_chip.spad[(size_t)(base + (j / dim) * rows + r) * dim + j % dim];
}

/* Word i of a block at accumulator row `row`: lane i mod N of row row + i div N. */
static int32_t acc_word(uint32_t row, uint32_t i) {
  return g_chip.acc[(size_t)(row + i / g_chip.dim) * g_chip.dim + i % g_chip.dim];
}

static void exec_sfu(const tsr_cmd_t *c, uint32_t idx) {
  uint32_t func = TSR_CMD_GET(c->w[0], TSR_CMD_SFU_W0_FUNC);
  uint32_t src = TSR_CMD_GET(c->w[1], TSR_CMD_SFU_W1_SRC), dst = TSR_CMD_GET(c->w[2], TSR_CMD_SFU_W2_DST);
  uint32_t rows = TSR_CMD_GET(c->w[3], TSR_CMD_SFU_W3_ROWS), len = TSR_CMD_GET(c->w[3], TSR_CMD_SFU_W3_LEN);
  uint32_t src2 = TSR_CMD_GET(c->w[4], TSR_CMD_SFU_W4_SRC2), param = TSR_CMD_GET(c->w[5], TSR_CMD_SFU_W5_PARAM);
  uint32_t aux = TSR_CMD_GET(c->w[6], TSR_CMD_SFU_W6_AUX);
  uint32_t dim = g_chip.dim;
  if (func > TSR_FUNC_MUL) {
    fail_cmd(TSR_ERR_OPCODE, idx, 0);
    return;
  }
  if (func == TSR_FUNC_LUT_LOAD) {
    if ((uint64_t)src + (256u + dim - 1u) / dim > g_chip.spad_rows) {
      fail_cmd(TSR_ERR_SPAD_RANGE, idx, 0);
      return;
    }
    for (uint32_t i = 0; i < 256; i++) {
      g_chip.lut[i] = g_chip.spad[(size_t)(src + i / dim) * dim + i % dim];
    }
    g_chip.n_sfu[func]++;
    return;
  }
  if (rows == 0 || len == 0) {
    fail_cmd(TSR_ERR_DIM, idx, 0);
    return;
  }
  uint64_t cr = (len + dim - 1u) / dim;
  uint64_t span = cr * rows;
  uint32_t words = func == TSR_FUNC_SOFTMAX ? 3u : func == TSR_FUNC_LAYERNORM ? 8u
                 : func == TSR_FUNC_ADD     ? 11u : func == TSR_FUNC_MUL ? 7u : 0u;
  const bool two = func == TSR_FUNC_ADD || func == TSR_FUNC_MUL;
  if (src + span > g_chip.spad_rows || (func != TSR_FUNC_REDUCE && dst + span > g_chip.spad_rows) ||
      (two && src2 + span > g_chip.spad_rows) ||
      (func == TSR_FUNC_LAYERNORM && src2 + cr > g_chip.spad_rows)) {
    fail_cmd(TSR_ERR_SPAD_RANGE, idx, 0);
    return;
  }
  if ((func == TSR_FUNC_REDUCE && (uint64_t)dst + rows > g_chip.acc_rows) ||
      (func == TSR_FUNC_LAYERNORM && aux + cr > g_chip.acc_rows) ||
      (words != 0 && (uint64_t)param + (words + dim - 1u) / dim > g_chip.acc_rows)) {
    fail_cmd(TSR_ERR_ACC_RANGE, idx, 0);
    return;
  }
  size_t n = (size_t)rows * len;
  int8_t *a = malloc(n);
  int8_t *b = malloc(n);
  int8_t *y = malloc(n);
  int32_t *red = malloc(3 * sizeof *red * rows);
  int8_t *gamma = malloc(len);
  int32_t *beta = malloc(sizeof *beta * len);
  assert_true(a && b && y && red && gamma && beta);
  for (uint32_t r = 0; r < rows; r++) {
    for (uint32_t j = 0; j < len; j++) {
      a[(size_t)r * len + j] = (int8_t)*spad_elem(src, rows, r, j);
      b[(size_t)r * len + j] = two ? (int8_t)*spad_elem(src2, rows, r, j) : 0;
    }
  }
  int rc = 0;
  switch (func) {
    case TSR_FUNC_MAP:
      tsr_golden_map((const int8_t *)g_chip.lut, n, a, y);
      break;
    case TSR_FUNC_REDUCE:
      tsr_golden_reduce(rows, len, a, red);
      break;
    case TSR_FUNC_SOFTMAX: {
      tsr_softmax_params_t p = {acc_word(param, 0), acc_word(param, 1), acc_word(param, 2)};
      rc = tsr_softmax_check(&p) != 0 ? -1 : tsr_golden_softmax(rows, len, a, &p, y);
      break;
    }
    case TSR_FUNC_LAYERNORM: {
      tsr_layernorm_params_t p = {acc_word(param, 0), acc_word(param, 1), acc_word(param, 2),
                                  acc_word(param, 3), acc_word(param, 4), acc_word(param, 5),
                                  acc_word(param, 6), acc_word(param, 7)};
      for (uint32_t j = 0; j < len; j++) {
        gamma[j] = (int8_t)*spad_elem(src2, 1, 0, j);
        beta[j] = acc_word(aux, j);
      }
      rc = tsr_layernorm_check(&p) != 0 ? -1
                                        : tsr_golden_layernorm(rows, len, a, gamma, beta, &p, y);
      break;
    }
    case TSR_FUNC_MUL: {
      tsr_mul_params_t p = {acc_word(param, 0), acc_word(param, 1), acc_word(param, 2),
                            acc_word(param, 3), acc_word(param, 4), acc_word(param, 5),
                            acc_word(param, 6)};
      rc = tsr_mul_check(&p) != 0 ? -1 : tsr_golden_sfu_mul(n, a, b, &p, y);
      break;
    }
    default: {
      tsr_add_params_t p = {acc_word(param, 0), acc_word(param, 1), acc_word(param, 2),
                            acc_word(param, 3), acc_word(param, 4), acc_word(param, 5),
                            acc_word(param, 6), acc_word(param, 7), acc_word(param, 8),
                            acc_word(param, 9), acc_word(param, 10)};
      rc = tsr_add_check(&p) != 0 ? -1 : tsr_golden_add(n, a, b, &p, y);
      break;
    }
  }
  if (rc != 0) {
    fail_cmd(TSR_ERR_PARAM, idx, 0);
  } else if (func == TSR_FUNC_REDUCE) {
    for (uint32_t r = 0; r < rows; r++) {
      for (uint32_t l = 0; l < dim; l++) {
        g_chip.acc[(size_t)(dst + r) * dim + l] = l < 3 ? red[3 * r + l] : 0;
      }
    }
  } else {
    /* The result in the same layout; the tail of the last chunk row is zero. */
    for (uint32_t r = 0; r < rows; r++) {
      for (uint32_t j = 0; j < cr * dim; j++) {
        *spad_elem(dst, rows, r, j) = j < len ? (uint8_t)y[(size_t)r * len + j] : 0u;
      }
    }
  }
  if (rc == 0) {
    g_chip.n_sfu[func]++;
  }
  free(a);
  free(b);
  free(y);
  free(red);
  free(gamma);
  free(beta);
}

/* Execute one command: pops, the operation, pushes. */
static void exec_cmd(size_t i) {
  const tsr_cmd_t *c = &g_chip.prog[i];
  uint32_t idx = (uint32_t)i;
  int stage = stage_of(c);
  uint32_t op = TSR_CMD_GET(c->w[0], TSR_CMD_W0_OPCODE);
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
    case TSR_OP_SFU:
      exec_sfu(c, idx);
      break;
    default:
      fail_cmd(TSR_ERR_OPCODE, idx, 0);
      break;
  }
  if (g_chip.err_code != 0) {
    return;
  }
  if (op <= TSR_OP_SFU) {
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
      *val = g_chip.dim | (g_chip.axi_bytes << 8) | (16u << 16) | (1u << TSR_CONFIG_SFU_OFFSET);
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

const tsr_hal_ops_t k_chip_ops = {
    .name = "fakechip",
    .read32 = chip_read32,
    .write32 = chip_write32,
    .wait_irq = chip_wait_irq,
};
