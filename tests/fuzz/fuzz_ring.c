/* fuzz_ring.c: the chip fuzzer's command-ring programs and its record of the ring registers. */
#include <string.h>

#include "fuzz_chip.h"
#include "tessera_regs.h"

/*
 * A ring program (fz_gen_ring, the kinds below) writes the command images
 * first ("m" lines, as software fills slots), then programs the ring the way
 * docs/programming.md says (ENABLE = 0, RING_BASE, RING_SIZE, RING_TAIL = 0,
 * ENABLE = 1) and publishes commands by writing RING_TAIL, once or in steps
 * with cycles between. Kinds:
 *   LIST     firmware-like commands (fuzz_chip.c's generators, sometimes mutated)
 *   GARBAGE  the same with some slots of random or extreme words
 *   SELF     a STORE early in the list writes over later slots (or, once the
 *            tail wraps, over itself): the list overwrites itself while it runs
 *   EDGE     the ring crosses an end of the DMA window, or the end of memory,
 *            or 2^32
 *   ALIGN    RING_BASE or RING_SIZE not a multiple of 32, or RING_SIZE 0
 *   TAIL     RING_TAIL past the end, far past it, or misaligned
 * Modifiers on any kind: ENABLE toggled, a soft reset or a slot rewritten
 * after the first tail; commands or single words pushed to CMDQ_PUSH while
 * the ring fills the same queue; bus faults; random register writes; and misuse the
 * chip must survive: RING_BASE / RING_SIZE changed under the running ring, or
 * the open DMA window cut to end inside it.
 * EDGE, ALIGN and TAIL rings mostly hold benign commands (NOP, FENCE), so the
 * program can say how the chip stops ("x CODE ADDR", checked by the run):
 * RING_ALIGN at RING_BASE, RING_TAIL at RING_BASE + RING_TAIL, RING_WINDOW at
 * the first command outside the window, FETCH_BUS at the first command past
 * the end of memory, or no error.
 */

typedef enum { RK_LIST, RK_GARBAGE, RK_SELF, RK_EDGE, RK_ALIGN, RK_TAIL } ring_kind_t;

static void add_w(prog_t *p, uint32_t off, uint32_t val) {
  if (p->n < FZ_MAX_ACTIONS) {
    act_t *a = &p->a[p->n++];
    memset(a, 0, sizeof *a);
    a->kind = A_WRITE;
    a->off = off;
    a->val = val;
  }
}

static void add_s(prog_t *p, uint32_t cycles) {
  if (p->n < FZ_MAX_ACTIONS) {
    act_t *a = &p->a[p->n++];
    memset(a, 0, sizeof *a);
    a->kind = A_STEP;
    a->val = cycles;
  }
}

static void add_m(prog_t *p, uint32_t addr, const uint32_t w[TSR_CMD_WORDS]) {
  if (p->n < FZ_MAX_ACTIONS) {
    act_t *a = &p->a[p->n++];
    a->kind = A_MEM;
    a->off = addr;
    a->val = 0;
    memcpy(a->w, w, sizeof a->w);
  }
}

/* A command that cannot fail: NOP or FENCE, sometimes with an interrupt flag. */
static void benign(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS]) {
  memset(w, 0, TSR_CMD_WORDS * sizeof w[0]);
  if (sys_rng_pct(r, 50u)) {
    w[0] = TSR_OP_FENCE | TSR_CMD_PUT(TSR_CMD_FENCE_W0_IRQ, sys_rng_pct(r, 30u) ? 1u : 0u);
  } else {
    w[0] = TSR_OP_NOP | (sys_rng_pct(r, 20u) ? TSR_DEP_IRQ_CMD : 0u);
  }
}

/* A firmware-like command; LOADs and STOREs aimed into [lo, hi] most of the time. */
static void listed(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS], uint32_t lo, uint32_t hi, bool aim) {
  const unsigned op = fz_rnd(r, 0, 10);
  if (op == 10) {
    fz_cmd_sfu(r, w);
  } else if (op < 3) {
    fz_cmd_load(r, w);
  } else if (op < 6) {
    fz_cmd_matmul(r, w);
  } else if (op < 9) {
    fz_cmd_store(r, w);
  } else {
    benign(r, w);
  }
  if (aim && (op < 3 || (op >= 6 && op < 9)) && sys_rng_pct(r, 80u)) {
    const uint32_t span = hi - lo + 1u;
    w[1] = lo + fz_rnd(r, 0, span > 512u ? span - 512u : span / 2u);
  }
  if (sys_rng_pct(r, 15u)) {
    fz_mutate(r, w);
  }
}

