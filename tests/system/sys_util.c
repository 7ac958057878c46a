/* sys_util.c: shared helpers of the system tests: simulator set-up, raw registers, random GEMM cases. */
#define _POSIX_C_SOURCE 200809L /* setenv, readlink, dup, clock_gettime */

#include "sys_util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tessera_regs.h"
#include "tsr_golden.h"
#include "../common/tsr_prng.h"

sys_break_t sys_break_mode = SYS_BREAK_NONE;

/* ---- Random numbers ------------------------------------------------------------------ */

/* The generators are tests/common/tsr_prng.h's; sys_rng_t is its xorshift64* state. */

void sys_rng_seed(sys_rng_t *r, uint32_t seed, uint32_t stream) {
  tsr_prng_t t;
  tsr_prng_seed(&t, seed, stream);
  r->s = t.s;
}

uint64_t sys_rng_next(sys_rng_t *r) { return tsr_xorshift64s(&r->s); }

int64_t sys_rng_range(sys_rng_t *r, int64_t lo, int64_t hi) {
  tsr_prng_t t = {r->s};
  const int64_t v = tsr_prng_range(&t, lo, hi);
  r->s = t.s;
  return v;
}

bool sys_rng_pct(sys_rng_t *r, unsigned pct) { return sys_rng_next(r) % 100u < pct; }

void sys_rng_fill(sys_rng_t *r, uint8_t *p, size_t n) {
  tsr_prng_t t = {r->s};
  tsr_prng_fill(&t, p, n);
  r->s = t.s;
}

int sys_parse_u32(const char *s, uint32_t *out) {
  if (s == NULL || s[0] == '\0' || s[0] == '-') {
    return -1;
  }
  errno = 0;
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno != 0 || end == s || *end != '\0' || v > UINT32_MAX) {
    return -1;
  }
  *out = (uint32_t)v;
  return 0;
}

uint32_t sys_seed_from_env_or_clock(void) {
  uint32_t seed = 0;
  const char *env = getenv("TSR_SEED");
  if (env != NULL && sys_parse_u32(env, &seed) == 0) {
    return seed;
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t x = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 17);
  return (uint32_t)tsr_splitmix64(&x);
}

int sys_parse_dim_seed(const char *prog, int argc, char **argv, uint32_t *dim, uint32_t *seed) {
  bool have_seed = false;
  *dim = 0u;
  for (int i = 1; i < argc; i++) {
    uint32_t v = 0;
    if (strcmp(argv[i], "--dim") == 0 && i + 1 < argc && sys_parse_u32(argv[i + 1], &v) == 0 &&
        v >= 1u && v <= 255u) {
      *dim = v;
      i++;
    } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc &&
               sys_parse_u32(argv[i + 1], seed) == 0) {
      have_seed = true;
      i++;
    } else {
      fprintf(stderr, "%s: bad argument '%s' (usage: %s --dim 1..255 [--seed S])\n", prog, argv[i],
              prog);
      return 2;
    }
  }
  if (*dim == 0u) {
    fprintf(stderr, "%s: give --dim N (usage: %s --dim 1..255 [--seed S])\n", prog, prog);
    return 2;
  }
  if (!have_seed) {
    *seed = sys_seed_from_env_or_clock();
  }
  printf("%s: dim %u, seed %u (replay with --seed %u)\n", prog, *dim, *seed, *seed);
  fflush(stdout);
  return 0;
}

/* ---- Device ------------------------------------------------------------------------------- */

void sys_sim_cfg_default(tsr_sim_cfg_t *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->mem_size = SYS_MEM_SIZE;
  cfg->rd_latency = 10u;
  cfg->wr_latency = 10u;
  cfg->watchdog_cycles = 400000000ull;
  cfg->seed = 1u;
}

/* Point TSR_SIM_LIB_DIR at <exe dir>/../../lib (build/tests/system/x -> build/lib)
 * unless the caller set it. */
static void default_lib_dir(void) {
  const char *env = getenv("TSR_SIM_LIB_DIR");
  if (env != NULL && env[0] != '\0') {
    return;
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1u);
  if (n <= 0) {
    return;
  }
  exe[n] = '\0';
  for (int i = 0; i < 3; i++) {
    char *slash = strrchr(exe, '/');
    if (slash == NULL) {
      return;
    }
    *slash = '\0';
  }
  char dir[PATH_MAX + 8];
  snprintf(dir, sizeof dir, "%s/lib", exe);
  setenv("TSR_SIM_LIB_DIR", dir, 0);
}

