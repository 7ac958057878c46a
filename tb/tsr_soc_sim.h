/* tsr_soc_sim.h: C API of the Verilated co-simulation SoC (rtl/soc/tsr_soc.v): load firmware, run it, read the outcome. */
#ifndef TSR_SOC_SIM_H
#define TSR_SOC_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "tsr_axi_mem.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One library per array size, build/soc/lib/libtsrsoc_d<N>.so (mk/soc.mk), exporting
 * exactly these functions. The SoC is picorv32 + on-chip RAM + tsr_top; its external
 * memory port goes to the bench's AXI4 memory model (tb/tsr_axi_mem.c), the memory
 * tsr_top's DMA and the core (at CPU address 0x8000_0000 + a) share. Typical use:
 * open (the SoC is in reset), load the program into RAM and operands into external
 * memory, run, look at the outcome, read results from external memory.
 */

typedef struct tsr_ssim tsr_ssim_t;

/** Called with every byte the firmware writes to CONSOLE. */
typedef void (*tsr_ssim_console_fn)(void *user, char c);

/** Settings of one SoC simulation. */
typedef struct tsr_ssim_cfg {
  uint64_t mem_size;              /**< bytes of external memory (default 64 MiB) */
  unsigned rd_latency;            /**< memory read latency, cycles (default 10) */
  unsigned wr_latency;            /**< memory write latency, cycles (default 10) */
  unsigned stall_pct;             /**< 0..100: chance the memory withholds a ready/valid each cycle (default 0) */
  uint32_t seed;                  /**< seed of those stalls */
  const char *trace_path;         /**< FST waveform file, or NULL */
  tsr_ssim_console_fn console;    /**< CONSOLE bytes go here (NULL: dropped) */
  void *console_user;             /**< first argument of console */
} tsr_ssim_cfg_t;

/** How a run ended. */
typedef enum tsr_ssim_end {
  TSR_SSIM_EXIT = 0,      /**< the firmware wrote EXIT (exit_code) */
  TSR_SSIM_TRAP,          /**< the core halted (picorv32 trap: a fault with its IRQ masked, or in the handler) */
  TSR_SSIM_FAULT,         /**< the core touched an address where nothing answers, or got an error
                               response on a window (fault_addr, fault_resp) */
  TSR_SSIM_WATCHDOG       /**< max_cycles passed without any of the above */
} tsr_ssim_end_t;

/** The outcome of tsr_ssim_run. */
typedef struct tsr_ssim_result {
  tsr_ssim_end_t end;
  uint32_t exit_code;     /**< TSR_SSIM_EXIT: the value written */
  uint32_t pc;            /**< address of the instruction the core executes (picorv32's dbg_insn_addr) */
  uint32_t fetch_pc;      /**< address of the last instruction fetch (tsr_soc's pc_o; the core prefetches) */
  uint32_t fault_addr;    /**< TSR_SSIM_FAULT: the CPU address */
  unsigned fault_resp;    /**< TSR_SSIM_FAULT: 0 nothing mapped there, 2 SLVERR, 3 DECERR */
  uint64_t cycles;        /**< cycles since reset was released */
  int irq;                /**< tsr_top's irq_o at the end */
  uint32_t chip_status;   /**< tsr_top's STATUS at the end (bit 0 BUSY, 1 DONE, 2 ERROR), read inside the model */
  uint32_t chip_err;      /**< tsr_top's ERR_CODE at the end */
} tsr_ssim_result_t;

/** Fill a configuration with the defaults. */
void tsr_ssim_cfg_default(tsr_ssim_cfg_t *cfg);

/** Build the SoC, in reset. NULL on failure, with one line in err. */
tsr_ssim_t *tsr_ssim_open(const tsr_ssim_cfg_t *cfg, char *err, size_t errlen);

/** Finish the trace and free everything. NULL is accepted. */
void tsr_ssim_destroy(tsr_ssim_t *s);

/** Copy bytes into the on-chip RAM at byte address addr (the back door; one word per cycle,
 *  in reset). It writes whole words: bytes of a partial first or last word outside
 *  [addr, addr+n) become 0. -1 if the range leaves the RAM or the core already runs. */
int tsr_ssim_load_ram(tsr_ssim_t *s, uint32_t addr, const void *src, size_t n);

/** Copy bytes into / out of the external memory at device address addr. -1 if out of range. */
int tsr_ssim_mem_write(tsr_ssim_t *s, uint64_t addr, const void *src, size_t n);
int tsr_ssim_mem_read(const tsr_ssim_t *s, uint64_t addr, void *dst, size_t n);

/** Put the SoC back into reset (core, RAM contents kept, tsr_top, the console and exit
 *  registers) so that tsr_ssim_load_ram and tsr_ssim_run can start another program; the
 *  external memory keeps its contents. For a run that ended with EXIT (the chip idle, no
 *  burst in flight): -1 after any other end. */
int tsr_ssim_reset(tsr_ssim_t *s);

/** Release reset (the first time) and run until the firmware writes EXIT, the core halts,
 *  it touches no device, or max_cycles more cycles pass. Fills *res; returns res->end. */
tsr_ssim_end_t tsr_ssim_run(tsr_ssim_t *s, uint64_t max_cycles, tsr_ssim_result_t *res);

/** Traffic and protocol statistics of the external memory model. */
void tsr_ssim_mem_stats(const tsr_ssim_t *s, tsr_axi_mem_stats_t *st);

/** Bytes of on-chip RAM of this library's SoC. */
uint32_t tsr_ssim_ram_bytes(void);

/** ArrayDim of this library's tsr_top. */
unsigned tsr_ssim_array_dim(void);

#ifdef __cplusplus
}
#endif

#endif /* TSR_SOC_SIM_H */
