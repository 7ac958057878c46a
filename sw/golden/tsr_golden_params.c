/* tsr_golden_params.c: the golden model's own SFU tables and parameter blocks (docs/sfu.md), written apart from the chip path's prep. */
#include "tsr_golden_params.h"

#include <float.h>
#include <math.h>

#include "tsr_quant.h" /* TSR_QUANT_SHIFT_MAX only: no code of tsr_quant.c is used */

/*
 * Each function starts again from the real-valued definition in docs/sfu.md
 * and shares no code with sw/lib/tsr_sfu_prep.c, the preparation whose output
 * the chip is given. tests/unit/test_golden_params.c checks that the two
 * agree on many random scales, and checks these tables against the real
 * functions evaluated in double.
 *
 * The tables are defined in float32 (TFLite's LUTPopulateInt8): the float
 * expressions below must be evaluated as written, one rounding per
 * operation, so the file needs FLT_EVAL_METHOD 0 and no contraction into
 * fused multiply-adds (-std=c11 turns contraction off in GCC).
 */

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "tsr_golden_params.c: float expressions must be evaluated in float (FLT_EVAL_METHOD 0)"
#endif

static int scale_ok(double s) {
  return isfinite(s) && s > 0.0;
}

static int zero_point_ok(int32_t zp) {
  return zp >= -128 && zp <= 127;
}

/* ---- QuantizeMultiplier ---- */

/*
 * real = mult * 2^(shift - 31) with mult in [2^30, 2^31): write real = q * 2^shift
 * with q in [1/2, 1) by halving or doubling (exact in binary floating point),
 * then mult = q * 2^31 rounded half away from zero; a q that rounds up to 1
 * becomes 1/2 with shift + 1. A shift below -31 leaves nothing: mult = 0,
 * shift = 0, as for real = 0. Fails (-1) for a negative, NaN or infinite
 * real, or a shift above max_shift.
 */
static int golden_multiplier(double real, int max_shift, int32_t *mult, int *shift) {
  if (!(real >= 0.0) || isinf(real)) {
    return -1;
  }
  if (real == 0.0) {
    *mult = 0;
    *shift = 0;
    return 0;
  }
  double q = real;
  int e = 0;
  while (q >= 1.0) {
    q *= 0.5;
    e++;
  }
  while (q < 0.5) {
    q *= 2.0;
    e--;
  }
  double m = round(q * 2147483648.0); /* 2^30 .. 2^31 */
  if (m == 2147483648.0) {
    m = 1073741824.0;
    e++;
  }
  if (e < -31) {
    m = 0.0;
    e = 0;
  }
  if (e > max_shift) {
    return -1;
  }
  *mult = (int32_t)m;
  *shift = e;
  return 0;
}

/* ---- tables: LUTPopulateInt8 in float32 ---- */

/* f(x) of each table, in float, operations in the order of docs/sfu.md. */
static float golden_logistic(float x) {
  return 1.0f / (1.0f + expf(-x));
}

static float golden_tanh(float x) {
  return tanhf(x);
}

static float golden_gelu(float x) {
  const float one_over_sqrt2 = (float)sqrt(0.5);
  return 0.5f * x * (1.0f + erff(x * one_over_sqrt2));
}

static float golden_gelu_tanh(float x) {
  const double pi = 4.0 * atan(1.0);
  const float sqrt_2_over_pi = (float)sqrt(2.0 / pi);
  const float cubic = 0.044715f;
  return 0.5f * x * (1.0f + tanhf(sqrt_2_over_pi * (x + cubic * x * x * x)));
}

static float golden_silu(float x) {
  return x / (1.0f + expf(-x));
}

static float golden_exp(float x) {
  return expf(x);
}

static float golden_hardswish(float x) {
  float relu6 = x + 3.0f;
  if (relu6 < 0.0f) {
    relu6 = 0.0f;
  }
  if (relu6 > 6.0f) {
    relu6 = 6.0f;
  }
  return x * relu6 / 6.0f;
}

typedef float (*golden_fn_t)(float);

static golden_fn_t golden_fn_of(tsr_lut_fn_t fn) {
  switch (fn) {
    case TSR_LUT_LOGISTIC:
      return golden_logistic;
    case TSR_LUT_TANH:
      return golden_tanh;
    case TSR_LUT_GELU:
      return golden_gelu;
    case TSR_LUT_GELU_TANH:
      return golden_gelu_tanh;
    case TSR_LUT_SILU:
      return golden_silu;
    case TSR_LUT_EXP:
      return golden_exp;
    case TSR_LUT_HARDSWISH:
      return golden_hardswish;
    default:
      return NULL;
  }
}