tsr_status_t sys_open(sys_env_t *e, unsigned dim, const tsr_sim_cfg_t *cfg, char *err, size_t len) {
  memset(e, 0, sizeof *e);
  default_lib_dir();
  e->dim = dim;
  e->cfg = *cfg;
  tsr_status_t st = tsr_hal_sim_open(dim, cfg, &e->hal, err, len);
  if (st != TSR_OK) {
    return st;
  }
  st = tsr_dev_open(&e->dev, &e->hal);
  if (st != TSR_OK) {
    snprintf(err, len, "tsr_dev_open: %s: %s", tsr_status_str(st), tsr_dev_error(&e->dev));
    tsr_hal_close(&e->hal);
    return st;
  }
  if (e->dev.info.dim != dim) {
    snprintf(err, len, "the device reports ARRAY_DIM %u, expected %u", e->dev.info.dim, dim);
    tsr_hal_close(&e->hal);
    return TSR_NO_DEVICE;
  }
  e->dev.poll_limit = SYS_POLL_LIMIT;
  return TSR_OK;
}

void sys_close(sys_env_t *e) {
  if (e != NULL) {
    tsr_hal_close(&e->hal);
  }
}

tsr_status_t sys_rd(sys_env_t *e, uint32_t off, uint32_t *val) {
  return tsr_hal_read32(&e->hal, off, val);
}

tsr_status_t sys_wr(sys_env_t *e, uint32_t off, uint32_t val) {
  return tsr_hal_write32(&e->hal, off, val);
}

tsr_status_t sys_push_raw(sys_env_t *e, const uint32_t w[TSR_CMD_WORDS]) {
  for (unsigned i = 0; i < TSR_CMD_WORDS; i++) {
    tsr_status_t st = sys_wr(e, TSR_CMDQ_PUSH_REG_OFFSET, w[i]);
    if (st != TSR_OK) {
      return st;
    }
  }
  return TSR_OK;
}

int sys_irq_level(sys_env_t *e) {
  if (e->hal.ops == NULL || e->hal.ops->wait_irq == NULL) {
    return -1;
  }
  /* tsr_sim_wait_irq prints a line when the bound passes; a low line is an
   * expected answer here, so send that line to /dev/null. */
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  int null_fd = open("/dev/null", O_WRONLY);
  if (saved >= 0 && null_fd >= 0) {
    dup2(null_fd, STDERR_FILENO);
  }
  tsr_status_t st = e->hal.ops->wait_irq(e->hal.ctx, 1u);
  fflush(stderr);
  if (saved >= 0) {
    dup2(saved, STDERR_FILENO);
    close(saved);
  }
  if (null_fd >= 0) {
    close(null_fd);
  }
  return st == TSR_OK ? 1 : 0;
}

tsr_status_t sys_wait_stopped(sys_env_t *e, uint32_t polls, uint32_t *status) {
  for (uint32_t i = 0; i < polls; i++) {
    uint32_t s = 0;
    tsr_status_t st = sys_rd(e, TSR_STATUS_REG_OFFSET, &s);
    if (st != TSR_OK) {
      return st;
    }
    if ((s & (1u << TSR_STATUS_ERROR_BIT)) != 0u || (s & (1u << TSR_STATUS_BUSY_BIT)) == 0u) {
      if (status != NULL) {
        *status = s;
      }
      return TSR_OK;
    }
  }
  return TSR_TIMEOUT;
}

tsr_status_t sys_soft_reset(sys_env_t *e) {
  tsr_status_t st = tsr_soft_reset(&e->dev);
  if (st != TSR_OK) {
    return st;
  }
  for (uint32_t i = 0; i < SYS_POLL_LIMIT; i++) {
    uint32_t s = 0;
    if ((st = sys_rd(e, TSR_STATUS_REG_OFFSET, &s)) != TSR_OK) {
      return st;
    }
    if ((s & (1u << TSR_STATUS_BUSY_BIT)) == 0u) {
      return TSR_OK;
    }
  }
  return TSR_TIMEOUT;
}

uint64_t sys_protocol_errors(sys_env_t *e) {
  uint64_t pe = 0;
  if (tsr_hal_sim_mem_stats(&e->hal, NULL, NULL, &pe) != TSR_OK) {
    return UINT64_MAX;
  }
  return pe;
}

/* ---- Memory snapshots ---------------------------------------------------------------------- */

