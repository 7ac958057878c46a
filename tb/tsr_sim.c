/* tsr_sim.c: the simulator API of tsr_sim.h: clocking, AXI4-Lite master, memory model hookup, watchdog. */
#include "tsr_sim.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_axi_mem.h"
#include "tsr_sim_shim.h"

#ifndef TSR_SIM_ARRAY_DIM
#error "build with -DTSR_SIM_ARRAY_DIM=<N>, the ArrayDim the model was Verilated with"
#endif

#define TSR_SIM_API __attribute__((visibility("default")))

/* Cycles a register access may take before it counts as hung. */
#define AXIL_TIMEOUT_CYCLES 1000u
/* Longest random delay the AXI4-Lite master puts before a valid or ready. */
#define AXIL_MAX_DELAY 3u

/* The AXI4-Lite master: one transaction at a time, run by the register access
 * functions. Its outputs live in sim->in (they are registers: they change
 * only between cycles). */
typedef struct axil_master {
  bool busy;       /* a transaction is in progress */
  bool write;
  bool addr_todo;  /* AW or AR handshake still to come */
  bool data_todo;  /* W handshake still to come (writes) */
  bool done;       /* B or R handshake happened */
  unsigned addr_delay, data_delay, resp_delay;  /* cycles before the valid/ready goes up */
  int resp;
  uint32_t rdata;
} axil_master_t;

struct tsr_sim {
  tsr_sim_cfg_t cfg;
  tsr_shim_t *shim;
  tsr_axi_mem_t *mem;
  tsr_pins_in_t in;    /* between cycles: the inputs the next cycle will apply */
  tsr_pins_out_t out;  /* outputs of tsr_top in the current cycle */
  uint64_t cycles;
  unsigned rst_left;   /* cycles of reset still to run */
  axil_master_t axil;
  bool stale_b, stale_r; /* a timed-out write / read may still be answered */
  uint64_t rng;        /* xorshift64* state of the master's random delays */
};

/* ---- clocking ----------------------------------------------------------- */

static bool countdown(unsigned *delay) {
  if (*delay == 0u) {
    return true;
  }
  (*delay)--;
  return false;
}

/* Handshakes of the AXI4-Lite master in the current cycle, then its outputs
 * for the next one. A valid, once up, stays up until its handshake. The
 * response ready rises after the request handshakes (and a random delay); if
 * an earlier access timed out, it is also up before them, so that the late
 * answer is absorbed and ignored instead of blocking the bus. */
static void axil_tick(tsr_sim_t *s) {
  axil_master_t *a = &s->axil;
  tsr_pins_in_t *in = &s->in;
  const tsr_pins_out_t *o = &s->out;
  const bool resp_ours = !a->addr_todo && !a->data_todo;
  if (a->write) {
    if (in->awvalid && o->awready) {
      a->addr_todo = false;
    }
    if (in->wvalid && o->wready) {
      a->data_todo = false;
    }
    if (in->bready && o->bvalid) {
      if (resp_ours) {
        a->resp = o->bresp;
        a->done = true;
      } else {
        s->stale_b = false;
      }
    }
    in->awvalid = (uint8_t)(a->addr_todo && countdown(&a->addr_delay));
    in->wvalid = (uint8_t)(a->data_todo && countdown(&a->data_delay));
    if (a->addr_todo || a->data_todo) {
      in->bready = (uint8_t)s->stale_b;
    } else {
      in->bready = (uint8_t)(!a->done && countdown(&a->resp_delay));
    }
  } else {
    if (in->arvalid && o->arready) {
      a->addr_todo = false;
    }
    if (in->rready && o->rvalid) {
      if (resp_ours) {
        a->resp = o->rresp;
        a->rdata = o->rdata;
        a->done = true;
      } else {
        s->stale_r = false;
      }
    }
    in->arvalid = (uint8_t)(a->addr_todo && countdown(&a->addr_delay));
    if (a->addr_todo) {
      in->rready = (uint8_t)s->stale_r;
    } else {
      in->rready = (uint8_t)(!a->done && countdown(&a->resp_delay));
    }
  }
  if (a->done) {
    a->busy = false;
  }
}

/* One clock cycle. The C models see the DUT outputs of this cycle (stable
 * since the last falling edge) and their own current outputs, decide the
 * handshakes and their next outputs; then the rising edge lets the DUT see
 * the same inputs, and the new inputs go in with the falling edge. */
static void sim_cycle(tsr_sim_t *s) {
  if (s->rst_left != 0u) {
    s->rst_left--;
    s->in.rst_n = (uint8_t)(s->rst_left == 0u);
  } else {
    s->in.mem = *tsr_axi_mem_tick(s->mem, &s->out.mem);
    if (s->axil.busy) {
      axil_tick(s);
    }
  }
  tsr_shim_cycle(s->shim, &s->in, &s->out);
  s->cycles++;
}

/* ---- AXI4-Lite master ---------------------------------------------------- */

static uint64_t rng_next(tsr_sim_t *s) {
  uint64_t x = s->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  s->rng = x;
  return x * 0x2545F4914F6CDD1Dull;
}

