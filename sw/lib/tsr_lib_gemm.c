/* tsr_lib_gemm.c: libtessera GEMM jobs: layout, random operands, requantization from scales, the input zero point, leaky ReLU, run, golden comparison. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_golden.h"
#include "tsr_lib_internal.h"
#include "tsr_quant.h"

size_t tessera_gemm_out_elem(const tessera_gemm_t *job) { return job->requant ? 1u : 4u; }

/* Where each tensor of the job lives in device memory. */
typedef struct gemm_layout {
  uint64_t a, b, bias, mult, shift, lut, mult_neg, shift_neg, c, end;
} gemm_layout_t;

static void gemm_layout(const tessera_gemm_t *j, gemm_layout_t *l) {
  tessera_arena_t ar;
  tessera_arena_init(&ar);
  l->a = tessera_arena_take(&ar, (uint64_t)j->m * j->k);
  l->b = tessera_arena_take(&ar, (uint64_t)j->k * j->n);
  l->bias = tessera_arena_take(&ar, 4ull * j->n);
  l->mult = tessera_arena_take(&ar, 4ull * j->n);
  l->shift = tessera_arena_take(&ar, 4ull * j->n);
  l->lut = tessera_arena_take(&ar, 256u);
  l->mult_neg = tessera_arena_take(&ar, 4ull * j->n);
  l->shift_neg = tessera_arena_take(&ar, 4ull * j->n);
  l->c = tessera_arena_take(&ar, (uint64_t)j->m * j->n * tessera_gemm_out_elem(j));
  l->end = tessera_arena_end(&ar);
}

tsr_status_t tessera_gemm_mem_bytes(const tessera_gemm_t *job, uint64_t *bytes, char *err,
                                    size_t errlen) {
  gemm_layout_t l;
  gemm_layout(job, &l);
  *bytes = l.end;
  return tsr_lib_fits(l.end, "the operands", " (4 GiB)", err, errlen);
}

tsr_status_t tessera_gemm_leaky(const tessera_gemm_t *j, double alpha, int32_t *mult_neg,
                                int32_t *shift_neg, char *err, size_t errlen) {
  /* The negative side scales by alpha * (the column's real multiplier). */
  for (uint32_t c = 0; c < j->n; c++) {
    int32_t m = j->mult != NULL ? j->mult[c] : j->mult_scalar;
    int32_t s = j->shift != NULL ? j->shift[c] : j->shift_scalar;
    double real = alpha * ldexp((double)m, s - 31);
    if (m < 0 || tsr_requant_multiplier(real, &mult_neg[c], &shift_neg[c]) != TSR_OK) {
      tsr_lib_err(err, errlen,
                  "the negative-side multiplier of column %u (alpha * %d * 2^%d) cannot be represented",
                  c, m, s - 31);
      return TSR_BAD_ARG;
    }
  }
  return TSR_OK;
}

/* xorshift32, deterministic per seed. */
static uint32_t rng_next(uint32_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  return *x;
}

/* Uniform in [lo, hi] (hi - lo < 2^32). */
static int64_t rng_range(uint32_t *x, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)(hi - lo) + 1u;
  return lo + (int64_t)(rng_next(x) % span);
}

