/* tsr_sfu_prep.c: host-side SFU parameter preparation (lookup tables, softmax, layer norm, add) as TFLite's Prepare does. */
#include "tsr_sfu.h"

#include <math.h>

#include "tsr_quant.h"

/*
 * Float code for the host only (it uses libm); the golden model and the
 * hardware consume only what it produces: int8 tables and int32 parameter
 * blocks. Every step names the TensorFlow Lite function it follows.
 *
 * Float evaluation must be plain IEEE single/double (FLT_EVAL_METHOD 0, no
 * fused multiply-add contraction, which -std=c11 turns off in GCC) for the
 * tables to match tests/system/sfu_ref.py bit for bit.
 */

static int is_int8(int32_t v) {
  return v >= INT8_MIN && v <= INT8_MAX;
}

static int positive_finite(double v) {
  return isfinite(v) && v > 0.0;
}

/* The int32 whose two's-complement bit pattern is u. */
static int32_t int32_from_bits(uint32_t u) {
  if (u <= (uint32_t)INT32_MAX) {
    return (int32_t)u;
  }
  return (int32_t)(u - 0x80000000u) + INT32_MIN;
}

/* C's round(): to nearest, ties away from zero (TfLiteRound). */
static double round_away(double v) {
  return round(v);
}

/* ---- lookup tables: LUTPopulateInt8 ---- */

/* The functions a table can hold, in float as TFLite's transforms. */
static int lut_transform(tsr_lut_fn_t fn, float x, float *out) {
  const float sqrt1_2 = (float)0.70710678118654752440;     /* M_SQRT1_2 */
  const float sqrt_2_over_pi = (float)0.7978845608028654; /* M_2_SQRTPI * M_SQRT1_2 */
  const float gelu_cubic = (float)0.044715;
  switch (fn) {
    case TSR_LUT_LOGISTIC:
      *out = 1.0f / (1.0f + expf(-x));
      return 0;
    case TSR_LUT_TANH:
      *out = tanhf(x);
      return 0;
    case TSR_LUT_GELU:
      *out = 0.5f * x * (1.0f + erff(x * sqrt1_2));
      return 0;
    case TSR_LUT_GELU_TANH:
      *out = 0.5f * x * (1.0f + tanhf(sqrt_2_over_pi * (x + gelu_cubic * x * x * x)));
      return 0;
    case TSR_LUT_SILU:
      *out = x / (1.0f + expf(-x));
      return 0;
    case TSR_LUT_EXP:
      *out = expf(x);
      return 0;
    case TSR_LUT_HARDSWISH:
      *out = x * fminf(fmaxf(x + 3.0f, 0.0f), 6.0f) / 6.0f;
      return 0;
    default:
      return -1;
  }
}

int tsr_lut_populate(tsr_lut_fn_t fn, float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                     int8_t lut[256]) {
  if (lut == NULL || !positive_finite(in_scale) || !positive_finite(out_scale) || !is_int8(in_zp) ||
      !is_int8(out_zp)) {
    return -1;
  }
  const float inverse_scale = 1.0f / out_scale;
  if (!isfinite(inverse_scale)) {
    return -1;
  }

  int8_t table[256];
  for (int32_t val = INT8_MIN; val <= INT8_MAX; val++) {
    const float dequantized = in_scale * (float)(val - in_zp);
    float transformed = 0.0f;
    if (lut_transform(fn, dequantized, &transformed) != 0) {
      return -1;
    }
    const float rescaled = roundf(transformed * inverse_scale); /* TfLiteRound: ties away from zero */
    const float quantized = rescaled + (float)out_zp;
    if (isnan(quantized)) {
      return -1; /* only with absurd scales (inf * 0 and the like) */
    }
    /* TFLite converts to int32 and then clamps; clamping in float first
     * gives the same result and stays defined for huge values and inf. */
    int8_t q;
    if (quantized <= (float)INT8_MIN) {
      q = INT8_MIN;
    } else if (quantized >= (float)INT8_MAX) {
      q = INT8_MAX;
    } else {
      q = (int8_t)(int32_t)quantized; /* an integer value in range: exact */
    }
    table[(uint8_t)(int8_t)val] = q; /* LUTIndex: the int8 value's byte */
  }
  for (int i = 0; i < 256; i++) {
    lut[i] = table[i];
  }
  return 0;
}

