/* cli_gemm.c: `tessera gemm`: operands from .npy files or a seed, requantization and activation options, the plan, the run and its report. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tsr_golden_params.h"
#include "tsr_quant.h"

/* ---- The job --------------------------------------------------------------------------------- */

typedef struct job {
  uint32_t m, k, n;
  int8_t *a, *b;           /* row-major, packed */
  int32_t *bias;           /* NULL: none */
  bool requant;
  bool by_scales;          /* --a-scale --w-scale|--w-scale-npy --out-scale */
  bool per_channel;
  int32_t *mult, *shift;   /* per channel (requant && per_channel) */
  int32_t mult_scalar, shift_scalar, out_zp, act_min, act_max;
  bool random;
  uint32_t seed;
  /* fused activation (docs/sfu.md): a table after the clamp, leaky ReLU */
  bool has_lut;
  int8_t lut[256];
  /* The table the golden model checks with: for --act its own, derived from the same
   * scales by separate code (sw/golden/tsr_golden_params.c), so that a wrong entry of
   * lut (sw/lib/tsr_sfu_prep.c) shows as a mismatch; for --act-lut the given table. */
  bool gold_failed;
  int8_t gold_lut[256];
  const char *act;         /* --act name, or "table" for --act-lut, or NULL */
  bool leaky;
  double alpha;
  int32_t *mult_neg, *shift_neg; /* per column (leaky) */
  int32_t *gold_mult_neg, *gold_shift_neg; /* the golden model's own (tsr_golden_leaky_params) */
  /* storage owned by the job */
  tsr_npy_t na, nb, nbias, nmult, nshift, nwscale;
  int32_t *own_bias, *own_mult, *own_shift;
  int8_t *own_a, *own_b;
} job_t;

static void job_free(job_t *j) {
  tsr_npy_free(&j->na);
  tsr_npy_free(&j->nb);
  tsr_npy_free(&j->nbias);
  tsr_npy_free(&j->nmult);
  tsr_npy_free(&j->nshift);
  tsr_npy_free(&j->nwscale);
  free(j->own_bias);
  free(j->own_mult);
  free(j->own_shift);
  free(j->own_a);
  free(j->own_b);
  free(j->mult_neg);
  free(j->shift_neg);
  free(j->gold_mult_neg);
  free(j->gold_shift_neg);
}

/* The job as libtessera takes it. */
static void job_view(const job_t *j, tessera_gemm_t *g) {
  memset(g, 0, sizeof *g);
  g->m = j->m;
  g->k = j->k;
  g->n = j->n;
  g->a = j->a;
  g->b = j->b;
  g->bias = j->bias;
  g->requant = j->requant;
  g->mult = j->per_channel ? j->mult : NULL;
  g->shift = j->per_channel ? j->shift : NULL;
  g->mult_scalar = j->mult_scalar;
  g->shift_scalar = j->shift_scalar;
  g->out_zp = j->out_zp;
  g->act_min = j->act_min;
  g->act_max = j->act_max;
  g->lut = j->has_lut ? j->lut : NULL;
  g->mult_neg = j->leaky ? j->mult_neg : NULL;
  g->shift_neg = j->leaky ? j->shift_neg : NULL;
}

