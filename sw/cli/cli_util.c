/* cli_util.c: the CLI's option values, .npy inputs, the device from the common options, progress and time figures. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* ---- Option values ------------------------------------------------------------------------ */

/* Parse a whole decimal (or 0x-hex) integer within [lo, hi]. */
int get_int(const args_t *a, opt_id_t id, int64_t lo, int64_t hi, int64_t *out) {
  const char *s = a->val[id];
  errno = 0;
  char *end = NULL;
  long long v = strtoll(s, &end, 0);
  if (errno != 0 || end == s || *end != '\0') {
    die_line("--%s: '%s' is not an integer", opt_name(id), s);
    return -1;
  }
  if (v < lo || v > hi) {
    die_line("--%s: %lld is outside %" PRId64 "..%" PRId64, opt_name(id), v, lo, hi);
    return -1;
  }
  *out = (int64_t)v;
  return 0;
}

/* --dim (default 8): a power of two. */
int get_dim(const args_t *ar, unsigned *dim) {
  int64_t v = 8;
  if (ar->set[O_DIM]) {
    if (get_int(ar, O_DIM, 1, 128, &v) != 0) {
      return -1;
    }
    if ((v & (v - 1)) != 0) {
      die_line("--dim: %" PRId64 " is not a power of two (builds exist for 4, 8 and 16)", v);
      return -1;
    }
  }
  *dim = (unsigned)v;
  return 0;
}

/* Parse a finite real number. */
int get_double(const args_t *a, opt_id_t id, double *out) {
  const char *s = a->val[id];
  errno = 0;
  char *end = NULL;
  double v = strtod(s, &end);
  if (errno == ERANGE || end == s || *end != '\0' || !isfinite(v)) {
    die_line("--%s: '%s' is not a finite number", opt_name(id), s);
    return -1;
  }
  *out = v;
  return 0;
}

/* A scale: finite and > 0. */
int get_scale(const args_t *a, opt_id_t id, double *out) {
  if (get_double(a, id, out) != 0) {
    return -1;
  }
  if (!(*out > 0.0) || *out > 1e30) {
    die_line("--%s: %s is not a valid scale (it must be > 0)", opt_name(id), a->val[id]);
    return -1;
  }
  return 0;
}

/* A zero point: -128..127, default 0 when the option is absent. */
int get_zp(const args_t *a, opt_id_t id, int32_t *out) {
  *out = 0;
  if (!a->set[id]) {
    return 0;
  }
  int64_t v = 0;
  if (get_int(a, id, -128, 127, &v) != 0) {
    return -1;
  }
  *out = (int32_t)v;
  return 0;
}

/* Table functions by name (docs/sfu.md, "Lookup tables"). */
static const struct {
  const char *name;
  tsr_lut_fn_t fn;
} k_lut_fns[] = {{"sigmoid", TSR_LUT_LOGISTIC}, {"tanh", TSR_LUT_TANH},
                 {"gelu", TSR_LUT_GELU},        {"gelu-tanh", TSR_LUT_GELU_TANH},
                 {"silu", TSR_LUT_SILU},        {"exp", TSR_LUT_EXP},
                 {"hardswish", TSR_LUT_HARDSWISH}};
int lut_fn_of(const char *name, tsr_lut_fn_t *fn) {
  for (size_t i = 0; i < sizeof k_lut_fns / sizeof k_lut_fns[0]; i++) {
    if (strcmp(k_lut_fns[i].name, name) == 0) {
      *fn = k_lut_fns[i].fn;
      return 0;
    }
  }
  return -1;
}

/* A table from a .npy file: int8, shape (256,). */
int load_lut_npy(const char *path, int8_t lut[256]) {
  tsr_npy_t t;
  memset(&t, 0, sizeof t);
  char err[512];
  if (tsr_npy_read(path, &t, err, sizeof err) != 0) {
    die_line("%s", err);
    return -1;
  }
  char shp[128];
  int rc = -1;
  if (t.dtype != TSR_NPY_INT8) {
    die_line("%s: a lookup table must be int8 (256,), got %s %s", path,
             tsr_npy_dtype_name(t.dtype), shape_str(&t, shp, sizeof shp));
  } else if (t.ndim != 1 || t.shape[0] != 256) {
    die_line("%s: a lookup table must have shape (256,), got %s", path,
             shape_str(&t, shp, sizeof shp));
  } else {
    memcpy(lut, t.data, 256);
    rc = 0;
  }
  tsr_npy_free(&t);
  return rc;
}

/* ---- .npy inputs ---------------------------------------------------------------------------- */

