/* soak.c: random jobs, stalls, mid-job hard and soft resets and injected errors on the whole chip, for a set time. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sys_reset.h"
#include "sys_util.h"
#include "tessera_regs.h"
#include "tsr_driver.h"
#include "tsr_ring.h"

/*
 * A soak run is a sequence of sessions. Session k is a pure function of the
 * run seed and k: a fresh simulated chip with random memory latency, stalls
 * and bandwidth cap, and (half the time) an SLVERR range in the top 256 KiB
 * of memory, then 1..8 random jobs on that chip:
 *   gemm   a random GEMM (shapes up to 128, strides, requantization, planner
 *          limits) through the firmware: bit-exact, nothing else written,
 *          counters and AXI protocol right (sys_case_run)
 *   hard   the same with rst_ni pulled at a random cycle of the job: bus quiet,
 *          chip idle, nothing outside C written (sys_run_with_trip)
 *   soft   the same with CTRL.SOFT_RESET at a random cycle
 *   rhard, rsoft
 *          the same through a command ring (the driver appends the firmware's
 *          commands to a ring of 2..256 slots below the SLVERR region and the
 *          chip fetches them, as with --submit stream): the hard or soft reset
 *          lands while the ring runs; then the ring must be empty (soft: ENABLE
 *          kept and RING_HEAD = RING_TAIL; hard: RING_CTRL, RING_HEAD and
 *          RING_TAIL 0), nothing outside C and the ring written, and a
 *          GEMM through a new ring at once bit-exact
 *   bad    a command the chip must refuse (unknown opcode, zero rows, a region
 *          past 4 GiB): STATUS.ERROR with the right ERR_CODE, irq_o, memory
 *          unchanged; soft reset recovers
 *   slverr a LOAD from or a STORE into the SLVERR range: ERR_BUS_READ /
 *          ERR_BUS_WRITE, memory unchanged; soft reset recovers
 *   idle   a hard reset between jobs (sometimes in the error state)
 * and every session ends with a GEMM, so every provoked error and reset is
 * followed by a bit-exact job on the same chip ("recovered"). Any mismatch,
 * hang (the simulator's watchdog, or a register poll limit), protocol error
 * or wrong error code stops the run with the session's replay command.
 *
 * usage: soak --dim N [--seed S] [--minutes M | --sessions K] [--session K] [--verbose]
 *             [--watchdog C] [--break golden|stray]
 *   --minutes   run new sessions until M minutes have passed (default 2)
 *   --sessions  run exactly K sessions instead
 *   --session   run only session K of the seed (replay a failure)
 *   --watchdog  cycles a wait for the interrupt may take (default 20M)
 *   --break     inject a fault into the GEMM checks, which must then fail (sys_break_t)
 */

#define SOAK_ERR_REGION (256u << 10)      /* top of memory that may answer SLVERR */
static uint32_t g_watchdog = 20000000u;  /* cycles a wait may take (--watchdog) */
#define SOAK_POLL_LIMIT 2000000u          /* register reads a poll may take */
#define SOAK_RING_AREA (64u << 10)        /* below the SLVERR region: the rings of rhard / rsoft */
#define SOAK_RING_BASE (SYS_MEM_SIZE - SOAK_ERR_REGION - SOAK_RING_AREA)

static const sys_shape_cfg_t k_shape = {128u, 40u, 32u, 10u, 100u};

typedef struct soak_counts {
  uint64_t sessions, jobs, gemm_exact, hard_mid, hard_idle, soft_mid, not_tripped;
  uint64_t ring_hard_mid, ring_soft_mid, ring_recovered, ring_pending;
  uint64_t errors[16];
  uint64_t recovered;
  uint64_t cycles;
} soak_counts_t;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One line in `msg`, return -1. */
static int failf(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *msg, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, len, fmt, ap);
  va_end(ap);
  return -1;
}

