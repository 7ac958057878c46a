/* tsr_axi_mem.c: cycle-accurate AXI4 slave memory model with a protocol checker, in plain C. */
#include "tsr_axi_mem.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One accepted burst: a read waiting for / sending its R beats, or a write
 * collecting its W beats and then waiting to send B. */
typedef struct burst {
  uint64_t base;    /* bus-aligned address of beat 0 */
  uint64_t due;     /* first cycle its R beats / its B may be valid */
  uint16_t beats;   /* len + 1 */
  uint16_t beat;    /* beats transferred so far */
  uint8_t resp;     /* OKAY, SLVERR or DECERR for the whole burst */
  uint8_t fault_resp; /* injected error of beat fault_beat (reads) */
  int32_t fault_beat; /* beat answering fault_resp; -1 = none */
  uint32_t addr;    /* AxADDR as issued */
  bool err_sent;    /* an error beat of this read burst went out */
  bool delay_drawn; /* the extra delay of the next response was drawn */
} burst_t;

/* Fixed-capacity FIFO of bursts. */
typedef struct burst_fifo {
  burst_t slot[TSR_AXI_MEM_MAX_OUTSTANDING];
  unsigned head, count;
} burst_fifo_t;

struct tsr_axi_mem {
  tsr_axi_mem_cfg_t cfg;
  uint8_t *data;
  unsigned size_log2;       /* log2(bus_bytes): the only legal arsize/awsize */
  uint64_t now;             /* cycle being ticked */
  uint64_t rng;             /* xorshift64* state */
  int64_t credits;          /* token bucket of the bandwidth cap */
  int64_t credit_cap;
  bool prio_w;              /* W beats get the credits first (round robin on grants) */
  bool w_reserved;          /* wready is up and holds bus_bytes credits */
  tsr_axi_rsp_t rsp;        /* outputs of the current cycle */
  burst_fifo_t rd;          /* read bursts, head = the one sending R */
  burst_fifo_t wr;          /* write bursts collecting W beats, head = current */
  burst_fifo_t wb;          /* write bursts waiting to send B */
  /* Channels that had VALID && !READY last cycle, and what they carried. */
  bool ar_wait, aw_wait, w_wait;
  tsr_axi_req_t held;
  tsr_axi_mem_stats_t stats;
  uint64_t viol[TSR_AXI_VIOL_COUNT];
  unsigned reports;
  tsr_axi_faults_t faults;  /* injected faults */
  uint64_t frng;            /* xorshift64* state of the fault choices */
  uint64_t rd_seen, wr_seen; /* AR / AW handshakes since tsr_axi_mem_set_faults */
  tsr_axi_fault_log_t flog;
  uint64_t guard_lo, guard_hi; /* tsr_axi_mem_set_guard */
};

/* ---- small helpers ---------------------------------------------------- */

static burst_t *fifo_head(burst_fifo_t *f) {
  return &f->slot[f->head];
}

static burst_t *fifo_push(burst_fifo_t *f) {
  burst_t *b = &f->slot[(f->head + f->count) % TSR_AXI_MEM_MAX_OUTSTANDING];
  f->count++;
  return b;
}

static void fifo_pop(burst_fifo_t *f) {
  f->head = (f->head + 1u) % TSR_AXI_MEM_MAX_OUTSTANDING;
  f->count--;
}

/* xorshift64* (Vigna). The state is never 0. */
static uint64_t xorshift(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1Dull;
}

static uint64_t rng_next(tsr_axi_mem_t *m) {
  return xorshift(&m->rng);
}

/* splitmix64 of a seed, so that nearby seeds give unrelated streams; never 0. */
static uint64_t seed_state(uint32_t seed) {
  uint64_t z = (uint64_t)seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (z != 0u) ? z : 1u;
}

/* True with probability pct / 100, from the fault generator. */
static bool fault_pct(tsr_axi_mem_t *m, uint32_t pct) {
  return pct != 0u && (unsigned)((xorshift(&m->frng) >> 32) % 100u) < pct;
}

/* True when a channel should withhold its ready/valid this cycle. */
static bool stall(tsr_axi_mem_t *m) {
  if (m->cfg.stall_pct == 0u) {
    return false;
  }
  return (unsigned)((rng_next(m) >> 32) % 100u) < m->cfg.stall_pct;
}

