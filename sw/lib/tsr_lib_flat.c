/* tsr_lib_flat.c: the flat C API of tessera_flat.h: libtessera's jobs from plain pointers and scalars, figures in an array. */
#define _POSIX_C_SOURCE 200809L

#include "tessera_flat.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_golden_params.h"
#include "tsr_lib_internal.h"
#include "tsr_net_prog.h"
#include "tsr_quant.h"
#include "tsr_sfu.h"

struct tessera_flat {
  tessera_dev_t *dev;
  char *spec;
  char *trace;
  tessera_open_opts_t opts;
  bool is_sim;
  uint64_t mem_bytes; /* reachable device memory (0: unknown) */
  tessera_gemm_opts_t gemm_opts; /* the cost model assumes the memory the simulator is given */
};

/* ---- Names ----------------------------------------------------------------------------------- */

static const char *const k_fig_names[TESSERA_FLAT_FIGURES] = {
    "cycles",        "busy_cycles",  "macs",           "bus_read_bytes", "bus_write_bytes",
    "commands",      "time.compute", "time.fill",      "time.load_wait", "time.store",
    "time.sfu",      "time.control", "rd_stall_cycles", "wr_stall_cycles", "utilization",
    "wall_seconds",  "sim_cycles",   "plan_commands",  "plan_cycles",  "plan_tiles",
    "host_reg_accesses", "streamed"};

const char *tessera_flat_figure_name(unsigned i) {
  return i < TESSERA_FLAT_FIGURES ? k_fig_names[i] : NULL;
}

static const char *const k_info_names[TESSERA_FLAT_INFOS] = {
    "is_sim",    "id",       "version",  "dim",         "axi_bytes", "cmdq_depth",
    "spad_rows", "acc_rows", "has_sfu",  "store_lanes", "mem_bytes"};

const char *tessera_flat_info_name(unsigned i) {
  return i < TESSERA_FLAT_INFOS ? k_info_names[i] : NULL;
}

const char *tessera_flat_status_str(int status) { return tsr_status_str((tsr_status_t)status); }

/* The counters and figures of a run into fig. */
static void put_figures(const tessera_figures_t *f, double fig[TESSERA_FLAT_FIGURES]) {
  const tsr_counters_t *c = &f->cnt;
  memset(fig, 0, TESSERA_FLAT_FIGURES * sizeof *fig);
  fig[TESSERA_FIG_CYCLES] = (double)c->cycles;
  fig[TESSERA_FIG_BUSY] = (double)c->busy;
  fig[TESSERA_FIG_MACS] = (double)c->macs;
  fig[TESSERA_FIG_BUS_RD] = (double)c->dma_rd;
  fig[TESSERA_FIG_BUS_WR] = (double)c->dma_wr;
  fig[TESSERA_FIG_CMDS] = (double)c->cmds;
  tessera_time_class_t t[TESSERA_TIME_CLASSES];
  tessera_time_classes(c, t);
  for (unsigned i = 0; i < TESSERA_TIME_CLASSES; i++) {
    fig[TESSERA_FIG_TIME0 + i] = (double)t[i].cycles;
  }
  fig[TESSERA_FIG_RD_STALL] = (double)c->rd_stall;
  fig[TESSERA_FIG_WR_STALL] = (double)c->wr_stall;
  fig[TESSERA_FIG_UTILIZATION] = f->utilization;
  fig[TESSERA_FIG_WALL_SECONDS] = f->wall_seconds;
  fig[TESSERA_FIG_SIM_CYCLES] = (double)f->sim_cycles;
  fig[TESSERA_FIG_HOST_REGS] = (double)f->host_reg_accesses;
  fig[TESSERA_FIG_STREAMED] = f->streamed ? 1.0 : 0.0;
}

void tessera_flat_set_submit(tessera_flat_t *h, int regs) {
  if (h != NULL) {
    h->opts.submit = regs ? TESSERA_SUBMIT_REGS : TESSERA_SUBMIT_STREAM;
    tessera_set_submit(h->dev, h->opts.submit);
  }
}

static void put_mismatch(const tessera_mismatch_t *x, int64_t mm[5]) {
  mm[0] = (int64_t)x->count;
  mm[1] = x->row;
  mm[2] = x->col;
  mm[3] = x->got;
  mm[4] = x->want;
}

/* ---- Devices ------------------------------------------------------------------------------------ */

static char *dup_str(const char *s) {
  if (s == NULL) {
    return NULL;
  }
  size_t n = strlen(s) + 1u;
  char *d = malloc(n);
  if (d != NULL) {
    memcpy(d, s, n);
  }
  return d;
}

static tsr_status_t flat_reopen(tessera_flat_t *h, char *err, size_t errlen) {
  tessera_close(h->dev);
  h->dev = NULL;
  tsr_status_t st = tessera_open(h->spec, &h->opts, &h->dev, err, errlen);
  if (st != TSR_OK) {
    return st;
  }
  tessera_info_t info;
  st = tessera_info(h->dev, &info);
  h->is_sim = info.is_sim;
  h->mem_bytes = info.mem_bytes;
  return st;
}