/* A STORE of valid shape whose rows land on the slots [from, base + size). */
static void self_store(sys_rng_t *r, uint32_t w[TSR_CMD_WORDS], uint32_t from, uint32_t end) {
  fz_cmd_store(r, w);
  w[1] = from + fz_rnd(r, 0, end - from > 32u ? end - from - 32u : 0u);
  w[2] = sys_rng_pct(r, 50u) ? 32u : fz_rnd(r, 1, 64);
  w[3] = TSR_CMD_PUT(TSR_CMD_STORE_W3_ROWS, fz_rnd(r, 1, 8)) | TSR_CMD_PUT(TSR_CMD_STORE_W3_COLS, fz_rnd(r, 1, fz_dim));
}

/* How the fetch of slots [0, tail) ends, for benign slots: a tail not below the
 * size stops with RING_TAIL before any read; else the first slot outside [lo, hi]
 * stops with RING_WINDOW, the first past memory with FETCH_BUS. */
static void predict_fetch(prog_t *p, uint32_t base, uint32_t size, uint32_t tail, uint64_t lo, uint64_t hi) {
  p->has_expect = true;
  p->expect_code = TSR_ERR_NONE;
  p->expect_addr = 0u;
  p->expect_idx = 0u;
  if (tail % 32u != 0u || tail >= size) {
    p->expect_code = TSR_ERR_RING_TAIL;
    p->expect_addr = base + tail;
    return;
  }
  for (uint64_t off = 0; off < tail; off += 32u) {
    const uint64_t a = (uint64_t)base + off;
    if (a < lo || a + 31u > hi) {
      p->expect_code = TSR_ERR_RING_WINDOW;
      p->expect_addr = (uint32_t)a;
      p->expect_idx = (uint32_t)(off / 32u); /* the commands before it were queued */
      return;
    }
    if (a + 32u > FZ_MEM_SIZE) {
      p->expect_code = TSR_ERR_FETCH_BUS;
      p->expect_addr = (uint32_t)a;
      p->expect_idx = (uint32_t)(off / 32u);
      return;
    }
  }
}

