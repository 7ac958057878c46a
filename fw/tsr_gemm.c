/* tsr_gemm.c: GEMM tiler (planner) and executor for Tessera (freestanding firmware). */
#include "tsr_fw.h"
#include "tsr_fw_cmd.h"

/*
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
 *                buffer is nb sub-tiles of [mt rows | bias | mult | shift
 *                (| mult_neg | shift_neg)] (the last two with leaky: STORE's
 *                LEAKY flag reads them). Each buffer sits in its own
 *                accumulator bank, so the STOREs of one tile run while the
 *                MATMULs of the next one fill the other bank.
 *
 * Dependency tokens (docs/commands.md). Stages: load (scratchpad LOADs),
 * compute (MATMUL, accumulator LOADs, NOP), store (STORE). A "group" is one
 * (m-tile, n-group, K chunk) step: its scratchpad LOADs and its MATMULs. A
 * "tile" is one (m-tile, n-group) accumulator tile: its groups, parameter
 * LOADs and its nb STOREs. With S scratchpad buffer pairs and T accumulator
 * buffers (1 or 2 each):
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
 *                                  STOREs of tile i-T).
 *
 * Every push is matched by exactly one pop, so all four counters are back to
 * zero at the end of a job; in program order each pop follows its push, so
 * the serial engine never pops an empty counter; counters never exceed 2 (3
 * with a table: the load stage may run ahead by its token and those of two
 * groups).
 */

#define PARAM_ROWS_MAX TSR_STORE_PARAM_ROWS_LEAKY
#define MAX16 0xffffu

/* Assumptions of the cycle estimate. */
#define EST_CMD_OVERHEAD 5u   /* fetch, range checks, decode */
#define EST_MM_GAP 2u         /* between back-to-back MATMULs (the next one was read ahead) */
#define EST_STORE_QUEUE 4u    /* STOREs the engine queues (tsr_ctrl StoreQDepth) */
#define EST_DMA_SETUP 2u      /* a LOAD/STORE's first beat comes this much after the latency */
#define EST_MEM_LATENCY 10u   /* memory model default: AR to first R beat, last W to B */
#define EST_OUTSTANDING 4u    /* bursts the DMA keeps in flight (tsr_dma_rd MaxOutstanding) */
#define EST_SUBMIT 35u        /* tsr_submit: a CMDQ_STATUS read and 8 word writes (simulation HAL) */


static bool is_int8(int32_t v) { return v >= -128 && v <= 127; }

/* Accumulator rows after each tile: bias, mult, shift (+ mult_neg, shift_neg with leaky). */
static uint32_t param_rows(const tsr_gemm_desc_t *d) {
  return d->leaky ? TSR_STORE_PARAM_ROWS_LEAKY : TSR_STORE_PARAM_ROWS;
}

/* Scratchpad rows of the activation table (0 without one). */
static uint32_t lut_rows(const tsr_gemm_desc_t *d, uint32_t dim) {
  return d->has_lut ? ceil_div(TSR_SFU_LUT_ENTRIES, dim) : 0u;
}

static uint32_t n_params(const tsr_gemm_desc_t *d) {
  return (d->has_bias ? 1u : 0u) + (d->per_channel ? 2u : 0u) + (d->leaky ? 2u : 0u);
}


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

/* One group (m-tile, n-group, K chunk) of the executor's loop nest: one A
 * chunk and the W chunks of the n-group's nblk N-column blocks. */
typedef struct group {
  uint32_t t, jg, c;     /* m-tile, n-group, K chunk */
  uint32_t unit;         /* accumulator tile index (m-tile, n-group) */
  uint32_t m0, mrows;    /* rows of A and C */
  uint32_t n0, ncols;    /* columns of B and C of the whole n-group */
  uint32_t nblk;         /* N-column blocks in the n-group */
  uint32_t k0, kcur;     /* K range of the chunk */
  uint32_t abase, wbase; /* scratchpad buffers */
  uint32_t cbase;        /* accumulator tile buffer */
} group_t;