tsr_status_t tessera_flat_open(const char *spec, int mem_latency, int mem_bw, int stall_pct,
                               uint32_t seed, const char *trace, tessera_flat_t **h, char *err,
                               size_t errlen) {
  if (spec == NULL || h == NULL) {
    tsr_lib_err(err, errlen, "tessera_flat_open: no spec or no place for the device");
    return TSR_BAD_ARG;
  }
  *h = NULL;
  if (stall_pct > 100) {
    tsr_lib_err(err, errlen, "stall_pct: %d is outside 0..100", stall_pct);
    return TSR_BAD_ARG;
  }
  tessera_flat_t *f = calloc(1, sizeof *f);
  if (f == NULL) {
    tsr_lib_err(err, errlen, "out of memory");
    return TSR_NO_MEMORY;
  }
  tessera_open_opts_default(&f->opts);
  f->spec = dup_str(spec);
  f->trace = dup_str(trace);
  if (f->spec == NULL || (trace != NULL && f->trace == NULL)) {
    tessera_flat_close(f);
    tsr_lib_err(err, errlen, "out of memory");
    return TSR_NO_MEMORY;
  }
  if (mem_latency >= 0) {
    f->opts.mem_latency = (unsigned)mem_latency;
    f->gemm_opts.mem_latency = mem_latency == 0 ? 1u : (uint32_t)mem_latency; /* 0 counts as 1 */
  }
  if (mem_bw >= 0) {
    f->opts.mem_bw = (unsigned)mem_bw;
    f->gemm_opts.mem_bw = (uint32_t)mem_bw;
  }
  if (stall_pct >= 0) {
    f->opts.stall_pct = (unsigned)stall_pct;
  }
  f->opts.seed = seed;
  f->opts.trace_path = f->trace;
  tsr_status_t st = flat_reopen(f, err, errlen);
  if (st != TSR_OK) {
    tessera_flat_close(f);
    return st;
  }
  *h = f;
  return TSR_OK;
}

void tessera_flat_close(tessera_flat_t *h) {
  if (h == NULL) {
    return;
  }
  tessera_close(h->dev);
  free(h->spec);
  free(h->trace);
  free(h);
}

tsr_status_t tessera_flat_info(tessera_flat_t *h, char *backend, size_t backend_len,
                               double info[TESSERA_FLAT_INFOS]) {
  if (h == NULL || info == NULL) {
    return TSR_BAD_ARG;
  }
  tessera_info_t i;
  tsr_status_t st = tessera_info(h->dev, &i);
  if (st != TSR_OK) {
    return st;
  }
  if (backend != NULL && backend_len != 0u) {
    snprintf(backend, backend_len, "%s", i.backend);
  }
  const double v[TESSERA_FLAT_INFOS] = {i.is_sim,    i.id,       i.version,  i.dim,
                                        i.axi_bytes, i.cmdq_depth, i.spad_rows, i.acc_rows,
                                        i.has_sfu,   i.store_lanes, (double)i.mem_bytes};
  memcpy(info, v, sizeof v);
  return TSR_OK;
}

/* A job needs `need` bytes of device memory: open the simulator again with enough. */
static tsr_status_t flat_ensure_mem(tessera_flat_t *h, uint64_t need, char *err, size_t errlen) {
  if (h->mem_bytes == 0u || need <= h->mem_bytes) {
    return TSR_OK;
  }
  if (!h->is_sim) {
    tsr_lib_err(err, errlen,
                "the job needs %" PRIu64 " bytes of device memory; the device has %" PRIu64, need,
                h->mem_bytes);
    return TSR_BAD_ARG;
  }
  h->opts.mem_bytes = need;
  return flat_reopen(h, err, errlen);
}

/* ---- Checks and tables ----------------------------------------------------------------------------- */

static int zp_ok(int32_t zp) { return zp >= -128 && zp <= 127; }

static tsr_status_t bad_zp(const char *what, int32_t zp, char *err, size_t errlen) {
  tsr_lib_err(err, errlen, "%s: %" PRId32 " is outside -128..127", what, zp);
  return TSR_BAD_ARG;
}

static tsr_status_t check_act(int32_t act_min, int32_t act_max, char *err, size_t errlen) {
  if (!zp_ok(act_min) || !zp_ok(act_max) || act_min > act_max) {
    tsr_lib_err(err, errlen,
                "act_min %" PRId32 " .. act_max %" PRId32
                " must be within -128..127 with act_min <= act_max",
                act_min, act_max);
    return TSR_BAD_ARG;
  }
  return TSR_OK;
}