/* ---- TFLite Micro's integer kernels as tables ---- */

static int quantize_multiplier_up_to_31(double real, int32_t *mult, int *shift);

/* gemmlowp's int16 SaturatingRoundingDoublingHighMul. */
static int16_t srdhm16(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) {
    return INT16_MAX;
  }
  const int32_t ab = (int32_t)a * b;
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return (int16_t)((ab + nudge) / (1 << 15)); /* C division truncates, as C++'s */
}

/* TFLite's int16 SaturatingDoublingHighMul (no rounding: the quotient truncates). */
static int16_t sdhm16(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) {
    return INT16_MAX;
  }
  return (int16_t)(((int32_t)a * b) / (1 << 15));
}

/* gemmlowp's RoundingDivideByPOT on int16, in int16 arithmetic for any exponent >= 0:
 * from 16 on the mask is all ones and the result is -1, 0 + 1 or 1 by the sign
 * alone, as TFLite computes it for a tiny output multiplier. */
static int16_t rdbpot16(int16_t x, int exponent) {
  const int16_t mask = (int16_t)(exponent >= 16 ? -1 : (1 << exponent) - 1);
  const int16_t remainder = (int16_t)(x & mask);
  const int16_t threshold = (int16_t)((mask >> 1) + (x < 0 ? 1 : 0));
  const int32_t shifted = exponent >= 31 ? (x < 0 ? -1 : 0) : ((int32_t)x >> exponent);
  return (int16_t)(shifted + (remainder > threshold ? 1 : 0));
}

/* TFLite's SaturatingLeftShift on int16. */
static int16_t sat_shl16(int16_t x, int amount) {
  const int32_t v = (int32_t)x * (1 << amount);
  return (int16_t)(v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : v);
}

/* TFLite's DownScaleInt32ToInt16Multiplier. */
static int16_t downscale_mult16(int32_t m) {
  if (m >= INT32_MAX - (1 << 15)) {
    return INT16_MAX;
  }
  return (int16_t)((m + (1 << 15)) >> 16);
}

/* reference_integer_ops::Logistic and ::Tanh on every int8 input; `tanh` picks the function. */
static int lut_logistic_or_tanh(int tanh, float in_scale, int32_t in_zp, float out_scale,
                                int32_t out_zp, int8_t lut[256]) {
  const float want_scale = tanh ? 1.0f / 128.0f : 1.0f / 256.0f;
  const int32_t want_zp = tanh ? 0 : INT8_MIN;
  if (lut == NULL || !positive_finite(in_scale) || !is_int8(in_zp) || out_scale != want_scale ||
      out_zp != want_zp) {
    return -1;
  }
  /* CalculateArithmeticOpData: kInputIntegerBits = 4. */
  const int input_integer_bits = 4;
  int32_t mult = 0;
  int left_shift = 0;
  if (tsr_quantize_multiplier((double)in_scale * (double)(1 << (31 - input_integer_bits)), &mult,
                              &left_shift) != 0) {
    return -1;
  }
  /* CalculateInputRadius(4, left_shift, 31). */
  const double radius_d = floor(15.0 * (double)(INT64_C(1) << 27) / ldexp(1.0, left_shift));
  const int32_t radius = radius_d > 1e9 ? INT32_C(1000000000) : (int32_t)radius_d;
  int8_t table[256];
  for (int32_t val = INT8_MIN; val <= INT8_MAX; val++) {
    const int32_t x = val - in_zp;
    int32_t y;
    if (x <= -radius) {
      y = INT8_MIN;
    } else if (x >= radius) {
      y = INT8_MAX;
    } else {
      const int32_t x_q4 = tsr_mbqm(x, mult, left_shift);
      if (tanh) {
        y = tsr_rdbpot(tsr_gemmlowp_tanh(x_q4, input_integer_bits), 31 - 7);
      } else {
        y = tsr_rdbpot(tsr_gemmlowp_logistic(x_q4, input_integer_bits), 31 - 8) + INT8_MIN;
      }
      y = y < INT8_MIN ? INT8_MIN : y > INT8_MAX ? INT8_MAX : y;
    }
    table[(uint8_t)(int8_t)val] = (int8_t)y;
  }
  for (int i = 0; i < 256; i++) {
    lut[i] = table[i];
  }
  return 0;
}

