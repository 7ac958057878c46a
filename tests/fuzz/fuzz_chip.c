/* fuzz_chip.c: seeded fuzzer of the whole chip: random and mutated register writes and command streams. */
#define _POSIX_C_SOURCE 200809L

/*
 * Each iteration builds a program from the seed and runs it on the Verilated
 * chip (build/lib/libtsrsim_d<N>.so, through tests/system/sys_util.c):
 *
 *   f RDB BEAT WRB RESP RAND DPCT DMAX SEED   bus faults of the memory model (tsr_sim_faults_t)
 *   g LO HI                                   guarded program: DMA window LO..HI set and locked
 *                                             first, and the memory model's guard set to it
 *   x CODE ADDR [IDX]                         the program predicts how the chip stops: ERR_CODE
 *                                             CODE and (CODE != 0) ERR_ADDR ADDR, and with IDX
 *                                             ERR_CMD_IDX IDX
 *   w OFF VAL                                 one AXI4-Lite register write (any offset)
 *   c W0 .. W7                                the 8 words of a command, pushed to CMDQ_PUSH
 *   m ADDR W0 .. W7                           32 bytes (8 little-endian words, e.g. a command
 *                                             image in a ring slot) written into external memory
 *                                             at ADDR by the host, at once (bytes past the end
 *                                             of memory are dropped)
 *   s N                                       N clock cycles
 *
 * (all numbers hex). Programs are firmware-like streams (LOAD, MATMUL, STORE,
 * FENCE with valid fields) with mutations (bit flips, extreme values, bad
 * opcodes, huge counts, wrapping addresses, zero and negative strides, token
 * bits, reserved bits), fully random words, and register writes to any
 * offset (CTRL soft reset and counter clear, IRQ registers, CMDQ_PUSH single
 * words, the DMA window, unmapped and misaligned offsets); and, about a third
 * of them, command-ring programs (tests/fuzz/fuzz_ring.c): command images in a
 * ring in memory ("m") and the RING_* registers ("w"): firmware-like lists,
 * garbage slots, lists whose STOREs overwrite their own slots while they run,
 * rings across the DMA window's edge or past the end of memory, misaligned
 * base or size, tails past the end or misaligned, tails advanced in steps,
 * ENABLE toggled, soft resets and slot rewrites in the middle.
 *
 * Invariants checked on every program:
 *   1. the simulator does not crash and every register access answers;
 *   2. the chip stops: STATUS.BUSY clears or STATUS.ERROR rises within a cycle
 *      bound, and ERROR is set exactly when ERR_CODE is not 0;
 *   3. no byte of external memory changes (against the image the program's
 *      "m" lines made) outside the union of the rows of the STORE commands the
 *      chip may have run (STOREs the chip must refuse for their shape, COLS > N
 *      or ROWS > accumulator rows, allow nothing), and none outside the DMA
 *      windows the program set. The STOREs the chip may have run are those
 *      pushed to CMDQ_PUSH and those in any ring slot the fetcher may have read
 *      (every slot of every ring the RING_BASE / RING_SIZE registers held, as
 *      the memory held it at the start or after each "m" line). If such a STORE
 *      may write over such a slot (a list that overwrites itself), the chip may
 *      run commands nobody wrote, and only the windows bound the writes;
 *   4. a bus error is never swallowed: if the memory model answered an error
 *      (since the program's last soft reset, after which the fuzzer lets the
 *      bus go quiet), STATUS.ERROR is set; ERR_CODE BUS_READ / BUS_WRITE has the address of
 *      the first burst answered with an error (for BUS_READ: unless that burst
 *      read ring slots, whose error is reported after the commands before it);
 *      FETCH_BUS comes with a read error and the address of a ring slot. Errors
 *      of a fetch burst that ENABLE = 0 dropped may be forgotten, like a soft
 *      reset's;
 *   4a. ring errors name their cause: RING_ALIGN has ERR_ADDR = a RING_BASE the
 *      program wrote, RING_TAIL = such a base + a RING_TAIL written,
 *      RING_WINDOW = a command address outside a window the program set (or
 *      past 2^32, wrapped to 32 bits); and
 *      with an "x" line, ERR_CODE and ERR_ADDR are the predicted ones;
 *   5. the AXI4 protocol checker of the memory model counts no violation;
 *   5a. in a guarded program (a locked window aligned to 16 bytes), no AR or
 *      AW burst leaves the window, command fetches included (they share the
 *      memory port), and no byte outside it changes but those the program's
 *      "m" lines wrote;
 *   6. CTRL.SOFT_RESET brings the chip back to idle (STATUS = 0, ERR_CODE = 0,
 *      RING_HEAD = RING_TAIL with RING_CTRL.ENABLE set, else 0), and a
 *      known-good GEMM through driver and firmware is then bit-exact (every
 *      --gemm-every iterations, and after every bus-error outcome; after a
 *      ring program through a command ring the driver sets up every other time).
 *
 * A failing program is printed and saved (--save DIR) and replayed with
 * --replay FILE; tests/fuzz/corpus/chip/ holds the programs that found bugs
 * and a few ring programs of each kind.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz_chip.h"
#include "sys_util.h"
#include "tessera_regs.h"
#include "tsr_ring.h"
#include "tsr_sim.h"

#define MEM_SIZE FZ_MEM_SIZE
#define WAIT_CHUNK 1000u
#define WAIT_BOUND 20000000ull /* cycles a program may run after its last action */
#define RING_GEMM_AREA (64u << 10) /* the top of memory: a driver's ring for the recovery GEMM */

