/* tsr_net_capture.c: run the firmware's tilers at compile time against a backend that records the commands instead of sending them. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_conv.h"
#include "tsr_lib_internal.h"
#include "tsr_net_prog.h"
#include "tsr_sfu.h"

/*
 * The capture device is an ordinary tsr_dev_t whose HAL reads every register
 * as 0 (STATUS: idle, no error) and drops every write, and whose submission
 * path (the seam the command ring uses, tsr_submit_path_t) appends each
 * command to a growing array. tsr_gemm_run and tsr_sfu_run run unchanged on
 * it: they plan for the target's configuration, emit their commands through
 * tsr_submit and "wait" on an engine that is always idle. Addresses are those
 * of the arena at TSR_NET_CAPTURE_BASE; the runtime relocates the LOAD and
 * STORE addresses to wherever it puts the arena.
 */

typedef struct capture {
  tsr_cmd_t *cmds;
  uint32_t n, cap;
  bool oom;
  bool full; /* the program reached TSR_NET_MAX_CMDS */
} capture_t;

static tsr_status_t cap_read32(void *ctx, uint32_t off, uint32_t *val) {
  (void)ctx;
  (void)off;
  *val = 0u;
  return TSR_OK;
}

static tsr_status_t cap_write32(void *ctx, uint32_t off, uint32_t val) {
  (void)ctx;
  (void)off;
  (void)val;
  return TSR_OK;
}

static const tsr_hal_ops_t k_capture_ops = {"capture", cap_read32, cap_write32, NULL, NULL,
                                            NULL,      NULL,       NULL};

static tsr_status_t cap_submit(tsr_dev_t *dev, const tsr_cmd_t *cmd) {
  capture_t *c = dev->path_ctx;
  if (c->n == TSR_NET_MAX_CMDS) {
    c->full = true;
    return TSR_UNSUPPORTED;
  }
  if (c->n == c->cap) {
    const uint32_t cap = c->cap ? 2u * c->cap : 64u;
    tsr_cmd_t *nc = realloc(c->cmds, (cap < TSR_NET_MAX_CMDS ? cap : TSR_NET_MAX_CMDS) * sizeof *nc);
    if (nc == NULL) {
      c->oom = true;
      return TSR_NO_MEMORY;
    }
    c->cmds = nc;
    c->cap = cap < TSR_NET_MAX_CMDS ? cap : TSR_NET_MAX_CMDS;
  }
  c->cmds[c->n++] = *cmd;
  return TSR_OK;
}

static tsr_status_t cap_flush(tsr_dev_t *dev) {
  (void)dev;
  return TSR_OK;
}

static void cap_reset(tsr_dev_t *dev) { (void)dev; }

static const tsr_submit_path_t k_capture_path = {cap_submit, cap_flush, cap_reset};

void tsr_net_default_target(uint32_t dim, tsr_dev_info_t *t) {
  /* rtl/tsr_top.v's defaults, which the simulator builds keep (make sim DIM=N). */
  memset(t, 0, sizeof *t);
  t->dim = dim;
  t->axi_bytes = 8u;
  t->cmdq_depth = 16u;
  t->spad_rows = 4096u;
  t->acc_rows = 1024u;
  t->has_sfu = true;
  t->store_lanes = dim;
}

/* The descriptors of a chip layer, at the capture base. */
static void layer_gemm_desc(const tsr_net_prog_t *p, const tsr_net_layer_t *l, uint32_t base,
                            tsr_gemm_desc_t *d) {
  memset(d, 0, sizeof *d);
  d->m = l->m;
  d->k = l->k;
  d->n = l->n;
  d->a_addr = base + p->tensors[l->in].dev_off;
  d->lda = l->k;
  d->b_addr = base + l->b_off;
  d->ldb = l->n;
  d->c_addr = base + p->tensors[l->out].dev_off;
  d->ldc = l->n;
  d->has_bias = true;
  d->bias_addr = base + l->bias_off;
  d->requant = true;
  d->per_channel = l->per_channel != 0u;
  d->mult_addr = base + l->mult_off;
  d->shift_addr = base + l->shift_off;
  d->mult = l->mult;
  d->shift = l->shift;
  d->out_zp = l->out_zp;
  d->act_min = l->act_min;
  d->act_max = l->act_max;
  d->has_lut = l->lut != 0u; /* a fused LOGISTIC, TANH, ...: the table in every STORE */
  d->lut_addr = base + l->param_off;
}