/* Take one beat's worth of bandwidth credits, if the cap allows it now. */
static bool take_credits(tsr_axi_mem_t *m) {
  if (m->cfg.bytes_per_cycle == 0u) {
    return true;
  }
  if (m->credits < (int64_t)m->cfg.bus_bytes) {
    return false;
  }
  m->credits -= (int64_t)m->cfg.bus_bytes;
  return true;
}

static void violation(tsr_axi_mem_t *m, tsr_axi_viol_t kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void violation(tsr_axi_mem_t *m, tsr_axi_viol_t kind, const char *fmt, ...) {
  m->viol[kind]++;
  m->stats.protocol_errors++;
  if (m->reports < m->cfg.max_reports) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tsr_axi_mem: AXI protocol error at cycle %llu: ", (unsigned long long)m->now);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    m->reports++;
    if (m->reports == m->cfg.max_reports) {
      fprintf(stderr, "tsr_axi_mem: further protocol errors are counted, not printed\n");
    }
  }
}

/* ---- configuration and life cycle -------------------------------------- */

void tsr_axi_mem_cfg_default(tsr_axi_mem_cfg_t *cfg) {
  if (cfg == NULL) {
    return;
  }
  memset(cfg, 0, sizeof *cfg);
  cfg->mem_size = 64ull << 20;
  cfg->bus_bytes = 8u;
  cfg->rd_latency = 10u;
  cfg->wr_latency = 10u;
  cfg->max_reports = 8u;
}

tsr_axi_mem_t *tsr_axi_mem_create(const tsr_axi_mem_cfg_t *cfg) {
  if (cfg == NULL) {
    fprintf(stderr, "tsr_axi_mem: no configuration given\n");
    return NULL;
  }
  if (cfg->bus_bytes != 4u && cfg->bus_bytes != 8u && cfg->bus_bytes != 16u) {
    fprintf(stderr, "tsr_axi_mem: bus width %u bytes unsupported (4, 8 or 16)\n", cfg->bus_bytes);
    return NULL;
  }
  if (cfg->mem_size == 0u || cfg->mem_size > (1ull << 32) || cfg->mem_size % cfg->bus_bytes != 0u) {
    fprintf(stderr, "tsr_axi_mem: memory size %llu must be a multiple of %u in 1..4 GiB\n",
            (unsigned long long)cfg->mem_size, cfg->bus_bytes);
    return NULL;
  }
  if (cfg->stall_pct > 100u) {
    fprintf(stderr, "tsr_axi_mem: stall_pct %u is above 100\n", cfg->stall_pct);
    return NULL;
  }
  tsr_axi_mem_t *m = calloc(1, sizeof *m);
  if (m == NULL) {
    fprintf(stderr, "tsr_axi_mem: out of memory\n");
    return NULL;
  }
  m->data = calloc(1, (size_t)cfg->mem_size);
  if (m->data == NULL) {
    fprintf(stderr, "tsr_axi_mem: cannot allocate %llu bytes of memory\n",
            (unsigned long long)cfg->mem_size);
    free(m);
    return NULL;
  }
  m->cfg = *cfg;
  while ((1u << m->size_log2) < cfg->bus_bytes) {
    m->size_log2++;
  }
  m->rng = seed_state(cfg->seed);
  m->frng = seed_state(0u);
  /* The bucket holds one cycle of refill plus two beats, so a beat can always
   * be afforded eventually and a burst after idle time is short. */
  m->credit_cap = (int64_t)cfg->bytes_per_cycle + 2 * (int64_t)cfg->bus_bytes;
  m->credits = m->credit_cap;
  m->guard_hi = UINT64_MAX;
  return m;
}

void tsr_axi_mem_destroy(tsr_axi_mem_t *m) {
  if (m == NULL) {
    return;
  }
  free(m->data);
  free(m);
}

void tsr_axi_mem_reset(tsr_axi_mem_t *m) {
  if (m == NULL) {
    return;
  }
  memset(&m->rsp, 0, sizeof m->rsp);
  memset(&m->rd, 0, sizeof m->rd);
  memset(&m->wr, 0, sizeof m->wr);
  memset(&m->wb, 0, sizeof m->wb);
  m->ar_wait = false;
  m->aw_wait = false;
  m->w_wait = false;
  m->w_reserved = false;
  m->credits = m->credit_cap;
}

/* ---- address phase ------------------------------------------------------ */

/* Decide the injected fault of a newly accepted burst. A faulty write writes
 * nothing, like a write to the error range. */
