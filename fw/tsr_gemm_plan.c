/* tsr_gemm_plan.c: GEMM descriptor checks and planner (freestanding firmware). */
#include "tsr_gemm_int.h"

/* The candidates are ranked by the cost model (tsr_gemm_predict_cycles,
 * tsr_gemm_cost.c); the layout they choose is described in tsr_gemm_int.h. */

#define MAX16 0xffffu

static bool is_int8(int32_t v) { return v >= -128 && v <= 127; }

/* ---- Descriptor checks ------------------------------------------------------------------ */

typedef struct span {
  uint64_t lo, hi; /* [lo, hi) */
} span_t;

static span_t region(uint32_t addr, uint32_t stride, uint32_t rows, uint64_t row_bytes) {
  span_t s;
  s.lo = addr;
  s.hi = (uint64_t)addr + (uint64_t)(rows - 1u) * stride + row_bytes;
  return s;
}

static bool overlaps(span_t a, span_t b) { return a.lo < b.hi && b.lo < a.hi; }

static const uint64_t k4G = (uint64_t)1 << 32;

tsr_status_t tsr_gemm_check_desc(const tsr_gemm_desc_t *d, const char **why) {
  static const char *dummy;
  if (why == NULL) {
    why = &dummy;
  }
  *why = "";
  if (d == NULL) {
    *why = "no descriptor";
    return TSR_BAD_ARG;
  }
  if (d->m == 0u || d->k == 0u || d->n == 0u) {
    *why = "m, k and n must be >= 1";
    return TSR_BAD_ARG;
  }
  uint32_t esize = d->requant ? 1u : 4u;
  if (d->lda < d->k) {
    *why = "lda is smaller than k";
    return TSR_BAD_ARG;
  }
  if (d->ldb < d->n) {
    *why = "ldb is smaller than n";
    return TSR_BAD_ARG;
  }
  if ((uint64_t)d->ldc < (uint64_t)d->n * esize) {
    *why = "ldc is smaller than one output row (n elements)";
    return TSR_BAD_ARG;
  }
  span_t a = region(d->a_addr, d->lda, d->m, d->k);
  span_t b = region(d->b_addr, d->ldb, d->k, d->n);
  span_t c = region(d->c_addr, d->ldc, d->m, (uint64_t)d->n * esize);
  span_t bias = region(d->bias_addr, 0u, 1u, (uint64_t)d->n * 4u);
  span_t mult = region(d->mult_addr, 0u, 1u, (uint64_t)d->n * 4u);
  span_t shift = region(d->shift_addr, 0u, 1u, (uint64_t)d->n * 4u);
  span_t mult_neg = region(d->mult_neg_addr, 0u, 1u, (uint64_t)d->n * 4u);
  span_t shift_neg = region(d->shift_neg_addr, 0u, 1u, (uint64_t)d->n * 4u);
  span_t lut = region(d->lut_addr, 0u, 1u, TSR_SFU_LUT_ENTRIES);
  if (a.hi > k4G || b.hi > k4G || c.hi > k4G) {
    *why = "a matrix extends past the 32-bit address space";
    return TSR_BAD_ARG;
  }
  if ((d->has_bias && bias.hi > k4G) || (d->per_channel && (mult.hi > k4G || shift.hi > k4G)) ||
      (d->leaky && (mult_neg.hi > k4G || shift_neg.hi > k4G)) || (d->has_lut && lut.hi > k4G)) {
    *why = "a parameter vector or the table extends past the 32-bit address space";
    return TSR_BAD_ARG;
  }
  if (d->per_channel && !d->requant) {
    *why = "per-channel parameters need requant";
    return TSR_BAD_ARG;
  }
  if (d->has_lut && !d->requant) {
    *why = "an activation table needs requant (it maps the int8 outputs)";
    return TSR_BAD_ARG;
  }
  if (d->leaky && !d->requant) {
    *why = "leaky needs requant (negative values get their own multiplier)";
    return TSR_BAD_ARG;
  }
  if (d->requant) {
    if (!d->per_channel && (d->shift < TSR_SHIFT_MIN || d->shift > TSR_SHIFT_MAX)) {
      *why = "shift is outside -31..30";
      return TSR_BAD_ARG;
    }
    if (!is_int8(d->out_zp) || !is_int8(d->act_min) || !is_int8(d->act_max)) {
      *why = "out_zp, act_min and act_max must be int8";
      return TSR_BAD_ARG;
    }
    if (d->act_min > d->act_max) {
      *why = "act_min > act_max";
      return TSR_BAD_ARG;
    }
  }
  /* C is written while later tiles still read the inputs: no aliasing. */
  if (overlaps(c, a) || overlaps(c, b) || (d->has_bias && overlaps(c, bias)) ||
      (d->per_channel && (overlaps(c, mult) || overlaps(c, shift))) ||
      (d->leaky && (overlaps(c, mult_neg) || overlaps(c, shift_neg))) ||
      (d->has_lut && overlaps(c, lut))) {
    *why = "the output region overlaps an input region";
    return TSR_BAD_ARG;
  }
  return TSR_OK;
}

