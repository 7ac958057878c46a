/* tsr_driver.c: Tessera driver (freestanding: no libc, no heap). */
#include "tsr_driver.h"

#include <stddef.h>

#include "tessera_regs.h"
#include "tsr_quant.h"

/* ---- One-line messages without stdio ----------------------------------------- */

static void err_clear(tsr_dev_t *dev) { dev->err[0] = '\0'; }

static void err_add(tsr_dev_t *dev, const char *s) {
  size_t len = 0u;
  while (len < TSR_DEV_ERRLEN - 1u && dev->err[len] != '\0') {
    len++;
  }
  while (*s != '\0' && len < TSR_DEV_ERRLEN - 1u) {
    dev->err[len++] = *s++;
  }
  dev->err[len] = '\0';
}

static void err_set(tsr_dev_t *dev, const char *s) {
  err_clear(dev);
  err_add(dev, s);
}

static void err_u64(tsr_dev_t *dev, uint64_t v) {
  char buf[24];
  size_t i = sizeof buf - 1u;
  buf[i] = '\0';
  do {
    /* Divide by 10 without a 64-bit division (no libgcc on RV32):
     * v = q*10 + r via shifts, exact for all uint64. */
    uint64_t q = (v >> 1) + (v >> 2);
    q += q >> 4;
    q += q >> 8;
    q += q >> 16;
    q += q >> 32;
    q >>= 3;
    uint32_t r = (uint32_t)(v - (q * 10u));
    if (r > 9u) {
      q++;
      r -= 10u;
    }
    buf[--i] = (char)('0' + r);
    v = q;
  } while (v != 0u && i > 0u);
  err_add(dev, &buf[i]);
}

static void err_u32(tsr_dev_t *dev, uint32_t v) { err_u64(dev, v); }

static void err_i32(tsr_dev_t *dev, int32_t v) {
  if (v < 0) {
    err_add(dev, "-");
    err_u64(dev, (uint64_t)(-(int64_t)v));
  } else {
    err_u64(dev, (uint64_t)v);
  }
}

static void err_hex(tsr_dev_t *dev, uint32_t v) {
  static const char digits[] = "0123456789abcdef";
  char buf[11];
  buf[0] = '0';
  buf[1] = 'x';
  for (unsigned i = 0u; i < 8u; i++) {
    buf[2u + i] = digits[(v >> (28u - 4u * i)) & 0xfu];
  }
  buf[10] = '\0';
  err_add(dev, buf);
}

/* ---- Status and error names ---------------------------------------------------- */

const char *tsr_status_str(tsr_status_t st) {
  switch (st) {
    case TSR_OK:
      return "ok";
    case TSR_BAD_ARG:
      return "bad argument";
    case TSR_BUS:
      return "register bus error";
    case TSR_TIMEOUT:
      return "timeout";
    case TSR_HW_ERROR:
      return "engine error";
    case TSR_NO_DEVICE:
      return "no device";
    case TSR_UNSUPPORTED:
      return "unsupported";
    case TSR_BAD_STATE:
      return "device in a bad state";
    case TSR_NO_MEMORY:
      return "out of memory";
    case TSR_IO:
      return "I/O error";
    case TSR_STATUS_COUNT_:
    default:
      return "unknown status";
  }
}

const char *tsr_dev_error(const tsr_dev_t *dev) {
  if (dev == NULL) {
    return "no device";
  }
  return dev->err;
}

const char *tsr_hw_error_str(uint32_t code) {
  switch (code) {
#define TSR_ERR_CASE_(name, value, msg) \
  case TSR_ERR_##name:                  \
    return #name ": " msg;
    TSR_ERR_LIST(TSR_ERR_CASE_)
#undef TSR_ERR_CASE_
    default:
      return "UNKNOWN: error code not known to this driver";
  }
}

static const char *opcode_name(uint32_t op) {
  switch (op) {
#define TSR_OP_CASE_(name, value) \
  case TSR_OP_##name:             \
    return #name;
    TSR_OP_LIST(TSR_OP_CASE_)
#undef TSR_OP_CASE_
    default:
      return "?";
  }
}

/* ---- Register helpers ------------------------------------------------------------- */

/* Why an SFU command or a STORE through the activation table cannot run. */
static const char no_sfu_msg[] =
    "this chip was built without the SFU (CONFIG.SFU = 0, tsr_top EnableSfu = 0)";

static bool dev_ready(const tsr_dev_t *dev) {
  return dev != NULL && tsr_hal_valid(&dev->hal) && dev->info.dim != 0u;
}

static tsr_status_t rd(tsr_dev_t *dev, uint32_t off, uint32_t *val) {
  dev->reg_reads++;
  tsr_status_t st = tsr_hal_read32(&dev->hal, off, val);
  if (st != TSR_OK) {
    err_set(dev, "register read at ");
    err_hex(dev, off);
    err_add(dev, " failed: ");
    err_add(dev, tsr_status_str(st));
  }
  return st;
}

static tsr_status_t wr(tsr_dev_t *dev, uint32_t off, uint32_t val) {
  dev->reg_writes++;
  tsr_status_t st = tsr_hal_write32(&dev->hal, off, val);
  if (st != TSR_OK) {
    err_set(dev, "register write at ");
    err_hex(dev, off);
    err_add(dev, " failed: ");
    err_add(dev, tsr_status_str(st));
  }
  return st;
}

static uint32_t field(uint32_t reg, uint32_t mask, uint32_t offset) {
  return (reg >> offset) & mask;
}

static bool bit(uint32_t reg, uint32_t pos) { return ((reg >> pos) & 1u) != 0u; }

/* ---- Open / reset -------------------------------------------------------------------- */

static bool is_pow2(uint32_t v) { return v != 0u && (v & (v - 1u)) == 0u; }

