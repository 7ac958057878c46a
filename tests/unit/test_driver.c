/* test_driver.c: driver unit tests against a fake HAL that emulates the register file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tessera_regs.h"
#include "tsr_driver.h"

/* ---- Fake register file ------------------------------------------------------------- */

#define NREGS (0x1000u / 4u)
#define LOG_MAX 4096u
#define SCRIPT_MAX 64u

typedef struct access {
  char kind; /* 'r' or 'w' */
  uint32_t off;
  uint32_t val;
} access_t;

typedef struct fake {
  uint32_t regs[NREGS];
  /* Scripted read values: the first unconsumed entry for an offset wins,
   * then the plain register value. */
  uint32_t script_off[SCRIPT_MAX];
  uint32_t script_val[SCRIPT_MAX];
  bool script_used[SCRIPT_MAX];
  unsigned nscript;
  access_t log[LOG_MAX];
  unsigned nlog;
  int64_t fail_read_off;  /* -1: none */
  int64_t fail_write_off; /* -1: none */
  /* wait_irq behaviour: per call, what to do. */
  unsigned irq_calls;
  unsigned irq_plan_n;
  struct {
    tsr_status_t ret;
    uint32_t status; /* STATUS after the wake-up */
    uint32_t irq;    /* IRQ_STATUS bits set at the wake-up */
  } irq_plan[8];
  uint32_t irq_enable_at_wait[8];
} fake_t;

static fake_t g_fake;

static void script(uint32_t off, uint32_t val) {
  assert_true(g_fake.nscript < SCRIPT_MAX);
  g_fake.script_off[g_fake.nscript] = off;
  g_fake.script_val[g_fake.nscript] = val;
  g_fake.script_used[g_fake.nscript] = false;
  g_fake.nscript++;
}

static void log_access(char kind, uint32_t off, uint32_t val) {
  if (g_fake.nlog < LOG_MAX) {
    g_fake.log[g_fake.nlog].kind = kind;
    g_fake.log[g_fake.nlog].off = off;
    g_fake.log[g_fake.nlog].val = val;
    g_fake.nlog++;
  }
}

static tsr_status_t fake_read32(void *ctx, uint32_t off, uint32_t *val) {
  fake_t *f = ctx;
  if ((int64_t)off == f->fail_read_off) {
    return TSR_BUS;
  }
  uint32_t v = f->regs[off / 4u];
  for (unsigned i = 0; i < f->nscript; i++) {
    if (!f->script_used[i] && f->script_off[i] == off) {
      f->script_used[i] = true;
      v = f->script_val[i];
      break;
    }
  }
  log_access('r', off, v);
  *val = v;
  return TSR_OK;
}

static tsr_status_t fake_write32(void *ctx, uint32_t off, uint32_t val) {
  fake_t *f = ctx;
  if ((int64_t)off == f->fail_write_off) {
    return TSR_BUS;
  }
  log_access('w', off, val);
  if (off == TSR_IRQ_STATUS_REG_OFFSET) {
    f->regs[off / 4u] &= ~val; /* write 1 to clear */
  } else if (off != TSR_CMDQ_PUSH_REG_OFFSET && off != TSR_CTRL_REG_OFFSET) {
    f->regs[off / 4u] = val;
  }
  return TSR_OK;
}

static tsr_status_t fake_wait_irq(void *ctx, uint64_t max) {
  fake_t *f = ctx;
  (void)max;
  unsigned i = f->irq_calls++;
  assert_true(i < f->irq_plan_n);
  f->irq_enable_at_wait[i] = f->regs[TSR_IRQ_ENABLE_REG_OFFSET / 4u];
  f->regs[TSR_STATUS_REG_OFFSET / 4u] = f->irq_plan[i].status;
  f->regs[TSR_IRQ_STATUS_REG_OFFSET / 4u] |= f->irq_plan[i].irq;
  return f->irq_plan[i].ret;
}

static const tsr_hal_ops_t k_ops_irq = {
    .name = "fake",
    .read32 = fake_read32,
    .write32 = fake_write32,
    .wait_irq = fake_wait_irq,
};
static const tsr_hal_ops_t k_ops_poll = {
    .name = "fake-poll",
    .read32 = fake_read32,
    .write32 = fake_write32,
};

#define REG(name) g_fake.regs[TSR_##name##_REG_OFFSET / 4u]
#define STATUS_BUSY (1u << TSR_STATUS_BUSY_BIT)
#define STATUS_DONE (1u << TSR_STATUS_DONE_BIT)
#define STATUS_ERROR (1u << TSR_STATUS_ERROR_BIT)
#define IRQ_DONE (1u << TSR_IRQ_STATUS_DONE_BIT)
#define IRQ_ERROR (1u << TSR_IRQ_STATUS_ERROR_BIT)
#define IRQ_FENCE (1u << TSR_IRQ_STATUS_FENCE_BIT)

static void fake_reset(uint32_t dim, uint32_t spad, uint32_t acc) {
  memset(&g_fake, 0, sizeof g_fake);
  g_fake.fail_read_off = -1;
  g_fake.fail_write_off = -1;
  REG(ID) = (0x5453u << 16) | (1u << 8) | 3u;
  uint32_t lanes_log2 = 0u; /* N lanes, the default build */
  while ((2u << lanes_log2) <= dim) {
    lanes_log2++;
  }
  REG(CONFIG) = dim | (8u << 8) | (16u << 16) | (1u << TSR_CONFIG_SFU_OFFSET) |
                (lanes_log2 << TSR_CONFIG_LANES_LOG2_OFFSET);
  REG(SPAD_ROWS) = spad;
  REG(ACC_ROWS) = acc;
  REG(CMDQ_STATUS) = 16u; /* FREE = 16, WORDS = 0 */
}

static tsr_hal_t g_hal;
static tsr_dev_t g_dev;

/* Open a device of the given size on the fake; clears the access log. */
static void open_dev(uint32_t dim, uint32_t spad, uint32_t acc, bool with_irq) {
  fake_reset(dim, spad, acc);
  g_hal.ops = with_irq ? &k_ops_irq : &k_ops_poll;
  g_hal.ctx = &g_fake;
  assert_int_equal(tsr_dev_open(&g_dev, &g_hal), TSR_OK);
  g_fake.nlog = 0;
}

static unsigned count_writes(uint32_t off) {
  unsigned n = 0;
  for (unsigned i = 0; i < g_fake.nlog; i++) {
    n += (g_fake.log[i].kind == 'w' && g_fake.log[i].off == off) ? 1u : 0u;
  }
  return n;
}

static unsigned count_reads(uint32_t off) {
  unsigned n = 0;
  for (unsigned i = 0; i < g_fake.nlog; i++) {
    n += (g_fake.log[i].kind == 'r' && g_fake.log[i].off == off) ? 1u : 0u;
  }
  return n;
}

static void assert_err_contains(const char *needle) {
  const char *msg = tsr_dev_error(&g_dev);
  if (strstr(msg, needle) == NULL) {
    fail_msg("error message \"%s\" lacks \"%s\"", msg, needle);
  }
}

/* ---- open ------------------------------------------------------------------------------ */