uint8_t *sys_snapshot(sys_env_t *e) {
  size_t size = (size_t)e->cfg.mem_size;
  uint8_t *p = malloc(size);
  if (p != NULL && tsr_hal_mem_read(&e->hal, 0u, p, size) != TSR_OK) {
    free(p);
    p = NULL;
  }
  return p;
}

/* True when byte `a` lies in one of the `rows` rows of a strided region. */
static bool in_rows(uint64_t a, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t row_bytes) {
  if (rows == 0u || a < addr) {
    return false;
  }
  uint64_t off = a - addr;
  if (stride < row_bytes) {
    /* Rows touch or overlap: the region is one contiguous span. */
    return off < (uint64_t)(rows - 1u) * stride + row_bytes;
  }
  uint64_t r = off / stride;
  return r < rows && off - r * stride < row_bytes;
}

int64_t sys_first_change_outside(const uint8_t *before, const uint8_t *after, size_t size,
                                 uint32_t addr, uint32_t stride, uint32_t rows, uint32_t row_bytes) {
  size_t i = 0;
  while (i < size) {
    /* memcmp in large steps; look closer only where something differs. */
    size_t step = size - i < 4096u ? size - i : 4096u;
    if (memcmp(before + i, after + i, step) == 0) {
      i += step;
      continue;
    }
    for (size_t j = i; j < i + step; j++) {
      if (before[j] != after[j] && !in_rows(j, addr, stride, rows, row_bytes)) {
        return (int64_t)j;
      }
    }
    i += step;
  }
  return -1;
}

/* ---- Random GEMM cases -------------------------------------------------------------------------- */

static uint32_t draw_dim(sys_rng_t *r, const sys_shape_cfg_t *s) {
  uint64_t p = sys_rng_next(r) % 100u;
  if (p < s->small_pct) {
    return (uint32_t)sys_rng_range(r, 1, s->small_max);
  }
  if (p < (uint64_t)s->small_pct + s->large_pct) {
    return (uint32_t)sys_rng_range(r, s->large_min, s->max_dim);
  }
  return (uint32_t)sys_rng_range(r, 1, s->max_dim);
}

/* Extra row-stride bytes: often none, sometimes a few, sometimes many. */
static uint32_t draw_pad(sys_rng_t *r) {
  uint64_t p = sys_rng_next(r) % 100u;
  if (p < 50u) {
    return 0u;
  }
  if (p < 80u) {
    return (uint32_t)sys_rng_range(r, 1, 16);
  }
  return (uint32_t)sys_rng_range(r, 17, 700);
}

static int32_t draw_mult(sys_rng_t *r) {
  uint64_t p = sys_rng_next(r) % 100u;
  if (p < 85u) {
    return (int32_t)sys_rng_range(r, INT32_C(1) << 30, INT32_MAX);
  }
  if (p < 90u) {
    return 0;
  }
  return (int32_t)sys_rng_range(r, INT32_MIN, INT32_MAX);
}

static int32_t clamp_shift(int64_t s) {
  if (s < TSR_SHIFT_MIN) {
    return TSR_SHIFT_MIN;
  }
  if (s > TSR_SHIFT_MAX) {
    return TSR_SHIFT_MAX;
  }
  return (int32_t)s;
}

/* A shift near `base` (the one that spreads outputs over tens); rarely any legal shift. */
static int32_t draw_shift(sys_rng_t *r, int32_t base) {
  if (sys_rng_pct(r, 5u)) {
    return (int32_t)sys_rng_range(r, TSR_SHIFT_MIN, TSR_SHIFT_MAX);
  }
  return clamp_shift(base + sys_rng_range(r, -2, 2));
}

