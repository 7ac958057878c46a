/* test_tb_memmodel.c: unit tests of the bench's C AXI4 memory model (tb/tsr_axi_mem.c), no Verilator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "tsr_axi_mem.h"

/* The tests play the AXI master: they set the request of a cycle, look at
 * the model's outputs of that cycle (handshake = valid && ready), then tick.
 * `cyc` numbers the cycle whose outputs `o` shows. */
typedef struct tb {
  tsr_axi_mem_t *m;
  tsr_axi_req_t q;
  const tsr_axi_rsp_t *o;
  uint64_t cyc;
} tb_t;

#define KIB 1024u

static uint32_t g_seed = 1; /* seed of the randomized traffic, from --seed */

static tsr_axi_mem_cfg_t base_cfg(void) {
  tsr_axi_mem_cfg_t c;
  tsr_axi_mem_cfg_default(&c);
  c.mem_size = 64u * KIB;
  c.rd_latency = 1;
  c.wr_latency = 1;
  c.max_reports = 0; /* keep the test output clean; counts are checked instead */
  return c;
}

static void tb_open(tb_t *t, const tsr_axi_mem_cfg_t *c) {
  memset(t, 0, sizeof *t);
  t->m = tsr_axi_mem_create(c);
  assert_non_null(t->m);
  t->o = tsr_axi_mem_rsp(t->m);
}

static void tb_close(tb_t *t) {
  tsr_axi_mem_destroy(t->m);
}

static void tick(tb_t *t) {
  t->o = tsr_axi_mem_tick(t->m, &t->q);
  t->cyc++;
}

static unsigned size_log2(unsigned bytes) {
  unsigned s = 0;
  while ((1u << s) < bytes) {
    s++;
  }
  return s;
}

/* Hold an AR (any size/burst) until it is accepted; returns the handshake cycle. */
static uint64_t ar_send_raw(tb_t *t, uint32_t addr, unsigned len, unsigned size, unsigned burst) {
  t->q.arvalid = 1;
  t->q.araddr = addr;
  t->q.arlen = (uint8_t)len;
  t->q.arsize = (uint8_t)size;
  t->q.arburst = (uint8_t)burst;
  for (int guard = 0; guard < 10000; guard++) {
    const int hs = t->o->arready;
    const uint64_t c = t->cyc;
    tick(t);
    if (hs) {
      t->q.arvalid = 0;
      return c;
    }
  }
  fail_msg("AR at 0x%x never accepted", addr);
  return 0;
}

static uint64_t ar_send(tb_t *t, uint32_t addr, unsigned len, unsigned bus) {
  return ar_send_raw(t, addr, len, size_log2(bus), TSR_AXI_BURST_INCR);
}

static uint64_t aw_send_raw(tb_t *t, uint32_t addr, unsigned len, unsigned size, unsigned burst) {
  t->q.awvalid = 1;
  t->q.awaddr = addr;
  t->q.awlen = (uint8_t)len;
  t->q.awsize = (uint8_t)size;
  t->q.awburst = (uint8_t)burst;
  for (int guard = 0; guard < 10000; guard++) {
    const int hs = t->o->awready;
    const uint64_t c = t->cyc;
    tick(t);
    if (hs) {
      t->q.awvalid = 0;
      return c;
    }
  }
  fail_msg("AW at 0x%x never accepted", addr);
  return 0;
}

static uint64_t aw_send(tb_t *t, uint32_t addr, unsigned len, unsigned bus) {
  return aw_send_raw(t, addr, len, size_log2(bus), TSR_AXI_BURST_INCR);
}

/* Send one W beat; returns its handshake cycle. */
static uint64_t w_send(tb_t *t, const uint8_t *data, uint16_t strb, int last, unsigned bus) {
  t->q.wvalid = 1;
  memcpy(t->q.wdata, data, bus);
  t->q.wstrb = strb;
  t->q.wlast = (uint8_t)last;
  for (int guard = 0; guard < 10000; guard++) {
    const int hs = t->o->wready;
    const uint64_t c = t->cyc;
    tick(t);
    if (hs) {
      t->q.wvalid = 0;
      return c;
    }
  }
  fail_msg("W beat never accepted");
  return 0;
}

/* Wait for B with bready high; returns bresp, and the cycle in *when. */
static int b_take(tb_t *t, uint64_t *when) {
  t->q.bready = 1;
  for (int guard = 0; guard < 10000; guard++) {
    if (t->o->bvalid) {
      const int r = t->o->bresp;
      if (when != NULL) {
        *when = t->cyc;
      }
      tick(t);
      t->q.bready = 0;
      return r;
    }
    tick(t);
  }
  fail_msg("no B response");
  return -1;
}

/* Collect `beats` R beats with rready high; first beat cycle in *first,
 * last in *lastc; returns the OR of all rresp, checks rlast. */
static int r_take(tb_t *t, uint8_t *buf, unsigned beats, unsigned bus, uint64_t *first, uint64_t *lastc) {
  int resp = 0;
  t->q.rready = 1;
  for (unsigned b = 0; b < beats;) {
    if (t->o->rvalid) {
      if (b == 0 && first != NULL) {
        *first = t->cyc;
      }
      if (lastc != NULL) {
        *lastc = t->cyc;
      }
      memcpy(buf + (size_t)b * bus, t->o->rdata, bus);
      resp |= t->o->rresp;
      assert_int_equal(t->o->rlast, b + 1 == beats);
      b++;
    }
    tick(t);
    if (t->cyc > 1000000u) {
      fail_msg("R beats stopped coming");
    }
  }
  t->q.rready = 0;
  return resp;
}

static void fill(uint8_t *p, size_t n, unsigned salt) {
  for (size_t i = 0; i < n; i++) {
    p[i] = (uint8_t)(i * 131u + salt * 7u + 1u);
  }
}

/* ---- latency ---------------------------------------------------------- */

static void read_latency_is_cycles_from_ar_handshake_to_first_r(void **state) {
  (void)state;
  const unsigned lats[] = {1, 2, 5, 17};
  for (size_t i = 0; i < sizeof lats / sizeof lats[0]; i++) {
    tsr_axi_mem_cfg_t c = base_cfg();
    c.rd_latency = lats[i];
    tb_t t;
    tb_open(&t, &c);
    uint8_t buf[64];
    uint64_t hs = ar_send(&t, 0x100, 3, 8);
    uint64_t first = 0, lastc = 0;
    r_take(&t, buf, 4, 8, &first, &lastc);
    assert_int_equal(first - hs, lats[i]);
    assert_int_equal(lastc - first, 3); /* back-to-back beats without cap or stalls */
    tb_close(&t);
  }
}

static void read_latency_zero_counts_as_one(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  c.rd_latency = 0;
  tb_t t;
  tb_open(&t, &c);
  uint8_t buf[8];
  uint64_t hs = ar_send(&t, 0, 0, 8);
  uint64_t first = 0;
  r_take(&t, buf, 1, 8, &first, NULL);
  assert_int_equal(first - hs, 1);
  tb_close(&t);
}

