/* tsr_net_run.c: the network runtime: upload a program's blob, replay each layer's captured commands through a command ring inside a DMA window, host edges, per-layer figures and golden checks. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_golden.h"
#include "tsr_golden_params.h"
#include "tsr_lib_internal.h"
#include "tsr_net_prog.h"
#include "tsr_sfu.h"

void tessera_net_result_free(tessera_net_result_t *res) {
  if (res != NULL) {
    for (uint32_t i = 0; res->layers != NULL && i < res->n_layers; i++) {
      free(res->layers[i].out);
    }
    free(res->layers);
    res->layers = NULL;
    res->n_layers = 0;
  }
}

/* Where things are during a run: the arena's base address and a host copy of every tensor. */
typedef struct run {
  tessera_dev_t *dev;
  const tsr_net_prog_t *p;
  uint64_t base;
  uint8_t **host;    /* per tensor: its storage's host copy (aliases share the root's) */
  bool *on_dev;      /* per storage root: the device holds what the host copy holds */
  bool *stale;       /* per storage root: the host copy is not the chip's result (the layer
                        ran inside a stream, and its storage was reused before the end) */
  char *err;
  size_t errlen;
} run_t;

/* TFLite's AffineQuantize: round(x / scale) (half away from zero, in float) + zp, clamped. */
static void host_quantize(const tsr_net_tensor_t *y, const float *x, int8_t *q) {
  for (uint32_t i = 0; i < y->elems; i++) {
    const float v = roundf(x[i] / y->scale);
    int32_t u = (v >= 2147483520.0f) ? INT32_MAX : (v <= -2147483648.0f) ? INT32_MIN : (int32_t)v;
    int64_t s = (int64_t)u + y->zp;
    q[i] = (int8_t)(s < -128 ? -128 : s > 127 ? 127 : s);
  }
}

/* TFLite's Dequantize: (float)((double)scale * (q - zp)). */
static void host_dequantize(const tsr_net_tensor_t *x, const int8_t *q, float *y) {
  for (uint32_t i = 0; i < x->elems; i++) {
    y[i] = (float)((double)x->scale * (double)((int32_t)q[i] - x->zp));
  }
}

static uint64_t count_diff(const int8_t *a, const int8_t *b, size_t n) {
  uint64_t d = 0;
  for (size_t i = 0; i < n; i++) {
    d += a[i] != b[i];
  }
  return d;
}

static int8_t *host_im2col(const tsr_net_prog_t *p, const tsr_net_layer_t *l, const int8_t *x,
                           uint32_t c0, uint32_t gc);
static int golden_dwconv(const tsr_net_prog_t *p, const tsr_net_layer_t *l, const int8_t *x,
                         int8_t *g);

/* The golden model of a COPY layer: each output element from its input index, walked
 * separately from the chip's strided loads. */
static void golden_copy(const tsr_net_prog_t *p, const tsr_net_layer_t *l, const int8_t *x,
                        const int8_t *yc, int8_t *g) {
  const tsr_net_tensor_t *t = &p->tensors[l->in];
  const tsr_net_tensor_t *y = &p->tensors[l->out];
  if (l->n != 0u) {
    /* A CONCATENATION's slice: what the other inputs wrote stays as the chip left it. */
    memcpy(g, yc, y->elems);
    for (uint32_t r = 0; r < l->rows; r++) {
      memcpy(g + l->k + (size_t)r * l->n, x + (size_t)r * l->len, l->len);
    }
    return;
  }
  uint32_t idx[TSR_NET_MAX_RANK] = {0u, 0u, 0u, 0u};
  for (uint32_t o = 0; o < y->elems; o++) {
    uint32_t rem = o;
    for (uint32_t d = y->rank; d-- > 0u;) {
      idx[(l->perm >> (8u * d)) & 0xffu] = rem % y->shape[d];
      rem /= y->shape[d];
    }
    size_t off = 0;
    for (uint32_t d = 0; d < t->rank; d++) {
      off = off * t->shape[d] + idx[d];
    }
    g[o] = x[off];
  }
}

/* The golden model of a BMM layer: per batch, the bias -a_zp * colsum(B) summed on the host,
 * then the golden GEMM; 0 or -1. */