void fz_gen_ring(sys_rng_t *r, prog_t *p) {
  memset(p, 0, sizeof *p);
  const unsigned k = fz_rnd(r, 0, 99);
  const ring_kind_t kind = k < 28 ? RK_LIST : k < 38 ? RK_GARBAGE : k < 56 ? RK_SELF : k < 76 ? RK_EDGE
                           : k < 86 ? RK_ALIGN : RK_TAIL;
  /* The window: locked and guarded most of the time; else the whole address space. */
  const bool guarded = sys_rng_pct(r, kind == RK_EDGE ? 75u : kind == RK_SELF ? 80u : 50u);
  uint64_t lo = 0u, hi = 0xFFFFFFFFull;
  if (guarded) {
    p->has_guard = true;
    p->guard_lo = fz_rnd(r, 0, FZ_MEM_SIZE / 2u / 16u) * 16u;
    p->guard_hi = p->guard_lo + fz_rnd(r, 64u, 8192u) * 16u - 1u;
    lo = p->guard_lo;
    hi = p->guard_hi;
  }
  /* The ring: 1..16 slots, mostly 2 or more. */
  const uint32_t nslots = sys_rng_pct(r, 5u) ? 1u : fz_rnd(r, 2, 16);
  uint32_t size = nslots * 32u;
  uint32_t base;
  const uint32_t lo32 = (uint32_t)((lo + 31u) & ~31ull);
  const uint32_t room = guarded ? (uint32_t)(hi + 1u - lo32) : FZ_MEM_SIZE;
  if (kind == RK_EDGE) {
    const unsigned e = fz_rnd(r, 0, 99);
    const uint32_t cut = 32u * fz_rnd(r, 1, nslots > 1u ? nslots - 1u : 1u);
    if (guarded) {
      /* Across the low end (slots below the window first) or the high end. */
      base = e < 50 ? lo32 - cut : (uint32_t)((hi + 1u) & ~31ull) - (nslots * 32u - cut);
    } else if (e < 85) {
      base = FZ_MEM_SIZE - cut;                            /* past the end of memory: DECERR */
    } else {
      base = (uint32_t)(0x100000000ull - cut);             /* across 2^32 */
    }
  } else {
    base = lo32 + 32u * fz_rnd(r, 0, room > size ? (room - size) / 32u : 0u);
  }
  const bool benign_only = (kind == RK_EDGE && sys_rng_pct(r, 70u)) || kind == RK_ALIGN || kind == RK_TAIL;

  /* The slot images. */
  uint32_t w[TSR_CMD_WORDS];
  for (uint32_t i = 0; i < nslots; i++) {
    if (benign_only) {
      benign(r, w);
    } else if (kind == RK_GARBAGE && sys_rng_pct(r, 35u)) {
      for (unsigned j = 0; j < TSR_CMD_WORDS; j++) {
        w[j] = sys_rng_pct(r, 30u) ? fz_extreme(r) : (uint32_t)sys_rng_next(r);
      }
      if (sys_rng_pct(r, 60u)) {
        w[0] = (w[0] & ~0xFFu) | fz_rnd(r, 0, 5); /* a known opcode with garbage fields */
      }
    } else if (kind == RK_SELF && i <= 1u && nslots > 2u && (i == 0u || sys_rng_pct(r, 50u))) {
      /* Over later slots; sometimes over its own slot (it runs again once the tail wraps). */
      const uint32_t from = sys_rng_pct(r, 25u) ? base : base + 32u * (i + 1u);
      self_store(r, w, from, base + size);
    } else {
      listed(r, w, (uint32_t)lo, (uint32_t)(hi > 0xFFFFFFFFull ? 0xFFFFFFFFu : hi), guarded);
    }
    add_m(p, base + 32u * i, w);
  }

  /* The ring registers, the way the driver sets them up. */
  uint32_t rbase = base, rsize = size;
  if (kind == RK_ALIGN) {
    const unsigned e = fz_rnd(r, 0, 2);
    if (e == 0) {
      rbase = base + fz_rnd(r, 1, 31);
    } else if (e == 1) {
      rsize = size + fz_rnd(r, 1, 31);
    } else {
      rsize = 0u;
    }
  }
  add_w(p, TSR_RING_CTRL_REG_OFFSET, 0u);
  add_w(p, TSR_RING_BASE_REG_OFFSET, rbase);
  add_w(p, TSR_RING_SIZE_REG_OFFSET, rsize);
  add_w(p, TSR_RING_TAIL_REG_OFFSET, 0u);
  add_w(p, TSR_RING_CTRL_REG_OFFSET, 1u << TSR_RING_CTRL_ENABLE_BIT);

  /* The tails: one write or steps (always steps for SELF, so the STORE runs before
   * the slots it wrote are published), sometimes wrapping. */
  uint32_t tails[4];
  unsigned nt = 0;
  const uint32_t last = nslots > 1u ? fz_rnd(r, 1, nslots - 1u) : 1u;
  if (kind == RK_TAIL) {
    const unsigned e = fz_rnd(r, 0, 4);
    const uint32_t bad = e == 0 ? size : e == 1 ? size + 32u * fz_rnd(r, 1, 64)
                       : e == 2 ? 32u * fz_rnd(r, 0, nslots - 1u) + fz_rnd(r, 1, 31)
                       : e == 3 ? 0xFFFFFFE0u : fz_extreme(r) | 1u;
    if (nslots > 2u && sys_rng_pct(r, 30u)) {
      tails[nt++] = 32u * fz_rnd(r, 1, nslots - 1u); /* benign commands first */
    }
    tails[nt++] = bad;
  } else if (kind == RK_SELF || sys_rng_pct(r, 40u)) {
    const unsigned steps = fz_rnd(r, 2, 4);
    uint32_t t = 0;
    for (unsigned s = 0; s < steps && nslots > 1u; s++) {
      t = (t / 32u + fz_rnd(r, 1, nslots - 1u)) % nslots * 32u;
      if (t == 0u && s + 1u == steps) {
        t = 32u; /* end on a non-empty ring */
      }
      tails[nt++] = t;
    }
    if (nt == 0u) {
      tails[nt++] = 32u * last;
    }
  } else {
    tails[nt++] = 32u * last;
  }
  const bool monotonic = nt == 1u || (nt >= 2u && tails[0] < tails[1] && (nt < 3u || tails[1] < tails[2]) &&
                                      (nt < 4u || tails[2] < tails[3]));

  bool predictable = benign_only && !p->has_faults;
  const bool toggle = sys_rng_pct(r, 15u), soft = sys_rng_pct(r, 10u), rewrite = sys_rng_pct(r, 12u);
  const bool noise = !benign_only && sys_rng_pct(r, 10u);
  /* Misuse the chip must survive: RING_BASE / RING_SIZE changed while the ring runs
   * (the docs forbid it), and an open window cut to end inside the running ring. */
  const bool rebase = sys_rng_pct(r, 6u), cut = !guarded && sys_rng_pct(r, 8u);
  /* Commands pushed by register while the ring fills the same queue: whole ones, or
   * a few single words (a partial command the ring's whole ones must not split). */
  const bool mixed = sys_rng_pct(r, 10u);
  for (unsigned i = 0; i < nt; i++) {
    add_w(p, TSR_RING_TAIL_REG_OFFSET, tails[i]);
    if (i + 1u < nt || sys_rng_pct(r, 30u)) {
      add_s(p, fz_rnd(r, 20, 3000));
    }
    if (toggle && i == 0u) {
      add_w(p, TSR_RING_CTRL_REG_OFFSET, 0u); /* the head goes back to 0: the ring runs again */
      add_s(p, fz_rnd(r, 1, 200));
      add_w(p, TSR_RING_CTRL_REG_OFFSET, 1u << TSR_RING_CTRL_ENABLE_BIT);
    }
    if (soft && i == 0u) {
      add_w(p, TSR_CTRL_REG_OFFSET, 1u << TSR_CTRL_SOFT_RESET_BIT); /* the head jumps to the tail */
      predictable = false;
    }
    if (rewrite && i == 0u) {
      /* Software rewrites a slot while the chip may be reading it. */
      if (benign_only) {
        benign(r, w);
      } else {
        listed(r, w, (uint32_t)lo, (uint32_t)(hi > 0xFFFFFFFFull ? 0xFFFFFFFFu : hi), guarded);
      }
      add_m(p, base + 32u * fz_rnd(r, 0, nslots - 1u), w);
    }
    if (rebase && i == 0u) {
      if (sys_rng_pct(r, 50u)) {
        add_w(p, TSR_RING_BASE_REG_OFFSET, base + 32u * fz_rnd(r, 0, 4) - 64u + (sys_rng_pct(r, 20u) ? 8u : 0u));
      } else {
        add_w(p, TSR_RING_SIZE_REG_OFFSET, sys_rng_pct(r, 20u) ? 0u : 32u * fz_rnd(r, 1, nslots + 2u));
      }
      predictable = false;
    }
    if (cut && i == 0u) {
      add_w(p, 0x074u, base + 32u * fz_rnd(r, 0, nslots - 1u) + fz_rnd(r, 0, 31)); /* DMA_WIN_LIMIT */
      predictable = false;
    }
    if (mixed && p->n + 2u < FZ_MAX_ACTIONS) {
      if (sys_rng_pct(r, 60u)) {
        act_t *a = &p->a[p->n++];
        a->kind = A_CMD;
        a->off = a->val = 0u;
        if (benign_only) {
          benign(r, a->w);
        } else {
          listed(r, a->w, (uint32_t)lo, (uint32_t)(hi > 0xFFFFFFFFull ? 0xFFFFFFFFu : hi), guarded);
        }
      } else {
        const unsigned words = fz_rnd(r, 1, 7);
        for (unsigned j = 0; j < words && p->n < FZ_MAX_ACTIONS; j++) {
          add_w(p, TSR_CMDQ_PUSH_REG_OFFSET, j == 0u ? TSR_OP_NOP : 0u);
        }
      }
      predictable = false; /* a full queue refuses the words: CMDQ_OVERFLOW */
    }
    if (noise && p->n < FZ_MAX_ACTIONS) {
      fz_reg_write(r, &p->a[p->n++]);
    }
  }
  if (!benign_only && sys_rng_pct(r, 15u)) {
    /* Bus faults on a non-predicted ring: fetch bursts and DMA alike. */
    p->has_faults = true;
    tsr_sim_faults_t *f = &p->faults;
    f->rd_burst = fz_rnd(r, 1, 12);
    f->rd_beat = fz_rnd(r, 0, 16);
    f->wr_burst = sys_rng_pct(r, 30u) ? fz_rnd(r, 1, 6) : 0u;
    f->resp = fz_rnd(r, 2, 3);
    f->delay_pct = sys_rng_pct(r, 40u) ? fz_rnd(r, 1, 5) : 0u;
    f->delay_max = fz_rnd(r, 1, 500);
    f->seed = (uint32_t)sys_rng_next(r);
  }
  if (!predictable) {
    return;
  }
  const uint32_t final_tail = tails[nt - 1u];
  if (kind == RK_ALIGN) {
    p->has_expect = true;
    p->expect_code = TSR_ERR_RING_ALIGN;
    p->expect_addr = rbase;
    p->expect_idx = 0u;
  } else if (kind == RK_TAIL) {
    /* Benign commands (inside the window and memory) before the bad tail cannot
     * fail; the bad tail stops the ring (the tail check comes before the window's). */
    p->has_expect = true;
    p->expect_code = TSR_ERR_RING_TAIL;
    p->expect_addr = rbase + final_tail;
    p->expect_idx = 0u; /* with benign commands first: as many as were fetched when the bad tail came */
  } else if (monotonic) {
    predict_fetch(p, base, size, final_tail, lo, hi);
  }
  /* ERR_CMD_IDX counts every command queued since the last soft reset: a toggled
   * ENABLE queues the first slots twice, after a timing the program cannot see. */
  p->has_expect_idx = p->has_expect && p->expect_code != TSR_ERR_NONE && !toggle &&
                      !(kind == RK_TAIL && nt > 1u);
}

