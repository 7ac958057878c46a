/* cli_sfu.c: `tessera sfu|softmax|layernorm|add|reduce`: the tensors and parameters from the options, the run and its report. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tsr_golden_params.h"

/* ---- The job --------------------------------------------------------------------------------- */

typedef struct sfu_job {
  const char *cmd;       /* the command, for messages */
  const char *op;        /* "op" of the JSON: sigmoid, ..., lut, softmax, layernorm, add, reduce */
  uint32_t func;         /* TSR_FUNC_* */
  uint32_t rows, len;
  int ndim;              /* of the input: the output keeps its shape */
  tsr_npy_t nin, nin2, nbeta;
  const int8_t *in, *in2; /* in2: B (add) or gamma (layernorm) */
  int32_t *beta;          /* layernorm: beta at the accumulator scale */
  int32_t param[TSR_ADD_PARAM_WORDS];
  uint32_t param_words;
  bool has_lut;
  int8_t lut[256];
  /* What --check compares with: the golden model computes from its own table and
   * parameters, derived from the same options by separate code
   * (sw/golden/tsr_golden_params.c), so that a wrong entry of the ones above
   * (sw/lib/tsr_sfu_prep.c) shows as a mismatch. A table given with --op lut and
   * an int32 beta are inputs, used as given. */
  bool gold_failed;       /* the golden derivation rejected the options */
  int32_t gold_param[TSR_ADD_PARAM_WORDS];
  int32_t *gold_beta;
  int8_t gold_lut[256];
} sfu_job_t;

static void sfu_job_free(sfu_job_t *j) {
  tsr_npy_free(&j->nin);
  tsr_npy_free(&j->nin2);
  tsr_npy_free(&j->nbeta);
  free(j->beta);
  free(j->gold_beta);
}

/* An option the command cannot do without. */
static int need(const args_t *ar, opt_id_t id, const char *cmd, const char *what) {
  if (!ar->set[id]) {
    die_line("%s: --%s is required (%s)", cmd, opt_name(id), what);
    return -1;
  }
  return 0;
}

/* An int8 tensor of 1 or 2 dimensions, the last one LEN (1..65535), at least one row. */
static int load_tensor(const char *cmd, const char *path, tsr_npy_t *t, uint32_t *rows,
                       uint32_t *len, int *ndim) {
  char err[512];
  if (tsr_npy_read(path, t, err, sizeof err) != 0) {
    die_line("%s", err);
    return -1;
  }
  char shp[128];
  if (t->dtype != TSR_NPY_INT8) {
    die_line("%s: expected int8, got %s %s", path, tsr_npy_dtype_name(t->dtype),
             shape_str(t, shp, sizeof shp));
    return -1;
  }
  if (t->ndim != 1 && t->ndim != 2) {
    die_line("%s: expected a 1-D or 2-D array (rows x len), got shape %s", path,
             shape_str(t, shp, sizeof shp));
    return -1;
  }
  size_t r = t->ndim == 2 ? t->shape[0] : 1u;
  size_t l = t->shape[t->ndim - 1];
  if (r == 0 || l == 0) {
    die_line("%s: shape %s has no elements", path, shape_str(t, shp, sizeof shp));
    return -1;
  }
  if (l > TSR_SFU_LEN_MAX) {
    die_line("%s: %s: rows of %zu elements are too long: the SFU takes at most %d per row", cmd,
             path, l, TSR_SFU_LEN_MAX);
    return -1;
  }
  if (r > UINT32_MAX || (uint64_t)r * l > (1ull << 30)) {
    die_line("%s: %s: %zu x %zu elements do not fit the 4 GiB address space", cmd, path, r, l);
    return -1;
  }
  *rows = (uint32_t)r;
  *len = (uint32_t)l;
  *ndim = t->ndim;
  return 0;
}

/* A 1-D vector of `len` values of one of the given types. */
static int load_row_vector(const char *cmd, const char *path, const char *what, uint32_t len,
                           tsr_npy_dtype_t d1, tsr_npy_dtype_t d2, tsr_npy_t *t) {
  char err[512];
  if (tsr_npy_read(path, t, err, sizeof err) != 0) {
    die_line("%s", err);
    return -1;
  }
  char shp[128];
  if (t->dtype != d1 && t->dtype != d2) {
    if (d1 == d2) {
      die_line("%s: %s: %s must be %s, got %s %s", cmd, path, what, tsr_npy_dtype_name(d1),
               tsr_npy_dtype_name(t->dtype), shape_str(t, shp, sizeof shp));
    } else {
      die_line("%s: %s: %s must be %s or %s, got %s %s", cmd, path, what, tsr_npy_dtype_name(d1),
               tsr_npy_dtype_name(d2), tsr_npy_dtype_name(t->dtype), shape_str(t, shp, sizeof shp));
    }
    return -1;
  }
  if (t->ndim != 1 || t->shape[0] != len) {
    die_line("%s: %s: %s must have shape (%u,) like a row of the input, got %s", cmd, path, what,
             len, shape_str(t, shp, sizeof shp));
    return -1;
  }
  return 0;
}