/* gemm --act / --act-lut / --leaky: the table and the negative-side multipliers. */
static int job_activation(const args_t *ar, job_t *j) {
  const opt_id_t act_only[] = {O_OUT_SCALE, O_ACT_OUT_SCALE, O_ACT_OUT_ZP};
  for (size_t i = 0; i < sizeof act_only / sizeof act_only[0]; i++) {
    if (ar->set[act_only[i]] && !ar->set[O_ACT] && !(act_only[i] == O_OUT_SCALE && j->by_scales)) {
      die_line("gemm: --%s applies to --act (the table built for the int8 output)",
               opt_name(act_only[i]));
      return -1;
    }
  }
  if (ar->set[O_ACT] && ar->set[O_ACT_LUT]) {
    die_line("gemm: give --act or --act-lut, not both");
    return -1;
  }
  if (ar->set[O_ACT]) {
    tsr_lut_fn_t fn;
    if (lut_fn_of(ar->val[O_ACT], &fn) != 0) {
      die_line("gemm: --act: unknown function '%s' (" LUT_FN_NAMES ")", ar->val[O_ACT]);
      return -1;
    }
    if (!ar->set[O_OUT_SCALE]) {
      die_line("gemm: --act needs --out-scale, the real scale of the int8 output "
               "(the table's input)");
      return -1;
    }
    double in_scale = 0.0;
    double out_scale = 0.0;
    int32_t out_zp = j->out_zp;
    if (get_scale(ar, O_OUT_SCALE, &in_scale) != 0) {
      return -1;
    }
    out_scale = in_scale;
    if (ar->set[O_ACT_OUT_SCALE] && get_scale(ar, O_ACT_OUT_SCALE, &out_scale) != 0) {
      return -1;
    }
    if (ar->set[O_ACT_OUT_ZP] && get_zp(ar, O_ACT_OUT_ZP, &out_zp) != 0) {
      return -1;
    }
    if (tsr_lut_populate(fn, (float)in_scale, j->out_zp, (float)out_scale, out_zp, j->lut) != 0) {
      die_line("gemm: --act %s: cannot tabulate with input scale %g and output scale %g",
               ar->val[O_ACT], in_scale, out_scale);
      return -1;
    }
    j->gold_failed = tsr_golden_lut(fn, in_scale, j->out_zp, out_scale, out_zp, j->gold_lut) != 0;
    j->has_lut = true;
    j->act = ar->val[O_ACT];
  } else if (ar->set[O_ACT_LUT]) {
    if (load_lut_npy(ar->val[O_ACT_LUT], j->lut) != 0) {
      return -1;
    }
    memcpy(j->gold_lut, j->lut, sizeof j->gold_lut);
    j->has_lut = true;
    j->act = "table";
  }
  if (ar->set[O_LEAKY]) {
    if (get_double(ar, O_LEAKY, &j->alpha) != 0) {
      return -1;
    }
    if (j->alpha < 0.0 || j->alpha > 1.0) {
      die_line("gemm: --leaky: alpha %g is outside 0..1", j->alpha);
      return -1;
    }
    j->mult_neg = malloc((size_t)j->n * sizeof *j->mult_neg);
    j->shift_neg = malloc((size_t)j->n * sizeof *j->shift_neg);
    j->gold_mult_neg = malloc((size_t)j->n * sizeof *j->gold_mult_neg);
    j->gold_shift_neg = malloc((size_t)j->n * sizeof *j->gold_shift_neg);
    if (j->mult_neg == NULL || j->shift_neg == NULL || j->gold_mult_neg == NULL ||
        j->gold_shift_neg == NULL) {
      die_line("gemm: out of memory");
      return -1;
    }
    tessera_gemm_t g;
    job_view(j, &g);
    char err[TESSERA_ERRLEN];
    if (tessera_gemm_leaky(&g, j->alpha, j->mult_neg, j->shift_neg, err, sizeof err) != TSR_OK) {
      die_line("gemm: --leaky %g: %s", j->alpha, err);
      return -1;
    }
    j->gold_failed |= tsr_golden_leaky_params(j->n, j->alpha, g.mult, g.shift, g.mult_scalar,
                                              g.shift_scalar, j->gold_mult_neg,
                                              j->gold_shift_neg) != 0;
    j->leaky = true;
  }
  return 0;
}

/* A per-column int32 vector: shape (n,). */
static int load_vector(const char *path, const char *what, uint32_t n, tsr_npy_t *t) {
  if (load_npy(path, TSR_NPY_INT32, 1, t) != 0) {
    return -1;
  }
  if (t->shape[0] != n) {
    die_line("%s: %s has %zu values but B has %u columns", path, what, t->shape[0], n);
    return -1;
  }
  return 0;
}

static int32_t *filled(uint32_t n, int32_t v) {
  int32_t *p = malloc((size_t)n * sizeof *p);
  if (p != NULL) {
    for (uint32_t i = 0; i < n; i++) {
      p[i] = v;
    }
  }
  return p;
}

/* gemm --a-scale --w-scale|--w-scale-npy --out-scale: (mult, shift) from the real scales by
 * the driver's QuantizeMultiplier, each scale first rounded to float32 as a .tflite holds it;
 * per tensor with --w-scale, per channel with --w-scale-npy (float32 (n,)). */
