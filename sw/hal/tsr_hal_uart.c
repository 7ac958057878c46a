/* tsr_hal_uart.c: HAL backend over the UART host link: stop-and-wait requests with retries, writes exactly once. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsr_hal_host.h"
#include "tsr_uart.h"

/*
 * Each operation gets the next SEQ; every attempt of it uses that SEQ, so the
 * board can tell a retry from a new write (docs/fpga.md, "Retries"). An
 * attempt fails, and the request is sent again after the line has been quiet
 * for the board's inter-byte timeout plus the attempt's own frame, when:
 *   - no complete reply arrives in time (request or reply damaged or cut),
 *   - the reply's CRC fails, or it is too long for the expected answer,
 *   - the reply is STATUS CRC (the board saw a damaged request).
 * A reply with another SEQ is stale (an answer to an earlier attempt that
 * arrived late) and is skipped. Every other reply is final.
 */

#define UART_DEFAULT_ATTEMPTS 8u
#define UART_DEFAULT_SLACK 16u
#define UART_GAP_CHARS 16u          /* longest pause inside a reply */
#define UART_OPEN_RX_TIMEOUT 1024u  /* bit times assumed before INFO is known */
#define UART_MAX_DRAIN_ROUNDS 4096u /* reads while waiting for a quiet line */
#define UART_ERRLEN 256u

typedef struct uart_ctx {
  tsr_uart_transport_t t;
  tsr_uart_link_cfg_t cfg;
  tsr_uart_info_t info;
  bool have_info;
  uint8_t seq;
  tsr_uart_stats_t st;
  uint8_t *frame;      /* request frame buffer */
  size_t frame_cap;
  uint8_t *rdata;      /* reply data buffer */
  size_t rdata_cap;
  char err[UART_ERRLEN];
} uart_ctx_t;

static void set_err(uart_ctx_t *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->err, sizeof c->err, fmt, ap);
  va_end(ap);
}

/* Quiet time before a retry: the board's inter-byte timeout plus two characters, in characters. */
static uint32_t quiet_chars(const uart_ctx_t *c) {
  uint32_t bits = c->have_info ? c->info.rx_timeout_bits : UART_OPEN_RX_TIMEOUT;
  return (bits + 20u + 9u) / 10u;
}

/* Read and discard until nothing arrives for quiet_chars() plus `sent_chars`: the frame
 * just sent may still be on the line (a board that NAKs a frame whose LEN was damaged
 * smaller answers before the frame's end), and the bridge must have given up whatever it
 * made of that frame's rest before the retry starts. */
static tsr_status_t drain(uart_ctx_t *c, size_t sent_chars) {
  uint8_t junk[256];
  for (uint32_t round = 0; round < UART_MAX_DRAIN_ROUNDS; round++) {
    size_t got = 0;
    tsr_status_t st =
        c->t.ops->recv(c->t.ctx, junk, sizeof junk, quiet_chars(c) + (uint32_t)sent_chars, &got);
    if (st != TSR_OK) {
      set_err(c, "uart: %s: reading the line failed", c->t.ops->name);
      return st;
    }
    c->st.bytes_received += got;
    if (got == 0u) {
      return TSR_OK;
    }
  }
  set_err(c, "uart: %s: the line never went quiet (a babbling device or a wrong baud rate?)",
          c->t.ops->name);
  return TSR_IO;
}

/* Why one attempt failed. */
typedef enum attempt_fail { AF_NONE = 0, AF_TIMEOUT, AF_NAK, AF_BAD_REPLY } attempt_fail_t;

/* Send the frame once and wait for its reply. TSR_OK with *af == AF_NONE: a final
 * reply is in dec (status in dec->code). TSR_OK with *af set: retry. Other status: the
 * transport failed. */