static void open_reads_id_config_and_memory_sizes(void **state) {
  (void)state;
  open_dev(16, 4096, 1024, true);
  assert_int_equal(g_dev.info.dim, 16);
  assert_int_equal(g_dev.info.axi_bytes, 8);
  assert_int_equal(g_dev.info.cmdq_depth, 16);
  assert_int_equal(g_dev.info.spad_rows, 4096);
  assert_int_equal(g_dev.info.acc_rows, 1024);
  assert_int_equal(g_dev.info.version, 0x0103);
  assert_int_equal(g_dev.info.id, 0x54530103u);
  assert_true(g_dev.info.has_sfu);
  assert_int_equal(g_dev.info.store_lanes, 16);
}

/* CONFIG.SFU = 0: every SFU command and a STORE through the table are refused
 * before anything reaches the chip; the rest of the command set is unchanged. */
static void a_chip_without_the_sfu_refuses_its_commands(void **state) {
  (void)state;
  fake_reset(8, 4096, 1024);
  REG(CONFIG) &= ~(1u << TSR_CONFIG_SFU_OFFSET);
  g_hal.ops = &k_ops_poll;
  g_hal.ctx = &g_fake;
  assert_int_equal(tsr_dev_open(&g_dev, &g_hal), TSR_OK);
  assert_false(g_dev.info.has_sfu);
  g_fake.nlog = 0;
  tsr_cmd_t c;
  for (uint32_t f = 0; f < TSR_FUNC_COUNT; f++) {
    tsr_sfu_args_t a = {.func = f, .rows = 1u, .len = 8u, .dst = 100u, .param = 10u};
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_UNSUPPORTED);
    assert_err_contains("SFU: this chip was built without the SFU (CONFIG.SFU = 0");
  }
  tsr_store_args_t st = {.addr = 0x1000u, .stride = 8u, .rows = 1u, .cols = 8u, .param = 8u,
                         .requant = true, .mult = 0x40000000, .act_min = -128,
                         .act_max = 127, .lut = true};
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &st, &c), TSR_UNSUPPORTED);
  assert_err_contains("STORE: LUT: this chip was built without the SFU");
  st.lut = false;
  st.leaky = true; /* leaky needs no table: the requantizer does it */
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &st, &c), TSR_OK);
  assert_int_equal(g_fake.nlog, 0);
}

static void open_rejects_wrong_vendor(void **state) {
  (void)state;
  fake_reset(8, 4096, 1024);
  REG(ID) = (0x5454u << 16) | (1u << 8);
  g_hal.ops = &k_ops_poll;
  g_hal.ctx = &g_fake;
  assert_int_equal(tsr_dev_open(&g_dev, &g_hal), TSR_NO_DEVICE);
  assert_err_contains("vendor");
  /* A device that failed to open refuses every later call. */
  tsr_cmd_t cmd;
  assert_int_equal(tsr_cmd_nop(&g_dev, 0, &cmd), TSR_BAD_ARG);
  assert_int_equal(tsr_wait(&g_dev, TSR_WAIT_POLL, 1), TSR_BAD_ARG);
}

static void open_rejects_wrong_major(void **state) {
  (void)state;
  fake_reset(8, 4096, 1024);
  REG(ID) = (0x5453u << 16) | (2u << 8);
  g_hal.ops = &k_ops_poll;
  g_hal.ctx = &g_fake;
  assert_int_equal(tsr_dev_open(&g_dev, &g_hal), TSR_NO_DEVICE);
  assert_err_contains("version 2.0");
}

static void open_rejects_implausible_config(void **state) {
  (void)state;
  fake_reset(0, 4096, 1024); /* ARRAY_DIM 0 */
  g_hal.ops = &k_ops_poll;
  g_hal.ctx = &g_fake;
  assert_int_equal(tsr_dev_open(&g_dev, &g_hal), TSR_NO_DEVICE);
  fake_reset(8, 0, 1024); /* no scratchpad */
  assert_int_equal(tsr_dev_open(&g_dev, &g_hal), TSR_NO_DEVICE);
  fake_reset(8, 4096, 1024);
  REG(CONFIG) = 8u | (12u << 8) | (16u << 16); /* AXI_BYTES 12 is not a power of two */
  assert_int_equal(tsr_dev_open(&g_dev, &g_hal), TSR_NO_DEVICE);
  REG(CONFIG) = 8u | (8u << 8) | (16u << 16) | (4u << TSR_CONFIG_LANES_LOG2_OFFSET); /* 16 lanes, N = 8 */
  assert_int_equal(tsr_dev_open(&g_dev, &g_hal), TSR_NO_DEVICE);
  REG(CONFIG) = 8u | (8u << 8) | (16u << 16) | (1u << TSR_CONFIG_LANES_LOG2_OFFSET); /* 2 lanes: good */
  assert_int_equal(tsr_dev_open(&g_dev, &g_hal), TSR_OK);
  assert_int_equal(g_dev.info.store_lanes, 2);
}

static void open_reports_bus_error_and_bad_hal(void **state) {
  (void)state;
  fake_reset(8, 4096, 1024);
  g_fake.fail_read_off = TSR_ID_REG_OFFSET;
  g_hal.ops = &k_ops_poll;
  g_hal.ctx = &g_fake;
  assert_int_equal(tsr_dev_open(&g_dev, &g_hal), TSR_BUS);
  assert_err_contains("0x00000000");
  tsr_hal_t empty = {0};
  assert_int_equal(tsr_dev_open(&g_dev, &empty), TSR_BAD_ARG);
  assert_int_equal(tsr_dev_open(NULL, &g_hal), TSR_BAD_ARG);
}

/* ---- command packing -------------------------------------------------------------------- */

/* A roomy device so every field can hold a distinctive value. */
#define BIG_DIM 16u
#define BIG_MEM (1u << 24)