static int golden_bmm(const tsr_net_prog_t *p, const tsr_net_layer_t *l, const int8_t *x,
                      const int8_t *w, int8_t *g) {
  const tsr_net_tensor_t *y = &p->tensors[l->out];
  int32_t *bias = calloc(l->n, sizeof *bias);
  if (bias == NULL) {
    return -1;
  }
  int rc = 0;
  const uint32_t batches = tsr_net_bmm_batches(y);
  for (uint32_t b = 0; b < batches && rc == 0; b++) {
    const int8_t *xb = x + (size_t)tsr_net_bmm_operand_batch(y, &p->tensors[l->in], b) * l->m * l->k;
    const int8_t *wb = w + (size_t)tsr_net_bmm_operand_batch(y, &p->tensors[l->in2], b) * l->k * l->n;
    for (uint32_t j = 0; j < l->n; j++) {
      int64_t sum = 0;
      for (uint32_t i = 0; i < l->k; i++) {
        sum += wb[(size_t)i * l->n + j];
      }
      bias[j] = (int32_t)(-(int64_t)l->a_zp * sum);
    }
    tsr_gemm_params_t gp;
    memset(&gp, 0, sizeof gp);
    gp.bias = bias;
    gp.requant = 1;
    gp.mult_scalar = l->mult;
    gp.shift_scalar = l->shift;
    gp.out_zp = l->out_zp;
    gp.act_min = l->act_min;
    gp.act_max = l->act_max;
    rc = tsr_golden_gemm(l->m, l->k, l->n, xb, l->k, wb, l->n, &gp, NULL,
                         g + (size_t)b * l->m * l->n);
  }
  free(bias);
  return rc;
}

/* A HOST layer: the golden model's MUL or MAX_POOL_2D on the host copies. */
static tsr_status_t host_layer(run_t *r, const tsr_net_layer_t *l) {
  const tsr_net_prog_t *p = r->p;
  const tsr_net_tensor_t *x = &p->tensors[l->in];
  const tsr_net_tensor_t *y = &p->tensors[l->out];
  tsr_golden_shape4_t xs, ys, x2s;
  const tsr_net_tensor_t *x2 = &p->tensors[l->in2];
  for (uint32_t d = 0; d < 4u; d++) {
    xs.d[d] = d < 4u - x->rank ? 1u : x->shape[d - (4u - x->rank)];
    ys.d[d] = d < 4u - y->rank ? 1u : y->shape[d - (4u - y->rank)];
    x2s.d[d] = d < 4u - x2->rank ? 1u : x2->shape[d - (4u - x2->rank)];
  }
  int rc = -1;
  if (l->rows == 18u) {
    rc = tsr_golden_mul(&ys, &xs, (const int8_t *)r->host[l->in], x->zp, &x2s,
                        (const int8_t *)r->host[l->in2], x2->zp, l->mult, (int)l->shift, l->out_zp,
                        l->act_min, l->act_max, (int8_t *)r->host[l->out]);
  } else if (l->rows == 126u) {
    rc = 0;
    for (uint32_t b = 0; b < tsr_net_bmm_batches(y) && rc == 0; b++) {
      rc = tsr_golden_matmul_zp(
          l->m, l->k, l->n,
          (const int8_t *)r->host[l->in] + (size_t)tsr_net_bmm_operand_batch(y, x, b) * l->m * l->k,
          x->zp,
          (const int8_t *)r->host[l->in2] + (size_t)tsr_net_bmm_operand_batch(y, x2, b) * l->k * l->n,
          x2->zp, l->mult, (int)l->shift, l->out_zp, l->act_min, l->act_max,
          (int8_t *)r->host[l->out] + (size_t)b * l->m * l->n);
    }
  } else if (l->rows == 17u) {
    rc = tsr_golden_maxpool(&xs, (const int8_t *)r->host[l->in], &ys, l->kh, l->kw, l->stride_h,
                            l->stride_w, l->pad_t, l->pad_l, l->act_min, l->act_max,
                            (int8_t *)r->host[l->out]);
  }
  if (rc != 0) {
    tsr_lib_err(r->err, r->errlen, "operator %u: the golden model rejected the host layer",
                l->op_index);
    return TSR_BAD_ARG;
  }
  r->on_dev[y->alias] = false;
  return TSR_OK;
}

