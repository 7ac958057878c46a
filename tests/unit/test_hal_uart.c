/* test_hal_uart.c: the UART HAL backend against a C model of the bridge, with damaged, dropped and late bytes. */
#define _XOPEN_SOURCE 700 /* posix_openpt, grantpt, unlockpt, ptsname */
#define _DEFAULT_SOURCE   /* cfmakeraw */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "tsr_hal_host.h"
#include "tsr_uart.h"

/*
 * fake_board follows the rules of rtl/tsr_uart_bridge.v (docs/fpga.md, "Host
 * link"): whole frame and CRC before anything, STATUS CRC for a bad CRC, an
 * inter-byte timeout, LEN above MaxLen abandoned, repeated writes answered
 * with REPLAY, registers at 0x00..0xFC (0xF0 DECERR, 0x100 and up SLVERR).
 * fake_line connects it to the HAL with virtual time: a receive that finds no
 * byte lets `timeout_chars` pass on the board. Faults are armed per direction
 * and byte index, like the simulation transport's.
 */

#define MAX_LEN 64u
#define MEM_BYTES 4096u
#define RX_TIMEOUT_BITS 200u

typedef struct fake_board {
  tsr_uart_dec_t dec;
  uint8_t pay[MAX_LEN];
  uint32_t regs[64];
  uint8_t mem[MEM_BYTES];
  bool last_wr;
  uint8_t last_seq, last_sts;
  unsigned idle_chars;
  unsigned rx_timeout_bits; /* inter-byte timeout (RX_TIMEOUT_BITS unless a test says otherwise) */
  unsigned reg_writes, mem_writes, executed, crc_errors, abandoned;
  uint8_t out[1 << 16];
  size_t out_n, out_rd;
} fake_board_t;

static void board_reply(fake_board_t *b, uint8_t status, uint8_t seq, const uint8_t *d,
                        uint16_t n) {
  size_t k = tsr_uart_encode_rsp(b->out + b->out_n, sizeof b->out - b->out_n, status, seq, d, n);
  assert_true(k > 0);
  b->out_n += k;
}

static uint8_t reg_resp(uint32_t a) {
  if (a >= 0x100u) {
    return TSR_UART_STS_SLVERR;
  }
  return a == 0xF0u ? TSR_UART_STS_DECERR : TSR_UART_STS_OK;
}