/* ---- The plan, group by group ------------------------------------------------------------ */

/* Which buffers group g uses: W (and A, unless resident) alternate between the
 * spad_bufs slots group by group; a resident A stays in its m-tile's slot; the
 * accumulator tile buffers alternate tile by tile (tsr_gemm_int.h). */
void tsr_gemm_group_at(const tsr_gemm_desc_t *d, const tsr_gemm_plan_t *p, uint32_t g,
                       tsr_gemm_group_t *x) {
  const uint32_t dim = p->dim;
  const uint32_t unit = g / p->k_chunks;
  x->c = g % p->k_chunks;
  x->jg = unit % p->n_groups;
  x->t = unit / p->n_groups;
  x->unit = unit;
  x->m0 = x->t * p->mt;
  x->mrows = min32(p->mt, d->m - x->m0);
  x->n0 = x->jg * p->nb * dim;
  x->ncols = min32(p->nb * dim, d->n - x->n0);
  x->nblk = ceil_div(x->ncols, dim);
  x->k0 = x->c * p->kc;
  x->kcur = min32(p->kc, d->k - x->k0);
  const uint32_t wslot = g % p->spad_bufs;
  const uint32_t aslot = p->a_resident ? x->t % p->spad_bufs : wslot;
  x->abase = p->a_base[aslot];
  x->wbase = p->w_base[wslot];
  x->cbase = p->acc_base[unit % p->acc_bufs];
}

/* ---- Planner ----------------------------------------------------------------------------------- */

static void count_plan(const tsr_gemm_desc_t *d, tsr_gemm_plan_t *p) {
  uint64_t a_loads = p->a_resident ? p->m_tiles : p->groups;
  const uint64_t lut = d->has_lut ? 1u : 0u; /* one LOAD of the table and one SFU LUT_LOAD */
  p->cmd_loads = a_loads + p->groups + lut;   /* one W LOAD per group covers its nb blocks */
  p->cmd_matmuls = (uint64_t)p->tiles * p->k_chunks; /* one per sub-tile and K chunk */
  p->cmd_params = tsr_gemm_param_cmds(d, p);
  p->cmd_stores = p->tiles;
  /* + the table's LUT_LOAD, and the NOP that closes the tail or the lead token */
  p->cmds = p->cmd_loads + p->cmd_matmuls + p->cmd_params + p->cmd_stores + lut +
            (tsr_gemm_tail_token(p) || tsr_gemm_lead_token(p) ? 1u : 0u);
  uint64_t es = d->requant ? 1u : 4u;
  p->dma_rd_bytes = (uint64_t)d->m * d->k * (p->a_resident ? 1u : p->n_groups) +
                    (uint64_t)p->m_tiles * d->k * d->n +
                    tsr_gemm_param_bytes(d, p) + lut * TSR_SFU_LUT_ENTRIES;
  p->dma_wr_bytes = (uint64_t)d->m * d->n * es;
  p->macs = (uint64_t)d->m * d->k * d->n;
}

