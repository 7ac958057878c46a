/* sys_util.h: shared helpers of the system tests: simulator set-up, raw registers, random GEMM cases. */
#ifndef SYS_UTIL_H
#define SYS_UTIL_H

/*
 * The system tests drive the whole chip: the Verilated tsr_top (loaded with
 * tsr_hal_sim_open), the real driver (sw/driver/tsr_driver.c) and firmware
 * (fw/tsr_gemm_*.c), and check every result against the golden model
 * (sw/golden/tsr_golden.c). This header holds what several suites share:
 *
 *   - opening a simulated device with a small external memory (4 MiB), so a
 *     test can snapshot all of it and prove that nothing outside an output
 *     region changed;
 *   - raw register access and raw command pushes, for commands the driver's
 *     own validation would refuse;
 *   - random GEMM cases: a case is a pure function of its seed (shapes,
 *     strides, odd addresses, requantization settings, memory-model
 *     settings), so a failure is replayed from the seed alone.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsr_driver.h"
#include "tsr_fw.h"
#include "tsr_hal_host.h"
#include "tsr_sim.h"

/** External memory of every system-test simulation: small, so a full snapshot is cheap. */
#define SYS_MEM_SIZE (4u << 20)

/** Register polls a bounded wait may take (each is an AXI4-Lite read of a few cycles). */
#define SYS_POLL_LIMIT 20000000u

/** A simulated device: HAL, driver handle and the settings it was created with. */
typedef struct sys_env {
  tsr_hal_t hal;
  tsr_dev_t dev;
  unsigned dim;
  tsr_sim_cfg_t cfg;
  /* A command ring in use (tests/system/test_sys_ring.c): sys_case_run ignores
   * its bytes when it compares memory, and expects the chip to read 32 bytes
   * per command on top of the DMA's reads. ring_size 0: no ring. */
  uint32_t ring_base;
  uint32_t ring_size;
} sys_env_t;

/* ---- Random numbers ------------------------------------------------------------ */

/** A deterministic generator (xorshift64*); the same seed gives the same stream. */
typedef struct sys_rng {
  uint64_t s;
} sys_rng_t;

/** Seed `r` from a 32-bit seed and a stream number (different streams are independent). */
void sys_rng_seed(sys_rng_t *r, uint32_t seed, uint32_t stream);
/** Next 64 random bits. */
uint64_t sys_rng_next(sys_rng_t *r);
/** Uniform integer in [lo, hi] (hi >= lo, hi - lo < 2^63). */
int64_t sys_rng_range(sys_rng_t *r, int64_t lo, int64_t hi);
/** True with probability pct / 100. */
bool sys_rng_pct(sys_rng_t *r, unsigned pct);
/** Fill `n` bytes with random data. */
void sys_rng_fill(sys_rng_t *r, uint8_t *p, size_t n);

/** A seed from $TSR_SEED if set (decimal or 0x-hex), else from the clock. Never fails. */
uint32_t sys_seed_from_env_or_clock(void);
/** Parse a decimal or 0x-hex 32-bit unsigned integer; 0 on success, -1 if not one. */
int sys_parse_u32(const char *s, uint32_t *out);
/**
 * Parse `--dim N [--seed S]` for suite `prog` (seed from sys_seed_from_env_or_clock()
 * when absent) and print the line that tells how to replay the run.
 * Returns 0, or 2 after a one-line usage error on stderr.
 */
int sys_parse_dim_seed(const char *prog, int argc, char **argv, uint32_t *dim, uint32_t *seed);

/* ---- Device --------------------------------------------------------------------- */

/** Defaults of the system tests: 4 MiB of memory, latencies 10, no stalls, 400M-cycle watchdog. */
void sys_sim_cfg_default(tsr_sim_cfg_t *cfg);

/**
 * Load libtsrsim_d<dim>.so (TSR_SIM_LIB_DIR or <exe dir>/../../lib, see sys_util.c),
 * create a model with `cfg` and open the driver on it. On failure returns a
 * status and writes one line into `err`.
 */
tsr_status_t sys_open(sys_env_t *e, unsigned dim, const tsr_sim_cfg_t *cfg, char *err, size_t len);

/** Release the model. Safe on a closed or zeroed env. */
void sys_close(sys_env_t *e);

/** Read a register; returns the HAL status. */
tsr_status_t sys_rd(sys_env_t *e, uint32_t off, uint32_t *val);
/** Write a register; returns the HAL status. */
tsr_status_t sys_wr(sys_env_t *e, uint32_t off, uint32_t val);

/** Write the 8 words of a command straight to CMDQ_PUSH (no validation, no queue check). */
tsr_status_t sys_push_raw(sys_env_t *e, const uint32_t w[TSR_CMD_WORDS]);

/**
 * Level of irq_o: 1 high, 0 low, -1 if the HAL cannot tell. Looks through
 * the HAL's wait_irq with a one-cycle bound (the simulator's timeout message
 * is silenced), so it may advance the clock by one cycle.
 */
int sys_irq_level(sys_env_t *e);

