/* share.c: the core and tsr_top's DMA on the same external memory at the same time, both checked. */
/*
 * The core writes a pattern into region SRC through its window, then queues LOAD SRC ->
 * scratchpad, FENCE, STORE scratchpad -> DST, FENCE, ROUNDS times. While the chip works
 * (STATUS.BUSY), the core writes and reads back words of a third region, SCRATCH, one
 * after another: its single-word bursts go through the arbiter between the DMA's bursts.
 * At the end DST must equal SRC byte for byte and every read-back must have matched;
 * the core must have made some of its accesses while the chip was busy.
 */
#include "tessera_regs.h"
#include "tsr_driver.h"
#include "tsr_hal_baremetal.h"
#include "tsr_rt.h"

#define ROWS 2048u             /* rows of N bytes per LOAD/STORE */
#define ROUNDS 8u
#define SRC 0x00020000u        /* device addresses */
#define DST 0x00030000u
#define SCRATCH 0x00040000u
#define SCRATCH_WORDS 1024u

static volatile uint32_t *ext32(uint32_t dev_addr) {
  return (volatile uint32_t *)(uintptr_t)(TSR_RT_EXT_BASE + dev_addr);
}

static uint32_t pattern(uint32_t i) {
  return i * 0x9e3779b1u ^ 0x5a5a0000u;
}

static void submit(tsr_dev_t *dev, tsr_status_t st, const tsr_cmd_t *cmd) {
  TSR_RT_ASSERT(st == TSR_OK);
  TSR_RT_ASSERT(tsr_submit(dev, cmd) == TSR_OK);
}

int main(void) {
  static tsr_hal_baremetal_t ctx;
  static tsr_hal_t hal;
  static tsr_dev_t dev;
  TSR_RT_ASSERT(tsr_hal_baremetal_init(&ctx, TSR_RT_REG_BASE, TSR_RT_EXT_BASE, 0u, TSR_RT_EXT_SIZE, &hal) == TSR_OK);
  TSR_RT_ASSERT(tsr_dev_open(&dev, &hal) == TSR_OK);
  const uint32_t dim = dev.info.dim;
  const uint32_t bytes = ROWS * dim;
  for (uint32_t i = 0u; i < bytes / 4u; i++) {
    ext32(SRC)[i] = pattern(i);
    ext32(DST)[i] = 0u;
  }
  for (uint32_t r = 0u; r < ROUNDS; r++) {
    tsr_cmd_t cmd;
    tsr_load_args_t ld = {.dest = TSR_LOAD_SPAD, .addr = SRC, .stride = dim, .rows = ROWS, .cols = dim, .local = 0u};
    submit(&dev, tsr_cmd_load(&dev, 0u, &ld, &cmd), &cmd);
    submit(&dev, tsr_cmd_fence(&dev, false, &cmd), &cmd);
    tsr_store_args_t sto = {.addr = DST, .stride = dim, .rows = ROWS, .cols = dim, .src = 0u, .spad = true};
    submit(&dev, tsr_cmd_store(&dev, 0u, &sto, &cmd), &cmd);
    submit(&dev, tsr_cmd_fence(&dev, false, &cmd), &cmd);
  }
  /* The core's own traffic while the chip is busy. */
  uint32_t busy_accesses = 0u;
  uint32_t n = 0u;
  for (;;) {
    uint32_t status = 0u;
    TSR_RT_ASSERT(tsr_reg_read(&dev, TSR_STATUS_REG_OFFSET, &status) == TSR_OK);
    if ((status & (1u << TSR_STATUS_BUSY_BIT)) == 0u) {
      break;
    }
    uint32_t w = n % SCRATCH_WORDS;
    ext32(SCRATCH)[w] = pattern(n) ^ 0xffffffffu;
    uint32_t back = ext32(SCRATCH)[w];
    if (back != (pattern(n) ^ 0xffffffffu)) {
      tsr_rt_puts("share: read-back mismatch at scratch word ");
      tsr_rt_putdec(w);
      tsr_rt_puts(": ");
      tsr_rt_puthex(back);
      tsr_rt_putc('\n');
      return 1;
    }
    busy_accesses += 2u;
    n++;
  }
  TSR_RT_ASSERT(tsr_wait(&dev, TSR_WAIT_POLL, 0u) == TSR_OK);
  for (uint32_t i = 0u; i < bytes / 4u; i++) {
    uint32_t got = ext32(DST)[i];
    if (got != pattern(i)) {
      tsr_rt_puts("share: DST word ");
      tsr_rt_putdec(i);
      tsr_rt_puts(" is ");
      tsr_rt_puthex(got);
      tsr_rt_puts(", want ");
      tsr_rt_puthex(pattern(i));
      tsr_rt_putc('\n');
      return 1;
    }
  }
  /* The scratch words written last are still there. */
  for (uint32_t j = n > SCRATCH_WORDS ? n - SCRATCH_WORDS : 0u; j < n; j++) {
    TSR_RT_ASSERT(ext32(SCRATCH)[j % SCRATCH_WORDS] == (pattern(j) ^ 0xffffffffu));
  }
  tsr_rt_puts("share: ");
  tsr_rt_putdec(ROUNDS);
  tsr_rt_puts(" DMA copies of ");
  tsr_rt_putdec(bytes);
  tsr_rt_puts(" bytes verified; ");
  tsr_rt_putdec(busy_accesses);
  tsr_rt_puts(" core accesses to external memory while the chip was busy, all read back right\n");
  TSR_RT_ASSERT(busy_accesses > 0u);
  return 0;
}