static int job_scales(const args_t *ar, job_t *j) {
  if (ar->set[O_MULT] || ar->set[O_MULT_NPY] || ar->set[O_SHIFT] || ar->set[O_SHIFT_NPY]) {
    die_line("gemm: give --mult/--shift or --a-scale/--w-scale/--out-scale, not both");
    return -1;
  }
  if (ar->set[O_W_SCALE] && ar->set[O_W_SCALE_NPY]) {
    die_line("gemm: give --w-scale or --w-scale-npy, not both");
    return -1;
  }
  if (!ar->set[O_A_SCALE] || !(ar->set[O_W_SCALE] || ar->set[O_W_SCALE_NPY]) ||
      !ar->set[O_OUT_SCALE]) {
    die_line("gemm: requantization by scales needs --a-scale, --w-scale (or --w-scale-npy) "
             "and --out-scale");
    return -1;
  }
  double a_scale = 0.0;
  double out_scale = 0.0;
  double w_one = 0.0;
  if (get_scale(ar, O_A_SCALE, &a_scale) != 0 || get_scale(ar, O_OUT_SCALE, &out_scale) != 0 ||
      (ar->set[O_W_SCALE] && get_scale(ar, O_W_SCALE, &w_one) != 0)) {
    return -1;
  }
  uint32_t n_w = 1;
  double *w = &w_one;
  if (ar->set[O_W_SCALE_NPY]) {
    if (load_npy(ar->val[O_W_SCALE_NPY], TSR_NPY_FLOAT32, 1, &j->nwscale) != 0) {
      return -1;
    }
    if (j->nwscale.shape[0] != j->n) {
      die_line("%s: the weight scales have %zu values but B has %u columns",
               ar->val[O_W_SCALE_NPY], j->nwscale.shape[0], j->n);
      return -1;
    }
    n_w = j->n;
    w = malloc((size_t)j->n * sizeof *w);
    if (w == NULL) {
      die_line("gemm: out of memory");
      return -1;
    }
    const float *wf = j->nwscale.data;
    for (uint32_t i = 0; i < j->n; i++) {
      w[i] = wf[i];
    }
  }
  j->mult = j->own_mult = malloc((size_t)j->n * sizeof *j->mult);
  j->shift = j->own_shift = malloc((size_t)j->n * sizeof *j->shift);
  char err[TESSERA_ERRLEN];
  tsr_status_t st = TSR_NO_MEMORY;
  snprintf(err, sizeof err, "out of memory");
  if (j->mult != NULL && j->shift != NULL) {
    st = tessera_gemm_quantize_scales(j->n, a_scale, w, n_w, out_scale, j->mult, j->shift, err,
                                      sizeof err);
  }
  if (w != &w_one) {
    free(w);
  }
  if (st != TSR_OK) {
    die_line("gemm: %s", err);
    return -1;
  }
  j->by_scales = true;
  j->per_channel = n_w != 1u;
  j->mult_scalar = j->mult[0];
  j->shift_scalar = j->shift[0];
  return 0;
}

