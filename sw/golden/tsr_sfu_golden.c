/* tsr_sfu_golden.c: golden model of the SFU (docs/sfu.md); integer only, freestanding, written to be read. */
#include "tsr_sfu.h"

#include "tsr_quant.h"

/*
 * Every function here is the executable form of a section of docs/sfu.md.
 * The fixed-point helpers follow gemmlowp's fixedpoint.h and TensorFlow
 * Lite's reference kernels step by step; the comments name each step.
 *
 * Only well-defined C11 is used: int32 additions wrap (done in uint32_t and
 * turned back by wrap32), no signed overflow, no right shift of a negative
 * value, no 64-bit division and no library call (not even memcpy or
 * __builtin_clz, which needs a libgcc helper on RV32IM), so the file builds
 * freestanding for the firmware (make unit-freestanding checks it).
 *
 * Fixed-point notation: Qi.f is a signed 32-bit raw value r standing for
 * r / 2^f with i integer bits (i + f = 31). gemmlowp's product of a Qa and a
 * Qb value is srdhm(ra, rb) in Q(a+b).
 */

/* ---- wrapping int32 and shift helpers ---- */

/* The int32 whose two's-complement bit pattern is u. */
static int32_t wrap32(uint32_t u) {
  if (u <= (uint32_t)INT32_MAX) {
    return (int32_t)u;
  }
  return (int32_t)(u - 0x80000000u) + INT32_MIN;
}

/* The int64 whose two's-complement bit pattern is u. */
static int64_t wrap64(uint64_t u) {
  if (u <= (uint64_t)INT64_MAX) {
    return (int64_t)u;
  }
  return (int64_t)(u - UINT64_C(0x8000000000000000)) + INT64_MIN;
}

/* a + b and a - b modulo 2^32. */
static int32_t add32(int32_t a, int32_t b) {
  return wrap32((uint32_t)a + (uint32_t)b);
}

static int32_t sub32(int32_t a, int32_t b) {
  return wrap32((uint32_t)a - (uint32_t)b);
}

/* a * b modulo 2^32. */
static int32_t mul32(int32_t a, int32_t b) {
  return wrap32((uint32_t)a * (uint32_t)b);
}

/* x * 2^s modulo 2^32, 0 <= s <= 31 (C++'s x * (1 << s) without the overflow). */
static int32_t shl32(int32_t x, int s) {
  return wrap32((uint32_t)x << s);
}

/* 64-bit shifts by a variable amount 0 <= s <= 63, done on the two 32-bit
 * halves: RV32IM has no 64-bit shifter, and C's 64-bit shift would call
 * libgcc's __ashldi3/__lshrdi3 there. */
static uint64_t lsl64(uint64_t x, int s) {
  uint32_t hi = (uint32_t)(x >> 32);
  uint32_t lo = (uint32_t)x;
  if (s >= 32) {
    hi = lo << (s - 32);
    lo = 0;
  } else if (s > 0) {
    hi = (hi << s) | (lo >> (32 - s));
    lo <<= s;
  }
  return ((uint64_t)hi << 32) | lo;
}

static uint64_t lsr64(uint64_t x, int s) {
  uint32_t hi = (uint32_t)(x >> 32);
  uint32_t lo = (uint32_t)x;
  if (s >= 32) {
    lo = hi >> (s - 32);
    hi = 0;
  } else if (s > 0) {
    lo = (lo >> s) | (hi << (32 - s));
    hi >>= s;
  }
  return ((uint64_t)hi << 32) | lo;
}

/* floor(x / 2^e) for 0 <= e <= 63: an arithmetic shift right. For x < 0,
 * ~x = -x - 1 is non-negative and floor(x / 2^e) = ~(~x >> e). */
static int64_t asr64(int64_t x, int e) {
  if (x < 0) {
    return ~(int64_t)lsr64((uint64_t)~x, e);
  }
  return (int64_t)lsr64((uint64_t)x, e);
}