/* 0..AXIL_MAX_DELAY cycles, each extra one with chance stall_pct. */
static unsigned random_delay(tsr_sim_t *s) {
  unsigned d = 0u;
  while (s->cfg.stall_pct != 0u && d < AXIL_MAX_DELAY &&
         (unsigned)((rng_next(s) >> 32) % 100u) < s->cfg.stall_pct) {
    d++;
  }
  return d;
}

static void axil_start(tsr_sim_t *s, bool write) {
  axil_master_t *a = &s->axil;
  memset(a, 0, sizeof *a);
  a->busy = true;
  a->write = write;
  a->addr_todo = true;
  a->data_todo = write;
  a->addr_delay = random_delay(s);
  a->data_delay = write ? random_delay(s) : 0u;
  a->resp_delay = random_delay(s);
}

/* Run the started transaction to its end. 0 when it finished; -1 after the
 * timeout. Then the valids drop (the bus is hung anyway) and the response
 * ready stays up, so that a late response is absorbed instead of blocking
 * the next access. */
static int axil_run(tsr_sim_t *s, const char *what, uint32_t addr) {
  uint64_t limit = AXIL_TIMEOUT_CYCLES;
  if (s->cfg.watchdog_cycles < limit) {
    limit = s->cfg.watchdog_cycles;
  }
  for (uint64_t n = 0; n < limit && s->axil.busy; n++) {
    sim_cycle(s);
  }
  if (s->axil.busy) {
    s->axil.busy = false;
    s->in.awvalid = 0u;
    s->in.wvalid = 0u;
    s->in.arvalid = 0u;
    if (s->axil.write) {
      s->stale_b = true;
      s->in.bready = 1u;
    } else {
      s->stale_r = true;
      s->in.rready = 1u;
    }
    fprintf(stderr, "tsr_sim: register %s at 0x%08x got no response within %llu cycles\n", what,
            addr, (unsigned long long)limit);
    return -1;
  }
  return 0;
}

/* ---- public API ---------------------------------------------------------- */

TSR_SIM_API void tsr_sim_cfg_default(tsr_sim_cfg_t *cfg) {
  if (cfg == NULL) {
    return;
  }
  memset(cfg, 0, sizeof *cfg);
  cfg->mem_size = TSR_SIM_DEFAULT_MEM_SIZE;
  cfg->rd_latency = TSR_SIM_DEFAULT_LATENCY;
  cfg->wr_latency = TSR_SIM_DEFAULT_LATENCY;
  cfg->watchdog_cycles = TSR_SIM_DEFAULT_WATCHDOG;
}

TSR_SIM_API tsr_sim_t *tsr_sim_open(const tsr_sim_cfg_t *cfg, char *err, size_t errlen) {
  if (cfg == NULL) {
    snprintf(err, errlen, "tsr_sim: no configuration given (use tsr_sim_cfg_default)");
    return NULL;
  }
  tsr_sim_t *s = calloc(1, sizeof *s);
  if (s == NULL) {
    snprintf(err, errlen, "tsr_sim: out of memory");
    return NULL;
  }
  s->cfg = *cfg;
  s->cfg.trace_path = NULL; /* only used here; the caller owns the string */
  if (s->cfg.watchdog_cycles == 0u) {
    s->cfg.watchdog_cycles = TSR_SIM_DEFAULT_WATCHDOG;
  }
  s->rng = ((uint64_t)cfg->seed << 32) ^ 0x6A09E667F3BCC909ull;

  tsr_axi_mem_cfg_t mc;
  tsr_axi_mem_cfg_default(&mc);
  mc.mem_size = cfg->mem_size;
  mc.bus_bytes = tsr_shim_axi_bytes();
  mc.rd_latency = cfg->rd_latency;
  mc.wr_latency = cfg->wr_latency;
  mc.bytes_per_cycle = cfg->bytes_per_cycle;
  mc.stall_pct = cfg->stall_pct;
  mc.seed = cfg->seed;
  mc.err_base = cfg->err_base;
  mc.err_size = cfg->err_size;
  s->mem = tsr_axi_mem_create(&mc);
  if (s->mem == NULL) {
    snprintf(err, errlen, "tsr_sim: the memory model refused its configuration (see the message above)");
    free(s);
    return NULL;
  }
  s->shim = tsr_shim_create(cfg->trace_path, &s->out, err, errlen);
  if (s->shim == NULL) {
    tsr_axi_mem_destroy(s->mem);
    free(s);
    return NULL;
  }
  tsr_sim_reset(s, 8u);
  return s;
}

TSR_SIM_API tsr_sim_t *tsr_sim_create(const tsr_sim_cfg_t *cfg) {
  char err[256];
  tsr_sim_t *s = tsr_sim_open(cfg, err, sizeof err);
  if (s == NULL) {
    fprintf(stderr, "%s\n", err);
  }
  return s;
}

TSR_SIM_API void tsr_sim_destroy(tsr_sim_t *sim) {
  if (sim == NULL) {
    return;
  }
  tsr_shim_destroy(sim->shim);
  tsr_axi_mem_destroy(sim->mem);
  free(sim);
}

