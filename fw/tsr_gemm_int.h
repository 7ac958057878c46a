/* tsr_gemm_int.h: what the GEMM planner, cost model and emission share (firmware-internal). */
#ifndef TSR_GEMM_INT_H
#define TSR_GEMM_INT_H

/*
 * The GEMM firmware is three files around this header:
 *
 *   tsr_gemm_plan.c   descriptor checks; the planner, which chooses tile sizes, buffering
 *                     and the memory layout below, ranking candidates by the cost model
 *   tsr_gemm_cost.c   the cost model: tsr_gemm_predict_cycles replays the command stream
 *                     of a plan on a model of the engine's three stages
 *   tsr_gemm_emit.c   command emission: tsr_gemm_run issues the LOADs, MATMULs and
 *                     STOREs of a plan with their dependency tokens
 *
 * What they share is the shape of a plan, below: the loop nest and the memory
 * layout, walked one group at a time by tsr_gemm_group_at().
 *
 * Loop nest: m-tiles of mt rows > n-groups of nb N-column blocks > K chunks
 * of kc. One A chunk (mt x kc) serves all nb blocks of its n-group, so A is
 * read from DRAM once per n-group (once per m-tile when K fits in one chunk:
 * "A resident"), not once per N columns.
 *
 * Memory layout chosen by the planner (N = array dim, kcb = kc / N):
 *
 *   scratchpad:  with preload (the usual case): [A buf 0: mt*kcb rows][A buf 1] from row 0,
 *                [W buf 0: nb*kc rows][W buf 1][table] from the upper bank's first row;
 *                else the same regions packed from row 0.
 *                An A chunk of mt rows x kc bytes lands as kcb blocks of mt
 *                rows (LOAD cuts each row into N-byte chunks); block b feeds
 *                the MATMUL of k-block b. One W LOAD of kc rows x (nb*N)
 *                bytes lands as nb blocks of kc rows, block jj holding the
 *                weights of N-column block jj. A and W in different banks let
 *                the engine preload each MATMUL's weights while the previous
 *                one streams (docs/commands.md). With has_lut the activation
 *                table (256/N rows) follows the W buffers; it is loaded once
 *                at job start and made the SFU's table by an SFU LUT_LOAD
 *                (its own load -> compute token pair), so every STORE can
 *                apply it.
 *   accumulator: tile buf 0 at row 0, tile buf 1 at row acc_rows / 2; a tile
 *                buffer is the nb sub-tiles' mt result rows, then their
 *                parameter rows: per sub-tile [bias | mult | shift
 *                (| mult_neg | shift_neg)] (the last two with leaky: STORE's
 *                LEAKY flag reads them), or, when one LOAD fills them all
 *                (tsr_gemm_param_merge), sub-tile jj's rows from jj * R
 *                (R: the kinds used). Each buffer sits in its own
 *                accumulator bank, so the STOREs of one tile run while the
 *                MATMULs of the next one fill the other bank.
 *
 * A "group" is one (m-tile, n-group, K chunk) step: its scratchpad LOADs and
 * its MATMULs. A "tile" (or unit) is one (m-tile, n-group) accumulator tile:
 * its groups, parameter LOADs and its nb STOREs.
 */

#include "tsr_fw.h"
#include "tsr_fw_cmd.h"

/* Memory latency the cost model assumes unless told otherwise (the memory
 * model's default: AR to first R beat, last W to B). */
#define TSR_GEMM_EST_MEM_LATENCY 10u

/* Accumulator rows after each tile: bias, mult, shift (+ mult_neg, shift_neg with leaky). */
static inline uint32_t tsr_gemm_param_rows(const tsr_gemm_desc_t *d) {
  return d->leaky ? TSR_STORE_PARAM_ROWS_LEAKY : TSR_STORE_PARAM_ROWS;
}

/* Scratchpad rows of the activation table (0 without one). */
static inline uint32_t tsr_gemm_lut_rows(const tsr_gemm_desc_t *d, uint32_t dim) {
  return d->has_lut ? ceil_div(TSR_SFU_LUT_ENTRIES, dim) : 0u;
}

/* Parameter vectors loaded per sub-tile: bias, mult and shift, mult_neg and shift_neg. */
static inline uint32_t tsr_gemm_n_params(const tsr_gemm_desc_t *d) {
  return (d->has_bias ? 1u : 0u) + (d->per_channel ? 2u : 0u) + (d->leaky ? 2u : 0u);
}

/* The parameter vectors of the columns from n0 (their memory addresses) and the STORE rows
 * they go to, from prow (bias + 0, mult + 1, shift + 2, negative mult and shift + 3, + 4);
 * returns how many (tsr_gemm_n_params; addr and row hold TSR_STORE_PARAM_ROWS_LEAKY). */
