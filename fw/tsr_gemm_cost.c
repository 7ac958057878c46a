/* tsr_gemm_cost.c: GEMM cost model: the predicted cycles of a plan (freestanding firmware). */
#include "tsr_gemm_int.h"

/* Assumptions of the cycle estimate (and TSR_GEMM_EST_MEM_LATENCY, tsr_gemm_int.h). */
#define EST_CMD_OVERHEAD 5u   /* fetch, range checks, decode */
#define EST_PRE_GAP 1u        /* a preloaded tile: cycles past N before it streams */
#define EST_STORE_QUEUE 4u    /* STOREs the engine queues (tsr_ctrl StoreQDepth) */
#define EST_DMA_SETUP 2u      /* a LOAD/STORE's first beat comes this much after the latency */
/* Bursts in flight the model credits short rows with. The DMA masters keep 8 (tsr_top
 * DmaOutstanding), but such rows also pay the packer's cycle per chunk and the fetcher's
 * bursts, which the model leaves out. Crediting 8 chose slower plans (2026-11-27: 32^3 at
 * N = 8 took 1,292 cycles against 1,140, 64^3 at N = 16 2,444 against 2,325); with 4 the
 * small cubes of make bench are predicted up to 17 % high. */
#define EST_OUTSTANDING 4u
#define EST_SUBMIT 35u        /* tsr_submit: a CMDQ_STATUS read and 8 word writes (simulation HAL) */
#define EST_CMD_BYTES 32u     /* a command in a ring: its bytes fetched on the read port */
#define EST_FETCH_BURST 8u    /* commands per fetch burst, one burst in flight (tsr_top FetchBurst) */
#define EST_JOB_OUTSIDE 41u   /* a job's cycles outside BUSY: its start and end through the
                                 registers (measured: 41 at every point of make bench) */

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
 *     the STORE that last used the accumulator buffer; each of a MATMUL's
 *     weight tiles costs M rows and, unless preloaded, an N-cycle weight load;
 *   - a tile's parameter LOADs: after the array drained (2N), with the load
 *     queue empty (they share the DMA read engine) and, being tokenless except
 *     the last, after every earlier STORE;
 *   - the STORE: after its parameters, when the store stage is free;
 *   - behind a memory whose bandwidth cap reads and writes share
 *     (mem_shared), a STORE's bytes delay the LOADs that move while it does.
 */
/*
 * Cycles of one weight tile of a MATMUL of `mrows` rows in a run of them: M rows
 * streamed, and with preload (A and W in different scratchpad banks) the next
 * tile's N weight rows loaded meanwhile through the weight port, which cannot
 * begin before the bank it overwrites has been read by the tile two before.
 * Without preload the N-cycle weight load comes first.
 */
static uint64_t mm_tile(const tsr_gemm_plan_t *p, uint32_t mrows) {
  return p->preload ? max64(mrows, (uint64_t)p->dim + EST_PRE_GAP) : (uint64_t)mrows + p->dim;
}

/* A plan and configuration the model can score (else the prediction is 0). */
static bool predictable(const tsr_dev_info_t *info, const tsr_gemm_desc_t *d, const tsr_gemm_plan_t *p) {
  return info != NULL && d != NULL && p != NULL && info->dim != 0u && info->axi_bytes != 0u &&
         info->store_lanes != 0u && info->dim % info->store_lanes == 0u && p->mt != 0u &&
         p->kc != 0u && p->dim == info->dim && p->spad_bufs != 0u && p->spad_bufs <= 2u &&
         p->acc_bufs != 0u && p->acc_bufs <= 2u && p->mem_bw != 0u;
}