/* A command the chip must refuse, raw (the driver would refuse it first). */
static uint32_t bad_command(sys_rng_t *r, uint32_t dim, uint32_t w[TSR_CMD_WORDS]) {
  memset(w, 0, TSR_CMD_WORDS * sizeof w[0]);
  switch (sys_rng_next(r) % 4u) {
    case 0:
      w[0] = (uint32_t)sys_rng_range(r, TSR_OP_SFU + 1u, 255); /* unknown opcode (SFU is the last) */
      return TSR_ERR_OPCODE;
    case 1:
      w[0] = TSR_OP_LOAD; /* LOAD with 0 rows */
      w[1] = 0x1000u;
      w[2] = dim;
      w[3] = TSR_CMD_PUT(TSR_CMD_LOAD_W3_ROWS, 0u) | TSR_CMD_PUT(TSR_CMD_LOAD_W3_COLS, dim);
      return TSR_ERR_DIM;
    case 2:
      w[0] = TSR_OP_LOAD; /* LOAD whose region passes 2^32 */
      w[1] = 0xfffffff0u;
      w[2] = 0u;
      w[3] = TSR_CMD_PUT(TSR_CMD_LOAD_W3_ROWS, 1u) | TSR_CMD_PUT(TSR_CMD_LOAD_W3_COLS, 17u);
      return TSR_ERR_DRAM_RANGE;
    default:
      w[0] = TSR_OP_STORE; /* STORE whose region passes 2^32 */
      w[1] = 0xffff0000u;
      w[2] = 0x8000u;
      w[3] = TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, 3u) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, dim);
      w[7] = TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MIN, 0x80u) | TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MAX, 0x7fu); /* -128..127 */
      return TSR_ERR_DRAM_RANGE;
  }
}

/* A LOAD from / STORE into the SLVERR range. */
static uint32_t slverr_command(sys_rng_t *r, const tsr_sim_cfg_t *cfg, uint32_t dim,
                               uint32_t w[TSR_CMD_WORDS]) {
  memset(w, 0, TSR_CMD_WORDS * sizeof w[0]);
  uint32_t at = (uint32_t)(cfg->err_base + (uint64_t)sys_rng_range(r, 0, (int64_t)cfg->err_size - 1));
  if (sys_rng_pct(r, 50u)) {
    w[0] = TSR_OP_LOAD;
    w[1] = at;
    w[2] = dim;
    w[3] = TSR_CMD_PUT(TSR_CMD_LOAD_W3_ROWS, 1u) | TSR_CMD_PUT(TSR_CMD_LOAD_W3_COLS, dim);
    return TSR_ERR_BUS_READ;
  }
  w[0] = TSR_OP_STORE;
  w[1] = at;
  w[2] = 4u * dim;
  w[3] = TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, 1u) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, dim);
  w[7] = TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MIN, 0x80u) | TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MAX, 0x7fu);
  return TSR_ERR_BUS_WRITE;
}