int tsr_lut_logistic_tflm(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                          int8_t lut[256]) {
  return lut_logistic_or_tanh(0, in_scale, in_zp, out_scale, out_zp, lut);
}

int tsr_lut_tanh_tflm(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                      int8_t lut[256]) {
  return lut_logistic_or_tanh(1, in_scale, in_zp, out_scale, out_zp, lut);
}

int tsr_lut_hard_swish_tflm(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                            int8_t lut[256]) {
  if (lut == NULL || !positive_finite(in_scale) || !positive_finite(out_scale) || !is_int8(in_zp) ||
      !is_int8(out_zp)) {
    return -1;
  }
  /* HardSwishPrepare: the scales in float, the multipliers through QuantizeMultiplier. */
  const float hires_input_scale = (1.0f / 128.0f) * in_scale;
  const float reluish_scale = 3.0f / 32768.0f;
  int32_t out_m32 = 0, relu_m32 = 0;
  int out_exp = 0, relu_exp = 0;
  if (tsr_quantize_multiplier((double)(hires_input_scale / out_scale), &out_m32, &out_exp) != 0 ||
      out_exp > 0 ||
      quantize_multiplier_up_to_31((double)(hires_input_scale / reluish_scale), &relu_m32, &relu_exp) != 0 ||
      relu_exp < -15) {
    return -1;
  }
  const int16_t out_m = downscale_mult16(out_m32);
  const int16_t relu_m = downscale_mult16(relu_m32);
  int8_t table[256];
  for (int32_t val = INT8_MIN; val <= INT8_MAX; val++) {
    /* reference_ops::HardSwish, step by step. */
    const int16_t x_hires = (int16_t)((val - in_zp) * (1 << 7));
    const int16_t x_preshift_out = srdhm16(x_hires, out_m);
    int16_t reluish = x_hires;
    if (relu_exp > 0) {
      reluish = sat_shl16(reluish, relu_exp - 1);
    }
    reluish = srdhm16(reluish, relu_m);
    if (relu_exp > 0) {
      reluish = sat_shl16(reluish, 1);
    }
    if (relu_exp < 0) {
      reluish = rdbpot16(reluish, -relu_exp);
    }
    reluish = (int16_t)(((int32_t)reluish + (1 << 15)) >> 1);
    const int16_t preshift_out = sdhm16(reluish, x_preshift_out);
    int32_t y = (int32_t)rdbpot16(preshift_out, -out_exp) + out_zp;
    y = y > INT8_MAX ? INT8_MAX : y < INT8_MIN ? INT8_MIN : y;
    table[(uint8_t)(int8_t)val] = (int8_t)y;
  }
  for (int i = 0; i < 256; i++) {
    lut[i] = table[i];
  }
  return 0;
}

int tsr_lut_relu_tflm(int relu6, float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                      int8_t lut[256]) {
  if (lut == NULL || !positive_finite(in_scale) || !positive_finite(out_scale) || !is_int8(in_zp) ||
      !is_int8(out_zp)) {
    return -1;
  }
  int8_t table[256];
  if (relu6) {
    /* Relu6Prepare: zero and six quantized with the input's parameters
     * (FloatToQuantizedType); Relu6Quantized clamps without requantizing. */
    const int32_t six_f = (int32_t)fminf(roundf(6.0f / in_scale), 1000.0f) + in_zp;
    const int32_t six = six_f > INT8_MAX ? INT8_MAX : six_f;
    for (int32_t val = INT8_MIN; val <= INT8_MAX; val++) {
      table[(uint8_t)(int8_t)val] = (int8_t)(val < in_zp ? in_zp : val > six ? six : val);
    }
    for (int i = 0; i < 256; i++) {
      lut[i] = table[i];
    }
    return 0;
  }
  int32_t mult = 0;
  int shift = 0;
  if (tsr_quantize_multiplier((double)in_scale / (double)out_scale, &mult, &shift) != 0) {
    return -1;
  }
  /* CalculateReluOpData: act_min 0 on the output's scale, in float. */
  const int32_t lo = out_zp > INT8_MIN ? out_zp : INT8_MIN;
  const int32_t hi = INT8_MAX;
  for (int32_t val = INT8_MIN; val <= INT8_MAX; val++) {
    int32_t y = out_zp + tsr_mbqm(val - in_zp, mult, shift);
    y = y < lo ? lo : y > hi ? hi : y;
    table[(uint8_t)(int8_t)val] = (int8_t)y;
  }
  for (int i = 0; i < 256; i++) {
    lut[i] = table[i];
  }
  return 0;
}