static void load_packs_every_field(void **state) {
  (void)state;
  open_dev(BIG_DIM, BIG_MEM, BIG_MEM, false);
  tsr_load_args_t a = {.dest = TSR_LOAD_SPAD, .addr = 0x12345678u, .stride = 0x9ab0u,
                       .rows = 0x1234u, .cols = 0x0567u, .local = 0xabcdeu};
  tsr_cmd_t c;
  assert_int_equal(tsr_cmd_load(&g_dev, TSR_DEP_POP_NEXT | TSR_DEP_PUSH_NEXT, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00000a01u); /* opcode 1, POP_NEXT bit 9, PUSH_NEXT bit 11, DEST 0 */
  assert_int_equal(c.w[1], 0x12345678u);
  assert_int_equal(c.w[2], 0x00009ab0u);
  assert_int_equal(c.w[3], 0x05671234u); /* ROWS 15:0, COLS 31:16 */
  assert_int_equal(c.w[4], 0x000abcdeu);
  for (unsigned i = 5; i < 8; i++) {
    assert_int_equal(c.w[i], 0u);
  }
  a.dest = TSR_LOAD_ACC;
  a.cols = 0xfff0u;
  a.rows = 3u;
  assert_int_equal(tsr_cmd_load(&g_dev, TSR_DEP_POP_PREV | TSR_DEP_PUSH_PREV, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00010501u); /* DEST bit 16, POP_PREV bit 8, PUSH_PREV bit 10 */
  assert_int_equal(c.w[3], 0xfff00003u);
}

static void matmul_packs_every_field(void **state) {
  (void)state;
  open_dev(BIG_DIM, BIG_MEM, BIG_MEM, false);
  tsr_matmul_args_t a = {.a_addr = 0x123456u, .w_addr = 0x234567u, .c_addr = 0x345678u,
                         .m = 0xfedcu, .k = 13u, .n = 11u, .accumulate = true};
  tsr_cmd_t c;
  assert_int_equal(tsr_cmd_matmul(&g_dev, TSR_DEP_POP_PREV, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00010102u); /* ACCUMULATE bit 16 */
  assert_int_equal(c.w[1], 0x123456u);
  assert_int_equal(c.w[2], 0x234567u);
  assert_int_equal(c.w[3], 0x345678u);
  assert_int_equal(c.w[4], 0x000dfedcu); /* M 15:0, K 31:16 */
  assert_int_equal(c.w[5], 11u);
  assert_int_equal(c.w[6], 0u);
  assert_int_equal(c.w[7], 0u);
  a.accumulate = false;
  a.keep_weights = true;
  a.k = 0; /* ignored with KEEP_WEIGHTS */
  assert_int_equal(tsr_cmd_matmul(&g_dev, TSR_DEP_PUSH_NEXT | TSR_DEP_POP_NEXT, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00020a02u); /* KEEP_WEIGHTS bit 17 */
  assert_int_equal(c.w[2], 0u);
  assert_int_equal(c.w[4], 0x0000fedcu);
  assert_int_equal(c.w[5], 0u);
}

static void store_packs_every_field(void **state) {
  (void)state;
  open_dev(BIG_DIM, BIG_MEM, BIG_MEM, false);
  tsr_store_args_t a = {.addr = 0x0badf00du, .stride = 0x321u, .rows = 0x4321u, .cols = 15u,
                        .src = 0x10203u, .param = 0x30405u, .bias = true, .requant = true,
                        .per_channel = true, .mult = (int32_t)0x87654321u, .shift = -31,
                        .out_zp = -128, .act_min = -100, .act_max = 127};
  tsr_cmd_t c;
  assert_int_equal(tsr_cmd_store(&g_dev, TSR_DEP_POP_PREV | TSR_DEP_PUSH_PREV, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00070503u); /* BIAS 16, REQUANT 17, PER_CHANNEL 18 */
  assert_int_equal(c.w[1], 0x0badf00du);
  assert_int_equal(c.w[2], 0x321u);
  assert_int_equal(c.w[3], 0x000f4321u);
  assert_int_equal(c.w[4], 0x10203u);
  assert_int_equal(c.w[5], 0x30405u);
  assert_int_equal(c.w[6], 0x87654321u);
  /* SHIFT 7:0 = -31 (0xe1), OUT_ZP 15:8 = -128 (0x80), ACT_MIN 23:16 = -100 (0x9c), ACT_MAX 31:24 = 127 */
  assert_int_equal(c.w[7], 0x7f9c80e1u);
  a.bias = false;
  a.per_channel = false;
  a.shift = 30;
  a.out_zp = 5;
  a.act_min = 0;
  a.act_max = -0; /* == 0 */
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00020003u);
  assert_int_equal(c.w[7], 0x0000051eu);
  a.requant = false; /* raw int32: the output-stage fields are not used */
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00000003u);
  assert_int_equal(c.w[6], 0u);
  assert_int_equal(c.w[7], 0u);
}

static void fence_and_nop_pack_flags(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, false);
  tsr_cmd_t c;
  assert_int_equal(tsr_cmd_fence(&g_dev, true, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00010004u);
  assert_int_equal(tsr_cmd_fence(&g_dev, false, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00000004u);
  const uint32_t deps[4] = {TSR_DEP_POP_PREV, TSR_DEP_POP_NEXT, TSR_DEP_PUSH_PREV,
                            TSR_DEP_PUSH_NEXT};
  for (unsigned i = 0; i < 4; i++) {
    assert_int_equal(tsr_cmd_nop(&g_dev, deps[i], &c), TSR_OK);
    assert_int_equal(c.w[0], 1u << (TSR_CMD_W0_POP_PREV_BIT + i));
    for (unsigned w = 1; w < 8; w++) {
      assert_int_equal(c.w[w], 0u);
    }
  }
  assert_int_equal(tsr_cmd_nop(&g_dev, TSR_CMD_PUT(TSR_CMD_W0_RESERVED, 1u), &c), TSR_BAD_ARG);
}

/* ---- builder validation ------------------------------------------------------------------- */

static void load_rejects_out_of_range_arguments(void **state) {
  (void)state;
  open_dev(8, 64, 16, false);
  tsr_cmd_t c;
  tsr_load_args_t ok = {.dest = TSR_LOAD_SPAD, .addr = 0, .stride = 20, .rows = 16, .cols = 20,
                        .local = 16};
  /* 20 bytes -> 3 chunks of 8 -> 48 rows from local 16: ends exactly at 64. */
  assert_int_equal(tsr_cmd_load(&g_dev, 0, &ok, &c), TSR_OK);
  tsr_load_args_t a = ok;
  a.local = 17;
  assert_int_equal(tsr_cmd_load(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("SPAD_ROWS");
  a = ok;
  a.rows = 0;
  assert_int_equal(tsr_cmd_load(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.cols = 0;
  assert_int_equal(tsr_cmd_load(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.rows = 65536;
  assert_int_equal(tsr_cmd_load(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  /* Accumulator chunks are 4N = 32 bytes: 33 bytes are 2 chunks. */
  a = ok;
  a.dest = TSR_LOAD_ACC;
  a.rows = 4;
  a.cols = 32;
  a.local = 12;
  assert_int_equal(tsr_cmd_load(&g_dev, 0, &a, &c), TSR_OK);
  a.cols = 33;
  assert_int_equal(tsr_cmd_load(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("ACC_ROWS");
  /* External range: the last byte may be 2^32 - 1, not 2^32. */
  a = ok;
  a.rows = 2;
  a.stride = 0x10;
  a.cols = 0x10;
  a.addr = 0xffffffe0u;
  assert_int_equal(tsr_cmd_load(&g_dev, 0, &a, &c), TSR_OK);
  a.addr = 0xffffffe1u;
  assert_int_equal(tsr_cmd_load(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("2^32");
  /* The load stage has no previous stage. */
  assert_int_equal(tsr_cmd_load(&g_dev, TSR_DEP_POP_PREV, &ok, &c), TSR_BAD_ARG);
  assert_int_equal(tsr_cmd_load(&g_dev, TSR_DEP_PUSH_PREV, &ok, &c), TSR_BAD_ARG);
  assert_int_equal(tsr_cmd_load(&g_dev, TSR_CMD_PUT(TSR_CMD_W0_RESERVED, 1u), &ok, &c), TSR_BAD_ARG);
  /* IRQ_CMD travels with the dependency flags. */
  assert_int_equal(tsr_cmd_load(&g_dev, TSR_DEP_IRQ_CMD, &ok, &c), TSR_OK);
  assert_int_equal(TSR_CMD_GET(c.w[0], TSR_CMD_W0_IRQ_CMD), 1u);
  a = ok;
  a.dest = (tsr_load_dest_t)2;
  assert_int_equal(tsr_cmd_load(&g_dev, 0, &a, &c), TSR_BAD_ARG);
}

static void matmul_rejects_out_of_range_arguments(void **state) {
  (void)state;
  open_dev(8, 64, 16, false);
  tsr_cmd_t c;
  tsr_matmul_args_t ok = {.a_addr = 48, .w_addr = 56, .c_addr = 0, .m = 16, .k = 8, .n = 8};
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &ok, &c), TSR_OK);
  tsr_matmul_args_t a = ok;
  a.k = 0;
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a.k = 65536;
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("K = 65536 must be 1..65535");
  /* K > N: ceil(K/N) tiles, each with its own M A rows after A_ADDR. */
  a.k = 9; /* 48 + 2 * 16 > 64 */
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("A_ADDR+ceil(K/N)*M = 80 exceeds SPAD_ROWS 64");
  a.a_addr = 32; /* 32 + 2 * 16 = 64 */
  a.w_addr = 55; /* 55 + 9 = 64 */
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_OK);
  assert_int_equal(TSR_CMD_GET(c.w[4], TSR_CMD_MATMUL_W4_K), 9u);
  a.a_addr = 33;
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a.a_addr = 0;
  a.m = 2;
  a.w_addr = 0;
  a.k = 64; /* 8 tiles: 8 * 2 A rows, W_ADDR + 64 = 64 */
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_OK);
  a.k = 65;
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("W_ADDR+K = 65");
  a = ok;
  a.n = 0;
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a.n = 9;
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.m = 0;
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.a_addr = 49; /* 49 + 16 > 64 */
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.w_addr = 57;
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.c_addr = 1; /* 1 + 16 > 16 */
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("ACC_ROWS");
  a = ok;
  a.keep_weights = true;
  a.w_addr = 1000; /* ignored */
  a.k = 0;
  assert_int_equal(tsr_cmd_matmul(&g_dev, 0, &a, &c), TSR_OK);
}

static void store_rejects_out_of_range_arguments(void **state) {
  (void)state;
  open_dev(8, 64, 16, false);
  tsr_cmd_t c;
  tsr_store_args_t ok = {.addr = 0, .stride = 8, .rows = 13, .cols = 8, .src = 0, .param = 13,
                         .requant = true, .mult = 1 << 30, .shift = -31, .out_zp = 127,
                         .act_min = -128, .act_max = 127};
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &ok, &c), TSR_OK);
  tsr_store_args_t a = ok;
  a.param = 14; /* 14 + 3 > 16 */
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.src = 4; /* 4 + 13 > 16 */
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.cols = 9;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a.cols = 0;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.rows = 0;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.shift = -32;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("SHIFT = -32");
  a.shift = 31;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.act_min = 5;
  a.act_max = 4;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("ACT_MIN 5 > ACT_MAX 4");
  a = ok;
  a.out_zp = 128;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.act_min = -129;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a = ok;
  a.requant = false;
  a.per_channel = true;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  /* Raw output ignores the requantization fields. */
  a = ok;
  a.requant = false;
  a.shift = 99;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_OK);
  /* The store stage has no next stage. */
  assert_int_equal(tsr_cmd_store(&g_dev, TSR_DEP_POP_NEXT, &ok, &c), TSR_BAD_ARG);
  assert_int_equal(tsr_cmd_store(&g_dev, TSR_DEP_PUSH_NEXT, &ok, &c), TSR_BAD_ARG);
  /* External range counts 4 bytes per column for int32 output. */
  a = ok;
  a.rows = 1;
  a.addr = 0xfffffff8u;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_OK);
  a.requant = false;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
}

/* ---- STORE additions and SFU (docs/sfu.md) ------------------------------------------------- */

static void store_packs_spad_lut_and_leaky_flags(void **state) {
  (void)state;
  open_dev(BIG_DIM, BIG_MEM, BIG_MEM, false);
  tsr_store_args_t a = {.addr = 0x1000u, .stride = 0x40u, .rows = 7u, .cols = 16u, .src = 0x123456u,
                        .param = 0x20000u, .spad = true};
  tsr_cmd_t c;
  assert_int_equal(tsr_cmd_store(&g_dev, TSR_DEP_POP_PREV, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00080103u); /* SPAD bit 19 */
  assert_int_equal(c.w[3], 0x00100007u);
  assert_int_equal(c.w[4], 0x123456u);
  assert_int_equal(c.w[6], 0u);
  assert_int_equal(c.w[7], 0u);
  a.spad = false;
  a.requant = true;
  a.mult = 0x40000000;
  a.shift = -3;
  a.act_min = -128;
  a.act_max = 127;
  a.lut = true;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00120003u); /* REQUANT 17, LUT 20 */
  a.lut = false;
  a.leaky = true;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00220003u); /* REQUANT 17, LEAKY 21 */
  a.lut = true;
  a.bias = true;
  a.per_channel = true;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00370003u);
  assert_int_equal(c.w[5], 0x20000u);
  assert_int_equal(c.w[6], 0x40000000u);
  assert_int_equal(c.w[7], 0x7f8000fdu);
}

static void store_rejects_what_the_sfu_additions_forbid(void **state) {
  (void)state;
  open_dev(8, 64, 16, false);
  tsr_cmd_t c;
  tsr_store_args_t rq = {.addr = 0, .stride = 8, .rows = 8, .cols = 8, .src = 0, .param = 11,
                         .requant = true, .mult = 1 << 30, .shift = 0, .act_min = -128,
                         .act_max = 127};
  tsr_store_args_t a = rq;
  /* LUT and LEAKY need REQUANT. */
  a.lut = true;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_OK);
  a.requant = false;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("LUT needs REQUANT");
  a = rq;
  a.leaky = true;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_OK);
  a.requant = false;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("LEAKY needs REQUANT");
  /* LEAKY reads PARAM+3 and PARAM+4: PARAM+5 must fit (16 rows: PARAM 11 ok, 12 not). */
  a = rq;
  a.leaky = true;
  a.param = 12;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("PARAM+5 = 17 exceeds ACC_ROWS 16");
  a.leaky = false; /* without LEAKY only PARAM+3 counts */
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_OK);
  /* SPAD: no output-stage flag at all. */
  tsr_store_args_t sp = {.addr = 0, .stride = 8, .rows = 8, .cols = 8, .src = 0, .param = 0,
                         .spad = true};
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &sp, &c), TSR_OK);
  for (int flag = 0; flag < 5; flag++) {
    a = sp;
    a.bias = flag == 0;
    a.requant = flag == 1;
    a.per_channel = flag == 2;
    a.lut = flag == 3;
    a.leaky = flag == 4;
    assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
    assert_err_contains("SPAD");
  }
  /* SPAD: SRC+ROWS is checked against the scratchpad (64 rows), not the accumulator (16). */
  a = sp;
  a.src = 56;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_OK);
  a.src = 57;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("SRC+ROWS = 65 exceeds SPAD_ROWS 64");
  /* SPAD still needs a valid parameter block address, like every STORE. */
  a = sp;
  a.param = 14;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  /* SPAD writes one byte per column: the external range counts COLS bytes. */
  a = sp;
  a.rows = 1;
  a.addr = 0xfffffff8u;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_OK);
  a.addr = 0xfffffff9u;
  assert_int_equal(tsr_cmd_store(&g_dev, 0, &a, &c), TSR_BAD_ARG);
}