static int32_t clamp32(int32_t v, int32_t lo, int32_t hi) {
  if (v < lo) {
    return lo;
  }
  if (v > hi) {
    return hi;
  }
  return v;
}

static int in_range(int32_t v, int32_t lo, int32_t hi) {
  return v >= lo && v <= hi;
}

/* Number of leading zero bits of a 32-bit word; 32 for 0 (TFLite's CountLeadingZeros). */
static int clz32(uint32_t u) {
  int n = 0;
  while (n < 32 && (u & 0x80000000u) == 0) {
    u <<= 1;
    n++;
  }
  return n;
}

/* gemmlowp SaturatingRoundingMultiplyByPOT<e> for 1 <= e <= 31: x * 2^e,
 * saturated. As gemmlowp, x > 2^(31-e) - 1 gives INT32_MAX and
 * x < -(2^(31-e) - 1) gives INT32_MIN. */
static int32_t sat_shl(int32_t x, int e) {
  const int32_t threshold = (int32_t)((UINT32_C(1) << (31 - e)) - 1u);
  if (x > threshold) {
    return INT32_MAX;
  }
  if (x < -threshold) {
    return INT32_MIN;
  }
  return shl32(x, e);
}

/* gemmlowp RoundingHalfSum(a, b) for int32: (a + b) / 2 rounded to nearest,
 * ties away from zero (the sum is formed in 64 bits; C division truncates). */
static int32_t rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = (int64_t)a + (int64_t)b;
  const int64_t sign = sum >= 0 ? 1 : -1;
  const int64_t s = sum + sign;
  /* s / 2 truncating toward zero, without a division. */
  const int64_t half = s >= 0 ? (s >> 1) : -((-s) >> 1);
  return (int32_t)half; /* |half| <= 2^31 - 1 */
}

int64_t tsr_rdbpot64(int64_t x, int exponent) {
  int e = exponent;
  if (e < 0) {
    e = 0;
  }
  if (e > 63) {
    e = 63;
  }
  /* gemmlowp RoundingDivideByPOT: floor division, then + 1 when the
   * remainder is above half (or exactly half and x >= 0: ties away from 0). */
  const uint64_t mask = lsl64(1u, e) - 1u; /* e low bits set (2^63 - 1 at most) */
  const uint64_t remainder = (uint64_t)x & mask;
  const uint64_t threshold = (mask >> 1) + (x < 0 ? 1u : 0u);
  return asr64(x, e) + (remainder > threshold ? 1 : 0);
}

/* ---- MAP and REDUCE ---- */

void tsr_golden_map(const int8_t lut[256], size_t n, const int8_t *in, int8_t *out) {
  for (size_t i = 0; i < n; i++) {
    out[i] = lut[(uint8_t)in[i]]; /* index = in mod 256 */
  }
}

void tsr_golden_reduce(size_t rows, size_t len, const int8_t *x, int32_t *out) {
  for (size_t r = 0; r < rows; r++) {
    const int8_t *row = x + r * len;
    int32_t max = INT8_MIN;
    int32_t sum = 0;
    int32_t sumsq = 0;
    for (size_t j = 0; j < len; j++) {
      const int32_t v = row[j];
      if (v > max) {
        max = v;
      }
      sum = add32(sum, v);
      sumsq = add32(sumsq, v * v);
    }
    out[3 * r + 0] = max;
    out[3 * r + 1] = sum;
    out[3 * r + 2] = sumsq;
  }
}

/* ---- gemmlowp exp_on_negative_values ---- */

/* exp_on_interval_between_negative_one_quarter_and_0_excl: exp(a) for a
 * Q0.31 value a in [-1/4, 0), by the Taylor series around -1/8 to the 4th
 * power. Result Q0.31. */