tsr_status_t tsr_dev_open(tsr_dev_t *dev, const tsr_hal_t *hal) {
  if (dev == NULL) {
    return TSR_BAD_ARG;
  }
  dev->hal.ops = NULL;
  dev->hal.ctx = NULL;
  dev->info.id = 0u;
  dev->info.version = 0u;
  dev->info.dim = 0u; /* marks the device as not open */
  dev->info.axi_bytes = 0u;
  dev->info.cmdq_depth = 0u;
  dev->info.spad_rows = 0u;
  dev->info.acc_rows = 0u;
  dev->info.has_sfu = false;
  dev->info.store_lanes = 0u;
  dev->poll_limit = TSR_DEFAULT_POLL_LIMIT;
  dev->cmds_pushed = 0u;
  dev->reg_reads = 0u;
  dev->reg_writes = 0u;
  dev->path = NULL;
  dev->path_ctx = NULL;
  err_clear(dev);
  if (!tsr_hal_valid(hal)) {
    err_set(dev, "open: HAL without read32/write32");
    return TSR_BAD_ARG;
  }
  dev->hal.ops = hal->ops;
  dev->hal.ctx = hal->ctx;

  uint32_t id = 0u;
  uint32_t cfg = 0u;
  uint32_t spad = 0u;
  uint32_t acc = 0u;
  uint32_t idx = 0u;
  tsr_status_t st = rd(dev, TSR_ID_REG_OFFSET, &id);
  if (st != TSR_OK) {
    return st;
  }
  uint32_t vendor = field(id, TSR_ID_VENDOR_MASK, TSR_ID_VENDOR_OFFSET);
  uint32_t major = field(id, TSR_ID_MAJOR_MASK, TSR_ID_MAJOR_OFFSET);
  uint32_t minor = field(id, TSR_ID_MINOR_MASK, TSR_ID_MINOR_OFFSET);
  if (vendor != TSR_VENDOR_ID) {
    err_set(dev, "open: ID register is ");
    err_hex(dev, id);
    err_add(dev, ", vendor is not 0x5453: no Tessera at this address");
    return TSR_NO_DEVICE;
  }
  if (major != TSR_ID_MAJOR_SUPPORTED) {
    err_set(dev, "open: register map version ");
    err_u32(dev, major);
    err_add(dev, ".");
    err_u32(dev, minor);
    err_add(dev, " is not supported (driver speaks major ");
    err_u32(dev, TSR_ID_MAJOR_SUPPORTED);
    err_add(dev, ")");
    return TSR_NO_DEVICE;
  }
  if ((st = rd(dev, TSR_CONFIG_REG_OFFSET, &cfg)) != TSR_OK ||
      (st = rd(dev, TSR_SPAD_ROWS_REG_OFFSET, &spad)) != TSR_OK ||
      (st = rd(dev, TSR_ACC_ROWS_REG_OFFSET, &acc)) != TSR_OK ||
      (st = rd(dev, TSR_CMD_IDX_REG_OFFSET, &idx)) != TSR_OK) {
    return st;
  }
  const uint32_t dim = field(cfg, TSR_CONFIG_ARRAY_DIM_MASK, TSR_CONFIG_ARRAY_DIM_OFFSET);
  const uint32_t axi_bytes = field(cfg, TSR_CONFIG_AXI_BYTES_MASK, TSR_CONFIG_AXI_BYTES_OFFSET);
  const uint32_t depth = field(cfg, TSR_CONFIG_CMDQ_DEPTH_MASK, TSR_CONFIG_CMDQ_DEPTH_OFFSET);
  const uint32_t spad_rows = field(spad, TSR_SPAD_ROWS_ROWS_MASK, TSR_SPAD_ROWS_ROWS_OFFSET);
  const uint32_t acc_rows = field(acc, TSR_ACC_ROWS_ROWS_MASK, TSR_ACC_ROWS_ROWS_OFFSET);
  const uint32_t lanes = 1u << field(cfg, TSR_CONFIG_LANES_LOG2_MASK, TSR_CONFIG_LANES_LOG2_OFFSET);
  if (dim == 0u || !is_pow2(axi_bytes) || depth == 0u || spad_rows == 0u || acc_rows == 0u ||
      dim % lanes != 0u ||
      spad_rows > TSR_CMD_LOCAL_MASK + 1u || acc_rows > TSR_CMD_LOCAL_MASK + 1u) {
    err_set(dev, "open: implausible configuration: CONFIG=");
    err_hex(dev, cfg);
    err_add(dev, " SPAD_ROWS=");
    err_u32(dev, spad);
    err_add(dev, " ACC_ROWS=");
    err_u32(dev, acc);
    return TSR_NO_DEVICE;
  }
  /* Field by field: a struct copy may become a memcpy call, which firmware lacks. */
  dev->info.id = id;
  dev->info.version = (major << 8) | minor;
  dev->info.dim = dim;
  dev->info.axi_bytes = axi_bytes;
  dev->info.cmdq_depth = depth;
  dev->info.spad_rows = spad_rows;
  dev->info.acc_rows = acc_rows;
  dev->info.has_sfu = field(cfg, TSR_CONFIG_SFU_MASK, TSR_CONFIG_SFU_OFFSET) != 0u;
  dev->info.store_lanes = lanes;
  dev->cmds_pushed = idx;
  return TSR_OK;
}

uint64_t tsr_host_reg_accesses(const tsr_dev_t *dev) {
  return dev == NULL ? 0u : dev->reg_reads + dev->reg_writes;
}

tsr_status_t tsr_reg_read(tsr_dev_t *dev, uint32_t off, uint32_t *val) {
  if (!dev_ready(dev) || val == NULL) {
    return TSR_BAD_ARG;
  }
  return rd(dev, off, val);
}

tsr_status_t tsr_reg_write(tsr_dev_t *dev, uint32_t off, uint32_t val) {
  if (!dev_ready(dev)) {
    return TSR_BAD_ARG;
  }
  return wr(dev, off, val);
}

tsr_status_t tsr_soft_reset(tsr_dev_t *dev) {
  if (!dev_ready(dev)) {
    return TSR_BAD_ARG;
  }
  err_clear(dev);
  tsr_status_t st = wr(dev, TSR_CTRL_REG_OFFSET, 1u << TSR_CTRL_SOFT_RESET_BIT);
  if (st == TSR_OK) {
    dev->cmds_pushed = 0u;
    /* The chip set RING_HEAD to RING_TAIL: what the ring had not handed over is gone. */
    if (dev->path != NULL && dev->path->reset != NULL) {
      dev->path->reset(dev);
    }
  }
  return st;
}

