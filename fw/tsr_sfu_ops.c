/* tsr_sfu_ops.c: SFU job runners for Tessera: blocking, loads, SFU commands, SPAD stores (freestanding firmware). */
#include "tsr_fw.h"
#include "tsr_fw_cmd.h"

/*
 * Memory layout chosen by tsr_sfu_plan (C = ceil(len / N), br = block rows,
 * B = 1 or 2 buffers):
 *
 *   scratchpad:  [A buf 0: C*br rows][A buf 1] [B buf 0][B buf 1] (ADD)
 *                [gamma: C rows] (LAYERNORM)  [table: 256/N rows] (has_lut)
 *   accumulator: [result buf 0: br rows][result buf 1] (REDUCE)
 *                [parameter block: ceil(P/N) rows]  [beta: C rows] (LAYERNORM)
 *
 * A block of br tensor rows is one LOAD (ROWS = br, COLS = STRIDE = len):
 * element (r, j) lands in byte j mod N of row base + (j div N) * br + r, the
 * layout the SFU reads. The SFU writes its int8 result in place (docs/sfu.md
 * allows SRC = DST of the same layout), and one SPAD STORE per chunk column c
 * copies rows base + c*br .. + br - 1 to out + r0*len + c*N. REDUCE writes
 * accumulator rows instead, stored as raw int32 with COLS = 3.
 *
 * Dependency tokens (docs/commands.md). Stages: load (scratchpad LOADs),
 * compute (SFU, accumulator LOADs, NOP), store (STORE). For block i in
 * buffer i % B:
 *
 *   load -> compute  (data ready)    the last LOAD of block i PUSH_NEXT; SFU i POP_PREV.
 *                                    The one-time gamma LOAD precedes block 0's
 *                                    loads in the in-order load stage, so SFU 0's
 *                                    pop covers it too. The table LOAD PUSH_NEXT,
 *                                    SFU LUT_LOAD POP_PREV.
 *   compute -> store (result ready)  SFU i PUSH_NEXT; the first STORE of block i POP_PREV.
 *   In-place functions (the buffer holds the result until its STOREs ran):
 *   store -> compute (buffer free)   the last STORE of block i PUSH_PREV if a block
 *                                    i+B exists; a NOP just before block i+B's
 *                                    loads POP_NEXT and PUSH_PREV (compute -> load);
 *                                    the first LOAD of block i+B POP_NEXT.
 *   REDUCE (input in the scratchpad, result in the accumulator):
 *   compute -> load  (A buffer free) SFU i PUSH_PREV if a block i+B exists; the first
 *                                    LOAD of block i+B POP_NEXT.
 *   store -> compute (result free)   STORE i PUSH_PREV if a block i+B exists; SFU i+B
 *                                    POP_NEXT.
 *
 * Every push is matched by exactly one pop later in program order, so the
 * serial engine never pops an empty counter, the counters end at zero and
 * never exceed 2.
 */

#define MAX16 0xffffu
/* Scratchpad rows of a flat block (an element-wise job in rows of N), or one segment if that is
 * longer: small blocks keep the first LOAD and the last STORE, which nothing overlaps, short.
 * ResNet-8's first ADD (16,384 elements, N = 8): 50,886 cycles in blocks of 512 rows, 48,462 of
 * 256, 47,405 of 64. */
#define FLAT_BLOCK_ROWS 64u



static const uint64_t k4G = (uint64_t)1 << 32;

/* ---- Descriptor checks ----------------------------------------------------------------------- */

typedef struct span {
  uint64_t lo, hi; /* [lo, hi) */
} span_t;

static span_t span_of(uint32_t addr, uint64_t bytes) {
  span_t s;
  s.lo = addr;
  s.hi = (uint64_t)addr + bytes;
  return s;
}

static bool overlaps(span_t a, span_t b) { return a.lo < b.hi && b.lo < a.hi; }

static bool same(span_t a, span_t b) { return a.lo == b.lo && a.hi == b.hi; }