static void board_exec(fake_board_t *b) {
  tsr_uart_dec_t *d = &b->dec;
  const uint8_t cmd = d->code;
  const bool wr = (cmd & TSR_UART_CMD_PAYLOAD) != 0u;
  const bool mem_ok = d->len >= 1u && d->len <= MAX_LEN && (uint64_t)d->addr + d->len <= MEM_BYTES;
  const bool reg_ok = d->len == 4u && (d->addr & 3u) == 0u;
  bool known = cmd == TSR_UART_CMD_INFO || cmd == TSR_UART_CMD_READ32 ||
               cmd == TSR_UART_CMD_MEM_READ || cmd == TSR_UART_CMD_WRITE32 ||
               cmd == TSR_UART_CMD_MEM_WRITE;
  bool args = cmd == TSR_UART_CMD_INFO ? d->len == 0u
              : (cmd == TSR_UART_CMD_READ32 || cmd == TSR_UART_CMD_WRITE32) ? reg_ok
                                                                              : mem_ok;
  if (!known || !args) {
    b->last_seq = d->seq;
    b->last_wr = false;
    board_reply(b, known ? TSR_UART_STS_ARG : TSR_UART_STS_CMD, d->seq, NULL, 0);
    return;
  }
  if (wr && b->last_wr && d->seq == b->last_seq) {
    board_reply(b, (uint8_t)(b->last_sts | TSR_UART_STS_REPLAY), d->seq, NULL, 0);
    return;
  }
  b->last_seq = d->seq;
  b->last_wr = wr;
  b->executed++;
  uint8_t data[MAX_LEN];
  switch (cmd) {
    case TSR_UART_CMD_INFO: {
      tsr_uart_info_t info = {TSR_UART_VERSION, MAX_LEN, (uint16_t)b->rx_timeout_bits, MEM_BYTES, 4};
      tsr_uart_info_encode(&info, data);
      board_reply(b, TSR_UART_STS_OK, d->seq, data, TSR_UART_INFO_BYTES);
      break;
    }
    case TSR_UART_CMD_READ32: {
      uint8_t s = reg_resp(d->addr);
      uint32_t v = s == TSR_UART_STS_OK ? b->regs[d->addr >> 2] : 0u;
      uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
      board_reply(b, s, d->seq, le, s == TSR_UART_STS_OK ? 4u : 0u);
      break;
    }
    case TSR_UART_CMD_WRITE32: {
      uint8_t s = reg_resp(d->addr);
      b->reg_writes++;
      if (s == TSR_UART_STS_OK) {
        b->regs[d->addr >> 2] = (uint32_t)b->pay[0] | ((uint32_t)b->pay[1] << 8) |
                                ((uint32_t)b->pay[2] << 16) | ((uint32_t)b->pay[3] << 24);
      }
      b->last_sts = s;
      board_reply(b, s, d->seq, NULL, 0);
      break;
    }
    case TSR_UART_CMD_MEM_WRITE:
      memcpy(b->mem + d->addr, b->pay, d->len);
      b->mem_writes += d->len;
      b->last_sts = TSR_UART_STS_OK;
      board_reply(b, TSR_UART_STS_OK, d->seq, NULL, 0);
      break;
    default: /* MEM_READ */
      board_reply(b, TSR_UART_STS_OK, d->seq, b->mem + d->addr, d->len);
      break;
  }
}

static void board_rx(fake_board_t *b, uint8_t byte) {
  b->idle_chars = 0;
  tsr_uart_dec_result_t r = tsr_uart_dec_feed(&b->dec, byte);
  if (r == TSR_UART_DEC_BAD_CRC) {
    b->crc_errors++;
    board_reply(b, TSR_UART_STS_CRC, b->dec.seq, NULL, 0);
  } else if (r == TSR_UART_DEC_TOO_LONG) {
    b->abandoned++;
  } else if (r == TSR_UART_DEC_FRAME) {
    board_exec(b);
  }
}

static void board_idle(fake_board_t *b, unsigned chars) {
  if (!tsr_uart_dec_busy(&b->dec)) {
    return;
  }
  b->idle_chars += chars;
  if (b->idle_chars * 10u >= b->rx_timeout_bits) {
    tsr_uart_dec_reset(&b->dec);
    b->abandoned++;
  }
}

/* ---- the line ------------------------------------------------------------------------------ */

#define MAX_FAULTS 16

typedef struct fake_line {
  fake_board_t *board;
  tsr_uart_fault_t f[MAX_FAULTS];
  bool armed[MAX_FAULTS];
  uint64_t base[2];          /* byte counter of each direction when the fault was armed */
  uint64_t count[2];         /* bytes so far: [0] to the board, [1] to the host */
  uint8_t tx[1 << 12];       /* bytes sent and not yet on the board: one per character time */
  size_t tx_rd, tx_n;
  bool kill_to_dev;          /* every byte to the board is lost */
  bool damage_to_host;       /* every reply's 6th byte is damaged */
  uint64_t chars_waited;
  bool closed;
} fake_line_t;

/* Apply armed faults to one byte; false: drop it. */
static bool line_fault(fake_line_t *l, bool to_host, uint8_t *b) {
  const int dir = to_host ? 1 : 0;
  bool keep = true;
  for (int i = 0; i < MAX_FAULTS; i++) {
    if (l->armed[i] && l->f[i].to_host == to_host && l->count[dir] == l->base[dir] + l->f[i].at) {
      l->armed[i] = false;
      if (l->f[i].xor_mask == 0u) {
        keep = false;
      } else {
        *b ^= l->f[i].xor_mask;
      }
    }
  }
  l->count[dir]++;
  return keep;
}

