/* tsr_fw_cmd.h: firmware-internal helpers shared by the GEMM and SFU runners (not a public API). */
#ifndef TSR_FW_CMD_H
#define TSR_FW_CMD_H

#include "tsr_fw.h"

static inline uint32_t min32(uint32_t a, uint32_t b) { return a < b ? a : b; }

static inline uint32_t ceil_div(uint32_t a, uint32_t b) { return a / b + (a % b != 0u ? 1u : 0u); }

/* dev->err = a followed by b (b may be NULL), truncated to TSR_DEV_ERRLEN - 1 characters. */
static inline void set_err(tsr_dev_t *dev, const char *a, const char *b) {
  size_t i = 0u;
  while (*a != '\0' && i < TSR_DEV_ERRLEN - 1u) {
    dev->err[i++] = *a++;
  }
  while (b != NULL && *b != '\0' && i < TSR_DEV_ERRLEN - 1u) {
    dev->err[i++] = *b++;
  }
  dev->err[i] = '\0';
}

/* Pack a LOAD (docs/commands.md) and submit it; the driver's status on failure. */
static inline tsr_status_t tsr_fw_push_load(tsr_dev_t *dev, uint32_t deps, tsr_load_dest_t dest,
                                            uint32_t addr, uint32_t stride, uint32_t rows,
                                            uint32_t cols, uint32_t local) {
  tsr_load_args_t a;
  a.dest = dest;
  a.addr = addr;
  a.stride = stride;
  a.rows = rows;
  a.cols = cols;
  a.local = local;
  /* Rows of one whole chunk each, back to back in memory, land in consecutive local rows:
   * as one row of all their bytes they land the same (chunk c at LOCAL + c) and move in
   * long bursts instead of one burst per row. */
  const uint32_t chunk = dev == NULL              ? 0u
                         : dest == TSR_LOAD_SPAD ? dev->info.dim
                                                 : 4u * dev->info.dim;
  if (chunk != 0u && rows > 1u && cols == chunk && stride == cols && rows <= 0xffffu / chunk) {
    a.rows = 1u;
    a.cols = rows * chunk;
  }
  tsr_cmd_t cmd;
  tsr_status_t st = tsr_cmd_load(dev, deps, &a, &cmd);
  if (st == TSR_OK) {
    st = tsr_submit(dev, &cmd);
  }
  return st;
}

#endif /* TSR_FW_CMD_H */