static void write_latency_is_cycles_from_last_w_to_b(void **state) {
  (void)state;
  const unsigned lats[] = {1, 3, 12};
  for (size_t i = 0; i < sizeof lats / sizeof lats[0]; i++) {
    tsr_axi_mem_cfg_t c = base_cfg();
    c.wr_latency = lats[i];
    tb_t t;
    tb_open(&t, &c);
    uint8_t d[8] = {0};
    aw_send(&t, 0x200, 1, 8);
    w_send(&t, d, 0xFF, 0, 8);
    uint64_t last = w_send(&t, d, 0xFF, 1, 8);
    uint64_t bcyc = 0;
    assert_int_equal(b_take(&t, &bcyc), TSR_AXI_OKAY);
    assert_int_equal(bcyc - last, lats[i]);
    tb_close(&t);
  }
}

/* ---- data ------------------------------------------------------------- */

static void reads_return_memory_contents_in_order_with_several_outstanding(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  c.rd_latency = 6;
  tb_t t;
  tb_open(&t, &c);
  uint8_t img[4096];
  fill(img, sizeof img, 3);
  assert_int_equal(tsr_axi_mem_write(t.m, 0x3000, img, sizeof img), 0);
  /* four bursts issued back to back before any data is taken */
  const uint32_t addrs[4] = {0x3800, 0x3000, 0x3F00, 0x3100};
  const unsigned lens[4] = {3, 0, 15, 7};
  for (int i = 0; i < 4; i++) {
    ar_send(&t, addrs[i], lens[i], 8);
  }
  for (int i = 0; i < 4; i++) {
    uint8_t buf[128];
    assert_int_equal(r_take(&t, buf, lens[i] + 1u, 8, NULL, NULL), TSR_AXI_OKAY);
    assert_memory_equal(buf, img + (addrs[i] - 0x3000), (lens[i] + 1u) * 8u);
  }
  tsr_axi_mem_stats_t st;
  tsr_axi_mem_stats(t.m, &st);
  assert_int_equal(st.rd_bursts, 4);
  assert_int_equal(st.rd_beats, 4 + 1 + 16 + 8);
  assert_int_equal(st.protocol_errors, 0);
  tb_close(&t);
}

static void arready_drops_when_the_read_queue_is_full(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  tb_t t;
  tb_open(&t, &c);
  for (unsigned i = 0; i < TSR_AXI_MEM_MAX_OUTSTANDING; i++) {
    ar_send(&t, 0x100u * i, 0, 8);
  }
  t.q.arvalid = 1;
  t.q.araddr = 0x8000;
  for (int i = 0; i < 20; i++) {
    assert_int_equal(t.o->arready, 0);
    tick(&t);
  }
  /* taking one R beat frees a slot */
  uint8_t buf[8];
  r_take(&t, buf, 1, 8, NULL, NULL);
  int accepted = 0;
  for (int i = 0; i < 3 && !accepted; i++) {
    accepted = t.o->arready;
    tick(&t);
  }
  assert_true(accepted);
  tb_close(&t);
}

static void wstrb_writes_only_the_strobed_bytes(void **state) {
  (void)state;
  const unsigned buses[] = {4, 8, 16};
  for (size_t k = 0; k < 3; k++) {
    const unsigned bus = buses[k];
    tsr_axi_mem_cfg_t c = base_cfg();
    c.bus_bytes = bus;
    tb_t t;
    tb_open(&t, &c);
    uint8_t old[32], data[16], got[32], want[32];
    memset(old, 0xEE, sizeof old);
    assert_int_equal(tsr_axi_mem_write(t.m, 0x400, old, sizeof old), 0);
    for (unsigned i = 0; i < bus; i++) {
      data[i] = (uint8_t)(0x11u * (i + 1u));
    }
    const uint16_t strb[2] = {(uint16_t)(0xA5A5u & ((1u << bus) - 1u)), (uint16_t)(0x0F01u & ((1u << bus) - 1u))};
    memcpy(want, old, sizeof want);
    for (unsigned b = 0; b < 2; b++) {
      for (unsigned i = 0; i < bus; i++) {
        if ((strb[b] >> i) & 1u) {
          want[b * bus + i] = data[i];
        }
      }
    }
    aw_send(&t, 0x400, 1, bus);
    w_send(&t, data, strb[0], 0, bus);
    w_send(&t, data, strb[1], 1, bus);
    assert_int_equal(b_take(&t, NULL), TSR_AXI_OKAY);
    assert_int_equal(tsr_axi_mem_read(t.m, 0x400, got, sizeof got), 0);
    assert_memory_equal(got, want, sizeof want);
    tb_close(&t);
  }
}

static void unaligned_address_starts_at_the_containing_beat(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  tb_t t;
  tb_open(&t, &c);
  uint8_t img[32], buf[16];
  fill(img, sizeof img, 9);
  tsr_axi_mem_write(t.m, 0x500, img, sizeof img);
  ar_send(&t, 0x503, 1, 8);
  r_take(&t, buf, 2, 8, NULL, NULL);
  assert_memory_equal(buf, img, 16); /* beats are the aligned words 0x500 and 0x508 */
  tb_close(&t);
}

/* ---- bandwidth -------------------------------------------------------- */

/* Cycles from the first to the last R beat of one 64-beat burst. */
static uint64_t read_span(unsigned bytes_per_cycle) {
  tsr_axi_mem_cfg_t c = base_cfg();
  c.bytes_per_cycle = bytes_per_cycle;
  tb_t t;
  tb_open(&t, &c);
  uint8_t buf[64 * 8];
  ar_send(&t, 0x1000, 63, 8);
  uint64_t first = 0, last = 0;
  r_take(&t, buf, 64, 8, &first, &last);
  tb_close(&t);
  return last - first;
}

static void bandwidth_cap_limits_read_beats(void **state) {
  (void)state;
  assert_int_equal(read_span(0), 63);  /* no cap: one beat per cycle */
  assert_int_equal(read_span(8), 63);  /* cap equal to the bus: still one per cycle */
  /* 2 bytes/cycle on an 8-byte bus: a beat every 4 cycles after the bucket's
   * initial 18 bytes (two beats and a bit) are spent */
  uint64_t s2 = read_span(2);
  assert_in_range(s2, 61u * 4u - 4u, 63u * 4u);
  /* 4 bytes/cycle: a beat every other cycle */
  uint64_t s4 = read_span(4);
  assert_in_range(s4, 61u * 2u - 2u, 63u * 2u);
}

/* A `beats`-beat INCR read at 0x2000 and write at 0x4000 (8-byte beats), R and
 * B always accepted; the caller raises the valids. */
static void rw_requests(tb_t *t, unsigned beats) {
  t->q.araddr = 0x2000;
  t->q.arlen = (uint8_t)(beats - 1u);
  t->q.arsize = 3;
  t->q.arburst = 1;
  t->q.awaddr = 0x4000;
  t->q.awlen = (uint8_t)(beats - 1u);
  t->q.awsize = 3;
  t->q.awburst = 1;
  t->q.wstrb = 0xFF;
  t->q.rready = 1;
  t->q.bready = 1;
}