/* Simulator functions that the HAL does not wrap. */
typedef struct raw_api {
  tsr_sim_t *sim;
  void (*reset)(tsr_sim_t *, unsigned);
  void (*step)(tsr_sim_t *, uint64_t);
  int (*set_faults)(tsr_sim_t *, const tsr_sim_faults_t *);
  void (*fault_log)(const tsr_sim_t *, tsr_sim_fault_log_t *);
  unsigned (*axi_active)(const tsr_sim_t *); /* optional (newer libraries) */
  void (*set_guard)(tsr_sim_t *, uint64_t, uint64_t);
  void (*mem_stats)(const tsr_sim_t *, tsr_sim_mem_stats_t *);
} raw_api_t;

typedef enum { BRK_NONE, BRK_REGION, BRK_SWALLOW, BRK_WEDGE, BRK_GUARD } brk_t;

typedef struct stats {
  uint64_t iters, completed, errors[256], soft_resets, hard_resets, gemms, faulted, guarded, actions, cycles;
  uint64_t rings, predicted, self_written, overwrote, ring_gemms;
} stats_t;

unsigned fz_dim = 8;
static brk_t g_break = BRK_NONE;

/* ---- running one program ------------------------------------------------------------- */

/* What a program may write: a bitmap of MEM_SIZE bytes. */
typedef struct allow {
  uint8_t *bits;
  bool anywhere; /* a list may have overwritten itself: any byte inside the windows */
  uint32_t win_lo[FZ_MAX_ACTIONS + 1], win_hi[FZ_MAX_ACTIONS + 1];
  unsigned nwin;
} allow_t;

static void allow_row(allow_t *al, uint64_t start, uint64_t len) {
  for (uint64_t a = start; a < start + len && a < MEM_SIZE; a++) {
    al->bits[a >> 3] |= (uint8_t)(1u << (a & 7u));
  }
}

static bool allowed(const allow_t *al, uint64_t a) {
  if (!al->anywhere && (al->bits[a >> 3] & (1u << (a & 7u))) == 0u) {
    return false;
  }
  for (unsigned i = 0; i < al->nwin; i++) {
    if (a >= al->win_lo[i] && a <= al->win_hi[i]) {
      return true;
    }
  }
  return false;
}

/* A command the chip assembled: STOREs add their rows (the only bytes they may write). */
static void allow_cmd(allow_t *al, const uint32_t w[TSR_CMD_WORDS], const tsr_dev_info_t *info) {
  if (TSR_CMD_GET(w[0], TSR_CMD_W0_OPCODE) != TSR_OP_STORE) {
    return;
  }
  /* A STORE with the SPAD flag reads scratchpad rows and writes bytes. */
  const bool spad = TSR_CMD_GET(w[0], TSR_CMD_STORE_W0_SPAD) != 0u;
  const uint32_t rows = TSR_CMD_GET(w[3], TSR_CMD_STORE_W3_ROWS), cols = TSR_CMD_GET(w[3], TSR_CMD_STORE_W3_COLS);
  if (cols == 0u || cols > fz_dim || rows == 0u || rows > (spad ? info->spad_rows : info->acc_rows)) {
    return; /* the chip must refuse it */
  }
  const uint64_t row_bytes = (uint64_t)cols * ((TSR_CMD_GET(w[0], TSR_CMD_STORE_W0_REQUANT) != 0u || spad) ? 1u : 4u);
  /* --break region forgets each STORE's last row: its bytes must then show up as stray writes. */
  const uint64_t marked = (g_break == BRK_REGION) ? rows - 1u : rows;
  for (uint64_t r = 0; r < marked; r++) {
    const uint64_t start = (uint64_t)w[1] + r * (uint64_t)w[2];
    if (start >= MEM_SIZE && w[2] != 0u) {
      break;
    }
    allow_row(al, start, row_bytes);
  }
}

static int fail(const char *what, uint64_t iter, uint32_t seed, const prog_t *p, const char *save) {
  fprintf(stderr, "fuzz_chip: FAIL (iteration %" PRIu64 ", seed %u): %s\n", iter, seed, what);
  fprintf(stderr, "fuzz_chip: program (replay with --replay FILE):\n");
  fz_prog_print(stderr, p);
  if (save != NULL) {
    char path[512];
    snprintf(path, sizeof path, "%s/fail-s%u-i%" PRIu64 ".prog", save, seed, iter);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
      fprintf(f, "# %s\n", what);
      fz_prog_print(f, p);
      fclose(f);
      fprintf(stderr, "fuzz_chip: saved %s\n", path);
    }
  }
  return -1;
}

/* A number in [lo, hi] that follows from `x` alone (no generator state). */
static uint32_t fz_rnd_of(uint64_t x, uint32_t lo, uint32_t hi) {
  x = (x ^ (x >> 33)) * 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return lo + (uint32_t)(x % (hi - lo + 1u));
}