tsr_status_t tsr_sfu_check_desc(const tsr_sfu_desc_t *d, const char **why) {
  static const char *dummy;
  if (why == NULL) {
    why = &dummy;
  }
  *why = "";
  if (d == NULL) {
    *why = "no descriptor";
    return TSR_BAD_ARG;
  }
  if (d->func != TSR_FUNC_MAP && d->func != TSR_FUNC_REDUCE && d->func != TSR_FUNC_SOFTMAX &&
      d->func != TSR_FUNC_LAYERNORM && !tsr_sfu_two_tensors(d->func)) {
    *why = "func must be MAP, REDUCE, SOFTMAX, LAYERNORM, ADD or MUL";
    return TSR_BAD_ARG;
  }
  if (d->rows == 0u) {
    *why = "rows must be >= 1";
    return TSR_BAD_ARG;
  }
  if (d->len == 0u || d->len > MAX16) {
    *why = "len must be 1..65535";
    return TSR_BAD_ARG;
  }
  if (d->has_lut && d->func != TSR_FUNC_MAP) {
    *why = "a table (has_lut) goes with MAP only";
    return TSR_BAD_ARG;
  }
  const uint64_t tensor = (uint64_t)d->rows * d->len;
  const bool two = tsr_sfu_two_tensors(d->func);
  uint64_t in_bytes = tensor, in2_bytes = tensor, out_bytes = tensor;
  if (d->seg_rows != 0u) {
    const uint64_t seg = (uint64_t)d->seg_rows * d->len;
    const uint64_t gaps = d->rows / d->seg_rows - 1u; /* segments after the first */
    if (!tsr_sfu_elementwise(d->func)) {
      *why = "segments (seg_rows) go with MAP, ADD and MUL only";
      return TSR_BAD_ARG;
    }
    if (d->rows % d->seg_rows != 0u) {
      *why = "rows must be a multiple of seg_rows";
      return TSR_BAD_ARG;
    }
    if (d->in_pitch < seg || d->out_pitch < seg || (two && d->in2_pitch < seg)) {
      *why = "a segment pitch is less than seg_rows * len: segments would overlap";
      return TSR_BAD_ARG;
    }
    in_bytes = gaps * d->in_pitch + seg;
    in2_bytes = gaps * d->in2_pitch + seg;
    out_bytes = gaps * d->out_pitch + seg;
  }
  const span_t in = span_of(d->in_addr, in_bytes);
  const span_t out = span_of(d->out_addr, d->func == TSR_FUNC_REDUCE ? (uint64_t)d->rows * 12u
                                                                      : out_bytes);
  span_t in2 = span_of(0u, 0u);
  span_t beta = span_of(0u, 0u);
  span_t param = span_of(0u, 0u);
  span_t lut = span_of(0u, 0u);
  if (two) {
    in2 = span_of(d->in2_addr, in2_bytes);
  } else if (d->func == TSR_FUNC_LAYERNORM) {
    in2 = span_of(d->in2_addr, d->len);
    beta = span_of(d->beta_addr, 4u * (uint64_t)d->len);
  }
  if (tsr_sfu_param_words(d->func) != 0u) {
    param = span_of(d->param_addr, 4u * tsr_sfu_param_words(d->func));
  }
  if (d->has_lut) {
    lut = span_of(d->lut_addr, TSR_SFU_LUT_ENTRIES);
  }
  if (in.hi > k4G || out.hi > k4G || in2.hi > k4G || beta.hi > k4G || param.hi > k4G ||
      lut.hi > k4G) {
    *why = "a tensor or parameter region extends past the 32-bit address space";
    return TSR_BAD_ARG;
  }
  /* The output is written while later blocks are still read: it may be the
   * input tensor itself (row r is loaded before it is stored), never a part
   * of it or of anything else. */
  const bool in_place = d->func != TSR_FUNC_REDUCE && same(out, in) &&
                        (d->seg_rows == 0u || d->out_pitch == d->in_pitch);
  const bool in_place2 =
      two && same(out, in2) && (d->seg_rows == 0u || d->out_pitch == d->in2_pitch);
  if ((overlaps(out, in) && !in_place) || (overlaps(out, in2) && !in_place2) ||
      overlaps(out, beta) || overlaps(out, param) || overlaps(out, lut)) {
    *why = "the output region overlaps an input region (only out = in, in place, is allowed)";
    return TSR_BAD_ARG;
  }
  return TSR_OK;
}

/* ---- Descriptor ------------------------------------------------------------------------------ */

bool tsr_sfu_elementwise(uint32_t func) {
  return func == TSR_FUNC_MAP || tsr_sfu_two_tensors(func);
}

void tsr_sfu_desc_flatten(tsr_sfu_desc_t *d, uint32_t dim) {
  if (d == NULL || dim == 0u || !tsr_sfu_elementwise(d->func)) {
    return;
  }
  /* 32-bit division only: the freestanding firmware has no 64-bit divide. */
  const uint64_t elems = (uint64_t)d->rows * d->len;
  const uint64_t seg = (uint64_t)d->seg_rows * d->len;
  if (elems == 0u || elems > 0xffffffffu || seg > 0xffffffffu) {
    return;
  }
  if ((uint32_t)elems % dim == 0u && (uint32_t)seg % dim == 0u) {
    d->rows = (uint32_t)elems / dim;
    d->seg_rows = (uint32_t)seg / dim;
    d->len = dim;
  }
}