/* Push `w`, expect the engine to stop with `code` and raise irq_o; memory unchanged; soft reset. */
static int provoke(sys_env_t *e, const sys_simraw_t *raw, const uint32_t w[TSR_CMD_WORDS],
                   uint32_t code, char *msg, size_t len) {
  uint8_t *before = sys_snapshot(e);
  uint32_t status = 0, got = 0;
  tsr_status_t st;
  if (before == NULL) {
    return failf(msg, len, "out of host memory");
  }
  if ((st = sys_wr(e, TSR_IRQ_ENABLE_REG_OFFSET, 1u << TSR_IRQ_STATUS_ERROR_BIT)) != TSR_OK ||
      (st = sys_push_raw(e, w)) != TSR_OK ||
      (st = sys_wait_stopped(e, SOAK_POLL_LIMIT, &status)) != TSR_OK ||
      (st = sys_rd(e, TSR_ERR_CODE_REG_OFFSET, &got)) != TSR_OK) {
    free(before);
    return failf(msg, len, "command 0x%08x: %s (hang?)", w[0], tsr_status_str(st));
  }
  raw->step(raw->sim, 50u); /* let a refused burst's neighbours settle */
  uint8_t *after = sys_snapshot(e);
  int64_t bad = after != NULL ? sys_first_change_outside(before, after, (size_t)e->cfg.mem_size,
                                                         0u, 0u, 0u, 0u)
                              : 0;
  free(before);
  free(after);
  if ((status & (1u << TSR_STATUS_ERROR_BIT)) == 0u || got != code) {
    return failf(msg, len, "command 0x%08x 0x%08x: STATUS 0x%x ERR_CODE %u, expected ERR_CODE %u",
                 w[0], w[1], status, got, code);
  }
  if (!raw->irq(raw->sim)) {
    return failf(msg, len, "ERR_CODE %u but irq_o low with IRQ_ENABLE.ERROR set", code);
  }
  if (bad >= 0) {
    return failf(msg, len, "ERR_CODE %u: memory byte 0x%" PRIx64 " changed", code, bad);
  }
  if ((st = sys_soft_reset(e)) != TSR_OK ||
      (st = sys_rd(e, TSR_ERR_CODE_REG_OFFSET, &got)) != TSR_OK || got != 0u) {
    return failf(msg, len, "soft reset after ERR_CODE %u: %s, ERR_CODE %u", code,
                 tsr_status_str(st), got);
  }
  e->dev.cmds_pushed = 0u;
  return 0;
}

/* A GEMM (case seed `cs`) through a ring of `slots` slots at SOAK_RING_BASE: bit-exact,
 * nothing but C and the ring written. 0, or -1 with one line in `msg`. */
static int ring_gemm(sys_env_t *e, uint32_t cs, uint32_t slots, char *msg, size_t len) {
  sys_case_t c;
  sys_case_make(cs, &k_shape, SOAK_RING_BASE, &c);
  tsr_ring_t ring;
  tsr_status_t st = tsr_ring_attach(&e->dev, &ring, SOAK_RING_BASE, 32u * slots);
  if (st != TSR_OK) {
    return failf(msg, len, "tsr_ring_attach: %s", tsr_dev_error(&e->dev));
  }
  e->ring_base = ring.base;
  e->ring_size = ring.size;
  sys_case_result_t res;
  char why[512];
  int rc = sys_case_run(e, &c, &res, why, sizeof why);
  e->ring_base = 0u;
  e->ring_size = 0u;
  st = tsr_ring_detach(&e->dev);
  if (rc != 0) {
    return failf(msg, len, "GEMM through a ring after the reset (case seed %u, %u slots): %s", cs, slots, why);
  }
  if (st != TSR_OK) {
    return failf(msg, len, "tsr_ring_detach: %s", tsr_status_str(st));
  }
  return 0;
}

typedef enum job_kind { J_GEMM, J_HARD, J_SOFT, J_BAD, J_SLVERR, J_IDLE, J_RING_HARD, J_RING_SOFT } job_kind_t;
static const char *const k_job_names[] = {"gemm", "hard", "soft", "bad", "slverr", "idle", "rhard", "rsoft"};

static job_kind_t draw_job(sys_rng_t *r, bool has_err) {
  uint64_t p = sys_rng_next(r) % 100u;
  if (p < 40u) {
    return J_GEMM;
  }
  if (p < 52u) {
    return J_HARD;
  }
  if (p < 60u) {
    return J_SOFT;
  }
  if (p < 68u) {
    return J_RING_HARD;
  }
  if (p < 75u) {
    return J_RING_SOFT;
  }
  if (p < 85u) {
    return J_BAD;
  }
  if (p < 95u) {
    return has_err ? J_SLVERR : J_BAD;
  }
  return J_IDLE;
}