const char *shape_str(const tsr_npy_t *t, char *buf, size_t len) {
  size_t used = (size_t)snprintf(buf, len, "(");
  for (int i = 0; i < t->ndim && used < len; i++) {
    used += (size_t)snprintf(buf + used, len - used, "%s%zu", i ? "," : "", t->shape[i]);
  }
  if (used < len) {
    snprintf(buf + used, len - used, t->ndim == 1 ? ",)" : ")");
  }
  return buf;
}

/* Read `path` and check it is `dtype` with `ndim` dimensions. */
int load_npy(const char *path, tsr_npy_dtype_t dtype, int ndim, tsr_npy_t *t) {
  char err[512];
  if (tsr_npy_read(path, t, err, sizeof err) != 0) {
    die_line("%s", err);
    return -1;
  }
  char shp[128];
  if (t->dtype != dtype) {
    die_line("%s: expected %s, got %s %s", path, tsr_npy_dtype_name(dtype),
             tsr_npy_dtype_name(t->dtype), shape_str(t, shp, sizeof shp));
    return -1;
  }
  if (t->ndim != ndim) {
    die_line("%s: expected a %d-D array, got shape %s", path, ndim, shape_str(t, shp, sizeof shp));
    return -1;
  }
  return 0;
}

/* Write a 1-D (d0,) or 2-D (d0, d1) tensor of `dtype` to `path`. */
int save_npy(const char *path, tsr_npy_dtype_t dtype, int ndim, size_t d0, size_t d1, void *data) {
  tsr_npy_t t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.ndim = ndim;
  t.shape[0] = d0;
  t.shape[1] = ndim == 2 ? d1 : 0;
  t.count = ndim == 2 ? d0 * d1 : d0;
  t.data = data;
  char err[512];
  if (tsr_npy_write(path, &t, err, sizeof err) != 0) {
    die_line("%s", err);
    return -1;
  }
  return 0;
}

/* Option `id`, if given, as an int32 within [lo, hi] into *out (left as it is otherwise). */
int get_i32_opt(const args_t *a, opt_id_t id, int64_t lo, int64_t hi, int32_t *out) {
  int64_t v = 0;
  if (!a->set[id]) {
    return 0;
  }
  if (get_int(a, id, lo, hi, &v) != 0) {
    return -1;
  }
  *out = (int32_t)v;
  return 0;
}

/* ---- The device ----------------------------------------------------------------------------- */

/* --hal, --device or the simulator, with the options that apply to each. */
int cli_open(const args_t *ar, uint64_t mem_bytes, tessera_dev_t **dev, tessera_info_t *info) {
  *dev = NULL;
  tessera_open_opts_t o;
  tessera_open_opts_default(&o);
  o.mem_bytes = mem_bytes;
  o.mem_hint = "give --dma with --device";
  if (get_dim(ar, &o.dim) != 0) {
    return -1;
  }
  int64_t v = 0;
  const char *spec = ar->set[O_HAL] ? ar->val[O_HAL] : "sim";
  const bool uart = strncmp(spec, "uart:", 5) == 0 || strcmp(spec, "uart-sim") == 0;
  /* soc: the firmware on the co-simulation SoC's core runs each job (docs/soc.md). */
  const bool soc = strcmp(spec, "soc") == 0;
  if (!uart && !soc && strcmp(spec, "sim") != 0) {
    die_line("--hal: unknown backend '%s' (sim, soc, uart:PATH[,BAUD] or uart-sim)", spec);
    return -1;
  }
  if (ar->set[O_HAL] && !uart && ar->set[O_DEVICE]) {
    die_line("--device does not apply to --hal %s", spec);
    return -1;
  }
  if (soc && ar->set[O_MEM_BW]) {
    die_line("--mem-bw does not apply to --hal soc (its memory model has no bandwidth cap)");
    return -1;
  }
  if (uart) {
    /* The UART host link (docs/fpga.md, "Host link"): a board, or its simulation. */
    const opt_id_t not_uart[] = {O_DEVICE, O_DMA, O_MEM_LATENCY, O_MEM_BW, O_STALL_PCT, O_TRACE};
    for (size_t i = 0; i < sizeof not_uart / sizeof not_uart[0]; i++) {
      if (ar->set[not_uart[i]] && !(not_uart[i] == O_TRACE && spec[4] == '-')) {
        die_line("--%s does not apply to --hal %s", opt_name(not_uart[i]), spec);
        return -1;
      }
    }
  } else if (ar->set[O_DEVICE]) {
    const opt_id_t sim_only[] = {O_TRACE, O_MEM_LATENCY, O_MEM_BW, O_STALL_PCT};
    for (size_t i = 0; i < sizeof sim_only / sizeof sim_only[0]; i++) {
      if (ar->set[sim_only[i]]) {
        die_line("--%s applies to the simulator, not to --device", opt_name(sim_only[i]));
        return -1;
      }
    }
    spec = ar->val[O_DEVICE];
    o.dma_spec = ar->set[O_DMA] ? ar->val[O_DMA] : NULL;
  } else {
    if (ar->set[O_DMA]) {
      die_line("--dma needs --device");
      return -1;
    }
    if (ar->set[O_MEM_LATENCY]) {
      if (get_int(ar, O_MEM_LATENCY, 0, 100000, &v) != 0) {
        return -1;
      }
      o.mem_latency = (unsigned)v;
    }
    if (ar->set[O_MEM_BW]) {
      if (get_int(ar, O_MEM_BW, 0, 4096, &v) != 0) {
        return -1;
      }
      o.mem_bw = (unsigned)v;
    }
    if (ar->set[O_STALL_PCT]) {
      if (get_int(ar, O_STALL_PCT, 0, 100, &v) != 0) {
        return -1;
      }
      o.stall_pct = (unsigned)v;
    }
    if (ar->set[O_SEED]) {
      if (get_int(ar, O_SEED, 0, UINT32_MAX, &v) != 0) {
        return -1;
      }
      o.seed = (uint32_t)v;
    }
  }
  o.trace_path = ar->set[O_TRACE] ? ar->val[O_TRACE] : NULL;
  if (ar->set[O_SUBMIT]) {
    if (strcmp(ar->val[O_SUBMIT], "regs") == 0) {
      o.submit = TESSERA_SUBMIT_REGS;
    } else if (strcmp(ar->val[O_SUBMIT], "stream") != 0) {
      die_line("--submit: '%s' is neither stream nor regs", ar->val[O_SUBMIT]);
      return -1;
    }
  }
  char err[TESSERA_ERRLEN];
  if (tessera_open(spec, &o, dev, err, sizeof err) != TSR_OK) {
    die_line("%s", err);
    return -1;
  }
  tessera_info(*dev, info);
  if (uart && info->mem_bytes != 0u && mem_bytes > info->mem_bytes) {
    die_line("the job needs %" PRIu64 " bytes of device memory; the board behind --hal %s has %" PRIu64,
             mem_bytes, spec, info->mem_bytes);
    return -1;
  }
  if (ar->set[O_DIM] && info->dim != o.dim) {
    die_line("--dim %u, but the device reports ARRAY_DIM %u", o.dim, info->dim);
    return -1;
  }
  return 0;
}

