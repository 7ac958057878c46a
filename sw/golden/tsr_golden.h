/* tsr_golden.h: golden model of Tessera's int8 GEMM and output stage: the executable spec. */
#ifndef TSR_GOLDEN_H
#define TSR_GOLDEN_H

/*
 * What the hardware computes for MATMUL followed by STORE (docs/commands.md),
 * written as plain loops. Every simulation and FPGA result is compared with
 * this model bit for bit.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Output-stage settings of a GEMM (the STORE command's fields). */
typedef struct tsr_gemm_params {
  const int32_t *bias;  /**< n values added to the accumulators, or NULL for no bias */
  int requant;          /**< 0: output raw int32 (acc + bias); 1: int8 through mbqm, zero point, clamp */
  const int32_t *mult;  /**< n per-channel multipliers, or NULL to use mult_scalar */
  const int32_t *shift; /**< n per-channel shifts, or NULL to use shift_scalar */
  int32_t mult_scalar;  /**< per-tensor multiplier */
  int32_t shift_scalar; /**< per-tensor shift, -31..30, positive = left */
  int32_t out_zp;       /**< output zero point, -128..127 */
  int32_t act_min;      /**< lower clamp bound, -128..127 */
  int32_t act_max;      /**< upper clamp bound, act_min..127 */
  /* Fused activation of the STORE (docs/sfu.md); zero-initialised = off. */
  const int8_t *lut;          /**< 256-entry table applied after the clamp (y = lut[y mod 256]), or NULL */
  const int32_t *mult_neg;    /**< LEAKY: n per-column multipliers for x < 0, or NULL (with shift_neg) */
  const int32_t *shift_neg;   /**< LEAKY: n per-column shifts for x < 0, -31..30, or NULL (with mult_neg) */
} tsr_gemm_params_t;

/**
 * Check the output-stage settings the way the hardware's STORE does.
 * Returns 0 if they are valid for `n` columns, -1 if p is NULL, if lut,
 * mult_neg or shift_neg is set without p->requant (LUT or LEAKY without
 * REQUANT), if exactly one of mult_neg and shift_neg is NULL, or, when
 * p->requant is set, if a shift (scalar, one of the n per-channel ones or
 * one of the n negative-side ones) is outside -31..30, out_zp/act_min/act_max
 * is outside int8, or act_min > act_max (the hardware reports ERR_PARAM for
 * these).
 */
int tsr_golden_check_params(const tsr_gemm_params_t *p, size_t n);

/**
 * Output stage for one accumulator value of column `col`:
 *   x = acc + bias[col]                           (wrapping int32; no bias if bias is NULL)
 *   requant = 0: return x
 *   requant = 1: y = mbqm(x, mult, shift) + out_zp (wrapping int32)
 *                y = clamp(y, act_min, act_max)
 *                return lut ? lut[y mod 256] : y
 * mult and shift are mult[col]/shift[col], or the scalars when the arrays
 * are NULL; with LEAKY (mult_neg and shift_neg set) a negative x uses
 * mult_neg[col]/shift_neg[col] instead. p must not be NULL and col must
 * index the arrays; the settings should pass tsr_golden_check_params (then
 * the requant result fits int8).
 */
int32_t tsr_golden_output(int32_t acc, size_t col, const tsr_gemm_params_t *p);

/**
 * C = A * B followed by the output stage of every element.
 * A is m x k int8, row-major with a row stride of lda elements (lda >= k);
 * B is k x n int8, row-major with a row stride of ldb elements (ldb >= n).
 * The accumulation is a wrapping two's-complement int32 sum, as in the
 * hardware. Writes out32[m*n] (row-major, stride n) when !p->requant,
 * else out8[m*n]; the unused output pointer may be NULL.
 * Returns 0 on success, -1 (writing nothing) if p or the needed output is
 * NULL, a is NULL with m*k > 0, b is NULL with k*n > 0, lda < k, ldb < n,
 * m*n overflows size_t, or tsr_golden_check_params(p, n) fails.
 */
int tsr_golden_gemm(size_t m, size_t k, size_t n, const int8_t *a, size_t lda, const int8_t *b,
                    size_t ldb, const tsr_gemm_params_t *p, int32_t *out32, int8_t *out8);

/* ---- Elementwise and pooling operators (TFLite Micro's int8 reference kernels) ---------- */

/** Shapes of rank 4 (pad a smaller rank with leading 1s). */
typedef struct tsr_golden_shape4 {
  size_t d[4];
} tsr_golden_shape4_t;

/**
 * TFLite's int8 MUL with broadcasting (BroadcastMul4DSlow): for every output index, a and b
 * at that index (a dimension of 1 repeats), y = clamp(out_zp + mbqm((a - a_zp) * (b - b_zp),
 * mult, shift), act_min, act_max). Every dimension of a and b is 1 or the output's.
 * Returns 0, or -1 for a shape that does not broadcast or parameters outside int8.
 */
int tsr_golden_mul(const tsr_golden_shape4_t *ys, const tsr_golden_shape4_t *as, const int8_t *a,
                   int32_t a_zp, const tsr_golden_shape4_t *bs, const int8_t *b, int32_t b_zp,
                   int32_t mult, int shift, int32_t out_zp, int32_t act_min, int32_t act_max,
                   int8_t *y);

/**
 * TFLite's int8 MAX_POOL_2D of an NHWC tensor xs into ys: output pixel (oy, ox) takes the
 * maximum over the filter window at (oy * stride_h - pad_t, ox * stride_w - pad_l) clipped
 * to the image, then the clamp act_min..act_max. Returns 0, or -1 for an empty window.
 */
int tsr_golden_maxpool(const tsr_golden_shape4_t *xs, const int8_t *x, const tsr_golden_shape4_t *ys,
                       size_t fh, size_t fw, size_t stride_h, size_t stride_w, size_t pad_t,
                       size_t pad_l, int32_t act_min, int32_t act_max, int8_t *y);

/**
 * TFLite's int8 BATCH_MATMUL of one batch: y (m, n) = clamp(out_zp + mbqm(sum_k (a - a_zp)
 * (b - b_zp), mult, shift), act_min, act_max) for row-major a (m, k) and b (k, n). Returns 0,
 * or -1 for parameters outside int8.
 */
int tsr_golden_matmul_zp(size_t m, size_t k, size_t n, const int8_t *a, int32_t a_zp, const int8_t *b,
                         int32_t b_zp, int32_t mult, int shift, int32_t out_zp, int32_t act_min,
                         int32_t act_max, int8_t *y);

#ifdef __cplusplus
}
#endif

#endif /* TSR_GOLDEN_H */