/* First row of the scratchpad's upper bank: 2^(ceil(log2 rows) - 1), as in tsr_bank2. */
static uint32_t spad_half(uint32_t rows) {
  uint32_t h = 1u;
  while (h < rows / 2u + rows % 2u) {
    h *= 2u;
  }
  return h;
}

/* Candidates of at most this many groups are predicted outright: a floor costs about as
 * much as predicting a few groups (measured on the SoC's core, docs/soc.md). */
#define SMALL_GROUPS 8u

/* One candidate of the planner. */
typedef struct cand {
  uint32_t sbufs, abufs; /* scratchpad buffer pairs, accumulator tile buffers */
  uint32_t kcb;          /* K chunk in N-row blocks */
  uint32_t nb;           /* N-column blocks per n-group */
  bool whole_k;          /* K must be one chunk */
  bool banked;           /* A buffers in the lower scratchpad bank, W buffers and the table in
                            the upper one (weight preload); else all packed from row 0 */
} cand_t;

/* Build the plan for one candidate; false if it does not fit. */
static bool make_candidate(const tsr_dev_info_t *info, const tsr_gemm_desc_t *d, const cand_t *cd,
                           uint32_t max_mt, uint32_t mem_bw, bool mem_shared, uint32_t mem_latency, bool streamed,
                           tsr_gemm_plan_t *p) {
  const uint32_t sbufs = cd->sbufs;
  const uint32_t abufs = cd->abufs;
  const uint32_t nb = cd->nb;
  const bool banked = cd->banked;
  uint32_t kcb = cd->kcb;
  const uint32_t dim = info->dim;
  const uint32_t kb = ceil_div(d->k, dim);
  if (kcb == 0u || kcb > kb) {
    return false;
  }
  /* Same number of chunks, evenly sized. */
  const uint32_t chunks = ceil_div(kb, kcb);
  if (cd->whole_k && chunks != 1u) {
    return false;
  }
  kcb = ceil_div(kb, chunks);

  /* Tile rows: accumulator (3 or 5 parameter rows per buffer), scratchpad
   * (less the table), fields. */
  const uint32_t prows = tsr_gemm_param_rows(d);
  const uint32_t acc_per_buf = info->acc_rows / abufs;
  const uint32_t n_blocks = ceil_div(d->n, dim);
  if (nb == 0u || nb > n_blocks || acc_per_buf / nb < 1u + prows) {
    return false;
  }
  const uint32_t lrows = tsr_gemm_lut_rows(d, dim);
  if (info->spad_rows <= lrows) {
    return false;
  }
  const uint64_t w_rows = (uint64_t)kcb * dim * nb;
  const uint32_t half = spad_half(info->spad_rows);
  uint32_t mt;
  if (banked) {
    if (info->spad_rows < 2u || (uint64_t)sbufs * w_rows + lrows > info->spad_rows - half) {
      return false;
    }
    mt = (half / sbufs) / kcb;
  } else {
    const uint32_t spad_per_buf = (info->spad_rows - lrows) / sbufs;
    if (w_rows >= spad_per_buf) {
      return false;
    }
    mt = (spad_per_buf - (uint32_t)w_rows) / kcb;
  }
  mt = min32(mt, acc_per_buf / nb - prows);
  mt = min32(mt, MAX16);
  mt = min32(mt, d->m);
  if (max_mt != 0u) {
    mt = min32(mt, max_mt);
  }
  if (mt == 0u) {
    return false;
  }
  /* Same number of m-tiles, evenly sized. */
  const uint32_t m_tiles = ceil_div(d->m, mt);
  mt = ceil_div(d->m, m_tiles);

  const uint32_t n_groups = ceil_div(n_blocks, nb);
  const uint64_t tiles = (uint64_t)m_tiles * n_blocks;
  const uint64_t units = (uint64_t)m_tiles * n_groups;
  const uint64_t groups = units * chunks;
  if (groups > 0xffffffffu) {
    return false;
  }

  /* Every field is assigned (no struct copies or zero-initializers: those
   * can become memcpy/memset calls, which the firmware does not link). */
  p->dim = dim;
  p->mt = mt;
  p->kc = kcb * dim;
  p->m_tiles = m_tiles;
  p->n_blocks = n_blocks;
  p->nb = nb;
  p->n_groups = n_groups;
  p->units = (uint32_t)units;
  p->k_chunks = chunks;
  p->k_blocks = kb;
  p->tiles = (uint32_t)tiles;
  p->groups = (uint32_t)groups;
  p->a_resident = chunks == 1u;
  p->spad_bufs = sbufs;
  p->preload = banked;
  p->acc_bufs = abufs;
  p->a_rows = mt * kcb;
  p->w_rows = (uint32_t)w_rows;
  p->acc_stride = mt + prows;
  p->param_rows = prows;
  for (uint32_t i = 0u; i < 2u; i++) {
    bool used = i < sbufs;
    const uint32_t w0 = banked ? half : sbufs * p->a_rows;
    p->a_base[i] = used ? i * p->a_rows : 0u;
    p->w_base[i] = used ? w0 + i * p->w_rows : 0u;
    p->acc_base[i] = i < abufs ? i * acc_per_buf : 0u;
  }
  p->lut_base = !d->has_lut ? 0u
                : banked   ? half + sbufs * p->w_rows
                           : sbufs * (p->a_rows + p->w_rows);
  p->n_params = tsr_gemm_n_params(d);
  p->mem_bw = mem_bw;
  p->mem_shared = mem_shared;
  p->mem_latency = mem_latency;
  p->streamed = streamed;
  count_plan(d, p);
  p->est_cycles = 0u; /* the caller predicts (or bounds) */
  return true;
}