static tsr_status_t golden_failed(const char *what, char *err, size_t errlen) {
  tsr_lib_err(err, errlen,
              "%s: the golden model cannot derive its own parameters from these scales,"
              " so check=True cannot compare",
              what);
  return TSR_BAD_ARG;
}

/* Table functions by name, as the CLI's --op names them (docs/sfu.md, "Lookup tables"). */
static const struct {
  const char *name;
  tsr_lut_fn_t fn;
} k_lut_fns[] = {{"sigmoid", TSR_LUT_LOGISTIC}, {"tanh", TSR_LUT_TANH},
                 {"gelu", TSR_LUT_GELU},        {"gelu-tanh", TSR_LUT_GELU_TANH},
                 {"silu", TSR_LUT_SILU},        {"exp", TSR_LUT_EXP},
                 {"hardswish", TSR_LUT_HARDSWISH}};

const char *tessera_flat_lut_names(void) {
  return "sigmoid, tanh, gelu, gelu-tanh, silu, exp, hardswish";
}

/* The chip's table of `name` into lut and, when gold is not NULL, the golden model's. */
static tsr_status_t flat_tables(const char *name, double in_scale, int32_t in_zp, double out_scale,
                                int32_t out_zp, int8_t *lut, int8_t *gold, char *err,
                                size_t errlen) {
  size_t i = 0;
  const size_t count = sizeof k_lut_fns / sizeof k_lut_fns[0];
  while (i < count && (name == NULL || strcmp(k_lut_fns[i].name, name) != 0)) {
    i++;
  }
  if (i == count) {
    tsr_lib_err(err, errlen, "unknown function '%s' (%s)", name != NULL ? name : "",
                tessera_flat_lut_names());
    return TSR_BAD_ARG;
  }
  if (!zp_ok(in_zp)) {
    return bad_zp("in_zp", in_zp, err, errlen);
  }
  if (!zp_ok(out_zp)) {
    return bad_zp("out_zp", out_zp, err, errlen);
  }
  if (lut == NULL ||
      tsr_lut_populate(k_lut_fns[i].fn, (float)in_scale, in_zp, (float)out_scale, out_zp, lut) != 0) {
    tsr_lib_err(err, errlen, "%s: cannot tabulate with in_scale %g and out_scale %g", name,
                in_scale, out_scale);
    return TSR_BAD_ARG;
  }
  if (gold != NULL &&
      tsr_golden_lut(k_lut_fns[i].fn, in_scale, in_zp, out_scale, out_zp, gold) != 0) {
    return golden_failed(name, err, errlen);
  }
  return TSR_OK;
}

tsr_status_t tessera_flat_lut(const char *name, double in_scale, int32_t in_zp, double out_scale,
                              int32_t out_zp, int8_t *lut, char *err, size_t errlen) {
  return flat_tables(name, in_scale, in_zp, out_scale, out_zp, lut, NULL, err, errlen);
}

/* ---- GEMM ------------------------------------------------------------------------------------------ */