/* ---- the record of the ring registers --------------------------------------------------- */

static void track_cfg(fz_ring_track_t *t) {
  for (unsigned i = 0; i < t->ncfg; i++) {
    if (t->cfg_base[i] == t->base && t->cfg_size[i] == t->size) {
      return;
    }
  }
  if (t->ncfg <= FZ_MAX_ACTIONS) {
    t->cfg_base[t->ncfg] = t->base;
    t->cfg_size[t->ncfg] = t->size;
    t->ncfg++;
  }
}

void fz_ring_track_init(fz_ring_track_t *t) {
  memset(t, 0, sizeof *t);
  track_cfg(t);
  t->tails[t->ntail++] = 0u;
}

void fz_ring_track_write(fz_ring_track_t *t, uint32_t off, uint32_t val) {
  if (off == TSR_RING_BASE_REG_OFFSET) {
    t->base = val;
  } else if (off == TSR_RING_SIZE_REG_OFFSET) {
    t->size = val;
  } else if (off == TSR_RING_TAIL_REG_OFFSET) {
    t->tail = val;
    if (t->ntail <= FZ_MAX_ACTIONS) {
      t->tails[t->ntail++] = val;
    }
  } else if (off == TSR_RING_CTRL_REG_OFFSET) {
    t->ctrl = val;
  } else {
    return;
  }
  t->used = true;
  track_cfg(t);
}

