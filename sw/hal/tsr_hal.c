/* tsr_hal.c: backend-independent helpers of the HAL (freestanding). */
#include "tsr_hal.h"

tsr_status_t tsr_hal_mem_write(const tsr_hal_t *hal, uint64_t addr, const void *src, size_t n) {
  if (!tsr_hal_valid(hal) || (src == NULL && n != 0u)) {
    return TSR_BAD_ARG;
  }
  if (hal->ops->mem_write == NULL) {
    return TSR_UNSUPPORTED;
  }
  return hal->ops->mem_write(hal->ctx, addr, src, n);
}

tsr_status_t tsr_hal_mem_read(const tsr_hal_t *hal, uint64_t addr, void *dst, size_t n) {
  if (!tsr_hal_valid(hal) || (dst == NULL && n != 0u)) {
    return TSR_BAD_ARG;
  }
  if (hal->ops->mem_read == NULL) {
    return TSR_UNSUPPORTED;
  }
  return hal->ops->mem_read(hal->ctx, addr, dst, n);
}

uint64_t tsr_hal_cycles(const tsr_hal_t *hal) {
  if (hal == NULL || hal->ops == NULL || hal->ops->cycles == NULL) {
    return 0u;
  }
  return hal->ops->cycles(hal->ctx);
}

void tsr_hal_close(tsr_hal_t *hal) {
  if (hal == NULL) {
    return;
  }
  if (hal->ops != NULL && hal->ops->close != NULL) {
    hal->ops->close(hal->ctx);
  }
  hal->ops = NULL;
  hal->ctx = NULL;
}