/* The golden model of a chip layer from the same input; the count of differing outputs. */
static tsr_status_t check_layer(run_t *r, const tsr_net_layer_t *l, tessera_net_layer_fig_t *f) {
  const tsr_net_prog_t *p = r->p;
  const int8_t *x = (const int8_t *)r->host[l->in];
  const int8_t *y = (const int8_t *)r->host[l->out];
  const size_t n_out = p->tensors[l->out].elems;
  int8_t *g = malloc(n_out);
  if (g == NULL) {
    tsr_lib_err(r->err, r->errlen, "out of memory for the golden result");
    return TSR_NO_MEMORY;
  }
  int rc = 0;
  int8_t *im2col = NULL;
  if (l->kind == TSR_NET_DWCONV) {
    rc = golden_dwconv(p, l, x, g);
    if (rc == 0 && l->lut != 0u) { /* a fused LUT layer: the table after the clamp */
      tsr_golden_map((const int8_t *)(p->blob + l->param_off), n_out, g, g);
    }
  } else if (l->kind == TSR_NET_COPY) {
    golden_copy(p, l, x, y, g);
  } else if (l->kind == TSR_NET_BMM) {
    rc = golden_bmm(p, l, x, (const int8_t *)r->host[l->in2], g);
  } else if (l->kind == TSR_NET_MAXPOOL) {
    const tsr_net_tensor_t *xt = &p->tensors[l->in], *yt = &p->tensors[l->out];
    const tsr_golden_shape4_t xs = {{xt->shape[0], xt->shape[1], xt->shape[2], xt->shape[3]}};
    const tsr_golden_shape4_t ys = {{yt->shape[0], yt->shape[1], yt->shape[2], yt->shape[3]}};
    rc = tsr_golden_maxpool(&xs, x, &ys, l->kh, l->kw, l->stride_h, l->stride_w, l->pad_t, l->pad_l,
                            l->act_min, l->act_max, g);
  } else if (l->kind == TSR_NET_CONV) {
    if ((im2col = host_im2col(p, l, x, 0u, p->tensors[l->in].shape[3])) == NULL) {
      free(g);
      tsr_lib_err(r->err, r->errlen, "out of memory for the golden result");
      return TSR_NO_MEMORY;
    }
    x = im2col;
  }
  if (l->kind == TSR_NET_GEMM || l->kind == TSR_NET_CONV) {
    tsr_gemm_params_t gp;
    memset(&gp, 0, sizeof gp);
    gp.bias = (const int32_t *)(const void *)(p->blob + l->bias_off);
    gp.requant = 1;
    gp.mult = l->per_channel ? (const int32_t *)(const void *)(p->blob + l->mult_off) : NULL;
    gp.shift = l->per_channel ? (const int32_t *)(const void *)(p->blob + l->shift_off) : NULL;
    gp.mult_scalar = l->mult;
    gp.shift_scalar = l->shift;
    gp.out_zp = l->out_zp;
    gp.act_min = l->act_min;
    gp.act_max = l->act_max;
    rc = tsr_golden_gemm(l->m, l->k, l->n, x, l->k, (const int8_t *)(p->blob + l->b_off), l->n, &gp,
                         NULL, g);
    if (rc == 0 && l->lut != 0u) { /* a fused LUT layer: the table after the clamp */
      tsr_golden_map((const int8_t *)(p->blob + l->param_off), n_out, g, g);
    }
  } else if (l->kind == TSR_NET_ADD) {
    /* The golden model's own parameters, derived from the scales by separate code. */
    const tsr_net_tensor_t *a = &p->tensors[l->in], *b = &p->tensors[l->in2];
    const tsr_net_tensor_t *o = &p->tensors[l->out];
    tsr_add_params_t ap;
    rc = tsr_golden_add_params((double)a->scale, a->zp, (double)b->scale, b->zp, (double)o->scale,
                               o->zp, &ap);
    ap.act_min = l->act_min;
    ap.act_max = l->act_max;
    if (rc == 0) {
      rc = tsr_golden_add(n_out, x, (const int8_t *)r->host[l->in2], &ap, g);
    }
  } else if (l->kind == TSR_NET_MUL) {
    /* The golden model's own multiplier, and its broadcasting MUL (which the HOST layer runs)
     * on the two equal shapes. */
    const tsr_net_tensor_t *a = &p->tensors[l->in], *b = &p->tensors[l->in2];
    const tsr_net_tensor_t *o = &p->tensors[l->out];
    tsr_mul_params_t mp;
    rc = tsr_golden_mul_params((double)a->scale, a->zp, (double)b->scale, b->zp, (double)o->scale,
                               o->zp, &mp);
    if (rc == 0) {
      const tsr_golden_shape4_t s = {{1u, 1u, 1u, n_out}};
      rc = tsr_golden_mul(&s, &s, x, a->zp, &s, (const int8_t *)r->host[l->in2], b->zp, mp.out_mult,
                          (int)mp.out_shift, o->zp, l->act_min, l->act_max, g);
    }
  } else if (l->kind == TSR_NET_LUT) {
    /* The program's table: what it holds is checked against TFLite Micro (make test-net-luts,
     * and every network test end to end); here the chip's MAP against the golden one. */
    tsr_golden_map((const int8_t *)(p->blob + l->param_off), n_out, x, g);
  } else if (l->kind == TSR_NET_SOFTMAX) {
    /* The golden model's own parameters, derived from the scales by separate code. */
    tsr_softmax_params_t sp;
    rc = tsr_golden_softmax_params((double)l->beta, (double)p->tensors[l->in].scale, &sp);
    if (rc == 0) {
      rc = tsr_golden_softmax(l->rows, l->len, x, &sp, g);
    }
  }
  free(im2col);
  if (rc != 0) {
    free(g);
    tsr_lib_err(r->err, r->errlen, "operator %u: the golden model rejected the layer", l->op_index);
    return TSR_BAD_ARG;
  }
  /* A tensor the stream overwrote before its end was never read back: the golden result
   * stands in for it, so that the layers after it are checked against the golden model
   * from the same input, and the stream's outputs against the whole chain. */
  const uint32_t root = p->tensors[l->out].alias;
  f->checked = !r->stale[root];
  if (f->checked) {
    f->mismatches = count_diff(y, g, n_out);
  } else {
    memcpy(r->host[root], g, n_out);
  }
  free(g);
  return TSR_OK;
}

