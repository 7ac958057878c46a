/* tsr_gemm_emit.c: GEMM command emission: a plan's commands and tokens (freestanding firmware). */
#include "tsr_gemm_int.h"

/*
 * Dependency tokens (docs/commands.md). Stages: load (scratchpad LOADs),
 * compute (MATMUL, accumulator LOADs, NOP), store (STORE). Groups and tiles
 * are those of the loop nest (tsr_gemm_int.h). With S scratchpad buffer pairs
 * and T accumulator buffers (1 or 2 each):
 *
 *   load -> compute  (data ready)  the last LOAD of every group PUSH_NEXT;
 *                                  the first MATMUL of every group POP_PREV.
 *                                  (The stage is in order, so the W load
 *                                  finishing implies the A load finished.)
 *   compute -> load  (buffer free) the last MATMUL of group g PUSH_PREV if a
 *                                  group g+S exists; the first LOAD of group
 *                                  g >= S POP_NEXT. Group g's buffers were
 *                                  last used by group g-S (W: slot g % S; a
 *                                  resident A of m-tile t sits in slot t % S
 *                                  and its last user is at most group g-S
 *                                  because every m-tile has >= 1 group).
 *                                  The executor issues group g+1's LOADs
 *                                  before group g's MATMULs when S = 2.
 *   compute -> store (tile ready)  the last compute command of tile i (its
 *                                  last parameter LOAD, else its last MATMUL)
 *                                  PUSH_NEXT; tile i's first STORE POP_PREV
 *                                  (its other STOREs follow it in the store
 *                                  stage's order).
 *   store -> compute (tile free)   tile i's last STORE PUSH_PREV if a tile i+T
 *                                  exists; the first MATMUL of tile i >= T
 *                                  POP_NEXT (its accumulator rows and
 *                                  parameter rows were last read by the
 *                                  STOREs of tile i-T). With T = 2 the
 *                                  second-to-last tile's last STORE pushes
 *                                  too, and a NOP after the job's last STORE
 *                                  pops it (tsr_gemm_tail_token). Else, with
 *                                  several sub-tiles in the last tile, its
 *                                  first STORE pushes, for that NOP, so that
 *                                  its other STOREs are not untokened code
 *                                  (tsr_gemm_lead_token).
 *
 * Every push is matched by exactly one pop, so all four counters are back to
 * zero at the end of a job; in program order each pop follows its push, so
 * the serial engine never pops an empty counter; counters never exceed 2 (3
 * with a table: the load stage may run ahead by its token and those of two
 * groups).
 */

#define PARAM_ROWS_MAX TSR_STORE_PARAM_ROWS_LEAKY

/* Accumulator rows of sub-tile jj of the tile at cbase: its results, and its
 * parameter rows after all nb sub-tiles' results (tsr_gemm_int.h). */
static uint32_t sub_rows(const tsr_gemm_plan_t *p, uint32_t cbase, uint32_t jj) {
  return cbase + jj * p->mt;
}
static uint32_t sub_params(const tsr_gemm_desc_t *d, const tsr_gemm_plan_t *p,
                           const tsr_gemm_group_t *x, uint32_t jj) {
  uint32_t stride;
  const uint32_t r = tsr_gemm_param_merge(d, &stride);
  return x->cbase + p->nb * p->mt + jj * (r != 0u ? r : p->param_rows);
}

/* The parameter vectors of the tile that group x completes: one LOAD for all
 * of them when tsr_gemm_param_merge allows, else one per kind and sub-tile.
 * The last carries last_deps. */