/* Cycles until a 32-beat read and a 32-beat write issued together are both done. */
static uint64_t mixed_time(unsigned bytes_per_cycle) {
  tsr_axi_mem_cfg_t c = base_cfg();
  c.bytes_per_cycle = bytes_per_cycle;
  tb_t t;
  tb_open(&t, &c);
  rw_requests(&t, 32);
  /* AR and AW in the same cycle */
  t.q.arvalid = 1;
  t.q.awvalid = 1;
  t.q.wvalid = 1;
  unsigned rbeats = 0, wbeats = 0, b = 0;
  const uint64_t start = t.cyc;
  while (!(rbeats == 32 && b == 1)) {
    const tsr_axi_rsp_t o = *t.o;
    t.q.wlast = (uint8_t)(wbeats == 31);
    const int arh = t.q.arvalid && o.arready, awh = t.q.awvalid && o.awready;
    const int wh = t.q.wvalid && o.wready, rh = o.rvalid, bh = o.bvalid;
    tick(&t);
    if (arh) {
      t.q.arvalid = 0;
    }
    if (awh) {
      t.q.awvalid = 0;
    }
    if (wh && ++wbeats == 32) {
      t.q.wvalid = 0;
    }
    rbeats += (unsigned)rh;
    b += (unsigned)bh;
    assert_true(t.cyc - start < 1000);
  }
  tsr_axi_mem_stats_t st;
  tsr_axi_mem_stats(t.m, &st);
  assert_int_equal(st.rd_beats, 32);
  assert_int_equal(st.wr_beats, 32);
  tb_close(&t);
  return t.cyc - start;
}

static void bandwidth_cap_is_shared_by_reads_and_writes(void **state) {
  (void)state;
  const uint64_t free_run = mixed_time(0);   /* both channels in parallel: ~32 cycles */
  const uint64_t capped = mixed_time(8);     /* one beat per cycle in total: ~64 cycles */
  assert_in_range(free_run, 32, 40);
  assert_in_range(capped, 60, 72);
}

/* A 64-beat read and a 64-beat write under a bandwidth cap, the write's AW
 * `w_delay` cycles after the AR: the largest difference between the beats each
 * has moved while both still wait. A fair share keeps it small whatever the
 * phase of the two requests against the cap's refill period. */
static unsigned capped_beat_gap(unsigned bytes_per_cycle, unsigned w_delay) {
  tsr_axi_mem_cfg_t c = base_cfg();
  c.bytes_per_cycle = bytes_per_cycle;
  tb_t t;
  tb_open(&t, &c);
  rw_requests(&t, 64);
  t.q.arvalid = 1;
  unsigned rbeats = 0, wbeats = 0, gap = 0;
  for (unsigned cyc = 0; rbeats < 64 || wbeats < 64; ++cyc) {
    if (cyc == w_delay) {
      t.q.awvalid = 1;
      t.q.wvalid = 1;
    }
    const tsr_axi_rsp_t o = *t.o;
    t.q.wlast = (uint8_t)(wbeats == 63);
    const int arh = t.q.arvalid && o.arready, awh = t.q.awvalid && o.awready;
    const int wh = t.q.wvalid && o.wready, rh = o.rvalid;
    tick(&t);
    t.q.arvalid = arh ? 0 : t.q.arvalid;
    t.q.awvalid = awh ? 0 : t.q.awvalid;
    if (wh && ++wbeats == 64) {
      t.q.wvalid = 0;
    }
    rbeats += (unsigned)rh;
    if (rbeats < 64 && wbeats < 64 && cyc > w_delay + 32u) {
      const unsigned d = rbeats > wbeats ? rbeats - wbeats : wbeats - rbeats;
      gap = d > gap ? d : gap;
    }
    assert_true(cyc < 5000);
  }
  tb_close(&t);
  return gap;
}

static void capped_reads_and_writes_share_fairly_in_any_phase(void **state) {
  (void)state;
  /* Refill periods of 8, 4 and 2 cycles per beat, each request phase. */
  for (unsigned bpc = 1; bpc <= 4; bpc *= 2) {
    for (unsigned delay = 0; delay < 4; ++delay) {
      const unsigned gap = capped_beat_gap(bpc, delay);
      if (gap > 3u) {
        fail_msg("bytes_per_cycle %u, AW %u cycles after AR: reads and writes %u beats apart",
                 bpc, delay, gap);
      }
    }
  }
}

/* A write burst whose AW was accepted but whose data the master is slow to
 * send: WREADY reserves a beat of credits each cycle; unused, they must come
 * back, or a concurrent read would starve. */
static void unused_write_reservations_return_their_credits(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  c.bytes_per_cycle = 8;
  tb_t t;
  tb_open(&t, &c);
  aw_send(&t, 0x4000, 0, 8); /* no W beat follows during the read */
  uint8_t buf[64 * 8];
  ar_send(&t, 0x1000, 63, 8);
  uint64_t first = 0, last = 0;
  r_take(&t, buf, 64, 8, &first, &last);
  assert_in_range(last - first, 63, 70);
  tb_close(&t);
}

/* ---- error responses ---------------------------------------------------- */

static void bursts_touching_the_error_range_get_slverr_and_writes_are_dropped(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  c.err_base = 0x1100;
  c.err_size = 0x10;
  tb_t t;
  tb_open(&t, &c);
  uint8_t img[0x200], buf[64], d[8];
  fill(img, sizeof img, 5);
  tsr_axi_mem_write(t.m, 0x1000, img, sizeof img);
  memset(d, 0x5A, sizeof d);

  /* a read burst ending at the range's first byte */
  ar_send(&t, 0x10F8, 1, 8);
  assert_int_equal(r_take(&t, buf, 2, 8, NULL, NULL), TSR_AXI_SLVERR);
  for (int i = 0; i < 16; i++) {
    assert_int_equal(buf[i], 0);
  }
  /* the beats just below the range are fine */
  ar_send(&t, 0x10F0, 1, 8);
  assert_int_equal(r_take(&t, buf, 2, 8, NULL, NULL), TSR_AXI_OKAY);
  assert_memory_equal(buf, img + 0xF0, 16);
  /* a write burst into the range answers SLVERR and changes nothing */
  aw_send(&t, 0x1108, 0, 8);
  w_send(&t, d, 0xFF, 1, 8);
  assert_int_equal(b_take(&t, NULL), TSR_AXI_SLVERR);
  /* the first byte past the range is ordinary memory */
  aw_send(&t, 0x1110, 0, 8);
  w_send(&t, d, 0xFF, 1, 8);
  assert_int_equal(b_take(&t, NULL), TSR_AXI_OKAY);
  uint8_t after[0x200];
  tsr_axi_mem_read(t.m, 0x1000, after, sizeof after);
  assert_memory_equal(after, img, 0x110);
  assert_memory_equal(after + 0x110, d, 8);

  tsr_axi_mem_stats_t st;
  tsr_axi_mem_stats(t.m, &st);
  assert_int_equal(st.err_resps, 2);
  assert_int_equal(st.protocol_errors, 0);
  tb_close(&t);
}

