/* test_sys_reset.c: hard reset (rst_ni) and soft reset in the middle of jobs: quiet bus, idle chip, next job bit-exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys_reset.h"
#include "sys_util.h"
#include "tessera_regs.h"
#include "tsr_driver.h"

/*
 * Each trial draws a random GEMM case (shapes up to 96, strides, requant
 * settings, memory latency, stalls and bandwidth from the case seed), runs it
 * through the driver and firmware on a "trip" HAL (sys_reset.h) and, at a
 * random cycle inside the job, pulls rst_ni low for 1..16 cycles (or writes
 * CTRL.SOFT_RESET). Then:
 *   - no AXI valid on any channel and no burst or beat reaches the memory
 *     model for 200 cycles, and no AXI protocol error was counted (the model
 *     drops its own in-flight bursts at reset);
 *   - the chip is idle: STATUS BUSY/ERROR clear, IRQ_STATUS, IRQ_ENABLE,
 *     ERR_CODE, CNT_MACS, CNT_CMDS 0, the command queue empty, irq_o low;
 *   - no byte of memory outside the job's C region changed;
 *   - a new random GEMM on the same chip is bit-exact (sys_case_run).
 * A third of the trials wait, past the random cycle, for the array to be
 * computing (OPCODE reads MATMUL), a third for a valid on the AXI4 bus. At
 * least one hard reset must hit DMA traffic and one the array computing. (The
 * engine runs one command at a time, so the two overlap only briefly: "both"
 * is printed, usually 0 or 1, and not required.)
 *
 * usage: test_sys_reset --dim N [--seed S]   (seed: $TSR_SEED, else the clock)
 */

static unsigned g_dim;
static uint32_t g_seed;

#define HARD_TRIALS 10u
#define SOFT_TRIALS 4u

static const sys_shape_cfg_t k_shape = {96u, 30u, 24u, 20u, 64u};
/* Trials that wait for the array: shapes large enough to keep it busy for a while. */
static const sys_shape_cfg_t k_shape_big = {96u, 0u, 1u, 100u, 48u};

static uint32_t trial_seed(uint32_t stream, uint32_t i) {
  sys_rng_t r;
  sys_rng_seed(&r, g_seed, stream * 1000u + i);
  return (uint32_t)sys_rng_next(&r);
}

static void open_env(sys_env_t *e, const tsr_sim_cfg_t *cfg, sys_simraw_t *raw) {
  char err[512];
  if (sys_open(e, g_dim, cfg, err, sizeof err) != TSR_OK) {
    fail_msg("cannot open the simulator for --dim %u: %s", g_dim, err);
  }
  if (sys_simraw_get(e, raw, err, sizeof err) != TSR_OK) {
    sys_close(e);
    fail_msg("%s", err);
  }
}

/* A fresh random GEMM on `e`, bit-exact. */
static void next_job_exact(sys_env_t *e, uint32_t seed, const char *after) {
  sys_case_t c;
  sys_case_make(seed, &k_shape, SYS_MEM_SIZE, &c);
  sys_case_result_t res;
  char msg[512];
  if (sys_case_run(e, &c, &res, msg, sizeof msg) != 0) {
    char desc[512];
    sys_case_describe(&c, desc, sizeof desc);
    fail_msg("seed %u: the job after %s failed: %s\n  case seed %u: %s", g_seed, after, msg, seed,
             desc);
  }
}

typedef struct tally {
  unsigned tripped, dma, macs, both;
} tally_t;

