/* tsr_hal_baremetal.h: the bare-metal HAL backend (freestanding: a volatile pointer). */
#ifndef TSR_HAL_BAREMETAL_H
#define TSR_HAL_BAREMETAL_H

#include <stdint.h>

#include "tsr_hal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Bare-metal backend (freestanding; sw/hal/tsr_hal_baremetal.c) -------------- */

/** Context of the bare-metal backend; the caller owns the storage. */
typedef struct tsr_hal_baremetal {
  uintptr_t reg_base;  /**< CPU address of the register block */
  uintptr_t mem_cpu;   /**< CPU address of device address mem_dev (0: no memory access) */
  uint32_t mem_dev;    /**< device (bus) address of the first reachable byte */
  uint32_t mem_size;   /**< reachable bytes */
} tsr_hal_baremetal_t;

/**
 * Fill `ctx` and `hal` for registers at CPU address `reg_base` (4-byte
 * aligned, non-zero). If `mem_size` is non-zero, device addresses
 * [mem_dev, mem_dev+mem_size) are reachable by the CPU at mem_cpu.. for
 * mem_write/mem_read.
 */
tsr_status_t tsr_hal_baremetal_init(tsr_hal_baremetal_t *ctx, uintptr_t reg_base,
                                    uintptr_t mem_cpu, uint32_t mem_dev, uint32_t mem_size,
                                    tsr_hal_t *hal);

#ifdef __cplusplus
}
#endif

#endif /* TSR_HAL_BAREMETAL_H */