tsr_status_t tsr_set_dma_window(tsr_dev_t *dev, uint32_t base, uint32_t limit, bool lock) {
  if (!dev_ready(dev)) {
    return TSR_BAD_ARG;
  }
  err_clear(dev);
  if (base > limit) {
    err_set(dev, "DMA window: base ");
    err_hex(dev, base);
    err_add(dev, " is above limit ");
    err_hex(dev, limit);
    return TSR_BAD_ARG;
  }
  tsr_status_t st = wr(dev, TSR_DMA_WIN_LIMIT_REG_OFFSET, limit);
  if (st == TSR_OK) {
    st = wr(dev, TSR_DMA_WIN_BASE_REG_OFFSET, base);
  }
  if (st == TSR_OK && lock) {
    st = wr(dev, TSR_DMA_WIN_CTRL_REG_OFFSET, 1u << TSR_DMA_WIN_CTRL_LOCK_BIT);
  }
  return st;
}

/* ---- Command builders ------------------------------------------------------------------ */

static tsr_status_t bad(tsr_dev_t *dev, const char *what, const char *why) {
  err_set(dev, what);
  err_add(dev, ": ");
  err_add(dev, why);
  return TSR_BAD_ARG;
}

/* ADDR + (ROWS-1)*STRIDE + bytes must not exceed 2^32. */
static bool dram_ok(uint32_t addr, uint32_t stride, uint32_t rows, uint64_t bytes) {
  uint64_t end = (uint64_t)addr + (uint64_t)(rows - 1u) * stride + bytes;
  return end <= ((uint64_t)1 << 32);
}

static tsr_status_t check_range(tsr_dev_t *dev, const char *what, const char *field_name,
                                uint64_t end, uint32_t limit, const char *mem) {
  if (end <= limit) {
    return TSR_OK;
  }
  err_set(dev, what);
  err_add(dev, ": ");
  err_add(dev, field_name);
  err_add(dev, " = ");
  err_u64(dev, end);
  err_add(dev, " exceeds ");
  err_add(dev, mem);
  err_add(dev, " ");
  err_u32(dev, limit);
  return TSR_BAD_ARG;
}

static void cmd_zero(tsr_cmd_t *cmd) {
  for (unsigned i = 0u; i < TSR_CMD_WORDS; i++) {
    cmd->w[i] = 0u;
  }
}

tsr_status_t tsr_cmd_load(tsr_dev_t *dev, uint32_t deps, const tsr_load_args_t *a, tsr_cmd_t *cmd) {
  if (!dev_ready(dev) || a == NULL || cmd == NULL) {
    return TSR_BAD_ARG;
  }
  err_clear(dev);
  if ((deps & ~(TSR_DEP_MASK | TSR_DEP_IRQ_CMD)) != 0u) {
    return bad(dev, "LOAD", "deps has bits outside POP_PREV/POP_NEXT/PUSH_PREV/PUSH_NEXT/IRQ_CMD");
  }
  if (a->dest != TSR_LOAD_SPAD && a->dest != TSR_LOAD_ACC) {
    return bad(dev, "LOAD", "DEST must be scratchpad or accumulator");
  }
  if (a->dest == TSR_LOAD_SPAD && (deps & (TSR_DEP_POP_PREV | TSR_DEP_PUSH_PREV)) != 0u) {
    return bad(dev, "LOAD to the scratchpad",
               "the load stage has no previous stage (POP_PREV/PUSH_PREV not allowed)");
  }
  if (a->rows == 0u || a->rows > TSR_CMD_MAX_ROWS) {
    return bad(dev, "LOAD", "ROWS must be 1..65535");
  }
  if (a->cols == 0u || a->cols > TSR_CMD_MAX_ROWS) {
    return bad(dev, "LOAD", "COLS must be 1..65535");
  }
  uint32_t chunk = a->dest == TSR_LOAD_SPAD ? dev->info.dim : 4u * dev->info.dim;
  uint32_t chunks = (a->cols + chunk - 1u) / chunk;
  uint64_t end = (uint64_t)a->local + (uint64_t)chunks * a->rows;
  tsr_status_t st = a->dest == TSR_LOAD_SPAD
                        ? check_range(dev, "LOAD", "LOCAL+C*ROWS", end, dev->info.spad_rows,
                                      "SPAD_ROWS")
                        : check_range(dev, "LOAD", "LOCAL+C*ROWS", end, dev->info.acc_rows,
                                      "ACC_ROWS");
  if (st != TSR_OK) {
    return st;
  }
  if (!dram_ok(a->addr, a->stride, a->rows, a->cols)) {
    return bad(dev, "LOAD", "ADDR+(ROWS-1)*STRIDE+COLS exceeds 2^32");
  }
  cmd_zero(cmd);
  cmd->w[0] = TSR_OP_LOAD | deps | TSR_CMD_PUT(TSR_CMD_LOAD_W0_DEST, a->dest);
  cmd->w[1] = TSR_CMD_PUT(TSR_CMD_LOAD_W1_ADDR, a->addr);
  cmd->w[2] = TSR_CMD_PUT(TSR_CMD_LOAD_W2_STRIDE, a->stride);
  cmd->w[3] = TSR_CMD_PUT(TSR_CMD_LOAD_W3_ROWS, a->rows) | TSR_CMD_PUT(TSR_CMD_LOAD_W3_COLS, a->cols);
  cmd->w[4] = TSR_CMD_PUT(TSR_CMD_LOAD_W4_LOCAL, a->local);
  return TSR_OK;
}

