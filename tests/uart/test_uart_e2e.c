/* test_uart_e2e.c: GEMMs through the UART host link into the simulated board, against the golden model and the direct path; line faults. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tessera_regs.h"
#include "tsr_driver.h"
#include "tsr_fw.h"
#include "tsr_golden.h"
#include "tsr_hal_host.h"
#include "tsr_sim.h"
#include "tsr_uart.h"

/*
 * Two devices run the same jobs with the same driver (sw/driver/tsr_driver.c) and
 * firmware (fw/tsr_gemm_*.c):
 *   uart:   HAL sw/hal/tsr_hal_uart.c -> frames -> sw/hal/tsr_uart_simlink.c -> the
 *           line model, bit by bit -> Verilated fpga/tsr_uart_top.v (bridge,
 *           tsr_top, on-chip memory);
 *   direct: HAL sw/hal/tsr_hal_sim.c -> Verilated tsr_top with the C memory model.
 * Every result must equal the golden model (sw/golden/tsr_golden.c) and the other
 * path, byte for byte, and the guard bytes after C must be untouched.
 *
 * Then faults on the line: a flipped payload byte, a damaged CRC, a dropped
 * byte, a flipped SYNC, a dropped and a flipped reply byte, a damaged memory
 * write, damage on every attempt, a silent board, a bus error, an unknown
 * command; and a GEMM with faults sprinkled over its traffic. After each,
 * the register or memory holds exactly what was written, and the bridge's
 * own count of register writes issued on its AXI4-Lite port (evt_o[5])
 * equals the number of writes the driver asked for: no damaged frame ever
 * wrote, and no retry wrote twice.
 *
 * usage: test_uart_e2e --dim N [--seed S] [--count C] [--verbose]
 *   --count  random GEMMs after the fixed ones (default 4); --seed replays a run
 */

#define GUARD 64u
#define BASE 0x100u

static bool g_verbose;
static int g_fail;

static void failf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "test_uart_e2e: FAIL: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  g_fail = 1;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint32_t g_rng = 1;
static uint32_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 17;
  g_rng ^= g_rng << 5;
  return g_rng;
}
static int32_t rnd_range(int32_t lo, int32_t hi) {
  return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1));
}

/* ---- a HAL wrapper that counts the register writes the driver asks for ---------------------- */

typedef struct counting {
  tsr_hal_t inner;
  uint64_t writes_issued;  /* write32 calls answered OK or with a bus error: they reached the bus */
} counting_t;

static tsr_status_t cnt_read32(void *ctx, uint32_t off, uint32_t *val) {
  counting_t *c = ctx;
  return tsr_hal_read32(&c->inner, off, val);
}
static tsr_status_t cnt_write32(void *ctx, uint32_t off, uint32_t val) {
  counting_t *c = ctx;
  tsr_status_t st = tsr_hal_write32(&c->inner, off, val);
  if (st == TSR_OK || st == TSR_BUS) {
    c->writes_issued++;
  }
  return st;
}
static tsr_status_t cnt_mem_write(void *ctx, uint64_t addr, const void *src, size_t n) {
  counting_t *c = ctx;
  return tsr_hal_mem_write(&c->inner, addr, src, n);
}
static tsr_status_t cnt_mem_read(void *ctx, uint64_t addr, void *dst, size_t n) {
  counting_t *c = ctx;
  return tsr_hal_mem_read(&c->inner, addr, dst, n);
}
static uint64_t cnt_cycles(void *ctx) {
  counting_t *c = ctx;
  return tsr_hal_cycles(&c->inner);
}
static const tsr_hal_ops_t k_counting_ops = {
    .name = "uart", .read32 = cnt_read32, .write32 = cnt_write32, .wait_irq = NULL,
    .mem_write = cnt_mem_write, .mem_read = cnt_mem_read, .cycles = cnt_cycles, .close = NULL};

/* ---- jobs ----------------------------------------------------------------------------------- */

typedef struct job {
  uint32_t m, k, n;
  bool requant, per_channel, has_bias;
  int8_t *a, *b;
  int32_t *bias, *mult, *shift;
  int32_t mult_s, shift_s, zp, amin, amax;
} job_t;