/* sfu --op NAME|lut: the table. */
static int sfu_job_map(const args_t *ar, sfu_job_t *j) {
  if (need(ar, O_OP, j->cmd, LUT_FN_NAMES " or lut") != 0) {
    return -1;
  }
  const char *op = ar->val[O_OP];
  j->func = TSR_FUNC_MAP;
  j->has_lut = true;
  j->op = op;
  if (strcmp(op, "lut") == 0) {
    const opt_id_t named_only[] = {O_IN_SCALE, O_IN_ZP, O_OUT_SCALE, O_OUT_ZP};
    for (size_t i = 0; i < sizeof named_only / sizeof named_only[0]; i++) {
      if (ar->set[named_only[i]]) {
        die_line("sfu: --%s applies to a named function; --op lut uses the table as it is",
                 opt_name(named_only[i]));
        return -1;
      }
    }
    if (need(ar, O_LUT, j->cmd, "--op lut maps through the int8 table in T.npy") != 0) {
      return -1;
    }
    if (load_lut_npy(ar->val[O_LUT], j->lut) != 0) {
      return -1;
    }
    memcpy(j->gold_lut, j->lut, sizeof j->gold_lut);
    return 0;
  }
  tsr_lut_fn_t fn;
  if (lut_fn_of(op, &fn) != 0) {
    die_line("sfu: --op: unknown function '%s' (" LUT_FN_NAMES ", or lut with --lut T.npy)", op);
    return -1;
  }
  if (ar->set[O_LUT]) {
    die_line("sfu: --lut goes with --op lut (--op %s builds its own table)", op);
    return -1;
  }
  double in_scale = 0.0;
  double out_scale = 0.0;
  int32_t in_zp = 0;
  int32_t out_zp = 0;
  if (need(ar, O_IN_SCALE, j->cmd, "the real scale of the int8 input") != 0 ||
      need(ar, O_OUT_SCALE, j->cmd, "the real scale of the int8 output") != 0 ||
      get_scale(ar, O_IN_SCALE, &in_scale) != 0 || get_scale(ar, O_OUT_SCALE, &out_scale) != 0 ||
      get_zp(ar, O_IN_ZP, &in_zp) != 0 || get_zp(ar, O_OUT_ZP, &out_zp) != 0) {
    return -1;
  }
  if (tsr_lut_populate(fn, (float)in_scale, in_zp, (float)out_scale, out_zp, j->lut) != 0) {
    die_line("sfu: --op %s: cannot tabulate with --in-scale %g and --out-scale %g", op, in_scale,
             out_scale);
    return -1;
  }
  j->gold_failed = tsr_golden_lut(fn, in_scale, in_zp, out_scale, out_zp, j->gold_lut) != 0;
  return 0;
}

static int sfu_job_softmax(const args_t *ar, sfu_job_t *j) {
  double in_scale = 0.0;
  double beta = 1.0;
  int32_t in_zp = 0; /* accepted and checked; softmax depends only on differences, so it cancels */
  if (need(ar, O_IN_SCALE, j->cmd, "the real scale of the int8 input") != 0 ||
      get_scale(ar, O_IN_SCALE, &in_scale) != 0 || get_zp(ar, O_IN_ZP, &in_zp) != 0) {
    return -1;
  }
  if (ar->set[O_BETA]) {
    if (get_double(ar, O_BETA, &beta) != 0) {
      return -1;
    }
    if (!(beta > 0.0)) {
      die_line("softmax: --beta: %s must be > 0", ar->val[O_BETA]);
      return -1;
    }
  }
  tsr_softmax_params_t p;
  if (tsr_softmax_prepare(beta, in_scale, &p) != 0) {
    die_line("softmax: --beta %g with --in-scale %g gives no usable multiplier "
             "(beta * in-scale * 2^26 must be above 1)",
             beta, in_scale);
    return -1;
  }
  j->func = TSR_FUNC_SOFTMAX;
  j->op = "softmax";
  j->param_words = TSR_SOFTMAX_PARAM_WORDS;
  memcpy(j->param, &p, sizeof p);
  tsr_softmax_params_t gp;
  memset(&gp, 0, sizeof gp);
  j->gold_failed = tsr_golden_softmax_params(beta, in_scale, &gp) != 0;
  memcpy(j->gold_param, &gp, sizeof gp);
  return 0;
}