/* A CONV layer's descriptor: its GEMM's B and quantization, and the tensors' geometry with
 * their borders. */
static void layer_conv_desc(const tsr_net_prog_t *p, const tsr_net_layer_t *l, uint32_t base,
                            tsr_conv_desc_t *d) {
  const tsr_net_tensor_t *x = &p->tensors[l->in];
  const tsr_net_tensor_t *y = &p->tensors[l->out];
  memset(d, 0, sizeof *d);
  layer_gemm_desc(p, l, base, &d->gemm);
  d->batch = x->shape[0];
  d->in_h = x->shape[1];
  d->in_w = x->shape[2];
  d->in_c = x->shape[3];
  d->in_addr = base + x->dev_off + (uint32_t)tsr_net_interior_off(x);
  d->in_row = (x->shape[2] + x->pad[2] + x->pad[3]) * x->shape[3];
  d->in_img = (x->shape[1] + x->pad[0] + x->pad[1]) * d->in_row;
  d->out_h = y->shape[1];
  d->out_w = y->shape[2];
  d->out_c = y->shape[3];
  d->out_addr = base + y->dev_off + (uint32_t)tsr_net_interior_off(y);
  d->out_row = (y->shape[2] + y->pad[2] + y->pad[3]) * y->shape[3];
  d->out_img = (y->shape[1] + y->pad[0] + y->pad[1]) * d->out_row;
  d->kh = l->kh;
  d->kw = l->kw;
  d->stride_h = l->stride_h;
  d->stride_w = l->stride_w;
  d->dil_h = l->dil_h;
  d->dil_w = l->dil_w;
  d->pad_t = l->pad_t;
  d->pad_l = l->pad_l;
}

/* Whether every weight of a DWCONV layer is one value w and N bytes of w follow its B (the
 * compiler writes them for a pool's or a mean's window sum): tsr_dw_run may then sum the
 * window with that row as A. */
static bool window_ones(const tsr_net_prog_t *p, const tsr_net_layer_t *l, uint32_t groups) {
  const uint32_t dim = p->target.dim;
  const uint32_t ic = p->tensors[l->in].shape[3];
  const uint64_t kn = (uint64_t)groups * l->k * l->n;
  if (l->depth_mult != 1u || l->k % dim != 0u || (uint64_t)l->b_off + kn + dim > p->blob_bytes) {
    return false;
  }
  const int8_t *b = (const int8_t *)(p->blob + l->b_off);
  const int8_t w = b[kn];
  for (uint32_t i = 0; i < dim; i++) {
    if (b[kn + i] != w) {
      return false;
    }
  }
  for (uint32_t c = 0; c < ic; c++) {
    const uint32_t g = c / l->group_c, cl = c % l->group_c;
    for (uint32_t tap = 0; tap < l->k / dim; tap++) {
      if (b[((uint64_t)g * l->k + (uint64_t)tap * dim + cl) * l->n + cl] != w) {
        return false;
      }
    }
  }
  return true;
}

/* A DWCONV layer: one convolution per channel group (group_c input channels of pixels in_c
 * apart, group_c * depth_mult output channels), a FENCE between two. */
