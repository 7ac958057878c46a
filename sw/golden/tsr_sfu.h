/* tsr_sfu.h: golden model of the special-function unit (docs/sfu.md) and its host-side parameter preparation. */
#ifndef TSR_SFU_H
#define TSR_SFU_H

/*
 * Two halves:
 *
 *  - The golden model (sw/golden/tsr_sfu_golden.c): what the SFU command computes,
 *    written as plain loops in integer arithmetic. The hardware must match it
 *    bit for bit. It is freestanding (no libc, no libm, no libgcc helpers), so
 *    the RV32IM firmware can link it like tsr_quant.c.
 *  - The parameter preparation (sw/lib/tsr_sfu_prep.c): host-only float code that
 *    turns real scales into the int32 parameter blocks and lookup tables the
 *    driver loads, as TensorFlow Lite's Prepare functions do. It uses libm.
 *
 * The golden model does not check with the preparation's output: it derives
 * its own tables and blocks from the same scales with separately written
 * code (sw/golden/tsr_golden_params.h), so that a mistake in either shows.
 *
 * Tensors are row-major int8 [rows][len]. All int32 additions wrap modulo
 * 2^32 like the hardware's adders.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- parameter blocks: the int32 words in the order of docs/sfu.md; the driver LOADs them as is ---- */

/** SOFTMAX parameter block (P = 3). */
typedef struct tsr_softmax_params {
  int32_t mult;       /**< input_beta_multiplier */
  int32_t left_shift; /**< input_beta_left_shift, 0..31 */
  int32_t diff_min;   /**< -CalculateInputRadius(5, left_shift, 31), <= 0 */
} tsr_softmax_params_t;

/** LAYERNORM parameter block (P = 8). */
typedef struct tsr_layernorm_params {
  int32_t gamma_offset; /**< -gamma zero point */
  int32_t eps_lo;       /**< low 32 bits of E as a bit pattern (unsigned) */
  int32_t eps_hi;       /**< high 32 bits of E (signed, >= 0) */
  int32_t out_mult;     /**< output multiplier */
  int32_t out_shift;    /**< output shift, -31..30 */
  int32_t out_offset;   /**< output zero point */
  int32_t act_min;      /**< -128..127 */
  int32_t act_max;      /**< act_min..127 */
} tsr_layernorm_params_t;

/** ADD parameter block (P = 11). */
typedef struct tsr_add_params {
  int32_t in1_offset, in1_mult, in1_shift; /**< -zero point of A, multiplier, shift -31..0 */
  int32_t in2_offset, in2_mult, in2_shift; /**< the same for B */
  int32_t out_mult, out_shift, out_offset; /**< output multiplier, shift -31..30, zero point */
  int32_t act_min, act_max;                /**< -128..127, act_min..127 */
} tsr_add_params_t;

/** MUL parameter block (P = 7). */
typedef struct tsr_mul_params {
  int32_t in1_offset, in2_offset;          /**< -zero points of A and B */
  int32_t out_mult, out_shift, out_offset; /**< output multiplier, shift -31..30, zero point */
  int32_t act_min, act_max;                /**< -128..127, act_min..127 */
} tsr_mul_params_t;

#define TSR_SOFTMAX_PARAM_WORDS 3
#define TSR_LAYERNORM_PARAM_WORDS 8
#define TSR_ADD_PARAM_WORDS 11
#define TSR_MUL_PARAM_WORDS 7

/** Largest LEN (elements per row) of an SFU command. */
#define TSR_SFU_LEN_MAX 65535

/** Functions tsr_lut_populate can tabulate. */
typedef enum tsr_lut_fn {
  TSR_LUT_LOGISTIC,  /**< 1 / (1 + expf(-x)) */
  TSR_LUT_TANH,      /**< tanhf(x) */
  TSR_LUT_GELU,      /**< 0.5 x (1 + erff(x / sqrt 2)), computed as erff(x * (float)M_SQRT1_2) */
  TSR_LUT_GELU_TANH, /**< 0.5 x (1 + tanhf(sqrt(2/pi) (x + 0.044715 x^3))), TFLite's approximate GELU */
  TSR_LUT_SILU,      /**< x / (1 + expf(-x)) */
  TSR_LUT_EXP,       /**< expf(x) */
  TSR_LUT_HARDSWISH  /**< x * min(max(x + 3, 0), 6) / 6 */
} tsr_lut_fn_t;