void tessera_gemm_random(uint32_t m, uint32_t k, uint32_t n, uint32_t seed, bool raw, int8_t *a,
                         int8_t *b, int32_t *bias, int32_t *mult, int32_t *shift,
                         tessera_gemm_t *job) {
  /* Spread the seed so nearby seeds diverge at once; never 0. */
  uint32_t x = seed * 2654435761u ^ 0x9e3779b9u;
  x = x != 0 ? x : 1u;
  for (int i = 0; i < 8; i++) {
    rng_next(&x);
  }
  for (size_t i = 0; i < (size_t)m * k; i++) {
    a[i] = (int8_t)rng_next(&x);
  }
  for (size_t i = 0; i < (size_t)k * n; i++) {
    b[i] = (int8_t)rng_next(&x);
  }
  /* Accumulators have a spread of about 5000 * sqrt(K); choose the shift so
   * the requantized values spread over tens, not all clamped. */
  int lg = 0;
  while ((1ull << lg) < (uint64_t)k) {
    lg++;
  }
  int32_t base_shift = -(7 + lg / 2);
  for (uint32_t i = 0; i < n; i++) {
    bias[i] = (int32_t)rng_range(&x, -(1ll << (12 + lg / 2)), 1ll << (12 + lg / 2));
    mult[i] = (int32_t)rng_range(&x, 1ll << 30, INT32_MAX);
    int64_t s = base_shift + rng_range(&x, -1, 1);
    shift[i] = (int32_t)(s < TSR_SHIFT_MIN ? TSR_SHIFT_MIN : s);
  }
  memset(job, 0, sizeof *job);
  job->m = m;
  job->k = k;
  job->n = n;
  job->a = a;
  job->b = b;
  job->bias = bias;
  job->requant = !raw;
  const bool per_channel = job->requant && (rng_next(&x) & 1u) != 0;
  job->mult = per_channel ? mult : NULL;
  job->shift = per_channel ? shift : NULL;
  job->mult_scalar = (int32_t)rng_range(&x, 1ll << 30, INT32_MAX);
  job->shift_scalar = base_shift;
  job->out_zp = (int32_t)rng_range(&x, -20, 20);
  job->act_min = (int32_t)rng_range(&x, -128, -88);
  job->act_max = (int32_t)rng_range(&x, 87, 127);
}

/* The job in device terms. */
static void gemm_desc(const tessera_gemm_t *j, const gemm_layout_t *l, tsr_gemm_desc_t *d) {
  memset(d, 0, sizeof *d);
  d->m = j->m;
  d->k = j->k;
  d->n = j->n;
  d->a_addr = (uint32_t)l->a;
  d->lda = j->k;
  d->b_addr = (uint32_t)l->b;
  d->ldb = j->n;
  d->c_addr = (uint32_t)l->c;
  d->ldc = j->n * (uint32_t)tessera_gemm_out_elem(j);
  d->has_bias = j->bias != NULL;
  d->bias_addr = (uint32_t)l->bias;
  d->requant = j->requant;
  d->per_channel = j->requant && j->mult != NULL;
  d->mult_addr = (uint32_t)l->mult;
  d->shift_addr = (uint32_t)l->shift;
  d->mult = j->mult_scalar;
  d->shift = j->shift_scalar;
  d->out_zp = j->out_zp;
  d->act_min = j->act_min;
  d->act_max = j->act_max;
  d->has_lut = j->lut != NULL;
  d->lut_addr = (uint32_t)l->lut;
  d->leaky = j->mult_neg != NULL;
  d->mult_neg_addr = (uint32_t)l->mult_neg;
  d->shift_neg_addr = (uint32_t)l->shift_neg;
}

/* Every input, and a pattern in C so that an element the hardware never writes
 * cannot pass by luck. */
static tsr_status_t gemm_upload(tessera_dev_t *dev, const tessera_gemm_t *j, const gemm_layout_t *l,
                                const tsr_gemm_desc_t *d, void *out, size_t out_bytes, char *err,
                                size_t errlen) {
  const size_t n4 = 4u * j->n;
  const tsr_lib_upload_t up[] = {{true, l->a, j->a, (size_t)j->m * j->k, "A"},
                                 {true, l->b, j->b, (size_t)j->k * j->n, "B"},
                                 {d->has_bias, l->bias, j->bias, n4, "the bias"},
                                 {d->per_channel, l->mult, j->mult, n4, "the multipliers"},
                                 {d->per_channel, l->shift, j->shift, n4, "the shifts"},
                                 {d->has_lut, l->lut, j->lut, 256u, "the activation table"},
                                 {d->leaky, l->mult_neg, j->mult_neg, n4, "the leaky multipliers"},
                                 {d->leaky, l->shift_neg, j->shift_neg, n4, "the leaky shifts"},
                                 {true, l->c, out, out_bytes, "the output pattern"}};
  memset(out, 0x5a, out_bytes);
  return tsr_lib_upload_all(dev, up, sizeof up / sizeof up[0], err, errlen);
}