/* ---- Planner ----------------------------------------------------------------------------- */

tsr_status_t tsr_sfu_plan(const tsr_dev_info_t *info, const tsr_sfu_desc_t *d, tsr_sfu_plan_t *p,
                          const char **why) {
  static const char *dummy;
  if (why == NULL) {
    why = &dummy;
  }
  *why = "";
  if (info == NULL || d == NULL || p == NULL || info->dim == 0u) {
    *why = "no device information, descriptor or plan";
    return TSR_BAD_ARG;
  }
  if (!info->has_sfu) {
    *why = "this chip was built without the SFU (CONFIG.SFU = 0)";
    return TSR_UNSUPPORTED;
  }
  tsr_status_t st = tsr_sfu_check_desc(d, why);
  if (st != TSR_OK) {
    return st;
  }
  const uint32_t dim = info->dim;
  if (d->func == TSR_FUNC_REDUCE && dim < 3u) {
    *why = "REDUCE writes 3 accumulator lanes: the array must be at least 3 wide";
    return TSR_UNSUPPORTED;
  }
  const uint32_t c = ceil_div(d->len, dim);
  const bool two = tsr_sfu_two_tensors(d->func); /* ADD, MUL: B beside A */
  const bool is_ln = d->func == TSR_FUNC_LAYERNORM;
  const bool is_red = d->func == TSR_FUNC_REDUCE;
  const uint32_t lut_rows = d->has_lut ? ceil_div(TSR_SFU_LUT_ENTRIES, dim) : 0u;
  const uint32_t words = tsr_sfu_param_words(d->func);
  const uint32_t prm_rows = ceil_div(words, dim);
  /* Fixed regions at the top of each memory. */
  const uint64_t spad_fixed = (uint64_t)lut_rows + (is_ln ? c : 0u);
  const uint64_t acc_fixed = (uint64_t)prm_rows + (is_ln ? c : 0u);
  const uint64_t per_row = (uint64_t)c * (two ? 2u : 1u);
  if (spad_fixed + per_row > info->spad_rows) {
    *why = is_ln ? "one row (and gamma) does not fit the scratchpad: len is too large"
                 : "one row does not fit the scratchpad: len is too large";
    return TSR_UNSUPPORTED;
  }
  if (acc_fixed + (is_red ? 1u : 0u) > info->acc_rows) {
    *why = is_ln ? "beta (len int32) and the parameter block do not fit the accumulator: len is "
                   "too large"
                 : "the parameter block does not fit the accumulator";
    return TSR_UNSUPPORTED;
  }
  /* An element-wise job in rows of N is flat (tsr_sfu_run): a block is one SFU row of at most
   * 65535 elements, and whole segments. */
  const bool flat = tsr_sfu_elementwise(d->func) && d->len == dim;
  const uint32_t seg = d->seg_rows;
  if (seg != 0u && !flat) {
    *why = "segments (seg_rows) need rows of N elements (tsr_sfu_desc_flatten)";
    return TSR_UNSUPPORTED;
  }
  const uint32_t spad_free = info->spad_rows - (uint32_t)spad_fixed;
  const uint32_t acc_free = info->acc_rows - (uint32_t)acc_fixed;
  uint32_t bufs = 1u;
  uint32_t br = 0u;
  for (uint32_t b = 1u; b <= 2u; b++) {
    uint32_t fit = spad_free / (b * (uint32_t)per_row);
    if (is_red) {
      fit = min32(fit, acc_free / b);
    }
    if (flat) {
      fit = min32(fit, min32(MAX16 / dim, seg > FLAT_BLOCK_ROWS ? seg : FLAT_BLOCK_ROWS));
    }
    fit = min32(fit, MAX16);
    if (seg != 0u) {
      fit -= fit % seg;
      if (b == 1u && fit == 0u) {
        *why = "one segment (seg_rows rows) does not fit the scratchpad";
        return TSR_UNSUPPORTED;
      }
    }
    if (b == 1u) {
      br = fit;
      if (d->rows <= fit) {
        break; /* one block: nothing to overlap */
      }
    } else if (fit >= 1u) {
      bufs = 2u;
      br = fit;
    }
  }
  /* Same number of blocks, evenly sized. */
  const uint32_t blocks = ceil_div(d->rows, br);
  br = ceil_div(d->rows, blocks);
  if (seg != 0u) {
    br = ceil_div(br, seg) * seg;
  }

  /* Every field is assigned (no struct copies or zero-initializers: those
   * can become memcpy/memset calls, which the firmware does not link). */
  const uint32_t a_rows = c * br;
  p->dim = dim;
  p->chunks = c;
  p->block_rows = br;
  p->blocks = blocks;
  p->bufs = bufs;
  for (uint32_t i = 0u; i < 2u; i++) {
    const bool used = i < bufs;
    p->a_base[i] = used ? i * a_rows : 0u;
    p->b_base[i] = used && two ? (bufs + i) * a_rows : 0u;
    p->red_base[i] = used && is_red ? i * br : 0u;
  }
  const uint32_t spad_top = (two ? 2u : 1u) * bufs * a_rows;
  p->gamma_row = is_ln ? spad_top : 0u;
  p->lut_row = d->has_lut ? spad_top + (is_ln ? c : 0u) : 0u;
  const uint32_t acc_top = is_red ? bufs * br : 0u;
  p->param_row = acc_top;
  p->beta_row = is_ln ? acc_top + prm_rows : 0u;
  /* beta: 4*len bytes in LOADs of at most 65535 bytes, each a whole number
   * of 4N-byte accumulator rows except the last. */
  const uint32_t piece = (MAX16 / (4u * dim)) * 4u * dim;
  p->beta_loads = is_ln ? ceil_div(4u * d->len, piece) : 0u;

  /* Commands and bytes. */
  uint64_t cmds =
      (d->has_lut ? 2u : 0u) + (words != 0u ? 1u : 0u) + (is_ln ? 1u + p->beta_loads : 0u);
  if (flat) { /* per piece (segment, or the whole block) a LOAD per tensor and a STORE */
    for (uint32_t i = 0u; i < blocks; i++) {
      const uint32_t pieces = seg != 0u ? ceil_div(min32(br, d->rows - i * br), seg) : 1u;
      cmds += 1u + (uint64_t)pieces * (two ? 3u : 2u);
    }
  } else {
    cmds += (uint64_t)blocks * ((two ? 2u : 1u) + 1u + (is_red ? 1u : c));
  }
  if (!is_red && blocks > bufs) {
    cmds += blocks - bufs; /* the buffer-free relays */
  }
  p->cmds = cmds;
  p->dma_rd_bytes = (uint64_t)d->rows * d->len * (two ? 2u : 1u) + 4u * (uint64_t)words +
                    (d->has_lut ? TSR_SFU_LUT_ENTRIES : 0u) + (is_ln ? 5u * (uint64_t)d->len : 0u);
  p->dma_wr_bytes = is_red ? (uint64_t)d->rows * 12u : (uint64_t)d->rows * d->len;
  return TSR_OK;
}

