/* hello.c: the first SoC program: console, tsr_top's ID through the driver and the bare-metal HAL, exit 0. */
#include "tsr_driver.h"
#include "tsr_hal_baremetal.h"
#include "tsr_rt.h"

int main(void) {
  tsr_rt_puts("hello from the core\n");
  tsr_hal_baremetal_t ctx;
  tsr_hal_t hal;
  tsr_status_t st = tsr_hal_baremetal_init(&ctx, TSR_RT_REG_BASE, TSR_RT_EXT_BASE, 0u, TSR_RT_EXT_SIZE, &hal);
  TSR_RT_ASSERT(st == TSR_OK);
  static tsr_dev_t dev;
  st = tsr_dev_open(&dev, &hal);
  if (st != TSR_OK) {
    tsr_rt_puts("hello: tsr_dev_open: ");
    tsr_rt_puts(tsr_dev_error(&dev));
    tsr_rt_putc('\n');
    return 1;
  }
  tsr_rt_puts("tsr_top ID=");
  tsr_rt_puthex(dev.info.id);
  tsr_rt_puts(" N=");
  tsr_rt_putdec(dev.info.dim);
  tsr_rt_puts(" AXI bytes=");
  tsr_rt_putdec(dev.info.axi_bytes);
  tsr_rt_puts(" SPAD rows=");
  tsr_rt_putdec(dev.info.spad_rows);
  tsr_rt_puts(" ACC rows=");
  tsr_rt_putdec(dev.info.acc_rows);
  tsr_rt_putc('\n');
  /* A word through the window onto external memory, back and forth. */
  volatile uint32_t *ext = (volatile uint32_t *)(uintptr_t)(TSR_RT_EXT_BASE + 0x100u);
  ext[0] = 0x12345678u;
  ext[1] = 0x9abcdef0u;
  volatile uint8_t *ext8 = (volatile uint8_t *)(uintptr_t)(TSR_RT_EXT_BASE + 0x108u);
  ext8[1] = 0x5au;
  TSR_RT_ASSERT(ext[0] == 0x12345678u && ext[1] == 0x9abcdef0u && ext[2] == 0x00005a00u);
  tsr_rt_puts("external memory: ok\n");
  return 0;
}