/* Copy between a tensor's dense host copy and its storage image with a border (pixel rows
 * of W*C bytes at their place among (W + left + right)*C). */
static void border_copy(const tsr_net_tensor_t *t, uint8_t *storage, uint8_t *dense, bool to_storage) {
  const size_t c = t->shape[3];
  const size_t row = (size_t)t->shape[2] * c;
  const size_t srow = ((size_t)t->shape[2] + t->pad[2] + t->pad[3]) * c;
  const size_t simg = ((size_t)t->shape[1] + t->pad[0] + t->pad[1]) * srow;
  for (size_t b = 0; b < t->shape[0]; b++) {
    for (size_t y = 0; y < t->shape[1]; y++) {
      uint8_t *s = storage + b * simg + (y + t->pad[0]) * srow + t->pad[2] * c;
      uint8_t *d = dense + (b * t->shape[1] + y) * row;
      memcpy(to_storage ? s : d, to_storage ? d : s, row);
    }
  }
}

/* Tensor i's host copy to its device storage; with a border, the whole storage: the border
 * filled with the zero point, the interior the host copy. */
static tsr_status_t put_tensor(run_t *r, uint32_t i) {
  const tsr_net_tensor_t *t = &r->p->tensors[i];
  if (!tsr_net_padded(t)) {
    return tessera_upload(r->dev, r->base + t->dev_off, r->host[i], t->elems, "a layer input",
                          r->err, r->errlen);
  }
  const size_t n = (size_t)tsr_net_storage_bytes(t);
  uint8_t *img = malloc(n);
  if (img == NULL) {
    tsr_lib_err(r->err, r->errlen, "out of memory for a tensor's border");
    return TSR_NO_MEMORY;
  }
  memset(img, (int)(int8_t)t->zp, n);
  border_copy(t, img, r->host[i], true);
  tsr_status_t st = tessera_upload(r->dev, r->base + t->dev_off, img, n, "a layer input", r->err,
                                   r->errlen);
  free(img);
  return st;
}

/* Tensor i's device storage (its interior) into its host copy. */
static tsr_status_t get_tensor(run_t *r, uint32_t i) {
  const tsr_net_tensor_t *t = &r->p->tensors[i];
  if (!tsr_net_padded(t)) {
    return tessera_download(r->dev, r->base + t->dev_off, r->host[i], t->elems, r->err, r->errlen);
  }
  const size_t n = (size_t)tsr_net_storage_bytes(t);
  uint8_t *img = malloc(n);
  if (img == NULL) {
    tsr_lib_err(r->err, r->errlen, "out of memory for a tensor's border");
    return TSR_NO_MEMORY;
  }
  tsr_status_t st = tessera_download(r->dev, r->base + t->dev_off, img, n, r->err, r->errlen);
  if (st == TSR_OK) {
    border_copy(t, img, r->host[i], false);
  }
  free(img);
  return st;
}

/* im2col of a CONV layer's dense input in the K order of tsr_conv_geom (the golden model's
 * A): pixels outside the image are the input zero point, the segments' padding is zero. */
