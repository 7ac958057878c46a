/* irq.c: the interrupt path: tsr_top's irq_o (a FENCE with IRQ) -> the core's IRQ 3 -> the runtime's handler. */
#include "tessera_regs.h"
#include "tsr_driver.h"
#include "tsr_hal_baremetal.h"
#include "tsr_rt.h"

#define ROUNDS 3u

int main(void) {
  static tsr_hal_baremetal_t ctx;
  static tsr_hal_t hal;
  static tsr_dev_t dev;
  TSR_RT_ASSERT(tsr_hal_baremetal_init(&ctx, TSR_RT_REG_BASE, TSR_RT_EXT_BASE, 0u, TSR_RT_EXT_SIZE, &hal) == TSR_OK);
  TSR_RT_ASSERT(tsr_dev_open(&dev, &hal) == TSR_OK);
  TSR_RT_ASSERT(tsr_reg_write(&dev, TSR_IRQ_ENABLE_REG_OFFSET, 1u << TSR_IRQ_ENABLE_FENCE_BIT) == TSR_OK);
  for (uint32_t r = 1u; r <= ROUNDS; r++) {
    tsr_cmd_t cmd;
    TSR_RT_ASSERT(tsr_cmd_fence(&dev, true, &cmd) == TSR_OK);
    TSR_RT_ASSERT(tsr_submit(&dev, &cmd) == TSR_OK);
    tsr_rt_irq_wait();  /* returns once the handler has counted one more IRQ 3 */
    uint32_t irq = 0u;
    TSR_RT_ASSERT(tsr_reg_read(&dev, TSR_IRQ_STATUS_REG_OFFSET, &irq) == TSR_OK);
    TSR_RT_ASSERT((irq & (1u << TSR_IRQ_STATUS_FENCE_BIT)) != 0u);
    TSR_RT_ASSERT(tsr_reg_write(&dev, TSR_IRQ_STATUS_REG_OFFSET, irq) == TSR_OK);  /* w1c: irq_o falls */
    uint32_t after = 0u;
    TSR_RT_ASSERT(tsr_reg_read(&dev, TSR_IRQ_STATUS_REG_OFFSET, &after) == TSR_OK);
    TSR_RT_ASSERT(after == 0u);
    tsr_rt_puts("irq: fence ");
    tsr_rt_putdec(r);
    tsr_rt_puts(": IRQ 3 taken (count ");
    tsr_rt_putdec(tsr_rt_chip_irqs());
    tsr_rt_puts("), IRQ_STATUS=");
    tsr_rt_puthex(irq);
    tsr_rt_puts(" cleared\n");
  }
  TSR_RT_ASSERT(tsr_rt_chip_irqs() == ROUNDS);
  /* No interrupt enabled: the HAL's wait_irq must give up after its limit. */
  TSR_RT_ASSERT(tsr_reg_write(&dev, TSR_IRQ_ENABLE_REG_OFFSET, 0u) == TSR_OK);
  static tsr_hal_ops_t irq_ops;
  tsr_rt_hal_use_irq(&hal, &irq_ops);
  uint32_t t0 = tsr_rt_cycles();
  tsr_status_t st = hal.ops->wait_irq(hal.ctx, 5000u);
  uint32_t waited = tsr_rt_cycles() - t0;
  tsr_rt_puts("irq: wait_irq(5000 cycles) with no interrupt enabled: ");
  tsr_rt_puts(tsr_status_str(st));
  tsr_rt_puts(" after ");
  tsr_rt_putdec(waited);
  tsr_rt_puts(" cycles\n");
  TSR_RT_ASSERT(st == TSR_TIMEOUT && waited >= 5000u && waited < 7000u);
  TSR_RT_ASSERT(tsr_rt_chip_irqs() == ROUNDS);
  return 0;
}
