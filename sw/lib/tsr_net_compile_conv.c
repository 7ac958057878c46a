/* tsr_net_compile_conv.c: the TFLite operators that address pixels (CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MEAN, PAD) as GEMM jobs with fw/tsr_conv.c's im2col view. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_conv.h"
#include "tsr_lib_internal.h"
#include "tsr_net_compile_int.h"
#include "tsr_net_prog.h"
#include "tsr_quant.h"
#include "tsr_tflite.h"

/* TFLite's padding for one dimension (ComputePaddingWithOffset): the output size the mode
 * gives, and the pixels before the first. */
static uint32_t conv_out_size(uint32_t in, uint32_t k, uint32_t stride, uint32_t dil, bool same) {
  const uint64_t eff = (uint64_t)(k - 1u) * dil + 1u;
  if (same) {
    return (uint32_t)(((uint64_t)in + stride - 1u) / stride);
  }
  return in >= eff ? (uint32_t)((in - eff + stride) / stride) : 0u;
}

static uint32_t conv_pad_before(uint32_t in, uint32_t out, uint32_t k, uint32_t stride,
                                uint32_t dil) {
  const int64_t eff = (int64_t)(k - 1u) * dil + 1;
  const int64_t total = ((int64_t)out - 1) * stride + eff - (int64_t)in;
  return total > 0 ? (uint32_t)(total / 2) : 0u;
}

/* The geometry of a CONV or DWCONV layer from its options, and its input's border: the
 * pixels the kernel reaches outside the image, filled with the input zero point (the runtime
 * fills it; the producer stores into the interior). */
static tsr_status_t conv_border_at(cc_t *c, tsr_net_layer_t *l, bool given) {
  tsr_net_tensor_t *x = &c->p->tensors[l->in];
  const tsr_net_tensor_t *y = &c->p->tensors[l->out];
  const uint32_t ih = x->shape[1], iw = x->shape[2], oh = y->shape[1], ow = y->shape[2];
  if (!given) {
    l->pad_t = conv_pad_before(ih, oh, l->kh, l->stride_h, l->dil_h);
    l->pad_l = conv_pad_before(iw, ow, l->kw, l->stride_w, l->dil_w);
  }
  const uint64_t y_end = (uint64_t)(oh - 1u) * l->stride_h + (uint64_t)(l->kh - 1u) * l->dil_h;
  const uint64_t x_end = (uint64_t)(ow - 1u) * l->stride_w + (uint64_t)(l->kw - 1u) * l->dil_w;
  const uint64_t need[4] = {l->pad_t, y_end + 1u > (uint64_t)ih + l->pad_t ? y_end + 1u - ih - l->pad_t : 0u,
                            l->pad_l, x_end + 1u > (uint64_t)iw + l->pad_l ? x_end + 1u - iw - l->pad_l : 0u};
  for (uint32_t i = 0; i < 4u; i++) {
    if (need[i] > 65535u) {
      return tsr_nc_unsupported(c, "a border of more than 65535 pixels");
    }
    if (need[i] > x->pad[i]) {
      x->pad[i] = (uint32_t)need[i];
    }
  }
  return TSR_OK;
}

static tsr_status_t conv_border(cc_t *c, tsr_net_layer_t *l) { return conv_border_at(c, l, false); }

/* What CONV_2D and DEPTHWISE_CONV_2D share: their options (defaults when absent), the NHWC
 * input, the weights (4-D, per-channel scales on w_axis) and the bias. */
typedef struct conv_op {
  bool same;
  uint32_t sh, sw, dh, dw;
  int32_t act;
  uint32_t in, out;
  tsr_tflite_tensor_t w;
  const uint8_t *wdata, *bdata;
  uint32_t batch, ih, iw, ic, kh, kw, oh, ow;
} conv_op_t;