static tsr_status_t push_params(tsr_dev_t *dev, const tsr_gemm_desc_t *d,
                                const tsr_gemm_plan_t *p, const tsr_gemm_group_t *x,
                                uint32_t last_deps) {
  uint32_t stride;
  const uint32_t r = tsr_gemm_param_merge(d, &stride);
  if (r != 0u) {
    return tsr_fw_push_load(dev, last_deps, TSR_LOAD_ACC, d->bias_addr + 4u * x->n0, stride, r,
                            4u * x->ncols, sub_params(d, p, x, 0u));
  }
  const uint32_t n = tsr_gemm_n_params(d);
  uint32_t i = 0u;
  for (uint32_t jj = 0u; jj < x->nblk; jj++) {
    const uint32_t n0 = x->n0 + jj * p->dim;
    const uint32_t ncols = tsr_gemm_sub_cols(d, x, p->dim, jj);
    const uint32_t prow = sub_params(d, p, x, jj);
    uint32_t addr[PARAM_ROWS_MAX];
    uint32_t row[PARAM_ROWS_MAX];
    const uint32_t cnt = tsr_gemm_param_list(d, n0, prow, addr, row);
    for (uint32_t q = 0u; q < cnt; q++, i++) {
      const uint32_t deps = (i + 1u == x->nblk * n) ? last_deps : 0u;
      tsr_status_t st =
          tsr_fw_push_load(dev, deps, TSR_LOAD_ACC, addr[q], 4u * ncols, 1u, 4u * ncols, row[q]);
      if (st != TSR_OK) {
        return st;
      }
    }
  }
  return TSR_OK;
}

static bool plan_consistent(const tsr_dev_info_t *info, const tsr_gemm_desc_t *d,
                            const tsr_gemm_plan_t *p) {
  const uint32_t dim = info->dim;
  return p->dim == dim && p->mt != 0u && p->kc != 0u && p->kc % dim == 0u &&
         (p->spad_bufs == 1u || p->spad_bufs == 2u) && (p->acc_bufs == 1u || p->acc_bufs == 2u) &&
         p->m_tiles == ceil_div(d->m, p->mt) && p->n_blocks == ceil_div(d->n, dim) &&
         p->k_chunks == ceil_div(d->k, p->kc) && p->k_blocks == ceil_div(d->k, dim) &&
         p->nb != 0u && p->n_groups == ceil_div(p->n_blocks, p->nb) &&
         p->units == p->m_tiles * p->n_groups && p->tiles == p->m_tiles * p->n_blocks &&
         p->groups == p->units * p->k_chunks &&
         (uint64_t)p->nb * p->acc_stride <= info->acc_rows / p->acc_bufs &&
         p->a_resident == (p->k_chunks == 1u) && p->n_params == tsr_gemm_n_params(d) &&
         p->param_rows == tsr_gemm_param_rows(d) && p->acc_stride == p->mt + p->param_rows &&
         (!d->has_lut || (uint64_t)p->lut_base + tsr_gemm_lut_rows(d, dim) <= info->spad_rows);
}

/* The scratchpad LOADs of group g: the first waits for its buffers to be
 * free, the last tells compute the data is there. A view's A LOADs of group 0
 * come first in the job, with every counter at zero, so each would be
 * untokened code (it waits for the one before to retire, and the front end for
 * it: DS-CNN's first layer, an im2col LOAD per output-row run and K block): a
 * NOP before them gives the load stage a token that the group's W LOAD takes.
 * No other LOAD can take it first: the load stage runs in order, and the first
 * LOAD of group g >= S pops only after group 0's W LOAD has. */
static tsr_status_t push_group_loads(tsr_dev_t *dev, const tsr_gemm_desc_t *d,
                                     const tsr_gemm_plan_t *p, const tsr_gemm_view_t *view,
                                     uint32_t g) {
  tsr_gemm_group_t x;
  tsr_gemm_group_at(d, p, g, &x);
  uint32_t first_deps = g >= p->spad_bufs ? TSR_DEP_POP_NEXT : 0u;
  uint32_t w_deps = TSR_DEP_PUSH_NEXT;
  tsr_status_t st;
  if (g == 0u && view != NULL) {
    tsr_cmd_t cmd;
    if ((st = tsr_cmd_nop(dev, TSR_DEP_PUSH_PREV, &cmd)) != TSR_OK || (st = tsr_submit(dev, &cmd)) != TSR_OK) {
      return st;
    }
    w_deps |= TSR_DEP_POP_NEXT;
  }
  if (!p->a_resident || x.jg == 0u) {
    if (view != NULL) {
      st = view->load_a(dev, view->ctx, first_deps, x.m0, x.mrows, x.k0, x.kcur, x.abase);
    } else {
      st = tsr_fw_push_load(dev, first_deps, TSR_LOAD_SPAD, d->a_addr + x.m0 * d->lda + x.k0,
                            d->lda, x.mrows, x.kcur, x.abase);
    }
    if (st != TSR_OK) {
      return st;
    }
    first_deps = 0u;
  }
  return tsr_fw_push_load(dev, first_deps | w_deps, TSR_LOAD_SPAD,
                          d->b_addr + x.k0 * d->ldb + x.n0, d->ldb, x.kcur, x.ncols, x.wbase);
}