static void sfu_packs_every_field(void **state) {
  (void)state;
  open_dev(BIG_DIM, BIG_MEM, BIG_MEM, false);
  tsr_sfu_args_t a = {.func = TSR_FUNC_LAYERNORM, .src = 0x123456u, .dst = 0x234567u,
                      .rows = 0x0123u, .len = 0x0456u, .src2 = 0x345678u, .param = 0x456789u,
                      .aux = 0x56789au};
  tsr_cmd_t c;
  assert_int_equal(tsr_cmd_sfu(&g_dev, TSR_DEP_POP_PREV | TSR_DEP_PUSH_NEXT, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00040905u); /* opcode 5, FUNC 4 in 19:16, POP_PREV, PUSH_NEXT */
  assert_int_equal(c.w[1], 0x123456u);
  assert_int_equal(c.w[2], 0x234567u);
  assert_int_equal(c.w[3], 0x04560123u); /* ROWS 15:0, LEN 31:16 */
  assert_int_equal(c.w[4], 0x345678u);
  assert_int_equal(c.w[5], 0x456789u);
  assert_int_equal(c.w[6], 0x56789au);
  assert_int_equal(c.w[7], 0u);
  /* Each function packs only the fields it uses. */
  const struct {
    uint32_t func;
    uint32_t w4, w5, w6;
  } use[] = {
      {TSR_FUNC_MAP, 0u, 0u, 0u},
      {TSR_FUNC_REDUCE, 0u, 0u, 0u},
      {TSR_FUNC_SOFTMAX, 0u, 0x456789u, 0u},
      {TSR_FUNC_ADD, 0x345678u, 0x456789u, 0u},
      {TSR_FUNC_MUL, 0x345678u, 0x456789u, 0u},
  };
  a.rows = 3u;
  a.len = 17u;
  for (unsigned i = 0; i < sizeof use / sizeof use[0]; i++) {
    a.func = use[i].func;
    assert_int_equal(tsr_cmd_sfu(&g_dev, TSR_DEP_POP_NEXT | TSR_DEP_PUSH_PREV, &a, &c), TSR_OK);
    assert_int_equal(c.w[0], 0x00000605u | TSR_CMD_PUT(TSR_CMD_SFU_W0_FUNC, use[i].func));
    assert_int_equal(c.w[1], 0x123456u);
    assert_int_equal(c.w[2], 0x234567u);
    assert_int_equal(c.w[3], 0x00110003u);
    assert_int_equal(c.w[4], use[i].w4);
    assert_int_equal(c.w[5], use[i].w5);
    assert_int_equal(c.w[6], use[i].w6);
    assert_int_equal(c.w[7], 0u);
  }
  /* ROWS and LEN are 16-bit fields: 65536 cannot be packed even where it would fit. */
  a.func = TSR_FUNC_MAP;
  a.rows = 65536u;
  a.len = 1u;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("ROWS must be 1..65535");
  a.rows = 1u;
  a.len = 65536u;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("LEN must be 1..65535");
  a.rows = 65535u;
  a.len = 65535u;
  a.src = 0u;
  a.dst = 0u;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG); /* 4096 * 65535 rows */
  a.rows = 255u;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
  assert_int_equal(c.w[3], 0xffff00ffu);
  a.src = 0x123456u;
  a.dst = 0x234567u;
  /* LUT_LOAD: only SRC; ROWS and LEN describe the table (1 x 256). */
  a.func = TSR_FUNC_LUT_LOAD;
  a.rows = 0u;
  a.len = 0u;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
  assert_int_equal(c.w[0], 0x00000005u);
  assert_int_equal(c.w[1], 0x123456u);
  assert_int_equal(c.w[2], 0u);
  assert_int_equal(c.w[3], 0x01000001u);
  for (unsigned w = 4; w < 8; w++) {
    assert_int_equal(c.w[w], 0u);
  }
}

