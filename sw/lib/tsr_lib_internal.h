/* tsr_lib_internal.h: what the files of libtessera share and nothing outside sw/lib/ uses. */
#ifndef TSR_LIB_INTERNAL_H
#define TSR_LIB_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "tessera.h"
#include "tsr_hal.h"
#include "tsr_ring.h"

/* Register polls while the queue is full before giving up on the simulator (each
 * poll is an AXI4-Lite read of a few cycles; keeps a hang below the sim watchdog). */
#define TSR_LIB_SIM_POLL_LIMIT 20000000u

struct tessera_dev {
  tsr_hal_t hal;
  tsr_dev_t dev;
  bool is_sim;
  uint64_t mem_bytes;    /* reachable device memory, 0: unknown */
  const char *mem_hint;  /* see tessera_open_opts_t; never NULL */
  tessera_submit_t submit;
  tsr_ring_t ring;       /* the job's command ring while one runs (submit STREAM) */
  uint64_t reg_acc0;     /* tsr_host_reg_accesses at the job's start */
  struct tsr_lib_soc *soc; /* "soc:N": the SoC whose core runs each job (tsr_lib_soc.c), else NULL */
};

/** Write one line into err (may be NULL / 0 long): newlines become spaces. */
void tsr_lib_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/** x rounded up to a multiple of a. */
uint64_t tsr_lib_align_up(uint64_t x, uint64_t a);

/** Seconds since t0 (CLOCK_MONOTONIC). */
double tsr_lib_seconds_since(const struct timespec *t0);

/** The driver's error of a device, with the UART link's reason when there is one. */
void tsr_lib_dev_err(const tessera_dev_t *d, const char *what, char *err, size_t errlen);

/** TSR_OK when a layout ending at `end` fits 32-bit addresses, else a message
 *  "<what> need N bytes of external memory; addresses are 32-bit<tail>". */
tsr_status_t tsr_lib_fits(uint64_t end, const char *what, const char *tail, char *err,
                          size_t errlen);

/** One tensor to copy into device memory, if `when`. */
typedef struct tsr_lib_upload {
  bool when;
  uint64_t addr;
  const void *src;
  size_t n;
  const char *what;  /* for the message */
} tsr_lib_upload_t;

/** Upload each tensor of up[0..n-1] whose `when` is set; stops at the first failure. */
tsr_status_t tsr_lib_upload_all(tessera_dev_t *dev, const tsr_lib_upload_t *up, size_t n,
                                char *err, size_t errlen);

/* The next jobs go through a command ring: submit is STREAM and the device's memory size is
 * known (uio:/devmem: devices without one use the registers). */
bool tsr_lib_streams(const tessera_dev_t *d);

/** Soft reset and clear the counters before a job of about `cmds` commands whose tensors end
 *  at `end`; with submit STREAM, a ring for all of them right after `end` (smaller if the
 *  memory ends first; none, and the registers, if not even two slots fit). */
tsr_status_t tsr_lib_begin(tessera_dev_t *d, uint64_t end, uint64_t cmds, char *err,
                           size_t errlen);

/** Counters after a job, the wall time and backend cycles since (t0, cyc0), the host's
 *  register accesses; the ring, if any, is detached. */
tsr_status_t tsr_lib_end(tessera_dev_t *d, const struct timespec *t0, uint64_t cyc0,
                         tessera_figures_t *fig, char *err, size_t errlen);

/* ---- The SoC backend (tsr_lib_soc.c): the firmware on the SoC's core runs each job ---- */

struct tsr_soc_job;

/** Open "soc:N": load build/soc/lib/libtsrsoc_dN.so and the firmware image, run its INFO job
 *  and fill d->hal (external memory only), d->dev.info and d->mem_bytes. */
tsr_status_t tsr_lib_soc_open(unsigned dim, const tessera_open_opts_t *o, tessera_dev_t *d,
                              char *err, size_t errlen);

/** Run `job` (the host's half filled, kind GEMM, SFU or STREAM) on the core of a fresh SoC
 *  whose memory holds what was uploaded since the last job; a command ring for `cmds`
 *  commands after `end` unless submit is REGS. The firmware's half comes back in *job, the
 *  figures in *fig. A fault, a watchdog or a failed job: one line in err. */
tsr_status_t tsr_lib_soc_run(tessera_dev_t *d, struct tsr_soc_job *job, uint64_t end, uint64_t cmds,
                             tessera_figures_t *fig, char *err, size_t errlen);

/** A GEMM on the core: the firmware plans `desc` with the options `po` (as the host did into
 *  `plan`, which must come out the same) and runs it. */
tsr_status_t tsr_lib_soc_gemm(tessera_dev_t *d, const tsr_gemm_desc_t *desc, const tsr_gemm_opts_t *po,
                              const tsr_gemm_plan_t *plan, uint64_t end, tessera_figures_t *fig, char *err,
                              size_t errlen);

/** An SFU job on the core (the host's `plan` for the ring's size and a check). */
tsr_status_t tsr_lib_soc_sfu(tessera_dev_t *d, const tsr_sfu_desc_t *desc, const tsr_sfu_plan_t *plan,
                             uint64_t end, tessera_figures_t *fig, char *err, size_t errlen);

struct tsr_net_prog;

/** Layers from..to of a network on the core: their captured commands uploaded after the arena
 *  at `base`, relocated by the firmware (tsr_net_relocate), one FENCE between two layers, one
 *  wait (tsr_net_run.c's chip_run on the host does the same). */
tsr_status_t tsr_lib_soc_stream(tessera_dev_t *d, const struct tsr_net_prog *p, uint32_t from, uint32_t to,
                                uint64_t base, tessera_figures_t *fig, char *err, size_t errlen);

/* ---- The bench sweep's files (tsr_lib_bench.c, tsr_lib_roofline.c) ---- */

/** The sweep's groups, in the order of roofline.dat's blocks and the plot's markers. */
#define TSR_LIB_BENCH_GROUPS 5
extern const char *const tsr_lib_bench_groups[TSR_LIB_BENCH_GROUPS];

/** x rounded to `places` decimals, written the shortest way ("64", "4.2667"), as Python's
 *  round() and str() write it; returns buf. */
const char *tsr_lib_fmt_round(char buf[40], double x, int places);

/** roofline.gp for the rows (it reads roofline.dat from its own directory). */
void tsr_lib_roofline_gp(FILE *f, const tessera_bench_meta_t *meta, const tessera_bench_row_t *rows,
                         size_t n);

#endif /* TSR_LIB_INTERNAL_H */
