/* fuzz_chip.h: the chip fuzzer's programs, command generators and command-ring bookkeeping. */
#ifndef FUZZ_CHIP_H
#define FUZZ_CHIP_H

/*
 * Shared by fuzz_chip.c (program text, running, invariants, main) and
 * fuzz_ring.c (the command-ring generators and what a run must remember of
 * the ring registers). The program language is described in fuzz_chip.c.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sys_util.h"

#define FZ_MAX_ACTIONS 64u
#define FZ_MEM_SIZE SYS_MEM_SIZE

typedef enum { A_WRITE, A_CMD, A_STEP, A_MEM } act_kind_t;

/** One program line: w (off, val), c (w), s (val), m (off = address, w = the 32 bytes). */
typedef struct act {
  act_kind_t kind;
  uint32_t off, val;
  uint32_t w[TSR_CMD_WORDS];
} act_t;

typedef struct prog {
  bool has_faults;
  tsr_sim_faults_t faults;
  bool has_guard;          /* "g": a locked DMA window guard_lo..guard_hi */
  uint32_t guard_lo, guard_hi;
  bool has_expect;         /* "x": the program predicts how the chip stops */
  uint32_t expect_code, expect_addr;
  bool has_expect_idx;     /* ... and ERR_CMD_IDX (the third number of "x") */
  uint32_t expect_idx;
  unsigned n;
  act_t a[FZ_MAX_ACTIONS];
} prog_t;

/** Array dimension of the model under test (--dim). */
extern unsigned fz_dim;

/* ---- fuzz_prog.c -------------------------------------------------------------------------- */

/** A program: about a third are ring programs (fz_gen_ring), the rest plain ones. */
void fz_gen(sys_rng_t *r, prog_t *p);
/** The program as text (the lines of fuzz_chip.c's header comment). */
void fz_prog_print(FILE *f, const prog_t *p);
/** Read a program; 0, or -1 with a line on stderr. */
int fz_prog_load(const char *path, prog_t *p);

/* Generators. */
uint32_t fz_rnd(sys_rng_t *r, uint32_t lo, uint32_t hi);
uint32_t fz_extreme(sys_rng_t *r);
void fz_cmd_load(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]);
void fz_cmd_matmul(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]);
void fz_cmd_store(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]);
void fz_cmd_sfu(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]);
void fz_mutate(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]);
void fz_reg_write(sys_rng_t *r, act_t *a);

/* ---- fuzz_ring.c ------------------------------------------------------------------------ */

/**
 * A command-ring program: command images written into a ring with "m" lines
 * (firmware-like lists, garbage slots, STOREs over the ring's own slots),
 * RING_BASE / SIZE / CTRL / TAIL through "w" lines (rings inside the DMA
 * window, across its edge or past the end of memory, misaligned base or
 * size, tails past the end or misaligned, the tail advanced in steps with
 * cycles between), sometimes ENABLE toggled, a soft reset or a slot
 * rewritten in the middle, RING_BASE / RING_SIZE changed under the running
 * ring (misuse), or an open DMA window cut to end inside it. When the outcome follows from the program alone
 * (benign commands before the bad slot), an "x" line states it.
 */
void fz_gen_ring(sys_rng_t *r, prog_t *p);

/** What a run remembers of the ring registers it wrote. */
typedef struct fz_ring_track {
  uint32_t base, size, tail, ctrl;           /* current register values */
  uint32_t cfg_base[FZ_MAX_ACTIONS + 1];     /* every (RING_BASE, RING_SIZE) pair the registers held */
  uint32_t cfg_size[FZ_MAX_ACTIONS + 1];
  unsigned ncfg;
  uint32_t tails[FZ_MAX_ACTIONS + 1];        /* every RING_TAIL value written */
  unsigned ntail;
  bool used;                                 /* a ring register was written */
} fz_ring_track_t;

/** Start: all ring registers 0 (the run writes them so). */
void fz_ring_track_init(fz_ring_track_t *t);
/** A register write the chip accepted. */
void fz_ring_track_write(fz_ring_track_t *t, uint32_t off, uint32_t val);
/**
 * True if `addr` is a slot the fetcher may have read: a RING_BASE (a multiple
 * of 32) plus a multiple of 32 below the largest RING_SIZE the registers held
 * (every base with every size, for registers changed under a running ring).
 */
bool fz_ring_is_slot(const fz_ring_track_t *t, uint64_t addr);
/** The largest RING_SIZE (a multiple of 32) the registers held. */
uint32_t fz_ring_max_size(const fz_ring_track_t *t);
/** True if `addr` = a RING_BASE + a multiple of 32 below a RING_SIZE the registers held
 *  (ERR_ADDR of FETCH_BUS: the base may have changed under a burst). */
bool fz_ring_fetch_addr(const fz_ring_track_t *t, uint32_t addr);
/** True if `addr` is a command address of a ring that crosses 2^32, wrapped to 32 bits
 *  (RING_BASE + offset >= 2^32: the chip reports RING_WINDOW there, at the wrapped address). */
bool fz_ring_wrapped_addr(const fz_ring_track_t *t, uint32_t addr);
/** True if some recorded (RING_BASE, RING_TAIL) pair gives `addr` = base + tail. */
bool fz_ring_is_tail_addr(const fz_ring_track_t *t, uint32_t addr);
/** True if `addr` is a RING_BASE value the registers held. */
bool fz_ring_is_base(const fz_ring_track_t *t, uint32_t addr);

#endif /* FUZZ_CHIP_H */