tsr_status_t tsr_cmd_matmul(tsr_dev_t *dev, uint32_t deps, const tsr_matmul_args_t *a,
                            tsr_cmd_t *cmd) {
  if (!dev_ready(dev) || a == NULL || cmd == NULL) {
    return TSR_BAD_ARG;
  }
  err_clear(dev);
  if ((deps & ~(TSR_DEP_MASK | TSR_DEP_IRQ_CMD)) != 0u) {
    return bad(dev, "MATMUL", "deps has bits outside POP_PREV/POP_NEXT/PUSH_PREV/PUSH_NEXT/IRQ_CMD");
  }
  if (a->m == 0u || a->m > TSR_CMD_MAX_ROWS) {
    return bad(dev, "MATMUL", "M must be 1..65535");
  }
  if (!a->keep_weights && (a->k == 0u || a->k > TSR_CMD_MAX_ROWS)) {
    err_set(dev, "MATMUL: K = ");
    err_u32(dev, a->k);
    err_add(dev, " must be 1..65535");
    return TSR_BAD_ARG;
  }
  /* K rows of weights are ceil(K / N) tiles, each with its own M A rows.
   * K >= 1 here; the division is 32-bit so that the RV32 firmware needs no
   * 64-bit division from libgcc (fw-size). */
  const uint64_t tiles = a->keep_weights ? 1u : (a->k - 1u) / dev->info.dim + 1u;
  tsr_status_t st;
  if ((st = check_range(dev, "MATMUL", "A_ADDR+ceil(K/N)*M", (uint64_t)a->a_addr + tiles * a->m,
                        dev->info.spad_rows, "SPAD_ROWS")) != TSR_OK ||
      (st = check_range(dev, "MATMUL", "C_ADDR+M", (uint64_t)a->c_addr + a->m,
                        dev->info.acc_rows, "ACC_ROWS")) != TSR_OK) {
    return st;
  }
  uint32_t w_addr = 0u;
  uint32_t k = 0u;
  uint32_t n = 0u;
  if (!a->keep_weights) {
    if (a->n == 0u || a->n > dev->info.dim) {
      err_set(dev, "MATMUL: N = ");
      err_u32(dev, a->n);
      err_add(dev, " must be 1..");
      err_u32(dev, dev->info.dim);
      return TSR_BAD_ARG;
    }
    if ((st = check_range(dev, "MATMUL", "W_ADDR+K", (uint64_t)a->w_addr + a->k,
                          dev->info.spad_rows, "SPAD_ROWS")) != TSR_OK) {
      return st;
    }
    w_addr = a->w_addr;
    k = a->k;
    n = a->n;
  }
  cmd_zero(cmd);
  cmd->w[0] = TSR_OP_MATMUL | deps | TSR_CMD_PUT(TSR_CMD_MATMUL_W0_ACCUMULATE, a->accumulate ? 1u : 0u) |
              TSR_CMD_PUT(TSR_CMD_MATMUL_W0_KEEP_WEIGHTS, a->keep_weights ? 1u : 0u);
  cmd->w[1] = TSR_CMD_PUT(TSR_CMD_MATMUL_W1_A_ADDR, a->a_addr);
  cmd->w[2] = TSR_CMD_PUT(TSR_CMD_MATMUL_W2_W_ADDR, w_addr);
  cmd->w[3] = TSR_CMD_PUT(TSR_CMD_MATMUL_W3_C_ADDR, a->c_addr);
  cmd->w[4] = TSR_CMD_PUT(TSR_CMD_MATMUL_W4_M, a->m) | TSR_CMD_PUT(TSR_CMD_MATMUL_W4_K, k);
  cmd->w[5] = TSR_CMD_PUT(TSR_CMD_MATMUL_W5_N, n);
  return TSR_OK;
}

static bool is_int8(int32_t v) { return v >= -128 && v <= 127; }

tsr_status_t tsr_cmd_store(tsr_dev_t *dev, uint32_t deps, const tsr_store_args_t *a,
                           tsr_cmd_t *cmd) {
  if (!dev_ready(dev) || a == NULL || cmd == NULL) {
    return TSR_BAD_ARG;
  }
  err_clear(dev);
  if ((deps & ~(TSR_DEP_POP_PREV | TSR_DEP_PUSH_PREV | TSR_DEP_IRQ_CMD)) != 0u) {
    return bad(dev, "STORE",
               "the store stage has no next stage (only POP_PREV/PUSH_PREV allowed)");
  }
  if (a->rows == 0u || a->rows > TSR_CMD_MAX_ROWS) {
    return bad(dev, "STORE", "ROWS must be 1..65535");
  }
  if (a->cols == 0u || a->cols > dev->info.dim) {
    err_set(dev, "STORE: COLS = ");
    err_u32(dev, a->cols);
    err_add(dev, " must be 1..");
    err_u32(dev, dev->info.dim);
    return TSR_BAD_ARG;
  }
  tsr_status_t st;
  if ((st = a->spad ? check_range(dev, "STORE", "SRC+ROWS", (uint64_t)a->src + a->rows,
                                  dev->info.spad_rows, "SPAD_ROWS")
                    : check_range(dev, "STORE", "SRC+ROWS", (uint64_t)a->src + a->rows,
                                  dev->info.acc_rows, "ACC_ROWS")) != TSR_OK ||
      (st = check_range(dev, "STORE", "PARAM+3", (uint64_t)a->param + 3u, dev->info.acc_rows,
                        "ACC_ROWS")) != TSR_OK) {
    return st;
  }
  if (a->leaky && (st = check_range(dev, "STORE", "LEAKY: PARAM+5", (uint64_t)a->param + 5u,
                                     dev->info.acc_rows, "ACC_ROWS")) != TSR_OK) {
    return st;
  }
  if (a->spad && (a->bias || a->requant || a->per_channel || a->lut || a->leaky)) {
    return bad(dev, "STORE",
               "SPAD copies scratchpad bytes: no BIAS, REQUANT, PER_CHANNEL, LUT or LEAKY");
  }
  if (a->per_channel && !a->requant) {
    return bad(dev, "STORE", "PER_CHANNEL needs REQUANT");
  }
  if (a->lut && !a->requant) {
    return bad(dev, "STORE", "LUT needs REQUANT");
  }
  if (a->lut && !dev->info.has_sfu) {
    err_set(dev, "STORE: LUT: ");
    err_add(dev, no_sfu_msg);
    return TSR_UNSUPPORTED;
  }
  if (a->leaky && !a->requant) {
    return bad(dev, "STORE", "LEAKY needs REQUANT");
  }
  uint32_t w7 = 0u;
  uint32_t mult = 0u;
  if (a->requant) {
    if (a->shift < TSR_SHIFT_MIN || a->shift > TSR_SHIFT_MAX) {
      err_set(dev, "STORE: SHIFT = ");
      err_i32(dev, a->shift);
      err_add(dev, " is outside -31..30");
      return TSR_BAD_ARG;
    }
    if (!is_int8(a->out_zp) || !is_int8(a->act_min) || !is_int8(a->act_max)) {
      return bad(dev, "STORE", "OUT_ZP, ACT_MIN and ACT_MAX must be int8 (-128..127)");
    }
    if (a->act_min > a->act_max) {
      err_set(dev, "STORE: ACT_MIN ");
      err_i32(dev, a->act_min);
      err_add(dev, " > ACT_MAX ");
      err_i32(dev, a->act_max);
      return TSR_BAD_ARG;
    }
    mult = (uint32_t)a->mult;
    w7 = TSR_CMD_PUT(TSR_CMD_STORE_W7_SHIFT, (uint32_t)a->shift) |
         TSR_CMD_PUT(TSR_CMD_STORE_W7_OUT_ZP, (uint32_t)a->out_zp) |
         TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MIN, (uint32_t)a->act_min) |
         TSR_CMD_PUT(TSR_CMD_STORE_W7_ACT_MAX, (uint32_t)a->act_max);
  }
  uint64_t bytes = (uint64_t)a->cols * (a->requant || a->spad ? 1u : 4u);
  if (!dram_ok(a->addr, a->stride, a->rows, bytes)) {
    return bad(dev, "STORE", "ADDR+(ROWS-1)*STRIDE+row bytes exceeds 2^32");
  }
  cmd_zero(cmd);
  cmd->w[0] = TSR_OP_STORE | deps | TSR_CMD_PUT(TSR_CMD_STORE_W0_BIAS, a->bias ? 1u : 0u) |
              TSR_CMD_PUT(TSR_CMD_STORE_W0_REQUANT, a->requant ? 1u : 0u) |
              TSR_CMD_PUT(TSR_CMD_STORE_W0_PER_CHANNEL, a->per_channel ? 1u : 0u) |
              TSR_CMD_PUT(TSR_CMD_STORE_W0_SPAD, a->spad ? 1u : 0u) |
              TSR_CMD_PUT(TSR_CMD_STORE_W0_LUT, a->lut ? 1u : 0u) |
              TSR_CMD_PUT(TSR_CMD_STORE_W0_LEAKY, a->leaky ? 1u : 0u);
  cmd->w[1] = TSR_CMD_PUT(TSR_CMD_STORE_W1_ADDR, a->addr);
  cmd->w[2] = TSR_CMD_PUT(TSR_CMD_STORE_W2_STRIDE, a->stride);
  cmd->w[3] = TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, a->rows) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, a->cols);
  cmd->w[4] = TSR_CMD_PUT(TSR_CMD_STORE_W4_SRC, a->src);
  cmd->w[5] = TSR_CMD_PUT(TSR_CMD_STORE_W5_PARAM, a->param);
  cmd->w[6] = TSR_CMD_PUT(TSR_CMD_STORE_W6_MULT, mult);
  cmd->w[7] = w7;
  return TSR_OK;
}

