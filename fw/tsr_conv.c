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
  bool flat_in;    /* consecutive output pixels read input bytes pix_stride apart across output
                      rows and images too (stride-1 1x1 kernels of an input without a border):
                      a tile's rows are one run */
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

/* Whether consecutive output pixels read input bytes one pixel stride apart across output
 * rows and images too. From the last pixel of an output row to the first of the next, the
 * input address moves stride_h input rows back by out_w - 1 pixel strides: one pixel stride
 * exactly when a row of output pixels spans stride_h input rows, and likewise from image to
 * image. */
static bool flat_input(const tsr_conv_desc_t *d) {
  const uint64_t pix_stride = (uint64_t)d->stride_w * in_pix(d);
  return (uint64_t)d->stride_h * d->in_row == d->out_w * pix_stride &&
         (uint64_t)d->in_img == (uint64_t)d->out_h * d->stride_h * d->in_row;
}

/* Rows [m, end) that lie in m's output row. */
static uint32_t run_len(const tsr_conv_desc_t *d, uint32_t m, uint32_t end) {
  const uint32_t left = d->out_w - m % d->out_w;
  return min32(left, end - m);
}

/* Rows [m, end) whose input addresses advance by one pixel stride each. */
static uint32_t load_run_len(const conv_view_t *v, uint32_t m, uint32_t end) {
  return v->flat_in ? end - m : run_len(v->d, m, end);
}