static tsr_status_t capture_dwconv(tsr_dev_t *dev, const tsr_net_prog_t *p,
                                   const tsr_net_layer_t *l, uint32_t base, const char **why) {
  const uint32_t ic = p->tensors[l->in].shape[3];
  const uint32_t groups = (ic + l->group_c - 1u) / l->group_c;
  /* Every group in one job with shifted rows where that path takes the layer. */
  tsr_dw_desc_t dw;
  tsr_dw_plan_t dwp;
  memset(&dw, 0, sizeof dw);
  layer_conv_desc(p, l, base, &dw.c);
  dw.group_c = l->group_c;
  dw.depth_mult = l->depth_mult;
  dw.ones_addr = window_ones(p, l, groups) ? base + l->b_off + (uint32_t)(groups * l->k * l->n) : 0u;
  if (tsr_dw_plan(&dev->info, &dw, &dwp)) {
    return tsr_dw_run(dev, &dw, &dwp);
  }
  tsr_status_t st = TSR_OK;
  for (uint32_t g = 0; g < groups && st == TSR_OK; g++) {
    const uint32_t c0 = g * l->group_c;
    const uint32_t gc = ic - c0 < l->group_c ? ic - c0 : l->group_c;
    const uint32_t o0 = c0 * l->depth_mult;
    tsr_conv_desc_t d;
    tsr_gemm_plan_t plan;
    layer_conv_desc(p, l, base, &d);
    d.in_c = gc;
    d.in_pix = ic;
    d.in_addr += c0;
    d.out_c = gc * l->depth_mult;
    d.out_pix = ic * l->depth_mult;
    d.out_addr += o0;
    d.gemm.b_addr = base + l->b_off + g * l->k * l->n;
    d.gemm.ldb = l->n;
    d.gemm.bias_addr += 4u * o0;
    d.gemm.mult_addr += 4u * o0;
    d.gemm.shift_addr += 4u * o0;
    if (g != 0u) {
      tsr_cmd_t fence;
      if ((st = tsr_cmd_fence(dev, false, &fence)) != TSR_OK ||
          (st = tsr_submit(dev, &fence)) != TSR_OK) {
        break;
      }
    }
    if ((st = tsr_conv_plan(&dev->info, &d, &plan, why)) == TSR_OK) {
      st = tsr_conv_run(dev, &d, &plan);
    }
  }
  return st;
}

/* SOFTMAX, ADD and MUL: their parameter blocks (ADD and MUL their second input too); LUT: MAP
 * through its table. */
static void layer_sfu_desc(const tsr_net_prog_t *p, const tsr_net_layer_t *l, uint32_t base,
                           tsr_sfu_desc_t *d) {
  memset(d, 0, sizeof *d);
  d->rows = l->rows;
  d->len = l->len;
  d->in_addr = base + p->tensors[l->in].dev_off;
  d->out_addr = base + p->tensors[l->out].dev_off;
  if (l->kind == TSR_NET_LUT) {
    d->func = TSR_FUNC_MAP;
    d->has_lut = true;
    d->lut_addr = base + l->param_off;
  } else {
    d->func = l->kind == TSR_NET_ADD   ? TSR_FUNC_ADD
              : l->kind == TSR_NET_MUL ? TSR_FUNC_MUL
                                       : TSR_FUNC_SOFTMAX;
    d->param_addr = base + l->param_off;
    if (tsr_net_eltwise(l->kind)) {
      d->in2_addr = base + p->tensors[l->in2].dev_off;
    }
  }
}

/* An ADD or MUL one of whose tensors has a border: its rows are not one dense block. */
static bool add_by_rows(const tsr_net_prog_t *p, const tsr_net_layer_t *l) {
  return tsr_net_padded(&p->tensors[l->in]) || tsr_net_padded(&p->tensors[l->in2]) ||
         tsr_net_padded(&p->tensors[l->out]);
}

/* Bytes from one pixel row of an NHWC tensor's storage to the next (its border included). */
static uint32_t row_pitch(const tsr_net_tensor_t *t) {
  return (t->shape[2] + t->pad[2] + t->pad[3]) * t->shape[3];
}

/* The address of pixel row (b, y) of an NHWC tensor's interior. */
static uint32_t row_addr(const tsr_net_tensor_t *t, uint32_t base, uint32_t b, uint32_t y) {
  const uint32_t img = (t->shape[1] + t->pad[0] + t->pad[1]) * row_pitch(t);
  return base + t->dev_off + (uint32_t)tsr_net_interior_off(t) + b * img + y * row_pitch(t);
}

/* Such an ADD or MUL as one SFU job per image whose pixel rows (W x C elements) are segments,
 * each tensor with its own pitch; a FENCE between two images. Where a pixel row is not a whole
 * number of rows of N, one job per pixel row. */
