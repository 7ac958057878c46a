/* tsr_uart_simlink.c: UART link transport into the in-process simulation of fpga/tsr_uart_top.v (dlopen), with fault injection. */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsr_hal_host.h"
#include "tsr_uart.h"
#include "tsr_uart_sim.h"

/*
 * The library (tb/tsr_uart_sim.h) serializes the bytes given to send onto the
 * bridge's uart_rx_i pin, bit by bit at its baud divisor, and decodes
 * uart_tx_o; this transport converts character times into clock cycles
 * (10 bits x the divisor) and lets the clock run only while the HAL waits
 * for a reply. Faults act on whole bytes at the line: a byte to the board is
 * XORed or never sent; a byte from the board is XORed or lost.
 */

#define SIMLINK_MAX_FAULTS 16

typedef struct usim_api {
  tsr_usim_t *(*open)(const char *, char *, size_t);
  void (*destroy)(tsr_usim_t *);
  int (*send)(tsr_usim_t *, const uint8_t *, size_t);
  size_t (*recv)(tsr_usim_t *, uint8_t *, size_t, uint64_t);
  void (*step)(tsr_usim_t *, uint64_t);
  uint64_t (*cycles)(const tsr_usim_t *);
  void (*stats)(const tsr_usim_t *, tsr_usim_stats_t *);
  unsigned (*array_dim)(void);
  unsigned (*clk_per_bit)(void);
} usim_api_t;

typedef struct simlink {
  void *lib;
  tsr_usim_t *sim;
  usim_api_t api;
  uint64_t cycles_per_char;
  tsr_uart_fault_t fault[SIMLINK_MAX_FAULTS];
  bool armed[SIMLINK_MAX_FAULTS];
  uint64_t base[SIMLINK_MAX_FAULTS]; /* byte count of the fault's direction when armed */
  uint64_t count[2];                 /* bytes so far: [0] to the board, [1] to the host */
  uint64_t faults;
} simlink_t;

/* Apply armed faults to one byte going in direction `to_host`; false: drop it. */
static bool apply_faults(simlink_t *l, bool to_host, uint8_t *b) {
  const int dir = to_host ? 1 : 0;
  bool keep = true;
  for (int i = 0; i < SIMLINK_MAX_FAULTS; i++) {
    if (l->armed[i] && l->fault[i].to_host == to_host &&
        l->count[dir] == l->base[i] + l->fault[i].at) {
      l->armed[i] = false;
      l->faults++;
      if (l->fault[i].xor_mask == 0u) {
        keep = false;
      } else {
        *b ^= l->fault[i].xor_mask;
      }
    }
  }
  l->count[dir]++;
  return keep;
}

static tsr_status_t link_send(void *ctx, const uint8_t *src, size_t n) {
  simlink_t *l = ctx;
  for (size_t i = 0; i < n; i++) {
    uint8_t b = src[i];
    if (apply_faults(l, false, &b) && l->api.send(l->sim, &b, 1u) != 0) {
      return TSR_IO;
    }
  }
  return TSR_OK;
}

static tsr_status_t link_recv(void *ctx, uint8_t *dst, size_t n, uint32_t timeout_chars,
                              size_t *got) {
  simlink_t *l = ctx;
  *got = 0u;
  uint64_t budget = (uint64_t)timeout_chars * l->cycles_per_char;
  uint64_t start = l->api.cycles(l->sim);
  for (;;) {
    uint64_t used = l->api.cycles(l->sim) - start;
    if (used >= budget) {
      return TSR_OK;
    }
    size_t k = l->api.recv(l->sim, dst, n, budget - used);
    size_t kept = 0;
    for (size_t i = 0; i < k; i++) {
      uint8_t b = dst[i];
      if (apply_faults(l, true, &b)) {
        dst[kept++] = b;
      }
    }
    if (kept != 0u) {
      *got = kept;
      return TSR_OK;
    }
    if (k == 0u) {
      return TSR_OK;
    }
  }
}

static uint64_t link_cycles(void *ctx) {
  simlink_t *l = ctx;
  return l->api.cycles(l->sim);
}

static void link_close(void *ctx) {
  simlink_t *l = ctx;
  if (l == NULL) {
    return;
  }
  if (l->sim != NULL) {
    l->api.destroy(l->sim);
  }
  if (l->lib != NULL) {
    dlclose(l->lib);
  }
  free(l);
}

static const tsr_uart_transport_ops_t k_simlink_ops = {
    .name = "uart-sim",
    .send = link_send,
    .recv = link_recv,
    .cycles = link_cycles,
    .close = link_close,
};