/* ---- Executor ------------------------------------------------------------------------------------- */

static tsr_status_t push_sfu(tsr_dev_t *dev, uint32_t deps, uint32_t func, uint32_t src,
                             uint32_t dst, uint32_t rows, uint32_t len, uint32_t src2,
                             uint32_t param, uint32_t aux) {
  tsr_sfu_args_t a;
  a.func = func;
  a.src = src;
  a.dst = dst;
  a.rows = rows;
  a.len = len;
  a.src2 = src2;
  a.param = param;
  a.aux = aux;
  tsr_cmd_t cmd;
  tsr_status_t st = tsr_cmd_sfu(dev, deps, &a, &cmd);
  if (st == TSR_OK) {
    st = tsr_submit(dev, &cmd);
  }
  return st;
}

/* A STORE of scratchpad bytes (spad) or of raw int32 accumulator values. */
static tsr_status_t push_store(tsr_dev_t *dev, uint32_t deps, bool spad, uint32_t addr,
                               uint32_t stride, uint32_t rows, uint32_t cols, uint32_t src) {
  tsr_store_args_t a;
  a.addr = addr;
  a.stride = stride;
  a.rows = rows;
  a.cols = cols;
  a.src = src;
  a.param = 0u;
  a.bias = false;
  a.requant = false;
  a.per_channel = false;
  a.spad = spad;
  a.lut = false;
  a.leaky = false;
  a.mult = 0;
  a.shift = 0;
  a.out_zp = 0;
  a.act_min = 0;
  a.act_max = 0;
  tsr_cmd_t cmd;
  tsr_status_t st = tsr_cmd_store(dev, deps, &a, &cmd);
  if (st == TSR_OK) {
    st = tsr_submit(dev, &cmd);
  }
  return st;
}