static tsr_status_t capture_add_rows(tsr_dev_t *dev, const tsr_net_prog_t *p,
                                     const tsr_net_layer_t *l, uint32_t base, const char **why) {
  const tsr_net_tensor_t *a = &p->tensors[l->in];
  const tsr_net_tensor_t *b2 = &p->tensors[l->in2];
  const tsr_net_tensor_t *y = &p->tensors[l->out];
  if (!dev->info.has_sfu) {
    *why = "the target has no SFU (CONFIG.SFU = 0)";
    return TSR_UNSUPPORTED;
  }
  tsr_status_t st = TSR_OK;
  const uint32_t row = y->shape[2] * y->shape[3];
  const bool whole = row % dev->info.dim == 0u; /* one job per image */
  for (uint32_t b = 0; b < y->shape[0] && st == TSR_OK; b++) {
    for (uint32_t r = 0; r < (whole ? 1u : y->shape[1]) && st == TSR_OK; r++) {
      tsr_sfu_desc_t d;
      tsr_sfu_plan_t plan;
      memset(&d, 0, sizeof d);
      d.func = l->kind == TSR_NET_MUL ? TSR_FUNC_MUL : TSR_FUNC_ADD;
      d.rows = whole ? y->shape[1] : 1u;
      d.len = row;
      d.in_addr = row_addr(a, base, b, r);
      d.in2_addr = row_addr(b2, base, b, r);
      d.param_addr = base + l->param_off;
      d.out_addr = row_addr(y, base, b, r);
      if (whole) {
        d.seg_rows = 1u;
        d.in_pitch = row_pitch(a);
        d.in2_pitch = row_pitch(b2);
        d.out_pitch = row_pitch(y);
      }
      tsr_sfu_desc_flatten(&d, dev->info.dim);
      if (b != 0u || r != 0u) {
        tsr_cmd_t fence;
        if ((st = tsr_cmd_fence(dev, false, &fence)) != TSR_OK ||
            (st = tsr_submit(dev, &fence)) != TSR_OK) {
          break;
        }
      }
      if ((st = tsr_sfu_plan(&dev->info, &d, &plan, why)) == TSR_OK) {
        st = tsr_sfu_run(dev, &d, &plan);
      }
    }
  }
  return st;
}

/* A COPY layer: the output (dense, in order) with the input's strides permuted. */
static tsr_status_t capture_copy(tsr_dev_t *dev, const tsr_net_prog_t *p, const tsr_net_layer_t *l,
                                 uint32_t base) {
  const tsr_net_tensor_t *x = &p->tensors[l->in];
  const tsr_net_tensor_t *y = &p->tensors[l->out];
  uint32_t xs[TSR_NET_MAX_RANK];
  uint32_t s = 1u;
  for (uint32_t d = x->rank; d-- > 0u;) {
    xs[d] = s;
    s *= x->shape[d];
  }
  tsr_copy_desc_t d;
  memset(&d, 0, sizeof d);
  const uint32_t lead = 4u - y->rank;
  for (uint32_t i = 0; i < 4u; i++) {
    d.dims[i] = i < lead ? 1u : y->shape[i - lead];
    d.in_stride[i] = i < lead ? 0u : xs[(l->perm >> (8u * (i - lead))) & 0xffu];
  }
  d.in_addr = base + x->dev_off;
  d.out_addr = base + y->dev_off;
  if (l->n != 0u) { /* a CONCATENATION's input: rows x len bytes into a slice of the output */
    memset(&d, 0, sizeof d);
    d.dims[0] = d.dims[1] = 1u;
    d.dims[2] = l->rows;
    d.dims[3] = l->len;
    d.in_stride[2] = l->len;
    d.in_stride[3] = 1u;
    d.in_addr = base + x->dev_off;
    d.out_addr = base + y->dev_off + l->k;
    d.out_row = l->n;
  }
  return tsr_copy_run(dev, &d);
}

static tsr_status_t submit_fence(tsr_dev_t *dev) {
  tsr_cmd_t fence;
  tsr_status_t st = tsr_cmd_fence(dev, false, &fence);
  return st == TSR_OK ? tsr_submit(dev, &fence) : st;
}

static tsr_status_t plan_and_run_gemm(tsr_dev_t *dev, const tsr_gemm_desc_t *d, const char **why) {
  tsr_gemm_plan_t plan;
  tsr_status_t st = tsr_gemm_plan(&dev->info, d, &plan);
  if (st != TSR_OK) {
    tsr_gemm_check_desc(d, why);
    return st;
  }
  return tsr_gemm_run(dev, d, &plan, NULL, NULL);
}