/* ---- Progress on a terminal ------------------------------------------------------------------ */

static double seconds_since(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t0->tv_sec) + 1e-9 * (double)(now.tv_nsec - t0->tv_nsec);
}

void progress_init(progress_t *p, bool enabled) {
  memset(p, 0, sizeof *p);
  p->enabled = enabled;
  clock_gettime(CLOCK_MONOTONIC, &p->start);
}

void on_progress(void *user, uint32_t done, uint32_t total, uint64_t cycles) {
  progress_t *p = user;
  if (!p->enabled) {
    return;
  }
  double t = seconds_since(&p->start);
  if (t < 2.0 || t - p->last < 0.2) {
    return;
  }
  p->last = t;
  p->shown = true;
  fprintf(g_cli_err, "\r  tiles %u/%u, %" PRIu64 " cycles simulated, %.1f s elapsed", done, total,
          cycles, t);
  fflush(g_cli_err);
}

void progress_clear(progress_t *p) {
  if (p->shown) {
    fprintf(g_cli_err, "\r%-79s\r", "");
    fflush(g_cli_err);
    p->shown = false;
  }
}

/* ---- Where the time went ---------------------------------------------------------------------- */

static double pct(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * (double)part / (double)whole;
}

void print_time_json(const tsr_counters_t *c) {
  tessera_time_class_t t[TESSERA_TIME_CLASSES];
  tessera_time_classes(c, t);
  fprintf(g_cli_out, ", \"time\": {");
  for (int i = 0; i < TESSERA_TIME_CLASSES; i++) {
    fprintf(g_cli_out, "%s\"%s\": %" PRIu64, i != 0 ? ", " : "", t[i].key, t[i].cycles);
  }
  fprintf(g_cli_out, "}, \"memory_stall\": {\"read\": %" PRIu64 ", \"write\": %" PRIu64 "}",
          c->rd_stall, c->wr_stall);
}

void print_time_text(const tsr_counters_t *c) {
  tessera_time_class_t t[TESSERA_TIME_CLASSES];
  tessera_time_classes(c, t);
  fprintf(g_cli_out, "  time:");
  const char *sep = " ";
  for (int i = 0; i < TESSERA_TIME_CLASSES; i++) {
    if (t[i].cycles != 0) {
      fprintf(g_cli_out, "%s%.1f %% %s", sep, pct(t[i].cycles, c->busy), t[i].words);
      sep = ", ";
    }
  }
  fprintf(g_cli_out, "; memory stalls: read %.1f %%, write %.1f %% of the busy cycles\n",
          pct(c->rd_stall, c->busy), pct(c->wr_stall, c->busy));
}