/* Whether group g's LOADs (its bytes over the memory's bandwidth) take longer than the
 * MATMULs of group g-1 (a weight tile costs about max(M, N) cycles): then the load stage
 * is the bound and the LOADs go as early as they can (tsr_gemm_run_view). */
static bool loads_bound(const tsr_gemm_desc_t *d, const tsr_gemm_plan_t *p, uint32_t g) {
  tsr_gemm_group_t x, prev;
  tsr_gemm_group_at(d, p, g, &x);
  tsr_gemm_group_at(d, p, g - 1u, &prev);
  const uint64_t bytes = (uint64_t)x.kcur * x.ncols +
                         ((!p->a_resident || x.jg == 0u) ? (uint64_t)x.mrows * x.kcur : 0u);
  const uint64_t mm = (uint64_t)prev.nblk * ceil_div(prev.kcur, p->dim) * (prev.mrows > p->dim ? prev.mrows : p->dim);
  return bytes > mm * p->mem_bw;
}

/* MATMULs lo..hi-1 of group g: one per N-column block jj, over the whole K chunk
 * (a MATMUL of K > N rows runs its ceil(K / N) weight tiles itself, docs/commands.md:
 * tile b's A rows are block b of the A chunk, its weight rows block jj's rows b * N..),
 * into that block's sub-tile of the accumulator tile. */
static tsr_status_t push_group_matmuls(tsr_dev_t *dev, const tsr_gemm_desc_t *d,
                                       const tsr_gemm_plan_t *p, uint32_t g, uint32_t lo,
                                       uint32_t hi) {
  tsr_gemm_group_t x;
  tsr_gemm_group_at(d, p, g, &x);
  for (uint32_t jj = lo; jj < x.nblk && jj < hi; jj++) {
    uint32_t deps = 0u;
    if (jj == 0u) {
      deps |= TSR_DEP_POP_PREV;
      if (x.c == 0u && x.unit >= p->acc_bufs) {
        deps |= TSR_DEP_POP_NEXT;
      }
    }
    if (jj + 1u == x.nblk) {
      if (g + p->spad_bufs < p->groups) {
        deps |= TSR_DEP_PUSH_PREV;
      }
      if (x.c + 1u == p->k_chunks && tsr_gemm_param_loads(d, x.nblk) == 0u) {
        deps |= TSR_DEP_PUSH_NEXT;
      }
    }
    tsr_matmul_args_t mm;
    mm.a_addr = x.abase;
    mm.w_addr = x.wbase + jj * x.kcur; /* the W LOAD put block jj after jj*kcur rows */
    mm.c_addr = sub_rows(p, x.cbase, jj);
    mm.m = x.mrows;
    mm.k = x.kcur;
    mm.n = tsr_gemm_sub_cols(d, &x, p->dim, jj);
    mm.accumulate = x.c != 0u;
    mm.keep_weights = false;
    tsr_cmd_t cmd;
    tsr_status_t st = tsr_cmd_matmul(dev, deps, &mm, &cmd);
    if (st == TSR_OK) {
      st = tsr_submit(dev, &cmd);
    }
    if (st != TSR_OK) {
      return st;
    }
  }
  return TSR_OK;
}

/* The parameter LOADs and the STOREs of the tile that group g completes, one
 * STORE per N-column block. The last parameter LOAD (else the last MATMUL)
 * gives the store stage one token; the first STORE takes it and the others
 * follow it in the store stage's order; the last frees the tile buffer. */