static void inject(tsr_axi_mem_t *m, bool rd, burst_t *b) {
  const tsr_axi_faults_t *f = &m->faults;
  const uint8_t resp = (f->resp == TSR_AXI_DECERR) ? (uint8_t)TSR_AXI_DECERR : (uint8_t)TSR_AXI_SLVERR;
  const uint64_t n = rd ? ++m->rd_seen : ++m->wr_seen;
  const uint32_t chosen = rd ? f->rd_burst : f->wr_burst;
  int32_t beat = -1;
  if (chosen != 0u && n == chosen) {
    beat = rd ? (int32_t)(f->rd_beat < b->beats ? f->rd_beat : b->beats - 1u) : 0;
  } else if (fault_pct(m, f->rand_pct)) {
    beat = rd ? (int32_t)(xorshift(&m->frng) % b->beats) : 0;
  }
  if (beat < 0) {
    return;
  }
  if (rd) {
    b->fault_beat = beat;
    b->fault_resp = resp;
  } else if (b->resp == TSR_AXI_OKAY) {
    b->resp = resp;
  }
}

/* Extra delay of the head burst's next response, drawn once per response.
 * Returns true while the response must wait. */
static bool held_back(tsr_axi_mem_t *m, burst_t *b) {
  if (!b->delay_drawn) {
    b->delay_drawn = true;
    if (m->faults.delay_max != 0u && fault_pct(m, m->faults.delay_pct)) {
      uint64_t extra = 1u + xorshift(&m->frng) % m->faults.delay_max;
      b->due = m->now + 1u + extra;
      m->flog.delays++;
    }
  }
  return b->due > m->now + 1u;
}

/* Check an AR/AW request and turn it into a burst. `rd` selects the channel. */
static void accept_addr(tsr_axi_mem_t *m, bool rd, uint32_t addr, uint8_t len, uint8_t size,
                        uint8_t burst_type, burst_t *b) {
  const char *ch = rd ? "AR" : "AW";
  const uint64_t bus = m->cfg.bus_bytes;
  if (burst_type != TSR_AXI_BURST_INCR) {
    violation(m, rd ? TSR_AXI_VIOL_AR_BURST : TSR_AXI_VIOL_AW_BURST,
              "%s burst type %u at 0x%08x is not INCR (1)", ch, burst_type, addr);
  }
  if (size != m->size_log2) {
    violation(m, rd ? TSR_AXI_VIOL_AR_SIZE : TSR_AXI_VIOL_AW_SIZE,
              "%s size %u at 0x%08x is not the bus width (%u)", ch, size, addr, m->size_log2);
  }
  /* Beats are treated as full bus width whatever size said. */
  b->base = (uint64_t)addr & ~(bus - 1u);
  b->beats = (uint16_t)(len + 1u);
  b->beat = 0u;
  b->addr = addr;
  b->fault_beat = -1;
  b->fault_resp = TSR_AXI_OKAY;
  b->err_sent = false;
  b->delay_drawn = false;
  const uint64_t end = b->base + (uint64_t)b->beats * bus; /* exclusive */
  if ((b->base >> 12) != ((end - 1u) >> 12)) {
    violation(m, rd ? TSR_AXI_VIOL_AR_4K : TSR_AXI_VIOL_AW_4K,
              "%s burst at 0x%08x, %u beats of %u bytes, crosses a 4 KiB boundary", ch, addr,
              (unsigned)b->beats, (unsigned)bus);
  }
  if (b->base < m->guard_lo || end - 1u > m->guard_hi) {
    if (m->stats.rd_outside + m->stats.wr_outside == 0u) {
      m->stats.outside_first = addr;
    }
    if (rd) {
      m->stats.rd_outside++;
    } else {
      m->stats.wr_outside++;
    }
  }
  if (end > m->cfg.mem_size) {
    b->resp = TSR_AXI_DECERR;
  } else if (m->cfg.err_size != 0u && b->base < m->cfg.err_base + m->cfg.err_size &&
             m->cfg.err_base < end) {
    b->resp = TSR_AXI_SLVERR;
  } else {
    b->resp = TSR_AXI_OKAY;
  }
  inject(m, rd, b);
}

/* ---- checks of channels that waited for READY last cycle ---------------- */