static tsr_status_t conv_op_input(cc_t *c, const tsr_tflite_op_t *op, int32_t padding, int32_t sh,
                                  int32_t sw, int32_t dh, int32_t dw, int32_t act, uint32_t w_axis,
                                  conv_op_t *k) {
  memset(k, 0, sizeof *k);
  const bool decoded = op->options_decoded;
  if (decoded && padding != TSR_TFLITE_PADDING_SAME && padding != TSR_TFLITE_PADDING_VALID) {
    return tsr_nc_unsupported(c, "a padding other than SAME or VALID");
  }
  k->same = !decoded || padding == TSR_TFLITE_PADDING_SAME;
  if (decoded && (sh < 1 || sw < 1 || dh < 1 || dw < 1 || sh > 255 || sw > 255 || dh > 255 ||
                  dw > 255)) {
    return tsr_nc_unsupported(c, "a stride or dilation outside 1..255");
  }
  k->sh = decoded ? (uint32_t)sh : 1u;
  k->sw = decoded ? (uint32_t)sw : 1u;
  k->dh = decoded ? (uint32_t)dh : 1u;
  k->dw = decoded ? (uint32_t)dw : 1u;
  k->act = decoded ? act : 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, TSR_NET_INT8, &k->in);
  if (st != TSR_OK) {
    return st;
  }
  const tsr_net_tensor_t *x = &c->p->tensors[k->in];
  if (x->rank != 4u) {
    return tsr_nc_unsupported(c, "an input that is not NHWC (rank 4)");
  }
  if ((st = tsr_nc_weights_and_bias(c, op, 4u, w_axis, &k->w, &k->wdata, &k->bdata)) != TSR_OK) {
    return st;
  }
  k->batch = x->shape[0];
  k->ih = x->shape[1];
  k->iw = x->shape[2];
  k->ic = x->shape[3];
  k->kh = (uint32_t)k->w.shape[1];
  k->kw = (uint32_t)k->w.shape[2];
  return TSR_OK;
}

/* The operator's output, which must be (batch, out_h, out_w, oc). */
static tsr_status_t conv_op_output(cc_t *c, const tsr_tflite_op_t *op, uint32_t oc, conv_op_t *k) {
  k->oh = conv_out_size(k->ih, k->kh, k->sh, k->dh, k->same);
  k->ow = conv_out_size(k->iw, k->kw, k->sw, k->dw, k->same);
  tsr_status_t st = tsr_nc_new_output(c, op, TSR_NET_INT8, &k->out);
  if (st != TSR_OK) {
    return st;
  }
  const tsr_net_tensor_t *y = &c->p->tensors[k->out];
  if (k->oh == 0u || k->ow == 0u || y->rank != 4u || y->shape[0] != k->batch ||
      y->shape[1] != k->oh || y->shape[2] != k->ow || y->shape[3] != oc) {
    tsr_lib_err(c->err, c->errlen, "%s: the output is not (%u, %u, %u, %u)", c->opname, k->batch,
                k->oh, k->ow, oc);
    return TSR_UNSUPPORTED;
  }
  return TSR_OK;
}

/* The layer's kernel geometry, then its input's border. */
static tsr_status_t conv_op_finish(cc_t *c, const conv_op_t *k, tsr_net_layer_t *l) {
  l->kh = k->kh;
  l->kw = k->kw;
  l->stride_h = k->sh;
  l->stride_w = k->sw;
  l->dil_h = k->dh;
  l->dil_w = k->dw;
  return conv_border(c, l);
}