static int8_t *host_im2col(const tsr_net_prog_t *p, const tsr_net_layer_t *l, const int8_t *x,
                           uint32_t c0, uint32_t gc) {
  const tsr_net_tensor_t *t = &p->tensors[l->in];
  const tsr_net_tensor_t *y = &p->tensors[l->out];
  const uint32_t ih = t->shape[1], iw = t->shape[2], ic = t->shape[3];
  const uint32_t oh = y->shape[1], ow = y->shape[2];
  const bool per_kh = (l->dil_w == 1u || l->kw == 1u) && l->kind == TSR_NET_CONV;
  const uint32_t seg_bytes = per_kh ? l->kw * gc : gc;
  const uint32_t segs = per_kh ? l->kh : l->kh * l->kw;
  const uint32_t seg_pad = l->k / segs;
  int8_t *a = calloc((size_t)l->m, l->k);
  if (a == NULL) {
    return NULL;
  }
  for (uint32_t m = 0; m < l->m; m++) {
    const uint32_t b = m / (oh * ow), oy = m / ow % oh, ox = m % ow;
    for (uint32_t s = 0; s < segs; s++) {
      for (uint32_t o = 0; o < seg_bytes; o++) {
        const uint32_t ky = per_kh ? s : s / l->kw;
        const uint32_t kx = per_kh ? o / gc : s % l->kw;
        const uint32_t ch = c0 + (per_kh ? o % gc : o);
        const int64_t yy = (int64_t)oy * l->stride_h + (int64_t)ky * l->dil_h - l->pad_t;
        const int64_t xx = (int64_t)ox * l->stride_w + (int64_t)kx * l->dil_w - l->pad_l;
        const bool in = yy >= 0 && yy < ih && xx >= 0 && xx < iw;
        a[(size_t)m * l->k + (size_t)s * seg_pad + o] =
            in ? x[(((size_t)b * ih + (size_t)yy) * iw + (size_t)xx) * ic + ch] : (int8_t)t->zp;
      }
    }
  }
  return a;
}

/* The golden model of a DWCONV layer: each channel group's GEMM from its own im2col, its
 * output channels put in place; 0, or -1 (out of memory or a rejected layer). */
static int golden_dwconv(const tsr_net_prog_t *p, const tsr_net_layer_t *l, const int8_t *x,
                         int8_t *g) {
  const uint32_t ic = p->tensors[l->in].shape[3];
  const uint32_t oc = ic * l->depth_mult;
  int8_t *part = malloc((size_t)l->m * l->n);
  int rc = part == NULL ? -1 : 0;
  for (uint32_t c0 = 0; c0 < ic && rc == 0; c0 += l->group_c) {
    const uint32_t gc = ic - c0 < l->group_c ? ic - c0 : l->group_c;
    const uint32_t n = gc * l->depth_mult, o0 = c0 * l->depth_mult;
    int8_t *a = host_im2col(p, l, x, c0, gc);
    if (a == NULL) {
      rc = -1;
      break;
    }
    tsr_gemm_params_t gp;
    memset(&gp, 0, sizeof gp);
    gp.bias = (const int32_t *)(const void *)(p->blob + l->bias_off) + o0;
    gp.requant = 1;
    gp.mult = l->per_channel ? (const int32_t *)(const void *)(p->blob + l->mult_off) + o0 : NULL;
    gp.shift = l->per_channel ? (const int32_t *)(const void *)(p->blob + l->shift_off) + o0 : NULL;
    gp.mult_scalar = l->mult;
    gp.shift_scalar = l->shift;
    gp.out_zp = l->out_zp;
    gp.act_min = l->act_min;
    gp.act_max = l->act_max;
    const int8_t *b = (const int8_t *)(p->blob + l->b_off) + (size_t)(c0 / l->group_c) * l->k * l->n;
    rc = tsr_golden_gemm(l->m, l->k, n, a, l->k, b, l->n, &gp, NULL, part);
    for (uint32_t m = 0; m < l->m && rc == 0; m++) {
      memcpy(g + (size_t)m * oc + o0, part + (size_t)m * n, n);
    }
    free(a);
  }
  free(part);
  return rc;
}

/* The outputs of the chip layers [from, to] into their host copies: those still in the arena
 * after layer `to`, which a later layer or the host reads; the storage of the others may hold
 * another tensor by now (tsr_net_lifetime). */
static tsr_status_t download_outputs(run_t *r, uint32_t from, uint32_t to) {
  tsr_status_t st = TSR_OK;
  for (uint32_t li = from; li <= to && st == TSR_OK; li++) {
    const tsr_net_layer_t *l = &r->p->layers[li];
    const uint32_t root = r->p->tensors[l->out].alias;
    uint32_t first, last;
    tsr_net_lifetime(r->p, root, &first, &last);
    if (tsr_net_kind_on_chip(l->kind)) {
      r->on_dev[root] = last > to;
      r->stale[root] = last <= to;
      st = last > to ? get_tensor(r, root) : TSR_OK;
    }
  }
  return st;
}