/* ---- golden model (tsr_sfu_golden.c) ---- */

/** MAP: out[i] = lut[in[i] mod 256] for i < n. in and out may be the same array. */
void tsr_golden_map(const int8_t lut[256], size_t n, const int8_t *in, int8_t *out);

/**
 * REDUCE: for each row r of x[rows][len], out[3r] = max, out[3r+1] = sum and
 * out[3r+2] = sum of squares of the raw int8 values (wrapping int32 sums,
 * which cannot wrap for len <= TSR_SFU_LEN_MAX). A row of len 0 gives
 * -128, 0, 0 (the hardware rejects LEN = 0 with ERR_DIM).
 */
void tsr_golden_reduce(size_t rows, size_t len, const int8_t *x, int32_t *out);

/** 0 if the hardware accepts the block, -1 (ERR_PARAM) if p is NULL or left_shift is outside 0..31. */
int tsr_softmax_check(const tsr_softmax_params_t *p);

/**
 * SOFTMAX of each row: TFLite's reference int8 softmax (docs/sfu.md), output
 * scale 1/256, zero point -128. Returns 0, or -1 writing nothing if a pointer
 * is NULL, rows or len is 0, len > TSR_SFU_LEN_MAX or tsr_softmax_check fails.
 * y may be x (in place).
 */
int tsr_golden_softmax(size_t rows, size_t len, const int8_t *x, const tsr_softmax_params_t *p, int8_t *y);

/** 0 if the hardware accepts the block, -1 (ERR_PARAM) if p is NULL, out_shift is outside -31..30,
 *  act_min outside -128..127 or act_max outside act_min..127. */
int tsr_layernorm_check(const tsr_layernorm_params_t *p);

/**
 * LAYERNORM of each row with the exact integer algorithm of docs/sfu.md:
 * gamma[len] int8, beta[len] int32 (scale gamma_scale * 2^-12). Returns 0, or
 * -1 writing nothing if a pointer is NULL, rows or len is 0,
 * len > TSR_SFU_LEN_MAX or tsr_layernorm_check fails. y may be x (in place).
 */
int tsr_golden_layernorm(size_t rows, size_t len, const int8_t *x, const int8_t *gamma, const int32_t *beta,
                         const tsr_layernorm_params_t *p, int8_t *y);

/** 0 if the hardware accepts the block, -1 (ERR_PARAM) if p is NULL, an input shift is outside -31..0,
 *  out_shift outside -31..30, act_min outside -128..127 or act_max outside act_min..127. */
int tsr_add_check(const tsr_add_params_t *p);

/**
 * ADD of n elements: TFLite's int8 ADD with left shift 20 (docs/sfu.md).
 * Returns 0, or -1 writing nothing if a pointer is NULL, n is 0 or
 * tsr_add_check fails. y may be a or b (in place).
 */
int tsr_golden_add(size_t n, const int8_t *a, const int8_t *b, const tsr_add_params_t *p, int8_t *y);

/** 0 if the hardware accepts the block, -1 (ERR_PARAM) if p is NULL, out_shift is outside -31..30,
 *  act_min outside -128..127 or act_max outside act_min..127. */
int tsr_mul_check(const tsr_mul_params_t *p);

/**
 * MUL of n elements: TFLite's int8 MUL (reference_integer_ops::MulElementwise,
 * docs/sfu.md). Returns 0, or -1 writing nothing if a pointer is NULL, n is 0
 * or tsr_mul_check fails. y may be a or b (in place).
 */
int tsr_golden_sfu_mul(size_t n, const int8_t *a, const int8_t *b, const tsr_mul_params_t *p, int8_t *y);

/* ---- building blocks, exposed so that tests can probe their edges ---- */

/**
 * gemmlowp exp_on_negative_values for a Q5.26 input (a <= 0): exp(a) in
 * Q0.31. a = 0 gives INT32_MAX (1.0 saturated); a below about -16 gives a
 * value that rounds to 0. Defined (wrapping) for every input, but only
 * a <= 0 is meaningful.
 */
int32_t tsr_gemmlowp_exp_on_negative_values(int32_t a_q5_26);

/**
 * The same for an input with `integer_bits` integer bits (1..5): Q(ib).(31 - ib)
 * in, Q0.31 out; the barrel shifter multiplies only by the powers of two the
 * format can hold, as gemmlowp's template does.
 */
