/* tsr_quant.h: TFLite/gemmlowp fixed-point requantization arithmetic, bit-exact with the hardware. */
#ifndef TSR_QUANT_H
#define TSR_QUANT_H

/*
 * This is the arithmetic of the STORE output stage (docs/commands.md) and of
 * rtl/tsr_requant.v. The hardware must match these functions bit for bit.
 *
 * Freestanding: the implementation uses only <stdint.h> and <stddef.h> and
 * calls nothing (no libc, no libm, no libgcc helpers), so the RV32IM firmware
 * and the driver link the same file as the host tools.
 *
 * Shift convention (as TFLite): a positive shift is a left shift applied
 * before the multiply, a negative shift is a rounding right shift after it.
 * The hardware accepts shifts in TSR_QUANT_SHIFT_MIN..TSR_QUANT_SHIFT_MAX.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_QUANT_SHIFT_MIN (-31) /**< smallest shift the hardware accepts */
#define TSR_QUANT_SHIFT_MAX 30    /**< largest shift the hardware accepts */

/**
 * gemmlowp SaturatingRoundingDoublingHighMul: round(a * b / 2^31), where a
 * tie (exactly .5) rounds towards +infinity, i.e. the nudge is +2^30 for a
 * non-negative product and 1 - 2^30 for a negative one before truncating
 * towards zero. The only overflowing input, INT32_MIN * INT32_MIN,
 * saturates to INT32_MAX. Defined for every input.
 */
int32_t tsr_srdhm(int32_t a, int32_t b);

/**
 * gemmlowp RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away
 * from zero. Valid exponents are 0..31; an exponent outside that range is
 * clamped into it (0 returns x unchanged, 31 is the largest divisor), so the
 * function is defined for every input.
 */
int32_t tsr_rdbpot(int32_t x, int exponent);

/**
 * TFLite MultiplyByQuantizedMultiplier (the double-rounding build):
 * rdbpot(srdhm(x << left, mult), right) with left = max(shift, 0) and
 * right = max(-shift, 0). The left shift wraps modulo 2^32 exactly like
 * TFLite's x * (1 << left). A shift outside
 * TSR_QUANT_SHIFT_MIN..TSR_QUANT_SHIFT_MAX (which the hardware rejects with
 * ERR_PARAM) is clamped into that range.
 */
int32_t tsr_mbqm(int32_t x, int32_t mult, int shift);

/**
 * TFLite QuantizeMultiplier: split a real multiplier into
 * real ~= mult * 2^(shift - 31) with mult in [2^30, 2^31).
 *
 * frexp(real) = q * 2^shift with q in [0.5, 1); mult = round(q * 2^31), ties
 * away from zero; if that rounds up to 2^31 then mult = 2^30 and shift + 1.
 * A result with shift < -31 (real < about 2^-32, including every subnormal)
 * is flushed to mult = 0, shift = 0, as is real == +0.0 or -0.0.
 *
 * Returns 0 on success. Returns -1 and leaves *mult and *shift untouched if
 * a pointer is NULL, if real is negative, NaN or infinite, or if the
 * resulting shift is above TSR_QUANT_SHIFT_MAX (30), i.e. real is 2^30 or
 * more, or rounds up to 2^30: such a multiplier is not representable by the
 * hardware, so the caller must reject it.
 */
int tsr_quantize_multiplier(double real, int32_t *mult, int *shift);

#ifdef __cplusplus
}
#endif

#endif /* TSR_QUANT_H */