/* A BMM layer: per output batch, with a_zp != 0 the bias -a_zp * colsum(B_b) as raw int32 into
 * the scratch tensor (one or two GEMMs of m = 1), then the GEMM A_b x B_b; a FENCE between two. */
static tsr_status_t capture_bmm(tsr_dev_t *dev, const tsr_net_prog_t *p, const tsr_net_layer_t *l,
                                uint32_t base, const char **why) {
  const tsr_net_tensor_t *x = &p->tensors[l->in];
  const tsr_net_tensor_t *w = &p->tensors[l->in2];
  const tsr_net_tensor_t *y = &p->tensors[l->out];
  const uint32_t batches = tsr_net_bmm_batches(y);
  const uint32_t scratch = base + p->tensors[l->in3].dev_off;
  const bool two = -l->a_zp > 127;
  tsr_status_t st = TSR_OK;
  for (uint32_t bi = 0; bi < batches && st == TSR_OK; bi++) {
    const uint32_t b_addr = base + w->dev_off + tsr_net_bmm_operand_batch(y, w, bi) * l->k * l->n;
    if (bi != 0u) {
      st = submit_fence(dev);
    }
    tsr_gemm_desc_t d;
    if (st == TSR_OK && l->a_zp != 0) {
      /* colsum: the row of min(-a_zp, 127) (then the row of ones, onto the first result). */
      for (uint32_t step = 0; step < (two ? 2u : 1u) && st == TSR_OK; step++) {
        memset(&d, 0, sizeof d);
        d.m = 1u;
        d.k = l->k;
        d.n = l->n;
        d.a_addr = base + l->param_off + step * l->k;
        d.lda = l->k;
        d.b_addr = b_addr;
        d.ldb = l->n;
        d.c_addr = two && step == 0u ? scratch + 4u * l->n : scratch;
        d.ldc = 4u * l->n;
        d.has_bias = step == 1u;
        d.bias_addr = scratch + 4u * l->n;
        if (step == 1u && (st = submit_fence(dev)) != TSR_OK) {
          break;
        }
        st = plan_and_run_gemm(dev, &d, why);
      }
      if (st == TSR_OK) {
        st = submit_fence(dev);
      }
    }
    if (st != TSR_OK) {
      break;
    }
    memset(&d, 0, sizeof d);
    d.m = l->m;
    d.k = l->k;
    d.n = l->n;
    d.a_addr = base + x->dev_off + tsr_net_bmm_operand_batch(y, x, bi) * l->m * l->k;
    d.lda = l->k;
    d.b_addr = b_addr;
    d.ldb = l->n;
    d.c_addr = base + y->dev_off + bi * l->m * l->n;
    d.ldc = l->n;
    d.has_bias = true;
    d.bias_addr = l->a_zp != 0 ? scratch : base + l->bias_off;
    d.requant = true;
    d.mult = l->mult;
    d.shift = l->shift;
    d.out_zp = l->out_zp;
    d.act_min = l->act_min;
    d.act_max = l->act_max;
    st = plan_and_run_gemm(dev, &d, why);
  }
  return st;
}

/* A MAXPOOL layer: every window gathered into a row of the scratch (-128 first where a tap can
 * fall outside the image), with a fused activation a MAP of the windows through the clamp table
 * (a clamp is monotonic: the maximum of the clamped taps is the clamped maximum), one SFU REDUCE
 * (the int32 maximum of each row), and the maxima's low bytes copied into the output. The input
 * and the output may have borders (their storage strides). */