/* Run session `k` of `seed`. 0, or -1 with one line in `msg` (and the job in *job). */
static int session(uint32_t dim, uint32_t seed, uint32_t k, bool verbose, soak_counts_t *n,
                   uint32_t *job, char *msg, size_t len) {
  sys_rng_t r;
  sys_rng_seed(&r, seed, 1000u + k);
  sys_case_t mc;
  sys_case_make((uint32_t)sys_rng_next(&r), &k_shape, SYS_MEM_SIZE, &mc);
  tsr_sim_cfg_t cfg = mc.sim;
  cfg.watchdog_cycles = g_watchdog;
  const bool has_err = sys_rng_pct(&r, 50u);
  if (has_err) {
    cfg.err_base = SYS_MEM_SIZE - SOAK_ERR_REGION + (uint64_t)sys_rng_range(&r, 0, 4095);
    cfg.err_size = (uint64_t)sys_rng_range(&r, 64, 65536);
  }
  sys_env_t e;
  sys_simraw_t raw;
  char err[512];
  *job = 0u;
  if (sys_open(&e, dim, &cfg, err, sizeof err) != TSR_OK ||
      sys_simraw_get(&e, &raw, err, sizeof err) != TSR_OK) {
    return failf(msg, len, "cannot open the simulator: %s", err);
  }
  e.dev.poll_limit = SOAK_POLL_LIMIT;
  n->sessions++;
  const uint32_t jobs = (uint32_t)sys_rng_range(&r, 1, 8);
  int rc = 0;
  bool pending = false; /* an error or reset not yet followed by a good GEMM */
  for (uint32_t j = 0; j <= jobs && rc == 0; j++) {
    *job = j;
    job_kind_t kind = j == jobs ? J_GEMM : draw_job(&r, has_err);
    uint32_t cs = (uint32_t)sys_rng_next(&r);
    sys_case_t c;
    /* Operands stay below the SLVERR region. */
    sys_case_make(cs, &k_shape, SYS_MEM_SIZE - SOAK_ERR_REGION, &c);
    double t0 = now_s();
    uint64_t cyc0 = tsr_hal_cycles(&e.hal);
    n->jobs++;
    if (kind == J_GEMM) {
      sys_case_result_t res;
      rc = sys_case_run(&e, &c, &res, msg, len);
      if (rc == 0) {
        n->gemm_exact++;
        n->recovered += pending ? 1u : 0u;
        pending = false;
      }
    } else if (kind == J_HARD || kind == J_SOFT || kind == J_RING_HARD || kind == J_RING_SOFT) {
      const bool ring = kind == J_RING_HARD || kind == J_RING_SOFT;
      sys_trip_t t;
      memset(&t, 0, sizeof t);
      t.env = &e;
      t.raw = raw;
      t.kind = (kind == J_HARD || kind == J_RING_HARD) ? SYS_TRIP_HARD : SYS_TRIP_SOFT;
      if (ring) {
        /* Operands below the ring area; a ring of 2..256 slots (small ones fill up,
         * and the driver appends while the chip runs). */
        sys_case_make(cs, &k_shape, SOAK_RING_BASE, &c);
        t.ring_base = SOAK_RING_BASE + 32u * (uint32_t)sys_rng_range(&r, 0, 1024);
        t.ring_size = 32u * (uint32_t)sys_rng_range(&r, 2, 256);
      }
      tsr_gemm_plan_t plan;
      uint64_t est = 20000u;
      if (tsr_gemm_plan_opts(&e.dev.info, &c.d, &c.opts, &plan) == TSR_OK) {
        est = tsr_gemm_predict_cycles(&e.dev.info, &c.d, &plan);
      }
      t.trip_at = (uint64_t)sys_rng_range(&r, 1, (int64_t)est + 300);
      t.reset_cycles = (unsigned)sys_rng_range(&r, 1, 16);
      t.when = (sys_trip_when_t)sys_rng_range(&r, 0, 2);
      rc = sys_run_with_trip(&e, &t, &c, msg, len);
      sys_trip_free(&t);
      if (rc == 0 && t.tripped) {
        n->hard_mid += kind == J_HARD ? 1u : 0u;
        n->soft_mid += kind == J_SOFT ? 1u : 0u;
        n->ring_hard_mid += kind == J_RING_HARD ? 1u : 0u;
        n->ring_soft_mid += kind == J_RING_SOFT ? 1u : 0u;
        n->ring_pending += t.seen.ring_pending ? 1u : 0u;
        pending = true;
      } else if (rc == 0) {
        n->not_tripped++;
        n->gemm_exact++;
      }
      if (rc == 0 && ring) {
        /* At once: a GEMM through a new ring on the same chip. */
        rc = ring_gemm(&e, (uint32_t)sys_rng_next(&r), (uint32_t)sys_rng_range(&r, 2, 64), msg, len);
        if (rc == 0) {
          n->gemm_exact++;
          n->ring_recovered += t.tripped ? 1u : 0u;
          n->recovered += pending ? 1u : 0u;
          pending = false;
        }
      }
    } else if (kind == J_BAD || kind == J_SLVERR) {
      uint32_t w[TSR_CMD_WORDS];
      uint32_t code = kind == J_BAD ? bad_command(&r, dim, w) : slverr_command(&r, &cfg, dim, w);
      rc = provoke(&e, &raw, w, code, msg, len);
      if (rc == 0) {
        n->errors[code & 15u]++;
        pending = true;
      }
    } else {
      /* Hard reset between jobs, half the time in the error state. */
      uint64_t pe = sys_protocol_errors(&e);
      if (sys_rng_pct(&r, 50u)) {
        uint32_t w[TSR_CMD_WORDS];
        uint32_t st = 0;
        (void)bad_command(&r, dim, w);
        if (sys_push_raw(&e, w) != TSR_OK || sys_wait_stopped(&e, SOAK_POLL_LIMIT, &st) != TSR_OK) {
          rc = failf(msg, len, "bad command before the idle reset: no stop");
        }
      }
      if (rc == 0) {
        raw.reset(raw.sim, (unsigned)sys_rng_range(&r, 1, 16));
        rc = sys_check_after_hard_reset(&e, &raw, 100u, pe, msg, len);
        e.dev.poll_limit = SOAK_POLL_LIMIT;
        n->hard_idle++;
        pending = true;
      }
    }
    if (verbose) {
      printf("  session %u job %u: %-6s %s, %" PRIu64 " cycles, %.2f s\n", k, j, k_job_names[kind],
             rc == 0 ? "ok" : "FAILED", tsr_hal_cycles(&e.hal) - cyc0, now_s() - t0);
    }
    if (rc != 0) {
      char desc[512];
      sys_case_describe(&c, desc, sizeof desc);
      size_t used = strlen(msg);
      snprintf(msg + used, len - used, "\n  job %s, case seed %u: %s", k_job_names[kind], cs, desc);
    }
  }
  n->cycles += tsr_hal_cycles(&e.hal);
  sys_close(&e);
  return rc;
}