/* The 8 little-endian words at `a` of a memory image (0 past its end). */
static void slot_words(const uint8_t *img, uint64_t a, uint32_t w[TSR_CMD_WORDS]) {
  for (unsigned k = 0; k < TSR_CMD_WORDS; k++) {
    w[k] = 0u;
    for (unsigned b = 0; b < 4u; b++) {
      const uint64_t x = a + 4u * k + b;
      w[k] |= (uint32_t)(x < MEM_SIZE ? img[x] : 0u) << (8u * b);
    }
  }
}

/* Apply an "m" line to a memory image (bytes past its end dropped); the bytes in *n. */
static void mem_line(uint8_t *img, const act_t *a, uint8_t bytes[32], uint32_t *n) {
  for (unsigned k = 0; k < 32u; k++) {
    const uint32_t word = a->w[k / 4u]; /* little-endian bytes of a whole word, no field */
    bytes[k] = (uint8_t)(word >> (8u * (k % 4u)));
  }
  *n = a->off >= MEM_SIZE ? 0u : (MEM_SIZE - a->off < 32u ? MEM_SIZE - a->off : 32u);
  if (img != NULL && *n != 0u) {
    memcpy(img + a->off, bytes, *n);
  }
}

/*
 * Invariant 3 for the ring: allow the STOREs of every slot the fetcher may have
 * read, as the memory held it at the start (`img` = the snapshot) and after
 * each "m" line; `img` ends as the image the program made (the expected memory
 * but for the chip's STOREs). Returns true (and allows every byte inside the
 * windows) if a STORE the chip may have run writes over such a slot.
 */
static bool allow_ring(allow_t *al, const fz_ring_track_t *rt, const prog_t *p, uint8_t *img,
                       const tsr_dev_info_t *info) {
  uint32_t w[TSR_CMD_WORDS];
  uint8_t bytes[32];
  uint32_t n = 0;
  uint8_t *slots = calloc(MEM_SIZE / 32u / 8u, 1);
  if (slots == NULL) {
    al->anywhere = true;
    return true;
  }
  const uint32_t sz = fz_ring_max_size(rt); /* as fz_ring_is_slot: every base with the largest size */
  for (unsigned i = 0; i < rt->ncfg; i++) {
    const uint32_t b = rt->cfg_base[i];
    for (uint64_t a = b; b % 32u == 0u && a < (uint64_t)b + sz && a < MEM_SIZE; a += 32u) {
      slots[a / 256u] |= (uint8_t)(1u << ((a / 32u) % 8u));
    }
  }
#define IS_SLOT(a) ((a) < MEM_SIZE && (slots[(a) / 256u] & (1u << (((a) / 32u) % 8u))) != 0u)
  for (uint64_t a = 0; rt->used && a < MEM_SIZE; a += 32u) {
    if (IS_SLOT(a)) {
      slot_words(img, a, w);
      allow_cmd(al, w, info);
    }
  }
  for (unsigned i = 0; i < p->n; i++) {
    if (p->a[i].kind != A_MEM) {
      continue;
    }
    mem_line(img, &p->a[i], bytes, &n);
    for (uint64_t a = p->a[i].off & ~31u; n != 0u && a < (uint64_t)p->a[i].off + n; a += 32u) {
      if (IS_SLOT(a)) {
        slot_words(img, a, w);
        allow_cmd(al, w, info);
      }
    }
  }
  bool self = false;
  for (uint64_t a = 0; rt->used && a < MEM_SIZE && !self; a += 32u) {
    for (uint64_t b = a; IS_SLOT(a) && b < a + 32u && !self; b++) {
      self = allowed(al, b);
    }
  }
#undef IS_SLOT
  free(slots);
  al->anywhere = al->anywhere || self;
  return self;
}

/* True if the command at `a` lies outside the DMA window at some point of the
 * program: outside the locked guard, or outside one of the windows it wrote. */
static bool outside_a_window(const allow_t *al, const prog_t *p, uint32_t a) {
  if (p->has_guard) {
    return a < p->guard_lo || (uint64_t)a + 31u > p->guard_hi;
  }
  for (unsigned i = 0; i < al->nwin; i++) {
    if (a < al->win_lo[i] || (uint64_t)a + 31u > al->win_hi[i]) {
      return true;
    }
  }
  return false;
}

/* After CTRL.SOFT_RESET: RING_HEAD = RING_TAIL with ENABLE set, else 0. 0, or -1 with a line in msg. */
static int ring_empty_after_reset(sys_env_t *e, char *msg, size_t len) {
  uint32_t rctrl = 0, rhead = 0, rtail = 0;
  if (sys_rd(e, TSR_RING_CTRL_REG_OFFSET, &rctrl) != TSR_OK || sys_rd(e, TSR_RING_HEAD_REG_OFFSET, &rhead) != TSR_OK ||
      sys_rd(e, TSR_RING_TAIL_REG_OFFSET, &rtail) != TSR_OK) {
    snprintf(msg, len, "ring register read after soft reset failed");
    return -1;
  }
  if (rhead != (((rctrl >> TSR_RING_CTRL_ENABLE_BIT) & 1u) != 0u ? rtail : 0u)) {
    snprintf(msg, len, "RING_HEAD = 0x%x after soft reset (RING_TAIL 0x%x, RING_CTRL 0x%x): not the tail (enabled) or 0",
             rhead, rtail, rctrl);
    return -1;
  }
  return 0;
}