static tsr_status_t capture_maxpool(tsr_dev_t *dev, const tsr_net_prog_t *p, const tsr_net_layer_t *l,
                                    uint32_t base, const char **why) {
  const tsr_net_tensor_t *x = &p->tensors[l->in];
  const tsr_net_tensor_t *y = &p->tensors[l->out];
  const uint32_t B = x->shape[0], H = x->shape[1], W = x->shape[2], C = x->shape[3];
  const uint32_t OH = y->shape[1], OW = y->shape[2], T = l->len;
  const uint32_t x_row = (W + x->pad[2] + x->pad[3]) * C, x_img = (H + x->pad[0] + x->pad[1]) * x_row;
  const uint32_t y_row = (OW + y->pad[2] + y->pad[3]) * C, y_img = (OH + y->pad[0] + y->pad[1]) * y_row;
  const uint32_t x0 = base + x->dev_off + (uint32_t)tsr_net_interior_off(x);
  const uint32_t g = base + p->tensors[l->in3].dev_off;
  const uint32_t red = g + tsr_net_maxpool_red_off(l);
  if (!dev->info.has_sfu) {
    *why = "the target has no SFU (CONFIG.SFU = 0)";
    return TSR_UNSUPPORTED;
  }
  tsr_status_t st = TSR_OK;
  /* Some window reaches outside the image: every tap starts at -128. */
  const bool outside = l->pad_t > 0u || l->pad_l > 0u ||
                       (OH - 1u) * l->stride_h + l->kh > H + l->pad_t ||
                       (OW - 1u) * l->stride_w + l->kw > W + l->pad_l;
  tsr_copy_desc_t d;
  if (outside) {
    memset(&d, 0, sizeof d);
    d.dims[0] = d.dims[1] = 1u;
    d.dims[2] = B * OH * OW;
    d.dims[3] = C * T;
    d.in_stride[3] = 1u;
    d.in_addr = base + l->param_off;
    d.out_addr = g;
    if ((st = tsr_copy_run(dev, &d)) != TSR_OK || (st = submit_fence(dev)) != TSR_OK) {
      return st;
    }
  }
  for (uint32_t ky = 0; ky < l->kh && st == TSR_OK; ky++) {
    for (uint32_t kx = 0; kx < l->kw && st == TSR_OK; kx++) {
      /* The outputs whose tap (ky, kx) lies inside the image. */
      uint32_t oy0 = 0, ox0 = 0;
      while (oy0 < OH && oy0 * l->stride_h + ky < l->pad_t) {
        oy0++;
      }
      while (ox0 < OW && ox0 * l->stride_w + kx < l->pad_l) {
        ox0++;
      }
      uint32_t oy1 = oy0, ox1 = ox0;
      while (oy1 < OH && oy1 * l->stride_h + ky - l->pad_t < H) {
        oy1++;
      }
      while (ox1 < OW && ox1 * l->stride_w + kx - l->pad_l < W) {
        ox1++;
      }
      if (oy1 == oy0 || ox1 == ox0) {
        continue;
      }
      memset(&d, 0, sizeof d);
      d.dims[0] = B;
      d.dims[1] = oy1 - oy0;
      d.dims[2] = ox1 - ox0;
      d.dims[3] = C;
      d.in_stride[0] = x_img;
      d.in_stride[1] = l->stride_h * x_row;
      d.in_stride[2] = l->stride_w * C;
      d.in_stride[3] = 1u;
      d.in_addr = x0 + (oy0 * l->stride_h + ky - l->pad_t) * x_row +
                  (ox0 * l->stride_w + kx - l->pad_l) * C;
      d.out_stride[0] = OH * OW * C * T;
      d.out_stride[1] = OW * C * T;
      d.out_stride[2] = C * T;
      d.out_stride[3] = T;
      d.out_addr = g + (oy0 * OW + ox0) * C * T + ky * l->kw + kx;
      st = tsr_copy_run(dev, &d);
    }
  }
  if (st != TSR_OK || (st = submit_fence(dev)) != TSR_OK) {
    return st;
  }
  tsr_sfu_desc_t sd;
  tsr_sfu_plan_t plan;
  if (l->act_min > -128 || l->act_max < 127) {
    memset(&sd, 0, sizeof sd);
    sd.func = TSR_FUNC_MAP;
    sd.rows = l->rows;
    sd.len = T;
    sd.in_addr = sd.out_addr = g;
    sd.has_lut = true;
    sd.lut_addr = base + l->bias_off;
    tsr_sfu_desc_flatten(&sd, dev->info.dim);
    if ((st = tsr_sfu_plan(&dev->info, &sd, &plan, why)) != TSR_OK ||
        (st = tsr_sfu_run(dev, &sd, &plan)) != TSR_OK || (st = submit_fence(dev)) != TSR_OK) {
      return st;
    }
  }
  memset(&sd, 0, sizeof sd);
  sd.func = TSR_FUNC_REDUCE;
  sd.rows = l->rows;
  sd.len = T;
  sd.in_addr = g;
  sd.out_addr = red;
  if ((st = tsr_sfu_plan(&dev->info, &sd, &plan, why)) != TSR_OK ||
      (st = tsr_sfu_run(dev, &sd, &plan)) != TSR_OK || (st = submit_fence(dev)) != TSR_OK) {
    return st;
  }
  /* Each maximum is an int8 value: its int32's low byte, into the output's storage. */
  memset(&d, 0, sizeof d);
  d.dims[0] = B;
  d.dims[1] = OH;
  d.dims[2] = OW;
  d.dims[3] = C;
  d.in_stride[0] = OH * OW * C * 12u;
  d.in_stride[1] = OW * C * 12u;
  d.in_stride[2] = C * 12u;
  d.in_stride[3] = 12u;
  d.in_addr = red;
  d.out_stride[0] = y_img;
  d.out_stride[1] = y_row;
  d.out_stride[2] = C;
  d.out_stride[3] = 1u;
  d.out_addr = base + y->dev_off + (uint32_t)tsr_net_interior_off(y);
  return tsr_copy_run(dev, &d);
}