static void bursts_beyond_memory_get_decerr(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg(); /* 64 KiB */
  tb_t t;
  tb_open(&t, &c);
  uint8_t buf[16], d[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  ar_send(&t, 0xFFF8, 0, 8); /* last word: fine */
  assert_int_equal(r_take(&t, buf, 1, 8, NULL, NULL), TSR_AXI_OKAY);
  ar_send(&t, 0x10000, 1, 8); /* first word past the end */
  assert_int_equal(r_take(&t, buf, 2, 8, NULL, NULL), TSR_AXI_DECERR);
  aw_send(&t, 0x80000000u, 0, 8);
  w_send(&t, d, 0xFF, 1, 8);
  assert_int_equal(b_take(&t, NULL), TSR_AXI_DECERR);
  tsr_axi_mem_stats_t st;
  tsr_axi_mem_stats(t.m, &st);
  assert_int_equal(st.err_resps, 2);
  tb_close(&t);
}

/* ---- injected faults -------------------------------------------------------- */

/* Collect `beats` R beats of bursts of `per` beats; per beat its rresp and its
 * cycle. Checks rlast. */
static void r_take_each(tb_t *t, uint8_t *buf, unsigned beats, unsigned per, unsigned bus, int *resp,
                        uint64_t *cyc) {
  t->q.rready = 1;
  const uint64_t start = t->cyc;
  for (unsigned b = 0; b < beats;) {
    if (t->o->rvalid) {
      memcpy(buf + (size_t)b * bus, t->o->rdata, bus);
      resp[b] = t->o->rresp;
      cyc[b] = t->cyc;
      assert_int_equal(t->o->rlast, (b + 1) % per == 0);
      b++;
    }
    tick(t);
    if (t->cyc - start > 200000u) {
      fail_msg("R beats stopped coming");
    }
  }
  t->q.rready = 0;
}

static void chosen_read_beat_answers_the_injected_error_and_only_that_beat(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  tb_t t;
  tb_open(&t, &c);
  uint8_t img[0x100], buf[32];
  fill(img, sizeof img, 3);
  tsr_axi_mem_write(t.m, 0x2000, img, sizeof img);
  tsr_axi_faults_t f = {.rd_burst = 2, .rd_beat = 2, .resp = TSR_AXI_DECERR};
  assert_int_equal(tsr_axi_mem_set_faults(t.m, &f), 0);
  int resp[4];
  uint64_t cyc[4];
  for (unsigned n = 1; n <= 3; n++) {
    const uint32_t a = 0x2000u + 0x20u * n + 3u; /* unaligned: the log keeps ARADDR as issued */
    ar_send(&t, a, 3, 8);
    r_take_each(&t, buf, 4, 4, 8, resp, cyc);
    for (unsigned b = 0; b < 4; b++) {
      const int bad = (n == 2 && b == 2);
      assert_int_equal(resp[b], bad ? TSR_AXI_DECERR : TSR_AXI_OKAY);
      if (bad) {
        for (unsigned i = 0; i < 8; i++) {
          assert_int_equal(buf[b * 8 + i], 0);
        }
      } else {
        assert_memory_equal(buf + b * 8, img + 0x20u * n + b * 8, 8);
      }
    }
  }
  tsr_axi_fault_log_t log;
  tsr_axi_mem_fault_log(t.m, &log);
  assert_int_equal(log.rd_err_bursts, 1);
  assert_int_equal(log.rd_first_addr, 0x2043u);
  assert_int_equal(log.wr_err_bursts, 0);
  /* a beat past the end of the burst means its last beat; SLVERR by default */
  tsr_axi_faults_t g = {.rd_burst = 1, .rd_beat = 200};
  assert_int_equal(tsr_axi_mem_set_faults(t.m, &g), 0);
  ar_send(&t, 0x2000, 1, 8);
  r_take_each(&t, buf, 2, 2, 8, resp, cyc);
  assert_int_equal(resp[0], TSR_AXI_OKAY);
  assert_int_equal(resp[1], TSR_AXI_SLVERR);
  tsr_axi_mem_stats_t st;
  tsr_axi_mem_stats(t.m, &st);
  assert_int_equal(st.err_resps, 2);
  assert_int_equal(st.protocol_errors, 0);
  tb_close(&t);
}

static void chosen_write_burst_answers_b_error_and_writes_nothing(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  tb_t t;
  tb_open(&t, &c);
  uint8_t img[0x40], after[0x40], d[8] = {9, 8, 7, 6, 5, 4, 3, 2};
  fill(img, sizeof img, 4);
  tsr_axi_mem_write(t.m, 0x3000, img, sizeof img);
  tsr_axi_faults_t f = {.wr_burst = 2, .resp = TSR_AXI_SLVERR};
  assert_int_equal(tsr_axi_mem_set_faults(t.m, &f), 0);
  for (unsigned n = 0; n < 3; n++) {
    aw_send(&t, 0x3000u + 0x10u * n, 1, 8);
    w_send(&t, d, 0xFF, 0, 8);
    w_send(&t, d, 0xFF, 1, 8);
    assert_int_equal(b_take(&t, NULL), n == 1 ? TSR_AXI_SLVERR : TSR_AXI_OKAY);
  }
  tsr_axi_mem_read(t.m, 0x3000, after, sizeof after);
  for (unsigned n = 0; n < 3; n++) {
    const uint8_t *want = (n == 1) ? img + 0x10 : d;
    assert_memory_equal(after + 0x10u * n, want, 8);
    assert_memory_equal(after + 0x10u * n + 8u, want == d ? d : img + 0x18, 8);
  }
  assert_memory_equal(after + 0x30, img + 0x30, 0x10);
  tsr_axi_fault_log_t log;
  tsr_axi_mem_fault_log(t.m, &log);
  assert_int_equal(log.wr_err_bursts, 1);
  assert_int_equal(log.wr_first_addr, 0x3010u);
  assert_int_equal(log.rd_err_bursts, 0);
  tb_close(&t);
}

static void random_faults_hit_about_rand_pct_of_bursts(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  tb_t t;
  tb_open(&t, &c);
  tsr_axi_faults_t f = {.rand_pct = 30, .resp = TSR_AXI_DECERR, .seed = g_seed};
  assert_int_equal(tsr_axi_mem_set_faults(t.m, &f), 0);
  uint8_t buf[32];
  int resp[4];
  uint64_t cyc[4];
  unsigned bad_bursts = 0, bad_beats = 0;
  for (unsigned n = 0; n < 400; n++) {
    ar_send(&t, 0x100u * (n % 64u), 3, 8);
    r_take_each(&t, buf, 4, 4, 8, resp, cyc);
    unsigned k = 0;
    for (unsigned b = 0; b < 4; b++) {
      k += (resp[b] != TSR_AXI_OKAY);
    }
    assert_true(k <= 1); /* one beat of a burst at most */
    bad_bursts += (k != 0);
    bad_beats += k;
  }
  assert_in_range(bad_bursts, 80, 160);
  tsr_axi_fault_log_t log;
  tsr_axi_mem_fault_log(t.m, &log);
  assert_int_equal(log.rd_err_bursts, bad_bursts);
  (void)bad_beats;
  tb_close(&t);
}

static void delays_hold_responses_back_in_order_up_to_delay_max(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  c.rd_latency = 5;
  c.wr_latency = 5;
  tb_t t;
  tb_open(&t, &c);
  uint8_t img[0x400], buf[0x400];
  fill(img, sizeof img, 6);
  tsr_axi_mem_write(t.m, 0x4000, img, sizeof img);
  tsr_axi_faults_t f = {.delay_pct = 100, .delay_max = 3000, .seed = g_seed};
  assert_int_equal(tsr_axi_mem_set_faults(t.m, &f), 0);
  /* four bursts outstanding, then all their beats: data in order, every beat late */
  uint64_t ar_cyc = 0;
  for (unsigned n = 0; n < 4; n++) {
    ar_cyc = ar_send(&t, 0x4000u + 0x40u * n, 7, 8);
  }
  int resp[32];
  uint64_t cyc[32];
  r_take_each(&t, buf, 32, 8, 8, resp, cyc);
  assert_memory_equal(buf, img, 0x100);
  uint64_t longest = 0;
  for (unsigned b = 1; b < 32; b++) {
    assert_int_equal(resp[b], TSR_AXI_OKAY);
    const uint64_t gap = cyc[b] - cyc[b - 1];
    assert_true(gap >= 2); /* each beat waits at least one extra cycle */
    assert_true(gap <= 3001);
    longest = gap > longest ? gap : longest;
  }
  assert_true(longest > 300); /* thousands of cycles are possible and some are long */
  assert_true(cyc[0] > ar_cyc);
  /* a write's B is held back as well */
  uint8_t d[8] = {0};
  aw_send(&t, 0x4400, 0, 8);
  const uint64_t w_cyc = w_send(&t, d, 0xFF, 1, 8);
  uint64_t b_cyc = 0;
  assert_int_equal(b_take(&t, &b_cyc), TSR_AXI_OKAY);
  assert_true(b_cyc >= w_cyc + 5u + 1u);
  assert_true(b_cyc <= w_cyc + 5u + 3001u);
  tsr_axi_fault_log_t log;
  tsr_axi_mem_fault_log(t.m, &log);
  assert_int_equal(log.delays, 33);
  tsr_axi_mem_stats_t st;
  tsr_axi_mem_stats(t.m, &st);
  assert_int_equal(st.protocol_errors, 0);
  assert_int_equal(st.err_resps, 0);
  /* clearing the faults restores the plain latency */
  assert_int_equal(tsr_axi_mem_set_faults(t.m, NULL), 0);
  uint64_t first = 0;
  const uint64_t a2 = ar_send(&t, 0x4000, 0, 8);
  r_take(&t, buf, 1, 8, &first, NULL);
  assert_int_equal(first - a2, 5);
  tb_close(&t);
}

static void bad_fault_settings_are_refused(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  tb_t t;
  tb_open(&t, &c);
  tsr_axi_faults_t f = {.rand_pct = 101};
  assert_int_equal(tsr_axi_mem_set_faults(t.m, &f), -1);
  f.rand_pct = 0;
  f.delay_pct = 101;
  assert_int_equal(tsr_axi_mem_set_faults(t.m, &f), -1);
  assert_int_equal(tsr_axi_mem_set_faults(NULL, NULL), -1);
  tb_close(&t);
}

/* ---- stalls --------------------------------------------------------------- */

/* The test master's own PRNG (xorshift64), independent of the model's. */
static uint64_t xorshift(uint64_t *r) {
  *r ^= *r << 13;
  *r ^= *r >> 7;
  *r ^= *r << 17;
  return *r;
}

/* A legal randomized master: reads from region R (0x0000-0x7FFF, prefilled),
 * writes to region W (0x8000-0xFFFF, shadowed), random ready gaps. Checks the
 * data, returns a hash of every output of the model over the run. */
static uint64_t random_traffic(unsigned stall_pct, uint32_t seed, uint32_t master_seed, unsigned bus,
                               unsigned bpc, uint64_t *cycles_out) {
  tsr_axi_mem_cfg_t c = base_cfg();
  c.bus_bytes = bus;
  c.stall_pct = stall_pct;
  c.seed = seed;
  c.rd_latency = 4;
  c.wr_latency = 3;
  c.bytes_per_cycle = bpc;
  tb_t t;
  tb_open(&t, &c);
  static uint8_t img[0x8000], shadow[0x8000], got[0x8000];
  fill(img, sizeof img, 11);
  memset(shadow, 0, sizeof shadow);
  tsr_axi_mem_write(t.m, 0, img, sizeof img);

  uint64_t r = 0x9E3779B97F4A7C15ull ^ master_seed; /* the master's own choices */
#define RND() xorshift(&r)
  enum { NB = 40 };
  struct { uint32_t addr; unsigned len; } rd[NB], wrb[NB];
  for (int i = 0; i < NB; i++) {
    rd[i].len = (unsigned)(RND() % 8u);
    const uint64_t rpage = RND() % (0x8000u / 256u);
    rd[i].addr = (uint32_t)(rpage * 256u + (RND() % 8u) * bus);
    wrb[i].len = (unsigned)(RND() % 8u);
    const uint64_t wpage = RND() % (0x8000u / 256u);
    wrb[i].addr = 0x8000u + (uint32_t)(wpage * 256u + (RND() % 8u) * bus);
  }
  unsigned ar_i = 0, r_burst = 0, r_beat = 0, aw_i = 0, w_burst = 0, w_beat = 0, b_n = 0;
  uint64_t hash = 1469598103934665603ull;
  int r_wait = 0, b_wait = 0;
  tsr_axi_rsp_t prev;
  memset(&prev, 0, sizeof prev);
  while (r_burst < NB || b_n < NB) {
    /* drive this cycle's request (valids stay up until their handshake) */
    if (!t.q.arvalid && ar_i < NB && RND() % 3u == 0u) {
      t.q.arvalid = 1;
      t.q.araddr = rd[ar_i].addr;
      t.q.arlen = (uint8_t)rd[ar_i].len;
      t.q.arsize = (uint8_t)size_log2(bus);
      t.q.arburst = 1;
    }
    if (!t.q.awvalid && aw_i < NB && RND() % 3u == 0u) {
      t.q.awvalid = 1;
      t.q.awaddr = wrb[aw_i].addr;
      t.q.awlen = (uint8_t)wrb[aw_i].len;
      t.q.awsize = (uint8_t)size_log2(bus);
      t.q.awburst = 1;
    }
    if (!t.q.wvalid && w_burst < aw_i && RND() % 2u == 0u) {
      t.q.wvalid = 1;
      for (unsigned i = 0; i < bus; i++) {
        t.q.wdata[i] = (uint8_t)RND();
      }
      t.q.wstrb = (uint16_t)RND();
      t.q.wlast = (uint8_t)(w_beat == wrb[w_burst].len);
    }
    t.q.rready = (uint8_t)(RND() % 4u != 0u);
    t.q.bready = (uint8_t)(RND() % 4u != 0u);

    const tsr_axi_rsp_t o = *t.o;
    /* the model obeys AXI too: an R or B not taken stays, unchanged */
    if (r_wait) {
      assert_true(o.rvalid && o.rresp == prev.rresp && o.rlast == prev.rlast);
      assert_memory_equal(o.rdata, prev.rdata, bus);
    }
    if (b_wait) {
      assert_true(o.bvalid && o.bresp == prev.bresp);
    }
    r_wait = o.rvalid && !t.q.rready;
    b_wait = o.bvalid && !t.q.bready;
    prev = o;
    for (size_t i = 0; i < sizeof o; i++) {
      hash = (hash ^ ((const uint8_t *)&o)[i]) * 1099511628211ull;
    }
    if (o.rvalid && t.q.rready) {
      const uint32_t a = rd[r_burst].addr + r_beat * bus;
      assert_memory_equal(o.rdata, img + a, bus);
      assert_int_equal(o.rresp, TSR_AXI_OKAY);
      assert_int_equal(o.rlast, r_beat == rd[r_burst].len);
      if (++r_beat > rd[r_burst].len) {
        r_beat = 0;
        r_burst++;
      }
    }
    const int wh = t.q.wvalid && o.wready;
    if (wh) {
      const uint32_t a = wrb[w_burst].addr - 0x8000u + w_beat * bus;
      for (unsigned i = 0; i < bus; i++) {
        if ((t.q.wstrb >> i) & 1u) {
          shadow[a + i] = t.q.wdata[i];
        }
      }
      if (++w_beat > wrb[w_burst].len) {
        w_beat = 0;
        w_burst++;
      }
    }
    if (o.bvalid && t.q.bready) {
      assert_int_equal(o.bresp, TSR_AXI_OKAY);
      b_n++;
    }
    const int arh = t.q.arvalid && o.arready, awh = t.q.awvalid && o.awready;
    tick(&t);
    if (wh) {
      t.q.wvalid = 0;
    }
    if (arh) {
      t.q.arvalid = 0;
      ar_i++;
    }
    if (awh) {
      t.q.awvalid = 0;
      aw_i++;
    }
    if (t.cyc > 200000u) {
      fail_msg("random traffic did not finish (seed %u)", seed);
    }
  }
#undef RND
  tsr_axi_mem_read(t.m, 0x8000, got, sizeof got);
  assert_memory_equal(got, shadow, sizeof shadow);
  tsr_axi_mem_stats_t st;
  tsr_axi_mem_stats(t.m, &st);
  assert_int_equal(st.protocol_errors, 0);
  assert_int_equal(st.rd_bursts, NB);
  assert_int_equal(st.wr_bursts, NB);
  if (cycles_out != NULL) {
    *cycles_out = t.cyc;
  }
  tb_close(&t);
  return hash;
}

static void stalls_are_deterministic_for_a_seed(void **state) {
  (void)state;
  uint64_t c0 = 0, c1 = 0;
  const uint64_t h_free = random_traffic(0, g_seed, g_seed, 8, 0, &c0);
  const uint64_t h1 = random_traffic(40, g_seed, g_seed, 8, 0, &c1);
  const uint64_t h2 = random_traffic(40, g_seed, g_seed, 8, 0, NULL);
  const uint64_t h3 = random_traffic(40, g_seed + 1u, g_seed, 8, 0, NULL);
  assert_true(h1 == h2);  /* same seed: the same outputs, cycle for cycle */
  assert_true(h1 != h3);  /* another model seed, same master: other stalls */
  assert_true(h1 != h_free);
  assert_true(c1 > c0);   /* stalls cost time */
}

static void traffic_is_correct_under_stalls_caps_and_all_bus_widths(void **state) {
  (void)state;
  const unsigned buses[] = {4, 8, 16};
  const unsigned stalls[] = {0, 25, 60};
  const unsigned caps[] = {0, 3};
  for (size_t b = 0; b < 3; b++) {
    for (size_t s = 0; s < 3; s++) {
      for (size_t k = 0; k < 2; k++) {
        const uint32_t sd = g_seed + (uint32_t)(b * 7u + s * 3u + k);
        (void)random_traffic(stalls[s], sd, sd, buses[b], caps[k], NULL);
      }
    }
  }
}

/* Fraction (percent) of cycles an idle model withholds ARREADY. */
static unsigned arready_low_pct(unsigned stall_pct) {
  tsr_axi_mem_cfg_t c = base_cfg();
  c.stall_pct = stall_pct;
  c.seed = g_seed;
  tb_t t;
  tb_open(&t, &c);
  tick(&t);
  unsigned low = 0;
  for (int i = 0; i < 10000; i++) {
    low += !t.o->arready;
    assert_int_equal(t.o->rvalid | t.o->bvalid | t.o->wready, 0);
    tick(&t);
  }
  tb_close(&t);
  return low / 100u;
}

static void stall_pct_is_the_chance_a_ready_is_withheld(void **state) {
  (void)state;
  assert_int_equal(arready_low_pct(0), 0);
  assert_in_range(arready_low_pct(30), 27, 33);
  assert_int_equal(arready_low_pct(100), 100);
}

static void stalls_leave_gaps_between_r_beats(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  c.stall_pct = 50;
  c.seed = g_seed;
  tb_t t;
  tb_open(&t, &c);
  uint8_t buf[64 * 8];
  ar_send(&t, 0x1000, 63, 8);
  uint64_t first = 0, last = 0;
  r_take(&t, buf, 64, 8, &first, &last);
  assert_in_range(last - first, 63u + 16u, 63u * 3u); /* about 2 cycles per beat */
  tb_close(&t);
}

/* ---- protocol checker ------------------------------------------------------ */

static uint64_t viol(const tb_t *t, tsr_axi_viol_t k) {
  return tsr_axi_mem_violations(t->m, k);
}

/* Every kind other than `k` is still 0, and the total matches. */
static void only(const tb_t *t, tsr_axi_viol_t k, uint64_t n) {
  tsr_axi_mem_stats_t st;
  tsr_axi_mem_stats(t->m, &st);
  for (int i = 0; i < TSR_AXI_VIOL_COUNT; i++) {
    assert_int_equal(viol(t, (tsr_axi_viol_t)i), (i == (int)k) ? n : 0u);
  }
  assert_int_equal(st.protocol_errors, n);
}

static void write_burst(tb_t *t, uint32_t addr, unsigned len, unsigned size, unsigned burst) {
  uint8_t d[8] = {0};
  aw_send_raw(t, addr, len, size, burst);
  for (unsigned i = 0; i <= len; i++) {
    w_send(t, d, 0xFF, i == len, 8);
  }
  (void)b_take(t, NULL);
}

static void crossing_4k_is_counted_per_channel(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  tb_t t;
  tb_open(&t, &c);
  uint8_t buf[256];
  ar_send(&t, 0x0FF8, 0, 8); /* ends exactly at the boundary: legal */
  r_take(&t, buf, 1, 8, NULL, NULL);
  ar_send(&t, 0x0F00, 31, 8); /* exactly the rest of the page: legal */
  r_take(&t, buf, 32, 8, NULL, NULL);
  only(&t, TSR_AXI_VIOL_AR_4K, 0);
  ar_send(&t, 0x0FF8, 1, 8);
  r_take(&t, buf, 2, 8, NULL, NULL);
  only(&t, TSR_AXI_VIOL_AR_4K, 1);
  tb_close(&t);

  tb_open(&t, &c);
  write_burst(&t, 0x1FE0, 3, 3, TSR_AXI_BURST_INCR); /* legal */
  only(&t, TSR_AXI_VIOL_AW_4K, 0);
  write_burst(&t, 0x1FF0, 3, 3, TSR_AXI_BURST_INCR);
  only(&t, TSR_AXI_VIOL_AW_4K, 1);
  tb_close(&t);
}

static void bursts_leaving_the_guard_are_counted(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  tb_t t;
  tb_open(&t, &c);
  tsr_axi_mem_set_guard(t.m, 0x1000, 0x10FF);
  uint8_t buf[256];
  tsr_axi_mem_stats_t st;
  ar_send(&t, 0x1000, 31, 8); /* the whole guard, first to last byte: inside */
  r_take(&t, buf, 32, 8, NULL, NULL);
  write_burst(&t, 0x10F8, 0, 3, TSR_AXI_BURST_INCR); /* the last word: inside */
  tsr_axi_mem_stats(t.m, &st);
  assert_int_equal(st.rd_outside + st.wr_outside, 0);
  ar_send(&t, 0x0FF8, 1, 8); /* starts one word below */
  r_take(&t, buf, 2, 8, NULL, NULL);
  write_burst(&t, 0x10F8, 1, 3, TSR_AXI_BURST_INCR); /* ends one word past */
  tsr_axi_mem_stats(t.m, &st);
  assert_int_equal(st.rd_outside, 1);
  assert_int_equal(st.wr_outside, 1);
  assert_int_equal(st.outside_first, 0x0FF8);
  tb_close(&t);
}

static void non_incr_bursts_are_counted(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  tb_t t;
  uint8_t buf[32];
  tb_open(&t, &c);
  ar_send_raw(&t, 0x100, 1, 3, 0); /* FIXED */
  r_take(&t, buf, 2, 8, NULL, NULL);
  only(&t, TSR_AXI_VIOL_AR_BURST, 1);
  tb_close(&t);
  tb_open(&t, &c);
  write_burst(&t, 0x100, 1, 3, 2); /* WRAP */
  only(&t, TSR_AXI_VIOL_AW_BURST, 1);
  tb_close(&t);
}

static void narrow_sizes_are_counted(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  tb_t t;
  uint8_t buf[32];
  tb_open(&t, &c);
  ar_send_raw(&t, 0x100, 0, 2, TSR_AXI_BURST_INCR); /* 4-byte beats on an 8-byte bus */
  r_take(&t, buf, 1, 8, NULL, NULL);
  only(&t, TSR_AXI_VIOL_AR_SIZE, 1);
  tb_close(&t);
  tb_open(&t, &c);
  write_burst(&t, 0x100, 0, 4, TSR_AXI_BURST_INCR);
  only(&t, TSR_AXI_VIOL_AW_SIZE, 1);
  tb_close(&t);
}

static void wlast_off_the_last_beat_is_counted(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  tb_t t;
  uint8_t d[8] = {0};
  tb_open(&t, &c);
  aw_send(&t, 0x100, 3, 8);
  w_send(&t, d, 0xFF, 0, 8);
  w_send(&t, d, 0xFF, 1, 8); /* early */
  w_send(&t, d, 0xFF, 0, 8);
  w_send(&t, d, 0xFF, 1, 8);
  assert_int_equal(b_take(&t, NULL), TSR_AXI_OKAY); /* the burst still ends after len+1 beats */
  only(&t, TSR_AXI_VIOL_WLAST, 1);
  aw_send(&t, 0x200, 1, 8);
  w_send(&t, d, 0xFF, 0, 8);
  w_send(&t, d, 0xFF, 0, 8); /* missing */
  assert_int_equal(b_take(&t, NULL), TSR_AXI_OKAY);
  only(&t, TSR_AXI_VIOL_WLAST, 2);
  tb_close(&t);
}

/* With stall_pct 100 no READY ever rises, so the master has to wait. */
static void valid_dropped_or_payload_changed_before_ready_is_counted(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  c.stall_pct = 100;
  tb_t t;

  /* holding steady for a long time is legal */
  tb_open(&t, &c);
  t.q.arvalid = 1;
  t.q.araddr = 0x40;
  t.q.arsize = 3;
  t.q.arburst = 1;
  t.q.awvalid = 1;
  t.q.awaddr = 0x80;
  t.q.awsize = 3;
  t.q.awburst = 1;
  t.q.wvalid = 1;
  t.q.wlast = 1;
  t.q.wstrb = 0xFF;
  for (int i = 0; i < 50; i++) {
    tick(&t);
  }
  tsr_axi_mem_stats_t st;
  tsr_axi_mem_stats(t.m, &st);
  assert_int_equal(st.protocol_errors, 0);
  assert_int_equal(st.rd_bursts + st.wr_bursts + st.wr_beats, 0);

  /* AR: change each field in turn, then drop ARVALID */
  uint64_t n = 0;
  t.q.araddr = 0x48;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_AR_UNSTABLE), ++n);
  t.q.arlen = 3;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_AR_UNSTABLE), ++n);
  t.q.arsize = 2;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_AR_UNSTABLE), ++n);
  t.q.arburst = 0;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_AR_UNSTABLE), ++n);
  tick(&t); /* steady again: no new count */
  assert_int_equal(viol(&t, TSR_AXI_VIOL_AR_UNSTABLE), n);
  t.q.arvalid = 0;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_AR_UNSTABLE), ++n);
  tick(&t); /* nothing waits any more: no new count */
  assert_int_equal(viol(&t, TSR_AXI_VIOL_AR_UNSTABLE), n);
  /* AW likewise */
  const uint64_t n_ar = n;
  n = 0;
  t.q.awaddr = 0x88;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_AW_UNSTABLE), ++n);
  t.q.awlen = 1;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_AW_UNSTABLE), ++n);
  t.q.awsize = 2;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_AW_UNSTABLE), ++n);
  t.q.awburst = 2;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_AW_UNSTABLE), ++n);
  t.q.awvalid = 0;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_AW_UNSTABLE), ++n);
  const uint64_t n_aw = n;
  /* W: a data byte, the strobes, WLAST, then drop WVALID */
  n = 0;
  t.q.wdata[5] ^= 1u;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_W_UNSTABLE), ++n);
  t.q.wstrb = 0x0F;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_W_UNSTABLE), ++n);
  t.q.wlast = 0;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_W_UNSTABLE), ++n);
  t.q.wvalid = 0;
  tick(&t);
  assert_int_equal(viol(&t, TSR_AXI_VIOL_W_UNSTABLE), ++n);
  tsr_axi_mem_stats(t.m, &st);
  assert_int_equal(st.protocol_errors, n_ar + n_aw + n);
  tb_close(&t);
}

