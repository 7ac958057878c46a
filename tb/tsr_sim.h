/* tsr_sim.h: C API of the Verilated Tessera model and its external memory. */
#ifndef TSR_SIM_H
#define TSR_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Each array size is its own shared library, build/lib/libtsrsim_d<N>.so,
 * exporting exactly these functions. sw/tsr_hal_sim.c loads it with dlopen. */

typedef struct tsr_sim tsr_sim_t;

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

/** Fill a configuration with the defaults above. */
void tsr_sim_cfg_default(tsr_sim_cfg_t *cfg);

/** Build a model and hold it in reset for 8 cycles. NULL on failure
 *  (a message goes to stderr). */
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

/** Traffic and protocol statistics of the memory model. */
typedef struct tsr_sim_mem_stats {
  uint64_t rd_beats, wr_beats;      /**< data beats accepted */
  uint64_t rd_bursts, wr_bursts;    /**< AR / AW handshakes */
  uint64_t err_resps;               /**< SLVERR/DECERR responses sent */
  uint64_t protocol_errors;         /**< AXI rule violations seen (4 KiB crossing, WLAST mismatch, ...) */
} tsr_sim_mem_stats_t;
void tsr_sim_mem_stats(const tsr_sim_t *sim, tsr_sim_mem_stats_t *st);

/** Array dimension this library was built for (its ArrayDim parameter). */
unsigned tsr_sim_array_dim(void);

#ifdef __cplusplus
}
#endif

#endif /* TSR_SIM_H */
