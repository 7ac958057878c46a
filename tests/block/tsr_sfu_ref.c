/* tsr_sfu_ref.c: DPI-C bridge from tests/block/tsr_sfu_tb.v to the SFU golden model (sw/golden/tsr_sfu_golden.c). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "tsr_sfu.h"

/*
 * The bench stages one command's tensors here element by element (row-major
 * r * len + j), asks for parameters made the way the driver makes them
 * (the *_prepare functions, from bench-chosen random numbers), runs the
 * golden function and reads the results back. Verilator only.
 */

#define REF_MAX_ELEMS 4096
#define REF_MAX_LEN 1024
#define REF_MAX_ROWS 64

int tsr_tb_sfu_set(int which, int idx, int value);
int tsr_tb_sfu_get(int which, int idx);
int tsr_tb_sfu_prepare(int func, int len, int r1, int r2, int r3);
int tsr_tb_sfu_run(int func, int rows, int len);

enum { REF_A = 0, REF_B = 1, REF_GAMMA = 2, REF_BETA = 3, REF_PARAM = 4, REF_LUT = 5, REF_Y = 6,
       REF_R = 7 };
enum { FN_LUT_LOAD = 0, FN_MAP = 1, FN_REDUCE = 2, FN_SOFTMAX = 3, FN_LAYERNORM = 4, FN_ADD = 5, FN_MUL = 6 };

static int8_t g_a[REF_MAX_ELEMS], g_b[REF_MAX_ELEMS], g_y[REF_MAX_ELEMS];
static int8_t g_gamma[REF_MAX_LEN];
static int32_t g_beta[REF_MAX_LEN];
static int32_t g_param[11];
static int8_t g_lut[256];
static int32_t g_r[3 * REF_MAX_ROWS];

static unsigned wrap_idx(int idx, unsigned n) {
  return (unsigned)idx % n;
}

/** Stage one value: which = REF_A.. (see the enum), idx its index. Returns 0. */
int tsr_tb_sfu_set(int which, int idx, int value) {
  switch (which) {
  case REF_A: g_a[wrap_idx(idx, REF_MAX_ELEMS)] = (int8_t)value; break;
  case REF_B: g_b[wrap_idx(idx, REF_MAX_ELEMS)] = (int8_t)value; break;
  case REF_GAMMA: g_gamma[wrap_idx(idx, REF_MAX_LEN)] = (int8_t)value; break;
  case REF_BETA: g_beta[wrap_idx(idx, REF_MAX_LEN)] = value; break;
  case REF_PARAM: g_param[wrap_idx(idx, 11)] = value; break;
  case REF_LUT: g_lut[wrap_idx(idx, 256)] = (int8_t)value; break;
  default: break;
  }
  return 0;
}

/** Read one value back: a result (REF_Y, REF_R) or a prepared parameter (REF_PARAM). */
int tsr_tb_sfu_get(int which, int idx) {
  switch (which) {
  case REF_Y: return g_y[wrap_idx(idx, REF_MAX_ELEMS)];
  case REF_R: return g_r[wrap_idx(idx, 3 * REF_MAX_ROWS)];
  case REF_PARAM: return g_param[wrap_idx(idx, 11)];
  case REF_LUT: return g_lut[wrap_idx(idx, 256)];
  default: return 0;
  }
}

/* A positive scale 2^-lo2 .. about 2^-(lo2 - 8), from 16 random bits. */
static double scale_of(int r, int lo2) {
  return ldexp(1.0 + (double)(r & 0xff) / 256.0, -lo2 + ((r >> 8) & 7));
}

/* A zero point -128..127 from 8 random bits. */
static int32_t zp_of(int r) {
  return (int32_t)((r & 0xff) ^ 0x80) - 128;
}

/**
 * Parameters for func made as the driver makes them, from three random
 * 32-bit numbers: they land in the staged parameter block. Returns 0, or -1
 * if the prepare function refuses them.
 */
