/* tsr_soc_sim.c: the SoC bench of tsr_soc_sim.h: clocking, RAM back door, memory model hookup, run and watchdog. */
#include "tsr_soc_sim.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_axi_mem.h"
#include "tsr_soc_shim.h"

#ifndef TSR_SSIM_ARRAY_DIM
#error "build with -DTSR_SSIM_ARRAY_DIM=<N> and -DTSR_SSIM_RAM_BYTES=<bytes>, the model's parameters"
#endif

#define TSR_SSIM_API __attribute__((visibility("default")))

/* Cycles of reset before and after the back-door loads. */
#define RESET_CYCLES 8u

struct tsr_ssim {
  tsr_ssim_cfg_t cfg;
  tsr_sshim_t *shim;
  tsr_axi_mem_t *mem;
  tsr_spins_in_t in;    /* the inputs the next cycle will apply */
  tsr_spins_out_t out;  /* outputs of tsr_soc in the current cycle */
  bool running;         /* reset released */
  uint64_t cycles;      /* since reset was released */
};

/* One clock cycle, as tb/tsr_sim.c's: the memory model sees this cycle's requests and its
 * own outputs, decides the handshakes and its next outputs; the rising edge lets the SoC
 * see the same inputs; the new inputs go in with the falling edge. */
static void ssim_cycle(tsr_ssim_t *s) {
  if (s->running) {
    s->in.mem = *tsr_axi_mem_tick(s->mem, &s->out.mem);
  }
  tsr_sshim_cycle(s->shim, &s->in, &s->out);
  if (s->running) {
    s->cycles++;
  }
}

TSR_SSIM_API void tsr_ssim_cfg_default(tsr_ssim_cfg_t *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->mem_size = 64ull << 20;
  cfg->rd_latency = 10u;
  cfg->wr_latency = 10u;
}

TSR_SSIM_API tsr_ssim_t *tsr_ssim_open(const tsr_ssim_cfg_t *cfg, char *err, size_t errlen) {
  tsr_ssim_t *s = calloc(1, sizeof *s);
  if (s == NULL) {
    snprintf(err, errlen, "tsr_ssim: out of memory");
    return NULL;
  }
  if (cfg != NULL) {
    s->cfg = *cfg;
  } else {
    tsr_ssim_cfg_default(&s->cfg);
  }
  tsr_axi_mem_cfg_t mc;
  tsr_axi_mem_cfg_default(&mc);
  mc.mem_size = s->cfg.mem_size;
  mc.bus_bytes = tsr_sshim_axi_bytes();
  mc.rd_latency = s->cfg.rd_latency;
  mc.wr_latency = s->cfg.wr_latency;
  mc.stall_pct = s->cfg.stall_pct;
  mc.seed = s->cfg.seed;
  s->mem = tsr_axi_mem_create(&mc);
  if (s->mem == NULL) {
    snprintf(err, errlen, "tsr_ssim: cannot create the memory model (%llu bytes)",
             (unsigned long long)mc.mem_size);
    free(s);
    return NULL;
  }
  s->shim = tsr_sshim_create(s->cfg.trace_path, &s->out, err, errlen);
  if (s->shim == NULL) {
    tsr_axi_mem_destroy(s->mem);
    free(s);
    return NULL;
  }
  memset(&s->in, 0, sizeof s->in);  /* rst_n = 0 */
  for (unsigned i = 0; i < RESET_CYCLES; i++) {
    ssim_cycle(s);
  }
  return s;
}

TSR_SSIM_API void tsr_ssim_destroy(tsr_ssim_t *s) {
  if (s == NULL) {
    return;
  }
  tsr_sshim_destroy(s->shim);
  tsr_axi_mem_destroy(s->mem);
  free(s);
}

