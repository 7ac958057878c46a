/* tsr_golden_params.h: the golden model's own SFU tables and parameter blocks, derived from the real scales. */
#ifndef TSR_GOLDEN_PARAMS_H
#define TSR_GOLDEN_PARAMS_H

/*
 * A golden model that computes its expected outputs from the tables and
 * parameter blocks the chip is given cannot see a mistake in them: a wrong
 * table entry goes to both sides. So the golden model derives its own, here,
 * from the same real-valued inputs (scales, zero points, beta, epsilon),
 * with code written separately from the host preparation the chip path uses
 * (sw/lib/tsr_sfu_prep.c). Nothing here calls that file or
 * tsr_quantize_multiplier (sw/driver/tsr_quant.c).
 *
 * The definitions are those of docs/sfu.md, which follow TensorFlow Lite's
 * Prepare functions:
 *  - tables: LUTPopulateInt8 evaluated in float32 (TFLite stores scales as
 *    float and tabulates in float; each table entry is therefore defined by
 *    float arithmetic, one rounding per operation, with the C library's
 *    expf, tanhf and erff). Written as one function per table, each entry
 *    rounded half away from zero and clamped in integer arithmetic.
 *  - multipliers: QuantizeMultiplier, found by scaling the real value into
 *    [1/2, 1) by powers of two (exact in binary) instead of decoding the
 *    IEEE fields as tsr_quant.c does.
 *
 * Host-only (uses libm); the firmware never links it. Same error convention
 * as the rest of the golden model: 0, or -1 leaving the output untouched.
 */

#include <stddef.h>
#include <stdint.h>

#include "tsr_sfu.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The golden 256-entry table of fn for an int8 input of real scale in_scale
 * and zero point in_zp and an int8 output of out_scale and out_zp (docs/sfu.md,
 * "Lookup tables"): entry (val mod 256) = clamp(round(f(in_scale * (val - in_zp))
 * / out_scale) + out_zp, -128, 127), in float32 as LUTPopulateInt8. The scales
 * are taken to float32 first, as TFLite stores them. Returns 0, or -1 leaving
 * lut untouched if lut is NULL, fn is unknown, a scale is not a positive finite
 * float32, 1/out_scale overflows, a zero point is outside -128..127, or an
 * entry comes out NaN.
 */
int tsr_golden_lut(tsr_lut_fn_t fn, double in_scale, int32_t in_zp, double out_scale, int32_t out_zp,
                   int8_t lut[256]);

/**
 * The golden leaky ReLU of the output stage: for each of n columns, the
 * negative side's (mult_neg, shift_neg) of alpha times the column's real
 * multiplier m * 2^(s - 31), m and s from mult/shift (n each) or, when they
 * are NULL, mult_scalar/shift_scalar. Returns 0, or -1 if alpha is outside
 * 0..1, a multiplier is negative, a pointer is missing, or a shift would
 * exceed 30.
 */
int tsr_golden_leaky_params(size_t n, double alpha, const int32_t *mult, const int32_t *shift,
                            int32_t mult_scalar, int32_t shift_scalar, int32_t *mult_neg,
                            int32_t *shift_neg);

/**
 * The golden SOFTMAX block: real multiplier beta * in_scale * 2^26, capped at
 * 2^31 - 1, which must be above 1, as (mult, left_shift) with left_shift
 * 0..31, and diff_min = -floor(31 * 2^26 / 2^left_shift). Returns 0, or -1
 * leaving *p untouched if p is NULL, beta or in_scale is not positive and
 * finite, or the real multiplier is not above 1. Scales and beta are rounded
 * to float32 first, as TFLite stores them.
 */
int tsr_golden_softmax_params(double beta, double in_scale, tsr_softmax_params_t *p);

/**
 * The golden LAYERNORM block for rows of len elements: E = round(eps /
 * in_scale^2 * len^2 * 2^8) split into eps_lo/eps_hi, gamma_offset =
 * -gamma_zp, (out_mult, out_shift) of gamma_scale * 2^-12 / out_scale,
 * out_offset = out_zp, activation range -128..127. Returns 0, or -1 leaving
 * *p untouched if p is NULL, len is 0 or above TSR_SFU_LEN_MAX, a scale is
 * not positive and finite, eps is negative or not finite, E reaches 2^63, a
 * zero point is outside -128..127 or the output multiplier is 2^30 or more.
 * The scales are rounded to float32 first.
 */
int tsr_golden_layernorm_params(size_t len, double in_scale, double eps, int32_t gamma_zp, double gamma_scale,
                                double out_scale, int32_t out_zp, tsr_layernorm_params_t *p);

/**
 * The golden LAYERNORM beta: beta_q[j] = round(beta_f[j] * 2^12 / gamma_scale),
 * ties away from zero. Returns 0, or -1 (beta_q possibly partly written) if a
 * pointer is NULL, gamma_scale is not positive and finite, or a value is NaN
 * or does not fit int32.
 */
int tsr_golden_layernorm_beta(size_t len, const float *beta_f, double gamma_scale, int32_t *beta_q);

/**
 * The golden ADD block (int8, left shift 20): with t = 2 max(s1, s2), input i
 * scales by s_i / t, the output by t / (2^20 s_out); offsets -zp1, -zp2,
 * zp_out; activation range -128..127. Returns 0, or -1 leaving *p untouched
 * if p is NULL, a scale is not positive and finite, a zero point is outside
 * -128..127 or the output multiplier is 2^30 or more. The scales are rounded
 * to float32 first, as TFLite stores them.
 */
int tsr_golden_add_params(double s1, int32_t zp1, double s2, int32_t zp2, double s_out, int32_t zp_out,
                          tsr_add_params_t *p);

/**
 * The golden MUL block (int8): the output scales by s1 s2 / s_out; offsets
 * -zp1, -zp2, zp_out; activation range -128..127. Returns 0, or -1 leaving *p
 * untouched if p is NULL, a scale is not positive and finite, a zero point is
 * outside -128..127 or the multiplier's shift would be above 30. The scales
 * are rounded to float32 first, as TFLite stores them.
 */
int tsr_golden_mul_params(double s1, int32_t zp1, double s2, int32_t zp2, double s_out, int32_t zp_out,
                          tsr_mul_params_t *p);

#ifdef __cplusplus
}
#endif

#endif /* TSR_GOLDEN_PARAMS_H */
