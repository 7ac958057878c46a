/* tsr_uart_sim.c: the API of tsr_uart_sim.h: clocking, reset and a bit-level UART line model on the board's pins. */
#include "tsr_uart_sim.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_uart_shim.h"

#ifndef TSR_USIM_ARRAY_DIM
#error "build with -DTSR_USIM_ARRAY_DIM=<N> and -DTSR_USIM_CLK_PER_BIT=<C>, the parameters Verilated"
#endif
#ifndef TSR_USIM_CLK_PER_BIT
#error "build with -DTSR_USIM_CLK_PER_BIT=<C>"
#endif

#define TSR_USIM_API __attribute__((visibility("default")))

#define QUEUE_BYTES (1u << 16)
#define RESET_CYCLES 8u

/* A byte queue (ring buffer). */
typedef struct byteq {
  uint8_t b[QUEUE_BYTES];
  size_t rd, n;
} byteq_t;

static bool q_put(byteq_t *q, uint8_t v) {
  if (q->n == QUEUE_BYTES) {
    return false;
  }
  q->b[(q->rd + q->n) % QUEUE_BYTES] = v;
  q->n++;
  return true;
}

static uint8_t q_get(byteq_t *q) {
  uint8_t v = q->b[q->rd];
  q->rd = (q->rd + 1u) % QUEUE_BYTES;
  q->n--;
  return v;
}

/* Serializer (host -> uart_rx_i) and deserializer (uart_tx_o -> host). */
typedef struct line_tx {
  int bit;        /* -1 idle; 0 start; 1..8 data bits; 9 stop */
  unsigned cnt;   /* cycles left in this bit */
  uint8_t byte;
} line_tx_t;

typedef struct line_rx {
  int bit;        /* -1 idle; 0 start (checking at half a bit); 1..8 data; 9 stop */
  unsigned cnt;   /* cycles to the next sample */
  uint8_t byte;
} line_rx_t;

struct tsr_usim {
  tsr_ushim_t *shim;
  tsr_upins_in_t in;
  tsr_upins_out_t out;
  byteq_t txq, rxq;
  line_tx_t ltx;
  line_rx_t lrx;
  unsigned rst_left;
  tsr_usim_stats_t st;
};

/* The level the serializer puts on uart_rx_i for the coming cycle. */
static uint8_t line_tx_tick(tsr_usim_t *u) {
  line_tx_t *t = &u->ltx;
  if (t->bit >= 0 && t->cnt == 0u) {
    t->bit++;
    t->cnt = TSR_USIM_CLK_PER_BIT;
    if (t->bit == 10) {
      t->bit = -1;
      u->st.bytes_to_dev++;
    }
  }
  if (t->bit < 0 && u->txq.n != 0u) {
    t->byte = q_get(&u->txq);
    t->bit = 0;
    t->cnt = TSR_USIM_CLK_PER_BIT;
  }
  if (t->bit < 0) {
    return 1u;
  }
  t->cnt--;
  if (t->bit == 0) {
    return 0u;
  }
  if (t->bit == 9) {
    return 1u;
  }
  return (uint8_t)((t->byte >> (t->bit - 1)) & 1u);
}

/* Sample uart_tx_o of the current cycle. */
static void line_rx_tick(tsr_usim_t *u) {
  line_rx_t *r = &u->lrx;
  const unsigned level = u->out.tx;
  if (r->bit < 0) {
    if (level == 0u) {
      r->bit = 0;
      r->cnt = TSR_USIM_CLK_PER_BIT / 2u - 1u;  /* to the middle of the start bit */
    }
    return;
  }
  if (r->cnt != 0u) {
    r->cnt--;
    return;
  }
  r->cnt = TSR_USIM_CLK_PER_BIT - 1u;
  if (r->bit == 0) {
    if (level != 0u) {
      r->bit = -1; /* a glitch, not a start bit */
      return;
    }
  } else if (r->bit <= 8) {
    r->byte = (uint8_t)((r->byte >> 1) | (level << 7));
  } else {
    if (level == 0u) {
      u->st.line_errors++;
    } else if (q_put(&u->rxq, r->byte)) {
      u->st.bytes_from_dev++;
    }
    r->bit = -1;
    return;
  }
  r->bit++;
}