static void line_arm(fake_line_t *l, bool to_host, uint64_t at, uint8_t mask) {
  for (int i = 0; i < MAX_FAULTS; i++) {
    if (!l->armed[i]) {
      l->armed[i] = true;
      l->f[i].to_host = to_host;
      l->f[i].at = at;
      l->f[i].xor_mask = mask;
      l->base[to_host ? 1 : 0] = l->count[to_host ? 1 : 0];
      return;
    }
  }
  fail();
}

static tsr_status_t line_send(void *ctx, const uint8_t *src, size_t n) {
  fake_line_t *l = ctx;
  for (size_t i = 0; i < n; i++) {
    uint8_t b = src[i];
    if (line_fault(l, false, &b) && !l->kill_to_dev) {
      assert_true(l->tx_n < sizeof l->tx);
      l->tx[l->tx_n++] = b;
    }
  }
  return TSR_OK;
}

/* Time passes only here: each character time puts one sent byte on the board, and the
 * wait ends at the board's first reply byte. */
static tsr_status_t line_recv(void *ctx, uint8_t *dst, size_t n, uint32_t timeout_chars,
                              size_t *got) {
  fake_line_t *l = ctx;
  fake_board_t *b = l->board;
  *got = 0;
  uint32_t waited = 0;
  while (b->out_rd == b->out_n && l->tx_rd < l->tx_n && waited < timeout_chars) {
    board_rx(b, l->tx[l->tx_rd++]);
    waited++;
  }
  if (l->tx_rd == l->tx_n) {
    l->tx_rd = l->tx_n = 0;
  }
  while (*got < n && b->out_rd < b->out_n) {
    uint8_t byte = b->out[b->out_rd++];
    if (l->damage_to_host && b->out_rd % 7u == 6u) {
      byte ^= 0x10u;
    }
    if (line_fault(l, true, &byte)) {
      dst[(*got)++] = byte;
    }
  }
  if (b->out_rd == b->out_n) {
    b->out_rd = b->out_n = 0;
  }
  if (*got == 0u) {
    l->chars_waited += timeout_chars;
    board_idle(b, timeout_chars - waited);
  }
  return TSR_OK;
}

static void line_close(void *ctx) {
  fake_line_t *l = ctx;
  l->closed = true;
}

static const tsr_uart_transport_ops_t k_line_ops = {
    .name = "fake-line", .send = line_send, .recv = line_recv, .cycles = NULL, .close = line_close};

/* ---- fixture -------------------------------------------------------------------------------- */

typedef struct fixture {
  fake_board_t board;
  fake_line_t line;
  tsr_hal_t hal;
} fixture_t;

static int setup_with(void **state, unsigned rx_timeout_bits) {
  fixture_t *fx = calloc(1, sizeof *fx);
  assert_non_null(fx);
  fx->board.rx_timeout_bits = rx_timeout_bits;
  tsr_uart_dec_init(&fx->board.dec, true, fx->board.pay, sizeof fx->board.pay);
  fx->line.board = &fx->board;
  tsr_uart_transport_t t = {&k_line_ops, &fx->line};
  char err[256];
  assert_int_equal(tsr_hal_uart_open_transport(&t, NULL, &fx->hal, err, sizeof err), TSR_OK);
  *state = fx;
  return 0;
}

static int setup(void **state) {
  return setup_with(state, RX_TIMEOUT_BITS);
}

/* A board whose inter-byte timeout (400 characters) is far longer than a reply timeout. */
static int setup_slow_board(void **state) {
  return setup_with(state, 4000);
}

static int teardown(void **state) {
  fixture_t *fx = *state;
  tsr_hal_close(&fx->hal);
  assert_true(fx->line.closed);
  free(fx);
  return 0;
}