#define LOAD_SYM(field, name)                                                                   \
  do {                                                                                          \
    *(void **)(&l->api.field) = dlsym(l->lib, name);                                            \
    if (l->api.field == NULL) {                                                                 \
      snprintf(err, errlen, "%s does not export %s: rebuild it with 'make uart-sim DIM=%u'", path, \
               name, dim);                                                                      \
      link_close(l);                                                                            \
      return TSR_NO_DEVICE;                                                                     \
    }                                                                                           \
  } while (0)

tsr_status_t tsr_uart_simlink_open(unsigned dim, const char *trace_path, tsr_uart_transport_t *t,
                                   char *err, size_t errlen) {
  char dummy[8];
  if (err == NULL || errlen == 0u) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  if (t == NULL || dim == 0u || dim > 255u) {
    snprintf(err, errlen, "uart-sim: bad arguments (dim %u)", dim);
    return TSR_BAD_ARG;
  }
  char dir[PATH_MAX];
  if (tsr_host_lib_dir("TSR_UART_LIB_DIR", "uart/lib", "the UART board simulation", dir,
                       sizeof dir, err, errlen) != 0) {
    return TSR_NO_DEVICE;
  }
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/libtsruart_d%u.so", dir, dim);
  if (access(path, R_OK) != 0) {
    snprintf(err, errlen, "no UART board simulation for --dim %u (%s); run 'make uart-sim DIM=%u'",
             dim, path, dim);
    return TSR_NO_DEVICE;
  }
  simlink_t *l = calloc(1, sizeof *l);
  if (l == NULL) {
    snprintf(err, errlen, "uart-sim: out of memory");
    return TSR_NO_MEMORY;
  }
  l->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (l->lib == NULL) {
    const char *why = dlerror();
    snprintf(err, errlen, "cannot load %s: %s", path, why != NULL ? why : "unknown error");
    free(l);
    return TSR_NO_DEVICE;
  }
  LOAD_SYM(open, "tsr_usim_open");
  LOAD_SYM(destroy, "tsr_usim_destroy");
  LOAD_SYM(send, "tsr_usim_send");
  LOAD_SYM(recv, "tsr_usim_recv");
  LOAD_SYM(step, "tsr_usim_step");
  LOAD_SYM(cycles, "tsr_usim_cycles");
  LOAD_SYM(stats, "tsr_usim_stats");
  LOAD_SYM(array_dim, "tsr_usim_array_dim");
  LOAD_SYM(clk_per_bit, "tsr_usim_clk_per_bit");
  if (l->api.array_dim() != dim) {
    snprintf(err, errlen, "%s was built for an array of %u, not %u", path, l->api.array_dim(), dim);
    link_close(l);
    return TSR_NO_DEVICE;
  }
  l->cycles_per_char = 10u * (uint64_t)l->api.clk_per_bit();
  l->sim = l->api.open(trace_path, err, errlen);
  if (l->sim == NULL) {
    link_close(l);
    return TSR_NO_DEVICE;
  }
  t->ops = &k_simlink_ops;
  t->ctx = l;
  return TSR_OK;
}

tsr_status_t tsr_uart_simlink_fault(const tsr_uart_transport_t *t, const tsr_uart_fault_t *f) {
  if (t == NULL || t->ops != &k_simlink_ops || f == NULL) {
    return TSR_UNSUPPORTED;
  }
  simlink_t *l = t->ctx;
  for (int i = 0; i < SIMLINK_MAX_FAULTS; i++) {
    if (!l->armed[i]) {
      l->armed[i] = true;
      l->fault[i] = *f;
      l->base[i] = l->count[f->to_host ? 1 : 0];
      return TSR_OK;
    }
  }
  return TSR_BAD_STATE;
}

tsr_status_t tsr_uart_simlink_stats(const tsr_uart_transport_t *t, tsr_uart_simlink_stats_t *st) {
  if (t == NULL || t->ops != &k_simlink_ops || st == NULL) {
    return TSR_UNSUPPORTED;
  }
  simlink_t *l = t->ctx;
  tsr_usim_stats_t u;
  l->api.stats(l->sim, &u);
  memset(st, 0, sizeof *st);
  st->cycles = u.cycles;
  st->bytes_to_dev = u.bytes_to_dev;
  st->bytes_from_dev = u.bytes_from_dev;
  st->faults = l->faults;
  st->frames_ok = u.frames_ok;
  st->crc_errors = u.crc_errors;
  st->abandoned = u.abandoned;
  st->framing_errors = u.framing_errors;
  st->replays = u.replays;
  st->reg_writes = u.reg_writes;
  st->mem_writes = u.mem_writes;
  return TSR_OK;
}