/* Operands and parameters from .npy files and scalar options. */
static int job_from_files(const args_t *ar, job_t *j) {
  if (!ar->set[O_A] || !ar->set[O_B]) {
    die_line("gemm: give both --a and --b (or --m/--k/--n for random operands)");
    return -1;
  }
  if (load_npy(ar->val[O_A], TSR_NPY_INT8, 2, &j->na) != 0 ||
      load_npy(ar->val[O_B], TSR_NPY_INT8, 2, &j->nb) != 0) {
    return -1;
  }
  size_t m = j->na.shape[0], k = j->na.shape[1], k2 = j->nb.shape[0], n = j->nb.shape[1];
  if (k != k2) {
    die_line("A is %zux%zu but B is %zux%zu: inner dimensions differ", m, k, k2, n);
    return -1;
  }
  if (m == 0 || k == 0 || n == 0) {
    die_line("A is %zux%zu and B is %zux%zu: every dimension must be at least 1", m, k, k2, n);
    return -1;
  }
  if (m > UINT32_MAX || k > UINT32_MAX || n > UINT32_MAX) {
    die_line("A is %zux%zu and B is %zux%zu: too large for 32-bit addresses", m, k, k2, n);
    return -1;
  }
  j->m = (uint32_t)m;
  j->k = (uint32_t)k;
  j->n = (uint32_t)n;
  j->a = j->na.data;
  j->b = j->nb.data;
  if (ar->set[O_BIAS]) {
    if (load_vector(ar->val[O_BIAS], "the bias", j->n, &j->nbias) != 0) {
      return -1;
    }
    j->bias = j->nbias.data;
  }
  if (ar->set[O_A_ZP]) {
    /* The input zero point, folded into the bias exactly (docs/programming.md). */
    int32_t a_zp = 0;
    char err[TESSERA_ERRLEN];
    if (get_zp(ar, O_A_ZP, &a_zp) != 0) {
      return -1;
    }
    int32_t *folded = malloc((size_t)j->n * sizeof *folded);
    if (folded == NULL ||
        tessera_gemm_fold_a_zp(j->k, j->n, j->b, j->bias, a_zp, folded, err, sizeof err) != TSR_OK) {
      die_line("gemm: --a-zp: %s", folded == NULL ? "out of memory" : err);
      free(folded);
      return -1;
    }
    free(j->own_bias);
    j->bias = j->own_bias = folded;
  }
  const bool scales = ar->set[O_A_SCALE] || ar->set[O_W_SCALE] || ar->set[O_W_SCALE_NPY];
  if (ar->set[O_MULT] && ar->set[O_MULT_NPY]) {
    die_line("gemm: give --mult or --mult-npy, not both");
    return -1;
  }
  if (ar->set[O_SHIFT] && ar->set[O_SHIFT_NPY]) {
    die_line("gemm: give --shift or --shift-npy, not both");
    return -1;
  }
  j->requant = ar->set[O_MULT] || ar->set[O_MULT_NPY] || scales;
  const opt_id_t needs_mult[] = {O_SHIFT,  O_SHIFT_NPY, O_OUT_ZP, O_ACT_MIN,     O_ACT_MAX,
                                 O_ACT,    O_ACT_LUT,   O_LEAKY,  O_OUT_SCALE,   O_ACT_OUT_SCALE,
                                 O_ACT_OUT_ZP};
  for (size_t i = 0; i < sizeof needs_mult / sizeof needs_mult[0]; i++) {
    if (ar->set[needs_mult[i]] && !j->requant) {
      die_line("gemm: --%s needs --mult, --mult-npy or the scales (it only applies to "
               "requantized output)",
               opt_name(needs_mult[i]));
      return -1;
    }
  }
  j->mult_scalar = 0;
  j->shift_scalar = 0;
  j->out_zp = 0;
  j->act_min = -128;
  j->act_max = 127;
  if (get_i32_opt(ar, O_MULT, INT32_MIN, INT32_MAX, &j->mult_scalar) != 0 ||
      get_i32_opt(ar, O_SHIFT, TSR_SHIFT_MIN, TSR_SHIFT_MAX, &j->shift_scalar) != 0 ||
      get_i32_opt(ar, O_OUT_ZP, -128, 127, &j->out_zp) != 0 ||
      get_i32_opt(ar, O_ACT_MIN, -128, 127, &j->act_min) != 0 ||
      get_i32_opt(ar, O_ACT_MAX, -128, 127, &j->act_max) != 0) {
    return -1;
  }
  if (j->act_min > j->act_max) {
    die_line("gemm: --act-min %d is greater than --act-max %d", j->act_min, j->act_max);
    return -1;
  }
  if (scales) {
    return job_scales(ar, j) != 0 ? -1 : job_activation(ar, j);
  }
  /* Per channel when either vector is given; the other is then broadcast. */
  j->per_channel = ar->set[O_MULT_NPY] || ar->set[O_SHIFT_NPY];
  if (j->per_channel) {
    if (ar->set[O_MULT_NPY]) {
      if (load_vector(ar->val[O_MULT_NPY], "the multiplier vector", j->n, &j->nmult) != 0) {
        return -1;
      }
      j->mult = j->nmult.data;
    } else {
      j->mult = j->own_mult = filled(j->n, j->mult_scalar);
    }
    if (ar->set[O_SHIFT_NPY]) {
      if (load_vector(ar->val[O_SHIFT_NPY], "the shift vector", j->n, &j->nshift) != 0) {
        return -1;
      }
      j->shift = j->nshift.data;
    } else {
      j->shift = j->own_shift = filled(j->n, j->shift_scalar);
    }
    if (j->mult == NULL || j->shift == NULL) {
      die_line("gemm: out of memory");
      return -1;
    }
  }
  return job_activation(ar, j);
}