/* ---- multipliers ---- */

/* TFLite QuantizeMultiplier, also for shift 31 (which tsr_quantize_multiplier
 * rejects because the requantizer cannot use it): halving the real value is
 * exact and lowers the shift by one without changing the significand. */
static int quantize_multiplier_up_to_31(double real, int32_t *mult, int *shift) {
  if (real >= 1073741824.0) { /* 2^30 */
    const int rc = tsr_quantize_multiplier(real * 0.5, mult, shift);
    if (rc == 0) {
      *shift += 1;
    }
    return rc;
  }
  return tsr_quantize_multiplier(real, mult, shift);
}

/* ---- SOFTMAX ---- */

int tsr_softmax_prepare(float beta_f, float in_scale_f, tsr_softmax_params_t *p) {
  const double beta = beta_f; /* TFLite keeps both as float and computes in double */
  const double in_scale = in_scale_f;
  if (p == NULL || !positive_finite(beta) || !positive_finite(in_scale)) {
    return -1;
  }
  const int input_integer_bits = 5; /* kScaledDiffIntegerBits */

  /* PreprocessSoftmaxScaling: the real multiplier takes d to Q5.26, capped
   * at 2^31 - 1 (a larger one sends every d != 0 to exp(<= -32) anyway). */
  const double max_real_multiplier = 2147483647.0;
  double real = beta * in_scale * (double)(INT64_C(1) << (31 - input_integer_bits));
  if (real > max_real_multiplier) {
    real = max_real_multiplier;
  }
  /* QuantizeMultiplierGreaterThanOne: the real multiplier must exceed 1. */
  if (!(real > 1.0)) {
    return -1;
  }
  int32_t mult = 0;
  int left_shift = 0;
  if (quantize_multiplier_up_to_31(real, &mult, &left_shift) != 0 || left_shift < 0 || left_shift > 31) {
    return -1;
  }

  /* CalculateInputRadius(5, left_shift, 31): the largest |d| whose scaled
   * value d * 2^left_shift * mult / 2^31 stays above -32, i.e. floor of
   * (2^5 - 1) * 2^(31 - 5) / 2^left_shift. */
  const double max_input_rescaled = 1.0 * ((1 << input_integer_bits) - 1) *
                                    (double)(INT64_C(1) << (31 - input_integer_bits)) /
                                    (double)(INT64_C(1) << left_shift);
  const int32_t radius = (int32_t)floor(max_input_rescaled);

  p->mult = mult;
  p->left_shift = left_shift;
  p->diff_min = -radius;
  return 0;
}

/* ---- LAYERNORM ---- */

int tsr_layernorm_prepare(size_t len, float in_scale_f, double eps, int32_t gamma_zp, float gamma_scale_f,
                          float out_scale_f, int32_t out_zp, tsr_layernorm_params_t *p) {
  const double in_scale = in_scale_f;
  const double gamma_scale = gamma_scale_f;
  const double out_scale = out_scale_f;
  if (p == NULL || len == 0 || len > TSR_SFU_LEN_MAX || !positive_finite(in_scale) || !isfinite(eps) || eps < 0.0 ||
      !positive_finite(gamma_scale) || !positive_finite(out_scale) || !is_int8(gamma_zp) || !is_int8(out_zp)) {
    return -1;
  }
  /* E = eps / in_scale^2 * L^2 * 2^8: epsilon in the units of (L*S2 - S1^2) * 2^8. */
  const double L = (double)len;
  const double e_real = round_away(eps / (in_scale * in_scale) * (L * L) * 256.0);
  if (!(e_real < 9223372036854775808.0)) { /* 2^63; also catches inf */
    return -1;
  }
  const uint64_t E = (uint64_t)e_real;

  /* The accumulator a has scale gamma_scale * 2^-12. */
  int32_t out_mult = 0;
  int out_shift = 0;
  if (tsr_quantize_multiplier(gamma_scale * 0x1p-12 / out_scale, &out_mult, &out_shift) != 0) {
    return -1;
  }

  p->gamma_offset = -gamma_zp;
  p->eps_lo = int32_from_bits((uint32_t)(E & 0xffffffffu)); /* the low word as a bit pattern */
  p->eps_hi = (int32_t)(E >> 32);                             /* E < 2^63: fits */
  p->out_mult = out_mult;
  p->out_shift = out_shift;
  p->out_offset = out_zp;
  p->act_min = INT8_MIN;
  p->act_max = INT8_MAX;
  return 0;
}