tsr_status_t tsr_sfu_load_lut(tsr_dev_t *dev, uint32_t lut_addr, uint32_t spad_row) {
  if (dev == NULL || dev->info.dim == 0u) {
    return TSR_BAD_ARG;
  }
  tsr_status_t st = tsr_fw_push_load(dev, TSR_DEP_PUSH_NEXT, TSR_LOAD_SPAD, lut_addr,
                              TSR_SFU_LUT_ENTRIES, 1u, TSR_SFU_LUT_ENTRIES, spad_row);
  if (st == TSR_OK) {
    st = push_sfu(dev, TSR_DEP_POP_PREV, TSR_FUNC_LUT_LOAD, spad_row, 0u, 1u,
                  TSR_SFU_LUT_ENTRIES, 0u, 0u, 0u);
  }
  return st;
}

/* A flat job (an element-wise function in rows of N): block rows r0 .. r0 + nr - 1 are whole
 * segments (or, without segments, one piece), each contiguous in memory and, in order, in the
 * scratchpad from `base`. Row r of a tensor at `addr` with segment pitch `pitch`: */
static uint32_t flat_row_addr(const tsr_sfu_desc_t *d, uint32_t addr, uint32_t pitch, uint32_t r) {
  return d->seg_rows == 0u ? addr + r * d->len
                           : addr + (r / d->seg_rows) * pitch + (r % d->seg_rows) * d->len;
}

/* The block's LOADs, one row each per piece: A's, then B's (ADD, MUL). The first carries
 * `first_deps`, the last PUSH_NEXT. */
static tsr_status_t flat_loads(tsr_dev_t *dev, const tsr_sfu_desc_t *d, const tsr_sfu_plan_t *p,
                               uint32_t r0, uint32_t nr, uint32_t a_base, uint32_t b_base,
                               uint32_t first_deps) {
  const uint32_t piece = d->seg_rows != 0u ? d->seg_rows : nr;
  const bool two = tsr_sfu_two_tensors(d->func);
  tsr_status_t st = TSR_OK;
  for (uint32_t t = 0u; t < (two ? 2u : 1u) && st == TSR_OK; t++) {
    for (uint32_t r = 0u; r < nr && st == TSR_OK; r += piece) {
      const uint32_t bytes = piece * p->dim;
      uint32_t deps = t == 0u && r == 0u ? first_deps : 0u;
      if (t + 1u == (two ? 2u : 1u) && r + piece >= nr) {
        deps |= TSR_DEP_PUSH_NEXT;
      }
      st = tsr_fw_push_load(dev, deps, TSR_LOAD_SPAD,
                            t == 0u ? flat_row_addr(d, d->in_addr, d->in_pitch, r0 + r)
                                    : flat_row_addr(d, d->in2_addr, d->in2_pitch, r0 + r),
                            bytes, 1u, bytes, (t == 0u ? a_base : b_base) + r);
    }
  }
  return st;
}

/* The block's STOREs, one per piece: the first POP_PREV, the last with `last_deps`. */
static tsr_status_t flat_stores(tsr_dev_t *dev, const tsr_sfu_desc_t *d, const tsr_sfu_plan_t *p,
                                uint32_t r0, uint32_t nr, uint32_t base, uint32_t last_deps) {
  const uint32_t piece = d->seg_rows != 0u ? d->seg_rows : nr;
  tsr_status_t st = TSR_OK;
  for (uint32_t r = 0u; r < nr && st == TSR_OK; r += piece) {
    const uint32_t deps =
        (r == 0u ? TSR_DEP_POP_PREV : 0u) | (r + piece >= nr ? last_deps : 0u);
    st = push_store(dev, deps, true, flat_row_addr(d, d->out_addr, d->out_pitch, r0 + r), p->dim,
                    piece, p->dim, base + r);
  }
  return st;
}

static bool plan_consistent(const tsr_dev_info_t *info, const tsr_sfu_desc_t *d,
                            const tsr_sfu_plan_t *p) {
  return p->dim == info->dim && p->chunks == ceil_div(d->len, info->dim) && p->block_rows != 0u &&
         p->block_rows <= MAX16 && (p->bufs == 1u || p->bufs == 2u) &&
         p->blocks == ceil_div(d->rows, p->block_rows);
}