static tsr_status_t push_tile_stores(tsr_dev_t *dev, const tsr_gemm_desc_t *d,
                                     const tsr_gemm_plan_t *p, const tsr_gemm_view_t *view,
                                     uint32_t g, uint32_t lo, uint32_t hi) {
  const uint32_t dim = p->dim;
  const uint32_t esize = d->requant ? 1u : 4u;
  tsr_gemm_group_t x;
  tsr_gemm_group_at(d, p, g, &x);
  tsr_status_t st = TSR_OK;
  for (uint32_t jj = lo; jj < x.nblk && jj < hi && st == TSR_OK; jj++) {
    const uint32_t n0 = x.n0 + jj * dim;
    const uint32_t src = sub_rows(p, x.cbase, jj);
    tsr_store_args_t sa;
    sa.addr = d->c_addr + x.m0 * d->ldc + n0 * esize;
    sa.stride = d->ldc;
    sa.rows = x.mrows;
    sa.cols = tsr_gemm_sub_cols(d, &x, dim, jj);
    sa.src = src;
    sa.param = sub_params(d, p, &x, jj);
    sa.bias = d->has_bias;
    sa.requant = d->requant;
    sa.per_channel = d->per_channel;
    sa.spad = false;
    sa.lut = d->has_lut;
    sa.leaky = d->leaky;
    sa.mult = d->per_channel ? 0 : d->mult;
    sa.shift = d->per_channel ? 0 : d->shift;
    sa.out_zp = d->out_zp;
    sa.act_min = d->act_min;
    sa.act_max = d->act_max;
    uint32_t sdeps = jj == 0u ? TSR_DEP_POP_PREV : 0u;
    if (jj + 1u == x.nblk && (x.unit + p->acc_bufs < p->units ||
                              (x.unit + 2u == p->units && tsr_gemm_tail_token(p)))) {
      sdeps |= TSR_DEP_PUSH_PREV;
    }
    if (jj == 0u && x.unit + 1u == p->units && tsr_gemm_lead_token(p)) {
      sdeps |= TSR_DEP_PUSH_PREV;
    }
    if (view != NULL) {
      st = view->store_c(dev, view->ctx, sdeps, &sa, x.m0, n0);
      continue;
    }
    tsr_cmd_t cmd;
    st = tsr_cmd_store(dev, sdeps, &sa, &cmd);
    if (st == TSR_OK) {
      st = tsr_submit(dev, &cmd);
    }
  }
  return st;
}

/* STOREs lo..hi-1 of the tile group g completed, and one progress call each. */
static tsr_status_t push_stores_done(tsr_dev_t *dev, const tsr_gemm_desc_t *d,
                                     const tsr_gemm_plan_t *p, const tsr_gemm_view_t *view,
                                     uint32_t g, uint32_t lo, uint32_t hi,
                                     tsr_gemm_progress_fn progress, void *user) {
  tsr_status_t st = push_tile_stores(dev, d, p, view, g, lo, hi);
  if (st == TSR_OK && progress != NULL) {
    tsr_gemm_group_t x;
    tsr_gemm_group_at(d, p, g, &x);
    for (uint32_t jj = lo + 1u; jj <= x.nblk && jj <= hi; jj++) {
      progress(user, x.t * p->n_blocks + x.jg * p->nb + jj, p->tiles);
    }
  }
  return st;
}

tsr_status_t tsr_gemm_run(tsr_dev_t *dev, const tsr_gemm_desc_t *d, const tsr_gemm_plan_t *p,
                          tsr_gemm_progress_fn progress, void *user) {
  return tsr_gemm_run_view(dev, d, p, NULL, progress, user);
}