static int sfu_job_layernorm(const args_t *ar, sfu_job_t *j) {
  double in_scale = 0.0;
  double gamma_scale = 0.0;
  double out_scale = 0.0;
  double eps = 1e-5;
  int32_t gamma_zp = 0;
  int32_t out_zp = 0;
  if (need(ar, O_IN_SCALE, j->cmd, "the real scale of the int8 input") != 0 ||
      need(ar, O_GAMMA, j->cmd, "int8 G.npy, one value per element of a row") != 0 ||
      need(ar, O_GAMMA_SCALE, j->cmd, "the real scale of gamma") != 0 ||
      need(ar, O_BETA, j->cmd, "B.npy, float32 or int32, one value per element of a row") != 0 ||
      need(ar, O_OUT_SCALE, j->cmd, "the real scale of the int8 output") != 0 ||
      get_scale(ar, O_IN_SCALE, &in_scale) != 0 ||
      get_scale(ar, O_GAMMA_SCALE, &gamma_scale) != 0 ||
      get_scale(ar, O_OUT_SCALE, &out_scale) != 0 || get_zp(ar, O_GAMMA_ZP, &gamma_zp) != 0 ||
      get_zp(ar, O_OUT_ZP, &out_zp) != 0) {
    return -1;
  }
  if (ar->set[O_EPS]) {
    if (get_double(ar, O_EPS, &eps) != 0) {
      return -1;
    }
    if (eps < 0.0) {
      die_line("layernorm: --eps: %s must be >= 0", ar->val[O_EPS]);
      return -1;
    }
  }
  if (load_row_vector(j->cmd, ar->val[O_GAMMA], "gamma", j->len, TSR_NPY_INT8, TSR_NPY_INT8,
                      &j->nin2) != 0 ||
      load_row_vector(j->cmd, ar->val[O_BETA], "beta", j->len, TSR_NPY_FLOAT32, TSR_NPY_INT32,
                      &j->nbeta) != 0) {
    return -1;
  }
  j->in2 = j->nin2.data;
  tsr_layernorm_params_t p;
  if (tsr_layernorm_prepare(j->len, in_scale, eps, gamma_zp, gamma_scale, out_scale, out_zp, &p) !=
      0) {
    die_line("layernorm: no parameters for --in-scale %g --eps %g --gamma-scale %g --out-scale %g"
             " (epsilon too large, or the output multiplier gamma-scale / 2^12 / out-scale is not"
             " representable)",
             in_scale, eps, gamma_scale, out_scale);
    return -1;
  }
  j->beta = malloc((size_t)j->len * sizeof *j->beta);
  if (j->beta == NULL) {
    die_line("layernorm: out of memory");
    return -1;
  }
  if (j->nbeta.dtype == TSR_NPY_INT32) {
    memcpy(j->beta, j->nbeta.data, (size_t)j->len * sizeof *j->beta);
  } else if (tsr_layernorm_quantize_beta(j->len, j->nbeta.data, gamma_scale, j->beta) != 0) {
    die_line("layernorm: %s: a beta value is NaN or does not fit int32 at the accumulator scale "
             "gamma-scale * 2^-12 = %g",
             ar->val[O_BETA], gamma_scale / 4096.0);
    return -1;
  }
  j->func = TSR_FUNC_LAYERNORM;
  j->op = "layernorm";
  j->param_words = TSR_LAYERNORM_PARAM_WORDS;
  memcpy(j->param, &p, sizeof p);
  tsr_layernorm_params_t gp;
  memset(&gp, 0, sizeof gp);
  j->gold_beta = malloc((size_t)j->len * sizeof *j->gold_beta);
  if (j->gold_beta == NULL) {
    die_line("layernorm: out of memory");
    return -1;
  }
  if (j->nbeta.dtype == TSR_NPY_INT32) {
    memcpy(j->gold_beta, j->nbeta.data, (size_t)j->len * sizeof *j->gold_beta);
  } else if (tsr_golden_layernorm_beta(j->len, j->nbeta.data, gamma_scale, j->gold_beta) != 0) {
    j->gold_failed = true;
  }
  if (tsr_golden_layernorm_params(j->len, in_scale, eps, gamma_zp, gamma_scale, out_scale, out_zp,
                                  &gp) != 0) {
    j->gold_failed = true;
  }
  memcpy(j->gold_param, &gp, sizeof gp);
  return 0;
}