void print_link_note(const tessera_info_t *info) {
  if (strcmp(info->backend, "uart") == 0) {
    fprintf(g_cli_out, "  note: over the serial link the host's register and memory traffic sets the pace;"
                       " the cycles and utilization above include the chip waiting for the link"
                       " (--hal sim gives the chip's own)\n");
  }
}

/* The core's side of a job on --hal soc (docs/soc.md, "Figures"): its cycles against the chip's,
 * instructions per command, and whether it handed the commands over before the chip was done. */
static void core_per_cmd(const tessera_figures_t *f, double *instr, double *cyc) {
  const uint64_t cmds = f->cnt.cmds != 0u ? f->cnt.cmds : 1u;
  *instr = (double)f->core.run_instret / (double)cmds;
  *cyc = (double)f->core.submit_cycles / (double)cmds;
}

void print_core_text(const tessera_figures_t *f) {
  if (!f->core.valid) {
    return;
  }
  double instr = 0.0;
  double cyc = 0.0;
  core_per_cmd(f, &instr, &cyc);
  const tessera_core_figures_t *c = &f->core;
  if (c->plan_cycles != 0u) {
    fprintf(g_cli_out, "  core: planned in %" PRIu32 " cycles (%" PRIu32 " instructions)\n", c->plan_cycles,
            c->plan_instret);
  }
  fprintf(g_cli_out, "  core: %" PRIu32
                     " cycles from the counters' clear to the last wait's end, the chip busy %" PRIu64
                     " of them; %.1f instructions, %.1f cycles per command; all handed over after %" PRIu32
                     " cycles (%s); %" PRIu32 " interrupt%s, %" PRIu32 " RING_TAIL writes; %" PRIu64
                     " SoC cycles in all\n",
          c->run_cycles, f->cnt.busy, instr, cyc, c->submit_cycles,
          c->submit_cycles < f->cnt.busy ? "ahead of the chip" : "the chip waited on the core",
          c->chip_irqs, c->chip_irqs == 1u ? "" : "s", c->ring_flushes, c->soc_cycles);
}

void print_core_json(const tessera_figures_t *f) {
  if (!f->core.valid) {
    return;
  }
  double instr = 0.0;
  double cyc = 0.0;
  core_per_cmd(f, &instr, &cyc);
  const tessera_core_figures_t *c = &f->core;
  fprintf(g_cli_out,
          ", \"core\": {\"soc_cycles\": %" PRIu64 ", \"plan_cycles\": %" PRIu32 ", \"plan_instructions\": %" PRIu32
          ", \"run_cycles\": %" PRIu32 ", \"run_instructions\": %" PRIu32 ", \"chip_cycles\": %" PRIu64
          ", \"chip_busy_cycles\": %" PRIu64 ", \"chip_idle_cycles\": %" PRIu64 ", \"commands\": %" PRIu64
          ", \"instructions_per_command\": %.1f, \"submit_cycles\": %" PRIu32 ", \"submit_cycles_per_command\": %.1f"
          ", \"ring_ahead\": %s, \"ring_flushes\": %" PRIu32 ", \"chip_irqs\": %" PRIu32 ", \"firmware_bytes\": %" PRIu32
          "}",
          c->soc_cycles, c->plan_cycles, c->plan_instret, c->run_cycles, c->run_instret, f->cnt.cycles, f->cnt.busy,
          f->cnt.cycles - f->cnt.busy, f->cnt.cmds, instr, c->submit_cycles, cyc,
          c->submit_cycles < f->cnt.busy ? "true" : "false", c->ring_flushes, c->chip_irqs, c->code_bytes);
}

void print_wall_json(const tessera_figures_t *f, const tessera_info_t *info) {
  fprintf(g_cli_out, ", \"submit\": \"%s\", \"host_reg_accesses\": %" PRIu64 ", \"wall_seconds\": %.3f",
          f->streamed ? "stream" : "regs", f->host_reg_accesses, f->wall_seconds);
  if (strcmp(info->backend, "uart") == 0) {
    fprintf(g_cli_out, ", \"paced_by\": \"serial link\"");
  }
  if (info->is_sim) {
    fprintf(g_cli_out, ", \"sim_cycles\": %" PRIu64 ", \"sim_cycles_per_second\": %.0f",
            f->sim_cycles, f->wall_seconds > 0 ? (double)f->sim_cycles / f->wall_seconds : 0.0);
  }
  print_core_json(f);
}