static tsr_status_t attempt(uart_ctx_t *c, size_t frame_len, uint8_t seq, size_t expect_data,
                            tsr_uart_dec_t *dec, attempt_fail_t *af) {
  *af = AF_NONE;
  tsr_status_t st = c->t.ops->send(c->t.ctx, c->frame, frame_len);
  if (st != TSR_OK) {
    set_err(c, "uart: %s: sending a frame failed", c->t.ops->name);
    return st;
  }
  c->st.frames_sent++;
  c->st.bytes_sent += frame_len;
  const size_t reply_len = TSR_UART_RSP_HDR + expect_data + TSR_UART_CRC_BYTES;
  /* The first byte may take the whole request and the whole reply (the simulated line
   * sends the request only while we wait), plus the board's bus work: a few clock
   * cycles per data byte, which is a lot of characters at a small baud divisor;
   * later bytes come back to back. */
  const size_t data_len = frame_len - TSR_UART_REQ_HDR - TSR_UART_CRC_BYTES + expect_data;
  const uint32_t cpb = c->have_info && c->info.clk_per_bit != 0u ? c->info.clk_per_bit : 868u;
  const uint32_t bus_chars = (uint32_t)((4u * data_len + 256u) / (10u * (uint64_t)cpb)) + 1u;
  uint32_t first = (uint32_t)(frame_len + reply_len) + bus_chars + c->cfg.slack_chars;
  /* A babbling line cannot hold us: read at most a few replies' worth. */
  size_t budget = 4u * reply_len + 64u;
  tsr_uart_dec_reset(dec);
  bool started = false;
  while (budget > 0u) {
    uint8_t buf[64];
    size_t want = budget < sizeof buf ? budget : sizeof buf;
    size_t got = 0;
    st = c->t.ops->recv(c->t.ctx, buf, want, started ? UART_GAP_CHARS + c->cfg.slack_chars : first,
                        &got);
    if (st != TSR_OK) {
      set_err(c, "uart: %s: reading the line failed", c->t.ops->name);
      return st;
    }
    if (got == 0u) {
      *af = AF_TIMEOUT;
      return TSR_OK;
    }
    c->st.bytes_received += got;
    budget -= got < budget ? got : budget;
    for (size_t i = 0; i < got; i++) {
      started = true;
      tsr_uart_dec_result_t r = tsr_uart_dec_feed(dec, buf[i]);
      if (r == TSR_UART_DEC_MORE) {
        continue;
      }
      if (r == TSR_UART_DEC_BAD_CRC || r == TSR_UART_DEC_TOO_LONG) {
        c->st.bad_replies++;
        *af = AF_BAD_REPLY;
        return TSR_OK;
      }
      /* A complete reply with a good CRC. */
      if (dec->code == TSR_UART_STS_CRC) {
        c->st.naks++;
        *af = AF_NAK;
        return TSR_OK;
      }
      if (dec->seq != seq) {
        c->st.stale_replies++;
        continue;
      }
      return TSR_OK;
    }
  }
  c->st.bad_replies++;
  *af = AF_BAD_REPLY;
  return TSR_OK;
}

/* One operation with retries. On TSR_OK, dec holds the final reply. */
static tsr_status_t transact(uart_ctx_t *c, uint8_t cmd, uint32_t addr, uint16_t len,
                             const uint8_t *payload, size_t expect_data, tsr_uart_dec_t *dec) {
  const uint8_t seq = c->seq++;
  c->st.requests++;
  size_t n = tsr_uart_encode_req(c->frame, c->frame_cap, cmd, seq, addr, len, payload);
  if (n == 0u) {
    set_err(c, "uart: a request of %u bytes does not fit a frame", (unsigned)len);
    return TSR_BAD_ARG;
  }
  tsr_uart_dec_init(dec, false, c->rdata, c->rdata_cap);
  attempt_fail_t last = AF_NONE;
  for (uint32_t a = 0; a < c->cfg.max_attempts; a++) {
    if (a != 0u) {
      c->st.retries++;
      tsr_status_t st = drain(c, n);
      if (st != TSR_OK) {
        return st;
      }
    }
    attempt_fail_t af;
    tsr_status_t st = attempt(c, n, seq, expect_data, dec, &af);
    if (st != TSR_OK) {
      return st;
    }
    if (af == AF_NONE) {
      return TSR_OK;
    }
    if (af == AF_TIMEOUT) {
      c->st.timeouts++;
    }
    last = af;
  }
  if (last == AF_TIMEOUT) {
    set_err(c, "uart: %s: no reply to CMD 0x%02x at 0x%08x after %u attempts (is the board "
               "programmed and the baud rate right?)",
            c->t.ops->name, cmd, addr, c->cfg.max_attempts);
    return TSR_TIMEOUT;
  }
  set_err(c, "uart: %s: CMD 0x%02x at 0x%08x failed %u times (%s); the line is too noisy",
          c->t.ops->name, cmd, addr, c->cfg.max_attempts,
          last == AF_NAK ? "the board kept receiving damaged requests" : "damaged replies");
  return TSR_IO;
}