static inline uint32_t tsr_gemm_param_list(const tsr_gemm_desc_t *d, uint32_t n0, uint32_t prow,
                                           uint32_t *addr, uint32_t *row) {
  const uint32_t src[5] = {d->bias_addr, d->mult_addr, d->shift_addr, d->mult_neg_addr,
                           d->shift_neg_addr};
  const bool used[5] = {d->has_bias, d->per_channel, d->per_channel, d->leaky, d->leaky};
  uint32_t cnt = 0u;
  for (uint32_t r = 0u; r < 5u; r++) {
    if (used[r]) {
      addr[cnt] = src[r] + 4u * n0;
      row[cnt++] = prow + r;
    }
  }
  return cnt;
}

/*
 * One LOAD fills every sub-tile's parameters of a tile when the kinds used are
 * the STORE's rows 0..R-1 (bias; bias, mult, shift; or all five) and their
 * vectors lie one stride apart in memory: ROWS = R, STRIDE = that, COLS = the
 * tile's columns * 4. Chunk jj of row r lands in LOCAL + jj * R + r
 * (docs/commands.md, LOAD), so sub-tile jj's parameters start at LOCAL + jj * R.
 * Returns R (and the stride in *stride), or 0: one LOAD per kind and sub-tile.
 */
static inline uint32_t tsr_gemm_param_merge(const tsr_gemm_desc_t *d, uint32_t *stride) {
  *stride = 0u;
  if (!d->has_bias || (d->leaky && !d->per_channel)) {
    return 0u;
  }
  if (!d->per_channel) {
    return 1u;
  }
  const uint32_t s = d->mult_addr - d->bias_addr;
  if (d->mult_addr <= d->bias_addr || d->shift_addr <= d->mult_addr ||
      d->shift_addr - d->mult_addr != s ||
      (d->leaky && (d->mult_neg_addr <= d->shift_addr || d->mult_neg_addr - d->shift_addr != s ||
                    d->shift_neg_addr <= d->mult_neg_addr ||
                    d->shift_neg_addr - d->mult_neg_addr != s))) {
    return 0u;
  }
  *stride = s;
  return d->leaky ? 5u : 3u;
}


/* One group (m-tile, n-group, K chunk) of the loop nest: one A chunk and the
 * W chunks of the n-group's nblk N-column blocks. */
typedef struct tsr_gemm_group {
  uint32_t t, jg, c;     /* m-tile, n-group, K chunk */
  uint32_t unit;         /* accumulator tile index (m-tile, n-group) */
  uint32_t m0, mrows;    /* rows of A and C */
  uint32_t n0, ncols;    /* columns of B and C of the whole n-group */
  uint32_t nblk;         /* N-column blocks in the n-group */
  uint32_t k0, kcur;     /* K range of the chunk */
  uint32_t abase, wbase; /* scratchpad buffers */
  uint32_t cbase;        /* accumulator tile buffer */
} tsr_gemm_group_t;

/* Group g (0 <= g < p->groups, in issue order) of plan p for descriptor d:
 * its place in the loop nest and its buffers (tsr_gemm_plan.c). */
void tsr_gemm_group_at(const tsr_gemm_desc_t *d, const tsr_gemm_plan_t *p, uint32_t g,
                       tsr_gemm_group_t *x);

/* Columns of sub-tile jj (N-column block jj of the group). */
static inline uint32_t tsr_gemm_sub_cols(const tsr_gemm_desc_t *d, const tsr_gemm_group_t *x,
                                         uint32_t dim, uint32_t jj) {
  return min32(dim, d->n - (x->n0 + jj * dim));
}

/*
 * The seam for how a job's A tiles are loaded and its C tiles stored. With no
 * view (tsr_gemm_run) A and C are the descriptor's row-major matrices: one
 * LOAD per A chunk, one STORE per sub-tile. A view replaces those two commands
 * and nothing else: the plan, the W and parameter LOADs, the MATMULs and every
 * dependency token stay the job's. fw/tsr_conv.c's im2col view is the user.
 *
 *   load_a   put A rows [m0, m0 + mrows) x columns [k0, k0 + kcur) (kcur a
 *            multiple of N) where the plain LOAD would: element (r, j) in byte
 *            j mod N of scratchpad row abase + (j div N) * mrows + r. Its first
 *            command carries first_deps (a POP_NEXT or 0); none other takes a
 *            token (the W LOAD that follows gives compute its token).
 *   store_c  what the STORE `sa` does for C rows [m0, m0 + sa->rows) and
 *            columns [n0, n0 + sa->cols), through one or more STOREs; the
 *            first carries sa's POP_PREV, the last sa's PUSH_PREV (deps). Two
 *            or more commands keep a token in flight between them (as
 *            fw/tsr_conv.c's conv_store_c does), so that the middle ones are
 *            not untokened code. It may change *sa (the caller's scratch copy).
 */