static int32_t exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a) {
  const int32_t constant_term = 1895147668;   /* exp(-1/8) in Q0.31 */
  const int32_t constant_1_over_3 = 715827883; /* 1/3 in Q0.31 */
  /* change of variable x = a + 1/8 (1/8 = 2^28 in Q0.31) */
  const int32_t x = add32(a, INT32_C(1) << 28);
  const int32_t x2 = tsr_srdhm(x, x);
  const int32_t x3 = tsr_srdhm(x2, x);
  const int32_t x4 = tsr_srdhm(x2, x2);
  const int32_t x4_over_4 = tsr_rdbpot(x4, 2); /* SaturatingRoundingMultiplyByPOT<-2> */
  /* x^4/24 + x^3/6 + x^2/2 = ((x^4/4 + x^3) / 3 + x^2) / 2 */
  const int32_t poly = tsr_rdbpot(add32(tsr_srdhm(add32(x4_over_4, x3), constant_1_over_3), x2), 1);
  /* exp(-1/8) + exp(-1/8) * (x + x^2/2 + x^3/6 + x^4/24) */
  return add32(constant_term, tsr_srdhm(constant_term, add32(x, poly)));
}

int32_t tsr_gemmlowp_exp_on_negative_values_q(int32_t a, int integer_bits) {
  const int ib = integer_bits < 1 ? 1 : integer_bits > 5 ? 5 : integer_bits;
  const int fractional_bits = 31 - ib;
  const int32_t one_quarter = INT32_C(1) << (fractional_bits - 2);

  /* Split a = (a mod 1/4 - 1/4) - remainder: the first part is in [-1/4, 0),
   * the remainder is a non-negative multiple of 1/4. */
  const int32_t mask = one_quarter - 1;
  const int32_t a_mod_quarter_minus_one_quarter = sub32(a & mask, one_quarter);
  /* Rescale<0>: Q(ib) -> Q0.31 is SaturatingRoundingMultiplyByPOT<ib>. */
  int32_t result = exp_on_interval_between_negative_one_quarter_and_0_excl(sat_shl(a_mod_quarter_minus_one_quarter, ib));
  const int32_t remainder = sub32(a_mod_quarter_minus_one_quarter, a);

  /* The barrel shifter: for each set bit of the remainder worth 2^k (k = -2
   * .. ib - 1, i.e. 1/4 .. 16 in Q5.26) multiply by exp(-2^k), Q0.31. */
  static const int32_t exp_of_minus_pot[7] = {
      1672461947, /* exp(-1/4) */
      1302514674, /* exp(-1/2) */
      790015084,  /* exp(-1)   */
      290630308,  /* exp(-2)   */
      39332535,   /* exp(-4)   */
      720401,     /* exp(-8)   */
      242,        /* exp(-16)  */
  };
  for (int k = 0; k < ib + 2; k++) {
    const int bit = fractional_bits - 2 + k;
    if (((uint32_t)remainder >> bit) & 1u) {
      result = tsr_srdhm(result, exp_of_minus_pot[k]);
    }
  }
  /* (No clamp below -32: with 5 integer bits or fewer the input cannot go there.) */

  if (a == 0) {
    result = INT32_MAX; /* exp(0) = 1, saturated in Q0.31 */
  }
  return result;
}

int32_t tsr_gemmlowp_exp_on_negative_values(int32_t a_q5_26) {
  return tsr_gemmlowp_exp_on_negative_values_q(a_q5_26, 5);
}

/* ---- GetReciprocal and one_over_one_plus_x_for_x_in_0_1 ---- */

/* The Newton-Raphson division both gemmlowp functions below share: about
 * 2 / (1 + a) in Q2.29 for a Q0.31 value a in [0, 1). */