static const char *sfu_name(uint32_t func) {
  switch (func) {
    case TSR_FUNC_LUT_LOAD:
      return "SFU LUT_LOAD";
    case TSR_FUNC_MAP:
      return "SFU MAP";
    case TSR_FUNC_REDUCE:
      return "SFU REDUCE";
    case TSR_FUNC_SOFTMAX:
      return "SFU SOFTMAX";
    case TSR_FUNC_LAYERNORM:
      return "SFU LAYERNORM";
    case TSR_FUNC_ADD:
      return "SFU ADD";
    case TSR_FUNC_MUL:
      return "SFU MUL";
    default:
      return "SFU";
  }
}

bool tsr_sfu_two_tensors(uint32_t func) { return func == TSR_FUNC_ADD || func == TSR_FUNC_MUL; }

uint32_t tsr_sfu_param_words(uint32_t func) {
  switch (func) {
    case TSR_FUNC_SOFTMAX:
      return TSR_SFU_SOFTMAX_WORDS;
    case TSR_FUNC_LAYERNORM:
      return TSR_SFU_LAYERNORM_WORDS;
    case TSR_FUNC_ADD:
      return TSR_SFU_ADD_WORDS;
    case TSR_FUNC_MUL:
      return TSR_SFU_MUL_WORDS;
    default:
      return 0u;
  }
}

tsr_status_t tsr_cmd_sfu(tsr_dev_t *dev, uint32_t deps, const tsr_sfu_args_t *a, tsr_cmd_t *cmd) {
  if (!dev_ready(dev) || a == NULL || cmd == NULL) {
    return TSR_BAD_ARG;
  }
  err_clear(dev);
  if ((deps & ~(TSR_DEP_MASK | TSR_DEP_IRQ_CMD)) != 0u) {
    return bad(dev, "SFU", "deps has bits outside POP_PREV/POP_NEXT/PUSH_PREV/PUSH_NEXT/IRQ_CMD");
  }
  if (!dev->info.has_sfu) {
    err_set(dev, "SFU: ");
    err_add(dev, no_sfu_msg);
    return TSR_UNSUPPORTED;
  }
  if (a->func >= TSR_FUNC_COUNT) {
    err_set(dev, "SFU: FUNC = ");
    err_u32(dev, a->func);
    err_add(dev, " is not a function (0 LUT_LOAD .. 6 MUL)");
    return TSR_BAD_ARG;
  }
  const char *what = sfu_name(a->func);
  const uint32_t dim = dev->info.dim;
  const uint32_t spad = dev->info.spad_rows;
  const uint32_t accr = dev->info.acc_rows;
  tsr_status_t st;
  if (a->func == TSR_FUNC_LUT_LOAD) {
    const uint32_t lut_rows = (TSR_SFU_LUT_ENTRIES + dim - 1u) / dim;
    if ((st = check_range(dev, what, "SRC+256/N", (uint64_t)a->src + lut_rows, spad,
                          "SPAD_ROWS")) != TSR_OK) {
      return st;
    }
    cmd_zero(cmd);
    cmd->w[0] = TSR_OP_SFU | deps | TSR_CMD_PUT(TSR_CMD_SFU_W0_FUNC, a->func);
    cmd->w[1] = TSR_CMD_PUT(TSR_CMD_SFU_W1_SRC, a->src);
    cmd->w[3] = TSR_CMD_PUT(TSR_CMD_SFU_W3_ROWS, 1u) | TSR_CMD_PUT(TSR_CMD_SFU_W3_LEN, TSR_SFU_LUT_ENTRIES);
    return TSR_OK;
  }
  if (a->rows == 0u || a->rows > TSR_CMD_MAX_ROWS) {
    return bad(dev, what, "ROWS must be 1..65535");
  }
  if (a->len == 0u || a->len > TSR_CMD_MAX_ROWS) {
    return bad(dev, what, "LEN must be 1..65535");
  }
  /* Chunk rows of one tensor row, and of the whole tensor. */
  const uint64_t c = (a->len + dim - 1u) / dim;
  const uint64_t tensor = c * a->rows;
  if ((st = check_range(dev, what, "SRC+C*ROWS", a->src + tensor, spad, "SPAD_ROWS")) != TSR_OK) {
    return st;
  }
  if (a->func == TSR_FUNC_REDUCE) {
    st = check_range(dev, what, "DST+ROWS", (uint64_t)a->dst + a->rows, accr, "ACC_ROWS");
  } else {
    st = check_range(dev, what, "DST+C*ROWS", a->dst + tensor, spad, "SPAD_ROWS");
  }
  if (st != TSR_OK) {
    return st;
  }
  uint32_t src2 = 0u;
  uint32_t param = 0u;
  uint32_t aux = 0u;
  if (tsr_sfu_two_tensors(a->func)) {
    if ((st = check_range(dev, what, "SRC2+C*ROWS", a->src2 + tensor, spad, "SPAD_ROWS")) !=
        TSR_OK) {
      return st;
    }
    src2 = a->src2;
  }
  if (a->func == TSR_FUNC_LAYERNORM) {
    if ((st = check_range(dev, what, "SRC2+C (gamma)", a->src2 + c, spad, "SPAD_ROWS")) !=
            TSR_OK ||
        (st = check_range(dev, what, "AUX+C (beta)", a->aux + c, accr, "ACC_ROWS")) != TSR_OK) {
      return st;
    }
    src2 = a->src2;
    aux = a->aux;
  }
  const uint32_t words = tsr_sfu_param_words(a->func);
  if (words != 0u) {
    const uint32_t prow = (words + dim - 1u) / dim;
    if ((st = check_range(dev, what, "PARAM+ceil(P/N)", (uint64_t)a->param + prow, accr,
                          "ACC_ROWS")) != TSR_OK) {
      return st;
    }
    param = a->param;
  }
  cmd_zero(cmd);
  cmd->w[0] = TSR_OP_SFU | deps | TSR_CMD_PUT(TSR_CMD_SFU_W0_FUNC, a->func);
  cmd->w[1] = TSR_CMD_PUT(TSR_CMD_SFU_W1_SRC, a->src);
  cmd->w[2] = TSR_CMD_PUT(TSR_CMD_SFU_W2_DST, a->dst);
  cmd->w[3] = TSR_CMD_PUT(TSR_CMD_SFU_W3_ROWS, a->rows) | TSR_CMD_PUT(TSR_CMD_SFU_W3_LEN, a->len);
  cmd->w[4] = TSR_CMD_PUT(TSR_CMD_SFU_W4_SRC2, src2);
  cmd->w[5] = TSR_CMD_PUT(TSR_CMD_SFU_W5_PARAM, param);
  cmd->w[6] = TSR_CMD_PUT(TSR_CMD_SFU_W6_AUX, aux);
  return TSR_OK;
}

