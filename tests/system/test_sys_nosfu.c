/* test_sys_nosfu.c: a chip built without the SFU (tsr_top EnableSfu = 0) refuses what needs it, and does the rest bit-exactly. */
#define _POSIX_C_SOURCE 200809L

/*
 * Small FPGAs build tsr_top with EnableSfu = 0 (docs/fpga.md). This suite runs
 * on such a model (make test-nosfu builds it in build/nosfu) and checks:
 *   - CONFIG.SFU reads 0 and the driver knows it;
 *   - every SFU command, pushed raw past the driver, stops the engine with
 *     ERR_CODE = NO_UNIT at decode, and no byte of external memory changes;
 *     so does a STORE through the activation table, which only the SFU loads;
 *   - the driver and firmware refuse the same work with TSR_UNSUPPORTED and a
 *     message before any command reaches the chip;
 *   - random GEMMs (requantization, per-channel, leaky ReLU) are bit-exact,
 *     also right after a NO_UNIT error and its soft reset.
 * Run against a chip with the SFU, the first test fails: the suite is
 * meaningless there.
 */
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

#define GEMMS 20u
/* Where the refused STORE would write. */
#define TRIP_ADDR 0x300003u

static uint32_t g_dim = 4, g_seed = 1;
static sys_env_t g_env;

static uint32_t rd(uint32_t off) {
  uint32_t v = 0;
  assert_int_equal(sys_rd(&g_env, off, &v), TSR_OK);
  return v;
}

/* Pack `what` with the driver as if the chip had an SFU, so the command is
 * well-formed and only the missing unit makes it wrong. */
static void pack_as_if_sfu(const tsr_sfu_args_t *sfu, const tsr_store_args_t *store, tsr_cmd_t *c) {
  g_env.dev.info.has_sfu = true;
  const tsr_status_t st = sfu != NULL ? tsr_cmd_sfu(&g_env.dev, 0, sfu, c)
                                      : tsr_cmd_store(&g_env.dev, 0, store, c);
  g_env.dev.info.has_sfu = false;
  if (st != TSR_OK) {
    fail_msg("packing the command failed: %s", tsr_dev_error(&g_env.dev));
  }
}

/* Push `c` raw and check that it stops the engine with NO_UNIT and writes nothing. */
static void expect_no_unit(const char *what, const tsr_cmd_t *c) {
  assert_int_equal(sys_soft_reset(&g_env), TSR_OK);
  uint8_t *before = sys_snapshot(&g_env);
  assert_non_null(before);
  const uint32_t idx = rd(TSR_CMD_IDX_REG_OFFSET);
  assert_int_equal(sys_push_raw(&g_env, c->w), TSR_OK);
  uint32_t status = 0;
  assert_int_equal(sys_wait_stopped(&g_env, SYS_POLL_LIMIT, &status), TSR_OK);
  const uint32_t code = rd(TSR_ERR_CODE_REG_OFFSET);
  if ((status & (1u << TSR_STATUS_ERROR_BIT)) == 0u || code != TSR_ERR_NO_UNIT) {
    fail_msg("%s: STATUS = 0x%x, ERR_CODE = %u (%s); expected ERROR with NO_UNIT", what, status,
             code, tsr_hw_error_str(code));
  }
  assert_int_equal(rd(TSR_ERR_CMD_IDX_REG_OFFSET), idx);
  uint8_t *after = sys_snapshot(&g_env);
  assert_non_null(after);
  const int64_t changed = sys_first_change_outside(before, after, g_env.cfg.mem_size, 0u, 0u, 0u, 0u);
  free(before);
  free(after);
  if (changed >= 0) {
    fail_msg("%s: external memory changed at 0x%llx", what, (unsigned long long)changed);
  }
}

static void config_reports_no_sfu(void **state) {
  (void)state;
  const uint32_t cfg = rd(TSR_CONFIG_REG_OFFSET);
  if (((cfg >> TSR_CONFIG_SFU_OFFSET) & TSR_CONFIG_SFU_MASK) != 0u) {
    fail_msg("CONFIG = 0x%08x has SFU = 1: run this suite on a model built with EnableSfu = 0 "
             "(make test-nosfu)", cfg);
  }
  assert_false(g_env.dev.info.has_sfu);
  assert_int_equal((cfg >> TSR_CONFIG_ARRAY_DIM_OFFSET) & TSR_CONFIG_ARRAY_DIM_MASK, g_dim);
}

