/* tsr_lib_dev.c: libtessera devices (one spec string, every HAL backend), device memory, run figures. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_hal_host.h"
#include "tsr_lib_internal.h"
#include "tsr_sim.h"
#include "tsr_uart.h"

void tsr_lib_err(char *err, size_t errlen, const char *fmt, ...) {
  if (err == NULL || errlen == 0u) {
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  for (char *p = err; *p != '\0'; p++) {
    if (*p == '\n' || *p == '\r') {
      *p = ' ';
    }
  }
}

uint64_t tsr_lib_align_up(uint64_t x, uint64_t a) { return (x + a - 1u) / a * a; }

double tsr_lib_seconds_since(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t0->tv_sec) + 1e-9 * (double)(now.tv_nsec - t0->tv_nsec);
}

void tessera_open_opts_default(tessera_open_opts_t *o) {
  if (o == NULL) {
    return;
  }
  memset(o, 0, sizeof *o);
  o->dim = 8u;
  o->mem_latency = TSR_SIM_DEFAULT_LATENCY;
  o->seed = 1u;
  o->submit = TESSERA_SUBMIT_STREAM;
}

/* "sim:N" / "uart-sim:N": N after the prefix, else the default. -1 if N is not a number. */
static int spec_dim(const char *rest, unsigned dflt, unsigned *dim) {
  if (*rest == '\0') {
    *dim = dflt;
    return 0;
  }
  if (*rest != ':') {
    return -1;
  }
  char *end = NULL;
  unsigned long v = strtoul(rest + 1, &end, 10);
  if (end == rest + 1 || *end != '\0' || v == 0u || v > 128u) {
    return -1;
  }
  *dim = (unsigned)v;
  return 0;
}

static tsr_status_t open_sim(unsigned dim, const tessera_open_opts_t *o, tessera_dev_t *d,
                             char *err, size_t errlen) {
  tsr_sim_cfg_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.mem_size = TSR_SIM_DEFAULT_MEM_SIZE;
  while (cfg.mem_size < o->mem_bytes) {
    cfg.mem_size *= 2;
  }
  cfg.rd_latency = o->mem_latency;
  cfg.wr_latency = o->mem_latency;
  cfg.bytes_per_cycle = o->mem_bw;
  cfg.stall_pct = o->stall_pct;
  cfg.seed = o->seed;
  cfg.trace_path = o->trace_path;
  cfg.watchdog_cycles = TSR_SIM_DEFAULT_WATCHDOG;
  d->is_sim = true;
  d->mem_bytes = cfg.mem_size;
  return tsr_hal_sim_open(dim, &cfg, &d->hal, err, errlen);
}

static tsr_status_t open_hal(const char *spec, const tessera_open_opts_t *o, tessera_dev_t *d,
                             char *err, size_t errlen) {
  unsigned dim = 0;
  if (strncmp(spec, "sim", 3) == 0 && spec_dim(spec + 3, o->dim, &dim) == 0) {
    return open_sim(dim, o, d, err, errlen);
  }
  if (strncmp(spec, "soc", 3) == 0 && spec_dim(spec + 3, o->dim, &dim) == 0) {
    return tsr_lib_soc_open(dim, o, d, err, errlen);
  }
  tsr_status_t st;
  if (strncmp(spec, "uart:", 5) == 0) {
    st = tsr_hal_uart_open(spec, &d->hal, err, errlen);
  } else if (strncmp(spec, "uart-sim", 8) == 0 && spec_dim(spec + 8, o->dim, &dim) == 0) {
    tsr_uart_transport_t t;
    st = tsr_uart_simlink_open(dim, o->trace_path, &t, err, errlen);
    if (st == TSR_OK) {
      st = tsr_hal_uart_open_transport(&t, NULL, &d->hal, err, errlen);
    }
  } else {
    /* uio:, devmem:, and anything else: the devmem parser names what it expects. */
    return tsr_hal_devmem_open(spec, o->dma_spec, &d->hal, err, errlen);
  }
  tsr_uart_info_t info;
  if (st == TSR_OK && tsr_hal_uart_info(&d->hal, &info) == TSR_OK) {
    d->mem_bytes = info.mem_bytes;
  }
  return st;
}