tsr_status_t tsr_cmd_fence(tsr_dev_t *dev, bool irq, tsr_cmd_t *cmd) {
  if (!dev_ready(dev) || cmd == NULL) {
    return TSR_BAD_ARG;
  }
  err_clear(dev);
  cmd_zero(cmd);
  cmd->w[0] = TSR_OP_FENCE | TSR_CMD_PUT(TSR_CMD_FENCE_W0_IRQ, irq ? 1u : 0u);
  return TSR_OK;
}

tsr_status_t tsr_cmd_nop(tsr_dev_t *dev, uint32_t deps, tsr_cmd_t *cmd) {
  if (!dev_ready(dev) || cmd == NULL) {
    return TSR_BAD_ARG;
  }
  err_clear(dev);
  if ((deps & ~(TSR_DEP_MASK | TSR_DEP_IRQ_CMD)) != 0u) {
    return bad(dev, "NOP", "deps has bits outside POP_PREV/POP_NEXT/PUSH_PREV/PUSH_NEXT/IRQ_CMD");
  }
  cmd_zero(cmd);
  cmd->w[0] = TSR_OP_NOP | deps;
  return TSR_OK;
}

/* ---- Errors ------------------------------------------------------------------------------ */

tsr_status_t tsr_read_error(tsr_dev_t *dev, uint32_t *code, uint32_t *cmd_idx, uint32_t *addr) {
  if (!dev_ready(dev)) {
    return TSR_BAD_ARG;
  }
  uint32_t c = 0u;
  uint32_t i = 0u;
  uint32_t a = 0u;
  tsr_status_t st;
  if ((st = rd(dev, TSR_ERR_CODE_REG_OFFSET, &c)) != TSR_OK ||
      (st = rd(dev, TSR_ERR_CMD_IDX_REG_OFFSET, &i)) != TSR_OK ||
      (st = rd(dev, TSR_ERR_ADDR_REG_OFFSET, &a)) != TSR_OK) {
    return st;
  }
  if (code != NULL) {
    *code = field(c, TSR_ERR_CODE_CODE_MASK, TSR_ERR_CODE_CODE_OFFSET);
  }
  if (cmd_idx != NULL) {
    *cmd_idx = i;
  }
  if (addr != NULL) {
    *addr = a;
  }
  return TSR_OK;
}

/* Read the error registers and leave "engine stopped: <code>: ... at command I" in dev->err. */
static tsr_status_t report_hw_error(tsr_dev_t *dev) {
  uint32_t code = 0u;
  uint32_t idx = 0u;
  uint32_t addr = 0u;
  tsr_status_t st = tsr_read_error(dev, &code, &idx, &addr);
  if (st != TSR_OK) {
    return st;
  }
  err_set(dev, "engine stopped with ERR_CODE ");
  err_u32(dev, code);
  err_add(dev, " (");
  err_add(dev, tsr_hw_error_str(code));
  err_add(dev, ") at command ");
  err_u32(dev, idx);
  if (code == TSR_ERR_BUS_READ || code == TSR_ERR_BUS_WRITE || code == TSR_ERR_FETCH_BUS ||
      code == TSR_ERR_RING_WINDOW || code == TSR_ERR_RING_ALIGN || code == TSR_ERR_RING_TAIL ||
      addr != 0u) {
    err_add(dev, ", ERR_ADDR ");
    err_hex(dev, addr);
  }
  return TSR_HW_ERROR;
}