/* Random operands and requantization parameters from the seed. */
static int job_random(const args_t *ar, job_t *j) {
  const opt_id_t file_only[] = {O_BIAS,    O_MULT,      O_MULT_NPY,      O_SHIFT,
                                O_SHIFT_NPY, O_OUT_ZP, O_ACT_MIN,       O_ACT_MAX,
                                O_ACT,     O_ACT_LUT,   O_ACT_OUT_SCALE, O_ACT_OUT_ZP,
                                O_LEAKY,   O_OUT_SCALE, O_A_ZP,         O_A_SCALE,
                                O_W_SCALE, O_W_SCALE_NPY};
  for (size_t i = 0; i < sizeof file_only / sizeof file_only[0]; i++) {
    if (ar->set[file_only[i]]) {
      die_line("gemm: --%s applies to --a/--b operands, not to random ones (--m/--k/--n)",
               opt_name(file_only[i]));
      return -1;
    }
  }
  if (!ar->set[O_M] || !ar->set[O_K] || !ar->set[O_N]) {
    die_line("gemm: random operands need all of --m, --k and --n");
    return -1;
  }
  int64_t m, k, n;
  if (get_int(ar, O_M, 1, 1 << 24, &m) != 0 || get_int(ar, O_K, 1, 1 << 24, &k) != 0 ||
      get_int(ar, O_N, 1, 1 << 24, &n) != 0) {
    return -1;
  }
  if ((uint64_t)m * (uint64_t)k > (1ull << 31) || (uint64_t)k * (uint64_t)n > (1ull << 31) ||
      (uint64_t)m * (uint64_t)n > (1ull << 29)) {
    die_line("gemm: %" PRId64 "x%" PRId64 "x%" PRId64 " does not fit the 4 GiB address space", m, k, n);
    return -1;
  }
  j->m = (uint32_t)m;
  j->k = (uint32_t)k;
  j->n = (uint32_t)n;
  j->random = true;
  j->a = j->own_a = malloc((size_t)j->m * j->k);
  j->b = j->own_b = malloc((size_t)j->k * j->n);
  j->bias = j->own_bias = malloc((size_t)j->n * sizeof(int32_t));
  j->mult = j->own_mult = malloc((size_t)j->n * sizeof(int32_t));
  j->shift = j->own_shift = malloc((size_t)j->n * sizeof(int32_t));
  if (j->a == NULL || j->b == NULL || j->bias == NULL || j->mult == NULL || j->shift == NULL) {
    die_line("gemm: out of memory for %ux%ux%u operands", j->m, j->k, j->n);
    return -1;
  }
  tessera_gemm_t g;
  tessera_gemm_random(j->m, j->k, j->n, j->seed, ar->set[O_RAW], j->a, j->b, j->bias, j->mult,
                      j->shift, &g);
  j->requant = g.requant;
  j->per_channel = g.mult != NULL;
  j->mult_scalar = g.mult_scalar;
  j->shift_scalar = g.shift_scalar;
  j->out_zp = g.out_zp;
  j->act_min = g.act_min;
  j->act_max = g.act_max;
  if (!j->per_channel) {
    free(j->own_mult);
    free(j->own_shift);
    j->mult = j->own_mult = NULL;
    j->shift = j->own_shift = NULL;
  }
  return 0;
}

/* ---- The run ---------------------------------------------------------------------------------- */

/* One GEMM as `tessera gemm` runs it. */
typedef struct gemm_run {
  job_t j;
  tessera_gemm_t g;       /* the job as libtessera takes it */
  tessera_dev_t *dev;
  tessera_info_t info;
  tessera_gemm_result_t res;
  void *out;              /* the result read back, M x N int8 or int32 */
  const char *verdict;    /* "pass", "fail" or "skipped" */
  tessera_mismatch_t mm;
} gemm_run_t;

static void gemm_run_free(gemm_run_t *g) {
  free(g->out);
  g->out = NULL;
  tessera_close(g->dev);
  g->dev = NULL;
  job_free(&g->j);
}

/* Build the job from the gemm options, open the device and plan; unless --plan, run and
 * compare with the golden model (always for random operands, else with --check). Errors
 * print one line and return EXIT_ERROR; a mismatch is not an error here (g->mm.count).
 * Free g with gemm_run_free whatever this returns. */
