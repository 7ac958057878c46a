/* sys_reset.c: hard and soft resets in the middle of a job, for the reset suite and the soak. */
#define _POSIX_C_SOURCE 200809L

#include "sys_reset.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera_regs.h"
#include "tsr_ring.h"

/* Cycles the bus must stay quiet after a hard reset. */
#define QUIET_CYCLES 200u

tsr_status_t sys_simraw_get(sys_env_t *e, sys_simraw_t *r, char *err, size_t len) {
  void *lib = NULL;
  memset(r, 0, sizeof *r);
  if (tsr_hal_sim_raw(&e->hal, &r->sim, &lib) != TSR_OK) {
    snprintf(err, len, "not a simulator HAL");
    return TSR_UNSUPPORTED;
  }
  *(void **)(&r->reset) = dlsym(lib, "tsr_sim_reset");
  *(void **)(&r->step) = dlsym(lib, "tsr_sim_step");
  *(void **)(&r->irq) = dlsym(lib, "tsr_sim_irq");
  *(void **)(&r->axi_active) = dlsym(lib, "tsr_sim_axi_active");
  *(void **)(&r->mem_stats) = dlsym(lib, "tsr_sim_mem_stats");
  if (r->reset == NULL || r->step == NULL || r->irq == NULL || r->axi_active == NULL ||
      r->mem_stats == NULL) {
    snprintf(err, len, "the simulator library lacks tsr_sim_reset/step/irq/axi_active/mem_stats: "
                       "rebuild it with 'make sim DIM=%u'", e->dim);
    return TSR_NO_DEVICE;
  }
  return TSR_OK;
}

/* ---- The trip HAL ------------------------------------------------------------------------ */

static uint64_t beats(const sys_simraw_t *r) {
  tsr_sim_mem_stats_t st;
  r->mem_stats(r->sim, &st);
  return st.rd_beats + st.wr_beats;
}

/* Look at the chip just before the trip, then trip. */
static void trip_now(sys_trip_t *t) {
  sys_env_t *e = t->env;
  uint32_t op = 0;
  t->tripped = true;
  t->trip_status = TSR_OK;
  t->seen.axi = t->raw.axi_active(t->raw.sim);
  (void)sys_rd(e, TSR_STATUS_REG_OFFSET, &t->seen.status);
  if (t->ring_size != 0u) {
    uint32_t head = 0, tail = 0;
    (void)sys_rd(e, TSR_RING_HEAD_REG_OFFSET, &head);
    (void)sys_rd(e, TSR_RING_TAIL_REG_OFFSET, &tail);
    t->seen.ring_pending = head != tail;
  }
  uint64_t b0 = beats(&t->raw);
  t->raw.step(t->raw.sim, 8u);
  t->seen.dma_moving = beats(&t->raw) != b0;
  /* Last, so that the reset follows within the few cycles of one read. */
  (void)sys_rd(e, TSR_OPCODE_REG_OFFSET, &op);
  t->seen.array_busy = ((op >> TSR_OPCODE_OP_OFFSET) & TSR_OPCODE_OP_MASK) == TSR_OP_MATMUL;
  t->seen.axi |= t->raw.axi_active(t->raw.sim);
  if (t->kind == SYS_TRIP_HARD) {
    t->raw.reset(t->raw.sim, t->reset_cycles);
  } else {
    t->trip_status = sys_soft_reset(e);
  }
}

/* Trip if the clock has reached the trip cycle. True once tripped. The
 * first access starts the trip clock and keeps a copy of the memory: the
 * job's start image (sys_case_run writes it before touching a register). */
static bool check_trip(sys_trip_t *t) {
  if (!t->started) {
    t->started = true;
    t->start_cycle = tsr_hal_cycles(&t->env->hal);
    t->image = sys_snapshot(t->env);
  }
  if (!t->tripped && t->trip_at != UINT64_MAX &&
      tsr_hal_cycles(&t->env->hal) >= t->start_cycle + t->trip_at) {
    if (t->when == SYS_WHEN_ARRAY) {
      /* Poll OPCODE (a register read takes a few cycles) until a MATMUL executes. */
      uint32_t op = 0;
      (void)sys_rd(t->env, TSR_OPCODE_REG_OFFSET, &op);
      if (((op >> TSR_OPCODE_OP_OFFSET) & TSR_OPCODE_OP_MASK) != TSR_OP_MATMUL) {
        return false;
      }
    } else if (t->when == SYS_WHEN_DMA && t->raw.axi_active(t->raw.sim) == 0u) {
      return false;
    }
    trip_now(t);
  }
  return t->tripped;
}