int tsr_layernorm_quantize_beta(size_t len, const float *beta_f, float gamma_scale_f, int32_t *beta_q) {
  const double gamma_scale = gamma_scale_f;
  if (beta_f == NULL || beta_q == NULL || !positive_finite(gamma_scale)) {
    return -1;
  }
  const double scale = gamma_scale * 0x1p-12;
  for (size_t j = 0; j < len; j++) {
    const double q = round_away((double)beta_f[j] / scale);
    if (!(q >= -2147483648.0 && q <= 2147483647.0)) { /* also NaN */
      return -1;
    }
    beta_q[j] = (int32_t)q;
  }
  return 0;
}

/* ---- ADD and MUL ---- */

/* The scales (TFLite keeps them as float and computes in double) and zero points of both. */
static int two_tensor_quant_ok(double s1, int32_t zp1, double s2, int32_t zp2, double s_out,
                                int32_t zp_out) {
  return positive_finite(s1) && positive_finite(s2) && positive_finite(s_out) && is_int8(zp1) &&
         is_int8(zp2) && is_int8(zp_out);
}

int tsr_add_prepare(float s1_f, int32_t zp1, float s2_f, int32_t zp2, float s_out_f, int32_t zp_out,
                    tsr_add_params_t *p) {
  const double s1 = s1_f;
  const double s2 = s2_f;
  const double s_out = s_out_f;
  if (p == NULL || !two_tensor_quant_ok(s1, zp1, s2, zp2, s_out, zp_out)) {
    return -1;
  }
  const int left_shift = 20;
  const double twice_max_input_scale = 2.0 * (s1 > s2 ? s1 : s2);
  const double real_input1_multiplier = s1 / twice_max_input_scale;
  const double real_input2_multiplier = s2 / twice_max_input_scale;
  const double real_output_multiplier = twice_max_input_scale / ((double)(1 << left_shift) * s_out);

  int32_t m1 = 0, m2 = 0, mo = 0;
  int sh1 = 0, sh2 = 0, sho = 0;
  /* The input multipliers are at most 1/2 (shift <= 0); the output one
   * fails only if it is 2^30 or more. */
  if (tsr_quantize_multiplier(real_input1_multiplier, &m1, &sh1) != 0 ||
      tsr_quantize_multiplier(real_input2_multiplier, &m2, &sh2) != 0 ||
      tsr_quantize_multiplier(real_output_multiplier, &mo, &sho) != 0) {
    return -1;
  }

  p->in1_offset = -zp1;
  p->in1_mult = m1;
  p->in1_shift = sh1;
  p->in2_offset = -zp2;
  p->in2_mult = m2;
  p->in2_shift = sh2;
  p->out_mult = mo;
  p->out_shift = sho;
  p->out_offset = zp_out;
  p->act_min = INT8_MIN;
  p->act_max = INT8_MAX;
  return 0;
}

int tsr_mul_prepare(float s1_f, int32_t zp1, float s2_f, int32_t zp2, float s_out_f, int32_t zp_out,
                    tsr_mul_params_t *p) {
  const double s1 = s1_f;
  const double s2 = s2_f;
  const double s_out = s_out_f;
  int32_t mo = 0;
  int sho = 0;
  if (p == NULL || !two_tensor_quant_ok(s1, zp1, s2, zp2, s_out, zp_out) ||
      tsr_quantize_multiplier(s1 * s2 / s_out, &mo, &sho) != 0) {
    return -1;
  }
  p->in1_offset = -zp1;
  p->in2_offset = -zp2;
  p->out_mult = mo;
  p->out_shift = sho;
  p->out_offset = zp_out;
  p->act_min = INT8_MIN;
  p->act_max = INT8_MAX;
  return 0;
}