static void trials(sys_trip_kind_t kind, unsigned count, tally_t *t) {
  memset(t, 0, sizeof *t);
  for (unsigned i = 0; i < count; i++) {
    uint32_t seed = trial_seed(kind == SYS_TRIP_HARD ? 1u : 2u, i);
    sys_case_t c;
    sys_case_make(seed, i % 3u != 0u ? &k_shape_big : &k_shape, SYS_MEM_SIZE, &c);
    sys_env_t e;
    sys_trip_t trip;
    memset(&trip, 0, sizeof trip);
    open_env(&e, &c.sim, &trip.raw);
    tsr_gemm_plan_t plan;
    if (tsr_gemm_plan_opts(&e.dev.info, &c.d, &c.opts, &plan) != TSR_OK) {
      sys_close(&e);
      fail_msg("seed %u: case %u refused by the planner", g_seed, seed);
    }
    /* The job starts a few hundred cycles after the image is written (soft
     * reset, counter clear); aim anywhere in the predicted run. */
    uint64_t len = tsr_gemm_predict_cycles(&e.dev.info, &c.d, &plan);
    sys_rng_t r;
    sys_rng_seed(&r, seed, 9u);
    trip.env = &e;
    trip.kind = kind;
    trip.trip_at = 300u + (uint64_t)sys_rng_range(&r, 0, (int64_t)(len > 1u ? len : 1u));
    trip.reset_cycles = (unsigned)sys_rng_range(&r, 1, 16);
    /* A third of the trials wait for the array to compute, a third for a
     * valid on the AXI4 bus (a DMA burst in flight). */
    trip.when = (sys_trip_when_t)(i % 3u);
    if (trip.when != SYS_WHEN_AT) {
      trip.trip_at = 300u + (uint64_t)sys_rng_range(&r, 0, (int64_t)(len / 2u));
    }
    char msg[512];
    int rc = sys_run_with_trip(&e, &trip, &c, msg, sizeof msg);
    sys_trip_free(&trip);
    if (rc != 0) {
      char desc[512];
      sys_case_describe(&c, desc, sizeof desc);
      sys_close(&e);
      fail_msg("seed %u trial %u (%s reset at cycle %" PRIu64 " of the job, held %u cycles): %s\n"
               "  case seed %u: %s",
               g_seed, i, kind == SYS_TRIP_HARD ? "hard" : "soft", trip.trip_at,
               trip.reset_cycles, msg, seed, desc);
    }
    if (trip.tripped) {
      bool dma = trip.seen.axi != 0u || trip.seen.dma_moving;
      t->tripped++;
      t->dma += dma ? 1u : 0u;
      t->macs += trip.seen.array_busy ? 1u : 0u;
      t->both += (dma && trip.seen.array_busy) ? 1u : 0u;
    }
    next_job_exact(&e, trial_seed(3u, i + (kind == SYS_TRIP_HARD ? 0u : 100u)),
                   kind == SYS_TRIP_HARD ? "a hard reset" : "a soft reset");
    sys_close(&e);
  }
  printf("  %s resets: %u of %u trials tripped mid-job; at the reset: DMA on the bus %u, "
         "array computing %u, both %u\n",
         kind == SYS_TRIP_HARD ? "hard" : "soft", t->tripped, count, t->dma, t->macs, t->both);
}

static void hard_reset_mid_job_quiets_the_bus_and_the_next_job_is_exact(void **state) {
  (void)state;
  tally_t t;
  trials(SYS_TRIP_HARD, HARD_TRIALS, &t);
  if (t.tripped * 2u < HARD_TRIALS || t.dma == 0u || t.macs == 0u) {
    fail_msg("seed %u: the hard resets did not land mid-job often enough (tripped %u, DMA %u, "
             "array %u, both %u): the test lost its point",
             g_seed, t.tripped, t.dma, t.macs, t.both);
  }
}

static void soft_reset_mid_job_idles_the_engine_and_the_next_job_is_exact(void **state) {
  (void)state;
  tally_t t;
  trials(SYS_TRIP_SOFT, SOFT_TRIALS, &t);
  if (t.tripped == 0u) {
    fail_msg("seed %u: no soft reset landed mid-job", g_seed);
  }
}

/* An engine stopped on an error: the hard reset clears it like a soft reset would. */
static void hard_reset_clears_an_error_stop(void **state) {
  (void)state;
  tsr_sim_cfg_t cfg;
  sys_sim_cfg_default(&cfg);
  sys_env_t e;
  sys_simraw_t raw;
  open_env(&e, &cfg, &raw);
  uint32_t w[TSR_CMD_WORDS] = {0x7fu, 0u, 0u, 0u, 0u, 0u, 0u, 0u};
  uint32_t status = 0, code = 0;
  char msg[512];
  if (sys_wr(&e, TSR_IRQ_ENABLE_REG_OFFSET, 1u << TSR_IRQ_STATUS_ERROR_BIT) != TSR_OK ||
      sys_push_raw(&e, w) != TSR_OK || sys_wait_stopped(&e, 10000u, &status) != TSR_OK ||
      sys_rd(&e, TSR_ERR_CODE_REG_OFFSET, &code) != TSR_OK) {
    sys_close(&e);
    fail_msg("seed %u: could not provoke ERR_OPCODE", g_seed);
  }
  if ((status & (1u << TSR_STATUS_ERROR_BIT)) == 0u || code != TSR_ERR_OPCODE ||
      !raw.irq(raw.sim)) {
    sys_close(&e);
    fail_msg("seed %u: opcode 0x7f gave STATUS 0x%x ERR_CODE %u irq %d", g_seed, status, code,
             raw.irq(raw.sim));
  }
  uint64_t pe = sys_protocol_errors(&e);
  raw.reset(raw.sim, 1u);
  if (sys_check_after_hard_reset(&e, &raw, 200u, pe, msg, sizeof msg) != 0) {
    sys_close(&e);
    fail_msg("seed %u: %s", g_seed, msg);
  }
  next_job_exact(&e, trial_seed(4u, 0u), "a hard reset in the error state");
  sys_close(&e);
}

int main(int argc, char **argv) {
  uint32_t dim = 0;
  if (sys_parse_dim_seed("test_sys_reset", argc, argv, &dim, &g_seed) != 0) {
    return 2;
  }
  g_dim = dim;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hard_reset_mid_job_quiets_the_bus_and_the_next_job_is_exact),
      cmocka_unit_test(soft_reset_mid_job_idles_the_engine_and_the_next_job_is_exact),
      cmocka_unit_test(hard_reset_clears_an_error_stop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
