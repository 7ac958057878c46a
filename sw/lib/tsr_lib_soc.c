/* tsr_lib_soc.c: the "soc:N" device: each job runs on the co-simulation SoC's core (picorv32 + tsr_top), in the real firmware image, with the operands in the SoC's memory. */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsr_hal_host.h"
#include "tsr_lib_internal.h"
#include "tsr_net_prog.h"
#include "tsr_soc_job.h"
#include "tsr_soc_api.h"

/*
 * docs/soc.md, "tessera --hal soc". The host never touches tsr_top's registers:
 * the device's HAL reaches only the SoC's external memory (the memory model the
 * chip's DMA and the core share). A job is: the uploads, then tsr_lib_soc_run,
 * which writes the job block (fw/include/tsr_soc_job.h), releases the core's
 * reset, runs the simulation until the firmware writes EXIT and reads the block
 * back. Each job starts from reset with the image loaded again into the RAM; the
 * external memory keeps its contents from job to job, as a board's would.
 *
 * The library (build/soc/lib/libtsrsoc_d<N>.so, or $TSR_SOC_LIB_DIR) and the
 * image (build/fw/elf/tessera.bin, or the file $TSR_SOC_FW) are found next to the
 * program as the simulator's libraries are.
 */

/* The watchdog of one job, in SoC cycles ($TSR_SOC_MAX_CYCLES overrides it). */
#define SOC_MAX_CYCLES 4000000000ull
/* The console's last bytes, kept for the message of a failed run. */
#define SOC_CONSOLE_BYTES 512u


struct tsr_lib_soc {
  void *dl;
  tsr_ssim_api_t api;
  tsr_ssim_cfg_t cfg;
  tsr_ssim_t *sim;       /* the SoC of the next (or the last) job */
  bool spent;            /* sim has run: the next upload or job resets it first */
  uint8_t *image;        /* the firmware, loaded at RAM address 0 */
  size_t image_bytes;
  uint64_t max_cycles;
  uint64_t cycles;       /* SoC cycles of every run so far */
  char console[SOC_CONSOLE_BYTES];
  size_t console_len;
};

typedef struct tsr_lib_soc soc_t;

static void console_in(void *user, char c) {
  soc_t *s = user;
  if (s->console_len == sizeof s->console - 1u) {
    memmove(s->console, s->console + 1, s->console_len - 1u);
    s->console_len--;
  }
  s->console[s->console_len++] = c;
  s->console[s->console_len] = '\0';
}

/* The console's last non-empty line. */
static const char *console_last_line(soc_t *s, char *buf, size_t len) {
  size_t n = s->console_len;
  while (n > 0u && (s->console[n - 1u] == '\n' || s->console[n - 1u] == '\r')) {
    n--;
  }
  size_t b = n;
  while (b > 0u && s->console[b - 1u] != '\n') {
    b--;
  }
  snprintf(buf, len, "%.*s", (int)(n - b), s->console + b);
  return buf;
}

/* The SoC in reset with the image in its RAM: the last one reset, its external memory kept
 * (a network's arena lives across its jobs), or a new one after a run that did not end with
 * EXIT (its memory is lost with it). */
static tsr_status_t soc_fresh(soc_t *s, char *err, size_t errlen) {
  if (s->sim != NULL && s->api.reset(s->sim) != 0) {
    s->api.destroy(s->sim);
    s->sim = NULL;
  }
  if (s->sim == NULL) {
    char e[256] = "";
    s->sim = s->api.open(&s->cfg, e, sizeof e);
    if (s->sim == NULL) {
      tsr_lib_err(err, errlen, "soc: %s", e);
      return TSR_NO_DEVICE;
    }
  }
  if (s->api.load_ram(s->sim, 0u, s->image, s->image_bytes) != 0) {
    tsr_lib_err(err, errlen, "soc: the firmware image (%zu bytes) does not fit the SoC's %" PRIu32
                " bytes of RAM", s->image_bytes, s->api.ram_bytes());
    return TSR_NO_DEVICE;
  }
  s->spent = false;
  s->console_len = 0u;
  s->console[0] = '\0';
  return TSR_OK;
}

/* ---- The HAL: external memory only ------------------------------------------------------ */

static tsr_status_t soc_read32(void *ctx, uint32_t off, uint32_t *val) {
  (void)ctx;
  (void)off;
  *val = 0u;
  return TSR_UNSUPPORTED; /* the registers are the core's */
}

static tsr_status_t soc_write32(void *ctx, uint32_t off, uint32_t val) {
  (void)ctx;
  (void)off;
  (void)val;
  return TSR_UNSUPPORTED;
}