/* add and mul: A and B of one shape, their scales and zero points, the output's, the clamp. */
static int sfu_job_two(const args_t *ar, sfu_job_t *j, bool mul) {
  const char *op = mul ? "mul" : "add";
  double sa = 0.0;
  double sb = 0.0;
  double so = 0.0;
  int32_t za = 0;
  int32_t zb = 0;
  int32_t zo = 0;
  if (need(ar, O_A_SCALE, j->cmd, "the real scale of A") != 0 ||
      need(ar, O_B_SCALE, j->cmd, "the real scale of B") != 0 ||
      need(ar, O_OUT_SCALE, j->cmd, "the real scale of the int8 output") != 0 ||
      get_scale(ar, O_A_SCALE, &sa) != 0 || get_scale(ar, O_B_SCALE, &sb) != 0 ||
      get_scale(ar, O_OUT_SCALE, &so) != 0 || get_zp(ar, O_A_ZP, &za) != 0 ||
      get_zp(ar, O_B_ZP, &zb) != 0 || get_zp(ar, O_OUT_ZP, &zo) != 0) {
    return -1;
  }
  /* The fused activation's clamp (RELU: act-min = the output zero point). */
  int32_t act_min = INT8_MIN;
  int32_t act_max = INT8_MAX;
  if (get_i32_opt(ar, O_ACT_MIN, INT8_MIN, INT8_MAX, &act_min) != 0 ||
      get_i32_opt(ar, O_ACT_MAX, INT8_MIN, INT8_MAX, &act_max) != 0) {
    return -1;
  }
  if (act_min > act_max) {
    die_line("%s: --act-min %d is greater than --act-max %d", op, act_min, act_max);
    return -1;
  }
  uint32_t rows2 = 0;
  uint32_t len2 = 0;
  int ndim2 = 0;
  if (load_tensor(j->cmd, ar->val[O_B], &j->nin2, &rows2, &len2, &ndim2) != 0) {
    return -1;
  }
  if (ndim2 != j->ndim || rows2 != j->rows || len2 != j->len) {
    char s1[128];
    char s2[128];
    die_line("%s: A is %s but B is %s: the shapes must be equal", op,
             shape_str(&j->nin, s1, sizeof s1), shape_str(&j->nin2, s2, sizeof s2));
    return -1;
  }
  j->in2 = j->nin2.data;
  j->op = op;
  tsr_add_params_t p, gp;
  tsr_mul_params_t mp, gmp;
  memset(&gp, 0, sizeof gp);
  memset(&gmp, 0, sizeof gmp);
  if (mul ? tsr_mul_prepare(sa, za, sb, zb, so, zo, &mp) != 0
          : tsr_add_prepare(sa, za, sb, zb, so, zo, &p) != 0) {
    die_line("%s: --a-scale %g, --b-scale %g and --out-scale %g give an output multiplier that "
             "cannot be represented",
             op, sa, sb, so);
    return -1;
  }
  if (mul) {
    j->gold_failed = tsr_golden_mul_params(sa, za, sb, zb, so, zo, &gmp) != 0;
    mp.act_min = gmp.act_min = act_min;
    mp.act_max = gmp.act_max = act_max;
    j->func = TSR_FUNC_MUL;
    j->param_words = TSR_MUL_PARAM_WORDS;
    memcpy(j->param, &mp, sizeof mp);
    memcpy(j->gold_param, &gmp, sizeof gmp);
    return 0;
  }
  j->gold_failed = tsr_golden_add_params(sa, za, sb, zb, so, zo, &gp) != 0;
  p.act_min = gp.act_min = act_min;
  p.act_max = gp.act_max = act_max;
  j->func = TSR_FUNC_ADD;
  j->param_words = TSR_ADD_PARAM_WORDS;
  memcpy(j->param, &p, sizeof p);
  memcpy(j->gold_param, &gp, sizeof gp);
  return 0;
}