#define FAIL(...)                                          \
  do {                                                     \
    snprintf(msg, sizeof msg, __VA_ARGS__);                \
    rc = fail(msg, iter, seed, p, save);                   \
    goto out;                                              \
  } while (0)

static int run_prog(sys_env_t *e, raw_api_t *raw, const prog_t *p, uint64_t iter, uint32_t seed,
                    bool do_gemm, const char *save, stats_t *st) {
  char msg[768];
  int rc = 0;
  allow_t al;
  memset(&al, 0, sizeof al);
  al.bits = calloc(MEM_SIZE / 8u, 1);
  uint8_t *before = NULL, *after = NULL, *expect = NULL;
  bool locked = false;
  unsigned fetch_drops = 0; /* ENABLE 1 -> 0 writes since the last soft reset */
  fz_ring_track_t rt;
  fz_ring_track_init(&rt);
  uint32_t status = 0, code = 0, err_addr = 0;
  if (al.bits == NULL) {
    FAIL("out of memory");
  }
  /* Start clean: window open and unlocked (hard reset if a lock survived). */
  if (sys_soft_reset(e) != TSR_OK) {
    FAIL("soft reset before the program did not answer");
  }
  uint32_t lockv = 0;
  if (sys_rd(e, 0x078u, &lockv) == TSR_OK && (lockv & 1u) != 0u) {
    raw->reset(raw->sim, 8);
    st->hard_resets++;
  }
  sys_wr(e, 0x070u, 0u);
  sys_wr(e, 0x074u, 0xFFFFFFFFu);
  /* No ring left from the last program (a soft reset keeps the ring registers). */
  sys_wr(e, TSR_RING_CTRL_REG_OFFSET, 0u);
  sys_wr(e, TSR_RING_TAIL_REG_OFFSET, 0u);
  sys_wr(e, TSR_RING_BASE_REG_OFFSET, 0u);
  sys_wr(e, TSR_RING_SIZE_REG_OFFSET, 0u);
  al.win_lo[0] = 0u;
  al.win_hi[0] = 0xFFFFFFFFu;
  al.nwin = 1;
  uint32_t win_lo = 0u, win_hi = 0xFFFFFFFFu;
  tsr_sim_mem_stats_t ms0;
  raw->set_guard(raw->sim, p->has_guard ? p->guard_lo : 0u, p->has_guard ? p->guard_hi : UINT64_MAX);
  if (p->has_guard) {
    /* The window the program cannot change: every write to it now answers SLVERR. */
    if (sys_wr(e, 0x070u, p->guard_lo) != TSR_OK || sys_wr(e, 0x074u, p->guard_hi) != TSR_OK ||
        sys_wr(e, 0x078u, 1u) != TSR_OK) {
      FAIL("cannot set and lock the guard window");
    }
    locked = true;
    st->guarded++;
  }
  raw->mem_stats(raw->sim, &ms0);
  if (raw->set_faults(raw->sim, p->has_faults ? &p->faults : NULL) != 0) {
    FAIL("bad fault settings");
  }
  st->faulted += p->has_faults;
  before = sys_snapshot(e);
  if (before == NULL) {
    FAIL("cannot snapshot memory");
  }
  const uint64_t pe0 = sys_protocol_errors(e);

  /* The chip's command assembly, modelled: 8 CMDQ_PUSH words make a command;
   * a soft reset drops a partial one. */
  uint32_t part[TSR_CMD_WORDS];
  unsigned nw = 0;
  for (unsigned i = 0; i < p->n; i++) {
    const act_t *a = &p->a[i];
    st->actions++;
    if (a->kind == A_STEP) {
      raw->step(raw->sim, a->val);
      continue;
    }
    if (a->kind == A_MEM) {
      uint8_t bytes[32];
      uint32_t n = 0;
      mem_line(NULL, a, bytes, &n);
      if (n != 0u && tsr_hal_mem_write(&e->hal, a->off, bytes, n) != TSR_OK) {
        FAIL("memory write of %u bytes at 0x%08x failed", n, a->off);
      }
      continue;
    }
    const unsigned nwords = a->kind == A_CMD ? TSR_CMD_WORDS : 1u;
    for (unsigned k = 0; k < nwords; k++) {
      const uint32_t off = a->kind == A_CMD ? TSR_CMDQ_PUSH_REG_OFFSET : a->off;
      const uint32_t val = a->kind == A_CMD ? a->w[k] : a->val;
      tsr_status_t s = sys_wr(e, off, val);
      if (s == TSR_TIMEOUT) {
        FAIL("register write 0x%03x = 0x%08x: the bus did not answer", off, val);
      }
      if (s != TSR_OK) {
        continue; /* SLVERR: no side effect */
      }
      if (off == TSR_CMDQ_PUSH_REG_OFFSET) {
        part[nw++] = val;
        if (nw == TSR_CMD_WORDS) {
          allow_cmd(&al, part, &e->dev.info);
          nw = 0;
        }
      } else if (off == TSR_CTRL_REG_OFFSET && (val & 1u) != 0u) {
        nw = 0;
        st->soft_resets++;
        /* A soft reset may legitimately forget the bus errors of bursts in
         * flight: let the chip go idle and the bus quiet, then start the
         * error log (and the fault numbering) afresh. */
        for (unsigned w8 = 0; w8 < 2000u; w8++) {
          uint32_t s2 = 0;
          if (sys_rd(e, TSR_STATUS_REG_OFFSET, &s2) != TSR_OK) {
            FAIL("STATUS read after a soft reset failed");
          }
          if ((s2 & (1u << TSR_STATUS_BUSY_BIT)) == 0u && (raw->axi_active == NULL || raw->axi_active(raw->sim) == 0u)) {
            break;
          }
          raw->step(raw->sim, 100);
        }
        raw->set_faults(raw->sim, p->has_faults ? &p->faults : NULL);
        fetch_drops = 0;
      } else if (off == 0x070u || off == 0x074u) {
        *(off == 0x070u ? &win_lo : &win_hi) = val;
        if (al.nwin <= FZ_MAX_ACTIONS) {
          al.win_lo[al.nwin] = win_lo;
          al.win_hi[al.nwin] = win_hi;
          al.nwin++;
        }
      } else if (off == 0x078u && (val & 1u) != 0u) {
        locked = true;
      } else if (off >= TSR_RING_BASE_REG_OFFSET && off <= TSR_RING_CTRL_REG_OFFSET) {
        const bool was_on = (rt.ctrl & (1u << TSR_RING_CTRL_ENABLE_BIT)) != 0u;
        fz_ring_track_write(&rt, off, val);
        if (off == TSR_RING_CTRL_REG_OFFSET && was_on && (val & (1u << TSR_RING_CTRL_ENABLE_BIT)) == 0u) {
          fetch_drops++; /* the fetch burst in flight, if any, is read to its end and dropped */
        }
      }
    }
  }

  /* Wait until the chip stops. */
  uint64_t waited = 0;
  for (;;) {
    tsr_status_t s = sys_rd(e, TSR_STATUS_REG_OFFSET, &status);
    if (s != TSR_OK) {
      FAIL("STATUS read failed (%s)", tsr_status_str(s));
    }
    if ((status & (1u << TSR_STATUS_ERROR_BIT)) != 0u || (status & (1u << TSR_STATUS_BUSY_BIT)) == 0u) {
      break;
    }
    if (g_break == BRK_WEDGE || waited >= WAIT_BOUND) {
      tsr_sim_mem_stats_t msw;
      raw->mem_stats(raw->sim, &msw);
      FAIL("wedged: STATUS = 0x%x after %" PRIu64 " cycles (%" PRIu64 " read / %" PRIu64
           " write bursts outside the guard window)", status, waited, msw.rd_outside - ms0.rd_outside,
           msw.wr_outside - ms0.wr_outside);
    }
    raw->step(raw->sim, WAIT_CHUNK);
    waited += WAIT_CHUNK;
  }
  if (sys_rd(e, TSR_ERR_CODE_REG_OFFSET, &code) != TSR_OK || sys_rd(e, TSR_ERR_ADDR_REG_OFFSET, &err_addr) != TSR_OK) {
    FAIL("ERR_CODE / ERR_ADDR read failed");
  }
  code &= 0xFFu;
  const bool err = (status & (1u << TSR_STATUS_ERROR_BIT)) != 0u;
  if (err != (code != 0u)) {
    FAIL("STATUS.ERROR = %d but ERR_CODE = %u", err, code);
  }
  if (err) {
    st->errors[code]++;
  } else {
    st->completed++;
  }
  /* Let bursts issued before the stop drain, then compare memory. */
  raw->step(raw->sim, 3000);
  tsr_sim_fault_log_t log;
  raw->fault_log(raw->sim, &log);
  if (g_break == BRK_SWALLOW) {
    err_addr ^= 1u;
  }
  /* ENABLE = 0 drops the one fetch burst in flight and may forget its bus error (as a
   * soft reset may): excused when no more read bursts answered an error than ENABLE
   * was cleared, the first of them read ring slots, and no write burst did. */
  const bool dropped = fetch_drops != 0u && log.wr_err_bursts == 0u && log.rd_err_bursts <= fetch_drops &&
                       fz_ring_is_slot(&rt, log.rd_first_addr);
  if ((log.rd_err_bursts != 0u || log.wr_err_bursts != 0u) && !err && !dropped) {
    FAIL("a bus error was swallowed: %" PRIu64 " read / %" PRIu64 " write bursts answered an error, STATUS = 0x%x",
         log.rd_err_bursts, log.wr_err_bursts, status);
  }
  /* A fetch burst's error is reported after the commands before it, so a later DMA
   * burst's error may come first; so may an error of a dropped fetch burst. */
  const bool first_fetch = fz_ring_is_slot(&rt, log.rd_first_addr) && (log.rd_err_bursts >= 2u || dropped);
  if (code == TSR_ERR_BUS_READ && (log.rd_err_bursts == 0u || (err_addr != log.rd_first_addr && !first_fetch))) {
    FAIL("ERR_BUS_READ with ERR_ADDR 0x%08x, but the first read burst answered an error was 0x%08x (%" PRIu64 " bursts)",
         err_addr, log.rd_first_addr, log.rd_err_bursts);
  }
  if (code == TSR_ERR_BUS_WRITE && (log.wr_err_bursts == 0u || err_addr != log.wr_first_addr)) {
    FAIL("ERR_BUS_WRITE with ERR_ADDR 0x%08x, but the first write burst answered an error was 0x%08x (%" PRIu64 " bursts)",
         err_addr, log.wr_first_addr, log.wr_err_bursts);
  }
  if (code == TSR_ERR_FETCH_BUS && (log.rd_err_bursts == 0u || !fz_ring_fetch_addr(&rt, err_addr))) {
    FAIL("FETCH_BUS with ERR_ADDR 0x%08x: %s", err_addr,
         log.rd_err_bursts == 0u ? "no read burst answered an error" : "not a slot of any ring the program set");
  }
  /* 4a: ring errors name their cause. */
  if (code == TSR_ERR_RING_ALIGN && !fz_ring_is_base(&rt, err_addr)) {
    FAIL("RING_ALIGN with ERR_ADDR 0x%08x, which RING_BASE never held", err_addr);
  }
  if (code == TSR_ERR_RING_TAIL && !fz_ring_is_tail_addr(&rt, err_addr)) {
    FAIL("RING_TAIL with ERR_ADDR 0x%08x, not a RING_BASE + RING_TAIL the program wrote", err_addr);
  }
  if (code == TSR_ERR_RING_WINDOW && !outside_a_window(&al, p, err_addr) && !fz_ring_wrapped_addr(&rt, err_addr)) {
    FAIL("RING_WINDOW with ERR_ADDR 0x%08x, a command inside every DMA window the program set", err_addr);
  }
  uint32_t err_idx = 0;
  if (p->has_expect_idx && sys_rd(e, TSR_ERR_CMD_IDX_REG_OFFSET, &err_idx) != TSR_OK) {
    FAIL("ERR_CMD_IDX read failed");
  }
  if (p->has_expect_idx && code == p->expect_code && err_idx != p->expect_idx) {
    FAIL("ERR_CODE %u at 0x%08x as predicted, but ERR_CMD_IDX %u, not %u", code, err_addr, err_idx, p->expect_idx);
  }
  if (p->has_expect && (code != p->expect_code || (code != 0u && err_addr != p->expect_addr))) {
    FAIL("the chip stopped with ERR_CODE %u ERR_ADDR 0x%08x (STATUS 0x%x), the program predicts %u at 0x%08x", code,
         err_addr, status, p->expect_code, p->expect_addr);
  }
  st->predicted += p->has_expect;
  st->rings += rt.used;
  after = sys_snapshot(e);
  expect = malloc(MEM_SIZE);
  if (after == NULL || expect == NULL) {
    FAIL("cannot snapshot memory");
  }
  memcpy(expect, before, MEM_SIZE);
  if (allow_ring(&al, &rt, p, expect, &e->dev.info)) {
    st->self_written++;
  }
  bool overwrote = false;
  for (uint64_t a = 0; a < MEM_SIZE; a++) {
    overwrote = overwrote || (expect[a] != after[a] && rt.used && fz_ring_is_slot(&rt, a & ~31ull));
    if (expect[a] != after[a] && !allowed(&al, a)) {
      FAIL("byte 0x%06" PRIx64 " changed (0x%02x -> 0x%02x) outside every STORE region / window the program allowed",
           a, expect[a], after[a]);
    }
  }
  st->overwrote += overwrote;
  if (p->has_guard) {
    tsr_sim_mem_stats_t ms1;
    raw->mem_stats(raw->sim, &ms1);
    if (ms1.rd_outside + ms1.wr_outside != ms0.rd_outside + ms0.wr_outside) {
      FAIL("%" PRIu64 " read and %" PRIu64 " write bursts left the locked window 0x%x..0x%x (first at 0x%08x)",
           ms1.rd_outside - ms0.rd_outside, ms1.wr_outside - ms0.wr_outside, p->guard_lo, p->guard_hi,
           ms1.outside_first);
    }
    /* --break guard allows no byte at all: every STORE that ran inside the window shows up. */
    const uint64_t hi = g_break == BRK_GUARD ? 0u : p->guard_hi;
    for (uint64_t a = 0; a < MEM_SIZE; a++) {
      if (expect[a] != after[a] && (a < p->guard_lo || a > hi)) {
        FAIL("byte 0x%06" PRIx64 " changed (0x%02x -> 0x%02x) outside the locked window 0x%x..0x%x", a,
             expect[a], after[a], p->guard_lo, p->guard_hi);
      }
    }
  }
  if (sys_protocol_errors(e) != pe0) {
    FAIL("the AXI protocol checker counted %" PRIu64 " violations", sys_protocol_errors(e) - pe0);
  }

  /* Recovery: soft reset must bring the chip back to idle. */
  raw->set_faults(raw->sim, NULL);
  if (sys_wr(e, TSR_CTRL_REG_OFFSET, 1u << TSR_CTRL_SOFT_RESET_BIT) != TSR_OK) {
    FAIL("CTRL.SOFT_RESET write failed");
  }
  st->soft_resets++;
  /* At once: the ring is empty (the chip must not fetch on while it drains). */
  if (ring_empty_after_reset(e, msg, sizeof msg) != 0) {
    rc = fail(msg, iter, seed, p, save);
    goto out;
  }
  uint64_t rw = 0;
  for (;;) {
    if (sys_rd(e, TSR_STATUS_REG_OFFSET, &status) != TSR_OK) {
      FAIL("STATUS read after soft reset failed");
    }
    if ((status & 7u) == 0u) {
      break;
    }
    if (rw >= 200000u) {
      FAIL("soft reset did not bring the chip to idle: STATUS = 0x%x", status);
    }
    raw->step(raw->sim, 100);
    rw += 100;
  }
  if (sys_rd(e, TSR_ERR_CODE_REG_OFFSET, &code) != TSR_OK || code != 0u) {
    FAIL("ERR_CODE = %u after soft reset", code);
  }
  if (ring_empty_after_reset(e, msg, sizeof msg) != 0) {
    rc = fail(msg, iter, seed, p, save);
    goto out;
  }
  if (locked) {
    raw->reset(raw->sim, 8); /* only rst_ni clears the lock; the GEMM needs the whole window */
    st->hard_resets++;
  }
  /* A soft reset keeps the window: open it again for the GEMM. */
  if (sys_wr(e, 0x070u, 0u) != TSR_OK || sys_wr(e, 0x074u, 0xFFFFFFFFu) != TSR_OK) {
    FAIL("cannot reopen the DMA window after recovery");
  }
  if (do_gemm || code == TSR_ERR_BUS_READ || code == TSR_ERR_BUS_WRITE) {
    sys_shape_cfg_t shape = {.max_dim = 3u * fz_dim, .small_pct = 30u, .small_max = 4u, .large_pct = 0u,
                             .large_min = 1u};
    sys_case_t c;
    /* After a ring program, every other GEMM goes through a ring the driver sets up. */
    const bool via_ring = rt.used && (iter & 1u) == 0u;
    sys_case_make(seed ^ (uint32_t)(iter * 2654435761u), &shape, via_ring ? MEM_SIZE - RING_GEMM_AREA : MEM_SIZE, &c);
    sys_case_result_t res;
    char cmsg[400];
    tsr_ring_t ring;
    if (via_ring) {
      if (tsr_ring_attach(&e->dev, &ring, MEM_SIZE - RING_GEMM_AREA, 32u * fz_rnd_of(iter, 2u, 64u)) != TSR_OK) {
        FAIL("tsr_ring_attach for the recovery GEMM: %s", tsr_dev_error(&e->dev));
      }
      e->ring_base = ring.base;
      e->ring_size = ring.size;
    }
    const int grc = sys_case_run(e, &c, &res, cmsg, sizeof cmsg);
    if (via_ring) {
      e->ring_base = 0u;
      e->ring_size = 0u;
      if (tsr_ring_detach(&e->dev) != TSR_OK) {
        FAIL("tsr_ring_detach after the recovery GEMM failed");
      }
    }
    if (grc != 0) {
      FAIL("known-good GEMM after recovery%s failed: %s", via_ring ? " (through a ring)" : "", cmsg);
    }
    st->gemms++;
    st->ring_gemms += via_ring;
  }
out:
  free(al.bits);
  free(before);
  free(after);
  free(expect);
  return rc;
}

