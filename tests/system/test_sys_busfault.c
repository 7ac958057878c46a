/* test_sys_busfault.c: bus fault injection: every job ends in a reported bus error or a bit-exact result. */
#define _POSIX_C_SOURCE 200809L

/*
 * The memory model (tb/tsr_axi_mem.c, tsr_sim_set_faults) answers SLVERR or
 * DECERR on a chosen beat of the k-th read burst, on the B of the j-th write
 * burst, or on random bursts, and holds R beats and B responses back by up to
 * thousands of cycles, never reordering anything. For each case a random GEMM
 * runs through driver and firmware (sys_case_run checks every output byte,
 * every byte outside C, counters and the AXI protocol). The case passes only if
 *   - no error was injected into a burst the job issued, and the result is
 *     bit-exact; or
 *   - the engine stopped with ERR_BUS_READ / ERR_BUS_WRITE and ERR_ADDR is
 *     the address of the first burst the memory answered with an error;
 * and afterwards a soft reset and a clean GEMM are bit-exact. Never silently wrong.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sys_util.h"
#include "tessera_regs.h"

static uint32_t g_dim = 8, g_seed = 1;
static sys_env_t g_env;
static tsr_sim_t *g_sim;
static int (*g_set_faults)(tsr_sim_t *, const tsr_sim_faults_t *);
static void (*g_fault_log)(const tsr_sim_t *, tsr_sim_fault_log_t *);

typedef struct tally {
  unsigned exact, rd_err, wr_err;
} tally_t;

/* One GEMM from `seed` under faults `f`; checks the outcome as described above. */
static void run_case(uint32_t seed, const tsr_sim_faults_t *f, tally_t *t) {
  sys_shape_cfg_t shape = {.max_dim = 4u * g_dim, .small_pct = 20u, .small_max = 4u, .large_pct = 0u,
                           .large_min = 1u};
  sys_case_t c;
  sys_case_make(seed, &shape, SYS_MEM_SIZE, &c);
  assert_int_equal(g_set_faults(g_sim, f), 0);
  sys_case_result_t res;
  char msg[512];
  const int rc = sys_case_run(&g_env, &c, &res, msg, sizeof msg);
  tsr_sim_fault_log_t log;
  g_fault_log(g_sim, &log);
  uint32_t code = 0, addr = 0, status = 0;
  assert_int_equal(sys_rd(&g_env, TSR_STATUS_REG_OFFSET, &status), TSR_OK);
  assert_int_equal(sys_rd(&g_env, TSR_ERR_CODE_REG_OFFSET, &code), TSR_OK);
  assert_int_equal(sys_rd(&g_env, TSR_ERR_ADDR_REG_OFFSET, &addr), TSR_OK);
  char desc[512];
  sys_case_describe(&c, desc, sizeof desc);
  if (log.rd_err_bursts == 0u && log.wr_err_bursts == 0u) {
    if (rc != 0) {
      fail_msg("seed %u: no fault hit the job but it failed: %s (%s)", seed, msg, desc);
    }
    t->exact++;
  } else if (code == TSR_ERR_BUS_READ) {
    if (rc == 0 || log.rd_err_bursts == 0u || addr != log.rd_first_addr) {
      fail_msg("seed %u: ERR_BUS_READ at 0x%08x, first read error burst 0x%08x (%u bursts), run rc %d (%s)", seed,
               addr, log.rd_first_addr, (unsigned)log.rd_err_bursts, rc, desc);
    }
    t->rd_err++;
  } else if (code == TSR_ERR_BUS_WRITE) {
    if (rc == 0 || log.wr_err_bursts == 0u || addr != log.wr_first_addr) {
      fail_msg("seed %u: ERR_BUS_WRITE at 0x%08x, first write error burst 0x%08x (%u bursts), run rc %d (%s)", seed,
               addr, log.wr_first_addr, (unsigned)log.wr_err_bursts, rc, desc);
    }
    t->wr_err++;
  } else {
    fail_msg("seed %u: the memory answered %u read / %u write error bursts but ERR_CODE = %u, STATUS = 0x%x, "
             "run rc %d: %s (%s)",
             seed, (unsigned)log.rd_err_bursts, (unsigned)log.wr_err_bursts, code, status, rc, msg, desc);
  }
  /* Recovery: no faults, soft reset, a clean GEMM. */
  assert_int_equal(g_set_faults(g_sim, NULL), 0);
  assert_int_equal(sys_soft_reset(&g_env), TSR_OK);
  sys_case_make(seed + 1000003u, &shape, SYS_MEM_SIZE, &c);
  if (sys_case_run(&g_env, &c, &res, msg, sizeof msg) != 0) {
    fail_msg("seed %u: clean GEMM after the fault failed: %s", seed, msg);
  }
}