tsr_status_t tsr_sfu_run(tsr_dev_t *dev, const tsr_sfu_desc_t *d, const tsr_sfu_plan_t *p) {
  if (dev == NULL || d == NULL || p == NULL || dev->info.dim == 0u) {
    return TSR_BAD_ARG;
  }
  const char *why = "";
  if (tsr_sfu_check_desc(d, &why) != TSR_OK) {
    set_err(dev, "sfu: ", why);
    return TSR_BAD_ARG;
  }
  if (!plan_consistent(&dev->info, d, p)) {
    set_err(dev, "sfu: the plan was not made for this descriptor and device", NULL);
    return TSR_BAD_ARG;
  }
  const uint32_t dim = dev->info.dim;
  const uint32_t len = d->len;
  const uint32_t c = p->chunks;
  const bool two = tsr_sfu_two_tensors(d->func); /* ADD, MUL: B beside A */
  const bool is_ln = d->func == TSR_FUNC_LAYERNORM;
  const bool is_red = d->func == TSR_FUNC_REDUCE;
  const uint32_t words = tsr_sfu_param_words(d->func);
  /* An element-wise function on rows of exactly N (tsr_sfu_desc_flatten): a block is one
   * contiguous run in memory and in the scratchpad (row r at base + r), so each tensor's block
   * moves as one LOAD row in long bursts, and the SFU takes the block as one row. */
  const bool flat = tsr_sfu_elementwise(d->func) && len == dim;
  tsr_status_t st = TSR_OK;

  /* One-time loads: table, parameter block, gamma, beta. */
  if (d->has_lut && (st = tsr_sfu_load_lut(dev, d->lut_addr, p->lut_row)) != TSR_OK) {
    return st;
  }
  if (words != 0u && (st = tsr_fw_push_load(dev, 0u, TSR_LOAD_ACC, d->param_addr, 4u * words, 1u,
                                     4u * words, p->param_row)) != TSR_OK) {
    return st;
  }
  if (is_ln) {
    if ((st = tsr_fw_push_load(dev, 0u, TSR_LOAD_SPAD, d->in2_addr, len, 1u, len, p->gamma_row)) !=
        TSR_OK) {
      return st;
    }
    const uint32_t piece = (MAX16 / (4u * dim)) * 4u * dim;
    const uint32_t total = 4u * len;
    for (uint32_t off = 0u; off < total; off += piece) {
      const uint32_t cols = min32(piece, total - off);
      if ((st = tsr_fw_push_load(dev, 0u, TSR_LOAD_ACC, d->beta_addr + off, cols, 1u, cols,
                          p->beta_row + off / (4u * dim))) != TSR_OK) {
        return st;
      }
    }
  }

  for (uint32_t i = 0u; i < p->blocks; i++) {
    const uint32_t r0 = i * p->block_rows;
    const uint32_t nr = min32(p->block_rows, d->rows - r0);
    const uint32_t buf = i % p->bufs;
    const uint32_t abase = p->a_base[buf];
    const bool reuse = i >= p->bufs;              /* the buffer held block i - B */
    const bool freed_later = i + p->bufs < p->blocks; /* block i + B will reuse it */

    if (reuse && !is_red) {
      /* Relay "block i-B stored" (store -> compute) to the load stage. */
      tsr_cmd_t cmd;
      st = tsr_cmd_nop(dev, TSR_DEP_POP_NEXT | TSR_DEP_PUSH_PREV, &cmd);
      if (st == TSR_OK) {
        st = tsr_submit(dev, &cmd);
      }
      if (st != TSR_OK) {
        return st;
      }
    }
    const uint32_t first = reuse ? TSR_DEP_POP_NEXT : 0u;
    if (flat) {
      st = flat_loads(dev, d, p, r0, nr, abase, p->b_base[buf], first);
    } else {
      st = tsr_fw_push_load(dev, first | (two ? 0u : TSR_DEP_PUSH_NEXT), TSR_LOAD_SPAD,
                            d->in_addr + r0 * len, len, nr, len, abase);
      if (st == TSR_OK && two) {
        st = tsr_fw_push_load(dev, TSR_DEP_PUSH_NEXT, TSR_LOAD_SPAD, d->in2_addr + r0 * len, len,
                              nr, len, p->b_base[buf]);
      }
    }
    if (st != TSR_OK) {
      return st;
    }

    uint32_t sdeps = TSR_DEP_POP_PREV | TSR_DEP_PUSH_NEXT;
    if (is_red) {
      sdeps |= (reuse ? TSR_DEP_POP_NEXT : 0u) | (freed_later ? TSR_DEP_PUSH_PREV : 0u);
    }
    st = push_sfu(dev, sdeps, d->func, abase, is_red ? p->red_base[buf] : abase, flat ? 1u : nr,
                  flat ? nr * len : len,
                  two ? p->b_base[buf] : (is_ln ? p->gamma_row : 0u), p->param_row,
                  is_ln ? p->beta_row : 0u);
    if (st != TSR_OK) {
      return st;
    }

    if (is_red) {
      st = push_store(dev, TSR_DEP_POP_PREV | (freed_later ? TSR_DEP_PUSH_PREV : 0u), false,
                      d->out_addr + r0 * 12u, 12u, nr, 3u, p->red_base[buf]);
      if (st != TSR_OK) {
        return st;
      }
      continue;
    }
    if (flat) {
      st = flat_stores(dev, d, p, r0, nr, abase, freed_later ? TSR_DEP_PUSH_PREV : 0u);
      if (st != TSR_OK) {
        return st;
      }
      continue;
    }
    for (uint32_t ch = 0u; ch < c; ch++) {
      uint32_t deps = ch == 0u ? TSR_DEP_POP_PREV : 0u;
      if (ch + 1u == c && freed_later) {
        deps |= TSR_DEP_PUSH_PREV;
      }
      st = push_store(dev, deps, true, d->out_addr + r0 * len + ch * dim, len, nr,
                      min32(dim, len - ch * dim), abase + ch * nr);
      if (st != TSR_OK) {
        return st;
      }
    }
  }
  return tsr_wait(dev, TSR_WAIT_IRQ, 0u);
}