tsr_status_t tessera_flat_gemm(tessera_flat_t *h, uint32_t m, uint32_t k, uint32_t n,
                               const int8_t *a, const int8_t *b, const int32_t *bias, int32_t a_zp,
                               int requant, const int32_t *mult, const int32_t *shift,
                               int32_t mult_scalar, int32_t shift_scalar, int32_t out_zp,
                               int32_t act_min, int32_t act_max, const char *act,
                               double act_scale, const int8_t *lut, double leaky_alpha, int check,
                               void *out,
                               double fig[TESSERA_FLAT_FIGURES], int64_t mm[5], char *err,
                               size_t errlen) {
  if (h == NULL || a == NULL || b == NULL || out == NULL || fig == NULL || mm == NULL) {
    tsr_lib_err(err, errlen, "tessera_flat_gemm: no device, operand, output or figures");
    return TSR_BAD_ARG;
  }
  if (m == 0u || k == 0u || n == 0u) {
    tsr_lib_err(err, errlen, "A is %ux%u and B is %ux%u: every dimension must be at least 1", m,
                k, k, n);
    return TSR_BAD_ARG;
  }
  if ((mult == NULL) != (shift == NULL)) {
    tsr_lib_err(err, errlen, "give per-channel multipliers and shifts together");
    return TSR_BAD_ARG;
  }
  memset(mm, 0, 5 * sizeof *mm);
  memset(fig, 0, TESSERA_FLAT_FIGURES * sizeof *fig);
  int32_t *folded = NULL;
  int32_t *mult_neg = NULL;
  int32_t *shift_neg = NULL;
  tsr_status_t st = TSR_OK;
  tessera_gemm_t job;
  memset(&job, 0, sizeof job);
  job.m = m;
  job.k = k;
  job.n = n;
  job.a = a;
  job.b = b;
  job.bias = bias;
  job.requant = requant != 0;
  job.mult = job.requant ? mult : NULL;
  job.shift = job.requant ? shift : NULL;
  job.mult_scalar = mult_scalar;
  job.shift_scalar = shift_scalar;
  job.out_zp = out_zp;
  job.act_min = act_min;
  job.act_max = act_max;
  int8_t act_lut[256];
  int8_t gold_lut[256];
  if (act != NULL) {
    if (!job.requant || lut != NULL) {
      tsr_lib_err(err, errlen, "act %s: %s", act,
                  lut != NULL ? "give a function or a table, not both"
                              : "needs requantization (int8 output)");
      return TSR_BAD_ARG;
    }
    st = flat_tables(act, act_scale, out_zp, act_scale, out_zp, act_lut, check ? gold_lut : NULL,
                     err, errlen);
    if (st != TSR_OK) {
      return st;
    }
    job.lut = act_lut;
  } else {
    job.lut = lut;
  }
  if (a_zp != 0) {
    folded = malloc((size_t)n * sizeof *folded);
    if (folded == NULL) {
      tsr_lib_err(err, errlen, "out of memory");
      return TSR_NO_MEMORY;
    }
    if ((st = tessera_gemm_fold_a_zp(k, n, b, bias, a_zp, folded, err, errlen)) != TSR_OK) {
      goto done;
    }
    job.bias = folded;
  }
  if (leaky_alpha >= 0.0) {
    if (!job.requant || leaky_alpha > 1.0) {
      tsr_lib_err(err, errlen, "leaky: alpha %g %s", leaky_alpha,
                  job.requant ? "is outside 0..1" : "needs requantization (int8 output)");
      st = TSR_BAD_ARG;
      goto done;
    }
    /* The chip's negative-side multipliers, then the golden model's own after them. */
    mult_neg = malloc(2u * (size_t)n * sizeof *mult_neg);
    shift_neg = malloc(2u * (size_t)n * sizeof *shift_neg);
    if (mult_neg == NULL || shift_neg == NULL) {
      tsr_lib_err(err, errlen, "out of memory");
      st = TSR_NO_MEMORY;
      goto done;
    }
    if ((st = tessera_gemm_leaky(&job, leaky_alpha, mult_neg, shift_neg, err, errlen)) != TSR_OK) {
      goto done;
    }
    if (check && tsr_golden_leaky_params(n, leaky_alpha, job.mult, job.shift, mult_scalar,
                                         shift_scalar, mult_neg + n, shift_neg + n) != 0) {
      st = golden_failed("leaky", err, errlen);
      goto done;
    }
    job.mult_neg = mult_neg;
    job.shift_neg = shift_neg;
  }
  uint64_t need = 0;
  if ((st = tessera_gemm_mem_bytes(&job, &need, err, errlen)) != TSR_OK ||
      (st = flat_ensure_mem(h, need, err, errlen)) != TSR_OK) {
    goto done;
  }
  tessera_gemm_result_t res;
  if ((st = tessera_gemm_run(h->dev, &job, h->is_sim ? &h->gemm_opts : NULL, out, &res, err,
                             errlen)) != TSR_OK) {
    goto done;
  }
  put_figures(&res.fig, fig);
  fig[TESSERA_FIG_PLAN_CMDS] = (double)res.plan.cmds;
  fig[TESSERA_FIG_PLAN_CYCLES] = (double)res.plan.est_cycles;
  fig[TESSERA_FIG_PLAN_TILES] = (double)res.plan.tiles;
  if (check) {
    /* The golden model with its own table of `act` and leaky multipliers (tsr_golden_params.h). */
    tessera_gemm_t gold = job;
    gold.lut = act != NULL ? gold_lut : job.lut;
    gold.mult_neg = job.mult_neg != NULL ? mult_neg + n : NULL;
    gold.shift_neg = job.shift_neg != NULL ? shift_neg + n : NULL;
    tessera_mismatch_t x;
    if ((st = tessera_gemm_check(&gold, out, &x, err, errlen)) == TSR_OK) {
      put_mismatch(&x, mm);
    }
  }
done:
  free(folded);
  free(mult_neg);
  free(shift_neg);
  return st;
}

/* ---- SFU ---------------------------------------------------------------------------------------- */

