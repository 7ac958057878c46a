/* sys_reset.h: hard and soft resets in the middle of a job, for the reset suite and the soak. */
#ifndef SYS_RESET_H
#define SYS_RESET_H

/*
 * The driver and the firmware only see a HAL. To stop a job at a chosen
 * simulated cycle, a "trip" HAL sits between them and the simulator's HAL:
 * it forwards every access until the simulated clock reaches trip_at, then
 * performs the trip (a hard reset of rst_ni, or CTRL.SOFT_RESET) and from then
 * on answers every register access with TSR_BUS, as a host would see a device
 * that went away, so tsr_gemm_run returns at once. Its wait_irq steps the
 * clock one cycle at a time, so the trip lands on the exact cycle even while
 * the driver sleeps on the interrupt.
 *
 * Hard resets use the simulator directly (tb/tsr_sim.h through
 * tsr_hal_sim_raw): tsr_sim_reset, tsr_sim_step, tsr_sim_axi_active.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys_util.h"

/** Simulator functions the HAL does not offer, taken from the loaded library. */
typedef struct sys_simraw {
  tsr_sim_t *sim;
  void (*reset)(tsr_sim_t *, unsigned);
  void (*step)(tsr_sim_t *, uint64_t);
  int (*irq)(const tsr_sim_t *);
  unsigned (*axi_active)(const tsr_sim_t *);
  void (*mem_stats)(const tsr_sim_t *, tsr_sim_mem_stats_t *);
} sys_simraw_t;

/** Fill `r` for the simulator of `e`. TSR_OK, or a status with one line in `err`. */
tsr_status_t sys_simraw_get(sys_env_t *e, sys_simraw_t *r, char *err, size_t len);

/** What a trip does. */
typedef enum sys_trip_kind {
  SYS_TRIP_HARD = 0,  /**< hold rst_ni low for reset_cycles cycles */
  SYS_TRIP_SOFT       /**< write CTRL.SOFT_RESET (the engine drains and idles) */
} sys_trip_kind_t;

/** When a trip fires, once the clock has passed trip_at. */
typedef enum sys_trip_when {
  SYS_WHEN_AT = 0,     /**< at once */
  SYS_WHEN_ARRAY,      /**< at the first moment OPCODE reads MATMUL (the array computes) */
  SYS_WHEN_DMA         /**< at the first moment a valid is up on the AXI4 bus (burst in flight) */
} sys_trip_when_t;

/** State seen just before a trip. */
typedef struct sys_trip_seen {
  unsigned axi;           /**< tsr_sim_axi_active bits at the trip */
  bool dma_moving;        /**< R or W beats moved over the last 8 cycles before the trip */
  bool array_busy;        /**< OPCODE read MATMUL a few cycles before the trip */
  uint32_t status;        /**< STATUS before the trip */
  bool ring_pending;      /**< with a ring: RING_HEAD != RING_TAIL before the trip (unfetched commands) */
} sys_trip_seen_t;

/** A trip HAL: fill the first block, then sys_trip_init. */
typedef struct sys_trip {
  sys_env_t *env;          /**< the simulator being wrapped (its HAL is used) */
  sys_simraw_t raw;
  sys_trip_kind_t kind;
  uint64_t trip_at;        /**< simulated cycle of the trip (UINT64_MAX: never) */
  unsigned reset_cycles;   /**< cycles rst_ni is held low (hard) */
  sys_trip_when_t when;    /**< condition that must hold too (default: none) */
  uint32_t ring_base;      /**< ring_size != 0: the job goes through a command ring the driver */
  uint32_t ring_size;      /**< sets up there (tsr_ring_attach), like --submit stream; 0: CMDQ_PUSH */
  /* filled in */
  bool tripped;
  sys_trip_seen_t seen;
  tsr_status_t trip_status; /**< TSR_OK, or what failed while tripping (soft reset timeout) */
  bool started;            /**< the first register access happened */
  uint8_t *image;          /**< memory at the first register access (the job's start image) */
  uint64_t start_cycle;    /**< simulated cycle of that access; trip_at counts from here */
  tsr_hal_t hal;           /**< the HAL to give tsr_dev_open */
} sys_trip_t;

/** Make t->hal forward to t->env's HAL. t->env, t->raw and the settings must be set. */
void sys_trip_init(sys_trip_t *t);

/** Free what the trip HAL holds (the image copy). */
void sys_trip_free(sys_trip_t *t);

/**
 * After a hard reset: check that the AXI4 bus stays quiet (no valid on any
 * channel, the memory model accepts no burst and no beat) for `quiet`
 * cycles, that no AXI protocol error was counted since `pe_before`, and
 * that the chip is idle: STATUS BUSY and ERROR clear, ERR_CODE 0,
 * IRQ_STATUS 0, irq_o low, CMDQ_STATUS.FREE = the queue depth. Reopens the
 * driver on e->hal (tsr_dev_open). 0, or -1 with one line in `msg`.
 */
int sys_check_after_hard_reset(sys_env_t *e, const sys_simraw_t *r, unsigned quiet,
                               uint64_t pe_before, char *msg, size_t len);

/**
 * Run case `c` with sys_case_run on a trip HAL over `e` that trips `t->trip_at`
 * cycles after its first register access (the driver talks through the
 * trip HAL; memory and statistics go straight to e->hal). If the job ends first, its result
 * was checked bit-exact as usual. If the trip comes first, check that no byte
 * outside the C region changed, then (hard trip) sys_check_after_hard_reset,
 * or (soft trip) that the soft reset left the engine idle. With a ring
 * (t->ring_size), the ring's bytes may change too, and after the trip the ring
 * registers must say it is empty: a soft reset keeps RING_CTRL.ENABLE and sets
 * RING_HEAD to RING_TAIL, a hard reset clears RING_CTRL, RING_HEAD and
 * RING_TAIL. Returns 0 (see t->tripped), or -1 with one line in `msg`.
 */
int sys_run_with_trip(sys_env_t *e, sys_trip_t *t, const sys_case_t *c, char *msg, size_t len);

#endif /* SYS_RESET_H */
