/* lut_tables.c: print the 256-entry tables the network compiler takes for TFLite's int8 activation kernels, for tests/net/check_luts.py to hold against TFLite Micro. */
#include <stdio.h>
#include <string.h>

#include "tsr_sfu.h"

/*
 * Reads lines "OP IN_SCALE IN_ZP OUT_SCALE OUT_ZP" from stdin, OP one of
 * LOGISTIC, TANH (tsr_lut_populate: TFLite's LUTPopulate in float),
 * HARD_SWISH, RELU, RELU6 (the integer kernels, tsr_lut_*_tflm). Prints one
 * line per request: the 256 entries for inputs -128..127, or "refused".
 */
int main(void) {
  char op[32];
  float in_scale = 0.0f, out_scale = 0.0f;
  int in_zp = 0, out_zp = 0;
  while (scanf("%31s %g %d %g %d", op, &in_scale, &in_zp, &out_scale, &out_zp) == 5) {
    int8_t lut[256];
    int rc = -1;
    if (strcmp(op, "LOGISTIC") == 0) {
      rc = tsr_lut_logistic_tflm(in_scale, in_zp, out_scale, out_zp, lut);
    } else if (strcmp(op, "TANH") == 0) {
      rc = tsr_lut_tanh_tflm(in_scale, in_zp, out_scale, out_zp, lut);
    } else if (strcmp(op, "HARD_SWISH") == 0) {
      rc = tsr_lut_hard_swish_tflm(in_scale, in_zp, out_scale, out_zp, lut);
    } else if (strcmp(op, "RELU") == 0 || strcmp(op, "RELU6") == 0) {
      rc = tsr_lut_relu_tflm(strcmp(op, "RELU6") == 0, in_scale, in_zp, out_scale, out_zp, lut);
    }
    if (rc != 0) {
      puts("refused");
      continue;
    }
    for (int v = -128; v <= 127; v++) {
      printf(v == -128 ? "%d" : " %d", lut[(unsigned char)(signed char)v]);
    }
    putchar('\n');
  }
  return 0;
}