/* Run `chip` on the device; with check, compare with the golden model running `gold`. */
static tsr_status_t flat_sfu(tessera_flat_t *h, const tessera_sfu_t *chip,
                             const tessera_sfu_t *gold, int check, void *out,
                             double fig[TESSERA_FLAT_FIGURES], int64_t mm[5], char *err,
                             size_t errlen) {
  if (h == NULL || chip->in == NULL || out == NULL || fig == NULL || mm == NULL) {
    tsr_lib_err(err, errlen, "%s: no device, input, output or figures",
                tessera_sfu_func_name(chip->func));
    return TSR_BAD_ARG;
  }
  if (chip->rows == 0u || chip->len == 0u || chip->len > TSR_SFU_LEN_MAX) {
    tsr_lib_err(err, errlen, "%u x %u: rows must be at least 1 and the row length 1..%d",
                chip->rows, chip->len, TSR_SFU_LEN_MAX);
    return TSR_BAD_ARG;
  }
  memset(mm, 0, 5 * sizeof *mm);
  memset(fig, 0, TESSERA_FLAT_FIGURES * sizeof *fig);
  uint64_t need = 0;
  tsr_status_t st;
  if ((st = tessera_sfu_mem_bytes(chip, &need, err, errlen)) != TSR_OK ||
      (st = flat_ensure_mem(h, need, err, errlen)) != TSR_OK) {
    return st;
  }
  tessera_sfu_result_t res;
  if ((st = tessera_sfu_run(h->dev, chip, out, &res, err, errlen)) != TSR_OK) {
    return st;
  }
  put_figures(&res.fig, fig);
  fig[TESSERA_FIG_PLAN_CMDS] = (double)res.plan.cmds;
  fig[TESSERA_FIG_PLAN_TILES] = (double)res.plan.blocks;
  if (check) {
    tessera_mismatch_t x;
    if ((st = tessera_sfu_check(gold, out, &x, err, errlen)) == TSR_OK) {
      put_mismatch(&x, mm);
    }
  }
  return st;
}

static void sfu_job(tessera_sfu_t *j, uint32_t func, uint32_t rows, uint32_t len, const int8_t *x) {
  memset(j, 0, sizeof *j);
  j->func = func;
  j->rows = rows;
  j->len = len;
  j->in = x;
}

tsr_status_t tessera_flat_map(tessera_flat_t *h, uint32_t rows, uint32_t len, const int8_t *x,
                              const char *name, double in_scale, int32_t in_zp, double out_scale,
                              int32_t out_zp, const int8_t *lut, int check, void *out,
                              double fig[TESSERA_FLAT_FIGURES], int64_t mm[5], char *err,
                              size_t errlen) {
  int8_t chip_lut[256];
  int8_t gold_lut[256];
  tessera_sfu_t chip;
  tessera_sfu_t gold;
  sfu_job(&chip, TSR_FUNC_MAP, rows, len, x);
  if (name != NULL) {
    tsr_status_t st = flat_tables(name, in_scale, in_zp, out_scale, out_zp, chip_lut,
                                  check ? gold_lut : NULL, err, errlen);
    if (st != TSR_OK) {
      return st;
    }
    chip.lut = chip_lut;
  } else if (lut != NULL) {
    chip.lut = lut;
  } else {
    tsr_lib_err(err, errlen, "MAP: give a function name or a table");
    return TSR_BAD_ARG;
  }
  gold = chip;
  gold.lut = name != NULL ? gold_lut : lut;
  return flat_sfu(h, &chip, &gold, check, out, fig, mm, err, errlen);
}

tsr_status_t tessera_flat_softmax(tessera_flat_t *h, uint32_t rows, uint32_t len, const int8_t *x,
                                  double in_scale, double beta, int check, void *out,
                                  double fig[TESSERA_FLAT_FIGURES], int64_t mm[5], char *err,
                                  size_t errlen) {
  tsr_softmax_params_t p;
  tsr_softmax_params_t gp;
  if (tsr_softmax_prepare(beta, in_scale, &p) != 0) {
    tsr_lib_err(err, errlen,
                "softmax: beta %g with in_scale %g gives no usable multiplier (both must be > 0"
                " and beta * in_scale * 2^26 above 1)",
                beta, in_scale);
    return TSR_BAD_ARG;
  }
  if (check && tsr_golden_softmax_params(beta, in_scale, &gp) != 0) {
    return golden_failed("softmax", err, errlen);
  }
  int32_t words[TSR_SOFTMAX_PARAM_WORDS];
  int32_t gwords[TSR_SOFTMAX_PARAM_WORDS];
  memcpy(words, &p, sizeof words);
  memcpy(gwords, check ? &gp : &p, sizeof gwords);
  tessera_sfu_t chip;
  sfu_job(&chip, TSR_FUNC_SOFTMAX, rows, len, x);
  chip.param = words;
  chip.param_words = TSR_SOFTMAX_PARAM_WORDS;
  tessera_sfu_t gold = chip;
  gold.param = gwords;
  return flat_sfu(h, &chip, &gold, check, out, fig, mm, err, errlen);
}