static void sfu_rejects_what_the_chip_refuses_at_decode(void **state) {
  (void)state;
  /* N = 8, 128 scratchpad rows, 32 accumulator rows. LEN 20 -> C = 3 chunk rows. */
  open_dev(8, 128, 32, false);
  tsr_cmd_t c;
  const tsr_sfu_args_t ok = {.func = TSR_FUNC_MAP, .src = 0, .dst = 60, .rows = 4, .len = 20};
  tsr_sfu_args_t a = ok;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
  /* FUNC 7..15: ERR_OPCODE on the chip. */
  a.func = TSR_FUNC_COUNT;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("FUNC = 7");
  a.func = 15;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  a.func = 16; /* would spill into bit 20 */
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  /* Dependency bits: the compute stage may use all four, nothing else. */
  assert_int_equal(tsr_cmd_sfu(&g_dev, TSR_DEP_MASK, &ok, &c), TSR_OK);
  assert_int_equal(tsr_cmd_sfu(&g_dev, TSR_CMD_PUT(TSR_CMD_W0_RESERVED, 1u), &ok, &c), TSR_BAD_ARG);
  assert_int_equal(tsr_cmd_sfu(&g_dev, TSR_CMD_PUT(TSR_CMD_W0_FLAGS, 1u), &ok, &c), TSR_BAD_ARG);
  /* ERR_DIM: zero ROWS or LEN; the 16-bit fields cannot hold 65536. */
  const uint32_t funcs[] = {TSR_FUNC_MAP, TSR_FUNC_REDUCE, TSR_FUNC_SOFTMAX, TSR_FUNC_LAYERNORM,
                            TSR_FUNC_ADD, TSR_FUNC_MUL};
  for (unsigned f = 0; f < sizeof funcs / sizeof funcs[0]; f++) {
    a = ok;
    a.func = funcs[f];
    a.rows = 0;
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
    assert_err_contains("ROWS must be 1..65535");
    a.rows = 65536;
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
    a = ok;
    a.func = funcs[f];
    a.len = 0;
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
    assert_err_contains("LEN must be 1..65535");
    a.len = 65536;
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  }
  /* A: SRC .. SRC + C*ROWS - 1 (12 rows) for every function but LUT_LOAD. */
  for (unsigned f = 0; f < sizeof funcs / sizeof funcs[0]; f++) {
    a = ok;
    a.func = funcs[f];
    a.dst = 0;
    a.src = 116;
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
    a.src = 117;
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
    assert_err_contains("SRC+C*ROWS = 129 exceeds SPAD_ROWS 128");
  }
  /* The int8 result at DST, likewise; REDUCE: accumulator rows DST .. DST+ROWS-1. */
  const uint32_t int8_out[] = {TSR_FUNC_MAP,       TSR_FUNC_SOFTMAX, TSR_FUNC_LAYERNORM,
                               TSR_FUNC_ADD,       TSR_FUNC_MUL};
  for (unsigned f = 0; f < sizeof int8_out / sizeof int8_out[0]; f++) {
    a = ok;
    a.func = int8_out[f];
    a.dst = 116;
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
    a.dst = 117;
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
    assert_err_contains("DST+C*ROWS = 129 exceeds SPAD_ROWS 128");
  }
  a = ok;
  a.func = TSR_FUNC_REDUCE;
  a.dst = 28;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
  a.dst = 29;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("DST+ROWS = 33 exceeds ACC_ROWS 32");
  /* ADD and MUL: B at SRC2, same shape as A. */
  for (uint32_t f = TSR_FUNC_ADD; f <= TSR_FUNC_MUL; f++) {
    a = ok;
    a.func = f;
    a.param = 0;
    a.src2 = 116;
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
    a.src2 = 117;
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
    assert_err_contains("SRC2+C*ROWS = 129");
  }
  /* LAYERNORM: gamma is one row (C rows) at SRC2, beta C accumulator rows at AUX. */
  a = ok;
  a.func = TSR_FUNC_LAYERNORM;
  a.src2 = 125;
  a.aux = 29;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
  a.src2 = 126;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("SRC2+C (gamma) = 129 exceeds SPAD_ROWS 128");
  a.src2 = 125;
  a.aux = 30;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("AUX+C (beta) = 33 exceeds ACC_ROWS 32");
  /* Parameter blocks: ceil(P/N) rows: SOFTMAX 3 words (1 row), LAYERNORM 8 (1), ADD 11 (2),
   * MUL 7 (1). */
  const struct {
    uint32_t func, last_ok;
  } pb[] = {{TSR_FUNC_SOFTMAX, 31}, {TSR_FUNC_LAYERNORM, 31}, {TSR_FUNC_ADD, 30}, {TSR_FUNC_MUL, 31}};
  for (unsigned i = 0; i < sizeof pb / sizeof pb[0]; i++) {
    a = ok;
    a.func = pb[i].func;
    a.param = pb[i].last_ok;
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
    a.param = pb[i].last_ok + 1u;
    assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
    assert_err_contains("PARAM+ceil(P/N) = 33 exceeds ACC_ROWS 32");
  }
  /* Regions a function does not use are not checked (and not packed). */
  a = ok;
  a.src2 = 0xffffffu;
  a.param = 0xffffffu;
  a.aux = 0xffffffu;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
  a.func = TSR_FUNC_REDUCE;
  a.dst = 0;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
  a.func = TSR_FUNC_SOFTMAX;
  a.param = 0;
  a.dst = 60;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
  /* LUT_LOAD: the table's 256/N = 32 rows at SRC, whatever ROWS and LEN say. */
  a = ok;
  a.func = TSR_FUNC_LUT_LOAD;
  a.rows = 0;
  a.len = 0;
  a.dst = 0xffffffu;
  a.src = 96;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_OK);
  a.src = 97;
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &a, &c), TSR_BAD_ARG);
  assert_err_contains("SRC+256/N = 129 exceeds SPAD_ROWS 128");
  /* A failed check leaves a message; NULL arguments are refused. */
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, NULL, &c), TSR_BAD_ARG);
  assert_int_equal(tsr_cmd_sfu(&g_dev, 0, &ok, NULL), TSR_BAD_ARG);
}