int32_t tsr_gemmlowp_exp_on_negative_values_q(int32_t a, int integer_bits);

/**
 * gemmlowp logistic and tanh on FixedPoint<int32, integer_bits> (1..4):
 * 1 / (1 + exp(-a)) and tanh(a), Q0.31 out, by exp_on_negative_values and
 * the Newton-Raphson divisions one_over_one_plus_x_for_x_in_0_1 and
 * one_minus_x_over_one_plus_x_for_x_in_0_1. TFLite Micro's int8 LOGISTIC and
 * TANH run them on Q4.27.
 */
int32_t tsr_gemmlowp_logistic(int32_t a, int integer_bits);
int32_t tsr_gemmlowp_tanh(int32_t a, int integer_bits);

/**
 * TFLite GetReciprocal(x, 12, &nbou) for a sum of exponentials in Q12.19:
 * with c = number of leading zeros of x (32 for x = 0), *num_bits_over_unit
 * = 12 - c and the result is gemmlowp's one_over_one_plus_x_for_x_in_0_1
 * ((x << c) - 2^31) in Q0.31, i.e. about 2^31 / (x * 2^(c - 31)), saturated
 * to INT32_MAX. x << 32 is taken as 0. num_bits_over_unit must not be NULL.
 */
int32_t tsr_gemmlowp_reciprocal(int32_t sum_q12_19, int *num_bits_over_unit);

/**
 * gemmlowp RoundingDivideByPOT in 64 bits: x / 2^exponent rounded to
 * nearest, ties away from zero. Exponents outside 0..63 are clamped into
 * that range.
 */
int64_t tsr_rdbpot64(int64_t x, int exponent);

/**
 * The layer-norm reciprocal square root of docs/sfu.md: for m in
 * [2^29, 2^31) (a Q0.31 value in [1/4, 1)), about 2^29 / sqrt(m / 2^31)
 * (Q2.29, so in (2^29, 2^30]) by y0 = 2.25 - 1.25 m and four Newton-Raphson
 * steps. Other m give a defined but meaningless result.
 */
int32_t tsr_sfu_rsqrt_q29(int32_t m);

/* ---- host parameter preparation (tsr_sfu_prep.c; uses libm) ---- */

/**
 * Build a 256-entry table as TFLite's LUTPopulateInt8, in float:
 * lut[val mod 256] = clamp(round(f(in_scale * (val - in_zp)) / out_scale) + out_zp, -128, 127)
 * for val in -128..127 (see docs/sfu.md). Returns 0, or -1 leaving lut
 * untouched if lut is NULL, fn is unknown, a scale is <= 0, NaN or infinite
 * (or 1/out_scale overflows), a zero point is outside -128..127, or a value
 * comes out NaN (only with absurd scales).
 */
int tsr_lut_populate(tsr_lut_fn_t fn, float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                     int8_t lut[256]);

/**
 * TFLite softmax Prepare: PreprocessSoftmaxScaling(beta, in_scale, 5)
 * (real multiplier min(beta * in_scale * 2^26, 2^31 - 1) through
 * QuantizeMultiplierGreaterThanOne) and diff_min = -CalculateInputRadius(5,
 * left_shift, 31). Returns 0, or -1 leaving *p untouched if p is NULL, beta
 * or in_scale is not a positive finite number, or the real multiplier is not
 * above 1 (left shift would be negative). beta and in_scale are float, as TFLite
 * keeps them (a double argument is rounded to float32 by the call); the
 * arithmetic is in double, as TFLite's.
 */
int tsr_softmax_prepare(float beta, float in_scale, tsr_softmax_params_t *p);

/**
 * LAYERNORM parameters for rows of `len` elements: E = round(eps /
 * in_scale^2 * len^2), gamma_offset = -gamma_zp, out_mult/out_shift =
 * QuantizeMultiplier(gamma_scale * 2^-12 / out_scale), out_offset = out_zp,
 * act range -128..127. Returns 0, or -1 leaving *p untouched if p is NULL,
 * len is 0 or above TSR_SFU_LEN_MAX, a scale is not positive and finite, eps
 * is negative or not finite, E does not fit int64, a zero point is outside
 * -128..127 or the output multiplier is not representable (shift above 30).
 * The scales are float32 like every quantization scale here; eps is double.
 */
int tsr_layernorm_prepare(size_t len, float in_scale, double eps, int32_t gamma_zp, float gamma_scale,
                          float out_scale, int32_t out_zp, tsr_layernorm_params_t *p);