tsr_status_t tessera_flat_layernorm(tessera_flat_t *h, uint32_t rows, uint32_t len,
                                    const int8_t *x, const int8_t *gamma, const float *beta_f,
                                    const int32_t *beta_q, double in_scale, double eps,
                                    int32_t gamma_zp, double gamma_scale, double out_scale,
                                    int32_t out_zp, int32_t act_min, int32_t act_max, int check,
                                    void *out, double fig[TESSERA_FLAT_FIGURES], int64_t mm[5],
                                    char *err, size_t errlen) {
  if (gamma == NULL || (beta_f == NULL) == (beta_q == NULL) || len == 0u ||
      len > TSR_SFU_LEN_MAX) {
    tsr_lib_err(err, errlen, "layernorm: give gamma and one of beta_f, beta_q, and a row length"
                             " 1..%d", TSR_SFU_LEN_MAX);
    return TSR_BAD_ARG;
  }
  if (!zp_ok(gamma_zp)) {
    return bad_zp("gamma_zp", gamma_zp, err, errlen);
  }
  if (!zp_ok(out_zp)) {
    return bad_zp("out_zp", out_zp, err, errlen);
  }
  if (check_act(act_min, act_max, err, errlen) != TSR_OK) {
    return TSR_BAD_ARG;
  }
  if (!(eps >= 0.0) || isinf(eps)) {
    tsr_lib_err(err, errlen, "layernorm: eps %g must be finite and >= 0", eps);
    return TSR_BAD_ARG;
  }
  tsr_layernorm_params_t p;
  tsr_layernorm_params_t gp;
  if (tsr_layernorm_prepare(len, in_scale, eps, gamma_zp, gamma_scale, out_scale, out_zp, &p) !=
      0) {
    tsr_lib_err(err, errlen,
                "layernorm: no parameters for in_scale %g, eps %g, gamma_scale %g, out_scale %g"
                " (a scale is not positive, epsilon is too large, or the output multiplier"
                " gamma_scale / 2^12 / out_scale is not representable)",
                in_scale, eps, gamma_scale, out_scale);
    return TSR_BAD_ARG;
  }
  if (check && tsr_golden_layernorm_params(len, in_scale, eps, gamma_zp, gamma_scale, out_scale,
                                           out_zp, &gp) != 0) {
    return golden_failed("layernorm", err, errlen);
  }
  p.act_min = gp.act_min = act_min;
  p.act_max = gp.act_max = act_max;
  int32_t *bq = malloc(2u * (size_t)len * sizeof *bq);
  if (bq == NULL) {
    tsr_lib_err(err, errlen, "out of memory");
    return TSR_NO_MEMORY;
  }
  int32_t *gbq = bq + len;
  tsr_status_t st = TSR_OK;
  if (beta_q != NULL) {
    memcpy(bq, beta_q, (size_t)len * sizeof *bq);
    memcpy(gbq, beta_q, (size_t)len * sizeof *gbq);
  } else if (tsr_layernorm_quantize_beta(len, beta_f, gamma_scale, bq) != 0) {
    tsr_lib_err(err, errlen,
                "layernorm: a beta value is NaN or does not fit int32 at the accumulator scale"
                " gamma_scale * 2^-12 = %g",
                gamma_scale / 4096.0);
    st = TSR_BAD_ARG;
  } else if (check && tsr_golden_layernorm_beta(len, beta_f, gamma_scale, gbq) != 0) {
    st = golden_failed("layernorm", err, errlen);
  }
  if (st == TSR_OK) {
    int32_t words[TSR_LAYERNORM_PARAM_WORDS];
    int32_t gwords[TSR_LAYERNORM_PARAM_WORDS];
    memcpy(words, &p, sizeof words);
    memcpy(gwords, check ? &gp : &p, sizeof gwords);
    tessera_sfu_t chip;
    sfu_job(&chip, TSR_FUNC_LAYERNORM, rows, len, x);
    chip.in2 = gamma;
    chip.beta = bq;
    chip.param = words;
    chip.param_words = TSR_LAYERNORM_PARAM_WORDS;
    tessera_sfu_t gold = chip;
    gold.beta = check ? gbq : bq;
    gold.param = gwords;
    st = flat_sfu(h, &chip, &gold, check, out, fig, mm, err, errlen);
  }
  free(bq);
  return st;
}

/* ADD and MUL: the zero points, B and the clamp, checked alike (op names the function). */
static tsr_status_t two_tensor_args(const char *op, const int8_t *b, int32_t a_zp, int32_t b_zp,
                                    int32_t out_zp, int32_t act_min, int32_t act_max, char *err,
                                    size_t errlen) {
  const struct {
    const char *what;
    int32_t v;
  } zps[] = {{"a_zp", a_zp}, {"b_zp", b_zp}, {"out_zp", out_zp}};
  for (size_t i = 0; i < sizeof zps / sizeof zps[0]; i++) {
    if (!zp_ok(zps[i].v)) {
      return bad_zp(zps[i].what, zps[i].v, err, errlen);
    }
  }
  if (b == NULL) {
    tsr_lib_err(err, errlen, "%s: no B", op);
    return TSR_BAD_ARG;
  }
  return check_act(act_min, act_max, err, errlen) != TSR_OK ? TSR_BAD_ARG : TSR_OK;
}