tsr_status_t tsr_gemm_plan(const tsr_dev_info_t *info, const tsr_gemm_desc_t *desc,
                           tsr_gemm_plan_t *plan) {
  return tsr_gemm_plan_opts(info, desc, NULL, plan);
}

static tsr_status_t plan_search(const tsr_dev_info_t *info, const tsr_gemm_desc_t *desc,
                                const tsr_gemm_opts_t *opts, bool exhaustive,
                                tsr_gemm_plan_t *plan);

tsr_status_t tsr_gemm_plan_opts(const tsr_dev_info_t *info, const tsr_gemm_desc_t *desc,
                                const tsr_gemm_opts_t *opts, tsr_gemm_plan_t *plan) {
  return plan_search(info, desc, opts, false, plan);
}

tsr_status_t tsr_gemm_plan_exhaustive(const tsr_dev_info_t *info, const tsr_gemm_desc_t *desc,
                                      const tsr_gemm_opts_t *opts, tsr_gemm_plan_t *plan) {
  return plan_search(info, desc, opts, true, plan);
}

/*
 * The search ranks every candidate (sb, ab, i) by its predicted cycles; the
 * first in that order with the fewest wins. The prediction replays every group
 * of the plan (tsr_gemm_cost.c), which on the SoC's core costs millions of
 * cycles per candidate for a large GEMM. So the search predicts the small
 * candidates (SMALL_GROUPS), takes the floor of the others
 * (tsr_gemm_predict_floor, a few operations per kind of group), predicts the
 * one with the lowest floor, and then predicts, in the usual order, only those
 * whose floor could still beat the best or tie with it and come first. As
 * floor <= prediction, that is the exhaustive search's winner and prediction
 * (tests/unit/test_gemm_search.c).
 */