static int32_t two_over_one_plus_x_q2_29(int32_t a) {
  /* half_denominator = (a + 1) / 2, Q0.31 (1.0 is INT32_MAX here) */
  const int32_t half_denominator = rounding_half_sum(a, INT32_MAX);
  /* Initial estimate x = 48/17 - 32/17 * half_denominator, Q2.29. */
  const int32_t constant_48_over_17 = 1515870810;
  const int32_t constant_neg_32_over_17 = -1010580540;
  int32_t x = add32(constant_48_over_17, tsr_srdhm(half_denominator, constant_neg_32_over_17));
  /* Three Newton-Raphson steps x += x * (1 - half_denominator * x). */
  const int32_t one_q2_29 = INT32_C(1) << 29;
  for (int i = 0; i < 3; i++) {
    const int32_t half_denominator_times_x = tsr_srdhm(half_denominator, x);      /* Q2.29 */
    const int32_t one_minus_half_denominator_times_x = sub32(one_q2_29, half_denominator_times_x);
    const int32_t correction_q4_27 = tsr_srdhm(x, one_minus_half_denominator_times_x);
    x = add32(x, sat_shl(correction_q4_27, 2)); /* Rescale<2>: Q4.27 -> Q2.29 */
  }
  return x;
}

/* gemmlowp one_over_one_plus_x_for_x_in_0_1: 1 / (1 + a) for a Q0.31 value a
 * in [0, 1), result Q0.31. */
static int32_t one_over_one_plus_x_for_x_in_0_1(int32_t a) {
  /* x ~ 2 / (1 + a). ExactMulByPot<-1> halves it by reading the same raw
   * value as Q1.30; Rescale<0> (Q1.30 -> Q0.31) is
   * SaturatingRoundingMultiplyByPOT<1>. */
  return sat_shl(two_over_one_plus_x_q2_29(a), 1);
}

/* gemmlowp one_minus_x_over_one_plus_x_for_x_in_0_1: (1 - a) / (1 + a), Q0.31:
 * Rescale<0>(x - 1) of the Q2.29 estimate x ~ 2 / (1 + a). */
static int32_t one_minus_x_over_one_plus_x_for_x_in_0_1(int32_t a) {
  return sat_shl(sub32(two_over_one_plus_x_q2_29(a), INT32_C(1) << 29), 2);
}

int32_t tsr_gemmlowp_logistic(int32_t a, int integer_bits) {
  if (a == 0) {
    return INT32_C(1) << 30; /* one half */
  }
  /* logistic_on_positive_values(|a|) = 1 / (1 + exp(-|a|)); 1 minus it for a < 0. */
  const int32_t pos = one_over_one_plus_x_for_x_in_0_1(
      tsr_gemmlowp_exp_on_negative_values_q(a > 0 ? sub32(0, a) : a, integer_bits));
  return a > 0 ? pos : sub32(INT32_MAX, pos);
}

int32_t tsr_gemmlowp_tanh(int32_t a, int integer_bits) {
  if (a == 0) {
    return 0;
  }
  /* neg_tanh_on_negative_values(-|a|): exp_on_negative_values of 2 (-|a|), the
   * same raw value read with one integer bit more (ExactMulByPot<1>). */
  const int32_t t = one_minus_x_over_one_plus_x_for_x_in_0_1(
      tsr_gemmlowp_exp_on_negative_values_q(a < 0 ? a : sub32(0, a), integer_bits + 1));
  return a < 0 ? sub32(0, t) : t;
}

int32_t tsr_gemmlowp_reciprocal(int32_t sum_q12_19, int *num_bits_over_unit) {
  const int x_integer_digits = 12;
  const uint32_t x = (uint32_t)sum_q12_19;
  const int headroom_plus_one = clz32(x);
  /* The number of bits of the sum above 1.0. */
  *num_bits_over_unit = x_integer_digits - headroom_plus_one;
  /* Normalize the sum into [1, 2) as Q1.31 (unsigned) and subtract 1.0:
   * a Q0.31 value in [0, 1). x << 32 (x = 0) is 0. */
  const uint32_t shifted = headroom_plus_one < 32 ? (x << headroom_plus_one) : 0u;
  const int32_t shifted_sum_minus_one = wrap32(shifted - 0x80000000u);
  return one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one);
}

/* ---- SOFTMAX ---- */