/* ---- Whole operations ------------------------------------------------------------------------------- */

static void desc_init(tsr_sfu_desc_t *d, uint32_t func, uint32_t rows, uint32_t len,
                      uint32_t in_addr, uint32_t out_addr) {
  d->func = func;
  d->rows = rows;
  d->len = len;
  d->in_addr = in_addr;
  d->in2_addr = 0u;
  d->beta_addr = 0u;
  d->param_addr = 0u;
  d->has_lut = false;
  d->lut_addr = 0u;
  d->out_addr = out_addr;
  d->seg_rows = 0u;
  d->in_pitch = 0u;
  d->in2_pitch = 0u;
  d->out_pitch = 0u;
}

static tsr_status_t plan_and_run(tsr_dev_t *dev, const tsr_sfu_desc_t *d) {
  if (dev == NULL || dev->info.dim == 0u) {
    return TSR_BAD_ARG;
  }
  tsr_sfu_plan_t plan;
  const char *why = "";
  tsr_status_t st = tsr_sfu_plan(&dev->info, d, &plan, &why);
  if (st != TSR_OK) {
    set_err(dev, "sfu: ", why);
    return st;
  }
  return tsr_sfu_run(dev, d, &plan);
}

tsr_status_t tsr_sfu_run_lut(tsr_dev_t *dev, uint32_t lut_addr, uint32_t rows, uint32_t len,
                             uint32_t in_addr, uint32_t out_addr) {
  tsr_sfu_desc_t d;
  desc_init(&d, TSR_FUNC_MAP, rows, len, in_addr, out_addr);
  d.has_lut = true;
  d.lut_addr = lut_addr;
  return plan_and_run(dev, &d);
}

tsr_status_t tsr_sfu_run_map(tsr_dev_t *dev, uint32_t rows, uint32_t len, uint32_t in_addr,
                             uint32_t out_addr) {
  tsr_sfu_desc_t d;
  desc_init(&d, TSR_FUNC_MAP, rows, len, in_addr, out_addr);
  return plan_and_run(dev, &d);
}

tsr_status_t tsr_sfu_run_reduce(tsr_dev_t *dev, uint32_t rows, uint32_t len, uint32_t in_addr,
                                uint32_t out_addr) {
  tsr_sfu_desc_t d;
  desc_init(&d, TSR_FUNC_REDUCE, rows, len, in_addr, out_addr);
  return plan_and_run(dev, &d);
}

tsr_status_t tsr_sfu_run_softmax(tsr_dev_t *dev, uint32_t rows, uint32_t len, uint32_t in_addr,
                                 uint32_t param_addr, uint32_t out_addr) {
  tsr_sfu_desc_t d;
  desc_init(&d, TSR_FUNC_SOFTMAX, rows, len, in_addr, out_addr);
  d.param_addr = param_addr;
  return plan_and_run(dev, &d);
}

tsr_status_t tsr_sfu_run_layernorm(tsr_dev_t *dev, uint32_t rows, uint32_t len, uint32_t in_addr,
                                   uint32_t gamma_addr, uint32_t beta_addr, uint32_t param_addr,
                                   uint32_t out_addr) {
  tsr_sfu_desc_t d;
  desc_init(&d, TSR_FUNC_LAYERNORM, rows, len, in_addr, out_addr);
  d.in2_addr = gamma_addr;
  d.beta_addr = beta_addr;
  d.param_addr = param_addr;
  return plan_and_run(dev, &d);
}

static tsr_status_t run_two(tsr_dev_t *dev, uint32_t func, uint32_t rows, uint32_t len,
                            uint32_t a_addr, uint32_t b_addr, uint32_t param_addr,
                            uint32_t out_addr) {
  tsr_sfu_desc_t d;
  desc_init(&d, func, rows, len, a_addr, out_addr);
  d.in2_addr = b_addr;
  d.param_addr = param_addr;
  return plan_and_run(dev, &d);
}