static void job_make(job_t *j, uint32_t m, uint32_t k, uint32_t n, int kind) {
  memset(j, 0, sizeof *j);
  j->m = m;
  j->k = k;
  j->n = n;
  j->requant = kind != 1;
  j->per_channel = kind == 2;
  j->has_bias = kind != 3;
  j->a = malloc((size_t)m * k);
  j->b = malloc((size_t)k * n);
  j->bias = malloc(4u * n);
  j->mult = malloc(4u * n);
  j->shift = malloc(4u * n);
  if (j->a == NULL || j->b == NULL || j->bias == NULL || j->mult == NULL || j->shift == NULL) {
    fprintf(stderr, "test_uart_e2e: out of memory\n");
    exit(2);
  }
  for (size_t i = 0; i < (size_t)m * k; i++) {
    j->a[i] = (int8_t)rnd();
  }
  for (size_t i = 0; i < (size_t)k * n; i++) {
    j->b[i] = (int8_t)rnd();
  }
  for (uint32_t i = 0; i < n; i++) {
    j->bias[i] = rnd_range(-5000, 5000);
    j->mult[i] = rnd_range(1 << 30, INT32_MAX);
    j->shift[i] = rnd_range(-12, -6);
  }
  j->mult_s = rnd_range(1 << 30, INT32_MAX);
  j->shift_s = rnd_range(-12, -7);
  j->zp = rnd_range(-20, 20);
  j->amin = rnd_range(-128, -100);
  j->amax = rnd_range(100, 127);
}

static void job_free(job_t *j) {
  free(j->a);
  free(j->b);
  free(j->bias);
  free(j->mult);
  free(j->shift);
}

static size_t out_bytes(const job_t *j) {
  return (size_t)j->m * j->n * (j->requant ? 1u : 4u);
}

static uint32_t align64(uint32_t x) {
  return (x + 63u) & ~63u;
}

/* Device layout shared by both paths. */
typedef struct layout {
  uint32_t a, b, bias, mult, shift, c, end;
} layout_t;

static layout_t layout_of(const job_t *j) {
  layout_t l;
  l.a = BASE;
  l.b = align64(l.a + j->m * j->k);
  l.bias = align64(l.b + j->k * j->n);
  l.mult = align64(l.bias + 4u * j->n);
  l.shift = align64(l.mult + 4u * j->n);
  l.c = align64(l.shift + 4u * j->n);
  l.end = l.c + (uint32_t)out_bytes(j) + GUARD;
  return l;
}

/* Run `j` on `dev`; the result and the guard bytes after it go into out (out_bytes + GUARD). */
static tsr_status_t run_job(tsr_dev_t *dev, const job_t *j, uint8_t *out, const char *path) {
  const layout_t l = layout_of(j);
  const tsr_hal_t *hal = &dev->hal;
  const size_t ob = out_bytes(j);
  memset(out, 0x5a, ob + GUARD);
  tsr_status_t st;
  if ((st = tsr_hal_mem_write(hal, l.a, j->a, (size_t)j->m * j->k)) != TSR_OK ||
      (st = tsr_hal_mem_write(hal, l.b, j->b, (size_t)j->k * j->n)) != TSR_OK ||
      (st = tsr_hal_mem_write(hal, l.bias, j->bias, 4u * j->n)) != TSR_OK ||
      (st = tsr_hal_mem_write(hal, l.mult, j->mult, 4u * j->n)) != TSR_OK ||
      (st = tsr_hal_mem_write(hal, l.shift, j->shift, 4u * j->n)) != TSR_OK ||
      (st = tsr_hal_mem_write(hal, l.c, out, ob + GUARD)) != TSR_OK) {
    failf("%s: writing the operands: %s", path, tsr_status_str(st));
    return st;
  }
  tsr_gemm_desc_t d;
  memset(&d, 0, sizeof d);
  d.m = j->m;
  d.k = j->k;
  d.n = j->n;
  d.a_addr = l.a;
  d.lda = j->k;
  d.b_addr = l.b;
  d.ldb = j->n;
  d.c_addr = l.c;
  d.ldc = j->n * (j->requant ? 1u : 4u);
  d.has_bias = j->has_bias;
  d.bias_addr = l.bias;
  d.requant = j->requant;
  d.per_channel = j->per_channel;
  d.mult_addr = l.mult;
  d.shift_addr = l.shift;
  d.mult = j->mult_s;
  d.shift = j->shift_s;
  d.out_zp = j->zp;
  d.act_min = j->amin;
  d.act_max = j->amax;
  tsr_gemm_plan_t plan;
  if ((st = tsr_gemm_plan(&dev->info, &d, &plan)) != TSR_OK) {
    failf("%s: no plan: %s", path, tsr_status_str(st));
    return st;
  }
  if ((st = tsr_soft_reset(dev)) != TSR_OK || (st = tsr_gemm_run(dev, &d, &plan, NULL, NULL)) != TSR_OK) {
    failf("%s: gemm %ux%ux%u: %s", path, j->m, j->k, j->n, tsr_dev_error(dev));
    return st;
  }
  if ((st = tsr_hal_mem_read(hal, l.c, out, ob + GUARD)) != TSR_OK) {
    failf("%s: reading C: %s", path, tsr_status_str(st));
    return st;
  }
  return TSR_OK;
}

