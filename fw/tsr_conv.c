/* tsr_conv.c: 2-D convolution as a GEMM whose A tiles are im2col loaded by DMA addresses (freestanding firmware). */
#include "tsr_conv.h"

#include "tsr_gemm_int.h"

/*
 * The GEMM runs unchanged (tsr_gemm_run_view) with a view that loads A and
 * stores C. Row m of A and C is output pixel (b, oy, ox), m = (b*out_h + oy)*out_w
 * + ox. Along one output row, consecutive pixels read input bytes stride_w*in_c
 * apart, so the rows of a tile that lie in one output row (a "run") are one
 * 2-D LOAD per K block: rows = the run, stride = stride_w*in_c, cols = the
 * block's bytes of the segment. When a whole tile is one run, one LOAD takes
 * every block of a segment (LOAD lays chunk c at LOCAL + c*ROWS + r, which is
 * the tile's block layout when ROWS is the tile's rows). C rows go out the
 * same way, one STORE per run, unless the output is dense (no border), when
 * the tile is one STORE as in a plain GEMM.
 */

bool tsr_conv_geom(const tsr_conv_desc_t *d, uint32_t dim, tsr_conv_geom_t *g) {
  if (dim == 0u || d->kh == 0u || d->kw == 0u || d->in_c == 0u || d->kh > 65535u ||
      d->kw > 65535u || d->in_c > 65535u) {
    return false;
  }
  g->per_kh = (d->dil_w == 1u || d->kw == 1u) && d->in_pix == 0u;
  const uint64_t bytes = g->per_kh ? (uint64_t)d->kw * d->in_c : d->in_c;
  const uint64_t segs = g->per_kh ? d->kh : (uint64_t)d->kh * d->kw;
  if (bytes > 65535u || dim > 65535u) {
    return false;
  }
  const uint64_t pad = ceil_div((uint32_t)bytes, dim) * dim; /* 32-bit: no libgcc division */
  if (segs * pad > 0x7fffffffu) {
    return false;
  }
  g->segs = (uint32_t)segs;
  g->seg_bytes = (uint32_t)bytes;
  g->seg_pad = (uint32_t)pad;
  g->k = (uint32_t)(segs * pad);
  return true;
}

/* The view's context: the descriptor and its K layout. */
typedef struct conv_view {
  const tsr_conv_desc_t *d;
  tsr_conv_geom_t g;
  bool dense_out;  /* the output has no border: C is a plain row-major matrix */
} conv_view_t;

static uint32_t in_pix(const tsr_conv_desc_t *d) { return d->in_pix != 0u ? d->in_pix : d->in_c; }
static uint32_t out_pix(const tsr_conv_desc_t *d) { return d->out_pix != 0u ? d->out_pix : d->out_c; }

/* Output pixel m as (image, row, column). */
static void pixel(const tsr_conv_desc_t *d, uint32_t m, uint32_t *b, uint32_t *oy, uint32_t *ox) {
  const uint32_t per_img = d->out_h * d->out_w;
  *b = m / per_img;
  const uint32_t r = m % per_img;
  *oy = r / d->out_w;
  *ox = r % d->out_w;
}

/* The input address segment `seg` of A row m starts at. The kernel may reach into the
 * border: the row and column are then "negative", and wrap-around arithmetic modulo 2^32
 * gives the border's address. */
static uint32_t a_addr(const conv_view_t *v, uint32_t m, uint32_t seg) {
  const tsr_conv_desc_t *d = v->d;
  uint32_t b, oy, ox;
  pixel(d, m, &b, &oy, &ox);
  const uint32_t ky = v->g.per_kh ? seg : seg / d->kw;
  const uint32_t kx = v->g.per_kh ? 0u : seg % d->kw;
  const uint32_t y = oy * d->stride_h + ky * d->dil_h - d->pad_t;
  const uint32_t x = ox * d->stride_w + kx * d->dil_w - d->pad_l;
  return d->in_addr + b * d->in_img + y * d->in_row + x * in_pix(d);
}