tsr_status_t tessera_gemm_validate(const tessera_gemm_t *j, char *err, size_t errlen) {
  if (j == NULL) {
    tsr_lib_err(err, errlen, "tessera_gemm_validate: no job");
    return TSR_BAD_ARG;
  }
  /* Only the shifts: the chip applies gemmlowp's arithmetic to any int32 multiplier
   * (docs/programming.md, "Multipliers outside QuantizeMultiplier's range"). */
  const bool per_channel = j->requant && j->mult != NULL && j->shift != NULL;
  for (uint32_t c = 0; j->requant && c < (per_channel ? j->n : 1u); c++) {
    const int32_t shift = per_channel ? j->shift[c] : j->shift_scalar;
    if (shift < TSR_SHIFT_MIN || shift > TSR_SHIFT_MAX) {
      if (per_channel) {
        tsr_lib_err(err, errlen, "the shift of column %u, %" PRId32 ", is outside -31..30", c, shift);
      } else {
        tsr_lib_err(err, errlen, "the shift, %" PRId32 ", is outside -31..30", shift);
      }
      return TSR_BAD_ARG;
    }
  }
  return TSR_OK;
}

typedef struct progress_relay {
  tessera_progress_fn fn;
  void *user;
  const tsr_hal_t *hal;
} progress_relay_t;

static void relay_progress(void *user, uint32_t done, uint32_t total) {
  const progress_relay_t *r = user;
  r->fn(r->user, done, total, tsr_hal_cycles(r->hal));
}

/* The driver on the host runs the plan through the backend. */
static tsr_status_t gemm_run_host(tessera_dev_t *dev, const tsr_gemm_desc_t *d,
                                  const tessera_gemm_opts_t *opts, tessera_gemm_result_t *res,
                                  char *err, size_t errlen) {
  progress_relay_t relay = {opts->progress, opts->progress_user, &dev->hal};
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const uint64_t cyc0 = tsr_hal_cycles(&dev->hal);
  tsr_status_t st =
      tsr_gemm_run(&dev->dev, d, &res->plan, opts->progress != NULL ? relay_progress : NULL, &relay);
  if (st != TSR_OK) {
    tsr_lib_dev_err(dev, "", err, errlen);
    return st;
  }
  return tsr_lib_end(dev, &t0, cyc0, &res->fig, err, errlen);
}

