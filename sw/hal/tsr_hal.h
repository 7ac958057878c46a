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

/* ---- Simulator backend (host only; sw/hal/tsr_hal_sim.c) ------------------------ */

struct tsr_sim_cfg; /* tb/tsr_sim.h */
struct tsr_sim;     /* tb/tsr_sim.h */

/**
 * Load build/lib/libtsrsim_d<dim>.so with dlopen, create a model with `cfg`
 * (NULL: the simulator's defaults) and fill `hal`. The library is looked up in
 * $TSR_SIM_LIB_DIR if set, else in <directory of the running program>/../lib.
 * On failure returns a status and writes one line into `err`
 * (e.g. "no simulator build for --dim 16 (build/lib/libtsrsim_d16.so); run 'make sim DIM=16'").
 */
tsr_status_t tsr_hal_sim_open(unsigned dim, const struct tsr_sim_cfg *cfg, tsr_hal_t *hal,
                              char *err, size_t errlen);

/**
 * Directory of a simulation library: $`env_name` if set, else <prefix>/`sub`
 * where the running program is <prefix>/bin/<name>. `what` names the library
 * in messages ("the simulator libraries"). Returns 0, or -1 with one line in `err`.
 */
int tsr_host_lib_dir(const char *env_name, const char *sub, const char *what, char *out,
                     size_t outlen, char *err, size_t errlen);
/** Memory-model statistics of a sim HAL (see tsr_sim_mem_stats_t), or TSR_UNSUPPORTED. */
tsr_status_t tsr_hal_sim_mem_stats(const tsr_hal_t *hal, uint64_t *rd_beats, uint64_t *wr_beats,
                                   uint64_t *protocol_errors);

/**
 * The simulator under a sim HAL, for tests that need more than registers and
 * memory (hard reset, clock steps, bus state): *sim is the tsr_sim_t of
 * tb/tsr_sim.h and *lib the dlopen handle of its library, from which the
 * caller takes tsr_sim_* functions with dlsym. TSR_UNSUPPORTED for other HALs.
 */
tsr_status_t tsr_hal_sim_raw(const tsr_hal_t *hal, struct tsr_sim **sim, void **lib);

/* ---- Linux devmem / UIO backend (host only; sw/hal/tsr_hal_devmem.c) ------------ */

/** How a devmem spec reaches its memory. */
typedef enum tsr_devmem_kind {
  TSR_DEVMEM_UIO = 1,  /**< "uio:/dev/uioN": map 0 of a UIO device; IRQs through read() */
  TSR_DEVMEM_MEM = 2   /**< "devmem:BASE[,SIZE][@FILE]": /dev/mem (or FILE) at a physical base */
} tsr_devmem_kind_t;

/** A parsed devmem spec. */
typedef struct tsr_devmem_spec {
  tsr_devmem_kind_t kind;
  char path[256];   /**< /dev/uioN, /dev/mem or the file given after '@' */
  uint64_t base;    /**< physical base (TSR_DEVMEM_MEM); 0 for UIO */
  uint64_t size;    /**< bytes to map; 0 for UIO means "read it from sysfs" */
} tsr_devmem_spec_t;

/** Smallest register window a spec may map: the 12-bit register block. */
#define TSR_DEVMEM_REG_WINDOW 0x1000u

/**
 * Parse "uio:/dev/uioN" or "devmem:BASE[,SIZE][@FILE]" (BASE and SIZE in
 * decimal or 0x-hex; SIZE defaults to `default_size`). Checks syntax, 4-byte
 * alignment of BASE, SIZE a non-zero multiple of 4, and that BASE+SIZE does
 * not wrap. Does not touch the file system.
 */
tsr_status_t tsr_devmem_parse(const char *spec, uint64_t default_size, tsr_devmem_spec_t *out,
                              char *err, size_t errlen);

/**
 * Open the register window `reg_spec` and, if `dma_spec` is non-NULL, a second
 * mapping of the external-memory (DMA buffer) region "devmem:BASE,SIZE[@FILE]"
 * whose BASE is also the device (bus) address the accelerator uses.
 * mem_write/mem_read then accept device addresses inside [BASE, BASE+SIZE).
 */
tsr_status_t tsr_hal_devmem_open(const char *reg_spec, const char *dma_spec, tsr_hal_t *hal,
                                 char *err, size_t errlen);

/* ---- UART host link backend (host only; sw/hal/tsr_hal_uart.c) ----------------- */

/**
 * Open "uart:PATH[,BAUD]" (default 115200 baud): a board running
 * fpga/tsr_uart_top.v behind a serial port (docs/fpga.md, "Host link").
 * mem_write/mem_read reach its on-chip memory; wait_irq is NULL (the driver
 * polls). sw/hal/tsr_uart.h has the transports, link statistics and the
 * in-process simulation of the board.
 */
tsr_status_t tsr_hal_uart_open(const char *spec, tsr_hal_t *hal, char *err, size_t errlen);

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

#endif /* TSR_HAL_H */