static void usim_cycle(tsr_usim_t *u) {
  if (u->rst_left != 0u) {
    u->rst_left--;
    u->in.rst_n = (uint8_t)(u->rst_left == 0u);
    u->in.rx = 1u;
  } else {
    line_rx_tick(u);
    u->in.rx = line_tx_tick(u);
  }
  tsr_ushim_cycle(u->shim, &u->in, &u->out);
  u->st.cycles++;
  const uint8_t e = u->out.evt;
  if (e != 0u) {
    u->st.frames_ok += e & 1u;
    u->st.crc_errors += (e >> 1) & 1u;
    u->st.abandoned += (e >> 2) & 1u;
    u->st.framing_errors += (e >> 3) & 1u;
    u->st.replays += (e >> 4) & 1u;
    u->st.reg_writes += (e >> 5) & 1u;
    u->st.mem_writes += (e >> 6) & 1u;
  }
}

TSR_USIM_API tsr_usim_t *tsr_usim_open(const char *trace_path, char *err, size_t errlen) {
  tsr_usim_t *u = calloc(1, sizeof *u);
  if (u == NULL) {
    snprintf(err, errlen, "tsr_usim: out of memory");
    return NULL;
  }
  u->in.rst_n = 0u;
  u->in.rx = 1u;
  u->ltx.bit = -1;
  u->lrx.bit = -1;
  u->shim = tsr_ushim_create(trace_path, &u->in, &u->out, err, errlen);
  if (u->shim == NULL) {
    free(u);
    return NULL;
  }
  u->rst_left = RESET_CYCLES;
  tsr_usim_step(u, RESET_CYCLES + 2u);
  return u;
}

TSR_USIM_API tsr_usim_t *tsr_usim_create(const char *trace_path) {
  char err[256];
  tsr_usim_t *u = tsr_usim_open(trace_path, err, sizeof err);
  if (u == NULL) {
    fprintf(stderr, "%s\n", err);
  }
  return u;
}

TSR_USIM_API void tsr_usim_destroy(tsr_usim_t *u) {
  if (u == NULL) {
    return;
  }
  tsr_ushim_destroy(u->shim);
  free(u);
}

TSR_USIM_API int tsr_usim_send(tsr_usim_t *u, const uint8_t *src, size_t n) {
  if (u == NULL || (src == NULL && n != 0u) || n > QUEUE_BYTES - u->txq.n) {
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    (void)q_put(&u->txq, src[i]);
  }
  return 0;
}

TSR_USIM_API size_t tsr_usim_recv(tsr_usim_t *u, uint8_t *dst, size_t n, uint64_t max_cycles) {
  for (uint64_t c = 0; u->rxq.n == 0u && c < max_cycles; c++) {
    usim_cycle(u);
  }
  size_t k = 0;
  while (k < n && u->rxq.n != 0u) {
    dst[k++] = q_get(&u->rxq);
  }
  return k;
}

TSR_USIM_API void tsr_usim_step(tsr_usim_t *u, uint64_t cycles) {
  for (uint64_t c = 0; c < cycles; c++) {
    usim_cycle(u);
  }
}

TSR_USIM_API uint64_t tsr_usim_cycles(const tsr_usim_t *u) {
  return u->st.cycles;
}

TSR_USIM_API int tsr_usim_irq(const tsr_usim_t *u) {
  return u->out.irq;
}

TSR_USIM_API void tsr_usim_stats(const tsr_usim_t *u, tsr_usim_stats_t *st) {
  *st = u->st;
}

TSR_USIM_API unsigned tsr_usim_array_dim(void) {
  return TSR_USIM_ARRAY_DIM;
}

TSR_USIM_API unsigned tsr_usim_clk_per_bit(void) {
  return TSR_USIM_CLK_PER_BIT;
}
