/* tsr_hal_baremetal.c: HAL backend for bare metal: registers through a volatile pointer (freestanding). */
#include "tsr_hal_baremetal.h"

static tsr_status_t bm_read32(void *ctx, uint32_t off, uint32_t *val) {
  const tsr_hal_baremetal_t *c = ctx;
  if ((off & 3u) != 0u || val == NULL) {
    return TSR_BAD_ARG;
  }
  *val = *(const volatile uint32_t *)(c->reg_base + off);
  return TSR_OK;
}

static tsr_status_t bm_write32(void *ctx, uint32_t off, uint32_t val) {
  const tsr_hal_baremetal_t *c = ctx;
  if ((off & 3u) != 0u) {
    return TSR_BAD_ARG;
  }
  *(volatile uint32_t *)(c->reg_base + off) = val;
  return TSR_OK;
}

/* [addr, addr+n) inside the reachable device-address window? */
static bool bm_mem_ok(const tsr_hal_baremetal_t *c, uint64_t addr, size_t n) {
  return c->mem_size != 0u && addr >= c->mem_dev && addr - c->mem_dev <= c->mem_size &&
         (uint64_t)n <= c->mem_size - (addr - c->mem_dev);
}

/* Byte loops through volatile: no libc, and the compiler must not merge or
 * drop accesses the accelerator will read. Caches, if any, are the caller's
 * business (flush before starting the job, invalidate before reading). */
static tsr_status_t bm_mem_write(void *ctx, uint64_t addr, const void *src, size_t n) {
  const tsr_hal_baremetal_t *c = ctx;
  if (!bm_mem_ok(c, addr, n)) {
    return TSR_BAD_ARG;
  }
  volatile uint8_t *d = (volatile uint8_t *)(c->mem_cpu + (uintptr_t)(addr - c->mem_dev));
  const uint8_t *s = src;
  if ((((uintptr_t)d | (uintptr_t)s | n) & 3u) == 0u) {
    /* Aligned (a command ring's slots): a word per store, a quarter of the stores. */
    volatile uint32_t *dw = (volatile uint32_t *)(uintptr_t)d;
    const uint32_t *sw = (const uint32_t *)(uintptr_t)s;
    for (size_t i = 0u; i < n / 4u; i++) {
      dw[i] = sw[i];
    }
    return TSR_OK;
  }
  for (size_t i = 0u; i < n; i++) {
    d[i] = s[i];
  }
  return TSR_OK;
}

static tsr_status_t bm_mem_read(void *ctx, uint64_t addr, void *dst, size_t n) {
  const tsr_hal_baremetal_t *c = ctx;
  if (!bm_mem_ok(c, addr, n)) {
    return TSR_BAD_ARG;
  }
  const volatile uint8_t *s = (const volatile uint8_t *)(c->mem_cpu + (uintptr_t)(addr - c->mem_dev));
  uint8_t *d = dst;
  for (size_t i = 0u; i < n; i++) {
    d[i] = s[i];
  }
  return TSR_OK;
}

static const tsr_hal_ops_t k_bm_ops = {
    .name = "baremetal",
    .read32 = bm_read32,
    .write32 = bm_write32,
    .wait_irq = NULL, /* no interrupt controller here: the driver polls STATUS */
    .mem_write = bm_mem_write,
    .mem_read = bm_mem_read,
    .cycles = NULL,
    .close = NULL,
};

tsr_status_t tsr_hal_baremetal_init(tsr_hal_baremetal_t *ctx, uintptr_t reg_base,
                                    uintptr_t mem_cpu, uint32_t mem_dev, uint32_t mem_size,
                                    tsr_hal_t *hal) {
  if (ctx == NULL || hal == NULL || reg_base == 0u || (reg_base & 3u) != 0u) {
    return TSR_BAD_ARG;
  }
  if (mem_size != 0u && (mem_cpu == 0u || (uint64_t)mem_dev + mem_size > ((uint64_t)1 << 32))) {
    return TSR_BAD_ARG;
  }
  ctx->reg_base = reg_base;
  ctx->mem_cpu = mem_cpu;
  ctx->mem_dev = mem_dev;
  ctx->mem_size = mem_size;
  hal->ops = &k_bm_ops;
  hal->ctx = ctx;
  return TSR_OK;
}