int tsr_golden_lut(tsr_lut_fn_t fn, double in_scale, int32_t in_zp, double out_scale, int32_t out_zp,
                   int8_t lut[256]) {
  const golden_fn_t f = golden_fn_of(fn);
  if (lut == NULL || f == NULL || !zero_point_ok(in_zp) || !zero_point_ok(out_zp)) {
    return -1;
  }
  /* The scales as TFLite keeps them: float32. */
  const float s_in = (float)in_scale;
  const float s_out = (float)out_scale;
  if (!scale_ok(s_in) || !scale_ok(s_out)) {
    return -1;
  }
  const float inverse_out_scale = 1.0f / s_out;
  if (isinf(inverse_out_scale)) {
    return -1;
  }

  int8_t table[256];
  for (int32_t val = -128; val <= 127; val++) {
    const float x = s_in * (float)(val - in_zp); /* the real value of the input byte */
    const float y = f(x) * inverse_out_scale;    /* f(x) in units of the output scale */
    if (isnan(y)) {
      return -1;
    }
    /* To the nearest integer, ties away from zero (C's round on the exact
     * double of y), then the zero point, then the int8 range. A y beyond
     * +-1000 is out of range whatever the zero point. */
    int32_t q;
    if (y > 1000.0f) {
      q = 127;
    } else if (y < -1000.0f) {
      q = -128;
    } else {
      q = (int32_t)round((double)y) + out_zp;
      q = q < -128 ? -128 : q > 127 ? 127 : q;
    }
    table[val & 0xff] = (int8_t)q; /* indexed by the input's byte */
  }
  for (int i = 0; i < 256; i++) {
    lut[i] = table[i];
  }
  return 0;
}

/* ---- SOFTMAX ---- */

int tsr_golden_leaky_params(size_t n, double alpha, const int32_t *mult, const int32_t *shift,
                            int32_t mult_scalar, int32_t shift_scalar, int32_t *mult_neg,
                            int32_t *shift_neg) {
  if (mult_neg == NULL || shift_neg == NULL || (mult == NULL) != (shift == NULL) || !(alpha >= 0.0) ||
      alpha > 1.0) {
    return -1;
  }
  for (size_t c = 0; c < n; c++) {
    const int32_t m = mult != NULL ? mult[c] : mult_scalar;
    const int32_t s = shift != NULL ? shift[c] : shift_scalar;
    /* The column's real multiplier is m / 2^31 * 2^s; the negative side's is alpha times it. */
    double real = alpha * (double)m;
    for (int i = 0; i < 31 - s; i++) {
      real *= 0.5;
    }
    for (int i = 0; i < s - 31; i++) {
      real *= 2.0;
    }
    int sh = 0;
    if (m < 0 || golden_multiplier(real, 30, &mult_neg[c], &sh) != 0) {
      return -1;
    }
    shift_neg[c] = sh;
  }
  return 0;
}

int tsr_golden_softmax_params(double beta, double in_scale, tsr_softmax_params_t *p) {
  /* The scales as TFLite keeps them: float32. */
  beta = (float)beta;
  in_scale = (float)in_scale;
  if (p == NULL || !scale_ok(beta) || !scale_ok(in_scale)) {
    return -1;
  }
  /* A difference d of int8 inputs is the real beta * in_scale * d; in Q5.26
   * that is d times beta * in_scale * 2^26, kept below 2^31. */
  double real = beta * in_scale * 67108864.0; /* 2^26 */
  if (real > 2147483647.0) {
    real = 2147483647.0;
  }
  if (!(real > 1.0)) {
    return -1; /* the hardware only shifts left */
  }
  int32_t mult = 0;
  int left_shift = 0;
  if (golden_multiplier(real, 31, &mult, &left_shift) != 0) {
    return -1;
  }
  /* diff_min: the most negative d whose scaled value stays above -32, i.e.
   * -floor(31 * 2^26 / 2^left_shift); 31 * 2^26 < 2^31. */
  p->mult = mult;
  p->left_shift = left_shift;
  p->diff_min = -(int32_t)((UINT32_C(31) << 26) >> left_shift);
  return 0;
}

/* ---- LAYERNORM ---- */