/* ---- submit ------------------------------------------------------------------------------------ */

static void submit_waits_for_free_then_pushes_eight_words(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, false);
  script(TSR_CMDQ_STATUS_REG_OFFSET, 0u);
  script(TSR_CMDQ_STATUS_REG_OFFSET, 0u);
  script(TSR_CMDQ_STATUS_REG_OFFSET, 0u);
  script(TSR_CMDQ_STATUS_REG_OFFSET, 2u);
  tsr_cmd_t c = {{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}};
  uint32_t before = g_dev.cmds_pushed;
  assert_int_equal(tsr_submit(&g_dev, &c), TSR_OK);
  assert_int_equal(count_reads(TSR_CMDQ_STATUS_REG_OFFSET), 4);
  assert_int_equal(count_writes(TSR_CMDQ_PUSH_REG_OFFSET), 8);
  /* No push before FREE was seen non-zero, then the words in order. */
  unsigned i = 0;
  unsigned free_reads = 0;
  for (; i < g_fake.nlog && free_reads < 4; i++) {
    assert_false(g_fake.log[i].kind == 'w');
    free_reads += g_fake.log[i].off == TSR_CMDQ_STATUS_REG_OFFSET ? 1u : 0u;
  }
  for (unsigned w = 0; w < 8; w++, i++) {
    assert_true(i < g_fake.nlog);
    assert_int_equal(g_fake.log[i].kind, 'w');
    assert_int_equal(g_fake.log[i].off, TSR_CMDQ_PUSH_REG_OFFSET);
    assert_int_equal(g_fake.log[i].val, c.w[w]);
  }
  assert_int_equal(g_dev.cmds_pushed, before + 1u);
}

static void submit_times_out_when_the_queue_stays_full(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, false);
  REG(CMDQ_STATUS) = 0u;
  REG(STATUS) = STATUS_BUSY;
  REG(CMD_IDX) = 41u;
  REG(OPCODE) = TSR_OP_MATMUL;
  g_dev.poll_limit = 5;
  tsr_cmd_t c = {{0}};
  assert_int_equal(tsr_submit(&g_dev, &c), TSR_TIMEOUT);
  assert_int_equal(count_writes(TSR_CMDQ_PUSH_REG_OFFSET), 0);
  assert_int_equal(count_reads(TSR_CMDQ_STATUS_REG_OFFSET), 5);
  assert_err_contains("command 41 (OPCODE 2 MATMUL)");
}

static void submit_stops_when_the_engine_stopped_on_an_error(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, false);
  REG(CMDQ_STATUS) = 0u;
  REG(STATUS) = STATUS_ERROR;
  REG(ERR_CODE) = TSR_ERR_DEP_TOKEN;
  REG(ERR_CMD_IDX) = 9u;
  tsr_cmd_t c = {{0}};
  assert_int_equal(tsr_submit(&g_dev, &c), TSR_HW_ERROR);
  assert_int_equal(count_writes(TSR_CMDQ_PUSH_REG_OFFSET), 0);
  assert_err_contains("DEP_TOKEN");
  assert_err_contains("at command 9");
}

static void submit_refuses_a_partial_command_and_reports_bus_errors(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, false);
  REG(CMDQ_STATUS) = 4u | (3u << TSR_CMDQ_STATUS_WORDS_OFFSET);
  tsr_cmd_t c = {{0}};
  assert_int_equal(tsr_submit(&g_dev, &c), TSR_BAD_STATE);
  assert_err_contains("WORDS = 3");
  REG(CMDQ_STATUS) = 4u;
  g_fake.fail_write_off = TSR_CMDQ_PUSH_REG_OFFSET;
  assert_int_equal(tsr_submit(&g_dev, &c), TSR_BUS);
  assert_err_contains("word 0");
  assert_int_equal(tsr_submit(&g_dev, NULL), TSR_BAD_ARG);
}

/* ---- wait ------------------------------------------------------------------------------------------ */

static void wait_poll_returns_when_busy_clears(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, false);
  script(TSR_STATUS_REG_OFFSET, STATUS_BUSY);
  script(TSR_STATUS_REG_OFFSET, STATUS_BUSY);
  script(TSR_STATUS_REG_OFFSET, STATUS_DONE);
  assert_int_equal(tsr_wait(&g_dev, TSR_WAIT_POLL, 10), TSR_OK);
  assert_int_equal(count_reads(TSR_STATUS_REG_OFFSET), 3);
}

static void wait_poll_timeout_names_command_opcode_and_status(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, false);
  REG(STATUS) = STATUS_BUSY;
  REG(CMD_IDX) = 7u;
  REG(OPCODE) = TSR_OP_STORE;
  assert_int_equal(tsr_wait(&g_dev, TSR_WAIT_POLL, 6), TSR_TIMEOUT);
  assert_err_contains("after 6 STATUS reads");
  assert_err_contains("STATUS=0x00000001");
  assert_err_contains("command 7 (OPCODE 3 STORE)");
}