static tsr_status_t soc_mem_write(void *ctx, uint64_t addr, const void *src, size_t n) {
  soc_t *s = ctx;
  if (s->spent && soc_fresh(s, NULL, 0u) != TSR_OK) {
    return TSR_NO_DEVICE;
  }
  return s->api.mem_write(s->sim, addr, src, n) == 0 ? TSR_OK : TSR_BAD_ARG;
}

static tsr_status_t soc_mem_read(void *ctx, uint64_t addr, void *dst, size_t n) {
  soc_t *s = ctx;
  return s->api.mem_read(s->sim, addr, dst, n) == 0 ? TSR_OK : TSR_BAD_ARG;
}

static uint64_t soc_cycles(void *ctx) {
  const soc_t *s = ctx;
  return s->cycles;
}

static void soc_close(void *ctx) {
  soc_t *s = ctx;
  if (s == NULL) {
    return;
  }
  if (s->sim != NULL) {
    s->api.destroy(s->sim);
  }
  if (s->dl != NULL) {
    dlclose(s->dl);
  }
  free(s->image);
  free(s);
}

static const tsr_hal_ops_t k_soc_ops = {
    .name = "soc",
    .read32 = soc_read32,
    .write32 = soc_write32,
    .wait_irq = NULL,
    .mem_write = soc_mem_write,
    .mem_read = soc_mem_read,
    .cycles = soc_cycles,
    .close = soc_close,
};

/* ---- Opening ------------------------------------------------------------------------------ */

static tsr_status_t read_image(soc_t *s, const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    tsr_lib_err(err, errlen, "soc: no firmware image %s; run 'make fw-elf'", path);
    return TSR_NO_DEVICE;
  }
  size_t cap = 1u << 16;
  s->image = malloc(cap);
  s->image_bytes = 0u;
  for (;;) {
    if (s->image == NULL) {
      fclose(f);
      tsr_lib_err(err, errlen, "soc: out of memory for the firmware image");
      return TSR_NO_MEMORY;
    }
    size_t got = fread(s->image + s->image_bytes, 1, cap - s->image_bytes, f);
    s->image_bytes += got;
    if (got == 0u) {
      break;
    }
    if (s->image_bytes == cap) {
      cap *= 2u;
      uint8_t *nb = realloc(s->image, cap);
      if (nb == NULL) {
        free(s->image);
      }
      s->image = nb;
    }
  }
  fclose(f);
  if (s->image_bytes == 0u) {
    tsr_lib_err(err, errlen, "soc: the firmware image %s is empty", path);
    return TSR_NO_DEVICE;
  }
  return TSR_OK;
}

static tsr_status_t soc_load(soc_t *s, unsigned dim, char *err, size_t errlen) {
  char dir[PATH_MAX];
  if (tsr_host_lib_dir("TSR_SOC_LIB_DIR", "soc/lib", "the SoC libraries", dir, sizeof dir, err, errlen) != 0) {
    return TSR_NO_DEVICE;
  }
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/libtsrsoc_d%u.so", dir, dim);
  if (access(path, R_OK) != 0) {
    tsr_lib_err(err, errlen, "soc: no SoC build for N = %u (%s); run 'make soc-sim DIM=%u'", dim, path, dim);
    return TSR_NO_DEVICE;
  }
  s->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (s->dl == NULL) {
    tsr_lib_err(err, errlen, "soc: %s", dlerror());
    return TSR_NO_DEVICE;
  }
  const char *missing = tsr_ssim_api_load(s->dl, &s->api);
  if (missing != NULL) {
    tsr_lib_err(err, errlen, "soc: %s does not export %s: rebuild it with 'make soc-sim DIM=%u'", path,
                missing, dim);
    return TSR_NO_DEVICE;
  }
  const char *fw = getenv("TSR_SOC_FW");
  char fw_path[PATH_MAX + 32];
  if (fw == NULL || fw[0] == '\0') {
    if (tsr_host_lib_dir("TSR_SOC_FW_DIR", "fw/elf", "the SoC firmware", dir, sizeof dir, err, errlen) != 0) {
      return TSR_NO_DEVICE;
    }
    snprintf(fw_path, sizeof fw_path, "%s/tessera.bin", dir);
    fw = fw_path;
  }
  return read_image(s, fw, err, errlen);
}