tsr_status_t tsr_gemm_run_view(tsr_dev_t *dev, const tsr_gemm_desc_t *d, const tsr_gemm_plan_t *p,
                               const tsr_gemm_view_t *view, tsr_gemm_progress_fn progress,
                               void *user) {
  if (dev == NULL || d == NULL || p == NULL || dev->info.dim == 0u ||
      (view != NULL && (view->load_a == NULL || view->store_c == NULL))) {
    return TSR_BAD_ARG;
  }
  const char *why = "";
  if (tsr_gemm_check_desc(d, &why) != TSR_OK) {
    set_err(dev, "gemm: ", why);
    return TSR_BAD_ARG;
  }
  if (!plan_consistent(&dev->info, d, p)) {
    set_err(dev, "gemm: the plan was not made for this descriptor and device", NULL);
    return TSR_BAD_ARG;
  }
  tsr_status_t st = TSR_OK;

  /* The activation table, once, in rows no buffer uses. */
  if (d->has_lut && (st = tsr_sfu_load_lut(dev, d->lut_addr, p->lut_base)) != TSR_OK) {
    return st;
  }

  /* Software pipelining: with two scratchpad buffer pairs, group g+1's LOADs
   * are issued before group g's MATMULs, so the load stage fills one pair
   * while the array reads the other. (Their tokens allow exactly that: the
   * LOADs of group g+1 wait for group g-1's MATMULs.) A tile's parameter
   * LOADs (if any) follow its last MATMUL. With two tile buffers its STOREs
   * are spread over the next group's MATMULs, from its first on, so the
   * front end decodes them while those stream, instead of holding the array
   * at the tile's end, and the store queue never fills. The next group's
   * LOADs then follow the first of those MATMULs, so that the STOREs are not
   * slowed by them, unless the LOADs are the bound (loads_bound): the front end
   * runs a MATMUL to its last row, which over a long K chunk is thousands of
   * cycles the load stage would idle (256^3 at 1 B/cycle, N = 8: 760,994 ->
   * 495,947 cycles; at 4 B/cycle, N = 16, the MATMULs are the bound and
   * LOADs first would take 104,586 instead of 99,044). (With one tile buffer
   * the next tile's first MATMUL waits for the STOREs, so they come at once.) */
  const uint32_t ahead = p->spad_bufs - 1u;
  uint32_t loaded = 0u;      /* groups whose LOADs were issued */
  uint32_t pending = 0u;     /* 1 + the group whose tile's STOREs are not all issued yet, or 0 */
  uint32_t stored = 0u;      /* ... and how many of them were */
  for (uint32_t g = 0u; g < p->groups; g++) {
    tsr_gemm_group_t x;
    tsr_gemm_group_at(d, p, g, &x);
    const uint32_t mms = x.nblk;
    const bool early = pending == 0u || (g + ahead < p->groups && loads_bound(d, p, g + ahead));
    for (; loaded <= g + (early ? ahead : 0u) && loaded < p->groups; loaded++) {
      if ((st = push_group_loads(dev, d, p, view, loaded)) != TSR_OK) {
        return st;
      }
    }
    for (uint32_t i = 0u; i < mms; i++) {
      if ((st = push_group_matmuls(dev, d, p, g, i, i + 1u)) != TSR_OK) {
        return st;
      }
      for (; i == 0u && loaded <= g + ahead && loaded < p->groups; loaded++) {
        if ((st = push_group_loads(dev, d, p, view, loaded)) != TSR_OK) {
          return st;
        }
      }
      if (pending != 0u) {
        /* STORE j after MATMUL j, the rest after the last: a STORE of M rows
         * takes about M cycles and a latency, a MATMUL M cycles per N rows of
         * K, so the store queue does not fill and hold the front end while the
         * array could run. */
        const uint32_t upto = i + 1u == mms ? UINT32_MAX : i + 1u;
        if ((st = push_stores_done(dev, d, p, view, pending - 1u, stored, upto, progress, user)) !=
            TSR_OK) {
          return st;
        }
        stored = upto;
        if (i + 1u == mms) {
          pending = 0u;
        }
      }
    }
    if ((g + 1u) % p->k_chunks == 0u) {
      if ((st = push_params(dev, d, p, &x, TSR_DEP_PUSH_NEXT)) != TSR_OK) {
        return st;
      }
      pending = g + 1u;
      stored = 0u;
      if (p->acc_bufs == 1u || g + 1u == p->groups) {
        if ((st = push_stores_done(dev, d, p, view, g, 0u, UINT32_MAX, progress, user)) != TSR_OK) {
          return st;
        }
        pending = 0u;
      }
    }
  }
  if (tsr_gemm_tail_token(p) || tsr_gemm_lead_token(p)) {
    tsr_cmd_t cmd;
    if ((st = tsr_cmd_nop(dev, TSR_DEP_POP_NEXT, &cmd)) != TSR_OK || (st = tsr_submit(dev, &cmd)) != TSR_OK) {
      return st;
    }
  }
  return tsr_wait(dev, TSR_WAIT_IRQ, 0u);
}