typedef struct tsr_gemm_view {
  tsr_status_t (*load_a)(tsr_dev_t *dev, const void *ctx, uint32_t first_deps, uint32_t m0,
                         uint32_t mrows, uint32_t k0, uint32_t kcur, uint32_t abase);
  tsr_status_t (*store_c)(tsr_dev_t *dev, const void *ctx, uint32_t deps, tsr_store_args_t *sa,
                          uint32_t m0, uint32_t n0);
  const void *ctx;
} tsr_gemm_view_t;

/* tsr_gemm_run with A loaded and C stored through `view` (NULL: tsr_gemm_run itself). */
tsr_status_t tsr_gemm_run_view(tsr_dev_t *dev, const tsr_gemm_desc_t *d, const tsr_gemm_plan_t *p,
                               const tsr_gemm_view_t *view, tsr_gemm_progress_fn progress,
                               void *user);

/* A lower bound of tsr_gemm_predict_cycles for the same plan, in O(1) (tsr_gemm_cost.c): the
 * planner skips candidates whose bound cannot beat its best so far. */
uint64_t tsr_gemm_predict_floor(const tsr_dev_info_t *info, const tsr_gemm_desc_t *d,
                                const tsr_gemm_plan_t *p);

/* tsr_gemm_plan_opts scoring every candidate with the full prediction, no bound (the
 * reference of tests/unit/test_gemm_search.c; same plan, same prediction, slower). */
tsr_status_t tsr_gemm_plan_exhaustive(const tsr_dev_info_t *info, const tsr_gemm_desc_t *desc,
                                      const tsr_gemm_opts_t *opts, tsr_gemm_plan_t *plan);

/* Parameter LOADs at the end of a tile of nblk sub-tiles. Every tile has its own, even
 * when several m-tiles reuse the same vectors: an accumulator LOAD waits for the array
 * to drain, and that is also when the engine lets the tile's STOREs start (the bank
 * interlock, docs/commands.md). Loading them once per job into each accumulator half
 * instead left MATMULs streaming back to back with the STOREs held: 256x64x256 at
 * N = 16 took 24,061 cycles against 21,025, 18 % more than the cost model's 19,732. */
static inline uint32_t tsr_gemm_param_loads(const tsr_gemm_desc_t *d, uint32_t nblk) {
  uint32_t stride;
  return tsr_gemm_param_merge(d, &stride) != 0u ? 1u : nblk * tsr_gemm_n_params(d);
}

/* Parameter LOADs of the whole job, and their bytes. */
static inline uint64_t tsr_gemm_param_cmds(const tsr_gemm_desc_t *d, const tsr_gemm_plan_t *p) {
  uint32_t stride;
  return tsr_gemm_param_merge(d, &stride) != 0u ? p->units : (uint64_t)p->tiles * p->n_params;
}
static inline uint64_t tsr_gemm_param_bytes(const tsr_gemm_desc_t *d, const tsr_gemm_plan_t *p) {
  return (uint64_t)p->m_tiles * p->n_params * d->n * 4u;
}


/*
 * With two tile buffers, the STOREs of the second-to-last tile free no buffer
 * for a later tile, so they would push no token; then every program-order
 * token counter can be zero while the last tile still runs, and its tokenless
 * MATMULs and parameter LOADs would wait, as untokened code, for those STOREs
 * to finish. So their last STORE pushes a token anyway, and a NOP after the
 * job's last STORE pops it: nothing of the last tile waits for it (the job is
 * done once the NOP retires). True when that applies: two tile buffers and two
 * tiles or more.
 */
static inline bool tsr_gemm_tail_token(const tsr_gemm_plan_t *p) {
  return p->acc_bufs == 2u && p->units >= 2u;
}

/*
 * Without the tail token, the last tile's first STORE pops the only token left, so every
 * program-order counter is zero when its other STOREs are decoded: untokened code, each
 * waiting for every STORE before it to retire (64^3 at N = 16 with one tile of four
 * sub-tiles: four STOREs one after the other). So that first STORE pushes a token as well,
 * and the NOP after the job's last STORE pops it (the job is done once it retires). True
 * when that applies: no tail token, and more than one sub-tile in the last tile.
 */
static inline bool tsr_gemm_lead_token(const tsr_gemm_plan_t *p) {
  return !tsr_gemm_tail_token(p) && p->n_blocks - (p->n_groups - 1u) * p->nb > 1u;
}

#endif /* TSR_GEMM_INT_H */