tsr_status_t tsr_net_capture(tsr_net_prog_t *p, char *err, size_t errlen) {
  capture_t c;
  memset(&c, 0, sizeof c);
  tsr_dev_t dev;
  memset(&dev, 0, sizeof dev);
  dev.hal.ops = &k_capture_ops;
  dev.info = p->target;
  dev.info.id = 0u;
  dev.poll_limit = 4u;
  dev.path = &k_capture_path;
  dev.path_ctx = &c;
  const uint32_t base = TSR_NET_CAPTURE_BASE;
  p->cmd_base = base;
  tsr_status_t st = TSR_OK;
  for (uint32_t i = 0; i < p->n_layers && st == TSR_OK; i++) {
    tsr_net_layer_t *l = &p->layers[i];
    l->cmd_first = c.n;
    const char *why = "";
    if (l->kind == TSR_NET_GEMM) {
      tsr_gemm_desc_t d;
      tsr_gemm_plan_t plan;
      layer_gemm_desc(p, l, base, &d);
      if ((st = tsr_gemm_plan(&dev.info, &d, &plan)) != TSR_OK) {
        tsr_gemm_check_desc(&d, &why);
      } else {
        st = tsr_gemm_run(&dev, &d, &plan, NULL, NULL);
      }
    } else if (l->kind == TSR_NET_CONV) {
      /* With shifted rows (fw/tsr_conv.c) where that path takes it, else the im2col view. */
      tsr_dw_desc_t dw;
      tsr_dw_plan_t dwp;
      memset(&dw, 0, sizeof dw);
      layer_conv_desc(p, l, base, &dw.c);
      dw.dense = true;
      tsr_gemm_plan_t plan;
      if (tsr_dw_plan(&dev.info, &dw, &dwp)) {
        st = tsr_dw_run(&dev, &dw, &dwp);
      } else if ((st = tsr_conv_plan(&dev.info, &dw.c, &plan, &why)) == TSR_OK) {
        st = tsr_conv_run(&dev, &dw.c, &plan);
      }
    } else if (l->kind == TSR_NET_DWCONV) {
      st = capture_dwconv(&dev, p, l, base, &why);
    } else if (l->kind == TSR_NET_COPY) {
      st = capture_copy(&dev, p, l, base);
    } else if (l->kind == TSR_NET_BMM) {
      st = capture_bmm(&dev, p, l, base, &why);
    } else if (l->kind == TSR_NET_MAXPOOL) {
      st = capture_maxpool(&dev, p, l, base, &why);
    } else if (tsr_net_eltwise(l->kind) && add_by_rows(p, l)) {
      st = capture_add_rows(&dev, p, l, base, &why);
    } else if (l->kind == TSR_NET_SOFTMAX || tsr_net_eltwise(l->kind) || l->kind == TSR_NET_LUT) {
      tsr_sfu_desc_t d;
      tsr_sfu_plan_t plan;
      layer_sfu_desc(p, l, base, &d);
      tsr_sfu_desc_flatten(&d, dev.info.dim);
      if (!dev.info.has_sfu) {
        why = "the target has no SFU (CONFIG.SFU = 0)";
        st = TSR_UNSUPPORTED;
      } else if ((st = tsr_sfu_plan(&dev.info, &d, &plan, &why)) == TSR_OK) {
        st = tsr_sfu_run(&dev, &d, &plan);
      }
    }
    if (st != TSR_OK && c.full) {
      tsr_lib_err(err, errlen, "operator %u (%s): the program reaches the command limit of %u"
                  " commands (N = %u)", l->op_index, tsr_net_kind_name(l->kind), TSR_NET_MAX_CMDS,
                  p->target.dim);
      st = TSR_UNSUPPORTED;
      break;
    }
    if (st != TSR_OK) {
      tsr_lib_err(err, errlen, "operator %u (%s): no commands for N = %u: %s%s%s", l->op_index,
                  tsr_net_kind_name(l->kind), p->target.dim,
                  c.oom ? "out of memory" : tsr_status_str(st),
                  why[0] || dev.err[0] ? ": " : "", why[0] ? why : dev.err);
      break;
    }
    l->cmd_count = c.n - l->cmd_first;
    /* One stream holds every layer (a FENCE between two): no layer may leave tokens behind. */
    if (l->cmd_count != 0u && tsr_net_tokens_balanced(c.cmds + l->cmd_first, l->cmd_count) != 1) {
      tsr_lib_err(err, errlen, "operator %u (%s): the firmware's %u commands leave dependency tokens"
                  " behind; they cannot share a stream", l->op_index, tsr_net_kind_name(l->kind),
                  l->cmd_count);
      st = TSR_UNSUPPORTED;
      break;
    }
  }
  if (st != TSR_OK) {
    free(c.cmds);
    return st;
  }
  p->cmds = c.cmds;
  p->n_cmds = c.n;
  return TSR_OK;
}

