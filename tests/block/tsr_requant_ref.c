/* tsr_requant_ref.c: DPI-C bridge from tests/block/tsr_requant_tb.v to the golden output stage. */
#include <stddef.h>
#include <stdint.h>

#include "tsr_golden.h"

/*
 * The bench calls these through `import "DPI-C"` (Verilator only). The lane's
 * expected output is tsr_golden_output() of sw/golden/tsr_golden.c, which
 * calls tsr_mbqm() of sw/driver/tsr_quant.c: the model every other test
 * checks the chip against.
 */

int tsr_tb_requant_ref(int acc, int bias_en, int bias, int requant, int mult, int shift, int zp,
                       int act_min, int act_max, int leaky, int mult_neg, int shift_neg,
                       int lut_en);
void tsr_tb_requant_lut(int idx, int value);

static int8_t g_lut[256]; /* the table as the bench wrote it (0 after a clear) */

/** Set entry idx (0..255) of the reference's copy of the table. */
void tsr_tb_requant_lut(int idx, int value) {
  g_lut[(unsigned)idx & 0xffu] = (int8_t)value;
}

/** The golden output of one lane for one value with the given settings. */
int tsr_tb_requant_ref(int acc, int bias_en, int bias, int requant, int mult, int shift, int zp,
                       int act_min, int act_max, int leaky, int mult_neg, int shift_neg,
                       int lut_en) {
  const int32_t b = bias;
  const int32_t mn = mult_neg;
  const int32_t sn = shift_neg;
  tsr_gemm_params_t p = {0};
  p.bias = bias_en ? &b : NULL;
  p.requant = requant;
  p.mult_scalar = mult;
  p.shift_scalar = shift;
  p.out_zp = zp;
  p.act_min = act_min;
  p.act_max = act_max;
  if (requant && leaky) {
    p.mult_neg = &mn;
    p.shift_neg = &sn;
  }
  if (requant && lut_en) {
    p.lut = g_lut;
  }
  return tsr_golden_output(acc, 0, &p);
}