/* Leave "<what>: STATUS=..., executing command CMD_IDX (OPCODE n NAME)" in dev->err. */
static tsr_status_t report_timeout(tsr_dev_t *dev, const char *what, uint64_t count,
                                   const char *unit) {
  uint32_t status = 0u;
  uint32_t idx = 0u;
  uint32_t op = 0u;
  tsr_status_t st;
  if ((st = rd(dev, TSR_STATUS_REG_OFFSET, &status)) != TSR_OK ||
      (st = rd(dev, TSR_CMD_IDX_REG_OFFSET, &idx)) != TSR_OK ||
      (st = rd(dev, TSR_OPCODE_REG_OFFSET, &op)) != TSR_OK) {
    return st;
  }
  op = field(op, TSR_OPCODE_OP_MASK, TSR_OPCODE_OP_OFFSET);
  err_set(dev, what);
  err_add(dev, " after ");
  err_u64(dev, count);
  err_add(dev, " ");
  err_add(dev, unit);
  err_add(dev, ": STATUS=");
  err_hex(dev, status);
  err_add(dev, ", executing command ");
  err_u32(dev, idx);
  err_add(dev, " (OPCODE ");
  err_u32(dev, op);
  err_add(dev, " ");
  err_add(dev, opcode_name(op));
  err_add(dev, ")");
  return TSR_TIMEOUT;
}

/* ---- Submit and wait ------------------------------------------------------------------------ */

tsr_status_t tsr_submit(tsr_dev_t *dev, const tsr_cmd_t *cmd) {
  if (!dev_ready(dev) || cmd == NULL) {
    return TSR_BAD_ARG;
  }
  err_clear(dev);
  if (dev->path != NULL) {
    return dev->path->submit(dev, cmd);
  }
  uint32_t polls = 0u;
  for (;;) {
    uint32_t q = 0u;
    tsr_status_t st = rd(dev, TSR_CMDQ_STATUS_REG_OFFSET, &q);
    if (st != TSR_OK) {
      return st;
    }
    uint32_t words = field(q, TSR_CMDQ_STATUS_WORDS_MASK, TSR_CMDQ_STATUS_WORDS_OFFSET);
    if (words != 0u) {
      err_set(dev, "submit: CMDQ_STATUS.WORDS = ");
      err_u32(dev, words);
      err_add(dev, ": a partial command sits in the queue port (soft reset needed)");
      return TSR_BAD_STATE;
    }
    if (field(q, TSR_CMDQ_STATUS_FREE_MASK, TSR_CMDQ_STATUS_FREE_OFFSET) != 0u) {
      break;
    }
    /* Full: an engine stopped on an error never drains, so look before waiting on. */
    uint32_t status = 0u;
    if ((st = rd(dev, TSR_STATUS_REG_OFFSET, &status)) != TSR_OK) {
      return st;
    }
    if (bit(status, TSR_STATUS_ERROR_BIT)) {
      return report_hw_error(dev);
    }
    if (++polls >= dev->poll_limit) {
      return report_timeout(dev, "submit: command queue still full", polls, "polls");
    }
  }
  for (unsigned i = 0u; i < TSR_CMD_WORDS; i++) {
    tsr_status_t st = wr(dev, TSR_CMDQ_PUSH_REG_OFFSET, cmd->w[i]);
    if (st != TSR_OK) {
      err_add(dev, " (word ");
      err_u32(dev, i);
      err_add(dev, " of command ");
      err_u32(dev, dev->cmds_pushed);
      err_add(dev, ")");
      return st;
    }
  }
  dev->cmds_pushed++;
  return TSR_OK;
}

static tsr_status_t wait_poll(tsr_dev_t *dev, uint64_t max) {
  uint64_t limit = max != 0u ? max : dev->poll_limit;
  for (uint64_t i = 0u; i < limit; i++) {
    uint32_t status = 0u;
    tsr_status_t st = rd(dev, TSR_STATUS_REG_OFFSET, &status);
    if (st != TSR_OK) {
      return st;
    }
    if (bit(status, TSR_STATUS_ERROR_BIT)) {
      return report_hw_error(dev);
    }
    if (!bit(status, TSR_STATUS_BUSY_BIT)) {
      return TSR_OK;
    }
  }
  return report_timeout(dev, "wait: engine still busy", limit, "STATUS reads");
}

/* Clear IRQ_STATUS.DONE/ERROR (write 1 to clear) and report the engine state. */
static tsr_status_t irq_ack_and_check(tsr_dev_t *dev, bool *idle) {
  const uint32_t causes = (1u << TSR_IRQ_STATUS_DONE_BIT) | (1u << TSR_IRQ_STATUS_ERROR_BIT);
  uint32_t irq = 0u;
  uint32_t status = 0u;
  tsr_status_t st;
  if ((st = rd(dev, TSR_IRQ_STATUS_REG_OFFSET, &irq)) != TSR_OK) {
    return st;
  }
  if ((irq & causes) != 0u && (st = wr(dev, TSR_IRQ_STATUS_REG_OFFSET, irq & causes)) != TSR_OK) {
    return st;
  }
  if ((st = rd(dev, TSR_STATUS_REG_OFFSET, &status)) != TSR_OK) {
    return st;
  }
  if (bit(status, TSR_STATUS_ERROR_BIT)) {
    return report_hw_error(dev);
  }
  *idle = !bit(status, TSR_STATUS_BUSY_BIT);
  return TSR_OK;
}

static tsr_status_t wait_irq(tsr_dev_t *dev, uint64_t max) {
  const uint32_t want = (1u << TSR_IRQ_ENABLE_DONE_BIT) | (1u << TSR_IRQ_ENABLE_ERROR_BIT);
  uint32_t old_en = 0u;
  tsr_status_t st;
  if ((st = rd(dev, TSR_IRQ_ENABLE_REG_OFFSET, &old_en)) != TSR_OK ||
      (st = wr(dev, TSR_IRQ_ENABLE_REG_OFFSET, old_en | want)) != TSR_OK) {
    return st;
  }
  /* A DONE left over from an earlier idle moment (the queue ran dry between
   * two submits) wakes us spuriously: acknowledge it and sleep again. After
   * the first acknowledgement only a real idle or error can raise the line,
   * so a few rounds suffice. */
  bool idle = false;
  st = irq_ack_and_check(dev, &idle);
  for (unsigned round = 0u; st == TSR_OK && !idle && round < 4u; round++) {
    tsr_status_t w = dev->hal.ops->wait_irq(dev->hal.ctx, max);
    if (w != TSR_OK && w != TSR_TIMEOUT) {
      err_set(dev, "wait: wait_irq failed: ");
      err_add(dev, tsr_status_str(w));
      st = w;
      break;
    }
    st = irq_ack_and_check(dev, &idle);
    if (st == TSR_OK && !idle && w == TSR_TIMEOUT) {
      st = report_timeout(dev, "wait: no interrupt", max, "cycles");
    }
  }
  if (st == TSR_OK && !idle) {
    st = report_timeout(dev, "wait: interrupt without idle engine", 4u, "wake-ups");
  }
  /* Restore the caller's mask; keep the first failure as the result. */
  dev->reg_writes++;
  tsr_status_t rs = tsr_hal_write32(&dev->hal, TSR_IRQ_ENABLE_REG_OFFSET, old_en);
  if (st == TSR_OK && rs != TSR_OK) {
    err_set(dev, "wait: restoring IRQ_ENABLE failed");
    st = rs;
  }
  return st;
}