/* The HAL status for a final reply status; counts replays and errors. */
static tsr_status_t final_status(uart_ctx_t *c, uint8_t status, uint8_t cmd, uint32_t addr) {
  if ((status & TSR_UART_STS_REPLAY) != 0u) {
    c->st.replays++;
  }
  uint8_t s = (uint8_t)(status & (uint8_t)~TSR_UART_STS_REPLAY);
  if (s == TSR_UART_STS_OK) {
    return TSR_OK;
  }
  c->st.errors++;
  set_err(c, "uart: CMD 0x%02x at 0x%08x: %s", cmd, addr, tsr_uart_status_str(s));
  switch (s) {
    case TSR_UART_STS_SLVERR:
    case TSR_UART_STS_DECERR:
      return TSR_BUS;
    case TSR_UART_STS_ARG:
      return TSR_BAD_ARG;
    case TSR_UART_STS_CMD:
      return TSR_UNSUPPORTED;
    default:
      return TSR_IO;
  }
}

/* ---- ops ------------------------------------------------------------------------------ */

static tsr_status_t uart_read32(void *ctx, uint32_t off, uint32_t *val) {
  uart_ctx_t *c = ctx;
  if (val == NULL || (off & 3u) != 0u) {
    set_err(c, "uart: read32 at 0x%08x: bad arguments", off);
    return TSR_BAD_ARG;
  }
  tsr_uart_dec_t dec;
  tsr_status_t st = transact(c, TSR_UART_CMD_READ32, off, 4u, NULL, 4u, &dec);
  if (st != TSR_OK) {
    return st;
  }
  st = final_status(c, dec.code, TSR_UART_CMD_READ32, off);
  if (st != TSR_OK) {
    return st;
  }
  if (dec.ndata != 4u) {
    set_err(c, "uart: read32 at 0x%08x: the reply has %zu data bytes, not 4", off, dec.ndata);
    return TSR_IO;
  }
  *val = (uint32_t)c->rdata[0] | ((uint32_t)c->rdata[1] << 8) | ((uint32_t)c->rdata[2] << 16) |
         ((uint32_t)c->rdata[3] << 24);
  return TSR_OK;
}

static tsr_status_t uart_write32(void *ctx, uint32_t off, uint32_t val) {
  uart_ctx_t *c = ctx;
  if ((off & 3u) != 0u) {
    set_err(c, "uart: write32 at 0x%08x: not 4-byte aligned", off);
    return TSR_BAD_ARG;
  }
  uint8_t p[4] = {(uint8_t)val, (uint8_t)(val >> 8), (uint8_t)(val >> 16), (uint8_t)(val >> 24)};
  tsr_uart_dec_t dec;
  tsr_status_t st = transact(c, TSR_UART_CMD_WRITE32, off, 4u, p, 0u, &dec);
  if (st != TSR_OK) {
    return st;
  }
  return final_status(c, dec.code, TSR_UART_CMD_WRITE32, off);
}

