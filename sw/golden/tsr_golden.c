/* tsr_golden.c: golden model of the int8 GEMM and output stage; plain loops, written to be read. */
#include "tsr_golden.h"

#include "tsr_quant.h"

/*
 * All int32 additions here wrap modulo 2^32 like the hardware's adders. C
 * leaves signed overflow undefined, so they are done in uint32_t and the bit
 * pattern is turned back into an int32 by wrap32().
 */

/* The int32 whose two's-complement bit pattern is u. */
static int32_t wrap32(uint32_t u) {
  if (u <= (uint32_t)INT32_MAX) {
    return (int32_t)u;
  }
  return (int32_t)(u - 0x80000000u) + INT32_MIN;
}

/* a + b modulo 2^32. */
static int32_t add_wrap(int32_t a, int32_t b) {
  return wrap32((uint32_t)a + (uint32_t)b);
}

static int in_range(int32_t v, int32_t lo, int32_t hi) {
  return v >= lo && v <= hi;
}

int tsr_golden_check_params(const tsr_gemm_params_t *p, size_t n) {
  if (p == NULL) {
    return -1;
  }
  const int leaky = p->mult_neg != NULL || p->shift_neg != NULL;
  if (!p->requant) {
    /* Raw int32 output uses only the bias; LUT and LEAKY need REQUANT. */
    return (p->lut != NULL || leaky) ? -1 : 0;
  }
  if (leaky && (p->mult_neg == NULL || p->shift_neg == NULL)) {
    return -1; /* LEAKY needs both the negative-side multipliers and shifts */
  }
  /* As the hardware: the per-tensor shift is checked whenever requantizing. */
  if (!in_range(p->shift_scalar, TSR_QUANT_SHIFT_MIN, TSR_QUANT_SHIFT_MAX)) {
    return -1;
  }
  if (p->shift != NULL) {
    for (size_t j = 0; j < n; j++) {
      if (!in_range(p->shift[j], TSR_QUANT_SHIFT_MIN, TSR_QUANT_SHIFT_MAX)) {
        return -1;
      }
    }
  }
  if (p->shift_neg != NULL) {
    for (size_t j = 0; j < n; j++) {
      if (!in_range(p->shift_neg[j], TSR_QUANT_SHIFT_MIN, TSR_QUANT_SHIFT_MAX)) {
        return -1;
      }
    }
  }
  if (!in_range(p->out_zp, INT8_MIN, INT8_MAX) || !in_range(p->act_min, INT8_MIN, INT8_MAX) ||
      !in_range(p->act_max, INT8_MIN, INT8_MAX) || p->act_min > p->act_max) {
    return -1;
  }
  return 0;
}

int32_t tsr_golden_output(int32_t acc, size_t col, const tsr_gemm_params_t *p) {
  int32_t x = acc;
  if (p->bias != NULL) {
    x = add_wrap(x, p->bias[col]);
  }
  if (!p->requant) {
    return x;
  }

  int32_t mult = p->mult != NULL ? p->mult[col] : p->mult_scalar;
  int32_t shift = p->shift != NULL ? p->shift[col] : p->shift_scalar;
  if (p->mult_neg != NULL && p->shift_neg != NULL && x < 0) {
    /* LEAKY: TFLite's LEAKY_RELU on the accumulator; the negative side has
     * its own multiplier (alpha * scale) and shift. */
    mult = p->mult_neg[col];
    shift = p->shift_neg[col];
  }
  int32_t y = add_wrap(tsr_mbqm(x, mult, (int)shift), p->out_zp);
  if (y < p->act_min) {
    y = p->act_min;
  }
  if (y > p->act_max) {
    y = p->act_max;
  }
  if (p->lut != NULL) {
    y = p->lut[(uint32_t)y & 0xffu]; /* LUT: after the clamp, index = y mod 256 */
  }
  return y;
}

int tsr_golden_gemm(size_t m, size_t k, size_t n, const int8_t *a, size_t lda, const int8_t *b,
                    size_t ldb, const tsr_gemm_params_t *p, int32_t *out32, int8_t *out8) {
  if (p == NULL || tsr_golden_check_params(p, n) != 0) {
    return -1;
  }
  if ((a == NULL && m > 0 && k > 0) || (b == NULL && k > 0 && n > 0) || lda < k || ldb < n) {
    return -1;
  }
  if (n > 0 && m > SIZE_MAX / n) {
    return -1;
  }
  if (m > 0 && n > 0 && (p->requant ? out8 == NULL : out32 == NULL)) {
    return -1;
  }

  for (size_t i = 0; i < m; i++) {
    for (size_t j = 0; j < n; j++) {
      /* acc = sum over r of A[i][r] * B[r][j], modulo 2^32. Each product
       * fits easily; only the running sum can wrap. */
      uint32_t acc = 0;
      for (size_t r = 0; r < k; r++) {
        const int32_t product = (int32_t)a[i * lda + r] * (int32_t)b[r * ldb + j];
        acc += (uint32_t)product;
      }

      const int32_t value = tsr_golden_output(wrap32(acc), j, p);
      if (p->requant) {
        out8[i * n + j] = (int8_t)value; /* in int8 range: clamped to act_min..act_max */
      } else {
        out32[i * n + j] = value;
      }
    }
  }
  return 0;
}