/* The output rows one STORE takes from m: all of them when C is a plain matrix. */
static uint32_t store_run_len(const conv_view_t *v, uint32_t m, uint32_t end) {
  return v->dense_out ? end - m : run_len(v->d, m, end);
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
  const bool one_run = load_run_len(v, m0, m0 + mrows) == mrows;
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
      const uint32_t len = load_run_len(v, m, m0 + mrows);
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
  /* With two or more STOREs, the ones between the first (which may pop the tile's token)
   * and the last could be decoded with every token counter at zero, and run as untokened
   * code: each after every command before it has retired (docs/commands.md). A NOP first
   * gives the store stage a token that the last takes, as dw_store_token does. */
  const bool cut = store_run_len(v, m0, end) != end - m0;
  tsr_status_t st = TSR_OK;
  if (cut) {
    tsr_cmd_t nop;
    st = tsr_cmd_nop(dev, TSR_DEP_PUSH_NEXT, &nop);
    if (st == TSR_OK) {
      st = tsr_submit(dev, &nop);
    }
  }
  for (uint32_t m = m0; m < end && st == TSR_OK;) {
    const uint32_t len = store_run_len(v, m, end);
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
      sdeps |= (deps & TSR_DEP_PUSH_PREV) | (cut ? TSR_DEP_POP_PREV : 0u);
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
  /* A tile that spans output rows loads A one run and one K block at a time (conv_load_a);
   * a tile inside one output row takes every block of a segment in one LOAD, half the
   * bursts or fewer. So where output rows are long (2N pixels or more) and the input is not
   * flat, tiles are at most one output row (the planner then makes them exactly one). At
   * N = 8 (2026-11-27): MobileNetV1's first layer (48 pixels a row, three channels) 45,027
   * -> 32,605 cycles, ResNet-8 321,959 -> 312,785; tiles of 8-pixel rows at N = 16 cost
   * ResNet-8 2 % more, hence the bound. */
  tsr_gemm_opts_t opts;
  opts.max_mt = !flat_input(d) && d->out_w >= 2u * info->dim ? d->out_w : 0u;
  opts.max_kc = 0u;
  opts.spad_buf = TSR_BUF_AUTO;
  opts.acc_buf = TSR_BUF_AUTO;
  opts.mem_bw = 0u;
  opts.mem_latency = 0u;
  opts.streamed = false;
  /* The view loads A one run and one K block at a time (or a segment at a time), which the
   * cost model counts as dense rows; with K in chunks every n-group loads its A chunks
   * again. So where the planner's own plan has several n-groups, a plan with all of K in
   * one chunk (A loaded once per m-tile) wins unless the model predicts it over 1/8
   * slower. At N = 8 (2026-11-27), DS-CNN's first three convolutions were 3-10 % slower by
   * the model with one chunk, and DS-CNN took 132,018 cycles instead of 139,414; with one
   * n-group there is nothing to save (a 3x3 convolution into 11 channels at N = 16: 4,888
   * cycles, 5,823 with K whole). */
  opts.whole_k = false;
  tsr_status_t st = tsr_gemm_plan_opts(info, &d->gemm, &opts, plan);
  if (st == TSR_OK && plan->n_groups > 1u) {
    tsr_gemm_plan_t whole; /* rebuilt in place if it wins: no struct copies in the firmware */
    opts.whole_k = true;
    if (tsr_gemm_plan_opts(info, &d->gemm, &opts, &whole) == TSR_OK &&
        8u * whole.est_cycles <= 9u * plan->est_cycles) {
      st = tsr_gemm_plan_opts(info, &d->gemm, &opts, plan);
    }
  }
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
  v.flat_in = flat_input(d);
  const tsr_gemm_view_t view = {conv_load_a, conv_store_c, &v};
  return tsr_gemm_run_view(dev, &d->gemm, plan, &view, NULL, NULL);
}

/*
 * Depthwise by shifted rows (tsr_dw_run). A depthwise convolution multiplies each channel
 * by its own weights, so on the array every MATMUL is a block-diagonal N x N block: 1/N of
 * its MACs count however A is fed. What the view above pays besides is its im2col: one
 * 2-D LOAD of N-byte channel slices per (output-row run, tap), so that a DS-CNN layer is
 * 2,000 commands and 8-byte bursts. Here the input is read once per tile instead:
 *
 *   With stride 1, virtual output pixel m = oy*wv + ox (wv the input's row pitch in
 *   pixels, its border included) reads input pixel m + ky*dil_h*wv + kx*dil_w - (pad_t*wv
 *   + pad_l) at tap (ky, kx): the same rows shifted by a constant per tap. So a tile of mt
 *   virtual rows is one LOAD of mt + span consecutive pixels (every channel of the pass,
 *   chunk c of pixel r at row c*(mt + span) + r), and each (group, tap) is one MATMUL
 *   whose A starts span rows further for the farthest tap. The virtual pixels ox >= out_w
 *   (wv - out_w per row, the border's width) are computed and never stored.
 *
 * A pass is gp channel groups: their weights (gp * k rows) are loaded once into the upper
 * scratchpad bank and their bias and requantization once into each accumulator buffer;
 * then its tiles run double-buffered (two A buffers in the lower bank, two accumulator
 * tiles in the two banks), the LOADs of tile t+1 issued before the MATMULs of tile t and
 * the STOREs of tile t-1 interleaved with those MATMULs, so that the store queue never
 * holds up the array. Tokens as in tsr_gemm_emit.c: LOAD(t) PUSH_NEXT / first MATMUL(t)
 * POP_PREV; last MATMUL(t) PUSH_PREV / LOAD(t+2) POP_NEXT; last MATMUL(t) PUSH_NEXT /
 * first STORE(t) POP_PREV; last STORE(t) PUSH_PREV / first MATMUL(t+2) POP_NEXT. A FENCE
 * separates two passes. With gtiles (tsr_dw_plan) a tile is one group of the pass, gp tiles
 * per row tile: its A buffer and accumulator tile hold that group alone, it loads the
 * group's weights in the first row tile, and its accumulator LOAD of the group's parameters
 * takes the store->compute token instead of its first MATMUL. With depth multiplier dm > 1
 * a group is N/dm input channels, so the groups start N/dm channels apart: dm LOADs per
 * tile (phases), phase s holding groups s, s + dm, ... at N-channel steps.
 */

static uint32_t bank_half(uint32_t rows) {
  uint32_t h = 1u;
  while (h * 2u < rows) {
    h *= 2u;
  }
  return h;
}

/*
 * Window sums (tsr_dw_plan's window case). A layer whose weights are all one value w with
 * one output pixel (a global average pool, a mean) sums each channel over the window's
 * pixels. As MATMULs: A is one row of N bytes w (ones_addr), the weights are N pixels x N
 * channels of the input (a LOAD of the window's pixels puts chunk j of pixel r at row
 * j * pixels + r, so channel block j's pixels are consecutive rows), M = 1: one MATMUL per
 * N pixels and channel block, accumulated into one row per block, instead of one M = 1
 * MATMUL per tap and block.
 */
static bool dw_plan_window(const tsr_dev_info_t *info, const tsr_dw_desc_t *d, tsr_dw_plan_t *p,
                           uint32_t groups, uint32_t wcap, uint32_t acap) {
  const tsr_conv_desc_t *c = &d->c;
  const uint32_t dim = info->dim;
  if (d->ones_addr == 0u || d->depth_mult != 1u || d->group_c != min32(dim, c->in_c) ||
      c->out_h != 1u || c->out_w != 1u || c->dil_w != 1u) {
    return false;
  }
  /* The window's rows are one run when they are whole input rows, one after the other. */
  const bool flat = c->dil_h == 1u && c->pad_l == 0u && (uint64_t)c->kw * c->in_c == c->in_row;
  p->segs = flat ? 1u : c->kh;
  p->seg_pix = flat ? c->kh * c->kw : c->kw;
  const uint32_t prows = tsr_gemm_param_rows(&c->gemm);
  const uint64_t rows_per_block = (uint64_t)p->segs * p->seg_pix;
  if (p->seg_pix > 65535u || rows_per_block > wcap) {
    return false;
  }
  p->gp = min32(groups, min32(wcap / (uint32_t)rows_per_block, acap / (1u + prows)));
  if (p->gp == 0u) {
    return false;
  }
  p->window = true;
  p->mt = p->th = p->rpm = 1u;
  p->acc_stride = 1u + prows;
  return true;
}

/* The most output rows a tile takes, 0 if not one: th rows are mt = (th - 1) * wv + out_w
 * virtual rows, acc_sub sub-tiles of mt + prows rows in the accumulator buffer (acap rows),
 * and a_chunks chunks of s * (mt - 1) + span + 1 input pixels in the A buffer (abuf rows). */
static uint32_t dw_max_rows(const tsr_conv_desc_t *c, uint32_t wv, uint32_t str, uint64_t span,
                            uint32_t prows, uint32_t acc_sub, uint32_t a_chunks, uint32_t acap,
                            uint32_t abuf) {
  uint32_t th = c->out_h;
  for (; th > 0u; th--) {
    const uint64_t mt = (uint64_t)(th - 1u) * wv + c->out_w;
    const uint64_t pix = (mt - 1u) * str + span + 1u;
    if ((mt + prows) * acc_sub <= acap && pix * a_chunks <= abuf && pix <= 65535u) {
      break;
    }
  }
  return th;
}

bool tsr_dw_plan(const tsr_dev_info_t *info, const tsr_dw_desc_t *d, tsr_dw_plan_t *p) {
  const tsr_conv_desc_t *c = &d->c;
  if (info == NULL || p == NULL || info->dim == 0u || info->spad_rows < 4u || info->acc_rows < 4u) {
    return false;
  }
  p->window = false;
  p->segs = p->seg_pix = 0u;
  const uint32_t dim = info->dim;
  const uint32_t ic = c->in_c;
  const uint32_t gc = d->dense ? dim : d->group_c, dm = d->dense ? 1u : d->depth_mult;
  const uint32_t n = d->dense ? min32(dim, c->out_c) : c->gemm.n;
  if (c->in_pix != 0u || c->out_pix != 0u || gc == 0u || dm == 0u || ic == 0u || c->batch == 0u ||
      c->kh == 0u || c->kw == 0u || c->out_h == 0u || c->out_w == 0u || c->dil_h == 0u ||
      c->dil_w == 0u || (c->gemm.has_lut && (!info->has_sfu || !c->gemm.requant)) ||
      ic > 65535u || c->out_c > 65535u) {
    return false;
  }
  if (!d->dense && (gc > ic || (uint64_t)gc * dm != n || n > dim || (uint64_t)ic * dm != c->out_c)) {
    return false;
  }
  p->dense = d->dense;
  p->chunks = 1u;
  p->per_kh = false;
  p->seg_pad = dim;
  if (d->dense) {
    /* Every tap's B rows must start a K block: per kernel tap, or per kernel row of whole
     * chunks. The per-tap K (chunks * N a tap) may be at most twice the view's im2col K. */
    tsr_conv_geom_t g;
    if (!tsr_conv_geom(c, dim, &g) || g.k != c->gemm.k || c->gemm.n != c->out_c ||
        (g.per_kh && c->kw > 1u && ic % dim != 0u) ||
        (uint64_t)ceil_div(ic, dim) * dim * c->kh * c->kw > 2u * (uint64_t)g.k) {
      return false;
    }
    p->chunks = ceil_div(ic, dim);
    p->per_kh = g.per_kh;
    p->seg_pad = g.seg_pad;
  }
  const uint32_t groups = d->dense ? ceil_div(c->out_c, dim) : ceil_div(ic, gc);
  /* One stride s for every axis with more than one output. */
  const uint32_t str = c->out_h > 1u ? c->stride_h : c->out_w > 1u ? c->stride_w : 1u;
  if ((!d->dense && groups > 1u && gc * dm != dim) ||
      (c->out_h > 1u && c->out_w > 1u && c->stride_h != c->stride_w) ||
      str == 0u || str > 8u || c->in_row % ic != 0u) {
    return false;
  }
  const uint32_t wv = c->in_row / ic;
  const uint64_t taps = (uint64_t)c->kh * c->kw;
  const uint64_t span = (uint64_t)(c->kh - 1u) * c->dil_h * wv + (uint64_t)(c->kw - 1u) * c->dil_w;
  const uint64_t mv = (uint64_t)(c->out_h - 1u) * wv + c->out_w;
  if ((uint64_t)(c->out_w - 1u) * str + 1u > wv || (!d->dense && taps * dim != c->gemm.k) ||
      span > 65535u || mv > 0x7fffffffu) {
    return false;
  }
  const uint32_t half = bank_half(info->spad_rows);
  const uint32_t ahalf = bank_half(info->acc_rows);
  const uint32_t abuf = half / 2u;
  /* has_lut: the activation table in the scratchpad's last rows (tsr_dw_run). */
  const uint32_t lrows = tsr_gemm_lut_rows(&c->gemm, dim);
  if (info->spad_rows - half <= lrows) {
    return false;
  }
  const uint32_t wcap = info->spad_rows - half - lrows;
  const uint32_t acap = min32(ahalf, info->acc_rows - ahalf);
  p->wv = wv;
  p->span = (uint32_t)span;
  p->mv = (uint32_t)mv;
  p->stride = str;
  p->groups = groups;
  p->phases = 1u;
  p->gtiles = false;
  p->abuf = abuf;
  p->wbase = half;
  p->cbuf[0] = 0u;
  p->cbuf[1] = ahalf;
  if (!d->dense && dw_plan_window(info, d, p, groups, wcap, acap)) {
    return true;
  }
  const uint32_t prows = tsr_gemm_param_rows(&c->gemm);
  const uint64_t k = c->gemm.k;
  uint64_t best = 0u;
  uint32_t best_nt0 = 0u; /* tiles per image of the chosen pass size at its most rows */
  p->gp = 0u;
  for (uint32_t gp = 1u; gp <= groups && (uint64_t)gp * k <= wcap; gp++) {
    /* The most output rows per tile: th rows are mt = (th - 1) * wv + out_w virtual rows in
     * the accumulator and s * (mt - 1) + span + 1 input pixels per group in the scratchpad. */
    const uint32_t th = dw_max_rows(c, wv, str, span, prows, gp, d->dense ? p->chunks : gp, acap, abuf);
    if (th == 0u) {
      break;
    }
    /* The most rows, or fewer in more tiles: the last tile's STOREs and the first tile's
     * LOAD of a pass have nothing to hide behind. But a tile of few pixels pays for its
     * own (weight loads not hidden behind short MATMULs, the pause): at least 2N. */
    const uint32_t nt0 = ceil_div(c->out_h, th);
    for (uint32_t nt = nt0; nt < nt0 + 4u && nt <= c->out_h; nt++) {
      const uint32_t tr = ceil_div(c->out_h, nt);
      if (nt > nt0 && (uint64_t)tr * c->out_w < 2u * (uint64_t)dim) {
        break;
      }
      const uint32_t mt = (tr - 1u) * wv + c->out_w;
      const uint64_t pix = (uint64_t)(mt - 1u) * str + span + 1u;
      /* A MATMUL streams a whole tile (virtual pixels included) or one output row (none): at
       * least N cycles each, for its weights. */
      const uint64_t mm_tile = (uint64_t)(mt > dim ? mt : dim) + 2u;
      const uint64_t mm_rows = (uint64_t)tr * ((c->out_w > dim ? c->out_w : dim) + 2u);
      const uint32_t rpm = mm_rows < mm_tile ? 1u : tr;
      /* Cycles, roughly: per pass its weights over an 8-byte bus, a FENCE, its first tile's
       * LOAD and the STOREs of its last tile; per tile those MATMULs per group and tap, or
       * the STOREs of the tile before if they take longer (about 44 cycles each: one per
       * output row and group unless one run covers a tile). Dense, each pass loads the
       * input again. */
      const uint64_t passes = ceil_div(groups, gp);
      const uint64_t tiles = (uint64_t)c->batch * ceil_div(c->out_h, tr);
      const bool one_run = wv == c->out_w && c->out_row == c->out_w * c->out_c;
      const uint64_t stores = (uint64_t)gp * (one_run ? 1u : tr);
      const uint64_t st_cycles = stores * 44u + (uint64_t)gp * tr * c->out_w;
      const uint64_t mm_cycles = taps * gp * p->chunks * (rpm == 1u ? mm_rows : mm_tile);
      const uint64_t load = pix * (d->dense ? ic : (uint64_t)gp * gc) / 8u;
      const uint64_t cost = passes * (200u + gp * k * n / 8u + st_cycles + load) +
                            passes * tiles * ((mm_cycles > st_cycles ? mm_cycles : st_cycles) + 40u +
                                              (d->dense ? load : 0u));
      if (p->gp == 0u || cost < best) {
        best = cost;
        best_nt0 = nt0;
        p->gp = gp;
        p->th = tr;
        p->mt = mt;
        p->rpm = rpm;
      }
    }
  }
  /* Depthwise, a tile of one group instead (gtiles): the A buffer and the accumulator tile
   * hold one group, so a tile takes up to gp times the rows, and the pass's first LOAD is one
   * group's weights and pixels and its last STOREs one group's, where a tile of every group
   * of the pass loads all their weights before the first MATMUL and stores all their rows
   * after the last (MobileNetV1's 6x6x128 at N = 16, one tile: 9,499 -> 5,341 cycles).
   * Every tile pays an accumulator LOAD of its group's parameters (the 40 below). */
  if (!d->dense && dm == 1u && p->gp != 0u) {
    const uint32_t gp = min32(groups, wcap / c->gemm.k);
    const uint32_t th = dw_max_rows(c, wv, str, span, prows, 1u, 1u, acap, abuf);
    if (gp >= 2u && th > 0u) {
      const uint64_t mt = (uint64_t)(th - 1u) * wv + c->out_w;
      const uint64_t pix = (mt - 1u) * str + span + 1u;
      const uint64_t mm_tile = (mt > dim ? mt : dim) + 2u;
      const uint64_t mm_rows = (uint64_t)th * ((c->out_w > dim ? c->out_w : dim) + 2u);
      const uint32_t rpm = mm_rows < mm_tile ? 1u : th;
      const bool one_run = wv == c->out_w && c->out_row == c->out_w * c->out_c;
      const uint64_t st_cycles = (one_run ? 1u : th) * 44u + (uint64_t)th * c->out_w;
      const uint64_t mm_cycles = taps * (rpm == 1u ? mm_rows : mm_tile);
      const uint64_t load = pix * gc / 8u, wload = k * n / 8u;
      const uint64_t tiles = (uint64_t)c->batch * ceil_div(c->out_h, th) * gp;
      const uint64_t per = mm_cycles > st_cycles ? mm_cycles : st_cycles;
      const uint64_t cost = ceil_div(groups, gp) * (200u + wload + st_cycles + load +
                                                    tiles * ((per > load + wload ? per : load + wload) + 40u));
      /* Where the plan above has one tile per pass, nothing of a pass overlaps without this
       * (measured faster on every such layer of the MLPerf Tiny models, which the rough
       * cycles do not all see: MobileNetV1's 3x3x256 at N = 16, 10,627 -> 8,451). */
      const bool one_tile = (uint64_t)c->batch * ceil_div(c->out_h, p->th) == 1u;
      if (cost < best || one_tile) {
        p->gtiles = true;
        p->gp = gp;
        p->th = th;
        p->mt = (uint32_t)mt;
        p->rpm = rpm;
      }
    }
  }
  /* A 1x1 kernel reads each input byte once either way; there the im2col view measured
   * faster unless this path hides STOREs (one per output row into a bordered output)
   * behind a second tile (at the most rows a tile takes) of one pass: with several passes each loads the input again and
   * exposes its weight LOAD and last STOREs (MobileNetV1's 6x6x128 layers, 15,664 ->
   * 18,834 cycles at N = 8), and a dense output is one STORE per tile in the view (DS-CNN's
   * last 1x1, 10,275 -> 14,985). */
  if (p->gp == 0u || (d->dense && taps == 1u &&
                      (p->gp < groups || c->out_row == c->out_w * c->out_c ||
                       (uint64_t)c->batch * best_nt0 < 2u))) {
    return false;
  }
  p->phases = (dm == 1u || groups == 1u || d->dense) ? 1u : dm;
  p->acc_stride = p->mt + prows;
  return true;
}

/* One pass of tsr_dw_run: groups [g0, g0 + gp) and what their tiles share. */
typedef struct dw_pass {
  const tsr_dw_desc_t *d;
  const tsr_dw_plan_t *p;
  uint32_t dim, g0, gp, phases, tiles, tpi;
  uint32_t gsplit; /* tiles per row tile: 1, or gp with gtiles (one group each) */
} dw_pass_t;

/* Tile t of a pass: image, first virtual row, rows. */
static void dw_tile(const dw_pass_t *s, uint32_t t, uint32_t *b, uint32_t *m0, uint32_t *mt) {
  const uint32_t rt = t / s->gsplit;
  const uint32_t oy0 = (rt % s->tpi) * s->p->th;
  *b = rt / s->tpi;
  *m0 = oy0 * s->p->wv;
  *mt = (min32(s->p->th, s->d->c.out_h - oy0) - 1u) * s->p->wv + s->d->c.out_w;
}

/* The groups of tile t, [*r0, *r1) of the pass. */
static void dw_rels(const dw_pass_t *s, uint32_t t, uint32_t *r0, uint32_t *r1) {
  *r0 = s->gsplit == 1u ? 0u : t % s->gsplit;
  *r1 = s->gsplit == 1u ? s->gp : *r0 + 1u;
}

/* Groups a tile holds: its A buffer's chunks per pixel, its accumulator tile's sub-tiles. */
static uint32_t dw_tile_groups(const dw_pass_t *s) { return s->gsplit == 1u ? s->gp : 1u; }

/* The accumulator rows of group rel in tile t: its sub-tile of the tile's buffer. */
static uint32_t dw_acc(const dw_pass_t *s, uint32_t t, uint32_t rel) {
  return s->p->cbuf[t % 2u] + (s->gsplit == 1u ? rel : 0u) * s->p->acc_stride;
}

/* A tile of mt virtual rows reads s * (mt - 1) + span + 1 consecutive input pixels from
 * s * m0 - (pad_t * wv + pad_l): phase f (f < s) holds every s-th of them from the f-th,
 * one LOAD per channel phase with pixel stride s. The rows of phase f, and where its
 * region starts in the tile's A buffer (the phases one after the other, gp chunks each). */
static uint32_t dw_phase_rows(const dw_pass_t *s, uint32_t mt, uint32_t f) {
  const uint32_t pix = (mt - 1u) * s->p->stride + s->p->span + 1u;
  return pix > f ? ceil_div(pix - f, s->p->stride) : 0u;
}

static uint32_t dw_phase_base(const dw_pass_t *s, uint32_t mt, uint32_t f) {
  uint32_t base = 0u;
  for (uint32_t i = 0u; i < f; i++) {
    base += (s->p->dense ? s->p->chunks : dw_tile_groups(s)) * dw_phase_rows(s, mt, i);
  }
  return base;
}

/* Input channels of depthwise group g. */
static uint32_t dw_gc(const dw_pass_t *s, uint32_t g) {
  return min32(s->d->group_c, s->d->c.in_c - g * s->d->group_c);
}

/* The first output channel of group g, and its output channels. */
static uint32_t dw_o0(const dw_pass_t *s, uint32_t g) {
  return g * (s->p->dense ? s->dim : s->d->c.gemm.n);
}

static uint32_t dw_ncols(const dw_pass_t *s, uint32_t g) {
  return s->p->dense ? min32(s->dim, s->d->c.out_c - g * s->dim) : dw_gc(s, g) * s->d->depth_mult;
}

/* Scratchpad offset, within a tile's A buffer of rows r each, of its group rel's chunk
 * (rel counted from the tile's first group). */
static uint32_t dw_aoff(const dw_pass_t *s, uint32_t rel, uint32_t r) {
  uint32_t off = 0u;
  for (uint32_t ph = 0u; ph < rel % s->phases; ph++) {
    off += ceil_div(s->gp - ph, s->phases) * r;
  }
  return off + (rel / s->phases) * r;
}

static tsr_status_t dw_loads(tsr_dev_t *dev, const dw_pass_t *s, uint32_t t) {
  const tsr_conv_desc_t *c = &s->d->c;
  const tsr_dw_plan_t *p = s->p;
  const uint32_t ic = c->in_c, gc = s->d->group_c;
  uint32_t b, m0, mt, r0, r1;
  dw_tile(s, t, &b, &m0, &mt);
  dw_rels(s, t, &r0, &r1);
  tsr_status_t st = TSR_OK;
  uint32_t deps = t >= 2u ? TSR_DEP_POP_NEXT : 0u;
  if (s->gsplit > 1u && t < s->gsplit) { /* the first row tile: its group's weights, k rows
                                          * of n bytes, where the pass keeps them */
    st = tsr_fw_push_load(dev, deps, TSR_LOAD_SPAD,
                          c->gemm.b_addr + (s->g0 + r0) * c->gemm.k * c->gemm.n, c->gemm.n,
                          c->gemm.k, c->gemm.n, p->wbase + r0 * c->gemm.k);
    deps = 0u;
  } else if (t == 0u) { /* the pass's weights: gp * k rows of n bytes */
    if (p->dense) { /* B's columns of the pass: block jj lands at wbase + jj * k */
      st = tsr_fw_push_load(dev, deps, TSR_LOAD_SPAD, c->gemm.b_addr + s->g0 * s->dim, c->gemm.ldb,
                            c->gemm.k, min32(s->gp * s->dim, c->out_c - s->g0 * s->dim), p->wbase);
    } else {
      st = tsr_fw_push_load(dev, deps, TSR_LOAD_SPAD, c->gemm.b_addr + s->g0 * c->gemm.k * c->gemm.n,
                            c->gemm.n, s->gp * c->gemm.k, c->gemm.n, p->wbase);
    }
    deps = 0u;
  }
  const uint32_t abase = (t % 2u) * p->abuf;
  const uint32_t q0 = m0 * p->stride - (c->pad_t * p->wv + c->pad_l); /* modulo 2^32 */
  for (uint32_t f = 0u; f < p->stride && st == TSR_OK; f++) {
    const uint32_t r = dw_phase_rows(s, mt, f);
    const uint32_t fbase = abase + dw_phase_base(s, mt, f);
    for (uint32_t ph = 0u; ph < s->phases && st == TSR_OK; ph++) {
      const uint32_t chunks = ceil_div(r1 - r0 - ph, s->phases);
      const uint32_t ch0 = p->dense ? 0u : (s->g0 + r0 + ph) * gc;
      const uint32_t cols = p->dense ? ic : min32(chunks * s->dim, ic - ch0);
      if (ph + 1u == s->phases && f + 1u == p->stride) {
        deps |= TSR_DEP_PUSH_NEXT;
      }
      st = tsr_fw_push_load(dev, deps, TSR_LOAD_SPAD,
                            c->in_addr + b * c->in_img + (q0 + f) * ic + ch0, p->stride * ic, r, cols,
                            fbase + dw_aoff(s, ph, r));
      deps = 0u;
    }
  }
  return st;
}

/* The accumulator LOADs of tile t's buffer's parameter rows (groups [r0, r1) of the pass):
 * per group one LOAD of all its vectors when they lie one stride apart
 * (tsr_gemm_param_merge: a group's columns are one chunk, so vector r lands in row
 * PARAM + r), else one per vector. The first carries deps. */
static tsr_status_t dw_params(tsr_dev_t *dev, const dw_pass_t *s, uint32_t t, uint32_t r0,
                              uint32_t r1, uint32_t deps) {
  const tsr_gemm_desc_t *g = &s->d->c.gemm;
  uint32_t stride;
  const uint32_t merged = tsr_gemm_param_merge(g, &stride);
  tsr_status_t st = TSR_OK;
  for (uint32_t rel = r0; rel < r1 && st == TSR_OK; rel++) {
    const uint32_t ncols = dw_ncols(s, s->g0 + rel);
    const uint32_t o0 = dw_o0(s, s->g0 + rel);
    const uint32_t prow = dw_acc(s, t, rel) + s->p->mt;
    if (merged != 0u) {
      st = tsr_fw_push_load(dev, deps, TSR_LOAD_ACC, g->bias_addr + 4u * o0, stride, merged,
                            4u * ncols, prow);
      deps = 0u;
      continue;
    }
    uint32_t addr[TSR_STORE_PARAM_ROWS_LEAKY], row[TSR_STORE_PARAM_ROWS_LEAKY];
    const uint32_t cnt = tsr_gemm_param_list(g, o0, prow, addr, row);
    for (uint32_t i = 0u; i < cnt && st == TSR_OK; i++) {
      st = tsr_fw_push_load(dev, deps, TSR_LOAD_ACC, addr[i], 4u * ncols, 1u, 4u * ncols, row[i]);
      deps = 0u;
    }
  }
  return st;
}

/* One accumulator LOAD that rewrites what a tile buffer's first parameter row holds (with
 * no parameters, a row no STORE reads): it waits until the array is idle. */
static tsr_status_t dw_pause(tsr_dev_t *dev, const dw_pass_t *s, uint32_t cbuf) {
  const tsr_gemm_desc_t *g = &s->d->c.gemm;
  const uint32_t row = cbuf + s->p->mt;
  const uint32_t cols = 4u * dw_ncols(s, s->g0);
  if (g->has_bias || g->per_channel) {
    const uint32_t o0 = dw_o0(s, s->g0);
    const uint32_t addr = g->has_bias ? g->bias_addr + 4u * o0 : g->mult_addr + 4u * o0;
    return tsr_fw_push_load(dev, 0u, TSR_LOAD_ACC, addr, cols, 1u, cols, row + (g->has_bias ? 0u : 1u));
  }
  return tsr_fw_push_load(dev, 0u, TSR_LOAD_ACC, g->b_addr, 4u, 1u, 4u, row);
}

/* The STOREs of a tile, walked one at a time: group rel, virtual row m. */
typedef struct dw_stores {
  uint32_t t, b, m0, mt, rel, m, total, done;
} dw_stores_t;

/* Virtual rows [m, end) that one STORE writes: the rest of m's output row, or with a dense
 * output and no virtual pixels (wv == out_w) every row to end. */
static uint32_t dw_run(const dw_pass_t *s, uint32_t m, uint32_t end) {
  const tsr_conv_desc_t *c = &s->d->c;
  if (s->p->wv == c->out_w && c->out_row == c->out_w * c->out_c) {
    return end - m;
  }
  return min32(c->out_w - m % s->p->wv, end - m);
}

/* Skip virtual pixels: the first stored row at or after m (end if none). */
static uint32_t dw_skip(const dw_pass_t *s, uint32_t m, uint32_t end) {
  const uint32_t ox = m % s->p->wv;
  if (ox >= s->d->c.out_w) {
    m += s->p->wv - ox;
  }
  return m < end ? m : end;
}

/* The MATMULs of tile t (dw_matmuls): one per group, tap, input chunk and row chunk. */
static uint32_t dw_mm_total(const dw_pass_t *s, uint32_t t) {
  const tsr_conv_desc_t *c = &s->d->c;
  const tsr_dw_plan_t *p = s->p;
  uint32_t b, m0, mt, g_lo, g_hi;
  dw_tile(s, t, &b, &m0, &mt);
  dw_rels(s, t, &g_lo, &g_hi);
  const uint32_t rows = (mt - c->out_w) / p->wv + 1u; /* output rows of the tile */
  const uint32_t pairs = p->dense ? p->chunks : 1u;  /* input chunks per group and tap */
  return c->kh * c->kw * (g_hi - g_lo) * pairs * ceil_div(rows, p->rpm);
}

/* Whether the pass's last tile holds a token through its MATMULs: the STOREs of the tile
 * before run between them, and after the last of those every counter would be zero (no
 * later tile's LOADs hold one), so the rest would be untokened code, each MATMUL after
 * the one before has drained (ResNet-8's 16x16x32 -> 8x8x64 at N = 8: 34 of them). So the
 * first STORE of the tile before pushes a token to compute, which the last tile's last
 * MATMUL pops. Safe: the store stage is in order, so the STOREs of tile t-2, whose token
 * the last tile's first MATMUL (or parameter LOAD) takes, have pushed theirs before. */
static bool dw_last_hold(const dw_pass_t *s, uint32_t t) {
  return s->tiles >= 2u && t + 1u == s->tiles && dw_mm_total(s, t) >= 2u;
}

static void dw_stores_init(const dw_pass_t *s, uint32_t t, dw_stores_t *w) {
  dw_tile(s, t, &w->b, &w->m0, &w->mt);
  uint32_t r0, r1;
  dw_rels(s, t, &r0, &r1);
  w->t = t;
  w->rel = r0;
  w->m = dw_skip(s, w->m0, w->m0 + w->mt);
  w->done = 0u;
  uint32_t per_group = 0u;
  for (uint32_t m = w->m; m < w->m0 + w->mt;) {
    m = dw_skip(s, m + dw_run(s, m, w->m0 + w->mt), w->m0 + w->mt);
    per_group++;
  }
  w->total = per_group * (r1 - r0);
}

static tsr_status_t dw_store_next(tsr_dev_t *dev, const dw_pass_t *s, dw_stores_t *w) {
  const tsr_conv_desc_t *c = &s->d->c;
  const tsr_gemm_desc_t *g = &c->gemm;
  const uint32_t end = w->m0 + w->mt;
  const uint32_t len = dw_run(s, w->m, end);
  const uint32_t cbuf = dw_acc(s, w->t, w->rel);
  const uint32_t oy = w->m / s->p->wv, ox = w->m % s->p->wv;
  tsr_store_args_t sa;
  sa.addr = c->out_addr + w->b * c->out_img + oy * c->out_row + ox * c->out_c +
            dw_o0(s, s->g0 + w->rel);
  sa.stride = c->out_c;
  sa.rows = len;
  sa.cols = dw_ncols(s, s->g0 + w->rel);
  sa.src = cbuf + (w->m - w->m0);
  sa.param = cbuf + s->p->mt;
  sa.bias = g->has_bias;
  sa.requant = g->requant;
  sa.per_channel = g->per_channel;
  sa.spad = false;
  sa.lut = g->has_lut;
  sa.leaky = g->leaky;
  sa.mult = g->per_channel ? 0 : g->mult;
  sa.shift = g->per_channel ? 0 : g->shift;
  sa.out_zp = g->out_zp;
  sa.act_min = g->act_min;
  sa.act_max = g->act_max;
  uint32_t deps = w->done == 0u ? TSR_DEP_POP_PREV : 0u;
  if (w->done == 0u && dw_last_hold(s, w->t + 1u)) {
    deps |= TSR_DEP_PUSH_PREV;
  }
  if (w->done + 1u == w->total) {
    deps |= (w->t + 2u < s->tiles ? TSR_DEP_PUSH_PREV : 0u) | (w->total > 1u ? TSR_DEP_POP_PREV : 0u);
  }
  tsr_cmd_t cmd;
  tsr_status_t st = tsr_cmd_store(dev, deps, &sa, &cmd);
  if (st == TSR_OK) {
    st = tsr_submit(dev, &cmd);
  }
  w->done++;
  w->m = dw_skip(s, w->m + len, end);
  if (w->m == end) {
    w->rel++;
    w->m = dw_skip(s, w->m0, end);
  }
  return st;
}

/* Before the STOREs of a tile (more than one): a NOP that gives the store stage one more
 * token, which the last of them takes. Between the first STORE's pop and the last STORE
 * a counter is then non-zero, so the engine runs the STOREs in between as tokened
 * commands (queued, beside the array) and not as serial ones (docs/commands.md: each
 * waits for every earlier command, and the front end for it). */
static tsr_status_t dw_store_token(tsr_dev_t *dev, const dw_stores_t *w) {
  if (w->total <= 1u) {
    return TSR_OK;
  }
  tsr_cmd_t cmd;
  tsr_status_t st = tsr_cmd_nop(dev, TSR_DEP_PUSH_NEXT, &cmd);
  return st == TSR_OK ? tsr_submit(dev, &cmd) : st;
}

/* The MATMULs of tile t, with the STOREs of the tile before (prev, NULL for none) spread
 * between them. */
static tsr_status_t dw_matmuls(tsr_dev_t *dev, const dw_pass_t *s, uint32_t t, dw_stores_t *prev) {
  const tsr_conv_desc_t *c = &s->d->c;
  const tsr_dw_plan_t *p = s->p;
  uint32_t b, m0, mt, g_lo, g_hi;
  dw_tile(s, t, &b, &m0, &mt);
  dw_rels(s, t, &g_lo, &g_hi);
  const uint32_t taps = c->kh * c->kw;
  const uint32_t rows = (mt - c->out_w) / p->wv + 1u; /* output rows of the tile */
  const uint32_t chunks = ceil_div(rows, p->rpm);
  const uint32_t pairs = p->dense ? p->chunks : 1u; /* input chunks per group and tap */
  const uint32_t total = dw_mm_total(s, t);
  const bool hold = dw_last_hold(s, t);
  const uint32_t abase = (t % 2u) * p->abuf;
  tsr_status_t st = prev != NULL ? dw_store_token(dev, prev) : TSR_OK;
  uint32_t i = 0u;
  for (uint32_t rel = g_lo; rel < g_hi && st == TSR_OK; rel++) {
    const uint32_t ncols = dw_ncols(s, s->g0 + rel);
    for (uint32_t q = 0u; q < taps * pairs && st == TSR_OK; q++) {
      /* Tap (ky, kx) reads flat pixel s * m + off: phase off mod s, (off - phase) / s rows
       * into it; dense, input chunk ci of it against B rows tap_base + ci * N. */
      const uint32_t tap = q / pairs, ci = q % pairs;
      const uint32_t ky = tap / c->kw, kx = tap % c->kw;
      const uint32_t off = ky * c->dil_h * p->wv + kx * c->dil_w;
      const uint32_t f = off % p->stride;
      const uint32_t r = dw_phase_rows(s, mt, f);
      const uint32_t a0 = abase + dw_phase_base(s, mt, f) + (p->dense ? ci * r : dw_aoff(s, rel - g_lo, r)) +
                          (off - f) / p->stride;
      const uint32_t brow = !p->dense ? tap * s->dim
                            : (p->per_kh ? ky * p->seg_pad + kx * c->in_c : tap * p->seg_pad) + ci * s->dim;
      const uint32_t kk = p->dense ? min32(s->dim, c->in_c - ci * s->dim) : dw_gc(s, s->g0 + rel);
      for (uint32_t ch = 0u; ch < chunks && st == TSR_OK; ch++, i++) {
        const uint32_t r0 = ch * p->rpm * p->wv; /* virtual row of the MATMUL's first output row */
        const uint32_t nrows = min32(p->rpm, rows - ch * p->rpm);
        uint32_t deps = 0u;
        if (i == 0u) { /* with gtiles its parameter LOAD took the tile buffer's token */
          deps |= TSR_DEP_POP_PREV | (t >= 2u && s->gsplit == 1u ? TSR_DEP_POP_NEXT : 0u);
        }
        if (i + 1u == total) {
          deps |= TSR_DEP_PUSH_NEXT | (t + 2u < s->tiles ? TSR_DEP_PUSH_PREV : 0u) |
                  (hold ? TSR_DEP_POP_NEXT : 0u);
        }
        tsr_matmul_args_t mm;
        mm.a_addr = a0 + r0;
        mm.w_addr = p->wbase + rel * c->gemm.k + brow;
        mm.c_addr = dw_acc(s, t, rel) + r0;
        mm.m = (nrows - 1u) * p->wv + c->out_w;
        mm.k = kk;
        mm.n = ncols;
        mm.accumulate = q != 0u;
        mm.keep_weights = false;
        tsr_cmd_t cmd;
        st = tsr_cmd_matmul(dev, deps, &mm, &cmd);
        if (st == TSR_OK) {
          st = tsr_submit(dev, &cmd);
        }
        /* The STOREs of the tile before, in proportion: a few between two MATMULs. */
        while (st == TSR_OK && prev != NULL &&
               (uint64_t)prev->done * total < (uint64_t)(i + 1u) * prev->total) {
          st = dw_store_next(dev, s, prev);
        }
      }
    }
  }
  return st;
}

/* A window sum, image b, groups (channel blocks) [g0, g0 + gp): the window's pixels as
 * weights, the row of w as A (scratchpad row 0, loaded by the caller), one accumulator row
 * and its parameters per block. */
static tsr_status_t dw_window_pass(tsr_dev_t *dev, const dw_pass_t *s, uint32_t b) {
  const tsr_conv_desc_t *c = &s->d->c;
  const tsr_dw_plan_t *p = s->p;
  const uint32_t ic = c->in_c, dim = s->dim;
  const uint32_t c0 = s->g0 * s->d->group_c;
  const uint32_t cols = min32(s->gp * dim, ic - c0);
  const uint32_t seg_rows = p->seg_pix * s->gp; /* scratchpad rows of one run */
  tsr_status_t st = TSR_OK;
  for (uint32_t sg = 0u; sg < p->segs && st == TSR_OK; sg++) {
    const uint32_t y = sg * c->dil_h - c->pad_t; /* modulo 2^32, as the view's a_addr */
    st = tsr_fw_push_load(dev, sg + 1u == p->segs ? TSR_DEP_PUSH_NEXT : 0u, TSR_LOAD_SPAD,
                          c->in_addr + b * c->in_img + y * c->in_row - c->pad_l * ic + c0, ic,
                          p->seg_pix, cols, p->wbase + sg * seg_rows);
  }
  if (st == TSR_OK) {
    st = dw_params(dev, s, 0u, 0u, s->gp, 0u);
  }
  const uint32_t kblocks = ceil_div(p->seg_pix, dim);
  const uint32_t total = s->gp * p->segs * kblocks;
  uint32_t i = 0u;
  for (uint32_t rel = 0u; rel < s->gp && st == TSR_OK; rel++) {
    for (uint32_t sg = 0u; sg < p->segs && st == TSR_OK; sg++) {
      for (uint32_t kb = 0u; kb < kblocks && st == TSR_OK; kb++, i++) {
        tsr_matmul_args_t mm;
        mm.a_addr = 0u;
        mm.w_addr = p->wbase + sg * seg_rows + rel * p->seg_pix + kb * dim;
        mm.c_addr = rel * p->acc_stride;
        mm.m = 1u;
        mm.k = min32(dim, p->seg_pix - kb * dim);
        mm.n = dw_gc(s, s->g0 + rel);
        mm.accumulate = sg != 0u || kb != 0u;
        mm.keep_weights = false;
        const uint32_t deps = (i == 0u ? TSR_DEP_POP_PREV : 0u) | (i + 1u == total ? TSR_DEP_PUSH_NEXT : 0u);
        tsr_cmd_t cmd;
        st = tsr_cmd_matmul(dev, deps, &mm, &cmd);
        if (st == TSR_OK) {
          st = tsr_submit(dev, &cmd);
        }
      }
    }
  }
  dw_stores_t w = {0u, b, 0u, 1u, 0u, 0u, s->gp, 0u};
  if (st == TSR_OK) {
    st = dw_store_token(dev, &w);
  }
  while (st == TSR_OK && w.done < w.total) {
    st = dw_store_next(dev, s, &w);
  }
  return st;
}

static tsr_status_t dw_window_run(tsr_dev_t *dev, const tsr_dw_desc_t *d, const tsr_dw_plan_t *p) {
  tsr_status_t st = tsr_fw_push_load(dev, 0u, TSR_LOAD_SPAD, d->ones_addr, dev->info.dim, 1u,
                                     dev->info.dim, 0u);
  for (uint32_t b = 0u; b < d->c.batch && st == TSR_OK; b++) {
    for (uint32_t g0 = 0u; g0 < p->groups && st == TSR_OK; g0 += p->gp) {
      dw_pass_t s = {d, p, dev->info.dim, g0, min32(p->gp, p->groups - g0), 1u, 1u, 1u, 1u};
      if (b != 0u || g0 != 0u) {
        tsr_cmd_t fence;
        if ((st = tsr_cmd_fence(dev, false, &fence)) != TSR_OK ||
            (st = tsr_submit(dev, &fence)) != TSR_OK) {
          break;
        }
      }
      st = dw_window_pass(dev, &s, b);
    }
  }
  return st != TSR_OK ? st : tsr_wait(dev, TSR_WAIT_IRQ, 0u);
}

tsr_status_t tsr_dw_run(tsr_dev_t *dev, const tsr_dw_desc_t *d, const tsr_dw_plan_t *p) {
  if (dev == NULL || d == NULL || p == NULL) {
    return TSR_BAD_ARG;
  }
  tsr_dw_plan_t check;
  if (!tsr_dw_plan(&dev->info, d, &check) || check.gp != p->gp || check.mt != p->mt ||
      check.window != p->window || check.dense != p->dense || check.gtiles != p->gtiles) {
    set_err(dev, "dwconv: ", "the plan was not made for this descriptor and device");
    return TSR_BAD_ARG;
  }
  tsr_status_t st = TSR_OK;
  /* The activation table, once, in the rows tsr_dw_plan kept free above the weights. */
  const uint32_t lrows = tsr_gemm_lut_rows(&d->c.gemm, dev->info.dim);
  if (lrows != 0u &&
      (st = tsr_sfu_load_lut(dev, d->c.gemm.lut_addr, dev->info.spad_rows - lrows)) != TSR_OK) {
    return st;
  }
  if (p->window) {
    return dw_window_run(dev, d, p);
  }
  for (uint32_t g0 = 0u; g0 < p->groups && st == TSR_OK; g0 += p->gp) {
    dw_pass_t s;
    s.d = d;
    s.p = p;
    s.dim = dev->info.dim;
    s.g0 = g0;
    s.gp = min32(p->gp, p->groups - g0);
    s.phases = min32(p->phases, s.gp);
    s.tpi = ceil_div(d->c.out_h, p->th);
    s.tiles = d->c.batch * s.tpi;
    s.gsplit = p->gtiles ? s.gp : 1u;
    s.tiles *= s.gsplit;
    if (g0 != 0u) {
      tsr_cmd_t fence;
      if ((st = tsr_cmd_fence(dev, false, &fence)) != TSR_OK || (st = tsr_submit(dev, &fence)) != TSR_OK) {
        break;
      }
    }
    dw_stores_t prev; /* dw_stores_init fills it after tile 0 */
    prev.done = prev.total = 0u;
    st = dw_loads(dev, &s, 0u);
    for (uint32_t t = 0u; t < s.tiles && st == TSR_OK; t++) {
      /* An accumulator LOAD starts only when the array is idle: the parameters of the two
       * tile buffers, then one row again per tile. The engine holds a STORE back while
       * back-to-back MATMULs have touched its accumulator bank since the array was last
       * idle, so without this pause the STOREs of tile t-1 would wait for every MATMUL of
       * tile t (rtl/tsr_ctrl.v, mm_banks_q). */
      if (s.gsplit > 1u) {
        /* Its group's parameter rows (which pause the array as well), once the STOREs of
         * tile t-2 have read the buffer's. */
        uint32_t r0, r1;
        dw_rels(&s, t, &r0, &r1);
        st = dw_params(dev, &s, t, r0, r1, t >= 2u ? TSR_DEP_POP_NEXT : 0u);
      } else {
        st = t < 2u ? dw_params(dev, &s, t, 0u, s.gp, 0u) : dw_pause(dev, &s, p->cbuf[t % 2u]);
      }
      if (st == TSR_OK && t + 1u < s.tiles) {
        st = dw_loads(dev, &s, t + 1u);
      }
      if (st == TSR_OK) {
        st = dw_matmuls(dev, &s, t, t >= 1u ? &prev : NULL);
      }
      while (st == TSR_OK && t >= 1u && prev.done < prev.total) {
        st = dw_store_next(dev, &s, &prev);
      }
      dw_stores_init(&s, t, &prev);
    }
    if (st == TSR_OK) {
      st = dw_store_token(dev, &prev);
    }
    while (st == TSR_OK && prev.done < prev.total) {
      st = dw_store_next(dev, &s, &prev);
    }
  }
  if (st != TSR_OK) {
    return st;
  }
  return tsr_wait(dev, TSR_WAIT_IRQ, 0u);
}
