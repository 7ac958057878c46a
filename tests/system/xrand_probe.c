/* xrand_probe.c: print a hash of the accumulator's power-up contents, to show that +verilator+seed changes the initial state. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys_util.h"
#include "tessera_regs.h"
#include "tsr_driver.h"

/*
 * The accumulator memory is not reset (tsr_sram, like block RAM). Right after
 * power-up, STORE its first 16 rows as raw int32 (no bias, no requantization)
 * and print an FNV-1a hash of the bytes written, and how many are non-zero.
 * On a model Verilated with --x-initial unique and run with
 * TSR_SIM_PLUSARGS="+verilator+seed+S +verilator+rand+reset+2" the hash
 * follows S; with the default build (--x-initial fast) every byte is 0.
 *
 * usage: xrand_probe --dim N
 */

#define PROBE_ADDR 0x1000u
#define PROBE_ROWS 16u

int main(int argc, char **argv) {
  uint32_t dim = 0;
  if (argc != 3 || strcmp(argv[1], "--dim") != 0 || sys_parse_u32(argv[2], &dim) != 0 || dim == 0u) {
    fprintf(stderr, "xrand_probe: usage: xrand_probe --dim N\n");
    return 2;
  }
  tsr_sim_cfg_t cfg;
  sys_sim_cfg_default(&cfg);
  sys_env_t e;
  char err[512];
  if (sys_open(&e, dim, &cfg, err, sizeof err) != TSR_OK) {
    fprintf(stderr, "xrand_probe: %s\n", err);
    return 1;
  }
  uint32_t w[TSR_CMD_WORDS] = {TSR_OP_STORE, PROBE_ADDR, 4u * dim,
                               TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, PROBE_ROWS) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, dim), 0u, 0u, 0u,
                               TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MIN, 0x80u) | TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MAX, 0x7fu)};
  uint32_t status = 0;
  if (sys_push_raw(&e, w) != TSR_OK || sys_wait_stopped(&e, 1000000u, &status) != TSR_OK ||
      (status & (1u << TSR_STATUS_ERROR_BIT)) != 0u) {
    fprintf(stderr, "xrand_probe: the STORE did not finish (STATUS 0x%x)\n", status);
    sys_close(&e);
    return 1;
  }
  const size_t n = (size_t)PROBE_ROWS * 4u * dim;
  uint8_t *buf = malloc(n);
  if (buf == NULL || tsr_hal_mem_read(&e.hal, PROBE_ADDR, buf, n) != TSR_OK) {
    fprintf(stderr, "xrand_probe: reading the memory failed\n");
    free(buf);
    sys_close(&e);
    return 1;
  }
  uint64_t h = 0xcbf29ce484222325ull;
  size_t nonzero = 0;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ buf[i]) * 0x100000001b3ull;
    nonzero += buf[i] != 0u ? 1u : 0u;
  }
  const char *pa = getenv("TSR_SIM_PLUSARGS");
  printf("xrand_probe: accumulator power-up contents: hash %016" PRIx64 ", %zu of %zu bytes "
         "non-zero (TSR_SIM_PLUSARGS='%s')\n",
         h, nonzero, n, pa != NULL ? pa : "");
  free(buf);
  sys_close(&e);
  return 0;
}