tsr_status_t tessera_open(const char *spec, const tessera_open_opts_t *opts, tessera_dev_t **dev,
                          char *err, size_t errlen) {
  if (spec == NULL || dev == NULL) {
    tsr_lib_err(err, errlen, "tessera_open: no spec or no place for the device");
    return TSR_BAD_ARG;
  }
  *dev = NULL;
  tessera_open_opts_t o;
  if (opts != NULL) {
    o = *opts;
  } else {
    tessera_open_opts_default(&o);
  }
  tessera_dev_t *d = calloc(1, sizeof *d);
  if (d == NULL) {
    tsr_lib_err(err, errlen, "out of memory");
    return TSR_NO_MEMORY;
  }
  d->mem_hint = o.mem_hint != NULL ? o.mem_hint : "open the device with a DMA window (dma_spec)";
  d->submit = o.submit;
  tsr_status_t st = open_hal(spec, &o, d, err, errlen);
  if (st == TSR_OK && d->soc == NULL) {
    st = tsr_dev_open(&d->dev, &d->hal);
    if (st != TSR_OK) {
      const char *link = tsr_hal_uart_error(&d->hal);
      tsr_lib_err(err, errlen, "%s: %s%s%s", d->hal.ops->name, tsr_dev_error(&d->dev),
                  link[0] != '\0' ? "; " : "", link);
    }
  }
  if (st != TSR_OK) {
    tessera_close(d);
    return st;
  }
  if (d->is_sim) {
    d->dev.poll_limit = TSR_LIB_SIM_POLL_LIMIT;
  }
  *dev = d;
  return TSR_OK;
}

void tessera_close(tessera_dev_t *dev) {
  if (dev == NULL) {
    return;
  }
  tsr_hal_close(&dev->hal);
  free(dev);
}

tsr_status_t tessera_info(const tessera_dev_t *dev, tessera_info_t *info) {
  if (dev == NULL || info == NULL) {
    return TSR_BAD_ARG;
  }
  const tsr_dev_info_t *i = &dev->dev.info;
  memset(info, 0, sizeof *info);
  snprintf(info->backend, sizeof info->backend, "%s", dev->hal.ops->name);
  info->is_sim = dev->is_sim;
  info->id = i->id;
  info->version = i->version;
  info->dim = i->dim;
  info->axi_bytes = i->axi_bytes;
  info->cmdq_depth = i->cmdq_depth;
  info->spad_rows = i->spad_rows;
  info->acc_rows = i->acc_rows;
  info->has_sfu = i->has_sfu;
  info->store_lanes = i->store_lanes;
  info->mem_bytes = dev->mem_bytes;
  return TSR_OK;
}

bool tsr_lib_streams(const tessera_dev_t *d) {
  return d->submit == TESSERA_SUBMIT_STREAM && d->mem_bytes != 0u;
}

void tessera_set_submit(tessera_dev_t *dev, tessera_submit_t submit) {
  if (dev != NULL) {
    dev->submit = submit;
  }
}

tsr_dev_t *tessera_driver(tessera_dev_t *dev) { return dev != NULL ? &dev->dev : NULL; }

void tsr_lib_dev_err(const tessera_dev_t *d, const char *what, char *err, size_t errlen) {
  tsr_lib_err(err, errlen, "%s%s", what, tsr_dev_error(&d->dev));
}

/* ---- Device memory -------------------------------------------------------------------- */

void tessera_arena_init(tessera_arena_t *a) { a->next = TESSERA_MEM_BASE; }

uint64_t tessera_arena_take(tessera_arena_t *a, uint64_t bytes) {
  const uint64_t at = a->next;
  a->next = tsr_lib_align_up(at + bytes, TESSERA_MEM_ALIGN);
  return at;
}

uint64_t tessera_arena_end(const tessera_arena_t *a) { return a->next; }

tsr_status_t tsr_lib_fits(uint64_t end, const char *what, const char *tail, char *err,
                          size_t errlen) {
  if (end > (1ull << 32)) {
    tsr_lib_err(err, errlen, "%s need %" PRIu64 " bytes of external memory; addresses are 32-bit%s",
                what, end, tail);
    return TSR_BAD_ARG;
  }
  return TSR_OK;
}

tsr_status_t tessera_upload(tessera_dev_t *dev, uint64_t addr, const void *src, size_t n,
                            const char *what, char *err, size_t errlen) {
  if (dev == NULL) {
    tsr_lib_err(err, errlen, "no device");
    return TSR_BAD_ARG;
  }
  tsr_status_t st = tsr_hal_mem_write(&dev->hal, addr, src, n);
  if (st != TSR_OK) {
    tsr_lib_err(err, errlen, "writing %s (%zu bytes at 0x%08" PRIx64 ") into device memory failed: %s%s%s%s",
                what != NULL ? what : "data", n, addr, tsr_status_str(st),
                st == TSR_UNSUPPORTED ? " (" : "", st == TSR_UNSUPPORTED ? dev->mem_hint : "",
                st == TSR_UNSUPPORTED ? ")" : "");
  }
  return st;
}