tsr_status_t tsr_wait(tsr_dev_t *dev, tsr_wait_mode_t mode, uint64_t max) {
  if (!dev_ready(dev) || (mode != TSR_WAIT_POLL && mode != TSR_WAIT_IRQ)) {
    return TSR_BAD_ARG;
  }
  err_clear(dev);
  if (dev->path != NULL && dev->path->flush != NULL) {
    tsr_status_t st = dev->path->flush(dev);
    if (st != TSR_OK) {
      return st;
    }
  }
  if (mode == TSR_WAIT_IRQ && dev->hal.ops->wait_irq != NULL) {
    return wait_irq(dev, max);
  }
  return wait_poll(dev, max);
}

/* ---- Counters --------------------------------------------------------------------------------- */

static tsr_status_t read64(tsr_dev_t *dev, uint32_t lo_off, uint32_t hi_off, uint64_t *out) {
  for (unsigned attempt = 0u; attempt < 4u; attempt++) {
    uint32_t hi1 = 0u;
    uint32_t lo = 0u;
    uint32_t hi2 = 0u;
    tsr_status_t st;
    if ((st = rd(dev, hi_off, &hi1)) != TSR_OK || (st = rd(dev, lo_off, &lo)) != TSR_OK ||
        (st = rd(dev, hi_off, &hi2)) != TSR_OK) {
      return st;
    }
    if (hi1 == hi2) {
      *out = ((uint64_t)hi1 << 32) | lo;
      return TSR_OK;
    }
  }
  err_set(dev, "counter at ");
  err_hex(dev, lo_off);
  err_add(dev, ": high word changed on every one of 4 reads");
  return TSR_BAD_STATE;
}

tsr_status_t tsr_counters_read(tsr_dev_t *dev, tsr_counters_t *c) {
  if (!dev_ready(dev) || c == NULL) {
    return TSR_BAD_ARG;
  }
  err_clear(dev);
  static const struct {
    uint32_t lo, hi;
    size_t field;
  } k_regs[] = {
      {TSR_CNT_CYCLES_LO_REG_OFFSET, TSR_CNT_CYCLES_HI_REG_OFFSET, offsetof(tsr_counters_t, cycles)},
      {TSR_CNT_BUSY_LO_REG_OFFSET, TSR_CNT_BUSY_HI_REG_OFFSET, offsetof(tsr_counters_t, busy)},
      {TSR_CNT_MACS_LO_REG_OFFSET, TSR_CNT_MACS_HI_REG_OFFSET, offsetof(tsr_counters_t, macs)},
      {TSR_CNT_DMA_RD_LO_REG_OFFSET, TSR_CNT_DMA_RD_HI_REG_OFFSET, offsetof(tsr_counters_t, dma_rd)},
      {TSR_CNT_DMA_WR_LO_REG_OFFSET, TSR_CNT_DMA_WR_HI_REG_OFFSET, offsetof(tsr_counters_t, dma_wr)},
      {TSR_CNT_CMDS_LO_REG_OFFSET, TSR_CNT_CMDS_HI_REG_OFFSET, offsetof(tsr_counters_t, cmds)},
      {TSR_CNT_ARRAY_LO_REG_OFFSET, TSR_CNT_ARRAY_HI_REG_OFFSET, offsetof(tsr_counters_t, array)},
      {TSR_CNT_FILL_LO_REG_OFFSET, TSR_CNT_FILL_HI_REG_OFFSET, offsetof(tsr_counters_t, fill)},
      {TSR_CNT_LOAD_WAIT_LO_REG_OFFSET, TSR_CNT_LOAD_WAIT_HI_REG_OFFSET,
       offsetof(tsr_counters_t, load_wait)},
      {TSR_CNT_STORE_LO_REG_OFFSET, TSR_CNT_STORE_HI_REG_OFFSET, offsetof(tsr_counters_t, store)},
      {TSR_CNT_SFU_LO_REG_OFFSET, TSR_CNT_SFU_HI_REG_OFFSET, offsetof(tsr_counters_t, sfu)},
      {TSR_CNT_CTRL_LO_REG_OFFSET, TSR_CNT_CTRL_HI_REG_OFFSET, offsetof(tsr_counters_t, ctrl)},
      {TSR_CNT_RD_STALL_LO_REG_OFFSET, TSR_CNT_RD_STALL_HI_REG_OFFSET,
       offsetof(tsr_counters_t, rd_stall)},
      {TSR_CNT_WR_STALL_LO_REG_OFFSET, TSR_CNT_WR_STALL_HI_REG_OFFSET,
       offsetof(tsr_counters_t, wr_stall)},
  };
  for (size_t i = 0; i < sizeof k_regs / sizeof k_regs[0]; i++) {
    tsr_status_t st = read64(dev, k_regs[i].lo, k_regs[i].hi,
                             (uint64_t *)(void *)((char *)c + k_regs[i].field));
    if (st != TSR_OK) {
      return st;
    }
  }
  return TSR_OK;
}

tsr_status_t tsr_counters_clear(tsr_dev_t *dev) {
  if (!dev_ready(dev)) {
    return TSR_BAD_ARG;
  }
  err_clear(dev);
  return wr(dev, TSR_CTRL_REG_OFFSET, 1u << TSR_CTRL_COUNTERS_CLEAR_BIT);
}

/* ---- Requantization ------------------------------------------------------------------------------ */

tsr_status_t tsr_requant_multiplier(double real_scale, int32_t *mult, int32_t *shift) {
  if (mult == NULL || shift == NULL) {
    return TSR_BAD_ARG;
  }
  int32_t m = 0;
  int s = 0;
  if (tsr_quantize_multiplier(real_scale, &m, &s) != 0) {
    return TSR_BAD_ARG;
  }
  if (s < TSR_SHIFT_MIN || s > TSR_SHIFT_MAX) {
    return TSR_BAD_ARG;
  }
  *mult = m;
  *shift = (int32_t)s;
  return TSR_OK;
}