uint64_t tsr_gemm_predict_cycles(const tsr_dev_info_t *info, const tsr_gemm_desc_t *d,
                                 const tsr_gemm_plan_t *p) {
  if (!predictable(info, d, p)) {
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
  /* Cycles the commands take to reach the chip, each: the host's register writes, or
   * through a command ring (the host wrote them all up front) the fetcher's bursts of
   * EST_FETCH_BURST commands, one in flight, each a latency and its beats; the first
   * command is queued one latency and its own beats after the start. */
  const uint64_t cmd_beats = ceil_div(EST_CMD_BYTES, p->mem_bw);
  const uint64_t submit =
      p->streamed ? ceil_div(p->mem_latency + EST_DMA_SETUP + EST_FETCH_BURST * cmd_beats,
                             EST_FETCH_BURST)
                  : EST_SUBMIT;
  if (p->streamed) {
    /* The first command is queued once the first burst is in (measured: 16^3 at N = 8). */
    const uint64_t first = p->cmds < EST_FETCH_BURST ? p->cmds : EST_FETCH_BURST;
    host = p->mem_latency + EST_DMA_SETUP + first * cmd_beats - submit;
  }
  uint64_t wr_until = 0u;              /* mem_shared: STORE bytes occupy the memory until then */

  if (d->has_lut) {
    /* The table's LOAD and LUT_LOAD, alone. */
    front = dma_cycles(p, beat, 1u, TSR_SFU_LUT_ENTRIES, dim) + tsr_gemm_lut_rows(d, dim) +
            2u * EST_CMD_OVERHEAD;
    load_free = front;
    host += 2u * submit;
  }
  uint32_t loaded = 0u;
  for (uint32_t g = 0u; g < p->groups; g++) {
    for (; loaded <= g + ahead && loaded < p->groups; loaded++) {
      tsr_gemm_group_t x;
      tsr_gemm_group_at(d, p, loaded, &x);
      const uint32_t slot = loaded % p->spad_bufs;
      const bool a_load = !p->a_resident || x.jg == 0u;
      host += (a_load ? 2u : 1u) * submit;
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
    tsr_gemm_group_t x;
    tsr_gemm_group_at(d, p, g, &x);
    const uint32_t slot = g % p->spad_bufs;
    const uint64_t tiles = (uint64_t)x.nblk * ceil_div(x.kcur, dim); /* weight tiles */
    uint64_t start = max64(front, loads_done[slot]);
    if (x.c == 0u && x.unit >= p->acc_bufs) {
      start = max64(start, store_done[x.unit % p->acc_bufs]);
    }
    /* While the front end waits, the host fills the command queue and then
     * waits too: it is at most CMDQ_DEPTH commands ahead when the front end
     * resumes. */
    host = max64(host, start - min64(start, (uint64_t)info->cmdq_depth * submit));
    /* With preload, a tile's weights load while the tile before streams (its own
     * MATMUL's, or the MATMUL before), so it costs mm_tile() instead of M + N;
     * not the tile's first MATMUL's first (the parameter LOADs before it end the
     * look-ahead) or a group whose data came late. */
    const bool late = start > front;
    const uint64_t plain = x.mrows + dim;
    const uint64_t each = mm_tile(p, x.mrows);
    const uint32_t first_plain = (!p->preload || x.c == 0u || late) ? 1u : 0u;
    front = start + tiles * each + first_plain * (plain - each);
    /* Short MATMULs outrun the host, and then find no next command to preload. */
    host += (uint64_t)x.nblk * submit;
    front = max64(front, host + plain + EST_CMD_OVERHEAD);
    mm_done[slot] = front;
    if (x.c + 1u == p->k_chunks) {
      /* The tile is complete: drain, every sub-tile's parameters, the STOREs
       * (EST_STORE_QUEUE of them queue; the next waits for the oldest). */
      front += 2u * dim;
      const uint32_t ploads = tsr_gemm_param_loads(d, x.nblk);
      host += (uint64_t)(ploads + x.nblk) * submit;
      if (ploads != 0u) {
        front = max64(front, load_free);
        /* Without the tail token every token counter is back at zero after the
         * job's last MATMULs, so the tokenless parameter LOADs of the last tile
         * run as untokened (serial) code: after every earlier STORE
         * (docs/commands.md). */
        if (x.unit + 1u == p->units && ploads > 1u && !tsr_gemm_tail_token(p)) {
          front = max64(front, store_free);
        }
        uint32_t stride;
        const uint32_t r = tsr_gemm_param_merge(d, &stride);
        if (r != 0u) { /* one LOAD: r rows of the tile's columns */
          front += EST_CMD_OVERHEAD + dma_cycles(p, beat, r, 4u * x.ncols, 4u * dim);
        } else {
          for (uint32_t jj = 0u; jj < x.nblk; jj++) {
            const uint32_t cols = tsr_gemm_sub_cols(d, &x, dim, jj);
            front += (uint64_t)p->n_params *
                     (EST_CMD_OVERHEAD + dma_cycles(p, beat, 1u, 4u * cols, 4u * dim));
          }
        }
      }
      front = max64(front, host);
      /* The STOREs are issued once the next group's first MATMUL streams
       * (tsr_gemm_run), so their decode overlaps it; only the last tile's
       * hold the front end. */
      uint64_t sfront = front;
      for (uint32_t jj = 0u; jj < x.nblk; jj++) {
        /* A full store queue holds the front end until its oldest STORE is done. */
        sfront = max64(sfront, st_done[st_n % EST_STORE_QUEUE]) + EST_CMD_OVERHEAD;
        const uint64_t st = max64(sfront, store_free);
        const uint32_t st_bytes = tsr_gemm_sub_cols(d, &x, dim, jj) * es;
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
      if (x.unit + 1u == p->units || p->acc_bufs == 1u) {
        front = sfront;
      }
    }
  }
  /* Reads and writes share the memory's bandwidth (with a ring, so do the commands).
   * Each fetch burst also holds the read port for about a latency on top of its
   * beats: the DMA's bursts queue behind it (measured: 1x1024x1024, 4,480 commands
   * at N = 16, is 7 % over its bytes alone). */
  const uint64_t cmd_bytes = p->streamed ? p->cmds * EST_CMD_BYTES : 0u;
  const uint64_t fetch_gaps =
      p->streamed ? ceil_div(p->cmds, EST_FETCH_BURST) * (p->mem_latency + EST_DMA_SETUP) : 0u;
  const uint64_t bus =
      ceil_div64(p->dma_rd_bytes + p->dma_wr_bytes + cmd_bytes, p->mem_bw) + fetch_gaps;
  return max64(max64(max64(front, load_free), store_free), bus) + EST_JOB_OUTSIDE;
}

/* ---- A floor of the prediction, for the planner's search (tsr_gemm_plan.c) --------------- */

/*
 * A lower bound of tsr_gemm_predict_cycles(info, d, p) in a few operations per
 * kind of group instead of a pass over every group: the front end does at
 * least every command's overhead, every MATMUL's step, every drain and every
 * parameter LOAD one after the other; the load stage does at least every LOAD
 * one after the other; and the memory's term is the prediction's own. Groups
 * differ only in being the last m-tile, n-group or K chunk or not, so each sum
 * is over those 8 kinds times their counts. The planner skips a candidate
 * whose floor cannot beat the best plan so far; tests/unit/test_gemm_search.c
 * checks, over many shapes, that this picks what the exhaustive search picks
 * (a term changed above without this floor following it turns that red).
 */
uint64_t tsr_gemm_predict_floor(const tsr_dev_info_t *info, const tsr_gemm_desc_t *d,
                                const tsr_gemm_plan_t *p) {
  if (!predictable(info, d, p)) { /* 0 where the prediction is 0 */
    return 0u;
  }
  const uint32_t dim = info->dim;
  const uint32_t beat = info->axi_bytes;
  uint64_t lut = 0u;       /* the table's LOAD and LUT_LOAD, before anything else */
  uint64_t front = 0u;     /* the front end's steps, but the LOADs' overheads */
  uint64_t load_ovh = 0u;  /* the LOADs' overheads on the front end */
  uint64_t load = 0u;      /* the load stage's LOADs */
  if (d->has_lut) {
    lut = dma_cycles(p, beat, 1u, TSR_SFU_LUT_ENTRIES, dim) + tsr_gemm_lut_rows(d, dim) +
          2u * EST_CMD_OVERHEAD;
  }
  /* Sizes of an interior and of the last m-tile, n-group and K chunk, and how many of each. */
  const uint32_t m_last = d->m - (p->m_tiles - 1u) * p->mt;
  const uint32_t n_last = d->n - (p->n_groups - 1u) * p->nb * dim;
  const uint32_t k_last = d->k - (p->k_chunks - 1u) * p->kc;
  const uint32_t rows[2] = {p->mt, m_last}, cols[2] = {p->nb * dim, n_last}, ks[2] = {p->kc, k_last};
  const uint64_t nt[2] = {p->m_tiles - 1u, 1u}, nn[2] = {p->n_groups - 1u, 1u},
                 nk[2] = {p->k_chunks - 1u, 1u};
  for (uint32_t i = 0u; i < 8u; i++) {
    const uint32_t a = i & 1u, b = (i >> 1) & 1u, c = i >> 2;
    const uint64_t count = nt[a] * nn[b] * nk[c];
    if (count == 0u) {
      continue;
    }
    const uint64_t tiles = (uint64_t)ceil_div(cols[b], dim) * ceil_div(ks[c], dim);
    /* The W LOAD, and the A LOAD unless A stays (then once per m-tile, below). */
    uint64_t ld = dma_cycles(p, beat, ks[c], cols[b], dim);
    if (!p->a_resident) {
      ld += dma_cycles(p, beat, rows[a], ks[c], dim);
    }
    load += count * ld;
    load_ovh += count * (p->a_resident ? 1u : 2u) * EST_CMD_OVERHEAD;
    front += count * tiles * mm_tile(p, rows[a]);
  }
  const uint32_t last_cols = d->n - (p->n_blocks - 1u) * dim;
  for (uint32_t a = 0u; a < 2u; a++) {
    if (nt[a] == 0u) {
      continue;
    }
    /* Per m-tile: A once if it stays; per n-group the drain and the tile's parameter
     * LOADs. */
    if (p->a_resident) {
      load += nt[a] * dma_cycles(p, beat, rows[a], d->k, dim);
      load_ovh += nt[a] * EST_CMD_OVERHEAD;
    }
    uint32_t stride;
    uint64_t params = 0u;
    if (tsr_gemm_param_merge(d, &stride) != 0u) {
      params = (uint64_t)p->n_groups * EST_CMD_OVERHEAD; /* one LOAD per tile */
    } else {
      params = (uint64_t)p->n_params *
               ((uint64_t)(p->n_blocks - 1u) * (EST_CMD_OVERHEAD + dma_cycles(p, beat, 1u, 4u * dim, 4u * dim)) +
                EST_CMD_OVERHEAD + dma_cycles(p, beat, 1u, 4u * last_cols, 4u * dim));
    }
    /* The STOREs of every tile but the last are issued while the next group streams. */
    front += nt[a] * ((uint64_t)p->n_groups * 2u * dim + params);
  }
  /* The first MATMUL waits for group 0's LOADs; the last STORE's rows leave after every
   * step of the front end; the last group's MATMULs, its drain and that STORE follow
   * every LOAD. */
  const uint32_t k0 = min32(p->kc, d->k), n0 = min32(p->nb * dim, d->n);
  const uint64_t first = lut + dma_cycles(p, beat, k0, n0, dim) + dma_cycles(p, beat, p->mt, k0, dim);
  const uint64_t last_store = p->param_rows + store_cycles(p, beat, m_last, last_cols * (d->requant ? 1u : 4u),
                                                           dim / info->store_lanes);
  const uint64_t last_tiles = (uint64_t)ceil_div(n_last, dim) * ceil_div(k_last, dim);
  const uint64_t by_front = max64(lut + load_ovh, first) + front + last_store;
  const uint64_t by_load =
      lut + load + last_tiles * mm_tile(p, m_last) + 2u * (uint64_t)dim + last_store;
  const uint64_t cmd_bytes = p->streamed ? p->cmds * EST_CMD_BYTES : 0u;
  const uint64_t fetch_gaps =
      p->streamed ? ceil_div(p->cmds, EST_FETCH_BURST) * (p->mem_latency + EST_DMA_SETUP) : 0u;
  const uint64_t bus =
      ceil_div64(p->dma_rd_bytes + p->dma_wr_bytes + cmd_bytes, p->mem_bw) + fetch_gaps;
  /* One scratchpad buffer pair: a group's LOADs wait for the previous group's MATMULs and
   * the steps after them, so LOADs and the front end's steps follow one another. */
  const uint64_t serial = p->spad_bufs == 1u ? lut + load + front + last_store : 0u;
  return max64(max64(max64(by_front, by_load), bus), serial);
}