tsr_status_t tsr_lib_upload_all(tessera_dev_t *dev, const tsr_lib_upload_t *up, size_t n,
                                char *err, size_t errlen) {
  for (size_t i = 0; i < n; i++) {
    if (up[i].when) {
      tsr_status_t st = tessera_upload(dev, up[i].addr, up[i].src, up[i].n, up[i].what, err, errlen);
      if (st != TSR_OK) {
        return st;
      }
    }
  }
  return TSR_OK;
}

tsr_status_t tessera_download(tessera_dev_t *dev, uint64_t addr, void *dst, size_t n, char *err,
                              size_t errlen) {
  if (dev == NULL) {
    tsr_lib_err(err, errlen, "no device");
    return TSR_BAD_ARG;
  }
  tsr_status_t st = tsr_hal_mem_read(&dev->hal, addr, dst, n);
  if (st != TSR_OK) {
    tsr_lib_err(err, errlen, "reading the result back failed: %s", tsr_status_str(st));
  }
  return st;
}

/* ---- Figures ------------------------------------------------------------------------------ */

void tessera_time_classes(const tsr_counters_t *c, tessera_time_class_t out[TESSERA_TIME_CLASSES]) {
  const tessera_time_class_t t[TESSERA_TIME_CLASSES] = {
      {"compute", "compute", c->array},
      {"fill", "pipeline fill and drain", c->fill},
      {"load_wait", "waiting on DMA read", c->load_wait},
      {"store", "store", c->store},
      {"sfu", "SFU", c->sfu},
      {"control", "command control", c->ctrl}};
  memcpy(out, t, sizeof t);
}

tsr_status_t tsr_lib_begin(tessera_dev_t *d, uint64_t end, uint64_t cmds, char *err,
                           size_t errlen) {
  d->reg_acc0 = tsr_host_reg_accesses(&d->dev);
  tsr_status_t st;
  if ((st = tsr_soft_reset(&d->dev)) != TSR_OK || (st = tsr_counters_clear(&d->dev)) != TSR_OK) {
    tsr_lib_dev_err(d, "", err, errlen);
    return st;
  }
  if (!tsr_lib_streams(d)) {
    return TSR_OK;
  }
  /* One slot per command plus the one a full ring keeps free, then a slot of slack. */
  const uint64_t base = tsr_lib_align_up(end, TSR_RING_CMD_BYTES);
  const uint64_t top = d->mem_bytes < (1ull << 32) ? d->mem_bytes : (1ull << 32);
  uint64_t size = (cmds + 2u) * TSR_RING_CMD_BYTES;
  if (base + size > top) {
    size = base < top ? (top - base) / TSR_RING_CMD_BYTES * TSR_RING_CMD_BYTES : 0u;
  }
  if (size < TSR_RING_MIN_BYTES) {
    return TSR_OK; /* no room: the registers */
  }
  memset(&d->ring, 0, sizeof d->ring);
  if ((st = tsr_ring_attach(&d->dev, &d->ring, (uint32_t)base, (uint32_t)size)) != TSR_OK) {
    tsr_lib_dev_err(d, "attaching the command ring: ", err, errlen);
    return st;
  }
  /* The simulator's memory writes take no simulated time, so the whole job goes out with
   * one RING_TAIL write at the end; a real link keeps the driver's batches, which let the
   * chip start while the host still writes commands. */
  if (d->is_sim) {
    d->ring.batch = 0u;
  }
  return TSR_OK;
}

tsr_status_t tsr_lib_end(tessera_dev_t *d, const struct timespec *t0, uint64_t cyc0,
                         tessera_figures_t *fig, char *err, size_t errlen) {
  fig->wall_seconds = tsr_lib_seconds_since(t0);
  fig->sim_cycles = tsr_hal_cycles(&d->hal) - cyc0;
  fig->streamed = d->dev.path != NULL;
  tsr_status_t st = tsr_counters_read(&d->dev, &fig->cnt);
  if (st != TSR_OK) {
    tsr_lib_dev_err(d, "reading counters: ", err, errlen);
  } else if (fig->streamed && (st = tsr_ring_detach(&d->dev)) != TSR_OK) {
    tsr_lib_dev_err(d, "detaching the command ring: ", err, errlen);
  }
  fig->host_reg_accesses = tsr_host_reg_accesses(&d->dev) - d->reg_acc0;
  return st;
}