/* Rows [m, end) that lie in m's output row. */
static uint32_t run_len(const tsr_conv_desc_t *d, uint32_t m, uint32_t end) {
  const uint32_t left = d->out_w - m % d->out_w;
  return min32(left, end - m);
}

static tsr_status_t conv_load_a(tsr_dev_t *dev, const void *ctx, uint32_t first_deps, uint32_t m0,
                                uint32_t mrows, uint32_t k0, uint32_t kcur, uint32_t abase) {
  const conv_view_t *v = ctx;
  const tsr_conv_desc_t *d = v->d;
  const uint32_t dim = dev->info.dim;
  const uint32_t cps = v->g.seg_pad / dim; /* K blocks per segment */
  const uint32_t kb0 = k0 / dim;
  const uint32_t kb1 = (k0 + kcur) / dim;
  const uint32_t pix_stride = d->stride_w * in_pix(d);
  const bool one_run = run_len(d, m0, m0 + mrows) == mrows;
  uint32_t deps = first_deps;
  tsr_status_t st = TSR_OK;
  for (uint32_t kb = kb0; kb < kb1 && st == TSR_OK;) {
    const uint32_t seg = kb / cps;
    const uint32_t q = kb % cps;
    const uint32_t local = abase + (kb - kb0) * mrows;
    if (one_run) {
      /* Every block of the segment in this chunk: one LOAD. */
      const uint32_t qend = min32(cps, q + (kb1 - kb));
      const uint32_t cols = min32(v->g.seg_bytes, qend * dim) - q * dim;
      st = tsr_fw_push_load(dev, deps, TSR_LOAD_SPAD, a_addr(v, m0, seg) + q * dim, pix_stride,
                            mrows, cols, local);
      deps = 0u;
      kb += qend - q;
      continue;
    }
    const uint32_t cols = min32(dim, v->g.seg_bytes - q * dim);
    for (uint32_t m = m0; m < m0 + mrows && st == TSR_OK;) {
      const uint32_t len = run_len(d, m, m0 + mrows);
      st = tsr_fw_push_load(dev, deps, TSR_LOAD_SPAD, a_addr(v, m, seg) + q * dim, pix_stride, len,
                            cols, local + (m - m0));
      deps = 0u;
      m += len;
    }
    kb++;
  }
  return st;
}

static tsr_status_t conv_store_c(tsr_dev_t *dev, const void *ctx, uint32_t deps,
                                 tsr_store_args_t *sa, uint32_t m0, uint32_t n0) {
  const conv_view_t *v = ctx;
  const tsr_conv_desc_t *d = v->d;
  const uint32_t end = m0 + sa->rows;
  const uint32_t src0 = sa->src;
  tsr_status_t st = TSR_OK;
  for (uint32_t m = m0; m < end && st == TSR_OK;) {
    const uint32_t len = v->dense_out ? end - m : run_len(d, m, end);
    uint32_t b, oy, ox;
    pixel(d, m, &b, &oy, &ox);
    sa->addr = d->out_addr + b * d->out_img + oy * d->out_row + ox * out_pix(d) + n0;
    sa->stride = out_pix(d);
    sa->rows = len;
    sa->src = src0 + (m - m0);
    uint32_t sdeps = 0u;
    if (m == m0) {
      sdeps |= deps & TSR_DEP_POP_PREV;
    }
    if (m + len == end) {
      sdeps |= deps & TSR_DEP_PUSH_PREV;
    }
    tsr_cmd_t cmd;
    st = tsr_cmd_store(dev, sdeps, sa, &cmd);
    if (st == TSR_OK) {
      st = tsr_submit(dev, &cmd);
    }
    m += len;
  }
  return st;
}