static void group_at(const tsr_gemm_desc_t *d, const tsr_gemm_plan_t *p, uint32_t g, group_t *x) {
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

/* Columns of sub-tile jj (N-column block jj of the group). */
static uint32_t sub_cols(const tsr_gemm_desc_t *d, const group_t *x, uint32_t dim, uint32_t jj) {
  return min32(dim, d->n - (x->n0 + jj * dim));
}

/* ---- Cost model ------------------------------------------------------------------------------ */

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* One 16-bit digit of a long division by d < 2^16: *r becomes the remainder. */
static uint32_t div_digit(uint32_t *r, uint32_t digit, uint32_t d) {
  const uint32_t x = (*r << 16) | (digit & 0xffffu);
  *r = x % d;
  return x / d;
}

/* ceil(n / d) for a 64-bit n and 0 < d < 2^16 (a bandwidth in bytes per cycle),
 * in 16-bit digits with 32-bit arithmetic and constant shifts: the firmware
 * links no libgcc, which RV32 needs for 64-bit division and variable shifts. */
static uint64_t ceil_div64(uint64_t n, uint32_t d) {
  uint32_t r = 0u;
  const uint64_t q3 = div_digit(&r, (uint32_t)(n >> 48), d);
  const uint64_t q2 = div_digit(&r, (uint32_t)(n >> 32), d);
  const uint64_t q1 = div_digit(&r, (uint32_t)(n >> 16), d);
  const uint64_t q0 = div_digit(&r, (uint32_t)n, d);
  return ((q3 << 48) | (q2 << 32) | (q1 << 16) | q0) + (r != 0u ? 1u : 0u);
}

/*
 * Quarter cycles to move one external row of `bytes` bytes. Each row is one
 * burst; a burst holds one of EST_OUTSTANDING slots for about latency +
 * beats + 1 cycles, so short rows are limited by the slots and long rows by
 * the bus: max(beats, (latency + beats + 1) / EST_OUTSTANDING), where a beat
 * takes beat / mem_bw cycles when the memory delivers less than the bus
 * width. A LOAD also writes local memory one chunk (`chunk` bytes) per cycle,
 * which is the limit when a chunk is narrower than a bus beat (N = 4 on a
 * 64-bit bus).
 */
static uint64_t row_cost_q(const tsr_gemm_plan_t *p, uint32_t beat, uint32_t bytes,
                           uint32_t chunk) {
  const uint64_t beats = ceil_div(bytes, beat);
  const uint64_t chunks = ceil_div(bytes, chunk);
  const uint64_t bus_q = ceil_div(ceil_div(bytes, beat) * beat * 4u, p->mem_bw);
  const uint64_t slots = (p->mem_latency + beats + 1u) * 4u / EST_OUTSTANDING;
  return max64(max64(bus_q, chunks * 4u), slots);
}

/* Cycles of a LOAD or STORE moving `rows` external rows of `bytes` bytes
 * (`chunk`: local bytes written per cycle; a STORE passes the beat). */
static uint64_t dma_cycles(const tsr_gemm_plan_t *p, uint32_t beat, uint32_t rows, uint32_t bytes,
                           uint32_t chunk) {
  return p->mem_latency + EST_DMA_SETUP + (uint64_t)rows * row_cost_q(p, beat, bytes, chunk) / 4u;
}

/* Cycles of a STORE's rows: the DMA writes them as they leave the output
 * stage, which passes a row per `pass` cycles (N / lanes, tsr_store). */
static uint64_t store_cycles(const tsr_gemm_plan_t *p, uint32_t beat, uint32_t rows,
                             uint32_t bytes, uint32_t pass) {
  const uint64_t row_q = max64(row_cost_q(p, beat, bytes, beat), (uint64_t)pass * 4u);
  return p->mem_latency + EST_DMA_SETUP + (uint64_t)rows * row_q / 4u;
}

/*
 * The prediction replays the executor's command stream (tsr_gemm_run) on a
 * model of the three stages, group by group. Each stage is a clock: the
 * front end (which runs the compute stage and dispatches the others), the
 * load stage and the store stage. A command starts when its stage is free and
 * its tokens are there, exactly as docs/commands.md orders them:
 *   - group g's LOADs: after the load stage is free and group g-S's MATMULs
 *     freed the buffer (S = scratchpad buffer pairs);
 *   - group g's MATMULs: after its LOADs, and for a tile's first group after
 *     the STORE that last used the accumulator buffer; each MATMUL costs an
 *     N-cycle weight load, M rows and the command overhead;
 *   - a tile's parameter LOADs: after the array drained (2N), with the load
 *     queue empty (they share the DMA read engine) and, being tokenless except
 *     the last, after every earlier STORE;
 *   - the STORE: after its parameters, when the store stage is free;
 *   - behind a memory whose bandwidth cap reads and writes share
 *     (mem_shared), a STORE's bytes delay the LOADs that move while it does.
 */
uint64_t tsr_gemm_predict_cycles(const tsr_dev_info_t *info, const tsr_gemm_desc_t *d,
                                 const tsr_gemm_plan_t *p) {
  if (info == NULL || d == NULL || p == NULL || info->dim == 0u || info->axi_bytes == 0u ||
      info->store_lanes == 0u || info->dim % info->store_lanes != 0u ||
      p->mt == 0u || p->kc == 0u || p->dim != info->dim || p->spad_bufs == 0u ||
      p->spad_bufs > 2u || p->acc_bufs == 0u || p->acc_bufs > 2u || p->mem_bw == 0u) {
    return 0u;
  }
  const uint32_t dim = info->dim;
  const uint32_t beat = info->axi_bytes;
  const uint32_t pass = dim / info->store_lanes;   /* output-stage cycles per row */
  const uint32_t es = d->requant ? 1u : 4u;
  const uint32_t ahead = p->spad_bufs - 1u;
  uint64_t front = 0u;        /* the front end is free */
  uint64_t load_free = 0u;    /* the load stage is free */
  uint64_t store_free = 0u;   /* the store stage is free */
  uint64_t loads_done[2] = {0u, 0u};   /* per buffer slot: its group's LOADs done */
  uint64_t mm_done[2] = {0u, 0u};      /* per buffer slot: its group's MATMULs done */
  uint64_t store_done[2] = {0u, 0u};   /* per accumulator buffer: its last STORE done */
  uint64_t st_done[EST_STORE_QUEUE];   /* the last STOREs' completion, a ring */
  uint32_t st_n = 0u;
  for (uint32_t i = 0u; i < EST_STORE_QUEUE; i++) {
    st_done[i] = 0u;
  }
  uint64_t host = 0u;                  /* the host has submitted every command so far */
  uint64_t wr_until = 0u;              /* mem_shared: STORE bytes occupy the memory until then */

  if (d->has_lut) {
    /* The table's LOAD and LUT_LOAD, alone. */
    front = dma_cycles(p, beat, 1u, TSR_SFU_LUT_ENTRIES, dim) + lut_rows(d, dim) + 2u * EST_CMD_OVERHEAD;
    load_free = front;
    host = 2u * EST_SUBMIT;
  }
  uint32_t loaded = 0u;
  for (uint32_t g = 0u; g < p->groups; g++) {
    for (; loaded <= g + ahead && loaded < p->groups; loaded++) {
      group_t x;
      group_at(d, p, loaded, &x);
      const uint32_t slot = loaded % p->spad_bufs;
      const bool a_load = !p->a_resident || x.jg == 0u;
      host += (a_load ? 2u : 1u) * EST_SUBMIT;
      uint64_t start = max64(max64(front, load_free), host);
      if (loaded >= p->spad_bufs) {
        start = max64(start, mm_done[slot]);
      }
      uint64_t t = start + dma_cycles(p, beat, x.kcur, x.ncols, dim);
      if (wr_until > start) {
        t += wr_until - start; /* STORE bytes still crossing a shared memory */
      }
      front += EST_CMD_OVERHEAD;
      if (a_load) {
        t += dma_cycles(p, beat, x.mrows, x.kcur, dim);
        front += EST_CMD_OVERHEAD;
      }
      load_free = t;
      loads_done[slot] = t;
    }
    group_t x;
    group_at(d, p, g, &x);
    const uint32_t slot = g % p->spad_bufs;
    const uint64_t mms = (uint64_t)x.nblk * ceil_div(x.kcur, dim);
    uint64_t start = max64(front, loads_done[slot]);
    if (x.c == 0u && x.unit >= p->acc_bufs) {
      start = max64(start, store_done[x.unit % p->acc_bufs]);
    }
    /* While the front end waits, the host fills the command queue and then
     * waits too: it is at most CMDQ_DEPTH commands ahead when the front end
     * resumes. */
    host = max64(host, start - min64(start, (uint64_t)info->cmdq_depth * EST_SUBMIT));
    /* With preload, a MATMUL's weights load while the previous one streams
     * (from about its N-th row on, for N cycles), so it costs max(M, 2N)
     * instead of M + N; not for M < N (the stream ends first), nor for the
     * tile's first MATMUL (the parameter LOADs before it end the look-ahead)
     * or a group whose data came late. */
    const bool late = start > front;
    const bool pre = p->preload && x.mrows >= dim;
    const uint64_t plain = x.mrows + dim;
    const uint64_t each = pre ? max64(x.mrows, 2u * dim) : plain;
    const uint32_t first_plain = (!pre || x.c == 0u || late) ? 1u : 0u;
    front = start + mms * (each + EST_MM_GAP) + first_plain * (plain - each);
    /* Short MATMULs outrun the host, and then find no next command to preload. */
    host += mms * EST_SUBMIT;
    front = max64(front, host + plain + EST_CMD_OVERHEAD);
    mm_done[slot] = front;
    if (x.c + 1u == p->k_chunks) {
      /* The tile is complete: drain, every sub-tile's parameters, the STOREs
       * (EST_STORE_QUEUE of them queue; the next waits for the oldest). */
      front += 2u * dim;
      host += (uint64_t)x.nblk * (p->n_params + 1u) * EST_SUBMIT;
      if (p->n_params != 0u) {
        front = max64(front, load_free);
        /* After the job's last MATMULs every token counter is back at zero, so
         * the tokenless parameter LOADs of the last tile run as untokened
         * (serial) code: after every earlier STORE (docs/commands.md). */
        if (x.unit + 1u == p->units && (x.nblk > 1u || p->n_params > 1u)) {
          front = max64(front, store_free);
        }
        for (uint32_t jj = 0u; jj < x.nblk; jj++) {
          front += (uint64_t)p->n_params *
                   (EST_CMD_OVERHEAD + dma_cycles(p, beat, 1u, 4u * sub_cols(d, &x, dim, jj), 4u * dim));
        }
      }
      front = max64(front, host);
      for (uint32_t jj = 0u; jj < x.nblk; jj++) {
        /* A full store queue holds the front end until its oldest STORE is done. */
        front = max64(front, st_done[st_n % EST_STORE_QUEUE]) + EST_CMD_OVERHEAD;
        const uint64_t st = max64(front, store_free);
        const uint32_t st_bytes = sub_cols(d, &x, dim, jj) * es;
        store_free = st + p->param_rows + store_cycles(p, beat, x.mrows, st_bytes, pass);
        if (p->mem_shared) {
          /* Reads and writes share a capped memory: the STORE's bytes delay the
           * LOADs moving at the same time by as long as they take alone. */
          const uint64_t xfer = ceil_div64((uint64_t)x.mrows * st_bytes, p->mem_bw);
          if (load_free > st) {
            load_free += xfer;
          }
          wr_until = max64(wr_until, st) + xfer;
        }
        st_done[st_n % EST_STORE_QUEUE] = store_free;
        st_n++;
      }
      store_done[x.unit % p->acc_bufs] = store_free;
    }
  }
  /* Reads and writes share the memory's bandwidth. */
  const uint64_t bus = ceil_div64(p->dma_rd_bytes + p->dma_wr_bytes, p->mem_bw);
  return max64(max64(max64(front, load_free), store_free), bus);
}

/* ---- Planner ----------------------------------------------------------------------------------- */

static void count_plan(const tsr_gemm_desc_t *d, tsr_gemm_plan_t *p) {
  uint64_t a_loads = p->a_resident ? p->m_tiles : p->groups;
  const uint64_t lut = d->has_lut ? 1u : 0u; /* one LOAD of the table and one SFU LUT_LOAD */
  p->cmd_loads = a_loads + p->groups + lut;   /* one W LOAD per group covers its nb blocks */
  p->cmd_matmuls = (uint64_t)p->tiles * p->k_blocks;
  p->cmd_params = (uint64_t)p->tiles * p->n_params;
  p->cmd_stores = p->tiles;
  p->cmds = p->cmd_loads + p->cmd_matmuls + p->cmd_params + p->cmd_stores + lut;
  uint64_t es = d->requant ? 1u : 4u;
  p->dma_rd_bytes = (uint64_t)d->m * d->k * (p->a_resident ? 1u : p->n_groups) +
                    (uint64_t)p->m_tiles * d->k * d->n +
                    (uint64_t)p->m_tiles * d->n * 4u * p->n_params + lut * TSR_SFU_LUT_ENTRIES;
  p->dma_wr_bytes = (uint64_t)d->m * d->n * es;
  p->macs = (uint64_t)d->m * d->k * d->n;
}

/* Build the plan for one (buffering, chunk) choice; false if it does not fit. */
/* First row of the scratchpad's upper bank: 2^(ceil(log2 rows) - 1), as in tsr_bank2. */
static uint32_t spad_half(uint32_t rows) {
  uint32_t h = 1u;
  while (h < rows / 2u + rows % 2u) {
    h *= 2u;
  }
  return h;
}

/* One candidate of the planner. */
typedef struct cand {
  uint32_t sbufs, abufs; /* scratchpad buffer pairs, accumulator tile buffers */
  uint32_t kcb;          /* K chunk in N-row blocks */
  uint32_t nb;           /* N-column blocks per n-group */
  bool banked;           /* A buffers in the lower scratchpad bank, W buffers and the table in
                            the upper one (weight preload); else all packed from row 0 */
} cand_t;

/* Build the plan for one candidate; false if it does not fit. */
static bool make_candidate(const tsr_dev_info_t *info, const tsr_gemm_desc_t *d, const cand_t *cd,
                           uint32_t max_mt, uint32_t mem_bw, bool mem_shared, uint32_t mem_latency,
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
  kcb = ceil_div(kb, chunks);

  /* Tile rows: accumulator (3 or 5 parameter rows per buffer), scratchpad
   * (less the table), fields. */
  const uint32_t prows = param_rows(d);
  const uint32_t acc_per_buf = info->acc_rows / abufs;
  const uint32_t n_blocks = ceil_div(d->n, dim);
  if (nb == 0u || nb > n_blocks || acc_per_buf / nb < 1u + prows) {
    return false;
  }
  const uint32_t lrows = lut_rows(d, dim);
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
  p->n_params = n_params(d);
  p->mem_bw = mem_bw;
  p->mem_shared = mem_shared;
  p->mem_latency = mem_latency;
  count_plan(d, p);
  p->est_cycles = tsr_gemm_predict_cycles(info, d, p);
  return true;
}

/* Rank: the predicted cycles. */
static uint64_t score(const tsr_gemm_plan_t *p) { return p->est_cycles; }

tsr_status_t tsr_gemm_plan(const tsr_dev_info_t *info, const tsr_gemm_desc_t *desc,
                           tsr_gemm_plan_t *plan) {
  return tsr_gemm_plan_opts(info, desc, NULL, plan);
}

tsr_status_t tsr_gemm_plan_opts(const tsr_dev_info_t *info, const tsr_gemm_desc_t *desc,
                                const tsr_gemm_opts_t *opts, tsr_gemm_plan_t *plan) {
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
      opts != NULL && opts->mem_latency != 0u ? opts->mem_latency : EST_MEM_LATENCY;
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
  bool found = false;
  uint64_t best_score = 0u;
  cand_t best; /* fields assigned one by one: no memcpy/memset in the firmware */
  best.sbufs = 0u;
  best.abufs = 0u;
  best.kcb = 0u;
  best.nb = 0u;
  best.banked = false;
  for (uint32_t sb = 2u; sb >= 1u; sb--) {
    if ((spad_buf == TSR_BUF_SINGLE && sb != 1u) || (spad_buf == TSR_BUF_DOUBLE && sb != 2u)) {
      continue;
    }
    for (uint32_t ab = 2u; ab >= 1u; ab--) {
      if ((acc_buf == TSR_BUF_SINGLE && ab != 1u) || (acc_buf == TSR_BUF_DOUBLE && ab != 2u)) {
        continue;
      }
      /* Candidate chunks: all of K, halvings of it, and the largest chunk that
       * still allows the largest tile the accumulator can take. */
      const uint32_t prows = param_rows(desc);
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
      const uint32_t lrows = lut_rows(desc, dim);
      const uint32_t spad = info->spad_rows > lrows ? info->spad_rows - lrows : 0u;
      uint32_t fit = (spad / sb) / (mt_cap + dim);
      cands[nc++] = fit < 1u ? 1u : min32(fit, kcb_cap);
      const uint32_t n_nbs = (uint32_t)(sizeof k_nbs / sizeof k_nbs[0]);
      for (uint32_t i = 0u; i < 2u * nc * n_nbs; i++) {
        cand_t cd;
        cd.sbufs = sb;
        cd.abufs = ab;
        cd.kcb = cands[i % nc];
        cd.nb = k_nbs[(i / nc) % n_nbs];
        cd.banked = i < nc * n_nbs;
        if (!make_candidate(info, desc, &cd, max_mt, mem_bw, mem_shared, mem_latency, plan)) {
          continue;
        }
        uint64_t sc = score(plan);
        if (!found || sc < best_score) {
          found = true;
          best_score = sc;
          best.sbufs = cd.sbufs;
          best.abufs = cd.abufs;
          best.kcb = cd.kcb;
          best.nb = cd.nb;
          best.banked = cd.banked;
        }
      }
    }
  }
  if (!found) {
    return TSR_UNSUPPORTED;
  }
  /* Rebuild the winner in place (cheaper than keeping a copy). */
  (void)make_candidate(info, desc, &best, max_mt, mem_bw, mem_shared, mem_latency, plan);
  return TSR_OK;
}

/* ---- Executor -------------------------------------------------------------------------------------- */

/* Parameter vectors of a tile, in accumulator-row order after the tile rows. */
static tsr_status_t push_params(tsr_dev_t *dev, const tsr_gemm_desc_t *d, uint32_t n0,
                                uint32_t ncols, uint32_t prow, uint32_t last_deps) {
  uint32_t addr[PARAM_ROWS_MAX];
  uint32_t row[PARAM_ROWS_MAX];
  uint32_t cnt = 0u;
  if (d->has_bias) {
    addr[cnt] = d->bias_addr + 4u * n0;
    row[cnt++] = prow;
  }
  if (d->per_channel) {
    addr[cnt] = d->mult_addr + 4u * n0;
    row[cnt++] = prow + 1u;
    addr[cnt] = d->shift_addr + 4u * n0;
    row[cnt++] = prow + 2u;
  }
  if (d->leaky) {
    addr[cnt] = d->mult_neg_addr + 4u * n0;
    row[cnt++] = prow + 3u;
    addr[cnt] = d->shift_neg_addr + 4u * n0;
    row[cnt++] = prow + 4u;
  }
  for (uint32_t i = 0u; i < cnt; i++) {
    uint32_t deps = (i + 1u == cnt) ? last_deps : 0u;
    tsr_status_t st =
        tsr_fw_push_load(dev, deps, TSR_LOAD_ACC, addr[i], 4u * ncols, 1u, 4u * ncols, row[i]);
    if (st != TSR_OK) {
      return st;
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
         p->a_resident == (p->k_chunks == 1u) && p->n_params == n_params(d) &&
         p->param_rows == param_rows(d) && p->acc_stride == p->mt + p->param_rows &&
         (!d->has_lut || (uint64_t)p->lut_base + lut_rows(d, dim) <= info->spad_rows);
}

/* The scratchpad LOADs of group g: the first waits for its buffers to be
 * free, the last tells compute the data is there. */
static tsr_status_t push_group_loads(tsr_dev_t *dev, const tsr_gemm_desc_t *d,
                                     const tsr_gemm_plan_t *p, uint32_t g) {
  group_t x;
  group_at(d, p, g, &x);
  uint32_t first_deps = g >= p->spad_bufs ? TSR_DEP_POP_NEXT : 0u;
  tsr_status_t st;
  if (!p->a_resident || x.jg == 0u) {
    st = tsr_fw_push_load(dev, first_deps, TSR_LOAD_SPAD, d->a_addr + x.m0 * d->lda + x.k0, d->lda,
                          x.mrows, x.kcur, x.abase);
    if (st != TSR_OK) {
      return st;
    }
    first_deps = 0u;
  }
  return tsr_fw_push_load(dev, first_deps | TSR_DEP_PUSH_NEXT, TSR_LOAD_SPAD,
                          d->b_addr + x.k0 * d->ldb + x.n0, d->ldb, x.kcur, x.ncols, x.wbase);
}

/* The MATMULs of group g: for each of its N-column blocks, one per N-row
 * block of its K chunk, into that block's sub-tile of the accumulator tile. */
static tsr_status_t push_group_matmuls(tsr_dev_t *dev, const tsr_gemm_desc_t *d,
                                       const tsr_gemm_plan_t *p, uint32_t g) {
  const uint32_t dim = p->dim;
  group_t x;
  group_at(d, p, g, &x);
  const uint32_t kblocks = ceil_div(x.kcur, dim);
  for (uint32_t jj = 0u; jj < x.nblk; jj++) {
    for (uint32_t b = 0u; b < kblocks; b++) {
      uint32_t deps = 0u;
      if (jj == 0u && b == 0u) {
        deps |= TSR_DEP_POP_PREV;
        if (x.c == 0u && x.unit >= p->acc_bufs) {
          deps |= TSR_DEP_POP_NEXT;
        }
      }
      if (jj + 1u == x.nblk && b + 1u == kblocks) {
        if (g + p->spad_bufs < p->groups) {
          deps |= TSR_DEP_PUSH_PREV;
        }
        if (x.c + 1u == p->k_chunks && p->n_params == 0u) {
          deps |= TSR_DEP_PUSH_NEXT;
        }
      }
      tsr_matmul_args_t mm;
      mm.a_addr = x.abase + b * x.mrows;
      mm.w_addr = x.wbase + jj * x.kcur + b * dim; /* the W LOAD put block jj after jj*kcur rows */
      mm.c_addr = x.cbase + jj * p->acc_stride;
      mm.m = x.mrows;
      mm.k = min32(dim, x.kcur - b * dim);
      mm.n = sub_cols(d, &x, dim, jj);
      mm.accumulate = !(x.c == 0u && b == 0u);
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
  }
  return TSR_OK;
}

/* The parameter LOADs and the STOREs of the tile that group g completes, one
 * STORE per N-column block. The last parameter LOAD (else the last MATMUL)
 * gives the store stage one token; the first STORE takes it and the others
 * follow it in the store stage's order; the last frees the tile buffer. */
static tsr_status_t push_tile_stores(tsr_dev_t *dev, const tsr_gemm_desc_t *d,
                                     const tsr_gemm_plan_t *p, uint32_t g) {
  const uint32_t dim = p->dim;
  const uint32_t esize = d->requant ? 1u : 4u;
  group_t x;
  group_at(d, p, g, &x);
  tsr_status_t st = TSR_OK;
  for (uint32_t jj = 0u; jj < x.nblk && st == TSR_OK; jj++) {
    st = push_params(dev, d, x.n0 + jj * dim, sub_cols(d, &x, dim, jj),
                     x.cbase + jj * p->acc_stride + p->mt,
                     jj + 1u == x.nblk ? TSR_DEP_PUSH_NEXT : 0u);
  }
  for (uint32_t jj = 0u; jj < x.nblk && st == TSR_OK; jj++) {
    const uint32_t n0 = x.n0 + jj * dim;
    const uint32_t src = x.cbase + jj * p->acc_stride;
    tsr_store_args_t sa;
    sa.addr = d->c_addr + x.m0 * d->ldc + n0 * esize;
    sa.stride = d->ldc;
    sa.rows = x.mrows;
    sa.cols = sub_cols(d, &x, dim, jj);
    sa.src = src;
    sa.param = src + p->mt;
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
    if (jj + 1u == x.nblk && x.unit + p->acc_bufs < p->units) {
      sdeps |= TSR_DEP_PUSH_PREV;
    }
    tsr_cmd_t cmd;
    st = tsr_cmd_store(dev, sdeps, &sa, &cmd);
    if (st == TSR_OK) {
      st = tsr_submit(dev, &cmd);
    }
  }
  return st;
}

tsr_status_t tsr_gemm_run(tsr_dev_t *dev, const tsr_gemm_desc_t *d, const tsr_gemm_plan_t *p,
                          tsr_gemm_progress_fn progress, void *user) {
  if (dev == NULL || d == NULL || p == NULL || dev->info.dim == 0u) {
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
   * LOADs of group g+1 wait for group g-1's MATMULs.) */
  const uint32_t ahead = p->spad_bufs - 1u;
  uint32_t loaded = 0u; /* groups whose LOADs were issued */
  for (uint32_t g = 0u; g < p->groups; g++) {
    for (; loaded <= g + ahead && loaded < p->groups; loaded++) {
      if ((st = push_group_loads(dev, d, p, loaded)) != TSR_OK) {
        return st;
      }
    }
    if ((st = push_group_matmuls(dev, d, p, g)) != TSR_OK) {
      return st;
    }
    if ((g + 1u) % p->k_chunks == 0u) {
      if ((st = push_tile_stores(dev, d, p, g)) != TSR_OK) {
        return st;
      }
      if (progress != NULL) { /* one call per STORE */
        group_t x;
        group_at(d, p, g, &x);
        for (uint32_t jj = 1u; jj <= x.nblk; jj++) {
          progress(user, x.t * p->n_blocks + x.jg * p->nb + jj, p->tiles);
        }
      }
    }
  }
  return tsr_wait(dev, TSR_WAIT_IRQ, 0u);
}
