/* smoke_sim.c: end-to-end check of a libtsrsim_dN.so through dlopen: registers, DMA, IRQ, watchdog, stalls. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, dlopen */

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tsr_sim.h"

/* Uses only the documented register map (rtl/regs/tessera_regs.toml) and
 * command format (docs/commands.md), so it runs against the real tsr_top.
 *
 * usage: smoke_sim <libtsrsim_dN.so> [--trace out.fst] [--seed N] [--bench]
 *   --trace  write an FST of the first simulation
 *   --seed   seed of the stalled-bus run (default: from the clock, printed)
 *   --bench  also print simulation speed (idle and while copying) */

/* Register offsets (tessera_regs.toml). */
enum {
  REG_ID = 0x000,
  REG_CONFIG = 0x004,
  REG_IRQ_STATUS = 0x018,
  REG_IRQ_ENABLE = 0x01C,
  REG_ERR_CODE = 0x020,
  REG_ERR_CMD_IDX = 0x024,
  REG_CMDQ_PUSH = 0x030,
  REG_UNMAPPED = 0xFFC,
};
enum { IRQ_DONE = 1u << 0, IRQ_ERROR = 1u << 1, IRQ_FENCE = 1u << 2 };
enum { OP_LOAD = 1, OP_STORE = 3, OP_FENCE = 4 };
enum { POP_PREV = 1u << 8, PUSH_NEXT = 1u << 11 };

#define SRC_ADDR 0x1000u
#define DST_ADDR 0x2000u

/* The library's functions, looked up with dlsym. */
typedef struct api {
  void (*cfg_default)(tsr_sim_cfg_t *);
  tsr_sim_t *(*create)(const tsr_sim_cfg_t *);
  void (*destroy)(tsr_sim_t *);
  void (*reset)(tsr_sim_t *, unsigned);
  void (*step)(tsr_sim_t *, uint64_t);
  int (*reg_write)(tsr_sim_t *, uint32_t, uint32_t);
  int (*reg_read)(tsr_sim_t *, uint32_t, uint32_t *);
  int (*irq)(const tsr_sim_t *);
  int (*wait_irq)(tsr_sim_t *, uint64_t);
  int (*mem_write)(tsr_sim_t *, uint64_t, const void *, size_t);
  int (*mem_read)(tsr_sim_t *, uint64_t, void *, size_t);
  uint64_t (*cycles)(const tsr_sim_t *);
  void (*mem_stats)(const tsr_sim_t *, tsr_sim_mem_stats_t *);
  unsigned (*array_dim)(void);
} api_t;

static api_t A;
static int failures;

#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      fprintf(stderr, "smoke_sim: FAIL line %d: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);                       \
      fputc('\n', stderr);                                \
      failures++;                                         \
    }                                                     \
  } while (0)

static int load_api(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    fprintf(stderr, "smoke_sim: cannot load %s: %s\n", path, dlerror());
    return -1;
  }
  struct {
    const char *name;
    void **slot;
  } syms[] = {
      {"tsr_sim_cfg_default", (void **)&A.cfg_default}, {"tsr_sim_create", (void **)&A.create},
      {"tsr_sim_destroy", (void **)&A.destroy},         {"tsr_sim_reset", (void **)&A.reset},
      {"tsr_sim_step", (void **)&A.step},               {"tsr_sim_reg_write", (void **)&A.reg_write},
      {"tsr_sim_reg_read", (void **)&A.reg_read},       {"tsr_sim_irq", (void **)&A.irq},
      {"tsr_sim_wait_irq", (void **)&A.wait_irq},       {"tsr_sim_mem_write", (void **)&A.mem_write},
      {"tsr_sim_mem_read", (void **)&A.mem_read},       {"tsr_sim_cycles", (void **)&A.cycles},
      {"tsr_sim_mem_stats", (void **)&A.mem_stats},     {"tsr_sim_array_dim", (void **)&A.array_dim},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    *syms[i].slot = dlsym(h, syms[i].name);
    if (*syms[i].slot == NULL) {
      fprintf(stderr, "smoke_sim: %s lacks %s\n", path, syms[i].name);
      return -1;
    }
  }
  return 0;
}