/**
 * Quantize len float betas to the LAYERNORM accumulator scale gamma_scale *
 * 2^-12: beta_q[j] = round(beta_f[j] / (gamma_scale * 2^-12)), ties away from
 * zero. Returns 0, or -1 (beta_q possibly partly written) if a pointer is
 * NULL, gamma_scale is not positive and finite, or a value is NaN or does not
 * fit int32.
 */
int tsr_layernorm_quantize_beta(size_t len, const float *beta_f, float gamma_scale, int32_t *beta_q);

/**
 * TFLite ADD Prepare for int8 (left shift 20): twice_max = 2 max(s1, s2),
 * in_i = QuantizeMultiplier(s_i / twice_max), out = QuantizeMultiplier(
 * twice_max / (2^20 s_out)), offsets -zp1, -zp2, zp_out, act range
 * -128..127. Returns 0, or -1 leaving *p untouched if p is NULL, a scale is
 * not positive and finite, a zero point is outside -128..127 or the output
 * multiplier is not representable (shift above 30). The scales are float, as
 * TFLite keeps them (a double argument is rounded to float32 by the call); the
 * arithmetic is in double, as TFLite's.
 */
int tsr_add_prepare(float s1, int32_t zp1, float s2, int32_t zp2, float s_out, int32_t zp_out,
                    tsr_add_params_t *p);

/**
 * TFLite MUL Prepare for int8: out = QuantizeMultiplier(s1 * s2 / s_out) (in
 * double, from the float scales), offsets -zp1, -zp2, zp_out, act range
 * -128..127. Returns 0, or -1 leaving *p untouched if p is NULL, a scale is
 * not positive and finite, a zero point is outside -128..127 or the
 * multiplier is not representable (shift above 30).
 */
int tsr_mul_prepare(float s1, int32_t zp1, float s2, int32_t zp2, float s_out, int32_t zp_out,
                    tsr_mul_params_t *p);

/**
 * TFLite Micro's int8 LOGISTIC and TANH as tables: the input rescaled to
 * Q4.27 by a multiplier frexp(in_scale * 2^27) (CalculateArithmeticOpData),
 * inputs beyond CalculateInputRadius(4, shift, 31) saturating, the rest
 * through tsr_gemmlowp_logistic / tsr_gemmlowp_tanh and RoundingDivideByPOT
 * to the output (reference_integer_ops::Logistic and ::Tanh). TFLite fixes the
 * output quantization: LOGISTIC (1/256, -128), TANH (1/128, 0). Returns 0, or
 * -1 leaving lut untouched if lut is NULL, the output quantization is another,
 * the input scale is not positive and finite or its zero point is outside int8.
 */
int tsr_lut_logistic_tflm(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                          int8_t lut[256]);
int tsr_lut_tanh_tflm(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                      int8_t lut[256]);

/**
 * TFLite Micro's int8 HARD_SWISH as a table: HardSwishPrepare's two 16-bit
 * fixed-point multipliers from the float scales, then reference_ops::HardSwish
 * on each of the 256 inputs. It differs from tsr_lut_populate(TSR_LUT_HARDSWISH),
 * the float table of LiteRT's optimized kernel, by one on some entries.
 * Returns 0, or -1 leaving lut untouched if lut is NULL, a scale is not
 * positive and finite, a zero point is outside -128..127, or the output
 * multiplier is above 1 (HardSwishPrepare's own check).
 */
int tsr_lut_hard_swish_tflm(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                            int8_t lut[256]);

/**
 * TFLite Micro's int8 RELU (relu6 = 0) and RELU6 (relu6 = 1) as tables.
 * RELU (CalculateReluOpData, ReluQuantized): y = clamp(out_zp +
 * MultiplyByQuantizedMultiplier(x - in_zp, QuantizeMultiplier(in_scale /
 * out_scale)), max(-128, out_zp), 127). RELU6 (Relu6Prepare, Relu6Quantized)
 * clamps the input to [in_zp, in_zp + round(6 / in_scale)] on the input's own
 * quantization and ignores the output's. Returns 0, or -1 leaving lut
 * untouched as above, or if the RELU multiplier is not representable.
 */
int tsr_lut_relu_tflm(int relu6, float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                      int8_t lut[256]);

#ifdef __cplusplus
}
#endif

#endif /* TSR_SFU_H */