static int gemm_exec(const args_t *ar, bool show_progress, gemm_run_t *g) {
  memset(g, 0, sizeof *g);
  job_t *j = &g->j;
  int64_t v = 0;
  char err[TESSERA_ERRLEN];

  bool random = ar->set[O_M] || ar->set[O_K] || ar->set[O_N];
  if (random && (ar->set[O_A] || ar->set[O_B])) {
    die_line("gemm: give --a/--b or --m/--k/--n, not both");
    return EXIT_ERROR;
  }
  if (!random && ar->set[O_RAW]) {
    die_line("gemm: --raw applies to random operands (--m/--k/--n); leave out --mult instead");
    return EXIT_ERROR;
  }
  j->seed = 1;
  if (ar->set[O_SEED]) {
    if (get_int(ar, O_SEED, 0, UINT32_MAX, &v) != 0) {
      return EXIT_ERROR;
    }
    j->seed = (uint32_t)v;
  }
  tessera_gemm_opts_t opts;
  memset(&opts, 0, sizeof opts);
  if (ar->set[O_MAX_MT]) {
    if (get_int(ar, O_MAX_MT, 1, 65535, &v) != 0) {
      return EXIT_ERROR;
    }
    opts.max_mt = (uint32_t)v;
  }
  if (ar->set[O_MAX_KC]) {
    if (get_int(ar, O_MAX_KC, 1, 65535, &v) != 0) {
      return EXIT_ERROR;
    }
    opts.max_kc = (uint32_t)v;
  }
  /* The planner's cost model assumes the memory the simulator is given. */
  if (ar->set[O_MEM_BW]) {
    if (get_int(ar, O_MEM_BW, 0, 4096, &v) != 0) {
      return EXIT_ERROR;
    }
    opts.mem_bw = (uint32_t)v;
  }
  if (ar->set[O_MEM_LATENCY]) {
    if (get_int(ar, O_MEM_LATENCY, 0, 100000, &v) != 0) {
      return EXIT_ERROR;
    }
    opts.mem_latency = v == 0 ? 1u : (uint32_t)v; /* the memory model counts 0 as 1 */
  }
  if ((random ? job_random(ar, j) : job_from_files(ar, j)) != 0) {
    return EXIT_ERROR;
  }
  job_view(j, &g->g);
  uint64_t mem_bytes = 0;
  if (tessera_gemm_validate(&g->g, err, sizeof err) != TSR_OK ||
      tessera_gemm_mem_bytes(&g->g, &mem_bytes, err, sizeof err) != TSR_OK) {
    die_line("gemm: %s", err);
    return EXIT_ERROR;
  }
  if (cli_open(ar, mem_bytes, &g->dev, &g->info) != 0) {
    return EXIT_ERROR;
  }
  opts.plan_only = ar->set[O_PLAN];
  if (!opts.plan_only) {
    size_t out_bytes = (size_t)j->m * j->n * tessera_gemm_out_elem(&g->g);
    g->out = malloc(out_bytes);
    if (g->out == NULL) {
      die_line("gemm: out of memory for the %zu-byte result", out_bytes);
      return EXIT_ERROR;
    }
  }
  progress_t prog;
  progress_init(&prog, show_progress);
  opts.progress = on_progress;
  opts.progress_user = &prog;
  tsr_status_t st = tessera_gemm_run(g->dev, &g->g, &opts, g->out, &g->res, err, sizeof err);
  progress_clear(&prog);
  if (st != TSR_OK) {
    die_line("gemm: %s", err);
    return EXIT_ERROR;
  }
  g->verdict = "skipped";
  if (g->res.ran && (random || ar->set[O_CHECK])) {
    /* The same job with the golden model's own table and leaky multipliers (see job_t). */
    if (j->gold_failed) {
      die_line("gemm: the golden model derives no parameters of its own for %s%s%s",
               j->act != NULL ? "--act " : "", j->act != NULL ? j->act : "",
               j->leaky ? (j->act != NULL ? " and --leaky" : "--leaky") : "");
      return EXIT_ERROR;
    }
    tessera_gemm_t gold = g->g;
    gold.lut = g->g.lut != NULL ? j->gold_lut : NULL;
    gold.mult_neg = j->leaky ? j->gold_mult_neg : NULL;
    gold.shift_neg = j->leaky ? j->gold_shift_neg : NULL;
    if (tessera_gemm_check(&gold, g->out, &g->mm, err, sizeof err) != TSR_OK) {
      die_line("gemm: %s", err);
      return EXIT_ERROR;
    }
    g->verdict = g->mm.count != 0u ? "fail" : "pass";
  }
  return 0;
}

static int write_output(const char *path, const job_t *j, void *data) {
  return save_npy(path, j->requant ? TSR_NPY_INT8 : TSR_NPY_INT32, 2, j->m, j->n, data);
}