uint32_t fz_ring_max_size(const fz_ring_track_t *t) {
  uint32_t m = 0;
  for (unsigned i = 0; i < t->ncfg; i++) {
    const uint32_t s = t->cfg_size[i];
    if (s % 32u == 0u && s > m) {
      m = s;
    }
  }
  return m;
}

/* Every base with the largest size: a burst may have been planned before a register
 * changed, and a ring register is reported with whatever the other one holds then. */
bool fz_ring_is_slot(const fz_ring_track_t *t, uint64_t addr) {
  const uint32_t m = fz_ring_max_size(t);
  for (unsigned i = 0; i < t->ncfg; i++) {
    const uint32_t b = t->cfg_base[i];
    if (b % 32u == 0u && addr >= b && addr - b < m && (addr - b) % 32u == 0u) {
      return true;
    }
  }
  return false;
}

bool fz_ring_fetch_addr(const fz_ring_track_t *t, uint32_t addr) {
  const uint32_t m = fz_ring_max_size(t);
  for (unsigned i = 0; i < t->ncfg; i++) {
    const uint32_t off = addr - t->cfg_base[i];
    if (off % 32u == 0u && off < m) {
      return true;
    }
  }
  return false;
}

bool fz_ring_wrapped_addr(const fz_ring_track_t *t, uint32_t addr) {
  const uint32_t m = fz_ring_max_size(t);
  for (unsigned i = 0; i < t->ncfg; i++) {
    const uint32_t off = addr - t->cfg_base[i];
    if (addr < t->cfg_base[i] && off % 32u == 0u && off < m) {
      return true;
    }
  }
  return false;
}

bool fz_ring_is_tail_addr(const fz_ring_track_t *t, uint32_t addr) {
  for (unsigned i = 0; i < t->ncfg; i++) {
    for (unsigned j = 0; j < t->ntail; j++) {
      if (t->cfg_base[i] + t->tails[j] == addr) {
        return true;
      }
    }
  }
  return false;
}

bool fz_ring_is_base(const fz_ring_track_t *t, uint32_t addr) {
  for (unsigned i = 0; i < t->ncfg; i++) {
    if (t->cfg_base[i] == addr) {
      return true;
    }
  }
  return false;
}