int tsr_tb_sfu_prepare(int func, int len, int r1, int r2, int r3) {
  if (func == FN_SOFTMAX) {
    tsr_softmax_params_t p;
    const double beta = (r3 & 1) ? 1.0 : scale_of(r1 >> 16, 2);
    if (tsr_softmax_prepare(beta, scale_of(r1, 10), &p) != 0) {
      return -1;
    }
    g_param[0] = p.mult;
    g_param[1] = p.left_shift;
    g_param[2] = p.diff_min;
    return 0;
  }
  if (func == FN_LAYERNORM) {
    tsr_layernorm_params_t p;
    const double eps = ldexp(1.0, -((r3 >> 4) & 15) - 2);
    if (tsr_layernorm_prepare((size_t)len, scale_of(r1, 8), eps, zp_of(r2), scale_of(r2 >> 8, 10),
                              scale_of(r1 >> 16, 8), zp_of(r3 >> 8), &p) != 0) {
      return -1;
    }
    g_param[0] = p.gamma_offset;
    g_param[1] = p.eps_lo;
    g_param[2] = p.eps_hi;
    g_param[3] = p.out_mult;
    g_param[4] = p.out_shift;
    g_param[5] = p.out_offset;
    g_param[6] = (r3 & 3) == 0 ? -20 : p.act_min;
    g_param[7] = (r3 & 3) == 0 ? 40 : p.act_max;
    return 0;
  }
  if (func == FN_ADD) {
    tsr_add_params_t p;
    if (tsr_add_prepare(scale_of(r1, 8), zp_of(r1 >> 24), scale_of(r2, 8), zp_of(r2 >> 24),
                        scale_of(r3, 7), zp_of(r3 >> 24), &p) != 0) {
      return -1;
    }
    const int32_t w[11] = {p.in1_offset, p.in1_mult, p.in1_shift, p.in2_offset, p.in2_mult, p.in2_shift,
                           p.out_mult, p.out_shift, p.out_offset, p.act_min, p.act_max};
    for (int i = 0; i < 11; i++) {
      g_param[i] = w[i];
    }
    return 0;
  }
  if (func == FN_MUL) {
    /* The output scale 2^-1 .. 2^7 times the product of the input scales: multipliers from
     * below 1/256 to 2 (a left shift). */
    tsr_mul_params_t p;
    const double s1 = scale_of(r1, 8), s2 = scale_of(r2, 8);
    const double so = s1 * s2 * ldexp(1.0 + (double)(r3 & 0xff) / 256.0, ((r3 >> 8) & 7) - 1);
    if (tsr_mul_prepare((float)s1, zp_of(r1 >> 24), (float)s2, zp_of(r2 >> 24), (float)so,
                        zp_of(r3 >> 24), &p) != 0) {
      return -1;
    }
    const int32_t w[7] = {p.in1_offset, p.in2_offset, p.out_mult, p.out_shift, p.out_offset,
                          (r3 & 0x30000) == 0 ? -20 : p.act_min, (r3 & 0x30000) == 0 ? 40 : p.act_max};
    for (int i = 0; i < 7; i++) {
      g_param[i] = w[i];
    }
    return 0;
  }
  return 0;
}

/** Run the golden function on the staged tensors. Returns 0, or -1 (ERR_PARAM expected). */
int tsr_tb_sfu_run(int func, int rows, int len) {
  const size_t n = (size_t)rows * (size_t)len;
  if (rows <= 0 || len <= 0 || n > REF_MAX_ELEMS || len > REF_MAX_LEN || rows > REF_MAX_ROWS) {
    return -2;
  }
  switch (func) {
  case FN_MAP:
    tsr_golden_map(g_lut, n, g_a, g_y);
    return 0;
  case FN_REDUCE:
    tsr_golden_reduce((size_t)rows, (size_t)len, g_a, g_r);
    return 0;
  case FN_SOFTMAX: {
    const tsr_softmax_params_t p = {g_param[0], g_param[1], g_param[2]};
    return tsr_golden_softmax((size_t)rows, (size_t)len, g_a, &p, g_y);
  }
  case FN_LAYERNORM: {
    const tsr_layernorm_params_t p = {g_param[0], g_param[1], g_param[2], g_param[3],
                                      g_param[4], g_param[5], g_param[6], g_param[7]};
    return tsr_golden_layernorm((size_t)rows, (size_t)len, g_a, g_gamma, g_beta, &p, g_y);
  }
  case FN_ADD: {
    const tsr_add_params_t p = {g_param[0], g_param[1], g_param[2], g_param[3], g_param[4], g_param[5],
                                g_param[6], g_param[7], g_param[8], g_param[9], g_param[10]};
    return tsr_golden_add(n, g_a, g_b, &p, g_y);
  }
  case FN_MUL: {
    const tsr_mul_params_t p = {g_param[0], g_param[1], g_param[2], g_param[3], g_param[4], g_param[5],
                                g_param[6]};
    return tsr_golden_sfu_mul(n, g_a, g_b, &p, g_y);
  }
  default:
    return -2;
  }
}
