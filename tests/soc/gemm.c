/* gemm.c: a GEMM through the real firmware tiler (fw/) on the core, on operands the host placed in external memory. */
#include "soc_gemm_job.h"
#include "tsr_fw.h"
#include "tsr_hal_baremetal.h"
#include "tsr_rt.h"

static void fail(const char *what, tsr_status_t st, const tsr_dev_t *dev) {
  tsr_rt_puts("gemm: ");
  tsr_rt_puts(what);
  tsr_rt_puts(": ");
  tsr_rt_puts(tsr_status_str(st));
  if (dev != NULL && tsr_dev_error(dev)[0] != '\0') {
    tsr_rt_puts(": ");
    tsr_rt_puts(tsr_dev_error(dev));
  }
  tsr_rt_putc('\n');
}

int main(void) {
  volatile soc_gemm_job_t *job = (volatile soc_gemm_job_t *)(uintptr_t)(TSR_RT_EXT_BASE + SOC_GEMM_JOB_ADDR);
  if (job->magic != SOC_GEMM_JOB_MAGIC) {
    tsr_rt_puts("gemm: no job at device address ");
    tsr_rt_puthex(SOC_GEMM_JOB_ADDR);
    tsr_rt_putc('\n');
    return 2;
  }
  static tsr_hal_baremetal_t ctx;
  static tsr_hal_t hal;
  static tsr_dev_t dev;
  static tsr_hal_ops_t irq_ops;
  tsr_status_t st = tsr_hal_baremetal_init(&ctx, TSR_RT_REG_BASE, TSR_RT_EXT_BASE, 0u, TSR_RT_EXT_SIZE, &hal);
  TSR_RT_ASSERT(st == TSR_OK);
  if (job->use_irq != 0u) {
    tsr_rt_hal_use_irq(&hal, &irq_ops);
  }
  st = tsr_dev_open(&dev, &hal);
  if (st != TSR_OK) {
    fail("tsr_dev_open", st, &dev);
    return 1;
  }
  static tsr_gemm_desc_t desc;
  desc.m = job->m;
  desc.k = job->k;
  desc.n = job->n;
  desc.a_addr = job->a_addr;
  desc.lda = job->k;
  desc.b_addr = job->b_addr;
  desc.ldb = job->n;
  desc.c_addr = job->c_addr;
  desc.requant = job->requant != 0u;
  desc.ldc = desc.requant ? job->n : 4u * job->n;
  desc.mult = job->mult;
  desc.shift = job->shift;
  desc.out_zp = job->out_zp;
  desc.act_min = -128;
  desc.act_max = 127;
  desc.has_bias = job->has_bias != 0u;
  desc.bias_addr = job->bias_addr;
  static tsr_gemm_plan_t plan;
  uint32_t p0 = tsr_rt_cycles();
  st = tsr_gemm_plan(&dev.info, &desc, &plan);
  uint32_t p1 = tsr_rt_cycles();
  if (st != TSR_OK) {
    fail("tsr_gemm_plan", st, NULL);
    job->status = (uint32_t)st;
    return 1;
  }
  tsr_rt_puts("gemm ");
  tsr_rt_putdec(desc.m);
  tsr_rt_putc('x');
  tsr_rt_putdec(desc.k);
  tsr_rt_putc('x');
  tsr_rt_putdec(desc.n);
  tsr_rt_puts(desc.requant ? " int8" : " int32");
  tsr_rt_puts(" on N=");
  tsr_rt_putdec(dev.info.dim);
  tsr_rt_puts(": plan mt=");
  tsr_rt_putdec(plan.mt);
  tsr_rt_puts(" kc=");
  tsr_rt_putdec(plan.kc);
  tsr_rt_puts(" tiles=");
  tsr_rt_putdec(plan.tiles);
  tsr_rt_puts(" commands=");
  tsr_rt_putdec((uint32_t)plan.cmds);
  tsr_rt_puts(" (planned in ");
  tsr_rt_putdec(p1 - p0);
  tsr_rt_puts(" cycles)\n");
  uint32_t t0 = tsr_rt_cycles();
  st = tsr_gemm_run(&dev, &desc, &plan, NULL, NULL);
  uint32_t t1 = tsr_rt_cycles();
  job->status = (uint32_t)st;
  job->tiles = plan.tiles;
  job->cycles = t1 - t0;
  job->chip_irqs = tsr_rt_chip_irqs();
  if (st != TSR_OK) {
    fail("tsr_gemm_run", st, &dev);
    return 1;
  }
  tsr_rt_puts("gemm: done in ");
  tsr_rt_putdec(t1 - t0);
  tsr_rt_puts(" cycles, ");
  tsr_rt_putdec(tsr_rt_chip_irqs());
  tsr_rt_puts(job->use_irq != 0u ? " chip interrupts taken (waiting on IRQ 3)\n" : " chip interrupts taken (polling)\n");
  return 0;
}