/**
 * Poll STATUS until ERROR is set or BUSY is clear, at most `polls` reads.
 * Returns TSR_OK (with the last STATUS in *status) or TSR_TIMEOUT.
 */
tsr_status_t sys_wait_stopped(sys_env_t *e, uint32_t polls, uint32_t *status);

/** Soft reset and wait until the engine is idle again (BUSY clear). */
tsr_status_t sys_soft_reset(sys_env_t *e);

/** AXI protocol violations the memory model has counted since the model was created. */
uint64_t sys_protocol_errors(sys_env_t *e);

/* ---- Memory snapshots ------------------------------------------------------------- */

/** Read all of the external memory (e->cfg.mem_size bytes) into a new buffer; NULL on failure. */
uint8_t *sys_snapshot(sys_env_t *e);

/**
 * Compare two snapshots of `size` bytes, ignoring the rows of one strided
 * region [addr + r*stride, + row_bytes) for r < rows (rows 0: no region).
 * Returns -1 when no other byte differs, else the address of the first
 * differing byte.
 */
int64_t sys_first_change_outside(const uint8_t *before, const uint8_t *after, size_t size,
                                 uint32_t addr, uint32_t stride, uint32_t rows, uint32_t row_bytes);

/* ---- Random GEMM cases ----------------------------------------------------------------- */

/** How sys_case_make draws shapes. */
typedef struct sys_shape_cfg {
  uint32_t max_dim;    /**< M, K and N are drawn from 1..max_dim */
  unsigned small_pct;  /**< chance that a dimension comes from 1..small_max instead */
  uint32_t small_max;
  unsigned large_pct;  /**< chance that a dimension comes from large_min..max_dim */
  uint32_t large_min;
} sys_shape_cfg_t;

/** One random GEMM job: everything but the operand bytes, which follow from the seed. */
typedef struct sys_case {
  uint32_t seed;
  tsr_gemm_desc_t d;       /**< addresses, strides, output settings */
  tsr_gemm_opts_t opts;    /**< planner limits (often none) */
  unsigned operands;       /**< 0 uniform int8, 1 only -128/127, 2 small -3..3 */
  int32_t shift_base;      /**< centre of the per-channel shifts */
  unsigned bias_bits;      /**< bias values in +-2^bias_bits (32: any int32) */
  tsr_sim_cfg_t sim;       /**< memory-model settings for this case */
} sys_case_t;

/** Draw a case from `seed`: shapes per `shape`, placement inside `mem_size` bytes. */
void sys_case_make(uint32_t seed, const sys_shape_cfg_t *shape, uint64_t mem_size, sys_case_t *c);

/** One line naming every setting of `c` (for failure messages). */
void sys_case_describe(const sys_case_t *c, char *buf, size_t len);

/** What a case measured. */
typedef struct sys_case_result {
  tsr_gemm_plan_t plan;
  tsr_counters_t cnt;     /**< counters after the job (cleared before it) */
  uint64_t sim_cycles;    /**< simulated cycles of tsr_gemm_run */
  uint64_t window;        /**< simulated cycles from the counter clear to the counter read */
  uint64_t rd_beats;      /**< R beats the memory model accepted during the job */
  uint64_t wr_beats;      /**< W beats the memory model accepted during the job */
  uint64_t outputs;       /**< output elements */
  uint64_t inside;        /**< requantized outputs strictly between act_min and act_max */
} sys_case_result_t;

/**
 * Run `c` on `e`: fill the whole external memory with random bytes, place
 * the operands, soft reset, clear the counters, plan and run the GEMM through
 * the firmware, then compare the whole memory with the expected image (C
 * from tsr_golden_gemm, every other byte unchanged) and check the counters
 * (MACS = m*k*n, DMA_WR = bytes of C, CMDS = commands submitted, DMA_RD =
 * the R beats the memory model served, BUSY at least m*k*n / N^2 and at most
 * CYCLES, CYCLES at most the simulated window) and the AXI protocol checker. Returns 0 on success;
 * otherwise -1 with one line in `msg` (the first differing element as row,
 * col, got, expected, or the first changed byte outside C).
 */
int sys_case_run(sys_env_t *e, const sys_case_t *c, sys_case_result_t *res, char *msg, size_t len);

/** Deliberate faults, to prove that sys_case_run's checks can fail (--break). */
typedef enum sys_break {
  SYS_BREAK_NONE = 0,  /**< normal run */
  SYS_BREAK_GOLDEN,    /**< expect golden + 1 in C[m-1][n-1]: the element check must fire */
  SYS_BREAK_STRAY,     /**< after the job, change one byte outside C (a gap byte between C
                            rows when ldc leaves one, else the byte before C): the
                            unchanged-memory check must fire */
  SYS_BREAK_COUNT_     /**< number of modes; not a mode */
} sys_break_t;

/** The fault sys_case_run injects (SYS_BREAK_NONE unless a suite sets it). */
extern sys_break_t sys_break_mode;

#endif /* SYS_UTIL_H */