static tsr_status_t trip_read32(void *ctx, uint32_t off, uint32_t *val) {
  sys_trip_t *t = ctx;
  if (check_trip(t)) {
    return TSR_BUS;
  }
  return sys_rd(t->env, off, val);
}

static tsr_status_t trip_write32(void *ctx, uint32_t off, uint32_t val) {
  sys_trip_t *t = ctx;
  if (check_trip(t)) {
    return TSR_BUS;
  }
  return sys_wr(t->env, off, val);
}

static tsr_status_t trip_wait_irq(void *ctx, uint64_t max) {
  sys_trip_t *t = ctx;
  if (max == 0u) {
    max = t->env->cfg.watchdog_cycles;
  }
  for (uint64_t n = 0;; n++) {
    if (check_trip(t)) {
      return TSR_BUS;
    }
    if (t->raw.irq(t->raw.sim)) {
      return TSR_OK;
    }
    if (n == max) {
      fprintf(stderr, "watchdog: no interrupt after %" PRIu64 " cycles\n", n);
      return TSR_TIMEOUT;
    }
    t->raw.step(t->raw.sim, 1u);
  }
}

/* Memory is not the device's registers: the host keeps writing it (ring slots). */
static tsr_status_t trip_mem_write(void *ctx, uint64_t addr, const void *src, size_t n) {
  sys_trip_t *t = ctx;
  return tsr_hal_mem_write(&t->env->hal, addr, src, n);
}

static tsr_status_t trip_mem_read(void *ctx, uint64_t addr, void *dst, size_t n) {
  sys_trip_t *t = ctx;
  return tsr_hal_mem_read(&t->env->hal, addr, dst, n);
}

static uint64_t trip_cycles(void *ctx) {
  sys_trip_t *t = ctx;
  return tsr_hal_cycles(&t->env->hal);
}

static const tsr_hal_ops_t k_trip_ops = {
    .name = "trip",
    .read32 = trip_read32,
    .write32 = trip_write32,
    .wait_irq = trip_wait_irq,
    .mem_write = trip_mem_write,
    .mem_read = trip_mem_read,
    .cycles = trip_cycles,
    .close = NULL,
};

void sys_trip_init(sys_trip_t *t) {
  t->tripped = false;
  t->trip_status = TSR_OK;
  memset(&t->seen, 0, sizeof t->seen);
  t->image = NULL;
  t->started = false;
  t->start_cycle = 0u;
  t->hal.ops = &k_trip_ops;
  t->hal.ctx = t;
}

void sys_trip_free(sys_trip_t *t) {
  free(t->image);
  t->image = NULL;
}

/* ---- Checks --------------------------------------------------------------------------------- */