/* Golden result of j (out_bytes). */
static void golden(const job_t *j, uint8_t *out) {
  tsr_gemm_params_t p;
  memset(&p, 0, sizeof p);
  p.bias = j->has_bias ? j->bias : NULL;
  p.requant = j->requant;
  p.mult = j->per_channel ? j->mult : NULL;
  p.shift = j->per_channel ? j->shift : NULL;
  p.mult_scalar = j->mult_s;
  p.shift_scalar = j->shift_s;
  p.out_zp = j->zp;
  p.act_min = j->amin;
  p.act_max = j->amax;
  size_t mn = (size_t)j->m * j->n;
  int32_t *o32 = j->requant ? NULL : (int32_t *)malloc(4u * mn);
  int8_t *o8 = j->requant ? (int8_t *)malloc(mn) : NULL;
  if (tsr_golden_gemm(j->m, j->k, j->n, j->a, j->k, j->b, j->n, &p, o32, o8) != 0) {
    fprintf(stderr, "test_uart_e2e: the golden model refused a job\n");
    exit(2);
  }
  memcpy(out, j->requant ? (void *)o8 : (void *)o32, out_bytes(j));
  free(o32);
  free(o8);
}

typedef struct env {
  tsr_hal_t uart_hal;     /* the real UART HAL */
  counting_t cnt;         /* wraps it for the driver */
  tsr_dev_t udev;
  const tsr_uart_transport_t *t;
  tsr_hal_t direct_hal;
  tsr_dev_t ddev;
} env_t;

static tsr_uart_simlink_stats_t rtl_stats(const env_t *e) {
  tsr_uart_simlink_stats_t s;
  memset(&s, 0, sizeof s);
  tsr_uart_simlink_stats(e->t, &s);
  return s;
}

static tsr_uart_stats_t link_stats(const env_t *e) {
  tsr_uart_stats_t s;
  memset(&s, 0, sizeof s);
  tsr_hal_uart_stats(&e->uart_hal, &s);
  return s;
}

/* Compare one job on both paths and with the golden model. */
static void check_job(env_t *e, const job_t *j, const char *what) {
  const size_t ob = out_bytes(j);
  uint8_t *u = malloc(ob + GUARD), *d = malloc(ob + GUARD), *g = malloc(ob);
  if (u == NULL || d == NULL || g == NULL) {
    fprintf(stderr, "test_uart_e2e: out of memory\n");
    exit(2);
  }
  golden(j, g);
  double t0 = now_s();
  uint64_t c0 = tsr_hal_cycles(&e->uart_hal);
  tsr_uart_stats_t s0 = link_stats(e);
  bool ok = run_job(&e->udev, j, u, "uart") == TSR_OK;
  double tu = now_s() - t0;
  uint64_t cu = tsr_hal_cycles(&e->uart_hal) - c0;
  tsr_uart_stats_t s1 = link_stats(e);
  ok = ok && run_job(&e->ddev, j, d, "direct") == TSR_OK;
  if (ok) {
    size_t bad = 0;
    while (bad < ob && u[bad] == g[bad]) {
      bad++;
    }
    if (bad < ob) {
      failf("%s: %ux%ux%u: the UART result differs from the golden model at byte %zu (%d vs %d)",
            what, j->m, j->k, j->n, bad, u[bad], g[bad]);
    } else if (memcmp(u, d, ob) != 0) {
      failf("%s: the UART result differs from the direct path", what);
    }
    for (size_t i = 0; i < GUARD; i++) {
      if (u[ob + i] != 0x5a || d[ob + i] != 0x5a) {
        failf("%s: a guard byte after C changed", what);
        break;
      }
    }
  }
  printf("  %-28s %3ux%3ux%3u %s: bit-exact %s, equal to the direct path %s; %" PRIu64
         " frames (%" PRIu64 " retried), %" PRIu64 " bytes, %" PRIu64 " cycles, %.2f s\n",
         what, j->m, j->k, j->n, j->requant ? (j->per_channel ? "int8/ch" : "int8   ") : "int32  ",
         g_fail ? "NO" : "yes", g_fail ? "?" : "yes", s1.frames_sent - s0.frames_sent,
         s1.retries - s0.retries, (s1.bytes_sent + s1.bytes_received) - (s0.bytes_sent + s0.bytes_received),
         cu, tu);
  fflush(stdout);
  free(u);
  free(d);
  free(g);
}

