/* tsr_quant.c: TFLite/gemmlowp requantization arithmetic; freestanding, bit-exact with rtl/tsr_requant.v. */
#include "tsr_quant.h"

/*
 * Only well-defined C11 is used, so the result does not depend on the
 * compiler: no signed overflow, no right shift of a negative value, no
 * out-of-range conversion to a signed type, and no 64-bit division (which
 * would need a libgcc helper on RV32).
 */

_Static_assert(sizeof(double) == sizeof(uint64_t), "IEEE-754 binary64 double expected");

/* The int32 whose two's-complement bit pattern is u (u mod 2^32, signed). */
static int32_t wrap32(uint32_t u) {
  if (u <= (uint32_t)INT32_MAX) {
    return (int32_t)u;
  }
  return (int32_t)(u - 0x80000000u) + INT32_MIN;
}

/* floor(x / 2^e) for 0 <= e <= 31: an arithmetic shift right. For x < 0,
 * ~x = -x - 1 is non-negative and floor(x / 2^e) = ~(~x >> e). */
static int32_t asr32(int32_t x, int e) {
  if (x < 0) {
    return ~(~x >> e);
  }
  return x >> e;
}

static int clamp_int(int v, int lo, int hi) {
  if (v < lo) {
    return lo;
  }
  if (v > hi) {
    return hi;
  }
  return v;
}

int32_t tsr_srdhm(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) {
    return INT32_MAX;
  }
  /* |ab| <= 2^62 - 2^31 here, so neither the product nor the sum overflows. */
  const int64_t ab = (int64_t)a * (int64_t)b;
  const int64_t nudge = ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
  const int64_t sum = ab + nudge;
  /* sum / 2^31, truncating toward zero like C division. */
  const int64_t quotient = sum >= 0 ? (sum >> 31) : -((-sum) >> 31);
  return (int32_t)quotient; /* |quotient| < 2^31 */
}

int32_t tsr_rdbpot(int32_t x, int exponent) {
  const int e = clamp_int(exponent, 0, 31);
  const int32_t mask = (int32_t)((1u << e) - 1u); /* e low bits set; 0x7fffffff at most */
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  /* The +1 cannot overflow: for e = 0 the remainder is 0, else x >> e < 2^30. */
  return asr32(x, e) + (remainder > threshold ? 1 : 0);
}

int32_t tsr_mbqm(int32_t x, int32_t mult, int shift) {
  const int s = clamp_int(shift, TSR_QUANT_SHIFT_MIN, TSR_QUANT_SHIFT_MAX);
  const int left = s > 0 ? s : 0;
  const int right = s > 0 ? 0 : -s;
  const int32_t xl = wrap32((uint32_t)x << left); /* wraps, as TFLite's x * (1 << left) */
  return tsr_rdbpot(tsr_srdhm(xl, mult), right);
}

int tsr_quantize_multiplier(double real, int32_t *mult, int *shift) {
  if (mult == NULL || shift == NULL) {
    return -1;
  }

  /* Decode the IEEE-754 binary64 fields (reading another union member is
   * defined in C11: the bytes are reinterpreted). */
  union {
    double d;
    uint64_t u;
  } bits;
  bits.d = real;
  const int negative = (int)(bits.u >> 63);
  const int biased_exp = (int)((bits.u >> 52) & 0x7ffu);
  const uint64_t fraction = bits.u & ((UINT64_C(1) << 52) - 1u);

  if (biased_exp == 0x7ff) {
    return -1; /* infinity or NaN */
  }
  if (biased_exp == 0 && fraction == 0) {
    *mult = 0; /* +0.0 or -0.0 */
    *shift = 0;
    return 0;
  }
  if (negative) {
    return -1;
  }
  if (biased_exp == 0) {
    /* Subnormal: below 2^-1022, so the shift would be far below -31. */
    *mult = 0;
    *shift = 0;
    return 0;
  }

  /* Normal number: real = significand * 2^(biased_exp - 1075), significand
   * in [2^52, 2^53). frexp gives real = q * 2^e with q = significand / 2^53
   * in [0.5, 1) and e = biased_exp - 1022. */
  const uint64_t significand = (UINT64_C(1) << 52) | fraction;
  int e = biased_exp - 1022;

  /* m = round(q * 2^31) = round(significand / 2^22); q is positive, so
   * "ties away from zero" means adding one half before truncating. */
  uint64_t m = (significand + (UINT64_C(1) << 21)) >> 22;
  if (m == (UINT64_C(1) << 31)) {
    m >>= 1; /* q rounded up to 1.0: renormalize */
    e += 1;
  }
  if (e < -31) {
    m = 0; /* every bit would be shifted out: flush to an exact zero */
    e = 0;
  }
  if (e > TSR_QUANT_SHIFT_MAX) {
    return -1; /* real >= 2^30 after rounding: not representable by the hardware */
  }
  *mult = (int32_t)m; /* m < 2^31 */
  *shift = e;
  return 0;
}