/* ADD and MUL on the chip with the preparation's block, against the golden model with its own. */
static tsr_status_t two_tensor_run(tessera_flat_t *h, uint32_t func, uint32_t rows, uint32_t len,
                                   const int8_t *a, const int8_t *b, const int32_t *words,
                                   const int32_t *gwords, uint32_t n_words, int check, void *out,
                                   double fig[TESSERA_FLAT_FIGURES], int64_t mm[5], char *err,
                                   size_t errlen) {
  tessera_sfu_t chip;
  sfu_job(&chip, func, rows, len, a);
  chip.in2 = b;
  chip.param = words;
  chip.param_words = n_words;
  tessera_sfu_t gold = chip;
  gold.param = check ? gwords : words;
  return flat_sfu(h, &chip, &gold, check, out, fig, mm, err, errlen);
}

static tsr_status_t bad_scales(const char *op, double a_scale, double b_scale, double out_scale,
                               char *err, size_t errlen) {
  tsr_lib_err(err, errlen,
              "%s: a_scale %g, b_scale %g and out_scale %g: a scale is not positive and finite"
              " or the output multiplier cannot be represented",
              op, a_scale, b_scale, out_scale);
  return TSR_BAD_ARG;
}

tsr_status_t tessera_flat_add(tessera_flat_t *h, uint32_t rows, uint32_t len, const int8_t *a,
                              const int8_t *b, double a_scale, int32_t a_zp, double b_scale,
                              int32_t b_zp, double out_scale, int32_t out_zp, int32_t act_min,
                              int32_t act_max, int check, void *out,
                              double fig[TESSERA_FLAT_FIGURES], int64_t mm[5], char *err,
                              size_t errlen) {
  tsr_status_t st = two_tensor_args("add", b, a_zp, b_zp, out_zp, act_min, act_max, err, errlen);
  if (st != TSR_OK) {
    return st;
  }
  tsr_add_params_t p;
  tsr_add_params_t gp;
  if (tsr_add_prepare(a_scale, a_zp, b_scale, b_zp, out_scale, out_zp, &p) != 0) {
    return bad_scales("add", a_scale, b_scale, out_scale, err, errlen);
  }
  if (check && tsr_golden_add_params(a_scale, a_zp, b_scale, b_zp, out_scale, out_zp, &gp) != 0) {
    return golden_failed("add", err, errlen);
  }
  p.act_min = gp.act_min = act_min;
  p.act_max = gp.act_max = act_max;
  int32_t words[TSR_ADD_PARAM_WORDS];
  int32_t gwords[TSR_ADD_PARAM_WORDS];
  memcpy(words, &p, sizeof words);
  memcpy(gwords, check ? &gp : &p, sizeof gwords);
  return two_tensor_run(h, TSR_FUNC_ADD, rows, len, a, b, words, gwords, TSR_ADD_PARAM_WORDS,
                        check, out, fig, mm, err, errlen);
}

tsr_status_t tessera_flat_mul(tessera_flat_t *h, uint32_t rows, uint32_t len, const int8_t *a,
                              const int8_t *b, double a_scale, int32_t a_zp, double b_scale,
                              int32_t b_zp, double out_scale, int32_t out_zp, int32_t act_min,
                              int32_t act_max, int check, void *out,
                              double fig[TESSERA_FLAT_FIGURES], int64_t mm[5], char *err,
                              size_t errlen) {
  tsr_status_t st = two_tensor_args("mul", b, a_zp, b_zp, out_zp, act_min, act_max, err, errlen);
  if (st != TSR_OK) {
    return st;
  }
  tsr_mul_params_t p;
  tsr_mul_params_t gp;
  if (tsr_mul_prepare(a_scale, a_zp, b_scale, b_zp, out_scale, out_zp, &p) != 0) {
    return bad_scales("mul", a_scale, b_scale, out_scale, err, errlen);
  }
  if (check && tsr_golden_mul_params(a_scale, a_zp, b_scale, b_zp, out_scale, out_zp, &gp) != 0) {
    return golden_failed("mul", err, errlen);
  }
  p.act_min = gp.act_min = act_min;
  p.act_max = gp.act_max = act_max;
  int32_t words[TSR_MUL_PARAM_WORDS];
  int32_t gwords[TSR_MUL_PARAM_WORDS];
  memcpy(words, &p, sizeof words);
  memcpy(gwords, check ? &gp : &p, sizeof gwords);
  return two_tensor_run(h, TSR_FUNC_MUL, rows, len, a, b, words, gwords, TSR_MUL_PARAM_WORDS,
                        check, out, fig, mm, err, errlen);
}

tsr_status_t tessera_flat_reduce(tessera_flat_t *h, uint32_t rows, uint32_t len, const int8_t *x,
                                 int check, void *out, double fig[TESSERA_FLAT_FIGURES],
                                 int64_t mm[5], char *err, size_t errlen) {
  tessera_sfu_t job;
  sfu_job(&job, TSR_FUNC_REDUCE, rows, len, x);
  return flat_sfu(h, &job, &job, check, out, fig, mm, err, errlen);
}