tsr_status_t tessera_gemm_run(tessera_dev_t *dev, const tessera_gemm_t *job,
                              const tessera_gemm_opts_t *opts, void *out,
                              tessera_gemm_result_t *res, char *err, size_t errlen) {
  if (dev == NULL || job == NULL || res == NULL) {
    tsr_lib_err(err, errlen, "tessera_gemm_run: no device, job or result");
    return TSR_BAD_ARG;
  }
  tessera_gemm_opts_t o;
  memset(&o, 0, sizeof o);
  if (opts != NULL) {
    o = *opts;
  }
  memset(res, 0, sizeof *res);
  gemm_layout_t l;
  gemm_layout(job, &l);
  tsr_status_t st = tessera_gemm_validate(job, err, errlen);
  if (st == TSR_OK) {
    st = tsr_lib_fits(l.end, "the operands", " (4 GiB)", err, errlen);
  }
  if (st != TSR_OK) {
    return st;
  }
  tsr_gemm_desc_t *d = &res->desc;
  gemm_desc(job, &l, d);
  tsr_gemm_opts_t po;
  memset(&po, 0, sizeof po);
  po.max_mt = o.max_mt;
  po.max_kc = o.max_kc;
  po.mem_bw = o.mem_bw;
  po.mem_latency = o.mem_latency;
  po.streamed = tsr_lib_streams(dev);
  st = tsr_gemm_plan_opts(&dev->dev.info, d, &po, &res->plan);
  if (st != TSR_OK) {
    const char *why = "";
    tsr_gemm_check_desc(d, &why);
    if (why[0] == '\0' && d->has_lut && !dev->dev.info.has_sfu) {
      why = "--act needs the SFU to load its table, and this chip was built without it "
            "(CONFIG.SFU = 0)";
    }
    tsr_lib_err(err, errlen, "no plan for %ux%ux%u on this device: %s%s%s", job->m, job->k, job->n,
                tsr_status_str(st), why[0] ? ": " : "", why);
    return st;
  }
  if (o.plan_only) {
    return TSR_OK;
  }
  if (out == NULL) {
    tsr_lib_err(err, errlen, "tessera_gemm_run: no output buffer");
    return TSR_BAD_ARG;
  }
  const size_t out_bytes = (size_t)job->m * job->n * tessera_gemm_out_elem(job);
  if ((st = gemm_upload(dev, job, &l, d, out, out_bytes, err, errlen)) != TSR_OK) {
    return st;
  }
  if (dev->soc != NULL) {
    /* The firmware on the SoC's core plans and runs it (tsr_lib_soc.c). */
    st = tsr_lib_soc_gemm(dev, d, &po, &res->plan, l.end, &res->fig, err, errlen);
  } else if ((st = tsr_lib_begin(dev, l.end, res->plan.cmds, err, errlen)) == TSR_OK) {
    st = gemm_run_host(dev, d, &o, res, err, errlen);
  }
  if (st != TSR_OK || (st = tessera_download(dev, l.c, out, out_bytes, err, errlen)) != TSR_OK) {
    return st;
  }
  res->ran = true;
  const uint64_t cycles = res->fig.cnt.cycles;
  const double dim = (double)dev->dev.info.dim;
  res->fig.utilization = cycles == 0 ? 0.0
                                     : (double)job->m * (double)job->k * (double)job->n /
                                           (dim * dim * (double)cycles);
  return TSR_OK;
}

tsr_status_t tessera_gemm_fold_a_zp(uint32_t k, uint32_t n, const int8_t *b, const int32_t *bias,
                                    int32_t a_zp, int32_t *bias_out, char *err, size_t errlen) {
  if ((b == NULL && (size_t)k * n != 0u) || (bias_out == NULL && n != 0u)) {
    tsr_lib_err(err, errlen, "tessera_gemm_fold_a_zp: no B or no output");
    return TSR_BAD_ARG;
  }
  if (a_zp < -128 || a_zp > 127) {
    tsr_lib_err(err, errlen, "a_zp: %" PRId32 " is outside -128..127", a_zp);
    return TSR_BAD_ARG;
  }
  /* (A - zp) B = A B - zp * colsum(B); unsigned arithmetic wraps like the int32 adders. */
  for (uint32_t j = 0; j < n; j++) {
    uint32_t colsum = 0;
    for (uint32_t i = 0; i < k; i++) {
      colsum += (uint32_t)(int32_t)b[(size_t)i * n + j];
    }
    uint32_t v = bias != NULL ? (uint32_t)bias[j] : 0u;
    v -= (uint32_t)a_zp * colsum;
    bias_out[j] = (int32_t)v;
  }
  return TSR_OK;
}

/* A scale as a .tflite file holds it: float32, positive and finite. */
static int tflite_scale(double s, const char *what, long idx, double *out, char *err,
                        size_t errlen) {
  const float f = (float)s;
  if (!(f > 0.0f) || isinf(f)) {
    if (idx >= 0) {
      tsr_lib_err(err, errlen, "%s[%ld]: %g is not a valid scale (positive and finite as float32)",
                  what, idx, s);
    } else {
      tsr_lib_err(err, errlen, "%s: %g is not a valid scale (positive and finite as float32)",
                  what, s);
    }
    return -1;
  }
  *out = (double)f;
  return 0;
}