/* The job as libtessera takes it. */
static void sfu_view(const sfu_job_t *j, tessera_sfu_t *s) {
  memset(s, 0, sizeof *s);
  s->func = j->func;
  s->rows = j->rows;
  s->len = j->len;
  s->in = j->in;
  s->in2 = j->in2;
  s->beta = j->beta;
  s->param = j->param;
  s->param_words = j->param_words;
  s->lut = j->has_lut ? j->lut : NULL;
}

/* The options of the command into j (the input is loaded already). */
static int sfu_job_params(const args_t *ar, unsigned cmd, sfu_job_t *j) {
  switch (cmd) {
    case C_SFU:
      return sfu_job_map(ar, j);
    case C_SOFTMAX:
      return sfu_job_softmax(ar, j);
    case C_LAYERNORM:
      return sfu_job_layernorm(ar, j);
    case C_ADD:
    case C_MUL:
      return sfu_job_two(ar, j, cmd == C_MUL);
    default:
      j->func = TSR_FUNC_REDUCE;
      j->op = "reduce";
      return 0;
  }
}

/* --out: the result with the input's shape (reduce: int32 (rows, 3)). */
static int sfu_write_out(const char *path, const sfu_job_t *j, void *out) {
  if (j->func == TSR_FUNC_REDUCE) {
    return save_npy(path, TSR_NPY_INT32, 2, j->rows, 3u, out);
  }
  return save_npy(path, TSR_NPY_INT8, j->ndim, j->ndim == 2 ? j->rows : j->len, j->len, out);
}

static void sfu_print_json(const sfu_job_t *j, const tessera_info_t *info,
                           const tessera_sfu_result_t *res, const char *verdict,
                           const tessera_mismatch_t *mm) {
  const tsr_counters_t *c = &res->fig.cnt;
  const tsr_sfu_plan_t *p = &res->plan;
  const double cpe = (double)c->cycles / ((double)j->rows * j->len);
  fprintf(g_cli_out,
          "{\"op\": \"%s\", \"func\": \"%s\", \"rows\": %u, \"len\": %u, \"dim\": %u"
          ", \"cycles\": %" PRIu64 ", \"busy_cycles\": %" PRIu64 ", \"cycles_per_element\": %.4f"
          ", \"bus_read_bytes\": %" PRIu64 ", \"bus_write_bytes\": %" PRIu64 ", \"commands\": %" PRIu64
          ", \"check\": \"%s\"",
          j->op, tessera_sfu_func_name(j->func), j->rows, j->len, info->dim, c->cycles, c->busy, cpe,
          c->dma_rd, c->dma_wr, c->cmds, verdict);
  if (mm->count != 0u) {
    fprintf(g_cli_out, ", \"mismatch\": {\"row\": %u, \"col\": %u, \"got\": %d, \"expected\": %d}",
            mm->row, mm->col, mm->got, mm->want);
  }
  if (j->param_words != 0) {
    fprintf(g_cli_out, ", \"params\": [");
    for (uint32_t i = 0; i < j->param_words; i++) {
      fprintf(g_cli_out, "%s%d", i != 0 ? ", " : "", j->param[i]);
    }
    fprintf(g_cli_out, "]");
  }
  fprintf(g_cli_out,
          ", \"plan\": {\"blocks\": %u, \"block_rows\": %u, \"bufs\": %u, \"chunks\": %u"
          ", \"commands\": %" PRIu64 ", \"dma_read_bytes\": %" PRIu64 ", \"dma_write_bytes\": %" PRIu64
          "}",
          p->blocks, p->block_rows, p->bufs, p->chunks, p->cmds, p->dma_rd_bytes, p->dma_wr_bytes);
  print_time_json(c);
  print_wall_json(&res->fig, info);
  fprintf(g_cli_out, "}\n");
}

static void sfu_print_text(const sfu_job_t *j, unsigned cmd, const tessera_info_t *info,
                           const tessera_sfu_result_t *res, bool check,
                           const tessera_mismatch_t *mm) {
  const tsr_counters_t *c = &res->fig.cnt;
  const tsr_sfu_plan_t *p = &res->plan;
  const double cpe = (double)c->cycles / ((double)j->rows * j->len);
  fprintf(g_cli_out, "%s%s%s %ux%u on a %ux%u array (%s)\n", cmd == C_SFU ? "sfu " : "", j->op,
          cmd == C_SFU ? " (table)" : "", j->rows, j->len, info->dim, info->dim, info->backend);
  fprintf(g_cli_out, "  blocks: %u x %u rows, %u chunk row%s per row, %" PRIu64 " commands\n",
          p->blocks, p->block_rows, p->chunks, p->chunks == 1 ? "" : "s", p->cmds);
  fprintf(g_cli_out, "  bit-exact: %s\n",
          !check ? "skipped (use --check)" : mm->count != 0u ? "NO" : "yes");
  fprintf(g_cli_out,
          "  cycles: %" PRIu64 ", %.2f per element, bus %" PRIu64 " B read, %" PRIu64
          " B written, %.2f s\n",
          c->cycles, cpe, c->dma_rd, c->dma_wr, res->fig.wall_seconds);
  print_time_text(c);
  print_link_note(info);
  print_core_text(&res->fig);
}