static void wait_poll_reports_engine_error(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, false);
  REG(STATUS) = STATUS_ERROR;
  REG(ERR_CODE) = TSR_ERR_BUS_READ;
  REG(ERR_CMD_IDX) = 5u;
  REG(ERR_ADDR) = 0xdead0000u;
  assert_int_equal(tsr_wait(&g_dev, TSR_WAIT_POLL, 10), TSR_HW_ERROR);
  assert_err_contains("BUS_READ");
  assert_err_contains("at command 5");
  assert_err_contains("0xdead0000");
}

static void wait_irq_enables_done_and_error_then_clears_and_restores(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, true);
  REG(STATUS) = STATUS_BUSY;
  REG(IRQ_ENABLE) = IRQ_FENCE; /* the caller's own setting */
  g_fake.irq_plan_n = 1;
  g_fake.irq_plan[0].ret = TSR_OK;
  g_fake.irq_plan[0].status = STATUS_DONE;
  g_fake.irq_plan[0].irq = IRQ_DONE;
  assert_int_equal(tsr_wait(&g_dev, TSR_WAIT_IRQ, 1000), TSR_OK);
  assert_int_equal(g_fake.irq_calls, 1);
  assert_int_equal(g_fake.irq_enable_at_wait[0], IRQ_FENCE | IRQ_DONE | IRQ_ERROR);
  assert_int_equal(REG(IRQ_STATUS) & IRQ_DONE, 0u); /* acknowledged (W1C) */
  assert_int_equal(REG(IRQ_ENABLE), IRQ_FENCE);     /* restored */
}

static void wait_irq_sleeps_again_after_a_stale_done(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, true);
  REG(STATUS) = STATUS_BUSY;
  g_fake.irq_plan_n = 2;
  /* First wake-up: a DONE left over from an earlier idle moment, still busy. */
  g_fake.irq_plan[0].ret = TSR_OK;
  g_fake.irq_plan[0].status = STATUS_BUSY;
  g_fake.irq_plan[0].irq = IRQ_DONE;
  g_fake.irq_plan[1].ret = TSR_OK;
  g_fake.irq_plan[1].status = STATUS_DONE;
  g_fake.irq_plan[1].irq = IRQ_DONE;
  assert_int_equal(tsr_wait(&g_dev, TSR_WAIT_IRQ, 1000), TSR_OK);
  assert_int_equal(g_fake.irq_calls, 2);
}

static void wait_irq_timeout_and_error_paths(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, true);
  REG(STATUS) = STATUS_BUSY;
  REG(CMD_IDX) = 3u;
  REG(OPCODE) = TSR_OP_LOAD;
  g_fake.irq_plan_n = 1;
  g_fake.irq_plan[0].ret = TSR_TIMEOUT;
  g_fake.irq_plan[0].status = STATUS_BUSY;
  assert_int_equal(tsr_wait(&g_dev, TSR_WAIT_IRQ, 500), TSR_TIMEOUT);
  assert_err_contains("no interrupt after 500 cycles");
  assert_err_contains("command 3 (OPCODE 1 LOAD)");

  open_dev(8, 4096, 1024, true);
  REG(STATUS) = STATUS_BUSY;
  g_fake.irq_plan_n = 1;
  g_fake.irq_plan[0].ret = TSR_OK;
  g_fake.irq_plan[0].status = STATUS_ERROR;
  g_fake.irq_plan[0].irq = IRQ_ERROR;
  REG(ERR_CODE) = TSR_ERR_PARAM;
  assert_int_equal(tsr_wait(&g_dev, TSR_WAIT_IRQ, 500), TSR_HW_ERROR);
  assert_err_contains("PARAM");
  assert_int_equal(REG(IRQ_STATUS) & IRQ_ERROR, 0u);
}

static void wait_irq_without_irq_support_polls(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, false);
  script(TSR_STATUS_REG_OFFSET, STATUS_BUSY);
  script(TSR_STATUS_REG_OFFSET, 0u);
  assert_int_equal(tsr_wait(&g_dev, TSR_WAIT_IRQ, 10), TSR_OK);
  assert_int_equal(count_reads(TSR_STATUS_REG_OFFSET), 2);
  assert_int_equal(count_writes(TSR_IRQ_ENABLE_REG_OFFSET), 0);
}

/* ---- errors --------------------------------------------------------------------------------------- */

static void every_error_code_decodes_to_its_name(void **state) {
  (void)state;
  static const char *names[] = {"NONE",       "OPCODE",    "DIM",       "SPAD_RANGE",
                                "ACC_RANGE",  "DRAM_RANGE", "BUS_READ", "BUS_WRITE",
                                "PARAM",      "DEP_TOKEN", "CMDQ_OVERFLOW", "NO_WEIGHTS",
                                "DMA_WINDOW", "NO_UNIT",   "FETCH_BUS", "RING_WINDOW",
                                "RING_ALIGN", "RING_TAIL"};
  static const tsr_hw_error_t codes[] = {
      TSR_ERR_NONE,       TSR_ERR_OPCODE,    TSR_ERR_DIM,       TSR_ERR_SPAD_RANGE,
      TSR_ERR_ACC_RANGE,  TSR_ERR_DRAM_RANGE, TSR_ERR_BUS_READ, TSR_ERR_BUS_WRITE,
      TSR_ERR_PARAM,      TSR_ERR_DEP_TOKEN, TSR_ERR_CMDQ_OVERFLOW, TSR_ERR_NO_WEIGHTS,
      TSR_ERR_DMA_WINDOW, TSR_ERR_NO_UNIT,   TSR_ERR_FETCH_BUS, TSR_ERR_RING_WINDOW,
      TSR_ERR_RING_ALIGN, TSR_ERR_RING_TAIL};
  open_dev(8, 4096, 1024, false);
  for (uint32_t code = 0; code < 18; code++) {
    assert_int_equal((uint32_t)codes[code], code); /* enum mirrors the doc's table */
    REG(ERR_CODE) = code;
    REG(ERR_CMD_IDX) = 100u + code;
    REG(ERR_ADDR) = 0x1000u * code;
    uint32_t got = 99, idx = 0, addr = 0;
    assert_int_equal(tsr_read_error(&g_dev, &got, &idx, &addr), TSR_OK);
    assert_int_equal(got, code);
    assert_int_equal(idx, 100u + code);
    assert_int_equal(addr, 0x1000u * code);
    const char *msg = tsr_hw_error_str(code);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%s: ", names[code]);
    if (strncmp(msg, prefix, strlen(prefix)) != 0) {
      fail_msg("code %u: \"%s\" does not start with \"%s\"", code, msg, prefix);
    }
    for (uint32_t other = 0; other < code; other++) {
      assert_string_not_equal(msg, tsr_hw_error_str(other));
    }
  }
  assert_non_null(strstr(tsr_hw_error_str(18), "UNKNOWN"));
  assert_non_null(strstr(tsr_hw_error_str(255), "UNKNOWN"));
  /* NULL outputs are allowed. */
  assert_int_equal(tsr_read_error(&g_dev, NULL, NULL, NULL), TSR_OK);
}

static void status_strings_are_distinct(void **state) {
  (void)state;
  for (int a = 0; a < TSR_STATUS_COUNT_; a++) {
    assert_true(strlen(tsr_status_str((tsr_status_t)a)) > 0);
    for (int b = 0; b < a; b++) {
      assert_string_not_equal(tsr_status_str((tsr_status_t)a), tsr_status_str((tsr_status_t)b));
    }
  }
}