tsr_status_t tsr_sfu_run_add(tsr_dev_t *dev, uint32_t rows, uint32_t len, uint32_t a_addr,
                             uint32_t b_addr, uint32_t param_addr, uint32_t out_addr) {
  return run_two(dev, TSR_FUNC_ADD, rows, len, a_addr, b_addr, param_addr, out_addr);
}

tsr_status_t tsr_sfu_run_mul(tsr_dev_t *dev, uint32_t rows, uint32_t len, uint32_t a_addr,
                             uint32_t b_addr, uint32_t param_addr, uint32_t out_addr) {
  return run_two(dev, TSR_FUNC_MUL, rows, len, a_addr, b_addr, param_addr, out_addr);
}

/* ---- Strided copies ------------------------------------------------------------------------------ */

tsr_status_t tsr_copy_run(tsr_dev_t *dev, const tsr_copy_desc_t *d) {
  if (dev == NULL || d == NULL || dev->info.dim == 0u || dev->info.spad_rows == 0u) {
    return TSR_BAD_ARG;
  }
  const uint32_t dim = dev->info.dim;
  const uint32_t d0 = d->dims[0], d1 = d->dims[1], d2 = d->dims[2], d3 = d->dims[3];
  if (d0 == 0u || d1 == 0u || d2 == 0u || d3 == 0u) {
    return TSR_BAD_ARG;
  }
  if (d3 > MAX16) {
    set_err(dev, "copy: ", "a row longer than 65535 bytes");
    return TSR_UNSUPPORTED;
  }
  /* The output strides: general, or dense rows out_row apart. */
  const bool general = (d->out_stride[0] | d->out_stride[1] | d->out_stride[2] | d->out_stride[3]) != 0u;
  const uint32_t orow = d->out_row != 0u ? d->out_row : d3;
  const uint32_t os3 = general ? d->out_stride[3] : 1u;
  const uint32_t os2 = general ? d->out_stride[2] : orow;
  const uint32_t os1 = general ? d->out_stride[1] : d2 * orow;
  const uint32_t os0 = general ? d->out_stride[0] : d1 * d2 * orow;
  const bool runs = d->in_stride[3] == 1u && os3 == 1u;
  const uint32_t chunks = runs ? (d3 + dim - 1u) / dim : 1u;
  /* runs: blocks of rows of dims[3] bytes (chunks scratchpad rows each); else one element per
   * scratchpad row, blocks along dims[3]. */
  uint32_t cap = dev->info.spad_rows / chunks;
  cap = cap < MAX16 ? cap : MAX16;
  if (cap == 0u) {
    set_err(dev, "copy: ", "a row does not fit the scratchpad");
    return TSR_UNSUPPORTED;
  }
  tsr_status_t st = TSR_OK;
  for (uint32_t a = 0u; a < d0 && st == TSR_OK; a++) {
    for (uint32_t b = 0u; b < d1 && st == TSR_OK; b++) {
      const uint32_t base = d->in_addr + a * d->in_stride[0] + b * d->in_stride[1];
      const uint32_t out = d->out_addr + a * os0 + b * os1;
      if (runs) {
        for (uint32_t r0 = 0u; r0 < d2 && st == TSR_OK; r0 += cap) {
          const uint32_t nr = min32(cap, d2 - r0);
          st = tsr_fw_push_load(dev, 0u, TSR_LOAD_SPAD, base + r0 * d->in_stride[2], d->in_stride[2],
                                nr, d3, 0u);
          for (uint32_t ch = 0u; ch < chunks && st == TSR_OK; ch++) {
            st = push_store(dev, 0u, true, out + r0 * os2 + ch * dim, os2, nr,
                            min32(dim, d3 - ch * dim), ch * nr);
          }
        }
        continue;
      }
      for (uint32_t c = 0u; c < d2 && st == TSR_OK; c++) {
        for (uint32_t e0 = 0u; e0 < d3 && st == TSR_OK; e0 += cap) {
          const uint32_t ne = min32(cap, d3 - e0);
          st = tsr_fw_push_load(dev, 0u, TSR_LOAD_SPAD,
                                base + c * d->in_stride[2] + e0 * d->in_stride[3], d->in_stride[3],
                                ne, 1u, 0u);
          if (st == TSR_OK) {
            st = push_store(dev, 0u, true, out + c * os2 + e0 * os3, os3, ne, 1u, 0u);
          }
        }
      }
    }
  }
  return st == TSR_OK ? tsr_wait(dev, TSR_WAIT_IRQ, 0u) : st;
}