tsr_status_t tsr_conv_plan(const tsr_dev_info_t *info, tsr_conv_desc_t *d, tsr_gemm_plan_t *plan,
                           const char **why) {
  *why = "";
  if (info == NULL || d == NULL || plan == NULL) {
    *why = "no device, descriptor or plan";
    return TSR_BAD_ARG;
  }
  tsr_conv_geom_t g;
  if (d->batch == 0u || d->in_h == 0u || d->in_w == 0u || d->out_h == 0u || d->out_w == 0u ||
      d->out_c == 0u || d->stride_h == 0u || d->stride_w == 0u || d->dil_h == 0u ||
      d->dil_w == 0u) {
    *why = "a zero size, stride or dilation";
    return TSR_BAD_ARG;
  }
  if (!tsr_conv_geom(d, info->dim, &g)) {
    *why = "the kernel row is longer than 65535 bytes";
    return TSR_BAD_ARG;
  }
  const uint64_t m = (uint64_t)d->batch * d->out_h * d->out_w;
  if (m > 0x7fffffffu || (uint64_t)d->out_w * in_pix(d) * d->stride_w > 0xffffffffu ||
      d->out_c > 65535u || d->out_w > 65535u) {
    *why = "the output is too large";
    return TSR_BAD_ARG;
  }
  /* What the convolution reads and writes: it may not overlap (the GEMM checks B, the bias
   * and the parameters against C itself). */
  const int64_t in_lo = (int64_t)d->in_addr - (int64_t)d->pad_t * d->in_row -
                        (int64_t)d->pad_l * in_pix(d);
  const int64_t in_hi = (int64_t)d->in_addr + (int64_t)(d->batch - 1u) * d->in_img +
                        ((int64_t)(d->out_h - 1u) * d->stride_h + (int64_t)(d->kh - 1u) * d->dil_h -
                         d->pad_t) * d->in_row +
                        ((int64_t)(d->out_w - 1u) * d->stride_w + (int64_t)(d->kw - 1u) * d->dil_w -
                         d->pad_l) * in_pix(d) + d->in_c;
  const int64_t out_lo = d->out_addr;
  const int64_t out_hi = (int64_t)d->out_addr + (int64_t)(d->batch - 1u) * d->out_img +
                         (int64_t)(d->out_h - 1u) * d->out_row + (int64_t)(d->out_w - 1u) * out_pix(d) +
                         d->out_c;
  if (in_lo < 0 || in_hi > (int64_t)1 << 32 || out_hi > (int64_t)1 << 32) {
    *why = "the input or the output leaves the 32-bit address space";
    return TSR_BAD_ARG;
  }
  if (in_lo < out_hi && out_lo < in_hi) {
    *why = "the output region overlaps the input region";
    return TSR_BAD_ARG;
  }
  if (m * g.k > 0x80000000u) {
    *why = "the im2col matrix exceeds 2 GiB";
    return TSR_BAD_ARG;
  }
  d->gemm.m = (uint32_t)m;
  d->gemm.k = g.k;
  d->gemm.n = d->out_c;
  /* A is never read as a matrix (the view loads it from the input); the descriptor names a
   * nominal one at the top of the address space, where it overlaps nothing. */
  d->gemm.a_addr = (uint32_t)(((uint64_t)1 << 32) - m * g.k);
  d->gemm.lda = g.k;
  d->gemm.c_addr = d->out_addr;
  d->gemm.ldc = out_pix(d);
  tsr_status_t st = tsr_gemm_plan(info, &d->gemm, plan);
  if (st != TSR_OK) {
    tsr_gemm_check_desc(&d->gemm, why);
  }
  return st;
}

tsr_status_t tsr_conv_run(tsr_dev_t *dev, const tsr_conv_desc_t *d, const tsr_gemm_plan_t *plan) {
  if (dev == NULL || d == NULL || plan == NULL) {
    return TSR_BAD_ARG;
  }
  conv_view_t v;
  v.d = d;
  if (!tsr_conv_geom(d, dev->info.dim, &v.g) || d->gemm.k != v.g.k) {
    set_err(dev, "conv: ", "the plan was not made for this descriptor and device");
    return TSR_BAD_ARG;
  }
  v.dense_out = out_pix(d) == d->out_c && d->out_row == d->out_w * d->out_c &&
                d->out_img == d->out_h * d->out_row;
  const tsr_gemm_view_t view = {conv_load_a, conv_store_c, &v};
  return tsr_gemm_run_view(dev, &d->gemm, plan, &view, NULL, NULL);
}