/* Layers [from, to] on the chip as one command stream: each chip layer's captured commands,
 * relocated to the arena, a FENCE between two layers, into one command ring; one wait. */
static tsr_status_t chip_run(run_t *r, uint32_t from, uint32_t to, tessera_figures_t *fig) {
  const tsr_net_prog_t *p = r->p;
  tessera_dev_t *d = r->dev;
  const tsr_net_layer_t *first = &p->layers[from];
  tsr_status_t st;
  /* Every input the device does not hold and no earlier layer of the stream computes: the
   * graph input, a host QUANTIZE's output. */
  for (uint32_t li = from; li <= to; li++) {
    const tsr_net_layer_t *l = &p->layers[li];
    /* A RESHAPE reads nothing (its output is its input's storage); a FUSED layer's input
     * does not exist (its producer applied the table). */
    const uint32_t ins = !tsr_net_kind_on_chip(l->kind) ? 0u
                         : tsr_net_eltwise(l->kind) || l->kind == TSR_NET_BMM ? 2u : 1u;
    for (uint32_t k = 0; k < ins; k++) {
      const uint32_t root = p->tensors[k == 0u ? l->in : l->in2].alias;
      bool made = false;
      for (uint32_t j = from; j < li; j++) {
        made = made || (tsr_net_kind_on_chip(p->layers[j].kind) && p->tensors[p->layers[j].out].alias == root);
      }
      if (!made && !r->on_dev[root]) {
        if ((st = put_tensor(r, root)) != TSR_OK) {
          return st;
        }
        r->on_dev[root] = true;
      }
    }
  }
  if (d->soc != NULL) {
    /* The firmware on the SoC's core relocates and submits them (tsr_lib_soc.c). */
    if ((st = tsr_lib_soc_stream(d, p, from, to, r->base, fig, r->err, r->errlen)) != TSR_OK) {
      return st;
    }
    return download_outputs(r, from, to);
  }
  uint64_t cmds = 0;
  for (uint32_t i = from; i <= to; i++) {
    cmds += p->layers[i].cmd_count + 1u;
  }
  if ((st = tsr_lib_begin(d, r->base + p->arena_bytes, cmds, r->err, r->errlen)) != TSR_OK) {
    return st;
  }
  /* The LOADs and STOREs may touch the arena and nothing else (and the chip fetches its
   * ring): a command that reaches past it stops with DMA_WINDOW. */
  uint64_t limit = r->base + p->arena_bytes - 1u;
  if (d->dev.path != NULL && (uint64_t)d->ring.base + d->ring.size - 1u > limit) {
    limit = (uint64_t)d->ring.base + d->ring.size - 1u;
  }
  if ((st = tsr_set_dma_window(&d->dev, (uint32_t)r->base, (uint32_t)limit, false)) != TSR_OK) {
    tsr_lib_dev_err(d, "setting the DMA window around the arena: ", r->err, r->errlen);
    return st;
  }
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const uint64_t cyc0 = tsr_hal_cycles(&d->hal);
  bool fence = false;
  for (uint32_t li = from; li <= to && st == TSR_OK; li++) {
    const tsr_net_layer_t *l = &p->layers[li];
    for (uint32_t i = 0; i < l->cmd_count && st == TSR_OK; i++) {
      tsr_cmd_t c;
      if (fence) {
        /* Every command of the layers before has retired: their outputs are in memory. */
        fence = false;
        if ((st = tsr_cmd_fence(&d->dev, false, &c)) != TSR_OK ||
            (st = tsr_submit(&d->dev, &c)) != TSR_OK) {
          break;
        }
      }
      tsr_net_relocate(&p->cmds[l->cmd_first + i], p->cmd_base, (uint32_t)r->base, &c);
      st = tsr_submit(&d->dev, &c);
    }
    fence = fence || l->cmd_count != 0u;
  }
  if (st == TSR_OK) {
    st = tsr_wait(&d->dev, TSR_WAIT_IRQ, 0u);
  }
  if (st != TSR_OK) {
    char pre[64];
    snprintf(pre, sizeof pre, "operators %u..%u: ", first->op_index, p->layers[to].op_index);
    if (from == to) {
      snprintf(pre, sizeof pre, "operator %u: ", first->op_index);
    }
    tsr_lib_dev_err(d, pre, r->err, r->errlen);
    return st;
  }
  if ((st = tsr_lib_end(d, &t0, cyc0, fig, r->err, r->errlen)) != TSR_OK) {
    return st;
  }
  if ((st = tsr_set_dma_window(&d->dev, 0u, 0xffffffffu, false)) != TSR_OK) {
    tsr_lib_dev_err(d, "opening the DMA window again: ", r->err, r->errlen);
    return st;
  }
  return download_outputs(r, from, to);
}