TSR_SIM_API void tsr_sim_reset(tsr_sim_t *sim, unsigned cycles) {
  if (sim == NULL) {
    return;
  }
  if (cycles == 0u) {
    cycles = 1u;
  }
  /* Reset goes low at once; the bench's models drop their transactions and
   * idle while it is held, then rst_ni rises after `cycles` rising edges. */
  memset(&sim->axil, 0, sizeof sim->axil);
  sim->stale_b = false;
  sim->stale_r = false;
  tsr_axi_mem_reset(sim->mem);
  memset(&sim->in, 0, sizeof sim->in);
  tsr_shim_apply(sim->shim, &sim->in, &sim->out);
  sim->rst_left = cycles;
  while (sim->rst_left != 0u) {
    sim_cycle(sim);
  }
}

TSR_SIM_API void tsr_sim_step(tsr_sim_t *sim, uint64_t cycles) {
  if (sim == NULL) {
    return;
  }
  for (uint64_t n = 0; n < cycles; n++) {
    sim_cycle(sim);
  }
}

TSR_SIM_API int tsr_sim_reg_write(tsr_sim_t *sim, uint32_t addr, uint32_t data) {
  if (sim == NULL) {
    return -1;
  }
  axil_start(sim, true);
  sim->in.awaddr = addr;
  sim->in.wdata = data;
  sim->in.wstrb = 0xFu;
  if (axil_run(sim, "write", addr) != 0) {
    return -1;
  }
  return sim->axil.resp;
}

TSR_SIM_API int tsr_sim_reg_read(tsr_sim_t *sim, uint32_t addr, uint32_t *data) {
  if (sim == NULL || data == NULL) {
    return -1;
  }
  axil_start(sim, false);
  sim->in.araddr = addr;
  if (axil_run(sim, "read", addr) != 0) {
    return -1;
  }
  *data = sim->axil.rdata;
  return sim->axil.resp;
}

TSR_SIM_API int tsr_sim_irq(const tsr_sim_t *sim) {
  return (sim != NULL) ? (int)sim->out.irq : 0;
}

TSR_SIM_API int tsr_sim_wait_irq(tsr_sim_t *sim, uint64_t max_cycles) {
  if (sim == NULL) {
    return -1;
  }
  const uint64_t limit = (max_cycles != 0u) ? max_cycles : sim->cfg.watchdog_cycles;
  for (uint64_t n = 0;; n++) {
    if (sim->out.irq) {
      return 0;
    }
    if (n == limit) {
      fprintf(stderr, "watchdog: no interrupt after %llu cycles\n", (unsigned long long)n);
      return -1;
    }
    sim_cycle(sim);
  }
}

TSR_SIM_API int tsr_sim_mem_write(tsr_sim_t *sim, uint64_t addr, const void *src, size_t n) {
  if (sim == NULL) {
    return -1;
  }
  return tsr_axi_mem_write(sim->mem, addr, src, n);
}

TSR_SIM_API int tsr_sim_mem_read(tsr_sim_t *sim, uint64_t addr, void *dst, size_t n) {
  if (sim == NULL) {
    return -1;
  }
  return tsr_axi_mem_read(sim->mem, addr, dst, n);
}

TSR_SIM_API uint64_t tsr_sim_cycles(const tsr_sim_t *sim) {
  return (sim != NULL) ? sim->cycles : 0u;
}

TSR_SIM_API void tsr_sim_mem_stats(const tsr_sim_t *sim, tsr_sim_mem_stats_t *st) {
  if (sim == NULL || st == NULL) {
    return;
  }
  tsr_axi_mem_stats(sim->mem, st);
}

TSR_SIM_API unsigned tsr_sim_axi_active(const tsr_sim_t *sim) {
  if (sim == NULL) {
    return 0u;
  }
  const tsr_axi_req_t *q = &sim->out.mem;
  const tsr_axi_rsp_t *r = &sim->in.mem;
  return (q->arvalid ? TSR_SIM_AXI_ARVALID : 0u) | (q->awvalid ? TSR_SIM_AXI_AWVALID : 0u) |
         (q->wvalid ? TSR_SIM_AXI_WVALID : 0u) | (r->rvalid ? TSR_SIM_AXI_RVALID : 0u) |
         (r->bvalid ? TSR_SIM_AXI_BVALID : 0u);
}

TSR_SIM_API void tsr_sim_set_guard(tsr_sim_t *sim, uint64_t lo, uint64_t hi) {
  if (sim != NULL) {
    tsr_axi_mem_set_guard(sim->mem, lo, hi);
  }
}

TSR_SIM_API int tsr_sim_set_faults(tsr_sim_t *sim, const tsr_sim_faults_t *f) {
  if (sim == NULL) {
    return -1;
  }
  return tsr_axi_mem_set_faults(sim->mem, f);
}

TSR_SIM_API void tsr_sim_fault_log(const tsr_sim_t *sim, tsr_sim_fault_log_t *log) {
  if (sim == NULL || log == NULL) {
    return;
  }
  tsr_axi_mem_fault_log(sim->mem, log);
}

TSR_SIM_API unsigned tsr_sim_array_dim(void) {
  return TSR_SIM_ARRAY_DIM;
}