int tsr_golden_layernorm_params(size_t len, double in_scale, double eps, int32_t gamma_zp, double gamma_scale,
                                double out_scale, int32_t out_zp, tsr_layernorm_params_t *p) {
  /* The scales as TFLite keeps them: float32. */
  in_scale = (float)in_scale;
  gamma_scale = (float)gamma_scale;
  out_scale = (float)out_scale;
  if (p == NULL || len == 0 || len > TSR_SFU_LEN_MAX || !scale_ok(in_scale) || !scale_ok(gamma_scale) ||
      !scale_ok(out_scale) || !isfinite(eps) || eps < 0.0 || !zero_point_ok(gamma_zp) || !zero_point_ok(out_zp)) {
    return -1;
  }
  /* eps in the units of L^2 * variance (input units squared) with 8 fraction bits. */
  const double L = (double)len;
  const double e = round(eps / (in_scale * in_scale) * (L * L) * 256.0);
  if (!(e < 9223372036854775808.0)) { /* 2^63 */
    return -1;
  }
  const uint64_t E = (uint64_t)e;
  const uint32_t E_lo = (uint32_t)(E & 0xffffffffu);

  /* The accumulator's scale is gamma_scale * 2^-12. */
  int32_t out_mult = 0;
  int out_shift = 0;
  if (golden_multiplier(gamma_scale * 0x1p-12 / out_scale, TSR_QUANT_SHIFT_MAX, &out_mult, &out_shift) != 0) {
    return -1;
  }
  p->gamma_offset = -gamma_zp;
  p->eps_lo = E_lo < 0x80000000u ? (int32_t)E_lo : (int32_t)((int64_t)E_lo - INT64_C(0x100000000));
  p->eps_hi = (int32_t)(E >> 32); /* E < 2^63 */
  p->out_mult = out_mult;
  p->out_shift = out_shift;
  p->out_offset = out_zp;
  p->act_min = -128;
  p->act_max = 127;
  return 0;
}

int tsr_golden_layernorm_beta(size_t len, const float *beta_f, double gamma_scale, int32_t *beta_q) {
  gamma_scale = (float)gamma_scale; /* as TFLite keeps a scale */
  if (beta_f == NULL || beta_q == NULL || !scale_ok(gamma_scale)) {
    return -1;
  }
  for (size_t j = 0; j < len; j++) {
    /* beta in units of gamma_scale * 2^-12 */
    const double q = round((double)beta_f[j] * 4096.0 / gamma_scale);
    if (isnan(q) || q < -2147483648.0 || q > 2147483647.0) {
      return -1;
    }
    beta_q[j] = (int32_t)q;
  }
  return 0;
}

/* ---- ADD and MUL ---- */

/* The scales as TFLite keeps them, float32 (rounded in place), and the zero points. */
static int operands_ok(double *s1, int32_t zp1, double *s2, int32_t zp2, double *s_out,
                       int32_t zp_out) {
  *s1 = (float)*s1;
  *s2 = (float)*s2;
  *s_out = (float)*s_out;
  return scale_ok(*s1) && scale_ok(*s2) && scale_ok(*s_out) && zero_point_ok(zp1) &&
         zero_point_ok(zp2) && zero_point_ok(zp_out);
}

int tsr_golden_add_params(double s1, int32_t zp1, double s2, int32_t zp2, double s_out, int32_t zp_out,
                          tsr_add_params_t *p) {
  if (p == NULL || !operands_ok(&s1, zp1, &s2, zp2, &s_out, zp_out)) {
    return -1;
  }
  /* Both inputs go to the common scale t = 2 max(s1, s2) with 20 bits of
   * headroom; the sum comes back to s_out. */
  const double t = 2.0 * fmax(s1, s2);
  int32_t m1 = 0, m2 = 0, mo = 0;
  int e1 = 0, e2 = 0, eo = 0;
  if (golden_multiplier(s1 / t, TSR_QUANT_SHIFT_MAX, &m1, &e1) != 0 ||
      golden_multiplier(s2 / t, TSR_QUANT_SHIFT_MAX, &m2, &e2) != 0 ||
      golden_multiplier(t / (1048576.0 * s_out), TSR_QUANT_SHIFT_MAX, &mo, &eo) != 0) {
    return -1;
  }
  p->in1_offset = -zp1;
  p->in1_mult = m1;
  p->in1_shift = e1;
  p->in2_offset = -zp2;
  p->in2_mult = m2;
  p->in2_shift = e2;
  p->out_mult = mo;
  p->out_shift = eo;
  p->out_offset = zp_out;
  p->act_min = -128;
  p->act_max = 127;
  return 0;
}

int tsr_golden_mul_params(double s1, int32_t zp1, double s2, int32_t zp2, double s_out, int32_t zp_out,
                          tsr_mul_params_t *p) {
  int32_t mo = 0;
  int eo = 0;
  /* The product and quotient in double, of the float32 scales. */
  if (p == NULL || !operands_ok(&s1, zp1, &s2, zp2, &s_out, zp_out) ||
      golden_multiplier(s1 * s2 / s_out, TSR_QUANT_SHIFT_MAX, &mo, &eo) != 0) {
    return -1;
  }
  p->in1_offset = -zp1;
  p->in2_offset = -zp2;
  p->out_mult = mo;
  p->out_shift = eo;
  p->out_offset = zp_out;
  p->act_min = -128;
  p->act_max = 127;
  return 0;
}