/* The last layer of the chip segment that starts at layer `from`: up to the last chip layer,
 * unless a host layer that computes (QUANTIZE, DEQUANTIZE) comes between. */
static uint32_t segment_end(const tsr_net_prog_t *p, uint32_t from) {
  uint32_t end = from;
  for (uint32_t i = from + 1u; i < p->n_layers; i++) {
    const uint32_t k = p->layers[i].kind;
    if (k == TSR_NET_QUANTIZE || k == TSR_NET_DEQUANTIZE || k == TSR_NET_HOST) {
      break;
    }
    if (tsr_net_kind_on_chip(k)) {
      end = i;
    }
  }
  return end;
}

/* The core's side of one more stream (--hal soc) into the run's sum. */
static void add_core(tessera_core_figures_t *sum, const tessera_core_figures_t *c) {
  if (!c->valid) {
    return;
  }
  sum->valid = true;
  sum->soc_cycles += c->soc_cycles;
  sum->plan_cycles += c->plan_cycles;
  sum->plan_instret += c->plan_instret;
  sum->run_cycles += c->run_cycles;
  sum->run_instret += c->run_instret;
  sum->submit_cycles += c->submit_cycles;
  sum->chip_irqs += c->chip_irqs;
  sum->ring_flushes += c->ring_flushes;
  sum->code_bytes = c->code_bytes;
}

static tsr_status_t run_layers(run_t *r, bool check, bool per_layer, tessera_net_result_t *res) {
  const tsr_net_prog_t *p = r->p;
  for (uint32_t i = 0; i < p->n_layers; i++) {
    const tsr_net_layer_t *l = &p->layers[i];
    tessera_net_layer_fig_t *f = &res->layers[i];
    f->op_index = l->op_index;
    f->kind = l->kind;
    f->on_chip = tsr_net_kind_on_chip(l->kind);
    tsr_status_t st = TSR_OK;
    if (f->on_chip) {
      const uint32_t to = per_layer ? i : segment_end(p, i);
      tessera_figures_t fig;
      memset(&fig, 0, sizeof fig);
      st = chip_run(r, i, to, &fig);
      for (uint32_t j = i; j <= to && st == TSR_OK; j++) {
        tessera_net_layer_fig_t *g = &res->layers[j];
        g->op_index = p->layers[j].op_index;
        g->kind = p->layers[j].kind;
        g->on_chip = tsr_net_kind_on_chip(g->kind);
        g->measured = per_layer;
        g->cnt.cmds = p->layers[j].cmd_count;
        const uint32_t root = p->tensors[p->layers[j].out].alias;
        if (per_layer && g->on_chip && !r->stale[root]) { /* a copy of what the chip wrote */
          g->out_bytes = (size_t)p->tensors[root].elems;
          if ((g->out = malloc(g->out_bytes)) == NULL) {
            tsr_lib_err(r->err, r->errlen, "out of memory for a layer's output");
            return TSR_NO_MEMORY;
          }
          memcpy(g->out, r->host[root], g->out_bytes);
        }
        if (g->on_chip && check) {
          st = check_layer(r, &p->layers[j], g);
        }
        res->mismatches += g->mismatches;
      }
      if (st != TSR_OK) {
        return st;
      }
      if (per_layer) {
        f->cnt = fig.cnt;
        f->host_reg_accesses = fig.host_reg_accesses;
        f->wall_seconds = fig.wall_seconds;
      }
      f->streamed = fig.streamed;
      res->stream = fig;
      res->cycles += fig.cnt.cycles;
      res->cmds += fig.cnt.cmds;
      res->macs += fig.cnt.macs;
      res->dma_rd += fig.cnt.dma_rd;
      res->dma_wr += fig.cnt.dma_wr;
      res->wall_seconds += fig.wall_seconds;
      res->host_reg_accesses += fig.host_reg_accesses;
      res->busy += fig.cnt.busy;
      add_core(&res->core, &fig.core);
      res->streams++;
      i = to;
      continue;
    }
    switch (l->kind) {
      case TSR_NET_QUANTIZE:
        r->on_dev[p->tensors[l->out].alias] = false;
        host_quantize(&p->tensors[l->out], (const float *)(const void *)r->host[l->in],
                      (int8_t *)r->host[l->out]);
        break;
      case TSR_NET_DEQUANTIZE:
        host_dequantize(&p->tensors[l->in], (const int8_t *)r->host[l->in],
                        (float *)(void *)r->host[l->out]);
        break;
      case TSR_NET_HOST: {
        const tsr_status_t hst = host_layer(r, l);
        if (hst != TSR_OK) {
          return hst;
        }
        break;
      }
      default: /* RESHAPE: the output is the input's storage */
        break;
    }
  }
  res->checked = check;
  return TSR_OK;
}