static tsr_status_t check_range(uart_ctx_t *c, const char *what, uint64_t addr, size_t n) {
  if (addr > c->info.mem_bytes || n > c->info.mem_bytes - addr) {
    set_err(c, "uart: %s of %zu bytes at 0x%llx: outside the board's %u bytes of memory", what, n,
            (unsigned long long)addr, c->info.mem_bytes);
    return TSR_BAD_ARG;
  }
  return TSR_OK;
}

static tsr_status_t uart_mem_write(void *ctx, uint64_t addr, const void *src, size_t n) {
  uart_ctx_t *c = ctx;
  tsr_status_t st = check_range(c, "mem_write", addr, n);
  if (st != TSR_OK) {
    return st;
  }
  const uint8_t *p = src;
  while (n > 0u) {
    uint16_t k = (uint16_t)(n < c->info.max_len ? n : c->info.max_len);
    tsr_uart_dec_t dec;
    st = transact(c, TSR_UART_CMD_MEM_WRITE, (uint32_t)addr, k, p, 0u, &dec);
    if (st == TSR_OK) {
      st = final_status(c, dec.code, TSR_UART_CMD_MEM_WRITE, (uint32_t)addr);
    }
    if (st != TSR_OK) {
      return st;
    }
    addr += k;
    p += k;
    n -= k;
  }
  return TSR_OK;
}

static tsr_status_t uart_mem_read(void *ctx, uint64_t addr, void *dst, size_t n) {
  uart_ctx_t *c = ctx;
  tsr_status_t st = check_range(c, "mem_read", addr, n);
  if (st != TSR_OK) {
    return st;
  }
  uint8_t *p = dst;
  while (n > 0u) {
    uint16_t k = (uint16_t)(n < c->info.max_len ? n : c->info.max_len);
    tsr_uart_dec_t dec;
    st = transact(c, TSR_UART_CMD_MEM_READ, (uint32_t)addr, k, NULL, k, &dec);
    if (st == TSR_OK) {
      st = final_status(c, dec.code, TSR_UART_CMD_MEM_READ, (uint32_t)addr);
    }
    if (st != TSR_OK) {
      return st;
    }
    if (dec.ndata != k) {
      set_err(c, "uart: mem_read at 0x%llx: the reply has %zu bytes, not %u",
              (unsigned long long)addr, dec.ndata, (unsigned)k);
      return TSR_IO;
    }
    memcpy(p, c->rdata, k);
    addr += k;
    p += k;
    n -= k;
  }
  return TSR_OK;
}

static uint64_t uart_cycles(void *ctx) {
  uart_ctx_t *c = ctx;
  return c->t.ops->cycles != NULL ? c->t.ops->cycles(c->t.ctx) : 0u;
}

static void uart_close(void *ctx) {
  uart_ctx_t *c = ctx;
  if (c == NULL) {
    return;
  }
  if (c->t.ops != NULL && c->t.ops->close != NULL) {
    c->t.ops->close(c->t.ctx);
  }
  free(c->frame);
  free(c->rdata);
  free(c);
}

static const tsr_hal_ops_t k_uart_ops = {
    .name = "uart",
    .read32 = uart_read32,
    .write32 = uart_write32,
    .wait_irq = NULL,
    .mem_write = uart_mem_write,
    .mem_read = uart_mem_read,
    .cycles = uart_cycles,
    .close = uart_close,
};

static uart_ctx_t *uart_ctx_of(const tsr_hal_t *hal) {
  if (hal == NULL || hal->ops != &k_uart_ops) {
    return NULL;
  }
  return hal->ctx;
}

/* Buffers for frames of up to `max_len` data bytes. */
static tsr_status_t size_buffers(uart_ctx_t *c, size_t max_len) {
  size_t fcap = TSR_UART_REQ_HDR + max_len + TSR_UART_CRC_BYTES;
  uint8_t *f = realloc(c->frame, fcap);
  if (f == NULL) {
    return TSR_NO_MEMORY;
  }
  c->frame = f;
  c->frame_cap = fcap;
  uint8_t *r = realloc(c->rdata, max_len);
  if (r == NULL) {
    return TSR_NO_MEMORY;
  }
  c->rdata = r;
  c->rdata_cap = max_len;
  return TSR_OK;
}