static uint32_t rd(tsr_sim_t *s, uint32_t addr) {
  uint32_t v = 0;
  int r = A.reg_read(s, addr, &v);
  CHECK(r == 0, "read of 0x%03x answered %d", addr, r);
  return v;
}

static void wr(tsr_sim_t *s, uint32_t addr, uint32_t v) {
  int r = A.reg_write(s, addr, v);
  CHECK(r == 0, "write of 0x%08x to 0x%03x answered %d", v, addr, r);
}

static void push_cmd(tsr_sim_t *s, const uint32_t w[8]) {
  for (int i = 0; i < 8; i++) {
    wr(s, REG_CMDQ_PUSH, w[i]);
  }
}

/* Copy one accumulator row (4N bytes) from SRC_ADDR to DST_ADDR with LOAD to
 * the accumulator, STORE raw int32 and an IRQ fence. Returns IRQ_STATUS. */
static uint32_t copy_row(tsr_sim_t *s, unsigned n) {
  const uint32_t bytes = 4u * n;
  const uint32_t load[8] = {OP_LOAD | (1u << 16) | PUSH_NEXT, SRC_ADDR, bytes, 1u | (bytes << 16), 0, 0, 0, 0};
  const uint32_t store[8] = {OP_STORE | POP_PREV, DST_ADDR, bytes, 1u | (n << 16), 0, 0, 0, 0};
  const uint32_t fence[8] = {OP_FENCE | (1u << 16), 0, 0, 0, 0, 0, 0, 0};
  wr(s, REG_IRQ_STATUS, IRQ_DONE | IRQ_ERROR | IRQ_FENCE);
  wr(s, REG_IRQ_ENABLE, IRQ_ERROR | IRQ_FENCE);
  push_cmd(s, load);
  push_cmd(s, store);
  push_cmd(s, fence);
  int r = A.wait_irq(s, 200000);
  CHECK(r == 0, "no interrupt after the copy commands");
  uint32_t st = rd(s, REG_IRQ_STATUS);
  return st;
}

static void fill_pattern(uint8_t *p, size_t n, uint32_t salt) {
  for (size_t i = 0; i < n; i++) {
    p[i] = (uint8_t)(i * 37u + salt);
  }
}