tsr_status_t tsr_nc_compile_conv(cc_t *c, const tsr_tflite_op_t *op) {
  const tsr_tflite_conv2d_opts_t *o = &op->opt.conv2d;
  conv_op_t k;
  tsr_status_t st = conv_op_input(c, op, o->padding, o->stride_h, o->stride_w, o->dilation_h,
                                  o->dilation_w, o->fused_activation, 0u, &k);
  if (st != TSR_OK) {
    return st;
  }
  const uint32_t ic = k.ic, kh = k.kh, kw = k.kw;
  const uint32_t oc = (uint32_t)k.w.shape[0];
  if ((uint32_t)k.w.shape[3] != ic) {
    return tsr_nc_unsupported(c, "weights whose input channels differ from the input's (groups)");
  }
  if ((st = conv_op_output(c, op, oc, &k)) != TSR_OK) {
    return st;
  }
  tsr_conv_desc_t d;
  memset(&d, 0, sizeof d);
  d.kh = kh;
  d.kw = kw;
  d.in_c = ic;
  d.dil_w = k.dw;
  tsr_conv_geom_t g;
  if (!tsr_conv_geom(&d, c->p->target.dim, &g)) {
    return tsr_nc_unsupported(c, "a kernel row of more than 65535 bytes");
  }
  /* B (K, oc) in tsr_conv_geom's order: W[o][y][x][i] at row seg * seg_pad + offset. */
  int8_t *bt = calloc((size_t)g.k, oc);
  if (bt == NULL) {
    return tsr_nc_oom(c);
  }
  for (uint32_t o2 = 0; o2 < oc; o2++) {
    for (uint32_t ky = 0; ky < kh; ky++) {
      for (uint32_t kx = 0; kx < kw; kx++) {
        for (uint32_t i = 0; i < ic; i++) {
          const size_t row = g.per_kh ? (size_t)ky * g.seg_pad + (size_t)kx * ic + i
                                      : ((size_t)ky * kw + kx) * g.seg_pad + i;
          bt[row * oc + o2] = (int8_t)k.wdata[(((size_t)o2 * kh + ky) * kw + kx) * ic + i];
        }
      }
    }
  }
  tsr_net_layer_t *l = NULL;
  st = tsr_nc_gemm_layer_folded(c, TSR_NET_CONV, k.in, k.out, k.batch * k.oh * k.ow, g.k, oc, bt,
                                (size_t)g.k * oc, g.k, oc, bt, k.bdata, &k.w, k.act, &l);
  free(bt);
  if (st != TSR_OK) {
    return st;
  }
  return conv_op_finish(c, &k, l);
}

tsr_status_t tsr_nc_compile_dwconv(cc_t *c, const tsr_tflite_op_t *op) {
  const tsr_tflite_dwconv_opts_t *o = &op->opt.dwconv;
  conv_op_t k;
  tsr_status_t st = conv_op_input(c, op, o->padding, o->stride_h, o->stride_w, o->dilation_h,
                                  o->dilation_w, o->fused_activation, 3u, &k);
  if (st != TSR_OK) {
    return st;
  }
  const uint32_t ic = k.ic, kh = k.kh, kw = k.kw;
  const uint32_t oc = (uint32_t)k.w.shape[3];
  /* TFLite Micro takes the multiplier from the shapes (out_c / in_c). */
  if (k.w.shape[0] != 1 || oc % ic != 0u) {
    return tsr_nc_unsupported(c, "depthwise weights that are not (1, KH, KW, in_c x multiplier)");
  }
  const uint32_t dm = oc / ic;
  if ((st = conv_op_output(c, op, oc, &k)) != TSR_OK) {
    return st;
  }
  /* Channel groups of gc input channels: each a convolution of gc channels (one segment of
   * gc bytes per tap, padded to N) into gc * dm output channels whose B is block diagonal. */
  const uint32_t dim = c->p->target.dim;
  const uint32_t gc = dm >= dim ? 1u : (dim / dm < ic ? dim / dm : ic);
  const uint32_t groups = (ic + gc - 1u) / gc;
  const uint32_t n = gc * dm;
  tsr_conv_desc_t d;
  memset(&d, 0, sizeof d);
  d.kh = kh;
  d.kw = kw;
  d.in_c = gc;
  d.in_pix = ic;
  d.dil_w = k.dw;
  tsr_conv_geom_t g;
  if (!tsr_conv_geom(&d, dim, &g) || (uint64_t)groups * g.k * n > (1u << 28)) {
    return tsr_nc_unsupported(c, "a depthwise kernel this large");
  }
  int8_t *bt = calloc((size_t)groups * g.k, n);
  if (bt == NULL) {
    return tsr_nc_oom(c);
  }
  for (uint32_t ci = 0; ci < ic; ci++) {
    const uint32_t grp = ci / gc, cl = ci % gc;
    for (uint32_t tap = 0; tap < kh * kw; tap++) {
      for (uint32_t j = 0; j < dm; j++) {
        const size_t row = (size_t)grp * g.k + (size_t)tap * g.seg_pad + cl;
        bt[row * n + (size_t)cl * dm + j] = (int8_t)k.wdata[(size_t)tap * oc + (size_t)ci * dm + j];
      }
    }
  }
  tsr_net_layer_t *l = NULL;
  /* The weights (1, KH, KW, oc) are a (KH*KW, oc) matrix: its column sums fold the bias. */
  st = tsr_nc_gemm_layer_folded(c, TSR_NET_DWCONV, k.in, k.out, k.batch * k.oh * k.ow, g.k, n, bt,
                                (size_t)groups * g.k * n, kh * kw, oc, (const int8_t *)k.wdata,
                                k.bdata, &k.w, k.act, &l);
  free(bt);
  if (st != TSR_OK) {
    return st;
  }
  l->depth_mult = dm;
  l->group_c = gc;
  return conv_op_finish(c, &k, l);
}