tsr_status_t tessera_gemm_quantize_scales(uint32_t n, double a_scale, const double *w_scale,
                                          uint32_t n_w, double out_scale, int32_t *mult,
                                          int32_t *shift, char *err, size_t errlen) {
  if (w_scale == NULL || mult == NULL || shift == NULL || (n_w != 1u && n_w != n)) {
    tsr_lib_err(err, errlen, "w_scale has %u values; give 1 (per tensor) or %u (per channel)",
                n_w, n);
    return TSR_BAD_ARG;
  }
  double as = 0.0;
  double os = 0.0;
  if (tflite_scale(a_scale, "a_scale", -1, &as, err, errlen) != 0 ||
      tflite_scale(out_scale, "out_scale", -1, &os, err, errlen) != 0) {
    return TSR_BAD_ARG;
  }
  for (uint32_t j = 0; j < n; j++) {
    const uint32_t wi = n_w == 1u ? 0u : j;
    double ws = 0.0;
    if (tflite_scale(w_scale[wi], "w_scale", n_w == 1u ? -1 : (long)wi, &ws, err, errlen) != 0) {
      return TSR_BAD_ARG;
    }
    const double real = as * ws / os;
    if (tsr_requant_multiplier(real, &mult[j], &shift[j]) != TSR_OK) {
      tsr_lib_err(err, errlen,
                  "column %u: the multiplier a_scale * w_scale / out_scale = %g cannot be"
                  " represented (it must be below 2^30)",
                  j, real);
      return TSR_BAD_ARG;
    }
  }
  return TSR_OK;
}

tsr_status_t tessera_gemm_check(const tessera_gemm_t *j, const void *out, tessera_mismatch_t *mm,
                                char *err, size_t errlen) {
  memset(mm, 0, sizeof *mm);
  tsr_gemm_params_t p;
  memset(&p, 0, sizeof p);
  const bool per_channel = j->requant && j->mult != NULL;
  p.bias = j->bias;
  p.requant = j->requant;
  p.mult = per_channel ? j->mult : NULL;
  p.shift = per_channel ? j->shift : NULL;
  p.mult_scalar = j->mult_scalar;
  p.shift_scalar = j->shift_scalar;
  p.out_zp = j->out_zp;
  p.act_min = j->act_min;
  p.act_max = j->act_max;
  p.lut = j->lut;
  p.mult_neg = j->mult_neg;
  p.shift_neg = j->shift_neg;
  const size_t mn = (size_t)j->m * j->n;
  int8_t *g8 = NULL;
  int32_t *g32 = NULL;
  if (j->requant) {
    g8 = malloc(mn);
  } else {
    g32 = malloc(mn * sizeof *g32);
  }
  if (g8 == NULL && g32 == NULL) {
    tsr_lib_err(err, errlen, "out of memory for the golden result");
    return TSR_NO_MEMORY;
  }
  tsr_status_t st = TSR_OK;
  if (tsr_golden_gemm(j->m, j->k, j->n, j->a, j->k, j->b, j->n, &p, g32, g8) != 0) {
    tsr_lib_err(err, errlen, "the golden model rejected the parameters");
    st = TSR_BAD_ARG;
  }
  for (size_t i = 0; i < mn && st == TSR_OK; i++) {
    int32_t hw;
    int32_t gold;
    if (j->requant) {
      hw = ((const int8_t *)out)[i];
      gold = g8[i];
    } else {
      memcpy(&hw, (const uint8_t *)out + 4 * i, 4);
      gold = g32[i];
    }
    if (hw != gold && mm->count++ == 0u) {
      mm->row = (uint32_t)(i / j->n);
      mm->col = (uint32_t)(i % j->n);
      mm->got = hw;
      mm->want = gold;
    }
  }
  free(g8);
  free(g32);
  return st;
}