/* The address a LOAD or STORE moves external data at; false for other commands. */
/* The four token counters of docs/commands.md, "Dependency tokens". */
enum { TOK_LC, TOK_CL, TOK_CS, TOK_SC, TOK_N };

static int tok_pop(uint32_t cnt[TOK_N], int k) {
  if (cnt[k] == 0u) {
    return -1;
  }
  cnt[k]--;
  return 0;
}

int tsr_net_tokens_balanced(const tsr_cmd_t *cmds, uint32_t n) {
  uint32_t cnt[TOK_N] = {0u, 0u, 0u, 0u};
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t w0 = cmds[i].w[0];
    const uint32_t op = TSR_CMD_GET(w0, TSR_CMD_W0_OPCODE);
    const bool pop_prev = TSR_CMD_GET(w0, TSR_CMD_W0_POP_PREV) != 0u;
    const bool pop_next = TSR_CMD_GET(w0, TSR_CMD_W0_POP_NEXT) != 0u;
    const bool push_prev = TSR_CMD_GET(w0, TSR_CMD_W0_PUSH_PREV) != 0u;
    const bool push_next = TSR_CMD_GET(w0, TSR_CMD_W0_PUSH_NEXT) != 0u;
    int bad = 0;
    if (op == TSR_OP_FENCE) {
      continue;
    }
    if (op == TSR_OP_LOAD && TSR_CMD_GET(w0, TSR_CMD_LOAD_W0_DEST) == TSR_LOAD_SPAD) {
      /* load stage: its next stage is compute */
      bad |= pop_prev || push_prev;
      bad |= pop_next && tok_pop(cnt, TOK_CL) != 0;
      cnt[TOK_LC] += push_next;
    } else if (op == TSR_OP_STORE) {
      /* store stage: its previous stage is compute */
      bad |= pop_next || push_next;
      bad |= pop_prev && tok_pop(cnt, TOK_CS) != 0;
      cnt[TOK_SC] += push_prev;
    } else {
      /* compute stage: MATMUL, accumulator LOAD, SFU, NOP */
      bad |= pop_prev && tok_pop(cnt, TOK_LC) != 0;
      bad |= pop_next && tok_pop(cnt, TOK_SC) != 0;
      cnt[TOK_CL] += push_prev;
      cnt[TOK_CS] += push_next;
    }
    if (bad) {
      return -1;
    }
  }
  return cnt[TOK_LC] == 0u && cnt[TOK_CL] == 0u && cnt[TOK_CS] == 0u && cnt[TOK_SC] == 0u ? 1 : 0;
}
