/* tsr_hal_host.h: the host-only HAL backends: simulator, Linux devmem/UIO, UART link. */
#ifndef TSR_HAL_HOST_H
#define TSR_HAL_HOST_H

/* Host programs (CLI, libtessera, tests) include this; firmware never does
 * (tools/layers_check.py fails a freestanding file that includes it). */

#include <stddef.h>
#include <stdint.h>

#include "tsr_hal.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* TSR_HAL_HOST_H */