int sys_check_after_hard_reset(sys_env_t *e, const sys_simraw_t *r, unsigned quiet,
                               uint64_t pe_before, char *msg, size_t len) {
  tsr_sim_mem_stats_t s0, s1;
  r->mem_stats(r->sim, &s0);
  for (unsigned i = 0; i < quiet; i++) {
    unsigned a = r->axi_active(r->sim);
    if (a != 0u) {
      snprintf(msg, len, "AXI bus not quiet %u cycles after the hard reset (valids 0x%x)", i, a);
      return -1;
    }
    r->step(r->sim, 1u);
  }
  r->mem_stats(r->sim, &s1);
  if (s1.rd_bursts != s0.rd_bursts || s1.wr_bursts != s0.wr_bursts ||
      s1.rd_beats != s0.rd_beats || s1.wr_beats != s0.wr_beats) {
    snprintf(msg, len, "the memory saw traffic after the hard reset: %" PRIu64 " AR, %" PRIu64
             " AW, %" PRIu64 " R, %" PRIu64 " W", s1.rd_bursts - s0.rd_bursts,
             s1.wr_bursts - s0.wr_bursts, s1.rd_beats - s0.rd_beats, s1.wr_beats - s0.wr_beats);
    return -1;
  }
  if (s1.protocol_errors != pe_before) {
    snprintf(msg, len, "%" PRIu64 " AXI protocol errors around the hard reset",
             s1.protocol_errors - pe_before);
    return -1;
  }
  if (r->irq(r->sim)) {
    snprintf(msg, len, "irq_o high after the hard reset");
    return -1;
  }
  static const struct {
    const char *name;
    uint32_t off, mask, want;
  } k_idle[] = {
      {"STATUS.BUSY|ERROR", TSR_STATUS_REG_OFFSET,
       (1u << TSR_STATUS_BUSY_BIT) | (1u << TSR_STATUS_ERROR_BIT), 0u},
      {"IRQ_STATUS", TSR_IRQ_STATUS_REG_OFFSET, 0xffffffffu, 0u},
      {"IRQ_ENABLE", TSR_IRQ_ENABLE_REG_OFFSET, 0xffffffffu, 0u},
      {"ERR_CODE", TSR_ERR_CODE_REG_OFFSET, 0xffffffffu, 0u},
      {"CMDQ_STATUS.WORDS", TSR_CMDQ_STATUS_REG_OFFSET,
       TSR_CMDQ_STATUS_WORDS_MASK << TSR_CMDQ_STATUS_WORDS_OFFSET, 0u},
      {"CNT_MACS_LO", TSR_CNT_MACS_LO_REG_OFFSET, 0xffffffffu, 0u},
      {"CNT_CMDS_LO", TSR_CNT_CMDS_LO_REG_OFFSET, 0xffffffffu, 0u},
  };
  for (size_t i = 0; i < sizeof k_idle / sizeof k_idle[0]; i++) {
    uint32_t v = 0;
    tsr_status_t st = sys_rd(e, k_idle[i].off, &v);
    if (st != TSR_OK) {
      snprintf(msg, len, "reading %s after the hard reset: %s", k_idle[i].name, tsr_status_str(st));
      return -1;
    }
    if ((v & k_idle[i].mask) != k_idle[i].want) {
      snprintf(msg, len, "%s = 0x%08x after the hard reset (want 0x%x under mask 0x%x)",
               k_idle[i].name, v, k_idle[i].want, k_idle[i].mask);
      return -1;
    }
  }
  tsr_status_t st = tsr_dev_open(&e->dev, &e->hal);
  if (st != TSR_OK) {
    snprintf(msg, len, "tsr_dev_open after the hard reset: %s: %s", tsr_status_str(st),
             tsr_dev_error(&e->dev));
    return -1;
  }
  e->dev.poll_limit = SYS_POLL_LIMIT;
  uint32_t q = 0;
  if ((st = sys_rd(e, TSR_CMDQ_STATUS_REG_OFFSET, &q)) != TSR_OK ||
      ((q >> TSR_CMDQ_STATUS_FREE_OFFSET) & TSR_CMDQ_STATUS_FREE_MASK) != e->dev.info.cmdq_depth) {
    snprintf(msg, len, "CMDQ_STATUS 0x%08x after the hard reset: FREE is not the depth %u", q,
             e->dev.info.cmdq_depth);
    return -1;
  }
  return 0;
}

