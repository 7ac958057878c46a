/* tsr_sim.h: C API of the Verilated Tessera model and its external memory. */
#ifndef TSR_SIM_H
#define TSR_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "tsr_axi_mem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Each array size is its own shared library, build/lib/libtsrsim_d<N>.so,
 * exporting exactly these functions. sw/hal/tsr_hal_sim.c loads it with dlopen. */

typedef struct tsr_sim tsr_sim_t;

/* Defaults of tsr_sim_cfg_default, also for programs that fill a configuration
 * before the library is loaded (sw/lib/tsr_lib_dev.c). */
#define TSR_SIM_DEFAULT_MEM_SIZE (64ull << 20)   /**< bytes of external memory */
#define TSR_SIM_DEFAULT_LATENCY 10u              /**< read and write latency, cycles */
#define TSR_SIM_DEFAULT_WATCHDOG 100000000ull    /**< watchdog_cycles */

/** Settings of one simulation: external memory model, tracing, watchdog. */
typedef struct tsr_sim_cfg {
  uint64_t mem_size;         /**< bytes of external memory at address 0 (default 64 MiB) */
  unsigned rd_latency;       /**< cycles from AR handshake to first R beat (default 10; 0 acts as 1) */
  unsigned wr_latency;       /**< cycles from last W beat to B response (default 10; 0 acts as 1) */
  unsigned bytes_per_cycle;  /**< bandwidth cap shared by R and W beats; 0 = none (a beat per channel per cycle) */
  unsigned stall_pct;        /**< 0..100: chance a channel's ready/valid is withheld each cycle */
  uint32_t seed;             /**< seed of the stall generator */
  uint64_t err_base;         /**< first byte of a range that answers SLVERR */
  uint64_t err_size;         /**< size of that range; 0 = none */
  const char *trace_path;    /**< FST waveform file, or NULL for none */
  uint64_t watchdog_cycles;  /**< tsr_sim_wait_irq fails past this (0 = 100M); register accesses fail
                                  after 1000 cycles, or after this many if fewer */
} tsr_sim_cfg_t;

/* Run-time options of the Verilated model ("plusargs") come from the
 * environment variable TSR_SIM_PLUSARGS, read by tsr_sim_create before the
 * model is constructed: whitespace-separated words handed to Verilator's
 * VerilatedContext::commandArgs. With a library Verilated with
 * "--x-assign unique --x-initial unique" (make test-xrand, mk/trust.mk),
 *   TSR_SIM_PLUSARGS="+verilator+seed+7 +verilator+rand+reset+2"
 * starts every register and memory that reset does not set from random bits
 * drawn from seed 7 (the same seed gives the same bits in every model the
 * process creates). Unknown +verilator+ words stop the program with a message;
 * other words are ignored. With the default build (--x-initial fast) the
 * seed changes nothing. */

/** Fill a configuration with the defaults above. */
void tsr_sim_cfg_default(tsr_sim_cfg_t *cfg);

/** Build a model and hold it in reset for 8 cycles. NULL on failure, with one
 *  line in err. */
tsr_sim_t *tsr_sim_open(const tsr_sim_cfg_t *cfg, char *err, size_t errlen);

/** tsr_sim_open, with the failure's line on stderr. */
tsr_sim_t *tsr_sim_create(const tsr_sim_cfg_t *cfg);

/** Finish the trace and free everything. NULL is accepted. */
void tsr_sim_destroy(tsr_sim_t *sim);

/** Assert rst_ni for `cycles` cycles (at least 1), then release it. Memory keeps its contents. */
void tsr_sim_reset(tsr_sim_t *sim, unsigned cycles);

/** Advance the clock by `cycles` cycles. */
void tsr_sim_step(tsr_sim_t *sim, uint64_t cycles);

/** 32-bit register write through a real AXI4-Lite transaction.
 *  Returns the BRESP (0 OKAY, 2 SLVERR), or -1 if the bus did not answer
 *  within 1000 cycles. */
int tsr_sim_reg_write(tsr_sim_t *sim, uint32_t addr, uint32_t data);

/** 32-bit register read through AXI4-Lite. Returns RRESP or -1 as above. */
int tsr_sim_reg_read(tsr_sim_t *sim, uint32_t addr, uint32_t *data);

/** Level of irq_o now. */
int tsr_sim_irq(const tsr_sim_t *sim);

/** Step until irq_o is high. Returns 0 when it is, -1 when `max_cycles`
 *  (0 = the configured watchdog) pass first. */
int tsr_sim_wait_irq(tsr_sim_t *sim, uint64_t max_cycles);

/** Copy bytes into / out of the external memory model. -1 if out of range. */
int tsr_sim_mem_write(tsr_sim_t *sim, uint64_t addr, const void *src, size_t n);
int tsr_sim_mem_read(tsr_sim_t *sim, uint64_t addr, void *dst, size_t n);

/** Cycles simulated since create. */
uint64_t tsr_sim_cycles(const tsr_sim_t *sim);

/** Bus faults of the memory model, its fault log and its statistics: the types
 *  are the memory model's (tb/tsr_axi_mem.h); these are their names in this API. */
typedef tsr_axi_faults_t tsr_sim_faults_t;
typedef tsr_axi_fault_log_t tsr_sim_fault_log_t;
typedef tsr_axi_mem_stats_t tsr_sim_mem_stats_t;

/** Replace the fault settings (NULL: none) and clear the log. -1 on a bad setting. */
int tsr_sim_set_faults(tsr_sim_t *sim, const tsr_sim_faults_t *f);

/** Copy the fault log. */
void tsr_sim_fault_log(const tsr_sim_t *sim, tsr_sim_fault_log_t *log);

/** Traffic and protocol statistics of the memory model (tsr_axi_mem_stats_t). */
void tsr_sim_mem_stats(const tsr_sim_t *sim, tsr_sim_mem_stats_t *st);

/** Guard range [lo, hi] (inclusive; default: everything): every AR or AW burst
 *  whose beats (whole bus words) leave it counts in rd_outside / wr_outside of
 *  tsr_sim_mem_stats. Tests set it to a DMA window aligned to the bus width to
 *  prove that no transaction outside the window is ever issued. Kept across
 *  reset. */
void tsr_sim_set_guard(tsr_sim_t *sim, uint64_t lo, uint64_t hi);

/** Bits of tsr_sim_axi_active. */
#define TSR_SIM_AXI_ARVALID 0x1u  /**< the chip drives ARVALID */
#define TSR_SIM_AXI_AWVALID 0x2u  /**< the chip drives AWVALID */
#define TSR_SIM_AXI_WVALID 0x4u   /**< the chip drives WVALID */
#define TSR_SIM_AXI_RVALID 0x8u   /**< the memory model drives RVALID */
#define TSR_SIM_AXI_BVALID 0x10u  /**< the memory model drives BVALID */

/** Valids on the AXI4 memory bus in the current cycle, as TSR_SIM_AXI_* bits:
 *  0 when the bus is quiet (e.g. after a hard reset). */
unsigned tsr_sim_axi_active(const tsr_sim_t *sim);

/** Array dimension this library was built for (its ArrayDim parameter). */
unsigned tsr_sim_array_dim(void);

#ifdef __cplusplus
}
#endif

#endif /* TSR_SIM_H */