tsr_status_t tsr_lib_soc_open(unsigned dim, const tessera_open_opts_t *o, tessera_dev_t *d,
                              char *err, size_t errlen) {
  soc_t *s = calloc(1, sizeof *s);
  if (s == NULL) {
    tsr_lib_err(err, errlen, "soc: out of memory");
    return TSR_NO_MEMORY;
  }
  d->hal.ops = &k_soc_ops;
  d->hal.ctx = s;
  d->soc = s;
  d->is_sim = true;
  tsr_status_t st = soc_load(s, dim, err, errlen);
  if (st != TSR_OK) {
    return st;
  }
  s->api.cfg_default(&s->cfg);
  while (s->cfg.mem_size < o->mem_bytes) {
    s->cfg.mem_size *= 2u;
  }
  if (s->cfg.mem_size > TSR_SOC_EXT_BYTES) {
    tsr_lib_err(err, errlen, "soc: the job needs %" PRIu64 " bytes of memory; the firmware reaches %u",
                o->mem_bytes, TSR_SOC_EXT_BYTES);
    return TSR_BAD_ARG;
  }
  s->cfg.rd_latency = o->mem_latency;
  s->cfg.wr_latency = o->mem_latency;
  s->cfg.stall_pct = o->stall_pct;
  s->cfg.seed = o->seed;
  s->cfg.trace_path = o->trace_path;
  s->cfg.console = console_in;
  s->cfg.console_user = s;
  s->max_cycles = SOC_MAX_CYCLES;
  const char *mc = getenv("TSR_SOC_MAX_CYCLES");
  if (mc != NULL && mc[0] != '\0') {
    s->max_cycles = strtoull(mc, NULL, 0);
  }
  d->mem_bytes = s->cfg.mem_size;
  if ((st = soc_fresh(s, err, errlen)) != TSR_OK) {
    return st;
  }
  /* The device's configuration, as the driver on the core reads it. */
  tsr_soc_job_t job;
  memset(&job, 0, sizeof job);
  job.kind = TSR_SOC_INFO;
  tessera_figures_t fig;
  if ((st = tsr_lib_soc_run(d, &job, 0u, 0u, &fig, err, errlen)) != TSR_OK) {
    return st;
  }
  tsr_dev_info_t *i = &d->dev.info;
  i->id = job.info[0];
  i->version = job.info[1];
  i->dim = job.info[2];
  i->axi_bytes = job.info[3];
  i->cmdq_depth = job.info[4];
  i->spad_rows = job.info[5];
  i->acc_rows = job.info[6];
  i->has_sfu = job.info[7] != 0u;
  i->store_lanes = job.info[8];
  return TSR_OK;
}

/* ---- Running a job ---------------------------------------------------------------------------- */

/* One line for a run that did not end with the firmware's EXIT 0. */
static void run_failed(soc_t *s, const tsr_ssim_result_t *r, char *err, size_t errlen) {
  char line[SOC_CONSOLE_BYTES];
  const char *chip_fmt = "chip STATUS=0x%08" PRIx32 " ERR_CODE=%" PRIu32 " irq_o=%d";
  char chip[96];
  snprintf(chip, sizeof chip, chip_fmt, r->chip_status, r->chip_err, r->irq);
  switch (r->end) {
    case TSR_SSIM_EXIT:
      /* The firmware's own line (trap, assert) names the cause, the PC and STATUS. */
      tsr_lib_err(err, errlen, "soc: the firmware exited with %" PRIu32 " after %" PRIu64 " cycles: %s", r->exit_code,
                  r->cycles, console_last_line(s, line, sizeof line));
      break;
    case TSR_SSIM_TRAP:
      tsr_lib_err(err, errlen, "soc: the core halted (picorv32 trap: a fault with its IRQ masked) at PC=0x%08" PRIx32
                  " after %" PRIu64 " cycles; %s", r->pc, r->cycles, chip);
      break;
    case TSR_SSIM_FAULT:
      if (r->fault_resp == 0u) {
        tsr_lib_err(err, errlen, "soc: bus fault: nothing answers at 0x%08" PRIx32 ", PC=0x%08" PRIx32
                    " after %" PRIu64 " cycles; %s", r->fault_addr, r->pc, r->cycles, chip);
      } else {
        tsr_lib_err(err, errlen, "soc: bus fault: %s answered to the core's access at 0x%08" PRIx32 ", PC=0x%08"
                    PRIx32 " after %" PRIu64 " cycles; %s", r->fault_resp == 3u ? "DECERR" : "SLVERR",
                    r->fault_addr, r->pc, r->cycles, chip);
      }
      break;
    case TSR_SSIM_WATCHDOG:
    default:
      tsr_lib_err(err, errlen, "soc: watchdog: no exit after %" PRIu64 " cycles, PC=0x%08" PRIx32 "; %s",
                  r->cycles, r->pc, chip);
      break;
  }
}