/* ---- Networks ---------------------------------------------------------------------------------- */

const char *tessera_flat_net_kind(unsigned k) { return tsr_net_kind_name(k); }

static void put_io(const tsr_net_tensor_t *t, int64_t *io) {
  io[0] = t->type;
  io[1] = t->rank;
  for (uint32_t d = 0; d < TSR_NET_MAX_RANK; d++) {
    io[2 + d] = d < t->rank ? t->shape[d] : 0;
  }
}

/* A .tsr as it is, a .tflite compiled for `target` with the compiler's flags. */
static tsr_status_t flat_prog(const void *model, size_t model_len, const tsr_dev_info_t *target,
                              uint32_t flags, tsr_net_prog_t **p, char *err, size_t errlen) {
  if ((flags & ~(uint32_t)(TSR_NET_ALLOW_HOST | TSR_NET_NO_FUSE)) != 0u) {
    tsr_lib_err(err, errlen, "compiler flags 0x%x: only allow_host (1) and no_fuse (2) exist", flags);
    return TSR_BAD_ARG;
  }
  if (tsr_net_is_tsr(model, model_len)) {
    return tsr_net_load(model, model_len, p, err, errlen);
  }
  return tsr_net_compile_flags(model, model_len, target, flags, p, err, errlen);
}

tsr_status_t tessera_flat_net_describe(const void *model, size_t model_len, uint32_t dim,
                                       uint32_t flags, int64_t io[TESSERA_FLAT_NET_IO], char *err,
                                       size_t errlen) {
  tsr_net_prog_t *p = NULL;
  if (io == NULL) {
    tsr_lib_err(err, errlen, "tessera_flat_net_describe: no place for the answer");
    return TSR_BAD_ARG;
  }
  tsr_dev_info_t target;
  tsr_net_default_target(dim, &target);
  tsr_status_t st = flat_prog(model, model_len, &target, flags, &p, err, errlen);
  if (st != TSR_OK) {
    return st;
  }
  put_io(&p->tensors[p->input], io);
  put_io(&p->tensors[p->output], io + 6);
  io[12] = p->n_layers;
  tsr_net_free(p);
  return TSR_OK;
}

tsr_status_t tessera_flat_net_run(tessera_flat_t *h, const void *model, size_t model_len,
                                  uint32_t flags, const void *x, size_t x_bytes, void *out, size_t out_bytes,
                                  int check, int per_layer, double *layers, uint32_t max_layers,
                                  double total[6], char *err, size_t errlen) {
  if (h == NULL || h->dev == NULL || total == NULL) {
    tsr_lib_err(err, errlen, "tessera_flat_net_run: no device or no place for the figures");
    return TSR_BAD_ARG;
  }
  tsr_net_prog_t *p = NULL;
  tsr_status_t st = flat_prog(model, model_len, &h->dev->dev.info, flags, &p, err, errlen);
  if (st != TSR_OK) {
    return st;
  }
  tessera_net_result_t res;
  memset(&res, 0, sizeof res);
  if (p->n_layers > max_layers || (layers == NULL && p->n_layers != 0u)) {
    tsr_lib_err(err, errlen, "the model has %u layers; room for %u was given", p->n_layers,
                max_layers);
    st = TSR_BAD_ARG;
  }
  if (st == TSR_OK &&
      (st = flat_ensure_mem(h, tsr_net_mem_bytes(p), err, errlen)) == TSR_OK &&
      /* a reopened simulator has the same configuration */
      (st = tessera_net_run(h->dev, p, x, x_bytes, out, out_bytes, check != 0, per_layer != 0,
                            &res, err, errlen)) == TSR_OK) {
    for (uint32_t i = 0; i < res.n_layers; i++) {
      const tessera_net_layer_fig_t *f = &res.layers[i];
      double *r = layers + (size_t)i * TESSERA_FLAT_NET_LAYER_FIGS;
      r[0] = f->op_index;
      r[1] = f->kind;
      r[2] = f->on_chip;
      r[3] = (double)f->cnt.cycles;
      r[4] = (double)f->cnt.cmds;
      r[5] = (double)f->cnt.macs;
      r[6] = (double)f->cnt.dma_rd;
      r[7] = (double)f->cnt.dma_wr;
      r[8] = f->checked ? (double)f->mismatches : -1.0;
      r[9] = f->wall_seconds;
    }
    total[0] = (double)res.cycles;
    total[1] = (double)res.cmds;
    total[2] = (double)res.macs;
    total[3] = res.checked ? (double)res.mismatches : -1.0;
    total[4] = res.wall_seconds;
    total[5] = res.streams;
  }
  tessera_net_result_free(&res);
  tsr_net_free(p);
  return st;
}