/* ---- faults --------------------------------------------------------------------------------- */

static void arm(const env_t *e, bool to_host, uint64_t at, uint8_t mask) {
  tsr_uart_fault_t f = {to_host, at, mask};
  if (tsr_uart_simlink_fault(e->t, &f) != TSR_OK) {
    failf("cannot arm a fault");
  }
}

/* One WRITE32 to DMA_WIN_BASE with faults armed by `setup`; check the outcome. */
static uint32_t g_win = 0;
typedef struct expect {
  tsr_status_t st;
  int writes;       /* register writes the bridge must issue */
  int crc, abandoned, replays, naks, timeouts, bad_replies;  /* counts; -1: any */
} expect_t;

static bool count_is(uint64_t got, int want) {
  return want < 0 || got == (uint64_t)want;
}

static void fault_case(env_t *e, const char *what, uint32_t value, const expect_t *x) {
  tsr_uart_simlink_stats_t r0 = rtl_stats(e);
  tsr_uart_stats_t l0 = link_stats(e);
  uint64_t issued0 = e->cnt.writes_issued;
  tsr_status_t st = tsr_hal_write32(&e->cnt.inner, TSR_DMA_WIN_BASE_REG_OFFSET, value);
  if (st == TSR_OK || st == TSR_BUS) {
    e->cnt.writes_issued++;
  }
  tsr_uart_simlink_stats_t r1 = rtl_stats(e);
  tsr_uart_stats_t l1 = link_stats(e);
  uint32_t back = 0;
  tsr_status_t rst = tsr_hal_read32(&e->cnt.inner, TSR_DMA_WIN_BASE_REG_OFFSET, &back);
  if (st == TSR_OK) {
    g_win = value;
  }
  const int writes = (int)(r1.reg_writes - r0.reg_writes);
  bool ok = st == x->st && rst == TSR_OK && back == g_win && writes == x->writes &&
            count_is(r1.crc_errors - r0.crc_errors, x->crc) &&
            count_is(r1.abandoned - r0.abandoned, x->abandoned) &&
            count_is(r1.replays - r0.replays, x->replays) && count_is(l1.naks - l0.naks, x->naks) &&
            count_is(l1.timeouts - l0.timeouts, x->timeouts) &&
            count_is(l1.bad_replies - l0.bad_replies, x->bad_replies) &&
            e->cnt.writes_issued - issued0 == (uint64_t)x->writes;
  printf("  %-36s -> %-9s register writes issued %d, value %s; board: %d bad CRC, %d abandoned, "
         "%d replayed; host: %" PRIu64 " retries (%d NAK, %d timeout, %d bad reply)%s%s\n",
         what, tsr_status_str(st), writes, back == g_win ? "right" : "WRONG",
         (int)(r1.crc_errors - r0.crc_errors), (int)(r1.abandoned - r0.abandoned),
         (int)(r1.replays - r0.replays), l1.retries - l0.retries, (int)(l1.naks - l0.naks),
         (int)(l1.timeouts - l0.timeouts), (int)(l1.bad_replies - l0.bad_replies),
         st != TSR_OK ? ": " : "", st != TSR_OK ? tsr_hal_uart_error(&e->uart_hal) : "");
  if (!ok) {
    failf("%s: expected %s, %d writes, %d CRC, %d abandoned, %d replays, %d NAK, %d timeouts, "
          "%d bad replies; register 0x%08x, expected 0x%08x",
          what, tsr_status_str(x->st), x->writes, x->crc, x->abandoned, x->replays, x->naks,
          x->timeouts, x->bad_replies, back, g_win);
  }
  fflush(stdout);
}