static void raw_sfu_commands_stop_with_no_unit(void **state) {
  (void)state;
  for (uint32_t f = 0; f < TSR_FUNC_COUNT; f++) {
    const tsr_sfu_args_t a = {.func = f, .rows = 1u, .len = g_dim, .src = 0u, .dst = 8u,
                              .src2 = 16u, .param = 0u, .aux = 4u};
    tsr_cmd_t c;
    pack_as_if_sfu(&a, NULL, &c);
    char what[32];
    snprintf(what, sizeof what, "SFU FUNC %u", f);
    expect_no_unit(what, &c);
  }
}

static void raw_store_through_the_table_stops_with_no_unit(void **state) {
  (void)state;
  const tsr_store_args_t a = {.addr = TRIP_ADDR, .stride = g_dim, .rows = 2u, .cols = g_dim,
                              .src = 0u, .param = 8u, .requant = true, .mult = 0x40000000,
                              .act_min = -128, .act_max = 127, .lut = true};
  tsr_cmd_t c;
  pack_as_if_sfu(NULL, &a, &c);
  expect_no_unit("STORE with LUT", &c);
}

static void driver_and_firmware_refuse_before_the_chip(void **state) {
  (void)state;
  assert_int_equal(sys_soft_reset(&g_env), TSR_OK);
  const uint32_t idx = rd(TSR_CMD_IDX_REG_OFFSET);
  assert_int_equal(tsr_sfu_run_softmax(&g_env.dev, 1u, g_dim, 0u, 0u, 0u), TSR_UNSUPPORTED);
  if (strstr(tsr_dev_error(&g_env.dev), "without the SFU") == NULL) {
    fail_msg("softmax: message \"%s\" does not name the missing SFU", tsr_dev_error(&g_env.dev));
  }
  /* A GEMM with a fused activation table: no plan, so nothing is pushed. */
  sys_shape_cfg_t shape = {.max_dim = 40u};
  sys_case_t cs;
  sys_case_make(g_seed, &shape, g_env.cfg.mem_size, &cs);
  cs.d.requant = true;
  cs.d.has_lut = true;
  tsr_gemm_plan_t plan;
  assert_int_equal(tsr_gemm_plan_opts(&g_env.dev.info, &cs.d, &cs.opts, &plan), TSR_UNSUPPORTED);
  assert_int_equal(rd(TSR_CMD_IDX_REG_OFFSET), idx);
  assert_int_equal(rd(TSR_STATUS_REG_OFFSET) & (1u << TSR_STATUS_ERROR_BIT), 0u);
}

static void random_gemms_are_bit_exact(void **state) {
  (void)state;
  sys_shape_cfg_t shape = {.max_dim = 96u, .small_pct = 40u, .small_max = 24u};
  unsigned leaky = 0;
  for (uint32_t i = 0; i < GEMMS; i++) {
    sys_case_t c;
    sys_case_make(g_seed + i, &shape, g_env.cfg.mem_size, &c);
    c.d.has_lut = false; /* the one part of the store path that needs the SFU */
    leaky += c.d.leaky ? 1u : 0u;
    sys_case_result_t res;
    char msg[512];
    if (sys_case_run(&g_env, &c, &res, msg, sizeof msg) != 0) {
      char desc[512];
      sys_case_describe(&c, desc, sizeof desc);
      fail_msg("GEMM %u (seed %u): %s\n  %s", i, c.seed, msg, desc);
    }
  }
  printf("  %u GEMMs bit-exact (%u with leaky ReLU)\n", GEMMS, leaky);
}

int main(int argc, char **argv) {
  if (sys_parse_dim_seed("test_sys_nosfu", argc, argv, &g_dim, &g_seed) != 0) {
    return 2;
  }
  tsr_sim_cfg_t cfg;
  sys_sim_cfg_default(&cfg);
  char err[512];
  if (sys_open(&g_env, g_dim, &cfg, err, sizeof err) != TSR_OK) {
    fprintf(stderr, "test_sys_nosfu: %s\n", err);
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(config_reports_no_sfu),
      cmocka_unit_test(raw_sfu_commands_stop_with_no_unit),
      cmocka_unit_test(raw_store_through_the_table_stops_with_no_unit),
      cmocka_unit_test(driver_and_firmware_refuse_before_the_chip),
      cmocka_unit_test(random_gemms_are_bit_exact),
  };
  const int failed = cmocka_run_group_tests(tests, NULL, NULL);
  sys_close(&g_env);
  if (failed != 0) {
    fprintf(stderr, "test_sys_nosfu: %d test(s) failed with seed %u (replay: --seed %u)\n", failed,
                    g_seed, g_seed);
  }
  return failed != 0;
}