tsr_status_t tsr_lib_soc_run(tessera_dev_t *d, tsr_soc_job_t *job, uint64_t end, uint64_t cmds,
                             tessera_figures_t *fig, char *err, size_t errlen) {
  soc_t *s = d->soc;
  memset(fig, 0, sizeof *fig);
  tsr_status_t st;
  if (s->spent && (st = soc_fresh(s, err, errlen)) != TSR_OK) {
    return st;
  }
  job->magic = TSR_SOC_JOB_MAGIC;
  job->use_irq = 1u;
  job->ring_base = 0u;
  job->ring_size = 0u;
  if (job->kind != TSR_SOC_INFO && tsr_lib_streams(d)) {
    /* As tsr_lib_begin: one slot per command, the one a full ring keeps free, one of slack. */
    const uint64_t base = tsr_lib_align_up(end, TSR_RING_CMD_BYTES);
    uint64_t size = (cmds + 2u) * TSR_RING_CMD_BYTES;
    if (base + size > d->mem_bytes) {
      size = base < d->mem_bytes ? (d->mem_bytes - base) / TSR_RING_CMD_BYTES * TSR_RING_CMD_BYTES : 0u;
    }
    if (size >= TSR_RING_MIN_BYTES) {
      job->ring_base = (uint32_t)base;
      job->ring_size = (uint32_t)size;
    }
  }
  if (job->kind == TSR_SOC_STREAM && job->ring_size != 0u && job->ring_base + job->ring_size - 1u > job->win_hi) {
    job->win_hi = job->ring_base + job->ring_size - 1u; /* the chip fetches its ring inside the window */
  }
  memset(&job->done, 0, sizeof *job - offsetof(tsr_soc_job_t, done));
  if (s->api.mem_write(s->sim, TSR_SOC_JOB_ADDR, job, sizeof *job) != 0) {
    tsr_lib_err(err, errlen, "soc: the job block does not fit the SoC's memory");
    return TSR_BAD_ARG;
  }
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  tsr_ssim_result_t r;
  s->api.run(s->sim, s->max_cycles, &r);
  s->spent = true;
  s->cycles += r.cycles;
  fig->wall_seconds = tsr_lib_seconds_since(&t0);
  fig->sim_cycles = r.cycles;
  tsr_axi_mem_stats_t ms;
  s->api.mem_stats(s->sim, &ms);
  if (r.end != TSR_SSIM_EXIT || r.exit_code != 0u) {
    run_failed(s, &r, err, errlen);
    return TSR_HW_ERROR;
  }
  if (ms.protocol_errors != 0u) {
    tsr_lib_err(err, errlen, "soc: %" PRIu64 " AXI protocol errors on the SoC's memory bus", ms.protocol_errors);
    return TSR_HW_ERROR;
  }
  if (s->api.mem_read(s->sim, TSR_SOC_JOB_ADDR, job, sizeof *job) != 0 || job->done != TSR_SOC_DONE_MAGIC) {
    tsr_lib_err(err, errlen, "soc: the firmware exited without reporting the job");
    return TSR_HW_ERROR;
  }
  job->error[sizeof job->error - 1u] = '\0';
  if (job->status != TSR_OK) {
    const tsr_status_t js = job->status < TSR_STATUS_COUNT_ ? (tsr_status_t)job->status : TSR_HW_ERROR;
    tsr_lib_err(err, errlen, "on the SoC's core: %s%s%s", tsr_status_str(js), job->error[0] != '\0' ? ": " : "",
                job->error);
    return js;
  }
  fig->cnt = job->cnt;
  fig->streamed = job->ring_size != 0u;
  fig->host_reg_accesses = 0u;
  tessera_core_figures_t *c = &fig->core;
  c->valid = true;
  c->soc_cycles = r.cycles;
  c->plan_cycles = job->plan_cycles;
  c->plan_instret = job->plan_instret;
  c->run_cycles = job->run_cycles;
  c->run_instret = job->run_instret;
  c->submit_cycles = job->submit_cycles;
  c->chip_irqs = job->chip_irqs;
  c->ring_flushes = job->ring_flushes;
  c->code_bytes = (uint32_t)s->image_bytes;
  return TSR_OK;
}