/* A layer that sums each channel's kh x kw window (stride sh, sw) of `in` as a depthwise
 * convolution with every weight `weight`, the input zero point folded in or not, and
 * requantizes with MBQM(mult, shift) (the STORE's), output zero point out_zp and the fused
 * activation `act`: an average pool or a mean. */
static tsr_status_t window_layer(cc_t *c, uint32_t in, uint32_t out, uint32_t kh, uint32_t kw,
                                 uint32_t sh, uint32_t sw, int8_t weight, bool fold, int32_t mult,
                                 int shift, int32_t out_zp, int32_t act, const uint32_t *pads) {
  const uint32_t batch = c->p->tensors[in].shape[0];
  const uint32_t ic = c->p->tensors[in].shape[3];
  const uint32_t oh = c->p->tensors[out].shape[1];
  const uint32_t ow = c->p->tensors[out].shape[2];
  if (shift < -31 || shift > 30) {
    return tsr_nc_unsupported(c, "these scales (the multiplier is not representable)");
  }
  const uint32_t dim = c->p->target.dim;
  const uint32_t gc = dim < ic ? dim : ic;
  const uint32_t groups = (ic + gc - 1u) / gc;
  tsr_conv_desc_t d;
  memset(&d, 0, sizeof d);
  d.kh = kh;
  d.kw = kw;
  d.in_c = gc;
  d.in_pix = ic;
  d.dil_w = 1u;
  tsr_conv_geom_t g;
  if (!tsr_conv_geom(&d, dim, &g) || (uint64_t)groups * g.k * gc > (1u << 28)) {
    return tsr_nc_unsupported(c, "a pool window this large");
  }
  /* B, then N bytes of `weight`: the row a window sum over one output pixel uses as A
   * (fw/tsr_conv.c, "Window sums"). */
  const size_t b_bytes = (size_t)groups * g.k * gc;
  int8_t *bt = calloc(b_bytes + dim, 1u);
  if (bt == NULL) {
    return tsr_nc_oom(c);
  }
  for (uint32_t ci = 0; ci < ic; ci++) {
    for (uint32_t tap = 0; tap < kh * kw; tap++) {
      const size_t row = (size_t)(ci / gc) * g.k + (size_t)tap * g.seg_pad + ci % gc;
      bt[row * gc + ci % gc] = weight;
    }
  }
  memset(bt + b_bytes, weight, dim);
  /* The multiplier is set below; the scale given here only passes the checks. */
  tsr_tflite_tensor_t w;
  memset(&w, 0, sizeof w);
  const float ws = 1.0f;
  w.scale.data = (const uint8_t *)&ws;
  w.scale.count = 1u;
  w.scale.elem_size = 4u;
  /* With fold, the bias is -zp x (the window's weights): a (kh*kw, ic) matrix of `weight`. */
  int8_t *ones = fold ? malloc((size_t)kh * kw * ic) : NULL;
  if (fold && ones == NULL) {
    free(bt);
    return tsr_nc_oom(c);
  }
  if (ones != NULL) {
    memset(ones, weight, (size_t)kh * kw * ic);
  }
  tsr_net_layer_t *l = NULL;
  tsr_status_t st = tsr_nc_gemm_layer_folded(c, TSR_NET_DWCONV, in, out, batch * oh * ow, g.k, gc, bt,
                                             b_bytes + dim, kh * kw, ic, ones, NULL, &w, act, &l);
  free(bt);
  free(ones);
  if (st != TSR_OK) {
    return st;
  }
  l->kh = kh;
  l->kw = kw;
  l->stride_h = sh;
  l->stride_w = sw;
  l->dil_h = 1u;
  l->dil_w = 1u;
  l->depth_mult = 1u;
  l->group_c = gc;
  l->a_zp = fold ? c->p->tensors[in].zp : 0;
  l->out_zp = out_zp;
  l->mult = mult;
  l->shift = shift;
  if (pads != NULL) {
    l->pad_t = pads[0];
    l->pad_l = pads[1];
  }
  return conv_border_at(c, l, pads != NULL);
}