/* gemm --plan: the tiler's decisions and the predicted cost, without running. */
static void print_plan(const tessera_info_t *info, const tsr_gemm_desc_t *d,
                       const tsr_gemm_plan_t *p, bool json) {
  const uint64_t compute = p->macs / ((uint64_t)info->dim * info->dim);
  const uint64_t bytes = p->dma_rd_bytes + p->dma_wr_bytes;
  const uint64_t memory = (bytes + info->axi_bytes - 1u) / info->axi_bytes;
  const char *order = p->a_resident ? "m-tile > n-group > n-block > k-block; the A tile stays resident across the n-groups"
                                    : "m-tile > n-group > k-chunk > n-block > k-block; each A chunk serves one n-group";
  if (json) {
    fprintf(g_cli_out, "{\"m\": %u, \"k\": %u, \"n\": %u, \"dim\": %u, \"plan\": {\"tile_m\": %u, "
           "\"k_chunk\": %u, \"m_tiles\": %u, \"n_blocks\": %u, \"k_chunks\": %u, "
           "\"n_group\": %u, \"n_groups\": %u, \"preload\": %s, "
           "\"a_resident\": %s, \"spad_bufs\": %u, \"acc_bufs\": %u, \"commands\": %" PRIu64
           ", \"dma_read_bytes\": %" PRIu64 ", \"dma_write_bytes\": %" PRIu64
           ", \"compute_cycles\": %" PRIu64 ", \"memory_cycles\": %" PRIu64
           ", \"est_cycles\": %" PRIu64 ", \"est_utilization\": %.6f}}\n",
           d->m, d->k, d->n, info->dim, p->mt, p->kc, p->m_tiles, p->n_blocks, p->k_chunks,
           p->nb, p->n_groups, p->preload ? "true" : "false", p->a_resident ? "true" : "false", p->spad_bufs, p->acc_bufs, p->cmds, p->dma_rd_bytes,
           p->dma_wr_bytes, compute, memory, p->est_cycles,
           p->est_cycles ? (double)compute / (double)p->est_cycles : 0.0);
    return;
  }
  fprintf(g_cli_out, "gemm %ux%ux%u on a %ux%u array: plan\n", d->m, d->k, d->n, info->dim, info->dim);
  fprintf(g_cli_out, "  tiles: %u x %u rows, %u N-column blocks, K chunk %u (%u chunk%s)\n", p->m_tiles, p->mt,
         p->n_blocks, p->kc, p->k_chunks, p->k_chunks == 1 ? "" : "s");
  fprintf(g_cli_out, "  n-groups: %u of %u N-column block%s (one A chunk feeds each group's blocks)\n",
         p->n_groups, p->nb, p->nb == 1 ? "" : "s");
  fprintf(g_cli_out, "  loop order: %s\n", order);
  fprintf(g_cli_out, "  buffers: %u scratchpad A/W pair%s, %u accumulator tile%s; %s\n", p->spad_bufs,
         p->spad_bufs == 1 ? "" : "s", p->acc_bufs, p->acc_bufs == 1 ? "" : "s",
         p->preload ? "A and W in separate scratchpad banks (weights preloaded)"
                    : "A and W packed in one bank (no weight preload)");
  const uint64_t other = p->cmds - p->cmd_loads - p->cmd_matmuls - p->cmd_params - p->cmd_stores;
  fprintf(g_cli_out, "  commands: %" PRIu64 " (%" PRIu64 " LOAD, %" PRIu64 " MATMUL, %" PRIu64
         " parameter LOAD, %" PRIu64 " STORE", p->cmds, p->cmd_loads, p->cmd_matmuls, p->cmd_params,
         p->cmd_stores);
  if (other != 0u) { /* the table's LUT_LOAD, the NOP that closes the tail token */
    fprintf(g_cli_out, ", %" PRIu64 " other", other);
  }
  fprintf(g_cli_out, ")\n");
  fprintf(g_cli_out, "  DMA payload: %" PRIu64 " B read, %" PRIu64 " B written (%.1f MACs per byte)\n", p->dma_rd_bytes,
         p->dma_wr_bytes, bytes ? (double)p->macs / (double)bytes : 0.0);
  fprintf(g_cli_out, "  roofs: compute %" PRIu64 " cycles (MACs / N^2), memory %" PRIu64
         " cycles (bytes / %u B per cycle)\n",
         compute, memory, info->axi_bytes);
  fprintf(g_cli_out, "  predicted: %" PRIu64 " cycles, utilization %.1f %% (LOAD, MATMUL and STORE overlap as "
         "their tokens allow)\n",
         p->est_cycles, p->est_cycles ? 100.0 * (double)compute / (double)p->est_cycles : 0.0);
}