tsr_status_t tessera_net_run(tessera_dev_t *dev, const tsr_net_prog_t *p, const void *in,
                             size_t in_bytes, void *out, size_t out_bytes, bool check,
                             bool per_layer, tessera_net_result_t *res, char *err, size_t errlen) {
  if (dev == NULL || p == NULL || in == NULL || out == NULL || res == NULL) {
    tsr_lib_err(err, errlen, "tessera_net_run: no device, program, input, output or result");
    return TSR_BAD_ARG;
  }
  memset(res, 0, sizeof *res);
  const tsr_net_tensor_t *ti = &p->tensors[p->input];
  const tsr_net_tensor_t *to = &p->tensors[p->output];
  const size_t need_in = (size_t)ti->elems * tsr_net_elem_bytes(ti);
  const size_t need_out = (size_t)to->elems * tsr_net_elem_bytes(to);
  if (in_bytes != need_in || out_bytes != need_out) {
    tsr_lib_err(err, errlen, "the input has %zu bytes and the output room %zu; the model takes %zu"
                " and gives %zu", in_bytes, out_bytes, need_in, need_out);
    return TSR_BAD_ARG;
  }
  const uint64_t need = tsr_net_mem_bytes(p);
  if (dev->mem_bytes != 0u && dev->mem_bytes < need) {
    tsr_lib_err(err, errlen, "the program needs %" PRIu64 " bytes of device memory; the device has %"
                PRIu64, need, dev->mem_bytes);
    return TSR_BAD_ARG;
  }
  if (!tsr_net_target_matches(p, &dev->dev.info, err, errlen)) {
    return TSR_UNSUPPORTED;
  }
  run_t r = {dev, p, TSR_NET_RUN_BASE, NULL, NULL, NULL, err, errlen};
  r.host = calloc(p->n_tensors, sizeof *r.host);
  r.on_dev = calloc(p->n_tensors, sizeof *r.on_dev);
  r.stale = calloc(p->n_tensors, sizeof *r.stale);
  res->layers = calloc(p->n_layers + 1u, sizeof *res->layers);
  tsr_status_t st = TSR_OK;
  for (uint32_t i = 0; r.host != NULL && i < p->n_tensors && st == TSR_OK; i++) {
    const tsr_net_tensor_t *t = &p->tensors[i];
    if (t->alias == i && (r.host[i] = calloc(t->elems, tsr_net_elem_bytes(t))) == NULL) {
      st = TSR_NO_MEMORY;
    }
  }
  if (r.host == NULL || r.on_dev == NULL || r.stale == NULL || res->layers == NULL || st != TSR_OK) {
    tsr_lib_err(err, errlen, "out of memory");
    st = TSR_NO_MEMORY;
    goto out;
  }
  res->n_layers = p->n_layers;
  for (uint32_t i = 0; i < p->n_tensors; i++) {
    r.host[i] = r.host[p->tensors[i].alias];
  }
  memcpy(r.host[p->input], in, need_in);
  /* The weights once: the blob at the arena's start; and every border once, with the zero
   * point (a chip layer stores only into its output's interior). */
  st = tessera_upload(dev, r.base, p->blob, p->blob_bytes, "the weights", err, errlen);
  for (uint32_t i = 0; i < p->n_tensors && st == TSR_OK; i++) {
    if (tsr_net_padded(&p->tensors[i])) {
      st = put_tensor(&r, i);
    }
  }
  if (st == TSR_OK &&
      (st = run_layers(&r, check, per_layer, res)) == TSR_OK) {
    memcpy(out, r.host[p->output], need_out);
  } else {
    tsr_set_dma_window(&dev->dev, 0u, 0xffffffffu, false); /* the window of a failed layer */
  }
out:
  if (r.host != NULL) {
    for (uint32_t i = 0; i < p->n_tensors; i++) {
      if (p->tensors[i].alias == i) {
        free(r.host[i]);
      }
    }
    free(r.host);
  }
  free(r.on_dev);
  free(r.stale);
  if (st != TSR_OK) {
    tessera_net_result_free(res);
  }
  return st;
}