/* AVERAGE_POOL_2D as a depthwise convolution: weights 64 on each channel's window, no zero
 * point folded (TFLite sums the raw values), and the STORE's requantization divides by
 * 64 x count: multiplier 1 / (64 count), output zero point 0, the activation clamp. TFLite
 * rounds sum / count half away from zero; MBQM's SRDHM rounds x M / 2^31 to an integer
 * within 0.5 + 2^-12 of (sum / count) 2^s, s >= 6 (the 64), so a tie stays exactly a tie
 * for RDBPOT, which rounds it away from zero, and no other value crosses a half. Only
 * windows that stay in the image are taken (VALID, or SAME that pads nothing): at a
 * padded border TFLite divides by the smaller count of the pixels inside. */
tsr_status_t tsr_nc_compile_avgpool(cc_t *c, const tsr_tflite_op_t *op) {
  const tsr_tflite_pool_opts_t *o = &op->opt.pool;
  if (!op->options_decoded) {
    return tsr_nc_unsupported(c, "a pool without options");
  }
  if (o->padding != TSR_TFLITE_PADDING_SAME && o->padding != TSR_TFLITE_PADDING_VALID) {
    return tsr_nc_unsupported(c, "a padding other than SAME or VALID");
  }
  const bool same = o->padding == TSR_TFLITE_PADDING_SAME;
  if (o->stride_h < 1 || o->stride_w < 1 || o->stride_h > 255 || o->stride_w > 255 ||
      o->filter_h < 1 || o->filter_w < 1 || o->filter_h > 255 || o->filter_w > 255) {
    return tsr_nc_unsupported(c, "a stride or filter outside 1..255");
  }
  uint32_t in = 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, TSR_NET_INT8, &in);
  if (st != TSR_OK) {
    return st;
  }
  if (c->p->tensors[in].rank != 4u) {
    return tsr_nc_unsupported(c, "an input that is not NHWC (rank 4)");
  }
  const uint32_t batch = c->p->tensors[in].shape[0];
  const uint32_t ih = c->p->tensors[in].shape[1];
  const uint32_t iw = c->p->tensors[in].shape[2];
  const uint32_t ic = c->p->tensors[in].shape[3];
  const uint32_t kh = (uint32_t)o->filter_h, kw = (uint32_t)o->filter_w;
  const uint32_t sh = (uint32_t)o->stride_h, sw = (uint32_t)o->stride_w;
  const uint32_t oh = conv_out_size(ih, kh, sh, 1u, same);
  const uint32_t ow = conv_out_size(iw, kw, sw, 1u, same);
  uint32_t out = 0;
  if ((st = tsr_nc_new_output(c, op, TSR_NET_INT8, &out)) != TSR_OK) {
    return st;
  }
  const tsr_net_tensor_t *x = &c->p->tensors[in];
  const tsr_net_tensor_t *y = &c->p->tensors[out];
  if (oh == 0u || ow == 0u || y->rank != 4u || y->shape[0] != batch || y->shape[1] != oh ||
      y->shape[2] != ow || y->shape[3] != ic) {
    tsr_lib_err(c->err, c->errlen, "%s: the output is not (%u, %u, %u, %u)", c->opname, batch, oh,
                ow, ic);
    return TSR_UNSUPPORTED;
  }
  if (y->scale != x->scale || y->zp != x->zp) {
    return tsr_nc_unsupported(c, "an output quantization unlike the input's");
  }
  if ((uint64_t)(oh - 1u) * sh + kh > ih || (uint64_t)(ow - 1u) * sw + kw > iw) {
    return tsr_nc_unsupported(c, "SAME padding that pads (TFLite divides by the pixels inside the image)");
  }
  int32_t mult = 0;
  int shift = 0;
  if (tsr_quantize_multiplier(1.0 / (64.0 * (double)(kh * kw)), &mult, &shift) != 0) {
    return tsr_nc_unsupported(c, "a pool window this large");
  }
  return window_layer(c, in, out, kh, kw, sh, sw, 64, false, mult, shift, 0, o->fused_activation,
                      NULL);
}