tsr_status_t tsr_lib_soc_gemm(tessera_dev_t *d, const tsr_gemm_desc_t *desc, const tsr_gemm_opts_t *po,
                              const tsr_gemm_plan_t *plan, uint64_t end, tessera_figures_t *fig, char *err,
                              size_t errlen) {
  tsr_soc_job_t job;
  memset(&job, 0, sizeof job);
  job.kind = TSR_SOC_GEMM;
  job.gemm = *desc;
  job.max_mt = po->max_mt;
  job.max_kc = po->max_kc;
  job.mem_bw = po->mem_bw;
  job.mem_latency = po->mem_latency;
  job.streamed = po->streamed ? 1u : 0u;
  tsr_status_t st = tsr_lib_soc_run(d, &job, end, plan->cmds, fig, err, errlen);
  if (st != TSR_OK) {
    return st;
  }
  /* The same planner source on both sides: the same plan, or something differs between them. */
  const uint64_t est = (uint64_t)job.plan_est_hi << 32 | job.plan_est_lo;
  if (job.plan_mt != plan->mt || job.plan_kc != plan->kc || job.plan_tiles != plan->tiles ||
      job.plan_cmds != plan->cmds || est != plan->est_cycles) {
    tsr_lib_err(err, errlen, "soc: the core planned mt=%" PRIu32 " kc=%" PRIu32 " tiles=%" PRIu32 " commands=%"
                PRIu32 " cycles=%" PRIu64 ", the host mt=%" PRIu32 " kc=%" PRIu32 " tiles=%" PRIu32 " commands=%"
                PRIu64 " cycles=%" PRIu64, job.plan_mt, job.plan_kc, job.plan_tiles, job.plan_cmds, est, plan->mt,
                plan->kc, plan->tiles, plan->cmds, plan->est_cycles);
    return TSR_HW_ERROR;
  }
  return TSR_OK;
}

tsr_status_t tsr_lib_soc_sfu(tessera_dev_t *d, const tsr_sfu_desc_t *desc, const tsr_sfu_plan_t *plan,
                             uint64_t end, tessera_figures_t *fig, char *err, size_t errlen) {
  tsr_soc_job_t job;
  memset(&job, 0, sizeof job);
  job.kind = TSR_SOC_SFU;
  job.sfu = *desc;
  tsr_status_t st = tsr_lib_soc_run(d, &job, end, plan->cmds, fig, err, errlen);
  if (st == TSR_OK && job.plan_cmds != plan->cmds) {
    tsr_lib_err(err, errlen, "soc: the core planned %" PRIu32 " SFU commands, the host %" PRIu64, job.plan_cmds,
                plan->cmds);
    st = TSR_HW_ERROR;
  }
  return st;
}

tsr_status_t tsr_lib_soc_stream(tessera_dev_t *d, const tsr_net_prog_t *p, uint32_t from, uint32_t to,
                                uint64_t base, tessera_figures_t *fig, char *err, size_t errlen) {
  tsr_soc_job_t job;
  memset(&job, 0, sizeof job);
  job.kind = TSR_SOC_STREAM;
  if (to - from + 1u > TSR_SOC_MAX_SEGS) {
    tsr_lib_err(err, errlen, "soc: %u layers in one command stream; the firmware takes %u", to - from + 1u,
                TSR_SOC_MAX_SEGS);
    return TSR_UNSUPPORTED;
  }
  /* The captured commands as they are, after the arena; the core relocates them. */
  uint64_t cmds = 0u;
  for (uint32_t i = from; i <= to; i++) {
    job.seg_cmds[job.n_segs++] = p->layers[i].cmd_count;
    cmds += p->layers[i].cmd_count;
  }
  const uint64_t at = tsr_lib_align_up(base + p->arena_bytes, TSR_RING_CMD_BYTES);
  uint64_t next = at;
  for (uint32_t i = from; i <= to; i++) {
    const tsr_net_layer_t *l = &p->layers[i];
    const size_t bytes = (size_t)l->cmd_count * sizeof(tsr_cmd_t);
    tsr_status_t st = tessera_upload(d, next, &p->cmds[l->cmd_first], bytes, "a layer's commands", err, errlen);
    if (st != TSR_OK) {
      return st;
    }
    next += bytes;
  }
  job.stream_addr = (uint32_t)at;
  job.cmds = (uint32_t)cmds;
  job.cmd_base = p->cmd_base;
  job.base = (uint32_t)base;
  job.win_lo = (uint32_t)base;
  job.win_hi = (uint32_t)(base + p->arena_bytes - 1u);
  /* One FENCE between two layers. */
  return tsr_lib_soc_run(d, &job, next, cmds + job.n_segs, fig, err, errlen);
}
