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

/* ---- MUL and MAX_POOL_2D ---- */

int tsr_golden_mul(const tsr_golden_shape4_t *ys, const tsr_golden_shape4_t *as, const int8_t *a,
                   int32_t a_zp, const tsr_golden_shape4_t *bs, const int8_t *b, int32_t b_zp,
                   int32_t mult, int shift, int32_t out_zp, int32_t act_min, int32_t act_max,
                   int8_t *y) {
  if (ys == NULL || as == NULL || bs == NULL || a == NULL || b == NULL || y == NULL ||
      act_min < -128 || act_max > 127 || act_min > act_max || shift < -31 || shift > 30) {
    return -1;
  }
  for (int d = 0; d < 4; d++) {
    if ((as->d[d] != 1u && as->d[d] != ys->d[d]) || (bs->d[d] != 1u && bs->d[d] != ys->d[d])) {
      return -1;
    }
  }
  size_t o = 0;
  for (size_t i0 = 0; i0 < ys->d[0]; i0++) {
    for (size_t i1 = 0; i1 < ys->d[1]; i1++) {
      for (size_t i2 = 0; i2 < ys->d[2]; i2++) {
        for (size_t i3 = 0; i3 < ys->d[3]; i3++, o++) {
          const size_t ai = (((as->d[0] == 1u ? 0u : i0) * as->d[1] + (as->d[1] == 1u ? 0u : i1)) *
                                 as->d[2] + (as->d[2] == 1u ? 0u : i2)) * as->d[3] +
                            (as->d[3] == 1u ? 0u : i3);
          const size_t bi = (((bs->d[0] == 1u ? 0u : i0) * bs->d[1] + (bs->d[1] == 1u ? 0u : i1)) *
                                 bs->d[2] + (bs->d[2] == 1u ? 0u : i2)) * bs->d[3] +
                            (bs->d[3] == 1u ? 0u : i3);
          const int32_t prod = ((int32_t)a[ai] - a_zp) * ((int32_t)b[bi] - b_zp);
          int32_t v = out_zp + tsr_mbqm(prod, mult, shift);
          v = v < act_min ? act_min : v > act_max ? act_max : v;
          y[o] = (int8_t)v;
        }
      }
    }
  }
  return 0;
}

int tsr_golden_maxpool(const tsr_golden_shape4_t *xs, const int8_t *x, const tsr_golden_shape4_t *ys,
                       size_t fh, size_t fw, size_t stride_h, size_t stride_w, size_t pad_t,
                       size_t pad_l, int32_t act_min, int32_t act_max, int8_t *y) {
  if (xs == NULL || x == NULL || ys == NULL || y == NULL || xs->d[0] != ys->d[0] ||
      xs->d[3] != ys->d[3] || act_min > act_max) {
    return -1;
  }
  const size_t h = xs->d[1], w = xs->d[2], c = xs->d[3];
  for (size_t bt = 0; bt < ys->d[0]; bt++) {
    for (size_t oy = 0; oy < ys->d[1]; oy++) {
      for (size_t ox = 0; ox < ys->d[2]; ox++) {
        /* The window's first pixel may lie before the image (padding): clip to the image. */
        const long y0 = (long)(oy * stride_h) - (long)pad_t, x0 = (long)(ox * stride_w) - (long)pad_l;
        const long ya = y0 < 0 ? 0 : y0, xa = x0 < 0 ? 0 : x0;
        const long yb = y0 + (long)fh < (long)h ? y0 + (long)fh : (long)h;
        const long xb = x0 + (long)fw < (long)w ? x0 + (long)fw : (long)w;
        if (ya >= yb || xa >= xb) {
          return -1;
        }
        for (size_t ch = 0; ch < c; ch++) {
          int32_t m = -128;
          for (long yy = ya; yy < yb; yy++) {
            for (long xx = xa; xx < xb; xx++) {
              const int32_t v = x[((bt * h + (size_t)yy) * w + (size_t)xx) * c + ch];
              m = v > m ? v : m;
            }
          }
          m = m < act_min ? act_min : m > act_max ? act_max : m;
          y[((bt * ys->d[1] + oy) * ys->d[2] + ox) * c + ch] = (int8_t)m;
        }
      }
    }
  }
  return 0;
}

int tsr_golden_matmul_zp(size_t m, size_t k, size_t n, const int8_t *a, int32_t a_zp, const int8_t *b,
                         int32_t b_zp, int32_t mult, int shift, int32_t out_zp, int32_t act_min,
                         int32_t act_max, int8_t *y) {
  if (a == NULL || b == NULL || y == NULL || act_min < -128 || act_max > 127 || act_min > act_max ||
      shift < -31 || shift > 30) {
    return -1;
  }
  for (size_t i = 0; i < m; i++) {
    for (size_t j = 0; j < n; j++) {
      uint32_t acc = 0u; /* wrapping, as TFLite's int32 accumulator */
      for (size_t kk = 0; kk < k; kk++) {
        acc += (uint32_t)(((int32_t)a[i * k + kk] - a_zp) * ((int32_t)b[kk * n + j] - b_zp));
      }
      int32_t v = out_zp + tsr_mbqm(wrap32(acc), mult, shift);
      v = v < act_min ? act_min : v > act_max ? act_max : v;
      y[i * n + j] = (int8_t)v;
    }
  }
  return 0;
}