int tsr_softmax_check(const tsr_softmax_params_t *p) {
  if (p == NULL || !in_range(p->left_shift, 0, 31)) {
    return -1;
  }
  return 0;
}

/* MultiplyByQuantizedMultiplierGreaterThanOne(d, mult, left_shift) followed
 * by exp_on_negative_values: exp(beta * in_scale * d) in Q0.31 for the
 * difference d = x - max of two int8 inputs. */
static int32_t softmax_exp(int32_t d, const tsr_softmax_params_t *p) {
  const int32_t scaled_diff_q5_26 = tsr_srdhm(shl32(d, (int)p->left_shift), p->mult);
  return tsr_gemmlowp_exp_on_negative_values(scaled_diff_q5_26);
}

int tsr_golden_softmax(size_t rows, size_t len, const int8_t *x, const tsr_softmax_params_t *p, int8_t *y) {
  if (x == NULL || y == NULL || rows == 0 || len == 0 || len > TSR_SFU_LEN_MAX || tsr_softmax_check(p) != 0) {
    return -1;
  }
  const int kAccumulationIntegerBits = 12; /* the sum is Q12.19 */

  for (size_t r = 0; r < rows; r++) {
    const int8_t *in = x + r * len;
    int8_t *out = y + r * len;

    int32_t max_in_row = INT8_MIN;
    for (size_t j = 0; j < len; j++) {
      if (in[j] > max_in_row) {
        max_in_row = in[j];
      }
    }

    /* sum_of_exps += Rescale<12>(exp(d)): Q0.31 -> Q12.19 is a rounding
     * division by 2^12. The sum wraps (only rows of 4096 or more elements
     * near the maximum can reach 2^31). */
    int32_t sum_of_exps = 0;
    for (size_t j = 0; j < len; j++) {
      const int32_t d = (int32_t)in[j] - max_in_row;
      if (d >= p->diff_min) {
        sum_of_exps = add32(sum_of_exps, tsr_rdbpot(softmax_exp(d, p), kAccumulationIntegerBits));
      }
    }

    /* shifted_scale ~ 1 / sum_of_exps, normalized: Q0.31 with
     * num_bits_over_unit bits shifted out. */
    int num_bits_over_unit = 0;
    const int32_t shifted_scale = tsr_gemmlowp_reciprocal(sum_of_exps, &num_bits_over_unit);

    /* y = exp(d) / sum in units of 1/256, minus 128: the Q0.31 product
     * shifted right by num_bits_over_unit + 31 - 8 bits. That shift is done
     * in 64 bits so that it stays exact at 32 or more (docs/sfu.md). */
    for (size_t j = 0; j < len; j++) {
      const int32_t d = (int32_t)in[j] - max_in_row;
      int32_t v = INT8_MIN;
      if (d >= p->diff_min) {
        const int32_t exp_in_0 = softmax_exp(d, p);
        const int64_t unsat = tsr_rdbpot64(tsr_srdhm(shifted_scale, exp_in_0), num_bits_over_unit + 31 - 8);
        /* |unsat| < 2^31 (a Q0.31 value shifted right by >= 3 bits), so the
         * subtraction cannot overflow. */
        v = clamp32((int32_t)unsat + INT8_MIN, INT8_MIN, INT8_MAX);
      }
      out[j] = (int8_t)v;
    }
  }
  return 0;
}

/* ---- LAYERNORM ---- */

int tsr_layernorm_check(const tsr_layernorm_params_t *p) {
  if (p == NULL || !in_range(p->out_shift, TSR_QUANT_SHIFT_MIN, TSR_QUANT_SHIFT_MAX) ||
      !in_range(p->act_min, INT8_MIN, INT8_MAX) || !in_range(p->act_max, p->act_min, INT8_MAX)) {
    return -1;
  }
  return 0;
}