/* ---- main ------------------------------------------------------------------------------ */

static int usage(const char *why) {
  fprintf(stderr,
          "fuzz_chip: %s\nusage: fuzz_chip --dim N [--seed S] [--seconds T | --iters I] [--gemm-every K]\n"
          "                 [--save DIR] [--replay FILE...] [--break region|swallow|wedge|guard] [--verbose]\n",
          why);
  return 2;
}

int main(int argc, char **argv) {
  uint32_t seed = 0, seconds = 0, iters = 0, gemm_every = 8;
  bool have_seed = false, verbose = false;
  const char *save = NULL;
  const char *replay[256];
  unsigned nreplay = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint32_t *slot = NULL;
    if (strcmp(a, "--dim") == 0) {
      slot = &fz_dim;
    } else if (strcmp(a, "--seed") == 0) {
      slot = &seed;
      have_seed = true;
    } else if (strcmp(a, "--seconds") == 0) {
      slot = &seconds;
    } else if (strcmp(a, "--iters") == 0) {
      slot = &iters;
    } else if (strcmp(a, "--gemm-every") == 0) {
      slot = &gemm_every;
    } else if (strcmp(a, "--verbose") == 0) {
      verbose = true;
      continue;
    } else if (strcmp(a, "--save") == 0 && v != NULL) {
      save = v;
      i++;
      continue;
    } else if (strcmp(a, "--replay") == 0 && v != NULL) {
      while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0 && nreplay < 256) {
        replay[nreplay++] = argv[++i];
      }
      continue;
    } else if (strcmp(a, "--break") == 0 && v != NULL) {
      g_break = strcmp(v, "region") == 0 ? BRK_REGION
                : strcmp(v, "swallow") == 0 ? BRK_SWALLOW
                : strcmp(v, "wedge") == 0   ? BRK_WEDGE
                : strcmp(v, "guard") == 0   ? BRK_GUARD
                                            : BRK_NONE;
      if (g_break == BRK_NONE) {
        return usage("--break takes region, swallow, wedge or guard");
      }
      i++;
      continue;
    } else {
      return usage("bad argument");
    }
    if (v == NULL || sys_parse_u32(v, slot) != 0) {
      return usage("option needs an unsigned integer");
    }
    i++;
  }
  if (!have_seed) {
    seed = sys_seed_from_env_or_clock();
  }
  if (seconds == 0 && iters == 0 && nreplay == 0) {
    seconds = 60;
  }
  tsr_sim_cfg_t cfg;
  sys_sim_cfg_default(&cfg);
  cfg.mem_size = MEM_SIZE;
  cfg.watchdog_cycles = 50000000ull;
  sys_env_t e;
  char err[512];
  if (sys_open(&e, fz_dim, &cfg, err, sizeof err) != TSR_OK) {
    fprintf(stderr, "fuzz_chip: %s\n", err);
    return 1;
  }
  raw_api_t raw;
  memset(&raw, 0, sizeof raw);
  void *lib = NULL;
  if (tsr_hal_sim_raw(&e.hal, &raw.sim, &lib) != TSR_OK) {
    fprintf(stderr, "fuzz_chip: no raw simulator access\n");
    return 1;
  }
  *(void **)&raw.reset = dlsym(lib, "tsr_sim_reset");
  *(void **)&raw.step = dlsym(lib, "tsr_sim_step");
  *(void **)&raw.set_faults = dlsym(lib, "tsr_sim_set_faults");
  *(void **)&raw.fault_log = dlsym(lib, "tsr_sim_fault_log");
  *(void **)&raw.axi_active = dlsym(lib, "tsr_sim_axi_active");
  *(void **)&raw.set_guard = dlsym(lib, "tsr_sim_set_guard");
  *(void **)&raw.mem_stats = dlsym(lib, "tsr_sim_mem_stats");
  if (raw.reset == NULL || raw.step == NULL || raw.set_faults == NULL || raw.fault_log == NULL ||
      raw.set_guard == NULL || raw.mem_stats == NULL) {
    fprintf(stderr, "fuzz_chip: the simulator library lacks tsr_sim_set_faults & co: run 'make sim DIM=%u'\n", fz_dim);
    return 1;
  }
  stats_t st;
  memset(&st, 0, sizeof st);
  int rc = 0;
  const time_t t0 = time(NULL);
  if (nreplay != 0) {
    printf("fuzz_chip: dim %u: replaying %u program(s)\n", fz_dim, nreplay);
    for (unsigned i = 0; i < nreplay && rc == 0; i++) {
      prog_t p;
      if (fz_prog_load(replay[i], &p) != 0) {
        rc = -1;
        break;
      }
      rc = run_prog(&e, &raw, &p, i, seed, true, NULL, &st);
      st.iters++;
      if (rc != 0) {
        fprintf(stderr, "fuzz_chip: corpus program %s failed\n", replay[i]);
      }
    }
  } else {
    printf("fuzz_chip: dim %u, seed %u (replay with --seed %u), %s %u\n", fz_dim, seed, seed,
           seconds ? "seconds" : "iterations", seconds ? seconds : iters);
    fflush(stdout);
    sys_rng_t r;
    sys_rng_seed(&r, seed, 7u);
    for (uint64_t it = 0;; it++) {
      if ((iters != 0 && it >= iters) || (seconds != 0 && (uint64_t)(time(NULL) - t0) >= seconds)) {
        break;
      }
      prog_t p;
      fz_gen(&r, &p);
      if (verbose) {
        printf("-- iteration %" PRIu64 "\n", it);
        fz_prog_print(stdout, &p);
      }
      rc = run_prog(&e, &raw, &p, it, seed, gemm_every != 0 && it % gemm_every == 0, save, &st);
      st.iters++;
      if (rc != 0) {
        break;
      }
    }
  }
  printf("fuzz_chip: %" PRIu64 " programs, %" PRIu64 " actions in %lld s: %" PRIu64 " completed", st.iters,
         st.actions, (long long)(time(NULL) - t0), st.completed);
#define FZ_ERR_NAME(name, value, msg) [value] = #name,
  static const char *k_names[] = {TSR_ERR_LIST(FZ_ERR_NAME)};
#undef FZ_ERR_NAME
  for (unsigned c = 1; c < 256; c++) {
    if (st.errors[c] != 0u) {
      printf(", %s %" PRIu64, c < sizeof k_names / sizeof k_names[0] ? k_names[c] : "?", st.errors[c]);
    }
  }
  printf("; %" PRIu64 " with bus faults, %" PRIu64 " in a locked guard window, %" PRIu64 " soft resets, %" PRIu64
         " hard resets, %" PRIu64 " recovery GEMMs bit-exact (%" PRIu64 " through a ring); %" PRIu64
         " used the command ring (%" PRIu64 " outcomes predicted and met, %" PRIu64 " lists may have overwritten"
         " themselves, %" PRIu64 " did)\n",
         st.faulted, st.guarded, st.soft_resets, st.hard_resets, st.gemms, st.ring_gemms, st.rings, st.predicted,
         st.self_written, st.overwrote);
  printf("fuzz_chip: %s\n", rc == 0 ? "PASSED" : "FAILED");
  sys_close(&e);
  return rc == 0 ? 0 : 1;
}