typedef struct search {
  bool found;
  uint64_t best_score;
  uint32_t best_idx;
  cand_t best; /* fields assigned one by one: no memcpy/memset in the firmware */
} search_t;

/* Whether candidate `idx` with a score (or floor) of `sc` beats the best so far. */
static bool beats(const search_t *s, uint64_t sc, uint32_t idx) {
  return !s->found || sc < s->best_score || (sc == s->best_score && idx < s->best_idx);
}

static tsr_status_t plan_search(const tsr_dev_info_t *info, const tsr_gemm_desc_t *desc,
                                const tsr_gemm_opts_t *opts, bool exhaustive,
                                tsr_gemm_plan_t *plan) {
  if (info == NULL || desc == NULL || plan == NULL || info->dim == 0u || info->axi_bytes == 0u) {
    return TSR_BAD_ARG;
  }
  tsr_status_t st = tsr_gemm_check_desc(desc, NULL);
  if (st != TSR_OK) {
    return st;
  }
  if (desc->has_lut && !info->has_sfu) {
    return TSR_UNSUPPORTED; /* the SFU loads the activation table */
  }
  const uint32_t max_mt = opts != NULL ? opts->max_mt : 0u;
  const uint32_t max_kc = opts != NULL ? opts->max_kc : 0u;
  /* The memory the prediction assumes: the bus width unless capped, the default latency. */
  const uint32_t bw_cap = opts != NULL ? opts->mem_bw : 0u;
  const uint32_t mem_bw = bw_cap != 0u && bw_cap < info->axi_bytes ? bw_cap : info->axi_bytes;
  /* The memory model caps reads and writes together; below twice the bus width
   * the cap can bind while both channels move. */
  const bool mem_shared = bw_cap != 0u && bw_cap < 2u * info->axi_bytes;
  const uint32_t mem_latency =
      opts != NULL && opts->mem_latency != 0u ? opts->mem_latency : TSR_GEMM_EST_MEM_LATENCY;
  const bool streamed = opts != NULL && opts->streamed;
  const bool whole_k = opts != NULL && opts->whole_k;
  const tsr_gemm_buf_t spad_buf = opts != NULL ? opts->spad_buf : TSR_BUF_AUTO;
  const tsr_gemm_buf_t acc_buf = opts != NULL ? opts->acc_buf : TSR_BUF_AUTO;
  if (spad_buf > TSR_BUF_DOUBLE || acc_buf > TSR_BUF_DOUBLE) {
    return TSR_BAD_ARG;
  }
  const uint32_t dim = info->dim;
  const uint32_t kb = ceil_div(desc->k, dim);
  /* K chunk limits: LOAD COLS (A) and ROWS (W) are 16-bit, and the option. */
  uint32_t kcb_cap = min32(kb, MAX16 / dim);
  if (max_kc != 0u) {
    kcb_cap = min32(kcb_cap, max_kc / dim != 0u ? max_kc / dim : 1u);
  }
  if (kcb_cap == 0u) {
    return TSR_UNSUPPORTED; /* dim > 65535: cannot happen with an 8-bit ARRAY_DIM */
  }

  /* N-column blocks per n-group: how many W chunks share one A chunk. */
  static const uint32_t k_nbs[] = {1u, 2u, 3u, 4u, 5u, 6u, 8u};
  search_t s;
  s.found = false;
  s.best_score = 0u;
  s.best_idx = 0u;
  s.best.sbufs = 0u;
  s.best.abufs = 0u;
  s.best.kcb = 0u;
  s.best.nb = 0u;
  s.best.banked = false;
  s.best.whole_k = whole_k;
  /* Pass 0 predicts the small candidates (their prediction costs about what a floor does)
   * and finds the large candidate with the lowest floor; pass 1 predicts that one; pass 2
   * predicts the other large ones, in order, each unless its floor rules it out. The
   * exhaustive search is pass 0 with every candidate small. */
  uint64_t low_floor = 0u;
  uint32_t low_idx = 0u;
  bool have_low = false;
  for (uint32_t pass = 0u; pass < 3u; pass++) {
    if ((pass == 1u && !have_low) || (pass == 2u && !have_low)) {
      break;
    }
    uint32_t idx = 0u; /* the candidate's rank in the order of the search */
    for (uint32_t sb = 2u; sb >= 1u; sb--) {
      for (uint32_t ab = 2u; ab >= 1u; ab--) {
        if ((spad_buf == TSR_BUF_SINGLE && sb != 1u) || (spad_buf == TSR_BUF_DOUBLE && sb != 2u) ||
            (acc_buf == TSR_BUF_SINGLE && ab != 1u) || (acc_buf == TSR_BUF_DOUBLE && ab != 2u)) {
          continue;
        }
        /* Candidate chunks: all of K, halvings of it, and the largest chunk that
         * still allows the largest tile the accumulator can take. */
        const uint32_t prows = tsr_gemm_param_rows(desc);
        uint32_t mt_cap = min32(min32(desc->m, MAX16),
                                info->acc_rows / ab > prows ? info->acc_rows / ab - prows : 1u);
        if (max_mt != 0u) {
          mt_cap = min32(mt_cap, max_mt);
        }
        uint32_t cands[40];
        uint32_t nc = 0u;
        cands[nc++] = kcb_cap;
        for (uint32_t c = kcb_cap; c > 1u && nc < 36u;) {
          c = ceil_div(c, 2u);
          cands[nc++] = c;
        }
        const uint32_t lrows = tsr_gemm_lut_rows(desc, dim);
        const uint32_t spad = info->spad_rows > lrows ? info->spad_rows - lrows : 0u;
        uint32_t fit = (spad / sb) / (mt_cap + dim);
        cands[nc++] = fit < 1u ? 1u : min32(fit, kcb_cap);
        const uint32_t n_nbs = (uint32_t)(sizeof k_nbs / sizeof k_nbs[0]);
        for (uint32_t i = 0u; i < 2u * nc * n_nbs; i++, idx++) {
          if (pass == 1u && idx != low_idx) {
            continue;
          }
          cand_t cd;
          cd.sbufs = sb;
          cd.abufs = ab;
          cd.kcb = cands[i % nc];
          cd.nb = k_nbs[(i / nc) % n_nbs];
          cd.banked = i < nc * n_nbs;
          cd.whole_k = whole_k;
          if (!make_candidate(info, desc, &cd, max_mt, mem_bw, mem_shared, mem_latency, streamed, plan)) {
            continue;
          }
          const bool small = exhaustive || plan->groups <= SMALL_GROUPS;
          if (pass == 0u && !small) {
            const uint64_t f = tsr_gemm_predict_floor(info, desc, plan);
            if (!have_low || f < low_floor) {
              have_low = true;
              low_floor = f;
              low_idx = idx;
            }
            continue;
          }
          if (pass == 2u &&
              (small || idx == low_idx || !beats(&s, tsr_gemm_predict_floor(info, desc, plan), idx))) {
            continue; /* predicted in pass 0 or 1, or cannot win */
          }
          const uint64_t sc = tsr_gemm_predict_cycles(info, desc, plan);
          if (beats(&s, sc, idx)) {
            s.found = true;
            s.best_score = sc;
            s.best_idx = idx;
            s.best.sbufs = cd.sbufs;
            s.best.abufs = cd.abufs;
            s.best.kcb = cd.kcb;
            s.best.nb = cd.nb;
            s.best.banked = cd.banked;
          }
        }
      }
    }
  }
  if (!s.found) {
    return TSR_UNSUPPORTED;
  }
  /* Rebuild the winner in place (cheaper than keeping a copy). */
  (void)make_candidate(info, desc, &s.best, max_mt, mem_bw, mem_shared, mem_latency, streamed, plan);
  plan->est_cycles = s.best_score;
  return TSR_OK;
}