tsr_status_t tsr_hal_uart_open_transport(const tsr_uart_transport_t *t,
                                         const tsr_uart_link_cfg_t *cfg, tsr_hal_t *hal,
                                         char *err, size_t errlen) {
  char dummy[8];
  if (err == NULL || errlen == 0u) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  if (t == NULL || t->ops == NULL || t->ops->send == NULL || t->ops->recv == NULL ||
      hal == NULL) {
    snprintf(err, errlen, "uart: bad arguments");
    if (t != NULL && t->ops != NULL && t->ops->close != NULL) {
      t->ops->close(t->ctx);
    }
    return TSR_BAD_ARG;
  }
  hal->ops = NULL;
  hal->ctx = NULL;
  uart_ctx_t *c = calloc(1, sizeof *c);
  if (c == NULL || size_buffers(c, TSR_UART_INFO_BYTES) != TSR_OK) {
    snprintf(err, errlen, "uart: out of memory");
    if (c != NULL) {
      free(c->frame);
      free(c->rdata);
      free(c);
    }
    if (t->ops->close != NULL) {
      t->ops->close(t->ctx);
    }
    return TSR_NO_MEMORY;
  }
  c->t = *t;
  c->cfg.max_attempts = cfg != NULL && cfg->max_attempts != 0u ? cfg->max_attempts
                                                               : UART_DEFAULT_ATTEMPTS;
  c->cfg.slack_chars = cfg != NULL && cfg->slack_chars != 0u ? cfg->slack_chars
                                                             : UART_DEFAULT_SLACK;
  /* Whatever the board was doing, let it give up its frame, then ask who it is. INFO is
   * not a write, so it also clears the board's memory of the last write's SEQ. */
  tsr_status_t st = drain(c, 0u);
  tsr_uart_dec_t dec;
  if (st == TSR_OK) {
    st = transact(c, TSR_UART_CMD_INFO, 0u, 0u, NULL, TSR_UART_INFO_BYTES, &dec);
  }
  if (st == TSR_OK) {
    st = final_status(c, dec.code, TSR_UART_CMD_INFO, 0u);
  }
  if (st == TSR_OK && tsr_uart_info_decode(c->rdata, dec.ndata, &c->info) != TSR_OK) {
    set_err(c, "uart: %s: the INFO reply is not from a Tessera UART bridge of protocol version %u",
            t->ops->name, TSR_UART_VERSION);
    st = TSR_NO_DEVICE;
  }
  if (st == TSR_OK) {
    c->have_info = true;
    st = size_buffers(c, c->info.max_len);
    if (st != TSR_OK) {
      set_err(c, "uart: out of memory");
    }
  }
  if (st != TSR_OK) {
    snprintf(err, errlen, "%s", c->err);
    uart_close(c);
    return st == TSR_TIMEOUT || st == TSR_IO ? TSR_NO_DEVICE : st;
  }
  hal->ops = &k_uart_ops;
  hal->ctx = c;
  return TSR_OK;
}

tsr_status_t tsr_hal_uart_info(const tsr_hal_t *hal, tsr_uart_info_t *info) {
  uart_ctx_t *c = uart_ctx_of(hal);
  if (c == NULL || info == NULL) {
    return TSR_UNSUPPORTED;
  }
  *info = c->info;
  return TSR_OK;
}

tsr_status_t tsr_hal_uart_stats(const tsr_hal_t *hal, tsr_uart_stats_t *st) {
  uart_ctx_t *c = uart_ctx_of(hal);
  if (c == NULL || st == NULL) {
    return TSR_UNSUPPORTED;
  }
  *st = c->st;
  return TSR_OK;
}

const char *tsr_hal_uart_error(const tsr_hal_t *hal) {
  uart_ctx_t *c = uart_ctx_of(hal);
  return c != NULL ? c->err : "";
}