static void check_stable(tsr_axi_mem_t *m, const tsr_axi_req_t *q) {
  const tsr_axi_req_t *h = &m->held;
  if (m->ar_wait) {
    if (!q->arvalid) {
      violation(m, TSR_AXI_VIOL_AR_UNSTABLE, "ARVALID dropped before ARREADY (0x%08x)", h->araddr);
    } else if (q->araddr != h->araddr || q->arlen != h->arlen || q->arsize != h->arsize ||
               q->arburst != h->arburst) {
      violation(m, TSR_AXI_VIOL_AR_UNSTABLE, "AR payload changed before ARREADY (0x%08x -> 0x%08x)",
                h->araddr, q->araddr);
    }
  }
  if (m->aw_wait) {
    if (!q->awvalid) {
      violation(m, TSR_AXI_VIOL_AW_UNSTABLE, "AWVALID dropped before AWREADY (0x%08x)", h->awaddr);
    } else if (q->awaddr != h->awaddr || q->awlen != h->awlen || q->awsize != h->awsize ||
               q->awburst != h->awburst) {
      violation(m, TSR_AXI_VIOL_AW_UNSTABLE, "AW payload changed before AWREADY (0x%08x -> 0x%08x)",
                h->awaddr, q->awaddr);
    }
  }
  if (m->w_wait) {
    if (!q->wvalid) {
      violation(m, TSR_AXI_VIOL_W_UNSTABLE, "WVALID dropped before WREADY");
    } else if (q->wlast != h->wlast || q->wstrb != h->wstrb ||
               memcmp(q->wdata, h->wdata, m->cfg.bus_bytes) != 0) {
      violation(m, TSR_AXI_VIOL_W_UNSTABLE, "W payload changed before WREADY");
    }
  }
}

/* Remember the channels that are waiting for READY now. */
static void hold_waiting(tsr_axi_mem_t *m, const tsr_axi_req_t *q) {
  m->ar_wait = q->arvalid && !m->rsp.arready;
  m->aw_wait = q->awvalid && !m->rsp.awready;
  m->w_wait = q->wvalid && !m->rsp.wready;
  if (m->ar_wait) {
    m->held.araddr = q->araddr;
    m->held.arlen = q->arlen;
    m->held.arsize = q->arsize;
    m->held.arburst = q->arburst;
  }
  if (m->aw_wait) {
    m->held.awaddr = q->awaddr;
    m->held.awlen = q->awlen;
    m->held.awsize = q->awsize;
    m->held.awburst = q->awburst;
  }
  if (m->w_wait) {
    m->held.wlast = q->wlast;
    m->held.wstrb = q->wstrb;
    memcpy(m->held.wdata, q->wdata, m->cfg.bus_bytes);
  }
}

/* ---- data phase --------------------------------------------------------- */

static void w_beat(tsr_axi_mem_t *m, const tsr_axi_req_t *q) {
  burst_t *b = fifo_head(&m->wr);
  const unsigned bus = m->cfg.bus_bytes;
  const bool last = (b->beat + 1u == b->beats);
  if ((q->wlast != 0u) != last) {
    violation(m, TSR_AXI_VIOL_WLAST, "WLAST=%u on beat %u of a %u-beat burst at 0x%08llx",
              (unsigned)q->wlast, (unsigned)b->beat + 1u, (unsigned)b->beats,
              (unsigned long long)b->base);
  }
  if (b->resp == TSR_AXI_OKAY) {
    uint8_t *dst = m->data + b->base + (uint64_t)b->beat * bus;
    for (unsigned i = 0; i < bus; i++) {
      if ((q->wstrb >> i) & 1u) {
        dst[i] = q->wdata[i];
      }
    }
  }
  m->stats.wr_beats++;
  b->beat++;
  if (last) {
    /* The burst is complete after len+1 beats whatever WLAST said. */
    unsigned lat = m->cfg.wr_latency ? m->cfg.wr_latency : 1u;
    burst_t done = *b;
    done.due = m->now + lat;
    fifo_pop(&m->wr);
    *fifo_push(&m->wb) = done;
  }
}

/* Put the next R beat of the head read burst on the bus. */
static void r_present(tsr_axi_mem_t *m) {
  burst_t *b = fifo_head(&m->rd);
  const unsigned bus = m->cfg.bus_bytes;
  const uint8_t resp = ((int32_t)b->beat == b->fault_beat) ? b->fault_resp : b->resp;
  m->rsp.rvalid = 1u;
  m->rsp.rresp = resp;
  m->rsp.rlast = (uint8_t)(b->beat + 1u == b->beats);
  if (resp == TSR_AXI_OKAY) {
    memcpy(m->rsp.rdata, m->data + b->base + (uint64_t)b->beat * bus, bus);
  } else {
    memset(m->rsp.rdata, 0, bus);
  }
}