/* ---- counters, reset ------------------------------------------------------------------------------- */

static void counters_read_each_counter_from_its_registers(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, false);
  const uint32_t lo[6] = {TSR_CNT_CYCLES_LO_REG_OFFSET, TSR_CNT_BUSY_LO_REG_OFFSET,
                          TSR_CNT_MACS_LO_REG_OFFSET,   TSR_CNT_DMA_RD_LO_REG_OFFSET,
                          TSR_CNT_DMA_WR_LO_REG_OFFSET, TSR_CNT_CMDS_LO_REG_OFFSET};
  const uint32_t hi[6] = {TSR_CNT_CYCLES_HI_REG_OFFSET, TSR_CNT_BUSY_HI_REG_OFFSET,
                          TSR_CNT_MACS_HI_REG_OFFSET,   TSR_CNT_DMA_RD_HI_REG_OFFSET,
                          TSR_CNT_DMA_WR_HI_REG_OFFSET, TSR_CNT_CMDS_HI_REG_OFFSET};
  for (unsigned i = 0; i < 6; i++) {
    g_fake.regs[lo[i] / 4] = 0x1000u + i;
    g_fake.regs[hi[i] / 4] = 0x10u + i;
  }
  tsr_counters_t c;
  assert_int_equal(tsr_counters_read(&g_dev, &c), TSR_OK);
  const uint64_t got[6] = {c.cycles, c.busy, c.macs, c.dma_rd, c.dma_wr, c.cmds};
  for (unsigned i = 0; i < 6; i++) {
    assert_true(got[i] == (((uint64_t)(0x10u + i) << 32) | (0x1000u + i)));
  }
}

static void counters_retry_when_the_high_word_rolls_over(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, false);
  /* The low word wraps between the reads: HI=1, LO=0xffffffff, HI=2 is torn;
   * the retry reads HI=2, LO=5, HI=2. */
  script(TSR_CNT_CYCLES_HI_REG_OFFSET, 1u);
  script(TSR_CNT_CYCLES_LO_REG_OFFSET, 0xffffffffu);
  script(TSR_CNT_CYCLES_HI_REG_OFFSET, 2u);
  script(TSR_CNT_CYCLES_HI_REG_OFFSET, 2u);
  script(TSR_CNT_CYCLES_LO_REG_OFFSET, 5u);
  script(TSR_CNT_CYCLES_HI_REG_OFFSET, 2u);
  tsr_counters_t c;
  assert_int_equal(tsr_counters_read(&g_dev, &c), TSR_OK);
  assert_true(c.cycles == 0x200000005ull);
  /* A high word that never settles is reported, not guessed. */
  for (unsigned i = 0; i < 8; i++) {
    script(TSR_CNT_CYCLES_HI_REG_OFFSET, i);
  }
  assert_int_equal(tsr_counters_read(&g_dev, &c), TSR_BAD_STATE);
}

static void reset_and_clear_write_their_ctrl_bits(void **state) {
  (void)state;
  open_dev(8, 4096, 1024, false);
  g_dev.cmds_pushed = 12;
  assert_int_equal(tsr_counters_clear(&g_dev), TSR_OK);
  assert_int_equal(tsr_soft_reset(&g_dev), TSR_OK);
  assert_int_equal(g_fake.nlog, 2);
  assert_int_equal(g_fake.log[0].off, TSR_CTRL_REG_OFFSET);
  assert_int_equal(g_fake.log[0].val, 1u << TSR_CTRL_COUNTERS_CLEAR_BIT);
  assert_int_equal(g_fake.log[1].off, TSR_CTRL_REG_OFFSET);
  assert_int_equal(g_fake.log[1].val, 1u << TSR_CTRL_SOFT_RESET_BIT);
  assert_int_equal(g_dev.cmds_pushed, 0);
}

static void requant_multiplier_checks_the_shift_range(void **state) {
  (void)state;
  int32_t m = 0, s = 99;
  assert_int_equal(tsr_requant_multiplier(0.5, &m, &s), TSR_OK);
  assert_int_equal(m, 1 << 30);
  assert_int_equal(s, 0);
  assert_int_equal(tsr_requant_multiplier(0.75 / 1024.0, &m, &s), TSR_OK);
  assert_int_equal(m, 0x60000000);
  assert_int_equal(s, -10);
  assert_int_equal(tsr_requant_multiplier(-1.0, &m, &s), TSR_BAD_ARG);
  assert_int_equal(tsr_requant_multiplier(1e12, &m, &s), TSR_BAD_ARG);
  assert_int_equal(tsr_requant_multiplier(0.5, NULL, &s), TSR_BAD_ARG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(open_reads_id_config_and_memory_sizes),
      cmocka_unit_test(a_chip_without_the_sfu_refuses_its_commands),
      cmocka_unit_test(open_rejects_wrong_vendor),
      cmocka_unit_test(open_rejects_wrong_major),
      cmocka_unit_test(open_rejects_implausible_config),
      cmocka_unit_test(open_reports_bus_error_and_bad_hal),
      cmocka_unit_test(load_packs_every_field),
      cmocka_unit_test(matmul_packs_every_field),
      cmocka_unit_test(store_packs_every_field),
      cmocka_unit_test(fence_and_nop_pack_flags),
      cmocka_unit_test(load_rejects_out_of_range_arguments),
      cmocka_unit_test(matmul_rejects_out_of_range_arguments),
      cmocka_unit_test(store_rejects_out_of_range_arguments),
      cmocka_unit_test(store_packs_spad_lut_and_leaky_flags),
      cmocka_unit_test(store_rejects_what_the_sfu_additions_forbid),
      cmocka_unit_test(sfu_packs_every_field),
      cmocka_unit_test(sfu_rejects_what_the_chip_refuses_at_decode),
      cmocka_unit_test(submit_waits_for_free_then_pushes_eight_words),
      cmocka_unit_test(submit_times_out_when_the_queue_stays_full),
      cmocka_unit_test(submit_stops_when_the_engine_stopped_on_an_error),
      cmocka_unit_test(submit_refuses_a_partial_command_and_reports_bus_errors),
      cmocka_unit_test(wait_poll_returns_when_busy_clears),
      cmocka_unit_test(wait_poll_timeout_names_command_opcode_and_status),
      cmocka_unit_test(wait_poll_reports_engine_error),
      cmocka_unit_test(wait_irq_enables_done_and_error_then_clears_and_restores),
      cmocka_unit_test(wait_irq_sleeps_again_after_a_stale_done),
      cmocka_unit_test(wait_irq_timeout_and_error_paths),
      cmocka_unit_test(wait_irq_without_irq_support_polls),
      cmocka_unit_test(every_error_code_decodes_to_its_name),
      cmocka_unit_test(status_strings_are_distinct),
      cmocka_unit_test(counters_read_each_counter_from_its_registers),
      cmocka_unit_test(counters_retry_when_the_high_word_rolls_over),
      cmocka_unit_test(reset_and_clear_write_their_ctrl_bits),
      cmocka_unit_test(requant_multiplier_checks_the_shift_range),
  };
  return cmocka_run_group_tests_name("driver", tests, NULL, NULL);
}