/* One whole session on a simulation made from `cfg`. */
static void session(const tsr_sim_cfg_t *cfg, const char *name) {
  tsr_sim_t *s = A.create(cfg);
  CHECK(s != NULL, "%s: create failed", name);
  if (s == NULL) {
    return;
  }
  const unsigned n = A.array_dim();
  uint32_t id = rd(s, REG_ID);
  CHECK(id >> 16 == 0x5453u, "%s: ID.VENDOR is 0x%04x, want 0x5453", name, id >> 16);
  uint32_t conf = rd(s, REG_CONFIG);
  CHECK((conf & 0xFFu) == n, "%s: CONFIG.ARRAY_DIM %u but the library says %u", name, conf & 0xFFu, n);
  wr(s, REG_IRQ_ENABLE, IRQ_FENCE | IRQ_ERROR);
  CHECK(rd(s, REG_IRQ_ENABLE) == (IRQ_FENCE | IRQ_ERROR), "%s: IRQ_ENABLE did not read back", name);
  uint32_t v = 0;
  CHECK(A.reg_read(s, REG_UNMAPPED, &v) == 2, "%s: unmapped read did not answer SLVERR", name);
  CHECK(A.reg_write(s, REG_UNMAPPED, 1u) == 2, "%s: unmapped write did not answer SLVERR", name);

  /* DMA round trip through the AXI4 memory model */
  uint8_t src[64 * 4], dst[64 * 4];
  fill_pattern(src, 4u * n, cfg->seed);
  memset(dst, 0xEE, sizeof dst);
  CHECK(A.mem_write(s, SRC_ADDR, src, 4u * n) == 0, "%s: mem_write failed", name);
  CHECK(A.mem_write(s, DST_ADDR, dst, 4u * n) == 0, "%s: mem_write failed", name);
  uint32_t st = copy_row(s, n);
  CHECK(st & IRQ_FENCE, "%s: IRQ_STATUS 0x%x lacks FENCE (ERR_CODE %u, ERR_CMD_IDX %u)", name, st,
        rd(s, REG_ERR_CODE), rd(s, REG_ERR_CMD_IDX));
  CHECK(!(st & IRQ_ERROR), "%s: the copy raised ERROR (ERR_CODE %u)", name, rd(s, REG_ERR_CODE));
  CHECK(A.mem_read(s, DST_ADDR, dst, 4u * n) == 0, "%s: mem_read failed", name);
  CHECK(memcmp(src, dst, 4u * n) == 0, "%s: the copied row differs from the source", name);
  tsr_sim_mem_stats_t ms;
  A.mem_stats(s, &ms);
  CHECK(ms.rd_bursts >= 1 && ms.wr_bursts >= 1 && ms.rd_beats >= 1 && ms.wr_beats >= 1,
        "%s: memory saw no traffic", name);
  CHECK(ms.protocol_errors == 0, "%s: %" PRIu64 " AXI protocol errors", name, ms.protocol_errors);
  CHECK(ms.err_resps == 0, "%s: %" PRIu64 " error responses", name, ms.err_resps);

  uint64_t c1 = A.cycles(s);
  A.step(s, 100);
  CHECK(A.cycles(s) - c1 == 100, "%s: step(100) ran %" PRIu64 " cycles", name, A.cycles(s) - c1);

  /* watchdog: nothing pending, so no interrupt; the model stays usable */
  wr(s, REG_IRQ_STATUS, IRQ_DONE | IRQ_ERROR | IRQ_FENCE);
  CHECK(A.irq(s) == 0, "%s: irq_o still high after clearing IRQ_STATUS", name);
  uint64_t c0 = A.cycles(s);
  CHECK(A.wait_irq(s, 500) == -1, "%s: wait_irq did not time out", name);
  CHECK(A.cycles(s) - c0 == 500, "%s: watchdog ran %" PRIu64 " cycles, want 500", name, A.cycles(s) - c0);
  CHECK(rd(s, REG_ID) == id, "%s: ID changed after the watchdog", name);

  /* reset keeps memory and brings the registers back */
  c0 = A.cycles(s);
  A.reset(s, 4);
  CHECK(A.cycles(s) - c0 == 4, "%s: reset took %" PRIu64 " cycles, want 4", name, A.cycles(s) - c0);
  CHECK(rd(s, REG_IRQ_ENABLE) == 0, "%s: IRQ_ENABLE survived reset", name);
  CHECK(A.mem_read(s, DST_ADDR, dst, 4u * n) == 0 && memcmp(src, dst, 4u * n) == 0,
        "%s: memory lost its contents over reset", name);
  CHECK(A.mem_read(s, cfg->mem_size - 1u, dst, 1) == 0, "%s: mem_read of the last byte failed", name);
  CHECK(A.mem_read(s, cfg->mem_size, dst, 1) == -1, "%s: mem_read past the end succeeded", name);
  CHECK(A.mem_write(s, cfg->mem_size - 2u, src, 3) == -1, "%s: mem_write across the end succeeded", name);
  A.destroy(s);
}

/* A bus error: the source lies in the SLVERR range; ERROR must be raised. */
static void error_session(const tsr_sim_cfg_t *base) {
  tsr_sim_cfg_t cfg = *base;
  cfg.trace_path = NULL;
  cfg.err_base = SRC_ADDR;
  cfg.err_size = 64;
  tsr_sim_t *s = A.create(&cfg);
  CHECK(s != NULL, "slverr: create failed");
  if (s == NULL) {
    return;
  }
  uint32_t st = copy_row(s, A.array_dim());
  CHECK(st & IRQ_ERROR, "slverr: IRQ_STATUS 0x%x lacks ERROR after a SLVERR read", st);
  tsr_sim_mem_stats_t ms;
  A.mem_stats(s, &ms);
  CHECK(ms.err_resps >= 1, "slverr: the memory sent no error response");
  A.destroy(s);
}

/* A register access that outlasts its limit fails with -1 (the limit is
 * 1000 cycles, or watchdog_cycles if smaller), with a message, not a hang. */