int32_t tsr_sfu_rsqrt_q29(int32_t m) {
  /* m is Q0.31 in [1/4, 1); y is Q2.29 and converges to 1 / sqrt(m). */
  const int32_t nine_quarters_q2_29 = 9 * (INT32_C(1) << 27); /* 2.25 */
  const int32_t five_quarters_q2_29 = 5 * (INT32_C(1) << 27); /* 1.25 */
  const int32_t three_q4_27 = 3 * (INT32_C(1) << 27);         /* 3.0 */

  /* Linear first guess y0 = 2.25 - 1.25 m (Q0.31 x Q2.29 -> Q2.29). */
  int32_t y = sub32(nine_quarters_q2_29, tsr_srdhm(m, five_quarters_q2_29));
  for (int i = 0; i < 4; i++) {
    const int32_t t = tsr_srdhm(y, y); /* y^2, Q4.27 */
    const int32_t u = tsr_srdhm(m, t); /* m y^2, Q4.27 */
    const int32_t w = sub32(three_q4_27, u); /* 3 - m y^2, Q4.27 */
    /* y (3 - m y^2) / 2: the product is Q6.25; as Q2.29 it is 16 times the
     * raw value, halved: a saturating shift left by 3. */
    y = sat_shl(tsr_srdhm(y, w), 3);
  }
  return y;
}

/* The number of bits needed to write d > 0 (bit length). */
static int bit_length64(int64_t d) {
  int b = 0;
  uint64_t u = (uint64_t)d;
  while (u != 0) {
    u >>= 1;
    b++;
  }
  return b;
}

int tsr_golden_layernorm(size_t rows, size_t len, const int8_t *x, const int8_t *gamma, const int32_t *beta,
                         const tsr_layernorm_params_t *p, int8_t *y) {
  if (x == NULL || gamma == NULL || beta == NULL || y == NULL || rows == 0 || len == 0 || len > TSR_SFU_LEN_MAX ||
      tsr_layernorm_check(p) != 0) {
    return -1;
  }
  const int32_t L = (int32_t)len;
  /* E = eps_hi * 2^32 + eps_lo (eps_lo unsigned), as a 64-bit pattern. */
  const int64_t E = wrap64(((uint64_t)(uint32_t)p->eps_hi << 32) | (uint64_t)(uint32_t)p->eps_lo);

  for (size_t r = 0; r < rows; r++) {
    const int8_t *in = x + r * len;
    int8_t *out = y + r * len;

    /* S1 = sum x, S2 = sum x^2 (int32; cannot wrap for len <= 65535). */
    int32_t S1 = 0;
    int32_t S2 = 0;
    for (size_t j = 0; j < len; j++) {
      S1 = add32(S1, in[j]);
      S2 = add32(S2, (int32_t)in[j] * in[j]);
    }

    /* D = max((L*S2 - S1^2) * 2^8 + E, 1): L^2 (variance + eps) in the input's
     * units squared, with 8 fractional bits so that a small eps keeps its
     * precision. L*S2 - S1^2 is in [0, 2^47); the sum with E wraps in 64 bits. */
    const int64_t spread = (int64_t)L * S2 - (int64_t)S1 * S1;
    int64_t D = wrap64(((uint64_t)spread << 8) + (uint64_t)E);
    if (D < 1) {
      D = 1;
    }

    /* Normalize: D = m * 2^(2e - 31) with m in [2^29, 2^31), so that
     * 1 / sqrt(D) = rsqrt(m) / 2^29 / 2^e. */
    const int b = bit_length64(D); /* 1..63 */
    const int e = (b + 1) / 2;     /* ceil(b / 2) */
    const int left = 31 - 2 * e;   /* 30 down to -33 */
    /* D > 0: plain logical shifts; m < 2^31 */
    const int32_t m = (int32_t)(left >= 0 ? lsl64((uint64_t)D, left) : lsr64((uint64_t)D, -left));
    const int32_t rsq = tsr_sfu_rsqrt_q29(m);                                /* Q2.29 */

    for (size_t j = 0; j < len; j++) {
      /* n = L x_j - S1 = L (x_j - mean) */
      const int32_t n = sub32(mul32(L, in[j]), S1);
      /* Z = n / sqrt(D / 2^8) * 2^12 = z_j * 2^12, the standardized value:
       * n * rsq / 2^29 / 2^e * 2^16. Kept as a 32-bit value (the ALU's
       * multiplier width; it fits unless E is negative). */
      const int32_t Z = wrap32((uint32_t)(uint64_t)tsr_rdbpot64((int64_t)n * rsq, 13 + e));
      /* a = (g_j - gamma_zp) * Z + beta_j at scale gamma_scale * 2^-12 */
      const int32_t a = add32(mul32(add32(gamma[j], p->gamma_offset), Z), beta[j]);
      const int32_t v = add32(tsr_mbqm(a, p->out_mult, (int)p->out_shift), p->out_offset);
      out[j] = (int8_t)clamp32(v, p->act_min, p->act_max);
    }
  }
  return 0;
}