TSR_SSIM_API int tsr_ssim_load_ram(tsr_ssim_t *s, uint32_t addr, const void *src, size_t n) {
  if (s->running || addr > TSR_SSIM_RAM_BYTES || n > TSR_SSIM_RAM_BYTES - addr) {
    return -1;
  }
  const uint8_t *p = src;
  uint32_t a = addr;
  size_t left = n;
  while (left > 0u) {
    /* a word at a time; the back door writes whole words, so the bytes of a partial
     * word at either end that lie outside [addr, addr+n) are written as 0 */
    uint32_t word_addr = a & ~3u;
    uint8_t le[4] = {0, 0, 0, 0}; /* the RAM word's bytes, little-endian */
    unsigned off = a & 3u;
    size_t take = 4u - off < left ? 4u - off : left;
    memcpy(le + off, p, take);
    s->in.load_we = 1;
    s->in.load_addr = word_addr;
    s->in.load_wdata = (uint32_t)le[0] | (uint32_t)le[1] << 8 | (uint32_t)le[2] << 16 | (uint32_t)le[3] << 24;
    ssim_cycle(s);
    p += take;
    a += (uint32_t)take;
    left -= take;
  }
  s->in.load_we = 0;
  ssim_cycle(s);  /* the last word written */
  return 0;
}

TSR_SSIM_API int tsr_ssim_mem_write(tsr_ssim_t *s, uint64_t addr, const void *src, size_t n) {
  return tsr_axi_mem_write(s->mem, addr, src, n);
}

TSR_SSIM_API int tsr_ssim_mem_read(const tsr_ssim_t *s, uint64_t addr, void *dst, size_t n) {
  return tsr_axi_mem_read(s->mem, addr, dst, n);
}

TSR_SSIM_API int tsr_ssim_reset(tsr_ssim_t *s) {
  if (s->running && !s->out.exit_valid) {
    return -1;
  }
  memset(&s->in, 0, sizeof s->in); /* rst_n = 0 */
  s->running = false;
  for (unsigned i = 0; i < RESET_CYCLES; i++) {
    ssim_cycle(s);
  }
  s->cycles = 0u;
  return 0;
}

TSR_SSIM_API tsr_ssim_end_t tsr_ssim_run(tsr_ssim_t *s, uint64_t max_cycles, tsr_ssim_result_t *res) {
  if (!s->running) {
    s->in.load_we = 0;
    s->in.rst_n = 1;
    s->running = true;
  }
  tsr_ssim_end_t end = TSR_SSIM_WATCHDOG;
  for (uint64_t i = 0; i < max_cycles; i++) {
    ssim_cycle(s);
    if (s->out.console_valid && s->cfg.console != NULL) {
      s->cfg.console(s->cfg.console_user, (char)s->out.console_data);
    }
    if (s->out.exit_valid) {
      end = TSR_SSIM_EXIT;
      break;
    }
    if (s->out.fault) {
      end = TSR_SSIM_FAULT;
      break;
    }
    if (s->out.trap) {
      end = TSR_SSIM_TRAP;
      break;
    }
  }
  memset(res, 0, sizeof *res);
  res->end = end;
  res->exit_code = s->out.exit_code;
  res->pc = s->out.insn_pc;
  res->fetch_pc = s->out.pc;
  res->fault_addr = s->out.fault_addr;
  res->fault_resp = s->out.fault_resp;
  res->cycles = s->cycles;
  res->irq = s->out.irq;
  res->chip_status = s->out.chip_status;
  res->chip_err = s->out.chip_err;
  return end;
}

TSR_SSIM_API void tsr_ssim_mem_stats(const tsr_ssim_t *s, tsr_axi_mem_stats_t *st) {
  tsr_axi_mem_stats(s->mem, st);
}

TSR_SSIM_API uint32_t tsr_ssim_ram_bytes(void) {
  return TSR_SSIM_RAM_BYTES;
}

TSR_SSIM_API unsigned tsr_ssim_array_dim(void) {
  return TSR_SSIM_ARRAY_DIM;
}