/* ---- reset, backdoor, configuration ------------------------------------------ */

static void reset_drops_transactions_and_keeps_memory(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  c.rd_latency = 5;
  tb_t t;
  tb_open(&t, &c);
  uint8_t img[64], got[64];
  fill(img, sizeof img, 2);
  tsr_axi_mem_write(t.m, 0x600, img, sizeof img);
  ar_send(&t, 0x600, 7, 8);
  aw_send(&t, 0x700, 0, 8);
  tsr_axi_mem_reset(t.m);
  const tsr_axi_rsp_t *o = tsr_axi_mem_rsp(t.m);
  assert_int_equal(o->arready | o->awready | o->wready | o->rvalid | o->bvalid, 0);
  t.q.rready = 1;
  t.q.bready = 1;
  for (int i = 0; i < 30; i++) {
    tick(&t);
    assert_int_equal(t.o->rvalid | t.o->bvalid | t.o->wready, 0);
  }
  assert_int_equal(t.o->arready, 1);
  tsr_axi_mem_read(t.m, 0x600, got, sizeof got);
  assert_memory_equal(got, img, sizeof img);
  /* and it works again */
  ar_send(&t, 0x600, 7, 8);
  assert_int_equal(r_take(&t, got, 8, 8, NULL, NULL), TSR_AXI_OKAY);
  assert_memory_equal(got, img, sizeof img);
  tb_close(&t);
}