/* MEAN over height and width of an NHWC tensor with keep_dims (the output is (B, 1, 1, C)),
 * any output quantization. TFLite Micro computes MBQM(sum(x - zp), mult, shift) + out_zp
 * with TFLite's multiplier below (not QuantizeMultiplier(in / out / count), which differs
 * at 5x5 and 7x7: 98 and 21 of 2,400 and 600 outputs): a window sum over the whole image
 * with the zero point folded, and the STORE's MBQM. */
tsr_status_t tsr_nc_compile_mean(cc_t *c, const tsr_tflite_op_t *op) {
  uint32_t in = 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, TSR_NET_INT8, &in);
  if (st != TSR_OK) {
    return st;
  }
  const int32_t ai = op->inputs.count == 2u ? tsr_tflite_i32(op->inputs, 1) : -1;
  tsr_tflite_tensor_t axis;
  const uint8_t *ad = NULL;
  if (ai < 0 || c->map[ai] >= 0 ||
      tsr_tflite_tensor(c->m, (uint32_t)ai, &axis, c->err, c->errlen) != TSR_TFLITE_OK ||
      axis.type != TSR_TFLITE_INT32 || tsr_nc_const_data(c, &axis, "axes", 2u, 4u, &ad) != TSR_OK) {
    return tsr_nc_unsupported(c, "axes other than a constant int32 (1, 2)");
  }
  int32_t a0, a1;
  memcpy(&a0, ad, 4u);
  memcpy(&a1, ad + 4, 4u);
  if (!((a0 == 1 && a1 == 2) || (a0 == 2 && a1 == 1)) || c->p->tensors[in].rank != 4u) {
    return tsr_nc_unsupported(c, "a mean over other axes than height and width of an NHWC tensor");
  }
  uint32_t out = 0;
  if ((st = tsr_nc_new_output(c, op, TSR_NET_INT8, &out)) != TSR_OK) {
    return st;
  }
  const tsr_net_tensor_t *x = &c->p->tensors[in];
  const tsr_net_tensor_t *y = &c->p->tensors[out];
  if (y->rank != 4u || y->shape[0] != x->shape[0] || y->shape[1] != 1u || y->shape[2] != 1u ||
      y->shape[3] != x->shape[3]) {
    return tsr_nc_unsupported(c, "an output that is not (B, 1, 1, C) (keep_dims = false)");
  }
  const uint32_t kh = x->shape[1], kw = x->shape[2];
  if ((uint64_t)kh * kw > 65535u) {
    return tsr_nc_unsupported(c, "a mean over more than 65535 pixels");
  }
  /* TFLite's QuantizedMeanOrSum: QuantizeMultiplier(in / out), then the count folded into it
   * by an integer division after a left shift of k = floor(log2 count) (at most 32 and
   * 31 + shift) bits, and k taken from the shift. */
  const uint32_t count = kh * kw;
  int32_t mult = 0;
  int shift = 0;
  if (tsr_quantize_multiplier((double)x->scale / (double)y->scale, &mult, &shift) != 0) {
    return tsr_nc_unsupported(c, "these scales (the multiplier is not representable)");
  }
  int k = 0;
  while ((count >> (k + 1)) != 0u) {
    k++;
  }
  k = k < 32 ? k : 32;
  k = k < 31 + shift ? k : 31 + shift;
  mult = (int32_t)(((int64_t)mult << k) / (int64_t)count);
  shift -= k;
  return window_layer(c, in, out, kh, kw, 1u, 1u, 1, true, mult, shift, y->zp, 0, NULL);
}

