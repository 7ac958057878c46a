/* tsr_hal.h: hardware abstraction layer: 32-bit register access behind an ops table. */
#ifndef TSR_HAL_H
#define TSR_HAL_H

/*
 * The HAL is the only layer that touches `volatile` or a simulator. Everything
 * above it (driver, firmware, CLI) goes through a tsr_hal_t, so the same driver
 * and firmware source runs against:
 *   - the Verilated model      (sw/hal/tsr_hal_sim.c, host only),
 *   - Linux /dev/uioN or /dev/mem on an FPGA SoC (sw/hal/tsr_hal_devmem.c, host only),
 *   - a volatile pointer on bare metal        (sw/hal/tsr_hal_baremetal.c, freestanding),
 *   - a board behind the UART host link       (sw/hal/tsr_hal_uart.c, host only; tsr_uart.h),
 *   - a fake register file in the unit tests.
 *
 * This header is freestanding (stdint/stddef/stdbool only): firmware includes it.
 * It declares only the interface; the backends' constructors are in
 * tsr_hal_host.h (sim, devmem/UIO, UART; host only) and tsr_hal_baremetal.h.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Status of every HAL, driver and firmware call. TSR_OK is 0. */
typedef enum tsr_status {
  TSR_OK = 0,          /**< success */
  TSR_BAD_ARG,         /**< an argument is out of range or inconsistent */
  TSR_BUS,             /**< a register access answered an error (SLVERR/DECERR) */
  TSR_TIMEOUT,         /**< the device did not respond within the bound */
  TSR_HW_ERROR,        /**< the engine stopped on an error (see ERR_CODE) */
  TSR_NO_DEVICE,       /**< no device, wrong ID, or the backend could not be opened */
  TSR_UNSUPPORTED,     /**< the operation is not available on this backend/device */
  TSR_BAD_STATE,       /**< the device is in a state the call cannot work from */
  TSR_NO_MEMORY,       /**< a host allocation failed (host backends only) */
  TSR_IO,              /**< an operating-system call failed (host backends only) */
  TSR_STATUS_COUNT_    /**< number of codes; not a status */
} tsr_status_t;

/** Backend operations. read32/write32 are mandatory; the rest may be NULL. */
typedef struct tsr_hal_ops {
  /** Backend name for messages ("sim", "uio", "devmem", "baremetal", ...). */
  const char *name;
  /** Read the 32-bit register at byte offset `off` (4-byte aligned). */
  tsr_status_t (*read32)(void *ctx, uint32_t off, uint32_t *val);
  /** Write the 32-bit register at byte offset `off` (4-byte aligned). */
  tsr_status_t (*write32)(void *ctx, uint32_t off, uint32_t val);
  /** Block until the interrupt line is high, or `max` units pass (backend units:
   *  simulated cycles for sim, milliseconds for UIO; 0 = the backend default).
   *  Returns TSR_OK when the line is high, TSR_TIMEOUT otherwise. NULL: the
   *  driver polls STATUS instead. */
  tsr_status_t (*wait_irq)(void *ctx, uint64_t max);
  /** Copy host bytes into the accelerator's external memory at device address
   *  `addr`. NULL when the host cannot reach that memory. */
  tsr_status_t (*mem_write)(void *ctx, uint64_t addr, const void *src, size_t n);
  /** Copy external memory at device address `addr` into host bytes. */
  tsr_status_t (*mem_read)(void *ctx, uint64_t addr, void *dst, size_t n);
  /** Clock cycles elapsed in the backend, for progress reports (sim only). */
  uint64_t (*cycles)(void *ctx);
  /** Release the backend (unmap, dlclose, free). NULL: nothing to release. */
  void (*close)(void *ctx);
} tsr_hal_ops_t;

/** A HAL instance: an ops table and the backend's private context. */
typedef struct tsr_hal {
  const tsr_hal_ops_t *ops;
  void *ctx;
} tsr_hal_t;

/** True when `hal` has an ops table with read32 and write32. */
static inline bool tsr_hal_valid(const tsr_hal_t *hal) {
  return hal != NULL && hal->ops != NULL && hal->ops->read32 != NULL &&
         hal->ops->write32 != NULL;
}

/** Read a register through `hal`. */
static inline tsr_status_t tsr_hal_read32(const tsr_hal_t *hal, uint32_t off, uint32_t *val) {
  return hal->ops->read32(hal->ctx, off, val);
}

/** Write a register through `hal`. */
static inline tsr_status_t tsr_hal_write32(const tsr_hal_t *hal, uint32_t off, uint32_t val) {
  return hal->ops->write32(hal->ctx, off, val);
}

/** Copy into external memory; TSR_UNSUPPORTED when the backend has no mem_write. */
tsr_status_t tsr_hal_mem_write(const tsr_hal_t *hal, uint64_t addr, const void *src, size_t n);

/** Copy out of external memory; TSR_UNSUPPORTED when the backend has no mem_read. */
tsr_status_t tsr_hal_mem_read(const tsr_hal_t *hal, uint64_t addr, void *dst, size_t n);

/** Backend cycle count, or 0 when the backend does not count cycles. */
uint64_t tsr_hal_cycles(const tsr_hal_t *hal);

/** Release the backend and clear `hal`. NULL and closed HALs are accepted. */
void tsr_hal_close(tsr_hal_t *hal);

#ifdef __cplusplus
}
#endif

#endif /* TSR_HAL_H */