/* ---- ADD ---- */

int tsr_add_check(const tsr_add_params_t *p) {
  if (p == NULL || !in_range(p->in1_shift, TSR_QUANT_SHIFT_MIN, 0) || !in_range(p->in2_shift, TSR_QUANT_SHIFT_MIN, 0) ||
      !in_range(p->out_shift, TSR_QUANT_SHIFT_MIN, TSR_QUANT_SHIFT_MAX) || !in_range(p->act_min, INT8_MIN, INT8_MAX) ||
      !in_range(p->act_max, p->act_min, INT8_MAX)) {
    return -1;
  }
  return 0;
}

int tsr_golden_add(size_t n, const int8_t *a, const int8_t *b, const tsr_add_params_t *p, int8_t *y) {
  if (a == NULL || b == NULL || y == NULL || n == 0 || tsr_add_check(p) != 0) {
    return -1;
  }
  const int left_shift = 20;
  for (size_t i = 0; i < n; i++) {
    /* reference_integer_ops::AddElementwise: both inputs to a common scale
     * with 20 bits of headroom, add, rescale to the output. */
    const int32_t in1 = shl32(add32(a[i], p->in1_offset), left_shift);
    const int32_t in2 = shl32(add32(b[i], p->in2_offset), left_shift);
    const int32_t scaled1 = tsr_mbqm(in1, p->in1_mult, (int)p->in1_shift);
    const int32_t scaled2 = tsr_mbqm(in2, p->in2_mult, (int)p->in2_shift);
    const int32_t raw_sum = add32(scaled1, scaled2);
    const int32_t raw_out = add32(tsr_mbqm(raw_sum, p->out_mult, (int)p->out_shift), p->out_offset);
    y[i] = (int8_t)clamp32(raw_out, p->act_min, p->act_max);
  }
  return 0;
}

int tsr_mul_check(const tsr_mul_params_t *p) {
  if (p == NULL || !in_range(p->out_shift, TSR_QUANT_SHIFT_MIN, TSR_QUANT_SHIFT_MAX) ||
      !in_range(p->act_min, INT8_MIN, INT8_MAX) || !in_range(p->act_max, p->act_min, INT8_MAX)) {
    return -1;
  }
  return 0;
}

int tsr_golden_sfu_mul(size_t n, const int8_t *a, const int8_t *b, const tsr_mul_params_t *p, int8_t *y) {
  if (a == NULL || b == NULL || y == NULL || n == 0 || tsr_mul_check(p) != 0) {
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    /* reference_integer_ops::MulElementwise: the product of the offset inputs
     * (at most 255 * 255, exact in int32), rescaled to the output. */
    const int32_t prod = add32(a[i], p->in1_offset) * add32(b[i], p->in2_offset);
    const int32_t raw_out = add32(tsr_mbqm(prod, p->out_mult, (int)p->out_shift), p->out_offset);
    y[i] = (int8_t)clamp32(raw_out, p->act_min, p->act_max);
  }
  return 0;
}