static void backdoor_access_is_bounds_checked(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg(); /* 64 KiB */
  tb_t t;
  tb_open(&t, &c);
  uint8_t b[8] = {1, 2, 3, 4, 5, 6, 7, 8}, g[8];
  assert_int_equal(tsr_axi_mem_write(t.m, 64u * KIB - 8u, b, 8), 0);
  assert_int_equal(tsr_axi_mem_read(t.m, 64u * KIB - 8u, g, 8), 0);
  assert_memory_equal(g, b, 8);
  assert_int_equal(tsr_axi_mem_write(t.m, 64u * KIB - 7u, b, 8), -1);
  assert_int_equal(tsr_axi_mem_read(t.m, 64u * KIB - 7u, g, 8), -1);
  assert_int_equal(tsr_axi_mem_read(t.m, 64u * KIB + 1u, g, 0), -1);
  assert_int_equal(tsr_axi_mem_read(t.m, 8, g, SIZE_MAX), -1);       /* wraps around */
  assert_int_equal(tsr_axi_mem_write(t.m, UINT64_MAX, b, 2), -1);
  assert_int_equal(tsr_axi_mem_write(t.m, 0, NULL, 4), -1);
  assert_int_equal(tsr_axi_mem_read(NULL, 0, g, 1), -1);
  tb_close(&t);
}