static tsr_uart_stats_t stats(const fixture_t *fx) {
  tsr_uart_stats_t st;
  assert_int_equal(tsr_hal_uart_stats(&fx->hal, &st), TSR_OK);
  return st;
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void open_reads_the_boards_info(void **state) {
  fixture_t *fx = *state;
  tsr_uart_info_t info;
  assert_int_equal(tsr_hal_uart_info(&fx->hal, &info), TSR_OK);
  assert_int_equal(info.max_len, MAX_LEN);
  assert_int_equal(info.mem_bytes, MEM_BYTES);
  assert_int_equal(info.rx_timeout_bits, RX_TIMEOUT_BITS);
  assert_string_equal(fx->hal.ops->name, "uart");
  assert_null(fx->hal.ops->wait_irq);
  assert_int_equal(stats(fx).requests, 1);
}

static void registers_and_memory_round_trip(void **state) {
  fixture_t *fx = *state;
  assert_int_equal(tsr_hal_write32(&fx->hal, 0x10, 0xCAFEF00Du), TSR_OK);
  uint32_t v = 0;
  assert_int_equal(tsr_hal_read32(&fx->hal, 0x10, &v), TSR_OK);
  assert_int_equal(v, 0xCAFEF00Du);
  assert_int_equal(fx->board.reg_writes, 1);
  uint8_t src[1000], dst[1000];
  for (int i = 0; i < 1000; i++) {
    src[i] = (uint8_t)(i * 7 + 3);
  }
  uint64_t frames0 = stats(fx).frames_sent;
  assert_int_equal(tsr_hal_mem_write(&fx->hal, 100, src, sizeof src), TSR_OK);
  assert_int_equal(stats(fx).frames_sent - frames0, (1000 + MAX_LEN - 1) / MAX_LEN);
  assert_int_equal(tsr_hal_mem_read(&fx->hal, 100, dst, sizeof dst), TSR_OK);
  assert_memory_equal(src, dst, sizeof src);
  assert_memory_equal(fx->board.mem + 100, src, sizeof src);
  assert_int_equal(stats(fx).retries, 0);
}

/* Every byte of a WRITE32 request flipped, then dropped: the write lands exactly once
 * with the right value, after retries. */
static void a_damaged_request_is_retried_and_never_writes_wrong_data(void **state) {
  fixture_t *fx = *state;
  for (int drop = 0; drop < 2; drop++) {
    for (uint64_t pos = 0; pos < 15; pos++) {
      uint32_t val = 0x01000000u * (uint32_t)pos + 0x55AA00u + (uint32_t)drop;
      unsigned w0 = fx->board.reg_writes;
      uint64_t r0 = stats(fx).retries;
      line_arm(&fx->line, false, pos, drop ? 0u : 0x08u);
      assert_int_equal(tsr_hal_write32(&fx->hal, 0x20, val), TSR_OK);
      assert_int_equal(fx->board.reg_writes - w0, 1);
      assert_int_equal(fx->board.regs[0x20 >> 2], val);
      assert_int_equal(stats(fx).retries - r0, 1);
    }
  }
  tsr_uart_stats_t st = stats(fx);
  assert_true(st.naks > 0);     /* flipped bytes after SYNC: STATUS CRC */
  assert_true(st.timeouts > 0); /* dropped bytes and a flipped SYNC: no reply */
  assert_int_equal(fx->board.executed, 1 + 30);
}

/* Every byte of the reply to a WRITE32 flipped, then dropped: the retry is answered
 * with REPLAY and the register is written once. */
static void a_lost_reply_to_a_write_does_not_write_twice(void **state) {
  fixture_t *fx = *state;
  unsigned cases = 0;
  for (int drop = 0; drop < 2; drop++) {
    for (uint64_t pos = 0; pos < 7; pos++) {
      unsigned w0 = fx->board.reg_writes;
      uint64_t rp0 = stats(fx).replays;
      line_arm(&fx->line, true, pos, drop ? 0u : 0x40u);
      assert_int_equal(tsr_hal_write32(&fx->hal, 0x24, 0x1000u + (uint32_t)pos), TSR_OK);
      assert_int_equal(fx->board.reg_writes - w0, 1);
      assert_int_equal(fx->board.regs[0x24 >> 2], 0x1000u + (uint32_t)pos);
      assert_int_equal(stats(fx).replays - rp0, 1);
      cases++;
    }
  }
  /* The same for a memory write. */
  uint8_t data[MAX_LEN];
  memset(data, 0x77, sizeof data);
  unsigned m0 = fx->board.mem_writes;
  line_arm(&fx->line, true, 3, 0u);
  assert_int_equal(tsr_hal_mem_write(&fx->hal, 0, data, sizeof data), TSR_OK);
  assert_int_equal(fx->board.mem_writes - m0, MAX_LEN);
  assert_int_equal(cases, 14);
  assert_true(stats(fx).bad_replies > 0);
}

/* After a dropped byte the board still waits for the rest of the frame when the host's
 * reply timeout ends; the retry must wait until the board has given it up, or its first
 * bytes would complete the broken frame (a CRC error and another retry). */
static void a_retry_waits_until_the_board_gave_up_the_broken_frame(void **state) {
  fixture_t *fx = *state;
  line_arm(&fx->line, false, 10, 0u);
  assert_int_equal(tsr_hal_write32(&fx->hal, 0x28, 0xA1B2C3D4u), TSR_OK);
  assert_int_equal(fx->board.regs[0x28 >> 2], 0xA1B2C3D4u);
  assert_int_equal(fx->board.reg_writes, 1);
  assert_int_equal(fx->board.abandoned, 1);
  assert_int_equal(fx->board.crc_errors, 0);
  assert_int_equal(stats(fx).retries, 1);
  assert_int_equal(stats(fx).timeouts, 1);
}

/* A board that finds a request's LEN damaged smaller answers STATUS CRC while the rest of
 * the frame is still on the line, and any payload may hold what looks like a frame header.
 * A retry sent before that rest has gone by and the board has given up the false frame
 * would complete it (another STATUS CRC, and so on until the HAL gives up). */
static void a_retry_waits_for_the_rest_of_its_damaged_frame(void **state) {
  fixture_t *fx = *state;
  uint8_t src[MAX_LEN];
  memset(src, 0x11, sizeof src);
  /* SYNC, WRITE32, SEQ, ADDR 0x10, LEN 4: the board then wants 4 + 2 more bytes. */
  const uint8_t header[] = {0xA5, TSR_UART_CMD_WRITE32, 0x00, 0x10, 0, 0, 0, 4, 0};
  memcpy(src + MAX_LEN - sizeof header, header, sizeof header);
  line_arm(&fx->line, false, 7, 0x60); /* LEN 64 -> 32 */
  assert_int_equal(tsr_hal_mem_write(&fx->hal, 0, src, sizeof src), TSR_OK);
  assert_memory_equal(fx->board.mem, src, sizeof src);
  assert_int_equal(stats(fx).retries, 1);
  assert_int_equal(stats(fx).naks, 1);
  assert_int_equal(fx->board.reg_writes, 0);
}

static void a_damaged_read_reply_is_read_again(void **state) {
  fixture_t *fx = *state;
  fx->board.regs[3] = 0x12345678u;
  for (uint64_t pos = 0; pos < 11; pos++) {
    uint32_t v = 0;
    line_arm(&fx->line, true, pos, (uint8_t)(1u << (pos % 8u)));
    assert_int_equal(tsr_hal_read32(&fx->hal, 0x0C, &v), TSR_OK);
    assert_int_equal(v, 0x12345678u);
  }
  assert_int_equal(stats(fx).retries, 11);
  assert_int_equal(stats(fx).replays, 0);
}

static void bus_errors_are_final_and_not_retried(void **state) {
  fixture_t *fx = *state;
  uint64_t f0 = stats(fx).frames_sent;
  assert_int_equal(tsr_hal_write32(&fx->hal, 0x100, 1), TSR_BUS);
  assert_non_null(strstr(tsr_hal_uart_error(&fx->hal), "SLVERR"));
  uint32_t v;
  assert_int_equal(tsr_hal_read32(&fx->hal, 0xF0, &v), TSR_BUS);
  assert_non_null(strstr(tsr_hal_uart_error(&fx->hal), "DECERR"));
  assert_int_equal(stats(fx).frames_sent - f0, 2);
  assert_int_equal(stats(fx).errors, 2);
  /* A bus error whose reply was lost: the retry says REPLAY | SLVERR, still TSR_BUS. */
  line_arm(&fx->line, true, 1, 0xFF);
  assert_int_equal(tsr_hal_write32(&fx->hal, 0x104, 1), TSR_BUS);
  assert_int_equal(stats(fx).replays, 1);
}

static void a_dead_line_times_out_with_a_message(void **state) {
  fixture_t *fx = *state;
  fx->line.kill_to_dev = true;
  assert_int_equal(tsr_hal_write32(&fx->hal, 0x10, 1), TSR_TIMEOUT);
  assert_non_null(strstr(tsr_hal_uart_error(&fx->hal), "no reply"));
  assert_int_equal(stats(fx).timeouts, 8);
  assert_int_equal(fx->board.reg_writes, 0);
  fx->line.kill_to_dev = false;
  assert_int_equal(tsr_hal_write32(&fx->hal, 0x10, 2), TSR_OK);
}

static void replies_that_stay_damaged_fail_cleanly(void **state) {
  fixture_t *fx = *state;
  fx->line.damage_to_host = true;
  uint32_t v;
  assert_int_equal(tsr_hal_read32(&fx->hal, 0x10, &v), TSR_IO);
  assert_non_null(strstr(tsr_hal_uart_error(&fx->hal), "damaged replies"));
  fx->line.damage_to_host = false;
  assert_int_equal(tsr_hal_read32(&fx->hal, 0x10, &v), TSR_OK);
}

static void a_stale_reply_is_skipped(void **state) {
  fixture_t *fx = *state;
  /* A late reply to some earlier request waits on the line. */
  board_reply(&fx->board, TSR_UART_STS_OK, 0xEE, (const uint8_t *)"\x01\x02\x03\x04", 4);
  fx->board.regs[5] = 0xABCD0123u;
  uint32_t v = 0;
  assert_int_equal(tsr_hal_read32(&fx->hal, 0x14, &v), TSR_OK);
  assert_int_equal(v, 0xABCD0123u);
  assert_int_equal(stats(fx).stale_replies, 1);
  assert_int_equal(stats(fx).retries, 0);
}

static void bad_arguments_never_reach_the_line(void **state) {
  fixture_t *fx = *state;
  uint64_t f0 = stats(fx).frames_sent;
  uint8_t b[8] = {0};
  uint32_t v;
  assert_int_equal(tsr_hal_mem_write(&fx->hal, MEM_BYTES - 4, b, 8), TSR_BAD_ARG);
  assert_non_null(strstr(tsr_hal_uart_error(&fx->hal), "outside"));
  assert_int_equal(tsr_hal_mem_read(&fx->hal, MEM_BYTES + 1, b, 0), TSR_BAD_ARG);
  assert_int_equal(tsr_hal_write32(&fx->hal, 0x11, 0), TSR_BAD_ARG);
  assert_int_equal(tsr_hal_read32(&fx->hal, 0x12, &v), TSR_BAD_ARG);
  assert_int_equal(stats(fx).frames_sent, f0);
  /* Up to the last byte is fine. */
  assert_int_equal(tsr_hal_mem_write(&fx->hal, MEM_BYTES - 8, b, 8), TSR_OK);
}

static void raw_requests_report_the_boards_status(void **state) {
  fixture_t *fx = *state;
  uint8_t status = 0xff;
  size_t nd = 9;
  assert_int_equal(tsr_hal_uart_request(&fx->hal, 0x05, 0, 0, NULL, &status, NULL, 0, &nd),
                   TSR_OK);
  assert_int_equal(status, TSR_UART_STS_CMD);
  assert_int_equal(nd, 0);
  assert_int_equal(tsr_hal_uart_request(&fx->hal, TSR_UART_CMD_READ32, 0, 2, NULL, &status, NULL,
                                        0, &nd),
                   TSR_OK);
  assert_int_equal(status, TSR_UART_STS_ARG);
}

static void open_fails_cleanly_without_a_board(void **state) {
  (void)state;
  fake_board_t *b = calloc(1, sizeof *b);
  fake_line_t l;
  memset(&l, 0, sizeof l);
  assert_non_null(b);
  b->rx_timeout_bits = RX_TIMEOUT_BITS;
  tsr_uart_dec_init(&b->dec, true, b->pay, sizeof b->pay);
  l.board = b;
  l.kill_to_dev = true;
  tsr_uart_transport_t t = {&k_line_ops, &l};
  tsr_hal_t hal = {NULL, NULL};
  char err[256];
  assert_int_equal(tsr_hal_uart_open_transport(&t, NULL, &hal, err, sizeof err), TSR_NO_DEVICE);
  assert_non_null(strstr(err, "no reply"));
  assert_true(l.closed);
  assert_null(hal.ops);
  free(b);
}

static void specs_parse_with_and_without_a_baud_rate(void **state) {
  (void)state;
  char path[64], err[256];
  uint32_t baud = 0;
  assert_int_equal(tsr_uart_parse_spec("uart:/dev/ttyUSB1", path, sizeof path, &baud, err, sizeof err), TSR_OK);
  assert_string_equal(path, "/dev/ttyUSB1");
  assert_int_equal(baud, 115200);
  assert_int_equal(tsr_uart_parse_spec("uart:/dev/ttyACM0,3000000", path, sizeof path, &baud, err, sizeof err), TSR_OK);
  assert_string_equal(path, "/dev/ttyACM0");
  assert_int_equal(baud, 3000000);
  assert_int_equal(tsr_uart_parse_spec("uart:", path, sizeof path, &baud, err, sizeof err), TSR_BAD_ARG);
  assert_non_null(strstr(err, "empty"));
  assert_int_equal(tsr_uart_parse_spec("uart:/dev/x,", path, sizeof path, &baud, err, sizeof err), TSR_BAD_ARG);
  assert_int_equal(tsr_uart_parse_spec("uart:/dev/x,fast", path, sizeof path, &baud, err, sizeof err), TSR_BAD_ARG);
  assert_non_null(strstr(err, "not a decimal"));
  assert_int_equal(tsr_uart_parse_spec("serial:/dev/x", path, sizeof path, &baud, err, sizeof err), TSR_BAD_ARG);
  tsr_hal_t hal;
  assert_int_equal(tsr_hal_uart_open("uart:/nonexistent/tty,115200", &hal, err, sizeof err), TSR_NO_DEVICE);
  assert_non_null(strstr(err, "cannot open /nonexistent/tty"));
  assert_int_equal(tsr_hal_uart_open("uart:/dev/null,12345", &hal, err, sizeof err), TSR_BAD_ARG);
  assert_non_null(strstr(err, "not a standard rate"));
  assert_int_equal(tsr_hal_uart_open("uart:/dev/null", &hal, err, sizeof err), TSR_NO_DEVICE);
  assert_non_null(strstr(err, "not a serial port"));
}

/* The serial transport over a pseudo-terminal: a forked child plays the board on the
 * master side (raw bytes through the kernel's tty layer, with termios applied). */
static void the_serial_transport_works_over_a_pseudo_terminal(void **state) {
  (void)state;
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  assert_true(master >= 0);
  assert_int_equal(grantpt(master), 0);
  assert_int_equal(unlockpt(master), 0);
  char spec[128];
  snprintf(spec, sizeof spec, "uart:%s,115200", ptsname(master));
  struct termios tio;
  assert_int_equal(tcgetattr(master, &tio), 0);
  cfmakeraw(&tio);
  assert_int_equal(tcsetattr(master, TCSANOW, &tio), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    fake_board_t *b = calloc(1, sizeof *b);
    if (b == NULL) {
      _exit(3);
    }
    b->rx_timeout_bits = RX_TIMEOUT_BITS;
    tsr_uart_dec_init(&b->dec, true, b->pay, sizeof b->pay);
    for (;;) {
      uint8_t buf[256];
      ssize_t n = read(master, buf, sizeof buf);
      if (n <= 0) {
        _exit(0);
      }
      for (ssize_t i = 0; i < n; i++) {
        board_rx(b, buf[i]);
      }
      if (b->out_n > 0 && write(master, b->out, b->out_n) != (ssize_t)b->out_n) {
        _exit(4);
      }
      b->out_n = 0;
    }
  }
  tsr_hal_t hal;
  char err[256];
  tsr_status_t st = tsr_hal_uart_open(spec, &hal, err, sizeof err);
  if (st != TSR_OK) {
    print_error("%s\n", err);
  }
  assert_int_equal(st, TSR_OK);
  assert_int_equal(tsr_hal_write32(&hal, 0x30, 0x600DBEEFu), TSR_OK);
  uint32_t v = 0;
  assert_int_equal(tsr_hal_read32(&hal, 0x30, &v), TSR_OK);
  assert_int_equal(v, 0x600DBEEFu);
  uint8_t src[300], dst[300];
  for (int i = 0; i < 300; i++) {
    src[i] = (uint8_t)(255 - i);
  }
  assert_int_equal(tsr_hal_mem_write(&hal, 7, src, sizeof src), TSR_OK);
  assert_int_equal(tsr_hal_mem_read(&hal, 7, dst, sizeof dst), TSR_OK);
  assert_memory_equal(src, dst, sizeof src);
  tsr_hal_close(&hal);
  close(master);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(open_reads_the_boards_info, setup, teardown),
      cmocka_unit_test_setup_teardown(registers_and_memory_round_trip, setup, teardown),
      cmocka_unit_test_setup_teardown(a_damaged_request_is_retried_and_never_writes_wrong_data, setup, teardown),
      cmocka_unit_test_setup_teardown(a_lost_reply_to_a_write_does_not_write_twice, setup, teardown),
      cmocka_unit_test_setup_teardown(a_retry_waits_until_the_board_gave_up_the_broken_frame,
                                      setup_slow_board, teardown),
      cmocka_unit_test_setup_teardown(a_retry_waits_for_the_rest_of_its_damaged_frame, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(a_damaged_read_reply_is_read_again, setup, teardown),
      cmocka_unit_test_setup_teardown(bus_errors_are_final_and_not_retried, setup, teardown),
      cmocka_unit_test_setup_teardown(a_dead_line_times_out_with_a_message, setup, teardown),
      cmocka_unit_test_setup_teardown(replies_that_stay_damaged_fail_cleanly, setup, teardown),
      cmocka_unit_test_setup_teardown(a_stale_reply_is_skipped, setup, teardown),
      cmocka_unit_test_setup_teardown(bad_arguments_never_reach_the_line, setup, teardown),
      cmocka_unit_test_setup_teardown(raw_requests_report_the_boards_status, setup, teardown),
      cmocka_unit_test(open_fails_cleanly_without_a_board),
      cmocka_unit_test(specs_parse_with_and_without_a_baud_rate),
      cmocka_unit_test(the_serial_transport_works_over_a_pseudo_terminal),
  };
  return cmocka_run_group_tests_name("hal_uart", tests, NULL, NULL);
}