static void r_next(tsr_axi_mem_t *m) {
  if (m->rd.count != 0u && fifo_head(&m->rd)->due <= m->now + 1u && !held_back(m, fifo_head(&m->rd)) &&
      !stall(m) && take_credits(m)) {
    r_present(m);
  } else {
    m->rsp.rvalid = 0u;
  }
}

static void w_next(tsr_axi_mem_t *m) {
  if (m->wr.count != 0u && !stall(m) && take_credits(m)) {
    m->rsp.wready = 1u;
    m->w_reserved = (m->cfg.bytes_per_cycle != 0u);
  } else {
    m->rsp.wready = 0u;
  }
}

/* ---- the clock ---------------------------------------------------------- */

/* True when a tick could change nothing but the cycle count: no request, no
 * burst in flight, ready to accept, no stalls to draw, bucket full. */
static bool idle(const tsr_axi_mem_t *m, const tsr_axi_req_t *q) {
  const tsr_axi_rsp_t *o = &m->rsp;
  return !(q->arvalid | q->awvalid | q->wvalid | o->rvalid | o->bvalid | o->wready) &&
         (m->rd.count | m->wr.count | m->wb.count) == 0u && o->arready && o->awready &&
         !(m->ar_wait | m->aw_wait | m->w_wait) && m->cfg.stall_pct == 0u &&
         m->credits == m->credit_cap;
}

const tsr_axi_rsp_t *tsr_axi_mem_tick(tsr_axi_mem_t *m, const tsr_axi_req_t *q) {
  tsr_axi_rsp_t *o = &m->rsp;

  if (idle(m, q)) {
    m->now++;
    return o;
  }

  if (m->ar_wait || m->aw_wait || m->w_wait) {
    check_stable(m, q);
  }
  const bool ar_hs = q->arvalid && o->arready;
  const bool aw_hs = q->awvalid && o->awready;
  const bool w_hs = q->wvalid && o->wready;
  const bool r_hs = o->rvalid && q->rready;
  const bool b_hs = o->bvalid && q->bready;
  hold_waiting(m, q);

  if (r_hs) {
    burst_t *b = fifo_head(&m->rd);
    m->stats.rd_beats++;
    if (o->rresp != TSR_AXI_OKAY && !b->err_sent) {
      b->err_sent = true;
      if (m->flog.rd_err_bursts++ == 0u) {
        m->flog.rd_first_addr = b->addr;
      }
    }
    b->beat++;
    b->delay_drawn = false;
    if (b->beat == b->beats) {
      if (b->err_sent) {
        m->stats.err_resps++;
      }
      fifo_pop(&m->rd);
    }
  }
  if (w_hs) {
    w_beat(m, q);
  }
  if (b_hs) {
    if (fifo_head(&m->wb)->resp != TSR_AXI_OKAY) {
      m->stats.err_resps++;
      if (m->flog.wr_err_bursts++ == 0u) {
        m->flog.wr_first_addr = fifo_head(&m->wb)->addr;
      }
    }
    fifo_pop(&m->wb);
  }
  if (ar_hs) {
    burst_t *b = fifo_push(&m->rd);
    accept_addr(m, true, q->araddr, q->arlen, q->arsize, q->arburst, b);
    b->due = m->now + (m->cfg.rd_latency ? m->cfg.rd_latency : 1u);
    m->stats.rd_bursts++;
  }
  if (aw_hs) {
    accept_addr(m, false, q->awaddr, q->awlen, q->awsize, q->awburst, fifo_push(&m->wr));
    m->stats.wr_bursts++;
  }

  /* Bandwidth: refund an unused W reservation, then refill the bucket. */
  if (m->cfg.bytes_per_cycle != 0u) {
    if (m->w_reserved && !w_hs) {
      m->credits += (int64_t)m->cfg.bus_bytes;
    }
    m->w_reserved = false;
    m->credits += (int64_t)m->cfg.bytes_per_cycle;
    if (m->credits > m->credit_cap) {
      m->credits = m->credit_cap;
    }
  }

  /* Outputs of the next cycle. A valid that was not taken stays as it is. */
  const bool r_hold = o->rvalid && !r_hs;
  const bool b_hold = o->bvalid && !b_hs;
  /* Under a bandwidth cap R and W share the credits round robin: the channel
   * that got a beat yields to the other the next time both want one. (A
   * per-cycle alternation locks onto the refill period when that is even, and
   * one channel then starves the other.) */
  bool r_new = false;
  if (m->prio_w) {
    w_next(m);
    if (!r_hold) {
      r_next(m);
      r_new = o->rvalid;
    }
  } else {
    if (!r_hold) {
      r_next(m);
      r_new = o->rvalid;
    }
    w_next(m);
  }
  if (o->wready && !r_new) {
    m->prio_w = false;
  } else if (r_new && !o->wready) {
    m->prio_w = true;
  }
  if (!b_hold) {
    if (m->wb.count != 0u && fifo_head(&m->wb)->due <= m->now + 1u &&
        !held_back(m, fifo_head(&m->wb)) && !stall(m)) {
      o->bvalid = 1u;
      o->bresp = fifo_head(&m->wb)->resp;
    } else {
      o->bvalid = 0u;
    }
  }
  o->arready = (uint8_t)(m->rd.count < TSR_AXI_MEM_MAX_OUTSTANDING && !stall(m));
  o->awready = (uint8_t)(m->wr.count + m->wb.count < TSR_AXI_MEM_MAX_OUTSTANDING && !stall(m));

  m->now++;
  return o;
}