/* PAD of the height and width of an NHWC tensor with its zero point (TFLite's int8 PAD; the
 * output quantized as the input): an identity 1x1 window layer (weight 64, multiplier 1/64:
 * exact) that reads the input with a border of the padding, which the runtime fills with
 * the zero point, and writes every output pixel, the padding included. */
tsr_status_t tsr_nc_compile_pad(cc_t *c, const tsr_tflite_op_t *op) {
  uint32_t in = 0;
  tsr_status_t st = tsr_nc_known_input(c, op, 0, TSR_NET_INT8, &in);
  if (st != TSR_OK) {
    return st;
  }
  const int32_t pi = op->inputs.count == 2u ? tsr_tflite_i32(op->inputs, 1) : -1;
  tsr_tflite_tensor_t pt;
  const uint8_t *pd = NULL;
  if (c->p->tensors[in].rank != 4u) {
    return tsr_nc_unsupported(c, "a PAD of a tensor that is not NHWC (rank 4)");
  }
  if (pi < 0 || c->map[pi] >= 0 ||
      tsr_tflite_tensor(c->m, (uint32_t)pi, &pt, c->err, c->errlen) != TSR_TFLITE_OK ||
      pt.type != TSR_TFLITE_INT32 || tsr_nc_const_data(c, &pt, "paddings", 8u, 4u, &pd) != TSR_OK) {
    return tsr_nc_unsupported(c, "paddings other than a constant int32 (4, 2)");
  }
  int32_t pads[8];
  memcpy(pads, pd, sizeof pads);
  if (pads[0] != 0 || pads[1] != 0 || pads[6] != 0 || pads[7] != 0) {
    return tsr_nc_unsupported(c, "padding of the batch or channel axis");
  }
  for (uint32_t i = 2; i < 6u; i++) {
    if (pads[i] < 0 || pads[i] > 255) {
      return tsr_nc_unsupported(c, "a padding outside 0..255");
    }
  }
  uint32_t out = 0;
  if ((st = tsr_nc_new_output(c, op, TSR_NET_INT8, &out)) != TSR_OK) {
    return st;
  }
  const tsr_net_tensor_t *x = &c->p->tensors[in];
  const tsr_net_tensor_t *y = &c->p->tensors[out];
  if (y->rank != 4u || y->shape[0] != x->shape[0] || y->shape[3] != x->shape[3] ||
      y->shape[1] != x->shape[1] + (uint32_t)(pads[2] + pads[3]) ||
      y->shape[2] != x->shape[2] + (uint32_t)(pads[4] + pads[5])) {
    return tsr_nc_unsupported(c, "an output shape that is not the padded input's");
  }
  if (y->scale != x->scale || y->zp != x->zp) {
    return tsr_nc_unsupported(c, "an output quantization unlike the input's");
  }
  int32_t mult = 0;
  int shift = 0;
  tsr_quantize_multiplier(1.0 / 64.0, &mult, &shift);
  const uint32_t before[2] = {(uint32_t)pads[2], (uint32_t)pads[4]};
  return window_layer(c, in, out, 1u, 1u, 1u, 1u, 64, false, mult, shift, 0, 0, before);
}