static void bad_configurations_are_refused(void **state) {
  (void)state;
  tsr_axi_mem_cfg_t c = base_cfg();
  c.bus_bytes = 3;
  assert_null(tsr_axi_mem_create(&c));
  c = base_cfg();
  c.stall_pct = 101;
  assert_null(tsr_axi_mem_create(&c));
  c = base_cfg();
  c.mem_size = 0;
  assert_null(tsr_axi_mem_create(&c));
  c = base_cfg();
  c.mem_size = (1ull << 32) + 8u;
  assert_null(tsr_axi_mem_create(&c));
  assert_null(tsr_axi_mem_create(NULL));
  tsr_axi_mem_destroy(NULL);
}

int main(int argc, char **argv) {
  g_seed = (uint32_t)time(NULL);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      g_seed = (uint32_t)strtoul(argv[++i], NULL, 0);
    } else {
      fprintf(stderr, "usage: test_tb_memmodel [--seed N]\n");
      return 2;
    }
  }
  printf("test_tb_memmodel: random seed %u (replay with --seed %u)\n", g_seed, g_seed);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(read_latency_is_cycles_from_ar_handshake_to_first_r),
      cmocka_unit_test(read_latency_zero_counts_as_one),
      cmocka_unit_test(write_latency_is_cycles_from_last_w_to_b),
      cmocka_unit_test(reads_return_memory_contents_in_order_with_several_outstanding),
      cmocka_unit_test(arready_drops_when_the_read_queue_is_full),
      cmocka_unit_test(wstrb_writes_only_the_strobed_bytes),
      cmocka_unit_test(unaligned_address_starts_at_the_containing_beat),
      cmocka_unit_test(bandwidth_cap_limits_read_beats),
      cmocka_unit_test(bandwidth_cap_is_shared_by_reads_and_writes),
      cmocka_unit_test(capped_reads_and_writes_share_fairly_in_any_phase),
      cmocka_unit_test(unused_write_reservations_return_their_credits),
      cmocka_unit_test(bursts_touching_the_error_range_get_slverr_and_writes_are_dropped),
      cmocka_unit_test(bursts_beyond_memory_get_decerr),
      cmocka_unit_test(chosen_read_beat_answers_the_injected_error_and_only_that_beat),
      cmocka_unit_test(chosen_write_burst_answers_b_error_and_writes_nothing),
      cmocka_unit_test(random_faults_hit_about_rand_pct_of_bursts),
      cmocka_unit_test(delays_hold_responses_back_in_order_up_to_delay_max),
      cmocka_unit_test(bad_fault_settings_are_refused),
      cmocka_unit_test(stalls_are_deterministic_for_a_seed),
      cmocka_unit_test(traffic_is_correct_under_stalls_caps_and_all_bus_widths),
      cmocka_unit_test(stall_pct_is_the_chance_a_ready_is_withheld),
      cmocka_unit_test(stalls_leave_gaps_between_r_beats),
      cmocka_unit_test(crossing_4k_is_counted_per_channel),
      cmocka_unit_test(bursts_leaving_the_guard_are_counted),
      cmocka_unit_test(non_incr_bursts_are_counted),
      cmocka_unit_test(narrow_sizes_are_counted),
      cmocka_unit_test(wlast_off_the_last_beat_is_counted),
      cmocka_unit_test(valid_dropped_or_payload_changed_before_ready_is_counted),
      cmocka_unit_test(reset_drops_transactions_and_keeps_memory),
      cmocka_unit_test(backdoor_access_is_bounds_checked),
      cmocka_unit_test(bad_configurations_are_refused),
  };
  const int failed = cmocka_run_group_tests_name("tb_memmodel", tests, NULL, NULL);
  if (failed != 0) {
    fprintf(stderr, "test_tb_memmodel: %d test(s) failed with seed %u (replay: --seed %u)\n", failed, g_seed,
            g_seed);
  }
  return failed != 0;
}