static void read_error_on_a_chosen_beat_is_reported_with_the_burst_address(void **state) {
  (void)state;
  tally_t t = {0};
  static const uint32_t bursts[] = {1, 2, 3, 7, 20};
  static const uint32_t beats[] = {0, 1, 3, 255};
  unsigned n = 0;
  for (unsigned i = 0; i < sizeof bursts / sizeof bursts[0]; i++) {
    for (unsigned j = 0; j < sizeof beats / sizeof beats[0]; j++) {
      tsr_sim_faults_t f = {.rd_burst = bursts[i], .rd_beat = beats[j], .resp = (n & 1u) ? 3u : 2u};
      run_case(g_seed + n++, &f, &t);
    }
  }
  print_message("read faults: %u bus-read errors, %u bit-exact (fault beyond the job)\n", t.rd_err, t.exact);
  assert_true(t.rd_err >= n / 2u);
}

static void write_error_on_a_chosen_burst_is_reported_with_the_burst_address(void **state) {
  (void)state;
  tally_t t = {0};
  for (uint32_t j = 1; j <= 6; j++) {
    tsr_sim_faults_t f = {.wr_burst = j, .resp = (j & 1u) ? 2u : 3u};
    run_case(g_seed + 100u + j, &f, &t);
  }
  print_message("write faults: %u bus-write errors, %u bit-exact\n", t.wr_err, t.exact);
  assert_true(t.wr_err >= 3u);
}

static void responses_delayed_by_thousands_of_cycles_give_bit_exact_results(void **state) {
  (void)state;
  tally_t t = {0};
  for (uint32_t i = 0; i < 6; i++) {
    tsr_sim_faults_t f = {.delay_pct = 10, .delay_max = 3000, .seed = g_seed + i};
    run_case(g_seed + 200u + i, &f, &t);
  }
  assert_int_equal(t.exact, 6);
}

static void random_errors_and_delays_never_give_a_silently_wrong_result(void **state) {
  (void)state;
  tally_t t = {0};
  for (uint32_t i = 0; i < 24; i++) {
    tsr_sim_faults_t f = {.rand_pct = 2, .resp = 2u + (i & 1u), .delay_pct = 3, .delay_max = 1500,
                          .seed = g_seed * 31u + i};
    run_case(g_seed + 300u + i, &f, &t);
  }
  print_message("random faults: %u bit-exact, %u bus-read, %u bus-write errors\n", t.exact, t.rd_err, t.wr_err);
}

int main(int argc, char **argv) {
  if (sys_parse_dim_seed("test_sys_busfault", argc, argv, &g_dim, &g_seed) != 0) {
    return 2;
  }
  tsr_sim_cfg_t cfg;
  sys_sim_cfg_default(&cfg);
  char err[512];
  if (sys_open(&g_env, g_dim, &cfg, err, sizeof err) != TSR_OK) {
    fprintf(stderr, "test_sys_busfault: %s\n", err);
    return 1;
  }
  void *lib = NULL;
  if (tsr_hal_sim_raw(&g_env.hal, &g_sim, &lib) != TSR_OK) {
    fprintf(stderr, "test_sys_busfault: no raw simulator access\n");
    return 1;
  }
  *(void **)&g_set_faults = dlsym(lib, "tsr_sim_set_faults");
  *(void **)&g_fault_log = dlsym(lib, "tsr_sim_fault_log");
  if (g_set_faults == NULL || g_fault_log == NULL) {
    fprintf(stderr, "test_sys_busfault: the library lacks tsr_sim_set_faults: run 'make sim DIM=%u'\n", g_dim);
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(read_error_on_a_chosen_beat_is_reported_with_the_burst_address),
      cmocka_unit_test(write_error_on_a_chosen_burst_is_reported_with_the_burst_address),
      cmocka_unit_test(responses_delayed_by_thousands_of_cycles_give_bit_exact_results),
      cmocka_unit_test(random_errors_and_delays_never_give_a_silently_wrong_result),
  };
  const int failed = cmocka_run_group_tests(tests, NULL, NULL);
  sys_close(&g_env);
  if (failed != 0) {
    fprintf(stderr, "test_sys_busfault: %d test(s) failed with seed %u (replay: --seed %u)\n", failed, g_seed, g_seed);
  }
  return failed != 0;
}