int sys_run_with_trip(sys_env_t *e, sys_trip_t *t, const sys_case_t *c, char *msg, size_t len) {
  const tsr_gemm_desc_t *d = &c->d;
  const uint32_t es = d->requant ? 1u : 4u;
  uint64_t pe0 = sys_protocol_errors(e);
  sys_trip_init(t);

  /* The driver talks through the trip HAL; memory and statistics go straight to the simulator. */
  sys_env_t te = *e;
  const uint64_t trip_at = t->trip_at;
  t->trip_at = UINT64_MAX;
  tsr_status_t st = tsr_dev_open(&te.dev, &t->hal);
  free(t->image);
  t->image = NULL;
  t->started = false; /* the clock starts at sys_case_run's first register access */
  t->trip_at = trip_at;
  if (st != TSR_OK) {
    snprintf(msg, len, "tsr_dev_open on the trip HAL: %s", tsr_dev_error(&te.dev));
    return -1;
  }
  te.dev.poll_limit = SYS_POLL_LIMIT;
  tsr_ring_t ring;
  if (t->ring_size != 0u) {
    t->trip_at = UINT64_MAX; /* the set-up is not part of the job */
    st = tsr_ring_attach(&te.dev, &ring, t->ring_base, t->ring_size);
    t->started = false;
    free(t->image);
    t->image = NULL;
    t->trip_at = trip_at;
    if (st != TSR_OK) {
      snprintf(msg, len, "tsr_ring_attach on the trip HAL: %s", tsr_dev_error(&te.dev));
      return -1;
    }
    te.ring_base = t->ring_base;
    te.ring_size = t->ring_size;
  }
  sys_case_result_t res;
  char why[512];
  int rc = sys_case_run(&te, c, &res, why, sizeof why);
  if (!t->tripped) {
    if (rc != 0) {
      snprintf(msg, len, "job failed without a trip: %s", why);
      return -1;
    }
    return 0;
  }
  if (t->trip_status != TSR_OK) {
    snprintf(msg, len, "soft reset at the trip failed: %s", tsr_status_str(t->trip_status));
    return -1;
  }
  if (t->kind == SYS_TRIP_HARD &&
      sys_check_after_hard_reset(e, &t->raw, QUIET_CYCLES, pe0, msg, len) != 0) {
    return -1;
  }
  if (t->kind == SYS_TRIP_SOFT) {
    /* The engine drained: let stray beats land, then it must be idle and clean. */
    t->raw.step(t->raw.sim, QUIET_CYCLES);
    uint32_t s = 0;
    if ((st = sys_rd(e, TSR_STATUS_REG_OFFSET, &s)) != TSR_OK ||
        (s & ((1u << TSR_STATUS_BUSY_BIT) | (1u << TSR_STATUS_ERROR_BIT))) != 0u) {
      snprintf(msg, len, "STATUS 0x%08x after the soft reset: not idle", s);
      return -1;
    }
    if (t->raw.axi_active(t->raw.sim) != 0u) {
      snprintf(msg, len, "AXI valids 0x%x after the soft reset drained",
               t->raw.axi_active(t->raw.sim));
      return -1;
    }
    if (sys_protocol_errors(e) != pe0) {
      snprintf(msg, len, "AXI protocol errors around the soft reset");
      return -1;
    }
    e->dev.cmds_pushed = 0u;
  }
  if (t->ring_size != 0u) {
    /* The ring is empty after either reset, and stays so. */
    uint32_t ctrl = 0, head = 0, tail = 0;
    if ((st = sys_rd(e, TSR_RING_CTRL_REG_OFFSET, &ctrl)) != TSR_OK ||
        (st = sys_rd(e, TSR_RING_HEAD_REG_OFFSET, &head)) != TSR_OK ||
        (st = sys_rd(e, TSR_RING_TAIL_REG_OFFSET, &tail)) != TSR_OK) {
      snprintf(msg, len, "reading the ring registers after the %s reset: %s",
               t->kind == SYS_TRIP_HARD ? "hard" : "soft", tsr_status_str(st));
      return -1;
    }
    const uint32_t on = (ctrl >> TSR_RING_CTRL_ENABLE_BIT) & 1u;
    if (t->kind == SYS_TRIP_HARD ? (ctrl != 0u || head != 0u || tail != 0u) : (on != 1u || head != tail)) {
      snprintf(msg, len, "after the %s reset mid-ring: RING_CTRL 0x%x RING_HEAD 0x%x RING_TAIL 0x%x (want %s)",
               t->kind == SYS_TRIP_HARD ? "hard" : "soft", ctrl, head, tail,
               t->kind == SYS_TRIP_HARD ? "all 0" : "ENABLE kept, head = tail");
      return -1;
    }
  }
  if (t->image == NULL) {
    return 0; /* tripped before the image was written: nothing to compare */
  }
  uint8_t *after = sys_snapshot(e);
  if (after == NULL) {
    snprintf(msg, len, "reading the memory back failed");
    return -1;
  }
  if (t->ring_size != 0u && (uint64_t)t->ring_base + t->ring_size <= e->cfg.mem_size) {
    /* The driver wrote the job's commands into the ring. */
    memcpy(t->image + t->ring_base, after + t->ring_base, t->ring_size);
  }
  int64_t bad = sys_first_change_outside(t->image, after, (size_t)e->cfg.mem_size, d->c_addr,
                                         d->ldc, d->m, d->n * es);
  free(after);
  if (bad >= 0) {
    snprintf(msg, len, "byte 0x%" PRIx64 " outside C changed after the %s reset mid-job", bad,
             t->kind == SYS_TRIP_HARD ? "hard" : "soft");
    return -1;
  }
  return 0;
}