static int usage(const char *why) {
  fprintf(stderr, "soak: %s (usage: soak --dim N [--seed S] [--minutes M | --sessions K] "
                  "[--session K] [--verbose] [--watchdog C] [--break golden|stray])\n", why);
  return 2;
}

int main(int argc, char **argv) {
  uint32_t dim = 0, seed = 0, minutes = 2, sessions = 0, one = 0;
  bool have_seed = false, have_one = false, have_sessions = false, verbose = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    uint32_t *slot = NULL;
    if (strcmp(a, "--dim") == 0) {
      slot = &dim;
    } else if (strcmp(a, "--seed") == 0) {
      slot = &seed;
      have_seed = true;
    } else if (strcmp(a, "--minutes") == 0) {
      slot = &minutes;
    } else if (strcmp(a, "--sessions") == 0) {
      slot = &sessions;
      have_sessions = true;
    } else if (strcmp(a, "--session") == 0) {
      slot = &one;
      have_one = true;
    } else if (strcmp(a, "--watchdog") == 0) {
      slot = &g_watchdog;
    } else if (strcmp(a, "--verbose") == 0) {
      verbose = true;
      continue;
    } else if (strcmp(a, "--break") == 0 && i + 1 < argc) {
      if (strcmp(argv[i + 1], "golden") == 0) {
        sys_break_mode = SYS_BREAK_GOLDEN;
      } else if (strcmp(argv[i + 1], "stray") == 0) {
        sys_break_mode = SYS_BREAK_STRAY;
      } else {
        return usage("--break takes golden or stray");
      }
      i++;
      continue;
    } else {
      return usage("unknown argument");
    }
    if (i + 1 >= argc || sys_parse_u32(argv[i + 1], slot) != 0) {
      return usage("an option needs an unsigned integer");
    }
    i++;
  }
  if (dim == 0u) {
    return usage("give --dim");
  }
  if (g_watchdog == 0u) {
    return usage("--watchdog must be at least 1");
  }
  if (!have_seed) {
    seed = sys_seed_from_env_or_clock();
  }
  if (have_one) {
    printf("soak: dim %u, seed %u, session %u only\n", dim, seed, one);
  } else if (have_sessions) {
    printf("soak: dim %u, seed %u, %u sessions (replay with --seed %u --sessions %u, one session "
           "with --session K)\n", dim, seed, sessions, seed, sessions);
  } else {
    printf("soak: dim %u, seed %u, %u minutes (replay with --seed %u, one session with "
           "--session K)\n", dim, seed, minutes, seed);
  }
  fflush(stdout);

  soak_counts_t n;
  memset(&n, 0, sizeof n);
  const double t0 = now_s();
  const double end = t0 + 60.0 * minutes;
  double last_report = t0;
  for (uint32_t k = have_one ? one : 0u;; k++) {
    if (have_one ? k != one : (have_sessions ? k >= sessions : now_s() >= end)) {
      break;
    }
    char msg[1024];
    uint32_t job = 0;
    if (session(dim, seed, k, verbose, &n, &job, msg, sizeof msg) != 0) {
      fprintf(stderr, "soak: FAIL in session %u, job %u: %s\n  replay: %s --dim %u --seed %u "
                      "--session %u --verbose\n",
              k, job, msg, argv[0], dim, seed, k);
      return 1;
    }
    if (now_s() - last_report >= 30.0) {
      last_report = now_s();
      printf("  %.0f s: %" PRIu64 " sessions, %" PRIu64 " jobs\n", last_report - t0, n.sessions,
             n.jobs);
      fflush(stdout);
    }
  }
  uint64_t errs = 0;
  for (unsigned i = 0; i < 16u; i++) {
    errs += n.errors[i];
  }
  printf("soak: PASSED dim %u seed %u in %.0f s: %" PRIu64 " sessions, %" PRIu64 " jobs, %" PRIu64
         " GEMMs bit-exact; resets: %" PRIu64 " hard mid-job, %" PRIu64 " soft mid-job, %" PRIu64
         " hard mid-ring, %" PRIu64 " soft mid-ring (%" PRIu64 " with unfetched commands in the ring, %" PRIu64
         " followed by a bit-exact GEMM through a new ring), %" PRIu64
         " hard between jobs (%" PRIu64 " trips came after the job ended); errors provoked %" PRIu64
         " (OPCODE %" PRIu64 ", DIM %" PRIu64 ", DRAM_RANGE %" PRIu64 ", BUS_READ %" PRIu64
         ", BUS_WRITE %" PRIu64 "); recovered (next GEMM bit-exact) %" PRIu64 "; %.1f M cycles\n",
         dim, seed, now_s() - t0, n.sessions, n.jobs, n.gemm_exact, n.hard_mid, n.soft_mid,
         n.ring_hard_mid, n.ring_soft_mid, n.ring_pending, n.ring_recovered, n.hard_idle, n.not_tripped, errs,
         n.errors[TSR_ERR_OPCODE], n.errors[TSR_ERR_DIM],
         n.errors[TSR_ERR_DRAM_RANGE], n.errors[TSR_ERR_BUS_READ], n.errors[TSR_ERR_BUS_WRITE],
         n.recovered, (double)n.cycles / 1e6);
  return 0;
}