const tsr_uart_transport_t *tsr_hal_uart_transport(const tsr_hal_t *hal) {
  uart_ctx_t *c = uart_ctx_of(hal);
  return c != NULL ? &c->t : NULL;
}

tsr_status_t tsr_hal_uart_request(const tsr_hal_t *hal, uint8_t cmd, uint32_t addr, uint16_t len,
                                  const uint8_t *payload, uint8_t *status, uint8_t *data,
                                  size_t cap, size_t *ndata) {
  uart_ctx_t *c = uart_ctx_of(hal);
  if (c == NULL || status == NULL || len > c->info.max_len) {
    return TSR_BAD_ARG;
  }
  tsr_uart_dec_t dec;
  tsr_status_t st = transact(c, cmd, addr, len, payload, (cmd & TSR_UART_CMD_PAYLOAD) ? 0u : len,
                             &dec);
  if (st != TSR_OK) {
    return st;
  }
  *status = dec.code;
  size_t k = dec.ndata < cap ? dec.ndata : cap;
  if (data != NULL && k != 0u) {
    memcpy(data, c->rdata, k);
  }
  if (ndata != NULL) {
    *ndata = k;
  }
  return TSR_OK;
}

/* ---- "uart:PATH[,BAUD]" ------------------------------------------------------------------- */

tsr_status_t tsr_uart_parse_spec(const char *spec, char *path, size_t pathlen, uint32_t *baud,
                                 char *err, size_t errlen) {
  char dummy[8];
  if (err == NULL || errlen == 0u) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  if (spec == NULL || path == NULL || pathlen == 0u || baud == NULL ||
      strncmp(spec, "uart:", 5) != 0) {
    snprintf(err, errlen, "'%s' is not a UART spec: use uart:PATH[,BAUD] (e.g. uart:/dev/ttyUSB1,115200)",
             spec != NULL ? spec : "(null)");
    return TSR_BAD_ARG;
  }
  const char *p = spec + 5;
  const char *comma = strrchr(p, ',');
  size_t plen = comma != NULL ? (size_t)(comma - p) : strlen(p);
  if (plen == 0u) {
    snprintf(err, errlen, "'%s': the serial device path is empty (uart:PATH[,BAUD])", spec);
    return TSR_BAD_ARG;
  }
  if (plen >= pathlen) {
    snprintf(err, errlen, "'%s': the serial device path is too long", spec);
    return TSR_BAD_ARG;
  }
  memcpy(path, p, plen);
  path[plen] = '\0';
  *baud = TSR_UART_DEFAULT_BAUD;
  if (comma != NULL) {
    const char *b = comma + 1;
    uint64_t v = 0;
    if (*b == '\0') {
      snprintf(err, errlen, "'%s': the baud rate after ',' is empty", spec);
      return TSR_BAD_ARG;
    }
    for (; *b != '\0'; b++) {
      if (*b < '0' || *b > '9' || v > 100000000u) {
        snprintf(err, errlen, "'%s': the baud rate '%s' is not a decimal number", spec, comma + 1);
        return TSR_BAD_ARG;
      }
      v = v * 10u + (uint64_t)(*b - '0');
    }
    if (v == 0u || v > 100000000u) {
      snprintf(err, errlen, "'%s': the baud rate %llu is out of range", spec, (unsigned long long)v);
      return TSR_BAD_ARG;
    }
    *baud = (uint32_t)v;
  }
  return TSR_OK;
}

tsr_status_t tsr_hal_uart_open(const char *spec, tsr_hal_t *hal, char *err, size_t errlen) {
  char path[256];
  uint32_t baud = 0;
  tsr_status_t st = tsr_uart_parse_spec(spec, path, sizeof path, &baud, err, errlen);
  if (st != TSR_OK) {
    return st;
  }
  tsr_uart_transport_t t;
  st = tsr_uart_serial_open(path, baud, &t, err, errlen);
  if (st != TSR_OK) {
    return st;
  }
  return tsr_hal_uart_open_transport(&t, NULL, hal, err, errlen);
}