static void timeout_session(const tsr_sim_cfg_t *base) {
  tsr_sim_cfg_t cfg = *base;
  cfg.trace_path = NULL;
  cfg.watchdog_cycles = 1;
  tsr_sim_t *s = A.create(&cfg);
  CHECK(s != NULL, "timeout: create failed");
  if (s == NULL) {
    return;
  }
  uint32_t v = 0;
  CHECK(A.reg_read(s, REG_ID, &v) == -1, "timeout: a 1-cycle register read did not time out");
  CHECK(A.reg_write(s, REG_IRQ_ENABLE, IRQ_DONE) == -1, "timeout: a 1-cycle register write did not time out");
  A.destroy(s);
}

/* Two models at once must not share state. */
static void two_models(const tsr_sim_cfg_t *base) {
  tsr_sim_cfg_t cfg = *base;
  cfg.trace_path = NULL;
  tsr_sim_t *a = A.create(&cfg);
  tsr_sim_t *b = A.create(&cfg);
  CHECK(a != NULL && b != NULL, "two models: create failed");
  if (a != NULL && b != NULL) {
    wr(a, REG_IRQ_ENABLE, IRQ_DONE);
    wr(b, REG_IRQ_ENABLE, IRQ_FENCE);
    CHECK(rd(a, REG_IRQ_ENABLE) == IRQ_DONE && rd(b, REG_IRQ_ENABLE) == IRQ_FENCE,
          "two models: registers leak between instances");
  }
  A.destroy(a);
  A.destroy(b);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void bench(const tsr_sim_cfg_t *base) {
  tsr_sim_cfg_t cfg = *base;
  cfg.trace_path = NULL;
  tsr_sim_t *s = A.create(&cfg);
  if (s == NULL) {
    return;
  }
  const uint64_t n = 2000000;
  double t0 = now_s();
  A.step(s, n);
  double t1 = now_s();
  printf("smoke_sim: bench: idle %.2f Mcycles/s\n", (double)n / (t1 - t0) * 1e-6);
  uint64_t c0 = A.cycles(s);
  t0 = now_s();
  for (int i = 0; i < 200; i++) {
    (void)copy_row(s, A.array_dim());
  }
  t1 = now_s();
  printf("smoke_sim: bench: copying (register writes, DMA, IRQ) %.2f Mcycles/s over %" PRIu64 " cycles\n",
         (double)(A.cycles(s) - c0) / (t1 - t0) * 1e-6, A.cycles(s) - c0);
  A.destroy(s);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: smoke_sim <libtsrsim_dN.so> [--trace out.fst] [--seed N] [--bench]\n");
    return 2;
  }
  const char *trace = NULL;
  uint32_t seed = (uint32_t)time(NULL);
  int do_bench = 0;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc) {
      trace = argv[++i];
    } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      seed = (uint32_t)strtoul(argv[++i], NULL, 0);
    } else if (strcmp(argv[i], "--bench") == 0) {
      do_bench = 1;
    } else {
      fprintf(stderr, "smoke_sim: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if (load_api(argv[1]) != 0) {
    return 1;
  }
  tsr_sim_cfg_t cfg;
  A.cfg_default(&cfg);
  if (cfg.mem_size != (64ull << 20) || cfg.rd_latency != 10u || cfg.wr_latency != 10u ||
      cfg.watchdog_cycles != 100000000ull || cfg.stall_pct != 0u || cfg.trace_path != NULL) {
    fprintf(stderr, "smoke_sim: FAIL: tsr_sim_cfg_default does not give the documented defaults\n");
    failures++;
  }
  cfg.trace_path = trace;
  session(&cfg, "plain bus");

  tsr_sim_cfg_t stressed = cfg;
  stressed.trace_path = NULL;
  stressed.stall_pct = 30;
  stressed.bytes_per_cycle = 2;
  stressed.rd_latency = 3;
  stressed.wr_latency = 1;
  stressed.seed = seed;
  session(&stressed, "stalled bus");
  error_session(&cfg);
  two_models(&cfg);
  timeout_session(&cfg);
  if (do_bench) {
    bench(&cfg);
  }
  if (failures != 0) {
    fprintf(stderr, "smoke_sim: %d check(s) FAILED on %s (stall seed %u: rerun with --seed %u)\n", failures,
            argv[1], seed, seed);
    return 1;
  }
  printf("smoke_sim: PASS %s (ArrayDim %u, stall seed %u)\n", argv[1], A.array_dim(), seed);
  return 0;
}