static void fault_cases(env_t *e) {
  /* WRITE32 request: 15 bytes (SYNC 0, CMD 1, SEQ 2, ADDR 3-6, LEN 7-8, DATA 9-12, CRC 13-14);
   * its reply: 7 bytes (SYNC 0, STATUS 1, SEQ 2, LEN 3-4, CRC 5-6). */
  printf("line faults on WRITE32 DMA_WIN_BASE (a 32-bit rw register):\n");
  arm(e, false, 10, 0x01);
  fault_case(e, "payload byte flipped", 0x11111100u, &(expect_t){TSR_OK, 1, 1, 0, 0, 1, 0, 0});
  arm(e, false, 14, 0xFF);
  fault_case(e, "CRC byte damaged", 0x22222200u, &(expect_t){TSR_OK, 1, 1, 0, 0, 1, 0, 0});
  arm(e, false, 9, 0x00);
  fault_case(e, "payload byte dropped", 0x33333300u, &(expect_t){TSR_OK, 1, 0, 1, 0, 0, 1, 0});
  arm(e, false, 0, 0x04);
  /* (a later byte of the frame may happen to be 0xA5 and start a frame the board abandons) */
  fault_case(e, "SYNC byte flipped", 0x44444400u, &(expect_t){TSR_OK, 1, 0, -1, 0, 0, 1, 0});
  arm(e, true, 3, 0x00);
  /* (the host sees a timeout, or a reply whose LEN took a CRC byte and is then too long) */
  fault_case(e, "reply byte dropped (write lost ack)", 0x55555500u, &(expect_t){TSR_OK, 1, 0, 0, 1, 0, -1, -1});
  arm(e, true, 1, 0x20);
  fault_case(e, "reply STATUS flipped", 0x66666600u, &(expect_t){TSR_OK, 1, 0, 0, 1, 0, 0, 1});
  for (int i = 0; i < 8; i++) {
    arm(e, false, 15u * (uint64_t)i + 11u, 0x80);
  }
  fault_case(e, "every attempt damaged", 0x77777700u, &(expect_t){TSR_IO, 0, 8, 0, 0, 8, 0, 0});
  for (int i = 0; i < 8; i++) {
    arm(e, false, 15u * (uint64_t)i + 12u, 0x00);
  }
  fault_case(e, "every attempt cut short", 0x88888800u, &(expect_t){TSR_TIMEOUT, 0, 0, 8, 0, 0, 8, 0});
  fault_case(e, "clean write after the failures", 0x99999900u, &(expect_t){TSR_OK, 1, 0, 0, 0, 0, 0, 0});

  /* A bus error is final: not retried, reported. */
  {
    tsr_uart_simlink_stats_t r0 = rtl_stats(e);
    tsr_uart_stats_t l0 = link_stats(e);
    tsr_status_t st = tsr_hal_write32(&e->cnt.inner, TSR_ID_REG_OFFSET, 0x12345678u);
    tsr_uart_simlink_stats_t r1 = rtl_stats(e);
    tsr_uart_stats_t l1 = link_stats(e);
    uint32_t id = 0;
    tsr_hal_read32(&e->cnt.inner, TSR_ID_REG_OFFSET, &id);
    if (st == TSR_BUS) {
      e->cnt.writes_issued++;
    }
    printf("  %-36s -> %-9s %s; frames %" PRIu64 ", ID still 0x%08x\n", "write to read-only ID",
           tsr_status_str(st), tsr_hal_uart_error(&e->uart_hal), l1.frames_sent - l0.frames_sent, id);
    if (st != TSR_BUS || l1.frames_sent - l0.frames_sent != 1 || r1.reg_writes - r0.reg_writes != 1 ||
        (id >> 16) != TSR_VENDOR_ID || strstr(tsr_hal_uart_error(&e->uart_hal), "SLVERR") == NULL) {
      failf("a write to the read-only ID register: expected one SLVERR, not retried");
    }
  }
  /* An unknown command and a bad length come back as CMD and ARG. */
  {
    uint8_t status = 0xff;
    tsr_status_t st = tsr_hal_uart_request(&e->uart_hal, 0x07, 0, 0, NULL, &status, NULL, 0, NULL);
    uint8_t status2 = 0xff;
    tsr_status_t st2 = tsr_hal_uart_request(&e->uart_hal, TSR_UART_CMD_READ32, 2, 4, NULL,
                                            &status2, NULL, 0, NULL);
    printf("  %-36s -> STATUS 0x%02x (%s)\n", "unknown command 0x07", status,
           tsr_uart_status_str(status));
    printf("  %-36s -> STATUS 0x%02x (%s)\n", "READ32 at an unaligned address", status2,
           tsr_uart_status_str(status2));
    if (st != TSR_OK || status != TSR_UART_STS_CMD || st2 != TSR_OK || status2 != TSR_UART_STS_ARG) {
      failf("unknown command / unaligned READ32: expected STATUS CMD / ARG");
    }
  }
  /* A memory write with a damaged payload byte in its first frame. */
  {
    uint8_t src[300], back[300];
    for (int i = 0; i < 300; i++) {
      src[i] = (uint8_t)(rnd() | 1u);
    }
    tsr_uart_simlink_stats_t r0 = rtl_stats(e);
    arm(e, false, 9 + 100, 0x10);
    tsr_status_t st = tsr_hal_mem_write(&e->uart_hal, 0x8000, src, sizeof src);
    tsr_uart_simlink_stats_t r1 = rtl_stats(e);
    tsr_status_t st2 = tsr_hal_mem_read(&e->uart_hal, 0x8000, back, sizeof back);
    printf("  %-36s -> %-9s %" PRIu64 " memory bytes written (of 300), %" PRIu64
           " bad CRC, data %s\n",
           "MEM_WRITE payload byte flipped", tsr_status_str(st), r1.mem_writes - r0.mem_writes,
           r1.crc_errors - r0.crc_errors, memcmp(src, back, 300) == 0 ? "right" : "WRONG");
    if (st != TSR_OK || st2 != TSR_OK || r1.mem_writes - r0.mem_writes != 300 ||
        r1.crc_errors - r0.crc_errors != 1 || memcmp(src, back, 300) != 0) {
      failf("damaged MEM_WRITE: expected one retry and exactly 300 bytes written");
    }
  }
  /* Leave the window as reset left it. */
  if (tsr_hal_write32(&e->cnt.inner, TSR_DMA_WIN_BASE_REG_OFFSET, 0u) != TSR_OK) {
    failf("restoring DMA_WIN_BASE");
  }
  e->cnt.writes_issued++;
  g_win = 0;
}