/* sfu, softmax, layernorm, add, reduce: one SFU job through fw/tsr_sfu_ops.c. */
int cmd_sfu_family(const args_t *ar) {
  int rc = EXIT_ERROR;
  sfu_job_t j;
  memset(&j, 0, sizeof j);
  tessera_dev_t *dev = NULL;
  uint8_t *out = NULL;
  const unsigned cmd = cmd_bit(ar->cmd);
  j.cmd = ar->cmd;
  char err[TESSERA_ERRLEN];

  /* The input tensor(s). */
  const bool two = (cmd & C_TWO) != 0u;
  const opt_id_t in_opt = two ? O_A : O_IN;
  if (need(ar, in_opt, j.cmd, two ? "int8 A.npy" : "int8 X.npy, 1-D or 2-D") != 0 ||
      (two && need(ar, O_B, j.cmd, "int8 B.npy, the shape of A") != 0)) {
    goto done;
  }
  if (load_tensor(j.cmd, ar->val[in_opt], &j.nin, &j.rows, &j.len, &j.ndim) != 0) {
    goto done;
  }
  j.in = j.nin.data;
  if (sfu_job_params(ar, cmd, &j) != 0) {
    goto done;
  }
  const bool check = ar->set[O_CHECK];
  tessera_sfu_t s;
  sfu_view(&j, &s);
  const size_t out_bytes = tessera_sfu_out_bytes(&s);
  uint64_t mem_bytes = 0;
  tessera_info_t info;
  if (tessera_sfu_mem_bytes(&s, &mem_bytes, err, sizeof err) != TSR_OK) {
    die_line("%s: %s", j.cmd, err);
    goto done;
  }
  if (cli_open(ar, mem_bytes, &dev, &info) != 0) {
    goto done;
  }
  out = malloc(out_bytes);
  if (out == NULL) {
    die_line("%s: out of memory for the %zu-byte result", j.cmd, out_bytes);
    goto done;
  }
  tessera_sfu_result_t res;
  if (tessera_sfu_run(dev, &s, out, &res, err, sizeof err) != TSR_OK) {
    die_line("%s: %s", j.cmd, err);
    goto done;
  }

  /* Compare with the golden model. */
  const char *verdict = "skipped";
  tessera_mismatch_t mm;
  memset(&mm, 0, sizeof mm);
  if (check) {
    /* The same job with the golden model's own table and parameters (see sfu_job_t). */
    if (j.gold_failed) {
      die_line("%s: the golden model derives no parameters of its own from these options", j.cmd);
      goto done;
    }
    tessera_sfu_t gold = s;
    gold.param = j.gold_param;
    gold.beta = j.gold_beta;
    gold.lut = s.lut != NULL ? j.gold_lut : NULL;
    if (tessera_sfu_check(&gold, out, &mm, err, sizeof err) != TSR_OK) {
      die_line("%s: %s", j.cmd, err);
      goto done;
    }
    verdict = mm.count != 0u ? "fail" : "pass";
  }
  if (ar->set[O_OUT] && sfu_write_out(ar->val[O_OUT], &j, out) != 0) {
    goto done;
  }
  if (ar->set[O_JSON]) {
    sfu_print_json(&j, &info, &res, verdict, &mm);
  } else {
    sfu_print_text(&j, cmd, &info, &res, check, &mm);
  }
  fflush(g_cli_out);
  if (mm.count != 0u) {
    die_line("%s: mismatch at (row %u, %s %u): got %d, expected %d", j.cmd, mm.row,
             j.func == TSR_FUNC_REDUCE ? "lane" : "col", mm.col, mm.got, mm.want);
    rc = EXIT_MISMATCH;
    goto done;
  }
  rc = 0;

done:
  free(out);
  tessera_close(dev);
  sfu_job_free(&j);
  return rc;
}