void sys_case_make(uint32_t seed, const sys_shape_cfg_t *shape, uint64_t mem_size, sys_case_t *c) {
  sys_rng_t r;
  sys_rng_seed(&r, seed, 1u);
  memset(c, 0, sizeof *c);
  c->seed = seed;
  tsr_gemm_desc_t *d = &c->d;
  d->m = draw_dim(&r, shape);
  d->k = draw_dim(&r, shape);
  d->n = draw_dim(&r, shape);

  /* Operands and the scale of the accumulators they produce. */
  uint64_t p = sys_rng_next(&r) % 100u;
  c->operands = p < 80u ? 0u : (p < 90u ? 1u : 2u);
  unsigned lg = 0;
  while ((1ull << lg) < d->k) {
    lg++;
  }
  /* log2 of the accumulators' spread: int8 products have a spread of about
   * 2^12.4 (uniform), 2^14 (only -128/127), 2^2 (-3..3); K terms add lg/2. */
  static const unsigned k_prod_bits[3] = {12u, 14u, 2u};
  unsigned acc_bits = k_prod_bits[c->operands] + lg / 2u;
  /* mbqm(acc, ~0.75 * 2^31, shift) ~ 0.75 * acc * 2^shift: aim at tens. */
  c->shift_base = clamp_shift(5 - (int64_t)acc_bits);
  c->bias_bits = sys_rng_pct(&r, 10u) ? 32u : acc_bits;

  d->requant = sys_rng_pct(&r, 75u);
  d->per_channel = d->requant && sys_rng_pct(&r, 50u);
  d->has_bias = sys_rng_pct(&r, 60u);
  d->mult = 0;
  d->shift = 0;
  d->out_zp = 0;
  d->act_min = -128;
  d->act_max = 127;
  if (d->requant) {
    if (!d->per_channel) {
      d->mult = draw_mult(&r);
      d->shift = draw_shift(&r, c->shift_base);
    }
    d->out_zp = sys_rng_pct(&r, 70u) ? (int32_t)sys_rng_range(&r, -20, 20)
                                      : (int32_t)sys_rng_range(&r, -128, 127);
    if (sys_rng_pct(&r, 40u)) {
      int32_t a = (int32_t)sys_rng_range(&r, -128, 127);
      int32_t b = (int32_t)sys_rng_range(&r, -128, 127);
      d->act_min = a < b ? a : b;
      d->act_max = a < b ? b : a;
    }
    /* The fused activation of the store path (docs/sfu.md): a random table, leaky ReLU. */
    d->has_lut = sys_rng_pct(&r, 25u);
    d->leaky = sys_rng_pct(&r, 25u);
  }

  /* Strides and placement: every region at a random (often odd) address,
   * in a random order, with random gaps, anywhere in memory. */
  uint32_t es = d->requant ? 1u : 4u;
  d->lda = d->k + draw_pad(&r);
  d->ldb = d->n + draw_pad(&r);
  d->ldc = d->n * es + draw_pad(&r);
  enum { R_A, R_B, R_C, R_BIAS, R_MULT, R_SHIFT, R_LUT, R_MNEG, R_SNEG, R_COUNT };
  uint64_t size[R_COUNT] = {
      (uint64_t)(d->m - 1u) * d->lda + d->k,
      (uint64_t)(d->k - 1u) * d->ldb + d->n,
      (uint64_t)(d->m - 1u) * d->ldc + (uint64_t)d->n * es,
      d->has_bias ? 4ull * d->n : 0u,
      d->per_channel ? 4ull * d->n : 0u,
      d->per_channel ? 4ull * d->n : 0u,
      d->has_lut ? 256u : 0u,
      d->leaky ? 4ull * d->n : 0u,
      d->leaky ? 4ull * d->n : 0u,
  };
  unsigned order[R_COUNT] = {R_A, R_B, R_C, R_BIAS, R_MULT, R_SHIFT, R_LUT, R_MNEG, R_SNEG};
  for (unsigned i = R_COUNT - 1u; i > 0u; i--) {
    unsigned j = (unsigned)(sys_rng_next(&r) % (i + 1u));
    unsigned t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  uint64_t gap[R_COUNT];
  uint64_t total = 0;
  for (unsigned i = 0; i < R_COUNT; i++) {
    gap[i] = (uint64_t)sys_rng_range(&r, 0, 300);
    total += size[i] + gap[i];
  }
  uint64_t addr = (uint64_t)sys_rng_range(&r, 1, (int64_t)(mem_size - total - 1u));
  uint32_t base[R_COUNT];
  for (unsigned i = 0; i < R_COUNT; i++) {
    base[order[i]] = (uint32_t)addr;
    addr += size[order[i]] + gap[i];
  }
  d->a_addr = base[R_A];
  d->b_addr = base[R_B];
  d->c_addr = base[R_C];
  d->bias_addr = d->has_bias ? base[R_BIAS] : 0u;
  d->mult_addr = d->per_channel ? base[R_MULT] : 0u;
  d->shift_addr = d->per_channel ? base[R_SHIFT] : 0u;
  d->lut_addr = d->has_lut ? base[R_LUT] : 0u;
  d->mult_neg_addr = d->leaky ? base[R_MNEG] : 0u;
  d->shift_neg_addr = d->leaky ? base[R_SNEG] : 0u;

  /* Planner limits in some cases: several m-tiles, K chunks, forced buffering. */
  if (sys_rng_pct(&r, 30u)) {
    c->opts.max_mt = (uint32_t)sys_rng_range(&r, (d->m + 3u) / 4u, d->m);
    if (sys_rng_pct(&r, 60u)) {
      c->opts.max_kc = (uint32_t)sys_rng_range(&r, (d->k + 3u) / 4u, d->k);
    }
    c->opts.spad_buf = (tsr_gemm_buf_t)sys_rng_range(&r, 0, 2);
    c->opts.acc_buf = (tsr_gemm_buf_t)sys_rng_range(&r, 0, 2);
  }

  /* Memory model. */
  sys_sim_cfg_default(&c->sim);
  c->sim.mem_size = mem_size;
  c->sim.rd_latency = (unsigned)sys_rng_range(&r, 1, 40);
  c->sim.wr_latency = (unsigned)sys_rng_range(&r, 1, 40);
  c->sim.stall_pct = sys_rng_pct(&r, 50u) ? 0u : (unsigned)sys_rng_range(&r, 1, 50);
  c->sim.bytes_per_cycle = sys_rng_pct(&r, 25u) ? (unsigned)sys_rng_range(&r, 1, 16) : 0u;
  c->sim.seed = seed;
}

void sys_case_describe(const sys_case_t *c, char *buf, size_t len) {
  static const char *const k_ops[3] = {"uniform", "extreme", "small"};
  static const char *const k_buf[3] = {"auto", "single", "double"};
  const tsr_gemm_desc_t *d = &c->d;
  char rq[160];
  if (!d->requant) {
    snprintf(rq, sizeof rq, "raw int32");
  } else if (d->per_channel) {
    snprintf(rq, sizeof rq, "per-channel (shifts around %d) zp %d clamp %d..%d",
             (int)c->shift_base, (int)d->out_zp, (int)d->act_min, (int)d->act_max);
  } else {
    snprintf(rq, sizeof rq, "per-tensor mult %" PRId32 " shift %d zp %d clamp %d..%d", d->mult,
             (int)d->shift, (int)d->out_zp, (int)d->act_min, (int)d->act_max);
  }
  snprintf(buf, len,
           "m %u k %u n %u, %s operands, A 0x%x lda %u, B 0x%x ldb %u, C 0x%x ldc %u, "
           "bias %s (2^%u), %s%s%s, plan max_mt %u max_kc %u spad %s acc %s, "
           "memory rd_lat %u wr_lat %u stall %u%% bw %u B/cycle",
           d->m, d->k, d->n, k_ops[c->operands % 3u], d->a_addr, d->lda, d->b_addr, d->ldb,
           d->c_addr, d->ldc, d->has_bias ? "yes" : "no", c->bias_bits, rq,
           d->has_lut ? ", LUT" : "", d->leaky ? ", leaky" : "", c->opts.max_mt,
           c->opts.max_kc, k_buf[c->opts.spad_buf % 3u], k_buf[c->opts.acc_buf % 3u],
           c->sim.rd_latency, c->sim.wr_latency, c->sim.stall_pct, c->sim.bytes_per_cycle);
}

static int8_t draw_operand(sys_rng_t *r, unsigned kind) {
  uint64_t v = sys_rng_next(r);
  switch (kind) {
    case 1u:
      return (v & 1u) != 0u ? (int8_t)-128 : (int8_t)127;
    case 2u:
      return (int8_t)((int)(v % 7u) - 3);
    default:
      return (int8_t)(uint8_t)v;
  }
}

static void put32(uint8_t *p, int32_t v) {
  uint32_t u = (uint32_t)v;
  p[0] = (uint8_t)u;
  p[1] = (uint8_t)(u >> 8);
  p[2] = (uint8_t)(u >> 16);
  p[3] = (uint8_t)(u >> 24);
}

static int32_t get32(const uint8_t *p) {
  uint32_t u = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
               ((uint32_t)p[3] << 24);
  int32_t v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* Which region of the case a byte address belongs to, for messages. */
static void name_address(const tsr_gemm_desc_t *d, uint64_t a, char *buf, size_t len) {
  uint32_t es = d->requant ? 1u : 4u;
  struct {
    const char *name;
    uint32_t addr, stride, rows;
    uint64_t row_bytes;
    bool used;
  } regs[] = {
      {"C", d->c_addr, d->ldc, d->m, (uint64_t)d->n * es, true},
      {"A", d->a_addr, d->lda, d->m, d->k, true},
      {"B", d->b_addr, d->ldb, d->k, d->n, true},
      {"bias", d->bias_addr, 0u, 1u, 4ull * d->n, d->has_bias},
      {"multipliers", d->mult_addr, 0u, 1u, 4ull * d->n, d->per_channel},
      {"shifts", d->shift_addr, 0u, 1u, 4ull * d->n, d->per_channel},
  };
  for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
    if (!regs[i].used || a < regs[i].addr) {
      continue;
    }
    uint64_t off = a - regs[i].addr;
    uint64_t end = (uint64_t)(regs[i].rows - 1u) * regs[i].stride + regs[i].row_bytes;
    if (off >= end) {
      continue;
    }
    uint64_t r = regs[i].stride != 0u ? off / regs[i].stride : 0u;
    uint64_t col = off - r * regs[i].stride;
    if (col < regs[i].row_bytes) {
      snprintf(buf, len, "%s row %" PRIu64 " byte %" PRIu64, regs[i].name, r, col);
    } else {
      snprintf(buf, len, "gap after %s row %" PRIu64 " (byte %" PRIu64 " of stride %u)",
               regs[i].name, r, col, regs[i].stride);
    }
    return;
  }
  snprintf(buf, len, "outside every operand region");
}

int sys_case_run(sys_env_t *e, const sys_case_t *c, sys_case_result_t *res, char *msg, size_t len) {
  const tsr_gemm_desc_t *d = &c->d;
  const size_t mem = (size_t)e->cfg.mem_size;
  const uint32_t es = d->requant ? 1u : 4u;
  const size_t mn = (size_t)d->m * d->n;
  int rc = -1;
  uint8_t *img = malloc(mem);
  uint8_t *want = malloc(mem);
  uint8_t *got = NULL;
  int32_t *bias = calloc(d->n, sizeof *bias);
  int32_t *mult = calloc(d->n, sizeof *mult);
  int32_t *shift = calloc(d->n, sizeof *shift);
  int32_t *mult_neg = calloc(d->n, sizeof *mult_neg);
  int32_t *shift_neg = calloc(d->n, sizeof *shift_neg);
  int8_t lut[256];
  int32_t *g32 = calloc(mn, sizeof *g32);
  int8_t *g8 = calloc(mn, 1u);
  memset(res, 0, sizeof *res);
  msg[0] = '\0';
  if (img == NULL || want == NULL || bias == NULL || mult == NULL || shift == NULL ||
      mult_neg == NULL || shift_neg == NULL || g32 == NULL || g8 == NULL) {
    snprintf(msg, len, "out of host memory");
    goto done;
  }

  /* Memory: random everywhere (row gaps included), then the operands. */
  sys_rng_t r;
  sys_rng_seed(&r, c->seed, 2u);
  sys_rng_fill(&r, img, mem);
  for (uint32_t i = 0; i < d->m; i++) {
    for (uint32_t j = 0; j < d->k; j++) {
      img[d->a_addr + (size_t)i * d->lda + j] = (uint8_t)draw_operand(&r, c->operands);
    }
  }
  for (uint32_t i = 0; i < d->k; i++) {
    for (uint32_t j = 0; j < d->n; j++) {
      img[d->b_addr + (size_t)i * d->ldb + j] = (uint8_t)draw_operand(&r, c->operands);
    }
  }
  for (uint32_t j = 0; j < d->n; j++) {
    int64_t lim = c->bias_bits >= 31u ? INT32_MAX : (INT64_C(1) << c->bias_bits);
    bias[j] = (int32_t)sys_rng_range(&r, c->bias_bits >= 31u ? INT32_MIN : -lim, lim);
    mult[j] = draw_mult(&r);
    shift[j] = draw_shift(&r, c->shift_base);
    if (d->has_bias) {
      put32(img + d->bias_addr + 4u * j, bias[j]);
    }
    if (d->per_channel) {
      put32(img + d->mult_addr + 4u * j, mult[j]);
      put32(img + d->shift_addr + 4u * j, shift[j]);
    }
    /* Leaky slope: the negative side's multiplier is the positive one's times alpha < 1. */
    mult_neg[j] = draw_mult(&r);
    shift_neg[j] = clamp_shift((int64_t)(d->per_channel ? shift[j] : d->shift) -
                               sys_rng_range(&r, 0, 4));
    if (d->leaky) {
      put32(img + d->mult_neg_addr + 4u * j, mult_neg[j]);
      put32(img + d->shift_neg_addr + 4u * j, shift_neg[j]);
    }
  }
  for (unsigned i = 0; i < 256u; i++) {
    lut[i] = (int8_t)sys_rng_range(&r, -128, 127);
  }
  if (d->has_lut) {
    memcpy(img + d->lut_addr, lut, sizeof lut);
  }
  tsr_status_t st = tsr_hal_mem_write(&e->hal, 0u, img, mem);
  if (st != TSR_OK) {
    snprintf(msg, len, "writing the memory image failed: %s", tsr_status_str(st));
    goto done;
  }

  /* The job, through the firmware. */
  uint64_t rd0 = 0, wr0 = 0, pe0 = 0, rd1 = 0, wr1 = 0, pe1 = 0;
  if ((st = sys_soft_reset(e)) != TSR_OK ||
      (st = tsr_hal_sim_mem_stats(&e->hal, &rd0, &wr0, &pe0)) != TSR_OK) {
    snprintf(msg, len, "soft reset failed: %s", tsr_status_str(st));
    goto done;
  }
  uint64_t win0 = tsr_hal_cycles(&e->hal);
  if ((st = tsr_counters_clear(&e->dev)) != TSR_OK) {
    snprintf(msg, len, "counter clear failed: %s", tsr_status_str(st));
    goto done;
  }
  st = tsr_gemm_plan_opts(&e->dev.info, d, &c->opts, &res->plan);
  if (st != TSR_OK) {
    const char *why = "";
    tsr_gemm_check_desc(d, &why);
    snprintf(msg, len, "the planner refused the case: %s %s", tsr_status_str(st), why);
    goto done;
  }
  uint64_t cyc0 = tsr_hal_cycles(&e->hal);
  st = tsr_gemm_run(&e->dev, d, &res->plan, NULL, NULL);
  res->sim_cycles = tsr_hal_cycles(&e->hal) - cyc0;
  if (st != TSR_OK) {
    snprintf(msg, len, "tsr_gemm_run: %s: %s", tsr_status_str(st), tsr_dev_error(&e->dev));
    goto done;
  }
  if ((st = tsr_counters_read(&e->dev, &res->cnt)) != TSR_OK ||
      (st = tsr_hal_sim_mem_stats(&e->hal, &rd1, &wr1, &pe1)) != TSR_OK) {
    snprintf(msg, len, "reading the counters failed: %s", tsr_dev_error(&e->dev));
    goto done;
  }
  res->window = tsr_hal_cycles(&e->hal) - win0;
  res->rd_beats = rd1 - rd0;
  res->wr_beats = wr1 - wr0;

  /* Deliberate faults (--break), to watch the checks below fire. */
  if (sys_break_mode == SYS_BREAK_STRAY) {
    uint32_t row = d->n * es;
    uint32_t at = (d->m > 1u && d->ldc > row) ? d->c_addr + row : d->c_addr - 1u;
    uint8_t b = 0;
    if (tsr_hal_mem_read(&e->hal, at, &b, 1u) == TSR_OK) {
      b ^= 0x01u;
      (void)tsr_hal_mem_write(&e->hal, at, &b, 1u);
    }
  }

  got = sys_snapshot(e);
  if (got == NULL) {
    snprintf(msg, len, "reading the memory back failed");
    goto done;
  }

  /* The expected image: unchanged memory with the golden C in its rows. */
  tsr_gemm_params_t gp;
  memset(&gp, 0, sizeof gp);
  gp.bias = d->has_bias ? bias : NULL;
  gp.requant = d->requant ? 1 : 0;
  gp.mult = d->per_channel ? mult : NULL;
  gp.shift = d->per_channel ? shift : NULL;
  gp.mult_scalar = d->mult;
  gp.shift_scalar = d->shift;
  gp.out_zp = d->out_zp;
  gp.act_min = d->act_min;
  gp.act_max = d->act_max;
  gp.lut = d->has_lut ? lut : NULL;
  gp.mult_neg = d->leaky ? mult_neg : NULL;
  gp.shift_neg = d->leaky ? shift_neg : NULL;
  if (tsr_golden_gemm(d->m, d->k, d->n, (const int8_t *)(img + d->a_addr), d->lda,
                      (const int8_t *)(img + d->b_addr), d->ldb, &gp, g32, g8) != 0) {
    snprintf(msg, len, "the golden model rejected the case");
    goto done;
  }
  if (sys_break_mode == SYS_BREAK_GOLDEN) {
    g32[mn - 1u] += 1;
    g8[mn - 1u] = (int8_t)(g8[mn - 1u] == 127 ? 126 : g8[mn - 1u] + 1);
  }
  memcpy(want, img, mem);
  for (uint32_t i = 0; i < d->m; i++) {
    for (uint32_t j = 0; j < d->n; j++) {
      uint8_t *p = want + d->c_addr + (size_t)i * d->ldc + (size_t)j * es;
      size_t idx = (size_t)i * d->n + j;
      if (d->requant) {
        *p = (uint8_t)g8[idx];
        res->inside += (g8[idx] > d->act_min && g8[idx] < d->act_max) ? 1u : 0u;
      } else {
        put32(p, g32[idx]);
      }
    }
  }
  res->outputs = mn;

  /* First differing element of C, then any other changed byte. */
  for (uint32_t i = 0; i < d->m; i++) {
    for (uint32_t j = 0; j < d->n; j++) {
      size_t at = d->c_addr + (size_t)i * d->ldc + (size_t)j * es;
      if (memcmp(got + at, want + at, es) != 0) {
        int32_t gv = d->requant ? (int8_t)got[at] : get32(got + at);
        int32_t wv = d->requant ? (int8_t)want[at] : get32(want + at);
        snprintf(msg, len, "C[%u][%u] = %" PRId32 ", expected %" PRId32 " (byte address 0x%zx)", i,
                 j, gv, wv, at);
        goto done;
      }
    }
  }
  for (size_t i = 0; i < mem; i += 4096u) {
    size_t step = mem - i < 4096u ? mem - i : 4096u;
    if (memcmp(got + i, want + i, step) == 0) {
      continue;
    }
    for (size_t j = i; j < i + step; j++) {
      if (e->ring_size != 0u && j >= e->ring_base && j - e->ring_base < e->ring_size) {
        continue;   /* the command ring: the driver wrote the job's commands there */
      }
      if (got[j] != want[j]) {
        char where[128];
        name_address(d, j, where, sizeof where);
        snprintf(msg, len, "byte at 0x%zx (%s) changed from 0x%02x to 0x%02x", j, where, want[j],
                 got[j]);
        goto done;
      }
    }
  }

  /* Counters and the AXI protocol checker. */
  const tsr_counters_t *cn = &res->cnt;
  const uint64_t macs = (uint64_t)d->m * d->k * d->n;
  const uint64_t peak = (uint64_t)e->dim * e->dim;
  const uint64_t beat = e->dev.info.axi_bytes;
  const uint64_t fetched = e->ring_size != 0u ? 32u * res->plan.cmds : 0u;   /* ring reads */
  if (cn->macs != macs || cn->dma_wr != (uint64_t)mn * es || cn->cmds != res->plan.cmds ||
      cn->dma_rd + fetched != res->rd_beats * beat || cn->dma_rd < res->plan.dma_rd_bytes ||
      cn->dma_wr > res->wr_beats * beat || cn->busy < (macs + peak - 1u) / peak ||
      cn->busy > cn->cycles || cn->cycles > res->window) {
    snprintf(msg, len,
             "counters: MACS %" PRIu64 " (expected %" PRIu64 "), DMA_WR %" PRIu64
             " (expected %zu, at most %" PRIu64 " W beats x %" PRIu64 " B), CMDS %" PRIu64
             " (expected %" PRIu64 "), DMA_RD %" PRIu64 " (expected %" PRIu64 " R beats x %" PRIu64
             " B, at least the %" PRIu64 " payload bytes), BUSY %" PRIu64 " (at least %" PRIu64
             "), CYCLES %" PRIu64 " (at least BUSY, at most the %" PRIu64 " simulated)",
             cn->macs, macs, cn->dma_wr, mn * es, res->wr_beats, beat, cn->cmds, res->plan.cmds,
             cn->dma_rd, res->rd_beats, beat, res->plan.dma_rd_bytes, cn->busy,
             (macs + peak - 1u) / peak, cn->cycles, res->window);
    goto done;
  }
  if (pe1 != pe0) {
    snprintf(msg, len, "the memory model counted %" PRIu64 " AXI protocol violations", pe1 - pe0);
    goto done;
  }
  rc = 0;

done:
  free(img);
  free(want);
  free(got);
  free(bias);
  free(mult);
  free(shift);
  free(mult_neg);
  free(shift_neg);
  free(g32);
  free(g8);
  return rc;
}