/* ---- accessors ---------------------------------------------------------- */

const tsr_axi_rsp_t *tsr_axi_mem_rsp(const tsr_axi_mem_t *m) {
  return (m != NULL) ? &m->rsp : NULL;
}

static bool in_range(const tsr_axi_mem_t *m, uint64_t addr, size_t n) {
  return addr <= m->cfg.mem_size && (uint64_t)n <= m->cfg.mem_size - addr;
}

int tsr_axi_mem_write(tsr_axi_mem_t *m, uint64_t addr, const void *src, size_t n) {
  if (m == NULL || (src == NULL && n != 0u) || !in_range(m, addr, n)) {
    return -1;
  }
  if (n != 0u) {
    memcpy(m->data + addr, src, n);
  }
  return 0;
}

int tsr_axi_mem_read(const tsr_axi_mem_t *m, uint64_t addr, void *dst, size_t n) {
  if (m == NULL || (dst == NULL && n != 0u) || !in_range(m, addr, n)) {
    return -1;
  }
  if (n != 0u) {
    memcpy(dst, m->data + addr, n);
  }
  return 0;
}

void tsr_axi_mem_stats(const tsr_axi_mem_t *m, tsr_axi_mem_stats_t *st) {
  if (m == NULL || st == NULL) {
    return;
  }
  *st = m->stats;
}

void tsr_axi_mem_set_guard(tsr_axi_mem_t *m, uint64_t lo, uint64_t hi) {
  if (m != NULL) {
    m->guard_lo = lo;
    m->guard_hi = hi;
  }
}

uint64_t tsr_axi_mem_violations(const tsr_axi_mem_t *m, tsr_axi_viol_t kind) {
  if (m == NULL || (unsigned)kind >= (unsigned)TSR_AXI_VIOL_COUNT) {
    return 0u;
  }
  return m->viol[kind];
}

uint64_t tsr_axi_mem_cycle(const tsr_axi_mem_t *m) {
  return (m != NULL) ? m->now : 0u;
}

int tsr_axi_mem_set_faults(tsr_axi_mem_t *m, const tsr_axi_faults_t *f) {
  if (m == NULL) {
    return -1;
  }
  if (f != NULL && (f->rand_pct > 100u || f->delay_pct > 100u)) {
    fprintf(stderr, "tsr_axi_mem: fault percentages %u/%u must be 0..100\n", f->rand_pct,
            f->delay_pct);
    return -1;
  }
  memset(&m->faults, 0, sizeof m->faults);
  if (f != NULL) {
    m->faults = *f;
  }
  m->frng = seed_state(m->faults.seed);
  m->rd_seen = 0u;
  m->wr_seen = 0u;
  memset(&m->flog, 0, sizeof m->flog);
  return 0;
}

void tsr_axi_mem_fault_log(const tsr_axi_mem_t *m, tsr_axi_fault_log_t *log) {
  if (m == NULL || log == NULL) {
    return;
  }
  *log = m->flog;
}