static void print_gemm_json(const gemm_run_t *g) {
  const job_t *j = &g->j;
  const tsr_counters_t *c = &g->res.fig.cnt;
  const tsr_gemm_plan_t *p = &g->res.plan;
  fprintf(g_cli_out, "{\"m\": %u, \"k\": %u, \"n\": %u, \"dim\": %u, \"cycles\": %" PRIu64
         ", \"busy_cycles\": %" PRIu64 ", \"macs\": %" PRIu64 ", \"utilization\": %.6f"
         ", \"bus_read_bytes\": %" PRIu64 ", \"bus_write_bytes\": %" PRIu64
         ", \"commands\": %" PRIu64 ", \"check\": \"%s\"",
         j->m, j->k, j->n, g->info.dim, c->cycles, c->busy, c->macs, g->res.fig.utilization, c->dma_rd, c->dma_wr,
         c->cmds, g->verdict);
  if (g->mm.count != 0u) {
    fprintf(g_cli_out, ", \"mismatch\": {\"row\": %u, \"col\": %u, \"got\": %d, \"expected\": %d}", g->mm.row,
           g->mm.col, g->mm.got, g->mm.want);
  }
  fprintf(g_cli_out, ", \"output\": \"%s\", \"requant\": %s, \"per_channel\": %s, \"bias\": %s",
         j->requant ? "int8" : "int32", j->requant ? "true" : "false",
         j->per_channel ? "true" : "false", j->bias != NULL ? "true" : "false");
  if (j->act != NULL) {
    fprintf(g_cli_out, ", \"act\": \"%s\"", j->act);
  }
  if (j->leaky) {
    fprintf(g_cli_out, ", \"leaky\": %g", j->alpha);
  }
  if (j->random) {
    fprintf(g_cli_out, ", \"seed\": %u", j->seed);
  }
  fprintf(g_cli_out, ", \"plan\": {\"tile_m\": %u, \"k_chunk\": %u, \"m_tiles\": %u, \"n_blocks\": %u"
         ", \"k_chunks\": %u, \"spad_bufs\": %u, \"acc_bufs\": %u, \"commands\": %" PRIu64
         ", \"dma_read_bytes\": %" PRIu64 ", \"dma_write_bytes\": %" PRIu64
         ", \"est_cycles\": %" PRIu64 "}",
         p->mt, p->kc, p->m_tiles, p->n_blocks, p->k_chunks, p->spad_bufs, p->acc_bufs, p->cmds,
         p->dma_rd_bytes, p->dma_wr_bytes, p->est_cycles);
  print_time_json(c);
  print_wall_json(&g->res.fig, &g->info);
  fprintf(g_cli_out, "}\n");
}

static void print_gemm_text(const gemm_run_t *g, bool checked) {
  const job_t *j = &g->j;
  const tsr_counters_t *c = &g->res.fig.cnt;
  fprintf(g_cli_out, "gemm %ux%ux%u on a %ux%u array (%s), %s output%s\n", j->m, j->k, j->n, g->info.dim,
         g->info.dim, g->info.backend, j->requant ? "int8" : "int32",
         j->requant ? (j->per_channel ? ", per-channel requantization" : ", per-tensor requantization")
                    : "");
  if (j->act != NULL) {
    fprintf(g_cli_out, "  fused activation: %s (lookup table in the output stage)\n", j->act);
  }
  if (j->leaky) {
    fprintf(g_cli_out, "  fused leaky ReLU: alpha %g (negative side requantized by its own multiplier)\n",
           j->alpha);
  }
  fprintf(g_cli_out, "  tiles: %u x %u rows, K chunk %u (%u chunk%s), %" PRIu64 " commands\n",
         g->res.plan.m_tiles, g->res.plan.mt, g->res.plan.kc, g->res.plan.k_chunks,
         g->res.plan.k_chunks == 1 ? "" : "s", g->res.plan.cmds);
  fprintf(g_cli_out, "  bit-exact: %s\n", !checked ? "skipped (use --check)" : g->mm.count != 0u ? "NO" : "yes");
  fprintf(g_cli_out, "  cycles: %" PRIu64 ", utilization %.1f %%, bus %" PRIu64 " B read, %" PRIu64
         " B written, %.2f s\n",
         c->cycles, 100.0 * g->res.fig.utilization, c->dma_rd, c->dma_wr, g->res.fig.wall_seconds);
  print_time_text(c);
  print_link_note(&g->info);
  print_core_text(&g->res.fig);
}

int cmd_gemm(const args_t *ar) {
  const bool json = ar->set[O_JSON];
  gemm_run_t g;
  int rc = gemm_exec(ar, !json && isatty(STDERR_FILENO), &g);
  if (rc != 0) {
    goto done;
  }
  if (!g.res.ran) {
    print_plan(&g.info, &g.res.desc, &g.res.plan, json);
    goto done;
  }
  if (ar->set[O_OUT] && write_output(ar->val[O_OUT], &g.j, g.out) != 0) {
    rc = EXIT_ERROR;
    goto done;
  }
  if (json) {
    print_gemm_json(&g);
  } else {
    print_gemm_text(&g, strcmp(g.verdict, "skipped") != 0);
  }
  fflush(g_cli_out);
  if (g.mm.count != 0u) {
    die_line("gemm: mismatch at (row %u, col %u): got %d, expected %d", g.mm.row, g.mm.col,
             g.mm.got, g.mm.want);
    rc = EXIT_MISMATCH;
  }

done:
  gemm_run_free(&g);
  return rc;
}