/* ---- main ----------------------------------------------------------------------------------- */

static int usage(const char *why) {
  fprintf(stderr, "test_uart_e2e: %s (usage: test_uart_e2e --dim N [--seed S] [--count C] "
                  "[--verbose])\n", why);
  return 2;
}

int main(int argc, char **argv) {
  unsigned dim = 0, count = 4;
  uint32_t seed = (uint32_t)time(NULL);
  const char *env_seed = getenv("TSR_SEED");
  if (env_seed != NULL) {
    seed = (uint32_t)strtoul(env_seed, NULL, 0);
  }
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(argv[i], "--dim") == 0 && v != NULL) {
      dim = (unsigned)strtoul(v, NULL, 0);
      i++;
    } else if (strcmp(argv[i], "--seed") == 0 && v != NULL) {
      seed = (uint32_t)strtoul(v, NULL, 0);
      i++;
    } else if (strcmp(argv[i], "--count") == 0 && v != NULL) {
      count = (unsigned)strtoul(v, NULL, 0);
      i++;
    } else if (strcmp(argv[i], "--verbose") == 0) {
      g_verbose = true;
    } else {
      return usage("bad arguments");
    }
  }
  if (dim == 0) {
    return usage("give --dim");
  }
  g_rng = seed * 2654435761u ^ 0x9e3779b9u;
  if (g_rng == 0) {
    g_rng = 1;
  }
  printf("test_uart_e2e: dim %u, seed %u (replay with --seed %u)\n", dim, seed, seed);
  double t_start = now_s();

  env_t e;
  memset(&e, 0, sizeof e);
  char err[512];
  tsr_uart_transport_t t;
  tsr_status_t st = tsr_uart_simlink_open(dim, NULL, &t, err, sizeof err);
  if (st == TSR_OK) {
    st = tsr_hal_uart_open_transport(&t, NULL, &e.uart_hal, err, sizeof err);
  }
  if (st != TSR_OK) {
    fprintf(stderr, "test_uart_e2e: FAIL: cannot open the UART board: %s\n", err);
    return 1;
  }
  e.t = tsr_hal_uart_transport(&e.uart_hal);
  e.cnt.inner = e.uart_hal;
  tsr_hal_t counted = {&k_counting_ops, &e.cnt};
  if (tsr_dev_open(&e.udev, &counted) != TSR_OK) {
    fprintf(stderr, "test_uart_e2e: FAIL: driver on the UART board: %s (%s)\n",
            tsr_dev_error(&e.udev), tsr_hal_uart_error(&e.uart_hal));
    return 1;
  }
  tsr_uart_info_t info;
  tsr_hal_uart_info(&e.uart_hal, &info);
  printf("board: %ux%u array, %u bytes of on-chip memory, frames up to %u bytes, %u cycles per bit, "
         "inter-byte timeout %u bits\n",
         e.udev.info.dim, e.udev.info.dim, info.mem_bytes, info.max_len, info.clk_per_bit,
         info.rx_timeout_bits);

  tsr_sim_cfg_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.mem_size = 1u << 20;
  cfg.rd_latency = 10;
  cfg.wr_latency = 10;
  cfg.watchdog_cycles = 100000000u;
  cfg.seed = seed;
  st = tsr_hal_sim_open(dim, &cfg, &e.direct_hal, err, sizeof err);
  if (st != TSR_OK || tsr_dev_open(&e.ddev, &e.direct_hal) != TSR_OK) {
    fprintf(stderr, "test_uart_e2e: FAIL: cannot open the direct path: %s\n", err);
    return 1;
  }

  /* GEMMs: fixed shapes, then random ones (small: the board has little memory). */
  printf("GEMMs, UART path vs golden model and direct path:\n");
  job_t j;
  job_make(&j, 16, 16, 16, 0);
  check_job(&e, &j, "16^3 per-tensor + bias");
  job_free(&j);
  job_make(&j, 13, 40, 21, 1);
  check_job(&e, &j, "raw int32 + bias");
  job_free(&j);
  job_make(&j, 24, 33, 9, 2);
  check_job(&e, &j, "per-channel");
  job_free(&j);
  for (unsigned i = 0; i < count && !g_fail; i++) {
    uint32_t m = 1 + rnd() % 40, k = 1 + rnd() % 70, n = 1 + rnd() % 40;
    job_make(&j, m, k, n, (int)(rnd() % 4));
    char what[64];
    snprintf(what, sizeof what, "random %u", i);
    check_job(&e, &j, what);
    job_free(&j);
  }

  if (!g_fail) {
    fault_cases(&e);
  }

  /* A GEMM with faults sprinkled over its traffic, both directions. The host gives up on a
   * request after 8 failed attempts (its default), so the faults are spread to keep every
   * request below that: consecutive faults in one direction are at least FAULT_GAP bytes
   * apart. A request's 8 attempts span at most 8 x 267 bytes in the direction of its long
   * frames (256 data bytes and the header; at most 5 faults there) and 8 short frames in the
   * other (at most 1), so no request fails more than 6 times. Random positions alone once put 8 faults on one MEM_WRITE. The
   * job runs once without faults to measure its traffic; the faults fall on its first 90 %. */
  if (!g_fail) {
    enum { FAULTS_TO_BOARD = 12, FAULTS_TO_HOST = 4, FAULT_GAP = 440 };
    printf("a GEMM with %d random line faults:\n", FAULTS_TO_BOARD + FAULTS_TO_HOST);
    job_make(&j, 24, 40, 24, 1);
    tsr_uart_stats_t l0 = link_stats(&e);
    check_job(&e, &j, "without faults");
    tsr_uart_stats_t l1 = link_stats(&e);
    const uint64_t span_b = (l1.bytes_sent - l0.bytes_sent) * 9 / 10 / FAULTS_TO_BOARD;
    const uint64_t span_h = (l1.bytes_received - l0.bytes_received) * 9 / 10 / FAULTS_TO_HOST;
    if (span_b < FAULT_GAP || span_h < FAULT_GAP) {
      failf("the job moves %" PRIu64 " bytes to the board and %" PRIu64 " back: too few for %d"
            " and %d faults %d bytes apart", l1.bytes_sent - l0.bytes_sent,
            l1.bytes_received - l0.bytes_received, FAULTS_TO_BOARD, FAULTS_TO_HOST, FAULT_GAP);
    }
    for (int i = 0; i < FAULTS_TO_BOARD + FAULTS_TO_HOST && !g_fail; i++) {
      const bool to_host = i >= FAULTS_TO_BOARD;
      const uint64_t slot = to_host ? span_h : span_b;
      const uint64_t at = (uint64_t)(to_host ? i - FAULTS_TO_BOARD : i) * slot +
                          rnd() % (slot - FAULT_GAP + 1);
      const uint8_t mask = rnd() % 4 == 0 ? 0u : (uint8_t)(1u << (rnd() % 8));
      arm(&e, to_host, at, mask);
    }
    if (!g_fail) {
      tsr_uart_simlink_stats_t r0 = rtl_stats(&e);
      tsr_uart_stats_t l2 = link_stats(&e);
      check_job(&e, &j, "with faults");
      tsr_uart_simlink_stats_t r1 = rtl_stats(&e);
      tsr_uart_stats_t l3 = link_stats(&e);
      /* A fault costs one retry at most: a retry that failed because the rest of the damaged
       * attempt was still on the line would show as more. */
      if (l3.retries - l2.retries > r1.faults - r0.faults) {
        failf("%" PRIu64 " retries for %" PRIu64 " faults: one fault cost more than one retry",
              l3.retries - l2.retries, r1.faults - r0.faults);
      }
      printf("  faults injected %" PRIu64 "; board: %" PRIu64 " bad CRC, %" PRIu64
             " abandoned, %" PRIu64 " replayed\n",
             r1.faults - r0.faults, r1.crc_errors - r0.crc_errors, r1.abandoned - r0.abandoned,
             r1.replays - r0.replays);
      if (r1.faults - r0.faults < FAULTS_TO_BOARD + FAULTS_TO_HOST) {
        failf("only %" PRIu64 " of the %d faults hit the GEMM's traffic", r1.faults - r0.faults,
              FAULTS_TO_BOARD + FAULTS_TO_HOST);
      }
    }
    job_free(&j);
  }

  /* The invariant over the whole run. */
  tsr_uart_simlink_stats_t r = rtl_stats(&e);
  tsr_uart_stats_t l = link_stats(&e);
  printf("register writes: the driver and tests issued %" PRIu64 ", the bridge put %" PRIu64
         " on its AXI4-Lite port\n",
         e.cnt.writes_issued, r.reg_writes);
  if (r.reg_writes != e.cnt.writes_issued) {
    failf("the bridge issued %" PRIu64 " register writes, the host asked for %" PRIu64,
          r.reg_writes, e.cnt.writes_issued);
  }
  printf("link: %" PRIu64 " requests, %" PRIu64 " frames, %" PRIu64 " bytes sent, %" PRIu64
         " received, %" PRIu64 " retries (%" PRIu64 " NAK, %" PRIu64 " timeout, %" PRIu64
         " bad reply), %" PRIu64 " replays, %" PRIu64 " stale; board: %" PRIu64 " good frames, %" PRIu64
         " bad CRC, %" PRIu64 " abandoned, %" PRIu64 " cycles\n",
         l.requests, l.frames_sent, l.bytes_sent, l.bytes_received, l.retries, l.naks, l.timeouts,
         l.bad_replies, l.replays, l.stale_replies, r.frames_ok, r.crc_errors, r.abandoned, r.cycles);
  tsr_hal_close(&e.uart_hal);
  tsr_hal_close(&e.direct_hal);
  if (g_fail) {
    fprintf(stderr, "test_uart_e2e: FAILED (seed %u)\n", seed);
    return 1;
  }
  printf("test_uart_e2e: PASS in %.1f s: every GEMM bit-exact and equal to the direct path, "
         "every fault detected and retried or failed cleanly, no damaged or repeated write reached "
         "a register\n",
         now_s() - t_start);
  return 0;
}
